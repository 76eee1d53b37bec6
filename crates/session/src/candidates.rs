//! The candidates of a session: the spec (TOML), loading them from a CSV or a gridded box, and the
//! min–max scaling the algorithm sees.
//!
//! The algorithm sees the candidates' attributes scaled to [0, 1] per attribute (min–max over the
//! candidates; a constant attribute becomes 0), so the default length-scale 0.1 of the kernels
//! means a tenth of each attribute's range.

use crate::SessionError;
use bohf_core::FiniteDomain;
use bohf_experiments::AlgorithmSpec;
use bohf_problems::datasets::CsvTable;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The session spec (TOML), see `docs/cli.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskSpec {
    /// A short name.
    pub name: String,
    /// The question shown above each duel (default: "Which do you prefer?").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The number of queries to ask (the horizon T).
    pub budget: usize,
    /// The seed of the algorithm's random stream.
    #[serde(default)]
    pub seed: u64,
    /// The candidates.
    pub candidates: CandidatesSpec,
    /// The algorithm (a name of the registry and its parameters).
    pub algorithm: AlgorithmSpec,
}

/// `[candidates]`: exactly one of `csv` and `box`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidatesSpec {
    /// A CSV file: a `name` column (or the first column) and numeric attribute columns; relative to
    /// the spec file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<PathBuf>,
    /// A box with named dimensions, gridded.
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub grid: Option<BoxSpec>,
}

/// `[candidates.box]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    /// The names of the dimensions.
    pub names: Vec<String>,
    /// Lower corner.
    pub lower: Vec<f64>,
    /// Upper corner.
    pub upper: Vec<f64>,
    /// Grid points per dimension (≥ 2).
    #[serde(default = "default_points")]
    pub points_per_dim: usize,
}

fn default_points() -> usize {
    5
}

/// The most options a session may have. Several algorithms keep n×n matrices (a kernel Gram and a
/// posterior covariance, 0.8 GB each at this size), so more would exhaust a laptop's memory.
pub const MAX_CANDIDATES: usize = 10_000;

/// The candidates as the person sees them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Candidates {
    /// Attribute names.
    pub attributes: Vec<String>,
    /// Candidate names.
    pub names: Vec<String>,
    /// Raw attribute values, one row per candidate.
    pub values: Vec<Vec<f64>>,
}

impl Candidates {
    /// The domain the algorithm sees: every attribute min–max scaled to [0, 1].
    pub fn domain(&self) -> Result<FiniteDomain, SessionError> {
        let d = self.attributes.len();
        let mut rows = self.values.clone();
        for j in 0..d {
            let lo = self.values.iter().map(|r| r[j]).fold(f64::INFINITY, f64::min);
            let hi = self.values.iter().map(|r| r[j]).fold(f64::NEG_INFINITY, f64::max);
            for r in &mut rows {
                r[j] = if hi > lo { (r[j] - lo) / (hi - lo) } else { 0.0 };
            }
        }
        FiniteDomain::from_rows(&rows)
            .and_then(|dom| dom.with_names(self.names.clone()))
            .map_err(|e| SessionError::Spec(format!("candidates: {e}")))
    }

    /// Candidate `i` in one line: its name and `attribute = value` pairs.
    pub fn describe(&self, i: usize) -> String {
        let attrs: Vec<String> =
            self.attributes.iter().zip(&self.values[i]).map(|(a, v)| format!("{a} = {}", fmt_num(*v))).collect();
        format!("{} ({})", self.names[i], attrs.join(", "))
    }

    /// Candidate `i` as the protocol sends it: `{"index", "name", "attributes": {…}}`.
    pub fn json(&self, i: usize) -> serde_json::Value {
        let attrs: serde_json::Map<String, serde_json::Value> =
            self.attributes.iter().zip(&self.values[i]).map(|(a, v)| (a.clone(), serde_json::json!(v))).collect();
        serde_json::json!({ "index": i, "name": self.names[i], "attributes": attrs })
    }
}

