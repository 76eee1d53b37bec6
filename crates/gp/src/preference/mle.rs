//! The regularised kernel logistic MLE h_t of MR-LPF §2.2 (eq. (7)–(9)) and PF-TS eq. (6)–(8),
//! solved by damped Newton in n-space.

use super::duels::Duels;
use super::likelihood::{duel_loss, duel_nll};
use crate::gram::check_base_gram;
use bohf_core::{Error, Link, Result, SolverStatus};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

mod config;
mod low_rank;

pub use config::{DEFAULT_LAMBDA, KernelLogisticConfig, Regulariser};
pub use low_rank::LOW_RANK_MIN_CANDIDATES;
use low_rank::{NewtonSystem, Support, low_rank_step};

/// The validated kernel logistic MLE (MR-LPF §2.2, PF-TS eq. (6)–(8)) on a finite candidate set:
///
/// ```text
/// L(θ) = s Σ_k ℓ(y_k, (K^D θ)_k) + (λ/2) R(θ),   K^D = D K Dᵀ,   s = 1 or 1/t,
/// R(θ) = ‖θ‖²  (ThetaNorm)   or   θᵀ K^D θ  (RkhsNorm),
/// ```
///
/// with ℓ the per-duel negative log-likelihood ([`super::duel_loss`]), D the t×n difference matrix of
/// the duels and K the candidates' base Gram. The fitted utility is g_t = K Dᵀ θ (PF-TS eq. (18)),
/// h_t(i, j) = g_t(i) − g_t(j).
///
/// **n-space Newton.** With v = Dᵀθ the logits are D K v, so everything lives in ℝⁿ:
///
/// * ThetaNorm: the optimum is θ = D a with a = −(s/λ) K Dᵀ ℓ′, a the root of
///   r(a) = s K Dᵀ ℓ′(D K C a) + λ a (C = DᵀD). Its Jacobian J = s K C_W K C + λ I (C_W = Dᵀ diag(ℓ″) D)
///   has real eigenvalues ≥ λ (K C_W K and C are PSD), and D J Δa equals the θ-space Hessian times
///   D Δa, so Δa = −J⁻¹ r is exactly the θ-space Newton step; the θ-gradient is D r(a).
/// * RkhsNorm: L depends on θ only through v; Newton on F(v) = s Dᵀ ℓ′(D K v) + λ v = 0 with
///   (s C_W K + λ I) Δ = −F, whose root is unique; the θ-gradient is D K F(v). The iterate is θ
///   itself: the n-space step rearranges to v + Δ = Dᵀθ⁺ with θ⁺ = −(1/λ)(s ℓ′ + s ℓ″ ∘ D K Δ) (the
///   t-space Newton step for s ℓ′(K^D θ) + λθ = 0), found in O(t) after the n×n solve. It is a
///   descent direction: ∇_v L·Δ = −Δᵀ K J Δ ≤ 0.
///
/// Each step is one n×n LU solve plus O(t) work; no t×t matrix is formed. A backtracking (Armijo)
/// line search on the true convex loss damps the steps; iteration stops when the θ-space gradient
/// norm is ≤ the tolerance, else [`Error::SolverFailed`] reports why (status `MaxIterations`,
/// `InsufficientProgress` for a line search without decrease, `Singular`, `NonFinite`), with the
/// iterations and gradient norm in its detail.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelLogistic {
    config: KernelLogisticConfig,
}

/// The result of a kernel logistic fit.
#[derive(Debug, Clone, PartialEq)]
pub struct PreferenceFit {
    regulariser: Regulariser,
    state: DVector<f64>,
    coefficients: DVector<f64>,
    utility: DVector<f64>,
    theta: DVector<f64>,
    logits: DVector<f64>,
    loss: f64,
    iterations: usize,
    gradient_norm: f64,
}

impl PreferenceFit {
    /// The fitted utility g_t = K Dᵀ θ on the candidates (PF-TS eq. (18)); h_t(i, j) = g_t(i) − g_t(j).
    pub fn utility(&self) -> &DVector<f64> {
        &self.utility
    }

