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
//! | `utility_gap` | the utility gap of the query, g_t ([`crate::metrics`]): u(x*) − u(x_t) for a single point, (2u(x*) − u(x_t) − u(x′_t))/2 for a duel, the mean of u(x*) − u(x_i) over a choice's options; in the units of the problem's own utility (before any scaling) (see [`crate::metrics`]) |
//! | `cumulative_utility_gap` | G(t) = Σ_{s ≤ t} g_s |
//! | `simple_utility_gap` | u(x*) − u(x̂_t), the utility gap of the recommendation (what BoTorch and most papers call the simple regret) |
//! | `elapsed_s` | seconds spent in the algorithm (suggest, observe, recommend) up to step t; written only with [`Timing::Include`] |
//! | `details` | the algorithm's [`bohf_core::StepDetails`] of the step as `name=value` pairs joined by `;` (e.g. COBOL's `phase=iteration;branch=expert;lambda=0.98;…`); the column is written only if some step of the runs has details, so the CSV of algorithms without any is unchanged |
//!
//! The three utility-gap columns came after the others (and before `elapsed_s`, so the deterministic
//! columns stay together); a CSV written before them still reads, its gaps "not recorded" (NaN,
//! [`UtilityGap::NOT_RECORDED`]) until [`crate::metrics::RegretModel::fill_utility_gaps`] computes
//! them from the recorded points (a results folder does so when it collects its runs). A gap not
//! recorded is written as an empty field.
//!
//! Numbers are written in Rust's shortest round-trip form, so reading a CSV back gives the same
//! values bit for bit. Everything but `elapsed_s` is a deterministic function of the spec, so two
//! CSVs written with [`Timing::Omit`] can be compared byte for byte. [`crate::runs_csv`] reads them
//! back.
//!
//! This module imports no other module of the crate: the error type refers to its records
//! ([`crate::ExperimentError::Stopped`]) without an import cycle.

use bohf_core::{Answer, DomainKind, Point};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One run of one algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunId {
    /// The algorithm's index in the spec.
    pub algorithm: usize,
    /// The run index, 0-based.
    pub run: usize,
}

/// A run that failed: which, where, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedRun {
    /// The run.
    pub id: RunId,
    /// The algorithm's label.
    pub label: String,
    /// The step t at which it failed (1-based; 0 while the algorithm was being built).
    pub step: usize,
    /// The error, as text.
    pub error: String,
}

impl std::fmt::Display for FailedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "algorithm `{}`, run {}, step {}: {}", self.label, self.id.run, self.step, self.error)
    }
}

/// The candidate index a point carries.
pub(crate) fn index(p: &Point) -> bohf_core::Result<usize> {
    p.index.ok_or_else(|| {
        bohf_core::Error::invalid("point", "regret is defined on candidates: the point has no candidate index")
    })
}

/// The kind of a query: bohf-core's one list ([`QueryKind::ALL`]), re-exported here where the
/// records use it (`bohf_experiments::QueryKind`, `bohf_experiments::results::QueryKind`).
pub use bohf_core::QueryKind;

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
            DomainKind::Finite => index(p).map(PointRecord::Candidate),
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
    /// The utility gaps of the step (the query's, their running sum, the recommendation's); in an
    /// old record, [`UtilityGap::NOT_RECORDED`].
    #[serde(default = "UtilityGap::not_recorded")]
    pub utility_gap: UtilityGap,
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

/// The utility gaps of one step ([`crate::metrics::RegretModel::utility_gaps`]), in the units of
/// the problem's own utility (before any scaling).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UtilityGap {
    /// g_t: the query's utility gap (a duel's (2u(x*) − u(x_t) − u(x′_t))/2, a choice's mean, a
    /// point's u(x*) − u(x_t)).
    pub instantaneous: f64,
    /// G(t) = Σ_{s ≤ t} g_s.
    pub cumulative: f64,
    /// u(x*) − u(x̂_t) of the recommendation.
    pub simple: f64,
}

impl UtilityGap {
    /// The gaps of a step recorded before they existed: NaN, until computed from its points.
    pub const NOT_RECORDED: UtilityGap = UtilityGap { instantaneous: f64::NAN, cumulative: f64::NAN, simple: f64::NAN };

    /// [`UtilityGap::NOT_RECORDED`] (serde's default).
    pub fn not_recorded() -> Self {
        Self::NOT_RECORDED
    }

    /// Whether all three gaps are known (not NaN).
    pub fn is_recorded(&self) -> bool {
        !(self.instantaneous.is_nan() || self.cumulative.is_nan() || self.simple.is_nan())
    }
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

/// The utility-gap columns, after [`CSV_COLUMNS`] (optional when reading: a CSV written before
/// them has none).
pub const GAP_CSV_COLUMNS: [&str; 3] = ["utility_gap", "cumulative_utility_gap", "simple_utility_gap"];

/// The CSV header line (with a final newline), with the `details` column if `details`.
pub fn csv_header(timing: Timing, details: bool) -> String {
    let mut h = CSV_COLUMNS.join(",");
    for c in GAP_CSV_COLUMNS {
        h.push(',');
        h.push_str(c);
    }
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
            let g = &s.utility_gap;
            for v in [g.instantaneous, g.cumulative, g.simple] {
                // A gap not recorded (an old record) is an empty field.
                if v.is_nan() {
                    out.push(',');
                } else {
                    let _ = write!(out, ",{v:?}");
                }
            }
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

#[cfg(test)]
mod tests;
