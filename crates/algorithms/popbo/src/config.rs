//! The configuration of POP-BO.

use bohf_confidence::{ConfidenceConfig, check_beta};
use bohf_core::error::ensure_positive;
use bohf_core::{AtField, Error, Result, WidthSchedule};
use bohf_gp::InferenceConfig;
use serde::{Deserialize, Serialize};

/// How POP-BO reports its estimate of the maximiser ([`bohf_core::Optimizer::recommend`]). In TOML
/// a table with `kind` and the kind's fields; a field the kind does not take is an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields, try_from = "RawKind")]
pub enum ReportRule {
    /// argmax of the MLE values Ẑ over the sampled points x₀, x₁, …, x_t (the authors' code,
    /// `best_x_estim_method = 'max_mle'`, and the experiments of App. P; "POP-BO max-MLE"). The code
    /// computes the report before appending the newest duel; bohf reports from all observed duels.
    MaxMleSampled,
    /// argmax over the whole candidate set of the minimum-norm MLE interpolant
    /// f̂(x) = k_xᵀK⁻¹Ẑ (the code's `'grid_max_mle'`).
    MaxMleGrid,
    /// The theoretical rule of eq. (19): x_{t*} with
    /// t* = argmin_{t ≤ T} 2(2B + λ^{−1/2}√β_t) σ_t^{ff′}((x_t, x′_t)), where σ_t^{ff′} is the
    /// posterior-variance-like quantity of eq. (16) for the additive pair kernel
    /// k^{ff′}((x, x′), (x̄, x̄′)) = k(x, x̄) + k(x′, x̄′) with regulariser λ, and β_t the configured
    /// schedule at t (eq. (19) writes β(ε, δ/2, t); pass the theoretical schedule for that).
    TheoreticalTStar {
        /// λ > 0 of eq. (16) (the paper gives no value; default 1).
        #[serde(default = "default_lambda")]
        lambda: f64,
    },
}

fn default_lambda() -> f64 {
    1.0
}

impl Default for ReportRule {
    /// [`ReportRule::MaxMleSampled`], the experiments' rule.
    fn default() -> Self {
        ReportRule::MaxMleSampled
    }
}

/// How the initial point x₀ is chosen. In TOML a table with `kind` and the kind's fields; a field
/// the kind does not take is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields, try_from = "RawKind")]
pub enum InitialPoint {
    /// Uniformly at random among the candidates, from the RNG of the first `suggest` (the
    /// experiments: "random starting points").
    #[default]
    Random,
    /// A given candidate index.
    Candidate {
        /// The index of x₀.
        index: usize,
    },
}

/// Every key a `report` or `initial` table may hold. Serde's internally tagged enums ignore extra
/// keys beside a variant without fields (`{ kind = "max_mle_sampled", lambda = 3 }` would pass
/// silently), so both are read through this and refuse a key their kind does not take.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKind {
    kind: String,
    lambda: Option<f64>,
    index: Option<usize>,
}

impl RawKind {
    /// Errors unless exactly the keys `takes` (of `lambda`, `index`) are given (or may be absent).
    fn only(&self, takes: &[&str]) -> std::result::Result<(), String> {
        let given = [("lambda", self.lambda.is_some()), ("index", self.index.is_some())];
        match given.iter().find(|(k, g)| *g && !takes.contains(k)) {
            Some((k, _)) => Err(format!("kind \"{}\" takes no `{k}`", self.kind)),
            None => Ok(()),
        }
    }
}

impl TryFrom<RawKind> for ReportRule {
    type Error = String;

    fn try_from(raw: RawKind) -> std::result::Result<Self, String> {
        let rule = match raw.kind.as_str() {
            "max_mle_sampled" => ReportRule::MaxMleSampled,
            "max_mle_grid" => ReportRule::MaxMleGrid,
            "theoretical_t_star" => ReportRule::TheoreticalTStar { lambda: raw.lambda.unwrap_or_else(default_lambda) },
            other => {
                return Err(format!(
                    "unknown report kind \"{other}\"; the kinds are \"max_mle_sampled\", \"max_mle_grid\", \
                     \"theoretical_t_star\""
                ));
            }
        };
        raw.only(if matches!(rule, ReportRule::TheoreticalTStar { .. }) { &["lambda"] } else { &[] })?;
        Ok(rule)
    }
}

impl TryFrom<RawKind> for InitialPoint {
    type Error = String;

