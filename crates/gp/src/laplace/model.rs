//! The Laplace preference GP at fixed hyperparameters: the MAP utilities by Newton, the Laplace
//! posterior, the evidence and its gradient (equations in the module doc of [`super`]).

use super::data::{ChoiceCounts, PairCounts, PreferenceData};
use crate::preference::{duel_loss, duel_loss_third};
use bohf_core::linalg::{Cholesky, JitterPolicy};
use bohf_core::link::{choice_log_probability, choice_probabilities};
use bohf_core::{Error, Link, Result, SolverStatus};
use bohf_kernels::{Kernel, Stationary};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

mod likelihood;

pub(super) use likelihood::likelihood_at;
use likelihood::*;

/// Settings of the likelihood and of the Newton iteration of a [`LaplacePreferenceGp`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LaplaceConfig {
    /// The link μ of P(x ≻ x′ | f) = μ((f(x) − f(x′))/s). Default probit (Chu & Ghahramani 2005).
    pub link: Link,
    /// The scale s > 0 of the utility difference. Default √2: Chu & Ghahramani's eq. (3) with noise
    /// σ = 1, Φ((f(x) − f(x′))/(√2 σ)), which is BoTorch `PairwiseGP`'s likelihood. For the
    /// logistic link, s = 1 gives the Bradley–Terry model of the BOHF papers.
    pub scale: f64,
    /// The most Newton steps (≥ 1). Default 100 (Newton on this concave objective typically needs 5–10).
    pub max_newton_iterations: usize,
    /// Stop when ‖∇log p(y | f) − a‖_∞ ≤ `newton_tolerance`·max(1, ‖∇log p(y | f)‖_∞) with f = K a:
    /// the stationarity condition a = ∇log p(y | f̂) of the mode (GPML eq. (3.17)), which the evidence
    /// gradient relies on. Default 10⁻¹⁰.
    pub newton_tolerance: f64,
}

impl Default for LaplaceConfig {
    fn default() -> Self {
        Self {
            link: Link::Probit,
            scale: std::f64::consts::SQRT_2,
            max_newton_iterations: 100,
            newton_tolerance: 1e-10,
        }
    }
}

bohf_core::validated! {
    /// A [`LaplaceConfig`] that passed [`LaplaceConfig::check`].
    pub struct ValidLaplaceConfig(LaplaceConfig);
}

impl LaplaceConfig {
    /// Checks every field; errors name `scale`, `max_newton_iterations` or `newton_tolerance`.
    pub fn check(&self) -> Result<ValidLaplaceConfig> {
        bohf_core::error::ensure_positive("scale", self.scale)?;
        if self.max_newton_iterations == 0 {
            return Err(Error::invalid("max_newton_iterations", "must be ≥ 1"));
        }
        bohf_core::error::ensure_positive("newton_tolerance", self.newton_tolerance)?;
        Ok(ValidLaplaceConfig(self.clone()))
    }
}

/// The smallest 1 − (B⁻¹)_kk ≈ w_k σ_k for which [`LaplacePreferenceGp::pair_variances`] uses the
/// O(1) identity: its relative rounding error is about ε κ(B)/(w_k σ_k), ≤ 10⁻¹⁰ for κ(B) ≤ 10⁴.
const PAIR_VARIANCE_SHORTCUT: f64 = 0.05;

/// The joint Laplace posterior of q points and its gradient in their coordinates
/// ([`LaplacePreferenceGp::joint_with_gradient`]).
#[derive(Debug, Clone, PartialEq)]
pub struct JointPosterior {
    /// m(x_k), k = 1..q.
    pub mean: DVector<f64>,
    /// Σ_kj = v(x_k, x_j) (q×q, symmetrised).
    pub covariance: DMatrix<f64>,
    /// Row k: ∇_{x_k} m(x_k) (q×d).
    pub mean_gradient: DMatrix<f64>,
    /// Entry k (d×q): column j is ∂₁v(x_k, x_j), the gradient of v(x, x_j) in its first argument
    /// at x = x_k. So ∂Σ_kj/∂x_k = column j for j ≠ k, and ∂Σ_kk/∂x_k = 2 × column k (v is
    /// symmetric); Σ_ij with i, j ≠ k does not depend on x_k.
    pub covariance_gradient: Vec<DMatrix<f64>>,
}

