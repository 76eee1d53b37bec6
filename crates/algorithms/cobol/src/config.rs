//! The configuration of COBOL: the paper's constants (Table 3, §5.1) as defaults, the authors'
//! code's departures (notes 004 §3.6) as named variants.

use bohf_confidence::ConfidenceConfig;
use bohf_core::error::ensure_positive;
use bohf_core::{AtField, Error, Result, WidthSchedule};
use bohf_gp::HyperFitConfig;
use bohf_gp::regression::ValidHyperFitConfig;
use bohf_optim::MultistartConfig;
use serde::{Deserialize, Serialize};

/// g_thr = 0.1, the main text's handover threshold (§5.1): the default.
pub const G_THR_PAPER: f64 = 0.1;
/// g_thr = 10⁻⁵, Table 3's value.
pub const G_THR_TABLE3: f64 = 1e-5;
/// g_thr = 0.08, the default of the authors' class `COBOL` (notes 004 §3.6).
pub const G_THR_CODE: f64 = 0.08;
/// g_thr = 0.01, the authors' tutorial.
pub const G_THR_TUTORIAL: f64 = 1e-2;

/// The rules of [`WidthSchedule`] COBOL's width β_{f_t} of the confidence bounds of f accepts:
/// `lemma31`, Lemma 3.1 ([`WidthSchedule::CobolLemma31`], the default with Table 3's constants,
/// [`bohf_core::schedule::COBOL_LEMMA31`]), and `constant` (the code's practical value is 1: Table 3
/// "β initial 1").
pub const BETA_RULES: [&str; 2] = ["lemma31", "constant"];

/// The width α₁ of g's likelihood-ratio set {ℓ_t(g̃) ≥ ℓ_t(ĝ^MLE) − α₁} (Lemma 3.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
pub enum AlphaRule {
    /// App. F as the code runs it: α₁ = c_α √(n + 1) with n labels, c_α starting at `initial`
    /// (Table 3: 0.01) and doubled with B_g whenever the doubling test rejects B_g.
    Practical {
        /// c_α at the start, > 0.
        #[serde(default = "alpha_initial")]
        initial: f64,
    },
    /// Lemma 3.2: α₁ = √(32 n B_g² log(π²t²N/(6δ))) + 2εt with the given log covering number
    /// log N(B_g, ε, ‖·‖_∞) ([`bohf_confidence::alpha1_cobol`]).
    Lemma32 {
        /// ε > 0 (Remark 3.3: 1/T).
        epsilon: f64,
        /// δ ∈ (0, 1).
        delta: f64,
        /// log N ≥ 0.
        log_covering: f64,
    },
}

fn alpha_initial() -> f64 {
    0.01
}

impl Default for AlphaRule {
    fn default() -> Self {
        AlphaRule::Practical { initial: 0.01 }
    }
}

/// Line 6 of Algorithm 1, the no-harm test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum NoHarmRule {
    /// The paper: take x^c iff LCB(x^c) ≤ min_x UCB(x) and σ(x^u) ≤ η σ(x^c).
    #[default]
    Paper,
    /// The authors' code (notes 004 §3.6, departures 1–3): take x^u iff min UCB < J_c or
    /// (σ(x_U) > η σ(x^c) and |J_c − LCB(x^u)| > 10⁻⁵), with J_c = LCB(x^c) + λ z* the mixed
    /// objective and x_U the UCB minimiser.
    Code,
}

/// The dual update of λ (Eq. (5)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DualRule {
    /// The paper: λ_{t+1} = [λ_t + ζ z*]⁺, so λ ≥ 0 always.
    #[default]
    Projected,
    /// The code (departure 4): λ_{t+1} = λ_t + ζ z*, not projected. With λ < 0 the inner problem
    /// min_{g̃} λ g̃(x) is λ·ḡ(x), so the candidate uses the upper bound.
    Unprojected,
}

