//! A finished panel's values at the horizon, as stored in `<name>.horizon.csv`.

use bohf_experiments::Metric;
use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::summary::{AtHorizon, HORIZON_CSV_COLUMNS, MeanSe, Summary};
use std::fmt::Write as _;

/// The values of one algorithm at the horizon, as stored in `<name>.horizon.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct AlgorithmRow {
    /// Its label.
    pub label: String,
    /// Number of runs.
    pub runs: usize,
    /// The values at T.
    pub at: AtHorizon,
}

/// A finished panel, as stored in `<name>.horizon.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelResult {
    /// The spec name.
    pub name: String,
    /// The plot title.
    pub title: String,
    /// T.
    pub horizon: usize,
    /// Whether this was a `--quick` smoke test.
    pub quick: bool,
    /// Wall time of the whole panel (all runs of all algorithms), seconds.
    pub elapsed_s: f64,
    /// One row per algorithm, in spec order.
    pub algorithms: Vec<AlgorithmRow>,
}

impl PanelResult {
    /// The values at the horizon of a finished panel (`elapsed_s`: wall time of all its runs).
    pub fn from_summary(name: &str, summary: &Summary, quick: bool, elapsed_s: f64) -> Self {
        Self {
            name: name.to_string(),
            title: summary.title.clone(),
            horizon: summary.spec.horizon,
            quick,
            elapsed_s,
            algorithms: summary
                .algorithms
                .iter()
                .map(|a| AlgorithmRow { label: a.label.clone(), runs: a.runs, at: a.at_horizon })
                .collect(),
        }
    }

    /// The row of the algorithm labelled `label`.
    pub fn get(&self, label: &str) -> Option<&AlgorithmRow> {
        self.algorithms.iter().find(|a| a.label == label)
    }

    /// The value of `metric` for `label` (`None` for a utility gap, which a panel does not keep).
    pub fn metric(&self, label: &str, metric: Metric) -> Option<MeanSe> {
        let at = &self.get(label)?.at;
        Some(match metric {
            Metric::Instantaneous => at.instantaneous,
            Metric::Cumulative => at.cumulative,
            Metric::Simple => at.simple,
            // A panel keeps the papers' preference regrets only.
            Metric::InstantaneousGap | Metric::CumulativeGap | Metric::SimpleGap => return None,
        })
    }

    /// The CSV text: one header comment with the panel's fields, then one row per algorithm.
    /// Numbers are written with Rust's shortest round-trip formatting, so they parse back exactly.
    pub fn to_csv(&self) -> Result<String> {
        let bad = |reason: String| ExperimentError::Results { path: None, reason };
        if self.title.contains(['\n', '\t']) || self.name.contains(['\n', '\t']) {
            return Err(bad(format!("`{}` / `{}` contains a tab or newline", self.name, self.title)));
        }
        if let Some(a) = self.algorithms.iter().find(|a| a.label.contains([',', '\n', '\t'])) {
            return Err(bad(format!("label `{}` contains a comma, tab or newline", a.label)));
        }
        let mut s = format!(
            "# name\t{}\n# title\t{}\n# horizon\t{}\n# quick\t{}\n# elapsed_s\t{:?}\n",
            self.name, self.title, self.horizon, self.quick, self.elapsed_s
        );
        let _ = writeln!(s, "label,{HORIZON_CSV_COLUMNS}");
        for a in &self.algorithms {
            let _ = writeln!(s, "{},{}", a.label, a.at.csv_fields(a.runs));
        }
        Ok(s)
    }

    /// Parses [`PanelResult::to_csv`].
    pub fn from_csv(text: &str) -> Result<Self> {
        let bad = |reason: String| ExperimentError::Results { path: None, reason };
        fn parse<T: std::str::FromStr>(what: &str, v: &str) -> Result<T> {
            v.trim().parse().map_err(|_| ExperimentError::Results { path: None, reason: format!("bad {what} `{v}`") })
        }
        let mut header = std::collections::HashMap::new();
        let mut rows = Vec::new();
        let mut seen_columns = false;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if let Some(rest) = line.strip_prefix("# ") {
                let (k, v) = rest.split_once('\t').ok_or_else(|| bad(format!("bad header line `{line}`")))?;
                header.insert(k.to_string(), v.to_string());
            } else if !seen_columns {
                seen_columns = true;
            } else {
                let f: Vec<&str> = line.split(',').collect();
                if f.len() != 10 {
                    return Err(bad(format!("expected 10 fields, got {} in `{line}`", f.len())));
                }
                let num = |i: usize| -> Result<f64> { parse("number", f[i]) };
                let ms = |i: usize| -> Result<MeanSe> { Ok(MeanSe { mean: num(i)?, se: num(i + 1)? }) };
                rows.push(AlgorithmRow {
                    label: f[0].to_string(),
                    runs: parse("number of runs", f[1])?,
                    at: AtHorizon { instantaneous: ms(2)?, cumulative: ms(4)?, simple: ms(6)?, wall_seconds: ms(8)? },
                });
            }
        }
        let field = |k: &str| header.get(k).cloned().ok_or_else(|| bad(format!("missing header `{k}`")));
        Ok(Self {
            name: field("name")?,
            title: field("title")?,
            horizon: parse("horizon", &field("horizon")?)?,
            quick: parse("quick flag", &field("quick")?)?,
            elapsed_s: parse("elapsed_s", &field("elapsed_s")?)?,
            algorithms: rows,
        })
    }
}
