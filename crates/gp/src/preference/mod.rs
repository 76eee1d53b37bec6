//! The preference model of the BOHF papers (MR-LPF §2, PF-TS §2) on a finite candidate set.
//!
//! * [`Duels`]: the comparisons (x_k, x′_k, y_k) as candidate indices, and the sparse difference
//!   operator D (row k = e_{x_k} − e_{x′_k}) with K^D = D K Dᵀ.
//! * [`KernelLogistic`]: the regularised kernel logistic MLE h_t (MR-LPF eq. (7)–(9), PF-TS
//!   eq. (6)–(8)) by damped Newton in n-space, returning the utility g_t = K Dᵀθ (PF-TS eq. (18)).
//! * [`DuelingPosterior`]: σ_t² of MR-LPF eq. (10) / PF-TS eq. (9) through the utility-space
//!   covariance Ŝ, all-pairs σ in O(n²), O(n²) incremental updates, and joint utility samples.
//! * [`PreferenceModel`]: the one owner of the duels, the fit and the posterior, with σ, μ(h) ± βσ,
//!   the plausibility filter ([`plausible_filter`]) and the argmax of the utility over a subset.
//! * [`duel_loss`]: the per-duel negative log-likelihood and its derivatives, for either link.

mod duels;
mod likelihood;
mod mle;
mod model;
mod posterior;

pub use duels::Duels;
pub use likelihood::{DuelLoss, duel_loss, duel_loss_third, duel_nll};
pub use mle::{
    DEFAULT_LAMBDA, KernelLogistic, KernelLogisticConfig, LOW_RANK_MIN_CANDIDATES, PreferenceFit, Regulariser,
};
pub use model::{PreferenceModel, Refit, plausible_filter};
pub use posterior::{DuelingPosterior, EXPERIMENT_RHO};

#[cfg(test)]
mod tests;
