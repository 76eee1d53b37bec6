//! The fast path (`SolverChoice::Dense`: the dual Newton method of `crate::dual`, the dense
//! interior-point method for MLEs it cannot certify) against clarabel on the same programs
//! (issue 30): one pointwise bound and the MLE at 100, 300, 500 and 1,000 observations (duels and
//! labels, with and without the latent box; one of a sequence of candidates in one set, and the
//! first program of a fresh set), and COBOL's batch question (is the width above a
//! threshold?) over 500 candidates. Each benchmark prints which solver produced its result (a
//! program the fast path cannot certify falls back to clarabel, and its time includes both).
//!
//! `cargo bench -p bohf-confidence --bench dense` (about 25 minutes: clarabel at 1,000
//! observations takes seconds per program); `-- 'dense_vs_clarabel/duels_500'` for one size.

use bohf_confidence::{BoundsQuestion, ConfidenceConfig, ConfidenceProblem, ConfidenceSet, Observation, SolverChoice};
use bohf_core::Duel;
use bohf_core::rand::RngExt;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use nalgebra::{DMatrix, DVector};
use std::hint::black_box;

/// `count` observations on a 2-D grid of 400 points (SE kernel, ℓ = 0.2), utility
/// 2 sin(3x₀) cos(2x₁): duels between random pairs, or unary labels.
fn instance(count: usize, duels: bool, latent_box: bool, solver: SolverChoice) -> (DMatrix<f64>, ConfidenceProblem) {
    let side = 20;
    let x: Vec<(f64, f64)> = (0..side * side).map(|i| ((i % side) as f64 / 19.0, (i / side) as f64 / 19.0)).collect();
    let gram = DMatrix::from_fn(x.len(), x.len(), |i, j| {
        let d2 = (x[i].0 - x[j].0).powi(2) + (x[i].1 - x[j].1).powi(2);
        (-d2 / (2.0 * 0.04)).exp()
    });
    let f = |i: usize| 2.0 * (3.0 * x[i].0).sin() * (2.0 * x[i].1).cos();
    let mut r = bohf_core::rng::seeded(5);
    let obs: Vec<Observation> = (0..count)
        .map(|_| {
            let i = r.random_range(0..x.len());
            if duels {
                let j = r.random_range(0..x.len());
                let p = 1.0 / (1.0 + (-(f(i) - f(j))).exp());
                Observation::Duel(Duel::new(i, j, r.random::<f64>() < p))
            } else {
                Observation::Label { point: i, positive: r.random::<f64>() < 1.0 / (1.0 + (-2.0 * f(i)).exp()) }
            }
        })
        .collect();
    let config = ConfidenceConfig {
        latent_box: latent_box.then_some(3.0),
        nugget: 1e-6,
        solver,
        ..ConfidenceConfig::with_norm_bound(16.0)
    };
    let problem = ConfidenceProblem::on_candidates(&gram, &[], &obs, &config).unwrap();
    (gram, problem)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("dense_vs_clarabel");
    g.sample_size(10);
    for &count in &[100usize, 300, 500, 1000] {
        for (duels, latent_box) in [(false, true), (false, false), (true, false), (true, true)] {
            let kind = format!("{}{}", if duels { "duels" } else { "labels" }, if latent_box { "_box" } else { "" });
            for solver in [SolverChoice::Dense, SolverChoice::Clarabel] {
                let name = format!("{kind}_{count}_{solver:?}").to_lowercase();
                let (gram, problem) = instance(count, duels, latent_box, solver);
                let Ok(mle) = problem.mle() else {
                    eprintln!("{name}: the MLE failed");
                    continue;
                };
                // Ten grid points as candidates: `_lower` solves them in turn in one set (as POP-BO
                // and COBOL do: each program starts from the previous one's multipliers),
                // `_lower_cold` the first in a fresh set (the set's construction not timed).
                let cands: Vec<_> = (0..10)
                    .map(|c| {
                        let col = 37 + 31 * c;
                        let kx = DVector::from_fn(problem.len(), |i, _| gram[(problem.support().unwrap()[i], col)]);
                        problem.candidate(&kx, 1.0).unwrap()
                    })
                    .collect();
                let cand = cands[0].clone();
                let mut set = ConfidenceSet::new(&problem, &mle, 3.0).unwrap();
                let low = set.lower_bound(&cand).unwrap();
                eprintln!(
                    "{name}: n = {}, MLE by {:?} ({} steps), lower bound {:.9} by {:?} ({} steps)",
                    problem.len(),
                    mle.info.method,
                    mle.info.iterations,
                    low.value,
                    low.info.method,
                    low.info.iterations
                );
                g.bench_function(format!("{name}_mle"), |b| {
                    b.iter(|| black_box(problem.mle().unwrap().log_likelihood))
                });
                let mut next = 0;
                g.bench_function(format!("{name}_lower"), |b| {
                    b.iter(|| {
                        next = (next + 1) % cands.len();
                        black_box(set.lower_bound(&cands[next]).unwrap().value)
                    })
                });
                g.bench_function(format!("{name}_lower_cold"), |b| {
                    b.iter_batched(
                        || ConfidenceSet::new(&problem, &mle, 3.0).unwrap(),
                        |mut fresh| black_box(fresh.lower_bound(&cand).unwrap().value),
                        BatchSize::PerIteration,
                    )
                });
            }
        }
    }
    // COBOL's question over a batch: 500 off-support candidates (the grid's points), 300 labels
    // with the latent box, width threshold 1 (a fresh set per iteration: the screening's cuts
    // would otherwise carry over).
    for solver in [SolverChoice::Dense, SolverChoice::Clarabel] {
        let name = format!("batch500_labels_box_300_{solver:?}").to_lowercase();
        let (gram, problem) = instance(300, false, true, solver);
        let mle = problem.mle().unwrap();
        let support = problem.support().unwrap().to_vec();
        let cands: Vec<_> = (0..500)
            .map(|c| {
                let col = c % gram.ncols();
                let kx =
                    DVector::from_fn(support.len(), |i, _| gram[(support[i], col)] * (1.0 - 1e-3 * (c / 400) as f64));
                problem.candidate(&kx, 1.0).unwrap()
            })
            .collect();
        // One timed solve (not a criterion sample: with clarabel one batch takes a minute or more).
        let clock = std::time::Instant::now();
        let mut set = ConfidenceSet::new(&problem, &mle, 3.0).unwrap();
        let batch = set.pointwise_bounds(&cands, BoundsQuestion::WidthAbove(1.0)).unwrap();
        eprintln!(
            "{name}: {:.2} s, {} of 500 wider than 1, {} programs solved, {:?}",
            clock.elapsed().as_secs_f64(),
            batch.wide.as_ref().map_or(0, |w| w.iter().filter(|&&x| x).count()),
            batch.solved,
            set.solve_counts()
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
