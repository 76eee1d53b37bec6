//! The JSON messages of a session and the parsing of answers (`docs/ask-protocol.md`). `bohf ask
//! --json`, `bohf serve` and the Python package send these messages and parse answers with
//! [`parse_answer`], so an answer is accepted or refused, with the same words, everywhere.

use crate::{Session, StoredQuery};
use bohf_core::{Abstention, Answer, QueryKind};
use serde_json::{Value, json};

/// How to answer a duel.
pub const DUEL_HELP: &str =
    r#"a duel needs {"choice": "a"} or {"choice": "b"} (or {"no_preference": true}, {"skip": true})"#;
/// How to answer a label query.
pub const LABEL_HELP: &str =
    r#"a label needs {"accept": true} or {"accept": false} (or {"no_preference": true}, {"skip": true})"#;
/// How to answer a best-of-k choice.
pub const CHOICE_HELP: &str = r#"a choice needs {"choice": i}, i the 0-based position of the preferred option in `options` (or {"no_preference": true}, {"skip": true})"#;
/// How to answer a value query.
pub const VALUE_HELP: &str = r#"a value needs {"value": <finite number>} (or {"no_preference": true}, {"skip": true})"#;

/// A query kind as the protocol (and the session file's `"kind"`) names it: `duel`, `value`,
/// `label` or `choice` ([`QueryKind::as_str`] but `value` for [`QueryKind::Evaluate`], the wire
/// spelling since the first session files).
pub fn kind_name(kind: QueryKind) -> &'static str {
    match kind {
        QueryKind::Evaluate => "value",
        other => other.as_str(),
    }
}

/// How to answer a query of `kind`.
pub fn help_for(kind: QueryKind) -> &'static str {
    match kind {
        QueryKind::Duel => DUEL_HELP,
        QueryKind::Label => LABEL_HELP,
        QueryKind::Evaluate => VALUE_HELP,
        QueryKind::Choice => CHOICE_HELP,
    }
}

/// The key of an answer message that answers a query of `kind` (besides the abstentions).
pub fn answer_key(kind: QueryKind) -> &'static str {
    match kind {
        QueryKind::Duel | QueryKind::Choice => "choice",
        QueryKind::Label => "accept",
        QueryKind::Evaluate => "value",
    }
}

impl StoredQuery {
    /// The query's kind as the protocol names it ([`kind_name`]): `duel`, `label`, `value` or
    /// `choice`.
    pub fn kind(&self) -> &'static str {
        kind_name(self.query_kind())
    }
}

/// The kind of query an answer answers, for messages: `a duel answer`, ….
pub fn answer_kind(a: &Answer) -> &'static str {
    match a {
        Answer::Duel { .. } => "a duel answer",
        Answer::Label { .. } => "a label answer",
        Answer::Value(_) => "a value answer",
        Answer::Choice { .. } => "a choice answer",
    }
}

/// What an answer message says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reply {
    /// Stop answering for now (`{"quit": true}`).
    Quit,
    /// An answer to the query.
    Answer(Answer),
    /// No answer to the query: `{"no_preference": true}` or `{"skip": true}` (recorded with
    /// [`Session::abstain`]; it uses up one query of the budget).
    Abstain(Abstention),
}

/// The keys an answer message may have (exactly one of them).
pub const ANSWER_KEYS: [&str; 6] = ["choice", "accept", "value", "no_preference", "skip", "quit"];

/// Parses one JSON answer message to query `q`; the error is the message to send back. Strict
/// ([`answer_of`]): one JSON object, no key twice, no key outside [`ANSWER_KEYS`], exactly one key
/// that answers `q`.
pub fn parse_answer(q: &StoredQuery, line: &str) -> Result<Reply, String> {
    answer_of(q, &strict_object(line)?, &[])
}

