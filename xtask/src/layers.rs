//! `cargo xtask layers`: the crate graph obeys the layers of `docs/architecture.md`.
//!
//! It reads the workspace's packages and their declared dependencies from `cargo metadata
//! --no-deps` (no network, no build) and checks every arrow between workspace packages:
//!
//! 1. **no upward arrow**: a normal or build dependency goes to a layer at or below the package's
//!    own ([`Layer`], bottom to top). Dev-dependencies (tests, benches, examples) are exempt from
//!    this rule only;
//! 2. **no algorithm crate imports another** (any kind of dependency);
//! 3. **only the registry, the reproduction crate and the front ends name algorithm crates** (any
//!    kind: the engine, the numerics, the problems and the sessions reach algorithms only through
//!    the registry);
//! 4. **no front end imports another** (any kind).
//!
//! A package the table [`LAYERS`] does not place is an error (a new crate is placed when it is
//! added). The known breaks of these rules are listed in [`KNOWN_BREAKS`] with the reason they
//! are still there; a listed break that no longer occurs is reported too, so the list only shrinks.
//!
//! The same command runs the length checks of [`crate::lengths`] (no non-test `.rs` file over
//! 600 lines, no function over 100 without a `Long:` comment saying why), so that CI, which runs
//! `cargo xtask layers`, enforces them all.

use std::process::{Command, ExitCode};

/// The layers, bottom to top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// `bohf-core`.
    Core,
    /// Kernels, information gain, GPs, confidence sets, the acquisition optimiser.
    Numerics,
    /// Test functions, data sets, simulated respondents.
    Problems,
    /// `crates/algorithms/*`.
    Algorithm,
    /// `bohf-experiments`: specs, runner, results, metrics, plots (names no algorithm).
    Engine,
    /// `bohf-registry`: the one library that names the algorithm crates.
    Registry,
    /// Sessions and the papers' reproduction: users of the engine and the registry.
    User,
    /// The CLI, `bohf serve`, the Python package, `xtask`, and the facade `bohf`.
    FrontEnd,
}

/// Every workspace package (and the Python package's), its layer, and whether it may name
/// algorithm crates (rule 3). Packages under `crates/algorithms/` are [`Layer::Algorithm`] without
/// being listed.
pub const LAYERS: &[(&str, Layer, bool)] = &[
    ("bohf-core", Layer::Core, false),
    ("bohf-kernels", Layer::Numerics, false),
    ("bohf-infogain", Layer::Numerics, false),
    ("bohf-gp", Layer::Numerics, false),
    ("bohf-confidence", Layer::Numerics, false),
    ("bohf-optim", Layer::Numerics, false),
    ("bohf-problems", Layer::Problems, false),
    ("bohf-experiments", Layer::Engine, false),
    ("bohf-registry", Layer::Registry, true),
    ("bohf-session", Layer::User, false),
    ("bohf-reproduce", Layer::User, true),
    ("bohf-serve", Layer::FrontEnd, true),
    ("bohf-cli", Layer::FrontEnd, true),
    ("bohf-python", Layer::FrontEnd, true),
    ("xtask", Layer::FrontEnd, true),
    ("bohf", Layer::FrontEnd, true),
];

/// Arrows that break a rule today, each with why it is still there (`from`, `to`, reason).
pub const KNOWN_BREAKS: &[(&str, &str, &str)] =
    &[("bohf-cli", "bohf-serve", "`bohf serve` is a subcommand of the CLI that starts the server crate")];

/// The kind of a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `[dependencies]`.
    Normal,
    /// `[dev-dependencies]`.
    Dev,
    /// `[build-dependencies]`.
    Build,
}

/// A package and its dependencies on other packages of the graph.
#[derive(Debug, Clone)]
pub struct Package {
    /// The package's name.
    pub name: String,
    /// Whether its manifest lies under `crates/algorithms/`.
    pub in_algorithms_dir: bool,
    /// (dependency name, kind); dependencies outside the graph are ignored by the checks.
    pub deps: Vec<(String, Kind)>,
}

/// The layer of a package and whether it may name algorithm crates.
fn place(p: &Package) -> Option<(Layer, bool)> {
    if p.in_algorithms_dir {
        return Some((Layer::Algorithm, false));
    }
    LAYERS.iter().find(|(n, _, _)| *n == p.name).map(|&(_, l, a)| (l, a))
}

