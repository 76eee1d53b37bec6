//! Tests of the runner: determinism across threads, shards, the recorded metrics, and `on_error`.

use crate::testing::*;
use crate::*;
use bohf_core::rand::Rng;
use bohf_core::{Answer, FiniteDomain, Optimizer, Point, Query};
use std::sync::Arc;

/// Asks a fixed list of queries (candidate pairs; `(i, None)` is an evaluation) and recommends a
/// fixed list of candidates.
struct Scripted {
    domain: FiniteDomain,
    queries: Vec<(usize, Option<usize>)>,
    recommendations: Vec<usize>,
    t: usize,
}

impl Optimizer for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    fn suggest(&mut self, _: &mut dyn Rng) -> bohf_core::Result<Query> {
        let (i, j) = self.queries[self.t];
        Ok(match j {
            Some(j) => Query::Duel(self.domain.point(i)?, self.domain.point(j)?),
            None => Query::Evaluate(self.domain.point(i)?),
        })
    }
    fn observe(&mut self, _: &Query, _: Answer) -> bohf_core::Result<()> {
        self.t += 1;
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        self.domain.point(self.recommendations[self.t - 1])
    }
}

fn scripted_registry(queries: Vec<(usize, Option<usize>)>, recommendations: Vec<usize>) -> Registry {
    let mut r = Registry::empty();
    let (q, rec) = (Arc::new(queries), Arc::new(recommendations));
    r.register(AlgorithmEntry::new(
        "scripted",
        "a fixed script (test)",
        |_, _| Ok(()),
        move |ctx, _| {
            Ok(Box::new(Scripted {
                domain: ctx.domain().clone(),
                queries: q.to_vec(),
                recommendations: rec.to_vec(),
                t: 0,
            }) as BoxedOptimizer)
        },
    ))
    .unwrap();
    r
}

#[test]
fn one_and_two_threads_give_identical_csv() {
    let mut spec = small_spec();
    // A third algorithm mixing duels and evaluations (the built-in algorithms are checked the same
    // way in bohf-registry's tests/builtin.rs).
    spec.algorithms.push(AlgorithmSpec::named("uniform-mixed"));
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    let csv1 = one.to_csv(Timing::Omit);
    assert_eq!(csv1, two.to_csv(Timing::Omit));
    assert_eq!(csv1.lines().count(), 1 + 3 * 4 * 25);
    // The streams differ between runs and seeds (the CSV is not trivially constant).
    let runs = one.runs();
    assert_ne!(runs[0].steps, runs[1].steps);
    spec.seed += 1;
    assert_ne!(run_with_threads(&spec, 2).to_csv(Timing::Omit), csv1);
    // A run on its own equals the same run inside the full experiment (what shards and resume use).
    spec.seed -= 1;
    let e = Experiment::new(spec, &registry()).unwrap();
    let id = RunId { algorithm: 2, run: 3 };
    let alone = e.run_one(id).unwrap();
    let inside = one.runs().iter().find(|r| r.id == id).unwrap();
    assert_eq!(alone.to_csv(Timing::Omit), inside.to_csv(Timing::Omit));
}

#[test]
fn shards_cover_every_task_once_and_merge_into_the_full_results() {
    let spec = small_spec();
    let e = Experiment::new(spec.clone(), &registry()).unwrap();
    let mut all: Vec<RunId> = (0..3).flat_map(|k| e.shard(k, 3).unwrap()).collect();
    all.sort();
    let mut tasks = e.tasks();
    tasks.sort();
    assert_eq!(all, tasks);
    assert!(e.shard(3, 3).is_err());
    // Two shards run separately (reporting finished runs through the callback), merged.
    let seen = std::sync::Mutex::new(Vec::new());
    let mut pieces = Vec::new();
    for k in 0..2 {
        let outcome = e.run_tasks(&e.shard(k, 2).unwrap(), &|r| seen.lock().unwrap().push(r.id), &|f| panic!("{f}"));
        assert!(outcome.failures.is_empty() && outcome.not_started.is_empty());
        pieces.extend(outcome.runs);
    }
    assert_eq!(seen.lock().unwrap().len(), 8);
    let merged = Results::new(spec.clone(), e.title(), pieces.clone()).unwrap();
    assert!(merged.to_csv(Timing::Omit) == e.run().unwrap().to_csv(Timing::Omit), "merged shards differ");
    // A missing or repeated run is refused.
    assert!(Results::new(spec.clone(), "", pieces[1..].to_vec()).is_err());
    let mut twice = pieces.clone();
    twice[0] = pieces[1].clone();
    assert!(Results::new(spec.clone(), "", twice).is_err());
    let mut extra = pieces.clone();
    extra.push(RunRecord { id: RunId { algorithm: 2, run: 0 }, ..pieces[0].clone() });
    assert!(Results::new(spec, "", extra).is_err());
}

