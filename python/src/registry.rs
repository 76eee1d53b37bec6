//! `bohf.algorithms()`: the registry (`bohf_registry::builtin()`, the one every spec and session uses),
//! with each parameter's default and meaning. The meanings are read from the generated parameter
//! data (`docs/generated/algorithm-parameters.json`, written by `cargo xtask docs` from the config
//! types' doc comments beside the page `algorithms.md`, and checked by `cargo xtask docs --check`),
//! embedded at build time, so no meaning is typed twice and no markdown is parsed.

use crate::convert::from_json;
use bohf_core::DomainKind;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The generated parameter data: `{"algorithms": [{"name", "parameters": [{"key", "default",
/// "meaning"}]}]}`, `default` as TOML text.
const PARAMETERS: &str = include_str!("../../docs/generated/algorithm-parameters.json");

/// A parameter row: (key, default as TOML, meaning).
type Row = (String, String, String);

/// The parameter rows of every algorithm in [`PARAMETERS`]: name → [(key, default as TOML,
/// meaning)], the box mode's `box_search.` rows included. An error if the embedded file does not
/// have that shape (it is generated, so that is a build of a stale or hand-edited file).
fn all_rows() -> PyResult<std::collections::HashMap<String, Vec<Row>>> {
    let bad = |what: &str| {
        PyRuntimeError::new_err(format!(
            "docs/generated/algorithm-parameters.json: {what} (regenerate it with `cargo xtask docs`)"
        ))
    };
    let file: serde_json::Value = serde_json::from_str(PARAMETERS).map_err(|e| bad(&e.to_string()))?;
    let text = |v: &serde_json::Value, key: &str| {
        v.get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| bad(&format!("no string `{key}` in {v}")))
    };
    let mut out = std::collections::HashMap::new();
    for a in file.get("algorithms").and_then(serde_json::Value::as_array).ok_or_else(|| bad("no `algorithms` list"))? {
        let mut rows = Vec::new();
        for p in a.get("parameters").and_then(serde_json::Value::as_array).ok_or_else(|| bad("no `parameters` list"))? {
            rows.push((text(p, "key")?, text(p, "default")?, text(p, "meaning")?));
        }
        out.insert(text(a, "name")?, rows);
    }
    Ok(out)
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
    let mut rows = all_rows()?;
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
        for (key, default, meaning) in rows.remove(entry.name()).unwrap_or_default() {
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
