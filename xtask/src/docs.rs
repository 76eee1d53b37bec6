//! `cargo xtask docs [--check]`: the pages of `docs/generated/`, built from the code.
//!
//! * `algorithms.md`: every algorithm of [`bohf_registry::builtin`] (the registry the
//!   specs and the CLI use), with its paper, what it queries (both from the registry entry,
//!   `AlgorithmEntry::documented`), the query kinds it declares (`AlgorithmEntry::asks`), and every parameter with its default and meaning. Defaults are
//!   each config type's `Default` serialised to TOML (`AlgorithmEntry::default_params`, and accepted
//!   by the registry's own parameter check); the meanings are the `///` comments of the config
//!   struct's fields (`AlgorithmEntry::config_type`), read by [`crate::fielddocs`]. An entry with a
//!   box mode also gets its `box_search` table, documented by `AlgorithmEntry::box_search_type`. An entry without a
//!   paper or a config type, or a config key whose field has no doc comment, is an error, so the
//!   page cannot drift from the code.
//! * `algorithm-parameters.json`: the same parameter rows as data (per algorithm, in the registry's
//!   order: key, default as TOML, meaning), rendered from the same [`AlgorithmDoc`]s as the page; the
//!   Python package embeds it for `bohf.algorithms()` instead of parsing the page.
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
//! * `docs/reproduction/README.md` (the reproduction's index) and the claims section of every
//!   committed panel page there, both from the panels' data files with today's claim rules
//!   ([`bohf_reproduce::build_index`], [`bohf_reproduce::refreshed_pages`]).
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
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod reproduction;
use reproduction::{reproduction_index, reproduction_page, reproduction_pages};

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

/// A parameter row: (key, default as TOML, meaning).
type Row = (String, String, String);

/// What the reference says of one algorithm. The page `algorithms.md` and the data file
/// `algorithm-parameters.json` are two renderings of it.
struct AlgorithmDoc {
    name: String,
    description: String,
    paper: String,
    queries: String,
    /// The query kinds it declares, as the page says them (`AlgorithmEntry::asks`, `may_ask`).
    kinds: String,
    /// The kinds of domain it works on (`AlgorithmEntry::kinds`), as the page says them.
    domains: String,
    /// The parameter rows, sorted by key (empty: no parameters).
    rows: Vec<Row>,
    /// On a box: the `box_search` config type and its rows (keys without the `box_search.` prefix).
    box_search: Option<(String, Vec<Row>)>,
}

/// Every registered algorithm's [`AlgorithmDoc`], in the registry's order.
fn algorithm_docs(root: &Path) -> Result<Vec<AlgorithmDoc>, String> {
    let registry = bohf_registry::builtin();
    let structs = config_structs(root)?;
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
    let mut docs = Vec::new();
    for entry in registry.entries() {
        let (name, (paper, queries), config, table) = documented(entry)?;
        entry.check(&table, "params").map_err(|e| format!("{name}: the registry rejects the defaults: {e}"))?;
        let rows = parameter_rows(&structs, config, &table).map_err(|e| format!("{name} ({config}): {e}"))?;
        let box_search = match entry.box_search_type() {
            Some(search) if !rows.is_empty() => {
                let defaults = entry.default_params_for(DomainKind::Box).unwrap_or_default();
                let table = defaults
                    .get("box_search")
                    .and_then(toml::Value::as_table)
                    .ok_or_else(|| format!("{name}: the box mode's defaults have no `box_search` table"))?;
                let rows = parameter_rows(&structs, search, table).map_err(|e| format!("{name} ({search}): {e}"))?;
                Some((search.to_string(), rows))
            }
            _ => None,
        };
        docs.push(AlgorithmDoc {
            name: name.to_string(),
            description: entry.description().to_string(),
            paper: paper.to_string(),
            queries: queries.to_string(),
            kinds: query_kinds(entry)?,
            domains: entry.kinds().iter().map(ToString::to_string).collect::<Vec<_>>().join(" and "),
            rows,
            box_search,
        });
    }
    Ok(docs)
}

