//! COBOL's experiments (Xu, Adachi, Jones & Osborne 2024; notes 004 §5): a preset with
//! `reproduces.paper = "cobol"` is judged on the metrics the paper plots (notes §5.9), computed
//! from the runs' records with [`bohf_experiments::feedback`]:
//!
//! * the simple regret SR_k and the code's "cumulative regret" Σ_{j ≤ k} SR_j after the k-th
//!   f-evaluation, and the cumulative expert queries Q^g (initial labels excluded) at the k-th
//!   f-evaluation, per algorithm, mean ± s.e. over runs;
//! * a table at k = [`TABLE_EVALUATIONS`] f-evaluations (the driver's `n_iterations`, notes §5.1)
//!   and at the end of each run, over the runs that reached k (each row says how many, "n of N");
//!   k never falls back to fewer. A run stopped before its k-th f-evaluation (by the query cap: the
//!   horizon counts labels and evaluations together, and a run that asks many labels can reach it
//!   first; a `--quick` horizon always does) is left out of the table, the claims and the values of
//!   the summary's rows (`<name>.cobol.json`), and listed apart with its f-evaluations, expert labels (initial ones included) and
//!   accepts ([`CobolPanel::stopped`]). An algorithm with no run at k has no numbers in the table,
//!   and every claim that involves it is "not judged" (the report says why). The plots still show
//!   every run up to where it got (mean over the runs that reached each k);
//! * the claims: those of the generic rule ([`crate::compare`]: "A < B", "A ≤ B", "A best", …) on
//!   SR at k, and COBOL's own (over the runs that reached k):
//!   - **handover** ("A hands over"): split the f-evaluations of each run's iterations (after the
//!     initial ones, detail `phase = initial-evaluation`) into thirds (m = ⌊K/3⌋ of its K); the
//!     expert queries of the first third are those up to its m-th iteration evaluation, those of
//!     the last third Q^g at the end minus Q^g at its (K − m)-th. The claim holds when the mean over
//!     runs of the last third's queries is at most [`HANDOVER_RATIO`] times the first third's (the
//!     query rate has fallen to a quarter or less). With no query in either third the expert was
//!     never asked: it holds trivially, and the verdict says so; a run with fewer than 3
//!     iteration evaluations is not judged;
//!   - **no harm** ("A within F× B"): A's mean SR is not significantly above F times B's (mean_A −
//!     F·mean_B ≤ 2·√(s.e._A² + F²·s.e._B²)) both at k and at the end, and at the end A's SR is not
//!     significantly above B's (the same level, the rule of [`crate::compare`]).
//!
//! The report also names the handover threshold g_thr of every algorithm (its `g_thr` parameter,
//! default [`bohf_cobol::G_THR_PAPER`]); the baselines that never ask (vanilla LCB, random search)
//! and expert sampling (asks at every draw) have none.

use crate::Order;
use crate::claims::{Claim, SE_MULTIPLE, Values, claims_table, compare, judge};
use crate::entry::ReportJob;
use crate::presets::Preset;
use crate::report::{Page, pm, signed};
use crate::source::{ClaimRule, Paper, Reproduces};
use bohf_cobol::{CobolConfig, Variant};
use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::feedback::{evaluation_curve, expert_queries};
use bohf_experiments::results::{QueryKind, RunRecord};
use bohf_experiments::spec::{AlgorithmSpec, ExperimentSpec};
use bohf_experiments::summary::{MeanSe, mean_se};
use bohf_experiments::write_atomic;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

mod claims;
mod report;

pub use claims::{accuracy_ordering, cobol_claims, handover_claim, no_harm_claim};
pub(crate) use report::{index_section, is_paper_experiment, searches_text};
pub use report::{rules_text, table_rule, write_cobol_report};

/// The f-evaluations of the table (the authors' driver's `n_iterations`, notes §5.1).
pub const TABLE_EVALUATIONS: usize = 50;

/// Handover holds when the last third's expert queries are at most this fraction of the first
/// third's (see the module documentation).
pub const HANDOVER_RATIO: f64 = 0.25;

/// The metrics of one algorithm at one point (mean ± s.e. over runs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CobolAt {
    /// Simple regret SR.
    pub simple: MeanSe,
    /// Σ SR over the f-evaluations so far.
    pub sum_simple: MeanSe,
    /// Expert queries Q^g so far (initial labels excluded).
    pub queries: MeanSe,
}