/// A JSON object whose keys are all different: the one parser of answer messages (`bohf ask
/// --json`, `bohf serve`, the Python package), so that `{"choice": "a", "choice": "b"}` is refused
/// everywhere instead of meaning whichever came last.
pub fn strict_object(text: &str) -> Result<serde_json::Map<String, Value>, String> {
    use serde::de::{Deserializer, Error, MapAccess, Visitor};
    struct Strict;
    impl<'de> Visitor<'de> for Strict {
        type Value = serde_json::Map<String, Value>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = serde_json::Map::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.contains_key(&key) {
                    return Err(A::Error::custom(format!("the key `{key}` appears twice: which one is meant?")));
                }
                let v: Value = map.next_value()?;
                out.insert(key, v);
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let obj = de
        .deserialize_map(Strict)
        .map_err(|e| if e.is_data() { format!("not an answer: {e}") } else { format!("not JSON: {e}") })?;
    de.end().map_err(|e| format!("not JSON: {e}"))?;
    Ok(obj)
}

/// The help text of query `q`'s kind.
fn help(q: &StoredQuery) -> &'static str {
    help_for(q.query_kind())
}

/// The answer to query `q` that the message `m` ([`strict_object`]) gives. `m` has keys of
/// [`ANSWER_KEYS`] and `extra` (the server's `t`) only, and exactly one key that answers `q` (its
/// kind's key, `no_preference`, `skip` or `quit`; keys of other kinds are ignored): an unknown key,
/// or two answers to `q` in one message, is refused naming them, with the help text of `q`'s kind.
pub fn answer_of(q: &StoredQuery, m: &serde_json::Map<String, Value>, extra: &[&str]) -> Result<Reply, String> {
    let unknown: Vec<&str> =
        m.keys().map(String::as_str).filter(|k| !ANSWER_KEYS.contains(k) && !extra.contains(k)).collect();
    if !unknown.is_empty() {
        let list = unknown.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
        return Err(format!("unknown key {list} in the answer; {}", help(q)));
    }
    // The keys that answer this query: its kind's own and the abstentions. A key that answers
    // another kind only (`accept` to a duel) is ignored, so that a driving program may send one line
    // that answers any kind; two keys that both answer this query are ambiguous.
    let own = answer_key(q.query_kind());
    let given: Vec<&str> =
        m.keys().map(String::as_str).filter(|k| *k == own || ["no_preference", "skip", "quit"].contains(k)).collect();
    let key = match given.as_slice() {
        [one] => *one,
        [] => return Err(help(q).into()),
        more => {
            let list = more.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            return Err(format!("one answer at a time: this message has {list}; {}", help(q)));
        }
    };
    let v = &m[key];
    match key {
        "quit" if v.as_bool() == Some(true) => return Ok(Reply::Quit),
        "no_preference" if v.as_bool() == Some(true) => return Ok(Reply::Abstain(Abstention::NoPreference)),
        "skip" if v.as_bool() == Some(true) => return Ok(Reply::Abstain(Abstention::Skip)),
        _ => {}
    }
    let answer = match (q, key) {
        (StoredQuery::Duel { .. }, "choice") => match v.as_str() {
            Some("a" | "A") => Answer::Duel { first_wins: true },
            Some("b" | "B") => Answer::Duel { first_wins: false },
            _ => return Err(DUEL_HELP.into()),
        },
        (StoredQuery::Label { .. }, "accept") => match v.as_bool() {
            Some(accept) => Answer::Label { accept },
            None => return Err(LABEL_HELP.into()),
        },
        (StoredQuery::Value { .. }, "value") => match v.as_f64() {
            Some(x) if x.is_finite() => Answer::Value(x),
            _ => return Err(VALUE_HELP.into()),
        },
        (StoredQuery::Choice { options }, "choice") => match v.as_u64() {
            Some(i) => {
                let index = usize::try_from(i).unwrap_or(usize::MAX);
                let answer = Answer::Choice { index };
                answer.choice_index(options.len()).map_err(|e| format!("{e}; {CHOICE_HELP}"))?;
                answer
            }
            None => return Err(CHOICE_HELP.into()),
        },
        _ => return Err(help(q).into()),
    };
    Ok(Reply::Answer(answer))
}

/// `{"type": "session", …}`: the session's name, algorithm, progress and candidates.
pub fn session_message(s: &Session) -> Value {
    let b = s.body();
    json!({
        "type": "session", "name": b.spec.name, "algorithm": b.spec.algorithm.name,
        "answered": s.answered(), "budget": s.budget(),
        "attributes": b.candidates.attributes, "candidates": b.candidates.names.len()
    })
}

