//! Self-duels (an option against itself) are answered by the session, never shown to the person
//! (issue 34, item 2), and EUBO's repeated pair on the coffee example (item 3): the docs' example
//! (`docs/examples/ask/coffee.toml`, 8 coffees, budget 12) answered by consistent scripted people.

use bohf_core::Answer;
use bohf_session::file::session_text;
use bohf_session::testing::self_duel_registry;
use bohf_session::{
    AskSpec, End, MAX_SELF_DUELS_IN_A_ROW, Session, SessionBody, StoredAnswer, StoredQuery, body_of, prepare,
    self_duel_coin,
};
use std::path::{Path, PathBuf};

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bohf-selfduel-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The docs' coffee session spec with `algorithm` and extra TOML appended, prepared in `dir`.
fn coffee(dir: &Path, algorithm: &str, extra: &str) -> SessionBody {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/ask");
    std::fs::copy(root.join("beans.csv"), dir.join("beans.csv")).unwrap();
    let spec = std::fs::read_to_string(root.join("coffee.toml")).unwrap();
    assert!(spec.contains("name = \"pf-ts\""), "the docs' example is a PF-TS session");
    let spec = spec.replace("\"pf-ts\"", &format!("\"{algorithm}\"")) + extra;
    std::fs::write(dir.join("coffee.toml"), spec).unwrap();
    prepare(&dir.join("coffee.toml")).unwrap()
}

/// Three consistent scripted people over (roast, acidity, body, price): each prefers the larger
/// utility (ties: A). Person 0 is the issue's: Kenya AA and Santos tie at 0, Yirgacheffe is best.
fn utility(person: usize, v: &[f64]) -> f64 {
    match person {
        0 => v[1] - 0.5 * v[3],
        1 => -(v[0] - 3.0).powi(2) - (v[2] - 6.0).powi(2),
        _ => v[1] + v[2] - 0.3 * v[3],
    }
}

/// What one scripted person saw: the duels shown, the longest run of one unordered pair asked in
/// a row, and whether the person's best option was shown.
struct Seen {
    shown: Vec<(usize, usize)>,
    max_run: usize,
    best_shown: bool,
}

fn answer_all(s: &mut Session, person: usize) -> Seen {
    let v = s.body().candidates.values.clone();
    let u = |i: usize| utility(person, &v[i]);
    let best = (0..v.len()).fold(0, |b, i| if u(i) > u(b) { i } else { b });
    let (mut shown, mut run, mut max_run) = (Vec::new(), 0, 0);
    while let Some(q) = s.pending().unwrap() {
        let StoredQuery::Duel { a, b } = q else { panic!("a duel, got {q:?}") };
        let pair = (a.min(b), a.max(b));
        run = if shown.last().map(|&(x, y): &(usize, usize)| (x.min(y), x.max(y))) == Some(pair) { run + 1 } else { 1 };
        max_run = max_run.max(run);
        shown.push((a, b));
        s.answer(Answer::Duel { first_wins: u(a) >= u(b) }).unwrap();
    }
    let best_shown = shown.iter().any(|&(a, b)| a == best || b == best);
    Seen { shown, max_run, best_shown }
}

