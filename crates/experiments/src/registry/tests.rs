//! Tests of the built-in registry.

use crate::test_support::*;
use crate::*;

#[test]
fn every_builtin_algorithm_runs_and_is_deterministic_across_threads() {
    let mut spec = small_spec();
    spec.horizon = 30;
    spec.runs = 2;
    spec.algorithms = Registry::builtin().names().into_iter().map(AlgorithmSpec::named).collect();
    assert_eq!(spec.labels(), ["pf-ts", "mr-lpf", "maxminlcb", "gp-ucb", "gp-ts", "random", "pop-bo"]);
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    assert!(one.to_csv(Timing::Omit) == two.to_csv(Timing::Omit), "1 and 2 threads differ");
    for r in one.runs() {
        let scalar = r.label.starts_with("gp-");
        for s in &r.steps {
            assert_eq!(s.query == QueryKind::Evaluate, scalar, "{} asks {:?}", r.label, s.query);
            // r_t ∈ [0, ½] for every query kind.
            assert!((0.0..=0.5).contains(&s.regret), "{}: r_t = {}", r.label, s.regret);
        }
    }
}
