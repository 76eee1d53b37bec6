//! # bohf-problems
//!
//! Test problems for bohf, all in the **maximisation convention**:
//!
//! * [`functions`]: the benchmark functions the five papers use (Ackley, Branin, Hartmann, Levy,
//!   Michalewicz, …, CurrinExp and Borehole with two fidelities), behind the [`TestFunction`] trait,
//!   each with its formula, domain and known optimum, and a lookup by name.
#![warn(missing_docs)]

pub mod functions;

pub use functions::{FunctionSpec, KnownOptimum, Sense, TestFunction, by_name};
