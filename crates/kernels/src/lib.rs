//! # bohf-kernels
//!
//! Positive-definite kernels on ℝ^d and on pairs of points.
//!
//! * [`Kernel`]: the trait (value, Gram, cross-Gram, diagonal, display name, and the analytic
//!   gradients with respect to the first input and to the lengthscales), implemented by
//!   [`Stationary`] (squared exponential and Matérn ν ∈ {½, 3⁄2, 5⁄2}, isotropic or ARD, with a
//!   variance) and [`Linear`].
//! * [`KernelKind`]: the one list of kernel kinds (spec spelling, names, [`Smoothness`]), with
//!   [`KernelKind::ALL`] for tests and tables.
//! * [`pairs`]: the dueling kernel k_D((x,x′),(u,u′)) = k(x,u)+k(x′,u′)−k(x,u′)−k(x′,u) of
//!   MR-LPF eq. (4) / PF-TS eq. (4) and POP-BO's additive pair kernel k(x,u)+k(x′,u′), with Gram
//!   matrices over candidate-index pairs built from one base Gram of the candidate set.
//! * [`KernelSpec`]: a serialisable description of a kernel, for experiment configs.
#![warn(missing_docs)]

mod kind;
pub mod pairs;
mod spec;
mod stationary;
#[doc(hidden)]
pub mod testing;

pub use kind::{KernelKind, Smoothness};
pub use pairs::{IndexPair, PairKernel, additive_pair_gram, dueling_gram, dueling_value};
pub use spec::KernelSpec;
pub use stationary::{Linear, Stationary};

use bohf_core::{Error, Result};
use nalgebra::{DMatrix, DVector};

/// A positive-definite kernel k: ℝ^d × ℝ^d → ℝ.
///
/// Point sets are matrices with one point per row. Only [`Kernel::eval`] is required; Gram
/// builders have default implementations that check dimensions, and implementors may override them
/// with faster versions.
pub trait Kernel: std::fmt::Debug + Send + Sync {
    /// The input dimension the kernel requires, if it is fixed (ARD lengthscales fix it).
    fn input_dim(&self) -> Option<usize>;

    /// k(x, y) without dimension checks; `x.len() == y.len()` is the caller's promise.
    fn eval(&self, x: &[f64], y: &[f64]) -> f64;

    /// A display name with the hyperparameters, e.g. `"Matérn-5/2 (ℓ = 0.1)"`.
    fn name(&self) -> String;

    /// The gradient ∂k(x, y)/∂x (one entry per input dimension), without dimension checks. The
    /// derivative of k(x, x) along x is twice this at y = x (k is symmetric).
    fn grad_x(&self, x: &[f64], y: &[f64]) -> Vec<f64>;

    /// The gradient of k(x, y) with respect to the kernel's lengthscales: one entry for an isotropic
    /// lengthscale, one per dimension for ARD, none for a kernel without lengthscales.
    fn grad_lengthscales(&self, x: &[f64], y: &[f64]) -> Vec<f64>;

    /// k(x, y), checking that both points have the kernel's dimension.
    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        let d = self.input_dim().unwrap_or(x.len());
        check_dim("kernel value: first point", d, x.len())?;
        check_dim("kernel value: second point", d, y.len())?;
        Ok(self.eval(x, y))
    }

    /// The Gram matrix K_ij = k(x_i, x_j) of the rows of `x` (symmetric by construction).
    fn gram(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_points("Gram matrix points", x)?;
        let rows = rows_of(x);
        Ok(symmetric_from_fn(rows.len(), |i, j| self.eval(&rows[i], &rows[j])))
    }

    /// The cross-Gram matrix K_ij = k(x_i, y_j).
    fn cross_gram(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_cross(x, y)?;
        let (rx, ry) = (rows_of(x), rows_of(y));
        Ok(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| self.eval(&rx[i], &ry[j])))
    }

    /// The diagonal k(x_i, x_i).
    fn diagonal(&self, x: &DMatrix<f64>) -> Result<DVector<f64>> {
        self.check_points("kernel diagonal points", x)?;
        let rows = rows_of(x);
        Ok(DVector::from_fn(x.nrows(), |i, _| self.eval(&rows[i], &rows[i])))
    }

    /// Errors unless both point sets suit the kernel and have the same dimension.
    fn check_cross(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<()> {
        self.check_points("cross-Gram first points", x)?;
        self.check_points("cross-Gram second points", y)?;
        check_dim("cross-Gram (second vs first point set)", x.ncols(), y.ncols())
    }

    /// Errors unless every row of `x` has the kernel's dimension and is finite.
    fn check_points(&self, what: &str, x: &DMatrix<f64>) -> Result<()> {
        if let Some(d) = self.input_dim() {
            check_dim(what, d, x.ncols())?;
        }
        bohf_core::error::ensure_finite(what, x.iter())
    }
}

impl<K: Kernel + ?Sized> Kernel for Box<K> {
    fn input_dim(&self) -> Option<usize> {
        (**self).input_dim()
    }
    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        (**self).eval(x, y)
    }
    fn name(&self) -> String {
        (**self).name()
    }
    fn grad_x(&self, x: &[f64], y: &[f64]) -> Vec<f64> {
        (**self).grad_x(x, y)
    }
    fn grad_lengthscales(&self, x: &[f64], y: &[f64]) -> Vec<f64> {
        (**self).grad_lengthscales(x, y)
    }
    fn gram(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        (**self).gram(x)
    }
    fn cross_gram(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        (**self).cross_gram(x, y)
    }
    fn diagonal(&self, x: &DMatrix<f64>) -> Result<DVector<f64>> {
        (**self).diagonal(x)
    }
}

/// The symmetric n×n matrix with entries `f(i, j)`, evaluating only i ≥ j.
pub(crate) fn symmetric_from_fn(n: usize, f: impl Fn(usize, usize) -> f64) -> DMatrix<f64> {
    let mut k = DMatrix::zeros(n, n);
    for j in 0..n {
        for i in j..n {
            let v = f(i, j);
            k[(i, j)] = v;
            k[(j, i)] = v;
        }
    }
    k
}

pub(crate) fn check_dim(what: &str, expected: usize, got: usize) -> Result<()> {
    if expected == got { Ok(()) } else { Err(Error::dims(what, expected, got)) }
}

/// The rows of a column-major matrix as contiguous vectors (one copy, then cache-friendly access).
pub(crate) fn rows_of(x: &DMatrix<f64>) -> Vec<Vec<f64>> {
    x.row_iter().map(|r| r.iter().copied().collect()).collect()
}
