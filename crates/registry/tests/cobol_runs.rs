//! COBOL through the runner: per-step details (phase, branch, λ), the synthetic expert of the
//! respondent, the metrics against f-evaluations, and unchanged records for other algorithms.

mod support;

use bohf_experiments::*;
use support::*;

const COBOL: &str = r#"
name = "cobol-grid"
seed = 5
horizon = 30
runs = 2

[problem]
kind = "function"
function = "rosenbrock"
dim = 2
points_per_dim = 12

[respondent]
noise_sd = 0.0
expert = { accuracy = 1.0 }

[[algorithms]]
name = "cobol"
[algorithms.params]
initial_labels = 6
g_thr = 0.5

[[algorithms]]
name = "cobol"
label = "LCB"
[algorithms.params]
variant = "vanilla-lcb"
"#;

#[test]
fn cobol_runs_record_their_details_and_read_back() {
    let spec = ExperimentSpec::from_toml_str(COBOL).unwrap();
    let results = run_with_threads(&spec, 2);
    let csv = results.to_csv(Timing::Omit);
    assert!(csv.lines().next().unwrap().ends_with(",details"), "{}", csv.lines().next().unwrap());
    for r in results.runs() {
        let mut labels_in_iterations = 0;
        for s in &r.steps {
            let phase = s.detail("phase").expect("COBOL records its phase");
            let lambda: f64 = s.detail("lambda").unwrap().parse().unwrap();
            assert!(lambda >= 0.0);
            if s.query == QueryKind::Label && phase == "iteration" {
                labels_in_iterations += 1;
                assert_eq!(s.detail("branch"), Some("expert"));
            }
        }
        let q = feedback::expert_queries(r);
        assert_eq!(*q.last().unwrap(), labels_in_iterations);
        if r.label == "LCB" {
            assert_eq!(labels_in_iterations, 0);
            assert!(r.steps.iter().all(|s| s.query == QueryKind::Evaluate));
        }
        // Simple regret against f-evaluations never increases.
        let c = feedback::evaluation_curve(r, 0.0);
        assert!(c.simple_regret.windows(2).all(|w| w[1] <= w[0]));
    }
    // The details read back with the CSV, bit for bit.
    let back = Results::from_csv(spec, results.title(), &results.to_csv(Timing::Include)).unwrap();
    assert!(back == results, "the details do not read back");
}

#[test]
fn algorithms_without_details_write_the_same_csv_as_before() {
    let results = run_with_threads(&small_spec(), 1);
    let csv = results.to_csv(Timing::Include);
    assert_eq!(
        csv.lines().next().unwrap(),
        "algorithm,run,t,query,first,second,answer,regret,cumulative_regret,recommendation,simple_regret,\
         utility_gap,cumulative_utility_gap,simple_utility_gap,elapsed_s"
    );
    assert!(results.runs().iter().all(|r| r.steps.iter().all(|s| s.details.is_empty())));
}

#[test]
fn a_bad_expert_is_named() {
    let bad = COBOL.replace("expert = { accuracy = 1.0 }", "expert = { accuracy = nan }");
    let e = ExperimentSpec::from_toml_str(&bad).and_then(|s| Experiment::new(s, &registry()).map(|_| ()));
    let e = e.unwrap_err().to_string();
    assert!(e.contains("respondent.expert.accuracy"), "{e}");
    let bad = COBOL.replace("g_thr = 0.5", "g_thr = 0.0");
    let e = ExperimentSpec::from_toml_str(&bad).and_then(|s| Experiment::new(s, &registry()).map(|_| ()));
    let e = e.unwrap_err().to_string();
    assert!(e.contains("g_thr"), "{e}");
}

#[test]
fn the_cobol_presets_are_valid_specs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.file_name().and_then(|s| s.to_str()).is_some_and(|s| s.starts_with("cobol-")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = ExperimentSpec::from_toml_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(Some(spec.name.as_str()), path.file_stem().and_then(|s| s.to_str()));
        Experiment::new(spec, &registry()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    assert_eq!(
        n, 20,
        "Experiments A (5 accuracies, λ₀, η, g_thr), B (5), C (1), D (pinpoint, 3 MVN beliefs), the PMV case and the \
         x^c searches side by side"
    );
}