/// The broken rules of the graph `packages`, one message each (empty if it obeys them), given
/// the known breaks `known` (a known break that does not occur is reported as stale).
pub fn check(packages: &[Package], known: &[(&str, &str, &str)]) -> Vec<String> {
    let mut errors = Vec::new();
    let mut seen_known = vec![false; known.len()];
    for p in packages {
        let Some((from, may_name_algorithms)) = place(p) else {
            errors.push(format!("`{}` is in no layer: place it in xtask/src/layers.rs (LAYERS)", p.name));
            continue;
        };
        for (dep, kind) in &p.deps {
            if *dep == p.name {
                continue;
            }
            let Some(q) = packages.iter().find(|q| q.name == *dep) else { continue };
            let Some((to, _)) = place(q) else { continue };
            let mut broken = Vec::new();
            if *kind != Kind::Dev && to > from {
                broken.push(format!("an upward arrow ({from:?} → {to:?})"));
            }
            if from == Layer::Algorithm && to == Layer::Algorithm {
                broken.push("an algorithm crate imports another algorithm crate".to_string());
            } else if to == Layer::Algorithm && !may_name_algorithms {
                broken.push(format!(
                    "a crate of the {from:?} layer names an algorithm crate (only the registry, the reproduction and the front ends do)"
                ));
            }
            if from == Layer::FrontEnd && to == Layer::FrontEnd {
                broken.push("a front end imports another front end".to_string());
            }
            if broken.is_empty() {
                continue;
            }
            if let Some(i) = known.iter().position(|(f, t, _)| *f == p.name && *t == *dep) {
                seen_known[i] = true;
                continue;
            }
            errors.push(format!("`{}` → `{dep}` ({kind:?}): {}", p.name, broken.join("; ")));
        }
    }
    for (i, (f, t, _)) in known.iter().enumerate() {
        if !seen_known[i] {
            errors.push(format!("the known break `{f}` → `{t}` no longer occurs: remove it from KNOWN_BREAKS"));
        }
    }
    errors
}

