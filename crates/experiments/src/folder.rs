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
//! * `DIR/wall_time.csv`: one line per whole call (no shard) that finished runs, with its wall
//!   time and the runs it finished ([`recorded_wall_time`]), so a panel's time adds up over its
//!   resumed calls. Shards do not write it (they would race on it).
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

mod files;
mod progress;

use files::*;
pub use files::{appends_algorithms, failure_file, read_stored_spec, run_file, run_file_text, spec_differences};
pub use progress::{FolderProgress, PlainLines, Quiet};

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

/// The runs of `mine` still to do in `opts.out`: refused if some are there without `--resume`;
/// a damaged run file is moved aside (and its run done again), a finished run's stale checkpoint
/// removed.
fn runs_to_do(
    experiment: &Experiment,
    opts: &RunOptions,
    mine: &[RunId],
    progress: &dyn FolderProgress,
) -> Result<Vec<RunId>, ExperimentError> {
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
    for &id in mine {
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
    Ok(todo)
}

/// The error of a call that stopped before all its runs were done: a failure under
/// `on_error = "stop"`, or an interruption.
fn stopped(opts: &RunOptions, spec: &ExperimentSpec, outcome: &crate::runner::TaskOutcome) -> Option<ExperimentError> {
    if let Some(first) = outcome.failures.first()
        && spec.on_error == OnError::Stop
    {
        return Some(ExperimentError::Folder(format!(
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
        return Some(ExperimentError::Folder(format!(
            "interrupted: {} run(s) of this call finished and are saved in `{}`, {} not started; rerun with --resume \
             to continue",
            outcome.runs.len(),
            opts.out.display(),
            outcome.not_started.len()
        )));
    }
    None
}

/// Runs `experiment` into `opts.out` (see the module documentation), telling `progress` what
/// happens and asking it before each run whether to stop.
// Long: the run's callbacks (run files, failures, checkpoints) are closures that borrow each other
// and the options; they stay together with the call that uses them.
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
    let todo = runs_to_do(experiment, opts, &mine, progress)?;
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
        experiment.check_memory(in_flight).map_err(|e| {
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
    let finished_here = AtomicUsize::new(0);
    let on_done = |record: &RunRecord| {
        finished_here.fetch_add(1, Ordering::SeqCst);
        on_done(record);
    };
    let outcome = pool
        .install(|| experiment.run_tasks_checkpointed(&todo, &on_done, &on_failed, &cancelled, checkpointing.as_ref()));
    progress.end(total, start.elapsed().as_secs_f64());
    let finished_here = finished_here.into_inner();
    if opts.shard.is_none()
        && finished_here > 0
        && let Err(e) = record_wall_time(&opts.out, start.elapsed().as_secs_f64(), finished_here)
    {
        progress.note(&format!("warning: cannot record this call's wall time in `{}`: {e}", opts.out.display()));
    }
    let failures = write_failures.into_inner().expect("no poisoning");
    if let Some(first) = failures.first() {
        return Err(ExperimentError::Folder(format!("{} run file(s) could not be written: {first}", failures.len())));
    }
    if let Some(e) = stopped(opts, &spec, &outcome) {
        return Err(e);
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

/// The file of a folder's recorded wall time (module docs).
const WALL_TIME_FILE: &str = "wall_time.csv";

/// The wall time of the calls that ran a folder's runs, as recorded in `DIR/wall_time.csv`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WallTime {
    /// Wall seconds, summed over the recorded calls.
    pub seconds: f64,
    /// The runs those calls finished (runs finished by a shard, or by a bohf that did not record
    /// its time, are not among them).
    pub runs: usize,
}

/// The wall time recorded in the folder `out` (zero when nothing is recorded). Lines that do not
/// parse as `seconds,runs` with finite seconds ≥ 0 (the header, a damaged line) are skipped: the
/// record is informative, and a damaged line must not stop a report.
pub fn recorded_wall_time(out: &Path) -> WallTime {
    let text = std::fs::read_to_string(out.join(WALL_TIME_FILE)).unwrap_or_default();
    let mut total = WallTime::default();
    for line in text.lines() {
        let Some((s, r)) = line.split_once(',') else { continue };
        if let (Ok(s), Ok(r)) = (s.trim().parse::<f64>(), r.trim().parse::<usize>())
            && s.is_finite()
            && s >= 0.0
        {
            total.seconds += s;
            total.runs = total.runs.saturating_add(r);
        }
    }
    total
}

/// Appends one call's wall time (`seconds`, `runs` it finished) to the folder's record, rewriting
/// the file atomically (the caller holds the folder's exclusive lock); what the file held is kept.
fn record_wall_time(out: &Path, seconds: f64, runs: usize) -> Result<(), ExperimentError> {
    let path = out.join(WALL_TIME_FILE);
    let mut text = match std::fs::read_to_string(&path) {
        Ok(text) if !text.is_empty() => text,
        Ok(_) => String::new(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(ExperimentError::Io { action: "read", path, source }),
    };
    if text.is_empty() {
        text.push_str("seconds,runs\n");
    } else if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("{seconds:.3},{runs}\n"));
    write_atomic(&path, text.as_bytes())
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
mod tests;
