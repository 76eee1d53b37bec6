//! Behaviour tests of POP-BO against independent computations.

use crate::{InitialPoint, PopBo, PopBoConfig, ReportRule, pair_sigmas, t_star};
use bohf_core::WidthSchedule;
use bohf_core::rand::RngExt;
use bohf_core::rng::seeded;
use bohf_core::{Answer, Error, FiniteDomain, Optimizer, Point, Query, SearchContext};
use bohf_kernels::KernelSpec;
use nalgebra::DMatrix;

/// A 2-D grid on [0, 1]² with `m` points per side.
fn grid(m: usize) -> FiniteDomain {
    bohf_core::BoxDomain::cube(0.0, 1.0, 2).unwrap().grid(m).unwrap()
}

fn config(b: f64, lengthscale: f64) -> PopBoConfig {
    let mut c = PopBoConfig::default();
    c.confidence.norm_bound = b;
    c.inference.kernel = KernelSpec { lengthscale: Some(lengthscale), ..KernelSpec::default() };
    c
}

/// A smooth utility with its maximum at (0.7, 0.3), scaled so that differences are a few units.
fn utility(x: &[f64]) -> f64 {
    3.0 * (-((x[0] - 0.7).powi(2) + (x[1] - 0.3).powi(2)) / 0.08).exp()
}

/// Runs `steps` steps answering with BTL draws from `utility` (seeded), returning the history.
fn run(p: &mut PopBo, steps: usize, seed: u64) -> Vec<(Query, Answer)> {
    let mut rng = seeded(seed);
    let mut answers = seeded(seed + 1000);
    let mut history = Vec::new();
    for _ in 0..steps {
        let q = p.suggest(&mut rng).unwrap();
        let Query::Duel(x, y) = &q else { unreachable!() };
        let prob = 1.0 / (1.0 + (-(utility(&x.coords) - utility(&y.coords))).exp());
        let a = Answer::Duel { first_wins: answers.random::<f64>() < prob };
        p.observe(&q, a).unwrap();
        history.push((q, a));
    }
    history
}

#[test]
fn first_step_is_the_closed_form_farthest_point() {
    // With no data, A_1(x) = B √(k(x,x) − 2k(x,x₀) + k(x₀,x₀)) (notes §3.4): for a stationary
    // kernel the farthest candidate from x₀ wins.
    let dom = FiniteDomain::linspace(0.0, 1.0, 25).unwrap();
    let ctx = SearchContext::new(dom, 10).unwrap();
    let mut cfg = config(2.0, 0.2);
    cfg.initial = InitialPoint::Candidate { index: 6 };
    let mut p = PopBo::new(&ctx, cfg.check().unwrap()).unwrap();
    let q = p.suggest(&mut seeded(0)).unwrap();
    let Query::Duel(x, y) = q else { unreachable!() };
    assert_eq!((x.index, y.index), (Some(24), Some(6)));
    let k = |r: f64| {
        let s = 5f64.sqrt() * r / 0.2;
        (1.0 + s + s * s / 3.0) * (-s).exp()
    };
    let want = 2.0 * (2.0 - 2.0 * k(1.0 - 0.25)).sqrt();
    let info = p.last_step().unwrap();
    // Interior-point tolerance 1e−8 on a value of order 3: agreement to 1e−6.
    assert!((info.advantage - want).abs() < 1e-6, "{} vs {want}", info.advantage);
    let all = p.optimistic_advantages().unwrap();
    for (i, a) in all.iter().enumerate() {
        let r = (i as f64 / 24.0 - 0.25).abs();
        assert!((a - 2.0 * (2.0 - 2.0 * k(r)).max(0.0).sqrt()).abs() < 1e-6, "candidate {i}");
    }
}

