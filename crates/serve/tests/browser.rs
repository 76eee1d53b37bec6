//! A real browser answers a whole session: headless Chromium driven over WebDriver (chromedriver)
//! answers by clicking and by keyboard, including "no preference" and "skip", and the session file
//! records exactly those answers. It also takes the screenshot of a duel with images in
//! `docs/serve.md` (written to `$BOHF_SERVE_SCREENSHOT` when that is set).
//!
//! Skipped, with a message, when `chromium` or `chromedriver` is not installed; required (it fails
//! instead) when `BOHF_BROWSER_TEST_REQUIRED=1`, as `.ci/run` sets.

mod common;
mod webdriver;

use bohf_core::{Abstention, Answer};
use bohf_serve::{Mode, Options, Server};
use bohf_session::{StoredAnswer, StoredQuery};
use common::tmp;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::time::Duration;
use webdriver::{Client, Locator};

/// The first of `names` found on PATH.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|d| names.iter().map(move |n| d.join(n))).find(|p| p.is_file())
}

/// A cup of coffee as an SVG picture: darker for a darker roast.
fn cup_svg(roast: f64, label: &str) -> String {
    let shade = (200.0 - roast * 40.0).clamp(20.0, 220.0) as u8;
    let (r, g, b) = (shade, (f64::from(shade) * 0.62) as u8, (f64::from(shade) * 0.35) as u8);
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="240" height="160" viewBox="0 0 240 160">
<rect width="240" height="160" fill="#f3efe9"/>
<path d="M60 40 h110 v60 a35 35 0 0 1 -35 35 h-40 a35 35 0 0 1 -35 -35 z" fill="#ffffff" stroke="#555" stroke-width="3"/>
<path d="M170 55 a18 18 0 0 1 0 36" fill="none" stroke="#555" stroke-width="6"/>
<ellipse cx="115" cy="44" rx="52" ry="8" fill="rgb({r},{g},{b})"/>
<text x="120" y="152" font-family="sans-serif" font-size="14" text-anchor="middle" fill="#333">{label}</text>
</svg>
"##
    )
}

/// A session of coffees with pictures (budget 6, PF-TS).
fn coffee_session(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir.join("pictures")).unwrap();
    let beans = [
        ("Yirgacheffe", 2.0, 8.5, 14.0),
        ("Huila", 3.0, 6.5, 11.0),
        ("Sumatra Mandheling", 4.0, 3.0, 12.0),
        ("Kenya AA", 2.5, 8.0, 16.0),
        ("Santos", 3.5, 4.0, 8.0),
        ("Java Estate", 4.0, 3.5, 12.0),
    ];
    let mut csv = String::from("name,roast,acidity,price,image\n");
    for (i, (name, roast, acidity, price)) in beans.iter().enumerate() {
        let file = format!("cup{i}.svg");
        std::fs::write(dir.join("pictures").join(&file), cup_svg(*roast, name)).unwrap();
        csv.push_str(&format!("{name},{roast},{acidity},{price},{file}\n"));
    }
    std::fs::write(dir.join("pictures/beans.csv"), csv).unwrap();
    std::fs::write(
        dir.join("coffee.toml"),
        "name = \"coffee\"\nquestion = \"Which coffee would you rather drink?\"\nbudget = 6\nseed = 2\n\
         [candidates]\ncsv = \"pictures/beans.csv\"\n[algorithm]\nname = \"pf-ts\"\n",
    )
    .unwrap();
    let path = dir.join("coffee.json");
    let body = bohf_session::prepare(&dir.join("coffee.toml")).unwrap();
    drop(bohf_session::Session::create(&path, body, false).unwrap());
    path
}

/// The docs' coffee session (`docs/examples/ask/coffee.toml`: PF-TS, 8 coffees, budget 12) in `dir`.
fn docs_coffee_session(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/ask");
    for f in ["coffee.toml", "beans.csv"] {
        std::fs::copy(examples.join(f), dir.join(f)).unwrap();
    }
    let path = dir.join("coffee.json");
    let body = bohf_session::prepare(&dir.join("coffee.toml")).unwrap();
    drop(bohf_session::Session::create(&path, body, false).unwrap());
    path
}

/// The consistent person of the docs' session: acidity − price / 2 (issue 34's scripted person).
fn docs_utility(name: &str) -> f64 {
    let csv =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/ask/beans.csv"))
            .unwrap();
    let row = csv.lines().find(|l| l.split(',').next() == Some(name)).unwrap_or_else(|| panic!("no coffee `{name}`"));
    let v: Vec<f64> = row.split(',').skip(1).map(|x| x.parse().unwrap()).collect();
    v[1] - 0.5 * v[3]
}

