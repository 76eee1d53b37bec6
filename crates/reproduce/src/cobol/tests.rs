use super::report::cobol_markdown;
use super::*;
use bohf_core::Answer;
use bohf_experiments::results::{PointRecord, StepRecord};
use bohf_experiments::runner::RunId;

fn ms(mean: f64, se: f64) -> MeanSe {
    MeanSe { mean, se }
}

/// A row whose SR is `sr` at k and `end` at the end, with `first`/`last` third queries.
fn row(label: &str, sr: MeanSe, end: MeanSe, first: f64, last: f64) -> CobolRow {
    let at = |simple| Some(CobolAt { simple, sum_simple: ms(0.0, 0.0), queries: ms(first + last, 0.0) });
    CobolRow {
        label: label.into(),
        variant: "cobol".into(),
        g_thr: Some(0.1),
        eta: Some(3.0),
        runs: 10,
        stopped: 0,
        evaluations: [50, 50],
        at_k: at(sr),
        at_end: at(end),
        iteration_evaluations: 47,
        queries_first_third: Some(ms(first, 0.5)),
        queries_last_third: Some(ms(last, 0.5)),
        wall_seconds: ms(1.0, 0.0),
    }
}

fn panel(rows: Vec<CobolRow>) -> CobolPanel {
    CobolPanel {
        name: "p".into(),
        title: "P".into(),
        horizon: 300,
        quick: false,
        elapsed_s: 1.0,
        k: 50,
        rows,
        stopped: Vec::new(),
    }
}

#[test]
fn handover_holds_on_a_plateau_and_not_on_steady_asking() {
    let p = panel(vec![
        // 12 queries in the first third, 2 in the last: the rate fell to 1/6 ≤ 1/4.
        row("plateau", ms(1.0, 0.1), ms(1.0, 0.1), 12.0, 2.0),
        // 12 then 9: still asking at 3/4 of the rate.
        row("steady", ms(1.0, 0.1), ms(1.0, 0.1), 12.0, 9.0),
        // Exactly a quarter: holds (≤).
        row("quarter", ms(1.0, 0.1), ms(1.0, 0.1), 8.0, 2.0),
        // Never asked in the first third, then asked: not a plateau.
        row("late", ms(1.0, 0.1), ms(1.0, 0.1), 0.0, 4.0),
        row("never", ms(1.0, 0.1), ms(1.0, 0.1), 0.0, 0.0),
    ]);
    let c = |l: &str| handover_claim(&p, l).unwrap();
    assert!(c("plateau").holds, "{:?}", c("plateau"));
    let steady = c("steady");
    assert!(!steady.holds && steady.verdict.contains("75 %"), "{steady:?}");
    assert!(c("quarter").holds);
    assert!(!c("late").holds);
    assert!(c("never").holds && c("never").verdict.contains("never asked"));
    assert!(handover_claim(&p, "missing").is_none());
    // Too few evaluations: not judged.
    let mut short = panel(vec![row("short", ms(1.0, 0.1), ms(1.0, 0.1), 12.0, 0.0)]);
    short.rows[0].iteration_evaluations = 2;
    let c = handover_claim(&short, "short").unwrap();
    assert!(!c.holds && c.verdict.contains("not judged"), "{c:?}");
}

