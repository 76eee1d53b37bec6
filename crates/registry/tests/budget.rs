//! Tests of `[budget]`: where runs stop, overshoot, rounding, completeness checks, resume and
//! shards, summaries of runs of unequal length, and the fields' errors.

use bohf_experiments::folder::{Outcome, Quiet, RunOptions, run_experiment};
mod support;

use bohf_core::Answer;
use bohf_experiments::*;
use support::*;

/// COBOL on a small grid with free labels and a budget of 5 evaluations.
const COBOL_BUDGET: &str = r#"
name = "cobol-budget"
seed = 3
horizon = 200
runs = 3

[budget]
total = 5
evaluate = 1
label = 0

[problem]
kind = "function"
function = "rosenbrock"
dim = 2
points_per_dim = 8

[respondent]
noise_sd = 0.0
expert = { accuracy = 1.0 }

[[algorithms]]
name = "cobol"
[algorithms.params]
initial_labels = 4
g_thr = 0.5
"#;

fn kinds(r: &RunRecord) -> (usize, usize, usize) {
    let n = |k: QueryKind| r.steps.iter().filter(|s| s.query == k).count();
    (n(QueryKind::Duel), n(QueryKind::Evaluate), n(QueryKind::Label))
}

#[test]
fn a_cobol_run_stops_after_its_fifth_evaluation_and_labels_are_free() {
    let spec = ExperimentSpec::from_toml_str(COBOL_BUDGET).unwrap();
    let results = run_with_threads(&spec, 2);
    for r in results.runs() {
        let (duels, evaluations, labels) = kinds(r);
        assert_eq!((duels, evaluations), (0, 5), "run {}", r.id.run);
        assert!(labels >= 4, "the initial labels are asked and cost nothing (run {})", r.id.run);
        assert_eq!(r.steps.last().unwrap().query, QueryKind::Evaluate, "the run ends on its 5th evaluation");
        assert!(r.steps.len() < spec.horizon);
        let spent = spent_budget(r, &spec).unwrap();
        assert_eq!(spent.len(), r.steps.len());
        assert_eq!(*spent.last().unwrap(), 5.0);
        // Spent budget counts evaluations only: 4 before the last step.
        assert_eq!(spent[spent.len() - 2], 4.0);
    }
    // The summary accepts the runs; its final values are each run's last step's.
    let s = results.summary().unwrap();
    let finals: Vec<f64> = results.runs().iter().map(|r| r.steps.last().unwrap().simple_regret).collect();
    assert_eq!(s.algorithms[0].at_horizon.simple, mean_se(&finals));
}

/// Uniform duels (algorithm 0) and uniform evaluations (algorithm 1) on a small RKHS problem.
fn uniform_spec(budget: BudgetSpec, horizon: usize) -> ExperimentSpec {
    let mut spec = small_spec();
    spec.horizon = horizon;
    spec.runs = 2;
    spec.budget = Some(budget);
    spec
}

#[test]
fn the_last_query_may_overshoot_and_is_recorded() {
    // Duels at 2 and evaluations at 3 against a budget of 5: the third duel (spent 6) and the
    // second evaluation (spent 6) end the runs.
    let spec = uniform_spec(BudgetSpec { total: 5.0, duel: 2.0, evaluate: 3.0, label: 1.0 }, 25);
    let results = run_with_threads(&spec, 1);
    for r in results.runs() {
        let expected = if r.id.algorithm == 0 { 3 } else { 2 };
        assert_eq!(r.steps.len(), expected, "{}", r.label);
        assert_eq!(*spent_budget(r, &spec).unwrap().last().unwrap(), 6.0);
    }
    // The horizon stays a hard cap: a budget larger than T queries can spend.
    let spec = uniform_spec(BudgetSpec::new(1000.0), 7);
    assert!(run_with_threads(&spec, 1).runs().iter().all(|r| r.steps.len() == 7));
    // Free queries never end a run.
    let spec = uniform_spec(BudgetSpec { total: 1.0, duel: 0.0, evaluate: 0.0, label: 0.0 }, 6);
    assert!(run_with_threads(&spec, 1).runs().iter().all(|r| r.steps.len() == 6));
}

#[test]
fn a_budget_spent_up_to_rounding_ends_the_run() {
    // 3 × 0.3 = 0.8999999999999999 < 0.9 in binary: the run still stops after its third duel.
    let b = BudgetSpec { total: 0.9, duel: 0.3, evaluate: 0.3, label: 1.0 };
    let three = b.spent(&budget::QueryCounts { duels: 3, evaluations: 0, labels: 0 });
    assert!(three < 0.9 && b.is_spent(three), "{three}");
    let spec = uniform_spec(b, 25);
    assert!(run_with_threads(&spec, 1).runs().iter().all(|r| r.steps.len() == 3));
    let b = BudgetSpec::new(0.9);
    assert!(!b.is_spent(0.8999));
}

