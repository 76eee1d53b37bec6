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
use crate::prepare::PreparedPanel;
use crate::presets::Preset;
use crate::report::{pm, report_header, signed, spec_quote};
use crate::source::{ClaimRule, Paper, Reproduces};
use bohf_cobol::{CobolConfig, Variant};
use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::feedback::{evaluation_curve, expert_queries};
use bohf_experiments::results::{QueryKind, RunRecord};
use bohf_experiments::runner::{Experiment, Results};
use bohf_experiments::spec::{AlgorithmSpec, ExperimentSpec};
use bohf_experiments::summary::{MeanSe, mean_se};
use bohf_experiments::write_atomic;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

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

/// "A hands over" on a panel (see the module documentation).
pub fn handover_claim(p: &CobolPanel, a: &str) -> Option<Claim> {
    let r = p.get(a)?;
    let statement = format!("{a} hands over");
    let (Some(first), Some(last)) = (r.queries_first_third, r.queries_last_third) else {
        return Some(not_judged(p, statement, a));
    };
    let evidence = format!(
        "Q^g in the first third of the iterations' f-evaluations {}, in the last third {}; total at the end {}",
        pm(first),
        pm(last),
        r.at_end.map_or("—".into(), |e| pm(e.queries))
    );
    let (holds, verdict) = if r.iteration_evaluations < 3 {
        (false, "not judged: a run has fewer than 3 f-evaluations after the initial ones".to_string())
    } else if first.mean == 0.0 && last.mean == 0.0 {
        (true, "reproduced trivially: the expert was never asked in the first or last third".to_string())
    } else if last.mean <= HANDOVER_RATIO * first.mean {
        (true, format!("reproduced: last third ≤ {HANDOVER_RATIO} × first third"))
    } else {
        (
            false,
            format!(
                "not reproduced: the last third asks {:.0} % as often as the first (plateau: ≤ {:.0} %)",
                100.0 * last.mean / first.mean,
                100.0 * HANDOVER_RATIO
            ),
        )
    };
    Some(Claim { panel: p.name.clone(), statement, evidence, holds, verdict })
}

/// Whether mean_a − f·mean_b > 2·√(se_a² + f²·se_b²) (a significantly above f times b).
fn above_factor(a: MeanSe, f: f64, b: MeanSe) -> (f64, f64, bool) {
    let d = a.mean - f * b.mean;
    let se = (a.se * a.se + f * f * b.se * b.se).sqrt();
    (d, se, d > SE_MULTIPLE * se)
}

/// "A within F× B" on a panel (no harm; see the module documentation).
pub fn no_harm_claim(p: &CobolPanel, a: &str, factor: f64, b: &str) -> Option<Claim> {
    let (ra, rb) = (p.get(a)?, p.get(b)?);
    let statement = format!("{a} within {factor}× {b}");
    let (Some(ka), Some(kb), Some(ea), Some(eb)) = (ra.at_k, rb.at_k, ra.at_end, rb.at_end) else {
        return Some(not_judged(p, statement, if ra.at_k.is_none() { a } else { b }));
    };
    let (dk, sk, over_k) = above_factor(ka.simple, factor, kb.simple);
    let (de, se, over_e) = above_factor(ea.simple, factor, eb.simple);
    let (d, s, order) = compare(ea.simple, eb.simple);
    let evidence = format!(
        "SR at k = {}: {a} {}, {b} {}, {a} − {factor}·{b} = {}; at the end: {a} {}, {b} {}, {a} − {factor}·{b} = {}, \
         {a} − {b} = {}",
        p.k,
        pm(ka.simple),
        pm(kb.simple),
        signed(dk, sk),
        pm(ea.simple),
        pm(eb.simple),
        signed(de, se),
        signed(d, s)
    );
    let mut failures = Vec::new();
    if over_k {
        failures.push(format!("above {factor}× {b} at k = {}", p.k));
    }
    if over_e {
        failures.push(format!("above {factor}× {b} at the end"));
    }
    if order == Order::Higher {
        failures.push(format!("does not reach {b}'s level at the end"));
    }
    let holds = failures.is_empty();
    let verdict = if holds {
        format!("reproduced: within {factor}× and at {b}'s level at the end ({SE_MULTIPLE}-s.e. rule)")
    } else {
        format!("not reproduced: {}", failures.join("; "))
    };
    Some(Claim { panel: p.name.clone(), statement, evidence, holds, verdict })
}

/// Why a claim involving `label` is not judged: none of its runs reached k f-evaluations.
fn not_reached(p: &CobolPanel, label: &str) -> String {
    format!(
        "not judged: no run of {label} reached k = {} f-evaluations (stopped earlier by the query cap; listed apart)",
        p.k
    )
}

/// A claim not judged because `label` has no run at k.
fn not_judged(p: &CobolPanel, statement: String, label: &str) -> Claim {
    Claim { panel: p.name.clone(), statement, evidence: "—".into(), holds: false, verdict: not_reached(p, label) }
}

/// A claim's statement as the judged claims word it (`None` for a claim COBOL does not judge).
fn statement_of(rule: &ClaimRule) -> Option<String> {
    Some(match rule {
        ClaimRule::Lower(a, b) => format!("{a} < {b}"),
        ClaimRule::Parity(a, b) => format!("{a} ≈ {b}"),
        ClaimRule::AtMost(a, b) => format!("{a} ≤ {b}"),
        ClaimRule::Lowest(a) => format!("{a} lowest"),
        ClaimRule::Best(a) => format!("{a} best"),
        ClaimRule::HandsOver(a) => format!("{a} hands over"),
        ClaimRule::Within(a, f, b) => format!("{a} within {f}× {b}"),
        ClaimRule::ErrorAbove(..) => return None,
    })
}

