//! Results folders (what `bohf run` and `bohf merge` write, and `bohf.run` from Python): a folder
//! that fills up one finished run at a time, resumable, shardable and safe against two writers.
//!
//! Layout of a results folder `DIR`:
//!
//! * `DIR/spec.toml`: the spec being run (a relative data path made absolute), written first;
//!   every process that writes into `DIR` (a resume, another shard) must run the same spec, with
//!   one exception: a whole `--resume` (no shard) of a spec that only appends algorithms to the
//!   stored one ([`appends_algorithms`]) replaces it and runs the new algorithms beside the
//!   finished runs, which stay valid (e.g. a new method added to a finished comparison).
//! * `DIR/.lock`: an OS file lock (released when the process ends, even by kill -9) held
//!   exclusively by a whole `bohf run` or `merge` and shared by the shards (`--shard K/N`, each of
//!   which also holds `DIR/.lock-shard-K-of-N` exclusively): a second writer that conflicts is
//!   refused, naming the folder and a holder's pid. Holding it, a process removes the temporary files
//!   (`.NAME.tmp-PID.EXT`) an interrupted one left (a shard: only those of its own runs), and says so.
//! * `DIR/runs/a{algorithm}-r{run}.csv`: one file per finished run, written atomically (temp file +
//!   rename) as soon as the run ends, so an interruption loses only the runs in flight. Its last line
//!   is `# checksum fnv1a64:…` over the bytes before it; on `--resume` a file that fails the check
//!   is reported, moved aside to `….csv.damaged` and the run is done again.
//! * `DIR/runs/a{algorithm}-r{run}.partial.json`: the checkpoint of an unfinished run, for
//!   algorithms that save their state (COBOL): `--resume` continues the run from it, with the same
//!   result as an uninterrupted run ([`crate::checkpoint`]). Removed when the run's file is written
//!   (a `--resume` also removes one left beside a finished run).
//! * `DIR/runs/a{algorithm}-r{run}.failed`: the error of a run that failed (algorithm, run, step,
//!   reason). With the spec's `on_error = "stop"` (default) the first failure stops the experiment
//!   (the finished runs stay; `--resume` retries the failed run); with `"continue"` the other runs go
//!   on and the results summarise the finished runs and list the failed ones.
//! * once every run is there: `steps.csv`, `summary.json` and the plots (`write_results`).

use crate::ExperimentError;
use crate::checkpoint::{Checkpoint, Checkpointing, checkpoint_file};
use crate::checksum::{strip_checksum_line, with_checksum_line};
use crate::lock::{LockGuard, lock_exclusive, lock_shared};
use crate::{
    Experiment, ExperimentSpec, FailedRun, OnError, ProblemSpec, Registry, Results, RunId, RunRecord, Timing,
    remove_stale_temp_files, runs_from_csv, write_atomic, write_results,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// How to run an experiment into a folder.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The results folder.
    pub out: PathBuf,
    /// Threads of the pool (0 = rayon's default).
    pub threads: usize,
    /// Run only tasks k, k + n, … (0-based k).
    pub shard: Option<(usize, usize)>,
    /// Skip runs already finished in `out`, and continue unfinished ones from their checkpoints
    /// (and, without a shard, accept a stored spec that this one extends by appended algorithms:
    /// [`appends_algorithms`]).
    pub resume: bool,
    /// Save a checkpoint of each unfinished run at most this often (wall time), for algorithms
    /// that save their state ([`crate::checkpoint`]); `None`: no checkpoints.
    pub checkpoint_every: Option<std::time::Duration>,
}

/// What a folder run tells its caller while it works, and how the caller stops it. Every method
/// has a default: [`Quiet`] says nothing and never stops; the `bohf` command draws a progress bar;
/// the Python package stops on Ctrl-C.
pub trait FolderProgress: Sync {
    /// Before the first run starts: one line naming the experiment and the work to do, and the
    /// number of runs to do.
    fn start(&self, _line: &str, _todo: usize) {}
    /// A warning or a notice (a damaged run file moved aside, stale temporary files removed).
    fn note(&self, _message: &str) {}
    /// Run number `k` of `total` (counting finished and failed runs) has finished and is saved.
    fn finished(&self, _k: usize, _total: usize, _record: &RunRecord) {}
    /// Run number `k` of `total` has failed; its error is saved.
    fn failed(&self, _k: usize, _total: usize, _failure: &FailedRun) {}
    /// An unfinished run's checkpoint was saved ([`crate::checkpoint`]): how far a long run is.
    fn checkpointed(&self, _checkpoint: &Checkpoint) {}
    /// Every run of this call is done (before the results are collected and written).
    fn end(&self, _total: usize, _seconds: f64) {}
    /// Asked before each run starts: true stops the call (runs in flight finish and are saved;
    /// the call then fails with an error saying how many runs are saved, and `resume` continues).
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`FolderProgress`] that says nothing and never stops.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl FolderProgress for Quiet {}

