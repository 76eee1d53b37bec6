//! `cargo xtask docs [--check]`: the pages of `docs/generated/`, built from the code.
//!
//! * `algorithms.md`: every algorithm of [`bohf_experiments::Registry::builtin`] (the registry the
//!   specs and the CLI use), with its paper, what it queries, and every parameter with its default and
//!   meaning. Defaults are each config type's `Default` serialised to TOML (and accepted by the
//!   registry's own parameter check); the meanings are the `///` comments of the config structs'
//!   fields, read by [`crate::fielddocs`]. A registered algorithm without an entry in [`ALGORITHMS`],
//!   or a config key whose field has no doc comment, is an error, so the page cannot drift from the
//!   code.
//! * `verification.md`: the table of `cargo xtask verify`, rendered from
//!   `docs/generated/verification.json` (written by `cargo xtask verify --json
//!   docs/generated/verification.json`), with its date, commit and run time.
//! * `reproduction.md`: an index of `docs/reproduction/` (title of every page, the specs of the
//!   sensitivity runs).
//!
//! `--check` regenerates in memory and exits 1 if any checked-in page differs.

use crate::VerifyReport;
use crate::fielddocs::{Structs, read_dir, resolve};
use crate::report::{Status, markdown};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Per registered algorithm: (name, paper, what it queries, default config as a TOML table).
type DefaultsFn = fn() -> Result<toml::Table, String>;

fn defaults<C: serde::Serialize + Default>() -> Result<toml::Table, String> {
    toml::Table::try_from(C::default()).map_err(|e| e.to_string())
}

/// (registry name, paper, what it queries, the config's defaults, the config struct's name, whose
/// fields' `///` comments give the parameters' meanings).
const ALGORITHMS: &[(&str, &str, &str, DefaultsFn, &str)] = &[
    (
        "pf-ts",
        "Lazzaro, Buffelli, Shiu & Vakili (2026), PF-TS, Algorithm 1 (double Thompson sampling from preferences)",
        "duels (x, x′), one per step: the maximisers of two joint posterior samples of the utility",
        defaults::<bohf_pfts::PfTsConfig>,
        "PfTsConfig",
    ),
    (
        "mr-lpf",
        "Kayal et al. (2025), MR-LPF, Algorithm 1 (multi-round learning from preferences with elimination)",
        "duels, in rounds of N_r = ⌈√(N_{r−1}T)⌉ max-variance pairs of the surviving set M_r",
        defaults::<bohf_mrlpf::MrLpfConfig>,
        "MrLpfConfig",
    ),
    (
        "maxminlcb",
        "Pásztor, Krause et al. (2024), MaxMinLCB (as used by the MR-LPF and PF-TS experiments)",
        "duels, one per step: the max–min of the lower confidence bound of P(x ≻ x′)",
        defaults::<bohf_baselines::MaxMinLcbConfig>,
        "MaxMinLcbConfig",
    ),
    (
        "gp-ucb",
        "Srinivas et al. (2010), GP-UCB with scalar feedback (baseline)",
        "scalar evaluations f(x) + noise, one per step: argmax of m + βσ",
        defaults::<bohf_baselines::GpUcbConfig>,
        "GpUcbConfig",
    ),
    (
        "gp-ts",
        "Chowdhury & Gopalan (2017), GP-TS with scalar feedback (baseline of PF-TS)",
        "scalar evaluations, one per step: the maximiser of a joint posterior sample",
        defaults::<bohf_baselines::GpTsConfig>,
        "GpTsConfig",
    ),
    (
        "random",
        "baseline",
        "uniformly random duels",
        defaults::<bohf_baselines::RandomDuelsConfig>,
        "RandomDuelsConfig",
    ),
    (
        "pop-bo",
        "Xu et al. (2024), POP-BO, Algorithm 1 (principled optimistic preferential BO, likelihood-ratio confidence sets)",
        "duels (x_t, x_{t−1}), one per step: the new point against the previous one, x_t maximising the optimistic advantage",
        defaults::<bohf_popbo::PopBoConfig>,
        "PopBoConfig",
    ),
];

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
    Ok(rows)
}

