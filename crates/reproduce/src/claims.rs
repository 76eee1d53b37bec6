//! The rule that compares two algorithms, and the claims of a spec's `[reproduces]` section it
//! judges.

use crate::panel::PanelResult;
use crate::report::{pm, signed};
use crate::source::{ClaimRule, Reproduces};
use bohf_experiments::summary::MeanSe;
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
/// streams, so their means are independent.) A difference within rounding,
/// |d| ≤ 10⁻¹² (1 + |a| + |b|), is `Indistinguishable` even when both standard errors are 0 (e.g.
/// two algorithms that always recommend one of two mirror-image maximisers whose utilities differ
/// in the last bit).
pub fn compare(a: MeanSe, b: MeanSe) -> (f64, f64, Order) {
    let d = a.mean - b.mean;
    let se = (a.se * a.se + b.se * b.se).sqrt();
    let order = if d.abs() <= 1e-12 * (1.0 + a.mean.abs() + b.mean.abs()) {
        Order::Indistinguishable
    } else if d < -SE_MULTIPLE * se {
        Order::Lower
    } else if d > SE_MULTIPLE * se {
        Order::Higher
    } else {
        Order::Indistinguishable
    };
    (d, se, order)
}

/// The direction of a difference d = a − b in words, for a verdict that must say which way a
/// claim failed: "lower in mean than" (d < 0), "higher in mean than" (d > 0), "level with" (d = 0).
pub(crate) fn in_mean(d: f64) -> &'static str {
    if d < 0.0 {
        "lower in mean than"
    } else if d > 0.0 {
        "higher in mean than"
    } else {
        "level with"
    }
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

/// A value of each algorithm (mean ± s.e. over its runs), by label.
pub(crate) type Values<'a> = &'a dyn Fn(&str) -> Option<MeanSe>;

fn lower_claim(panel: &str, v: Values, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (v(a)?, v(b)?);
    let (d, se, order) = compare(ma, mb);
    let (holds, verdict) = match order {
        Order::Lower => (true, "reproduced".to_string()),
        Order::Indistinguishable => {
            (false, format!("not reproduced: {a} is {} {b}, within {SE_MULTIPLE} s.e.", in_mean(d)))
        }
        Order::Higher => (false, format!("not reproduced: {a} is significantly higher")),
    };
    Some(Claim {
        panel: panel.to_string(),
        statement: format!("{a} < {b}"),
        evidence: format!("{a} {}, {b} {}; difference {}", pm(ma), pm(mb), signed(d, se)),
        holds,
        verdict,
    })
}

fn at_most_claim(panel: &str, v: Values, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (v(a)?, v(b)?);
    let (d, se, order) = compare(ma, mb);
    let (holds, verdict) = match order {
        Order::Lower => (true, "reproduced (significantly lower)".to_string()),
        Order::Indistinguishable => (true, format!("reproduced: within {SE_MULTIPLE} s.e.")),
        Order::Higher => (false, format!("not reproduced: {a} is significantly higher")),
    };
    Some(Claim {
        panel: panel.to_string(),
        statement: format!("{a} ≤ {b}"),
        evidence: format!("{a} {}, {b} {}; difference {}", pm(ma), pm(mb), signed(d, se)),
        holds,
        verdict,
    })
}

fn parity_claim(panel: &str, v: Values, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (v(a)?, v(b)?);
    let (d, se, order) = compare(ma, mb);
    let (holds, verdict) = match order {
        Order::Indistinguishable => (true, format!("reproduced: within {SE_MULTIPLE} s.e.")),
        Order::Lower => (false, format!("not reproduced: {a} is significantly lower (better than claimed)")),
        Order::Higher => (false, format!("not reproduced: {a} is significantly higher")),
    };
    Some(Claim {
        panel: panel.to_string(),
        statement: format!("{a} ≈ {b}"),
        evidence: format!("{a} {}, {b} {}; difference {}", pm(ma), pm(mb), signed(d, se)),
        holds,
        verdict,
    })
}

/// "A `what` > t": A's value m (mean ± s.e. over its runs) lies above the threshold t by more
/// than [`SE_MULTIPLE`] s.e.: m.mean − t > 2·m.se (the rule of [`compare`] against a constant, whose
/// s.e. is 0). `statement` is the claim's text.
pub(crate) fn above_claim(panel: &str, statement: &str, a: &str, what: &str, m: MeanSe, t: f64) -> Claim {
    let (d, se, order) = compare(m, MeanSe { mean: t, se: 0.0 });
    let (holds, verdict) = match order {
        Order::Higher => (true, "reproduced".to_string()),
        Order::Indistinguishable => (
            false,
            format!(
                "not reproduced: {a}'s {what} is {} {t}, within {SE_MULTIPLE} s.e.",
                if d > 0.0 {
                    "above"
                } else if d < 0.0 {
                    "below"
                } else {
                    "at"
                }
            ),
        ),
        Order::Lower => (false, format!("not reproduced: {a}'s {what} is below {t}")),
    };
    Claim {
        panel: panel.to_string(),
        statement: statement.to_string(),
        evidence: format!("{a} {what} {}; minus {t}: {}", pm(m), signed(d, se)),
        holds,
        verdict,
    }
}

