//! GP regression / kernel ridge regression with regulariser (noise) ρ, MR-LPF eq. (5)–(6),
//! PF-TS eq. (5):
//!
//! ```text
//! f̂_t(x)      = k_t(x)ᵀ (K_t + ρ I)⁻¹ y_t
//! k̂_t(x, x′)  = k(x, x′) − k_t(x)ᵀ (K_t + ρ I)⁻¹ k_t(x′),     σ̂_t²(x) = k̂_t(x, x)
//! ```
//!
//! with k_t(x) = [k(x, x_i)]_i and K_t = [k(x_i, x_j)]_ij: the posterior of f ~ GP(0, k) given
//! y_i = f(x_i) + ε_i, ε_i ~ N(0, ρ). Two forms:
//!
//! * [`GpRegression`]: points in ℝ^d, any [`Kernel`], with O(n²) incremental [`GpRegression::append`]
//!   (rank-one Cholesky append).
//! * [`CandidateGp`]: the posterior mean vector and covariance matrix on a finite candidate set, from
//!   its precomputed base Gram, with O(n²) updates per observation. GP-UCB and GP-TS use it.
//! * [`CandidatePosterior`]: the same posterior in low-rank form (mean, variances and W = L⁻¹K_{o,C},
//!   never the n×n covariance), O(r·n) per observation, joint draws by Matheron's rule: for large
//!   candidate sets (COMP-GP-UCB's, MF-GP-UCB's and KSS's GPs on a grid).
//! * [`hyper`]: the kernel hyperparameters (ARD lengthscales, variance, noise) by type-II maximum
//!   likelihood, with the analytic gradient of the log marginal likelihood.
//!
//! [`GpRegression::posterior_with_gradient`] gives m_t, σ_t² and their gradients in x at one point
//! (for acquisition functions optimised over a box).

mod candidate;
pub mod fit_or_fixed;
pub mod hyper;
mod learned;
mod lowrank;
mod point;
mod values;

pub use candidate::CandidateGp;
pub use hyper::{
    DataTransform, Fallback, FitOutcome, HyperFit, HyperFitConfig, LengthscalePrior, LogMarginal, ValidHyperFitConfig,
    fit_hyperparameters, log_marginal_likelihood,
};
pub use learned::LearnedGp;
pub use lowrank::CandidatePosterior;
pub use point::PointPosterior;
pub use values::{UcbObjective, ValueGp};

use crate::sampler::JointSampler;
use bohf_core::linalg::{Cholesky, JitterPolicy};
use bohf_core::{Error, Result};
use bohf_kernels::Kernel;
use nalgebra::{DMatrix, DVector};
use rand::Rng;

/// The posterior of f ~ GP(0, k) after noisy observations y_i = f(x_i) + ε_i, ε_i ~ N(0, ρ)
/// (MR-LPF eq. (5)–(6)); equivalently kernel ridge regression with regulariser ρ.
///
/// Holds the Cholesky factor L Lᵀ = K_t + ρ I (+ jitter, reported by [`GpRegression::jitter`]) and
/// the weights α = (K_t + ρ I)⁻¹ y, so that predictions cost O(n) (mean) and O(n²) (variance) per
/// point.
#[derive(Debug, Clone)]
pub struct GpRegression<K: Kernel> {
    kernel: K,
    x: DMatrix<f64>,
    y: DVector<f64>,
    noise: f64,
    chol: Cholesky,
    alpha: DVector<f64>,
}

impl<K: Kernel> GpRegression<K> {
    /// Fits the posterior to the rows of `x` (n×d, one point per row) and targets `y` with noise
    /// variance (regulariser) ρ = `noise` > 0. Zero observations give the prior.
    pub fn fit(kernel: K, x: &DMatrix<f64>, y: &DVector<f64>, noise: f64) -> Result<Self> {
        bohf_core::error::ensure_positive("noise", noise)?;
        if x.nrows() != y.len() {
            return Err(Error::dims("GP regression: targets vs input points", x.nrows(), y.len()));
        }
        bohf_core::error::ensure_finite("GP regression targets", y.iter())?;
        let mut gram = kernel.gram(x)?;
        for i in 0..gram.nrows() {
            gram[(i, i)] += noise;
        }
        let chol = Cholesky::with_jitter(&gram, JitterPolicy::default())?;
        let alpha = chol.solve_vec(y)?;
        Ok(Self { kernel, x: x.clone(), y: y.clone(), noise, chol, alpha })
    }

