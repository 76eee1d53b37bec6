use super::*;
use approx::assert_relative_eq;
use bohf_kernels::{Kernel, KernelKind};
use proptest::prelude::*;

/// Points in [0, 1]^d from a fixed low-discrepancy-like rule, and targets from a smooth function
/// plus deterministic "noise".
fn data(n: usize, d: usize) -> (DMatrix<f64>, DVector<f64>) {
    let x = DMatrix::from_fn(n, d, |i, j| ((i * 7 + j * 3 + 1) as f64 * 0.618_034).fract());
    let y = DVector::from_fn(n, |i, _| {
        let r = x.row(i);
        (5.0 * r[0]).sin() + r.iter().sum::<f64>() + 0.1 * ((i * 13) as f64 * 0.377).fract()
    });
    (x, y)
}

/// The dense reference: A = K + ρI explicitly, solved and its determinant taken by LU.
fn dense_log_ml(kernel: &Stationary, x: &DMatrix<f64>, y: &DVector<f64>, noise: f64) -> f64 {
    let n = y.len();
    let a = kernel.gram(x).unwrap() + DMatrix::identity(n, n) * noise;
    let lu = a.lu();
    -0.5 * y.dot(&lu.solve(y).unwrap())
        - 0.5 * lu.determinant().ln()
        - 0.5 * n as f64 * (2.0 * std::f64::consts::PI).ln()
}

fn kernel_at(kind: KernelKind, ls: &[f64], variance: f64) -> Stationary {
    let k = Stationary::new(kind, ls[0]).unwrap().with_variance(variance).unwrap();
    if ls.len() > 1 { k.with_ard(ls.to_vec()).unwrap() } else { k }
}

#[test]
fn log_ml_matches_the_dense_lu_formula() {
    let (x, y) = data(6, 2);
    for kind in [KernelKind::Se, KernelKind::Matern52, KernelKind::Matern12] {
        let k = kernel_at(kind, &[0.3, 0.7], 1.8);
        let lm = log_marginal_likelihood(&k, &x, &y, 0.07).unwrap();
        assert_relative_eq!(lm.value, dense_log_ml(&k, &x, &y, 0.07), max_relative = 1e-12);
        assert_eq!(lm.gradient.len(), 4);
        // GpRegression's value shares the formula (one home) and must agree.
        let gp = GpRegression::fit(k.clone(), &x, &y, 0.07).unwrap();
        assert_relative_eq!(gp.log_marginal_likelihood(), lm.value, max_relative = 1e-12);
    }
}

#[test]
fn gradient_matches_the_dense_trace_formula() {
    // ½ tr((ααᵀ − A⁻¹) ∂A/∂θ) with A⁻¹ from LU and ∂A/∂log σ² = K, ∂A/∂log ρ = ρI: the noise and
    // variance entries against an independent inverse.
    let (x, y) = data(7, 3);
    let k = kernel_at(KernelKind::Matern32, &[0.4, 0.9, 1.5], 0.6);
    let rho = 0.2;
    let lm = log_marginal_likelihood(&k, &x, &y, rho).unwrap();
    let kk = k.gram(&x).unwrap();
    let a = &kk + DMatrix::identity(7, 7) * rho;
    let inv = a.clone().try_inverse().unwrap();
    let alpha = &inv * &y;
    let q = &alpha * alpha.transpose() - &inv;
    assert_relative_eq!(lm.gradient[3], 0.5 * (&q * &kk).trace(), max_relative = 1e-10);
    assert_relative_eq!(lm.gradient[4], 0.5 * rho * q.trace(), max_relative = 1e-10);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The analytic gradient against central differences in θ, for random data, ARD lengthscales,
    /// variance and noise.
    #[test]
    fn gradient_matches_central_differences(
        n in 2usize..12,
        d in 1usize..4,
        kind in prop::sample::select(vec![KernelKind::Se, KernelKind::Matern52, KernelKind::Matern32]),
        seed in 0u64..1000,
        log_ls in prop::collection::vec(-2.0f64..1.0, 3),
        log_var in -1.0f64..1.0,
        log_noise in -4.0f64..0.0,
        ard in any::<bool>(),
    ) {
        let mut r = bohf_core::rng::seeded(seed);
        use bohf_core::rand::RngExt;
        let x = DMatrix::from_fn(n, d, |_, _| r.random::<f64>());
        let y = DVector::from_fn(n, |_, _| r.random::<f64>() * 2.0 - 1.0);
        let m = if ard { d } else { 1 };
        let mut theta: Vec<f64> = log_ls[..m].to_vec();
        theta.push(log_var);
        theta.push(log_noise);
        let eval = |t: &[f64]| {
            let ls: Vec<f64> = t[..m].iter().map(|v| v.exp()).collect();
            let k = kernel_at(kind, &ls, t[m].exp());
            let k = if ard && m == 1 { k.with_ard(ls).unwrap() } else { k };
            log_marginal_likelihood(&k, &x, &y, t[m + 1].exp()).unwrap()
        };
        let lm = eval(&theta);
        prop_assert!(lm.value.is_finite());
        let h = 1e-5;
        for p in 0..theta.len() {
            let (mut up, mut dn) = (theta.clone(), theta.clone());
            up[p] += h;
            dn[p] -= h;
            let fd = (eval(&up).value - eval(&dn).value) / (2.0 * h);
            // Truncation O(h²·f‴) and rounding O(ε·|f|·cond/h) are both far below 1e-5 here
            // (cond(A) ≤ (nσ² + ρ)/ρ ≲ 1e3).
            prop_assert!(
                (lm.gradient[p] - fd).abs() <= 1e-5 * (1.0 + fd.abs()),
                "θ_{p}: analytic {} vs central difference {fd}", lm.gradient[p]
            );
        }
    }
}

