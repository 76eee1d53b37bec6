//! COBOL's experiments (Xu, Adachi, Jones & Osborne 2024; notes 004 §5): a preset with
//! `reproduces.paper = "cobol"` is judged on the metrics the paper plots (notes §5.9), computed
//! from the runs' records with [`bohf_experiments::feedback`]:
//!
//! * the simple regret SR_k and the code's "cumulative regret" Σ_{j ≤ k} SR_j after the k-th
//!   f-evaluation, and the cumulative expert queries Q^g (initial labels excluded) at the k-th
//!   f-evaluation, per algorithm, mean ± s.e. over runs;
//! * a table at k = [`TABLE_EVALUATIONS`] f-evaluations (the driver's `n_iterations`, notes §5.1),
//!   or at the fewest f-evaluations any run reached if that is fewer (said in the report), and at
//!   the end of each run (runs may end after different numbers of f-evaluations: a query budget,
//!   or a horizon that counts labels and evaluations together);
//! * the claims: those of the generic rule ([`crate::compare`]: "A < B", "A ≤ B", "A best", …) on
//!   SR at k, and COBOL's own:
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
    /// Runs.
    pub runs: usize,
    /// The fewest and the most f-evaluations of a run.
    pub evaluations: [usize; 2],
    /// At k f-evaluations ([`CobolPanel::k`]); `None` if k = 0.
    pub at_k: Option<CobolAt>,
    /// At the end of each run.
    pub at_end: Option<CobolAt>,
    /// The fewest f-evaluations of a run's iterations (after the initial ones).
    pub iteration_evaluations: usize,
    /// Expert queries in the first third of each run's iteration f-evaluations.
    pub queries_first_third: MeanSe,
    /// Expert queries in the last third.
    pub queries_last_third: MeanSe,
    /// Wall time per run (the algorithm's calls), seconds.
    pub wall_seconds: MeanSe,
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
    /// The f-evaluations of the table: [`TABLE_EVALUATIONS`] or the fewest any run reached.
    pub k: usize,
    /// One row per algorithm, in spec order.
    pub rows: Vec<CobolRow>,
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
        let k = curves.iter().map(|(_, c)| c.simple.len()).min().unwrap_or(0).min(TABLE_EVALUATIONS);
        let rows = spec
            .algorithms
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mine: Vec<&RunCurves> = curves.iter().filter(|(j, _)| *j == i).map(|(_, c)| c).collect();
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
                let at_k = if k == 0 { None } else { at(&|_| Some(k - 1)) };
                let at_end = at(&|c: &RunCurves| c.simple.len().checked_sub(1)).map(|mut e| {
                    // Q^g at the end of the run, not at its last evaluation.
                    e.queries = mean_of(&mine, |c| c.queries_end);
                    e
                });
                let counts: Vec<usize> = mine.iter().map(|c| c.simple.len()).collect();
                CobolRow {
                    label: a.label().to_string(),
                    variant: variant.map_or_else(|| a.name.clone(), |v| variant_name(v).to_string()),
                    g_thr: config.as_ref().filter(|_| asks_by_threshold).map(|c| c.g_thr),
                    eta: config.as_ref().filter(|c| c.variant == Variant::Cobol).map(|c| c.eta),
                    runs: mine.len(),
                    evaluations: [counts.iter().copied().min().unwrap_or(0), counts.iter().copied().max().unwrap_or(0)],
                    at_k,
                    at_end,
                    iteration_evaluations: mine.iter().map(|c| iteration_evaluations(c)).min().unwrap_or(0),
                    queries_first_third: mean_of(&mine, |c| thirds(c).0),
                    queries_last_third: mean_of(&mine, |c| thirds(c).1),
                    wall_seconds: mean_se(&wall),
                }
            })
            .collect();
        Self { name: spec.name.clone(), title: title.to_string(), horizon: spec.horizon, quick, elapsed_s, k, rows }
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
    let (first, last) = (r.queries_first_third, r.queries_last_third);
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
    Some(Claim { panel: p.name.clone(), statement: format!("{a} hands over"), evidence, holds, verdict })
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
        return Some(Claim {
            panel: p.name.clone(),
            statement,
            evidence: "—".into(),
            holds: false,
            verdict: "not judged: no f-evaluation to compare".into(),
        });
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

