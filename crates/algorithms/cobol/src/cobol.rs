//! The COBOL optimiser (Algorithm 1), COBOHL (Algorithm 2) and COBOL's vanilla-LCB baseline, on a
//! finite candidate set or a box.

use crate::config::{
    CobolBoxSearch, CobolConfig, DualRule, NoHarmRule, ValidCobolBoxSearch, ValidCobolConfig, Variant, XcSearch,
};
use crate::model::{Bounds, FModel, GModel, GPoint, KnownMle, MleStarts, ZValue, alpha1, doubling_says_double};
use bohf_core::rand::Rng;
use bohf_core::{Answer, BoxDomain, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext};
use bohf_kernels::Stationary;
use nalgebra::{DMatrix, DVector};

mod decide;
mod observe;
mod search;
mod state;

pub use decide::no_harm_paper;
pub(crate) use search::local_xc;

/// bohf maximises a utility u; COBOL minimises f. **The one place of the negation**: every value
/// u entering COBOL becomes f = −u, and everything inside (LCB, UCB, the no-harm test, regret)
/// is in COBOL's minimisation convention.
pub fn cobol_objective(utility: f64) -> f64 {
    -utility
}

/// Which branch line 6 of Algorithm 1 took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Branch {
    /// The no-harm test passed: x_t = x^c (line 7).
    Expert,
    /// The no-harm test failed: x_t = x^u (line 14).
    Vanilla,
    /// COBOHL's constrained LCB point.
    Constrained,
    /// One of the expert's draws for the pinpoint of [`Variant::Pinpoint`] (before line 6).
    Pinpoint,
}

/// The phase a query belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// One of the initial uniformly random evaluations.
    InitialEvaluation,
    /// One of the initial uniformly random labels.
    InitialLabel,
    /// An iteration t of the algorithm.
    Iteration,
}

/// What one suggestion computed (per query; an iteration that asks the expert and then evaluates
/// makes two queries with the same `iteration`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StepInfo {
    /// The phase.
    pub phase: Phase,
    /// The iteration t of Algorithm 1 (0 in the initial phase).
    pub iteration: usize,
    /// Line 6's branch (iterations only; `None` for the evaluation following an accepted label).
    pub branch: Option<Branch>,
    /// λ_t used by this iteration's primal problem.
    pub lambda: f64,
    /// λ_{t+1} after the dual update.
    pub lambda_next: f64,
    /// g_upper − g_lower at x_t, when line 8 was reached.
    pub g_width: Option<f64>,
    /// β_{f_t}.
    pub beta: f64,
    /// B_g and α₁ of g's set.
    pub norm_bound: f64,
    /// α₁.
    pub alpha: f64,
    /// The exact conic programs solved for x^c (the rest pruned by certified bounds).
    pub solved: usize,
    /// The number of candidate points searched for x^c.
    pub candidates: usize,
    /// x^c = argmin LCB + λ·g_lower (COBOL) or COBOHL's constrained point, when the iteration
    /// computed one (whichever branch line 6 then took).
    #[serde(default)]
    pub primal: Option<Vec<f64>>,
    /// Pointwise g programs whose solver failed, replaced by their certified outer bounds
    /// ([`crate::model::GModel::lower`]).
    #[serde(default)]
    pub fallbacks: usize,
    /// The certified optimality gap of x^c (COBOL iterations): J(x^c) minus the smallest certified
    /// lower bound of J over the candidates the work bound left undecided ([`XcSearch`]), at
    /// least 0; 0 when nothing was left undecided (always, with the exact search).
    #[serde(default)]
    pub gap: Option<f64>,
    /// J(x^c) = LCB(x^c) + λ·z(x^c), the objective of Eq. (5) at the taken x^c (COBOL iterations).
    #[serde(default)]
    pub objective: Option<f64>,
    /// Whether x^c came from the local search ([`XcSearch::Local`]: no certified gap).
    #[serde(default)]
    pub local: bool,
    /// (draws, accepts kept, rejects kept) when the cap [`CobolConfig::initial_label_draws`] ended
    /// the initial labels at this draw.
    #[serde(default)]
    pub initial_labels_capped: Option<(usize, usize, usize)>,
}

#[derive(Clone)]
enum Space {
    Finite(FiniteDomain),
    Box(BoxDomain, CobolBoxSearch),
}

/// A point with its candidate index (finite mode).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pt {
    x: Vec<f64>,
    index: Option<usize>,
}

