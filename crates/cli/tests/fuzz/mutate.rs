//! The mutators of the fuzz campaign: text mutations for any file, value mutations for TOML specs,
//! and tree mutations for session files (JSON, keys kept in file order so that a re-computed
//! checksum matches what `bohf ask` computes from the same content).

use rand::RngExt;
use rand::rngs::StdRng;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::fmt;

/// A mutated file: its bytes and what was done to it.
pub struct Mutated {
    pub bytes: Vec<u8>,
    pub what: String,
}

/// Awkward strings: unicode controls, NUL, combining characters, emoji, path-like names, escapes.
const NASTY_STRINGS: &[&str] = &[
    "",
    " ",
    "\u{202e}evil\u{202c}",
    "a\u{0}b",
    "e\u{301}\u{301}\u{301}\u{301}",
    "☕🦀👩‍👩‍👧‍👦",
    "../../x",
    "../x",
    "/abs",
    "/tmp/bohf-fuzz-abs",
    "C:\\x",
    "x/y",
    ".",
    "..",
    "\\\"'",
    "${HOME}",
    "\u{feff}name",
    "\n\t\r",
];

/// Extreme numbers as TOML/JSON literals.
const EXTREME_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999999999",
    "4294967296",
    "1000000000",
    "1000000000000",
    "100000",
    "1e308",
    "-1e308",
    "1e-320",
    "nan",
    "inf",
    "-inf",
    "-0.0",
    "0.5",
    "1e9",
];

/// Invalid UTF-8 sequences.
const BAD_UTF8: &[&[u8]] = &[b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\x80\x80"];

fn pick<'a, T>(rng: &mut StdRng, xs: &'a [T]) -> &'a T {
    &xs[rng.random_range(0..xs.len())]
}

fn long_string(rng: &mut StdRng) -> String {
    let n = *pick(rng, &[1_000usize, 100_000, 1_000_000]);
    let c = *pick(rng, &['x', 'é', '🦀', '\u{301}']);
    std::iter::repeat_n(c, n).collect()
}

fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

/// A mutation that works on any bytes (specs and session files).
pub fn mutate_bytes(rng: &mut StdRng, input: &[u8]) -> Mutated {
    let mut b = input.to_vec();
    let what = match rng.random_range(0..9) {
        0 => {
            let k = rng.random_range(1..=4);
            for _ in 0..k {
                if !b.is_empty() {
                    let i = rng.random_range(0..b.len());
                    b[i] ^= 1 << rng.random_range(0..8);
                }
            }
            format!("{k} bit flip(s)")
        }
        1 => {
            let i = rng.random_range(0..=b.len());
            let k = rng.random_range(1..=16);
            let junk: Vec<u8> = (0..k).map(|_| rng.random::<u8>()).collect();
            b.splice(i..i, junk);
            format!("{k} random byte(s) inserted at {i}")
        }
        2 => {
            let at = rng.random_range(0..=b.len());
            b.truncate(at);
            format!("truncated at byte {at}")
        }
        3..=5 => {
            let mut lines = split_lines(&b);
            if lines.is_empty() {
                lines.push(Vec::new());
            }
            let i = rng.random_range(0..lines.len());
            let what = match rng.random_range(0..3) {
                0 => {
                    lines.remove(i);
                    format!("line {} deleted", i + 1)
                }
                1 => {
                    let l = lines[i].clone();
                    lines.insert(i, l);
                    format!("line {} duplicated", i + 1)
                }
                _ => {
                    let j = rng.random_range(0..lines.len());
                    lines.swap(i, j);
                    format!("lines {} and {} swapped", i + 1, j + 1)
                }
            };
            b = lines.concat();
            what
        }
        6 => {
            let i = rng.random_range(0..=b.len());
            let s = *pick(rng, BAD_UTF8);
            b.splice(i..i, s.iter().copied());
            format!("invalid UTF-8 {s:?} inserted at {i}")
        }
        7 => {
            let i = rng.random_range(0..=b.len());
            let s = pick(rng, NASTY_STRINGS).to_string();
            b.splice(i..i, s.bytes());
            format!("{s:?} inserted at byte {i}")
        }
        _ => {
            let i = rng.random_range(0..=b.len());
            b.truncate(i);
            let junk: Vec<u8> = (0..rng.random_range(1..64)).map(|_| rng.random::<u8>()).collect();
            b.extend(junk);
            format!("random tail from byte {i}")
        }
    };
    Mutated { bytes: b, what }
}

