//! The OCx24 catalyst table (Abed et al. 2024, "Open Catalyst Experiments 2024"), as PF-TS §5.2 /
//! App. F.2 uses it: a finite set of catalyst compositions x = (x_Ag, x_Au, x_Zn), with utility the
//! Faradaic efficiency to hydrogen.
//!
//! The file is `ExpDataDump_241113_clean.csv` of the public OCx24 data (one row per sample,
//! reaction and current density). [`load_ocx24`] with the default [`Ocx24Filter`] keeps the rows
//!
//! 1. with `reaction` = `CO2R`,
//! 2. with `current density` = 300 (mA/cm²; the paper's "300-amp current"),
//! 3. whose `composition` (the target composition, e.g. `Ag-0.5-Au-0.25-Zn-0.25`) has no element
//!    other than Ag, Au and Zn with a positive fraction (pure metals and binary alloys included),
//!
//! groups them by composition (the parsed fractions, so the order of elements in the string does not
//! matter), and takes as utility the **mean** of `fe_h2` over each group **divided by 10** (percent
//! in [0, 100] → [0, 10], the paper's "rescaled to [0, 10]"; notes 003 §5.3 read it as a division).
//!
//! On the file of 2024-11-13 this keeps **77 rows and 60 distinct compositions** (8 pure metals or
//! single-element rows, 41 binary and 28 ternary rows); the paper reports 63 compositions without
//! giving its filter. Grouping by the measured (XRF) composition instead
//! (`composition_column = "xrf comp"`) gives 72 groups; neither grouping gives 63 (grouping by
//! composition and data source gives 62, by composition and batch 64). The candidates are sorted by
//! their fractions (lexicographically in the order of [`Ocx24Filter::elements`]), so the order does
//! not depend on the order of rows in the file.

use super::{CsvTable, DataError};
use crate::grid::GridFunction;
use bohf_core::FiniteDomain;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// Which rows of the OCx24 table to keep and how to turn them into a utility (see the module
/// documentation). The default is PF-TS's catalyst benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ocx24Filter {
    /// The value of column `reaction` to keep (`CO2R`; the other value in the file is `HER`).
    pub reaction: String,
    /// The value of column `current density` to keep, in mA/cm² (300).
    pub current_density: f64,
    /// The allowed elements, in the order of the candidates' coordinates (Ag, Au, Zn).
    pub elements: Vec<String>,
    /// The column holding the composition that defines a candidate: `composition` (the target
    /// composition, default) or `xrf comp` (the measured one).
    pub composition_column: String,
    /// The column holding the utility (`fe_h2`, Faradaic efficiency to H₂ in percent).
    pub utility_column: String,
    /// The mean utility of a composition is divided by this (10: percent → [0, 10]).
    pub divisor: f64,
}

impl Default for Ocx24Filter {
    fn default() -> Self {
        Self {
            reaction: "CO2R".into(),
            current_density: 300.0,
            elements: vec!["Ag".into(), "Au".into(), "Zn".into()],
            composition_column: "composition".into(),
            utility_column: "fe_h2".into(),
            divisor: 10.0,
        }
    }
}

impl Ocx24Filter {
    /// Errors naming the first invalid option.
    pub fn validate(&self) -> Result<(), DataError> {
        let bad = |name: &str, reason: String| Err(DataError::Option { name: name.into(), reason });
        if !(self.divisor.is_finite() && self.divisor > 0.0) {
            return bad("divisor", format!("must be finite and > 0, got {}", self.divisor));
        }
        if !self.current_density.is_finite() {
            return bad("current_density", format!("must be finite, got {}", self.current_density));
        }
        if self.elements.is_empty() {
            return bad("elements", "need at least one element".into());
        }
        for (i, e) in self.elements.iter().enumerate() {
            if e.is_empty() || !e.chars().all(|c| c.is_ascii_alphabetic()) {
                return bad("elements", format!("`{e}` is not an element symbol"));
            }
            if self.elements[..i].contains(e) {
                return bad("elements", format!("`{e}` is listed twice"));
            }
        }
        Ok(())
    }
}

/// Candidate compositions with their utilities, as loaded by [`load_ocx24`].
#[derive(Debug, Clone, PartialEq)]
pub struct CompositionTable {
    elements: Vec<String>,
    compositions: Vec<Vec<f64>>,
    names: Vec<String>,
    utility: Vec<f64>,
    counts: Vec<usize>,
}

