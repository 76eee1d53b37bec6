//! Tests of spec parsing, validation (field paths, bounds, names) and the memory estimate.

mod support;

use bohf_experiments::*;
use support::*;

#[test]
fn spec_parses_with_defaults_and_round_trips() {
    let s = small_spec();
    assert_eq!((s.horizon, s.runs, s.seed), (25, 4, 11));
    assert_eq!(s.respondent, RespondentSpec::default());
    assert_eq!(s.labels(), ["Uniform, 10% self", "uniform-values"]);
    match &s.problem {
        ProblemSpec::Rkhs(p) => {
            assert_eq!(p.kernel, bohf_kernels::KernelKind::Se);
            assert_eq!(p.points, 12);
            assert_eq!(p.scaling, bohf_problems::Scaling::Multiply(5.0));
        }
        other => panic!("{other:?}"),
    }
    s.validate(&registry()).unwrap();
    let back = ExperimentSpec::from_toml_str(&s.to_toml_string().unwrap()).unwrap();
    assert_eq!(back, s);

    // Every problem kind and the respondent options.
    let text = r#"
        name = "kinds"
        horizon = 3
        runs = 1
        [problem]
        kind = "ackley"
        points = 40
        sign = "negated"
        scaling = "none"
        [respondent]
        model = "deterministic"
        link = "probit"
        scale = 2.0
        noise_sd = 0.5
        [[algorithms]]
        name = "mr-lpf"
        [algorithms.params.beta]
        rule = "constant"
        value = 0.5
    "#;
    let s = ExperimentSpec::from_toml_str(text).unwrap();
    s.validate(&registry()).unwrap();
    assert_eq!(s.respondent.model, ResponseModel::Deterministic);
    assert_eq!(s.respondent.link, bohf_core::Link::Probit);
    let f = r#"name = "f"
        horizon = 3
        runs = 1
        problem = { kind = "function", function = "branin", points_per_dim = 5, scaling = { range = [-3.0, 3.0] } }
        algorithms = [{ name = "uniform" }]"#;
    let s = ExperimentSpec::from_toml_str(f).unwrap();
    s.validate(&registry()).unwrap();
    let e = Experiment::new(s, &registry()).unwrap();
    assert_eq!(e.problem().candidates().unwrap().len(), 25);
    assert!((e.problem().utility().unwrap().max() - 3.0).abs() < 1e-12);
}

#[test]
fn the_crate_example_spec_is_valid() {
    // The spec of the crate documentation's example.
    let text = r#"
        name = "mr-lpf-rkhs-se"
        horizon = 300
        runs = 60
        seed = 1
        [problem]
        kind = "rkhs"
        kernel = "se"
        [[algorithms]]
        name = "mr-lpf"
        [algorithms.params.inference.kernel]
        kind = "se"
    "#;
    ExperimentSpec::from_toml_str(text).unwrap().validate(&bohf_registry::builtin()).unwrap();
}

/// The field named by a failed validation.
fn field_of(text: &str) -> String {
    let s = ExperimentSpec::from_toml_str(text).unwrap();
    let e = s.validate(&registry()).unwrap_err();
    assert!(e.to_string().contains(e.field().unwrap()), "{e}");
    e.field().unwrap().to_string()
}

