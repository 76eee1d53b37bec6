//! POP-BO's Table 2 (Xu et al. 2024, notes 001 §5.4), run from its spec
//! (`specs/popbo-table2.toml`, a preset with `reproduces.paper = "popbo"`): the suboptimality of
//! the reported solution after `steps` duels on 2-D test functions, `runs` runs each, beside the
//! paper's POP-BO column; and the log–log slope of the cumulative regret on GP instances (App. N,
//! Fig. 4).
//!
//! The spec holds every per-function fact: the function, the paper's row (label, mean, std) and
//! POP-BO's parameters (the `pop-bo` registry entry's TOML, e.g. the authors' lengthscales, B and
//! β₀). Each function is prepared as the authors' code does
//! ([`bohf_problems::popbo::table2_problem`]: box shrunk by 10⁻⁶, standardised over the 20×20 grid,
//! which is the candidate set). Run r of the i-th function (in spec order) uses the streams
//! `rng::stream(seed, [i, r, 0])` for the algorithm and `[i, r, 1]` for the respondent, so results
//! do not depend on the thread count; answers are BTL, y ~ Bernoulli(σ(y(x) − y(x′))).
//!
//! ```toml
//! name = "popbo-table2"
//! runs = 30
//! steps = 30
//! seed = 2024
//! [reproduces]
//! paper = "popbo"
//! figure = "Table 2"
//! [gp_slope]                      # optional: App. N Fig. 4 (runs = 0 skips it)
//! runs = 10
//! steps = 100
//! [[functions]]
//! function = "branin"              # a name of bohf_problems::by_name (2-D)
//! label = "Branin"                 # the paper's row label
//! paper = { mean = 0.31, std = 0.29 }
//! [functions.params]               # POP-BO's config, as the `pop-bo` registry entry reads it
//! beta = { rule = "sqrt-t-plus-one", scale = 10.0 }
//! ```

use crate::presets::Preset;
use crate::source::{Paper, Reproduces};
use bohf_core::{Answer, Link, Optimizer, Query, SearchContext, WidthSchedule, rng};
use bohf_experiments::error::{ExperimentError, Result};
use bohf_kernels::{KernelKind, KernelSpec};
use bohf_popbo::{BoxSearchConfig, PopBo, PopBoBox, PopBoConfig};
use bohf_problems::TestFunction;
use bohf_problems::popbo::{GpInstance, GpInstanceSpec, PopBoTestProblem, table2_problem};
use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// The spec of POP-BO's Table 2 (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table2Spec {
    /// The preset's name (the file stem).
    pub name: String,
    /// A title for listings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Runs per function.
    pub runs: usize,
    /// Duels per run.
    pub steps: usize,
    /// The base seed of every run's streams.
    pub seed: u64,
    /// The paper and table (`paper = "popbo"`).
    pub reproduces: Reproduces,
    /// The GP-instance slope experiment (App. N, Fig. 4), if run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gp_slope: Option<GpSlopeSpec>,
    /// `[box_search]`: x optimised over each function's (shrunk) box by POP-BO's continuous mode
    /// ([`PopBoBox`] with these search settings), as the authors' code does, instead of over the
    /// 20×20 grid. Answers and the suboptimality then use the standardised function at the
    /// queried and reported points; f* stays the grid maximum (the authors' code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub box_search: Option<BoxSearchConfig>,
    /// The rows, in the paper's order (the order fixes each function's streams).
    pub functions: Vec<Table2Function>,
}

/// `[gp_slope]`: instances (one run each) and the horizon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpSlopeSpec {
    /// Instances, one run each (0 skips the experiment).
    pub runs: usize,
    /// T.
    pub steps: usize,
}

/// One row of Table 2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table2Function {
    /// A 2-D test function of [`bohf_problems::by_name`].
    pub function: String,
    /// The paper's row label.
    pub label: String,
    /// The paper's POP-BO value: mean ± std of the suboptimality over its runs.
    pub paper: PaperValue,
    /// POP-BO's parameters (the `pop-bo` registry entry's TOML).
    #[serde(default)]
    pub params: toml::Table,
}

/// A mean ± std reported by the paper.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperValue {
    /// The mean.
    pub mean: f64,
    /// The standard deviation (ddof unstated).
    pub std: f64,
}

