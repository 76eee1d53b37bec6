//! What a folder run tells its caller while it works ([`FolderProgress`]), and the two plain
//! implementations: [`Quiet`] and [`PlainLines`].

use super::*;

/// What a folder run tells its caller while it works, and how the caller stops it. Every method
/// has a default: [`Quiet`] says nothing and never stops; the `bohf` command draws a progress bar;
/// the Python package stops on Ctrl-C.
pub trait FolderProgress: Sync {
    /// Before the first run starts: one line naming the experiment and the work to do, and the
    /// number of runs to do.
    fn start(&self, _line: &str, _todo: usize) {}
    /// A warning or a notice (a damaged run file moved aside, stale temporary files removed).
    fn note(&self, _message: &str) {}
    /// Run number `k` of `total` (counting finished and failed runs) has finished and is saved.
    fn finished(&self, _k: usize, _total: usize, _record: &RunRecord) {}
    /// Run number `k` of `total` has failed; its error is saved.
    fn failed(&self, _k: usize, _total: usize, _failure: &FailedRun) {}
    /// An unfinished run's checkpoint was saved ([`crate::checkpoint`]): how far a long run is.
    fn checkpointed(&self, _checkpoint: &Checkpoint) {}
    /// Every run of this call is done (before the results are collected and written).
    fn end(&self, _total: usize, _seconds: f64) {}
    /// Asked before each run starts: true stops the call (runs in flight finish and are saved;
    /// the call then fails with an error saying how many runs are saved, and `resume` continues).
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`FolderProgress`] that says nothing and never stops.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl FolderProgress for Quiet {}

/// A [`FolderProgress`] that writes one plain line per event to stderr (the `bohf` command when
/// stderr is not a terminal).
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainLines;

impl FolderProgress for PlainLines {
    fn start(&self, line: &str, _todo: usize) {
        eprintln!("{line}");
    }
    fn note(&self, message: &str) {
        eprintln!("{message}");
    }
    fn finished(&self, k: usize, total: usize, record: &RunRecord) {
        eprintln!("[{k}/{total}] {} run {} done in {:.2} s", record.label, record.id.run, record.wall_seconds());
    }
    fn failed(&self, k: usize, total: usize, failure: &FailedRun) {
        eprintln!("[{k}/{total}] FAILED: {failure}");
    }
    fn checkpointed(&self, c: &Checkpoint) {
        let last = c.steps.last().map_or(0.0, |s| s.elapsed_s);
        eprintln!(
            "{} run {}: checkpoint after step {} ({last:.0} s in the algorithm)",
            c.label,
            c.id.run,
            c.steps.len()
        );
    }
    fn end(&self, total: usize, seconds: f64) {
        eprintln!("{total} run(s) in {seconds:.1} s");
    }
}
