//! Study mode (`bohf serve --study DIR`): one session per participant, each at its own address.
//!
//! The study folder holds
//!
//! * `study.toml`: the session spec every participant's session is made from (as for `bohf ask
//!   new`; a relative CSV path is relative to it);
//! * `participants.txt` (optional): one participant id per line (letters, digits, `-`, `_`; `#`
//!   starts a comment). With it the list is fixed and every listed participant's session is
//!   created at start; without it, each visit to `/join` creates a new participant (`p001`, …);
//! * `tokens.json` (written by the server; keep it private): the researcher's token and each
//!   participant's id and token, so that the addresses stay the same across restarts;
//! * `sessions/ID.json`: each participant's session file (the format of `bohf ask`).

use crate::html::{self, Html};
use crate::{App, Result, ServeError, Shared, error, token};
use axum::extract::{ConnectInfo, Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use bohf_core::{Abstention, Answer};
use bohf_experiments::lock::{LockGuard, lock_exclusive};
use bohf_session::{Session, SessionBody, Stamp, StoredAnswer, StoredQuery};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One participant: an id and the token of their address.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Participant {
    id: String,
    token: String,
}

/// `tokens.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Roster {
    researcher: String,
    participants: Vec<Participant>,
}

/// A participant's id, token and open session.
pub(crate) type Opened = (String, String, Session);

/// A participant's id, token and session, as the server holds it.
type Listed = (String, String, Shared);

/// An open study.
pub(crate) struct Study {
    dir: PathBuf,
    /// The researcher's token (the overview and the export).
    pub(crate) researcher: String,
    body: SessionBody,
    listed: bool,
    roster: Mutex<Roster>,
    /// Recent joins per IP address (the rate limit of `/join`).
    joins: Mutex<HashMap<IpAddr, Bucket>>,
    /// The study's lock (`DIR/study.lock`), held while the server runs: the participants' sessions
    /// let go of their own locks while they wait ([`Session::release_lock`]).
    _lock: LockGuard,
}

/// A token bucket: `tokens` joins left, refilled at the per-minute rate since `at`.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Study {
    /// Takes one join from `ip`'s bucket (of `per_minute`), or says how long to wait.
    fn take_join(&self, ip: IpAddr, per_minute: u32) -> Result<(), Duration> {
        let now = Instant::now();
        let cap = f64::from(per_minute);
        let mut joins = self.joins.lock().unwrap_or_else(|p| p.into_inner());
        if joins.len() > 10_000 {
            // Forget the addresses whose bucket is full again (bounded memory).
            joins.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * cap / 60.0 < cap);
        }
        let b = joins.entry(ip).or_insert(Bucket { tokens: cap, at: now });
        b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * cap / 60.0).min(cap);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) * 60.0 / cap))
        }
    }
}

fn io(path: &Path, what: &str, e: impl std::fmt::Display) -> ServeError {
    ServeError::Study(format!("study: cannot {what} `{}`: {e}", path.display()))
}

/// Checks a participant id: 1 to 64 letters, digits, `-` or `_`.
fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(format!("participant id `{id}`: use 1 to 64 letters, digits, `-` or `_`"));
    }
    Ok(())
}

impl Study {
    fn tokens_path(&self) -> PathBuf {
        self.dir.join("tokens.json")
    }

    fn session_path(&self, id: &str) -> PathBuf {
        self.dir.join("sessions").join(format!("{id}.json"))
    }

    /// Whether `/join` creates participants (no `participants.txt`).
    pub(crate) fn join_open(&self) -> bool {
        !self.listed
    }

    fn save_roster(&self, roster: &Roster) -> Result<()> {
        let text = serde_json::to_string_pretty(roster).map_err(|e| ServeError::Study(e.to_string()))? + "\n";
        bohf_experiments::write_atomic(self.tokens_path(), text.as_bytes())
            .map_err(|e| io(&self.tokens_path(), "write", e))
    }

