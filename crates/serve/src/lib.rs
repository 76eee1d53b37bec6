//! `bohf serve`: a web page where people answer a session's queries (`docs/serve.md`).
//!
//! One server serves either one session file ([`Mode::Single`]) or a study folder of one session
//! per participant ([`Mode::Study`], see [`study`]). Every session is reached at `/p/TOKEN/`, where
//! TOKEN is 128 bits from the operating system's random source, so a page can be opened only by
//! whoever was given its address. The page is plain HTML, CSS and JavaScript compiled into the
//! binary (no build step, no CDN: it works with no internet).
//!
//! Answers are validated by [`bohf_session::protocol::answer_of`] (the code of `bohf ask
//! --json` and the Python package: no key twice, no unknown key) and saved by [`Session::record`] (atomically, with the session's checksum) before the
//! reply, and so before the page shows the next query. Each answer names the query number `t` it
//! answers: a replayed answer, or a second tab's answer to a query already answered, gets 409 and
//! nothing is written.

#![warn(missing_docs)]

pub mod html;
pub mod net;
pub mod study;

pub use net::Limits;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use bohf_session::protocol::{Reply, answer_of, query_message, strict_object};
use bohf_session::{Session, SessionError, StoredAnswer};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The largest request body accepted (an answer is a few dozen bytes).
pub const MAX_BODY: usize = 16 * 1024;

/// Why the server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A session could not be opened or created.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The study folder is incomplete or damaged (names the file).
    #[error("{0}")]
    Study(String),
    /// The address cannot be bound, or the server failed.
    #[error("{0}")]
    Net(String),
}

/// Result with [`ServeError`].
pub type Result<T, E = ServeError> = std::result::Result<T, E>;

/// What to serve.
#[derive(Debug, Clone)]
pub enum Mode {
    /// One session file (created beforehand with `bohf ask new`).
    Single(PathBuf),
    /// A study folder ([`study`]).
    Study(PathBuf),
}

/// Where to listen and what to serve.
#[derive(Debug, Clone)]
pub struct Options {
    /// The address to bind (loopback unless the person says otherwise).
    pub host: IpAddr,
    /// The port (0: any free port).
    pub port: u16,
    /// What to serve.
    pub mode: Mode,
    /// Connection limits and timeouts.
    pub limits: Limits,
}

/// A fresh unguessable token: 128 bits from the operating system (`/dev/urandom`), in hex.
pub fn token() -> Result<String> {
    use std::io::Read;
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .map_err(|e| ServeError::Net(format!("cannot read random bytes from /dev/urandom for a token: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// One open session (its file lock held while the server runs).
pub(crate) type Shared = Arc<Mutex<Session>>;

/// The server's state: the open sessions by token, and the study (if any).
pub(crate) struct App {
    pub(crate) sessions: Mutex<HashMap<String, Shared>>,
    pub(crate) study: Option<study::Study>,
    pub(crate) limits: Limits,
}

impl App {
    fn session(&self, key: &str) -> Option<Shared> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner()).get(key).cloned()
    }
}

/// A bound server, ready to [`Server::run`].
pub struct Server {
    listener: std::net::TcpListener,
    app: Arc<App>,
    urls: Vec<(String, String)>,
    max_connections: usize,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.listener.local_addr().ok()).finish_non_exhaustive()
    }
}