impl Pt {
    fn point(&self) -> Point {
        match self.index {
            Some(i) => Point::candidate(i, self.x.clone()),
            None => Point::continuous(self.x.clone()),
        }
    }
}

/// An iteration's search points, their bounds of f, the indices of x^u and x_U among them, and the
/// starts of the local x^c search ([`XcSearch::Local`]; empty otherwise).
type SearchPoints = (Vec<Pt>, Vec<Bounds>, usize, usize, Vec<Vec<f64>>);

/// What the next query is, decided from the data (see [`Cobol`]).
#[derive(Debug, Clone)]
pub(crate) struct Decision {
    pub(crate) query: Query,
    pub(crate) info: StepInfo,
}

/// COBOL (Xu, Adachi, Jones & Osborne, NeurIPS 2024, Algorithm 1): Bayesian optimisation with an
/// expert's accept/reject labels, with handover and no-harm guarantees. bohf's `u` is maximised
/// through f = −u ([`cobol_objective`]).
///
/// **Initial data** (§5.1): `initial_evaluations` uniformly random evaluations, then
/// `initial_labels` labels at uniformly random points (balanced as the authors' sampler draws
/// them, up to [`CobolConfig::initial_label_draws`] draws: see [`CobolConfig::balanced_labels`]),
/// then App. F's doubling test over the prefixes of the initial
/// labels (pre-training).
///
/// **Iteration t** (one or two queries):
///
/// 1. f's GP (eq. (2a)/(2b)) with ARD-SE lengthscales fitted by type-II ML after every
///    evaluation (inputs scaled to [0, 1]^d, outputs standardised, r = 10⁻⁴, outputscale 1), and
///    β_{f_t} ([`crate::CobolConfig::beta`]); LCB = μ − βσ, UCB = μ + βσ (Lemma 3.1).
/// 2. g's set C_t = {‖g̃‖_{k_g} ≤ B_g, ℓ_t(g̃) ≥ ℓ_t(ĝ^MLE) − α₁} (Lemma 3.2) with k_g the
///    fitted kernel of f (Table 3), from bohf-confidence; g_lower/g_upper are eq. (39)/(38),
///    protected by the MLE interpolant.
/// 3. x^c = argmin LCB(x) + λ_t g_lower(x) (Eq. (5), via Prob. (6) at fixed x): exact inner
///    conic programs, solved best-first only where certified cheap bounds (the MLE value and the
///    set's known feasible points above, the ball ∩ likelihood-tangent halfspace and the latent
///    box below) cannot rule the point out, and not at all where that enclosure has closed (the
///    box floor reached by a feasible point, or a floor at ĝ(x)); the decisions equal those of
///    solving every candidate's program (tested). With a work bound
///    ([`CobolConfig::search`] = [`XcSearch::Programs`]) at most K programs are solved, x^c is the
///    best decided candidate and the step records its certified optimality gap;
///    λ_{t+1} = [λ_t + ζ g_lower(x^c)]⁺ ([`crate::DualRule`]).
/// 4. x^u = argmin LCB, min UCB.
/// 5. Line 6 ([`crate::NoHarmRule`]): x^c if LCB(x^c) ≤ min UCB and σ(x^u) ≤ η σ(x^c), else x^u.
/// 6. With x^c: if g_upper(x^c) − g_lower(x^c) > g_thr, the query is [`Query::Label`]; a reject
///    ends the iteration (x^c is **not** evaluated), an accept makes the next query
///    [`Query::Evaluate`] of x^c. Otherwise, and with x^u, the query is the evaluation.
/// 7. After each label: App. F's doubling test when the number of labels is a multiple of
///    `doubling_every` (B_g ← 2B_g and c_α ← 2c_α if rejected).
///
/// **Determinism and replay.** The state is the config plus the (query, answer) history. The
/// only randomness of an iteration (box mode: the candidate points of x^c and the LCB search) is
/// drawn from a stream seeded by the first evaluated point, so an iteration is a function of the
/// history; [`Optimizer::observe`] with nothing pending recomputes the iteration's decision (for
/// λ) and then records the answer, so replaying a history reproduces the run.
#[derive(Clone)]
pub struct Cobol {
    /// Checked once, by the caller ([`CobolConfig::check`]); never changed, so never checked again.
    config: ValidCobolConfig,
    /// `config.hyper`, checked once here for every fit of f's model.
    hyper: bohf_gp::regression::ValidHyperFitConfig,
    space: Space,
    scaling: BoxDomain,
    evals: Vec<(Pt, f64)>,
    pub(crate) labels: Vec<(Vec<f64>, bool)>,
    initial_label_queries: usize,
    initial_done: bool,
    lambda: f64,
    pub(crate) norm_bound: f64,
    pub(crate) c_alpha: f64,
    model: Option<FModel>,
    /// The start kernel and the number of evaluations of the fit that made `model`.
    model_fit: Option<(Stationary, usize)>,
    pub(crate) iteration: usize,
    /// x^c after an accepted label: the next query evaluates it.
    awaiting_evaluation: Option<Pt>,
    pending: Option<(Query, StepInfo)>,
    last_step: Option<StepInfo>,
    expert_queries: usize,
    /// Reference mode (tests): x^c from every candidate's exact program, no pruning.
    pub(crate) exact_all: bool,
    /// The MLEs of the last doubling test (B_g and 2B_g), reused by the next iteration's set when
    /// it poses the same program ([`GModel::with_known_mles`]); off in tests' reference mode.
    pub(crate) known_mles: Vec<KnownMle>,
    pub(crate) reuse_mles: bool,
    /// Where g's last MLEs ended: the next MLE starts there ([`MleStarts`]); saved with the state.
    pub(crate) mle_starts: MleStarts,
    /// Whether g's MLEs start from [`Cobol::mle_starts`] (tests switch it off to compare).
    pub(crate) warm_mles: bool,
    /// Whether the x^c search screens with the curvature bounds ([`GModel::tighten`]) before
    /// solving a program (tests switch it off to compare).
    pub(crate) curvature_screening: bool,
    /// [`Variant::Pinpoint`]: the expert's accepted draw, x^c of the current iteration.
    pinpointed: Option<Pt>,
    /// [`Variant::Pinpoint`]: the draws made for the current iteration's pinpoint.
    pinpoint_draws: usize,
}

