//! Python values to TOML (specs and parameter tables given as dicts) and JSON to Python (the
//! protocol's messages, so new message fields reach Python without code here).

use crate::errors::SpecError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The deepest nesting of dicts and lists accepted in a spec or a parameter table (every real one
/// is a few levels deep): deeper is refused naming the field, so that the field names, which grow
/// with the depth, cost linear time and no deep recursion (issue 33: 5,000 levels took over a
/// minute).
pub const MAX_DEPTH: usize = 64;

/// A Python value (dict, list, tuple, str, bool, int, float; `None` is refused: TOML has no null)
/// as TOML, `depth` levels down; `field` names it in errors (`params.beta`, `spec.algorithms[0]`).
fn to_toml_at(field: &str, obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<toml::Value> {
    if depth > MAX_DEPTH {
        let shown: String = field.chars().take(80).collect();
        return Err(SpecError::new_err(format!(
            "{shown}…: nested more than {MAX_DEPTH} levels deep (dicts and lists in a spec are a few levels deep)"
        )));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        let v: i64 = obj.extract().map_err(|_| SpecError::new_err(format!("{field}: integer out of range")))?;
        return Ok(toml::Value::Integer(v));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(obj.extract()?));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(obj.extract()?));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return Ok(toml::Value::Table(table_at(field, d, depth)?));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        let values = items.iter().enumerate().map(|(i, x)| to_toml_at(&format!("{field}[{i}]"), x, depth + 1));
        return Ok(toml::Value::Array(values.collect::<PyResult<_>>()?));
    }
    // numpy scalars and other numbers: through float / int.
    if let Ok(v) = obj.call_method0("item")
        && !v.is(obj)
    {
        return to_toml_at(field, &v, depth + 1);
    }
    let ty = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(SpecError::new_err(format!(
        "{field}: a `{ty}` cannot be written in a spec (use dict, list, str, bool, int or float)"
    )))
}

/// A dict with string keys as a TOML table.
pub fn table(field: &str, d: &Bound<'_, PyDict>) -> PyResult<toml::Table> {
    table_at(field, d, 0)
}

fn table_at(field: &str, d: &Bound<'_, PyDict>, depth: usize) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String =
            k.extract().map_err(|_| SpecError::new_err(format!("{field}: every key must be a string, got {k}")))?;
        let sub = if field.is_empty() { key.clone() } else { format!("{field}.{key}") };
        if v.is_none() {
            // TOML has no null: a key set to None is left out (its default applies).
            continue;
        }
        t.insert(key, to_toml_at(&sub, &v, depth + 1)?);
    }
    Ok(t)
}

/// A JSON value as the Python object `json.loads` makes of it.
pub fn from_json<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let json = py.import("json")?;
    json.call_method1("loads", (v.to_string(),))
}
