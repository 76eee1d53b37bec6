//! Live ask/tell sessions: a person answers an algorithm's queries one at a time, in a session that
//! survives interruptions. `bohf ask` (terminal and JSON lines), `bohf serve` and the Python package
//! are front ends of this one crate, so a session started in one continues in the others.
//!
//! * [`candidates`]: the session spec (TOML), the candidates (a CSV or a gridded box) and the
//!   min–max scaling the algorithm sees.
//! * [`file`]: the session file (checksummed JSON, saved atomically after every answer, the previous
//!   good copy kept as `SESSION.json.bak`).
//! * [`protocol`]: the JSON messages and the parsing of answers (`docs/ask-protocol.md`): every
//!   front end validates answers with the same code and words errors the same way.
//! * [`Session`]: an open session, holding the file's lock; loading replays the history through a
//!   freshly built algorithm with the same random stream, checking that it asks the same queries.
//!
//! **Self-duels.** A duel of an option with itself, (x, x), carries no information about the
//! utility: under every link P(x ≻ x) = μ(0) = ½, and the dueling kernel's row of (x, x) is zero.
//! Some algorithms ask one when both of their choices land on the same option (PF-TS when its two
//! Thompson draws agree, POP-BO once its new point is its last one, MR-LPF when one candidate is
//! left or with `initial_sigma = "zero"`, MaxMinLCB by default, random duels with probability 1/n). A person never sees such a duel: [`Session::pending`] answers it itself with the outcome the
//! simulated respondent of the experiments draws for it (Bernoulli(μ(0)) = a fair coin,
//! [`self_duel_coin`], seeded by the session's seed and the query's position, so that a resumed
//! session answers exactly as an uninterrupted one), gives that answer to the algorithm as any
//! answer, records the step with `"automatic": true`, and asks the algorithm again. An automatic
//! answer uses up no query of the budget and costs nothing under `[costs]`; after
//! [`MAX_SELF_DUELS_IN_A_ROW`] of them in a row the session ends ([`End::SelfDuels`]).

#![warn(missing_docs)]

pub mod candidates;
pub mod file;
pub mod protocol;
pub mod stamp;
#[doc(hidden)]
pub mod testing;

pub use candidates::{AskSpec, Candidates, Images, MAX_CANDIDATES};
pub use file::{MAX_BUDGET, SessionBody, Step, StoredAnswer, StoredQuery};
pub use stamp::Stamp;

use bohf_core::rand::RngExt;
use bohf_core::{Abstention, Answer, BohfRng, Query, SearchContext, rng};
use bohf_experiments::lock::{LockGuard, lock_exclusive};
use bohf_experiments::{
    AlgorithmEntry, BoxedOptimizer, ExperimentError, Registry, remove_stale_temp_files, write_atomic,
};
use file::{FORMAT, backup_path, damaged, parse_session, session_text, with_suffix};
use std::path::{Path, PathBuf};

/// Why a session cannot be created, opened or answered. Every message is worded for the person
/// and names the file, the field or the query.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The session spec or its candidates are invalid (names the field).
    #[error("{0}")]
    Spec(String),
    /// The session file is missing, damaged, cannot be replayed, written, or is in use.
    #[error("{0}")]
    File(String),
    /// An answer that does not answer the pending query (the message is the protocol's).
    #[error("{0}")]
    Answer(String),
    /// The algorithm failed while choosing a query or taking an answer.
    #[error("{0}")]
    Algorithm(String),
    /// From the experiment layer (the registry, file locks, atomic writes).
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
}

/// Result with [`SessionError`].
pub type Result<T, E = SessionError> = std::result::Result<T, E>;

/// The most self-duels a session answers automatically in a row: the next one ends the session
/// ([`End::SelfDuels`]), so that an algorithm that asks nothing else cannot keep a session busy.
/// (PF-TS asks a long run of self-duels only once its posterior is sure of one option: that option
/// is then its recommendation.)
pub const MAX_SELF_DUELS_IN_A_ROW: usize = 25;

/// The tag of the random stream of [`self_duel_coin`] (the algorithm's stream is untouched).
const SELF_DUEL_STREAM: u64 = 0x5e1f_d0e1;

