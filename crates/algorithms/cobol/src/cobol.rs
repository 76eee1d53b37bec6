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

mod state;

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
///    β_{f_t} ([`crate::BetaRule`]); LCB = μ − βσ, UCB = μ + βσ (Lemma 3.1).
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
    config: CobolConfig,
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
        Ok(Self::with_space(config, Space::Finite(ctx.domain().clone()), scaling))
    }

    /// COBOL on the box of `ctx`, with the box search `search`.
    pub fn new_box(
        ctx: &SearchContext<BoxDomain>,
        config: ValidCobolConfig,
        search: ValidCobolBoxSearch,
    ) -> Result<Self> {
        let domain = ctx.domain().clone();
        Ok(Self::with_space(config, Space::Box(domain.clone(), search.into_config()), domain))
    }

    fn with_space(config: ValidCobolConfig, space: Space, scaling: BoxDomain) -> Self {
        let config = config.into_config();
        let c_alpha = match config.alpha {
            crate::AlphaRule::Practical { initial } => initial,
            crate::AlphaRule::Lemma32 { .. } => 1.0,
        };
        Self {
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
        }
    }

    /// The configuration.
    pub fn config(&self) -> &CobolConfig {
        &self.config
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
        self.config.search = search;
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
        let check = self.config.check()?;
        self.model = Some(FModel::fit(&check, &start, &x, &f, &self.scaling)?);
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
        let check = self.config.check()?;
        let known = if self.reuse_mles { &self.known_mles[..] } else { &[] };
        let n = pts.len();
        let key = (self.evals.len(), self.norm_bound);
        let start = self.mle_starts.for_labels(key.0, key.1, n).filter(|_| self.warm_mles);
        let g = GModel::with_known_mles(&check, &self.kernel()?, &pts, &rejects, self.norm_bound, alpha, known, start)?;
        // Kept whether solved or reused (a reused MLE at 2B_g after B_g doubled is the start of the
        // next MLE, as it would be had it been solved here).
        self.mle_starts.keep(key.0, key.1, n, g.mle_warm_start());
        Ok(g)
    }

    /// App. F: one doubling test with the current labels; doubles B_g and c_α if B_g is rejected.
    pub(crate) fn doubling_test(&mut self, upto: usize) -> Result<()> {
        self.model()?;
        let (pts, rejects) = self.label_data()?;
        let check = self.config.check()?;
        let kernel = self.kernel()?;
        let (pts, rejects) = (&pts[..upto], &rejects[..upto]);
        let key = (self.evals.len(), self.norm_bound);
        let start = self.mle_starts.for_labels(key.0, key.1, upto).filter(|_| self.warm_mles).cloned();
        let (double, known) = doubling_says_double(
            &check,
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

    /// The search points of the iteration: every candidate, or (box) `candidates` uniform points,
    /// x^u, x_U and the evaluated points; with x^u, min UCB and x_U.
    pub(crate) fn search_points(&mut self) -> Result<SearchPoints> {
        let mut rng = self.iteration_rng();
        let local_starts = match self.config.search {
            XcSearch::Local { starts, .. } if self.config.variant == Variant::Cobol => Some(starts),
            _ => None,
        };
        let mut starts = Vec::new();
        let mut pts: Vec<Pt> = match &self.space {
            Space::Finite(d) => {
                (0..d.len()).map(|i| Ok(Pt { x: d.coords(i)?, index: Some(i) })).collect::<Result<_>>()?
            }
            Space::Box(b, s) => {
                let model = self.model.as_ref().expect("fitted");
                let extra: Vec<Vec<f64>> = self.evals.iter().map(|e| e.0.x.clone()).collect();
                let mut out = Vec::new();
                for sign in [-1.0, 1.0] {
                    let mut obj = |x: &[f64], g: &mut [f64]| -> Result<f64> {
                        let v = model.bound_with_gradient(x, sign, g)?;
                        g.iter_mut().for_each(|v| *v = -*v);
                        Ok(-v)
                    };
                    let best = bohf_optim::maximize_on_box(&mut obj, b, &mut rng, &extra, &s.lcb)?;
                    out.push(Pt { x: best.x, index: None });
                }
                out.extend(self.evals.iter().map(|e| e.0.clone()));
                match local_starts {
                    // The local search's starts, drawn where the candidates would be.
                    Some(n) => starts.extend((0..n).map(|_| b.sample(&mut rng))),
                    None => out.extend((0..s.candidates).map(|_| Pt { x: b.sample(&mut rng), index: None })),
                }
                out
            }
        };
        pts.dedup();
        let model = self.model.as_ref().expect("fitted");
        let bounds = pts.iter().map(|p| model.bounds(&p.x)).collect::<Result<Vec<_>>>()?;
        let u = argmin(bounds.iter().map(|b| b.lcb));
        let big_u = argmin(bounds.iter().map(|b| b.ucb));
        Ok((pts, bounds, u, big_u, starts))
    }

    /// The decision of the current iteration (Algorithm 1 lines 4–8, or Algorithm 2), applying
    /// the dual update to λ.
    pub(crate) fn decide(&mut self) -> Result<Decision> {
        self.model()?;
        let mut info = self.base_info(Phase::Iteration);
        let (mut pts, mut bounds, u, big_u, starts) = self.search_points()?;
        let ucb_min = bounds[big_u].ucb;
        if self.config.variant == Variant::VanillaLcb {
            info.branch = Some(Branch::Vanilla);
            info.candidates = pts.len();
            return Ok(Decision { query: Query::Evaluate(pts[u].point()), info });
        }
        let mut g = self.g_model()?;
        info.alpha = g.alpha;
        info.candidates = pts.len();
        if self.config.variant == Variant::Pinpoint {
            // Experiment D (a): x^c is the expert's pinpoint; none (the draw cap bound): x^u.
            let Some(c) = self.pinpointed.clone() else {
                info.branch = Some(Branch::Vanilla);
                return Ok(Decision { query: Query::Evaluate(pts[u].point()), info });
            };
            let model = self.model.as_ref().expect("fitted");
            let bc = model.bounds(&c.x)?;
            let mut gc = g.point(&model.working(&c.x)?)?;
            info.primal = Some(c.x.clone());
            info.objective = Some(bc.lcb);
            let query = self.lines_6_to_8(
                &mut info,
                &mut g,
                &mut gc,
                (&c, &bc),
                (&pts[u], &bounds[u], &bounds[big_u], ucb_min),
            )?;
            info.fallbacks = g.fallbacks;
            return Ok(Decision { query, info });
        }
        let model = self.model.as_ref().expect("fitted");
        let local = matches!(self.config.search, XcSearch::Local { .. }) && self.config.variant == Variant::Cobol;
        // The local search needs no prepared candidates (x^c comes from its own points).
        let gpts = if local {
            Vec::new()
        } else {
            pts.iter().map(|p| g.point(&model.working(&p.x)?)).collect::<Result<Vec<GPoint>>>()?
        };
        if self.config.variant == Variant::Cobohl {
            // Algorithm 2: argmin LCB s.t. g_lower ≤ 0, in increasing LCB order.
            let i = constrained_argmin(&mut g, &bounds, &gpts, &mut info)?.unwrap_or(u);
            info.primal = Some(pts[i].x.clone());
            let width = g.upper(&gpts[i])? - g.lower(&gpts[i])?;
            info.branch = Some(Branch::Constrained);
            info.g_width = Some(width);
            let query =
                if width > self.config.g_thr { Query::Label(pts[i].point()) } else { Query::Evaluate(pts[i].point()) };
            info.fallbacks = g.fallbacks;
            return Ok(Decision { query, info });
        }
        if self.config.variant == Variant::Constrained {
            // The λ₀ = 0 ablation: COBOHL's x^c (x^u if no candidate is feasible), then lines 6–16.
            let c = constrained_argmin(&mut g, &bounds, &gpts, &mut info)?.unwrap_or(u);
            info.primal = Some(pts[c].x.clone());
            info.objective = Some(bounds[c].lcb);
            let mut gpts = gpts;
            let query = self.lines_6_to_8(
                &mut info,
                &mut g,
                &mut gpts[c],
                (&pts[c], &bounds[c]),
                (&pts[u], &bounds[u], &bounds[big_u], ucb_min),
            )?;
            info.fallbacks = g.fallbacks;
            return Ok(Decision { query, info });
        }
        // Eq. (5) via Prob. (6): J(x) = LCB(x) + λ·z(x), z = g_lower for λ ≥ 0, g_upper for λ < 0.
        let lambda = self.lambda;
        let use_upper = lambda < 0.0;
        let z_range = |p: &GPoint| if use_upper { (p.upper_floor, p.upper_cap) } else { (p.lower_floor, p.lower_cap) };
        let j_range_of = |p: &GPoint, lcb: f64| {
            let (zl, zh) = z_range(p);
            (lcb + lambda * zl).min(lcb + lambda * zh)
        };
        let (c, j_c, z_star, gc) = if let XcSearch::Local { evaluations, .. } = self.config.search
            && local
        {
            let model = self.model.as_ref().expect("fitted");
            let Space::Box(domain, _) = &self.space else {
                return Err(Error::invalid("search.local", "the local x^c search needs a box domain"));
            };
            let found = local_xc(model, &mut g, domain, lambda, &starts, evaluations)?;
            info.solved = found.solved;
            info.local = true;
            pts.push(Pt { x: found.x, index: None });
            bounds.push(found.bounds);
            (pts.len() - 1, found.j, found.z, found.point)
        } else {
            let first: Vec<(f64, f64)> = (0..pts.len())
                .map(|i| {
                    let (zl, zh) = z_range(&gpts[i]);
                    let (a, b) = (bounds[i].lcb + lambda * zl, bounds[i].lcb + lambda * zh);
                    (a.min(b), a.max(b))
                })
                .collect();
            let j_range = |i: usize| first[i];
            let cap = (0..pts.len()).map(|i| j_range(i).1).fold(f64::INFINITY, f64::min);
            let mut order: Vec<usize> = (0..pts.len()).filter(|&i| j_range(i).0 <= cap).collect();
            order.sort_by(|&a, &b| j_range(a).0.total_cmp(&j_range(b).0).then(a.cmp(&b)));
            let mut gpts = gpts;
            let mut best: Option<(usize, f64, f64)> = None;
            // The work bound (`search`): at most this many programs; the smallest certified lower
            // bound of J over the candidates it leaves undecided.
            let budget = match self.config.search {
                XcSearch::Exact | XcSearch::Local { .. } => None,
                XcSearch::Programs(k) => Some(k),
            };
            let mut undecided_floor = f64::INFINITY;
            if self.exact_all {
                // Reference mode: every candidate's program, in index order (ties to the first).
                order = (0..pts.len()).collect();
            }
            for &i in &order {
                if self.exact_all {
                    info.solved += 1;
                    let z = if use_upper { g.upper(&gpts[i])? } else { g.lower(&gpts[i])? };
                    let j = bounds[i].lcb + lambda * z;
                    if best.is_none_or(|(_, bj, _)| j < bj) {
                        best = Some((i, j, z));
                    }
                    continue;
                }
                if let Some((_, bj, _)) = best {
                    if j_range_of(&gpts[i], bounds[i].lcb) > bj {
                        // In increasing order of the first bounds: no later point can do better.
                        if j_range(i).0 > bj {
                            break;
                        }
                        continue;
                    }
                    // Every solve adds cuts: tighten this point's enclosure before solving it, then,
                    // if that is not enough, with the curvature bounds (dearer, but they certify far
                    // from the solved points).
                    g.refresh(&mut gpts[i])?;
                    if j_range_of(&gpts[i], bounds[i].lcb) > bj {
                        continue;
                    }
                    if self.curvature_screening {
                        g.tighten(&mut gpts[i])?;
                        if j_range_of(&gpts[i], bounds[i].lcb) > bj {
                            continue;
                        }
                    }
                }
                // A closed enclosure is the value itself (e.g. the box floor reached by a feasible
                // point): no program.
                let settled = if use_upper { gpts[i].settled_upper() } else { gpts[i].settled_lower() };
                let z = match settled {
                    Some(z) => z,
                    None if budget.is_some_and(|k| info.solved >= k) => {
                        // The work bound is spent: the candidate stays undecided, its certified
                        // lower bound of J enters the gap.
                        undecided_floor = undecided_floor.min(j_range_of(&gpts[i], bounds[i].lcb));
                        continue;
                    }
                    None => {
                        info.solved += 1;
                        // With an incumbent, the program may stop once it certifies J(x) ≥ J*: z
                        // beyond (J* − LCB)/λ (from above for λ > 0, from below for λ < 0).
                        let level = best.filter(|_| lambda != 0.0).map(|(_, bj, _)| (bj - bounds[i].lcb) / lambda);
                        let screened = match level {
                            None => ZValue::Exact(if use_upper { g.upper(&gpts[i])? } else { g.lower(&gpts[i])? }),
                            Some(l) if use_upper => g.upper_screened(&gpts[i], l)?,
                            Some(l) => g.lower_screened(&gpts[i], l)?,
                        };
                        match screened {
                            ZValue::Exact(z) => z,
                            ZValue::Beyond(zb) => {
                                if bounds[i].lcb + lambda * zb > best.map_or(f64::INFINITY, |(_, bj, _)| bj) {
                                    continue;
                                }
                                // At the level exactly (rounding): the program to the end.
                                if use_upper { g.upper(&gpts[i])? } else { g.lower(&gpts[i])? }
                            }
                        }
                    }
                };
                let j = bounds[i].lcb + lambda * z;
                if best.is_none_or(|(bi, bj, _)| j < bj || (j == bj && i < bi)) {
                    best = Some((i, j, z));
                }
            }
            let (c, j_c, z_star) = best.ok_or_else(|| Error::Empty("COBOL search points".into()))?;
            // J(x^c) − min_x J(x) ≤ J(x^c) − min(J(x^c), the undecided candidates' floors): every
            // decided candidate has J ≥ J(x^c).
            info.gap = Some((j_c - undecided_floor).max(0.0));
            let gc = gpts.swap_remove(c);
            (c, j_c, z_star, gc)
        };
        info.primal = Some(pts[c].x.clone());
        info.objective = Some(j_c);
        // Dual update, Eq. (5).
        let next = lambda + self.config.zeta * z_star;
        self.lambda = match self.config.dual {
            DualRule::Projected => next.max(0.0),
            DualRule::Unprojected => next,
        };
        info.lambda_next = self.lambda;
        // Line 6.
        let take_c = match self.config.no_harm {
            NoHarmRule::Paper => no_harm_paper(&bounds[c], &bounds[u], ucb_min, self.config.eta),
            NoHarmRule::Code => {
                let vanilla = ucb_min < j_c
                    || (bounds[big_u].sigma > self.config.eta * bounds[c].sigma && (j_c - bounds[u].lcb).abs() > 1e-5);
                !vanilla
            }
        };
        if !take_c {
            info.branch = Some(Branch::Vanilla);
            info.fallbacks = g.fallbacks;
            return Ok(Decision { query: Query::Evaluate(pts[u].point()), info });
        }
        info.branch = Some(Branch::Expert);
        // Line 8 at x^c only; the other side is solved unless its enclosure has closed.
        let lower = match (use_upper, gc.settled_lower()) {
            (false, _) => z_star,
            (true, Some(v)) => v,
            (true, None) => g.lower(&gc)?,
        };
        let upper = match (use_upper, gc.settled_upper()) {
            (true, _) => z_star,
            (false, Some(v)) => v,
            (false, None) => g.upper(&gc)?,
        };
        let width = upper - lower;
        info.g_width = Some(width);
        let query =
            if width > self.config.g_thr { Query::Label(pts[c].point()) } else { Query::Evaluate(pts[c].point()) };
        info.fallbacks = g.fallbacks;
        Ok(Decision { query, info })
    }

    /// Lines 6–8 of Algorithm 1 for an x^c found otherwise than by Eq. (5) ([`Variant::Constrained`],
    /// [`Variant::Pinpoint`]; J_c = LCB(x^c), no dual variable): the no-harm test, then the
    /// handover test at x^c. `c`: x^c and its bounds; `vanilla`: x^u, its bounds, x_U's bounds and
    /// min UCB.
    fn lines_6_to_8(
        &self,
        info: &mut StepInfo,
        g: &mut GModel,
        gc: &mut GPoint,
        (c, bc): (&Pt, &Bounds),
        (xu, bu, b_big_u, ucb_min): (&Pt, &Bounds, &Bounds, f64),
    ) -> Result<Query> {
        let take_c = match self.config.no_harm {
            NoHarmRule::Paper => no_harm_paper(bc, bu, ucb_min, self.config.eta),
            NoHarmRule::Code => {
                let j_c = bc.lcb;
                !(ucb_min < j_c || (b_big_u.sigma > self.config.eta * bc.sigma && (j_c - bu.lcb).abs() > 1e-5))
            }
        };
        if !take_c {
            info.branch = Some(Branch::Vanilla);
            return Ok(Query::Evaluate(xu.point()));
        }
        info.branch = Some(Branch::Expert);
        let lower = match gc.settled_lower() {
            Some(v) => v,
            None => g.lower(gc)?,
        };
        let upper = match gc.settled_upper() {
            Some(v) => v,
            None => g.upper(gc)?,
        };
        let width = upper - lower;
        info.g_width = Some(width);
        Ok(if width > self.config.g_thr { Query::Label(c.point()) } else { Query::Evaluate(c.point()) })
    }

    /// The next query and what it computed (without recording it as pending).
    fn next_query(&mut self, rng: Option<&mut dyn Rng>) -> Result<Decision> {
        if let Some(p) = &self.awaiting_evaluation {
            let mut info = self.base_info(Phase::Iteration);
            info.iteration = self.iteration;
            return Ok(Decision { query: Query::Evaluate(p.point()), info });
        }
        match self.phase() {
            Phase::InitialEvaluation | Phase::InitialLabel => {
                let phase = self.phase();
                let rng = rng.ok_or_else(|| Error::invalid("query", "the initial design needs a suggestion"))?;
                let p = self.random_point(rng)?;
                let query = if phase == Phase::InitialEvaluation {
                    Query::Evaluate(p.point())
                } else {
                    Query::Label(p.point())
                };
                Ok(Decision { query, info: self.base_info(phase) })
            }
            Phase::Iteration => {
                if self.config.variant == Variant::Pinpoint && self.pinpointed.is_none() {
                    if self.pinpoint_draws == 0 {
                        self.iteration += 1;
                    }
                    if self.pinpoint_draws < self.config.pinpoint_draws {
                        // The expert's next draw, from a stream of (iteration, draw), so replay
                        // reproduces it.
                        let mut r =
                            bohf_core::rng::stream(self.iteration_rng().next_u64(), &[self.pinpoint_draws as u64]);
                        let p = self.random_point(&mut r)?;
                        let mut info = self.base_info(Phase::Iteration);
                        info.branch = Some(Branch::Pinpoint);
                        return Ok(Decision { query: Query::Label(p.point()), info });
                    }
                    // The cap bound: the iteration takes x^u (decide() without a pinpoint).
                    return self.decide();
                }
                if self.config.variant != Variant::Pinpoint {
                    self.iteration += 1;
                }
                match self.config.variant {
                    Variant::RandomSearch | Variant::ExpertSampling => {
                        // The draw comes from the iteration's stream, so replay reproduces it.
                        let p = self.random_point(&mut self.iteration_rng())?;
                        let mut info = self.base_info(Phase::Iteration);
                        info.iteration = self.iteration;
                        let query = if self.config.variant == Variant::RandomSearch {
                            Query::Evaluate(p.point())
                        } else {
                            Query::Label(p.point())
                        };
                        Ok(Decision { query, info })
                    }
                    _ => self.decide(),
                }
            }
        }
    }

    fn checked(&self, p: &Point) -> Result<Pt> {
        match &self.space {
            Space::Finite(d) => {
                let i = d.candidate_index(p, "queried")?;
                Ok(Pt { x: p.coords.clone(), index: Some(i) })
            }
            Space::Box(b, _) => Ok(Pt { x: b.checked_point(p, "queried")?.to_vec(), index: None }),
        }
    }

    /// Ends the initial labels when the sampler of [`CobolConfig::balanced_labels`] has kept
    /// `initial_labels` labels, or (balanced) after [`CobolConfig::initial_label_draws`] draws;
    /// then App. F's pre-training. Returns whether the cap ended them.
    fn finish_initial_labels(&mut self) -> Result<bool> {
        let n = self.initial_labels_wanted();
        let enough = self.labels.len() >= n;
        let capped = !enough && self.initial_label_queries >= self.config.initial_label_draws;
        if enough || capped {
            self.initial_done = true;
            // App. F pre-training: the doubling test over each prefix of the initial labels.
            if self.config.variant.uses_labels() {
                for k in 1..=self.labels.len() {
                    self.doubling_test(k)?;
                }
            }
        }
        Ok(capped)
    }

    /// Whether the balanced sampler keeps an initial label (`balanced=True` of the authors'
    /// `SyntheticAgentResponse.sample`): with h = ⌈n/2⌉, a reject while fewer than h rejects are
    /// kept, an accept while at most h accepts are kept; unbalanced, every label.
    fn keeps_initial_label(&self, accept: bool) -> bool {
        if !self.config.balanced_labels {
            return true;
        }
        let h = self.initial_labels_wanted().div_ceil(2);
        let same = self.labels.iter().filter(|l| l.1 != accept).count();
        if accept { same <= h } else { same < h }
    }

    fn record(&mut self, query: &Query, answer: Answer, info: StepInfo) -> Result<()> {
        match (query, answer) {
            (Query::Evaluate(p), Answer::Value(u)) => {
                if !u.is_finite() {
                    return Err(Error::invalid("answer", format!("the value must be finite, got {u}")));
                }
                let pt = self.checked(p)?;
                self.evals.push((pt, cobol_objective(u)));
                self.awaiting_evaluation = None;
                if !matches!(self.config.variant, Variant::RandomSearch | Variant::ExpertSampling) {
                    self.refit()?;
                }
                if info.phase == Phase::InitialEvaluation && self.evals.len() >= self.config.initial_evaluations {
                    self.finish_initial_labels()?;
                }
            }
            (Query::Label(p), Answer::Label { accept }) => {
                let pt = self.checked(p)?;
                match info.phase {
                    Phase::InitialEvaluation => {
                        return Err(Error::invalid("query", "a label during the initial evaluations"));
                    }
                    Phase::InitialLabel => {
                        self.initial_label_queries += 1;
                        if self.keeps_initial_label(accept) {
                            self.labels.push((pt.x.clone(), !accept));
                        }
                        if self.finish_initial_labels()? {
                            let accepts = self.labels.iter().filter(|l| !l.1).count();
                            let capped = (self.initial_label_queries, accepts, self.labels.len() - accepts);
                            if let Some(step) = self.last_step.as_mut().filter(|s| s.phase == Phase::InitialLabel) {
                                step.initial_labels_capped = Some(capped);
                            }
                        }
                    }
                    Phase::Iteration if info.branch == Some(Branch::Pinpoint) => {
                        // A draw of the pinpoint: not data of g's set (see [`Variant::Pinpoint`]).
                        if accept {
                            self.pinpointed = Some(pt);
                        } else {
                            self.pinpoint_draws += 1;
                        }
                        return Ok(());
                    }
                    Phase::Iteration => {
                        self.expert_queries += 1;
                        self.labels.push((pt.x.clone(), !accept));
                        if accept
                            && matches!(
                                self.config.variant,
                                Variant::Cobol | Variant::ExpertSampling | Variant::Constrained | Variant::Pinpoint
                            )
                        {
                            self.awaiting_evaluation = Some(pt);
                        }
                        let n = self.labels.len();
                        if self.config.variant.uses_labels()
                            && self.config.doubling_every > 0
                            && n.is_multiple_of(self.config.doubling_every)
                        {
                            self.doubling_test(n)?;
                        }
                    }
                }
            }
            (Query::Evaluate(_), other) => {
                return Err(Error::invalid("answer", format!("an evaluation needs Answer::Value, got {other:?}")));
            }
            (Query::Label(_), other) => {
                return Err(Error::invalid("answer", format!("a label needs Answer::Label, got {other:?}")));
            }
            (other, _) => {
                return Err(Error::invalid("query", format!("COBOL asks labels and values, got {other:?}")));
            }
        }
        if info.phase == Phase::Iteration {
            // The iteration's pinpoint (if any) is used up.
            self.pinpointed = None;
            self.pinpoint_draws = 0;
        }
        Ok(())
    }
}

/// What the local x^c search ([`XcSearch::Local`]) found: x^c, J(x^c), z(x^c) (g_lower, or g_upper
/// for λ < 0), f's bounds and g's prepared point at x^c, and the programs solved.
pub(crate) struct LocalFound {
    pub(crate) x: Vec<f64>,
    pub(crate) j: f64,
    pub(crate) z: f64,
    pub(crate) bounds: Bounds,
    pub(crate) point: GPoint,
    pub(crate) solved: usize,
    /// (J at the start, J at the end) of each local search, in start order (read by the tests).
    #[cfg_attr(not(test), expect(dead_code))]
    pub(crate) per_start: Vec<(f64, f64)>,
}

/// One evaluated point of the local search.
struct LocalPoint {
    x: Vec<f64>,
    j: f64,
    /// z(x), exact; NaN with λ = 0 (J = LCB needs no program; x^c's z is solved at the end).
    z: f64,
    bounds: Bounds,
    point: GPoint,
}

/// J(x) = LCB(x) + λ·z(x) at `x`, or `None` when x is certified not to improve on `incumbent`
/// (its enclosure of z, or a program stopped at the level, puts J(x) ≥ incumbent). `solved` counts
/// the programs.
fn local_eval(
    model: &FModel,
    g: &mut GModel,
    lambda: f64,
    x: &[f64],
    incumbent: Option<f64>,
    solved: &mut usize,
) -> Result<Option<LocalPoint>> {
    let bounds = model.bounds(x)?;
    let point = g.point(&model.working(x)?)?;
    let lcb = bounds.lcb;
    if lambda == 0.0 {
        if incumbent.is_some_and(|inc| lcb >= inc) {
            return Ok(None);
        }
        return Ok(Some(LocalPoint { x: x.to_vec(), j: lcb, z: f64::NAN, bounds, point }));
    }
    let use_upper = lambda < 0.0;
    let (zl, zh) = if use_upper { (point.upper_floor, point.upper_cap) } else { (point.lower_floor, point.lower_cap) };
    let floor = (lcb + lambda * zl).min(lcb + lambda * zh);
    if incumbent.is_some_and(|inc| floor >= inc) {
        return Ok(None);
    }
    let settled = if use_upper { point.settled_upper() } else { point.settled_lower() };
    let z = match (settled, incumbent) {
        (Some(z), _) => z,
        (None, None) => {
            *solved += 1;
            if use_upper { g.upper(&point)? } else { g.lower(&point)? }
        }
        (None, Some(inc)) => {
            *solved += 1;
            let level = (inc - lcb) / lambda;
            let screened = if use_upper { g.upper_screened(&point, level)? } else { g.lower_screened(&point, level)? };
            match screened {
                ZValue::Exact(z) => z,
                ZValue::Beyond(zb) if lcb + lambda * zb >= inc => return Ok(None),
                // At the level exactly (rounding): the program to the end.
                ZValue::Beyond(_) => {
                    if use_upper {
                        g.upper(&point)?
                    } else {
                        g.lower(&point)?
                    }
                }
            }
        }
    };
    Ok(Some(LocalPoint { x: x.to_vec(), j: lcb + lambda * z, z, bounds, point }))
}

/// The local x^c search of [`XcSearch::Local`]: from each start a compass search of J on the box
/// (coordinates scaled by the box's widths; poll x ± h·e_i in the order e_1+, e_1−, e_2+, …,
/// clamped to the box, skipping a poll the clamp leaves at x; move to the first poll with a
/// strictly smaller J and poll again around it with the same h; halve h, from ¼, after a poll
/// without a move; stop when h < 10⁻⁶ or after `evaluations` evaluations of J, the start
/// included). x^c: the smallest J over the starts, ties to the earliest start.
pub(crate) fn local_xc(
    model: &FModel,
    g: &mut GModel,
    domain: &BoxDomain,
    lambda: f64,
    starts: &[Vec<f64>],
    evaluations: usize,
) -> Result<LocalFound> {
    let (lo, hi) = (domain.lower(), domain.upper());
    let mut solved = 0;
    let mut best: Option<LocalPoint> = None;
    let mut per_start = Vec::with_capacity(starts.len());
    for start in starts {
        let mut cur = local_eval(model, g, lambda, start, None, &mut solved)?
            .ok_or_else(|| Error::invalid("search.local", "a start without a value"))?;
        let j_start = cur.j;
        let mut used = 1;
        let mut h = 0.25;
        'search: while used < evaluations && h >= 1e-6 {
            let mut moved = false;
            'poll: for i in 0..lo.len() {
                for sign in [1.0, -1.0] {
                    if used >= evaluations {
                        break 'search;
                    }
                    let mut y = cur.x.clone();
                    y[i] = (y[i] + sign * h * (hi[i] - lo[i])).clamp(lo[i], hi[i]);
                    if y[i] == cur.x[i] {
                        continue;
                    }
                    used += 1;
                    if let Some(p) = local_eval(model, g, lambda, &y, Some(cur.j), &mut solved)?
                        && p.j < cur.j
                    {
                        cur = p;
                        moved = true;
                        break 'poll;
                    }
                }
            }
            if !moved {
                h *= 0.5;
            }
        }
        per_start.push((j_start, cur.j));
        if best.as_ref().is_none_or(|b| cur.j < b.j) {
            best = Some(cur);
        }
    }
    let mut best = best.ok_or_else(|| Error::invalid("search.local.starts", "no start"))?;
    if best.z.is_nan() {
        // λ = 0: J = LCB; the dual update still needs g_lower(x^c).
        best.z = match best.point.settled_lower() {
            Some(z) => z,
            None => {
                solved += 1;
                g.lower(&best.point)?
            }
        };
    }
    Ok(LocalFound { x: best.x, j: best.j, z: best.z, bounds: best.bounds, point: best.point, solved, per_start })
}

