//! The anchored sampler of PF-TS Algorithm 1 (lines 4–8), kept to check the anchor-free
//! utility-space sampler [`crate::PfTs`] uses against the paper's own formulation.
//!
//! Algorithm 1 draws h̃ ~ GP(h_t, v_t² k^D_t) and maximises h̃(·, x₀) for an anchor x₀. On the
//! candidates, h̃(·, a) for anchor a is Gaussian with (PF-TS note §3.3 step 4, §2.6)
//!
//! ```text
//! mean       h_t(c, a) = g_t(c) − g_t(a)
//! covariance C_a(c, c′) = k^D_t((c, a), (c′, a)) = Ŝ(c, c′) − Ŝ(c, a) − Ŝ(a, c′) + Ŝ(a, a)
//! ```
//!
//! with g_t the fitted utility (PF-TS eq. (18)) and Ŝ the utility-space posterior covariance
//! ([`bohf_gp::DuelingPosterior::covariance`]). C_a has an exactly zero row and column at c = a, so it
//! is singular. With Ŝ = F Fᵀ (the factor of the utility-space sampler), C_a = (P_a F)(P_a F)ᵀ for
//! P_a = I − 1 e_aᵀ, i.e. the anchored factor has rows F_c − F_a. Feeding the same standard-normal
//! draws z to both samplers therefore gives h̃(c, a) = f̃(c) − f̃(a) with f̃ = g_t + v F z, the
//! utility-space draw: this is the coupling under which "the same draws" pick the same actions for
//! every anchor (Proposition 1), and [`AnchoredSampler::from_utility`] builds it.

use bohf_core::{Error, Result, argmax_lowest};
use bohf_gp::{DuelingPosterior, JointSampler};
use nalgebra::{DMatrix, DVector};

/// The covariance C_a(c, c′) = Ŝ(c, c′) − Ŝ(c, a) − Ŝ(a, c′) + Ŝ(a, a) = k^D_t((c, a), (c′, a)) of
/// the anchored sample h̃(·, a) on all candidates (PF-TS §2.6; note §3.3 step 4), scaled by v_t² = 1.
pub fn anchored_covariance(posterior: &DuelingPosterior, anchor: usize) -> Result<DMatrix<f64>> {
    let n = posterior.dim();
    if anchor >= n {
        return Err(Error::IndexOutOfRange { context: "anchor".into(), index: anchor, len: n });
    }
    let s = posterior.covariance();
    let saa = s[(anchor, anchor)];
    Ok(DMatrix::from_fn(n, n, |c, d| s[(c, d)] - s[(c, anchor)] - s[(anchor, d)] + saa))
}

/// Joint draws of h̃(·, a) on the candidates for a fixed anchor a, coupled to a utility-space
/// sampler (module docs): mean h_t(·, a), factor rows F_c − F_a.
#[derive(Debug, Clone, PartialEq)]
pub struct AnchoredSampler {
    anchor: usize,
    mean: DVector<f64>,
    factor: DMatrix<f64>,
}

impl AnchoredSampler {
    /// The anchored sampler that shares the standard-normal draws of `utility` (a sampler of
    /// N(g_t, Ŝ), e.g. [`crate::PfTs::sampler`]): mean g_t(c) − g_t(a), factor (I − 1 e_aᵀ) F.
    pub fn from_utility(utility: &JointSampler, anchor: usize) -> Result<Self> {
        let n = utility.dim();
        if anchor >= n {
            return Err(Error::IndexOutOfRange { context: "anchor".into(), index: anchor, len: n });
        }
        let g = utility.mean();
        let f = utility.factor();
        let mean = DVector::from_fn(n, |c, _| g[c] - g[anchor]);
        let factor = DMatrix::from_fn(n, f.ncols(), |c, k| f[(c, k)] - f[(anchor, k)]);
        Ok(Self { anchor, mean, factor })
    }

    /// The anchor a.
    pub fn anchor(&self) -> usize {
        self.anchor
    }

    /// The mean h_t(c, a) = g_t(c) − g_t(a) on the candidates.
    pub fn mean(&self) -> &DVector<f64> {
        &self.mean
    }

    /// The factor P_a F (n×r).
    pub fn factor(&self) -> &DMatrix<f64> {
        &self.factor
    }

    /// The number r of standard-normal draws one sample consumes (the rank of the utility factor).
    pub fn rank(&self) -> usize {
        self.factor.ncols()
    }

    /// The implied covariance (P_a F)(P_a F)ᵀ of h̃(·, a) at v = 1.
    pub fn covariance(&self) -> DMatrix<f64> {
        &self.factor * self.factor.transpose()
    }

    /// h̃(·, a) = h_t(·, a) + v P_a F z for given draws z (r×count), one sample per column.
    pub fn transform(&self, scale: f64, z: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        if !(scale.is_finite() && scale >= 0.0) {
            return Err(Error::invalid("scale", format!("must be finite and >= 0, got {scale}")));
        }
        if z.nrows() != self.rank() {
            return Err(Error::dims(
                "standard-normal draws (rows = rank of the utility factor)",
                self.rank(),
                z.nrows(),
            ));
        }
        bohf_core::error::ensure_finite("standard-normal draws", z.iter())?;
        let mut x = &self.factor * z;
        x *= scale;
        for mut col in x.column_iter_mut() {
            col += &self.mean;
        }
        Ok(x)
    }

    /// Algorithm 1 lines 7–8: x_t = argmax h̃⁽¹⁾(·, a), x′_t = argmax h̃⁽²⁾(·, a) from two columns of
    /// draws z (r×2), lowest index on ties.
    pub fn select(&self, scale: f64, z: &DMatrix<f64>) -> Result<(usize, usize)> {
        if z.ncols() != 2 {
            return Err(Error::dims("standard-normal draws for a pair (columns)", 2, z.ncols()));
        }
        let h = self.transform(scale, z)?;
        Ok((argmax_lowest(h.column(0).iter().copied())?, argmax_lowest(h.column(1).iter().copied())?))
    }
}
