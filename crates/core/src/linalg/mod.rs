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
pub use eigen::{SymmetricEigen, symmetric_eigen, symmetric_eigen_blocked};
pub use mvn::{PsdFactor, PsdMethod};

use nalgebra::DMatrix;

/// AᵀB by faer's blocked matrix product: the same as nalgebra's `a.tr_mul(b)` to rounding, which
/// forms each entry as a separate dot product; several times faster for the confidence programs'
/// Gram matrices CᵀH̃⁻¹C (n = 100–500 rows, 10–300 columns). Panics if the row counts differ,
/// as `tr_mul` does.
pub fn tr_mul_blocked(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    assert_eq!(a.nrows(), b.nrows(), "tr_mul_blocked: AᵀB needs A and B with the same rows");
    let (m, n) = (a.ncols(), b.ncols());
    let mut out = Vec::new();
    tr_mul_blocked_into((a.nrows(), m, n), a.as_slice(), b.as_slice(), &mut out);
    DMatrix::from_vec(m, n, out)
}

/// [`tr_mul_blocked`] on column-major storage, into a caller's buffer: AᵀB for A (k×m) and B
/// (k×n) given as slices of k·m and k·n entries (`shape` = (k, m, n)), written column-major into
/// `out` (resized to m·n; its allocation is reused, so a hot loop that multiplies blocks of a
/// growing matrix faults in no fresh pages). The same product, bit for bit, as
/// [`tr_mul_blocked`] on the same matrices. Panics if a slice's length does not match its shape,
/// as mismatched shapes do in `tr_mul`.
pub fn tr_mul_blocked_into(shape: (usize, usize, usize), a: &[f64], b: &[f64], out: &mut Vec<f64>) {
    let (k, m, n) = shape;
    assert!(a.len() == k * m && b.len() == k * n, "tr_mul_blocked_into: slices of k×m and k×n entries");
    out.clear();
    out.resize(m * n, 0.0);
    faer::linalg::matmul::matmul(
        faer::MatMut::from_column_major_slice_mut(out.as_mut_slice(), m, n),
        faer::Accum::Replace,
        faer::MatRef::from_column_major_slice(a, k, m).transpose(),
        faer::MatRef::from_column_major_slice(b, k, n),
        1.0,
        faer::Par::Seq,
    );
}

/// op(A)·x by faer's matrix product into `out`, for A given column-major as `a` with `shape` =
/// (rows, cols) and column stride `stride` ≥ rows (a leading block of rows of a taller matrix
/// when stride > rows); op(A) = Aᵀ when `transpose`. The same as nalgebra's `a * x` or
/// `a.tr_mul(x)` to rounding (each entry a dot product or an axpy sum of the same terms), with
/// faer's runtime-dispatched SIMD kernels where nalgebra's matrix–vector product runs the
/// baseline target's (SSE2) code: the confidence programs' observation-space solves make two such
/// products with a 500 × 361 block per solve. Panics if a length does not match the shape.
pub fn mul_vec_strided(a: &[f64], shape: (usize, usize), stride: usize, x: &[f64], transpose: bool, out: &mut [f64]) {
    let (rows, cols) = shape;
    assert!(stride >= rows && (cols == 0 || a.len() >= (cols - 1) * stride + rows), "mul_vec_strided: A's storage");
    let (inner, outer) = if transpose { (rows, cols) } else { (cols, rows) };
    assert!(x.len() == inner && out.len() == outer, "mul_vec_strided: x and out must match A's shape");
    let m = faer::MatRef::from_column_major_slice_with_stride(a, rows, cols, stride);
    let lhs = if transpose { m.transpose() } else { m };
    faer::linalg::matmul::matmul(
        faer::MatMut::from_column_major_slice_mut(out, outer, 1),
        faer::Accum::Replace,
        lhs,
        faer::MatRef::from_column_major_slice(x, inner, 1),
        1.0,
        faer::Par::Seq,
    );
}

