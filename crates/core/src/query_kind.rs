//! The kinds of query ([`QueryKind`]): the one list of what an algorithm can ask, spelt once
//! (`duel`, `evaluate`, `label`, `choice`, in the runs' CSV and serde alike).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The kind of a [`crate::Query`] ([`crate::Query::kind`]), without its points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryKind {
    /// Two points, a preference.
    Duel,
    /// One point, a value.
    Evaluate,
    /// One point, accept/reject.
    Label,
    /// k ≥ 2 points, the index of the preferred one (a best-of-k query).
    Choice,
}

impl QueryKind {
    /// Every kind, in declaration order: what tests iterate (a new kind is added here and in the
    /// enum, and every exhaustive `match` on it then names the places that must decide for it).
    pub const ALL: [QueryKind; 4] = [QueryKind::Duel, QueryKind::Evaluate, QueryKind::Label, QueryKind::Choice];

    /// The spelling of the runs' CSV and of serde: `duel`, `evaluate`, `label`, `choice`.
    pub fn as_str(self) -> &'static str {
        match self {
            QueryKind::Duel => "duel",
            QueryKind::Evaluate => "evaluate",
            QueryKind::Label => "label",
            QueryKind::Choice => "choice",
        }
    }

    /// The kind spelt `s` ([`QueryKind::as_str`]); an error (naming `query`) lists the spellings.
    pub fn parse(s: &str) -> crate::Result<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|k| k.as_str()).collect();
            crate::Error::invalid("query", format!("unknown query kind `{s}`; the kinds are {}", names.join(", ")))
        })
    }
}

impl fmt::Display for QueryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_spelling_and_serde() {
        for k in QueryKind::ALL {
            assert_eq!(QueryKind::parse(k.as_str()).unwrap(), k);
            assert_eq!(k.to_string(), k.as_str());
            #[derive(Debug, PartialEq, Serialize, Deserialize)]
            struct Row {
                query: QueryKind,
            }
            let text = toml::to_string(&Row { query: k }).unwrap();
            assert_eq!(text.trim(), format!("query = \"{}\"", k.as_str()));
            assert_eq!(toml::from_str::<Row>(&text).unwrap(), Row { query: k });
        }
        let e = QueryKind::parse("value").unwrap_err().to_string();
        assert!(e.contains("`value`") && e.contains("duel, evaluate, label, choice"), "{e}");
    }
}
