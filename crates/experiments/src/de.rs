//! Typed deserialisation of spec TOML: where a value does not fit, the error says which value (its
//! path, from [`serde_path_to_error`]) and, for a name that is no variant of an enum, the name
//! given and the names expected, as data ([`DeError::unknown_variant`]), so the "did you mean"
//! suggestion ([`bohf_core::closest_name`]) is made where the error is, with no message parsed.
//!
//! serde hands the expected variants only to the error type's [`de::Error::unknown_variant`]
//! (toml's error keeps just the text), so a table is deserialised here through a small
//! [`de::Deserializer`] over [`toml::Value`] whose error type, [`DeError`], keeps them. A spec
//! file is parsed by toml itself first ([`from_toml_text`]), for its line and column; only if that
//! fails is the parsed document deserialised again here, for the suggestion.

use crate::error::{ExperimentError, Result};
use serde::de::value::{MapAccessDeserializer, MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use std::fmt;
use std::path::Path;

/// Why a TOML value does not deserialise: serde's message and, for a name that is no variant of
/// an enum, that name and the variants expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeError {
    message: String,
    unknown_variant: Option<(String, &'static [&'static str])>,
}

impl DeError {
    /// serde's message (e.g. "invalid type: integer `-1`, expected usize").
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The name given and the variants expected, if the error is an unknown variant.
    pub fn unknown_variant(&self) -> Option<(&str, &'static [&'static str])> {
        self.unknown_variant.as_ref().map(|(given, expected)| (given.as_str(), *expected))
    }

    /// The expected variant closest to an unknown one given ([`bohf_core::closest_name`]).
    pub fn suggestion(&self) -> Option<&'static str> {
        let (given, expected) = self.unknown_variant()?;
        bohf_core::closest_name(given, expected).filter(|s| *s != given)
    }

    /// The message followed by "help: did you mean `x`?" on a line of its own, when there is a
    /// suggestion.
    pub fn with_help(&self) -> String {
        format!("{}{}", self.message, help(self.suggestion()))
    }
}

/// "\nhelp: did you mean `x`?", or nothing without a suggestion.
pub fn help(suggestion: Option<&str>) -> String {
    suggestion.map(|s| format!("\nhelp: did you mean `{s}`?")).unwrap_or_default()
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self { message: msg.to_string(), unknown_variant: None }
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        // serde's own wording of the message.
        let message = <de::value::Error as de::Error>::unknown_variant(variant, expected).to_string();
        Self { message, unknown_variant: Some((variant.to_string(), expected)) }
    }
}

/// A step into a TOML value: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A key of a table.
    Key(String),
    /// An entry of an array.
    Index(usize),
}

/// A path of [`Step`]s as written in a spec (`inference.mle.lambda`, `points[2]`).
pub fn render(path: &[Step]) -> String {
    path.iter().fold(String::new(), |out, step| match step {
        Step::Key(k) => bohf_core::field_path(&out, k),
        Step::Index(i) => bohf_core::field_path(&out, &format!("[{i}]")),
    })
}

/// The value at `path` in `v` (`v` itself for an empty path).
pub fn value_at<'a>(v: &'a toml::Value, path: &[Step]) -> Option<&'a toml::Value> {
    path.iter().try_fold(v, |v, step| match (step, v) {
        (Step::Key(k), toml::Value::Table(t)) => t.get(k),
        (Step::Index(i), toml::Value::Array(a)) => a.get(*i),
        _ => None,
    })
}

/// A value that did not deserialise: its path (empty for the root, or where serde does not say
/// more, e.g. inside a table tagged by `kind`, which serde reads whole) and the error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    /// The path of the value, relative to the table deserialised.
    pub path: Vec<Step>,
    /// Why it does not fit.
    pub error: DeError,
}

/// `table` deserialised as `T`; an error names the value's path.
pub fn from_table<T: DeserializeOwned>(table: &toml::Table) -> std::result::Result<T, PathError> {
    from_value(&toml::Value::Table(table.clone()))
}

/// `value` deserialised as `T`; an error names the value's path.
pub fn from_value<T: DeserializeOwned>(value: &toml::Value) -> std::result::Result<T, PathError> {
    serde_path_to_error::deserialize(ValueDeserializer(value)).map_err(|e| {
        let mut path = Vec::new();
        for segment in e.path().iter() {
            path.push(match segment {
                serde_path_to_error::Segment::Seq { index } => Step::Index(*index),
                serde_path_to_error::Segment::Map { key } => Step::Key(key.clone()),
                serde_path_to_error::Segment::Enum { variant } => Step::Key(variant.clone()),
                serde_path_to_error::Segment::Unknown => break,
            });
        }
        PathError { path, error: e.into_inner() }
    })
}

/// TOML text parsed as `T`, toml's error (with line and column) an [`ExperimentError::Toml`] of
/// the file `path`; for a name that is no variant of an enum, the error suggests the closest one.
pub fn from_toml_text<T: DeserializeOwned>(text: &str, path: Option<&Path>) -> Result<T> {
    toml::from_str(text).map_err(|source| {
        // Valid TOML of the wrong shape: the typed pass tells what the name and the variants were
        // (if it stops at the same error: it reads keys in sorted order, toml in the file's).
        let suggestion = toml::from_str::<toml::Table>(text)
            .ok()
            .and_then(|t| from_table::<T>(&t).err())
            .filter(|e| e.error.message() == source.message())
            .and_then(|e| e.error.suggestion());
        ExperimentError::Toml {
            path: path.map(Path::to_path_buf),
            source: Box::new(source),
            suggestion: suggestion.map(str::to_string),
        }
    })
}

