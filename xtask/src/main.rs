//! Project automation.
//!
//! * `cargo xtask verify [--quick] [--only NAME] [--json FILE]`: the papers' numerically checkable
//!   claims (MR-LPF note §8, PF-TS note §9), one row per check; exits 1 if any fails.
//! * `cargo xtask docs [--check]`: regenerates `docs/generated/` from the code (algorithm reference
//!   from the experiment registry, verification report from `docs/generated/verification.json`,
//!   index of `docs/reproduction/`, the CLI reference from clap) and the generated regions of the
//!   hand-written pages (kernels, test functions, spec keys, session-spec keys, the docs index);
//!   `--check` exits 1 if any checked-in page or region is stale.
//! * `cargo xtask deps`: exits 1 naming each dependency a workspace crate declares but never uses.
//! * `cargo xtask layers`: exits 1 naming each arrow between crates that breaks the layers of
//!   `docs/architecture.md` (from `cargo metadata`), and each non-test `.rs` file over 600 lines
//!   that is not on the allow-list of `lengths.rs`.
//!
//! The numerics live in the library crates; this binary only calls them and compares.
//!
//! The `cargo xtask` alias builds the release profile (`.cargo/config.toml`), the profile of the
//! README's test command. The checks are numerical, so a `verify` of an unoptimised build (`cargo run
//! -p xtask`) re-runs itself with `cargo run --release` (set `XTASK_NO_RELEASE=1` to stop this).

mod checks;
mod deps;
mod doclinks;
mod docs;
mod fielddocs;
mod layers;
mod lengths;
mod lists;
mod numbers;
mod report;

use report::{Row, Status};
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Instant;

pub fn usage() -> ExitCode {
    eprintln!(
        "usage: cargo xtask verify [--quick] [--only NAME] [--json FILE]\n       cargo xtask docs [--check]\n       cargo xtask deps\n       cargo xtask layers"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if cfg!(debug_assertions)
        && std::env::var_os("XTASK_NO_RELEASE").is_none()
        && args.first().is_some_and(|a| a == "verify")
    {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["run", "--quiet", "--release", "--package", "xtask", "--"])
            .args(&args)
            .env("XTASK_NO_RELEASE", "1")
            .status();
        return match status {
            Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
            Err(e) => {
                eprintln!("xtask: could not re-run itself in release mode: {e}");
                ExitCode::from(2)
            }
        };
    }
    match args.first().map(String::as_str) {
        Some("verify") => verify(&args[1..]),
        Some("docs") => docs::run(&args[1..]),
        Some("deps") => deps::run(&args[1..]),
        Some("layers") => layers::run(&args[1..]),
        _ => usage(),
    }
}

/// The workspace root (xtask's parent directory).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf()
}

/// The verification report as stored in JSON.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct VerifyReport {
    /// UTC date of the run.
    pub date: String,
    /// The git commit the run was made on (with `+dirty` if the tree had changes).
    pub commit: String,
    /// Whether it was the `--quick` subset.
    pub quick: bool,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Claims whose checks are pending (not written yet, or not checkable here; [`checks::PENDING`]).
    pub pending: Vec<(String, String)>,
    /// The rows.
    pub rows: Vec<Row>,
}

fn git(args: &[&str]) -> String {
    Command::new("git")
        .args(args)
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn verify(args: &[String]) -> ExitCode {
    let mut quick = false;
    let mut only: Option<String> = None;
    let mut json: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--only" => match it.next() {
                Some(v) => only = Some(v.clone()),
                None => return usage(),
            },
            "--json" => match it.next() {
                Some(v) => json = Some(PathBuf::from(v)),
                None => return usage(),
            },
            _ => return usage(),
        }
    }
    let start = Instant::now();
    let mut rows = Vec::new();
    let selected: Vec<_> = checks::catalogue()
        .into_iter()
        .filter(|c| !quick || c.in_quick)
        .filter(|c| only.as_deref().is_none_or(|o| c.name.starts_with(o) || o.starts_with(c.name)))
        .collect();
    if selected.is_empty() {
        eprintln!("xtask verify: no check matches {:?}", only.unwrap_or_default());
        return ExitCode::from(2);
    }
    for check in selected {
        let t = Instant::now();
        let mut r = (check.run)(quick);
        eprintln!("  {} ({} rows, {:.1} s)", check.name, r.len(), t.elapsed().as_secs_f64());
        rows.append(&mut r);
    }
    let no_longer_failing = report::apply_known_findings(&mut rows);
    let seconds = start.elapsed().as_secs_f64();
    let dirty = !git(&["status", "--porcelain", "--untracked-files=no"]).is_empty();
    let report = VerifyReport {
        date: utc_date(unix_now()),
        commit: git(&["rev-parse", "--short=12", "HEAD"]) + if dirty { "+dirty" } else { "" },
        quick,
        seconds,
        pending: checks::PENDING.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        rows,
    };
    println!("{}", report::markdown(&report.rows));
    println!("Pending (checks not written yet, and claims that cannot be checked here):");
    for (c, what) in &report.pending {
        println!("  - {c}: {what}");
    }
    let failed: Vec<&Row> = report.rows.iter().filter(|r| r.status == Status::Fail).collect();
    let passed = report.rows.iter().filter(|r| r.status == Status::Pass).count();
    let findings = report.rows.iter().filter(|r| r.status == Status::Finding).count();
    for name in &no_longer_failing {
        println!("note: known finding `{name}` no longer fails; remove it from KNOWN_FINDINGS");
    }
    println!(
        "\n{} rows: {passed} pass, {} fail, {findings} known findings (failing as documented), {} info; {:.1} s ({}{})",
        report.rows.len(),
        failed.len(),
        report.rows.len() - passed - failed.len() - findings,
        seconds,
        if quick { "--quick, " } else { "" },
        report.commit
    );
    if let Some(path) = json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => {
                if let Err(e) = std::fs::write(&path, text + "\n") {
                    eprintln!("xtask verify: cannot write {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
            Err(e) => {
                eprintln!("xtask verify: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        for r in failed {
            eprintln!("FAILED {}: {} — {} vs {}", r.check, r.claim, r.measured, r.bound);
        }
        ExitCode::from(1)
    }
}

/// "YYYY-MM-DD HH:MM UTC" from Unix seconds ([`bohf_core::calendar`]).
fn utc_date(secs: u64) -> String {
    let (y, mo, d) = bohf_core::calendar::civil_from_days((secs / 86_400) as i64);
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02} UTC")
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::utc_date;
    use crate::report::fmt;

    #[test]
    fn utc_dates_of_known_instants() {
        // Known instants: the epoch, a leap day, and 1.7e9 s (2023-11-14 22:13:20 UTC).
        assert_eq!(utc_date(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_date(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_date(1_700_000_000), "2023-11-14 22:13 UTC");
    }

    #[test]
    fn numbers_keep_four_significant_digits() {
        assert_eq!(fmt(0.0), "0");
        assert_eq!(fmt(1.73340), "1.733");
        assert_eq!(fmt(22028.46), "22028");
        assert_eq!(fmt(0.05), "0.05000");
        assert_eq!(fmt(1e-10), "1.000e-10");
    }
}
