//! # bohf-infogain
//!
//! Information gain: the quantity Γ(T) that every regret bound of the five papers is stated in, computed
//! on finite candidate sets so that the bounds can be checked numerically.
//!
//! ## Formulas
//!
//! Throughout, ρ > 0 is the noise (regulariser) of the posterior variance: λκ in PF-TS eq. (9) and
//! MR-LPF eq. (10), λ in POP-BO, the observation noise in GP-UCB.
//!
//! * **Realised information gain** of t observed points or pairs z₁,…,z_t with Gram matrix K_t
//!   (MR-LPF eq. (13), PF-TS eq. (11), POP-BO eq. (18), without the max):
//!
//!   I(z₁,…,z_t) = ½ log det(I + K_t/ρ)                                     ([`information_gain`])
//!
//!   and its **chain-rule form**, with σ²_{s−1} the posterior variance given z₁,…,z_{s−1} under noise ρ
//!   (the determinant lemma applied one row at a time):
//!
//!   I(z₁,…,z_t) = ½ Σ_{s=1}^{t} log(1 + σ²_{s−1}(z_s)/ρ)                    ([`PosteriorVariances`])
//!
//! * **Maximum information gain** Γ_ρ(T) = max_{z₁,…,z_T} ½ log det(I + K_T/ρ) over sequences (repeats
//!   allowed) from a finite candidate set. log det(I + K_S/ρ) is monotone submodular in the observed
//!   multiset S, so greedy maximum-variance selection z_t = argmax_z σ²_{t−1}(z) attains at least
//!   (1 − 1/e) of the maximum (Nemhauser, Wolsey & Fisher 1978; MR-LPF §4.1 "Numerical evaluation"):
//!
//!   g_T ≤ Γ_ρ(T) ≤ g_T / (1 − 1/e),   g_T = ½ Σ_{t≤T} log(1 + σ²_{t−1}(z_t)/ρ)   ([`greedy_points`],
//!   [`greedy_pairs`])
//!
//!   for points (base kernel k, observation f(x)) and for pairs (the dueling kernel k_D of MR-LPF eq. (4),
//!   observation f(x) − f(x′); or POP-BO's additive pair kernel). Pairs never form the n²×n² pair Gram:
//!   the posterior is kept in utility space (n×n) and each observation is a rank-one update.
//!
//! * **Growth orders** of Γ(T) up to constants (Srinivas et al. 2010; Vakili et al. 2021;
//!   MR-LPF Remark 4.2 / App. B.3; PF-TS Remark 1): linear d·log T, SE log^{d+1} T, Matérn-ν
//!   T^{d/(2ν+d)} log^{2ν/(2ν+d)} T ([`GrowthOrder`]), and a least-squares log–log slope
//!   ([`log_log_slope`]) to compare greedy trajectories with them.
//!
//! * **Elliptical-potential sums** that regret proofs bound by Γ: Σ_t min(1, σ²_{t−1}(z_t)/ρ) ≤
//!   (2/log 2)·I, Σ_t σ²_{t−1}(z_t) ≤ (2c/log(1 + c/ρ))·I when every σ² ≤ c, and
//!   Σ_t σ_{t−1}(z_t) ≤ √(T·2c/log(1 + c/ρ)·I) ([`potential`]).
//!
//! ## Γ on a candidate set
//!
//! Γ here is a maximum over the given candidates. It is a lower bound of Γ on any continuous domain that
//! contains them, and the two agree as the candidate grid is refined.
#![warn(missing_docs)]

mod greedy;
mod growth;
pub mod potential;
mod realised;
mod utility;

pub use bohf_kernels::{IndexPair, PairKernel};
pub use greedy::{GammaBracket, GreedyGain, NEMHAUSER_RATIO, greedy_pairs, greedy_points};
pub use growth::{GrowthOrder, PowerLawFit, log_log_fit, log_log_slope};
pub use realised::{PosteriorVariances, information_gain};

use bohf_core::{Error, Result, SolverStatus};
use nalgebra::DMatrix;