/// A [`toml::Value`] as a [`de::Deserializer`] whose error is a [`DeError`].
#[derive(Clone, Copy)]
struct ValueDeserializer<'a>(&'a toml::Value);

impl<'de> IntoDeserializer<'de, DeError> for ValueDeserializer<'_> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for ValueDeserializer<'_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, DeError> {
        match self.0 {
            toml::Value::String(s) => visitor.visit_str(s),
            toml::Value::Integer(i) => visitor.visit_i64(*i),
            toml::Value::Float(x) => visitor.visit_f64(*x),
            toml::Value::Boolean(b) => visitor.visit_bool(*b),
            toml::Value::Datetime(d) => visitor.visit_string(d.to_string()),
            toml::Value::Array(a) => {
                let mut seq = SeqDeserializer::new(a.iter().map(ValueDeserializer));
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            toml::Value::Table(t) => {
                let mut map = MapDeserializer::new(t.iter().map(|(k, v)| (k.as_str(), ValueDeserializer(v))));
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        match self.0 {
            // A unit variant by its name, or any variant as a table of one key.
            toml::Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            toml::Value::Table(t) if t.len() == 1 => visitor.visit_enum(MapAccessDeserializer::new(
                MapDeserializer::new(t.iter().map(|(k, v)| (k.as_str(), ValueDeserializer(v)))),
            )),
            _ => self.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Colour {
        Red,
        Green,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    enum Shape {
        Circle { radius: f64 },
        Square { side: f64 },
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        colour: Colour,
        #[serde(default)]
        counts: Vec<usize>,
        shape: Option<Shape>,
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        n: usize,
    }

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_valid_table_deserialises_as_with_toml() {
        let text = "colour = \"red\"\ncounts = [1, 2]\nshape = { kind = \"circle\", radius = 2 }\ninner = { n = 3 }\n";
        let doc: Doc = from_table(&table(text)).unwrap();
        assert_eq!(doc, toml::from_str::<Doc>(text).unwrap());
        assert_eq!(doc.shape, Some(Shape::Circle { radius: 2.0 }));
    }

    #[test]
    fn an_unknown_variant_keeps_the_name_and_the_variants() {
        let e = from_table::<Doc>(&table("colour = \"gren\"")).unwrap_err();
        assert_eq!(render(&e.path), "colour");
        assert_eq!(e.error.unknown_variant(), Some(("gren", &["red", "green"][..])));
        assert_eq!(e.error.message(), "unknown variant `gren`, expected `red` or `green`");
        assert_eq!(e.error.suggestion(), Some("green"));
        assert!(e.error.with_help().ends_with("\nhelp: did you mean `green`?"), "{}", e.error.with_help());
        // A tag of an internally tagged enum too (serde reads the tag by its key).
        let e = from_table::<Doc>(&table("colour = \"red\"\nshape = { kind = \"squar\", side = 1 }")).unwrap_err();
        assert_eq!(render(&e.path), "shape.kind");
        assert_eq!(e.error.suggestion(), Some("square"));
        // Nothing close: no suggestion.
        let e = from_table::<Doc>(&table("colour = \"purple\"")).unwrap_err();
        assert_eq!(e.error.suggestion(), None);
        assert_eq!(e.error.with_help(), e.error.message());
    }

    #[test]
    fn other_errors_name_the_value_and_keep_serdes_message() {
        let e = from_table::<Doc>(&table("colour = \"red\"\ncounts = [1, -2]")).unwrap_err();
        assert_eq!(render(&e.path), "counts[1]");
        assert_eq!(e.error.message(), "invalid value: integer `-2`, expected usize");
        assert_eq!(e.error.unknown_variant(), None);
        let e = from_table::<Doc>(&table("colour = \"red\"\ninner = { n = 1.5 }")).unwrap_err();
        assert_eq!(render(&e.path), "inner.n");
        assert_eq!(
            e.error.message(),
            toml::from_str::<Doc>("colour = \"red\"\ninner = { n = 1.5 }").unwrap_err().message()
        );
        // Inside a table tagged by `kind` serde reads the rest whole: the path ends at the table.
        let text = "colour = \"red\"\nshape = { kind = \"circle\", radius = \"big\" }";
        assert_eq!(render(&from_table::<Doc>(&table(text)).unwrap_err().path), "shape");
    }

    #[test]
    fn spec_text_errors_keep_the_line_and_add_the_suggestion() {
        let e = from_toml_text::<Doc>("counts = []\ncolour = \"gren\"\n", None).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("line 2") && m.ends_with("help: did you mean `green`?"), "{m}");
        let e = from_toml_text::<Doc>("colour = [\n", None).unwrap_err();
        assert!(!e.to_string().contains("did you mean"), "{e}");
        let e = from_toml_text::<Doc>("colour = \"red\"\ninner = { n = -1 }\n", None).unwrap_err();
        assert!(e.to_string().contains("expected usize") && !e.to_string().contains("did you mean"), "{e}");
    }
}
