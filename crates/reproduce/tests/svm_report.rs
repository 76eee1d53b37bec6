//! COMP-GP-UCB's report on the SVM problem, end to end (moved from the engine's svm_table tests:
//! it needs the built-in algorithms and the report of `bohf-reproduce`).

use bohf_experiments::svm_table::svm_table;
use bohf_experiments::{Experiment, ExperimentSpec, ProblemSpec};
use std::path::{Path, PathBuf};

/// A MAGIC-format file of `n` records: 10 attributes from a fixed pseudo-random sequence, the
/// class `g` when a noisy linear score of the first two is positive (so a good SVM does better
/// than the majority).
fn tiny_data(dir: &std::path::Path, n: usize) -> PathBuf {
    let mut state: u64 = 12345;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut text = String::new();
    for _ in 0..n {
        let row: Vec<f64> = (0..10).map(|_| next() * 50.0).collect();
        let class = if row[0] + 0.5 * row[1] + 10.0 * next() > 0.0 { "g" } else { "h" };
        let fields: Vec<String> = row.iter().map(|v| format!("{v:.4}")).collect();
        text.push_str(&format!("{},{class}\n", fields.join(",")));
    }
    let p = dir.join("tiny-magic.data");
    std::fs::write(&p, text).unwrap();
    p
}

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bohf-experiments-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A spec of the tiny SVM problem with `extra` problem lines.
fn spec_text(data: &Path, extra: &str) -> String {
    format!(
        "name = \"s\"\nhorizon = 30\nruns = 2\nseed = 5\n[problem]\nkind = \"svm\"\ndata = {:?}\nseed = 3\n\
         points_per_dim = 3\ntrain = 30\nvalidation = 20\ncomparison_train = 10\n{extra}\n[respondent]\n\
         model = \"deterministic\"\nnoise_sd = 0.0\ncomparisons = \"low-fidelity\"\n[budget]\ntotal = 5.0\nduel = 0.5\n\
         evaluate = 1.0\n[[algorithms]]\nname = \"gp-ucb\"\n[algorithms.params]\ninitial_budget = 2.0\n\
         [[algorithms]]\nname = \"kss\"\n[algorithms.params]\ninitial_budget = 1.0\n",
        data.display().to_string()
    )
}

#[test]
fn the_reports_error_rate_matches_the_runs_records() {
    // A tiny SVM panel run end to end: the report's error rate at the total budget is, for each
    // run, 1 − the best f among the points of its records (both points of a duel), looked up in
    // the table directly.
    let dir = scratch_dir("svm-error-rate");
    let data = tiny_data(&dir, 60);
    let spec = ExperimentSpec::from_toml_str(&spec_text(&data, "")).unwrap();
    let ProblemSpec::Svm(p) = &spec.problem else { panic!() };
    let (t, _) = svm_table(p, &|_| {}).unwrap();
    let e = Experiment::new(spec.clone(), &bohf_registry::builtin()).unwrap();
    let results = e.run().unwrap();
    let panel =
        bohf_reproduce::CompPanel::from_runs(&spec, "t", results.runs(), e.problem().regret(), false, 0.0).unwrap();
    for row in &panel.rows {
        let by_hand: Vec<f64> = results
            .runs()
            .iter()
            .filter(|r| r.label == row.label)
            .map(|r| {
                let best = r
                    .steps
                    .iter()
                    .flat_map(|s| std::iter::once(&s.first).chain(s.second.as_ref()))
                    .map(|pt| t.high.values()[pt.index().unwrap()])
                    .fold(f64::NEG_INFINITY, f64::max);
                1.0 - best
            })
            .collect();
        let mean = by_hand.iter().sum::<f64>() / by_hand.len() as f64;
        let got = row.at_total().unwrap().error.unwrap();
        // Two routes to the same sum of a few accuracies: equal up to rounding.
        assert!((got.mean - mean).abs() < 1e-12, "{}: {} vs {mean}", row.label, got.mean);
        assert!(by_hand.iter().all(|v| (0.0..=1.0).contains(v)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
