use super::*;
use bohf_core::{
    Answer, BetaForm, BoxDomain, Error, FiniteDomain, Optimizer, Query, QueryCosts, SearchContext, WidthSchedule, rng,
};
use bohf_problems::functions::{CurrinExp, Fidelity};
use bohf_problems::respondents::{BiasedComparisons, DuelModel, Respondent};

/// The paper's costs (App. B): λ_c = 0.1, λ_l = 1, Λ = `total`.
fn paper_costs(total: f64) -> QueryCosts {
    QueryCosts { total, duel: 0.1, evaluate: 1.0, label: 1.0 }
}

/// CurrinExp on an 8×8 grid of [0, 1]²: labels from f, deterministic duels from its low fidelity;
/// the paper's costs with Λ = 100.
fn ctx() -> SearchContext {
    ctx_with(Some(paper_costs(100.0)))
}

fn ctx_with(costs: Option<QueryCosts>) -> SearchContext {
    let c = SearchContext::new(BoxDomain::cube(0.0, 1.0, 2).unwrap().grid(8).unwrap(), 200).unwrap();
    match costs {
        Some(k) => c.with_costs(k),
        None => c,
    }
}

fn respondent() -> BiasedComparisons<CurrinExp, CurrinExp> {
    BiasedComparisons::new(CurrinExp::new(Fidelity::High), CurrinExp::new(Fidelity::Low), DuelModel::Deterministic, 0.0)
        .unwrap()
}

/// Fixed kernels (fast), ζ = 0.25 (CurrinExp's f(x*) − f_c(x*) ≈ 0.2527), 4 initial duels and 4
/// initial labels, f GP with prior variance 16 (f ∈ [1, 14]).
fn quick() -> CompGpUcbConfig {
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
        initial: InitialDesign { budget: 8.0, counting: InitialCounting::Count, counts_toward_budget: true },
        ..CompGpUcbConfig::default()
    }
}

/// One step as seen before its answer.
struct Step {
    query: Query,
    decision: Decision,
}

/// Runs `steps` queries, calling `check` after each suggestion (before the answer).
fn run(
    config: CompGpUcbConfig,
    steps: usize,
    seed: u64,
    check: impl FnMut(&CompGpUcb, &Query),
) -> (CompGpUcb, Vec<Step>, Vec<(Query, Answer)>) {
    run_in(&ctx(), config, steps, seed, check)
}

/// [`run`] in a given context.
fn run_in(
    ctx: &SearchContext,
    config: CompGpUcbConfig,
    steps: usize,
    seed: u64,
    mut check: impl FnMut(&CompGpUcb, &Query),
) -> (CompGpUcb, Vec<Step>, Vec<(Query, Answer)>) {
    let mut alg = CompGpUcb::new(ctx, config.check().unwrap()).unwrap();
    let mut r_alg = rng::seeded(seed);
    let mut r_resp = rng::seeded(seed + 1000);
    let mut resp = respondent();
    let mut out = Vec::new();
    let mut history = Vec::new();
    for _ in 0..steps {
        let q = alg.suggest(&mut r_alg).unwrap();
        check(&alg, &q);
        let a = resp.answer(&q, &mut r_resp).unwrap();
        out.push(Step { query: q.clone(), decision: alg.last_decision().unwrap().clone() });
        alg.observe(&q, a).unwrap();
        history.push((q, a));
    }
    (alg, out, history)
}

fn index_of(q: &Query) -> usize {
    match q {
        Query::Duel(p, _) | Query::Evaluate(p) | Query::Label(p) => p.index.unwrap(),
        Query::Choice(_) => panic!("COMP-GP-UCB asks no choices"),
    }
}

fn field(e: Error) -> String {
    match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected an invalid-parameter error, got {other:?}"),
    }
}

#[test]
fn defaults_are_the_papers_protocol_and_round_trip_through_toml() {
    let c = CompGpUcbConfig::default();
    c.check().unwrap();
    // Λ₀ = 10 split half/half as budget at λ_c = 0.1, λ_l = 1: 50 duels and 5 labels.
    let paper = Costs::of_context(Some(&paper_costs(100.0))).unwrap();
    assert_eq!(c.initial_counts(&paper), (50, 5));
    // At λ_c = 0.5: 5/0.5 = 10 duels; without a budget every query costs 1: 5 and 5.
    assert_eq!(c.initial_counts(&Costs { duel: 0.5, ..paper }), (10, 5));
    assert_eq!(c.initial_counts(&Costs::UNIT), (5, 5));
    let counted = CompGpUcbConfig {
        initial: InitialDesign { counting: InitialCounting::Count, ..InitialDesign::default() },
        ..c.clone()
    };
    assert_eq!(counted.initial_counts(&paper), (5, 5));
    // The split of the other methods: all values (GP-UCB), all duels (KSS).
    assert_eq!(initial_split(10.0, 0.1, 1.0, 0.0), (0, 10));
    assert_eq!(initial_split(10.0, 0.1, 1.0, 1.0), (100, 0));
    // The cost-ratio doubling threshold is ⌈λ_l/λ_c⌉: 10 at the paper's costs, 4 at λ_c = 0.3.
    let ratio = CompGpUcbConfig {
        doubling: GammaDoubling { after: DoublingAfter::CostRatio, ..GammaDoubling::default() },
        ..c.clone()
    };
    assert_eq!(ratio.doubling_after(&paper), 10);
    assert_eq!(ratio.doubling_after(&Costs { duel: 0.3, ..paper }), 4);
    assert_eq!(c.hyperparameters.as_ref().unwrap().refit_every, 5);
    assert_eq!(c.comparison_hyperparameters.as_ref().unwrap().refit_every, 20);
    // γ₀ = ζ/L₂ by default.
    assert_eq!(c.initial_gamma(), 0.15);
    let text = toml::to_string(&c).unwrap();
    let back: CompGpUcbConfig = toml::from_str(&text).unwrap();
    assert_eq!(back, c);
    let parsed: CompGpUcbConfig = toml::from_str(
        "zeta = 0.25\nf_range = 12.6\nzeta_scale = \"normalised\"\n[gamma]\nrule = \"range-times-zeta\"\n",
    )
    .unwrap();
    let parsed = parsed.check().unwrap();
    // Normalised ζ = 0.25/12.6, γ₀ = range(f)·ζ_s = 0.25.
    assert!((parsed.scaled(0.25) - 0.25 / 12.6).abs() < 1e-15);
    assert!((parsed.initial_gamma() - 0.25).abs() < 1e-12);
}

