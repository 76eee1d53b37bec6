//! A study server killed with SIGKILL at many points (between answers and while an answer is in
//! flight), restarted each time: no acknowledged answer is lost, every session file stays valid,
//! and the addresses stay the same.
//!
//! The server runs in a child process: this test binary again, running only
//! `child_server`, which serves the study named by `BOHF_SERVE_CHILD_STUDY`.

mod common;

use bohf_serve::{Mode, Options, Server};
use common::{answer_json, http, path_of, spec_text, tmp};
use std::io::BufRead;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};

const CHILD_ENV: &str = "BOHF_SERVE_CHILD_STUDY";

/// Not a test of its own: the server process of `a_killed_study_server_loses_no_answer` (does
/// nothing unless that test starts it).
#[test]
fn child_server() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else { return };
    let server = Server::bind(&Options {
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
        port: 0,
        mode: Mode::Study(dir.into()),
        limits: Default::default(),
    })
    .unwrap();
    // A line of its own (libtest has printed "test child_server ... " without a line break).
    println!("\nADDR {}", server.addr());
    for (who, url) in server.urls() {
        println!("URL {who}|{url}");
    }
    println!("READY");
    server.run().unwrap();
}

/// Starts the child server; its address and (who, path) pairs.
fn start(dir: &std::path::Path) -> (Child, SocketAddr, Vec<(String, String)>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_server", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut addr, mut urls) = (None, Vec::new());
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(a) = line.strip_prefix("ADDR ") {
            addr = Some(a.parse().unwrap());
        } else if let Some(u) = line.strip_prefix("URL ") {
            let (who, url) = u.split_once('|').unwrap();
            urls.push((who.to_string(), path_of(url)));
        } else if line == "READY" {
            break;
        }
    }
    // Keep reading (and dropping) the child's output so that it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    (child, addr.expect("the child printed its address"), urls)
}

fn answered(addr: SocketAddr, page: &str) -> (u64, bool, serde_json::Value) {
    let s = http(addr, "GET", &format!("{page}api/state"), b"").unwrap().json();
    (s["answered"].as_u64().unwrap(), s["done"].as_bool().unwrap(), s["query"].clone())
}

#[test]
fn a_killed_study_server_loses_no_answer() {
    let dir = tmp("kill");
    let budget = 10;
    std::fs::write(dir.join("study.toml"), spec_text("pf-ts", budget)).unwrap();
    std::fs::write(dir.join("participants.txt"), "p1\np2\n").unwrap();
    let mut acked = [0u64; 2];
    let mut first_urls = None;
    let mut kills = 0;
    for round in 0..40 {
        let (mut child, addr, urls) = start(&dir);
        let mut pages: Vec<String> =
            ["p1", "p2"].iter().map(|p| urls.iter().find(|(w, _)| w.ends_with(p)).unwrap().1.clone()).collect();
        pages.sort_by_key(|p| urls.iter().position(|(_, u)| u == p));
        let first = first_urls.get_or_insert_with(|| urls.clone());
        assert_eq!(&urls, first, "the addresses stay the same across restarts");
        // Nothing acknowledged was lost; at most the one answer in flight at the kill was added.
        let mut all_done = true;
        for (k, page) in pages.iter().enumerate() {
            let (n, done, _) = answered(addr, page);
            assert!(
                n == acked[k] || n == acked[k] + 1,
                "round {round}, participant {k}: {n} saved, {} acknowledged",
                acked[k]
            );
            acked[k] = n;
            all_done &= done;
        }
        if all_done {
            child.kill().unwrap();
            child.wait().unwrap();
            break;
        }
        // Answer a few queries (acknowledged), then kill with one more answer in flight.
        let k = round % 2;
        for _ in 0..(round % 3) {
            let (_, done, q) = answered(addr, &pages[k]);
            if done {
                break;
            }
            let r =
                http(addr, "POST", &format!("{}api/answer", pages[k]), answer_json(&q).to_string().as_bytes()).unwrap();
            assert_eq!(r.status, 200, "{}", r.text());
            acked[k] += 1;
        }
        let (_, done, q) = answered(addr, &pages[1 - k]);
        let in_flight = (!done).then(|| {
            let url = format!("{}api/answer", pages[1 - k]);
            std::thread::spawn(move || http(addr, "POST", &url, answer_json(&q).to_string().as_bytes()))
        });
        std::thread::sleep(std::time::Duration::from_micros(300 * (round as u64 % 7)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
        if let Some(h) = in_flight
            && let Ok(r) = h.join().unwrap()
            && r.status == 200
        {
            acked[1 - k] += 1;
        }
    }
    assert!(kills >= 10, "killed only {kills} times");
    assert_eq!(acked, [budget as u64; 2], "both participants finished");
    for p in ["p1", "p2"] {
        let s = bohf_session::Session::open(&dir.join(format!("sessions/{p}.json"))).unwrap();
        assert!(s.done());
    }
}