#[test]
fn no_harm_needs_the_factor_at_k_and_at_the_end_and_the_same_level_at_the_end() {
    let vanilla = row("vanilla LCB", ms(0.10, 0.01), ms(0.02, 0.002), 0.0, 0.0);
    // 0.25 ≤ 3 × 0.10 at k, 0.021 ≈ 0.02 at the end: passes.
    let pass = row("good", ms(0.25, 0.02), ms(0.021, 0.002), 5.0, 0.0);
    // 0.60 > 3 × 0.10 by far more than 2 s.e. at k.
    let far = row("far", ms(0.60, 0.02), ms(0.021, 0.002), 5.0, 0.0);
    // Within 3× at the end (0.05 ≤ 0.06) but significantly above vanilla's level.
    let high = row("high", ms(0.20, 0.02), ms(0.05, 0.002), 5.0, 0.0);
    let p = panel(vec![vanilla, pass, far, high]);
    let c = no_harm_claim(&p, "good", 3.0, "vanilla LCB").unwrap();
    assert!(c.holds, "{c:?}");
    assert_eq!(c.statement, "good within 3× vanilla LCB");
    let c = no_harm_claim(&p, "far", 3.0, "vanilla LCB").unwrap();
    assert!(!c.holds && c.verdict.contains("above 3× vanilla LCB at k = 50"), "{c:?}");
    let c = no_harm_claim(&p, "high", 3.0, "vanilla LCB").unwrap();
    assert!(!c.holds && c.verdict.contains("does not reach vanilla LCB's level"), "{c:?}");
    assert!(!c.verdict.contains("at k = 50"), "{c:?}");
    // With a larger factor `far` passes at k, and the claims go through the spec's rules.
    let rep = Reproduces {
        paper: "cobol".into(),
        figure: "Experiment C".into(),
        claims: vec!["far within 10× vanilla LCB".into(), "good best".into(), "good < vanilla LCB".into()],
    };
    let claims = cobol_claims(&p, Some(&rep));
    assert_eq!(claims.len(), 3);
    assert!(claims[0].holds, "{:?}", claims[0]);
    // "good best": vanilla (0.10 ± 0.01) is significantly below good (0.25 ± 0.02).
    assert!(!claims[1].holds && claims[1].verdict.contains("vanilla LCB"), "{:?}", claims[1]);
    assert!(!claims[2].holds);
}

/// A step of a run with u* = 0: an evaluation answers u = −gap.
fn step(query: QueryKind, gap: f64, phase: &str) -> StepRecord {
    StepRecord {
        t: 0,
        query,
        first: PointRecord::Candidate(0),
        second: None,
        options: Vec::new(),
        answer: if query == QueryKind::Label { Answer::Label { accept: true } } else { Answer::Value(-gap) },
        regret: 0.0,
        cumulative_regret: 0.0,
        recommendation: PointRecord::Candidate(0),
        simple_regret: 0.0,
        utility_gap: bohf_experiments::UtilityGap::NOT_RECORDED,
        elapsed_s: 0.0,
        details: vec![("phase".into(), phase.into())],
    }
}

#[test]
fn panel_metrics_follow_the_evaluations_and_skip_the_initial_ones_for_handover() {
    use QueryKind::{Evaluate as E, Label as L};
    // 2 initial evaluations and an initial label, then 6 iteration evaluations; the expert is
    // asked before iteration evaluations 1, 2 (twice) and after the last one.
    let mut steps = vec![step(E, 4.0, "initial-evaluation"), step(E, 3.0, "initial-evaluation")];
    steps.push(step(L, 0.0, "initial-label"));
    for (j, gap) in [2.0, 2.5, 1.0, 1.5, 0.5, 0.7].into_iter().enumerate() {
        let asks = match j {
            0 => 1,
            1 => 2,
            _ => 0,
        };
        steps.extend((0..asks).map(|_| step(L, 0.0, "iteration")));
        steps.push(step(E, gap, "iteration"));
    }
    steps.push(step(L, 0.0, "iteration"));
    let run = RunRecord { id: RunId { algorithm: 0, run: 0 }, label: "COBOL".into(), steps };
    let c = run_curves(&run, 0.0);
    assert_eq!(c.initial, 2);
    assert_eq!(c.simple, vec![4.0, 3.0, 2.0, 2.0, 1.0, 1.0, 0.5, 0.5]);
    assert_eq!(c.queries, vec![0.0, 0.0, 1.0, 3.0, 3.0, 3.0, 3.0, 3.0]);
    assert_eq!(c.queries_end, 4.0);
    assert_eq!(c.sum_simple.last(), Some(&14.0));
    // K = 6 iteration evaluations, m = 2: first third 3 queries (up to its 2nd), last third
    // 4 − Q at its 4th = 1.
    assert_eq!(thirds(&c), (3.0, 1.0));

    let spec: ExperimentSpec = toml::from_str(
        "name = \"p\"\nhorizon = 20\nruns = 1\n[problem]\nkind = \"rkhs\"\n\
         [[algorithms]]\nname = \"cobol\"\nlabel = \"COBOL\"\n[algorithms.params]\ng_thr = 0.08\n",
    )
    .unwrap();
    let p = CobolPanel::from_runs(&spec, "P", &[run], 0.0, false, 0.5);
    // 8 f-evaluations, fewer than 50: k stays 50 and the run is listed apart (5 labels, all
    // accepts, 13 queries), not in the table.
    assert_eq!(p.k, TABLE_EVALUATIONS);
    let r = &p.rows[0];
    assert_eq!((r.g_thr, r.eta, r.variant.as_str(), r.evaluations), (Some(0.08), Some(3.0), "cobol", [8, 8]));
    assert_eq!((r.runs, r.stopped), (0, 1));
    assert_eq!((r.at_k, r.at_end, r.queries_first_third, r.queries_last_third), (None, None, None, None));
    let stopped = StoppedRun { label: "COBOL".into(), run: 0, evaluations: 8, labels: 5, accepts: 5, queries: 13 };
    assert_eq!(p.stopped, vec![stopped]);
    let back = CobolPanel::from_json(&p.to_json().unwrap()).unwrap();
    assert_eq!(back, p);
}