/// Which algorithm of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Algorithm 1 (COBOL).
    #[default]
    Cobol,
    /// Algorithm 2 (COBOHL, App. E): x_t = argmin LCB s.t. g_lower ≤ 0; ask the expert instead of
    /// evaluating while the g-interval at x_t is wider than g_thr.
    Cobohl,
    /// Vanilla GP-LCB with COBOL's f model and no expert (the baseline of the experiments).
    VanillaLcb,
    /// Random search: uniformly random evaluations (a baseline of Experiment B).
    RandomSearch,
    /// Expert (rejection) sampling: draw x uniformly, ask the expert, evaluate x if accepted
    /// (accepted with probability 1 − S(g(x)); a baseline of Experiment B).
    ExpertSampling,
    /// The λ₀ = 0 ablation of §5.4 ("constrained optimisation without the primal–dual mixing
    /// objective"; the authors' code's `use_primal_dual=False`, notes 004 §3.6 item 6): Algorithm 1
    /// with line 4's x^c = argmin LCB(x) s.t. g_lower(x) ≤ 0 and no dual variable (`lambda0` and
    /// `zeta` are not used; the code's mixed objective J_c of [`NoHarmRule::Code`] is LCB(x^c)).
    /// Lines 5–16 are Algorithm 1's. bohf's choice where no candidate has g_lower ≤ 0: x^c = x^u.
    /// Not COBOHL: COBOHL has the same x^c but no no-harm test and asks instead of evaluating.
    Constrained,
    /// Experiment D (a), the pinpoint form (§5.7, App. H; notes 004 §3.5): line 4's x^c is a point
    /// the expert pinpoints, a sample of the expert's belief; lines 5–16 are Algorithm 1's
    /// (no dual variable). bohf's construction of the sample: uniform draws of the box (or of the
    /// candidates), each labelled by the expert, until one is accepted, so that x^c has density
    /// ∝ P(x accepted) (rejection sampling). The draws are label queries (the runner counts them)
    /// but not data of g's set: they are the expert's act of pinpointing, and line 9 asks the
    /// expert again at x^c as Algorithm 1 does. At most `pinpoint_draws` draws per iteration; when
    /// the cap binds, the iteration takes x^u.
    Pinpoint,
}

impl Variant {
    /// Whether the variant uses labels (and takes the initial labels).
    pub fn uses_labels(self) -> bool {
        matches!(self, Variant::Cobol | Variant::Cobohl | Variant::Constrained | Variant::Pinpoint)
    }
}

