//! The session file: its format, checksum, loading and saving, and the backup.
//!
//! A session file is JSON `{"body": …, "checksum": "fnv1a64:…"}`. The body holds the session spec,
//! the candidates (names and raw attribute values, copied from the CSV or the box so that the
//! session does not depend on the file any more), the seed and every answered query. The checksum
//! is FNV-1a (64 bit) of the body's compact JSON: it detects accidental damage (truncation, a hand
//! edit), not tampering. The file is rewritten after every answer by temp file + rename, and the
//! previous good version is kept as `SESSION.json.bak`.

use super::candidates::{AskSpec, Candidates};
use crate::CliError;
use bohf_core::{Answer, Query};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A query by candidate indices, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum StoredQuery {
    /// A or B.
    Duel {
        /// Option A.
        a: usize,
        /// Option B.
        b: usize,
    },
    /// Accept or reject.
    Label {
        /// The option.
        x: usize,
    },
    /// A number.
    Value {
        /// The option.
        x: usize,
    },
}

impl StoredQuery {
    pub(super) fn of(q: &Query) -> Result<Self, CliError> {
        let idx = |p: &bohf_core::Point| {
            p.index.ok_or_else(|| CliError::msg("the algorithm asked about a point that is not a candidate"))
        };
        Ok(match q {
            Query::Duel(x, y) => StoredQuery::Duel { a: idx(x)?, b: idx(y)? },
            Query::Label(x) => StoredQuery::Label { x: idx(x)? },
            Query::Evaluate(x) => StoredQuery::Value { x: idx(x)? },
        })
    }

    pub(super) fn fits(&self, a: &Answer) -> bool {
        matches!(
            (self, a),
            (StoredQuery::Duel { .. }, Answer::Duel { .. })
                | (StoredQuery::Label { .. }, Answer::Label { .. })
                | (StoredQuery::Value { .. }, Answer::Value(_))
        )
    }
}

/// One answered query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What was asked.
    pub query: StoredQuery,
    /// The answer.
    pub answer: Answer,
}

/// Everything a session holds (the checksummed part of the file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionBody {
    /// Always `bohf-ask-session`.
    pub format: String,
    /// The format version (1).
    pub version: u32,
    /// The session spec.
    pub spec: AskSpec,
    /// The candidates.
    pub candidates: Candidates,
    /// The answered queries, in order.
    pub history: Vec<Step>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionFile {
    body: SessionBody,
    checksum: String,
}

pub(super) const FORMAT: &str = "bohf-ask-session";

/// FNV-1a, 64 bit.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn checksum(body: &SessionBody) -> Result<String, CliError> {
    let compact = serde_json::to_string(body).map_err(|e| CliError::msg(format!("cannot write the session: {e}")))?;
    Ok(format!("fnv1a64:{:016x}", fnv1a64(compact.as_bytes())))
}

pub(super) fn session_text(body: &SessionBody) -> Result<String, CliError> {
    let file = SessionFile { body: body.clone(), checksum: checksum(body)? };
    serde_json::to_string_pretty(&file)
        .map(|s| s + "\n")
        .map_err(|e| CliError::msg(format!("cannot write the session: {e}")))
}

/// Why a session file cannot be used.
pub(super) fn damaged(path: &Path, why: &str) -> CliError {
    let bak = backup_path(path);
    let backup = match std::fs::read_to_string(&bak).ok().and_then(|t| parse_session(&t).ok()) {
        Some(b) => format!(
            "; the previous good copy `{}` holds {} answer(s): check it and copy it over `{}` to continue from it",
            bak.display(),
            b.history.len(),
            path.display()
        ),
        None => String::new(),
    };
    CliError::msg(format!(
        "session file `{}` is damaged ({why}); it was left as it is, nothing was written{backup}",
        path.display()
    ))
}

pub(super) fn parse_session(text: &str) -> Result<SessionBody, String> {
    let file: SessionFile = serde_json::from_str(text)
        .map_err(|e| if e.is_eof() { format!("truncated: {e}") } else { format!("not a valid session file: {e}") })?;
    if file.body.format != FORMAT || file.body.version != 1 {
        return Err(format!("unknown format `{}` version {}", file.body.format, file.body.version));
    }
    let want = checksum(&file.body).map_err(|e| e.to_string())?;
    if want != file.checksum {
        return Err(format!("checksum mismatch: the file says {}, its content gives {want}", file.checksum));
    }
    Ok(file.body)
}

pub(super) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".bak");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_known_values() {
        // Published FNV-1a 64 test vectors (Fowler/Noll/Vo reference): "" and "a".
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
