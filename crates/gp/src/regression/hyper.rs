//! GP regression hyperparameters by type-II maximum likelihood (Rasmussen & Williams 2006, *Gaussian
//! Processes for Machine Learning*, §5.4.1): ARD (or isotropic) lengthscales, signal variance and
//! noise variance maximise the log marginal likelihood, plus an optional log prior, over a box in
//! log space.
//!
//! * [`log_marginal_likelihood`]: log p(y | θ) and its analytic gradient w.r.t.
//!   θ = (log ℓ_1, …, log ℓ_m, log σ², log ρ), R&W eq. (5.8)–(5.9), from one Cholesky factor.
//! * [`HyperFitConfig`] → [`ValidHyperFitConfig`]: bounds, the lengthscale floor, fixed or learned
//!   variance and noise, the prior ([`LengthscalePrior`]), multistart, input scaling to [0, 1]^d,
//!   output standardisation and the refit schedule.
//! * [`fit_hyperparameters`]: the fit, with the documented fallbacks ([`Fallback`]) for degenerate
//!   data; the hyperparameters it returns are always finite.
//!
//! Everything is in **working units**: inputs after scaling to [0, 1]^d and targets after
//! standardisation, when those options are on ([`DataTransform`]).

use super::GpRegression;
use bohf_core::error::ensure_positive;
use bohf_core::linalg::{Cholesky, JitterPolicy};
use bohf_core::{AtField, BoxDomain, Error, Result};
use bohf_kernels::{Kernel, Stationary};
use bohf_optim::{LocalConfig, LocalResult, MAX_SOBOL_DIM, minimize_bounded_warm, sobol_design};
use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// log p(y | θ) and its gradient with respect to θ = (log ℓ_1, …, log ℓ_m, log σ², log ρ)
/// (m = 1 for an isotropic kernel, d for ARD), in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMarginal {
    /// log p(y | θ) = −½ yᵀA⁻¹y − ½ log det A − (n/2) log 2π, A = K + ρI (R&W eq. (5.8)).
    pub value: f64,
    /// ∂ log p / ∂θ_p = ½ tr((ααᵀ − A⁻¹) ∂A/∂θ_p), α = A⁻¹y (R&W eq. (5.9)); m + 2 entries.
    pub gradient: Vec<f64>,
}

/// The log marginal likelihood of zero-mean GP regression with kernel `kernel` and noise variance
/// `noise` on the rows of `x` and targets `y`, with its analytic gradient (R&W eq. (5.8)–(5.9)).
///
/// One Cholesky factor L Lᵀ = A = K + ρI (+ the jitter [`Cholesky::with_jitter`] may add) gives
/// α = A⁻¹y by two triangular solves and log det A = 2 Σ log L_ii (n³/3 flops). The traces
/// tr(A⁻¹ ∂A/∂θ_p) need W = A⁻¹, taken from the factor without a general inverse:
/// [`Cholesky::inverse`] forms L⁻¹ by triangular substitution and W = L⁻ᵀL⁻¹ (n³/3 flops; solving
/// A W = I would cost n³). Each gradient entry is then an O(n²) contraction
/// ½ Σ_ik Q_ik (∂A/∂θ_p)_ik with Q = ααᵀ − W: ∂A/∂log ℓ_j through
/// [`Stationary::log_lengthscale_grad_contraction`] (one pass over the pairs, no matrix per
/// lengthscale), ∂A/∂log σ² = K and ∂A/∂log ρ = ρI (so ½ρ tr Q). Total ≈ (2/3) n³ + O(n² d)
/// flops; the criterion median at n = 100, d = 8 (ARD) is in docs/gp.md.
pub fn log_marginal_likelihood(
    kernel: &Stationary,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    noise: f64,
) -> Result<LogMarginal> {
    log_marginal(kernel, x, y, noise, true)
}

