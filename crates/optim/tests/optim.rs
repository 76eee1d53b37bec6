//! Tests of bohf-optim against independent answers: closed-form minimisers of bounded quadratics
//! and Rosenbrock, brute-force grids for the multistart maximiser, and the stratification property
//! of a scrambled Sobol design.

use bohf_core::{BoxDomain, Error, Result, rng};
use bohf_optim::{
    Climb, LocalConfig, LocalStop, MultistartConfig, RaceConfig, maximize_on_box, minimize_bounded,
    minimize_bounded_warm, race_on_box, sobol_design,
};
use bohf_problems::functions::{TestFunction, by_name};

/// f(x) = ½ (x − c)ᵀ A (x − c) with A = [[4, 1], [1, 2]] (positive definite) and its gradient.
fn quadratic(c: [f64; 2]) -> impl FnMut(&[f64], &mut [f64]) -> Result<f64> {
    move |x, g| {
        let (u, v) = (x[0] - c[0], x[1] - c[1]);
        g[0] = 4.0 * u + v;
        g[1] = u + 2.0 * v;
        Ok(0.5 * (4.0 * u * u + 2.0 * u * v + 2.0 * v * v))
    }
}

fn rosenbrock(x: &[f64], g: &mut [f64]) -> Result<f64> {
    let (a, b) = (1.0 - x[0], x[1] - x[0] * x[0]);
    g[0] = -2.0 * a - 400.0 * x[0] * b;
    g[1] = 200.0 * b;
    Ok(a * a + 100.0 * b * b)
}

#[test]
fn bounded_quadratic_meets_kkt_at_the_closed_form_minimiser() {
    // Unconstrained minimiser c = (3, −1) lies outside [−1, 1]²; with x₀ = 1 fixed at its upper
    // bound, the minimum over x₁ is at 2v + u = 0 → x₁ = c₁ − (1 − 3)/2 = 0, inside the box, so the
    // constrained minimiser is (1, 0) with ∂f/∂x₀ = 4(−2) + 1 = −7 < 0 (pushing out through the upper
    // bound: KKT multiplier 7).
    let r = minimize_bounded(quadratic([3.0, -1.0]), &[0.0, 0.5], &[-1.0, -1.0], &[1.0, 1.0], &LocalConfig::default())
        .unwrap();
    assert!((r.x[0] - 1.0).abs() < 1e-12 && r.x[1].abs() < 1e-7, "{r:?}");
    assert!(r.projected_gradient < 1e-7, "{r:?}");
    assert!((r.gradient[0] + 7.0).abs() < 1e-6, "{r:?}");
    assert!(r.stop.converged(), "{r:?}");
    // Both bounds active: c = (3, 3), box [−1, 1]² → (1, 1), gradient (−7, −5) pointing out.
    let r = minimize_bounded(quadratic([3.0, 3.0]), &[-1.0, -1.0], &[-1.0, -1.0], &[1.0, 1.0], &LocalConfig::default())
        .unwrap();
    assert_eq!(r.x, vec![1.0, 1.0]);
    assert_eq!(r.stop, LocalStop::ProjectedGradient);
    // A coordinate fixed by lower = upper = 0.5 stays there; the other is minimised given it
    // (∂f/∂x₀ = 4(x₀ − 0.3) + (0.5 + 0.2) = 0 → x₀ = 0.125).
    let r = minimize_bounded(quadratic([0.3, -0.2]), &[0.0, 0.5], &[-1.0, 0.5], &[1.0, 0.5], &LocalConfig::default())
        .unwrap();
    assert!((r.x[0] - 0.125).abs() < 1e-7 && r.x[1] == 0.5 && r.stop.converged(), "{r:?}");
    // Interior minimiser: found to the tolerance.
    let r = minimize_bounded(quadratic([0.3, -0.2]), &[1.0, 1.0], &[-1.0, -1.0], &[1.0, 1.0], &LocalConfig::default())
        .unwrap();
    assert!((r.x[0] - 0.3).abs() < 1e-7 && (r.x[1] + 0.2).abs() < 1e-7, "{r:?}");
}

