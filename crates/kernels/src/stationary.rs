//! Stationary kernels k(x, y) = σ² φ(r), r = ‖(x − y) ⊘ ℓ‖₂, and the linear kernel.

use crate::{Kernel, rows_of, symmetric_from_fn};
use bohf_core::error::ensure_positive;
use bohf_core::{Error, Result};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// The profile φ of a stationary kernel, as a function of the scaled Euclidean distance r
/// (formulas of MR-LPF App. A and PF-TS App. B.3; closed forms as in scikit-learn).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Squared exponential: φ(r) = exp(−r²/2).
    Se,
    /// Matérn ν = ½ (exponential): φ(r) = exp(−r).
    Matern12,
    /// Matérn ν = 3⁄2: φ(r) = (1 + √3 r) exp(−√3 r).
    Matern32,
    /// Matérn ν = 5⁄2: φ(r) = (1 + √5 r + 5r²/3) exp(−√5 r).
    Matern52,
}

impl Family {
    /// φ as a function of the squared scaled distance r².
    #[inline]
    pub fn profile_sq(self, r2: f64) -> f64 {
        match self {
            Family::Se => (-0.5 * r2).exp(),
            Family::Matern12 => (-r2.sqrt()).exp(),
            Family::Matern32 => {
                let s = (3.0 * r2).sqrt();
                (1.0 + s) * (-s).exp()
            }
            Family::Matern52 => {
                let s = (5.0 * r2).sqrt();
                (1.0 + s + 5.0 * r2 / 3.0) * (-s).exp()
            }
        }
    }

    /// The smoothness ν (∞ for SE).
    pub fn nu(self) -> f64 {
        match self {
            Family::Se => f64::INFINITY,
            Family::Matern12 => 0.5,
            Family::Matern32 => 1.5,
            Family::Matern52 => 2.5,
        }
    }
}

/// A stationary kernel k(x, y) = σ² φ(‖(x − y) ⊘ ℓ‖₂) with an isotropic lengthscale or one per
/// dimension (ARD).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stationary {
    family: Family,
    variance: f64,
    /// One entry (isotropic) or d entries (ARD).
    lengthscales: Vec<f64>,
}

impl Stationary {
    /// An isotropic kernel with unit variance; errors name the offending field.
    pub fn new(family: Family, lengthscale: f64) -> Result<Self> {
        ensure_positive("lengthscale", lengthscale)?;
        Ok(Self { family, variance: 1.0, lengthscales: vec![lengthscale] })
    }

    /// Squared exponential with lengthscale ℓ and unit variance.
    pub fn se(lengthscale: f64) -> Result<Self> {
        Self::new(Family::Se, lengthscale)
    }

    /// Matérn-½ with lengthscale ℓ and unit variance.
    pub fn matern12(lengthscale: f64) -> Result<Self> {
        Self::new(Family::Matern12, lengthscale)
    }

    /// Matérn-3⁄2 with lengthscale ℓ and unit variance.
    pub fn matern32(lengthscale: f64) -> Result<Self> {
        Self::new(Family::Matern32, lengthscale)
    }

    /// Matérn-5⁄2 with lengthscale ℓ and unit variance (the default kernel of the papers).
    pub fn matern52(lengthscale: f64) -> Result<Self> {
        Self::new(Family::Matern52, lengthscale)
    }

    /// Sets the variance σ² (> 0).
    pub fn with_variance(mut self, variance: f64) -> Result<Self> {
        ensure_positive("variance", variance)?;
        self.variance = variance;
        Ok(self)
    }

    /// Sets one lengthscale per dimension (ARD); every entry must be > 0.
    pub fn with_ard(mut self, lengthscales: Vec<f64>) -> Result<Self> {
        if lengthscales.is_empty() {
            return Err(Error::invalid("lengthscales", "ARD needs at least one lengthscale"));
        }
        for (j, &l) in lengthscales.iter().enumerate() {
            ensure_positive(&format!("lengthscales[{j}]"), l)?;
        }
        self.lengthscales = lengthscales;
        Ok(self)
    }

    /// The family.
    pub fn family(&self) -> Family {
        self.family
    }

    /// The variance σ².
    pub fn variance(&self) -> f64 {
        self.variance
    }

