//! MF-GP-UCB (Kandasamy, Dasarathy, Oliva, Schneider & Póczos, "Gaussian Process Bandit
//! Optimisation with Multi-fidelity Evaluations", NeurIPS 2016) with duels as the low fidelity: the
//! baseline of COMP-GP-UCB's experiments (notes 002 §3.3), on a finite candidate set.
//!
//! Two GPs, as COMP-GP-UCB's (the same bohf-gp models): the low-fidelity GP regresses the 0/1
//! outcomes of duels against fresh uniformly random opponents (so it models f_r ∈ [0, 1], far from
//! f: the paper's explanation of MF-GP-UCB's poor showing), the high-fidelity GP the values of f.
//! After the random initial design (Λ₀/2 on duels, Λ₀/2 on values, as COMP-GP-UCB's), each step
//! (the MF code's rules, note §3.3):
//!
//! * x_t = argmax min{μ¹ + β_t σ¹ + ζ, μ² + β_t σ²} over the candidates (lowest index on ties),
//!   β_t by [`MfGpUcbConfig::beta`] (default `kandasamy`: √(0.2·d·log(2dt)), t = answered queries + 1);
//! * **switching**: duel x_t against a random candidate if β_t σ¹(x_t) ≥ γ, else evaluate f there;
//! * **γ**: γ₀ = `gamma_fraction`·range(Y_init) (0.01; range 1 if fewer than two initial values
//!   differ), multiplied by `gamma_factor` (5) after ⌈λ_l/λ_c⌉ consecutive duels;
//! * **ζ**: ζ₀ = `zeta_factor`·max(0, max_i y_i − μ¹(x_i)) over the initial values (μ¹ after the
//!   initial duels: the low fidelity at a point is the low-fidelity GP's mean there, since a duel
//!   observes no value of its own); after each later value y_t, if |y_t − μ¹(x_t)| > ζ then
//!   ζ ← `zeta_factor`·|y_t − μ¹(x_t)| (the code's doubling of the observed gap).
//!
//! Every decision is a function of the history ([`MfGpUcb::decide`]); the costs λ_c, λ_l are the
//! run's budget's ([`Costs::of_context`]).

use crate::Feedback;
use crate::candidates::OnCandidates;
use crate::compgpucb::{beta_width, model, posterior_on};
use crate::config::{COMPARISON_REFIT_EVERY, Costs, InitialCounting, LABEL_REFIT_EVERY, check_hyper};
use bohf_core::WidthSchedule;
use bohf_core::rand::RngExt;
use bohf_core::{
    Answer, AtField, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext, StepDetails, argmax_lowest,
};
use bohf_gp::HyperFitConfig;
use bohf_gp::ValueGp;
use bohf_gp::regression::ValidHyperFitConfig;
use bohf_kernels::{KernelKind, KernelSpec};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The rules of [`WidthSchedule`] MF-GP-UCB's β_t accepts: `kandasamy` (the default), `practical`
/// and `constant` ([`crate::BOX_BETA_RULES`]'s; the `theory` width needs COMP-GP-UCB's Φ).
pub const MF_BETA_RULES: [&str; 3] = ["kandasamy", "practical", "constant"];

/// Settings of [`MfGpUcb`]; defaults: the MF code's rules (note 002 §3.3) and App. B's GPs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MfGpUcbConfig {
    /// Both GPs' kernel (default SE, ℓ = 0.2; the start of every fit when learned).
    pub kernel: KernelSpec,
    /// η² > 0 of the value GP (default 10⁻⁴, the MF code's 10⁻⁴·std(Y)² in standardised units).
    pub noise: f64,
    /// η² > 0 of the duel-outcome GP; absent: `noise`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison_noise: Option<f64>,
    /// Type-II ML of the value GP (default: refit every 5); `"fixed"`: the start kernel throughout ([`bohf_gp::fit_or_fixed`]).
    #[serde(with = "bohf_gp::fit_or_fixed")]
    pub hyperparameters: Option<HyperFitConfig>,
    /// Type-II ML of the duel-outcome GP (default: refit every 20); `"fixed"`: the start kernel throughout ([`bohf_gp::fit_or_fixed`]).
    #[serde(with = "bohf_gp::fit_or_fixed")]
    pub comparison_hyperparameters: Option<HyperFitConfig>,
    /// β_t (default `{ rule = "kandasamy" }`, the MF code's √(0.2·d·log(2dt)));
    /// `practical` and `constant` as COMP-GP-UCB's; `theory` is refused.
    pub beta: WidthSchedule,
    /// Λ₀ ≥ 0, the initial random budget, half on duels and half on values (default 10).
    pub initial_budget: f64,
    /// `budget` (Λ₀/2 per kind divided by its cost) or `count` (⌊Λ₀/2⌋ of each).
    pub initial_counting: InitialCounting,
    /// γ₀ / range(Y_init) > 0 (default 0.01).
    pub gamma_fraction: f64,
    /// γ's factor ≥ 1 after ⌈λ_l/λ_c⌉ consecutive duels (default 5).
    pub gamma_factor: f64,
    /// ζ's factor ≥ 1 on the observed gap (default 2).
    pub zeta_factor: f64,
}

