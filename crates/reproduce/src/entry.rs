//! One entry point for a finished panel's report, whatever its paper: [`write_report`] writes the
//! report the panel's paper asks for (COBOL's, COMP-GP-UCB's, or the regret panel of MR-LPF,
//! PF-TS and the others), so that the CLI and `examples/reproduce.rs` do not branch per paper.
//! POP-BO's Table 2 is not a panel of the runner ([`crate::table2`]).

use crate::cobol::{CobolPanel, write_cobol_report};
use crate::compgpucb::{CompPanel, write_compgpucb_report};
use crate::panel::PanelResult;
use crate::prepare::{PreparedPanel, write_panel_report};
use crate::report::Page;
use crate::source::{Paper, Reproduces};
use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::folder::WallTime;
use bohf_experiments::runner::{Experiment, Results};
use std::path::{Path, PathBuf};

/// The result a panel's report was written from, by paper.
#[derive(Debug, Clone)]
pub enum Report {
    /// A regret panel (MR-LPF, PF-TS, and specs of no paper): its values at the horizon
    /// (`<name>.horizon.csv`), which the index is built from.
    Panel(PanelResult),
    /// A COBOL panel (`<name>.cobol.json`).
    Cobol(CobolPanel),
    /// A COMP-GP-UCB panel (`<name>.compgpucb.json`).
    CompGpUcb(CompPanel),
}

impl Report {
    /// The regret panel's values at the horizon, if this is one.
    pub fn panel_result(self) -> Option<PanelResult> {
        match self {
            Report::Panel(p) => Some(p),
            Report::Cobol(_) | Report::CompGpUcb(_) => None,
        }
    }
}

/// The paper a panel reproduces (from its spec's `[reproduces]` section; [`Paper::Other`] without
/// one).
pub fn paper_of(panel: &PreparedPanel) -> Paper {
    panel.spec.reproduces.as_ref().map_or(Paper::Other, Reproduces::paper)
}

/// A finished panel and how it was made: what every report writer is given.
#[derive(Debug, Clone, Copy)]
pub struct ReportJob<'a> {
    /// The folder the report is written into (created if missing).
    pub out: &'a Path,
    /// The experiment as run.
    pub experiment: &'a Experiment,
    /// The panel's spec, as run and as shown.
    pub panel: &'a PreparedPanel,
    /// The finished runs.
    pub results: &'a Results,
    /// The wall time of the runs, seconds (of the timed ones: see `untimed_runs`).
    pub elapsed_s: f64,
    /// The runs whose time `elapsed_s` does not include (finished by an earlier call that did not
    /// record its wall time, or by a shard; [`bohf_experiments::folder::recorded_wall_time`]).
    pub untimed_runs: usize,
    /// The command line the report quotes.
    pub command: &'a str,
    /// The link to the spec file.
    pub spec_link: &'a str,
}

impl<'a> ReportJob<'a> {
    /// Creates the output folder and returns what the report's Markdown is written from (the link
    /// back to the index only where the folder has one, `docs/reproduction/README.md`; a `bohf
    /// reproduce` folder has none).
    pub(crate) fn start(&self) -> Result<Page<'a>> {
        std::fs::create_dir_all(self.out).map_err(|source| ExperimentError::Io {
            action: "create",
            path: self.out.to_path_buf(),
            source,
        })?;
        Ok(Page {
            experiment: self.experiment,
            shown_toml: self.panel.shown.to_toml_string()?,
            spec_text: &self.panel.text,
            command: self.command,
            spec_link: self.spec_link,
            index: self.out.join("README.md").is_file(),
            untimed_runs: self.untimed_runs,
        })
    }

    /// The path of the report's file `<name><suffix>` (e.g. `.md`, `-simple.svg`).
    pub(crate) fn file(&self, suffix: &str) -> PathBuf {
        self.out.join(format!("{}{suffix}", self.experiment.spec().name))
    }
}

/// Writes the report of the finished `panel` (run as `experiment`, giving `results`; `time`: the
/// wall time of its runs and how many runs it covers, e.g. a results folder's
/// [`bohf_experiments::folder::recorded_wall_time`]) into `out`: COBOL's ([`write_cobol_report`]),
/// COMP-GP-UCB's ([`write_compgpucb_report`]) or the regret panel's ([`write_panel_report`]), by
/// the panel's paper. `command` is the command line the report quotes; `spec_link` the link to the spec.
pub fn write_report(
    out: &Path,
    experiment: &Experiment,
    panel: &PreparedPanel,
    results: &Results,
    time: WallTime,
    command: &str,
    spec_link: &str,
) -> Result<Report> {
    let untimed_runs = results.runs().len().saturating_sub(time.runs);
    let job = ReportJob { out, experiment, panel, results, elapsed_s: time.seconds, untimed_runs, command, spec_link };
    Ok(match paper_of(panel) {
        Paper::Cobol => Report::Cobol(write_cobol_report(&job)?),
        Paper::CompGpUcb => Report::CompGpUcb(write_compgpucb_report(&job)?),
        _ => Report::Panel(write_panel_report(&job)?),
    })
}
