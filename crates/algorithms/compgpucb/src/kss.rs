//! Kernel Self-Sparring (KSS; Sui, Zhuang, Burdick & Yue, "Multi-dueling Bandits with Dependent
//! Arms", UAI 2017), the duels-only baseline of COMP-GP-UCB's experiments (notes 002 §3.3) on a
//! finite candidate set.
//!
//! One GP on the candidates' coordinates regresses duel outcomes: after a duel of x against x′ the
//! winner is observed with value 1 and the loser with value 0 (Sui et al.'s self-sparring update,
//! the GP version of their Beta-Bernoulli arms; the same 0/1 outcomes as COMP-GP-UCB's f_r GP,
//! through the same bohf-gp models). Each step draws **two independent joint posterior samples**
//! on the candidates ([`bohf_gp::ValueGp::sample`], one call, two columns) and duels
//! their argmaxes (lowest index on ties): Thompson sampling against itself.
//!
//! The initial design (App. B) spends the initial budget Λ₀ on uniformly random duels only:
//! ⌊Λ₀/λ_c⌋ of them ([`crate::initial_split`] with share 1), λ_c from the run's budget
//! ([`crate::Costs::of_context`]). KSS recommends the candidate with the largest posterior mean.

use crate::candidates::OnCandidates;
use crate::compgpucb::model;
use crate::config::{COMPARISON_REFIT_EVERY, Costs, check_hyper, initial_split};
use bohf_core::rand::RngExt;
use bohf_core::{
    Answer, AtField, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext, StepDetails, argmax_lowest,
};
use bohf_gp::HyperFitConfig;
use bohf_gp::ValueGp;
use bohf_gp::regression::ValidHyperFitConfig;
use bohf_kernels::{KernelKind, KernelSpec};
use nalgebra::DMatrix;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Settings of [`Kss`]. Defaults: SE kernel ℓ = 0.2 with hyperparameters learned every 20
/// observations (App. B's comparison GP), noise 10⁻⁴, initial budget Λ₀ = 10 of random duels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KssConfig {
    /// The GP's kernel (default SE, ℓ = 0.2; the start of every fit when learned).
    pub kernel: KernelSpec,
    /// The noise variance η² > 0 of the 0/1 outcomes (default 10⁻⁴; a start value when learned).
    pub noise: f64,
    /// Type-II ML of the GP (default: refit every 20 observations); `"fixed"`: the start kernel throughout ([`bohf_gp::fit_or_fixed`]).
    #[serde(with = "bohf_gp::fit_or_fixed")]
    pub hyperparameters: Option<HyperFitConfig>,
    /// Λ₀ ≥ 0: the initial budget, all on uniformly random duels (⌊Λ₀/λ_c⌋ of them).
    pub initial_budget: f64,
}

impl Default for KssConfig {
    fn default() -> Self {
        Self {
            kernel: KernelSpec { kind: KernelKind::Se, lengthscale: Some(0.2), lengthscales: None, variance: None },
            noise: 1e-4,
            hyperparameters: Some(HyperFitConfig { refit_every: COMPARISON_REFIT_EVERY, ..HyperFitConfig::default() }),
            initial_budget: 10.0,
        }
    }
}

bohf_core::validated! {
    /// A [`KssConfig`] that passed [`KssConfig::check`].
    pub struct ValidKssConfig(KssConfig) {
        /// The checked hyperparameter fit (`hyperparameters`), if any.
        checked_hyperparameters: Option<ValidHyperFitConfig>,
    }
}

impl KssConfig {
    /// The one check; errors name `kernel.…`, `noise`, `hyperparameters.…`, `initial_budget`.
    pub fn check(&self) -> Result<ValidKssConfig> {
        self.kernel.build().at("kernel")?;
        bohf_core::error::ensure_positive("noise", self.noise)?;
        let checked_hyperparameters = check_hyper(&self.kernel, self.hyperparameters.as_ref(), "hyperparameters")?;
        if !(self.initial_budget.is_finite() && self.initial_budget >= 0.0) {
            return Err(Error::invalid(
                "initial_budget",
                format!("must be finite and >= 0, got {}", self.initial_budget),
            ));
        }
        Ok(ValidKssConfig { config: self.clone(), checked_hyperparameters })
    }
}

/// Kernel Self-Sparring on a finite candidate set; see the module documentation.
#[derive(Debug)]
pub struct Kss {
    config: KssConfig,
    domain: FiniteDomain,
    gp: OnCandidates,
    initial_duels: usize,
    answered: usize,
    pending: Option<(usize, usize)>,
    last_initial: bool,
}

