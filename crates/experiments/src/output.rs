//! Writing an experiment's results to a folder, each file atomically (written to a temporary file
//! in the same folder, synced, then renamed over the target), so an interrupted write never leaves a
//! truncated file behind.
//!
//! | file | content |
//! |---|---|
//! | `spec.toml` | the spec (parses back to the same spec) |
//! | `steps.csv` | one row per run × step, with `elapsed_s` ([`crate::results`]) |
//! | `summary.json` | mean and standard error per step and at the horizon ([`crate::summary`]) |
//! | `regret_instantaneous.{png,svg}`, `regret_cumulative.{png,svg}` | the plots ([`mod@crate::plot`]) |

use crate::error::{ExperimentError, Result};
use crate::plot::{Metric, plot};
use crate::results::Timing;
use crate::runner::Results;
use crate::summary::Summary;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A temporary sibling of `path` that keeps its extension (plot backends choose the format by it).
fn temp_sibling(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) => (s.to_string(), format!(".{e}")),
        None => (name.clone(), String::new()),
    };
    path.with_file_name(format!(".{stem}.tmp-{}{ext}", std::process::id()))
}

/// The stem of the file a temporary file of [`write_atomic`] or [`plot_atomic`] stands for
/// (`.{stem}.tmp-{pid}` with an optional `.{ext}`), or `None` if `name` is not such a file.
pub fn temp_file_stem(name: &str) -> Option<&str> {
    let rest = name.strip_prefix('.')?;
    let (stem, tail) = rest.rsplit_once(".tmp-")?;
    let pid = tail.split_once('.').map_or(tail, |(pid, _)| pid);
    (!stem.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then_some(stem)
}

/// Whether `name` is a temporary file of [`write_atomic`] or [`plot_atomic`].
pub fn is_temp_file_name(name: &str) -> bool {
    temp_file_stem(name).is_some()
}

/// Removes the temporary files of [`write_atomic`] and [`plot_atomic`] in `dir` (not in its
/// subfolders) that an interrupted process left behind, for the target files whose stem `owns`
/// accepts, and returns their paths. Call it only while no other process writes those files (e.g.
/// holding the folder's lock). A missing folder has none.
pub fn remove_stale_temp_files(dir: impl AsRef<Path>, owns: impl Fn(&str) -> bool) -> Result<Vec<PathBuf>> {
    let dir = dir.as_ref();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("read", dir)(e)),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err("read", dir))?;
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if is_file && temp_file_stem(&entry.file_name().to_string_lossy()).is_some_and(&owns) {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(io_err("remove", &path))?;
            removed.push(path);
        }
    }
    removed.sort();
    Ok(removed)
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ExperimentError + 'a {
    move |source| ExperimentError::Io { action, path: path.to_path_buf(), source }
}

/// Writes `bytes` to `path` atomically: temporary file, fsync, rename.
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> Result<()> {
    let path = path.as_ref();
    let tmp = temp_sibling(path);
    let mut f = std::fs::File::create(&tmp).map_err(io_err("create", &tmp))?;
    f.write_all(bytes).map_err(io_err("write", &tmp))?;
    f.sync_all().map_err(io_err("write", &tmp))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(io_err("rename", path))
}

/// Draws a plot atomically (to a temporary file, then renamed).
pub fn plot_atomic(summary: &Summary, metric: Metric, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let tmp = temp_sibling(path);
    let result = plot(summary, metric, &tmp);
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(match e {
            ExperimentError::Plot { reason, .. } => ExperimentError::Plot { path: path.to_path_buf(), reason },
            other => other,
        });
    }
    std::fs::rename(&tmp, path).map_err(io_err("rename", path))
}

/// The files [`write_results`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFiles {
    /// `spec.toml`.
    pub spec: PathBuf,
    /// `steps.csv`.
    pub steps: PathBuf,
    /// `summary.json`.
    pub summary: PathBuf,
    /// The plots.
    pub plots: Vec<PathBuf>,
}

/// Writes the spec, the per-step CSV, the JSON summary and the instantaneous and cumulative regret
/// plots (PNG and SVG) into `dir` (created if needed).
pub fn write_results(results: &Results, dir: impl AsRef<Path>) -> Result<OutputFiles> {
    let dir = dir.as_ref();
    std::fs::create_dir_all(dir).map_err(io_err("create", dir))?;
    let spec = dir.join("spec.toml");
    write_atomic(&spec, results.spec().to_toml_string()?.as_bytes())?;
    let steps = dir.join("steps.csv");
    write_atomic(&steps, results.to_csv(Timing::Include).as_bytes())?;
    let summary = results.summary()?;
    let summary_path = dir.join("summary.json");
    write_atomic(&summary_path, summary.to_json()?.as_bytes())?;
    let mut plots = Vec::new();
    for metric in [Metric::Instantaneous, Metric::Cumulative] {
        for ext in ["png", "svg"] {
            let p = dir.join(format!("regret_{}.{ext}", metric.as_str()));
            plot_atomic(&summary, metric, &p)?;
            plots.push(p);
        }
    }
    Ok(OutputFiles { spec, steps, summary: summary_path, plots })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognised_and_only_they() {
        let tmp = temp_sibling(Path::new("/x/runs/a0-r3.csv"));
        assert!(is_temp_file_name(&tmp.file_name().unwrap().to_string_lossy()));
        assert!(is_temp_file_name(&temp_sibling(Path::new("spec")).file_name().unwrap().to_string_lossy()));
        assert_eq!(temp_file_stem(&tmp.file_name().unwrap().to_string_lossy()), Some("a0-r3"));
        for name in
            ["a0-r3.csv", ".lock", "a0-r3.csv.damaged", ".a0.tmp-.csv", ".a0.tmp-12x.csv", "x.tmp-12.csv", ".tmp-1"]
        {
            assert!(!is_temp_file_name(name), "{name}");
        }
    }
}
