use super::*;
use crate::AtField;

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct Holder {
    beta: WidthSchedule,
}

fn parse(s: &str) -> std::result::Result<WidthSchedule, String> {
    toml::from_str::<Holder>(s).map(|h| h.beta).map_err(|e| e.to_string())
}

#[test]
fn every_rule_parses_and_round_trips() {
    let cases = [
        ("beta = { rule = \"constant\", value = 1.0 }", WidthSchedule::Constant { value: 1.0 }),
        ("beta = { rule = \"sqrt-t\", scale = 0.5 }", WidthSchedule::SqrtT { scale: 0.5 }),
        ("beta = { rule = \"sqrt-t-plus-one\", scale = 0.1 }", WidthSchedule::SqrtTPlusOne { scale: 0.1 }),
        ("beta = { rule = \"pfts-experiment\" }", WidthSchedule::PftsExperiment { delta: 0.05 }),
        ("beta = { rule = \"pfts-square-root\", delta = 0.1 }", WidthSchedule::PftsSquareRoot { delta: 0.1 }),
        ("beta = { rule = \"theory\", norm_bound = 2.0 }", WidthSchedule::Theory { norm_bound: 2.0, delta: 0.05 }),
        (
            "beta = { rule = \"popbo-theorem31\", epsilon = 0.01, delta = 0.1, log_covering = 3.0 }",
            WidthSchedule::PopboTheorem31 { epsilon: 0.01, delta: 0.1, log_covering: 3.0 },
        ),
        (
            "beta = { rule = \"lemma31\", norm_bound = 2.0, sigma = 0.1, delta = 0.2 }",
            WidthSchedule::CobolLemma31 { norm_bound: 2.0, sigma: 0.1, delta: 0.2 },
        ),
        (
            "beta = { rule = \"practical\", epsilon = 0.5, form = \"square-root\" }",
            WidthSchedule::Practical { epsilon: 0.5, form: BetaForm::SquareRoot },
        ),
        ("beta = { rule = \"kandasamy\" }", WidthSchedule::Kandasamy),
    ];
    for (text, expected) in cases {
        let got = parse(text).unwrap();
        assert_eq!(got, expected, "{text}");
        // Serialised back, the same table (new spelling) parses to the same schedule.
        let back = toml::to_string(&Holder { beta: got }).unwrap();
        assert!(back.contains(&format!("rule = \"{}\"", got.rule())), "{back}");
        assert_eq!(parse(&back).unwrap(), got, "{back}");
    }
}

#[test]
fn old_spellings_are_rejected_with_the_new_form() {
    let cases = [
        ("beta = { kind = \"experiment\", delta = 0.05 }", "{ rule = \"pfts-experiment\", delta = 0.05 }"),
        ("beta = { kind = \"square_root\" }", "{ rule = \"pfts-square-root\", delta = 0.05 }"),
        (
            "beta = { kind = \"theoretical\", norm_bound = 2.0 }",
            "{ rule = \"theory\", norm_bound = 2.0, delta = 0.05 }",
        ),
        ("beta = { constant = { value = 1.0 } }", "{ rule = \"constant\", value = 1.0 }"),
        ("beta = { sqrt_t = { beta0 = 1.0 } }", "{ rule = \"sqrt-t\", scale = 1.0 }"),
        ("beta = { sqrt_t_plus_one = { beta0 = 0.1 } }", "{ rule = \"sqrt-t-plus-one\", scale = 0.1 }"),
        (
            "beta = { theorem31 = { epsilon = 0.001, delta = 0.05, log_covering = 2.0 } }",
            "{ rule = \"popbo-theorem31\", epsilon = 0.001, delta = 0.05, log_covering = 2.0 }",
        ),
    ];
    for (text, new) in cases {
        let err = parse(text).unwrap_err();
        assert!(err.contains("no longer accepted") && err.contains(new), "{text}: {err}");
    }
    let err = parse("beta = { rule = \"sqrt_t\", scale = 1.0 }").unwrap_err();
    assert!(err.contains("write \"sqrt-t\""), "{err}");
}