/// A label step answered `accept`.
fn label(accept: bool, phase: &str) -> StepRecord {
    StepRecord { answer: Answer::Label { accept }, ..step(QueryKind::Label, 0.0, phase) }
}

/// A run of algorithm `algorithm`: 3 initial evaluations at gap 9, `initial_labels` initial
/// labels (all accepts), then `gaps.len()` iteration evaluations, each after `asks` labels
/// answered by `accept(i)` (i counts the iteration labels).
fn run_of(algorithm: usize, run: usize, label_: &str, initial_labels: usize, gaps: &[f64], asks: usize) -> RunRecord {
    use QueryKind::Evaluate as E;
    let mut steps: Vec<StepRecord> = (0..3).map(|_| step(E, 9.0, "initial-evaluation")).collect();
    steps.extend((0..initial_labels).map(|_| label(true, "initial-label")));
    let mut i = 0;
    for &gap in gaps {
        for _ in 0..asks {
            steps.push(label(i % 3 == 0, "iteration"));
            i += 1;
        }
        steps.push(step(E, gap, "iteration"));
    }
    RunRecord { id: RunId { algorithm, run }, label: label_.into(), steps }
}

fn capped_spec(second: &str, variant: &str, claims: &str) -> String {
    format!(
        "name = \"capped\"\nhorizon = 60\nruns = 3\n[budget]\ntotal = 50\nevaluate = 1\nlabel = 0\n\
         [reproduces]\npaper = \"cobol\"\nfigure = \"Experiment B\"\nclaims = [{claims}]\n\
         [problem]\nkind = \"rkhs\"\n[respondent]\nexpert = {{ accuracy = 1.0 }}\n\
         [[algorithms]]\nname = \"cobol\"\nlabel = \"COBOL\"\n\
         [[algorithms]]\nname = \"cobol\"\nlabel = \"{second}\"\n[algorithms.params]\nvariant = \"{variant}\"\n"
    )
}

