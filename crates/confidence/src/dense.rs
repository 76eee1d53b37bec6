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
use nalgebra::{DMatrix, DVector};

/// Unit roundoff.
const U: f64 = f64::EPSILON / 2.0;

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
}

/// The x-independent structure of the dense programs of one [`ConicData`]: the direction matrix A
/// (k×n) whose rows carry every observation row and every box row, and which direction each uses.
#[derive(Debug, Clone)]
pub(crate) struct Directions {
    a: DMatrix<f64>,
    /// The direction of observation term τ (its row r_τ = s_τ · A[dir]; s_τ² = 1).
    term_dir: Vec<usize>,
    /// The direction of support point i (row L_i), when the latent box uses it.
    point_dir: Vec<usize>,
    /// AAᵀ (k×k), built on first use by the observation-space solves ([`InnerFactor`]).
    gram: std::sync::OnceLock<DMatrix<f64>>,
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
        Self { a, term_dir, point_dir, gram: std::sync::OnceLock::new() }
    }
}

/// One program's data and state, borrowed from the caller.
struct Program<'a> {
    data: &'a ConicData,
    dirs: &'a Directions,
    objective: Objective<'a>,
    /// κ = ℓ₀ − threshold (confidence sets; `None` for the MLE).
    kappa: Option<f64>,
    /// The candidate row c = (l_x, ρ_x) (confidence sets with the latent box).
    candidate: Option<DVector<f64>>,
    n: usize,
    dim: usize,
    total: f64,
}

/// Values at a point p: everything the step and the certificate need.
struct Eval {
    /// v = R w.
    v: DVector<f64>,
    /// φ(w) and the sum of |terms| (for its rounding error).
    phi: f64,
    phi_abs: f64,
    /// ∇φ(w) = −Rᵀ(c ⊙ σ(−v)).
    grad_phi: DVector<f64>,
    /// The constraint values f_j(p) in the order: norm, likelihood, box (+z_i, −z_i)_i, candidate (+, −).
    f: Vec<f64>,
    /// A bound on the rounding error of each f_j.
    f_err: Vec<f64>,
}

impl<'a> Program<'a> {
    fn constraint_count(&self) -> usize {
        1 + usize::from(self.kappa.is_some())
            + if self.data.latent_box.is_some() { 2 * self.n } else { 0 }
            + if self.candidate.is_some() { 2 } else { 0 }
    }

    fn first_box(&self) -> usize {
        1 + usize::from(self.kappa.is_some())
    }

