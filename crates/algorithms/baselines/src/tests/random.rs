//! Uniform random duels: uniform independent pairs, protocol, recommendation.

use crate::random::*;
use bohf_core::testing::duel_indices as indices;
use bohf_core::{Answer, BoxDomain, FiniteDomain, Optimizer, Point, Query, SearchContext};
use bohf_core::{Link, rng};

fn ctx(n: usize) -> SearchContext {
    SearchContext::new(FiniteDomain::linspace(0.0, 1.0, n).unwrap(), 100).unwrap()
}

fn duel(d: &FiniteDomain, i: usize, j: usize) -> Query {
    Query::Duel(d.point(i).unwrap(), d.point(j).unwrap())
}

#[test]
fn pairs_are_uniform_and_independent() {
    // 25 ordered pairs on 5 candidates, 50 000 draws: χ² against the uniform law with 24 df.
    // 51.2 is the 0.999 quantile of χ²₂₄, so a correct sampler fails this with probability 1e-3
    // for a random seed; the seed is fixed, so the outcome is deterministic.
    let c = ctx(5);
    let mut alg = RandomDuels::new(&c, RandomDuelsConfig::default().check().unwrap()).unwrap();
    let mut r = rng::seeded(4);
    let draws = 50_000;
    let mut counts = [0usize; 25];
    for _ in 0..draws {
        let (i, j) = indices(&alg.suggest(&mut r).unwrap());
        counts[i * 5 + j] += 1;
    }
    let e = draws as f64 / 25.0;
    let chi2: f64 = counts.iter().map(|&k| (k as f64 - e).powi(2) / e).sum();
    assert!(chi2 < 51.2, "χ² = {chi2:.1}");
    // A sampler that never draws x′ = x would leave the diagonal empty.
    assert!((0..5).all(|i| counts[i * 6] > 0));
}