#[test]
fn a_run_stopped_by_the_query_cap_is_listed_apart_and_k_stays_50() {
    // COBOL: runs 0 and 2 reach 50 f-evaluations (47 iteration evaluations, no iteration label:
    // 60 queries); run 1 asks 10 labels before each iteration evaluation and meets the query cap
    // of 60 after 3 + 4 = 7 evaluations and 3 more (rejected) labels.
    let reached = |run: usize, best: f64| {
        let gaps: Vec<f64> = (0..47).map(|j| if j < 20 { 1.0 } else { best }).collect();
        run_of(0, run, "COBOL", 10, &gaps, 0)
    };
    let mut capped = run_of(0, 1, "COBOL", 10, &[5.0, 4.0, 3.0, 0.01], 10);
    capped.steps.extend((0..60 - capped.steps.len()).map(|_| label(false, "iteration")));
    assert_eq!(capped.steps.len(), 60);
    let vanilla = |run: usize| run_of(1, run, "vanilla LCB", 0, &[0.5; 47], 0);
    let runs = vec![reached(0, 0.2), capped, reached(2, 0.4), vanilla(0), vanilla(1), vanilla(2)];
    let claims = "\"COBOL best\", \"COBOL < vanilla LCB\", \"COBOL hands over\"";
    let text = capped_spec("vanilla LCB", "vanilla-lcb", claims);
    let spec: ExperimentSpec = toml::from_str(&text).unwrap();
    let p = CobolPanel::from_runs(&spec, "Capped", &runs, 0.0, false, 1.0);
    assert_eq!(p.k, 50);
    // The capped run, apart: 3 initial + 4 iteration f-evaluations; 10 initial labels (accepts)
    // and 60 − 7 − 10 = 43 iteration labels, of which i = 0, 3, …, 39 (14) accept.
    let steps = &runs[1].steps;
    assert_eq!(steps.iter().filter(|s| s.query == QueryKind::Evaluate).count(), 7);
    let accepts = 10 + (0..40).filter(|i| i % 3 == 0).count();
    assert_eq!(accepts, 24);
    assert_eq!(
        p.stopped,
        vec![StoppedRun { label: "COBOL".into(), run: 1, evaluations: 7, labels: 53, accepts, queries: 60 }]
    );
    let c = p.get("COBOL").unwrap();
    assert_eq!((c.runs, c.stopped, c.evaluations), (2, 1, [7, 50]));
    // SR at 50 over runs 0 and 2 only: (0.2 + 0.4) / 2, s.e. = 0.1 / √2 (ddof 0); the capped
    // run (SR 0.01 at its 7th evaluation) would pull the mean down if it counted.
    let sr = c.at_k.unwrap().simple;
    assert!((sr.mean - 0.3).abs() < 1e-12 && (sr.se - 0.1 / 2f64.sqrt()).abs() < 1e-12, "{sr:?}");
    assert_eq!(c.at_end.unwrap().simple, sr);
    // Σ SR at 50: 3 × 9 + 20 × 1 + 27 × best, averaged over best = 0.2, 0.4.
    assert!((c.at_k.unwrap().sum_simple.mean - (27.0 + 20.0 + 27.0 * 0.3)).abs() < 1e-9);
    // Handover over the runs that reached k: they ask no iteration label (the capped run did).
    assert_eq!((c.queries_first_third.unwrap().mean, c.queries_last_third.unwrap().mean), (0.0, 0.0));
    let v = p.get("vanilla LCB").unwrap();
    assert_eq!((v.runs, v.stopped, v.at_k.unwrap().simple.mean), (3, 0, 0.5));
    let judged = cobol_claims(&p, spec.reproduces.as_ref());
    assert_eq!(judged.len(), 3);
    assert!(judged.iter().all(|c| c.holds), "{judged:?}");
    assert_eq!(CobolPanel::from_json(&p.to_json().unwrap()).unwrap(), p);

    // The report: the rule, the rows with "n of N", the capped run apart.
    let experiment = Experiment::new(spec.clone(), &bohf_registry::builtin()).unwrap();
    let md = cobol_markdown(&experiment, &text, &text, &p, "bohf reproduce capped", "capped.toml", false);
    assert!(md.contains(&table_rule(50)), "{md}");
    assert!(md.contains("| algorithm | runs | **SR at k = 50** |"), "{md}");
    assert!(md.contains("| COBOL | 2 of 3 | **0.300 ± 0.071** |"), "{md}");
    assert!(md.contains("| vanilla LCB | 3 of 3 |"), "{md}");
    assert!(md.contains("Runs stopped before k = 50 f-evaluations (query cap: 60 queries per run"), "{md}");
    assert!(md.contains("| COBOL | 1 | 7 | 53 | 24 | 60 |"), "{md}");
    assert!(md.contains("The whole panel (6 runs)"), "{md}");

    // Expert sampling asks before every draw: all its runs meet the cap before k. Its row has no
    // numbers, and every claim involving it (its own, "COBOL best", the comparisons) is not
    // judged; COBOL's handover involves COBOL only and is judged.
    let sampling = |run: usize| {
        let mut r = run_of(1, run, "expert sampling", 0, &[1.0; 20], 3);
        r.steps.truncate(60);
        r
    };
    let runs = vec![reached(0, 0.2), reached(1, 0.4), reached(2, 0.3), sampling(0), sampling(1), sampling(2)];
    let claims = "\"COBOL best\", \"COBOL < expert sampling\", \"COBOL within 3× expert sampling\", \
                  \"COBOL hands over\", \"expert sampling hands over\", \"expert sampling ≤ COBOL\"";
    let text = capped_spec("expert sampling", "expert-sampling", claims);
    let spec: ExperimentSpec = toml::from_str(&text).unwrap();
    let p = CobolPanel::from_runs(&spec, "Capped", &runs, 0.0, false, 1.0);
    assert_eq!(p.k, 50);
    let e = p.get("expert sampling").unwrap();
    assert_eq!((e.runs, e.stopped, e.at_k, e.at_end), (0, 3, None, None));
    assert_eq!(p.stopped.len(), 3);
    assert!(p.stopped.iter().all(|s| s.evaluations == 3 + 14 && s.labels == 43 && s.queries == 60), "{p:?}");
    let judged = cobol_claims(&p, spec.reproduces.as_ref());
    assert_eq!(judged.len(), 6, "{judged:?}");
    for (i, c) in judged.iter().enumerate() {
        if c.statement == "COBOL hands over" {
            assert!(c.holds, "{c:?}");
        } else {
            assert!(!c.holds && c.evidence == "—", "{c:?}");
            assert_eq!(
                c.verdict,
                "not judged: no run of expert sampling reached k = 50 f-evaluations (stopped earlier by the \
                 query cap; listed apart)",
                "claim {i}"
            );
        }
    }
    assert_eq!(judged[2].statement, "COBOL within 3× expert sampling");
    let experiment = Experiment::new(spec.clone(), &bohf_registry::builtin()).unwrap();
    let md = cobol_markdown(&experiment, &text, &text, &p, "bohf reproduce capped", "capped.toml", false);
    assert!(md.contains("| expert sampling | 0 of 3 | **no run reached k = 50** | — | — | — | — | — |"), "{md}");
    assert!(md.contains("| COBOL best | — | not judged: no run of expert sampling"), "{md}");
}

