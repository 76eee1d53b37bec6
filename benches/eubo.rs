//! Budgets of EUBO and qEUBO on the Laplace preference GP (bohf-eubo; issue 15), criterion medians:
//!
//! * `eubo/step_t100_d2`: one EUBO step on the box [0, 1]² after 100 answered duels: the
//!   suggestion (multistart L-BFGS of the closed-form EUBO over the 4-D product box, default
//!   `box_search`) and the refit after its answer (hyperparameters by maximum Laplace evidence,
//!   warm-started, as `refit_every = 1`). Target < 20 ms.
//! * `eubo/acquisition_t100_d2`: the suggestion alone.
//! * `eubo/refit_t100_d2`: the refit alone (observe of the 101st duel).
//! * `qeubo/acquisition_q4_d6`: the qEUBO search for q = 4 options in [0, 1]⁶ (24-D product box,
//!   256 base samples, default multistart search) on a Laplace GP fitted to 100 duels. Target
//!   < 100 ms for a step: see `qeubo/step_q4_d6`.
//! * `qeubo/step_q4_d6`: one qEUBO step (q = 4, [0, 1]⁶) of the algorithm after the same 100 duels:
//!   the suggestion (fresh base samples, the same search) and the refit of the hyperparameters after
//!   the answered best-of-4 choice (the option with the largest u wins). Target < 100 ms.
//!
//! Data: 100 uniformly random duels answered by a probit comparison of u(x) = sin(3 x₀) + x₁²
//! (2-D) or u(x) = Σ_j sin(3 x_j) (6-D) with noise scale 0.3; fixed seeds.
//!
//! Medians on the loaded 2-core machine: see docs/eubo.md, "Performance" (before/after of issue 15's
//! speed work, measured in one session). Status after the second pass (load average 4–5.5):
//! `eubo/step_t100_d2` 14.2–19.8 ms (target < 20 ms met; before 31.7–33.9 ms), `eubo/refit_t100_d2`
//! 3.4–5.0 ms (before 17.1–17.5 ms), `qeubo/step_q4_d6` 88–103 ms (target < 100 ms met in 3 of 4
//! runs under load; CPU 63 ms per step). On a quiet machine (load 1–2, 2026-11-25), before → after
//! the second pass: `eubo/step_t100_d2` 22.2 → 10.0 ms, `qeubo/step_q4_d6` 77.5 → 67.5 ms.

use bohf::core::{Answer, BoxDomain, Link, Optimizer, Point, Query, SearchContext, rng};
use bohf::eubo::{Eubo, EuboConfig, Qeubo, QeuboConfig, base_samples, maximize_options_on_unit_box};
use bohf::gp::laplace::{LaplaceFitConfig, PreferenceData, fit_laplace};
use bohf::kernels::KernelKind;
use bohf::optim::MultistartConfig;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rand::RngExt;
use std::hint::black_box;

fn answer(q: &Query, u: &dyn Fn(&[f64]) -> f64, r: &mut impl rand::Rng) -> Answer {
    let Query::Duel(a, b) = q else { unreachable!() };
    Answer::Duel { first_wins: r.random::<f64>() < Link::Probit.mu((u(&a.coords) - u(&b.coords)) / 0.3) }
}