#[test]
fn same_seed_same_duels() {
    let c = ctx(30);
    let run = |seed| {
        let mut alg = RandomDuels::new(&c, RandomDuelsConfig::default().check().unwrap()).unwrap();
        let mut r = rng::seeded(seed);
        (0..50).map(|_| alg.suggest(&mut r).unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

#[test]
fn recommendation_counts_wins_with_lowest_index_on_ties() {
    let c = ctx(5);
    let d = c.domain();
    let mut alg = RandomDuels::new(&c, RandomDuelsConfig::default().check().unwrap()).unwrap();
    assert_eq!(alg.recommend().unwrap().index, Some(0));
    // Before any win: the first point of the latest suggestion.
    let q = alg.suggest(&mut rng::seeded(9)).unwrap();
    assert_eq!(alg.recommend().unwrap().index, Some(indices(&q).0));
    alg.suggest(&mut rng::seeded(10)).unwrap();
    let (i, j) = alg.pending().unwrap();
    alg.observe(&duel(d, i, j), Answer::Duel { first_wins: true }).unwrap();
    if i == j {
        assert_eq!(alg.wins().iter().sum::<usize>(), 0);
    }
    let mut alg = RandomDuels::new(&c, RandomDuelsConfig::default().check().unwrap()).unwrap();
    let yes = Answer::Duel { first_wins: true };
    let no = Answer::Duel { first_wins: false };
    alg.observe(&duel(d, 3, 3), yes).unwrap(); // a self-duel counts for nobody
    assert_eq!(alg.wins(), &[0, 0, 0, 0, 0]);
    alg.observe(&duel(d, 4, 1), yes).unwrap();
    alg.observe(&duel(d, 2, 1), no).unwrap();
    assert_eq!(alg.wins(), &[0, 1, 0, 0, 1]);
    assert_eq!(alg.recommend().unwrap().index, Some(1));
    alg.observe(&duel(d, 4, 0), yes).unwrap();
    assert_eq!(alg.recommend().unwrap().index, Some(4));
    assert_eq!(alg.len(), 4);
}

#[test]
fn observe_rejects_mismatches() {
    let c = ctx(5);
    let d = c.domain();
    let mut alg = RandomDuels::new(&c, RandomDuelsConfig::default().check().unwrap()).unwrap();
    let yes = Answer::Duel { first_wins: true };
    assert!(alg.observe(&Query::Evaluate(d.point(0).unwrap()), yes).unwrap_err().to_string().contains("`query`"));
    assert!(alg.observe(&duel(d, 0, 1), Answer::Value(1.0)).unwrap_err().to_string().contains("`answer`"));
    let bad = Query::Duel(Point::candidate(7, vec![0.0]), d.point(0).unwrap());
    assert!(matches!(alg.observe(&bad, yes), Err(bohf_core::Error::IndexOutOfRange { index: 7, .. })));
    let bad = Query::Duel(Point::candidate(1, vec![0.0]), d.point(0).unwrap());
    assert!(alg.observe(&bad, yes).unwrap_err().to_string().contains("coordinates"));
    let (i, j) = indices(&alg.suggest(&mut rng::seeded(1)).unwrap());
    let e = alg.observe(&duel(d, (i + 1) % 5, j), yes).unwrap_err();
    assert!(e.to_string().contains("pending suggestion"), "{e}");
    assert!(alg.is_empty());
}

#[test]
fn config_is_an_empty_table() {
    assert_eq!(toml::from_str::<RandomDuelsConfig>("").unwrap(), RandomDuelsConfig::default());
    assert!(toml::from_str::<RandomDuelsConfig>("seed = 1").is_err());
}

#[test]
fn mean_regret_matches_its_closed_form() {
    // Regret of uniform random duels: E r_t = E_x μ(f* − f(x)) − 1/2. 20 000 steps; the per-step
    // regret lies in [0, 1/2], so its standard error is ≤ 0.25/√20000 ≈ 0.0018; allow 4 s.e.
    let c = ctx(30);
    let u: Vec<f64> = (0..30).map(|i| 3.0 * (i as f64 / 29.0 * 6.0).sin()).collect();
    let best = u.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let expected = u.iter().map(|&f| Link::Logistic.mu(best - f)).sum::<f64>() / 30.0 - 0.5;
    let mut alg = RandomDuels::new(&c, RandomDuelsConfig::default().check().unwrap()).unwrap();
    let mut r = rng::seeded(3);
    let steps = 20_000;
    let mut total = 0.0;
    let mut self_duels = 0;
    for _ in 0..steps {
        let (i, j) = indices(&alg.suggest(&mut r).unwrap());
        self_duels += usize::from(i == j);
        total += (Link::Logistic.mu(best - u[i]) + Link::Logistic.mu(best - u[j]) - 1.0) / 2.0;
        alg.observe(&duel(c.domain(), i, j), Answer::Duel { first_wins: u[i] >= u[j] }).unwrap();
    }
    let mean = total / steps as f64;
    assert!((mean - expected).abs() < 4.0 * 0.25 / (steps as f64).sqrt(), "{mean} vs {expected}");
    // Every non-self duel gives exactly one win.
    assert_eq!(alg.wins().iter().sum::<usize>() + self_duels, steps);
}

#[test]
fn random_duels_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<RandomDuels>();
}

fn box_ctx() -> SearchContext<BoxDomain> {
    SearchContext::new(BoxDomain::new(vec![-5.0, 0.0], vec![10.0, 15.0]).unwrap(), 100).unwrap()
}

fn new_box() -> RandomDuelsBox {
    RandomDuelsBox::new(&box_ctx(), RandomDuelsConfig::default().check().unwrap()).unwrap()
}

fn coords(q: &Query) -> (Vec<f64>, Vec<f64>) {
    match q {
        Query::Duel(p, r) => (p.coords.clone(), r.coords.clone()),
        other => panic!("not a duel: {other:?}"),
    }
}

#[test]
fn box_duels_are_uniform_independent_and_inside() {
    // 20 000 duels: every coordinate of both points inside its interval; each coordinate's mean
    // and variance those of the uniform law (centre, width²/12) within 4 standard errors; the
    // two points uncorrelated (|r| < 4/√n).
    let mut alg = new_box();
    let mut r = rng::seeded(3);
    let n = 20_000;
    let (lo, hi) = ([-5.0, 0.0], [10.0, 15.0]);
    let mut xs: Vec<Vec<f64>> = (0..4).map(|_| Vec::with_capacity(n)).collect();
    for _ in 0..n {
        let (p, q) = coords(&alg.suggest(&mut r).unwrap());
        for (k, v) in p.iter().chain(&q).enumerate() {
            assert!((lo[k % 2]..=hi[k % 2]).contains(v), "{v}");
            xs[k].push(*v);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    for (k, v) in xs.iter().enumerate() {
        let (w, c) = (hi[k % 2] - lo[k % 2], 0.5 * (hi[k % 2] + lo[k % 2]));
        let se = w / 12f64.sqrt() / (n as f64).sqrt();
        assert!((mean(v) - c).abs() < 4.0 * se, "coordinate {k}: mean {}", mean(v));
        let var = v.iter().map(|x| (x - mean(v)).powi(2)).sum::<f64>() / (n - 1) as f64;
        // Var of the sample variance of a uniform: (μ₄ − σ⁴)/n with μ₄ = w⁴/80, σ⁴ = w⁴/144.
        let se_var = (w.powi(4) / 80.0 - w.powi(4) / 144.0).sqrt() / (n as f64).sqrt();
        assert!((var - w * w / 12.0).abs() < 4.0 * se_var, "coordinate {k}: variance {var}");
    }
    let (a, b) = (&xs[0], &xs[2]);
    let (ma, mb) = (mean(a), mean(b));
    let cov = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum::<f64>();
    let corr = cov
        / (a.iter().map(|x| (x - ma).powi(2)).sum::<f64>() * b.iter().map(|y| (y - mb).powi(2)).sum::<f64>()).sqrt();
    assert!(corr.abs() < 4.0 / (n as f64).sqrt(), "corr {corr}");
}

#[test]
fn box_recommends_the_latest_winner_and_checks_answers() {
    let mut alg = new_box();
    // Nothing suggested: the centre.
    assert_eq!(alg.recommend().unwrap().coords, vec![2.5, 7.5]);
    let q = alg.suggest(&mut rng::seeded(5)).unwrap();
    let (p, r) = coords(&q);
    assert_eq!(alg.recommend().unwrap().coords, p, "before any duel: the first point of the suggestion");
    // Only the pending duel is accepted while one is pending.
    let other = Query::Duel(Point::continuous(r.clone()), Point::continuous(p.clone()));
    let yes = Answer::Duel { first_wins: true };
    assert!(alg.observe(&other, yes).unwrap_err().to_string().contains("pending suggestion"));
    alg.observe(&q, Answer::Duel { first_wins: false }).unwrap();
    assert_eq!(alg.recommend().unwrap().coords, r);
    // A replayed duel (nothing pending), then another: the latest winner.
    let d = |a: [f64; 2], b: [f64; 2]| Query::Duel(Point::continuous(a.to_vec()), Point::continuous(b.to_vec()));
    alg.observe(&d([0.0, 1.0], [1.0, 2.0]), yes).unwrap();
    assert_eq!(alg.recommend().unwrap().coords, vec![0.0, 1.0]);
    assert_eq!(alg.len(), 2);
    // Bad input names the problem and changes nothing.
    assert!(alg.observe(&d([11.0, 1.0], [1.0, 2.0]), yes).unwrap_err().to_string().contains("outside the box"));
    assert!(alg.observe(&d([0.0, 1.0], [1.0, 2.0]), Answer::Value(1.0)).unwrap_err().to_string().contains("`answer`"));
    let nan = Query::Duel(Point::continuous(vec![f64::NAN, 1.0]), Point::continuous(vec![1.0, 2.0]));
    assert!(alg.observe(&nan, yes).is_err());
    assert_eq!(alg.len(), 2);
    assert_eq!(alg.recommend().unwrap().coords, vec![0.0, 1.0]);
    // Same seed, same duels.
    let run = |seed| {
        let mut a = new_box();
        let mut r = rng::seeded(seed);
        (0..20).map(|_| a.suggest(&mut r).unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}
