//! The numbers of the hand-written discussion (`docs/reproduction/discussion.md`) against the
//! committed outputs: every "mean ± s.e." it quotes must be one that a committed report or
//! summary under `docs/reproduction/` holds (to the digits quoted), or the difference of two
//! values of one such file (d = a − b, s.e. √(s.e.(a)² + s.e.(b)²), the index's rule). A quoted
//! number that the code no longer produces then fails `cargo xtask docs --check` instead of
//! drifting. A line that quotes an old number on purpose (a value before a re-run) says so with
//! `<!-- unchecked: why -->` and is skipped.

use std::path::Path;

/// A "value ± s.e." as written: the two numbers and their decimals.
#[derive(Debug, Clone, Copy)]
struct Pair {
    value: f64,
    value_decimals: i32,
    se: f64,
    se_decimals: i32,
}

/// Half a unit in the last printed place of a number with `decimals` decimals.
fn half_ulp(decimals: i32) -> f64 {
    0.5 * 10f64.powi(-decimals)
}

/// A number as printed (`−` or `-` for minus, an optional `+`, thousands commas), with its
/// decimals; `None` if `text` is not one.
fn number(text: &str) -> Option<(f64, i32)> {
    let t = text.replace('−', "-").replace(',', "");
    let t = t.strip_prefix('+').unwrap_or(&t);
    let decimals = t.split_once('.').map_or(0, |(_, f)| f.len() as i32);
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    t.parse().ok().map(|v| (v, decimals))
}

/// Every "a ± b" of `line`, with its text.
fn pairs(line: &str) -> Vec<(String, Pair)> {
    let mut out = Vec::new();
    let mut rest = line;
    let mut offset = 0;
    while let Some(i) = rest.find(" ± ") {
        let at = offset + i;
        let before = &line[..at];
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_digit() || matches!(c, '.' | ',' | '−' | '-' | '+'))
            .last()
            .map_or(at, |(j, _)| j);
        let after = &line[at + " ± ".len()..];
        let end = after
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
            .last()
            .map_or(0, |(j, c)| j + c.len_utf8());
        // A sentence's full stop is not a decimal point.
        let se_text = after[..end].trim_end_matches('.');
        let value_text = before[start..].trim_start_matches(',');
        if let (Some((value, value_decimals)), Some((se, se_decimals))) = (number(value_text), number(se_text)) {
            out.push((format!("{value_text} ± {se_text}"), Pair { value, value_decimals, se, se_decimals }));
        }
        offset = at + " ± ".len();
        rest = &line[offset..];
    }
    out
}

/// Whether the quoted `q` is `p` rounded (each to the coarser of the two printings).
fn same(q: &Pair, p: &Pair) -> bool {
    (q.value - p.value).abs() <= half_ulp(q.value_decimals) + half_ulp(p.value_decimals) + 1e-12
        && (q.se - p.se).abs() <= half_ulp(q.se_decimals) + half_ulp(p.se_decimals) + 1e-12
}

/// Whether the quoted `q` is the difference a − b of `a` and `b` with its s.e., within the
/// printings' rounding.
fn difference(q: &Pair, a: &Pair, b: &Pair) -> bool {
    let d = a.value - b.value;
    let se = (a.se * a.se + b.se * b.se).sqrt();
    (q.value - d).abs() <= half_ulp(q.value_decimals) + half_ulp(a.value_decimals) + half_ulp(b.value_decimals) + 1e-12
        && (q.se - se).abs() <= half_ulp(q.se_decimals) + half_ulp(a.se_decimals) + half_ulp(b.se_decimals) + 1e-12
}

/// The first line of a region of a hand-written page whose numbers are checked like the
/// discussion's (against the committed COBOL reports, for `docs/cobol.md`'s panels).
pub const CHECKED_BEGIN: &str = "<!-- numbers checked against the reports -->";
/// The line that ends such a region.
pub const CHECKED_END: &str = "<!-- end of checked numbers -->";

/// The quoted numbers that no committed file backs, as "page: line N: `a ± b`" (empty when
/// every one is backed): every one of `docs/reproduction/discussion.md`, and those of
/// `docs/cobol.md` between [`CHECKED_BEGIN`] and [`CHECKED_END`] (against the COBOL reports).
pub fn unbacked_numbers(root: &Path) -> Result<Vec<String>, String> {
    let dir = root.join("docs/reproduction");
    let discussion = dir.join("discussion.md");
    let text =
        std::fs::read_to_string(&discussion).map_err(|e| format!("cannot read {}: {e}", discussion.display()))?;
    let mut files = Vec::new();
    crate::doclinks::markdown_files(&dir, &mut files)?;
    files.sort();
    let mut sources: Vec<(String, Vec<Pair>)> = Vec::new();
    for f in files.iter().filter(|f| **f != discussion) {
        let t = std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        sources.push((name, t.lines().flat_map(pairs).map(|(_, p)| p).collect()));
    }
    let mut bad: Vec<String> =
        unbacked(&text, &sources).into_iter().map(|b| format!("docs/reproduction/discussion.md: {b}")).collect();
    let cobol_page = root.join("docs/cobol.md");
    let page =
        std::fs::read_to_string(&cobol_page).map_err(|e| format!("cannot read {}: {e}", cobol_page.display()))?;
    let reports: Vec<(String, Vec<Pair>)> = sources.into_iter().filter(|(n, _)| n.starts_with("cobol-")).collect();
    bad.extend(unbacked(&checked_regions(&page), &reports).into_iter().map(|b| format!("docs/cobol.md: {b}")));
    Ok(bad)
}

