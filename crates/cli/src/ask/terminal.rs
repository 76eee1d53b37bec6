//! The terminal front end of `bohf ask`: prompts, typed answers, and the tables of a duel.

use super::{Line, io_err, read_line, with_progress};
use crate::CliError;
use bohf_core::{Abstention, Answer};
use bohf_session::candidates::fmt_num;
use bohf_session::{End, MAX_SELF_DUELS_IN_A_ROW, Session, StoredAnswer, StoredQuery};
use std::io::{BufRead, Write};

/// Parses a typed answer (`=` is "no preference", `s` is "skip"); `Ok(None)` means quit.
fn parse_typed(q: &StoredQuery, line: &str) -> Result<Option<StoredAnswer>, String> {
    let s = line.trim().to_lowercase();
    if matches!(s.as_str(), "q" | "quit" | "exit") {
        return Ok(None);
    }
    match s.as_str() {
        "=" | "same" | "no preference" => return Ok(Some(Abstention::NoPreference.into())),
        "s" | "skip" => return Ok(Some(Abstention::Skip.into())),
        _ => {}
    }
    let answer = match q {
        StoredQuery::Duel { .. } => match s.as_str() {
            "a" | "1" => Answer::Duel { first_wins: true },
            "b" | "2" => Answer::Duel { first_wins: false },
            _ => return Err("type a or b (= no preference, s skip, q to stop)".into()),
        },
        StoredQuery::Label { .. } => match s.as_str() {
            "y" | "yes" => Answer::Label { accept: true },
            "n" | "no" => Answer::Label { accept: false },
            _ => return Err("type y or n (= no preference, s skip, q to stop)".into()),
        },
        StoredQuery::Value { .. } => match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Answer::Value(v),
            _ => return Err("type a number (= no preference, s skip, q to stop)".into()),
        },
        // Options are numbered 1..k on the screen; the answer's index is 0-based.
        StoredQuery::Choice { options } => match s.parse::<usize>() {
            Ok(i) if (1..=options.len()).contains(&i) => Answer::Choice { index: i - 1 },
            _ => {
                return Err(format!(
                    "type the number of an option, 1 to {} (= no preference, s skip, q to stop)",
                    options.len()
                ));
            }
        },
    };
    Ok(Some(answer.into()))
}

/// The spec's question, or "Which do you prefer?".
fn question(live: &Session) -> String {
    live.body().spec.question.clone().unwrap_or_else(|| "Which do you prefer?".into())
}

/// The options side by side: a header row (`headers`, e.g. A and B), the names, then one row per
/// attribute. Every column but the last is padded to its widest cell (at least 8 characters).
fn option_table(live: &Session, options: &[usize], headers: &[&str]) -> String {
    let c = &live.body().candidates;
    let w0 = c.attributes.iter().map(|s| s.chars().count()).max().unwrap_or(0).max(4);
    let cell = |i: usize, j: Option<usize>| match j {
        None => c.names[i].clone(),
        Some(j) => fmt_num(c.values[i][j]),
    };
    let widths: Vec<usize> = options
        .iter()
        .map(|&i| {
            std::iter::once(None)
                .chain((0..c.attributes.len()).map(Some))
                .map(|j| cell(i, j).chars().count())
                .max()
                .unwrap_or(0)
                .max(8)
        })
        .collect();
    let row = |label: &str, cells: Vec<String>| {
        let mut line = format!("  {label:w0$}");
        for (k, text) in cells.iter().enumerate() {
            if k + 1 < cells.len() {
                line.push_str(&format!("   {text:w$}", w = widths[k]));
            } else {
                line.push_str(&format!("   {text}"));
            }
        }
        line.push('\n');
        line
    };
    let mut s = row("", headers.iter().map(|h| h.to_string()).collect());
    s.push_str(&row("", options.iter().map(|&i| cell(i, None)).collect()));
    for (j, name) in c.attributes.iter().enumerate() {
        s.push_str(&row(name, options.iter().map(|&i| cell(i, Some(j))).collect()));
    }
    s
}

fn show_query(live: &Session, q: &StoredQuery) -> String {
    let c = &live.body().candidates;
    let mut head = format!("Query {} of {}", live.answered() + 1, live.budget());
    if let (Some(left), Some(costs)) = (live.budget_left(), &live.body().spec.costs) {
        head.push_str(&format!(" (budget left {left} of {})", costs.total));
    }
    match *q {
        StoredQuery::Duel { a, b } => {
            let mut s = format!("{head}: {}\n\n", question(live));
            // Never a == b: the session answers self-duels itself (`Session::pending`).
            s.push_str(&option_table(live, &[a, b], &["A", "B"]));
            s.push_str("\nA or B? [a/b, = no preference, s skip, q to stop] ");
            s
        }
        StoredQuery::Choice { ref options } => {
            let headers: Vec<String> = (1..=options.len()).map(|i| i.to_string()).collect();
            let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
            let mut s = format!("{head}: {}\n\n", question(live));
            s.push_str(&option_table(live, options, &headers));
            let k = options.len();
            s.push_str(&format!("\nWhich one, 1 to {k}? [1-{k}, = no preference, s skip, q to stop] "));
            s
        }
        StoredQuery::Label { x } => {
            format!("{head}: accept {}? [y/n, = no preference, s skip, q to stop] ", c.describe(x))
        }
        StoredQuery::Value { x } => {
            format!("{head}: your value for {}? [a number, = no preference, s skip, q to stop] ", c.describe(x))
        }
    }
}

