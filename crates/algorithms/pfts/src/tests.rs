//! Tests of PF-TS: validation, protocol, determinism and replay, the causal posterior, the anchored
//! sampler against the pair-space definitions, anchor invariance (proptest), the distribution of
//! the selected actions, the theoretical schedule, and regret against uniform random duels.

use crate::{AnchoredSampler, PfTs, PfTsConfig, WidthSchedule, anchored_covariance};
use approx::assert_relative_eq;
use bohf_core::argmax_lowest;
use bohf_core::linalg::Cholesky;
use bohf_core::rng::{self, BohfRng};
use bohf_core::testing::{duel_indices as indices, duel_regret};
use bohf_core::{Answer, Error, FiniteDomain, Link, Optimizer, Point, Query, SearchContext};
use bohf_gp::{JointSampler, KernelLogisticConfig};
use bohf_infogain::{PairKernel, greedy_pairs, information_gain};
use bohf_kernels::{IndexPair, dueling_gram};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

fn ctx(n: usize, horizon: usize) -> SearchContext {
    SearchContext::new(FiniteDomain::linspace(0.0, 1.0, n).unwrap(), horizon).unwrap()
}

/// A smooth utility on [0, 1] with a global maximum near 0.7 and a local one near 0.2 (range ≈ 3,
/// so BTL duels are informative but not deterministic).
fn utility(x: f64) -> f64 {
    3.0 * (-(x - 0.7).powi(2) / (2.0 * 0.1f64.powi(2))).exp()
        + 1.5 * (-(x - 0.2).powi(2) / (2.0 * 0.08f64.powi(2))).exp()
}

fn utility_vector(domain: &FiniteDomain) -> Vec<f64> {
    (0..domain.len()).map(|i| utility(domain.coords(i).unwrap()[0])).collect()
}

/// A BTL answer y ~ Bernoulli(μ(u_i − u_j)) to a duel query.
fn btl_answer(u: &[f64], q: &Query, r: &mut BohfRng) -> Answer {
    let Query::Duel(p, q) = q else { panic!("not a duel") };
    let (i, j) = (p.index.unwrap(), q.index.unwrap());
    Answer::Duel { first_wins: r.random_bool(Link::Logistic.mu(u[i] - u[j])) }
}

fn duel(domain: &FiniteDomain, i: usize, j: usize) -> Query {
    Query::Duel(domain.point(i).unwrap(), domain.point(j).unwrap())
}

/// `t` uniformly random duels with BTL answers, as a (query, answer) history.
fn random_history(domain: &FiniteDomain, t: usize, seed: u64) -> Vec<(Query, Answer)> {
    let u = utility_vector(domain);
    let n = domain.len();
    let mut r = rng::seeded(seed);
    (0..t)
        .map(|_| {
            let q = duel(domain, r.random_range(0..n), r.random_range(0..n));
            let a = btl_answer(&u, &q, &mut r);
            (q, a)
        })
        .collect()
}

/// Per-step dueling regret r_t = (μ(f* − f(x)) + μ(f* − f(x′)) − 1)/2 (PF-TS eq. (2)).

#[test]
fn config_validation_names_the_field() {
    let mut bad = PfTsConfig::default();
    bad.inference.kappa = -1.0;
    assert!(bad.check().unwrap_err().to_string().contains("`inference.kappa`"));
    let mut bad = PfTsConfig::default();
    bad.inference.mle.lambda = 0.0;
    assert!(bad.check().unwrap_err().to_string().contains("`inference.mle.lambda`"));
    let mut bad = PfTsConfig::default();
    bad.inference.kernel.lengthscale = Some(-0.1);
    assert!(bad.check().unwrap_err().to_string().contains("`inference.kernel.lengthscale`"));
    let bad = PfTsConfig { exploration: WidthSchedule::PftsExperiment { delta: 1.5 }, ..Default::default() };
    assert!(bad.check().unwrap_err().to_string().contains("`exploration.delta`"));
    let bad =
        PfTsConfig { exploration: WidthSchedule::Theory { norm_bound: f64::NAN, delta: 0.05 }, ..Default::default() };
    assert!(bad.check().unwrap_err().to_string().contains("`exploration.norm_bound`"));
    let zero_horizon = SearchContext::new(FiniteDomain::linspace(0.0, 1.0, 3).unwrap(), 0);
    assert!(zero_horizon.unwrap_err().to_string().contains("`horizon`"));
}