    /// h_t(i, j) = g_t(i) − g_t(j) (MR-LPF §1.5: the fitted preference is a utility difference).
    pub fn preference(&self, i: usize, j: usize) -> Result<f64> {
        let n = self.utility.len();
        for index in [i, j] {
            if index >= n {
                return Err(Error::IndexOutOfRange { context: "preference query".into(), index, len: n });
            }
        }
        Ok(self.utility[i] - self.utility[j])
    }

    /// The n×n matrix H_ij = h_t(i, j) = g_t(i) − g_t(j).
    pub fn preference_matrix(&self) -> DMatrix<f64> {
        let n = self.utility.len();
        DMatrix::from_fn(n, n, |i, j| self.utility[i] - self.utility[j])
    }

    /// The representer coefficients θ ∈ ℝᵗ, h_t = Σ_k θ_k k_D(·, z_k) (MR-LPF eq. (8)). ThetaNorm: the
    /// unique minimiser θ = D a. RkhsNorm: the minimiser is not unique when K^D is singular (t ≥ n,
    /// repeated or self-duels); this is the one the Newton iteration from θ = 0 reaches, which tends
    /// to the canonical θ = −(s/λ) ℓ′(logits). Either way the reported gradient norm is that of L at
    /// this θ.
    pub fn theta(&self) -> &DVector<f64> {
        &self.theta
    }

    /// v = Dᵀθ ∈ ℝⁿ, so that g_t = K v, and off the candidate set g_t(x) = Σ_c v_c k(x, x_c).
    pub fn coefficients(&self) -> &DVector<f64> {
        &self.coefficients
    }

    /// The logits h_t(z_k) = (K^D θ)_k on the fitted duels.
    pub fn logits(&self) -> &DVector<f64> {
        &self.logits
    }

    /// The loss L(θ) at the returned θ.
    pub fn loss(&self) -> f64 {
        self.loss
    }

    /// The number of Newton steps taken.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// The final θ-space gradient norm ‖∇L(θ)‖₂ (≤ the tolerance).
    pub fn gradient_norm(&self) -> f64 {
        self.gradient_norm
    }

    /// The regulariser used.
    pub fn regulariser(&self) -> Regulariser {
        self.regulariser
    }
}

impl KernelLogistic {
    /// The settings.
    pub fn config(&self) -> &KernelLogisticConfig {
        &self.config
    }

    /// Fits h_t to `duels` on candidates with base Gram `k` (n×n), from θ = 0.
    pub fn fit(&self, k: &DMatrix<f64>, duels: &Duels) -> Result<PreferenceFit> {
        self.solve(k, duels, None)
    }

    /// Fits starting from an earlier fit (typically on a prefix of the same duels, as when refitting
    /// after every step), which usually saves Newton steps. The optimum is unique (in θ for
    /// ThetaNorm, in h for RkhsNorm), so the result equals [`KernelLogistic::fit`] up to the
    /// tolerance. ThetaNorm restarts from the earlier a (any a gives a valid θ = D a); RkhsNorm from
    /// the earlier θ truncated or zero-padded to the current duels. Falls back to θ = 0 if `start`
    /// used another regulariser or candidate set size.
    pub fn fit_warm(&self, k: &DMatrix<f64>, duels: &Duels, start: &PreferenceFit) -> Result<PreferenceFit> {
        check_inputs(k, duels)?;
        if start.regulariser != self.config.regulariser || start.utility.len() != duels.n_candidates() {
            return self.solve(k, duels, None);
        }
        let x0 = match self.config.regulariser {
            Regulariser::ThetaNorm => start.state.clone(),
            Regulariser::RkhsNorm => DVector::from_fn(duels.len(), |i, _| start.theta.get(i).copied().unwrap_or(0.0)),
        };
        self.solve(k, duels, Some(&x0))
    }

