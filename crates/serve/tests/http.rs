//! `bohf serve` over HTTP, in process: the server's answers are the library's, a query is answered
//! once however many tabs answer it, and every refusal writes nothing.

mod common;

use bohf_core::{Abstention, Answer};
use bohf_serve::{Mode, Options, Server};
use bohf_session::{Session, StoredQuery};
use common::{answer_json, http, path_of, spec_text, tmp};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;

/// Writes a spec and creates a session file from it.
fn new_session(dir: &Path, name: &str, algorithm: &str, budget: usize) -> std::path::PathBuf {
    std::fs::write(dir.join(format!("{name}.toml")), spec_text(algorithm, budget)).unwrap();
    let body = bohf_session::prepare(&dir.join(format!("{name}.toml"))).unwrap();
    let path = dir.join(format!("{name}.json"));
    drop(Session::create(&path, body, false).unwrap());
    path
}

/// Starts a server for `mode` on a free loopback port; returns its address and printed URLs.
fn start(mode: Mode) -> (SocketAddr, Vec<(String, String)>) {
    let server =
        Server::bind(&Options { host: IpAddr::V4(Ipv4Addr::LOCALHOST), port: 0, mode, limits: Default::default() })
            .unwrap();
    let (addr, urls) = (server.addr(), server.urls().to_vec());
    std::thread::spawn(move || server.run());
    (addr, urls)
}

/// The scripted person of `answer_json`, given to the library directly.
fn library_answer(s: &Session, q: &StoredQuery) -> bohf_session::StoredAnswer {
    let v = &s.body().candidates.values;
    let score = |i: usize| v[i][0] + v[i][1];
    if (s.answered() + 1).is_multiple_of(4) {
        return Abstention::Skip.into();
    }
    match *q {
        StoredQuery::Duel { a, b } => Answer::Duel { first_wins: score(a) >= score(b) }.into(),
        StoredQuery::Choice { .. } => panic!("no built-in algorithm asks choices"),
        StoredQuery::Label { x } => Answer::Label { accept: score(x) > 1.0 }.into(),
        StoredQuery::Value { x } => Answer::Value(score(x)).into(),
    }
}

#[test]
fn a_session_answered_through_the_server_equals_the_library() {
    for algorithm in ["pf-ts", "gp-ucb"] {
        let dir = tmp(&format!("equal-{algorithm}"));
        let lib_path = new_session(&dir, "lib", algorithm, 9);
        let web_path = new_session(&dir, "web", algorithm, 9);
        let mut lib = Session::open(&lib_path).unwrap();
        let mut lib_queries = Vec::new();
        while let Some(q) = lib.pending().unwrap() {
            lib_queries.push(bohf_session::protocol::query_message(&lib, &q));
            let a = library_answer(&lib, &q);
            lib.record(a).unwrap();
        }
        let lib_rec = lib.recommendation().map(|i| lib.body().candidates.json(i));
        drop(lib);

        let (addr, urls) = start(Mode::Single(web_path.clone()));
        let base = path_of(&urls[0].1);
        let mut web_queries = Vec::new();
        let mut state = http(addr, "GET", &format!("{base}api/state"), b"").unwrap().json();
        while !state["done"].as_bool().unwrap() {
            let q = state["query"].clone();
            web_queries.push(q.clone());
            let r = http(addr, "POST", &format!("{base}api/answer"), answer_json(&q).to_string().as_bytes()).unwrap();
            assert_eq!(r.status, 200, "{}", r.text());
            state = r.json();
        }
        assert_eq!(web_queries, lib_queries, "{algorithm}: the same queries");
        assert_eq!(state["answered"], 9);
        assert_eq!(state["abstained"], 2, "queries 4 and 8 were skipped");
        assert_eq!(Some(state["recommendation"].clone()), lib_rec, "{algorithm}: the same recommendation");
        // The saved files are the same apart from the answers' times: same spec, same history.
        let (lib_body, web_body) =
            (bohf_session::testing::untimed_file(&lib_path), bohf_session::testing::untimed_file(&web_path));
        assert_eq!(lib_body, web_body, "{algorithm}: the same session file");
        let web = bohf_session::file::parse_session(&std::fs::read(&web_path).unwrap()).unwrap();
        assert!(web.history.iter().all(|st| st.asked_at.is_some() && st.answered_at.is_some()), "times recorded");
    }
}

