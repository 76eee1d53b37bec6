//! Kernel benchmarks: the base Gram matrix of a candidate set (issue budget context: n = 1000, d = 2).

use bohf::core::rng;
use bohf::kernels::{Kernel, Stationary, dueling_gram};
use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use rand::RngExt;
use std::hint::black_box;

fn random_points(n: usize, d: usize, seed: u64) -> DMatrix<f64> {
    let mut r = rng::seeded(seed);
    DMatrix::from_fn(n, d, |_, _| r.random::<f64>())
}

fn base_gram(c: &mut Criterion) {
    let x = random_points(1000, 2, 1);
    let mut g = c.benchmark_group("base_gram");
    for (name, k) in
        [("se_n1000_d2", Stationary::se(0.1).unwrap()), ("matern52_n1000_d2", Stationary::matern52(0.1).unwrap())]
    {
        g.bench_function(name, |b| b.iter(|| black_box(k.gram(black_box(&x)).unwrap())));
    }
    g.finish();
}

fn pair_gram(c: &mut Criterion) {
    let x = random_points(100, 2, 2);
    let base = Stationary::matern52(0.1).unwrap().gram(&x).unwrap();
    let mut r = rng::seeded(3);
    let pairs: Vec<(usize, usize)> = (0..300).map(|_| (r.random_range(0..100), r.random_range(0..100))).collect();
    c.bench_function("dueling_gram/n100_t300", |b| b.iter(|| black_box(dueling_gram(&base, &pairs, &pairs).unwrap())));
}

criterion_group!(benches, base_gram, pair_gram);
criterion_main!(benches);
