//! The one width schedule of bohf: the confidence width β (MR-LPF, POP-BO) and the exploration
//! scale v_t (PF-TS, GP-TS) are all a [`WidthSchedule`], written the same way in every spec:
//!
//! ```toml
//! beta = { rule = "constant", value = 1.0 }
//! beta = { rule = "sqrt-t", scale = 1.0 }                  # β₀√t (POP-BO App. P)
//! beta = { rule = "sqrt-t-plus-one", scale = 0.1 }         # β₀√(t + 1) (POP-BO authors' code)
//! beta = { rule = "theory", norm_bound = 1.0, delta = 0.05 }   # the algorithm's own theorem
//! beta = { rule = "popbo-theorem31", epsilon = 0.001, delta = 0.05, log_covering = 3.0 }
//! exploration = { rule = "pfts-experiment", delta = 0.05 }  # v_t² = √(t + 1 + log(2/δ))
//! exploration = { rule = "pfts-square-root", delta = 0.05 } # v_t = √(t + 1 + log(2/δ))
//! ```
//!
//! This type holds only the rule and its parameters. The formulas live with the papers they come
//! from: `bohf_gp::exploration` (PF-TS and GP-TS), `bohf_confidence::beta` (POP-BO) and
//! `bohf_mrlpf` (MR-LPF eq. (14)); each algorithm accepts the rules that have a meaning for it and
//! names the others in its error. The spellings used before this type (`kind = "experiment"`,
//! `constant = { value }`, `beta0`, …) are rejected with an error that shows the new form.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// δ of the papers' experiments, the default of every rule with a δ: log(2/δ) = log 40 (PF-TS
/// App. F.1).
pub const DEFAULT_DELTA: f64 = 0.05;

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
    /// 2017) or MR-LPF eq. (14).
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
        }
    }

    /// The one check of a schedule: its rule must be one of `accepted` (the rules `algorithm` gives a
    /// meaning to) and its parameters in range. Errors name the field relative to the schedule's own
    /// table (`rule`, `value`, `scale`, `delta`, `norm_bound`, `epsilon`, `log_covering`); the config
    /// that holds the schedule places them under its key with [`crate::AtField::at`] (e.g.
    /// `beta.value`). A schedule is a plain value, so the checked schedule is the schedule itself,
    /// returned for use in the caller's validated config.
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
    // Old spellings, recognised only to be rejected with the new form.
    kind: Option<String>,
    beta0: Option<f64>,
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
                     \"pfts-square-root\", \"theory\", \"popbo-theorem31\"";

impl TryFrom<RawSchedule> for WidthSchedule {
    type Error = String;

