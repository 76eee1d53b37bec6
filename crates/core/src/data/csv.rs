//! A small reader for comma-separated tables (RFC 4180): a header row, then records; fields may be
//! quoted with `"` (a quoted field may hold commas, newlines and doubled quotes `""`); `\n` or
//! `\r\n` line ends; a leading UTF-8 byte-order mark is skipped. Column names must be distinct
//! (columns are found by name), and every record must have as many fields as the header. Errors name the file and the line.

use super::DataError;
use std::path::{Path, PathBuf};

/// A parsed table: the header and the records, each with the (1-based) line on which it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvTable {
    source: PathBuf,
    header: Vec<String>,
    records: Vec<(usize, Vec<String>)>,
}

impl CsvTable {
    /// Reads and parses the file at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, DataError> {
        let path = path.as_ref();
        let text =
            std::fs::read_to_string(path).map_err(|source| DataError::Io { path: path.to_path_buf(), source })?;
        Self::parse(&text, path)
    }

    /// Parses `text`; `source` names it in error messages.
    pub fn parse(text: &str, source: impl AsRef<Path>) -> Result<Self, DataError> {
        let source = source.as_ref().to_path_buf();
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut rows = split_records(text, &source)?.into_iter();
        let (_, header) =
            rows.next().ok_or_else(|| DataError::Empty { path: source.clone(), reason: "no header row".into() })?;
        // Columns are found by name: a repeated name would hide every column after the first.
        for (i, name) in header.iter().enumerate() {
            if let Some(j) = header[..i].iter().position(|h| h == name) {
                return Err(DataError::Malformed {
                    path: source.clone(),
                    line: 1,
                    reason: format!("the header names column {} and column {} both `{name}`; rename one", j + 1, i + 1),
                });
            }
        }
        let mut records = Vec::new();
        for (line, fields) in rows {
            if fields.len() != header.len() {
                return Err(DataError::Malformed {
                    path: source.clone(),
                    line,
                    reason: format!("{} fields where the header has {}", fields.len(), header.len()),
                });
            }
            records.push((line, fields));
        }
        Ok(Self { source, header, records })
    }

    /// Where the table came from.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// The column names.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The number of records (the header excluded).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the table has no records.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The index of column `name`, or [`DataError::MissingColumn`].
    pub fn column(&self, name: &str) -> Result<usize, DataError> {
        self.header.iter().position(|h| h == name).ok_or_else(|| DataError::MissingColumn {
            path: self.source.clone(),
            column: name.to_string(),
            available: self.header.join(", "),
        })
    }

    /// The records with the line each starts on.
    pub fn records(&self) -> impl Iterator<Item = (usize, &[String])> {
        self.records.iter().map(|(l, r)| (*l, r.as_slice()))
    }

    /// Parses field `column` of a record (at `line`) as a number, or [`DataError::Parse`].
    pub fn number(&self, line: usize, record: &[String], column: usize) -> Result<f64, DataError> {
        let raw = &record[column];
        raw.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| DataError::Parse {
            path: self.source.clone(),
            line,
            column: self.header[column].clone(),
            value: raw.clone(),
            expected: "a finite number",
        })
    }
}

/// Splits `text` into records of fields, with the line each record starts on. An empty last line
/// (the file's final newline) is not a record.
fn split_records(text: &str, source: &Path) -> Result<Vec<(usize, Vec<String>)>, DataError> {
    let mut out = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut quoted = false; // the current field was quoted (a quote may only open a field)
    let mut line = 1;
    let mut start_line = 1;
    let mut chars = text.chars().peekable();
    let mut pending = false; // a record has started
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                '\n' => {
                    line += 1;
                    field.push('\n');
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() && !quoted => {
                in_quotes = true;
                quoted = true;
                pending = true;
            }
            '"' => {
                return Err(DataError::Malformed {
                    path: source.to_path_buf(),
                    line,
                    reason: "a quote inside an unquoted field".into(),
                });
            }
            ',' => {
                fields.push(std::mem::take(&mut field));
                quoted = false;
                pending = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                if pending || !field.is_empty() {
                    fields.push(std::mem::take(&mut field));
                    out.push((start_line, std::mem::take(&mut fields)));
                }
                quoted = false;
                pending = false;
                line += 1;
                start_line = line;
            }
            _ => {
                if quoted {
                    return Err(DataError::Malformed {
                        path: source.to_path_buf(),
                        line,
                        reason: "text after the closing quote of a field".into(),
                    });
                }
                field.push(c);
                pending = true;
            }
        }
    }
    if in_quotes {
        return Err(DataError::Malformed {
            path: source.to_path_buf(),
            line: start_line,
            reason: "a quoted field is never closed".into(),
        });
    }
    if pending || !field.is_empty() {
        fields.push(field);
        out.push((start_line, fields));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_quoted_and_crlf() {
        let t = CsvTable::parse("a,b,c\r\n1,\"x, y\",3\r\n\"he said \"\"hi\"\"\",,\"multi\nline\"\n", "t.csv").unwrap();
        assert_eq!(t.header(), ["a", "b", "c"]);
        let r: Vec<_> = t.records().collect();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0], (2, &["1".to_string(), "x, y".into(), "3".into()][..]));
        assert_eq!(r[1].0, 3);
        assert_eq!(r[1].1, ["he said \"hi\"", "", "multi\nline"]);
        // No final newline; the byte-order mark is skipped.
        let t = CsvTable::parse("\u{feff}x,y\n1,2", "u.csv").unwrap();
        assert_eq!(t.header(), ["x", "y"]);
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn malformed_input_names_the_line() {
        let e = CsvTable::parse("a,b\n1,2\n3\n", "m.csv").unwrap_err();
        assert!(matches!(e, DataError::Malformed { line: 3, .. }), "{e}");
        assert!(e.to_string().contains("m.csv") && e.to_string().contains("line 3"), "{e}");
        assert!(matches!(CsvTable::parse("a\n\"open\n", "q.csv"), Err(DataError::Malformed { line: 2, .. })));
        assert!(matches!(CsvTable::parse("a\nx\"y\n", "q.csv"), Err(DataError::Malformed { .. })));
        assert!(matches!(CsvTable::parse("a\n\"x\"y\n", "q.csv"), Err(DataError::Malformed { .. })));
        assert!(matches!(CsvTable::parse("", "e.csv"), Err(DataError::Empty { .. })));
    }

    #[test]
    fn repeated_column_names_are_refused() {
        let e = CsvTable::parse("name,x,y,x\na,1,2,3\n", "beans.csv").unwrap_err().to_string();
        assert!(e.contains("beans.csv") && e.contains("column 2 and column 4 both `x`"), "{e}");
        assert!(CsvTable::parse("name,x,X\na,1,2\n", "ok.csv").is_ok(), "names are case-sensitive");
    }

    #[test]
    fn columns_and_numbers() {
        let t = CsvTable::parse("v,w\n1.5,abc\n", "n.csv").unwrap();
        let (line, rec) = t.records().next().unwrap();
        assert_eq!(t.number(line, rec, t.column("v").unwrap()).unwrap(), 1.5);
        let e = t.number(line, rec, 1).unwrap_err();
        assert!(e.to_string().contains("`w`") && e.to_string().contains("\"abc\""), "{e}");
        let e = t.column("z").unwrap_err();
        assert!(e.to_string().contains("`z`") && e.to_string().contains("v, w"), "{e}");
    }
}
