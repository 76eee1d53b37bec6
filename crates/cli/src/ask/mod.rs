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
use crate::lock::{LockGuard, lock_exclusive};
use bohf_core::{Answer, Query, SearchContext, rng};
use bohf_experiments::{BoxedOptimizer, Registry, remove_stale_temp_files, write_atomic};
use session::{FORMAT, backup_path, damaged, parse_session, session_text};
use std::path::{Path, PathBuf};

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
    /// Replays a validated body ([`SessionBody::validate`]) through a freshly built algorithm.
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

/// The lock file of a session: `SESSION.json.lock` next to it.
fn lock_path(path: &Path) -> PathBuf {
    session::with_suffix(path, ".lock")
}

/// Takes the session's lock (held until the guard is dropped), then removes the temporary files of
/// saves of this session that a killed process left behind, saying so on stderr.
fn lock_session(path: &Path) -> Result<LockGuard, CliError> {
    let guard = lock_exclusive(&lock_path(path), &format!("session `{}`", path.display()))?;
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let owned = [name(path), name(&backup_path(path))];
    let removed = remove_stale_temp_files(path.parent().unwrap_or(Path::new(".")), |t| owned.iter().any(|o| o == t))?;
    if !removed.is_empty() {
        let n = removed.len();
        eprintln!(
            "removed {n} stale temporary file{} from an interrupted save of `{}`; nothing else changed",
            if n == 1 { "" } else { "s" },
            path.display()
        );
    }
    Ok(guard)
}

/// Reads and checks a session spec, loads its candidates and builds its algorithm once: everything
/// `bohf ask new` does before it writes the session file (also used by `bohf check --ask`).
pub fn prepare_session(spec_path: &Path) -> Result<SessionBody, CliError> {
    let spec = read_spec(spec_path)?;
    if spec.name.trim().is_empty() {
        return Err(CliError::msg("name: must not be empty"));
    }
    let candidates = load_candidates(&spec)?;
    let body = SessionBody { format: FORMAT.into(), version: 1, spec, candidates, history: Vec::new() };
    body.validate().map_err(|e| CliError::msg(format!("`{}`: {e}", spec_path.display())))?;
    build(&body).map_err(|e| CliError::msg(format!("`{}`: {e}", spec_path.display())))?;
    Ok(body)
}

/// `bohf ask new SESSION --spec SPEC`.
pub fn new_session(path: &Path, spec_path: &Path, force: bool) -> Result<(), CliError> {
    let body = prepare_session(spec_path)?;
    let _lock = lock_session(path)?;
    if path.exists() && !force {
        return Err(CliError::msg(format!(
            "`{}` exists; continue it with `bohf ask {}`, or pass --force to start over",
            path.display(),
            path.display()
        )));
    }
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

/// Reads, checks and replays a session; every way it can fail goes through [`damaged`] (which
/// offers the backup if it is good).
fn load(path: &Path) -> Result<Live, CliError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(damaged(path, "does not exist")),
        Err(e) => return Err(damaged(path, &format!("cannot be read ({e})"))),
    };
    let body = parse_session(&bytes).map_err(|why| damaged(path, &format!("is damaged ({why})")))?;
    let text = String::from_utf8(bytes).map_err(|e| damaged(path, &format!("is damaged (not a text file: {e})")))?;
    Live::replay(body, text).map_err(|e| damaged(path, &format!("cannot be replayed ({e})")))
}

/// `bohf ask SESSION [--json]`. Holds the session's lock for the whole session.
pub fn ask(path: &Path, json: bool) -> Result<(), CliError> {
    if !path.exists() {
        return Err(damaged(path, "does not exist"));
    }
    let _lock = lock_session(path)?;
    let mut live = with_progress("loading the session and replaying its answers", || load(path))?;
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

/// Runs `work`; if it takes longer than a second, shows a spinner with `message` on stderr until it
/// ends (drawn only when stderr is a terminal; stdout, and so the JSON protocol, is untouched).
fn with_progress<T>(message: &str, work: impl FnOnce() -> T) -> T {
    when_slow(
        std::time::Duration::from_secs(1),
        |still_running| {
            let spinner = indicatif::ProgressBar::new_spinner();
            spinner.set_message(format!("{message} (this can take a while with many options)"));
            while still_running(std::time::Duration::from_millis(100)) {
                spinner.tick();
            }
            spinner.finish_and_clear();
        },
        work,
    )
}

/// Runs `work` on this thread; if it is still running after `delay`, runs `slow` on a helper thread
/// until it returns. `slow` gets `still_running(timeout)`, which waits up to `timeout` and says
/// whether `work` is still running (it returns false as soon as `work` ends), so `slow` can
/// animate until then. Returns `work`'s result once both have ended.
fn when_slow<T>(
    delay: std::time::Duration,
    slow: impl FnOnce(&dyn Fn(std::time::Duration) -> bool) + Send,
    work: impl FnOnce() -> T,
) -> T {
    use std::sync::mpsc::{RecvTimeoutError, channel};
    let (done, wait) = channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let still_running = |timeout| wait.recv_timeout(timeout) == Err(RecvTimeoutError::Timeout);
            if still_running(delay) {
                slow(&still_running);
            }
        });
        let out = work();
        drop(done);
        out
    })
}

