//! Fixtures of the reproduction's unit tests: scratch folders and a tiny MAGIC-format data file
//! (the same as the engine's test fixtures).

use std::path::PathBuf;

/// A MAGIC-format file of `n` records: 10 attributes from a fixed pseudo-random sequence, the
/// class `g` when a noisy linear score of the first two is positive (so a good SVM does better
/// than the majority).
pub(crate) fn tiny_data(dir: &std::path::Path, n: usize) -> PathBuf {
    let mut state: u64 = 12345;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut text = String::new();
    for _ in 0..n {
        let row: Vec<f64> = (0..10).map(|_| next() * 50.0).collect();
        let class = if row[0] + 0.5 * row[1] + 10.0 * next() > 0.0 { "g" } else { "h" };
        let fields: Vec<String> = row.iter().map(|v| format!("{v:.4}")).collect();
        text.push_str(&format!("{},{class}\n", fields.join(",")));
    }
    let p = dir.join("tiny-magic.data");
    std::fs::write(&p, text).unwrap();
    p
}

pub(crate) fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bohf-experiments-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