/// PF-TS on the docs' example: no self-duel is shown to any of the three people; the ones PF-TS
/// asked are in the file, marked automatic, answered by the session's coin; the session ends on
/// its budget or after MAX_SELF_DUELS_IN_A_ROW self-duels in a row (PF-TS has settled).
#[test]
fn pf_ts_on_the_coffee_example_never_shows_a_self_duel() {
    let mut automatic_total = 0;
    for person in 0..3 {
        let dir = tmp(&format!("pfts{person}"));
        let mut s = Session::create(&dir.join("coffee.json"), coffee(&dir, "pf-ts", ""), false).unwrap();
        let seen = answer_all(&mut s, person);
        let self_duels_shown = seen.shown.iter().filter(|(a, b)| a == b).count();
        assert_eq!(self_duels_shown, 0, "person {person}: {:?}", seen.shown);
        assert_eq!(seen.shown.len(), s.answered());
        assert!(s.answered() <= 12);
        let end = s.end().unwrap();
        assert!(end == End::Budget || end == End::SelfDuels, "{end:?}");
        if end == End::SelfDuels {
            assert!(s.body().history.iter().rev().take(MAX_SELF_DUELS_IN_A_ROW).all(|st| st.automatic));
        }
        let seed = s.body().spec.seed;
        for (t, step) in s.body().history.iter().enumerate() {
            let StoredQuery::Duel { a, b } = step.query else { panic!() };
            assert_eq!(step.automatic, a == b, "query {}: {step:?}", t + 1);
            if step.automatic {
                assert_eq!(step.answer, StoredAnswer::Answer(Answer::Duel { first_wins: self_duel_coin(seed, t) }));
            }
        }
        automatic_total += s.automatic();
        println!(
            "pf-ts, person {person}: {} duels shown, 0 self-duels shown, {} answered automatically, end {end:?}",
            seen.shown.len(),
            s.automatic()
        );
        // The file says so, and reopens to the same state.
        let text = std::fs::read_to_string(dir.join("coffee.json")).unwrap();
        assert_eq!(text.matches("\"automatic\": true").count(), s.automatic());
        let rec = s.recommendation();
        drop(s);
        let mut again = Session::open(&dir.join("coffee.json")).unwrap();
        assert_eq!(again.end(), Some(end));
        assert_eq!(again.pending().unwrap(), None);
        assert_eq!(again.recommendation(), rec);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(automatic_total > 0, "PF-TS asked self-duels on this example (the issue's 6 of 12)");
}

/// Resuming is deterministic: a session reopened before every answer records exactly the same
/// file (automatic answers included) as one answered in one go.
#[test]
fn a_resumed_session_answers_self_duels_as_an_uninterrupted_one() {
    let dir = tmp("resume");
    let (one, two) = (dir.join("one.json"), dir.join("two.json"));
    let mut s = Session::create(&one, coffee(&dir, "pf-ts", ""), false).unwrap();
    let seen = answer_all(&mut s, 2);
    assert!(s.automatic() > 0);
    drop(s);
    drop(Session::create(&two, coffee(&dir, "pf-ts", ""), false).unwrap());
    let v = prepare(&dir.join("coffee.toml")).unwrap().candidates.values;
    for _ in 0..seen.shown.len() {
        let mut s = Session::open(&two).unwrap();
        let Some(StoredQuery::Duel { a, b }) = s.pending().unwrap() else { panic!() };
        drop(s);
        // Reopened after the automatic answers were saved: the same query again.
        let mut s = Session::open(&two).unwrap();
        assert_eq!(s.pending().unwrap(), Some(StoredQuery::Duel { a, b }));
        s.answer(Answer::Duel { first_wins: utility(2, &v[a]) >= utility(2, &v[b]) }).unwrap();
    }
    drop(Session::open(&two).unwrap());
    // The same file either way, apart from the times of the person's answers.
    let (one, two) = (bohf_session::testing::untimed_file(&one), bohf_session::testing::untimed_file(&two));
    assert_eq!(one, two, "the same file either way");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn small_spec(algorithm: &str, budget: usize) -> AskSpec {
    toml::from_str(&format!(
        "name = \"t\"\nbudget = {budget}\nseed = 3\n[candidates.box]\nnames = [\"x\"]\nlower = [0.0]\n\
         upper = [1.0]\npoints_per_dim = 3\n[algorithm]\nname = \"{algorithm}\"\n"
    ))
    .unwrap()
}

/// An algorithm that asks nothing but self-duels does not keep the session busy: after
/// MAX_SELF_DUELS_IN_A_ROW automatic answers the session ends, says why, and stays ended.
#[test]
fn an_algorithm_that_asks_only_self_duels_ends_the_session() {
    let dir = tmp("only");
    let path = dir.join("s.json");
    let registry = self_duel_registry();
    let mut body = body_of(small_spec("pf-ts", 5)).unwrap();
    body.spec.algorithm.name = "self-duels".into();
    let mut s = Session::create_with(&path, body, false, &registry).unwrap();
    assert_eq!(s.pending().unwrap(), None);
    assert_eq!(s.end(), Some(End::SelfDuels));
    assert_eq!((s.answered(), s.automatic()), (0, MAX_SELF_DUELS_IN_A_ROW));
    let e = s.answer(Answer::Duel { first_wins: true }).unwrap_err().to_string();
    assert!(e.contains("the session has ended"), "{e}");
    let m = bohf_session::protocol::done_message(&s, s.end().unwrap().key());
    assert_eq!((m["reason"].as_str(), m["automatic"].as_u64()), (Some("self-duels"), Some(25)));
    drop(s);
    let mut s = Session::open_with(&path, &registry).unwrap();
    assert!(s.done());
    assert_eq!(s.pending().unwrap(), None);
    assert_eq!(s.automatic(), MAX_SELF_DUELS_IN_A_ROW);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An algorithm built for a horizon of `budget` queries (MR-LPF) that refuses a query past it
/// after some self-duels were answered automatically ends the session, not an error.
#[test]
fn an_algorithm_past_its_horizon_ends_the_session() {
    let dir = tmp("horizon");
    let path = dir.join("s.json");
    let registry = self_duel_registry();
    let mut body = body_of(small_spec("pf-ts", 4)).unwrap();
    body.spec.algorithm.name = "self-duels-horizon".into();
    let mut s = Session::create_with(&path, body, false, &registry).unwrap();
    let mut shown = 0;
    while let Some(q) = s.pending().unwrap() {
        assert_eq!(q, StoredQuery::Duel { a: 0, b: 1 });
        shown += 1;
        s.answer(Answer::Duel { first_wins: true }).unwrap();
    }
    assert_eq!((shown, s.answered(), s.automatic(), s.end()), (2, 2, 2, Some(End::Horizon)));
    drop(s);
    // Known at once when reopened.
    let s = Session::open_with(&path, &registry).unwrap();
    assert_eq!(s.end(), Some(End::Horizon));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file whose automatic answers were edited (and re-checksummed) is refused with a clear
/// message, never replayed; a file without automatic answers has no `automatic` key at all (the
/// format of files written before this change).
#[test]
fn edited_automatic_answers_are_refused_and_old_files_are_unchanged() {
    let dir = tmp("edit");
    let path = dir.join("s.json");
    let mut s = Session::create(&path, coffee(&dir, "pf-ts", ""), false).unwrap();
    answer_all(&mut s, 0);
    let body = s.body().clone();
    drop(s);
    let t = body.history.iter().position(|st| st.automatic).expect("an automatic answer");
    let refused = |edit: &dyn Fn(&mut SessionBody)| {
        let mut b = body.clone();
        edit(&mut b);
        std::fs::write(&path, session_text(&b).unwrap()).unwrap();
        Session::open(&path).unwrap_err().to_string()
    };
    let e = refused(&|b| {
        let StoredAnswer::Answer(Answer::Duel { first_wins }) = b.history[t].answer else { panic!() };
        b.history[t].answer = StoredAnswer::Answer(Answer::Duel { first_wins: !first_wins });
    });
    assert!(e.contains(&format!("history, answer {}", t + 1)) && e.contains("coin"), "{e}");
    let e = refused(&|b| b.history[0].automatic = true);
    assert!(e.contains("history, answer 1: only a self-duel"), "{e}");
    let e = refused(&|b| b.history[t].answer = StoredAnswer::Abstain(bohf_core::Abstention::Skip));
    assert!(e.contains("only a self-duel"), "{e}");
    // No automatic answers: the file has no `automatic` key.
    let mut s = Session::create(&dir.join("r.json"), body_of(small_spec("eubo", 2)).unwrap(), false).unwrap();
    while s.pending().unwrap().is_some() {
        s.answer(Answer::Duel { first_wins: true }).unwrap();
    }
    assert!(!std::fs::read_to_string(dir.join("r.json")).unwrap().contains("automatic"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// EUBO on the docs' example (issue 34, item 3). With its defaults (BoTorch `PairwiseGP`'s
/// outputscale box [0.01, 100], refitted after every answer), person 0's consistent answers drive
/// the outputscale to its bound: every option's posterior sd stays near the prior's (≈ 8–9), a
/// duel whose outcome the model finds nearly certain barely moves it (the Laplace weight σ′(Δ) is
/// ≈ 0.003 at Δ ≈ 5.8), and EUBO, a function of the posterior only, asks Kenya AA vs Santos again:
/// EUBO's nature, not a defect (`docs/eubo.md`, "Repeated pairs"). What a study can do, checked
/// here: bound the outputscale, or use DTS.
#[test]
fn eubo_on_the_coffee_example_repeats_a_pair_with_its_defaults_and_not_with_the_documented_remedies() {
    let run = |algorithm: &str, extra: &str, person: usize| {
        let dir = tmp(&format!("eubo-{algorithm}-{}-{person}", extra.len()));
        let mut s = Session::create(&dir.join("coffee.json"), coffee(&dir, algorithm, extra), false).unwrap();
        let seen = answer_all(&mut s, person);
        assert_eq!((seen.shown.len(), s.automatic()), (12, 0), "EUBO and DTS ask no self-duel");
        std::fs::remove_dir_all(&dir).unwrap();
        println!("{algorithm} {extra:?}, person {person}: max run {}, best shown {}", seen.max_run, seen.best_shown);
        seen
    };
    // The observation: Kenya AA (3) vs Santos (4) 8 times in a row, the best never shown.
    let default = run("eubo", "", 0);
    assert_eq!(default.shown[4..], [(3, 4); 8]);
    assert!(!default.best_shown);
    let bounded = "[algorithm.params.model.fit]\noutputscale_bounds = [0.01, 4.0]\n";
    for person in 0..3 {
        let b = run("eubo", bounded, person);
        assert!(b.max_run <= 3 && b.best_shown, "outputscale ≤ 4, person {person}: {:?}", b.shown);
        let d = run("dts", "", person);
        assert!(d.max_run <= 2 && d.best_shown, "DTS, person {person}: {:?}", d.shown);
    }
}
