//! The table of COMP-GP-UCB's SVM task (`problem.kind = "svm"`, notes 002 §5.1): f and f_c
//! ([`bohf_problems::SvmTask`] at both fidelities) on the `points_per_dim²` grid of
//! (log₁₀ h, log₁₀ C) ∈ [−3, 1] × [−1, 5], tabulated in parallel and cached on disk.
//!
//! **Tabulation.** Each of the 2·n² values trains one SVM (the presets' 20 × 20 grid: 800 trainings,
//! ≈ 4 min on one core). They are computed on rayon's pool, each independently of the others and
//! collected in grid order, so the table does not depend on the thread count. A line on stderr
//! (through the `note` callback) reports progress every tenth of the work.
//!
//! **Cache.** With a cache folder (`problem.cache`, by default `<out>/../.svm-cache` under
//! `bohf run` and `bohf reproduce`, see [`crate::folder::with_default_cache`]) the table is stored in
//! `svm-<key hash>.csv`: a first line `# bohf svm table: <key>`, where the key lists everything the
//! values depend on (the data file's size and FNV-1a 64 checksum, the split seed and sizes, the
//! grid, the box, the SMO options), a header `log10_h,log10_c,f,f_c`, one row per grid point in
//! grid order with every number in Rust's shortest round-trip form (exact f64), and the
//! `# checksum` line of [`crate::checksum`]. A file that fails its checksum, has another key, other
//! coordinates, a wrong number of rows or a value outside [0, 1] is ignored with a warning and the
//! table is rebuilt and rewritten: never a panic, never a wrong table. A cache that cannot be
//! written is a warning too (the table is still used).

use crate::checksum::{fnv1a64, strip_checksum_line, with_checksum_line};
use crate::error::{ExperimentError, Result};
use crate::spec::SvmProblem;
use bohf_core::FiniteDomain;
use bohf_problems::functions::{Fidelity, TestFunction};
use bohf_problems::svm::{SmoOptions, SvmTask};
use bohf_problems::{DataError, GridFunction, load_magic};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// f (validation accuracy of the SVM on all training rows) and f_c (on the comparison subset) on
/// the same grid.
#[derive(Debug, Clone)]
pub struct SvmTable {
    /// f on the grid.
    pub high: GridFunction,
    /// f_c on the grid.
    pub low: GridFunction,
}

/// What the cache did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheOutcome {
    /// No cache folder: tabulated in memory.
    Disabled,
    /// Read from the cache file.
    Hit(PathBuf),
    /// No cache file yet: tabulated and written.
    Built(PathBuf),
    /// A cache file was unusable (the reason): tabulated and rewritten.
    Rebuilt(PathBuf, String),
}

const HEADER: &str = "log10_h,log10_c,f,f_c";
const KEY_PREFIX: &str = "# bohf svm table: ";

/// The key of a table: everything its values depend on, in one line.
fn key(p: &SvmProblem, data: &[u8], grid: &FiniteDomain) -> String {
    let o = SmoOptions::default();
    format!(
        "data_bytes={} data_fnv1a64={:016x} seed={} train={} validation={} comparison_train={} points_per_dim={} \
         log10_h=[{},{}] log10_c=[{},{}] grid_points={} smo_tolerance={:?} smo_max_iterations={}",
        data.len(),
        fnv1a64(data),
        p.seed,
        p.train,
        p.validation,
        p.comparison_train,
        p.points_per_dim,
        SvmTask::LOG_BANDWIDTH[0],
        SvmTask::LOG_BANDWIDTH[1],
        SvmTask::LOG_C[0],
        SvmTask::LOG_C[1],
        grid.len(),
        o.tolerance,
        o.max_iterations
    )
}

/// The cache file of `key` in `dir`.
fn cache_file(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("svm-{:016x}.csv", fnv1a64(key.as_bytes())))
}

/// The grid of the task's box with `points_per_dim` points per dimension (the order of
/// [`bohf_core::BoxDomain::grid`]).
fn svm_grid(points_per_dim: usize) -> Result<FiniteDomain> {
    Ok(SvmTask::search_box().grid(points_per_dim)?)
}

/// The coordinates of every grid point, in order.
fn coordinates(grid: &FiniteDomain) -> Result<Vec<Vec<f64>>> {
    Ok((0..grid.len()).map(|i| grid.coords(i)).collect::<bohf_core::Result<_>>()?)
}

/// The table's CSV text (with its key line and checksum line).
fn to_text(key: &str, xs: &[Vec<f64>], high: &[f64], low: &[f64]) -> String {
    let mut s = format!("{KEY_PREFIX}{key}\n{HEADER}\n");
    for ((x, h), l) in xs.iter().zip(high).zip(low) {
        s.push_str(&format!("{:?},{:?},{h:?},{l:?}\n", x[0], x[1]));
    }
    with_checksum_line(&s)
}

