//! The meanings of config keys, read from the `///` comments on the `pub` fields of the config
//! structs (the one home of each parameter's meaning; `docs/generated/algorithms.md` is built from
//! them by [`crate::docs`]).
//!
//! A line-based reader, no parser dependency: in every `.rs` file under `crates/` (outside
//! `#[cfg(test)]` modules, which sit at the end of files) it finds `pub struct Name {` blocks and
//! their `pub field: Type,` lines with the `///` lines above them. A dotted key `a.b.c` of a config
//! is resolved by walking field types from the config struct: `a`'s type (after `Option<…>`,
//! `Vec<…>`, `Box<…>` and a path prefix) must be a struct found this way to go on to `b`; if it is
//! not (an enum such as a width schedule, or a scalar), `a` is the documented key and its doc
//! covers the whole sub-table.

use std::collections::BTreeMap;
use std::path::Path;

/// One `pub` field: its Rust type (last path segment, wrappers removed) and its doc text.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The type name, e.g. `InferenceConfig`, `f64`, `WidthSchedule`.
    pub ty: String,
    /// The type as written, e.g. `Option<bohf_gp::InferenceConfig>`, `Vec<AlgorithmSpec>`.
    pub raw: String,
    /// The `///` lines joined with spaces (empty if none).
    pub doc: String,
    /// Whether a TOML table may leave the key out: an `Option<…>` field, or `#[serde(default…)]` on
    /// the field or on its struct.
    pub optional: bool,
}

/// Struct name → its `pub` fields by (serde) name, in source order.
pub type Structs = BTreeMap<String, Vec<(String, Field)>>;

/// The struct name of a field type: `Option<bohf_gp::InferenceConfig>` → `InferenceConfig`.
fn base_type(ty: &str) -> String {
    let mut t = ty.trim();
    loop {
        let inner =
            ["Option<", "Vec<", "Box<"].iter().find_map(|w| t.strip_prefix(w).and_then(|r| r.strip_suffix('>')));
        match inner {
            Some(i) => t = i.trim(),
            None => break,
        }
    }
    t.rsplit("::").next().unwrap_or(t).to_string()
}

/// Doc text for a page: lines joined, intra-doc link brackets removed (`[`X`]` → `X`).
fn clean(lines: &[String]) -> String {
    lines.join(" ").replace("[`", "`").replace("`]", "`").trim().to_string()
}

/// Reads the `pub struct` blocks of one file's text into `out`.
pub fn read_structs(text: &str, out: &mut Structs) {
    let mut doc: Vec<String> = Vec::new();
    let mut rename: Option<String> = None;
    // `#[serde(default…)]` on the next field, or (outside a struct) on the next struct.
    let mut default = false;
    let mut struct_default = false;
    let mut current: Option<(String, Vec<(String, Field)>)> = None;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("#[cfg(test)]") {
            break;
        }
        if let Some(d) = l.strip_prefix("///") {
            doc.push(d.trim().to_string());
            continue;
        }
        if l.starts_with("#[") {
            if let Some(i) = l.find("rename = \"") {
                rename = l[i + 10..].split('"').next().map(str::to_string);
            }
            // `default` or `default = "…"` among the attribute's items (not `skip_serializing_if =
            // "is_default"`).
            default |= l.strip_prefix("#[serde(").is_some_and(|items| {
                items.split(',').any(|item| {
                    let item = item.trim().trim_end_matches(")]");
                    item == "default" || item.starts_with("default =") || item.starts_with("default=")
                })
            });
            continue;
        }
        match &mut current {
            None => {
                if let Some(rest) = l.strip_prefix("pub struct ")
                    && l.ends_with('{')
                {
                    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    current = Some((name, Vec::new()));
                    struct_default = default;
                }
            }
            Some((name, fields)) => {
                if l == "}" {
                    out.insert(std::mem::take(name), std::mem::take(fields));
                    current = None;
                } else if let Some(rest) = l.strip_prefix("pub ")
                    && let Some((field, ty)) = rest.split_once(':')
                    && !field.contains(['(', ' '])
                {
                    let key = rename.take().unwrap_or_else(|| field.trim().to_string());
                    let raw = ty.trim().trim_end_matches(',').to_string();
                    let optional = struct_default || default || raw.starts_with("Option<");
                    fields.push((key, Field { ty: base_type(&raw), raw, doc: clean(&doc), optional }));
                }
            }
        }
        doc.clear();
        rename = None;
        default = false;
    }
}

/// The doc comments of items: `pub struct`/`pub enum` names, and `Enum::Variant` for the variants of
/// a `pub enum`, each with its `///` text (paragraphs separated by a blank line, link brackets
/// removed). Stops at `#[cfg(test)]`, as [`read_structs`].
pub fn read_item_docs(text: &str, out: &mut BTreeMap<String, String>) {
    let mut doc: Vec<String> = Vec::new();
    let mut in_enum: Option<String> = None;
    let mut depth = 0usize;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("#[cfg(test)]") {
            break;
        }
        if let Some(d) = l.strip_prefix("///") {
            doc.push(d.trim().to_string());
            continue;
        }
        if l.starts_with("#[") {
            continue;
        }
        let text = || {
            let paragraphs: Vec<String> = doc.split(String::is_empty).map(clean).filter(|p| !p.is_empty()).collect();
            paragraphs.join("\n\n")
        };
        let ident = |rest: &str| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
        if let Some(e) = &in_enum {
            if depth == 1 && l.chars().next().is_some_and(char::is_uppercase) {
                out.insert(format!("{e}::{}", ident(l)), text());
            }
            depth = (depth + l.matches('{').count()).saturating_sub(l.matches('}').count());
            if depth == 0 {
                in_enum = None;
            }
        } else if let Some(rest) = l.strip_prefix("pub struct ") {
            out.insert(ident(rest), text());
        } else if let Some(rest) = l.strip_prefix("pub enum ") {
            out.insert(ident(rest), text());
            if l.ends_with('{') {
                in_enum = Some(ident(rest));
                depth = 1;
            }
        }
        doc.clear();
    }
}