/// Settings of [`crate::Cobol`]. Defaults: the paper's (§5.1, Table 3): η = 3, ζ = 0.02, λ₀ = 1,
/// g_thr = 0.1 ([`G_THR_PAPER`]), β of Lemma 3.1, SE-ARD kernel with lengthscales by type-II ML
/// every evaluation (noise 10⁻⁴ fixed, outputscale 1, inputs scaled to [0, 1]^d, outputs
/// standardised: `hyper` with `learn_noise = false`), B_g = 1 and α₁ = 0.01√(n+1) adapted by
/// doubling every 3 labels and over the initial labels (App. F), the latent box |z| ≤ 3 and
/// nugget 10⁻⁶ of the code, 3 initial evaluations and 10 balanced initial labels (the code's
/// sampler); and bohf's own: at most 10,000 initial label draws, at most 25 conic programs per
/// x^c search ([`DEFAULT_PROGRAMS`]; `search = "exact"` is the paper's argmin over the candidates).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CobolConfig {
    /// Algorithm 1, COBOHL, a baseline or an ablation ([`Variant`]).
    pub variant: Variant,
    /// β_{f_t}: `{ rule = "lemma31", norm_bound = 1, sigma = 1e-4, delta = 0.01 }` (Lemma 3.1 with
    /// Table 3's constants, the default; each key defaults on its own) or `{ rule = "constant",
    /// value = … }`; any other rule is refused naming these two.
    pub beta: WidthSchedule,
    /// η ≥ 1, the trust weight of line 6.
    pub eta: f64,
    /// ζ ≥ 0, the dual step size of Eq. (5).
    pub zeta: f64,
    /// λ₀ ≥ 0, the initial dual variable.
    pub lambda0: f64,
    /// g_thr > 0, the handover threshold of line 8.
    pub g_thr: f64,
    /// Line 6: the paper's test or the code's.
    pub no_harm: NoHarmRule,
    /// The dual update: projected (paper) or not (code).
    pub dual: DualRule,
    /// r > 0, the GP noise variance / regulariser (Table 3: 10⁻⁴, fixed).
    pub noise: f64,
    /// The type-II ML fit of the lengthscales (run after every evaluation).
    pub hyper: HyperFitConfig,
    /// g's settings: `norm_bound` is the initial B_g (Table 3: 1), the latent box and nugget of
    /// the code, the conic-solver settings.
    pub confidence: ConfidenceConfig,
    /// α₁.
    pub alpha: AlphaRule,
    /// Run the B_g doubling test when the number of labels is a multiple of this (code: 3); 0 never.
    pub doubling_every: usize,
    /// Uniformly random evaluations before the algorithm starts (§5.1: 3).
    pub initial_evaluations: usize,
    /// Labels at uniformly random points before the algorithm starts (§5.1: 10).
    pub initial_labels: usize,
    /// Draw the initial labels as the authors' sampler does with `balanced=True`
    /// (`SyntheticAgentResponse.sample` in `utils/_synthetic_agent.py` of ma921/COBOL): with
    /// n = `initial_labels` and h = ⌈n/2⌉, uniform points are labelled one by one; a reject is
    /// kept while fewer than h rejects are kept, an accept while at most h accepts are kept (so
    /// up to h + 1 accepts: "a sixth accept can slip in", leaving n − h − 1 rejects), any other
    /// label is asked but not used; the draws stop once n labels are kept. The code has no cap on
    /// the draws; bohf stops at `initial_label_draws` (recorded in the step details when it
    /// binds). `false`: the first n draws, all kept.
    pub balanced_labels: bool,
    /// The safety cap on the initial label draws of the balanced sampler (the code has none):
    /// after this many draws the algorithm starts with the labels kept so far, and that draw's
    /// step details say so (`initial_labels_capped`). Must be ≥ `initial_labels`. The default,
    /// 10,000, is far above what the presets need (Experiment A at a = 2 accepts ≈ 1.4 % of
    /// uniform points, so 5 accepts take ≈ 355 draws; the chance of fewer than 5 accepts in
    /// 10,000 draws is below 10⁻⁵⁰).
    pub initial_label_draws: usize,
    /// How much work the x^c search (Eq. (5)) may do per iteration ([`XcSearch`]): `"exact"`, the
    /// exact minimum over the candidates, or `{ programs = K }`, at most K ≥ 1 conic programs
    /// (best-first by the certified lower bound of J = LCB + λ·g_lower, x^c the best decided
    /// candidate, its certified optimality gap recorded as the step detail `gap`). Default
    /// `{ programs = 25 }` ([`DEFAULT_PROGRAMS`], chosen from measurements in docs/cobol.md:
    /// it binds only in the steps that need more than 25 programs, about 7 % of the a = 2 runs'
    /// steps and none of the a = 1 steps measured). Not in the paper, whose x^c is the exact
    /// argmin (the authors' code bounds its search by 10 local IPOPT solves); no wall-clock rule.
    /// `{ local = { starts = S, evaluations = E } }`: the code-like local search (box mode only).
    pub search: XcSearch,
    /// The cap on the expert's uniform draws for one pinpoint of [`Variant::Pinpoint`] (≥ 1; not
    /// used by the other variants). bohf's safety cap, not in the paper: when it binds, the
    /// iteration takes x^u. The default, 10,000, is far above what the presets need (Experiment A
    /// at a = 1 accepts about 1 in 20 uniform points).
    pub pinpoint_draws: usize,
}

/// The default work bound of the x^c search, K = 25 conic programs per iteration (docs/cobol.md,
/// "The work bound": on replayed hard steps of Experiment A at a = 2 it takes 0.04–0.85 s of CPU
/// against 0.09–4.8 s exact, with J(x^c) within 0.023 of the exact minimum).
pub const DEFAULT_PROGRAMS: usize = 25;