#[test]
fn bad_settings_name_their_field() {
    let c = CompGpUcbConfig::default;
    assert_eq!(field(CompGpUcbConfig { zeta: -0.1, ..c() }.check().unwrap_err()), "zeta");
    assert_eq!(field(CompGpUcbConfig { zeta: f64::NAN, ..c() }.check().unwrap_err()), "zeta");
    assert_eq!(
        field(CompGpUcbConfig { gamma: GammaRule::Value { value: -1.0 }, ..c() }.check().unwrap_err()),
        "gamma.value"
    );
    assert_eq!(
        field(CompGpUcbConfig { gamma: GammaRule::Value { value: f64::NAN }, ..c() }.check().unwrap_err()),
        "gamma.value"
    );
    // The costs are the run's budget's: λ_c ≤ 0, λ_l < λ_c and Λ ≤ 0 name its fields.
    let costs = |total, duel, evaluate| {
        field(Costs::of_context(Some(&QueryCosts { total, duel, evaluate, label: 1.0 })).unwrap_err())
    };
    assert_eq!(costs(100.0, 0.0, 1.0), "budget.duel");
    assert_eq!(costs(100.0, -0.1, 1.0), "budget.duel");
    assert_eq!(costs(100.0, 0.5, 0.2), "budget.evaluate");
    assert_eq!(costs(0.0, 0.1, 1.0), "budget.total");
    let zero_duel = ctx_with(Some(QueryCosts { duel: 0.0, ..paper_costs(100.0) }));
    assert_eq!(field(CompGpUcb::new(&zero_duel, c().check().unwrap()).unwrap_err()), "budget.duel");
    // Algorithm 2 plans with Λ: without a budget it names `budget.total`.
    let alg2 = CompGpUcbConfig { unknown_zeta: Some(UnknownZeta { zeta0: 0.1, zeta_max: 0.4 }), ..c() };
    assert_eq!(field(CompGpUcb::new(&ctx_with(None), alg2.check().unwrap()).unwrap_err()), "budget.total");
    assert_eq!(field(CompGpUcbConfig { zeta_scale: ZetaScale::Normalised, ..c() }.check().unwrap_err()), "f_range");
    assert_eq!(field(CompGpUcbConfig { l2: 0.0, ..c() }.check().unwrap_err()), "l2");
    assert_eq!(
        field(
            CompGpUcbConfig { beta: WidthSchedule::Theory { norm_bound: 1.0, delta: 1.5 }, ..c() }.check().unwrap_err()
        ),
        "beta.delta"
    );
    let unknown = UnknownZeta { zeta0: 0.1, zeta_max: 0.05 };
    assert_eq!(
        field(CompGpUcbConfig { unknown_zeta: Some(unknown), ..c() }.check().unwrap_err()),
        "unknown_zeta.zeta_max"
    );
    // An empty domain cannot be built, so no algorithm ever sees one.
    assert!(matches!(FiniteDomain::from_rows(&[]), Err(Error::Empty(_))));
}

#[test]
fn phase_one_runs_ucb_on_f_r_and_ends_once_beta_sigma_is_below_gamma() {
    let config = CompGpUcbConfig { gamma: GammaRule::Value { value: 0.3 }, ..quick() };
    let mut checked = 0;
    let (alg, steps, _) = run(config, 60, 3, |alg, q| {
        let d = alg.last_decision().unwrap();
        if d.phase == Phase::Comparisons {
            // x_t is the argmax of μ^r + β^r σ^r by brute force, and the recorded β^r σ^r is there.
            let (m, s) = alg.posterior(alg.comparison_gp()).unwrap();
            let br = alg.beta(true).unwrap();
            let x = index_of(q);
            let best = (0..m.len()).map(|i| m[i] + br * s[i]).fold(f64::NEG_INFINITY, f64::max);
            assert!(m[x] + br * s[x] >= best - 1e-12 * best.abs().max(1.0));
            assert!((d.beta_r_sigma_r - br * s[x]).abs() <= 1e-12);
            checked += 1;
        }
    });
    assert!(checked > 0);
    let phase1: Vec<&Step> = steps.iter().filter(|s| s.decision.phase == Phase::Comparisons).collect();
    let exit = phase1.iter().position(|s| s.decision.beta_r_sigma_r <= s.decision.gamma).expect("phase 1 ends");
    // Every phase-1 step before the exit had β^r σ^r > γ, the exit step is the last phase-1 step
    // and every later step is in phase 2; all phase-1 queries are duels.
    assert_eq!(exit + 1, phase1.len());
    assert!(phase1.iter().all(|s| matches!(s.query, Query::Duel(..))));
    let last_phase1 = steps.iter().rposition(|s| s.decision.phase == Phase::Comparisons).unwrap();
    assert!(steps[last_phase1 + 1..].iter().all(|s| s.decision.phase == Phase::Constrained));
    // f̂_r is the LCB at the exit point: μ^r − β^r σ^r with the recorded values.
    let (x, f_hat) = alg.phase1_exit().unwrap();
    assert_eq!(x, index_of(&phase1[exit].query));
    assert_eq!(f_hat, phase1[exit].decision.f_hat);
}

