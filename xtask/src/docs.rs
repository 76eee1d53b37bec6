//! `cargo xtask docs [--check]`: the pages of `docs/generated/`, built from the code.
//!
//! * `algorithms.md`: every algorithm of [`bohf_registry::builtin`] (the registry the
//!   specs and the CLI use), with its paper, what it queries (both from the registry entry,
//!   `AlgorithmEntry::documented`), and every parameter with its default and meaning. Defaults are
//!   each config type's `Default` serialised to TOML (`AlgorithmEntry::default_params`, and accepted
//!   by the registry's own parameter check); the meanings are the `///` comments of the config
//!   struct's fields (`AlgorithmEntry::config_type`), read by [`crate::fielddocs`]. An entry with a
//!   box mode also gets its `box_search` table, documented by `AlgorithmEntry::box_search_type`. An entry without a
//!   paper or a config type, or a config key whose field has no doc comment, is an error, so the
//!   page cannot drift from the code.
//! * `verification.md`: the table of `cargo xtask verify`, rendered from
//!   `docs/generated/verification.json` (written by `cargo xtask verify --json
//!   docs/generated/verification.json`), with its date, commit and run time.
//! * `reproduction.md`: an index of `docs/reproduction/` (title of every page, the specs of the
//!   sensitivity runs).
//! * `cli.md`: the command-line reference, rendered from the clap definition of the `bohf` command
//!   by the binary itself (`BOHF_MARKDOWN_HELP=1 bohf`, `crates/cli/src/reference.rs`), which this
//!   runs with `cargo run --release -p bohf-cli`: xtask may not depend on the CLI crate (a front end
//!   never depends on another front end, `cargo xtask layers`).
//!
//! It also rewrites the generated regions of hand-written pages ([`crate::lists`]: the kernel list,
//! the test functions, the spec keys of experiment and session specs, the index `docs/README.md`).
//!
//! `--check` regenerates in memory and exits 1 if any checked-in page or region differs. Both also
//! check the hand-written pages ([`crate::doclinks`]: relative links resolve, the README's test
//! command is the one `.ci/run` runs).

use crate::VerifyReport;
use crate::fielddocs::{Structs, read_dir, resolve};
use crate::report::{Status, markdown};
use bohf_core::DomainKind;
use bohf_experiments::AlgorithmEntry;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What the page says of an entry: its name, (paper, queries), config struct name and default
/// `params` table.
type Documented<'a> = (&'a str, (&'a str, &'a str), &'static str, toml::Table);

/// The [`Documented`] parts of an entry; an error names an entry registered without them.
fn documented(entry: &AlgorithmEntry) -> Result<Documented<'_>, String> {
    let name = entry.name();
    let about = entry.about().ok_or_else(|| {
        format!("`{name}` is registered without `.documented(paper, queries)` (crates/registry/src/lib.rs)")
    })?;
    let config =
        entry.config_type().ok_or_else(|| format!("`{name}` has no config type (registered from closures)"))?;
    Ok((name, about, config, entry.default_params()))
}

fn flatten(prefix: &str, table: &toml::Table, out: &mut Vec<(String, String)>) {
    for (k, v) in table {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            toml::Value::Table(t) => flatten(&key, t, out),
            other => out.push((key, other.to_string())),
        }
    }
}

/// The structs of the config types (every `pub struct` under `crates/`).
fn config_structs(root: &Path) -> Result<Structs, String> {
    let mut structs = Structs::new();
    read_dir(&root.join("crates"), &mut structs)?;
    Ok(structs)
}

