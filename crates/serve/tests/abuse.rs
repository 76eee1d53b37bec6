//! `bohf serve` against a hostile client (issue 33): the server runs in a child process (this test
//! binary again, running only `child_server`), sometimes under a lowered `ulimit -n`, and is
//! attacked over real connections.
//!
//! * one client holding 1,000 idle connections does not stop the others, and its connections are
//!   closed by the header timeout (item 1);
//! * `/join` is bounded and rate-limited, and a study's sessions hold no descriptor while idle, so a
//!   study of many participants restarts under a small descriptor limit (item 2);
//! * a large picture is streamed, not read into memory (item 6);
//! * the campaign: a mix of good and bad requests, slow and idle clients, and kill -9 of the
//!   server with answers in flight: no 5xx, no panic, no acknowledged answer lost
//!   (`BOHF_SERVE_ABUSE_REQUESTS`, `BOHF_SERVE_ABUSE_KILLS`, `BOHF_SERVE_ABUSE_CONNECTIONS` for the
//!   long mode, `docs/fuzzing.md`).

mod common;

use bohf_serve::{Limits, Mode, Options, Server};
use common::{answer_json, path_of, spec_text, tmp};
use std::io::{BufRead, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "BOHF_SERVE_ABUSE_CHILD";

/// Not a test of its own: the server process of the tests below (does nothing unless one of them
/// starts it). `BOHF_SERVE_ABUSE_CHILD` is `study|single PATH [key=value …]`, the keys setting
/// [`Limits`] fields (`header`, `request`, `idle` in seconds).
#[test]
fn child_server() {
    let Some(conf) = std::env::var_os(CHILD_ENV) else { return };
    let conf = conf.into_string().unwrap();
    let mut words = conf.split('\u{1f}');
    let kind = words.next().unwrap();
    let path = std::path::PathBuf::from(words.next().unwrap());
    let mut limits = Limits::default();
    for kv in words {
        let (k, v) = kv.split_once('=').unwrap();
        let secs = || Duration::from_secs_f64(v.parse().unwrap());
        match k {
            "header" => limits.header_timeout = secs(),
            "request" => limits.request_timeout = secs(),
            "idle" => limits.idle_timeout = secs(),
            "max_connections" => limits.max_connections = v.parse().unwrap(),
            "max_per_client" => limits.max_per_client = v.parse().unwrap(),
            "max_participants" => limits.max_participants = v.parse().unwrap(),
            "joins_per_minute" => limits.joins_per_minute = v.parse().unwrap(),
            _ => panic!("unknown child setting {k}"),
        }
    }
    let mode = if kind == "study" { Mode::Study(path) } else { Mode::Single(path) };
    let server = Server::bind(&Options { host: IpAddr::V4(Ipv4Addr::LOCALHOST), port: 0, mode, limits }).unwrap();
    // A line of its own (libtest has printed "test child_server ... " without a line break).
    println!("\nADDR {}", server.addr());
    println!("MAXCONN {}", server.max_connections());
    for (who, url) in server.urls() {
        println!("URL {who}|{url}");
    }
    println!("READY");
    server.run().unwrap();
}

/// A running child server.
struct Served {
    child: Child,
    addr: SocketAddr,
    max_connections: usize,
    urls: Vec<(String, String)>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Served {
    /// `who`'s page path (`p1` → `/p/TOKEN/`).
    fn page(&self, who: &str) -> String {
        self.urls
            .iter()
            .find(|(w, _)| w.ends_with(who))
            .unwrap_or_else(|| panic!("no {who} in {:?}", self.urls))
            .1
            .clone()
    }
    /// Still running (not exited, e.g. by a panic's 101).
    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(50));
        self.stderr.lock().unwrap().clone()
    }
}