/// argmin LCB(x) s.t. g_lower(x) ≤ 0 over the search points (COBOHL's x_t, the λ₀ = 0 ablation's
/// x^c), in increasing LCB order (ties to the first index): the first point whose g_lower is
/// certified ≤ 0; `None` if no point is feasible. Counts the programs solved in `info.solved`.
fn constrained_argmin(
    g: &mut GModel,
    bounds: &[Bounds],
    gpts: &[GPoint],
    info: &mut StepInfo,
) -> Result<Option<usize>> {
    let mut order: Vec<usize> = (0..bounds.len()).collect();
    order.sort_by(|&a, &b| bounds[a].lcb.total_cmp(&bounds[b].lcb).then(a.cmp(&b)));
    for &i in &order {
        // g_lower ≤ lower_cap (ĝ(x), feasible points) and ≥ lower_floor.
        if gpts[i].lower_cap <= 0.0 {
            return Ok(Some(i));
        }
        if gpts[i].lower_floor > 0.0 {
            continue;
        }
        info.solved += 1;
        // Only whether g_lower ≤ 0 matters: the program may stop once it certifies > 0.
        let feasible = match g.lower_screened(&gpts[i], 0.0)? {
            ZValue::Exact(z) => z <= 0.0,
            ZValue::Beyond(b) if b > 0.0 => false,
            ZValue::Beyond(_) => g.lower(&gpts[i])? <= 0.0,
        };
        if feasible {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Line 6 of Algorithm 1 (the paper): x^c passes iff LCB(x^c) ≤ min_x UCB(x) and
/// σ(x^u) ≤ η σ(x^c).
pub fn no_harm_paper(c: &Bounds, u: &Bounds, ucb_min: f64, eta: f64) -> bool {
    c.lcb <= ucb_min && u.sigma <= eta * c.sigma
}

fn argmin(values: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::INFINITY);
    for (i, v) in values.enumerate() {
        if v < best.1 {
            best = (i, v);
        }
    }
    best.0
}

impl Optimizer for Cobol {
    fn name(&self) -> &'static str {
        match self.config.variant {
            Variant::Cobol => "COBOL",
            Variant::Cobohl => "COBOHL",
            Variant::VanillaLcb => "GP-LCB",
            Variant::RandomSearch => "random search",
            Variant::ExpertSampling => "expert sampling",
            Variant::Constrained => "COBOL (constrained, λ₀ = 0)",
            Variant::Pinpoint => "COBOL (pinpoint)",
        }
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        if let Some((q, info)) = &self.pending {
            self.last_step = Some(info.clone());
            return Ok(q.clone());
        }
        let d = self.next_query(Some(rng))?;
        self.last_step = Some(d.info.clone());
        self.pending = Some((d.query.clone(), d.info));
        Ok(d.query)
    }

    /// Records the answer to the pending query; with nothing pending (replay), recomputes the
    /// step's decision first (so λ follows the history) and records the given query. Errors name
    /// `query` (a point outside the domain, not a candidate, a different query than the pending
    /// one, a duel) or `answer` (a NaN value, the wrong kind of answer).
    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let snapshot = (self.lambda, self.iteration);
        let info = match self.pending.take() {
            Some((q, info)) => {
                if &q != query {
                    self.pending = Some((q.clone(), info));
                    return Err(Error::invalid(
                        "query",
                        format!("the query {query:?} does not match the pending suggestion {q:?}"),
                    ));
                }
                // Checked before anything changes, so that a bad answer leaves the suggestion pending.
                if let Err(e) = self.record(query, answer, info.clone()) {
                    self.pending = Some((q, info));
                    return Err(e);
                }
                return Ok(());
            }
            None => {
                if matches!(self.phase(), Phase::InitialEvaluation | Phase::InitialLabel)
                    && self.awaiting_evaluation.is_none()
                {
                    self.base_info(self.phase())
                } else {
                    match self.next_query(None) {
                        Ok(d) => d.info,
                        Err(e) => {
                            (self.lambda, self.iteration) = snapshot;
                            return Err(e);
                        }
                    }
                }
            }
        };
        let out = self.record(query, answer, info);
        if out.is_err() {
            (self.lambda, self.iteration) = snapshot;
        }
        out
    }

    /// `phase` (`initial-evaluation`, `initial-label`, `iteration`), `iteration` t, `branch` of
    /// line 6 (`expert`, `vanilla`, `constrained`, or `-`: the evaluation after an accepted label
    /// or an initial query), `lambda` (λ_t) and `lambda_next` (λ_{t+1}), `g_width` (g_upper − g_lower at x_t if line 8
    /// was reached, else `-`), `norm_bound` (B_g) and `solved` (conic programs solved for x^c); and,
    /// in a COBOL iteration that computed x^c, `gap` (its certified optimality gap, [`XcSearch`]);
    /// only in a step where a pointwise program's solver failed, `fallbacks` (how many bounds fell
    /// back to their certified outer ends, [`crate::model::GModel::lower`]); only at the draw where
    /// the cap [`CobolConfig::initial_label_draws`] ended the initial labels,
    /// `initial_labels_capped` ("N draws, A accepts, R rejects kept").
    /// JSON: the evaluations, labels, λ, B_g, c_α, t, the counters, the evaluation awaited after an
    /// accepted label, and the start kernel of f's last fit (the fit is redone from it on restore,
    /// to the same bits), and the starts of g's next MLEs ([`MleStarts`]). The MLEs kept from the
    /// last doubling test are not saved: the next iteration solves them again from the same start,
    /// with the same result (tested with `reuse_mles` off).
    fn save_state(&self) -> Result<Option<String>> {
        state::save(self).map(Some)
    }

    fn restore_state(&mut self, state: &str) -> Result<()> {
        state::restore(self, state)
    }

    fn step_details(&self) -> bohf_core::StepDetails {
        let Some(s) = &self.last_step else { return Vec::new() };
        let phase = match s.phase {
            Phase::InitialEvaluation => "initial-evaluation",
            Phase::InitialLabel => "initial-label",
            Phase::Iteration => "iteration",
        };
        let branch = match s.branch {
            Some(Branch::Expert) => "expert",
            Some(Branch::Vanilla) => "vanilla",
            Some(Branch::Constrained) => "constrained",
            Some(Branch::Pinpoint) => "pinpoint",
            None => "-",
        };
        let mut details = vec![
            ("phase", phase.to_string()),
            ("iteration", s.iteration.to_string()),
            ("branch", branch.to_string()),
            ("lambda", format!("{:?}", s.lambda)),
            ("lambda_next", format!("{:?}", s.lambda_next)),
            ("g_width", s.g_width.map_or("-".to_string(), |w| format!("{w:?}"))),
            ("norm_bound", format!("{:?}", s.norm_bound)),
            ("solved", s.solved.to_string()),
        ];
        if s.local {
            details.push(("search", "local".to_string()));
        } else if let Some(gap) = s.gap {
            details.push(("gap", format!("{gap:?}")));
        }
        if s.fallbacks > 0 {
            details.push(("fallbacks", s.fallbacks.to_string()));
        }
        if let Some((draws, accepts, rejects)) = s.initial_labels_capped {
            details
                .push(("initial_labels_capped", format!("{draws} draws, {accepts} accepts, {rejects} rejects kept")));
        }
        details
    }

    /// The evaluated point with the smallest f (largest u); before any evaluation, candidate 0 or
    /// the box's centre.
    fn recommend(&self) -> Result<Point> {
        if let Some((p, _)) = self.evals.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
            return Ok(p.point());
        }
        match &self.space {
            Space::Finite(d) => d.point(0),
            Space::Box(b, _) => {
                Ok(Point::continuous(b.lower().iter().zip(b.upper()).map(|(l, u)| 0.5 * (l + u)).collect()))
            }
        }
    }
}