    /// Opens (or creates) participant `id`'s session, and lets go of its lock (so that it holds
    /// no descriptor while it waits; the study's lock keeps other servers out).
    fn open_session(&self, id: &str) -> Result<Session> {
        let path = self.session_path(id);
        let mut s =
            if path.exists() { Session::open(&path)? } else { Session::create(&path, self.body.clone(), false)? };
        s.release_lock();
        Ok(s)
    }

    /// Opens the study in `dir`: reads the spec, the participant list and the tokens (adding
    /// tokens for new listed participants), and opens every participant's session (creating the
    /// missing ones). Returns the study and (id, token, session) of every participant.
    pub(crate) fn open(dir: &Path) -> Result<(Self, Vec<Opened>)> {
        let spec = dir.join("study.toml");
        if !spec.exists() {
            return Err(ServeError::Study(format!(
                "study: `{}` not found: a study folder holds the session spec `study.toml` (see docs/serve.md)",
                spec.display()
            )));
        }
        let lock = lock_exclusive(&dir.join("study.lock"), &format!("study `{}`", dir.display()))
            .map_err(|e| ServeError::Study(e.to_string()))?;
        let body = bohf_session::prepare(&spec)?;
        let list_path = dir.join("participants.txt");
        let listed = list_path.exists();
        let mut ids = Vec::new();
        if listed {
            let text = std::fs::read_to_string(&list_path).map_err(|e| io(&list_path, "read", e))?;
            for (n, line) in text.lines().enumerate() {
                let id = line.split('#').next().unwrap_or("").trim();
                if id.is_empty() {
                    continue;
                }
                check_id(id)
                    .map_err(|m| ServeError::Study(format!("`{}`, line {}: {m}", list_path.display(), n + 1)))?;
                if ids.iter().any(|x| x == id) {
                    return Err(ServeError::Study(format!(
                        "`{}`, line {}: participant `{id}` is listed twice",
                        list_path.display(),
                        n + 1
                    )));
                }
                ids.push(id.to_string());
            }
        }
        let tokens = dir.join("tokens.json");
        let mut roster = if tokens.exists() {
            let text = std::fs::read_to_string(&tokens).map_err(|e| io(&tokens, "read", e))?;
            serde_json::from_str::<Roster>(&text).map_err(|e| io(&tokens, "parse", e))?
        } else {
            Roster { researcher: token()?, participants: Vec::new() }
        };
        for p in &roster.participants {
            check_id(&p.id).map_err(|m| ServeError::Study(format!("`{}`: {m}", tokens.display())))?;
        }
        for id in &ids {
            if !roster.participants.iter().any(|p| &p.id == id) {
                roster.participants.push(Participant { id: id.clone(), token: token()? });
            }
        }
        std::fs::create_dir_all(dir.join("sessions")).map_err(|e| io(&dir.join("sessions"), "create", e))?;
        let study = Self {
            dir: dir.to_path_buf(),
            researcher: roster.researcher.clone(),
            body,
            listed,
            roster: Mutex::new(roster.clone()),
            joins: Mutex::new(HashMap::new()),
            _lock: lock,
        };
        study.save_roster(&roster)?;
        let mut open = Vec::new();
        for p in &roster.participants {
            open.push((p.id.clone(), p.token.clone(), study.open_session(&p.id)?));
        }
        Ok((study, open))
    }
}