/// How the Newton iteration ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonReport {
    /// Newton steps taken.
    pub iterations: usize,
    /// ‖∇log p(y | f̂) − a‖_∞ at the result (the stationarity residual).
    pub residual: f64,
}

/// The Laplace approximation of a GP preference model (Chu & Ghahramani 2005, §2; Rasmussen &
/// Williams 2006 §3.4 with W = Dᵀ diag(w) D): the MAP utilities f̂ at the distinct compared points,
/// the Gaussian posterior N(f̂, (K⁻¹ + W)⁻¹) and its predictions at any point, the Laplace log
/// evidence and its gradient in the log hyperparameters. See the module doc of [`super`] for the
/// equations.
#[derive(Debug, Clone)]
pub struct LaplacePreferenceGp {
    kernel: Stationary,
    config: LaplaceConfig,
    data: PreferenceData,
    gram: DMatrix<f64>,
    /// M = D K Dᵀ.
    pair_gram: DMatrix<f64>,
    /// The difference rows of D ([`PreferenceData::difference_rows`]).
    rows: Vec<(usize, usize)>,
    /// a with f̂ = K a (= ∇log p(y | f̂) at the mode).
    a: DVector<f64>,
    f: DVector<f64>,
    /// √w per difference row at f̂.
    sqrt_w: DVector<f64>,
    /// dw/dΔ per duel pair at f̂.
    third: DVector<f64>,
    chol_b: Cholesky,
    log_likelihood: f64,
    report: NewtonReport,
}

impl LaplacePreferenceGp {
    /// Fits the Laplace approximation with kernel `kernel` to `data` (Newton from f = 0).
    ///
    /// Errors: the kernel's dimension differs from the points', the Newton iteration does not reach
    /// its tolerance within `max_newton_iterations` ([`Error::SolverFailed`] with
    /// [`SolverStatus::MaxIterations`], the residual in the detail).
    pub fn fit(kernel: Stationary, data: PreferenceData, config: &ValidLaplaceConfig) -> Result<Self> {
        Self::fit_from(kernel, data, config.config(), None)
    }

    /// [`LaplacePreferenceGp::fit`] with a warm start: `f0`, utilities near the mode (e.g. a previous
    /// fit's [`LaplacePreferenceGp::utilities`] after a small change of hyperparameters, or
    /// [`super::warm_start`] after new duels). The first Newton step is taken from `f0` (a Newton step
    /// needs f only, not K⁻¹f) and kept if it beats f = 0; the result is the same mode to the Newton
    /// tolerance. An `f0` of the wrong length or not finite is ignored (start at 0).
    pub fn fit_warm(
        kernel: Stationary,
        data: PreferenceData,
        config: &ValidLaplaceConfig,
        f0: &DVector<f64>,
    ) -> Result<Self> {
        Self::fit_from(kernel, data, config.config(), Some(f0))
    }

