//! One row of the verification table, and the table as text, markdown and JSON.

use serde::{Deserialize, Serialize};

/// Whether a row passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The measured quantity satisfies the bound.
    Pass,
    /// It does not.
    Fail,
    /// A value reported for reference (a table entry, a practical setting without a guarantee).
    Info,
    /// A failure of the check's pre-registered criterion that is a documented finding about the
    /// paper (see [`KNOWN_FINDINGS`]): shown as failing, with its explanation, but not a regression.
    Finding,
}

/// Checks whose failure is a known, documented finding about a paper rather than a defect of bohf.
/// The check and its criterion stay exactly as registered; only the exit code treats the failure as
/// expected. A listed check that starts passing is reported (the finding no longer reproduces).
pub const KNOWN_FINDINGS: &[(&str, &str)] = &[
    (
        "infogain.growth.m32-d2",
        "pre-asymptotic: in 2-D at T ≤ 1000 greedy Γ grows faster than the order's slope (over [500, 1000] \
         alone it is below); the O(·) rate is asymptotic, so the papers' horizons do not show it",
    ),
    (
        "infogain.growth.m52-d2",
        "pre-asymptotic, as for Matérn-3/2 in 2-D: the order T^{d/(2ν+d)} understates Γ's growth at T ≤ 1000",
    ),
    (
        "fig1.pfts-anchor-ucb",
        "with the F.1 settings (β = 1, λ = ρ = 0.05, ℓ = 0.1) σ_t(x, x₀) ≈ 0.1–0.2 after 200 pairs while the MLE's \
         utility gaps between the top candidates are O(1), so the UCB argmax changes with x₀ in only 1 of 30 histories \
         (2 of 30 with the [−3, 3] scaling); UCB indices are not separable, but Fig. 1's anchor dependence is not \
         typical of the stated settings (the figure's v_t, λ, ℓ and scaling are not given)",
    ),
    (
        "regret.popbo-growth.d2",
        "pre-asymptotic: in 2-D with 100 candidates and T = 50 < 100 the run is still exploring (slope ≈ 0.93, \
         sublinear and below the eq. (32) rate slope); Fig. 4's 'close to 3/4' is for longer runs on the paper's GP \
         instances, and the 1-D run at T = 100 gives 0.77",
    ),
    (
        "regret.pf-ts.growth",
        "measured with the experiments' v_t, not Theorem 1's β_t (≈ 1000 here): the rate is not claimed for the \
         practical schedule, and R(T)/√(TΓ) still rises at T = 1000",
    ),
];

/// Marks failing rows that are [`KNOWN_FINDINGS`] as [`Status::Finding`] (appending the explanation to
/// the claim), and returns the known findings that did not fail.
pub fn apply_known_findings(rows: &mut [Row]) -> Vec<&'static str> {
    let mut not_failing = Vec::new();
    for (name, why) in KNOWN_FINDINGS {
        let mut failed = false;
        for r in rows.iter_mut().filter(|r| r.check == *name) {
            if r.status == Status::Fail {
                r.status = Status::Finding;
                r.claim = format!("{} — known finding: {why}", r.claim);
                failed = true;
            }
        }
        if !failed && rows.iter().any(|r| r.check == *name) {
            not_failing.push(*name);
        }
    }
    not_failing
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::Info => "info",
            Status::Finding => "FAIL (known finding)",
        }
    }
}

/// One row: the claim, what was measured, what it is held against, the margin, the verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// The check's name (`--only` matches its prefix).
    pub check: String,
    /// The claim with its paper and equation.
    pub claim: String,
    /// The measured quantity and its value.
    pub measured: String,
    /// The bound or reference.
    pub bound: String,
    /// The margin (positive = room to spare), as text.
    pub margin: String,
    /// The verdict.
    pub status: Status,
}

impl Row {
    /// A row whose verdict is `measured ≤ bound` (margin = bound − measured, and relative).
    pub fn at_most(check: &str, claim: &str, what: &str, measured: f64, bound_what: &str, bound: f64) -> Self {
        let ok = measured <= bound;
        Row {
            check: check.into(),
            claim: claim.into(),
            measured: format!("{what} = {}", fmt(measured)),
            bound: format!("≤ {bound_what} = {}", fmt(bound)),
            margin: margin(bound - measured, bound),
            status: if ok { Status::Pass } else { Status::Fail },
        }
    }

    /// A row whose verdict is `measured ≥ bound`.
    pub fn at_least(check: &str, claim: &str, what: &str, measured: f64, bound_what: &str, bound: f64) -> Self {
        let ok = measured >= bound;
        Row {
            check: check.into(),
            claim: claim.into(),
            measured: format!("{what} = {}", fmt(measured)),
            bound: format!("≥ {bound_what} = {}", fmt(bound)),
            margin: margin(measured - bound, bound),
            status: if ok { Status::Pass } else { Status::Fail },
        }
    }

    /// A row for a value that is reported, not judged.
    pub fn info(check: &str, claim: &str, measured: String, reference: String) -> Self {
        Row {
            check: check.into(),
            claim: claim.into(),
            measured,
            bound: reference,
            margin: "—".into(),
            status: Status::Info,
        }
    }

    /// A row for a failure to compute the quantity at all (an error from a library call).
    pub fn error(check: &str, claim: &str, err: impl std::fmt::Display) -> Self {
        Row {
            check: check.into(),
            claim: claim.into(),
            measured: format!("error: {err}"),
            bound: "—".into(),
            margin: "—".into(),
            status: Status::Fail,
        }
    }
}

/// A number in 4 significant digits (scientific outside [1e-3, 1e5]).
pub fn fmt(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if !x.is_finite() {
        format!("{x}")
    } else if x.abs() >= 1e5 || x.abs() < 1e-3 {
        format!("{x:.3e}")
    } else {
        let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    }
}

fn margin(abs: f64, reference: f64) -> String {
    if reference != 0.0 && reference.is_finite() {
        format!("{} ({:+.1}%)", fmt(abs), 100.0 * abs / reference.abs())
    } else {
        fmt(abs)
    }
}

/// Escapes `|` for a markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The rows as a markdown table.
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::from("| check | claim (paper, equation) | measured | bound / reference | margin | verdict |\n");
    s.push_str("|---|---|---|---|---|---|\n");
    for r in rows {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            r.check,
            cell(&r.claim),
            cell(&r.measured),
            cell(&r.bound),
            cell(&r.margin),
            r.status.as_str()
        ));
    }
    s
}
