//! # bohf-reproduce
//!
//! Everything that knows a paper: the reproduction of the papers' experiments (the panels, one
//! spec each; the papers' claims and the rule that judges them; the reports: per-panel markdown,
//! horizon files, index), COBOL's and COMP-GP-UCB's own panels and reports, POP-BO's Table 2, and
//! the [`leaderboard`]. It is a user of the engine (`bohf-experiments`) and of the algorithm
//! registry (`bohf-registry`); the engine knows no paper and no algorithm.
//!
//! Shared by `examples/reproduce.rs` (which rewrites `docs/reproduction/`) and the `bohf reproduce`
//! command. The presets are the spec files of a folder ([`presets::discover`]); a spec's
//! `[reproduces]` section ([`source`], the engine's [`bohf_experiments::reproduces`]) says which
//! paper and figure it reproduces and which of the paper's claims to judge (MR-LPF's on per-step
//! regret r_T, PF-TS's on cumulative regret R(T)).
//!
//! * [`source`]: the `[reproduces]` section, the papers and the claims' syntax;
//! * [`presets`]: the presets folder, listed ([`discover`]);
//! * [`claims`]: the papers, the rule of [`compare`] and the claims it judges;
//! * [`cobol`]: COBOL's panels (regret against f-evaluations, expert queries, handover and no
//!   harm), their reports and their section of the index;
//! * [`compgpucb`]: COMP-GP-UCB's panels (S(Λ), R_c, R_l against spent budget in f units, the
//!   claims on S at the total budget), their reports and their section of the index;
//! * [`entry`]: the one entry point for a finished panel's report, whatever its paper
//!   ([`write_report`]);
//! * [`panel`]: a finished panel's values at the horizon ([`PanelResult`], `<name>.horizon.csv`);
//! * [`prepare`]: a panel's spec prepared to run and its report written ([`write_panel_report`]);
//! * [`report`]: the per-panel markdown;
//! * [`index`]: the index of all panels ([`build_index`]).

#![warn(missing_docs)]

pub mod claims;
pub mod cobol;
mod cobol_plot;
pub mod compgpucb;
pub mod entry;
pub mod index;
pub mod leaderboard;
pub mod pages;
pub mod panel;
pub mod prepare;
pub mod presets;
pub mod report;
pub mod table2;

pub use bohf_experiments::reproduces as source;

pub use claims::{Claim, Order, SE_MULTIPLE, claims_of, compare};
pub use cobol::{CobolPanel, write_cobol_report};
pub use compgpucb::{CompPanel, write_compgpucb_report};
pub use entry::{Report, ReportJob, paper_of, write_report};
pub use index::build_index;
pub use pages::refreshed_pages;
pub use panel::{AlgorithmRow, PanelResult};
pub use prepare::{PreparedPanel, write_panel_report};
pub use presets::{Preset, discover};
pub use report::pm;
pub use source::{ClaimRule, Paper, Reproduces};

/// Runs per algorithm in `--quick` mode (at most).
pub const QUICK_RUNS: usize = 3;
/// Horizon in `--quick` mode (at most).
pub const QUICK_HORIZON: usize = 40;
