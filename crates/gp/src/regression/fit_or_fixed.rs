//! Serde for an optional hyperparameter fit whose absence is spelled out.
//!
//! A config whose default *learns* its hyperparameters (`Some(HyperFitConfig)`) cannot use
//! `Option`'s own serde: a missing field would read as `None` (a fixed kernel), not as the
//! config's default, and a fixed kernel serialised by skipping the field would read back as
//! learned. With `#[serde(with = "bohf_gp::fit_or_fixed")]` on the field (and the struct's
//! `#[serde(default)]`):
//!
//! * the field absent: the struct's default;
//! * `"fixed"`: `None`, the start kernel and noise kept for the whole run;
//! * a table: `Some(HyperFitConfig)`, its fields with their own defaults (`{}` is the default fit).
//!
//! `None` serialises as `"fixed"`, so a spec as run reads back as the same config.

use super::hyper::HyperFitConfig;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The word that stands for `None`.
pub const FIXED: &str = "fixed";

/// Serialises `None` as `"fixed"`, `Some(fit)` as its table.
pub fn serialize<S: Serializer>(value: &Option<HyperFitConfig>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        None => serializer.serialize_str(FIXED),
        Some(fit) => fit.serialize(serializer),
    }
}

/// Reads `"fixed"` as `None` and a table as `Some(fit)`; anything else is an error that says what
/// is accepted.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<HyperFitConfig>, D::Error> {
    struct FitOrFixed;
    impl<'de> Visitor<'de> for FitOrFixed {
        type Value = Option<HyperFitConfig>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "\"{FIXED}\" (keep the start kernel) or a table of fit settings ({{}} for the defaults)")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v == FIXED { Ok(None) } else { Err(E::invalid_value(de::Unexpected::Str(v), &self)) }
        }
        fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
            HyperFitConfig::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }
    deserializer.deserialize_any(FitOrFixed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Holder {
        #[serde(with = "super")]
        fit: Option<HyperFitConfig>,
    }

    impl Default for Holder {
        fn default() -> Self {
            Self { fit: Some(HyperFitConfig { refit_every: 7, ..HyperFitConfig::default() }) }
        }
    }

    #[test]
    fn absent_is_the_default_fixed_is_none_and_a_table_is_a_fit() {
        let absent: Holder = toml::from_str("").unwrap();
        assert_eq!(absent, Holder::default());
        let fixed: Holder = toml::from_str("fit = \"fixed\"").unwrap();
        assert_eq!(fixed.fit, None);
        let table: Holder = toml::from_str("[fit]\nrefit_every = 3").unwrap();
        assert_eq!(table.fit, Some(HyperFitConfig { refit_every: 3, ..HyperFitConfig::default() }));
        let empty: Holder = toml::from_str("fit = {}").unwrap();
        assert_eq!(empty.fit, Some(HyperFitConfig::default()));
    }

    #[test]
    fn both_forms_round_trip() {
        for h in [Holder { fit: None }, Holder::default()] {
            let text = toml::to_string(&h).unwrap();
            let back: Holder = toml::from_str(&text).unwrap();
            assert_eq!(back, h, "{text}");
        }
    }

    #[test]
    fn another_word_or_a_bad_field_is_an_error_that_says_what_is_accepted() {
        let e = toml::from_str::<Holder>("fit = \"learned\"").unwrap_err().to_string();
        assert!(e.contains("\"fixed\"") && e.contains("learned"), "{e}");
        let e = toml::from_str::<Holder>("fit = 3").unwrap_err().to_string();
        assert!(e.contains("\"fixed\""), "{e}");
        let e = toml::from_str::<Holder>("[fit]\nrefit_evry = 3").unwrap_err().to_string();
        assert!(e.contains("refit_evry"), "{e}");
    }
}
