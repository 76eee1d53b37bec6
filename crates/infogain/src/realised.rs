//! Realised information gain of a given sequence of points or pairs, in log-det and chain-rule form.

use crate::utility::UtilityPosterior;
use crate::{check_gram, check_noise, clean_variance};
use bohf_core::linalg::{Cholesky, condition_on_observation};
use bohf_core::{Error, Result};
use bohf_kernels::{IndexPair, PairKernel};
use nalgebra::DMatrix;

/// Realised information gain I = ½ log det(I + K/ρ) of t observations with Gram matrix K (t×t),
/// MR-LPF eq. (13) / PF-TS eq. (11) / POP-BO eq. (18) evaluated at one sequence instead of maximised.
///
/// Computed from the Cholesky factor of I + K/ρ (no jitter: it is positive definite whenever K is
/// positive semi-definite). An empty Gram (t = 0) has gain 0.
///
/// Errors: `noise` not finite and > 0; `gram` not square, not finite, not symmetric, or not PSD.
pub fn information_gain(gram: &DMatrix<f64>, noise: f64) -> Result<f64> {
    check_noise(noise)?;
    check_gram("gram", gram)?;
    let t = gram.nrows();
    if t == 0 {
        return Ok(0.0);
    }
    let a = DMatrix::identity(t, t) + gram / noise;
    let chol = Cholesky::new(&a).map_err(|e| match e {
        Error::NotPositiveDefinite { size, jitter, max_jitter, .. } => Error::NotPositiveDefinite {
            size,
            jitter,
            max_jitter,
            context: Some("I + gram/noise in information_gain (is `gram` positive semi-definite?)".into()),
        },
        e => e,
    })?;
    Ok(0.5 * chol.log_det())
}

/// The posterior variances σ²_{s−1}(z_s), s = 1…t, of a sequence of observations z₁,…,z_t, each
/// computed under noise ρ from the observations before it; and the quantities built from them.
///
/// By the chain rule of the log-determinant,
///
/// ½ log det(I + K_t/ρ) = ½ Σ_{s=1}^{t} log(1 + σ²_{s−1}(z_s)/ρ)
///
/// (PF-TS Lemma 10's intermediate identity; Srinivas et al. 2010 Lemma 5.3), so
/// [`PosteriorVariances::information_gain`] is a second, sequential computation of
/// [`information_gain`]. The variances are those of the GP posterior with noise variance ρ (PF-TS eq. (9),
/// MR-LPF eq. (10) with ρ = λκ). Round-off below zero is clamped to 0.
#[derive(Debug, Clone, PartialEq)]
pub struct PosteriorVariances {
    noise: f64,
    variances: Vec<f64>,
}

impl PosteriorVariances {
    /// Wraps variances computed elsewhere (e.g. recorded by an algorithm); each must be finite and ≥ 0.
    pub fn new(variances: Vec<f64>, noise: f64) -> Result<Self> {
        check_noise(noise)?;
        bohf_core::error::ensure_finite("`variances`", variances.iter())?;
        if let Some((s, v)) = variances.iter().enumerate().find(|(_, v)| **v < 0.0) {
            return Err(Error::invalid("variances", format!("must be ≥ 0, but entry {s} is {v:.3e}")));
        }
        Ok(Self { noise, variances })
    }

    /// From the Gram matrix K_t of the t observations in order (prior covariance of their values):
    /// conditions K_t on each observation e_s in turn (O(t³) in all).
    pub fn from_gram(gram: &DMatrix<f64>, noise: f64) -> Result<Self> {
        check_noise(noise)?;
        let scale = check_gram("gram", gram)?;
        let mut cov = (gram + gram.transpose()) * 0.5;
        let mut variances = Vec::with_capacity(gram.nrows());
        for s in 0..gram.nrows() {
            let v = condition_on_observation(&mut cov, &[(s, 1.0)], noise);
            variances.push(clean_variance("gram", v, scale, s + 1)?);
        }
        Ok(Self { noise, variances })
    }