/// `GET /join`: a new participant (study without a list), sent to their own page; at most
/// [`crate::Limits::max_participants`] in all, and [`crate::Limits::joins_per_minute`] per IP
/// address (else 503 or 429, nothing created).
pub(crate) async fn join(State(app): State<Arc<App>>, ConnectInfo(peer): ConnectInfo<SocketAddr>) -> Response {
    let Some(study) = &app.study else {
        return error(StatusCode::NOT_FOUND, "this server serves one session, not a study");
    };
    if study.listed {
        return error(
            StatusCode::NOT_FOUND,
            "this study has a fixed list of participants: ask the researcher for your address",
        );
    }
    let max = app.limits.max_participants;
    let full = move |n: usize| format!("the study is full ({n} participants, at most {max}): nobody can join any more");
    let known = study.roster.lock().unwrap_or_else(|p| p.into_inner()).participants.len();
    if known >= max {
        return error(StatusCode::SERVICE_UNAVAILABLE, &full(known));
    }
    if let Err(wait) = study.take_join(peer.ip(), app.limits.joins_per_minute) {
        let mut r = error(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "too many joins from your address (at most {} a minute): try again in {} s",
                app.limits.joins_per_minute,
                wait.as_secs() + 1
            ),
        );
        if let Ok(v) = header::HeaderValue::from_str(&(wait.as_secs() + 1).to_string()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return r;
    }
    let app2 = app.clone();
    let made = tokio::task::spawn_blocking(move || -> Result<String, (StatusCode, String)> {
        let study = app2.study.as_ref().expect("checked above");
        let mut roster = study.roster.lock().unwrap_or_else(|p| p.into_inner());
        if roster.participants.len() >= max {
            return Err((StatusCode::SERVICE_UNAVAILABLE, full(roster.participants.len())));
        }
        let internal = |e: ServeError| (StatusCode::INTERNAL_SERVER_ERROR, format!("cannot add a participant: {e}"));
        let mut n = roster.participants.len() + 1;
        while roster.participants.iter().any(|p| p.id == format!("p{n:03}")) {
            n += 1;
        }
        let p = Participant { id: format!("p{n:03}"), token: token().map_err(internal)? };
        let mut next = roster.clone();
        next.participants.push(p.clone());
        study.save_roster(&next).map_err(internal)?;
        *roster = next;
        let s = study.open_session(&p.id).map_err(internal)?;
        app2.sessions.lock().unwrap_or_else(|p| p.into_inner()).insert(p.token.clone(), Arc::new(Mutex::new(s)));
        Ok(p.token)
    })
    .await;
    match made {
        Ok(Ok(key)) => Redirect::to(&format!("/p/{key}/")).into_response(),
        Ok(Err((status, m))) => error(status, &m),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// Every participant (id, token, session) in the roster's order, checking the researcher's token.
fn participants(app: &App, key: &str) -> Result<Vec<Listed>, (StatusCode, &'static str)> {
    let Some(study) = &app.study else {
        return Err((StatusCode::NOT_FOUND, "this server serves one session, not a study"));
    };
    if key != study.researcher {
        return Err((StatusCode::NOT_FOUND, "unknown researcher token: open the address that `bohf serve` printed"));
    }
    let roster = study.roster.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Ok(roster.participants.into_iter().filter_map(|p| app.session(&p.token).map(|s| (p.id, p.token, s))).collect())
}

/// One row of the overview.
const OVERVIEW_ROW: &str = "<tr><td>{id}</td><td>{answered}</td><td>{abstained}</td><td>{budget}</td><td>{status}</td>\
                            <td>{last}</td><td>{mean}</td><td>{rec}</td><td><a href=\"/p/{token}/\">page</a></td></tr>\n";

/// The overview page (`{rows}`: [`OVERVIEW_ROW`]s).
const OVERVIEW: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Study {name} — bohf</title>\
    <link rel=\"stylesheet\" href=\"/assets/style.css\"></head><body><main>\
    <h1>Study <q>{name}</q></h1><p id=\"summary\">{finished} of {total} participants finished. \
    <a href=\"answers.csv\">All answers (CSV)</a>, \
    <a href=\"recommendations.csv\">each participant's current recommendation (CSV)</a>. Times are UTC.</p>\
    <table id=\"participants\"><thead><tr><th>participant</th><th>answered</th><th>of which no preference or skip</th>\
    <th>budget</th><th>status</th><th>last answer</th><th>mean time to answer (s)</th><th>current recommendation</th>\
    <th>address</th></tr></thead><tbody>\n{rows}</tbody></table></main></body></html>\n";

/// `GET /study/TOKEN/`: the researcher's overview (answers per participant, finished or not).
pub(crate) async fn overview(State(app): State<Arc<App>>, UrlPath(key): UrlPath<String>) -> Response {
    let list = match participants(&app, &key) {
        Ok(l) => l,
        Err((status, m)) => return error(status, m),
    };
    let mut rows = Html::default();
    let (mut finished, total) = (0, list.len());
    for (id, token, s) in &list {
        let s = s.lock().unwrap_or_else(|p| p.into_inner());
        let abstained = s.body().history.iter().filter(|st| matches!(st.answer, StoredAnswer::Abstain(_))).count();
        finished += usize::from(s.done());
        let times = Times::of(&s);
        rows.push(&html::render(
            OVERVIEW_ROW,
            &[
                ("id", html::text(id)),
                ("answered", html::text(s.answered())),
                ("abstained", html::text(abstained)),
                ("budget", html::text(s.budget())),
                ("status", html::text(status(&s))),
                ("last", html::text(times.last.map(|t| t.rfc3339()).unwrap_or_else(|| "—".into()))),
                ("mean", html::text(times.mean().map(seconds).unwrap_or_else(|| "—".into()))),
                (
                    "rec",
                    html::text(
                        s.recommendation_to_show().map_or("none yet", |i| s.body().candidates.names[i].as_str()),
                    ),
                ),
                ("token", html::text(token)),
            ],
        ));
    }
    let name = app.study.as_ref().map(|s| s.body.spec.name.clone()).unwrap_or_default();
    let page = html::render(
        OVERVIEW,
        &[
            ("name", html::text(name)),
            ("finished", html::text(finished)),
            ("total", html::text(total)),
            ("rows", html::Value::Html(&rows)),
        ],
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], page.into_string())
        .into_response()
}

/// A participant's status: `finished` or `in progress`.
fn status(s: &Session) -> &'static str {
    if s.done() { "finished" } else { "in progress" }
}

