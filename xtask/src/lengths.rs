//! The length check, run by `cargo xtask layers`: no non-test `.rs` file of `crates/`, `xtask/`
//! or `python/src/` is over [`MAX_LINES`] lines, so a newcomer can read each file in one go, and no
//! function in them is over [`MAX_FN_LINES`] lines unless the comment above it says why, in a
//! line beginning `Long:` or `Long because` ([`long_functions`]).
//!
//! Test files are exempt (a `tests.rs`, a `*_tests.rs`, anything under a `tests/` or `benches/`
//! folder). The files still over the limit are listed in [`ALLOWED`] with the reason; a listed
//! file that is back under the limit (or gone) is reported too, so the list only shrinks.

use std::path::Path;

/// The most lines a non-test source file may have.
pub const MAX_LINES: usize = 600;

/// Files over the limit today (path from the workspace root, with `/`), each with why.
pub const ALLOWED: &[(&str, &str)] = &[];

/// The most lines a function may have (from its `fn` line to its closing brace) without a comment
/// saying why.
pub const MAX_FN_LINES: usize = 100;

/// How a line of the comment above a longer function that says why begins (after `//` or `///`).
pub const LONG_FN_REASON: [&str; 2] = ["Long:", "Long because"];

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
        for (line, name, len) in long_functions(&text) {
            errors.push(format!(
                "{rel}:{line}: fn `{name}` has {len} lines, over {MAX_FN_LINES}: split it, or say why in a comment \
                 line above it beginning `Long:`"
            ));
        }
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

/// The functions of a source `text` over [`MAX_FN_LINES`] lines whose comment block (the `//`
/// and `#[…]` lines right above the `fn` line) has no line beginning with one of
/// [`LONG_FN_REASON`]: (line of the `fn`, name, length from the `fn` line to the closing brace), outside `#[cfg(test)]` modules.
pub fn long_functions(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if t.starts_with("#[cfg(test)]") && lines.get(i + 1).is_some_and(|n| n.trim_start().starts_with("mod ")) {
            i = body_end(&lines, i + 1).unwrap_or(i + 1) + 1;
            continue;
        }
        if let Some(name) = fn_name(t)
            && let Some(end) = body_end(&lines, i)
        {
            let len = end - i + 1;
            let comment = lines[..i].iter().rev().take_while(|l| {
                let l = l.trim_start();
                l.starts_with("//") || l.starts_with("#[")
            });
            let says_why = |l: &str| {
                let text = l.trim_start().trim_start_matches('/').trim_start();
                LONG_FN_REASON.iter().any(|r| text.starts_with(r))
            };
            if len > MAX_FN_LINES && !comment.into_iter().any(|l| says_why(l)) {
                found.push((i + 1, name, len));
            }
        }
        i += 1;
    }
    found
}

/// The line where the braces opened from line `from` on close again (`None` for a declaration
/// that ends with `;` before any `{`, or braces never closed). Braces in string and character
/// literals and in `//` comments are not counted; raw strings are taken as plain ones (a `"`
/// inside one would confuse it; none is in the tree's function bodies).
fn body_end(lines: &[&str], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    for (j, line) in lines.iter().enumerate().skip(from) {
        let c: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < c.len() {
            match (in_string, c[k]) {
                (true, '\\') => k += 1,
                (true, '"') => in_string = false,
                (true, _) => {}
                (false, '"') => in_string = true,
                (false, '/') if c.get(k + 1) == Some(&'/') => break,
                // A character literal: '{', '}', '"', '\'' or an escape.
                (false, '\'') if c.get(k + 2) == Some(&'\'') => k += 2,
                (false, '\'') if c.get(k + 1) == Some(&'\\') => {
                    k += c[k + 2..].iter().position(|&x| x == '\'').map_or(0, |p| p + 2)
                }
                (false, '{') => depth += 1,
                (false, '}') => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                (false, ';') if depth == 0 => return None,
                _ => {}
            }
            k += 1;
        }
    }
    None
}

/// The name of the function a trimmed line declares (`pub(crate) const fn name<T>(` → `name`).
fn fn_name(t: &str) -> Option<String> {
    let mut rest = t;
    loop {
        let next = ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe ", "extern \"C\" "]
            .iter()
            .find_map(|p| rest.strip_prefix(p));
        match next {
            Some(r) => rest = r,
            None => break,
        }
    }
    let name: String = rest.strip_prefix("fn ")?.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty()).then_some(name)
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
    fn a_long_function_needs_its_reason() {
        let body = |n: usize| "    let x = 1;\n".repeat(n);
        let f = |doc: &str, n: usize| format!("{doc}pub(crate) fn long_one<T>(x: T) {{\n{}}}\n", body(n));
        // 100 lines in all (the fn line, 98 of body, the brace) pass; 101 do not.
        assert!(long_functions(&f("", 98)).is_empty());
        assert_eq!(long_functions(&f("/// Sums.\n", 99)), vec![(2, "long_one".to_string(), 101)]);
        // The reason may be in any line of the comment block, attributes between.
        assert!(long_functions(&f("/// Sums.\n/// Long: one loop.\n#[inline]\n", 99)).is_empty());
        assert!(long_functions(&f("// Long because it is one list.\n", 99)).is_empty());
        assert_eq!(long_functions(&f("/// Not long: no.\n", 99)).len(), 1);
        // A blank line ends the block; a declaration without a body is no function.
        assert_eq!(long_functions(&f("/// Long because.\n\n", 99)).len(), 1);
        assert!(long_functions("    fn f(&self);\n").is_empty());
        // One-line functions, and braces in strings, characters and comments, are not a body.
        let short = "fn f() {}\n".repeat(MAX_FN_LINES + 1);
        assert!(long_functions(&short).is_empty());
        let tricky = format!("fn g() {{\n    let a = \"}}\";\n    let b = '}}'; // }}\n{}}}\n", body(99));
        assert_eq!(long_functions(&tricky), vec![(1, "g".to_string(), 103)]);
        // Methods are checked at their indentation; test modules are skipped.
        let method = format!("impl A {{\n    fn m(&self) {{\n{}    }}\n}}\n", body(120));
        assert_eq!(long_functions(&method), vec![(2, "m".to_string(), 122)]);
        let tests = format!("#[cfg(test)]\nmod tests {{\n{}}}\n", method.replace("\n", "\n    "));
        assert!(long_functions(&tests).is_empty());
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