#[test]
fn wrong_fields_are_named() {
    let err = parse("beta = { rule = \"constant\", delta = 0.1, value = 1.0 }").unwrap_err();
    assert!(err.contains("takes no `delta`"), "{err}");
    let err = parse("beta = { rule = \"constant\" }").unwrap_err();
    assert!(err.contains("needs `value`"), "{err}");
    let err = parse("beta = { rule = \"magic\" }").unwrap_err();
    assert!(err.contains("unknown width-schedule rule \"magic\""), "{err}");
    let err = parse("beta = { rule = \"constant\", value = 1.0, extra = 2 }").unwrap_err();
    assert!(err.contains("extra"), "{err}");
}

#[test]
fn check_names_fields_relative_to_the_schedule() {
    const ALL: [&str; 7] =
        ["constant", "sqrt-t", "sqrt-t-plus-one", "pfts-experiment", "pfts-square-root", "theory", "popbo-theorem31"];
    let e = |s: WidthSchedule| s.check("a test", &ALL).at("beta").unwrap_err().to_string();
    assert!(e(WidthSchedule::Constant { value: -1.0 }).contains("`beta.value`"));
    assert!(e(WidthSchedule::SqrtT { scale: 0.0 }).contains("`beta.scale`"));
    assert!(e(WidthSchedule::PftsExperiment { delta: 1.0 }).contains("`beta.delta`"));
    assert!(e(WidthSchedule::Theory { norm_bound: f64::NAN, delta: 0.1 }).contains("`beta.norm_bound`"));
    let t31 = WidthSchedule::PopboTheorem31 { epsilon: 0.0, delta: 0.1, log_covering: -1.0 };
    assert!(e(t31).contains("`beta.log_covering`"));
    let zero = WidthSchedule::Constant { value: 0.0 };
    assert_eq!(zero.check("a test", &ALL), Ok(zero));
    let not_here = WidthSchedule::SqrtT { scale: 1.0 }.check("MR-LPF", &["constant", "theory"]);
    let msg = not_here.at("beta").unwrap_err().to_string();
    assert!(msg.contains("`beta.rule`") && msg.contains("\"theory\""), "{msg}");
}

/// The rules folded in from COBOL and COMP-GP-UCB take the defaults those algorithms had: Table 3's
/// B_f = 1, σ = 10⁻⁴, δ = 0.01 for `lemma31`, each key on its own; ε = 10⁻¹² and a multiplier for
/// `practical`.
#[test]
fn folded_rules_take_their_papers_defaults() {
    assert_eq!(parse("beta = { rule = \"lemma31\" }").unwrap(), COBOL_LEMMA31);
    assert_eq!(COBOL_LEMMA31, WidthSchedule::CobolLemma31 { norm_bound: 1.0, sigma: 1e-4, delta: 0.01 });
    assert_eq!(
        parse("beta = { rule = \"lemma31\", sigma = 0.5 }").unwrap(),
        WidthSchedule::CobolLemma31 { norm_bound: 1.0, sigma: 0.5, delta: 0.01 }
    );
    assert_eq!(
        parse("beta = { rule = \"lemma31\", delta = 0.1 }").unwrap(),
        WidthSchedule::CobolLemma31 { norm_bound: 1.0, sigma: 1e-4, delta: 0.1 }
    );
    assert_eq!(parse("beta = { rule = \"practical\" }").unwrap(), COMPGPUCB_PRACTICAL);
    assert_eq!(COMPGPUCB_PRACTICAL, WidthSchedule::Practical { epsilon: 1e-12, form: BetaForm::Multiplier });
    assert_eq!(
        parse("beta = { rule = \"practical\", form = \"square-root\" }").unwrap(),
        WidthSchedule::Practical { epsilon: 1e-12, form: BetaForm::SquareRoot }
    );
    // COMP-GP-UCB's theory is the shared `theory`; δ defaults as for every rule with a δ.
    assert_eq!(
        parse("beta = { rule = \"theory\", norm_bound = 1.0 }").unwrap(),
        WidthSchedule::Theory { norm_bound: 1.0, delta: DEFAULT_DELTA }
    );
    let err = parse("beta = { rule = \"kandasamy\", epsilon = 0.1 }").unwrap_err();
    assert!(err.contains("takes no `epsilon`") && err.contains("its fields: none"), "{err}");
    let err = parse("beta = { rule = \"practical\", sigma = 0.1 }").unwrap_err();
    assert!(err.contains("takes no `sigma`"), "{err}");
    let err = parse("beta = { rule = \"practical\", form = \"cube\" }").unwrap_err();
    assert!(err.contains("multiplier") && err.contains("square-root"), "{err}");
}

