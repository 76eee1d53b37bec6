use super::*;
use crate::acquisition::duel_outcome_mean_probit;
use bohf_core::special::expected_max_of_two;
use bohf_core::{Answer, BoxDomain, Error, FiniteDomain, Link, Optimizer, Query, SearchContext, rng};
use bohf_gp::laplace::PreferenceData;
use bohf_gp::{JointPosterior, LaplaceConfig, LaplacePreferenceGp};
use bohf_kernels::{KernelKind, Stationary};
use bohf_optim::MultistartConfig;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;

fn field(e: Error) -> String {
    match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected an invalid-parameter error, got {other:?}"),
    }
}

/// A fitted Laplace GP on 8 random points of [0, 1]² with 15 duels, SE kernel (ℓ = 0.4).
fn fitted_gp() -> LaplacePreferenceGp {
    let mut r = rng::seeded(3);
    let x = DMatrix::from_fn(8, 2, |_, _| r.random::<f64>());
    let u = |i: usize| (3.0 * x[(i, 0)]).sin() - x[(i, 1)];
    let duels: Vec<bohf_core::Duel> = (0..15)
        .map(|_| {
            let (a, b) = (r.random_range(0..8), r.random_range(0..8));
            bohf_core::Duel::new(a, b, u(a) > u(b))
        })
        .collect();
    let data = PreferenceData::from_candidates(&x, &duels).unwrap();
    let kernel = Stationary::new(KernelKind::Se, 0.4).unwrap();
    LaplacePreferenceGp::fit(kernel, data, &LaplaceConfig::default().check().unwrap()).unwrap()
}

fn joint(gp: &LaplacePreferenceGp, rows: &[f64]) -> JointPosterior {
    gp.joint_with_gradient(&DMatrix::from_row_slice(rows.len() / 2, 2, rows)).unwrap()
}

/// qEUBO at q = 2 against Clark's closed form with the same posterior: within 3 Monte Carlo
/// standard errors (the s.e. of the sample of max values, computed here from an explicit 2×2
/// factor), for 4096 base samples.
#[test]
fn qeubo_at_two_matches_the_closed_form_within_monte_carlo_error() {
    let gp = fitted_gp();
    let mut r = rng::seeded(5);
    for rows in [[0.2, 0.3, 0.8, 0.6], [0.5, 0.5, 0.52, 0.49], [0.1, 0.9, 0.9, 0.1]] {
        let jp = joint(&gp, &rows);
        let (m, s) = (&jp.mean, &jp.covariance);
        let z = base_samples(2, 4096, &mut r);
        let mc = qeubo_mc(m, s, &z).unwrap();
        let exact = expected_max_of_two(m[0], m[1], s[(0, 0)], s[(1, 1)], s[(0, 1)]).0;
        // x₁ = m₁ + σ₁z₁, x₂ = m₂ + (c/σ₁)z₁ + √(σ₂² − c²/σ₁²) z₂.
        let s1 = s[(0, 0)].sqrt();
        let (a, b) = (s[(0, 1)] / s1, (s[(1, 1)] - s[(0, 1)].powi(2) / s[(0, 0)]).max(0.0).sqrt());
        let v: Vec<f64> =
            (0..4096).map(|k| (m[0] + s1 * z[(0, k)]).max(m[1] + a * z[(0, k)] + b * z[(1, k)])).collect();
        let mean = v.iter().sum::<f64>() / 4096.0;
        let se = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 4095.0 / 4096.0).sqrt();
        assert!((mean - mc).abs() < 1e-9, "qeubo_mc {mc} vs explicit sample mean {mean}");
        assert!((mc - exact).abs() < 3.0 * se, "{rows:?}: MC {mc} vs closed form {exact} (s.e. {se})");
    }
}

