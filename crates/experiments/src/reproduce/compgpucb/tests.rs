//! Tests of the COMP-GP-UCB report: S, R_c, R_l at budgets from hand-made runs, the claims on S at
//! the total budget (verdicts that flip with the values), the cost-ratio table and the JSON.

use super::*;
use crate::results::{PointRecord, StepRecord};
use crate::runner::RunId;
use bohf_core::{Answer, FiniteDomain};
use bohf_problems::{DuelModel, GridFunction};

fn ms(mean: f64, se: f64) -> MeanSe {
    MeanSe { mean, se }
}

/// f on five candidates: f* = 10 at candidate 0.
fn regret() -> RegretModel {
    let d = FiniteDomain::from_rows(&[vec![0.0], vec![1.0], vec![2.0], vec![3.0], vec![4.0]]).unwrap();
    RegretModel::new(&GridFunction::new(d, vec![10.0, 9.0, 7.0, 4.0, 0.0]).unwrap(), DuelModel::btl())
}

fn step(query: QueryKind, first: usize, second: Option<usize>) -> StepRecord {
    StepRecord {
        t: 0,
        query,
        first: PointRecord::Candidate(first),
        second: second.map(PointRecord::Candidate),
        options: Vec::new(),
        answer: if query == QueryKind::Duel { Answer::Duel { first_wins: true } } else { Answer::Value(0.0) },
        regret: 0.0,
        cumulative_regret: 0.0,
        recommendation: PointRecord::Candidate(0),
        simple_regret: 0.0,
        elapsed_s: 0.0,
        details: Vec::new(),
    }
}

const SPEC: &str = "name = \"p\"\nhorizon = 100\nruns = 2\n[problem]\nkind = \"function\"\nfunction = \"branin\"\n\
                    points_per_dim = 3\n[budget]\ntotal = 10.0\nduel = 0.5\nevaluate = 2.0\n\
                    [[algorithms]]\nname = \"comp-gp-ucb\"\nlabel = \"C\"\n[[algorithms]]\nname = \"gp-ucb\"\nlabel = \"G\"\n";

#[test]
fn s_rc_rl_at_budgets_follow_the_queried_points_and_the_spent_budget() {
    use QueryKind::{Duel as D, Evaluate as E};
    let spec = ExperimentSpec::from_toml_str(SPEC).unwrap();
    // Run 0 of C: duel (3 vs 1) at Λ 0.5, duel (4 vs 2) at 1.0, evaluation of 2 at 3.0, duel (1 vs 0)
    // at 3.5, evaluation of 0 at 5.5, evaluations of 4 at 7.5 and 9.5, duel (3 vs 4) at 10.0.
    let c0 = vec![
        step(D, 3, Some(1)),
        step(D, 4, Some(2)),
        step(E, 2, None),
        step(D, 1, Some(0)),
        step(E, 0, None),
        step(E, 4, None),
        step(E, 4, None),
        step(D, 3, Some(4)),
    ];
    // Run 1 of C: five evaluations of 3 (gap 6), spent 2, 4, …, 10.
    let c1 = vec![step(E, 3, None); 5];
    // G: only evaluations (R_c is ∞: "—").
    let g = vec![step(E, 1, None); 5];
    let runs = vec![
        RunRecord { id: RunId { algorithm: 0, run: 0 }, label: "C".into(), steps: c0 },
        RunRecord { id: RunId { algorithm: 0, run: 1 }, label: "C".into(), steps: c1 },
        RunRecord { id: RunId { algorithm: 1, run: 0 }, label: "G".into(), steps: g.clone() },
        RunRecord { id: RunId { algorithm: 1, run: 1 }, label: "G".into(), steps: g },
    ];
    let p = CompPanel::from_runs(&spec, "P", &runs, &regret(), false, 1.0).unwrap();
    assert_eq!((p.total, p.duel_cost, p.evaluate_cost, p.ratio()), (10.0, 0.5, 2.0, 4.0));
    let c = p.get("C").unwrap();
    assert_eq!(c.at.iter().map(|a| a.budget).collect::<Vec<_>>(), vec![1.0, 2.5, 5.0, 7.5, 10.0]);
    assert_eq!((c.duels.mean, c.evaluations.mean), (2.0, 4.5));
    // Λ = 1: run 0 has duelled 3–1 and 4–2; run 1 has queried nothing yet: no row value.
    assert_eq!(c.at[0].simple, None);
    // Λ = 2.5: run 0 as at 1.0 (the evaluation ends at 3.0), run 1 one evaluation of 3 (gap 6).
    assert_eq!(c.at[1].simple.unwrap().mean, (1.0 + 6.0) / 2.0);
    assert_eq!(c.at[1].labels, None); // run 0 has no evaluation yet
    assert_eq!(c.at[1].comparisons, None); // run 1 never duels
    // Λ = 5: run 0 has duelled 1–0 at 3.5 (its opponent is x*: S = 0), R_l = gap of 2 = 3.
    assert_eq!(c.at[2].simple.unwrap().mean, (0.0 + 6.0) / 2.0);
    assert_eq!(c.at[2].labels.unwrap().mean, (3.0 + 6.0) / 2.0);
    // Λ = 10 (every step, the last at exactly 10): R_l of run 0 = 0 (candidate 0 evaluated at 5.5).
    let t = c.at_total().unwrap();
    // Values 0 and 6: mean 3, s.e. = std (ddof 0) 3 / √2.
    assert_eq!(t.simple.unwrap(), ms(3.0, 3.0 / 2f64.sqrt()));
    assert_eq!(t.labels.unwrap().mean, 3.0);
    // R_c = run 0's best duel first point: 1 (gap 1), run 1 has none.
    assert_eq!(t.comparisons, None);
    let gt = p.get("G").unwrap().at_total().unwrap();
    assert_eq!((gt.simple.unwrap(), gt.comparisons), (ms(1.0, 0.0), None));
    assert_eq!(CompPanel::from_json(&p.to_json().unwrap()).unwrap(), p);

    // A spec without a [budget] is refused by name.
    let mut nob = spec.clone();
    nob.budget = None;
    let e = CompPanel::from_runs(&nob, "P", &runs, &regret(), false, 1.0).unwrap_err();
    assert!(e.to_string().contains("budget"), "{e}");
}