#[test]
fn phase_two_never_picks_an_infeasible_point_when_a_feasible_one_exists() {
    for lower_bound in [LowerBoundRule::Frozen, LowerBoundRule::Running, LowerBoundRule::MaxOfBoth] {
        let config = CompGpUcbConfig { gamma: GammaRule::Value { value: 0.3 }, lower_bound, ..quick() };
        let mut phase2 = 0;
        let mut labels = 0;
        run(config, 80, 5, |alg, q| {
            let d = alg.last_decision().unwrap();
            if d.phase != Phase::Constrained {
                return;
            }
            phase2 += 1;
            let phi = alg.constraint().unwrap();
            let (m, s) = alg.posterior(alg.label_gp()).unwrap();
            let b = alg.beta(false).unwrap();
            let x = index_of(q);
            let feasible: Vec<usize> = (0..phi.len()).filter(|&i| phi[i] >= 0.0).collect();
            assert_eq!(d.feasible, feasible.len());
            assert_eq!(d.feasible_empty, feasible.is_empty());
            if !feasible.is_empty() {
                assert!(phi[x] >= 0.0, "{lower_bound:?}: chose infeasible {x}");
                for &i in &feasible {
                    assert!(m[x] + b * s[x] >= m[i] + b * s[i] - 1e-12 * (m[i] + b * s[i]).abs().max(1.0));
                }
            }
            // Duel iff β^r σ^r(x_t) ≥ γ.
            let (mr, sr) = alg.posterior(alg.comparison_gp()).unwrap();
            let _ = mr;
            let duel = alg.beta(true).unwrap() * sr[x] >= alg.gamma();
            assert_eq!(matches!(q, Query::Duel(..)), duel);
            labels += usize::from(!duel);
        });
        assert!(phase2 > 10, "{lower_bound:?}: only {phase2} phase-2 steps");
        assert!(labels > 0, "{lower_bound:?}: no label in phase 2");
    }
}

#[test]
fn empty_feasible_set_falls_back_as_configured() {
    let ucb = [3.0, 5.0, 4.0];
    // One feasible candidate: the best UCB among the feasible ones, even if another has a larger UCB.
    assert_eq!(select_constrained(&ucb, &[-1.0, -0.5, 0.0], EmptyFallback::ArgmaxPhi, 0).unwrap(), (2, false));
    let none = [-0.3, -0.2, -0.9];
    assert_eq!(select_constrained(&ucb, &none, EmptyFallback::ArgmaxPhi, 0).unwrap(), (1, true));
    assert_eq!(select_constrained(&ucb, &none, EmptyFallback::ExitPoint, 2).unwrap(), (2, true));
    assert_eq!(select_constrained(&ucb, &[-0.1, -0.2, -0.05], EmptyFallback::Unconstrained, 0).unwrap(), (1, true));
    assert!(select_constrained(&ucb, &[0.0], EmptyFallback::ArgmaxPhi, 0).is_err());
}

#[test]
fn gamma_doubles_after_ten_comparisons_in_a_row() {
    let gamma0 = 1e-6;
    for scope in [DoublingScope::BothPhases, DoublingScope::Phase2] {
        let config = CompGpUcbConfig {
            gamma: GammaRule::Value { value: gamma0 },
            doubling: GammaDoubling { scope, ..GammaDoubling::default() },
            ..quick()
        };
        let (_, steps, _) = run(config, 60, 9, |_, _| {});
        // Replays the rule on the recorded phases and kinds.
        let (mut gamma, mut run_len, mut doublings) = (gamma0, 0usize, 0);
        for s in &steps {
            assert_eq!(s.decision.gamma, gamma);
            let duel = matches!(s.query, Query::Duel(..));
            match s.decision.phase {
                Phase::Initial => {}
                Phase::Comparisons if scope == DoublingScope::Phase2 => {}
                _ if duel => {
                    run_len += 1;
                    if run_len == 10 {
                        gamma *= 2.0;
                        run_len = 0;
                        doublings += 1;
                    }
                }
                _ => run_len = 0,
            }
        }
        if scope == DoublingScope::BothPhases {
            // γ = 10⁻⁶ ends phase 1 only through the doubling: at least a few must have happened.
            assert!(doublings >= 3, "{doublings} doublings");
        }
    }
}

