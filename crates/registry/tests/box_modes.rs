//! Tests of box problems through the runner: determinism across threads, shards and single runs,
//! the CSV round trip of coordinates, the regret from the known optimum, the bad-input errors of a
//! box spec, and the domain kinds the registry entries declare.

mod support;

use bohf_core::{Answer, BoxDomain, DomainKind, FiniteDomain, Point, Query, SearchContext};
use bohf_experiments::*;
use std::f64::consts::PI;
use support::*;

fn sigmoid(t: f64) -> f64 {
    1.0 / (1.0 + (-t).exp())
}

#[test]
fn box_runs_record_coordinates_and_are_identical_across_threads_shards_and_single_runs() {
    let spec = box_spec();
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    assert!(one.to_csv(Timing::Omit) == two.to_csv(Timing::Omit), "1 and 2 threads differ");
    // Every recorded point is a point of the box, by coordinates.
    let b = BoxDomain::new(vec![-5.0, 0.0], vec![10.0, 15.0]).unwrap();
    for r in one.runs() {
        for s in &r.steps {
            let points = [Some(&s.first), s.second.as_ref(), Some(&s.recommendation)];
            for p in points.into_iter().flatten() {
                let c = p.coords().unwrap_or_else(|| panic!("{}: {p:?} is not by coordinates", r.label));
                assert!(b.contains(c), "{}: {c:?} outside the box", r.label);
            }
            assert!((0.0..=0.5).contains(&s.regret), "{}: r_t = {}", r.label, s.regret);
        }
    }
    // The CSV reads back bit for bit (shortest round-trip coordinates).
    let back = Results::from_csv(spec.clone(), one.title(), &one.to_csv(Timing::Include)).unwrap();
    assert!(back == one, "steps.csv of a box run does not read back");
    // Two shards merged = the whole experiment; a run on its own = the same run in the whole.
    let e = Experiment::new(spec, &registry()).unwrap();
    let mut runs = Vec::new();
    for k in 0..2 {
        runs.extend(e.run_tasks(&e.shard(k, 2).unwrap(), &|_| {}, &|f| panic!("{f}")).runs);
    }
    let merged = Results::new(e.spec().clone(), e.title(), runs).unwrap();
    assert!(merged.to_csv(Timing::Omit) == one.to_csv(Timing::Omit), "merged shards differ");
    let id = RunId { algorithm: 1, run: 2 };
    let alone = e.run_one(id).unwrap();
    let inside = one.runs().iter().find(|r| r.id == id).unwrap();
    assert_eq!(alone.to_csv(Timing::Omit), inside.to_csv(Timing::Omit));
    // Summaries and plots work unchanged.
    let dir = scratch_dir("box-folder");
    let files = write_results(&one, &dir).unwrap();
    assert_eq!(files.plots.len(), 4);
    assert!(one.summary().unwrap().to_json().unwrap().contains("pop-bo"));
}

#[test]
fn regret_on_a_box_comes_from_the_known_optimum() {
    // Branin B(x) = (x₂ − 5.1x₁²/(4π²) + 5x₁/π − 6)² + 10(1 − 1/(8π))cos x₁ + 10, maximised as
    // u = −B on its standard box. At x* = (π, 2.275) the bracket is 2.275 − 1.275 + 5 − 6 = 0 and
    // B(x*) = 10/(8π) = 0.3978873577…; moving x₂ up by 1 makes the bracket 1, so
    // u(x*) − u(π, 3.275) = 1 and the gap is σ(1) − ½.
    let spec = |scaling: &str, scale: f64| {
        ExperimentSpec::from_toml_str(&format!(
            "name = \"r\"\nhorizon = 1\nruns = 1\nalgorithms = [{{ name = \"uniform-box\" }}]\n\
             [problem]\nkind = \"function\"\nfunction = \"branin\"\ndomain = \"box\"\nscaling = {scaling}\n\
             [respondent]\nscale = {scale}\n"
        ))
        .unwrap()
    };
    let s = spec("\"none\"", 1.0);
    let problem = PreparedProblem::build(&s.problem, &s.respondent).unwrap();
    let regret = problem.regret();
    assert_eq!(regret.best(), None);
    // The known optimum of Branin is 0.397887357729738 (minimisation), so u(x*) = −0.3978873577….
    assert!((regret.best_value() + 0.397_887_357_729_738).abs() < 1e-12, "{}", regret.best_value());
    let at = |x: f64, y: f64| Point::continuous(vec![x, y]);
    let gap = regret.instantaneous(&Query::Evaluate(at(PI, 3.275))).unwrap();
    assert!((gap - (sigmoid(1.0) - 0.5)).abs() < 1e-12, "{gap}");
    // The optimiser itself has zero regret (a rounding below u(x*) is clamped); a duel averages.
    assert!(regret.simple(&at(PI, 2.275)).unwrap().abs() < 1e-12);
    let duel = regret.instantaneous(&Query::Duel(at(PI, 2.275), at(PI, 3.275))).unwrap();
    assert!((duel - (sigmoid(1.0) - 0.5) / 2.0).abs() < 1e-12, "{duel}");
    // The scaling and the respondent's scale multiply the difference: 0.5 × 4 = 2.
    let s = spec("{ multiply = 0.5 }", 4.0);
    let problem = PreparedProblem::build(&s.problem, &s.respondent).unwrap();
    let gap = problem.regret().simple(&at(PI, 3.275)).unwrap();
    assert!((gap - (sigmoid(2.0) - 0.5)).abs() < 1e-12, "{gap}");
    // A candidate index means nothing on a box.
    assert!(problem.regret().gap(0).is_err());
    assert!(problem.candidates().is_none() && problem.utility().is_none());
    assert_eq!(problem.shape(), (0, 2));
}

