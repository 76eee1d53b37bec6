use super::*;
use bohf_core::{Answer, BoxDomain, Error, FiniteDomain, Optimizer, Query, SearchContext, rng};
use bohf_problems::functions::{CurrinExp, Fidelity};
use bohf_problems::respondents::{BiasedComparisons, DuelModel, Respondent};

/// CurrinExp on an 8×8 grid of [0, 1]²: labels from f, deterministic duels from its low fidelity.
fn ctx() -> SearchContext {
    SearchContext::new(BoxDomain::cube(0.0, 1.0, 2).unwrap().grid(8).unwrap(), 200).unwrap()
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
    mut check: impl FnMut(&CompGpUcb, &Query),
) -> (CompGpUcb, Vec<Step>, Vec<(Query, Answer)>) {
    let mut alg = CompGpUcb::new(&ctx(), config.check().unwrap()).unwrap();
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
    assert_eq!(c.initial_counts(), (50, 5));
    let counted = CompGpUcbConfig {
        initial: InitialDesign { counting: InitialCounting::Count, ..InitialDesign::default() },
        ..c.clone()
    };
    assert_eq!(counted.initial_counts(), (5, 5));
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
    assert_eq!(
        field(CompGpUcbConfig { costs: Costs { duel: 0.0, evaluate: 1.0 }, ..c() }.check().unwrap_err()),
        "costs.duel"
    );
    assert_eq!(
        field(CompGpUcbConfig { costs: Costs { duel: 0.5, evaluate: 0.2 }, ..c() }.check().unwrap_err()),
        "costs.evaluate"
    );
    assert_eq!(field(CompGpUcbConfig { zeta_scale: ZetaScale::Normalised, ..c() }.check().unwrap_err()), "f_range");
    assert_eq!(field(CompGpUcbConfig { l2: 0.0, ..c() }.check().unwrap_err()), "l2");
    assert_eq!(
        field(CompGpUcbConfig { beta: BetaRule::Theory { b: 1.0, delta: 1.5 }, ..c() }.check().unwrap_err()),
        "beta.delta"
    );
    let unknown = UnknownZeta { zeta0: 0.1, zeta_max: 0.05, budget: 100.0 };
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
    let u = UnknownZeta { zeta0: 0.05, zeta_max: 0.4, budget: 100.0 };
    let c = CompGpUcbConfig { unknown_zeta: Some(u), ..CompGpUcbConfig::default() };
    assert_eq!(c.stage_labels(), Some(15));
    // A tiny budget: one label per stage, so ζ_k doubles after every phase-2 label up to ζ_max.
    let u = UnknownZeta { zeta0: 0.05, zeta_max: 0.4, budget: 10.0 };
    let config = CompGpUcbConfig { unknown_zeta: Some(u), gamma: GammaRule::Value { value: 0.3 }, l2: 1.0, ..quick() };
    assert_eq!(config.stage_labels(), Some(1));
    let (alg, steps, _) = run(config, 80, 4, |_, _| {});
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
    let config = CompGpUcbConfig { beta: BetaRule::Theory { b: 1.0, delta: 0.1 }, ..quick() };
    let (alg, _, _) = run(config, 12, 1, |_, _| {});
    // Φ grows with t, so β^r at t = 13 exceeds its value at Φ = 0.
    assert!(alg.beta(true).unwrap() > beta_igp_ucb(1.0, 0.0, 0.1));
}
