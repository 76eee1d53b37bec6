//! The claims section of a panel's page ("## The paper's claims on this panel"), in one place: the
//! report writers put it on a new page, and [`refreshed_pages`] rewrites it on the committed pages
//! from their panels' data files, so a page's verdicts always use today's claim rules and wording
//! (`cargo xtask docs` writes them, `--check` fails on a stale page).

use crate::claims::{Claim, claims_of, claims_table};
use crate::cobol::{CobolPanel, cobol_claims, rules_text, searches_text};
use crate::compgpucb::{CompPanel, comp_claims};
use crate::panel::PanelResult;
use crate::presets::Preset;
use crate::source::{Paper, Reproduces};
use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::spec::ExperimentSpec;
use std::path::{Path, PathBuf};

/// The heading every claims section starts with (COMP-GP-UCB's adds the budget after it).
pub(crate) const CLAIMS_HEADING: &str = "## The paper's claims on this panel";

/// A panel's claims section, ending with a blank line; `None` when the spec claims nothing.
fn section(heading: &str, rules: Option<String>, claims: &[Claim]) -> Option<String> {
    if claims.is_empty() {
        return None;
    }
    let mut s = format!("{heading}\n\n");
    if let Some(r) = rules {
        s.push_str(&r);
        s.push('\n');
    }
    s.push_str(&claims_table(claims, false));
    s.push('\n');
    Some(s)
}

/// The claims section of a panel of MR-LPF or PF-TS (regret at the horizon).
pub(crate) fn panel_section(r: &PanelResult, reproduces: Option<&Reproduces>) -> Option<String> {
    section(CLAIMS_HEADING, None, &claims_of(r, reproduces))
}

/// The claims section of a COBOL panel (SR at k f-evaluations, with the rules and, from `spec`,
/// each COBOL entry's x^c search).
pub(crate) fn cobol_section(p: &CobolPanel, reproduces: Option<&Reproduces>, spec: &ExperimentSpec) -> Option<String> {
    let rules = rules_text() + &searches_text(spec).map(|t| format!("\n{t}")).unwrap_or_default();
    section(CLAIMS_HEADING, Some(rules), &cobol_claims(p, reproduces))
}

/// The claims section of a COMP-GP-UCB panel (S at the budget Λ).
pub(crate) fn comp_section(p: &CompPanel, reproduces: Option<&Reproduces>) -> Option<String> {
    section(&format!("{CLAIMS_HEADING} (S at Λ = {})", p.total), None, &comp_claims(p, reproduces))
}

/// `page` with its claims section (from the line starting with [`CLAIMS_HEADING`] up to the next
/// `## ` heading) replaced by `section`; an error when the page has no such section or no heading
/// after it.
pub fn replace_claims_section(page: &str, section: &str) -> std::result::Result<String, String> {
    let start = page
        .find(&format!("\n{CLAIMS_HEADING}"))
        .map(|i| i + 1)
        .ok_or_else(|| format!("no \"{CLAIMS_HEADING}\" section"))?;
    let end = page[start + CLAIMS_HEADING.len()..]
        .find("\n## ")
        .map(|i| start + CLAIMS_HEADING.len() + i + 1)
        .ok_or_else(|| "no `## ` heading after the claims section".to_string())?;
    Ok(format!("{}{}{}", &page[..start], section, &page[end..]))
}

fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ExperimentError::Io { action: "read", path: path.to_path_buf(), source }),
    }
}

fn results_error(path: &Path, e: ExperimentError) -> ExperimentError {
    match e {
        ExperimentError::Results { reason, .. } => ExperimentError::Results { path: Some(path.to_path_buf()), reason },
        other => other,
    }
}

/// The claims section of `preset`'s panel from its data file in `dir` (`NAME.horizon.csv`,
/// `NAME.cobol.json` or `NAME.compgpucb.json`); `None` when the panel has not been run or claims
/// nothing (POP-BO's Table 2 pages have no claims section).
fn section_from_data(dir: &Path, preset: &Preset) -> Result<Option<String>> {
    let reproduces = preset.reproduces.as_ref();
    Ok(match preset.paper() {
        Paper::PopBo => None,
        Paper::Cobol => {
            let path = dir.join(format!("{}.cobol.json", preset.name));
            match read(&path)? {
                Some(text) => {
                    let spec: ExperimentSpec = toml::from_str(&preset.text).map_err(|e| ExperimentError::Results {
                        path: Some(preset.path.clone()),
                        reason: format!("the preset's spec does not parse: {e}"),
                    })?;
                    let panel = CobolPanel::from_json(&text).map_err(|e| results_error(&path, e))?;
                    cobol_section(&panel, reproduces, &spec)
                }
                None => None,
            }
        }
        Paper::CompGpUcb => {
            let path = dir.join(format!("{}.compgpucb.json", preset.name));
            match read(&path)? {
                Some(text) => {
                    comp_section(&CompPanel::from_json(&text).map_err(|e| results_error(&path, e))?, reproduces)
                }
                None => None,
            }
        }
        _ => {
            let path = dir.join(format!("{}.horizon.csv", preset.name));
            match read(&path)? {
                Some(text) => {
                    panel_section(&PanelResult::from_csv(&text).map_err(|e| results_error(&path, e))?, reproduces)
                }
                None => None,
            }
        }
    })
}

/// Every committed page `dir/NAME.md` of `presets` that has a claims section, with that section
/// rewritten from the panel's data file by today's rules (the rest of the page as it is).
pub fn refreshed_pages(dir: &Path, presets: &[Preset]) -> Result<Vec<(PathBuf, String)>> {
    let mut pages = Vec::new();
    for preset in presets {
        let page_path = dir.join(format!("{}.md", preset.name));
        let (Some(section), Some(page)) = (section_from_data(dir, preset)?, read(&page_path)?) else {
            continue;
        };
        let refreshed = replace_claims_section(&page, &section).map_err(|reason| ExperimentError::Results {
            path: Some(page_path.clone()),
            reason: format!("the page's claims section: {reason}"),
        })?;
        pages.push((page_path, refreshed));
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claims_section_is_replaced_up_to_the_next_heading_only() {
        let page = format!("# T\n\ntext\n\n{CLAIMS_HEADING}\n\n| old |\n\n## Plots\n\nplot\n");
        let new = replace_claims_section(&page, &format!("{CLAIMS_HEADING}\n\n| new |\n\n")).unwrap();
        assert_eq!(new, format!("# T\n\ntext\n\n{CLAIMS_HEADING}\n\n| new |\n\n## Plots\n\nplot\n"));
        // COMP-GP-UCB's heading carries the budget; it is replaced whole.
        let page = format!("x\n{CLAIMS_HEADING} (S at Λ = 5)\n\nold\n## Plots\n");
        let new = replace_claims_section(&page, &format!("{CLAIMS_HEADING} (S at Λ = 6)\n\nnew\n")).unwrap();
        assert_eq!(new, format!("x\n{CLAIMS_HEADING} (S at Λ = 6)\n\nnew\n## Plots\n"));
    }

    #[test]
    fn a_page_without_the_section_or_a_heading_after_it_is_an_error() {
        assert!(replace_claims_section("# T\n\nno claims\n", "s").unwrap_err().contains("no \""));
        let e = replace_claims_section(&format!("x\n{CLAIMS_HEADING}\n\nlast\n"), "s").unwrap_err();
        assert!(e.contains("no `## ` heading"), "{e}");
    }
}
