//! COMP-GP-UCB on a continuous box (Algorithms 1 and 2; notes 002 §3 and §5.3's "DiRect" step),
//! with bohf-optim's multistart search ([`bohf_optim::maximize_on_box`]: a scrambled Sobol design
//! and a uniform sample screened, the best refined by projected L-BFGS with analytic gradients).
//!
//! The rule is that of the candidate-set [`crate::CompGpUcb`] (the same config, the same history
//! bookkeeping: phase-1 exit, γ-doubling, Algorithm 2's stages), with each argmax over the box:
//!
//! * **initial design**: uniformly random points of the box (duels against uniformly random
//!   opponents, then evaluations);
//! * **phase 1**: x_t = argmax_box μ^r + β^r σ^r (the multistart search; the observed point with the
//!   largest mean of the f_r GP is an extra start), duelled against a uniformly random opponent;
//!   the exit test and f̂_r as on candidates;
//! * **phase 2**: maximise UCB_f = μ + βσ subject to φ(x) = μ^r + β^r σ^r − f̂_r + c·L₂ζ ≥ 0
//!   ([`maximize_constrained`]): **screening** of one pool of points (the Sobol design and the
//!   uniform sample of `box_search`, plus the observed points of both GPs' incumbents), keeping
//!   those with φ ≥ 0; the `starts` feasible points with the largest UCB_f are refined by a local
//!   search on the **penalised** objective UCB_f − w·max(0, −φ) (w = `penalty` × the pool's spread
//!   of UCB_f / its spread of φ, so the penalty is unit-free), and a refined point is kept only if
//!   it is feasible (else its feasible start stands). The result is therefore always feasible
//!   when the pool has a feasible point. If none is, the configured fallback
//!   ([`crate::EmptyFallback`]): argmax φ over the box (the multistart search), the phase-1 exit
//!   point, or the unconstrained argmax of UCB_f; recorded as `feasible_empty = true`. `feasible`
//!   counts the pool's feasible points.
//! * the **running** f̂_r ([`crate::LowerBoundRule::Running`]) is the multistart maximum of
//!   μ^r − β^r σ^r over the box.
//!
//! The theory β (Φ over the candidates) has no box form: `beta.rule = "theory"` is refused. Every
//! decision given its point is a function of the history ([`CompGpUcbBox::decide_at`]), so a
//! replayed history restores the state; a live step's point depends on the search's random pool.
//! Recommendation: the observed point of f with the largest posterior mean (of f_r before any
//! value; the box's centre before any query).

use crate::compgpucb::{Progress, beta_width, details, model_on};
use crate::config::{BOX_BETA_RULES, BetaClock, Costs, EmptyFallback, LowerBoundRule, ValidCompGpUcbConfig};
use crate::{CompGpUcbConfig, Decision, Feedback, Phase};
use bohf_core::{
    Answer, AtField, BoxDomain, Error, Optimizer, Point, Query, Result, SearchContext, StepDetails, argmax_lowest,
};
use bohf_gp::{UcbObjective, ValueGp};
use bohf_optim::{LocalConfig, MultistartConfig, Objective, maximize_on_box, minimize_bounded, screening_pool};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The `box_search` table of COMP-GP-UCB's box mode: the multistart search of every argmax
/// ([`MultistartConfig`]'s fields) and the penalty weight of phase 2's constrained search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompBoxSearch {
    /// Scrambled Sobol points screened (default 256; 0 for none).
    pub design: usize,
    /// Uniform random points screened (default 256; 0 for none).
    pub samples: usize,
    /// Screened points refined by a local search (default 5).
    pub starts: usize,
    /// Each local search's settings.
    pub local: LocalConfig,
    /// w / (spread of UCB_f / spread of φ) > 0 in UCB_f − w·max(0, −φ) (default 10).
    pub penalty: f64,
}

impl Default for CompBoxSearch {
    fn default() -> Self {
        let m = MultistartConfig::default();
        Self { design: m.design, samples: m.samples, starts: m.starts, local: m.local, penalty: 10.0 }
    }
}

