//! Defaults that learn (issue 34, item 1): the first spec of `docs/examples/first-spec.toml` is
//! checked without warnings and runs (small); the settings that made it learn nothing (raw inputs
//! with the default lengthscale, an unscaled utility) are valid but warned about by `bohf check`;
//! a box problem searched on the unit cube records its points in the box's own coordinates.

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::TempDir;

const FIRST: &str = include_str!("../../../docs/examples/first-spec.toml");

fn bohf(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bohf")).args(args).current_dir(dir).output().expect("the binary runs")
}

fn ok(args: &[&str], dir: &Path) -> String {
    let out = bohf(args, dir);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The first spec with `extra` lines added to its `[problem]` table.
fn with_problem(extra: &str) -> String {
    FIRST.replace("points_per_dim = 10\n", &format!("points_per_dim = 10\n{extra}"))
}

#[test]
fn the_first_spec_checks_clean_and_the_old_defaults_are_warned_about() {
    let tmp = TempDir::new("first-check");
    std::fs::write(tmp.join("first.toml"), FIRST).unwrap();
    let out = ok(&["check", "first.toml"], &tmp.0);
    assert!(out.contains("candidates: 100") && !out.contains("warning"), "{out}");

    // Raw coordinates: Branin's grid steps are 15/9 = 1.67 in both coordinates, the default
    // lengthscale 0.1 is far below half of that for pf-ts and pop-bo; eubo maps the candidates
    // onto the unit cube itself (spacing 1/9: 0.1 is not below half of it).
    std::fs::write(tmp.join("raw.toml"), with_problem("inputs = \"raw\"\n")).unwrap();
    let out = ok(&["check", "raw.toml"], &tmp.0);
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    for (i, l) in [0, 2].into_iter().zip(lines) {
        assert!(
            l.contains(&format!("algorithms[{i}].params"))
                && l.contains("lengthscale 0.1 (default)")
                && l.contains("1.667"),
            "{l}"
        );
    }
    // An explicit lengthscale of the spacing's order is not warned about, and is named as set.
    let set = with_problem("inputs = \"raw\"\n").replace(
        "name = \"pf-ts\"\n",
        "name = \"pf-ts\"\n[algorithms.params.inference.kernel]\nkind = \"matern52\"\nlengthscale = 3.0\n",
    );
    std::fs::write(tmp.join("set.toml"), set).unwrap();
    let out = ok(&["check", "set.toml"], &tmp.0);
    assert!(!out.contains("algorithms[0]") && !out.contains("algorithms[1]") && out.contains("algorithms[2]"), "{out}");
    // Fine lengthscales on the unit cube are warned about too (spacing 1/9 = 0.111).
    let fine = FIRST.replace(
        "name = \"pf-ts\"\n",
        "name = \"pf-ts\"\n[algorithms.params.inference.kernel]\nkind = \"matern52\"\nlengthscales = [0.05, 0.2]\n",
    );
    std::fs::write(tmp.join("fine.toml"), fine).unwrap();
    let out = ok(&["check", "fine.toml"], &tmp.0);
    assert!(out.contains("lengthscale 0.05 is below half the candidates' spacing 0.111 in coordinate 0"), "{out}");

    // The unscaled utility: Branin on this grid spans from about −308 to −0.5 (maximising −f), a
    // range of about 308 ≫ 20 on the respondent's scale 1.
    std::fs::write(tmp.join("none.toml"), with_problem("scaling = \"none\"\n")).unwrap();
    let out = ok(&["check", "none.toml"], &tmp.0);
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].contains("`problem.scaling`") && lines[0].contains("practically deterministic"), "{out}");
    let span: f64 = lines[0].split("spans ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!((250.0..320.0).contains(&span), "{span}");
    // A tiny utility: every answer a coin flip.
    std::fs::write(tmp.join("tiny.toml"), with_problem("scaling = { multiply = 1e-4 }\n")).unwrap();
    let out = ok(&["check", "tiny.toml"], &tmp.0);
    assert!(out.contains("coin flip"), "{out}");
}

