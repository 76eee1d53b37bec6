//! COMP-GP-UCB's experiments (Xu, Joshi, Singh & Dubrawski 2020; notes 002 §5): a preset with
//! `reproduces.paper = "compgpucb"` is judged on the paper's metric, computed from the runs'
//! records with [`bohf_experiments::feedback::query_regrets`] against the spent budget ([`bohf_experiments::budget`]):
//!
//! * **S(Λ)** (eq. (1), notes §1.4): the best f* − f(x) over the points queried with budget at most
//!   Λ, in f units, a duel counting both of its points (the chosen one and its random opponent),
//!   an evaluation its point; **R_c** (the best over the duels' first points) and **R_l** (over the
//!   evaluations), ∞ without such a query (shown "—");
//! * a run's value at Λ is its value after the last step whose spent budget is at most
//!   Λ·(1 + 10⁻¹²) (the slack of [`bohf_experiments::budget::BudgetSpec::is_spent`]); the table gives mean ±
//!   s.e. over runs at Λ = [`BUDGET_FRACTIONS`] × the spec's total (10, 25, 50, 75, 100 at
//!   Λ = 100), a row's value at a Λ only when every run has one;
//! * the claims ("A < B", "A best", "A ≈ B", …) by the rule of [`crate::compare`] on **S at the
//!   spec's total budget** (the paper's Λ = 100), not on the preference-gap simple regret of the
//!   recommendation the generic panels use;
//! * the cost-ratio view of Fig. 1(b) and 3(b) is in the index ([`index_section`]): S at the total
//!   budget against λ_l/λ_c across the presets of one figure.

use crate::claims::{Claim, SE_MULTIPLE, Values, above_claim, claims_table, judge, verdict_lines};
use crate::entry::ReportJob;
use crate::presets::Preset;
use crate::report::{Page, pm};
use crate::source::{ClaimRule, Paper, Reproduces};
use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::feedback::query_regrets;
use bohf_experiments::metrics::RegretModel;
use bohf_experiments::plot::{Panel, Series, plot_panel};
use bohf_experiments::results::{QueryKind, RunRecord};
use bohf_experiments::spec::ExperimentSpec;
use bohf_experiments::summary::{MeanSe, mean_se};
use bohf_experiments::write_atomic;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The budgets of the table, as fractions of the spec's total Λ.
pub const BUDGET_FRACTIONS: [f64; 5] = [0.1, 0.25, 0.5, 0.75, 1.0];

/// The metrics of one algorithm at one budget Λ (mean ± s.e. over runs; `None`: some run has no
/// such query within Λ).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompAt {
    /// Λ.
    pub budget: f64,
    /// S(Λ).
    pub simple: Option<MeanSe>,
    /// R_c(Λ).
    pub comparisons: Option<MeanSe>,
    /// R_l(Λ).
    pub labels: Option<MeanSe>,
    /// The error rate 1 − max f over the points queried within Λ (a duel's both points counting),
    /// for a problem whose f is an accuracy (`kind = "svm"`); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<MeanSe>,
}

/// One algorithm of a COMP-GP-UCB panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompRow {
    /// Its label.
    pub label: String,
    /// Runs.
    pub runs: usize,
    /// Duels per run.
    pub duels: MeanSe,
    /// Evaluations per run.
    pub evaluations: MeanSe,
    /// The metrics at each budget of [`BUDGET_FRACTIONS`] × total.
    pub at: Vec<CompAt>,
    /// Wall time per run (the algorithm's calls), seconds.
    pub wall_seconds: MeanSe,
}

impl CompRow {
    /// The metrics at the total budget (the last entry).
    pub fn at_total(&self) -> Option<&CompAt> {
        self.at.last()
    }
}

/// A finished COMP-GP-UCB panel, as stored in `<name>.compgpucb.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompPanel {
    /// The spec name.
    pub name: String,
    /// The title.
    pub title: String,
    /// The horizon (the cap on queries per run).
    pub horizon: usize,
    /// Whether this was a `--quick` smoke test.
    pub quick: bool,
    /// Wall time of the whole panel, seconds.
    pub elapsed_s: f64,
    /// The total budget Λ.
    pub total: f64,
    /// λ_c, the cost of a duel.
    pub duel_cost: f64,
    /// λ_l, the cost of an evaluation.
    pub evaluate_cost: f64,
    /// One row per algorithm, in spec order.
    pub rows: Vec<CompRow>,
}