impl Kss {
    /// KSS on the candidates of `ctx`, at the costs of its budget ([`Costs::of_context`]: unit
    /// costs without one; errors name `budget.duel`, …).
    pub fn new(ctx: &SearchContext, config: ValidKssConfig) -> Result<Self> {
        let hyper = config.checked_hyperparameters().clone();
        let config = config.into_config();
        let costs = Costs::of_context(ctx.costs())?;
        let domain = ctx.domain().clone();
        let gp = model(&config.kernel, hyper.as_ref(), config.noise, &domain, "hyperparameters")?;
        let (initial_duels, _) = initial_split(config.initial_budget, costs.duel, costs.evaluate, 1.0);
        let gp = OnCandidates::new(gp, &domain)?;
        Ok(Self { config, domain, gp, initial_duels, answered: 0, pending: None, last_initial: true })
    }

    /// The configuration.
    pub fn config(&self) -> &KssConfig {
        &self.config
    }

    /// The GP of the duel outcomes (its hyperparameters and data; a learned one keeps no posterior
    /// of its own, [`bohf_gp::LearnedGp::with_posterior`] builds it).
    pub fn gp(&self) -> &ValueGp {
        self.gp.gp()
    }

    /// The number of initial random duels.
    pub fn initial_duels(&self) -> usize {
        self.initial_duels
    }

    /// The candidates' coordinates, one row each.
    pub fn domain_points(&self) -> DMatrix<f64> {
        self.domain.points().clone()
    }

    /// Candidate `i` as a point (panics if out of range: tests only).
    #[cfg(test)]
    pub(crate) fn domain_point(&self, i: usize) -> Point {
        self.domain.point(i).expect("a candidate")
    }

    /// The number of stacked rows of the kept posterior (tests).
    #[cfg(test)]
    pub(crate) fn kept_rank(&self) -> usize {
        self.gp.rank()
    }

    /// The number of answered duels.
    pub fn answered(&self) -> usize {
        self.answered
    }

    /// `count` joint posterior draws of the duel-outcome GP on the candidates (one per column), by
    /// Matheron's rule on the incrementally kept posterior ([`bohf_gp::CandidatePosterior::sample`]).
    pub fn posterior_draws(&self, count: usize, rng: &mut dyn Rng) -> Result<DMatrix<f64>> {
        self.gp.sample(count, rng)
    }

    /// The posterior mean and standard deviation at every candidate, kept up to date
    /// incrementally (equal to [`crate::CompGpUcb::posterior`]'s direct computation up to rounding).
    pub fn posterior(&self) -> (Vec<f64>, Vec<f64>) {
        self.gp.mean_sd()
    }

    /// The Thompson step: two joint posterior draws on the candidates from `rng`
    /// ([`Kss::posterior_draws`]) and their argmaxes (lowest index on ties).
    pub fn sparring_pair(&self, rng: &mut dyn Rng) -> Result<(usize, usize)> {
        let draws = self.posterior_draws(2, rng)?;
        Ok((argmax_lowest(draws.column(0).iter().copied())?, argmax_lowest(draws.column(1).iter().copied())?))
    }
}

impl Optimizer for Kss {
    fn name(&self) -> &'static str {
        "KSS"
    }

    /// A uniformly random duel in the initial design, then the duel of two posterior samples'
    /// argmaxes ([`Kss::sparring_pair`]).
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let n = self.domain.len();
        self.last_initial = self.answered < self.initial_duels;
        let (x, y) =
            if self.last_initial { (rng.random_range(0..n), rng.random_range(0..n)) } else { self.sparring_pair(rng)? };
        self.pending = Some((x, y));
        Ok(Query::Duel(self.domain.point(x)?, self.domain.point(y)?))
    }

    /// Errors (naming `query` or `answer`) for a query that is not a duel of candidates, one that
    /// is not the pending suggestion, or an answer that is not a duel outcome; nothing is recorded
    /// then. The winner is observed at 1, the loser at 0.
    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let Query::Duel(p, q) = query else {
            return Err(Error::invalid("query", format!("KSS asks duels only, got {query:?}")));
        };
        let (x, y) = (self.domain.candidate_index(p, "duelled")?, self.domain.candidate_index(q, "opponent")?);
        bohf_core::check_pending(self.pending, (x, y))?;
        let first_wins = answer.duel_outcome()?;
        let (win, lose) = if first_wins { (x, y) } else { (y, x) };
        self.gp.append(win, 1.0)?;
        self.gp.append(lose, 0.0)?;
        self.answered += 1;
        self.pending = None;
        Ok(())
    }

    /// The candidate with the largest posterior mean (lowest index on ties; candidate 0 before any
    /// duel).
    fn recommend(&self) -> Result<Point> {
        self.domain.point(argmax_lowest(self.gp.mean_sd().0)?)
    }

    /// `phase`: `initial` (a random duel) or `sparring`.
    fn step_details(&self) -> StepDetails {
        vec![("phase", if self.last_initial { "initial" } else { "sparring" }.to_string())]
    }
}