#[test]
fn config_files_deserialise_with_defaults_and_reject_unknown_fields() {
    let toml_text = r#"
        [inference]
        kernel = { kind = "matern52", lengthscale = 0.2 }
        kappa = 2.0
        [inference.mle]
        lambda = 0.1
        [exploration]
        rule = "theory"
        norm_bound = 2.0
    "#;
    let c: PfTsConfig = toml::from_str(toml_text).unwrap();
    assert_eq!(c.inference.kappa, 2.0);
    assert_eq!(c.inference.mle.lambda, 0.1);
    assert_eq!(c.exploration, WidthSchedule::Theory { norm_bound: 2.0, delta: 0.05 });
    let empty: PfTsConfig = toml::from_str("").unwrap();
    assert_eq!(empty, PfTsConfig::default());
    assert_eq!(empty.exploration, WidthSchedule::PftsExperiment { delta: 0.05 });
    assert!(toml::from_str::<PfTsConfig>("beta = 1.0").is_err());
    assert!(toml::from_str::<PfTsConfig>("[exploration]\nrule = \"pfts-experiment\"\nnorm_bound = 1.0").is_err());
    // The old spelling is rejected with the new form in the message.
    let old = toml::from_str::<PfTsConfig>("[exploration]\nkind = \"experiment\"").unwrap_err().to_string();
    assert!(old.contains("{ rule = \"pfts-experiment\", delta = 0.05 }"), "{old}");
    // A rule of another algorithm is named with the accepted ones.
    let wrong = PfTsConfig { exploration: WidthSchedule::SqrtT { scale: 1.0 }, ..Default::default() };
    let e = wrong.check().unwrap_err().to_string();
    assert!(e.contains("`exploration.rule`") && e.contains("\"pfts-experiment\""), "{e}");
    let json = serde_json::to_string(&c).unwrap();
    assert_eq!(serde_json::from_str::<PfTsConfig>(&json).unwrap(), c);
}

#[test]
fn observe_rejects_mismatched_queries_and_answers_without_changing_state() {
    let c = ctx(8, 10);
    let d = c.domain();
    let mut p = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    let yes = Answer::Duel { first_wins: true };
    let e = p.observe(&Query::Evaluate(d.point(1).unwrap()), yes).unwrap_err();
    assert!(e.to_string().contains("`query`"), "{e}");
    let e = p.observe(&duel(d, 1, 2), Answer::Value(1.0)).unwrap_err();
    assert!(e.to_string().contains("`answer`"), "{e}");
    let out_of_range = Query::Duel(d.point(1).unwrap(), Point::candidate(8, vec![1.0]));
    assert!(matches!(p.observe(&out_of_range, yes), Err(Error::IndexOutOfRange { index: 8, len: 8, .. })));
    let no_index = Query::Duel(Point::continuous(vec![0.5]), d.point(1).unwrap());
    assert!(p.observe(&no_index, yes).unwrap_err().to_string().contains("no candidate index"));
    let wrong_coords = Query::Duel(Point::candidate(2, vec![0.9]), d.point(1).unwrap());
    assert!(p.observe(&wrong_coords, yes).unwrap_err().to_string().contains("coordinates"));
    assert_eq!(p.duels().len(), 0);

    // A pending suggestion must be answered as suggested (ordered pair).
    let mut r = rng::seeded(3);
    let q = p.suggest(&mut r).unwrap();
    let (i, j) = indices(&q);
    let other = if i == 0 { 1 } else { 0 };
    let e = p.observe(&duel(d, other, j), yes).unwrap_err();
    assert!(e.to_string().contains("pending suggestion"), "{e}");
    if i != j {
        assert!(p.observe(&duel(d, j, i), yes).is_err());
    }
    assert_eq!(p.duels().len(), 0);
    assert_eq!(p.pending(), Some((i, j)));
    p.observe(&q, yes).unwrap();
    assert_eq!((p.duels().len(), p.pending()), (1, None));
    // With nothing pending, any valid duel is accepted (replaying history).
    p.observe(&duel(d, 3, 5), Answer::Duel { first_wins: false }).unwrap();
    assert_eq!(p.round(), 3);
}

