//! Tests of the preference model against brute-force pair-space (t×t) computations.

use super::*;
use approx::assert_relative_eq;
use bohf_core::{Duel, Error, Link, SolverStatus, argmax_lowest_by, rng};
use bohf_kernels::{Kernel, Stationary, dueling_gram};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use rand::RngExt;

/// Base Gram of an n-point grid on [0, 1].
fn grid_gram(n: usize, kernel: &Stationary) -> DMatrix<f64> {
    let x = DMatrix::from_fn(n, 1, |i, _| i as f64 / (n - 1) as f64);
    kernel.gram(&x).unwrap()
}

/// t random duels (self-duels and repeats possible) with BTL labels on the utility 1.5·sin(3πx).
fn random_duels(n: usize, t: usize, seed: u64) -> Duels {
    let mut r = rng::seeded(seed);
    let u = |i: usize| 1.5 * (3.0 * std::f64::consts::PI * i as f64 / (n - 1) as f64).sin();
    let mut d = Duels::new(n);
    for _ in 0..t {
        let i = r.random_range(0..n);
        let j = r.random_range(0..n);
        let wins = r.random_bool(Link::Logistic.mu(u(i) - u(j)));
        d.push(Duel::new(i, j, wins)).unwrap();
    }
    d
}

/// Brute-force θ-space quantities with the t×t dueling Gram K^D (from bohf-kernels).
struct Brute {
    kd: DMatrix<f64>,
    y: Vec<bool>,
    link: Link,
    lambda: f64,
    s: f64,
    rkhs: bool,
}

impl Brute {
    fn new(k: &DMatrix<f64>, duels: &Duels, cfg: &KernelLogisticConfig) -> Self {
        let pairs = duels.pairs();
        let t = pairs.len();
        Self {
            kd: dueling_gram(k, &pairs, &pairs).unwrap(),
            y: duels.iter().map(|d| d.first_wins).collect(),
            link: cfg.link,
            lambda: cfg.lambda,
            s: if cfg.scale_by_n { 1.0 / t as f64 } else { 1.0 },
            rkhs: cfg.regulariser == Regulariser::RkhsNorm,
        }
    }

    fn loss(&self, theta: &DVector<f64>) -> f64 {
        let f = &self.kd * theta;
        let data: f64 = (0..f.len()).map(|k| duel_nll(self.link, self.y[k], f[k])).sum();
        let reg = if self.rkhs { theta.dot(&(&self.kd * theta)) } else { theta.norm_squared() };
        self.s * data + 0.5 * self.lambda * reg
    }

    /// (s ℓ′, s ℓ″) at θ.
    fn derivs(&self, theta: &DVector<f64>) -> (DVector<f64>, DVector<f64>) {
        let f = &self.kd * theta;
        let l: Vec<_> = (0..f.len()).map(|k| duel_loss(self.link, self.y[k], f[k])).collect();
        (
            DVector::from_iterator(f.len(), l.iter().map(|v| self.s * v.grad)),
            DVector::from_iterator(f.len(), l.iter().map(|v| self.s * v.curv)),
        )
    }

    /// ∇L(θ) = K^D s ℓ′ + λ θ, or K^D (s ℓ′ + λ θ).
    fn gradient(&self, theta: &DVector<f64>) -> DVector<f64> {
        let (g, _) = self.derivs(theta);
        if self.rkhs { &self.kd * (g + theta * self.lambda) } else { &self.kd * g + theta * self.lambda }
    }

    /// Damped Newton in θ-space with t×t matrices. ThetaNorm: H = K^D W K^D + λI (Cholesky).
    /// RkhsNorm: the Hessian K^D (W K^D + λI) may be singular, so use the step solving
    /// (W K^D + λI) Δ = −(s ℓ′ + λθ) (LU), a descent direction of the same loss.
    fn newton(&self) -> DVector<f64> {
        let t = self.kd.nrows();
        let mut theta = DVector::zeros(t);
        for _ in 0..200 {
            let (g, w) = self.derivs(&theta);
            let grad = self.gradient(&theta);
            if grad.norm() < 1e-12 {
                return theta;
            }
            let step = if self.rkhs {
                let jac = DMatrix::from_diagonal(&w) * &self.kd + DMatrix::identity(t, t) * self.lambda;
                jac.lu().solve(&(-(g + &theta * self.lambda))).unwrap()
            } else {
                let h = &self.kd * DMatrix::from_diagonal(&w) * &self.kd + DMatrix::identity(t, t) * self.lambda;
                h.cholesky().unwrap().solve(&(-&grad))
            };
            let l0 = self.loss(&theta);
            let mut a = 1.0;
            while self.loss(&(&theta + &step * a)) > l0 && a > 1e-12 {
                a *= 0.5;
            }
            theta += step * a;
        }
        theta
    }
}

fn configs() -> Vec<KernelLogisticConfig> {
    let mut out = Vec::new();
    for reg in [Regulariser::ThetaNorm, Regulariser::RkhsNorm] {
        for scale in [false, true] {
            for link in [Link::Logistic, Link::Probit] {
                out.push(KernelLogisticConfig::default().regulariser(reg).scale_by_n(scale).link(link));
            }
        }
    }
    out
}

