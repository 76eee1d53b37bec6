//! Tests of the box mode: the constrained search against brute force on fine grids, and runs.

use super::*;
use bohf_core::{Answer, BoxDomain, Optimizer, Query, QueryCosts, Result, SearchContext, WidthSchedule, rng};
use bohf_optim::Objective;
use bohf_problems::functions::{CurrinExp, Fidelity};
use bohf_problems::respondents::{BiasedComparisons, DuelModel, Respondent};

fn search() -> CompBoxSearch {
    CompBoxSearch { design: 64, samples: 64, starts: 4, ..CompBoxSearch::default() }
}

#[test]
fn constrained_search_matches_brute_force_on_a_fine_1d_grid() {
    let domain = BoxDomain::cube(0.0, 2.0, 1).unwrap();
    // UCB = sin(3x) + x peaks near 0.52 and 2.0; φ = 0.09 − (x − 1.2)² is feasible on [0.9, 1.5],
    // where the constrained maximum is on the interior or the boundary.
    let mut ucb = |x: &[f64], g: &mut [f64]| -> Result<f64> {
        g[0] = 3.0 * (3.0 * x[0]).cos() + 1.0;
        Ok((3.0 * x[0]).sin() + x[0])
    };
    for centre in [1.2, 0.6, 1.8] {
        let mut phi = |x: &[f64], g: &mut [f64]| -> Result<f64> {
            g[0] = -2.0 * (x[0] - centre);
            Ok(0.09 - (x[0] - centre).powi(2))
        };
        let found = maximize_constrained(&mut ucb, &mut phi, &domain, &mut rng::seeded(1), &[], &search())
            .unwrap()
            .expect("a feasible point");
        assert!(phi.value(&found.x).unwrap() >= 0.0);
        // Brute force over 200 001 grid points.
        let brute = (0..=200_000)
            .map(|i| 2.0 * i as f64 / 200_000.0)
            .filter(|&x| 0.09 - (x - centre).powi(2) >= 0.0)
            .map(|x| (3.0 * x).sin() + x)
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(found.value >= brute - 1e-6, "centre {centre}: {} vs brute {brute}", found.value);
        assert!(found.value <= brute + 1e-6);
    }
    // Nowhere feasible: None (the caller's fallback decides).
    let mut never = |_: &[f64], g: &mut [f64]| -> Result<f64> {
        g[0] = 0.0;
        Ok(-1.0)
    };
    assert!(
        maximize_constrained(&mut ucb, &mut never, &domain, &mut rng::seeded(1), &[], &search()).unwrap().is_none()
    );
}

#[test]
fn constrained_search_matches_brute_force_on_a_fine_2d_grid() {
    let domain = BoxDomain::cube(0.0, 1.0, 2).unwrap();
    // UCB peaks at (0.9, 0.9); φ ≥ 0 on the disc of radius 0.5 around 0: the constrained maximum is
    // on the circle, at 0.5·(1, 1)/√2.
    let mut ucb = |x: &[f64], g: &mut [f64]| -> Result<f64> {
        g[0] = -2.0 * (x[0] - 0.9);
        g[1] = -2.0 * (x[1] - 0.9);
        Ok(-(x[0] - 0.9).powi(2) - (x[1] - 0.9).powi(2))
    };
    let mut phi = |x: &[f64], g: &mut [f64]| -> Result<f64> {
        g[0] = -2.0 * x[0];
        g[1] = -2.0 * x[1];
        Ok(0.25 - x[0] * x[0] - x[1] * x[1])
    };
    let found =
        maximize_constrained(&mut ucb, &mut phi, &domain, &mut rng::seeded(3), &[], &search()).unwrap().unwrap();
    assert!(phi.value(&found.x).unwrap() >= 0.0);
    let n = 1000;
    let mut brute = f64::NEG_INFINITY;
    for i in 0..=n {
        for j in 0..=n {
            let (x, y) = (i as f64 / n as f64, j as f64 / n as f64);
            if 0.25 - x * x - y * y >= 0.0 {
                brute = brute.max(-(x - 0.9).powi(2) - (y - 0.9).powi(2));
            }
        }
    }
    let exact = -2.0 * (0.9 - 0.5 / 2f64.sqrt()).powi(2);
    assert!((brute - exact).abs() < 2e-3, "the grid's maximum {brute} vs {exact}");
    // At least as good as the grid, up to the grid's resolution, and never better than the truth.
    assert!(found.value >= brute - 1e-6, "{} vs {brute}", found.value);
    assert!(found.value <= exact + 1e-12);
}

fn box_ctx() -> SearchContext<BoxDomain> {
    SearchContext::new(BoxDomain::cube(0.0, 1.0, 2).unwrap(), 200).unwrap().with_costs(QueryCosts {
        total: 100.0,
        duel: 0.1,
        evaluate: 1.0,
        label: 1.0,
    })
}

fn quick_box() -> CompGpUcbConfig {
    CompGpUcbConfig {
        kernel: bohf_kernels::KernelSpec {
            kind: bohf_kernels::KernelKind::Se,
            lengthscale: Some(0.25),
            lengthscales: None,
            variance: None,
        },
        noise: 0.01,
        comparison_noise: Some(0.25),
        hyperparameters: None,
        comparison_hyperparameters: None,
        zeta: 0.25,
        gamma: GammaRule::Value { value: 0.3 },
        initial: InitialDesign { budget: 8.0, counting: InitialCounting::Count, counts_toward_budget: true },
        ..CompGpUcbConfig::default()
    }
}

