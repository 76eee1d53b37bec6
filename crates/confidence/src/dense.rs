//! The fast path: a dense primal–dual interior-point method for the program family of this crate,
//! with a certificate (a feasible point and a dual bound) for every result it returns.
//!
//! **The programs.** In the whitened variables p = (w[, ω]) every program of the crate is
//!
//! ```text
//! minimise f₀(p)  s.t.  N(p) = (‖p‖² − B²)/(2B²) ≤ 0,
//!                      Φ(w) = (φ(w) − κ)/W ≤ 0            (confidence sets only),
//!                      ±(Lw)_i − b ≤ 0, ±(l_xᵀw + ρ_x ω) − b ≤ 0   (with the latent box b),
//! ```
//!
//! with φ(w) = Σ_τ c_τ softplus(−r_τᵀw) = ℓ₀ − ℓ(w) (POP-BO eq. (21), COBOL eq. (4)), κ = ℓ₀ − (ℓ* − β),
//! W = Σ_τ c_τ, and f₀ = −gᵀp for the optimistic advantage and the pointwise bounds (POP-BO eqs. (12),
//! (24); COBOL (38), (39)) or f₀ = φ/W for the norm-constrained MLE (POP-BO eq. (22), COBOL eq. (37)).
//! The same programs as the conic ones of [`crate::conic`], without the epigraph variables.
//!
//! **The method.** The primal–dual interior-point method of Boyd & Vandenberghe (*Convex
//! Optimization*, §11.7): with slacks s_j = −f_j(p) > 0 and multipliers y_j > 0, each step solves
//!
//! ```text
//! (∇²f₀ + Σ_j y_j ∇²f_j + Σ_j (y_j/s_j) ∇f_j ∇f_jᵀ) Δp = −∇f₀ − (1/t) Σ_j ∇f_j / s_j,
//! Δy_j = −y_j + (1/t + y_j ∇f_jᵀΔp)/s_j,      t = 10·(number of constraints)/Σ_j y_j s_j,
//! ```
//!
//! then a backtracking line search keeps p strictly feasible and decreases the residual. The
//! Hessian is dense and formed explicitly: ∇²φ = Rᵀ diag(c_τ σ(v_τ)σ(−v_τ)) R and the box rows
//! Lᵀ diag(θ) L share one set of *directions* (a label's row is ±L_i, the box row of point i is
//! ±L_i, a duel's row is ±(L_i − L_j)), so the whole curvature is Aᵀ diag(weights) A with the k×n
//! direction matrix A built once per program family, one matrix product, plus rank-one terms
//! for the norm, the likelihood row and the candidate's box rows; one Cholesky factorisation per
//! step. Flops per step: 2kn² for the product and n³/3 for the factorisation (k = n for labels,
//! the number of distinct duels, plus n with the latent box, for duels); 15–30 steps per program.
//!
//! **The certificate.** Every iterate is strictly feasible (the line search checks it, with the
//! rounding error of each constraint's evaluation as a margin), so f₀(p) bounds the minimum from
//! above. For the multipliers y ≥ 0 the Lagrangian L′ = f₀ + Σ_{j≠N} y_j f_j is convex and below f₀
//! on the feasible set, which lies in the ball ‖q‖ ≤ B, so
//!
//! ```text
//! min f₀ ≥ min_{‖q‖≤B} L′(q) ≥ L′(p) − ∇L′(p)ᵀp − B‖∇L′(p)‖,
//! ```
//!
//! and, L = L′ + y_N N being (y_N/B²)-strongly convex, also min f₀ ≥ L(p) − B²‖∇L(p)‖²/(2y_N).
//! The larger of the two is the dual bound. A result is returned only when the enclosure
//! [dual bound, f₀(p)] is narrower than the tolerance; both ends are widened by a bound on the
//! rounding error of their evaluation, so the enclosure contains the exact optimum of the program
//! as posed with the computed factor L. Anything else (a failed factorisation, no strictly
//! feasible start, no certificate within the step limit) returns `None`, and the caller solves the
//! program with clarabel, the reference implementation.

