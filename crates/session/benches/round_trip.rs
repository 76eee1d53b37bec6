//! One ask/tell round trip of a session (choose the query, answer it, save the file), the loop a
//! front end runs: `bohf ask`, `bohf serve` and the Python package (whose overhead over this loop
//! `python/benches/overhead.py` measures on the same session). PF-TS on a 5×5 gridded box,
//! 20 answers (always "a"), from creating the session file to the recommendation.

use bohf_core::Answer;
use bohf_experiments::AlgorithmSpec;
use bohf_session::candidates::{BoxSpec, CandidatesSpec};
use bohf_session::{AskSpec, Session, body_of};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// The session of the benchmark (the same as `python/benches/overhead.py`).
fn spec() -> AskSpec {
    AskSpec {
        name: "bench".into(),
        question: None,
        budget: 20,
        seed: 1,
        candidates: CandidatesSpec {
            csv: None,
            grid: Some(BoxSpec {
                names: vec!["x".into(), "y".into()],
                lower: vec![0.0, 0.0],
                upper: vec![1.0, 1.0],
                points_per_dim: 5,
            }),
        },
        algorithm: AlgorithmSpec::named("pf-ts"),
        show_recommendation: None,
        costs: None,
    }
}

fn round_trips(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("bohf-session-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("s.json");
    c.bench_function("session: create + 20 ask/tell round trips (pf-ts, 25 options)", |b| {
        b.iter(|| {
            let mut s = Session::create(&path, body_of(spec()).expect("valid spec"), true).expect("created");
            while s.pending().expect("query").is_some() {
                s.answer(Answer::Duel { first_wins: true }).expect("saved");
            }
            black_box(s.recommendation())
        })
    });
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = round_trips
}
criterion_main!(benches);