#[test]
fn pruned_argmax_equals_the_brute_force_argmax() {
    // Seeds 4–7 add the authors' latent box (small enough to bind), which exercises the cap
    // b − inf f̃(x′) of the screening.
    for seed in 0..8 {
        let ctx = SearchContext::new(grid(9), 20).unwrap();
        let mut cfg = config(3.0, 0.25);
        cfg.beta = WidthSchedule::SqrtT { scale: 0.5 + (seed % 4) as f64 * 0.3 };
        if seed >= 4 {
            cfg.confidence.latent_box = Some(1.0);
            cfg.confidence.nugget = 1e-6;
        }
        let mut p = PopBo::new(&ctx, cfg.check().unwrap()).unwrap();
        run(&mut p, 6 + 2 * (seed % 4) as usize, seed);
        let exact = p.optimistic_advantages().unwrap();
        let q = p.suggest(&mut seeded(99)).unwrap();
        let Query::Duel(x, y) = q else { unreachable!() };
        let info = *p.last_step().unwrap();
        let max = exact.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        // Both are interior-point solutions with tolerance 1e−8 (values of order B = 3): 1e−6.
        assert!((info.advantage - max).abs() < 1e-6, "seed {seed}: {} vs {max}", info.advantage);
        assert!((exact[x.index.unwrap()] - max).abs() < 1e-6);
        assert_eq!(y.index, p.reference());
        assert!(info.solved <= info.candidates);
        // The advantage at the reference is 0 (f̃(x′) − f̃(x′)) up to the nugget ε: with K + εI the
        // reference, taken as a candidate, keeps an independent component ρ ≈ √(2ε), worth up to
        // B√(2ε) ≈ 4e−3 at ε = 1e−6. The MLE is feasible, so every advantage is at least f̂(x) − f̂(x′)
        let r = p.reference().unwrap();
        let eps = p.config().confidence.nugget;
        assert!(exact[r].abs() < 3.0 * (2.0 * eps).sqrt() + 1e-6, "{}", exact[r]);
        // (With the latent box the MLE's interpolant may leave the box at a candidate, so the
        // bound holds only without it.)
        if seed >= 4 {
            continue;
        }
        let fhat = p.mle_on_candidates().unwrap();
        for (i, a) in exact.iter().enumerate() {
            assert!(*a >= fhat[i] - fhat[r] - 1e-6, "candidate {i}: {a} < {}", fhat[i] - fhat[r]);
        }
    }
}

#[test]
fn pruning_solves_fewer_programs_than_candidates() {
    let ctx = SearchContext::new(grid(20), 30).unwrap();
    let mut p = PopBo::new(&ctx, config(3.0, 0.2).check().unwrap()).unwrap();
    run(&mut p, 10, 3);
    p.suggest(&mut seeded(0)).unwrap();
    let info = p.last_step().unwrap();
    assert_eq!(info.candidates, 400);
    assert!(info.solved < 400, "solved {}", info.solved);
}

#[test]
fn replaying_the_history_reproduces_the_state() {
    let ctx = SearchContext::new(grid(8), 20).unwrap();
    let mut a = PopBo::new(&ctx, config(3.0, 0.25).check().unwrap()).unwrap();
    let history = run(&mut a, 8, 11);
    // One by one, without suggest.
    let mut b = PopBo::new(&ctx, config(3.0, 0.25).check().unwrap()).unwrap();
    for (q, ans) in &history {
        b.observe(q, *ans).unwrap();
    }
    // All at once.
    let mut c = PopBo::new(&ctx, config(3.0, 0.25).check().unwrap()).unwrap();
    c.observe_batch(&history).unwrap();
    assert_eq!(a.duels(), b.duels());
    assert_eq!(a.duels(), c.duels());
    assert_eq!(a.initial_point(), b.initial_point());
    let qa = a.suggest(&mut seeded(5)).unwrap();
    let qb = b.suggest(&mut seeded(6)).unwrap();
    let qc = c.suggest(&mut seeded(7)).unwrap();
    assert_eq!(qa, qb);
    assert_eq!(qa, qc);
    assert_eq!(a.recommend().unwrap(), b.recommend().unwrap());
    // The same seed gives the same x₀ and run.
    let mut d = PopBo::new(&ctx, config(3.0, 0.25).check().unwrap()).unwrap();
    assert_eq!(run(&mut d, 8, 11), history);
}

