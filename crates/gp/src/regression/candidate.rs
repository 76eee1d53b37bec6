//! The GP-regression posterior on a finite candidate set, from its base Gram K (n×n).

use super::symmetrise;
use crate::gram::check_base_gram;
use crate::sampler::JointSampler;
use bohf_core::linalg::{Cholesky, JitterPolicy, condition_on_observation};
use bohf_core::{Error, Result};
use nalgebra::{DMatrix, DVector};
use rand::Rng;

/// The posterior of f ~ N(0, K) on n candidates given noisy evaluations y_k = f(i_k) + ε_k,
/// ε_k ~ N(0, ρ), at candidate indices i_k (repeats allowed), MR-LPF eq. (5)–(6) restricted to the
/// candidate set:
///
/// ```text
/// m = K_{:,I} (K_II + ρI)⁻¹ y,      Σ = K − K_{:,I} (K_II + ρI)⁻¹ K_{I,:}
/// ```
///
/// Stored as the mean vector m (n) and the covariance Σ (n×n). [`CandidateGp::observe`] adds one
/// observation in O(n²) by the rank-one Gaussian update (Kalman step) with s = Σ e_i:
///
/// ```text
/// m ← m + s (y − m_i)/(ρ + Σ_ii),      Σ ← Σ − s sᵀ/(ρ + Σ_ii)
/// ```
///
/// This is the state GP-UCB and GP-TS keep between steps.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateGp {
    noise: f64,
    mean: DVector<f64>,
    cov: DMatrix<f64>,
    indices: Vec<usize>,
    values: Vec<f64>,
}

impl CandidateGp {
    /// The prior N(0, K) on the candidates, with noise variance ρ = `noise` > 0 for later
    /// observations. `base_gram` must be square, finite and symmetric.
    pub fn new(base_gram: &DMatrix<f64>, noise: f64) -> Result<Self> {
        bohf_core::error::ensure_positive("noise", noise)?;
        check_base_gram(base_gram, "candidate GP base Gram")?;
        let n = base_gram.nrows();
        Ok(Self { noise, mean: DVector::zeros(n), cov: base_gram.clone(), indices: Vec::new(), values: Vec::new() })
    }

    /// The posterior after observations `values[k]` at candidates `indices[k]`, computed in one batch.
    ///
    /// Repeated indices are aggregated first: observing f_i c times with mean ȳ_i is the same Gaussian
    /// likelihood as observing ȳ_i once with noise ρ/c, so with U the distinct indices and
    /// N = diag(ρ/c_u), m = K_{:,U}(K_UU + N)⁻¹ ȳ and Σ = K − K_{:,U}(K_UU + N)⁻¹K_{U,:}, in
    /// O(|U|³ + n²|U|) however many observations there are.
    pub fn fit(base_gram: &DMatrix<f64>, indices: &[usize], values: &[f64], noise: f64) -> Result<Self> {
        let mut gp = Self::new(base_gram, noise)?;
        let n = gp.dim();
        if indices.len() != values.len() {
            return Err(Error::dims("candidate GP: values vs indices", indices.len(), values.len()));
        }
        bohf_core::error::ensure_finite("candidate GP observed values", values.iter())?;
        let mut count = vec![0usize; n];
        let mut sum = vec![0.0; n];
        for (&i, &y) in indices.iter().zip(values) {
            if i >= n {
                return Err(Error::IndexOutOfRange { context: "candidate GP observation".into(), index: i, len: n });
            }
            count[i] += 1;
            sum[i] += y;
        }
        let distinct: Vec<usize> = (0..n).filter(|&i| count[i] > 0).collect();
        let u = distinct.len();
        if u > 0 {
            let a = DMatrix::from_fn(u, u, |p, q| {
                let v = base_gram[(distinct[p], distinct[q])];
                if p == q { v + noise / count[distinct[p]] as f64 } else { v }
            });
            let chol = Cholesky::with_jitter(&a, JitterPolicy::default())?;
            let g = DMatrix::from_fn(u, n, |p, j| base_gram[(distinct[p], j)]);
            let v = chol.solve_lower(&g)?;
            let ybar = DMatrix::from_fn(u, 1, |p, _| sum[distinct[p]] / count[distinct[p]] as f64);
            let w = chol.solve_lower(&ybar)?;
            gp.mean = (v.transpose() * w).column(0).clone_owned();
            gp.cov -= v.transpose() * &v;
            symmetrise(&mut gp.cov);
        }
        gp.indices = indices.to_vec();
        gp.values = values.to_vec();
        Ok(gp)
    }

    /// Adds the observation y = f(index) + ε in O(n²) (the rank-one update in the type's doc, via
    /// [`condition_on_observation`]); equals [`CandidateGp::fit`] on all data up to rounding.
    pub fn observe(&mut self, index: usize, value: f64) -> Result<()> {
        let n = self.dim();
        if index >= n {
            return Err(Error::IndexOutOfRange { context: "candidate GP observation".into(), index, len: n });
        }
        bohf_core::error::ensure_finite("candidate GP observed value", [value].iter())?;
        let s = self.cov.column(index).clone_owned();
        let denom = self.noise + s[index];
        condition_on_observation(&mut self.cov, &[(index, 1.0)], self.noise)?;
        let innovation = value - self.mean[index];
        self.mean.axpy(innovation / denom, &s, 1.0);
        self.indices.push(index);
        self.values.push(value);
        Ok(())
    }

    /// The posterior mean m on the candidates.
    pub fn mean(&self) -> &DVector<f64> {
        &self.mean
    }