#[test]
fn metrics_on_a_hand_computable_script() {
    // Utility 5·f on 3 points of [0, 1]: use a deterministic respondent, so every answer and regret
    // follows from the order of the utilities alone.
    let spec_text = r#"
        name = "script"
        horizon = 4
        runs = 2
        [problem]
        kind = "rkhs"
        kernel = "se"
        points = 3
        [respondent]
        model = "deterministic"
        [[algorithms]]
        name = "scripted"
    "#;
    let spec = ExperimentSpec::from_toml_str(spec_text).unwrap();
    let u = bohf_problems::presets::rkhs_grid(bohf_kernels::KernelKind::Se, 3, &bohf_problems::Scaling::Multiply(5.0))
        .unwrap();
    let mut order: Vec<usize> = (0..3).collect();
    order.sort_by(|&a, &b| u.values()[b].partial_cmp(&u.values()[a]).unwrap());
    let (best, mid, worst) = (order[0], order[1], order[2]);
    assert!(u.values()[best] > u.values()[mid] && u.values()[mid] > u.values()[worst]);
    // Queries: (best, best), (mid, worst), (worst, best), evaluate(mid); recommendations.
    let queries = vec![(best, Some(best)), (mid, Some(worst)), (worst, Some(best)), (mid, None)];
    let recs = vec![worst, mid, best, best];
    let reg = scripted_registry(queries, recs.clone());
    let r = Experiment::new(spec, &reg).unwrap().run().unwrap();
    // Deterministic P(x* ≻ x): ½ for x*, 1 otherwise, so the gaps are 0 for x*, ½ otherwise.
    let want_r = [0.0, 0.5, 0.25, 0.5];
    let want_cum = [0.0, 0.5, 0.75, 1.25];
    let want_simple = [0.5, 0.5, 0.0, 0.0];
    for run in r.runs() {
        for (k, s) in run.steps.iter().enumerate() {
            assert_eq!(s.t, k + 1);
            assert_eq!(s.regret, want_r[k], "step {}", k + 1);
            assert_eq!(s.cumulative_regret, want_cum[k]);
            assert_eq!(s.simple_regret, want_simple[k]);
            assert_eq!(s.recommendation, PointRecord::Candidate(recs[k]));
            assert!(s.elapsed_s >= 0.0);
        }
        // Duel answers: (mid, worst) → first wins; (worst, best) → second wins.
        assert_eq!(run.steps[1].answer, Answer::Duel { first_wins: true });
        assert_eq!(run.steps[2].answer, Answer::Duel { first_wins: false });
        assert_eq!(run.steps[3].query, QueryKind::Evaluate);
        assert_eq!(run.steps[3].second, None);
        assert!(matches!(run.steps[3].answer, Answer::Value(_)));
    }
    // Summary: identical regrets in both runs, so s.e. 0; wall time mean over the two runs.
    let s = r.summary().unwrap();
    let a = &s.algorithms[0];
    assert_eq!(a.instantaneous.mean, want_r);
    assert_eq!(a.cumulative.mean, want_cum);
    assert!(a.cumulative.se.iter().all(|&x| x == 0.0));
    assert_eq!(a.at_horizon.cumulative, MeanSe { mean: 1.25, se: 0.0 });

    // With a BTL respondent (logistic, scale 1) the regret of (mid, worst) is
    // (σ(u* − u_mid) + σ(u* − u_worst) − 1)/2, computed here by hand.
    let spec = ExperimentSpec::from_toml_str(&spec_text.replace("model = \"deterministic\"", "model = \"stochastic\""))
        .unwrap();
    let reg = scripted_registry(
        vec![(mid, Some(worst)), (best, None), (mid, None), (best, Some(best))],
        vec![mid, best, worst, best],
    );
    let r = Experiment::new(spec, &reg).unwrap().run().unwrap();
    let sig = |t: f64| 1.0 / (1.0 + (-t).exp());
    let v = u.values();
    let g = |i: usize| sig(v[best] - v[i]) - 0.5;
    let want = [0.5 * (g(mid) + g(worst)), 0.0, g(mid), 0.0];
    let steps = &r.runs()[0].steps;
    let mut cum = 0.0;
    for (k, s) in steps.iter().enumerate() {
        cum += want[k];
        // One exp and a few additions on values of order 1: 1e−15 relative.
        assert!((s.regret - want[k]).abs() < 1e-15, "step {}: {} vs {}", k + 1, s.regret, want[k]);
        assert!((s.cumulative_regret - cum).abs() < 1e-15);
    }
    assert!((steps[0].simple_regret - g(mid)).abs() < 1e-15);
    assert!((steps[2].simple_regret - g(worst)).abs() < 1e-15);
}