/// Runs `steps` PF-TS rounds against a BTL person; returns the queries. The person's answers come
/// from their own stream so that they do not disturb the algorithm's RNG.
fn run(p: &mut PfTs, steps: usize, seed: u64) -> Vec<(Query, Answer)> {
    let u = utility_vector(p.domain());
    let mut algo_rng = rng::stream(seed, &[0]);
    let mut person = rng::stream(seed, &[1]);
    (0..steps)
        .map(|_| {
            let q = p.suggest(&mut algo_rng).unwrap();
            let a = btl_answer(&u, &q, &mut person);
            p.observe(&q, a).unwrap();
            (q, a)
        })
        .collect()
}

#[test]
fn same_seed_gives_the_same_run_and_another_seed_does_not() {
    let c = ctx(20, 40);
    let mut a = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    let mut b = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    let ha = run(&mut a, 40, 11);
    let hb = run(&mut b, 40, 11);
    assert_eq!(ha, hb);
    assert_eq!(a.utility(), b.utility());
    let mut other = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    assert_ne!(run(&mut other, 40, 12), ha);
}

#[test]
fn replaying_the_history_restores_the_state_and_the_next_suggestion() {
    let c = ctx(25, 60);
    let mut live = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    let history = run(&mut live, 40, 5);
    // One batch (fit once, Ŝ from scratch since 40 > 25) and one by one without suggestions.
    let mut batch = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    batch.observe_batch(&history).unwrap();
    let mut sequential = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    for (q, a) in &history {
        sequential.observe(q, *a).unwrap();
    }
    for restored in [&batch, &sequential] {
        assert_eq!(restored.duels(), live.duels());
        // Ŝ: rank-one updates vs one from-scratch solve agree to rounding (entries are O(1)).
        assert!((restored.posterior().covariance() - live.posterior().covariance()).amax() < 1e-10);
        // g_t: the MLE is unique and Newton stops at gradient norm ≤ 1e-9 with λ = 0.05, so two
        // fits of the same duels differ by about 1e-9/λ in θ, far below 1e-6 in g = K Dᵀθ.
        assert!((restored.utility() - live.utility()).amax() < 1e-6);
        let mut r1 = rng::seeded(99);
        let mut r2 = rng::seeded(99);
        let mut live2 = live.clone();
        let mut restored = restored.clone();
        assert_eq!(restored.suggest(&mut r1).unwrap(), live2.suggest(&mut r2).unwrap());
        assert_eq!(restored.recommend().unwrap(), live2.recommend().unwrap());
    }
    // A bad entry in a history names its position and leaves the state unchanged.
    let mut bad = history[..3].to_vec();
    bad[2].1 = Answer::Value(0.0);
    let mut p = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    let e = p.observe_batch(&bad).unwrap_err();
    assert!(e.to_string().contains("history entry 2"), "{e}");
    assert_eq!(p.duels().len(), 0);
}