/// `{"type": "query", …}`: query `q`, the next one of session `s`.
pub fn query_message(s: &Session, q: &StoredQuery) -> Value {
    let c = &s.body().candidates;
    let (t, budget) = (s.answered() + 1, s.budget());
    let mut m = json!({ "type": "query", "t": t, "budget": budget, "kind": q.kind() });
    match *q {
        StoredQuery::Choice { ref options } => {
            m["options"] = options.iter().map(|&i| c.json(i)).collect();
        }
        StoredQuery::Duel { a, b } => {
            m["a"] = c.json(a);
            m["b"] = c.json(b);
        }
        StoredQuery::Label { x } | StoredQuery::Value { x } => m["option"] = c.json(x),
    }
    with_budget_left(s, &mut m);
    m
}

/// Adds `budget_left` (the spec's `[costs]` total minus the answered queries' costs) to a message,
/// when the session has `[costs]`.
fn with_budget_left(s: &Session, m: &mut Value) {
    if let (Some(left), Some(o)) = (s.budget_left(), m.as_object_mut()) {
        o.insert("budget_left".into(), json!(left));
    }
}

/// `{"type": "saved", …}`: an answer was saved.
pub fn saved_message(s: &Session) -> Value {
    json!({ "type": "saved", "answered": s.answered() })
}

/// `{"type": "error", …}`: an answer was refused (nothing changed).
pub fn error_message(message: &str) -> Value {
    json!({ "type": "error", "message": message })
}

