//! # bohf-compgpucb
//!
//! COMP-GP-UCB, "Zeroth Order Non-convex Optimization with Dueling-Choice Bandits" (Xu, Joshi,
//! Singh & Dubrawski, UAI 2020): maximise f with cheap comparisons (duels against uniformly random
//! opponents, from a possibly biased f_c) and expensive direct queries of f. Notes:
//! `papers/notes/002_comp-gp-ucb.md`; guide: `docs/compgpucb.md`.
//!
//! * [`CompGpUcb`] / [`CompGpUcbConfig`]: Algorithm 1 (known ζ) and Algorithm 2 (unknown ζ,
//!   [`UnknownZeta`]) on a finite candidate set, with the experiments' γ-doubling and the
//!   random initial design.
//! * [`CompGpUcbBox`]: the same rule on a continuous box (bohf-optim's multistart search;
//!   phase 2 by [`maximize_constrained`]: screening, penalised local search, feasibility kept).
//! * [`Decision`]: what each step computed (phase, query kind, β^r σ^r, γ, ζ, f̂_r, feasibility),
//!   also reported by `step_details()`.
//! * [`select_constrained`]: phase 2's constrained argmax with the empty-set fallback.
//! * The paper's baselines that share its duel-outcome GP (note §3.3): [`Kss`] (Kernel
//!   Self-Sparring, duels only) and [`MfGpUcb`] (MF-GP-UCB with duels as the low fidelity).
//!   GP-UCB with values only is GP-UCB in `bohf-baselines`.
//! * [`Costs`]: λ_c, λ_l and Λ, read from the run's budget in the `SearchContext`.
//!
//! The paper's protocol (App. B) is the default; each ambiguous convention of notes 002 §5.3 is a
//! named option (`beta`, a [`bohf_core::WidthSchedule`] of [`BETA_RULES`], [`BetaClock`], [`LowerBoundRule`], [`ZetaScale`],
//! [`GammaRule`], [`GammaDoubling`], [`InitialCounting`], [`EmptyFallback`]).
#![warn(missing_docs)]

mod boxed;
mod candidates;
mod compgpucb;
mod config;
mod kss;
mod mfgpucb;

pub use boxed::{CompBoxSearch, CompGpUcbBox, ConstrainedMaximum, ValidCompBoxSearch, maximize_constrained};
pub use compgpucb::{CandidateMoments, CompGpUcb, Decision, Feedback, Phase, select_constrained};
pub use config::{
    BETA_RULES, BOX_BETA_RULES, BetaClock, COMPARISON_REFIT_EVERY, CompGpUcbConfig, Costs, DoublingAfter,
    DoublingScope, EmptyFallback, GammaDoubling, GammaRule, InitialCounting, InitialDesign, LABEL_REFIT_EVERY,
    LowerBoundRule, PRACTICAL_EPSILON, UnknownZeta, ValidCompGpUcbConfig, ZetaScale, beta_igp_ucb, beta_practical,
    initial_split,
};
pub use kss::{Kss, KssConfig, ValidKssConfig};
pub use mfgpucb::{MF_BETA_RULES, MfDecision, MfGpUcb, MfGpUcbConfig, ValidMfGpUcbConfig};

#[cfg(test)]
mod box_tests;
#[cfg(test)]
mod tests;
