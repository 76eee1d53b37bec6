//! GP-UCB on a continuous box.

use crate::scalar::GpUcbConfig;
use crate::scalar_box::GpUcbBox;
use bohf_core::rng;
use bohf_core::{Answer, BoxDomain, Error, Optimizer, Point, Query};
use bohf_kernels::{KernelKind, KernelSpec};
use bohf_optim::MultistartConfig;

fn config(lengthscale: f64, noise: f64, beta: f64) -> GpUcbConfig {
    let kernel =
        KernelSpec { kind: KernelKind::Se, lengthscale: Some(lengthscale), lengthscales: None, variance: None };
    GpUcbConfig { kernel, noise, beta, hyperparameters: None, initial_budget: 0.0 }
}

/// A smooth bump on [0, 1]² with its maximum 1 at (0.3, 0.7) and a lower one (0.6) at (0.8, 0.2).
fn bump(x: &[f64]) -> f64 {
    let sq = |a: f64, b: f64| (x[0] - a).powi(2) + (x[1] - b).powi(2);
    (-sq(0.3, 0.7) / 0.05).exp() + 0.6 * (-sq(0.8, 0.2) / 0.02).exp()
}

fn coords(q: &Query) -> Vec<f64> {
    let Query::Evaluate(p) = q else { panic!("GP-UCB asks for values, got {q:?}") };
    p.coords.clone()
}

fn run(seed: u64, steps: usize) -> (GpUcbBox, Vec<Vec<f64>>) {
    let dom = BoxDomain::cube(0.0, 1.0, 2).unwrap();
    let mut alg =
        GpUcbBox::new(dom, config(0.2, 1e-4, 2.0).check().unwrap(), MultistartConfig::default().check().unwrap())
            .unwrap();
    let mut r = rng::seeded(seed);
    let mut queries = Vec::new();
    for _ in 0..steps {
        let q = alg.suggest(&mut r).unwrap();
        let x = coords(&q);
        alg.observe(&q, Answer::Value(bump(&x))).unwrap();
        queries.push(x);
    }
    (alg, queries)
}

#[test]
fn learns_a_smooth_2d_function() {
    let (alg, queries) = run(11, 30);
    let best = alg.recommend().unwrap().coords;
    // The recommended point is near the global maximiser (0.3, 0.7): within 0.03 in value (a
    // bump of width √0.05 ≈ 0.22: |f − 1| ≤ 0.03 means ‖x − x*‖ ≤ 0.04).
    assert!(bump(&best) > 0.97, "recommended {best:?} with value {}", bump(&best));
    // It queried near the maximiser repeatedly, not only by chance once.
    let near = queries.iter().filter(|x| bump(x) > 0.9).count();
    assert!(near >= 5, "{near} of 30 queries within 0.1 of the maximum");
    // Deterministic given the seed.
    assert_eq!(run(11, 30).1, queries);
}

#[test]
fn suggestion_maximises_the_ucb_against_a_fine_grid() {
    let (mut alg, _) = run(3, 8);
    let q = alg.suggest(&mut rng::seeded(99)).unwrap();
    let x = coords(&q);
    let found = alg.ucb_at(&x).unwrap();
    assert!((found - alg.last_step().unwrap().ucb).abs() < 1e-12);
    let n = 301;
    let mut grid_max = f64::NEG_INFINITY;
    for i in 0..n {
        for j in 0..n {
            let p = [i as f64 / (n - 1) as f64, j as f64 / (n - 1) as f64];
            grid_max = grid_max.max(alg.ucb_at(&p).unwrap());
        }
    }
    // The grid (step 1/300) can only miss the maximum from below; the optimiser must reach it up to
    // 10⁻⁶.
    assert!(found >= grid_max - 1e-6, "found {found}, grid maximum {grid_max}");
}

#[test]
fn ucb_gradient_matches_finite_differences() {
    let (alg, _) = run(5, 6);
    for x in [[0.1, 0.9], [0.55, 0.35], [0.95, 0.02]] {
        let (_, g) = alg.ucb_with_gradient(&x).unwrap();
        for j in 0..2 {
            let h = 1e-6;
            let (mut up, mut down) = (x, x);
            up[j] += h;
            down[j] -= h;
            let fd = (alg.ucb_at(&up).unwrap() - alg.ucb_at(&down).unwrap()) / (2.0 * h);
            assert!((g[j] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "∂{j} at {x:?}: {} vs {fd}", g[j]);
        }
    }
}

#[test]
fn bad_observations_and_configs_are_named_errors() {
    let dom = BoxDomain::cube(0.0, 1.0, 2).unwrap();
    let valid = || config(0.2, 0.01, 1.0).check().unwrap();
    let mut alg = GpUcbBox::new(dom.clone(), valid(), MultistartConfig::default().check().unwrap()).unwrap();
    // Before any observation it recommends the box's centre.
    assert_eq!(alg.recommend().unwrap().coords, vec![0.5, 0.5]);
    let q = alg.suggest(&mut rng::seeded(1)).unwrap();
    let name = |e: Error| match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("{other:?}"),
    };
    let outside = Query::Evaluate(Point::continuous(vec![0.5, 1.5]));
    assert_eq!(name(alg.observe(&outside, Answer::Value(1.0)).unwrap_err()), "query");
    let other = Query::Evaluate(Point::continuous(vec![0.5, 0.5]));
    assert!(alg.observe(&other, Answer::Value(1.0)).unwrap_err().to_string().contains("pending"));
    assert_eq!(name(alg.observe(&q, Answer::Duel { first_wins: true }).unwrap_err()), "answer");
    assert_eq!(name(alg.observe(&q, Answer::Value(f64::NAN)).unwrap_err()), "answer");
    let short = Query::Evaluate(Point::continuous(vec![0.5]));
    assert!(matches!(alg.observe(&short, Answer::Value(1.0)), Err(Error::DimensionMismatch { .. })));
    let duel = Query::Duel(Point::continuous(vec![0.5, 0.5]), Point::continuous(vec![0.5, 0.5]));
    assert_eq!(name(alg.observe(&duel, Answer::Value(1.0)).unwrap_err()), "query");
    // Nothing was recorded by the failed calls; the right answer is accepted.
    assert_eq!(alg.round(), 1);
    alg.observe(&q, Answer::Value(0.3)).unwrap();
    assert_eq!(alg.round(), 2);
    // An ARD kernel of the wrong dimension, a bad search config.
    let ard = KernelSpec { kind: KernelKind::Se, lengthscale: None, lengthscales: Some(vec![0.1; 3]), variance: None };
    let cfg = GpUcbConfig { kernel: ard, noise: 0.01, beta: 1.0, hyperparameters: None, initial_budget: 0.0 }
        .check()
        .unwrap();
    assert!(matches!(
        GpUcbBox::new(dom, cfg, MultistartConfig::default().check().unwrap()),
        Err(Error::DimensionMismatch { .. })
    ));
    let bad = MultistartConfig { starts: 0, ..MultistartConfig::default() };
    assert_eq!(name(bad.check().unwrap_err()), "starts");
}

