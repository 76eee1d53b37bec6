//! Benchmarks of bohf-confidence at POP-BO's Table-2 size: t = 30 duels chained as in POP-BO
//! (x′_t = x_{t−1}), a 20×20 candidate grid on [0, 1]² (400 candidates), Matérn-5/2 with ℓ = 0.2,
//! B = 6, β = β₀√(t+1) with β₀ = 1, default tolerances.
//!
//! * `mle_t30`: the norm-constrained MLE (31 support points, 30 duels).
//! * `set_setup_t30`: building the confidence-set solver (x-independent part).
//! * `advantage_one_t30`: one optimistic advantage (POP-BO eq. (24)) at one candidate.
//! * `argmax_pruned_400_t30`: a whole POP-BO step's inner search: set setup, 400 candidates, pruned
//!   argmax (prints how many programs were solved).
//! * `argmax_all_400_t30`: the same solving all 400 programs (the unpruned reference).
//! * COBOL's many-label regime: 300 unary labels on the same grid (an expert rejecting where f is
//!   high, P(reject) = σ(2f)), latent box 3, B = 16, β = 3: `curvature_first_labels300` (a fresh
//!   set's first curvature bound, with the eigendecomposition), `curvature_point_labels300` (one
//!   point's bounds once built), and `lower_program_labels300` (one exact g_lower program, the
//!   clarabel solve the bound may spare).
//!
//!   Medians (2026-11-25, two COBOL reproductions running on the 2 cores; 215 support points, 243
//!   terms): first bound 19.8 ms, one point's bounds 41.5 µs, one g_lower program 203 ms.
//!
//! Medians measured (`--quick`, 2 cores shared with concurrent builds, load ≈ 5): MLE 6.7 ms
//! (39 interior-point iterations at tolerance 1e-11), set setup 0.28 ms, one advantage 2.6 ms
//! (19 iterations; clarabel's own time 1.6 ms), pruned argmax 28 ms (8 of 400 programs solved),
//! all 400 programs 1.34 s.

use bohf::confidence::{Candidate, ConfidenceConfig, ConfidenceProblem, ConfidenceSet, Observation};
use bohf::core::{Duel, rng};
use bohf::kernels::{Kernel, Stationary};
use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use rand::RngExt;
use std::hint::black_box;

struct Setup {
    base: DMatrix<f64>,
    anchor: usize,
    reference: usize,
    observations: Vec<Observation>,
    config: ConfidenceConfig,
    beta: f64,
}

fn setup(t: usize) -> Setup {
    let side = 20;
    let x = DMatrix::from_fn(side * side, 2, |i, c| if c == 0 { (i % side) as f64 } else { (i / side) as f64 } / 19.0);
    let base = Stationary::matern52(0.2).unwrap().gram(&x).unwrap();
    // A smooth utility scaled to a few logits: f(x) = 2 sin(3x₀) cos(2x₁) + x₀.
    let f = |i: usize| 2.0 * (3.0 * x[(i, 0)]).sin() * (2.0 * x[(i, 1)]).cos() + x[(i, 0)];
    let mut r = rng::seeded(11);
    let mut chain = vec![r.random_range(0..side * side)];
    let mut observations = Vec::new();
    for _ in 0..t {
        let prev = *chain.last().unwrap();
        let next = r.random_range(0..side * side);
        let p = 1.0 / (1.0 + (-(f(next) - f(prev))).exp());
        observations.push(Observation::Duel(Duel::new(next, prev, r.random::<f64>() < p)));
        chain.push(next);
    }
    let config = ConfidenceConfig::with_norm_bound(6.0);
    let beta = bohf::confidence::beta_at(&bohf::core::WidthSchedule::SqrtTPlusOne { scale: 1.0 }, t, 6.0).unwrap();
    Setup { base, anchor: chain[0], reference: *chain.last().unwrap(), observations, config, beta }
}

