//! `bohf.algorithms()`: the registry (`bohf_registry::builtin()`, the one every spec and session uses),
//! with each parameter's default and meaning. The meanings are read from the generated algorithm
//! reference (`docs/generated/algorithms.md`, written by `cargo xtask docs` from the config types'
//! doc comments and checked by `cargo xtask docs --check`), embedded at build time, so no meaning
//! is typed twice.

use crate::convert::from_json;
use bohf_core::DomainKind;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The generated algorithm reference.
const PAGE: &str = include_str!("../../docs/generated/algorithms.md");

/// The parameter rows of algorithm `name` on the page: (key, default as TOML, meaning), the box
/// mode's `box_search.` rows included.
pub fn rows(name: &str) -> Vec<(String, String, String)> {
    let heading = format!("## `{name}`");
    let Some(start) = PAGE.find(&heading) else { return Vec::new() };
    let section = &PAGE[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    section
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("| `")?;
            let (key, rest) = l.split_once("` | `")?;
            let (default, rest) = rest.split_once("` | ")?;
            let meaning = rest.strip_suffix(" |")?;
            Some((key.to_string(), default.replace("\\|", "|"), meaning.replace("\\|", "|")))
        })
        .collect()
}

fn toml_to_json(v: toml::Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// Every registered algorithm as a dict: `name`, `description`, `paper`, `queries`, `domains`
/// (`"finite"`, `"box"`), `defaults` (the `params` table a spec gets when it names none) and
/// `parameters` (a list of `{"name", "default", "meaning"}`, nested keys dotted).
#[pyfunction]
pub fn algorithms<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let registry = bohf_registry::builtin();
    let out = PyList::empty(py);
    for entry in registry.entries() {
        let d = PyDict::new(py);
        d.set_item("name", entry.name())?;
        d.set_item("description", entry.description())?;
        let (paper, queries) = entry.about().unzip();
        d.set_item("paper", paper)?;
        d.set_item("queries", queries)?;
        let domains: Vec<&str> = entry
            .kinds()
            .into_iter()
            .map(|k| match k {
                DomainKind::Finite => "finite",
                DomainKind::Box => "box",
            })
            .collect();
        d.set_item("domains", domains)?;
        d.set_item("defaults", from_json(py, &toml_to_json(toml::Value::Table(entry.default_params())))?)?;
        let params = PyList::empty(py);
        for (key, default, meaning) in rows(entry.name()) {
            let p = PyDict::new(py);
            p.set_item("name", key)?;
            let value = toml::from_str::<toml::Table>(&format!("v = {default}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .map(toml_to_json)
                .unwrap_or(serde_json::Value::String(default));
            p.set_item("default", from_json(py, &value)?)?;
            p.set_item("meaning", meaning)?;
            params.append(p)?;
        }
        d.set_item("parameters", params)?;
        out.append(d)?;
    }
    Ok(out)
}
