//! The B-doubling hypothesis test for an unknown norm bound (POP-BO App. G, Remark 2.3; COBOL §4.1).

use crate::problem::{ConfidenceProblem, MleFit, MleWarmStart};
use bohf_core::{Error, Result};

/// The outcome of one test of B̂ against 2B̂.
#[derive(Debug, Clone, PartialEq)]
pub struct DoublingTest {
    /// The bound B̂ tested.
    pub norm_bound: f64,
    /// The MLE with bound B̂.
    pub mle: MleFit,
    /// The MLE with bound 2B̂; `None` when it was not needed: [`ConfidenceProblem::max_log_likelihood_bound`]
    /// (centred at the MLE with B̂) already showed that B̂ is not rejected.
    pub mle_doubled: Option<MleFit>,
    /// The certified upper bound on the log-likelihood of the MLE with 2B̂ computed before
    /// solving it.
    pub doubled_bound: f64,
    /// β₁(·|2B̂), the width used in the test.
    pub beta_doubled: f64,
    /// Whether B̂ is rejected (and should be doubled).
    pub double: bool,
}

/// Tests B̂ = `problem.norm_bound()`: if B̂ ≥ ‖f‖ then w.h.p. ℓ(f̂_{B̂}) ≥ ℓ(f) ≥ ℓ(f̂_{2B̂}) − β₁(·|2B̂),
/// so B̂ is rejected ("double B") when
///
/// ```text
/// ℓ_t(f̂^MLE_{t|B̂}) < ℓ_t(f̂^MLE_{t|2B̂}) − β₁(ε, δ, t | 2B̂)        (POP-BO App. G)
/// ```
///
/// `beta_doubled` is β₁ computed with bound 2B̂ (e.g. [`crate::beta1`] or the practical schedule; the
/// COBOL code uses 2c_α√(n+1)).
///
/// One or two MLE solves: the MLE with 2B̂ is solved only if the certified bound U ≥ ℓ(f̂_{2B̂})
/// of [`ConfidenceProblem::max_log_likelihood_bound`] (no solve; centred at f̂_{B̂}) leaves the
/// rejection possible, i.e. unless ℓ(f̂_{B̂}) ≥ U − β₁ + 10⁻⁶(1 + |U|) (the margin covers the MLE
/// solver's tolerance, 10⁻¹¹). The outcome is the same either way: the solved test would not
/// reject either.
pub fn doubling_test(problem: &ConfidenceProblem, beta_doubled: f64) -> Result<DoublingTest> {
    doubling_test_from(problem, beta_doubled, None)
}

/// [`doubling_test`] with the MLE at B̂ started from `start` (an earlier MLE on a prefix of the
/// support, [`ConfidenceProblem::mle_from_start`]; certified as a cold solve). The MLE at 2B̂, when
/// it is solved, starts cold, as the next iteration's MLE would if it solved it afresh after B̂
/// doubled (so reusing it stays exact).
pub fn doubling_test_from(
    problem: &ConfidenceProblem,
    beta_doubled: f64,
    start: Option<&MleWarmStart>,
) -> Result<DoublingTest> {
    if !(beta_doubled.is_finite() && beta_doubled >= 0.0) {
        return Err(Error::invalid("beta_doubled", format!("must be finite and >= 0, got {beta_doubled}")));
    }
    let mle = problem.mle_from_start(start)?;
    let doubled = problem.with_norm_bound(2.0 * problem.norm_bound())?;
    let doubled_bound = doubled.max_log_likelihood_bound(&mle.w)?;
    let norm_bound = problem.norm_bound();
    if mle.log_likelihood >= doubled_bound - beta_doubled + 1e-6 * (1.0 + doubled_bound.abs()) {
        return Ok(DoublingTest { norm_bound, mle, mle_doubled: None, doubled_bound, beta_doubled, double: false });
    }
    let mle_doubled = doubled.mle()?;
    let double = mle.log_likelihood < mle_doubled.log_likelihood - beta_doubled;
    Ok(DoublingTest { norm_bound, mle, mle_doubled: Some(mle_doubled), doubled_bound, beta_doubled, double })
}

/// Repeats the test, doubling B̂ while it is rejected, at most `max_doublings` times. `beta_at` gives
/// β₁(·|B) for a bound B. Returns the problem with the accepted bound and every test made.
pub fn adapt_norm_bound(
    problem: &ConfidenceProblem,
    mut beta_at: impl FnMut(f64) -> Result<f64>,
    max_doublings: usize,
) -> Result<(ConfidenceProblem, Vec<DoublingTest>)> {
    let mut current = problem.clone();
    let mut tests = Vec::new();
    for _ in 0..max_doublings {
        let test = doubling_test(&current, beta_at(2.0 * current.norm_bound())?)?;
        let double = test.double;
        tests.push(test);
        if !double {
            break;
        }
        current = current.with_norm_bound(2.0 * current.norm_bound())?;
    }
    Ok((current, tests))
}
