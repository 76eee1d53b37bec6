//! Reproduction of the papers' experiments: the panels (one spec each), the papers' claims and the
//! rule that judges them, and the reports (per-panel markdown, horizon files, index).
//!
//! Shared by `examples/reproduce.rs` (which rewrites `docs/reproduction/`) and the `bohf reproduce`
//! command. A panel is a spec whose name starts with `mrlpf-` (MR-LPF paper, Figure 1, judged on
//! per-step regret r_T) or `pfts-` (PF-TS paper, Figures 2 and 4, judged on cumulative regret R(T)).
//!
//! * [`claims`]: the papers, the rule of [`compare`] and the claims it judges;
//! * [`panel`]: a finished panel's values at the horizon ([`PanelResult`], `<name>.horizon.csv`);
//! * [`prepare`]: a panel's spec prepared to run and its report written ([`write_panel_report`]);
//! * [`report`]: the per-panel markdown;
//! * [`index`]: the index of all panels ([`build_index`]).

pub mod claims;
pub mod index;
pub mod panel;
pub mod prepare;
pub mod report;

pub use claims::{Claim, Order, Paper, SE_MULTIPLE, claims_of, compare};
pub use index::build_index;
pub use panel::{AlgorithmRow, PanelResult};
pub use prepare::{PreparedPanel, write_panel_report};
pub use report::pm;

/// Runs per algorithm in `--quick` mode (at most).
pub const QUICK_RUNS: usize = 3;
/// Horizon in `--quick` mode (at most).
pub const QUICK_HORIZON: usize = 40;
