//! Budgets of bohf-mrlpf and the MaxMinLCB baseline (criterion medians on the 2-core reference
//! machine, default build):
//!
//! * `mrlpf/run_T2000_n100`: one whole MR-LPF run, T = 2000 duels on 100 candidates (schedule
//!   45, 300, 775, 880: 2000 max-variance selections with O(n²) rank-one updates, 4 fits): < 0.5 s.
//! * `mrlpf/run_T2000_n100_no_elimination`: the same with β = 1000, so that M_r = X in every round
//!   (the worst case of the selection step).
//! * `mrlpf/round_batch_N880_n100`: the last round's 880 pairs computed upfront.
//! * `maxminlcb/run_T2000_n100`: one whole MaxMinLCB run, T = 2000 duels on 100 candidates (a warm
//!   Newton refit on all duels and an O(n²) max–min game after every duel): < 5 s.
//!
//! Setting: the grid of 100 points of [0, 1], the papers' defaults (Matérn-5/2, ℓ = 0.1, λ = 0.05,
//! ρ = 0.05, β = 1), BTL answers from the fixed utility u(x) = 2 sin(2πx) + 1.5 exp(−(x − 0.3)²/0.02)
//! with a fixed seed, so every iteration replays the same run.

use bohf::baselines::maxminlcb::{MaxMinLcb, MaxMinLcbConfig};
use bohf::core::{Answer, FiniteDomain, Link, Optimizer, Query, SearchContext, rng};
use bohf::mrlpf::{InitialSigma, MrLpf, MrLpfConfig, max_variance_batch};
use criterion::{Criterion, criterion_group, criterion_main};
use rand::RngExt;
use std::hint::black_box;
use std::time::Duration;

const N: usize = 100;
const T: usize = 2000;

fn context() -> SearchContext {
    SearchContext::new(FiniteDomain::linspace(0.0, 1.0, N).unwrap(), T).unwrap()
}

fn utility() -> Vec<f64> {
    (0..N)
        .map(|i| {
            let x = i as f64 / (N - 1) as f64;
            2.0 * (2.0 * std::f64::consts::PI * x).sin() + 1.5 * (-(x - 0.3).powi(2) / 0.02).exp()
        })
        .collect()
}

/// T suggest/observe steps with BTL answers; returns the recommended candidate.
fn run(alg: &mut dyn Optimizer, u: &[f64], steps: usize) -> usize {
    let mut answers = rng::seeded(2024);
    let mut alg_rng = rng::seeded(7);
    for _ in 0..steps {
        let q = alg.suggest(&mut alg_rng).unwrap();
        let Query::Duel(a, b) = &q else { panic!("not a duel") };
        let (i, j) = (a.index.unwrap(), b.index.unwrap());
        let first_wins = answers.random::<f64>() < Link::Logistic.mu(u[i] - u[j]);
        alg.observe(&q, Answer::Duel { first_wins }).unwrap();
    }
    alg.recommend().unwrap().index.unwrap()
}

fn mrlpf(c: &mut Criterion) {
    let ctx = context();
    let u = utility();
    let mut group = c.benchmark_group("mrlpf");
    group.sample_size(20);
    group.bench_function("run_T2000_n100", |b| {
        b.iter(|| {
            let mut alg = MrLpf::new(&ctx, MrLpfConfig::default().check().unwrap()).unwrap();
            black_box(run(&mut alg, &u, T))
        })
    });
    // Worst case: β so wide that nothing is eliminated, every round selects among all 100² pairs.
    let wide = MrLpfConfig { beta: bohf_core::WidthSchedule::Constant { value: 1e3 }, ..Default::default() };
    group.bench_function("run_T2000_n100_no_elimination", |b| {
        b.iter(|| {
            let mut alg = MrLpf::new(&ctx, wide.clone().check().unwrap()).unwrap();
            black_box(run(&mut alg, &u, T))
        })
    });
    let alg = MrLpf::new(&ctx, MrLpfConfig::default().check().unwrap()).unwrap();
    let active: Vec<usize> = (0..N).collect();
    group.bench_function("round_batch_N880_n100", |b| {
        b.iter(|| black_box(max_variance_batch(alg.base_gram(), &active, 0.05, 880, InitialSigma::Prior).unwrap()))
    });
    group.finish();
}

fn maxminlcb(c: &mut Criterion) {
    let ctx = context();
    let u = utility();
    let mut group = c.benchmark_group("maxminlcb");
    group.sample_size(10).measurement_time(Duration::from_secs(40));
    group.bench_function("run_T2000_n100", |b| {
        b.iter(|| {
            let mut alg = MaxMinLcb::new(&ctx, MaxMinLcbConfig::default().check().unwrap()).unwrap();
            black_box(run(&mut alg, &u, T))
        })
    });
    group.finish();
}

criterion_group!(benches, mrlpf, maxminlcb);
criterion_main!(benches);
