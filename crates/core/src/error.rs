//! Typed errors shared by every bohf crate.

/// Errors raised by bohf's numerics and interfaces.
///
/// Each variant names the offending field, dimension or routine so that a researcher can tell what
/// to fix without reading the source.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A parameter is outside its valid range (e.g. a non-positive lengthscale).
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter {
        /// The parameter's name, as it appears in the builder or config.
        name: String,
        /// Why the value is rejected, with the value itself.
        reason: String,
    },
    /// Two objects that must agree in size do not.
    #[error("dimension mismatch in {context}: expected {expected}, got {got}")]
    DimensionMismatch {
        /// Where the mismatch was detected.
        context: String,
        /// The size that was required.
        expected: usize,
        /// The size that was given.
        got: usize,
    },
    /// A NaN or infinite value where a finite number is required.
    #[error("non-finite value in {0}")]
    NonFinite(String),
    /// A candidate index beyond the end of a finite domain.
    #[error("index {index} out of range for {context} of size {len}")]
    IndexOutOfRange {
        /// Where the index was used.
        context: String,
        /// The offending index.
        index: usize,
        /// The number of valid indices.
        len: usize,
    },
    /// An input that must not be empty was empty.
    #[error("empty input: {0}")]
    Empty(String),
    /// A symmetric matrix could not be factorised even after adding the largest allowed jitter.
    #[error(
        "matrix of size {size} is not positive definite: Cholesky failed with jitter up to {jitter:.3e} \
         (limit {max_jitter:.3e}){}",
        context.as_ref().map(|c| format!(" in {c}")).unwrap_or_default()
    )]
    NotPositiveDefinite {
        /// Dimension of the matrix.
        size: usize,
        /// The largest jitter that was tried.
        jitter: f64,
        /// The configured jitter limit.
        max_jitter: f64,
        /// Where the factorisation was attempted, if known.
        context: Option<String>,
    },
    /// A matrix that must be positive semi-definite has a clearly negative eigenvalue.
    #[error(
        "matrix of size {size} is not positive semi-definite: smallest eigenvalue {min_eigenvalue:.3e} \
         is below the tolerance -{tolerance:.3e}"
    )]
    NotPositiveSemiDefinite {
        /// Dimension of the matrix.
        size: usize,
        /// Its smallest eigenvalue.
        min_eigenvalue: f64,
        /// The tolerance below zero that was allowed.
        tolerance: f64,
    },
    /// An iterative solver stopped without meeting its tolerance, or a factorisation failed.
    #[error(
        "solver `{solver}` failed with status {status}{}",
        if detail.is_empty() { String::new() } else { format!(": {detail}") }
    )]
    SolverFailed {
        /// The solver's name (and the problem it solved).
        solver: String,
        /// Why it stopped: the typed status to match on.
        status: SolverStatus,
        /// For a reader: the figures that show it (gradient norm, gap, residuals) and what to change.
        detail: String,
    },
}