    /// L(θ) at a given θ ∈ ℝᵗ (evaluated in n-space: v = Dᵀθ, logits D K v, ‖θ‖² or vᵀ K v).
    pub fn loss_at(&self, k: &DMatrix<f64>, duels: &Duels, theta: &DVector<f64>) -> Result<f64> {
        let (v, logits) = self.theta_logits(k, duels, theta)?;
        let reg = match self.config.regulariser {
            Regulariser::ThetaNorm => theta.norm_squared(),
            Regulariser::RkhsNorm => v.dot(&(k * &v)),
        };
        Ok(self.data_scale(duels) * data_loss(self.config.link, duels, &logits) + 0.5 * self.config.lambda * reg)
    }

    /// ∇L(θ) = K^D (s ℓ′) + λ θ (ThetaNorm) or K^D (s ℓ′ + λ θ) (RkhsNorm), via D K Dᵀ in O(n² + t).
    pub fn gradient_at(&self, k: &DMatrix<f64>, duels: &Duels, theta: &DVector<f64>) -> Result<DVector<f64>> {
        let (_, logits) = self.theta_logits(k, duels, theta)?;
        let s = self.data_scale(duels);
        let g = DVector::from_iterator(
            duels.len(),
            duels.iter().zip(logits.iter()).map(|(d, &f)| s * duel_loss(self.config.link, d.first_wins, f).grad),
        );
        let lambda = self.config.lambda;
        Ok(match self.config.regulariser {
            Regulariser::ThetaNorm => duels.apply_d(&(k * duels.apply_dt(&g))) + theta * lambda,
            Regulariser::RkhsNorm => duels.apply_d(&(k * duels.apply_dt(&(g + theta * lambda)))),
        })
    }

    fn theta_logits(
        &self,
        k: &DMatrix<f64>,
        duels: &Duels,
        theta: &DVector<f64>,
    ) -> Result<(DVector<f64>, DVector<f64>)> {
        check_inputs(k, duels)?;
        if theta.len() != duels.len() {
            return Err(Error::dims("θ (one entry per duel)", duels.len(), theta.len()));
        }
        bohf_core::error::ensure_finite("θ", theta.iter())?;
        let v = duels.apply_dt(theta);
        let logits = duels.apply_d(&(k * &v));
        Ok((v, logits))
    }

    /// ‖∇L(θ ⊙ (1 ± ε)) − ∇L(θ)‖ with alternating signs: the gradient's sensitivity to a one-ulp
    /// relative perturbation of θ, a measure of the smallest gradient norm double precision can
    /// resolve (RkhsNorm with small λ or t ≫ n has large θ and K^D, hence a high floor).
    fn rounding_floor(
        &self,
        k: &DMatrix<f64>,
        duels: &Duels,
        theta: &DVector<f64>,
        gradient: &DVector<f64>,
    ) -> Result<f64> {
        let perturbed = DVector::from_fn(theta.len(), |i, _| {
            theta[i] * (1.0 + if i % 2 == 0 { f64::EPSILON } else { -f64::EPSILON })
        });
        Ok((self.gradient_at(k, duels, &perturbed)? - gradient).norm())
    }

    /// s = 1/t if the data term is scaled (and t > 0), else 1.
    fn data_scale(&self, duels: &Duels) -> f64 {
        if self.config.scale_by_n && !duels.is_empty() { 1.0 / duels.len() as f64 } else { 1.0 }
    }

    /// Damped Newton. The iterate is a ∈ ℝⁿ (ThetaNorm, θ = D a) or θ ∈ ℝᵗ itself (RkhsNorm, with
    /// v = Dᵀθ), so that the reported θ, the logits K^D θ and the reported θ-space gradient always
    /// belong together.
    ///
    /// The Newton system J Δ = −r is n×n, but J − λI has rank at most m, the number of candidates
    /// in the duels (C_W and C vanish off them). With [`NewtonSystem::Auto`], n ≥
    /// [`LOW_RANK_MIN_CANDIDATES`] and 2m < n it is solved through the Woodbury identity with an m×m
    /// system ([`low_rank_step`], O(n m + m³) instead of O(n³) per step); otherwise densely. Both
    /// solve the same equations; the results agree to rounding.
    fn solve(&self, k: &DMatrix<f64>, duels: &Duels, start: Option<&DVector<f64>>) -> Result<PreferenceFit> {
        self.solve_with(k, duels, start, NewtonSystem::Auto)
    }