#[test]
fn utility_gaps_of_a_scripted_run_by_hand_in_steps_csv_and_the_summary() {
    // The rkhs problem's utility on 3 points is f, scaled ×5 by its default `scaling`; the
    // respondent's scale s = 2 multiplies what it answers on, 10·f. Neither touches the gaps, which
    // are in f's own units.
    let spec_text = "name = \"gaps\"\nhorizon = 3\nruns = 1\n[problem]\nkind = \"rkhs\"\nkernel = \"se\"\npoints = 3\n\
                     [respondent]\nscale = 2.0\n[[algorithms]]\nname = \"scripted\"\n";
    let spec = ExperimentSpec::from_toml_str(spec_text).unwrap();
    let u = bohf_problems::presets::rkhs_grid(bohf_kernels::KernelKind::Se, 3, &bohf_problems::Scaling::None).unwrap();
    let v = u.values();
    let best = (0..3).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
    let gap = |i: usize| v[best] - v[i];
    // Duel (0, 1), evaluate 2, duel (best, best); recommendations 0, 1, best.
    let reg = scripted_registry(vec![(0, Some(1)), (2, None), (best, Some(best))], vec![0, 1, best]);
    let r = Experiment::new(spec, &reg).unwrap().run().unwrap();
    let g = [(2.0 * v[best] - v[0] - v[1]) / 2.0, gap(2), 0.0];
    let simple = [gap(0), gap(1), 0.0];
    let steps = &r.runs()[0].steps;
    let mut cum = 0.0;
    for (k, s) in steps.iter().enumerate() {
        cum += g[k];
        let tol = 1e-14 * (1.0 + v[best].abs());
        assert!((s.utility_gap.instantaneous - g[k]).abs() < tol, "step {}: {:?} vs {}", k + 1, s.utility_gap, g[k]);
        assert!((s.utility_gap.cumulative - cum).abs() < tol);
        assert!((s.utility_gap.simple - simple[k]).abs() < tol);
    }
    // The preference regret is on the respondent's scale: P(x* ≻ x_0) = σ(2·5·gap(0)).
    let sig = |t: f64| 1.0 / (1.0 + (-t).exp());
    assert!((steps[0].simple_regret - (sig(10.0 * gap(0)) - 0.5)).abs() < 1e-14);
    // steps.csv: the three columns after simple_regret, and the CSV reads back to the same gaps.
    let csv = r.to_csv(Timing::Omit);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(header[10..], ["simple_regret", "utility_gap", "cumulative_utility_gap", "simple_utility_gap"]);
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[11].parse::<f64>().unwrap(), steps[0].utility_gap.instantaneous);
    assert_eq!(row[13].parse::<f64>().unwrap(), steps[0].utility_gap.simple);
    let back = Results::from_csv(r.spec().clone(), r.title(), &csv).unwrap();
    assert_eq!(back.runs()[0].steps[2].utility_gap, steps[2].utility_gap);
    // The summary (one run): the gaps at the horizon and the curves.
    let s = r.summary().unwrap();
    let a = s.algorithms[0].utility_gap.as_ref().unwrap();
    assert_eq!(a.simple_at_horizon, MeanSe { mean: 0.0, se: 0.0 });
    assert_eq!(a.cumulative_at_horizon.mean, steps[2].utility_gap.cumulative);
    assert_eq!(a.simple.mean, steps.iter().map(|s| s.utility_gap.simple).collect::<Vec<_>>());
    assert!(s.markdown_table().contains("utility gap u(x*) − u(x̂_T)"));
}

