use super::eigen::symmetric_eigen;
use crate::error::{Error, Result};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// How a [`PsdFactor`] is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PsdMethod {
    /// Pivoted Cholesky (greedy on the largest remaining diagonal), stopped when the remaining
    /// diagonal falls below the tolerance: O(n²r) for numerical rank r. The default.
    #[default]
    PivotedCholesky,
    /// Symmetric eigendecomposition, negative eigenvalues within the tolerance clamped to zero: O(n³).
    Eigen,
}

/// A factor F (n×r) with F Fᵀ ≈ Σ for a positive semi-definite, possibly singular, covariance Σ,
/// used to draw x = m + F z with z ~ N(0, I_r).
///
/// The tolerance is `1e-9 · n · max_i Σ_ii` unless given: eigenvalues (or remaining pivots) above
/// −tol are treated as zero; below it the matrix is rejected as not PSD.
#[derive(Debug, Clone, PartialEq)]
pub struct PsdFactor {
    factor: DMatrix<f64>,
}

impl PsdFactor {
    /// Factorises `cov` with the default method and tolerance.
    pub fn new(cov: &DMatrix<f64>) -> Result<Self> {
        Self::with_method(cov, PsdMethod::default(), None)
    }

    /// Factorises `cov` with the given method and tolerance (`None`: `1e-9 · n · max diag`).
    pub fn with_method(cov: &DMatrix<f64>, method: PsdMethod, tolerance: Option<f64>) -> Result<Self> {
        let n = cov.nrows();
        if cov.ncols() != n {
            return Err(Error::dims("covariance (square matrix)", n, cov.ncols()));
        }
        crate::error::ensure_finite("covariance", cov.iter())?;
        let max_diag = cov.diagonal().iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let tol = tolerance.unwrap_or(1e-9 * n as f64 * max_diag.max(f64::MIN_POSITIVE));
        let factor = match method {
            PsdMethod::PivotedCholesky => pivoted_cholesky(cov, tol)?,
            PsdMethod::Eigen => eigen_factor(cov, tol)?,
        };
        Ok(Self { factor })
    }

    /// The factor F (n×r).
    pub fn factor(&self) -> &DMatrix<f64> {
        &self.factor
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.factor.nrows()
    }

    /// Numerical rank r.
    pub fn rank(&self) -> usize {
        self.factor.ncols()
    }

    /// One draw of N(mean, F Fᵀ).
    pub fn sample(&self, mean: &DVector<f64>, rng: &mut (impl Rng + ?Sized)) -> Result<DVector<f64>> {
        Ok(self.sample_n(mean, 1, rng)?.column(0).clone_owned())
    }

    /// `count` independent draws, one per column of the returned n×count matrix.
    pub fn sample_n(&self, mean: &DVector<f64>, count: usize, rng: &mut (impl Rng + ?Sized)) -> Result<DMatrix<f64>> {
        if mean.len() != self.dim() {
            return Err(Error::dims("mean of the sampled Gaussian", self.dim(), mean.len()));
        }
        let z = DMatrix::from_fn(self.rank(), count, |_, _| StandardNormal.sample(rng));
        Ok(self.transform(mean, &z))
    }

    /// m + F z for given standard-normal draws z (r×count): lets tests and samplers share draws.
    pub fn transform(&self, mean: &DVector<f64>, z: &DMatrix<f64>) -> DMatrix<f64> {
        let mut x = &self.factor * z;
        for mut col in x.column_iter_mut() {
            col += mean;
        }
        x
    }
}