use crate::conic::ConicData;
use bohf_core::Link;
use bohf_core::link::softplus;
use bohf_core::sum::CompensatedSum;
use nalgebra::{DMatrix, DVector};

/// Unit roundoff.
pub(crate) const U: f64 = f64::EPSILON / 2.0;

/// Step limit of one program: a program not certified by then goes to clarabel.
const MAX_STEPS: u32 = 80;

/// The objective of one program.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Objective<'a> {
    /// Maximise gᵀp over the confidence set (p = (w, ω), g of length n + 1).
    Linear(&'a DVector<f64>),
    /// Maximise the log-likelihood over the B-ball (∩ the latent box): the MLE (p = w).
    Likelihood,
}

/// A certified solution of one program, in the maximisation form of the caller.
#[derive(Debug, Clone)]
pub(crate) struct DenseSolution {
    /// The (strictly feasible) solution p = (w[, ω]).
    pub p: DVector<f64>,
    /// Certified enclosure lower ≤ max ≤ upper of the optimal value (of gᵀp, or of ℓ(w) − ℓ₀ for
    /// the MLE, i.e. −φ).
    pub lower: f64,
    /// See `lower`.
    pub upper: f64,
    /// The multipliers (μ₊, μ₋) ≥ 0 of the candidate's box rows f̃(x) ≤ b and −f̃(x) ≤ b.
    pub box_duals: (f64, f64),
    /// Interior-point steps taken.
    pub iterations: u32,
    /// ‖∇L(p)‖ at the returned point (the dual residual).
    pub dual_residual: f64,
    /// The final (λ, μ) of the dual method divided by ‖g‖, a start for the next program of the
    /// same set ([`crate::dual::solve`]); `None` from the interior-point method.
    pub scaled_multipliers: Option<(f64, f64)>,
    /// The MLE's final norm price μ and its latent-box rows priced > 0 (support index, + side),
    /// a start for the MLE of a problem with more observations ([`crate::MleWarmStart`]);
    /// `None` except from the dual method's boxed MLE.
    pub mle_restart: Option<(f64, Vec<(usize, bool)>)>,
}

/// The x-independent structure of the dense programs of one [`ConicData`]: the direction matrix A
/// (k×n) whose rows carry every observation row and every box row, and which direction each uses.
#[derive(Debug, Clone)]
pub(crate) struct Directions {
    pub(crate) a: DMatrix<f64>,
    /// The direction of observation term τ (its row r_τ = s_τ · A[dir]; s_τ² = 1).
    pub(crate) term_dir: Vec<usize>,
    /// The direction of support point i (row L_i), when the latent box uses it.
    point_dir: Vec<usize>,
    /// AAᵀ (k×k), built on first use by the observation-space solves ([`InnerFactor`]).
    pub(crate) gram: std::sync::OnceLock<DMatrix<f64>>,
    /// |L| (entrywise), built on first use by the latent box's rounding bounds ([`Program::eval`]).
    l_abs: std::sync::OnceLock<DMatrix<f64>>,
}

impl Directions {
    pub(crate) fn new(data: &ConicData) -> Self {
        use std::collections::HashMap;
        let n = data.l.nrows();
        let mut index: HashMap<(usize, usize), usize> = HashMap::new();
        let mut keys: Vec<(usize, usize)> = Vec::new();
        let mut lookup = |key: (usize, usize)| {
            *index.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() - 1
            })
        };
        let term_dir: Vec<usize> = data.terms.iter().map(|&(_, i, j)| lookup((i, j.unwrap_or(usize::MAX)))).collect();
        let point_dir: Vec<usize> =
            if data.latent_box.is_some() { (0..n).map(|i| lookup((i, usize::MAX))).collect() } else { Vec::new() };
        let a = DMatrix::from_fn(keys.len(), n, |d, c| {
            let (i, j) = keys[d];
            data.l[(i, c)] - if j == usize::MAX { 0.0 } else { data.l[(j, c)] }
        });
        Self { a, term_dir, point_dir, gram: std::sync::OnceLock::new(), l_abs: std::sync::OnceLock::new() }
    }
}