    /// From a sequence of candidate indices x_{i_1},…,x_{i_t} (repeats allowed), given the base Gram K
    /// (n×n) of the candidates: conditions the n×n posterior of f on each observation (O(n²) per step).
    pub fn for_points(base: &DMatrix<f64>, points: &[usize], noise: f64) -> Result<Self> {
        check_noise(noise)?;
        let scale = check_gram("base", base)?;
        check_indices(points.iter().copied(), base.nrows(), "points")?;
        let mut post = UtilityPosterior::new(base, None);
        let mut variances = Vec::with_capacity(points.len());
        for (s, &i) in points.iter().enumerate() {
            let v = post.observe_point(i, noise);
            variances.push(clean_variance("base", v, scale, s + 1)?);
            clean_variance("base", Ok(post.min_diagonal()), scale, s + 1)?;
        }
        Ok(Self { noise, variances })
    }

    /// From a sequence of candidate-index pairs (x, x′) (repeats and self-pairs allowed), given the base
    /// Gram K (n×n), for the dueling kernel (MR-LPF eq. (4)) or POP-BO's additive pair kernel: conditions
    /// the utility-space posterior on each pair (O(n²) per step; the pair Gram is never formed).
    pub fn for_pairs(base: &DMatrix<f64>, kernel: PairKernel, pairs: &[IndexPair], noise: f64) -> Result<Self> {
        check_noise(noise)?;
        check_gram("base", base)?;
        check_indices(pairs.iter().flat_map(|&(a, b)| [a, b]), base.nrows(), "pairs")?;
        let mut post = UtilityPosterior::new(base, Some(kernel));
        let scale = post.scale();
        let mut variances = Vec::with_capacity(pairs.len());
        for (s, &p) in pairs.iter().enumerate() {
            let v = post.observe_pair(p, noise);
            variances.push(clean_variance("base", v, scale, s + 1)?);
            clean_variance("base", Ok(post.min_diagonal()), scale, s + 1)?;
        }
        Ok(Self { noise, variances })
    }

    /// The noise ρ.
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// σ²_{s−1}(z_s) for s = 1…t.
    pub fn variances(&self) -> &[f64] {
        &self.variances
    }

    /// Number of observations t.
    pub fn len(&self) -> usize {
        self.variances.len()
    }

    /// Whether there are no observations.
    pub fn is_empty(&self) -> bool {
        self.variances.is_empty()
    }

    /// I = ½ Σ_s log(1 + σ²_{s−1}(z_s)/ρ), the chain-rule form of ½ log det(I + K_t/ρ).
    pub fn information_gain(&self) -> f64 {
        0.5 * self.variances.iter().map(|v| (v / self.noise).ln_1p()).sum::<f64>()
    }

    /// The running gains I₁, …, I_t, I_s = ½ Σ_{r≤s} log(1 + σ²_{r−1}(z_r)/ρ).
    pub fn gain_trajectory(&self) -> Vec<f64> {
        let mut acc = 0.0;
        self.variances
            .iter()
            .map(|v| {
                acc += 0.5 * (v / self.noise).ln_1p();
                acc
            })
            .collect()
    }

    /// The elliptical potential Σ_s min(1, σ²_{s−1}(z_s)/ρ) (bounded by
    /// [`potential::elliptical_potential_bound`](crate::potential::elliptical_potential_bound)).
    pub fn elliptical_potential(&self) -> f64 {
        self.variances.iter().map(|v| (v / self.noise).min(1.0)).sum()
    }

    /// Σ_s σ²_{s−1}(z_s), the sum of variances of MR-LPF eq. (20) / Pásztor et al. Lemma 14 (bounded by
    /// [`potential::variance_sum_bound`](crate::potential::variance_sum_bound)).
    pub fn variance_sum(&self) -> f64 {
        self.variances.iter().sum()
    }

    /// Σ_s σ_{s−1}(z_s), the sum of standard deviations of PF-TS Lemma 10 (bounded by
    /// [`potential::std_sum_bound`](crate::potential::std_sum_bound)).
    pub fn std_sum(&self) -> f64 {
        self.variances.iter().map(|v| v.sqrt()).sum()
    }
}