/// A [`FolderProgress`] that writes one plain line per event to stderr (the `bohf` command when
/// stderr is not a terminal).
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainLines;

impl FolderProgress for PlainLines {
    fn start(&self, line: &str, _todo: usize) {
        eprintln!("{line}");
    }
    fn note(&self, message: &str) {
        eprintln!("{message}");
    }
    fn finished(&self, k: usize, total: usize, record: &RunRecord) {
        eprintln!("[{k}/{total}] {} run {} done in {:.2} s", record.label, record.id.run, record.wall_seconds());
    }
    fn failed(&self, k: usize, total: usize, failure: &FailedRun) {
        eprintln!("[{k}/{total}] FAILED: {failure}");
    }
    fn checkpointed(&self, c: &Checkpoint) {
        let last = c.steps.last().map_or(0.0, |s| s.elapsed_s);
        eprintln!(
            "{} run {}: checkpoint after step {} ({last:.0} s in the algorithm)",
            c.label,
            c.id.run,
            c.steps.len()
        );
    }
    fn end(&self, total: usize, seconds: f64) {
        eprintln!("{total} run(s) in {seconds:.1} s");
    }
}

/// What a run produced.
#[derive(Debug)]
pub enum Outcome {
    /// Every run is finished; the results were written.
    Complete(Box<Results>),
    /// A shard finished its runs; the folder needs `bohf merge` once every shard is done.
    ShardDone {
        /// Runs of this shard.
        mine: usize,
        /// Runs finished in the folder (all shards).
        finished: usize,
        /// Runs of the whole experiment.
        total: usize,
    },
}

/// Parses `K/N` (0 ≤ K < N).
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("expected K/N (e.g. 0/4), got `{s}`"))?;
    let k: usize = k.trim().parse().map_err(|_| format!("K in K/N must be a number, got `{k}`"))?;
    let n: usize = n.trim().parse().map_err(|_| format!("N in K/N must be a number, got `{n}`"))?;
    if n == 0 || k >= n {
        return Err(format!("need 0 <= K < N (K counts from 0, like SLURM_ARRAY_TASK_ID), got {k}/{n}"));
    }
    Ok((k, n))
}

/// The spec as it is stored in a results folder: a relative data path (catalyst `path`, svm
/// `data` and `cache`) made absolute, so that the stored spec runs from anywhere.
pub fn stored_spec(mut spec: ExperimentSpec) -> ExperimentSpec {
    // Canonical when the file exists (no `..`), else at least absolute.
    let absolute = |p: &mut std::path::PathBuf| {
        if let Ok(a) = std::fs::canonicalize(&*p).or_else(|_| std::path::absolute(&*p)) {
            *p = a;
        }
    };
    if let Some(p) = spec.problem.data_path_mut() {
        absolute(p);
    }
    if let ProblemSpec::Svm(s) = &mut spec.problem
        && let Some(c) = &mut s.cache
    {
        absolute(c);
    }
    spec
}

/// An svm problem without a `cache` folder gets `<out>/../.svm-cache` (beside the results folder
/// `out`), so that the presets, `--resume` and later summaries of the folder share one table;
/// other problems are left alone.
pub fn with_default_cache(mut spec: ExperimentSpec, out: &Path) -> ExperimentSpec {
    if let ProblemSpec::Svm(s) = &mut spec.problem
        && s.cache.is_none()
    {
        let out = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
        let parent = out.parent().map_or_else(|| out.clone(), Path::to_path_buf);
        s.cache = Some(parent.join(".svm-cache"));
    }
    spec
}

/// The file of one finished run.
pub fn run_file(dir: &Path, id: RunId) -> PathBuf {
    dir.join("runs").join(format!("a{}-r{}.csv", id.algorithm, id.run))
}

/// The file recording the failure of one run.
pub fn failure_file(dir: &Path, id: RunId) -> PathBuf {
    dir.join("runs").join(format!("a{}-r{}.failed", id.algorithm, id.run))
}

/// Reads a recorded failure (`None` if absent or unreadable).
fn read_failure(dir: &Path, id: RunId) -> Option<FailedRun> {
    let text = std::fs::read_to_string(failure_file(dir, id)).ok()?;
    serde_json::from_str(&text).ok()
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ExperimentError + 'a {
    move |e| ExperimentError::Io { action, path: path.to_path_buf(), source: e }
}