#[test]
fn rosenbrock_free_and_with_an_active_bound() {
    let cfg = LocalConfig { max_iterations: 1000, ..LocalConfig::default() };
    let r = minimize_bounded(rosenbrock, &[-1.2, 1.0], &[-2.0, -2.0], &[2.0, 2.0], &cfg).unwrap();
    assert!((r.x[0] - 1.0).abs() < 1e-5 && (r.x[1] - 1.0).abs() < 1e-5, "{r:?}");
    assert!(r.value < 1e-10, "{r:?}");
    // One step only: stopped by the iteration limit, not an error, and f decreased.
    let one = LocalConfig { max_iterations: 1, ..LocalConfig::default() };
    let r = minimize_bounded(rosenbrock, &[-1.2, 1.0], &[-2.0, -2.0], &[2.0, 2.0], &one).unwrap();
    assert_eq!((r.stop, r.iterations), (LocalStop::MaxIterations, 1));
    assert!(r.value < 24.2 && !r.stop.converged(), "{r:?}"); // f(−1.2, 1) = 24.2
    // With x₀ ≤ 0.5: for fixed x₀ the best x₁ is x₀², and (1 − x₀)² decreases up to x₀ = 1, so the
    // minimiser is (0.5, 0.25) with value 0.25.
    let r = minimize_bounded(rosenbrock, &[-1.2, 1.0], &[-2.0, -2.0], &[0.5, 2.0], &cfg).unwrap();
    assert!((r.x[0] - 0.5).abs() < 1e-12 && (r.x[1] - 0.25).abs() < 1e-6, "{r:?}");
    assert!((r.value - 0.25).abs() < 1e-10 && r.projected_gradient < 1e-6, "{r:?}");
}

/// Rosenbrock with its minimiser moved to (1 + t, (1 + t)²): f(x) = r(x₀ − t, x₁ − (1+t)² + 1).
fn shifted_rosenbrock(t: f64) -> impl FnMut(&[f64], &mut [f64]) -> Result<f64> {
    move |x, g| rosenbrock(&[x[0] - t, x[1] - (1.0 + t) * (1.0 + t) + 1.0], g)
}

#[test]
fn warm_curvature_reaches_the_same_minimiser_in_fewer_evaluations() {
    let cfg = LocalConfig { max_iterations: 1000, ..LocalConfig::default() };
    let (lo, hi) = ([-2.0, -2.0], [3.0, 5.0]);
    // No pairs: minimize_bounded, step for step.
    let cold = minimize_bounded(rosenbrock, &[-1.2, 1.0], &lo, &hi, &cfg).unwrap();
    let same = minimize_bounded_warm(rosenbrock, &[-1.2, 1.0], &lo, &hi, &cfg, &[]).unwrap();
    assert_eq!(cold, same);
    assert!(!cold.curvature.is_empty() && cold.curvature.len() <= cfg.memory);
    for (s, y) in &cold.curvature {
        assert!(s.iter().zip(y).map(|(a, b)| a * b).sum::<f64>() > 0.0);
    }
    // A refit after a small change: the minimiser moves from (1, 1) to (1.02, 1.0404) (closed
    // form). From the old minimiser, the old search's pairs give the same minimiser in fewer
    // evaluations than a search without them.
    let t = 0.02;
    let fresh = minimize_bounded(shifted_rosenbrock(t), &cold.x, &lo, &hi, &cfg).unwrap();
    let warm = minimize_bounded_warm(shifted_rosenbrock(t), &cold.x, &lo, &hi, &cfg, &cold.curvature).unwrap();
    for r in [&fresh, &warm] {
        assert!((r.x[0] - 1.02).abs() < 1e-5 && (r.x[1] - 1.0404).abs() < 1e-5 && r.stop.converged(), "{r:?}");
    }
    assert!(warm.evaluations < fresh.evaluations, "warm {} vs fresh {}", warm.evaluations, fresh.evaluations);
    // Pairs of the wrong length or not finite are named errors; pairs without curvature are dropped.
    let bad = [(vec![1.0], vec![1.0])];
    let e = minimize_bounded_warm(rosenbrock, &[0.0, 0.0], &lo, &hi, &cfg, &bad).unwrap_err();
    assert!(e.to_string().contains("curvature[0]"), "{e}");
    let nan = [(vec![1.0, f64::NAN], vec![1.0, 1.0])];
    let e = minimize_bounded_warm(rosenbrock, &[0.0, 0.0], &lo, &hi, &cfg, &nan).unwrap_err();
    assert!(e.to_string().contains("curvature[0]"), "{e}");
    let flat = [(vec![1.0, 0.0], vec![-1.0, 0.0])];
    let r = minimize_bounded_warm(rosenbrock, &[-1.2, 1.0], &lo, &hi, &cfg, &flat).unwrap();
    assert_eq!(r, minimize_bounded(rosenbrock, &[-1.2, 1.0], &lo, &hi, &cfg).unwrap());
}

