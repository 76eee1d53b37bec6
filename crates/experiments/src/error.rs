//! Errors of the experiment layer: invalid specs (naming the field), TOML syntax, files, data,
//! and failures inside a run (naming the algorithm, run and step).

use std::path::PathBuf;

/// Why an experiment could not be specified, run, written or plotted.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// A spec field is invalid; `field` is its path in the TOML file (e.g. `algorithms[1].params.beta`).
    #[error("invalid experiment spec: `{field}`: {reason}")]
    Spec {
        /// The field's path, as written in the spec.
        field: String,
        /// Why it is rejected, with the value.
        reason: String,
    },
    /// An error in the spec file `path` (e.g. a preset's `[reproduces]` section).
    #[error("`{}`: {source}", path.display())]
    InFile {
        /// The spec file.
        path: PathBuf,
        /// The error.
        source: Box<ExperimentError>,
    },
    /// The spec is not valid TOML or does not have the expected shape; the message gives the line
    /// and column, and for a name that is no variant of an enum, the closest variant
    /// ([`crate::de::from_toml_text`]).
    #[error(
        "cannot parse experiment spec{}: {source}{}",
        path.as_ref().map(|p| format!(" `{}`", p.display())).unwrap_or_default(),
        crate::de::help(suggestion.as_deref())
    )]
    Toml {
        /// The spec file, if it came from one.
        path: Option<PathBuf>,
        /// The parser's error (with line and column).
        #[source]
        source: Box<toml::de::Error>,
        /// The variant suggested for an unknown one ("did you mean").
        suggestion: Option<String>,
    },
    /// The experiment would need more memory than the limit ([`crate::limits`]).
    #[error(
        "{needs} of memory, more than the limit of {limit} ({source_of_limit}; set \
         BOHF_MEMORY_LIMIT to change it): {detail}"
    )]
    Memory {
        /// What needs how much, for people: "the experiment needs about 80.0 GB".
        needs: String,
        /// The limit, for people.
        limit: String,
        /// Where the limit came from.
        source_of_limit: String,
        /// The largest allocations ("what = size, …").
        detail: String,
    },
    /// A file could not be read or written.
    #[error("cannot {action} `{}`: {source}", path.display())]
    Io {
        /// `read`, `write`, `create`, `rename` or `remove`.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A data file of the problem could not be loaded.
    #[error(transparent)]
    Data(#[from] bohf_core::data::DataError),
    /// An error of the numerics or of an algorithm outside a run (e.g. building the problem).
    #[error(transparent)]
    Core(#[from] bohf_core::Error),
    /// An algorithm or the respondent failed during a run.
    #[error("algorithm `{label}`, run {run}, step {step}: {source}")]
    Run {
        /// The algorithm's label.
        label: String,
        /// The run index.
        run: usize,
        /// The step t (1-based; 0 while the algorithm is being built).
        step: usize,
        /// The underlying error.
        #[source]
        source: bohf_core::Error,
    },
    /// A run failed and the spec says `on_error = "stop"`: no further run was started. The runs that
    /// finished before are kept here (and were handed to the caller's `on_done` as they finished).
    #[error(
        "{failure} (on_error = \"stop\": {} finished run(s) kept, {not_started} not started; set on_error = \"continue\" \
         to record failures and run the rest)",
        finished.len()
    )]
    Stopped {
        /// The failure that stopped the experiment (the first one, in task order, if several runs in
        /// flight failed).
        failure: Box<crate::results::FailedRun>,
        /// Every run that finished, sorted by (algorithm, run).
        finished: Vec<crate::results::RunRecord>,
        /// How many runs were never started.
        not_started: usize,
    },
    /// A results folder or a file lock cannot be used as asked (a folder of another spec, finished
    /// runs without `resume`, another process holding the lock, an interrupted run, …); the message
    /// is worded for the user and names the folder or file.
    #[error("{0}")]
    Folder(String),
    /// A results file is malformed.
    #[error("malformed results{}: {reason}", path.as_ref().map(|p| format!(" in `{}`", p.display())).unwrap_or_default())]
    Results {
        /// The file, if known.
        path: Option<PathBuf>,
        /// What is wrong (with the line where known).
        reason: String,
    },
    /// JSON (de)serialisation failed.
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
    /// Drawing a plot failed.
    #[error("cannot draw plot `{}`: {reason}", path.display())]
    Plot {
        /// The output file.
        path: PathBuf,
        /// The backend's message.
        reason: String,
    },
}

impl ExperimentError {
    /// Shorthand for [`ExperimentError::Spec`].
    pub fn spec(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ExperimentError::Spec { field: field.into(), reason: reason.into() }
    }

    /// A [`bohf_core::Error`] raised while checking the spec section `prefix`: an invalid parameter
    /// becomes a [`ExperimentError::Spec`] on `prefix.name` ([`bohf_core::field_path`]), anything
    /// else one on `prefix`.
    pub fn in_field(prefix: &str, e: bohf_core::Error) -> Self {
        match e {
            bohf_core::Error::InvalidParameter { name, reason } => {
                Self::spec(bohf_core::field_path(prefix, &name), reason)
            }
            other => Self::spec(prefix, other.to_string()),
        }
    }

    /// The spec field named by a [`ExperimentError::Spec`], if this is one.
    pub fn field(&self) -> Option<&str> {
        match self {
            ExperimentError::Spec { field, .. } => Some(field),
            ExperimentError::InFile { source, .. } => source.field(),
            _ => None,
        }
    }
}

/// Result type of the experiment layer.
pub type Result<T> = std::result::Result<T, ExperimentError>;