/// `{"type": "done", …}`: the session ends (`reason`: `budget`, `self-duels`, `horizon`
/// ([`crate::End::key`]), `quit` or `end of input`), with the recommendation to show
/// ([`Session::recommendation_to_show`]: none before the first informative answer) and the
/// number of self-duels answered automatically (`automatic`).
pub fn done_message(s: &Session, reason: &str) -> Value {
    let rec = s.recommendation_to_show().map(|i| s.body().candidates.json(i)).unwrap_or(Value::Null);
    let mut m = json!({
        "type": "done", "reason": reason, "answered": s.answered(), "budget": s.budget(),
        "automatic": s.automatic(), "recommendation": rec
    });
    with_budget_left(s, &mut m);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_of_the_wrong_shape_are_refused_with_the_help_text() {
        let d = StoredQuery::Duel { a: 0, b: 1 };
        let l = StoredQuery::Label { x: 0 };
        let v = StoredQuery::Value { x: 0 };
        assert_eq!(parse_answer(&d, r#"{"choice":"c"}"#), Err(DUEL_HELP.into()));
        assert_eq!(parse_answer(&d, r#"{"choice":"B"}"#), Ok(Reply::Answer(Answer::Duel { first_wins: false })));
        assert_eq!(parse_answer(&l, r#"{"accept":false}"#), Ok(Reply::Answer(Answer::Label { accept: false })));
        assert_eq!(parse_answer(&l, r#"{"choice":"a"}"#), Err(LABEL_HELP.into()));
        assert_eq!(parse_answer(&v, r#"{"value":"1"}"#), Err(VALUE_HELP.into()));
        assert_eq!(parse_answer(&v, r#"{"quit":true}"#), Ok(Reply::Quit));
        assert!(parse_answer(&v, "{").unwrap_err().starts_with("not JSON"));
        // Abstentions answer any kind of query; `false` is not an abstention.
        for q in [d.clone(), l, v] {
            assert_eq!(parse_answer(&q, r#"{"skip":true}"#), Ok(Reply::Abstain(Abstention::Skip)));
            assert_eq!(parse_answer(&q, r#"{"no_preference":true}"#), Ok(Reply::Abstain(Abstention::NoPreference)));
        }
        assert_eq!(parse_answer(&d, r#"{"skip":false}"#), Err(DUEL_HELP.into()));
        // A best-of-3 choice: a 0-based index below 3; a letter, a negative or too large index is
        // refused naming the field, with the help text.
        let c = StoredQuery::Choice { options: vec![4, 0, 7] };
        assert_eq!(c.kind(), "choice");
        assert_eq!(parse_answer(&c, r#"{"choice":2}"#), Ok(Reply::Answer(Answer::Choice { index: 2 })));
        assert_eq!(parse_answer(&c, r#"{"choice":"a"}"#), Err(CHOICE_HELP.into()));
        assert_eq!(parse_answer(&c, r#"{"choice":-1}"#), Err(CHOICE_HELP.into()));
        let e = parse_answer(&c, r#"{"choice":3}"#).unwrap_err();
        assert!(e.contains("`answer.index`") && e.contains("3 options") && e.ends_with(CHOICE_HELP), "{e}");
        assert_eq!(parse_answer(&c, r#"{"skip":true}"#), Ok(Reply::Abstain(Abstention::Skip)));
        assert_eq!(parse_answer(&d, r#"{"choice":0}"#), Err(DUEL_HELP.into()));
    }

    /// Every kind of query has a stored form whose `"kind"` is the protocol's name of it (the wire
    /// spelling: `value` for an evaluation), an answer key among [`ANSWER_KEYS`] and a help text.
    #[test]
    fn every_query_kind_has_its_wire_name_key_and_help() {
        let p = |i: usize| bohf_core::Point::candidate(i, vec![i as f64]);
        for kind in QueryKind::ALL {
            let query = match kind {
                QueryKind::Duel => bohf_core::Query::Duel(p(0), p(1)),
                QueryKind::Evaluate => bohf_core::Query::Evaluate(p(0)),
                QueryKind::Label => bohf_core::Query::Label(p(0)),
                QueryKind::Choice => bohf_core::Query::Choice(vec![p(0), p(1), p(2)]),
            };
            let stored = StoredQuery::of(&query).unwrap();
            assert_eq!(stored.query_kind(), kind);
            assert_eq!(serde_json::to_value(&stored).unwrap()["kind"], kind_name(kind), "{kind}");
            assert!(ANSWER_KEYS.contains(&answer_key(kind)), "{kind}");
            assert_eq!(parse_answer(&stored, "{}"), Err(help_for(kind).into()), "{kind}");
        }
        let names: Vec<&str> = QueryKind::ALL.into_iter().map(kind_name).collect();
        assert_eq!(names, ["duel", "value", "label", "choice"]);
    }

    #[test]
    fn ambiguous_and_unknown_keys_are_refused() {
        let d = StoredQuery::Duel { a: 0, b: 1 };
        let e = parse_answer(&d, r#"{"choice":"a","choice":"b"}"#).unwrap_err();
        assert!(e.contains("`choice` appears twice"), "{e}");
        let e = parse_answer(&d, r#"{"choice":"a","because":"tasty"}"#).unwrap_err();
        assert!(e.contains("unknown key `because`") && e.ends_with(DUEL_HELP), "{e}");
        let e = parse_answer(&d, r#"{"choice":"a","skip":true}"#).unwrap_err();
        assert!(e.contains("one answer at a time") && e.contains("`skip`"), "{e}");
        // A key of another kind is ignored: one line may answer any kind of query.
        let any = r#"{"choice":"b","accept":true,"value":0.5}"#;
        assert_eq!(parse_answer(&d, any), Ok(Reply::Answer(Answer::Duel { first_wins: false })));
        assert_eq!(parse_answer(&StoredQuery::Label { x: 0 }, any), Ok(Reply::Answer(Answer::Label { accept: true })));
        let e = parse_answer(&d, r#"{"t":1,"choice":"a"}"#).unwrap_err();
        assert!(e.contains("unknown key `t`"), "{e}");
        assert!(parse_answer(&d, r#"["choice","a"]"#).unwrap_err().starts_with("not an answer"));
        assert!(parse_answer(&d, r#"{"choice":"a"} {"choice":"b"}"#).unwrap_err().starts_with("not JSON"));
        // The server's `t` is an allowed extra key there, and only there.
        let m = strict_object(r#"{"t":1,"choice":"b"}"#).unwrap();
        assert_eq!(answer_of(&d, &m, &["t"]), Ok(Reply::Answer(Answer::Duel { first_wins: false })));
        assert!(strict_object(r#"{"t":1,"t":2,"choice":"b"}"#).unwrap_err().contains("`t` appears twice"));
    }
}