/// [`log_marginal_likelihood`], with an empty gradient unless `with_gradient` (the value alone
/// needs only the factor: n³/3 flops instead of ≈ (2/3) n³).
///
/// Repeated input points (rows equal bit for bit) are aggregated first, exactly: the c_u targets at
/// a distinct point u with mean ȳ_u and scatter S_u = Σ (y − ȳ_u)² have the likelihood
/// N(ȳ_u; f_u, ρ/c_u) · (2πρ)^{−(c_u−1)/2} c_u^{−1/2} e^{−S_u/(2ρ)}, so with A = K_UU + ρ·diag(1/c_u)
/// over the U distinct points and α = A⁻¹ȳ,
///
/// ```text
/// log p(y) = −½ ȳᵀα − ½ log det A − (U/2) log 2π − Σ_u [(c_u − 1)/2 · log(2πρ) + ½ log c_u] − Σ_u S_u/(2ρ)
/// ```
///
/// with gradient ½ tr(Q ∂A/∂θ_p), Q = ααᵀ − A⁻¹, for the kernel's parameters, and
/// ½ ρ Σ_u Q_uu/c_u − Σ_u (c_u − 1)/2 + Σ_u S_u/(2ρ) for log ρ: O(U³) instead of O(n³) (a duel GP
/// on a grid sees the same candidates many times). Without repeats the direct formula runs.
fn log_marginal(
    kernel: &Stationary,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    noise: f64,
    with_gradient: bool,
) -> Result<LogMarginal> {
    ensure_positive("noise", noise)?;
    if x.nrows() != y.len() {
        return Err(Error::dims("log marginal likelihood: targets vs input points", x.nrows(), y.len()));
    }
    bohf_core::error::ensure_finite("log marginal likelihood targets", y.iter())?;
    let mut first: std::collections::HashMap<Vec<u64>, usize> = std::collections::HashMap::new();
    let mut group = Vec::with_capacity(y.len());
    for i in 0..x.nrows() {
        let key: Vec<u64> = x.row(i).iter().map(|v| v.to_bits()).collect();
        let next = first.len();
        group.push(*first.entry(key).or_insert(next));
    }
    if first.len() < y.len() {
        return log_marginal_grouped(kernel, x, y, noise, with_gradient, &group, first.len());
    }
    log_marginal_rows(kernel, x, y, noise, with_gradient)
}

/// The aggregated form of [`log_marginal`] (its documentation): `group[i]` is the distinct point
/// of row i, numbered in order of first appearance, `u` of them.
fn log_marginal_grouped(
    kernel: &Stationary,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    noise: f64,
    with_gradient: bool,
    group: &[usize],
    u: usize,
) -> Result<LogMarginal> {
    let mut rep = vec![usize::MAX; u];
    let mut count = vec![0.0; u];
    let mut sum = vec![0.0; u];
    for (i, &g) in group.iter().enumerate() {
        if rep[g] == usize::MAX {
            rep[g] = i;
        }
        count[g] += 1.0;
        sum[g] += y[i];
    }
    let ybar = DVector::from_fn(u, |g, _| sum[g] / count[g]);
    let scatter: f64 = group.iter().enumerate().map(|(i, &g)| (y[i] - ybar[g]).powi(2)).sum();
    let xu = DMatrix::from_fn(u, x.ncols(), |g, j| x[(rep[g], j)]);
    let k = kernel.gram(&xu)?;
    let mut a = k.clone();
    for g in 0..u {
        a[(g, g)] += noise / count[g];
    }
    let chol = Cholesky::with_jitter(&a, JitterPolicy::default())?;
    let alpha = chol.solve_vec(&ybar)?;
    let two_pi = 2.0 * std::f64::consts::PI;
    let extra: f64 = count.iter().map(|c| -0.5 * (c - 1.0) * (two_pi * noise).ln() - 0.5 * c.ln()).sum::<f64>()
        - scatter / (2.0 * noise);
    let value = super::log_ml_value(&ybar, &alpha, chol.log_det()) + extra;
    if !with_gradient {
        return Ok(LogMarginal { value, gradient: Vec::new() });
    }
    let mut q = chol.inverse();
    q.ger(1.0, &alpha, &alpha, -1.0);
    let mut gradient: Vec<f64> = kernel.log_lengthscale_grad_contraction(&xu, &q)?.iter().map(|c| 0.5 * c).collect();
    gradient.push(0.5 * q.dot(&k));
    let noise_grad = 0.5 * noise * (0..u).map(|g| q[(g, g)] / count[g]).sum::<f64>()
        - count.iter().map(|c| 0.5 * (c - 1.0)).sum::<f64>()
        + scatter / (2.0 * noise);
    gradient.push(noise_grad);
    Ok(LogMarginal { value, gradient })
}

/// [`log_marginal`] by the direct formula on every row (R&W eq. (5.8)–(5.9)).
fn log_marginal_rows(
    kernel: &Stationary,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    noise: f64,
    with_gradient: bool,
) -> Result<LogMarginal> {
    let n = y.len();
    let k = kernel.gram(x)?;
    let mut a = k.clone();
    for i in 0..n {
        a[(i, i)] += noise;
    }
    let chol = Cholesky::with_jitter(&a, JitterPolicy::default())?;
    let alpha = chol.solve_vec(y)?;
    let value = super::log_ml_value(y, &alpha, chol.log_det());
    if !with_gradient {
        return Ok(LogMarginal { value, gradient: Vec::new() });
    }
    // Q = ααᵀ − A⁻¹; each gradient entry is ½ Σ_ik Q_ik (∂A/∂θ_p)_ik.
    let mut q = chol.inverse();
    q.ger(1.0, &alpha, &alpha, -1.0);
    let mut gradient: Vec<f64> = kernel.log_lengthscale_grad_contraction(x, &q)?.iter().map(|c| 0.5 * c).collect();
    gradient.push(0.5 * q.dot(&k));
    gradient.push(0.5 * noise * q.trace());
    Ok(LogMarginal { value, gradient })
}

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