impl Table2Spec {
    /// Parses and validates a Table 2 spec; errors name `origin` and the field.
    pub fn parse(text: &str, origin: &Path) -> Result<Self> {
        let spec: Self = bohf_experiments::de::from_toml_text(text, Some(origin))?;
        spec.validate().map_err(|e| ExperimentError::InFile { path: origin.to_path_buf(), source: Box::new(e) })?;
        Ok(spec)
    }

    /// Reads the Table 2 spec of a preset.
    pub fn of_preset(preset: &Preset) -> Result<Self> {
        Self::parse(&preset.text, &preset.path)
    }

    /// Checks the counts, the paper (`popbo`), each function's name and its parameters (by the
    /// `pop-bo` registry entry); errors name the field (`functions[2].params.beta.scale`, …).
    pub fn validate(&self) -> Result<()> {
        self.reproduces.validate(Some(&[]))?;
        if self.reproduces.paper() != Paper::PopBo {
            return Err(ExperimentError::spec("reproduces.paper", "a Table 2 spec reproduces `popbo`"));
        }
        for (field, v) in [("runs", self.runs), ("steps", self.steps)] {
            if v == 0 || v > bohf_experiments::limits::MAX_RUNS {
                return Err(ExperimentError::spec(
                    field,
                    format!("must be in 1..={}, got {v}", bohf_experiments::limits::MAX_RUNS),
                ));
            }
        }
        if self.seed > i64::MAX as u64 {
            return Err(ExperimentError::spec("seed", format!("must be at most {}", i64::MAX)));
        }
        if let Some(g) = self.gp_slope
            && g.runs > 0
            && !(10..=bohf_experiments::limits::MAX_HORIZON).contains(&g.steps)
        {
            return Err(ExperimentError::spec("gp_slope.steps", format!("must be at least 10, got {}", g.steps)));
        }
        if let Some(b) = &self.box_search {
            b.check().map_err(|e| ExperimentError::in_field("box_search", e))?;
        }
        if self.functions.is_empty() {
            return Err(ExperimentError::spec("functions", "need at least one function"));
        }
        let entry = bohf_registry::builtin()
            .get("pop-bo")
            .cloned()
            .ok_or_else(|| ExperimentError::spec("functions", "no `pop-bo` in the registry"))?;
        for (i, f) in self.functions.iter().enumerate() {
            table2_problem(&f.function)
                .map_err(|e| ExperimentError::in_field(&format!("functions[{i}].function"), e))?;
            if f.label.is_empty() || f.label.contains(['|', '\n']) {
                return Err(ExperimentError::spec(
                    format!("functions[{i}].label"),
                    "give a label without `|` or newlines",
                ));
            }
            if !(f.paper.mean.is_finite() && f.paper.std.is_finite() && f.paper.std >= 0.0) {
                return Err(ExperimentError::spec(
                    format!("functions[{i}].paper"),
                    "mean and std must be finite, std ≥ 0",
                ));
            }
            entry.check(&f.params, &format!("functions[{i}].params"))?;
        }
        Ok(())
    }

    /// The POP-BO config of function `i` (validated by [`Table2Spec::validate`]).
    pub fn config(&self, i: usize) -> Result<PopBoConfig> {
        let at = format!("functions[{i}].params");
        let params = self.functions.get(i).ok_or_else(|| ExperimentError::spec(&at, "no such function"))?;
        toml::Value::Table(params.params.clone()).try_into().map_err(|e| ExperimentError::spec(at, e.message()))
    }
}

/// The measured row of one function.
#[derive(Debug, Clone, PartialEq)]
pub struct Table2Row {
    /// The spec's row.
    pub function: Table2Function,
    /// Its POP-BO config.
    pub config: PopBoConfig,
    /// Mean and std (ddof = 0) of the suboptimality over the runs.
    pub mean: f64,
    /// See `mean`.
    pub std: f64,
    /// Wall time of the function's runs, seconds.
    pub seconds: f64,
}

type RunError = Box<dyn std::error::Error + Send + Sync>;

fn run_error(what: &str) -> impl Fn(RunError) -> ExperimentError + '_ {
    move |e| ExperimentError::spec(what, e.to_string())
}

