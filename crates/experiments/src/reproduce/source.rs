//! What a spec reproduces: its `[reproduces]` section (the paper, the figure or table, and the
//! paper's claims the reproduction judges).
//!
//! ```toml
//! [reproduces]
//! paper = "pfts"                        # mrlpf | pfts | popbo (see [`Paper`])
//! figure = "Figure 2(a, b)"             # the figure or table, as the paper numbers it
//! claims = ["PF-TS < MR-LPF",           # "A < B": A's metric significantly below B's
//!           "PF-TS ≈ MaxMinLCB",        # "A ≈ B": no significant difference
//!           "GP-TS (scalar) lowest"]    # "A lowest": A significantly below every other algorithm
//! ```
//!
//! The names in a claim are the spec's algorithm labels; the metric is the paper's
//! ([`Paper::metric`]); the rule is [`super::compare`].

use crate::Metric;
use crate::error::{ExperimentError, Result};
use serde::{Deserialize, Serialize};

/// The paper a spec reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    /// Kayal et al. 2025 (`mrlpf`): per-step regret r_T at the horizon.
    MrLpf,
    /// Lazzaro et al. 2026 (`pfts`): cumulative regret R(T) at the horizon.
    PfTs,
    /// Xu et al. 2024 (`popbo`): the suboptimality of the reported solution (Table 2).
    PopBo,
    /// A spec without a `[reproduces]` section: both metrics, no claim.
    Other,
}

impl Paper {
    /// The papers a `[reproduces]` section may name.
    pub const ALL: [Paper; 3] = [Paper::MrLpf, Paper::PfTs, Paper::PopBo];

    /// Its key in `reproduces.paper`.
    pub fn key(self) -> &'static str {
        match self {
            Paper::MrLpf => "mrlpf",
            Paper::PfTs => "pfts",
            Paper::PopBo => "popbo",
            Paper::Other => "other",
        }
    }

    /// The paper of a `reproduces.paper` key.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.key() == key)
    }

    /// The paper's method and authors, e.g. "MR-LPF paper (Kayal et al. 2025)".
    pub fn citation(self) -> &'static str {
        match self {
            Paper::MrLpf => "MR-LPF paper (Kayal et al. 2025)",
            Paper::PfTs => "PF-TS paper (Lazzaro et al. 2026)",
            Paper::PopBo => "POP-BO paper (Xu et al. 2024)",
            Paper::Other => "not a paper's experiment",
        }
    }

    /// The metric the paper's claims are about (a panel's; POP-BO's Table 2 has its own).
    pub fn metric(self) -> Metric {
        match self {
            Paper::MrLpf => Metric::Instantaneous,
            Paper::PfTs | Paper::PopBo | Paper::Other => Metric::Cumulative,
        }
    }

    pub(crate) fn metric_name(self) -> &'static str {
        match self.metric() {
            Metric::Instantaneous => "per-step regret r_T at the horizon",
            Metric::Cumulative => "cumulative regret R(T) at the horizon",
            Metric::Simple => "simple regret at the horizon",
        }
    }
}

/// A spec's `[reproduces]` section (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reproduces {
    /// The paper's key (`mrlpf`, `pfts`, `popbo`); [`Reproduces::validate`] checks it.
    pub paper: String,
    /// The figure or table, e.g. "Figure 1(a)" or "Table 2".
    pub figure: String,
    /// The paper's claims on this experiment, judged by the reproduction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<String>,
}

/// A claim of `reproduces.claims`, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimRule {
    /// "A < B": A's metric is significantly below B's.
    Lower(String, String),
    /// "A ≈ B": no significant difference.
    Parity(String, String),
    /// "A lowest": A is significantly below every other algorithm.
    Lowest(String),
}

impl ClaimRule {
    /// Parses "A < B", "A ≈ B" or "A lowest" (names trimmed); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let name = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        if let Some(a) = text.strip_suffix(" lowest") {
            return Some(ClaimRule::Lowest(name(a)?));
        }
        for (sep, lower) in [(" < ", true), (" ≈ ", false)] {
            if let Some((a, b)) = text.split_once(sep) {
                let (a, b) = (name(a)?, name(b)?);
                return Some(if lower { ClaimRule::Lower(a, b) } else { ClaimRule::Parity(a, b) });
            }
        }
        None
    }

    /// The algorithm labels the claim names.
    pub fn labels(&self) -> Vec<&str> {
        match self {
            ClaimRule::Lower(a, b) | ClaimRule::Parity(a, b) => vec![a, b],
            ClaimRule::Lowest(a) => vec![a],
        }
    }
}