#[test]
fn first_round_samples_the_prior_with_v1() {
    let c = ctx(15, 10);
    let p = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    assert_eq!(p.round(), 1);
    assert!(p.fit().is_none());
    assert!(p.utility().iter().all(|&g| g == 0.0));
    assert_eq!(p.posterior().covariance(), p.base_gram());
    // v_1² = √(1 + 1 + log 40) (App. F.1).
    assert_relative_eq!(p.exploration_scale().unwrap().powi(2), (2.0 + 40f64.ln()).sqrt(), max_relative = 1e-14);
    // The base Gram is the papers' Matérn-5/2, ℓ = 0.1: k(0, 1/14) by the closed form.
    let r = 5f64.sqrt() * (1.0 / 14.0) / 0.1;
    assert_relative_eq!(p.base_gram()[(0, 1)], (1.0 + r + r * r / 3.0) * (-r).exp(), max_relative = 1e-13);
    // Before any duel the recommendation is candidate 0 (g ≡ 0, lowest index on ties).
    assert_eq!(p.recommend().unwrap().index, Some(0));
}

#[test]
fn the_state_after_t_duels_is_the_from_scratch_posterior_and_fit_of_those_duels() {
    let c = ctx(20, 40);
    let mut p = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    let history = run(&mut p, 30, 8);
    let pairs: Vec<IndexPair> = history.iter().map(|(q, _)| indices(q)).collect();
    let post = bohf_gp::DuelingPosterior::from_pairs(p.base_gram(), &pairs, 0.05).unwrap();
    // Thirty O(n²) rank-one updates vs one batch solve: rounding only.
    assert!((post.covariance() - p.posterior().covariance()).amax() < 1e-10);
    let fit = KernelLogisticConfig::default().check().unwrap().fit(p.base_gram(), p.duels()).unwrap();
    // Warm-started vs cold Newton to gradient ≤ 1e-9 (see the replay test for the tolerance).
    assert!((fit.utility() - p.utility()).amax() < 1e-6);
    assert_eq!(p.round(), 31);
    // The recommendation is the argmax of g_t.
    assert_eq!(p.recommend().unwrap().index, Some(p.utility().argmax().0));
}

/// Pair-space computation of the anchored sample's law, straight from PF-TS eq. (4), (9) and note
/// §3.3 step 4, with no utility-space identity: q_c = k^D_t((c, a)) (t-vector),
/// C(c, c′) = k^D((c, a), (c′, a)) − q_cᵀ (K^D + ρI)⁻¹ q_c′ and mean h_t(c, a) = θᵀ q_c.
fn pair_space_anchored(p: &PfTs, anchor: usize) -> (DVector<f64>, DMatrix<f64>) {
    let k = p.base_gram();
    let n = k.nrows();
    let duels: Vec<IndexPair> = p.duels().pairs();
    let rho = p.config().inference.rho();
    let anchored: Vec<IndexPair> = (0..n).map(|c| (c, anchor)).collect();
    let prior = dueling_gram(k, &anchored, &anchored).unwrap();
    if duels.is_empty() {
        return (DVector::zeros(n), prior);
    }
    let kd = dueling_gram(k, &duels, &duels).unwrap() + DMatrix::identity(duels.len(), duels.len()) * rho;
    let q = dueling_gram(k, &duels, &anchored).unwrap(); // t×n, column c = q_c
    let chol = Cholesky::new(&kd).unwrap();
    let cov = prior - q.transpose() * chol.solve(&q).unwrap();
    let theta = p.fit().unwrap().theta();
    let mean = q.transpose() * theta;
    (mean, cov)
}

