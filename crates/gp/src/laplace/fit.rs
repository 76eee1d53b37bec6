//! Hyperparameters of the Laplace preference GP by maximum Laplace evidence with named priors.

use super::data::PreferenceData;
use super::model::{LaplaceConfig, LaplacePreferenceGp};
use crate::regression::hyper::{
    LengthscalePrior, LogSpaceObjective, Start, check_bound_entries, check_bounds, check_lengthscale_range,
    check_prior_parameters, gamma_log_density, log_normal_log_density, optimise,
};
use bohf_core::{AtField, Error, Result};
use bohf_kernels::{KernelKind, Stationary};
use bohf_optim::{LocalConfig, MAX_SOBOL_DIM};
use nalgebra::DVector;
use serde::{Deserialize, Serialize};

/// A prior on the outputscale σ² (the kernel variance), added to the log evidence as log p(σ²) at
/// σ² (GPyTorch's convention: no Jacobian of the log parametrisation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum OutputscalePrior {
    /// Flat within [`LaplaceFitConfig::outputscale_bounds`]. With bounds [0.01, 100] this is
    /// BoTorch `PairwiseGP`'s `SmoothedBoxPrior(a = 0.01, b = 100)`, which is flat inside its box
    /// (its Gaussian tails outside the box are replaced by the hard bounds).
    None,
    /// σ² ~ Gamma(shape a = `concentration`, rate b = `rate`).
    Gamma {
        /// a > 0.
        concentration: f64,
        /// b > 0.
        rate: f64,
    },
    /// log σ² ~ N(`loc`, `scale`²).
    LogNormal {
        /// The mean of log σ².
        loc: f64,
        /// s > 0, the standard deviation of log σ².
        scale: f64,
    },
}

impl OutputscalePrior {
    /// log p(σ²) at θ = log σ² and d/dθ.
    fn log_density(&self, theta: f64) -> (f64, f64) {
        match *self {
            Self::None => (0.0, 0.0),
            Self::Gamma { concentration, rate } => gamma_log_density(concentration, rate, theta),
            Self::LogNormal { loc, scale } => log_normal_log_density(loc, scale, theta),
        }
    }

    fn check(&self) -> Result<()> {
        match *self {
            Self::None => Ok(()),
            Self::Gamma { concentration, rate } => {
                check_prior_parameters("outputscale_prior", &[], &[("concentration", concentration), ("rate", rate)])
            }
            Self::LogNormal { loc, scale } => {
                check_prior_parameters("outputscale_prior", &[("loc", loc)], &[("scale", scale)])
            }
        }
    }
}

/// Settings of [`fit_laplace`]. Lengthscales are in the units of the points given to the model;
/// scale box inputs to [0, 1]^d first ([`crate::regression::DataTransform`]), as the priors and
/// bounds assume.
///
/// Two named choices: [`LaplaceFitConfig::default`] (the robust default: BoTorch's
/// dimension-scaled log-normal lengthscale prior of `SingleTaskGP` with the floor 0.025) and
/// [`LaplaceFitConfig::botorch_pairwise`] (BoTorch `PairwiseGP`'s own defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LaplaceFitConfig {
    /// The likelihood (link, scale) and the Newton iteration.
    pub laplace: LaplaceConfig,
    /// One lengthscale per input dimension (ARD, default) or one shared lengthscale.
    pub ard: bool,
    /// [lower, upper] for every lengthscale; 0 < lower < upper. Default [0.01, 100].
    pub lengthscale_bounds: [f64; 2],
    /// The effective lower bound is max(lower, floor), against lengthscale collapse. Default 0.025.
    pub lengthscale_floor: f64,
    /// The lengthscale prior. Default [`LengthscalePrior::DimScaledLogNormal`].
    pub lengthscale_prior: LengthscalePrior,
    /// Learn the outputscale σ² (default true); false keeps the start kernel's variance.
    pub learn_outputscale: bool,
    /// [lower, upper] for σ² (checked only if learned). Default [0.01, 100].
    pub outputscale_bounds: [f64; 2],
    /// The outputscale prior. Default [`OutputscalePrior::None`] (flat within the bounds).
    pub outputscale_prior: OutputscalePrior,
    /// Extra starts: the best `restarts` of `screen` scrambled Sobol points of the log box, refined
    /// after the given start. Default 0 (refine the start only, as BoTorch's `fit_gpytorch_mll`).
    pub restarts: usize,
    /// Sobol points screened by evidence value (≥ `restarts`). Default 16.
    pub screen: usize,
    /// The local refinement (projected L-BFGS of bohf-optim). Default: 200 iterations, memory 10,
    /// projected-gradient tolerance 10⁻⁵, relative value tolerance 2.2·10⁻⁹ (SciPy L-BFGS-B's
    /// `pgtol` and `factr`·ε, BoTorch's fit).
    pub local: LocalConfig,
}

