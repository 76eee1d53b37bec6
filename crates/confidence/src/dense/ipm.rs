//! The primal–dual interior-point method of the parent's module docs ("The method") and its
//! certificate ("The certificate"): the Newton system with its bordered factorisation, the step
//! and the certified enclosure.

use super::{DenseSolution, Eval, Objective, Program, ProgramSpec, U, strictly_feasible};
use bohf_core::Link;
use nalgebra::{DMatrix, DVector};

/// Step limit of one program: a program not certified by then goes to clarabel.
const MAX_STEPS: u32 = 80;

impl<'a> Program<'a> {
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

/// Solves one program by the interior-point method from a strictly feasible point near its
/// `centre` (module docs), returning a certified solution, or `None` (the caller falls back to
/// clarabel).
// Long: one interior-point loop (predictor, corrector, step length, certificate) sharing the iterate's factorisation.
pub(crate) fn solve(spec: ProgramSpec<'_>) -> Option<DenseSolution> {
    let ProgramSpec { data, dirs, objective, threshold, candidate, centre, tolerance } = spec;
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