/// One run: `steps` duels, then the suboptimality f* − y(x̂) of the reported point.
fn one_run(
    problem: &PopBoTestProblem,
    cfg: &PopBoConfig,
    steps: usize,
    seed: u64,
    function: u64,
    r: u64,
) -> std::result::Result<f64, RunError> {
    let u = problem.utility().values();
    let ctx = SearchContext::new(problem.grid().clone(), steps)?;
    let mut p = PopBo::new(&ctx, cfg.check()?)?;
    let mut algo = rng::stream(seed, &[function, r, 0]);
    let mut person = rng::stream(seed, &[function, r, 1]);
    for _ in 0..steps {
        let q = p.suggest(&mut algo)?;
        let Query::Duel(a, b) = &q else { return Err("POP-BO asked something other than a duel".into()) };
        let (i, j) = (a.index.ok_or("no index")?, b.index.ok_or("no index")?);
        let first_wins = person.random_bool(Link::Logistic.mu(u[i] - u[j]));
        p.observe(&q, Answer::Duel { first_wins })?;
    }
    let x = p.recommend()?;
    Ok(problem.suboptimality(&x.coords)?)
}

/// One run on the box: POP-BO's continuous mode on the function's shrunk box, answers from the
/// standardised function at the queried points, then the suboptimality f* − y(x̂) (f* the grid
/// maximum, so it can be negative).
fn one_box_run(
    problem: &PopBoTestProblem,
    cfg: &PopBoConfig,
    search: &BoxSearchConfig,
    steps: usize,
    seed: u64,
    function: u64,
    r: u64,
) -> std::result::Result<f64, RunError> {
    let y = problem.function();
    let mut p = PopBoBox::new(y.domain(), cfg.check()?, search.check()?)?;
    let mut algo = rng::stream(seed, &[function, r, 0]);
    let mut person = rng::stream(seed, &[function, r, 1]);
    for _ in 0..steps {
        let q = p.suggest(&mut algo)?;
        let Query::Duel(a, b) = &q else { return Err("POP-BO asked something other than a duel".into()) };
        let first_wins = person.random_bool(Link::Logistic.mu(y.value(&a.coords)? - y.value(&b.coords)?));
        p.observe(&q, Answer::Duel { first_wins })?;
    }
    let x = p.recommend()?;
    Ok(problem.suboptimality(&x.coords)?)
}

/// Runs every function of `spec` with `runs` runs each (on rayon's global pool), logging each
/// row to stderr.
pub fn run_table2(spec: &Table2Spec, runs: usize) -> Result<Vec<Table2Row>> {
    let mut rows = Vec::new();
    for (fi, f) in spec.functions.iter().enumerate() {
        let t0 = Instant::now();
        let at = format!("functions[{fi}]");
        let problem = table2_problem(&f.function).map_err(|e| ExperimentError::in_field(&at, e))?;
        let config = spec.config(fi)?;
        let subs: Vec<f64> = (0..runs as u64)
            .into_par_iter()
            .map(|r| match &spec.box_search {
                None => one_run(&problem, &config, spec.steps, spec.seed, fi as u64, r),
                Some(search) => one_box_run(&problem, &config, search, spec.steps, spec.seed, fi as u64, r),
            })
            .collect::<std::result::Result<_, _>>()
            .map_err(run_error(&at))?;
        let (mean, std) = mean_std(&subs);
        let seconds = t0.elapsed().as_secs_f64();
        eprintln!("{}: {mean:.3} ± {std:.3} (paper {} ± {}), {seconds:.1} s", f.label, f.paper.mean, f.paper.std);
        rows.push(Table2Row { function: f.clone(), config, mean, std, seconds });
    }
    Ok(rows)
}

/// POP-BO's config on a GP-sample instance (§6.1; the authors' GP setting, notes 001 §5.2): the
/// instance's SE kernel (variance and lengthscale of `spec`), B = 1.1‖f‖ (the instance's
/// [`GpInstance::norm_bound`]), β_t = 0.1·√(t + 1), nugget ε_K = 10⁻⁶ (the code's
/// `numerical_epsilon`), no latent box. The one home of this config: the GP-slope experiment and
/// the POP-BO box-step benchmarks (7-D, 12-D) build it here.
pub fn gp_instance_config(spec: &GpInstanceSpec, instance: &GpInstance) -> PopBoConfig {
    let mut cfg = PopBoConfig::default();
    cfg.inference.kernel = KernelSpec {
        kind: KernelKind::Se,
        lengthscale: Some(spec.lengthscale),
        lengthscales: None,
        variance: Some(spec.variance),
    };
    cfg.confidence.norm_bound = instance.norm_bound();
    cfg.confidence.nugget = 1e-6;
    cfg.beta = WidthSchedule::SqrtTPlusOne { scale: 0.1 };
    cfg
}