#[test]
fn concurrent_answers_to_one_query_record_exactly_one() {
    let dir = tmp("concurrent");
    let path = new_session(&dir, "s", "pf-ts", 5);
    let (addr, urls) = start(Mode::Single(path.clone()));
    let base = path_of(&urls[0].1);
    for round in 0..3 {
        let state = http(addr, "GET", &format!("{base}api/state"), b"").unwrap().json();
        let t = state["query"]["t"].as_u64().unwrap();
        let tabs = 8;
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(tabs));
        let handles: Vec<_> = (0..tabs)
            .map(|k| {
                let (barrier, url) = (barrier.clone(), format!("{base}api/answer"));
                std::thread::spawn(move || {
                    let body = serde_json::json!({ "t": t, "choice": if k % 2 == 0 { "a" } else { "b" } }).to_string();
                    barrier.wait();
                    http(addr, "POST", &url, body.as_bytes()).unwrap()
                })
            })
            .collect();
        let replies: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let ok = replies.iter().filter(|r| r.status == 200).count();
        assert_eq!(ok, 1, "round {round}: {replies:?}");
        for r in replies.iter().filter(|r| r.status != 200) {
            assert_eq!(r.status, 409, "{}", r.text());
            assert!(
                r.json()["error"].as_str().unwrap().contains(&format!("query {t} was already answered")),
                "{}",
                r.text()
            );
        }
        let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        // The person's answers only: the session records a self-duel by itself ("automatic"), and
        // whether one follows depends on which tab's answer won the race.
        let history = file["body"]["history"].as_array().unwrap();
        let answered = history.iter().filter(|h| h["automatic"] != serde_json::Value::Bool(true)).count();
        assert_eq!(answered, round + 1, "exactly one answer recorded: {history:?}");
    }
}

