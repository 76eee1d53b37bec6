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

/// Removes the temporary siblings of `path` (as [`write_atomic`] and [`plot_atomic`] name them,
/// `.STEM.tmp-PID.EXT`) that an interrupted save left behind, e.g. after `kill -9`; returns the
/// removed files. Call it only while holding a lock that keeps every other writer of `path` away,
/// so that no temporary file found can still be in use.
pub fn remove_stale_temps(path: impl AsRef<Path>) -> Result<Vec<PathBuf>> {
    let path = path.as_ref();
    let probe = temp_sibling(path);
    let probe_name = probe.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let pid = std::process::id().to_string();
    let Some((prefix, ext)) = probe_name.split_once(&format!(".tmp-{pid}")) else { return Ok(Vec::new()) };
    let prefix = format!("{prefix}.tmp-");
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("read", &dir)(e)),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err("read", &dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_temp = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(ext))
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
        if is_temp {
            let p = entry.path();
            std::fs::remove_file(&p).map_err(io_err("remove", &p))?;
            removed.push(p);
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
    fn remove_stale_temps_removes_only_the_temporary_siblings_of_the_file() {
        let dir = std::env::temp_dir().join(format!("bohf-stale-temps-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let keep = ["s.json", "s.json.bak", ".s.tmp-12x.json", ".s.tmp-.json", ".t.tmp-5.json", ".s.tmp-5.csv"];
        let stale = [".s.tmp-5.json", ".s.tmp-4294967295.json"];
        for f in keep.iter().chain(&stale) {
            std::fs::write(dir.join(f), "x").unwrap();
        }
        let removed = remove_stale_temps(dir.join("s.json")).unwrap();
        let mut want: Vec<PathBuf> = stale.iter().map(|f| dir.join(f)).collect();
        want.sort();
        assert_eq!(removed, want);
        for f in keep {
            assert!(dir.join(f).exists(), "{f} was removed");
        }
        // The backup's temporary files are named after the whole name `s.json` with extension `.bak`.
        std::fs::write(dir.join(".s.json.tmp-77.bak"), "x").unwrap();
        assert_eq!(remove_stale_temps(dir.join("s.json.bak")).unwrap(), vec![dir.join(".s.json.tmp-77.bak")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
