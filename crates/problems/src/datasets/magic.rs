//! The MAGIC gamma telescope data (UCI; `shared/data/magic04/`), the data of COMP-GP-UCB's
//! SVM-tuning task (notes 002 §5.1).
//!
//! `magic04.data` has 19,020 comma-separated records of 10 continuous attributes followed by the
//! class, `g` (gamma, signal) or `h` (hadron, background), and no header. A first line whose first
//! field is not a number is taken as a header and skipped (another public copy of the file has one);
//! blank lines are skipped.

use super::DataError;
use std::path::Path;

/// The number of attributes of a MAGIC record.
pub const MAGIC_ATTRIBUTES: usize = 10;

/// The MAGIC records: attributes and classes (`true` for `g`, gamma).
#[derive(Debug, Clone, PartialEq)]
pub struct MagicData {
    /// One row of [`MAGIC_ATTRIBUTES`] values per record.
    pub features: Vec<[f64; MAGIC_ATTRIBUTES]>,
    /// The class of each record: `true` for `g` (gamma), `false` for `h` (hadron).
    pub gamma: Vec<bool>,
}

impl MagicData {
    /// The number of records.
    pub fn len(&self) -> usize {
        self.gamma.len()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.gamma.is_empty()
    }
}

/// Loads `magic04.data`. Errors name the file and, for a bad record, its line: a missing or
/// unreadable file ([`DataError::Io`]), a record without 11 fields ([`DataError::Malformed`]), an
/// attribute that is not a finite number or a class other than `g`/`h` ([`DataError::Parse`]), or
/// a file without records ([`DataError::Malformed`]).
pub fn load_magic(path: impl AsRef<Path>) -> Result<MagicData, DataError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| DataError::Io { path: path.to_path_buf(), source })?;
    let mut data = MagicData { features: Vec::new(), gamma: Vec::new() };
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let fields: Vec<&str> = raw.split(',').map(str::trim).collect();
        if line == 1 && fields.first().is_some_and(|f| f.parse::<f64>().is_err()) {
            continue; // a header
        }
        if fields.len() != MAGIC_ATTRIBUTES + 1 {
            return Err(DataError::Malformed {
                path: path.to_path_buf(),
                line,
                reason: format!(
                    "expected {} comma-separated fields (10 attributes and the class), found {}",
                    MAGIC_ATTRIBUTES + 1,
                    fields.len()
                ),
            });
        }
        let mut row = [0.0; MAGIC_ATTRIBUTES];
        for (j, (v, field)) in row.iter_mut().zip(&fields).enumerate() {
            *v = field.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| DataError::Parse {
                path: path.to_path_buf(),
                line,
                column: format!("attribute {}", j + 1),
                value: field.to_string(),
                expected: "a finite number",
            })?;
        }
        let gamma = match fields[MAGIC_ATTRIBUTES] {
            "g" => true,
            "h" => false,
            other => {
                return Err(DataError::Parse {
                    path: path.to_path_buf(),
                    line,
                    column: "class".into(),
                    value: other.to_string(),
                    expected: "the class `g` or `h`",
                });
            }
        };
        data.features.push(row);
        data.gamma.push(gamma);
    }
    if data.is_empty() {
        return Err(DataError::Malformed {
            path: path.to_path_buf(),
            line: 0,
            reason: "the file has no records".into(),
        });
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn scratch(name: &str, text: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("bohf-magic-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn loads_the_shared_file_with_the_documented_counts() {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/magic04/magic04.data");
        let d = load_magic(&p).unwrap();
        // magic04.names: 19,020 records, g = 12,332, h = 6,688.
        assert_eq!(d.len(), 19_020);
        assert_eq!(d.gamma.iter().filter(|&&g| g).count(), 12_332);
        // The first record, copied from the file's first line.
        assert_eq!(d.features[0][0], 28.7967);
        assert_eq!(d.features[0][9], 81.8828);
        assert!(d.gamma[0]);
    }

    #[test]
    fn bad_files_are_named_errors() {
        let e = load_magic("/nonexistent/magic04.data").unwrap_err().to_string();
        assert!(e.contains("/nonexistent/magic04.data"), "{e}");
        let row = "1,2,3,4,5,6,7,8,9,10,g\n";
        // Header and blank lines are skipped.
        let ok = scratch("ok", &format!("fLength,a,b,c,d,e,f,g,h,i,class\n{row}\n{}", row.replace(",g", ",h")));
        let d = load_magic(&ok).unwrap();
        assert_eq!((d.len(), d.gamma.clone()), (2, vec![true, false]));
        let cols = scratch("cols", &format!("{row}1,2,3,g\n"));
        let e = load_magic(&cols).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("found 4"), "{e}");
        let num = scratch("num", &format!("{row}1,2,x3,4,5,6,7,8,9,10,g\n"));
        let e = load_magic(&num).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("attribute 3") && e.contains("x3"), "{e}");
        let class = scratch("class", "1,2,3,4,5,6,7,8,9,10,q\n");
        let e = load_magic(&class).unwrap_err().to_string();
        assert!(e.contains("class") && e.contains("\"q\""), "{e}");
        let empty = scratch("empty", "\n");
        assert!(load_magic(&empty).unwrap_err().to_string().contains("no records"));
        for p in [ok, cols, num, class, empty] {
            let _ = std::fs::remove_file(p);
        }
    }
}
