//! # bohf
//!
//! Bayesian optimisation from human feedback. This facade re-exports every layer of the workspace.
#![warn(missing_docs)]

pub use bohf_core as core;
pub use bohf_gp as gp;
pub use bohf_infogain as infogain;
pub use bohf_kernels as kernels;
pub use bohf_problems as problems;