/// Settings of [`fit_hyperparameters`]. Every bound and value is in working units (inputs scaled to
/// [0, 1]^d if [`HyperFitConfig::scale_inputs`], targets standardised if
/// [`HyperFitConfig::standardise_outputs`]).
///
/// Defaults follow BoTorch's current `SingleTaskGP` defaults where it has one (dimension-scaled
/// lengthscale prior, floor 0.025, noise ≥ 1e-4, unit signal variance on standardised outputs,
/// inputs in [0, 1]^d) — COBOL's protocol (/work/shared/papers/notes/004_expert-bo.md §"Scaling").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HyperFitConfig {
    /// One lengthscale per input dimension (ARD, default) or one shared lengthscale.
    pub ard: bool,
    /// [lower, upper] for every lengthscale; 0 < lower < upper. Default [0.01, 100].
    pub lengthscale_bounds: [f64; 2],
    /// A floor on every lengthscale: the effective lower bound is max(lower, floor), against the
    /// lengthscale collapse of small data sets. 0 disables it. Default 0.025 (BoTorch's
    /// `GreaterThan(2.5e-2)` constraint).
    pub lengthscale_floor: f64,
    /// The lengthscale prior. Default [`LengthscalePrior::DimScaledLogNormal`].
    pub lengthscale_prior: LengthscalePrior,
    /// Learn the signal variance σ² (within `variance_bounds`); false (default): σ² stays at the
    /// start kernel's (1 on standardised targets, as BoTorch's default kernel has no output scale).
    pub learn_variance: bool,
    /// [lower, upper] for a learned σ²; 0 < lower < upper (checked only if learned). Default
    /// [0.05, 20].
    pub variance_bounds: [f64; 2],
    /// Learn the noise variance ρ (within `noise_bounds`, default true); false: ρ stays at the
    /// start value.
    pub learn_noise: bool,
    /// [lower, upper] for a learned ρ (checked only if learned). Default [1e-4, 10] (1e-4 is
    /// BoTorch's `MIN_INFERRED_NOISE_LEVEL`).
    pub noise_bounds: [f64; 2],
    /// Space-filling starts refined in addition to the start hyperparameters: the best of the
    /// `screen` Sobol points of the log-space box by objective value (0: only the start is
    /// refined). Default 1 (BoTorch's `fit_gpytorch_mll` refines the current values only).
    pub restarts: usize,
    /// Scrambled Sobol points of the log-space box whose objective values (no gradient, n³/3 flops
    /// each) choose the `restarts` extra starts; ≥ `restarts`. Default 16.
    pub screen: usize,
    /// Scale inputs to [0, 1]^d by the box given to the fit (x ↦ (x − lower)/(upper − lower)).
    /// Default true; the fit then needs the box.
    pub scale_inputs: bool,
    /// Standardise targets to mean 0, standard deviation 1 (sample standard deviation, n − 1).
    /// Default true.
    pub standardise_outputs: bool,
    /// The local refinement of each start. Default: 200 iterations, memory 10, projected-gradient
    /// tolerance 1e-5 and relative value tolerance 2.2e-9 (SciPy L-BFGS-B's `pgtol` and
    /// `factr`·ε, as GPy and scikit-learn use for this fit).
    pub local: LocalConfig,
    /// Refit every this many new observations (≥ 1): COMP-GP-UCB refits every 5 (label GP) and 20
    /// (comparison GP) iterations (notes/002_comp-gp-ucb.md §5.3). Default 1.
    pub refit_every: usize,
}

impl Default for HyperFitConfig {
    fn default() -> Self {
        Self {
            ard: true,
            lengthscale_bounds: [0.01, 100.0],
            lengthscale_floor: 0.025,
            lengthscale_prior: LengthscalePrior::DimScaledLogNormal,
            learn_variance: false,
            variance_bounds: [0.05, 20.0],
            learn_noise: true,
            noise_bounds: [1e-4, 10.0],
            restarts: 1,
            screen: 16,
            scale_inputs: true,
            standardise_outputs: true,
            local: LocalConfig { gradient_tolerance: 1e-5, value_tolerance: 2.2e-9, ..LocalConfig::default() },
            refit_every: 1,
        }
    }
}