#[test]
fn anchored_sampler_has_the_pair_space_mean_and_covariance() {
    let c = ctx(12, 40);
    let mut p = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    p.observe_batch(&random_history(c.domain(), 25, 4)).unwrap();
    let sampler = p.sampler().unwrap();
    for anchor in [0, 5, 11] {
        let (mean, cov) = pair_space_anchored(&p, anchor);
        let s = AnchoredSampler::from_utility(&sampler, anchor).unwrap();
        assert_eq!(s.anchor(), anchor);
        // The mean: θᵀq_c vs g(c) − g(a), two ways of summing the same O(1) terms; θ is O(10).
        assert!((s.mean() - &mean).amax() < 1e-10, "mean differs by {}", (s.mean() - &mean).amax());
        // The utility-space formula: a t×t solve vs rank-one updates, rounding only (entries ≤ 2).
        let direct = anchored_covariance(p.posterior(), anchor).unwrap();
        assert!((&direct - &cov).amax() < 1e-10, "covariance differs by {}", (&direct - &cov).amax());
        // The coupled factor: pivoted Cholesky of Ŝ stops at remaining pivots ≤ 1e-9·n·max Ŝ_ii, so
        // F Fᵀ matches Ŝ to about that level, and the anchored rows to twice it.
        assert!(
            (s.covariance() - &cov).amax() < 1e-7,
            "factor covariance differs by {}",
            (s.covariance() - &cov).amax()
        );
        // Row and column a vanish exactly: h̃(a, a) = 0.
        assert!(s.factor().row(anchor).iter().all(|&v| v == 0.0));
        assert_eq!(s.mean()[anchor], 0.0);
    }
    assert!(matches!(p.anchored_sampler(12), Err(Error::IndexOutOfRange { .. })));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Proposition 1 on the candidates: for any anchor, the anchored sampler and the utility-space
    /// sampler fed the same standard-normal draws select the same pair.
    #[test]
    fn anchored_and_utility_samplers_pick_the_same_actions_for_any_anchor(
        n in 2usize..25,
        t in 0usize..40,
        history_seed in any::<u64>(),
        draw_seed in any::<u64>(),
        scale in 0.1f64..6.0,
    ) {
        let c = ctx(n, 50);
        let mut p = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
        p.observe_batch(&random_history(c.domain(), t, history_seed)).unwrap();
        let sampler = p.sampler().unwrap();
        let mut r = rng::seeded(draw_seed);
        let z = DMatrix::from_fn(sampler.rank(), 2, |_, _| StandardNormal.sample(&mut r));
        let (x, xp) = PfTs::select_with(&sampler, scale, &z).unwrap();
        let f = sampler.transform(scale, &z).unwrap();
        for anchor in 0..n {
            let anchored = AnchoredSampler::from_utility(&sampler, anchor).unwrap();
            let (y, yp) = anchored.select(scale, &z).unwrap();
            // h̃(·, a) = f̃ − f̃(a) up to one rounding per entry, so a different argmax is only
            // possible at a near-tie of f̃ within ~1e-12 of its scale.
            for (col, chosen, other) in [(0, x, y), (1, xp, yp)] {
                if chosen != other {
                    let gap = (f[(chosen, col)] - f[(other, col)]).abs();
                    prop_assert!(gap < 1e-12 * (1.0 + f.column(col).amax()), "anchor {anchor}: {chosen} vs {other}, gap {gap}");
                }
            }
        }
    }
}

/// Two-sample χ² statistic of category counts (categories with no count in either are dropped).
fn chi_square(a: &[usize], b: &[usize]) -> (f64, usize) {
    let (na, nb) = (a.iter().sum::<usize>() as f64, b.iter().sum::<usize>() as f64);
    let mut stat = 0.0;
    let mut df = 0;
    for (&x, &y) in a.iter().zip(b) {
        if x + y == 0 {
            continue;
        }
        let (x, y) = (x as f64, y as f64);
        let pooled = (x + y) / (na + nb);
        stat += (x - na * pooled).powi(2) / (na * pooled) + (y - nb * pooled).powi(2) / (nb * pooled);
        df += 1;
    }
    (stat, df.max(1) - 1)
}

/// Upper quantile of χ²_df by the Wilson–Hilferty approximation, z = 4.265 (one-sided 1e-5).
fn chi_square_critical(df: usize) -> f64 {
    let d = df.max(1) as f64;
    d * (1.0 - 2.0 / (9.0 * d) + 4.265 * (2.0 / (9.0 * d)).sqrt()).powi(3)
}

