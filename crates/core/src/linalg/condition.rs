use crate::error::{Error, Result, SolverStatus};
use nalgebra::{DMatrix, DVector};

/// Conditions a Gaussian N(·, Σ) on one noisy linear observation y = dᵀf + ε, ε ~ N(0, ρ), in place:
///
/// Σ ← Σ − (Σd)(Σd)ᵀ / (ρ + dᵀΣd)
///
/// (the rank-one Kalman / GP posterior update). `direction` is the sparse vector d as
/// (index, coefficient) entries, e.g. [(i, 1), (j, −1)] for a duel between candidates i and j, or
/// [(i, 1)] for a direct evaluation. Costs O(n²) instead of re-factorising. Returns the prior variance
/// dᵀΣd of the observation (before the update), the quantity greedy information gain maximises.
pub fn condition_on_observation(cov: &mut DMatrix<f64>, direction: &[(usize, f64)], noise: f64) -> Result<f64> {
    let n = cov.nrows();
    if cov.ncols() != n {
        return Err(Error::dims("covariance (square matrix)", n, cov.ncols()));
    }
    crate::error::ensure_positive("noise", noise)?;
    for &(i, c) in direction {
        if i >= n {
            return Err(Error::IndexOutOfRange { context: "observation direction".into(), index: i, len: n });
        }
        if !c.is_finite() {
            return Err(Error::NonFinite("observation direction".into()));
        }
    }
    let mut s = DVector::zeros(n);
    for &(i, c) in direction {
        s.axpy(c, &cov.column(i), 1.0);
    }
    let prior_var: f64 = direction.iter().map(|&(i, c)| c * s[i]).sum();
    let denom = noise + prior_var;
    if denom.is_nan() || denom <= 0.0 {
        return Err(Error::solver_failed(
            "rank-one posterior update",
            SolverStatus::NonPositivePivot { pivot: denom },
            "the innovation variance is not positive",
        ));
    }
    // Σ_ij −= (s_i s_j)/denom, with the product formed as s_i·s_j so that a symmetric Σ stays exactly
    // symmetric (BLAS-style ger computes (α s_i) s_j, which differs from (α s_j) s_i by an ulp).
    let inv = 1.0 / denom;
    let s = s.as_slice();
    for (col, &sj) in cov.as_mut_slice().chunks_exact_mut(n).zip(s) {
        for (c, &si) in col.iter_mut().zip(s) {
            *c -= (si * sj) * inv;
        }
    }
    Ok(prior_var)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_batch_gaussian_conditioning() {
        // Prior Σ, observations Y = D f + ε: posterior Σ − Σ Dᵀ (D Σ Dᵀ + ρ I)⁻¹ D Σ, computed by LU.
        let b = DMatrix::from_fn(6, 6, |i, j| ((i * 3 + j * 5) % 7) as f64 / 7.0);
        let prior = &b * b.transpose() + DMatrix::identity(6, 6) * 0.1;
        let rho = 0.3;
        let obs: Vec<Vec<(usize, f64)>> =
            vec![vec![(0, 1.0), (3, -1.0)], vec![(2, 1.0)], vec![(5, 1.0), (1, -1.0)], vec![(0, 1.0), (3, -1.0)]];
        let mut cov = prior.clone();
        for d in &obs {
            condition_on_observation(&mut cov, d, rho).unwrap();
        }
        let dm = DMatrix::from_fn(obs.len(), 6, |r, c| obs[r].iter().filter(|e| e.0 == c).map(|e| e.1).sum());
        let inner = &dm * &prior * dm.transpose() + DMatrix::identity(obs.len(), obs.len()) * rho;
        let batch = &prior - &prior * dm.transpose() * inner.lu().solve(&(&dm * &prior)).unwrap();
        assert!((cov - batch).abs().max() < 1e-12);
    }

    #[test]
    fn keeps_a_symmetric_matrix_exactly_symmetric() {
        let b = DMatrix::from_fn(9, 9, |i, j| ((i * 7 + j * 3) % 11) as f64 / 3.7 + 0.01 * i as f64);
        let mut cov = &b * b.transpose();
        cov = (&cov + cov.transpose()) * 0.5;
        for k in 0..20 {
            condition_on_observation(&mut cov, &[(k % 9, 1.0), ((k * 5 + 2) % 9, -0.7)], 0.13).unwrap();
            assert_eq!(cov, cov.transpose(), "after {} updates", k + 1);
        }
    }

    #[test]
    fn rejects_bad_input() {
        let mut c = DMatrix::<f64>::identity(3, 3);
        assert!(condition_on_observation(&mut c, &[(3, 1.0)], 1.0).is_err());
        assert!(condition_on_observation(&mut c, &[(0, 1.0)], 0.0).is_err());
        assert!(condition_on_observation(&mut c, &[(0, f64::NAN)], 1.0).is_err());
        assert_eq!(c, DMatrix::identity(3, 3));
    }

    #[test]
    fn a_non_positive_innovation_variance_is_a_typed_failure_and_leaves_the_matrix() {
        // Σ = [−2]: ρ + dᵀΣd = 1 − 2 = −1.
        let mut c = DMatrix::from_element(1, 1, -2.0);
        let e = condition_on_observation(&mut c, &[(0, 1.0)], 1.0).unwrap_err();
        assert!(
            matches!(e, Error::SolverFailed { status: SolverStatus::NonPositivePivot { pivot }, .. } if pivot == -1.0),
            "{e}"
        );
        assert_eq!(c, DMatrix::from_element(1, 1, -2.0));
    }
}