bohf_core::validated! {
    /// A [`HyperFitConfig`] that passed [`HyperFitConfig::check`].
    pub struct ValidHyperFitConfig(HyperFitConfig);
}

/// Errors unless `[lo, hi]` is finite with 0 < lo < hi, naming `name`.
pub(crate) fn check_bounds(name: &str, [lo, hi]: [f64; 2]) -> Result<()> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo < hi) {
        return Err(Error::invalid(name, format!("must be finite with 0 < lower < upper, got [{lo}, {hi}]")));
    }
    Ok(())
}

/// The lengthscale range of a fit: `lengthscale_bounds` (0 < lower < upper, finite) and
/// `lengthscale_floor` (finite, ≥ 0, below the upper bound); errors name the field.
pub(crate) fn check_lengthscale_range(bounds: [f64; 2], floor: f64) -> Result<()> {
    check_bounds("lengthscale_bounds", bounds)?;
    if !(floor.is_finite() && floor >= 0.0 && floor < bounds[1]) {
        return Err(Error::invalid(
            "lengthscale_floor",
            format!("must be finite, ≥ 0 and below the upper lengthscale bound {}, got {floor}", bounds[1]),
        ));
    }
    Ok(())
}

impl HyperFitConfig {
    /// Checks every field; the error names the first invalid one (`lengthscale_bounds`,
    /// `lengthscale_floor`, `lengthscale_prior.scale`, `variance_bounds`, `noise_bounds`,
    /// `refit_every`).
    pub fn check(&self) -> Result<ValidHyperFitConfig> {
        check_lengthscale_range(self.lengthscale_bounds, self.lengthscale_floor)?;
        self.lengthscale_prior.check()?;
        if self.learn_variance {
            check_bounds("variance_bounds", self.variance_bounds)?;
        }
        if self.learn_noise {
            check_bounds("noise_bounds", self.noise_bounds)?;
        }
        if self.screen < self.restarts {
            return Err(Error::invalid(
                "screen",
                format!("must be ≥ restarts ({}) to choose that many starts, got {}", self.restarts, self.screen),
            ));
        }
        self.local.check().at("local")?;
        if self.refit_every == 0 {
            return Err(Error::invalid("refit_every", "must be ≥ 1"));
        }
        Ok(ValidHyperFitConfig(self.clone()))
    }

    /// Checks every bound pair, learned or not (`lengthscale_bounds`, `variance_bounds`,
    /// `noise_bounds`), naming the invalid entry (`noise_bounds[1]`): 0 < lower finite, then
    /// lower < upper finite. For configs read from a file, so that no invalid value passes
    /// silently even where [`HyperFitConfig::check`] ignores it (a pair that is not learned).
    pub fn check_bound_entries(&self) -> Result<()> {
        check_bound_entries(&[
            ("lengthscale_bounds", self.lengthscale_bounds),
            ("variance_bounds", self.variance_bounds),
            ("noise_bounds", self.noise_bounds),
        ])
    }

    /// The effective lengthscale bounds [max(lower, floor), upper].
    pub fn effective_lengthscale_bounds(&self) -> [f64; 2] {
        [self.lengthscale_bounds[0].max(self.lengthscale_floor), self.lengthscale_bounds[1]]
    }

    /// Whether a refit is due with `observations` observations when the last fit used
    /// `last_fit` of them (`None`: never fitted): the first fit once there are 2 observations,
    /// then every [`HyperFitConfig::refit_every`] new ones.
    pub fn refit_due(&self, observations: usize, last_fit: Option<usize>) -> bool {
        match last_fit {
            None => observations >= 2,
            Some(l) => observations >= l + self.refit_every,
        }
    }
}

/// Checks named bound pairs `[lower, upper]`, naming the invalid entry (`noise_bounds[1]`):
/// 0 < lower finite, then lower < upper finite. The one check of the bound entries of
/// [`HyperFitConfig::check_bound_entries`] and [`crate::LaplaceFitConfig::check_bound_entries`].
pub(crate) fn check_bound_entries(pairs: &[(&str, [f64; 2])]) -> Result<()> {
    for &(name, [lo, hi]) in pairs {
        let entry = if !(lo.is_finite() && lo > 0.0) {
            Some(0)
        } else if !(hi.is_finite() && hi > lo) {
            Some(1)
        } else {
            None
        };
        if let Some(k) = entry {
            return Err(Error::invalid(
                format!("{name}[{k}]"),
                format!("must be finite with 0 < lower < upper, got [{lo}, {hi}]"),
            ));
        }
    }
    Ok(())
}

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
fn mean_and_sd(y: &DVector<f64>) -> Option<(f64, f64)> {
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

/// Why [`fit_hyperparameters`] returned the start hyperparameters unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// Fewer than 2 observations: the likelihood does not identify a lengthscale.
    TooFewPoints,
    /// All targets equal (standard deviation ≤ [`CONSTANT_TARGETS_TOLERANCE`]·max(1, |mean|)): there
    /// is no variation to fit; the likelihood would only push ℓ to its upper bound.
    ConstantTargets,
    /// No start gave a finite objective and gradient after refinement (the start itself is kept).
    NoFiniteOptimum,
}