#[test]
fn anchored_sampler_with_its_own_factorisation_selects_with_the_same_distribution() {
    // The paper's Algorithm 1 factorises the singular anchored covariance itself; here it gets its
    // own pivoted Cholesky and independent draws, and the selected x_t must follow the law of the
    // utility-space argmax (note §9 item 14).
    let c = ctx(12, 40);
    let mut p = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
    p.observe_batch(&random_history(c.domain(), 10, 21)).unwrap();
    let n = 12;
    let draws = 20_000;
    let utility = p.sampler().unwrap();
    let anchor = 4;
    let cov = anchored_covariance(p.posterior(), anchor).unwrap();
    let mean = DVector::from_fn(n, |i, _| p.utility()[i] - p.utility()[anchor]);
    let anchored = JointSampler::new(mean.clone(), &cov).unwrap();
    // Negative control: the right marginals but independent across candidates.
    let independent = JointSampler::new(mean, &DMatrix::from_diagonal(&cov.diagonal())).unwrap();
    // v = 3 spreads the law of the argmax over several candidates (at v = 1 one candidate takes
    // 93% of the draws and the comparison has little power).
    let counts = |s: &JointSampler, seed: u64| {
        let x = s.sample(3.0, draws, &mut rng::seeded(seed)).unwrap();
        let mut c = vec![0usize; n];
        for col in x.column_iter() {
            c[argmax_lowest(col.iter().copied()).unwrap()] += 1;
        }
        c
    };
    let base = counts(&utility, 1);
    assert!(base.iter().filter(|&&k| k > 100).count() >= 3, "the action law should be spread out: {base:?}");
    let (stat, df) = chi_square(&base, &counts(&anchored, 2));
    assert!(stat < chi_square_critical(df), "anchored vs utility: χ² = {stat:.1} on {df} df");
    let (stat, df) = chi_square(&base, &counts(&independent, 3));
    assert!(stat > chi_square_critical(df), "the test should reject independent draws: χ² = {stat:.1} on {df} df");
}

#[test]
fn theoretical_schedule_uses_the_upper_greedy_bracket_of_the_dueling_gain() {
    let c = ctx(15, 30);
    let cfg = PfTsConfig { exploration: WidthSchedule::Theory { norm_bound: 1.0, delta: 0.1 }, ..Default::default() };
    let mut p = PfTs::new(&c, cfg.check().unwrap()).unwrap();
    let theory = p.theory().unwrap();
    assert_eq!(theory.horizon(), 30);
    let greedy = greedy_pairs(p.base_gram(), PairKernel::Dueling, 0.05, 30).unwrap();
    let history = run(&mut p, 30, 2);
    let gamma = p.theory().unwrap().gamma().to_vec();
    for t in [1, 10, 30] {
        assert_relative_eq!(gamma[t], greedy.bracket_at(t).unwrap().upper, max_relative = 1e-14);
    }
    // Γ(t) bounds the information gain of any t duels, in particular PF-TS's own first t.
    let pairs: Vec<IndexPair> = history.iter().map(|(q, _)| indices(q)).collect();
    for t in [5, 30] {
        let realised = information_gain(&dueling_gram(p.base_gram(), &pairs[..t], &pairs[..t]).unwrap(), 0.05).unwrap();
        assert!(realised <= gamma[t] + 1e-9, "I = {realised} > Γ({t}) ≤ {}", gamma[t]);
    }
    // eq. (12) at the last round t = 30 (29 duels observed before it), by hand: κ = 1, λ = 0.05.
    let mut at30 = PfTs::new(&c, p.config().clone().check().unwrap()).unwrap();
    at30.observe_batch(&history[..29]).unwrap();
    let expected = 4.0 + 2.0 * (2.0 / 0.05 * (gamma[30] + 10f64.ln())).sqrt();
    assert_relative_eq!(at30.exploration_scale().unwrap(), expected, max_relative = 1e-14);
    // Past the horizon the Γ table ends: a clear error naming `t`.
    assert!(p.exploration_scale().unwrap_err().to_string().contains("`t`"));
}

