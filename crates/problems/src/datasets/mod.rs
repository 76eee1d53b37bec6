//! Data-set loaders. Each takes a path and reports a missing file, a missing column or a value it
//! cannot parse as a [`DataError`] that names the file (and the line and column).
//!
//! * [`CsvTable`]: the small RFC 4180 reader of `bohf_core::data` (quoted fields, `\r\n`), re-exported.
//! * [`magic`]: the MAGIC gamma telescope data (COMP-GP-UCB's SVM task).
//! * [`ocx24`]: the Open Catalyst Experiments 2024 table behind PF-TS's catalyst benchmark.

pub mod magic;
pub mod ocx24;

pub use bohf_core::data::{CsvTable, DataError};
pub use magic::{MAGIC_ATTRIBUTES, MagicData, load_magic};
pub use ocx24::{CompositionTable, Ocx24Filter, load_ocx24};
