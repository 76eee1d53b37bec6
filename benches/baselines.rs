//! Timings of the scalar-feedback and random baselines of bohf-baselines (criterion medians on the
//! 2-core reference machine):
//!
//! * `gp_ts_step/n275_t2000`: one GP-TS round (factorise Σ_t, one joint draw, one O(n²) update) on
//!   275 candidates after 2000 values.
//! * `scalar_run/{gp_ts,gp_ucb}_n40_T300`: a whole run, 300 rounds on 40 candidates (the flipped 1-D
//!   Ackley grid of the PF-TS experiment), values f(x) + N(0, 1).
//! * `random_run/n40_T300`: 300 uniform random duels with BTL answers.
//!
//! Defaults throughout: Matérn-5/2 with ℓ = 0.1, noise variance 1, β = 1, v_t² = √(t + 1 + log 40).

use bohf::baselines::{GpTs, GpTsConfig, GpUcb, GpUcbConfig, RandomDuels, RandomDuelsConfig};
use bohf::core::{Answer, FiniteDomain, Link, Optimizer, Query, SearchContext, rng};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use rand::RngExt;
use std::hint::black_box;

/// −Ackley(x) in 1-D (a = 20, b = 0.2, c = 2π), rescaled ×3/13 (range about 3 on the grid).
fn flipped_ackley(x: f64) -> f64 {
    let a = -20.0 * (-0.2 * x.abs()).exp() - (2.0 * std::f64::consts::PI * x).cos().exp() + 20.0 + std::f64::consts::E;
    -a * 3.0 / 13.0
}

fn ackley_grid() -> (SearchContext, Vec<f64>) {
    let domain = FiniteDomain::linspace(-5.0, 5.0, 40).unwrap();
    let u = (0..40).map(|i| flipped_ackley(domain.coords(i).unwrap()[0])).collect();
    (SearchContext::new(domain, 300).unwrap(), u)
}

/// y = f(x) + N(0, 1) for an evaluation, y ~ Bernoulli(μ(f(x) − f(x′))) for a duel.
fn answer(u: &[f64], q: &Query, r: &mut impl rand::Rng) -> Answer {
    match q {
        Query::Evaluate(p) => {
            // Box–Muller (the root package has no rand_distr).
            let (a, b): (f64, f64) = (1.0 - r.random::<f64>(), r.random::<f64>());
            let e = (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos();
            Answer::Value(u[p.index.unwrap()] + e)
        }
        Query::Duel(p, q) => {
            Answer::Duel { first_wins: r.random_bool(Link::Logistic.mu(u[p.index.unwrap()] - u[q.index.unwrap()])) }
        }
        Query::Label(_) | Query::Choice(_) => unreachable!("no labels or choices here"),
    }
}

fn run(alg: &mut dyn Optimizer, u: &[f64], steps: usize, seed: u64) {
    let mut algo = rng::stream(seed, &[0]);
    let mut person = rng::stream(seed, &[1]);
    for _ in 0..steps {
        let q = alg.suggest(&mut algo).unwrap();
        let a = answer(u, &q, &mut person);
        alg.observe(&q, a).unwrap();
    }
}

fn gp_ts_step(c: &mut Criterion) {
    let n = 275;
    let mut r = rng::seeded(7);
    let x = DMatrix::from_fn(n, 2, |_, _| r.random::<f64>());
    let u: Vec<f64> = (0..n)
        .map(|i| 3.0 * (2.0 * std::f64::consts::PI * x[(i, 0)]).sin() * (std::f64::consts::PI * x[(i, 1)]).cos())
        .collect();
    let domain = FiniteDomain::new(x).unwrap();
    let ctx = SearchContext::new(domain.clone(), 3000).unwrap();
    let mut state = GpTs::new(&ctx, GpTsConfig::default().check().unwrap()).unwrap();
    for _ in 0..2000 {
        let q = Query::Evaluate(domain.point(r.random_range(0..n)).unwrap());
        let a = answer(&u, &q, &mut r);
        state.observe(&q, a).unwrap();
    }
    let mut g = c.benchmark_group("gp_ts_step");
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
                black_box(p.gp().mean()[0])
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn runs(c: &mut Criterion) {
    let (ctx, u) = ackley_grid();
    let mut g = c.benchmark_group("scalar_run");
    g.sample_size(10);
    g.bench_function("gp_ts_n40_T300", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            let mut alg = GpTs::new(&ctx, GpTsConfig::default().check().unwrap()).unwrap();
            run(&mut alg, &u, 300, seed);
            black_box(alg.recommend().unwrap())
        })
    });
    g.bench_function("gp_ucb_n40_T300", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            let mut alg = GpUcb::new(&ctx, GpUcbConfig::default().check().unwrap()).unwrap();
            run(&mut alg, &u, 300, seed);
            black_box(alg.recommend().unwrap())
        })
    });
    g.finish();
    let mut g = c.benchmark_group("random_run");
    g.bench_function("n40_T300", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            let mut alg = RandomDuels::new(&ctx, RandomDuelsConfig::default().check().unwrap()).unwrap();
            run(&mut alg, &u, 300, seed);
            black_box(alg.recommend().unwrap())
        })
    });
    g.finish();
}

criterion_group!(benches, gp_ts_step, runs);
criterion_main!(benches);