#[test]
fn mle_matches_theta_space_newton() {
    // t = 25 > n = 12 with self-duels and repeats: K^D is singular, the hard case for RkhsNorm.
    let k = grid_gram(12, &Stationary::matern52(0.2).unwrap());
    let duels = random_duels(12, 25, 1);
    let d = duels.difference_matrix();
    for cfg in configs() {
        let fit = cfg.check().unwrap().fit(&k, &duels).unwrap();
        let brute = Brute::new(&k, &duels, &cfg);
        let theta_b = brute.newton();
        assert!(fit.gradient_norm() <= 1e-9 && fit.iterations() >= 1, "{cfg:?}");
        // Optimality certificate computed in θ-space with t×t matrices: the loss is convex, so a
        // vanishing gradient proves optimality. 1e-8 allows for different rounding paths.
        assert!(brute.gradient(fit.theta()).norm() < 1e-8, "{cfg:?}: {}", brute.gradient(fit.theta()).norm());
        assert_relative_eq!(fit.loss(), brute.loss(&theta_b), max_relative = 1e-11);
        assert_relative_eq!(fit.loss(), brute.loss(fit.theta()), max_relative = 1e-11);
        // The logits h_t(z_k) are unique under both regularisers. Strong convexity (modulus ≥ λ in
        // θ or in the RKHS norm) turns gradients ≤ 1e-9 into logit errors ≲ 1e-7.
        let logits_b = &brute.kd * &theta_b;
        assert!((fit.logits() - &logits_b).abs().max() < 1e-7, "{cfg:?}");
        // Utility g_t = K Dᵀ θ from the brute-force θ, differences only (g is unique up to h).
        let g_b = &k * d.transpose() * &theta_b;
        assert!((fit.utility() - &g_b).abs().max() < 1e-6, "{cfg:?}");
        assert!((fit.coefficients() - d.transpose() * fit.theta()).abs().max() < 1e-8, "{cfg:?}");
        if cfg.regulariser == Regulariser::ThetaNorm {
            // θ itself is unique: error ≤ ‖∇‖/λ ≈ 2e-8.
            assert!((fit.theta() - &theta_b).abs().max() < 1e-7, "{cfg:?}");
        }
    }
}

#[test]
fn mle_matches_gradient_descent_on_a_tiny_problem() {
    // A third, unrelated method: fixed-step gradient descent to ‖∇L‖ < 1e-11, for ThetaNorm
    // (strongly convex with modulus λ, so plain GD converges linearly).
    let k = grid_gram(6, &Stationary::se(0.3).unwrap());
    let duels = random_duels(6, 8, 5);
    let cfg = KernelLogisticConfig::default();
    let brute = Brute::new(&k, &duels, &cfg);
    // Step 1/L with L ≥ ‖K^D‖²/4 + λ bounds the logistic Hessian.
    let norm = brute.kd.clone().symmetric_eigen().eigenvalues.amax();
    let step = 1.0 / (norm * norm / 4.0 + cfg.lambda);
    let mut theta = DVector::zeros(8);
    for _ in 0..2_000_000 {
        let g = brute.gradient(&theta);
        if g.norm() < 1e-11 {
            break;
        }
        theta -= g * step;
    }
    assert!(brute.gradient(&theta).norm() < 1e-11);
    let fit = cfg.check().unwrap().fit(&k, &duels).unwrap();
    // ‖θ − θ*‖ ≤ ‖∇‖/λ for both: 2e-8 + 2e-10.
    assert!((fit.theta() - theta).abs().max() < 5e-8);
}

#[test]
fn loss_and_gradient_match_finite_differences_and_brute_force() {
    let k = grid_gram(9, &Stationary::matern32(0.3).unwrap());
    let duels = random_duels(9, 14, 2);
    let mut r = rng::seeded(9);
    let theta = DVector::from_fn(14, |_, _| r.random_range(-1.0..1.0));
    for cfg in configs() {
        let est = cfg.check().unwrap();
        let brute = Brute::new(&k, &duels, &cfg);
        let loss = est.loss_at(&k, &duels, &theta).unwrap();
        let grad = est.gradient_at(&k, &duels, &theta).unwrap();
        assert_relative_eq!(loss, brute.loss(&theta), max_relative = 1e-12);
        assert!((&grad - brute.gradient(&theta)).abs().max() < 1e-11, "{cfg:?}");
        for i in 0..theta.len() {
            let h = 1e-6;
            let mut tp = theta.clone();
            tp[i] += h;
            let mut tm = theta.clone();
            tm[i] -= h;
            let fd = (est.loss_at(&k, &duels, &tp).unwrap() - est.loss_at(&k, &duels, &tm).unwrap()) / (2.0 * h);
            // Central difference: truncation h²·L‴ ≈ 1e-10, rounding ε·L/h ≈ 1e-9 for L ≈ 10.
            assert!((fd - grad[i]).abs() < 1e-6 * (1.0 + grad[i].abs()), "{cfg:?} coordinate {i}: {fd} vs {}", grad[i]);
        }
    }
}