/// Starts the child server (under `ulimit -n nofile` when given); `Err` with its stderr if it
/// does not start.
fn start(kind: &str, path: &Path, settings: &[&str], nofile: Option<u64>) -> Result<Served, String> {
    let exe = std::env::current_exe().unwrap();
    let mut conf = format!("{kind}\u{1f}{}", path.display());
    for s in settings {
        conf.push('\u{1f}');
        conf.push_str(s);
    }
    let mut cmd = match nofile {
        Some(n) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(format!("ulimit -n {n} && exec \"$0\" \"$@\"")).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    let mut child = cmd
        .args(["--exact", "child_server", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, conf)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let mut err_pipe = child.stderr.take().unwrap();
    let sink = stderr.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = err_pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut addr, mut max_connections, mut urls, mut ready) = (None, 0, Vec::new(), false);
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(a) = line.strip_prefix("ADDR ") {
            addr = Some(a.parse().unwrap());
        } else if let Some(m) = line.strip_prefix("MAXCONN ") {
            max_connections = m.parse().unwrap();
        } else if let Some(u) = line.strip_prefix("URL ") {
            let (who, url) = u.split_once('|').unwrap();
            urls.push((who.to_string(), path_of(url)));
        } else if line == "READY" {
            ready = true;
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    if !ready {
        let _ = child.wait();
        std::thread::sleep(Duration::from_millis(100));
        return Err(stderr.lock().unwrap().clone());
    }
    Ok(Served { child, addr: addr.unwrap(), max_connections, urls, stderr })
}

/// The participants' address in the campaign (the hostile requests come from 127.0.0.1, the idle
/// connections from 127.0.0.3, the slow client from 127.0.0.4: each its own client).
const PARTICIPANT: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

/// `GET`/`POST` from [`PARTICIPANT`]: status and JSON body.
fn participant(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> std::io::Result<(u16, serde_json::Value)> {
    let (status, text) = request_from(PARTICIPANT, addr, method, path, body)?;
    let v = serde_json::from_str(&text).map_err(|e| std::io::Error::other(format!("{e}: {text}")))?;
    Ok((status, v))
}

/// A connection to `to` from the loopback address `from` (so that the server sees another client).
fn connect_from(from: Ipv4Addr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    s.bind(&SocketAddr::new(IpAddr::V4(from), 0).into())?;
    s.connect_timeout(&to.into(), Duration::from_secs(5))?;
    let s: TcpStream = s.into();
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    Ok(s)
}

/// One request from `from` (Connection: close): status and body.
fn request_from(
    from: Ipv4Addr,
    to: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
) -> std::io::Result<(u16, String)> {
    let mut s = connect_from(from, to)?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    Ok((status, body))
}

/// Raises this process's soft descriptor limit to `want` if the hard limit allows (`prlimit`);
/// returns the soft limit in force.
fn raise_nofile(want: u64) -> u64 {
    let soft = || bohf_serve::net::open_file_limit().unwrap_or(u64::MAX);
    if soft() < want {
        let _ = Command::new("prlimit")
            .args(["--pid", &std::process::id().to_string(), &format!("--nofile={want}:")])
            .stderr(Stdio::null())
            .status();
    }
    soft()
}

/// Answers every query of the page `page` from address `from`; the number answered.
fn answer_all(from: Ipv4Addr, addr: SocketAddr, page: &str) -> usize {
    let mut n = 0;
    loop {
        let (status, body) = request_from(from, addr, "GET", &format!("{page}api/state"), b"").unwrap();
        assert_eq!(status, 200, "{body}");
        let state: serde_json::Value = serde_json::from_str(&body).unwrap();
        if state["done"].as_bool().unwrap() {
            return n;
        }
        let a = answer_json(&state["query"]).to_string();
        let (status, body) = request_from(from, addr, "POST", &format!("{page}api/answer"), a.as_bytes()).unwrap();
        assert_eq!(status, 200, "{body}");
        n += 1;
    }
}

/// The descriptors of process `pid` whose target contains `needle`.
fn open_files(pid: u32, needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap().flatten() {
        if let Ok(t) = std::fs::read_link(e.path())
            && t.to_string_lossy().contains(needle)
        {
            out.push(t.to_string_lossy().into_owned());
        }
    }
    out
}

/// Item 1: under `ulimit -n 256`, one client opens 1,000 connections and sends nothing. The server
/// admits at most its per-client limit of them (closing the others at once), keeps serving another
/// client (a whole session answered), never runs out of descriptors, and closes the idle ones when
/// the header timeout expires. (On the old server the descriptors ran out, the accept loop's
/// back-off found no timer, and the server exited with a panic.)
#[test]
fn one_client_holding_1000_idle_connections_does_not_stop_the_others() {
    let dir = tmp("abuse-idle");
    std::fs::write(dir.join("study.toml"), spec_text("pf-ts", 6)).unwrap();
    std::fs::write(dir.join("participants.txt"), "p1\np2\n").unwrap();
    let mut served = start("study", &dir, &["header=2", "request=5", "idle=20"], Some(256)).unwrap();
    assert!(served.max_connections < 256, "the connection limit fits the descriptor limit: {}", served.max_connections);
    let want = 1000;
    let have = raise_nofile(want as u64 + 200);
    let n = want.min(have.saturating_sub(200) as usize);
    if n < want {
        eprintln!("note: this process may open only {have} descriptors: holding {n} idle connections, not {want}");
    }
    let t0 = Instant::now();
    let mut idle = Vec::new();
    for _ in 0..n {
        if let Ok(s) = connect_from(Ipv4Addr::LOCALHOST, served.addr) {
            idle.push(s);
        }
    }
    assert!(idle.len() >= n * 9 / 10, "{} of {n} connections made", idle.len());
    // Meanwhile another participant, from another address, answers their whole session.
    let page = served.page("p2");
    assert_eq!(answer_all(Ipv4Addr::new(127, 0, 0, 2), served.addr, &page), 6);
    assert!(served.alive(), "the server still runs: {}", served.stderr.lock().unwrap());
    // The idle connections are closed by the server: at once (over the limit) or at the header
    // timeout (2 s), well before the test's read timeout.
    let mut closed = 0;
    for s in &mut idle {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut b = [0u8; 1];
        match s.read(&mut b) {
            Ok(0) => closed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => closed += 1,
            other => panic!("an idle connection was not closed: {other:?}"),
        }
    }
    assert_eq!(closed, idle.len());
    assert!(t0.elapsed() < Duration::from_secs(60), "took {:?}", t0.elapsed());
    // And the first participant is served as well once the attacker is gone.
    drop(idle);
    assert_eq!(answer_all(Ipv4Addr::LOCALHOST, served.addr, &served.page("p1")), 6);
    assert!(served.alive());
    let err = served.stop();
    assert!(!err.contains("panicked"), "{err}");
}

/// Item 2: joins are bounded (`max_participants`) and rate-limited per address
/// (`joins_per_minute`), with 503/429 and nothing created; the participants' sessions hold no
/// descriptor while idle, so a study of 300 participants starts under `ulimit -n 128` (the old
/// server held one lock file per participant) and still saves answers.
#[test]
fn joins_are_bounded_and_rate_limited_and_idle_sessions_hold_no_descriptor() {
    let dir = tmp("abuse-join");
    std::fs::write(dir.join("study.toml"), spec_text("pf-ts", 4)).unwrap();
    let served = start("study", &dir, &["max_participants=4", "joins_per_minute=3"], None).unwrap();
    let (a, b) = (Ipv4Addr::LOCALHOST, Ipv4Addr::new(127, 0, 0, 2));
    let join = |from| request_from(from, served.addr, "GET", "/join", b"").unwrap();
    for _ in 0..3 {
        assert_eq!(join(a).0, 303);
    }
    let (status, body) = join(a);
    assert_eq!(status, 429, "{body}");
    assert!(body.contains("too many joins") && body.contains("a minute"), "{body}");
    assert_eq!(join(b).0, 303, "another address may still join");
    let (status, body) = join(b);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("the study is full (4 participants, at most 4)"), "{body}");
    let roster: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tokens.json")).unwrap()).unwrap();
    assert_eq!(roster["participants"].as_array().unwrap().len(), 4);
    assert_eq!(
        std::fs::read_dir(dir.join("sessions"))
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .count(),
        4
    );
    assert_eq!(open_files(served.child.id(), "sessions"), Vec::<String>::new(), "idle sessions hold no descriptor");
    served.stop();

    // A study of 300 listed participants under 128 descriptors.
    let dir = tmp("abuse-many");
    std::fs::write(dir.join("study.toml"), spec_text("random", 3)).unwrap();
    let ids: Vec<String> = (1..=300).map(|i| format!("q{i:03}")).collect();
    std::fs::write(dir.join("participants.txt"), ids.join("\n")).unwrap();
    let served = start("study", &dir, &[], Some(128)).unwrap_or_else(|e| panic!("did not start: {e}"));
    assert_eq!(answer_all(a, served.addr, &served.page("q300")), 3);
    assert_eq!(answer_all(a, served.addr, &served.page("q001")), 3);
    assert_eq!(open_files(served.child.id(), "sessions"), Vec::<String>::new());
    let err = served.stop();
    assert!(!err.contains("panicked"), "{err}");
    // Restarted, it serves them again (their answers kept).
    let served = start("study", &dir, &[], Some(128)).unwrap_or_else(|e| panic!("did not restart: {e}"));
    let (status, body) =
        request_from(a, served.addr, "GET", &format!("{}api/state", served.page("q300")), b"").unwrap();
    assert_eq!(status, 200);
    assert!(body.contains("\"answered\":3"), "{body}");
    served.stop();
    // Two servers on one study: the second is refused by the study's lock.
    let first = start("study", &dir, &[], None).unwrap();
    let second = start("study", &dir, &[], None).err().expect("a second server on the same study is refused");
    assert!(second.contains("in use by another bohf process"), "{second}");
    first.stop();
}

/// The peak resident memory (`VmHWM`, KiB) of process `pid`.
fn peak_kib(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = s.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Item 6: four parallel downloads of a 128 MiB picture keep the server's peak memory far below the
/// picture's size (the old server read each request's file whole: 512 MiB).
#[test]
fn pictures_are_streamed_not_read_into_memory() {
    let dir = tmp("abuse-stream");
    std::fs::create_dir_all(dir.join("img")).unwrap();
    let size: u64 = 128 << 20;
    std::fs::File::create(dir.join("img/big.png")).unwrap().set_len(size).unwrap(); // sparse
    std::fs::write(dir.join("o.csv"), "name,x,image\nA,1,img/big.png\nB,2,\n").unwrap();
    std::fs::write(
        dir.join("s.toml"),
        "name = \"pics\"\nbudget = 2\nseed = 1\n[candidates]\ncsv = \"o.csv\"\n[algorithm]\nname = \"random\"\n",
    )
    .unwrap();
    let body = bohf_session::prepare(&dir.join("s.toml")).unwrap();
    drop(bohf_session::Session::create(&dir.join("s.json"), body, false).unwrap());
    let served = start("single", &dir.join("s.json"), &[], None).unwrap();
    let before = peak_kib(served.child.id());
    let page = served.urls[0].1.clone();
    let addr = served.addr;
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let url = format!("{page}img/0");
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(addr).unwrap();
                write!(s, "GET {url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
                let mut total = 0u64;
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    match s.read(&mut buf).unwrap() {
                        0 => break total,
                        n => total += n as u64,
                    }
                }
            })
        })
        .collect();
    for r in readers {
        assert!(r.join().unwrap() > size, "the whole picture arrived");
    }
    let peak = peak_kib(served.child.id());
    served.stop();
    assert!(peak < before + 64 * 1024, "peak memory {peak} KiB (before the downloads {before} KiB)");
}

