//! COMP-GP-UCB's report on the SVM problem, end to end (moved from the engine's svm_table tests:
//! it needs the built-in algorithms and the report of `bohf-reproduce`).

use bohf_experiments::svm_table::svm_table;
use bohf_experiments::testing::{scratch_dir, tiny_data};
use bohf_experiments::{Experiment, ExperimentSpec, ProblemSpec};
use std::path::Path;

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
