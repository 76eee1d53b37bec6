//! The length check, run by `cargo xtask layers`: no non-test `.rs` file of `crates/`, `xtask/`
//! or `python/src/` is over [`MAX_LINES`] lines, so a newcomer can read each file in one go.
//!
//! Test files are exempt (a `tests.rs`, a `*_tests.rs`, anything under a `tests/` or `benches/`
//! folder). The files still over the limit are listed in [`ALLOWED`] with the reason; a listed
//! file that is back under the limit (or gone) is reported too, so the list only shrinks.

use std::path::Path;

/// The most lines a non-test source file may have.
pub const MAX_LINES: usize = 600;

/// Files over the limit today (path from the workspace root, with `/`), each with why.
pub const ALLOWED: &[(&str, &str)] = &[];

/// The folders walked, from the workspace root.
pub const WALKED: &[&str] = &["crates", "xtask", "python/src"];

/// Whether `path` (relative, with `/`) is a test file: exempt from the limit.
pub fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || path.split('/').rev().skip(1).any(|dir| dir == "tests" || dir == "benches")
}

/// The files under `root`'s folders `walked` over the limit and not in `allowed`, and the entries
/// of `allowed` that are no longer over it, one message each (empty if the tree obeys the limit).
pub fn check(root: &Path, walked: &[&str], allowed: &[(&str, &str)]) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    for dir in walked {
        crate::deps::rust_files(&root.join(dir), &mut files)?;
    }
    let mut errors = Vec::new();
    let mut seen = vec![false; allowed.len()];
    for file in files {
        let rel = file.strip_prefix(root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        if is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {rel}: {e}"))?;
        let lines = text.lines().count();
        if lines <= MAX_LINES {
            continue;
        }
        match allowed.iter().position(|(p, _)| *p == rel) {
            Some(i) => seen[i] = true,
            None => errors.push(format!(
                "{rel}: {lines} lines, over {MAX_LINES}: split it into submodules (or list it in xtask/src/lengths.rs, ALLOWED)"
            )),
        }
    }
    for (i, (p, _)) in allowed.iter().enumerate() {
        if !seen[i] {
            errors.push(format!(
                "{p} is no longer over {MAX_LINES} lines: remove it from ALLOWED (xtask/src/lengths.rs)"
            ));
        }
    }
    Ok(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_obeys_the_limit() {
        let errors = check(&crate::root(), WALKED, ALLOWED).unwrap();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    #[test]
    fn test_files_are_exempt() {
        for p in [
            "crates/a/src/tests.rs",
            "crates/a/tests/cli.rs",
            "crates/a/tests/fuzz/mutate.rs",
            "crates/a/benches/b.rs",
            "crates/a/src/x_tests.rs",
        ] {
            assert!(is_test_file(p), "{p}");
        }
        for p in ["crates/a/src/lib.rs", "crates/tests_helper/src/lib.rs", "crates/a/src/contests.rs"] {
            assert!(!is_test_file(p), "{p}");
        }
    }

    #[test]
    fn a_long_file_fails_and_a_stale_entry_fails() {
        let root = std::env::temp_dir().join(format!("xtask-lengths-{}", std::process::id()));
        let src = root.join("crates").join("a").join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::create_dir_all(root.join("crates").join("a").join("tests")).unwrap();
        let long = "fn f() {}\n".repeat(MAX_LINES + 1);
        std::fs::write(src.join("long.rs"), &long).unwrap();
        std::fs::write(src.join("tests.rs"), &long).unwrap();
        std::fs::write(root.join("crates/a/tests/t.rs"), &long).unwrap();
        std::fs::write(src.join("short.rs"), "fn f() {}\n".repeat(MAX_LINES)).unwrap();
        let errors = check(&root, &["crates"], &[]).unwrap();
        assert!(errors.len() == 1 && errors[0].starts_with("crates/a/src/long.rs: 601 lines"), "{errors:?}");
        assert!(check(&root, &["crates"], &[("crates/a/src/long.rs", "test")]).unwrap().is_empty());
        let errors =
            check(&root, &["crates"], &[("crates/a/src/long.rs", "test"), ("crates/a/src/short.rs", "test")]).unwrap();
        assert!(errors.len() == 1 && errors[0].contains("short.rs is no longer over"), "{errors:?}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
