//! Checks of the hand-written pages, run by `cargo xtask docs` and `cargo xtask docs --check`:
//!
//! * every relative link of `README.md` and `docs/**/*.md` (a `](target)` outside code blocks and
//!   code spans that is not a URL or an in-page anchor) names an existing file or folder;
//! * the README's test command is the one `.ci/run` runs (`cargo test --workspace --locked --release`);
//! * the index `docs/README.md` links every page of `docs/` (its top level: the pages below it,
//!   reproductions and generated references, are reached through their own indexes).

use std::path::{Path, PathBuf};

/// The test command of the README and of `.ci/run`.
pub const TEST_COMMAND: &str = "cargo test --workspace --locked --release";

/// Every `.md` file under `dir`, at any depth, appended to `out` (unsorted).
pub fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?.path();
        if path.is_dir() {
            markdown_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    Ok(())
}

/// `README.md` and every `.md` under `docs/`, sorted.
fn pages(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = vec![root.join("README.md")];
    markdown_files(&root.join("docs"), &mut out)?;
    out.sort();
    Ok(out)
}

/// The link targets of a Markdown text: `](target)` outside fenced code blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans removed (their text is not a link; a link around one stays a link).
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join("");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let end = rest.find([')', ' ']).unwrap_or(rest.len());
            out.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    out
}

/// A link that leaves the repository's files: a URL (`https:`, `mailto:`) or an in-page anchor.
fn external(target: &str) -> bool {
    target.is_empty()
        || target.starts_with('#')
        || target.split_once(':').is_some_and(|(scheme, _)| scheme.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Every relative link that names no existing file or folder, as `page: target`.
pub fn broken_links(root: &Path) -> Result<Vec<String>, String> {
    let mut broken = Vec::new();
    for page in pages(root)? {
        let text = std::fs::read_to_string(&page).map_err(|e| format!("cannot read {}: {e}", page.display()))?;
        let dir = page.parent().unwrap_or(root);
        for target in links(&text) {
            if external(&target) {
                continue;
            }
            let file = target.split('#').next().unwrap_or_default();
            if !dir.join(file).exists() {
                broken.push(format!("{}: {target}", page.strip_prefix(root).unwrap_or(&page).display()));
            }
        }
    }
    Ok(broken)
}

/// The pages directly in `docs/` that its index `docs/README.md` does not link, sorted.
pub fn unindexed_pages(root: &Path) -> Result<Vec<String>, String> {
    let docs = root.join("docs");
    let index =
        std::fs::read_to_string(docs.join("README.md")).map_err(|e| format!("cannot read docs/README.md: {e}"))?;
    let linked: Vec<String> =
        links(&index).into_iter().map(|t| t.split('#').next().unwrap_or_default().to_string()).collect();
    let entries = std::fs::read_dir(&docs).map_err(|e| format!("cannot list docs/: {e}"))?;
    let mut missing = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list docs/: {e}"))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        if path.is_file() && name.ends_with(".md") && name != "README.md" && !linked.iter().any(|l| l == name) {
            missing.push(format!("docs/{name}"));
        }
    }
    missing.sort();
    Ok(missing)
}

/// Errors unless both the README and `.ci/run` run [`TEST_COMMAND`] (the README's promise is what
/// CI checks).
pub fn test_command(root: &Path) -> Result<(), String> {
    let runs = |file: &str, line_ok: &dyn Fn(&str) -> bool| -> Result<bool, String> {
        let text = std::fs::read_to_string(root.join(file)).map_err(|e| format!("cannot read {file}: {e}"))?;
        Ok(text.lines().any(line_ok))
    };
    // `.ci/run`: the command alone on its line. The README: the command at the start of a line of
    // a code block, a comment after it.
    if !runs(".ci/run", &|l| l.trim() == TEST_COMMAND)? {
        return Err(format!(".ci/run no longer runs `{TEST_COMMAND}`: update the README and xtask/src/doclinks.rs"));
    }
    let readme_ok = |l: &str| l.strip_prefix(TEST_COMMAND).is_some_and(|r| r.is_empty() || r.starts_with(' '));
    if !runs("README.md", &readme_ok)? {
        return Err(format!("README.md does not show the test command of .ci/run, `{TEST_COMMAND}`"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_outside_code_are_found_and_urls_and_anchors_are_not_files() {
        let text = "See [a](a.md), [`specs/`](specs) and [b](docs/b.md#part).\n\
                    `[not](a link)` and a [url](https://x.org) or [anchor](#here).\n\
                    ```sh\n[inside](code.md)\n```\n";
        assert_eq!(links(text), ["a.md", "specs", "docs/b.md#part", "https://x.org", "#here"]);
        assert!(external("https://x.org") && external("#here") && external("mailto:a@b"));
        assert!(!external("a.md") && !external("../x/y.md#z"));
    }

    #[test]
    fn a_broken_link_is_named_with_its_page() {
        let root = std::env::temp_dir().join(format!("xtask-links-{}", std::process::id()));
        std::fs::create_dir_all(root.join("docs/sub")).unwrap();
        std::fs::write(root.join("README.md"), "[ok](docs/sub/p.md) [gone](docs/none.md)\n").unwrap();
        std::fs::write(root.join("docs/sub/p.md"), "[up](../../README.md#run-it) [no](q.md)\n").unwrap();
        let broken = broken_links(&root).unwrap();
        std::fs::remove_dir_all(&root).ok();
        assert_eq!(broken, ["README.md: docs/none.md", "docs/sub/p.md: q.md"]);
    }

    #[test]
    fn the_repositorys_pages_have_no_broken_link_and_the_readme_runs_the_ci_tests() {
        let root = crate::root();
        assert_eq!(broken_links(&root).unwrap(), Vec::<String>::new());
        test_command(&root).unwrap();
        assert_eq!(unindexed_pages(&root).unwrap(), Vec::<String>::new(), "pages docs/README.md does not link");
    }

    #[test]
    fn a_page_the_index_does_not_link_is_named() {
        let root = std::env::temp_dir().join(format!("xtask-index-{}", std::process::id()));
        std::fs::create_dir_all(root.join("docs/sub")).unwrap();
        std::fs::write(root.join("docs/README.md"), "[a](a.md#x) and `[b](b.md)` in code\n").unwrap();
        for page in ["docs/a.md", "docs/b.md", "docs/sub/c.md"] {
            std::fs::write(root.join(page), "text\n").unwrap();
        }
        let missing = unindexed_pages(&root).unwrap();
        std::fs::remove_dir_all(&root).ok();
        assert_eq!(missing, ["docs/b.md"]);
    }
}