#[test]
fn report_rules_match_independent_computations() {
    let dom = grid(7);
    let ctx = SearchContext::new(dom.clone(), 20).unwrap();
    let mut p = PopBo::new(&ctx, config(3.0, 0.3).check().unwrap()).unwrap();
    run(&mut p, 10, 21);
    let problem = p.problem().unwrap();
    let mle = p.mle().unwrap();
    let support = problem.support().unwrap().to_vec();
    // Max-MLE over the sampled points.
    let best = (0..support.len()).max_by(|&i, &j| mle.z[i].total_cmp(&mle.z[j])).unwrap();
    assert_eq!(p.report().unwrap(), support[best]);
    assert_eq!(p.recommend().unwrap().index, Some(support[best]));
    // Max of the min-norm interpolant f̂(x) = k_xᵀ(K + εI)⁻¹Ẑ, by an LU solve on the support Gram.
    let k = p.base_gram();
    let n = support.len();
    let eps = problem.jitter();
    let ks = DMatrix::from_fn(n, n, |i, j| k[(support[i], support[j])] + if i == j { eps } else { 0.0 });
    let alpha = ks.lu().solve(&mle.z).unwrap();
    let fhat: Vec<f64> = (0..dom.len()).map(|x| (0..n).map(|i| k[(support[i], x)] * alpha[i]).sum::<f64>()).collect();
    let got = p.mle_on_candidates().unwrap();
    for (a, b) in got.iter().zip(&fhat) {
        // K has condition number up to ~1e6 on this grid; values of order 1: 1e−6.
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
    let mut grid_cfg = config(3.0, 0.3);
    grid_cfg.report = ReportRule::MaxMleGrid;
    let mut g = PopBo::new(&ctx, grid_cfg.check().unwrap()).unwrap();
    g.observe_batch(&p.duels().iter().map(|d| duel(&dom, d.first, d.second, d.first_wins)).collect::<Vec<_>>())
        .unwrap();
    let argmax = (0..fhat.len()).max_by(|&i, &j| fhat[i].total_cmp(&fhat[j])).unwrap();
    assert_eq!(g.report().unwrap(), argmax);
    // Theoretical t*: x_{t*} with the smallest 2(2B + λ^{−1/2}√β_t)σ_t.
    let mut t_cfg = config(3.0, 0.3);
    t_cfg.report = ReportRule::TheoreticalTStar { lambda: 0.5 };
    let mut t = PopBo::new(&ctx, t_cfg.check().unwrap()).unwrap();
    t.observe_batch(&p.duels().iter().map(|d| duel(&dom, d.first, d.second, d.first_wins)).collect::<Vec<_>>())
        .unwrap();
    let pairs: Vec<(usize, usize)> = p.duels().iter().map(bohf_core::Duel::pair).collect();
    let sig = pair_sigmas(k, &pairs, 0.5).unwrap();
    let betas: Vec<f64> = (1..=pairs.len()).map(|s| (s as f64).sqrt()).collect();
    let ts = t_star(3.0, 0.5, &betas, &sig).unwrap();
    assert_eq!(t.report().unwrap(), pairs[ts].0);
}

fn duel(dom: &FiniteDomain, i: usize, j: usize, first_wins: bool) -> (Query, Answer) {
    (Query::Duel(dom.point(i).unwrap(), dom.point(j).unwrap()), Answer::Duel { first_wins })
}

#[test]
fn finds_the_maximum_of_a_smooth_utility() {
    // 30 steps on a 12×12 grid (the Table 2 budget): the reported point is near (0.7, 0.3).
    let dom = grid(12);
    let ctx = SearchContext::new(dom.clone(), 30).unwrap();
    let mut regrets = Vec::new();
    for seed in 0..3 {
        let mut p = PopBo::new(&ctx, config(4.0, 0.25).check().unwrap()).unwrap();
        run(&mut p, 30, 40 + seed);
        let best = p.recommend().unwrap();
        regrets.push(3.0 - utility(&best.coords));
    }
    let mean = regrets.iter().sum::<f64>() / 3.0;
    // A random point has expected regret ≈ 2.6 (most of the square is far from the bump).
    assert!(mean < 1.0, "{regrets:?}");
}

#[test]
fn protocol_and_config_errors() {
    let dom = grid(5);
    let ctx = SearchContext::new(dom.clone(), 5).unwrap();
    let named = |cfg: PopBoConfig, field: &str| {
        let e = cfg.check().and_then(|c| PopBo::new(&ctx, c)).unwrap_err().to_string();
        assert!(e.contains(field), "{field}: {e}");
    };
    let mut c = PopBoConfig::default();
    c.confidence.norm_bound = 0.0;
    named(c, "`confidence.norm_bound`");
    named(PopBoConfig { beta: WidthSchedule::SqrtT { scale: -1.0 }, ..Default::default() }, "`beta.scale`");
    named(PopBoConfig { initial: InitialPoint::Candidate { index: 25 }, ..Default::default() }, "initial.index");
    named(
        PopBoConfig { report: ReportRule::TheoreticalTStar { lambda: 0.0 }, ..Default::default() },
        "`report.lambda`",
    );
    let mut c = PopBoConfig::default();
    c.inference.kernel.lengthscale = Some(-1.0);
    named(c, "`inference.kernel.lengthscale`");

    let mut p = PopBo::new(&ctx, config(2.0, 0.3).check().unwrap()).unwrap();
    let q = p.suggest(&mut seeded(1)).unwrap();
    let Query::Duel(x, y) = &q else { unreachable!() };
    // Not the pending duel.
    let swapped = Query::Duel(y.clone(), x.clone());
    assert!(matches!(p.observe(&swapped, Answer::Duel { first_wins: true }), Err(Error::InvalidParameter { .. })));
    // Wrong answer kind, wrong query kind, wrong coordinates, index out of range.
    assert!(p.observe(&q, Answer::Value(1.0)).is_err());
    assert!(p.observe(&Query::Evaluate(x.clone()), Answer::Value(1.0)).is_err());
    let moved = Query::Duel(Point::candidate(x.index.unwrap(), vec![9.0, 9.0]), y.clone());
    assert!(p.observe(&moved, Answer::Duel { first_wins: true }).is_err());
    let far = Query::Duel(Point::candidate(99, vec![0.0, 0.0]), y.clone());
    assert!(matches!(p.observe(&far, Answer::Duel { first_wins: true }), Err(Error::IndexOutOfRange { .. })));
    // Nothing changed; the right duel is accepted.
    assert!(p.duels().is_empty());
    p.observe(&q, Answer::Duel { first_wins: false }).unwrap();
    assert_eq!(p.duels().len(), 1);
}

#[test]
fn defaults_are_the_papers() {
    let c = PopBoConfig::default();
    // App. P: B = 6, β_t = β₀√t with β₀ = 1; the report of the experiments; random x₀.
    assert_eq!(c.confidence.norm_bound, 6.0);
    assert_eq!(c.beta, WidthSchedule::SqrtT { scale: 1.0 });
    assert_eq!(c.report, ReportRule::MaxMleSampled);
    assert_eq!(c.initial, InitialPoint::Random);
    assert_eq!(c.confidence.latent_box, None);
    c.check().unwrap();
}

#[test]
fn self_duels_reuse_the_mle_and_argmax_exactly() {
    // A history in which candidate 5 beat every other point 12 times: the set is tight, POP-BO duels
    // 5 against itself, the program stops changing, and with constant β the cached argmax must
    // equal a fresh search of an instance that replays the history.
    let dom = grid(4);
    let ctx = SearchContext::new(dom.clone(), 400).unwrap();
    let mut cfg = config(3.0, 0.25);
    cfg.beta = WidthSchedule::Constant { value: 1.0 };
    let mut history = Vec::new();
    for j in (0..16).filter(|&j| j != 5) {
        for _ in 0..12 {
            history.push(duel(&dom, 5, j, true));
        }
    }
    history.push(duel(&dom, 5, 0, true));
    let mut a = PopBo::new(&ctx, cfg.clone().check().unwrap()).unwrap();
    a.observe_batch(&history).unwrap();
    let mut reused = 0;
    for step in 0..6 {
        let q = a.suggest(&mut seeded(1)).unwrap();
        let info = *a.last_step().unwrap();
        assert_eq!((info.chosen, info.reference), (5, 5), "step {step}: expected a self-duel of the winner");
        let mut fresh = PopBo::new(&ctx, cfg.clone().check().unwrap()).unwrap();
        fresh.observe_batch(&history).unwrap();
        let qf = fresh.suggest(&mut seeded(99)).unwrap();
        assert_eq!(q, qf, "step {step}: suggestion differs from a fresh search");
        assert!(fresh.last_step().unwrap().solved > 0);
        assert!((info.advantage - fresh.last_step().unwrap().advantage).abs() < 1e-6);
        let (fa, ff) = (a.mle().unwrap(), fresh.mle().unwrap());
        assert!((fa.log_likelihood - ff.log_likelihood).abs() < 1e-6 * ff.log_likelihood.abs());
        if info.solved == 0 {
            reused += 1;
        }
        let ans = Answer::Duel { first_wins: step % 2 == 0 };
        a.observe(&q, ans).unwrap();
        history.push((q, ans));
    }
    // The first self-duel needs a search; every later one reuses it.
    assert_eq!(reused, 5);
}

#[test]
fn latent_box_plateau_keeps_the_exact_argmax_and_is_screened() {
    // Table 2's Levy13 regime (B = 6, latent box |z| ≤ 3, β_t = √(t + 1), ε_K = 1e−6, a lengthscale
    // of a tenth of the box): far from the data f̃(x) reaches the box, and the advantage is a
    // plateau where half of the candidates lie within 0.1 of the maximum. There the ball-and-
    // halfspace bounds alone certified nothing (up to 391 of 400 programs per step on Levy13); the
    // Lagrangian cuts of the box rows must screen most of them, and the search must still return
    // the exact maximum (every step checked against all 400 programs).
    let ctx = SearchContext::new(grid(20), 30).unwrap();
    let mut cfg = config(6.0, 0.1);
    cfg.beta = WidthSchedule::SqrtTPlusOne { scale: 1.0 };
    cfg.confidence.latent_box = Some(3.0);
    cfg.confidence.nugget = 1e-6;
    let mut p = PopBo::new(&ctx, cfg.check().unwrap()).unwrap();
    let (mut rng, mut answers) = (seeded(21), seeded(22));
    let mut worst = 0;
    let mut near_total = 0;
    for step in 0..12 {
        let q = p.suggest(&mut rng).unwrap();
        let info = *p.last_step().unwrap();
        let exact = p.optimistic_advantages().unwrap();
        let max = exact.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let Query::Duel(x, y) = &q else { unreachable!() };
        assert!((info.advantage - max).abs() < 1e-6, "step {step}: {} vs {max}", info.advantage);
        assert!((exact[x.index.unwrap()] - max).abs() < 1e-6, "step {step}");
        near_total += exact.iter().filter(|&&e| e > max - 0.1).count();
        worst = worst.max(info.solved);
        let prob = 1.0 / (1.0 + (-(utility(&x.coords) - utility(&y.coords))).exp());
        p.observe(&q, Answer::Duel { first_wins: answers.random::<f64>() < prob }).unwrap();
    }
    eprintln!("plateau: worst step solved {worst} of 400; mean {} candidates within 0.1 of the max", near_total / 12);
    // The regime is the plateau (on average over 100 candidates within 0.1 of the maximum) ...
    assert!(near_total / 12 > 100, "no plateau: {}", near_total / 12);
    // ... and the screening still solves at most a quarter of the programs at every step.
    assert!(worst <= 100, "a step solved {worst} of 400 programs");
}
