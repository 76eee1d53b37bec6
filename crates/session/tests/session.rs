//! The library's sessions: create, answer, reopen, and the refusals every front end relies on.

use bohf_core::Answer;
use bohf_session::{AskSpec, Session, SessionError, StoredQuery, body_of};
use std::path::PathBuf;

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bohf-session-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn spec(algorithm: &str) -> AskSpec {
    toml::from_str(&format!(
        "name = \"t\"\nbudget = 6\nseed = 3\n[candidates.box]\nnames = [\"x\", \"y\"]\nlower = [0.0, 0.0]\n\
         upper = [1.0, 2.0]\npoints_per_dim = 4\n[algorithm]\nname = \"{algorithm}\"\n"
    ))
    .unwrap()
}

/// A scripted person: prefers the option with the larger x + y.
fn prefer(s: &Session, q: StoredQuery) -> Answer {
    let v = &s.body().candidates.values;
    match q {
        StoredQuery::Duel { a, b } => Answer::Duel { first_wins: v[a][0] + v[a][1] >= v[b][0] + v[b][1] },
        StoredQuery::Label { x } => Answer::Label { accept: v[x][0] > 0.5 },
        StoredQuery::Value { x } => Answer::Value(v[x][0] + v[x][1]),
    }
}

#[test]
fn a_session_reopened_mid_way_asks_the_same_queries_as_one_answered_in_one_go() {
    let dir = tmp("reopen");
    let (one, two) = (dir.join("one.json"), dir.join("two.json"));
    let mut asked_one = Vec::new();
    let mut s = Session::create(&one, body_of(spec("pf-ts")).unwrap(), false).unwrap();
    while let Some(q) = s.pending().unwrap() {
        asked_one.push(q);
        let a = prefer(&s, q);
        s.answer(a).unwrap();
    }
    let rec_one = s.recommendation();
    drop(s);
    let mut asked_two = Vec::new();
    drop(Session::create(&two, body_of(spec("pf-ts")).unwrap(), false).unwrap());
    for _ in 0..6 {
        // Reopen before every answer: the replay must give the same query again.
        let mut s = Session::open(&two).unwrap();
        let q = s.pending().unwrap().unwrap();
        assert_eq!(s.pending().unwrap(), Some(q), "asking twice gives the same pending query");
        asked_two.push(q);
        let a = prefer(&s, q);
        s.answer(a).unwrap();
    }
    let s = Session::open(&two).unwrap();
    assert!(s.done());
    assert_eq!(asked_one, asked_two);
    assert_eq!(rec_one, s.recommendation());
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap(), "the same file either way");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_wrong_answer_a_second_opener_and_an_existing_file_are_refused_and_nothing_is_written() {
    let dir = tmp("refuse");
    let path = dir.join("s.json");
    let mut s = Session::create(&path, body_of(spec("pf-ts")).unwrap(), false).unwrap();
    let before = std::fs::read(&path).unwrap();
    assert!(matches!(s.pending().unwrap(), Some(StoredQuery::Duel { .. })));
    let e = s.answer(Answer::Value(1.0)).unwrap_err();
    assert!(matches!(e, SessionError::Answer(_)), "{e}");
    assert!(e.to_string().contains("a value answer does not answer the pending duel"), "{e}");
    let e = Session::open(&path).unwrap_err().to_string();
    assert!(e.contains("is in use by another bohf process"), "{e}");
    drop(s);
    let e = Session::create(&path, body_of(spec("pf-ts")).unwrap(), false).unwrap_err().to_string();
    assert!(e.contains("exists") && e.contains("--force"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "the file is untouched");
    let e = body_of(spec("no-such-algorithm")).unwrap_err().to_string();
    assert!(e.contains("algorithm.name"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn candidates_given_directly_ask_what_the_same_options_from_a_box_ask_and_are_checked() {
    let dir = tmp("direct");
    let from_box = body_of(spec("pf-ts")).unwrap();
    let mut direct_spec = spec("pf-ts");
    direct_spec.candidates = bohf_session::candidates::CandidatesSpec { csv: None, grid: None };
    let direct = bohf_session::body_with(direct_spec.clone(), from_box.candidates.clone()).unwrap();
    let mut asked = Vec::new();
    for (name, body) in [("box.json", from_box), ("direct.json", direct)] {
        let path = dir.join(name);
        drop(Session::create(&path, body, false).unwrap());
        // Reopened from the file, as every front end does.
        let mut s = Session::open(&path).unwrap();
        let mut queries = Vec::new();
        while let Some(q) = s.pending().unwrap() {
            queries.push(q);
            let a = prefer(&s, q);
            s.answer(a).unwrap();
        }
        asked.push((queries, s.recommendation()));
    }
    assert_eq!(asked[0], asked[1]);
    // The direct candidates are validated like loaded ones.
    let mut bad = body_of(spec("pf-ts")).unwrap().candidates;
    bad.values[3][1] = f64::NAN;
    let e = bohf_session::body_with(direct_spec.clone(), bad).unwrap_err();
    assert!(matches!(e, SessionError::Spec(ref m) if m.contains("option 4") && m.contains("`y` is not finite")), "{e}");
    let mut short = body_of(spec("pf-ts")).unwrap().candidates;
    short.names.pop();
    let e = bohf_session::body_with(direct_spec, short).unwrap_err();
    assert!(e.to_string().contains("name(s) for 16 rows"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