impl std::fmt::Debug for Cobol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cobol")
            .field("evaluations", &self.evals.len())
            .field("labels", &self.labels.len())
            .field("lambda", &self.lambda)
            .finish()
    }
}

impl Cobol {
    /// COBOL on the candidate set of `ctx`.
    pub fn new(ctx: &SearchContext, config: ValidCobolConfig) -> Result<Self> {
        if matches!(config.search, XcSearch::Local { .. }) {
            return Err(Error::invalid(
                "search.local",
                "the local x^c search needs a box domain (a finite candidate set has no neighbourhoods)",
            ));
        }
        let scaling = ctx.domain().bounding_box()?;
        Self::with_space(config, Space::Finite(ctx.domain().clone()), scaling)
    }

    /// COBOL on the box of `ctx`, with the box search `search`.
    pub fn new_box(
        ctx: &SearchContext<BoxDomain>,
        config: ValidCobolConfig,
        search: ValidCobolBoxSearch,
    ) -> Result<Self> {
        let domain = ctx.domain().clone();
        Self::with_space(config, Space::Box(domain.clone(), search.into_config()), domain)
    }

    fn with_space(config: ValidCobolConfig, space: Space, scaling: BoxDomain) -> Result<Self> {
        let c_alpha = match config.alpha {
            crate::AlphaRule::Practical { initial } => initial,
            crate::AlphaRule::Lemma32 { .. } => 1.0,
        };
        let hyper = config.checked_hyper().clone();
        Ok(Self {
            hyper,
            lambda: config.lambda0,
            norm_bound: config.confidence.norm_bound,
            c_alpha,
            config,
            space,
            scaling,
            evals: Vec::new(),
            labels: Vec::new(),
            initial_label_queries: 0,
            initial_done: false,
            model: None,
            model_fit: None,
            iteration: 0,
            awaiting_evaluation: None,
            pending: None,
            last_step: None,
            expert_queries: 0,
            exact_all: false,
            known_mles: Vec::new(),
            reuse_mles: true,
            mle_starts: MleStarts::default(),
            warm_mles: true,
            curvature_screening: true,
            pinpointed: None,
            pinpoint_draws: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &CobolConfig {
        self.config.config()
    }

    /// λ_t, the dual variable of the next iteration.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The current B_g.
    pub fn norm_bound(&self) -> f64 {
        self.norm_bound
    }

    /// The current c_α of the practical α₁.
    pub fn c_alpha(&self) -> f64 {
        self.c_alpha
    }

    /// The evaluated points and their values f = −u.
    pub fn evaluations(&self) -> Vec<(Vec<f64>, f64)> {
        self.evals.iter().map(|(p, f)| (p.x.clone(), *f)).collect()
    }

    /// The labels used by g's set: (point, reject).
    pub fn labels(&self) -> &[(Vec<f64>, bool)] {
        &self.labels
    }

    /// Expert queries made by the iterations (Q^g_t; the initial labels excluded, as in the code).
    pub fn expert_queries(&self) -> usize {
        self.expert_queries
    }

    /// Whether the next query is the evaluation of an accepted x^c (tests).
    #[cfg(test)]
    pub(crate) fn awaits_evaluation(&self) -> bool {
        self.awaiting_evaluation.is_some()
    }

    /// Test support: switches the x^c search (the rest of the configuration unchanged).
    #[cfg(test)]
    pub(crate) fn set_search(&mut self, search: crate::XcSearch) {
        let config = CobolConfig { search, ..self.config.config().clone() };
        self.config = config.check().expect("a valid search");
    }

    /// Whether the next query is an iteration's decision (not an initial query, nor the
    /// evaluation after an accepted label).
    #[cfg(test)]
    pub(crate) fn deciding_next(&self) -> bool {
        self.phase() == Phase::Iteration && self.awaiting_evaluation.is_none()
    }

    /// What the last suggestion computed.
    pub fn last_step(&self) -> Option<&StepInfo> {
        self.last_step.as_ref()
    }

    /// The fitted model of f, once there is one.
    pub fn f_model(&self) -> Option<&FModel> {
        self.model.as_ref()
    }

    fn initial_labels_wanted(&self) -> usize {
        if self.config.variant.uses_labels() { self.config.initial_labels } else { 0 }
    }

    fn kernel(&self) -> Result<Stationary> {
        match &self.model {
            Some(m) => Ok(m.kernel().clone()),
            None => self.start_kernel(),
        }
    }

    /// The start of the first fit: SE-ARD at the mode-free centre e^μ of the lengthscale prior
    /// (BoTorch's dim-scaled log-normal), or 0.5 without a prior.
    fn start_kernel(&self) -> Result<Stationary> {
        let d = self.scaling.dim();
        let l = self.config.hyper.lengthscale_prior.log_normal(d).map_or(0.5, |(mu, _)| mu.exp());
        let [lo, hi] = self.config.hyper.effective_lengthscale_bounds();
        let l = l.clamp(lo, hi);
        Stationary::se(l)?.with_ard(vec![l; d])
    }

    fn refit(&mut self) -> Result<()> {
        let start = self.kernel()?;
        self.fit_model(start, self.evals.len())
    }

    /// Fits f's model on the first `n` evaluations from `start`, and records both (the fit starts
    /// from the previous fit, so a saved state keeps them: [`Optimizer::save_state`]).
    fn fit_model(&mut self, start: Stationary, n: usize) -> Result<()> {
        let d = self.scaling.dim();
        let x = DMatrix::from_fn(n, d, |i, j| self.evals[i].0.x[j]);
        let f = DVector::from_iterator(n, self.evals[..n].iter().map(|e| e.1));
        self.model = Some(FModel::fit(&self.config, &self.hyper, &start, &x, &f, &self.scaling)?);
        self.model_fit = Some((start, n));
        Ok(())
    }

    fn model(&mut self) -> Result<&FModel> {
        if self.model.is_none() {
            self.refit()?;
        }
        Ok(self.model.as_ref().expect("fitted above"))
    }

    fn label_data(&self) -> Result<(Vec<Vec<f64>>, Vec<bool>)> {
        let m = self.model.as_ref().ok_or_else(|| Error::invalid("g", "no model of f yet"))?;
        let pts = self.labels.iter().map(|(x, _)| m.working(x)).collect::<Result<Vec<_>>>()?;
        Ok((pts, self.labels.iter().map(|l| l.1).collect()))
    }

    pub(crate) fn g_model(&mut self) -> Result<GModel> {
        self.model()?;
        let (pts, rejects) = self.label_data()?;
        let alpha = alpha1(&self.config.alpha, self.c_alpha, self.norm_bound, pts.len(), self.iteration)?;
        let known = if self.reuse_mles { &self.known_mles[..] } else { &[] };
        let n = pts.len();
        let key = (self.evals.len(), self.norm_bound);
        let start = self.mle_starts.for_labels(key.0, key.1, n).filter(|_| self.warm_mles);
        let g = GModel::with_known_mles(
            &self.config,
            &self.kernel()?,
            &pts,
            &rejects,
            self.norm_bound,
            alpha,
            known,
            start,
        )?;
        // Kept whether solved or reused (a reused MLE at 2B_g after B_g doubled is the start of the
        // next MLE, as it would be had it been solved here).
        self.mle_starts.keep(key.0, key.1, n, g.mle_warm_start());
        Ok(g)
    }

    /// App. F: one doubling test with the current labels; doubles B_g and c_α if B_g is rejected.
    pub(crate) fn doubling_test(&mut self, upto: usize) -> Result<()> {
        self.model()?;
        let (pts, rejects) = self.label_data()?;
        let kernel = self.kernel()?;
        let (pts, rejects) = (&pts[..upto], &rejects[..upto]);
        let key = (self.evals.len(), self.norm_bound);
        let start = self.mle_starts.for_labels(key.0, key.1, upto).filter(|_| self.warm_mles).cloned();
        let (double, known) = doubling_says_double(
            &self.config,
            &kernel,
            pts,
            rejects,
            self.norm_bound,
            self.c_alpha,
            self.iteration,
            start.as_ref(),
        )?;
        if let Some(k) = known.first() {
            self.mle_starts.keep(key.0, key.1, upto, k.mle.warm_start.as_ref());
        }
        self.known_mles = known;
        if double {
            self.norm_bound *= 2.0;
            self.c_alpha *= 2.0;
        }
        Ok(())
    }

    /// Test support: sets the state a recorded run had before an iteration (evaluations as
    /// (x, utility), labels as (x, reject), λ, B_g, α₁'s constant and t), initial phase done, f's
    /// model refitted.
    #[cfg(test)]
    pub(crate) fn restore_for_replay(
        &mut self,
        evals: &[(Vec<f64>, f64)],
        labels: Vec<(Vec<f64>, bool)>,
        (lambda, norm_bound, c_alpha, iteration): (f64, f64, f64, usize),
    ) -> Result<()> {
        self.evals = evals.iter().map(|(x, u)| (Pt { x: x.clone(), index: None }, cobol_objective(*u))).collect();
        self.labels = labels;
        self.initial_done = true;
        (self.lambda, self.norm_bound, self.c_alpha, self.iteration) = (lambda, norm_bound, c_alpha, iteration);
        self.refit()
    }

    /// Seeded by the first evaluated point (so a function of the history).
    fn iteration_rng(&self) -> bohf_core::BohfRng {
        let seed = self.evals.first().map_or(0u64, |(p, _)| {
            p.x.iter().fold(0x9e37_79b9_7f4a_7c15u64, |h, v| bohf_core::rng::splitmix64(h ^ v.to_bits()))
        });
        bohf_core::rng::stream(seed, &[self.iteration as u64])
    }

    fn random_point(&self, rng: &mut dyn Rng) -> Result<Pt> {
        use bohf_core::rand::RngExt;
        match &self.space {
            Space::Finite(d) => {
                let i = rng.random_range(0..d.len());
                Ok(Pt { x: d.coords(i)?, index: Some(i) })
            }
            Space::Box(b, _) => Ok(Pt { x: b.sample(rng), index: None }),
        }
    }

    fn phase(&self) -> Phase {
        if self.evals.len() < self.config.initial_evaluations && self.iteration == 0 && !self.initial_done {
            Phase::InitialEvaluation
        } else if !self.initial_done {
            Phase::InitialLabel
        } else {
            Phase::Iteration
        }
    }

    fn base_info(&self, phase: Phase) -> StepInfo {
        StepInfo {
            phase,
            iteration: if phase == Phase::Iteration { self.iteration } else { 0 },
            branch: None,
            lambda: self.lambda,
            lambda_next: self.lambda,
            g_width: None,
            beta: self.model.as_ref().map_or(f64::NAN, |m| m.beta),
            norm_bound: self.norm_bound,
            alpha: f64::NAN,
            solved: 0,
            fallbacks: 0,
            candidates: 0,
            primal: None,
            gap: None,
            objective: None,
            local: false,
            initial_labels_capped: None,
        }
    }
}
