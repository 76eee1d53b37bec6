//! The candidates of a session: the spec (TOML), loading them from a CSV or a gridded box, and the
//! min–max scaling the algorithm sees.
//!
//! The algorithm sees the candidates' attributes scaled to [0, 1] per attribute (min–max over the
//! candidates; a constant attribute becomes 0), so the default length-scale 0.1 of the kernels
//! means a tenth of each attribute's range.

use crate::SessionError;
use bohf_core::FiniteDomain;
use bohf_core::data::CsvTable;
use bohf_experiments::AlgorithmSpec;
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
    /// `[costs]`: a price per query kind and a total (`total`, `duel`, `evaluate`, `label`, as an
    /// experiment's `[budget]`): the session also ends once the answered queries' costs reach
    /// `total`, the algorithm plans with the costs (COMP-GP-UCB), and the budget left is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<bohf_experiments::BudgetSpec>,
    /// Whether `bohf serve` shows the current recommendation on the page (default: yes; a study
    /// may hide it so that it does not sway the participants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_recommendation: Option<bool>,
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
    /// The options' images, when the CSV has an `image` column (absent otherwise, and then not
    /// written, so session files without images keep their form and checksum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Images>,
}

/// The images of the options: the `image` column of the candidates CSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Images {
    /// The folder the paths are relative to: the CSV's folder (absolute when the session was
    /// created from a spec read from disk).
    pub dir: PathBuf,
    /// One path per option, relative to `dir` and inside it (`""`: this option has no image).
    pub files: Vec<String>,
}

impl Images {
    /// The file of option `i`'s image, if it has one: `dir/files[i]`, refused (with the reason)
    /// unless it is a relative path inside `dir` that exists, once symbolic links are resolved.
    pub fn path(&self, i: usize) -> Result<Option<PathBuf>, String> {
        let Some(f) = self.files.get(i) else { return Err(format!("no option {i}")) };
        if f.is_empty() {
            return Ok(None);
        }
        check_image_path(f)?;
        let root = self.dir.canonicalize().map_err(|e| format!("the images' folder `{}`: {e}", self.dir.display()))?;
        let file = root.join(f).canonicalize().map_err(|e| format!("image `{f}`: {e}"))?;
        if !file.starts_with(&root) {
            return Err(format!("image `{f}` is outside the candidates' folder `{}`", root.display()));
        }
        Ok(Some(file))
    }
}

/// Checks an image path of the candidates CSV: empty (no image) or relative, with no `..`
/// component, so that it names a file inside the CSV's folder. The error says why not.
pub fn check_image_path(f: &str) -> Result<(), String> {
    use std::path::Component;
    let p = Path::new(f);
    if f.contains('\0') {
        return Err("contains a NUL byte".into());
    }
    if p.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err("must be a path relative to the CSV's folder, inside it (no `/` at the start, no `..`)".into());
    }
    Ok(())
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

    /// Candidate `i` as the protocol sends it: `{"index", "name", "attributes": {…}}`, and
    /// `"image"` (its path relative to the CSV's folder) when it has one.
    pub fn json(&self, i: usize) -> serde_json::Value {
        let attrs: serde_json::Map<String, serde_json::Value> =
            self.attributes.iter().zip(&self.values[i]).map(|(a, v)| (a.clone(), serde_json::json!(v))).collect();
        let mut v = serde_json::json!({ "index": i, "name": self.names[i], "attributes": attrs });
        if let Some(f) = self.images.as_ref().and_then(|im| im.files.get(i)).filter(|f| !f.is_empty()) {
            v["image"] = serde_json::json!(f);
        }
        v
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
            let image_col = header.iter().position(|h| h.eq_ignore_ascii_case("image")).filter(|&j| j != name_col);
            let attr_cols: Vec<usize> = (0..header.len()).filter(|&j| j != name_col && Some(j) != image_col).collect();
            if attr_cols.is_empty() {
                return Err(SessionError::Spec(format!(
                    "candidates.csv `{}`: need a name column and at least one numeric attribute column",
                    csv.display()
                )));
            }
            let mut names = Vec::new();
            let mut values = Vec::new();
            let mut files = Vec::new();
            for (line, rec) in table.records() {
                names.push(rec[name_col].clone());
                if let Some(j) = image_col {
                    let f = rec[j].trim().to_string();
                    check_image_path(&f).map_err(|why| {
                        SessionError::Spec(format!(
                            "candidates.csv `{}`, line {line}, image `{f}`: {why}",
                            csv.display()
                        ))
                    })?;
                    files.push(f);
                }
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
            let images = match image_col {
                None => None,
                // The CSV's folder, absolute: from the CSV's own absolute path (a bare `beans.csv`,
                // from a spec given as a bare `s.toml`, has the empty path as its parent).
                Some(_) => {
                    let abs = csv.canonicalize().map_err(|e| {
                        SessionError::Spec(format!(
                            "candidates.csv `{}`: cannot resolve its folder: {e}",
                            csv.display()
                        ))
                    })?;
                    Some(Images { dir: abs.parent().map(Path::to_path_buf).unwrap_or_default(), files })
                }
            };
            Ok(Candidates { attributes: attr_cols.iter().map(|&j| header[j].clone()).collect(), names, values, images })
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
            Ok(Candidates { attributes: b.names.clone(), names, values, images: None })
        }
        _ => Err(SessionError::Spec("candidates: give exactly one of `csv = \"FILE\"` and `[candidates.box]`".into())),
    }
}
