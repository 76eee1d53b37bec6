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
//! | `feedback_*.{png,svg}` | for specs with labels or a `[budget]`: the [`FeedbackPlot`]s whose curves are not empty (simple regret and Σ SR against f-evaluations, expert queries against steps and against f-evaluations, simple regret against spent budget) |

use crate::checksum::fnv1a64_tag;
use crate::error::{ExperimentError, Result};
use crate::plot::{FeedbackPlot, Metric, Panel, plot, plot_panel};
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

/// The name of the file that a temporary file of [`write_atomic`] or [`plot_atomic`] stands for
/// (`.{stem}.tmp-{pid}.{ext}` stands for `{stem}.{ext}`, `.{stem}.tmp-{pid}` for `{stem}`), or
/// `None` if `name` is not such a temporary file.
pub fn temp_file_target(name: &str) -> Option<String> {
    let rest = name.strip_prefix('.')?;
    let (stem, tail) = rest.rsplit_once(".tmp-")?;
    let (pid, ext) = tail.split_once('.').map_or((tail, None), |(pid, ext)| (pid, Some(ext)));
    if stem.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match ext {
        Some(ext) => format!("{stem}.{ext}"),
        None => stem.to_string(),
    })
}

/// Removes the temporary files of [`write_atomic`] and [`plot_atomic`] in `dir` (not in its
/// subfolders) that an interrupted process (e.g. `kill -9`) left behind, for the target file names
/// that `owns` accepts (see [`temp_file_target`]), and returns their paths, sorted. Call it only
/// while holding a lock that keeps every other writer of those files away, so that no temporary file
/// found can still be in use. A missing folder has none.
pub fn remove_stale_temp_files(dir: impl AsRef<Path>, owns: impl Fn(&str) -> bool) -> Result<Vec<PathBuf>> {
    let dir = dir.as_ref();
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("read", dir)(e)),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err("read", dir))?;
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if is_file && temp_file_target(&entry.file_name().to_string_lossy()).is_some_and(|t| owns(&t)) {
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
    atomic_plot(path.as_ref(), |tmp| plot(summary, metric, tmp))
}

/// [`crate::plot_small_multiples`] written as [`plot_atomic`] writes its plot.
pub fn small_multiples_atomic(summary: &Summary, metric: Metric, path: impl AsRef<Path>) -> Result<()> {
    atomic_plot(path.as_ref(), |tmp| crate::plot_small_multiples(summary, metric, tmp))
}

fn atomic_plot(path: &Path, draw: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let tmp = temp_sibling(path);
    let result = draw(&tmp);
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(match e {
            ExperimentError::Plot { reason, .. } => ExperimentError::Plot { path: path.to_path_buf(), reason },
            other => other,
        });
    }
    std::fs::rename(&tmp, path).map_err(io_err("rename", path))
}

/// Draws a [`Panel`] atomically (to a temporary file, then renamed).
pub fn panel_atomic(panel: &Panel, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let tmp = temp_sibling(path);
    if let Err(e) = plot_panel(panel, &tmp) {
        let _ = std::fs::remove_file(&tmp);
        return Err(match e {
            ExperimentError::Plot { reason, .. } => ExperimentError::Plot { path: path.to_path_buf(), reason },
            other => other,
        });
    }
    std::fs::rename(&tmp, path).map_err(io_err("rename", path))
}

/// What [`verify_steps_csv`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepsCsvCheck {
    /// `steps.csv` has the content recorded in `summary.json`.
    Verified,
    /// The summary records no checksum (written by an older bohf, or not by [`write_results`]):
    /// nothing to compare with.
    NotRecorded,
    /// There is no `steps.csv` beside the summary (the summary itself is still valid).
    Missing,
}

/// Checks the `steps.csv` in `dir` against the checksum that [`write_results`] recorded in its
/// summary ([`Summary::steps_csv`]). `steps.csv` is a copy of the run files for other tools; bohf
/// itself reads the run files and `summary.json`, so a changed `steps.csv` (an edited digit, a cut)
/// would otherwise go unnoticed. A mismatch is an error that names the file and how to rebuild it
/// (`bohf merge DIR` writes it again from `runs/`).
pub fn verify_steps_csv(dir: impl AsRef<Path>, summary: &Summary) -> Result<StepsCsvCheck> {
    let Some(recorded) = &summary.steps_csv else { return Ok(StepsCsvCheck::NotRecorded) };
    let path = dir.as_ref().join("steps.csv");
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(StepsCsvCheck::Missing),
        Err(e) => return Err(io_err("read", &path)(e)),
    };
    let computed = fnv1a64_tag(&bytes);
    if &computed != recorded {
        return Err(ExperimentError::Folder(format!(
            "`{}` was changed after bohf wrote it: its checksum is {computed}, summary.json records {recorded} \
             (the run files in runs/ are not affected; `bohf merge {}` writes steps.csv again from them)",
            path.display(),
            dir.as_ref().display()
        )));
    }
    Ok(StepsCsvCheck::Verified)
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

