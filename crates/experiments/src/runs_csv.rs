//! Reading run records back from their CSV (written by [`crate::results`]): the one parser of
//! `steps.csv` and of a results folder's run files.

use crate::error::{ExperimentError, Result};
use crate::results::*;
use bohf_core::Answer;
use bohf_core::data::CsvTable;
use std::path::Path;

/// Reads runs back from CSV text written by [`runs_to_csv`] or [`RunRecord::to_csv`] (with or
/// without `elapsed_s`, which reads as 0 when absent; without the utility-gap columns, an older
/// CSV, whose gaps read as [`UtilityGap::NOT_RECORDED`]; an empty gap field reads the same). `labels` maps each label to its algorithm
/// index. Rows of one run must be consecutive with t = 1, 2, …; runs come back in file order.
// Long: one pass over the rows, each column parsed in file order with an error naming row and column.
pub fn runs_from_csv(text: &str, labels: &[String], path: Option<&Path>) -> Result<Vec<RunRecord>> {
    let source = path.map(Path::to_path_buf).unwrap_or_else(|| "<csv>".into());
    let bad = |reason: String| ExperimentError::Results { path: path.map(Path::to_path_buf), reason };
    let table = CsvTable::parse(text, &source)?;
    let col = |name: &str| table.column(name).map_err(ExperimentError::from);
    let c: Vec<usize> = CSV_COLUMNS.iter().map(|n| col(n)).collect::<Result<_>>()?;
    // Absent in a CSV written before the utility gaps: they read as not recorded.
    let c_gaps: Option<Vec<usize>> =
        GAP_CSV_COLUMNS.iter().map(|n| table.header().iter().position(|h| h == n)).collect();
    let c_elapsed = table.header().iter().position(|h| h == "elapsed_s");
    let c_details = table.header().iter().position(|h| h == "details");
    let mut runs: Vec<RunRecord> = Vec::new();
    for (line, rec) in table.records() {
        let uint = |k: usize| -> Result<usize> {
            rec[c[k]]
                .parse()
                .map_err(|_| bad(format!("line {line}: `{}` is not an index: {:?}", CSV_COLUMNS[k], rec[c[k]])))
        };
        let float = |i: usize| -> Result<f64> { Ok(table.number(line, rec, i)?) };
        let point = |k: usize| -> Result<PointRecord> {
            PointRecord::parse(&rec[c[k]]).ok_or_else(|| {
                bad(format!(
                    "line {line}: `{}` is neither a candidate index nor coordinates joined by `;`: {:?}",
                    CSV_COLUMNS[k], rec[c[k]]
                ))
            })
        };
        let label = &rec[c[0]];
        let algorithm = labels
            .iter()
            .position(|l| l == label)
            .ok_or_else(|| bad(format!("line {line}: unknown algorithm label `{label}`")))?;
        let run = uint(1)?;
        let t = uint(2)?;
        let query = QueryKind::parse(&rec[c[3]]).map_err(|e| bad(format!("line {line}: {e}")))?;
        let first = point(4)?;
        let (second, options) = if query == QueryKind::Choice {
            let mut options = vec![first.clone()];
            for field in rec[c[5]].split('|') {
                options.push(PointRecord::parse(field).ok_or_else(|| {
                    bad(format!(
                        "line {line}: `second` of a choice must be its other options joined by `|`, got {:?}",
                        rec[c[5]]
                    ))
                })?);
            }
            (Some(options[1].clone()), options)
        } else {
            (if rec[c[5]].is_empty() { None } else { Some(point(5)?) }, Vec::new())
        };
        if (query == QueryKind::Duel) != second.is_some() && query != QueryKind::Choice {
            return Err(bad(format!("line {line}: a duel needs `second`, other queries must leave it empty")));
        }
        let flag = || match rec[c[6]].as_str() {
            "1" => Ok(true),
            "0" => Ok(false),
            other => Err(bad(format!("line {line}: answer {other:?} is not 0 or 1"))),
        };
        let answer = match query {
            QueryKind::Duel => Answer::Duel { first_wins: flag()? },
            QueryKind::Label => Answer::Label { accept: flag()? },
            QueryKind::Evaluate => Answer::Value(float(c[6])?),
            QueryKind::Choice => {
                let index = uint(6)?;
                if index >= options.len() {
                    return Err(bad(format!(
                        "line {line}: answer {index} is not the position of one of the choice's {} options",
                        options.len()
                    )));
                }
                Answer::Choice { index }
            }
        };
        let step = StepRecord {
            t,
            query,
            first,
            second,
            options,
            answer,
            regret: float(c[7])?,
            cumulative_regret: float(c[8])?,
            recommendation: point(9)?,
            simple_regret: float(c[10])?,
            utility_gap: match &c_gaps {
                Some(g) => {
                    let gap = |i: usize| -> Result<f64> { if rec[i].is_empty() { Ok(f64::NAN) } else { float(i) } };
                    UtilityGap { instantaneous: gap(g[0])?, cumulative: gap(g[1])?, simple: gap(g[2])? }
                }
                None => UtilityGap::NOT_RECORDED,
            },
            elapsed_s: match c_elapsed {
                Some(i) => float(i)?,
                None => 0.0,
            },
            details: match c_details {
                Some(i) => parse_details(&rec[i])
                    .ok_or_else(|| bad(format!("line {line}: `details` is not name=value pairs: {:?}", rec[i])))?,
                None => Vec::new(),
            },
        };
        let id = RunId { algorithm, run };
        match runs.last_mut() {
            Some(r) if r.id == id => {
                if t != r.steps.len() + 1 {
                    return Err(bad(format!("line {line}: step {t} follows step {}", r.steps.len())));
                }
                r.steps.push(step);
            }
            _ => {
                if t != 1 {
                    return Err(bad(format!("line {line}: run {run} of `{label}` starts at step {t}, not 1")));
                }
                if runs.iter().any(|r| r.id == id) {
                    return Err(bad(format!("line {line}: run {run} of `{label}` appears twice")));
                }
                runs.push(RunRecord { id, label: label.clone(), steps: vec![step] });
            }
        }
    }
    Ok(runs)
}