/// A replacement value for a TOML `key = value` line: a wrong type, an extreme number, a nasty or
/// very long string.
fn toml_value(rng: &mut StdRng) -> String {
    match rng.random_range(0..8) {
        0..=2 => pick(rng, EXTREME_NUMBERS).to_string(),
        3 => format!("{:?}", pick(rng, NASTY_STRINGS)),
        4 => format!("\"{}\"", long_string(rng)),
        5 => pick(
            rng,
            &[
                "[]",
                "[1, 2, 3]",
                "[\"a\", 1]",
                "[[0.0, 1.0], [2.0]]",
                "[1e308, -1e308]",
                "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]",
            ],
        )
        .to_string(),
        6 => pick(
            rng,
            &["{}", "{ a = 1 }", "{ name = \"x\", lengthscale = -5 }", "true", "false", "1979-05-27T07:32:00Z"],
        )
        .to_string(),
        _ => format!("{}", pick(rng, &[2u64, 7, 10, 100, 1000, 10_000, 100_000, 1_000_000, 1 << 31, 1 << 40])),
    }
}

/// A value of the same TOML type as `old` but extreme: an integer for an integer, a float for a
/// float, a nasty string for a string, an array of extremes or a huge array for an array.
fn same_type_extreme(rng: &mut StdRng, old: &str) -> String {
    let old = old.split(" #").next().unwrap_or(old).trim();
    const INTS: &[&str] = &[
        "0",
        "-1",
        "1",
        "2",
        "3",
        "9223372036854775807",
        "-9223372036854775808",
        "4294967296",
        "5000",
        "20000",
        "100000",
        "1000000",
        "1000000000",
        "1000000000000",
        "65536",
    ];
    const FLOATS: &[&str] =
        &["0.0", "-1.0", "-5.0", "1e308", "-1e308", "1e-320", "nan", "inf", "-inf", "-0.0", "1e-12", "1e12", "5e-324"];
    if old.parse::<i64>().is_ok() {
        pick(rng, INTS).to_string()
    } else if old.parse::<f64>().is_ok() || old == "nan" || old.ends_with("inf") {
        pick(rng, FLOATS).to_string()
    } else if old.starts_with('"') || old.starts_with('\'') {
        if rng.random_bool(0.2) {
            format!("\"{}\"", long_string(rng))
        } else {
            format!("{:?}", pick(rng, NASTY_STRINGS))
        }
    } else if old.starts_with('[') {
        let inner = old.trim_start_matches('[').trim_end_matches(']');
        let n = inner.split(',').filter(|x| !x.trim().is_empty()).count();
        match rng.random_range(0..4) {
            0 => "[]".into(),
            1 => {
                let m = *pick(rng, &[n.saturating_sub(1), n + 1, 1000, 100_000]);
                let x = if inner.contains('"') { "\"x\"" } else { "0.5" };
                format!("[{}]", vec![x; m].join(", "))
            }
            _ => {
                let xs: Vec<String> = (0..n.max(1))
                    .map(|_| {
                        if inner.contains('"') {
                            format!("{:?}", pick(rng, NASTY_STRINGS))
                        } else {
                            pick(rng, FLOATS).to_string()
                        }
                    })
                    .collect();
                format!("[{}]", xs.join(", "))
            }
        }
    } else if old == "true" || old == "false" {
        if old == "true" { "false".into() } else { "true".into() }
    } else {
        toml_value(rng)
    }
}