    pub(crate) fn fit_from(
        kernel: Stationary,
        data: PreferenceData,
        config: &LaplaceConfig,
        f0: Option<&DVector<f64>>,
    ) -> Result<Self> {
        let gram = kernel.gram(data.points())?;
        let n = data.len();
        let rows = data.difference_rows();
        let m = pair_gram(&rows, &gram);
        let mut a = DVector::zeros(n);
        let mut f = DVector::zeros(n);
        let (mut loglik, mut terms, mut grad) = likelihood_at(config, &data, &f);
        let mut psi = loglik;
        let mut iterations = 0;
        if let Some(f0) = f0.filter(|f0| f0.len() == n && f0.iter().all(|v| v.is_finite()) && !rows.is_empty()) {
            let (_, terms0, grad0) = likelihood_at(config, &data, f0);
            let (a1, f1) = newton_target(&gram, &m, &rows, f0, &terms0, &grad0)?;
            let (l1, terms1, grad1) = likelihood_at(config, &data, &f1);
            let psi1 = -0.5 * a1.dot(&f1) + l1;
            iterations += 1;
            if psi1.is_finite() && psi1 >= psi {
                (a, f, loglik, terms, grad, psi) = (a1, f1, l1, terms1, grad1, psi1);
            }
        }
        let residual = loop {
            let residual = (&grad - &a).amax();
            if residual <= config.newton_tolerance * grad.amax().max(1.0) {
                break residual;
            }
            if iterations == config.max_newton_iterations {
                return Err(Error::solver_failed(
                    "Laplace preference GP: Newton iteration for the MAP utilities",
                    SolverStatus::MaxIterations { iterations },
                    format!(
                        "stationarity residual {residual:.3e} above the tolerance {:.1e}; raise \
                         max_newton_iterations or check the kernel (lengthscale, variance)",
                        config.newton_tolerance
                    ),
                ));
            }
            iterations += 1;
            let (a_new, f_new) = newton_target(&gram, &m, &rows, &f, &terms, &grad)?;
            // Backtracking on Ψ(a) = −½ aᵀKa + log p(y | Ka), concave: halve until Ψ does not drop
            // (allowing a rounding-level drop of 4ε|Ψ| so that a converged iterate is accepted).
            let slack = rounding_slack(&a, &f, loglik);
            let mut step = 1.0;
            let mut accepted = false;
            for _ in 0..50 {
                let a_t = &a + (&a_new - &a) * step;
                let f_t = &f + (&f_new - &f) * step;
                let (l_t, terms_t, grad_t) = likelihood_at(config, &data, &f_t);
                let psi_t = -0.5 * a_t.dot(&f_t) + l_t;
                if psi_t.is_finite() && psi_t >= psi - slack {
                    (a, f, loglik, terms, grad, psi) = (a_t, f_t, l_t, terms_t, grad_t, psi_t);
                    accepted = true;
                    break;
                }
                step *= 0.5;
            }
            if !accepted {
                // At the precision limit: accept the iterate if it is stationary to 10⁻⁶.
                let residual = (&grad - &a).amax();
                if residual <= 1e-6 * grad.amax().max(1.0) {
                    break residual;
                }
                return Err(Error::solver_failed(
                    "Laplace preference GP: Newton iteration for the MAP utilities",
                    SolverStatus::InsufficientProgress,
                    format!("no step increased the log posterior; stationarity residual {residual:.3e}"),
                ));
            }
        };
        let sqrt_w = DVector::from_iterator(terms.len(), terms.iter().map(|w| w.sqrt()));
        let pairs = data.pairs();
        let third = DVector::from_iterator(pairs.len(), pairs.iter().map(|p| pair_third(config, p, f[p.i] - f[p.j])));
        let chol_b = factor_b(&m, &sqrt_w)?;
        Ok(Self {
            kernel,
            config: config.clone(),
            data,
            gram,
            pair_gram: m,
            rows,
            a,
            f,
            sqrt_w,
            third,
            chol_b,
            log_likelihood: loglik,
            report: NewtonReport { iterations, residual },
        })
    }

    /// The MAP utilities f̂ at the latent points ([`PreferenceData::points`]).
    pub fn utilities(&self) -> &DVector<f64> {
        &self.f
    }

    /// a = K⁻¹ f̂ (computed without K⁻¹; = ∇log p(y | f̂) at the mode, GPML eq. (3.17)): the
    /// weights of the posterior mean m(x) = k(x)ᵀ a.
    pub fn weights(&self) -> &DVector<f64> {
        &self.a
    }

    /// The Laplace log evidence log q(y | θ) = −½ f̂ᵀK⁻¹f̂ + log p(y | f̂) − ½ log det B
    /// (GPML eq. (3.32), (5.20)) with B = I + Gᵀ K G; the constants of dropped self-duels and
    /// choices, and of merged choice options, are excluded ([`PreferenceData`], [`ChoiceCounts`]).
    pub fn log_evidence(&self) -> f64 {
        -0.5 * self.a.dot(&self.f) + self.log_likelihood - 0.5 * self.chol_b.log_det()
    }

    /// log p(y | f̂), the log-likelihood of the duels and choices at the MAP utilities.
    pub fn log_likelihood(&self) -> f64 {
        self.log_likelihood
    }

    /// The Newton iteration's steps and final stationarity residual.
    pub fn newton_report(&self) -> NewtonReport {
        self.report
    }