/// Reads `DIR/spec.toml` and validates it against `registry`.
pub fn read_stored_spec(dir: &Path, registry: &Registry) -> Result<ExperimentSpec, ExperimentError> {
    let path = dir.join("spec.toml");
    if !path.exists() {
        return Err(ExperimentError::Folder(format!(
            "`{}` is not a results folder of `bohf run` (no spec.toml in it)",
            dir.display()
        )));
    }
    let mut spec = ExperimentSpec::from_file(&path)?;
    // Written before `problem.inputs` existed: its runs saw the problem's own coordinates.
    if let Some(inputs) = std::fs::read_to_string(&path).ok().as_deref().and_then(crate::inputs::stored_inputs) {
        spec.problem.set_inputs(inputs);
    }
    // A stored spec is input too (it may have been edited): the same checks as a spec to run, so
    // that `merge` never sizes anything by an unchecked field.
    spec.validate(registry).map_err(|e| ExperimentError::Folder(format!("`{}`: {e}", path.display())))?;
    Ok(spec)
}

/// Top-level fields in which two specs differ (by their TOML).
pub fn spec_differences(a: &ExperimentSpec, b: &ExperimentSpec) -> Vec<String> {
    let table = |s: &ExperimentSpec| toml::Table::try_from(s).unwrap_or_default();
    let (ta, tb) = (table(a), table(b));
    let mut keys: Vec<&String> = ta.keys().chain(tb.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().filter(|k| ta.get(*k) != tb.get(*k)).cloned().collect()
}

/// True when `new` is `old` with algorithms appended: the two differ only in `algorithms`, and
/// `old`'s list is a strict prefix of `new`'s, entry for entry. Every run of `old` is then a run of
/// `new` (a run's streams depend only on its algorithm's index and its run number, docs in
/// [`crate::runner`]), so a folder of `old` can be continued as a folder of `new`.
pub fn appends_algorithms(old: &ExperimentSpec, new: &ExperimentSpec) -> bool {
    let value = |a: &crate::spec::AlgorithmSpec| toml::Value::try_from(a).ok();
    spec_differences(old, new) == ["algorithms"]
        && old.algorithms.len() < new.algorithms.len()
        && old.algorithms.iter().zip(&new.algorithms).all(|(a, b)| value(a).is_some() && value(a) == value(b))
}

/// Writes `DIR/spec.toml`, or checks that the one there is the same spec. With `extend`, a stored
/// spec that `spec` extends by appended algorithms ([`appends_algorithms`]) is replaced by `spec`
/// (its runs stay valid) and the number of new algorithms returned.
fn claim_folder(
    dir: &Path,
    spec: &ExperimentSpec,
    registry: &Registry,
    extend: bool,
) -> Result<usize, ExperimentError> {
    std::fs::create_dir_all(dir.join("runs")).map_err(io("create", dir))?;
    let path = dir.join("spec.toml");
    if path.exists() {
        let there = read_stored_spec(dir, registry)?;
        if extend && appends_algorithms(&there, spec) {
            write_atomic(&path, spec.to_toml_string()?.as_bytes())?;
            return Ok(spec.algorithms.len() - there.algorithms.len());
        }
        let diff = spec_differences(&there, spec);
        if !diff.is_empty() {
            return Err(ExperimentError::Folder(format!(
                "`{}` holds results of a different spec (they differ in: {}); choose another --out",
                dir.display(),
                diff.join(", ")
            )));
        }
    } else {
        write_atomic(&path, spec.to_toml_string()?.as_bytes())?;
    }
    Ok(0)
}

/// What is in the file of one run.
enum RunFile {
    /// No file.
    Absent,
    /// A complete run of the spec whose checksum matches.
    Good(Box<RunRecord>),
    /// A file that fails its checksum or does not hold that run: why.
    Damaged(String),
}

/// Reads the file of one run and checks its checksum line and content.
fn load_run(dir: &Path, spec: &ExperimentSpec, id: RunId) -> RunFile {
    let path = run_file(dir, id);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return RunFile::Absent,
        Err(e) => return RunFile::Damaged(format!("cannot read it: {e}")),
    };
    let Ok(text) = String::from_utf8(bytes) else { return RunFile::Damaged("it is not UTF-8 text".into()) };
    let body = match strip_checksum_line(&text) {
        Ok(b) => b,
        Err(e) => return RunFile::Damaged(e.to_string()),
    };
    match runs_from_csv(body, &spec.labels(), Some(&path)) {
        Ok(mut runs) if runs.len() == 1 && runs[0].id == id => match crate::budget::check_length(&runs[0], spec) {
            Ok(()) => RunFile::Good(Box::new(runs.pop().expect("one run"))),
            Err(why) => {
                RunFile::Damaged(format!("its run {} of algorithm {} is not complete: it {why}", id.run, id.algorithm))
            }
        },
        Ok(_) => RunFile::Damaged(format!("it does not hold run {} of algorithm {} alone", id.run, id.algorithm)),
        Err(e) => RunFile::Damaged(e.to_string()),
    }
}