/// "A lowest" (`strict`: significantly below every other) or "A best" (no other significantly
/// below A).
fn lowest_claim(panel: &str, v: Values, labels: &[&str], a: &str, strict: bool) -> Option<Claim> {
    let ma = v(a)?;
    let mut evidence = vec![format!("{a} {}", pm(ma))];
    // Where the claim fails: significantly above (either form), or not significantly below (strict).
    let (mut above, mut level) = (Vec::new(), Vec::new());
    for o in labels.iter().filter(|l| **l != a) {
        let mo = v(o)?;
        let (d, se, order) = compare(ma, mo);
        evidence.push(format!("vs {o} {}: {}", pm(mo), signed(d, se)));
        if order == Order::Higher {
            above.push(o.to_string());
        } else if strict && order == Order::Indistinguishable {
            level.push(format!("{o} ({} it, within {SE_MULTIPLE} s.e.)", in_mean(d)));
        }
    }
    let holds = above.is_empty() && level.is_empty();
    let verdict = if holds && strict {
        "reproduced".to_string()
    } else if holds {
        format!("reproduced: no other algorithm lower by more than {SE_MULTIPLE} s.e.")
    } else {
        let mut why = Vec::new();
        if !above.is_empty() {
            why.push(format!("significantly above {}", above.join(", ")));
        }
        if !level.is_empty() {
            why.push(format!("not significantly below {}", level.join(", ")));
        }
        format!("not reproduced: {}", why.join("; "))
    };
    Some(Claim {
        panel: panel.to_string(),
        statement: format!("{a} {}", if strict { "lowest" } else { "best" }),
        evidence: evidence.join("; "),
        holds,
        verdict,
    })
}

/// A claim judged by the rule of [`compare`] on one value per algorithm (`labels`: the panel's,
/// in order). `None` for a claim naming an algorithm without a value, and for the COBOL-only
/// claims ([`ClaimRule::cobol_only`], judged by [`crate::cobol`]).
pub(crate) fn judge(panel: &str, labels: &[&str], v: Values, rule: &ClaimRule) -> Option<Claim> {
    match rule {
        ClaimRule::Lower(a, b) => lower_claim(panel, v, a, b),
        ClaimRule::Parity(a, b) => parity_claim(panel, v, a, b),
        ClaimRule::AtMost(a, b) => at_most_claim(panel, v, a, b),
        ClaimRule::Lowest(a) => lowest_claim(panel, v, labels, a, true),
        ClaimRule::Best(a) => lowest_claim(panel, v, labels, a, false),
        // Judged by `cobol` (expert queries) and `compgpucb` (the error rate, [`above_claim`]).
        ClaimRule::HandsOver(_) | ClaimRule::Within(..) | ClaimRule::ErrorAbove(..) => None,
    }
}

