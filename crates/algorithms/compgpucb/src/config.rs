//! The configuration of COMP-GP-UCB: the paper's experimental protocol (App. B) as defaults, every
//! ambiguous convention of notes 002 §5.3 a named option (notes 002 = `papers/notes/002_comp-gp-ucb.md`).

use bohf_core::error::ensure_positive;
pub use bohf_core::initial_split;
use bohf_core::{AtField, Error, Result, WidthSchedule};
use bohf_gp::HyperFitConfig;
use bohf_gp::regression::ValidHyperFitConfig;
use bohf_kernels::{KernelKind, KernelSpec};
use serde::{Deserialize, Serialize};

pub use bohf_core::schedule::PRACTICAL_EPSILON;

/// The rules of [`WidthSchedule`] COMP-GP-UCB's confidence width β_t accepts, the same rule for
/// both GPs (the paper: "β = 0.5 log(2t + ε) = β^{(r)}_t"): `practical` (App. B, the default
/// [`bohf_core::schedule::COMPGPUCB_PRACTICAL`]: 0.5·log(2t + ε) multiplying σ, or its square root
/// with `form = "square-root"`), `theory` (Theorems 2–3, IGP-UCB: β_t = 2B + √(2(Φ_{t−1} + 1 +
/// log(1/δ))), a multiplier, Φ_{t−1} the upper end of bohf-infogain's greedy bracket of the maximum
/// information gain over the candidates ([`bohf_infogain::greedy_points`]) for the configured
/// kernel and that GP's noise: Φ(X) for both GPs, as the theorem's Φ(H^γ) for f is unknowable in
/// advance and the paper's remark after Theorem 3 allows β_t = β^{(r)}_t), `kandasamy` (MF-GP-UCB's
/// code, √(0.2·d·log(2dt))) and `constant`.
pub const BETA_RULES: [&str; 4] = ["practical", "theory", "kandasamy", "constant"];

/// The rules COMP-GP-UCB accepts on a box ([`crate::CompGpUcbBox`]): [`BETA_RULES`] but `theory`,
/// whose Φ is computed over a candidate set.
pub const BOX_BETA_RULES: [&str; 3] = ["practical", "kandasamy", "constant"];

/// The t at which β_t is taken (notes 002 §3.1: "the iteration counter t is global"; the
/// experiments do not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BetaClock {
    /// t = 1 + the number of answered queries of both kinds, initial ones included (default).
    #[default]
    Global,
    /// t = 1 + the number of observations of the GP whose width it is.
    PerGp,
}

/// The lower bound f̂_r of f_r* in φ (notes 002 §3.1, "Fixed vs running f̂_r").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LowerBoundRule {
    /// Algorithm 1 as printed: the LCB μ^r − β^r σ^r at the phase-1 exit point, frozen (default).
    #[default]
    Frozen,
    /// The proofs' (Claim 7, Lemma 9): max over the candidates of the current LCB of f_r.
    Running,
    /// max(frozen, running).
    MaxOfBoth,
}

/// How ζ (in units of f) enters φ, whose other terms are in units of f_r ∈ [0, 1] (notes 002 §5.3:
/// "the same scale issue affects L₂ζ").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ZetaScale {
    /// L₂ζ as printed, ζ as given (default).
    #[default]
    Raw,
    /// ζ / range(f), as if f were normalised to range 1 (needs `f_range`).
    Normalised,
}

/// The initial threshold γ₀ of the comparison test (notes 002 §5.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
pub enum GammaRule {
    /// γ₀ = ζ_s / L₂ with ζ_s the scaled ζ: the paper's "one plausible choice" (§3.1, after
    /// Algorithm 1), the default.
    #[default]
    ZetaOverL2,
    /// γ₀ = range(f) · ζ_s: App. B as printed (needs `f_range`; with raw ζ it dwarfs β^r σ^r
    /// and phase 1 ends at once, notes 002 §5.3).
    RangeTimesZeta,
    /// A given γ₀ ≥ 0 in units of f_r.
    Value {
        /// γ₀ ≥ 0.
        value: f64,
    },
}

/// Which comparisons count for the γ-doubling (App. B: "doubled whenever COMP-GP-UCB has made 10
/// comparisons in a row").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DoublingScope {
    /// Every comparison the algorithm chooses, in both phases (the literal reading, default).
    #[default]
    BothPhases,
    /// Phase-2 comparisons only.
    Phase2,
}