#[test]
fn an_old_steps_csv_without_the_gap_columns_loads_and_gets_them_from_its_points() {
    let spec = small_spec();
    let r = run_with_threads(&spec, 1);
    // The CSV as bohf wrote it before the utility gaps: the three columns removed.
    let csv = r.to_csv(Timing::Include);
    let old: String = csv
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            // The label of the second algorithm holds a quoted comma: count from the end.
            let n = f.len();
            [&f[..n - 4], &f[n - 1..]].concat().join(",") + "\n"
        })
        .collect();
    assert!(old.starts_with(
        "algorithm,run,t,query,first,second,answer,regret,cumulative_regret,recommendation,simple_regret,elapsed_s\n"
    ));
    let back = Results::from_csv(spec.clone(), r.title(), &old).unwrap();
    let steps = &back.runs()[0].steps;
    assert!(steps.iter().all(|s| !s.utility_gap.is_recorded()));
    assert_eq!(steps[0].simple_regret, r.runs()[0].steps[0].simple_regret);
    // Its summary has no gaps; written again, the gap fields are empty.
    assert!(back.summary().unwrap().algorithms.iter().all(|a| a.utility_gap.is_none()));
    assert!(back.to_csv(Timing::Omit).lines().nth(1).unwrap().ends_with(",,,"));
    // Filled from the points, they equal what the runner records.
    let e = Experiment::new(spec, &registry()).unwrap();
    let mut filled = back.runs().to_vec();
    for run in &mut filled {
        assert!(e.problem().regret().fill_utility_gaps(run).unwrap());
    }
    for (a, b) in filled.iter().zip(r.runs()) {
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert_eq!(x.utility_gap, y.utility_gap);
        }
    }
}

fn flaky_spec(on_error: &str, runs: usize) -> ExperimentSpec {
    let text = format!(
        "name = \"flaky\"\nhorizon = 10\nruns = {runs}\nseed = 3\non_error = \"{on_error}\"\n[problem]\nkind = \"rkhs\"\n\
         points = 8\n[[algorithms]]\nname = \"uniform\"\n[[algorithms]]\nname = \"flaky\"\n\
         params = {{ fail_at = 4, probability = 0.5 }}\n"
    );
    ExperimentSpec::from_toml_str(&text).unwrap()
}

fn run_on(threads: usize, e: &Experiment) -> Result<Results> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| e.run())
}

#[test]
fn on_error_continue_records_failures_and_keeps_every_other_run() {
    let reg = registry();
    let spec = flaky_spec("continue", 16);
    assert_eq!(spec.on_error, OnError::Continue);
    let e = Experiment::new(spec.clone(), &reg).unwrap();
    let r = run_on(2, &e).unwrap();
    let failures = r.failures();
    // P(all 16 succeed or all fail) = 2·2⁻¹⁶: with this seed some fail and some finish (checked, not assumed).
    assert!(!failures.is_empty() && failures.len() < 16, "{} failures", failures.len());
    for f in failures {
        assert_eq!((f.id.algorithm, f.label.as_str(), f.step), (1, "flaky", 4));
        // The record keeps the error's full text (a .failed file is read by people).
        assert_eq!(f.error, flaky_error().to_string());
    }
    // Every run of the spec is either finished (T steps) or failed, once.
    assert_eq!(r.runs().len() + failures.len(), 32);
    assert!(r.runs().iter().all(|x| x.steps.len() == 10));
    // A failed run is the same failure when run alone, and a finished run the same record: results
    // do not depend on which runs failed beside them, nor on the thread count.
    let alone = e.run_one(failures[0].id).unwrap_err();
    assert!(alone.to_string().contains("step 4"), "{alone}");
    let one_thread = run_on(1, &e).unwrap();
    assert_eq!(one_thread.failures(), failures);
    assert!(one_thread.to_csv(Timing::Omit) == r.to_csv(Timing::Omit));
    // The summary is over the finished runs and lists the failures.
    let s = r.summary().unwrap();
    assert_eq!(s.algorithms[0].runs, 16);
    assert_eq!(s.algorithms[1].runs, 16 - failures.len());
    assert_eq!(s.failures, failures);
    assert!(s.markdown_table().contains("failed"));
    let back = Summary::from_json(&s.to_json().unwrap()).unwrap();
    assert_eq!(back.failures, failures);
    // Results::with_failures refuses a run that is both finished and failed, or missing.
    let mut dup = failures.to_vec();
    dup.push(FailedRun { id: r.runs()[0].id, label: "uniform".into(), step: 1, error: "x".into() });
    assert!(Results::with_failures(spec.clone(), "", r.runs().to_vec(), dup).is_err());
    assert!(Results::with_failures(spec.clone(), "", r.runs()[1..].to_vec(), failures.to_vec()).is_err());
    assert!(Results::new(spec, "", r.runs().to_vec()).is_err(), "failed runs are missing from `new`");
}

