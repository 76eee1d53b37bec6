//! # bohf-popbo
//!
//! POP-BO, principled optimistic preferential Bayesian optimisation (Xu, Wang, Jiang, Svetozarevic
//! & Jones, ICML 2024, Algorithm 1), with x′_t = x_{t−1}, on a finite candidate set.
//!
//! Each step compares a new point with the previous one. The new point maximises the optimistic
//! advantage max_{f̃ ∈ C_t} f̃(x) − f̃(x_{t−1}) over the likelihood-ratio confidence set
//! C_t = {‖f̃‖_k ≤ B, ℓ_t(f̃) ≥ ℓ_t(f̂^MLE) − β} (eq. (9), (24)); the conic programs are those of
//! bohf-confidence.
//!
//! * [`PopBo`] / [`PopBoConfig`]: the optimiser ([`bohf_core::Optimizer`]) and its settings
//!   (kernel, B, β schedule, report rule, x₀); [`StepInfo`]: what a step computed (value, how many
//!   conic programs were solved).
//! * [`ReportRule`]: max-MLE over the sampled points (the experiments' default), max of the
//!   minimum-norm MLE interpolant over the candidates, or the theoretical t* of eq. (19).
//! * [`PopBoBox`] ([`continuous`]): the continuous-box mode, a multistart minorise–maximise search
//!   (Danskin gradients, minorants from known feasible points) around the exact conic inner problem.
//! * [`pair_sigmas`], [`duel_error_bound`], [`t_star`]: σ^{ff′} of eq. (16) and the rule (19).
//!
//! ```
//! use bohf_core::{Answer, FiniteDomain, Optimizer, Query, SearchContext, rng};
//! use bohf_popbo::{PopBo, PopBoConfig};
//!
//! let ctx = SearchContext::new(FiniteDomain::linspace(0.0, 1.0, 30)?, 10)?;
//! let mut config = PopBoConfig::default();
//! config.confidence.norm_bound = 3.0;
//! let mut popbo = PopBo::new(&ctx, config.check()?)?;
//! let mut r = rng::seeded(1);
//! for _ in 0..8 {
//!     let q = popbo.suggest(&mut r)?;
//!     let Query::Duel(x, y) = &q else { unreachable!() };
//!     // A person who prefers points nearer 0.7.
//!     let first_wins = (x.coords[0] - 0.7).abs() < (y.coords[0] - 0.7).abs();
//!     popbo.observe(&q, Answer::Duel { first_wins })?;
//! }
//! let best = popbo.recommend()?;
//! assert!(best.coords[0] >= 0.0 && best.coords[0] <= 1.0);
//! # Ok::<(), bohf_core::Error>(())
//! ```
#![warn(missing_docs)]

mod config;
pub mod continuous;
mod popbo;
mod report;

pub use bohf_confidence::ConfidenceConfig;
pub use bohf_core::WidthSchedule;
pub use config::{InitialPoint, PopBoConfig, ReportRule, ValidPopBoConfig};
pub use continuous::{BoxSearchConfig, BoxStepInfo, PopBoBox, ValidBoxSearchConfig};
pub use popbo::{PopBo, StepInfo};
pub use report::{duel_error_bound, pair_sigmas, t_star};

#[cfg(test)]
mod tests;