/// The run length that triggers a γ-doubling.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
pub enum DoublingAfter {
    /// A fixed count (App. B: 10; 0 disables the doubling).
    Count {
        /// Consecutive comparisons.
        count: usize,
    },
    /// ⌈λ_l / λ_c⌉ consecutive comparisons (the MF code's threshold is the cost ratio).
    CostRatio,
}

/// The γ-doubling of the experiments (App. B, following MF-GP-UCB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GammaDoubling {
    /// When to multiply γ (default 10 comparisons in a row).
    pub after: DoublingAfter,
    /// The factor (default 2), ≥ 1.
    pub factor: f64,
    /// Which comparisons count (default both phases).
    pub scope: DoublingScope,
}

impl Default for GammaDoubling {
    fn default() -> Self {
        Self { after: DoublingAfter::Count { count: 10 }, factor: 2.0, scope: DoublingScope::BothPhases }
    }
}

/// The costs λ_c of a comparison and λ_l of a direct query and the total budget Λ (§1.4; App. B:
/// 0.1, 1 and up to 100), as the algorithm uses them: taken from the run's budget
/// ([`bohf_core::QueryCosts`] in the [`bohf_core::SearchContext`]: an experiment's `[budget]`), the
/// one home of the costs, by [`Costs::of_context`]. The runner's budget does the accounting; the
/// algorithm reads them for the initial design, the [`DoublingAfter::CostRatio`] threshold and
/// Algorithm 2's label budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// λ_c > 0.
    pub duel: f64,
    /// λ_l ≥ λ_c.
    pub evaluate: f64,
    /// Λ > 0; `None` without a budget (the run ends at its horizon).
    pub total: Option<f64>,
}

impl Costs {
    /// Every query at cost 1 and no total: what a run without a budget means (its horizon counts
    /// queries).
    pub const UNIT: Costs = Costs { duel: 1.0, evaluate: 1.0, total: None };

    /// The costs of a run's budget, checked: λ_c > 0 (`budget.duel`), λ_l ≥ λ_c
    /// (`budget.evaluate`), Λ > 0 (`budget.total`), each error naming the field of the run's
    /// budget. Without a budget, [`Costs::UNIT`].
    pub fn of_context(costs: Option<&bohf_core::QueryCosts>) -> Result<Costs> {
        let Some(c) = costs else { return Ok(Costs::UNIT) };
        if !(c.duel.is_finite() && c.duel > 0.0) {
            return Err(Error::invalid(
                "budget.duel",
                format!("COMP-GP-UCB needs a comparison cost λ_c > 0, got {}", c.duel),
            ));
        }
        if !(c.evaluate.is_finite() && c.evaluate >= c.duel) {
            return Err(Error::invalid(
                "budget.evaluate",
                format!(
                    "λ_l must be finite and >= λ_c = {} (a comparison is the cheap query), got {}",
                    c.duel, c.evaluate
                ),
            ));
        }
        if !(c.total.is_finite() && c.total > 0.0) {
            return Err(Error::invalid("budget.total", format!("Λ must be finite and > 0, got {}", c.total)));
        }
        Ok(Costs { duel: c.duel, evaluate: c.evaluate, total: Some(c.total) })
    }
}

/// How the initial budget Λ₀ / 2 per query kind becomes counts (notes 002 §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum InitialCounting {
    /// Λ₀/2 is budget: ⌊(Λ₀/2)/λ_c⌋ random duels and ⌊(Λ₀/2)/λ_l⌋ random labels (default; 50
    /// and 5 at the paper's costs).
    #[default]
    Budget,
    /// Λ₀/2 is a count of each: ⌊Λ₀/2⌋ duels and ⌊Λ₀/2⌋ labels.
    Count,
}

impl InitialCounting {
    /// The numbers of initial random duels and labels of the mixed methods (COMP-GP-UCB,
    /// MF-GP-UCB): Λ₀/2 per kind, as budget at `costs` ([`initial_split`] with share ½) or as a
    /// count (⌊Λ₀/2⌋ each).
    pub fn half_and_half(self, budget: f64, costs: &Costs) -> (usize, usize) {
        match self {
            InitialCounting::Budget => initial_split(budget, costs.duel, costs.evaluate, 0.5),
            InitialCounting::Count => {
                let half = (0.5 * budget).floor() as usize;
                (half, half)
            }
        }
    }
}

/// The uniformly random initial queries (App. B: Λ₀ = 10, half on comparisons, half on labels).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InitialDesign {
    /// Λ₀ ≥ 0 (0: no initial queries).
    pub budget: f64,
    /// `budget` (Λ₀/2 of budget per kind, divided by its cost) or `count` (⌊Λ₀/2⌋ of each).
    pub counting: InitialCounting,
    /// Whether Λ₀ counts toward Λ (default true, as the MF code; Fig. 1a starts at Λ = 10). Only
    /// Algorithm 2's label budget reads it here; the runner's budget does the accounting.
    pub counts_toward_budget: bool,
}