/// The rows of one algorithm's parameter table: (documented key, default as TOML, meaning). A key
/// whose field is an enum or scalar table (e.g. a width schedule) is one row with the inline table.
fn parameter_rows(
    structs: &Structs,
    config: &str,
    table: &toml::Table,
) -> Result<Vec<(String, String, String)>, String> {
    let mut keys = Vec::new();
    flatten("", table, &mut keys);
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for (key, value) in keys {
        let (shown, doc) = resolve(structs, config, &key)?;
        if rows.iter().any(|r| r.0 == shown) {
            continue;
        }
        let default = if shown == key {
            value
        } else {
            let mut v = toml::Value::Table(table.clone());
            for seg in shown.split('.') {
                v = v.get(seg).cloned().ok_or_else(|| format!("`{shown}` missing from the defaults"))?;
            }
            v.to_string()
        };
        rows.push((shown, default, doc));
    }
    // Optional tables and keys that are absent from the defaults (e.g. GP-UCB's `hyperparameters`).
    for (key, field) in structs.get(config).into_iter().flatten() {
        if !table.contains_key(key) {
            rows.push((key.clone(), "absent".into(), field.doc.clone()));
        }
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(rows)
}

fn algorithms_page(root: &Path) -> Result<String, String> {
    let registry = bohf_registry::builtin();
    let structs = config_structs(root)?;
    let mut s = String::from(
        "# Algorithm reference\n\n<!-- Generated by `cargo xtask docs` from the experiment registry and the config types; do not edit. -->\n\n\
         Every algorithm a spec (`[[algorithms]] name = …`) can name, with its parameters (the `params` table; \
         missing keys take the defaults below, unknown keys are errors). Defaults are the papers' experimental settings; \
         the meanings are the doc comments of the config types' fields.\n\n",
    );
    // Every built-in algorithm keeps the default `Optimizer::observe_abstention` (it drops "no
    // preference" and "skip"); the page says so for each. One that overrides it must be documented
    // here first.
    if let Some(file) = overrides_abstention(&root.join("crates/algorithms"))? {
        return Err(format!(
            "{} overrides `observe_abstention`: say in xtask/src/docs.rs how that algorithm takes \
             \"no preference\" and \"skip\"",
            file.display()
        ));
    }
    for entry in registry.entries() {
        let (name, (paper, queries), config, table) = documented(entry)?;
        entry.check(&table, "params").map_err(|e| format!("{name}: the registry rejects the defaults: {e}"))?;
        s.push_str(&format!(
            "## `{name}`\n\n{}.\n\n* Paper: {paper}.\n* Queries: {queries}.\n* {ABSTENTIONS}\n\n",
            entry.description()
        ));
        let rows = parameter_rows(&structs, config, &table).map_err(|e| format!("{name} ({config}): {e}"))?;
        if rows.is_empty() {
            s.push_str("No parameters.\n\n");
            continue;
        }
        push_rows(&mut s, "", rows);
        if let Some(search) = entry.box_search_type() {
            let defaults = entry.default_params_for(DomainKind::Box).unwrap_or_default();
            let table = defaults
                .get("box_search")
                .and_then(toml::Value::as_table)
                .ok_or_else(|| format!("{name}: the box mode's defaults have no `box_search` table"))?;
            let rows = parameter_rows(&structs, search, table).map_err(|e| format!("{name} ({search}): {e}"))?;
            s.push_str(&format!(
                "On a box (`domain = \"box\"`): the parameters above plus a `box_search` table ({search}):\n\n"
            ));
            push_rows(&mut s, "box_search.", rows);
        }
    }
    Ok(s)
}

/// What the reference says of every algorithm that keeps the default `observe_abstention`.
const ABSTENTIONS: &str = "\"No preference\" and \"skip\" (`bohf ask`, `bohf serve`): dropped (the default \
    `Optimizer::observe_abstention`; the state is unchanged; they use up budget in a session).";

/// The first Rust file under `dir` that defines `fn observe_abstention`, if any.
fn overrides_abstention(dir: &Path) -> Result<Option<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            if let Some(found) = overrides_abstention(&path)? {
                return Ok(Some(found));
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && std::fs::read_to_string(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .contains("fn observe_abstention")
        {
            return Ok(Some(path));
        }
    }
    Ok(None)
}

/// A parameter table: one row per (key, default, meaning), keys shown under `prefix`.
fn push_rows(s: &mut String, prefix: &str, rows: Vec<(String, String, String)>) {
    s.push_str("| parameter | default | meaning |\n|---|---|---|\n");
    for (key, value, doc) in rows {
        s.push_str(&format!("| `{prefix}{key}` | `{}` | {} |\n", value.replace('|', "\\|"), doc.replace('|', "\\|")));
    }
    s.push('\n');
}

fn verification_page(root: &Path) -> Result<String, String> {
    let path = root.join("docs/generated/verification.json");
    let mut s = String::from(
        "# Verification report\n\n<!-- Generated by `cargo xtask docs` from docs/generated/verification.json; do not edit. -->\n\n",
    );
    let Ok(text) = std::fs::read_to_string(&path) else {
        s.push_str(
            "Not run yet: `cargo xtask verify --json docs/generated/verification.json`, then `cargo xtask docs`.\n",
        );
        return Ok(s);
    };
    let report: VerifyReport = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let count = |st: Status| report.rows.iter().filter(|r| r.status == st).count();
    s.push_str(&format!(
        "`cargo xtask verify{}` on {}, commit `{}`: {} rows, {} pass, {} fail, {} known findings (failing as documented), {} reported; {:.1} s.\n\n\
         Refresh with `cargo xtask verify --json docs/generated/verification.json && cargo xtask docs`. \
         Each check's criterion is documented in `xtask/src/checks/`. Rows marked `info` are values reported \
         without a guarantee to hold them against (tables, practical settings). Rows marked `FAIL (known finding)` \
         fail their pre-registered criterion and are documented findings about the papers (`KNOWN_FINDINGS` in \
         `xtask/src/report.rs`); they do not fail the command.\n\n",
        if report.quick { " --quick" } else { "" },
        report.date,
        report.commit,
        report.rows.len(),
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Finding),
        count(Status::Info),
        report.seconds
    ));
    s.push_str(&markdown(&report.rows));
    s.push_str("\n## Pending\n\nClaims whose checks are not written yet, and claims that cannot be checked here (with the reason).\n\n");
    for (c, what) in &report.pending {
        s.push_str(&format!("* {c}: {what}\n"));
    }
    Ok(s)
}