bohf_core::validated! {
    /// A [`CompBoxSearch`] that passed [`CompBoxSearch::check`].
    pub struct ValidCompBoxSearch(CompBoxSearch);
}

impl CompBoxSearch {
    /// The multistart settings.
    pub fn multistart(&self) -> MultistartConfig {
        MultistartConfig { design: self.design, samples: self.samples, starts: self.starts, local: self.local.clone() }
    }

    /// The search's check ([`MultistartConfig::check`]) and `penalty` > 0.
    pub fn check(&self) -> Result<ValidCompBoxSearch> {
        self.multistart().check()?;
        bohf_core::error::ensure_positive("penalty", self.penalty)?;
        Ok(ValidCompBoxSearch(self.clone()))
    }
}

/// The result of [`maximize_constrained`].
#[derive(Debug, Clone, PartialEq)]
pub struct ConstrainedMaximum {
    /// The best feasible point found.
    pub x: Vec<f64>,
    /// UCB_f there.
    pub value: f64,
    /// φ there (≥ 0).
    pub phi: f64,
    /// The pool's points with φ ≥ 0.
    pub feasible: usize,
    /// The pool's size.
    pub screened: usize,
}

/// Maximises `ucb` over the points of `domain` where `phi` ≥ 0 (module documentation: screening of
/// one pool drawn from `rng` plus `extra` points, local searches on the penalised objective from
/// the best feasible points, refined points kept only if feasible). `None` if no pool point is
/// feasible. Errors: the search's, a NaN value in the pool.
pub fn maximize_constrained<U: Objective + ?Sized, F: Objective + ?Sized>(
    ucb: &mut U,
    phi: &mut F,
    domain: &BoxDomain,
    rng: &mut (impl Rng + ?Sized),
    extra: &[Vec<f64>],
    search: &CompBoxSearch,
) -> Result<Option<ConstrainedMaximum>> {
    let mut pool = screening_pool(domain, search.design, search.samples, rng)?;
    pool.extend(extra.iter().cloned());
    let (mut u, mut p) = (Vec::with_capacity(pool.len()), Vec::with_capacity(pool.len()));
    for (i, x) in pool.iter().enumerate() {
        let (ui, pi) = (ucb.value(x)?, phi.value(x)?);
        if ui.is_nan() || pi.is_nan() {
            return Err(Error::NonFinite(format!("UCB or φ at screened point {i} ({x:?})")));
        }
        u.push(ui);
        p.push(pi);
    }
    let feasible: Vec<usize> = (0..pool.len()).filter(|&i| p[i] >= 0.0).collect();
    if feasible.is_empty() {
        return Ok(None);
    }
    let spread = |v: &[f64]| {
        let (lo, hi) = v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| (l.min(x), h.max(x)));
        (hi - lo).max(1e-12)
    };
    let weight = search.penalty * spread(&u) / spread(&p);
    let mut order = feasible.clone();
    // Best UCB first; the stable sort keeps the earlier point first among equal values.
    order.sort_by(|&a, &b| u[b].total_cmp(&u[a]));
    let mut candidates: Vec<(Vec<f64>, f64, f64)> = Vec::new();
    for &i in order.iter().take(search.starts.max(1)) {
        candidates.push((pool[i].clone(), u[i], p[i]));
        let r = {
            let penalised = |x: &[f64], g: &mut [f64]| -> Result<f64> {
                let v = ucb.value_and_gradient(x, g)?;
                let mut gp = vec![0.0; x.len()];
                let c = phi.value_and_gradient(x, &mut gp)?;
                let mut h = v;
                if c < 0.0 {
                    h += weight * c;
                    g.iter_mut().zip(&gp).for_each(|(g, d)| *g += weight * d);
                }
                g.iter_mut().for_each(|g| *g = -*g);
                Ok(-h)
            };
            minimize_bounded(penalised, &pool[i], domain.lower(), domain.upper(), &search.local)?
        };
        let (ux, px) = (ucb.value(&r.x)?, phi.value(&r.x)?);
        if px >= 0.0 && ux.is_finite() {
            candidates.push((r.x, ux, px));
        }
    }
    let k = argmax_lowest(candidates.iter().map(|c| c.1))?;
    let (x, value, phi_x) = candidates.swap_remove(k);
    Ok(Some(ConstrainedMaximum { x, value, phi: phi_x, feasible: feasible.len(), screened: pool.len() }))
}

