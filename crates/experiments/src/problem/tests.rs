//! Tests of problem preparation from a spec.

use crate::testing::*;
use crate::*;
use std::path::PathBuf;

fn ocx24_path() -> PathBuf {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/ocx24/ExpDataDump_241113_clean.csv");
    assert!(
        p.is_file(),
        "the OCx24 data file is missing: expected it at {} (the `shared/` folder beside the checkout)",
        p.display()
    );
    p
}

#[test]
fn catalyst_problem_from_the_real_file() {
    let text = format!(
        "name = \"cat\"\nhorizon = 5\nruns = 2\nalgorithms = [{{ name = \"uniform\" }}]\n[problem]\nkind = \"catalyst\"\npath = {:?}\n",
        ocx24_path().display().to_string()
    );
    let e = Experiment::new(ExperimentSpec::from_toml_str(&text).unwrap(), &registry()).unwrap();
    assert_eq!(e.problem().candidates().unwrap().len(), 60);
    assert_eq!(e.problem().domain().dim(), 3);
    assert!(e.title().contains("60 Ag/Au/Zn compositions"), "{}", e.title());
    let r = e.run().unwrap();
    assert_eq!(r.runs().len(), 2);
}

/// A CurrinExp grid spec (6 × 6) with `respondent` lines and `scaling`.
fn currin_spec(respondent: &str, scaling: &str) -> String {
    format!(
        "name = \"c\"\nhorizon = 3\nruns = 1\nalgorithms = [{{ name = \"uniform\" }}]\n[problem]\nkind = \"function\"\n\
         function = \"currin_exp\"\npoints_per_dim = 6\nscaling = {scaling}\n[respondent]\n{respondent}\n"
    )
}

/// (f, f_c) at candidate `i`, from the published formulas (independently of the runner).
fn currin_values(e: &Experiment, i: usize) -> (f64, f64) {
    use bohf_problems::functions::CurrinExp;
    let x = e.problem().candidates().unwrap().coords(i).unwrap();
    (CurrinExp::high(x[0], x[1]), CurrinExp::low(x[0], x[1]))
}

/// Two candidates that f and f_c order oppositely, f(a) > f(b) and f_c(a) < f_c(b), the pair with
/// the largest f_c difference.
fn disagreeing_pair(e: &Experiment) -> (usize, usize) {
    let n = e.problem().candidates().unwrap().len();
    let mut best = None;
    for a in 0..n {
        for b in 0..n {
            let ((fa, ca), (fb, cb)) = (currin_values(e, a), currin_values(e, b));
            if fa > fb && ca < cb && best.is_none_or(|(_, _, d)| cb - ca > d) {
                best = Some((a, b, cb - ca));
            }
        }
    }
    let (a, b, _) = best.expect("CurrinExp's fidelities disagree somewhere on a 6 × 6 grid");
    (a, b)
}

#[test]
fn low_fidelity_comparisons_answer_duels_from_f_c_and_values_from_f() {
    use bohf_core::{Answer, Query, rng};
    use bohf_problems::Respondent;
    let spec = currin_spec("model = \"deterministic\"\nnoise_sd = 0.0\ncomparisons = \"low-fidelity\"", "\"none\"");
    let e = Experiment::new(ExperimentSpec::from_toml_str(&spec).unwrap(), &registry()).unwrap();
    assert!(e.title().contains("low fidelity"), "{}", e.title());
    let (a, b) = disagreeing_pair(&e);
    let c = e.problem().candidates().unwrap();
    let (pa, pb) = (c.point(a).unwrap(), c.point(b).unwrap());
    let mut r = e.problem().respondent().unwrap();
    let mut g = rng::seeded(3);
    // Deterministic duels follow f_c: b wins every time although f prefers a.
    for _ in 0..50 {
        assert_eq!(r.answer(&Query::Duel(pa.clone(), pb.clone()), &mut g).unwrap(), Answer::Duel { first_wins: false });
    }
    // Values are f, noiseless.
    assert_eq!(r.answer(&Query::Evaluate(pa.clone()), &mut g).unwrap(), Answer::Value(currin_values(&e, a).0));
    // The regret stays on f: x* is f's argmax on the grid, not f_c's.
    let n = c.len();
    let argmax = |k: usize| {
        (0..n).max_by(|&i, &j| {
            let (vi, vj) = (currin_values(&e, i), currin_values(&e, j));
            let (x, y) = if k == 0 { (vi.0, vj.0) } else { (vi.1, vj.1) };
            x.total_cmp(&y).then(j.cmp(&i))
        })
    };
    assert_eq!(e.problem().regret().best(), argmax(0));
    assert_eq!(e.problem().regret().best_value(), currin_values(&e, argmax(0).unwrap()).0);

    // The default source answers from f: a wins.
    let same = currin_spec("model = \"deterministic\"\nnoise_sd = 0.0", "\"none\"");
    let e2 = Experiment::new(ExperimentSpec::from_toml_str(&same).unwrap(), &registry()).unwrap();
    let mut r2 = e2.problem().respondent().unwrap();
    assert_eq!(r2.answer(&Query::Duel(pa, pb), &mut g).unwrap(), Answer::Duel { first_wins: true });
}

