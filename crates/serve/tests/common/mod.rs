//! A minimal HTTP/1.1 client over std (one request per connection) and test folders.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;

/// A response: status, headers (lower-case names) and body.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Sends one request and reads the whole response.
pub fn http(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> std::io::Result<Resp> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other(format!("no end of headers in {:?}", String::from_utf8_lossy(&raw))))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status line"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':').map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string())))
        .collect();
    Ok(Resp { status, headers, body: raw[split + 4..].to_vec() })
}

/// GET `url`'s path (`url` as printed: http://HOST:PORT/PATH).
pub fn path_of(url: &str) -> String {
    let rest = url.trim_start_matches("http://");
    rest[rest.find('/').unwrap()..].to_string()
}

/// A fresh folder for one test.
pub fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bohf-serve-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A session spec: a 4×4 box (x in [0, 1], y in [0, 2]), `budget` queries, `algorithm`.
pub fn spec_text(algorithm: &str, budget: usize) -> String {
    format!(
        "name = \"t\"\nbudget = {budget}\nseed = 3\n[candidates.box]\nnames = [\"x\", \"y\"]\nlower = [0.0, 0.0]\n\
         upper = [1.0, 2.0]\npoints_per_dim = 4\n[algorithm]\nname = \"{algorithm}\"\n"
    )
}

/// The scripted person's answer message to query JSON `q` (prefers the larger x + y; every
/// fourth query skipped): the same rule as [`answer_for`].
pub fn answer_json(q: &serde_json::Value) -> serde_json::Value {
    let t = q["t"].as_u64().unwrap();
    let score = |o: &serde_json::Value| o["attributes"]["x"].as_f64().unwrap() + o["attributes"]["y"].as_f64().unwrap();
    if t.is_multiple_of(4) {
        return serde_json::json!({ "t": t, "skip": true });
    }
    match q["kind"].as_str().unwrap() {
        "duel" => serde_json::json!({ "t": t, "choice": if score(&q["a"]) >= score(&q["b"]) { "a" } else { "b" } }),
        "label" => serde_json::json!({ "t": t, "accept": score(&q["option"]) > 1.0 }),
        _ => serde_json::json!({ "t": t, "value": score(&q["option"]) }),
    }
}
