//! What a spec reproduces: its `[reproduces]` section (the paper, the figure or table, and the
//! paper's claims the reproduction judges).
//!
//! ```toml
//! [reproduces]
//! paper = "pfts"                        # mrlpf | pfts | popbo | cobol | compgpucb (see [`Paper`])
//! figure = "Figure 2(a, b)"             # the figure or table, as the paper numbers it
//! claims = ["PF-TS < MR-LPF",           # "A < B": A's metric significantly below B's
//!           "PF-TS ≈ MaxMinLCB",        # "A ≈ B": no significant difference
//!           "GP-TS (scalar) lowest"]    # "A lowest": A significantly below every other algorithm
//! ```
//!
//! Also: "A ≤ B" (A not significantly above B) and "A best" (no other algorithm significantly
//! below A: best or tied with the best); and, for COBOL presets only (`paper = "cobol"`, judged
//! by [`super::cobol`]), "A hands over" (A's expert queries plateau) and "A within F× B" (no harm:
//! A's simple regret stays within F times B's and reaches B's level); for COMP-GP-UCB presets on
//! the SVM task only (`paper = "compgpucb"`, judged by [`super::compgpucb`]), "A error > t" (A's
//! error rate 1 − max f over the queried points, at the total budget, significantly above t).
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
    /// Xu, Adachi, Jones & Osborne 2024 (`cobol`): simple regret against f-evaluations and the
    /// expert queries ([`super::cobol`]).
    Cobol,
    /// Xu, Joshi, Singh & Dubrawski 2020 (`compgpucb`): the simple regret of the recommendation at
    /// the end of each run, i.e. once its `[budget]` Λ is spent.
    CompGpUcb,
    /// A spec without a `[reproduces]` section: both metrics, no claim.
    Other,
}

impl Paper {
    /// The papers a `[reproduces]` section may name.
    pub const ALL: [Paper; 5] = [Paper::MrLpf, Paper::PfTs, Paper::PopBo, Paper::Cobol, Paper::CompGpUcb];

    /// Its key in `reproduces.paper`.
    pub fn key(self) -> &'static str {
        match self {
            Paper::MrLpf => "mrlpf",
            Paper::PfTs => "pfts",
            Paper::PopBo => "popbo",
            Paper::Cobol => "cobol",
            Paper::CompGpUcb => "compgpucb",
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
            Paper::Cobol => "COBOL paper (Xu, Adachi, Jones & Osborne 2024)",
            Paper::CompGpUcb => "COMP-GP-UCB paper (Xu, Joshi, Singh & Dubrawski 2020)",
            Paper::Other => "not a paper's experiment",
        }
    }

    /// The metric the paper's claims are about (a panel's; POP-BO's Table 2 has its own; COBOL's
    /// is the simple regret against f-evaluations, [`super::cobol`]).
    pub fn metric(self) -> Metric {
        match self {
            Paper::MrLpf => Metric::Instantaneous,
            Paper::Cobol | Paper::CompGpUcb => Metric::Simple,
            Paper::PfTs | Paper::PopBo | Paper::Other => Metric::Cumulative,
        }
    }

    /// The name of [`Paper::metric`] in the reports' headings.
    pub fn metric_name(self) -> &'static str {
        if self == Paper::Cobol {
            return "simple regret SR after k f-evaluations";
        }
        if self == Paper::CompGpUcb {
            return "S(Λ) at the total budget: the best f* − f(x) over the queried points, in f units (eq. (1))";
        }
        match self.metric() {
            Metric::Instantaneous => "per-step regret r_T at the horizon",
            Metric::Cumulative => "cumulative regret R(T) at the horizon",
            Metric::Simple => "simple regret at the horizon",
            // No paper's metric.
            Metric::InstantaneousGap => "utility gap g_T at the horizon",
            Metric::CumulativeGap => "cumulative utility gap G(T) at the horizon",
            Metric::SimpleGap => "utility gap u(x*) − u(x̂_T) at the horizon",
        }
    }
}

/// A spec's `[reproduces]` section (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reproduces {
    /// The paper's key (`mrlpf`, `pfts`, `popbo`, `cobol`, `compgpucb`: [`Paper::ALL`]);
    /// [`Reproduces::validate`] checks it.
    pub paper: String,
    /// The figure or table, e.g. "Figure 1(a)" or "Table 2".
    pub figure: String,
    /// The paper's claims on this experiment, judged by the reproduction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<String>,
}

/// A claim of `reproduces.claims`, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum ClaimRule {
    /// "A < B": A's metric is significantly below B's.
    Lower(String, String),
    /// "A ≈ B": no significant difference.
    Parity(String, String),
    /// "A lowest": A is significantly below every other algorithm.
    Lowest(String),
    /// "A ≤ B": A is not significantly above B.
    AtMost(String, String),
    /// "A best": no other algorithm is significantly below A (best or tied with the best).
    Best(String),
    /// "A hands over" (COBOL only): A's expert queries plateau ([`super::cobol`]).
    HandsOver(String),
    /// "A within F× B" (COBOL only, no harm): A's simple regret stays within F times B's and
    /// reaches B's level ([`super::cobol`]).
    Within(String, f64, String),
    /// "A error > t" (COMP-GP-UCB's SVM presets only): A's mean error rate 1 − max f over the
    /// queried points at the total budget is above t by more than [`super::SE_MULTIPLE`] s.e.
    /// ([`super::compgpucb`]).
    ErrorAbove(String, f64),
}