/// Solves L X = B (`transpose` false) or Lᵀ X = B (true) in place for a lower-triangular `l`
/// (n×n, only its lower triangle read) and the n×k column-major right-hand sides `b`, by faer's
/// blocked triangular solves (forward, resp. back substitution; Golub & Van Loan, *Matrix
/// Computations*, 4th ed. 2013, §3.1): the same solution to rounding as nalgebra's
/// `solve_lower_triangular` / `tr_solve_lower_triangular`, with faer's SIMD kernels (the
/// confidence programs' observation-space solves in z = Lw make two such solves with a 361 × 361
/// factor per Newton step). Panics if `b`'s length is not a multiple of n.
pub fn solve_triangular_in_place(l: &DMatrix<f64>, b: &mut [f64], transpose: bool) {
    let n = l.nrows();
    assert!(
        l.ncols() == n && b.len().is_multiple_of(n.max(1)),
        "solve_triangular_in_place: square L, n×k right-hand sides"
    );
    let k = b.len().checked_div(n).unwrap_or(0);
    let lref = faer::MatRef::from_column_major_slice(l.as_slice(), n, n);
    let rhs = faer::MatMut::from_column_major_slice_mut(b, n, k);
    if transpose {
        faer::linalg::triangular_solve::solve_upper_triangular_in_place(lref.transpose(), rhs, faer::Par::Seq);
    } else {
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(lref, rhs, faer::Par::Seq);
    }
}

