//! The JSON-lines front end of `bohf ask --json` (the protocol is in `docs/ask-protocol.md`).

use super::session::StoredQuery;
use super::{Line, Live, io_err, read_line, with_progress};
use crate::CliError;
use bohf_core::Answer;
use std::io::{BufRead, Write};
use std::path::Path;

fn send(out: &mut impl Write, v: serde_json::Value) -> Result<(), CliError> {
    writeln!(out, "{v}").map_err(io_err)?;
    out.flush().map_err(io_err)
}

/// Parses one JSON answer line; `Ok(None)` means quit.
fn parse_json_answer(q: StoredQuery, line: &str) -> Result<Option<Answer>, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    if v.get("quit").and_then(|x| x.as_bool()) == Some(true) {
        return Ok(None);
    }
    let answer = match q {
        StoredQuery::Duel { .. } => match v.get("choice").and_then(|x| x.as_str()) {
            Some("a" | "A") => Answer::Duel { first_wins: true },
            Some("b" | "B") => Answer::Duel { first_wins: false },
            _ => return Err(r#"a duel needs {"choice": "a"} or {"choice": "b"}"#.into()),
        },
        StoredQuery::Label { .. } => match v.get("accept").and_then(|x| x.as_bool()) {
            Some(accept) => Answer::Label { accept },
            None => return Err(r#"a label needs {"accept": true} or {"accept": false}"#.into()),
        },
        StoredQuery::Value { .. } => match v.get("value").and_then(|x| x.as_f64()) {
            Some(x) if x.is_finite() => Answer::Value(x),
            _ => return Err(r#"a value needs {"value": <finite number>}"#.into()),
        },
    };
    Ok(Some(answer))
}

fn query_json(live: &Live, q: StoredQuery) -> serde_json::Value {
    let c = &live.body.candidates;
    let t = live.answered() + 1;
    let budget = live.body.spec.budget;
    match q {
        StoredQuery::Duel { a, b } => serde_json::json!({
            "type": "query", "t": t, "budget": budget, "kind": "duel", "a": c.json(a), "b": c.json(b)
        }),
        StoredQuery::Label { x } => {
            serde_json::json!({ "type": "query", "t": t, "budget": budget, "kind": "label", "option": c.json(x) })
        }
        StoredQuery::Value { x } => {
            serde_json::json!({ "type": "query", "t": t, "budget": budget, "kind": "value", "option": c.json(x) })
        }
    }
}

pub(super) fn ask_json(
    path: &Path,
    live: &mut Live,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<(), CliError> {
    send(
        out,
        serde_json::json!({
            "type": "session", "name": live.body.spec.name, "algorithm": live.body.spec.algorithm.name,
            "answered": live.answered(), "budget": live.body.spec.budget,
            "attributes": live.body.candidates.attributes, "candidates": live.body.candidates.names.len()
        }),
    )?;
    let mut reason = "budget";
    'outer: while !live.done() {
        let q = with_progress("the algorithm is choosing the next query", || live.next_query())?;
        send(out, query_json(live, q))?;
        loop {
            let line = match read_line(input).map_err(io_err)? {
                Line::End => {
                    reason = "end of input";
                    break 'outer;
                }
                Line::Text(line) => line,
                Line::Bad(why) => {
                    send(out, serde_json::json!({ "type": "error", "message": why }))?;
                    send(out, query_json(live, q))?;
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            match parse_json_answer(q, line.trim()) {
                Ok(None) => {
                    reason = "quit";
                    break 'outer;
                }
                Ok(Some(a)) => {
                    with_progress("updating the algorithm with the answer", || live.answer(path, a))?;
                    send(out, serde_json::json!({ "type": "saved", "answered": live.answered() }))?;
                    break;
                }
                Err(message) => {
                    send(out, serde_json::json!({ "type": "error", "message": message }))?;
                    send(out, query_json(live, q))?;
                }
            }
        }
    }
    let rec = live.recommendation().map(|i| live.body.candidates.json(i)).unwrap_or(serde_json::Value::Null);
    send(
        out,
        serde_json::json!({
            "type": "done", "reason": reason, "answered": live.answered(), "budget": live.body.spec.budget,
            "recommendation": rec
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_answers() {
        let d = StoredQuery::Duel { a: 0, b: 1 };
        let l = StoredQuery::Label { x: 0 };
        assert!(parse_json_answer(d, r#"{"choice":"c"}"#).is_err());
        assert_eq!(parse_json_answer(l, r#"{"accept":false}"#), Ok(Some(Answer::Label { accept: false })));
    }
}
