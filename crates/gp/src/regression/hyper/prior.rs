//! The lengthscale priors ([`LengthscalePrior`]) and their log densities, added to the log marginal
//! likelihood.

use super::*;

/// A prior on each lengthscale ℓ (in working units), added to the log marginal likelihood as
/// log p(ℓ) evaluated at ℓ (GPyTorch's convention: the density of ℓ itself, no Jacobian of the
/// log parametrisation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LengthscalePrior {
    /// No prior: plain type-II maximum likelihood.
    None,
    /// BoTorch's default since v0.12 (`get_covar_module_with_dim_scaled_prior`, after Hvarfner,
    /// Hellsten & Nardi 2024, "Vanilla Bayesian Optimization Performs Great in High Dimensions",
    /// ICML): ℓ ~ LogNormal(μ = √2 + ½ log d, s = √3) for input dimension d, i.e. the log
    /// lengthscale's mean grows like log √d so that the prior expects longer lengthscales in higher
    /// dimension. BoTorch pairs it with the floor ℓ ≥ 0.025 ([`HyperFitConfig::lengthscale_floor`]).
    DimScaledLogNormal,
    /// ℓ ~ LogNormal(μ = `loc`, s = `scale`): log ℓ ~ N(loc, scale²).
    LogNormal {
        /// μ, the mean of log ℓ.
        loc: f64,
        /// s > 0, the standard deviation of log ℓ.
        scale: f64,
    },
    /// ℓ ~ Gamma(shape a = `concentration`, rate b = `rate`), density b^a ℓ^{a−1} e^{−bℓ}/Γ(a)
    /// (GPyTorch's `GammaPrior(concentration, rate)`). BoTorch's `PairwiseGP` uses a = 2.4, b = 2.7
    /// (mode (a − 1)/b ≈ 0.52).
    Gamma {
        /// a > 0.
        concentration: f64,
        /// b > 0.
        rate: f64,
    },
}

/// log N(θ; μ, s²) − θ: the log density of a log-normal variable v = e^θ evaluated at v (no
/// Jacobian of the log parametrisation), and its derivative in θ, −1 − (θ − μ)/s².
pub(crate) fn log_normal_log_density(mu: f64, s: f64, theta: f64) -> (f64, f64) {
    let z = (theta - mu) / s;
    let value = -theta - (s * (2.0 * std::f64::consts::PI).sqrt()).ln() - 0.5 * z * z;
    (value, -1.0 - z / s)
}

/// log Gamma(v; a, b) = a log b − log Γ(a) + (a − 1) log v − b v at v = e^θ (no Jacobian), and its
/// derivative in θ, (a − 1) − b v.
pub(crate) fn gamma_log_density(a: f64, b: f64, theta: f64) -> (f64, f64) {
    let v = theta.exp();
    let value = a * b.ln() - bohf_core::special::ln_gamma(a) + (a - 1.0) * theta - b * v;
    (value, (a - 1.0) - b * v)
}

/// Checks that the named prior parameters are finite (`loc`) or positive (`scale`, `concentration`,
/// `rate`); the error names `{field}.{parameter}`.
pub(crate) fn check_prior_parameters(field: &str, finite: &[(&str, f64)], positive: &[(&str, f64)]) -> Result<()> {
    for &(name, v) in finite {
        if !v.is_finite() {
            return Err(Error::invalid(format!("{field}.{name}"), format!("must be finite, got {v}")));
        }
    }
    for &(name, v) in positive {
        ensure_positive(&format!("{field}.{name}"), v)?;
    }
    Ok(())
}

impl LengthscalePrior {
    /// (μ, s) of the log-normal for input dimension `d`, or `None` without a prior or for a Gamma
    /// prior.
    pub fn log_normal(&self, d: usize) -> Option<(f64, f64)> {
        match *self {
            Self::None | Self::Gamma { .. } => None,
            Self::DimScaledLogNormal => Some((std::f64::consts::SQRT_2 + 0.5 * (d.max(1) as f64).ln(), 3f64.sqrt())),
            Self::LogNormal { loc, scale } => Some((loc, scale)),
        }
    }

    /// The mode of the prior density of ℓ (input dimension `d`): e^{μ − s²} for a log-normal,
    /// (a − 1)/b for a Gamma with a > 1 (0 otherwise); `None` without a prior. A natural start.
    pub fn mode(&self, d: usize) -> Option<f64> {
        match *self {
            Self::None => None,
            Self::Gamma { concentration, rate } => Some(((concentration - 1.0) / rate).max(0.0)),
            _ => self.log_normal(d).map(|(mu, s)| (mu - s * s).exp()),
        }
    }

    /// log p(ℓ) at θ = log ℓ and its derivative d log p(e^θ)/dθ (0 and 0 without a prior):
    /// log-normal −θ − log(s√(2π)) − (θ − μ)²/(2s²), derivative −1 − (θ − μ)/s²; Gamma
    /// a log b − log Γ(a) + (a − 1)θ − b e^θ, derivative (a − 1) − b e^θ.
    pub(crate) fn log_density(&self, d: usize, theta: f64) -> (f64, f64) {
        match *self {
            Self::Gamma { concentration, rate } => gamma_log_density(concentration, rate, theta),
            _ => match self.log_normal(d) {
                None => (0.0, 0.0),
                Some((mu, s)) => log_normal_log_density(mu, s, theta),
            },
        }
    }

    /// Errors name `lengthscale_prior.loc`, `.scale`, `.concentration` or `.rate`.
    pub(crate) fn check(&self) -> Result<()> {
        match *self {
            Self::LogNormal { loc, scale } => {
                check_prior_parameters("lengthscale_prior", &[("loc", loc)], &[("scale", scale)])
            }
            Self::Gamma { concentration, rate } => {
                check_prior_parameters("lengthscale_prior", &[], &[("concentration", concentration), ("rate", rate)])
            }
            Self::None | Self::DimScaledLogNormal => Ok(()),
        }
    }
}
