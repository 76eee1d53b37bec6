//! # bohf-gp
//!
//! Gaussian-process surrogates for bohf: the kernel-ridge / GP-regression posterior used with
//! scalar feedback, and the preference model of the BOHF papers used with duels.
//!
//! ## Regression ([`regression`])
//!
//! MR-LPF eq. (5)–(6), PF-TS eq. (5), regulariser (noise variance) ρ:
//!
//! ```text
//! f̂_t(x) = k_t(x)ᵀ (K_t + ρI)⁻¹ y,      k̂_t(x, x′) = k(x, x′) − k_t(x)ᵀ (K_t + ρI)⁻¹ k_t(x′).
//! ```
//!
//! [`GpRegression`] works on points in ℝ^d with any kernel (incremental appends by a rank-one
//! Cholesky update); [`CandidateGp`] keeps the mean vector and covariance on a finite candidate set
//! from its base Gram, with O(n²) updates per observation (GP-UCB, GP-TS).
//!
//! ## Preferences ([`preference`])
//!
//! t duels (x_k, x′_k, y_k) on n candidates with base Gram K define the t×n difference matrix D
//! (row k = e_{x_k} − e_{x′_k}); the dueling Gram (MR-LPF eq. (4)) is K^D = D K Dᵀ, C = DᵀD and
//! C_W = Dᵀ W D are n×n and assembled in O(t).
//!
//! * **MLE** (MR-LPF §2.2, PF-TS eq. (6)–(8)): θ̂ minimises
//!   s Σ_k ℓ(y_k, (K^D θ)_k) + (λ/2) R(θ), R = ‖θ‖² (default) or θᵀK^Dθ, s = 1 or 1/t, ℓ the
//!   logistic or probit negative log-likelihood. Solved by damped Newton on an n-dimensional system
//!   (ThetaNorm: θ = D a, J = s K C_W K C + λI; RkhsNorm: v = Dᵀθ, J = s C_W K + λI), see
//!   [`KernelLogistic`]. Utility g_t = K Dᵀθ (PF-TS eq. (18)), h_t(i, j) = g_t(i) − g_t(j).
//! * **Posterior** (MR-LPF eq. (10), PF-TS eq. (9)):
//!   σ_t²(z) = k_D(z, z) − k_D,t(z)ᵀ (K^D + ρI)⁻¹ k_D,t(z) equals Ŝ_ii + Ŝ_jj − (Ŝ_ij + Ŝ_ji) for
//!   z = (i, j), with Ŝ = K − K Dᵀ(D K Dᵀ + ρI)⁻¹ D K = K − K F (FᵀKF + ρI)⁻¹ FᵀK for any
//!   C = F Fᵀ, see [`DuelingPosterior`]. Thompson draws of the utility are g_t + v·N(0, Ŝ)
//!   (PF-TS §2.6, Proposition 1).
//!
//! ## Laplace preference GP ([`laplace`])
//!
//! Chu & Ghahramani (2005) / BoTorch `PairwiseGP`: latent utilities at the distinct compared
//! points, the MAP by Newton, the Laplace posterior and evidence with its gradient, and
//! hyperparameters by maximum evidence with named priors ([`fit_laplace`]).
//!
//! Thompson samplers scale their draws by v_t from a [`bohf_core::WidthSchedule`] ([`exploration`]:
//! PF-TS App. F.1 and eq. (12), Chowdhury & Gopalan 2017 for scalar feedback).
//!
//! Joint draws on a candidate set go through [`JointSampler`] (pivoted-Cholesky factor of a
//! possibly singular covariance, with a way to pass given standard-normal draws).
#![warn(missing_docs)]

pub mod exploration;
mod gram;
pub mod inference;
pub mod laplace;
pub mod preference;
pub mod regression;
mod sampler;

pub use exploration::{check_exploration, default_exploration, exploration_scale};
pub use inference::{InferenceConfig, ValidInferenceConfig};
pub use laplace::{
    ChoiceCounts, JointPosterior, LaplaceConfig, LaplaceFit, LaplaceFitConfig, LaplacePreferenceGp, OutputscalePrior,
    PreferenceData, fit_laplace,
};
pub use preference::{
    DuelingPosterior, Duels, KernelLogistic, KernelLogisticConfig, LOW_RANK_MIN_CANDIDATES, PreferenceFit,
    PreferenceModel, Refit, Regulariser, plausible_filter,
};
pub use regression::fit_or_fixed;
pub use regression::{
    CandidateGp, CandidatePosterior, GpRegression, HyperFitConfig, LearnedGp, PointPosterior, UcbObjective,
    ValidHyperFitConfig, ValueGp, fit_hyperparameters,
};
pub use sampler::JointSampler;