/// The analytic gradients of EUBO (2 points) and qEUBO (3 points, fixed base samples) in the
/// points' coordinates against central differences (step 10⁻⁶; tolerance 10⁻⁵ for O(h²), ε/h
/// and, for qEUBO, the rare sample whose argmax switches inside ±h).
#[test]
fn eubo_and_qeubo_gradients_match_finite_differences() {
    let gp = fitted_gp();
    let z = base_samples(3, 512, &mut rng::seeded(9));
    let x0 = [0.2, 0.3, 0.7, 0.6, 0.45, 0.9];
    let eubo = |x: &[f64]| eubo_with_gradient(&joint(&gp, &x[..4])).unwrap();
    let qeubo = |x: &[f64]| qeubo_mc_with_gradient(&joint(&gp, x), &z).unwrap();
    for (len, f) in [(4, &eubo as &dyn Fn(&[f64]) -> (f64, Vec<f64>)), (6, &qeubo)] {
        let x = &x0[..len];
        let (_, g) = f(x);
        for j in 0..len {
            let h = 1e-6;
            let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
            xp[j] += h;
            xm[j] -= h;
            let fd = (f(&xp).0 - f(&xm).0) / (2.0 * h);
            assert!((fd - g[j]).abs() < 1e-5, "len {len}, coordinate {j}: analytic {} vs FD {fd}", g[j]);
        }
    }
    // The value of qeubo_mc_with_gradient is qeubo_mc's.
    let jp = joint(&gp, &x0);
    assert_eq!(qeubo_mc_with_gradient(&jp, &z).unwrap().0, qeubo_mc(&jp.mean, &jp.covariance, &z).unwrap());
}

/// Var[Φ(Δ/s)] for Δ ~ N(μ, v) against a trapezoid rule on z ∈ [−12, 12] with 48 001 nodes of
/// E[Φ((μ + √v z)/s)²] − E[Φ(·)]² (an independent integral over the density of Δ), to 10⁻⁸.
#[test]
fn duel_outcome_variance_matches_direct_integration() {
    let s = std::f64::consts::SQRT_2;
    for &(mu, v) in &[(0.0f64, 1.0f64), (0.7, 0.3), (-1.5, 4.0), (0.2, 25.0), (2.0, 0.01)] {
        let n = 48_000;
        let h = 24.0 / n as f64;
        let (mut e1, mut e2) = (0.0, 0.0);
        for i in 0..=n {
            let z = -12.0 + i as f64 * h;
            let w = if i == 0 || i == n { 0.5 } else { 1.0 } * h * bohf_core::special::std_normal_pdf(z);
            let p = bohf_core::special::std_normal_cdf((mu + v.sqrt() * z) / s);
            e1 += w * p;
            e2 += w * p * p;
        }
        assert!((e1 - duel_outcome_mean_probit(mu, v, s)).abs() < 1e-8);
        let got = duel_outcome_variance(mu, v, Link::Probit, s);
        assert!((got - (e2 - e1 * e1)).abs() < 1e-8, "({mu}, {v}): {got} vs {}", e2 - e1 * e1);
    }
    assert_eq!(duel_outcome_variance(0.3, 0.0, Link::Probit, s), 0.0);
}

/// The answer of a noiseless respondent with utility u.
fn answer(q: &Query, u: &dyn Fn(&[f64]) -> f64) -> Answer {
    let Query::Duel(p, r) = q else { panic!("not a duel: {q:?}") };
    Answer::Duel { first_wins: u(&p.coords) > u(&r.coords) }
}

fn finite_ctx(n: usize) -> SearchContext {
    SearchContext::new(FiniteDomain::linspace(0.0, 1.0, n).unwrap(), 30).unwrap()
}

fn box_ctx(d: usize) -> SearchContext<BoxDomain> {
    SearchContext::new(BoxDomain::cube(0.0, 1.0, d).unwrap(), 30).unwrap()
}

/// A small search for the box tests (fast in debug builds).
fn small_search() -> ValidMultistartConfig {
    MultistartConfig { design: 64, samples: 0, starts: 2, ..MultistartConfig::default() }.check().unwrap()
}

fn run(alg: &mut dyn Optimizer, steps: usize, seed: u64, u: &dyn Fn(&[f64]) -> f64) -> Vec<Query> {
    let mut r = rng::seeded(seed);
    let mut out = Vec::new();
    for _ in 0..steps {
        let q = alg.suggest(&mut r).unwrap();
        alg.observe(&q, answer(&q, u)).unwrap();
        out.push(q);
    }
    out
}

fn peak(x: &[f64]) -> f64 {
    -(x[0] - 0.7).powi(2)
}

