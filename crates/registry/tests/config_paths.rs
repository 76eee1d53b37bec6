//! Every registered algorithm's config names an invalid key by its real TOML path.
//!
//! For each algorithm of [`Registry::builtin`] (so a new one is covered as soon as it is
//! registered), the test builds full, valid `params` tables: the default config written as TOML,
//! the committed presets in `specs/` merged over it, and variants of the shared sub-tables (every
//! width-schedule rule, other kernel, report and initial-point kinds, and the optional keys that a
//! serialised default leaves out). In each it makes every numeric key invalid in turn and loads the
//! whole spec. It asserts that
//!
//! * NaN, +∞, −∞, −1 and a string are refused for every float key (no config parameter of bohf
//!   accepts a negative value; a key that should would have to be listed here), and −1 and 1.5 for
//!   every integer key (type errors, which serde reports without the key: the registry finds it);
//! * a refusal is an [`ExperimentError::Spec`] whose `field` is exactly the path of the key that
//!   was changed (`algorithms[0].params.inference.mle.lambda`), and that path exists in the spec's
//!   TOML document (walked key by key, array indices included);
//! * 0 is either refused the same way or accepted (a key documented "≥ 0"); the accepted ones are
//!   printed, with the keys that were not numeric, so a reader can see what was not exercised.

use bohf_experiments::{ExperimentError, ExperimentSpec, Registry};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

const PREFIX: &str = "algorithms[0].params";

/// Every width-schedule rule in its TOML form; an algorithm keeps those its check accepts.
fn schedule_variants() -> Vec<Value> {
    [
        "{ rule = \"constant\", value = 1.0 }",
        "{ rule = \"sqrt-t\", scale = 1.0 }",
        "{ rule = \"sqrt-t-plus-one\", scale = 0.1 }",
        "{ rule = \"pfts-experiment\", delta = 0.05 }",
        "{ rule = \"pfts-square-root\", delta = 0.05 }",
        "{ rule = \"theory\", norm_bound = 1.0, delta = 0.05 }",
        "{ rule = \"popbo-theorem31\", epsilon = 0.001, delta = 0.05, log_covering = 3.0 }",
    ]
    .iter()
    .map(|t| inline(t))
    .collect()
}

/// Other variants of tables tagged by `kind` (kernel, POP-BO report, initial point); a variant
/// that does not fit the table it replaces fails the check and is skipped.
fn kind_variants() -> Vec<Value> {
    [
        "{ kind = \"se\", lengthscales = [0.2, 0.3], variance = 2.0 }",
        "{ kind = \"matern32\", lengthscale = 0.2, variance = 0.5 }",
        "{ kind = \"linear\", variance = 2.0 }",
        "{ kind = \"theoretical_t_star\", lambda = 1.0 }",
        "{ kind = \"candidate\", index = 1 }",
    ]
    .iter()
    .map(|t| inline(t))
    .collect()
}

/// Optional keys (`Option` fields, absent from a serialised default) to add to a table holding
/// the sibling key: (sibling, key, valid value).
const OPTIONAL_KEYS: [(&str, &str, f64); 2] = [("nugget", "latent_box", 3.0), ("lengthscale", "variance", 1.5)];

