//! # bohf-baselines
//!
//! Baselines the papers compare against: MaxMinLCB (Pásztor et al. 2024), GP-UCB and GP-TS with
//! scalar feedback, and uniform random duels.
#![warn(missing_docs)]

pub mod maxminlcb;
pub mod random;
pub mod scalar;

pub use maxminlcb::{MaxMinLcb, MaxMinLcbConfig, PlausibleSet, ValidMaxMinLcbConfig};
pub use random::{RandomDuels, RandomDuelsConfig, ValidRandomDuelsConfig};
pub use scalar::{GpTs, GpTsConfig, GpUcb, GpUcbConfig, ValidGpTsConfig, ValidGpUcbConfig};

#[cfg(test)]
mod tests;
