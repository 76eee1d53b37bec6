//! The Laplace preference GP (Chu & Ghahramani 2005, "Preference learning with Gaussian
//! processes", ICML; BoTorch's `PairwiseGP`), with the numerics of Rasmussen & Williams 2006,
//! *Gaussian Processes for Machine Learning* (GPML), §3.4 and §5.5.1.
//!
//! ## Model
//!
//! Latent utilities f = (f(x_1), …, f(x_n)) at the n distinct compared points ([`PreferenceData`]:
//! candidate indices on a finite domain, or points of a box merged within a tolerance), prior
//! f ~ N(0, K), K_rc = k(x_r, x_c). The duels are aggregated per unordered pair k = (i, j) with
//! counts (n_i, n_j); with Δ_k = f_i − f_j and the link μ (probit Φ or logistic) at scale s
//! (Chu & Ghahramani eq. (3): s = √2 σ),
//!
//! ```text
//! log p(y | f) = Σ_k L_k(Δ_k),   L_k(Δ) = n_i log μ(Δ/s) + n_j log μ(−Δ/s).
//! ```
//!
//! With D the p×n difference operator (row k = e_i − e_j), ∇log p(y | f) = Dᵀ L′ and
//! W = −∇∇log p(y | f) = Dᵀ diag(w) D, w_k = −L_k″(Δ_k) ≥ 0 (Chu & Ghahramani eq. (6)–(7)).
//!
//! **Best-of-k choices** ([`ChoiceCounts`]), aggregated per set of options o_1..o_k with wins n_u
//! (N = Σ n_u), have the multinomial-logit (Plackett–Luce top-1) likelihood of
//! [`bohf_core::link::choice_log_probability`] at the same scale s:
//!
//! ```text
//! L_c(f) = Σ_u n_u log p_u,   p_u = exp(f_{o_u}/s) / Σ_v exp(f_{o_v}/s),
//! ∂L_c/∂f_{o_u} = (n_u − N p_u)/s,   −∇∇L_c = N (diag(p) − p pᵀ)/s²
//! ```
//!
//! (the softmax likelihood of GPML §3.5, eq. (3.34)–(3.38), one "class" per option). Since
//! diag(p) − p pᵀ = Σ_{u<v} p_u p_v (e_u − e_v)(e_u − e_v)ᵀ, a choice adds the k(k − 1)/2 difference
//! rows (o_u, o_v) with weights w_uv = N p_u p_v/s² to D, and everything below holds unchanged with
//! the duels' and the choices' rows together ([`PreferenceData::difference_rows`]). At k = 2 a
//! choice is the logistic duel at scale s. The evidence gradient needs ∂w_uv/∂f_{o_t} =
//! w_uv (δ_ut + δ_vt − 2 p_t)/s in place of a duel's dw/dΔ. W is PSD but
//! singular (rank ≤ min(p, n − 1)), so W^{1/2} of GPML's B = I + W^{1/2} K W^{1/2} is replaced by the
//! factor G = Dᵀ diag(√w) (W = G Gᵀ) and
//!
//! ```text
//! B = I_p + Gᵀ K G = I + diag(√w) M diag(√w),   M = D K Dᵀ,
//! ```
//!
//! whose eigenvalues are ≥ 1 (a Cholesky factor always exists, whatever K, repeated duels or
//! near-duplicate points) and det B = det(I + K W) (Sylvester). K itself is never factorised.
//!
//! ## MAP (GPML Alg. 3.1, eq. (3.18))
//!
//! Newton on Ψ(f) = log p(y | f) − ½ fᵀK⁻¹f in the parametrisation f = K a:
//! b = W f + ∇log p(y | f), a_new = b − G B⁻¹ Gᵀ K b (= (K⁻¹ + W)⁻¹ b expressed as K a_new), with a
//! backtracking line search on Ψ(a) = −½ aᵀKa + log p(y | Ka) (GPML §3.4.1's remark; Ψ is
//! concave since both links are log-concave). It stops when a = ∇log p(y | f̂) (eq. (3.17)) holds to
//! [`LaplaceConfig::newton_tolerance`].
//!
//! ## Posterior (GPML eq. (3.21), (3.24))
//!
//! q(f | y) = N(f̂, (K⁻¹ + W)⁻¹); at any x, m(x) = k(x)ᵀ a and
//! v(x, x′) = k(x, x′) − k(x)ᵀ G B⁻¹ Gᵀ k(x′) ((K + W⁻¹)⁻¹ = G B⁻¹ Gᵀ, valid for singular W).
//!
//! ## Evidence and its gradient (GPML eq. (3.32), (5.20)–(5.24))
//!
//! log q(y | θ) = −½ aᵀf̂ + log p(y | f̂) − ½ log det B. Its derivative in a kernel hyperparameter θ_j
//! with C = ∂K/∂θ_j is the explicit part ½ aᵀCa − ½ tr(R C), R = G B⁻¹ Gᵀ, plus the implicit part
//! s₂ᵀ ∂f̂/∂θ_j with ∂f̂/∂θ_j = (I + K W)⁻¹ C a (eq. (5.24)) and
//! (s₂)_m = ∂ log q/∂f̂_m = −½ tr(Σ ∂W/∂f_m) = −½ Σ_k w_k′ D_km (D Σ Dᵀ)_kk, Σ = (K⁻¹ + W)⁻¹,
//! w_k′ = dw_k/dΔ — eq. (5.23) for a W that is not diagonal. Since (I + KW)⁻¹ = I − K R,
//! s₂ᵀ(I + KW)⁻¹ C a = uᵀ C a with u = (I − R K) s₂, and the whole gradient is one contraction
//! Σ_ik Q_ik C_ik, Q = ½ a aᵀ − ½ R + u aᵀ ([`LaplacePreferenceGp::log_evidence_gradient`]):
//! lengthscales through [`bohf_kernels::Stationary::log_lengthscale_grad_contraction`], the
//! outputscale σ² through C = K. Cost O(p³ + n² d) per evaluation.
//!
//! ## Hyperparameters ([`fit_laplace`])
//!
//! Lengthscales (ARD) and outputscale σ² maximise log q(y | θ) + Σ_j log p(ℓ_j) + log p(σ²) over a
//! log box, by bohf-optim's projected L-BFGS from the start and optional Sobol restarts. Named
//! priors: [`LaplaceFitConfig::default`] (the robust default, a dimension-scaled log-normal on ℓ
//! with the floor 0.025) and [`LaplaceFitConfig::botorch_pairwise`] (Gamma(2.4, 2.7) on ℓ, flat
//! outputscale on [0.01, 100]). The link scale s stays fixed (only σ²/s² is identified).
//!
//! Determinism: latent points are numbered by first appearance, pairs and choice sets sorted
//! (`BTreeMap`s), no sum depends on a thread count. Duel-only data take exactly the operations they
//! took before choices existed (the choices' terms are appended after the duels').

mod data;
mod fit;
mod model;

pub use data::{ChoiceCounts, PairCounts, PreferenceData};
pub use fit::{
    LaplaceFit, LaplaceFitConfig, LaplaceFitOutcome, OutputscalePrior, ValidLaplaceFitConfig, fit_laplace,
    fit_laplace_refit, fit_laplace_warm, warm_start,
};
pub use model::{JointPosterior, LaplaceConfig, LaplacePreferenceGp, NewtonReport, ValidLaplaceConfig};

#[cfg(test)]
mod choice_tests;
#[cfg(test)]
mod tests;
