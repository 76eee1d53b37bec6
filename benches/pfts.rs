//! Budgets of bohf-pfts (criterion medians on the 2-core reference machine):
//!
//! * `pfts_step/n275_t2000`: one PF-TS round (suggest + observe: factorise Ŝ, two joint draws, then
//!   the O(n²) posterior update and the warm-started Newton refit) on 275 candidates after 2000
//!   duels: < 50 ms (issue 3).
//! * `pfts_run/n40_T300`: a whole PF-TS run, 300 rounds on 40 candidates from the prior, BTL answers
//!   on the flipped 1-D Ackley function: the PF-TS Ackley experiment is 30 such runs per method.
//!
//! Defaults throughout: Matérn-5/2 with ℓ = 0.1, λ = 0.05, ρ = 0.05, v_t² = √(t + 1 + log 40).

use bohf::core::{Answer, FiniteDomain, Link, Optimizer, Query, SearchContext, rng};
use bohf::pfts::{PfTs, PfTsConfig};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use rand::RngExt;
use std::hint::black_box;

/// u(x) = 3 sin(2π x₀)·cos(π x₁): a smooth utility on [0, 1]² for the BTL answers.
fn utility_2d(x: &DMatrix<f64>) -> Vec<f64> {
    (0..x.nrows())
        .map(|i| 3.0 * (2.0 * std::f64::consts::PI * x[(i, 0)]).sin() * (std::f64::consts::PI * x[(i, 1)]).cos())
        .collect()
}

/// −Ackley(x) in 1-D (a = 20, b = 0.2, c = 2π), rescaled ×3/13 so that its range on the grid is
/// about 3 (BTL answers are then informative rather than deterministic).
fn flipped_ackley(x: f64) -> f64 {
    let a = -20.0 * (-0.2 * x.abs()).exp() - (2.0 * std::f64::consts::PI * x).cos().exp() + 20.0 + std::f64::consts::E;
    -a * 3.0 / 13.0
}

fn answer(u: &[f64], q: &Query, r: &mut impl rand::Rng) -> Answer {
    let Query::Duel(p, q) = q else { unreachable!("PF-TS asks duels") };
    let (i, j) = (p.index.unwrap(), q.index.unwrap());
    Answer::Duel { first_wins: r.random_bool(Link::Logistic.mu(u[i] - u[j])) }
}

fn step(c: &mut Criterion) {
    let n = 275;
    let mut r = rng::seeded(7);
    let x = DMatrix::from_fn(n, 2, |_, _| r.random::<f64>());
    let u = utility_2d(&x);
    let domain = FiniteDomain::new(x).unwrap();
    let ctx = SearchContext::new(domain.clone(), 3000).unwrap();
    let history: Vec<(Query, Answer)> = (0..2000)
        .map(|_| {
            let q =
                Query::Duel(domain.point(r.random_range(0..n)).unwrap(), domain.point(r.random_range(0..n)).unwrap());
            let a = answer(&u, &q, &mut r);
            (q, a)
        })
        .collect();
    let mut state = PfTs::new(&ctx, PfTsConfig::default().check().unwrap()).unwrap();
    state.observe_batch(&history).unwrap();
    let mut g = c.benchmark_group("pfts_step");
    g.sample_size(20);
    g.bench_function("n275_t2000", |b| {
        let mut algo = rng::seeded(1);
        let mut person = rng::seeded(2);
        b.iter_batched_ref(
            || state.clone(),
            |p| {
                let q = p.suggest(&mut algo).unwrap();
                let a = answer(&u, &q, &mut person);
                p.observe(&q, a).unwrap();
                black_box(p.utility()[0])
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn run(c: &mut Criterion) {
    let domain = FiniteDomain::linspace(-5.0, 5.0, 40).unwrap();
    let u: Vec<f64> = (0..40).map(|i| flipped_ackley(domain.coords(i).unwrap()[0])).collect();
    let ctx = SearchContext::new(domain, 300).unwrap();
    let mut g = c.benchmark_group("pfts_run");
    g.sample_size(10);
    g.bench_function("n40_T300", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            let mut p = PfTs::new(&ctx, PfTsConfig::default().check().unwrap()).unwrap();
            let mut algo = rng::stream(seed, &[0]);
            let mut person = rng::stream(seed, &[1]);
            for _ in 0..300 {
                let q = p.suggest(&mut algo).unwrap();
                let a = answer(&u, &q, &mut person);
                p.observe(&q, a).unwrap();
            }
            black_box(p.recommend().unwrap())
        })
    });
    g.finish();
}

criterion_group!(benches, step, run);
criterion_main!(benches);
