//! Checkpoints through the runner: a run continued from any of its checkpoints records exactly
//! what the uninterrupted run records; algorithms that save no state are never checkpointed.

use bohf_experiments::checkpoint::{Checkpoint, Checkpointing};
mod support;

use bohf_experiments::*;
use std::sync::Mutex;
use std::time::Duration;
use support::*;

/// COBOL on a 2-D box with an expert who rejects most points (many labels and doubling tests),
/// under a budget of evaluations, as the Experiment B presets run.
const COBOL_BOX: &str = r#"
name = "cobol-box"
seed = 9
horizon = 60
runs = 1

[problem]
kind = "function"
function = "rosenbrock"
dim = 2
domain = "box"
lower = [-2.0, -2.0]
upper = [2.0, 2.0]
inputs = "raw"
scaling = "none"               # the expert's f_range is in Rosenbrock's own units

[respondent]
noise_sd = 0.0
expert = { accuracy = 2.0, f_range = [0.0, 40.0] }

[budget]
total = 14
evaluate = 1
label = 0

[[algorithms]]
name = "cobol"
[algorithms.params]
initial_labels = 6
g_thr = 0.05
doubling_every = 3
"#;

/// Runs `id` with a checkpoint after every step, returning the record and the checkpoints.
fn with_every_checkpoint(e: &Experiment, id: RunId) -> (RunRecord, Vec<Checkpoint>) {
    let saved = Mutex::new(Vec::new());
    let save = |c: &Checkpoint| saved.lock().unwrap().push(c.clone());
    let fail = |_: RunId, why: &str| panic!("{why}");
    let c = Checkpointing { every: Duration::ZERO, load: &|_| None, save: &save, reject: &fail, warn: &fail };
    let record = e.run_one_checkpointed(id, Some(&c)).unwrap();
    (record, saved.into_inner().unwrap())
}

fn resumed_from(e: &Experiment, id: RunId, from: &Checkpoint) -> RunRecord {
    let text = from.to_text();
    let load = |i: RunId| Some(Checkpoint::from_text(&text, i, &from.label).unwrap());
    let fail = |_: RunId, why: &str| panic!("{why}");
    let c = Checkpointing { every: Duration::from_secs(3600), load: &load, save: &|_| {}, reject: &fail, warn: &fail };
    e.run_one_checkpointed(id, Some(&c)).unwrap()
}

/// The record with its `elapsed_s` column zeroed, printed to the last bit.
fn without_timing(r: &RunRecord) -> String {
    let mut r = r.clone();
    r.steps.iter_mut().for_each(|s| s.elapsed_s = 0.0);
    format!("{r:?}")
}

#[test]
fn a_run_continued_from_any_checkpoint_records_what_the_uninterrupted_run_records() {
    let e = Experiment::new(ExperimentSpec::from_toml_str(COBOL_BOX).unwrap(), &registry()).unwrap();
    let id = RunId { algorithm: 0, run: 0 };
    let alone = e.run_one(id).unwrap();
    let (checkpointed, saved) = with_every_checkpoint(&e, id);
    let expected = without_timing(&alone);
    assert_eq!(without_timing(&checkpointed), expected, "checkpointing changed the run");
    let labels = alone.steps.iter().filter(|s| s.query == QueryKind::Label).count();
    let iteration_labels = alone.steps.iter().filter(|s| s.detail("phase") == Some("iteration")).count();
    assert!(labels >= 10 && iteration_labels >= 4, "{labels} labels, {iteration_labels} iteration steps");
    // One checkpoint after every step but the last.
    assert_eq!(saved.len(), alone.steps.len() - 1);
    for (k, c) in saved.iter().enumerate() {
        assert_eq!(c.steps.len(), k + 1);
        let resumed = resumed_from(&e, id, c);
        assert_eq!(without_timing(&resumed), expected, "continued after step {}", k + 1);
        // The recorded time goes on from the checkpoint's.
        assert!(resumed.steps[k + 1].elapsed_s >= c.steps[k].elapsed_s);
    }
}