#[test]
fn btl_low_fidelity_comparisons_use_f_c_differences_on_f_scale() {
    use bohf_core::{Answer, Query, rng};
    use bohf_problems::Respondent;
    // scaling ×0.25 then respondent scale 2: P(a ≻ b) = σ(0.5·(f_c(a) − f_c(b))).
    let spec = currin_spec(
        "model = \"stochastic\"\nlink = \"logistic\"\nscale = 2.0\ncomparisons = \"low-fidelity\"",
        "{ multiply = 0.25 }",
    );
    let e = Experiment::new(ExperimentSpec::from_toml_str(&spec).unwrap(), &registry()).unwrap();
    let c = e.problem().candidates().unwrap();
    // Among the pairs with f_c difference in [1, 3] (P ∈ [0.62, 0.82]), the one where f's difference
    // is furthest from f_c's, so that answering from f would show.
    let n = c.len();
    let (a, b) = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|&(a, b)| (1.0..=3.0).contains(&(currin_values(&e, a).1 - currin_values(&e, b).1)))
        .max_by(|&(a, b), &(x, y)| {
            let d = |i, j| {
                let ((fi, ci), (fj, cj)) = (currin_values(&e, i), currin_values(&e, j));
                ((fi - fj) - (ci - cj)).abs()
            };
            d(a, b).total_cmp(&d(x, y))
        })
        .unwrap();
    let (fa, ca) = currin_values(&e, a);
    let (fb, cb) = currin_values(&e, b);
    let want = 1.0 / (1.0 + (-0.5 * (ca - cb)).exp());
    let from_f = 1.0 / (1.0 + (-0.5 * (fa - fb)).exp());
    assert!((want - from_f).abs() > 0.03, "f and f_c give {from_f} and {want}");
    let q = Query::Duel(c.point(a).unwrap(), c.point(b).unwrap());
    let mut r = e.problem().respondent().unwrap();
    let mut g = rng::seeded(8);
    let n = 20_000;
    let hits = (0..n).filter(|_| r.answer(&q, &mut g).unwrap() == Answer::Duel { first_wins: true }).count();
    let p = hits as f64 / n as f64;
    // 5 standard errors of a frequency.
    assert!((p - want).abs() < 5.0 * (want * (1.0 - want) / n as f64).sqrt(), "{p} vs {want}");
}

#[test]
fn low_fidelity_comparisons_need_a_two_fidelity_function() {
    let bad = |problem: &str| {
        let text = format!(
            "name = \"c\"\nhorizon = 3\nruns = 1\nalgorithms = [{{ name = \"uniform\" }}]\n[problem]\n{problem}\n\
             [respondent]\ncomparisons = \"low-fidelity\"\n"
        );
        Experiment::new(ExperimentSpec::from_toml_str(&text).unwrap(), &registry()).err().unwrap().to_string()
    };
    let e = bad("kind = \"function\"\nfunction = \"branin\"");
    assert!(e.contains("respondent.comparisons") && e.contains("branin"), "{e}");
    let e = bad("kind = \"rkhs\"\npoints = 10");
    assert!(e.contains("respondent.comparisons") && e.contains("currin_exp"), "{e}");
    // An unknown value names the allowed ones.
    let text = currin_spec("comparisons = \"medium\"", "\"none\"");
    let e = ExperimentSpec::from_toml_str(&text).err().unwrap().to_string();
    assert!(e.contains("medium") && e.contains("low-fidelity"), "{e}");
}

/// A Branin spec on its 10 × 10 grid with `problem` lines added.
fn branin_spec(problem: &str) -> Experiment {
    let text = format!(
        "name = \"b\"\nhorizon = 3\nruns = 1\nalgorithms = [{{ name = \"uniform\" }}]\n[problem]\nkind = \"function\"\n\
         function = \"branin\"\n{problem}\n"
    );
    Experiment::new(ExperimentSpec::from_toml_str(&text).unwrap(), &registry()).unwrap()
}