#[test]
fn prior_is_the_log_normal_density_and_the_objective_gradient_is_exact() {
    // Dimension-scaled prior for d = 4: μ = √2 + ½ log 4, s = √3 (BoTorch).
    let p = LengthscalePrior::DimScaledLogNormal;
    let (mu, s) = p.log_normal(4).unwrap();
    assert_relative_eq!(mu, 2f64.sqrt() + 2f64.ln(), epsilon = 1e-15);
    assert_relative_eq!(s, 3f64.sqrt(), epsilon = 1e-15);
    // log of the LogNormal pdf 1/(ℓ s √(2π)) exp(−(ln ℓ − μ)²/(2s²)) at ℓ = 0.7.
    let l: f64 = 0.7;
    let pdf = (-(l.ln() - mu).powi(2) / (2.0 * s * s)).exp() / (l * s * (2.0 * std::f64::consts::PI).sqrt());
    assert_relative_eq!(p.log_density(4, l.ln()).0, pdf.ln(), max_relative = 1e-13);
    assert_eq!(LengthscalePrior::None.log_density(4, 0.3), (0.0, 0.0));

    // The full objective (ARD, prior, learned variance and noise) against central differences.
    let (x, y) = data(15, 4);
    let objective = HyperObjective {
        x,
        y,
        start: kernel_at(KernelKind::Matern52, &[0.5; 4], 1.0),
        noise: 0.1,
        prior: p.clone(),
        learn_variance: true,
        learn_noise: true,
    };
    assert_eq!(objective.dim(), 6);
    let theta = vec![-0.5, 0.2, -1.0, 0.4, 0.3, -2.0];
    let mut g = vec![0.0; 6];
    let (v, lml) = objective.evaluate(&theta, &mut g).unwrap();
    let prior_sum: f64 = theta[..4].iter().map(|t| p.log_density(4, *t).0).sum();
    assert_relative_eq!(-v, lml + prior_sum, max_relative = 1e-14);
    let h = 1e-5;
    let mut scratch = vec![0.0; 6];
    for i in 0..6 {
        let (mut up, mut dn) = (theta.clone(), theta.clone());
        up[i] += h;
        dn[i] -= h;
        let fd = (objective.evaluate(&up, &mut scratch).unwrap().0 - objective.evaluate(&dn, &mut scratch).unwrap().0)
            / (2.0 * h);
        assert!((g[i] - fd).abs() <= 1e-6 * (1.0 + fd.abs()), "θ_{i}: {} vs {fd}", g[i]);
    }
}

/// A config with no transforms and no prior, for comparisons with a grid of the raw log ML.
fn plain_config(noise_bounds: Option<[f64; 2]>) -> ValidHyperFitConfig {
    let learn_noise = noise_bounds.is_some();
    let noise_bounds = noise_bounds.unwrap_or([1e-4, 10.0]);
    HyperFitConfig {
        ard: false,
        lengthscale_bounds: [0.01, 10.0],
        lengthscale_floor: 0.0,
        lengthscale_prior: LengthscalePrior::None,
        learn_variance: false,
        learn_noise,
        noise_bounds,
        scale_inputs: false,
        standardise_outputs: false,
        ..Default::default()
    }
    .check()
    .unwrap()
}