/// Runs the box mode for `steps` steps, calling `check` after each suggestion.
fn run_box(
    steps: usize,
    seed: u64,
    mut check: impl FnMut(&CompGpUcbBox, &Query),
) -> (CompGpUcbBox, Vec<(Query, Answer)>) {
    // The default search (256 + 256 screened points, 5 starts): the smaller one of the grid tests
    // can miss a corner's maximum of UCB_r.
    let mut alg =
        CompGpUcbBox::new(&box_ctx(), quick_box().check().unwrap(), CompBoxSearch::default().check().unwrap()).unwrap();
    let mut resp = BiasedComparisons::new(
        CurrinExp::new(Fidelity::High),
        CurrinExp::new(Fidelity::Low),
        DuelModel::Deterministic,
        0.0,
    )
    .unwrap();
    let (mut ra, mut rr) = (rng::seeded(seed), rng::seeded(seed + 100));
    let mut history = Vec::new();
    for _ in 0..steps {
        let q = alg.suggest(&mut ra).unwrap();
        check(&alg, &q);
        let a = resp.answer(&q, &mut rr).unwrap();
        alg.observe(&q, a).unwrap();
        history.push((q, a));
    }
    (alg, history)
}

#[test]
fn box_mode_phase_two_points_are_feasible_and_beat_a_grid() {
    let mut phase2 = 0;
    let (alg, history) = run_box(40, 5, |alg, q| {
        let d = alg.last_decision().unwrap();
        let x = match q {
            Query::Duel(p, _) | Query::Evaluate(p) | Query::Label(p) => p.coords.clone(),
            Query::Choice(_) => panic!("COMP-GP-UCB asks no choices"),
        };
        match d.phase {
            Phase::Comparisons => {
                // The phase-1 point maximises UCB_r: no point of a 41×41 grid is better by more than
                // 1% (a multistart search may take the lower of two near-equal local maxima).
                let mut u = alg.ucb(true).unwrap();
                let (bp, best) = grid(41)
                    .map(|p| (p.clone(), u.value(&p).unwrap()))
                    .fold((vec![], f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a });
                assert!(
                    u.value(&x).unwrap() >= best - 0.01 * best.abs(),
                    "phase 1: {} at {x:?} vs grid {best} at {bp:?}, n = {}",
                    u.value(&x).unwrap(),
                    alg.comparison_gp().len()
                );
            }
            Phase::Constrained if !d.feasible_empty => {
                phase2 += 1;
                assert!(alg.phi_at(&x, d.f_hat).unwrap() >= 0.0, "infeasible phase-2 point");
                let mut uf = alg.ucb(false).unwrap();
                let best = grid(41)
                    .filter(|p| alg.phi_at(p, d.f_hat).unwrap() >= 0.0)
                    .map(|p| uf.value(&p).unwrap())
                    .fold(f64::NEG_INFINITY, f64::max);
                let got = uf.value(&x).unwrap();
                assert!(got >= best - 0.01 * best.abs().max(1.0), "phase 2: {got} vs grid {best}");
                // Duel iff β^r σ^r ≥ γ.
                assert_eq!(matches!(q, Query::Duel(..)), d.beta_r_sigma_r >= d.gamma);
            }
            _ => {}
        }
    });
    assert!(phase2 > 5, "only {phase2} phase-2 steps");
    // A replayed history gives the same state; the same seed the same queries.
    let mut replayed =
        CompGpUcbBox::new(&box_ctx(), quick_box().check().unwrap(), CompBoxSearch::default().check().unwrap()).unwrap();
    replayed.observe_batch(&history).unwrap();
    assert_eq!(replayed.answered(), alg.answered());
    assert_eq!(replayed.gamma(), alg.gamma());
    assert_eq!(replayed.phase1_exit(), alg.phase1_exit());
    let (_, again) = run_box(40, 5, |_, _| {});
    assert_eq!(again, history);
}

#[test]
fn box_mode_refuses_the_theory_beta_and_wrong_answers() {
    let theory = CompGpUcbConfig { beta: WidthSchedule::Theory { norm_bound: 1.0, delta: 0.1 }, ..quick_box() };
    let e = CompGpUcbBox::new(&box_ctx(), theory.check().unwrap(), search().check().unwrap()).unwrap_err();
    assert!(e.to_string().contains("beta.rule"), "{e}");
    assert!(CompBoxSearch { penalty: 0.0, ..search() }.check().unwrap_err().to_string().contains("penalty"));
    let mut alg = CompGpUcbBox::new(&box_ctx(), quick_box().check().unwrap(), search().check().unwrap()).unwrap();
    let q = alg.suggest(&mut rng::seeded(1)).unwrap();
    assert!(alg.observe(&q, Answer::Value(1.0)).is_err());
    let other = Query::Duel(bohf_core::Point::continuous(vec![0.5, 0.5]), bohf_core::Point::continuous(vec![0.1, 0.1]));
    assert!(alg.observe(&other, Answer::Duel { first_wins: true }).is_err());
    let outside =
        Query::Duel(bohf_core::Point::continuous(vec![1.5, 0.5]), bohf_core::Point::continuous(vec![0.1, 0.1]));
    assert!(alg.observe(&outside, Answer::Duel { first_wins: true }).is_err());
    assert_eq!(alg.answered(), 0);
    alg.observe(&q, Answer::Duel { first_wins: false }).unwrap();
    assert_eq!(alg.answered(), 1);
}

fn grid(n: usize) -> impl Iterator<Item = Vec<f64>> {
    (0..n * n).map(move |k| vec![(k / n) as f64 / (n - 1) as f64, (k % n) as f64 / (n - 1) as f64])
}