fn reproduction_page(root: &Path) -> Result<String, String> {
    let dir = root.join("docs/reproduction");
    let mut s = String::from(
        "# Reproduction reports: index\n\n<!-- Generated by `cargo xtask docs` from docs/reproduction/; do not edit. -->\n\n\
         The reports are written by `cargo run --release --example reproduce`; the verdicts are in \
         [their own index](../reproduction/README.md).\n\n",
    );
    let mut pages = BTreeMap::new();
    let mut sensitivity = Vec::new();
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.extension().is_some_and(|x| x == "md") {
            let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let title = text.lines().find_map(|l| l.strip_prefix("# ")).unwrap_or(&name).to_string();
            pages.insert(name, title);
        } else if p.is_dir() && name == "sensitivity" {
            for f in std::fs::read_dir(&p).map_err(|e| format!("{}: {e}", p.display()))?.flatten() {
                sensitivity.push(f.file_name().to_string_lossy().to_string());
            }
        }
    }
    s.push_str("| page | title |\n|---|---|\n");
    for (name, title) in &pages {
        s.push_str(&format!("| [{name}](../reproduction/{name}) | {} |\n", title.replace('|', "\\|")));
    }
    if !sensitivity.is_empty() {
        sensitivity.sort();
        s.push_str("\n## Sensitivity runs\n\n");
        for f in sensitivity {
            s.push_str(&format!("* [`{f}`](../reproduction/sensitivity/{f})\n"));
        }
    }
    Ok(s)
}

/// The command-line reference, printed by the `bohf` binary (built in the release profile, the
/// profile of `.ci/run`'s tests, so CI reuses its binary).
fn cli_page(root: &Path) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["run", "--quiet", "--release", "--package", "bohf-cli", "--bin", "bohf"])
        .env("BOHF_MARKDOWN_HELP", "1")
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `cargo run -p bohf-cli`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`BOHF_MARKDOWN_HELP=1 cargo run --release -p bohf-cli` failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let page = String::from_utf8(output.stdout).map_err(|e| format!("the CLI reference is not UTF-8: {e}"))?;
    if !page.starts_with("# Command-line reference\n") {
        return Err(format!("`BOHF_MARKDOWN_HELP=1 bohf` printed no reference: {}", page.lines().next().unwrap_or("")));
    }
    Ok(page)
}

/// Every generated file as it should be: the pages of `docs/generated/`, and the hand-written pages
/// with their regions rewritten.
fn outputs(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let out = root.join("docs/generated");
    let mut files = vec![
        (out.join("algorithms.md"), algorithms_page(root)?),
        (out.join("verification.md"), verification_page(root)?),
        (out.join("reproduction.md"), reproduction_page(root)?),
        (out.join("cli.md"), cli_page(root)?),
    ];
    let mut pages: Vec<(PathBuf, String)> = Vec::new();
    for (page, name, content) in crate::lists::regions(root, &files)? {
        let i = match pages.iter().position(|p| p.0 == page) {
            Some(i) => i,
            None => {
                let text =
                    std::fs::read_to_string(&page).map_err(|e| format!("cannot read {}: {e}", page.display()))?;
                pages.push((page.clone(), text));
                pages.len() - 1
            }
        };
        pages[i].1 = crate::lists::splice(&pages[i].1, name, &content)
            .map_err(|e| format!("{}: region `{name}`: {e}", page.strip_prefix(root).unwrap_or(&page).display()))?;
    }
    files.extend(pages);
    Ok(files)
}