/// COBOL with the work bound on the x^c search (`search = { programs = 2 }`, binding in most
/// steps of this rejecting expert's run): the same records on 1 and 2 threads, and a run continued
/// from any of its checkpoints records what the uninterrupted run records; every iteration that
/// computed x^c records its gap, and the bound binds.
#[test]
fn the_work_bound_is_deterministic_across_threads_and_checkpoints() {
    let text = COBOL_BOX
        .replace("runs = 1", "runs = 2")
        .replace("doubling_every = 3", "doubling_every = 3\nsearch = { programs = 2 }");
    let spec = ExperimentSpec::from_toml_str(&text).unwrap();
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    assert!(one.to_csv(Timing::Omit) == two.to_csv(Timing::Omit), "1 and 2 threads differ");
    let steps: Vec<&StepRecord> = one.runs().iter().flat_map(|r| &r.steps).collect();
    let gaps = steps.iter().filter(|s| s.detail("gap").is_some()).count();
    let bound = steps.iter().filter(|s| s.detail("solved") == Some("2")).count();
    assert!(gaps >= 4 && bound >= 2, "{gaps} steps with a gap, {bound} at the bound");
    let e = Experiment::new(spec, &registry()).unwrap();
    let id = RunId { algorithm: 0, run: 1 };
    let expected = without_timing(&e.run_one(id).unwrap());
    let (checkpointed, saved) = with_every_checkpoint(&e, id);
    assert_eq!(without_timing(&checkpointed), expected, "checkpointing changed the run");
    for (k, c) in saved.iter().enumerate().step_by(3) {
        assert_eq!(without_timing(&resumed_from(&e, id, c)), expected, "continued after step {}", k + 1);
    }
}

/// COBOL with the code-like local x^c search (`search = { local = … }`): the same records on 1 and
/// 2 threads, and a run continued from its checkpoints records what the uninterrupted run records;
/// every iteration that computed x^c records `search=local` and no gap.
#[test]
fn the_local_search_is_deterministic_across_threads_and_checkpoints() {
    let text = COBOL_BOX
        .replace("runs = 1", "runs = 2")
        .replace("doubling_every = 3", "doubling_every = 3\nsearch = { local = { starts = 3, evaluations = 6 } }");
    let spec = ExperimentSpec::from_toml_str(&text).unwrap();
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    assert!(one.to_csv(Timing::Omit) == two.to_csv(Timing::Omit), "1 and 2 threads differ");
    let steps: Vec<&StepRecord> = one.runs().iter().flat_map(|r| &r.steps).collect();
    let local = steps.iter().filter(|s| s.detail("search") == Some("local")).count();
    assert!(local >= 4, "{local} steps of the local search");
    assert!(steps.iter().all(|s| s.detail("gap").is_none()), "the local search records no gap");
    let e = Experiment::new(spec, &registry()).unwrap();
    let id = RunId { algorithm: 0, run: 1 };
    let expected = without_timing(&e.run_one(id).unwrap());
    let (checkpointed, saved) = with_every_checkpoint(&e, id);
    assert_eq!(without_timing(&checkpointed), expected, "checkpointing changed the run");
    for (k, c) in saved.iter().enumerate().step_by(3) {
        assert_eq!(without_timing(&resumed_from(&e, id, c)), expected, "continued after step {}", k + 1);
    }
}

#[test]
fn algorithms_that_save_no_state_are_not_checkpointed() {
    let e = Experiment::new(small_spec(), &registry()).unwrap();
    for id in e.tasks() {
        let (record, saved) = with_every_checkpoint(&e, id);
        assert!(saved.is_empty(), "{}", record.label);
        assert_eq!(without_timing(&record), without_timing(&e.run_one(id).unwrap()));
    }
}

#[test]
fn a_checkpoint_that_cannot_be_restored_is_rejected_and_the_run_restarts() {
    let e = Experiment::new(ExperimentSpec::from_toml_str(COBOL_BOX).unwrap(), &registry()).unwrap();
    let id = RunId { algorithm: 0, run: 0 };
    let (alone, saved) = with_every_checkpoint(&e, id);
    let mut bad = saved[5].clone();
    bad.optimizer = bad.optimizer.replacen("\"lambda\":", "\"lambda\":-1.0,\"x\":", 1);
    let rejected = Mutex::new(Vec::new());
    let load = |_: RunId| Some(bad.clone());
    let reject = |i: RunId, why: &str| rejected.lock().unwrap().push((i, why.to_string()));
    let c =
        Checkpointing { every: Duration::from_secs(3600), load: &load, save: &|_| {}, reject: &reject, warn: &reject };
    let record = e.run_one_checkpointed(id, Some(&c)).unwrap();
    assert_eq!(without_timing(&record), without_timing(&alone));
    let rejected = rejected.into_inner().unwrap();
    assert_eq!(rejected.len(), 1);
    assert!(rejected[0].1.contains("lambda must be non-negative"), "{}", rejected[0].1);
}