/// `hyperparameters` table: a GP-UCB with learned hyperparameters on a problem whose scale is far
/// from the start kernel's (values in the hundreds, a box of width 10) refits on its schedule and
/// finds the maximum.
#[test]
fn learned_hyperparameters_refit_on_schedule_and_find_the_maximum_of_a_badly_scaled_function() {
    let dom = BoxDomain::cube(-5.0, 5.0, 2).unwrap();
    let f = |x: &[f64]| 300.0 + 500.0 * bump(&[(x[0] + 5.0) / 10.0, (x[1] + 5.0) / 10.0]);
    let best_after = |hyper: bohf_gp::HyperFitConfig| {
        let cfg = GpUcbConfig { hyperparameters: Some(hyper), ..config(0.2, 0.01, 2.0) };
        let mut alg =
            GpUcbBox::new(dom.clone(), cfg.check().unwrap(), MultistartConfig::default().check().unwrap()).unwrap();
        let mut r = rng::seeded(5);
        let mut best = f64::NEG_INFINITY;
        for _ in 0..25 {
            let q = alg.suggest(&mut r).unwrap();
            let y = f(&coords(&q));
            best = best.max(y);
            alg.observe(&q, Answer::Value(y)).unwrap();
        }
        (best, alg)
    };
    let hyper = bohf_gp::HyperFitConfig { refit_every: 5, ..Default::default() };
    let (learned, alg) = best_after(hyper);
    let bohf_gp::ValueGp::Learned(gp) = alg.gp() else { panic!("not learned") };
    // Fits at 2, 7, 12, 17, 22 observations.
    assert_eq!(gp.fits(), 5);
    assert!(gp.kernel().lengthscales().iter().all(|l| l.is_finite() && *l > 0.0));
    assert!(learned > 790.0, "learned: best value {learned} of 800");
    // The maximum 800 is at (−2, 2) in the original coordinates.
    let rec = alg.recommend().unwrap().coords;
    assert!((rec[0] + 2.0).abs() < 0.3 && (rec[1] - 2.0).abs() < 0.3, "{rec:?}");
}

/// Learned hyperparameters: the finite mode accepts them too; an invalid table and a start outside
/// its bounds are errors naming `hyperparameters.<field>` (on a box and on a candidate set).
#[test]
fn learned_hyperparameter_settings_are_checked_by_name() {
    use bohf_core::{FiniteDomain, SearchContext};
    let with = |h: bohf_gp::HyperFitConfig| GpUcbConfig { hyperparameters: Some(h), ..config(0.2, 0.01, 1.0) };
    let ctx = SearchContext::new(FiniteDomain::from_rows(&[vec![0.0], vec![1.0]]).unwrap(), 3).unwrap();
    let alg = crate::GpUcb::new(&ctx, with(Default::default()).check().unwrap()).unwrap();
    assert!(alg.learned().is_some());
    let bad = bohf_gp::HyperFitConfig { lengthscale_bounds: [1.0, 0.5], ..Default::default() };
    let e = with(bad).check().unwrap_err().to_string();
    assert!(e.contains("hyperparameters.lengthscale_bounds"), "{e}");
    // ℓ = 0.2 below the bounds [0.5, 10]: refused when the algorithm is built.
    let excl = bohf_gp::HyperFitConfig { lengthscale_bounds: [0.5, 10.0], ..Default::default() };
    let e = GpUcbBox::new(
        BoxDomain::cube(0.0, 1.0, 2).unwrap(),
        with(excl.clone()).check().unwrap(),
        MultistartConfig::default().check().unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("hyperparameters.lengthscale_bounds") && e.contains("outside"), "{e}");
    let e = crate::GpUcb::new(&ctx, with(excl).check().unwrap()).unwrap_err().to_string();
    assert!(e.contains("hyperparameters.lengthscale_bounds") && e.contains("outside"), "{e}");
    let linear = GpUcbConfig {
        kernel: KernelSpec { kind: KernelKind::Linear, lengthscale: None, lengthscales: None, variance: None },
        ..with(Default::default())
    };
    assert!(linear.check().unwrap_err().to_string().contains("kernel.kind"));
}