#[test]
fn same_seed_same_queries_and_a_replay_restores_the_state() {
    let config = CompGpUcbConfig { gamma: GammaRule::Value { value: 0.3 }, ..quick() };
    let (a, sa, history) = run(config.clone(), 50, 21, |_, _| {});
    let (_, sb, _) = run(config.clone(), 50, 21, |_, _| {});
    assert_eq!(sa.iter().map(|s| &s.query).collect::<Vec<_>>(), sb.iter().map(|s| &s.query).collect::<Vec<_>>());
    let (_, sc, _) = run(config.clone(), 50, 22, |_, _| {});
    assert_ne!(sa.iter().map(|s| &s.query).collect::<Vec<_>>(), sc.iter().map(|s| &s.query).collect::<Vec<_>>());
    let mut replayed = CompGpUcb::new(&ctx(), config.check().unwrap()).unwrap();
    replayed.observe_batch(&history).unwrap();
    assert_eq!(replayed.answered(), a.answered());
    assert_eq!(replayed.gamma(), a.gamma());
    assert_eq!(replayed.phase1_exit(), a.phase1_exit());
    assert_eq!(replayed.decide().unwrap(), a.decide().unwrap());
}

#[test]
fn wrong_answers_are_rejected_and_record_nothing() {
    let config = CompGpUcbConfig { initial: InitialDesign { budget: 0.0, ..InitialDesign::default() }, ..quick() };
    let mut alg = CompGpUcb::new(&ctx(), config.check().unwrap()).unwrap();
    let q = alg.suggest(&mut rng::seeded(1)).unwrap();
    let Query::Duel(p, o) = &q else { panic!("phase 1 duels, got {q:?}") };
    assert_eq!(field(alg.observe(&q, Answer::Value(1.0)).unwrap_err()), "answer");
    let other = alg.domain().point((p.index.unwrap() + 1) % 64).unwrap();
    assert_eq!(
        field(alg.observe(&Query::Duel(other, o.clone()), Answer::Duel { first_wins: true }).unwrap_err()),
        "query"
    );
    assert_eq!(field(alg.observe(&Query::Evaluate(p.clone()), Answer::Value(f64::NAN)).unwrap_err()), "query");
    assert_eq!(alg.answered(), 0);
    assert!(alg.comparison_gp().is_empty());
    alg.observe(&q, Answer::Duel { first_wins: true }).unwrap();
    assert_eq!(alg.answered(), 1);
}

#[test]
fn algorithm_two_doubles_zeta_after_each_stage_of_labels() {
    // Λ = 100, Λ₀ = 10 counted, λ_l = 1: n_Λ = 90; ζ_max/ζ₀ = 8: 3 stages; 90/(2·3) = 15 labels.
    let u = UnknownZeta { zeta0: 0.05, zeta_max: 0.4 };
    let c = CompGpUcbConfig { unknown_zeta: Some(u), ..CompGpUcbConfig::default() };
    let at = |total| Costs::of_context(Some(&paper_costs(total))).unwrap();
    assert_eq!(c.stage_labels(&at(100.0)).unwrap(), Some(15));
    // A tiny budget: one label per stage, so ζ_k doubles after every phase-2 label up to ζ_max.
    let config = CompGpUcbConfig { unknown_zeta: Some(u), gamma: GammaRule::Value { value: 0.3 }, l2: 1.0, ..quick() };
    assert_eq!(config.stage_labels(&at(10.0)).unwrap(), Some(1));
    let (alg, steps, _) = run_in(&ctx_with(Some(paper_costs(10.0))), config, 80, 4, |_, _| {});
    let mut labels = 0;
    for s in steps.iter().filter(|s| s.decision.phase == Phase::Constrained) {
        let zeta = (0.05 * 2f64.powi(labels.min(3) as i32)).min(0.4);
        // φ's ζ term is 2 L₂ ζ_k under Algorithm 2.
        assert!((s.decision.zeta_term - 2.0 * zeta).abs() < 1e-12, "{} vs {}", s.decision.zeta_term, 2.0 * zeta);
        assert_eq!(s.decision.stage, labels.min(3));
        labels += usize::from(matches!(s.query, Query::Evaluate(_)));
    }
    assert!(labels >= 4, "only {labels} labels");
    assert_eq!(alg.zeta(), 0.4);
}

#[test]
fn default_config_with_learned_hyperparameters_runs() {
    let (alg, steps, _) = run(CompGpUcbConfig { zeta: 0.25, ..CompGpUcbConfig::default() }, 70, 2, |_, _| {});
    assert_eq!(steps.iter().filter(|s| s.decision.phase == Phase::Initial).count(), 55);
    assert!(alg.recommend().unwrap().index.is_some());
    let details = alg.step_details();
    assert_eq!(details[0].0, "phase");
    assert!(details.iter().any(|(k, _)| *k == "feasible_empty"));
}

#[test]
fn theory_beta_is_igp_ucb() {
    // 2B + √(2(Φ + 1 + log(1/δ))) at B = 1, Φ = 2, δ = e⁻¹: 2 + √8.
    assert!((beta_igp_ucb(1.0, 2.0, (-1.0f64).exp()) - (2.0 + 8f64.sqrt())).abs() < 1e-12);
    assert!((beta_practical(1, 0.0) - 0.5 * 2f64.ln()).abs() < 1e-15);
    let config = CompGpUcbConfig { beta: WidthSchedule::Theory { norm_bound: 1.0, delta: 0.1 }, ..quick() };
    let (alg, _, _) = run(config, 12, 1, |_, _| {});
    // Φ grows with t, so β^r at t = 13 exceeds its value at Φ = 0.
    assert!(alg.beta(true).unwrap() > beta_igp_ucb(1.0, 0.0, 0.1));
}

/// A fixed-kernel KSS on the 8×8 CurrinExp grid with 20 initial duels (Λ₀ = 2 at λ_c = 0.1).
fn quick_kss() -> KssConfig {
    KssConfig { kernel: quick().kernel, noise: 0.25, hyperparameters: None, initial_budget: 2.0 }
}

