//! `bohf ask` against hostile input and concurrent use (issue 10): damaged but correctly
//! checksummed session files, missing/empty/binary files, unknown keys, two processes on one
//! session, invalid UTF-8 on stdin, and kill -9 at several points. Every test runs the real binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};

mod common;

use common::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_bohf");

fn bohf(args: &[&str], dir: &Path, stdin: &[u8]) -> Output {
    common::run_bohf(dir, args, stdin)
}

/// Runs and expects exit code 1 (an error, not a panic's 101 or an abort); returns stderr.
fn fails(args: &[&str], dir: &Path) -> String {
    let out = bohf(args, dir, b"");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "bohf {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A session of 4 drinks (random duels, budget 6) with `answers` answers given in the terminal.
fn session(tag: &str, answers: usize) -> TempDir {
    let tmp = TempDir::new(&format!("askh-{tag}"));
    std::fs::write(tmp.join("o.csv"), "name,sweetness,strength\nA,1,9\nB,2,7\nC,3,8\nD,5,5\n").unwrap();
    std::fs::write(
        tmp.join("a.toml"),
        "name = \"d\"\nbudget = 6\nseed = 1\n[candidates]\ncsv = \"o.csv\"\n[algorithm]\nname = \"random\"\n",
    )
    .unwrap();
    assert!(bohf(&["ask", "new", "s.json", "--spec", "a.toml"], &tmp.0, b"").status.success());
    if answers > 0 {
        let out = bohf(&["ask", "s.json"], &tmp.0, "a\n".repeat(answers).as_bytes());
        assert!(out.status.success());
    }
    tmp
}

/// The person's answers in the session file (self-duels answered automatically not counted).
fn history_len(path: &Path) -> usize {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["body"]["history"].as_array().unwrap().iter().filter(|s| s["automatic"] != true).count()
}

/// JSON text without the whitespace between tokens (serde_json's pretty and compact output differ
/// only in that), keeping the key order, so that the checksum can be recomputed after an edit.
fn minify(text: &str) -> String {
    let mut out = String::new();
    let (mut in_str, mut escaped) = (false, false);
    for c in text.chars() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// FNV-1a 64 (the documented session checksum; test vectors in the unit tests).
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The session file (minified) with `edit` applied to its body and a checksum that matches again.
fn edited_and_resealed(file: &str, edit: impl Fn(&str) -> String) -> String {
    let text = minify(file);
    let body = text.strip_prefix("{\"body\":").unwrap();
    let (body, _) = body.rsplit_once(",\"checksum\":").unwrap();
    let new_body = edit(body);
    format!("{{\"body\":{new_body},\"checksum\":\"fnv1a64:{:016x}\"}}", fnv1a64(new_body.as_bytes()))
}

/// Writes `text` as the session, checks that `bohf ask` refuses it (in both modes) with a message
/// holding every one of `wants`, and that the file was left as it was.
fn refused(tmp: &TempDir, text: &[u8], wants: &[&str]) {
    std::fs::write(tmp.join("s.json"), text).unwrap();
    for args in [&["ask", "s.json"][..], &["ask", "s.json", "--json"][..]] {
        let e = fails(args, &tmp.0);
        for w in wants {
            assert!(e.contains(w), "missing `{w}` in: {e}");
        }
        assert_eq!(std::fs::read(tmp.join("s.json")).unwrap(), text, "the refused file was changed");
    }
}

#[test]
fn a_checksummed_but_inconsistent_body_is_refused_without_a_panic() {
    let tmp = session("invalid", 3);
    let s = tmp.join("s.json");
    let bak_offer = "s.json.bak` holds 2 answer(s)";
    let good = std::fs::read_to_string(&s).unwrap();
    // The unchanged file resealed loads (the test's checksum is the program's).
    let same = edited_and_resealed(&good, |b| b.to_string());
    std::fs::write(&s, &same).unwrap();
    assert!(bohf(&["ask", "s.json"], &tmp.0, b"q\n").status.success());

    // A row with fewer and one with more values than attributes.
    let short = edited_and_resealed(&good, |b| b.replacen("[1.0,9.0]", "[1.0]", 1));
    refused(&tmp, short.as_bytes(), &["damaged", "option 1 (`A`) has 1 value(s) for 2 attribute(s)", bak_offer]);
    let long = edited_and_resealed(&good, |b| b.replacen("[2.0,7.0]", "[2.0,7.0,3.0]", 1));
    refused(&tmp, long.as_bytes(), &["damaged", "option 2 (`B`) has 3 value(s) for 2 attribute(s)"]);
    // Names and rows disagree.
    let names = edited_and_resealed(&good, |b| b.replacen("\"names\":[\"A\",", "\"names\":[", 1));
    refused(&tmp, names.as_bytes(), &["damaged", "3 name(s) for 4 rows"]);
    // One candidate.
    let one = edited_and_resealed(&good, |b| {
        b.replacen("\"names\":[\"A\",\"B\",\"C\",\"D\"]", "\"names\":[\"A\"]", 1).replacen(
            "[[1.0,9.0],[2.0,7.0],[3.0,8.0],[5.0,5.0]]",
            "[[1.0,9.0]]",
            1,
        )
    });
    refused(&tmp, one.as_bytes(), &["damaged", "need 2 to 10000 options, got 1"]);
    // More answers than the budget ("3 of 1 queries answered").
    let over = edited_and_resealed(&good, |b| b.replacen("\"budget\":6", "\"budget\":1", 1));
    refused(&tmp, over.as_bytes(), &["damaged", "3 answers for a budget of 1"]);
    // A budget of 0 and an absurd one.
    let zero = edited_and_resealed(&good, |b| b.replacen("\"budget\":6", "\"budget\":0", 1));
    refused(&tmp, zero.as_bytes(), &["damaged", "budget: need 1 to"]);
    let huge = edited_and_resealed(&good, |b| b.replacen("\"budget\":6", "\"budget\":9223372036854775807", 1));
    refused(&tmp, huge.as_bytes(), &["damaged", "budget: need 1 to"]);
    // A history index past the candidates.
    let index = edited_and_resealed(&good, |b| {
        let i = b.find("\"kind\":\"duel\",\"a\":").unwrap() + "\"kind\":\"duel\",\"a\":".len();
        format!("{}99{}", &b[..i], &b[i + 1..])
    });
    refused(&tmp, index.as_bytes(), &["damaged", "history, query 1: option index 99, but there are 4 options"]);
    // An answer of the wrong kind.
    let kind = edited_and_resealed(&good, |b| {
        let start = b.find("\"answer\":{\"Duel\":{\"first_wins\":").unwrap();
        let end = start + b[start..].find("}}").unwrap() + 2;
        format!("{}\"answer\":{{\"Value\":1.5}}{}", &b[..start], &b[end..])
    });
    refused(&tmp, kind.as_bytes(), &["damaged", "history, answer 1: does not fit its query"]);
    // Unknown keys inside a history entry, its query, its answer and the candidates.
    for (from, to) in [
        ("{\"query\":{", "{\"note\":\"x\",\"query\":{"),
        ("\"kind\":\"duel\",", "\"kind\":\"duel\",\"c\":3,"),
        ("{\"Duel\":{\"first_wins\":", "{\"Duel\":{\"sure\":true,\"first_wins\":"),
        ("\"attributes\":[", "\"units\":[],\"attributes\":["),
    ] {
        let extra = edited_and_resealed(&good, |b| b.replacen(from, to, 1));
        refused(&tmp, extra.as_bytes(), &["damaged"]);
    }
    // The good file still works and still has its 3 answers.
    std::fs::write(&s, &same).unwrap();
    let out = bohf(&["ask", "s.json"], &tmp.0, b"q\n");
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 of 6 queries answered"));
}

#[test]
fn missing_empty_and_binary_session_files_are_reported_and_the_backup_offered() {
    let tmp = session("missing", 2);
    let offer = "the previous good copy `s.json.bak` holds 1 answer(s)";
    std::fs::remove_file(tmp.join("s.json")).unwrap();
    let e = fails(&["ask", "s.json"], &tmp.0);
    assert!(e.contains("session file `s.json` does not exist") && e.contains(offer), "{e}");
    assert!(!tmp.join("s.json").exists());
    refused(&tmp, b"", &["is damaged (the file is empty)", offer]);
    refused(&tmp, b"\n \n", &["is damaged (the file is empty)", offer]);
    refused(&tmp, b"\x00\xff\xfe\x89PNG\r\n\x1a\n\x00\x00", &["is damaged (not a text file", offer]);
    refused(&tmp, b"{\"body\": 5, \"checksum\": \"x\"}", &["is damaged (not a valid session file", offer]);
    // Without a good backup, no offer.
    std::fs::write(tmp.join("s.json.bak"), b"garbage").unwrap();
    std::fs::remove_file(tmp.join("s.json")).unwrap();
    let e = fails(&["ask", "s.json", "--json"], &tmp.0);
    assert!(e.contains("does not exist") && !e.contains("previous good copy"), "{e}");
}

/// A `bohf ask --json` child and its message stream.
struct JsonChild {
    child: Child,
    stdin: ChildStdin,
    lines: std::io::Lines<BufReader<ChildStdout>>,
}

impl JsonChild {
    fn spawn(dir: &Path) -> Self {
        let mut child = Command::new(BIN)
            .args(["ask", "s.json", "--json"])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Self { child, stdin, lines }
    }

    fn next(&mut self) -> serde_json::Value {
        let line = self.lines.next().expect("a message").unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    fn stderr(&mut self) -> String {
        let mut s = String::new();
        self.child.stderr.take().unwrap().read_to_string(&mut s).unwrap();
        s
    }
}

#[test]
fn a_second_process_on_the_same_session_is_refused_and_the_first_keeps_its_answer() {
    let tmp = session("lock", 1);
    let mut first = JsonChild::spawn(&tmp.0);
    assert_eq!(first.next()["type"], "session");
    let q = first.next();
    assert_eq!(q["type"], "query");
    // The first process holds the session and waits on stdin; a second one is refused at once.
    for args in [&["ask", "s.json"][..], &["ask", "s.json", "--json"][..]] {
        let e = fails(args, &tmp.0);
        assert!(e.contains("session `s.json` is in use by another bohf process"), "{e}");
        assert!(e.contains(&format!("(pid {})", first.child.id())), "{e}");
    }
    let e = fails(&["ask", "new", "s.json", "--spec", "a.toml", "--force"], &tmp.0);
    assert!(e.contains("is in use by another bohf process"), "{e}");
    assert_eq!(history_len(&tmp.join("s.json")), 1);
    // The first one answers and quits; the file holds its answer.
    first.send(b"{\"choice\": \"b\"}\n");
    assert_eq!(first.next()["type"], "saved");
    assert_eq!(first.next()["type"], "query");
    first.send(b"{\"quit\": true}\n");
    assert_eq!(first.next()["type"], "done");
    assert!(first.child.wait().unwrap().success());
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(tmp.join("s.json")).unwrap()).unwrap();
    let history = v["body"]["history"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["answer"]["Duel"]["first_wins"], false);
    // Released at exit: a new process works.
    assert!(bohf(&["ask", "s.json"], &tmp.0, b"q\n").status.success());
}

#[test]
fn invalid_utf8_and_overlong_lines_on_stdin_do_not_end_a_session() {
    // --json: an error message, the query again, and the session goes on.
    let tmp = session("utf8", 0);
    let mut c = JsonChild::spawn(&tmp.0);
    assert_eq!(c.next()["type"], "session");
    let q = c.next();
    c.send(b"{\"choice\": \"\xff\xfe\"}\n");
    let e = c.next();
    assert_eq!(e["type"], "error");
    assert!(e["message"].as_str().unwrap().contains("not valid UTF-8"), "{e}");
    assert_eq!(c.next(), q);
    let mut long = vec![b' '; 3 << 20];
    long.push(b'\n');
    c.send(&long);
    let e = c.next();
    assert_eq!(e["type"], "error");
    assert!(e["message"].as_str().unwrap().contains("longer than"), "{e}");
    assert_eq!(c.next(), q);
    c.send(b"{\"choice\": \"a\"}\n");
    assert_eq!(c.next()["type"], "saved");
    assert_eq!(c.next()["type"], "query");
    drop(c.stdin);
    let done = serde_json::from_str::<serde_json::Value>(&c.lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(done["type"], "done");
    assert_eq!(done["reason"], "end of input");
    assert!(c.child.wait().unwrap().success());
    assert_eq!(history_len(&tmp.join("s.json")), 1);

    // The terminal: a hint, and the next line is read.
    let out = bohf(&["ask", "s.json"], &tmp.0, b"\xc3\x28\nb\nq\n");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("that is not an answer: the line is not valid UTF-8"), "{text}");
    assert!(text.contains("saved (2 of 6)"), "{text}");
    assert_eq!(history_len(&tmp.join("s.json")), 2);
}

#[test]
fn kill_9_at_several_points_keeps_every_saved_answer_and_stale_temp_files_are_removed() {
    let tmp = session("kill", 0);
    let mut saved = 0;
    for (round, k) in [0usize, 1, 2, 0, 1].into_iter().enumerate() {
        let mut c = JsonChild::spawn(&tmp.0);
        assert_eq!(c.next()["type"], "session");
        for _ in 0..k {
            assert_eq!(c.next()["type"], "query");
            c.send(b"{\"choice\": \"a\"}\n");
            assert_eq!(c.next()["type"], "saved");
            saved += 1;
        }
        // Killed while waiting for the next answer: once the next query is out, every save is done
        // (a self-duel answered by the session is saved before the next query is sent; a kill during
        // that save would leave a real temporary file beside the planted ones).
        assert_eq!(c.next()["type"], "query");
        c.child.kill().unwrap();
        c.child.wait().unwrap();
        // A save interrupted by a kill leaves a temporary file named like this (the pid differs).
        let stale = [format!(".s.tmp-{}.json", 4_000_000 + round), format!(".s.json.tmp-{}.bak", 4_100_000 + round)];
        for f in &stale[..1 + round % 2] {
            std::fs::write(tmp.join(f), b"{\"body\": {").unwrap();
        }
        // Not ours: another file's temporary file stays.
        std::fs::write(tmp.join(".other.tmp-5.json"), b"x").unwrap();
        let mut next = JsonChild::spawn(&tmp.0);
        let hello = next.next();
        assert_eq!(hello["answered"], saved, "round {round}: an answer saved before the kill is missing");
        next.send(b"{\"quit\": true}\n");
        while next.next()["type"] != "done" {}
        assert!(next.child.wait().unwrap().success());
        let err = next.stderr();
        let n = 1 + round % 2;
        let want = format!(
            "removed {n} stale temporary file{} from an interrupted save of `s.json`; nothing else changed",
            if n == 1 { "" } else { "s" }
        );
        assert!(err.contains(&want), "round {round}: {err}");
        for f in &stale {
            assert!(!tmp.join(f).exists(), "{f} remains");
        }
        assert!(tmp.join(".other.tmp-5.json").exists());
        assert_eq!(history_len(&tmp.join("s.json")), saved);
    }
    assert_eq!(saved, 4);
}

#[test]
fn a_spec_with_an_absurd_budget_is_refused_at_new() {
    let tmp = session("budget", 0);
    std::fs::write(
        tmp.join("big.toml"),
        "name = \"d\"\nbudget = 9223372036854775807\n[candidates]\ncsv = \"o.csv\"\n[algorithm]\nname = \"random\"\n",
    )
    .unwrap();
    let e = fails(&["ask", "new", "x.json", "--spec", "big.toml"], &tmp.0);
    assert!(e.contains("big.toml") && e.contains("budget: need 1 to 100000 queries"), "{e}");
    assert!(!tmp.join("x.json").exists());
    // A box whose grid would have 10^18 options (and one whose count overflows) is refused before
    // anything is allocated.
    for (points, dims) in [(1_000_000usize, 3usize), (usize::MAX / 2, 4)] {
        std::fs::write(
            tmp.join("box.toml"),
            format!(
                "name = \"b\"\nbudget = 3\n[candidates.box]\nnames = {:?}\nlower = {:?}\nupper = {:?}\n\
                 points_per_dim = {points}\n[algorithm]\nname = \"random\"\n",
                (0..dims).map(|i| format!("x{i}")).collect::<Vec<_>>(),
                vec![0.0; dims],
                vec![1.0; dims]
            ),
        )
        .unwrap();
        let e = fails(&["ask", "new", "x.json", "--spec", "box.toml"], &tmp.0);
        assert!(e.contains("make more than 10000 options"), "{e}");
    }
}

/// Issue 33, item 5: a session created from a bare spec file name (`--spec a.toml`, so the CSV's
/// folder is the empty path) records its images' folder absolute, so the pictures are found.
#[test]
fn a_bare_spec_name_records_the_images_folder_absolute() {
    let tmp = TempDir::new("askh-bare-images");
    std::fs::create_dir_all(tmp.join("img")).unwrap();
    std::fs::write(tmp.join("img/a.png"), b"\x89PNG\r\n\x1a\n").unwrap();
    std::fs::write(tmp.join("o.csv"), "name,sweetness,image\nA,1,img/a.png\nB,2,\n").unwrap();
    std::fs::write(
        tmp.join("a.toml"),
        "name = \"d\"\nbudget = 2\nseed = 1\n[candidates]\ncsv = \"o.csv\"\n[algorithm]\nname = \"random\"\n",
    )
    .unwrap();
    let out = bohf(&["ask", "new", "s.json", "--spec", "a.toml"], &tmp.0, b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(tmp.join("s.json")).unwrap()).unwrap();
    let dir = v["body"]["candidates"]["images"]["dir"].as_str().unwrap();
    assert_eq!(Path::new(dir), tmp.0.canonicalize().unwrap(), "the images' folder as recorded");
}

/// Issue 33, item 4: `bohf ask --json` refuses an answer with a key twice or an unknown key
/// (naming it), records nothing, and asks the same query again.
#[test]
fn ask_json_refuses_duplicate_and_unknown_keys() {
    let tmp = session("json-strict", 0);
    let out = bohf(
        &["ask", "s.json", "--json"],
        &tmp.0,
        b"{\"choice\":\"a\",\"choice\":\"b\"}\n{\"choice\":\"a\",\"why\":1}\n{\"quit\":true}\n",
    );
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let errors: Vec<&str> =
        lines.iter().filter(|m| m["type"] == "error").map(|m| m["message"].as_str().unwrap()).collect();
    assert_eq!(errors.len(), 2, "{lines:?}");
    assert!(errors[0].contains("`choice` appears twice"), "{}", errors[0]);
    assert!(errors[1].contains("unknown key `why`"), "{}", errors[1]);
    assert_eq!(history_len(&tmp.join("s.json")), 0);
}
