//! # bohf-confidence
//!
//! Likelihood-ratio confidence sets over an RKHS ball (POP-BO Theorem 3.1, COBOL Lemma 3.2) in the
//! finite-dimensional form of the representer theorem (POP-BO Lemma 4.1), solved as conic programs
//! with clarabel: one exponential-cone pair per observation for its softplus term, one second-order
//! cone for the norm bound, and whitened variables Z = Lw with K + εI = LLᵀ (bohf-core's jittered
//! Cholesky; the jitter ε is recorded in [`ConfidenceProblem::jitter`]).
//!
//! * [`ConfidenceProblem`]: the data part (support Gram factor, duels or unary labels, B), and the
//!   norm-constrained MLE max ℓ(Z) s.t. ZᵀK⁻¹Z ≤ B² ([`ConfidenceProblem::mle`], POP-BO eq. (22),
//!   COBOL eq. (37)).
//! * [`ConfidenceSet`]: C_t = {‖f̃‖ ≤ B, ℓ(f̃) ≥ ℓ* − β}; at a [`Candidate`] x: the optimistic
//!   advantage max_{f̃∈C_t} f̃(x) − f̃(x_r) (POP-BO eq. (24)) and the pointwise bounds sup/inf f̃(x)
//!   (eq. (12)); certified cheap bounds, a pruned argmax over a candidate list, and the sensitivity
//!   of each value to the candidate's kernel values (for gradient search over a continuous domain).
//! * [`ConfidenceSet::pointwise_bounds`]: sup and inf f̃(x) (COBOL's g_upper, g_lower) at a batch of
//!   points for a stated [`BoundsQuestion`] (every value; "is the width above a threshold" at each
//!   point; which point has the largest sup / smallest inf), solving only the programs that can
//!   change the answer and returning certified enclosures ([`PointBounds`]) of every value.
//! * [`beta1`], [`beta_at`]: β₁(ε, δ, t) of Theorem 3.1 and the practical β₀√t, β₀√(t+1) of a
//!   [`bohf_core::WidthSchedule`];
//!   [`beta_lemma35`] (β(ε, δ/2, t) of Lemma 3.5, for the reporting rule (19)) with the
//!   [`SigmoidConstants`] of App. B; COBOL's [`alpha1_cobol`].
//! * [`ConfidenceSet::curvature_pointwise_bounds`]: certified sup/inf f̃(x) bounds from a concave
//!   quadratic Q ≥ ℓ on the set (per-observation quadratics above log σ on the range the ball and
//!   latent box allow), through the 2-D dual of max gᵀp over {‖p‖ ≤ B, Q ≥ ℓ* − β}; unlike the cuts
//!   they need no nearby solved program ([`ConfidenceProblem::max_log_likelihood_bound`]: the same Q
//!   bounds the maximum likelihood without solving).
//! * [`doubling_test`], [`adapt_norm_bound`]: the B-doubling hypothesis test (POP-BO App. G); the
//!   MLE with 2B is solved only when the certified likelihood bound leaves a rejection possible.
//!
//! Every solve checks clarabel's status: anything but `Solved` (or an `AlmostSolved` whose gap and
//! residuals meet [`ConfidenceConfig::acceptable_tolerance`]) is an [`bohf_core::Error::SolverFailed`]
//! naming the program, with clarabel's status mapped one to one to a [`bohf_core::SolverStatus`]
//! (`Retried` when the cautious retry failed too) and a detail that explains it; successful results
//! carry a [`SolveInfo`] with clarabel's own [`SolverStatus`].
//!
//! ## Many candidates quickly (POP-BO's inner loop)
//!
//! Everything that does not depend on x is built once per step: the Gram factor and observation
//! rows ([`ConfidenceProblem`]), the MLE, and the clarabel solver with its constraint data
//! ([`ConfidenceSet::new`]); a candidate changes only the objective vector (and, with the latent box,
//! two constraint rows), updated in place. Clarabel is an interior-point method without warm starts,
//! so the saving there is the setup (and, with the latent box, the lifted layout that keeps the
//! box and observation rows sparse, about half the work per iteration); the big saving is pruning. The value at x is the support
//! function of one convex set inside the B-ball, so B‖g_x‖ (on the support, the t = 0 closed form
//! B√(k(x,x) − 2k(x,x′) + k(x′,x′))) bounds it from above; every halfspace containing the set
//! tightens that bound at all candidates at once (closed form for ball ∩ halfspace,
//! [`ball_halfspace_support`]): the likelihood tangents at each optimum found (ℓ is concave), the
//! halfspace of every solved direction, and, when a program's latent-box row at its candidate is
//! active, the Lagrangian cut priced by that row's multiplier (weak duality: the same multiplier
//! bounds every other candidate's program); with a latent box, one program at the reference caps
//! every candidate. Feasible points (the MLE, earlier
//! optima) bound it from below. [`ConfidenceSet::maximise_advantage`] (the search POP-BO runs)
//! solves candidates in decreasing order of their bound and stops when no bound can beat the best
//! value: at POP-BO's Table-2 size (t = 30, 400 candidates, no latent box) it solves 7 programs
//! instead of 400 (`benches/confidence.rs`). With the latent box (Table 2's Levy13: B = 6, |z| ≤ 3)
//! the advantage is a plateau where f̃(x) reaches the box at most candidates; the Lagrangian cuts
//! took the programs per step there from up to 391 of 400 to at most 96, and a whole 30-run Levy13
//! search from 178 s to 10 s (docs/popbo.md, "Screening on the latent-box plateau"). The batch
//! bounds ([`ConfidenceSet::pointwise_bounds`]) run the same loop over ±(l_x, ρ_x). Per step, POP-BO
//! then does:
//!
//! ```
//! use bohf_confidence::{beta_at, ConfidenceConfig, ConfidenceProblem, ConfidenceSet, Observation};
//! use bohf_core::Duel;
//! use nalgebra::DMatrix;
//!
//! // 20 candidates on [0, 1] with an SE kernel (ℓ = 0.2); two duels chained as in POP-BO.
//! let xs: Vec<f64> = (0..20).map(|i| i as f64 / 19.0).collect();
//! let base = DMatrix::from_fn(20, 20, |i, j| (-(xs[i] - xs[j]).powi(2) / (2.0 * 0.04)).exp());
//! let duels = [
//!     Observation::Duel(Duel::new(5, 0, true)),
//!     Observation::Duel(Duel::new(12, 5, false)),
//! ];
//! let config = ConfidenceConfig::with_norm_bound(2.0);
//! // Support = [x₀ = 0] ∪ observed candidates; the duels are remapped to support positions.
//! let problem = ConfidenceProblem::on_candidates(&base, &[0], &duels, &config)?;
//! let mle = problem.mle()?;
//! let schedule = bohf_core::WidthSchedule::SqrtTPlusOne { scale: 1.0 };
//! let beta = beta_at(&schedule, duels.len(), config.norm_bound)?;
//! let mut set = ConfidenceSet::new(&problem, &mle, beta)?;
//! let reference = problem.support_position(12).unwrap(); // x′_t = x_{t−1}
//! let all: Vec<usize> = (0..20).collect();
//! let candidates = problem.candidates_from_gram(&base, &all)?;
//! let search = set.maximise_advantage(&candidates, reference, Some(&candidates[12]))?;
//! assert!(search.value >= 0.0 && search.solved <= 20);
//! let (lo, hi) = (set.lower_bound(&candidates[search.best])?, set.upper_bound(&candidates[search.best])?);
//! assert!(lo.value <= hi.value);
//! # Ok::<(), bohf_core::Error>(())
//! ```
#![warn(missing_docs)]

mod beta;
mod config;
mod conic;
pub mod curvature;
mod dense;
mod doubling;
mod dual;
mod interior;
mod problem;
mod set;

pub use beta::{
    BETA_RULES, SigmoidConstants, alpha1_cobol, beta_at, beta_lemma35, beta1, check_beta, lipschitz_constant,
};
pub use clarabel::solver::SolverStatus;
pub use config::{ConfidenceConfig, SolverChoice, ValidConfidenceConfig};
pub use conic::{SolveInfo, SolveMethod};
pub use doubling::{DoublingTest, adapt_norm_bound, doubling_test, doubling_test_from};
pub use problem::{Candidate, ConfidenceProblem, MleFit, MleWarmStart, Observation, log_likelihood};
pub use set::{
    AdvantageSearch, BatchBounds, BoundsQuestion, ConfidenceSet, ConicSolution, KernelSensitivity, PointBounds,
    Screened, SolveCounts, ValueBounds, ball_halfspace_support,
};

#[cfg(test)]
mod tests;