/// One program's data and state, borrowed from the caller.
pub(crate) struct Program<'a> {
    pub(crate) data: &'a ConicData,
    pub(crate) dirs: &'a Directions,
    pub(crate) objective: Objective<'a>,
    /// κ = ℓ₀ − threshold (confidence sets; `None` for the MLE).
    pub(crate) kappa: Option<f64>,
    /// The candidate row c = (l_x, ρ_x) (confidence sets with the latent box).
    pub(crate) candidate: Option<DVector<f64>>,
    pub(crate) n: usize,
    pub(crate) dim: usize,
    pub(crate) total: f64,
}

/// Values at a point p: everything the step and the certificate need.
pub(crate) struct Eval {
    /// v = R w.
    pub(crate) v: DVector<f64>,
    /// φ(w), by compensated summation, and a bound on its rounding error ([`phi_error`]).
    pub(crate) phi: f64,
    pub(crate) phi_err: f64,
    /// ∇φ(w) = −Rᵀ(c ⊙ σ(−v)).
    pub(crate) grad_phi: DVector<f64>,
    /// The constraint values f_j(p) in the order: norm, likelihood, box (+z_i, −z_i)_i, candidate (+, −).
    pub(crate) f: Vec<f64>,
    /// A bound on the rounding error of each f_j.
    pub(crate) f_err: Vec<f64>,
}

/// A bound on |φ̂ − φ(w)| for φ̂ = Σ_τ c_τ softplus(−v̂_τ) summed by `sum` (compensated), where
/// v̂_τ = fl(r_τᵀw) and `abs_dot` = (|R|ᵀc)ᵀ|w| = Σ_τ c_τ |r_τ|ᵀ|w| (computed): each v̂_τ errs by at
/// most γ_{n+1}|r_τ|ᵀ|w| (the dot product, and the subtraction that formed r_τ; Higham eq. (3.5)),
/// which softplus (1-Lipschitz) passes on at most unchanged; each term's evaluation (exp, ln_1p,
/// one addition, the product by c_τ) errs by at most 5u of itself; and the sum adds
/// [`CompensatedSum::error_bound`]. No factor grows with the number of terms, so the bound stays
/// near (n + 3)u·Σ_τ c_τ|v_τ| at thousands of observations (it was (n + m + 16)u with a plain sum).
pub(crate) fn phi_error(n: usize, sum: &CompensatedSum, abs_dot: f64) -> f64 {
    let gamma = (n + 3) as f64 * U * (1.0 + 1e-6);
    let abs_dot = abs_dot * (1.0 + (n + 2) as f64 * U);
    (gamma * abs_dot + 5.0 * U * sum.abs_sum() * (1.0 + 1e-6) + sum.error_bound()) * (1.0 + 4.0 * U)
}

/// The rounding bound of the likelihood row (φ − κ)/W from φ's (`phi_err`): the subtraction and the
/// division, with κ's magnitude for the rounding of the threshold's own difference.
pub(crate) fn likelihood_row_error(phi: f64, phi_err: f64, kappa: f64, total: f64) -> f64 {
    (phi_err + 4.0 * U * (phi.abs() + kappa.abs())) / total * (1.0 + 2.0 * U)
}

impl<'a> Program<'a> {
    /// The norm row at a point with ‖p‖² = `pn2`: its value (‖p‖² − B²)/(2B²) (≤ 0 inside the
    /// ball) and the bound on its rounding error, (dim + 16)u(‖p‖² + B²)/(2B²) + u. The one home of
    /// the row for [`Program::eval`] and the pull-inside's segment searches.
    pub(crate) fn norm_row(&self, pn2: f64) -> (f64, f64) {
        let b = self.data.norm_bound;
        let dim_err = (self.dim + 16) as f64 * U;
        ((pn2 - b * b) / (2.0 * b * b), dim_err * (pn2 + b * b) / (2.0 * b * b) + U)
    }