/// COMP-GP-UCB on a box; see the module documentation.
#[derive(Debug)]
pub struct CompGpUcbBox {
    config: CompGpUcbConfig,
    search: CompBoxSearch,
    costs: Costs,
    domain: BoxDomain,
    labels: ValueGp,
    comparisons: ValueGp,
    initial_duels: usize,
    initial_labels: usize,
    progress: Progress<Vec<f64>>,
    pending: Option<(Query, Decision)>,
    last: Option<Decision>,
}

impl CompGpUcbBox {
    /// COMP-GP-UCB on the box of `ctx` at the costs of its budget ([`Costs::of_context`]). Errors
    /// name `beta.rule` for the theory β, `budget.…` for bad costs, or a kernel dimension that is
    /// not the box's.
    pub fn new(
        ctx: &SearchContext<BoxDomain>,
        config: ValidCompGpUcbConfig,
        search: ValidCompBoxSearch,
    ) -> Result<Self> {
        let (hyper, comparison_hyper) =
            (config.checked_hyperparameters().clone(), config.checked_comparison_hyperparameters().clone());
        let (config, search) = (config.into_config(), search.into_config());
        let costs = Costs::of_context(ctx.costs())?;
        let stage_labels = config.stage_labels(&costs)?;
        let domain = ctx.domain().clone();
        config.beta.check("COMP-GP-UCB on a box", &BOX_BETA_RULES).at("beta")?;
        if let Some(d) = config.kernel.build().at("kernel")?.input_dim()
            && d != domain.dim()
        {
            return Err(Error::dims("kernel input dimension vs box", domain.dim(), d));
        }
        let labels = model_on(&config.kernel, hyper.as_ref(), config.noise, &domain, "hyperparameters")?;
        let comparisons = model_on(
            &config.kernel,
            comparison_hyper.as_ref(),
            config.comparison_noise.unwrap_or(config.noise),
            &domain,
            "comparison_hyperparameters",
        )?;
        let (initial_duels, initial_labels) = config.initial_counts(&costs);
        let progress = Progress::new(&config, stage_labels);
        Ok(Self {
            config,
            search,
            costs,
            domain,
            labels,
            comparisons,
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

    /// The box.
    pub fn domain(&self) -> &BoxDomain {
        &self.domain
    }

    /// The GP of f.
    pub fn label_gp(&self) -> &ValueGp {
        &self.labels
    }

    /// The GP of f_r.
    pub fn comparison_gp(&self) -> &ValueGp {
        &self.comparisons
    }

    /// γ in force.
    pub fn gamma(&self) -> f64 {
        self.progress.gamma
    }

    /// The phase-1 exit point and frozen f̂_r, once phase 1 has ended.
    pub fn phase1_exit(&self) -> Option<&(Vec<f64>, f64)> {
        self.progress.exit.as_ref()
    }

    /// The number of answered queries.
    pub fn answered(&self) -> usize {
        self.progress.answered
    }

    /// The last decision.
    pub fn last_decision(&self) -> Option<&Decision> {
        self.last.as_ref()
    }

    /// β_t of a GP (`comparison` = the f_r GP) at the step being chosen.
    pub fn beta(&self, comparison: bool) -> Result<f64> {
        let gp = if comparison { &self.comparisons } else { &self.labels };
        let t = match self.config.beta_clock {
            BetaClock::Global => self.progress.answered + 1,
            BetaClock::PerGp => gp.len() + 1,
        };
        Ok(beta_width(&self.config.beta, t, self.domain.dim()))
    }

    /// μ + βσ of the f GP (`comparison` false) or of the f_r GP, as an objective.
    pub fn ucb(&self, comparison: bool) -> Result<UcbObjective<'_>> {
        let gp = if comparison { &self.comparisons } else { &self.labels };
        Ok(UcbObjective { gp, beta: self.beta(comparison)? })
    }

    /// φ(x) = μ^r + β^r σ^r − f̂_r + c·L₂ζ with the lower bound `lower`.
    pub fn phi_at(&self, x: &[f64], lower: f64) -> Result<f64> {
        Ok(self.ucb(true)?.value(x)? - lower + self.progress.zeta_term(&self.config))
    }

    /// The decision of the next step if its point is `x`: a function of the history and `x` (phase
    /// and kind, β^r σ^r(x), the phase-1 exit test and f̂_r; phase 2's `f_hat` is the frozen one
    /// and `feasible` 0, which [`Optimizer::suggest`] fills in).
    pub fn decide_at(&self, x: &[f64]) -> Result<Decision> {
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
            zeta_term: self.progress.zeta_term(&self.config),
            f_hat: self.progress.exit.as_ref().map_or(f64::NAN, |(_, f)| *f),
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
        let br = self.beta(true)?;
        d.beta_r = br;
        let (m, v) = self.comparisons.mean_variance_at(x)?;
        d.beta_r_sigma_r = br * v.max(0.0).sqrt();
        if self.progress.exit.is_none() {
            d.phase = Phase::Comparisons;
            d.exits_phase1 = d.beta_r_sigma_r <= self.progress.gamma;
            d.f_hat = m - d.beta_r_sigma_r;
        } else {
            d.phase = Phase::Constrained;
            d.beta = self.beta(false)?;
            d.kind = if d.beta_r_sigma_r >= self.progress.gamma { Feedback::Duel } else { Feedback::Evaluate };
        }
        Ok(d)
    }

    /// The incumbents of both GPs (extra starts of the searches).
    fn incumbents(&self) -> Result<Vec<Vec<f64>>> {
        Ok(self.labels.incumbent()?.into_iter().chain(self.comparisons.incumbent()?).collect())
    }

    /// Chooses the next point with `rng` and its decision.
    fn choose(&self, rng: &mut dyn Rng) -> Result<(Vec<f64>, Decision)> {
        let done = self.progress.answered;
        if done < self.initial_duels + self.initial_labels {
            let x = self.domain.sample(rng);
            let d = self.decide_at(&x)?;
            return Ok((x, d));
        }
        let search = self.search.multistart();
        let extra = self.incumbents()?;
        let Some((exit_point, _)) = &self.progress.exit else {
            let mut ucb_r = self.ucb(true)?;
            let best = maximize_on_box(&mut ucb_r, &self.domain, &mut *rng, &extra, &search)?;
            let d = self.decide_at(&best.x)?;
            return Ok((best.x, d));
        };
        let br = self.beta(true)?;
        let running = if self.config.lower_bound == LowerBoundRule::Frozen {
            f64::NAN
        } else {
            // The running f̂_r: the maximum LCB of f_r over the box (μ − βσ is m + (−β)σ).
            let mut lcb = UcbObjective { gp: &self.comparisons, beta: -br };
            maximize_on_box(&mut lcb, &self.domain, &mut *rng, &extra, &search)?.value
        };
        let lower = self.progress.lower_bound(&self.config, || running);
        let offset = self.progress.zeta_term(&self.config) - lower;
        let ucb_r = self.ucb(true)?;
        let mut phi = |x: &[f64], g: &mut [f64]| -> Result<f64> {
            let mut o = ucb_r;
            Ok(o.value_and_gradient(x, g)? + offset)
        };
        let mut ucb_f = self.ucb(false)?;
        let found = maximize_constrained(&mut ucb_f, &mut phi, &self.domain, &mut *rng, &extra, &self.search)?;
        let (x, feasible, empty) = match found {
            Some(c) => (c.x, c.feasible, false),
            None => {
                let x = match self.config.fallback {
                    EmptyFallback::ArgmaxPhi => maximize_on_box(&mut phi, &self.domain, &mut *rng, &extra, &search)?.x,
                    EmptyFallback::ExitPoint => exit_point.clone(),
                    EmptyFallback::Unconstrained => {
                        maximize_on_box(&mut ucb_f, &self.domain, &mut *rng, &extra, &search)?.x
                    }
                };
                (x, 0, true)
            }
        };
        let mut d = self.decide_at(&x)?;
        d.f_hat = lower;
        d.feasible = feasible;
        d.feasible_empty = empty;
        Ok((x, d))
    }
}

impl Optimizer for CompGpUcbBox {
    fn name(&self) -> &'static str {
        "COMP-GP-UCB"
    }

    /// The point of the rule (module documentation), found with `rng`'s screening pools; duel
    /// opponents and initial points are uniform in the box.
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let (x, d) = self.choose(&mut *rng)?;
        let query = match d.kind {
            Feedback::Duel => Query::Duel(Point::continuous(x), Point::continuous(self.domain.sample(rng))),
            Feedback::Evaluate => Query::Evaluate(Point::continuous(x)),
        };
        self.pending = Some((query.clone(), d.clone()));
        self.last = Some(d);
        Ok(query)
    }

