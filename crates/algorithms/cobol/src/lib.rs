//! # bohf-cobol
//!
//! COBOL, "Principled Bayesian Optimisation in Collaboration with Human Experts" (Xu, Adachi,
//! Jones & Osborne, NeurIPS 2024): Bayesian optimisation of f with an expert who labels points
//! accept/reject, with a no-harm guarantee (regret within a constant factor of GP-LCB whatever the
//! expert says) and a handover guarantee (expert queries grow sublinearly). Notes:
//! `papers/notes/004_expert-bo.md`.
//!
//! * [`Cobol`] / [`CobolConfig`]: Algorithm 1 (and COBOHL, Algorithm 2, and the vanilla GP-LCB
//!   baseline with the same f model, via [`Variant`]) on a finite candidate set ([`Cobol::new`])
//!   or a box ([`Cobol::new_box`], with [`CobolBoxSearch`]).
//! * [`model`]: the GP model of f with β of Lemma 3.1, and g's likelihood-ratio set (bohf-confidence).
//! * [`StepInfo`]: what each suggestion computed (phase, iteration, line 6's branch, λ, the
//!   g-interval width).
//!
//! bohf maximises a utility u; COBOL minimises f = −u, the one negation being [`cobol_objective`].
//! The paper's rules are the defaults; the authors' code's departures (notes §3.6) are
//! [`NoHarmRule::Code`], [`DualRule::Unprojected`], `beta = { rule = "constant", … }` and the g_thr values
//! [`G_THR_CODE`], [`G_THR_TUTORIAL`], [`G_THR_TABLE3`].
#![warn(missing_docs)]

mod cobol;
mod config;
pub mod model;

pub use cobol::{Branch, Cobol, Phase, StepInfo, cobol_objective, no_harm_paper};
pub use config::{
    AlphaRule, BETA_RULES, CobolBoxSearch, CobolConfig, DEFAULT_PROGRAMS, DualRule, G_THR_CODE, G_THR_PAPER,
    G_THR_TABLE3, G_THR_TUTORIAL, NoHarmRule, ValidCobolBoxSearch, ValidCobolConfig, Variant, XcSearch,
};

#[cfg(test)]
mod tests;