    pub(crate) fn constraint_count(&self) -> usize {
        1 + usize::from(self.kappa.is_some())
            + if self.data.latent_box.is_some() { 2 * self.n } else { 0 }
            + if self.candidate.is_some() { 2 } else { 0 }
    }

    pub(crate) fn first_box(&self) -> usize {
        1 + usize::from(self.kappa.is_some())
    }

    pub(crate) fn eval(&self, p: &DVector<f64>) -> Eval {
        let n = self.n;
        let data = self.data;
        let w = p.rows(0, n);
        let v = &data.rows * w;
        let mut sum = CompensatedSum::new();
        let mut coef = DVector::zeros(v.len());
        for (k, &vk) in v.iter().enumerate() {
            sum.add(data.weights[k] * softplus(-vk));
            coef[k] = -data.weights[k] * Link::Logistic.mu(-vk);
        }
        let phi = sum.value();
        let phi_err = phi_error(self.n, &sum, data.abs_weighted.dot(&w.abs()));
        let grad_phi = data.rows.tr_mul(&coef);
        let (norm, norm_err) = self.norm_row(p.norm_squared());
        let mut f = vec![norm];
        let dim_err = (self.dim + 16) as f64 * U;
        let mut f_err = vec![norm_err];
        if let Some(kappa) = self.kappa {
            f.push((phi - kappa) / self.total);
            f_err.push(likelihood_row_error(phi, phi_err, kappa, self.total));
        }
        if let Some(bx) = data.latent_box {
            let z = &data.l * w;
            let zabs = self.dirs.l_abs.get_or_init(|| data.l.abs()) * w.abs();
            for i in 0..n {
                let err = dim_err * zabs[i] + U * bx;
                f.push(z[i] - bx);
                f_err.push(err);
                f.push(-z[i] - bx);
                f_err.push(err);
            }
        }
        if let (Some(c), Some(bx)) = (&self.candidate, data.latent_box) {
            let cp = c.dot(p);
            let err = dim_err * c.abs().dot(&p.abs()) + U * bx;
            f.push(cp - bx);
            f_err.push(err);
            f.push(-cp - bx);
            f_err.push(err);
        }
        Eval { v, phi, phi_err, grad_phi, f, f_err }
    }

    /// f₀(p) and a bound on its rounding error.
    fn objective(&self, p: &DVector<f64>, e: &Eval) -> (f64, f64) {
        match self.objective {
            Objective::Linear(g) => (-g.dot(p), (self.dim + 4) as f64 * U * g.abs().dot(&p.abs())),
            Objective::Likelihood => {
                let err = (e.phi_err + 2.0 * U * e.phi.abs()) / self.total * (1.0 + 2.0 * U);
                (e.phi / self.total, err)
            }
        }
    }

    /// ∇f₀.
    fn objective_gradient(&self, e: &Eval) -> DVector<f64> {
        match self.objective {
            Objective::Linear(g) => -g,
            Objective::Likelihood => &e.grad_phi / self.total,
        }
    }

    /// The gradients of the constraints as a callback: adds Σ_j coef_j ∇f_j to `out`.
    fn add_constraint_gradients(&self, p: &DVector<f64>, e: &Eval, coef: &[f64], out: &mut DVector<f64>) {
        let n = self.n;
        let b = self.data.norm_bound;
        *out += p * (coef[0] / (b * b));
        let mut j = 1;
        if self.kappa.is_some() {
            out.rows_mut(0, n).axpy(coef[1] / self.total, &e.grad_phi, 1.0);
            j = 2;
        }
        if self.data.latent_box.is_some() {
            let mut zc = DVector::zeros(n);
            for i in 0..n {
                zc[i] = coef[j + 2 * i] - coef[j + 2 * i + 1];
            }
            let lt = self.data.l.tr_mul(&zc);
            out.rows_mut(0, n).axpy(1.0, &lt, 1.0);
            j += 2 * n;
        }
        if let Some(c) = &self.candidate {
            out.axpy(coef[j] - coef[j + 1], c, 1.0);
        }
    }