/// The page `algorithms.md`.
fn algorithms_page(docs: &[AlgorithmDoc]) -> String {
    let mut s = String::from(
        "# Algorithm reference\n\n<!-- Generated by `cargo xtask docs` from the experiment registry and the config types; do not edit. -->\n\n\
         Every algorithm a spec (`[[algorithms]] name = …`) can name, with its parameters (the `params` table; \
         missing keys take the defaults below, unknown keys are errors). Defaults are the papers' experimental settings; \
         the meanings are the doc comments of the config types' fields.\n\n",
    );
    for d in docs {
        s.push_str(&format!(
            "## `{}`\n\n{}.\n\n* Paper: {}.\n* Queries: {}.\n* Query kinds: {}.\n* Works on: {}.\n* {ABSTENTIONS}\n\n",
            d.name, d.description, d.paper, d.queries, d.kinds, d.domains
        ));
        if d.rows.is_empty() {
            s.push_str("No parameters.\n\n");
            continue;
        }
        push_rows(&mut s, "", &d.rows);
        if let Some((search, rows)) = &d.box_search {
            s.push_str(&format!(
                "On a box (`domain = \"box\"`): the parameters above plus a `box_search` table ({search}):\n\n"
            ));
            push_rows(&mut s, "box_search.", rows);
        }
    }
    s
}

/// The query kinds an entry declares, in words: "`duel`" or "`duel`, `evaluate`", then "(other
/// params may add `choice`)"; an error if it declares none (`AlgorithmEntry::asks`).
fn query_kinds(entry: &bohf_experiments::AlgorithmEntry) -> Result<String, String> {
    let list = |kinds: &[bohf_core::QueryKind]| kinds.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let declared = entry.asked_by_default();
    if declared.is_empty() {
        return Err(format!(
            "`{}` is registered without `.asks(&[QueryKind::…])` (crates/registry/src/lib.rs)",
            entry.name()
        ));
    }
    let more: Vec<bohf_core::QueryKind> = entry.asked().into_iter().filter(|k| !declared.contains(k)).collect();
    let more = if more.is_empty() { String::new() } else { format!(" (other params may add {})", list(&more)) };
    Ok(format!("{}{more}", list(declared)))
}