fn eubo(c: &mut Criterion) {
    let u2 = |x: &[f64]| (3.0 * x[0]).sin() + x[1] * x[1];
    let ctx = SearchContext::new(BoxDomain::cube(0.0, 1.0, 2).unwrap(), 200).unwrap();
    let config = EuboConfig { initial_duels: 100, ..EuboConfig::default() }.check().unwrap();
    let search = MultistartConfig::default().check().unwrap();
    let mut alg = Eubo::new_box(&ctx, config, search).unwrap();
    let mut r = rng::seeded(21);
    for _ in 0..100 {
        let q = alg.suggest(&mut r).unwrap();
        let a = answer(&q, &u2, &mut r);
        alg.observe(&q, a).unwrap();
    }
    let mut g = c.benchmark_group("eubo");
    g.bench_function("step_t100_d2", |b| {
        b.iter_batched(
            || (alg.clone(), rng::seeded(5)),
            |(mut a, mut r)| {
                let q = a.suggest(&mut r).unwrap();
                let ans = answer(&q, &u2, &mut r);
                a.observe(&q, ans).unwrap();
                black_box(a)
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("acquisition_t100_d2", |b| {
        b.iter_batched(
            || (alg.clone(), rng::seeded(5)),
            |(mut a, mut r)| black_box(a.suggest(&mut r).unwrap()),
            BatchSize::SmallInput,
        )
    });
    let mut pending = alg.clone();
    let mut r5 = rng::seeded(5);
    let q = pending.suggest(&mut r5).unwrap();
    let ans = answer(&q, &u2, &mut r5);
    g.bench_function("refit_t100_d2", |b| {
        b.iter_batched(
            || pending.clone(),
            |mut a| {
                a.observe(&q, ans).unwrap();
                black_box(a)
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
    eprintln!("EUBO after 100 duels: kernel {:?}, last step {:?}", alg.engine().kernel(), pending.engine().last_step());

    // qEUBO, q = 4, 6-D.
    let u6 = |x: &[f64]| x.iter().map(|v| (3.0 * v).sin()).sum::<f64>();
    let mut r = rng::seeded(23);
    let duels: Vec<_> = (0..100)
        .map(|_| {
            let a: Vec<f64> = (0..6).map(|_| r.random::<f64>()).collect();
            let b: Vec<f64> = (0..6).map(|_| r.random::<f64>()).collect();
            let w = r.random::<f64>() < Link::Probit.mu((u6(&a) - u6(&b)) / 0.3);
            (a, b, w)
        })
        .collect();
    let data = PreferenceData::from_points(&duels, 1e-9).unwrap();
    let cfg = LaplaceFitConfig::default().check().unwrap();
    let gp = fit_laplace(&cfg, &cfg.start_kernel(KernelKind::Se, 6).unwrap(), &data).unwrap().model;
    let z = base_samples(4, 256, &mut rng::seeded(3));
    let search = MultistartConfig::default();
    let mut g = c.benchmark_group("qeubo");
    g.bench_function("acquisition_q4_d6", |b| {
        b.iter_batched(
            || rng::seeded(9),
            |mut r| black_box(maximize_options_on_unit_box(&gp, 4, Some(&z), &search, &mut r).unwrap()),
            BatchSize::SmallInput,
        )
    });
    // One qEUBO step as the algorithm takes it: after the same 100 duels (fed as answered duels),
    // the suggestion of q = 4 options (fresh base samples from the step's RNG) and the refit of the
    // hyperparameters after the answered best-of-4 choice (the option with the largest u6 wins).
    let ctx6 = SearchContext::new(BoxDomain::cube(0.0, 1.0, 6).unwrap(), 200).unwrap();
    let qcfg = QeuboConfig { initial_duels: 100, q: 4, ..QeuboConfig::default() }.check().unwrap();
    let mut qalg = Qeubo::new_box(&ctx6, qcfg, MultistartConfig::default().check().unwrap()).unwrap();
    for (a, b, w) in &duels {
        let q = Query::Duel(Point::continuous(a.clone()), Point::continuous(b.clone()));
        qalg.observe(&q, Answer::Duel { first_wins: *w }).unwrap();
    }
    g.bench_function("step_q4_d6", |b| {
        b.iter_batched(
            || (qalg.clone(), rng::seeded(9)),
            |(mut a, mut r)| {
                let q = a.suggest(&mut r).unwrap();
                let Query::Choice(options) = &q else { unreachable!() };
                let utils: Vec<f64> = options.iter().map(|p| u6(&p.coords)).collect();
                let index = (0..utils.len()).fold(0, |b, i| if utils[i] > utils[b] { i } else { b });
                a.observe(&q, Answer::Choice { index }).unwrap();
                black_box(a)
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
    let best = maximize_options_on_unit_box(&gp, 4, Some(&z), &search, &mut rng::seeded(9)).unwrap();
    eprintln!("qEUBO q = 4, 6-D: value {}, evaluations {}", best.value, best.evaluations);
}

criterion_group!(benches, eubo);
criterion_main!(benches);
