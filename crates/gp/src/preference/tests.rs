//! Tests of the preference model against brute-force pair-space (t×t) computations.

use super::*;
use approx::assert_relative_eq;
use bohf_core::{Duel, Error, Link, SolverStatus, rng};
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