#[test]
fn without_a_budget_a_spec_has_no_budget_section_and_runs_to_the_horizon() {
    let spec = small_spec();
    assert!(spec.budget.is_none());
    assert!(!spec.to_toml_string().unwrap().contains("budget"));
    let r = run_with_threads(&spec, 1);
    assert!(r.runs().iter().all(|r| r.steps.len() == 25 && spent_budget(r, &spec).is_none()));
    // A spec with one round-trips through TOML.
    let with = uniform_spec(BudgetSpec { total: 4.5, duel: 0.5, evaluate: 2.0, label: 0.0 }, 9);
    let text = with.to_toml_string().unwrap();
    assert!(text.contains("[budget]"), "{text}");
    assert_eq!(ExperimentSpec::from_toml_str(&text).unwrap(), with);
}

#[test]
fn incomplete_or_overlong_runs_are_refused() {
    let spec = uniform_spec(BudgetSpec { total: 5.0, duel: 2.0, evaluate: 3.0, label: 1.0 }, 25);
    let results = run_with_threads(&spec, 1);
    let mut runs = results.runs().to_vec();
    // A run cut before its budget is spent.
    let mut cut = runs.clone();
    cut[0].steps.pop();
    let e = Results::new(spec.clone(), "t", cut).unwrap_err().to_string();
    assert!(e.contains("ends neither at T = 25 nor with its budget spent"), "{e}");
    // A run that goes on after its budget was spent.
    let extra = runs[0].steps[0].clone();
    let t = runs[0].steps.len() + 1;
    runs[0].steps.push(StepRecord { t, ..extra });
    let e = Results::new(spec.clone(), "t", runs.clone()).unwrap_err().to_string();
    assert!(e.contains("was spent at step 3"), "{e}");
    let e = Summary::from_runs(&spec, "t", &runs).unwrap_err().to_string();
    assert!(e.contains("was spent at step 3"), "{e}");
}

#[test]
fn resumed_and_sharded_budget_runs_equal_an_uninterrupted_run() {
    let spec = ExperimentSpec::from_toml_str(COBOL_BUDGET).unwrap();
    let experiment = Experiment::new(spec, &bohf_registry::builtin()).unwrap();
    let base = scratch_dir("budget-resume");
    let opts = |dir: &str, shard, resume| RunOptions {
        out: base.join(dir),
        threads: 1,
        shard,
        resume,
        checkpoint_every: None,
    };
    let Outcome::Complete(whole) = run_experiment(&experiment, &opts("whole", None, false), &Quiet).unwrap() else {
        panic!("not complete")
    };
    // The runs end at different steps (the number of labels varies), so lengths are really tested.
    let lengths: Vec<usize> = whole.runs().iter().map(|r| r.steps.len()).collect();
    assert!(lengths.iter().any(|&n| n != lengths[0]), "{lengths:?}");
    // Shard 0/2, then the rest by a resumed whole run: the finished budget runs are kept, not redone.
    let Outcome::ShardDone { .. } = run_experiment(&experiment, &opts("parts", Some((0, 2)), false), &Quiet).unwrap()
    else {
        panic!("a shard alone does not complete")
    };
    let Outcome::Complete(resumed) = run_experiment(&experiment, &opts("parts", None, true), &Quiet).unwrap() else {
        panic!("not complete")
    };
    assert_eq!(resumed.to_csv(Timing::Omit), whole.to_csv(Timing::Omit));
    // Both shards into one folder complete it identically too.
    let _ = run_experiment(&experiment, &opts("shards", Some((1, 2)), false), &Quiet).unwrap();
    let Outcome::Complete(sharded) = run_experiment(&experiment, &opts("shards", Some((0, 2)), false), &Quiet).unwrap()
    else {
        panic!("not complete")
    };
    assert_eq!(sharded.to_csv(Timing::Omit), whole.to_csv(Timing::Omit));
    std::fs::remove_dir_all(&base).unwrap();
}

/// A hand-made step: `kind` with simple regret `sr`, instantaneous regret `r`.
fn step(t: usize, kind: QueryKind, r: f64, cumulative: f64, sr: f64) -> StepRecord {
    StepRecord {
        t,
        query: kind,
        first: PointRecord::Candidate(0),
        second: matches!(kind, QueryKind::Duel | QueryKind::Choice).then_some(PointRecord::Candidate(1)),
        options: match kind {
            QueryKind::Choice => (0..3).map(PointRecord::Candidate).collect(),
            _ => Vec::new(),
        },
        answer: match kind {
            QueryKind::Duel => Answer::Duel { first_wins: true },
            QueryKind::Choice => Answer::Choice { index: 2 },
            QueryKind::Label => Answer::Label { accept: true },
            QueryKind::Evaluate => Answer::Value(0.0),
        },
        regret: r,
        cumulative_regret: cumulative,
        recommendation: PointRecord::Candidate(0),
        simple_regret: sr,
        utility_gap: bohf_experiments::UtilityGap::NOT_RECORDED,
        elapsed_s: t as f64,
        details: Vec::new(),
    }
}

