//! COMP-GP-UCB on a finite candidate set (Algorithms 1 and 2 of Xu et al. 2020; notes 002 §3).
//!
//! Two GPs on the candidates' coordinates, each a [`bohf_gp::ValueGp`] (fixed kernel, or
//! hyperparameters learned by bohf-gp's [`bohf_gp::LearnedGp`]): the f_r GP regresses the 0/1
//! outcomes z_t = 1[x_t beats x′_t] of duels against fresh uniformly random opponents x′_t (an
//! unbiased estimate of the Borda function f_r(x) = P(x ≻ X)), the f GP the direct values.
//!
//! * **Initial design** (App. B): uniformly random duels (random x against random x′), then
//!   uniformly random evaluations ([`crate::CompGpUcbConfig::initial_counts`]).
//! * **Phase 1**: x_t = argmax μ^r + β^r σ^r, duelled against a random opponent; the phase ends with
//!   the duel at which β^r_t σ^r_{t−1}(x_t) ≤ γ, and f̂_r = μ^r_{t−1}(x_t) − β^r_t σ^r_{t−1}(x_t)
//!   (Alg. 1 lines 2–6).
//! * **Phase 2**: φ(x) = μ^r + β^r σ^r − f̂_r + c·L₂·ζ (c = 1, Alg. 1 line 8; c = 2 with ζ_k,
//!   Alg. 2 line 8); x_t = argmax of μ + βσ of f over {φ ≥ 0} (lowest index on ties); if no
//!   candidate is feasible, the configured [`crate::EmptyFallback`] (recorded as
//!   `feasible_empty = true`). Duel x_t against a random opponent if β^r σ^r(x_t) ≥ γ, else
//!   evaluate f at x_t (lines 9–12).
//! * **γ-doubling** (App. B): γ ← factor·γ after `doubling_after` comparisons in a row.
//! * **Algorithm 2**: after each stage of labels ζ_k doubles; once 2ζ_k would pass ζ_max it stays
//!   at the last ζ_k ≤ ζ_max (Alg. 2's loop would stop there; the run's budget ends the run).
//!
//! Every decision is a function of the history: [`CompGpUcb::decide`] recomputes it, so a replayed
//! history ([`Optimizer::observe_batch`]) gives the same state as the live run, and
//! [`Optimizer::observe`] accepts only the query the rule chooses (the opponent and the initial
//! points are free: they are random).

use crate::CompGpUcbConfig;
use crate::candidates::OnCandidates;
use crate::config::{
    BetaClock, Costs, DoublingScope, EmptyFallback, LowerBoundRule, ValidCompGpUcbConfig, beta_igp_ucb, beta_practical,
};
use bohf_core::rand::RngExt;
use bohf_core::{
    Answer, AtField, BetaForm, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext, StepDetails,
    WidthSchedule, argmax_lowest,
};
use bohf_gp::ValueGp;
use bohf_gp::{GpRegression, LearnedGp};
use bohf_kernels::Kernel;
use nalgebra::{DMatrix, DVector};
use rand::Rng;

mod shared;

pub(crate) use shared::{Progress, beta_width, details, model, model_on, posterior_on, record_answer};

/// The posterior means and standard deviations of a GP at every candidate, in candidate order.
pub type CandidateMoments = (Vec<f64>, Vec<f64>);

/// The part of the algorithm a step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The uniformly random initial queries.
    Initial,
    /// Phase 1: GP-UCB on f_r with duels.
    Comparisons,
    /// Phase 2: constrained GP-UCB on f.
    Constrained,
}

impl Phase {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Phase::Initial => "initial",
            Phase::Comparisons => "1",
            Phase::Constrained => "2",
        }
    }
}

/// The feedback a step asks for: the two of bohf-core's query kinds ([`bohf_core::QueryKind`])
/// COMP-GP-UCB chooses between (its own type, so that its decision rule matches on exactly these
/// two; named apart from core's `QueryKind` so that the two never clash in one scope).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feedback {
    /// A duel against a uniformly random opponent.
    Duel,
    /// A direct query of f.
    Evaluate,
}

