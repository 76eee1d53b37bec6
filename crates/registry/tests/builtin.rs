//! Tests of the built-in registry.

mod support;

use bohf_experiments::*;
use support::*;

#[test]
fn every_builtin_algorithm_runs_and_is_deterministic_across_threads() {
    let mut spec = small_spec();
    spec.horizon = 30;
    spec.runs = 2;
    spec.algorithms = bohf_registry::builtin().names().into_iter().map(AlgorithmSpec::named).collect();
    // COBOL's labels are answered by a synthetic expert.
    spec.respondent.expert = Some(bohf_experiments::spec::ExpertSpec { accuracy: 1.0, f_range: None });
    // The papers' algorithms are there (a new one joins without editing this test).
    let labels = spec.labels();
    for name in [
        "pf-ts",
        "mr-lpf",
        "maxminlcb",
        "gp-ucb",
        "gp-ts",
        "random",
        "pop-bo",
        "cobol",
        "comp-gp-ucb",
        "kss",
        "mf-gp-ucb",
    ] {
        assert!(labels.iter().any(|l| l == name), "{name} missing from {labels:?}");
    }
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    assert!(one.to_csv(Timing::Omit) == two.to_csv(Timing::Omit), "1 and 2 threads differ");
    for r in one.runs() {
        for s in &r.steps {
            // r_t ∈ [0, ½] for every query kind.
            assert!((0.0..=0.5).contains(&s.regret), "{}: r_t = {}", r.label, s.regret);
        }
    }
    asks_what_it_declares(&one);
}

/// Every built-in entry's runs (with its default params) ask queries of the kinds it declares
/// ([`AlgorithmEntry::asks`]) and no other, and the declaration is tight: each kind declared is asked
/// by some run. Read from the registry, so a new entry is checked without editing this test.
fn asks_what_it_declares(results: &Results) {
    let registry = bohf_registry::builtin();
    for entry in registry.entries() {
        let declared = entry.asked_by_default();
        assert!(!declared.is_empty(), "{} declares no query kind", entry.name());
        let runs: Vec<&RunRecord> = results.runs().iter().filter(|r| r.label == entry.name()).collect();
        assert!(!runs.is_empty(), "{} did not run", entry.name());
        let mut asked: Vec<QueryKind> = runs.iter().flat_map(|r| r.steps.iter().map(|s| s.query)).collect();
        asked.sort_unstable();
        asked.dedup();
        assert_eq!(asked, declared, "{} asks {asked:?}, declares {declared:?}", entry.name());
    }
}

#[test]
fn every_builtin_entry_documents_its_paper_config_type_and_defaults() {
    let registry = bohf_registry::builtin();
    for entry in registry.entries() {
        let (paper, queries) = entry.about().unwrap_or_else(|| panic!("{} has no paper", entry.name()));
        assert!(!paper.is_empty() && !queries.is_empty(), "{}", entry.name());
        // The defaults are a params table the entry's own check accepts.
        let defaults = entry.default_params();
        entry.check(&defaults, "params").unwrap();
    }
    // The config type is the struct's own name, without its path (the docs generator looks it up).
    let name = |n: &str| registry.get(n).unwrap().config_type().unwrap();
    assert_eq!(name("pf-ts"), "PfTsConfig");
    assert_eq!(name("random"), "RandomDuelsConfig");
    assert_eq!(name("pop-bo"), "PopBoConfig");
    // An entry from closures has neither.
    let closures = AlgorithmEntry::new("c", "closures", |_, _| Ok(()), |_, _| Err(bohf_core::Error::invalid("x", "y")));
    assert!(closures.config_type().is_none() && closures.about().is_none());
}

/// An entry has a `box_search` documentation type exactly when it has a box mode whose defaults
/// carry a `box_search` table (pop-bo and gp-ucb today), so the generated reference lists it.
#[test]
fn box_modes_name_the_struct_of_their_box_search_table() {
    let registry = bohf_registry::builtin();
    for entry in registry.entries() {
        let has_table = entry
            .default_params_for(bohf_core::DomainKind::Box)
            .is_some_and(|t| t.get("box_search").is_some_and(toml::Value::is_table));
        assert_eq!(entry.box_search_type().is_some(), has_table, "{}", entry.name());
    }
    let named = |n: &str| registry.entries().iter().find(|e| e.name() == n).unwrap().box_search_type();
    assert_eq!(named("pop-bo"), Some("BoxSearchConfig"));
    assert_eq!(named("gp-ucb"), Some("MultistartConfig"));
    assert_eq!(named("mr-lpf"), None);
}

/// The Laplace algorithms' memory estimates count what a query adds: a best-of-q choice is q(q − 1)/2
/// difference rows and q latent points, so qEUBO at q = 8 and T = 50 holds p = 50·28 = 1400 rows
/// (three 1400×1400 f64 matrices) and a 400×400 latent Gram; at q = 2 (and for EUBO) p = T and
/// m = 2T, capped by the n candidates of a finite domain. Sizes computed by hand from those counts.
#[test]
fn laplace_memory_estimates_count_the_rows_of_a_choice() {
    let r = bohf_registry::builtin();
    let total = |name: &str, shape: &ProblemShape, params: &toml::Table| -> u128 {
        r.get(name).unwrap().memory_for(shape, params).iter().map(|a| a.bytes).sum()
    };
    let boxed = ProblemShape { candidates: 0, dim: 6, horizon: 50 };
    let q8: toml::Table = toml::from_str("q = 8").unwrap();
    assert_eq!(total("qeubo", &boxed, &q8), 3 * 8 * 1400 * 1400 + 8 * 400 * 400);
    let q2 = toml::Table::new();
    assert_eq!(total("qeubo", &boxed, &q2), 3 * 8 * 50 * 50 + 8 * 100 * 100);
    assert_eq!(total("eubo", &boxed, &q2), total("qeubo", &boxed, &q2));
    // The shape-only estimate is the default params' (q = 2).
    assert_eq!(
        r.get("qeubo").unwrap().memory(&boxed).iter().map(|a| a.bytes).sum::<u128>(),
        total("qeubo", &boxed, &q2)
    );
    // On 60 candidates the latent points are at most 60.
    let finite = ProblemShape { candidates: 60, dim: 2, horizon: 50 };
    assert_eq!(total("qeubo", &finite, &q8), 3 * 8 * 1400 * 1400 + 8 * 60 * 60);
}

#[test]
fn the_box_modes_the_experiments_page_names_exist() {
    // docs/experiments.md names the papers' box modes in "(box modes: `a`, `b`, …)" (not every
    // entry's: the generated algorithm reference's "Works on" lines are the full list, so a new
    // algorithm with a box mode needs no edit of the page); each named one has a box mode.
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/experiments.md")).unwrap();
    let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
    let list = flat.split_once("(box modes: ").expect("docs/experiments.md lists the box modes").1;
    let list = &list[..list.find(')').unwrap()];
    let registry = bohf_registry::builtin();
    for name in list.split(", ").map(|n| n.trim_matches('`')) {
        let entry = registry.get(name).unwrap_or_else(|| panic!("docs/experiments.md names `{name}`, not registered"));
        assert!(entry.supports(bohf_core::DomainKind::Box), "docs/experiments.md says `{name}` has a box mode");
    }
}