    fn try_from(raw: RawKind) -> std::result::Result<Self, String> {
        match raw.kind.as_str() {
            "random" => raw.only(&[]).map(|()| InitialPoint::Random),
            "candidate" => {
                raw.only(&["index"])?;
                let index = raw.index.ok_or("kind \"candidate\" needs `index`")?;
                Ok(InitialPoint::Candidate { index })
            }
            other => Err(format!("unknown initial-point kind \"{other}\"; the kinds are \"random\", \"candidate\"")),
        }
    }
}

/// Settings of [`crate::PopBo`].
///
/// Defaults are the paper's (App. P): B = 6 and β_t = β₀√t with β₀ = 1; no latent box; the report
/// is the argmax of the MLE over the sampled points; x₀ uniformly random. The conic-solver settings
/// are bohf-confidence's defaults ([`ConfidenceConfig`]; an `AlmostSolved` within 10⁻⁴ is accepted,
/// any worse status is an error that names the program), so a partial `[confidence]` table in a
/// spec changes only the fields it names. The kernel is
/// `inference.kernel` (shared with the other BOHF methods, default Matérn-5/2 with ℓ = 0.1); POP-BO
/// uses only that field of [`InferenceConfig`] — its MLE is the norm-constrained one of
/// bohf-confidence, not the kernel logistic MLE of `inference.mle`.
///
/// The authors' code differs (notes 001 §5.2): β_t = β₀√(t + 1) (`rule = "sqrt-t-plus-one"`),
/// per-function B and β₀, a latent box |z| ≤ 3 (`confidence.latent_box = 3`) and ε_K = 10⁻⁶
/// (`confidence.nugget`). In TOML:
///
/// ```toml
/// [inference]
/// kernel = { kind = "matern52", lengthscales = [4.5, 4.5] }
/// [confidence]
/// norm_bound = 6.0
/// latent_box = 3.0
/// nugget = 1e-6
/// [beta]
/// rule = "sqrt-t-plus-one"
/// scale = 1.0
/// [report]
/// kind = "max_mle_sampled"
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PopBoConfig {
    /// The kernel (only `inference.kernel` is used).
    pub inference: InferenceConfig,
    /// B, the optional latent box, the nugget ε_K and the conic-solver settings.
    pub confidence: ConfidenceConfig,
    /// The width β_t of the likelihood-ratio confidence set after t duels (rules
    /// [`bohf_confidence::BETA_RULES`]; default `{ rule = "sqrt-t", scale = 1.0 }`).
    pub beta: WidthSchedule,
    /// How the estimate of the maximiser is reported.
    pub report: ReportRule,
    /// How x₀ is chosen.
    pub initial: InitialPoint,
}

impl Default for PopBoConfig {
    fn default() -> Self {
        Self {
            inference: InferenceConfig::default(),
            confidence: ConfidenceConfig::default(),
            beta: WidthSchedule::SqrtT { scale: 1.0 },
            report: ReportRule::default(),
            initial: InitialPoint::default(),
        }
    }
}

bohf_core::validated! {
    /// A [`PopBoConfig`] that passed [`PopBoConfig::check`]: what [`crate::PopBo::new`] and
    /// [`crate::PopBoBox::new`] take.
    pub struct ValidPopBoConfig(PopBoConfig);
}

impl PopBoConfig {
    /// The one check of the settings; errors name the first invalid field by its path in this
    /// table, as written in TOML (`inference.kernel.lengthscale`, `inference.mle.lambda`,
    /// `confidence.norm_bound`, `beta.scale`, `beta.rule`, `report.lambda`, …). The unused
    /// `inference.mle` and `inference.kappa` are checked too, so that no invalid value passes
    /// silently. The index of `initial = { kind = "candidate" }` depends on the candidate set and
    /// is checked by [`crate::PopBo::new`].
    pub fn check(&self) -> Result<ValidPopBoConfig> {
        self.inference.check().at("inference")?;
        self.confidence.check().at("confidence")?;
        check_beta(&self.beta).at("beta")?;
        if let ReportRule::TheoreticalTStar { lambda } = self.report {
            ensure_positive("lambda", lambda).at("report")?;
        }
        Ok(ValidPopBoConfig(self.clone()))
    }
}

impl ValidPopBoConfig {
    /// Checks the settings that depend on the candidate set (x₀'s index, named `initial.index`).
    pub(crate) fn check_for(&self, candidates: usize) -> Result<()> {
        if let InitialPoint::Candidate { index } = self.initial
            && index >= candidates
        {
            return Err(Error::invalid(
                "index",
                format!("candidate {index} does not exist (the domain has {candidates} candidates)"),
            )
            .at("initial"));
        }
        Ok(())
    }
}