/// The session's answer to a self-duel (x, x) at 0-based position `round` of the history (every
/// step counted, automatic ones included): `first_wins` with probability μ(0) = ½, what the
/// experiments' simulated respondent draws for x = x′ under any link (`rng.random::<f64>() < p`
/// with p = ½). A function of the seed and the position only: the same in a resumed session.
pub fn self_duel_coin(seed: u64, round: usize) -> bool {
    rng::stream(seed, &[SELF_DUEL_STREAM, round as u64]).random::<f64>() < 0.5
}

/// Why a session has ended ([`Session::end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The person answered `budget` queries.
    Budget,
    /// The spec's `[costs]` total is spent.
    Costs,
    /// The algorithm asked [`MAX_SELF_DUELS_IN_A_ROW`] self-duels in a row (all answered
    /// automatically): it has nothing else to ask.
    SelfDuels,
    /// The algorithm refused to choose another query after as many queries as the budget, some of
    /// them self-duels answered automatically: it was built for a horizon of `budget` queries
    /// (MR-LPF, or a theoretical exploration schedule) and has made them all.
    Horizon,
}

impl End {
    /// The `reason` of the protocol's `done` message: `budget` (the query or the cost budget),
    /// `self-duels` or `horizon`.
    pub fn key(self) -> &'static str {
        match self {
            End::Budget | End::Costs => "budget",
            End::SelfDuels => "self-duels",
            End::Horizon => "horizon",
        }
    }
}

/// Builds the session's algorithm (from `registry`) and its random stream from the body; with
/// them the registry entry, which checks the kind of every query the algorithm asks
/// ([`AlgorithmEntry::check_query`]).
fn build(body: &SessionBody, registry: &Registry) -> Result<(BoxedOptimizer, BohfRng, AlgorithmEntry)> {
    let a = &body.spec.algorithm;
    let entry = registry
        .get(&a.name)
        .ok_or_else(|| SessionError::Spec(registry.unknown("algorithm.name", &a.name).to_string()))?;
    // The params are read and checked once; the optimiser is built from the checked config. An
    // entry without a finite mode is checked as before and refused by its build.
    let kind = bohf_core::DomainKind::Finite;
    let checked = if entry.supports(kind) {
        Some(entry.parse_for(kind, "a finite candidate set", &a.params, "algorithm.name", "algorithm.params")?)
    } else {
        entry.check(&a.params, "algorithm.params")?;
        None
    };
    let mut ctx = SearchContext::new(body.candidates.domain()?, body.spec.budget)
        .map_err(|e| SessionError::Spec(format!("budget: {e}")))?;
    let costs = body.spec.costs.as_ref().map(|c| c.costs());
    if let Some(c) = &checked {
        c.check_costs(costs.as_ref()).map_err(|e| SessionError::Spec(costs_error(&e)))?;
    }
    if let Some(c) = costs {
        ctx = ctx.with_costs(c);
    }
    let optimizer = match &checked {
        Some(c) => c.build(&ctx),
        None => entry.build(&ctx, &a.params),
    }
    .map_err(|e| SessionError::Spec(format!("algorithm: {e}")))?;
    Ok((optimizer, rng::seeded(body.spec.seed), entry.clone()))
}

/// The algorithm's next query, refused (naming the kind and the entry's declaration) when its
/// kind is not one the registry entry declares: a session, like a run, never records a query the
/// algorithm's entry says it does not ask.
fn suggest(
    optimizer: &mut (dyn bohf_core::Optimizer + Send),
    rng: &mut BohfRng,
    entry: &AlgorithmEntry,
) -> bohf_core::Result<Query> {
    let q = optimizer.suggest(rng)?;
    entry.check_query(&q)?;
    Ok(q)
}

/// An error about the costs, naming the session spec's `[costs]` fields (`costs.duel`, …) where
/// the experiments name their `[budget]`'s.
pub(crate) fn costs_error(e: &ExperimentError) -> String {
    match e {
        ExperimentError::Spec { field, reason } => {
            format!("`{}`: {reason}", field.replacen("budget", "costs", 1))
        }
        other => other.to_string().replace("budget.", "costs."),
    }
}