/// Relative tolerance on |K_ij − K_ji| (relative to the largest |K_ii|, or 1) for accepting a Gram
/// matrix as symmetric: dueling Grams assembled from a base Gram differ from their transpose by a few ulps.
const SYMMETRY_TOLERANCE: f64 = 1e-9;

/// Relative tolerance (to the largest prior variance) below zero within which a computed posterior
/// variance is treated as round-off and clamped to 0; anything more negative means K is not PSD.
const NEGATIVE_VARIANCE_TOLERANCE: f64 = 1e-9;

/// Checks that the noise ρ is finite and > 0.
pub(crate) fn check_noise(noise: f64) -> Result<()> {
    bohf_core::error::ensure_positive("noise", noise)
}

/// Checks that `k` (named `name`) is square, finite, symmetric within [`SYMMETRY_TOLERANCE`], and has a
/// non-negative diagonal. Returns the scale max_i |K_ii| (0 for an empty or zero matrix).
pub(crate) fn check_gram(name: &str, k: &DMatrix<f64>) -> Result<f64> {
    let n = k.nrows();
    if k.ncols() != n {
        return Err(Error::dims(format!("`{name}` (square matrix): columns"), n, k.ncols()));
    }
    bohf_core::error::ensure_finite(&format!("`{name}`"), k.iter())?;
    let scale = k.diagonal().iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let asym = bohf_core::linalg::max_asymmetry(k);
    if asym > SYMMETRY_TOLERANCE * scale.max(1.0) {
        return Err(Error::invalid(name, format!("must be symmetric, but max |K_ij − K_ji| = {asym:.3e}")));
    }
    if let Some((i, &v)) = k.diagonal().iter().enumerate().find(|(_, v)| **v < 0.0) {
        return Err(Error::invalid(name, format!("must be positive semi-definite, but K[{i},{i}] = {v:.3e} < 0")));
    }
    Ok(scale)
}

/// Turns the result of a rank-one conditioning step (the prior variance of the observation, or an error)
/// into a non-negative variance: round-off below zero (within [`NEGATIVE_VARIANCE_TOLERANCE`] of
/// `scale`) becomes 0; a clearly negative variance, or a non-positive innovation variance ρ + σ² that made
/// the update fail, is an error saying that the matrix `name` is not positive semi-definite.
pub(crate) fn clean_variance(name: &str, variance: Result<f64>, scale: f64, step: usize) -> Result<f64> {
    let not_psd = |what: String| {
        Error::invalid(name, format!("must be positive semi-definite, but at observation {step} {what}"))
    };
    let variance = match variance {
        Ok(v) => v,
        Err(Error::SolverFailed { status: SolverStatus::NonPositivePivot { pivot }, .. }) => {
            return Err(not_psd(format!("the innovation variance ρ + σ² is {pivot:.3e} ≤ 0")));
        }
        Err(e) => return Err(e),
    };
    if variance >= 0.0 {
        Ok(variance)
    } else if variance >= -NEGATIVE_VARIANCE_TOLERANCE * scale.max(f64::MIN_POSITIVE) {
        Ok(0.0)
    } else {
        Err(not_psd(format!("the posterior variance is {variance:.3e} < 0")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_positive_innovation_variance_says_the_matrix_is_not_psd() {
        let pivot =
            Err(Error::solver_failed("rank-one posterior update", SolverStatus::NonPositivePivot { pivot: -0.5 }, ""));
        match clean_variance("base", pivot, 1.0, 3) {
            Err(Error::InvalidParameter { name, reason }) => {
                assert_eq!(name, "base");
                assert!(reason.contains("positive semi-definite") && reason.contains("observation 3"), "{reason}");
            }
            other => panic!("unexpected {other:?}"),
        }
        // Any other failure passes through unchanged.
        let other = Error::solver_failed("lapack", SolverStatus::NotConverged, "");
        assert_eq!(clean_variance("base", Err(other.clone()), 1.0, 3), Err(other));
    }
}