#[test]
fn accuracy_ordering_compares_across_experiment_a_panels() {
    let mk = |cobol: MeanSe, vanilla: MeanSe| {
        let mut v = row("vanilla LCB", vanilla, vanilla, 0.0, 0.0);
        v.variant = "vanilla-lcb".into();
        panel(vec![row("COBOL", cobol, cobol, 1.0, 0.0), v])
    };
    let p2 = mk(ms(0.1, 0.01), ms(0.5, 0.05));
    let p1 = mk(ms(0.3, 0.01), ms(0.5, 0.05));
    let claims = accuracy_ordering(&[(p2.clone(), 2.0), (p1.clone(), 1.0)]);
    assert_eq!(claims.len(), 2);
    assert_eq!(claims[0].statement, "COBOL (a = 2) ≤ COBOL (a = 1)");
    assert!(claims.iter().all(|c| c.holds), "{claims:?}");
    // a = 2 worse than a = 1: the first fails.
    let claims = accuracy_ordering(&[(p1, 2.0), (p2, 1.0)]);
    assert!(!claims[0].holds && claims[1].holds, "{claims:?}");
    assert!(accuracy_ordering(&[]).is_empty());
    // No run of vanilla LCB at k in the a = 1 panel: its comparison is not judged.
    let p2 = mk(ms(0.1, 0.01), ms(0.5, 0.05));
    let mut p1 = mk(ms(0.3, 0.01), ms(0.5, 0.05));
    p1.rows[1].at_k = None;
    let claims = accuracy_ordering(&[(p2, 2.0), (p1, 1.0)]);
    assert!(claims[0].holds, "{claims:?}");
    assert!(!claims[1].holds && claims[1].verdict.starts_with("not judged: no run of vanilla LCB"), "{claims:?}");
}

