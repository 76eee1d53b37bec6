//! Per-step records of runs and their CSV form (one row per run × step).
//!
//! Columns of the CSV, in order:
//!
//! | column | meaning |
//! |---|---|
//! | `algorithm` | the algorithm's label |
//! | `run` | the run index (0-based) |
//! | `t` | the step (1-based) |
//! | `query` | `duel`, `evaluate`, `label` or `choice` |
//! | `first`, `second` | the query's points (`second` empty unless a duel or a choice): candidate indices, or on a box problem the coordinates joined by `;` (e.g. `0.25;-1.5`); a best-of-k choice writes its first option in `first` and the other k − 1 options, in order, in `second` joined by `\|` (e.g. `4\|0\|7`) |
//! | `answer` | a duel: 1 if the first point won, else 0; a label: 1 if accepted; a value: the number; a choice: the 0-based position of the chosen option (0 = `first`) |
//! | `regret` | the instantaneous regret r_t ([`crate::metrics`]) |
//! | `cumulative_regret` | R(t) = Σ_{s ≤ t} r_s |
//! | `recommendation` | the recommendation x̂_t after step t: a candidate index, or coordinates as above |
//! | `simple_regret` | P(x* ≻ x̂_t) − ½ |
//! | `elapsed_s` | seconds spent in the algorithm (suggest, observe, recommend) up to step t; written only with [`Timing::Include`] |
//! | `details` | the algorithm's [`bohf_core::StepDetails`] of the step as `name=value` pairs joined by `;` (e.g. COBOL's `phase=iteration;branch=expert;lambda=0.98;…`); the column is written only if some step of the runs has details, so the CSV of algorithms without any is unchanged |
//!
//! Numbers are written in Rust's shortest round-trip form, so reading a CSV back gives the same
//! values bit for bit. Everything but `elapsed_s` is a deterministic function of the spec, so two
//! CSVs written with [`Timing::Omit`] can be compared byte for byte.

use crate::error::{ExperimentError, Result};
use crate::runner::RunId;
use bohf_core::{Answer, DomainKind, Point};
use bohf_problems::datasets::CsvTable;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// The kind of a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryKind {
    /// Two points, a preference.
    Duel,
    /// One point, a value.
    Evaluate,
    /// One point, accept/reject.
    Label,
    /// k ≥ 2 points, the index of the preferred one (a best-of-k query).
    Choice,
}

impl QueryKind {
    /// The CSV spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            QueryKind::Duel => "duel",
            QueryKind::Evaluate => "evaluate",
            QueryKind::Label => "label",
            QueryKind::Choice => "choice",
        }
    }
}

/// A point as a run records it: a candidate index on a finite candidate set, the coordinates on a
/// box. In the CSV an index is written as digits, coordinates in Rust's shortest round-trip form
/// joined by `;` (a coordinate always has a `.`, an `e` or a sign besides digits, so the two never
/// read as each other).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PointRecord {
    /// A candidate index.
    Candidate(usize),
    /// Coordinates in ℝ^d.
    Coords(Vec<f64>),
}

impl PointRecord {
    /// The record of a point of a problem on a domain of `kind`: its candidate index (which it must
    /// carry) on a finite candidate set, its (finite) coordinates on a box; errors name `point`.
    pub fn of(p: &Point, kind: DomainKind) -> bohf_core::Result<Self> {
        match kind {
            DomainKind::Finite => crate::metrics::index(p).map(PointRecord::Candidate),
            DomainKind::Box => {
                if p.coords.is_empty() {
                    return Err(bohf_core::Error::invalid("point", "a point of a box problem has no coordinates"));
                }
                bohf_core::error::ensure_finite("point", p.coords.iter())?;
                Ok(PointRecord::Coords(p.coords.clone()))
            }
        }
    }

    /// The candidate index, if a candidate.
    pub fn index(&self) -> Option<usize> {
        match self {
            PointRecord::Candidate(i) => Some(*i),
            PointRecord::Coords(_) => None,
        }
    }

    /// The coordinates, if recorded by coordinates.
    pub fn coords(&self) -> Option<&[f64]> {
        match self {
            PointRecord::Candidate(_) => None,
            PointRecord::Coords(c) => Some(c),
        }
    }

    /// The CSV field.
    pub fn to_field(&self) -> String {
        match self {
            PointRecord::Candidate(i) => i.to_string(),
            PointRecord::Coords(c) => c.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(";"),
        }
    }

    /// Reads a CSV field written by [`PointRecord::to_field`]: digits are an index, anything else
    /// finite numbers joined by `;`. `None` if it is neither.
    pub fn parse(field: &str) -> Option<Self> {
        if !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit()) {
            return field.parse().ok().map(PointRecord::Candidate);
        }
        let coords: Vec<f64> =
            field.split(';').map(|v| v.parse::<f64>().ok().filter(|x| x.is_finite())).collect::<Option<_>>()?;
        Some(PointRecord::Coords(coords))
    }
}

