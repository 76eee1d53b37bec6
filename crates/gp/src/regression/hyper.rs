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

mod config;
mod likelihood;
mod prior;
mod transform;

pub use config::{HyperFitConfig, ValidHyperFitConfig};
pub(crate) use config::{check_bound_entries, check_bounds, check_lengthscale_range};
use likelihood::log_marginal;
pub use likelihood::{LogMarginal, log_marginal_likelihood};
pub use prior::LengthscalePrior;
pub(crate) use prior::{check_prior_parameters, gamma_log_density, log_normal_log_density};
use transform::mean_and_sd;
pub use transform::{CONSTANT_TARGETS_TOLERANCE, DataTransform};
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
