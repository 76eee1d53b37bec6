//! Checkpoints of unfinished runs: a run that takes hours (COBOL with many labels) survives the
//! end of its process and continues, with `--resume`, from its last checkpoint instead of step 1.
//!
//! A checkpoint holds the steps recorded so far, the algorithm's and the respondent's random
//! streams, and the algorithm's saved state ([`bohf_core::Optimizer::save_state`]); the
//! respondents hold no state between answers beyond their stream. Restored, the run continues
//! exactly as if it had never stopped: its run file is the same, byte for byte, but for the
//! `elapsed_s` column (tested). Only algorithms that save their state are checkpointed (COBOL and
//! its variants today); the others restart from step 1, as before.
//!
//! In a results folder ([`crate::folder`]) the checkpoint of run `r` of algorithm `a` is
//! `runs/a{a}-r{r}.partial.json`: JSON and a checksum line, written atomically (temp file +
//! rename) at most every `checkpoint_every` of wall time, and removed when the run's file is
//! written. A failed run keeps its checkpoint (a `--resume` retries from it). A checkpoint that is
//! damaged, or that the algorithm cannot restore, is reported, moved aside to
//! `….partial.json.damaged`, and the run starts again from step 1.

use crate::checksum::{strip_checksum_line, with_checksum_line};
use crate::results::RunId;
use crate::results::StepRecord;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The format's version: a checkpoint of another version is refused (and the run restarts).
pub const CHECKPOINT_VERSION: u32 = 1;

/// The default interval between two checkpoints of a run (wall time).
pub const DEFAULT_CHECKPOINT_EVERY: Duration = Duration::from_secs(300);

/// The state of an unfinished run after its last recorded step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// [`CHECKPOINT_VERSION`].
    pub version: u32,
    /// The run.
    pub id: RunId,
    /// The algorithm's label (a checkpoint of another algorithm is refused).
    pub label: String,
    /// The steps recorded so far, t = 1..=k (k ≥ 1).
    pub steps: Vec<StepRecord>,
    /// The algorithm's random stream after step k.
    pub algorithm_rng: bohf_core::BohfRng,
    /// The respondent's random stream after step k.
    pub respondent_rng: bohf_core::BohfRng,
    /// The algorithm's state after step k ([`bohf_core::Optimizer::save_state`]).
    pub optimizer: String,
}

impl Checkpoint {
    /// The checkpoint as the text of its file: JSON and a checksum line.
    pub fn to_text(&self) -> String {
        let mut json = serde_json::to_string(self).expect("a checkpoint serialises");
        json.push('\n');
        with_checksum_line(&json)
    }

    /// Reads the text of a checkpoint file, checking its checksum, version and run; the error says
    /// what is wrong.
    pub fn from_text(text: &str, id: RunId, label: &str) -> Result<Self, String> {
        let body = strip_checksum_line(text).map_err(|e| e.to_string())?;
        let c: Checkpoint = serde_json::from_str(body).map_err(|e| format!("not a checkpoint: {e}"))?;
        if c.version != CHECKPOINT_VERSION {
            return Err(format!("format version {}, this build reads version {CHECKPOINT_VERSION}", c.version));
        }
        if c.id != id || c.label != label {
            return Err(format!(
                "it is run {} of `{}` (algorithm {}), not run {} of `{label}` (algorithm {})",
                c.id.run, c.label, c.id.algorithm, id.run, id.algorithm
            ));
        }
        if c.steps.is_empty() || c.steps.iter().enumerate().any(|(i, s)| s.t != i + 1) {
            return Err("its steps are not numbered 1, 2, …".into());
        }
        Ok(c)
    }
}

/// The checkpoint file of a run in a results folder.
pub fn checkpoint_file(dir: &Path, id: RunId) -> PathBuf {
    dir.join("runs").join(format!("a{}-r{}.partial.json", id.algorithm, id.run))
}

/// How the runner checkpoints its runs ([`crate::Experiment::run_tasks_checkpointed`]).
pub struct Checkpointing<'a> {
    /// The least wall time between two checkpoints of a run (zero: after every step).
    pub every: Duration,
    /// The checkpoint a run continues from, if any (called once as the run starts).
    pub load: &'a (dyn Fn(RunId) -> Option<Checkpoint> + Sync),
    /// Saves a checkpoint (e.g. writes its file); it reports its own errors, which do not stop
    /// the run.
    pub save: &'a (dyn Fn(&Checkpoint) + Sync),
    /// Told that a loaded checkpoint could not be restored (and why): the run restarts from step 1.
    pub reject: &'a (dyn Fn(RunId, &str) + Sync),
    /// Told that a run's state could not be saved (and why): the run goes on without checkpoints.
    pub warn: &'a (dyn Fn(RunId, &str) + Sync),
}