/// (LLᵀ)⁻¹ = L⁻ᵀL⁻¹ (n×n, exactly symmetric) from a lower-triangular factor `l` (only its lower
/// triangle read) by faer's `llt::inverse`: L⁻¹ by the blocked triangular inversion, then the
/// lower triangle of L⁻ᵀL⁻¹ by its triangular product (about 2n³/3 flops; Higham, *Accuracy and
/// Stability of Numerical Algorithms*, 2nd ed. 2002, §14.3, the LINPACK-style inverse from the
/// Cholesky factor), mirrored to the upper. For callers that need the inverse as a term of
/// another matrix (the confidence programs' λG + μK⁻¹), not to solve with it. Panics if `l` is
/// not square.
pub fn inverse_from_lower_factor(l: &DMatrix<f64>) -> DMatrix<f64> {
    let n = l.nrows();
    assert_eq!(l.ncols(), n, "inverse_from_lower_factor: square L");
    let mut out = DMatrix::<f64>::zeros(n, n);
    let par = faer::Par::Seq;
    let mut buffer =
        faer::dyn_stack::MemBuffer::new(faer::linalg::cholesky::llt::inverse::inverse_scratch::<f64>(n, par));
    faer::linalg::cholesky::llt::inverse::inverse(
        faer::MatMut::from_column_major_slice_mut(out.as_mut_slice(), n, n),
        faer::MatRef::from_column_major_slice(l.as_slice(), n, n),
        par,
        faer::dyn_stack::MemStack::new(&mut buffer),
    );
    out.fill_upper_triangle_with_lower_triangle();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocked product against nalgebra's entry-by-entry `tr_mul` (an independent summation),
    /// including empty shapes; the slice version into a reused buffer gives the same bits.
    #[test]
    fn blocked_products_match_tr_mul_and_each_other() {
        let mut buffer = Vec::with_capacity(4);
        for &(k, m, n) in &[(0, 3, 2), (1, 1, 1), (7, 3, 5), (130, 40, 70), (300, 9, 260)] {
            let a = DMatrix::from_fn(k, m, |i, j| ((i * 31 + j * 17) % 23) as f64 / 7.0 - 1.5);
            let b = DMatrix::from_fn(k, n, |i, j| ((i * 13 + j * 29) % 19) as f64 / 5.0 - 1.9);
            let reference = a.tr_mul(&b);
            let blocked = tr_mul_blocked(&a, &b);
            assert_eq!(blocked.shape(), (m, n));
            let scale = 1.0 + reference.amax();
            assert!((&blocked - &reference).amax() <= 1e-13 * scale * k.max(1) as f64, "{k}×{m}×{n}");
            tr_mul_blocked_into((k, m, n), a.as_slice(), b.as_slice(), &mut buffer);
            assert_eq!(buffer.as_slice(), blocked.as_slice(), "{k}×{m}×{n}: bit for bit");
        }
    }

    /// The strided matrix–vector product on a leading block of rows of a taller matrix, both ways,
    /// against nalgebra's products of the block copied out (an independent summation).
    #[test]
    fn strided_products_match_nalgebras() {
        for &(k, used, n) in &[(1, 1, 1), (9, 9, 4), (40, 23, 31), (860, 496, 361)] {
            let a = DMatrix::from_fn(k, n, |i, j| ((i * 31 + j * 17) % 23) as f64 / 7.0 - 1.5);
            let block = a.rows(0, used).clone_owned();
            let x = nalgebra::DVector::from_fn(n, |i, _| ((i * 13) % 19) as f64 / 5.0 - 1.9);
            let y = nalgebra::DVector::from_fn(used, |i, _| ((i * 7) % 11) as f64 / 3.0 - 1.6);
            let mut ax = vec![0.0; used];
            mul_vec_strided(a.as_slice(), (used, n), k, x.as_slice(), false, &mut ax);
            let mut aty = vec![0.0; n];
            mul_vec_strided(a.as_slice(), (used, n), k, y.as_slice(), true, &mut aty);
            let (rx, ry) = (&block * &x, block.tr_mul(&y));
            let tol = 1e-13 * n.max(used) as f64;
            assert!(
                ax.iter().zip(rx.iter()).all(|(p, q)| (p - q).abs() <= tol * (1.0 + q.abs())),
                "{k}, {used}, {n}: Ax"
            );
            assert!(
                aty.iter().zip(ry.iter()).all(|(p, q)| (p - q).abs() <= tol * (1.0 + q.abs())),
                "{k}, {used}, {n}: Aᵀy"
            );
        }
    }
    /// The blocked triangular solves against nalgebra's substitutions (an independent
    /// computation), both ways, one and several right-hand sides; the upper triangle of L is
    /// filled with junk that must not be read.
    #[test]
    fn triangular_solves_match_nalgebras() {
        for &(n, k) in &[(1, 1), (5, 3), (40, 1), (361, 7)] {
            let mut l = DMatrix::from_fn(n, n, |i, j| (((i * 31 + j * 17) % 23) as f64 / 7.0 - 1.5) / n as f64);
            for i in 0..n {
                l[(i, i)] = 1.0 + (i % 5) as f64 / 4.0;
            }
            let lower = l.lower_triangle();
            let b = DMatrix::from_fn(n, k, |i, j| ((i * 13 + j * 7) % 19) as f64 / 5.0 - 1.9);
            for transpose in [false, true] {
                let mut x = b.clone();
                solve_triangular_in_place(&l, x.as_mut_slice(), transpose);
                let reference = if transpose {
                    lower.tr_solve_lower_triangular(&b).unwrap()
                } else {
                    lower.solve_lower_triangular(&b).unwrap()
                };
                let scale = 1.0 + reference.amax();
                assert!((&x - &reference).amax() <= 1e-12 * scale, "{n}×{k}, transpose {transpose}");
            }
        }
    }
    /// The inverse from the factor against nalgebra's LU inverse of LLᵀ (an independent
    /// computation), on well-conditioned factors; exactly symmetric.
    #[test]
    fn inverse_from_the_factor_matches_nalgebras() {
        for &n in &[1usize, 4, 37, 200] {
            let mut l = DMatrix::from_fn(n, n, |i, j| (((i * 31 + j * 17) % 23) as f64 / 7.0 - 1.5) / n as f64);
            for i in 0..n {
                l[(i, i)] = 1.0 + (i % 5) as f64 / 4.0;
            }
            let lower = l.lower_triangle();
            let reference = (&lower * lower.transpose()).try_inverse().unwrap();
            let inv = inverse_from_lower_factor(&l);
            let scale = 1.0 + reference.amax();
            assert!((&inv - &reference).amax() <= 1e-12 * scale, "n = {n}");
            assert_eq!(inv, inv.transpose(), "n = {n}: symmetric");
        }
    }
}
