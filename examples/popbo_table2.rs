//! Re-runs POP-BO's Table 2 (Xu et al. 2024, notes 001 §5.4): the suboptimality of the reported
//! solution after 30 steps on seven 2-D test functions, 30 runs each, and writes
//! `docs/reproduction/popbo-table2.md` beside the paper's POP-BO column.
//!
//! ```text
//! cargo run --release --example popbo_table2 -- [--runs N] [--out FILE]
//! ```
//!
//! Settings (the authors' code, notes 001 §5.2, [`RepoSettings`]): each function on its box shrunk
//! by 10⁻⁶, standardised y = (f − mean)/std over the 20×20 grid, which is also the candidate set;
//! Matérn-5/2 ARD kernel with the code's per-function lengthscales, norm bound B and
//! β_t = β₀√(t + 1) with the per-function β₀; latent box |z| ≤ 3; nugget ε_K = 10⁻⁶; x₀ uniformly
//! random on the grid; BTL answers y ~ Bernoulli(σ(y(x) − y(x′))); the report is the argmax of the
//! MLE over the sampled points. Runs execute in parallel on rayon's global pool (set
//! `RAYON_NUM_THREADS`); results do not depend on it (run r of function i uses the streams
//! `rng::stream(SEED, [i, r, 0])` for the algorithm and `[i, r, 1]` for the respondent).

use bohf::core::WidthSchedule;
use bohf::core::{Answer, Link, Optimizer, Query, SearchContext, rng};
use bohf::kernels::{KernelKind, KernelSpec};
use bohf::popbo::{PopBo, PopBoConfig};
use bohf::problems::popbo::{
    GpInstanceSpec, PopBoTestProblem, RepoSettings, TABLE2, TABLE2_RUNS, TABLE2_STEPS, table2_problem,
};
use rand::RngExt;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The base seed of every run's random streams.
const SEED: u64 = 2024;

/// The authors' configuration for one function.
fn config(settings: &RepoSettings) -> PopBoConfig {
    let mut cfg = PopBoConfig::default();
    cfg.inference.kernel = KernelSpec {
        kind: KernelKind::Matern52,
        lengthscale: None,
        lengthscales: Some(settings.lengthscales.clone()),
        variance: None,
    };
    cfg.confidence.norm_bound = settings.norm_bound;
    cfg.confidence.latent_box = Some(3.0);
    cfg.confidence.nugget = 1e-6;
    cfg.beta = WidthSchedule::SqrtTPlusOne { scale: settings.beta0 };
    cfg
}

/// One run: `TABLE2_STEPS` duels, then the suboptimality f* − y(x̂) of the reported point.
fn run(problem: &PopBoTestProblem, cfg: &PopBoConfig, function: u64, r: u64) -> Result<f64, BoxError> {
    let u = problem.utility().values();
    let ctx = SearchContext::new(problem.grid().clone(), TABLE2_STEPS)?;
    let mut p = PopBo::new(&ctx, cfg.clone().check()?)?;
    let mut algo = rng::stream(SEED, &[function, r, 0]);
    let mut person = rng::stream(SEED, &[function, r, 1]);
    for _ in 0..TABLE2_STEPS {
        let q = p.suggest(&mut algo)?;
        let Query::Duel(a, b) = &q else { return Err("POP-BO asked something other than a duel".into()) };
        let (i, j) = (a.index.ok_or("no index")?, b.index.ok_or("no index")?);
        let first_wins = person.random_bool(Link::Logistic.mu(u[i] - u[j]));
        p.observe(&q, Answer::Duel { first_wins })?;
    }
    let x = p.recommend()?;
    Ok(problem.suboptimality(&x.coords)?)
}

/// GP instances (§6.1, App. N Fig. 4): 1-D, SE kernel σ² = 9, ℓ = 1 on [0, 10], 30-point grid,
/// B = 1.1‖f‖, β_t = 0.1·√(t + 1) (the code's GP setting), nugget 10⁻⁶. Returns the cumulative
/// regret R_t = Σ_{τ ≤ t} (f* − f(x_τ)) (eq. 27, x_τ the first point of duel τ) for t = 1..steps.
fn gp_run(steps: usize, r: u64) -> Result<Vec<f64>, BoxError> {
    let spec = GpInstanceSpec::popbo(1);
    let instance = spec.sample(&mut rng::stream(SEED, &[100, r, 2]))?;
    let grid = spec.domain()?.grid(30)?;
    let u = instance.on_grid(&grid)?;
    let f_star = u.max();
    let u = u.values().to_vec();
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
    let ctx = SearchContext::new(grid, steps)?;
    let mut p = PopBo::new(&ctx, cfg.check()?)?;
    let mut algo = rng::stream(SEED, &[100, r, 0]);
    let mut person = rng::stream(SEED, &[100, r, 1]);
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

fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (m, (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n).sqrt())
}

fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = TABLE2_RUNS;
    let mut gp_runs = 10usize;
    let gp_steps = 100usize;
    let mut out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/reproduction/popbo-table2.md");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().ok_or("--runs needs a value")?.parse()?,
            "--gp-runs" => gp_runs = it.next().ok_or("--gp-runs needs a value")?.parse()?,
            "--out" => out = PathBuf::from(it.next().ok_or("--out needs a value")?),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let start = Instant::now();
    let mut rows = Vec::new();
    for (fi, row) in TABLE2.iter().enumerate() {
        let t0 = Instant::now();
        let problem = table2_problem(row.function)?;
        let cfg = config(problem.settings());
        let subs: Vec<f64> =
            (0..runs as u64).into_par_iter().map(|r| run(&problem, &cfg, fi as u64, r)).collect::<Result<_, _>>()?;
        let (m, s) = mean_std(&subs);
        let secs = t0.elapsed().as_secs_f64();
        eprintln!("{}: {m:.3} ± {s:.3} (paper {} ± {}), {secs:.1} s", row.label, row.popbo_mean, row.popbo_std);
        rows.push((row, problem.settings().clone(), m, s, secs));
    }
    let total = start.elapsed().as_secs_f64();
    let threads = rayon::current_num_threads();

    let mut md = String::new();
    let _ = writeln!(md, "# POP-BO (Xu et al. 2024), Table 2: test functions\n");
    let _ = writeln!(
        md,
        "Generated by `cargo run --release --example popbo_table2` (`examples/popbo_table2.rs`). \
         {runs} runs × {TABLE2_STEPS} steps per function on the 20×20 grid; wall time {total:.1} s on {threads} \
         thread(s).\n"
    );
    let _ = writeln!(
        md,
        "**Settings** (the authors' code, notes 001 §5.2): each function on its box shrunk by 10⁻⁶, standardised \
         y = (f − mean)/std over the 20×20 grid, which is also the candidate set (f* = the grid maximum of y); \
         Matérn-5/2 ARD kernel (variance 1) with the code's per-function lengthscales, norm bound B and \
         β_t = β₀√(t + 1); latent box |z| ≤ 3; nugget ε_K = 10⁻⁶; x₀ uniformly random on the grid; answers \
         y ~ Bernoulli(σ(y(x) − y(x′))); reported solution = argmax of the MLE over the sampled points \
         (`max_mle_sampled`). Metric: the suboptimality f* − y(x̂) of the reported solution after \
         {TABLE2_STEPS} duels, mean ± std (ddof = 0) over the runs, in the paper's normalised units.\n"
    );
    let _ = writeln!(
        md,
        "**Rule.** A row matches when bohf's mean and the paper's differ by at most 2 standard errors of the \
         difference, |ours − paper| ≤ 2·√(std_ours² + std_paper²)/√{runs} (independent runs; the same rule as the \
         [index](README.md)). The column \"within 2 s.e. of ours\" applies the stricter rule |ours − paper| ≤ \
         2·std_ours/√{runs}, which ignores the paper's own sampling error.\n"
    );
    md.push_str("| function | ℓ | B | β₀ | bohf: mean ± std | paper POP-BO: mean ± std | difference (bohf − paper) | 2 s.e. of the difference | match | within 2 s.e. of ours | time (s) |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    let mut matched = 0;
    let mut strict_matched = 0;
    for (row, st, m, s, secs) in &rows {
        let two_se = 2.0 * (s * s + row.popbo_std * row.popbo_std).sqrt() / (runs as f64).sqrt();
        let ok = (row.popbo_mean - m).abs() <= two_se;
        let strict = (row.popbo_mean - m).abs() <= 2.0 * s / (runs as f64).sqrt();
        matched += usize::from(ok);
        strict_matched += usize::from(strict);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {m:.3} ± {s:.3} | {} ± {} | {:+.3} | {two_se:.3} | {} | {} | {secs:.1} |",
            row.label,
            st.lengthscales[0],
            st.norm_bound,
            st.beta0,
            row.popbo_mean,
            row.popbo_std,
            m - row.popbo_mean,
            if ok {
                "**yes**"
            } else if *m < row.popbo_mean {
                "no (bohf lower)"
            } else {
                "no (bohf higher)"
            },
            if strict { "yes" } else { "no" }
        );
    }
    let _ = writeln!(
        md,
        "\n**{matched} of {} rows match** under the rule ({strict_matched} of {} under the stricter one).\n",
        rows.len(),
        rows.len()
    );
    md.push_str(
        "## Known differences from the authors' runs\n\n\
         - **Continuous vs grid search.** By default the authors' code maximises the optimistic advantage over the \
         continuous box (multi-start), while this table restricts every query to the 20×20 grid on which the \
         function is standardised and f* is taken. A grid search cannot reach points between grid nodes, and f* is \
         the grid maximum, so near-optimal continuous points can even give a negative suboptimality in their runs \
         but never here.\n\
         - **x₀ vs x₁.** The authors' driver draws x₀, queries x₁ with no data and never compares (x₁, x₀): its \
         data chain starts at x₁ (notes 001 §3.1, [R]). bohf follows Algorithm 1 literally: the first duel is \
         (x₁, x₀), so bohf's 30 duels start one point earlier and x₀ enters the MLE's support.\n\
         - **Report timing.** The code computes the reported solution before adding the last duel; bohf reports \
         from all 30 observed duels.\n\
         - **Randomness.** Seeds and the respondent's draws are not shared with the paper; each run here has its own \
         streams (see the example's documentation).\n",
    );
    std::fs::write(&out, &md)?;
    if gp_runs > 0 {
        let t0 = Instant::now();
        let curves: Vec<Vec<f64>> =
            (0..gp_runs as u64).into_par_iter().map(|r| gp_run(gp_steps, r)).collect::<Result<_, _>>()?;
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
    std::fs::write(&out, md)?;
    eprintln!("wrote {} ({total:.1} s, {threads} threads)", out.display());
    Ok(())
}