/// Calls `f` on the text of every `.rs` file under `dir` (recursively; `target` folders skipped).
fn for_each_rs_file(dir: &Path, f: &mut dyn FnMut(&str)) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && e.file_name() != "target" {
            for_each_rs_file(&p, f)?;
        } else if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            f(&text);
        }
    }
    Ok(())
}

/// The `///` text of every item under `dir` ([`read_item_docs`] of each `.rs` file, recursively).
pub fn read_item_docs_dir(dir: &Path, out: &mut BTreeMap<String, String>) -> Result<(), String> {
    for_each_rs_file(dir, &mut |text| read_item_docs(text, out))
}

/// Every `pub struct` of the `.rs` files under `dir` (recursively; `target` folders skipped).
pub fn read_dir(dir: &Path, out: &mut Structs) -> Result<(), String> {
    for_each_rs_file(dir, &mut |text| read_structs(text, out))
}

/// The documented key of `key` in the config struct `root` and its doc: `key` itself, or the
/// prefix whose field type is not a struct (its doc covers the sub-table). Errors name a key that
/// no field has and a field without a `///` comment.
pub fn resolve(structs: &Structs, root: &str, key: &str) -> Result<(String, String), String> {
    let mut current = root.to_string();
    let segments: Vec<&str> = key.split('.').collect();
    for (i, seg) in segments.iter().enumerate() {
        let fields = structs.get(&current).ok_or_else(|| format!("no `pub struct {current}` found under crates/"))?;
        let (_, field) = fields
            .iter()
            .find(|(name, _)| name == seg)
            .ok_or_else(|| format!("`{key}`: `{current}` has no `pub {seg}` field"))?;
        let last = i + 1 == segments.len() || !structs.contains_key(&field.ty);
        if last {
            if field.doc.is_empty() {
                return Err(format!("`{key}`: the field `{current}::{seg}` has no `///` doc comment"));
            }
            return Ok((segments[..=i].join("."), field.doc.clone()));
        }
        current = field.ty.clone();
    }
    unreachable!("a key has at least one segment")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"
/// A config.
#[derive(Debug)]
pub struct TopConfig {
    /// The inner part.
    pub inner: Option<crate::InnerConfig>,
    /// Width schedule, e.g. `{ rule = "constant", value = 1 }` (see [`Schedule`]).
    pub beta: Schedule,
    #[serde(rename = "lambda")]
    /// λ > 0.
    pub lam: f64,
    pub undocumented: usize,
}

pub struct InnerConfig {
    /// ℓ, a
    /// lengthscale.
    pub lengthscale: f64,
}

#[cfg(test)]
mod tests {
    pub struct Hidden {
        /// x
        pub x: f64,
    }
}
"#;

    #[test]
    fn keys_resolve_to_field_docs_through_nested_structs() {
        let mut s = Structs::new();
        read_structs(SRC, &mut s);
        assert!(!s.contains_key("Hidden"));
        assert_eq!(s["TopConfig"].len(), 4);
        assert_eq!(s["TopConfig"][0].1.ty, "InnerConfig");
        let r = |k: &str| resolve(&s, "TopConfig", k);
        assert_eq!(r("inner.lengthscale").unwrap(), ("inner.lengthscale".into(), "ℓ, a lengthscale.".into()));
        // An enum-typed field documents its whole sub-table; link brackets are dropped.
        let (key, doc) = r("beta.rule").unwrap();
        assert_eq!(key, "beta");
        assert!(doc.ends_with("(see `Schedule`)."), "{doc}");
        assert_eq!(r("lambda").unwrap().1, "λ > 0.");
        let e = r("undocumented").unwrap_err();
        assert!(e.contains("TopConfig::undocumented") && e.contains("no `///`"), "{e}");
        assert!(r("inner.nope").unwrap_err().contains("no `pub nope`"));
        // Optional: an `Option`, or a serde default on the field or the struct.
        let optional: Vec<bool> = s["TopConfig"].iter().map(|f| f.1.optional).collect();
        assert_eq!(optional, [true, false, false, false]);
        let mut d = Structs::new();
        read_structs(
            "#[serde(default)]\npub struct A {\n    /// x\n    pub x: f64,\n}\npub struct B {\n    #[serde(default = \"one\")]\n    pub y: f64,\n    #[serde(skip_serializing_if = \"is_default\")]\n    pub z: Vec<u8>,\n}\n",
            &mut d,
        );
        assert!(d["A"][0].1.optional && d["B"][0].1.optional && !d["B"][1].1.optional);
        assert_eq!(d["B"][1].1.raw, "Vec<u8>");
    }

    #[test]
    fn item_docs_of_structs_enums_and_variants() {
        let mut docs = BTreeMap::new();
        read_item_docs(
            "/// A kind.\n///\n/// More.\n#[derive(Debug)]\npub enum Kind {\n    /// The first, φ(r) = [`x`].\n    First,\n    /// With data.\n    Second(Inner),\n    Third { a: u8 },\n}\n/// Unit.\npub struct Unit;\n",
            &mut docs,
        );
        assert_eq!(docs["Kind"], "A kind.\n\nMore.");
        assert_eq!(docs["Kind::First"], "The first, φ(r) = `x`.");
        assert_eq!(docs["Kind::Second"], "With data.");
        assert_eq!(docs["Kind::Third"], "");
        assert_eq!(docs["Unit"], "Unit.");
    }
}