/// Pivoted Cholesky: P Σ Pᵀ ≈ L Lᵀ, returned already un-permuted as F = Pᵀ L (n×r).
fn pivoted_cholesky(a: &DMatrix<f64>, tol: f64) -> Result<DMatrix<f64>> {
    let n = a.nrows();
    let mut diag: Vec<f64> = (0..n).map(|i| a[(i, i)]).collect();
    let mut chosen = vec![false; n];
    // Columns of F in original row order.
    let mut cols: Vec<DVector<f64>> = Vec::new();
    for _ in 0..n {
        let (p, &dmax) = diag
            .iter()
            .enumerate()
            .filter(|(i, _)| !chosen[*i])
            .max_by(|x, y| x.1.total_cmp(y.1))
            .expect("at least one pivot remains");
        if dmax <= tol {
            break;
        }
        chosen[p] = true;
        let piv = dmax.sqrt();
        let mut col = DVector::from_fn(n, |i, _| if i >= p { a[(i, p)] } else { a[(p, i)] });
        for c in &cols {
            let cp = c[p];
            col.axpy(-cp, c, 1.0);
        }
        col /= piv;
        for i in 0..n {
            if chosen[i] && i != p {
                col[i] = 0.0;
            }
        }
        col[p] = piv;
        for i in 0..n {
            if !chosen[i] {
                diag[i] -= col[i] * col[i];
            }
        }
        cols.push(col);
    }
    if let Some(worst) = (0..n).filter(|&i| !chosen[i]).map(|i| diag[i]).reduce(f64::min)
        && worst < -tol
    {
        return Err(Error::NotPositiveSemiDefinite { size: n, min_eigenvalue: worst, tolerance: tol });
    }
    Ok(DMatrix::from_columns(&cols).resize(n, cols.len(), 0.0))
}

fn eigen_factor(a: &DMatrix<f64>, tol: f64) -> Result<DMatrix<f64>> {
    let n = a.nrows();
    let e = symmetric_eigen(a)?;
    if n > 0 && e.eigenvalues[0] < -tol {
        return Err(Error::NotPositiveSemiDefinite { size: n, min_eigenvalue: e.eigenvalues[0], tolerance: tol });
    }
    let keep: Vec<usize> = (0..n).filter(|&k| e.eigenvalues[k] > tol).collect();
    Ok(DMatrix::from_fn(n, keep.len(), |i, c| e.eigenvectors[(i, keep[c])] * e.eigenvalues[keep[c]].sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// A rank-3 PSD matrix of size 8.
    fn low_rank() -> DMatrix<f64> {
        let b = DMatrix::from_fn(8, 3, |i, j| ((i + 2 * j) as f64 * 0.7).sin() + 0.1 * j as f64);
        &b * b.transpose()
    }

    #[test]
    fn both_methods_reconstruct_a_singular_covariance() {
        let a = low_rank();
        for m in [PsdMethod::PivotedCholesky, PsdMethod::Eigen] {
            let f = PsdFactor::with_method(&a, m, None).unwrap();
            assert_eq!(f.rank(), 3, "{m:?}");
            let rec = f.factor() * f.factor().transpose();
            assert!((rec - &a).abs().max() < 1e-9, "{m:?}");
        }
    }

    #[test]
    fn full_rank_pivoted_cholesky_reconstructs() {
        let b = DMatrix::from_fn(10, 10, |i, j| ((i * 7 + j * 3) % 5) as f64 + if i == j { 3.0 } else { 0.0 });
        let a = &b * b.transpose();
        let f = PsdFactor::new(&a).unwrap();
        assert_eq!(f.rank(), 10);
        assert!((f.factor() * f.factor().transpose() - &a).abs().max() < 1e-9 * a.max());
    }

    #[test]
    fn sample_covariance_converges() {
        let a = low_rank();
        let f = PsdFactor::new(&a).unwrap();
        let mean = DVector::from_fn(8, |i, _| i as f64);
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(11);
        let n = 40_000;
        let x = f.sample_n(&mean, n, &mut rng).unwrap();
        let xm = x.column_mean();
        let centred = DMatrix::from_fn(8, n, |i, j| x[(i, j)] - xm[i]);
        let cov = &centred * centred.transpose() / (n as f64 - 1.0);
        // Monte Carlo error of a covariance entry ≈ sqrt((Σ_ii Σ_jj + Σ_ij²)/n) ≲ 0.02·max Σ; allow 5 s.e.
        let tol = 5.0 * (2.0 / n as f64).sqrt() * a.diagonal().max();
        assert!((cov - &a).abs().max() < tol);
        assert!((xm - mean).abs().max() < 5.0 * (a.diagonal().max() / n as f64).sqrt());
    }

    #[test]
    fn indefinite_is_rejected_by_both_methods() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        for m in [PsdMethod::PivotedCholesky, PsdMethod::Eigen] {
            assert!(matches!(PsdFactor::with_method(&a, m, None), Err(Error::NotPositiveSemiDefinite { .. })), "{m:?}");
        }
    }
}
