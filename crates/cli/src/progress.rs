//! How `bohf run`, `merge` and `reproduce` show their progress: a progress bar when stderr is a
//! terminal, plain lines otherwise ([`bohf_experiments::folder::PlainLines`]).

use bohf_experiments::checkpoint::Checkpoint;
use bohf_experiments::folder::{FolderProgress, PlainLines};
use bohf_experiments::{FailedRun, RunRecord};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::OnceLock;

/// A progress bar on stderr (created when the run starts).
#[derive(Default)]
struct Bar(OnceLock<ProgressBar>);

impl FolderProgress for Bar {
    fn start(&self, line: &str, todo: usize) {
        eprintln!("{line}");
        let b = ProgressBar::new(todo as u64);
        b.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} runs, ETA {eta} {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        let _ = self.0.set(b);
    }
    fn note(&self, message: &str) {
        match self.0.get() {
            Some(b) => b.println(message),
            None => eprintln!("{message}"),
        }
    }
    fn finished(&self, _k: usize, _total: usize, record: &RunRecord) {
        if let Some(b) = self.0.get() {
            b.set_message(format!("(last: {} run {})", record.label, record.id.run));
            b.inc(1);
        }
    }
    fn failed(&self, _k: usize, _total: usize, failure: &FailedRun) {
        if let Some(b) = self.0.get() {
            b.println(format!("FAILED: {failure}"));
            b.inc(1);
        }
    }
    fn checkpointed(&self, c: &Checkpoint) {
        if let Some(b) = self.0.get() {
            b.set_message(format!("({} run {}: checkpoint after step {})", c.label, c.id.run, c.steps.len()));
        }
    }
    fn end(&self, total: usize, seconds: f64) {
        if let Some(b) = self.0.get() {
            b.finish_and_clear();
        }
        eprintln!("{total} run(s) in {seconds:.1} s");
    }
}

/// The progress display of this process: a bar if stderr is a terminal, else plain lines.
pub fn for_stderr() -> Box<dyn FolderProgress> {
    if std::io::stderr().is_terminal() { Box::new(Bar::default()) } else { Box::new(PlainLines) }
}