#[test]
fn summary_of_runs_of_unequal_length_by_hand() {
    // Budget 2, evaluations cost 1, duels 0.5, T = 10. Run 0: E, E (2 steps). Run 1: D, D, E
    // (3 steps; spent 0.5, 1, 2).
    let mut spec = small_spec();
    spec.algorithms.truncate(1);
    spec.runs = 2;
    spec.horizon = 10;
    spec.budget = Some(BudgetSpec { total: 2.0, duel: 0.5, evaluate: 1.0, label: 1.0 });
    let id = |run| RunId { algorithm: 0, run };
    let label = spec.algorithms[0].label().to_string();
    let r0 = RunRecord {
        id: id(0),
        label: label.clone(),
        steps: vec![step(1, QueryKind::Evaluate, 1.0, 1.0, 0.4), step(2, QueryKind::Evaluate, 3.0, 4.0, 0.2)],
    };
    let r1 = RunRecord {
        id: id(1),
        label,
        steps: vec![
            step(1, QueryKind::Duel, 2.0, 2.0, 0.6),
            step(2, QueryKind::Duel, 0.0, 2.0, 0.5),
            step(3, QueryKind::Evaluate, 1.0, 3.0, 0.1),
        ],
    };
    assert_eq!(spent_budget(&r1, &spec).unwrap(), [0.5, 1.0, 2.0]);
    let s = Summary::from_runs(&spec, "t", &[r0, r1]).unwrap();
    let a = &s.algorithms[0];
    // Three steps (the longest run); run 0 holds its last value at step 3.
    // Simple regret: (0.4 + 0.6)/2, (0.2 + 0.5)/2, (0.2 + 0.1)/2; s.e. = |x − y|/2/√2 for two runs.
    let want = [0.5, 0.35, 0.15];
    let want_se = [0.1, 0.15, 0.05].map(|d: f64| d / 2f64.sqrt());
    for t in 0..3 {
        assert!((a.simple.mean[t] - want[t]).abs() < 1e-15, "t = {t}: {}", a.simple.mean[t]);
        assert!((a.simple.se[t] - want_se[t]).abs() < 1e-15, "t = {t}: {}", a.simple.se[t]);
    }
    assert_eq!(a.simple.mean.len(), 3);
    // Cumulative regret held: (4 + 3)/2 at step 3; instantaneous held: (3 + 1)/2.
    assert_eq!(a.cumulative.mean, [1.5, 3.0, 3.5]);
    assert_eq!(a.instantaneous.mean, [1.5, 1.5, 2.0]);
    // Final values: run 0's step 2 and run 1's step 3; wall time their last elapsed_s (2 and 3).
    assert_eq!(a.at_horizon.simple.mean, 0.15000000000000002);
    assert_eq!(a.at_horizon.cumulative.mean, 3.5);
    assert_eq!(a.at_horizon.wall_seconds.mean, 2.5);
}

#[test]
fn bad_budget_fields_name_the_field() {
    let base = small_spec();
    let check = |b: BudgetSpec, field: &str| {
        let mut spec = base.clone();
        spec.budget = Some(b);
        let e = spec.validate(&registry()).unwrap_err().to_string();
        assert!(e.contains(&format!("`{field}`")), "{field}: {e}");
    };
    let ok = BudgetSpec::new(10.0);
    for total in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        check(BudgetSpec { total, ..ok }, "budget.total");
    }
    for bad in [-0.5, f64::NAN, f64::INFINITY] {
        check(BudgetSpec { duel: bad, ..ok }, "budget.duel");
        check(BudgetSpec { evaluate: bad, ..ok }, "budget.evaluate");
        check(BudgetSpec { label: bad, ..ok }, "budget.label");
    }
    // An unknown key is named with the line and the section's keys.
    let text = "name = \"x\"\nhorizon = 5\nruns = 1\n[budget]\ntotal = 5\ncost = 1\n[problem]\nkind = \"ackley\"\n\
                [[algorithms]]\nname = \"random\"\n";
    let e = ExperimentSpec::from_toml_str(text).unwrap_err().to_string();
    assert!(e.contains("unknown field `cost`") && e.contains("`total`, `duel`, `evaluate`, `label`"), "{e}");
    let missing = "name = \"x\"\nhorizon = 5\nruns = 1\n[budget]\nlabel = 0\n[problem]\nkind = \"ackley\"\n\
                   [[algorithms]]\nname = \"random\"\n";
    let e = ExperimentSpec::from_toml_str(missing).unwrap_err().to_string();
    assert!(e.contains("total"), "{e}");
    // Defaults: every cost 1.
    let ok_text = "name = \"x\"\nhorizon = 5\nruns = 1\n[budget]\ntotal = 5\n[problem]\nkind = \"ackley\"\n\
                   [[algorithms]]\nname = \"random\"\n";
    assert_eq!(ExperimentSpec::from_toml_str(ok_text).unwrap().budget, Some(BudgetSpec::new(5.0)));
}