/// The claims of `reproduces` judged on a COBOL panel, in the spec's order: the generic ones on SR
/// at k f-evaluations, handover and no harm as in the module documentation. A claim that involves
/// an algorithm with no run at k ("A lowest" and "A best" involve every algorithm) is not judged.
pub fn cobol_claims(p: &CobolPanel, reproduces: Option<&Reproduces>) -> Vec<Claim> {
    let Some(rep) = reproduces else { return Vec::new() };
    let labels: Vec<&str> = p.rows.iter().map(|r| r.label.as_str()).collect();
    let v = |l: &str| p.get(l).and_then(|r| r.at_k).map(|a| a.simple);
    let v: Values = &v;
    rep.rules()
        .iter()
        .filter_map(|rule| {
            let involved = match rule {
                ClaimRule::Lowest(_) | ClaimRule::Best(_) => labels.clone(),
                other => other.labels(),
            };
            let missing = involved.into_iter().find(|l| p.get(l).is_some_and(|r| r.at_k.is_none()));
            if let (Some(l), Some(statement)) = (missing, statement_of(rule)) {
                return Some(not_judged(p, statement, l));
            }
            match rule {
                ClaimRule::HandsOver(a) => handover_claim(p, a),
                ClaimRule::Within(a, f, b) => no_harm_claim(p, a, *f, b),
                other => judge(&p.name, &labels, v, other),
            }
        })
        .collect()
}

/// The expert accuracy a of a spec's synthetic expert, if it has one.
fn accuracy(spec: &ExperimentSpec) -> Option<f64> {
    spec.respondent.expert.map(|e| e.accuracy)
}

/// Experiment A's accuracy ordering across panels: for each COBOL label `L` present in the a = 2
/// and a = 1 panels (those of `panels` whose figure starts with "Experiment A (Fig. 3)"), "L (a = 2) ≤ L
/// (a = 1)" and "L (a = 1) ≤ vanilla LCB (a = 1)" on SR at k, by the rule of [`compare`].
pub fn accuracy_ordering(panels: &[(CobolPanel, f64)]) -> Vec<Claim> {
    let find = |a: f64| panels.iter().find(|(_, acc)| *acc == a).map(|(p, _)| p);
    let (Some(p2), Some(p1)) = (find(2.0), find(1.0)) else { return Vec::new() };
    // `None`: no such row (skipped); `Some(Err(label))`: a row with no run at k (not judged).
    let sr = |p: &CobolPanel, l: &str| p.get(l).map(|r| r.at_k.map(|a| a.simple).ok_or_else(|| l.to_string()));
    let mut out = Vec::new();
    for row in p1.rows.iter().filter(|r| r.variant == "cobol") {
        let l = row.label.as_str();
        let mut pair = |panel: &CobolPanel,
                        a: Option<std::result::Result<MeanSe, String>>,
                        b: Option<std::result::Result<MeanSe, String>>,
                        la: String,
                        lb: String| {
            let (Some(a), Some(b)) = (a, b) else { return };
            let (a, b) = match (a, b) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(missing), _) | (_, Err(missing)) => {
                    out.push(not_judged(panel, format!("{la} ≤ {lb}"), &missing));
                    return;
                }
            };
            let name = panel.name.clone();
            let (d, se, order) = compare(a, b);
            out.push(Claim {
                panel: name,
                statement: format!("{la} ≤ {lb}"),
                evidence: format!("{la} {}, {lb} {}; difference {}", pm(a), pm(b), signed(d, se)),
                holds: order != Order::Higher,
                verdict: match order {
                    Order::Higher => format!("not reproduced: {la} is significantly higher"),
                    Order::Lower => "reproduced (significantly lower)".into(),
                    Order::Indistinguishable => format!("reproduced: within {SE_MULTIPLE} s.e."),
                },
            });
        };
        pair(p2, sr(p2, l), sr(p1, l), format!("{l} (a = 2)"), format!("{l} (a = 1)"));
        pair(p1, sr(p1, l), sr(p1, "vanilla LCB"), format!("{l} (a = 1)"), "vanilla LCB".into());
    }
    out
}

/// Writes a finished COBOL panel's report into `out`: `<name>.md`, `<name>.cobol.json` and the
/// plots `<name>-{simple,sum-simple,queries}.{png,svg}` (against f-evaluations). Returns the
/// panel.
pub fn write_cobol_report(
    out: &Path,
    experiment: &Experiment,
    panel: &PreparedPanel,
    results: &Results,
    elapsed_s: f64,
    command: &str,
    spec_link: &str,
) -> Result<CobolPanel> {
    std::fs::create_dir_all(out).map_err(|source| ExperimentError::Io {
        action: "create",
        path: out.to_path_buf(),
        source,
    })?;
    let spec = experiment.spec();
    let u_star = experiment.problem().regret().best_value();
    let title = experiment.title();
    let p = CobolPanel::from_runs(spec, &title, results.runs(), u_star, panel.quick, elapsed_s);
    let plot_title = panel.plot_title(&title);
    for (what, axis) in [
        (Series::Simple, "simple regret SR"),
        (Series::SumSimple, "Σ SR (the code's cumulative regret)"),
        (Series::Queries, "expert queries Qᵍ (initial labels excluded)"),
    ] {
        let curves = mean_curves(spec, results.runs(), u_star, what);
        for ext in ["png", "svg"] {
            let path = out.join(format!("{}-{}.{ext}", spec.name, what.key()));
            crate::cobol_plot::plot_curves(&plot_title, axis, &curves, &path)?;
        }
    }
    write_atomic(out.join(format!("{}.cobol.json", spec.name)), p.to_json()?.as_bytes())?;
    let shown = panel.shown.to_toml_string()?;
    let index = out.join("README.md").is_file();
    let md = cobol_markdown(experiment, &shown, &panel.text, &p, command, spec_link, index);
    write_atomic(out.join(format!("{}.md", spec.name)), md.as_bytes())?;
    Ok(p)
}

/// Which curve to plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Series {
    Simple,
    SumSimple,
    Queries,
}

impl Series {
    fn key(self) -> &'static str {
        match self {
            Series::Simple => "simple",
            Series::SumSimple => "sum-simple",
            Series::Queries => "queries",
        }
    }
}

/// Per algorithm: its label, its runs, and mean ± s.e. of the series at k = 1, 2, … f-evaluations
/// over the runs that reached k.
fn mean_curves(
    spec: &ExperimentSpec,
    runs: &[RunRecord],
    u_star: f64,
    what: Series,
) -> Vec<(String, usize, Vec<MeanSe>)> {
    spec.algorithms
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mine: Vec<RunCurves> =
                runs.iter().filter(|r| r.id.algorithm == i).map(|r| run_curves(r, u_star)).collect();
            let pick = |c: &RunCurves| -> Vec<f64> {
                match what {
                    Series::Simple => c.simple.clone(),
                    Series::SumSimple => c.sum_simple.clone(),
                    Series::Queries => c.queries.clone(),
                }
            };
            let series: Vec<Vec<f64>> = mine.iter().map(pick).collect();
            let len = series.iter().map(Vec::len).max().unwrap_or(0);
            let curve = (0..len)
                .map(|k| mean_se(&series.iter().filter_map(|s| s.get(k).copied()).collect::<Vec<_>>()))
                .collect();
            (a.label().to_string(), mine.len(), curve)
        })
        .collect()
}