#[test]
fn bad_bounds_starts_configs_and_non_finite_values_are_named_errors() {
    let cfg = LocalConfig::default();
    let q = || quadratic([0.0, 0.0]);
    let name = |e: Error| match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected an invalid parameter, got {other:?}"),
    };
    assert_eq!(name(minimize_bounded(q(), &[0.0, 0.0], &[0.0, 1.0], &[1.0, 0.5], &cfg).unwrap_err()), "lower[1]");
    assert_eq!(name(minimize_bounded(q(), &[0.0, 0.0], &[f64::NAN, 0.0], &[1.0, 1.0], &cfg).unwrap_err()), "lower[0]");
    assert_eq!(
        name(minimize_bounded(q(), &[0.0, 0.0], &[0.0, 0.0], &[1.0, f64::INFINITY], &cfg).unwrap_err()),
        "upper[1]"
    );
    assert_eq!(name(minimize_bounded(q(), &[0.0, 2.0], &[0.0, 0.0], &[1.0, 1.0], &cfg).unwrap_err()), "x0[1]");
    assert!(matches!(
        minimize_bounded(q(), &[0.0], &[0.0, 0.0], &[1.0, 1.0], &cfg),
        Err(Error::DimensionMismatch { .. })
    ));
    let bad = LocalConfig { memory: 0, ..LocalConfig::default() };
    assert_eq!(name(minimize_bounded(q(), &[0.0, 0.0], &[0.0, 0.0], &[1.0, 1.0], &bad).unwrap_err()), "memory");
    // NaN at the start, a NaN gradient at an accepted point: errors, never a NaN result.
    let nan_start = |_: &[f64], _: &mut [f64]| -> Result<f64> { Ok(f64::NAN) };
    assert!(matches!(minimize_bounded(nan_start, &[0.5], &[0.0], &[1.0], &cfg), Err(Error::NonFinite(_))));
    let nan_grad = |x: &[f64], g: &mut [f64]| -> Result<f64> {
        g[0] = if x[0] < 0.5 { 2.0 * (x[0] - 1.0) } else { f64::NAN };
        Ok((x[0] - 1.0).powi(2))
    };
    assert!(matches!(minimize_bounded(nan_grad, &[0.0], &[0.0], &[1.0], &cfg), Err(Error::NonFinite(_))));
    // A NaN value at trial points only shortens the step: minimising (x − 1)² where it is NaN
    // beyond 0.7 ends in [0, 0.7] with a finite value.
    let nan_region = |x: &[f64], g: &mut [f64]| -> Result<f64> {
        g[0] = 2.0 * (x[0] - 1.0);
        Ok(if x[0] > 0.7 { f64::NAN } else { (x[0] - 1.0).powi(2) })
    };
    let r = minimize_bounded(nan_region, &[0.0], &[0.0], &[2.0], &cfg).unwrap();
    assert!(r.x[0] <= 0.7 && r.value.is_finite() && r.value < 1.0, "{r:?}");
    // The objective's own error passes through.
    let failing = |_: &[f64], _: &mut [f64]| -> Result<f64> { Err(Error::invalid("objective", "boom")) };
    assert_eq!(name(minimize_bounded(failing, &[0.5], &[0.0], &[1.0], &cfg).unwrap_err()), "objective");
}

/// Central finite-difference gradient of a test function (h = 10⁻⁶ of the box side), for
/// functions that have no analytic gradient in bohf-problems.
fn with_fd_gradient(f: &dyn TestFunction) -> impl FnMut(&[f64], &mut [f64]) -> Result<f64> + '_ {
    let dom = f.domain();
    let h: Vec<f64> = dom.lower().iter().zip(dom.upper()).map(|(l, u)| 1e-6 * (u - l)).collect();
    move |x, g| {
        let mut y = x.to_vec();
        for j in 0..x.len() {
            y[j] = x[j] + h[j];
            let up = f.eval(&y);
            y[j] = x[j] - h[j];
            let down = f.eval(&y);
            y[j] = x[j];
            g[j] = (up - down) / (2.0 * h[j]);
        }
        f.value(x)
    }
}

