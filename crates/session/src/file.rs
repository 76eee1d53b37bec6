//! The session file: its format, checksum, loading and saving, and the backup.
//!
//! A session file is JSON `{"body": …, "checksum": "fnv1a64:…"}`. The body holds the session spec,
//! the candidates (names and raw attribute values, copied from the CSV or the box so that the
//! session does not depend on the file any more), the seed and every answered query. The checksum
//! is FNV-1a (64 bit) of the body's compact JSON: it detects accidental damage (truncation, a hand
//! edit), not tampering. The file is rewritten after every answer by temp file + rename, and the
//! previous good version is kept as `SESSION.json.bak`.

use crate::SessionError;
use crate::candidates::{AskSpec, Candidates, MAX_CANDIDATES};
use crate::stamp::Stamp;
use bohf_core::{Abstention, Answer, Query, QueryKind};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A query by candidate indices, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
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
    /// Best of k ≥ 2: which option is preferred (stored as `{"kind": "choice", "options": [i, …]}`).
    Choice {
        /// The options, in the order shown (distinct candidate indices).
        options: Vec<usize>,
    },
}

impl StoredQuery {
    /// The stored form of an algorithm's query; an error if it names a point that is not a
    /// candidate.
    pub fn of(q: &Query) -> Result<Self, SessionError> {
        let idx = |p: &bohf_core::Point| {
            p.index.ok_or_else(|| {
                SessionError::Algorithm("the algorithm asked about a point that is not a candidate".into())
            })
        };
        Ok(match q {
            Query::Duel(x, y) => StoredQuery::Duel { a: idx(x)?, b: idx(y)? },
            Query::Label(x) => StoredQuery::Label { x: idx(x)? },
            Query::Evaluate(x) => StoredQuery::Value { x: idx(x)? },
            Query::Choice(options) => {
                q.check()
                    .map_err(|e| SessionError::Algorithm(format!("the algorithm asked an invalid choice: {e}")))?;
                StoredQuery::Choice { options: options.iter().map(idx).collect::<Result<_, _>>()? }
            }
        })
    }

    /// The query's kind ([`QueryKind`]; the protocol spells [`QueryKind::Evaluate`] `value`,
    /// [`StoredQuery::kind`]).
    pub fn query_kind(&self) -> QueryKind {
        match self {
            StoredQuery::Duel { .. } => QueryKind::Duel,
            StoredQuery::Label { .. } => QueryKind::Label,
            StoredQuery::Value { .. } => QueryKind::Evaluate,
            StoredQuery::Choice { .. } => QueryKind::Choice,
        }
    }

    /// The candidate indices the query shows, in order.
    pub fn indices(&self) -> Vec<usize> {
        match self {
            StoredQuery::Duel { a, b } => vec![*a, *b],
            StoredQuery::Label { x } | StoredQuery::Value { x } => vec![*x],
            StoredQuery::Choice { options } => options.clone(),
        }
    }

    /// Whether `a` is an answer of this query's kind.
    pub fn fits(&self, a: &Answer) -> bool {
        matches!(
            (self, a),
            (StoredQuery::Duel { .. }, Answer::Duel { .. })
                | (StoredQuery::Label { .. }, Answer::Label { .. })
                | (StoredQuery::Value { .. }, Answer::Value(_))
                | (StoredQuery::Choice { .. }, Answer::Choice { .. })
        )
    }
}

/// What a person said to a query, as stored: an [`Answer`] (stored exactly as before, so session
/// files written before abstentions existed load unchanged, with the same checksum) or an
/// [`Abstention`] (stored as the string `"NoPreference"` or `"Skip"`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StoredAnswer {
    /// An answer the algorithm observes.
    Answer(Answer),
    /// "No preference" or "skip": recorded, and given to the algorithm's
    /// [`observe_abstention`](bohf_core::Optimizer::observe_abstention) (which drops it unless the
    /// algorithm says otherwise). It uses up one query of the budget.
    Abstain(Abstention),
}

impl From<Answer> for StoredAnswer {
    fn from(a: Answer) -> Self {
        StoredAnswer::Answer(a)
    }
}

impl From<Abstention> for StoredAnswer {
    fn from(a: Abstention) -> Self {
        StoredAnswer::Abstain(a)
    }
}

impl StoredAnswer {
    /// The answer, if this is not an abstention.
    pub fn answer(&self) -> Option<Answer> {
        match *self {
            StoredAnswer::Answer(a) => Some(a),
            StoredAnswer::Abstain(_) => None,
        }
    }
}

