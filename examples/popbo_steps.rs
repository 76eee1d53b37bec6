//! Whole-run step timings of POP-BO on one Table 2 function (the grid version, the settings of
//! `specs/popbo-table2.toml`, the same random streams as `bohf reproduce popbo-table2`).
//!
//! ```text
//! cargo run --release --example popbo_steps -- [FUNCTION] [RUNS] [--solver S] [--queries FILE] [--diagnose]
//! ```
//!
//! * `FUNCTION`: a Table 2 function name (default `levy13`); `RUNS`: runs 0..RUNS (default 30).
//! * Prints the distribution of the `suggest` wall times over every step of every run (median,
//!   mean, 99th percentile, max) and of the conic programs solved per step.
//! * `--solver S`: the confidence programs' solver (`auto`, `dense` or `clarabel`; default: the
//!   spec's, i.e. `auto`).
//! * `--queries FILE`: writes every run's queried candidate pairs, one run per line (to compare
//!   the selections of two builds).
//! * `--check`: at every step also solves the program at every candidate and reports the largest
//!   gap between the exact maximum and the exact value at the chosen candidate (0 up to the solver
//!   tolerance if the screened argmax is exact).
//! * `--diagnose`: at every step also solves the program at every candidate and prints, for the
//!   steps where more than 100 programs were solved, the gap between the cheap certified upper
//!   bound (before any solve) and the exact value.

use bohf::confidence::SolverChoice;
use bohf::core::{Answer, Link, Optimizer, Query, SearchContext, rng};
use bohf::popbo::PopBo;
use bohf::problems::popbo::table2_problem;
use bohf::reproduce::table2::Table2Spec;
use rand::RngExt;
use std::time::Instant;

type BoxError = Box<dyn std::error::Error>;

fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = Vec::new();
    let (mut queries_file, mut diagnose, mut check, mut solver) = (None, false, false, None);
    let mut worst_gap = 0.0_f64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--queries" => queries_file = Some(it.next().ok_or("--queries needs a file")?.clone()),
            "--solver" => solver = Some(it.next().ok_or("--solver needs auto, dense or clarabel")?.clone()),
            "--diagnose" => diagnose = true,
            "--check" => check = true,
            _ => positional.push(a.clone()),
        }
    }
    let function = positional.first().cloned().unwrap_or_else(|| "levy13".into());
    let runs: u64 = positional.get(1).map(|s| s.parse()).transpose()?.unwrap_or(30);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/popbo-table2.toml");
    let spec = Table2Spec::parse(&std::fs::read_to_string(&path)?, &path)?;
    let fi = spec.functions.iter().position(|f| f.function == function).ok_or("no such Table 2 function")?;
    let mut cfg = spec.config(fi)?;
    if let Some(s) = solver {
        cfg.confidence.solver = match s.as_str() {
            "auto" => SolverChoice::Auto,
            "dense" => SolverChoice::Dense,
            "clarabel" => SolverChoice::Clarabel,
            _ => return Err(format!("--solver {s}: expected auto, dense or clarabel").into()),
        };
    }
    let problem = table2_problem(&function)?;
    let u = problem.utility().values().to_vec();
    let mut times = Vec::new();
    let mut solved = Vec::new();
    let mut lines = Vec::new();
    let t_all = Instant::now();
    for r in 0..runs {
        let ctx = SearchContext::new(problem.grid().clone(), spec.steps)?;
        let mut p = PopBo::new(&ctx, cfg.clone().check()?)?;
        let mut algo = rng::stream(spec.seed, &[fi as u64, r, 0]);
        let mut person = rng::stream(spec.seed, &[fi as u64, r, 1]);
        let mut line = Vec::new();
        for _ in 0..spec.steps {
            let t0 = Instant::now();
            let q = p.suggest(&mut algo)?;
            times.push(t0.elapsed().as_secs_f64());
            let step = *p.last_step().ok_or("no step info")?;
            solved.push(step.solved);
            let Query::Duel(a, b) = &q else { return Err("not a duel".into()) };
            let (i, j) = (a.index.ok_or("no index")?, b.index.ok_or("no index")?);
            line.push(format!("{i}-{j}"));
            if check {
                let exact = p.optimistic_advantages()?;
                let max = exact.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                worst_gap = worst_gap.max(max - exact[i]);
            }
            if diagnose && step.solved > 100 {
                let (set, cands) = p.confidence_set()?;
                let reference = p.problem().and_then(|pr| pr.support_position(j)).ok_or("reference")?;
                let exact = p.optimistic_advantages()?;
                let best = exact.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let mut gaps: Vec<(f64, f64, f64)> = Vec::new();
                for (c, e) in cands.iter().zip(&exact) {
                    let (lo, hi) = set.advantage_bounds(c, reference)?;
                    gaps.push((hi - e, e - lo, *e));
                }
                let above = gaps.iter().filter(|g| g.2 + g.0 > best).count();
                let near = |d: f64| exact.iter().filter(|&&e| e >= best - d).count();
                let boxed = cands.iter().zip(&exact).filter(|(_, e)| **e > best - 0.5).count();
                eprintln!(
                    "   within 1e-3: {}, 1e-2: {}, 0.1: {}, 0.5: {boxed}, 1: {}; upper bounds: {:?}",
                    near(1e-3),
                    near(1e-2),
                    near(0.1),
                    near(1.0),
                    {
                        let mut v: Vec<f64> = gaps.iter().map(|g| g.0 + g.2).collect();
                        v.sort_by(f64::total_cmp);
                        [v[0], v[v.len() / 2], v[v.len() - 1]]
                    }
                );
                let med_gap = {
                    let mut v: Vec<f64> = gaps.iter().map(|g| g.0).collect();
                    v.sort_by(f64::total_cmp);
                    v[v.len() / 2]
                };
                eprintln!(
                    "run {r} step {}: solved {}, best {best:.4}, β {:.3}, {above} cheap upper bounds above best, median upper gap {med_gap:.4}, exact values in [{:.4}, {best:.4}]",
                    step.duels + 1,
                    step.solved,
                    step.beta,
                    exact.iter().cloned().fold(f64::INFINITY, f64::min)
                );
            }
            let first_wins = person.random_bool(Link::Logistic.mu(u[i] - u[j]));
            p.observe(&q, Answer::Duel { first_wins })?;
        }
        lines.push(line.join(" "));
    }
    let total = t_all.elapsed().as_secs_f64();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize] * 1e3;
    let mean = times.iter().sum::<f64>() / times.len() as f64 * 1e3;
    let mut s = solved.clone();
    s.sort();
    println!(
        "{function}: {runs} runs × {} steps, total {total:.1} s; suggest ms: median {:.1}, mean {mean:.1}, p99 {:.1}, max {:.1}; solved per step: median {}, p99 {}, max {}",
        spec.steps,
        q(0.5),
        q(0.99),
        q(1.0),
        s[s.len() / 2],
        s[((s.len() - 1) as f64 * 0.99).round() as usize],
        s[s.len() - 1]
    );
    if check {
        println!("largest gap between the exact maximum and the chosen candidate's exact value: {worst_gap:.2e}");
    }
    if let Some(f) = queries_file {
        std::fs::write(f, lines.join("\n") + "\n")?;
    }
    Ok(())
}