fn opt(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{v}"))
}

fn at_cells(a: Option<CobolAt>) -> String {
    match a {
        Some(a) => format!("{} | {} | {}", pm(a.simple), pm(a.sum_simple), pm(a.queries)),
        None => "— | — | —".into(),
    }
}

/// The rule for runs stopped before k, in one sentence (every COBOL report states it).
pub fn table_rule(k: usize) -> String {
    format!(
        "Table at k = {k} f-evaluations over the runs that reached it (\"runs\": n of N); runs stopped earlier (query \
         cap) are listed apart and left out of the table and the claims, and an algorithm with no run at k has no \
         numbers and its claims are not judged."
    )
}

/// The runs stopped before k, listed apart (or a line saying there are none).
fn stopped_table(s: &mut String, p: &CobolPanel) {
    if p.stopped.is_empty() {
        let _ = writeln!(s, "No run stopped before k = {} f-evaluations.\n", p.k);
        return;
    }
    let _ = writeln!(
        s,
        "Runs stopped before k = {} f-evaluations (query cap: {} queries per run, labels and evaluations together); \
         expert labels include the initial ones:\n",
        p.k, p.horizon
    );
    let _ = writeln!(
        s,
        "| algorithm | run | f-evaluations | expert labels | accepts | queries |\n|---|---|---|---|---|---|"
    );
    for r in &p.stopped {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            r.label, r.run, r.evaluations, r.labels, r.accepts, r.queries
        );
    }
    s.push('\n');
}

/// The report of one COBOL panel.
fn cobol_markdown(
    experiment: &Experiment,
    shown_toml: &str,
    spec_text: &str,
    p: &CobolPanel,
    command: &str,
    spec_link: &str,
    index: bool,
) -> String {
    let spec = experiment.spec();
    let mut s = report_header(&p.title, p.quick, experiment, command, &format!("{}.toml", p.name), spec_link, index);
    let _ = writeln!(
        s,
        "- Domain: {}; u(x*) = {} on the respondent's scale (COBOL minimises f = −u: f* = {}).",
        experiment.problem().domain(),
        experiment.problem().regret().best_value(),
        0.0 - experiment.problem().regret().best_value()
    );
    if let Some(e) = spec.respondent.expert {
        let _ = writeln!(
            s,
            "- Synthetic expert: accuracy a = {}, f_range = {}.",
            e.accuracy,
            e.f_range.map_or("the candidates' range".into(), |[lo, hi]| format!("[{lo}, {hi}]"))
        );
    }
    if let Some(b) = &spec.respondent.belief {
        let _ = writeln!(
            s,
            "- Belief expert: P(accept) = N(x; μ, Σ)/N(μ; μ, Σ) with μ = {:?}, Σ = {}.",
            b.mean,
            b.cov.as_ref().map_or("I".to_string(), |c| format!("{c:?}"))
        );
    }
    let _ = writeln!(
        s,
        "- Horizon: {} queries per run (labels and evaluations together){}, {} independent runs per algorithm, base seed {}.",
        spec.horizon,
        if p.quick { " (capped by --quick)" } else { "" },
        spec.runs,
        spec.seed
    );
    let _ = writeln!(s, "- Standard errors: std (ddof = 0) / √runs.\n");
    let _ = writeln!(s, "Algorithms and their handover threshold g_thr (line 8 of Algorithm 1):\n");
    let _ = writeln!(s, "| algorithm | variant | g_thr | η | f-evaluations per run (min–max) |\n|---|---|---|---|---|");
    for r in &p.rows {
        let g = match (r.g_thr, r.variant.as_str()) {
            (Some(g), _) => format!("{g}"),
            (None, "expert-sampling") => "— (asks at every draw)".into(),
            (None, _) => "— (never asks)".into(),
        };
        let _ = writeln!(
            s,
            "| {} | `{}` | {g} | {} | {}–{} |",
            r.label,
            r.variant,
            opt(r.eta),
            r.evaluations[0],
            r.evaluations[1]
        );
    }
    spec_quote(
        &mut s,
        "\nFrom the spec file (sources and the choices made where the paper is ambiguous):",
        spec_text,
        shown_toml,
    );

    let _ = writeln!(s, "## Results\n");
    let _ = writeln!(
        s,
        "Mean ± s.e. over the runs that reached k. SR = simple regret min_j f(x_j) − f* over the f-evaluations so far; Σ SR its running \
         sum (the code's plotted \"cumulative regret\"); Q^g = expert queries, initial labels excluded (notes §5.9). \
         \"At the end\": each run's last f-evaluation (Q^g: its last step).\n"
    );
    let _ = writeln!(
        s,
        "| algorithm | runs | **SR at k = {k}** | Σ SR at k | Q^g at k | SR at the end | Σ SR at the end | Q^g at the end | wall time per run (s) |\n|---|---|---|---|---|---|---|---|---|",
        k = p.k
    );
    for r in &p.rows {
        let _ = writeln!(
            s,
            "| {} | {} of {} | **{} | {} | {:.3} ± {:.3} |",
            r.label,
            r.runs,
            r.runs + r.stopped,
            match r.at_k {
                Some(_) => at_cells(r.at_k).replacen(" | ", "** | ", 1),
                None => format!("no run reached k = {}** | — | —", p.k),
            },
            at_cells(r.at_end),
            r.wall_seconds.mean,
            r.wall_seconds.se
        );
    }
    let _ = writeln!(s, "\n{}\n", table_rule(p.k));
    stopped_table(&mut s, p);
    let _ = writeln!(
        s,
        "Wall time per run: the algorithm's own calls, over all its runs. The whole panel ({} runs) took {:.1} s.\n",
        p.rows.iter().map(|r| r.runs + r.stopped).sum::<usize>(),
        p.elapsed_s
    );
    if let Some(section) = crate::pages::cobol_section(p, spec.reproduces.as_ref()) {
        s.push_str(&section);
    }
    let _ = writeln!(s, "## Plots\n");
    let _ = writeln!(
        s,
        "Against f-evaluations; mean over the runs that reached k, ±1 s.e. bands ([SVG]({n}-simple.svg), \
         [SVG]({n}-sum-simple.svg), [SVG]({n}-queries.svg)).\n",
        n = p.name
    );
    for (key, what) in
        [("simple", "simple regret"), ("sum-simple", "sum of simple regret"), ("queries", "expert queries")]
    {
        let _ = writeln!(s, "![{what}]({}-{key}.png)\n", p.name);
    }
    s
}