/// The claims of `reproduces` judged on a panel, in the spec's order, on the paper's metric
/// ([`crate::Paper::metric`]). A claim naming an algorithm the panel has no row for is skipped, as
/// are the COBOL-only claims.
pub fn claims_of(r: &PanelResult, reproduces: Option<&Reproduces>) -> Vec<Claim> {
    let Some(rep) = reproduces else { return Vec::new() };
    let m = rep.paper().metric();
    let labels: Vec<&str> = r.algorithms.iter().map(|a| a.label.as_str()).collect();
    let v = |l: &str| r.metric(l, m);
    rep.rules().iter().filter_map(|rule| judge(&r.name, &labels, &v, rule)).collect()
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

/// " Where not: panel: why; …" for the claims of `these` that fail (their verdicts without the
/// "not reproduced: " prefix), or nothing when every one holds.
pub(crate) fn failed_directions(these: &[&Claim]) -> String {
    let failed: Vec<String> = these
        .iter()
        .filter(|c| !c.holds)
        .map(|c| format!("{}: {}", c.panel, c.verdict.strip_prefix("not reproduced: ").unwrap_or(&c.verdict)))
        .collect();
    if failed.is_empty() { String::new() } else { format!(" Where not: {}", failed.join("; ")) }
}

/// One line per statement: its verdict over the `claims` that make it ("reproduced" when it holds
/// on every panel, "partly reproduced", "not reproduced") and the panels it holds on. `complete`:
/// every panel of the paper has been run; otherwise a claim holding on all of them reads
/// "reproduced on the panels run". Where a claim fails, the line says which way, panel by panel
/// (each failing claim's verdict, e.g. "A is higher in mean than B, within 2 s.e.").
pub(crate) fn verdict_lines(s: &mut String, claims: &[Claim], statements: &[&str], complete: bool) {
    for statement in statements {
        let these: Vec<&Claim> = claims.iter().filter(|c| c.statement == *statement).collect();
        let held: Vec<&str> = these.iter().filter(|c| c.holds).map(|c| c.panel.as_str()).collect();
        let _ = writeln!(
            s,
            "- **{statement}: {}** — holds on {} of {} panels{}.{}",
            if held.len() == these.len() && complete {
                "reproduced"
            } else if held.len() == these.len() {
                "reproduced on the panels run"
            } else if held.is_empty() {
                "not reproduced"
            } else {
                "partly reproduced"
            },
            held.len(),
            these.len(),
            if held.is_empty() { String::new() } else { format!(" ({})", held.join(", ")) },
            failed_directions(&these)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(mean: f64, se: f64) -> MeanSe {
        MeanSe { mean, se }
    }

    /// Values of three algorithms: A 1.0 ± 0.1, B 1.1 ± 0.1 (A lower in mean, within 2 s.e.),
    /// C 3.0 ± 0.1 (far above both).
    fn values(l: &str) -> Option<MeanSe> {
        match l {
            "A" => Some(ms(1.0, 0.1)),
            "B" => Some(ms(1.1, 0.1)),
            "C" => Some(ms(3.0, 0.1)),
            _ => None,
        }
    }

    #[test]
    fn a_failed_claim_says_which_way_it_went() {
        let v: Values = &values;
        // "B < A": B is higher in mean, within 2 s.e. (d = 0.1, s.e. 0.141).
        let c = lower_claim("p", v, "B", "A").unwrap();
        assert!(!c.holds);
        assert_eq!(c.verdict, "not reproduced: B is higher in mean than A, within 2 s.e.");
        // "A < B": A is lower in mean, within 2 s.e.
        let c = lower_claim("p", v, "A", "B").unwrap();
        assert_eq!(c.verdict, "not reproduced: A is lower in mean than B, within 2 s.e.");
        // "C < A": significantly higher.
        assert_eq!(lower_claim("p", v, "C", "A").unwrap().verdict, "not reproduced: C is significantly higher");
        // "B lowest": A is below it in mean (within 2 s.e.), C significantly above: only A fails it.
        let c = lowest_claim("p", v, &["A", "B", "C"], "B", true).unwrap();
        assert_eq!(c.verdict, "not reproduced: not significantly below A (higher in mean than it, within 2 s.e.)");
        // "C lowest": significantly higher than both.
        let c = lowest_claim("p", v, &["A", "B", "C"], "C", true).unwrap();
        assert_eq!(c.verdict, "not reproduced: significantly above A, B");
        // "B best": nobody significantly below B; "C best": A and B are.
        assert!(lowest_claim("p", v, &["A", "B", "C"], "B", false).unwrap().holds);
        let c = lowest_claim("p", v, &["A", "B", "C"], "C", false).unwrap();
        assert_eq!(c.verdict, "not reproduced: significantly above A, B");
        // A threshold claim within 2 s.e., below the threshold in mean.
        let c = above_claim("p", "A error > 1.05", "A", "error", ms(1.0, 0.1), 1.05);
        assert_eq!(c.verdict, "not reproduced: A's error is below 1.05, within 2 s.e.");
    }

    #[test]
    fn the_index_line_lists_where_and_which_way_a_claim_fails() {
        let claim = |panel: &str, holds: bool, verdict: &str| Claim {
            panel: panel.into(),
            statement: "A < B".into(),
            evidence: String::new(),
            holds,
            verdict: verdict.into(),
        };
        let claims = [
            claim("p1", true, "reproduced"),
            claim("p2", false, "not reproduced: A is higher in mean than B, within 2 s.e."),
        ];
        let mut s = String::new();
        verdict_lines(&mut s, &claims, &["A < B"], true);
        assert_eq!(
            s,
            "- **A < B: partly reproduced** — holds on 1 of 2 panels (p1). Where not: p2: A is higher in mean than B, \
             within 2 s.e.\n"
        );
    }
}