#[test]
fn checkpoint_files_are_checked() {
    let e = Experiment::new(ExperimentSpec::from_toml_str(COBOL_BOX).unwrap(), &registry()).unwrap();
    let id = RunId { algorithm: 0, run: 0 };
    let (_, saved) = with_every_checkpoint(&e, id);
    let text = saved[3].to_text();
    assert_eq!(Checkpoint::from_text(&text, id, "cobol").unwrap(), saved[3]);
    let edited = text.replacen("\"t\":2", "\"t\":3", 1);
    assert!(Checkpoint::from_text(&edited, id, "cobol").unwrap_err().contains("checksum"));
    let truncated = &text[..text.len() / 2];
    assert!(Checkpoint::from_text(truncated, id, "cobol").is_err());
    let other = RunId { algorithm: 0, run: 1 };
    assert!(Checkpoint::from_text(&text, other, "cobol").unwrap_err().contains("not run 1"));
    assert!(Checkpoint::from_text(&text, id, "LCB").unwrap_err().contains("not run 0 of `LCB`"));
}

/// A progress that keeps the notes and the steps of the checkpoints saved.
#[derive(Default)]
struct Notes(Mutex<Vec<String>>, Mutex<Vec<usize>>);

impl folder::FolderProgress for Notes {
    fn note(&self, message: &str) {
        self.0.lock().unwrap().push(message.to_string());
    }
    fn checkpointed(&self, c: &Checkpoint) {
        self.1.lock().unwrap().push(c.steps.len());
    }
}

#[test]
fn a_results_folder_continues_an_unfinished_run_from_its_checkpoint() {
    let e = Experiment::new(ExperimentSpec::from_toml_str(COBOL_BOX).unwrap(), &registry()).unwrap();
    let id = RunId { algorithm: 0, run: 0 };
    let (_, saved) = with_every_checkpoint(&e, id);
    let base = scratch_dir("checkpoint-folder");
    let opts = |dir: &str, resume| folder::RunOptions {
        out: base.join(dir),
        threads: 1,
        shard: None,
        resume,
        checkpoint_every: Some(Duration::ZERO),
    };
    let csv = |o: folder::Outcome| match o {
        folder::Outcome::Complete(r) => r.runs().iter().map(|r| r.to_csv(Timing::Omit)).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    let notes = Notes::default();
    let whole = csv(folder::run_experiment(&e, &opts("whole", false), &notes).unwrap());
    // Told of every checkpoint: after each step but the last.
    assert_eq!(*notes.1.lock().unwrap(), (1..saved.len() + 1).collect::<Vec<_>>());
    let ckpt = checkpoint::checkpoint_file(&base.join("whole"), id);
    assert!(!ckpt.exists(), "a finished run's checkpoint is removed");
    // A folder whose run stopped after step 8 (as if its process had been killed).
    let stopped = base.join("stopped");
    let notes = Notes::default();
    std::fs::create_dir_all(stopped.join("runs")).unwrap();
    std::fs::write(stopped.join("spec.toml"), std::fs::read(base.join("whole/spec.toml")).unwrap()).unwrap();
    std::fs::write(checkpoint::checkpoint_file(&stopped, id), saved[7].to_text()).unwrap();
    let e2 = folder::run_experiment(&e, &opts("stopped", false), &notes).unwrap_err().to_string();
    assert!(e2.contains("1 checkpoint(s)") && e2.contains("--resume"), "{e2}");
    assert_eq!(csv(folder::run_experiment(&e, &opts("stopped", true), &notes).unwrap()), whole);
    let said = notes.0.lock().unwrap().join("\n");
    assert!(said.contains("continuing from its checkpoint after step 8"), "{said}");
    assert!(!checkpoint::checkpoint_file(&stopped, id).exists());
    // A checkpoint left beside a finished run (a process stopped between the two writes) is removed.
    std::fs::write(checkpoint::checkpoint_file(&stopped, id), saved[7].to_text()).unwrap();
    assert_eq!(csv(folder::run_experiment(&e, &opts("stopped", true), &notes).unwrap()), whole);
    assert!(!checkpoint::checkpoint_file(&stopped, id).exists());
    // A damaged checkpoint is moved aside and the run starts again, with the same result.
    let damaged = base.join("damaged");
    std::fs::create_dir_all(damaged.join("runs")).unwrap();
    std::fs::write(damaged.join("spec.toml"), std::fs::read(base.join("whole/spec.toml")).unwrap()).unwrap();
    let text = saved[7].to_text();
    std::fs::write(checkpoint::checkpoint_file(&damaged, id), &text[..text.len() - 30]).unwrap();
    let notes = Notes::default();
    assert_eq!(csv(folder::run_experiment(&e, &opts("damaged", true), &notes).unwrap()), whole);
    let said = notes.0.lock().unwrap().join("\n");
    assert!(said.contains("cannot be used") && said.contains("starts again from step 1"), "{said}");
    let aside = damaged.join("runs/a0-r0.partial.json.damaged");
    assert!(aside.exists(), "kept for inspection");
    std::fs::remove_dir_all(&base).unwrap();
}
