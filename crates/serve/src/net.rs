//! Connections: the accept loop, the connection limits and the timeouts (`docs/serve.md#limits`).
//!
//! One client must not be able to stop the server for everyone else. So:
//!
//! * at most [`Limits::max_connections`] connections are open at once (lowered at start to fit the
//!   process's descriptor limit, see [`descriptor_budget`]), and at most
//!   [`Limits::max_per_client`] from one IP address; a connection over either limit is closed at
//!   once, before any byte is read;
//! * a connection has [`Limits::header_timeout`] to send a complete request head, counted from the
//!   moment it waits for one (so a fresh or a kept-alive connection that sends nothing is closed
//!   then too: hyper's header-read timer starts whenever the connection waits for a request);
//! * a request has [`Limits::request_timeout`] from its head to its response (the body read and the
//!   handling), else 408;
//! * a connection that moves no byte in either direction for [`Limits::idle_timeout`] is closed (a
//!   client that stops reading a picture half-way);
//! * when `accept` itself fails (e.g. "too many open files" from other descriptors of the process),
//!   the loop waits a little and goes on: it never ends the server.

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::Response;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The server's limits. [`Limits::default`] holds the documented defaults (`bohf serve --help`,
/// `docs/serve.md`).
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Open connections at most (lowered to fit the descriptor limit, [`descriptor_budget`]).
    pub max_connections: usize,
    /// Open connections from one IP address at most.
    pub max_per_client: usize,
    /// Time to receive a complete request head, counted from when the connection waits for one.
    pub header_timeout: Duration,
    /// Time from a request's head to its response.
    pub request_timeout: Duration,
    /// A connection that moves no byte for this long is closed.
    pub idle_timeout: Duration,
    /// Participants a study without `participants.txt` admits through `/join` at most (counting
    /// the ones already in `tokens.json`).
    pub max_participants: usize,
    /// Joins per minute at most from one IP address.
    pub joins_per_minute: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_connections: 512,
            max_per_client: 32,
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_participants: 1000,
            joins_per_minute: 10,
        }
    }
}

impl Limits {
    /// Checks that every limit is usable: at least one connection, per client too, timeouts
    /// above zero, the idle timeout above the request timeout (so a slow answer is not cut as
    /// idle).
    pub fn check(&self) -> Result<(), String> {
        if self.max_connections == 0 || self.max_per_client == 0 {
            return Err("--max-connections and --max-per-client must be at least 1".into());
        }
        for (name, d) in [
            ("--header-timeout", self.header_timeout),
            ("--request-timeout", self.request_timeout),
            ("--idle-timeout", self.idle_timeout),
        ] {
            if d.is_zero() {
                return Err(format!("{name} must be above 0 seconds"));
            }
        }
        if self.idle_timeout <= self.request_timeout {
            return Err(format!(
                "--idle-timeout ({} s) must be longer than --request-timeout ({} s)",
                self.idle_timeout.as_secs_f64(),
                self.request_timeout.as_secs_f64()
            ));
        }
        if self.joins_per_minute == 0 {
            return Err("--joins-per-minute must be at least 1 (a study with a fixed list needs no joins)".into());
        }
        Ok(())
    }
}

/// Descriptors kept for everything but connections: the listener, the runtime, session and lock
/// files while an answer is saved.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// The process's soft limit on open files (`Max open files` of `/proc/self/limits`), if known.
pub fn open_file_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.trim_start_matches("Max open files").split_whitespace().next()?;
    soft.parse().ok() // "unlimited" → None
}

/// The connections that fit in `nofile` descriptors: each connection takes one, and one more while
/// it streams a picture, after [`RESERVED_DESCRIPTORS`]; at least 1.
pub fn descriptor_budget(nofile: u64) -> usize {
    usize::try_from(nofile.saturating_sub(RESERVED_DESCRIPTORS) / 2).unwrap_or(usize::MAX).max(1)
}

/// Open connections, in total and per IP address.
#[derive(Default)]
struct Counts {
    total: usize,
    by_ip: HashMap<IpAddr, usize>,
}

/// One admitted connection; dropping it frees its place.
struct Admitted {
    counts: Arc<Mutex<Counts>>,
    ip: IpAddr,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        c.total -= 1;
        if let Some(n) = c.by_ip.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                c.by_ip.remove(&self.ip);
            }
        }
    }
}

