//! Benchmarks of bohf-infogain.
//!
//! Budget: greedy Γ(T) on dueling pairs with n = 100 candidates (Matérn-5/2, ℓ = 0.1) and T = 200 under
//! 20 ms (median). Run with `cargo bench --bench infogain`.

use bohf::core::rng;
use bohf::infogain::{PairKernel, PosteriorVariances, greedy_pairs, greedy_points, information_gain};
use bohf::kernels::{Kernel, Stationary, dueling_gram};
use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use rand::RngExt;
use std::hint::black_box;

/// The noise λκ of the papers' confidence width with λ = 0.05 and κ_r = 6 (MR-LPF rounds r ≥ 2).
const RHO: f64 = 0.3;

fn grid_1d(n: usize) -> DMatrix<f64> {
    DMatrix::from_fn(n, 1, |i, _| i as f64 / (n - 1) as f64)
}

fn random_2d(n: usize, seed: u64) -> DMatrix<f64> {
    let mut r = rng::seeded(seed);
    DMatrix::from_fn(n, 2, |_, _| r.random::<f64>())
}

fn matern(x: &DMatrix<f64>) -> DMatrix<f64> {
    Stationary::matern52(0.1).unwrap().gram(x).unwrap()
}

fn greedy(c: &mut Criterion) {
    let base_grid = matern(&grid_1d(100));
    let base_2d = matern(&random_2d(100, 7));
    let mut g = c.benchmark_group("greedy_gamma");
    g.bench_function("pairs_dueling_n100_T200_grid1d", |b| {
        b.iter(|| greedy_pairs(black_box(&base_grid), PairKernel::Dueling, RHO, 200).unwrap())
    });
    g.bench_function("pairs_dueling_n100_T200_random2d", |b| {
        b.iter(|| greedy_pairs(black_box(&base_2d), PairKernel::Dueling, RHO, 200).unwrap())
    });
    g.bench_function("pairs_additive_n100_T200_random2d", |b| {
        b.iter(|| greedy_pairs(black_box(&base_2d), PairKernel::Additive, RHO, 200).unwrap())
    });
    g.bench_function("points_n100_T200_random2d", |b| b.iter(|| greedy_points(black_box(&base_2d), RHO, 200).unwrap()));
    let base_big = matern(&random_2d(1000, 8));
    g.bench_function("points_n1000_T200_random2d", |b| {
        b.iter(|| greedy_points(black_box(&base_big), RHO, 200).unwrap())
    });
    g.finish();
}

fn realised(c: &mut Criterion) {
    // The realised gain of the 200 greedy pairs, by log-det of the explicit dueling Gram and by the
    // utility-space chain rule.
    let base = matern(&random_2d(100, 7));
    let pairs = greedy_pairs(&base, PairKernel::Dueling, RHO, 200).unwrap().chosen().to_vec();
    let gram = dueling_gram(&base, &pairs, &pairs).unwrap();
    let mut g = c.benchmark_group("realised_gain");
    g.bench_function("log_det_T200", |b| b.iter(|| information_gain(black_box(&gram), RHO).unwrap()));
    g.bench_function("chain_utility_n100_T200", |b| {
        b.iter(|| PosteriorVariances::for_pairs(black_box(&base), PairKernel::Dueling, &pairs, RHO).unwrap())
    });
    g.finish();
}

criterion_group!(benches, greedy, realised);
criterion_main!(benches);