impl CompositionTable {
    /// The elements, in the order of each composition's coordinates.
    pub fn elements(&self) -> &[String] {
        &self.elements
    }

    /// The compositions: fractions of each element (0 when absent), one vector per candidate.
    pub fn compositions(&self) -> &[Vec<f64>] {
        &self.compositions
    }

    /// A name per candidate: the composition string of its first row in the file.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The utility per candidate: mean of the utility column over its rows, divided by the divisor.
    pub fn utility(&self) -> &[f64] {
        &self.utility
    }

    /// How many rows were averaged for each candidate.
    pub fn counts(&self) -> &[usize] {
        &self.counts
    }

    /// The number of rows kept by the filter.
    pub fn rows_used(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The number of candidates.
    pub fn len(&self) -> usize {
        self.utility.len()
    }

    /// Whether there are no candidates (never, for a table returned by [`load_ocx24`]).
    pub fn is_empty(&self) -> bool {
        self.utility.is_empty()
    }

    /// The candidates as a finite domain (one row of fractions per candidate), with their names.
    pub fn domain(&self) -> bohf_core::Result<FiniteDomain> {
        FiniteDomain::from_rows(&self.compositions)?.with_names(self.names.clone())
    }

    /// The utility as a function on [`CompositionTable::domain`].
    pub fn utility_function(&self) -> bohf_core::Result<GridFunction> {
        GridFunction::new(self.domain()?, self.utility.clone())
    }
}

/// The columns the loader reads besides the configurable ones.
const REACTION: &str = "reaction";
const CURRENT_DENSITY: &str = "current density";

/// Loads the OCx24 table at `path` and applies `filter` (see the module documentation).
///
/// Errors: the file cannot be read ([`DataError::Io`], naming the path), a needed column is missing
/// ([`DataError::MissingColumn`]), a current density, composition or utility of a row that the
/// earlier criteria keep cannot be parsed ([`DataError::Parse`], with line and column), or no row
/// passes the filter ([`DataError::Empty`]).
pub fn load_ocx24(path: impl AsRef<Path>, filter: &Ocx24Filter) -> Result<CompositionTable, DataError> {
    filter.validate()?;
    let table = CsvTable::read(path)?;
    let c_reaction = table.column(REACTION)?;
    let c_density = table.column(CURRENT_DENSITY)?;
    let c_comp = table.column(&filter.composition_column)?;
    let c_util = table.column(&filter.utility_column)?;

    struct Group {
        coords: Vec<f64>,
        name: String,
        sum: f64,
        count: usize,
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
    for (line, rec) in table.records() {
        if rec[c_reaction].trim() != filter.reaction {
            continue;
        }
        let density = table.number(line, rec, c_density)?;
        if (density - filter.current_density).abs() > 1e-9 * filter.current_density.abs().max(1.0) {
            continue;
        }
        let parsed = parse_composition(&rec[c_comp]).ok_or_else(|| DataError::Parse {
            path: table.source().to_path_buf(),
            line,
            column: filter.composition_column.clone(),
            value: rec[c_comp].clone(),
            expected: "a composition such as `Ag-0.5-Au-0.25-Zn-0.25`",
        })?;
        let Some(coords) = coordinates(&parsed, &filter.elements) else { continue };
        let value = table.number(line, rec, c_util)?;
        // +0.0 turns −0.0 into 0.0 so that equal compositions have equal keys.
        let key: Vec<u64> = coords.iter().map(|v| (v + 0.0).to_bits()).collect();
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Group { coords, name: rec[c_comp].trim().to_string(), sum: 0.0, count: 0 });
            groups.len() - 1
        });
        groups[g].sum += value;
        groups[g].count += 1;
    }
    if groups.is_empty() {
        return Err(DataError::Empty {
            path: table.source().to_path_buf(),
            reason: format!(
                "no row has reaction {:?}, current density {} and only the elements {:?} in column `{}`",
                filter.reaction, filter.current_density, filter.elements, filter.composition_column
            ),
        });
    }
    groups.sort_by(|a, b| a.coords.partial_cmp(&b.coords).expect("fractions are finite"));
    Ok(CompositionTable {
        elements: filter.elements.clone(),
        utility: groups.iter().map(|g| g.sum / g.count as f64 / filter.divisor).collect(),
        counts: groups.iter().map(|g| g.count).collect(),
        names: groups.iter().map(|g| g.name.clone()).collect(),
        compositions: groups.into_iter().map(|g| g.coords).collect(),
    })
}

