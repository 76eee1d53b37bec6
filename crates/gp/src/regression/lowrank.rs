//! The GP-regression posterior on a large finite candidate set in low-rank form, for observations
//! at candidates (COMP-GP-UCB's, MF-GP-UCB's and KSS's GPs on a grid).
//!
//! With the observations stacked as rows o_1..o_r (each a candidate index with a noise variance),
//! A = K_oo + diag(noise) = L Lᵀ and W = L⁻¹ K_{o,C} (r×m, m candidates), the posterior on the
//! candidates C is (Rasmussen & Williams eq. (2.19)–(2.24) restricted to C):
//!
//! ```text
//! m = K_{C,o} A⁻¹ y = Wᵀ v,  v = L⁻¹ y,       Σ = K_CC − K_{C,o} A⁻¹ K_{o,C} = K_CC − Wᵀ W
//! ```
//!
//! so the mean and the variances diag(Σ) cost O(m) to read, and only W (r×m) is stored, never the
//! m×m covariance. **Appending** an observation y at candidate i with noise ρ borders A by the
//! column (K_{o,i}, k_ii + ρ); its new Cholesky row is (lᵀ, l_rr) with l = L⁻¹K_{o,i} = W e_i (no
//! solve: it is column i of W) and l_rr² = k_ii − ‖W e_i‖² + ρ = Σ_ii + ρ, and
//!
//! ```text
//! w_new = (K_{C,i} − Wᵀ W e_i)/l_rr = Σ e_i / √(Σ_ii + ρ),     v_new = (y − m_i)/l_rr,
//! m ← m + w_new v_new,       diag Σ ← diag Σ − w_new²
//! ```
//!
//! which is the rank-one Gaussian (Kalman) update m ← m + Σe_i(y − m_i)/(Σ_ii + ρ),
//! Σ ← Σ − Σe_i e_iᵀΣ/(Σ_ii + ρ): O(r·m) per observation, exact for a repeated candidate too.
//!
//! **Batch** ([`CandidatePosterior::fit`]): c_u observations at candidate u with mean ȳ_u are the same
//! Gaussian likelihood for f_u as one observation ȳ_u with noise ρ/c_u, so the batch posterior
//! stacks one row per distinct observed candidate U: A = K_UU + diag(ρ/c_u), O(|U|³ + |U|²m)
//! however many observations there are (the form [`super::CandidateGp::fit`] uses too).
//!
//! **Joint draws** ([`CandidatePosterior::sample`]) by Matheron's rule (pathwise conditioning;
//! Wilson et al. 2020, "Efficiently Sampling Functions from Gaussian Process Posteriors", eq. (3)):
//! with f₀ ~ N(0, K_CC) on the candidates and ε_k ~ N(0, noise_k),
//!
//! ```text
//! f = f₀ + K_{C,o} A⁻¹ (y − f₀(o) − ε) = f₀ + Wᵀ L⁻¹ (y − f₀(o) − ε)  ~  N(m, Σ)
//! ```
//!
//! (f₀(o) are the entries of f₀ at the observed candidates). The prior factor of K_CC (pivoted
//! Cholesky, [`PsdFactor`]) is computed once, at the first draw; each draw then costs O(m·rank +
//! r² + r·m) instead of a factorisation of the m×m posterior covariance.

use bohf_core::linalg::{Cholesky, JitterPolicy, PsdFactor};
use bohf_core::{Error, Result};
use bohf_kernels::Kernel;
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use std::sync::OnceLock;