/// The default of a `function` problem: the utility standardised over the grid (mean 0, population
/// standard deviation 1, computed here from Branin's published formula), candidates searched on
/// the unit cube and recorded in Branin's box.
#[test]
fn a_function_grid_is_standardised_and_searched_on_the_unit_cube_by_default() {
    let e = branin_spec("");
    let grid = e.problem().candidates().unwrap();
    let branin = |x: &[f64]| {
        let (a, b, c) = (1.0, 5.1 / (4.0 * std::f64::consts::PI.powi(2)), 5.0 / std::f64::consts::PI);
        let (r, s, t) = (6.0, 10.0, 1.0 / (8.0 * std::f64::consts::PI));
        -(a * (x[1] - b * x[0] * x[0] + c * x[0] - r).powi(2) + s * (1.0 - t) * x[0].cos() + s)
    };
    let raw: Vec<f64> = (0..grid.len()).map(|i| branin(&grid.coords(i).unwrap())).collect();
    let n = raw.len() as f64;
    let mean = raw.iter().sum::<f64>() / n;
    let sd = (raw.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
    let u = e.problem().utility().unwrap().values();
    for (v, r) in u.iter().zip(&raw) {
        assert!((v - (r - mean) / sd).abs() < 1e-9, "{v} vs {}", (r - mean) / sd);
    }
    let map = e.problem().utility_map();
    assert!((map.scale - 1.0 / sd).abs() < 1e-12 && (map.shift + mean / sd).abs() < 1e-9, "{map:?}");
    // The problem's coordinates are Branin's box; the algorithms see [0, 1]² with step 1/9.
    assert_eq!(grid.coords(0).unwrap(), vec![-5.0, 0.0]);
    let bohf_core::Domain::Finite(seen) = e.problem().search_domain() else { panic!() };
    assert_eq!(seen.coords(0).unwrap(), vec![0.0, 0.0]);
    assert_eq!(seen.coords(99).unwrap(), vec![1.0, 1.0]);
    assert!((seen.coords(1).unwrap()[1] - 1.0 / 9.0).abs() < 1e-15);
    // Raw inputs and no scaling: the old behaviour, the search domain is the grid itself.
    let old = branin_spec("inputs = \"raw\"\nscaling = \"none\"");
    assert_eq!(old.problem().search_domain(), old.problem().domain());
    for (v, r) in old.problem().utility().unwrap().values().iter().zip(&raw) {
        assert!((v - r).abs() < 1e-12);
    }
}

/// A box problem: the scaling comes from 4096 fixed draws, so the standardised utility's mean over
/// a fresh independent sample is near 0 and its standard deviation near 1 (s.e. about 1/√4096 and
/// 1/√(2·4096) for the draws, plus the new sample's).
#[test]
fn a_box_problem_is_standardised_over_fixed_draws() {
    // The test registry has no box mode: the problem alone.
    let on_box = || {
        let text = "name = \"b\"\nhorizon = 3\nruns = 1\nalgorithms = []\n[problem]\nkind = \"function\"\n\
                    function = \"branin\"\ndomain = \"box\"\n";
        let spec = ExperimentSpec::from_toml_str(text).unwrap();
        PreparedProblem::build(&spec.problem, &spec.respondent).unwrap()
    };
    let p = on_box();
    let a = p.utility_map();
    assert_eq!(on_box().utility_map(), a, "the same for every build");
    let bohf_core::Domain::Box(b) = p.domain() else { panic!() };
    let mut rng = bohf_core::rng::seeded(99);
    let f = bohf_problems::by_name("branin", None).unwrap();
    let v: Vec<f64> = (0..20_000).map(|_| a.apply(f.value(&b.sample(&mut rng)).unwrap())).collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    assert!(mean.abs() < 0.05 && (sd - 1.0).abs() < 0.05, "mean {mean}, sd {sd}");
    let bohf_core::Domain::Box(seen) = p.search_domain() else { panic!() };
    assert_eq!((seen.lower(), seen.upper()), (&[0.0, 0.0][..], &[1.0, 1.0][..]));
    // The range the warnings use: the known optimum is its top (Branin's −0.397887 standardised).
    let (_, hi) = p.utility_range().unwrap();
    assert!((hi - a.apply(-0.397_887_357_729_738)).abs() < 1e-6, "{hi}");
}