/// The files whose checked-in text differs from `outputs` (paths relative to `root`).
fn stale(root: &Path, outputs: &[(PathBuf, String)]) -> Vec<String> {
    outputs
        .iter()
        .filter(|(p, text)| std::fs::read_to_string(p).ok().as_deref() != Some(text.as_str()))
        .map(|(p, _)| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect()
}

pub fn run(args: &[String]) -> ExitCode {
    let check = match args {
        [] => false,
        [a] if a == "--check" => true,
        _ => return crate::usage(),
    };
    let root = crate::root();
    let pages = match outputs(&root) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("xtask docs: {e}");
            return ExitCode::from(1);
        }
    };
    // Written first (without --check), so that the links checked below see the new pages.
    if !check {
        for (path, text) in &pages {
            if std::fs::read_to_string(path).ok().as_deref() == Some(text.as_str()) {
                continue;
            }
            if let Some(dir) = path.parent()
                && let Err(e) = std::fs::create_dir_all(dir)
            {
                eprintln!("xtask docs: cannot create {}: {e}", dir.display());
                return ExitCode::from(1);
            }
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("xtask docs: cannot write {}: {e}", path.display());
                return ExitCode::from(1);
            }
            println!("wrote {}", path.strip_prefix(&root).unwrap_or(path).display());
        }
    }
    // The hand-written pages: relative links resolve, the README runs CI's tests.
    let broken =
        match crate::doclinks::broken_links(&root).and_then(|b| crate::doclinks::test_command(&root).map(|()| b)) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("xtask docs: {e}");
                return ExitCode::from(1);
            }
        };
    if !broken.is_empty() {
        eprintln!("xtask docs: {} broken relative link(s):\n  {}", broken.len(), broken.join("\n  "));
        return ExitCode::from(1);
    }
    match crate::doclinks::unindexed_pages(&root) {
        Ok(missing) if missing.is_empty() => {}
        Ok(missing) => {
            eprintln!("xtask docs: docs/README.md does not link {}", missing.join(", "));
            return ExitCode::from(1);
        }
        Err(e) => {
            eprintln!("xtask docs: {e}");
            return ExitCode::from(1);
        }
    }
    if check {
        let stale = stale(&root, &pages);
        if stale.is_empty() {
            println!("xtask docs --check: docs/generated and the generated regions are up to date");
            return ExitCode::SUCCESS;
        }
        eprintln!("xtask docs --check: stale generated pages (run `cargo xtask docs`): {}", stale.join(", "));
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered algorithm's every default key resolves to a documented config field.
    #[test]
    fn every_registered_config_field_has_a_doc_comment() {
        let structs = config_structs(&crate::root()).unwrap();
        let registry = bohf_registry::builtin();
        for entry in registry.entries() {
            let (name, _, config, table) = documented(entry).unwrap();
            let rows = parameter_rows(&structs, config, &table).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(rows.iter().all(|r| !r.2.is_empty()));
        }
    }

    /// `--check`'s comparison: a generated page or region that differs from the code's is stale
    /// (the CLI reference after a help text changed in clap, a kernel added to `KernelKind::ALL`
    /// without `cargo xtask docs`, …); after writing, nothing is.
    #[test]
    fn a_stale_page_or_region_is_reported_by_check() {
        let root = std::env::temp_dir().join(format!("xtask-stale-{}", std::process::id()));
        std::fs::create_dir_all(root.join("docs/generated")).unwrap();
        let cli = root.join("docs/generated/cli.md");
        let kernels = root.join("docs/kernels.md");
        let (start, end) = (crate::lists::start_marker("kernels"), crate::lists::end_marker("kernels"));
        std::fs::write(&cli, "# Command-line reference\n\n| `--resume` | Continue. |\n").unwrap();
        std::fs::write(&kernels, format!("# k\n{start}\n| `se` |\n{end}\n")).unwrap();
        // The code's versions: a changed help text; a region with one more kernel.
        let kernels_now =
            crate::lists::splice(&std::fs::read_to_string(&kernels).unwrap(), "kernels", "| `se` |\n| `new` |")
                .unwrap();
        let outputs = vec![
            (cli.clone(), "# Command-line reference\n\n| `--resume` | Continue, changed. |\n".to_string()),
            (kernels.clone(), kernels_now),
        ];
        assert_eq!(stale(&root, &outputs), ["docs/generated/cli.md", "docs/kernels.md"]);
        for (p, text) in &outputs {
            std::fs::write(p, text).unwrap();
        }
        let fresh = stale(&root, &outputs);
        std::fs::remove_dir_all(&root).ok();
        assert!(fresh.is_empty(), "{fresh:?}");
    }
}
