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

/// `bohf plot`: writes the plot of `metric` (one chart, or with `grid` one small chart per
/// algorithm, [`bohf_experiments::plot_small_multiples`]); the default file is
/// `DIR/regret_<metric>.png` (`DIR/regret_<metric>-grid.png`).
pub fn plot(dir: &Path, out: Option<PathBuf>, metric: Metric, grid: bool) -> Result<PathBuf, CliError> {
    let summary = load_summary(dir)?;
    let out =
        out.unwrap_or_else(|| dir.join(format!("regret_{}{}.png", metric.as_str(), if grid { "-grid" } else { "" })));
    match out.extension().and_then(|e| e.to_str()) {
        Some("png" | "svg") => {}
        _ => return Err(CliError::msg(format!("--out must end in .png or .svg, got `{}`", out.display()))),
    }
    if grid {
        bohf_experiments::output::small_multiples_atomic(&summary, metric, &out)?;
    } else {
        plot_atomic(&summary, metric, &out)?;
    }
    Ok(out)
}

fn pm(m: MeanSe) -> String {
    bohf_reproduce::pm(m)
}

/// Whether every algorithm of `s` has the utility gaps (a summary written before them has none).
fn has_gaps(s: &Summary) -> bool {
    !s.algorithms.is_empty() && s.algorithms.iter().all(|a| a.utility_gap.is_some())
}

/// The values at the horizon as an aligned plain-text table: the preference regrets r_T, R(T) and
/// the simple regret, then (when the summary has them) the cumulative utility gap G(T) and the
/// utility gap of the recommendation u* − u(x̂_T).
pub fn terminal_table(s: &Summary) -> String {
    let gaps = has_gaps(s);
    let mut header = vec!["algorithm", "runs", "r_T", "R(T)", "simple regret"];
    if gaps {
        header.extend(["G(T)", "u* − u(x̂_T)"]);
    }
    header.push("wall s/run");
    let rows: Vec<Vec<String>> = s
        .algorithms
        .iter()
        .map(|a| {
            let h = &a.at_horizon;
            let mut row =
                vec![a.label.clone(), a.runs.to_string(), pm(h.instantaneous), pm(h.cumulative), pm(h.simple)];
            if let (true, Some(g)) = (gaps, &a.utility_gap) {
                row.extend([pm(g.cumulative_at_horizon), pm(g.simple_at_horizon)]);
            }
            row.push(format!("{:.3} ± {:.3}", h.wall_seconds.mean, h.wall_seconds.se));
            row
        })
        .collect();
    let width =
        |i: usize| rows.iter().map(|r| r[i].chars().count()).chain([header[i].chars().count()]).max().unwrap_or(0);
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
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
    out.push_str(&line(header.clone()));
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

/// The utility-gap columns of [`csv_table`], after [`HORIZON_CSV_COLUMNS`].
pub const GAP_HORIZON_COLUMNS: &str =
    "cumulative_utility_gap_mean,cumulative_utility_gap_se,simple_utility_gap_mean,simple_utility_gap_se";

/// The values at the horizon as CSV (full precision): [`HORIZON_CSV_COLUMNS`], then the utility
/// gaps G(T) and u* − u(x̂_T) ([`GAP_HORIZON_COLUMNS`], empty for a summary written before them).
pub fn csv_table(s: &Summary) -> String {
    let mut out = format!("algorithm,{HORIZON_CSV_COLUMNS},{GAP_HORIZON_COLUMNS}\n");
    for a in &s.algorithms {
        let label = if a.label.contains([',', '"']) {
            format!("\"{}\"", a.label.replace('"', "\"\""))
        } else {
            a.label.clone()
        };
        let gaps = a.utility_gap.as_ref().map_or_else(
            || ",,,".to_string(),
            |g| {
                let (c, f) = (g.cumulative_at_horizon, g.simple_at_horizon);
                format!("{:?},{:?},{:?},{:?}", c.mean, c.se, f.mean, f.se)
            },
        );
        out.push_str(&format!("{label},{},{gaps}\n", a.at_horizon.csv_fields(a.runs)));
    }
    out
}