/// Keys worth injecting into a spec (the fields of experiment and session specs).
const SPEC_KEYS: &[&str] = &[
    "name",
    "horizon",
    "runs",
    "seed",
    "dim",
    "points",
    "points_per_dim",
    "domain",
    "samples",
    "starts",
    "iterations",
    "budget",
    "lengthscale",
    "noise",
    "beta",
    "scale",
    "on_error",
    "kind",
    "title",
    "path",
    "csv",
    "lower",
    "upper",
    "names",
    "rounds",
    "bound",
];

/// A mutation of a TOML spec: a value replaced, a key injected, or a text mutation.
pub fn mutate_toml(rng: &mut StdRng, input: &[u8]) -> Mutated {
    let Ok(text) = std::str::from_utf8(input) else { return mutate_bytes(rng, input) };
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let assignments: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            !t.starts_with('#') && !t.starts_with('[') && t.contains('=')
        })
        .map(|(i, _)| i)
        .collect();
    match rng.random_range(0..10) {
        0..=5 if !assignments.is_empty() => {
            let i = *pick(rng, &assignments);
            let (key, old) = lines[i].split_once('=').unwrap_or(("", ""));
            let key = key.trim().to_string();
            let value = if rng.random_bool(0.6) { same_type_extreme(rng, old) } else { toml_value(rng) };
            let shown: String = value.chars().take(60).collect();
            lines[i] = format!("{key} = {value}");
            Mutated { bytes: (lines.join("\n") + "\n").into_bytes(), what: format!("line {}: {key} = {shown}", i + 1) }
        }
        6 | 7 => {
            // Inject a key into a random table (after a header or at the top).
            let headers: Vec<usize> =
                lines.iter().enumerate().filter(|(_, l)| l.trim_start().starts_with('[')).map(|(i, _)| i + 1).collect();
            let at = if headers.is_empty() || rng.random_bool(0.3) { 0 } else { *pick(rng, &headers) };
            let key = *pick(rng, SPEC_KEYS);
            let value = toml_value(rng);
            let shown: String = value.chars().take(60).collect();
            lines.insert(at, format!("{key} = {value}"));
            Mutated {
                bytes: (lines.join("\n") + "\n").into_bytes(),
                what: format!("inserted at line {}: {key} = {shown}", at + 1),
            }
        }
        _ => mutate_bytes(rng, input),
    }
}