impl Default for MfGpUcbConfig {
    fn default() -> Self {
        Self {
            kernel: KernelSpec { kind: KernelKind::Se, lengthscale: Some(0.2), lengthscales: None, variance: None },
            noise: 1e-4,
            comparison_noise: None,
            hyperparameters: Some(HyperFitConfig { refit_every: LABEL_REFIT_EVERY, ..HyperFitConfig::default() }),
            comparison_hyperparameters: Some(HyperFitConfig {
                refit_every: COMPARISON_REFIT_EVERY,
                ..HyperFitConfig::default()
            }),
            beta: WidthSchedule::Kandasamy,
            initial_budget: 10.0,
            initial_counting: InitialCounting::Budget,
            gamma_fraction: 0.01,
            gamma_factor: 5.0,
            zeta_factor: 2.0,
        }
    }
}

bohf_core::validated! {
    /// A [`MfGpUcbConfig`] that passed [`MfGpUcbConfig::check`].
    pub struct ValidMfGpUcbConfig(MfGpUcbConfig) {
        /// The checked hyperparameter fit of the high-fidelity GP (`hyperparameters`), if any.
        checked_hyperparameters: Option<ValidHyperFitConfig>,
        /// The checked fit of the low-fidelity GP (`comparison_hyperparameters`), if any.
        checked_comparison_hyperparameters: Option<ValidHyperFitConfig>,
    }
}

fn at_least(name: &str, v: f64, min: f64) -> Result<()> {
    if !(v.is_finite() && v >= min) {
        return Err(Error::invalid(name, format!("must be finite and >= {min}, got {v}")));
    }
    Ok(())
}

impl MfGpUcbConfig {
    /// The one check; errors name `kernel.…`, `noise`, `comparison_noise`, `hyperparameters.…`,
    /// `comparison_hyperparameters.…`, `beta.rule` (theory), `beta.…`, `initial_budget`,
    /// `gamma_fraction`, `gamma_factor`, `zeta_factor`.
    pub fn check(&self) -> Result<ValidMfGpUcbConfig> {
        self.kernel.build().at("kernel")?;
        bohf_core::error::ensure_positive("noise", self.noise)?;
        if let Some(n) = self.comparison_noise {
            bohf_core::error::ensure_positive("comparison_noise", n)?;
        }
        let checked_hyperparameters = check_hyper(&self.kernel, self.hyperparameters.as_ref(), "hyperparameters")?;
        let checked_comparison_hyperparameters =
            check_hyper(&self.kernel, self.comparison_hyperparameters.as_ref(), "comparison_hyperparameters")?;
        self.beta.check("MF-GP-UCB", &MF_BETA_RULES).at("beta")?;
        at_least("initial_budget", self.initial_budget, 0.0)?;
        bohf_core::error::ensure_positive("gamma_fraction", self.gamma_fraction)?;
        at_least("gamma_factor", self.gamma_factor, 1.0)?;
        at_least("zeta_factor", self.zeta_factor, 1.0)?;
        Ok(ValidMfGpUcbConfig { config: self.clone(), checked_hyperparameters, checked_comparison_hyperparameters })
    }
}

/// What MF-GP-UCB computed for one step (before its answer).
#[derive(Debug, Clone, PartialEq)]
pub struct MfDecision {
    /// Duel (low fidelity) or evaluation (high fidelity).
    pub kind: Feedback,
    /// The chosen candidate; `None` in the initial design (a random one).
    pub index: Option<usize>,
    /// β_t (NaN in the initial design).
    pub beta: f64,
    /// β_t σ¹(x_t), the switching statistic (NaN in the initial design).
    pub beta_sigma_low: f64,
    /// γ in force (NaN in the initial design).
    pub gamma: f64,
    /// ζ in force (NaN in the initial design).
    pub zeta: f64,
}

/// MF-GP-UCB with duels as the low fidelity; see the module documentation.
#[derive(Debug)]
pub struct MfGpUcb {
    config: MfGpUcbConfig,
    costs: Costs,
    domain: FiniteDomain,
    low: OnCandidates,
    high: OnCandidates,
    initial_duels: usize,
    initial_labels: usize,
    answered: usize,
    /// The initial values (candidate, value), until γ₀ and ζ₀ are set from them.
    initial_values: Vec<(usize, f64)>,
    gamma: f64,
    zeta: f64,
    run: usize,
    pending: Option<(Query, MfDecision)>,
    last: Option<MfDecision>,
}