#[test]
fn scaled_loss_equals_unscaled_with_lambda_times_n() {
    // (1/t)[Σℓ + (tλ/2) R] has the same minimiser as Σℓ + (tλ/2) R.
    let k = grid_gram(15, &Stationary::matern52(0.15).unwrap());
    let duels = random_duels(15, 40, 3);
    for reg in [Regulariser::ThetaNorm, Regulariser::RkhsNorm] {
        let base = KernelLogisticConfig::default().regulariser(reg);
        let scaled = base.clone().scale_by_n(true).lambda(0.05).check().unwrap().fit(&k, &duels).unwrap();
        let unscaled = base.lambda(0.05 * 40.0).check().unwrap().fit(&k, &duels).unwrap();
        // Gradients ≤ 1e-9 and modulus ≥ λ = 0.05 (or 2 unscaled): utilities agree to ~1e-7.
        assert!((scaled.utility() - unscaled.utility()).abs().max() < 1e-7, "{reg:?}");
        assert_relative_eq!(scaled.loss() * 40.0, unscaled.loss(), max_relative = 1e-10);
    }
}

#[test]
fn swapping_a_duel_and_flipping_its_label_changes_nothing() {
    let k = grid_gram(10, &Stationary::matern52(0.2).unwrap());
    let duels = random_duels(10, 20, 4);
    let flipped = Duels::from_duels(10, duels.iter().map(|d| Duel::new(d.second, d.first, !d.first_wins))).unwrap();
    for cfg in configs() {
        let est = cfg.check().unwrap();
        let a = est.fit(&k, &duels).unwrap();
        let b = est.fit(&k, &flipped).unwrap();
        // Identical problems after the change of variables θ_k → −θ_k: agreement to the tolerance.
        assert!((a.utility() - b.utility()).abs().max() < 1e-7, "{cfg:?}");
        assert!((a.theta() + b.theta()).abs().max() < 1e-7, "{cfg:?}");
        assert_relative_eq!(a.preference(3, 7).unwrap(), -a.preference(7, 3).unwrap(), epsilon = 1e-15);
        assert_eq!(a.preference(5, 5).unwrap(), 0.0);
        assert_eq!(a.preference_matrix()[(2, 8)], a.preference(2, 8).unwrap());
    }
}

#[test]
fn realistic_fits_converge_on_numerically_singular_grams() {
    // SE with ℓ = 0.1 on a 60-point grid: K has eigenvalues far below 1e-16 relative; t = 400 > n.
    for kernel in [Stationary::se(0.1).unwrap(), Stationary::matern52(0.1).unwrap()] {
        let k = grid_gram(60, &kernel);
        let duels = random_duels(60, 400, 6);
        for reg in [Regulariser::ThetaNorm, Regulariser::RkhsNorm] {
            let cfg = KernelLogisticConfig::default().regulariser(reg);
            let fit = cfg.check().unwrap().fit(&k, &duels).unwrap();
            let brute = Brute::new(&k, &duels, &cfg);
            // The θ-space gradient from 400×400 matrices, independent of the n-space one.
            assert!(brute.gradient(fit.theta()).norm() < 1e-8, "{reg:?}: {}", brute.gradient(fit.theta()).norm());
            assert!(fit.iterations() < 40, "{reg:?}: {} iterations", fit.iterations());
        }
    }
}

#[test]
fn warm_start_reaches_the_same_optimum() {
    let k = grid_gram(20, &Stationary::matern52(0.1).unwrap());
    let duels = random_duels(20, 120, 8);
    for reg in [Regulariser::ThetaNorm, Regulariser::RkhsNorm] {
        let est = KernelLogisticConfig::default().regulariser(reg).check().unwrap();
        let early = est.fit(&k, &duels.prefix(100)).unwrap();
        let cold = est.fit(&k, &duels).unwrap();
        let warm = est.fit_warm(&k, &duels, &early).unwrap();
        assert!((cold.utility() - warm.utility()).abs().max() < 1e-7, "{reg:?}");
        assert!(warm.iterations() <= cold.iterations(), "{reg:?}: {} vs {}", warm.iterations(), cold.iterations());
        // A fit of the other regulariser is not a usable start: falls back to a cold start.
        let other = KernelLogisticConfig::default()
            .regulariser(if reg == Regulariser::ThetaNorm { Regulariser::RkhsNorm } else { Regulariser::ThetaNorm })
            .check()
            .unwrap()
            .fit(&k, &duels.prefix(100))
            .unwrap();
        assert_eq!(est.fit_warm(&k, &duels, &other).unwrap(), cold);
    }
}

#[test]
fn no_duels_gives_the_zero_utility() {
    let k = grid_gram(5, &Stationary::se(0.3).unwrap());
    let fit = KernelLogisticConfig::default().check().unwrap().fit(&k, &Duels::new(5)).unwrap();
    assert_eq!(fit.iterations(), 0);
    assert_eq!(fit.utility(), &DVector::zeros(5));
    assert!(fit.theta().is_empty());
    assert_eq!(fit.loss(), 0.0);
}

#[test]
fn non_convergence_is_reported_with_figures() {
    let k = grid_gram(10, &Stationary::matern52(0.2).unwrap());
    let duels = random_duels(10, 30, 10);
    let err = KernelLogisticConfig::default().max_iterations(1).check().unwrap().fit(&k, &duels).unwrap_err();
    match err {
        Error::SolverFailed { solver, status, detail } => {
            assert_eq!(solver, "kernel logistic damped Newton");
            assert_eq!(status, SolverStatus::MaxIterations { iterations: 1 });
            // The figures stay readable for a researcher.
            assert!(detail.contains("gradient norm"), "{detail}");
        }
        e => panic!("unexpected {e}"),
    }
}

