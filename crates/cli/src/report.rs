//! `bohf plot` and `bohf summary`: from a results folder's `summary.json`.

use crate::CliError;
use bohf_experiments::{HORIZON_CSV_COLUMNS, MeanSe, Metric, Summary, plot_atomic};
use std::path::{Path, PathBuf};

/// Reads `DIR/summary.json` (or a summary file given directly) and checks the `steps.csv` beside it
/// against the checksum the summary records ([`bohf_experiments::verify_steps_csv`]).
pub fn load_summary(dir: &Path) -> Result<Summary, CliError> {
    let path = if dir.is_dir() { dir.join("summary.json") } else { dir.to_path_buf() };
    if !path.exists() {
        let hint = if dir.join("runs").is_dir() {
            format!(
                " (the runs are there: finish them with `bohf run SPEC --out {0} --resume`, or `bohf merge {0}` \
                 after sharded runs)",
                dir.display()
            )
        } else {
            String::new()
        };
        return Err(CliError::msg(format!("no results summary at `{}`{hint}", path.display())));
    }
    let text = std::fs::read_to_string(&path).map_err(|source| {
        CliError::Experiment(bohf_experiments::ExperimentError::Io { action: "read", path: path.clone(), source })
    })?;
    let summary = Summary::from_json(&text).map_err(|e| CliError::msg(format!("`{}`: {e}", path.display())))?;
    if let Some(folder) = path.parent() {
        bohf_experiments::verify_steps_csv(folder, &summary)?;
    }
    Ok(summary)
}

/// `bohf plot`: writes the plot of `metric`; the default file is `DIR/regret_<metric>.png`.
pub fn plot(dir: &Path, out: Option<PathBuf>, metric: Metric) -> Result<PathBuf, CliError> {
    let summary = load_summary(dir)?;
    let out = out.unwrap_or_else(|| dir.join(format!("regret_{}.png", metric.as_str())));
    match out.extension().and_then(|e| e.to_str()) {
        Some("png" | "svg") => {}
        _ => return Err(CliError::msg(format!("--out must end in .png or .svg, got `{}`", out.display()))),
    }
    plot_atomic(&summary, metric, &out)?;
    Ok(out)
}

fn pm(m: MeanSe) -> String {
    bohf_reproduce::pm(m)
}

/// The values at the horizon as an aligned plain-text table.
pub fn terminal_table(s: &Summary) -> String {
    let header = ["algorithm", "runs", "r_T", "R(T)", "simple regret", "wall s/run"];
    let rows: Vec<[String; 6]> = s
        .algorithms
        .iter()
        .map(|a| {
            let h = &a.at_horizon;
            [
                a.label.clone(),
                a.runs.to_string(),
                pm(h.instantaneous),
                pm(h.cumulative),
                pm(h.simple),
                format!("{:.3} ± {:.3}", h.wall_seconds.mean, h.wall_seconds.se),
            ]
        })
        .collect();
    let width =
        |i: usize| rows.iter().map(|r| r[i].chars().count()).chain([header[i].chars().count()]).max().unwrap_or(0);
    let widths: Vec<usize> = (0..6).map(width).collect();
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = widths[i] - c.chars().count();
            if i == 0 {
                l.push_str(c);
                l.push_str(&" ".repeat(pad));
            } else {
                l.push_str("  ");
                l.push_str(&" ".repeat(pad));
                l.push_str(c);
            }
        }
        l.trim_end().to_string() + "\n"
    };
    let mut out = format!("{}\n{}\n\n", s.title, where_read(s));
    out.push_str(&line(header.to_vec()));
    out.push_str(&line(widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().iter().map(String::as_str).collect()));
    for r in &rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    if !s.failures.is_empty() {
        out.push_str(&format!("\n{} run(s) failed (on_error = \"continue\"); not in the table:\n", s.failures.len()));
        for f in &s.failures {
            out.push_str(&format!("  {f}\n"));
        }
    }
    out
}

/// Where the table's values are read: at the horizon T, or, for a spec with a `[budget]`, at each
/// run's end (a run stops once its budget is spent; its curves hold the last value up to T).
fn where_read(s: &Summary) -> String {
    match &s.spec.budget {
        None => format!("T = {}, mean ± s.e. ({}) at the horizon", s.spec.horizon, s.standard_error),
        Some(b) => format!(
            "budget Λ = {} (T = {} only caps a run), mean ± s.e. ({}) at each run's end",
            b.total, s.spec.horizon, s.standard_error
        ),
    }
}

/// The values at the horizon as CSV (full precision).
pub fn csv_table(s: &Summary) -> String {
    let mut out = format!("algorithm,{HORIZON_CSV_COLUMNS}\n");
    for a in &s.algorithms {
        let label = if a.label.contains([',', '"']) {
            format!("\"{}\"", a.label.replace('"', "\"\""))
        } else {
            a.label.clone()
        };
        out.push_str(&format!("{label},{}\n", a.at_horizon.csv_fields(a.runs)));
    }
    out
}
