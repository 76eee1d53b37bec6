//! # bohf-baselines
//!
//! Baselines the papers compare against: MaxMinLCB (Pásztor et al. 2024), GP-UCB and GP-TS with
//! scalar feedback (GP-UCB also on a continuous box, [`GpUcbBox`]), and uniform random duels.
#![warn(missing_docs)]

pub mod maxminlcb;
pub mod random;
pub mod scalar;
pub mod scalar_box;

pub use maxminlcb::{MaxMinLcb, MaxMinLcbConfig, PlausibleSet, ValidMaxMinLcbConfig};
pub use random::{RandomDuels, RandomDuelsBox, RandomDuelsConfig, ValidRandomDuelsConfig};
pub use scalar::{GpTs, GpTsConfig, GpUcb, GpUcbConfig, ValidGpTsConfig, ValidGpUcbConfig};
pub use scalar_box::{BoxUcbStep, GpUcbBox};

#[cfg(test)]
mod tests;