/// On a finite set of 25 candidates with every pair screened, the EUBO duel is the brute-force
/// argmax of Clark's formula over all pairs of the posterior at suggestion time (computed here
/// from the full covariance of the candidates).
#[test]
fn finite_eubo_is_the_brute_force_argmax_over_all_pairs() {
    let ctx = finite_ctx(25);
    let config = EuboConfig { pair_screen: 25, ..EuboConfig::default() }.check().unwrap();
    let mut alg = Eubo::new(&ctx, config).unwrap();
    let mut r = rng::seeded(1);
    for step in 0..10 {
        let unit = DMatrix::from_fn(25, 1, |i, _| ctx.domain().points()[(i, 0)]);
        let brute = alg.engine().model().map(|gp| {
            let (m, c) = (gp.mean(&unit).unwrap(), gp.covariance(&unit).unwrap());
            let mut best = (f64::NEG_INFINITY, 0, 0);
            for i in 0..25 {
                for j in i + 1..25 {
                    let v = expected_max_of_two(m[i], m[j], c[(i, i)], c[(j, j)], c[(i, j)]).0;
                    if v > best.0 {
                        best = (v, i, j);
                    }
                }
            }
            best
        });
        let q = alg.suggest(&mut r).unwrap();
        if step >= 4 {
            let (v, i, j) = brute.expect("informed after the initial duels");
            let Query::Duel(p, s) = &q else { unreachable!() };
            assert_eq!((p.index.unwrap(), s.index.unwrap()), (i, j), "step {step}");
            assert!((alg.engine().last_step().unwrap().acquisition - v).abs() < 1e-12);
        }
        alg.observe(&q, answer(&q, &peak)).unwrap();
    }
}

fn algorithms_finite(ctx: &SearchContext) -> Vec<Box<dyn Optimizer>> {
    vec![
        Box::new(Eubo::new(ctx, EuboConfig::default().check().unwrap()).unwrap()),
        Box::new(Qeubo::new(ctx, QeuboConfig::default().check().unwrap()).unwrap()),
        Box::new(Dts::new(ctx, DtsConfig::default().check().unwrap()).unwrap()),
    ]
}

fn algorithms_box(ctx: &SearchContext<BoxDomain>) -> Vec<Box<dyn Optimizer>> {
    let q = QeuboConfig { mc_samples: 64, ..QeuboConfig::default() }.check().unwrap();
    let dts = DtsConfig { pool: 128, ..DtsConfig::default() }.check().unwrap();
    vec![
        Box::new(Eubo::new_box(ctx, EuboConfig::default().check().unwrap(), small_search()).unwrap()),
        Box::new(Qeubo::new_box(ctx, q, small_search()).unwrap()),
        Box::new(Dts::new_box(ctx, dts).unwrap()),
    ]
}

/// The same seed gives the same queries, on a finite set and on a box, for each rule.
#[test]
fn same_seed_same_queries() {
    let ctx = finite_ctx(30);
    for (a, b) in algorithms_finite(&ctx).iter_mut().zip(algorithms_finite(&ctx).iter_mut()) {
        assert_eq!(run(a.as_mut(), 8, 4, &peak), run(b.as_mut(), 8, 4, &peak), "{}", a.name());
    }
    let ctx = box_ctx(2);
    for (a, b) in algorithms_box(&ctx).iter_mut().zip(algorithms_box(&ctx).iter_mut()) {
        assert_eq!(run(a.as_mut(), 7, 4, &peak), run(b.as_mut(), 7, 4, &peak), "{}", a.name());
    }
}

/// A short run on a 1-D problem (u(x) = −(x − 0.7)², noiseless answers) recommends a point
/// within 0.1 of the optimum 0.7: on 60 candidates after 20 duels and on [0, 1] after 15.
#[test]
fn short_runs_find_the_optimum_region_in_one_dimension() {
    let ctx = finite_ctx(60);
    for alg in algorithms_finite(&ctx).iter_mut() {
        run(alg.as_mut(), 20, 2, &peak);
        let x = alg.recommend().unwrap().coords[0];
        assert!((x - 0.7).abs() < 0.1, "{}: recommends {x}", alg.name());
    }
    let ctx = box_ctx(1);
    for alg in algorithms_box(&ctx).iter_mut() {
        run(alg.as_mut(), 15, 2, &peak);
        let x = alg.recommend().unwrap().coords[0];
        assert!((x - 0.7).abs() < 0.1, "{}: recommends {x}", alg.name());
    }
}