#[test]
fn bad_settings_and_inputs_are_errors_naming_the_field() {
    let named = |r: Result<KernelLogistic, Error>, field: &str| match r {
        Err(Error::InvalidParameter { name, .. }) => assert_eq!(name, field),
        other => panic!("expected an error on {field}, got {other:?}"),
    };
    named(KernelLogisticConfig::default().lambda(0.0).check(), "lambda");
    named(KernelLogisticConfig::default().lambda(-1.0).check(), "lambda");
    named(KernelLogisticConfig::default().lambda(f64::NAN).check(), "lambda");
    named(KernelLogisticConfig::default().tolerance(0.0).check(), "tolerance");
    named(KernelLogisticConfig::default().max_iterations(0).check(), "max_iterations");
    let est = KernelLogisticConfig::default().check().unwrap();
    let k = grid_gram(5, &Stationary::se(0.3).unwrap());
    let duels = random_duels(5, 4, 1);
    assert!(matches!(
        est.fit(&grid_gram(6, &Stationary::se(0.3).unwrap()), &duels),
        Err(Error::DimensionMismatch { .. })
    ));
    let mut knan = k.clone();
    knan[(1, 2)] = f64::NAN;
    assert!(matches!(est.fit(&knan, &duels), Err(Error::NonFinite(_))));
    assert!(matches!(est.loss_at(&k, &duels, &DVector::zeros(3)), Err(Error::DimensionMismatch { .. })));
    assert!(est.gradient_at(&k, &duels, &DVector::from_element(4, f64::NAN)).is_err());
    let fit = est.fit(&k, &duels).unwrap();
    assert!(matches!(fit.preference(0, 5), Err(Error::IndexOutOfRange { index: 5, .. })));
    // ρ of the posterior.
    for rho in [0.0, -0.1, f64::INFINITY] {
        assert!(
            matches!(DuelingPosterior::new(&k, &duels, rho), Err(Error::InvalidParameter { name, .. }) if name == "rho")
        );
    }
    assert!(DuelingPosterior::new(&grid_gram(6, &Stationary::se(0.3).unwrap()), &duels, 0.1).is_err());
    assert!(matches!(DuelingPosterior::from_pairs(&k, &[(0, 9)], 0.1), Err(Error::IndexOutOfRange { index: 9, .. })));
    let mut post = DuelingPosterior::prior(&k, 0.1).unwrap();
    assert!(post.add_duel(5, 0).is_err());
    assert!(post.variance(0, 5).is_err());
    assert!(post.sampler(&DVector::zeros(4)).is_err());
}

/// σ²(z) = k_D(z,z) − k_D,t(z)ᵀ (K^D + ρI)⁻¹ k_D,t(z) on every ordered pair, from the t×t Gram.
fn brute_sigma2(k: &DMatrix<f64>, pairs: &[(usize, usize)], rho: f64) -> DMatrix<f64> {
    let n = k.nrows();
    let t = pairs.len();
    let a = dueling_gram(k, pairs, pairs).unwrap() + DMatrix::identity(t, t) * rho;
    let chol = a.cholesky().unwrap();
    DMatrix::from_fn(n, n, |i, j| {
        let z = [(i, j)];
        let kz = dueling_gram(k, &z, pairs).unwrap().transpose();
        dueling_gram(k, &z, &z).unwrap()[(0, 0)] - kz.dot(&chol.solve(&kz))
    })
}

#[test]
fn posterior_matches_pair_space_and_explicit_formulas() {
    let k = grid_gram(10, &Stationary::matern52(0.25).unwrap());
    // Repeats, a reversed repeat and a self-duel.
    let pairs = [(0, 9), (3, 4), (9, 0), (2, 2), (5, 7), (3, 4), (1, 8), (6, 0), (4, 9), (7, 2), (0, 9), (8, 3)];
    for rho in [0.05, 0.5, 2.0] {
        let post = DuelingPosterior::from_pairs(&k, &pairs, rho).unwrap();
        assert_eq!(post.len(), pairs.len());
        let brute = brute_sigma2(&k, &pairs, rho);
        // K^D + ρI has condition ≲ 1e3: 1e-11 is rounding.
        assert!((post.variance_matrix() - &brute).abs().max() < 1e-11, "rho {rho}");
        assert!((post.std_dev_matrix() - brute.map(|v| v.max(0.0).sqrt())).abs().max() < 1e-7);
        // Ŝ from the explicit t×n difference matrix, K − K Dᵀ (D K Dᵀ + ρI)⁻¹ D K, by LU.
        let duels = Duels::from_duels(10, pairs.iter().map(|&(i, j)| Duel::new(i, j, true))).unwrap();
        let d = duels.difference_matrix();
        let inner = &d * &k * d.transpose() + DMatrix::identity(pairs.len(), pairs.len()) * rho;
        let s = &k - &k * d.transpose() * inner.lu().solve(&(&d * &k)).unwrap();
        assert!((post.covariance() - s).abs().max() < 1e-11);
        assert_eq!(post.variance(4, 4).unwrap(), 0.0);
        assert_eq!(post.variance(1, 6).unwrap(), post.variance(6, 1).unwrap());
        assert_eq!(post.jitter(), 0.0);
    }
}