impl Server {
    /// Opens the session(s) (taking their locks) and binds the address; nothing is served until
    /// [`Server::run`].
    pub fn bind(opts: &Options) -> Result<Self> {
        opts.limits.check().map_err(ServeError::Net)?;
        let listener = std::net::TcpListener::bind(SocketAddr::new(opts.host, opts.port))
            .map_err(|e| ServeError::Net(format!("cannot listen on {}:{}: {e}", opts.host, opts.port)))?;
        listener.set_nonblocking(true).map_err(|e| ServeError::Net(e.to_string()))?;
        let addr = listener.local_addr().map_err(|e| ServeError::Net(e.to_string()))?;
        let base = format!("http://{addr}");
        let mut sessions = HashMap::new();
        let mut urls = Vec::new();
        let study = match &opts.mode {
            Mode::Single(path) => {
                let s = Session::open(path)?;
                let key = token()?;
                urls.push((s.body().spec.name.clone(), format!("{base}/p/{key}/")));
                sessions.insert(key, Arc::new(Mutex::new(s)));
                None
            }
            Mode::Study(dir) => {
                let (study, open) = study::Study::open(dir)?;
                urls.push(("researcher's overview".into(), format!("{base}/study/{}/", study.researcher)));
                if study.join_open() {
                    urls.push(("new participants join at".into(), format!("{base}/join")));
                }
                for (id, key, s) in open {
                    urls.push((format!("participant {id}"), format!("{base}/p/{key}/")));
                    sessions.insert(key, Arc::new(Mutex::new(s)));
                }
                Some(study)
            }
        };
        let max_connections = match net::open_file_limit() {
            Some(n) => opts.limits.max_connections.min(net::descriptor_budget(n)),
            None => opts.limits.max_connections,
        };
        let app = App { sessions: Mutex::new(sessions), study, limits: opts.limits.clone() };
        Ok(Self { listener, app: Arc::new(app), urls, max_connections })
    }

    /// The connections served at once at most: [`Limits::max_connections`], lowered to fit the
    /// process's open-file limit ([`net::descriptor_budget`]).
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// What to open: (who, URL) pairs (the session's page; in a study the researcher's overview,
    /// the join page and each participant's page).
    pub fn urls(&self) -> &[(String, String)] {
        &self.urls
    }

    /// Serves until the process ends (or the server fails).
    pub fn run(self) -> Result<()> {
        // Timers: the timeouts, and the accept loop's pause when it runs out of descriptors. A
        // few blocking threads (each may hold a session's files while it saves an answer).
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(8)
            .enable_all()
            .build()
            .map_err(|e| ServeError::Net(format!("cannot start the server: {e}")))?;
        let limits = self.app.limits.clone();
        let router = router(self.app);
        rt.block_on(async move {
            let listener =
                tokio::net::TcpListener::from_std(self.listener).map_err(|e| ServeError::Net(e.to_string()))?;
            net::serve(listener, router, limits, self.max_connections).await;
            Ok(())
        })
    }
}

fn router(app: Arc<App>) -> Router {
    let request_timeout = app.limits.request_timeout;
    Router::new()
        .route("/", get(index))
        .route(
            "/assets/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", include_str!("assets/app.js")) }),
        )
        .route(
            "/assets/style.css",
            get(|| async { asset("text/css; charset=utf-8", include_str!("assets/style.css")) }),
        )
        .route("/p/{key}", get(page_without_slash))
        .route("/p/{key}/", get(page))
        .route("/p/{key}/api/state", get(state))
        .route("/p/{key}/api/answer", post(answer))
        .route("/p/{key}/img/{i}", get(image))
        .route("/join", get(study::join))
        .route("/study/{key}/", get(study::overview))
        .route("/study/{key}/answers.csv", get(study::export))
        .route("/study/{key}/recommendations.csv", get(study::export_recommendations))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page") })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(request_timeout, net::request_timeout))
        .with_state(app)
}

/// A JSON error `{"error": message}` with `status`.
pub(crate) fn error(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({ "error": message }))
}

/// `v` as a JSON response with `status` (never cached).
pub(crate) fn json_response(status: StatusCode, v: &Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")], v.to_string())
        .into_response()
}

fn asset(content_type: &'static str, text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], text).into_response()
}

async fn index() -> Response {
    error(StatusCode::NOT_FOUND, "open the address that `bohf serve` printed (it holds the session's token)")
}

/// `/p/TOKEN` → `/p/TOKEN/` for a known token only (percent-encoded, so that no token, whatever a
/// hand-edited `tokens.json` holds, can put a line break into the `Location` header); else 404.
async fn page_without_slash(State(app): State<Arc<App>>, UrlPath(key): UrlPath<String>) -> Response {
    if app.session(&key).is_none() {
        return unknown_token();
    }
    Redirect::permanent(&format!("/p/{}/", percent_encode(&key))).into_response()
}

