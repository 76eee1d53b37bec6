//! The rule that compares two algorithms, and the claims of a spec's `[reproduces]` section it
//! judges.

use super::panel::{AlgorithmRow, PanelResult};
use super::report::{pm, signed};
use super::source::{ClaimRule, Reproduces};
use crate::Metric;
use crate::summary::MeanSe;
use std::fmt::Write as _;

/// A difference counts when it exceeds this many standard errors of the difference.
pub const SE_MULTIPLE: f64 = 2.0;

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

fn lower_claim(r: &PanelResult, m: Metric, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (r.metric(a, m)?, r.metric(b, m)?);
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

fn parity_claim(r: &PanelResult, m: Metric, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (r.metric(a, m)?, r.metric(b, m)?);
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

fn lowest_claim(r: &PanelResult, m: Metric, a: &str) -> Option<Claim> {
    let ma = r.metric(a, m)?;
    let others: Vec<&AlgorithmRow> = r.algorithms.iter().filter(|x| x.label != a).collect();
    let mut evidence = vec![format!("{a} {}", pm(ma))];
    let mut failures = Vec::new();
    for o in &others {
        let mo = r.metric(&o.label, m)?;
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

/// The claims of `reproduces` judged on a panel, in the spec's order, on the paper's metric
/// ([`super::Paper::metric`]). A claim naming an algorithm the panel has no row for is skipped.
pub fn claims_of(r: &PanelResult, reproduces: Option<&Reproduces>) -> Vec<Claim> {
    let Some(rep) = reproduces else { return Vec::new() };
    let m = rep.paper().metric();
    rep.rules()
        .iter()
        .filter_map(|rule| match rule {
            ClaimRule::Lower(a, b) => lower_claim(r, m, a, b),
            ClaimRule::Parity(a, b) => parity_claim(r, m, a, b),
            ClaimRule::Lowest(a) => lowest_claim(r, m, a),
        })
        .collect()
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
