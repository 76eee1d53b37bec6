use super::*;
use crate::CobolConfig;
use bohf_core::rand::RngExt;
use bohf_core::rng;

/// A pointwise program whose solver fails (here: clarabel alone, without the fast path, at an
/// iteration limit of 2, which the cautious retry cannot beat either) gives the certified outer end of the enclosure, which is still a
/// valid bound: below the exact g_lower and above the exact g_upper of the same set.
#[test]
fn a_failed_pointwise_solve_falls_back_to_the_certified_enclosure() {
    let config = CobolConfig::default().check().unwrap();
    let k = Stationary::se(0.2).unwrap();
    let mut r = rng::seeded(5);
    let pts: Vec<Vec<f64>> = (0..12).map(|_| vec![r.random::<f64>()]).collect();
    let rejects: Vec<bool> = pts.iter().map(|p| p[0] > 0.5).collect();
    let mut exact = GModel::new(&config, &k, &pts, &rejects, 2.0, 0.3).unwrap();
    let mut failing = GModel::new(&config, &k, &pts, &rejects, 2.0, 0.3).unwrap();
    {
        // The same set, its pointwise programs limited to 2 interior-point iterations.
        let g = failing.inner.as_mut().unwrap();
        let limited = bohf_confidence::ConfidenceConfig {
            max_iterations: 2,
            norm_bound: 2.0,
            solver: bohf_confidence::SolverChoice::Clarabel,
            ..config.confidence.clone()
        };
        let problem = ConfidenceProblem::new(&gram(&k, &pts), &observations(&rejects), &limited).unwrap();
        g.set = ConfidenceSet::new(&problem, &g.mle, 0.3).unwrap();
    }
    let mut checked = 0;
    for i in 0..9 {
        let x = [0.05 + 0.1125 * i as f64];
        let p = failing.point(&x).unwrap();
        if p.settled_lower().is_some() || p.settled_upper().is_some() {
            continue;
        }
        let before = failing.fallbacks;
        let (lo, hi) = (failing.lower(&p).unwrap(), failing.upper(&p).unwrap());
        assert_eq!(failing.fallbacks, before + 2, "both programs failed at x = {x:?}");
        assert_eq!((lo, hi), (p.lower_floor, p.upper_cap));
        let q = exact.point(&x).unwrap();
        let (elo, ehi) = (exact.lower(&q).unwrap(), exact.upper(&q).unwrap());
        assert!(lo <= elo + 1e-9 && ehi <= hi + 1e-9, "[{lo}, {hi}] must contain [{elo}, {ehi}]");
        assert!(lo.is_finite() && hi.is_finite());
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} points reached a program");
    assert_eq!(exact.fallbacks, 0);
}

/// The x^c search's screened bounds ([`GModel::lower_screened`], [`GModel::upper_screened`]):
/// asked at a level on the far side of the protected value they solve it; beyond it they may
/// stop, with a bound between the value (from a fresh model's full solve) and the level. Stops
/// are counted by the set and happen.
#[test]
fn screened_g_bounds_stop_only_beyond_their_level() {
    let config = CobolConfig::default().check().unwrap();
    let k = Stationary::se(0.2).unwrap();
    let mut r = rng::seeded(11);
    let pts: Vec<Vec<f64>> = (0..30).map(|_| vec![r.random::<f64>()]).collect();
    let rejects: Vec<bool> = pts.iter().map(|p| (p[0] - 0.4).abs() > 0.25).collect();
    let (mut stops, mut asked) = (0, 0);
    for i in 0..12 {
        let x = [0.02 + 0.08 * i as f64];
        let mut exact = GModel::new(&config, &k, &pts, &rejects, 2.0, 0.3).unwrap();
        let q = exact.point(&x).unwrap();
        let (lo, hi) = (exact.lower(&q).unwrap(), exact.upper(&q).unwrap());
        let width = (hi - lo).max(1e-2);
        for frac in [-0.5, -0.01, 0.01, 0.5] {
            let mut g = GModel::new(&config, &k, &pts, &rejects, 2.0, 0.3).unwrap();
            let p = g.point(&x).unwrap();
            let before = stops;
            let level = lo - frac * width;
            match g.lower_screened(&p, level).unwrap() {
                ZValue::Exact(z) => assert!((z - lo).abs() < 1e-6, "x = {x:?}: {z} vs {lo}"),
                ZValue::Beyond(b) => {
                    assert!(
                        frac > 0.0 && b >= level && lo >= b - 1e-6,
                        "x = {x:?}: g_lower {lo}, bound {b}, level {level}"
                    );
                    stops += 1;
                }
            }
            let level = hi + frac * width;
            match g.upper_screened(&p, level).unwrap() {
                ZValue::Exact(z) => assert!((z - hi).abs() < 1e-6, "x = {x:?}: {z} vs {hi}"),
                ZValue::Beyond(b) => {
                    assert!(
                        frac > 0.0 && b <= level && hi <= b + 1e-6,
                        "x = {x:?}: g_upper {hi}, bound {b}, level {level}"
                    );
                    stops += 1;
                }
            }
            asked += 2;
            assert_eq!(g.solve_counts().map_or(0, |c| c.stopped), stops - before, "x = {x:?}");
        }
    }
    assert!(stops * 8 > asked, "{stops} of {asked} stopped");
}