impl From<Feedback> for bohf_core::QueryKind {
    fn from(k: Feedback) -> Self {
        match k {
            Feedback::Duel => bohf_core::QueryKind::Duel,
            Feedback::Evaluate => bohf_core::QueryKind::Evaluate,
        }
    }
}

/// What the rule computed for one step (before its answer).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The phase.
    pub phase: Phase,
    /// Duel or evaluation.
    pub kind: Feedback,
    /// The chosen candidate (`None` in the initial design: a random one).
    pub index: Option<usize>,
    /// The t of β_t of the f_r GP.
    pub t: usize,
    /// β^r_t (NaN in the initial design).
    pub beta_r: f64,
    /// β_t of the f GP (NaN outside phase 2).
    pub beta: f64,
    /// β^r_t σ^r_{t−1}(x_t) at the chosen candidate (NaN in the initial design).
    pub beta_r_sigma_r: f64,
    /// γ in force.
    pub gamma: f64,
    /// The ζ term of φ: c·L₂·ζ in units of f_r (c = 2 under Algorithm 2).
    pub zeta_term: f64,
    /// The lower bound f̂_r used by φ (phase 2), or the one phase 1 would freeze at this step.
    pub f_hat: f64,
    /// Phase 1 only: whether this duel ends phase 1 (β^r σ^r ≤ γ).
    pub exits_phase1: bool,
    /// Phase 2 only: the number of candidates with φ ≥ 0.
    pub feasible: usize,
    /// Phase 2 only: no candidate satisfied φ ≥ 0 and the fallback chose the point.
    pub feasible_empty: bool,
    /// Algorithm 2's stage k (0 under Algorithm 1).
    pub stage: usize,
}

/// COMP-GP-UCB on a finite candidate set; see the module documentation.
#[derive(Debug)]
pub struct CompGpUcb {
    config: CompGpUcbConfig,
    costs: Costs,
    domain: FiniteDomain,
    horizon: usize,
    labels: OnCandidates,
    comparisons: OnCandidates,
    /// Φ upper values Φ(0..=T) for the theory β (label GP, comparison GP).
    phi: Option<(Vec<f64>, Vec<f64>)>,
    initial_duels: usize,
    initial_labels: usize,
    progress: Progress<usize>,
    pending: Option<(Query, Decision)>,
    last: Option<Decision>,
}

/// The selection of phase 2 (lines 9 and the fallback), as a pure function: the index maximising
/// `ucb_f` over the candidates with `phi ≥ 0` (lowest index on ties), and whether none was feasible
/// (then the fallback's choice: argmax φ, the phase-1 exit point, or argmax `ucb_f`).
pub fn select_constrained(
    ucb_f: &[f64],
    phi: &[f64],
    fallback: EmptyFallback,
    exit_point: usize,
) -> Result<(usize, bool)> {
    if ucb_f.len() != phi.len() {
        return Err(Error::dims("φ values vs UCB values", ucb_f.len(), phi.len()));
    }
    let feasible = phi.iter().filter(|&&p| p >= 0.0).count();
    if feasible > 0 {
        let i = argmax_lowest(ucb_f.iter().zip(phi).map(|(&u, &p)| if p >= 0.0 { u } else { f64::NEG_INFINITY }))?;
        return Ok((i, false));
    }
    let i = match fallback {
        EmptyFallback::ArgmaxPhi => argmax_lowest(phi.iter().copied())?,
        EmptyFallback::ExitPoint => exit_point,
        EmptyFallback::Unconstrained => argmax_lowest(ucb_f.iter().copied())?,
    };
    Ok((i, true))
}

