//! `bohf._bohf.NativeSession`: an open `bohf_session::Session` (the Python class `bohf.Session`
//! wraps it and turns its dict messages into typed queries).

use crate::arrays;
use crate::convert::{from_json, table};
use crate::errors::{AnswerError, SessionError, SpecError, session_err};
use bohf_session::{AskSpec, Candidates, Session, StoredAnswer, protocol};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// An open session: holds the session file's lock until `close()` or until it is garbage collected.
#[pyclass(module = "bohf._bohf")]
pub struct NativeSession {
    inner: Mutex<Option<Session>>,
    path: PathBuf,
}

impl NativeSession {
    fn new(s: Session) -> Self {
        Self { path: s.path().to_path_buf(), inner: Mutex::new(Some(s)) }
    }

    fn guard(&self) -> PyResult<MutexGuard<'_, Option<Session>>> {
        let g = self.inner.lock().map_err(|_| SessionError::new_err("the session failed earlier; load it again"))?;
        if g.is_none() {
            return Err(SessionError::new_err(format!(
                "session `{}` is closed; bohf.Session.load({:?}) opens it again",
                self.path.display(),
                self.path.display().to_string()
            )));
        }
        Ok(g)
    }
}

fn spec_of(spec: &Bound<'_, PyDict>) -> PyResult<AskSpec> {
    let t = table("", spec)?;
    toml::Value::Table(t)
        .try_into()
        .map_err(|e| SpecError::new_err(format!("session spec: {}", crate::numerics::one_line(&e.to_string()))))
}

#[pymethods]
impl NativeSession {
    /// Creates the session file at `path` (an existing file is an error unless `force`) and opens
    /// it. `spec` is the session spec as a dict (the TOML of `bohf ask new`) or the path of a spec
    /// file (read as `bohf ask new --spec` reads it: a relative CSV path is relative to the spec's
    /// folder); `candidates` (n×d float64) with `names` and `attributes` give the options directly,
    /// else the spec's `candidates` table names a CSV or a box.
    #[staticmethod]
    #[pyo3(signature = (path, spec, candidates=None, names=None, attributes=None, force=false))]
    fn create(
        py: Python<'_>,
        path: PathBuf,
        spec: &Bound<'_, PyAny>,
        candidates: Option<&Bound<'_, PyAny>>,
        names: Option<Vec<String>>,
        attributes: Option<Vec<String>>,
        force: bool,
    ) -> PyResult<Self> {
        let spec = match spec.cast::<PyDict>() {
            Ok(d) => spec_of(d)?,
            Err(_) => {
                let file: PathBuf =
                    spec.extract().map_err(|_| SpecError::new_err("spec: need a dict or the path of a spec file"))?;
                bohf_session::candidates::read_spec(&file).map_err(session_err)?
            }
        };
        let body = match candidates {
            Some(c) => {
                let m = arrays::matrix("candidates", "one row per option, one column per attribute", c)?;
                let (n, d) = m.shape();
                let names = names.unwrap_or_else(|| (1..=n).map(|i| format!("#{i}")).collect());
                let attributes = attributes.unwrap_or_else(|| (1..=d).map(|j| format!("x{j}")).collect());
                if attributes.len() != d {
                    return Err(SpecError::new_err(format!(
                        "attributes: {} name(s) for {d} column(s) of candidates",
                        attributes.len()
                    )));
                }
                let values = (0..n).map(|i| m.row(i).iter().copied().collect()).collect();
                bohf_session::body_with(spec, Candidates { attributes, names, values, images: None })
            }
            None => bohf_session::body_of(spec),
        }
        .map_err(session_err)?;
        let s = py.detach(|| Session::create(&path, body, force)).map_err(session_err)?;
        Ok(Self::new(s))
    }