/// A run's S, R_c and R_l after each step, and its spent budget after each step.
struct RunSeries {
    spent: Vec<f64>,
    simple: Vec<Option<f64>>,
    comparisons: Vec<Option<f64>>,
    labels: Vec<Option<f64>>,
}

impl RunSeries {
    /// The value of `series` after the last step whose spent budget is at most b (with the
    /// budget's relative slack); `None` before the first step or without such a query.
    fn at(&self, series: &[Option<f64>], b: f64) -> Option<f64> {
        let limit = b * (1.0 + bohf_experiments::budget::RELATIVE_SLACK);
        let n = self.spent.partition_point(|&s| s <= limit);
        n.checked_sub(1).and_then(|i| series.get(i).copied().flatten())
    }
}

fn run_series(run: &RunRecord, spec: &ExperimentSpec, regret: &RegretModel) -> Result<RunSeries> {
    let q = query_regrets(run, regret).map_err(|e| ExperimentError::Results {
        path: None,
        reason: format!("run {} of `{}`: {e}", run.id.run, run.label),
    })?;
    Ok(RunSeries {
        spent: bohf_experiments::budget::spent_budget(run, spec).unwrap_or_default(),
        simple: q.simple,
        comparisons: q.comparisons,
        labels: q.evaluations,
    })
}

/// The error rate 1 − max f over the queried points of a run whose S is `simple`: the regret is
/// on the respondent's scale s (u = s·f, S = s·f* − max u), so max f = (s·f* − S)/s.
fn error_rate(regret: &RegretModel, scale: f64, simple: f64) -> f64 {
    1.0 - (regret.best_value() - simple) / scale
}

/// Mean ± s.e. of `values` when every run has one.
fn all_or_none(values: Vec<Option<f64>>) -> Option<MeanSe> {
    let v: Option<Vec<f64>> = values.into_iter().collect();
    v.filter(|v| !v.is_empty()).map(|v| mean_se(&v))
}

impl CompPanel {
    /// The panel of finished runs: `runs` of every algorithm of `spec` (which has a `[budget]`),
    /// regrets by `regret` (f units). Errors if the spec has no `[budget]` or a run's points cannot
    /// be evaluated.
    pub fn from_runs(
        spec: &ExperimentSpec,
        title: &str,
        runs: &[RunRecord],
        regret: &RegretModel,
        quick: bool,
        elapsed_s: f64,
    ) -> Result<Self> {
        let budget = spec.budget.as_ref().ok_or_else(|| {
            ExperimentError::spec("budget", "a COMP-GP-UCB panel needs a [budget] (S(Λ) is against spent budget)")
        })?;
        // f is an accuracy on the SVM task: the error rate is shown beside S.
        let accuracy = matches!(spec.problem, bohf_experiments::spec::ProblemSpec::Svm(_)).then_some(());
        let scale = spec.respondent.scale;
        let mut rows = Vec::new();
        for (i, a) in spec.algorithms.iter().enumerate() {
            let mine: Vec<&RunRecord> = runs.iter().filter(|r| r.id.algorithm == i).collect();
            let series: Vec<RunSeries> = mine.iter().map(|r| run_series(r, spec, regret)).collect::<Result<_>>()?;
            let count = |k: QueryKind| {
                mean_se(
                    &mine.iter().map(|r| r.steps.iter().filter(|s| s.query == k).count() as f64).collect::<Vec<_>>(),
                )
            };
            let at = BUDGET_FRACTIONS
                .iter()
                .map(|f| {
                    let b = f * budget.total;
                    let pick = |which: fn(&RunSeries) -> &Vec<Option<f64>>| {
                        all_or_none(series.iter().map(|s| s.at(which(s), b)).collect())
                    };
                    let simple = pick(|s| &s.simple);
                    CompAt {
                        budget: b,
                        simple,
                        comparisons: pick(|s| &s.comparisons),
                        labels: pick(|s| &s.labels),
                        error: accuracy.and_then(|_| {
                            all_or_none(
                                series
                                    .iter()
                                    .map(|s| s.at(&s.simple, b).map(|v| error_rate(regret, scale, v)))
                                    .collect(),
                            )
                        }),
                    }
                })
                .collect();
            rows.push(CompRow {
                label: a.label().to_string(),
                runs: mine.len(),
                duels: count(QueryKind::Duel),
                evaluations: count(QueryKind::Evaluate),
                at,
                wall_seconds: mean_se(&mine.iter().map(|r| r.wall_seconds()).collect::<Vec<_>>()),
            });
        }
        Ok(Self {
            name: spec.name.clone(),
            title: title.to_string(),
            horizon: spec.horizon,
            quick,
            elapsed_s,
            total: budget.total,
            duel_cost: budget.duel,
            evaluate_cost: budget.evaluate,
            rows,
        })
    }

