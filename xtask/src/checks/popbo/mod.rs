//! POP-BO (Xu et al. 2024) and the likelihood-ratio confidence sets of bohf-confidence: constants,
//! β tables, coverage (Theorem 3.1), the elliptical and Lemma J.1 bounds, and regret growth.
//!
//! Notes: `papers/notes/001_pop-bo.md` §2–§4 (formulas), §4.7 items 1–13 and §7.2 (the catalogue).
//! Every reference value is computed here from the paper's formula (the kernels, the sigmoid
//! constants, the information gain and the likelihood by hand); the library is only the thing measured.
//!
//! Instances. The theory assumes k ≤ 1 (Assumption 2.4), so coverage and the Lemma 3.5 / J.1 bounds
//! use a 1-D GP-sample instance of the paper's construction (§6.1, min-norm interpolant of 10 knot
//! values) with an SE kernel of **unit variance**, ℓ = 1, on [0, 10], 30 grid candidates,
//! B = 1.1‖f‖ (App. P). The regret growth uses the paper's own GP instances (variance 9, ℓ = 1,
//! β_t = β₀√t with β₀ = 1, B = 1.1‖f‖).
//!
//! Where a bound holds for every covering number N ≥ 1, the check uses log N = 0: the width is then
//! the smallest the theorem allows, so a pass holds a fortiori for the true N.

mod constants;
mod coverage;
mod lemmas;
mod regret;

use super::Check;
use crate::report::{Row, Status, fmt};
use bohf_confidence::{
    ConfidenceConfig, ConfidenceProblem, Observation, SigmoidConstants, beta_lemma35, beta1, lipschitz_constant,
    log_likelihood,
};
use bohf_core::{Answer, Duel, FiniteDomain, Optimizer, Query, SearchContext};
use bohf_infogain::log_log_fit;
use bohf_kernels::{KernelKind, KernelSpec};
use bohf_popbo::{InitialPoint, PopBo, PopBoConfig, WidthSchedule};
use bohf_problems::popbo::GpInstanceSpec;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use std::f64::consts::PI;

use constants::*;
use coverage::*;
use lemmas::*;
use regret::*;

/// δ of every high-probability statement.
const DELTA: f64 = 0.05;

/// The POP-BO checks, in table order.
pub fn catalogue() -> Vec<Check> {
    vec![
        Check { name: "const.popbo-sigma", in_quick: true, run: sigma_constants },
        Check { name: "beta.popbo-theorem31", in_quick: true, run: beta_table },
        Check { name: "identity.popbo-lemma-c3", in_quick: true, run: lemma_c3 },
        Check { name: "identity.popbo-lemma-a1", in_quick: true, run: lemma_a1_concavity },
        Check { name: "identity.popbo-lemma-a2", in_quick: true, run: lemma_a2 },
        Check { name: "identity.popbo-lemma41", in_quick: true, run: lemma41 },
        Check { name: "coverage.popbo-theorem31", in_quick: true, run: coverage_theorem31 },
        Check { name: "identity.popbo-lemma35", in_quick: true, run: lemma35 },
        Check { name: "identity.popbo-lemma-j1", in_quick: true, run: lemma_j1 },
        Check { name: "regret.popbo-growth", in_quick: true, run: regret_growth },
    ]
}

type R<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// σ(u) = 1/(1 + e^{−u}) (POP-BO Assumption 2.5).
fn sigmoid(u: f64) -> f64 {
    1.0 / (1.0 + (-u).exp())
}

/// The SE kernel σ² exp(−r²/(2ℓ²)) (GPy convention, notes §4.5 / App. L [R]).
fn se(variance: f64, ls: f64, a: &[f64], b: &[f64]) -> f64 {
    let r2: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum();
    variance * (-r2 / (2.0 * ls * ls)).exp()
}

/// Matérn-5/2 with unit variance, (1 + √5 r/ℓ + 5r²/(3ℓ²)) e^{−√5 r/ℓ} (notes §4.5 [R]).
fn matern52(ls: f64, a: &[f64], b: &[f64]) -> f64 {
    let r: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt();
    let s = 5f64.sqrt() * r / ls;
    (1.0 + s + s * s / 3.0) * (-s).exp()
}

fn rows_of(domain: &FiniteDomain) -> R<Vec<Vec<f64>>> {
    (0..domain.len()).map(|i| domain.coords(i).map_err(err)).collect()
}

fn gram_by_hand(pts: &[Vec<f64>], k: impl Fn(&[f64], &[f64]) -> f64) -> DMatrix<f64> {
    DMatrix::from_fn(pts.len(), pts.len(), |i, j| k(&pts[i], &pts[j]))
}

/// Runs `check` and turns an error into a failing row.
fn guarded(name: &str, claim: &str, check: impl FnOnce() -> R<Vec<Row>>) -> Vec<Row> {
    check().unwrap_or_else(|e| vec![Row::error(name, claim, e)])
}

fn judged(mut row: Row, judged: bool) -> Row {
    if !judged {
        row.status = Status::Info;
    }
    row
}
