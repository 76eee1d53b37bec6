//! The files of a results folder: the stored spec, the run files (checksummed, moved aside when
//! damaged), the failure files, and the folder's locks.

use super::*;

/// The file of one finished run.
pub fn run_file(dir: &Path, id: RunId) -> PathBuf {
    dir.join("runs").join(format!("a{}-r{}.csv", id.algorithm, id.run))
}

/// The file recording the failure of one run.
pub fn failure_file(dir: &Path, id: RunId) -> PathBuf {
    dir.join("runs").join(format!("a{}-r{}.failed", id.algorithm, id.run))
}

/// Reads a recorded failure (`None` if absent or unreadable).
pub(super) fn read_failure(dir: &Path, id: RunId) -> Option<FailedRun> {
    let text = std::fs::read_to_string(failure_file(dir, id)).ok()?;
    serde_json::from_str(&text).ok()
}

pub(super) fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ExperimentError + 'a {
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
pub(super) fn claim_folder(
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
pub(super) enum RunFile {
    /// No file.
    Absent,
    /// A complete run of the spec whose checksum matches.
    Good(Box<RunRecord>),
    /// A file that fails its checksum or does not hold that run: why.
    Damaged(String),
}

/// Reads the file of one run and checks its checksum line and content.
pub(super) fn load_run(dir: &Path, spec: &ExperimentSpec, id: RunId) -> RunFile {
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
pub(super) fn read_run(
    dir: &Path,
    spec: &ExperimentSpec,
    id: RunId,
    progress: &dyn FolderProgress,
) -> Option<RunRecord> {
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
pub(super) fn move_aside(path: &Path) -> Result<PathBuf, ExperimentError> {
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
pub(super) fn lock_folder(dir: &Path, progress: &dyn FolderProgress) -> Result<Vec<LockGuard>, ExperimentError> {
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
pub(super) fn lock_folder_for_shard(
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

pub(super) fn report_removed(dir: &Path, removed: &[PathBuf], progress: &dyn FolderProgress) {
    if let Some(first) = removed.first() {
        progress.note(&format!(
            "removed {} stale temporary file(s) left by an interrupted bohf in `{}` (e.g. `{}`); nothing else changed",
            removed.len(),
            dir.display(),
            first.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
        ));
    }
}