/// Reads one finished run; `None` if its file is absent or damaged (a damaged one is reported).
fn read_run(dir: &Path, spec: &ExperimentSpec, id: RunId, progress: &dyn FolderProgress) -> Option<RunRecord> {
    match load_run(dir, spec, id) {
        RunFile::Good(r) => Some(*r),
        RunFile::Absent => None,
        RunFile::Damaged(why) => {
            progress.note(&format!("warning: `{}` is damaged: {why}", run_file(dir, id).display()));
            None
        }
    }
}

/// Moves a damaged file aside to `NAME.damaged` (or `NAME.damaged.2`, … if taken); never deletes.
fn move_aside(path: &Path) -> Result<PathBuf, ExperimentError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut k = 1;
    loop {
        let target =
            path.with_file_name(if k == 1 { format!("{name}.damaged") } else { format!("{name}.damaged.{k}") });
        if !target.exists() {
            std::fs::rename(path, &target).map_err(io("rename", path))?;
            return Ok(target);
        }
        k += 1;
    }
}

/// The text of a run file: the CSV with timings and a checksum line (see docs/experiments.md).
pub fn run_file_text(record: &RunRecord) -> String {
    with_checksum_line(&record.to_csv(Timing::Include))
}

/// Locks `dir` for this process alone (creating it and `dir/runs`) and removes the temporary files an
/// interrupted process left in it, saying so in one line.
fn lock_folder(dir: &Path, progress: &dyn FolderProgress) -> Result<Vec<LockGuard>, ExperimentError> {
    std::fs::create_dir_all(dir.join("runs")).map_err(io("create", dir))?;
    let guard = lock_exclusive(&dir.join(".lock"), &format!("results folder `{}`", dir.display()))?;
    let mut removed = remove_stale_temp_files(dir, |_| true)?;
    removed.extend(remove_stale_temp_files(dir.join("runs"), |_| true)?);
    report_removed(dir, &removed, progress);
    Ok(vec![guard])
}

/// Locks `dir` for shard `k/n`: shared with the other shards (so they can fill one folder at
/// once), exclusive for this shard (`.lock-shard-K-of-N`), and refused while a whole run or a
/// merge holds the folder. Removes only the temporary files of this shard's own runs.
fn lock_folder_for_shard(
    dir: &Path,
    (k, n): (usize, usize),
    mine: &[RunId],
    progress: &dyn FolderProgress,
) -> Result<Vec<LockGuard>, ExperimentError> {
    std::fs::create_dir_all(dir.join("runs")).map_err(io("create", dir))?;
    let what = format!("results folder `{}`", dir.display());
    let shared = lock_shared(&dir.join(".lock"), &what)?;
    let own = lock_exclusive(&dir.join(format!(".lock-shard-{k}-of-{n}")), &format!("shard {k}/{n} of {what}"))?;
    let stems: std::collections::HashSet<String> =
        mine.iter().map(|id| format!("a{}-r{}", id.algorithm, id.run)).collect();
    let removed = remove_stale_temp_files(dir.join("runs"), |target| {
        // `a0-r4.csv`, `a0-r4.partial.json` (a checkpoint): the run's stem is before the first dot.
        stems.contains(target.split_once('.').map_or(target, |(stem, _)| stem))
    })?;
    report_removed(dir, &removed, progress);
    Ok(vec![shared, own])
}

fn report_removed(dir: &Path, removed: &[PathBuf], progress: &dyn FolderProgress) {
    if let Some(first) = removed.first() {
        progress.note(&format!(
            "removed {} stale temporary file(s) left by an interrupted bohf in `{}` (e.g. `{}`); nothing else changed",
            removed.len(),
            dir.display(),
            first.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
        ));
    }
}