    /// Adds one observation (x, y) in O(n²) by a rank-one append to the Cholesky factor; the result
    /// equals a refit on all data (the same jitter, if any, is added to the new diagonal entry).
    pub fn append(&mut self, x: &[f64], y: f64) -> Result<()> {
        let d = self.x.ncols();
        if x.len() != d {
            return Err(Error::dims("GP regression append: point dimension", d, x.len()));
        }
        bohf_core::error::ensure_finite("GP regression appended point", x.iter())?;
        bohf_core::error::ensure_finite("GP regression appended target", [y].iter())?;
        let xm = DMatrix::from_row_slice(1, d, x);
        let n = self.len();
        let cross = self.kernel.cross_gram(&self.x, &xm)?;
        let mut column = DVector::zeros(n + 1);
        column.rows_mut(0, n).copy_from(&cross.column(0));
        column[n] = self.kernel.value(x, x)? + self.noise;
        self.chol.append(&column)?;
        self.x = std::mem::replace(&mut self.x, DMatrix::zeros(0, 0)).insert_row(n, 0.0);
        self.x.row_mut(n).copy_from_slice(x);
        self.y = std::mem::replace(&mut self.y, DVector::zeros(0)).push(y);
        self.alpha = self.chol.solve_vec(&self.y)?;
        Ok(())
    }

    /// Posterior mean f̂_t(x) = k_t(x)ᵀ α at each row of `xs` (MR-LPF eq. (5)).
    pub fn mean(&self, xs: &DMatrix<f64>) -> Result<DVector<f64>> {
        self.check_query(xs)?;
        Ok(self.kernel.cross_gram(xs, &self.x)? * &self.alpha)
    }

    /// Posterior variance σ̂_t²(x) = k(x, x) − ‖L⁻¹ k_t(x)‖² at each row of `xs` (MR-LPF eq. (6)),
    /// clamped at 0 against rounding.
    pub fn variance(&self, xs: &DMatrix<f64>) -> Result<DVector<f64>> {
        self.check_query(xs)?;
        let v = self.whitened_cross(xs)?;
        let prior = self.kernel.diagonal(xs)?;
        Ok(DVector::from_fn(xs.nrows(), |j, _| (prior[j] - v.column(j).norm_squared()).max(0.0)))
    }

    /// Posterior covariance k̂_t(x_i, x_j) = k(x_i, x_j) − k_t(x_i)ᵀ (K_t + ρI)⁻¹ k_t(x_j) over the rows
    /// of `xs` (m×m, symmetrised).
    pub fn covariance(&self, xs: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_query(xs)?;
        let v = self.whitened_cross(xs)?;
        let mut cov = self.kernel.gram(xs)? - v.transpose() * &v;
        symmetrise(&mut cov);
        Ok(cov)
    }

    /// `count` joint draws of f at the rows of `xs` from N(f̂_t, k̂_t), one per column of the m×count
    /// result (pivoted-Cholesky factor of the posterior covariance, which may be singular).
    pub fn sample(&self, xs: &DMatrix<f64>, count: usize, rng: &mut (impl Rng + ?Sized)) -> Result<DMatrix<f64>> {
        JointSampler::new(self.mean(xs)?, &self.covariance(xs)?)?.sample(1.0, count, rng)
    }

    /// log p(y) = −½ yᵀ(K_t + ρI)⁻¹y − ½ log det(K_t + ρI) − (n/2) log 2π, the log marginal likelihood.
    /// [`hyper::log_marginal_likelihood`] adds its gradient with respect to the log hyperparameters.
    pub fn log_marginal_likelihood(&self) -> f64 {
        log_ml_value(&self.y, &self.alpha, self.chol.log_det())
    }

    /// The kernel.
    pub fn kernel(&self) -> &K {
        &self.kernel
    }

    /// The noise variance (regulariser) ρ.
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// The observed points (n×d).
    pub fn inputs(&self) -> &DMatrix<f64> {
        &self.x
    }

    /// The observed targets.
    pub fn targets(&self) -> &DVector<f64> {
        &self.y
    }

    /// The representer weights α = (K_t + ρI)⁻¹ y, so that f̂_t = Σ_i α_i k(·, x_i).
    pub fn weights(&self) -> &DVector<f64> {
        &self.alpha
    }

    /// The diagonal jitter the Cholesky factorisation had to add to K_t + ρI (0 if none).
    pub fn jitter(&self) -> f64 {
        self.chol.jitter()
    }