/// How the hyperparameters of a [`HyperFit`] were obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitOutcome {
    /// The best of the refined starts.
    Optimised {
        /// Starts refined (the start hyperparameters + the space-filling ones).
        starts: usize,
        /// Objective evaluations: the screened Sobol points (value only) and every evaluation of
        /// the local searches (value and gradient).
        evaluations: usize,
    },
    /// The start hyperparameters, for the reason given.
    Fallback(Fallback),
}

/// The result of [`fit_hyperparameters`], in working units.
#[derive(Debug, Clone, PartialEq)]
pub struct HyperFit {
    /// The kernel with the fitted lengthscales (and variance, if learned).
    pub kernel: Stationary,
    /// The fitted (or fixed) noise variance ρ.
    pub noise: f64,
    /// log p(y | θ) at the result (NaN-free; −∞ never returned: a fallback keeps the start).
    pub log_marginal: f64,
    /// The objective maximised: log p(y | θ) + Σ_j log p(ℓ_j).
    pub objective: f64,
    /// Original ↔ working units.
    pub transform: DataTransform,
    /// Optimised, or which fallback applied.
    pub outcome: FitOutcome,
}

impl HyperFit {
    /// The GP regression posterior with the fitted hyperparameters on (`x`, `y`) given in original
    /// units (transformed to working units first); query it with [`DataTransform::inputs`] and map
    /// its mean and variance back with [`DataTransform::mean_to_original`] /
    /// [`DataTransform::variance_to_original`].
    pub fn regression(&self, x: &DMatrix<f64>, y: &DVector<f64>) -> Result<GpRegression<Stationary>> {
        GpRegression::fit(self.kernel.clone(), &self.transform.inputs(x)?, &self.transform.targets(y), self.noise)
    }
}

/// The negative log posterior −(log p(y | θ) + Σ log p(ℓ_j)) over the free coordinates of θ in
/// working units: the function the fit minimises.
#[derive(Debug, Clone)]
pub(crate) struct HyperObjective {
    x: DMatrix<f64>,
    y: DVector<f64>,
    start: Stationary,
    noise: f64,
    prior: LengthscalePrior,
    learn_variance: bool,
    learn_noise: bool,
}

impl HyperObjective {
    /// The number of free coordinates: m lengthscales, then log σ² if learned, then log ρ if learned.
    pub(crate) fn dim(&self) -> usize {
        self.start.lengthscales().len() + usize::from(self.learn_variance) + usize::from(self.learn_noise)
    }

    /// The free coordinates of a kernel and noise (logs).
    pub(crate) fn encode(&self, kernel: &Stationary, noise: f64) -> Vec<f64> {
        let mut t: Vec<f64> = kernel.lengthscales().iter().map(|l| l.ln()).collect();
        if self.learn_variance {
            t.push(kernel.variance().ln());
        }
        if self.learn_noise {
            t.push(noise.ln());
        }
        t
    }

    /// The kernel and noise at free coordinates `theta` (fixed parts from the start).
    pub(crate) fn decode(&self, theta: &[f64]) -> Result<(Stationary, f64)> {
        let m = self.start.lengthscales().len();
        let ls: Vec<f64> = theta[..m].iter().map(|t| t.exp()).collect();
        let mut kernel = if m == 1 {
            Stationary::new(self.start.kind(), ls[0])?
        } else {
            Stationary::new(self.start.kind(), ls[0])?.with_ard(ls)?
        };
        let mut i = m;
        kernel = kernel.with_variance(if self.learn_variance {
            i += 1;
            theta[i - 1].exp()
        } else {
            self.start.variance()
        })?;
        let noise = if self.learn_noise { theta[i].exp() } else { self.noise };
        Ok((kernel, noise))
    }