#[test]
fn incremental_posterior_equals_batch_on_a_numerically_singular_gram() {
    // SE, ℓ = 0.1, 100-point grid: K is singular to machine precision; never factorised.
    let k = grid_gram(100, &Stationary::se(0.1).unwrap());
    let duels = random_duels(100, 150, 12);
    let batch = DuelingPosterior::new(&k, &duels, 0.05).unwrap();
    let mut inc = DuelingPosterior::prior(&k, 0.05).unwrap();
    for d in &duels {
        let before = inc.variance(d.first, d.second).unwrap();
        let returned = inc.add_duel(d.first, d.second).unwrap();
        assert_relative_eq!(returned, before, epsilon = 1e-12);
    }
    // 150 rank-one updates, each with rounding ~1e-16 · cond: 1e-10.
    assert!((inc.covariance() - batch.covariance()).abs().max() < 1e-10);
    // And against the pair-space formula on a subset of pairs (150×150 Cholesky).
    let pairs = duels.pairs();
    let a = dueling_gram(&k, &pairs, &pairs).unwrap() + DMatrix::identity(150, 150) * 0.05;
    let chol = a.cholesky().unwrap();
    for (i, j) in [(0, 99), (10, 11), (50, 3), (77, 78), (20, 80)] {
        let z = [(i, j)];
        let kz = dueling_gram(&k, &z, &pairs).unwrap().transpose();
        let s2 = dueling_gram(&k, &z, &z).unwrap()[(0, 0)] - kz.dot(&chol.solve(&kz));
        // K^D + ρI has condition up to ~1e5 here: 1e-10.
        assert_relative_eq!(batch.variance(i, j).unwrap(), s2.max(0.0), epsilon = 1e-10);
    }
}

#[test]
fn posterior_ignores_labels() {
    let k = grid_gram(8, &Stationary::matern52(0.2).unwrap());
    let a =
        Duels::from_duels(8, [(0, 1, true), (2, 5, false), (7, 3, true)].map(|(i, j, w)| Duel::new(i, j, w))).unwrap();
    let b =
        Duels::from_duels(8, [(0, 1, false), (2, 5, true), (7, 3, false)].map(|(i, j, w)| Duel::new(i, j, w))).unwrap();
    assert_eq!(DuelingPosterior::new(&k, &a, 0.05).unwrap(), DuelingPosterior::new(&k, &b, 0.05).unwrap());
}

#[test]
fn utility_samples_have_mean_g_and_covariance_v2_s() {
    let k = grid_gram(6, &Stationary::matern52(0.3).unwrap());
    let duels = random_duels(6, 10, 13);
    let fit = KernelLogisticConfig::default().check().unwrap().fit(&k, &duels).unwrap();
    let post = DuelingPosterior::new(&k, &duels, 0.05).unwrap();
    let sampler = post.sampler(fit.utility()).unwrap();
    let v = 1.7;
    let count = 50_000;
    let x = sampler.sample(v, count, &mut rng::seeded(14)).unwrap();
    let target = post.covariance() * (v * v);
    let xm = x.column_mean();
    let c = DMatrix::from_fn(6, count, |i, j| x[(i, j)] - xm[i]);
    let cov = &c * c.transpose() / (count as f64 - 1.0);
    let vmax = target.diagonal().max();
    // Standard errors: mean √(Σ_ii/N), covariance entries ≤ √(2/N)·max Σ_ii; 5 s.e. each.
    assert!((xm - fit.utility()).abs().max() < 5.0 * (vmax / count as f64).sqrt());
    assert!((cov - &target).abs().max() < 5.0 * (2.0 / count as f64).sqrt() * vmax);
    // Given draws: transform(v, z) = g + v F z exactly, and F Fᵀ reproduces Ŝ.
    let z = DMatrix::from_fn(sampler.rank(), 2, |i, j| (i as f64 - j as f64) * 0.3);
    let y = sampler.transform(v, &z).unwrap();
    let expect = sampler.factor() * &z * v;
    for j in 0..2 {
        assert!((y.column(j) - fit.utility() - expect.column(j)).abs().max() < 1e-13);
    }
    assert!((sampler.factor() * sampler.factor().transpose() - post.covariance()).abs().max() < 1e-8);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn incremental_equals_batch_for_any_pair_sequence(
        pairs in proptest::collection::vec((0usize..7, 0usize..7), 0..20),
        rho in 0.01f64..2.0,
    ) {
        let k = grid_gram(7, &Stationary::matern32(0.3).unwrap());
        let batch = DuelingPosterior::from_pairs(&k, &pairs, rho).unwrap();
        let mut inc = DuelingPosterior::prior(&k, rho).unwrap();
        for &(i, j) in &pairs {
            inc.add_duel(i, j).unwrap();
        }
        // Up to 20 rank-one updates with ρ ≥ 0.01: rounding ≲ 1e-11.
        prop_assert!((inc.covariance() - batch.covariance()).abs().max() < 1e-10);
        prop_assert!(batch.variance_matrix().iter().all(|&v| v >= 0.0));
    }
}