/// Writes the spec, the per-step CSV, the JSON summary, the instantaneous and cumulative regret
/// plots and (for specs with labels or a `[budget]`) the feedback plots, PNG and SVG, into `dir`
/// (created if needed).
pub fn write_results(results: &Results, dir: impl AsRef<Path>) -> Result<OutputFiles> {
    let dir = dir.as_ref();
    std::fs::create_dir_all(dir).map_err(io_err("create", dir))?;
    let spec = dir.join("spec.toml");
    write_atomic(&spec, results.spec().to_toml_string()?.as_bytes())?;
    let steps = dir.join("steps.csv");
    let csv = results.to_csv(Timing::Include);
    write_atomic(&steps, csv.as_bytes())?;
    let mut summary = results.summary()?;
    summary.steps_csv = Some(fnv1a64_tag(csv.as_bytes()));
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
    for which in FeedbackPlot::ALL {
        let Some(panel) = Panel::feedback(&summary, which) else { continue };
        for ext in ["png", "svg"] {
            let p = dir.join(format!("{}.{ext}", which.file_stem()));
            panel_atomic(&panel, &p)?;
            plots.push(p);
        }
    }
    Ok(OutputFiles { spec, steps, summary: summary_path, plots })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{run_with_threads, scratch_dir, small_spec};
    use crate::{ExperimentSpec, Metric, Results, plot};

    #[test]
    fn temp_names_map_back_to_their_target_and_only_they() {
        for target in ["/x/runs/a0-r3.csv", "spec", "/d/s.json", "/d/s.json.bak"] {
            let target = Path::new(target);
            let tmp = temp_sibling(target);
            let want = target.file_name().unwrap().to_string_lossy().into_owned();
            assert_eq!(temp_file_target(&tmp.file_name().unwrap().to_string_lossy()), Some(want));
        }
        for name in
            ["a0-r3.csv", ".lock", "a0-r3.csv.damaged", ".a0.tmp-.csv", ".a0.tmp-12x.csv", "x.tmp-12.csv", ".tmp-1"]
        {
            assert_eq!(temp_file_target(name), None, "{name}");
        }
    }

    #[test]
    fn remove_stale_temp_files_removes_only_the_owned_temporary_files() {
        let dir = std::env::temp_dir().join(format!("bohf-stale-temps-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let keep = ["s.json", "s.json.bak", ".s.tmp-12x.json", ".s.tmp-.json", ".t.tmp-5.json", ".s.tmp-5.csv"];
        let stale = [".s.tmp-5.json", ".s.tmp-4294967295.json", ".s.json.tmp-77.bak"];
        for f in keep.iter().chain(&stale) {
            std::fs::write(dir.join(f), "x").unwrap();
        }
        let removed = remove_stale_temp_files(&dir, |t| t == "s.json" || t == "s.json.bak").unwrap();
        let mut want: Vec<PathBuf> = stale.iter().map(|f| dir.join(f)).collect();
        want.sort();
        assert_eq!(removed, want);
        for f in keep {
            assert!(dir.join(f).exists(), "{f} was removed");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn results_folder_with_plots() {
        let r = run_with_threads(&small_spec(), 2);
        let dir = scratch_dir("folder");
        let files = write_results(&r, &dir).unwrap();
        let spec = ExperimentSpec::from_file(&files.spec).unwrap();
        assert_eq!(&spec, r.spec());
        let csv = std::fs::read_to_string(&files.steps).unwrap();
        assert!(csv.starts_with(
            "algorithm,run,t,query,first,second,answer,regret,cumulative_regret,recommendation,simple_regret,\
             utility_gap,cumulative_utility_gap,simple_utility_gap,elapsed_s\n"
        ));
        assert!(Results::from_csv(spec, r.title(), &csv).unwrap() == r, "steps.csv does not read back");
        assert_eq!(files.plots.len(), 4);
        for p in &files.plots {
            let bytes = std::fs::read(p).unwrap();
            assert!(bytes.len() > 1000, "{} has {} bytes", p.display(), bytes.len());
            if p.extension().unwrap() == "png" {
                assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
            } else {
                let svg = String::from_utf8(bytes).unwrap();
                assert!(svg.contains("<svg") && svg.contains("RKHS function (SE)"), "title missing");
                assert!(svg.contains("uniform-values (4 runs)"), "legend missing");
            }
        }
        // No temporary file is left behind.
        let names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
        // A plot to an unknown extension is an error naming the file.
        let e = plot(&r.summary().unwrap(), Metric::Simple, dir.join("x.gif")).unwrap_err();
        assert!(e.to_string().contains("x.gif"), "{e}");
        assert_eq!("cumulative".parse::<Metric>().unwrap(), Metric::Cumulative);
        assert!("total".parse::<Metric>().is_err());
    }
}