    /// The row labelled `label`.
    pub fn get(&self, label: &str) -> Option<&CompRow> {
        self.rows.iter().find(|r| r.label == label)
    }

    /// The cost ratio λ_l/λ_c.
    pub fn ratio(&self) -> f64 {
        self.evaluate_cost / self.duel_cost
    }

    /// S at the total budget of the row labelled `label`.
    pub fn simple_at_total(&self, label: &str) -> Option<MeanSe> {
        self.get(label)?.at_total()?.simple
    }

    /// The JSON text of `<name>.compgpucb.json`.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| ExperimentError::Results { path: None, reason: e.to_string() })
    }

    /// Parses [`CompPanel::to_json`].
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| ExperimentError::Results { path: None, reason: e.to_string() })
    }
}

/// The claims of `reproduces` judged on a panel, in the spec's order, on S at the total budget
/// (see the module documentation).
pub fn comp_claims(p: &CompPanel, reproduces: Option<&Reproduces>) -> Vec<Claim> {
    let Some(rep) = reproduces else { return Vec::new() };
    let labels: Vec<&str> = p.rows.iter().map(|r| r.label.as_str()).collect();
    let v = |l: &str| p.simple_at_total(l);
    let v: Values = &v;
    rep.rules()
        .iter()
        .zip(&rep.claims)
        .filter_map(|(rule, text)| match rule {
            ClaimRule::ErrorAbove(a, t) => {
                let m = p.get(a)?.at_total()?.error?;
                Some(above_claim(&p.name, text, a, "error rate", m, *t))
            }
            _ => judge(&p.name, &labels, v, rule),
        })
        .collect()
}

/// The rule of the claims, in words.
pub fn rules_text(total: Option<f64>) -> String {
    let at = total.map_or("the total budget Λ".to_string(), |t| format!("Λ = {t}"));
    format!(
        "**Metric and rule.** S(Λ) = min over the queried points of f* − f(x) in f units, a duel counting both of its \
         points (the paper's eq. (1), weak regret); R_c over the duels' first points, R_l over the evaluations. The \
         claims compare S at {at}: a difference counts when it exceeds {SE_MULTIPLE} s.e. of the difference \
         (\"A best\": no algorithm significantly below A; \"A ≈ B\": within {SE_MULTIPLE} s.e.).\n"
    )
}

fn cell(m: Option<MeanSe>) -> String {
    m.map_or("—".into(), pm)
}