/// Why an iterative solver or a factorisation stopped without a usable result
/// ([`Error::SolverFailed`]).
///
/// The variants from [`MaxIterations`](Self::MaxIterations) to
/// [`CallbackTerminated`](Self::CallbackTerminated) are clarabel's statuses other than `Solved`, one to
/// one (bohf-confidence maps them); the rest are the ways bohf's own iterations and factorisations
/// fail. `Display` writes the variant's name and its figures, e.g. `MaxIterations (200 iterations)`.
#[derive(Debug, Clone, PartialEq)]
pub enum SolverStatus {
    /// The iteration limit was reached before the tolerance was met.
    MaxIterations {
        /// The iterations that were run.
        iterations: usize,
    },
    /// The time limit was reached.
    MaxTime,
    /// The iterates stopped improving (clarabel's `InsufficientProgress`; a line search that finds no
    /// decrease).
    InsufficientProgress,
    /// Numerical trouble in the solver (clarabel's `NumericalError`).
    NumericalError,
    /// Only a reduced accuracy was reached, worse than the accepted one (clarabel's `AlmostSolved`).
    AlmostSolved,
    /// A certificate that the constraints admit no point.
    PrimalInfeasible,
    /// A certificate, to reduced accuracy, that the constraints admit no point.
    AlmostPrimalInfeasible,
    /// A certificate that the dual is infeasible: the objective is unbounded over the constraints.
    DualInfeasible,
    /// A certificate, to reduced accuracy, that the dual is infeasible.
    AlmostDualInfeasible,
    /// The solver did not run.
    Unsolved,
    /// A callback stopped the solver.
    CallbackTerminated,
    /// A NaN or infinite value appeared in the iterates or the solution.
    NonFinite,
    /// A linear system or a triangular factor is singular.
    Singular,
    /// A pivot that must be positive is not (e.g. the innovation variance ρ + σ² of a rank-one
    /// posterior update): the matrix is not positive definite.
    NonPositivePivot {
        /// The pivot's value.
        pivot: f64,
    },
    /// A routine that reports no iteration count (LAPACK) did not converge.
    NotConverged,
    /// The problem could not be set up; the solver's own message.
    SetupFailed(String),
    /// Updating the data of a set-up problem failed; the solver's own message.
    DataUpdateFailed(String),
    /// The solve failed with `first`, and its retry failed with `retry`.
    Retried {
        /// The status of the first solve.
        first: Box<SolverStatus>,
        /// The status of the retry.
        retry: Box<SolverStatus>,
    },
}

impl std::fmt::Display for SolverStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolverStatus::MaxIterations { iterations } => write!(f, "MaxIterations ({iterations} iterations)"),
            SolverStatus::MaxTime => f.write_str("MaxTime"),
            SolverStatus::InsufficientProgress => f.write_str("InsufficientProgress"),
            SolverStatus::NumericalError => f.write_str("NumericalError"),
            SolverStatus::AlmostSolved => f.write_str("AlmostSolved"),
            SolverStatus::PrimalInfeasible => f.write_str("PrimalInfeasible"),
            SolverStatus::AlmostPrimalInfeasible => f.write_str("AlmostPrimalInfeasible"),
            SolverStatus::DualInfeasible => f.write_str("DualInfeasible"),
            SolverStatus::AlmostDualInfeasible => f.write_str("AlmostDualInfeasible"),
            SolverStatus::Unsolved => f.write_str("Unsolved"),
            SolverStatus::CallbackTerminated => f.write_str("CallbackTerminated"),
            SolverStatus::NonFinite => f.write_str("NonFinite"),
            SolverStatus::Singular => f.write_str("Singular"),
            SolverStatus::NonPositivePivot { pivot } => write!(f, "NonPositivePivot ({pivot:.3e})"),
            SolverStatus::NotConverged => f.write_str("NotConverged"),
            SolverStatus::SetupFailed(message) => write!(f, "SetupFailed ({message})"),
            SolverStatus::DataUpdateFailed(message) => write!(f, "DataUpdateFailed ({message})"),
            SolverStatus::Retried { first, retry } => write!(f, "{first}, then {retry} when retried"),
        }
    }
}

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub fn invalid(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidParameter { name: name.into(), reason: reason.into() }
    }

    /// Shorthand for [`Error::SolverFailed`].
    pub fn solver_failed(solver: impl Into<String>, status: SolverStatus, detail: impl Into<String>) -> Self {
        Error::SolverFailed { solver: solver.into(), status, detail: detail.into() }
    }

    /// Shorthand for [`Error::DimensionMismatch`].
    pub fn dims(context: impl Into<String>, expected: usize, got: usize) -> Self {
        Error::DimensionMismatch { context: context.into(), expected, got }
    }

    /// The error with its field path placed under `outer`: the name `n` of an
    /// [`Error::InvalidParameter`] becomes [`field_path`]`(outer, n)` (other variants are returned
    /// unchanged). This is how a config's `check()` reports the real TOML path of a field: each
    /// sub-config names its fields relative to itself, and the caller that owns the sub-config under
    /// key `outer` prefixes them, e.g. `lambda` → `mle.lambda` → `inference.mle.lambda`.
    pub fn at(self, outer: &str) -> Self {
        match self {
            Error::InvalidParameter { name, reason } => {
                Error::InvalidParameter { name: field_path(outer, &name), reason }
            }
            other => other,
        }
    }

    /// The error with "history entry `k`: " prefixed to the reason of an
    /// [`Error::InvalidParameter`] (other variants are returned unchanged), for errors raised while
    /// replaying the `k`-th (0-based) step of a history.
    pub fn in_history_entry(self, k: usize) -> Self {
        match self {
            Error::InvalidParameter { name, reason } => Error::invalid(name, format!("history entry {k}: {reason}")),
            other => other,
        }
    }
}

