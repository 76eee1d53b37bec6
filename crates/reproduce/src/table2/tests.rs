use super::*;

fn workspace_spec() -> (String, std::path::PathBuf) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs/popbo-table2.toml");
    (std::fs::read_to_string(&path).unwrap(), path)
}

#[test]
fn the_workspace_spec_holds_the_authors_settings() {
    let (text, path) = workspace_spec();
    let spec = Table2Spec::parse(&text, &path).unwrap();
    let names: Vec<&str> = spec.functions.iter().map(|f| f.function.as_str()).collect();
    assert_eq!(names, ["beale", "branin", "bukin6", "cross_in_tray", "eggholder", "holder_table", "levy13"]);
    // Branin (notes 001 §5.2 [R]): ℓ = 10, B = 10, β₀ = 10, latent box 3, nugget 1e-6.
    let c = spec.config(1).unwrap();
    assert_eq!(c.inference.kernel.lengthscales.as_deref(), Some(&[10.0, 10.0][..]));
    assert_eq!((c.confidence.norm_bound, c.confidence.latent_box, c.confidence.nugget), (10.0, Some(3.0), 1e-6));
    assert_eq!(c.beta, WidthSchedule::SqrtTPlusOne { scale: 10.0 });
}

#[test]
fn the_box_spec_is_the_grid_spec_over_the_box() {
    let (text, path) = workspace_spec();
    let grid = Table2Spec::parse(&text, &path).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs/popbo-table2-box.toml");
    let boxed = Table2Spec::parse(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
    // Same rows, settings, paper values and seeds; only the search differs.
    assert_eq!(boxed.functions, grid.functions);
    assert_eq!((boxed.runs, boxed.steps, boxed.seed), (grid.runs, grid.steps, grid.seed));
    assert_eq!(boxed.box_search, Some(BoxSearchConfig { starts: 4, climbs: 4, ..BoxSearchConfig::default() }));
    assert!(grid.box_search.is_none());
    let bad = std::fs::read_to_string(&path).unwrap().replacen("starts = 4", "starts = 0", 1);
    let e = Table2Spec::parse(&bad, &path).unwrap_err();
    assert!(e.field().is_some_and(|f| f.starts_with("box_search")) && e.to_string().contains("starts"), "{e}");
}

#[test]
fn box_runs_are_deterministic_with_finite_suboptimality() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs/popbo-table2-box.toml");
    let mut spec = Table2Spec::parse(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
    spec.functions.truncate(2);
    spec.steps = 4;
    let a = run_table2(&spec, 2).unwrap();
    let b = run_table2(&spec, 2).unwrap();
    assert_eq!(
        a.iter().map(|r| (r.mean, r.std)).collect::<Vec<_>>(),
        b.iter().map(|r| (r.mean, r.std)).collect::<Vec<_>>()
    );
    // Reported points are in the box, so the suboptimality is finite (it may be negative: f* is
    // the grid maximum).
    assert!(a.iter().all(|r| r.mean.is_finite() && r.std >= 0.0));
}

#[test]
fn bad_fields_are_named() {
    let (text, path) = workspace_spec();
    let bad = text.replacen("function = \"branin\"", "function = \"branon\"", 1);
    let e = Table2Spec::parse(&bad, &path).unwrap_err();
    assert_eq!(e.field(), Some("functions[1].function.name"), "{e}");
    assert!(e.to_string().contains("popbo-table2.toml"), "{e}");
    let bad = text.replacen("norm_bound = 10.0", "norm_bound = -1.0", 1);
    let e = Table2Spec::parse(&bad, &path).unwrap_err();
    assert!(e.field().is_some_and(|f| f.starts_with("functions[1].params")), "{e}");
    let bad = text.replacen("paper = \"popbo\"", "paper = \"pfts\"", 1);
    assert_eq!(Table2Spec::parse(&bad, &path).unwrap_err().field(), Some("reproduces.paper"));
}

#[test]
fn runs_are_deterministic_and_nonnegative_on_the_grid() {
    let (text, path) = workspace_spec();
    let mut spec = Table2Spec::parse(&text, &path).unwrap();
    spec.functions.truncate(2);
    spec.steps = 5;
    let a = run_table2(&spec, 2).unwrap();
    let b = run_table2(&spec, 2).unwrap();
    assert_eq!(
        a.iter().map(|r| (r.mean, r.std)).collect::<Vec<_>>(),
        b.iter().map(|r| (r.mean, r.std)).collect::<Vec<_>>()
    );
    // x̂ is a grid point and f* the grid maximum: suboptimality ≥ 0.
    assert!(a.iter().all(|r| r.mean >= 0.0 && r.std >= 0.0));
}
