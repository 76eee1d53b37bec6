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

/// AᵀB by faer's blocked matrix product: the same as nalgebra's `a.tr_mul(b)` to rounding, which
/// forms each entry as a separate dot product; several times faster for the confidence programs'
/// Gram matrices CᵀH̃⁻¹C (n = 100–500 rows, 10–300 columns). Panics if the row counts differ,
/// as `tr_mul` does.
pub fn tr_mul_blocked(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    assert_eq!(a.nrows(), b.nrows(), "tr_mul_blocked: AᵀB needs A and B with the same rows");
    let (k, m, n) = (a.nrows(), a.ncols(), b.ncols());
    let mut out = DMatrix::zeros(m, n);
    faer::linalg::matmul::matmul(
        faer::MatMut::from_column_major_slice_mut(out.as_mut_slice(), m, n),
        faer::Accum::Replace,
        faer::MatRef::from_column_major_slice(a.as_slice(), k, m).transpose(),
        faer::MatRef::from_column_major_slice(b.as_slice(), k, n),
        1.0,
        faer::Par::Seq,
    );
    out
}

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
