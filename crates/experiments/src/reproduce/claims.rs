//! The papers a panel belongs to, the rule that compares two algorithms, and the claims it judges.

use super::panel::{AlgorithmRow, PanelResult};
use super::report::{pm, signed};
use crate::Metric;
use crate::summary::MeanSe;
use std::fmt::Write as _;

/// A difference counts when it exceeds this many standard errors of the difference.
pub const SE_MULTIPLE: f64 = 2.0;

/// The paper a panel belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    /// Kayal et al. 2025, Figure 1: per-step regret r_T at the horizon.
    MrLpf,
    /// Lazzaro et al. 2026, Figures 2 and 4: cumulative regret R(T) at the horizon.
    PfTs,
    /// A spec that is not one of the papers' panels: both metrics, no claim.
    Other,
}

impl Paper {
    /// The paper of a spec name (by its prefix).
    pub fn of(name: &str) -> Self {
        if name.starts_with("mrlpf-") {
            Paper::MrLpf
        } else if name.starts_with("pfts-") {
            Paper::PfTs
        } else {
            Paper::Other
        }
    }

    /// The metric the paper's claim is about.
    pub fn metric(self) -> Metric {
        match self {
            Paper::MrLpf => Metric::Instantaneous,
            Paper::PfTs | Paper::Other => Metric::Cumulative,
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

/// The outcome of comparing a against b.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// a < b by more than [`SE_MULTIPLE`] standard errors of the difference.
    Lower,
    /// a > b by more than [`SE_MULTIPLE`] standard errors of the difference.
    Higher,
    /// |a − b| ≤ [`SE_MULTIPLE`] s.e. of the difference.
    Indistinguishable,
}

/// The difference d = a − b of two means from independent runs, its standard error
/// s.e.(d) = √(s.e.(a)² + s.e.(b)²), and the order: `Lower` if d < −2 s.e.(d), `Higher` if
/// d > 2 s.e.(d), else `Indistinguishable`. (Different algorithms' runs use different random
/// streams, so their means are independent.)
pub fn compare(a: MeanSe, b: MeanSe) -> (f64, f64, Order) {
    let d = a.mean - b.mean;
    let se = (a.se * a.se + b.se * b.se).sqrt();
    let order = if d < -SE_MULTIPLE * se {
        Order::Lower
    } else if d > SE_MULTIPLE * se {
        Order::Higher
    } else {
        Order::Indistinguishable
    };
    (d, se, order)
}

/// One claim checked on one panel.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The panel.
    pub panel: String,
    /// The claim, e.g. "MR-LPF < MaxMinLCB".
    pub statement: String,
    /// The values compared and the differences with their s.e.
    pub evidence: String,
    /// Whether it holds under the rule of [`compare`].
    pub holds: bool,
    /// The verdict in words.
    pub verdict: String,
}

fn lower_claim(r: &PanelResult, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (r.metric(a)?, r.metric(b)?);
    let (d, se, order) = compare(ma, mb);
    let (holds, verdict) = match order {
        Order::Lower => (true, "reproduced".to_string()),
        Order::Indistinguishable => (false, format!("not reproduced: no difference beyond {SE_MULTIPLE} s.e.")),
        Order::Higher => (false, format!("not reproduced: {a} is higher")),
    };
    Some(Claim {
        panel: r.name.clone(),
        statement: format!("{a} < {b}"),
        evidence: format!("{a} {}, {b} {}; difference {}", pm(ma), pm(mb), signed(d, se)),
        holds,
        verdict,
    })
}

fn parity_claim(r: &PanelResult, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (r.metric(a)?, r.metric(b)?);
    let (d, se, order) = compare(ma, mb);
    let (holds, verdict) = match order {
        Order::Indistinguishable => (true, format!("reproduced: within {SE_MULTIPLE} s.e.")),
        Order::Lower => (false, format!("not reproduced: {a} is significantly lower (better than claimed)")),
        Order::Higher => (false, format!("not reproduced: {a} is significantly higher")),
    };
    Some(Claim {
        panel: r.name.clone(),
        statement: format!("{a} ≈ {b}"),
        evidence: format!("{a} {}, {b} {}; difference {}", pm(ma), pm(mb), signed(d, se)),
        holds,
        verdict,
    })
}

fn lowest_claim(r: &PanelResult, a: &str) -> Option<Claim> {
    let ma = r.metric(a)?;
    let others: Vec<&AlgorithmRow> = r.algorithms.iter().filter(|x| x.label != a).collect();
    let mut evidence = vec![format!("{a} {}", pm(ma))];
    let mut failures = Vec::new();
    for o in &others {
        let mo = r.metric(&o.label)?;
        let (d, se, order) = compare(ma, mo);
        evidence.push(format!("vs {} {}: {}", o.label, pm(mo), signed(d, se)));
        if order != Order::Lower {
            failures.push(o.label.clone());
        }
    }
    let holds = failures.is_empty();
    Some(Claim {
        panel: r.name.clone(),
        statement: format!("{a} lowest"),
        evidence: evidence.join("; "),
        holds,
        verdict: if holds {
            "reproduced".into()
        } else {
            format!("not reproduced: not significantly below {}", failures.join(", "))
        },
    })
}

pub(crate) const PF_TS: &str = "PF-TS";
pub(crate) const MR_LPF: &str = "MR-LPF";
pub(crate) const MAXMIN: &str = "MaxMinLCB";
pub(crate) const GP_TS: &str = "GP-TS (scalar)";
pub(crate) const POP_BO: &str = "POP-BO";

/// The paper's claims that apply to a panel.
pub fn claims_of(r: &PanelResult) -> Vec<Claim> {
    match Paper::of(&r.name) {
        Paper::MrLpf => lower_claim(r, MR_LPF, MAXMIN).into_iter().collect(),
        Paper::PfTs => {
            // "significantly smaller than that of MR-LPF and POP-BO" is said of Fig. 2 only (notes 003 §5.9);
            // on Fig. 4 the paper says "competitive or improved relative to the others".
            let pop_bo = if r.name.starts_with("pfts-fig2") { lower_claim(r, PF_TS, POP_BO) } else { None };
            [lower_claim(r, PF_TS, MR_LPF), pop_bo, parity_claim(r, PF_TS, MAXMIN), lowest_claim(r, GP_TS)]
                .into_iter()
                .flatten()
                .collect()
        }
        Paper::Other => Vec::new(),
    }
}

pub(crate) fn claims_table(claims: &[Claim], with_panel: bool) -> String {
    let mut s = String::new();
    if with_panel {
        s.push_str("| panel | claim | values (mean ± s.e.) and difference ± s.e. | verdict |\n|---|---|---|---|\n");
    } else {
        s.push_str("| claim | values (mean ± s.e.) and difference ± s.e. | verdict |\n|---|---|---|\n");
    }
    for c in claims {
        let verdict = if c.holds { format!("**{}**", c.verdict) } else { c.verdict.clone() };
        if with_panel {
            let _ = writeln!(s, "| [{p}]({p}.md) | {} | {} | {verdict} |", c.statement, c.evidence, p = c.panel);
        } else {
            let _ = writeln!(s, "| {} | {} | {verdict} |", c.statement, c.evidence);
        }
    }
    s
}
