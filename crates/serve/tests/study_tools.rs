//! The researcher's side of a study over HTTP: a best-of-3 study (qEUBO, q = 3) served and
//! answered, nothing recommended before a first answer, the times and the recommendations in the
//! overview, `answers.csv` and `recommendations.csv`, and hostile choice answers refused with
//! nothing saved.

mod common;

use bohf_serve::{Mode, Options, Server};
use bohf_session::Stamp;
use common::{http, path_of, spec_text, tmp};
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;

/// A study spec: qEUBO asking best-of-3 choices on a 4×4 box (x in [0, 1], y in [0, 2]).
pub const QEUBO3: &str = "name = \"best of three\"\nbudget = 3\nseed = 5\n[candidates.box]\nnames = [\"x\", \"y\"]\n\
    lower = [0.0, 0.0]\nupper = [1.0, 2.0]\npoints_per_dim = 4\n[algorithm]\nname = \"qeubo\"\n\
    [algorithm.params]\nq = 3\nmc_samples = 32\ninitial_duels = 1\n";

fn start(mode: Mode) -> (SocketAddr, Vec<(String, String)>) {
    let server =
        Server::bind(&Options { host: IpAddr::V4(Ipv4Addr::LOCALHOST), port: 0, mode, limits: Default::default() })
            .unwrap();
    let (addr, urls) = (server.addr(), server.urls().to_vec());
    std::thread::spawn(move || server.run());
    (addr, urls)
}

/// A study folder with `spec` and the participants `ids`.
fn study(tag: &str, spec: &str, ids: &[&str]) -> std::path::PathBuf {
    let dir = tmp(tag);
    std::fs::write(dir.join("study.toml"), spec).unwrap();
    std::fs::write(dir.join("participants.txt"), ids.join("\n") + "\n").unwrap();
    dir
}

/// The rows of a CSV without quoted fields, each a map from the header's names to the values.
fn rows(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines.map(|l| header.iter().map(|h| h.to_string()).zip(l.split(',').map(str::to_string)).collect()).collect()
}