/// 25 noisy draws of a smooth function on [0, 1].
fn smooth_1d() -> (DMatrix<f64>, DVector<f64>) {
    let x = DMatrix::from_fn(25, 1, |i, _| ((i * 11 + 3) as f64 * 0.618_034).fract());
    let y = DVector::from_fn(25, |i, _| {
        (6.0 * x[(i, 0)]).sin() + 0.5 * (14.0 * x[(i, 0)]).cos() + 0.2 * (((i * 29) as f64 * 0.7548).fract() - 0.5)
    });
    (x, y)
}

#[test]
fn fitted_lengthscale_matches_a_dense_grid_search() {
    let (x, y) = smooth_1d();
    let cfg = plain_config(None);
    let start = Stationary::matern52(1.0).unwrap();
    let fit = fit_hyperparameters(&cfg, &start, 0.01, &x, &y, None).unwrap();
    assert!(matches!(fit.outcome, FitOutcome::Optimised { starts: 2, .. }), "{:?}", fit.outcome);
    // Dense grid: 4001 points of log ℓ over [log 0.01, log 10] (spacing 1.7e-3).
    let (lo, hi) = (0.01f64.ln(), 10f64.ln());
    let grid: Vec<(f64, f64)> = (0..=4000)
        .map(|i| {
            let t = lo + (hi - lo) * i as f64 / 4000.0;
            (t, log_marginal_likelihood(&Stationary::matern52(t.exp()).unwrap(), &x, &y, 0.01).unwrap().value)
        })
        .collect();
    let (t_best, v_best) =
        grid.iter().copied().fold((f64::NAN, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a });
    let spacing = (hi - lo) / 4000.0;
    // The fit is at least as good as the best grid point (up to the local tolerance), and lies
    // within two grid cells of it: a smooth 1-D maximum.
    assert!(fit.log_marginal >= v_best - 1e-8, "fit {} < grid {v_best}", fit.log_marginal);
    let t_fit = fit.kernel.lengthscales()[0].ln();
    assert!((t_fit - t_best).abs() <= 2.0 * spacing, "log ℓ: fit {t_fit}, grid {t_best}");
    // Not a bound (the test would be vacuous there).
    assert!(t_best > lo + 0.5 && t_best < hi - 0.5);
    assert_eq!(fit.noise, 0.01);
}

#[test]
fn fitted_lengthscale_and_noise_match_a_dense_grid_search() {
    let (x, y) = smooth_1d();
    let cfg = plain_config(Some([1e-4, 1.0]));
    let start = Stationary::se(1.0).unwrap();
    let fit = fit_hyperparameters(&cfg, &start, 0.1, &x, &y, None).unwrap();
    // 301 × 301 grid over log ℓ ∈ [log 0.01, log 10], log ρ ∈ [log 1e-4, 0].
    let n = 300;
    let (l0, l1, r0, r1) = (0.01f64.ln(), 10f64.ln(), 1e-4f64.ln(), 0.0);
    let (mut best, mut at) = (f64::NEG_INFINITY, (0.0, 0.0));
    for i in 0..=n {
        let tl = l0 + (l1 - l0) * i as f64 / n as f64;
        let k = Stationary::se(tl.exp()).unwrap();
        for j in 0..=n {
            let tr = r0 + (r1 - r0) * j as f64 / n as f64;
            let v = log_marginal_likelihood(&k, &x, &y, tr.exp()).unwrap().value;
            if v > best {
                (best, at) = (v, (tl, tr));
            }
        }
    }
    let (sl, sr) = ((l1 - l0) / n as f64, (r1 - r0) / n as f64);
    assert!(fit.log_marginal >= best - 1e-7, "fit {} < grid {best}", fit.log_marginal);
    let (tl, tr) = (fit.kernel.lengthscales()[0].ln(), fit.noise.ln());
    assert!((tl - at.0).abs() <= 2.0 * sl && (tr - at.1).abs() <= 2.0 * sr, "fit ({tl}, {tr}) vs grid {at:?}");
    assert!(at.1 > r0 + 1.0 && at.1 < r1 - 0.5, "an interior noise optimum: {at:?}");
}

