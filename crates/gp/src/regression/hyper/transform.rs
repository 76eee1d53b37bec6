//! The map between original and working units ([`DataTransform`]): inputs scaled to [0, 1]^d,
//! targets standardised.

use super::*;

/// The map between original and working units: x′ = (x − offset) ⊘ width for inputs,
/// y′ = (y − mean)/scale for targets (identity parts when the options are off).
#[derive(Debug, Clone, PartialEq)]
pub struct DataTransform {
    offset: Vec<f64>,
    width: Vec<f64>,
    mean: f64,
    scale: f64,
}

/// Targets whose standard deviation is at most this times max(1, |mean|) count as constant
/// ([`Fallback::ConstantTargets`]); BoTorch's `Standardize` uses an absolute 1e-8.
pub const CONSTANT_TARGETS_TOLERANCE: f64 = 1e-8;

/// The mean and sample standard deviation (n − 1) of `y`, or `None` if there are fewer than 2
/// values or they are constant (sd ≤ [`CONSTANT_TARGETS_TOLERANCE`]·max(1, |mean|)).
pub(super) fn mean_and_sd(y: &DVector<f64>) -> Option<(f64, f64)> {
    let n = y.len();
    if n < 2 {
        return None;
    }
    let mean = y.mean();
    let sd = (y.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    (sd > CONSTANT_TARGETS_TOLERANCE * mean.abs().max(1.0)).then_some((mean, sd))
}

impl DataTransform {
    /// The transform of `config` for data `y` in dimension `d` (the box is needed if
    /// `scale_inputs`). With one target or constant targets the scale is 1 (centring only).
    pub fn new(config: &HyperFitConfig, d: usize, domain: Option<&BoxDomain>, y: &DVector<f64>) -> Result<Self> {
        let (offset, width) = match (config.scale_inputs, domain) {
            (false, _) => (vec![0.0; d], vec![1.0; d]),
            (true, None) => {
                return Err(Error::invalid("scale_inputs", "scaling inputs to [0, 1]^d needs the box; none was given"));
            }
            (true, Some(b)) => {
                if b.dim() != d {
                    return Err(Error::dims("hyperparameter fit: box dimension vs points", d, b.dim()));
                }
                (b.lower().to_vec(), b.lower().iter().zip(b.upper()).map(|(l, u)| u - l).collect())
            }
        };
        let (mean, scale) = match (config.standardise_outputs, mean_and_sd(y)) {
            (false, _) => (0.0, 1.0),
            (true, Some(ms)) => ms,
            (true, None) => (if y.is_empty() { 0.0 } else { y.mean() }, 1.0),
        };
        Ok(Self { offset, width, mean, scale })
    }

    /// Inputs in working units (rows are points).
    pub fn inputs(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        if x.ncols() != self.offset.len() {
            return Err(Error::dims("data transform: point dimension", self.offset.len(), x.ncols()));
        }
        Ok(DMatrix::from_fn(x.nrows(), x.ncols(), |i, j| (x[(i, j)] - self.offset[j]) / self.width[j]))
    }

    /// One point in working units (the single-point form of [`DataTransform::inputs`]; the
    /// caller checks the dimension).
    pub fn input_point(&self, x: &[f64]) -> Vec<f64> {
        x.iter().zip(&self.offset).zip(&self.width).map(|((v, o), w)| (v - o) / w).collect()
    }

    /// The per-dimension widths w of the input map x′ = (x − offset) ⊘ w (1 without scaling): a
    /// gradient in working units maps back to original units as ∂/∂x_j = (∂/∂x′_j)/w_j.
    pub fn input_widths(&self) -> &[f64] {
        &self.width
    }

    /// One target in working units.
    pub fn target(&self, y: f64) -> f64 {
        (y - self.mean) / self.scale
    }

    /// Targets in working units.
    pub fn targets(&self, y: &DVector<f64>) -> DVector<f64> {
        y.map(|v| self.target(v))
    }

    /// A posterior mean in working units back in original units (m·scale + mean).
    pub fn mean_to_original(&self, m: f64) -> f64 {
        m * self.scale + self.mean
    }

    /// A posterior variance in working units back in original units (v·scale²).
    pub fn variance_to_original(&self, v: f64) -> f64 {
        v * self.scale * self.scale
    }

    /// The target mean and scale (0 and 1 without standardisation).
    pub fn target_mean_and_scale(&self) -> (f64, f64) {
        (self.mean, self.scale)
    }
}