/// The rules of COBOL's claims, in words (for the reports).
pub fn rules_text() -> String {
    format!(
        "**Rules.** \"A < B\", \"A ≤ B\", \"A ≈ B\", \"A best\" compare SR at k f-evaluations: a difference counts when it \
         exceeds {SE_MULTIPLE} s.e. of the difference (\"A ≤ B\": A not significantly above B; \"A ≈ B\": neither \
         significantly above the other, the sensitivity presets' \"insensitive\" for every pair; \"A best\": no algorithm \
         significantly below A, i.e. best or tied with the best). **Handover** (\"A hands over\"): the f-evaluations \
         of each run's iterations (after the 3 initial ones) are split into thirds; the claim holds when the mean expert \
         queries of the last third are at most {HANDOVER_RATIO} × those of the first third (a run with fewer than 3 such \
         evaluations is not judged). **No harm** (\"A within F× B\"): A's mean SR is not above F × B's \
         by more than {SE_MULTIPLE} s.e. (√(s.e._A² + F²·s.e._B²)) at k and at the end, and at the end A is not \
         significantly above B. Every claim is judged over the runs that reached k; one that involves an \
         algorithm with no run at k is not judged.\n"
    )
}

/// The COBOL section of the index: each panel's claims, Experiment A's accuracy ordering, and a
/// verdict per kind of claim. `panels`: the COBOL presets with their finished panels; `expected`:
/// the paper's COBOL presets ([`is_paper_experiment`]), run or not.
pub(crate) fn index_section(s: &mut String, panels: &[(&Preset, CobolPanel)], expected: usize) {
    let _ = writeln!(s, "## {}\n", Paper::Cobol.citation());
    let _ = writeln!(s, "{}", rules_text());
    let _ = writeln!(s, "{} Each panel's report lists its stopped runs.\n", table_rule(TABLE_EVALUATIONS));
    let _ = writeln!(
        s,
        "| panel | g_thr by algorithm | k | claim | values (mean ± s.e.) | verdict |\n|---|---|---|---|---|---|"
    );
    let mut all: Vec<Claim> = Vec::new();
    for (preset, p) in panels {
        let gthr: Vec<String> = p.rows.iter().filter_map(|r| r.g_thr.map(|g| format!("{} {g}", r.label))).collect();
        let claims = cobol_claims(p, preset.reproduces.as_ref());
        for c in &claims {
            let verdict = if c.holds { format!("**{}**", c.verdict) } else { c.verdict.clone() };
            let _ = writeln!(
                s,
                "| [{n}]({n}.md){} | {} | {} | {} | {} | {verdict} |",
                if p.quick { " (quick)" } else { "" },
                gthr.join("; "),
                p.k,
                c.statement,
                c.evidence,
                n = p.name
            );
        }
        // Only the paper's experiments count towards its verdicts (not bohf's own cases).
        if is_paper_experiment(preset) {
            all.extend(claims);
        }
    }
    // Experiment A's ordering across panels.
    let exp_a: Vec<(CobolPanel, f64)> = panels
        .iter()
        // The accuracy panels only (Fig. 3), not the sensitivity presets of Experiment A at a = 1.
        .filter(|(pr, _)| pr.reproduces.as_ref().is_some_and(|r| r.figure.starts_with("Experiment A (Fig. 3)")))
        .filter_map(|(pr, p)| {
            let spec: ExperimentSpec = toml::from_str(&pr.text).ok()?;
            Some((p.clone(), accuracy(&spec)?))
        })
        .collect();
    let ordering = accuracy_ordering(&exp_a);
    if !ordering.is_empty() {
        let _ = writeln!(s, "\nExperiment A, accuracy ordering a = 2 ≤ a = 1 ≤ vanilla LCB (SR at k):\n");
        s.push_str(&claims_table(&ordering, true));
    }
    all.extend(ordering);
    s.push('\n');
    for (kind, test) in [
        (
            "handover (expert queries plateau)",
            &(|c: &Claim| c.statement.ends_with(" hands over")) as &dyn Fn(&Claim) -> bool,
        ),
        ("no harm (within a factor of vanilla LCB)", &|c: &Claim| c.statement.contains(" within ")),
        ("benefit (COBOL below vanilla LCB)", &|c: &Claim| {
            c.statement.contains(" < ") && c.statement.ends_with(" vanilla LCB")
        }),
        ("ablations worse (λ₀ = 0, pinpointing)", &|c: &Claim| {
            c.statement.contains(" < ") && !c.statement.ends_with(" vanilla LCB")
        }),
        ("insensitivity (every pair within 2 s.e.)", &|c: &Claim| c.statement.contains(" ≈ ")),
        ("COBOL best of the four", &|c: &Claim| c.statement.ends_with(" best")),
        ("accuracy ordering", &|c: &Claim| c.statement.contains(" ≤ ") && c.statement.contains("(a = ")),
        ("robust to the belief (not above vanilla LCB)", &|c: &Claim| {
            c.statement.contains(" ≤ ") && !c.statement.contains("(a = ")
        }),
    ] {
        let these: Vec<&Claim> = all.iter().filter(|c| test(c)).collect();
        if these.is_empty() {
            continue;
        }
        let held = these.iter().filter(|c| c.holds).count();
        let _ = writeln!(
            s,
            "- **{kind}: {}** — holds in {held} of {} checks.{}",
            if held == these.len() {
                "reproduced"
            } else if held == 0 {
                "not reproduced"
            } else {
                "partly reproduced"
            },
            these.len(),
            crate::claims::failed_directions(&these)
        );
    }
    let run = panels.iter().filter(|(p, _)| is_paper_experiment(p)).count();
    if run < expected {
        let _ = writeln!(s, "\n{run} of the paper's {expected} COBOL presets have been run.");
    }
    s.push('\n');
}