#[test]
fn kss_duels_the_argmaxes_of_two_posterior_samples() {
    let mut alg = Kss::new(&ctx(), quick_kss().check().unwrap()).unwrap();
    assert_eq!(alg.initial_duels(), 20);
    let mut r_alg = rng::seeded(7);
    let mut r_resp = rng::seeded(8);
    let mut resp = respondent();
    let coords = alg.domain_points();
    let mut sparring = 0;
    for t in 0..40 {
        // Brute force with the same RNG state: two joint draws on the 64 candidates, their argmaxes.
        let mut copy = r_alg.clone();
        let expected = if t >= 20 {
            let draws = alg.posterior_draws(2, &mut copy).unwrap();
            assert_eq!(draws.nrows(), coords.nrows());
            let arg = |c: usize| {
                let col: Vec<f64> = draws.column(c).iter().copied().collect();
                (0..col.len()).fold(0, |b, i| if col[i] > col[b] { i } else { b })
            };
            Some((arg(0), arg(1)))
        } else {
            None
        };
        let q = alg.suggest(&mut r_alg).unwrap();
        let Query::Duel(p, o) = &q else { panic!("KSS duels, got {q:?}") };
        if let Some((x, y)) = expected {
            assert_eq!((p.index.unwrap(), o.index.unwrap()), (x, y), "step {t}");
            assert_eq!(alg.step_details()[0].1, "sparring");
            sparring += 1;
        } else {
            assert_eq!(alg.step_details()[0].1, "initial");
        }
        let a = resp.answer(&q, &mut r_resp).unwrap();
        let before = alg.gp().len();
        alg.observe(&q, a).unwrap();
        // The winner at 1 and the loser at 0: two observations per duel.
        assert_eq!(alg.gp().len(), before + 2);
    }
    assert_eq!(sparring, 20);
    // A value, or another duel than the pending one, is refused and records nothing.
    let q = alg.suggest(&mut r_alg).unwrap();
    assert_eq!(field(alg.observe(&q, Answer::Value(1.0)).unwrap_err()), "answer");
    let Query::Duel(p, o) = &q else { unreachable!() };
    let other = alg.domain_point((p.index.unwrap() + 1) % 64);
    assert_eq!(
        field(alg.observe(&Query::Duel(other, o.clone()), Answer::Duel { first_wins: true }).unwrap_err()),
        "query"
    );
    assert_eq!(alg.answered(), 40);
    // Bad settings name their field; λ_c = 0 names the budget's.
    assert_eq!(field(KssConfig { noise: 0.0, ..quick_kss() }.check().unwrap_err()), "noise");
    assert_eq!(field(KssConfig { initial_budget: -1.0, ..quick_kss() }.check().unwrap_err()), "initial_budget");
    let zero = ctx_with(Some(QueryCosts { duel: 0.0, ..paper_costs(100.0) }));
    assert_eq!(field(Kss::new(&zero, quick_kss().check().unwrap()).unwrap_err()), "budget.duel");
}

/// The largest difference between the incrementally kept posterior on the candidates and the
/// direct one (the model evaluated at each candidate), relative to max(1, |value|).
fn max_rel_gap(kept: &(Vec<f64>, Vec<f64>), direct: &(Vec<f64>, Vec<f64>)) -> f64 {
    let gap = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).abs() / y.abs().max(1.0)).fold(0.0, f64::max);
    gap(&kept.0, &direct.0).max(gap(&kept.1, &direct.1))
}

/// COMP-GP-UCB's posteriors on the candidates, kept by rank-one updates and rebuilt after each refit
/// from the aggregated repeats, equal the models evaluated at every candidate, with fixed kernels
/// and with learned hyperparameters (refits every 5 and 20 observations), on runs that duel and
/// evaluate the same candidates many times.
#[test]
fn incremental_posteriors_equal_the_direct_computation() {
    let learned = CompGpUcbConfig { zeta: 0.25, ..CompGpUcbConfig::default() };
    for (config, steps) in [(quick(), 120), (learned, 110)] {
        let mut checked = 0;
        let (alg, _, history) = run(config, steps, 4, |alg, _| {
            let (r, l) = alg.posteriors();
            // Both sides solve systems with condition number ≲ 1/η² ≈ 1e4 (η² ≥ 1e-4) after up to
            // a few hundred rank-one updates: 1e-7 relative is rounding, not approximation.
            assert!(max_rel_gap(&r, &alg.posterior(alg.comparison_gp()).unwrap()) < 1e-7);
            assert!(max_rel_gap(&l, &alg.posterior(alg.label_gp()).unwrap()) < 1e-7);
            checked += 1;
        });
        assert_eq!(checked, steps);
        // Repeats happened: fewer distinct queried candidates than queries.
        let distinct: std::collections::BTreeSet<usize> = history.iter().map(|(q, _)| index_of(q)).collect();
        assert!(distinct.len() < history.len() / 2, "{} distinct of {}", distinct.len(), history.len());
        let (duels, values) = (alg.comparison_gp().len(), alg.label_gp().len());
        assert!(duels > 10 && values > 10, "{duels} duels, {values} values");
    }
}

