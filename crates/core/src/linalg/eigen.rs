use crate::error::{Error, Result, SolverStatus};
use nalgebra::{DMatrix, DVector};

/// Eigendecomposition A = V diag(λ) Vᵀ of a symmetric matrix, eigenvalues in ascending order.
#[derive(Debug, Clone, PartialEq)]
pub struct SymmetricEigen {
    /// Eigenvalues, ascending.
    pub eigenvalues: DVector<f64>,
    /// Orthonormal eigenvectors, one per column, in the order of `eigenvalues`.
    pub eigenvectors: DMatrix<f64>,
}

/// Symmetric eigendecomposition (pure Rust, or LAPACK `dsyev` with the `lapack` feature), sorted
/// ascending so that both builds agree. Only the lower triangle is read.
pub fn symmetric_eigen(a: &DMatrix<f64>) -> Result<SymmetricEigen> {
    let n = a.nrows();
    if a.ncols() != n {
        return Err(Error::dims("symmetric eigendecomposition (square matrix)", n, a.ncols()));
    }
    crate::error::ensure_finite("matrix given to the eigendecomposition", a.iter())?;
    let sym = DMatrix::from_fn(n, n, |i, j| if i >= j { a[(i, j)] } else { a[(j, i)] });
    let (values, vectors) = raw_eigen(sym)?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let eigenvalues = DVector::from_fn(n, |k, _| values[order[k]]);
    let eigenvectors = DMatrix::from_fn(n, n, |i, k| vectors[(i, order[k])]);
    Ok(SymmetricEigen { eigenvalues, eigenvectors })
}

fn raw_eigen(a: DMatrix<f64>) -> Result<(DVector<f64>, DMatrix<f64>)> {
    #[cfg(feature = "lapack")]
    return raw_eigen_lapack(a);
    #[cfg(not(feature = "lapack"))]
    return raw_eigen_pure(a);
}

/// Pure-Rust eigendecomposition (nalgebra), always compiled so the LAPACK path can be checked.
#[cfg_attr(feature = "lapack", allow(dead_code))]
pub(crate) fn raw_eigen_pure(a: DMatrix<f64>) -> Result<(DVector<f64>, DMatrix<f64>)> {
    let n = a.nrows();
    let max_iterations = 1000 * n.max(10);
    let e = nalgebra::linalg::SymmetricEigen::try_new(a, f64::EPSILON, max_iterations).ok_or_else(|| {
        Error::solver_failed(
            "symmetric eigendecomposition",
            SolverStatus::MaxIterations { iterations: max_iterations },
            "the QR iterations did not converge",
        )
    })?;
    Ok((e.eigenvalues, e.eigenvectors))
}

/// LAPACK `dsyev` (system OpenBLAS).
#[cfg(feature = "lapack")]
pub(crate) fn raw_eigen_lapack(a: DMatrix<f64>) -> Result<(DVector<f64>, DMatrix<f64>)> {
    let e = nalgebra_lapack::SymmetricEigen::try_new(a).ok_or_else(|| {
        Error::solver_failed("LAPACK dsyev", SolverStatus::NotConverged, "the eigendecomposition did not converge")
    })?;
    Ok((e.eigenvalues, e.eigenvectors))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_agrees_with_pure_rust() {
        // Distinct eigenvalues, so eigenvectors agree up to sign: compare λ to 1e-10 relative and
        // |v_pureᵀ v_backend| to 1 within 1e-10.
        let n = 30;
        let b = DMatrix::from_fn(n, n, |i, j| ((i * 17 + j * 29) % 31) as f64 / 31.0 - 0.5);
        let a = &b * b.transpose() + DMatrix::from_diagonal(&DVector::from_fn(n, |i, _| i as f64));
        let got = symmetric_eigen(&a).unwrap();
        let (pv, pvec) = raw_eigen_pure(a.clone()).unwrap();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| pv[i].total_cmp(&pv[j]));
        let scale = pv.abs().max();
        for (k, &o) in order.iter().enumerate() {
            assert!((got.eigenvalues[k] - pv[o]).abs() <= 1e-10 * scale);
            let dot = got.eigenvectors.column(k).dot(&pvec.column(o)).abs();
            assert!((dot - 1.0).abs() < 1e-10, "eigenvector {k}: |dot| = {dot}");
        }
    }

    #[test]
    fn reconstructs_and_sorts() {
        let b = DMatrix::from_fn(7, 7, |i, j| ((i * 13 + j * 7) % 11) as f64 - 5.0);
        let a = &b + b.transpose();
        let e = symmetric_eigen(&a).unwrap();
        assert!(e.eigenvalues.as_slice().windows(2).all(|w| w[0] <= w[1]));
        let rec = &e.eigenvectors * DMatrix::from_diagonal(&e.eigenvalues) * e.eigenvectors.transpose();
        assert!((rec - &a).abs().max() < 1e-10);
        // Trace equals the sum of eigenvalues (an independent identity).
        assert!((a.trace() - e.eigenvalues.sum()).abs() < 1e-10);
    }
}