impl Default for InitialDesign {
    fn default() -> Self {
        Self { budget: 10.0, counting: InitialCounting::Budget, counts_toward_budget: true }
    }
}

/// What phase 2 queries when no candidate satisfies φ ≥ 0 (the paper is silent; notes 002 §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EmptyFallback {
    /// argmax φ, the point closest to feasibility (default, the note's first suggestion).
    #[default]
    ArgmaxPhi,
    /// The phase-1 exit point.
    ExitPoint,
    /// The unconstrained argmax of UCB_f.
    Unconstrained,
}

/// Algorithm 2 (unknown ζ): ζ_k doubles from ζ₀ after each stage of
/// ⌊n_Λ / (2⌈log₂(ζ_max/ζ₀)⌉)⌋ labels (at least 1), n_Λ = ⌊Λ′/λ_l⌋ with Λ′ = Λ − Λ₀ when the
/// initial budget counts toward Λ, else Λ; φ uses 2L₂ζ_k (line 8 as printed). Λ and λ_l are the
/// run's budget ([`Costs`]): Algorithm 2 needs one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnknownZeta {
    /// ζ₀ > 0.
    pub zeta0: f64,
    /// ζ_max ≥ ζ₀.
    pub zeta_max: f64,
}

/// Settings of [`crate::CompGpUcb`]. Defaults: the paper's protocol (App. B) and the note's readings
/// (notes 002 §5.3): SE kernel, both GPs' hyperparameters learned by type-II ML (label GP every 5,
/// comparison GP every 20 observations), β = 0.5·log(2t + ε) as a multiplier on a global t,
/// frozen f̂_r, L₂ = 1, raw ζ = 0.15 (the SVM task's value; the synthetic tasks use f(x*) − f_c(x*)),
/// γ₀ = ζ/L₂, doubled after 10 comparisons in a row, and Λ₀ = 10 of random queries split half/half
/// as budget. The costs λ_c, λ_l and Λ are not settings: they are the run's budget ([`Costs`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompGpUcbConfig {
    /// The kernel of both GPs (default SE, ℓ = 0.2; with learned hyperparameters the start of
    /// every fit, in working units).
    pub kernel: KernelSpec,
    /// η² > 0, the noise variance of the f GP (default 10⁻⁴; a start value when learned).
    pub noise: f64,
    /// η_r² > 0 of the f_r GP; absent: `noise` (the paper implies one η², notes 002 §2.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison_noise: Option<f64>,
    /// Type-II ML of the f GP (default: refit every 5); `"fixed"`: the start kernel and noise throughout ([`bohf_gp::fit_or_fixed`]).
    #[serde(with = "bohf_gp::fit_or_fixed")]
    pub hyperparameters: Option<HyperFitConfig>,
    /// Type-II ML of the f_r GP (default: refit every 20); `"fixed"`: the start kernel and noise throughout ([`bohf_gp::fit_or_fixed`]).
    #[serde(with = "bohf_gp::fit_or_fixed")]
    pub comparison_hyperparameters: Option<HyperFitConfig>,
    /// ζ ≥ 0, Assumption 1's bias (units of f); Algorithm 1's known ζ.
    pub zeta: f64,
    /// How ζ enters φ: `raw` (L₂ζ as printed) or `normalised` (ζ / `f_range`).
    pub zeta_scale: ZetaScale,
    /// range(f) > 0, for [`ZetaScale::Normalised`] and [`GammaRule::RangeTimesZeta`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f_range: Option<f64>,
    /// L₂ > 0 of Assumption 2 (never given in the experiments; 1).
    pub l2: f64,
    /// γ₀: `zeta-over-l2` (ζ/L₂, §3.1), `range-times-zeta` (range(f)·ζ, App. B as printed) or
    /// `value` (`value = …`, in f_r units).
    pub gamma: GammaRule,
    /// The γ-doubling after comparisons in a row (App. B).
    pub doubling: GammaDoubling,
    /// β of both GPs: `practical` (0.5·log(2t + ε), `epsilon` = 10⁻¹², `form`
    /// `"multiplier"` or `"square-root"`), `theory` (2B + √(2(Φ_{t−1} + 1 + log 1/δ)), `norm_bound`,
    /// `delta` = 0.05; candidate sets only), `kandasamy` (√(0.2·d·log(2dt))) or `constant` (`value`).
    pub beta: WidthSchedule,
    /// The t of β_t: `global` (all answered queries + 1) or `per-gp` (that GP's observations + 1).
    pub beta_clock: BetaClock,
    /// f̂_r in φ: `frozen` at the phase-1 exit (Alg. 1), `running` (max LCB of f_r, the proofs')
    /// or `max-of-both`.
    pub lower_bound: LowerBoundRule,
    /// What phase 2 queries when no candidate has φ ≥ 0: `argmax-phi`, `exit-point` (the phase-1
    /// exit point) or `unconstrained` (argmax UCB of f).
    pub fallback: EmptyFallback,
    /// Λ₀.
    pub initial: InitialDesign,
    /// Algorithm 2; absent: Algorithm 1 with the known `zeta`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_zeta: Option<UnknownZeta>,
}

