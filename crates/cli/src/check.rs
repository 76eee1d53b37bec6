//! `bohf check`: validate an experiment spec or an ask session spec without running anything.
//!
//! An experiment spec goes through [`crate::load_experiment`], the exact path `bohf run` takes before
//! its first run (parse, validate, build the problem and load its data, build each algorithm once);
//! a session spec goes through [`bohf_session::prepare`], what `bohf ask new` does before it
//! writes the session file. Nothing is written. An experiment spec's valid but probably
//! meaningless settings (a lengthscale far below the candidates' spacing, a utility range far from
//! the link's scale) are listed as warnings after the summary (`bohf_experiments::warnings`).

use crate::CliError;
use std::path::Path;

/// Which kind of spec a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecKind {
    /// An experiment spec of `bohf run` (`docs/experiments.md`).
    Experiment,
    /// A session spec of `bohf ask new` (`docs/cli.md`).
    Ask,
}

/// Guesses the kind of a spec from its top-level keys: a session spec has `budget` or
/// `[candidates]` and neither `horizon` nor `[problem]`. A file that is not readable TOML counts as
/// an experiment spec (its parse error is then reported by the experiment path).
pub fn detect(path: &Path) -> SpecKind {
    let table = std::fs::read_to_string(path).ok().and_then(|t| t.parse::<toml::Table>().ok());
    match table {
        Some(t)
            if (t.contains_key("budget") || t.contains_key("candidates"))
                && !t.contains_key("horizon")
                && !t.contains_key("problem") =>
        {
            SpecKind::Ask
        }
        _ => SpecKind::Experiment,
    }
}

/// Checks the spec at `path` (of `kind`, or detected) and returns the summary to print.
pub fn check(path: &Path, kind: Option<SpecKind>) -> Result<String, CliError> {
    match kind.unwrap_or_else(|| detect(path)) {
        SpecKind::Experiment => {
            let experiment = crate::load_experiment(path, None)?;
            let spec = experiment.spec();
            // Valid but probably meaningless settings (`bohf_experiments::warnings`).
            let warnings: String = bohf_experiments::warnings::warnings(&experiment)?
                .iter()
                .map(|w| format!("  warning: {w}\n"))
                .collect();
            Ok(format!(
                "{}: experiment spec `{}` is valid\n  algorithms: {}\n  runs: {}\n  horizon: {}\n  {}\n{warnings}",
                path.display(),
                spec.name,
                spec.labels().join(", "),
                spec.runs,
                spec.horizon,
                match experiment.problem().candidates() {
                    Some(c) => format!("candidates: {}", c.len()),
                    None => format!("domain: {}", experiment.problem().domain()),
                }
            ))
        }
        SpecKind::Ask => {
            let body = bohf_session::prepare(path)?;
            Ok(format!(
                "{}: session spec `{}` is valid\n  algorithm: {}\n  budget: {}\n  candidates: {}\n  attributes: {}\n",
                path.display(),
                body.spec.name,
                body.spec.algorithm.name,
                body.spec.budget,
                body.candidates.names.len(),
                body.candidates.attributes.join(", ")
            ))
        }
    }
}