#[test]
fn validation_names_the_field() {
    let base = SMALL.to_string();
    // T = 0, no runs.
    assert_eq!(field_of(&base.replace("horizon = 25", "horizon = 0")), "horizon");
    assert_eq!(field_of(&base.replace("runs = 4", "runs = 0")), "runs");
    // An empty candidate set.
    let e = ExperimentSpec::from_toml_str(&base.replace("points = 12", "points = 0")).unwrap().validate(&registry());
    let e = e.unwrap_err();
    assert_eq!(e.field(), Some("problem.points"));
    assert!(e.to_string().contains("empty"), "{e}");
    // An unknown algorithm: the message lists the valid names and suggests the closest.
    let s =
        ExperimentSpec::from_toml_str(&base.replace("name = \"uniform-values\"", "name = \"unifrom-values\"")).unwrap();
    let e = s.validate(&registry()).unwrap_err();
    assert_eq!(e.field(), Some("algorithms[1].name"));
    let msg = e.to_string();
    assert!(msg.contains("did you mean `uniform-values`") && msg.contains("mr-lpf"), "{msg}");
    // Parameters out of range, of a test optimiser and of MR-LPF.
    assert_eq!(field_of(&base.replace("self_duel = 0.1", "self_duel = 1.5")), "algorithms[0].params.self_duel");
    let mr = base.replace(
        "name = \"uniform-values\"",
        "name = \"mr-lpf\"\nparams = { beta = { rule = \"constant\", value = -1.0 } }",
    );
    assert_eq!(field_of(&mr), "algorithms[1].params.beta.value");
    let mr = base.replace("name = \"uniform-values\"", "name = \"mr-lpf\"\nparams = { inference = { kappa = 0.0 } }");
    assert_eq!(field_of(&mr), "algorithms[1].params.inference.kappa");
    // An unknown parameter key is named by its path, and in the message.
    let s = ExperimentSpec::from_toml_str(&base.replace("self_duel = 0.1", "self_dual = 0.1")).unwrap();
    let e = s.validate(&registry()).unwrap_err();
    assert_eq!(e.field(), Some("algorithms[0].params.self_dual"));
    assert!(e.to_string().contains("self_dual"), "{e}");
    // Duplicate labels, respondent, problem details.
    let dup = base.replace("label = \"Uniform, 10% self\"", "label = \"uniform-values\"");
    assert_eq!(field_of(&dup), "algorithms[1].label");
    assert_eq!(field_of(&format!("{base}\n[respondent]\nscale = 0.0\n")), "respondent.scale");
    assert_eq!(field_of(&format!("{base}\n[respondent]\nnoise_sd = -1.0\n")), "respondent.noise_sd");
    assert_eq!(
        field_of(&base.replace("points = 12", "points = 12\nscaling = { multiply = -5.0 }")),
        "problem.scaling.multiply"
    );
    let no_alg = "name = \"x\"\nhorizon = 1\nruns = 1\nalgorithms = []\n[problem]\nkind = \"rkhs\"\n";
    assert_eq!(field_of(no_alg), "algorithms");
    let fun = "name = \"x\"\nhorizon = 1\nruns = 1\nalgorithms = [{ name = \"uniform\" }]\n[problem]\nkind = \"function\"\nfunction = \"ackley\"\n";
    assert_eq!(field_of(fun), "problem.dim");
    assert_eq!(field_of(&fun.replace("ackley", "ackly")), "problem.function");
    let cat = "name = \"x\"\nhorizon = 1\nruns = 1\nalgorithms = [{ name = \"uniform\" }]\n[problem]\nkind = \"catalyst\"\npath = \"a.csv\"\nfilter = { divisor = 0.0 }\n";
    assert_eq!(field_of(cat), "problem.filter.divisor");
    // Issue 33, item 14: a right-to-left override (or any bidirectional control) in the name that
    // names the results folder, or in a label, is refused naming the field.
    for c in ['\u{202E}', '\u{2066}', '\u{200F}'] {
        assert_eq!(field_of(&base.replace("name = \"small\"", &format!("name = \"x{c}gpj.exe\""))), "name");
        let label = base.replace("label = \"Uniform, 10% self\"", &format!("label = \"a{c}b\""));
        assert_eq!(field_of(&label), "algorithms[0].label");
    }
}