    /// The objective (negative log posterior) at `theta`, without its gradient.
    pub(crate) fn value(&self, theta: &[f64]) -> Result<f64> {
        let (kernel, noise) = self.decode(theta)?;
        let lm = log_marginal(&kernel, &self.x, &self.y, noise, false)?;
        let d = self.x.ncols();
        let prior: f64 = theta[..kernel.lengthscales().len()].iter().map(|t| self.prior.log_density(d, *t).0).sum();
        Ok(-(lm.value + prior))
    }

    /// (objective, log marginal likelihood) at `theta`, writing the objective's gradient into
    /// `grad`. The objective is the negative log posterior.
    pub(crate) fn evaluate(&self, theta: &[f64], grad: &mut [f64]) -> Result<(f64, f64)> {
        let (kernel, noise) = self.decode(theta)?;
        let lm = log_marginal_likelihood(&kernel, &self.x, &self.y, noise)?;
        let m = kernel.lengthscales().len();
        let d = self.x.ncols();
        let mut log_post = lm.value;
        for j in 0..m {
            let (lp, dlp) = self.prior.log_density(d, theta[j]);
            log_post += lp;
            grad[j] = -(lm.gradient[j] + dlp);
        }
        let mut i = m;
        if self.learn_variance {
            grad[i] = -lm.gradient[m];
            i += 1;
        }
        if self.learn_noise {
            grad[i] = -lm.gradient[m + 1];
        }
        Ok((-log_post, lm.value))
    }
}

/// Fits the hyperparameters of GP regression on the rows of `x` (n×d) and targets `y`, starting
/// from `start` (its kind is kept; an isotropic start is expanded to d equal lengthscales when
/// `config.ard`) and noise `start_noise`, both in working units. `domain` is the box the inputs
/// live in (needed when `config.scale_inputs`).
///
/// The objective log p(y | θ) + Σ_j log p(ℓ_j) is maximised over θ = log hyperparameters within
/// the log of the bounds: the start and the `config.restarts` best of `config.screen` scrambled
/// Sobol points of the log box (by objective value) are each refined by the projected L-BFGS of
/// [`bohf_optim::minimize_bounded`] with the analytic gradient, and the best finite result wins
/// (ties: the earliest start). Deterministic: the Sobol scramble seed is fixed and the parallel
/// local searches are combined in start order, whatever the thread count.
///
/// Fallbacks (documented in docs/gp.md; the start is returned, never NaN): fewer than 2 points
/// ([`Fallback::TooFewPoints`]), constant targets ([`Fallback::ConstantTargets`]), no finite result
/// ([`Fallback::NoFiniteOptimum`]). Duplicated inputs need no fallback: ρ > 0 keeps K + ρI
/// positive definite.
///
/// Errors: a start outside the bounds (naming `lengthscale_bounds`, `lengthscale_floor`,
/// `variance_bounds` or `noise_bounds`), an isotropic config with an ARD start (`ard`), dimension
/// mismatches, non-finite data, `scale_inputs` without a box, `restarts` > 0 with more
/// hyperparameters than the Sobol design supports ([`MAX_SOBOL_DIM`]), and a failed Cholesky
/// factorisation at the start when a fallback has to evaluate it.
pub fn fit_hyperparameters(
    config: &ValidHyperFitConfig,
    start: &Stationary,
    start_noise: f64,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    domain: Option<&BoxDomain>,
) -> Result<HyperFit> {
    let d = x.ncols();
    if x.nrows() != y.len() {
        return Err(Error::dims("hyperparameter fit: targets vs input points", x.nrows(), y.len()));
    }
    bohf_core::error::ensure_finite("hyperparameter fit inputs", x.iter())?;
    bohf_core::error::ensure_finite("hyperparameter fit targets", y.iter())?;
    ensure_positive("start_noise", start_noise)?;
    let start = start_kernel(config, start, d)?;
    check_start(config, &start, start_noise)?;
    let transform = DataTransform::new(config, d, domain, y)?;
    let objective = HyperObjective {
        x: transform.inputs(x)?,
        y: transform.targets(y),
        start: start.clone(),
        noise: start_noise,
        prior: config.lengthscale_prior.clone(),
        learn_variance: config.learn_variance,
        learn_noise: config.learn_noise,
    };
    let fallback = |reason: Fallback| -> Result<HyperFit> {
        let mut grad = vec![0.0; objective.dim()];
        let (obj, lml) = objective.evaluate(&objective.encode(&start, start_noise), &mut grad)?;
        Ok(HyperFit {
            kernel: start.clone(),
            noise: start_noise,
            log_marginal: lml,
            objective: -obj,
            transform: transform.clone(),
            outcome: FitOutcome::Fallback(reason),
        })
    };
    if y.len() < 2 {
        return fallback(Fallback::TooFewPoints);
    }
    if mean_and_sd(y).is_none() {
        return fallback(Fallback::ConstantTargets);
    }
    let (lower, upper) = log_box(config, &objective);
    let theta0 = objective.encode(&start, start_noise);
    let start = Start { theta: &theta0, curvature: &[] };
    match optimise(&objective, start, &lower, &upper, config.restarts, config.screen, &config.local)? {
        None => fallback(Fallback::NoFiniteOptimum),
        Some(best) => {
            let (kernel, noise) = objective.decode(&best.theta)?;
            Ok(HyperFit {
                kernel,
                noise,
                log_marginal: best.log_marginal,
                objective: -best.value,
                transform,
                outcome: FitOutcome::Optimised { starts: best.starts, evaluations: best.evaluations },
            })
        }
    }
}

