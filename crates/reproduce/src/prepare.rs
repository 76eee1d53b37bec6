//! A panel's spec prepared to run, and the writing of its report files.

use crate::entry::ReportJob;
use crate::panel::PanelResult;
use crate::report::panel_markdown;
use crate::{QUICK_HORIZON, QUICK_RUNS};
use bohf_experiments::error::Result;
use bohf_experiments::spec::ExperimentSpec;
use bohf_experiments::{Metric, plot_atomic, write_atomic};
use std::path::Path;

/// A panel's spec, prepared to run.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedPanel {
    /// The spec to run: a relative catalyst data path resolved against the spec's folder.
    pub spec: ExperimentSpec,
    /// The spec as a report shows it: data paths as written (relative to the spec's folder).
    pub shown: ExperimentSpec,
    /// The spec's text (its leading comments go into the report).
    pub text: String,
    /// Whether this is a `--quick` smoke test.
    pub quick: bool,
}

impl PreparedPanel {
    /// Parses a panel's spec text; a relative catalyst `path` is resolved against `base_dir` (the
    /// folder of the spec file). `quick` caps runs and horizon at [`QUICK_RUNS`] and
    /// [`QUICK_HORIZON`]; `runs` (applied after it) sets the number of runs. The spec's `title` is
    /// left alone (a copied spec must not carry a stale mark): [`PreparedPanel::plot_title`] derives
    /// the "[quick: …]" mark from the spec when the report is drawn.
    /// `origin` names the text in parse errors.
    pub fn new(text: &str, origin: &Path, base_dir: &Path, quick: bool, runs: Option<usize>) -> Result<Self> {
        let mut shown: ExperimentSpec = bohf_experiments::de::from_toml_text(text, Some(origin))?;
        if quick {
            shown.runs = shown.runs.min(QUICK_RUNS);
            shown.horizon = shown.horizon.min(QUICK_HORIZON);
        }
        if let Some(r) = runs {
            shown.runs = r;
        }
        let mut spec = shown.clone();
        spec.problem.resolve_paths(base_dir);
        Ok(Self { spec, shown, text: text.to_string(), quick })
    }

    /// The title of the report's plots: `base`, with "[quick: T = …, … runs]" (from the spec as it
    /// is run) for a `--quick` panel.
    pub fn plot_title(&self, base: &str) -> String {
        if self.quick {
            format!("{base} [quick: T = {}, {} runs]", self.spec.horizon, self.spec.runs)
        } else {
            base.to_string()
        }
    }
}

/// Writes a finished panel's report into the job's folder: `<name>-{instantaneous,cumulative}.{png,svg}`,
/// `<name>.horizon.csv` and `<name>.md` (with a link back to the index `README.md` when the folder
/// has one). Returns the panel's values at the horizon.
pub fn write_panel_report(job: &ReportJob) -> Result<PanelResult> {
    let page = job.start()?;
    let name = &job.experiment.spec().name;
    let mut summary = job.results.summary()?;
    summary.title = job.panel.plot_title(&summary.title);
    let summary = &summary;
    for metric in [Metric::Instantaneous, Metric::Cumulative] {
        for ext in ["png", "svg"] {
            plot_atomic(summary, metric, job.file(&format!("-{}.{ext}", metric.as_str())))?;
        }
    }
    let result = PanelResult::from_summary(name, summary, job.panel.quick, job.elapsed_s);
    write_atomic(job.file(".horizon.csv"), result.to_csv()?.as_bytes())?;
    write_atomic(job.file(".md"), panel_markdown(&page, &result).as_bytes())?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bohf_experiments::spec::ProblemSpec;

    const CATALYST: &str = r#"
        name = "pfts-x"
        title = "X"
        horizon = 800
        runs = 30
        [problem]
        kind = "catalyst"
        path = "../data/file.csv"
        [[algorithms]]
        name = "pf-ts"
        label = "PF-TS"
    "#;

    #[test]
    fn prepared_panel_caps_quick_runs_and_resolves_the_data_path() {
        let p = PreparedPanel::new(CATALYST, Path::new("specs/x.toml"), Path::new("/base/specs"), false, None).unwrap();
        assert_eq!((p.spec.horizon, p.spec.runs), (800, 30));
        let ProblemSpec::Catalyst(run) = &p.spec.problem else { panic!() };
        let ProblemSpec::Catalyst(shown) = &p.shown.problem else { panic!() };
        assert_eq!(run.path, Path::new("/base/specs/../data/file.csv"));
        assert_eq!(shown.path, Path::new("../data/file.csv"));

        let q = PreparedPanel::new(CATALYST, Path::new("x.toml"), Path::new("/b"), true, None).unwrap();
        assert_eq!((q.spec.horizon, q.spec.runs), (QUICK_HORIZON, QUICK_RUNS));
        assert!(q.quick);
        // The quick mark is derived for the plots, never stored in the spec (a copied and edited
        // spec would carry a stale "[quick: …]" title).
        assert_eq!(q.spec.title.as_deref(), Some("X"));
        assert_eq!(q.shown.title.as_deref(), Some("X"));
        assert_eq!(q.plot_title("X"), "X [quick: T = 40, 3 runs]");
        assert_eq!(p.plot_title("X"), "X");
        // --runs applies after --quick, and the title says so.
        let mut r = PreparedPanel::new(CATALYST, Path::new("x.toml"), Path::new("/b"), true, Some(7)).unwrap();
        assert_eq!((r.spec.horizon, r.spec.runs), (QUICK_HORIZON, 7));
        assert_eq!(r.plot_title("X"), "X [quick: T = 40, 7 runs]");
        r.spec.horizon = 12;
        assert_eq!(r.plot_title("X"), "X [quick: T = 12, 7 runs]");
        let e = PreparedPanel::new("name = ", Path::new("bad.toml"), Path::new("."), false, None).unwrap_err();
        assert!(e.to_string().contains("bad.toml") && e.to_string().contains("line 1"), "{e}");
    }
}
