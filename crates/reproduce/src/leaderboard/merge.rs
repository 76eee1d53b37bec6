//! The boards a leaderboard page shows, kept beside it (`leaderboard/boards.json`), so that a call
//! on some of the suite's problems (`bohf leaderboard --resume catalyst`) merges into the page: the
//! problems it ran replace theirs, the others stay as they were.

use super::ProblemBoard;
use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::write_atomic;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A problem of the suite that did not run, and why (its data file is missing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// The spec name.
    pub name: String,
    /// Why, in words.
    pub reason: String,
}

/// What `boards.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Boards {
    /// The format's version (1).
    pub version: u32,
    /// The boards of the page, in suite order.
    pub boards: Vec<ProblemBoard>,
    /// The problems without a board, and why.
    #[serde(default)]
    pub skipped: Vec<Skipped>,
}

/// The version of [`Boards`] written.
pub const BOARDS_VERSION: u32 = 1;

/// The file of the boards of the page in `dir`: `dir/leaderboard/boards.json`.
pub fn boards_file(dir: &Path) -> PathBuf {
    dir.join("leaderboard").join("boards.json")
}

/// Writes the boards of the page in `dir` ([`boards_file`]).
pub fn write_boards(dir: &Path, boards: &[ProblemBoard], skipped: &[Skipped]) -> Result<()> {
    let path = boards_file(dir);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| ExperimentError::Io {
            action: "create",
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let b = Boards { version: BOARDS_VERSION, boards: boards.to_vec(), skipped: skipped.to_vec() };
    write_atomic(&path, serde_json::to_string_pretty(&b)?.as_bytes())
}

/// The boards of the page in `dir`; `None` if it has none (no page yet, or a page written before
/// they were kept). An error naming the file if it cannot be read or parsed.
pub fn read_boards(dir: &Path) -> Result<Option<Boards>> {
    let path = boards_file(dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ExperimentError::Io { action: "read", path, source }),
    };
    let b: Boards = serde_json::from_str(&text)
        .map_err(|e| ExperimentError::Results { path: Some(path.clone()), reason: e.to_string() })?;
    if b.version != BOARDS_VERSION {
        return Err(ExperimentError::Results {
            path: Some(path),
            reason: format!("version {} (this bohf reads version {BOARDS_VERSION})", b.version),
        });
    }
    Ok(Some(b))
}

/// The page after a call: the boards of `earlier` (a page's [`Boards`]) with those of the same
/// problem replaced by `new`, the new problems added; in the order of `suite` (the suite's problem
/// names; others last, in their order). A problem skipped in this call keeps its earlier board if
/// it had one, and is listed as skipped only if it has none; a problem with a board is never
/// listed as skipped.
pub fn merge_boards(
    earlier: Option<Boards>,
    new: Vec<ProblemBoard>,
    skipped: Vec<Skipped>,
    suite: &[String],
) -> (Vec<ProblemBoard>, Vec<Skipped>) {
    let (mut boards, mut old_skipped) = earlier.map_or((Vec::new(), Vec::new()), |b| (b.boards, b.skipped));
    for b in new {
        boards.retain(|o| o.name != b.name);
        boards.push(b);
    }
    old_skipped.retain(|k| !skipped.iter().any(|s| s.name == k.name));
    old_skipped.extend(skipped);
    old_skipped.retain(|k| !boards.iter().any(|b| b.name == k.name));
    let rank = |name: &str| suite.iter().position(|s| s == name).unwrap_or(usize::MAX);
    boards.sort_by_key(|b| rank(&b.name));
    old_skipped.sort_by_key(|k| rank(&k.name));
    (boards, old_skipped)
}