    /// Opens the session file at `path` and replays its answers.
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let s = py.detach(|| Session::open(&path)).map_err(session_err)?;
        Ok(Self::new(s))
    }

    /// The session file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// True once the session has ended: its budget or costs are spent, or the algorithm asks only
    /// self-duels (or is past its horizon); see `docs/ask-protocol.md`, "Self-duels".
    fn done(&self) -> PyResult<bool> {
        let g = self.guard()?;
        Ok(g.as_ref().expect("checked").done())
    }

    /// Self-duels the session answered automatically so far (never shown to the person).
    fn automatic(&self) -> PyResult<usize> {
        let g = self.guard()?;
        Ok(g.as_ref().expect("checked").automatic())
    }

    /// The protocol's `session` message (name, algorithm, answered, budget, attributes, candidates).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.guard()?;
        from_json(py, &protocol::session_message(g.as_ref().expect("checked")))
    }

    /// The pending query as the protocol's `query` message, or None once the budget is spent.
    fn ask<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let mut g = self.guard()?;
        let s = g.as_mut().expect("checked");
        let q = py.detach(|| s.pending()).map_err(session_err)?;
        q.map(|q| from_json(py, &protocol::query_message(s, &q))).transpose()
    }

    /// Answers `query` (a `query` message from `ask`) with the protocol's answer message `answer`
    /// (JSON text), saving the session before it returns. A query that is not the pending one, or an
    /// answer that does not fit it, raises `AnswerError` and nothing changes.
    fn tell(&self, py: Python<'_>, query: &Bound<'_, PyAny>, answer: &str) -> PyResult<()> {
        let mut g = self.guard()?;
        let s = g.as_mut().expect("checked");
        let pending = py.detach(|| s.pending()).map_err(session_err)?;
        let Some(pending) = pending else {
            return Err(AnswerError::new_err("the session has ended: no query is pending"));
        };
        let expected = protocol::query_message(s, &pending);
        let given: serde_json::Value =
            serde_json::from_str(&py.import("json")?.call_method1("dumps", (query,))?.extract::<String>()?)
                .map_err(|e| AnswerError::new_err(format!("query: not a query message ({e})")))?;
        if given != expected {
            return Err(AnswerError::new_err(format!(
                "this query is not the pending one: it is {}, the pending query is {} (ask() returns it)",
                short(&given),
                short(&expected)
            )));
        }
        let answer = match protocol::parse_answer(&pending, answer).map_err(AnswerError::new_err)? {
            protocol::Reply::Answer(a) => StoredAnswer::Answer(a),
            protocol::Reply::Abstain(k) => StoredAnswer::Abstain(k),
            protocol::Reply::Quit => {
                return Err(AnswerError::new_err("quit is not an answer: stop calling tell() (everything is saved)"));
            }
        };
        py.detach(|| s.record(answer)).map_err(session_err)
    }

    /// The current recommendation as an option dict, or None.
    fn recommend<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let g = self.guard()?;
        let s = g.as_ref().expect("checked");
        s.recommendation().map(|i| from_json(py, &s.body().candidates.json(i))).transpose()
    }

    /// The answered queries, one dict per step: `t` (1-based position in the history, automatic
    /// steps included), `kind`, `options` (the options of the query, as option dicts), `answer`
    /// (the protocol's answer message that gives the same answer), `automatic` (true for a
    /// self-duel the session answered itself, never shown to the person) and `stored` (the step
    /// as the session file stores it).
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.guard()?;
        let body = g.as_ref().expect("checked").body();
        let steps = body
            .history
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let options: Vec<serde_json::Value> =
                    step.query.indices().into_iter().map(|x| body.candidates.json(x)).collect();
                let stored = serde_json::to_value(step).map_err(|e| SessionError::new_err(e.to_string()))?;
                Ok(serde_json::json!({
                    "t": i + 1,
                    "kind": step.query.kind(),
                    "options": options,
                    "answer": answer_message(&step.answer),
                    "automatic": step.automatic,
                    "stored": stored,
                }))
            })
            .collect::<PyResult<Vec<_>>>()?;
        from_json(py, &serde_json::Value::Array(steps))
    }

    /// The options: (attribute names, option names, raw values as an n×d array).
    #[allow(clippy::type_complexity)]
    fn candidates<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Vec<String>, Vec<String>, Bound<'py, numpy::PyArray2<f64>>)> {
        let g = self.guard()?;
        let c = &g.as_ref().expect("checked").body().candidates;
        let n = c.values.len();
        let d = c.attributes.len();
        let m = nalgebra::DMatrix::from_fn(n, d, |i, j| c.values[i][j]);
        Ok((c.attributes.clone(), c.names.clone(), arrays::to_numpy(py, &m)))
    }

    /// Releases the session file's lock; the object cannot be used afterwards.
    fn close(&self) {
        if let Ok(mut g) = self.inner.lock() {
            g.take();
        }
    }
}

/// The protocol's answer message that gives answer `a` (`{"choice": "a"}`, `{"skip": true}`, …).
fn answer_message(a: &StoredAnswer) -> serde_json::Value {
    use bohf_core::{Abstention, Answer};
    match *a {
        StoredAnswer::Answer(Answer::Duel { first_wins }) => {
            serde_json::json!({ "choice": if first_wins { "a" } else { "b" } })
        }
        StoredAnswer::Answer(Answer::Label { accept }) => serde_json::json!({ "accept": accept }),
        StoredAnswer::Answer(Answer::Value(v)) => serde_json::json!({ "value": v }),
        StoredAnswer::Answer(Answer::Choice { index }) => serde_json::json!({ "choice": index }),
        StoredAnswer::Abstain(Abstention::NoPreference) => serde_json::json!({ "no_preference": true }),
        StoredAnswer::Abstain(Abstention::Skip) => serde_json::json!({ "skip": true }),
    }
}

/// A query message in a few words: `t = 3, duel of options 5 and 3`.
fn short(q: &serde_json::Value) -> String {
    let idx = |k: &str| q.get(k).and_then(|o| o.get("index")).map(|i| i.to_string()).unwrap_or_else(|| "?".into());
    let t = q.get("t").map(|t| t.to_string()).unwrap_or_else(|| "?".into());
    match q.get("kind").and_then(|k| k.as_str()) {
        Some("duel") => format!("t = {t}, a duel of options {} and {}", idx("a"), idx("b")),
        Some("choice") => {
            let options: Vec<String> = q
                .get("options")
                .and_then(|o| o.as_array())
                .map(|o| {
                    o.iter().map(|x| x.get("index").map(|i| i.to_string()).unwrap_or_else(|| "?".into())).collect()
                })
                .unwrap_or_default();
            format!("t = {t}, a choice among options {}", options.join(", "))
        }
        Some(kind) => format!("t = {t}, a {kind} query about option {}", idx("option")),
        None => "not a query message".into(),
    }
}