    /// The kernel.
    pub fn kernel(&self) -> &Stationary {
        &self.kernel
    }

    /// The likelihood and Newton settings.
    pub fn config(&self) -> &LaplaceConfig {
        &self.config
    }

    /// The data (latent points and aggregated duels).
    pub fn data(&self) -> &PreferenceData {
        &self.data
    }

    /// V = L_B⁻¹ Ŵ D k(latent, xs) (p×m) from the cross-Gram `kx` (m×n).
    fn whitened(&self, kx: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        let mut v = diff_rows(&self.rows, &kx.transpose());
        for (k, s) in self.sqrt_w.iter().enumerate() {
            v.row_mut(k).scale_mut(*s);
        }
        self.chol_b.solve_lower(&v)
    }

    fn check_query(&self, xs: &DMatrix<f64>) -> Result<()> {
        if xs.ncols() != self.data.dim() {
            return Err(Error::dims("Laplace preference GP query points: dimension", self.data.dim(), xs.ncols()));
        }
        bohf_core::error::ensure_finite("Laplace preference GP query points", xs.iter())
    }

    /// The Laplace posterior mean m(x) = k(x)ᵀ a at each row of `xs` (GPML eq. (3.21)).
    pub fn mean(&self, xs: &DMatrix<f64>) -> Result<DVector<f64>> {
        self.check_query(xs)?;
        Ok(self.kernel.cross_gram(xs, self.data.points())? * &self.a)
    }

    /// The Laplace posterior covariance k(x, x′) − k(x)ᵀ (K + W⁻¹)⁻¹ k(x′) over the rows of `xs`
    /// (GPML eq. (3.24) with (K + W⁻¹)⁻¹ = G B⁻¹ Gᵀ, defined for singular W), m×m, symmetrised.
    pub fn covariance(&self, xs: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_query(xs)?;
        let v = self.whitened(&self.kernel.cross_gram(xs, self.data.points())?)?;
        let mut cov = self.kernel.gram(xs)? - v.transpose() * &v;
        crate::regression::symmetrise(&mut cov);
        Ok(cov)
    }

    /// The Laplace posterior variance at each row of `xs` (the diagonal of
    /// [`LaplacePreferenceGp::covariance`] in O(m p²)), clamped at 0 against rounding.
    pub fn variance(&self, xs: &DMatrix<f64>) -> Result<DVector<f64>> {
        self.check_query(xs)?;
        let v = self.whitened(&self.kernel.cross_gram(xs, self.data.points())?)?;
        let prior = self.kernel.diagonal(xs)?;
        Ok(DVector::from_fn(xs.nrows(), |j, _| (prior[j] - v.column(j).norm_squared()).max(0.0)))
    }

    /// (mean, variance) of the Laplace posterior at one point `x`.
    pub fn predict(&self, x: &[f64]) -> Result<(f64, f64)> {
        let xs = DMatrix::from_row_slice(1, x.len(), x);
        Ok((self.mean(&xs)?[0], self.variance(&xs)?[0]))
    }

    /// (mean, covariance) of the Laplace posterior at the rows of `xs`: [`LaplacePreferenceGp::mean`]
    /// and [`LaplacePreferenceGp::covariance`] from one cross-Gram (what an acquisition's value needs).
    pub fn joint(&self, xs: &DMatrix<f64>) -> Result<(DVector<f64>, DMatrix<f64>)> {
        self.check_query(xs)?;
        let kx = self.kernel.cross_gram(xs, self.data.points())?;
        let v = self.whitened(&kx)?;
        let mut cov = self.kernel.gram(xs)? - v.transpose() * &v;
        crate::regression::symmetrise(&mut cov);
        Ok((kx * &self.a, cov))
    }