    /// ∇f_jᵀd for every constraint.
    fn constraint_directional(&self, p: &DVector<f64>, e: &Eval, d: &DVector<f64>) -> Vec<f64> {
        let n = self.n;
        let b = self.data.norm_bound;
        let mut out = vec![p.dot(d) / (b * b)];
        if self.kappa.is_some() {
            out.push(e.grad_phi.dot(&d.rows(0, n)) / self.total);
        }
        if self.data.latent_box.is_some() {
            let ld = &self.data.l * d.rows(0, n);
            for i in 0..n {
                out.push(ld[i]);
                out.push(-ld[i]);
            }
        }
        if let Some(c) = &self.candidate {
            let cd = c.dot(d);
            out.push(cd);
            out.push(-cd);
        }
        out
    }

    /// The Newton matrix ∇²f₀ + Σ y_j ∇²f_j + Σ θ_j ∇f_j∇f_jᵀ (θ_j = y_j/s_j), as a dense part H₀
    /// (the curvature, the support's box rows) and the rank-one border terms (θ_j, a_j).
    fn newton_matrix(
        &self,
        p: &DVector<f64>,
        e: &Eval,
        y: &[f64],
        theta: &[f64],
    ) -> (DMatrix<f64>, Vec<(f64, DVector<f64>)>) {
        let n = self.n;
        let b = self.data.norm_bound;
        // The weight of ∇²φ: 1/W for the MLE's objective, y_L/W for the likelihood row.
        let alpha = match self.objective {
            Objective::Likelihood => 1.0 / self.total,
            Objective::Linear(_) => 0.0,
        } + if self.kappa.is_some() { y[1] / self.total } else { 0.0 };
        let k = self.dirs.a.nrows();
        let mut weight = DVector::<f64>::zeros(k);
        if alpha > 0.0 {
            for (tau, &vt) in e.v.iter().enumerate() {
                weight[self.dirs.term_dir[tau]] += alpha * self.data.weights[tau] * Link::Logistic.dmu(vt);
            }
        }
        if self.data.latent_box.is_some() {
            let j = self.first_box();
            for i in 0..n {
                weight[self.dirs.point_dir[i]] += theta[j + 2 * i] + theta[j + 2 * i + 1];
            }
        }
        let mut scaled = self.dirs.a.clone();
        for (d, mut row) in scaled.row_iter_mut().enumerate() {
            row *= weight[d].max(0.0).sqrt();
        }
        let hw = scaled.transpose() * &scaled;
        let mut h = DMatrix::zeros(self.dim, self.dim);
        h.view_mut((0, 0), (n, n)).copy_from(&hw);
        for i in 0..self.dim {
            h[(i, i)] += y[0] / (b * b);
        }
        // The rank-one terms θ_j a_j a_jᵀ of the norm, the likelihood row and the candidate's box
        // rows stay out of the matrix: their θ_j grow without bound as the constraints become
        // active, and folded in they would ruin its conditioning. [`solve_bordered`] adds them.
        let mut border = Vec::with_capacity(3);
        border.push((theta[0], p / (b * b)));
        if self.kappa.is_some() {
            let mut gl = DVector::zeros(self.dim);
            gl.rows_mut(0, n).copy_from(&(&e.grad_phi / self.total));
            border.push((theta[1], gl));
        }
        if let Some(c) = &self.candidate {
            let last = theta.len() - 2;
            border.push((theta[last] + theta[last + 1], c.clone()));
        }
        (h, border)
    }