/// A panel with S at the total budget per label, given as (label, mean, s.e.).
fn panel(name: &str, ratio: f64, values: &[(&str, f64, f64)]) -> CompPanel {
    CompPanel {
        name: name.into(),
        title: name.into(),
        horizon: 1001,
        quick: false,
        elapsed_s: 1.0,
        total: 100.0,
        duel_cost: 1.0 / ratio,
        evaluate_cost: 1.0,
        rows: values
            .iter()
            .map(|&(label, mean, se)| CompRow {
                label: label.into(),
                runs: 20,
                duels: ms(0.0, 0.0),
                evaluations: ms(0.0, 0.0),
                at: vec![CompAt { budget: 100.0, simple: Some(ms(mean, se)), comparisons: None, labels: None }],
                wall_seconds: ms(0.1, 0.0),
            })
            .collect(),
    }
}

fn rep(figure: &str, claims: &[&str]) -> Reproduces {
    Reproduces {
        paper: "compgpucb".into(),
        figure: figure.into(),
        claims: claims.iter().map(|c| c.to_string()).collect(),
    }
}

#[test]
fn claims_are_judged_on_s_at_the_total_budget_and_flip_with_it() {
    let r = rep("Figure 1(a)", &["COMP-GP-UCB < GP-UCB", "COMP-GP-UCB best", "GP-UCB < COMP-GP-UCB"]);
    // 0.10 ± 0.02 against 0.50 ± 0.05: difference −0.40 ± 0.054, beyond 2 s.e.
    let good = panel("a", 10.0, &[("COMP-GP-UCB", 0.10, 0.02), ("GP-UCB", 0.50, 0.05), ("KSS", 0.3, 0.02)]);
    let c = comp_claims(&good, Some(&r));
    assert_eq!(c.len(), 3);
    assert!(c[0].holds && c[1].holds && !c[2].holds, "{c:?}");
    // Within 2 s.e. (difference −0.08 ± 0.054): "<" fails, "best" still holds (nobody below).
    let close = panel("b", 10.0, &[("COMP-GP-UCB", 0.42, 0.02), ("GP-UCB", 0.50, 0.05), ("KSS", 0.45, 0.02)]);
    let c = comp_claims(&close, Some(&r));
    assert!(!c[0].holds && c[1].holds && !c[2].holds, "{c:?}");
    // KSS significantly below: "best" fails and names it.
    let kss = panel("c", 10.0, &[("COMP-GP-UCB", 0.42, 0.02), ("GP-UCB", 0.50, 0.05), ("KSS", 0.1, 0.02)]);
    let c = comp_claims(&kss, Some(&r));
    assert!(!c[1].holds && c[1].verdict.contains("KSS"), "{c:?}");
    // The reverse claim holds when GP-UCB is far lower.
    let rev = panel("d", 1.0, &[("COMP-GP-UCB", 0.9, 0.05), ("GP-UCB", 0.2, 0.05)]);
    let c = comp_claims(&rev, Some(&r));
    assert!(!c[0].holds && c[2].holds, "{c:?}");
    assert!(comp_claims(&rev, None).is_empty());
}

#[test]
fn the_ratio_table_orders_the_panels_of_one_figure_by_cost_ratio() {
    let dir = std::env::temp_dir();
    let preset = |name: &str, figure: &str| Preset {
        name: name.into(),
        path: dir.join(format!("{name}.toml")),
        title: None,
        reproduces: Some(rep(figure, &["COMP-GP-UCB < GP-UCB"])),
        text: String::new(),
    };
    let (p10, p1, pa) = (preset("r10", "Figure 1(b)"), preset("r1", "Figure 1(b)"), preset("a", "Figure 1(a)"));
    let panels = vec![
        (&p10, panel("r10", 10.0, &[("COMP-GP-UCB", 0.1, 0.01), ("GP-UCB", 0.5, 0.05)])),
        (&p1, panel("r1", 1.0, &[("COMP-GP-UCB", 0.9, 0.05), ("GP-UCB", 0.5, 0.05)])),
        (&pa, panel("a", 10.0, &[("COMP-GP-UCB", 0.1, 0.01), ("GP-UCB", 0.5, 0.05)])),
    ];
    let t = ratio_table("Figure 1(b)", &panels).unwrap();
    let rows: Vec<&str> = t.lines().skip(2).collect();
    assert_eq!(rows.len(), 2, "{t}");
    assert!(rows[0].starts_with("| 1 | [r1](r1.md) | 0.900 ± 0.050 | 0.500 ± 0.050 |"), "{t}");
    assert!(rows[1].starts_with("| 10 | [r10](r10.md) |"), "{t}");
    // One panel of a figure: no table.
    assert!(ratio_table("Figure 1(a)", &panels).is_none());
    let mut s = String::new();
    index_section(&mut s, &panels, 12);
    assert!(s.contains("Figure 1(b), S at the total budget against the cost ratio"), "{s}");
    // "<" holds on r10 and a, not on r1.
    assert!(s.contains("**COMP-GP-UCB < GP-UCB: partly reproduced** — holds on 2 of 3 panels (r10, a)"), "{s}");
    assert!(s.contains("3 of the paper's 12 COMP-GP-UCB presets have been run"), "{s}");
}