/// `Ag-0.5-Au-0.25-Zn-0.25` → [("Ag", 0.5), ("Au", 0.25), ("Zn", 0.25)]; `None` unless the string is
/// alternating element symbols and finite, non-negative fractions, each element at most once.
fn parse_composition(s: &str) -> Option<Vec<(String, f64)>> {
    let parts: Vec<&str> = s.trim().split('-').collect();
    if parts.len() < 2 || !parts.len().is_multiple_of(2) {
        return None;
    }
    let mut out: Vec<(String, f64)> = Vec::with_capacity(parts.len() / 2);
    for pair in parts.chunks(2) {
        let el = pair[0].trim();
        let frac: f64 = pair[1].trim().parse().ok()?;
        if el.is_empty() || !el.chars().all(|c| c.is_ascii_alphabetic()) || !frac.is_finite() || frac < 0.0 {
            return None;
        }
        if out.iter().any(|(e, _)| e == el) {
            return None;
        }
        out.push((el.to_string(), frac));
    }
    Some(out)
}

/// The fractions of `elements` in a parsed composition, or `None` if it has another element with a
/// positive fraction.
fn coordinates(parsed: &[(String, f64)], elements: &[String]) -> Option<Vec<f64>> {
    let mut coords = vec![0.0; elements.len()];
    for (el, frac) in parsed {
        match elements.iter().position(|e| e == el) {
            Some(j) => coords[j] = *frac,
            None if *frac == 0.0 => {}
            None => return None,
        }
    }
    Some(coords)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The OCx24 file in the shared data folder beside the checkout (CI has it there too).
    fn ocx24_path() -> PathBuf {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/ocx24/ExpDataDump_241113_clean.csv");
        assert!(
            p.is_file(),
            "the OCx24 data file is missing: expected it at {} (the `shared/` folder beside the checkout)",
            p.display()
        );
        p
    }

    /// A scratch file under the system temporary directory, unique per test.
    fn scratch(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bohf-problems-ocx24-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn real_file_gives_60_compositions_from_77_rows() {
        let t = load_ocx24(ocx24_path(), &Ocx24Filter::default()).unwrap();
        // Counts from the data README (computed there independently of this loader).
        assert_eq!(t.rows_used(), 77);
        assert_eq!(t.len(), 60);
        assert_eq!(t.elements(), ["Ag", "Au", "Zn"]);
        for (x, u) in t.compositions().iter().zip(t.utility()) {
            // Fractions are printed with 3 decimals (e.g. 0.333 ×3), so they sum to 1 within 3e−3.
            assert!((x.iter().sum::<f64>() - 1.0).abs() < 3e-3, "{x:?}");
            assert!((0.0..=10.0).contains(u), "utility {u} outside [0, 10]");
        }
        // Pure silver: five CO2R rows at 300 mA/cm² with fe_h2 = 68.66329072, 68.76917282,
        // 72.05528469, 61.90336688359246, 24.74586202 (read off the file by hand).
        let ag = t.compositions().iter().position(|x| x == &vec![1.0, 0.0, 0.0]).unwrap();
        assert_eq!(t.counts()[ag], 5);
        assert_eq!(t.names()[ag], "Ag-1.0");
        let want = (68.66329072 + 68.76917282 + 72.05528469 + 61.90336688359246 + 24.74586202) / 5.0 / 10.0;
        // Summation order may differ by a few ulps.
        assert!((t.utility()[ag] - want).abs() < 1e-13, "{} vs {want}", t.utility()[ag]);
        // Sorted by fractions: the first candidate has the least silver.
        assert!(t.compositions().windows(2).all(|w| w[0] < w[1]));
        let f = t.utility_function().unwrap();
        assert_eq!(f.domain().dim(), 3);
        assert_eq!(f.domain().names().unwrap()[ag], "Ag-1.0");
        // Grouping by the measured composition instead (README: 72 distinct XRF compositions).
        let xrf = Ocx24Filter { composition_column: "xrf comp".into(), ..Default::default() };
        let t = load_ocx24(ocx24_path(), &xrf).unwrap();
        assert_eq!((t.rows_used(), t.len()), (77, 72));
    }

    #[test]
    fn small_table_by_hand() {
        // Quoted fields, a composition written in two element orders, an excluded element, HER and
        // other densities excluded; means by hand.
        let p = scratch(
            "small.csv",
            ",reaction,current density,composition,fe_h2,\"note, free\"\n\
             0,CO2R,300.0,Ag-0.5-Zn-0.5,10,\"a, b\"\n\
             1,CO2R,300,Zn-0.5-Ag-0.5,30,\n\
             2,CO2R,200.0,Ag-0.5-Zn-0.5,99,\n\
             3,HER,300.0,Ag-0.5-Zn-0.5,,\n\
             4,CO2R,300.0,Ag-0.5-Cu-0.5,50,\n\
             5,CO2R,300.0,Au-1.0-Cu-0.0,42,\n",
        );
        let t = load_ocx24(&p, &Ocx24Filter::default()).unwrap();
        assert_eq!(t.compositions(), [vec![0.0, 1.0, 0.0], vec![0.5, 0.0, 0.5]]);
        assert_eq!(t.utility(), [4.2, 2.0]);
        assert_eq!(t.counts(), [1, 2]);
        assert_eq!(t.names(), ["Au-1.0-Cu-0.0", "Ag-0.5-Zn-0.5"]);
    }

    #[test]
    fn errors_name_the_file_the_column_and_the_line() {
        let missing = Path::new("/nonexistent/bohf/ocx24.csv");
        let e = load_ocx24(missing, &Ocx24Filter::default()).unwrap_err();
        assert!(matches!(e, DataError::Io { .. }));
        assert!(e.to_string().contains("/nonexistent/bohf/ocx24.csv"), "{e}");

        let p = scratch("nocol.csv", "reaction,current density,composition\nCO2R,300,Ag-1.0\n");
        let e = load_ocx24(&p, &Ocx24Filter::default()).unwrap_err();
        assert!(matches!(&e, DataError::MissingColumn { column, .. } if column == "fe_h2"), "{e}");
        assert!(e.to_string().contains("nocol.csv"), "{e}");

        let p = scratch(
            "badval.csv",
            "reaction,current density,composition,fe_h2\nCO2R,300,Ag-1.0,12\nCO2R,300,Au-1.0,n/a\n",
        );
        let e = load_ocx24(&p, &Ocx24Filter::default()).unwrap_err();
        assert!(matches!(&e, DataError::Parse { line: 3, column, .. } if column == "fe_h2"), "{e}");
        assert!(e.to_string().contains("\"n/a\""), "{e}");

        let p = scratch("badcomp.csv", "reaction,current density,composition,fe_h2\nCO2R,300,Ag-half,12\n");
        assert!(matches!(load_ocx24(&p, &Ocx24Filter::default()), Err(DataError::Parse { line: 2, .. })));

        let p = scratch("baddens.csv", "reaction,current density,composition,fe_h2\nCO2R,high,Ag-1.0,12\n");
        let e = load_ocx24(&p, &Ocx24Filter::default()).unwrap_err();
        assert!(matches!(&e, DataError::Parse { column, .. } if column == "current density"), "{e}");

        let p = scratch("none.csv", "reaction,current density,composition,fe_h2\nHER,300,Ag-1.0,\n");
        assert!(matches!(load_ocx24(&p, &Ocx24Filter::default()), Err(DataError::Empty { .. })));

        let bad = Ocx24Filter { divisor: 0.0, ..Default::default() };
        let e = load_ocx24(&p, &bad).unwrap_err();
        assert!(matches!(&e, DataError::Option { name, .. } if name == "divisor"));
        let core: bohf_core::Error = e.into();
        assert!(matches!(core, bohf_core::Error::InvalidParameter { ref name, .. } if name == "divisor"));
        let dup = Ocx24Filter { elements: vec!["Ag".into(), "Ag".into()], ..Default::default() };
        assert!(matches!(dup.validate(), Err(DataError::Option { .. })));
    }

    #[test]
    fn composition_strings() {
        assert_eq!(parse_composition("Ag-0.5-Au-0.5"), Some(vec![("Ag".into(), 0.5), ("Au".into(), 0.5)]));
        assert_eq!(parse_composition(" Zn-1.0 "), Some(vec![("Zn".into(), 1.0)]));
        for bad in ["", "Ag", "Ag-0.5-Au", "Ag--0.5", "Ag-x", "Ag-0.5-Ag-0.5", "4g-1.0", "Ag-inf"] {
            assert_eq!(parse_composition(bad), None, "{bad}");
        }
    }
}