/// Seconds as written in the overview and the CSV files (milliseconds, the times' resolution).
fn seconds(x: f64) -> String {
    format!("{x:.3}")
}

/// A participant's answering times, from the steps that record them.
struct Times {
    /// The latest `answered_at`.
    last: Option<Stamp>,
    /// The sum and count of the recorded times to answer.
    total: f64,
    count: usize,
}

impl Times {
    fn of(s: &Session) -> Self {
        let h = &s.body().history;
        let last = h.iter().filter_map(|st| st.answered_at).max();
        let recorded: Vec<f64> = h.iter().filter_map(|st| st.seconds_to_answer()).collect();
        Times { last, total: recorded.iter().sum(), count: recorded.len() }
    }

    /// The mean time to answer, over the answers that record one.
    fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.total / self.count as f64)
    }
}

/// One CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// The export: one row per recorded answer of every participant (`docs/serve.md`): `participant`,
/// `t` (position in the history, automatic answers included), `kind`, `option_a`, `option_b`,
/// `answer`, then `asked_at`, `answered_at` (UTC, RFC 3339) and `seconds` (time to answer), empty
/// where the session file records no times (automatic answers, files from before times existed).
pub fn answers_csv(rows: &[(String, &Session)]) -> String {
    let mut out = String::from("participant,t,kind,option_a,option_b,answer,asked_at,answered_at,seconds\n");
    for (id, s) in rows {
        let names = &s.body().candidates.names;
        for (t, step) in s.body().history.iter().enumerate() {
            let (a, b) = match step.query {
                StoredQuery::Duel { a, b } => (names[a].clone(), names[b].clone()),
                StoredQuery::Label { x } | StoredQuery::Value { x } => (names[x].clone(), String::new()),
                // Best of k: every option in `option_a`, joined by `|`.
                StoredQuery::Choice { ref options } => {
                    (options.iter().map(|&i| names[i].as_str()).collect::<Vec<_>>().join("|"), String::new())
                }
            };
            let answer = match step.answer {
                StoredAnswer::Answer(Answer::Choice { index }) => match &step.query {
                    StoredQuery::Choice { options } if index < options.len() => names[options[index]].clone(),
                    _ => format!("option {index}"),
                },
                // A self-duel the session answered itself (never shown): the coin's side, marked.
                StoredAnswer::Answer(Answer::Duel { first_wins }) if step.automatic => {
                    (if first_wins { "a (automatic)" } else { "b (automatic)" }).to_string()
                }
                StoredAnswer::Answer(Answer::Duel { first_wins }) => (if first_wins { "a" } else { "b" }).to_string(),
                StoredAnswer::Answer(Answer::Label { accept }) => {
                    (if accept { "accept" } else { "reject" }).to_string()
                }
                StoredAnswer::Answer(Answer::Value(v)) => format!("{v}"),
                StoredAnswer::Abstain(Abstention::NoPreference) => "no preference".into(),
                StoredAnswer::Abstain(Abstention::Skip) => "skip".into(),
            };
            let stamp = |s: Option<Stamp>| s.map(|s| s.rfc3339()).unwrap_or_default();
            let fields = [
                id.as_str(),
                &(t + 1).to_string(),
                step.query.kind(),
                &a,
                &b,
                &answer,
                &stamp(step.asked_at),
                &stamp(step.answered_at),
                &step.seconds_to_answer().map(seconds).unwrap_or_default(),
            ]
            .map(csv_field);
            out.push_str(&fields.join(","));
            out.push('\n');
        }
    }
    out
}

