//! # bohf-pfts
//!
//! PF-TS, Thompson sampling for Bayesian optimisation from preferential feedback (Lazzaro, Buffelli,
//! Shiu & Vakili 2026, Algorithm 1), with double-TS pairing, on a finite candidate set.
//!
//! Each round draws two independent joint posterior samples of the utility and duels their two
//! maximisers. The posterior is the BOHF papers' shared model: the kernel logistic MLE mean
//! h_t(x, x′) = g_t(x) − g_t(x′) (PF-TS eq. (6)–(8), (18)) and the dueling covariance k^D_t of eq. (9)
//! with noise λκ, kept in utility space as Ŝ_t (note §2.6). Sampling f̃ ~ N(g_t, v_t² Ŝ_t) and taking
//! argmax f̃ is exactly the paper's anchored rule argmax_x h̃(x, x₀) for every anchor x₀
//! (Proposition 1); [`AnchoredSampler`] keeps the anchored form so that tests can check this.
//!
//! * [`PfTs`] / [`PfTsConfig`]: the optimiser ([`bohf_core::Optimizer`]) and its settings
//!   (inference shared with the other BOHF methods, exploration schedule v_t of note §3.6).
//! * [`AnchoredSampler`], [`anchored_covariance`]: the anchored sampler of Algorithm 1 lines 4–8.
//! * Every argmax takes the lowest index among ties within a 1e-12 relative tolerance
//!   ([`bohf_core::argmax_lowest`]).
//!
//! ```
//! use bohf_core::{FiniteDomain, Optimizer, Query, Answer, SearchContext, rng};
//! use bohf_pfts::{PfTs, PfTsConfig};
//!
//! let ctx = SearchContext::new(FiniteDomain::linspace(0.0, 1.0, 30)?, 50)?;
//! let mut pfts = PfTs::new(&ctx, PfTsConfig::default().check()?)?;
//! let mut r = rng::seeded(1);
//! for _ in 0..20 {
//!     let q = pfts.suggest(&mut r)?;
//!     let Query::Duel(x, y) = &q else { unreachable!() };
//!     // A person who prefers points nearer 0.7.
//!     let first_wins = (x.coords[0] - 0.7).abs() < (y.coords[0] - 0.7).abs();
//!     pfts.observe(&q, Answer::Duel { first_wins })?;
//! }
//! let best = pfts.recommend()?;
//! assert!(best.coords[0] >= 0.0 && best.coords[0] <= 1.0);
//! # Ok::<(), bohf_core::Error>(())
//! ```
#![warn(missing_docs)]

mod anchored;
mod config;
mod pfts;

pub use anchored::{AnchoredSampler, anchored_covariance};
pub use bohf_core::WidthSchedule;
pub use config::{PfTsConfig, ValidPfTsConfig};
pub use pfts::PfTs;

#[cfg(test)]
mod tests;