/// Gives the algorithm an answer ([`bohf_core::Optimizer::observe`]) or an abstention
/// ([`bohf_core::Optimizer::observe_abstention`]).
fn observe(optimizer: &mut (dyn bohf_core::Optimizer + Send), q: &Query, a: StoredAnswer) -> bohf_core::Result<()> {
    match a {
        StoredAnswer::Answer(a) => optimizer.observe(q, a),
        StoredAnswer::Abstain(k) => optimizer.observe_abstention(q, k),
    }
}

/// The session's algorithm after replaying the history.
struct Live {
    body: SessionBody,
    optimizer: BoxedOptimizer,
    rng: BohfRng,
    /// The algorithm's registry entry (checks each query's kind).
    entry: AlgorithmEntry,
    /// The query being asked (suggested, not yet answered).
    pending: Option<Query>,
    /// When `pending` was chosen to be shown (its step's `asked_at`).
    shown_at: Option<Stamp>,
    /// The text of the last good file (becomes the backup at the next save).
    last_good: String,
    /// The algorithm refused a query past its horizon ([`End::Horizon`]).
    exhausted: bool,
}

impl Live {
    /// Replays a validated body ([`SessionBody::validate`]) through a freshly built algorithm.
    fn replay(body: SessionBody, text: String, registry: &Registry) -> Result<Self> {
        let (mut optimizer, mut rng, entry) = build(&body, registry)?;
        for (t, step) in body.history.iter().enumerate() {
            let q = suggest(&mut *optimizer, &mut rng, &entry)
                .map_err(|e| SessionError::Algorithm(format!("replay, query {}: {e}", t + 1)))?;
            if StoredQuery::of(&q)? != step.query {
                return Err(SessionError::File(format!(
                    "replay diverged at query {}: the algorithm now asks {:?}, the session recorded {:?} \
                     (was the session made by another version of bohf?)",
                    t + 1,
                    StoredQuery::of(&q)?,
                    step.query
                )));
            }
            observe(&mut *optimizer, &q, step.answer)
                .map_err(|e| SessionError::Algorithm(format!("replay, answer {}: {e}", t + 1)))?;
        }
        Ok(Self { body, optimizer, rng, entry, pending: None, shown_at: None, last_good: text, exhausted: false })
    }
}

/// An open session: its file's lock is held until the session is dropped, so no other process
/// (another `bohf ask`, `bohf serve` or Python) writes the same file meanwhile, unless it is let
/// go with [`Session::release_lock`].
pub struct Session {
    path: PathBuf,
    live: Live,
    removed: Vec<PathBuf>,
    /// `None` after [`Session::release_lock`]: each save takes it again.
    lock: Option<LockGuard>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("path", &self.path)
            .field("name", &self.live.body.spec.name)
            .field("answered", &self.answered())
            .finish_non_exhaustive()
    }
}

/// The lock file of a session: `SESSION.json.lock` next to it.
pub fn lock_path(path: &Path) -> PathBuf {
    with_suffix(path, ".lock")
}

/// Takes the session's lock (held until the guard is dropped), then removes the temporary files of
/// saves of this session that a killed process left behind, returning their paths.
fn lock_session(path: &Path) -> Result<(LockGuard, Vec<PathBuf>)> {
    let guard = lock_exclusive(&lock_path(path), &format!("session `{}`", path.display()))?;
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let owned = [name(path), name(&backup_path(path))];
    let removed = remove_stale_temp_files(path.parent().unwrap_or(Path::new(".")), |t| owned.iter().any(|o| o == t))?;
    Ok((guard, removed))
}

/// Reads and checks a session spec, loads its candidates and builds its algorithm once: everything
/// [`Session::create`] checks before it writes the session file (also used by `bohf check --ask`).
pub fn prepare(spec_path: &Path) -> Result<SessionBody> {
    let spec = candidates::read_spec(spec_path)?;
    body_of(spec).map_err(|e| SessionError::Spec(format!("`{}`: {e}", spec_path.display())))
}

/// A new session's body from a spec whose CSV path (if any) is already resolved: checks the name,
/// loads the candidates, validates, and builds the algorithm once.
pub fn body_of(spec: AskSpec) -> Result<SessionBody> {
    let candidates = candidates::load_candidates(&spec)?;
    body_with(spec, candidates)
}

