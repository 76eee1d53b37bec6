//! Tests of the CSV and JSON forms of results.

use crate::testing::*;
use crate::*;

#[test]
fn csv_and_json_round_trip() {
    let r = run_with_threads(&small_spec(), 2);
    // With timings: exact round trip (shortest round-trip float formatting).
    let csv = r.to_csv(Timing::Include);
    let back = Results::from_csv(r.spec().clone(), r.title(), &csv).unwrap();
    assert!(back == r, "CSV round trip changed the results");
    // Without timings: everything but elapsed_s, which reads as 0.
    let back = Results::from_csv(r.spec().clone(), r.title(), &r.to_csv(Timing::Omit)).unwrap();
    for (a, b) in back.runs().iter().zip(r.runs()) {
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert_eq!(StepRecord { elapsed_s: y.elapsed_s, ..x.clone() }, *y);
        }
    }
    // The label with a comma is quoted.
    assert!(csv.contains("\"Uniform, 10% self\",0,1,duel,"), "{}", &csv[..300]);
    // A per-run CSV reads back to the run.
    let one = &r.runs()[5];
    let parsed = runs_from_csv(&one.to_csv(Timing::Include), &r.spec().labels(), None).unwrap();
    assert_eq!(parsed, vec![one.clone()]);
    // JSON summary.
    let s = r.summary().unwrap();
    let json = s.to_json().unwrap();
    assert!(Summary::from_json(&json).unwrap() == s, "JSON round trip changed the summary");
    assert!(json.contains("std(ddof=0)/sqrt(runs)"));
    let a = &s.algorithms[1];
    assert_eq!(a.instantaneous.mean.len(), 25);
    let last: Vec<f64> =
        r.runs().iter().filter(|x| x.id.algorithm == 1).map(|x| x.steps[24].cumulative_regret).collect();
    assert_eq!(a.at_horizon.cumulative, mean_se(&last));
    // Malformed CSV: a step out of order names the line.
    let broken = csv.replacen(",0,2,duel,", ",0,3,duel,", 1);
    let e = Results::from_csv(r.spec().clone(), "", &broken).unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
    let e = runs_from_csv("algorithm,run\n", &[], None).unwrap_err();
    assert!(e.to_string().contains("`t`"), "{e}");
}

/// A run with one hand-made step of every kind of query ([`QueryKind::ALL`]) reads back from its
/// CSV unchanged, its `query` column spelt [`QueryKind::as_str`].
#[test]
fn every_query_kind_round_trips_through_the_csv() {
    let steps: Vec<StepRecord> = QueryKind::ALL
        .iter()
        .enumerate()
        .map(|(i, &kind)| StepRecord {
            t: i + 1,
            query: kind,
            first: PointRecord::Candidate(0),
            second: matches!(kind, QueryKind::Duel | QueryKind::Choice).then_some(PointRecord::Candidate(1)),
            options: if kind == QueryKind::Choice { (0..3).map(PointRecord::Candidate).collect() } else { Vec::new() },
            answer: match kind {
                QueryKind::Duel => bohf_core::Answer::Duel { first_wins: false },
                QueryKind::Evaluate => bohf_core::Answer::Value(-0.5),
                QueryKind::Label => bohf_core::Answer::Label { accept: true },
                QueryKind::Choice => bohf_core::Answer::Choice { index: 2 },
            },
            regret: 0.25,
            cumulative_regret: 0.25 * (i + 1) as f64,
            recommendation: PointRecord::Candidate(2),
            simple_regret: 0.125,
            utility_gap: UtilityGap { instantaneous: 0.5, cumulative: 0.5 * (i + 1) as f64, simple: 0.75 },
            elapsed_s: 0.0,
            details: Vec::new(),
        })
        .collect();
    let run = RunRecord { id: RunId { algorithm: 0, run: 0 }, label: "a".into(), steps };
    let csv = run.to_csv(Timing::Omit);
    for (i, kind) in QueryKind::ALL.iter().enumerate() {
        assert!(csv.contains(&format!("a,0,{},{},", i + 1, kind.as_str())), "{csv}");
    }
    assert_eq!(runs_from_csv(&csv, &["a".to_string()], None).unwrap(), vec![run]);
}