fn admit(counts: &Arc<Mutex<Counts>>, ip: IpAddr, max_total: usize, max_per_client: usize) -> Option<Admitted> {
    let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
    let mine = c.by_ip.get(&ip).copied().unwrap_or(0);
    if c.total >= max_total || mine >= max_per_client {
        return None;
    }
    c.total += 1;
    *c.by_ip.entry(ip).or_insert(0) += 1;
    Some(Admitted { counts: counts.clone(), ip })
}

/// A TCP stream that notes the time of its last byte moved (milliseconds since `start`).
struct Watched {
    inner: TcpStream,
    start: Instant,
    last: Arc<AtomicU64>,
}

impl Watched {
    fn touch(&self) {
        self.last.store(self.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.touch();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        r
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Resolves once `last` is `idle` old.
async fn idle(start: Instant, last: Arc<AtomicU64>, idle: Duration) {
    loop {
        let since = start.elapsed().saturating_sub(Duration::from_millis(last.load(Ordering::Relaxed)));
        if since >= idle {
            return;
        }
        tokio::time::sleep(idle - since).await;
    }
}

/// The whole-request timeout, as a middleware: 408 when the body read and the handling take longer.
pub(crate) async fn request_timeout(
    axum::extract::State(limit): axum::extract::State<Duration>,
    req: Request,
    next: axum::middleware::Next,
) -> Response {
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) => r,
        Err(_) => crate::error(
            StatusCode::REQUEST_TIMEOUT,
            &format!("the request took longer than {} s; nothing was written", limit.as_secs_f64()),
        ),
    }
}

/// Accepts and serves connections until the process ends.
pub(crate) async fn serve(listener: tokio::net::TcpListener, router: Router, limits: Limits, max_total: usize) {
    let counts = Arc::new(Mutex::new(Counts::default()));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).max_buf_size(64 * 1024);
    let builder = Arc::new(builder);
    let mut last_complaint: Option<Instant> = None;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                // Out of descriptors (or a connection reset before it was accepted): wait, go on.
                if last_complaint.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
                    eprintln!("bohf serve: cannot accept a connection ({e}); retrying");
                    last_complaint = Some(Instant::now());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(admitted) = admit(&counts, peer.ip(), max_total, limits.max_per_client) else {
            drop(stream); // over a limit: closed before any byte is read
            continue;
        };
        let _ = stream.set_nodelay(true);
        let start = Instant::now();
        let last = Arc::new(AtomicU64::new(0));
        let io = TokioIo::new(Watched { inner: stream, start, last: last.clone() });
        // The peer's address for the handlers (the join rate limit), as axum's `ConnectInfo`.
        let service = TowerToHyperService::new(router.clone().layer(axum::Extension(axum::extract::ConnectInfo(peer))));
        let builder = builder.clone();
        let idle_limit = limits.idle_timeout;
        tokio::spawn(async move {
            let conn = builder.serve_connection(io, service);
            tokio::select! {
                _ = conn => {}
                _ = idle(start, last, idle_limit) => {}
            }
            drop(admitted);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_count_connections_in_total_and_per_address() {
        let counts = Arc::new(Mutex::new(Counts::default()));
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let a1 = admit(&counts, a, 3, 2).unwrap();
        let a2 = admit(&counts, a, 3, 2).unwrap();
        assert!(admit(&counts, a, 3, 2).is_none(), "a third from one address");
        let b1 = admit(&counts, b, 3, 2).unwrap();
        assert!(admit(&counts, b, 3, 2).is_none(), "a fourth in total");
        drop(a1);
        let a3 = admit(&counts, a, 3, 2).unwrap();
        drop((a2, a3, b1));
        let c = counts.lock().unwrap();
        assert_eq!((c.total, c.by_ip.len()), (0, 0));
    }

    #[test]
    fn the_descriptor_budget_leaves_room_for_files() {
        assert_eq!(descriptor_budget(256), 96);
        assert_eq!(descriptor_budget(1024), 480);
        assert_eq!(descriptor_budget(10), 1);
        assert!(Limits::default().check().is_ok());
        let bad = Limits { idle_timeout: Duration::from_secs(5), ..Limits::default() };
        assert!(bad.check().unwrap_err().contains("--idle-timeout"));
    }
}