/// A JSON value that keeps its keys in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(serde_json::Number),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Obj(kv) => kv.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn compact(&self) -> String {
        serde_json::to_string(self).expect("serialisable")
    }

    /// Every node as a path of child positions (root first).
    fn paths(&self, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(prefix.clone());
        let children: Vec<&Json> = match self {
            Json::Arr(xs) => xs.iter().collect(),
            Json::Obj(kv) => kv.iter().map(|(_, v)| v).collect(),
            _ => Vec::new(),
        };
        for (i, c) in children.into_iter().enumerate() {
            prefix.push(i);
            c.paths(prefix, out);
            prefix.pop();
        }
    }

    fn at_mut(&mut self, path: &[usize]) -> &mut Json {
        match path.split_first() {
            None => self,
            Some((&i, rest)) => match self {
                Json::Arr(xs) => xs[i].at_mut(rest),
                Json::Obj(kv) => kv[i].1.at_mut(rest),
                _ => unreachable!("paths only lead into containers"),
            },
        }
    }

    fn describe(&self, path: &[usize]) -> String {
        let mut s = String::new();
        let mut node = self;
        for &i in path {
            match node {
                Json::Arr(xs) => {
                    s.push_str(&format!("[{i}]"));
                    node = &xs[i];
                }
                Json::Obj(kv) => {
                    s.push_str(&format!(".{}", kv[i].0));
                    node = &kv[i].1;
                }
                _ => unreachable!(),
            }
        }
        if s.is_empty() { "(root)".into() } else { s }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Num(n) => n.serialize(s),
            Json::Str(x) => s.serialize_str(x),
            Json::Arr(xs) => {
                let mut seq = s.serialize_seq(Some(xs.len()))?;
                for x in xs {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            Json::Obj(kv) => {
                let mut map = s.serialize_map(Some(kv.len()))?;
                for (k, v) in kv {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_i64<E>(self, x: i64) -> Result<Json, E> {
                Ok(Json::Num(x.into()))
            }
            fn visit_u64<E>(self, x: u64) -> Result<Json, E> {
                Ok(Json::Num(x.into()))
            }
            fn visit_f64<E>(self, x: f64) -> Result<Json, E> {
                Ok(serde_json::Number::from_f64(x).map_or(Json::Null, Json::Num))
            }
            fn visit_str<E>(self, x: &str) -> Result<Json, E> {
                Ok(Json::Str(x.to_string()))
            }
            fn visit_string<E>(self, x: String) -> Result<Json, E> {
                Ok(Json::Str(x))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut xs = Vec::new();
                while let Some(x) = a.next_element()? {
                    xs.push(x);
                }
                Ok(Json::Arr(xs))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut kv = Vec::new();
                while let Some((k, v)) = a.next_entry()? {
                    kv.push((k, v));
                }
                Ok(Json::Obj(kv))
            }
        }
        d.deserialize_any(V)
    }
}

fn num(text: &str) -> Json {
    // JSON has no nan/inf: those become strings (a wrong type, which is also a finding if it passes).
    match serde_json::from_str::<serde_json::Number>(text) {
        Ok(n) => Json::Num(n),
        Err(_) => match text.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
            Some(n) => Json::Num(n),
            None => Json::Str(text.to_string()),
        },
    }
}

fn json_value(rng: &mut StdRng) -> (Json, String) {
    match rng.random_range(0..7) {
        0..=2 => {
            let t = *pick(rng, EXTREME_NUMBERS);
            (num(t), t.to_string())
        }
        3 => {
            let s = pick(rng, NASTY_STRINGS).to_string();
            (Json::Str(s.clone()), format!("{s:?}"))
        }
        4 => (Json::Str(long_string(rng)), "a very long string".into()),
        5 => (Json::Arr(vec![num("1"), Json::Str("x".into())]), "[1, \"x\"]".into()),
        _ => (Json::Obj(vec![("x".into(), num("1"))]), "{\"x\": 1}".into()),
    }
}

/// Marks the description of a mutation whose result is a valid session (given a valid checksum): many
/// distinct candidates and no history. Such a session may legitimately take long.
pub const GROWN: &str = ", history cleared (valid)";

/// A tree mutation of a session body (the value of `body`), aimed at what the checksum protects.
pub fn mutate_session_body(rng: &mut StdRng, body: &mut Json) -> String {
    match rng.random_range(0..12) {
        10 | 11 => {
            // Many more candidates (distinct rows): what the algorithm costs per query on a big set.
            let n = *pick(rng, &[100usize, 400, 1600]);
            if let Some(Json::Arr(steps)) = body.get_mut("history") {
                steps.clear();
            }
            if let Some(Json::Obj(c)) = body.get_mut("candidates") {
                for (k, v) in c.iter_mut() {
                    if let Json::Arr(xs) = v
                        && !xs.is_empty()
                        && (k == "names" || k == "values")
                    {
                        let base = xs.clone();
                        *xs = (0..n)
                            .map(|i| match (k.as_str(), &base[i % base.len()]) {
                                ("names", _) => Json::Str(format!("option {i}")),
                                ("values", Json::Arr(row)) => Json::Arr(
                                    row.iter()
                                        .enumerate()
                                        .map(|(j, x)| match x {
                                            Json::Num(x) => num(&format!(
                                                "{:?}",
                                                x.as_f64().unwrap_or(0.0) + ((i * (j + 7)) % 997) as f64 * 1e-3
                                            )),
                                            other => other.clone(),
                                        })
                                        .collect(),
                                ),
                                (_, x) => x.clone(),
                            })
                            .collect();
                    }
                }
            }
            format!("{n} candidates{GROWN}")
        }
        0 => {
            // Shrink or grow one candidate row.
            if let Some(Json::Arr(rows)) = body.get_mut("candidates").and_then(|c| c.get_mut("values"))
                && !rows.is_empty()
            {
                let i = rng.random_range(0..rows.len());
                if let Json::Arr(row) = &mut rows[i] {
                    if rng.random_bool(0.7) && !row.is_empty() {
                        row.pop();
                        return format!("candidate row {i} shortened");
                    }
                    row.push(num("1.5"));
                    return format!("candidate row {i} lengthened");
                }
            }
            "no candidate rows".into()
        }
        1 => {
            // A query index out of range (or at the edge).
            if let Some(Json::Arr(steps)) = body.get_mut("history")
                && !steps.is_empty()
            {
                let i = rng.random_range(0..steps.len());
                let v = *pick(rng, &["8", "9", "1000", "18446744073709551615", "-1"]);
                if let Some(Json::Obj(q)) = steps[i].get_mut("query")
                    && let Some(entry) = q.iter_mut().find(|(k, _)| k != "kind")
                {
                    entry.1 = num(v);
                    return format!("history[{i}].query.{} = {v}", entry.0);
                }
            }
            "no history".into()
        }
        2 => {
            // Extra keys in a history entry, its query or its answer.
            if let Some(Json::Arr(steps)) = body.get_mut("history")
                && !steps.is_empty()
            {
                let i = rng.random_range(0..steps.len());
                if let Json::Obj(kv) = &mut steps[i] {
                    kv.push(("note".into(), Json::Str("hand-added".into())));
                    return format!("extra key in history[{i}]");
                }
            }
            "no history".into()
        }
        3 => {
            let v =
                *pick(rng, &["0", "1", "2", "100000", "1000000000000", "18446744073709551615", "9223372036854775807"]);
            if let Some(b) = body.get_mut("spec").and_then(|s| s.get_mut("budget")) {
                *b = num(v);
            }
            format!("spec.budget = {v}")
        }
        4 => {
            // Remove candidates (down to one) or names.
            let keep = rng.random_range(0..3);
            if let Some(Json::Obj(c)) = body.get_mut("candidates") {
                for (k, v) in c.iter_mut() {
                    if let Json::Arr(xs) = v
                        && (k == "values" || k == "names" || rng.random_bool(0.3))
                    {
                        xs.truncate(keep);
                    }
                }
            }
            format!("candidates cut to {keep}")
        }
        5 => {
            // Duplicate or drop a history entry.
            if let Some(Json::Arr(steps)) = body.get_mut("history")
                && !steps.is_empty()
            {
                let i = rng.random_range(0..steps.len());
                if rng.random_bool(0.5) {
                    let s = steps[i].clone();
                    steps.insert(i, s);
                    return format!("history[{i}] duplicated");
                }
                steps.remove(i);
                return format!("history[{i}] removed");
            }
            "no history".into()
        }
        _ => {
            // Any node replaced by a wrong type, an extreme number or a nasty string; or removed.
            let mut paths = Vec::new();
            body.paths(&mut Vec::new(), &mut paths);
            let path = pick(rng, &paths[1..]).clone();
            let where_ = body.describe(&path);
            if rng.random_bool(0.15) {
                let (last, parent) = path.split_last().expect("not the root");
                match body.at_mut(parent) {
                    Json::Arr(xs) => {
                        xs.remove(*last);
                    }
                    Json::Obj(kv) => {
                        kv.remove(*last);
                    }
                    _ => unreachable!(),
                }
                return format!("{where_} removed");
            }
            let (v, shown) = json_value(rng);
            *body.at_mut(&path) = v;
            format!("{where_} = {shown}")
        }
    }
}
