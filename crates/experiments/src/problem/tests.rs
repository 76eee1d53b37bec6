//! Tests of problem preparation from a spec.

use crate::test_support::*;
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