/// The start kernel with the config's lengthscale layout.
pub(super) fn start_kernel(config: &HyperFitConfig, start: &Stationary, d: usize) -> Result<Stationary> {
    let ls = start.lengthscales();
    match (config.ard, ls.len()) {
        (true, 1) if d > 1 => {
            Stationary::new(start.kind(), ls[0])?.with_ard(vec![ls[0]; d])?.with_variance(start.variance())
        }
        (true, m) if m != d => Err(Error::dims("hyperparameter fit: start lengthscales vs point dimension", d, m)),
        (false, m) if m > 1 => Err(Error::invalid(
            "ard",
            format!(
                "the start kernel has {m} ARD lengthscales but the config fits one shared lengthscale (ard = false)"
            ),
        )),
        _ => Ok(start.clone()),
    }
}

pub(super) fn check_start(config: &HyperFitConfig, start: &Stationary, noise: f64) -> Result<()> {
    let [lo, hi] = config.effective_lengthscale_bounds();
    for (j, &l) in start.lengthscales().iter().enumerate() {
        if l < lo || l > hi {
            let field =
                if l < config.lengthscale_bounds[0] || l > hi { "lengthscale_bounds" } else { "lengthscale_floor" };
            return Err(Error::invalid(
                field,
                format!("the start lengthscale[{j}] = {l} lies outside the effective bounds [{lo}, {hi}]"),
            ));
        }
    }
    let inside = |name: &str, what: &str, v: f64, learned: bool, [lo, hi]: [f64; 2]| {
        if learned && (v < lo || v > hi) {
            return Err(Error::invalid(name, format!("the start {what} {v} lies outside the bounds [{lo}, {hi}]")));
        }
        Ok(())
    };
    inside("variance_bounds", "variance", start.variance(), config.learn_variance, config.variance_bounds)?;
    inside("noise_bounds", "noise", noise, config.learn_noise, config.noise_bounds)
}

/// The log-space box of the free coordinates.
fn log_box(config: &HyperFitConfig, objective: &HyperObjective) -> (Vec<f64>, Vec<f64>) {
    let [lo, hi] = config.effective_lengthscale_bounds();
    let m = objective.start.lengthscales().len();
    let mut lower = vec![lo.ln(); m];
    let mut upper = vec![hi.ln(); m];
    let learned = [(config.learn_variance, config.variance_bounds), (config.learn_noise, config.noise_bounds)];
    for (_, b) in learned.into_iter().filter(|(l, _)| *l) {
        lower.push(b[0].ln());
        upper.push(b[1].ln());
    }
    (lower, upper)
}

/// One refined start: the local result, its objective and log evidence, and its warm state.
type Refined<W> = (LocalResult, f64, f64, W);

/// The best refined start.
pub(crate) struct Best<W> {
    /// The free coordinates.
    pub(crate) theta: Vec<f64>,
    /// The objective (minimised) there.
    pub(crate) value: f64,
    /// The second figure of [`LogSpaceObjective::evaluate`] there (the log evidence).
    pub(crate) log_marginal: f64,
    /// Starts refined.
    pub(crate) starts: usize,
    /// Objective evaluations in total.
    pub(crate) evaluations: usize,
    /// The warm-start state of the best start's search after its last evaluation (at `theta`).
    pub(crate) warm: W,
    /// The L-BFGS memory of the best start's search at its end ([`LocalResult::curvature`]).
    pub(crate) curvature: Vec<(Vec<f64>, Vec<f64>)>,
}

/// The given start of [`optimise`]: the free coordinates and L-BFGS curvature pairs (s, y) for its
/// search ([`bohf_optim::minimize_bounded_warm`]; empty: none, a plain L-BFGS search).
#[derive(Clone, Copy)]
pub(crate) struct Start<'a> {
    pub(crate) theta: &'a [f64],
    pub(crate) curvature: &'a [(Vec<f64>, Vec<f64>)],
}