/// Kills the chromedriver process when dropped.
struct Driver(std::process::Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Chromium and chromedriver, or `None` (with a message) when either is missing and
/// `BOHF_BROWSER_TEST_REQUIRED` is not `1`.
fn browser_paths(test: &str) -> Option<(PathBuf, PathBuf)> {
    let required = std::env::var("BOHF_BROWSER_TEST_REQUIRED").is_ok_and(|v| v == "1");
    let (Some(chromium), Some(chromedriver)) =
        (on_path(&["chromium", "chromium-browser", "google-chrome"]), on_path(&["chromedriver"]))
    else {
        assert!(!required, "BOHF_BROWSER_TEST_REQUIRED=1 but chromium or chromedriver is not installed");
        eprintln!(
            "SKIPPED {test}: chromium and chromedriver are not installed (apt-get install -y chromium \
             chromium-driver); .ci/run installs them and requires this test"
        );
        return None;
    };
    Some((chromium, chromedriver))
}

/// Starts chromedriver on a free port (killed when the guard drops) and waits until it listens.
fn start_driver(chromedriver: &Path) -> (Driver, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let driver = Driver(
        std::process::Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    (driver, port)
}

/// A headless Chromium session through the chromedriver at `port`, with its profile in `profile`.
fn connect(chromium: &Path, port: u16, profile: &Path) -> Client {
    let caps = serde_json::json!({
        "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--window-size=1000,760", format!("--user-data-dir={}", profile.display())],
        }
    });
    Client::new(port, caps).expect("connect to chromedriver")
}

/// The page's query `t` shown.
fn at(t: usize) -> Locator {
    Locator::Css(format!("#query[data-t='{t}']:not([hidden])"))
}