/// The norm bound was `b` in COMP-GP-UCB's `theory` and `b_f` in COBOL's `lemma31`; both now write
/// `norm_bound`, and the old keys get an error showing the new table.
#[test]
fn the_old_norm_bound_keys_name_norm_bound() {
    let err = parse("beta = { rule = \"theory\", b = 1.0, delta = 0.1 }").unwrap_err();
    assert!(err.contains("`b = 1.0` is no longer accepted"), "{err}");
    assert!(
        err.contains("`norm_bound = 1.0`") && err.contains("{ rule = \"theory\", norm_bound = 1.0, delta = 0.1 }"),
        "{err}"
    );
    let err = parse("beta = { rule = \"lemma31\", b_f = 2.0 }").unwrap_err();
    assert!(err.contains("`b_f = 2.0` is no longer accepted"), "{err}");
    assert!(err.contains("{ rule = \"lemma31\", norm_bound = 2.0, sigma = 0.0001, delta = 0.01 }"), "{err}");
}

/// Each algorithm's list of rules: a rule outside it is refused at `rule`, naming the accepted ones,
/// and the new rules' parameters are checked (named relative to the schedule).
#[test]
fn check_refuses_rules_outside_the_list_and_the_new_rules_ranges() {
    let cobol = ["lemma31", "constant"];
    let msg = WidthSchedule::Kandasamy.check("COBOL", &cobol).at("beta").unwrap_err().to_string();
    assert!(msg.contains("`beta.rule`") && msg.contains("\"lemma31\", \"constant\""), "{msg}");
    let mf = ["practical", "kandasamy", "constant"];
    let theory = WidthSchedule::Theory { norm_bound: 1.0, delta: 0.1 };
    let msg = theory.check("MF-GP-UCB", &mf).at("beta").unwrap_err().to_string();
    assert!(msg.contains("`beta.rule`") && msg.contains("MF-GP-UCB") && msg.contains("\"kandasamy\""), "{msg}");
    let all = ["lemma31", "practical", "kandasamy"];
    let e = |s: WidthSchedule| s.check("a test", &all).at("beta").unwrap_err().to_string();
    assert!(
        e(WidthSchedule::CobolLemma31 { norm_bound: -1.0, sigma: 1e-4, delta: 0.01 }).contains("`beta.norm_bound`")
    );
    assert!(e(WidthSchedule::CobolLemma31 { norm_bound: 1.0, sigma: 0.0, delta: 0.01 }).contains("`beta.sigma`"));
    assert!(e(WidthSchedule::CobolLemma31 { norm_bound: 1.0, sigma: 1e-4, delta: 1.5 }).contains("`beta.delta`"));
    assert!(e(WidthSchedule::Practical { epsilon: 0.0, form: BetaForm::Multiplier }).contains("`beta.epsilon`"));
    assert_eq!(COBOL_LEMMA31.check("a test", &all), Ok(COBOL_LEMMA31));
    assert_eq!(WidthSchedule::Kandasamy.check("a test", &all), Ok(WidthSchedule::Kandasamy));
}