impl MfGpUcb {
    /// MF-GP-UCB on the candidates of `ctx`, at the costs of its budget ([`Costs::of_context`]:
    /// unit costs without one; errors name `budget.duel`, `budget.evaluate`, `budget.total`).
    pub fn new(ctx: &SearchContext, config: ValidMfGpUcbConfig) -> Result<Self> {
        let (hyper, comparison_hyper) =
            (config.checked_hyperparameters().clone(), config.checked_comparison_hyperparameters().clone());
        let config = config.into_config();
        let costs = Costs::of_context(ctx.costs())?;
        let domain = ctx.domain().clone();
        let high = model(&config.kernel, hyper.as_ref(), config.noise, &domain, "hyperparameters")?;
        let low = model(
            &config.kernel,
            comparison_hyper.as_ref(),
            config.comparison_noise.unwrap_or(config.noise),
            &domain,
            "comparison_hyperparameters",
        )?;
        let (initial_duels, initial_labels) = config.initial_counting.half_and_half(config.initial_budget, &costs);
        Ok(Self {
            config,
            costs,
            low: OnCandidates::new(low, &domain)?,
            high: OnCandidates::new(high, &domain)?,
            domain,
            initial_duels,
            initial_labels,
            answered: 0,
            initial_values: Vec::new(),
            gamma: f64::NAN,
            zeta: f64::NAN,
            run: 0,
            pending: None,
            last: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MfGpUcbConfig {
        &self.config
    }

    /// The duel-outcome (low-fidelity) GP (a learned one keeps no posterior: see [`MfGpUcb::posterior`]).
    pub fn low_gp(&self) -> &ValueGp {
        self.low.gp()
    }

    /// The value (high-fidelity) GP (a learned one keeps no posterior: see [`MfGpUcb::posterior`]).
    pub fn high_gp(&self) -> &ValueGp {
        self.high.gp()
    }

    /// γ in force (NaN during the initial design).
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// ζ in force (NaN during the initial design).
    pub fn zeta(&self) -> f64 {
        self.zeta
    }

    /// The numbers of initial random duels and values.
    pub fn initial_counts(&self) -> (usize, usize) {
        (self.initial_duels, self.initial_labels)
    }

    /// The number of consecutive duels after which γ is multiplied: ⌈λ_l/λ_c⌉.
    pub fn doubling_after(&self) -> usize {
        ((self.costs.evaluate / self.costs.duel) * (1.0 - 1e-12)).ceil().max(1.0) as usize
    }

    /// The last decision (suggested or replayed).
    pub fn last_decision(&self) -> Option<&MfDecision> {
        self.last.as_ref()
    }

    /// The posterior mean and standard deviation of a GP at every candidate, evaluated from the
    /// model point by point (the direct computation, for checks; the rule reads the incrementally
    /// kept posteriors on the candidates, equal up to rounding). A learned GP of the algorithm
    /// keeps no posterior of its own: it is built first, in one batch
    /// ([`bohf_gp::LearnedGp::with_posterior`]).
    pub fn posterior(&self, gp: &ValueGp) -> Result<(Vec<f64>, Vec<f64>)> {
        posterior_on(gp, &self.domain)
    }

    /// The decision of the next step: a function of the history only.
    pub fn decide(&self) -> Result<MfDecision> {
        let done = self.answered;
        if done < self.initial_duels + self.initial_labels {
            let kind = if done < self.initial_duels { Feedback::Duel } else { Feedback::Evaluate };
            let nan = f64::NAN;
            return Ok(MfDecision { kind, index: None, beta: nan, beta_sigma_low: nan, gamma: nan, zeta: nan });
        }
        let beta = beta_width(&self.config.beta, done + 1, self.domain.dim());
        let (m1, s1) = self.low.mean_sd();
        let (m2, s2) = self.high.mean_sd();
        let (gamma, zeta) = if self.gamma.is_nan() { self.initial_gamma_zeta()? } else { (self.gamma, self.zeta) };
        let acquisition = (0..m1.len()).map(|i| (m1[i] + beta * s1[i] + zeta).min(m2[i] + beta * s2[i]));
        let x = argmax_lowest(acquisition)?;
        let beta_sigma_low = beta * s1[x];
        let kind = if beta_sigma_low >= gamma { Feedback::Duel } else { Feedback::Evaluate };
        Ok(MfDecision { kind, index: Some(x), beta, beta_sigma_low, gamma, zeta })
    }

    /// γ₀ and ζ₀ from the initial values (module documentation).
    fn initial_gamma_zeta(&self) -> Result<(f64, f64)> {
        let ys = self.initial_values.iter().map(|&(_, y)| y);
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let range = if hi > lo { hi - lo } else { 1.0 };
        let mut gap = 0.0f64;
        for &(i, y) in &self.initial_values {
            gap = gap.max(y - self.low.mean_at(i));
        }
        Ok((self.config.gamma_fraction * range, self.config.zeta_factor * gap))
    }
}

impl Optimizer for MfGpUcb {
    fn name(&self) -> &'static str {
        "MF-GP-UCB"
    }

    /// The decision of [`MfGpUcb::decide`]; duel opponents and initial points are drawn uniformly
    /// from the candidates with `rng`.
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let d = self.decide()?;
        let n = self.domain.len();
        let x = d.index.unwrap_or_else(|| rng.random_range(0..n));
        let query = match d.kind {
            Feedback::Duel => Query::Duel(self.domain.point(x)?, self.domain.point(rng.random_range(0..n))?),
            Feedback::Evaluate => Query::Evaluate(self.domain.point(x)?),
        };
        self.pending = Some((query.clone(), d.clone()));
        self.last = Some(d);
        Ok(query)
    }

    /// Errors (naming `query` or `answer`) for a query of the wrong kind or at another candidate
    /// than the rule chooses, a point that is not a candidate, an answer of the wrong kind or a
    /// non-finite value; nothing is recorded then.
    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let d = match &self.pending {
            Some((q, d)) if q == query => d.clone(),
            _ => self.decide()?,
        };
        let (first, kind) = match query {
            Query::Duel(p, q) => {
                self.domain.candidate_index(q, "opponent")?;
                (self.domain.candidate_index(p, "duelled")?, Feedback::Duel)
            }
            Query::Evaluate(p) => (self.domain.candidate_index(p, "evaluated")?, Feedback::Evaluate),
            other => {
                let kind = other.kind();
                return Err(Error::invalid(
                    "query",
                    format!("MF-GP-UCB asks duels and evaluations, got a query of kind `{kind}`"),
                ));
            }
        };
        if kind != d.kind {
            return Err(Error::invalid("query", format!("MF-GP-UCB's next step is a {:?}, got {query:?}", d.kind)));
        }
        if let Some(x) = d.index
            && x != first
        {
            return Err(Error::invalid("query", format!("the rule chooses candidate {x}, got candidate {first}")));
        }
        let initial = d.index.is_none();
        // The answer is checked before anything is recorded.
        let y = match kind {
            Feedback::Duel => {
                if answer.duel_outcome()? {
                    1.0
                } else {
                    0.0
                }
            }
            Feedback::Evaluate => answer.value()?,
        };
        if !initial && self.gamma.is_nan() {
            (self.gamma, self.zeta) = (d.gamma, d.zeta);
        }
        match kind {
            Feedback::Duel => {
                self.low.append(first, y)?;
                if !initial {
                    self.run += 1;
                    if self.run >= self.doubling_after() {
                        self.gamma *= self.config.gamma_factor;
                        self.run = 0;
                    }
                }
            }
            Feedback::Evaluate => {
                if initial {
                    self.initial_values.push((first, y));
                } else {
                    self.run = 0;
                    let gap = (y - self.low.mean_at(first)).abs();
                    if gap > self.zeta {
                        self.zeta = self.config.zeta_factor * gap;
                    }
                }
                self.high.append(first, y)?;
            }
        }
        self.answered += 1;
        self.pending = None;
        self.last = Some(d);
        Ok(())
    }

    /// The candidate with the largest posterior mean of f (lowest index on ties); before any value,
    /// of the duel outcomes.
    fn recommend(&self) -> Result<Point> {
        let gp = if self.high.is_empty() { &self.low } else { &self.high };
        self.domain.point(argmax_lowest(gp.mean_sd().0)?)
    }

    /// `phase` (`initial`, `ucb`), `query` (`duel`, `evaluate`), `beta_sigma_low` (β σ¹ at x_t),
    /// `gamma`, `zeta`.
    fn step_details(&self) -> StepDetails {
        let Some(d) = &self.last else { return Vec::new() };
        vec![
            ("phase", if d.index.is_none() { "initial" } else { "ucb" }.to_string()),
            ("query", bohf_core::QueryKind::from(d.kind).to_string()),
            ("beta_sigma_low", d.beta_sigma_low.to_string()),
            ("gamma", d.gamma.to_string()),
            ("zeta", d.zeta.to_string()),
        ]
    }
}