/// Bad settings name their field by its TOML path.
#[test]
fn bad_settings_name_their_field() {
    let q = |q: usize| QeuboConfig { q, ..QeuboConfig::default() }.check().map(|_| ()).unwrap_err();
    assert_eq!(field(q(1)), "q");
    assert_eq!(field(q(3)), "q");
    let e = QeuboConfig { mc_samples: 0, ..QeuboConfig::default() }.check().unwrap_err();
    assert_eq!(field(e), "mc_samples");
    let mut c = EuboConfig::default();
    c.model.merge_tolerance = f64::NAN;
    assert_eq!(field(c.check().unwrap_err()), "model.merge_tolerance");
    let mut c = EuboConfig::default();
    c.model.fit.lengthscale_prior = bohf_gp::regression::LengthscalePrior::Gamma { concentration: 2.4, rate: 0.0 };
    assert_eq!(field(c.check().unwrap_err()), "model.fit.lengthscale_prior.rate");
    let mut c = DtsConfig::default();
    c.model.fit.outputscale_prior = bohf_gp::OutputscalePrior::LogNormal { loc: 0.0, scale: -1.0 };
    assert_eq!(field(c.check().unwrap_err()), "model.fit.outputscale_prior.scale");
    let mut c = DtsConfig::default();
    c.model.fit.laplace.scale = f64::NAN;
    assert_eq!(field(c.check().unwrap_err()), "model.fit.laplace.scale");
    let mut c = EuboConfig::default();
    c.model.kernel = KernelKind::Linear;
    assert_eq!(field(c.check().unwrap_err()), "model.kernel");
    assert_eq!(field(EuboConfig { pair_screen: 1, ..EuboConfig::default() }.check().unwrap_err()), "pair_screen");
    assert_eq!(field(DtsConfig { pool: 0, ..DtsConfig::default() }.check().unwrap_err()), "pool");
    // qEUBO's function refuses fewer than two options.
    let e = qeubo_mc(&DVector::zeros(1), &DMatrix::identity(1, 1), &DMatrix::zeros(1, 4)).unwrap_err();
    assert_eq!(field(e), "q");
}

/// Defaults round-trip through TOML (what a spec's `params` table holds).
#[test]
fn configs_round_trip_through_toml() {
    let c = QeuboConfig::default();
    let back: QeuboConfig = toml::from_str(&toml::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);
    let d: DtsConfig = toml::from_str("pool = 64\n[model]\nrefit_every = 5\n").unwrap();
    assert_eq!((d.pool, d.model.refit_every, d.initial_duels), (64, 5, 4));
}

/// A wrong query (not the pending pair, outside the box, not a duel) or answer is rejected and
/// records nothing: the next suggestion is the one an untouched twin makes.
#[test]
fn wrong_queries_and_answers_are_rejected_and_record_nothing() {
    let ctx = box_ctx(2);
    let mut a = Eubo::new_box(&ctx, EuboConfig::default().check().unwrap(), small_search()).unwrap();
    let mut b = a.clone();
    run(&mut a, 5, 8, &peak);
    run(&mut b, 5, 8, &peak);
    let mut r = rng::seeded(1);
    let q = a.suggest(&mut r).unwrap();
    let outside = Query::Duel(Point::continuous(vec![1.5, 0.2]), Point::continuous(vec![0.1, 0.2]));
    assert_eq!(field(a.observe(&outside, Answer::Duel { first_wins: true }).unwrap_err()), "query");
    let other = Query::Duel(Point::continuous(vec![0.5, 0.2]), Point::continuous(vec![0.1, 0.2]));
    assert_eq!(field(a.observe(&other, Answer::Duel { first_wins: true }).unwrap_err()), "query");
    assert!(a.observe(&q, Answer::Value(1.0)).is_err());
    assert_eq!(a.engine().answered(), 5);
    let mut r2 = rng::seeded(1);
    assert_eq!(b.suggest(&mut r2).unwrap(), q);
}
