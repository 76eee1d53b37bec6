//! `bohf ask` running qEUBO with q = 3: best-of-3 choices through the JSON protocol; an index out of
//! range is refused and the session goes on; the session replays to the same next question.

mod common;

use common::TempDir;

fn bohf(dir: &std::path::Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    common::run_bohf(dir, args, stdin)
}

#[test]
fn qeubo_asks_best_of_three_choices_and_replays() {
    let tmp = TempDir::new("ask-qeubo");
    std::fs::write(
        tmp.join("a.toml"),
        "name = \"q\"\nbudget = 10\nseed = 4\n[candidates.box]\nnames = [\"x\", \"y\"]\nlower = [0, 0]\nupper = [1, 1]\n\
         points_per_dim = 4\n[algorithm]\nname = \"qeubo\"\n[algorithm.params]\nq = 3\nmc_samples = 32\ninitial_duels = 2\n",
    )
    .unwrap();
    let out = bohf(&tmp.0, &["ask", "new", "s.json", "--spec", "a.toml"], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // First an index out of range (refused, naming answer.index), then 6 answers 0, 1, 2, 0, …
    let mut lines = String::from("{\"choice\": 3}\n");
    lines.extend((0..6).map(|i| format!("{{\"choice\": {}}}\n", i % 3)));
    let out = bohf(&tmp.0, &["ask", "s.json", "--json"], lines.as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("\"answered\":6"), "{text}");
    assert!(text.contains("answer.index"), "{text}");
    let queries: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "query")
        .collect();
    // 7 answered lines (one refused) plus the next question: 8 queries shown, all choices of 3
    // distinct options.
    assert_eq!(queries.len(), 8, "{text}");
    for q in &queries {
        assert_eq!(q["kind"], "choice", "{q}");
        let options = q["options"].as_array().unwrap();
        assert_eq!(options.len(), 3, "{q}");
        assert!(options[0] != options[1] && options[0] != options[2] && options[1] != options[2], "{q}");
    }
    let session = std::fs::read_to_string(tmp.join("s.json")).unwrap();
    assert!(session.contains("Choice") || session.contains("\"choice\""), "no choice saved: {session}");
    // Replaying the saved answers gives the same next question as continuing would.
    let first = bohf(&tmp.0, &["ask", "s.json", "--json"], b"");
    let second = bohf(&tmp.0, &["ask", "s.json", "--json"], b"");
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert_eq!(first.stdout, second.stdout);
}