impl Default for LaplaceFitConfig {
    fn default() -> Self {
        Self {
            laplace: LaplaceConfig::default(),
            ard: true,
            lengthscale_bounds: [0.01, 100.0],
            lengthscale_floor: 0.025,
            lengthscale_prior: LengthscalePrior::DimScaledLogNormal,
            learn_outputscale: true,
            outputscale_bounds: [0.01, 100.0],
            outputscale_prior: OutputscalePrior::None,
            restarts: 0,
            screen: 16,
            local: LocalConfig { gradient_tolerance: 1e-5, value_tolerance: 2.2e-9, ..LocalConfig::default() },
        }
    }
}

bohf_core::validated! {
    /// A [`LaplaceFitConfig`] that passed [`LaplaceFitConfig::check`].
    pub struct ValidLaplaceFitConfig(LaplaceFitConfig);
}

impl LaplaceFitConfig {
    /// BoTorch `PairwiseGP`'s defaults (botorch/models/pairwise_gp.py): lengthscale prior
    /// Gamma(concentration 2.4, rate 2.7), lengthscale lower bound 10⁻⁴ (`GreaterThan(1e-4)`, no
    /// further floor), outputscale flat on [0.01, 100] (`SmoothedBoxPrior(0.01, 100)`), probit
    /// likelihood Φ(Δ/√2).
    pub fn botorch_pairwise() -> Self {
        Self {
            lengthscale_bounds: [1e-4, 100.0],
            lengthscale_floor: 0.0,
            lengthscale_prior: LengthscalePrior::Gamma { concentration: 2.4, rate: 2.7 },
            ..Self::default()
        }
    }

    /// Checks every field; errors name the first invalid one (`laplace.scale`, …,
    /// `lengthscale_bounds`, `lengthscale_floor`, `lengthscale_prior.<parameter>`,
    /// `outputscale_bounds`, `outputscale_prior.<parameter>`, `screen`, `local.<field>`).
    pub fn check(&self) -> Result<ValidLaplaceFitConfig> {
        self.laplace.check().at("laplace")?;
        check_lengthscale_range(self.lengthscale_bounds, self.lengthscale_floor)?;
        self.lengthscale_prior.check()?;
        if self.learn_outputscale {
            check_bounds("outputscale_bounds", self.outputscale_bounds)?;
        }
        self.outputscale_prior.check()?;
        if self.screen < self.restarts {
            return Err(Error::invalid(
                "screen",
                format!("must be ≥ restarts ({}) to choose that many starts, got {}", self.restarts, self.screen),
            ));
        }
        self.local.check().at("local")?;
        Ok(ValidLaplaceFitConfig(self.clone()))
    }

    /// Checks both bound pairs, the outputscale's even when it is not learned, naming the invalid
    /// entry (`lengthscale_bounds[0]`, `outputscale_bounds[1]`): 0 < lower finite, then lower < upper
    /// finite. For configs read from a file, so that no invalid value passes silently.
    pub fn check_bound_entries(&self) -> Result<()> {
        check_bound_entries(&[
            ("lengthscale_bounds", self.lengthscale_bounds),
            ("outputscale_bounds", self.outputscale_bounds),
        ])
    }

    /// The effective lengthscale bounds [max(lower, floor), upper].
    pub fn effective_lengthscale_bounds(&self) -> [f64; 2] {
        [self.lengthscale_bounds[0].max(self.lengthscale_floor), self.lengthscale_bounds[1]]
    }

    /// A start kernel of kind `kind` in dimension `d`: every lengthscale at the prior's mode (1
    /// without a prior), clamped into the effective bounds; outputscale 1 clamped into its bounds.
    pub fn start_kernel(&self, kind: KernelKind, d: usize) -> Result<Stationary> {
        let [lo, hi] = self.effective_lengthscale_bounds();
        let l = self.lengthscale_prior.mode(d).unwrap_or(1.0).clamp(lo, hi);
        let mut k = Stationary::new(kind, l)?;
        if self.ard && d > 1 {
            k = k.with_ard(vec![l; d])?;
        }
        let v = if self.learn_outputscale {
            1f64.clamp(self.outputscale_bounds[0], self.outputscale_bounds[1])
        } else {
            1.0
        };
        k.with_variance(v)
    }
}