fn json_of(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_best_of_three_study_is_answered_and_the_researcher_sees_times_and_recommendations() {
    let dir = study("tools", QEUBO3, &["alice", "bob", "carol"]);
    let (addr, urls) = start(Mode::Study(dir.clone()));
    let url = |who: &str| path_of(&urls.iter().find(|(w, _)| w.contains(who)).unwrap().1);
    let (alice, bob, researcher) = (url("alice"), url("bob"), url("researcher"));

    // Alice: the page's first state shows a best-of-3 choice and no recommendation.
    let before_first = Stamp::now();
    let mut state = http(addr, "GET", &format!("{alice}api/state"), b"").unwrap().json();
    let mut asked = vec![(before_first, Stamp::now())];
    assert_eq!(state["recommendation"], Value::Null, "nothing recommended before a first answer: {state}");
    // She picks positions 2, 0, 1, bracketing each answer with the clock.
    let mut picked = Vec::new();
    let mut answered = Vec::new();
    for (t, pos) in [2usize, 0, 1].into_iter().enumerate() {
        let q = &state["query"];
        assert_eq!((q["kind"].as_str(), q["t"].as_u64()), (Some("choice"), Some(t as u64 + 1)), "{q}");
        let options = q["options"].as_array().unwrap();
        assert_eq!(options.len(), 3, "{q}");
        picked.push(options.iter().map(|o| o["name"].as_str().unwrap().to_string()).collect::<Vec<_>>());
        let before = Stamp::now();
        let body = json!({ "t": t + 1, "choice": pos }).to_string();
        let r = http(addr, "POST", &format!("{alice}api/answer"), body.as_bytes()).unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        let after = Stamp::now();
        answered.push((before, after));
        // The reply shows the next query: it was asked within this request.
        asked.push((before, after));
        state = r.json();
        assert!(state["recommendation"].is_object(), "a recommendation after an answer: {state}");
    }
    assert_eq!(state["done"], true);
    let alice_rec = state["recommendation"].clone();
    // Bob only skips: no informative answer, so still nothing recommended. Carol never starts.
    let q = http(addr, "GET", &format!("{bob}api/state"), b"").unwrap().json();
    let r = http(addr, "POST", &format!("{bob}api/answer"), br#"{"t": 1, "skip": true}"#).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["recommendation"], Value::Null, "a skip is not an answer to recommend from");
    assert_eq!(q["query"]["kind"], "choice");

    // answers.csv: alice's three choices (options and the picked one's name), bob's skip, with
    // times inside the brackets the test took and `seconds` their difference.
    let csv = http(addr, "GET", &format!("{researcher}answers.csv"), b"").unwrap().text();
    assert_eq!(csv.lines().next(), Some("participant,t,kind,option_a,option_b,answer,asked_at,answered_at,seconds"));
    let r = rows(&csv);
    assert_eq!(r.len(), 4, "{csv}");
    let mut waited = 0.0;
    for (t, pos) in [2usize, 0, 1].into_iter().enumerate() {
        let row = &r[t];
        assert_eq!((row["participant"].as_str(), row["t"].as_str()), ("alice", (t + 1).to_string().as_str()));
        assert_eq!(row["kind"], "choice");
        assert_eq!(row["option_a"], picked[t].join("|"));
        assert_eq!(row["answer"], picked[t][pos], "{csv}");
        let (a, b) = (Stamp::parse(&row["asked_at"]).unwrap(), Stamp::parse(&row["answered_at"]).unwrap());
        assert!(asked[t].0 <= a && a <= asked[t].1, "query {} asked at {a:?}, not in {:?}", t + 1, asked[t]);
        assert!(answered[t].0 <= b && b <= answered[t].1, "answer {} at {b:?}, not in {:?}", t + 1, answered[t]);
        assert_eq!(row["seconds"], format!("{:.3}", (b.0 - a.0) as f64 / 1000.0));
        waited += (b.0 - a.0) as f64 / 1000.0;
    }
    assert_eq!((r[3]["participant"].as_str(), r[3]["answer"].as_str()), ("bob", "skip"));

    // recommendations.csv: one row per participant; alice's is the page's last recommendation.
    let csv = http(addr, "GET", &format!("{researcher}recommendations.csv"), b"").unwrap().text();
    assert_eq!(
        csv.lines().next(),
        Some("participant,answered,budget,status,last_answered_at,recommendation,recommendation.x,recommendation.y")
    );
    let r = rows(&csv);
    assert_eq!(r.len(), 3, "{csv}");
    let a = &r[0];
    assert_eq!((a["participant"].as_str(), a["answered"].as_str(), a["budget"].as_str()), ("alice", "3", "3"));
    assert_eq!(a["status"], "finished");
    assert_eq!(a["recommendation"], alice_rec["name"].as_str().unwrap());
    for attr in ["x", "y"] {
        let want = alice_rec["attributes"][attr].as_f64().unwrap();
        assert_eq!(a[&format!("recommendation.{attr}")].parse::<f64>().unwrap(), want, "{csv}");
    }
    let last = Stamp::parse(&a["last_answered_at"]).unwrap();
    assert!(answered[2].0 <= last && last <= answered[2].1, "{csv}");
    let (b, c) = (&r[1], &r[2]);
    assert_eq!((b["participant"].as_str(), b["answered"].as_str(), b["status"].as_str()), ("bob", "1", "in progress"));
    assert_eq!((b["recommendation"].as_str(), b["recommendation.x"].as_str()), ("", ""), "{csv}");
    assert_eq!((c["participant"].as_str(), c["answered"].as_str(), c["last_answered_at"].as_str()), ("carol", "0", ""));

    // The overview: alice's last answer time, mean time to answer and recommendation; "none yet"
    // for bob and carol.
    let page = http(addr, "GET", &researcher, b"").unwrap().text();
    assert!(page.contains("recommendations.csv") && page.contains("Times are UTC"), "{page}");
    let row = |id: &str| {
        let start = page.find(&format!("<tr><td>{id}</td>")).unwrap_or_else(|| panic!("no row of {id}: {page}"));
        page[start..start + page[start..].find("</tr>").unwrap()].to_string()
    };
    let alice_row = row("alice");
    assert!(alice_row.contains(&format!("<td>{:.3}</td>", waited / 3.0)), "mean of 3 times to answer: {alice_row}");
    assert!(alice_row.contains(&format!("<td>{}</td>", a["last_answered_at"])), "{alice_row}");
    assert!(alice_row.contains(&format!("<td>{}</td>", alice_rec["name"].as_str().unwrap())), "{alice_row}");
    assert!(row("bob").contains("<td>none yet</td>") && row("carol").contains("<td>none yet</td>"), "{page}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Hostile answers to a best-of-3 choice: each a 4xx naming the problem, and nothing saved.
#[test]
fn malformed_and_out_of_range_choice_answers_are_refused_and_nothing_is_saved() {
    let dir = study("tools-abuse", QEUBO3, &["p1"]);
    let (addr, urls) = start(Mode::Study(dir.clone()));
    let p1 = path_of(&urls.iter().find(|(w, _)| w.contains("p1")).unwrap().1);
    let state = http(addr, "GET", &format!("{p1}api/state"), b"").unwrap().json();
    assert_eq!(state["query"]["kind"], "choice");
    let file = dir.join("sessions/p1.json");
    let before = std::fs::read(&file).unwrap();
    let post = |body: &str| http(addr, "POST", &format!("{p1}api/answer"), body.as_bytes()).unwrap();
    let cases = [
        (400, "a choice needs", r#"{"t": 1, "choice": "a"}"#), // a duel's letter
        (400, "3 options", r#"{"t": 1, "choice": 3}"#),        // position out of range (k = 3)
        (400, "3 options", r#"{"t": 1, "choice": 99999999999}"#), // far out of range
        (400, "a choice needs", r#"{"t": 1, "choice": -1}"#),
        (400, "a choice needs", r#"{"t": 1, "choice": 1.5}"#),
        (400, "a choice needs", r#"{"t": 1, "choice": [0, 1, 2]}"#),
        (400, "a choice needs", r#"{"t": 1, "choice": null}"#),
        (400, "a choice needs", r#"{"t": 1, "accept": true}"#),
        (400, "`choice` appears twice", r#"{"t": 1, "choice": 0, "choice": 1}"#),
        (400, "unknown key `options`", r#"{"t": 1, "choice": 0, "options": [1, 2, 3]}"#),
        (409, "query 2 has not been asked yet", r#"{"t": 2, "choice": 0}"#),
    ];
    for (status, words, body) in cases {
        let r = post(body);
        assert_eq!(r.status, status, "{body}: {}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains(words), "{body}: {}", r.text());
    }
    assert_eq!(std::fs::read(&file).unwrap(), before, "no refusal saved anything");
    assert_eq!(json_of(&file)["body"]["history"], json!([]));
    // A position that a duel would take (k = 2 instead of 3) answers a duel only with a letter.
    let single = tmp("tools-duel");
    std::fs::write(single.join("d.toml"), spec_text("pf-ts", 3)).unwrap();
    let path = single.join("d.json");
    drop(bohf_session::Session::create(&path, bohf_session::prepare(&single.join("d.toml")).unwrap(), false).unwrap());
    let (addr2, urls2) = start(Mode::Single(path.clone()));
    let base = path_of(&urls2[0].1);
    let duel_before = std::fs::read(&path).unwrap();
    let r = http(addr2, "POST", &format!("{base}api/answer"), br#"{"t": 1, "choice": 1}"#).unwrap();
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.json()["error"].as_str().unwrap().contains("a duel needs"), "{}", r.text());
    assert_eq!(std::fs::read(&path).unwrap(), duel_before);
    // The researcher's exports need the researcher's token.
    let wrong = http(addr, "GET", "/study/00000000000000000000000000000000/recommendations.csv", b"").unwrap();
    assert_eq!(wrong.status, 404);
    assert!(wrong.text().contains("unknown researcher token"));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&single).unwrap();
}