/// What happened at one step of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step t (1-based).
    pub t: usize,
    /// The kind of query.
    pub query: QueryKind,
    /// The (first) point.
    pub first: PointRecord,
    /// The second point of a duel or of a choice.
    pub second: Option<PointRecord>,
    /// All k options of a best-of-k choice, in order (`first` and `second` are the first two);
    /// empty for every other kind of query.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<PointRecord>,
    /// The respondent's answer.
    pub answer: Answer,
    /// The instantaneous regret r_t.
    pub regret: f64,
    /// The cumulative regret R(t).
    pub cumulative_regret: f64,
    /// The recommendation after step t.
    pub recommendation: PointRecord,
    /// The simple regret of the recommendation.
    pub simple_regret: f64,
    /// Seconds spent in the algorithm up to step t (not deterministic).
    pub elapsed_s: f64,
    /// The algorithm's [`bohf_core::StepDetails`] of the step (empty for most algorithms).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<(String, String)>,
}

impl StepRecord {
    /// The value of detail `name`, if the algorithm recorded it.
    pub fn detail(&self, name: &str) -> Option<&str> {
        self.details.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The `details` CSV field: `name=value` pairs joined by `;`.
    pub fn details_field(&self) -> String {
        self.details.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";")
    }
}

/// Reads a `details` field written by [`StepRecord::details_field`]; `None` if a pair has no `=`.
pub fn parse_details(field: &str) -> Option<Vec<(String, String)>> {
    if field.is_empty() {
        return Some(Vec::new());
    }
    field.split(';').map(|p| p.split_once('=').map(|(k, v)| (k.to_string(), v.to_string()))).collect()
}

/// All steps of one run of one algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Which algorithm and run.
    pub id: RunId,
    /// The algorithm's label.
    pub label: String,
    /// Steps 1..=T.
    pub steps: Vec<StepRecord>,
}

/// Whether a CSV has the (non-deterministic) `elapsed_s` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    /// Write `elapsed_s`.
    Include,
    /// Leave it out, so that the CSV is a deterministic function of the spec.
    Omit,
}

/// The CSV header without `elapsed_s`.
pub const CSV_COLUMNS: [&str; 11] = [
    "algorithm",
    "run",
    "t",
    "query",
    "first",
    "second",
    "answer",
    "regret",
    "cumulative_regret",
    "recommendation",
    "simple_regret",
];

/// The CSV header line (with a final newline), with the `details` column if `details`.
pub fn csv_header(timing: Timing, details: bool) -> String {
    let mut h = CSV_COLUMNS.join(",");
    if timing == Timing::Include {
        h.push_str(",elapsed_s");
    }
    if details {
        h.push_str(",details");
    }
    h.push('\n');
    h
}

/// Whether any step of `runs` has details (then the CSV has the `details` column).
fn any_details(runs: &[RunRecord]) -> bool {
    runs.iter().any(|r| r.steps.iter().any(|s| !s.details.is_empty()))
}

/// A field quoted if it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

impl RunRecord {
    /// The wall time of the run's algorithm calls (the last step's `elapsed_s`).
    pub fn wall_seconds(&self) -> f64 {
        self.steps.last().map_or(0.0, |s| s.elapsed_s)
    }

    /// The run's rows of the CSV (no header), with the `details` field if `details`.
    pub fn csv_rows(&self, timing: Timing, details: bool) -> String {
        let mut out = String::new();
        let label = csv_field(&self.label);
        for s in &self.steps {
            let answer = match s.answer {
                Answer::Duel { first_wins } => u8::from(first_wins).to_string(),
                Answer::Label { accept } => u8::from(accept).to_string(),
                Answer::Value(v) => format!("{v:?}"),
                Answer::Choice { index } => index.to_string(),
            };
            let second = if s.query == QueryKind::Choice {
                s.options.iter().skip(1).map(PointRecord::to_field).collect::<Vec<_>>().join("|")
            } else {
                s.second.as_ref().map(PointRecord::to_field).unwrap_or_default()
            };
            let _ = write!(
                out,
                "{label},{},{},{},{},{second},{answer},{:?},{:?},{},{:?}",
                self.id.run,
                s.t,
                s.query.as_str(),
                s.first.to_field(),
                s.regret,
                s.cumulative_regret,
                s.recommendation.to_field(),
                s.simple_regret
            );
            if timing == Timing::Include {
                let _ = write!(out, ",{:?}", s.elapsed_s);
            }
            if details {
                let _ = write!(out, ",{}", csv_field(&s.details_field()));
            }
            out.push('\n');
        }
        out
    }

    /// The run as a CSV file with header.
    pub fn to_csv(&self, timing: Timing) -> String {
        let details = any_details(std::slice::from_ref(self));
        csv_header(timing, details) + &self.csv_rows(timing, details)
    }
}

/// All runs as one CSV (header, then the runs in the given order).
pub fn runs_to_csv(runs: &[RunRecord], timing: Timing) -> String {
    let details = any_details(runs);
    let mut out = csv_header(timing, details);
    for r in runs {
        out.push_str(&r.csv_rows(timing, details));
    }
    out
}