    /// [`KernelLogistic::fit`] with the n×n Newton system always solved densely (the straightforward
    /// path, O(n³) per Newton step): a reference for testing the low-rank path that `fit` takes when
    /// few candidates are duelled.
    #[doc(hidden)]
    pub fn fit_dense(&self, k: &DMatrix<f64>, duels: &Duels) -> Result<PreferenceFit> {
        self.solve_with(k, duels, None, NewtonSystem::Dense)
    }

    // Long: one damped Newton loop whose step and line search share the iterate's terms.
    fn solve_with(
        &self,
        k: &DMatrix<f64>,
        duels: &Duels,
        start: Option<&DVector<f64>>,
        system: NewtonSystem,
    ) -> Result<PreferenceFit> {
        check_inputs(k, duels)?;
        let cfg = &self.config;
        let (n, t) = (duels.n_candidates(), duels.len());
        let s = self.data_scale(duels);
        let lambda = cfg.lambda;
        let theta_norm = cfg.regulariser == Regulariser::ThetaNorm;
        let support = Support::of(duels);
        let low_rank = system == NewtonSystem::Auto && n >= LOW_RANK_MIN_CANDIDATES && 2 * support.len() < n;
        // ThetaNorm: P = K C, so that J = s (K C_W) P + λI (dense path only).
        let p = if theta_norm && !low_rank { Some(k * duels.laplacian(None)) } else { None };
        let mut x = start.cloned().unwrap_or_else(|| DVector::zeros(if theta_norm { n } else { t }));
        let mut iterations = 0;
        loop {
            let theta = if theta_norm { duels.apply_d(&x) } else { x.clone() };
            let v = duels.apply_dt(&theta);
            let utility = k * &v;
            let logits = duels.apply_d(&utility);
            let terms: Vec<_> =
                duels.iter().zip(logits.iter()).map(|(d, &f)| duel_loss(cfg.link, d.first_wins, f)).collect();
            let grad_l = DVector::from_iterator(t, terms.iter().map(|l| s * l.grad));
            let reg = if theta_norm { theta.norm_squared() } else { v.dot(&utility) };
            let loss = s * terms.iter().map(|l| l.value).sum::<f64>() + 0.5 * lambda * reg;
            // The n-space residual (r(a) or F(v)) and the θ-space gradient (D r or D K F).
            let residual = if theta_norm {
                k * duels.apply_dt(&grad_l) + &x * lambda
            } else {
                duels.apply_dt(&grad_l) + &v * lambda
            };
            let grad_theta = if theta_norm { duels.apply_d(&residual) } else { duels.apply_d(&(k * &residual)) };
            let gradient_norm = grad_theta.norm();
            if !loss.is_finite() || !gradient_norm.is_finite() {
                return Err(fail(
                    SolverStatus::NonFinite,
                    iterations,
                    gradient_norm,
                    "the loss or gradient became non-finite",
                ));
            }
            if gradient_norm <= cfg.tolerance {
                return Ok(PreferenceFit {
                    regulariser: cfg.regulariser,
                    state: x,
                    coefficients: v,
                    utility,
                    theta,
                    logits,
                    loss,
                    iterations,
                    gradient_norm,
                });
            }
            if iterations >= cfg.max_iterations {
                let floor = self.rounding_floor(k, duels, &theta, &grad_theta)?;
                return Err(fail(
                    SolverStatus::MaxIterations { iterations },
                    iterations,
                    gradient_norm,
                    &format!(
                        "iteration limit {} reached (tolerance {:.1e}); perturbing θ by one ulp changes the gradient \
                         by {floor:.1e}, so tolerances below that are not attainable in double precision",
                        cfg.max_iterations, cfg.tolerance
                    ),
                ));
            }
            // Newton step: an n×n solve with the Jacobian of the residual.
            let curv = DVector::from_iterator(t, terms.iter().map(|l| s * l.curv));
            let singular = || {
                fail(
                    SolverStatus::Singular,
                    iterations,
                    gradient_norm,
                    "the Newton system (s K C_W K C + λI or s C_W K + λI) is singular",
                )
            };
            let step = if low_rank {
                low_rank_step(k, duels, &support, &curv, lambda, theta_norm, &(-&residual)).ok_or_else(singular)?
            } else {
                let cw = duels.laplacian(Some(&curv));
                let mut jac = match &p {
                    Some(p) => (k * cw) * p,
                    None => cw * k,
                };
                for i in 0..n {
                    jac[(i, i)] += lambda;
                }
                jac.lu().solve(&(-&residual)).ok_or_else(singular)?
            };
            // The step in θ-space. RkhsNorm: (s C_W K + λI)Δ = −F rearranges to
            // v + Δ = Dᵀθ⁺ with θ⁺ = −(1/λ)(s ℓ′ + s ℓ″ ∘ D K Δ), the t-space Newton step.
            let d_theta = if theta_norm {
                duels.apply_d(&step)
            } else {
                let d_logits = duels.apply_d(&(k * &step));
                let target = DVector::from_fn(t, |i, _| -(grad_l[i] + curv[i] * d_logits[i]) / lambda);
                target - &theta
            };
            let d_v = duels.apply_dt(&d_theta);
            let d_utility = k * &d_v;
            let d_logits = duels.apply_d(&d_utility);
            let (q1, q2) = if theta_norm {
                (theta.dot(&d_theta), d_theta.norm_squared())
            } else {
                (d_v.dot(&utility), d_v.dot(&d_utility))
            };
            let slope = grad_theta.dot(&d_theta);
            let loss_along = |alpha: f64| {
                let data: f64 = duels
                    .iter()
                    .zip(logits.iter().zip(d_logits.iter()))
                    .map(|(d, (&f, &df))| duel_nll(cfg.link, d.first_wins, f + alpha * df))
                    .sum();
                s * data + 0.5 * lambda * (reg + 2.0 * alpha * q1 + alpha * alpha * q2)
            };
            // Armijo with c = 1e-4, plus an allowance for rounding in the loss sum near the optimum,
            // where true decreases (~‖∇L‖²) fall below the loss's own rounding error.
            let allowance = 1e-12 * (loss.abs() + 1.0);
            let mut alpha = 1.0;
            let mut accepted = false;
            for _ in 0..60 {
                if loss_along(alpha) <= loss + 1e-4 * alpha * slope.min(0.0) + allowance {
                    accepted = true;
                    break;
                }
                alpha *= 0.5;
            }
            if !accepted {
                return Err(fail(
                    SolverStatus::InsufficientProgress,
                    iterations,
                    gradient_norm,
                    &format!("the line search found no decrease in 60 halvings (directional derivative {slope:.3e})"),
                ));
            }
            if theta_norm {
                x.axpy(alpha, &step, 1.0);
            } else {
                x.axpy(alpha, &d_theta, 1.0);
            }
            iterations += 1;
        }
    }
}

/// The data term Σ_k ℓ(y_k, f_k).
fn data_loss(link: Link, duels: &Duels, logits: &DVector<f64>) -> f64 {
    duels.iter().zip(logits.iter()).map(|(d, &f)| duel_nll(link, d.first_wins, f)).sum()
}

fn check_inputs(k: &DMatrix<f64>, duels: &Duels) -> Result<()> {
    check_base_gram(k, "kernel logistic base Gram")?;
    if k.nrows() != duels.n_candidates() {
        return Err(Error::dims(
            "kernel logistic: base Gram size vs number of candidates",
            duels.n_candidates(),
            k.nrows(),
        ));
    }
    Ok(())
}

fn fail(status: SolverStatus, iterations: usize, gradient_norm: f64, why: &str) -> Error {
    Error::solver_failed(
        "kernel logistic damped Newton",
        status,
        format!("{why}; after {iterations} iterations the gradient norm is {gradient_norm:.3e}"),
    )
}