/// The f GP's refit period (App. B: every 5 iterations).
pub const LABEL_REFIT_EVERY: usize = 5;
/// The f_r GP's refit period (App. B: every 20 iterations).
pub const COMPARISON_REFIT_EVERY: usize = 20;

impl Default for CompGpUcbConfig {
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
            zeta: 0.15,
            zeta_scale: ZetaScale::Raw,
            f_range: None,
            l2: 1.0,
            gamma: GammaRule::default(),
            doubling: GammaDoubling::default(),
            beta: bohf_core::schedule::COMPGPUCB_PRACTICAL,
            beta_clock: BetaClock::default(),
            lower_bound: LowerBoundRule::default(),
            fallback: EmptyFallback::default(),
            initial: InitialDesign::default(),
            unknown_zeta: None,
        }
    }
}

bohf_core::validated! {
    /// A [`CompGpUcbConfig`] that passed [`CompGpUcbConfig::check`].
    pub struct ValidCompGpUcbConfig(CompGpUcbConfig) {
        /// The checked hyperparameter fit of the labels' GP (`hyperparameters`), if any.
        checked_hyperparameters: Option<ValidHyperFitConfig>,
        /// The checked hyperparameter fit of the comparisons' GP (`comparison_hyperparameters`).
        checked_comparison_hyperparameters: Option<ValidHyperFitConfig>,
    }
}

/// The one check of an optional hyperparameter fit of a GP with kernel `kernel` (`field` its key):
/// the fit needs a stationary kernel (`kernel.…`), then its bound entries and settings (`field.…`).
/// The checked fit is what the GP is built from.
pub(crate) fn check_hyper(
    kernel: &KernelSpec,
    hyper: Option<&HyperFitConfig>,
    field: &str,
) -> Result<Option<ValidHyperFitConfig>> {
    let Some(h) = hyper else { return Ok(None) };
    kernel.build_stationary().at("kernel")?;
    h.check_bound_entries().at(field)?;
    Ok(Some(h.check().at(field)?))
}

fn ensure_nonneg(name: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v >= 0.0) {
        return Err(Error::invalid(name, format!("must be finite and >= 0, got {v}")));
    }
    Ok(())
}

impl CompGpUcbConfig {
    /// The one check; errors name the first invalid field by its TOML path (`zeta` for ζ < 0 or
    /// NaN, `gamma.value` for γ < 0, `l2`, `noise`, `comparison_noise`, `f_range` when missing or
    /// ≤ 0 but needed, `initial.budget`,
    /// `doubling.factor`, `beta.…`, `unknown_zeta.…`, `kernel.…`, `hyperparameters.…`).
    pub fn check(&self) -> Result<ValidCompGpUcbConfig> {
        self.kernel.build().at("kernel")?;
        ensure_positive("noise", self.noise)?;
        if let Some(n) = self.comparison_noise {
            ensure_positive("comparison_noise", n)?;
        }
        let checked_hyperparameters = check_hyper(&self.kernel, self.hyperparameters.as_ref(), "hyperparameters")?;
        let checked_comparison_hyperparameters =
            check_hyper(&self.kernel, self.comparison_hyperparameters.as_ref(), "comparison_hyperparameters")?;
        ensure_nonneg("zeta", self.zeta)?;
        if let Some(r) = self.f_range {
            ensure_positive("f_range", r)?;
        }
        let needs_range = self.zeta_scale == ZetaScale::Normalised || matches!(self.gamma, GammaRule::RangeTimesZeta);
        if needs_range && self.f_range.is_none() {
            return Err(Error::invalid(
                "f_range",
                "range(f) is needed by zeta_scale = \"normalised\" and gamma.rule = \"range-times-zeta\"",
            ));
        }
        ensure_positive("l2", self.l2)?;
        if let GammaRule::Value { value } = self.gamma {
            ensure_nonneg("value", value).at("gamma")?;
        }
        if !(self.doubling.factor.is_finite() && self.doubling.factor >= 1.0) {
            return Err(Error::invalid(
                "doubling.factor",
                format!("must be finite and >= 1, got {}", self.doubling.factor),
            ));
        }
        self.beta.check("COMP-GP-UCB", &BETA_RULES).at("beta")?;
        ensure_nonneg("budget", self.initial.budget).at("initial")?;
        if let Some(u) = &self.unknown_zeta {
            ensure_positive("zeta0", u.zeta0).at("unknown_zeta")?;
            if !(u.zeta_max.is_finite() && u.zeta_max >= u.zeta0) {
                return Err(Error::invalid(
                    "unknown_zeta.zeta_max",
                    format!("must be finite and >= zeta0 = {}, got {}", u.zeta0, u.zeta_max),
                ));
            }
        }
        Ok(ValidCompGpUcbConfig { config: self.clone(), checked_hyperparameters, checked_comparison_hyperparameters })
    }

