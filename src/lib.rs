//! # bohf
//!
//! Bayesian optimisation from human feedback. This facade re-exports every layer of the workspace, so
//! that `bohf::kernels`, `bohf::gp`, … are one dependency away. The README's first look, checked:
//!
//! ```
//! use bohf::core::FiniteDomain;
//! use bohf::infogain::{PairKernel, greedy_pairs};
//! use bohf::kernels::{Kernel, Stationary, dueling_gram};
//!
//! let grid = FiniteDomain::linspace(0.0, 1.0, 100)?;
//! let k = Stationary::matern52(0.1)?; // the papers' kernel
//! let base = k.gram(grid.points())?; // one base Gram of the candidates
//! let kd = dueling_gram(&base, &[(0, 5)], &[(3, 9)])?; // k_D over candidate pairs
//! assert_eq!(kd[(0, 0)], base[(0, 3)] + base[(5, 9)] - base[(0, 9)] - base[(5, 3)]);
//! let gamma = greedy_pairs(&base, PairKernel::Dueling, 0.05, 300)?;
//! let b = gamma.bracket(); // g ≤ Γ(300) ≤ g/(1−1/e)
//! assert!(b.lower > 0.0 && b.upper > b.lower);
//! # Ok::<(), bohf::core::Error>(())
//! ```
#![warn(missing_docs)]

pub use bohf_baselines as baselines;
pub use bohf_cobol as cobol;
pub use bohf_confidence as confidence;
pub use bohf_core as core;
pub use bohf_eubo as eubo;
pub use bohf_experiments as experiments;
pub use bohf_gp as gp;
pub use bohf_infogain as infogain;
pub use bohf_kernels as kernels;
pub use bohf_mrlpf as mrlpf;
pub use bohf_optim as optim;
pub use bohf_pfts as pfts;
pub use bohf_popbo as popbo;
pub use bohf_problems as problems;
pub use bohf_registry as registry;
pub use bohf_reproduce as reproduce;