/// A negative log posterior over log hyperparameters, minimised by [`optimise`]: GP regression's
/// [`HyperObjective`] and the Laplace preference GP's evidence objective.
pub(crate) trait LogSpaceObjective: Sync {
    /// State carried from one evaluation to the next within one local search (a warm start); each
    /// start begins from `Default`, so a search is a function of its start alone.
    type Warm: Default + Send;
    /// The objective alone (for screening the space-filling design).
    fn value(&self, theta: &[f64]) -> Result<f64>;
    /// (objective, log evidence) at `theta`, writing the objective's gradient into `grad`.
    fn evaluate(&self, warm: &mut Self::Warm, theta: &[f64], grad: &mut [f64]) -> Result<(f64, f64)>;
}

impl LogSpaceObjective for HyperObjective {
    type Warm = ();
    fn value(&self, theta: &[f64]) -> Result<f64> {
        HyperObjective::value(self, theta)
    }
    fn evaluate(&self, _: &mut (), theta: &[f64], grad: &mut [f64]) -> Result<(f64, f64)> {
        HyperObjective::evaluate(self, theta, grad)
    }
}

/// Multistart bounded minimisation of the objective; `None` if no start reached a finite value.
/// Starts: `start` (its search with `start.curvature` as the initial L-BFGS memory), then the `restarts` best (lowest objective value, ties: earlier) of `screen`
/// scrambled Sobol points of the box. The local searches run in parallel (rayon); each is
/// sequential and the best is chosen in start order, so the result does not depend on the number
/// of threads.
pub(crate) fn optimise<O: LogSpaceObjective>(
    objective: &O,
    start: Start<'_>,
    lower: &[f64],
    upper: &[f64],
    restarts: usize,
    screen: usize,
    local: &LocalConfig,
) -> Result<Option<Best<O::Warm>>> {
    let mut starts = vec![start.theta.to_vec()];
    let mut evaluations = 0;
    if restarts > 0 {
        if lower.len() > MAX_SOBOL_DIM {
            return Err(Error::invalid(
                "restarts",
                format!(
                    "the Sobol starts support at most {MAX_SOBOL_DIM} hyperparameters, this fit has {}: set restarts = 0",
                    lower.len()
                ),
            ));
        }
        let domain = BoxDomain::new(lower.to_vec(), upper.to_vec())?;
        let design = sobol_design(&domain, screen, &mut bohf_core::rng::seeded(START_DESIGN_SEED))?;
        let mut scored: Vec<(usize, f64)> = design
            .iter()
            .enumerate()
            .map(|(i, t)| (i, objective.value(t).unwrap_or(f64::INFINITY)))
            .filter(|(_, v)| v.is_finite())
            .collect();
        evaluations += design.len();
        scored.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        starts.extend(scored.iter().take(restarts).map(|&(i, _)| design[i].clone()));
    }
    let refined: Vec<Option<Refined<O::Warm>>> = starts
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            // An objective that fails (K + ρI not positive definite even with jitter) reads as +∞,
            // which the line search treats as a rejected step; a start where it fails is skipped.
            let mut warm = O::Warm::default();
            let f = |t: &[f64], g: &mut [f64]| -> Result<f64> {
                Ok(objective.evaluate(&mut warm, t, g).map_or(f64::INFINITY, |(v, _)| v))
            };
            let curvature = if i == 0 { start.curvature } else { &[] };
            let r = minimize_bounded_warm(f, s, lower, upper, local, curvature).ok()?;
            // The log marginal likelihood at the returned point (the last evaluation need not be there).
            let mut g = vec![0.0; r.x.len()];
            let (value, lml) = objective.evaluate(&mut warm, &r.x, &mut g).ok()?;
            (value.is_finite() && lml.is_finite()).then_some((r, value, lml, warm))
        })
        .collect();
    let mut best: Option<Best<O::Warm>> = None;
    for (r, value, lml, warm) in refined.into_iter().flatten() {
        evaluations += r.evaluations + 1;
        if best.as_ref().is_none_or(|b| value < b.value) {
            let (theta, curvature) = (r.x, r.curvature);
            best =
                Some(Best { theta, value, log_marginal: lml, starts: starts.len(), evaluations: 0, warm, curvature });
        }
    }
    Ok(best.map(|b| Best { evaluations, ..b }))
}

/// The scramble seed of the space-filling starts: fixed, so that a fit is a function of its data.
const START_DESIGN_SEED: u64 = 0x0068_7970_6572;

#[cfg(test)]
mod tests;
