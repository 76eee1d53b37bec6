//! Tests of the COMP-GP-UCB report: S, R_c, R_l at budgets from hand-made runs, the claims on S at
//! the total budget (verdicts that flip with the values), the cost-ratio table and the JSON.

use super::*;
use bohf_core::{Answer, FiniteDomain};
use bohf_experiments::results::{PointRecord, StepRecord};
use bohf_experiments::runner::RunId;
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
        utility_gap: bohf_experiments::UtilityGap::NOT_RECORDED,
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
                at: vec![CompAt {
                    budget: 100.0,
                    simple: Some(ms(mean, se)),
                    comparisons: None,
                    labels: None,
                    error: None,
                }],
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

/// An svm problem's spec (the data is not read: the panel is built from hand-made runs).
const SVM_SPEC: &str = "name = \"s\"\nhorizon = 100\nruns = 2\n[problem]\nkind = \"svm\"\ndata = \"unused.data\"\n\
                        [respondent]\nscale = 2.0\n[budget]\ntotal = 4.0\nduel = 1.0\nevaluate = 2.0\n\
                        [reproduces]\npaper = \"compgpucb\"\nfigure = \"Figure 1(c)\"\n\
                        claims = [\"K error > 0.16\", \"K error > 0.3\"]\n\
                        [[algorithms]]\nname = \"kss\"\nlabel = \"K\"\n";

#[test]
fn the_error_rate_is_one_minus_the_best_accuracy_queried() {
    let spec = ExperimentSpec::from_toml_str(SVM_SPEC).unwrap();
    spec.reproduces.as_ref().unwrap().validate(Some(&spec.labels())).unwrap();
    // Accuracies f on five candidates; the respondent's scale 2 makes the regret's utility 2f.
    let f = [0.88, 0.86, 0.8, 0.7, 0.65];
    let d = FiniteDomain::from_rows(&[vec![0.0], vec![1.0], vec![2.0], vec![3.0], vec![4.0]]).unwrap();
    let u: Vec<f64> = f.iter().map(|v| 2.0 * v).collect();
    let regret = RegretModel::new(&GridFunction::new(d, u).unwrap(), DuelModel::Deterministic);
    use QueryKind::{Duel as D, Evaluate as E};
    // Run 0: duel (3 vs 2) at spent 1, evaluation of 4 at 3 (the rest of the budget, 4, is not
    // reached). Run 1: duel (4 vs 1) at 1, duel (3 vs 3) at 2, evaluation of 2 at 4.
    let runs = vec![
        RunRecord {
            id: RunId { algorithm: 0, run: 0 },
            label: "K".into(),
            steps: vec![step(D, 3, Some(2)), step(E, 4, None)],
        },
        RunRecord {
            id: RunId { algorithm: 0, run: 1 },
            label: "K".into(),
            steps: vec![step(D, 4, Some(1)), step(D, 3, Some(3)), step(E, 2, None)],
        },
    ];
    let p = CompPanel::from_runs(&spec, "t", &runs, &regret, false, 0.0).unwrap();
    // By hand: run 0 queried {3, 2, 4}: 1 − 0.8 = 0.2; run 1 {4, 1, 3, 2}: 1 − 0.86 = 0.14 (the duel's
    // second point counts). Mean 0.17, s.e. = std(ddof 0)/√2 = 0.03/√2.
    let at = p.rows[0].at_total().unwrap();
    let e = at.error.unwrap();
    assert!((e.mean - 0.17).abs() < 1e-12 && (e.se - 0.03 / 2f64.sqrt()).abs() < 1e-12, "{e:?}");
    // At Λ = 1 (first step only): run 0 {3, 2}: 0.2; run 1 {4, 1}: 0.14.
    let first = p.rows[0].at.iter().find(|a| (a.budget - 1.0).abs() < 1e-12).unwrap();
    assert!((first.error.unwrap().mean - 0.17).abs() < 1e-12);
    // At Λ = 0.4 no run has a query: no value.
    assert_eq!(p.rows[0].at[0].error, None);
    // The claims: 0.17 ± 0.0212 is not 2 s.e. above 0.16 (not reproduced), and below 0.3.
    let claims = comp_claims(&p, spec.reproduces.as_ref());
    assert_eq!(claims.len(), 2);
    assert!(!claims[0].holds && claims[0].verdict.contains("within"), "{:?}", claims[0]);
    assert!(!claims[1].holds && claims[1].verdict.contains("below 0.3"), "{:?}", claims[1]);
    assert_eq!(claims[0].statement, "K error > 0.16");
    // Another rate well above: run 1 queries only candidate 4 (error 0.35), run 0 too.
    let far: Vec<_> = (0..2)
        .map(|r| RunRecord { id: RunId { algorithm: 0, run: r }, label: "K".into(), steps: vec![step(D, 4, Some(4))] })
        .collect();
    let p2 = CompPanel::from_runs(&spec, "t", &far, &regret, false, 0.0).unwrap();
    let c2 = comp_claims(&p2, spec.reproduces.as_ref());
    assert!(c2[0].holds && c2[1].holds, "{c2:?}");
    // The report shows the column; a panel on another problem has none (and its JSON no `error`).
    assert!(p.to_json().unwrap().contains("\"error\""));
    let other = ExperimentSpec::from_toml_str(SPEC).unwrap();
    let runs_o =
        vec![RunRecord { id: RunId { algorithm: 0, run: 0 }, label: "C".into(), steps: vec![step(E, 1, None)] }];
    let po = CompPanel::from_runs(&other, "t", &runs_o, &regret, false, 0.0).unwrap();
    assert!(po.rows.iter().all(|r| r.at.iter().all(|a| a.error.is_none())));
    assert!(!po.to_json().unwrap().contains("\"error\""));
    // "A error > t" is refused outside COMP-GP-UCB presets, by field.
    let mut rep = spec.reproduces.clone().unwrap();
    rep.paper = "pfts".into();
    let e = rep.validate(None).unwrap_err().to_string();
    assert!(e.contains("reproduces.claims[0]") && e.contains("compgpucb"), "{e}");
}