    fn eval(&self, p: &DVector<f64>) -> Eval {
        let n = self.n;
        let data = self.data;
        let w = p.rows(0, n);
        let v = &data.rows * w;
        let mut phi = 0.0;
        let mut phi_abs = 0.0;
        let mut coef = DVector::zeros(v.len());
        for (k, &vk) in v.iter().enumerate() {
            let sp = softplus(-vk);
            phi += data.weights[k] * sp;
            phi_abs += data.weights[k] * (sp + vk.abs());
            coef[k] = -data.weights[k] * Link::Logistic.mu(-vk);
        }
        let grad_phi = data.rows.tr_mul(&coef);
        let b = data.norm_bound;
        let pn2 = p.norm_squared();
        let mut f = vec![(pn2 - b * b) / (2.0 * b * b)];
        let dim_err = (self.dim + self.data.rows.nrows() + 16) as f64 * U;
        let mut f_err = vec![dim_err * (pn2 + b * b) / (2.0 * b * b) + U];
        if let Some(kappa) = self.kappa {
            f.push((phi - kappa) / self.total);
            f_err.push(dim_err * 4.0 * (phi_abs + kappa.abs()) / self.total);
        }
        if let Some(bx) = data.latent_box {
            let z = &data.l * w;
            let zabs = data.l.abs() * w.abs();
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
        Eval { v, phi, phi_abs, grad_phi, f, f_err }
    }

    /// A strictly feasible point near `centre` (a feasible w, e.g. the MLE): (1 − θ)·centre for the
    /// largest θ ∈ {1/2, 1/4, …} that is strictly feasible, with ω chosen to put the candidate's
    /// value inside its box rows. `None` if no such point is found (e.g. β = 0: no interior).
    fn interior_start(&self, centre: &DVector<f64>) -> Option<(DVector<f64>, Eval)> {
        let n = self.n;
        let b = self.data.norm_bound;
        let mut theta = 0.5;
        for _ in 0..40 {
            let mut p = DVector::zeros(self.dim);
            p.rows_mut(0, n).copy_from(&(centre * (1.0 - theta)));
            if let (Some(c), true) = (&self.candidate, self.dim > n) {
                let rho = c[n];
                let room = 0.5 * (b * b - p.rows(0, n).norm_squared()).max(0.0).sqrt();
                if rho > 0.0 {
                    let lw = c.rows(0, n).dot(&p.rows(0, n));
                    p[n] = (-lw / rho).clamp(-room, room);
                }
            }
            let e = self.eval(&p);
            if strictly_feasible(&e) {
                return Some((p, e));
            }
            theta *= 0.5;
        }
        None
    }

    /// f₀(p) and a bound on its rounding error.
    fn objective(&self, p: &DVector<f64>, e: &Eval) -> (f64, f64) {
        match self.objective {
            Objective::Linear(g) => (-g.dot(p), (self.dim + 4) as f64 * U * g.abs().dot(&p.abs())),
            Objective::Likelihood => {
                let err = (self.data.rows.nrows() + self.n + 16) as f64 * U * 4.0 * e.phi_abs / self.total;
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

/// The dual of a linear program over the confidence set without the latent box,
///
/// ```text
/// D(λ, μ) = max_p gᵀp − λ(φ(w) − κ) − (μ/2)(‖p‖² − B²),     λ, μ ≥ 0,
/// ```
///
/// evaluated at one (λ, μ): the inner maximiser p (unique for μ > 0: ω = g_ω/μ and w by Newton's
/// method on the strongly concave inner objective), D's gradient (κ − φ(w), (B² − ‖p‖²)/2) (the
/// envelope theorem) and Hessian [∇φ̃ᵀH⁻¹∇φ̃, ∇φ̃ᵀH⁻¹p; ·, pᵀH⁻¹p] with H = λ∇²φ̃ + μI (implicit
/// differentiation of the inner optimality condition g = λ∇φ̃ + μp, ∇φ̃ = (∇φ, 0)).
struct DualPoint {
    lambda: f64,
    mu: f64,
    p: DVector<f64>,
    /// An upper bound on D(λ, μ): the inner objective at p plus ‖∇‖²/(2μ) (strong concavity),
    /// rounding included.
    upper: f64,
    /// D's value at p (the inner objective at the computed p, no margins), for the line search.
    value: f64,
    grad: [f64; 2],
    hess: [[f64; 2]; 2],
    /// H⁻¹[∇φ, w] (n×2): the first-order change of w is −H⁻¹(∇φ dλ + w dμ).
    sensitivity: DMatrix<f64>,
}

impl DualPoint {
    /// The inner maximiser predicted to first order at (λ + dλ, μ + dμ): a warm start.
    fn predict(&self, dlambda: f64, dmu: f64) -> DVector<f64> {
        let n = self.sensitivity.nrows();
        let mut p = self.p.clone();
        let dw = &self.sensitivity * nalgebra::Vector2::new(dlambda, dmu);
        p.rows_mut(0, n).axpy(-1.0, &dw, 1.0);
        p
    }
}

impl Program<'_> {
    /// α∇²φ(w) (n×n) = Rᵀ diag(α c_τ σ′(v_τ)) R, through the shared directions.
    fn curvature(&self, e: &Eval, alpha: f64) -> DMatrix<f64> {
        let k = self.dirs.a.nrows();
        let mut weight = DVector::<f64>::zeros(k);
        for (tau, &vt) in e.v.iter().enumerate() {
            weight[self.dirs.term_dir[tau]] += alpha * self.data.weights[tau] * Link::Logistic.dmu(vt);
        }
        let mut scaled = self.dirs.a.clone();
        for (d, mut row) in scaled.row_iter_mut().enumerate() {
            row *= weight[d].max(0.0).sqrt();
        }
        scaled.transpose() * &scaled
    }

    /// Evaluates the dual at (λ, μ), μ > 0, from the inner starting point `start`. `None` if the
    /// inner Newton iteration fails (a factorisation, or no convergence).
    fn dual_point(
        &self,
        g: &DVector<f64>,
        lambda: f64,
        mu: f64,
        start: &DVector<f64>,
        tolerance: f64,
    ) -> Option<DualPoint> {
        let n = self.n;
        let b = self.data.norm_bound;
        let kappa = self.kappa?;
        let gw = g.rows(0, n).clone_owned();
        // Inner objective (to maximise) q(p) = gᵀp − λφ(w) − (μ/2)‖p‖².
        let inner = |p: &DVector<f64>, e: &Eval| g.dot(p) - lambda * e.phi - 0.5 * mu * p.norm_squared();
        let mut p = start.clone();
        if self.dim > n {
            p[n] = g[n] / mu;
        }
        let mut e = self.eval(&p);
        let mut converged = false;
        // Converged when the certificate's residual term ‖∇‖²/(2μ) is negligible against the
        // tolerance (relative to the dual's scale).
        let scale = 1.0 + lambda * kappa.abs() + mu * b * b;
        for _ in 0..40 {
            // ∇q over w: g_w − λ∇φ − μw.
            let grad = &gw - &e.grad_phi * lambda - p.rows(0, n) * mu;
            let q0 = inner(&p, &e);
            // (Far below the certificate's need: the dual gradient and the primal point come from p.)
            let accuracy = 1e-8 * tolerance * (scale + q0.abs());
            let r2 = grad.norm_squared();
            if !r2.is_finite() {
                return None;
            }
            if r2 / (2.0 * mu) <= accuracy {
                converged = true;
                break;
            }
            let chol = InnerFactor::new(self, &e, lambda, mu)?;
            let dw = chol.solve(&grad);
            let decrement = grad.dot(&dw);
            if !decrement.is_finite() {
                return None;
            }
            if decrement <= 16.0 * U * (scale + q0.abs()) {
                // The Newton decrement is at the rounding level of q: as far as f64 goes.
                converged = r2 / (2.0 * mu) <= 1e5 * accuracy;
                break;
            }
            let mut step = 1.0;
            let mut moved = false;
            for _ in 0..30 {
                let mut pp = p.clone();
                pp.rows_mut(0, n).axpy(step, &dw, 1.0);
                let ee = self.eval(&pp);
                if inner(&pp, &ee) >= q0 + 0.25 * step * decrement {
                    p = pp;
                    e = ee;
                    moved = true;
                    break;
                }
                step *= 0.5;
            }
            if !moved {
                // No progress at rounding level: converged as far as f64 allows, or stuck.
                converged = r2 / (2.0 * mu) <= 1e5 * accuracy;
                break;
            }
        }
        if !converged {
            return None;
        }
        // At the final p: the residual (for the certificate) and D's Hessian.
        let grad = &gw - &e.grad_phi * lambda - p.rows(0, n) * mu;
        let chol = InnerFactor::new(self, &e, lambda, mu)?;
        let mut rhs = DMatrix::zeros(n, 2);
        rhs.column_mut(0).copy_from(&e.grad_phi);
        rhs.column_mut(1).copy_from(&p.rows(0, n));
        let sol = chol.solve_matrix(&rhs);
        let omega2 = if self.dim > n { p[n] * p[n] } else { 0.0 };
        let hll = e.grad_phi.dot(&sol.column(0));
        let hlm = e.grad_phi.dot(&sol.column(1));
        let hmm = p.rows(0, n).dot(&sol.column(1)) + omega2 / mu;
        let pn2 = p.norm_squared();
        let value = inner(&p, &e) + lambda * kappa + 0.5 * mu * b * b;
        // Rounding: every term of the inner objective and of the gradient, with generous counts.
        let dim_err = (self.dim + self.data.rows.nrows() + 16) as f64 * U;
        let gp_abs = g.abs().dot(&p.abs());
        let q_err = dim_err * 8.0 * (gp_abs + lambda * (e.phi_abs + kappa.abs()) + mu * (pn2 + b * b));
        let gnorm = grad.norm();
        let grad_err =
            dim_err * 8.0 * (gw.abs().sum() + lambda * e.grad_phi.abs().sum() + mu * p.rows(0, n).abs().sum());
        let r = gnorm + grad_err;
        let upper = value + r * r / (2.0 * mu) + q_err;
        Some(DualPoint {
            lambda,
            mu,
            p,
            upper,
            value,
            grad: [kappa - e.phi, 0.5 * (b * b - pn2)],
            hess: [[hll, hlm], [hlm, hmm]],
            sensitivity: sol,
        })
    }

    /// The largest θ ∈ [0, 1] (to bisection precision) with anchor + θ(p − anchor) strictly
    /// feasible, for a strictly feasible anchor; returns that point and its evaluation.
    fn pull_inside(&self, anchor: &DVector<f64>, p: &DVector<f64>) -> Option<(DVector<f64>, Eval)> {
        let e = self.eval(p);
        if strictly_feasible(&e) {
            return Some((p.clone(), e));
        }
        let d = p - anchor;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        let mut best = None;
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            let q = anchor + &d * mid;
            let eq = self.eval(&q);
            if strictly_feasible(&eq) {
                lo = mid;
                best = Some((q, eq));
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-15 {
                break;
            }
        }
        best
    }
}

/// A factorisation of the inner Hessian H = λ∇²φ + μI = λAᵀDA + μI (A the k×n direction matrix,
/// D = diag of the directions' curvature weights), in the cheaper of two forms: H itself (n×n,
/// formed with one product, 2kn² + n³/3 flops), or, by the Woodbury identity,
/// H⁻¹ = (I − Aᵀ M⁻¹ A)/μ with M = (μ/λ)D⁻¹ + AAᵀ over the directions of positive weight (k×k,
/// AAᵀ computed once per set; k³/3 flops), which avoids the product altogether.
enum InnerFactor {
    Primal(nalgebra::Cholesky<f64, nalgebra::Dyn>),
    Woodbury {
        chol: nalgebra::Cholesky<f64, nalgebra::Dyn>,
        /// The directions kept (positive weight) and their rows of A.
        rows: DMatrix<f64>,
        mu: f64,
    },
}

impl InnerFactor {
    fn new(program: &Program<'_>, e: &Eval, lambda: f64, mu: f64) -> Option<Self> {
        let n = program.n;
        let a = &program.dirs.a;
        let k = a.nrows();
        let primal_flops = 2.0 * (k * n * n) as f64 + (n * n * n) as f64 / 3.0;
        let woodbury_flops = (k * k * k) as f64 / 3.0 + 4.0 * (k * n) as f64;
        if lambda <= 0.0 || woodbury_flops >= primal_flops {
            let mut h = program.curvature(e, lambda);
            for i in 0..n {
                h[(i, i)] += mu;
            }
            return nalgebra::Cholesky::new(h).map(InnerFactor::Primal);
        }
        let mut weight = vec![0.0f64; k];
        for (tau, &vt) in e.v.iter().enumerate() {
            weight[program.dirs.term_dir[tau]] += program.data.weights[tau] * Link::Logistic.dmu(vt);
        }
        let keep: Vec<usize> = (0..k).filter(|&d| weight[d] > 0.0).collect();
        let gram = program.dirs.gram.get_or_init(|| a * a.transpose());
        let m = DMatrix::from_fn(keep.len(), keep.len(), |i, j| {
            gram[(keep[i], keep[j])] + if i == j { mu / (lambda * weight[keep[i]]) } else { 0.0 }
        });
        let rows = a.select_rows(&keep);
        Some(InnerFactor::Woodbury { chol: nalgebra::Cholesky::new(m)?, rows, mu })
    }

    fn solve(&self, r: &DVector<f64>) -> DVector<f64> {
        match self {
            InnerFactor::Primal(c) => c.solve(r),
            InnerFactor::Woodbury { chol, rows, mu } => {
                let t = chol.solve(&(rows * r));
                (r - rows.tr_mul(&t)) / *mu
            }
        }
    }

    fn solve_matrix(&self, r: &DMatrix<f64>) -> DMatrix<f64> {
        match self {
            InnerFactor::Primal(c) => c.solve(r),
            InnerFactor::Woodbury { chol, rows, mu } => {
                let t = chol.solve(&(rows * r));
                (r - rows.tr_mul(&t)) / *mu
            }
        }
    }
}

/// Maximises gᵀp over the confidence set without the latent box by Newton's method on the
/// two-dimensional dual D(λ, μ) ([`DualPoint`]), each evaluation an inner Newton solve warm
/// started from the last. Certified like [`solve`]: the upper end is D at the final (λ, μ) (weak
/// duality) with the inner residual's strong-concavity term, the lower end gᵀq at a strictly
/// feasible q, the inner maximiser pulled towards a strictly feasible anchor; both with their
/// rounding. `None` (the caller falls back) when no certificate within the tolerance is found.
pub(crate) fn solve_dual(
    data: &ConicData,
    dirs: &Directions,
    g: &DVector<f64>,
    threshold: f64,
    centre: &DVector<f64>,
    tolerance: f64,
) -> Option<DenseSolution> {
    let n = data.l.nrows();
    if data.latent_box.is_some() || centre.len() != n || g.len() < n {
        return None;
    }
    let program = Program {
        data,
        dirs,
        objective: Objective::Linear(g),
        kappa: Some(data.constant - threshold),
        candidate: None,
        n,
        dim: g.len(),
        total: data.total_weight(),
    };
    let (anchor, _) = program.interior_start(centre)?;
    let b = data.norm_bound;
    let gnorm = g.norm();
    if gnorm == 0.0 {
        return None;
    }
    // Start: the norm ball alone (λ = 0 gives p = g/μ, on the sphere for μ = ‖g‖/B), with a
    // likelihood multiplier of the same scale.
    // λ* = 0 when the maximiser over the ball alone, p = B g/‖g‖, is (strictly) inside the
    // likelihood constraint: then max = B‖g‖ (Cauchy–Schwarz), attained there.
    {
        let p = g * (b / gnorm);
        let e = program.eval(&p);
        if e.f[1] + e.f_err[1] < 0.0 {
            let (q, _) = program.pull_inside(&anchor, &p)?;
            let lower = g.dot(&q) - (program.dim + 4) as f64 * U * g.abs().dot(&q.abs());
            let upper = b * gnorm * (1.0 + (program.dim + 4) as f64 * U);
            if upper - lower <= tolerance * upper.abs().max(1.0) {
                return Some(DenseSolution {
                    p: q,
                    lower,
                    upper,
                    box_duals: (0.0, 0.0),
                    iterations: 0,
                    dual_residual: 0.0,
                });
            }
        }
    }
    let mut mu = gnorm / b;
    let mut lambda = gnorm * b / program.total.max(1.0);
    let mut point = program.dual_point(g, lambda, mu, &anchor, tolerance)?;
    const MIN_MU_FRACTION: f64 = 1e-12;
    let (mut best_gap, mut stalled) = (f64::INFINITY, 0u32);
    for iteration in 1..=40u32 {
        // Certificate at this point.
        let (q, _) = program.pull_inside(&anchor, &point.p)?;
        let lower = g.dot(&q) - (program.dim + 4) as f64 * U * g.abs().dot(&q.abs());
        let upper = point.upper;
        let scale = upper.abs().max(lower.abs()).max(1.0);
        let gap = (upper - lower) / scale;
        if gap <= tolerance {
            return Some(DenseSolution {
                p: q,
                lower,
                upper,
                box_duals: (0.0, 0.0),
                iterations: iteration,
                dual_residual: 0.0,
            });
        }
        // Give up (the caller falls back) when the gap has stopped shrinking: six steps
        // without halving it.
        if gap < best_gap * 0.5 {
            best_gap = gap;
            stalled = 0;
        } else {
            stalled += 1;
            if stalled >= 6 {
                return None;
            }
        }
        // Newton's step on D (convex; minimised over λ, μ > 0), or the diagonally scaled
        // gradient step where the 2×2 Hessian is singular or the step is no descent.
        let [gl, gm] = point.grad;
        let [[a, bb], [_, c]] = point.hess;
        let det = a * c - bb * bb;
        let diagonal = [-gl / a.max(1e-300), -gm / c.max(1e-300)];
        let mut d = if det > 0.0 && det.is_finite() {
            [-(c * gl - bb * gm) / det, -(a * gm - bb * gl) / det]
        } else {
            diagonal
        };
        let slope0 = gl * d[0] + gm * d[1];
        if slope0.is_nan() || slope0 >= 0.0 {
            d = diagonal;
        }
        // At most a tenfold decrease of either multiplier per step (λ* = 0 is handled before
        // the loop; μ* = 0, an inactive norm, is approached geometrically).
        let mut t = 1.0f64;
        if d[0] < 0.0 {
            t = t.min(0.9 * lambda / -d[0]);
        }
        if d[1] < 0.0 {
            t = t.min(0.9 * mu / -d[1]);
        }
        let mut next = None;
        for _ in 0..20 {
            let nl = (lambda + t * d[0]).max(0.0);
            let nm = (mu + t * d[1]).max(MIN_MU_FRACTION * gnorm / b);
            let start = point.predict(nl - lambda, nm - mu);
            if let Some(np) = program.dual_point(g, nl, nm, &start, tolerance) {
                let decrease = gl * (nl - lambda) + gm * (nm - mu);
                // Armijo on D, or (near the optimum, where D's decrease is below its rounding)
                // both components of D's gradient halved.
                let halved = np.grad[0].abs() <= 0.5 * gl.abs() && np.grad[1].abs() <= 0.5 * gm.abs();
                if np.value <= point.value + 1e-4 * decrease.min(0.0) || halved {
                    next = Some(np);
                    break;
                }
            }
            t *= 0.5;
        }
        let np = next?;
        lambda = np.lambda;
        mu = np.mu;
        point = np;
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
fn strictly_feasible(e: &Eval) -> bool {
    e.f.iter().zip(&e.f_err).all(|(f, err)| f.is_finite() && *f + *err < 0.0)
}

#[cfg(test)]
mod tests {
    // The dense path is tested against clarabel in `crate::tests` (random instances of every
    // program type); see `dense_path_agrees_with_clarabel`.
}