/// KSS's and MF-GP-UCB's kept posteriors equal their models evaluated at every candidate too.
#[test]
fn kss_and_mf_posteriors_equal_the_direct_computation() {
    let learned_kss = KssConfig { initial_budget: 2.0, ..KssConfig::default() };
    for config in [quick_kss(), learned_kss] {
        let mut alg = Kss::new(&ctx(), config.check().unwrap()).unwrap();
        let (mut ra, mut rr, mut resp) = (rng::seeded(5), rng::seeded(6), respondent());
        for _ in 0..150 {
            let q = alg.suggest(&mut ra).unwrap();
            let a = resp.answer(&q, &mut rr).unwrap();
            alg.observe(&q, a).unwrap();
            let direct = crate::compgpucb::posterior_on(alg.gp(), &ctx().domain().clone()).unwrap();
            assert!(max_rel_gap(&alg.posterior(), &direct) < 1e-7);
        }
        // A learned model's kept posterior is rebuilt over the distinct candidates at each refit
        // (every 20 observations), so it stacks at most 64 + 20 rows whatever the observations.
        if matches!(alg.gp(), bohf_gp::ValueGp::Learned(_)) {
            assert!(alg.kept_rank() <= 64 + 20, "{} rows", alg.kept_rank());
        } else {
            // A fixed kernel's repeats are batched once they make half the rows: r ≤ 2·64.
            assert!(alg.kept_rank() <= 2 * 64, "{} rows", alg.kept_rank());
        }
    }
    let mut alg = MfGpUcb::new(&ctx(), quick_mf().check().unwrap()).unwrap();
    let (mut ra, mut rr, mut resp) = (rng::seeded(5), rng::seeded(6), respondent());
    for _ in 0..60 {
        let q = alg.suggest(&mut ra).unwrap();
        let a = resp.answer(&q, &mut rr).unwrap();
        alg.observe(&q, a).unwrap();
    }
    // The rule's choice is the argmax of the acquisition on the direct posteriors.
    let d = alg.decide().unwrap();
    let (m1, s1) = alg.posterior(alg.low_gp()).unwrap();
    let (m2, s2) = alg.posterior(alg.high_gp()).unwrap();
    let acq: Vec<f64> = (0..m1.len()).map(|i| (m1[i] + d.beta * s1[i] + d.zeta).min(m2[i] + d.beta * s2[i])).collect();
    let best = acq.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!(acq[d.index.unwrap()] >= best - 1e-9 * best.abs().max(1.0));
}