    /// The joint Laplace posterior of the q rows of `xs` with its gradient in their coordinates
    /// ([`JointPosterior`]): m(x_k) = k(x_k)ᵀ a, Σ_kj = v(x_k, x_j) (GPML eq. (3.21), (3.24)) and
    ///
    /// ```text
    /// ∇_{x_k} m(x_k) = ∇ₓk(x_k, X)ᵀ a,
    /// ∂₁v(x_k, x_j) = ∇ₓk(x_k, x_j) − J_kᵀ v_j,   J_k = L_B⁻¹ Ŵ D ∇ₓk(X, x_k),  v_j = L_B⁻¹ Ŵ D k(X, x_j),
    /// ```
    ///
    /// (X the latent points, k(x)ᵀ R k(x′) = v(x)ᵀ v(x′)), computed as J_kᵀ v_j = (Ŵ D ∇ₓk(X, x_k))ᵀ u_j
    /// with u_j = L_B⁻ᵀ v_j (= B⁻¹ Ŵ D k(X, x_j)), and ∇ₓk from the cross-Gram's values
    /// ([`Stationary::grad_x_rows_with_values`]). What acquisitions of several points (EUBO,
    /// qEUBO) need for a gradient search over the points. Cost O(q p² + q n d + q p d).
    pub fn joint_with_gradient(&self, xs: &DMatrix<f64>) -> Result<JointPosterior> {
        self.check_query(xs)?;
        let (q, d) = (xs.nrows(), xs.ncols());
        let latent = self.data.points();
        let kx = self.kernel.cross_gram(xs, latent)?;
        let v = self.whitened(&kx)?;
        let kq = self.kernel.gram(xs)?;
        let mut covariance = &kq - v.transpose() * &v;
        crate::regression::symmetrise(&mut covariance);
        let mean = &kx * &self.a;
        // J_kᵀ v_j = (Ŵ D ∇ₓk(X, x_k))ᵀ u_j with u_j = L_B⁻ᵀ v_j: q back substitutions instead of
        // q·d forward substitutions for the J_k.
        let u = self.chol_b.solve_upper(&v)?;
        let mut mean_gradient = DMatrix::zeros(q, d);
        let mut covariance_gradient = Vec::with_capacity(q);
        for k in 0..q {
            let xk: Vec<f64> = xs.row(k).iter().copied().collect();
            // ∇ₓk(x_k, x_r) per latent point r (n×d), from the cross-Gram's row k.
            let kxk: Vec<f64> = kx.row(k).iter().copied().collect();
            let dk = self.kernel.grad_x_rows_with_values(&xk, latent, &kxk)?;
            mean_gradient.row_mut(k).copy_from(&(dk.transpose() * &self.a).transpose());
            let mut jk = diff_rows(&self.rows, &dk);
            for (i, s) in self.sqrt_w.iter().enumerate() {
                jk.row_mut(i).scale_mut(*s);
            }
            let mut gk = -(jk.transpose() * &u);
            let kqk: Vec<f64> = kq.row(k).iter().copied().collect();
            let own = self.kernel.grad_x_rows_with_values(&xk, xs, &kqk)?;
            gk += own.transpose();
            covariance_gradient.push(gk);
        }
        Ok(JointPosterior { mean, covariance, mean_gradient, covariance_gradient })
    }

    /// The Laplace covariance of the latent utilities, Σ = (K⁻¹ + W)⁻¹ = K − K G B⁻¹ Gᵀ K (n×n).
    pub fn latent_covariance(&self) -> Result<DMatrix<f64>> {
        let v = self.whitened(&self.gram)?;
        let mut cov = &self.gram - v.transpose() * &v;
        crate::regression::symmetrise(&mut cov);
        Ok(cov)
    }