/// Writes a finished COMP-GP-UCB panel's report into `out`: `<name>.md`, `<name>.compgpucb.json`
/// and the plots `<name>-{simple,comparisons,labels}.{png,svg}` of S, R_c and R_l against the
/// spent budget (from `summary.json`'s curves). Returns the panel.
pub fn write_compgpucb_report(job: &ReportJob) -> Result<CompPanel> {
    let page = job.start()?;
    let (experiment, panel, results) = (job.experiment, job.panel, job.results);
    let spec = experiment.spec();
    let title = experiment.title();
    let p =
        CompPanel::from_runs(spec, &title, results.runs(), experiment.problem().regret(), panel.quick, job.elapsed_s)?;
    let summary = results.summary()?;
    let plot_title = panel.plot_title(&title);
    let mut plots = Vec::new();
    for (key, axis) in [
        ("simple", "S(Λ): best f* − f(x) over the queried points"),
        ("comparisons", "comparison regret: best f* − f(x) over the duels"),
        ("labels", "label regret: best f* − f(x) over the evaluations"),
    ] {
        let series: Vec<Series> = summary
            .algorithms
            .iter()
            .filter_map(|a| {
                let f = a.feedback.as_ref()?;
                let b = match key {
                    "simple" => f.query_simple_by_budget.as_ref(),
                    "comparisons" => f.comparison_regret_by_budget.as_ref(),
                    _ => f.label_regret_by_budget.as_ref(),
                }?;
                Some(Series {
                    label: format!("{} ({} runs)", a.label, a.runs),
                    x: b.spent.clone(),
                    mean: b.curve.mean.clone(),
                    se: b.curve.se.clone(),
                })
            })
            .collect();
        if series.is_empty() {
            continue;
        }
        let plot = Panel { title: plot_title.clone(), x_label: "spent budget Λ".into(), y_label: axis.into(), series };
        for ext in ["png", "svg"] {
            plot_panel(&plot, job.file(&format!("-{key}.{ext}")))?;
        }
        plots.push(key);
    }
    write_atomic(job.file(".compgpucb.json"), p.to_json()?.as_bytes())?;
    write_atomic(job.file(".md"), comp_markdown(&page, &p, &plots).as_bytes())?;
    Ok(p)
}

/// The report of one COMP-GP-UCB panel.
fn comp_markdown(page: &Page, p: &CompPanel, plots: &[&str]) -> String {
    let spec = page.experiment.spec();
    let mut s = page.header(&p.title, p.quick, &format!("{}.toml", p.name));
    let _ = writeln!(
        s,
        "- Budget Λ = {}, λ_c = {} per duel, λ_l = {} per evaluation (cost ratio λ_l/λ_c = {}); a run stops once its \
         budget is spent (horizon cap {}{}).",
        p.total,
        p.duel_cost,
        p.evaluate_cost,
        p.ratio(),
        spec.horizon,
        if p.quick { ", capped by --quick" } else { "" }
    );
    let _ = writeln!(s, "- {} independent runs per algorithm, base seed {}.", spec.runs, spec.seed);
    let _ = writeln!(s, "- Standard errors: std (ddof = 0) / √runs.\n");
    page.quote_spec(&mut s, "From the spec file (sources and the choices made where the paper is ambiguous):");
    let _ = writeln!(s, "## Results\n");
    let _ = writeln!(s, "{}", rules_text(Some(p.total)));
    let budgets: Vec<f64> = p.rows.first().map(|r| r.at.iter().map(|a| a.budget).collect()).unwrap_or_default();
    let head: Vec<String> =
        budgets.iter().map(|b| if *b == p.total { format!("**S({b})**") } else { format!("S({b})") }).collect();
    let errors = p.rows.iter().any(|r| r.at_total().is_some_and(|a| a.error.is_some()));
    if errors {
        let _ = writeln!(
            s,
            "f is a validation accuracy: the error rate 1 − max f over the points queried within Λ (the paper's \
             metric, a duel's both points counting) equals 1 − f* + S(Λ), with f* = {} the best accuracy on the grid.\n",
            page.experiment.problem().regret().best_value() / spec.respondent.scale
        );
    }
    let _ = writeln!(
        s,
        "| algorithm | runs | duels per run | evaluations per run | {} | {}R_c({t}) | R_l({t}) | wall time per run (s) |",
        head.join(" | "),
        if errors { format!("**error rate ({})** | ", p.total) } else { String::new() },
        t = p.total
    );
    let _ = writeln!(s, "|{}", "---|".repeat(7 + budgets.len() + usize::from(errors)));
    for r in &p.rows {
        let at: Vec<String> =
            r.at.iter()
                .map(|a| if a.budget == p.total { format!("**{}**", cell(a.simple)) } else { cell(a.simple) })
                .collect();
        let total = r.at_total();
        let error = if errors { format!("**{}** | ", cell(total.and_then(|a| a.error))) } else { String::new() };
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} | {:.1} | {} | {error}{} | {} | {:.3} ± {:.3} |",
            r.label,
            r.runs,
            r.duels.mean,
            r.evaluations.mean,
            at.join(" | "),
            cell(total.and_then(|a| a.comparisons)),
            cell(total.and_then(|a| a.labels)),
            r.wall_seconds.mean,
            r.wall_seconds.se
        );
    }
    let _ = writeln!(
        s,
        "\n\"—\": some run has no such query within that budget (R_c of an algorithm that never duels is ∞). \
         The whole panel ({} runs) took {:.1} s{}.\n",
        p.rows.iter().map(|r| r.runs).sum::<usize>(),
        p.elapsed_s,
        page.untimed_note()
    );
    if let Some(section) = crate::pages::comp_section(p, spec.reproduces.as_ref()) {
        s.push_str(&section);
    }
    if !plots.is_empty() {
        let _ = writeln!(s, "## Plots\n");
        let svgs: Vec<String> = plots.iter().map(|k| format!("[SVG]({}-{k}.svg)", p.name)).collect();
        let _ = writeln!(
            s,
            "Against the spent budget; at each spent budget, mean ± 1 s.e. over the runs that have a value there \
             ({}).\n",
            svgs.join(", ")
        );
        for k in plots {
            let _ = writeln!(s, "![{k}]({}-{k}.png)\n", p.name);
        }
    }
    s
}

