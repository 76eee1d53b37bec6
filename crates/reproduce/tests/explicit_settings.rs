//! The papers' presets state the settings they were run with (issue 34, item 1): since the problem
//! defaults changed to inputs on the unit cube and standardised utilities (`docs/experiments.md`,
//! "Defaults that learn"), a preset that relied on a default would now run differently from its
//! committed report. Every spec under `specs/`, `specs/leaderboard/` and the sensitivity checks of
//! `docs/reproduction/sensitivity/` with a `[problem]` table must say `inputs = "raw"` and, for the
//! general kinds (`function`, `catalyst`), its `scaling`.

use std::path::Path;

#[test]
fn every_preset_states_its_inputs_and_scaling() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
    let mut checked = 0;
    let sensitivity = root.join("../docs/reproduction/sensitivity");
    for dir in [root.clone(), root.join("leaderboard"), sensitivity] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let table: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
            // POP-BO's Table 2 has its own schema (`[[functions]]`), not an experiment's problem.
            let Some(problem) = table.get("problem").and_then(|p| p.as_table()) else { continue };
            let name = path.display();
            assert_eq!(problem.get("inputs").and_then(|v| v.as_str()), Some("raw"), "{name}: `inputs = \"raw\"`");
            let kind = problem.get("kind").and_then(|v| v.as_str()).unwrap();
            if matches!(kind, "function" | "catalyst") {
                assert!(problem.contains_key("scaling"), "{name}: a {kind} problem states its `scaling`");
            }
            // And the parsed spec agrees.
            let spec = bohf_experiments::ExperimentSpec::from_file(&path).unwrap();
            assert_eq!(spec.problem.inputs(), bohf_experiments::Inputs::Raw, "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 46, "only {checked} presets found");
}
