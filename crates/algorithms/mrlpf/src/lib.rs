//! # bohf-mrlpf
//!
//! MR-LPF, multi-round learning from preference-based feedback (Kayal, Vakili, Toni, Shiu &
//! Bernacchia, ICML 2025, Algorithm 1), on a finite candidate set X.
//!
//! * [`round_schedule`]: N_1 = ⌈√T⌉, N_r = ⌈√(N_{r−1} T)⌉, the last round truncated so that
//!   Σ N_r = T (Section 3).
//! * Within round r, the n-th duel is the ordered pair of the active set M_r with the largest
//!   posterior standard deviation given **that round's duels only** (eq. (11)):
//!
//!   ```text
//!   (x_(n,r), x′_(n,r)) = argmax_{x, x′ ∈ M_r} σ_(n−1,r)(x, x′),
//!   σ²(z) = k_D(z, z) − k_D,t(z)ᵀ (K^D_t + ρ_r I)⁻¹ k_D,t(z)          (eq. (10))
//!   ```
//!
//!   with ρ_r = λκ (experiments) or λκ_r, κ_1 = κ, κ_r = 6 (theory) — [`RoundNoise`]. σ does not
//!   depend on labels, so a round is a batch ([`MrLpf::round_batch`], [`max_variance_batch`]).
//! * At the end of round r the kernel logistic MLE h = g(x) − g(x′) is fitted to the round's duels,
//!   and (eq. (12), [`bohf_gp::PreferenceModel::plausible`], with the same σ as eq. (11))
//!
//!   ```text
//!   M_{r+1} = { x ∈ M_r : ∀ x′ ∈ M_r,  μ(h(x, x′)) + β_(r) σ(x, x′) ≥ 1/2 }
//!   ```
//!
//!   with β constant (experiments: 1) or eq. (14) ([`BETA_RULES`], [`theoretical_beta`]).
//! * Output: a member of M_{R+1}, the argmax of the last fit over it ([`MrLpf`] documents the rule).
//!
//! ```
//! use bohf_core::{Answer, FiniteDomain, Optimizer, Query, SearchContext, rng};
//! use bohf_mrlpf::{MrLpf, MrLpfConfig};
//!
//! let ctx = SearchContext::new(FiniteDomain::linspace(0.0, 1.0, 30)?, 100)?;
//! let mut alg = MrLpf::new(&ctx, MrLpfConfig::default().check()?)?;
//! assert_eq!(alg.schedule(), &[10, 32, 57, 1]);
//! let mut r = rng::seeded(1);
//! for _ in 0..100 {
//!     let q = alg.suggest(&mut r)?;
//!     let Query::Duel(a, b) = &q else { unreachable!() };
//!     // A respondent who prefers the candidate closer to 0.7.
//!     let first_wins = (a.coords[0] - 0.7).abs() < (b.coords[0] - 0.7).abs();
//!     alg.observe(&q, Answer::Duel { first_wins })?;
//! }
//! assert!(alg.is_finished() && !alg.active_set().is_empty());
//! let best = alg.recommend()?;
//! assert!(alg.active_set().contains(&best.index.unwrap()));
//! # Ok::<(), bohf_core::Error>(())
//! ```
#![warn(missing_docs)]

mod algorithm;
mod config;
mod schedule;
mod select;

pub use algorithm::{MrLpf, RoundRecord};
pub use config::{
    BETA_RULES, InitialSigma, LATER_ROUND_KAPPA, MrLpfConfig, RoundNoise, ValidMrLpfConfig, theoretical_beta,
};
pub use schedule::{max_rounds_bound, round_schedule};
pub use select::{max_variance_batch, max_variance_pair};

#[cfg(test)]
mod tests;