/// The GP posterior on m candidates in the low-rank form of the module documentation: mean,
/// variances and W (r×m) for r stacked observations at candidates.
#[derive(Debug, Clone)]
pub struct CandidatePosterior {
    /// The candidates (m×d, in the kernel's units).
    points: DMatrix<f64>,
    /// Prior variances k(c, c).
    prior: DVector<f64>,
    /// Per stacked row: the candidate index and its noise variance (jitter included).
    rows: Vec<(usize, f64)>,
    /// Per stacked row: its target.
    targets: Vec<f64>,
    /// Rows of the Cholesky factor L of A (row k has k + 1 entries).
    l: Vec<Vec<f64>>,
    /// Rows of W = L⁻¹ K_{o,C}, each of length m.
    w: Vec<DVector<f64>>,
    mean: DVector<f64>,
    var: DVector<f64>,
    jitter: f64,
    prior_factor: OnceLock<PsdFactor>,
}

impl CandidatePosterior {
    /// The prior N(0, K_CC) on the rows of `points` (m×d) under `kernel`.
    pub fn new<K: Kernel + ?Sized>(kernel: &K, points: &DMatrix<f64>) -> Result<Self> {
        let prior = kernel.diagonal(points)?;
        let m = points.nrows();
        Ok(Self {
            points: points.clone(),
            var: prior.clone(),
            prior,
            rows: Vec::new(),
            targets: Vec::new(),
            l: Vec::new(),
            w: Vec::new(),
            mean: DVector::zeros(m),
            jitter: 0.0,
            prior_factor: OnceLock::new(),
        })
    }

    /// The posterior after `values[k]` observed at candidates `indices[k]` (repeats allowed), each
    /// with noise variance `noise` > 0, in one batch over the distinct candidates (module
    /// documentation). The factor of K_UU + diag(ρ/c_u) may add jitter ([`JitterPolicy::default`],
    /// reported by [`CandidatePosterior::jitter`]); errors name a bad index, a non-finite value, a
    /// length mismatch or a non-positive noise.
    pub fn fit<K: Kernel + ?Sized>(
        kernel: &K,
        points: &DMatrix<f64>,
        indices: &[usize],
        values: &[f64],
        noise: f64,
    ) -> Result<Self> {
        bohf_core::error::ensure_positive("noise", noise)?;
        let mut post = Self::new(kernel, points)?;
        let m = post.dim();
        if indices.len() != values.len() {
            return Err(Error::dims("candidate posterior: values vs indices", indices.len(), values.len()));
        }
        bohf_core::error::ensure_finite("candidate posterior observed values", values.iter())?;
        let mut count = vec![0usize; m];
        let mut sum = vec![0.0; m];
        for (&i, &y) in indices.iter().zip(values) {
            if i >= m {
                return Err(Error::IndexOutOfRange {
                    context: "candidate posterior observation".into(),
                    index: i,
                    len: m,
                });
            }
            count[i] += 1;
            sum[i] += y;
        }
        let distinct: Vec<usize> = (0..m).filter(|&i| count[i] > 0).collect();
        let u = distinct.len();
        if u == 0 {
            return Ok(post);
        }
        let observed = DMatrix::from_fn(u, points.ncols(), |p, j| points[(distinct[p], j)]);
        let cross = kernel.cross_gram(&observed, points)?;
        let a = DMatrix::from_fn(u, u, |p, q| {
            let v = cross[(p, distinct[q])];
            if p == q { v + noise / count[distinct[p]] as f64 } else { v }
        });
        let chol = Cholesky::with_jitter(&a, JitterPolicy::default())?;
        let w = chol.solve_lower(&cross)?;
        let ybar = DMatrix::from_fn(u, 1, |p, _| sum[distinct[p]] / count[distinct[p]] as f64);
        let v = chol.solve_lower(&ybar)?;
        post.jitter = chol.jitter();
        post.mean = w.transpose() * v.column(0);
        for p in 0..u {
            let row = w.row(p).transpose();
            for (s, x) in post.var.iter_mut().zip(row.iter()) {
                *s -= x * x;
            }
            post.w.push(row);
            post.l.push(chol.l().row(p).columns(0, p + 1).iter().copied().collect());
            post.rows.push((distinct[p], noise / count[distinct[p]] as f64 + chol.jitter()));
            post.targets.push(ybar[(p, 0)]);
        }
        Ok(post)
    }

