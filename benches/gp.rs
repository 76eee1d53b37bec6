//! Budgets of bohf-gp (criterion medians on the 2-core reference machine):
//!
//! * `sigma_all_pairs/n100_t300`: Ŝ from scratch + σ on all n² pairs, n = 100, t = 300: < 5 ms.
//! * `sigma_all_pairs/n275_t2000`: the same at Yelp size, n = 275, t = 2000: < 50 ms.
//! * `newton_fit/{theta_norm,rkhs_norm}_n100_t2000`: one kernel logistic fit, n = 100, t = 2000
//!   duels with BTL labels on a smooth utility: < 100 ms each.
//!
//! * `hyper/log_ml_grad_n100_d8`: log marginal likelihood + analytic gradient, n = 100, d = 8
//!   ARD: < 2 ms.
//! * `hyper/fit_n100_d4`: a full multistart hyperparameter fit (default config), n = 100, d = 4:
//!   < 50 ms.
//!
//! Kernel: Matérn-5/2 with ℓ = 0.1 (the papers' setting), on a 1-D grid (n = 100) or uniform random
//! points in [0, 1]² (n = 275); random duels and labels from a fixed seed.

use bohf::core::{Duel, Link, rng};
use bohf::gp::{CandidateGp, DuelingPosterior, Duels, KernelLogisticConfig, Regulariser};
use bohf::kernels::{Kernel, Stationary};
use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use rand::RngExt;
use std::hint::black_box;

/// Candidates: a 1-D grid for n = 100, random points in [0,1]² otherwise; returns (points, Gram).
fn candidates(n: usize) -> (DMatrix<f64>, DMatrix<f64>) {
    let x = if n == 100 {
        DMatrix::from_fn(n, 1, |i, _| i as f64 / (n - 1) as f64)
    } else {
        let mut r = rng::seeded(7);
        DMatrix::from_fn(n, 2, |_, _| r.random::<f64>())
    };
    let k = Stationary::matern52(0.1).unwrap().gram(&x).unwrap();
    (x, k)
}

/// t uniformly random duels with labels from BTL on u(x) = 3 sin(2π x₀)·cos(π x₁) (x₁ = 0 in 1-D).
fn duels(x: &DMatrix<f64>, t: usize, seed: u64) -> Duels {
    let n = x.nrows();
    let u = |i: usize| {
        let x1 = if x.ncols() > 1 { x[(i, 1)] } else { 0.0 };
        3.0 * (2.0 * std::f64::consts::PI * x[(i, 0)]).sin() * (std::f64::consts::PI * x1).cos()
    };
    let mut r = rng::seeded(seed);
    let mut d = Duels::new(n);
    for _ in 0..t {
        let (i, j) = (r.random_range(0..n), r.random_range(0..n));
        let wins = r.random_bool(Link::Logistic.mu(u(i) - u(j)));
        d.push(Duel::new(i, j, wins)).unwrap();
    }
    d
}

fn sigma_all_pairs(c: &mut Criterion) {
    let mut g = c.benchmark_group("sigma_all_pairs");
    for (n, t) in [(100, 300), (275, 2000)] {
        let (x, k) = candidates(n);
        let d = duels(&x, t, 1);
        g.bench_function(format!("n{n}_t{t}"), |b| {
            b.iter(|| {
                let post = DuelingPosterior::new(black_box(&k), black_box(&d), 0.05).unwrap();
                black_box(post.std_dev_matrix())
            })
        });
    }
    g.finish();
}

fn newton_fit(c: &mut Criterion) {
    let mut g = c.benchmark_group("newton_fit");
    let (x, k) = candidates(100);
    let d = duels(&x, 2000, 2);
    for (name, reg) in [("theta_norm", Regulariser::ThetaNorm), ("rkhs_norm", Regulariser::RkhsNorm)] {
        let est = KernelLogisticConfig::default().regulariser(reg).check().unwrap();
        let fit = est.fit(&k, &d).unwrap();
        eprintln!(
            "newton_fit/{name}_n100_t2000: {} Newton steps, final gradient norm {:.2e}",
            fit.iterations(),
            fit.gradient_norm()
        );
        g.bench_function(format!("{name}_n100_t2000"), |b| b.iter(|| black_box(est.fit(black_box(&k), &d).unwrap())));
    }
    g.finish();
}

fn incremental(c: &mut Criterion) {
    let mut g = c.benchmark_group("incremental");
    let (x, k) = candidates(275);
    let d = duels(&x, 300, 3);
    let post = DuelingPosterior::new(&k, &d, 0.05).unwrap();
    g.bench_function("dueling_add_duel_n275", |b| {
        b.iter_batched(
            || post.clone(),
            |mut p| {
                black_box(p.add_duel(3, 200).unwrap());
                p
            },
            criterion::BatchSize::LargeInput,
        )
    });
    let gp = CandidateGp::new(&k, 0.05).unwrap();
    g.bench_function("candidate_gp_observe_n275", |b| {
        b.iter_batched(
            || gp.clone(),
            |mut p| {
                p.observe(17, 0.3).unwrap();
                p
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

/// GP regression hyperparameters by type-II ML (`cargo bench --bench gp -- hyper`): the log
/// marginal likelihood with its analytic gradient (n = 100, d = 8 ARD, Matérn-5/2), and a full
/// multistart fit with the default config (n = 100, d = 4: start + 4 Sobol starts, ARD
/// lengthscales and noise, dimension-scaled prior, scaled inputs, standardised outputs). Data:
/// uniform points in [0, 1]^d, y = Σ_j sin(3 x_j) + x₀x₁ + 0.05·N(0, 1)-ish uniform noise.
fn hyper(c: &mut Criterion) {
    use bohf::core::BoxDomain;
    use bohf::gp::regression::hyper::{HyperFitConfig, fit_hyperparameters, log_marginal_likelihood};
    let data = |n: usize, d: usize| {
        let mut r = rng::seeded(11);
        let x = DMatrix::from_fn(n, d, |_, _| r.random::<f64>());
        let y = nalgebra::DVector::from_fn(n, |i, _| {
            (0..d).map(|j| (3.0 * x[(i, j)]).sin()).sum::<f64>()
                + x[(i, 0)] * x[(i, 1)]
                + 0.1 * (r.random::<f64>() - 0.5)
        });
        (x, y)
    };
    let mut g = c.benchmark_group("hyper");
    let (x, y) = data(100, 8);
    let k = Stationary::matern52(0.5).unwrap().with_ard(vec![0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7]).unwrap();
    g.bench_function("log_ml_grad_n100_d8", |b| {
        b.iter(|| black_box(log_marginal_likelihood(black_box(&k), &x, &y, 0.01).unwrap()))
    });
    let (x, y) = data(100, 4);
    let cfg = HyperFitConfig::default().check().unwrap();
    let domain = BoxDomain::cube(0.0, 1.0, 4).unwrap();
    let start = Stationary::matern52(0.5).unwrap();
    g.bench_function("fit_n100_d4", |b| {
        b.iter(|| black_box(fit_hyperparameters(&cfg, &start, 0.01, black_box(&x), &y, Some(&domain)).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, sigma_all_pairs, newton_fit, incremental, hyper);
criterion_main!(benches);