    /// The number of observations n.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// True if there are no observations (the posterior is the prior).
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    fn check_query(&self, xs: &DMatrix<f64>) -> Result<()> {
        if xs.ncols() != self.x.ncols() {
            return Err(Error::dims("GP regression query points: dimension", self.x.ncols(), xs.ncols()));
        }
        Ok(())
    }

    /// V = L⁻¹ k_t(xs)ᵀ (n×m).
    fn whitened_cross(&self, xs: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.chol.solve_lower(&self.kernel.cross_gram(&self.x, xs)?)
    }
}

/// log p(y) = −½ yᵀα − ½ log det A − (n/2) log 2π for α = A⁻¹y (Rasmussen & Williams eq. (5.8)).
pub(crate) fn log_ml_value(y: &DVector<f64>, alpha: &DVector<f64>, log_det: f64) -> f64 {
    -0.5 * y.dot(alpha) - 0.5 * log_det - 0.5 * y.len() as f64 * (2.0 * std::f64::consts::PI).ln()
}

/// Replaces A by (A + Aᵀ)/2, removing the rounding asymmetry of products like K − VᵀV.
pub(crate) fn symmetrise(a: &mut DMatrix<f64>) {
    let n = a.nrows();
    for j in 0..n {
        for i in 0..j {
            let v = 0.5 * (a[(i, j)] + a[(j, i)]);
            a[(i, j)] = v;
            a[(j, i)] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;
    use bohf_kernels::Stationary;
    use rand::SeedableRng;

    fn data(n: usize, d: usize) -> (DMatrix<f64>, DVector<f64>) {
        let x = DMatrix::from_fn(n, d, |i, j| ((i * 7 + j * 3) as f64 * 0.618).fract());
        let y = DVector::from_fn(n, |i, _| (x[(i, 0)] * 6.0).sin() + 0.1 * i as f64);
        (x, y)
    }

    #[test]
    fn matches_dense_formulas_solved_by_lu() {
        let k = Stationary::matern52(0.3).unwrap();
        let (x, y) = data(12, 2);
        let rho = 0.05;
        let gp = GpRegression::fit(k.clone(), &x, &y, rho).unwrap();
        assert_eq!(gp.jitter(), 0.0);
        let xs = DMatrix::from_fn(7, 2, |i, j| ((i * 5 + j * 11) as f64 * 0.377).fract());
        // Independent computation: explicit (K + ρI) solved by LU, eq. (5)–(6) term by term.
        let a = k.gram(&x).unwrap() + DMatrix::identity(12, 12) * rho;
        let ks = k.cross_gram(&xs, &x).unwrap();
        let lu = a.lu();
        let mean = &ks * lu.solve(&y).unwrap();
        let cov = k.gram(&xs).unwrap() - &ks * lu.solve(&ks.transpose()).unwrap();
        // Both solve a system with condition number ≲ 1e3 at rounding ~1e-16: 1e-11 is ample.
        assert!((gp.mean(&xs).unwrap() - mean).abs().max() < 1e-11);
        assert!((gp.covariance(&xs).unwrap() - &cov).abs().max() < 1e-11);
        assert!((gp.variance(&xs).unwrap() - cov.diagonal()).abs().max() < 1e-11);
        // log p(y) against the dense formula with the LU determinant.
        let lml = -0.5 * y.dot(&lu.solve(&y).unwrap())
            - 0.5 * lu.determinant().ln()
            - 6.0 * (2.0 * std::f64::consts::PI).ln();
        assert_relative_eq!(gp.log_marginal_likelihood(), lml, max_relative = 1e-10);
    }

    #[test]
    fn one_observation_closed_form() {
        // n = 1: f̂(x) = k(x,x₁) y / (1 + ρ), σ̂²(x) = 1 − k(x,x₁)² / (1 + ρ) for a unit-variance kernel.
        let k = Stationary::se(0.5).unwrap();
        let x = DMatrix::from_row_slice(1, 1, &[0.2]);
        let y = DVector::from_vec(vec![1.5]);
        let rho = 0.1;
        let gp = GpRegression::fit(k, &x, &y, rho).unwrap();
        let xs = DMatrix::from_row_slice(2, 1, &[0.2, 0.7]);
        let kx = [1.0, (-0.5f64 * (0.5f64 / 0.5).powi(2)).exp()];
        let m = gp.mean(&xs).unwrap();
        let v = gp.variance(&xs).unwrap();
        for j in 0..2 {
            assert_relative_eq!(m[j], kx[j] * 1.5 / (1.0 + rho), epsilon = 1e-14);
            assert_relative_eq!(v[j], 1.0 - kx[j] * kx[j] / (1.0 + rho), epsilon = 1e-14);
        }
    }

    #[test]
    fn append_equals_refit() {
        let k = Stationary::matern32(0.2).unwrap();
        let (x, y) = data(10, 3);
        let mut gp =
            GpRegression::fit(k.clone(), &x.rows(0, 4).clone_owned(), &y.rows(0, 4).clone_owned(), 0.01).unwrap();
        for i in 4..10 {
            let row: Vec<f64> = x.row(i).iter().copied().collect();
            gp.append(&row, y[i]).unwrap();
        }
        let full = GpRegression::fit(k, &x, &y, 0.01).unwrap();
        let xs = DMatrix::from_fn(5, 3, |i, j| ((i + 2 * j) as f64 * 0.29).fract());
        // The appended factor equals the batch one to rounding (core's append test: 1e-12).
        assert!((gp.weights() - full.weights()).abs().max() < 1e-9);
        assert!((gp.mean(&xs).unwrap() - full.mean(&xs).unwrap()).abs().max() < 1e-10);
        assert!((gp.covariance(&xs).unwrap() - full.covariance(&xs).unwrap()).abs().max() < 1e-12);
        assert_eq!(gp.inputs(), full.inputs());
        // Appending to the prior (no data) works too.
        let mut prior =
            GpRegression::fit(Stationary::se(0.3).unwrap(), &DMatrix::zeros(0, 1), &DVector::zeros(0), 0.1).unwrap();
        assert!(prior.is_empty());
        assert!((prior.variance(&xs.columns(0, 1).clone_owned()).unwrap().add_scalar(-1.0)).abs().max() < 1e-15);
        prior.append(&[0.5], 2.0).unwrap();
        assert_eq!(prior.len(), 1);
    }

    #[test]
    fn samples_have_the_posterior_moments() {
        let k = Stationary::se(0.3).unwrap();
        let (x, y) = data(5, 1);
        let gp = GpRegression::fit(k, &x, &y, 0.1).unwrap();
        let xs = DMatrix::from_fn(4, 1, |i, _| i as f64 / 3.0);
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 40_000;
        let s = gp.sample(&xs, n, &mut rng).unwrap();
        let mean = gp.mean(&xs).unwrap();
        let cov = gp.covariance(&xs).unwrap();
        let sm = s.column_mean();
        let c = DMatrix::from_fn(4, n, |i, j| s[(i, j)] - sm[i]);
        let sc = &c * c.transpose() / (n as f64 - 1.0);
        // Standard errors: mean √(Σ_ii/n); covariance entry √((Σ_ii Σ_jj + Σ_ij²)/n) ≤ √(2/n)·max Σ_ii.
        let vmax = cov.diagonal().max();
        assert!((sm - mean).abs().max() < 5.0 * (vmax / n as f64).sqrt());
        assert!((sc - cov).abs().max() < 5.0 * (2.0 / n as f64).sqrt() * vmax);
    }

    #[test]
    fn bad_input_is_an_error() {
        let k = Stationary::se(0.3).unwrap();
        let (x, y) = data(4, 2);
        let e = GpRegression::fit(k.clone(), &x, &y, 0.0).unwrap_err();
        assert!(matches!(&e, Error::InvalidParameter { name, .. } if name == "noise"));
        assert!(GpRegression::fit(k.clone(), &x, &y, f64::NAN).is_err());
        assert!(matches!(
            GpRegression::fit(k.clone(), &x, &y.rows(0, 3).clone_owned(), 0.1),
            Err(Error::DimensionMismatch { .. })
        ));
        let mut ybad = y.clone();
        ybad[1] = f64::NAN;
        assert!(matches!(GpRegression::fit(k.clone(), &x, &ybad, 0.1), Err(Error::NonFinite(_))));
        let mut gp = GpRegression::fit(k, &x, &y, 0.1).unwrap();
        assert!(gp.mean(&DMatrix::zeros(2, 3)).is_err());
        assert!(gp.append(&[0.1], 1.0).is_err());
        assert!(gp.append(&[0.1, f64::INFINITY], 1.0).is_err());
        assert!(gp.append(&[0.1, 0.2], f64::NAN).is_err());
        assert_eq!(gp.len(), 4);
    }
}