pub(super) fn ask_terminal(live: &mut Session, input: &mut impl BufRead, out: &mut impl Write) -> Result<(), CliError> {
    writeln!(
        out,
        "Session `{}` ({}): {} of {} queries answered. Answers are saved as you go.\n",
        live.body().spec.name,
        live.body().spec.algorithm.name,
        live.answered(),
        live.budget()
    )
    .map_err(io_err)?;
    let mut quit = false;
    while !quit {
        let Some(q) = with_progress("the algorithm is choosing the next query", || live.pending())? else { break };
        write!(out, "{}", show_query(live, &q)).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        loop {
            let line = match read_line(input).map_err(io_err)? {
                Line::End => {
                    writeln!(out).map_err(io_err)?;
                    quit = true;
                    break;
                }
                Line::Text(line) => line,
                Line::Bad(why) => {
                    write!(out, "that is not an answer: {why}: ").map_err(io_err)?;
                    out.flush().map_err(io_err)?;
                    continue;
                }
            };
            match parse_typed(&q, &line) {
                Ok(None) => {
                    quit = true;
                    break;
                }
                Ok(Some(a)) => {
                    with_progress("updating the algorithm with the answer", || live.record(a))?;
                    writeln!(out, "saved ({} of {})\n", live.answered(), live.budget()).map_err(io_err)?;
                    break;
                }
                Err(hint) => {
                    write!(out, "`{}` is not an answer: {hint}: ", shorten(line.trim())).map_err(io_err)?;
                    out.flush().map_err(io_err)?;
                }
            }
        }
    }
    let (answered, budget) = (live.answered(), live.budget());
    match live.end() {
        Some(End::Costs) => writeln!(out, "The cost budget is spent ({answered} answers)."),
        Some(End::Budget) => writeln!(out, "The budget of {budget} queries is spent."),
        Some(End::SelfDuels) => writeln!(
            out,
            "The algorithm asked only duels of an option against itself ({MAX_SELF_DUELS_IN_A_ROW} in a row): it has \
             nothing else to ask, so the session ends after {answered} of {budget} answers."
        ),
        Some(End::Horizon) => writeln!(
            out,
            "The algorithm has made all the queries it was built for ({budget}, counting the duels of an option \
             against itself), so the session ends after {answered} of {budget} answers."
        ),
        None => writeln!(out, "Stopped after {answered} answers; continue with `bohf ask {}`.", live.path().display()),
    }
    .map_err(io_err)?;
    if live.automatic() > 0 {
        writeln!(
            out,
            "{} duel(s) of an option against itself were answered automatically (not shown; recorded in the file).",
            live.automatic()
        )
        .map_err(io_err)?;
    }
    // Nothing before the person's first informative answer: the algorithm's pick would reflect
    // only its prior and its seed (`Session::recommendation_to_show`).
    match live.recommendation_to_show() {
        Some(i) => writeln!(out, "Current recommendation: {}", live.body().candidates.describe(i)).map_err(io_err)?,
        None if live.informative_answers() == 0 => {
            writeln!(out, "No recommendation yet: it comes with the first answer.").map_err(io_err)?
        }
        None => writeln!(out, "No recommendation yet.").map_err(io_err)?,
    }
    Ok(())
}

/// At most 60 characters of `s` (with "…" if cut), to echo a bad answer.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_answers() {
        let d = StoredQuery::Duel { a: 0, b: 1 };
        assert_eq!(parse_typed(&d, " A \n"), Ok(Some(Answer::Duel { first_wins: true }.into())));
        assert_eq!(parse_typed(&d, "2"), Ok(Some(Answer::Duel { first_wins: false }.into())));
        assert_eq!(parse_typed(&d, " = "), Ok(Some(Abstention::NoPreference.into())));
        assert_eq!(parse_typed(&d, "S"), Ok(Some(Abstention::Skip.into())));
        assert_eq!(parse_typed(&d, "q"), Ok(None));
        assert!(parse_typed(&d, "maybe").is_err());
        let v = StoredQuery::Value { x: 0 };
        assert_eq!(parse_typed(&v, "2.5"), Ok(Some(Answer::Value(2.5).into())));
        assert_eq!(parse_typed(&v, "skip"), Ok(Some(Abstention::Skip.into())));
        assert!(parse_typed(&v, "nan").is_err());
        let l = StoredQuery::Label { x: 0 };
        assert_eq!(parse_typed(&l, "yes"), Ok(Some(Answer::Label { accept: true }.into())));
        // A best-of-3 choice: the screen numbers options 1 to 3, the answer's index is 0-based.
        let c = StoredQuery::Choice { options: vec![5, 2, 9] };
        assert_eq!(parse_typed(&c, " 3 "), Ok(Some(Answer::Choice { index: 2 }.into())));
        assert_eq!(parse_typed(&c, "1"), Ok(Some(Answer::Choice { index: 0 }.into())));
        assert_eq!(parse_typed(&c, "="), Ok(Some(Abstention::NoPreference.into())));
        for bad in ["0", "4", "a", "-1", "1.5"] {
            let e = parse_typed(&c, bad).unwrap_err();
            assert!(e.contains("1 to 3"), "{bad}: {e}");
        }
    }
}
