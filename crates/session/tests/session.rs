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
fn prefer(s: &Session, q: &StoredQuery) -> Answer {
    let v = &s.body().candidates.values;
    let score = |i: usize| v[i][0] + v[i][1];
    match *q {
        StoredQuery::Choice { ref options } => Answer::Choice {
            index: (0..options.len()).fold(0, |b, i| if score(options[i]) > score(options[b]) { i } else { b }),
        },
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
        let a = prefer(&s, &q);
        asked_one.push(q);
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
        assert_eq!(s.pending().unwrap().as_ref(), Some(&q), "asking twice gives the same pending query");
        let a = prefer(&s, &q);
        asked_two.push(q);
        s.answer(a).unwrap();
    }
    let s = Session::open(&two).unwrap();
    assert!(s.done());
    assert_eq!(asked_one, asked_two);
    assert_eq!(rec_one, s.recommendation());
    // The same file either way, apart from the times of the answers.
    let (one, two) = (bohf_session::testing::untimed_file(&one), bohf_session::testing::untimed_file(&two));
    assert_eq!(one, two, "the same file either way");
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
            let a = prefer(&s, &q);
            queries.push(q);
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
    let e = bohf_session::body_with(direct_spec.clone(), short).unwrap_err();
    assert!(e.to_string().contains("name(s) for 16 rows"), "{e}");
    // Issue 33, item 11: an attribute named twice is refused (one value per option would vanish).
    let mut twice = body_of(spec("pf-ts")).unwrap().candidates;
    twice.attributes[1] = "x".into();
    let e = bohf_session::body_with(direct_spec, twice).unwrap_err();
    assert!(e.to_string().contains("attributes 1 and 2 are both named `x`"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A session file written by bohf before abstentions and images existed (by `bohf ask --json`
/// at commit 55fbd1f: a 3×3 box, pf-ts, seed 4, answers a, b, a) loads, replays, and is written
/// back byte for byte (so its checksum is the same), and goes on asking the query that bohf asked
/// then (#9 against #2, from that run's output).
#[test]
fn a_session_file_from_before_abstentions_loads_with_the_same_checksum() {
    let dir = tmp("old");
    let path = dir.join("old.json");
    let original =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/before-abstentions.json")).unwrap();
    std::fs::write(&path, &original).unwrap();
    let mut s = Session::open(&path).unwrap();
    assert_eq!(s.answered(), 3);
    assert_eq!(s.pending().unwrap(), Some(StoredQuery::Duel { a: 8, b: 1 }));
    assert_eq!(bohf_session::file::session_text(s.body()).unwrap().as_bytes(), &original[..]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// "No preference" and "skip" are recorded in the history, use up one query of the budget each,
/// survive a reopen (the replay gives them to the algorithm again), and are stored as strings.
#[test]
fn abstentions_are_recorded_use_the_budget_and_replay() {
    use bohf_core::Abstention;
    use bohf_session::StoredAnswer;
    let dir = tmp("abstain");
    let path = dir.join("s.json");
    let mut s = Session::create(&path, body_of(spec("pf-ts")).unwrap(), false).unwrap();
    s.pending().unwrap().unwrap();
    s.abstain(Abstention::Skip).unwrap();
    let q = s.pending().unwrap().unwrap();
    let a = prefer(&s, &q);
    s.answer(a).unwrap();
    s.pending().unwrap().unwrap();
    s.abstain(Abstention::NoPreference).unwrap();
    assert_eq!(s.answered(), 3, "each abstention uses up one query of the budget of 6");
    let next = s.pending().unwrap();
    let rec = s.recommendation();
    drop(s);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""answer": "Skip""#) && text.contains(r#""answer": "NoPreference""#), "{text}");
    let mut s = Session::open(&path).unwrap();
    let kinds: Vec<StoredAnswer> = s.body().history.iter().map(|st| st.answer).collect();
    assert_eq!(kinds, vec![Abstention::Skip.into(), a.into(), Abstention::NoPreference.into()]);
    assert_eq!(s.pending().unwrap(), next, "the replay asks the same next query");
    assert_eq!(s.recommendation(), rec);
    // Abstaining from every remaining query ends the session.
    while s.pending().unwrap().is_some() {
        s.abstain(Abstention::Skip).unwrap();
    }
    assert!(s.done() && s.answered() == 6);
    let e = s.abstain(Abstention::Skip).unwrap_err().to_string();
    assert!(e.contains("the session has ended"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A CSV with an `image` column: the images are kept (relative to the CSV's folder) and are not
/// attributes; a path that leaves the folder is refused naming the line; a session without images
/// writes no `images` key.
#[test]
fn an_image_column_is_kept_and_paths_outside_the_folder_are_refused() {
    let dir = tmp("images");
    std::fs::create_dir_all(dir.join("img")).unwrap();
    std::fs::write(dir.join("img/a.png"), b"png").unwrap();
    std::fs::write(dir.join("c.csv"), "name,x,image\nA,1,img/a.png\nB,2,\n").unwrap();
    let spec_text = "name = \"i\"\nbudget = 2\n[candidates]\ncsv = \"c.csv\"\n[algorithm]\nname = \"pf-ts\"\n";
    std::fs::write(dir.join("s.toml"), spec_text).unwrap();
    let body = bohf_session::prepare(&dir.join("s.toml")).unwrap();
    assert_eq!(body.candidates.attributes, vec!["x".to_string()]);
    let images = body.candidates.images.clone().unwrap();
    assert_eq!(images.files, vec!["img/a.png".to_string(), String::new()]);
    assert_eq!(images.path(0).unwrap(), Some(dir.join("img/a.png").canonicalize().unwrap()));
    assert_eq!(images.path(1).unwrap(), None);
    assert_eq!(body.candidates.json(0)["image"], "img/a.png");
    assert!(body.candidates.json(1).get("image").is_none());
    for bad in ["../secret.png", "/etc/passwd", "img/../../x.png"] {
        std::fs::write(dir.join("c.csv"), format!("name,x,image\nA,1,img/a.png\nB,2,{bad}\n")).unwrap();
        let e = bohf_session::prepare(&dir.join("s.toml")).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains(bad) && e.contains("inside it"), "{e}");
    }
    // A symbolic link inside the folder that points outside it is refused when served.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/hostname", dir.join("img/link.png")).unwrap();
        let im = bohf_session::Images { dir: dir.clone(), files: vec!["img/link.png".into()] };
        assert!(im.path(0).unwrap_err().contains("outside the candidates' folder"));
    }
    let plain = body_of(spec("pf-ts")).unwrap();
    assert!(!bohf_session::file::session_text(&plain).unwrap().contains("images"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// COMP-GP-UCB with `[costs]`: duels at 0.5, values at 2, a total of 6 (fixed kernels, Λ₀ = 2 as
/// counts: one random duel and one random value first).
fn comp_spec() -> AskSpec {
    toml::from_str(
        "name = \"c\"\nbudget = 40\nseed = 5\n[costs]\ntotal = 6\nduel = 0.5\nevaluate = 2\n\
         [candidates.box]\nnames = [\"x\", \"y\"]\nlower = [0.0, 0.0]\nupper = [1.0, 2.0]\npoints_per_dim = 4\n\
         [algorithm]\nname = \"comp-gp-ucb\"\n[algorithm.params]\nzeta = 0.5\n\
         initial = { budget = 2.0, counting = \"count\" }\n",
    )
    .unwrap()
}

#[test]
fn comp_gp_ucb_asks_duels_and_values_and_stops_when_the_costs_reach_the_total() {
    let dir = tmp("comp");
    let path = dir.join("c.json");
    let mut s = Session::create(&path, body_of(comp_spec()).unwrap(), false).unwrap();
    assert_eq!(s.budget_left(), Some(6.0));
    let mut kinds = Vec::new();
    while let Some(q) = s.pending().unwrap() {
        // The budget left is shown with each query: the total minus the answered queries' costs.
        let left = s.budget_left().unwrap();
        let spent: f64 = kinds.iter().map(|&duel| if duel { 0.5 } else { 2.0 }).sum();
        assert_eq!(left, 6.0 - spent);
        let m = bohf_session::protocol::query_message(&s, &q);
        assert_eq!(m["budget_left"], serde_json::json!(left));
        kinds.push(matches!(q, StoredQuery::Duel { .. }));
        let a = prefer(&s, &q);
        s.answer(a).unwrap();
    }
    // The session ends on its costs (6 spent, or just over), long before 40 queries.
    let spent: f64 = kinds.iter().map(|&duel| if duel { 0.5 } else { 2.0 }).sum();
    assert!(spent >= 6.0 && spent - if *kinds.last().unwrap() { 0.5 } else { 2.0 } < 6.0, "{kinds:?}");
    assert!(s.answered() < 40 && s.done());
    assert_eq!(s.budget_left(), Some(0.0));
    // Both kinds were asked: the initial duel, then the initial value.
    assert!(kinds[0] && !kinds[1], "{kinds:?}");
    let done = bohf_session::protocol::done_message(&s, "budget");
    assert_eq!(done["budget_left"], serde_json::json!(0.0));
    // Reopened, the session is done and its costs are the same.
    drop(s);
    let s = Session::open(&path).unwrap();
    assert!(s.done());
    assert_eq!(s.spent(), Some(spent));
    // A session without `[costs]` shows no budget left.
    let plain = Session::create(&dir.join("p.json"), body_of(spec("pf-ts")).unwrap(), false).unwrap();
    assert_eq!(plain.budget_left(), None);
    let mut plain = plain;
    let q = plain.pending().unwrap().unwrap();
    assert!(bohf_session::protocol::query_message(&plain, &q).get("budget_left").is_none());
    // Bad costs name the `[costs]` field.
    let mut bad = comp_spec();
    bad.costs.as_mut().unwrap().duel = 0.0;
    let e = body_of(bad).unwrap_err().to_string();
    assert!(e.contains("`costs.duel`"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_choice_session_is_saved_replayed_and_refuses_a_bad_index() {
    let dir = tmp("choice");
    let registry = bohf_session::testing::three_way_registry();
    let path = dir.join("c.json");
    let mut body = body_of(spec("pf-ts")).unwrap();
    body.spec.algorithm.name = "three-way".into();
    let mut s = Session::create_with(&path, body.clone(), false, &registry).unwrap();
    let mut asked = Vec::new();
    for _ in 0..3 {
        let q = s.pending().unwrap().unwrap();
        let StoredQuery::Choice { options } = &q else { panic!("not a choice: {q:?}") };
        assert_eq!(options.len(), 3);
        // The JSON message lists the three options in order.
        let msg = bohf_session::protocol::query_message(&s, &q);
        assert_eq!((msg["kind"].as_str(), msg["options"].as_array().map(Vec::len)), (Some("choice"), Some(3)));
        // An index beyond the options is refused, naming the field; nothing is written.
        let before = std::fs::read(&path).unwrap();
        let e = s.answer(Answer::Choice { index: 3 }).unwrap_err();
        assert!(matches!(e, SessionError::Answer(_)) && e.to_string().contains("`answer.index`"), "{e}");
        let e = s.answer(Answer::Duel { first_wins: true }).unwrap_err().to_string();
        assert!(e.contains("a duel answer does not answer the pending choice"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
        let a = prefer(&s, &q);
        s.answer(a).unwrap();
        asked.push(q);
    }
    let rec = s.recommendation();
    drop(s);
    // Reopened: the three choices replay, and the next query is the one a session answered in one
    // go asks.
    let mut s = Session::open_with(&path, &registry).unwrap();
    assert_eq!(s.answered(), 3);
    assert_eq!(s.body().history.iter().map(|h| h.query.clone()).collect::<Vec<_>>(), asked);
    assert_eq!(s.recommendation(), rec);
    let next = s.pending().unwrap().unwrap();
    let other = dir.join("d.json");
    let mut t = Session::create_with(&other, body, false, &registry).unwrap();
    for _ in 0..3 {
        let q = t.pending().unwrap().unwrap();
        let a = prefer(&t, &q);
        t.answer(a).unwrap();
    }
    assert_eq!(t.pending().unwrap(), Some(next));
    // The file stores the choice by candidate index; without the test registry it cannot replay.
    drop((s, t));
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let first = &json["body"]["history"][0];
    assert_eq!(first["query"]["kind"], "choice", "{first}");
    assert_eq!(first["query"]["options"].as_array().map(Vec::len), Some(3), "{first}");
    assert!(first["answer"]["Choice"]["index"].as_u64().is_some_and(|i| i < 3), "{first}");
    let e = Session::open(&path).unwrap_err().to_string();
    assert!(e.contains("three-way"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 33, item 2: a session that let go of its lock holds no descriptor of its files, still
/// saves its answers (taking the lock for the save), and refuses to save, writing nothing, when
/// another process holds the lock or has answered meanwhile.
#[test]
fn a_released_session_saves_under_the_lock_and_refuses_when_the_file_changed() {
    let dir = tmp("released");
    let path = dir.join("s.json");
    let mut s = Session::create(&path, body_of(spec("random")).unwrap(), false).unwrap();
    s.release_lock();
    let fds = || {
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .flatten()
            .filter(|e| std::fs::read_link(e.path()).is_ok_and(|t| t.starts_with(&dir)))
            .count()
    };
    assert_eq!(fds(), 0, "no descriptor of the session's files while idle");
    let q = s.pending().unwrap().unwrap();
    let a = prefer(&s, &q);
    s.answer(a).unwrap();
    assert_eq!(fds(), 0);
    // Another process (here: another opener) answers meanwhile; the released session refuses.
    let mut other = Session::open(&path).unwrap();
    let e = s.pending().and_then(|q| s.answer(prefer(&s, &q.unwrap()))).unwrap_err();
    assert!(e.to_string().contains("in use by another bohf process"), "{e}");
    let q2 = other.pending().unwrap().unwrap();
    let a2 = prefer(&other, &q2);
    other.answer(a2).unwrap();
    drop(other);
    let before = std::fs::read(&path).unwrap();
    let e = s.answer(a2).unwrap_err();
    assert!(e.to_string().contains("was changed by another process"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing was written");
    assert_eq!(s.answered(), 1, "the refused answer is not kept in memory either");
}

/// A session, like a run, refuses a query of a kind the algorithm's registry entry does not
/// declare, naming the kind and the declaration, and writes nothing: live (`pending`), and when a
/// saved history is replayed under an entry that no longer declares what it asked.
#[test]
fn a_query_of_an_undeclared_kind_is_refused_and_nothing_is_written() {
    let dir = tmp("undeclared");
    let honest = bohf_session::testing::three_way_registry();
    let entry = honest.get("three-way").unwrap().clone();
    let mut mislabelled = bohf_registry::builtin();
    mislabelled.register(entry.asks(&[bohf_core::QueryKind::Duel])).unwrap();
    let mut body = body_of(spec("pf-ts")).unwrap();
    body.spec.algorithm.name = "three-way".into();
    // Live: the first query is a choice, which the entry says it never asks.
    let path = dir.join("live.json");
    let mut s = Session::create_with(&path, body.clone(), false, &mislabelled).unwrap();
    let before = std::fs::read(&path).unwrap();
    let e = s.pending().unwrap_err().to_string();
    assert!(e.contains("`three-way` asked a query of kind `choice`") && e.contains("(it asks duel)"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    drop(s);
    // Replayed: two choices answered under the honest entry, then reopened under the other.
    let saved = dir.join("saved.json");
    let mut s = Session::create_with(&saved, body, false, &honest).unwrap();
    for _ in 0..2 {
        let q = s.pending().unwrap().unwrap();
        let a = prefer(&s, &q);
        s.answer(a).unwrap();
    }
    drop(s);
    let before = std::fs::read(&saved).unwrap();
    let e = Session::open_with(&saved, &mislabelled).unwrap_err().to_string();
    assert!(e.contains("kind `choice`"), "{e}");
    assert_eq!(std::fs::read(&saved).unwrap(), before);
    assert_eq!(Session::open_with(&saved, &honest).unwrap().answered(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
