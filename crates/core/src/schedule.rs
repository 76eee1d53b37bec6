//! The one width schedule of bohf: the confidence width β (MR-LPF, POP-BO, COBOL, COMP-GP-UCB,
//! MF-GP-UCB) and the exploration scale v_t (PF-TS, GP-TS) are all a [`WidthSchedule`], written the
//! same way in every spec:
//!
//! ```toml
//! beta = { rule = "constant", value = 1.0 }
//! beta = { rule = "sqrt-t", scale = 1.0 }                  # β₀√t (POP-BO App. P)
//! beta = { rule = "sqrt-t-plus-one", scale = 0.1 }         # β₀√(t + 1) (POP-BO authors' code)
//! beta = { rule = "theory", norm_bound = 1.0, delta = 0.05 }   # the algorithm's own theorem
//! beta = { rule = "popbo-theorem31", epsilon = 0.001, delta = 0.05, log_covering = 3.0 }
//! beta = { rule = "lemma31", norm_bound = 1.0, sigma = 1e-4, delta = 0.01 }  # COBOL Lemma 3.1
//! beta = { rule = "practical", epsilon = 1e-12, form = "multiplier" }  # COMP-GP-UCB App. B
//! beta = { rule = "kandasamy" }                              # MF-GP-UCB's code: √(0.2·d·log(2dt))
//! exploration = { rule = "pfts-experiment", delta = 0.05 }  # v_t² = √(t + 1 + log(2/δ))
//! exploration = { rule = "pfts-square-root", delta = 0.05 } # v_t = √(t + 1 + log(2/δ))
//! ```
//!
//! This type holds only the rule and its parameters. The formulas live with the papers they come
//! from: `bohf_gp::exploration` (PF-TS and GP-TS), `bohf_confidence::beta` (POP-BO), `bohf_mrlpf`
//! (MR-LPF eq. (14)), `bohf_cobol::model` (COBOL Lemma 3.1) and `bohf_compgpucb` (COMP-GP-UCB
//! App. B and Theorems 2–3, MF-GP-UCB); each algorithm accepts the rules that have a meaning for it
//! ([`WidthSchedule::check`], once, when its config is checked) and names the others in its error.
//! The spellings used before this type (`kind = "experiment"`, `constant = { value }`, `beta0`, the
//! norm bound as `b` or `b_f`, …) are rejected with an error that shows the new form.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// δ of the papers' experiments, the default of every rule with a δ: log(2/δ) = log 40 (PF-TS
/// App. F.1).
pub const DEFAULT_DELTA: f64 = 0.05;

/// The ε of COMP-GP-UCB's practical β = 0.5·log(2t + ε), its default (notes 002 §5.3: "presumably a
/// tiny constant").
pub const PRACTICAL_EPSILON: f64 = 1e-12;

/// COBOL's β of Lemma 3.1 with Table 3's constants: B_f = 1 (standardised outputs), σ = 10⁻⁴,
/// δ = 0.01 (hence β ≈ 1); the defaults of `{ rule = "lemma31" }` and of COBOL.
pub const COBOL_LEMMA31: WidthSchedule =
    WidthSchedule::CobolLemma31 { norm_bound: TABLE3_NORM_BOUND, sigma: TABLE3_SIGMA, delta: TABLE3_DELTA };
const TABLE3_NORM_BOUND: f64 = 1.0;
const TABLE3_SIGMA: f64 = 1e-4;
const TABLE3_DELTA: f64 = 0.01;

/// COMP-GP-UCB's β of App. B, β_t = 0.5·log(2t + ε) with ε = [`PRACTICAL_EPSILON`], multiplying σ:
/// the defaults of `{ rule = "practical" }` and of COMP-GP-UCB.
pub const COMPGPUCB_PRACTICAL: WidthSchedule =
    WidthSchedule::Practical { epsilon: PRACTICAL_EPSILON, form: BetaForm::Multiplier };