/// The low-rank (Woodbury, m×m) Newton system that `fit` uses when few candidates are duelled
/// gives the fit of the dense n×n system: for every regulariser, scaling and link, on 260
/// candidates (≥ LOW_RANK_MIN_CANDIDATES) with 3 to 20 duels (2m < n), the utilities and θ agree to
/// 1e-9 and both meet the tolerance.
#[test]
fn low_rank_newton_system_matches_the_dense_one() {
    const { assert!(260 >= LOW_RANK_MIN_CANDIDATES) };
    let k = grid_gram(260, &Stationary::matern52(0.15).unwrap());
    for (c, cfg) in configs().into_iter().enumerate() {
        let est = cfg.check().unwrap();
        for (seed, t) in [(1u64, 3usize), (2, 8), (3, 20)] {
            let duels = random_duels(260, t, seed + 10 * c as u64);
            let fast = est.fit(&k, &duels).unwrap();
            let dense = est.fit_dense(&k, &duels).unwrap();
            let scale = 1.0 + dense.utility().amax();
            assert!((fast.utility() - dense.utility()).amax() <= 1e-9 * scale, "config {c}, t = {t}");
            assert!(
                (fast.theta() - dense.theta()).amax() <= 1e-9 * (1.0 + dense.theta().amax()),
                "config {c}, t = {t}"
            );
            assert!(fast.gradient_norm() <= est.config().tolerance);
        }
    }
}

// ----- PreferenceModel: the one σ, μ(h) ± βσ, the plausibility filter, atomic updates -----

fn model_on(n: usize, config: KernelLogisticConfig, rho: f64) -> PreferenceModel {
    PreferenceModel::new(grid_gram(n, &Stationary::matern52(0.2).unwrap()), config.check().unwrap(), rho).unwrap()
}

/// σ_t²(i, j) = (e_i − e_j)ᵀ Σ (e_i − e_j) with the explicit posterior covariance
/// Σ = K − K Dᵀ (D K Dᵀ + ρI)⁻¹ D K built from the dense D and a direct Cholesky solve of the t×t
/// system (nalgebra's, not bohf's). The model's σ comes from rank-one updates in utility space, so
/// agreement to 1e-10 (σ² ≤ 4 and ‖(DKDᵀ + ρI)⁻¹‖ ≤ 1/ρ = 20 amplify the ulps of K) is a check of
/// the posterior, and σ(i, j) must equal σ(j, i) bit for bit although Ŝ itself is updated in place.
#[test]
fn model_sigma_matches_the_explicit_posterior_covariance_and_is_symmetric() {
    let n = 12;
    let rho = 0.05;
    let mut model = model_on(n, KernelLogisticConfig::default(), rho);
    let duels = random_duels(n, 15, 3);
    for d in duels.iter() {
        model.observe(&[*d], Refit::Warm).unwrap();
    }
    let k = model.base_gram().clone();
    let d = duels.difference_matrix();
    let mut a = &d * &k * d.transpose();
    for i in 0..a.nrows() {
        a[(i, i)] += rho;
    }
    let dk = &d * &k;
    let sol = a.cholesky().expect("DKDᵀ + ρI is positive definite").solve(&dk);
    let cov = &k - dk.transpose() * sol;
    for i in 0..n {
        for j in 0..n {
            let e = DVector::from_fn(n, |c, _| f64::from(c == i) - f64::from(c == j));
            let expected = (e.transpose() * &cov * &e)[(0, 0)].max(0.0);
            let sigma = model.sigma(i, j).unwrap();
            assert_relative_eq!(sigma * sigma, expected, epsilon = 1e-10);
            assert_eq!(sigma.to_bits(), model.sigma(j, i).unwrap().to_bits(), "σ({i}, {j}) vs σ({j}, {i})");
        }
        assert_eq!(model.sigma(i, i).unwrap(), 0.0);
    }
    assert!(matches!(model.sigma(0, n), Err(Error::IndexOutOfRange { index: 12, .. })));
}

/// μ(h) ± βσ read the fit and the posterior: ½ ± βσ before the first fit, μ(g_i − g_j) ± βσ after,
/// exactly ½ on the diagonal.
#[test]
fn model_bounds_are_mu_of_h_plus_minus_beta_sigma() {
    let mut model = model_on(8, KernelLogisticConfig::default(), 0.05);
    assert_eq!(model.probability(2, 5).unwrap(), 0.5);
    let s = model.sigma(2, 5).unwrap();
    assert!(s > 0.1);
    assert_eq!(model.ucb(2, 5, 2.0).unwrap(), 0.5 + 2.0 * s);
    assert_eq!(model.lcb(2, 5, 2.0).unwrap(), 0.5 - 2.0 * s);
    model.observe(&[Duel::new(2, 5, true), Duel::new(2, 6, true), Duel::new(1, 5, false)], Refit::Warm).unwrap();
    let g = model.fit().unwrap().utility().clone();
    assert_eq!(model.utility(), &g);
    let p = Link::Logistic.mu(g[2] - g[5]);
    assert!(p > 0.5, "2 won against 5");
    assert_eq!(model.probability(2, 5).unwrap(), p);
    assert_eq!(model.ucb(2, 5, 1.5).unwrap(), p + 1.5 * model.sigma(2, 5).unwrap());
    assert_eq!(model.lcb(2, 5, 1.5).unwrap(), p - 1.5 * model.sigma(2, 5).unwrap());
    assert_eq!(model.lcb(4, 4, 3.0).unwrap(), 0.5);
    assert!(model.probability(8, 0).is_err());
    let top = (0..4).max_by(|&a, &b| g[a].total_cmp(&g[b])).unwrap();
    assert_eq!(model.best_in(&[0, 1, 2, 3]).unwrap(), top);
    assert!(model.best_in(&[]).is_err() && model.best_in(&[9]).is_err());
}