/// One algorithm of a COBOL panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CobolRow {
    /// Its label.
    pub label: String,
    /// Its variant (`cobol`, `vanilla-lcb`, …).
    pub variant: String,
    /// Its handover threshold, if it has one (COBOL and COBOHL).
    pub g_thr: Option<f64>,
    /// Its trust weight η, if it has one (COBOL).
    pub eta: Option<f64>,
    /// Runs that reached k f-evaluations: those of the table and the claims.
    pub runs: usize,
    /// Runs stopped before k f-evaluations (listed apart, [`CobolPanel::stopped`]).
    #[serde(default)]
    pub stopped: usize,
    /// The fewest and the most f-evaluations of a run (all its runs).
    pub evaluations: [usize; 2],
    /// At k f-evaluations ([`CobolPanel::k`]); `None` if no run reached k.
    pub at_k: Option<CobolAt>,
    /// At the end of each run that reached k; `None` if none did.
    pub at_end: Option<CobolAt>,
    /// The fewest f-evaluations of the iterations (after the initial ones) of a run that reached k.
    pub iteration_evaluations: usize,
    /// Expert queries in the first third of each run's iteration f-evaluations (runs that reached
    /// k; `None` if none did).
    pub queries_first_third: Option<MeanSe>,
    /// Expert queries in the last third (likewise).
    pub queries_last_third: Option<MeanSe>,
    /// Wall time per run (the algorithm's calls; all its runs), seconds.
    pub wall_seconds: MeanSe,
}

/// A run stopped before k f-evaluations (by the query cap), listed apart from the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoppedRun {
    /// Its algorithm's label.
    pub label: String,
    /// Its run index (as in `steps.csv`).
    pub run: usize,
    /// The f-evaluations it reached.
    pub evaluations: usize,
    /// Its expert labels, initial ones included.
    pub labels: usize,
    /// How many of them were accepts.
    pub accepts: usize,
    /// Its queries (labels and f-evaluations: its steps).
    pub queries: usize,
}

impl StoppedRun {
    fn of(run: &RunRecord, evaluations: usize) -> Self {
        let labels = run.steps.iter().filter(|s| s.query == QueryKind::Label);
        Self {
            label: run.label.clone(),
            run: run.id.run,
            evaluations,
            labels: labels.clone().count(),
            accepts: labels.filter(|s| matches!(s.answer, bohf_core::Answer::Label { accept: true })).count(),
            queries: run.steps.len(),
        }
    }
}

/// A finished COBOL panel, as stored in `<name>.cobol.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CobolPanel {
    /// The spec name.
    pub name: String,
    /// The title.
    pub title: String,
    /// The horizon (queries per run).
    pub horizon: usize,
    /// Whether this was a `--quick` smoke test.
    pub quick: bool,
    /// Wall time of the whole panel, seconds.
    pub elapsed_s: f64,
    /// The f-evaluations of the table: [`TABLE_EVALUATIONS`] (never fewer; runs that did not reach
    /// it are [`CobolPanel::stopped`]).
    pub k: usize,
    /// One row per algorithm, in spec order.
    pub rows: Vec<CobolRow>,
    /// The runs stopped before k f-evaluations (by the query cap), in (algorithm, run) order.
    #[serde(default)]
    pub stopped: Vec<StoppedRun>,
}

/// One run's curves against its f-evaluations: SR_k, Σ SR, Q^g at the k-th evaluation, and Q^g at
/// the end.
struct RunCurves {
    /// The initial f-evaluations (detail `phase = initial-evaluation`), before any iteration.
    initial: usize,
    simple: Vec<f64>,
    sum_simple: Vec<f64>,
    queries: Vec<f64>,
    queries_end: f64,
}

fn run_curves(run: &RunRecord, u_star: f64) -> RunCurves {
    let c = evaluation_curve(run, u_star);
    let q = expert_queries(run);
    let queries: Vec<f64> = run
        .steps
        .iter()
        .zip(&q)
        .filter(|(s, _)| s.query == QueryKind::Evaluate && matches!(s.answer, bohf_core::Answer::Value(_)))
        .map(|(_, &n)| n as f64)
        .collect();
    let initial = run
        .steps
        .iter()
        .filter(|s| s.query == QueryKind::Evaluate && s.detail("phase") == Some("initial-evaluation"))
        .count();
    RunCurves {
        initial: initial.min(queries.len()),
        simple: c.simple_regret,
        sum_simple: c.cumulative_simple_regret,
        queries,
        queries_end: q.last().copied().unwrap_or(0) as f64,
    }
}

/// The f-evaluations of the iterations (after the initial ones).
fn iteration_evaluations(c: &RunCurves) -> usize {
    c.queries.len() - c.initial
}

/// (first third, last third) expert queries of one run's iteration f-evaluations (see the module
/// documentation).
fn thirds(c: &RunCurves) -> (f64, f64) {
    let q = &c.queries[c.initial..];
    let base = if c.initial == 0 { 0.0 } else { c.queries[c.initial - 1] };
    let at = |j: usize| if j == 0 { base } else { q[j - 1] };
    let k = q.len();
    let m = k / 3;
    (at(m) - base, c.queries_end - at(k - m))
}

/// The algorithm's COBOL settings (`None` if its params do not read as [`CobolConfig`], e.g. not
/// a `cobol` algorithm).
fn config_of(a: &AlgorithmSpec) -> Option<CobolConfig> {
    if a.name != "cobol" {
        return None;
    }
    toml::Value::Table(a.params.clone()).try_into().ok()
}

