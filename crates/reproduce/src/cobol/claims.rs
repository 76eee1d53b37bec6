//! COBOL's own claims (handover, no harm, the ordering by the expert's accuracy) and the claims of a
//! panel, judged over the runs that reached k (see [`super`]).

use super::*;

/// "A hands over" on a panel (see the module documentation).
pub fn handover_claim(p: &CobolPanel, a: &str) -> Option<Claim> {
    let r = p.get(a)?;
    let statement = format!("{a} hands over");
    let (Some(first), Some(last)) = (r.queries_first_third, r.queries_last_third) else {
        return Some(not_judged(p, statement, a));
    };
    let evidence = format!(
        "Q^g in the first third of the iterations' f-evaluations {}, in the last third {}; total at the end {}",
        pm(first),
        pm(last),
        r.at_end.map_or("—".into(), |e| pm(e.queries))
    );
    let (holds, verdict) = if r.iteration_evaluations < 3 {
        (false, "not judged: a run has fewer than 3 f-evaluations after the initial ones".to_string())
    } else if first.mean == 0.0 && last.mean == 0.0 {
        (true, "reproduced trivially: the expert was never asked in the first or last third".to_string())
    } else if last.mean <= HANDOVER_RATIO * first.mean {
        (true, format!("reproduced: last third ≤ {HANDOVER_RATIO} × first third"))
    } else {
        (
            false,
            format!(
                "not reproduced: the last third asks {:.0} % as often as the first (plateau: ≤ {:.0} %)",
                100.0 * last.mean / first.mean,
                100.0 * HANDOVER_RATIO
            ),
        )
    };
    Some(Claim { panel: p.name.clone(), statement, evidence, holds, verdict })
}

/// Whether mean_a − f·mean_b > 2·√(se_a² + f²·se_b²) (a significantly above f times b).
fn above_factor(a: MeanSe, f: f64, b: MeanSe) -> (f64, f64, bool) {
    let d = a.mean - f * b.mean;
    let se = (a.se * a.se + f * f * b.se * b.se).sqrt();
    (d, se, d > SE_MULTIPLE * se)
}

/// "A within F× B" on a panel (no harm; see the module documentation).
pub fn no_harm_claim(p: &CobolPanel, a: &str, factor: f64, b: &str) -> Option<Claim> {
    let (ra, rb) = (p.get(a)?, p.get(b)?);
    let statement = format!("{a} within {factor}× {b}");
    let (Some(ka), Some(kb), Some(ea), Some(eb)) = (ra.at_k, rb.at_k, ra.at_end, rb.at_end) else {
        return Some(not_judged(p, statement, if ra.at_k.is_none() { a } else { b }));
    };
    let (dk, sk, over_k) = above_factor(ka.simple, factor, kb.simple);
    let (de, se, over_e) = above_factor(ea.simple, factor, eb.simple);
    let (d, s, order) = compare(ea.simple, eb.simple);
    let evidence = format!(
        "SR at k = {}: {a} {}, {b} {}, {a} − {factor}·{b} = {}; at the end: {a} {}, {b} {}, {a} − {factor}·{b} = {}, \
         {a} − {b} = {}",
        p.k,
        pm(ka.simple),
        pm(kb.simple),
        signed(dk, sk),
        pm(ea.simple),
        pm(eb.simple),
        signed(de, se),
        signed(d, s)
    );
    let mut failures = Vec::new();
    if over_k {
        failures.push(format!("above {factor}× {b} at k = {}", p.k));
    }
    if over_e {
        failures.push(format!("above {factor}× {b} at the end"));
    }
    if order == Order::Higher {
        failures.push(format!("does not reach {b}'s level at the end"));
    }
    let holds = failures.is_empty();
    let verdict = if holds {
        format!("reproduced: within {factor}× and at {b}'s level at the end ({SE_MULTIPLE}-s.e. rule)")
    } else {
        format!("not reproduced: {}", failures.join("; "))
    };
    Some(Claim { panel: p.name.clone(), statement, evidence, holds, verdict })
}

/// Why a claim involving `label` is not judged: none of its runs reached k f-evaluations.
fn not_reached(p: &CobolPanel, label: &str) -> String {
    format!(
        "not judged: no run of {label} reached k = {} f-evaluations (stopped earlier by the query cap; listed apart)",
        p.k
    )
}

/// A claim not judged because `label` has no run at k.
fn not_judged(p: &CobolPanel, statement: String, label: &str) -> Claim {
    Claim { panel: p.name.clone(), statement, evidence: "—".into(), holds: false, verdict: not_reached(p, label) }
}