    /// Certified enclosure [lower, upper] of min f₀ from the strictly feasible p and multipliers y.
    fn certificate(&self, p: &DVector<f64>, e: &Eval, y: &[f64]) -> (f64, f64, f64) {
        let b = self.data.norm_bound;
        let (f0, f0_err) = self.objective(p, e);
        // L′ = f₀ + Σ_{j≠N} y_j f_j and its gradient.
        let mut lp = f0;
        let mut lp_err = f0_err;
        for ((yj, fj), ej) in y.iter().zip(&e.f).zip(&e.f_err).skip(1) {
            lp += yj * fj;
            lp_err += yj * (ej + U * fj.abs());
        }
        let mut coef = y.to_vec();
        coef[0] = 0.0;
        let mut grad = self.objective_gradient(e);
        self.add_constraint_gradients(p, e, &coef, &mut grad);
        let gnorm = grad.norm();
        let gp = grad.dot(p);
        // The gradient is computed with a relative rounding error; bound it by a generous multiple.
        let grad_err =
            (self.dim + self.data.rows.nrows() + 16) as f64 * U * 8.0 * (gnorm + 1.0) * (1.0 + y.iter().sum::<f64>());
        let linear = lp - gp - b * gnorm - (lp_err + grad_err * (p.norm() + b) + U * (gp.abs() + b * gnorm) * 4.0);
        // The strongly convex bound with the norm multiplier.
        let mut full = grad.clone();
        full.axpy(y[0] / (b * b), p, 1.0);
        let l_full = lp + y[0] * e.f[0];
        let strong = if y[0] > 0.0 {
            let fnorm = full.norm() + grad_err;
            l_full - b * b * fnorm * fnorm / (2.0 * y[0]) - (lp_err + y[0] * e.f_err[0] + U * l_full.abs() * 4.0)
        } else {
            f64::NEG_INFINITY
        };
        let lower = linear.max(strong);
        let upper = f0 + f0_err;
        (lower, upper, full.norm())
    }
}

