//! The presets: the spec files of a folder (the workspace's `specs/`), found by listing it, each
//! with the metadata of its `[reproduces]` section. `bohf reproduce` and `examples/reproduce.rs`
//! both use [`discover`]; adding a preset is adding a spec file.

use crate::source::{Paper, Reproduces};
use bohf_experiments::error::{ExperimentError, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One spec file of the presets folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Preset {
    /// The spec's `name`, equal to its file stem.
    pub name: String,
    /// The spec file.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Its `title`, if any.
    pub title: Option<String>,
    /// Its `[reproduces]` section, validated (its claims' labels are checked when the spec is).
    pub reproduces: Option<Reproduces>,
}

/// The fields every preset is read for; the rest is the spec's own schema.
#[derive(Deserialize)]
struct Head {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    reproduces: Option<Reproduces>,
}

impl Preset {
    /// Reads a spec file's name, title and `[reproduces]` section; the name must equal the file stem.
    /// Errors name the file (and the field).
    pub fn read(path: &Path) -> Result<Self> {
        let in_file =
            |source: ExperimentError| ExperimentError::InFile { path: path.to_path_buf(), source: Box::new(source) };
        let text = std::fs::read_to_string(path).map_err(|source| ExperimentError::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        let head: Head = bohf_experiments::de::from_toml_text(&text, Some(path))?;
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if head.name != stem {
            return Err(in_file(ExperimentError::spec(
                "name",
                format!("`{}` must equal the file's stem `{stem}` (the preset's name)", head.name),
            )));
        }
        if let Some(r) = &head.reproduces {
            r.validate(None).map_err(in_file)?;
        }
        Ok(Self { name: head.name, path: path.to_path_buf(), text, title: head.title, reproduces: head.reproduces })
    }

    /// The paper it reproduces ([`Paper::Other`] without a `[reproduces]` section).
    pub fn paper(&self) -> Paper {
        self.reproduces.as_ref().map_or(Paper::Other, Reproduces::paper)
    }

    /// What it reproduces, for listings: "PF-TS paper (Lazzaro et al. 2026), Figure 2(a, b): <title>".
    pub fn source(&self) -> String {
        let title = self.title.as_deref().map(|t| format!(": {t}")).unwrap_or_default();
        match &self.reproduces {
            Some(r) => format!("{}, {}{title}", r.paper().citation(), r.figure),
            None => format!("(no [reproduces] section){title}"),
        }
    }

    /// The folder of the spec file (the base of its relative data paths).
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

/// The presets of `dir`: every `*.toml` file, sorted by name, read with [`Preset::read`].
/// A missing or unreadable folder, or a bad spec, is an error naming it.
pub fn discover(dir: &Path) -> Result<Vec<Preset>> {
    let entries = std::fs::read_dir(dir).map_err(|source| ExperimentError::Io {
        action: "list the presets folder",
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut presets = files.iter().map(|f| Preset::read(f)).collect::<Result<Vec<_>>>()?;
    // By preset name, not path: `popbo-table2-box.toml` sorts before `popbo-table2.toml` ('-' < '.').
    presets.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(presets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("bohf-presets-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    const SPEC: &str = "name = \"NAME\"\ntitle = \"T\"\nhorizon = 1\nruns = 1\n[problem]\nkind = \"rkhs\"\n\
                        [[algorithms]]\nname = \"mr-lpf\"\n";

    #[test]
    fn discovers_the_workspace_specs_with_their_papers() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let presets = discover(&dir).unwrap();
        let names: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
        assert!(names.contains(&"mrlpf-fig1a-rkhs-se") && names.contains(&"pfts-fig4-rkhs"), "{names:?}");
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        // Every preset of ours says what it reproduces; the paper comes from the field, and our
        // file names happen to start with its key.
        for p in &presets {
            let r = p.reproduces.as_ref().unwrap_or_else(|| panic!("{} has no [reproduces]", p.name));
            assert!(p.name.starts_with(&r.paper), "{}: {}", p.name, r.paper);
        }
    }

    #[test]
    fn discovery_reads_the_field_not_the_file_name_and_names_bad_files() {
        let d = scratch("fields");
        let with = format!(
            "{}\n[reproduces]\npaper = \"mrlpf\"\nfigure = \"Figure 9\"\nclaims = [\"A < B\"]\n",
            SPEC.replace("NAME", "zz-any")
        );
        std::fs::write(d.join("zz-any.toml"), with).unwrap();
        std::fs::write(d.join("plain.toml"), SPEC.replace("NAME", "plain")).unwrap();
        std::fs::write(d.join("notes.txt"), "not a spec").unwrap();
        let p = discover(&d).unwrap();
        assert_eq!(p.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["plain", "zz-any"]);
        assert_eq!(p[0].paper(), Paper::Other);
        assert_eq!(p[1].paper(), Paper::MrLpf);
        assert_eq!(p[1].source(), "MR-LPF paper (Kayal et al. 2025), Figure 9: T");

        // An unknown paper: the error names the file and the field.
        let bad = format!("{}\n[reproduces]\npaper = \"nature\"\nfigure = \"Fig. 1\"\n", SPEC.replace("NAME", "bad"));
        std::fs::write(d.join("bad.toml"), bad).unwrap();
        let e = discover(&d).unwrap_err().to_string();
        assert!(e.contains("bad.toml") && e.contains("reproduces.paper") && e.contains("`nature`"), "{e}");
        // A name that is not the file stem.
        std::fs::write(d.join("bad.toml"), SPEC.replace("NAME", "other")).unwrap();
        let e = discover(&d).unwrap_err().to_string();
        assert!(e.contains("bad.toml") && e.contains("`other`"), "{e}");
        // A missing folder.
        let e = discover(&d.join("nope")).unwrap_err().to_string();
        assert!(e.contains("nope"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn compgpucb_presets_match_their_budget_and_run_quick() {
        use crate::PreparedPanel;
        use bohf_experiments::{Experiment, ExperimentSpec, QueryKind};
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let presets: Vec<Preset> =
            discover(&dir).unwrap().into_iter().filter(|p| p.paper() == Paper::CompGpUcb).collect();
        let names: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(presets.len(), 18, "{names:?}");
        let tiny = bohf_experiments::testing::scratch_dir("compgpucb-presets");
        let tiny_magic = bohf_experiments::testing::tiny_data(&tiny, 60);
        for p in &presets {
            let mut spec: ExperimentSpec = toml::from_str(&p.text).unwrap();
            if let bohf_experiments::ProblemSpec::Svm(s) = &mut spec.problem {
                // The paper's task, its data beside the checkout (`shared/`); built here on a tiny
                // synthetic file of the same format (the real table takes minutes), so that the
                // algorithms' settings are checked against a 20 × 20 SVM grid.
                assert_eq!((s.points_per_dim, s.train, s.validation, s.comparison_train), (20, 2000, 500, 500));
                assert!(s.data.ends_with("shared/data/magic04/magic04.data") && s.cache.is_none(), "{}", p.name);
                assert_eq!(spec.respondent.model, bohf_experiments::spec::ResponseModel::Deterministic, "{}", p.name);
                (s.data, s.train, s.validation, s.comparison_train) = (tiny_magic.clone(), 30, 20, 10);
            }
            let budget = spec.budget.unwrap_or_else(|| panic!("{} has no [budget]", p.name));
            assert_eq!((budget.total, budget.evaluate, spec.runs), (100.0, 1.0, 20), "{}", p.name);
            // The costs have one home, the [budget]: no algorithm restates them.
            assert!(spec.algorithms.iter().all(|a| !a.params.contains_key("costs")), "{}", p.name);
            // GP-UCB starts with Λ₀ = 10 of random values, as the mixed methods do (notes §5.3).
            let gp = spec.algorithms.iter().find(|a| a.name == "gp-ucb").unwrap();
            assert_eq!(gp.params["initial_budget"].as_float(), Some(10.0), "{}", p.name);
            // Its value GP is COMP-GP-UCB's: learned, with standardised values (a fixed unit-variance
            // kernel stalls on one candidate, `budget::tests`).
            assert!(gp.params.contains_key("hyperparameters"), "{}", p.name);
            // The horizon caps Λ/λ_c queries, plus the one that may overshoot.
            assert!(spec.horizon as f64 >= budget.total / budget.duel, "{}", p.name);
            // Duels from the low fidelity in every preset but Figure 4 (single fidelity).
            let low = spec.respondent.comparisons == bohf_experiments::ComparisonSource::LowFidelity;
            assert_eq!(low, !p.name.contains("fig4"), "{}", p.name);
            // Every preset builds (problem, respondent, algorithms) and names both algorithms in
            // its claims.
            Experiment::new(spec.clone(), &bohf_registry::builtin()).unwrap_or_else(|e| panic!("{}: {e}", p.name));
            assert!(p.reproduces.as_ref().unwrap().claims.iter().any(|c| c.contains("COMP-GP-UCB")), "{}", p.name);
            spec.validate(&bohf_registry::builtin()).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
        let _ = std::fs::remove_dir_all(&tiny);

        // Fig. 1(a) in --quick: the runs spend duels first (the initial design), its three claims are
        // judged.
        let p = presets.iter().find(|p| p.name == "compgpucb-fig1a-currin").unwrap();
        let panel = PreparedPanel::new(&p.text, &p.path, p.dir(), true, None).unwrap();
        let e = Experiment::new(panel.spec.clone(), &bohf_registry::builtin()).unwrap();
        let results = e.run().unwrap();
        let comp: Vec<_> = results.runs().iter().filter(|r| r.label == "COMP-GP-UCB").collect();
        assert_eq!(comp.len(), crate::QUICK_RUNS);
        assert!(comp.iter().all(|r| r.steps.first().is_some_and(|s| s.query == QueryKind::Duel)));
        let gp: Vec<_> = results.runs().iter().filter(|r| r.label == "GP-UCB").collect();
        assert!(gp.iter().all(|r| r.steps.iter().all(|s| s.query == QueryKind::Evaluate)));
        // The report's panel: S at the total budget in f units, the claims judged on it.
        let comp_panel =
            crate::CompPanel::from_runs(e.spec(), "t", results.runs(), e.problem().regret(), true, 0.0).unwrap();
        assert!(comp_panel.rows.iter().all(|r| r.at_total().is_some_and(|a| a.simple.is_some())));
        let claims = crate::compgpucb::comp_claims(&comp_panel, p.reproduces.as_ref());
        assert_eq!(claims.len(), 3, "{claims:?}");
        assert!(claims.iter().all(|c| !c.verdict.is_empty()));
    }
}