fn bench(c: &mut Criterion) {
    let s = setup(30);
    let problem = ConfidenceProblem::on_candidates(&s.base, &[s.anchor], &s.observations, &s.config).unwrap();
    let mle = problem.mle().unwrap();
    let reference = problem.support_position(s.reference).unwrap();
    let all: Vec<usize> = (0..400).collect();
    let cands: Vec<Candidate> = problem.candidates_from_gram(&s.base, &all).unwrap();
    {
        let mut set = ConfidenceSet::new(&problem, &mle, s.beta).unwrap();
        let search = set.maximise_advantage(&cands, reference, Some(&cands[s.reference])).unwrap();
        let one = set.optimistic_advantage(&cands[137], reference).unwrap();
        eprintln!(
            "one advantage: {} iterations, {:.2e} s clarabel time; MLE {} iterations",
            one.info.iterations, one.info.solve_time, mle.info.iterations
        );
        eprintln!(
            "pruned argmax at t = 30: {} of 400 programs solved, value {:.4} at candidate {}",
            search.solved, search.value, search.best
        );
    }
    let mut g = c.benchmark_group("confidence");
    g.sample_size(20);
    g.bench_function("mle_t30", |b| b.iter(|| black_box(problem.mle().unwrap())));
    g.bench_function("set_setup_t30", |b| b.iter(|| black_box(ConfidenceSet::new(&problem, &mle, s.beta).unwrap())));
    let mut set = ConfidenceSet::new(&problem, &mle, s.beta).unwrap();
    g.bench_function("advantage_one_t30", |b| {
        b.iter(|| black_box(set.optimistic_advantage(&cands[137], reference).unwrap().value))
    });
    g.bench_function("argmax_pruned_400_t30", |b| {
        b.iter(|| {
            let cands = problem.candidates_from_gram(&s.base, &all).unwrap();
            let mut set = ConfidenceSet::new(&problem, &mle, s.beta).unwrap();
            black_box(set.maximise_advantage(&cands, reference, Some(&cands[s.reference])).unwrap().value)
        })
    });
    // COBOL's many-label regime (module docs).
    let mut r = rng::seeded(5);
    let labels: Vec<Observation> = (0..300)
        .map(|_| {
            let i = r.random_range(0..400usize);
            let f = 2.0 * (3.0 * (i % 20) as f64 / 19.0).sin() * (2.0 * (i / 20) as f64 / 19.0).cos();
            Observation::Label { point: i, positive: r.random::<f64>() < 1.0 / (1.0 + (-2.0 * f).exp()) }
        })
        .collect();
    let config = ConfidenceConfig { latent_box: Some(3.0), nugget: 1e-6, ..ConfidenceConfig::with_norm_bound(16.0) };
    let many = ConfidenceProblem::on_candidates(&s.base, &[], &labels, &config).unwrap();
    let many_mle = many.mle().unwrap();
    let many_cands = many.candidates_from_gram(&s.base, &all).unwrap();
    eprintln!("labels300: {} support points, {} terms", many.len(), many.distinct_terms());
    g.bench_function("curvature_first_labels300", |b| {
        b.iter(|| {
            let mut set = ConfidenceSet::new(&many, &many_mle, 3.0).unwrap();
            black_box(set.curvature_pointwise_bounds(&many_cands[37]).unwrap())
        })
    });
    let mut many_set = ConfidenceSet::new(&many, &many_mle, 3.0).unwrap();
    many_set.curvature_pointwise_bounds(&many_cands[0]).unwrap();
    g.bench_function("curvature_point_labels300", |b| {
        b.iter(|| black_box(many_set.curvature_pointwise_bounds(&many_cands[37]).unwrap()))
    });
    g.bench_function("lower_program_labels300", |b| {
        b.iter(|| black_box(many_set.lower_bound(&many_cands[37]).unwrap().value))
    });
    g.sample_size(10);
    g.bench_function("argmax_all_400_t30", |b| {
        b.iter(|| {
            let mut set = ConfidenceSet::new(&problem, &mle, s.beta).unwrap();
            let mut best = f64::NEG_INFINITY;
            for c in &cands {
                best = best.max(set.optimistic_advantage(c, reference).unwrap().value);
            }
            black_box(best)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