#[test]
fn a_browser_answers_a_whole_session_by_clicking_and_by_keyboard() {
    let Some((chromium, chromedriver)) = browser_paths("a_browser_answers_a_whole_session_by_clicking_and_by_keyboard")
    else {
        return;
    };
    let dir = tmp("browser");
    let path = coffee_session(&dir);
    let server = Server::bind(&Options {
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
        port: 0,
        mode: Mode::Single(path.clone()),
        limits: Default::default(),
    })
    .unwrap();
    let url = server.urls()[0].1.clone();
    std::thread::spawn(move || server.run());
    // The docs' coffee session (PF-TS, budget 12), answered below as a consistent person would.
    let docs = docs_coffee_session(&dir.join("docs"));
    let server = Server::bind(&Options {
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
        port: 0,
        mode: Mode::Single(docs.clone()),
        limits: Default::default(),
    })
    .unwrap();
    let docs_url = server.urls()[0].1.clone();
    std::thread::spawn(move || server.run());

    let (_driver, port) = start_driver(&chromedriver);
    let profile = dir.join("profile");
    let recorded = {
        let c = connect(&chromium, port, &profile);
        c.goto(&url).unwrap();
        c.wait_for(Duration::from_secs(30), at(1)).unwrap();
        // Both options are shown with their names and their pictures (loaded).
        let loaded = c
            .execute(
                "const im = [...document.querySelectorAll('#options img')]; \
                 return im.length === 2 && im.every(i => i.complete && i.naturalWidth > 0);",
            )
            .unwrap();
        assert_eq!(loaded, serde_json::json!(true), "the duel shows two loaded pictures");
        let a_name = c.find(Locator::Css("#option-a h3".into())).unwrap().text().unwrap();
        assert!(a_name.starts_with('A'), "{a_name}");
        let shot = c.screenshot().unwrap();
        assert!(shot.starts_with(b"\x89PNG") && shot.len() > 10_000, "a screenshot of {} bytes", shot.len());
        if let Some(out) = std::env::var_os("BOHF_SERVE_SCREENSHOT") {
            std::fs::write(out, &shot).unwrap();
        }
        // Answer: click A, key B, click "no preference", key S, key ←, click B.
        let body = || c.find(Locator::Css("body".into())).unwrap();
        c.find(Locator::Id("choose-a".into())).unwrap().click().unwrap();
        c.wait_for(Duration::from_secs(30), at(2)).unwrap();
        body().send_keys("b").unwrap();
        c.wait_for(Duration::from_secs(30), at(3)).unwrap();
        c.find(Locator::Id("no-preference".into())).unwrap().click().unwrap();
        c.wait_for(Duration::from_secs(30), at(4)).unwrap();
        body().send_keys("s").unwrap();
        c.wait_for(Duration::from_secs(30), at(5)).unwrap();
        body().send_keys("\u{E012}").unwrap(); // ← (WebDriver's Left key)
        c.wait_for(Duration::from_secs(30), at(6)).unwrap();
        let progress = c.find(Locator::Id("progress".into())).unwrap().text().unwrap();
        assert!(progress.starts_with("5 of 6 answered"), "{progress}");
        c.find(Locator::Id("choose-b".into())).unwrap().click().unwrap();
        c.wait_for(Duration::from_secs(30), Locator::Css("#done:not([hidden])".into())).unwrap();
        let rec = c.find(Locator::Css("#rec h3".into())).unwrap().text().unwrap();

        // The docs' session: read the two cards' names, answer by the person's utility with a
        // key, until the page says it is done. No page shows the same option twice.
        c.goto(&docs_url).unwrap();
        let mut shown: Vec<(String, String)> = Vec::new();
        loop {
            let t = shown.len() + 1;
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            let done = loop {
                if c.find(Locator::Css("#done:not([hidden])".into())).is_ok() {
                    break true;
                }
                if c.find(at(t)).is_ok() {
                    break false;
                }
                assert!(std::time::Instant::now() < deadline, "query {t} or the end did not appear");
                std::thread::sleep(Duration::from_millis(50));
            };
            if done {
                break;
            }
            let name = |tag: &str| {
                let js = format!("return document.querySelector('#option-{tag} h3').lastChild.textContent;");
                c.execute(&js).unwrap().as_str().unwrap().to_string()
            };
            let (a, b) = (name("a"), name("b"));
            let key = if docs_utility(&a) >= docs_utility(&b) { "a" } else { "b" };
            shown.push((a, b));
            body().send_keys(key).unwrap();
        }
        let self_duels = shown.iter().filter(|(a, b)| a == b).count();
        eprintln!("browser, docs' coffee session: {} duels shown, {self_duels} self-duels shown", shown.len());
        assert_eq!(self_duels, 0, "{shown:?}");
        assert!(!shown.is_empty() && shown.len() <= 12, "{shown:?}");
        let progress = c.find(Locator::Id("progress".into())).unwrap().text().unwrap();
        assert_eq!(progress, format!("{} of 12 answered", shown.len()));
        c.close().unwrap();
        rec
    };
    let docs_body = bohf_session::file::parse_session(&std::fs::read(&docs).unwrap()).unwrap();
    assert!(docs_body.history.iter().any(|s| s.automatic), "PF-TS asked self-duels, answered automatically");
    for s in &docs_body.history {
        let StoredQuery::Duel { a, b } = s.query else { panic!("a duel") };
        assert_eq!(a == b, s.automatic, "{s:?}");
    }
    let body = bohf_session::file::parse_session(&std::fs::read(&path).unwrap()).unwrap();
    // The person's answers (self-duels the session answered itself are not shown to the person).
    let answers: Vec<StoredAnswer> = body.history.iter().filter(|s| !s.automatic).map(|s| s.answer).collect();
    let duel = |first_wins| StoredAnswer::Answer(Answer::Duel { first_wins });
    assert_eq!(
        answers,
        vec![
            duel(true),
            duel(false),
            Abstention::NoPreference.into(),
            Abstention::Skip.into(),
            duel(true),
            duel(false)
        ]
    );
    assert!(body.candidates.names.contains(&recorded), "the page shows a recommendation: {recorded}");
}