    /// The lengthscales (one entry if isotropic).
    pub fn lengthscales(&self) -> &[f64] {
        &self.lengthscales
    }

    /// Points scaled by their lengthscales, as contiguous rows.
    fn scaled_rows(&self, x: &DMatrix<f64>) -> Vec<Vec<f64>> {
        let mut rows = rows_of(x);
        for r in &mut rows {
            for (j, v) in r.iter_mut().enumerate() {
                *v /= self.lengthscales[if self.lengthscales.len() == 1 { 0 } else { j }];
            }
        }
        rows
    }
}

#[inline]
fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| (u - v) * (u - v)).sum()
}

impl Kernel for Stationary {
    fn input_dim(&self) -> Option<usize> {
        (self.lengthscales.len() > 1).then_some(self.lengthscales.len())
    }

    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        let r2: f64 = x
            .iter()
            .zip(y)
            .enumerate()
            .map(|(j, (u, v))| {
                let l = self.lengthscales[if self.lengthscales.len() == 1 { 0 } else { j }];
                ((u - v) / l).powi(2)
            })
            .sum();
        self.variance * self.family.profile_sq(r2)
    }

    fn gram(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_points("Gram matrix points", x)?;
        let rows = self.scaled_rows(x);
        Ok(symmetric_from_fn(rows.len(), |i, j| self.variance * self.family.profile_sq(sq_dist(&rows[i], &rows[j]))))
    }

    fn cross_gram(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_cross(x, y)?;
        let (rx, ry) = (self.scaled_rows(x), self.scaled_rows(y));
        Ok(DMatrix::from_fn(rx.len(), ry.len(), |i, j| self.variance * self.family.profile_sq(sq_dist(&rx[i], &ry[j]))))
    }

    fn diagonal(&self, x: &DMatrix<f64>) -> Result<DVector<f64>> {
        self.check_points("kernel diagonal points", x)?;
        Ok(DVector::from_element(x.nrows(), self.variance))
    }
}

/// The linear kernel k(x, y) = σ² xᵀy (MR-LPF App. A, with a variance).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Linear {
    variance: f64,
}

impl Linear {
    /// A linear kernel with variance σ² > 0.
    pub fn new(variance: f64) -> Result<Self> {
        ensure_positive("variance", variance)?;
        Ok(Self { variance })
    }

    /// The variance σ².
    pub fn variance(&self) -> f64 {
        self.variance
    }
}