/// The cost-ratio view of one figure: S at the total budget of each algorithm (columns, in first-
/// seen order) against λ_l/λ_c (rows, increasing), over the `panels` whose figure is `figure`.
pub fn ratio_table(figure: &str, panels: &[(&Preset, CompPanel)]) -> Option<String> {
    let mut these: Vec<&CompPanel> = panels
        .iter()
        .filter(|(pr, _)| pr.reproduces.as_ref().is_some_and(|r| r.figure == figure))
        .map(|(_, p)| p)
        .collect();
    if these.len() < 2 {
        return None;
    }
    these.sort_by(|a, b| a.ratio().total_cmp(&b.ratio()));
    let mut labels: Vec<&str> = Vec::new();
    for p in &these {
        for r in &p.rows {
            if !labels.contains(&r.label.as_str()) {
                labels.push(&r.label);
            }
        }
    }
    let mut s = format!("| λ_l/λ_c | panel | {} |\n|---|---|{}\n", labels.join(" | "), "---|".repeat(labels.len()));
    for p in &these {
        let cells: Vec<String> = labels.iter().map(|l| cell(p.simple_at_total(l))).collect();
        let _ = writeln!(
            s,
            "| {} | [{n}]({n}.md){} | {} |",
            p.ratio(),
            if p.quick { " (quick)" } else { "" },
            cells.join(" | "),
            n = p.name
        );
    }
    Some(s)
}

/// The COMP-GP-UCB section of the index: each panel's claims on S at the total budget, the cost-
/// ratio tables of the figures with several ratio panels, and a verdict per claim. `expected`: the
/// paper's presets, run or not.
pub(crate) fn index_section(s: &mut String, panels: &[(&Preset, CompPanel)], expected: usize) {
    let _ = writeln!(s, "## {}\n", Paper::CompGpUcb.citation());
    let _ = writeln!(s, "{}", rules_text(None));
    let mut all: Vec<Claim> = Vec::new();
    for (preset, p) in panels {
        all.extend(comp_claims(p, preset.reproduces.as_ref()));
    }
    s.push_str(&claims_table(&all, true));
    s.push('\n');
    let mut figures: Vec<&str> = Vec::new();
    for (pr, _) in panels {
        if let Some(r) = &pr.reproduces
            && !figures.contains(&r.figure.as_str())
        {
            figures.push(&r.figure);
        }
    }
    for f in figures {
        if let Some(t) = ratio_table(f, panels) {
            let _ = writeln!(s, "{f}, S at the total budget against the cost ratio:\n\n{t}");
        }
    }
    let mut statements: Vec<&str> = Vec::new();
    for c in &all {
        if !statements.contains(&c.statement.as_str()) {
            statements.push(&c.statement);
        }
    }
    // Every statement is judged over the panels run ("reproduced" even when some are not run).
    verdict_lines(s, &all, &statements, true);
    if panels.len() < expected {
        let _ = writeln!(s, "\n{} of the paper's {expected} COMP-GP-UCB presets have been run.", panels.len());
    }
    s.push('\n');
}

#[cfg(test)]
mod tests;