/// How the hyperparameters of a [`LaplaceFit`] were obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaplaceFitOutcome {
    /// The best of the refined starts.
    Optimised {
        /// Starts refined.
        starts: usize,
        /// Evidence evaluations (screening and local searches).
        evaluations: usize,
    },
    /// No duel or choice between distinct points: the start kernel is kept (the evidence is constant).
    NoInformation,
    /// No start gave a finite objective after refinement: the start kernel is kept.
    NoFiniteOptimum,
}

/// The result of [`fit_laplace`].
#[derive(Debug, Clone)]
pub struct LaplaceFit {
    /// The Laplace model at the fitted hyperparameters.
    pub model: LaplacePreferenceGp,
    /// The objective maximised there: log q(y | θ) + Σ_j log p(ℓ_j) + log p(σ²).
    pub objective: f64,
    /// How the hyperparameters were obtained.
    pub outcome: LaplaceFitOutcome,
    /// The L-BFGS memory of the best search at its end, pairs (s, y) in the log hyperparameters
    /// ([`bohf_optim::LocalResult::curvature`]; empty if no search ran): the start of the next
    /// refit's search ([`fit_laplace_refit`]).
    pub curvature: Vec<(Vec<f64>, Vec<f64>)>,
}

/// The negative log posterior of the hyperparameters: −(log q(y | θ) + priors).
struct EvidenceObjective<'a> {
    data: &'a PreferenceData,
    config: &'a LaplaceFitConfig,
    start: Stationary,
    /// Utilities near the mode that start each search's first Newton iteration
    /// ([`fit_laplace_warm`]); later evaluations start from the previous one's.
    f0: Option<&'a DVector<f64>>,
}

impl EvidenceObjective<'_> {
    fn dim(&self) -> usize {
        self.start.lengthscales().len() + usize::from(self.config.learn_outputscale)
    }

    fn encode(&self, k: &Stationary) -> Vec<f64> {
        let mut t: Vec<f64> = k.lengthscales().iter().map(|l| l.ln()).collect();
        if self.config.learn_outputscale {
            t.push(k.variance().ln());
        }
        t
    }

    /// The kernel at log-hyperparameters `theta`, clamped into the bounds: exp(ln b) can round just
    /// outside b (exp(ln 100) = 100.00000000000004), and a fitted kernel must be a valid start of
    /// the next fit.
    fn decode(&self, theta: &[f64]) -> Result<Stationary> {
        let m = self.start.lengthscales().len();
        let [lo, hi] = self.config.effective_lengthscale_bounds();
        let [vlo, vhi] = self.config.outputscale_bounds;
        let ls: Vec<f64> = theta[..m].iter().map(|t| t.exp().clamp(lo, hi)).collect();
        let k = if m == 1 {
            Stationary::new(self.start.kind(), ls[0])?
        } else {
            Stationary::new(self.start.kind(), ls[0])?.with_ard(ls)?
        };
        k.with_variance(if self.config.learn_outputscale {
            theta[m].exp().clamp(vlo, vhi)
        } else {
            self.start.variance()
        })
    }

    fn model(&self, theta: &[f64]) -> Result<LaplacePreferenceGp> {
        LaplacePreferenceGp::fit_from(self.decode(theta)?, self.data.clone(), &self.config.laplace, None)
    }

    /// The model at `theta` with Newton started from the previous evaluation's utilities f̂ (the mode
    /// to the Newton tolerance, in fewer steps), kept in `warm` as its last evaluation; nothing is
    /// recomputed if `theta` is the last evaluation's (bit for bit).
    fn model_warm<'w>(&self, warm: &'w mut EvidenceWarm, theta: &[f64]) -> Result<&'w mut LastEvaluation> {
        if warm.last.as_ref().is_none_or(|l| l.theta != theta) {
            let f0 = warm.last.as_ref().map(|l| l.model.utilities()).or(self.f0);
            let model =
                LaplacePreferenceGp::fit_from(self.decode(theta)?, self.data.clone(), &self.config.laplace, f0)?;
            warm.last = Some(LastEvaluation { theta: theta.to_vec(), model, result: None });
        }
        Ok(warm.last.as_mut().expect("just set"))
    }

    /// (log prior, its gradient in θ).
    fn log_prior(&self, theta: &[f64]) -> (f64, Vec<f64>) {
        let m = self.start.lengthscales().len();
        let d = self.data.dim();
        let mut value = 0.0;
        let mut grad = vec![0.0; theta.len()];
        for j in 0..m {
            let (v, g) = self.config.lengthscale_prior.log_density(d, theta[j]);
            value += v;
            grad[j] = g;
        }
        if self.config.learn_outputscale {
            let (v, g) = self.config.outputscale_prior.log_density(theta[m]);
            value += v;
            grad[m] = g;
        }
        (value, grad)
    }
}