/// Result type of bohf.
pub type Result<T> = std::result::Result<T, Error>;

/// The path of field `inner` inside the table at path `outer`, as written in a TOML file:
/// `outer.inner`, or `outer[i]…` when `inner` starts with an index (`lengthscales` + `[1]`), or
/// either part alone when the other is empty. The one place field paths are joined.
pub fn field_path(outer: &str, inner: &str) -> String {
    if outer.is_empty() {
        inner.to_string()
    } else if inner.is_empty() {
        outer.to_string()
    } else if inner.starts_with('[') {
        format!("{outer}{inner}")
    } else {
        format!("{outer}.{inner}")
    }
}

/// [`Error::at`] on the error of a [`Result`]: `sub.check().at("mle")`.
pub trait AtField<T> {
    /// Places the field path of an [`Error::InvalidParameter`] under `outer` ([`Error::at`]).
    fn at(self, outer: &str) -> Result<T>;
}

impl<T> AtField<T> for Result<T> {
    fn at(self, outer: &str) -> Result<T> {
        self.map_err(|e| e.at(outer))
    }
}

/// Declares the validated form of a config: a newtype around `$config` whose field is private to
/// the declaring module, so that only that module's `check()` can build it, and which derefs to
/// the config for reading. Constructors take the validated type, so an unchecked config cannot
/// reach an algorithm.
///
/// ```ignore
/// bohf_core::validated! {
///     /// A [`MyConfig`] that passed [`MyConfig::check`].
///     pub struct ValidMyConfig(MyConfig);
/// }
/// ```
///
/// A config whose check produces checked sub-configs keeps them, so that nothing is checked twice:
/// the second form adds named parts, set by `check()` (`ValidMyConfig { config, fit }`, in the
/// declaring module) and read through accessors of the same names.
///
/// ```ignore
/// bohf_core::validated! {
///     /// A [`MyConfig`] that passed [`MyConfig::check`], with its checked fit.
///     pub struct ValidMyConfig(MyConfig) {
///         /// The checked fit settings.
///         checked_fit: ValidFitConfig,
///     }
/// }
/// ```
#[macro_export]
macro_rules! validated {
    ($(#[$meta:meta])* $vis:vis struct $name:ident($config:ty) {
        $($(#[$fmeta:meta])* $field:ident: $fty:ty),* $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name {
            config: $config,
            $($field: $fty,)*
        }

        impl ::core::ops::Deref for $name {
            type Target = $config;
            fn deref(&self) -> &$config {
                &self.config
            }
        }

        impl $name {
            /// The checked config.
            pub fn config(&self) -> &$config {
                &self.config
            }

            /// The config itself (to change it; it must then be checked again).
            pub fn into_config(self) -> $config {
                self.config
            }

            $(
                $(#[$fmeta])*
                pub fn $field(&self) -> &$fty {
                    &self.$field
                }
            )*
        }
    };
    ($(#[$meta:meta])* $vis:vis struct $name:ident($config:ty);) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name($config);

        impl ::core::ops::Deref for $name {
            type Target = $config;
            fn deref(&self) -> &$config {
                &self.0
            }
        }

        impl $name {
            /// The checked config.
            pub fn config(&self) -> &$config {
                &self.0
            }

            /// The config itself (to change it; it must then be checked again).
            pub fn into_config(self) -> $config {
                self.0
            }
        }
    };
}

/// Returns `Err(Error::NonFinite)` if any value is NaN or infinite.
pub fn ensure_finite<'a>(what: &str, values: impl IntoIterator<Item = &'a f64>) -> Result<()> {
    // Every value visited (no early exit), so the test vectorises: the confidence programs check
    // a matrix of 250,000 entries before each of their tens of factorisations.
    if values.into_iter().fold(true, |ok, v| ok & v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite(what.to_string()))
    }
}

/// Returns an error unless `value` is finite and strictly positive.
pub fn ensure_positive(name: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(name, format!("must be finite and > 0, got {value}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_failure_reads_as_solver_status_and_detail() {
        let e = Error::solver_failed("newton", SolverStatus::MaxIterations { iterations: 7 }, "gradient norm 1e-3");
        assert_eq!(
            e.to_string(),
            "solver `newton` failed with status MaxIterations (7 iterations): gradient norm 1e-3"
        );
        // No detail: no trailing colon.
        let e = Error::solver_failed("lapack", SolverStatus::NotConverged, "");
        assert_eq!(e.to_string(), "solver `lapack` failed with status NotConverged");
        let retried = SolverStatus::Retried {
            first: Box::new(SolverStatus::InsufficientProgress),
            retry: Box::new(SolverStatus::MaxIterations { iterations: 2 }),
        };
        assert_eq!(retried.to_string(), "InsufficientProgress, then MaxIterations (2 iterations) when retried");
    }

    #[test]
    fn paths_join_as_toml_writes_them() {
        assert_eq!(field_path("inference", "mle.lambda"), "inference.mle.lambda");
        assert_eq!(field_path("kernel", "[1]"), "kernel[1]");
        assert_eq!(field_path("kernel", "lengthscales[1]"), "kernel.lengthscales[1]");
        assert_eq!(field_path("", "lambda"), "lambda");
        assert_eq!(field_path("beta", ""), "beta");
        // Nested contexts compose from the inside out, and other variants pass through.
        let e: Result<()> = Err(Error::invalid("lambda", "must be > 0"));
        let e = e.at("mle").at("inference").unwrap_err();
        assert_eq!(e, Error::invalid("inference.mle.lambda", "must be > 0"));
        assert_eq!(Error::NonFinite("x".into()).at("beta"), Error::NonFinite("x".into()));
    }

    /// A sub-config of the parts form: checked once by the outer check, its checked form kept.
    #[derive(Debug, Clone, PartialEq)]
    struct Inner {
        rate: f64,
    }

    crate::validated! {
        struct ValidInner(Inner);
    }

    impl Inner {
        fn check(&self) -> Result<ValidInner> {
            ensure_positive("rate", self.rate)?;
            Ok(ValidInner(self.clone()))
        }
    }

    #[derive(Debug, Clone, PartialEq)]
    struct Outer {
        inner: Inner,
        label: &'static str,
    }

    crate::validated! {
        struct ValidOuter(Outer) {
            /// The checked `inner`.
            checked_inner: ValidInner,
        }
    }

    impl Outer {
        fn check(&self) -> Result<ValidOuter> {
            let checked_inner = self.inner.check().at("inner")?;
            Ok(ValidOuter { config: self.clone(), checked_inner })
        }
    }

    #[test]
    fn validated_configs_keep_their_checked_parts() {
        let outer = Outer { inner: Inner { rate: 2.0 }, label: "a" };
        let v = outer.check().unwrap();
        // Deref reads the config; the part is the inner config's checked form.
        assert_eq!((v.label, v.inner.rate), ("a", 2.0));
        assert_eq!(v.checked_inner().config(), &outer.inner);
        assert_eq!(v.config(), &outer);
        assert_eq!(v.checked_inner().clone().into_config(), outer.inner);
        assert_eq!(v.clone().into_config(), outer);
        let bad = Outer { inner: Inner { rate: 0.0 }, label: "b" };
        assert_eq!(bad.check().unwrap_err(), Error::invalid("inner.rate", "must be finite and > 0, got 0"));
    }
}