#[test]
fn toml_errors_give_line_and_column_and_missing_files_their_path() {
    let e = ExperimentSpec::from_toml_str("name = \"x\"\nhorizon = = 3\n").unwrap_err();
    assert!(matches!(e, ExperimentError::Toml { .. }));
    assert!(e.to_string().contains("line 2"), "{e}");
    // A misspelt top-level key.
    let e = ExperimentSpec::from_toml_str(&SMALL.replace("horizon", "horizn")).unwrap_err();
    assert!(e.to_string().contains("horizn"), "{e}");
    // A negative horizon is a shape error, not a panic.
    assert!(ExperimentSpec::from_toml_str(&SMALL.replace("horizon = 25", "horizon = -1")).is_err());
    // A spec file that does not exist, and a catalyst file that does not exist.
    let e = ExperimentSpec::from_file("/nonexistent/spec.toml").unwrap_err();
    assert!(e.to_string().contains("/nonexistent/spec.toml"), "{e}");
    let dir = scratch_dir("relative");
    let spec_path = dir.join("spec.toml");
    std::fs::write(
        &spec_path,
        "name = \"c\"\nhorizon = 2\nruns = 1\nalgorithms = [{ name = \"uniform\" }]\n[problem]\nkind = \"catalyst\"\npath = \"data/missing.csv\"\n",
    )
    .unwrap();
    let spec = ExperimentSpec::from_file(&spec_path).unwrap();
    let e = Experiment::new(spec, &registry()).unwrap_err();
    assert!(matches!(e, ExperimentError::Data(bohf_core::data::DataError::Io { .. })), "{e}");
    assert!(e.to_string().contains(&dir.join("data/missing.csv").display().to_string()), "{e}");
}

#[test]
fn huge_sizes_are_refused_with_the_field_and_the_bound() {
    let base = SMALL.to_string();
    let huge = "9223372036854775807";
    for (from, to, field, bound) in [
        ("horizon = 25", format!("horizon = {huge}"), "horizon", limits::MAX_HORIZON),
        ("runs = 4", format!("runs = {huge}"), "runs", limits::MAX_RUNS),
        ("points = 12", format!("points = {huge}"), "problem.points", limits::MAX_CANDIDATES),
    ] {
        let s = ExperimentSpec::from_toml_str(&base.replace(from, &to)).unwrap();
        let e = s.validate(&registry()).unwrap_err();
        assert_eq!(e.field(), Some(field), "{e}");
        assert!(e.to_string().contains(&bound.to_string()), "the bound is named: {e}");
    }
    let fun = |extra: &str| {
        format!(
            "name = \"x\"\nhorizon = 1\nruns = 1\nalgorithms = [{{ name = \"uniform\" }}]\n[problem]\nkind = \
             \"function\"\nfunction = \"ackley\"\n{extra}"
        )
    };
    assert_eq!(field_of(&fun(&format!("dim = {huge}"))), "problem.dim");
    assert_eq!(field_of(&fun(&format!("dim = 2\npoints_per_dim = {huge}"))), "problem.points_per_dim");
    // 10^(10 × 1000) grid points: the product is checked, not computed.
    assert_eq!(field_of(&fun("dim = 1000\npoints_per_dim = 10")), "problem.points_per_dim");
    // Many algorithms.
    let many = format!(
        "name = \"x\"\nhorizon = 1\nruns = 1\n[problem]\nkind = \"rkhs\"\n{}",
        "[[algorithms]]\nname = \"uniform\"\n".repeat(limits::MAX_ALGORITHMS + 1)
    );
    assert_eq!(field_of(&many), "algorithms");
}

#[test]
fn names_must_be_plain_file_names() {
    for bad in ["../../x", "/tmp/x", "a/b", "a\\b", "..", ".", ".hidden", "", "  ", "a\nb", "c:x", " x"] {
        let text = SMALL.replacen("name = \"small\"", &format!("name = {}", toml::Value::String(bad.into())), 1);
        let s = ExperimentSpec::from_toml_str(&text).unwrap();
        assert_eq!(s.name, bad, "the test replaced the name");
        let e = s.validate(&registry()).unwrap_err();
        assert_eq!(e.field(), Some("name"), "{bad:?}: {e}");
    }
    let long = "n".repeat(limits::MAX_NAME_LEN + 1);
    let s =
        ExperimentSpec::from_toml_str(&SMALL.replacen("name = \"small\"", &format!("name = \"{long}\""), 1)).unwrap();
    assert_eq!(s.validate(&registry()).unwrap_err().field(), Some("name"));
    for good in ["pf-ts ackley", "fig4_rkhs", "Ünïcode-name", "a.b"] {
        let text = SMALL.replacen("name = \"small\"", &format!("name = \"{good}\""), 1);
        ExperimentSpec::from_toml_str(&text).unwrap().validate(&registry()).unwrap();
    }
}