/// A new session's body from a spec and candidates given directly (the Python package's array of
/// options; `spec.candidates` then names neither a CSV nor a box): checks the name, validates, and
/// builds the algorithm once, like [`body_of`].
pub fn body_with(spec: AskSpec, candidates: Candidates) -> Result<SessionBody> {
    if spec.name.trim().is_empty() {
        return Err(SessionError::Spec("name: must not be empty".into()));
    }
    let body = SessionBody { format: FORMAT.into(), version: 1, spec, candidates, history: Vec::new() };
    body.validate().map_err(SessionError::Spec)?;
    build(&body, &bohf_registry::builtin())?;
    Ok(body)
}

impl Session {
    /// Writes a new session file at `path` from a prepared body ([`prepare`] or [`body_of`]) and
    /// opens it. An existing file is an error unless `force` (then it is replaced).
    pub fn create(path: &Path, body: SessionBody, force: bool) -> Result<Self> {
        Self::create_with(path, body, force, &bohf_registry::builtin())
    }

    /// [`Session::create`] with the algorithm taken from `registry` instead of the built-in one
    /// (e.g. a test-only or a user's own algorithm; reopen it with [`Session::open_with`] and the
    /// same registry).
    pub fn create_with(path: &Path, body: SessionBody, force: bool, registry: &Registry) -> Result<Self> {
        let (lock, removed) = lock_session(path)?;
        if path.exists() && !force {
            return Err(SessionError::File(format!(
                "`{}` exists; continue it with `bohf ask {}`, or pass --force to start over",
                path.display(),
                path.display()
            )));
        }
        body.validate().map_err(SessionError::Spec)?;
        let text = session_text(&body)?;
        let live = Live::replay(body, text.clone(), registry)?;
        write_atomic(path, text.as_bytes())?;
        Ok(Self { path: path.to_path_buf(), live, removed, lock: Some(lock) }.settled())
    }

