//! # bohf-experiments
//!
//! Experiments for bohf: [TOML specs](spec), a parallel deterministic [runner], the papers'
//! [regret metrics](metrics), [results] as CSV, [summaries](summary) as JSON, and
//! [plots](mod@plot) (PNG and SVG). The engine is paper-agnostic and names no algorithm: it takes
//! a [`Registry`] of algorithms as a parameter (the papers' algorithms: `bohf_registry::builtin()`;
//! the papers' reproductions: the `bohf-reproduce` crate).
//!
//! ```no_run
//! use bohf_experiments::{Experiment, ExperimentSpec, Registry, write_results};
//!
//! # fn main() -> Result<(), bohf_experiments::ExperimentError> {
//! # let registry = Registry::empty(); // bohf_registry::builtin() for the papers' algorithms
//! let spec = ExperimentSpec::from_toml_str(r#"
//!     name = "mr-lpf-rkhs-se"
//!     horizon = 300
//!     runs = 60
//!     seed = 1
//!     [problem]
//!     kind = "rkhs"
//!     kernel = "se"
//!     [[algorithms]]
//!     name = "mr-lpf"
//!     [algorithms.params.inference.kernel]
//!     kind = "se"
//! "#)?;
//! let experiment = Experiment::new(spec, &registry)?;  // registry: bohf_registry::builtin()
//! let results = experiment.run()?;                      // all runs, on the current rayon pool
//! let files = write_results(&results, "results/mr-lpf-rkhs-se")?;
//! println!("{}", results.summary()?.markdown_table());
//! # Ok(())
//! # }
//! ```
//!
//! **Determinism.** Run r of algorithm a uses its own random streams derived from the base seed
//! and (a, r) ([`runner`]), so results do not depend on the number of threads or on which runs
//! execute together; the CSV without timings ([`Timing::Omit`]) is a deterministic function of the
//! spec.
//!
//! **Building blocks for resuming and sharding.** [`Experiment::tasks`] lists every (algorithm,
//! run), [`Experiment::shard`] a subset, [`Experiment::run_tasks`] runs any subset and hands each
//! finished [`RunRecord`] to a callback (to be written at once, e.g. with
//! [`RunRecord::to_csv`] and [`write_atomic`]), and [`Results::new`] reassembles runs from any
//! number of pieces, refusing a missing or repeated run.
#![warn(missing_docs)]

pub mod budget;
pub mod checkpoint;
pub mod checksum;
pub mod de;
pub mod error;
pub mod feedback;
pub mod folder;
pub mod inputs;
pub mod limits;
pub mod lock;
pub mod metrics;
pub mod output;
pub mod plot;
pub mod problem;
pub mod registry;
pub mod reproduces;
pub mod results;
pub mod runner;
pub mod runs_csv;
pub mod spec;
pub mod summary;
pub mod svm_table;
pub mod warnings;

/// Test fixtures (test-only optimisers, a registry of them, small specs, scratch folders), for the
/// engine's tests and the tests of the crates above it.
#[doc(hidden)]
pub mod testing;

pub use budget::{BudgetSpec, spent_budget};
pub use error::{ExperimentError, Result};
pub use limits::{Allocation, MemoryEstimate, MemoryLimit, ProblemShape};
pub use metrics::RegretModel;
pub use output::{
    OutputFiles, StepsCsvCheck, panel_atomic, plot_atomic, remove_stale_temp_files, temp_file_target, verify_steps_csv,
    write_atomic, write_results,
};
pub use plot::{FeedbackPlot, Metric, Panel, Series, plot, plot_panel, plot_small_multiples};
pub use problem::PreparedProblem;
pub use registry::{AlgorithmEntry, BoxedOptimizer, CheckedAlgorithm, CheckedEntry, RegisteredAlgorithm, Registry};
pub use reproduces::{ClaimRule, Paper, Reproduces};
pub use results::{
    FailedRun, GAP_CSV_COLUMNS, PointRecord, QueryKind, RunId, RunRecord, StepRecord, Timing, UtilityGap, runs_to_csv,
};
pub use runner::{Experiment, Results, TaskOutcome};
pub use runs_csv::runs_from_csv;
pub use spec::{
    AlgorithmSpec, BeliefModel, BeliefSpec, ComparisonSource, ExperimentSpec, ExpertSpec, FunctionDomain,
    FunctionProblem, Inputs, OnError, ProblemSpec, RespondentSpec, ResponseModel,
};
pub use summary::{
    AlgorithmSummary, AtHorizon, BudgetCurve, Curve, FeedbackSummary, HORIZON_CSV_COLUMNS, MeanSe, Summary, mean_se,
};