/// [`step`] with an evaluation answer `u` (for evaluations) and a COBOL `phase` detail.
fn fb_step(t: usize, kind: QueryKind, u: f64, sr: f64, phase: &str) -> StepRecord {
    let mut s = step(t, kind, 0.0, 0.0, sr);
    if kind == QueryKind::Evaluate {
        s.answer = Answer::Value(u);
    }
    s.details = vec![("phase".into(), phase.into())];
    s
}

#[test]
fn feedback_metrics_of_a_summary_by_hand() {
    // Ackley on its box: u = −A, whose optimum u* = 0 is known independently of the code.
    let text = "name = \"fb\"\nhorizon = 10\nruns = 2\n[budget]\ntotal = 2\nevaluate = 1\nlabel = 0\n\
                [problem]\nkind = \"function\"\nfunction = \"ackley\"\ndim = 2\ndomain = \"box\"\n\
                inputs = \"raw\"\nscaling = \"none\"\n[respondent]\nnoise_sd = 0.0\nexpert = { accuracy = 1.0, f_range = [0.0, 3.6] }\n\
                [[algorithms]]\nname = \"cobol\"\n";
    let spec = ExperimentSpec::from_toml_str(text).unwrap();
    use QueryKind::{Evaluate as E, Label as L};
    // Run 0: E(u = −3), L, E(−1): spent 1, 1, 2. Run 1: L (initial), E(−2), L, L, E(−4): spent 0, 1, 1, 1, 2.
    let r0 = RunRecord {
        id: RunId { algorithm: 0, run: 0 },
        label: "cobol".into(),
        steps: vec![
            fb_step(1, E, -3.0, 0.4, "initial-evaluation"),
            fb_step(2, L, 0.0, 0.3, "iteration"),
            fb_step(3, E, -1.0, 0.2, "iteration"),
        ],
    };
    let r1 = RunRecord {
        id: RunId { algorithm: 0, run: 1 },
        label: "cobol".into(),
        steps: vec![
            fb_step(1, L, 0.0, 0.5, "initial-label"),
            fb_step(2, E, -2.0, 0.5, "initial-evaluation"),
            fb_step(3, L, 0.0, 0.45, "iteration"),
            fb_step(4, L, 0.0, 0.4, "iteration"),
            fb_step(5, E, -4.0, 0.1, "iteration"),
        ],
    };
    let s = Summary::from_runs(&spec, "t", &[r0, r1]).unwrap();
    let f = s.algorithms[0].feedback.as_ref().expect("a spec with a budget has feedback metrics");
    assert_eq!(f.optimum, 0.0);
    // SR by evaluation: run 0 gaps 3, 1 → 3, 1; run 1 gaps 2, 4 → 2, 2.
    assert_eq!(f.simple_by_evaluations.mean, [2.5, 1.5]);
    // s.e. of two runs = |x − y|/2/√2.
    assert!(f.simple_by_evaluations.se.iter().all(|&se| (se - 0.5 / 2f64.sqrt()).abs() < 1e-15));
    // Σ SR: run 0 3, 4; run 1 2, 4.
    assert_eq!(f.cumulative_simple_by_evaluations.mean, [2.5, 4.0]);
    // Q^g per step (initial labels out): run 0 0, 1, 1 (held 1, 1); run 1 0, 0, 1, 2, 2.
    assert_eq!(f.expert_queries.mean, [0.0, 0.5, 1.0, 1.5, 1.5]);
    // Q^g at each evaluation: run 0 0, 1; run 1 0, 2.
    assert_eq!(f.expert_queries_by_evaluations.mean, [0.0, 1.5]);
    // Simple regret against spent budget 0, 1, 2: run 0 has not spent as little as 0 (left out);
    // at 1 run 0's step 2 (0.3) and run 1's step 4 (0.4); at 2 their last steps (0.2, 0.1).
    let b = f.simple_by_budget.as_ref().unwrap();
    assert_eq!(b.spent, [0.0, 1.0, 2.0]);
    assert_eq!(b.curve.mean[0], 0.5);
    assert!((b.curve.mean[1] - 0.35).abs() < 1e-15 && (b.curve.mean[2] - 0.15).abs() < 1e-15, "{:?}", b.curve);
    assert_eq!(b.curve.se[0], 0.0);
    // The JSON round-trips; a spec without labels or a budget has no feedback entry at all.
    let json = s.to_json().unwrap();
    assert_eq!(Summary::from_json(&json).unwrap(), s);
    let plain = run_with_threads(&small_spec(), 1).summary().unwrap();
    assert!(plain.algorithms.iter().all(|a| a.feedback.is_none()));
    assert!(!plain.to_json().unwrap().contains("feedback"));
    // A budget without labels: no expert-query curves in the JSON.
    let duels = run_with_threads(&uniform_spec(BudgetSpec::new(3.0), 10), 1).summary().unwrap();
    let f = duels.algorithms[0].feedback.as_ref().unwrap();
    assert!(f.expert_queries.is_empty() && f.simple_by_evaluations.is_empty() && f.simple_by_budget.is_some());
    let json = duels.to_json().unwrap();
    assert!(!json.contains("expert_queries") && json.contains("simple_by_budget"), "{json}");
}