/// The x^c search of an iteration: the minimum of J(x) = LCB(x) + λ·g_lower(x) (Eq. (5), with
/// g_upper for λ < 0 under [`DualRule::Unprojected`]) over the candidates. Both modes visit the
/// candidates best-first by a certified lower bound of J (the cheap enclosures of g, tightened by
/// the set's cuts and the curvature bound before a program is solved) and decide a candidate
/// without a program wherever those bounds rule it out or have closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum XcSearch {
    /// `search = "exact"`: solve every program the bounds cannot decide, so x^c is the exact
    /// minimiser over the candidates (the decisions of solving every candidate's program, tested).
    Exact,
    /// `search = { programs = K }`: solve at most K ≥ 1 programs (one per candidate, best-first by
    /// the certified lower bound of J, which the exact search also follows, so its first K
    /// programs are the same); once K are spent the remaining candidates are still decided where
    /// their bounds allow without a program, and x^c is the best decided candidate. The step
    /// records the certified optimality gap J(x^c) − min(J(x^c), the smallest certified lower
    /// bound of J over the candidates left undecided): J(x^c) − min_x J(x) is at most the gap, and
    /// the gap is 0 when the bound did not bind. Not in the paper; the authors' code bounds its
    /// search differently (10 restarts of one local IPOPT solve, 50 iterations each: notes 004
    /// §3.6). Deterministic: no wall-clock rule.
    Programs(usize),
    /// `search = { local = { starts = S, evaluations = E } }` (box mode only): x^c searched as the
    /// authors' code searches it (notes 004 §3.6: `minimise_constrained_lcb` runs 10 local IPOPT
    /// solves of the joint problem in (x, Z, z) from uniformly random starts, `max_iter = 50`,
    /// `tol = 10⁻²`, no more starts after a solve took over 5 s, and keeps the best objective),
    /// not as the paper's argmin: S ≥ 1 local searches of J(x) = LCB(x) + λ·g_lower(x) (g_upper
    /// for λ < 0 under [`DualRule::Unprojected`]) from S uniform points of the box drawn from the
    /// iteration's random stream (as the candidates of the other modes are), each allowed at most
    /// E ≥ 1 evaluations of J (its start included); x^c is the best point found, ties to the
    /// earliest start. Each J(x) takes the exact pointwise bound of bohf-confidence at x (one
    /// conic program, skipped where x's certified enclosure already shows J(x) is no improvement,
    /// which changes no decision), in place of IPOPT's joint solve, and the fixed budget E replaces
    /// IPOPT's tolerance and the 5-s rule (no wall-clock rule: the run stays a function of its
    /// seed). The local method is a compass (pattern) search in box-scaled coordinates: poll
    /// x ± h·e_i coordinate by coordinate (clamped to the box), move to the first point with a
    /// strictly smaller J, halve h (from ¼ of the box) after a poll with none, stop at h < 10⁻⁶ or
    /// E evaluations. Derivative-free because g_lower(x) = min over the set of g̃(x) is in
    /// general not differentiable in x (where the minimiser changes) and its exact value comes
    /// from a program, not a formula; a compass search only compares values, never increases J
    /// (so J(x^c) ≤ J at every start), and its cost is counted in programs. Not certified: the
    /// step records `search = local` and no `gap`. x^u, x_U and min UCB come from the box's LCB
    /// search as in the other modes, and no candidate set is drawn.
    Local {
        /// S ≥ 1, the local searches (the code: 10).
        starts: usize,
        /// E ≥ 1, the evaluations of J per local search, its start included.
        evaluations: usize,
    },
}

impl Default for CobolConfig {
    fn default() -> Self {
        Self {
            variant: Variant::default(),
            beta: bohf_core::schedule::COBOL_LEMMA31,
            eta: 3.0,
            zeta: 0.02,
            lambda0: 1.0,
            g_thr: G_THR_PAPER,
            no_harm: NoHarmRule::default(),
            dual: DualRule::default(),
            noise: 1e-4,
            hyper: HyperFitConfig { learn_noise: false, learn_variance: false, ..HyperFitConfig::default() },
            confidence: ConfidenceConfig { norm_bound: 1.0, latent_box: Some(3.0), nugget: 1e-6, ..Default::default() },
            alpha: AlphaRule::default(),
            doubling_every: 3,
            initial_evaluations: 3,
            initial_labels: 10,
            balanced_labels: true,
            initial_label_draws: 10_000,
            search: XcSearch::Programs(DEFAULT_PROGRAMS),
            pinpoint_draws: 10_000,
        }
    }
}

bohf_core::validated! {
    /// A [`CobolConfig`] that passed [`CobolConfig::check`].
    pub struct ValidCobolConfig(CobolConfig) {
        /// The checked hyperparameter fit of f's GP (`hyper`).
        checked_hyper: ValidHyperFitConfig,
    }
}

fn ensure_nonneg(name: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v >= 0.0) {
        return Err(Error::invalid(name, format!("must be finite and >= 0, got {v}")));
    }
    Ok(())
}

