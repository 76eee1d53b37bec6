//! `bohf ask`: a person answers an algorithm's queries, one at a time, in a session that survives
//! interruptions.
//!
//! The sessions themselves (file, candidates, replay, the JSON protocol) are [`bohf_session`]'s;
//! this module holds the two front ends, [`terminal`] (prompts) and [`json`] (JSON lines,
//! `docs/ask-protocol.md`).

mod json;
mod terminal;

use crate::CliError;
use bohf_session::{Session, SessionError};
use std::path::Path;

impl From<SessionError> for CliError {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Experiment(e) => CliError::Experiment(e),
            other => CliError::msg(other.to_string()),
        }
    }
}

/// Tells the person about temporary files of interrupted saves that opening a session removed.
fn report_removed(s: &Session) {
    let n = s.removed_temp_files().len();
    if n > 0 {
        eprintln!(
            "removed {n} stale temporary file{} from an interrupted save of `{}`; nothing else changed",
            if n == 1 { "" } else { "s" },
            s.path().display()
        );
    }
}

/// `bohf ask new SESSION --spec SPEC`.
pub fn new_session(path: &Path, spec_path: &Path, force: bool) -> Result<(), CliError> {
    let body = bohf_session::prepare(spec_path)?;
    let s = Session::create(path, body, force)?;
    report_removed(&s);
    let b = s.body();
    println!(
        "session `{}`: {} candidates, {} attribute(s), budget {} queries, algorithm {}\nanswer with: bohf ask {}",
        b.spec.name,
        b.candidates.names.len(),
        b.candidates.attributes.len(),
        b.spec.budget,
        b.spec.algorithm.name,
        path.display()
    );
    Ok(())
}

/// `bohf ask SESSION [--json]`. Holds the session's lock for the whole session.
pub fn ask(path: &Path, json: bool) -> Result<(), CliError> {
    let mut live = with_progress("loading the session and replaying its answers", || Session::open(path))?;
    report_removed(&live);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if json {
        json::ask_json(&mut live, &mut input, &mut out)
    } else {
        terminal::ask_terminal(&mut live, &mut input, &mut out)
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