fn box_problem(extra: &str) -> String {
    format!(
        "name = \"x\"\nhorizon = 2\nruns = 1\nalgorithms = [{{ name = \"uniform-box\" }}]\n[problem]\nkind = \
         \"function\"\nfunction = \"branin\"\ndomain = \"box\"\n{extra}"
    )
}

fn error_of(text: &str) -> ExperimentError {
    let s = ExperimentSpec::from_toml_str(text).unwrap();
    let e = s.validate(&registry()).unwrap_err();
    assert!(e.to_string().contains(e.field().unwrap_or("?")), "{e}");
    e
}

#[test]
fn bad_boxes_are_refused_naming_the_field() {
    for (extra, field, words) in [
        ("lower = [1.0, 0.0]\nupper = [1.0, 15.0]", "problem.upper[0]", "must exceed lower[0] = 1"),
        ("lower = [-5.0, 3.0]\nupper = [10.0, 2.0]", "problem.upper[1]", "must exceed lower[1] = 3"),
        ("lower = [-5.0, nan]\nupper = [10.0, 15.0]", "problem.lower[1]", "must be finite, got NaN"),
        ("lower = [-5.0, 0.0]\nupper = [inf, 15.0]", "problem.upper[0]", "must be finite, got inf"),
        ("lower = [-5.0, 0.0, 0.0]\nupper = [10.0, 15.0, 1.0]", "problem.lower", "has dimension 2"),
        ("lower = [-5.0, 0.0]\nupper = [10.0]", "problem.upper", "has dimension 2"),
        ("lower = [-5.0, 0.0]", "problem.lower", "both"),
        ("points_per_dim = 7", "problem.points_per_dim", "no grid"),
        // Every scaling is allowed on a box (computed from fixed draws); a bad one is named.
        ("scaling = { multiply = -1.0 }", "problem.scaling.multiply", "multiply"),
        // A box that is not a sub-box of Branin's: its optimum there is not known.
        ("lower = [-6.0, 0.0]\nupper = [10.0, 15.0]", "problem.function", "no known optimum"),
        // A sub-box without any of the three optimisers.
        ("lower = [5.0, 5.0]\nupper = [6.0, 6.0]", "problem.function", "no known optimum"),
    ] {
        let e = error_of(&box_problem(extra));
        assert_eq!(e.field(), Some(field), "{extra}: {e}");
        assert!(e.to_string().contains(words), "{extra}: {e}");
    }
    // A dimension that differs from the function's: ackley with dim = 3 on a 2-D box.
    let text = box_problem("dim = 3\nlower = [0.0, 0.0]\nupper = [1.0, 1.0]").replace("branin", "ackley");
    let e = error_of(&text);
    assert_eq!(e.field(), Some("problem.lower"), "{e}");
    assert!(e.to_string().contains("`ackley` has dimension 3"), "{e}");
    // The same bounds are checked on a grid problem too.
    let grid = box_problem("lower = [1.0, 0.0]\nupper = [0.0, 15.0]").replace("domain = \"box\"\n", "");
    let grid = grid.replace("uniform-box", "uniform");
    assert_eq!(error_of(&grid).field(), Some("problem.upper[0]"));
    // A good box problem passes, and so does the example in docs/examples.
    ExperimentSpec::from_toml_str(&box_problem("lower = [0.0, 0.0]\nupper = [10.0, 15.0]"))
        .unwrap()
        .validate(&registry())
        .unwrap();
    let example =
        ExperimentSpec::from_file(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/box-branin.toml"));
    example.unwrap().validate(&bohf_registry::builtin()).unwrap();
}

#[test]
fn an_algorithm_on_the_wrong_kind_of_domain_names_both() {
    // A finite-only algorithm on a box, through the spec.
    let e = error_of(&box_problem("").replace("uniform-box", "mr-lpf"));
    assert_eq!(e.field(), Some("algorithms[0].name"), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("`mr-lpf` works on a finite candidate set only; the problem is a box [-5, 10] × [0, 15]"),
        "{msg}"
    );
    // A box-only algorithm on a candidate set.
    let e = error_of(
        &SMALL.replace("name = \"uniform\"", "name = \"uniform-box\"").replace("params = { self_duel = 0.1 }", ""),
    );
    assert_eq!(e.field(), Some("algorithms[0].name"), "{e}");
    assert!(e.to_string().contains("`uniform-box` works on a box only; the problem is a finite candidate set"), "{e}");
    // Building directly from a context of the wrong kind: the error names `domain`, the algorithm
    // and the domain.
    let r = registry();
    let cube = SearchContext::new(BoxDomain::cube(0.0, 1.0, 2).unwrap(), 3).unwrap();
    let e = r.get("pf-ts").unwrap().build(&cube, &toml::Table::new()).err().unwrap().to_string();
    assert!(
        e.contains("`domain`")
            && e.contains("`pf-ts` works on a finite candidate set only")
            && e.contains("a box [0, 1] × [0, 1]"),
        "{e}"
    );
    let grid = SearchContext::new(FiniteDomain::linspace(0.0, 1.0, 4).unwrap(), 3).unwrap();
    let e = r.get("uniform-box").unwrap().build(&grid, &toml::Table::new()).err().unwrap().to_string();
    assert!(e.contains("works on a box only; the problem is a finite candidate set of 4 points"), "{e}");
    // pop-bo declares both kinds, each with its own config type.
    let popbo = r.get("pop-bo").unwrap();
    assert_eq!(popbo.kinds(), vec![DomainKind::Finite, DomainKind::Box]);
    assert_eq!(popbo.config_type_for(DomainKind::Box), Some("BoxModeConfig"));
    let gp_ucb = r.get("gp-ucb").unwrap();
    assert_eq!(gp_ucb.kinds(), vec![DomainKind::Finite, DomainKind::Box]);
    assert!(gp_ucb.build(&grid, &toml::Table::new()).is_ok() && gp_ucb.build(&cube, &toml::Table::new()).is_ok());
    assert_eq!(popbo.config_type(), Some("PopBoConfig"));
    assert!(popbo.build(&grid, &toml::Table::new()).is_ok() && popbo.build(&cube, &toml::Table::new()).is_ok());
    let defaults = popbo.default_params_for(DomainKind::Box).unwrap();
    assert!(defaults.contains_key("box_search"), "{defaults:?}");
    popbo.check_for(DomainKind::Box, "a box", &defaults, "name", "params").unwrap();
}

#[test]
fn box_mode_params_are_checked_naming_the_field() {
    let base = box_spec().to_toml_string().unwrap();
    let with = |from: &str, to: &str| {
        assert!(base.contains(from), "{from} not in {base}");
        error_of(&base.replace(from, to))
    };
    let e = with("starts = 2", "starts = 0");
    assert_eq!(e.field(), Some("algorithms[1].params.box_search.starts"), "{e}");
    let e = with("starts = 2", "starts = 10001");
    assert_eq!(e.field(), Some("algorithms[1].params.box_search.starts"), "{e}");
    assert!(e.to_string().contains("at most 10000"), "{e}");
    // samples × d is bounded when the algorithm is built for the box (Experiment::new).
    let s = ExperimentSpec::from_toml_str(&base.replace("samples = 40", "samples = 5000001")).unwrap();
    s.validate(&registry()).unwrap();
    let e = Experiment::new(s, &registry()).unwrap_err();
    assert_eq!(e.field(), Some("algorithms[1].params.box_search.samples"), "{e}");
    let e = with("norm_bound = 3.0", "norm_bound = -1.0");
    assert_eq!(e.field(), Some("algorithms[1].params.confidence.norm_bound"), "{e}");
    // `box_search` means nothing on a candidate set: POP-BO's finite config refuses the key.
    let text = SMALL
        .replace("name = \"uniform\"", "name = \"pop-bo\"")
        .replace("params = { self_duel = 0.1 }", "params = { box_search = { starts = 2 } }");
    let e = error_of(&text);
    assert!(e.field().unwrap().starts_with("algorithms[0].params"), "{e}");
    assert!(e.to_string().contains("box_search"), "{e}");
    // Learned hyperparameters: an invalid table names its field; a start outside the bounds is
    // refused when the algorithm is built; on a candidate set GP-UCB accepts the table.
    let e = with("refit_every = 2", "refit_every = 0");
    assert_eq!(e.field(), Some("algorithms[3].params.hyperparameters.refit_every"), "{e}");
    let s = ExperimentSpec::from_toml_str(&BOX.replace("screen = 4", "screen = 4, lengthscale_bounds = [0.5, 5.0]"))
        .unwrap();
    let e = Experiment::new(s, &registry()).unwrap_err();
    assert_eq!(e.field(), Some("algorithms[3].params.hyperparameters.lengthscale_bounds"), "{e}");
    let grid = "name = \"g\"\nhorizon = 2\nruns = 1\n[problem]\nkind = \"function\"\nfunction = \"branin\"\n\
                points_per_dim = 5\n[[algorithms]]\nname = \"gp-ucb\"\nparams = { hyperparameters = {} }\n";
    Experiment::new(ExperimentSpec::from_toml_str(grid).unwrap(), &registry()).unwrap();
}

#[test]
fn observe_refuses_a_point_outside_the_box() {
    let r = registry();
    let ctx = SearchContext::new(BoxDomain::cube(0.0, 1.0, 2).unwrap(), 3).unwrap();
    let inside = Point::continuous(vec![0.5, 0.5]);
    let outside = Point::continuous(vec![0.5, 1.5]);
    let win = Answer::Duel { first_wins: true };
    for name in ["pop-bo", "uniform-box"] {
        let mut opt = r.get(name).unwrap().build(&ctx, &toml::Table::new()).unwrap();
        let e = opt.observe(&Query::Duel(inside.clone(), outside.clone()), win).unwrap_err().to_string();
        assert!(e.contains("`query`") && e.contains("outside the box"), "{name}: {e}");
    }
    let mut gp_ucb = r.get("gp-ucb").unwrap().build(&ctx, &toml::Table::new()).unwrap();
    let e = gp_ucb.observe(&Query::Evaluate(outside), Answer::Value(1.0)).unwrap_err().to_string();
    assert!(e.contains("outside"), "gp-ucb: {e}");
}

/// Results whose points are of the other kind than the problem's domain (an index on a box,
/// coordinates on a candidate set, e.g. a hand-edited steps file) are refused, naming the run.
#[test]
fn results_refuse_points_of_the_wrong_kind_for_the_domain() {
    let spec = box_spec();
    let one = run_with_threads(&spec, 1);
    let mut runs = one.runs().to_vec();
    runs[1].steps[2].recommendation = PointRecord::Candidate(3);
    let e = Results::new(spec.clone(), "x", runs).unwrap_err().to_string();
    assert!(e.contains("step 3") && e.contains("candidate index") && e.contains("a box"), "{e}");
    let small = small_spec();
    let finite = run_with_threads(&small, 1);
    let mut runs = finite.runs().to_vec();
    runs[0].steps[0].first = PointRecord::Coords(vec![0.5]);
    let e = Results::new(small, "x", runs).unwrap_err().to_string();
    assert!(e.contains("given by coordinates") && e.contains("finite candidate set"), "{e}");
}

/// Issue 33, item 13, the issue's exact case: EUBO with one initial duel on Branin over POP-BO's
/// box shrunk by 1e-6. Its unit-cube proposals used to round past the upper bound
/// (`[9.999999000000003, 1e-6]` at run 0, step 2) and the run stopped with "the second point … is
/// outside the box"; every proposal now lies in the box.
#[test]
fn eubo_on_a_shrunk_box_proposes_only_points_of_the_box() {
    let spec = ExperimentSpec::from_toml_str(
        r#"
name = "eubo-shrunk-box"
horizon = 4
runs = 2
seed = 1
initial_duels = 1
[problem]
kind = "function"
function = "branin"
domain = "box"
lower = [-4.999999, 1e-6]
upper = [9.999999, 14.999999]
[[algorithms]]
name = "eubo"
"#,
    )
    .unwrap();
    let results = run_with_threads(&spec, 1);
    assert!(results.failures().is_empty(), "{:?}", results.failures());
    let b = BoxDomain::new(vec![-4.999999, 1e-6], vec![9.999999, 14.999999]).unwrap();
    for r in results.runs() {
        assert_eq!(r.steps.len(), 4);
        for s in &r.steps {
            for p in [Some(&s.first), s.second.as_ref()].into_iter().flatten() {
                assert!(b.contains(p.coords().unwrap()), "{p:?} outside the box");
            }
        }
    }
}