#[test]
fn the_index_has_a_cobol_section_with_g_thr_and_the_accuracy_ordering() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
    let presets = crate::discover(&dir).unwrap();
    let out = std::env::temp_dir().join(format!("bohf-cobol-index-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    for (name, cobol) in [("cobol-expa-ackley4-a2", 0.1), ("cobol-expa-ackley4-a1", 0.3)] {
        let mut v = row("vanilla LCB", ms(0.5, 0.05), ms(0.5, 0.05), 0.0, 0.0);
        v.variant = "vanilla-lcb".into();
        v.g_thr = None;
        let mut g8 = row("COBOL g_thr = 0.08", ms(cobol, 0.01), ms(cobol, 0.01), 10.0, 1.0);
        g8.g_thr = Some(0.08);
        let mut p = panel(vec![row("COBOL", ms(cobol, 0.01), ms(cobol, 0.01), 10.0, 5.0), v, g8]);
        p.name = name.into();
        std::fs::write(out.join(format!("{name}.cobol.json")), p.to_json().unwrap()).unwrap();
    }
    let index = crate::build_index(&out, &presets).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    assert!(index.contains("## COBOL paper (Xu, Adachi, Jones & Osborne 2024)"), "{index}");
    assert!(index.contains("| COBOL 0.1; COBOL g_thr = 0.08 0.08 |"), "{index}");
    // COBOL asks 5 of 10 in the last third: no handover; the g_thr = 0.08 entry 1 of 10: handover.
    assert!(index.contains("| COBOL hands over |"), "{index}");
    assert!(index.contains("COBOL (a = 2) ≤ COBOL (a = 1)"), "{index}");
    assert!(index.contains("handover (expert queries plateau): partly reproduced** — holds in 2 of 4"), "{index}");
    assert!(index.contains("2 of the paper's 18 COBOL presets have been run"), "{index}");
    assert!(index.contains("Not run yet:") && index.contains("cobol-expc-ackley4-eta"), "{index}");
}

#[test]
fn every_cobol_preset_stops_at_50_evaluations_with_free_labels() {
    // The authors' driver counts iterations in f-evaluations (n_iterations = 50, notes §5.1, §5.9);
    // without the budget a preset would run to its horizon cap (600 to 6,000 queries).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("cobol-") && name.ends_with(".toml")) {
            continue;
        }
        let spec: ExperimentSpec = toml::from_str(&Preset::read(&path).unwrap().text).unwrap();
        let b = spec.budget.as_ref().unwrap_or_else(|| panic!("{name} has no [budget]"));
        assert_eq!((b.total, b.evaluate, b.label), (50.0, 1.0, 0.0), "{name}");
        n += 1;
    }
    assert_eq!(n, 20, "the COBOL presets of crates/registry/tests/cobol_runs.rs");
}

#[test]
fn the_pmv_preset_f_range_is_ppd_over_the_box() {
    // The preset's f_range = [5, max PPD on the box]: PPD ≥ 5 everywhere (5 at PMV = 0), and its
    // maximum over an 11⁴ grid of the box (which contains the corners) is the stated f_max.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
    let preset = Preset::read(&dir.join("cobol-pmv-thermal4.toml")).unwrap();
    let spec: ExperimentSpec = toml::from_str(&preset.text).unwrap();
    let [lo, hi] = spec.respondent.expert.unwrap().f_range.unwrap();
    let f = bohf_problems::thermal::ThermalComfort::popbo_4d();
    let dom = bohf_problems::TestFunction::domain(&f);
    let n = 11usize;
    let mut max = f64::NEG_INFINITY;
    let mut min = f64::INFINITY;
    for i in 0..n.pow(4) {
        let x: Vec<f64> = (0..4)
            .map(|j| {
                let t = ((i / n.pow(j as u32)) % n) as f64 / (n - 1) as f64;
                dom.lower()[j] + t * (dom.upper()[j] - dom.lower()[j])
            })
            .collect();
        let ppd = f.pmv_at(&x).unwrap().ppd;
        max = max.max(ppd);
        min = min.min(ppd);
    }
    assert_eq!(lo, 5.0);
    assert!(min >= 5.0 - 1e-12, "{min}");
    assert!((max - hi).abs() < 1e-9, "grid max {max} vs f_range {hi}");
    assert_eq!(preset.paper(), Paper::Cobol);
}