/// The maximum of f over a tensor grid of `per_dim` points per dimension of its domain.
fn grid_max(f: &dyn TestFunction, per_dim: usize) -> f64 {
    let grid = f.domain().grid(per_dim).unwrap();
    (0..grid.len()).map(|i| f.eval(&grid.coords(i).unwrap())).fold(f64::NEG_INFINITY, f64::max)
}

/// Gramacy & Lee (2012): f(x) = sin(10πx)/(2x) + (x − 1)⁴ on [0.5, 2.5], many local minima; we
/// maximise −f (analytic gradient).
fn neg_gramacy_lee(x: &[f64], g: &mut [f64]) -> Result<f64> {
    let t = x[0];
    let pi = std::f64::consts::PI;
    let f = (10.0 * pi * t).sin() / (2.0 * t) + (t - 1.0).powi(4);
    let df =
        10.0 * pi * (10.0 * pi * t).cos() / (2.0 * t) - (10.0 * pi * t).sin() / (2.0 * t * t) + 4.0 * (t - 1.0).powi(3);
    g[0] = -df;
    Ok(-f)
}

#[test]
fn multistart_matches_a_fine_grid_in_1d() {
    let dom = BoxDomain::new(vec![0.5], vec![2.5]).unwrap();
    // Brute force over 200 001 grid points (step 10⁻⁵).
    let n = 200_001;
    let mut g = [0.0];
    let best_grid = (0..n)
        .map(|i| neg_gramacy_lee(&[0.5 + 2.0 * i as f64 / (n - 1) as f64], &mut g).unwrap())
        .fold(f64::NEG_INFINITY, f64::max);
    let cfg = MultistartConfig { design: 32, samples: 32, starts: 3, ..MultistartConfig::default() };
    for seed in 0..5 {
        let m = maximize_on_box(&mut neg_gramacy_lee, &dom, &mut rng::seeded(seed), &[], &cfg).unwrap();
        // At least the grid maximum up to the grid's own resolution error (f′ = 0 at the optimum,
        // |f″| < 10³, so a 10⁻⁵ grid misses by < 10⁻⁷), and never above the true maximum by more.
        assert!(m.value >= best_grid - 1e-9 && m.value <= best_grid + 1e-7, "seed {seed}: {} vs {best_grid}", m.value);
        assert!(dom.contains(&m.x));
    }
}

#[test]
fn multistart_matches_a_fine_grid_on_2d_test_functions() {
    let cfg = MultistartConfig::default();
    // (name, tolerance relative to the function's range on the grid)
    for name in ["branin", "six_hump_camel", "ackley"] {
        let f = by_name(name, Some(2)).unwrap();
        let dom = f.domain();
        let best = grid_max(f.as_ref(), 801);
        let mut obj = with_fd_gradient(f.as_ref());
        let m = maximize_on_box(&mut obj, &dom, &mut rng::seeded(7), &[], &cfg).unwrap();
        // Smooth optima: the local search ends on the optimum, at or above the grid maximum (the
        // grid's resolution error is O(h²·|f″|) ≥ 0) up to 10⁻⁶. Ackley's optimum (0, 0) is a grid
        // node and a kink: within 10⁻⁴ of it.
        let tol = if name == "ackley" { 1e-4 } else { 1e-6 };
        assert!(m.value >= best - tol, "{name}: {} vs grid {best}", m.value);
        let known = f.optimum().unwrap().value;
        assert!(m.value <= known + 1e-9, "{name}: {} above the known maximum {known}", m.value);
        assert!(dom.contains(&m.x));
    }
}

