//! Dense numerics shared by every layer: jittered Cholesky with rank-one append, log-determinants,
//! triangular solves, symmetric eigendecomposition, and sampling from PSD (possibly singular)
//! covariances.
//!
//! With the `lapack` feature, the Cholesky factorisation and the symmetric eigendecomposition go
//! through LAPACK (`dpotrf`, `dsyev`) from the system OpenBLAS; everything else is pure Rust.

mod cholesky;
mod condition;
mod eigen;
mod mvn;

pub use cholesky::{Cholesky, JitterPolicy};
pub use condition::condition_on_observation;
pub use eigen::{SymmetricEigen, symmetric_eigen};
pub use mvn::{PsdFactor, PsdMethod};

use nalgebra::DMatrix;

/// The largest absolute asymmetry |A_ij − A_ji|, for validating inputs that must be symmetric.
pub fn max_asymmetry(a: &DMatrix<f64>) -> f64 {
    let n = a.nrows();
    let mut worst: f64 = 0.0;
    for j in 0..n {
        for i in 0..j {
            worst = worst.max((a[(i, j)] - a[(j, i)]).abs());
        }
    }
    worst
}