/// Whether a practical β multiplies σ or its square root does (COMP-GP-UCB notes 002 §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BetaForm {
    /// μ + βσ (COMP-GP-UCB's UCB read literally; the default).
    #[default]
    Multiplier,
    /// μ + √β σ (MF-GP-UCB's code).
    SquareRoot,
}

/// A width schedule: how a confidence width or exploration scale depends on the round t. In TOML a
/// table with `rule` and the rule's parameters (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields, try_from = "RawSchedule")]
pub enum WidthSchedule {
    /// The same width at every t (MR-LPF and POP-BO experiments: 1.0).
    Constant {
        /// The width; finite and ≥ 0.
        value: f64,
    },
    /// β₀√t (POP-BO App. P, paper default β₀ = 1).
    SqrtT {
        /// β₀; finite and > 0.
        scale: f64,
    },
    /// β₀√(t + 1) (POP-BO authors' code, `beta_func(num_data)`).
    SqrtTPlusOne {
        /// β₀; finite and > 0.
        scale: f64,
    },
    /// PF-TS App. F.1 read literally: v_t² = √(t + 1 + log(2/δ)) (the PF-TS and GP-TS default).
    PftsExperiment {
        /// δ ∈ (0, 1) (default 0.05 when the key is absent).
        delta: f64,
    },
    /// PF-TS App. F.1, the other reading: v_t = √(t + 1 + log(2/δ)).
    PftsSquareRoot {
        /// δ ∈ (0, 1) (default 0.05 when the key is absent).
        delta: f64,
    },
    /// The width of the algorithm's own regret theorem: PF-TS eq. (12), GP-TS (Chowdhury & Gopalan
    /// 2017), MR-LPF eq. (14), or COMP-GP-UCB Theorems 2–3 (IGP-UCB, Chowdhury & Gopalan 2017:
    /// β_t = 2B + √(2(Φ_{t−1} + 1 + log(1/δ))), Φ an information-gain bound).
    Theory {
        /// B ≥ 0, the bound on the RKHS norm of the utility.
        norm_bound: f64,
        /// δ ∈ (0, 1), the failure probability (default 0.05 when the key is absent).
        delta: f64,
    },
    /// β₁(ε, δ, t) of POP-BO Theorem 3.1, eq. (9), with a fixed log covering number.
    PopboTheorem31 {
        /// ε ≥ 0 (Remark 3.2: 1/T).
        epsilon: f64,
        /// δ ∈ (0, 1).
        delta: f64,
        /// log N(B_f, ε, ‖·‖∞) ≥ 0.
        log_covering: f64,
    },
    /// COBOL (Xu, Adachi, Jones & Osborne 2024) Lemma 3.1, from Chowdhury & Gopalan 2017,
    /// Theorem 2: β_{f_t} = B_f + σ√(2(γ + 1 + ln(2/δ))), with γ the information gain of the
    /// evaluated points (`bohf_cobol::model::beta_lemma31`). Defaults: Table 3's ([`COBOL_LEMMA31`]).
    #[serde(rename = "lemma31")]
    CobolLemma31 {
        /// B_f ≥ 0, the bound on the RKHS norm of f (default 1).
        norm_bound: f64,
        /// σ > 0, the sub-Gaussian noise level (default 10⁻⁴).
        sigma: f64,
        /// δ ∈ (0, 1) (default 0.01).
        delta: f64,
    },
    /// COMP-GP-UCB (Xu, Joshi, Singh & Dubrawski 2020) App. B: β_t = 0.5·log(2t + ε), "the same
    /// rule for f and f_r" (`bohf_compgpucb::beta_practical`). Defaults: [`COMPGPUCB_PRACTICAL`].
    Practical {
        /// ε > 0 inside the log (default [`PRACTICAL_EPSILON`]).
        epsilon: f64,
        /// Whether β multiplies σ (default) or √β does ([`BetaForm`]).
        form: BetaForm,
    },
    /// MF-GP-UCB's code (Kandasamy et al. 2016; COMP-GP-UCB notes 002 §3.3): β_t = 0.2·d·log(2dt),
    /// used as √β_t, with d the input dimension.
    Kandasamy,
}