/// The longest answer line read (1 MiB); a longer one is skipped and reported as a bad answer.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// One line of input.
#[derive(Debug, PartialEq)]
enum Line {
    /// End of input.
    End,
    /// A line (without its line break).
    Text(String),
    /// A line that is not an answer: why (invalid UTF-8, too long).
    Bad(String),
}

/// Reads one line as bytes, at most [`MAX_LINE`] of them kept: invalid UTF-8 and overlong lines
/// are [`Line::Bad`] (the rest of an overlong line is read and dropped), so that no input ends a
/// session or fills the memory.
fn read_line(input: &mut impl std::io::BufRead) -> std::io::Result<Line> {
    let mut buf = Vec::new();
    let n = std::io::BufRead::read_until(&mut std::io::Read::take(&mut *input, MAX_LINE as u64 + 1), b'\n', &mut buf)?;
    if n == 0 {
        return Ok(Line::End);
    }
    if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE {
        // Skip to the end of the line without keeping it.
        loop {
            let chunk = input.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    input.consume(i + 1);
                    break;
                }
                None => {
                    let len = chunk.len();
                    input.consume(len);
                }
            }
        }
        return Ok(Line::Bad(format!("the line is longer than {} bytes", MAX_LINE)));
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    Ok(match String::from_utf8(buf) {
        Ok(s) => Line::Text(s),
        Err(e) => Line::Bad(format!("the line is not valid UTF-8 ({})", e.utf8_error())),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// The progress indicator runs only for slow work, and only while it runs: work longer than the
    /// delay starts it (and it sees the end), work shorter than the delay never does.
    #[test]
    fn progress_is_shown_only_for_work_longer_than_the_delay() {
        let ticks = AtomicUsize::new(0);
        let out = when_slow(
            Duration::from_millis(20),
            |still_running| {
                while still_running(Duration::from_millis(5)) {
                    ticks.fetch_add(1, Ordering::SeqCst);
                }
            },
            || {
                std::thread::sleep(Duration::from_millis(300));
                7
            },
        );
        assert_eq!(out, 7);
        assert!(ticks.load(Ordering::SeqCst) > 0, "slow work showed no progress");
        let shown = AtomicUsize::new(0);
        let out = when_slow(
            Duration::from_secs(30),
            |_| {
                shown.fetch_add(1, Ordering::SeqCst);
            },
            || 8,
        );
        assert_eq!((out, shown.load(Ordering::SeqCst)), (8, 0), "fast work showed progress");
    }

    use super::*;

    #[test]
    fn read_line_reports_invalid_utf8_and_overlong_lines_and_goes_on() {
        let mut data = b"a\r\n\xff\xfeb\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        data.extend(b"\nlast");
        let mut input = std::io::BufReader::with_capacity(1000, &data[..]);
        assert_eq!(read_line(&mut input).unwrap(), Line::Text("a".into()));
        assert!(matches!(read_line(&mut input).unwrap(), Line::Bad(m) if m.contains("UTF-8")));
        assert!(matches!(read_line(&mut input).unwrap(), Line::Bad(m) if m.contains("longer than 1048576 bytes")));
        assert_eq!(read_line(&mut input).unwrap(), Line::Text("last".into()));
        assert_eq!(read_line(&mut input).unwrap(), Line::End);
        // A line of exactly MAX_LINE bytes is kept.
        let mut exact = vec![b'y'; MAX_LINE];
        exact.push(b'\n');
        assert!(matches!(read_line(&mut &exact[..]).unwrap(), Line::Text(s) if s.len() == MAX_LINE));
    }
}