impl CompGpUcb {
    /// COMP-GP-UCB on the candidates of `ctx` with a checked config, at the costs of the
    /// context's budget ([`Costs::of_context`]: unit costs without one; errors name
    /// `budget.duel`, `budget.evaluate`, `budget.total`, and `budget.total` under Algorithm 2
    /// without a budget). With the theory β, computes the greedy bracket of Φ(0..=T) for T = the
    /// context's horizon (O(n²T) per GP). Errors if the kernel's fixed input dimension differs from
    /// the candidates'.
    pub fn new(ctx: &SearchContext, config: ValidCompGpUcbConfig) -> Result<Self> {
        let (hyper, comparison_hyper) =
            (config.checked_hyperparameters().clone(), config.checked_comparison_hyperparameters().clone());
        let config = config.into_config();
        let costs = Costs::of_context(ctx.costs())?;
        let stage_labels = config.stage_labels(&costs)?;
        let domain = ctx.domain().clone();
        if let Some(d) = config.kernel.build()?.input_dim()
            && d != domain.dim()
        {
            return Err(Error::dims("kernel input dimension vs candidates", domain.dim(), d));
        }
        let r_noise = config.comparison_noise.unwrap_or(config.noise);
        let labels = model(&config.kernel, hyper.as_ref(), config.noise, &domain, "hyperparameters")?;
        let comparisons =
            model(&config.kernel, comparison_hyper.as_ref(), r_noise, &domain, "comparison_hyperparameters")?;
        let phi = if matches!(config.beta, WidthSchedule::Theory { .. }) {
            let gram = config.kernel.build()?.gram(domain.points())?;
            let upper = |noise: f64| -> Result<Vec<f64>> {
                let g = bohf_infogain::greedy_points(&gram, noise, ctx.horizon())?;
                (0..=ctx.horizon()).map(|s| g.bracket_at(s).map(|b| b.upper)).collect()
            };
            Some((upper(config.noise)?, upper(r_noise)?))
        } else {
            None
        };
        let (initial_duels, initial_labels) = config.initial_counts(&costs);
        let progress = Progress::new(&config, stage_labels);
        let (labels, comparisons) = (OnCandidates::new(labels, &domain)?, OnCandidates::new(comparisons, &domain)?);
        Ok(Self {
            config,
            costs,
            domain,
            horizon: ctx.horizon(),
            labels,
            comparisons,
            phi,
            initial_duels,
            initial_labels,
            progress,
            pending: None,
            last: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &CompGpUcbConfig {
        &self.config
    }

    /// The costs and budget the algorithm plans with (the run's budget).
    pub fn costs(&self) -> &Costs {
        &self.costs
    }

    /// The candidates.
    pub fn domain(&self) -> &FiniteDomain {
        &self.domain
    }

    /// The GP of f (from the values; a learned one keeps no posterior: see [`CompGpUcb::posterior`]).
    pub fn label_gp(&self) -> &ValueGp {
        self.labels.gp()
    }

    /// The GP of f_r (from the duel outcomes; a learned one keeps no posterior: see [`CompGpUcb::posterior`]).
    pub fn comparison_gp(&self) -> &ValueGp {
        self.comparisons.gp()
    }

    /// The current γ.
    pub fn gamma(&self) -> f64 {
        self.progress.gamma
    }

    /// The current ζ_k (Algorithm 2) or the known ζ, in units of f.
    pub fn zeta(&self) -> f64 {
        self.progress.zeta_k
    }

    /// The phase-1 exit point and the frozen f̂_r, once phase 1 has ended.
    pub fn phase1_exit(&self) -> Option<(usize, f64)> {
        self.progress.exit
    }

    /// The number of answered queries.
    pub fn answered(&self) -> usize {
        self.progress.answered
    }

    /// The numbers of initial random duels and evaluations.
    pub fn initial_counts(&self) -> (usize, usize) {
        (self.initial_duels, self.initial_labels)
    }

    /// What the last suggestion (or replayed step) computed.
    pub fn last_decision(&self) -> Option<&Decision> {
        self.last.as_ref()
    }

    /// The posterior mean and standard deviation of a GP at every candidate, evaluated from the
    /// model point by point (O(m·n²): the direct computation, for checks; the rule reads the
    /// incrementally kept [`CompGpUcb::posteriors`]). A learned GP of the algorithm keeps no
    /// posterior of its own: it is built first, in one batch ([`bohf_gp::LearnedGp::with_posterior`]).
    pub fn posterior(&self, gp: &ValueGp) -> Result<(Vec<f64>, Vec<f64>)> {
        posterior_on(gp, &self.domain)
    }

    /// The posterior means and standard deviations at every candidate that the rule uses, kept up
    /// to date incrementally (O(r·m) per observation, rebuilt after each refit): those of the f_r
    /// GP, then those of the f GP. They equal [`CompGpUcb::posterior`] up to rounding.
    pub fn posteriors(&self) -> (CandidateMoments, CandidateMoments) {
        (self.comparisons.mean_sd(), self.labels.mean_sd())
    }

    /// β_t of a GP (`comparison` = the f_r GP) at the step being chosen.
    pub fn beta(&self, comparison: bool) -> Result<f64> {
        let gp = if comparison { &self.comparisons } else { &self.labels };
        let t = match self.config.beta_clock {
            BetaClock::Global => self.progress.answered + 1,
            BetaClock::PerGp => gp.len() + 1,
        };
        Ok(match self.config.beta {
            WidthSchedule::Theory { norm_bound, delta } => {
                let (l, r) = self.phi.as_ref().ok_or_else(|| Error::invalid("beta", "Φ was not computed"))?;
                let phi = if comparison { r } else { l };
                let v = phi.get(t - 1).copied().ok_or_else(|| {
                    Error::invalid(
                        "t",
                        format!(
                            "the theory β needs Φ_{} but it was computed up to the horizon {}",
                            t - 1,
                            self.horizon
                        ),
                    )
                })?;
                beta_igp_ucb(norm_bound, v, delta)
            }
            ref rule => beta_width(rule, t, self.domain.dim()),
        })
    }

    /// The ζ term of φ: c·L₂·ζ_k scaled (c = 2 under Algorithm 2, 1 under Algorithm 1).
    pub fn zeta_term(&self) -> f64 {
        self.progress.zeta_term(&self.config)
    }

    /// The lower bound f̂_r that φ uses now (phase 2), by [`LowerBoundRule`], from the f_r
    /// posterior `(m, s)` and its width `beta_r`.
    pub fn lower_bound(&self, m: &[f64], s: &[f64], beta_r: f64) -> f64 {
        self.progress.lower_bound(&self.config, || {
            m.iter().zip(s).map(|(mi, si)| mi - beta_r * si).fold(f64::NEG_INFINITY, f64::max)
        })
    }

    /// φ(x) = μ^r + β^r σ^r − f̂_r + c·L₂·ζ at every candidate (phase 2's constraint).
    pub fn constraint(&self) -> Result<Vec<f64>> {
        let (m, s) = self.comparisons.mean_sd();
        let br = self.beta(true)?;
        let lower = self.lower_bound(&m, &s, br);
        let z = self.zeta_term();
        Ok(m.iter().zip(&s).map(|(mi, si)| mi + br * si - lower + z).collect())
    }

    /// The decision of the next step: a function of the history only (module docs).
    pub fn decide(&self) -> Result<Decision> {
        let done = self.progress.answered;
        let mut d = Decision {
            phase: Phase::Initial,
            kind: Feedback::Duel,
            index: None,
            t: match self.config.beta_clock {
                BetaClock::Global => done + 1,
                BetaClock::PerGp => self.comparisons.len() + 1,
            },
            beta_r: f64::NAN,
            beta: f64::NAN,
            beta_r_sigma_r: f64::NAN,
            gamma: self.progress.gamma,
            zeta_term: self.zeta_term(),
            f_hat: self.progress.exit.map_or(f64::NAN, |(_, f)| f),
            exits_phase1: false,
            feasible: 0,
            feasible_empty: false,
            stage: self.progress.stage,
        };
        if done < self.initial_duels + self.initial_labels {
            if done >= self.initial_duels {
                d.kind = Feedback::Evaluate;
            }
            return Ok(d);
        }
        let (m, s) = self.comparisons.mean_sd();
        let br = self.beta(true)?;
        d.beta_r = br;
        match self.progress.exit {
            None => {
                d.phase = Phase::Comparisons;
                let x = argmax_lowest(m.iter().zip(&s).map(|(mi, si)| mi + br * si))?;
                d.index = Some(x);
                d.beta_r_sigma_r = br * s[x];
                d.exits_phase1 = d.beta_r_sigma_r <= self.progress.gamma;
                d.f_hat = m[x] - d.beta_r_sigma_r;
            }
            Some((exit_point, _)) => {
                d.phase = Phase::Constrained;
                let lower = self.lower_bound(&m, &s, br);
                d.f_hat = lower;
                let phi: Vec<f64> = m.iter().zip(&s).map(|(mi, si)| mi + br * si - lower + d.zeta_term).collect();
                let (ml, sl) = self.labels.mean_sd();
                let b = self.beta(false)?;
                d.beta = b;
                let ucb: Vec<f64> = ml.iter().zip(&sl).map(|(mi, si)| mi + b * si).collect();
                let (x, empty) = select_constrained(&ucb, &phi, self.config.fallback, exit_point)?;
                d.index = Some(x);
                d.feasible = phi.iter().filter(|&&p| p >= 0.0).count();
                d.feasible_empty = empty;
                d.beta_r_sigma_r = br * s[x];
                d.kind = if d.beta_r_sigma_r >= self.progress.gamma { Feedback::Duel } else { Feedback::Evaluate };
            }
        }
        Ok(d)
    }
}

impl Optimizer for CompGpUcb {
    fn name(&self) -> &'static str {
        "COMP-GP-UCB"
    }

    /// The decision of [`CompGpUcb::decide`]; the opponents of duels and the initial points are
    /// drawn uniformly from the candidates with `rng`.
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let d = self.decide()?;
        let n = self.domain.len();
        let x = match d.index {
            Some(x) => x,
            None => rng.random_range(0..n),
        };
        let query = match d.kind {
            Feedback::Duel => Query::Duel(self.domain.point(x)?, self.domain.point(rng.random_range(0..n))?),
            Feedback::Evaluate => Query::Evaluate(self.domain.point(x)?),
        };
        self.pending = Some((query.clone(), d.clone()));
        self.last = Some(d);
        Ok(query)
    }

    /// Errors (naming `query` or `answer`) for a query of the wrong kind or at another candidate
    /// than the rule chooses, a point that is not a candidate, or an answer of the wrong kind or a
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
                    format!("COMP-GP-UCB asks duels and evaluations, got a query of kind `{kind}`"),
                ));
            }
        };
        if kind != d.kind {
            return Err(Error::invalid(
                "query",
                format!("COMP-GP-UCB's next step ({} phase) is a {:?}, got {query:?}", d.phase.label(), d.kind),
            ));
        }
        if let Some(x) = d.index
            && x != first
        {
            return Err(Error::invalid("query", format!("the rule chooses candidate {x}, got candidate {first}")));
        }
        record_answer(&mut self.comparisons, &mut self.labels, kind, answer, |gp, y| gp.append(first, y))?;
        self.progress.record(&self.config, &self.costs, &d, kind, first);
        self.pending = None;
        self.last = Some(d);
        Ok(())
    }

    /// The candidate with the largest posterior mean of f (lowest index on ties); before any
    /// value, the largest posterior mean of f_r.
    fn recommend(&self) -> Result<Point> {
        let gp = if self.labels.is_empty() { &self.comparisons } else { &self.labels };
        self.domain.point(argmax_lowest(gp.mean_sd().0)?)
    }

    /// `phase` (initial, 1, 2), `query` (duel, evaluate), `t`, `beta_r_sigma_r`, `gamma`,
    /// `zeta_term` (c·L₂·ζ in f_r units), `f_hat`, `feasible` (candidates with φ ≥ 0),
    /// `feasible_empty`, `exits_phase1`, `stage`.
    fn step_details(&self) -> StepDetails {
        self.last.as_ref().map(details).unwrap_or_default()
    }
}