/// The packages of the workspace at `manifest` (a `Cargo.toml`) from `cargo metadata --no-deps`.
pub fn workspace_packages(manifest: &std::path::Path) -> Result<Vec<Package>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline", "--manifest-path"])
        .arg(manifest)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata's output: {e}"))?;
    let packages = meta["packages"].as_array().ok_or("cargo metadata: no packages")?;
    Ok(packages
        .iter()
        .map(|p| Package {
            name: p["name"].as_str().unwrap_or_default().to_string(),
            in_algorithms_dir: p["manifest_path"]
                .as_str()
                .is_some_and(|m| m.replace('\\', "/").contains("/crates/algorithms/")),
            deps: p["dependencies"]
                .as_array()
                .map(|ds| {
                    ds.iter()
                        .map(|d| {
                            let kind = match d["kind"].as_str() {
                                Some("dev") => Kind::Dev,
                                Some("build") => Kind::Build,
                                _ => Kind::Normal,
                            };
                            (d["name"].as_str().unwrap_or_default().to_string(), kind)
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect())
}

/// The workspace's packages and the Python package's (its own workspace), as one graph.
pub fn all_packages(root: &std::path::Path) -> Result<Vec<Package>, String> {
    let mut packages = workspace_packages(&root.join("Cargo.toml"))?;
    let python = root.join("python").join("Cargo.toml");
    if python.exists() {
        for p in workspace_packages(&python)? {
            if !packages.iter().any(|q| q.name == p.name) {
                packages.push(p);
            }
        }
    }
    Ok(packages)
}

/// `cargo xtask layers`: prints each broken rule (the layers' and the file lengths'); exit 1 if there is any, 2 if `cargo metadata`
/// fails.
pub fn run(args: &[String]) -> ExitCode {
    if !args.is_empty() {
        return crate::usage();
    }
    let root = crate::root();
    let lengths = match crate::lengths::check(&root, crate::lengths::WALKED, crate::lengths::ALLOWED) {
        Ok(errors) => errors,
        Err(e) => {
            eprintln!("xtask layers: {e}");
            return ExitCode::from(2);
        }
    };
    match all_packages(&root) {
        Ok(packages) => {
            let mut errors = check(&packages, KNOWN_BREAKS);
            errors.extend(lengths);
            if errors.is_empty() {
                println!(
                    "xtask layers: {} packages, no forbidden arrow ({} known break(s) listed); no source file over {} lines ({} listed); no function over {} lines without a `Long:` comment",
                    packages.len(),
                    KNOWN_BREAKS.len(),
                    crate::lengths::MAX_LINES,
                    crate::lengths::ALLOWED.len(),
                    crate::lengths::MAX_FN_LINES
                );
                ExitCode::SUCCESS
            } else {
                for e in &errors {
                    eprintln!("{e}");
                }
                eprintln!("xtask layers: {} broken rule(s)", errors.len());
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("xtask layers: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkg(name: &str, deps: &[(&str, Kind)]) -> Package {
        Package {
            name: name.into(),
            in_algorithms_dir: ["bohf-pfts", "bohf-baselines", "bohf-compgpucb"].contains(&name),
            deps: deps.iter().map(|(d, k)| (d.to_string(), *k)).collect(),
        }
    }

    /// A small house that obeys the rules.
    fn house() -> Vec<Package> {
        use Kind::*;
        vec![
            pkg("bohf-core", &[]),
            pkg("bohf-kernels", &[("bohf-core", Normal)]),
            pkg("bohf-problems", &[("bohf-kernels", Normal)]),
            pkg("bohf-optim", &[("bohf-core", Normal), ("bohf-problems", Dev)]),
            pkg("bohf-pfts", &[("bohf-kernels", Normal)]),
            pkg("bohf-baselines", &[("bohf-kernels", Normal)]),
            pkg("bohf-experiments", &[("bohf-problems", Normal)]),
            pkg("bohf-registry", &[("bohf-experiments", Normal), ("bohf-pfts", Normal), ("bohf-baselines", Normal)]),
            pkg("bohf-session", &[("bohf-registry", Normal)]),
            pkg("bohf-cli", &[("bohf-session", Normal), ("bohf-registry", Normal)]),
            pkg("bohf-python", &[("bohf-session", Normal)]),
        ]
    }

    fn with(mut packages: Vec<Package>, from: &str, to: &str, kind: Kind) -> Vec<Package> {
        packages.iter_mut().find(|p| p.name == from).unwrap().deps.push((to.into(), kind));
        packages
    }

    #[test]
    fn the_workspace_obeys_the_layers() {
        let packages = all_packages(&crate::root()).unwrap();
        for name in ["bohf-experiments", "bohf-registry", "bohf-reproduce", "bohf-pfts", "bohf-python"] {
            assert!(packages.iter().any(|p| p.name == name), "{name} missing from the graph");
        }
        let errors = check(&packages, KNOWN_BREAKS);
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        // The engine names no algorithm crate and not the registry, in any section.
        let engine = packages.iter().find(|p| p.name == "bohf-experiments").unwrap();
        for (d, _) in &engine.deps {
            let q = packages.iter().find(|q| q.name == *d);
            assert!(q.is_none_or(|q| !q.in_algorithms_dir) && d != "bohf-registry", "the engine depends on {d}");
        }
    }

    #[test]
    fn a_clean_house_passes() {
        assert_eq!(check(&house(), &[]), Vec::<String>::new());
    }

    #[test]
    fn each_forbidden_arrow_fails() {
        use Kind::*;
        let cases = [
            ("bohf-experiments", "bohf-pfts", Normal, "names an algorithm crate"),
            ("bohf-experiments", "bohf-pfts", Dev, "names an algorithm crate"),
            ("bohf-experiments", "bohf-registry", Normal, "upward"),
            ("bohf-pfts", "bohf-baselines", Normal, "another algorithm crate"),
            ("bohf-kernels", "bohf-problems", Normal, "upward"),
            ("bohf-pfts", "bohf-experiments", Normal, "upward"),
            ("bohf-session", "bohf-pfts", Normal, "names an algorithm crate"),
            ("bohf-cli", "bohf-python", Normal, "front end imports another front end"),
        ];
        for (from, to, kind, why) in cases {
            let errors = check(&with(house(), from, to, kind), &[]);
            assert_eq!(errors.len(), 1, "{from} → {to}: {errors:?}");
            assert!(errors[0].contains(&format!("`{from}` → `{to}`")) && errors[0].contains(why), "{errors:?}");
        }
        // A dev-dependency may point up (a test of the numerics on a problem), but not to an algorithm.
        assert!(check(&with(house(), "bohf-kernels", "bohf-problems", Dev), &[]).is_empty());
    }

    #[test]
    fn unplaced_packages_and_stale_known_breaks_fail() {
        let mut packages = house();
        packages.push(pkg("bohf-new", &[]));
        let errors = check(&packages, &[]);
        assert!(errors.len() == 1 && errors[0].contains("`bohf-new` is in no layer"), "{errors:?}");
        let known = [("bohf-pfts", "bohf-baselines", "test")];
        let broken = with(house(), "bohf-pfts", "bohf-baselines", Kind::Normal);
        assert!(check(&broken, &known).is_empty(), "a listed break passes");
        let errors = check(&house(), &known);
        assert!(errors.len() == 1 && errors[0].contains("no longer occurs"), "{errors:?}");
    }
}