/// The claims of `reproduces` judged on a COBOL panel, in the spec's order: the generic ones on SR
/// at k f-evaluations, handover and no harm as in the module documentation.
pub fn cobol_claims(p: &CobolPanel, reproduces: Option<&Reproduces>) -> Vec<Claim> {
    let Some(rep) = reproduces else { return Vec::new() };
    let labels: Vec<&str> = p.rows.iter().map(|r| r.label.as_str()).collect();
    let v = |l: &str| p.get(l).and_then(|r| r.at_k).map(|a| a.simple);
    let v: Values = &v;
    rep.rules()
        .iter()
        .filter_map(|rule| match rule {
            ClaimRule::HandsOver(a) => handover_claim(p, a),
            ClaimRule::Within(a, f, b) => no_harm_claim(p, a, *f, b),
            other => judge(&p.name, &labels, v, other),
        })
        .collect()
}

/// The expert accuracy a of a spec's synthetic expert, if it has one.
fn accuracy(spec: &ExperimentSpec) -> Option<f64> {
    spec.respondent.expert.map(|e| e.accuracy)
}

/// Experiment A's accuracy ordering across panels: for each COBOL label `L` present in the a = 2
/// and a = 1 panels (those of `panels` whose figure starts with "Experiment A"), "L (a = 2) ≤ L
/// (a = 1)" and "L (a = 1) ≤ vanilla LCB (a = 1)" on SR at k, by the rule of [`compare`].
pub fn accuracy_ordering(panels: &[(CobolPanel, f64)]) -> Vec<Claim> {
    let find = |a: f64| panels.iter().find(|(_, acc)| *acc == a).map(|(p, _)| p);
    let (Some(p2), Some(p1)) = (find(2.0), find(1.0)) else { return Vec::new() };
    let sr = |p: &CobolPanel, l: &str| p.get(l).and_then(|r| r.at_k).map(|a| a.simple);
    let mut out = Vec::new();
    for row in p1.rows.iter().filter(|r| r.variant == "cobol") {
        let l = row.label.as_str();
        let mut pair = |name: String, a: Option<MeanSe>, b: Option<MeanSe>, la: String, lb: String| {
            let (Some(a), Some(b)) = (a, b) else { return };
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
        pair(p2.name.clone(), sr(p2, l), sr(p1, l), format!("{l} (a = 2)"), format!("{l} (a = 1)"));
        pair(p1.name.clone(), sr(p1, l), sr(p1, "vanilla LCB"), format!("{l} (a = 1)"), "vanilla LCB".into());
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

    let k_note = if p.k < TABLE_EVALUATIONS {
        format!(" (fewer than the paper's {TABLE_EVALUATIONS}: the fewest f-evaluations any run reached)")
    } else {
        String::new()
    };
    let _ = writeln!(s, "## Results\n");
    let _ = writeln!(
        s,
        "Mean ± s.e. over runs. SR = simple regret min_j f(x_j) − f* over the f-evaluations so far; Σ SR its running \
         sum (the code's plotted \"cumulative regret\"); Q^g = expert queries, initial labels excluded (notes §5.9). \
         \"At the end\": each run's last f-evaluation (Q^g: its last step).\n"
    );
    let _ = writeln!(
        s,
        "| algorithm | runs | **SR at k = {k}**{k_note} | Σ SR at k | Q^g at k | SR at the end | Σ SR at the end | Q^g at the end | wall time per run (s) |\n|---|---|---|---|---|---|---|---|---|",
        k = p.k
    );
    for r in &p.rows {
        let _ = writeln!(
            s,
            "| {} | {} | **{} | {} | {:.3} ± {:.3} |",
            r.label,
            r.runs,
            at_cells(r.at_k).replacen(" | ", "** | ", 1),
            at_cells(r.at_end),
            r.wall_seconds.mean,
            r.wall_seconds.se
        );
    }
    let _ = writeln!(
        s,
        "\nWall time per run: the algorithm's own calls. The whole panel ({} runs) took {:.1} s.\n",
        p.rows.iter().map(|r| r.runs).sum::<usize>(),
        p.elapsed_s
    );
    let claims = cobol_claims(p, spec.reproduces.as_ref());
    if !claims.is_empty() {
        let _ = writeln!(s, "## The paper's claims on this panel\n");
        let _ = writeln!(s, "{}", rules_text());
        let _ = writeln!(s, "{}", claims_table(&claims, false));
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
        "**Rules.** \"A < B\", \"A ≤ B\", \"A best\" compare SR at k f-evaluations: a difference counts when it exceeds \
         {SE_MULTIPLE} s.e. of the difference (\"A ≤ B\": A not significantly above B; \"A best\": no algorithm \
         significantly below A, i.e. best or tied with the best). **Handover** (\"A hands over\"): the f-evaluations \
         of each run's iterations (after the 3 initial ones) are split into thirds; the claim holds when the mean expert \
         queries of the last third are at most {HANDOVER_RATIO} × those of the first third (a run with fewer than 3 such \
         evaluations is not judged). **No harm** (\"A within F× B\"): A's mean SR is not above F × B's \
         by more than {SE_MULTIPLE} s.e. (√(s.e._A² + F²·s.e._B²)) at k and at the end, and at the end A is not \
         significantly above B.\n"
    )
}

/// The COBOL section of the index: each panel's claims, Experiment A's accuracy ordering, and a
/// verdict per kind of claim. `panels`: the COBOL presets with their finished panels; `expected`:
/// the paper's COBOL presets ([`is_paper_experiment`]), run or not.
pub(crate) fn index_section(s: &mut String, panels: &[(&Preset, CobolPanel)], expected: usize) {
    let _ = writeln!(s, "## {}\n", Paper::Cobol.citation());
    let _ = writeln!(s, "{}", rules_text());
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
        .filter(|(pr, _)| pr.reproduces.as_ref().is_some_and(|r| r.figure.starts_with("Experiment A")))
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
        ("benefit (COBOL below vanilla LCB)", &|c: &Claim| c.statement.contains(" < ")),
        ("COBOL best of the four", &|c: &Claim| c.statement.ends_with(" best")),
        ("accuracy ordering", &|c: &Claim| c.statement.contains(" ≤ ")),
    ] {
        let these: Vec<&Claim> = all.iter().filter(|c| test(c)).collect();
        if these.is_empty() {
            continue;
        }
        let held = these.iter().filter(|c| c.holds).count();
        let _ = writeln!(
            s,
            "- **{kind}: {}** — holds in {held} of {} checks.",
            if held == these.len() {
                "reproduced"
            } else if held == 0 {
                "not reproduced"
            } else {
                "partly reproduced"
            },
            these.len()
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
            evaluations: [50, 50],
            at_k: at(sr),
            at_end: at(end),
            iteration_evaluations: 47,
            queries_first_third: ms(first, 0.5),
            queries_last_third: ms(last, 0.5),
            wall_seconds: ms(1.0, 0.0),
        }
    }

    fn panel(rows: Vec<CobolRow>) -> CobolPanel {
        CobolPanel { name: "p".into(), title: "P".into(), horizon: 300, quick: false, elapsed_s: 1.0, k: 50, rows }
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
        // K = 6 iteration evaluations, m = 2: first third 3 queries (up to its 2nd), last third
        // 4 − Q at its 4th = 1.
        assert_eq!(thirds(&c), (3.0, 1.0));

        let spec: ExperimentSpec = toml::from_str(
            "name = \"p\"\nhorizon = 20\nruns = 1\n[problem]\nkind = \"rkhs\"\n\
             [[algorithms]]\nname = \"cobol\"\nlabel = \"COBOL\"\n[algorithms.params]\ng_thr = 0.08\n",
        )
        .unwrap();
        let p = CobolPanel::from_runs(&spec, "P", &[run], 0.0, false, 0.5);
        assert_eq!(p.k, 8); // fewer than 50 evaluations: the fewest any run reached
        let r = &p.rows[0];
        assert_eq!((r.g_thr, r.eta, r.variant.as_str(), r.evaluations), (Some(0.08), Some(3.0), "cobol", [8, 8]));
        let (k, end) = (r.at_k.unwrap(), r.at_end.unwrap());
        assert_eq!((k.simple.mean, k.sum_simple.mean, k.queries.mean), (0.5, 14.0, 3.0));
        assert_eq!(end.queries.mean, 4.0);
        assert_eq!((r.queries_first_third.mean, r.queries_last_third.mean), (3.0, 1.0));
        let back = CobolPanel::from_json(&p.to_json().unwrap()).unwrap();
        assert_eq!(back, p);
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
        assert!(index.contains("2 of the paper's 11 COBOL presets have been run"), "{index}");
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
        assert_eq!(n, 12);
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
