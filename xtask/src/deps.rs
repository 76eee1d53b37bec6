//! `cargo xtask deps`: every dependency a workspace crate declares is used by its sources.
//!
//! For each package (the root package and every `[workspace] members` entry) and each declared
//! dependency `name` (the key, `-` read as `_`), the check looks for `name::`, `use name` or
//! `extern crate name` outside `//` comments: `[dependencies]` in `src/`, `[dev-dependencies]` in
//! `src/`, `tests/`, `benches/` and `examples/`, `[build-dependencies]` in `build.rs`. A declaration
//! with no such use is reported with its manifest and section, and the command exits 1. It reads
//! files only (no network, no build), so CI runs it in well under a second.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A declared dependency that no source file of its section's scope uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unused {
    /// The manifest, relative to the workspace root.
    pub manifest: PathBuf,
    /// `dependencies`, `dev-dependencies` or `build-dependencies`.
    pub section: &'static str,
    /// The dependency's key as declared.
    pub name: String,
}

impl std::fmt::Display for Unused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: [{}] `{}` is declared but never used (no `{ident}::`, `use {ident}` or `extern crate {ident}`); remove it",
            self.manifest.display(),
            self.section,
            self.name,
            ident = self.name.replace('-', "_")
        )
    }
}

/// The sections checked and the source paths (relative to the package) each may be used in.
const SECTIONS: [(&str, &[&str]); 3] = [
    ("dependencies", &["src"]),
    ("dev-dependencies", &["src", "tests", "benches", "examples"]),
    ("build-dependencies", &["build.rs"]),
];

/// `cargo xtask deps`: prints each unused declaration; exit 1 if there is any, 2 on an unreadable
/// manifest.
pub fn run(args: &[String]) -> ExitCode {
    if !args.is_empty() {
        return crate::usage();
    }
    match unused_dependencies(&crate::root()) {
        Ok(found) if found.is_empty() => {
            println!("xtask deps: every declared dependency is used");
            ExitCode::SUCCESS
        }
        Ok(found) => {
            for u in &found {
                eprintln!("{u}");
            }
            eprintln!("xtask deps: {} unused dependency declaration(s)", found.len());
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("xtask deps: {e}");
            ExitCode::from(2)
        }
    }
}

fn read_toml(path: &Path) -> Result<toml::Table, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.parse::<toml::Table>().map_err(|e| format!("{} is not valid TOML: {e}", path.display()))
}

/// The unused dependency declarations of every package of the workspace at `root`.
pub fn unused_dependencies(root: &Path) -> Result<Vec<Unused>, String> {
    let manifest = read_toml(&root.join("Cargo.toml"))?;
    let mut packages = Vec::new();
    if manifest.contains_key("package") {
        packages.push(PathBuf::new());
    }
    if let Some(members) = manifest.get("workspace").and_then(|w| w.get("members")).and_then(|m| m.as_array()) {
        for m in members {
            let m = m.as_str().ok_or_else(|| format!("workspace member {m} is not a string"))?;
            packages.push(PathBuf::from(m));
        }
    }
    let mut found = Vec::new();
    for rel in packages {
        let dir = root.join(&rel);
        let manifest_path = rel.join("Cargo.toml");
        let m = read_toml(&dir.join("Cargo.toml"))?;
        for (section, scopes) in SECTIONS {
            let Some(deps) = m.get(section).and_then(|d| d.as_table()) else { continue };
            let mut sources = Vec::new();
            for scope in scopes {
                rust_files(&dir.join(scope), &mut sources)?;
            }
            let texts: Vec<String> = sources
                .iter()
                .map(|p| std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display())))
                .collect::<Result<_, _>>()?;
            for name in deps.keys() {
                let ident = name.replace('-', "_");
                if !texts.iter().any(|t| uses(t, &ident)) {
                    found.push(Unused { manifest: manifest_path.clone(), section, name: name.clone() });
                }
            }
        }
    }
    Ok(found)
}