/// Runs `experiment` into `opts.out` (see the module documentation), telling `progress` what
/// happens and asking it before each run whether to stop.
pub fn run_experiment(
    experiment: &Experiment,
    opts: &RunOptions,
    progress: &dyn FolderProgress,
) -> Result<Outcome, ExperimentError> {
    let spec = stored_spec(experiment.spec().clone());
    let mine = match opts.shard {
        Some((k, n)) => experiment.shard(k, n)?,
        None => experiment.tasks(),
    };
    let _locks = match opts.shard {
        Some(shard) => lock_folder_for_shard(&opts.out, shard, &mine, progress)?,
        None => lock_folder(&opts.out, progress)?,
    };
    // Only a whole run (no shard: the shards of a folder must agree on its spec) may extend it.
    let added = claim_folder(&opts.out, &spec, experiment.registry(), opts.resume && opts.shard.is_none())?;
    if added > 0 {
        progress.note(&format!(
            "`{}`: the spec appends {added} algorithm(s) to the folder's; its finished runs are kept and the new \
             algorithms' runs added",
            opts.out.display()
        ));
    }
    let done_before: Vec<RunId> = mine.iter().copied().filter(|&id| run_file(&opts.out, id).exists()).collect();
    let partial: Vec<RunId> = mine.iter().copied().filter(|&id| checkpoint_file(&opts.out, id).exists()).collect();
    if (!done_before.is_empty() || !partial.is_empty()) && !opts.resume {
        return Err(ExperimentError::Folder(format!(
            "`{}` already holds {} finished run(s) and {} checkpoint(s) of unfinished runs of this spec; pass \
             --resume to continue, or choose another --out",
            opts.out.display(),
            done_before.len(),
            partial.len()
        )));
    }
    let mut todo = Vec::new();
    for &id in &mine {
        match load_run(&opts.out, experiment.spec(), id) {
            RunFile::Good(_) => {
                // A process stopped between writing the run file and removing its checkpoint.
                let stale = checkpoint_file(&opts.out, id);
                if stale.exists() {
                    std::fs::remove_file(&stale).map_err(io("remove", &stale))?;
                }
            }
            RunFile::Absent => todo.push(id),
            RunFile::Damaged(why) => {
                let path = run_file(&opts.out, id);
                let aside = move_aside(&path)?;
                progress.note(&format!(
                    "warning: `{}` is damaged ({why}); moved to `{}`, and the run will be done again",
                    path.display(),
                    aside.display()
                ));
                todo.push(id);
            }
        }
    }
    let skipped = mine.len() - todo.len();
    progress.start(
        &format!(
            "{}: {} algorithm(s) × {} run(s), T = {}{}: {} to do{}",
            spec.name,
            spec.algorithms.len(),
            spec.runs,
            spec.horizon,
            opts.shard.map(|(k, n)| format!(", shard {k}/{n}")).unwrap_or_default(),
            todo.len(),
            if skipped > 0 { format!(", {skipped} already finished (skipped)") } else { String::new() }
        ),
        todo.len(),
    );
    let start = Instant::now();
    let counter = AtomicUsize::new(0);
    let total = todo.len();
    let write_failures = std::sync::Mutex::new(Vec::new());
    let on_done = |record: &RunRecord| {
        let path = run_file(&opts.out, record.id);
        if let Err(e) = write_atomic(&path, run_file_text(record).as_bytes()) {
            write_failures.lock().expect("no poisoning").push(e.to_string());
        }
        // A run that failed before (and was retried with --resume) has finished now, and its
        // checkpoint is done with.
        let _ = std::fs::remove_file(failure_file(&opts.out, record.id));
        let _ = std::fs::remove_file(checkpoint_file(&opts.out, record.id));
        progress.finished(counter.fetch_add(1, Ordering::SeqCst) + 1, total, record);
    };
    let on_failed = |failed: &FailedRun| {
        let path = failure_file(&opts.out, failed.id);
        let json = serde_json::to_string_pretty(failed).expect("serialisable");
        if let Err(e) = write_atomic(&path, json.as_bytes()) {
            write_failures.lock().expect("no poisoning").push(e.to_string());
        }
        progress.failed(counter.fetch_add(1, Ordering::SeqCst) + 1, total, failed);
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| ExperimentError::Folder(format!("cannot start {} threads: {e}", opts.threads)))?;
    // Each thread holds one run's matrices at a time.
    let in_flight = pool.current_num_threads().min(todo.len());
    if in_flight > 1 {
        let (candidates, dim) = experiment.problem().shape();
        spec.check_memory(experiment.registry(), candidates, dim, in_flight).map_err(|e| {
            ExperimentError::Folder(format!("{e}\nwith {in_flight} runs at once; try fewer threads (--threads N)"))
        })?;
    }
    let cancelled = || progress.cancelled();
    let labels = spec.labels();
    let name = |id: RunId| format!("`{}` run {}", labels[id.algorithm], id.run);
    let set_aside = |id: RunId, why: &str| {
        let path = checkpoint_file(&opts.out, id);
        let aside =
            move_aside(&path).map_or_else(|e| format!("(not moved: {e})"), |p| format!("moved to `{}`", p.display()));
        progress.note(&format!(
            "warning: the checkpoint `{}` of {} cannot be used ({why}); {aside}, and the run starts again from step 1",
            path.display(),
            name(id)
        ));
    };
    let load = |id: RunId| {
        let path = checkpoint_file(&opts.out, id);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                set_aside(id, &e.to_string());
                return None;
            }
        };
        match Checkpoint::from_text(&text, id, &labels[id.algorithm]) {
            Ok(c) => {
                progress.note(&format!("{}: continuing from its checkpoint after step {}", name(id), c.steps.len()));
                Some(c)
            }
            Err(why) => {
                set_aside(id, &why);
                None
            }
        }
    };
    let save = |c: &Checkpoint| match write_atomic(checkpoint_file(&opts.out, c.id), c.to_text().as_bytes()) {
        Ok(()) => progress.checkpointed(c),
        Err(e) => progress.note(&format!("warning: {}: cannot save its checkpoint: {e}", name(c.id))),
    };
    let warn = |id: RunId, why: &str| progress.note(&format!("warning: {}: {why}", name(id)));
    let checkpointing = opts.checkpoint_every.map(|every| Checkpointing {
        every,
        load: &load,
        save: &save,
        reject: &set_aside,
        warn: &warn,
    });
    let outcome = pool
        .install(|| experiment.run_tasks_checkpointed(&todo, &on_done, &on_failed, &cancelled, checkpointing.as_ref()));
    progress.end(total, start.elapsed().as_secs_f64());
    let failures = write_failures.into_inner().expect("no poisoning");
    if let Some(first) = failures.first() {
        return Err(ExperimentError::Folder(format!("{} run file(s) could not be written: {first}", failures.len())));
    }
    if let Some(first) = outcome.failures.first()
        && spec.on_error == OnError::Stop
    {
        return Err(ExperimentError::Folder(format!(
            "{first}\nstopped (on_error = \"stop\"): {} run(s) of this call finished and are saved in `{}`, {} failed, {} \
             not started; rerun with --resume to retry, or set on_error = \"continue\" in the spec to record failures \
             and run the rest",
            outcome.runs.len(),
            opts.out.display(),
            outcome.failures.len(),
            outcome.not_started.len()
        )));
    }
    if !outcome.not_started.is_empty() {
        return Err(ExperimentError::Folder(format!(
            "interrupted: {} run(s) of this call finished and are saved in `{}`, {} not started; rerun with --resume \
             to continue",
            outcome.runs.len(),
            opts.out.display(),
            outcome.not_started.len()
        )));
    }
    if opts.shard.is_some() {
        let settled = |id: RunId| {
            run_file(&opts.out, id).exists()
                || (spec.on_error == OnError::Continue && failure_file(&opts.out, id).exists())
        };
        let finished = experiment.tasks().into_iter().filter(|&id| settled(id)).count();
        if finished < experiment.tasks().len() {
            return Ok(Outcome::ShardDone { mine: mine.len(), finished, total: experiment.tasks().len() });
        }
    }
    let results = collect(std::slice::from_ref(&opts.out), &spec, &experiment.title(), progress)?;
    write_complete(&results, &opts.out)?;
    Ok(Outcome::Complete(Box::new(results)))
}