impl ClaimRule {
    /// Parses "A < B", "A ≈ B", "A ≤ B", "A lowest", "A best", "A hands over", "A within F× B"
    /// (names trimmed; F a finite number ≥ 1) or "A error > t" (t finite); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let name = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        if let Some(a) = text.strip_suffix(" lowest") {
            return Some(ClaimRule::Lowest(name(a)?));
        }
        if let Some(a) = text.strip_suffix(" best") {
            return Some(ClaimRule::Best(name(a)?));
        }
        if let Some(a) = text.strip_suffix(" hands over") {
            return Some(ClaimRule::HandsOver(name(a)?));
        }
        if let Some((a, t)) = text.split_once(" error > ") {
            let t: f64 = t.trim().parse().ok().filter(|t: &f64| t.is_finite())?;
            return Some(ClaimRule::ErrorAbove(name(a)?, t));
        }
        if let Some((a, rest)) = text.split_once(" within ") {
            let (f, b) = rest.split_once("× ")?;
            let f: f64 = f.trim().parse().ok().filter(|f: &f64| f.is_finite() && *f >= 1.0)?;
            return Some(ClaimRule::Within(name(a)?, f, name(b)?));
        }
        for (sep, kind) in [(" < ", 0), (" ≈ ", 1), (" ≤ ", 2)] {
            if let Some((a, b)) = text.split_once(sep) {
                let (a, b) = (name(a)?, name(b)?);
                return Some(match kind {
                    0 => ClaimRule::Lower(a, b),
                    1 => ClaimRule::Parity(a, b),
                    _ => ClaimRule::AtMost(a, b),
                });
            }
        }
        None
    }

    /// The algorithm labels the claim names.
    pub fn labels(&self) -> Vec<&str> {
        match self {
            ClaimRule::Lower(a, b) | ClaimRule::Parity(a, b) | ClaimRule::AtMost(a, b) => vec![a, b],
            ClaimRule::Within(a, _, b) => vec![a, b],
            ClaimRule::Lowest(a) | ClaimRule::Best(a) | ClaimRule::HandsOver(a) | ClaimRule::ErrorAbove(a, _) => {
                vec![a]
            }
        }
    }

    /// Whether only a COBOL preset can judge it (it needs the expert queries or the regret
    /// against f-evaluations of [`super::cobol`]).
    pub fn cobol_only(&self) -> bool {
        matches!(self, ClaimRule::HandsOver(_) | ClaimRule::Within(..))
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
                ExperimentError::spec(
                    &field,
                    format!(
                        "cannot read `{c}`: write \"A < B\", \"A ≈ B\", \"A ≤ B\", \"A lowest\", \"A best\", \
                         \"A hands over\", \"A within F× B\" (F ≥ 1) or \"A error > t\""
                    ),
                )
            })?;
            if matches!(rule, ClaimRule::ErrorAbove(..)) && self.paper() != Paper::CompGpUcb {
                return Err(ExperimentError::spec(
                    field,
                    format!("`{c}` is judged only for `paper = \"compgpucb\"` (the error rate of the SVM task)"),
                ));
            }
            if rule.cobol_only() && self.paper() != Paper::Cobol {
                return Err(ExperimentError::spec(
                    field,
                    format!("`{c}` is judged only for `paper = \"cobol\"` (it needs the expert queries)"),
                ));
            }
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
        assert_eq!(ClaimRule::parse("A ≤ B"), Some(ClaimRule::AtMost("A".into(), "B".into())));
        assert_eq!(ClaimRule::parse("COBOL best"), Some(ClaimRule::Best("COBOL".into())));
        assert_eq!(ClaimRule::parse("COBOL hands over"), Some(ClaimRule::HandsOver("COBOL".into())));
        assert_eq!(
            ClaimRule::parse("COBOL η = 3 within 2× vanilla LCB"),
            Some(ClaimRule::Within("COBOL η = 3".into(), 2.0, "vanilla LCB".into()))
        );
        for bad in ["A > B", "A <B", " < B", "lowest", "A ≈ ", "A within 0.5× B", "A within x× B", "A within 2 B"] {
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
        // The COBOL-only claims need a COBOL preset.
        assert!(rep("cobol", &["A hands over", "A within 3× B", "A best"]).validate(Some(&labels)).is_ok());
        let e = rep("pfts", &["A < B", "A hands over"]).validate(Some(&labels)).unwrap_err();
        assert_eq!(e.field(), Some("reproduces.claims[1]"));
        let mut r = rep("popbo", &[]);
        r.figure = " ".into();
        assert_eq!(r.validate(None).unwrap_err().field(), Some("reproduces.figure"));
    }
}