impl WidthSchedule {
    /// The rule's name as written in a spec (`"constant"`, `"sqrt-t"`, …).
    pub fn rule(&self) -> &'static str {
        match self {
            WidthSchedule::Constant { .. } => "constant",
            WidthSchedule::SqrtT { .. } => "sqrt-t",
            WidthSchedule::SqrtTPlusOne { .. } => "sqrt-t-plus-one",
            WidthSchedule::PftsExperiment { .. } => "pfts-experiment",
            WidthSchedule::PftsSquareRoot { .. } => "pfts-square-root",
            WidthSchedule::Theory { .. } => "theory",
            WidthSchedule::PopboTheorem31 { .. } => "popbo-theorem31",
            WidthSchedule::CobolLemma31 { .. } => "lemma31",
            WidthSchedule::Practical { .. } => "practical",
            WidthSchedule::Kandasamy => "kandasamy",
        }
    }

    /// The one check of a schedule: its rule must be one of `accepted` (the rules `algorithm` gives a
    /// meaning to) and its parameters in range. Errors name the field relative to the schedule's own
    /// table (`rule`, `value`, `scale`, `delta`, `norm_bound`, `epsilon`, `log_covering`, `sigma`);
    /// the config that holds the schedule places them under its key with [`crate::AtField::at`]
    /// (e.g. `beta.value`). A schedule is a plain value, so the checked schedule is the schedule itself,
    /// returned for use in the caller's validated config. The formulas take a checked schedule and
    /// do not check it again.
    pub fn check(&self, algorithm: &str, accepted: &[&str]) -> Result<WidthSchedule> {
        if !accepted.contains(&self.rule()) {
            return Err(Error::invalid(
                "rule",
                format!(
                    "rule \"{}\" has no meaning for {algorithm}; it accepts {}",
                    self.rule(),
                    accepted.iter().map(|r| format!("\"{r}\"")).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let non_negative = |name: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(Error::invalid(name, format!("must be finite and >= 0, got {v}")))
            }
        };
        let delta_ok = |d: f64| {
            if d.is_finite() && d > 0.0 && d < 1.0 {
                Ok(())
            } else {
                Err(Error::invalid("delta", format!("must lie in (0, 1), got {d}")))
            }
        };
        match *self {
            WidthSchedule::Constant { value } => non_negative("value", value),
            WidthSchedule::SqrtT { scale } | WidthSchedule::SqrtTPlusOne { scale } => {
                crate::error::ensure_positive("scale", scale)
            }
            WidthSchedule::PftsExperiment { delta } | WidthSchedule::PftsSquareRoot { delta } => delta_ok(delta),
            WidthSchedule::Theory { norm_bound, delta } => {
                non_negative("norm_bound", norm_bound)?;
                delta_ok(delta)
            }
            WidthSchedule::PopboTheorem31 { epsilon, delta, log_covering } => {
                non_negative("epsilon", epsilon)?;
                delta_ok(delta)?;
                non_negative("log_covering", log_covering)
            }
            WidthSchedule::CobolLemma31 { norm_bound, sigma, delta } => {
                non_negative("norm_bound", norm_bound)?;
                crate::error::ensure_positive("sigma", sigma)?;
                delta_ok(delta)
            }
            WidthSchedule::Practical { epsilon, .. } => crate::error::ensure_positive("epsilon", epsilon),
            WidthSchedule::Kandasamy => Ok(()),
        }?;
        Ok(*self)
    }
}

/// Every key a schedule table may hold, in the new or an old spelling; [`WidthSchedule`] is built
/// from it so that old spellings get an error showing the new form.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    rule: Option<String>,
    value: Option<f64>,
    scale: Option<f64>,
    delta: Option<f64>,
    norm_bound: Option<f64>,
    epsilon: Option<f64>,
    log_covering: Option<f64>,
    sigma: Option<f64>,
    form: Option<BetaForm>,
    // Old spellings, recognised only to be rejected with the new form.
    kind: Option<String>,
    beta0: Option<f64>,
    b: Option<f64>,
    b_f: Option<f64>,
    constant: Option<LegacyInner>,
    sqrt_t: Option<LegacyInner>,
    sqrt_t_plus_one: Option<LegacyInner>,
    theorem31: Option<LegacyInner>,
}