impl Reproduces {
    /// The paper (after [`Reproduces::validate`]; [`Paper::Other`] for an unknown key).
    pub fn paper(&self) -> Paper {
        Paper::from_key(&self.paper).unwrap_or(Paper::Other)
    }

    /// The claims, parsed (those that do not parse are skipped; [`Reproduces::validate`] refuses them).
    pub fn rules(&self) -> Vec<ClaimRule> {
        self.claims.iter().filter_map(|c| ClaimRule::parse(c)).collect()
    }

    /// Checks the paper key, that the figure is given, and that each claim parses and names only
    /// `labels` (the spec's algorithm labels; `None`: not checked). Errors name the field
    /// (`reproduces.paper`, `reproduces.figure`, `reproduces.claims[i]`).
    pub fn validate(&self, labels: Option<&[String]>) -> Result<()> {
        if Paper::from_key(&self.paper).is_none() {
            let known: Vec<String> = Paper::ALL.iter().map(|p| format!("`{}` ({})", p.key(), p.citation())).collect();
            return Err(ExperimentError::spec(
                "reproduces.paper",
                format!("unknown paper `{}`; known papers: {}", self.paper, known.join(", ")),
            ));
        }
        if self.figure.trim().is_empty() || self.figure.contains(['\n', '\t']) {
            return Err(ExperimentError::spec(
                "reproduces.figure",
                "give the figure or table on one line, e.g. \"Figure 2(a, b)\"",
            ));
        }
        for (i, c) in self.claims.iter().enumerate() {
            let field = format!("reproduces.claims[{i}]");
            let rule = ClaimRule::parse(c).ok_or_else(|| {
                ExperimentError::spec(&field, format!("cannot read `{c}`: write \"A < B\", \"A ≈ B\" or \"A lowest\""))
            })?;
            if let Some(labels) = labels
                && let Some(l) = rule.labels().into_iter().find(|l| !labels.iter().any(|x| x == l))
            {
                return Err(ExperimentError::spec(
                    field,
                    format!("`{l}` is not an algorithm label of this spec (labels: {})", labels.join(", ")),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(paper: &str, claims: &[&str]) -> Reproduces {
        Reproduces {
            paper: paper.into(),
            figure: "Figure 1".into(),
            claims: claims.iter().map(|c| c.to_string()).collect(),
        }
    }

    #[test]
    fn claims_parse_into_rules() {
        assert_eq!(ClaimRule::parse("PF-TS < MR-LPF"), Some(ClaimRule::Lower("PF-TS".into(), "MR-LPF".into())));
        assert_eq!(ClaimRule::parse("A ≈ B"), Some(ClaimRule::Parity("A".into(), "B".into())));
        assert_eq!(ClaimRule::parse("GP-TS (scalar) lowest"), Some(ClaimRule::Lowest("GP-TS (scalar)".into())));
        for bad in ["A > B", "A <B", " < B", "lowest", "A ≈ "] {
            assert_eq!(ClaimRule::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn validation_names_the_field() {
        let labels = ["A".to_string(), "B".to_string()];
        assert!(rep("pfts", &["A < B", "B lowest"]).validate(Some(&labels)).is_ok());
        let e = rep("nature", &[]).validate(None).unwrap_err();
        assert_eq!(e.field(), Some("reproduces.paper"));
        assert!(e.to_string().contains("`nature`") && e.to_string().contains("`mrlpf`"), "{e}");
        let e = rep("mrlpf", &["A < B", "A > B"]).validate(Some(&labels)).unwrap_err();
        assert_eq!(e.field(), Some("reproduces.claims[1]"));
        let e = rep("mrlpf", &["A < C"]).validate(Some(&labels)).unwrap_err();
        assert_eq!(e.field(), Some("reproduces.claims[0]"));
        assert!(e.to_string().contains("`C`"), "{e}");
        // Without labels only the syntax is checked.
        assert!(rep("mrlpf", &["A < C"]).validate(None).is_ok());
        let mut r = rep("popbo", &[]);
        r.figure = " ".into();
        assert_eq!(r.validate(None).unwrap_err().field(), Some("reproduces.figure"));
    }
}