/// Reads runs back from CSV text written by [`runs_to_csv`] or [`RunRecord::to_csv`] (with or
/// without `elapsed_s`, which reads as 0 when absent). `labels` maps each label to its algorithm
/// index. Rows of one run must be consecutive with t = 1, 2, …; runs come back in file order.
pub fn runs_from_csv(text: &str, labels: &[String], path: Option<&Path>) -> Result<Vec<RunRecord>> {
    let source = path.map(Path::to_path_buf).unwrap_or_else(|| "<csv>".into());
    let bad = |reason: String| ExperimentError::Results { path: path.map(Path::to_path_buf), reason };
    let table = CsvTable::parse(text, &source)?;
    let col = |name: &str| table.column(name).map_err(ExperimentError::from);
    let c: Vec<usize> = CSV_COLUMNS.iter().map(|n| col(n)).collect::<Result<_>>()?;
    let c_elapsed = table.header().iter().position(|h| h == "elapsed_s");
    let c_details = table.header().iter().position(|h| h == "details");
    let mut runs: Vec<RunRecord> = Vec::new();
    for (line, rec) in table.records() {
        let uint = |k: usize| -> Result<usize> {
            rec[c[k]]
                .parse()
                .map_err(|_| bad(format!("line {line}: `{}` is not an index: {:?}", CSV_COLUMNS[k], rec[c[k]])))
        };
        let float = |i: usize| -> Result<f64> { Ok(table.number(line, rec, i)?) };
        let point = |k: usize| -> Result<PointRecord> {
            PointRecord::parse(&rec[c[k]]).ok_or_else(|| {
                bad(format!(
                    "line {line}: `{}` is neither a candidate index nor coordinates joined by `;`: {:?}",
                    CSV_COLUMNS[k], rec[c[k]]
                ))
            })
        };
        let label = &rec[c[0]];
        let algorithm = labels
            .iter()
            .position(|l| l == label)
            .ok_or_else(|| bad(format!("line {line}: unknown algorithm label `{label}`")))?;
        let run = uint(1)?;
        let t = uint(2)?;
        let query = match rec[c[3]].as_str() {
            "duel" => QueryKind::Duel,
            "evaluate" => QueryKind::Evaluate,
            "label" => QueryKind::Label,
            "choice" => QueryKind::Choice,
            other => return Err(bad(format!("line {line}: unknown query kind {other:?}"))),
        };
        let first = point(4)?;
        let (second, options) = if query == QueryKind::Choice {
            let mut options = vec![first.clone()];
            for field in rec[c[5]].split('|') {
                options.push(PointRecord::parse(field).ok_or_else(|| {
                    bad(format!(
                        "line {line}: `second` of a choice must be its other options joined by `|`, got {:?}",
                        rec[c[5]]
                    ))
                })?);
            }
            (Some(options[1].clone()), options)
        } else {
            (if rec[c[5]].is_empty() { None } else { Some(point(5)?) }, Vec::new())
        };
        if (query == QueryKind::Duel) != second.is_some() && query != QueryKind::Choice {
            return Err(bad(format!("line {line}: a duel needs `second`, other queries must leave it empty")));
        }
        let flag = || match rec[c[6]].as_str() {
            "1" => Ok(true),
            "0" => Ok(false),
            other => Err(bad(format!("line {line}: answer {other:?} is not 0 or 1"))),
        };
        let answer = match query {
            QueryKind::Duel => Answer::Duel { first_wins: flag()? },
            QueryKind::Label => Answer::Label { accept: flag()? },
            QueryKind::Evaluate => Answer::Value(float(c[6])?),
            QueryKind::Choice => {
                let index = uint(6)?;
                if index >= options.len() {
                    return Err(bad(format!(
                        "line {line}: answer {index} is not the position of one of the choice's {} options",
                        options.len()
                    )));
                }
                Answer::Choice { index }
            }
        };
        let step = StepRecord {
            t,
            query,
            first,
            second,
            options,
            answer,
            regret: float(c[7])?,
            cumulative_regret: float(c[8])?,
            recommendation: point(9)?,
            simple_regret: float(c[10])?,
            elapsed_s: match c_elapsed {
                Some(i) => float(i)?,
                None => 0.0,
            },
            details: match c_details {
                Some(i) => parse_details(&rec[i])
                    .ok_or_else(|| bad(format!("line {line}: `details` is not name=value pairs: {:?}", rec[i])))?,
                None => Vec::new(),
            },
        };
        let id = RunId { algorithm, run };
        match runs.last_mut() {
            Some(r) if r.id == id => {
                if t != r.steps.len() + 1 {
                    return Err(bad(format!("line {line}: step {t} follows step {}", r.steps.len())));
                }
                r.steps.push(step);
            }
            _ => {
                if t != 1 {
                    return Err(bad(format!("line {line}: run {run} of `{label}` starts at step {t}, not 1")));
                }
                if runs.iter().any(|r| r.id == id) {
                    return Err(bad(format!("line {line}: run {run} of `{label}` appears twice")));
                }
                runs.push(RunRecord { id, label: label.clone(), steps: vec![step] });
            }
        }
    }
    Ok(runs)
}

#[cfg(test)]
mod tests;
