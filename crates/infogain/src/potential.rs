//! Bounds on the elliptical-potential sums of regret proofs in terms of the information gain.
//!
//! Let x_t = σ²_{t−1}(z_t)/ρ ≥ 0 and I = ½ Σ_t log(1 + x_t) the realised information gain of the
//! sequence (≤ Γ_ρ(T); see [`PosteriorVariances`](crate::PosteriorVariances)). The scalar facts:
//!
//! * **min(1, x) ≤ log(1 + x)/log 2** for x ≥ 0. On [0, 1], log(1 + x) is concave, so it lies above its
//!   chord x·log 2; for x > 1, log(1 + x)/log 2 > 1. Equality at x = 0 and x = 1, so 1/log 2 is the best
//!   constant. Summing: Σ_t min(1, x_t) ≤ (1/log 2) Σ_t log(1 + x_t) = **(2/log 2)·I** ≈ 2.885·I
//!   ([`elliptical_potential_bound`]).
//! * **s ≤ (c/log(1 + c/ρ))·log(1 + s/ρ)** for s ∈ [0, c], by the same chord argument for
//!   s ↦ log(1 + s/ρ) on [0, c]. If every σ²_{t−1}(z_t) ≤ c (e.g. c = sup_z k(z, z); c = 4 for the dueling
//!   kernel of a base kernel with |k| ≤ 1): Σ_t σ²_{t−1}(z_t) ≤ **(2c/log(1 + c/ρ))·I**
//!   ([`variance_sum_bound`]; with c = 4 this is MR-LPF eq. (20), 8/log(1 + 4/ρ)·Γ, Pásztor et al. 2024
//!   Lemma 14).
//! * By Cauchy–Schwarz, Σ_t σ_{t−1}(z_t) ≤ √(T Σ_t σ²_{t−1}(z_t)) ≤ **√(T·2c/log(1 + c/ρ)·I)**
//!   ([`std_sum_bound`]; with c = 4, PF-TS Lemma 10).
//!
//! Since I ≤ Γ_ρ(T), each bound also holds with Γ_ρ(T) (or the upper end of a greedy bracket) in place of
//! I; pass whichever gain you have.

use bohf_core::error::ensure_positive;
use bohf_core::{Error, Result};

/// 2/log 2, the constant in Σ_t min(1, σ²/ρ) ≤ (2/log 2)·I.
pub const ELLIPTICAL_POTENTIAL_CONSTANT: f64 = 2.0 / std::f64::consts::LN_2;

fn check_gain(gain: f64) -> Result<()> {
    if gain.is_finite() && gain >= 0.0 {
        Ok(())
    } else {
        Err(Error::invalid("gain", format!("must be finite and ≥ 0, got {gain}")))
    }
}

/// (2/log 2)·I, an upper bound of Σ_t min(1, σ²_{t−1}(z_t)/ρ) for any sequence whose realised gain is
/// at most I. Errors if `gain` is negative or not finite.
pub fn elliptical_potential_bound(gain: f64) -> Result<f64> {
    check_gain(gain)?;
    Ok(ELLIPTICAL_POTENTIAL_CONSTANT * gain)
}

/// (2c/log(1 + c/ρ))·I, an upper bound of Σ_t σ²_{t−1}(z_t) when every σ²_{t−1}(z_t) ≤ c
/// (MR-LPF eq. (20) with c = 4: 8/log(1 + 4/ρ)·Γ). Errors name `gain`, `max_variance` or `noise`.
pub fn variance_sum_bound(gain: f64, max_variance: f64, noise: f64) -> Result<f64> {
    check_gain(gain)?;
    ensure_positive("max_variance", max_variance)?;
    ensure_positive("noise", noise)?;
    Ok(2.0 * max_variance / (max_variance / noise).ln_1p() * gain)
}