    /// The posterior covariance Σ on the candidates (n×n).
    pub fn covariance(&self) -> &DMatrix<f64> {
        &self.cov
    }

    /// The posterior variances Σ_ii, clamped at 0 against rounding.
    pub fn variance(&self) -> DVector<f64> {
        self.cov.diagonal().map(|v| v.max(0.0))
    }

    /// The posterior standard deviations √Σ_ii (the σ_t of GP-UCB's m + β σ).
    pub fn std_dev(&self) -> DVector<f64> {
        self.variance().map(f64::sqrt)
    }

    /// A sampler of joint draws N(m, v²Σ) on the candidates (factorises Σ once, O(n²r)).
    pub fn sampler(&self) -> Result<JointSampler> {
        JointSampler::new(self.mean.clone(), &self.cov)
    }

    /// `count` joint posterior draws N(m, Σ) on the candidates, one per column (n×count).
    pub fn sample(&self, count: usize, rng: &mut (impl Rng + ?Sized)) -> Result<DMatrix<f64>> {
        self.sampler()?.sample(1.0, count, rng)
    }

    /// The noise variance ρ.
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// The number of candidates n.
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// The number of observations so far.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// True if nothing has been observed (the posterior is the prior).
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The observed candidate indices, in order.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// The observed values, in order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GpRegression;
    use bohf_kernels::{Kernel, Stationary};

    fn setup() -> (DMatrix<f64>, DMatrix<f64>) {
        let x = DMatrix::from_fn(15, 1, |i, _| i as f64 / 14.0);
        (x.clone(), Stationary::matern52(0.2).unwrap().gram(&x).unwrap())
    }

    #[test]
    fn batch_matches_the_full_repeated_index_formula() {
        let (_, k) = setup();
        // Repeated indices (3 three times, 7 twice): the aggregated fit must equal the t×t formula.
        let idx = [3, 7, 3, 0, 14, 7, 3];
        let y = [0.5, -1.0, 0.7, 2.0, 0.1, -0.8, 0.6];
        let rho = 0.05;
        let gp = CandidateGp::fit(&k, &idx, &y, rho).unwrap();
        let t = idx.len();
        let kii = DMatrix::from_fn(t, t, |a, b| k[(idx[a], idx[b])]) + DMatrix::identity(t, t) * rho;
        let kxi = DMatrix::from_fn(15, t, |i, b| k[(i, idx[b])]);
        let lu = kii.lu();
        let mean = &kxi * lu.solve(&DVector::from_row_slice(&y)).unwrap();
        let cov = &k - &kxi * lu.solve(&kxi.transpose()).unwrap();
        // Condition numbers ≲ 1e3: agreement to 1e-11 is rounding, not approximation.
        assert!((gp.mean() - mean).abs().max() < 1e-11);
        assert!((gp.covariance() - cov).abs().max() < 1e-11);
    }

    #[test]
    fn incremental_equals_batch_and_point_regression() {
        let (x, k) = setup();
        let idx = [2, 9, 2, 11, 5, 9, 0];
        let y = [1.0, -0.5, 1.2, 0.3, 0.0, -0.4, 2.0];
        let rho = 0.02;
        let mut inc = CandidateGp::new(&k, rho).unwrap();
        for (&i, &v) in idx.iter().zip(&y) {
            inc.observe(i, v).unwrap();
        }
        let batch = CandidateGp::fit(&k, &idx, &y, rho).unwrap();
        // Seven rank-one updates accumulate rounding ~1e-14 each.
        assert!((inc.mean() - batch.mean()).abs().max() < 1e-10);
        assert!((inc.covariance() - batch.covariance()).abs().max() < 1e-12);
        assert_eq!(inc.indices(), batch.indices());
        // Third method: GpRegression on the coordinates of the observed candidates.
        let xo = DMatrix::from_fn(idx.len(), 1, |r, _| x[(idx[r], 0)]);
        let reg =
            GpRegression::fit(Stationary::matern52(0.2).unwrap(), &xo, &DVector::from_row_slice(&y), rho).unwrap();
        assert!((reg.mean(&x).unwrap() - batch.mean()).abs().max() < 1e-10);
        assert!((reg.covariance(&x).unwrap() - batch.covariance()).abs().max() < 1e-12);
        assert!((batch.std_dev().map(|s| s * s) - reg.variance(&x).unwrap()).abs().max() < 1e-12);
    }

    #[test]
    fn bad_input_is_an_error() {
        let (_, k) = setup();
        assert!(matches!(CandidateGp::new(&k, -1.0), Err(Error::InvalidParameter { name, .. }) if name == "noise"));
        assert!(CandidateGp::new(&DMatrix::zeros(2, 3), 0.1).is_err());
        let mut asym = k.clone();
        asym[(0, 1)] += 0.1;
        assert!(CandidateGp::new(&asym, 0.1).is_err());
        assert!(matches!(CandidateGp::fit(&k, &[15], &[1.0], 0.1), Err(Error::IndexOutOfRange { index: 15, .. })));
        assert!(CandidateGp::fit(&k, &[1, 2], &[1.0], 0.1).is_err());
        assert!(CandidateGp::fit(&k, &[1], &[f64::NAN], 0.1).is_err());
        let mut gp = CandidateGp::new(&k, 0.1).unwrap();
        assert!(gp.observe(20, 1.0).is_err());
        assert!(gp.observe(1, f64::NAN).is_err());
        assert!(gp.is_empty());
        assert_eq!(gp.covariance(), &k);
    }
}