#[test]
fn fit_with_defaults_is_finite_improves_on_the_start_and_is_deterministic() {
    let (x, y) = data(30, 3);
    let y = y * 40.0 + DVector::from_element(30, 7.0);
    let domain = BoxDomain::cube(0.0, 1.0, 3).unwrap();
    let cfg = HyperFitConfig { learn_variance: true, ..Default::default() }.check().unwrap();
    let start = Stationary::matern52(0.5).unwrap();
    let fit = fit_hyperparameters(&cfg, &start, 0.01, &x, &y, Some(&domain)).unwrap();
    assert_eq!(fit.kernel.lengthscales().len(), 3, "isotropic start expanded to ARD");
    let again = fit_hyperparameters(&cfg, &start, 0.01, &x, &y, Some(&domain)).unwrap();
    assert_eq!(fit, again);
    // The start is one of the refined starts, so the objective is at least the start's.
    let base = fit_hyperparameters(
        &HyperFitConfig { restarts: 0, ..cfg.config().clone() }.check().unwrap(),
        &start,
        0.01,
        &x,
        &y,
        Some(&domain),
    )
    .unwrap();
    assert!(fit.objective >= base.objective - 1e-9);
    // Standardised targets: mean 0, sample sd 1 in working units.
    let yt = fit.transform.targets(&y);
    assert!(yt.mean().abs() < 1e-12);
    assert_relative_eq!(yt.norm_squared() / 29.0, 1.0, max_relative = 1e-12);
    // The posterior in original units reproduces the data closely (small fitted noise).
    let gp = fit.regression(&x, &y).unwrap();
    let m = gp.mean(&fit.transform.inputs(&x).unwrap()).unwrap();
    let resid = m.iter().zip(&y).map(|(m, y)| (fit.transform.mean_to_original(*m) - y).abs()).fold(0.0, f64::max);
    assert!(resid < 0.1 * 40.0, "max residual {resid}");
    let lb = cfg.effective_lengthscale_bounds();
    for l in fit.kernel.lengthscales() {
        assert!(l.is_finite() && *l >= lb[0] && *l <= lb[1]);
    }
}

#[test]
fn inputs_scale_to_the_unit_box() {
    let cfg = HyperFitConfig::default();
    let domain = BoxDomain::new(vec![-5.0, 10.0], vec![5.0, 12.0]).unwrap();
    let t = DataTransform::new(&cfg, 2, Some(&domain), &DVector::from_vec(vec![1.0, 3.0])).unwrap();
    let x = DMatrix::from_row_slice(2, 2, &[-5.0, 10.0, 5.0, 11.0]);
    assert_eq!(t.inputs(&x).unwrap(), DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 1.0, 0.5]));
    // Mean 2, sample sd √2.
    assert_eq!(t.target_mean_and_scale(), (2.0, 2f64.sqrt()));
    assert_relative_eq!(t.mean_to_original(1.0), 2.0 + 2f64.sqrt());
    assert_relative_eq!(t.variance_to_original(1.0), 2.0);
}