    /// Adds the observation `value` = f(candidate `index`) + ε, ε ~ N(0, `noise`), in O(r·m) by the
    /// bordered-Cholesky (Kalman) update of the module documentation (the batch fit's jitter, if
    /// any, is added to `noise`). Errors name a bad index, a non-finite value or a non-positive
    /// noise; nothing changes then.
    pub fn observe<K: Kernel + ?Sized>(&mut self, kernel: &K, index: usize, value: f64, noise: f64) -> Result<()> {
        bohf_core::error::ensure_positive("noise", noise)?;
        let m = self.dim();
        if index >= m {
            return Err(Error::IndexOutOfRange { context: "candidate posterior observation".into(), index, len: m });
        }
        bohf_core::error::ensure_finite("candidate posterior observed value", [value].iter())?;
        let noise = noise + self.jitter;
        // Σ e_i = K_{C,i} − Wᵀ (W e_i); l = W e_i is the new Cholesky row.
        let l: Vec<f64> = self.w.iter().map(|row| row[index]).collect();
        let mut s = kernel.cross_gram(&self.points, &self.points.rows(index, 1).clone_owned())?.column(0).clone_owned();
        for (row, &lk) in self.w.iter().zip(&l) {
            s.axpy(-lk, row, 1.0);
        }
        let pivot2 = self.var[index].max(0.0) + noise;
        let pivot = pivot2.sqrt();
        let innovation = value - self.mean[index];
        s /= pivot;
        let v_new = innovation / pivot;
        self.mean.axpy(v_new, &s, 1.0);
        for (var, x) in self.var.iter_mut().zip(s.iter()) {
            *var -= x * x;
        }
        let mut lrow = l;
        lrow.push(pivot);
        self.l.push(lrow);
        self.w.push(s);
        self.rows.push((index, noise));
        self.targets.push(value);
        Ok(())
    }

    /// `count` joint draws N(m, Σ) on the candidates, one per column (m×count), by Matheron's rule
    /// (module documentation). Per draw, `rng` gives the prior's standard normals (rank of K_CC)
    /// and then one N(0, noise_k) per stacked row. The first call factorises K_CC (O(m²·rank)).
    pub fn sample<K: Kernel + ?Sized>(
        &self,
        kernel: &K,
        count: usize,
        rng: &mut (impl Rng + ?Sized),
    ) -> Result<DMatrix<f64>> {
        let factor = match self.prior_factor.get() {
            Some(f) => f,
            None => {
                let f = PsdFactor::new(&kernel.gram(&self.points)?)?;
                self.prior_factor.get_or_init(|| f)
            }
        };
        let (m, r) = (self.dim(), self.rows.len());
        let mut out = DMatrix::zeros(m, count);
        for c in 0..count {
            let z = DVector::from_fn(factor.rank(), |_, _| StandardNormal.sample(rng));
            let mut f = factor.factor() * z;
            // b = y − f₀(o) − ε, then u = L⁻¹ b by forward substitution on the rows of L.
            let mut u = Vec::with_capacity(r);
            for k in 0..r {
                let (i, noise) = self.rows[k];
                let e: f64 = StandardNormal.sample(rng);
                let b = self.targets[k] - f[i] - noise.sqrt() * e;
                let row = &self.l[k];
                let acc: f64 = row[..k].iter().zip(&u).map(|(a, b)| a * b).sum();
                u.push((b - acc) / row[k]);
            }
            for (row, uk) in self.w.iter().zip(&u) {
                f.axpy(*uk, row, 1.0);
            }
            out.set_column(c, &f);
        }
        Ok(out)
    }

    /// The posterior mean on the candidates.
    pub fn mean(&self) -> &DVector<f64> {
        &self.mean
    }

    /// The posterior variances diag Σ, clamped at 0 against rounding.
    pub fn variance(&self) -> DVector<f64> {
        self.var.map(|v| v.max(0.0))
    }