/// A best-of-3 study (qEUBO, q = 3) answered in the browser: three cards with accessible labels,
/// picked by clicking and by the keys 1 to 3; no recommendation before the first answer; the
/// session file records the chosen positions, and the researcher's exports the times and the
/// recommendation.
#[test]
fn a_browser_answers_a_best_of_three_study_by_clicking_and_by_keys() {
    let Some((chromium, chromedriver)) =
        browser_paths("a_browser_answers_a_best_of_three_study_by_clicking_and_by_keys")
    else {
        return;
    };
    let dir = tmp("browser-choice");
    std::fs::write(
        dir.join("study.toml"),
        "name = \"best of three\"\nbudget = 5\nseed = 5\n[candidates.box]\nnames = [\"x\", \"y\"]\n\
         lower = [0.0, 0.0]\nupper = [1.0, 2.0]\npoints_per_dim = 4\n[algorithm]\nname = \"qeubo\"\n\
         [algorithm.params]\nq = 3\nmc_samples = 32\ninitial_duels = 1\n",
    )
    .unwrap();
    std::fs::write(dir.join("participants.txt"), "ann\n").unwrap();
    let server = Server::bind(&Options {
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
        port: 0,
        mode: Mode::Study(dir.clone()),
        limits: Default::default(),
    })
    .unwrap();
    let addr = server.addr();
    let url = |who: &str| server.urls().iter().find(|(w, _)| w.contains(who)).unwrap().1.clone();
    let (page, researcher) = (url("ann"), common::path_of(&url("researcher")));
    std::thread::spawn(move || server.run());
    let (_driver, port) = start_driver(&chromedriver);
    let profile = dir.join("profile");
    // Positions picked: click 2, key 3, key 1, click 1, key 2 (0-based: 1, 2, 0, 0, 1).
    let plan: [(bool, usize); 5] = [(true, 2), (false, 3), (false, 1), (true, 1), (false, 2)];
    let (shown, last_rec) = {
        let c = connect(&chromium, port, &profile);
        c.goto(&page).unwrap();
        c.wait_for(Duration::from_secs(60), at(1)).unwrap();
        let hidden = c.execute("return document.getElementById('recommendation').hidden;").unwrap();
        assert_eq!(hidden, serde_json::json!(true), "no recommendation before the first answer");
        let body = || c.find(Locator::Css("body".into())).unwrap();
        let mut shown = Vec::new();
        for (t, &(click, n)) in plan.iter().enumerate() {
            c.wait_for(Duration::from_secs(60), at(t + 1)).unwrap();
            // Three cards tagged 1..3, each labelled with its option's name; three buttons.
            let cards = c
                .execute(
                    "return [...document.querySelectorAll('#options .option')].map(o => \
                     [o.id, o.getAttribute('aria-label'), o.querySelector('h3').lastChild.textContent]);",
                )
                .unwrap();
            let cards = cards.as_array().unwrap().clone();
            assert_eq!(cards.len(), 3, "{cards:?}");
            let mut names = Vec::new();
            for (i, card) in cards.iter().enumerate() {
                let name = card[2].as_str().unwrap().to_string();
                assert_eq!(card[0], format!("option-{}", i + 1));
                assert_eq!(card[1], format!("Option {}: {name}", i + 1));
                let b = c.find(Locator::Id(format!("choose-{}", i + 1))).unwrap();
                assert_eq!(b.text().unwrap(), format!("{} is best", i + 1));
                assert_eq!(b.attr("aria-label").unwrap(), Some(format!("{} is best: {name}", i + 1)));
                names.push(name);
            }
            shown.push(names);
            if click {
                c.find(Locator::Id(format!("choose-{n}"))).unwrap().click().unwrap();
            } else {
                body().send_keys(&n.to_string()).unwrap();
            }
            if t == 0 {
                c.wait_for(Duration::from_secs(30), at(2)).unwrap();
                let rec = c.find(Locator::Css("#recommendation:not([hidden]) #rec h3".into())).unwrap();
                assert!(!rec.text().unwrap().is_empty(), "a recommendation after the first answer");
            }
        }
        c.wait_for(Duration::from_secs(60), Locator::Css("#done:not([hidden])".into())).unwrap();
        let rec = c.find(Locator::Css("#rec h3".into())).unwrap().text().unwrap();
        c.close().unwrap();
        (shown, rec)
    };
    let file = bohf_session::file::parse_session(&std::fs::read(dir.join("sessions/ann.json")).unwrap()).unwrap();
    let picked: Vec<StoredAnswer> = file.history.iter().map(|s| s.answer).collect();
    let want: Vec<StoredAnswer> =
        plan.iter().map(|&(_, n)| StoredAnswer::Answer(Answer::Choice { index: n - 1 })).collect();
    assert_eq!(picked, want, "the chosen positions, clicked and keyed");
    for (step, names) in file.history.iter().zip(&shown) {
        let StoredQuery::Choice { options } = &step.query else { panic!("a choice: {step:?}") };
        let stored: Vec<&str> = options.iter().map(|&i| file.candidates.names[i].as_str()).collect();
        assert_eq!(&stored, names, "the cards in the order of the query");
        assert!(step.asked_at.unwrap() <= step.answered_at.unwrap(), "{step:?}");
    }
    // The researcher's exports: the chosen names and the recommendation the page showed last.
    let csv = common::http(addr, "GET", &format!("{researcher}answers.csv"), b"").unwrap().text();
    for (t, (&(_, n), names)) in plan.iter().zip(&shown).enumerate() {
        let row = csv.lines().nth(t + 1).unwrap();
        let prefix = format!("ann,{},choice,{},,{},", t + 1, names.join("|"), names[n - 1]);
        assert!(row.starts_with(&prefix), "{row} does not start with {prefix}");
    }
    let recs = common::http(addr, "GET", &format!("{researcher}recommendations.csv"), b"").unwrap().text();
    let row = recs.lines().nth(1).unwrap();
    assert!(row.starts_with("ann,5,5,finished,") && row.contains(&format!(",{last_rec},")), "{recs}");
}