#[test]
fn on_error_stop_ends_with_the_failure_and_keeps_finished_runs() {
    let reg = registry();
    let spec = flaky_spec("stop", 16);
    let e = Experiment::new(spec, &reg).unwrap();
    let handed = std::sync::Mutex::new(Vec::new());
    let outcome = e.run_tasks(&e.tasks(), &|r| handed.lock().unwrap().push(r.id), &|_| {});
    assert!(!outcome.failures.is_empty());
    // Every task is accounted for once; each finished run was handed out as it finished.
    assert_eq!(outcome.runs.len() + outcome.failures.len() + outcome.not_started.len(), 32);
    let mut handed = handed.into_inner().unwrap();
    handed.sort();
    let mut finished: Vec<RunId> = outcome.runs.iter().map(|r| r.id).collect();
    finished.sort();
    assert_eq!(handed, finished);
    let n_finished = outcome.runs.len();
    match e.gather(outcome).unwrap_err() {
        ExperimentError::Stopped { failure, finished, not_started } => {
            assert_eq!(finished.len(), n_finished);
            assert!(finished.windows(2).all(|w| w[0].id < w[1].id));
            assert_eq!(failure.step, 4);
            let msg = ExperimentError::Stopped { failure, finished, not_started }.to_string();
            assert!(msg.contains("algorithm `flaky`") && msg.contains("on_error") && msg.contains("kept"), "{msg}");
        }
        other => panic!("expected Stopped, got {other}"),
    }
    // The default is "stop", and is not written to TOML.
    let default = ExperimentSpec::from_toml_str(SMALL).unwrap();
    assert_eq!(default.on_error, OnError::Stop);
    assert!(!default.to_toml_string().unwrap().contains("on_error"));
    assert!(flaky_spec("continue", 2).to_toml_string().unwrap().contains("on_error = \"continue\""));
    let bad =
        ExperimentSpec::from_toml_str(&SMALL.replace("seed = 11", "seed = 11\non_error = \"retry\"")).unwrap_err();
    assert!(bad.to_string().contains("on_error") || bad.to_string().contains("retry"), "{bad}");
}