    /// Opens the session file at `path`: takes its lock, reads and checks it, and replays its
    /// answers. Every way it can fail leaves the file as it is and says so (offering the backup
    /// `SESSION.json.bak` if that is good).
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_with(path, &bohf_registry::builtin())
    }

    /// [`Session::open`] with the algorithm taken from `registry` (see [`Session::create_with`]).
    pub fn open_with(path: &Path, registry: &Registry) -> Result<Self> {
        if !path.exists() {
            return Err(damaged(path, "does not exist"));
        }
        let (lock, removed) = lock_session(path)?;
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(damaged(path, "does not exist")),
            Err(e) => return Err(damaged(path, &format!("cannot be read ({e})"))),
        };
        let body = parse_session(&bytes).map_err(|why| damaged(path, &format!("is damaged ({why})")))?;
        let text =
            String::from_utf8(bytes).map_err(|e| damaged(path, &format!("is damaged (not a text file: {e})")))?;
        let live =
            Live::replay(body, text, registry).map_err(|e| damaged(path, &format!("cannot be replayed ({e})")))?;
        Ok(Self { path: path.to_path_buf(), live, removed, lock: Some(lock) }.settled())
    }

    /// A session whose algorithm may be past its horizon (as many queries in the history as the
    /// budget, some automatic) asks it now, so that [`Session::done`] knows at once whether it
    /// has ended ([`End::Horizon`]); an error here comes back at the next [`Session::pending`].
    fn settled(mut self) -> Self {
        if !self.done() && self.live.body.history.len() >= self.budget() {
            let _ = self.pending();
        }
        self
    }

    /// Lets go of the file's lock, so that the open session holds no file descriptor while it
    /// waits (`bohf serve`'s studies keep thousands of sessions open). Every later save takes the
    /// lock again for the write, and refuses (nothing written, the session unchanged) when the
    /// lock is held by another process or the file is no longer what this session last read or
    /// wrote (another process answered meanwhile).
    pub fn release_lock(&mut self) {
        self.lock = None;
    }

    /// The session file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary files of interrupted saves that opening removed (to tell the person).
    pub fn removed_temp_files(&self) -> &[PathBuf] {
        &self.removed
    }

    /// The spec, the candidates and the answered queries.
    pub fn body(&self) -> &SessionBody {
        &self.live.body
    }

    /// Queries the person answered so far ("no preference" and "skip" included: each uses up one
    /// query of the budget; self-duels answered automatically are not counted, see
    /// [`Session::automatic`]).
    pub fn answered(&self) -> usize {
        self.live.body.history.iter().filter(|s| !s.automatic).count()
    }

    /// Self-duels the session answered automatically so far (not shown to the person).
    pub fn automatic(&self) -> usize {
        self.live.body.history.iter().filter(|s| s.automatic).count()
    }

    /// Self-duels answered automatically since the person's last answer.
    fn automatic_in_a_row(&self) -> usize {
        self.live.body.history.iter().rev().take_while(|s| s.automatic).count()
    }

    /// The budget (the number of queries to ask).
    pub fn budget(&self) -> usize {
        self.live.body.spec.budget
    }

    /// The costs spent so far under the spec's `[costs]` (an abstention costs its query's price:
    /// the person was asked; a best-of-k choice costs a duel); `None` without `[costs]`.
    pub fn spent(&self) -> Option<f64> {
        let c = self.live.body.spec.costs.as_ref()?;
        Some(
            self.live
                .body
                .history
                .iter()
                .filter(|s| !s.automatic)
                // A best-of-k choice costs one duel, as in an experiment's [budget].
                .map(|s| c.cost(s.query.query_kind()))
                .sum(),
        )
    }

    /// The cost budget left, `total` − spent (at least 0); `None` without `[costs]`.
    pub fn budget_left(&self) -> Option<f64> {
        let c = self.live.body.spec.costs.as_ref()?;
        Some((c.total - self.spent()?).max(0.0))
    }

    /// True once the session has ended ([`Session::end`]).
    pub fn done(&self) -> bool {
        self.end().is_some()
    }

    /// Why the session has ended, or `None` while queries remain: `budget` queries answered, or
    /// with `[costs]` their costs reached `total` (as an experiment's `[budget]`,
    /// `BudgetSpec::is_spent`), or the algorithm asks only self-duels ([`End::SelfDuels`]) or
    /// cannot go past its horizon ([`End::Horizon`]).
    pub fn end(&self) -> Option<End> {
        let costs_spent = match (&self.live.body.spec.costs, self.spent()) {
            (Some(c), Some(s)) => c.is_spent(s),
            _ => false,
        };
        if self.answered() >= self.budget() {
            Some(End::Budget)
        } else if costs_spent {
            Some(End::Costs)
        } else if self.automatic_in_a_row() >= MAX_SELF_DUELS_IN_A_ROW {
            Some(End::SelfDuels)
        } else if self.live.exhausted {
            Some(End::Horizon)
        } else {
            None
        }
    }

    /// The query to answer now (the algorithm chooses it on the first call; later calls return the
    /// same query until it is answered); `None` once the session has ended ([`Session::end`]).
    /// Never a self-duel: one that the algorithm asks is answered here, automatically (see the
    /// crate docs), saved, and the algorithm asked again.
    pub fn pending(&mut self) -> Result<Option<StoredQuery>> {
        loop {
            if self.done() {
                return Ok(None);
            }
            let budget = self.budget();
            let automatic = self.automatic();
            let live = &mut self.live;
            let round = live.body.history.len();
            if live.pending.is_none() {
                match suggest(&mut *live.optimizer, &mut live.rng, &live.entry) {
                    Ok(q) => {
                        live.pending = Some(q);
                        live.shown_at = Some(Stamp::now());
                    }
                    // Past the algorithm's horizon (the budget) only because of automatic answers.
                    Err(_) if round >= budget && automatic > 0 => {
                        live.exhausted = true;
                        continue;
                    }
                    Err(e) => return Err(SessionError::Algorithm(format!("algorithm: {e}"))),
                }
            }
            let q = StoredQuery::of(live.pending.as_ref().expect("set above"))?;
            match q {
                StoredQuery::Duel { a, b } if a == b => {
                    let coin = self_duel_coin(live.body.spec.seed, round);
                    self.commit(q, StoredAnswer::Answer(Answer::Duel { first_wins: coin }), true)?;
                }
                q => return Ok(Some(q)),
            }
        }
    }

    /// Answers the pending query: the algorithm observes it, it is appended to the history and the
    /// file is saved (the previous file becomes the backup) before this returns. An answer of the
    /// wrong kind, or with no query pending, is refused and nothing changes.
    pub fn answer(&mut self, answer: Answer) -> Result<()> {
        self.record(StoredAnswer::Answer(answer))
    }

    /// Records that the person abstained from the pending query ("no preference" or "skip"): like
    /// [`Session::answer`] (saved before this returns; it uses up one query of the budget), but the
    /// algorithm gets it through [`bohf_core::Optimizer::observe_abstention`], which drops it
    /// unless the algorithm documents otherwise.
    pub fn abstain(&mut self, kind: Abstention) -> Result<()> {
        self.record(StoredAnswer::Abstain(kind))
    }

    /// Records an answer or an abstention to the pending query ([`Session::answer`],
    /// [`Session::abstain`]).
    pub fn record(&mut self, answer: StoredAnswer) -> Result<()> {
        let q =
            self.pending()?.ok_or_else(|| SessionError::Answer("the session has ended: no query is pending".into()))?;
        if let StoredAnswer::Answer(answer) = answer {
            if !q.fits(&answer) {
                return Err(SessionError::Answer(format!(
                    "{} does not answer the pending {}",
                    protocol::answer_kind(&answer),
                    q.kind()
                )));
            }
            if let Answer::Value(v) = answer
                && !v.is_finite()
            {
                return Err(SessionError::Answer(protocol::VALUE_HELP.into()));
            }
            if let StoredQuery::Choice { options } = &q {
                answer
                    .choice_index(options.len())
                    .map_err(|e| SessionError::Answer(format!("{e}; {}", protocol::CHOICE_HELP)))?;
            }
        }
        self.commit(q, answer, false)
    }

    /// Gives the pending query's answer to the algorithm, appends the step to the history (marked
    /// `automatic` or not) and saves the file (the previous one becomes the backup).
    fn commit(&mut self, q: StoredQuery, answer: StoredAnswer, automatic: bool) -> Result<()> {
        // Released lock: take it for this save, and check that nobody wrote the file meanwhile.
        let _relocked = match self.lock {
            Some(_) => None,
            None => {
                let (guard, _) = lock_session(&self.path)?;
                let on_disk = std::fs::read(&self.path)
                    .map_err(|e| SessionError::File(format!("cannot read `{}`: {e}", self.path.display())))?;
                if on_disk != self.live.last_good.as_bytes() {
                    return Err(SessionError::File(format!(
                        "`{}` was changed by another process since it was opened; nothing was written \
                         (open the session again to continue from the file)",
                        self.path.display()
                    )));
                }
                Some(guard)
            }
        };
        let live = &mut self.live;
        let query = live.pending.take().expect("pending() set it");
        if let Err(e) = observe(&mut *live.optimizer, &query, answer) {
            live.pending = Some(query);
            return Err(SessionError::Algorithm(format!("algorithm: {e}")));
        }
        // Times for the person's answers only (an automatic answer was never shown).
        let (asked_at, answered_at) = if automatic { (None, None) } else { (live.shown_at, Some(Stamp::now())) };
        live.body.history.push(Step { query: q, answer, automatic, asked_at, answered_at });
        let text = session_text(&live.body)?;
        write_atomic(backup_path(&self.path), live.last_good.as_bytes())?;
        write_atomic(&self.path, text.as_bytes())?;
        live.last_good = text;
        Ok(())
    }

    /// The algorithm's current recommendation (a candidate index), if it has one.
    pub fn recommendation(&self) -> Option<usize> {
        self.live.optimizer.recommend().ok().and_then(|p| p.index)
    }

    /// Answers the person gave so far that the algorithm learnt from: abstentions ("no
    /// preference", "skip") and automatic answers to self-duels are not counted.
    pub fn informative_answers(&self) -> usize {
        self.live.body.history.iter().filter(|s| !s.automatic && s.answer.answer().is_some()).count()
    }

    /// The recommendation to show a person (the page of `bohf serve`, the researcher's overview and
    /// `recommendations.csv`): [`Session::recommendation`] once the person has given at least one
    /// [informative answer](Session::informative_answers), `None` before (the algorithm's pick
    /// would then reflect only its prior and its seed, not the person).
    pub fn recommendation_to_show(&self) -> Option<usize> {
        if self.informative_answers() == 0 { None } else { self.recommendation() }
    }
}