/// One answered query (an abstention counts as answered: it uses up one query of the budget).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// What was asked.
    pub query: StoredQuery,
    /// The answer or abstention.
    pub answer: StoredAnswer,
    /// True for a self-duel (x, x) that the session answered itself with a fair coin, without
    /// asking the person ([`crate::self_duel_coin`]); it uses up no query of the budget. Stored as
    /// `"automatic": true`, and left out when false, so that files written before automatic
    /// answers existed load unchanged, with the same checksum.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub automatic: bool,
    /// When the query was first shown to the person (UTC, RFC 3339 with milliseconds:
    /// `"asked_at": "2026-11-29T07:40:05.123Z"`): when the session chose it for a front end to
    /// show. A query shown before an interruption and answered after it counts from its showing
    /// after the session was reopened. Left out for automatic answers (never shown) and in files
    /// written before times were recorded, which load unchanged, with the same checksum. Never
    /// given to the algorithm: replay does not depend on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_at: Option<Stamp>,
    /// When the answer was recorded (UTC, RFC 3339 with milliseconds, as `asked_at`; left out
    /// where `asked_at` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_at: Option<Stamp>,
}

impl Step {
    /// A step the person answered (with no times: see [`Step::asked_at`]).
    pub fn answered(query: StoredQuery, answer: StoredAnswer) -> Self {
        Self { query, answer, automatic: false, asked_at: None, answered_at: None }
    }

