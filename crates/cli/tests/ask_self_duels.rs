//! `bohf ask` on the docs' coffee example with PF-TS (issue 34, item 2): a scripted person who
//! answers from what the terminal shows never sees an option against itself; the self-duels PF-TS
//! asks are answered by the session and said so at the end. The same through `--json`.

mod common;

use common::TempDir;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_bohf");

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/ask")
}

/// The coffees' (roast, acidity, body, price) by name, from the docs' `beans.csv`.
fn beans() -> Vec<(String, Vec<f64>)> {
    std::fs::read_to_string(examples().join("beans.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[1..].iter().map(|v| v.parse().unwrap()).collect())
        })
        .collect()
}

/// The consistent scripted person: acidity − price / 2.
fn utility(name: &str) -> f64 {
    let v = beans().into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no coffee `{name}`")).1;
    v[1] - 0.5 * v[3]
}

fn new_session(dir: &Path) {
    for f in ["coffee.toml", "beans.csv"] {
        std::fs::copy(examples().join(f), dir.join(f)).unwrap();
    }
    let out = Command::new(BIN)
        .args(["ask", "new", "coffee.json", "--spec", "coffee.toml"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The two names of the last duel table in `text`: the line after the `A  B` header, split at
/// runs of two or more spaces.
fn last_duel(text: &str) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().rposition(|l| l.trim() == "A                   B" || is_ab(l)).expect("a duel table");
    let names: Vec<&str> = lines[header + 1].split("  ").map(str::trim).filter(|s| !s.is_empty()).collect();
    assert_eq!(names.len(), 2, "{:?}", lines[header + 1]);
    (names[0].to_string(), names[1].to_string())
}

fn is_ab(l: &str) -> bool {
    let w: Vec<&str> = l.split_whitespace().collect();
    w == ["A", "B"]
}

#[test]
fn the_terminal_never_shows_a_self_duel_on_the_coffee_example() {
    let tmp = TempDir::new("selfduel-terminal");
    new_session(&tmp.0);
    let mut child = Command::new(BIN)
        .args(["ask", "coffee.json"])
        .current_dir(&tmp.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (mut text, mut seen, mut byte) = (String::new(), 0, [0u8; 1]);
    let mut shown = Vec::new();
    while stdout.read(&mut byte).unwrap() == 1 {
        text.push(byte[0] as char);
        if text.ends_with("q to stop] ") {
            let (a, b) = last_duel(&text[seen..]);
            seen = text.len();
            let answer = if utility(&a) >= utility(&b) { "a" } else { "b" };
            shown.push((a, b));
            writeln!(stdin, "{answer}").unwrap();
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success(), "{text}");
    let self_duels = shown.iter().filter(|(a, b)| a == b).count();
    println!("terminal: {} duels shown, {self_duels} self-duels shown", shown.len());
    assert_eq!(self_duels, 0, "{text}");
    assert!(!shown.is_empty() && shown.len() <= 12, "{text}");
    assert_eq!(text.matches("Query ").count(), shown.len(), "{text}");
    assert!(!text.contains("the same option twice"), "{text}");
    assert!(text.contains("answered automatically (not shown; recorded in the file)"), "{text}");
    let ended = text.contains("The budget of 12 queries is spent.")
        || text.contains("The algorithm asked only duels of an option against itself (25 in a row)");
    assert!(ended, "{text}");
    // The file marks the automatic answers.
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.join("coffee.json")).unwrap()).unwrap();
    let history = file["body"]["history"].as_array().unwrap();
    let automatic = history.iter().filter(|s| s["automatic"] == true).count();
    assert_eq!(history.len() - automatic, shown.len());
    assert!(automatic > 0);
    for s in history {
        let same = s["query"]["a"] == s["query"]["b"];
        assert_eq!(same, s["automatic"] == true, "{s}");
    }
}

#[test]
fn ask_json_never_sends_a_self_duel_and_says_how_many_were_answered_automatically() {
    let tmp = TempDir::new("selfduel-json");
    new_session(&tmp.0);
    let mut child = Command::new(BIN)
        .args(["ask", "coffee.json", "--json"])
        .current_dir(&tmp.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> serde_json::Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
    assert_eq!(next()["type"], "session");
    let mut shown = 0;
    let done = loop {
        let m = next();
        match m["type"].as_str().unwrap() {
            "query" => {
                let (a, b) = (m["a"]["name"].as_str().unwrap(), m["b"]["name"].as_str().unwrap());
                assert_ne!(a, b, "{m}");
                shown += 1;
                assert_eq!(m["t"], shown);
                let choice = if utility(a) >= utility(b) { "a" } else { "b" };
                writeln!(stdin, "{{\"choice\": \"{choice}\"}}").unwrap();
                assert_eq!(next()["type"], "saved");
            }
            "done" => break m,
            other => panic!("unexpected {other}: {m}"),
        }
    };
    child.wait().unwrap();
    assert_eq!(done["answered"], shown);
    assert!(done["automatic"].as_u64().unwrap() > 0, "{done}");
    let reason = done["reason"].as_str().unwrap();
    assert!(reason == "budget" || reason == "self-duels", "{done}");
    assert_eq!(reason == "budget", shown == 12, "{done}");
}