/// Writes the results of a complete experiment; if every run failed there is nothing to summarise
/// or plot, and that is an error (the failures stay recorded in `runs/`).
fn write_complete(results: &Results, out: &Path) -> Result<(), ExperimentError> {
    if results.runs().is_empty() {
        let failures = results.failures();
        return Err(ExperimentError::Folder(format!(
            "every run failed ({} failure(s); the first: {}); their errors are in `{}`; nothing to summarise or plot",
            failures.len(),
            failures.first().map(ToString::to_string).unwrap_or_else(|| "none recorded".into()),
            out.join("runs").display()
        )));
    }
    write_results(results, out)?;
    Ok(())
}

/// Every run of `spec` from the `runs/` folders of `dirs`; a run found in two folders must be
/// identical in both (its timing aside).
fn collect(
    dirs: &[PathBuf],
    spec: &ExperimentSpec,
    title: &str,
    progress: &dyn FolderProgress,
) -> Result<Results, ExperimentError> {
    let mut runs = Vec::new();
    let mut failed = Vec::new();
    let mut missing = Vec::new();
    let ids: Vec<RunId> = (0..spec.runs)
        .flat_map(|run| (0..spec.algorithms.len()).map(move |algorithm| RunId { algorithm, run }))
        .collect();
    for id in ids {
        let mut found: Option<(RunRecord, &PathBuf)> = None;
        for d in dirs {
            if let Some(r) = read_run(d, spec, id, progress) {
                match &found {
                    Some((prev, pd)) => {
                        if prev.to_csv(Timing::Omit) != r.to_csv(Timing::Omit) {
                            return Err(ExperimentError::Folder(format!(
                                "run {} of `{}` differs between `{}` and `{}`",
                                id.run,
                                r.label,
                                pd.display(),
                                d.display()
                            )));
                        }
                    }
                    None => found = Some((r, d)),
                }
            }
        }
        match found {
            Some((r, _)) => runs.push(r),
            None => match dirs.iter().find_map(|d| read_failure(d, id)) {
                Some(f) if spec.on_error == OnError::Continue => failed.push(f),
                _ => missing.push(id),
            },
        }
    }
    fill_utility_gaps(spec, &mut runs, progress);
    if !missing.is_empty() {
        let labels = spec.labels();
        let list: Vec<String> =
            missing.iter().take(5).map(|id| format!("{} run {}", labels[id.algorithm], id.run)).collect();
        return Err(ExperimentError::Folder(format!(
            "{} of {} runs are missing (e.g. {}{}); finish the shards (bohf run --shard K/N --resume) first",
            missing.len(),
            spec.runs * spec.algorithms.len(),
            list.join(", "),
            if missing.len() > 5 { ", …" } else { "" }
        )));
    }
    Results::with_failures(spec.clone(), title, runs, failed)
}