#[test]
fn kss_is_deterministic_under_a_seed() {
    let queries = |seed| {
        let mut alg = Kss::new(&ctx(), quick_kss().check().unwrap()).unwrap();
        let (mut ra, mut rr, mut resp) = (rng::seeded(seed), rng::seeded(seed + 1), respondent());
        (0..30)
            .map(|_| {
                let q = alg.suggest(&mut ra).unwrap();
                let a = resp.answer(&q, &mut rr).unwrap();
                alg.observe(&q, a).unwrap();
                q
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(queries(3), queries(3));
    assert_ne!(queries(3), queries(4));
}

/// A fixed-kernel MF-GP-UCB: Λ₀ = 2 at the paper's costs gives 10 random duels and 1 value; use
/// counts (4 and 4) so that γ₀ has a range.
fn quick_mf() -> MfGpUcbConfig {
    MfGpUcbConfig {
        kernel: quick().kernel,
        noise: 0.01,
        comparison_noise: Some(0.25),
        hyperparameters: None,
        comparison_hyperparameters: None,
        initial_budget: 8.0,
        initial_counting: InitialCounting::Count,
        ..MfGpUcbConfig::default()
    }
}

#[test]
fn mf_gp_ucb_switches_and_adapts_gamma_and_zeta_by_the_mf_rules() {
    let mut alg = MfGpUcb::new(&ctx(), quick_mf().check().unwrap()).unwrap();
    assert_eq!(alg.initial_counts(), (4, 4));
    assert_eq!(alg.doubling_after(), 10);
    let (mut ra, mut rr, mut resp) = (rng::seeded(11), rng::seeded(12), respondent());
    let mut records = Vec::new();
    let mut initial_values = Vec::new();
    for t in 0..120 {
        let q = alg.suggest(&mut ra).unwrap();
        let d = alg.last_decision().unwrap().clone();
        // Before the answer: the low-fidelity mean at the chosen point (for ζ's update).
        let m_low = match d.index {
            Some(x) => {
                let (m, s) = alg.posterior(alg.low_gp()).unwrap();
                let (mh, sh) = alg.posterior(alg.high_gp()).unwrap();
                // x_t maximises min{μ¹ + βσ¹ + ζ, μ² + βσ²} by brute force.
                let acq = |i: usize| (m[i] + d.beta * s[i] + d.zeta).min(mh[i] + d.beta * sh[i]);
                assert!((0..m.len()).all(|i| acq(x) >= acq(i)), "step {t}");
                assert!((d.beta_sigma_low - d.beta * s[x]).abs() < 1e-12);
                // β_t = √(0.2·d·log(2dt)), d = 2, t = answered + 1.
                assert!((d.beta - (0.4 * (4.0 * (t + 1) as f64).ln()).sqrt()).abs() < 1e-12);
                m[x]
            }
            None => f64::NAN,
        };
        let a = resp.answer(&q, &mut rr).unwrap();
        if d.index.is_none()
            && let (Query::Evaluate(p), Answer::Value(y)) = (&q, a)
        {
            initial_values.push((p.clone(), y));
        }
        alg.observe(&q, a).unwrap();
        records.push((q, d, m_low, a));
    }
    // Replay of the rules on the recorded values.
    let ys: Vec<f64> = initial_values.iter().map(|(_, y): &(bohf_core::Point, f64)| *y).collect();
    let range = ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - ys.iter().cloned().fold(f64::INFINITY, f64::min);
    let first = records.iter().find(|r| r.1.index.is_some()).unwrap();
    assert!((first.1.gamma - 0.01 * range).abs() < 1e-12 * range.max(1.0));
    let (mut gamma, mut zeta, mut run) = (first.1.gamma, first.1.zeta, 0);
    let (mut duels, mut values) = (0, 0);
    for (q, d, m_low, a) in records.iter().filter(|r| r.1.index.is_some()) {
        assert_eq!(d.gamma, gamma);
        assert_eq!(d.zeta, zeta);
        // Duel iff β σ¹(x_t) ≥ γ.
        let duel = d.beta_sigma_low >= gamma;
        assert_eq!(matches!(q, Query::Duel(..)), duel);
        if duel {
            duels += 1;
            run += 1;
            if run == 10 {
                gamma *= 5.0;
                run = 0;
            }
        } else {
            values += 1;
            run = 0;
            let Answer::Value(y) = a else { unreachable!() };
            let gap = (y - m_low).abs();
            if gap > zeta {
                zeta = 2.0 * gap;
            }
        }
    }
    assert!(duels > 0 && values > 0, "{duels} duels, {values} values");
    // Bad settings name their field.
    assert_eq!(field(MfGpUcbConfig { gamma_factor: 0.5, ..quick_mf() }.check().unwrap_err()), "gamma_factor");
    assert_eq!(
        field(
            MfGpUcbConfig { beta: WidthSchedule::Theory { norm_bound: 1.0, delta: 0.1 }, ..quick_mf() }
                .check()
                .unwrap_err()
        ),
        "beta.rule"
    );
    let bad = ctx_with(Some(QueryCosts { evaluate: 0.05, ..paper_costs(100.0) }));
    assert_eq!(field(MfGpUcb::new(&bad, quick_mf().check().unwrap()).unwrap_err()), "budget.evaluate");
}

#[test]
fn mf_gp_ucb_replays_and_defaults_run() {
    let mut alg = MfGpUcb::new(&ctx(), quick_mf().check().unwrap()).unwrap();
    let (mut ra, mut rr, mut resp) = (rng::seeded(5), rng::seeded(6), respondent());
    let mut history = Vec::new();
    for _ in 0..40 {
        let q = alg.suggest(&mut ra).unwrap();
        let a = resp.answer(&q, &mut rr).unwrap();
        alg.observe(&q, a).unwrap();
        history.push((q, a));
    }
    let mut replayed = MfGpUcb::new(&ctx(), quick_mf().check().unwrap()).unwrap();
    replayed.observe_batch(&history).unwrap();
    assert_eq!(replayed.decide().unwrap(), alg.decide().unwrap());
    assert_eq!((replayed.gamma(), replayed.zeta()), (alg.gamma(), alg.zeta()));
    // The defaults (learned GPs, Λ₀ = 10 as budget: 50 duels and 5 values) run.
    let mut d = MfGpUcb::new(&ctx(), MfGpUcbConfig::default().check().unwrap()).unwrap();
    assert_eq!(d.initial_counts(), (50, 5));
    for _ in 0..60 {
        let q = d.suggest(&mut ra).unwrap();
        let a = resp.answer(&q, &mut rr).unwrap();
        d.observe(&q, a).unwrap();
    }
    assert!(d.recommend().unwrap().index.is_some());
}

/// A spec that leaves out the fit tables gets the documented default (learned, App. B), not a fixed
/// kernel; `"fixed"` asks for one and survives a round trip through the spec as run.
#[test]
fn absent_fit_tables_learn_and_fixed_round_trips() {
    let c: CompGpUcbConfig = toml::from_str("zeta = 0.25").unwrap();
    assert_eq!(c.hyperparameters, CompGpUcbConfig::default().hyperparameters);
    assert_eq!(c.comparison_hyperparameters, CompGpUcbConfig::default().comparison_hyperparameters);
    assert!(c.hyperparameters.is_some() && c.comparison_hyperparameters.is_some());
    let fixed: CompGpUcbConfig =
        toml::from_str("hyperparameters = \"fixed\"\ncomparison_hyperparameters = \"fixed\"").unwrap();
    assert!(fixed.hyperparameters.is_none() && fixed.comparison_hyperparameters.is_none());
    let back: CompGpUcbConfig = toml::from_str(&toml::to_string(&fixed).unwrap()).unwrap();
    assert_eq!(back, fixed);

    let k: crate::KssConfig = toml::from_str("").unwrap();
    assert_eq!(k.hyperparameters, crate::KssConfig::default().hyperparameters);
    assert!(k.hyperparameters.is_some());
    let kf: crate::KssConfig = toml::from_str("hyperparameters = \"fixed\"").unwrap();
    assert_eq!(toml::from_str::<crate::KssConfig>(&toml::to_string(&kf).unwrap()).unwrap(), kf);

    let m: crate::MfGpUcbConfig = toml::from_str("").unwrap();
    assert_eq!(m, crate::MfGpUcbConfig::default());
    assert!(m.hyperparameters.is_some() && m.comparison_hyperparameters.is_some());
    let mf: crate::MfGpUcbConfig = toml::from_str("comparison_hyperparameters = \"fixed\"").unwrap();
    assert!(mf.comparison_hyperparameters.is_none() && mf.hyperparameters.is_some());
    assert_eq!(toml::from_str::<crate::MfGpUcbConfig>(&toml::to_string(&mf).unwrap()).unwrap(), mf);

    let e = toml::from_str::<CompGpUcbConfig>("hyperparameters = \"none\"").unwrap_err().to_string();
    assert!(e.contains("\"fixed\""), "{e}");
}

/// COMP-GP-UCB's and MF-GP-UCB's β in the one [`WidthSchedule`]: the defaults are today's
/// (`practical` with ε = 10⁻¹² as a multiplier; `kandasamy`), every accepted rule round-trips
/// through the config's TOML, a rule without a meaning is refused at `beta.rule` naming the accepted
/// ones, and the old key `b` of `theory` names `norm_bound`.
#[test]
fn beta_is_a_width_schedule_with_todays_rules_and_defaults() {
    assert_eq!(
        CompGpUcbConfig::default().beta,
        WidthSchedule::Practical { epsilon: 1e-12, form: BetaForm::Multiplier }
    );
    assert_eq!(MfGpUcbConfig::default().beta, WidthSchedule::Kandasamy);
    let parse = |s: &str| toml::from_str::<CompGpUcbConfig>(s).map(|c| c.beta).map_err(|e| e.to_string());
    assert_eq!(parse("").unwrap(), CompGpUcbConfig::default().beta);
    assert_eq!(parse("beta = { rule = \"practical\" }").unwrap(), CompGpUcbConfig::default().beta);
    assert_eq!(
        parse("beta = { rule = \"practical\", form = \"square-root\" }").unwrap(),
        WidthSchedule::Practical { epsilon: 1e-12, form: BetaForm::SquareRoot }
    );
    assert_eq!(
        parse("beta = { rule = \"theory\", norm_bound = 1.0, delta = 0.1 }").unwrap(),
        WidthSchedule::Theory { norm_bound: 1.0, delta: 0.1 }
    );
    for beta in [
        WidthSchedule::Practical { epsilon: 0.5, form: BetaForm::SquareRoot },
        WidthSchedule::Practical { epsilon: 1e-12, form: BetaForm::Multiplier },
        WidthSchedule::Theory { norm_bound: 2.0, delta: 0.1 },
        WidthSchedule::Kandasamy,
        WidthSchedule::Constant { value: 0.3 },
    ] {
        let config = CompGpUcbConfig { beta, ..quick() };
        let text = toml::to_string(&config).unwrap();
        assert_eq!(toml::from_str::<CompGpUcbConfig>(&text).unwrap(), config, "{text}");
        config.check().unwrap();
        if beta.rule() != "theory" {
            let mf = MfGpUcbConfig { beta, ..quick_mf() };
            let text = toml::to_string(&mf).unwrap();
            assert_eq!(toml::from_str::<MfGpUcbConfig>(&text).unwrap(), mf, "{text}");
            mf.check().unwrap();
        }
    }
    let lemma31 = WidthSchedule::CobolLemma31 { norm_bound: 1.0, sigma: 1e-4, delta: 0.01 };
    let e = CompGpUcbConfig { beta: lemma31, ..quick() }.check().unwrap_err().to_string();
    assert!(e.contains("`beta.rule`") && e.contains("\"practical\", \"theory\", \"kandasamy\", \"constant\""), "{e}");
    let theory = WidthSchedule::Theory { norm_bound: 1.0, delta: 0.1 };
    let e = MfGpUcbConfig { beta: theory, ..quick_mf() }.check().unwrap_err().to_string();
    assert!(e.contains("`beta.rule`") && e.contains("\"kandasamy\", \"practical\", \"constant\""), "{e}");
    let e = parse("beta = { rule = \"theory\", b = 1.0, delta = 0.1 }").unwrap_err();
    assert!(e.contains("`b = 1.0` is no longer accepted") && e.contains("`norm_bound = 1.0`"), "{e}");
    let e = CompGpUcbConfig { beta: WidthSchedule::Practical { epsilon: 0.0, form: BetaForm::Multiplier }, ..quick() }
        .check()
        .unwrap_err();
    assert_eq!(field(e), "beta.epsilon");
}

/// β_t of both GPs at the steps of a run (t = answered + 1 on the global clock, d = 2), against the
/// closed forms written out here: 0.5·ln(2t + ε), its square root, √(0.2·d·ln(2dt)), the constant.
#[test]
fn beta_widths_match_their_closed_forms_along_a_run() {
    let eps = 1e-3;
    type Formula = Box<dyn Fn(f64) -> f64>;
    let cases: [(WidthSchedule, Formula); 4] = [
        (
            WidthSchedule::Practical { epsilon: eps, form: BetaForm::Multiplier },
            Box::new(move |t: f64| 0.5 * (2.0 * t + eps).ln()),
        ),
        (
            WidthSchedule::Practical { epsilon: eps, form: BetaForm::SquareRoot },
            Box::new(move |t: f64| (0.5 * (2.0 * t + eps).ln()).sqrt()),
        ),
        (WidthSchedule::Kandasamy, Box::new(|t: f64| (0.2 * 2.0 * (2.0 * 2.0 * t).ln()).sqrt())),
        (WidthSchedule::Constant { value: 0.7 }, Box::new(|_| 0.7)),
    ];
    for (beta, formula) in cases {
        let mut seen = 0;
        run(CompGpUcbConfig { beta, ..quick() }, 25, 3, |alg, _| {
            let t = (alg.answered() + 1) as f64;
            for comparison in [true, false] {
                let got = alg.beta(comparison).unwrap();
                assert!((got - formula(t)).abs() <= 1e-13 * formula(t).abs().max(1.0), "{beta:?} at t = {t}: {got}");
            }
            seen += 1;
        });
        assert_eq!(seen, 25);
    }
}