#[derive(Deserialize)]
struct LegacyInner {
    value: Option<f64>,
    beta0: Option<f64>,
    epsilon: Option<f64>,
    delta: Option<f64>,
    log_covering: Option<f64>,
}

/// `{ rule = "…", k = v, … }` with the given values (`…` where a value is unknown).
fn new_form(rule: &str, fields: &[(&str, Option<f64>)]) -> String {
    let mut s = format!("{{ rule = \"{rule}\"");
    for (k, v) in fields {
        match v {
            Some(v) => s.push_str(&format!(", {k} = {v:?}")),
            None => s.push_str(&format!(", {k} = …")),
        }
    }
    s.push_str(" }");
    s
}

fn outdated(old: &str, new: String) -> String {
    format!("the width-schedule spelling {old} is no longer accepted; write {new}")
}

const RULES: &str = "\"constant\", \"sqrt-t\", \"sqrt-t-plus-one\", \"pfts-experiment\", \
                     \"pfts-square-root\", \"theory\", \"popbo-theorem31\", \"lemma31\", \"practical\", \
                     \"kandasamy\"";

impl RawSchedule {
    /// The error for an old spelling, showing the table to write instead; `None` if there is none.
    fn outdated_spelling(&self) -> Option<String> {
        if let Some(kind) = &self.kind {
            let new = match kind.as_str() {
                "experiment" => new_form("pfts-experiment", &[("delta", self.delta.or(Some(DEFAULT_DELTA)))]),
                "square_root" => new_form("pfts-square-root", &[("delta", self.delta.or(Some(DEFAULT_DELTA)))]),
                "theoretical" => new_form(
                    "theory",
                    &[("norm_bound", self.norm_bound), ("delta", self.delta.or(Some(DEFAULT_DELTA)))],
                ),
                _ => format!("{{ rule = … }} with one of {RULES}"),
            };
            return Some(outdated(&format!("`kind = \"{kind}\"`"), new));
        }
        let legacy = [
            ("constant", &self.constant, "constant"),
            ("sqrt_t", &self.sqrt_t, "sqrt-t"),
            ("sqrt_t_plus_one", &self.sqrt_t_plus_one, "sqrt-t-plus-one"),
            ("theorem31", &self.theorem31, "popbo-theorem31"),
        ];
        for (key, inner, rule) in legacy {
            if let Some(inner) = inner {
                let new = match rule {
                    "constant" => new_form(rule, &[("value", inner.value)]),
                    "popbo-theorem31" => new_form(
                        rule,
                        &[("epsilon", inner.epsilon), ("delta", inner.delta), ("log_covering", inner.log_covering)],
                    ),
                    _ => new_form(rule, &[("scale", inner.beta0)]),
                };
                return Some(outdated(&format!("`{key} = {{ … }}`"), new));
            }
        }
        if let Some(beta0) = self.beta0 {
            return Some(outdated(
                "`beta0`",
                format!("`scale = {beta0:?}` (e.g. {})", new_form("sqrt-t", &[("scale", Some(beta0))])),
            ));
        }
        // The norm bound B of COMP-GP-UCB's `theory` (`b`) and B_f of COBOL's `lemma31` (`b_f`):
        // `norm_bound`, as in every rule with a norm bound.
        for (key, old) in [("b", self.b), ("b_f", self.b_f)] {
            if let Some(v) = old {
                let new = match self.rule.as_deref() {
                    Some("lemma31") => new_form(
                        "lemma31",
                        &[
                            ("norm_bound", Some(v)),
                            ("sigma", self.sigma.or(Some(TABLE3_SIGMA))),
                            ("delta", self.delta.or(Some(TABLE3_DELTA))),
                        ],
                    ),
                    _ => new_form("theory", &[("norm_bound", Some(v)), ("delta", self.delta.or(Some(DEFAULT_DELTA)))]),
                };
                return Some(outdated(&format!("`{key} = {v:?}`"), format!("`norm_bound = {v:?}` (e.g. {new})")));
            }
        }
        None
    }
}

