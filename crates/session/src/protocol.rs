//! The JSON messages of a session and the parsing of answers (`docs/ask-protocol.md`). `bohf ask
//! --json`, `bohf serve` and the Python package send these messages and parse answers with
//! [`parse_answer`], so an answer is accepted or refused, with the same words, everywhere.

use crate::{Session, StoredQuery};
use bohf_core::{Abstention, Answer};
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

impl StoredQuery {
    /// The query's kind as the protocol names it: `duel`, `label`, `value` or `choice`.
    pub fn kind(&self) -> &'static str {
        match self {
            StoredQuery::Choice { .. } => "choice",
            StoredQuery::Duel { .. } => "duel",
            StoredQuery::Label { .. } => "label",
            StoredQuery::Value { .. } => "value",
        }
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

/// Parses one JSON answer message to query `q`; the error is the message to send back.
pub fn parse_answer(q: &StoredQuery, line: &str) -> Result<Reply, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    if v.get("quit").and_then(|x| x.as_bool()) == Some(true) {
        return Ok(Reply::Quit);
    }
    if v.get("no_preference").and_then(|x| x.as_bool()) == Some(true) {
        return Ok(Reply::Abstain(Abstention::NoPreference));
    }
    if v.get("skip").and_then(|x| x.as_bool()) == Some(true) {
        return Ok(Reply::Abstain(Abstention::Skip));
    }
    let answer = match q {
        StoredQuery::Duel { .. } => match v.get("choice").and_then(|x| x.as_str()) {
            Some("a" | "A") => Answer::Duel { first_wins: true },
            Some("b" | "B") => Answer::Duel { first_wins: false },
            _ => return Err(DUEL_HELP.into()),
        },
        StoredQuery::Label { .. } => match v.get("accept").and_then(|x| x.as_bool()) {
            Some(accept) => Answer::Label { accept },
            None => return Err(LABEL_HELP.into()),
        },
        StoredQuery::Value { .. } => match v.get("value").and_then(|x| x.as_f64()) {
            Some(x) if x.is_finite() => Answer::Value(x),
            _ => return Err(VALUE_HELP.into()),
        },
        StoredQuery::Choice { options } => match v.get("choice").and_then(|x| x.as_u64()) {
            Some(i) => {
                let index = usize::try_from(i).unwrap_or(usize::MAX);
                let answer = Answer::Choice { index };
                answer.choice_index(options.len()).map_err(|e| format!("{e}; {CHOICE_HELP}"))?;
                answer
            }
            None => return Err(CHOICE_HELP.into()),
        },
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
    let mut m = match *q {
        StoredQuery::Choice { ref options } => {
            let options: Vec<Value> = options.iter().map(|&i| c.json(i)).collect();
            json!({ "type": "query", "t": t, "budget": budget, "kind": "choice", "options": options })
        }
        StoredQuery::Duel { a, b } => {
            json!({ "type": "query", "t": t, "budget": budget, "kind": "duel", "a": c.json(a), "b": c.json(b) })
        }
        StoredQuery::Label { x } => {
            json!({ "type": "query", "t": t, "budget": budget, "kind": "label", "option": c.json(x) })
        }
        StoredQuery::Value { x } => {
            json!({ "type": "query", "t": t, "budget": budget, "kind": "value", "option": c.json(x) })
        }
    };
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

/// `{"type": "done", …}`: the session ends (`reason`: `budget`, `quit` or `end of input`), with
/// the current recommendation.
pub fn done_message(s: &Session, reason: &str) -> Value {
    let rec = s.recommendation().map(|i| s.body().candidates.json(i)).unwrap_or(Value::Null);
    let mut m = json!({
        "type": "done", "reason": reason, "answered": s.answered(), "budget": s.budget(), "recommendation": rec
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
}