/// GP instances (§6.1, App. N Fig. 4): 1-D, SE kernel σ² = 9, ℓ = 1 on [0, 10], 30-point grid,
/// B = 1.1‖f‖, β_t = 0.1·√(t + 1) (the code's GP setting), nugget 10⁻⁶. Returns the cumulative
/// regret R_t = Σ_{τ ≤ t} (f* − f(x_τ)) (eq. 27, x_τ the first point of duel τ) for t = 1..steps.
fn gp_run(seed: u64, steps: usize, r: u64) -> std::result::Result<Vec<f64>, RunError> {
    let spec = GpInstanceSpec::popbo(1);
    let instance = spec.sample(&mut rng::stream(seed, &[100, r, 2]))?;
    let grid = spec.domain()?.grid(30)?;
    let u = instance.on_grid(&grid)?;
    let f_star = u.max();
    let u = u.values().to_vec();
    let cfg = gp_instance_config(&spec, &instance);
    let ctx = SearchContext::new(grid, steps)?;
    let mut p = PopBo::new(&ctx, cfg.check()?)?;
    let mut algo = rng::stream(seed, &[100, r, 0]);
    let mut person = rng::stream(seed, &[100, r, 1]);
    let mut total = 0.0;
    let mut cumulative = Vec::with_capacity(steps);
    for _ in 0..steps {
        let q = p.suggest(&mut algo)?;
        let Query::Duel(a, b) = &q else { return Err("POP-BO asked something other than a duel".into()) };
        let (i, j) = (a.index.ok_or("no index")?, b.index.ok_or("no index")?);
        total += f_star - u[i];
        cumulative.push(total);
        let first_wins = person.random_bool(Link::Logistic.mu(u[i] - u[j]));
        p.observe(&q, Answer::Duel { first_wins })?;
    }
    Ok(cumulative)
}

/// Least-squares slope of log y against log t over t ∈ [from, len] (1-based t; y > 0 only).
fn loglog_slope(y: &[f64], from: usize) -> f64 {
    let pts: Vec<(f64, f64)> =
        (from..=y.len()).filter(|&t| y[t - 1] > 0.0).map(|t| ((t as f64).ln(), y[t - 1].ln())).collect();
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

/// Mean and population standard deviation (ddof = 0).
fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (m, (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n).sqrt())
}

/// β₀ of a schedule β_t = β₀·g(t), for the table.
fn beta0(s: &WidthSchedule) -> String {
    match *s {
        WidthSchedule::SqrtT { scale } | WidthSchedule::SqrtTPlusOne { scale } => format!("{scale}"),
        WidthSchedule::Constant { value } => format!("{value} (constant)"),
        other => other.rule().to_string(),
    }
}

/// Table 2's rows against the paper's, with the two matching rules, and the count of matches.
fn rows_table(md: &mut String, rows: &[Table2Row], runs: usize) {
    md.push_str("| function | ℓ | B | β₀ | bohf: mean ± std | paper POP-BO: mean ± std | difference (bohf − paper) | 2 s.e. of the difference | match | within 2 s.e. of ours | time (s) |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    let mut matched = 0;
    let mut strict_matched = 0;
    for row in rows {
        let (m, s, paper) = (row.mean, row.std, row.function.paper);
        let two_se = 2.0 * (s * s + paper.std * paper.std).sqrt() / (runs as f64).sqrt();
        let ok = (paper.mean - m).abs() <= two_se;
        let strict = (paper.mean - m).abs() <= 2.0 * s / (runs as f64).sqrt();
        matched += usize::from(ok);
        strict_matched += usize::from(strict);
        let kernel = &row.config.inference.kernel;
        let ell = kernel.lengthscales.as_ref().and_then(|l| l.first().copied()).or(kernel.lengthscale);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {m:.3} ± {s:.3} | {} ± {} | {:+.3} | {two_se:.3} | {} | {} | {:.1} |",
            row.function.label,
            ell.map_or_else(|| "default".to_string(), |l| l.to_string()),
            row.config.confidence.norm_bound,
            beta0(&row.config.beta),
            paper.mean,
            paper.std,
            m - paper.mean,
            if ok {
                "**yes**"
            } else if m < paper.mean {
                "no (bohf lower)"
            } else {
                "no (bohf higher)"
            },
            if strict { "yes" } else { "no" },
            row.seconds
        );
    }
    let _ = writeln!(
        md,
        "\n**{matched} of {} rows match** under the rule ({strict_matched} of {} under the stricter one).\n",
        rows.len(),
        rows.len()
    );
}