/// Whether a preset is one of the paper's experiments (its figure starts with "Experiment"), not
/// one of bohf's own cases (the PMV case).
pub(crate) fn is_paper_experiment(preset: &Preset) -> bool {
    preset.reproduces.as_ref().is_some_and(|r| r.figure.starts_with("Experiment"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bohf_core::Answer;
    use bohf_experiments::results::{PointRecord, StepRecord};
    use bohf_experiments::runner::RunId;

    fn ms(mean: f64, se: f64) -> MeanSe {
        MeanSe { mean, se }
    }

    /// A row whose SR is `sr` at k and `end` at the end, with `first`/`last` third queries.
    fn row(label: &str, sr: MeanSe, end: MeanSe, first: f64, last: f64) -> CobolRow {
        let at = |simple| Some(CobolAt { simple, sum_simple: ms(0.0, 0.0), queries: ms(first + last, 0.0) });
        CobolRow {
            label: label.into(),
            variant: "cobol".into(),
            g_thr: Some(0.1),
            eta: Some(3.0),
            runs: 10,
            stopped: 0,
            evaluations: [50, 50],
            at_k: at(sr),
            at_end: at(end),
            iteration_evaluations: 47,
            queries_first_third: Some(ms(first, 0.5)),
            queries_last_third: Some(ms(last, 0.5)),
            wall_seconds: ms(1.0, 0.0),
        }
    }

    fn panel(rows: Vec<CobolRow>) -> CobolPanel {
        CobolPanel {
            name: "p".into(),
            title: "P".into(),
            horizon: 300,
            quick: false,
            elapsed_s: 1.0,
            k: 50,
            rows,
            stopped: Vec::new(),
        }
    }

    #[test]
    fn handover_holds_on_a_plateau_and_not_on_steady_asking() {
        let p = panel(vec![
            // 12 queries in the first third, 2 in the last: the rate fell to 1/6 ≤ 1/4.
            row("plateau", ms(1.0, 0.1), ms(1.0, 0.1), 12.0, 2.0),
            // 12 then 9: still asking at 3/4 of the rate.
            row("steady", ms(1.0, 0.1), ms(1.0, 0.1), 12.0, 9.0),
            // Exactly a quarter: holds (≤).
            row("quarter", ms(1.0, 0.1), ms(1.0, 0.1), 8.0, 2.0),
            // Never asked in the first third, then asked: not a plateau.
            row("late", ms(1.0, 0.1), ms(1.0, 0.1), 0.0, 4.0),
            row("never", ms(1.0, 0.1), ms(1.0, 0.1), 0.0, 0.0),
        ]);
        let c = |l: &str| handover_claim(&p, l).unwrap();
        assert!(c("plateau").holds, "{:?}", c("plateau"));
        let steady = c("steady");
        assert!(!steady.holds && steady.verdict.contains("75 %"), "{steady:?}");
        assert!(c("quarter").holds);
        assert!(!c("late").holds);
        assert!(c("never").holds && c("never").verdict.contains("never asked"));
        assert!(handover_claim(&p, "missing").is_none());
        // Too few evaluations: not judged.
        let mut short = panel(vec![row("short", ms(1.0, 0.1), ms(1.0, 0.1), 12.0, 0.0)]);
        short.rows[0].iteration_evaluations = 2;
        let c = handover_claim(&short, "short").unwrap();
        assert!(!c.holds && c.verdict.contains("not judged"), "{c:?}");
    }

    #[test]
    fn no_harm_needs_the_factor_at_k_and_at_the_end_and_the_same_level_at_the_end() {
        let vanilla = row("vanilla LCB", ms(0.10, 0.01), ms(0.02, 0.002), 0.0, 0.0);
        // 0.25 ≤ 3 × 0.10 at k, 0.021 ≈ 0.02 at the end: passes.
        let pass = row("good", ms(0.25, 0.02), ms(0.021, 0.002), 5.0, 0.0);
        // 0.60 > 3 × 0.10 by far more than 2 s.e. at k.
        let far = row("far", ms(0.60, 0.02), ms(0.021, 0.002), 5.0, 0.0);
        // Within 3× at the end (0.05 ≤ 0.06) but significantly above vanilla's level.
        let high = row("high", ms(0.20, 0.02), ms(0.05, 0.002), 5.0, 0.0);
        let p = panel(vec![vanilla, pass, far, high]);
        let c = no_harm_claim(&p, "good", 3.0, "vanilla LCB").unwrap();
        assert!(c.holds, "{c:?}");
        assert_eq!(c.statement, "good within 3× vanilla LCB");
        let c = no_harm_claim(&p, "far", 3.0, "vanilla LCB").unwrap();
        assert!(!c.holds && c.verdict.contains("above 3× vanilla LCB at k = 50"), "{c:?}");
        let c = no_harm_claim(&p, "high", 3.0, "vanilla LCB").unwrap();
        assert!(!c.holds && c.verdict.contains("does not reach vanilla LCB's level"), "{c:?}");
        assert!(!c.verdict.contains("at k = 50"), "{c:?}");
        // With a larger factor `far` passes at k, and the claims go through the spec's rules.
        let rep = Reproduces {
            paper: "cobol".into(),
            figure: "Experiment C".into(),
            claims: vec!["far within 10× vanilla LCB".into(), "good best".into(), "good < vanilla LCB".into()],
        };
        let claims = cobol_claims(&p, Some(&rep));
        assert_eq!(claims.len(), 3);
        assert!(claims[0].holds, "{:?}", claims[0]);
        // "good best": vanilla (0.10 ± 0.01) is significantly below good (0.25 ± 0.02).
        assert!(!claims[1].holds && claims[1].verdict.contains("vanilla LCB"), "{:?}", claims[1]);
        assert!(!claims[2].holds);
    }

    /// A step of a run with u* = 0: an evaluation answers u = −gap.
    fn step(query: QueryKind, gap: f64, phase: &str) -> StepRecord {
        StepRecord {
            t: 0,
            query,
            first: PointRecord::Candidate(0),
            second: None,
            options: Vec::new(),
            answer: if query == QueryKind::Label { Answer::Label { accept: true } } else { Answer::Value(-gap) },
            regret: 0.0,
            cumulative_regret: 0.0,
            recommendation: PointRecord::Candidate(0),
            simple_regret: 0.0,
            utility_gap: bohf_experiments::UtilityGap::NOT_RECORDED,
            elapsed_s: 0.0,
            details: vec![("phase".into(), phase.into())],
        }
    }

    #[test]
    fn panel_metrics_follow_the_evaluations_and_skip_the_initial_ones_for_handover() {
        use QueryKind::{Evaluate as E, Label as L};
        // 2 initial evaluations and an initial label, then 6 iteration evaluations; the expert is
        // asked before iteration evaluations 1, 2 (twice) and after the last one.
        let mut steps = vec![step(E, 4.0, "initial-evaluation"), step(E, 3.0, "initial-evaluation")];
        steps.push(step(L, 0.0, "initial-label"));
        for (j, gap) in [2.0, 2.5, 1.0, 1.5, 0.5, 0.7].into_iter().enumerate() {
            let asks = match j {
                0 => 1,
                1 => 2,
                _ => 0,
            };
            steps.extend((0..asks).map(|_| step(L, 0.0, "iteration")));
            steps.push(step(E, gap, "iteration"));
        }
        steps.push(step(L, 0.0, "iteration"));
        let run = RunRecord { id: RunId { algorithm: 0, run: 0 }, label: "COBOL".into(), steps };
        let c = run_curves(&run, 0.0);
        assert_eq!(c.initial, 2);
        assert_eq!(c.simple, vec![4.0, 3.0, 2.0, 2.0, 1.0, 1.0, 0.5, 0.5]);
        assert_eq!(c.queries, vec![0.0, 0.0, 1.0, 3.0, 3.0, 3.0, 3.0, 3.0]);
        assert_eq!(c.queries_end, 4.0);
        assert_eq!(c.sum_simple.last(), Some(&14.0));
        // K = 6 iteration evaluations, m = 2: first third 3 queries (up to its 2nd), last third
        // 4 − Q at its 4th = 1.
        assert_eq!(thirds(&c), (3.0, 1.0));

        let spec: ExperimentSpec = toml::from_str(
            "name = \"p\"\nhorizon = 20\nruns = 1\n[problem]\nkind = \"rkhs\"\n\
             [[algorithms]]\nname = \"cobol\"\nlabel = \"COBOL\"\n[algorithms.params]\ng_thr = 0.08\n",
        )
        .unwrap();
        let p = CobolPanel::from_runs(&spec, "P", &[run], 0.0, false, 0.5);
        // 8 f-evaluations, fewer than 50: k stays 50 and the run is listed apart (5 labels, all
        // accepts, 13 queries), not in the table.
        assert_eq!(p.k, TABLE_EVALUATIONS);
        let r = &p.rows[0];
        assert_eq!((r.g_thr, r.eta, r.variant.as_str(), r.evaluations), (Some(0.08), Some(3.0), "cobol", [8, 8]));
        assert_eq!((r.runs, r.stopped), (0, 1));
        assert_eq!((r.at_k, r.at_end, r.queries_first_third, r.queries_last_third), (None, None, None, None));
        let stopped = StoppedRun { label: "COBOL".into(), run: 0, evaluations: 8, labels: 5, accepts: 5, queries: 13 };
        assert_eq!(p.stopped, vec![stopped]);
        let back = CobolPanel::from_json(&p.to_json().unwrap()).unwrap();
        assert_eq!(back, p);
    }

    /// A label step answered `accept`.
    fn label(accept: bool, phase: &str) -> StepRecord {
        StepRecord { answer: Answer::Label { accept }, ..step(QueryKind::Label, 0.0, phase) }
    }

    /// A run of algorithm `algorithm`: 3 initial evaluations at gap 9, `initial_labels` initial
    /// labels (all accepts), then `gaps.len()` iteration evaluations, each after `asks` labels
    /// answered by `accept(i)` (i counts the iteration labels).
    fn run_of(
        algorithm: usize,
        run: usize,
        label_: &str,
        initial_labels: usize,
        gaps: &[f64],
        asks: usize,
    ) -> RunRecord {
        use QueryKind::Evaluate as E;
        let mut steps: Vec<StepRecord> = (0..3).map(|_| step(E, 9.0, "initial-evaluation")).collect();
        steps.extend((0..initial_labels).map(|_| label(true, "initial-label")));
        let mut i = 0;
        for &gap in gaps {
            for _ in 0..asks {
                steps.push(label(i % 3 == 0, "iteration"));
                i += 1;
            }
            steps.push(step(E, gap, "iteration"));
        }
        RunRecord { id: RunId { algorithm, run }, label: label_.into(), steps }
    }

    fn capped_spec(second: &str, variant: &str, claims: &str) -> String {
        format!(
            "name = \"capped\"\nhorizon = 60\nruns = 3\n[budget]\ntotal = 50\nevaluate = 1\nlabel = 0\n\
             [reproduces]\npaper = \"cobol\"\nfigure = \"Experiment B\"\nclaims = [{claims}]\n\
             [problem]\nkind = \"rkhs\"\n[respondent]\nexpert = {{ accuracy = 1.0 }}\n\
             [[algorithms]]\nname = \"cobol\"\nlabel = \"COBOL\"\n\
             [[algorithms]]\nname = \"cobol\"\nlabel = \"{second}\"\n[algorithms.params]\nvariant = \"{variant}\"\n"
        )
    }

    #[test]
    fn a_run_stopped_by_the_query_cap_is_listed_apart_and_k_stays_50() {
        // COBOL: runs 0 and 2 reach 50 f-evaluations (47 iteration evaluations, no iteration label:
        // 60 queries); run 1 asks 10 labels before each iteration evaluation and meets the query cap
        // of 60 after 3 + 4 = 7 evaluations and 3 more (rejected) labels.
        let reached = |run: usize, best: f64| {
            let gaps: Vec<f64> = (0..47).map(|j| if j < 20 { 1.0 } else { best }).collect();
            run_of(0, run, "COBOL", 10, &gaps, 0)
        };
        let mut capped = run_of(0, 1, "COBOL", 10, &[5.0, 4.0, 3.0, 0.01], 10);
        capped.steps.extend((0..60 - capped.steps.len()).map(|_| label(false, "iteration")));
        assert_eq!(capped.steps.len(), 60);
        let vanilla = |run: usize| run_of(1, run, "vanilla LCB", 0, &[0.5; 47], 0);
        let runs = vec![reached(0, 0.2), capped, reached(2, 0.4), vanilla(0), vanilla(1), vanilla(2)];
        let claims = "\"COBOL best\", \"COBOL < vanilla LCB\", \"COBOL hands over\"";
        let text = capped_spec("vanilla LCB", "vanilla-lcb", claims);
        let spec: ExperimentSpec = toml::from_str(&text).unwrap();
        let p = CobolPanel::from_runs(&spec, "Capped", &runs, 0.0, false, 1.0);
        assert_eq!(p.k, 50);
        // The capped run, apart: 3 initial + 4 iteration f-evaluations; 10 initial labels (accepts)
        // and 60 − 7 − 10 = 43 iteration labels, of which i = 0, 3, …, 39 (14) accept.
        let steps = &runs[1].steps;
        assert_eq!(steps.iter().filter(|s| s.query == QueryKind::Evaluate).count(), 7);
        let accepts = 10 + (0..40).filter(|i| i % 3 == 0).count();
        assert_eq!(accepts, 24);
        assert_eq!(
            p.stopped,
            vec![StoppedRun { label: "COBOL".into(), run: 1, evaluations: 7, labels: 53, accepts, queries: 60 }]
        );
        let c = p.get("COBOL").unwrap();
        assert_eq!((c.runs, c.stopped, c.evaluations), (2, 1, [7, 50]));
        // SR at 50 over runs 0 and 2 only: (0.2 + 0.4) / 2, s.e. = 0.1 / √2 (ddof 0); the capped
        // run (SR 0.01 at its 7th evaluation) would pull the mean down if it counted.
        let sr = c.at_k.unwrap().simple;
        assert!((sr.mean - 0.3).abs() < 1e-12 && (sr.se - 0.1 / 2f64.sqrt()).abs() < 1e-12, "{sr:?}");
        assert_eq!(c.at_end.unwrap().simple, sr);
        // Σ SR at 50: 3 × 9 + 20 × 1 + 27 × best, averaged over best = 0.2, 0.4.
        assert!((c.at_k.unwrap().sum_simple.mean - (27.0 + 20.0 + 27.0 * 0.3)).abs() < 1e-9);
        // Handover over the runs that reached k: they ask no iteration label (the capped run did).
        assert_eq!((c.queries_first_third.unwrap().mean, c.queries_last_third.unwrap().mean), (0.0, 0.0));
        let v = p.get("vanilla LCB").unwrap();
        assert_eq!((v.runs, v.stopped, v.at_k.unwrap().simple.mean), (3, 0, 0.5));
        let judged = cobol_claims(&p, spec.reproduces.as_ref());
        assert_eq!(judged.len(), 3);
        assert!(judged.iter().all(|c| c.holds), "{judged:?}");
        assert_eq!(CobolPanel::from_json(&p.to_json().unwrap()).unwrap(), p);

        // The report: the rule, the rows with "n of N", the capped run apart.
        let experiment = Experiment::new(spec.clone(), &bohf_registry::builtin()).unwrap();
        let md = cobol_markdown(&experiment, &text, &text, &p, "bohf reproduce capped", "capped.toml", false);
        assert!(md.contains(&table_rule(50)), "{md}");
        assert!(md.contains("| algorithm | runs | **SR at k = 50** |"), "{md}");
        assert!(md.contains("| COBOL | 2 of 3 | **0.300 ± 0.071** |"), "{md}");
        assert!(md.contains("| vanilla LCB | 3 of 3 |"), "{md}");
        assert!(md.contains("Runs stopped before k = 50 f-evaluations (query cap: 60 queries per run"), "{md}");
        assert!(md.contains("| COBOL | 1 | 7 | 53 | 24 | 60 |"), "{md}");
        assert!(md.contains("The whole panel (6 runs)"), "{md}");

        // Expert sampling asks before every draw: all its runs meet the cap before k. Its row has no
        // numbers, and every claim involving it (its own, "COBOL best", the comparisons) is not
        // judged; COBOL's handover involves COBOL only and is judged.
        let sampling = |run: usize| {
            let mut r = run_of(1, run, "expert sampling", 0, &[1.0; 20], 3);
            r.steps.truncate(60);
            r
        };
        let runs = vec![reached(0, 0.2), reached(1, 0.4), reached(2, 0.3), sampling(0), sampling(1), sampling(2)];
        let claims = "\"COBOL best\", \"COBOL < expert sampling\", \"COBOL within 3× expert sampling\", \
                      \"COBOL hands over\", \"expert sampling hands over\", \"expert sampling ≤ COBOL\"";
        let text = capped_spec("expert sampling", "expert-sampling", claims);
        let spec: ExperimentSpec = toml::from_str(&text).unwrap();
        let p = CobolPanel::from_runs(&spec, "Capped", &runs, 0.0, false, 1.0);
        assert_eq!(p.k, 50);
        let e = p.get("expert sampling").unwrap();
        assert_eq!((e.runs, e.stopped, e.at_k, e.at_end), (0, 3, None, None));
        assert_eq!(p.stopped.len(), 3);
        assert!(p.stopped.iter().all(|s| s.evaluations == 3 + 14 && s.labels == 43 && s.queries == 60), "{p:?}");
        let judged = cobol_claims(&p, spec.reproduces.as_ref());
        assert_eq!(judged.len(), 6, "{judged:?}");
        for (i, c) in judged.iter().enumerate() {
            if c.statement == "COBOL hands over" {
                assert!(c.holds, "{c:?}");
            } else {
                assert!(!c.holds && c.evidence == "—", "{c:?}");
                assert_eq!(
                    c.verdict,
                    "not judged: no run of expert sampling reached k = 50 f-evaluations (stopped earlier by the \
                     query cap; listed apart)",
                    "claim {i}"
                );
            }
        }
        assert_eq!(judged[2].statement, "COBOL within 3× expert sampling");
        let experiment = Experiment::new(spec.clone(), &bohf_registry::builtin()).unwrap();
        let md = cobol_markdown(&experiment, &text, &text, &p, "bohf reproduce capped", "capped.toml", false);
        assert!(md.contains("| expert sampling | 0 of 3 | **no run reached k = 50** | — | — | — | — | — |"), "{md}");
        assert!(md.contains("| COBOL best | — | not judged: no run of expert sampling"), "{md}");
    }

    #[test]
    fn accuracy_ordering_compares_across_experiment_a_panels() {
        let mk = |cobol: MeanSe, vanilla: MeanSe| {
            let mut v = row("vanilla LCB", vanilla, vanilla, 0.0, 0.0);
            v.variant = "vanilla-lcb".into();
            panel(vec![row("COBOL", cobol, cobol, 1.0, 0.0), v])
        };
        let p2 = mk(ms(0.1, 0.01), ms(0.5, 0.05));
        let p1 = mk(ms(0.3, 0.01), ms(0.5, 0.05));
        let claims = accuracy_ordering(&[(p2.clone(), 2.0), (p1.clone(), 1.0)]);
        assert_eq!(claims.len(), 2);
        assert_eq!(claims[0].statement, "COBOL (a = 2) ≤ COBOL (a = 1)");
        assert!(claims.iter().all(|c| c.holds), "{claims:?}");
        // a = 2 worse than a = 1: the first fails.
        let claims = accuracy_ordering(&[(p1, 2.0), (p2, 1.0)]);
        assert!(!claims[0].holds && claims[1].holds, "{claims:?}");
        assert!(accuracy_ordering(&[]).is_empty());
        // No run of vanilla LCB at k in the a = 1 panel: its comparison is not judged.
        let p2 = mk(ms(0.1, 0.01), ms(0.5, 0.05));
        let mut p1 = mk(ms(0.3, 0.01), ms(0.5, 0.05));
        p1.rows[1].at_k = None;
        let claims = accuracy_ordering(&[(p2, 2.0), (p1, 1.0)]);
        assert!(claims[0].holds, "{claims:?}");
        assert!(!claims[1].holds && claims[1].verdict.starts_with("not judged: no run of vanilla LCB"), "{claims:?}");
    }

    #[test]
    fn the_index_has_a_cobol_section_with_g_thr_and_the_accuracy_ordering() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let presets = crate::discover(&dir).unwrap();
        let out = std::env::temp_dir().join(format!("bohf-cobol-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        for (name, cobol) in [("cobol-expa-ackley4-a2", 0.1), ("cobol-expa-ackley4-a1", 0.3)] {
            let mut v = row("vanilla LCB", ms(0.5, 0.05), ms(0.5, 0.05), 0.0, 0.0);
            v.variant = "vanilla-lcb".into();
            v.g_thr = None;
            let mut g8 = row("COBOL g_thr = 0.08", ms(cobol, 0.01), ms(cobol, 0.01), 10.0, 1.0);
            g8.g_thr = Some(0.08);
            let mut p = panel(vec![row("COBOL", ms(cobol, 0.01), ms(cobol, 0.01), 10.0, 5.0), v, g8]);
            p.name = name.into();
            std::fs::write(out.join(format!("{name}.cobol.json")), p.to_json().unwrap()).unwrap();
        }
        let index = crate::build_index(&out, &presets).unwrap();
        let _ = std::fs::remove_dir_all(&out);
        assert!(index.contains("## COBOL paper (Xu, Adachi, Jones & Osborne 2024)"), "{index}");
        assert!(index.contains("| COBOL 0.1; COBOL g_thr = 0.08 0.08 |"), "{index}");
        // COBOL asks 5 of 10 in the last third: no handover; the g_thr = 0.08 entry 1 of 10: handover.
        assert!(index.contains("| COBOL hands over |"), "{index}");
        assert!(index.contains("COBOL (a = 2) ≤ COBOL (a = 1)"), "{index}");
        assert!(index.contains("handover (expert queries plateau): partly reproduced** — holds in 2 of 4"), "{index}");
        assert!(index.contains("2 of the paper's 18 COBOL presets have been run"), "{index}");
        assert!(index.contains("Not run yet:") && index.contains("cobol-expc-ackley4-eta"), "{index}");
    }

    #[test]
    fn every_cobol_preset_stops_at_50_evaluations_with_free_labels() {
        // The authors' driver counts iterations in f-evaluations (n_iterations = 50, notes §5.1, §5.9);
        // without the budget a preset would run to its horizon cap of 2000 queries.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !(name.starts_with("cobol-") && name.ends_with(".toml")) {
                continue;
            }
            let spec: ExperimentSpec = toml::from_str(&Preset::read(&path).unwrap().text).unwrap();
            let b = spec.budget.as_ref().unwrap_or_else(|| panic!("{name} has no [budget]"));
            assert_eq!((b.total, b.evaluate, b.label), (50.0, 1.0, 0.0), "{name}");
            n += 1;
        }
        assert_eq!(n, 19);
    }

    #[test]
    fn the_pmv_preset_f_range_is_ppd_over_the_box() {
        // The preset's f_range = [5, max PPD on the box]: PPD ≥ 5 everywhere (5 at PMV = 0), and its
        // maximum over an 11⁴ grid of the box (which contains the corners) is the stated f_max.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let preset = Preset::read(&dir.join("cobol-pmv-thermal4.toml")).unwrap();
        let spec: ExperimentSpec = toml::from_str(&preset.text).unwrap();
        let [lo, hi] = spec.respondent.expert.unwrap().f_range.unwrap();
        let f = bohf_problems::thermal::ThermalComfort::popbo_4d();
        let dom = bohf_problems::TestFunction::domain(&f);
        let n = 11usize;
        let mut max = f64::NEG_INFINITY;
        let mut min = f64::INFINITY;
        for i in 0..n.pow(4) {
            let x: Vec<f64> = (0..4)
                .map(|j| {
                    let t = ((i / n.pow(j as u32)) % n) as f64 / (n - 1) as f64;
                    dom.lower()[j] + t * (dom.upper()[j] - dom.lower()[j])
                })
                .collect();
            let ppd = f.pmv_at(&x).unwrap().ppd;
            max = max.max(ppd);
            min = min.min(ppd);
        }
        assert_eq!(lo, 5.0);
        assert!(min >= 5.0 - 1e-12, "{min}");
        assert!((max - hi).abs() < 1e-9, "grid max {max} vs f_range {hi}");
        assert_eq!(preset.paper(), Paper::Cobol);
    }
}