    /// The time to answer in seconds, `answered_at − asked_at`, when both are recorded (negative
    /// only if the clock was set back in between).
    pub fn seconds_to_answer(&self) -> Option<f64> {
        Some(self.answered_at?.seconds_since(self.asked_at?))
    }
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

/// The `format` of every session file.
pub const FORMAT: &str = "bohf-ask-session";

fn checksum(body: &SessionBody) -> Result<String, SessionError> {
    let compact =
        serde_json::to_string(body).map_err(|e| SessionError::File(format!("cannot write the session: {e}")))?;
    Ok(bohf_experiments::checksum::fnv1a64_tag(compact.as_bytes()))
}

/// The text of a session file holding `body` (pretty JSON with the checksum, ending in a newline).
pub fn session_text(body: &SessionBody) -> Result<String, SessionError> {
    let file = SessionFile { body: body.clone(), checksum: checksum(body)? };
    serde_json::to_string_pretty(&file)
        .map(|s| s + "\n")
        .map_err(|e| SessionError::File(format!("cannot write the session: {e}")))
}

/// The largest budget a session may have: far more queries than a person answers, small enough
/// that nothing sized by the budget can exhaust memory.
pub const MAX_BUDGET: usize = 100_000;

impl SessionBody {
    /// Checks everything later code relies on, so that no answer, query or candidate index can be
    /// out of range: 2 to [`MAX_CANDIDATES`] candidates, one name and one row per candidate, one finite value
    /// per attribute in every row, a budget in 1..=[`MAX_BUDGET`], at most `budget` answered queries,
    /// every query's indices within the candidates, every answer of its query's kind (a value
    /// answer finite; an abstention fits any query), and the images (if any) one per candidate,
    /// each a relative path inside the images' folder ([`crate::candidates::check_image_path`]).
    // Long: one check per part of the session file, in the file's order, each with its message.
    pub fn validate(&self) -> Result<(), String> {
        let c = &self.candidates;
        let n = c.values.len();
        let d = c.attributes.len();
        if d == 0 {
            return Err("candidates: no attributes".into());
        }
        // Each attribute once (as a CSV header must name each column once): an option is shown and
        // exported as a map from attribute name to value, where a repeated name loses a value.
        for (j, a) in c.attributes.iter().enumerate() {
            if let Some(i) = c.attributes[..j].iter().position(|b| b == a) {
                return Err(format!("candidates: attributes {} and {} are both named `{a}`; rename one", i + 1, j + 1));
            }
        }
        if !(2..=MAX_CANDIDATES).contains(&n) {
            return Err(format!("candidates: need 2 to {MAX_CANDIDATES} options, got {n}"));
        }
        if c.names.len() != n {
            return Err(format!("candidates: {} name(s) for {n} rows of values", c.names.len()));
        }
        for (i, row) in c.values.iter().enumerate() {
            if row.len() != d {
                return Err(format!(
                    "candidates: option {} (`{}`) has {} value(s) for {d} attribute(s)",
                    i + 1,
                    c.names[i],
                    row.len()
                ));
            }
            if let Some(j) = row.iter().position(|v| !v.is_finite()) {
                return Err(format!(
                    "candidates: option {} (`{}`), attribute `{}` is not finite",
                    i + 1,
                    c.names[i],
                    c.attributes[j]
                ));
            }
        }
        if let Some(images) = &c.images {
            if images.files.len() != n {
                return Err(format!("candidates: {} image(s) for {n} options", images.files.len()));
            }
            for (i, f) in images.files.iter().enumerate() {
                crate::candidates::check_image_path(f)
                    .map_err(|why| format!("candidates: option {} (`{}`), image `{f}`: {why}", i + 1, c.names[i]))?;
            }
        }
        let budget = self.spec.budget;
        if budget == 0 || budget > MAX_BUDGET {
            return Err(format!("budget: need 1 to {MAX_BUDGET} queries, got {budget}"));
        }
        let by_person = self.history.iter().filter(|s| !s.automatic).count();
        if by_person > budget {
            return Err(format!("history: {by_person} answers for a budget of {budget} queries"));
        }
        let mut in_a_row = 0;
        for (t, step) in self.history.iter().enumerate() {
            if !step.automatic {
                in_a_row = 0;
                continue;
            }
            in_a_row += 1;
            if in_a_row > crate::MAX_SELF_DUELS_IN_A_ROW {
                return Err(format!(
                    "history, query {}: more than {} self-duels answered automatically in a row",
                    t + 1,
                    crate::MAX_SELF_DUELS_IN_A_ROW
                ));
            }
            let coin = crate::self_duel_coin(self.spec.seed, t);
            match (&step.query, step.answer) {
                (StoredQuery::Duel { a, b }, StoredAnswer::Answer(Answer::Duel { first_wins })) if a == b => {
                    if first_wins != coin {
                        return Err(format!(
                            "history, answer {}: answered automatically with first_wins = {first_wins}, but the \
                             session's coin for this query gives {coin}",
                            t + 1
                        ));
                    }
                }
                _ => {
                    return Err(format!(
                        "history, answer {}: only a self-duel (an option against itself) is answered \
                         automatically",
                        t + 1
                    ));
                }
            }
        }
        if let Some(c) = &self.spec.costs {
            c.validate().map_err(|e| crate::costs_error(&e))?;
        }
        for (t, step) in self.history.iter().enumerate() {
            if let Some(i) = step.query.indices().into_iter().find(|&i| i >= n) {
                return Err(format!("history, query {}: option index {i}, but there are {n} options", t + 1));
            }
            if let StoredQuery::Choice { options } = &step.query {
                bohf_core::Choice::new(options.clone(), 0).map_err(|e| format!("history, query {}: {e}", t + 1))?;
            }
            let Some(answer) = step.answer.answer() else { continue };
            if !step.query.fits(&answer) {
                return Err(format!("history, answer {}: does not fit its query {:?}", t + 1, step.query));
            }
            if let (StoredQuery::Choice { options }, Answer::Choice { index }) = (&step.query, answer) {
                bohf_core::Choice::new(options.clone(), index)
                    .map_err(|e| format!("history, answer {}: {e}", t + 1))?;
            }
            if let Answer::Value(v) = answer
                && !v.is_finite()
            {
                return Err(format!("history, answer {}: the value is not finite", t + 1));
            }
        }
        Ok(())
    }
}

/// The error for a session file that cannot be used: `problem` says why (e.g. "does not exist",
/// "is damaged (truncated: …)"). Names the previous good copy `SESSION.json.bak` if it loads, so
/// that the person can continue from it; nothing is written.
pub fn damaged(path: &Path, problem: &str) -> SessionError {
    let bak = backup_path(path);
    let backup = match std::fs::read(&bak).ok().and_then(|bytes| parse_session(&bytes).ok()) {
        Some(b) => format!(
            "; the previous good copy `{}` holds {} answer(s): check it and copy it over `{}` to continue from it",
            bak.display(),
            b.history.iter().filter(|s| !s.automatic).count(),
            path.display()
        ),
        None => String::new(),
    };
    SessionError::File(format!(
        "session file `{}` {problem}; it was left as it is, nothing was written{backup}",
        path.display()
    ))
}

/// Parses and checks a session file's bytes: UTF-8, JSON of the right shape with no unknown keys
/// anywhere in the body, the format and version, the checksum, and [`SessionBody::validate`].
pub fn parse_session(bytes: &[u8]) -> Result<SessionBody, String> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err("the file is empty".into());
    }
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not a text file: {e}"))?;
    let raw: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| if e.is_eof() { format!("truncated: {e}") } else { format!("not a valid session file: {e}") })?;
    let file: SessionFile =
        serde_json::from_value(raw.clone()).map_err(|e| format!("not a valid session file: {e}"))?;
    if file.body.format != FORMAT || file.body.version != 1 {
        return Err(format!("unknown format `{}` version {}", file.body.format, file.body.version));
    }
    let want = checksum(&file.body).map_err(|e| e.to_string())?;
    if want != file.checksum {
        return Err(format!("checksum mismatch: the file says {}, its content gives {want}", file.checksum));
    }
    // The checksum covers the body as read; a key that reading ignores would not be covered (and
    // would be dropped at the next save), so the body must read back exactly as written.
    let reread = serde_json::to_value(&file.body).map_err(|e| e.to_string())?;
    if raw.get("body") != Some(&reread) {
        return Err("the body holds keys or values that a session does not have (edited by hand?)".into());
    }
    file.body.validate()?;
    Ok(file.body)
}

/// The previous good copy of a session: `SESSION.json.bak` next to it.
pub fn backup_path(path: &Path) -> PathBuf {
    with_suffix(path, ".bak")
}

/// `path` with `suffix` appended to its file name (`s.json` → `s.json.bak`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}