#[test]
fn the_first_spec_runs_small() {
    let tmp = TempDir::new("first-run");
    std::fs::write(
        tmp.join("first.toml"),
        FIRST.replace("horizon = 60", "horizon = 6").replace("runs = 20", "runs = 2"),
    )
    .unwrap();
    ok(&["run", "first.toml", "--out", "out"], &tmp.0);
    let steps = std::fs::read_to_string(tmp.join("out/steps.csv")).unwrap();
    // 4 algorithms × 2 runs × 6 steps, candidates recorded by index (0..100).
    let rows: Vec<Vec<&str>> =
        steps.lines().skip(1).filter(|l| !l.starts_with('#')).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4 * 2 * 6);
    for r in &rows {
        let i: usize = r[9].parse().unwrap_or_else(|_| panic!("a candidate index: {r:?}"));
        assert!(i < 100);
    }
}

/// Issue 34's must-show on the first spec as shipped (20 runs, T = 60, defaults only): every
/// algorithm's cumulative regret R(60) is below random duels' by more than 2 s.e. of the difference,
/// and PF-TS's R(60) is at most 10. (About 10 s of a release build.)
#[test]
fn the_first_spec_learns() {
    let tmp = TempDir::new("first-learns");
    std::fs::write(tmp.join("first.toml"), FIRST).unwrap();
    ok(&["run", "first.toml", "--out", "out"], &tmp.0);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.join("out/summary.json")).unwrap()).unwrap();
    let at = |label: &str| -> (f64, f64) {
        let a = summary["algorithms"].as_array().unwrap().iter().find(|a| a["label"] == label).unwrap();
        let c = &a["at_horizon"]["cumulative"];
        (c["mean"].as_f64().unwrap(), c["se"].as_f64().unwrap())
    };
    let (random, random_se) = at("random");
    for label in ["pf-ts", "eubo", "pop-bo"] {
        let (r, se) = at(label);
        let margin = (se * se + random_se * random_se).sqrt();
        assert!(random - r > 2.0 * margin, "{label}: R(60) {r} ± {se} vs random {random} ± {random_se}");
    }
    assert!(at("pf-ts").0 <= 10.0, "PF-TS R(60) = {}", at("pf-ts").0);
}

/// A box problem on the unit cube: the algorithms search [0, 1]², the records hold points of
/// Branin's box [−5, 10] × [0, 15]. Were unit-cube coordinates recorded, no x₁ would be negative;
/// of 3 runs × 4 steps of uniform-ish points, a third of the box has x₁ < 0.
#[test]
fn a_box_searched_on_the_unit_cube_records_the_boxs_coordinates() {
    let tmp = TempDir::new("first-box");
    let example = include_str!("../../../docs/examples/box-branin.toml");
    std::fs::write(tmp.join("box.toml"), example.replace("horizon = 8", "horizon = 4")).unwrap();
    ok(&["run", "box.toml", "--out", "out"], &tmp.0);
    let steps = std::fs::read_to_string(tmp.join("out/steps.csv")).unwrap();
    let header: Vec<&str> = steps.lines().next().unwrap().split(',').collect();
    let cols: Vec<usize> =
        ["first", "second", "recommendation"].iter().map(|c| header.iter().position(|h| h == c).unwrap()).collect();
    let mut x1 = Vec::new();
    for line in steps.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let r: Vec<&str> = line.split(',').collect();
        for &k in &cols {
            if r[k].is_empty() {
                continue;
            }
            let x: Vec<f64> = r[k].split(';').map(|v| v.parse().unwrap()).collect();
            assert!((-5.0..=10.0).contains(&x[0]) && (0.0..=15.0).contains(&x[1]), "{x:?} outside the box");
            x1.push(x[0]);
        }
    }
    assert!(x1.len() >= 24 && x1.iter().any(|&v| v < 0.0), "{x1:?}");
}