/// The GP instances' section: the log–log slope of the cumulative regret (`gp_runs` instances),
/// against the paper's ≈ 3/4; nothing without `gp_slope` or runs.
fn gp_slope_section(md: &mut String, spec: &Table2Spec, gp_runs: usize) -> Result<()> {
    let gp_steps = spec.gp_slope.map_or(0, |g| g.steps);
    if gp_runs > 0 && gp_steps > 0 {
        let t0 = Instant::now();
        let curves: Vec<Vec<f64>> = (0..gp_runs as u64)
            .into_par_iter()
            .map(|r| gp_run(spec.seed, gp_steps, r))
            .collect::<std::result::Result<_, _>>()
            .map_err(run_error("gp_slope"))?;
        let mean: Vec<f64> = (0..gp_steps).map(|t| curves.iter().map(|c| c[t]).sum::<f64>() / gp_runs as f64).collect();
        let from = gp_steps / 10;
        let slope = loglog_slope(&mean, from);
        let per_run: Vec<f64> = curves.iter().map(|c| loglog_slope(c, from)).collect();
        let (ms, ss) = mean_std(&per_run);
        let secs = t0.elapsed().as_secs_f64();
        eprintln!("GP slope {slope:.3} (per run {ms:.3} ± {ss:.3}), {secs:.1} s");
        let _ = writeln!(
            md,
            "\n## Cumulative regret on GP instances: log–log slope (paper ≈ 3/4)\n\n\
             The paper's Fig. 4 (App. N) shows POP-BO's cumulative regret on GP-sample instances between the √T and T \
             reference lines on a log–log plot, with a slope \"close to 3/4\". Here: {gp_runs} instances (one run \
             each), d = 1, SE kernel with variance 9 and ℓ = 1 on [0, 10], 10 random knots, minimum-norm \
             interpolant (notes 001 §5.2–5.3), 30-point grid as candidates and for f*, B = 1.1‖f‖, \
             β_t = 0.1·√(t + 1) (the code's GP setting), nugget 10⁻⁶, no latent box, T = {gp_steps}; \
             R_t = Σ_{{τ ≤ t}} (f* − f(x_τ)) (eq. 27). The slope is the least-squares fit of log R_t on log t \
             over t ∈ [{from}, {gp_steps}].\n\n\
             | quantity | value |\n|---|---|\n\
             | slope of the mean curve R̄_t | {slope:.3} |\n\
             | per-run slopes, mean ± std | {ms:.3} ± {ss:.3} |\n\
             | mean R_T at T = {gp_steps} | {:.2} |\n\
             | wall time (s) | {secs:.1} |\n\n\
             A slope of 1 is linear regret, 1/2 the √T line. The paper's dimension, domain and horizon for Fig. 4 are \
             not stated (notes 001 §5.3); the repository's script uses d = 1, which is used here. With a 30-point \
             grid the algorithm can find the grid maximiser exactly, after which R_t stops growing, so the slope \
             depends on the horizon and the fit window.",
            mean[gp_steps - 1]
        );
        let verdict = if (slope - 0.75).abs() <= 0.1 {
            "consistent with the paper's ≈ 3/4 (within 0.1)"
        } else if slope < 0.75 {
            "not reproduced: flatter than the paper's ≈ 3/4 (sublinear, as the paper claims, but the exponent \
             differs; a small 1-D grid and a short horizon are the likely reasons, untested)"
        } else {
            "not reproduced: steeper than the paper's ≈ 3/4"
        };
        let _ = writeln!(md, "\n**Verdict:** slope {slope:.2}: {verdict}.");
    }
    Ok(())
}