/// Solves one program by the interior-point method from the strictly feasible `start` (module
/// docs), returning a certified solution, or `None` (the caller falls back to clarabel).
/// `tolerance` is the certified gap required, relative to max(1, |value|).
pub(crate) fn solve(
    data: &ConicData,
    dirs: &Directions,
    objective: Objective<'_>,
    threshold: Option<f64>,
    candidate: Option<DVector<f64>>,
    centre: &DVector<f64>,
    tolerance: f64,
) -> Option<DenseSolution> {
    let n = data.l.nrows();
    let dim = match objective {
        Objective::Linear(g) => g.len(),
        Objective::Likelihood => n,
    };
    if centre.len() != n || dim < n {
        return None;
    }
    let program = Program {
        data,
        dirs,
        objective,
        kappa: threshold.map(|t| data.constant - t),
        candidate: if data.latent_box.is_some() { candidate } else { None },
        n,
        dim,
        total: data.total_weight(),
    };
    let nc = program.constraint_count();
    let (mut p, mut e) = program.interior_start(centre)?;
    let mut y: Vec<f64> = e.f.iter().map(|f| 1.0 / (nc as f64 * -f).max(1e-300)).collect();
    let scale = match objective {
        Objective::Linear(g) => g.norm() * data.norm_bound,
        Objective::Likelihood => 1.0,
    }
    .max(1e-300);
    for v in &mut y {
        *v *= scale;
    }
    for iteration in 1..=MAX_STEPS {
        let (lower, upper, dual_residual) = program.certificate(&p, &e, &y);
        let value_scale = upper.abs().max(lower.abs()).max(1.0);
        if lower.is_finite() && upper.is_finite() && upper - lower <= tolerance * value_scale {
            let box_duals = if program.candidate.is_some() { (y[nc - 2], y[nc - 1]) } else { (0.0, 0.0) };
            // Maximisation form: max (−f₀) ∈ [−upper, −lower].
            return Some(DenseSolution {
                p,
                lower: -upper,
                upper: -lower,
                box_duals,
                iterations: iteration - 1,
                dual_residual,
                scaled_multipliers: None,
                mle_restart: None,
            });
        }
        let slack: Vec<f64> = e.f.iter().map(|f| -f).collect();
        let eta: f64 = y.iter().zip(&slack).map(|(a, s)| a * s).sum();
        let theta: Vec<f64> = y.iter().zip(&slack).map(|(a, s)| a / s).collect();
        // The curvature of the nonlinear constraints (norm, likelihood) weighted by
        // max(y_j, μ/s_j), μ = η/m: the barrier's own weight where y_j lags behind it (off the
        // central path), so the model does not underestimate their curvature.
        let mu = eta / nc as f64;
        let mut y_curv = y.clone();
        let nonlinear = program.first_box();
        for j in 0..nonlinear {
            y_curv[j] = y[j].max(mu / slack[j]);
        }
        let (h, border) = program.newton_matrix(&p, &e, &y_curv, &theta);
        let factor = BorderedFactor::new(h, border)?;
        // The direction for complementarity targets c_j (y_j s_j → c_j): the reduced Newton
        // system (module docs) with 1/t replaced by c_j.
        let direction = |c: &[f64]| -> Option<(DVector<f64>, Vec<f64>, Vec<f64>)> {
            let mut rhs = -program.objective_gradient(&e);
            let coef: Vec<f64> = c.iter().zip(&slack).map(|(cj, s)| -cj / s).collect();
            program.add_constraint_gradients(&p, &e, &coef, &mut rhs);
            let dp = factor.solve(&rhs);
            if !dp.iter().all(|v| v.is_finite()) {
                return None;
            }
            let gd = program.constraint_directional(&p, &e, &dp);
            let dy: Vec<f64> = (0..nc).map(|j| -y[j] + (c[j] + y[j] * gd[j]) / slack[j]).collect();
            Some((dp, dy, gd))
        };
        // The largest step in (0, 1] keeping y and the linearised slacks s − α∇fᵀΔp positive.
        let max_step = |dy: &[f64], gd: &[f64]| -> f64 {
            let mut step = 1.0f64;
            for j in 0..nc {
                if dy[j] < 0.0 {
                    step = step.min(-y[j] / dy[j]);
                }
                if gd[j] > 0.0 {
                    step = step.min(slack[j] / gd[j]);
                }
            }
            step
        };
        // Mehrotra's predictor–corrector: the affine direction (c = 0) measures how far the
        // complementarity can fall; the centring σ = (η_aff/η)³ and the corrector's second-order
        // term −Δy_aff Δs_aff follow from it.
        let (_, dy_aff, gd_aff) = direction(&vec![0.0; nc])?;
        let a_aff = max_step(&dy_aff, &gd_aff);
        let eta_aff: f64 =
            (0..nc).map(|j| (y[j] + a_aff * dy_aff[j]) * (slack[j] - a_aff * gd_aff[j])).sum::<f64>().max(0.0);
        let sigma = (eta_aff / eta.max(1e-300)).powi(3).clamp(1e-6, 1.0);
        let target = sigma * eta / nc as f64;
        let c: Vec<f64> = (0..nc).map(|j| target + dy_aff[j] * gd_aff[j]).collect();
        let (dp, dy, _) = direction(&c)?;
        let t = 1.0 / target.max(1e-300);
        let mut step = 0.99 * max_step(&dy, &vec![0.0; nc]).min(1.0);
        let residual = |pp: &DVector<f64>, ee: &Eval, yy: &[f64]| {
            let mut r = program.objective_gradient(ee);
            program.add_constraint_gradients(pp, ee, yy, &mut r);
            let cent: f64 = yy.iter().zip(&ee.f).map(|(a, f)| (-a * f - 1.0 / t).powi(2)).sum();
            (r.norm_squared() + cent).sqrt()
        };
        let r0 = residual(&p, &e, &y);
        let mut accepted = None;
        for _ in 0..60 {
            let pp = &p + &dp * step;
            let ee = program.eval(&pp);
            if strictly_feasible(&ee) {
                let yy: Vec<f64> = y.iter().zip(&dy).map(|(a, d)| a + step * d).collect();
                if residual(&pp, &ee, &yy) <= (1.0 - 0.01 * step) * r0 || step < 1e-3 {
                    accepted = Some((pp, ee, yy));
                    break;
                }
            }
            step *= 0.5;
        }
        let (pp, ee, yy) = accepted?;
        p = pp;
        e = ee;
        y = yy.into_iter().map(|v| v.max(1e-300)).collect();
    }
    None
}