/// A best-of-k choice runs through the runner: its k options and the chosen index are recorded,
/// its regret is the mean of the options' gaps, and its CSV reads back to the same run (resume).
#[test]
fn best_of_k_choices_are_recorded_and_read_back() {
    let text = r#"
name = "choices"
horizon = 12
runs = 2
seed = 3
algorithms = [{ name = "uniform-choice" }]
[problem]
kind = "rkhs"
kernel = "se"
points = 12
[respondent]
model = "stochastic"
link = "logistic"
scale = 1.0
"#;
    let spec = ExperimentSpec::from_toml_str(text).unwrap();
    let one = run_with_threads(&spec, 1);
    let csv = one.to_csv(Timing::Omit);
    assert_eq!(csv, run_with_threads(&spec, 2).to_csv(Timing::Omit));
    let e = Experiment::new(spec.clone(), &registry()).unwrap();
    let u = e.problem().utility().unwrap().values().to_vec();
    let best = u.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sigmoid = |t: f64| 1.0 / (1.0 + (-t).exp());
    let mut chosen = [0usize; 3];
    for run in one.runs() {
        let mut cumulative = 0.0;
        for s in &run.steps {
            assert_eq!(s.query, QueryKind::Choice);
            let idx: Vec<usize> = s.options.iter().map(|o| o.index().unwrap()).collect();
            assert_eq!(idx.len(), 3);
            assert!(idx[0] != idx[1] && idx[0] != idx[2] && idx[1] != idx[2], "{idx:?}");
            assert_eq!((Some(&s.first), s.second.as_ref()), (s.options.first(), s.options.get(1)));
            let Answer::Choice { index } = s.answer else { panic!("not a choice answer: {:?}", s.answer) };
            chosen[index] += 1;
            // Written out: the mean over the options of σ(u* − u_i) − ½ (respondent scale 1).
            let want = idx.iter().map(|&i| sigmoid(best - u[i]) - 0.5).sum::<f64>() / 3.0;
            assert!((s.regret - want).abs() < 1e-15, "{} vs {want}", s.regret);
            cumulative += s.regret;
            assert!((s.cumulative_regret - cumulative).abs() < 1e-12);
        }
    }
    // Every position gets chosen sometimes (24 answers; the options are uniform, so P(miss) is tiny).
    assert!(chosen.iter().all(|&c| c > 0), "{chosen:?}");
    // The CSV form: `choice`, the first option, the other two joined by `|`, the index.
    let row = csv.lines().nth(1).unwrap();
    let fields: Vec<&str> = row.split(',').collect();
    assert_eq!(fields[3], "choice", "{row}");
    assert_eq!(fields[5].split('|').count(), 2, "{row}");
    let back = Results::from_csv(spec.clone(), one.title(), &csv).unwrap();
    assert_eq!(back.to_csv(Timing::Omit), csv);
    for (a, b) in back.runs().iter().zip(one.runs()) {
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert_eq!(StepRecord { elapsed_s: y.elapsed_s, ..x.clone() }, *y);
        }
    }
    // A malformed choice row names the line: an index beyond the options, an unreadable option.
    let mut bad_row = fields.clone();
    bad_row[6] = "3";
    let bad_index = csv.replacen(row, &bad_row.join(","), 1);
    let err = Results::from_csv(spec.clone(), "", &bad_index).unwrap_err().to_string();
    assert!(err.contains("line 2") && err.contains("3 options"), "{err}");
    let second = format!("{}|x", fields[5]);
    bad_row[5] = &second;
    bad_row[6] = fields[6];
    let bad_option = csv.replacen(row, &bad_row.join(","), 1);
    let err = Results::from_csv(spec, "", &bad_option).unwrap_err().to_string();
    assert!(err.contains("line 2") && err.contains("joined by `|`"), "{err}");
}

/// On a box, a choice's options are written as coordinates and read back bit for bit.
#[test]
fn best_of_k_choices_on_a_box_read_back() {
    let text = "name = \"box-choices\"\nhorizon = 4\nruns = 1\nalgorithms = [{ name = \"uniform-box-choice\" }]\n\
                [problem]\nkind = \"function\"\nfunction = \"branin\"\ndomain = \"box\"\n";
    let spec = ExperimentSpec::from_toml_str(text).unwrap();
    let r = run_with_threads(&spec, 1);
    let csv = r.to_csv(Timing::Include);
    let back = Results::from_csv(spec, r.title(), &csv).unwrap();
    assert!(back == r, "the box choice CSV did not read back");
    assert!(r.runs()[0].steps.iter().all(|s| s.options.len() == 3 && s.options[2].coords().unwrap().len() == 2));
}

