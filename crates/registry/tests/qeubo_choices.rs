//! The qEUBO choices example (`docs/examples/qeubo-choices.toml`) through the runner (moved from
//! the engine's runner tests: it needs the built-in qEUBO and EUBO).

mod support;

use bohf_core::Answer;
use bohf_experiments::*;
use support::*;

/// The qEUBO example (docs/examples/qeubo-choices.toml): qEUBO with q = 4 asks best-of-4 choices
/// of distinct candidates through the runner (random ones first, then its acquisition), answered
/// by the simulated multinomial-logit respondent; qEUBO with q = 2 and EUBO ask duels. The results
/// do not depend on the thread count, and each choice's regret is the mean of its options' gaps.
#[test]
fn the_qeubo_choice_example_runs_through_the_runner() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/qeubo-choices.toml");
    let text = std::fs::read_to_string(path).unwrap();
    assert!(ExperimentSpec::from_toml_str(&text).is_ok());
    let spec =
        ExperimentSpec::from_toml_str(&text.replace("horizon = 12", "horizon = 7").replace("runs = 3", "runs = 2"))
            .unwrap();
    let one = run_with_threads(&spec, 1);
    assert_eq!(one.to_csv(Timing::Omit), run_with_threads(&spec, 2).to_csv(Timing::Omit));
    let e = Experiment::new(spec.clone(), &registry()).unwrap();
    let u = e.problem().utility().unwrap().values().to_vec();
    let best = u.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sigmoid = |t: f64| 1.0 / (1.0 + (-t).exp());
    let mut kinds = [[0usize; 2]; 3];
    for run in one.runs() {
        assert_eq!(run.steps.len(), 7);
        for s in &run.steps {
            kinds[run.id.algorithm][usize::from(s.query == QueryKind::Choice)] += 1;
            if s.query == QueryKind::Choice {
                let idx: Vec<usize> = s.options.iter().map(|o| o.index().unwrap()).collect();
                assert_eq!(idx.len(), 4);
                let mut sorted = idx.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), 4, "{idx:?}");
                let Answer::Choice { index } = s.answer else { panic!("not a choice answer: {:?}", s.answer) };
                assert!(index < 4);
                let want = idx.iter().map(|&i| sigmoid(best - u[i]) - 0.5).sum::<f64>() / 4.0;
                assert!((s.regret - want).abs() < 1e-15, "{} vs {want}", s.regret);
            }
        }
    }
    // Algorithm 0 (qEUBO, q = 4) asks only choices, 1 and 2 only duels: 2 runs × 7 steps each.
    assert_eq!(kinds, [[0, 14], [14, 0], [14, 0]]);
    // Each query is of a kind its entry declares: qEUBO's choices by `may_ask` (its default q = 2
    // asks duels only).
    let registry = registry();
    for run in one.runs() {
        let entry = registry.get(&spec.algorithms[run.id.algorithm].name).unwrap();
        assert!(run.steps.iter().all(|s| entry.asked().contains(&s.query)), "{}", run.label);
    }
    let qeubo = registry.get("qeubo").unwrap();
    assert_eq!(
        (qeubo.asked_by_default(), qeubo.asked()),
        (&[QueryKind::Duel][..], vec![QueryKind::Duel, QueryKind::Choice])
    );
}