#[test]
fn bad_requests_are_refused_with_a_status_and_a_message_and_nothing_is_written() {
    let dir = tmp("refuse");
    std::fs::create_dir_all(dir.join("pics")).unwrap();
    std::fs::write(dir.join("pics/a.png"), b"\x89PNG fake").unwrap();
    std::fs::write(dir.join("outside.png"), b"secret").unwrap();
    std::os::unix::fs::symlink(dir.join("outside.png"), dir.join("pics/link.png")).unwrap();
    std::fs::write(dir.join("pics/notes.txt"), b"text").unwrap();
    std::fs::write(dir.join("c.csv"), "name,x,image\nA,1,a.png\nB,2,link.png\nC,3,\nD,4,notes.txt\n").unwrap();
    std::fs::create_dir_all(dir.join("cands")).unwrap();
    std::fs::rename(dir.join("c.csv"), dir.join("pics/c.csv")).unwrap();
    std::fs::write(
        dir.join("s.toml"),
        "name = \"i\"\nbudget = 3\n[candidates]\ncsv = \"pics/c.csv\"\n[algorithm]\nname = \"pf-ts\"\n",
    )
    .unwrap();
    let path = dir.join("s.json");
    drop(Session::create(&path, bohf_session::prepare(&dir.join("s.toml")).unwrap(), false).unwrap());
    let (addr, urls) = start(Mode::Single(path.clone()));
    let base = path_of(&urls[0].1);
    let before = std::fs::read(&path).unwrap();
    let post = |body: &[u8]| http(addr, "POST", &format!("{base}api/answer"), body).unwrap();
    let cases: Vec<(u16, &str, common::Resp)> = vec![
        (413, "at most 16384 bytes", post(&vec![b' '; 20_000])),
        (400, "not JSON", post(b"{\"t\": 1, ")),
        (400, "\"t\": the number of the query", post(br#"{"choice": "a"}"#)),
        (400, "a duel needs", post(br#"{"t": 1, "choice": "c"}"#)),
        // Issue 33, item 4: the strict parser (no key twice, no unknown key, one answer).
        (400, "`choice` appears twice", post(br#"{"t": 1, "choice": "a", "choice": "b"}"#)),
        (400, "`t` appears twice", post(br#"{"t": 1, "t": 2, "choice": "a"}"#)),
        (400, "unknown key `because`", post(br#"{"t": 1, "choice": "a", "because": "x"}"#)),
        (400, "one answer at a time", post(br#"{"t": 1, "choice": "a", "skip": true}"#)),
        // Issue 33, item 14: a CR/LF in the URL is a 404, not a 500.
        (404, "unknown session token", http(addr, "GET", "/p/ab%0D%0ASet-Cookie:%20x=1", b"").unwrap()),
        (404, "unknown session token", http(addr, "GET", "/p/ab%0D%0A/api/state", b"").unwrap()),
        (409, "query 2 has not been asked yet", post(br#"{"t": 2, "choice": "a"}"#)),
        (400, "not UTF-8", post(b"{\"t\": 1, \"choice\": \"\xff\"}")),
        (404, "unknown session token", http(addr, "POST", "/p/0123/api/answer", br#"{"t":1,"choice":"a"}"#).unwrap()),
        (404, "unknown session token", http(addr, "GET", "/p/0123/api/state", b"").unwrap()),
        (404, "unknown session token", http(addr, "GET", "/p/0123/img/0", b"").unwrap()),
        (403, "outside the candidates' folder", http(addr, "GET", &format!("{base}img/1"), b"").unwrap()),
        (404, "option 2 has no image", http(addr, "GET", &format!("{base}img/2"), b"").unwrap()),
        (404, "no option 9", http(addr, "GET", &format!("{base}img/9"), b"").unwrap()),
        (415, "only .png", http(addr, "GET", &format!("{base}img/3"), b"").unwrap()),
        (404, "by option number", http(addr, "GET", &format!("{base}img/..%2F..%2Foutside.png"), b"").unwrap()),
        (404, "open the address", http(addr, "GET", "/", b"").unwrap()),
        (404, "no such page", http(addr, "GET", "/p/x/../../etc/passwd", b"").unwrap()),
    ];
    for (status, words, r) in &cases {
        assert_eq!(r.status, *status, "{words}: {}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains(words), "{words}: {}", r.text());
    }
    assert_eq!(std::fs::read(&path).unwrap(), before, "no refusal wrote anything");
    // A good image is served with its type; the query shows it.
    let img = http(addr, "GET", &format!("{base}img/0"), b"").unwrap();
    assert_eq!((img.status, img.header("content-type")), (200, Some("image/png")));
    assert_eq!(img.body, b"\x89PNG fake");
    let page = http(addr, "GET", &base, b"").unwrap();
    assert_eq!(page.status, 200);
    assert!(page.text().contains("/assets/app.js"));
}

#[test]
fn a_study_serves_each_participant_and_exports_every_answer() {
    let dir = tmp("study");
    std::fs::write(dir.join("study.toml"), spec_text("pf-ts", 3)).unwrap();
    std::fs::write(dir.join("participants.txt"), "# ids\nalice\nbob  # second\n").unwrap();
    let (addr, urls) = start(Mode::Study(dir.clone()));
    let url = |who: &str| path_of(&urls.iter().find(|(w, _)| w.contains(who)).unwrap().1);
    let (alice, bob, researcher) = (url("alice"), url("bob"), url("researcher"));
    assert_ne!(alice, bob);
    // Tokens are 128 bits in hex.
    let token = alice.trim_start_matches("/p/").trim_end_matches('/');
    assert!(token.len() == 32 && token.chars().all(|c| c.is_ascii_hexdigit()), "{token}");
    for (who, n) in [(&alice, 3), (&bob, 1)] {
        for _ in 0..n {
            let q = http(addr, "GET", &format!("{who}api/state"), b"").unwrap().json()["query"].clone();
            let r = http(addr, "POST", &format!("{who}api/answer"), answer_json(&q).to_string().as_bytes()).unwrap();
            assert_eq!(r.status, 200, "{}", r.text());
        }
    }
    let overview = http(addr, "GET", &researcher, b"").unwrap().text();
    assert!(overview.contains("1 of 2 participants finished"), "{overview}");
    assert!(overview.contains("<td>alice</td><td>3</td>") && overview.contains("<td>bob</td><td>1</td>"), "{overview}");
    let csv = http(addr, "GET", &format!("{researcher}answers.csv"), b"").unwrap().text();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "participant,t,kind,option_a,option_b,answer,asked_at,answered_at,seconds");
    assert_eq!(lines.len(), 1 + 3 + 1, "{csv}");
    assert!(lines[1].starts_with("alice,1,duel,#") && lines[4].starts_with("bob,1,duel,#"), "{csv}");
    // The export agrees with the session files.
    let alice_file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("sessions/alice.json")).unwrap()).unwrap();
    assert_eq!(alice_file["body"]["history"].as_array().unwrap().len(), 3);
    // A fixed list: no joining; a wrong researcher token sees nothing.
    let join = http(addr, "GET", "/join", b"").unwrap();
    assert_eq!(join.status, 404);
    assert!(join.text().contains("fixed list of participants"));
    let wrong = http(addr, "GET", "/study/00000000000000000000000000000000/answers.csv", b"").unwrap();
    assert_eq!(wrong.status, 404);
    assert!(wrong.text().contains("unknown researcher token"));
}

#[test]
fn without_a_list_each_visit_to_join_makes_a_new_participant() {
    let dir = tmp("join");
    std::fs::write(dir.join("study.toml"), spec_text("pf-ts", 2)).unwrap();
    let (addr, urls) = start(Mode::Study(dir.clone()));
    assert!(urls.iter().any(|(w, u)| w.contains("join") && u.ends_with("/join")), "{urls:?}");
    let mut pages = Vec::new();
    for _ in 0..2 {
        let r = http(addr, "GET", "/join", b"").unwrap();
        assert_eq!(r.status, 303, "{}", r.text());
        pages.push(r.header("location").unwrap().to_string());
    }
    assert_ne!(pages[0], pages[1]);
    for p in &pages {
        assert_eq!(http(addr, "GET", &format!("{p}api/state"), b"").unwrap().status, 200);
    }
    assert!(dir.join("sessions/p001.json").exists() && dir.join("sessions/p002.json").exists());
    let tokens = std::fs::read_to_string(dir.join("tokens.json")).unwrap();
    assert!(pages.iter().all(|p| tokens.contains(p.trim_start_matches("/p/").trim_end_matches('/'))), "{tokens}");
}

#[test]
fn a_spec_can_hide_the_recommendation() {
    let dir = tmp("hide");
    let text = spec_text("pf-ts", 3).replace("seed = 3\n", "seed = 3\nshow_recommendation = false\n");
    std::fs::write(dir.join("h.toml"), text).unwrap();
    let path = dir.join("h.json");
    drop(Session::create(&path, bohf_session::prepare(&dir.join("h.toml")).unwrap(), false).unwrap());
    let (addr, urls) = start(Mode::Single(path));
    let base = path_of(&urls[0].1);
    let state = http(addr, "GET", &format!("{base}api/state"), b"").unwrap().json();
    assert_eq!(state["recommendation"], serde_json::Value::Null, "{state}");
    assert!(state["query"]["t"] == 1, "{state}");
}

/// On a non-loopback address every page still needs its token: the bare address and a wrong token
/// show nothing.
#[test]
fn a_non_loopback_server_still_requires_the_token() {
    let dir = tmp("open");
    let path = new_session(&dir, "s", "pf-ts", 3);
    let server = Server::bind(&Options {
        host: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        port: 0,
        mode: Mode::Single(path),
        limits: Default::default(),
    })
    .unwrap();
    let addr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), server.addr().port());
    let base = path_of(&server.urls()[0].1);
    std::thread::spawn(move || server.run());
    for p in ["/", "/p/", "/p/00000000000000000000000000000000/", "/p/00000000000000000000000000000000/api/state"] {
        let r = http(addr, "GET", p, b"").unwrap();
        assert_eq!(r.status, 404, "{p}: {}", r.text());
    }
    assert_eq!(http(addr, "GET", &format!("{base}api/state"), b"").unwrap().status, 200);
}

/// `bohf serve` shows a best-of-k choice query (the protocol's `options`), records the chosen
/// position, and the study export lists a choice's options and the chosen one's name.
#[test]
fn a_choice_query_is_served_and_exported_by_name() {
    let dir = tmp("choice");
    std::fs::write(dir.join("c.toml"), spec_text("pf-ts", 4)).unwrap();
    let mut body = bohf_session::prepare(&dir.join("c.toml")).unwrap();
    body.spec.algorithm.name = "three-way".into();
    let registry = bohf_session::testing::three_way_registry();
    let path = dir.join("c.json");
    let mut s = Session::create_with(&path, body, false, &registry).unwrap();
    let state = bohf_serve::state_of(&mut s).unwrap();
    assert_eq!(state["query"]["kind"], "choice", "{state}");
    assert_eq!(state["recommendation"], serde_json::Value::Null, "nothing recommended before a first answer");
    let Some(StoredQuery::Choice { options }) = s.pending().unwrap() else { panic!("not a choice") };
    let shown: Vec<u64> =
        state["query"]["options"].as_array().unwrap().iter().map(|o| o["index"].as_u64().unwrap()).collect();
    assert_eq!(shown, options.iter().map(|&i| i as u64).collect::<Vec<_>>(), "the options in the order of the query");
    let state = bohf_serve::answer_message(&mut s, br#"{"t": 1, "choice": 2}"#).unwrap();
    assert_eq!(state["answered"], 1);
    assert_eq!(s.body().history[0].answer, bohf_session::StoredAnswer::Answer(Answer::Choice { index: 2 }));
    let names = &s.body().candidates.names;
    let csv = bohf_serve::study::answers_csv(&[("p1".into(), &s)]);
    let want = format!(
        "p1,1,choice,{}|{}|{},,{},",
        names[options[0]], names[options[1]], names[options[2]], names[options[2]]
    );
    let row = csv.lines().nth(1).unwrap();
    assert!(row.starts_with(&want), "{csv}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 33, items 3 and 14: the researcher's overview escapes every value (a participant token
/// from a hand-edited `tokens.json` holding `<script>` is shown as text, also inside the link),
/// and the redirect to a page's address percent-encodes the token (a CR/LF in it cannot add a
/// header: 308, not 500).
#[test]
fn the_overview_escapes_every_value_and_redirects_cannot_split_headers() {
    let dir = tmp("xss");
    std::fs::write(dir.join("study.toml"), spec_text("pf-ts", 3)).unwrap();
    let evil = "<script>alert('x')</script>";
    let crlf = "ab\r\nSet-Cookie: x=1";
    let roster = serde_json::json!({
        "researcher": "r0",
        "participants": [{ "id": "p1", "token": evil }, { "id": "p2", "token": crlf }],
    });
    std::fs::write(dir.join("tokens.json"), roster.to_string()).unwrap();
    let (addr, _) = start(Mode::Study(dir.clone()));
    let page = http(addr, "GET", "/study/r0/", b"").unwrap();
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("/p/&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;/"), "{html}");
    assert_eq!(html.matches("<tr>").count(), 3, "a header row and two participants: {html}");
    let r = http(addr, "GET", "/p/ab%0D%0ASet-Cookie:%20x=1", b"").unwrap();
    assert_eq!(r.status, 308, "{}", r.text());
    assert_eq!(r.header("location"), Some("/p/ab%0D%0ASet-Cookie%3A%20x%3D1/"));
    assert!(r.header("set-cookie").is_none());
}

/// A self-duel the session answered itself is exported marked `(automatic)`, and the page's state
/// never holds one (the docs' coffee session, PF-TS, answered through the server).
#[test]
fn self_duels_are_never_served_and_are_exported_as_automatic() {
    let dir = tmp("selfduel");
    let examples = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/ask");
    for f in ["coffee.toml", "beans.csv"] {
        std::fs::copy(examples.join(f), dir.join(f)).unwrap();
    }
    let path = dir.join("coffee.json");
    drop(Session::create(&path, bohf_session::prepare(&dir.join("coffee.toml")).unwrap(), false).unwrap());
    let (addr, urls) = start(Mode::Single(path.clone()));
    let base = path_of(&urls[0].1);
    let mut state = http(addr, "GET", &format!("{base}api/state"), b"").unwrap().json();
    let mut shown = 0;
    while !state["done"].as_bool().unwrap() {
        let q = &state["query"];
        assert_ne!(q["a"]["index"], q["b"]["index"], "{q}");
        shown += 1;
        assert_eq!(q["t"], shown);
        let body = serde_json::json!({ "t": shown, "choice": "a" }).to_string();
        let r = http(addr, "POST", &format!("{base}api/answer"), body.as_bytes()).unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        state = r.json();
    }
    assert_eq!(state["answered"], shown);
    let body = bohf_session::file::parse_session(&std::fs::read(&path).unwrap()).unwrap();
    let automatic = body.history.iter().filter(|s| s.automatic).count();
    assert!(automatic > 0);
    // The export marks them (a copy of the file, opened as a session: the server holds the original).
    let dir2 = tmp("selfduel-export");
    let copy = dir2.join("c.json");
    std::fs::copy(&path, &copy).unwrap();
    let s = Session::open(&copy).unwrap();
    let csv = bohf_serve::study::answers_csv(&[("p1".into(), &s)]);
    assert_eq!(csv.matches("(automatic)").count(), automatic, "{csv}");
    assert_eq!(csv.lines().count(), 1 + shown + automatic, "{csv}");
}