/// √(T·2c/log(1 + c/ρ)·I), an upper bound of Σ_t σ_{t−1}(z_t) over T steps when every
/// σ²_{t−1}(z_t) ≤ c (PF-TS Lemma 10 with c = 4: √(8TΓ/log(1 + 4/ρ))).
pub fn std_sum_bound(steps: usize, gain: f64, max_variance: f64, noise: f64) -> Result<f64> {
    Ok((steps as f64 * variance_sum_bound(gain, max_variance, noise)?).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PairKernel, PosteriorVariances};
    use approx::assert_relative_eq;
    use bohf_kernels::{Kernel, Stationary};
    use nalgebra::DMatrix;
    use proptest::prelude::*;

    #[test]
    fn scalar_inequality_and_its_tightness() {
        // min(1, x) ≤ log(1 + x)/log 2 on a fine grid of [0, 50], with equality at 0 and 1.
        for k in 0..=50_000 {
            let x = k as f64 * 1e-3;
            assert!(x.min(1.0) <= (x.ln_1p() / std::f64::consts::LN_2) * (1.0 + 1e-15), "x = {x}");
        }
        // At x = 1 both sides are 1, so no smaller constant than 1/log 2 works.
        assert_relative_eq!(1f64.ln_1p() / std::f64::consts::LN_2, 1.0, max_relative = 1e-15);
        assert_relative_eq!(ELLIPTICAL_POTENTIAL_CONSTANT, 2.885_390_081_777_927, max_relative = 1e-15);
    }

    #[test]
    fn paper_constants() {
        // MR-LPF eq. (20): 8/log(1 + 4/ρ)·Γ; PF-TS Lemma 10: √(8TΓ/log(1 + 4/ρ)). ρ = λκ = 0.05·6.
        let (gamma, rho, t) = (12.5, 0.3, 40);
        // Tolerance: the same formula rearranged, a few ulps apart.
        assert_relative_eq!(
            variance_sum_bound(gamma, 4.0, rho).unwrap(),
            8.0 / (1.0 + 4.0 / rho).ln() * gamma,
            max_relative = 1e-14
        );
        assert_relative_eq!(
            std_sum_bound(t, gamma, 4.0, rho).unwrap(),
            (8.0 * t as f64 * gamma / (1.0 + 4.0 / rho).ln()).sqrt(),
            max_relative = 1e-14
        );
    }

    #[test]
    fn errors_name_the_field() {
        assert!(elliptical_potential_bound(-1.0).unwrap_err().to_string().contains("gain"));
        assert!(elliptical_potential_bound(f64::NAN).unwrap_err().to_string().contains("gain"));
        assert!(variance_sum_bound(1.0, 0.0, 1.0).unwrap_err().to_string().contains("max_variance"));
        assert!(variance_sum_bound(1.0, 1.0, -1.0).unwrap_err().to_string().contains("noise"));
        assert!(std_sum_bound(3, 1.0, 1.0, f64::NAN).unwrap_err().to_string().contains("noise"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The three bounds on arbitrary non-negative sequences x_t (not necessarily posterior variances).
        #[test]
        fn bounds_hold_on_random_sequences(
            xs in proptest::collection::vec(0.0..8.0f64, 1..60),
            rho in 0.01..5.0f64,
        ) {
            let c = xs.iter().cloned().fold(0.0, f64::max).max(1e-12);
            let pv = PosteriorVariances::new(xs.clone(), rho).unwrap();
            let i = pv.information_gain();
            // Relative slack 1e-12 for the rounding of the sums.
            let slack = 1.0 + 1e-12;
            prop_assert!(pv.elliptical_potential() <= elliptical_potential_bound(i).unwrap() * slack);
            prop_assert!(pv.variance_sum() <= variance_sum_bound(i, c, rho).unwrap() * slack);
            prop_assert!(pv.std_sum() <= std_sum_bound(xs.len(), i, c, rho).unwrap() * slack);
        }

        /// And on real dueling posterior variances along a random pair sequence, with the paper's c = 4.
        #[test]
        fn bounds_hold_on_dueling_sequences(
            xs in proptest::collection::vec(0.0..1.0f64, 8),
            seq in proptest::collection::vec((0usize..8, 0usize..8), 1..30),
            rho in 0.01..2.0f64,
        ) {
            let base = Stationary::se(0.2).unwrap().gram(&DMatrix::from_vec(8, 1, xs)).unwrap();
            let pv = PosteriorVariances::for_pairs(&base, PairKernel::Dueling, &seq, rho).unwrap();
            let i = pv.information_gain();
            let slack = 1.0 + 1e-12;
            prop_assert!(pv.variances().iter().all(|&v| v <= 4.0));
            prop_assert!(pv.elliptical_potential() <= elliptical_potential_bound(i).unwrap() * slack);
            prop_assert!(pv.variance_sum() <= variance_sum_bound(i, 4.0, rho).unwrap() * slack);
            prop_assert!(pv.std_sum() <= std_sum_bound(seq.len(), i, 4.0, rho).unwrap() * slack);
        }
    }
}