#[test]
fn the_memory_estimate_names_the_dominant_allocation() {
    let text = "name = \"x\"\nhorizon = 10\nruns = 1\n[problem]\nkind = \"rkhs\"\npoints = 100000\n\
                [[algorithms]]\nname = \"pf-ts\"\n[[algorithms]]\nname = \"random\"\n";
    let s = ExperimentSpec::from_toml_str(text).unwrap();
    let b = bohf_registry::builtin();
    let e = s.memory_estimate(&b, 100_000, 1, 1);
    // PF-TS: two n×n matrices of f64 (Gram and sampling factor) = 2 × 8 × 10^10 bytes.
    assert!(e.total() >= 160_000_000_000, "{}", e.total());
    assert_eq!(e.parts()[0].bytes, 80_000_000_000);
    assert!(e.parts()[0].what.contains("pf-ts on 100000 candidates needs an n×n Gram"), "{:?}", e.parts()[0]);
    // Two runs at once need twice the algorithm's part.
    assert_eq!(s.memory_estimate(&b, 100_000, 1, 2).parts()[0].bytes, 160_000_000_000);
    // Random duels alone need no n×n matrix.
    let r = ExperimentSpec::from_toml_str(&text.replace("name = \"pf-ts\"\n[[algorithms]]\n", "")).unwrap();
    assert!(r.memory_estimate(&b, 100_000, 1, 1).total() < 100_000_000);
    // A horizon of 10^8 with 10^6 runs: the step records alone are beyond any machine, and the
    // product does not overflow.
    let mut big = s.clone();
    big.horizon = limits::MAX_HORIZON;
    big.runs = limits::MAX_RUNS;
    assert!(big.memory_estimate(&b, 100_000, 1, 1).total() > 10u128.pow(16));
    // 10^6 candidates (8 TB per Gram) are refused by validation with the size and the reason.
    let huge = ExperimentSpec::from_toml_str(&text.replace("points = 100000", "points = 1000000")).unwrap();
    let err = huge.validate(&b).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ExperimentError::Memory { .. }), "{msg}");
    assert!(msg.contains("pf-ts on 1000000 candidates needs an n×n Gram") && msg.contains("8.0 TB"), "{msg}");
    assert!(msg.contains("BOHF_MEMORY_LIMIT"), "{msg}");
}

/// The spec's estimate passes each algorithm's `params` to its registry entry: qEUBO with q = 8
/// on a box (no candidates) and T = 50 needs 3 × 8 bytes × (50 · 28)² for its difference rows, against
/// 3 × 8 × 50² at the default q = 2 (computed by hand).
#[test]
fn the_memory_estimate_reads_the_algorithms_params() {
    let text = "name = \"x\"\nhorizon = 50\nruns = 1\n[problem]\nkind = \"rkhs\"\npoints = 100\n\
                [[algorithms]]\nname = \"qeubo\"\n";
    let b = bohf_registry::builtin();
    let rows = |s: &ExperimentSpec| -> u128 {
        s.memory_estimate(&b, 0, 6, 1).parts().iter().filter(|p| p.what.contains("p×p")).map(|p| p.bytes).sum()
    };
    let q2 = ExperimentSpec::from_toml_str(text).unwrap();
    assert_eq!(rows(&q2), 3 * 8 * 50 * 50);
    let q8 = ExperimentSpec::from_toml_str(&format!("{text}params = {{ q = 8 }}\n")).unwrap();
    assert_eq!(rows(&q8), 3 * 8 * 1400 * 1400);
}