    fn try_from(raw: RawSchedule) -> std::result::Result<Self, String> {
        // Old spellings first: each error shows the table to write instead.
        if let Some(kind) = &raw.kind {
            let new = match kind.as_str() {
                "experiment" => new_form("pfts-experiment", &[("delta", raw.delta.or(Some(DEFAULT_DELTA)))]),
                "square_root" => new_form("pfts-square-root", &[("delta", raw.delta.or(Some(DEFAULT_DELTA)))]),
                "theoretical" => {
                    new_form("theory", &[("norm_bound", raw.norm_bound), ("delta", raw.delta.or(Some(DEFAULT_DELTA)))])
                }
                _ => format!("{{ rule = … }} with one of {RULES}"),
            };
            return Err(outdated(&format!("`kind = \"{kind}\"`"), new));
        }
        let legacy = [
            ("constant", &raw.constant, "constant"),
            ("sqrt_t", &raw.sqrt_t, "sqrt-t"),
            ("sqrt_t_plus_one", &raw.sqrt_t_plus_one, "sqrt-t-plus-one"),
            ("theorem31", &raw.theorem31, "popbo-theorem31"),
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
                return Err(outdated(&format!("`{key} = {{ … }}`"), new));
            }
        }
        if let Some(beta0) = raw.beta0 {
            return Err(outdated(
                "`beta0`",
                format!("`scale = {beta0:?}` (e.g. {})", new_form("sqrt-t", &[("scale", Some(beta0))])),
            ));
        }
        let Some(rule) = raw.rule else {
            return Err(format!("a width schedule needs `rule`, one of {RULES}"));
        };
        let given = [
            ("value", raw.value),
            ("scale", raw.scale),
            ("delta", raw.delta),
            ("norm_bound", raw.norm_bound),
            ("epsilon", raw.epsilon),
            ("log_covering", raw.log_covering),
        ];
        let takes: &[&str] = match rule.as_str() {
            "constant" => &["value"],
            "sqrt-t" | "sqrt-t-plus-one" => &["scale"],
            "pfts-experiment" | "pfts-square-root" => &["delta"],
            "theory" => &["norm_bound", "delta"],
            "popbo-theorem31" => &["epsilon", "delta", "log_covering"],
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
        if let Some((k, _)) = given.iter().find(|(k, v)| v.is_some() && !takes.contains(k)) {
            return Err(format!("rule \"{rule}\" takes no `{k}` (its fields: {})", takes.join(", ")));
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
            _ => WidthSchedule::PopboTheorem31 {
                epsilon: need("epsilon", raw.epsilon)?,
                delta: need("delta", raw.delta)?,
                log_covering: need("log_covering", raw.log_covering)?,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AtField;

    #[derive(Deserialize, Serialize, Debug, PartialEq)]
    struct Holder {
        beta: WidthSchedule,
    }

    fn parse(s: &str) -> std::result::Result<WidthSchedule, String> {
        toml::from_str::<Holder>(s).map(|h| h.beta).map_err(|e| e.to_string())
    }

    #[test]
    fn every_rule_parses_and_round_trips() {
        let cases = [
            ("beta = { rule = \"constant\", value = 1.0 }", WidthSchedule::Constant { value: 1.0 }),
            ("beta = { rule = \"sqrt-t\", scale = 0.5 }", WidthSchedule::SqrtT { scale: 0.5 }),
            ("beta = { rule = \"sqrt-t-plus-one\", scale = 0.1 }", WidthSchedule::SqrtTPlusOne { scale: 0.1 }),
            ("beta = { rule = \"pfts-experiment\" }", WidthSchedule::PftsExperiment { delta: 0.05 }),
            ("beta = { rule = \"pfts-square-root\", delta = 0.1 }", WidthSchedule::PftsSquareRoot { delta: 0.1 }),
            ("beta = { rule = \"theory\", norm_bound = 2.0 }", WidthSchedule::Theory { norm_bound: 2.0, delta: 0.05 }),
            (
                "beta = { rule = \"popbo-theorem31\", epsilon = 0.01, delta = 0.1, log_covering = 3.0 }",
                WidthSchedule::PopboTheorem31 { epsilon: 0.01, delta: 0.1, log_covering: 3.0 },
            ),
        ];
        for (text, expected) in cases {
            let got = parse(text).unwrap();
            assert_eq!(got, expected, "{text}");
            // Serialised back, the same table (new spelling) parses to the same schedule.
            let back = toml::to_string(&Holder { beta: got }).unwrap();
            assert!(back.contains(&format!("rule = \"{}\"", got.rule())), "{back}");
            assert_eq!(parse(&back).unwrap(), got, "{back}");
        }
    }

    #[test]
    fn old_spellings_are_rejected_with_the_new_form() {
        let cases = [
            ("beta = { kind = \"experiment\", delta = 0.05 }", "{ rule = \"pfts-experiment\", delta = 0.05 }"),
            ("beta = { kind = \"square_root\" }", "{ rule = \"pfts-square-root\", delta = 0.05 }"),
            (
                "beta = { kind = \"theoretical\", norm_bound = 2.0 }",
                "{ rule = \"theory\", norm_bound = 2.0, delta = 0.05 }",
            ),
            ("beta = { constant = { value = 1.0 } }", "{ rule = \"constant\", value = 1.0 }"),
            ("beta = { sqrt_t = { beta0 = 1.0 } }", "{ rule = \"sqrt-t\", scale = 1.0 }"),
            ("beta = { sqrt_t_plus_one = { beta0 = 0.1 } }", "{ rule = \"sqrt-t-plus-one\", scale = 0.1 }"),
            (
                "beta = { theorem31 = { epsilon = 0.001, delta = 0.05, log_covering = 2.0 } }",
                "{ rule = \"popbo-theorem31\", epsilon = 0.001, delta = 0.05, log_covering = 2.0 }",
            ),
        ];
        for (text, new) in cases {
            let err = parse(text).unwrap_err();
            assert!(err.contains("no longer accepted") && err.contains(new), "{text}: {err}");
        }
        let err = parse("beta = { rule = \"sqrt_t\", scale = 1.0 }").unwrap_err();
        assert!(err.contains("write \"sqrt-t\""), "{err}");
    }

    #[test]
    fn wrong_fields_are_named() {
        let err = parse("beta = { rule = \"constant\", delta = 0.1, value = 1.0 }").unwrap_err();
        assert!(err.contains("takes no `delta`"), "{err}");
        let err = parse("beta = { rule = \"constant\" }").unwrap_err();
        assert!(err.contains("needs `value`"), "{err}");
        let err = parse("beta = { rule = \"magic\" }").unwrap_err();
        assert!(err.contains("unknown width-schedule rule \"magic\""), "{err}");
        let err = parse("beta = { rule = \"constant\", value = 1.0, extra = 2 }").unwrap_err();
        assert!(err.contains("extra"), "{err}");
    }

    #[test]
    fn check_names_fields_relative_to_the_schedule() {
        const ALL: [&str; 7] = [
            "constant",
            "sqrt-t",
            "sqrt-t-plus-one",
            "pfts-experiment",
            "pfts-square-root",
            "theory",
            "popbo-theorem31",
        ];
        let e = |s: WidthSchedule| s.check("a test", &ALL).at("beta").unwrap_err().to_string();
        assert!(e(WidthSchedule::Constant { value: -1.0 }).contains("`beta.value`"));
        assert!(e(WidthSchedule::SqrtT { scale: 0.0 }).contains("`beta.scale`"));
        assert!(e(WidthSchedule::PftsExperiment { delta: 1.0 }).contains("`beta.delta`"));
        assert!(e(WidthSchedule::Theory { norm_bound: f64::NAN, delta: 0.1 }).contains("`beta.norm_bound`"));
        let t31 = WidthSchedule::PopboTheorem31 { epsilon: 0.0, delta: 0.1, log_covering: -1.0 };
        assert!(e(t31).contains("`beta.log_covering`"));
        let zero = WidthSchedule::Constant { value: 0.0 };
        assert_eq!(zero.check("a test", &ALL), Ok(zero));
        let not_here = WidthSchedule::SqrtT { scale: 1.0 }.check("MR-LPF", &["constant", "theory"]);
        let msg = not_here.at("beta").unwrap_err().to_string();
        assert!(msg.contains("`beta.rule`") && msg.contains("\"theory\""), "{msg}");
    }
}