/// `s` with every byte but ASCII letters, digits, `-`, `_`, `.` and `~` percent-encoded.
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn unknown_token() -> Response {
    error(StatusCode::NOT_FOUND, "unknown session token: open the address that `bohf serve` printed")
}

async fn page(State(app): State<Arc<App>>, UrlPath(key): UrlPath<String>) -> Response {
    if app.session(&key).is_none() {
        return unknown_token();
    }
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], include_str!("assets/page.html")).into_response()
}

/// Runs blocking session work off the async threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, Response> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, &format!("the server failed: {e}")))
}

/// The page's view of a session: progress, the pending query (the protocol's `query` message:
/// a duel, a label, a value or a best-of-k choice) or `null` once done, and the recommendation
/// when the spec shows it ([`Session::recommendation_to_show`]: `null` before the person's first
/// answer).
pub fn state_of(s: &mut Session) -> Result<Value, SessionError> {
    let q = s.pending()?;
    let b = s.body();
    let show = b.spec.show_recommendation.unwrap_or(true);
    let rec = if show { s.recommendation_to_show().map(|i| b.candidates.json(i)) } else { None };
    let abstained = b.history.iter().filter(|st| matches!(st.answer, StoredAnswer::Abstain(_))).count();
    Ok(json!({
        "name": b.spec.name,
        "question": b.spec.question.clone().unwrap_or_else(|| "Which do you prefer?".into()),
        "answered": s.answered(), "abstained": abstained, "budget": s.budget(), "done": q.is_none(),
        "query": q.map(|q| query_message(s, &q)), "recommendation": rec,
    }))
}

fn session_error(e: SessionError) -> Response {
    match e {
        SessionError::Answer(m) => error(StatusCode::UNPROCESSABLE_ENTITY, &m),
        other => error(StatusCode::INTERNAL_SERVER_ERROR, &format!("{other}; nothing was written")),
    }
}

async fn state(State(app): State<Arc<App>>, UrlPath(key): UrlPath<String>) -> Response {
    let Some(shared) = app.session(&key) else { return unknown_token() };
    let out = blocking(move || {
        let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
        state_of(&mut s)
    })
    .await;
    match out {
        Ok(Ok(v)) => json_response(StatusCode::OK, &v),
        Ok(Err(e)) => session_error(e),
        Err(r) => r,
    }
}

/// Checks and records one answer message (JSON with `t`, the number of the query it answers):
/// the status and message of a refusal, or the new state. Nothing is written unless it is
/// accepted.
pub fn answer_message(s: &mut Session, body: &[u8]) -> Result<Value, (StatusCode, String)> {
    let text = std::str::from_utf8(body).map_err(|e| (StatusCode::BAD_REQUEST, format!("not UTF-8 text: {e}")))?;
    let v = strict_object(text).map_err(|m| (StatusCode::BAD_REQUEST, m))?;
    let Some(t) = v.get("t").and_then(Value::as_u64) else {
        return Err((StatusCode::BAD_REQUEST, r#"an answer needs "t": the number of the query it answers"#.into()));
    };
    let bad = |e: SessionError| (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}; nothing was written"));
    let now = s.answered() as u64 + 1;
    let Some(q) = s.pending().map_err(bad)? else {
        return Err((
            StatusCode::CONFLICT,
            format!("the session is finished ({} of {} answered): nothing was written", s.answered(), s.budget()),
        ));
    };
    if t != now {
        return Err((
            StatusCode::CONFLICT,
            if t < now {
                format!(
                    "query {t} was already answered (perhaps in another tab); nothing was written: query {now} is next"
                )
            } else {
                format!("query {t} has not been asked yet; nothing was written: query {now} is next")
            },
        ));
    }
    let reply = answer_of(&q, &v, &["t"]).map_err(|m| (StatusCode::BAD_REQUEST, m))?;
    let stored = match reply {
        Reply::Quit => {
            return Err((StatusCode::BAD_REQUEST, "`quit` means nothing to the server: close the page".into()));
        }
        Reply::Answer(a) => StoredAnswer::Answer(a),
        Reply::Abstain(k) => StoredAnswer::Abstain(k),
    };
    s.record(stored).map_err(|e| match e {
        SessionError::Answer(m) => (StatusCode::BAD_REQUEST, m),
        other => bad(other),
    })?;
    state_of(s).map_err(bad)
}

async fn answer(
    State(app): State<Arc<App>>,
    UrlPath(key): UrlPath<String>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let Some(shared) = app.session(&key) else { return unknown_token() };
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            return error(
                e.status(),
                &format!("the answer cannot be read ({e}); at most {MAX_BODY} bytes; nothing was written"),
            );
        }
    };
    let out = blocking(move || {
        let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
        answer_message(&mut s, &body)
    })
    .await;
    match out {
        Ok(Ok(v)) => json_response(StatusCode::OK, &v),
        Ok(Err((status, m))) => error(status, &m),
        Err(r) => r,
    }
}