    /// The gradient of [`LaplacePreferenceGp::log_evidence`] with respect to
    /// θ = (log ℓ_1, …, log ℓ_m, log σ²) (m = 1 isotropic, d ARD), including the implicit term
    /// through f̂(θ) (GPML §5.5.1, eq. (5.21)–(5.24), with non-diagonal W):
    ///
    /// ```text
    /// ∂ log q/∂θ_j = Σ_ik Q_ik (∂K/∂θ_j)_ik,   Q = ½ a aᵀ − ½ R + u aᵀ,
    /// R = G B⁻¹ Gᵀ = (K + W⁻¹)⁻¹,   u = (I − R K) s₂,   s₂ = −½ Dᵀ (w′ ⊙ diag(D Σ Dᵀ)),
    /// ```
    ///
    /// with w′ = dw/dΔ per pair and Σ = (K⁻¹ + W)⁻¹ (module doc of [`super`]). Cost O(p³ + n² d).
    pub fn log_evidence_gradient(&self) -> Result<Vec<f64>> {
        let n = self.data.len();
        let rows = &self.rows;
        let m_ls = self.kernel.lengthscales().len();
        if rows.is_empty() {
            return Ok(vec![0.0; m_ls + 1]);
        }
        // S = Ŵ B⁻¹ Ŵ (p×p), R = Dᵀ S D.
        let binv = self.chol_b.inverse();
        let p = rows.len();
        let s = DMatrix::from_fn(p, p, |r, c| self.sqrt_w[r] * binv[(r, c)] * self.sqrt_w[c]);
        let sigma_d = self.pair_variances(&binv, &s);
        let np = self.third.len();
        let mut s2 = if np == p {
            diff_t(rows, &sigma_d.component_mul(&self.third), n) * -0.5
        } else {
            diff_t(&rows[..np], &sigma_d.rows(0, np).component_mul(&self.third), n) * -0.5
        };
        self.add_choice_s2(&sigma_d, np, &mut s2);
        // u = s₂ − Dᵀ S D K s₂.
        let u = &s2 - diff_t(rows, &(&s * diff(rows, &(&self.gram * &s2))), n);
        let mut q = DMatrix::zeros(n, n);
        q.ger(0.5, &self.a, &self.a, 0.0);
        q.ger(1.0, &u, &self.a, 1.0);
        // Q −= ½ Dᵀ S D, as E = Dᵀ S (n×p, column by column), then Q's columns b_i, b_j of pair l
        // −= / += ½ E_l: contiguous column updates instead of 4p² scattered ones.
        let mut e = DMatrix::zeros(n, p);
        for l in 0..p {
            let (sl, mut el) = (s.column(l), e.column_mut(l));
            for (r, &(ai, aj)) in rows.iter().enumerate() {
                el[ai] += sl[r];
                el[aj] -= sl[r];
            }
        }
        for (l, &(bi, bj)) in rows.iter().enumerate() {
            q.column_mut(bi).axpy(-0.5, &e.column(l), 1.0);
            q.column_mut(bj).axpy(0.5, &e.column(l), 1.0);
        }
        let mut grad = self.kernel.log_lengthscale_grad_contraction_with_gram(self.data.points(), &q, &self.gram)?;
        grad.push(q.dot(&self.gram));
        Ok(grad)
    }
}

impl LaplacePreferenceGp {
    /// σ_k = (D Σ Dᵀ)_kk = (M − M S M)_kk per difference row (Σ = K − K R K), from B⁻¹ (`binv`)
    /// and S = Ŵ B⁻¹ Ŵ (`s`) in O(p) per row instead of the O(p³) product S M: since
    /// Ŵ M Ŵ = B − I, (M S M)_kk = (B − 2I + B⁻¹)_kk / w_k for w_k > 0, so
    ///
    /// ```text
    /// σ_k = (1 − (B⁻¹)_kk) / w_k.
    /// ```
    ///
    /// 1 − (B⁻¹)_kk ≈ w_k σ_k cancels when w_k σ_k is small; below [`PAIR_VARIANCE_SHORTCUT`] (and
    /// for w_k = 0) the row is computed directly as M_kk − M_kᵀ S M_k, O(p²).
    fn pair_variances(&self, binv: &DMatrix<f64>, s: &DMatrix<f64>) -> DVector<f64> {
        let m = &self.pair_gram;
        let p = m.nrows();
        let direct = |k: usize| {
            let w = self.sqrt_w[k] * self.sqrt_w[k];
            !(w > 0.0 && 1.0 - binv[(k, k)] >= PAIR_VARIANCE_SHORTCUT)
        };
        // The direct rows' S M_k in one matrix product (S M_F, p × |F|) rather than |F| products.
        let rows: Vec<usize> = (0..p).filter(|&k| direct(k)).collect();
        let mf = DMatrix::from_fn(p, rows.len(), |r, c| m[(r, rows[c])]);
        let smf = s * &mf;
        let mut out = DVector::from_fn(p, |k, _| (1.0 - binv[(k, k)]) / (self.sqrt_w[k] * self.sqrt_w[k]));
        for (c, &k) in rows.iter().enumerate() {
            out[k] = m[(k, k)] - mf.column(c).dot(&smf.column(c));
        }
        out
    }