/// Run files written before the utility gaps existed get them from their recorded points (the
/// problem prepared from the spec, [`crate::metrics::RegretModel::fill_utility_gaps`]); the files
/// stay as they are. If the problem cannot be prepared (e.g. its data file is gone) the gaps stay
/// not recorded, with a note.
fn fill_utility_gaps(spec: &ExperimentSpec, runs: &mut [RunRecord], progress: &dyn FolderProgress) {
    if runs.iter().all(|r| r.steps.iter().all(|s| s.utility_gap.is_recorded())) {
        return;
    }
    let filled = crate::problem::PreparedProblem::build(&spec.problem, &spec.respondent).and_then(|p| {
        let regret = p.regret();
        runs.iter_mut().try_for_each(|r| regret.fill_utility_gaps(r).map(|_| ()).map_err(ExperimentError::from))
    });
    if let Err(e) = filled {
        progress.note(&format!(
            "warning: run files written before the utility gaps existed keep them empty: cannot compute them ({e})"
        ));
    }
}

/// `bohf merge DIR… --out OUT`: the runs of every folder into one result set; the folders must hold
/// the same spec, validated against `registry`.
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    registry: &Registry,
    progress: &dyn FolderProgress,
) -> Result<Results, ExperimentError> {
    let first = dirs.first().ok_or_else(|| ExperimentError::Folder("give at least one results folder".into()))?;
    let spec = read_stored_spec(first, registry)?;
    for d in &dirs[1..] {
        let other = read_stored_spec(d, registry)?;
        let diff = spec_differences(&spec, &other);
        if !diff.is_empty() {
            return Err(ExperimentError::Folder(format!(
                "refusing to merge results of different specs: `{}` and `{}` differ in {}",
                first.display(),
                d.display(),
                diff.join(", ")
            )));
        }
    }
    // The title as the runner would give it (the problem description needs the problem built).
    let title = match Experiment::new(spec.clone(), registry) {
        Ok(e) => e.title(),
        Err(_) => spec.title.clone().unwrap_or_else(|| spec.name.clone()),
    };
    let results = collect(dirs, &spec, &title, progress)?;
    let _lock = lock_folder(out, progress)?;
    claim_folder(out, &spec, registry, false)?;
    for r in results.runs() {
        let path = run_file(out, r.id);
        if !path.exists() {
            write_atomic(path, run_file_text(r).as_bytes())?;
        }
    }
    for f in results.failures() {
        let path = failure_file(out, f.id);
        if !path.exists() {
            write_atomic(path, serde_json::to_string_pretty(f).expect("serialisable").as_bytes())?;
        }
    }
    write_complete(&results, out)?;
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_syntax() {
        assert_eq!(parse_shard("0/4"), Ok((0, 4)));
        assert_eq!(parse_shard(" 3 / 4 "), Ok((3, 4)));
        for bad in ["4/4", "1/0", "1", "a/2", "1/b", "-1/2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn spec_differences_name_the_top_level_fields() {
        let text = "name = \"x\"\nhorizon = 5\nruns = 2\n[problem]\nkind = \"ackley\"\n[[algorithms]]\nname = \"uniform-values\"\n";
        let a = ExperimentSpec::from_toml_str(text).unwrap();
        let mut b = a.clone();
        assert!(spec_differences(&a, &b).is_empty());
        b.seed = 9;
        b.runs = 3;
        assert_eq!(spec_differences(&a, &b), ["runs", "seed"]);
        let mut c = a.clone();
        c.algorithms[0].params.insert("beta".into(), toml::Value::Float(1.0));
        assert_eq!(spec_differences(&a, &c), ["algorithms"]);
    }

    /// A progress that stops the call after `after` finished runs.
    struct StopAfter(usize, AtomicUsize);

    impl FolderProgress for StopAfter {
        fn finished(&self, _k: usize, _total: usize, _record: &RunRecord) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
        fn cancelled(&self) -> bool {
            self.1.load(Ordering::SeqCst) >= self.0
        }
    }

    #[test]
    fn a_cancelled_run_keeps_its_finished_runs_and_resume_completes_it_identically() {
        let text =
            "name = \"x\"\nhorizon = 4\nruns = 3\n[problem]\nkind = \"ackley\"\n[[algorithms]]\nname = \"uniform\"\n";
        let spec = ExperimentSpec::from_toml_str(text).unwrap();
        let experiment = Experiment::new(spec, &crate::testing::registry()).unwrap();
        let base = std::env::temp_dir().join(format!("bohf-folder-cancel-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let opts = |dir: &str, resume| RunOptions {
            out: base.join(dir),
            threads: 1,
            shard: None,
            resume,
            checkpoint_every: None,
        };
        let e = run_experiment(&experiment, &opts("a", false), &StopAfter(1, AtomicUsize::new(0))).unwrap_err();
        let e = e.to_string();
        assert!(e.contains("interrupted: 1 run(s)") && e.contains("2 not started") && e.contains("--resume"), "{e}");
        let saved = std::fs::read_dir(base.join("a/runs")).unwrap().count();
        assert_eq!(saved, 1, "the finished run is saved");
        let Outcome::Complete(resumed) = run_experiment(&experiment, &opts("a", true), &Quiet).unwrap() else {
            panic!("not complete")
        };
        let Outcome::Complete(whole) = run_experiment(&experiment, &opts("b", false), &Quiet).unwrap() else {
            panic!("not complete")
        };
        let csv = |r: &Results| r.runs().iter().map(|r| r.to_csv(Timing::Omit)).collect::<Vec<_>>();
        assert_eq!(csv(&resumed), csv(&whole));
        std::fs::remove_dir_all(&base).unwrap();
    }
    #[test]
    fn a_resume_may_append_algorithms_and_nothing_else() {
        let text = |algs: &str| format!("name = \"x\"\nhorizon = 4\nruns = 2\n[problem]\nkind = \"ackley\"\n{algs}");
        let one = "[[algorithms]]\nname = \"uniform\"\n";
        let two = format!("{one}[[algorithms]]\nname = \"uniform-values\"\n");
        let spec = |t: &str| ExperimentSpec::from_toml_str(t).unwrap();
        let (a, b) = (spec(&text(one)), spec(&text(&two)));
        assert!(appends_algorithms(&a, &b));
        assert!(!appends_algorithms(&b, &a), "removing an algorithm is not appending");
        assert!(!appends_algorithms(&a, &a));
        // Inserting before, changing an entry, or changing anything else: not an extension.
        let swapped = spec(&text("[[algorithms]]\nname = \"uniform-values\"\n[[algorithms]]\nname = \"uniform\"\n"));
        assert!(!appends_algorithms(&a, &swapped));
        let mut c = b.clone();
        c.runs = 3;
        assert!(!appends_algorithms(&a, &c));

        let base = std::env::temp_dir().join(format!("bohf-folder-append-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let opts = |dir: &str, resume, shard| RunOptions {
            out: base.join(dir),
            threads: 1,
            shard,
            resume,
            checkpoint_every: None,
        };
        let registry = crate::testing::registry();
        let (ea, eb) = (Experiment::new(a, &registry).unwrap(), Experiment::new(b.clone(), &registry).unwrap());
        run_experiment(&ea, &opts("old", false, None), &Quiet).unwrap();
        // Without --resume, or as a shard, the folder of the shorter spec is refused.
        let e = run_experiment(&eb, &opts("old", false, None), &Quiet).unwrap_err().to_string();
        assert!(e.contains("different spec") && e.contains("algorithms"), "{e}");
        let e = run_experiment(&eb, &opts("old", true, Some((0, 2))), &Quiet).unwrap_err().to_string();
        assert!(e.contains("different spec"), "{e}");
        let before = std::fs::read(base.join("old/runs/a0-r1.csv")).unwrap();
        let Outcome::Complete(extended) = run_experiment(&eb, &opts("old", true, None), &Quiet).unwrap() else {
            panic!("not complete")
        };
        // The old runs are untouched, the spec replaced, and the whole equals a fresh run of it.
        assert_eq!(std::fs::read(base.join("old/runs/a0-r1.csv")).unwrap(), before);
        assert_eq!(
            spec_differences(&read_stored_spec(&base.join("old"), &registry).unwrap(), &stored_spec(b)),
            Vec::<String>::new()
        );
        let Outcome::Complete(fresh) = run_experiment(&eb, &opts("new", false, None), &Quiet).unwrap() else {
            panic!("not complete")
        };
        let csv = |r: &Results| r.runs().iter().map(|r| r.to_csv(Timing::Omit)).collect::<Vec<_>>();
        assert_eq!(csv(&extended).len(), 4);
        assert_eq!(csv(&extended), csv(&fresh));
        std::fs::remove_dir_all(&base).unwrap();
    }
}