/// The researcher's second export: one row per participant (`docs/serve.md`): `participant`,
/// `answered`, `budget`, `status`, `last_answered_at` (UTC, RFC 3339; empty before the first
/// answer or without recorded times), `recommendation` (the option's name, empty before the
/// person's first answer: [`Session::recommendation_to_show`]) and one column
/// `recommendation.ATTRIBUTE` per attribute with its value.
pub fn recommendations_csv(rows: &[(String, &Session)]) -> String {
    let mut out = String::from("participant,answered,budget,status,last_answered_at,recommendation");
    if let Some((_, s)) = rows.first() {
        for a in &s.body().candidates.attributes {
            out.push(',');
            out.push_str(&csv_field(&format!("recommendation.{a}")));
        }
    }
    out.push('\n');
    for (id, s) in rows {
        let c = &s.body().candidates;
        let rec = s.recommendation_to_show();
        let mut fields = vec![
            id.clone(),
            s.answered().to_string(),
            s.budget().to_string(),
            status(s).to_string(),
            Times::of(s).last.map(|t| t.rfc3339()).unwrap_or_default(),
            rec.map(|i| c.names[i].clone()).unwrap_or_default(),
        ];
        fields.extend((0..c.attributes.len()).map(|j| rec.map(|i| format!("{}", c.values[i][j])).unwrap_or_default()));
        out.push_str(&fields.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// `GET /study/TOKEN/answers.csv`: every participant's answers ([`answers_csv`]).
pub(crate) async fn export(State(app): State<Arc<App>>, UrlPath(key): UrlPath<String>) -> Response {
    csv_export(&app, &key, "answers.csv", answers_csv)
}

/// `GET /study/TOKEN/recommendations.csv`: each participant's current recommendation
/// ([`recommendations_csv`]).
pub(crate) async fn export_recommendations(State(app): State<Arc<App>>, UrlPath(key): UrlPath<String>) -> Response {
    csv_export(&app, &key, "recommendations.csv", recommendations_csv)
}

/// A CSV download `name` made by `make` from every participant's session.
fn csv_export(app: &App, key: &str, name: &str, make: fn(&[(String, &Session)]) -> String) -> Response {
    let list = match participants(app, key) {
        Ok(l) => l,
        Err((status, m)) => return error(status, m),
    };
    let guards: Vec<_> =
        list.iter().map(|(id, _, s)| (id.clone(), s.lock().unwrap_or_else(|p| p.into_inner()))).collect();
    let rows: Vec<(String, &Session)> = guards.iter().map(|(id, g)| (id.clone(), &**g)).collect();
    let csv = make(&rows);
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
        csv,
    )
        .into_response()
}