#[test]
fn degenerate_data_fall_back_to_the_start() {
    let cfg = HyperFitConfig::default().check().unwrap();
    let domain = BoxDomain::cube(0.0, 1.0, 2).unwrap();
    let start = Stationary::matern52(0.3).unwrap();
    let finite = |f: &HyperFit| {
        f.kernel.lengthscales().iter().all(|l| l.is_finite())
            && f.noise.is_finite()
            && f.log_marginal.is_finite()
            && f.objective.is_finite()
    };
    // No point and one point.
    for n in [0, 1] {
        let (x, y) = data(n, 2);
        let f = fit_hyperparameters(&cfg, &start, 0.01, &x, &y, Some(&domain)).unwrap();
        assert_eq!(f.outcome, FitOutcome::Fallback(Fallback::TooFewPoints));
        assert_eq!(f.kernel.lengthscales(), &[0.3, 0.3]);
        assert_eq!(f.noise, 0.01);
        assert!(finite(&f));
    }
    // All values equal (also at a large offset, and within the relative tolerance).
    let (x, _) = data(8, 2);
    for c in [0.0, 3.5, 1e9] {
        let y = DVector::from_fn(8, |i, _| c + c * 1e-10 * i as f64);
        let f = fit_hyperparameters(&cfg, &start, 0.01, &x, &y, Some(&domain)).unwrap();
        assert_eq!(f.outcome, FitOutcome::Fallback(Fallback::ConstantTargets), "c = {c}");
        assert!(finite(&f));
    }
    // Duplicated inputs with different values: optimised, finite, and the noise is learned above
    // its lower bound (the duplicates disagree by ±0.3, so ρ cannot vanish).
    let (x1, y1) = data(6, 2);
    let x = DMatrix::from_fn(12, 2, |i, j| x1[(i % 6, j)]);
    let y = DVector::from_fn(12, |i, _| y1[i % 6] + if i < 6 { 0.3 } else { -0.3 });
    let f = fit_hyperparameters(&cfg, &start, 0.01, &x, &y, Some(&domain)).unwrap();
    assert!(matches!(f.outcome, FitOutcome::Optimised { .. }));
    assert!(finite(&f) && f.noise > 1e-3, "noise {}", f.noise);
    // Every input identical: the likelihood does not depend on ℓ; still finite.
    let x = DMatrix::from_element(5, 2, 0.4);
    let y = DVector::from_vec(vec![0.1, 0.5, -0.2, 0.3, 0.0]);
    let f = fit_hyperparameters(&cfg, &start, 0.01, &x, &y, Some(&domain)).unwrap();
    assert!(finite(&f));
    // A tiny fixed noise with exact duplicates: jitter keeps the factor finite.
    let cfg_fixed = HyperFitConfig { learn_noise: false, ..Default::default() }.check().unwrap();
    let x = DMatrix::from_fn(10, 2, |i, j| x1[(i % 5, j)]);
    let y = DVector::from_fn(10, |i, _| y1[i % 5]);
    let f = fit_hyperparameters(&cfg_fixed, &start, 1e-12, &x, &y, Some(&domain)).unwrap();
    assert!(finite(&f) && f.noise == 1e-12);
}

#[test]
fn bad_config_and_start_name_the_field() {
    let field = |e: Error| match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    let bad = |c: HyperFitConfig| field(c.check().unwrap_err());
    let d = HyperFitConfig::default;
    assert_eq!(bad(HyperFitConfig { lengthscale_bounds: [1.0, 0.5], ..d() }), "lengthscale_bounds");
    assert_eq!(bad(HyperFitConfig { lengthscale_bounds: [0.0, 0.5], ..d() }), "lengthscale_bounds");
    assert_eq!(bad(HyperFitConfig { lengthscale_bounds: [0.1, f64::INFINITY], ..d() }), "lengthscale_bounds");
    assert_eq!(bad(HyperFitConfig { lengthscale_floor: -1.0, ..d() }), "lengthscale_floor");
    assert_eq!(bad(HyperFitConfig { lengthscale_floor: f64::NAN, ..d() }), "lengthscale_floor");
    assert_eq!(bad(HyperFitConfig { learn_variance: true, variance_bounds: [2.0, 1.0], ..d() }), "variance_bounds");
    assert_eq!(bad(HyperFitConfig { noise_bounds: [f64::NAN, 1.0], ..d() }), "noise_bounds");
    assert_eq!(bad(HyperFitConfig { refit_every: 0, ..d() }), "refit_every");
    assert_eq!(bad(HyperFitConfig { restarts: 5, screen: 4, ..d() }), "screen");
    let prior = LengthscalePrior::LogNormal { loc: 0.0, scale: 0.0 };
    assert_eq!(bad(HyperFitConfig { lengthscale_prior: prior, ..d() }), "lengthscale_prior.scale");
    let mut c = d();
    c.local.memory = 0;
    assert!(bad(c).starts_with("local."));

    let cfg = d().check().unwrap();
    let (x, y) = data(6, 2);
    let domain = BoxDomain::cube(0.0, 1.0, 2).unwrap();
    let fit = |start: &Stationary, noise: f64| fit_hyperparameters(&cfg, start, noise, &x, &y, Some(&domain));
    // Starts outside the bounds.
    assert_eq!(field(fit(&Stationary::se(200.0).unwrap(), 0.01).unwrap_err()), "lengthscale_bounds");
    assert_eq!(field(fit(&Stationary::se(0.001).unwrap(), 0.01).unwrap_err()), "lengthscale_bounds");
    assert_eq!(field(fit(&Stationary::se(0.02).unwrap(), 0.01).unwrap_err()), "lengthscale_floor");
    assert_eq!(field(fit(&Stationary::se(0.5).unwrap(), 1e-6).unwrap_err()), "noise_bounds");
    assert_eq!(field(fit(&Stationary::se(0.5).unwrap(), 0.0).unwrap_err()), "start_noise");
    let cv = HyperFitConfig { learn_variance: true, variance_bounds: [0.5, 2.0], ..d() }.check().unwrap();
    let e = fit_hyperparameters(
        &cv,
        &Stationary::se(0.5).unwrap().with_variance(3.0).unwrap(),
        0.01,
        &x,
        &y,
        Some(&domain),
    );
    assert_eq!(field(e.unwrap_err()), "variance_bounds");
    // ARD start for an isotropic fit.
    let ciso = HyperFitConfig { ard: false, ..d() }.check().unwrap();
    let ard = Stationary::se(0.5).unwrap().with_ard(vec![0.5, 0.6]).unwrap();
    assert_eq!(field(fit_hyperparameters(&ciso, &ard, 0.01, &x, &y, Some(&domain)).unwrap_err()), "ard");
    // Scaling inputs needs the box; dimensions must agree; data must be finite.
    assert_eq!(
        field(fit_hyperparameters(&cfg, &Stationary::se(0.5).unwrap(), 0.01, &x, &y, None).unwrap_err()),
        "scale_inputs"
    );
    let d3 = BoxDomain::cube(0.0, 1.0, 3).unwrap();
    assert!(matches!(
        fit_hyperparameters(&cfg, &Stationary::se(0.5).unwrap(), 0.01, &x, &y, Some(&d3)),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        fit_hyperparameters(&cfg, &Stationary::se(0.5).unwrap(), 0.01, &x, &y.rows(0, 5).clone_owned(), Some(&domain)),
        Err(Error::DimensionMismatch { .. })
    ));
    let mut ynan = y.clone();
    ynan[2] = f64::NAN;
    assert!(matches!(
        fit_hyperparameters(&cfg, &Stationary::se(0.5).unwrap(), 0.01, &x, &ynan, Some(&domain)),
        Err(Error::NonFinite(_))
    ));
    assert_eq!(field(log_marginal_likelihood(&Stationary::se(0.5).unwrap(), &x, &y, -1.0).unwrap_err()), "noise");
}

