//! Data files: a small CSV reader ([`csv`]) and the typed [`DataError`] every loader of a data
//! file returns (the loaders of the papers' datasets in `bohf-problems`, a session's candidate
//! table, a results folder's `runs.csv`), naming the file and, where it applies, the line and column.

pub mod csv;

pub use csv::CsvTable;

use std::path::PathBuf;

/// Why a data file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The file could not be read (missing, unreadable, not UTF-8).
    #[error("cannot read data file `{}`: {source}", path.display())]
    Io {
        /// The path that was tried.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A required column is not in the header.
    #[error("data file `{}` has no column `{column}` (its columns: {available})", path.display())]
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// The column that was looked for.
        column: String,
        /// The header, comma-separated.
        available: String,
    },
    /// A field could not be parsed.
    #[error("data file `{}`, line {line}, column `{column}`: cannot parse {value:?} as {expected}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The (1-based) line of the record.
        line: usize,
        /// The column's name.
        column: String,
        /// The raw field.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// The file is not a well-formed table (unbalanced quotes, wrong number of fields).
    #[error("data file `{}`, line {line}: {reason}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The (1-based) line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// Nothing usable is left (no header, or no record passes the filter).
    #[error("data file `{}`: {reason}", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
        /// What is missing.
        reason: String,
    },
    /// A loader option is invalid.
    #[error("invalid data option `{name}`: {reason}")]
    Option {
        /// The option's name.
        name: String,
        /// Why it is rejected.
        reason: String,
    },
}

impl From<DataError> for crate::Error {
    /// A data error as [`crate::Error::InvalidParameter`] named `data file` (or the option's
    /// name), with the full message (path, line, column) as the reason.
    fn from(e: DataError) -> Self {
        match e {
            DataError::Option { name, reason } => crate::Error::invalid(name, reason),
            other => crate::Error::invalid("data file", other.to_string()),
        }
    }
}