    /// [`LaplacePreferenceGp::pair_variances`] with its own B⁻¹ and S (for the tests).
    #[cfg(test)]
    pub(super) fn difference_row_variances(&self) -> DVector<f64> {
        let binv = self.chol_b.inverse();
        let p = binv.nrows();
        let s = DMatrix::from_fn(p, p, |r, c| self.sqrt_w[r] * binv[(r, c)] * self.sqrt_w[c]);
        self.pair_variances(&binv, &s)
    }

    /// Adds the choice blocks' part of s₂ = −½ Σ_r σ_r ∇_f w_r (GPML eq. (5.23)) to `s2`, with
    /// σ_r = (D Σ Dᵀ)_rr (`sigma_d`; the choices' rows start at `first_row`). For a block with
    /// probabilities p and w_uv = N p_u p_v/s², ∂w_uv/∂f_{o_t} = w_uv (δ_ut + δ_vt − 2 p_t)/s (from
    /// ∂p_u/∂f_{o_t} = p_u(δ_ut − p_t)/s), so s₂[o_t] gains −½ (B_t − 2 p_t A)/s with
    /// A = Σ_{u<v} σ_uv w_uv and B_t = Σ_{v≠t} σ_tv w_tv.
    fn add_choice_s2(&self, sigma_d: &DVector<f64>, first_row: usize, s2: &mut DVector<f64>) {
        let scale = self.config.scale;
        let mut r = first_row;
        for c in self.data.choices() {
            let p = choice_probs(c, &self.f, scale);
            let n = f64::from(c.total());
            let k = p.len();
            let mut total = 0.0;
            let mut by_option = vec![0.0; k];
            for a in 0..k {
                for b in a + 1..k {
                    let t = sigma_d[r] * n * p[a] * p[b] / (scale * scale);
                    total += t;
                    by_option[a] += t;
                    by_option[b] += t;
                    r += 1;
                }
            }
            for (t, &o) in c.options.iter().enumerate() {
                s2[o] -= 0.5 * (by_option[t] - 2.0 * p[t] * total) / scale;
            }
        }
    }
}

/// The rounding error bound of Ψ = −½ aᵀf + log p(y | f) as computed: 8ε (½ Σ_i |a_i f_i| +
/// |log p(y | f)|) (the terms' magnitudes, not |Ψ|: near the mode the two parts cancel partly, and
/// a Newton step that changes Ψ by less than this is at the precision limit and is accepted).
fn rounding_slack(a: &DVector<f64>, f: &DVector<f64>, loglik: f64) -> f64 {
    let af: f64 = a.iter().zip(f.iter()).map(|(x, y)| (x * y).abs()).sum();
    8.0 * f64::EPSILON * (0.5 * af + loglik.abs())
}

/// The full Newton step from f (GPML Alg. 3.1 with W = G Gᵀ, G = Dᵀ Ŵ): b = W f + ∇log p(y | f),
/// a_new = b − G B⁻¹ Gᵀ K b, f_new = K a_new (= (K⁻¹ + W)⁻¹ b). Needs f only, not K⁻¹ f.
fn newton_target(
    gram: &DMatrix<f64>,
    m: &DMatrix<f64>,
    rows: &[(usize, usize)],
    f: &DVector<f64>,
    w: &[f64],
    grad: &DVector<f64>,
) -> Result<(DVector<f64>, DVector<f64>)> {
    let n = f.len();
    let w = DVector::from_column_slice(w);
    let sqrt_w = w.map(f64::sqrt);
    let chol = factor_b(m, &sqrt_w)?;
    let b = diff_t(rows, &diff(rows, f).component_mul(&w), n) + grad;
    let c = diff(rows, &(gram * &b)).component_mul(&sqrt_w);
    let y = chol.solve_vec(&c)?;
    let a_new = &b - diff_t(rows, &y.component_mul(&sqrt_w), n);
    let f_new = gram * &a_new;
    Ok((a_new, f_new))
}