impl CobolConfig {
    /// The one check; errors name the first invalid field by its TOML path (`eta` for η < 1 or NaN,
    /// `zeta` for ζ < 0, `g_thr` for g_thr ≤ 0, `lambda0`, `noise`, `beta.…` (`beta.rule` for a rule
    /// outside [`BETA_RULES`]), `alpha.initial`,
    /// `hyper.…`, `confidence.…`, `initial_label_draws` below `initial_labels`, `search.programs`
    /// for a bound of 0, `search.local.starts` / `search.local.evaluations` for 0 (a negative
    /// value is refused when the spec is read, by the same path), `pinpoint_draws` = 0 under
    /// [`Variant::Pinpoint`]).
    pub fn check(&self) -> Result<ValidCobolConfig> {
        if !(self.eta.is_finite() && self.eta >= 1.0) {
            return Err(Error::invalid("eta", format!("the trust weight η must be finite and >= 1, got {}", self.eta)));
        }
        ensure_nonneg("zeta", self.zeta)?;
        ensure_nonneg("lambda0", self.lambda0)?;
        ensure_positive("g_thr", self.g_thr)?;
        ensure_positive("noise", self.noise)?;
        self.beta.check("COBOL", &BETA_RULES).at("beta")?;
        match self.alpha {
            AlphaRule::Practical { initial } => ensure_positive("initial", initial).at("alpha")?,
            AlphaRule::Lemma32 { epsilon, delta, log_covering } => {
                bohf_confidence::alpha1_cobol(1.0, epsilon, delta, 1, 1, log_covering).at("alpha")?;
            }
        }
        // Each bound pair named by its entry (`hyper.noise_bounds[1]`), and the pairs COBOL does
        // not learn (noise, variance) checked too, so that no invalid value passes silently.
        self.hyper.check_bound_entries().at("hyper")?;
        let checked_hyper = self.hyper.check().at("hyper")?;
        self.confidence.check().at("confidence")?;
        if self.variant.uses_labels() && self.initial_label_draws < self.initial_labels {
            return Err(Error::invalid(
                "initial_label_draws",
                format!(
                    "the cap on initial label draws must be >= initial_labels ({}), got {}",
                    self.initial_labels, self.initial_label_draws
                ),
            ));
        }
        if self.variant == Variant::Pinpoint && self.pinpoint_draws == 0 {
            return Err(Error::invalid("pinpoint_draws", "the cap on draws per pinpoint must be >= 1, got 0"));
        }
        if self.search == XcSearch::Programs(0) {
            return Err(Error::invalid("search.programs", "the bound on conic programs per step must be >= 1, got 0"));
        }
        if let XcSearch::Local { starts, evaluations } = self.search {
            if starts == 0 {
                return Err(Error::invalid("search.local.starts", "the local searches per step must be >= 1, got 0"));
            }
            if evaluations == 0 {
                return Err(Error::invalid(
                    "search.local.evaluations",
                    "the evaluations of J per local search must be >= 1, got 0",
                ));
            }
        }
        Ok(ValidCobolConfig { config: self.clone(), checked_hyper })
    }
}

/// Settings of the box-mode search for x^c, x^u and min UCB.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CobolBoxSearch {
    /// The multistart search of LCB and UCB over the box (bohf-optim).
    pub lcb: MultistartConfig,
    /// Uniform points of the box (plus x^u, x_U and the evaluated points) over which
    /// LCB + λ g_lower is minimised exactly (branch and bound on the conic inner problem).
    pub candidates: usize,
}

impl Default for CobolBoxSearch {
    /// BoTorch-like LCB search (the code: 512 raw samples, 10 restarts) and 512 candidates for x^c.
    fn default() -> Self {
        Self { lcb: MultistartConfig { design: 256, samples: 256, starts: 10, ..Default::default() }, candidates: 512 }
    }
}

bohf_core::validated! {
    /// A [`CobolBoxSearch`] that passed [`CobolBoxSearch::check`].
    pub struct ValidCobolBoxSearch(CobolBoxSearch);
}

impl CobolBoxSearch {
    /// Checks `lcb` (errors under `lcb.`) and `candidates` ≥ 1.
    pub fn check(&self) -> Result<ValidCobolBoxSearch> {
        self.lcb.check().at("lcb")?;
        if self.candidates == 0 {
            return Err(Error::invalid("candidates", "must be >= 1"));
        }
        Ok(ValidCobolBoxSearch(self.clone()))
    }
}
