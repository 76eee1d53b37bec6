//! Budgets of bohf-optim (criterion medians on the 2-core reference machine):
//!
//! * `gp_ucb_box_step/d8_t100`: one GP-UCB suggestion on the 8-D box [0, 1]⁸ after 100 observations
//!   (Matérn-5/2, ℓ = 0.5, noise 10⁻⁴, β = 2; the default multistart search: 256 Sobol + 256 uniform
//!   points screened, 5 best + the incumbent refined by projected L-BFGS): < 30 ms (issue 12).
//!   Measured: see `docs/optim.md`.
//! * `minimize_bounded/rosenbrock_d8`: projected L-BFGS on the 8-D Rosenbrock function over
//!   [−2, 2]⁸ from −1.2·1, for the local solver alone.

use bohf::baselines::{GpUcbBox, GpUcbConfig};
use bohf::core::{Answer, BoxDomain, Optimizer, Point, Query, Result, rng};
use bohf::kernels::{KernelKind, KernelSpec};
use bohf::optim::{LocalConfig, MultistartConfig, minimize_bounded};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn objective(x: &[f64]) -> f64 {
    x.iter().map(|v| -(v - 0.3).powi(2) + 0.1 * (5.0 * v).sin()).sum()
}

fn gp_ucb_step(c: &mut Criterion) {
    let d = 8;
    let dom = BoxDomain::cube(0.0, 1.0, d).unwrap();
    let kernel = KernelSpec { kind: KernelKind::Matern52, lengthscale: Some(0.5), lengthscales: None, variance: None };
    let cfg =
        GpUcbConfig { kernel, noise: 1e-4, beta: 2.0, hyperparameters: None, initial_budget: 0.0 }.check().unwrap();
    let mut alg = GpUcbBox::new(dom.clone(), cfg, MultistartConfig::default().check().unwrap()).unwrap();
    let mut r = rng::seeded(1);
    for _ in 0..100 {
        let x = dom.sample(&mut r);
        let y = objective(&x);
        alg.observe(&Query::Evaluate(Point::continuous(x)), Answer::Value(y)).unwrap();
    }
    let mut g = c.benchmark_group("gp_ucb_box_step");
    g.sample_size(20);
    let mut seed = 0;
    g.bench_function("d8_t100", |b| {
        b.iter(|| {
            seed += 1;
            black_box(alg.maximize_ucb(&mut rng::seeded(seed)).unwrap())
        })
    });
    g.finish();
}

fn rosenbrock(x: &[f64], g: &mut [f64]) -> Result<f64> {
    g.iter_mut().for_each(|v| *v = 0.0);
    let mut f = 0.0;
    for i in 0..x.len() - 1 {
        let (a, b) = (1.0 - x[i], x[i + 1] - x[i] * x[i]);
        f += a * a + 100.0 * b * b;
        g[i] += -2.0 * a - 400.0 * x[i] * b;
        g[i + 1] += 200.0 * b;
    }
    Ok(f)
}

fn local(c: &mut Criterion) {
    let cfg = LocalConfig { max_iterations: 2000, ..LocalConfig::default() };
    let (lo, hi, x0) = (vec![-2.0; 8], vec![2.0; 8], vec![-1.2; 8]);
    c.bench_function("minimize_bounded/rosenbrock_d8", |b| {
        b.iter(|| black_box(minimize_bounded(rosenbrock, &x0, &lo, &hi, &cfg).unwrap()))
    });
}

criterion_group!(benches, gp_ucb_step, local);
criterion_main!(benches);