    /// The full posterior covariance K_CC − WᵀW (m×m, O(m²r): for tests and small sets).
    pub fn covariance<K: Kernel + ?Sized>(&self, kernel: &K) -> Result<DMatrix<f64>> {
        let mut cov = kernel.gram(&self.points)?;
        for row in &self.w {
            cov.ger(-1.0, row, row, 1.0);
        }
        Ok(cov)
    }

    /// The prior variances k(c, c).
    pub fn prior_variance(&self) -> &DVector<f64> {
        &self.prior
    }

    /// The diagonal jitter the batch fit's factorisation added (0 if none).
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// The number of candidates m.
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// The number of stacked rows r (distinct candidates of the batch fit plus later observations).
    pub fn rank(&self) -> usize {
        self.rows.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GpRegression;
    use bohf_kernels::Stationary;
    use rand::SeedableRng;

    fn setup() -> (DMatrix<f64>, Stationary) {
        let x = DMatrix::from_fn(12, 2, |i, j| ((i * 7 + j * 5) as f64 * 0.618).fract());
        (x, Stationary::se(0.4).unwrap())
    }

    /// The direct computation: GpRegression on the coordinates of every observation (repeats as
    /// separate rows), R&W eq. (2.19)–(2.24) with the full t×t matrix.
    fn direct(x: &DMatrix<f64>, k: &Stationary, idx: &[usize], y: &[f64], rho: f64) -> (DVector<f64>, DMatrix<f64>) {
        let xo = DMatrix::from_fn(idx.len(), x.ncols(), |r, j| x[(idx[r], j)]);
        let reg = GpRegression::fit(k.clone(), &xo, &DVector::from_row_slice(y), rho).unwrap();
        (reg.mean(x).unwrap(), reg.covariance(x).unwrap())
    }

    #[test]
    fn batch_and_incremental_equal_the_direct_posterior_with_repeated_points() {
        let (x, k) = setup();
        let idx = [3, 7, 3, 0, 11, 7, 3, 5];
        let y = [0.5, -1.0, 0.7, 2.0, 0.1, -0.8, 0.6, 1.1];
        let rho = 0.05;
        let (mean, cov) = direct(&x, &k, &idx, &y, rho);
        let batch = CandidatePosterior::fit(&k, &x, &idx, &y, rho).unwrap();
        assert_eq!(batch.rank(), 5, "one stacked row per distinct candidate");
        assert_eq!(batch.jitter(), 0.0);
        // Both solve systems of condition number ≲ 1e3: 1e-11 is rounding, not approximation.
        assert!((batch.mean() - &mean).abs().max() < 1e-11);
        assert!((batch.covariance(&k).unwrap() - &cov).abs().max() < 1e-11);
        assert!((batch.variance() - cov.diagonal()).abs().max() < 1e-11);
        // The same data one observation at a time, from the prior and from a partial batch.
        let mut inc = CandidatePosterior::new(&k, &x).unwrap();
        for (&i, &v) in idx.iter().zip(&y) {
            inc.observe(&k, i, v, rho).unwrap();
        }
        assert_eq!(inc.rank(), idx.len());
        assert!((inc.mean() - &mean).abs().max() < 1e-11);
        assert!((inc.covariance(&k).unwrap() - &cov).abs().max() < 1e-11);
        let mut mixed = CandidatePosterior::fit(&k, &x, &idx[..4], &y[..4], rho).unwrap();
        for (&i, &v) in idx[4..].iter().zip(&y[4..]) {
            mixed.observe(&k, i, v, rho).unwrap();
        }
        assert!((mixed.mean() - &mean).abs().max() < 1e-11);
        assert!((mixed.variance() - cov.diagonal()).abs().max() < 1e-11);
    }

    #[test]
    fn many_repeats_with_small_noise_stay_accurate() {
        // 300 observations at 3 candidates with ρ = 1e-4 (COMP-GP-UCB's default noise): the
        // posterior equals the closed form of the aggregated data, ȳ_u with noise ρ/c_u.
        let (x, k) = setup();
        let rho = 1e-4;
        let idx: Vec<usize> = (0..300).map(|t| [2, 9, 4][t % 3]).collect();
        let y: Vec<f64> = (0..300).map(|t| if t % 7 < 3 { 1.0 } else { 0.0 }).collect();
        let mut inc = CandidatePosterior::new(&k, &x).unwrap();
        for (&i, &v) in idx.iter().zip(&y) {
            inc.observe(&k, i, v, rho).unwrap();
        }
        let batch = CandidatePosterior::fit(&k, &x, &idx, &y, rho).unwrap();
        let gp = crate::CandidateGp::fit(&k.gram(&x).unwrap(), &idx, &y, rho).unwrap();
        assert!((batch.mean() - gp.mean()).abs().max() < 1e-9);
        assert!((batch.covariance(&k).unwrap() - gp.covariance()).abs().max() < 1e-10);
        // 300 rank-one updates, each with rounding ~1e-16 relative to a prior variance of 1 and
        // pivots ≥ ρ: 1e-8 on the mean.
        assert!((inc.mean() - gp.mean()).abs().max() < 1e-8);
        assert!((inc.variance() - gp.variance()).abs().max() < 1e-10);
    }

    #[test]
    fn draws_have_the_posterior_moments() {
        let (x, k) = setup();
        let idx = [3, 7, 3, 0];
        let y = [0.5, -1.0, 0.7, 2.0];
        let rho = 0.1;
        let mut post = CandidatePosterior::fit(&k, &x, &idx[..2], &y[..2], rho).unwrap();
        post.observe(&k, idx[2], y[2], rho).unwrap();
        post.observe(&k, idx[3], y[3], rho).unwrap();
        let (mean, cov) = direct(&x, &k, &idx, &y, rho);
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(5);
        let n = 40_000;
        let s = post.sample(&k, n, &mut rng).unwrap();
        let sm = s.column_mean();
        let c = DMatrix::from_fn(x.nrows(), n, |i, j| s[(i, j)] - sm[i]);
        let sc = &c * c.transpose() / (n as f64 - 1.0);
        // Standard errors: mean √(Σ_ii/n); covariance entry ≤ √(2/n)·max Σ_ii; 5 of them.
        let vmax = cov.diagonal().max();
        assert!((sm - &mean).abs().max() < 5.0 * (vmax / n as f64).sqrt());
        assert!((sc - &cov).abs().max() < 5.0 * (2.0 / n as f64).sqrt() * vmax);
        // Same seed, same draws.
        let mut a = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(9);
        let mut b = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(9);
        assert_eq!(post.sample(&k, 2, &mut a).unwrap(), post.clone().sample(&k, 2, &mut b).unwrap());
    }

    #[test]
    fn bad_input_is_an_error_and_changes_nothing() {
        let (x, k) = setup();
        assert!(matches!(
            CandidatePosterior::fit(&k, &x, &[12], &[1.0], 0.1),
            Err(Error::IndexOutOfRange { index: 12, .. })
        ));
        assert!(CandidatePosterior::fit(&k, &x, &[1, 2], &[1.0], 0.1).is_err());
        assert!(CandidatePosterior::fit(&k, &x, &[1], &[f64::NAN], 0.1).is_err());
        assert!(matches!(
            CandidatePosterior::fit(&k, &x, &[1], &[1.0], 0.0),
            Err(Error::InvalidParameter { name, .. }) if name == "noise"
        ));
        let mut post = CandidatePosterior::new(&k, &x).unwrap();
        assert!(post.observe(&k, 12, 1.0, 0.1).is_err());
        assert!(post.observe(&k, 1, f64::INFINITY, 0.1).is_err());
        assert!(post.observe(&k, 1, 1.0, -1.0).is_err());
        assert_eq!(post.rank(), 0);
        assert_eq!(post.variance(), k.diagonal(&x).unwrap());
    }
}