/// Settings of the campaign from the environment.
fn setting(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One hostile (or ordinary) request of kind `k`; the status, or `None` when the server closed the
/// connection without a response (allowed for the abusive kinds only).
fn abuse_request(k: u64, rng: &mut Rng, addr: SocketAddr, page: &str, t: u64) -> (String, Option<u16>) {
    let token = page.trim_start_matches("/p/").trim_end_matches('/');
    let (what, raw): (&str, Vec<u8>) = match k {
        0 => ("state", format!("GET {page}api/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").into_bytes()),
        1 => {
            let body = match rng.below(6) {
                0 => format!(r#"{{"t":{t},"choice":"a","choice":"b"}}"#),
                1 => format!(r#"{{"t":{t},"choice":"a","extra":1}}"#),
                2 => format!(r#"{{"t":{t},"choice":"a","skip":true}}"#),
                3 => "{\"t\":".to_string(),
                4 => "\u{0}\u{ff}garbage".to_string(),
                // A query number no participant reaches (the budget is 40): a real answer's `t`
                // here would race the participants' own answers and be accepted.
                _ => format!(r#"{{"t":{},"choice":"a"}}"#, t + 1000 + rng.below(3)),
            };
            (
                "bad answer",
                format!(
                    "POST {page}api/answer HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .into_bytes(),
            )
        }
        2 => (
            "crlf path",
            format!("GET /p/{token}%0D%0ASet-Cookie:x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").into_bytes(),
        ),
        3 => ("unknown token", b"GET /p/0123/api/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec()),
        4 => (
            "huge body",
            format!(
                "POST {page}api/answer HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n{}",
                "x".repeat(100_000)
            )
            .into_bytes(),
        ),
        5 => (
            "image",
            format!("GET {page}img/{} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", rng.below(20)).into_bytes(),
        ),
        6 => ("bad request line", b"GET /\r\x01 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec()),
        7 => ("join", b"GET /join HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec()),
        8 => ("overview", b"GET /study/nope/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec()),
        _ => (
            "huge header",
            format!("GET {page}api/state HTTP/1.1\r\nHost: x\r\nX-A: {}\r\n\r\n", "a".repeat(200_000)).into_bytes(),
        ),
    };
    let Ok(mut s) = connect_from(Ipv4Addr::LOCALHOST, addr) else { return (what.into(), None) };
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = s.write_all(&raw);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let status = String::from_utf8_lossy(&out).split_whitespace().nth(1).and_then(|c| c.parse().ok());
    (what.into(), status)
}

/// The campaign, CI-sized by default (about 600 requests, 4 kills; a few seconds): hostile
/// requests of every kind above from several threads, slow clients (a head sent byte by byte
/// past the header timeout) and idle connections, while two participants answer; the server is
/// killed with SIGKILL at several points with an answer in flight and restarted. No request gets
/// a 5xx, the server never panics or exits on its own, and no acknowledged answer is lost.
#[test]
fn the_http_abuse_campaign() {
    let requests = setting("BOHF_SERVE_ABUSE_REQUESTS", 600);
    let kills = setting("BOHF_SERVE_ABUSE_KILLS", 4);
    let connections = setting("BOHF_SERVE_ABUSE_CONNECTIONS", 100);
    let dir = tmp("abuse-campaign");
    let budget = 40;
    std::fs::write(dir.join("study.toml"), spec_text("random", budget)).unwrap();
    std::fs::write(dir.join("participants.txt"), "p1\np2\n").unwrap();
    raise_nofile(connections as u64 + 200);
    let mut acked = [0u64; 2];
    let (mut sent, mut five_xx, mut counts) = (0usize, Vec::new(), std::collections::BTreeMap::new());
    let rounds = kills + 1;
    let t0 = Instant::now();
    for round in 0..rounds {
        let mut served = start("study", &dir, &["header=1", "request=5", "idle=10"], Some(512)).unwrap();
        let pages = [served.page("p1"), served.page("p2")];
        for (k, page) in pages.iter().enumerate() {
            let s = participant(served.addr, "GET", &format!("{page}api/state"), b"").unwrap().1;
            let n = s["answered"].as_u64().unwrap();
            assert!(n == acked[k] || n == acked[k] + 1, "round {round}: {n} saved, {} acknowledged", acked[k]);
            acked[k] = n;
        }
        // Idle and slow clients.
        let idle: Vec<TcpStream> =
            (0..connections).filter_map(|_| connect_from(Ipv4Addr::new(127, 0, 0, 3), served.addr).ok()).collect();
        let addr = served.addr;
        let slow = std::thread::spawn(move || {
            let mut s = connect_from(Ipv4Addr::new(127, 0, 0, 4), addr).unwrap();
            for b in b"GET / HTTP/1.1\r\nHost: slow\r\n" {
                if s.write_all(&[*b]).is_err() {
                    return true; // closed by the server
                }
                std::thread::sleep(Duration::from_millis(150));
            }
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut b = [0u8; 1];
            matches!(s.read(&mut b), Ok(0) | Err(_))
        });
        // Hostile requests from 4 threads while the participants answer.
        let per_round = requests / rounds;
        let workers: Vec<_> = (0..4u64)
            .map(|w| {
                let page = pages[w as usize % 2].clone();
                std::thread::spawn(move || {
                    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (round as u64 * 31 + w + 1));
                    (0..per_round / 4)
                        .map(|_| abuse_request(rng.below(10), &mut rng, addr, &page, 1))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for k in 0..2 {
            for _ in 0..(3 + round % 3) {
                let s = participant(addr, "GET", &format!("{}api/state", pages[k]), b"").unwrap().1;
                if s["done"].as_bool().unwrap() {
                    break;
                }
                let a = answer_json(&s["query"]).to_string();
                let (status, r) = participant(addr, "POST", &format!("{}api/answer", pages[k]), a.as_bytes()).unwrap();
                assert_eq!(status, 200, "{r}");
                acked[k] += 1;
            }
        }
        for w in workers {
            for (what, status) in w.join().unwrap() {
                sent += 1;
                *counts.entry(what.clone()).or_insert(0usize) += 1;
                if status.is_some_and(|s| s >= 500) {
                    five_xx.push((what, status));
                }
            }
        }
        assert!(slow.join().unwrap(), "a slow client is cut off by the header timeout");
        drop(idle);
        assert!(served.alive(), "round {round}: the server stopped: {}", served.stderr.lock().unwrap());
        if round + 1 == rounds {
            let err = served.stop();
            assert!(!err.contains("panicked"), "{err}");
            break;
        }
        // Kill -9 with an answer in flight.
        let k = round % 2;
        let s = participant(addr, "GET", &format!("{}api/state", pages[k]), b"").unwrap().1;
        let in_flight = (!s["done"].as_bool().unwrap()).then(|| {
            let url = format!("{}api/answer", pages[k]);
            let body = answer_json(&s["query"]).to_string();
            std::thread::spawn(move || participant(addr, "POST", &url, body.as_bytes()))
        });
        std::thread::sleep(Duration::from_micros(500 * (round as u64 % 5)));
        let err = served.stop();
        assert!(!err.contains("panicked"), "{err}");
        if let Some(h) = in_flight
            && let Ok((200, _)) = h.join().unwrap()
        {
            acked[k] += 1;
        }
    }
    eprintln!(
        "campaign: {sent} hostile requests ({counts:?}), {connections} idle connections per round, {kills} kills, \
         {:?}",
        t0.elapsed()
    );
    assert!(five_xx.is_empty(), "5xx answers: {five_xx:?}");
    for (k, p) in ["p1", "p2"].iter().enumerate() {
        let s = bohf_session::Session::open(&dir.join(format!("sessions/{p}.json"))).unwrap();
        assert!(s.answered() as u64 >= acked[k], "{p}: {} saved, {} acknowledged", s.answered(), acked[k]);
    }
}