impl TryFrom<RawSchedule> for WidthSchedule {
    type Error = String;

    fn try_from(raw: RawSchedule) -> std::result::Result<Self, String> {
        // Old spellings first: each error shows the table to write instead.
        if let Some(e) = raw.outdated_spelling() {
            return Err(e);
        }
        let Some(rule) = raw.rule else {
            return Err(format!("a width schedule needs `rule`, one of {RULES}"));
        };
        let given = [
            ("value", raw.value.is_some()),
            ("scale", raw.scale.is_some()),
            ("delta", raw.delta.is_some()),
            ("norm_bound", raw.norm_bound.is_some()),
            ("epsilon", raw.epsilon.is_some()),
            ("log_covering", raw.log_covering.is_some()),
            ("sigma", raw.sigma.is_some()),
            ("form", raw.form.is_some()),
        ];
        let takes: &[&str] = match rule.as_str() {
            "constant" => &["value"],
            "sqrt-t" | "sqrt-t-plus-one" => &["scale"],
            "pfts-experiment" | "pfts-square-root" => &["delta"],
            "theory" => &["norm_bound", "delta"],
            "popbo-theorem31" => &["epsilon", "delta", "log_covering"],
            "lemma31" => &["norm_bound", "sigma", "delta"],
            "practical" => &["epsilon", "form"],
            "kandasamy" => &[],
            other => {
                let hint = match other {
                    "sqrt_t" | "sqrt_t_plus_one" => format!(" (write \"{}\")", other.replace('_', "-")),
                    "experiment" | "square_root" => format!(" (write \"pfts-{}\")", other.replace('_', "-")),
                    "theoretical" | "theorem31" => " (write \"theory\" or \"popbo-theorem31\")".to_string(),
                    _ => String::new(),
                };
                return Err(format!("unknown width-schedule rule \"{other}\"{hint}; the rules are {RULES}"));
            }
        };
        if let Some((k, _)) = given.iter().find(|(k, given)| *given && !takes.contains(k)) {
            let fields = if takes.is_empty() { "none".to_string() } else { takes.join(", ") };
            return Err(format!("rule \"{rule}\" takes no `{k}` (its fields: {fields})"));
        }
        let need = |k: &str, v: Option<f64>| v.ok_or_else(|| format!("rule \"{rule}\" needs `{k}`"));
        let delta = raw.delta.unwrap_or(DEFAULT_DELTA);
        Ok(match rule.as_str() {
            "constant" => WidthSchedule::Constant { value: need("value", raw.value)? },
            "sqrt-t" => WidthSchedule::SqrtT { scale: need("scale", raw.scale)? },
            "sqrt-t-plus-one" => WidthSchedule::SqrtTPlusOne { scale: need("scale", raw.scale)? },
            "pfts-experiment" => WidthSchedule::PftsExperiment { delta },
            "pfts-square-root" => WidthSchedule::PftsSquareRoot { delta },
            "theory" => WidthSchedule::Theory { norm_bound: need("norm_bound", raw.norm_bound)?, delta },
            "popbo-theorem31" => WidthSchedule::PopboTheorem31 {
                epsilon: need("epsilon", raw.epsilon)?,
                delta: need("delta", raw.delta)?,
                log_covering: need("log_covering", raw.log_covering)?,
            },
            "lemma31" => WidthSchedule::CobolLemma31 {
                norm_bound: raw.norm_bound.unwrap_or(TABLE3_NORM_BOUND),
                sigma: raw.sigma.unwrap_or(TABLE3_SIGMA),
                delta: raw.delta.unwrap_or(TABLE3_DELTA),
            },
            "practical" => WidthSchedule::Practical {
                epsilon: raw.epsilon.unwrap_or(PRACTICAL_EPSILON),
                form: raw.form.unwrap_or_default(),
            },
            _ => WidthSchedule::Kandasamy,
        })
    }
}

#[cfg(test)]
mod tests;
