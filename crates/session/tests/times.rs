//! The times of a session's answers (`asked_at`, `answered_at`): recorded for the person's answers
//! only, read from old files that have none, never part of replay, and checked when read.

use bohf_core::Answer;
use bohf_session::file::{parse_session, session_text};
use bohf_session::{Session, Stamp, StoredQuery, body_of};
use std::path::PathBuf;

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bohf-session-times-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn spec() -> bohf_session::AskSpec {
    toml::from_str(
        "name = \"t\"\nbudget = 4\nseed = 3\n[candidates.box]\nnames = [\"x\", \"y\"]\nlower = [0.0, 0.0]\n\
         upper = [1.0, 2.0]\npoints_per_dim = 4\n[algorithm]\nname = \"pf-ts\"\n",
    )
    .unwrap()
}

fn first_wins(s: &Session, q: &StoredQuery) -> Answer {
    let v = &s.body().candidates.values;
    let StoredQuery::Duel { a, b } = *q else { panic!("a duel") };
    Answer::Duel { first_wins: v[a][0] + v[a][1] >= v[b][0] + v[b][1] }
}

/// Each answer records when its query was shown (the first `pending`) and when it was answered:
/// between the clock readings the test took around those calls, in that order; the time to answer
/// is their difference, and at least the pause the test made.
#[test]
fn each_answer_records_when_it_was_asked_and_answered() {
    let dir = tmp("record");
    let path = dir.join("s.json");
    let mut s = Session::create(&path, body_of(spec()).unwrap(), false).unwrap();
    let mut around = Vec::new();
    while !s.done() {
        let before_ask = Stamp::now();
        let q = s.pending().unwrap().unwrap();
        let after_ask = Stamp::now();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let a = first_wins(&s, &q);
        let before_answer = Stamp::now();
        s.answer(a).unwrap();
        around.push((before_ask, after_ask, before_answer, Stamp::now()));
    }
    let body = parse_session(&std::fs::read(&path).unwrap()).unwrap();
    let person: Vec<_> = body.history.iter().filter(|st| !st.automatic).collect();
    assert_eq!(person.len(), around.len());
    for (st, (b0, a0, b1, a1)) in person.iter().zip(&around) {
        let (asked, answered) = (st.asked_at.unwrap(), st.answered_at.unwrap());
        assert!(*b0 <= asked && asked <= *a0, "{st:?}");
        assert!(*b1 <= answered && answered <= *a1, "{st:?}");
        let secs = st.seconds_to_answer().unwrap();
        assert_eq!(secs, (answered.0 - asked.0) as f64 / 1000.0);
        assert!(secs >= 0.03, "the test waited 30 ms before answering: {secs}");
    }
    // Automatic answers (self-duels, never shown) carry no times.
    for st in body.history.iter().filter(|st| st.automatic) {
        assert_eq!((st.asked_at, st.answered_at), (None, None), "{st:?}");
    }
    // In the file: RFC 3339 in UTC with milliseconds.
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find("\"asked_at\": \"").unwrap() + "\"asked_at\": \"".len();
    assert_eq!(Stamp::parse(&text[at..at + 24]), Ok(person[0].asked_at.unwrap()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file written before times existed loads and replays; a new answer gets times, the old ones
/// stay without, and the file reopens.
#[test]
fn an_old_file_without_times_loads_replays_and_gets_times_for_new_answers() {
    let dir = tmp("old");
    let path = dir.join("old.json");
    let original =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/before-abstentions.json")).unwrap();
    assert!(!String::from_utf8_lossy(&original).contains("asked_at"), "the data file predates times");
    std::fs::write(&path, &original).unwrap();
    let mut s = Session::open(&path).unwrap();
    assert_eq!(s.answered(), 3);
    assert!(s.body().history.iter().all(|st| st.asked_at.is_none() && st.answered_at.is_none()));
    let q = s.pending().unwrap().unwrap();
    assert_eq!(q, StoredQuery::Duel { a: 8, b: 1 }, "the same next query as before times existed");
    let a = first_wins(&s, &q);
    s.answer(a).unwrap();
    drop(s);
    let s = Session::open(&path).unwrap();
    let h = &s.body().history;
    assert_eq!(h.len(), 4);
    assert!(h[..3].iter().all(|st| st.asked_at.is_none()), "old answers are left as they were");
    assert!(h[3].asked_at.is_some() && h[3].answered_at.is_some(), "{:?}", h[3]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same answers with other times replay to the same queries: times are not part of replay.
#[test]
fn times_do_not_change_the_replay() {
    let dir = tmp("replay");
    let path = dir.join("s.json");
    let mut s = Session::create(&path, body_of(spec()).unwrap(), false).unwrap();
    for _ in 0..2 {
        let q = s.pending().unwrap().unwrap();
        let a = first_wins(&s, &q);
        s.answer(a).unwrap();
    }
    let next = s.pending().unwrap();
    let rec = s.recommendation();
    drop(s);
    let mut body = parse_session(&std::fs::read(&path).unwrap()).unwrap();
    for (k, st) in body.history.iter_mut().enumerate() {
        if !st.automatic {
            st.asked_at = Some(Stamp(1_000_000 * k as u64));
            st.answered_at = Some(Stamp(1_000_000 * k as u64 + 999_999));
        }
    }
    let other = dir.join("other.json");
    std::fs::write(&other, session_text(&body).unwrap()).unwrap();
    let mut o = Session::open(&other).unwrap();
    assert_eq!(o.pending().unwrap(), next);
    assert_eq!(o.recommendation(), rec);
    assert_eq!(o.body().history.iter().find(|st| !st.automatic).unwrap().seconds_to_answer(), Some(999.999));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A time in another form (hand-edited) is refused naming the form, and the file is left as it is.
#[test]
fn a_time_in_another_form_is_refused_naming_the_form() {
    let dir = tmp("bad");
    let path = dir.join("s.json");
    let mut s = Session::create(&path, body_of(spec()).unwrap(), false).unwrap();
    let q = s.pending().unwrap().unwrap();
    let a = first_wins(&s, &q);
    s.answer(a).unwrap();
    drop(s);
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find("\"asked_at\": \"").unwrap() + "\"asked_at\": \"".len();
    let edited = format!("{}2024-01-01T00:00:00+00:00{}", &text[..at], &text[at + 24..]);
    std::fs::write(&path, &edited).unwrap();
    let e = Session::open(&path).unwrap_err().to_string();
    assert!(e.contains("YYYY-MM-DDTHH:MM:SS.mmmZ") && e.contains("2024-01-01T00:00:00+00:00"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited, "nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
}