fn algorithms_page(root: &Path) -> Result<String, String> {
    let registry = bohf_experiments::Registry::builtin();
    let structs = config_structs(root)?;
    let mut s = String::from(
        "# Algorithm reference\n\n<!-- Generated by `cargo xtask docs` from the experiment registry and the config types; do not edit. -->\n\n\
         Every algorithm a spec (`[[algorithms]] name = …`) can name, with its parameters (the `params` table; \
         missing keys take the defaults below, unknown keys are errors). Defaults are the papers' experimental settings; \
         the meanings are the doc comments of the config types' fields.\n\n",
    );
    let known: BTreeSet<&str> = ALGORITHMS.iter().map(|a| a.0).collect();
    let missing: Vec<&str> = registry.names().into_iter().filter(|n| !known.contains(n)).collect();
    if !missing.is_empty() {
        return Err(format!(
            "registered algorithms without a description in xtask/src/docs.rs ALGORITHMS: {missing:?}"
        ));
    }
    for name in registry.names() {
        let (_, paper, queries, defaults, config) = ALGORITHMS.iter().find(|a| a.0 == name).expect("checked above");
        let entry = registry.get(name).expect("listed by the registry");
        let table = defaults()?;
        entry.check(&table, "params").map_err(|e| format!("{name}: the registry rejects the defaults: {e}"))?;
        s.push_str(&format!("## `{name}`\n\n{}.\n\n* Paper: {paper}.\n* Queries: {queries}.\n\n", entry.description()));
        let rows = parameter_rows(&structs, config, &table).map_err(|e| format!("{name} ({config}): {e}"))?;
        if rows.is_empty() {
            s.push_str("No parameters.\n\n");
            continue;
        }
        s.push_str("| parameter | default | meaning |\n|---|---|---|\n");
        for (key, value, doc) in rows {
            s.push_str(&format!("| `{key}` | `{}` | {} |\n", value.replace('|', "\\|"), doc.replace('|', "\\|")));
        }
        s.push('\n');
    }
    Ok(s)
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
    s.push_str("\n## Pending\n\nComponents being written; their checks join the catalogue when they land.\n\n");
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

fn pages(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let out = root.join("docs/generated");
    Ok(vec![
        (out.join("algorithms.md"), algorithms_page(root)?),
        (out.join("verification.md"), verification_page(root)?),
        (out.join("reproduction.md"), reproduction_page(root)?),
    ])
}

pub fn run(args: &[String]) -> ExitCode {
    let check = match args {
        [] => false,
        [a] if a == "--check" => true,
        _ => return crate::usage(),
    };
    let root = crate::root();
    let pages = match pages(&root) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("xtask docs: {e}");
            return ExitCode::from(1);
        }
    };
    if check {
        let stale: Vec<String> = pages
            .iter()
            .filter(|(p, text)| std::fs::read_to_string(p).ok().as_deref() != Some(text.as_str()))
            .map(|(p, _)| p.strip_prefix(&root).unwrap_or(p).display().to_string())
            .collect();
        if stale.is_empty() {
            println!("xtask docs --check: docs/generated is up to date");
            return ExitCode::SUCCESS;
        }
        eprintln!("xtask docs --check: stale generated pages (run `cargo xtask docs`): {}", stale.join(", "));
        return ExitCode::from(1);
    }
    for (path, text) in pages {
        if let Some(dir) = path.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            eprintln!("xtask docs: cannot create {}: {e}", dir.display());
            return ExitCode::from(1);
        }
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("xtask docs: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        println!("wrote {}", path.strip_prefix(&root).unwrap_or(&path).display());
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
        let registry = bohf_experiments::Registry::builtin();
        for name in registry.names() {
            let (_, _, _, defaults, config) =
                ALGORITHMS.iter().find(|a| a.0 == name).unwrap_or_else(|| panic!("{name} not in ALGORITHMS"));
            let rows = parameter_rows(&structs, config, &defaults().unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(rows.iter().all(|r| !r.2.is_empty()));
        }
    }
}
