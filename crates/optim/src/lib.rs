//! # bohf-optim
//!
//! The one acquisition optimiser of bohf for continuous boxes (issue 12):
//!
//! * [`minimize_bounded`]: local minimisation of a smooth function with an analytic gradient under
//!   box bounds, by a projected L-BFGS method ([`local`] cites the method and says why argmin does
//!   not fit);
//! * [`sobol_design`]: an Owen-scrambled Sobol design (the `sobol_burley` crate), deterministic
//!   given the RNG;
//! * [`maximize_on_box`]: multistart maximisation: screen a Sobol design and a uniform sample, refine
//!   the best points and the caller's extra starts with [`minimize_bounded`] on −f, keep the best
//!   (bohf's argmax tie rule over the start order);
//! * [`race_on_box`]: the same screening for an expensive f with the caller's own local search
//!   ([`Climb`]): starts taken in turn from one or more cheap rankings, raced on their exact
//!   values, and only the best climbed (POP-BO's box mode, whose f is a conic program per point).
//!
//! DIRECT (Jones, Perttunen & Stuckman 1993, the derivative-free global method COMP-GP-UCB and
//! MF-GP-UCB used) is **not offered**, because no small, well-kept Rust implementation fits: the
//! `direct` crate (0.1) is a one-release crate without maintenance, and the maintained ones come
//! inside large frameworks (`basin`, `scirs2-optimize` with ndarray) that would bring a second
//! linear-algebra stack; the multistart search covers the low-dimensional case (see
//! `docs/optim.md`).
#![warn(missing_docs)]

pub mod local;
pub mod multistart;

pub use local::{LocalConfig, LocalResult, LocalStop, ValidLocalConfig, minimize_bounded, minimize_bounded_warm};
pub use multistart::{
    BoxMaximum, BoxRace, Climb, MAX_DESIGN, MAX_SOBOL_DIM, MultistartConfig, Objective, RaceConfig,
    ValidMultistartConfig, ValidRaceConfig, maximize_on_box, race_on_box, screening_pool, sobol_design,
};