impl Kernel for Linear {
    fn input_dim(&self) -> Option<usize> {
        None
    }

    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.variance * x.iter().zip(y).map(|(u, v)| u * v).sum::<f64>()
    }

    fn gram(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_points("Gram matrix points", x)?;
        Ok(x * x.transpose() * self.variance)
    }

    fn cross_gram(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_cross(x, y)?;
        Ok(x * y.transpose() * self.variance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn closed_forms_at_known_distances() {
        // r = |x - y| / ℓ = 1 (ℓ = 0.5, distance 0.5).
        let (x, y) = ([0.25], [0.75]);
        let e = std::f64::consts::E;
        assert_relative_eq!(Stationary::se(0.5).unwrap().eval(&x, &y), (-0.5f64).exp(), epsilon = 1e-15);
        assert_relative_eq!(Stationary::matern12(0.5).unwrap().eval(&x, &y), 1.0 / e, epsilon = 1e-15);
        let s3 = 3f64.sqrt();
        assert_relative_eq!(Stationary::matern32(0.5).unwrap().eval(&x, &y), (1.0 + s3) * (-s3).exp(), epsilon = 1e-15);
        let s5 = 5f64.sqrt();
        assert_relative_eq!(
            Stationary::matern52(0.5).unwrap().eval(&x, &y),
            (1.0 + s5 + 5.0 / 3.0) * (-s5).exp(),
            epsilon = 1e-15
        );
    }

    #[test]
    fn matern_matches_bessel_form() {
        // General Matérn: (2^{1-ν}/Γ(ν)) (√(2ν) r)^ν K_ν(√(2ν) r). For half-integer ν,
        // K_{1/2}(z) = √(π/2z) e^{-z}, K_{3/2}(z) = √(π/2z) e^{-z}(1 + 1/z),
        // K_{5/2}(z) = √(π/2z) e^{-z}(1 + 3/z + 3/z²).
        use std::f64::consts::PI;
        let gamma = |nu: f64| {
            if nu == 0.5 {
                PI.sqrt()
            } else if nu == 1.5 {
                PI.sqrt() / 2.0
            } else {
                3.0 * PI.sqrt() / 4.0
            }
        };
        let bessel_k = |nu: f64, z: f64| {
            let base = (PI / (2.0 * z)).sqrt() * (-z).exp();
            if nu == 0.5 {
                base
            } else if nu == 1.5 {
                base * (1.0 + 1.0 / z)
            } else {
                base * (1.0 + 3.0 / z + 3.0 / (z * z))
            }
        };
        for fam in [Family::Matern12, Family::Matern32, Family::Matern52] {
            let nu = fam.nu();
            for r in [0.05, 0.3, 1.0, 2.7] {
                let z = (2.0 * nu).sqrt() * r;
                let general = 2f64.powf(1.0 - nu) / gamma(nu) * z.powf(nu) * bessel_k(nu, z);
                assert_relative_eq!(fam.profile_sq(r * r), general, max_relative = 1e-12);
            }
        }
    }

    #[test]
    fn ard_scales_each_dimension() {
        let k = Stationary::se(1.0).unwrap().with_ard(vec![0.5, 2.0]).unwrap().with_variance(3.0).unwrap();
        let v = k.eval(&[0.0, 0.0], &[0.5, 2.0]);
        assert_relative_eq!(v, 3.0 * (-1.0f64).exp(), epsilon = 1e-14);
        assert!(matches!(k.value(&[0.0], &[0.0]), Err(Error::DimensionMismatch { .. })));
    }

    #[test]
    fn invalid_hyperparameters_name_the_field() {
        let e = Stationary::se(0.0).unwrap_err();
        assert!(e.to_string().contains("`lengthscale`"), "{e}");
        let e = Stationary::matern52(f64::NAN).unwrap_err();
        assert!(e.to_string().contains("`lengthscale`"), "{e}");
        let e = Stationary::se(1.0).unwrap().with_variance(-1.0).unwrap_err();
        assert!(e.to_string().contains("`variance`"), "{e}");
        let e = Stationary::se(1.0).unwrap().with_ard(vec![1.0, 0.0]).unwrap_err();
        assert!(e.to_string().contains("`lengthscales[1]`"), "{e}");
        assert!(Linear::new(0.0).unwrap_err().to_string().contains("`variance`"));
    }

    #[test]
    fn fast_gram_paths_match_pointwise_evaluation() {
        let x = DMatrix::from_fn(7, 3, |i, j| ((i * 5 + j * 3) % 7) as f64 / 3.0);
        let y = DMatrix::from_fn(4, 3, |i, j| ((i + j * 2) % 5) as f64 / 4.0);
        let kernels: Vec<Box<dyn Kernel>> = vec![
            Box::new(Stationary::matern32(0.7).unwrap().with_ard(vec![0.5, 1.0, 2.0]).unwrap()),
            Box::new(Stationary::se(0.4).unwrap().with_variance(2.0).unwrap()),
            Box::new(Linear::new(0.5).unwrap()),
        ];
        for k in kernels {
            let g = k.gram(&x).unwrap();
            let c = k.cross_gram(&x, &y).unwrap();
            let dg = k.diagonal(&x).unwrap();
            for i in 0..7 {
                let xi: Vec<f64> = x.row(i).iter().copied().collect();
                assert_relative_eq!(dg[i], k.eval(&xi, &xi), epsilon = 1e-14);
                for j in 0..7 {
                    let xj: Vec<f64> = x.row(j).iter().copied().collect();
                    assert_relative_eq!(g[(i, j)], k.eval(&xi, &xj), epsilon = 1e-14);
                }
                for j in 0..4 {
                    let yj: Vec<f64> = y.row(j).iter().copied().collect();
                    assert_relative_eq!(c[(i, j)], k.eval(&xi, &yj), epsilon = 1e-14);
                }
            }
        }
    }
}