/// Hand-computed cases of the filter with g = (0, 1, 3) and the logistic link:
/// μ(−3) = 0.047426, μ(−2) = 0.119203, μ(−1) = 0.268941.
#[test]
fn plausibility_filter_by_hand() {
    let g = [0.0, 1.0, 3.0];
    let link = Link::Logistic;
    let zero = |_: usize, _: usize| Ok(0.0);
    // σ = 0: only the maximiser has μ(h) ≥ 1/2 against everyone.
    assert_eq!(plausible_filter(&[0, 1, 2], &g, link, zero, 1.0).unwrap(), vec![2]);
    // σ = 0.5 off the diagonal, β = 1: x = 1 has μ(1) = 0.73 against 0 and μ(−2) + 0.5 = 0.619
    // against 2 → kept; x = 0 has μ(−1) + 0.5 = 0.769 and μ(−3) + 0.5 = 0.547 → kept.
    let half = |i: usize, j: usize| Ok(if i == j { 0.0 } else { 0.5 });
    assert_eq!(plausible_filter(&[0, 1, 2], &g, link, half, 1.0).unwrap(), vec![0, 1, 2]);
    // β = 0.9: x = 0 gets μ(−3) + 0.45 = 0.497 < 0.5 → out; x = 1 gets μ(−2) + 0.45 = 0.569 → in.
    assert_eq!(plausible_filter(&[0, 1, 2], &g, link, half, 0.9).unwrap(), vec![1, 2]);
    // Only pairs within the pool count: against {0, 1} alone, 0 needs μ(−1) + β/2 ≥ 1/2, i.e.
    // β ≥ 0.231/0.5 = 0.462.
    assert_eq!(plausible_filter(&[0, 1], &g, link, half, 0.46).unwrap(), vec![1]);
    assert_eq!(plausible_filter(&[0, 1], &g, link, half, 0.47).unwrap(), vec![0, 1]);
    // The guard: with β < 0 every x ≠ x′ fails; the maximiser of g is kept alone.
    assert_eq!(plausible_filter(&[0, 1, 2], &g, link, half, -10.0).unwrap(), vec![2]);
    // Errors: from σ (propagated, not read as 0), empty pools, indices beyond g, NaN bounds.
    let failing = |_: usize, _: usize| Err(Error::NonFinite("σ under test".into()));
    assert_eq!(plausible_filter(&[0, 1], &g, link, failing, 1.0).unwrap_err(), Error::NonFinite("σ under test".into()));
    assert!(matches!(plausible_filter(&[], &g, link, zero, 1.0), Err(Error::Empty(_))));
    assert!(matches!(plausible_filter(&[0, 3], &g, link, zero, 1.0), Err(Error::IndexOutOfRange { index: 3, .. })));
    let nan = |_: usize, _: usize| Ok(f64::NAN);
    assert!(matches!(plausible_filter(&[0, 1], &g, link, nan, 1.0), Err(Error::NonFinite(_))));
}

/// The model's filter is the free function on its own g, link and σ.
#[test]
fn model_plausible_uses_its_fit_and_sigma() {
    let mut model = model_on(10, KernelLogisticConfig::default(), 0.05);
    assert_eq!(model.plausible(&[1, 4, 7], 0.0).unwrap(), vec![1, 4, 7], "g ≡ 0: everyone ties at ½");
    let duels = random_duels(10, 30, 8);
    model.observe(duels.as_slice(), Refit::Warm).unwrap();
    let pool: Vec<usize> = (0..10).collect();
    for beta in [0.0, 0.5, 1.0, 3.0] {
        let expected =
            plausible_filter(&pool, model.utility().as_slice(), Link::Logistic, |i, j| model.sigma(i, j), beta)
                .unwrap();
        assert_eq!(model.plausible(&pool, beta).unwrap(), expected);
        assert!(expected.contains(&model.best_in(&pool).unwrap()));
    }
    assert_eq!(model.plausible(&pool, 0.0).unwrap(), vec![model.best_in(&pool).unwrap()]);
}