#[test]
fn same_seed_same_result_and_extra_starts_are_checked_and_used() {
    let f = by_name("branin", None).unwrap();
    let dom = f.domain();
    let cfg = MultistartConfig { design: 64, samples: 64, starts: 3, ..MultistartConfig::default() };
    let run =
        |seed| maximize_on_box(&mut with_fd_gradient(f.as_ref()), &dom, &mut rng::seeded(seed), &[], &cfg).unwrap();
    let (a, b) = (run(3), run(3));
    assert_eq!(a, b);
    assert_eq!(a.searches.len(), 3);
    // Extra starts: refined after the screened ones (index 3 here).
    let one_start = MultistartConfig { design: 0, samples: 1, starts: 1, ..cfg.clone() };
    let opt = f.optimum().unwrap();
    let extra = vec![opt.points[0].clone()];
    let m = maximize_on_box(&mut with_fd_gradient(f.as_ref()), &dom, &mut rng::seeded(1), &extra, &one_start).unwrap();
    assert_eq!(m.searches.len(), 2);
    assert!(m.value >= opt.value - 1e-9);
    let outside = vec![vec![0.0, 100.0]];
    let e = maximize_on_box(&mut with_fd_gradient(f.as_ref()), &dom, &mut rng::seeded(1), &outside, &cfg).unwrap_err();
    assert!(matches!(&e, Error::InvalidParameter { name, .. } if name == "extra_starts[0][1]"), "{e:?}");
    let bad = MultistartConfig { starts: 0, ..cfg.clone() };
    assert!(matches!(maximize_on_box(&mut with_fd_gradient(f.as_ref()), &dom, &mut rng::seeded(1), &[], &bad),
        Err(Error::InvalidParameter { name, .. }) if name == "starts"));
    let bad = MultistartConfig { local: LocalConfig { gradient_tolerance: -1.0, ..LocalConfig::default() }, ..cfg };
    assert!(matches!(bad.check(), Err(Error::InvalidParameter { name, .. }) if name == "local.gradient_tolerance"));
}