/// The content type of an image file, by its extension (others are not served).
fn image_type(path: &std::path::Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        _ => return None,
    })
}

async fn image(State(app): State<Arc<App>>, UrlPath((key, i)): UrlPath<(String, String)>) -> Response {
    let Some(shared) = app.session(&key) else { return unknown_token() };
    let Ok(i) = i.parse::<usize>() else {
        return error(StatusCode::NOT_FOUND, "an image is asked for by option number");
    };
    let found = {
        let s = shared.lock().unwrap_or_else(|p| p.into_inner());
        let c = &s.body().candidates;
        match &c.images {
            None => Err((StatusCode::NOT_FOUND, "the candidates have no images".to_string())),
            Some(_) if i >= c.names.len() => Err((StatusCode::NOT_FOUND, format!("no option {i}"))),
            Some(im) => match im.path(i) {
                Ok(Some(p)) => Ok(p),
                Ok(None) => Err((StatusCode::NOT_FOUND, format!("option {i} has no image"))),
                Err(why) if why.contains("outside") || why.contains("inside") => Err((StatusCode::FORBIDDEN, why)),
                Err(why) => Err((StatusCode::NOT_FOUND, why)),
            },
        }
    };
    let path = match found {
        Ok(p) => p,
        Err((status, m)) => return error(status, &m),
    };
    let Some(ct) = image_type(&path) else {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "only .png, .jpg, .jpeg, .gif, .webp and .svg images are served",
        );
    };
    // Streamed in chunks: a large picture never sits in memory whole.
    let opened = match tokio::fs::File::open(&path).await {
        Ok(file) => file.metadata().await.map(|m| (file, m.len())),
        Err(e) => Err(e),
    };
    match opened {
        Ok((file, len)) => (
            [
                (header::CONTENT_TYPE, ct.to_string()),
                (header::CONTENT_LENGTH, len.to_string()),
                (header::CONTENT_SECURITY_POLICY, "sandbox".into()),
                (header::CACHE_CONTROL, "private, max-age=3600".into()),
            ],
            Body::from_stream(chunks(file)),
        )
            .into_response(),
        Err(e) => error(StatusCode::NOT_FOUND, &format!("image of option {i}: {e}")),
    }
}

/// The size of one chunk of a streamed file.
pub const CHUNK: usize = 64 * 1024;

/// `file`'s bytes as a stream of chunks of at most [`CHUNK`] bytes (ends after an error).
fn chunks(file: tokio::fs::File) -> impl futures_util::Stream<Item = std::io::Result<Bytes>> + Send {
    use tokio::io::AsyncReadExt;
    futures_util::stream::unfold(Some(file), |file| async move {
        let mut file = file?;
        let mut buf = vec![0u8; CHUNK];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(Bytes::from(buf)), Some(file)))
            }
            Err(e) => Some((Err(e), None)),
        }
    })
}