#[test]
fn run_files_written_before_the_utility_gaps_get_them_when_the_folder_is_collected() {
    use crate::folder::{Outcome, Quiet, RunOptions, run_experiment};
    let text =
        "name = \"x\"\nhorizon = 4\nruns = 2\n[problem]\nkind = \"ackley\"\n[[algorithms]]\nname = \"uniform\"\n";
    let experiment = Experiment::new(ExperimentSpec::from_toml_str(text).unwrap(), &registry()).unwrap();
    let out = scratch_dir("old-run-files");
    let opts = |resume| RunOptions { out: out.clone(), threads: 1, shard: None, resume, checkpoint_every: None };
    let Outcome::Complete(first) = run_experiment(&experiment, &opts(false), &crate::folder::Quiet).unwrap() else {
        panic!("not complete")
    };
    // Each run file as an older bohf wrote it: no gap columns, its own checksum line.
    for entry in std::fs::read_dir(out.join("runs")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let body = crate::checksum::strip_checksum_line(&text).unwrap();
        let old: String = body
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                [&f[..11], &f[14..]].concat().join(",") + "\n"
            })
            .collect();
        assert!(old.starts_with("algorithm,run,t,query,first,second,answer,regret,cumulative_regret,recommendation,simple_regret,elapsed_s\n"));
        std::fs::write(&path, crate::checksum::with_checksum_line(&old)).unwrap();
    }
    // Resumed: the old files are reused (nothing runs again) and the gaps computed from their points.
    let Outcome::Complete(again) = run_experiment(&experiment, &opts(true), &Quiet).unwrap() else {
        panic!("not complete")
    };
    assert_eq!(again.runs().len(), 2);
    for (a, b) in again.runs().iter().zip(first.runs()) {
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert!(x.utility_gap.is_recorded());
            assert_eq!(x.utility_gap, y.utility_gap);
        }
    }
    assert!(std::fs::read_to_string(out.join("runs/a0-r0.csv")).unwrap().contains(",simple_regret,elapsed_s\n"));
    let summary = again.summary().unwrap();
    assert_eq!(summary.algorithms[0].utility_gap, first.summary().unwrap().algorithms[0].utility_gap);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn entries_with_one_stream_share_their_randomness_and_a_bad_stream_is_named() {
    // Three copies of one stochastic algorithm: the second draws entry 0's streams, the third its own.
    let mut spec = small_spec();
    spec.algorithms.truncate(1);
    for (label, stream) in [("copy", Some(0)), ("own", None)] {
        let mut a = spec.algorithms[0].clone();
        (a.label, a.stream) = (Some(label.into()), stream);
        spec.algorithms.push(a);
    }
    let results = run_with_threads(&spec, 2);
    let steps = |a: usize, r: usize| {
        let run = results.runs().iter().find(|x| x.id == RunId { algorithm: a, run: r }).unwrap();
        run.steps.iter().map(|s| StepRecord { elapsed_s: 0.0, ..s.clone() }).collect::<Vec<_>>()
    };
    for r in 0..spec.runs {
        assert_eq!(steps(0, r), steps(1, r), "run {r}: the entry with stream = 0 differs from entry 0");
        assert_ne!(steps(0, r), steps(2, r), "run {r}: an entry with its own stream equals entry 0");
    }
    // The field survives the spec file (what `spec.toml` records and a resume reads).
    let text = spec.to_toml_string().unwrap();
    assert!(text.contains("stream = 0"), "{text}");
    assert_eq!(ExperimentSpec::from_toml_str(&text).unwrap(), spec);
    spec.algorithms[2].stream = Some(3);
    let Err(err) = Experiment::new(spec, &registry()) else { panic!("stream 3 of 3 entries accepted") };
    let err = err.to_string();
    assert!(err.contains("algorithms[2].stream") && err.contains("3 is not the index"), "{err}");
}

/// A query of a kind the entry does not declare fails the run, naming the kind and the
/// declaration; declared (by `asks` or `may_ask`) or undeclared (an entry that says nothing), it runs.
#[test]
fn a_query_of_an_undeclared_kind_fails_the_run() {
    let mut spec = small_spec();
    spec.algorithms = vec![AlgorithmSpec::named("uniform-mixed")];
    spec.runs = 1;
    let mixed = registry().get("uniform-mixed").unwrap().clone();
    let with = |entry: AlgorithmEntry| {
        let mut r = Registry::empty();
        r.register(entry).unwrap();
        Experiment::new(spec.clone(), &r).unwrap().run_one(RunId { algorithm: 0, run: 0 })
    };
    let e = with(mixed.clone().asks(&[QueryKind::Duel])).unwrap_err().to_string();
    assert!(e.contains("`uniform-mixed` asked a query of kind `evaluate`") && e.contains("(it asks duel)"), "{e}");
    for entry in [mixed.clone(), mixed.clone().asks(&[QueryKind::Duel]).may_ask(&[QueryKind::Evaluate])] {
        assert_eq!(with(entry).unwrap().steps.len(), spec.horizon);
    }
}