#[test]
fn pfts_regret_is_well_below_uniform_random_duels() {
    // 30 grid points, T = 200, BTL answers on a known utility; uniform random duels have expected
    // per-step regret E_x μ(f* − f(x)) − 1/2 exactly (x, x′ independent uniform).
    let c = ctx(30, 200);
    let u = utility_vector(c.domain());
    let best = u.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let uniform = u.iter().map(|&f| Link::Logistic.mu(best - f)).sum::<f64>() / 30.0 - 0.5;
    let seeds = [1u64, 2, 3, 4];
    let mut late = 0.0;
    for &seed in &seeds {
        let mut p = PfTs::new(&c, PfTsConfig::default().check().unwrap()).unwrap();
        let history = run(&mut p, 200, seed);
        late += history[150..]
            .iter()
            .map(|(q, _)| {
                let (i, j) = indices(q);
                duel_regret(&u, (i, j))
            })
            .sum::<f64>()
            / 50.0;
    }
    late /= seeds.len() as f64;
    assert!(late < 0.5 * uniform, "PF-TS late regret {late:.4} vs uniform {uniform:.4}");
}

#[test]
fn pfts_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<PfTs>();
}

/// Each PF-TS exploration rule, parsed from its TOML spelling, gives the v_t sequence of App. F.1
/// and eq. (12) for t = 1, …, 30, written out here from the paper (δ = 0.05: log(2/δ) = log 40;
/// eq. (12) with κ = 1, λ = 0.05, B = 2, Γ(t) = 0.5 t).
#[test]
fn named_exploration_rules_give_the_papers_sequences() {
    use bohf_gp::exploration::{Feedback, TheoryInputs};
    let v = |text: &str| toml::from_str::<PfTsConfig>(text).unwrap().exploration;
    let experiment = v("[exploration]\nrule = \"pfts-experiment\"");
    let square_root = v("[exploration]\nrule = \"pfts-square-root\"\ndelta = 0.05");
    let theory = v("[exploration]\nrule = \"theory\"\nnorm_bound = 2.0");
    let gamma: Vec<f64> = (0..=30).map(|t| 0.5 * t as f64).collect();
    let inputs = TheoryInputs::new(Feedback::Preference { kappa: 1.0, lambda: 0.05 }, gamma).unwrap();
    for t in 1..=30usize {
        let tf = t as f64;
        let v2 = (tf + 1.0 + 40f64.ln()).sqrt(); // v_t² of App. F.1
        let got = |s| bohf_gp::exploration_scale(&s, t, Some(&inputs)).unwrap();
        approx::assert_relative_eq!(got(experiment), v2.sqrt(), max_relative = 1e-14);
        approx::assert_relative_eq!(got(square_root), v2, max_relative = 1e-14);
        let eq12 = 4.0 * 2.0 + 2.0 * ((2.0 / 0.05) * (0.5 * tf + 20f64.ln())).sqrt();
        approx::assert_relative_eq!(got(theory), eq12, max_relative = 1e-14);
    }
}

/// Identical candidates give exactly tied draws, so both draws pick the lower index.
#[test]
fn tied_draws_pick_the_lowest_index() {
    let dom = FiniteDomain::from_rows(&[vec![0.3], vec![0.3], vec![0.3]]).unwrap();
    let mut p = PfTs::new(&SearchContext::new(dom, 5).unwrap(), PfTsConfig::default().check().unwrap()).unwrap();
    let q = p.suggest(&mut rng::seeded(1)).unwrap();
    assert_eq!(indices(&q), (0, 0));
}