#[test]
fn refit_schedule_counts_new_observations() {
    let c = HyperFitConfig { refit_every: 5, ..Default::default() };
    assert!(!c.refit_due(1, None));
    assert!(c.refit_due(2, None));
    assert!(!c.refit_due(14, Some(10)));
    assert!(c.refit_due(15, Some(10)));
    assert!(HyperFitConfig::default().refit_due(11, Some(10)));
}

#[test]
fn config_reads_from_toml_with_defaults() {
    let c: HyperFitConfig = toml::from_str(
        "ard = false\nlearn_noise = false\nvariance_bounds = [2.0, 1.0]\n\
         [lengthscale_prior]\nkind = \"log_normal\"\nloc = 0.0\nscale = 1.0\n",
    )
    .unwrap();
    assert!(!c.ard && !c.learn_noise);
    assert_eq!(c.lengthscale_floor, 0.025);
    assert_eq!(c.lengthscale_prior, LengthscalePrior::LogNormal { loc: 0.0, scale: 1.0 });
    // Bounds of a parameter that is not learned are not checked.
    c.check().unwrap();
    assert!(toml::from_str::<HyperFitConfig>("noise = 0.1").is_err(), "unknown fields are refused");
}

#[test]
fn one_and_two_threads_give_identical_fits() {
    let (x, y) = data(40, 3);
    let domain = BoxDomain::cube(0.0, 1.0, 3).unwrap();
    let cfg = HyperFitConfig { restarts: 3, learn_variance: true, ..Default::default() }.check().unwrap();
    let start = Stationary::se(0.4).unwrap();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| fit_hyperparameters(&cfg, &start, 0.05, &x, &y, Some(&domain)).unwrap())
    };
    let one = run(1);
    assert!(matches!(one.outcome, FitOutcome::Optimised { starts: 4, .. }));
    assert_eq!(one, run(2));
}

