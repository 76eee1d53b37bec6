//! Budgets of the Laplace preference GP (bohf-gp `laplace`), criterion medians on the 2-core
//! reference machine (issue 15):
//!
//! * `laplace/fit_hyper_t100_d2`: [`fit_laplace`] with the default (robust) config — evidence-based
//!   ARD lengthscales and outputscale from the prior-mode start — on 100 duels in [0, 1]²: < 10 ms.
//!   (BoTorch's `PairwiseGP` refit takes 0.25–0.3 s per step with 30 duels on this machine.)
//! * `laplace/fit_hyper_t100_d2_incumbent`: the same fit on 100 duels as a BO loop makes them (each
//!   new point against the best so far: 101 distinct points, 100 pairs).
//! * `laplace/map_t100_d2`: one Newton MAP at fixed hyperparameters on the same data.
//! * `laplace/evidence_grad_t100_d2`: one MAP + log evidence + its gradient (one objective
//!   evaluation of the fit).
//!
//! Data: 100 duels between uniformly random points of [0, 1]² (200 distinct points), answered by a
//! probit comparison of u(x) = sin(3 x₀) + x₁² with noise scale 0.3; fixed seed.
//!
//! Status (issue 15, docs/gp.md, "Speed"): on a quiet machine (load 1–2, 2026-11-25)
//! `fit_hyper_t100_d2` 10.07 ms before the second pass, 7.49 / 8.07 ms after: the < 10 ms target is
//! met. Under load 4–5.5: 14.3–15.0 ms before, 9.1–12.4 ms after (CPU 8.6 ms per fit).

use bohf::core::{Link, rng};
use bohf::gp::laplace::{LaplaceConfig, LaplaceFitConfig, LaplacePreferenceGp, PreferenceData, fit_laplace};
use bohf::kernels::KernelKind;
use criterion::{Criterion, criterion_group, criterion_main};
use rand::RngExt;
use std::hint::black_box;

fn duels(t: usize, seed: u64) -> PreferenceData {
    let mut r = rng::seeded(seed);
    let u = |x: &[f64]| (3.0 * x[0]).sin() + x[1] * x[1];
    let duels: Vec<_> = (0..t)
        .map(|_| {
            let a = vec![r.random::<f64>(), r.random::<f64>()];
            let b = vec![r.random::<f64>(), r.random::<f64>()];
            let w = r.random::<f64>() < Link::Probit.mu((u(&a) - u(&b)) / 0.3);
            (a, b, w)
        })
        .collect();
    PreferenceData::from_points(&duels, 1e-9).unwrap()
}

/// t duels as a BO loop makes them: each new point of [0, 1]² against the best point so far (by
/// u), answered as in [`duels`]; t + 1 distinct points.
fn incumbent_duels(t: usize, seed: u64) -> PreferenceData {
    let mut r = rng::seeded(seed);
    let u = |x: &[f64]| (3.0 * x[0]).sin() + x[1] * x[1];
    let mut best = vec![r.random::<f64>(), r.random::<f64>()];
    let duels: Vec<_> = (0..t)
        .map(|_| {
            let a = vec![r.random::<f64>(), r.random::<f64>()];
            let w = r.random::<f64>() < Link::Probit.mu((u(&a) - u(&best)) / 0.3);
            let duel = (a.clone(), best.clone(), w);
            if u(&a) > u(&best) {
                best = a;
            }
            duel
        })
        .collect();
    PreferenceData::from_points(&duels, 1e-9).unwrap()
}

fn laplace(c: &mut Criterion) {
    let data = duels(100, 17);
    let cfg = LaplaceFitConfig::default().check().unwrap();
    let start = cfg.start_kernel(KernelKind::Se, 2).unwrap();
    let mut g = c.benchmark_group("laplace");
    g.bench_function("fit_hyper_t100_d2", |b| b.iter(|| black_box(fit_laplace(&cfg, &start, &data).unwrap())));
    let fitted = fit_laplace(&cfg, &start, &data).unwrap();
    let kernel = fitted.model.kernel().clone();
    let lc = LaplaceConfig::default().check().unwrap();
    g.bench_function("map_t100_d2", |b| {
        b.iter(|| black_box(LaplacePreferenceGp::fit(kernel.clone(), data.clone(), &lc).unwrap()))
    });
    g.bench_function("evidence_grad_t100_d2", |b| {
        b.iter(|| {
            let gp = LaplacePreferenceGp::fit(kernel.clone(), data.clone(), &lc).unwrap();
            black_box((gp.log_evidence(), gp.log_evidence_gradient().unwrap()))
        })
    });
    let loop_data = incumbent_duels(100, 17);
    g.bench_function("fit_hyper_t100_d2_incumbent", |b| {
        b.iter(|| black_box(fit_laplace(&cfg, &start, &loop_data).unwrap()))
    });
    g.finish();
    eprintln!("fit: outcome {:?}, kernel {:?}, objective {}", fitted.outcome, fitted.model.kernel(), fitted.objective);
}

criterion_group!(benches, laplace);
criterion_main!(benches);
