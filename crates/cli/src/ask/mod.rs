//! `bohf ask`: a person answers an algorithm's queries, one at a time, in a session that survives
//! interruptions.
//!
//! The session file is described in [`session`]; the candidates and their scaling in
//! [`candidates`]. Loading replays the history through a freshly built algorithm with the same
//! random stream, checking that it asks the same queries again. The two front ends are
//! [`terminal`] (prompts) and [`json`] (JSON lines, `docs/ask-protocol.md`).

mod candidates;
mod json;
mod session;
mod terminal;

use candidates::{load_candidates, read_spec};
use session::{SessionBody, Step, StoredQuery};

use crate::CliError;
use bohf_core::{Answer, Query, SearchContext, rng};
use bohf_experiments::{BoxedOptimizer, Registry, write_atomic};
use session::{FORMAT, backup_path, damaged, parse_session, session_text};
use std::path::Path;

/// A live session: the algorithm after replaying the history.
struct Live {
    body: SessionBody,
    optimizer: BoxedOptimizer,
    rng: bohf_core::BohfRng,
    /// The query being asked (suggested, not yet answered).
    pending: Option<Query>,
    /// The text of the last good file (becomes the backup at the next save).
    last_good: String,
}

fn build(body: &SessionBody) -> Result<(BoxedOptimizer, bohf_core::BohfRng), CliError> {
    let registry = Registry::builtin();
    let a = &body.spec.algorithm;
    let entry =
        registry.get(&a.name).ok_or_else(|| CliError::Experiment(registry.unknown("algorithm.name", &a.name)))?;
    entry.check(&a.params, "algorithm.params")?;
    let ctx = SearchContext::new(body.candidates.domain()?, body.spec.budget)
        .map_err(|e| CliError::msg(format!("budget: {e}")))?;
    let optimizer = entry.build(&ctx, &a.params).map_err(|e| CliError::msg(format!("algorithm: {e}")))?;
    Ok((optimizer, rng::seeded(body.spec.seed)))
}

impl Live {
    fn replay(body: SessionBody, text: String) -> Result<Self, CliError> {
        let (mut optimizer, mut rng) = build(&body)?;
        for (t, step) in body.history.iter().enumerate() {
            let q = optimizer.suggest(&mut rng).map_err(|e| CliError::msg(format!("replay, query {}: {e}", t + 1)))?;
            if StoredQuery::of(&q)? != step.query {
                return Err(CliError::msg(format!(
                    "replay diverged at query {}: the algorithm now asks {:?}, the session recorded {:?} \
                     (was the session made by another version of bohf?)",
                    t + 1,
                    StoredQuery::of(&q)?,
                    step.query
                )));
            }
            if !step.query.fits(&step.answer) {
                return Err(CliError::msg(format!("answer {} does not fit its query {:?}", t + 1, step.query)));
            }
            optimizer.observe(&q, step.answer).map_err(|e| CliError::msg(format!("replay, answer {}: {e}", t + 1)))?;
        }
        Ok(Self { body, optimizer, rng, pending: None, last_good: text })
    }

    fn answered(&self) -> usize {
        self.body.history.len()
    }

    fn done(&self) -> bool {
        self.answered() >= self.body.spec.budget
    }

    fn next_query(&mut self) -> Result<StoredQuery, CliError> {
        if self.pending.is_none() {
            let q = self.optimizer.suggest(&mut self.rng).map_err(|e| CliError::msg(format!("algorithm: {e}")))?;
            self.pending = Some(q);
        }
        StoredQuery::of(self.pending.as_ref().expect("set above"))
    }

    /// Records an answer: observe, append, save (backup of the previous file, then the new one).
    fn answer(&mut self, path: &Path, answer: Answer) -> Result<(), CliError> {
        let q = self.pending.take().ok_or_else(|| CliError::msg("no query is pending"))?;
        let stored = StoredQuery::of(&q)?;
        self.optimizer.observe(&q, answer).map_err(|e| CliError::msg(format!("algorithm: {e}")))?;
        self.body.history.push(Step { query: stored, answer });
        let text = session_text(&self.body)?;
        write_atomic(backup_path(path), self.last_good.as_bytes())?;
        write_atomic(path, text.as_bytes())?;
        self.last_good = text;
        Ok(())
    }

    fn recommendation(&self) -> Option<usize> {
        self.optimizer.recommend().ok().and_then(|p| p.index)
    }
}

/// `bohf ask new SESSION --spec SPEC`.
pub fn new_session(path: &Path, spec_path: &Path, force: bool) -> Result<(), CliError> {
    if path.exists() && !force {
        return Err(CliError::msg(format!(
            "`{}` exists; continue it with `bohf ask {}`, or pass --force to start over",
            path.display(),
            path.display()
        )));
    }
    let spec = read_spec(spec_path)?;
    if spec.name.trim().is_empty() {
        return Err(CliError::msg("name: must not be empty"));
    }
    if spec.budget == 0 {
        return Err(CliError::msg("budget: need at least one query, got 0"));
    }
    let candidates = load_candidates(&spec)?;
    let body = SessionBody { format: FORMAT.into(), version: 1, spec, candidates, history: Vec::new() };
    build(&body).map_err(|e| CliError::msg(format!("`{}`: {e}", spec_path.display())))?;
    write_atomic(path, session_text(&body)?.as_bytes())?;
    println!(
        "session `{}`: {} candidates, {} attribute(s), budget {} queries, algorithm {}\nanswer with: bohf ask {}",
        body.spec.name,
        body.candidates.names.len(),
        body.candidates.attributes.len(),
        body.spec.budget,
        body.spec.algorithm.name,
        path.display()
    );
    Ok(())
}

fn load(path: &Path) -> Result<Live, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::msg(format!("cannot read session file `{}`: {e}", path.display())))?;
    let body = parse_session(&text).map_err(|why| damaged(path, &why))?;
    Live::replay(body, text)
}

/// `bohf ask SESSION [--json]`.
pub fn ask(path: &Path, json: bool) -> Result<(), CliError> {
    let mut live = load(path)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if json {
        json::ask_json(path, &mut live, &mut input, &mut out)
    } else {
        terminal::ask_terminal(path, &mut live, &mut input, &mut out)
    }
}

fn io_err(e: std::io::Error) -> CliError {
    CliError::msg(format!("terminal: {e}"))
}