/// Warm and cold refits reach the same optimum; a deferred fit drops the old one (g ≡ 0); a batch
/// of more than n duels (posterior from scratch) equals one-by-one updates; reset forgets all.
#[test]
fn model_refit_modes_batches_and_reset() {
    let n = 9;
    let duels = random_duels(n, 20, 4);
    let mut warm = model_on(n, KernelLogisticConfig::default(), 0.05);
    let mut deferred = warm.clone();
    for d in duels.iter() {
        warm.observe(&[*d], Refit::Warm).unwrap();
        deferred.observe(&[*d], Refit::Defer).unwrap();
    }
    assert!(deferred.fit().is_none() && deferred.utility().iter().all(|&v| v == 0.0));
    assert!((warm.posterior().covariance() - deferred.posterior().covariance()).abs().max() == 0.0);
    let mut cold = model_on(n, KernelLogisticConfig::default(), 0.05);
    cold.observe(duels.as_slice(), Refit::Cold).unwrap();
    assert_eq!(cold.duels(), warm.duels());
    // 1e-7: both stop at gradient norm ≤ 1e-9 on a problem with Hessian eigenvalues ≥ λ = 0.05.
    assert!((cold.utility() - warm.utility()).abs().max() < 1e-7);
    // 20 > 9 duels at once: the posterior from scratch, equal to 20 rank-one steps up to rounding.
    assert!((cold.posterior().covariance() - warm.posterior().covariance()).abs().max() < 1e-11);
    cold.reset(0.3).unwrap();
    assert!(cold.duels().is_empty() && cold.fit().is_none() && cold.posterior().rho() == 0.3);
    assert_eq!(cold.posterior().covariance(), cold.base_gram());
    assert!(cold.reset(0.0).is_err());
}

/// A failed fit or a bad index is an error and changes nothing.
#[test]
fn model_updates_are_atomic() {
    let strict = KernelLogisticConfig::default().max_iterations(1).tolerance(1e-300);
    let mut model = model_on(6, strict, 0.05);
    let before = format!("{model:?}");
    assert!(matches!(model.observe(&[Duel::new(0, 3, true)], Refit::Warm), Err(Error::SolverFailed { .. })));
    assert_eq!(format!("{model:?}"), before);
    assert!(matches!(
        model.observe(&[Duel::new(0, 3, true), Duel::new(6, 0, true)], Refit::Defer),
        Err(Error::IndexOutOfRange { index: 6, .. })
    ));
    assert_eq!(format!("{model:?}"), before);
    model.observe(&[Duel::new(0, 3, true)], Refit::Defer).unwrap();
    assert_eq!(model.duels().len(), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// For any utility, any non-negative σ and β ≥ 0 (including 0): the survivors are a non-empty,
    /// sorted subset of the pool that contains the maximiser of g over it.
    #[test]
    fn plausibility_filter_is_nested_nonempty_and_keeps_the_argmax(
        g in prop::collection::vec(-5.0f64..5.0, 8),
        s in prop::collection::vec(0.0f64..1.0, 64),
        mask in prop::collection::vec(any::<bool>(), 8),
        beta in prop_oneof![Just(0.0), 0.0f64..3.0],
    ) {
        let mut pool: Vec<usize> = (0..8).filter(|&i| mask[i]).collect();
        if pool.is_empty() { pool.push(3); }
        let sigma = |i: usize, j: usize| Ok(if i == j { 0.0 } else { s[i.min(j) * 8 + i.max(j)] });
        let kept = plausible_filter(&pool, &g, Link::Logistic, sigma, beta).unwrap();
        prop_assert!(!kept.is_empty());
        prop_assert!(kept.iter().all(|k| pool.contains(k)));
        prop_assert!(kept.windows(2).all(|w| w[0] < w[1]));
        let best = bohf_core::argmax_lowest_in("g", &pool, |i| g[i]).unwrap();
        prop_assert!(kept.contains(&best));
    }
}

/// The fused subset scan equals the definition: the first pair in row-major order of M × M whose
/// [`DuelingPosterior::variance`] ties with the maximum (brute force over every ordered pair) — after
/// rank-one updates (Ŝ asymmetric by ulps), on subsets spanning several 64-wide tiles, and on a
/// Gram of repeated points where many pairs tie exactly.
#[test]
fn max_variance_within_is_the_row_major_argmax_of_every_pair() {
    let mut r = rng::seeded(5);
    let repeated = {
        let x = DMatrix::from_fn(130, 1, |i, _| (i % 2) as f64);
        Stationary::matern52(0.2).unwrap().gram(&x).unwrap()
    };
    let posteriors = [(7, 0), (150, 3), (200, 25)]
        .map(|(n, t)| {
            let mut post = DuelingPosterior::prior(&grid_gram(n, &Stationary::matern52(0.2).unwrap()), 0.05).unwrap();
            for _ in 0..t {
                post.add_duel(r.random_range(0..n), r.random_range(0..n)).unwrap();
            }
            post
        })
        .into_iter()
        .chain([DuelingPosterior::prior(&repeated, 0.05).unwrap()]);
    for post in posteriors {
        let n = post.dim();
        for keep in [1.0, 0.5, 0.1] {
            let active: Vec<usize> = (0..n).filter(|_| r.random::<f64>() < keep).collect();
            if active.is_empty() {
                continue;
            }
            let all = active.iter().flat_map(|&i| active.iter().map(move |&j| (i, j)));
            let expected =
                argmax_lowest_by("every pair", all.map(|(i, j)| ((i, j), post.variance(i, j).unwrap()))).unwrap();
            let got = post.max_variance_within(&active).unwrap();
            assert_eq!(got.0, expected.0, "n = {n}, |M| = {}", active.len());
            assert_eq!(got.1.to_bits(), expected.1.to_bits());
        }
        assert!(matches!(post.max_variance_within(&[0, n]), Err(Error::IndexOutOfRange { .. })));
        assert!(matches!(post.max_variance_within(&[]), Err(Error::Empty(_))));
    }
}
