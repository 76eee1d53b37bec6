//! Joint Gaussian draws on a finite candidate set: x = m + v·F z, z ~ N(0, I_r), with F Fᵀ = Σ
//! from [`PsdFactor`] (pivoted Cholesky, so a singular Σ is fine).
//!
//! Both Thompson samplers use it: GP-TS on the regression posterior ([`crate::CandidateGp`]) and
//! PF-TS on the utility-space dueling posterior f̃ ~ N(g_t, v_t² Ŝ_t) (PF-TS §2.6, §3.3).

use bohf_core::linalg::{PsdFactor, PsdMethod};
use bohf_core::{Error, Result};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// A factorised Gaussian N(m, Σ) on n candidates, ready to draw joint samples from.
#[derive(Debug, Clone, PartialEq)]
pub struct JointSampler {
    mean: DVector<f64>,
    factor: PsdFactor,
}

impl JointSampler {
    /// Factorises Σ (n×n, PSD, possibly singular) once; draws then cost O(n·r) each.
    pub fn new(mean: DVector<f64>, cov: &DMatrix<f64>) -> Result<Self> {
        Self::with_method(mean, cov, PsdMethod::default())
    }

    /// As [`JointSampler::new`] with a chosen factorisation method.
    pub fn with_method(mean: DVector<f64>, cov: &DMatrix<f64>, method: PsdMethod) -> Result<Self> {
        if cov.nrows() != mean.len() {
            return Err(Error::dims("covariance rows vs mean length", mean.len(), cov.nrows()));
        }
        bohf_core::error::ensure_finite("sampler mean", mean.iter())?;
        let factor = PsdFactor::with_method(cov, method, None)?;
        Ok(Self { mean, factor })
    }

    /// The number of candidates n.
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// The numerical rank r of Σ: the number of standard-normal draws one sample consumes.
    pub fn rank(&self) -> usize {
        self.factor.rank()
    }

    /// The mean m.
    pub fn mean(&self) -> &DVector<f64> {
        &self.mean
    }

    /// The factor F (n×r) with F Fᵀ ≈ Σ.
    pub fn factor(&self) -> &DMatrix<f64> {
        self.factor.factor()
    }

    /// `count` independent draws of N(m, scale²·Σ), one per column of the n×count result.
    /// `scale` is the exploration scale v_t of PF-TS §3.6 (1 for the plain posterior).
    pub fn sample(&self, scale: f64, count: usize, rng: &mut (impl Rng + ?Sized)) -> Result<DMatrix<f64>> {
        check_scale(scale)?;
        let z = DMatrix::from_fn(self.rank(), count, |_, _| StandardNormal.sample(rng));
        self.transform(scale, &z)
    }

    /// m + scale·F z for given standard-normal draws z (r×count, r = [`JointSampler::rank`]), so that
    /// tests and samplers can share the same draws (e.g. for anchor-invariance checks).
    pub fn transform(&self, scale: f64, z: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        check_scale(scale)?;
        if z.nrows() != self.rank() {
            return Err(Error::dims("standard-normal draws (rows = rank of the covariance)", self.rank(), z.nrows()));
        }
        bohf_core::error::ensure_finite("standard-normal draws", z.iter())?;
        let mut x = self.factor.factor() * z;
        x *= scale;
        for mut col in x.column_iter_mut() {
            col += &self.mean;
        }
        Ok(x)
    }
}

fn check_scale(scale: f64) -> Result<()> {
    if scale.is_finite() && scale >= 0.0 {
        Ok(())
    } else {
        Err(Error::invalid("scale", format!("must be finite and >= 0, got {scale}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transform_is_affine_in_the_draws_and_rejects_bad_input() {
        // Σ = diag(4, 0, 1): a singular covariance, rank 2.
        let cov = DMatrix::from_diagonal(&DVector::from_vec(vec![4.0, 0.0, 1.0]));
        let m = DVector::from_vec(vec![1.0, 2.0, 3.0]);
        let s = JointSampler::new(m.clone(), &cov).unwrap();
        assert_eq!(s.rank(), 2);
        let z = DMatrix::from_column_slice(2, 1, &[1.0, -1.0]);
        let x = s.transform(0.5, &z).unwrap();
        // The draw is affine in z with intercept m: x(z) + x(−z) = 2m up to rounding.
        let xm = s.transform(0.5, &(-&z)).unwrap();
        assert!(((&x + &xm) / 2.0 - &m).abs().max() < 1e-15);
        // Coordinate 1 has zero variance, so it never moves.
        assert_eq!(x[(1, 0)], 2.0);
        assert!(s.transform(-1.0, &z).is_err());
        assert!(s.transform(1.0, &DMatrix::zeros(3, 1)).is_err());
        assert!(JointSampler::new(DVector::zeros(2), &cov).is_err());
    }
}