/// The last evaluation of one local search ([`EvidenceObjective::model_warm`]): its utilities start
/// the next Newton iteration, and an evaluation at the same θ (the search's final point, re-evaluated
/// by `optimise`, then the fitted model) is not recomputed: the objective is a function of θ.
#[derive(Default)]
struct EvidenceWarm {
    last: Option<LastEvaluation>,
}

struct LastEvaluation {
    theta: Vec<f64>,
    model: LaplacePreferenceGp,
    /// (objective, log evidence, objective gradient) once evaluated.
    result: Option<(f64, f64, Vec<f64>)>,
}

impl LogSpaceObjective for EvidenceObjective<'_> {
    type Warm = EvidenceWarm;

    fn value(&self, theta: &[f64]) -> Result<f64> {
        Ok(-(self.model(theta)?.log_evidence() + self.log_prior(theta).0))
    }

    fn evaluate(&self, warm: &mut Self::Warm, theta: &[f64], grad: &mut [f64]) -> Result<(f64, f64)> {
        let last = self.model_warm(warm, theta)?;
        if let Some((value, evidence, g)) = &last.result {
            grad.copy_from_slice(g);
            return Ok((*value, *evidence));
        }
        let evidence = last.model.log_evidence();
        let g = last.model.log_evidence_gradient()?;
        let (lp, glp) = self.log_prior(theta);
        let m = self.start.lengthscales().len();
        for j in 0..m {
            grad[j] = -(g[j] + glp[j]);
        }
        if self.config.learn_outputscale {
            grad[m] = -(g[m] + glp[m]);
        }
        let value = -(evidence + lp);
        last.result = Some((value, evidence, grad.to_vec()));
        Ok((value, evidence))
    }
}

/// Fits the hyperparameters (lengthscales and, if learned, the outputscale σ²) of a Laplace
/// preference GP by maximising the Laplace log evidence plus the log priors over the log box of the
/// bounds, from `start` (its kind is kept; an isotropic start is expanded to d equal lengthscales
/// when `config.ard`) and the config's extra Sobol starts, each refined by bohf-optim's projected
/// L-BFGS with the analytic gradient ([`LaplacePreferenceGp::log_evidence_gradient`]).
/// Deterministic: the Sobol seed is fixed, each start's search is sequential and the best is
/// chosen in start order (ties: the earliest), whatever the thread count.
///
/// Errors: a start outside the bounds (naming `lengthscale_bounds`, `lengthscale_floor` or
/// `outputscale_bounds`), an ARD start with `ard = false` (`ard`), dimension mismatches, more
/// hyperparameters than the Sobol design supports with `restarts` > 0 (`restarts`), and a failed
/// Newton iteration at the start when it must be evaluated.
pub fn fit_laplace(config: &ValidLaplaceFitConfig, start: &Stationary, data: &PreferenceData) -> Result<LaplaceFit> {
    fit_with(config, start, data, None, &[])
}

/// [`fit_laplace`] with utilities `f0` near the mode at the start's hyperparameters (e.g. the
/// previous fit's, extended by [`warm_start`] after new duels): each search's first Newton iteration
/// starts there ([`LaplacePreferenceGp::fit_warm`]; an `f0` of the wrong length or not finite is
/// ignored). The same optimum to the tolerances, in fewer Newton steps.
pub fn fit_laplace_warm(
    config: &ValidLaplaceFitConfig,
    start: &Stationary,
    data: &PreferenceData,
    f0: &DVector<f64>,
) -> Result<LaplaceFit> {
    fit_with(config, start, data, Some(f0), &[])
}

/// [`fit_laplace_warm`] for a refit after new duels or choices: `start` the previous fit's kernel,
/// `f0` its utilities extended by [`warm_start`], and `curvature` its
/// [`LaplaceFit::curvature`], the initial L-BFGS memory of the search from `start`
/// ([`bohf_optim::minimize_bounded_warm`]). The objective changes little with a few more
/// comparisons, so the old curvature makes the first step a quasi-Newton step (a search without it
/// starts along the steepest descent and rebuilds the curvature, about 12 evaluations); the
/// stopping rules (`config.local`) are the same, and so is the optimum to their tolerances. Extra
/// Sobol starts (`restarts`) are searched without it.
///
/// Errors: those of [`fit_laplace`], and `curvature` pairs of the wrong length (naming
/// `curvature[k]`).
pub fn fit_laplace_refit(
    config: &ValidLaplaceFitConfig,
    start: &Stationary,
    data: &PreferenceData,
    f0: &DVector<f64>,
    curvature: &[(Vec<f64>, Vec<f64>)],
) -> Result<LaplaceFit> {
    fit_with(config, start, data, Some(f0), curvature)
}