/// A claim's statement as the judged claims word it (`None` for a claim COBOL does not judge).
fn statement_of(rule: &ClaimRule) -> Option<String> {
    Some(match rule {
        ClaimRule::Lower(a, b) => format!("{a} < {b}"),
        ClaimRule::Parity(a, b) => format!("{a} ≈ {b}"),
        ClaimRule::AtMost(a, b) => format!("{a} ≤ {b}"),
        ClaimRule::Lowest(a) => format!("{a} lowest"),
        ClaimRule::Best(a) => format!("{a} best"),
        ClaimRule::HandsOver(a) => format!("{a} hands over"),
        ClaimRule::Within(a, f, b) => format!("{a} within {f}× {b}"),
        ClaimRule::ErrorAbove(..) => return None,
    })
}

/// The claims of `reproduces` judged on a COBOL panel, in the spec's order: the generic ones on SR
/// at k f-evaluations, handover and no harm as in the module documentation. A claim that involves
/// an algorithm with no run at k ("A lowest" and "A best" involve every algorithm) is not judged.
pub fn cobol_claims(p: &CobolPanel, reproduces: Option<&Reproduces>) -> Vec<Claim> {
    let Some(rep) = reproduces else { return Vec::new() };
    let labels: Vec<&str> = p.rows.iter().map(|r| r.label.as_str()).collect();
    let v = |l: &str| p.get(l).and_then(|r| r.at_k).map(|a| a.simple);
    let v: Values = &v;
    rep.rules()
        .iter()
        .filter_map(|rule| {
            let involved = match rule {
                ClaimRule::Lowest(_) | ClaimRule::Best(_) => labels.clone(),
                other => other.labels(),
            };
            let missing = involved.into_iter().find(|l| p.get(l).is_some_and(|r| r.at_k.is_none()));
            if let (Some(l), Some(statement)) = (missing, statement_of(rule)) {
                return Some(not_judged(p, statement, l));
            }
            match rule {
                ClaimRule::HandsOver(a) => handover_claim(p, a),
                ClaimRule::Within(a, f, b) => no_harm_claim(p, a, *f, b),
                other => judge(&p.name, &labels, v, other),
            }
        })
        .collect()
}

/// The expert accuracy a of a spec's synthetic expert, if it has one.
pub(super) fn accuracy(spec: &ExperimentSpec) -> Option<f64> {
    spec.respondent.expert.map(|e| e.accuracy)
}

/// Experiment A's accuracy ordering across panels: for each COBOL label `L` present in the a = 2
/// and a = 1 panels (those of `panels` whose figure starts with "Experiment A (Fig. 3)"), "L (a = 2) ≤ L
/// (a = 1)" and "L (a = 1) ≤ vanilla LCB (a = 1)" on SR at k, by the rule of [`compare`].
pub fn accuracy_ordering(panels: &[(CobolPanel, f64)]) -> Vec<Claim> {
    let find = |a: f64| panels.iter().find(|(_, acc)| *acc == a).map(|(p, _)| p);
    let (Some(p2), Some(p1)) = (find(2.0), find(1.0)) else { return Vec::new() };
    // `None`: no such row (skipped); `Some(Err(label))`: a row with no run at k (not judged).
    let sr = |p: &CobolPanel, l: &str| p.get(l).map(|r| r.at_k.map(|a| a.simple).ok_or_else(|| l.to_string()));
    let mut out = Vec::new();
    for row in p1.rows.iter().filter(|r| r.variant == "cobol") {
        let l = row.label.as_str();
        let mut pair = |panel: &CobolPanel,
                        a: Option<std::result::Result<MeanSe, String>>,
                        b: Option<std::result::Result<MeanSe, String>>,
                        la: String,
                        lb: String| {
            let (Some(a), Some(b)) = (a, b) else { return };
            let (a, b) = match (a, b) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(missing), _) | (_, Err(missing)) => {
                    out.push(not_judged(panel, format!("{la} ≤ {lb}"), &missing));
                    return;
                }
            };
            let name = panel.name.clone();
            let (d, se, order) = compare(a, b);
            out.push(Claim {
                panel: name,
                statement: format!("{la} ≤ {lb}"),
                evidence: format!("{la} {}, {lb} {}; difference {}", pm(a), pm(b), signed(d, se)),
                holds: order != Order::Higher,
                verdict: match order {
                    Order::Higher => format!("not reproduced: {la} is significantly higher"),
                    Order::Lower => "reproduced (significantly lower)".into(),
                    Order::Indistinguishable => format!("reproduced: within {SE_MULTIPLE} s.e."),
                },
            });
        };
        pair(p2, sr(p2, l), sr(p1, l), format!("{l} (a = 2)"), format!("{l} (a = 1)"));
        pair(p1, sr(p1, l), sr(p1, "vanilla LCB"), format!("{l} (a = 1)"), "vanilla LCB".into());
    }
    out
}