/// A number as shown to people: integers without decimals, others to six decimals at most.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{}", (v * 1e6).round() / 1e6) }
}

/// Reads a session spec; a relative CSV path is resolved against the spec's folder.
pub fn read_spec(path: &Path) -> Result<AskSpec, SessionError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| SessionError::Spec(format!("cannot read session spec `{}`: {e}", path.display())))?;
    let mut spec: AskSpec = toml::from_str(&text)
        .map_err(|e| SessionError::Spec(format!("cannot parse session spec `{}`: {e}", path.display())))?;
    if let Some(csv) = &mut spec.candidates.csv
        && csv.is_relative()
        && let Some(dir) = path.parent()
    {
        *csv = dir.join(&*csv);
    }
    Ok(spec)
}

/// The candidates of a spec (reads the CSV).
pub fn load_candidates(spec: &AskSpec) -> Result<Candidates, SessionError> {
    match (&spec.candidates.csv, &spec.candidates.grid) {
        (Some(csv), None) => {
            if !csv.exists() {
                return Err(SessionError::Spec(format!("candidates.csv: file not found: `{}`", csv.display())));
            }
            let table = CsvTable::read(csv).map_err(|e| SessionError::Spec(format!("candidates.csv: {e}")))?;
            let header = table.header().to_vec();
            let name_col = header.iter().position(|h| h.eq_ignore_ascii_case("name")).unwrap_or(0);
            let attr_cols: Vec<usize> = (0..header.len()).filter(|&j| j != name_col).collect();
            if attr_cols.is_empty() {
                return Err(SessionError::Spec(format!(
                    "candidates.csv `{}`: need a name column and at least one numeric attribute column",
                    csv.display()
                )));
            }
            let mut names = Vec::new();
            let mut values = Vec::new();
            for (line, rec) in table.records() {
                names.push(rec[name_col].clone());
                let row: Vec<f64> = attr_cols
                    .iter()
                    .map(|&j| table.number(line, rec, j))
                    .collect::<Result<_, _>>()
                    .map_err(|e| SessionError::Spec(format!("candidates.csv: {e}")))?;
                values.push(row);
            }
            if names.len() < 2 {
                return Err(SessionError::Spec(format!(
                    "candidates.csv `{}`: need at least two options, got {}",
                    csv.display(),
                    names.len()
                )));
            }
            Ok(Candidates { attributes: attr_cols.iter().map(|&j| header[j].clone()).collect(), names, values })
        }
        (None, Some(b)) => {
            let d = b.names.len();
            if d == 0 || b.lower.len() != d || b.upper.len() != d {
                return Err(SessionError::Spec(format!(
                    "candidates.box: names, lower and upper must have the same non-zero length, got {}, {}, {}",
                    d,
                    b.lower.len(),
                    b.upper.len()
                )));
            }
            if b.points_per_dim < 2 {
                return Err(SessionError::Spec(format!(
                    "candidates.box.points_per_dim: need at least 2, got {}",
                    b.points_per_dim
                )));
            }
            let count = u32::try_from(d).ok().and_then(|d| b.points_per_dim.checked_pow(d));
            if count.is_none_or(|c| c > MAX_CANDIDATES) {
                return Err(SessionError::Spec(format!(
                    "candidates.box: {} points per dimension in {d} dimension(s) make more than {MAX_CANDIDATES} options",
                    b.points_per_dim
                )));
            }
            let domain = bohf_core::BoxDomain::new(b.lower.clone(), b.upper.clone())
                .and_then(|bx| bx.grid(b.points_per_dim))
                .map_err(|e| SessionError::Spec(format!("candidates.box: {e}")))?;
            let values: Vec<Vec<f64>> = (0..domain.len()).map(|i| domain.coords(i).expect("index in range")).collect();
            let names = (1..=values.len()).map(|i| format!("#{i}")).collect();
            Ok(Candidates { attributes: b.names.clone(), names, values })
        }
        _ => Err(SessionError::Spec("candidates: give exactly one of `csv = \"FILE\"` and `[candidates.box]`".into())),
    }
}
