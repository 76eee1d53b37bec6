//! A minimal W3C WebDriver client for the browser test: blocking JSON over HTTP/1.1 to a local
//! chromedriver, one request per connection, over std only.
//!
//! It replaces the `fantoccini` crate, whose dependencies (url, icu, webdriver, a hyper client)
//! turned on features of syn, hyper and others that the README's main job does not use: with them,
//! the README's test command rebuilt most of the main job's dependencies instead of reusing them.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How an element is found: a CSS selector or an `id`.
pub enum Locator {
    Css(String),
    Id(String),
}

impl Locator {
    fn selector(&self) -> String {
        match self {
            Locator::Css(s) => s.clone(),
            Locator::Id(id) => format!("[id=\"{id}\"]"),
        }
    }
}

/// A WebDriver session; [`Client::close`] ends it.
pub struct Client {
    port: u16,
    session: String,
}

/// An element of the page of a [`Client`].
pub struct Element<'a> {
    client: &'a Client,
    id: String,
}

/// One request to the driver at `port`: the response's `value`, or the driver's error.
fn request(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(120))).map_err(|e| e.to_string())?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).and_then(|()| s.write_all(body.as_bytes())).map_err(|e| format!("send: {e}"))?;
    // Read the head, then exactly Content-Length bytes (or to the end without one).
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let split = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut buf).map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err(format!("no end of headers: {:?}", String::from_utf8_lossy(&raw)));
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let length = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case("content-length").then(|| v.trim().parse::<usize>().ok()).flatten()
    });
    let mut content = raw[split + 4..].to_vec();
    match length {
        Some(len) => {
            while content.len() < len {
                let n = s.read(&mut buf).map_err(|e| format!("read: {e}"))?;
                if n == 0 {
                    return Err(format!("body cut at {} of {len} bytes", content.len()));
                }
                content.extend_from_slice(&buf[..n]);
            }
            content.truncate(len);
        }
        None => {
            s.read_to_end(&mut content).map_err(|e| format!("read: {e}"))?;
        }
    }
    let reply: Value = serde_json::from_slice(&content)
        .map_err(|e| format!("not JSON ({e}): {head}\n{}", String::from_utf8_lossy(&content)))?;
    let value = reply.get("value").cloned().unwrap_or(Value::Null);
    let ok = head.split_whitespace().nth(1).is_some_and(|code| code.starts_with('2'));
    if ok { Ok(value) } else { Err(format!("{method} {path}: {value}")) }
}

impl Client {
    /// A new session with `capabilities` (W3C `alwaysMatch`) at the chromedriver on `port`.
    pub fn new(port: u16, capabilities: Value) -> Result<Client, String> {
        let v = request(port, "POST", "/session", Some(&json!({ "capabilities": { "alwaysMatch": capabilities } })))?;
        let session = v["sessionId"].as_str().ok_or_else(|| format!("no sessionId in {v}"))?.to_string();
        Ok(Client { port, session })
    }

    fn cmd(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        request(self.port, method, &format!("/session/{}{path}", self.session), body)
    }

    /// Opens `url`.
    pub fn goto(&self, url: &str) -> Result<(), String> {
        self.cmd("POST", "/url", Some(&json!({ "url": url }))).map(drop)
    }

    /// The first element `locator` finds, or an error if there is none (now).
    pub fn find(&self, locator: Locator) -> Result<Element<'_>, String> {
        let v = self.cmd("POST", "/element", Some(&json!({ "using": "css selector", "value": locator.selector() })))?;
        let id = v.as_object().and_then(|o| o.values().next()).and_then(Value::as_str);
        let id = id.ok_or_else(|| format!("no element reference in {v}"))?.to_string();
        Ok(Element { client: self, id })
    }

    /// The first element `locator` finds, polling every 50 ms for up to `timeout`.
    pub fn wait_for(&self, timeout: Duration, locator: Locator) -> Result<Element<'_>, String> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.find(Locator::Css(locator.selector())) {
                Ok(e) => return Ok(e),
                Err(e) if Instant::now() >= deadline => return Err(format!("waited {timeout:?}: {e}")),
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    /// Runs `script` (a function body, `return` gives the value) in the page.
    pub fn execute(&self, script: &str) -> Result<Value, String> {
        self.cmd("POST", "/execute/sync", Some(&json!({ "script": script, "args": [] })))
    }

    /// A PNG screenshot of the window.
    pub fn screenshot(&self) -> Result<Vec<u8>, String> {
        let v = self.cmd("GET", "/screenshot", None)?;
        base64(v.as_str().ok_or_else(|| format!("not a string: {v}"))?)
    }

    /// Ends the session (the browser quits).
    pub fn close(self) -> Result<(), String> {
        request(self.port, "DELETE", &format!("/session/{}", self.session), None).map(drop)
    }
}

impl Element<'_> {
    fn cmd(&self, method: &str, what: &str, body: Option<&Value>) -> Result<Value, String> {
        self.client.cmd(method, &format!("/element/{}{what}", self.id), body)
    }

    /// Its rendered text.
    pub fn text(&self) -> Result<String, String> {
        let v = self.cmd("GET", "/text", None)?;
        v.as_str().map(str::to_string).ok_or_else(|| format!("not a string: {v}"))
    }

    /// Clicks it.
    pub fn click(&self) -> Result<(), String> {
        self.cmd("POST", "/click", Some(&json!({}))).map(drop)
    }

    /// Types `keys` into it (WebDriver's key codes, e.g. `\u{E012}` for ←, included).
    pub fn send_keys(&self, keys: &str) -> Result<(), String> {
        self.cmd("POST", "/value", Some(&json!({ "text": keys }))).map(drop)
    }

    /// The value of its attribute `name`, if it has one.
    pub fn attr(&self, name: &str) -> Result<Option<String>, String> {
        let v = self.cmd("GET", &format!("/attribute/{name}"), None)?;
        Ok(v.as_str().map(str::to_string))
    }
}

/// Standard base64 (with padding, as WebDriver's screenshots are) decoded.
fn base64(text: &str) -> Result<Vec<u8>, String> {
    let digit = |c: u8| -> Result<u32, String> {
        Ok(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("not base64: {:?}", c as char)),
        } as u32)
    };
    let bytes: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for chunk in bytes.chunks(4) {
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        let mut n = 0u32;
        for &c in &chunk[..chunk.len() - pad] {
            n = (n << 6) | digit(c)?;
        }
        n <<= 6 * (4 - (chunk.len() - pad)) as u32;
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad.min(2)]);
    }
    Ok(out)
}

#[test]
fn base64_decodes_with_and_without_padding() {
    assert_eq!(base64("aGVsbG8=").unwrap(), b"hello");
    assert_eq!(base64("aGk=").unwrap(), b"hi");
    assert_eq!(base64("aGV5").unwrap(), b"hey");
    assert_eq!(base64("").unwrap(), b"");
}