/// The `.rs` files under `path` (a file or a directory, recursively; nothing if it does not exist).
pub fn rust_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if path.is_file() {
        if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.to_path_buf());
        }
        return Ok(());
    }
    if !path.is_dir() {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot list {}: {e}", path.display()))?
        .map(|e| e.map(|e| e.path()).map_err(|e| format!("cannot list {}: {e}", path.display())))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for e in entries {
        rust_files(&e, out)?;
    }
    Ok(())
}

/// Whether `text` uses the crate `ident`: `ident::`, `use ident` or `extern crate ident` as whole
/// words, on a line that is not a `//` comment.
fn uses(text: &str, ident: &str) -> bool {
    text.lines().filter(|l| !l.trim_start().starts_with("//")).any(|line| {
        line.match_indices(ident).any(|(i, _)| {
            let before = &line[..i];
            let after = &line[i + ident.len()..];
            let word_start = !before.chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_');
            let word_end = !after.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_');
            let b = before.trim_end();
            word_start
                && word_end
                && (after.starts_with("::")
                    || (b.ends_with("use") && before.len() > b.len())
                    || (b.ends_with("extern crate") && before.len() > b.len()))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_synthetic_workspace_reports_exactly_the_unused_declarations() {
        let root = std::env::temp_dir().join(format!("xtask-deps-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        write(&root.join("Cargo.toml"), "[workspace]\nmembers = [\"a\", \"b\"]\n");
        write(
            &root.join("a/Cargo.toml"),
            "[package]\nname = \"a\"\n\n[dependencies]\nused-dep = \"1\"\nunused-dep = \"1\"\nin-comment = \"1\"\nglob-use = \"1\"\n\n[dev-dependencies]\ntest-only = \"1\"\nnever = \"1\"\n\n[build-dependencies]\nbuild-used = \"1\"\n",
        );
        write(
            &root.join("a/src/lib.rs"),
            "//! Mentions in_comment::thing only in a comment.\nuse glob_use as g;\npub fn f() -> u32 { used_dep::x() + my_unused_dep::y() }\n",
        );
        write(&root.join("a/tests/t.rs"), "use test_only::*;\n");
        write(&root.join("a/build.rs"), "fn main() { build_used::go(); }\n");
        write(&root.join("b/Cargo.toml"), "[package]\nname = \"b\"\n\n[dependencies]\na = { path = \"../a\" }\n");
        write(&root.join("b/src/main.rs"), "fn main() { a::f(); }\n");
        let found = unused_dependencies(&root).unwrap();
        // Manifest order, then section, then name (the TOML table's sorted keys).
        let names: Vec<(&str, &str)> = found.iter().map(|u| (u.section, u.name.as_str())).collect();
        assert_eq!(
            names,
            [("dependencies", "in-comment"), ("dependencies", "unused-dep"), ("dev-dependencies", "never")],
            "{found:?}"
        );
        let msg = found[1].to_string();
        assert!(
            msg.contains("a/Cargo.toml") && msg.contains("[dependencies]") && msg.contains("`unused-dep`"),
            "{msg}"
        );
        // A bad manifest is an error naming the file.
        write(&root.join("b/Cargo.toml"), "[package\n");
        assert!(unused_dependencies(&root).unwrap_err().contains("b/Cargo.toml"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn use_forms_are_recognised_and_substrings_are_not() {
        assert!(uses("use serde::Deserialize;", "serde"));
        assert!(uses("pub use bohf_core as core;", "bohf_core"));
        assert!(uses("    let x = nalgebra::DMatrix::zeros(1, 1);", "nalgebra"));
        assert!(uses("extern crate rand;", "rand"));
        assert!(!uses("use serde_json::Value;", "serde"));
        assert!(!uses("let random = 1;", "rand"));
        assert!(uses("let r = 1; rand::random::<u8>();", "rand"));
        assert!(!uses("fn f(rand: u8) {}", "rand"));
        assert!(!uses("// use serde::X;", "serde"));
    }
}