/// Runs Table 2 (and the GP slope) of `spec` with `runs` runs per function (`gp_runs` GP
/// instances), and writes the report to `out`; `command` is the command line the report says
/// generated it. Returns the rows.
pub fn write_table2(
    spec: &Table2Spec,
    runs: usize,
    gp_runs: usize,
    out: &Path,
    command: &str,
) -> Result<Vec<Table2Row>> {
    let start = Instant::now();
    let rows = run_table2(spec, runs)?;
    let total = start.elapsed().as_secs_f64();
    let threads = rayon::current_num_threads();
    let steps = spec.steps;

    let (on, candidates, start, search_note) = match &spec.box_search {
        None => (
            "on the 20×20 grid".to_string(),
            "which is also the candidate set",
            "x₀ uniformly random on the grid",
            String::new(),
        ),
        Some(b) => (
            "with x optimised over the box".to_string(),
            "on which f* is taken; x ranges over the whole (shrunk) box",
            "x₀ uniformly random in the box",
            format!(
                " Each step maximises the optimistic advantage over the box by bohf's raced multistart \
                 (`PopBoBox` on bohf-optim's `race_on_box`: {} starts taken in turn from two bounds of the \
                 advantage over {} Sobol points, {} uniform points and the support points, the advantage solved \
                 exactly at each, the best {} climbed by minorise–maximise with at most {} exact conic solves \
                 each; the authors' code runs Ipopt from 10 random grid points on the joint program).",
                b.starts, b.design, b.samples, b.climbs, b.iterations
            ),
        ),
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# POP-BO (Xu et al. 2024), Table 2: test functions{}\n",
        if spec.box_search.is_some() { ", x over the box" } else { "" }
    );
    let _ = writeln!(
        md,
        "Generated by `{command}` from [`specs/{}.toml`](../../specs/{}.toml). \
         {runs} runs × {steps} steps per function {on}; wall time {total:.1} s on {threads} \
         thread(s).\n",
        spec.name, spec.name
    );
    let _ = writeln!(
        md,
        "**Settings** (the authors' code, notes 001 §5.2; the per-function values are the spec's): each function on \
         its box shrunk by 10⁻⁶, standardised y = (f − mean)/std over the 20×20 grid, {candidates} \
         (f* = the grid maximum of y); Matérn-5/2 ARD kernel (variance 1) with the code's per-function lengthscales, \
         norm bound B and β_t = β₀√(t + 1); latent box |z| ≤ 3; nugget ε_K = 10⁻⁶; {start}; \
         answers y ~ Bernoulli(σ(y(x) − y(x′))); reported solution = argmax of the MLE over the sampled points \
         (`max_mle_sampled`). Metric: the suboptimality f* − y(x̂) of the reported solution after \
         {steps} duels, mean ± std (ddof = 0) over the runs, in the paper's normalised units.{search_note}\n"
    );
    let _ = writeln!(
        md,
        "**Rule.** A row matches when bohf's mean and the paper's differ by at most 2 standard errors of the \
         difference, |ours − paper| ≤ 2·√(std_ours² + std_paper²)/√{runs} (independent runs; the same rule as the \
         [index](README.md)). The column \"within 2 s.e. of ours\" applies the stricter rule |ours − paper| ≤ \
         2·std_ours/√{runs}, which ignores the paper's own sampling error.\n"
    );
    rows_table(&mut md, &rows, runs);
    md.push_str("## Known differences from the authors' runs\n\n");
    md.push_str(if spec.box_search.is_none() {
        "- **Continuous vs grid search.** By default the authors' code maximises the optimistic advantage over the \
         continuous box (multi-start), while this table restricts every query to the 20×20 grid on which the \
         function is standardised and f* is taken. A grid search cannot reach points between grid nodes, and f* is \
         the grid maximum, so near-optimal continuous points can even give a negative suboptimality in their runs \
         but never here ([`popbo-table2-box`](popbo-table2-box.md) searches the box).\n"
    } else {
        "- **Outer search.** The authors solve the joint nonconvex program over (x, Z, z) with Ipopt from 10 random \
         starts; bohf solves the inner convex program exactly and searches x by multistart minorise–maximise. Both \
         are local searches; their optima can differ. f* is the 20×20 grid maximum (as in the authors' code), so a \
         reported point between grid nodes can have a negative suboptimality.\n"
    });
    md.push_str(
        "\
         - **x₀ vs x₁.** The authors' driver draws x₀, queries x₁ with no data and never compares (x₁, x₀): its \
         data chain starts at x₁ (notes 001 §3.1, [R]). bohf follows Algorithm 1 literally: the first duel is \
         (x₁, x₀), so bohf's 30 duels start one point earlier and x₀ enters the MLE's support.\n\
         - **Report timing.** The code computes the reported solution before adding the last duel; bohf reports \
         from all 30 observed duels.\n\
         - **Randomness.** Seeds and the respondent's draws are not shared with the paper; each run here has its own \
         streams (see `crate::table2`).\n",
    );
    gp_slope_section(&mut md, spec, gp_runs)?;
    bohf_experiments::write_atomic(out, md.as_bytes())?;
    eprintln!("wrote {} ({total:.1} s, {threads} threads)", out.display());
    Ok(rows)
}

#[cfg(test)]
mod tests;
