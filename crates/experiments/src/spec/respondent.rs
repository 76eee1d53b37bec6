//! The `[respondent]` table: how the simulated person answers (the duels' model and link, the
//! evaluations' noise, COBOL's labelling and belief experts, the source of the comparisons).

use super::*;

/// How the simulated respondent answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RespondentSpec {
    /// Stochastic (BTL / Thurstone) or deterministic duels.
    pub model: ResponseModel,
    /// The link μ of stochastic duels: P(x ≻ x′) = μ(h), h = scale·(u(x) − u(x′)).
    pub link: Link,
    /// The utility scale s > 0: the respondent's utility is s·u (for duels and for values).
    pub scale: f64,
    /// The standard deviation σ ≥ 0 of scalar evaluations s·u(x) + N(0, σ²) (PF-TS App. F.1: 1).
    pub noise_sd: f64,
    /// A synthetic labelling expert (COBOL Example 2.2) answering label queries; none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expert: Option<ExpertSpec>,
    /// A belief expert (COBOL App. H/I, Experiment D (b)) answering label queries instead of
    /// `expert`; none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub belief: Option<BeliefSpec>,
    /// Which function duels are answered from: the utility itself (`same`, the default) or the
    /// problem's low fidelity f_c (`low-fidelity`, COMP-GP-UCB's comparison source; only for a
    /// `function` problem on `currin_exp` or `borehole`). Evaluations and the regret stay on the
    /// utility f. Written to TOML only when not the default.
    #[serde(skip_serializing_if = "ComparisonSource::is_same")]
    pub comparisons: ComparisonSource,
}

/// `respondent.comparisons`: the function a duel is decided on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComparisonSource {
    /// The utility f (every paper but COMP-GP-UCB).
    #[default]
    Same,
    /// The low fidelity f_c of a two-fidelity test function ([`bohf_problems::low_fidelity`]),
    /// tabulated on the same candidates and mapped by the same affine scaling (the problem's
    /// `scaling` computed from f's values, then the respondent's `scale`) as f, so that duels under
    /// a stochastic model are P(x ≻ x′) = μ(s·(f_c(x) − f_c(x′))) on f's scale (notes 002 §1.2, §5.2).
    LowFidelity,
}

impl ComparisonSource {
    /// Whether this is [`ComparisonSource::Same`] (the default).
    pub fn is_same(&self) -> bool {
        *self == ComparisonSource::Same
    }
}

impl Default for RespondentSpec {
    fn default() -> Self {
        Self {
            model: ResponseModel::Stochastic,
            link: Link::Logistic,
            scale: 1.0,
            noise_sd: 1.0,
            expert: None,
            belief: None,
            comparisons: ComparisonSource::Same,
        }
    }
}

/// `[respondent.expert]`: COBOL's synthetic expert P(reject) = S(a·ρ(f(x))) with f = −s·u and ρ
/// the affine map of [f_min, f_max] onto [−3, 3] ([`bohf_problems::SyntheticExpert::cobol`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpertSpec {
    /// The accuracy a (finite): > 0 informative, 0 random, < 0 adversarial (the paper: −2..2).
    pub accuracy: f64,
    /// COBOL's [f_min, f_max] of the minimised f = −s·u (the code's constants, notes 004 §5.3).
    /// Default: the range of f over the candidate set; required on a box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f_range: Option<[f64; 2]>,
}

/// `[respondent] belief = { model = "mvn", mean = [...], cov = [[...]] }`: an expert whose belief is
/// a normal density, accepting x with probability N(x; μ, Σ)/N(μ; μ, Σ)
/// ([`bohf_problems::MvnBeliefExpert`]; COBOL's πBO-style belief of App. H/I, Experiment D (b)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeliefSpec {
    /// The belief model; `"mvn"` is the only one.
    pub model: BeliefModel,
    /// μ, in the problem's own coordinates (those of `problem.lower`/`upper`, whatever
    /// `problem.inputs` shows the algorithms), of the problem's dimension.
    pub mean: Vec<f64>,
    /// Σ, d × d symmetric positive definite; default the identity (the paper's Σ = I).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cov: Option<Vec<Vec<f64>>>,
}

/// `respondent.belief.model`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BeliefModel {
    /// P(accept) = exp(−½ (x − μ)ᵀ Σ⁻¹ (x − μ)).
    Mvn,
}

/// The duel model of the respondent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ResponseModel {
    /// P(x ≻ x′) = μ(h): BTL for the logistic link, Thurstone for the probit.
    #[default]
    Stochastic,
    /// x wins iff h > 0, ties by a fair coin.
    Deterministic,
}

impl RespondentSpec {
    /// Errors naming the invalid field (`respondent.scale`, `respondent.noise_sd`).
    pub fn validate(&self) -> Result<()> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(ExperimentError::spec(
                "respondent.scale",
                format!("must be finite and > 0, got {}", self.scale),
            ));
        }
        if !(self.noise_sd.is_finite() && self.noise_sd >= 0.0) {
            return Err(ExperimentError::spec(
                "respondent.noise_sd",
                format!("must be finite and >= 0, got {}", self.noise_sd),
            ));
        }
        if let Some(b) = &self.belief {
            if self.expert.is_some() {
                return Err(ExperimentError::spec(
                    "respondent.belief",
                    "give either `expert` (COBOL's synthetic expert) or `belief`, not both: one answers the labels",
                ));
            }
            if let Err(e) = bohf_problems::MvnBeliefExpert::new(b.mean.clone(), b.cov.clone()) {
                let field =
                    if e.to_string().contains("cov") { "respondent.belief.cov" } else { "respondent.belief.mean" };
                return Err(ExperimentError::spec(field, e.to_string()));
            }
        }
        if let Some(e) = self.expert {
            if !e.accuracy.is_finite() {
                return Err(ExperimentError::spec(
                    "respondent.expert.accuracy",
                    format!("must be finite, got {}", e.accuracy),
                ));
            }
            if let Some([lo, hi]) = e.f_range
                && !(lo.is_finite() && hi.is_finite() && lo < hi)
            {
                return Err(ExperimentError::spec(
                    "respondent.expert.f_range",
                    format!("need finite f_min < f_max, got [{lo}, {hi}]"),
                ));
            }
        }
        Ok(())
    }
}