#[test]
fn sobol_design_is_stratified_deterministic_and_inside() {
    // An Owen-scrambled Sobol sequence keeps the (0, m, 2)-net property of its first two
    // dimensions: 2^m points put exactly one point in each of the 2^m elementary intervals of
    // every 1-D projection, and in each cell of a 2^k × 2^(m−k) partition of the square.
    let dom = BoxDomain::new(vec![-1.0, 10.0], vec![1.0, 14.0]).unwrap();
    let pts = sobol_design(&dom, 64, &mut rng::seeded(5)).unwrap();
    assert_eq!(pts, sobol_design(&dom, 64, &mut rng::seeded(5)).unwrap());
    assert_ne!(pts, sobol_design(&dom, 64, &mut rng::seeded(6)).unwrap());
    for (bx, by) in [(64usize, 1usize), (1, 64), (8, 8), (4, 16)] {
        let mut cells = vec![0; bx * by];
        for p in &pts {
            assert!(dom.contains(p));
            let i = (((p[0] + 1.0) / 2.0) * bx as f64) as usize;
            let j = (((p[1] - 10.0) / 4.0) * by as f64) as usize;
            cells[i * by + j] += 1;
        }
        assert!(cells.iter().all(|&c| c == 1), "{bx}×{by}: {cells:?}");
    }
    let big = BoxDomain::cube(0.0, 1.0, bohf_optim::MAX_SOBOL_DIM + 1).unwrap();
    assert!(sobol_design(&big, 4, &mut rng::seeded(0)).is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Random convex quadratics ½(x − c)ᵀA(x − c), A = BᵀB + 0.1 I, over random boxes: the result
    /// satisfies the KKT conditions checked here from the gradient alone (free coordinates: ∂f ≈ 0;
    /// at a lower bound: ∂f ≥ 0; at an upper bound: ∂f ≤ 0), which for a convex problem is optimality.
    #[test]
    fn random_bounded_quadratics_meet_kkt(
        d in 1usize..6,
        entries in proptest::collection::vec(-1.0f64..1.0, 36),
        centre in proptest::collection::vec(-3.0f64..3.0, 6),
        lo in proptest::collection::vec(-2.0f64..0.0, 6),
        width in proptest::collection::vec(0.1f64..3.0, 6),
        start in proptest::collection::vec(0.0f64..1.0, 6),
    ) {
        let a: Vec<Vec<f64>> = (0..d)
            .map(|i| (0..d).map(|j| (0..d).map(|k| entries[k * 6 + i] * entries[k * 6 + j]).sum::<f64>() + if i == j { 0.1 } else { 0.0 }).collect())
            .collect();
        let grad = |x: &[f64]| -> Vec<f64> { (0..d).map(|i| (0..d).map(|j| a[i][j] * (x[j] - centre[j])).sum()).collect() };
        let f = |x: &[f64], g: &mut [f64]| -> Result<f64> {
            let gx = grad(x);
            g.copy_from_slice(&gx);
            Ok(0.5 * (0..d).map(|i| gx[i] * (x[i] - centre[i])).sum::<f64>())
        };
        let (lower, upper): (Vec<f64>, Vec<f64>) = (0..d).map(|j| (lo[j], lo[j] + width[j])).unzip();
        let x0: Vec<f64> = (0..d).map(|j| lower[j] + start[j] * width[j]).collect();
        let cfg = LocalConfig { max_iterations: 2000, ..LocalConfig::default() };
        let r = minimize_bounded(f, &x0, &lower, &upper, &cfg).unwrap();
        let g = grad(&r.x);
        for j in 0..d {
            proptest::prop_assert!(lower[j] <= r.x[j] && r.x[j] <= upper[j]);
            let tol = 1e-6;
            if r.x[j] == lower[j] {
                proptest::prop_assert!(g[j] >= -tol, "{j}: at lower with ∂f = {}", g[j]);
            } else if r.x[j] == upper[j] {
                proptest::prop_assert!(g[j] <= tol, "{j}: at upper with ∂f = {}", g[j]);
            } else {
                proptest::prop_assert!(g[j].abs() <= tol, "{j}: free with ∂f = {} ({:?})", g[j], r);
            }
        }
    }
}

/// A [`Climb`] for the race tests: f with its gradient, a local ascent by [`minimize_bounded`] on
/// −f, screening by f itself (ranking 0) and, as a second ranking, by −f (the worst first: it
/// shows that the starts are taken in turn), with counts of exact values and climbs.
struct Counting<F> {
    f: F,
    lower: Vec<f64>,
    upper: Vec<f64>,
    two_rankings: bool,
    values: usize,
    climbs: Vec<Vec<f64>>,
}

impl<F: FnMut(&[f64], &mut [f64]) -> Result<f64>> Climb for Counting<F> {
    fn rankings(&self) -> usize {
        if self.two_rankings { 2 } else { 1 }
    }
    fn screen(&mut self, x: &[f64], scores: &mut [f64]) -> Result<()> {
        let mut g = vec![0.0; x.len()];
        let v = (self.f)(x, &mut g)?;
        scores[0] = v;
        if self.two_rankings {
            scores[1] = -v;
        }
        Ok(())
    }
    fn value(&mut self, x: &[f64]) -> Result<f64> {
        self.values += 1;
        let mut g = vec![0.0; x.len()];
        (self.f)(x, &mut g)
    }
    fn climb(&mut self, x0: &[f64], f0: f64) -> Result<(Vec<f64>, f64)> {
        self.climbs.push(x0.to_vec());
        let mut neg = |x: &[f64], g: &mut [f64]| -> Result<f64> {
            let v = (self.f)(x, g)?;
            g.iter_mut().for_each(|g| *g = -*g);
            Ok(-v)
        };
        let r = minimize_bounded(&mut neg, x0, &self.lower, &self.upper, &LocalConfig::default())?;
        assert!(-r.value >= f0 - 1e-12, "a local ascent never ends below its start");
        Ok((r.x, -r.value))
    }
}

fn counting<F>(f: F, dom: &BoxDomain, two_rankings: bool) -> Counting<F> {
    Counting { f, lower: dom.lower().to_vec(), upper: dom.upper().to_vec(), two_rankings, values: 0, climbs: vec![] }
}

#[test]
fn race_matches_a_fine_grid_in_1d_and_2d() {
    // 1-D: Gramacy & Lee against a 200 001-point grid, as for `maximize_on_box`.
    let dom = BoxDomain::new(vec![0.5], vec![2.5]).unwrap();
    let n = 200_001;
    let mut g = [0.0];
    let best_grid = (0..n)
        .map(|i| neg_gramacy_lee(&[0.5 + 2.0 * i as f64 / (n - 1) as f64], &mut g).unwrap())
        .fold(f64::NEG_INFINITY, f64::max);
    let cfg = RaceConfig { design: 32, samples: 32, starts: 6, climbs: 2 };
    for seed in 0..5 {
        let mut p = counting(neg_gramacy_lee, &dom, false);
        let m = race_on_box(&mut p, &dom, &mut rng::seeded(seed), &[], &cfg).unwrap();
        assert!(m.value >= best_grid - 1e-9 && m.value <= best_grid + 1e-7, "seed {seed}: {} vs {best_grid}", m.value);
        assert_eq!((p.values, p.climbs.len(), m.starts.len(), m.climbs.len()), (6, 2, 6, 2));
    }
    // 2-D test functions against an 801² grid.
    for name in ["branin", "six_hump_camel"] {
        let f = by_name(name, Some(2)).unwrap();
        let dom = f.domain();
        let best = grid_max(f.as_ref(), 801);
        let mut p = counting(with_fd_gradient(f.as_ref()), &dom, false);
        let m = race_on_box(&mut p, &dom, &mut rng::seeded(7), &[], &RaceConfig::default()).unwrap();
        assert!(m.value >= best - 1e-6, "{name}: {} vs grid {best}", m.value);
        assert!(m.value <= f.optimum().unwrap().value + 1e-9);
        assert!(dom.contains(&m.x));
    }
}

/// −(the quadratic of [`quadratic`]): maximal (0) at c.
fn cap(c: [f64; 2]) -> impl FnMut(&[f64], &mut [f64]) -> Result<f64> {
    let mut q = quadratic(c);
    move |x, g| {
        let v = q(x, g)?;
        g.iter_mut().for_each(|g| *g = -*g);
        Ok(-v)
    }
}

#[test]
fn race_climbs_the_best_starts_takes_rankings_in_turn_and_checks_its_input() {
    let dom = BoxDomain::new(vec![0.0, 0.0], vec![1.0, 1.0]).unwrap();
    let cfg = RaceConfig { design: 16, samples: 16, starts: 4, climbs: 2 };
    let bowl = cap([0.3, 0.6]);
    // Two rankings: best and worst by f, in turn, so the starts alternate high and low values,
    // and the two climbed are the two best of them.
    let mut p = counting(bowl, &dom, true);
    let m = race_on_box(&mut p, &dom, &mut rng::seeded(1), &[], &cfg).unwrap();
    let v: Vec<f64> = m.starts.iter().map(|s| s.1).collect();
    assert!(v[0] > v[1] && v[2] > v[3] && v[0] >= v[2] && v[1] <= v[3], "{v:?}");
    let mut sorted = m.starts.clone();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    assert_eq!(p.climbs, vec![sorted[0].0.clone(), sorted[1].0.clone()]);
    assert!(m.value > -1e-10 && (m.x[0] - 0.3).abs() < 1e-4 && (m.x[1] - 0.6).abs() < 1e-4, "{m:?}");
    // Same seed, same result; the extra points are screened too (only the extra point here).
    let again = race_on_box(&mut counting(cap([0.3, 0.6]), &dom, true), &dom, &mut rng::seeded(1), &[], &cfg);
    assert_eq!(again.unwrap(), m);
    let only = RaceConfig { design: 0, samples: 0, starts: 1, climbs: 1 };
    let mut p = counting(cap([0.3, 0.6]), &dom, false);
    let m = race_on_box(&mut p, &dom, &mut rng::seeded(1), &[vec![0.9, 0.1]], &only).unwrap();
    assert_eq!(m.starts[0].0, vec![0.9, 0.1]);
    // Errors name the field.
    let name = |e: Error| match e {
        Error::InvalidParameter { name, .. } => name,
        other => format!("{other:?}"),
    };
    let run = |cfg: &RaceConfig, extra: &[Vec<f64>]| {
        race_on_box(&mut counting(cap([0.3, 0.6]), &dom, false), &dom, &mut rng::seeded(1), extra, cfg).unwrap_err()
    };
    assert_eq!(name(run(&RaceConfig { starts: 0, ..cfg.clone() }, &[])), "starts");
    assert_eq!(name(run(&RaceConfig { climbs: 5, ..cfg.clone() }, &[])), "climbs");
    assert_eq!(name(run(&RaceConfig { climbs: 0, ..cfg.clone() }, &[])), "climbs");
    assert_eq!(name(run(&RaceConfig { design: 1 << 17, ..cfg.clone() }, &[])), "design");
    assert_eq!(name(run(&only, &[])), "samples");
    assert!(name(run(&cfg, &[vec![1.5, 0.0]])).starts_with("extra[0]"));
    let nan = |_: &[f64], _: &mut [f64]| -> Result<f64> { Ok(f64::NAN) };
    let e = race_on_box(&mut counting(nan, &dom, false), &dom, &mut rng::seeded(1), &[], &cfg).unwrap_err();
    assert!(matches!(e, Error::NonFinite(_)), "{e:?}");
}