    /// Errors (naming `query` or `answer`) for a point outside the box, a query other than the
    /// pending suggestion (when one is pending), a query of the kind the history rules out
    /// (e.g. an evaluation in phase 1), or an answer of the wrong kind or a non-finite value;
    /// nothing is recorded then. Without a pending suggestion (a replayed history) any point of the
    /// right kind is accepted.
    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let (x, kind) = match query {
            Query::Duel(p, q) => {
                self.domain.checked_point(q, "opponent")?;
                (self.domain.checked_point(p, "duelled")?.to_vec(), Feedback::Duel)
            }
            Query::Evaluate(p) => (self.domain.checked_point(p, "evaluated")?.to_vec(), Feedback::Evaluate),
            other => {
                let kind = other.kind();
                return Err(Error::invalid(
                    "query",
                    format!("COMP-GP-UCB asks duels and evaluations, got a query of kind `{kind}`"),
                ));
            }
        };
        let d = match &self.pending {
            Some((q, d)) if q == query => d.clone(),
            Some((q, _)) => {
                return Err(Error::invalid(
                    "query",
                    format!("the query {query:?} is not the pending suggestion {q:?}"),
                ));
            }
            None => self.decide_at(&x)?,
        };
        if kind != d.kind {
            return Err(Error::invalid(
                "query",
                format!("COMP-GP-UCB's next step ({} phase) is a {:?}, got {query:?}", d.phase.label(), d.kind),
            ));
        }
        crate::compgpucb::record_answer(&mut self.comparisons, &mut self.labels, kind, answer, |gp, y| {
            gp.append(&x, y)
        })?;
        self.progress.record(&self.config, &self.costs, &d, kind, x);
        self.pending = None;
        self.last = Some(d);
        Ok(())
    }

    /// The observed point of f with the largest posterior mean; before any value that of f_r;
    /// before any query the box's centre.
    fn recommend(&self) -> Result<Point> {
        let x = match (self.labels.incumbent()?, self.comparisons.incumbent()?) {
            (Some(x), _) | (None, Some(x)) => x,
            (None, None) => self.domain.lower().iter().zip(self.domain.upper()).map(|(l, u)| 0.5 * (l + u)).collect(),
        };
        Ok(Point::continuous(x))
    }

    /// As on candidates; `feasible` counts the screened pool's points with φ ≥ 0.
    fn step_details(&self) -> StepDetails {
        self.last.as_ref().map(details).unwrap_or_default()
    }
}
