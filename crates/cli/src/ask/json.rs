//! The JSON-lines front end of `bohf ask --json` (the protocol is in `docs/ask-protocol.md`; the
//! messages and the parsing of answers are [`bohf_session::protocol`]'s).

use super::{Line, io_err, read_line, with_progress};
use crate::CliError;
use bohf_session::Session;
use bohf_session::protocol::{
    Reply, done_message, error_message, parse_answer, query_message, saved_message, session_message,
};
use std::io::{BufRead, Write};

fn send(out: &mut impl Write, v: serde_json::Value) -> Result<(), CliError> {
    writeln!(out, "{v}").map_err(io_err)?;
    out.flush().map_err(io_err)
}

pub(super) fn ask_json(live: &mut Session, input: &mut impl BufRead, out: &mut impl Write) -> Result<(), CliError> {
    send(out, session_message(live))?;
    let mut reason = "budget";
    'outer: while let Some(q) = with_progress("the algorithm is choosing the next query", || live.pending())? {
        send(out, query_message(live, &q))?;
        loop {
            let line = match read_line(input).map_err(io_err)? {
                Line::End => {
                    reason = "end of input";
                    break 'outer;
                }
                Line::Text(line) => line,
                Line::Bad(why) => {
                    send(out, error_message(&why))?;
                    send(out, query_message(live, &q))?;
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            match parse_answer(&q, line.trim()) {
                Ok(Reply::Quit) => {
                    reason = "quit";
                    break 'outer;
                }
                Ok(Reply::Answer(a)) => {
                    with_progress("updating the algorithm with the answer", || live.answer(a))?;
                    send(out, saved_message(live))?;
                    break;
                }
                Ok(Reply::Abstain(k)) => {
                    with_progress("updating the algorithm", || live.abstain(k))?;
                    send(out, saved_message(live))?;
                    break;
                }
                Err(message) => {
                    send(out, error_message(&message))?;
                    send(out, query_message(live, &q))?;
                }
            }
        }
    }
    if reason == "budget" {
        // The loop ended because no query is left: say why (the budget, or the algorithm's self-duels).
        reason = live.end().map_or("budget", bohf_session::End::key);
    }
    send(out, done_message(live, reason))
}