fn inline(text: &str) -> Value {
    let doc: Table = toml::from_str(&format!("v = {text}")).unwrap();
    doc["v"].clone()
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The committed presets as TOML documents.
fn presets() -> Vec<(String, Table)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(workspace().join("specs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path.display().to_string(), toml::from_str(&text).unwrap()));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty(), "no presets in specs/");
    out
}

/// The first preset on a finite candidate set (the COBOL presets, first by name, are on a box,
/// where the duel algorithms are refused).
fn on_candidates(presets: &[(String, Table)]) -> Table {
    let on_box = |t: &Table| t.get("problem").and_then(|p| p.get("domain")).and_then(Value::as_str) == Some("box");
    presets.iter().find(|(_, t)| !on_box(t) && t.contains_key("problem")).expect("a preset on candidates").1.clone()
}

/// `over` merged into `base`, sub-tables recursively.
fn merge(base: &mut Table, over: &Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(Value::Table(b)), Value::Table(o)) if !o.contains_key("rule") && !o.contains_key("kind") => {
                merge(b, o)
            }
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// A whole spec document: the skeleton's problem and settings (a preset's) with one algorithm.
fn document(skeleton: &Table, name: &str, params: &Table) -> Table {
    let mut doc = skeleton.clone();
    let mut alg = Table::new();
    alg.insert("name".into(), Value::String(name.into()));
    alg.insert("params".into(), Value::Table(params.clone()));
    doc.insert("algorithms".into(), Value::Array(vec![Value::Table(alg)]));
    doc
}

/// Loads the document as a spec file would be: TOML text, parsed, validated.
fn load(doc: &Table, registry: &Registry) -> Result<(), ExperimentError> {
    let text = toml::to_string(doc).expect("a TOML document");
    ExperimentSpec::from_toml_str(&text)?.validate(registry)
}

/// One step of a path: a key, or an array index.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

fn render(path: &[Step]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Key(k) if s.is_empty() => s.push_str(k),
            Step::Key(k) => s.push_str(&format!(".{k}")),
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Parses `a.b[1].c` into steps; `None` if it is not a well-formed path.
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if key.is_empty() {
            return None;
        }
        steps.push(Step::Key(key.to_string()));
        while !rest.is_empty() {
            let (index, after) = rest.split_once(']')?;
            steps.push(Step::Index(index.parse().ok()?));
            rest = after.strip_prefix('[').unwrap_or(after);
            if !after.is_empty() && !after.starts_with('[') {
                return None;
            }
        }
    }
    Some(steps)
}

/// The value at `path` in the document, walking tables by key and arrays by index.
fn walk<'a>(doc: &'a Table, path: &[Step]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let Step::Key(k) = first else { return None };
    let mut v = doc.get(k)?;
    for step in rest {
        v = match (step, v) {
            (Step::Key(k), Value::Table(t)) => t.get(k)?,
            (Step::Index(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

fn set(doc: &mut Table, path: &[Step], value: Value) {
    let (Step::Key(k), rest) = path.split_first().unwrap() else { panic!("{path:?}") };
    let mut v = doc.get_mut(k).unwrap();
    for step in rest {
        v = match (step, v) {
            (Step::Key(k), Value::Table(t)) => t.get_mut(k).unwrap(),
            (Step::Index(i), Value::Array(a)) => &mut a[*i],
            (s, other) => panic!("cannot step {s:?} into {other}"),
        };
    }
    *v = value;
}

/// Every leaf under `v` with its path (relative to `v`).
fn leaves(v: &Value, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Value)>) {
    match v {
        Value::Table(t) => {
            for (k, child) in t {
                path.push(Step::Key(k.clone()));
                leaves(child, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                path.push(Step::Index(i));
                leaves(child, path, out);
                path.pop();
            }
        }
        leaf => out.push((path.clone(), leaf.clone())),
    }
}

/// Paths (relative to `params`) of every sub-table, the table itself first.
fn tables(v: &Table, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(path.clone());
    for (k, child) in v {
        if let Value::Table(t) = child {
            path.push(Step::Key(k.clone()));
            tables(t, path, out);
            path.pop();
        }
    }
}

/// The valid `params` tables to mutate for one algorithm: defaults, presets over defaults, and
/// the variants of their sub-tables that the algorithm accepts.
fn bases(
    name: &str,
    defaults: &Table,
    presets: &[(String, Table)],
    skeleton: &Table,
    registry: &Registry,
) -> Vec<Table> {
    let mut seeds = vec![defaults.clone()];
    for (_, doc) in presets {
        for alg in doc.get("algorithms").and_then(Value::as_array).into_iter().flatten() {
            if alg.get("name").and_then(Value::as_str) == Some(name)
                && let Some(Value::Table(p)) = alg.get("params")
            {
                let mut t = defaults.clone();
                merge(&mut t, p);
                seeds.push(t);
            }
        }
    }
    let mut out: Vec<Table> = Vec::new();
    let push = |t: Table, out: &mut Vec<Table>| {
        if !out.contains(&t) && load(&document(skeleton, name, &t), registry).is_ok() {
            out.push(t);
        }
    };
    for seed in seeds {
        let mut with_optional = seed.clone();
        let mut paths = Vec::new();
        tables(&seed, &mut Vec::new(), &mut paths);
        for p in &paths {
            let Some(Value::Table(t)) = walk_params(&with_optional, p) else { continue };
            let mut t = t.clone();
            for (sibling, key, value) in OPTIONAL_KEYS {
                if t.contains_key(sibling) && !t.contains_key(key) {
                    t.insert(key.into(), Value::Float(value));
                }
            }
            set_params(&mut with_optional, p, Value::Table(t));
        }
        push(seed.clone(), &mut out);
        push(with_optional.clone(), &mut out);
        for p in paths.iter().filter(|p| !p.is_empty()) {
            let Some(Value::Table(t)) = walk_params(&with_optional, p) else { continue };
            let variants = if t.contains_key("rule") {
                schedule_variants()
            } else if t.contains_key("kind") {
                kind_variants()
            } else {
                continue;
            };
            for v in variants {
                let mut variant = with_optional.clone();
                set_params(&mut variant, p, v);
                push(variant, &mut out);
            }
        }
    }
    out
}

fn walk_params<'a>(params: &'a Table, path: &[Step]) -> Option<&'a Value> {
    if path.is_empty() { None } else { walk(params, path) }
}

fn set_params(params: &mut Table, path: &[Step], value: Value) {
    if let Value::Table(t) = &value
        && path.is_empty()
    {
        *params = t.clone();
    } else {
        set(params, path, value);
    }
}

#[test]
fn every_invalid_numeric_key_is_named_by_its_toml_path() {
    let registry = bohf_registry::builtin();
    let presets = presets();
    let mut skeleton = on_candidates(&presets);
    skeleton.remove("algorithms");
    skeleton.remove("reproduces"); // its claims name the preset's own labels
    let prefix = parse_path(PREFIX).unwrap();
    let mut failures = Vec::new();
    let mut accepted_zero = BTreeSet::new();
    let mut not_numeric = BTreeSet::new();
    let mut exercised = BTreeSet::new();
    assert!(registry.entries().len() >= 7, "the built-in registry lost algorithms");
    for entry in registry.entries() {
        let name = entry.name();
        let defaults = entry.default_params();
        let bases = bases(name, &defaults, &presets, &skeleton, &registry);
        assert!(!bases.is_empty(), "{name}: no valid params table to start from (the default config is refused?)");
        for base in &bases {
            let doc = document(&skeleton, name, base);
            let mut found = Vec::new();
            leaves(&Value::Table(base.clone()), &mut Vec::new(), &mut found);
            for (rel, value) in found {
                let key = format!("{name}: {}", render(&rel));
                let invalid: Vec<(Value, bool)> = match value {
                    // (value, must be refused)
                    Value::Float(_) => vec![
                        (Value::Float(f64::NAN), true),
                        (Value::Float(f64::INFINITY), true),
                        (Value::Float(f64::NEG_INFINITY), true),
                        (Value::Float(-1.0), true),
                        (Value::String("x".into()), true),
                        (Value::Float(0.0), false),
                    ],
                    // −1 and a float are type errors for a count or an index (serde's message
                    // does not name the key; the registry finds it).
                    Value::Integer(_) => {
                        vec![(Value::Integer(-1), true), (Value::Float(1.5), true), (Value::Integer(0), false)]
                    }
                    _ => {
                        not_numeric.insert(key);
                        continue;
                    }
                };
                exercised.insert(key.clone());
                let full: Vec<Step> = prefix.iter().cloned().chain(rel.iter().cloned()).collect();
                let expected = render(&full);
                assert!(walk(&doc, &full).is_some(), "{expected} is not in the document");
                for (bad, must_refuse) in invalid {
                    let mut mutated = doc.clone();
                    set(&mut mutated, &full, bad.clone());
                    match load(&mutated, &registry) {
                        Ok(()) if must_refuse => failures.push(format!("{key} = {bad} was accepted")),
                        Ok(()) => {
                            accepted_zero.insert(key.clone());
                        }
                        Err(e) => {
                            let Some(field) = e.field() else {
                                failures.push(format!("{key} = {bad}: not a spec-field error: {e}"));
                                continue;
                            };
                            let message = e.to_string();
                            if field != expected {
                                failures.push(format!("{key} = {bad}: reported `{field}`, expected `{expected}`: {e}"));
                            } else if parse_path(field).is_none_or(|p| walk(&mutated, &p).is_none()) {
                                failures.push(format!("{key} = {bad}: `{field}` is not a path of the spec"));
                            } else if !message.contains(&format!("`{expected}`")) {
                                failures.push(format!("{key} = {bad}: the message does not name the path: {message}"));
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "numeric keys exercised ({}):\n  {}",
        exercised.len(),
        exercised.iter().cloned().collect::<Vec<_>>().join("\n  ")
    );
    eprintln!(
        "accept 0 (documented >= 0 or an index):\n  {}",
        accepted_zero.iter().cloned().collect::<Vec<_>>().join("\n  ")
    );
    eprintln!("not numeric, not mutated:\n  {}", not_numeric.iter().cloned().collect::<Vec<_>>().join("\n  "));
    assert!(failures.is_empty(), "{} problem(s):\n{}", failures.len(), failures.join("\n"));
    // The shared sub-configs were reached (so the variants above did their job).
    for key in [
        "pf-ts: inference.mle.lambda",
        "pf-ts: exploration.norm_bound",
        "mr-lpf: beta.delta",
        "pop-bo: confidence.latent_box",
        "pop-bo: beta.log_covering",
        "pop-bo: report.lambda",
        "gp-ucb: kernel.lengthscales[1]",
        "maxminlcb: inference.kernel.variance",
    ] {
        assert!(exercised.contains(key), "{key} was never exercised");
    }
}

#[test]
fn paths_parse_and_walk() {
    let doc: Table = toml::from_str("[[a]]\nb = { c = [1.0, 2.0] }\n").unwrap();
    let p = parse_path("a[0].b.c[1]").unwrap();
    assert_eq!(render(&p), "a[0].b.c[1]");
    assert_eq!(walk(&doc, &p), Some(&Value::Float(2.0)));
    assert_eq!(walk(&doc, &parse_path("a[0].b.d").unwrap()), None);
    assert_eq!(walk(&doc, &parse_path("a[1]").unwrap()), None);
    assert!(parse_path("a..b").is_none() && parse_path("a[x]").is_none());
}

/// A field that only the problem can refuse (POP-BO's x₀ index beyond the candidates) is named by
/// its path too, when `Experiment::new` builds the algorithms.
#[test]
fn a_field_refused_by_the_constructor_is_named_by_its_path() {
    let registry = bohf_registry::builtin();
    let mut skeleton = on_candidates(&presets());
    skeleton.remove("algorithms");
    skeleton.remove("reproduces"); // its claims name the preset's own labels
    let params: Table = toml::from_str("initial = { kind = \"candidate\", index = 100000 }").unwrap();
    let doc = document(&skeleton, "pop-bo", &params);
    load(&doc, &registry).expect("the index is checked against the problem, not by the config's check");
    let spec = ExperimentSpec::from_toml_str(&toml::to_string(&doc).unwrap()).unwrap();
    let Err(e) = bohf_experiments::Experiment::new(spec, &registry) else { panic!("index 100000 accepted") };
    assert_eq!(e.field(), Some("algorithms[0].params.initial.index"), "{e}");
    let steps = parse_path(e.field().unwrap()).unwrap();
    assert_eq!(walk(&doc, &steps), Some(&Value::Integer(100000)));
}

/// Errors of the TOML shape (an unknown or misspelt key, a string where a number belongs, an enum
/// name that does not exist) are named by the key's path as well, in every registered algorithm
/// whose config has the key (and a few values refused by a config's check).
#[test]
fn shape_errors_name_the_key() {
    let registry = bohf_registry::builtin();
    let mut skeleton = on_candidates(&presets());
    skeleton.remove("algorithms");
    skeleton.remove("reproduces"); // its claims name the preset's own labels
    let cases = [
        ("pf-ts", "inference = { mle = { lamda = 0.05 } }", "inference.mle.lamda"),
        ("mr-lpf", "inference = { mle = { regulariser = \"l2\" } }", "inference.mle.regulariser"),
        ("maxminlcb", "plausible_set = \"some\"", "plausible_set"),
        ("gp-ts", "kernel = { kind = \"se\", lengthscales = [0.1, \"wide\"] }", "kernel.lengthscales[1]"),
        ("pop-bo", "confidence = { max_iterations = 2.5 }", "confidence.max_iterations"),
        ("pop-bo", "beta = { rule = \"sqrt-t\", scale = \"one\" }", "beta.scale"),
        // A key beside a kind that takes none is refused, not ignored.
        ("pop-bo", "report = { kind = \"max_mle_sampled\", lambda = 3.0 }", "report.lambda"),
        ("pop-bo", "initial = { kind = \"random\", index = 3 }", "initial.index"),
        // COBOL's work bound: negative (a type error), zero (the check), an unknown mode; the cap
        // on initial label draws below the labels it must find.
        ("cobol", "search = { programs = -3 }", "search.programs"),
        ("cobol", "search = { programs = 0 }", "search.programs"),
        ("cobol", "search = \"fast\"", "search"),
        // The local search: negative and zero counts, an unknown key (a finite domain is refused
        // when the algorithm is built, naming `search.local`: bohf-cobol's tests).
        ("cobol", "search = { local = { starts = -1, evaluations = 5 } }", "search.local.starts"),
        ("cobol", "search = { local = { starts = 0, evaluations = 5 } }", "search.local.starts"),
        ("cobol", "search = { local = { starts = 2, evaluations = 0 } }", "search.local.evaluations"),
        ("cobol", "search = { local = { starts = 2, evals = 5 } }", "search.local.evals"),
        ("cobol", "initial_labels = 10\ninitial_label_draws = 9", "initial_label_draws"),
    ];
    for (name, params, key) in cases {
        let doc = document(&skeleton, name, &toml::from_str(params).unwrap());
        let e = load(&doc, &registry).expect_err(params);
        assert_eq!(e.field(), Some(format!("{PREFIX}.{key}").as_str()), "{name} {params}: {e}");
        assert!(walk(&doc, &parse_path(e.field().unwrap()).unwrap()).is_some(), "{e}");
    }
}

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Holder {
    report: bohf_popbo::ReportRule,
    initial: bohf_popbo::InitialPoint,
}

/// POP-BO's `report` and `initial` tables: every kind parses and round-trips; a key the kind does not take is refused, naming it.
#[test]
fn kinds_parse_round_trip_and_refuse_foreign_keys() {
    let cases = [
        (
            "report = { kind = \"max_mle_sampled\" }\ninitial = { kind = \"random\" }",
            bohf_popbo::ReportRule::MaxMleSampled,
            bohf_popbo::InitialPoint::Random,
        ),
        (
            "report = { kind = \"max_mle_grid\" }\ninitial = { kind = \"candidate\", index = 4 }",
            bohf_popbo::ReportRule::MaxMleGrid,
            bohf_popbo::InitialPoint::Candidate { index: 4 },
        ),
        (
            "report = { kind = \"theoretical_t_star\" }\ninitial = { kind = \"random\" }",
            bohf_popbo::ReportRule::TheoreticalTStar { lambda: 1.0 },
            bohf_popbo::InitialPoint::Random,
        ),
    ];
    for (text, report, initial) in cases {
        let h: Holder = toml::from_str(text).unwrap();
        assert_eq!(h, Holder { report: report.clone(), initial });
        assert_eq!(toml::from_str::<Holder>(&toml::to_string(&h).unwrap()).unwrap(), h);
    }
    let err = |text: &str| toml::from_str::<Holder>(text).unwrap_err().to_string();
    let e = err("report = { kind = \"max_mle_sampled\", lambda = 3.0 }\ninitial = { kind = \"random\" }");
    assert!(e.contains("takes no `lambda`"), "{e}");
    let e = err("report = { kind = \"max_mle_grid\" }\ninitial = { kind = \"random\", index = 2 }");
    assert!(e.contains("takes no `index`"), "{e}");
    let e = err("report = { kind = \"max_mle_grid\" }\ninitial = { kind = \"candidate\" }");
    assert!(e.contains("needs `index`"), "{e}");
    let e = err("report = { kind = \"best\" }\ninitial = { kind = \"random\" }");
    assert!(e.contains("unknown report kind \"best\""), "{e}");
    let e = err("report = { kind = \"max_mle_grid\", extra = 1 }\ninitial = { kind = \"random\" }");
    assert!(e.contains("extra"), "{e}");
}