/// The data file `algorithm-parameters.json`: the rows of the page as data, for the Python package
/// (`bohf.algorithms()`), which reads it instead of the markdown. `{"algorithms": [{"name",
/// "parameters": [{"key", "default", "meaning"}]}]}` in the registry's order; `default` is the TOML
/// text the page shows (or `absent`), the box mode's keys come last under `box_search.`.
fn parameters_json(docs: &[AlgorithmDoc]) -> Result<String, String> {
    let row = |prefix: &str, (key, default, meaning): &Row| serde_json::json!({ "key": format!("{prefix}{key}"), "default": default, "meaning": meaning });
    let algorithms: Vec<serde_json::Value> = docs
        .iter()
        .map(|d| {
            let mut parameters: Vec<serde_json::Value> = d.rows.iter().map(|r| row("", r)).collect();
            if let Some((_, rows)) = &d.box_search {
                parameters.extend(rows.iter().map(|r| row("box_search.", r)));
            }
            serde_json::json!({ "name": d.name, "parameters": parameters })
        })
        .collect();
    let file = serde_json::json!({
        "generated_by": "cargo xtask docs (from the registry and the config types' doc comments; do not edit)",
        "algorithms": algorithms,
    });
    serde_json::to_string_pretty(&file).map(|s| s + "\n").map_err(|e| e.to_string())
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
fn push_rows(s: &mut String, prefix: &str, rows: &[Row]) {
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
    let algorithms = algorithm_docs(root)?;
    let mut files = vec![
        (out.join("algorithms.md"), algorithms_page(&algorithms)),
        (out.join("algorithm-parameters.json"), parameters_json(&algorithms)?),
        (out.join("verification.md"), verification_page(root)?),
        (out.join("reproduction.md"), reproduction_page(root)?),
        (out.join("cli.md"), cli_page(root)?),
        (root.join("docs/reproduction/README.md"), reproduction_index(root)?),
    ];
    files.extend(reproduction_pages(root)?);
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
    // The hand-written discussion of the reproduction quotes only numbers the committed files hold.
    match crate::numbers::unbacked_numbers(&root) {
        Ok(bad) if bad.is_empty() => {}
        Ok(bad) => {
            eprintln!(
                "xtask docs: {} quoted number(s) that no committed report or summary holds \
                 (regenerate the text, or mark a historical line with `<!-- unchecked: why -->`):\n  {}",
                bad.len(),
                bad.join("\n  ")
            );
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

    /// A page's parameter rows per algorithm, read back from its markdown tables (the page's
    /// `box_search.` rows included): the one markdown parser, here to check the data file.
    fn page_rows(page: &str) -> Vec<(String, Vec<Row>)> {
        let mut out: Vec<(String, Vec<Row>)> = Vec::new();
        for line in page.lines() {
            if let Some(name) = line.strip_prefix("## `").and_then(|l| l.strip_suffix('`')) {
                out.push((name.to_string(), Vec::new()));
            } else if let Some(l) = line.strip_prefix("| `")
                && let Some((key, rest)) = l.split_once("` | `")
                && let Some((default, rest)) = rest.split_once("` | ")
                && let Some(meaning) = rest.strip_suffix(" |")
            {
                let unescape = |s: &str| s.replace("\\|", "|");
                out.last_mut().expect("a row under a heading").1.push((
                    key.to_string(),
                    unescape(default),
                    unescape(meaning),
                ));
            }
        }
        out
    }

    /// The data file's rows per algorithm.
    fn json_rows(text: &str) -> Vec<(String, Vec<Row>)> {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let field =
            |p: &serde_json::Value, k: &str| p[k].as_str().unwrap_or_else(|| panic!("no `{k}` in {p}")).to_string();
        v["algorithms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                let rows = a["parameters"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (field(p, "key"), field(p, "default"), field(p, "meaning")))
                    .collect();
                (field(a, "name"), rows)
            })
            .collect()
    }

    /// `algorithm-parameters.json` and `algorithms.md` are two renderings of the same rows: the same
    /// algorithms in the same order with the same keys, defaults and meanings, as the code renders
    /// them and as they are checked in; every registered algorithm is in it.
    #[test]
    fn the_parameter_file_and_the_page_agree() {
        let root = crate::root();
        let docs = algorithm_docs(&root).unwrap();
        let (page, json) = (algorithms_page(&docs), parameters_json(&docs).unwrap());
        let from_page = page_rows(&page);
        assert_eq!(json_rows(&json), from_page);
        let names: Vec<&str> = from_page.iter().map(|a| a.0.as_str()).collect();
        let registry = bohf_registry::builtin();
        let registered: Vec<&str> = registry.entries().iter().map(|e| e.name()).collect();
        assert_eq!(names, registered);
        let pf_ts = &from_page.iter().find(|a| a.0 == "pf-ts").unwrap().1;
        assert!(pf_ts.iter().any(|r| r.0 == "inference.mle.lambda" && r.1 == "0.05"), "{pf_ts:?}");
        assert!(from_page.iter().any(|a| a.1.iter().any(|r| r.0.starts_with("box_search."))), "a box mode's rows");
        assert!(from_page.iter().any(|a| a.1.iter().any(|r| r.1.contains('|') || r.2.contains('|'))), "an escaped `|`");
        let read = |f: &str| std::fs::read_to_string(root.join("docs/generated").join(f)).unwrap();
        assert_eq!(json_rows(&read("algorithm-parameters.json")), page_rows(&read("algorithms.md")));
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