#[test]
fn recovers_the_lengthscale_of_gp_draws() {
    // f ~ GP(0, SE(ℓ = 0.2, σ² = 1)) at 60 uniform points of [0, 1], y = f + noise of variance 0.01: the maximum
    // likelihood ℓ̂ is well identified (about 5 lengthscales of data, small noise), so a factor-2
    // window around the truth is a loose bound that a wrong gradient or optimiser would miss.
    let truth = Stationary::se(0.2).unwrap();
    let cfg = HyperFitConfig {
        ard: false,
        lengthscale_prior: LengthscalePrior::None,
        learn_variance: true,
        scale_inputs: false,
        standardise_outputs: false,
        ..Default::default()
    }
    .check()
    .unwrap();
    for seed in [1, 2, 3] {
        use bohf_core::rand::RngExt;
        let mut r = bohf_core::rng::seeded(seed);
        let x = DMatrix::from_fn(60, 1, |_, _| r.random::<f64>());
        let prior = GpRegression::fit(truth.clone(), &DMatrix::zeros(0, 1), &DVector::zeros(0), 0.01).unwrap();
        let f = prior.sample(&x, 1, &mut r).unwrap();
        // Noise of variance 0.01: uniform on ±0.1√3.
        let y = DVector::from_fn(60, |i, _| f[(i, 0)] + 0.1 * 3f64.sqrt() * (r.random::<f64>() * 2.0 - 1.0));
        let fit = fit_hyperparameters(&cfg, &Stationary::se(1.0).unwrap(), 0.1, &x, &y, None).unwrap();
        let l = fit.kernel.lengthscales()[0];
        assert!((0.1..=0.4).contains(&l), "seed {seed}: ℓ̂ = {l}");
        assert!(fit.noise < 0.05, "seed {seed}: ρ̂ = {}", fit.noise);
    }
}

/// With repeated input points the aggregated log marginal likelihood (one row per distinct point,
/// noise ρ/c_u, plus the within-group terms) equals the direct formula on every row, value and
/// gradient; without repeats the direct formula runs unchanged.
#[test]
fn repeated_points_are_aggregated_exactly() {
    // 6 distinct points in [0, 1]², repeated 1–5 times (23 rows), targets with within-group spread.
    let base: [[f64; 2]; 6] = [[0.1, 0.2], [0.4, 0.9], [0.7, 0.3], [0.95, 0.6], [0.3, 0.5], [0.6, 0.05]];
    let reps = [5, 1, 4, 3, 2, 8];
    let mut rows = Vec::new();
    let mut ys = Vec::new();
    for (p, &r) in base.iter().zip(&reps) {
        for k in 0..r {
            rows.extend_from_slice(p);
            ys.push((p[0] * 5.0).sin() + p[1] + 0.3 * ((k * 7 % 5) as f64 / 4.0 - 0.5));
        }
    }
    let n = ys.len();
    let x = DMatrix::from_row_slice(n, 2, &rows);
    let y = DVector::from_vec(ys);
    let kernel = Stationary::new(KernelKind::Matern52, 0.3)
        .unwrap()
        .with_ard(vec![0.3, 0.5])
        .unwrap()
        .with_variance(1.7)
        .unwrap();
    for noise in [1e-3, 0.05, 0.8] {
        let grouped = log_marginal_likelihood(&kernel, &x, &y, noise).unwrap();
        let direct = super::likelihood::log_marginal_rows(&kernel, &x, &y, noise, true).unwrap();
        // The two forms solve systems of size 6 and 23 with condition numbers ≲ 1e4 (ρ ≥ 1e-3):
        // agreement to 1e-8 relative is rounding.
        approx::assert_relative_eq!(grouped.value, direct.value, max_relative = 1e-9);
        assert_eq!(grouped.gradient.len(), 4);
        for (g, d) in grouped.gradient.iter().zip(&direct.gradient) {
            approx::assert_relative_eq!(*g, *d, max_relative = 1e-8, epsilon = 1e-8);
        }
        let value_only = super::log_marginal(&kernel, &x, &y, noise, false).unwrap();
        approx::assert_relative_eq!(value_only.value, direct.value, max_relative = 1e-9);
    }
    // Distinct rows: the direct formula, bit for bit.
    let xd = DMatrix::from_row_slice(6, 2, &base.concat());
    let yd = DVector::from_fn(6, |i, _| i as f64 * 0.3);
    assert_eq!(
        log_marginal_likelihood(&kernel, &xd, &yd, 0.1).unwrap(),
        super::likelihood::log_marginal_rows(&kernel, &xd, &yd, 0.1, true).unwrap()
    );
}