#[test]
fn budget_runs_with_labels_write_the_feedback_plots() {
    let spec = ExperimentSpec::from_toml_str(COBOL_BUDGET).unwrap();
    let results = run_with_threads(&spec, 2);
    let dir = scratch_dir("budget-plots");
    let files = write_results(&results, &dir).unwrap();
    let names: Vec<String> =
        files.plots.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for which in FeedbackPlot::ALL {
        for ext in ["png", "svg"] {
            let name = format!("{}.{ext}", which.file_stem());
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
    }
    assert_eq!(files.plots.len(), 4 + 2 * FeedbackPlot::ALL.len());
    let svg = std::fs::read_to_string(dir.join("feedback_simple_by_budget.svg")).unwrap();
    assert!(svg.contains("spent budget") && svg.contains("cobol (3 runs)"), "axis or legend missing");
    // The plotted curve is the summary's: the budget axis runs over the spent budgets 1..=5 (COBOL
    // evaluates its 3 initial points first, so no step has spent 0).
    let summary = results.summary().unwrap();
    assert!(results.runs().iter().all(|r| r.steps[0].query == QueryKind::Evaluate));
    let panel = Panel::feedback(&summary, FeedbackPlot::SimpleByBudget).unwrap();
    assert_eq!(panel.series[0].x, [1.0, 2.0, 3.0, 4.0, 5.0]);
    let l = plot::panel_layout(&panel).unwrap();
    assert_eq!(l.x_range, (1.0, 5.0));
    assert_eq!(l.x_ticks, [1.0, 2.0, 3.0, 4.0, 5.0]);
    // Q^g against evaluations has one point per evaluation (5).
    let q = Panel::feedback(&summary, FeedbackPlot::ExpertQueriesByEvaluations).unwrap();
    assert_eq!(q.series[0].x, [1.0, 2.0, 3.0, 4.0, 5.0]);
    // A spec without labels or a budget gets no feedback panel.
    let plain = run_with_threads(&small_spec(), 1).summary().unwrap();
    assert!(FeedbackPlot::ALL.iter().all(|&w| Panel::feedback(&plain, w).is_none()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 33, item 12: `[budget] evaluate = 1e100` (total 5e100) writes its plots with a few ticks
/// on the budget axis (the tick loop allocated without bound).
#[test]
fn an_absurd_price_per_evaluation_still_plots() {
    let text = COBOL_BUDGET
        .replace("total = 5\nevaluate = 1", "total = 5e100\nevaluate = 1e100")
        .replace("runs = 3", "runs = 1");
    let spec = ExperimentSpec::from_toml_str(&text).unwrap();
    let results = run_with_threads(&spec, 1);
    let dir = scratch_dir("budget-1e100");
    write_results(&results, &dir).unwrap();
    let panel = Panel::feedback(&results.summary().unwrap(), FeedbackPlot::SimpleByBudget).unwrap();
    let l = plot::panel_layout(&panel).unwrap();
    assert!(!l.x_ticks.is_empty() && l.x_ticks.len() <= 11, "{:?}", l.x_ticks);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A duel of candidates `x` and `y` or an evaluation of `x` at step t.
fn at(t: usize, x: usize, y: Option<usize>) -> StepRecord {
    let mut s = step(t, if y.is_some() { QueryKind::Duel } else { QueryKind::Evaluate }, 0.0, 0.0, 0.0);
    s.first = PointRecord::Candidate(x);
    s.second = y.map(PointRecord::Candidate);
    s
}

#[test]
fn query_regrets_against_spent_budget_by_hand() {
    // Duels at 0.5, evaluations at 1, Λ = 2 on a 12-point RKHS problem.
    let text = "name = \"s\"\nhorizon = 10\nruns = 2\n[budget]\ntotal = 2\nduel = 0.5\nevaluate = 1\n\
                [problem]\nkind = \"rkhs\"\nkernel = \"se\"\npoints = 12\n[[algorithms]]\nname = \"comp-gp-ucb\"\n";
    let spec = ExperimentSpec::from_toml_str(text).unwrap();
    let problem = bohf_experiments::problem::PreparedProblem::build(&spec.problem, &spec.respondent).unwrap();
    let u = problem.utility().unwrap().values().to_vec();
    let best = u.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let g = |i: usize| best - u[i];
    // Run 0: D(3, 7), E(5), D(2, 9): spent 0.5, 1.5, 2. Run 1: E(1), E(4): spent 1, 2.
    let r0 = RunRecord {
        id: RunId { algorithm: 0, run: 0 },
        label: "comp-gp-ucb".into(),
        steps: vec![at(1, 3, Some(7)), at(2, 5, None), at(3, 2, Some(9))],
    };
    let r1 = RunRecord {
        id: RunId { algorithm: 0, run: 1 },
        label: "comp-gp-ucb".into(),
        steps: vec![at(1, 1, None), at(2, 4, None)],
    };
    // Per step, by eq. (1): a duel counts both points (S), R_c its first point, R_l evaluations.
    let q0 = feedback::query_regrets(&r0, problem.regret()).unwrap();
    let s01 = g(3).min(g(7));
    let s02 = s01.min(g(5));
    let s03 = s02.min(g(2)).min(g(9));
    assert_eq!(q0.simple, [Some(s01), Some(s02), Some(s03)]);
    assert_eq!(q0.comparisons, [Some(g(3)), Some(g(3)), Some(g(3).min(g(2)))]);
    assert_eq!(q0.evaluations, [None, Some(g(5)), Some(g(5))]);
    let (s11, s12) = (g(1), g(1).min(g(4)));
    let s = Summary::from_runs(&spec, "t", &[r0, r1]).unwrap();
    let f = s.algorithms[0].feedback.as_ref().unwrap();
    let mean = |a: f64, b: f64| 0.5 * (a + b);
    // S(Λ) at Λ = 0.5 (run 0 only), 1, 1.5, 2.
    let sq = f.query_simple_by_budget.as_ref().unwrap();
    assert_eq!(sq.spent, [0.5, 1.0, 1.5, 2.0]);
    let expected = [s01, mean(s01, s11), mean(s02, s11), mean(s03, s12)];
    for (got, want) in sq.curve.mean.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{:?} vs {expected:?}", sq.curve.mean);
    }
    // R_c: only run 0 duels; R_l starts at Λ = 1 (run 1's first evaluation).
    let rc = f.comparison_regret_by_budget.as_ref().unwrap();
    assert_eq!(rc.spent, [0.5, 1.0, 1.5, 2.0]);
    assert_eq!(rc.curve.mean, [g(3), g(3), g(3), g(3).min(g(2))]);
    let rl = f.label_regret_by_budget.as_ref().unwrap();
    assert_eq!(rl.spent, [1.0, 1.5, 2.0]);
    assert_eq!(rl.curve.mean[0], g(1));
    assert!((rl.curve.mean[2] - mean(g(5), s12)).abs() < 1e-12);
    // The JSON round-trips (no NaN: budgets where no run has a value are left out).
    assert_eq!(Summary::from_json(&s.to_json().unwrap()).unwrap(), s);
}

/// COMP-GP-UCB (fast fixed kernels) on a 12-point RKHS problem with a budget.
fn comp_spec(total: f64, duel: f64, name: &str) -> ExperimentSpec {
    let text = format!(
        "name = \"c\"\nhorizon = 400\nruns = 2\n[budget]\ntotal = {total}\nduel = {duel}\nevaluate = 1\n\
         [problem]\nkind = \"rkhs\"\nkernel = \"se\"\npoints = 12\n[[algorithms]]\nname = \"{name}\"\n\
         [algorithms.params]\n"
    );
    // Λ₀ = 2: COMP-GP-UCB's `initial.budget`, the baselines' `initial_budget`.
    let params = if name == "comp-gp-ucb" { "initial = { budget = 2.0 }\n" } else { "initial_budget = 2.0\n" };
    ExperimentSpec::from_toml_str(&(text + params)).unwrap()
}

#[test]
fn costs_stop_comp_gp_ucb_runs_at_the_budget_and_cheap_duels_buy_more() {
    for name in ["comp-gp-ucb", "mf-gp-ucb", "kss"] {
        let (cheap_spec, dear_spec) = (comp_spec(10.0, 0.1, name), comp_spec(10.0, 1.0, name));
        let cheap = run_with_threads(&cheap_spec, 1);
        let dear = run_with_threads(&dear_spec, 1);
        for (results, spec) in [(&cheap, &cheap_spec), (&dear, &dear_spec)] {
            for r in results.runs() {
                let spent = spent_budget(r, spec).unwrap();
                // The run ends at the first step whose spent budget reaches Λ = 10, before T = 400.
                assert!(*spent.last().unwrap() >= 10.0 - 1e-9, "{name}: {spent:?}");
                assert!(spent[..spent.len() - 1].iter().all(|&s| s < 10.0 - 1e-9), "{name}");
                assert!(r.steps.len() < 400);
            }
        }
        let duels = |rs: &Results| rs.runs().iter().map(|r| kinds(r).0).sum::<usize>();
        // At λ_c = 0.1 a duel costs a tenth: the runs ask more duels than at λ_c = 1 (up to 10×).
        assert!(duels(&cheap) > duels(&dear), "{name}: {} vs {}", duels(&cheap), duels(&dear));
        // The initial design: Λ₀ = 2 at λ_c = 0.1 buys 10 random duels (KSS: 20) before anything else.
        let first = &cheap.runs()[0];
        let initial = first.steps.iter().take_while(|s| s.detail("phase") == Some("initial")).count();
        let expected = match name {
            "kss" => 20,
            // Half on duels (10), half on values (⌊1/1⌋ = 1).
            _ => 11,
        };
        assert_eq!(initial, expected, "{name}");
        // The duels come first: 20 (KSS) or 10, then the mixed methods' one value.
        let initial_duels = first.steps[..initial].iter().filter(|s| s.query == QueryKind::Duel).count();
        assert_eq!(initial_duels, if name == "kss" { 20 } else { 10 }, "{name}");
    }
}

#[test]
fn bad_costs_name_the_budget_field_for_algorithms_that_need_them() {
    let mut spec = comp_spec(10.0, 0.1, "comp-gp-ucb");
    let field = |spec: &ExperimentSpec| spec.validate(&registry()).unwrap_err().field().map(str::to_string);
    spec.budget = Some(BudgetSpec { total: 10.0, duel: 0.0, evaluate: 1.0, label: 1.0 });
    assert_eq!(field(&spec).as_deref(), Some("budget.duel"));
    spec.budget = Some(BudgetSpec { total: 10.0, duel: 0.5, evaluate: 0.2, label: 1.0 });
    assert_eq!(field(&spec).as_deref(), Some("budget.evaluate"));
    spec.budget = Some(BudgetSpec { total: 0.0, duel: 0.1, evaluate: 1.0, label: 1.0 });
    assert_eq!(field(&spec).as_deref(), Some("budget.total"));
    // Algorithm 2 plans with Λ: without a budget the spec names `budget.total`.
    spec.budget = None;
    spec.algorithms[0].params = toml::from_str("unknown_zeta = { zeta0 = 0.1, zeta_max = 0.4 }").unwrap();
    assert_eq!(field(&spec).as_deref(), Some("budget.total"));
    // An algorithm that does not read costs accepts free duels.
    let mut other = small_spec();
    other.budget = Some(BudgetSpec { total: 10.0, duel: 0.0, evaluate: 1.0, label: 1.0 });
    other.validate(&registry()).unwrap();
    // GP-UCB's initial budget buys ⌊Λ₀/λ_l⌋ values: free values name `budget.evaluate`.
    let mut gp = comp_spec(10.0, 0.1, "gp-ucb");
    gp.validate(&registry()).unwrap();
    gp.budget = Some(BudgetSpec { total: 10.0, duel: 0.1, evaluate: 0.0, label: 1.0 });
    assert_eq!(field(&gp).as_deref(), Some("budget.evaluate"));
    gp.algorithms[0].params = toml::Table::new();
    gp.validate(&registry()).unwrap();
    for name in ["kss", "mf-gp-ucb"] {
        let mut spec = comp_spec(10.0, 0.1, name);
        spec.budget = Some(BudgetSpec { total: 10.0, duel: 0.0, evaluate: 1.0, label: 1.0 });
        assert_eq!(field(&spec).as_deref(), Some("budget.duel"), "{name}");
    }
}

#[test]
fn comp_gp_ucb_runs_on_a_box_under_a_budget_with_query_regrets() {
    let text = "name = \"cb\"\nhorizon = 200\nruns = 2\nseed = 2\n[budget]\ntotal = 4\nduel = 0.1\nevaluate = 1\n\
                [problem]\nkind = \"function\"\nfunction = \"branin\"\ndomain = \"box\"\nscaling = { multiply = 0.1 }\n\
                [[algorithms]]\nname = \"comp-gp-ucb\"\n[algorithms.params]\ninitial = { budget = 2.0 }\n\
                box_search = { design = 32, samples = 32, starts = 2 }\n";
    let spec = ExperimentSpec::from_toml_str(text).unwrap();
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    assert!(one.to_csv(Timing::Omit) == two.to_csv(Timing::Omit), "1 and 2 threads differ");
    for r in one.runs() {
        let spent = spent_budget(r, &spec).unwrap();
        assert!(*spent.last().unwrap() >= 4.0 - 1e-9 && r.steps.len() < 200);
        // Λ₀ = 2: 10 random duels and 1 random value first.
        assert_eq!(r.steps.iter().take_while(|s| s.detail("phase") == Some("initial")).count(), 11);
    }
    let f = one.summary().unwrap().algorithms[0].feedback.clone().unwrap();
    let s = f.query_simple_by_budget.unwrap();
    // S(Λ) never increases with the budget and is ≥ 0.
    assert!(s.curve.mean.windows(2).all(|w| w[1] <= w[0] + 1e-12) && s.curve.mean.iter().all(|&v| v >= 0.0));
    // The box mode's bad input: a `box_search` field is named.
    let bad = text.replace("starts = 2", "starts = 0");
    let e = ExperimentSpec::from_toml_str(&bad).unwrap().validate(&registry()).unwrap_err();
    assert_eq!(e.field(), Some("algorithms[0].params.box_search.starts"), "{e}");
}

/// GP-UCB on Fig. 1(a)'s problem (CurrinExp 20 × 20, values spanning ≈ 12.6, Λ = 100 at λ_l = 1)
/// with its default fixed kernel (Matérn-5/2 with variance 1, noise 1) and with the presets'
/// learned, standardised value GP ([`bohf_baselines::GpUcbConfig::hyperparameters`]). The unit-
/// variance kernel makes σ tiny beside the mean, so the rule re-evaluates one candidate; with the
/// scale following the values it explores until it settles at or near the grid's optimum
/// (S(100): the weak regret in f units over the 100 evaluated points, notes 002 eq. (1)).
#[test]
fn gp_ucb_with_a_learned_scale_explores_currin_exp_where_a_unit_variance_kernel_stalls() {
    let spec = |params: &str| {
        let text = format!(
            "name = \"gp-scale\"\nhorizon = 1001\nruns = 10\nseed = 2020\n[problem]\nkind = \"function\"\n\
             function = \"currin_exp\"\npoints_per_dim = 20\ninputs = \"raw\"\nscaling = \"none\"\n[respondent]\nnoise_sd = 0.0\n\
             [budget]\ntotal = 100.0\nduel = 0.1\nevaluate = 1.0\n[[algorithms]]\nname = \"gp-ucb\"\n\
             [algorithms.params]\ninitial_budget = 10.0\n{params}"
        );
        ExperimentSpec::from_toml_str(&text).unwrap()
    };
    let fixed = spec("");
    let learned =
        spec("noise = 1e-4\nkernel = { kind = \"se\", lengthscale = 0.2 }\nhyperparameters = { refit_every = 5 }\n");
    // (distinct candidates among the last 50 evaluations, S(100)) per run.
    let outcome = |spec: ExperimentSpec| -> Vec<(usize, f64)> {
        let e = Experiment::new(spec, &registry()).unwrap();
        let results = e.run().unwrap();
        results
            .runs()
            .iter()
            .map(|r| {
                assert_eq!(r.steps.len(), 100);
                let last: std::collections::BTreeSet<String> =
                    r.steps[50..].iter().map(|s| format!("{:?}", s.first)).collect();
                let s = feedback::query_regrets(r, e.problem().regret()).unwrap().simple.last().unwrap().unwrap();
                (last.len(), s)
            })
            .collect()
    };
    let old = outcome(fixed);
    let new = outcome(learned);
    let mean = |v: &[(usize, f64)]| v.iter().map(|x| x.1).sum::<f64>() / v.len() as f64;
    // The unit-variance kernel spends the last half of every run on one candidate, and its mean
    // S(100) misses the bound 0.1 (measured 0.98 for seed 2020).
    assert!(old.iter().all(|&(distinct, _)| distinct == 1), "{old:?}");
    assert!(mean(&old) > 0.1, "{old:?}");
    // The learned scale: mean S(100) below 0.1 (measured 0.032: 8 of 10 runs at the grid's
    // optimum, 2 at 0.16, a local maximum), and no run worse than 0.2.
    assert!(mean(&new) < 0.1 && new.iter().all(|&(_, s)| s < 0.2), "{new:?}");
}
