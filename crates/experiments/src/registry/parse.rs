//! A `params` table → the algorithm's config, deserialised and checked: the one place the
//! registry reads a table (once per algorithm entry of a spec, when the spec is checked), with the
//! error naming the field by its TOML path.

use super::RegisteredAlgorithm;
use crate::de::{Step, render, value_at};
use crate::error::{ExperimentError, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The config of `A` from a `params` table and its checked form; errors name the field's path under `prefix`
/// (`prefix.inference.mle.lambda`), or `prefix` itself when no single key is to blame. A name
/// that is no variant of an enum gets a "did you mean" line ([`crate::de::DeError::with_help`]).
pub(super) fn parse_params<D, A: RegisteredAlgorithm<D>>(
    params: &toml::Table,
    prefix: &str,
) -> Result<(A::Config, A::Checked)> {
    let config: A::Config = deserialise::<A::Config>(params).map_err(|e| {
        let root = toml::Value::Table(params.clone());
        let field = match value_at(&root, &e.path) {
            // serde named the value itself (a key's path, array entries included).
            Some(v) if !e.path.is_empty() && !v.is_table() && !v.is_array() => Some(render(&e.path)),
            // A table or nothing: inside a table tagged by `kind` or `rule` (serde reads those
            // whole, and names no key in them), an unknown key, a missing one.
            _ => blame::<A::Config>(params),
        };
        let field = field.map_or(prefix.to_string(), |k| bohf_core::field_path(prefix, &k));
        ExperimentError::spec(field, e.error.with_help())
    })?;
    let checked = A::check(&config).map_err(|e| ExperimentError::in_field(prefix, e))?;
    Ok((config, checked))
}

fn deserialise<C: DeserializeOwned>(params: &toml::Table) -> std::result::Result<C, crate::de::PathError> {
    crate::de::from_table(params)
}

/// The path (relative to `params`) of the key a deserialisation error is about, where serde's
/// path ends at a table (inside a table read whole, e.g. tagged by `kind`): innermost keys and
/// array entries first, the first whose replacement by a plain 1, 0.5 or false makes the table
/// deserialise, else the first whose default or removal does. `None` if no single key is to blame.
fn blame<C: DeserializeOwned + Serialize + Default>(params: &toml::Table) -> Option<String> {
    let defaults = toml::Value::Table(toml::Table::try_from(C::default()).unwrap_or_default());
    let root = toml::Value::Table(params.clone());
    let mut keys = Vec::new();
    collect_keys(&root, &mut Vec::new(), &mut keys);
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    let fixes = |key: &[Step], probe: Option<toml::Value>| {
        let mut v = root.clone();
        replace_at(&mut v, key, probe);
        matches!(v, toml::Value::Table(t) if deserialise::<C>(&t).is_ok())
    };
    let plain = [toml::Value::Integer(1), toml::Value::Float(0.5), toml::Value::Boolean(false)];
    let found = keys
        .iter()
        .find(|k| plain.iter().any(|p| fixes(k, Some(p.clone()))))
        .or_else(|| keys.iter().find(|k| fixes(k, value_at(&defaults, k).cloned()) || fixes(k, None)))?;
    Some(render(found))
}

fn collect_keys(v: &toml::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    let children: Vec<(Step, &toml::Value)> = match v {
        toml::Value::Table(t) => t.iter().map(|(k, c)| (Step::Key(k.clone()), c)).collect(),
        toml::Value::Array(a) => a.iter().enumerate().map(|(i, c)| (Step::Index(i), c)).collect(),
        _ => return,
    };
    for (step, child) in children {
        at.push(step);
        collect_keys(child, at, out);
        out.push(at.clone());
        at.pop();
    }
}

/// Sets (`Some`) or removes (`None`; table keys only) the value at `path`.
fn replace_at(v: &mut toml::Value, path: &[Step], probe: Option<toml::Value>) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut v = v;
    for step in parents {
        v = match (step, v) {
            (Step::Key(k), toml::Value::Table(t)) => match t.get_mut(k) {
                Some(c) => c,
                None => return,
            },
            (Step::Index(i), toml::Value::Array(a)) => match a.get_mut(*i) {
                Some(c) => c,
                None => return,
            },
            _ => return,
        };
    }
    match (last, v, probe) {
        (Step::Key(k), toml::Value::Table(t), Some(p)) => {
            t.insert(k.clone(), p);
        }
        (Step::Key(k), toml::Value::Table(t), None) => {
            t.remove(k);
        }
        (Step::Index(i), toml::Value::Array(a), Some(p)) if *i < a.len() => a[*i] = p,
        _ => {}
    }
}