fn fit_with(
    config: &ValidLaplaceFitConfig,
    start: &Stationary,
    data: &PreferenceData,
    f0: Option<&DVector<f64>>,
    curvature: &[(Vec<f64>, Vec<f64>)],
) -> Result<LaplaceFit> {
    let config = config.config();
    let d = data.dim();
    let start = match (config.ard, start.lengthscales().len()) {
        (true, 1) if d > 1 => Stationary::new(start.kind(), start.lengthscales()[0])?
            .with_ard(vec![start.lengthscales()[0]; d])?
            .with_variance(start.variance())?,
        (true, m) if m != d && !data.is_empty() => {
            return Err(Error::dims("Laplace fit: start lengthscales vs point dimension", d, m));
        }
        (false, m) if m > 1 => {
            return Err(Error::invalid(
                "ard",
                format!("the start kernel has {m} ARD lengthscales but the config fits one shared lengthscale"),
            ));
        }
        _ => start.clone(),
    };
    let [lo, hi] = config.effective_lengthscale_bounds();
    for (j, &l) in start.lengthscales().iter().enumerate() {
        if !(lo..=hi).contains(&l) {
            let field =
                if l < config.lengthscale_bounds[0] || l > hi { "lengthscale_bounds" } else { "lengthscale_floor" };
            return Err(Error::invalid(field, format!("the start lengthscale[{j}] = {l} lies outside [{lo}, {hi}]")));
        }
    }
    let [vlo, vhi] = config.outputscale_bounds;
    if config.learn_outputscale && !(vlo..=vhi).contains(&start.variance()) {
        return Err(Error::invalid(
            "outputscale_bounds",
            format!("the start outputscale {} lies outside [{vlo}, {vhi}]", start.variance()),
        ));
    }
    let objective = EvidenceObjective { data, config, start: start.clone(), f0 };
    let theta0 = objective.encode(&start);
    let keep_start = |outcome: LaplaceFitOutcome| -> Result<LaplaceFit> {
        let model = objective.model(&theta0)?;
        let objective = model.log_evidence() + objective.log_prior(&theta0).0;
        Ok(LaplaceFit { model, objective, outcome, curvature: Vec::new() })
    };
    if !data.is_informative() {
        return keep_start(LaplaceFitOutcome::NoInformation);
    }
    let m = start.lengthscales().len();
    let mut lower = vec![lo.ln(); m];
    let mut upper = vec![hi.ln(); m];
    if config.learn_outputscale {
        lower.push(vlo.ln());
        upper.push(vhi.ln());
    }
    debug_assert_eq!(lower.len(), objective.dim());
    if config.restarts > 0 && lower.len() > MAX_SOBOL_DIM {
        return Err(Error::invalid(
            "restarts",
            format!("the Sobol starts support at most {MAX_SOBOL_DIM} hyperparameters, this fit has {}", lower.len()),
        ));
    }
    for (k, (s, y)) in curvature.iter().enumerate() {
        let got = if s.len() == lower.len() { y.len() } else { s.len() };
        if got != lower.len() {
            return Err(Error::dims(format!("Laplace refit: `curvature[{k}]` vs hyperparameters"), lower.len(), got));
        }
    }
    let start = Start { theta: &theta0, curvature };
    match optimise(&objective, start, &lower, &upper, config.restarts, config.screen, &config.local)? {
        None => keep_start(LaplaceFitOutcome::NoFiniteOptimum),
        Some(mut best) => {
            // The best search's last evaluation is at best.theta: its model, not recomputed.
            objective.model_warm(&mut best.warm, &best.theta)?;
            let model = best.warm.last.take().expect("model_warm keeps its model").model;
            Ok(LaplaceFit {
                model,
                objective: -best.value,
                outcome: LaplaceFitOutcome::Optimised { starts: best.starts, evaluations: best.evaluations },
                curvature: best.curvature,
            })
        }
    }
}

/// A warm start ([`LaplacePreferenceGp::fit_warm`]) for a refit with more data: the previous MAP
/// utilities, extended by zeros for new latent points (latent indices are stable under appended
/// duels, since points are numbered by first appearance).
pub fn warm_start(previous: &LaplacePreferenceGp, data: &PreferenceData) -> DVector<f64> {
    let old = previous.utilities();
    DVector::from_fn(data.len(), |i, _| if i < old.len() { old[i] } else { 0.0 })
}