/// A factorisation of H₀ + Σ_i θ_i a_i a_iᵀ for repeated solves: one Cholesky factorisation of H₀
/// and of the small capacitance matrix diag(1/θ) + AᵀH₀⁻¹A; a solve is
/// x = H₀⁻¹(r − Aν) with (diag(1/θ) + AᵀH₀⁻¹A) ν = AᵀH₀⁻¹r (Sherman–Morrison–Woodbury in its
/// bordered form, stable as θ_i → ∞).
struct BorderedFactor {
    chol: nalgebra::Cholesky<f64, nalgebra::Dyn>,
    /// The border directions a_i.
    border: Vec<DVector<f64>>,
    /// H₀⁻¹a_i, column by column.
    h_inv_a: DMatrix<f64>,
    /// The capacitance matrix's factor (`None` without border terms).
    cap: Option<nalgebra::Cholesky<f64, nalgebra::Dyn>>,
}

impl BorderedFactor {
    /// `None` if H₀ (even with a jitter of 1e-12 of its largest diagonal entry) or the capacitance
    /// matrix is not positive definite.
    fn new(h: DMatrix<f64>, border: Vec<(f64, DVector<f64>)>) -> Option<Self> {
        let dim = h.nrows();
        let chol = match nalgebra::Cholesky::new(h.clone()) {
            Some(c) => c,
            None => {
                let jitter = 1e-12 * h.diagonal().amax().max(1e-300);
                nalgebra::Cholesky::new(h + DMatrix::identity(dim, dim) * jitter)?
            }
        };
        let k = border.len();
        let mut a = DMatrix::zeros(dim, k);
        for (i, (_, ai)) in border.iter().enumerate() {
            a.column_mut(i).copy_from(ai);
        }
        let h_inv_a = chol.solve(&a);
        let cap = if k == 0 {
            None
        } else {
            let mut cap = a.tr_mul(&h_inv_a);
            for i in 0..k {
                cap[(i, i)] += 1.0 / border[i].0.max(1e-300);
            }
            let cap = (&cap + cap.transpose()) * 0.5;
            Some(nalgebra::Cholesky::new(cap)?)
        };
        Some(Self { chol, border: border.into_iter().map(|(_, a)| a).collect(), h_inv_a, cap })
    }

    fn solve(&self, r: &DVector<f64>) -> DVector<f64> {
        let mut x = self.chol.solve(r);
        if let Some(cap) = &self.cap {
            let b = DVector::from_iterator(self.border.len(), self.border.iter().map(|a| a.dot(&x)));
            let nu = cap.solve(&b);
            x -= &self.h_inv_a * nu;
        }
        x
    }
}

/// Whether every constraint holds strictly, with its rounding error as a margin.
pub(crate) fn strictly_feasible(e: &Eval) -> bool {
    e.f.iter().zip(&e.f_err).all(|(f, err)| f.is_finite() && *f + *err < 0.0)
}

#[cfg(test)]
mod tests {
    // The dense path is tested against clarabel in `crate::tests` (random instances of every
    // program type); see `dense_path_agrees_with_clarabel`.
}