fn variant_name(v: Variant) -> &'static str {
    match v {
        Variant::Cobol => "cobol",
        Variant::Cobohl => "cobohl",
        Variant::VanillaLcb => "vanilla-lcb",
        Variant::RandomSearch => "random-search",
        Variant::ExpertSampling => "expert-sampling",
        Variant::Constrained => "constrained",
        Variant::Pinpoint => "pinpoint",
    }
}

fn mean_of(curves: &[&RunCurves], pick: impl Fn(&RunCurves) -> f64) -> MeanSe {
    mean_se(&curves.iter().map(|c| pick(c)).collect::<Vec<_>>())
}

impl CobolPanel {
    /// The panel of finished runs: `runs` of every algorithm of `spec`, regret against the optimum
    /// `u_star` (on the respondent's scale).
    pub fn from_runs(
        spec: &ExperimentSpec,
        title: &str,
        runs: &[RunRecord],
        u_star: f64,
        quick: bool,
        elapsed_s: f64,
    ) -> Self {
        let curves: Vec<(usize, RunCurves)> = runs.iter().map(|r| (r.id.algorithm, run_curves(r, u_star))).collect();
        let k = TABLE_EVALUATIONS;
        let mut stopped: Vec<(usize, StoppedRun)> = runs
            .iter()
            .zip(&curves)
            .filter(|(_, (_, c))| c.simple.len() < k)
            .map(|(r, (_, c))| (r.id.algorithm, StoppedRun::of(r, c.simple.len())))
            .collect();
        stopped.sort_by_key(|(a, s)| (*a, s.run));
        let stopped = stopped.into_iter().map(|(_, s)| s).collect();
        let rows = spec
            .algorithms
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let all: Vec<&RunCurves> = curves.iter().filter(|(j, _)| *j == i).map(|(_, c)| c).collect();
                // The table and the claims: the runs that reached k.
                let mine: Vec<&RunCurves> = all.iter().copied().filter(|c| c.simple.len() >= k).collect();
                let wall: Vec<f64> = runs.iter().filter(|r| r.id.algorithm == i).map(|r| r.wall_seconds()).collect();
                let config = config_of(a);
                let variant = config.as_ref().map(|c| c.variant);
                let asks_by_threshold = matches!(variant, Some(Variant::Cobol | Variant::Cobohl));
                let at = |index: &dyn Fn(&RunCurves) -> Option<usize>| -> Option<CobolAt> {
                    let pick = |v: fn(&RunCurves) -> &Vec<f64>| {
                        mean_of(&mine, |c| index(c).and_then(|j| v(c).get(j).copied()).unwrap_or(f64::NAN))
                    };
                    (!mine.is_empty() && mine.iter().all(|c| index(c).is_some())).then(|| CobolAt {
                        simple: pick(|c| &c.simple),
                        sum_simple: pick(|c| &c.sum_simple),
                        queries: pick(|c| &c.queries),
                    })
                };
                let at_k = at(&|_| Some(k - 1));
                let at_end = at(&|c: &RunCurves| c.simple.len().checked_sub(1)).map(|mut e| {
                    // Q^g at the end of the run, not at its last evaluation.
                    e.queries = mean_of(&mine, |c| c.queries_end);
                    e
                });
                let counts: Vec<usize> = all.iter().map(|c| c.simple.len()).collect();
                let reached = !mine.is_empty();
                CobolRow {
                    label: a.label().to_string(),
                    variant: variant.map_or_else(|| a.name.clone(), |v| variant_name(v).to_string()),
                    g_thr: config.as_ref().filter(|_| asks_by_threshold).map(|c| c.g_thr),
                    eta: config.as_ref().filter(|c| c.variant == Variant::Cobol).map(|c| c.eta),
                    runs: mine.len(),
                    stopped: all.len() - mine.len(),
                    evaluations: [counts.iter().copied().min().unwrap_or(0), counts.iter().copied().max().unwrap_or(0)],
                    at_k,
                    at_end,
                    iteration_evaluations: mine.iter().map(|c| iteration_evaluations(c)).min().unwrap_or(0),
                    queries_first_third: reached.then(|| mean_of(&mine, |c| thirds(c).0)),
                    queries_last_third: reached.then(|| mean_of(&mine, |c| thirds(c).1)),
                    wall_seconds: mean_se(&wall),
                }
            })
            .collect();
        Self {
            name: spec.name.clone(),
            title: title.to_string(),
            horizon: spec.horizon,
            quick,
            elapsed_s,
            k,
            rows,
            stopped,
        }
    }

    /// The row labelled `label`.
    pub fn get(&self, label: &str) -> Option<&CobolRow> {
        self.rows.iter().find(|r| r.label == label)
    }

    /// The JSON text of `<name>.cobol.json`.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| ExperimentError::Results { path: None, reason: e.to_string() })
    }

    /// Parses [`CobolPanel::to_json`].
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| ExperimentError::Results { path: None, reason: e.to_string() })
    }
}

#[cfg(test)]
mod tests;