    /// ζ in the units of φ: ζ ([`ZetaScale::Raw`]) or ζ / range(f) ([`ZetaScale::Normalised`]).
    pub fn scaled(&self, zeta: f64) -> f64 {
        match (self.zeta_scale, self.f_range) {
            (ZetaScale::Normalised, Some(r)) => zeta / r,
            _ => zeta,
        }
    }

    /// γ₀ by [`CompGpUcbConfig::gamma`], from the scaled ζ (ζ₀ under Algorithm 2).
    pub fn initial_gamma(&self) -> f64 {
        let zeta = self.scaled(self.unknown_zeta.map_or(self.zeta, |u| u.zeta0));
        match self.gamma {
            GammaRule::ZetaOverL2 => zeta / self.l2,
            GammaRule::RangeTimesZeta => self.f_range.unwrap_or(1.0) * zeta,
            GammaRule::Value { value } => value,
        }
    }

    /// The number of consecutive comparisons after which γ is multiplied (0: never), at `costs`.
    pub fn doubling_after(&self, costs: &Costs) -> usize {
        match self.doubling.after {
            DoublingAfter::Count { count } => count,
            DoublingAfter::CostRatio => (costs.evaluate / costs.duel * (1.0 - 1e-12)).ceil() as usize,
        }
    }

    /// The numbers of initial random duels and labels at `costs` (Λ₀/2 per kind,
    /// [`initial_split`]).
    pub fn initial_counts(&self, costs: &Costs) -> (usize, usize) {
        self.initial.counting.half_and_half(self.initial.budget, costs)
    }

    /// Algorithm 2's stage length in labels: max(1, ⌊n_Λ / (2⌈log₂(ζ_max/ζ₀)⌉)⌋) (max(1, ·) on the
    /// log term too, so that ζ_max = ζ₀ is one stage), with Λ and λ_l from `costs`; `None` under
    /// Algorithm 1, an error naming `budget.total` if the run has no budget.
    pub fn stage_labels(&self, costs: &Costs) -> Result<Option<usize>> {
        let Some(u) = self.unknown_zeta else { return Ok(None) };
        let total = costs.total.ok_or_else(|| {
            Error::invalid(
                "budget.total",
                "Algorithm 2 (`unknown_zeta`) plans with the total budget Λ: the run needs a budget",
            )
        })?;
        let spend = if self.initial.counts_toward_budget { (total - self.initial.budget).max(0.0) } else { total };
        let n = (spend / costs.evaluate * (1.0 + 1e-12)).floor();
        let stages = (u.zeta_max / u.zeta0).log2().ceil().max(1.0);
        Ok(Some(((n / (2.0 * stages)).floor() as usize).max(1)))
    }
}

/// IGP-UCB's width (Chowdhury & Gopalan 2017; COMP-GP-UCB Theorems 2–3), the `theory` rule's:
/// β_t = 2B + √(2(Φ_{t−1} + 1 + log(1/δ))), for an information gain `phi` = Φ_{t−1}.
pub fn beta_igp_ucb(b: f64, phi: f64, delta: f64) -> f64 {
    2.0 * b + (2.0 * (phi + 1.0 + (1.0 / delta).ln())).sqrt()
}

/// The practical width 0.5·log(2t + ε) (App. B), the `practical` rule's.
pub fn beta_practical(t: usize, epsilon: f64) -> f64 {
    0.5 * (2.0 * t as f64 + epsilon).ln()
}
