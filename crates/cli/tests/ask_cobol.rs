//! `bohf ask` running COBOL: a person who labels (accept/reject) and enters values, through the
//! JSON protocol; the session replays to the same next question.

mod common;

use common::TempDir;

fn bohf(dir: &std::path::Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    common::run_bohf(dir, args, stdin)
}

#[test]
fn cobol_asks_labels_and_values_and_replays() {
    let tmp = TempDir::new("ask-cobol");
    std::fs::write(
        tmp.join("a.toml"),
        "name = \"c\"\nbudget = 24\nseed = 3\n[candidates.box]\nnames = [\"x\", \"y\"]\nlower = [0, 0]\nupper = [1, 1]\n\
         points_per_dim = 5\n[algorithm]\nname = \"cobol\"\n[algorithm.params]\ninitial_labels = 4\nbalanced_labels = false\n",
    )
    .unwrap();
    let out = bohf(&tmp.0, &["ask", "new", "s.json", "--spec", "a.toml"], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A person who accepts everything and enters 1, 2, 3, …: one line answers either kind.
    let lines: String = (0..12).map(|i| format!("{{\"accept\": {}, \"value\": {}}}\n", i % 3 != 0, i as f64)).collect();
    let out = bohf(&tmp.0, &["ask", "s.json", "--json"], lines.as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("\"answered\":12"), "{text}");
    let session = std::fs::read_to_string(tmp.join("s.json")).unwrap();
    assert!(session.contains("\"label\"") || session.contains("Label"), "no label query: {session}");
    assert!(session.contains("\"value\"") || session.contains("Value"), "no value query: {session}");
    // Replaying the saved answers gives the same next question as continuing would.
    let first = bohf(&tmp.0, &["ask", "s.json", "--json"], b"");
    let second = bohf(&tmp.0, &["ask", "s.json", "--json"], b"");
    assert_eq!(first.stdout, second.stdout);
}