/// Errors unless every index is below `n`.
pub(crate) fn check_indices(indices: impl IntoIterator<Item = usize>, n: usize, what: &str) -> Result<()> {
    match indices.into_iter().find(|&i| i >= n) {
        Some(index) => Err(Error::IndexOutOfRange { context: format!("`{what}`"), index, len: n }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;
    use bohf_kernels::{Kernel, Stationary, additive_pair_gram, dueling_gram};
    use proptest::prelude::*;

    /// Base Gram of Matérn-5/2 (ℓ = 0.3) on the rows of `x`.
    fn matern_gram(x: &DMatrix<f64>) -> DMatrix<f64> {
        Stationary::matern52(0.3).unwrap().gram(x).unwrap()
    }

    /// The Gram of a sequence of candidate indices, read from the base Gram.
    fn point_gram(base: &DMatrix<f64>, seq: &[usize]) -> DMatrix<f64> {
        DMatrix::from_fn(seq.len(), seq.len(), |a, b| base[(seq[a], seq[b])])
    }

    #[test]
    fn closed_forms() {
        // t orthogonal observations of variance c: ½ t log(1 + c/ρ).
        let (c, rho): (f64, f64) = (2.5, 0.3);
        let k = DMatrix::identity(4, 4) * c;
        let expected = 0.5 * 4.0 * (1.0 + c / rho).ln();
        // Tolerance: a 4×4 diagonal Cholesky is exact up to a few ulps of the logs.
        assert_relative_eq!(information_gain(&k, rho).unwrap(), expected, max_relative = 1e-14);
        assert_relative_eq!(
            PosteriorVariances::from_gram(&k, rho).unwrap().information_gain(),
            expected,
            max_relative = 1e-14
        );
        // Rank one K = v vᵀ: det(I + v vᵀ/ρ) = 1 + ‖v‖²/ρ (matrix determinant lemma).
        let v = nalgebra::DVector::<f64>::from_vec(vec![0.3, -1.2, 0.7, 2.0, 0.1]);
        let k = &v * v.transpose();
        let expected = 0.5 * (1.0 + v.norm_squared() / rho).ln();
        // Tolerance: I + vvᵀ/ρ has condition number ≈ 20; errors stay near machine precision.
        assert_relative_eq!(information_gain(&k, rho).unwrap(), expected, max_relative = 1e-12);
        let pv = PosteriorVariances::from_gram(&k, rho).unwrap();
        assert_relative_eq!(pv.information_gain(), expected, max_relative = 1e-12);
        // Sequential variances of a rank-one K by hand: σ²_0 = v₁², then σ²_{s−1} = v_s² ρ/(ρ + Σ_{r<s} v_r²).
        let mut seen = 0.0;
        for (s, &vs) in v.iter().enumerate() {
            assert_relative_eq!(pv.variances()[s], vs * vs * rho / (rho + seen), max_relative = 1e-12, epsilon = 1e-15);
            seen += vs * vs;
        }
        assert_eq!(information_gain(&DMatrix::zeros(0, 0), rho).unwrap(), 0.0);
    }

    #[test]
    fn repeated_observations_closed_form() {
        // Observing one point t times: K_t = k·11ᵀ, so I = ½ log(1 + t k/ρ) (determinant lemma);
        // the same for one duel (x, x′) repeated, with k_D(z, z) = k(x,x) + k(x′,x′) − 2k(x,x′).
        let x = DMatrix::from_row_slice(3, 1, &[0.0, 0.25, 0.9]);
        let base = matern_gram(&x);
        let rho = 0.07;
        for t in 1..=6usize {
            let expected = 0.5 * (1.0 + t as f64 * base[(1, 1)] / rho).ln();
            let pv = PosteriorVariances::for_points(&base, &vec![1; t], rho).unwrap();
            // Tolerance 1e-12: t ≤ 6 rank-one updates of a 3×3 matrix.
            assert_relative_eq!(pv.information_gain(), expected, max_relative = 1e-12);
            assert_relative_eq!(
                information_gain(&point_gram(&base, &vec![1; t]), rho).unwrap(),
                expected,
                max_relative = 1e-12
            );
            let kd = base[(0, 0)] + base[(2, 2)] - 2.0 * base[(0, 2)];
            let expected = 0.5 * (1.0 + t as f64 * kd / rho).ln();
            let pv = PosteriorVariances::for_pairs(&base, PairKernel::Dueling, &vec![(0, 2); t], rho).unwrap();
            assert_relative_eq!(pv.information_gain(), expected, max_relative = 1e-12);
            // The reversed duel is the same observation up to sign: same gain.
            let pv = PosteriorVariances::for_pairs(&base, PairKernel::Dueling, &vec![(2, 0); t], rho).unwrap();
            assert_relative_eq!(pv.information_gain(), expected, max_relative = 1e-12);
            // Additive: k((x,x′),(x,x′)) = k(x,x) + k(x′,x′).
            let ka = base[(0, 0)] + base[(2, 2)];
            let pv = PosteriorVariances::for_pairs(&base, PairKernel::Additive, &vec![(0, 2); t], rho).unwrap();
            assert_relative_eq!(pv.information_gain(), 0.5 * (1.0 + t as f64 * ka / rho).ln(), max_relative = 1e-12);
        }
    }

    #[test]
    fn potential_sums_by_hand() {
        let pv = PosteriorVariances::new(vec![4.0, 0.25, 0.0, 1.0], 0.5).unwrap();
        // min(1, σ²/ρ): 1 + 0.5 + 0 + 1.
        assert_relative_eq!(pv.elliptical_potential(), 2.5, max_relative = 1e-15);
        assert_relative_eq!(pv.variance_sum(), 5.25, max_relative = 1e-15);
        assert_relative_eq!(pv.std_sum(), 2.0 + 0.5 + 0.0 + 1.0, max_relative = 1e-15);
        let g = 0.5 * (9f64.ln() + 1.5f64.ln() + 0.0 + 3f64.ln());
        assert_relative_eq!(pv.information_gain(), g, max_relative = 1e-14);
        let traj = pv.gain_trajectory();
        assert_relative_eq!(traj[0], 0.5 * 9f64.ln(), max_relative = 1e-15);
        assert_relative_eq!(traj[3], g, max_relative = 1e-14);
        assert_eq!(traj[1], traj[2]);
    }

    #[test]
    fn errors_name_the_field() {
        let k = DMatrix::<f64>::identity(3, 3);
        for rho in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = information_gain(&k, rho).unwrap_err();
            assert!(e.to_string().contains("noise"), "{e}");
            assert!(PosteriorVariances::for_points(&k, &[0], rho).unwrap_err().to_string().contains("noise"));
        }
        let e = information_gain(&DMatrix::zeros(2, 3), 1.0).unwrap_err();
        assert!(matches!(e, Error::DimensionMismatch { .. }) && e.to_string().contains("gram"), "{e}");
        let mut nan = k.clone();
        nan[(0, 1)] = f64::NAN;
        let e = information_gain(&nan, 1.0).unwrap_err();
        assert!(matches!(e, Error::NonFinite(_)) && e.to_string().contains("gram"), "{e}");
        let e = PosteriorVariances::for_points(&nan, &[0], 1.0).unwrap_err();
        assert!(e.to_string().contains("base"), "{e}");
        let mut asym = k.clone();
        asym[(0, 1)] = 0.5;
        assert!(information_gain(&asym, 1.0).unwrap_err().to_string().contains("symmetric"));
        // Indefinite: I + K/ρ not PD.
        let indef = DMatrix::from_row_slice(2, 2, &[1.0, 3.0, 3.0, 1.0]);
        assert!(matches!(information_gain(&indef, 0.1), Err(Error::NotPositiveDefinite { .. })));
        assert!(PosteriorVariances::from_gram(&indef, 0.1).unwrap_err().to_string().contains("positive semi-definite"));
        let e = PosteriorVariances::for_points(&k, &[0, 3], 1.0).unwrap_err();
        assert!(matches!(e, Error::IndexOutOfRange { index: 3, len: 3, .. }), "{e}");
        let e = PosteriorVariances::for_pairs(&k, PairKernel::Dueling, &[(0, 1), (5, 0)], 1.0).unwrap_err();
        assert!(matches!(e, Error::IndexOutOfRange { index: 5, .. }) && e.to_string().contains("pairs"), "{e}");
        assert!(PosteriorVariances::new(vec![1.0, -0.1], 1.0).unwrap_err().to_string().contains("variances"));
        assert!(PosteriorVariances::new(vec![f64::NAN], 1.0).is_err());
    }

    /// Random candidates (2-D, n ≤ 8), a sequence of indices with repeats, and a noise level.
    fn points_case() -> impl Strategy<Value = (DMatrix<f64>, Vec<usize>, f64)> {
        (2usize..=8).prop_flat_map(|n| {
            (proptest::collection::vec(0.0..1.0f64, 2 * n), proptest::collection::vec(0..n, 1..=14), 0.01..3.0f64)
                .prop_map(move |(xs, seq, rho)| (DMatrix::from_vec(n, 2, xs), seq, rho))
        })
    }

    fn pairs_case() -> impl Strategy<Value = (DMatrix<f64>, Vec<IndexPair>, f64)> {
        (2usize..=8).prop_flat_map(|n| {
            (
                proptest::collection::vec(0.0..1.0f64, 2 * n),
                proptest::collection::vec((0..n, 0..n), 1..=12),
                0.01..3.0f64,
            )
                .prop_map(move |(xs, seq, rho)| (DMatrix::from_vec(n, 2, xs), seq, rho))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Three computations agree: log det of the explicit Gram (Cholesky), sequential conditioning of
        /// that Gram, and sequential conditioning of the n×n posterior of f.
        #[test]
        fn chain_rule_equals_log_det_points((x, seq, rho) in points_case()) {
            let base = matern_gram(&x);
            let logdet = information_gain(&point_gram(&base, &seq), rho).unwrap();
            let chain = PosteriorVariances::from_gram(&point_gram(&base, &seq), rho).unwrap();
            let utility = PosteriorVariances::for_points(&base, &seq, rho).unwrap();
            // Tolerance 1e-9: cond(I + K/ρ) ≤ 1 + 14/0.01 ≈ 1.4e3, so all three agree to ~1e-12;
            // repeated points make K singular but I + K/ρ stays well conditioned.
            prop_assert!((logdet - chain.information_gain()).abs() < 1e-9);
            prop_assert!((logdet - utility.information_gain()).abs() < 1e-9);
            let traj = utility.gain_trajectory();
            for t in 1..=seq.len() {
                let prefix = information_gain(&point_gram(&base, &seq[..t]), rho).unwrap();
                prop_assert!((traj[t - 1] - prefix).abs() < 1e-9);
            }
        }

        /// The same for pairs with repeats and self-pairs, against the explicit dueling / additive Gram.
        #[test]
        fn chain_rule_equals_log_det_pairs((x, seq, rho) in pairs_case()) {
            let base = matern_gram(&x);
            for kernel in [PairKernel::Dueling, PairKernel::Additive] {
                let gram = match kernel {
                    PairKernel::Dueling => dueling_gram(&base, &seq, &seq).unwrap(),
                    PairKernel::Additive => additive_pair_gram(&base, &seq, &seq).unwrap(),
                };
                let logdet = information_gain(&gram, rho).unwrap();
                let chain = PosteriorVariances::from_gram(&gram, rho).unwrap();
                let utility = PosteriorVariances::for_pairs(&base, kernel, &seq, rho).unwrap();
                // Tolerance 1e-9: pair variances ≤ 4, cond(I + K/ρ) ≤ 1 + 48/0.01; errors ~1e-11 at worst.
                prop_assert!((logdet - chain.information_gain()).abs() < 1e-9, "{kernel:?}");
                prop_assert!((logdet - utility.information_gain()).abs() < 1e-9, "{kernel:?}");
                for (a, b) in chain.variances().iter().zip(utility.variances()) {
                    prop_assert!((a - b).abs() < 1e-9);
                }
                // A self-pair carries no information under the dueling kernel.
                if kernel == PairKernel::Dueling {
                    for (s, &(i, j)) in seq.iter().enumerate() {
                        if i == j { prop_assert!(utility.variances()[s] == 0.0); }
                    }
                }
            }
        }
    }
}
