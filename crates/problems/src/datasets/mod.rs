//! Data-set loaders. Each takes a path and reports a missing file, a missing column or a value it
//! cannot parse as a [`DataError`] that names the file (and the line and column).
//!
//! * [`csv`]: a small RFC 4180 reader (quoted fields, `\r\n`), no dependency.
//! * [`magic`]: the MAGIC gamma telescope data (COMP-GP-UCB's SVM task).
//! * [`ocx24`]: the Open Catalyst Experiments 2024 table behind PF-TS's catalyst benchmark.

pub mod csv;
pub mod magic;
pub mod ocx24;

pub use csv::CsvTable;
pub use magic::{MAGIC_ATTRIBUTES, MagicData, load_magic};
pub use ocx24::{CompositionTable, Ocx24Filter, load_ocx24};

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

impl From<DataError> for bohf_core::Error {
    /// A data error as [`bohf_core::Error::InvalidParameter`] named `data file` (or the option's
    /// name), with the full message (path, line, column) as the reason.
    fn from(e: DataError) -> Self {
        match e {
            DataError::Option { name, reason } => bohf_core::Error::invalid(name, reason),
            other => bohf_core::Error::invalid("data file", other.to_string()),
        }
    }
}