/// `page` with every line outside the checked regions blanked (line numbers kept).
fn checked_regions(page: &str) -> String {
    let mut inside = false;
    let mut out = String::new();
    for line in page.lines() {
        if line.trim() == CHECKED_BEGIN {
            inside = true;
        } else if line.trim() == CHECKED_END {
            inside = false;
        }
        out.push_str(if inside { line } else { "" });
        out.push('\n');
    }
    out
}

/// The file-name prefix of a section "## MR-LPF paper, …": its first word, lower case, without
/// hyphens ("mrlpf"); the numbers of that section are looked up in the files that start with it
/// (all files if none does, or before the first such heading).
fn section_prefix(heading: &str) -> String {
    heading.trim_start_matches('#').split_whitespace().next().unwrap_or("").to_lowercase().replace('-', "")
}

fn unbacked(discussion: &str, all: &[(String, Vec<Pair>)]) -> Vec<String> {
    let mut bad = Vec::new();
    let mut sources: Vec<&Vec<Pair>> = all.iter().map(|(_, p)| p).collect();
    for (i, line) in discussion.lines().enumerate() {
        if line.starts_with("## ") {
            let prefix = section_prefix(line);
            sources = all.iter().filter(|(n, _)| n.starts_with(&prefix)).map(|(_, p)| p).collect();
            if sources.is_empty() {
                sources = all.iter().map(|(_, p)| p).collect();
            }
        }
        if line.contains("<!-- unchecked:") {
            continue;
        }
        for (quoted, q) in pairs(line) {
            let direct = sources.iter().copied().flatten().any(|p| same(&q, p));
            let as_difference =
                || sources.iter().any(|file| file.iter().any(|a| file.iter().any(|b| difference(&q, a, b))));
            if !direct && !as_difference() {
                bad.push(format!("line {}: `{quoted}`", i + 1));
            }
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(name: &str, text: &str) -> (String, Vec<Pair>) {
        (name.to_string(), text.lines().flat_map(pairs).map(|(_, p)| p).collect())
    }

    #[test]
    fn only_the_checked_regions_of_a_page_are_read() {
        let page = format!("a 1.0 ± 0.1\n{CHECKED_BEGIN}\nb 2.0 ± 0.2\n{CHECKED_END}\nc 3.0 ± 0.3\n");
        let sources = vec![source("cobol-x.md", "| x | 9.0 ± 0.9 |")];
        assert_eq!(unbacked(&checked_regions(&page), &sources), ["line 3: `2.0 ± 0.2`"]);
    }

    #[test]
    fn pairs_are_read_as_printed() {
        let p = pairs("MR-LPF 0.0544 ± 0.0066, d = −1.0 ± 3.6. Also (131 ± 14) and +0.0078 ± 0.0094; 1,000.5 ± 2");
        let texts: Vec<&str> = p.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["0.0544 ± 0.0066", "−1.0 ± 3.6", "131 ± 14", "+0.0078 ± 0.0094", "1,000.5 ± 2"]);
        assert_eq!((p[1].1.value, p[1].1.value_decimals, p[1].1.se_decimals), (-1.0, 1, 1));
        assert_eq!((p[4].1.value, p[4].1.se), (1000.5, 2.0));
    }

    #[test]
    fn a_quoted_number_must_be_in_a_source_or_a_difference_of_one() {
        let sources = vec![
            source("mrlpf-fig1a.md", "| MR-LPF | 0.054372 ± 0.006612 |\n| MaxMinLCB | 0.046586 ± 0.006640 |"),
            source("mrlpf-fig1b.summary.md", "| GP-TS | 19.8817 ± 0.1142 |"),
            source("pfts-fig2.md", "| PF-TS | 27.9 ± 4.6 |"),
        ];
        let discussion = "\
## MR-LPF paper, Figure 1
MR-LPF 0.0544 ± 0.0066, MaxMinLCB 0.0466 ± 0.0066, d = +0.0078 ± 0.0094.
GP-TS 19.88 ± 0.11, and 19.9 ± 0.1.
Before the re-run it read 0.0675 ± 0.0094.
Old: 0.0716 ± 0.0085 <!-- unchecked: before the 2026-11-24 re-run -->
A wrong rounding 0.0545 ± 0.0066 and a wrong s.e. of a difference +0.0078 ± 0.0133.
A difference across two files: 19.83 ± 0.11.
## PF-TS paper
PF-TS 27.9 ± 4.6, but not MR-LPF's 0.0544 ± 0.0066 (another paper's file).";
        assert_eq!(
            unbacked(discussion, &sources),
            [
                "line 4: `0.0675 ± 0.0094`",
                "line 6: `0.0545 ± 0.0066`",
                "line 6: `+0.0078 ± 0.0133`",
                "line 7: `19.83 ± 0.11`",
                "line 9: `0.0544 ± 0.0066`",
            ]
        );
    }
}