/// Parses a cache file's text against the expected key and grid: f and f_c, or why not.
fn from_text(text: &str, key: &str, xs: &[Vec<f64>]) -> std::result::Result<(Vec<f64>, Vec<f64>), String> {
    let body = strip_checksum_line(text).map_err(|e| e.to_string())?;
    let mut lines = body.lines();
    let stored = lines.next().and_then(|l| l.strip_prefix(KEY_PREFIX)).ok_or("it has no key line")?;
    if stored != key {
        return Err(format!("its key differs (stored `{stored}`, wanted `{key}`)"));
    }
    if lines.next() != Some(HEADER) {
        return Err(format!("its header is not `{HEADER}`"));
    }
    let (mut high, mut low) = (Vec::with_capacity(xs.len()), Vec::with_capacity(xs.len()));
    for (i, line) in lines.enumerate() {
        let Some(x) = xs.get(i) else {
            return Err(format!("it has more than the {} rows of the grid", xs.len()));
        };
        let v: Vec<f64> = line
            .split(',')
            .map(|f| f.parse::<f64>().map_err(|_| format!("row {}: cannot read `{f}` as a number", i + 1)))
            .collect::<std::result::Result<_, _>>()?;
        if v.len() != 4 || v[0].to_bits() != x[0].to_bits() || v[1].to_bits() != x[1].to_bits() {
            return Err(format!("row {} is not the grid point ({}, {})", i + 1, x[0], x[1]));
        }
        if !(0.0..=1.0).contains(&v[2]) || !(0.0..=1.0).contains(&v[3]) {
            return Err(format!("row {} has an accuracy outside [0, 1]", i + 1));
        }
        high.push(v[2]);
        low.push(v[3]);
    }
    if high.len() != xs.len() {
        return Err(format!("it has {} rows, the grid {}", high.len(), xs.len()));
    }
    Ok((high, low))
}

/// f and f_c of `p` on its grid: from the cache folder `p.cache` when it holds a valid table of
/// the same key, else tabulated (in parallel) and written there. `note` receives the progress and
/// warning lines. Errors name the data file (missing, malformed, too few records for the split).
pub fn svm_table(p: &SvmProblem, note: &(dyn Fn(&str) + Sync)) -> Result<(SvmTable, CacheOutcome)> {
    let data_err = |source| ExperimentError::Data(DataError::Io { path: p.data.clone(), source });
    let bytes = std::fs::read(&p.data).map_err(data_err)?;
    let grid = svm_grid(p.points_per_dim)?;
    let xs = coordinates(&grid)?;
    let key = key(p, &bytes, &grid);
    let file = p.cache.as_deref().map(|d| cache_file(d, &key));
    let mut stale = None;
    if let Some(file) = &file {
        match std::fs::read_to_string(file) {
            Ok(text) => match from_text(&text, &key, &xs) {
                Ok((high, low)) => {
                    let table =
                        SvmTable { high: GridFunction::new(grid.clone(), high)?, low: GridFunction::new(grid, low)? };
                    return Ok((table, CacheOutcome::Hit(file.clone())));
                }
                Err(why) => {
                    note(&format!(
                        "warning: ignoring the SVM table cache `{}`: {why}; tabulating again",
                        file.display()
                    ));
                    stale = Some(why);
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                note(&format!("warning: cannot read the SVM table cache `{}`: {e}; tabulating again", file.display()));
                stale = Some(e.to_string());
            }
        }
    }
    let (high, low) = tabulate(p, &xs, note)?;
    let outcome = match &file {
        None => CacheOutcome::Disabled,
        Some(file) => {
            let text = to_text(&key, &xs, &high, &low);
            let written = std::fs::create_dir_all(file.parent().unwrap_or(Path::new(".")))
                .map_err(|e| e.to_string())
                .and_then(|_| crate::write_atomic(file, text.as_bytes()).map_err(|e| e.to_string()));
            if let Err(e) = written {
                note(&format!("warning: cannot write the SVM table cache `{}`: {e}", file.display()));
            }
            match stale {
                Some(why) => CacheOutcome::Rebuilt(file.clone(), why),
                None => CacheOutcome::Built(file.clone()),
            }
        }
    };
    Ok((SvmTable { high: GridFunction::new(grid.clone(), high)?, low: GridFunction::new(grid, low)? }, outcome))
}

/// Trains the 2·n SVMs (f and f_c at each grid point) on rayon's pool; the values are collected in
/// grid order, so they do not depend on the thread count.
fn tabulate(p: &SvmProblem, xs: &[Vec<f64>], note: &(dyn Fn(&str) + Sync)) -> Result<(Vec<f64>, Vec<f64>)> {
    let data = load_magic(&p.data)?;
    if p.train + p.validation > data.len() {
        return Err(ExperimentError::spec(
            "problem.train",
            format!(
                "the data file `{}` has {} records, fewer than train + validation = {}",
                p.data.display(),
                data.len(),
                p.train + p.validation
            ),
        ));
    }
    let split = |fidelity| SvmTask::from_split(&data, p.seed, p.train, p.validation, p.comparison_train, fidelity);
    let tasks = [split(Fidelity::High)?, split(Fidelity::Low)?];
    let n = xs.len();
    let total = 2 * n;
    let done = AtomicUsize::new(0);
    let start = std::time::Instant::now();
    note(&format!(
        "tabulating the SVM task: {total} SVM trainings ({n} grid points × 2 fidelities) on `{}`",
        p.data.display()
    ));
    let values: Vec<f64> = (0..total)
        .into_par_iter()
        .map(|j| {
            let (task, i) = (&tasks[j % 2], j / 2);
            let v = task.value(&xs[i])?;
            let k = done.fetch_add(1, Ordering::Relaxed) + 1;
            if k * 10 / total != (k - 1) * 10 / total {
                note(&format!("  SVM table: {k} of {total} trainings ({:.0} s)", start.elapsed().as_secs_f64()));
            }
            Ok(v)
        })
        .collect::<Result<_>>()?;
    let high = values.iter().step_by(2).copied().collect();
    let low = values.iter().skip(1).step_by(2).copied().collect();
    Ok((high, low))
}

#[cfg(test)]
mod tests;
