//! The fast path's main method: Newton's method on the low-dimensional Lagrangian dual of each
//! program, with the latent box held in the inner problem ([`boxed`]), certified like
//! [`crate::dense`].
//!
//! **The dual.** For the programs of [`crate::dense`] (module docs there), price the norm row by
//! μ ≥ 0, the likelihood row by λ ≥ 0 (confidence sets; λ ≡ 1 and no row for the MLE, whose
//! objective is −φ) and a set J of signed latent-box rows s_jc_jᵀp ≤ b by ν_j ≥ 0:
//!
//! ```text
//! D(λ, μ, ν) = max_p (g − Σ_j ν_j s_j c_j)ᵀp − λ(φ(w) − κ) − (μ/2)(‖p‖² − B²) + b Σ_j ν_j,
//! ```
//!
//! (g = 0 for the MLE, κ = 0 there; POP-BO eqs. (12), (21), (22), (24); COBOL eqs. (4), (37)–(39)).
//! By weak duality D bounds the program's maximum from above at every (λ, μ, ν) ≥ 0, whatever J.
//! For μ > 0 the inner problem is strongly concave: ω = g′_ω/μ in closed form and w by Newton's
//! method with H = λ∇²φ + μI. D is convex; its gradient is (κ − φ(w), (B² − ‖p‖²)/2,
//! b − s_jc_jᵀp) (the envelope theorem) and its Hessian FᵀH̃⁻¹F with F = [∇φ̃, p, s_jc_j] and
//! H̃ = diag(H, μ) (implicit differentiation of the inner optimality g′ = λ∇φ̃ + μp). Without the
//! latent box the outer iteration is a projected Newton method on (λ, μ) with bounds λ ≥ 0 and
//! μ ≥ μ_min (a floor below which the norm's price no longer matters at the tolerance) and an
//! Armijo line search on D; each inner solve starts from the first-order prediction
//! p − H̃⁻¹F·Δ(λ, μ), so near the optimum it takes one or two Newton steps. With the latent box the
//! outer iteration runs on the partial dual min_ν D (the box kept in the inner problem, ν from the
//! inner optimality; [`boxed`]).
//!
//! **Why this route.** The programs have two nonlinear constraints (the norm and the likelihood)
//! and otherwise only box rows, most of them inactive. A primal–dual interior-point method
//! ([`crate::dense::solve`]) must follow the central path through the nonlinear constraints, and
//! its Newton steps overshoot them where the likelihood is flat (unobserved directions): it cuts
//! its steps and needs 40–80 iterations, often without certifying. Here the nonlinear constraints
//! are priced exactly, the inner problem is an unconstrained strongly concave one (damped Newton
//! converges reliably), and the outer problem has two variables (the box's rows are the inner
//! problem's, [`boxed`]): 8–14 outer steps of 3–4 factorisations each on the measured instances. One factorisation costs n³/3 flops plus 2kn² for
//! forming λAᵀDA, or, in observation space by the Woodbury identity ([`InnerFactor`]), k³/3 with
//! AAᵀ formed once per set (k distinct observation directions).
//!
//! **The certificate.** The upper end is D at the final multipliers plus ‖∇_w q‖²/(2μ) (the inner
//! problem is μ-strongly concave, so this bounds the inner maximum from the computed p) and the
//! rounding of every term. The lower end is the objective at a strictly feasible point: the inner
//! maximiser pulled towards a strictly feasible anchor (near the MLE) until every constraint holds
//! with its rounding error as a margin, less the rounding of its evaluation. A result is returned
//! only when the two ends are within the tolerance; otherwise `None`, and the caller tries the
//! interior-point method and then clarabel.

use crate::MleWarmStart;
use crate::conic::ConicData;
use crate::dense::{DenseSolution, Directions, Eval, Objective, Program, U};
use bohf_core::Link;
use bohf_core::linalg::{Cholesky, tr_mul_blocked};
use nalgebra::{DMatrix, DVector};

mod accurate;
mod boxed;
mod pull;

use pull::{Segment, bisect};

/// Outer (dual) step limit of one program.
const MAX_OUTER: u32 = 40;
/// Inner Newton step limit of one dual evaluation.
const MAX_INNER: u32 = 40;
/// Dual evaluations (inner solves) allowed per program: the certified programs measured take
/// 7–25; a program that needs more goes to the fallback.
const MAX_EVALUATIONS: u32 = 40;

/// A signed latent-box row s·(c_jᵀp) ≤ b: support point i's value z_i = L_iw, or the candidate's
/// f̃(x) = l_xᵀw + ρ_xω; `true` for the + sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BoxRow {
    Support(usize, bool),
    Candidate(bool),
}

impl BoxRow {
    /// s_j c_j as a vector of the program's dimension.
    fn vector(self, program: &Program<'_>) -> DVector<f64> {
        let mut c = DVector::zeros(program.dim);
        self.write(program, c.as_mut_slice());
        c
    }

    /// s_j c_j written into the first `program.dim` entries of `out` (zero where c_j has none).
    fn write(self, program: &Program<'_>, out: &mut [f64]) {
        let sign = |plus: bool| if plus { 1.0 } else { -1.0 };
        let out = &mut out[..program.dim];
        match self {
            BoxRow::Support(i, plus) => {
                let l = program.data.l.row(i);
                out.fill(0.0);
                for k in 0..program.n {
                    out[k] = sign(plus) * l[k];
                }
            }
            BoxRow::Candidate(plus) => {
                out.fill(0.0);
                if let Some(row) = &program.candidate {
                    for (o, v) in out.iter_mut().zip(row.iter()) {
                        *o = sign(plus) * v;
                    }
                }
            }
        }
    }
}

/// Which multipliers vary: λ for the confidence sets, fixed at 1 for the MLE.
#[derive(Debug, Clone, Copy)]
struct Multipliers {
    lambda: f64,
    mu: f64,
}

/// The dual at one (λ, μ, ν): the inner maximiser and D's value, bound, gradient and Hessian.
struct DualPoint {
    m: Multipliers,
    /// ν_j of the working set, in its order.
    nu: Vec<f64>,
    p: DVector<f64>,
    /// D at p (no margins), for the line search.
    value: f64,
    /// A certified upper bound on D(λ, μ, ν) (module docs).
    upper: f64,
    /// ∇D over the free variables [λ (confidence sets only), μ, ν…].
    grad: DVector<f64>,
    /// ∇²D, same order.
    hess: DMatrix<f64>,
    /// H̃⁻¹F: the first-order change of p is −H̃⁻¹F·Δ.
    sensitivity: DMatrix<f64>,
}

impl DualPoint {
    /// The inner maximiser predicted to first order after the change `delta` of the variables.
    fn predict(&self, delta: &DVector<f64>) -> DVector<f64> {
        &self.p - &self.sensitivity * delta
    }
}

/// One program's dual: the program, its objective direction (zero for the MLE) and box rows.
struct Dual<'a> {
    program: Program<'a>,
    g: DVector<f64>,
    /// Whether λ is a variable (confidence sets) or fixed at 1 (the MLE).
    lambda_free: bool,
    bound: f64,
    tolerance: f64,
    /// `Some(s)` when g = s·c for the candidate's row c (a pointwise bound): then the candidate's
    /// box rows are not priced; the maximum over the rest is clipped at b instead (module docs).
    clip: Option<bool>,
    /// Whether the candidate's row duplicates a support point's row (a candidate on the support):
    /// the support row prices it.
    candidate_on_support: bool,
    /// A level at which the program may stop early: as soon as a certified upper bound on D is at
    /// most this, the maximum is too ([`solve`]).
    stop_at: Option<f64>,
    /// Dual evaluations left ([`MAX_EVALUATIONS`]): a program that needs more goes to the fallback
    /// rather than cost more than clarabel would.
    budget: std::cell::Cell<u32>,
    /// The storage of the last factorisation, refilled by the next ([`InnerFactor::new`]): a fresh
    /// n×n allocation per factorisation costs as much in page faults as the factorisation.
    spare: std::cell::RefCell<Option<DMatrix<f64>>>,
}

impl Dual<'_> {
    fn offset(&self) -> usize {
        usize::from(self.lambda_free)
    }

    /// The program's objective at a feasible point and a bound on its rounding error.
    fn objective(&self, q: &DVector<f64>, e: &Eval) -> (f64, f64) {
        if self.lambda_free {
            (self.g.dot(q), (self.program.dim + 4) as f64 * U * self.g.abs().dot(&q.abs()))
        } else {
            (-e.phi, e.phi_err)
        }
    }

    /// The scale the tolerance is relative to: max(1, |value|), and for the MLE at least the
    /// total weight W (the interior-point path's φ/W scaling).
    fn scale(&self, value: f64) -> f64 {
        let s = value.abs().max(1.0);
        if self.lambda_free { s } else { s.max(self.program.total) }
    }

    /// The certificate at `point` (module docs): the solution when its enclosure meets the
    /// tolerance, else the relative gap of the unclipped enclosure (the progress measure: D must come
    /// down to the box first) and the scale it is relative to; `None` when no strictly feasible
    /// point is found.
    fn certify(
        &self,
        anchor: &DVector<f64>,
        point: &DualPoint,
        rows: &[BoxRow],
        iteration: u32,
        gnorm: f64,
    ) -> Option<Result<DenseSolution, (f64, f64)>> {
        let (q, eq) = self.program.pull_inside(anchor, &point.p)?;
        let (value, err) = self.objective(&q, &eq);
        // Close: the pull-inside's margins may be what is left ([`accurate`]).
        let (q, value, err) = self.tighten(anchor, point, q, value, err);
        let lower = value - err;
        // A pointwise bound is clipped at the latent box: max sᵀ... ≤ b (module docs).
        let clipped = self.clip.is_some() && point.upper >= self.bound;
        let upper = if clipped { self.bound } else { point.upper };
        let scale = self.scale(value);
        if (upper - lower) / scale > self.tolerance {
            return Some(Err(((point.upper - lower) / scale, scale)));
        }
        if clipped {
            // The candidate's own row is the active constraint, priced 1, all others 0.
            let duals = if self.clip == Some(true) { (1.0, 0.0) } else { (0.0, 1.0) };
            return Some(Ok(DenseSolution {
                p: q,
                lower,
                upper,
                box_duals: duals,
                iterations: iteration,
                dual_residual: 0.0,
                scaled_multipliers: None,
                mle_restart: None,
            }));
        }
        let mut sol = solution(q, lower, upper, rows, &point.nu, iteration);
        if self.lambda_free {
            sol.scaled_multipliers = Some((point.m.lambda / gnorm, point.m.mu / gnorm));
        } else if self.program.data.latent_box.is_some() {
            let active = rows
                .iter()
                .zip(&point.nu)
                .filter_map(|(row, &v)| match *row {
                    BoxRow::Support(i, plus) if v > 0.0 => Some((i, plus)),
                    _ => None,
                })
                .collect();
            sol.mle_restart = Some((point.m.mu, active));
        }
        Some(Ok(sol))
    }

    /// The early stop of [`solve`]: `point`'s certified upper bound on D is at most the caller's
    /// level, so by weak duality the program's maximum is too. The result has no feasible point
    /// (`lower` = −∞); its `box_duals` are ν's candidate rows, valid multipliers for the cut the
    /// caller may record (any ν ≥ 0 gives a valid bound).
    fn stopped(&self, point: &DualPoint, rows: &[BoxRow], iteration: u32) -> Option<DenseSolution> {
        self.stop(rows, &point.nu, &point.p, point.upper, iteration)
    }

    /// [`Dual::stopped`] for a certified upper bound `upper` on D at ν, with inner point p.
    fn stop(&self, rows: &[BoxRow], nu: &[f64], p: &DVector<f64>, upper: f64, iteration: u32) -> Option<DenseSolution> {
        let level = self.stop_at?;
        let upper = if self.clip.is_some() { upper.min(self.bound) } else { upper };
        (upper <= level).then(|| solution(p.clone(), f64::NEG_INFINITY, upper, rows, nu, iteration))
    }

    /// Whether a certified upper bound on D reaches the early stop's level ([`Dual::stopped`]).
    fn reaches_stop(&self, upper: f64) -> bool {
        let upper = if self.clip.is_some() { upper.min(self.bound) } else { upper };
        self.stop_at.is_some_and(|level| upper <= level)
    }

    /// D's inner value at any inner point p (no margins) and a certified upper bound on D(m, ν),
    /// where g = g₀ − Σ_j ν_j s_jc_j and p's ω is g_ω/μ: the inner problem is μ-strongly concave, so
    /// its maximum is at most q(p) + ‖∇q(p)‖²/(2μ) (module docs), plus the rounding of every term.
    fn value_and_upper(&self, m: Multipliers, g: &DVector<f64>, nu: &[f64], p: &DVector<f64>, e: &Eval) -> (f64, f64) {
        let program = &self.program;
        let n = program.n;
        let b = program.data.norm_bound;
        let kappa = program.kappa.unwrap_or(0.0);
        let Multipliers { lambda, mu } = m;
        let gw = g.rows(0, n);
        let box_sum: f64 = if nu.is_empty() { 0.0 } else { nu.iter().sum::<f64>() * self.bound };
        let grad_w = gw - &e.grad_phi * lambda - p.rows(0, n) * mu;
        let pn2 = p.norm_squared();
        let value = g.dot(p) - lambda * e.phi - 0.5 * mu * pn2 + lambda * kappa + 0.5 * mu * b * b + box_sum;
        // Rounding: every term of the inner objective and of its gradient, generously counted.
        // (The likelihood's own rounding is `phi_err`, which no longer grows with the number of
        // terms; the gradient's, a sum over the terms, still counts them.)
        let dim_err = (program.dim + nu.len() + 16) as f64 * U;
        let q_err = dim_err * 8.0 * (g.abs().dot(&p.abs()) + mu * (pn2 + b * b) + box_sum)
            + lambda * (e.phi_err + 8.0 * U * (e.phi.abs() + kappa.abs())) * (1.0 + 4.0 * U);
        let dim_err = (program.dim + program.data.rows.nrows() + nu.len() + 16) as f64 * U;
        let grad_err =
            dim_err * 8.0 * (gw.abs().sum() + lambda * e.grad_phi.abs().sum() + mu * p.rows(0, n).abs().sum());
        let r = grad_w.norm() + grad_err;
        (value, value + r * r / (2.0 * mu) + q_err)
    }

    /// One projected Newton step on D over the free variables [λ, μ, ν…] of `point` (module
    /// docs), the working set `rows` fixed; `scale` is the certificate's ([`Dual::certify`]).
    /// `None` when no step of any ridge passes the line search.
    fn newton_step(&self, point: &DualPoint, rows: &[BoxRow], scale: f64) -> Option<DualPoint> {
        let b = self.program.data.norm_bound;
        // The floor of μ: below it the norm's price changes D by less than the tolerance.
        let mu_floor = 1e-3 * self.tolerance * scale / (b * b);
        let x = variables(self, point);
        let lower_bounds: Vec<f64> = (0..x.len()).map(|j| if j == self.offset() { mu_floor } else { 0.0 }).collect();
        // Projected Newton: variables at their bound whose gradient pushes them further out stay.
        let free: Vec<usize> = (0..x.len()).filter(|&j| !(x[j] <= lower_bounds[j] && point.grad[j] > 0.0)).collect();
        // Newton's step with a Levenberg–Marquardt ridge that grows when the line search fails
        // (nearly collinear box rows of close support points make the Hessian ill-conditioned).
        let pg_norm = projected_gradient(&point.grad, &x, &lower_bounds).norm();
        // λ and μ fall at most tenfold per step: near μ → 0 D is steep (‖p‖ grows like 1/μ) and a
        // full Newton step to the floor leaves a region where Newton's model is poor.
        let step_floor: Vec<f64> = (0..x.len())
            .map(|j| if j <= self.offset() { lower_bounds[j].max(0.1 * x[j]) } else { lower_bounds[j] })
            .collect();
        let mut next = None;
        'ridge: for ridge in [1e-10, 1e-6, 1e-3, 1e-1] {
            let d = newton_direction(&point.grad, &point.hess, &free, ridge);
            let mut t = 1.0f64;
            for _ in 0..12 {
                let xt = DVector::from_fn(x.len(), |j, _| (x[j] + t * d[j]).max(step_floor[j]));
                let delta = &xt - &x;
                let (mt, nut) = split(self, &xt);
                let start = point.predict(&delta);
                if let Some(np) = self.point(mt, rows, &nut, &start) {
                    if self.reaches_stop(np.upper) {
                        // A certified bound at the early stop's level: the caller stops there.
                        next = Some(np);
                        break 'ridge;
                    }
                    let decrease = point.grad.dot(&delta);
                    // Armijo on D, or (near the optimum, where D's decrease is below its
                    // rounding) the projected gradient halved without D growing.
                    let halved = projected_gradient(&np.grad, &xt, &lower_bounds).norm() <= 0.5 * pg_norm
                        && np.value <= point.value + 1e-12 * (1.0 + point.value.abs());
                    if np.value <= point.value + 1e-4 * decrease.min(0.0) || halved {
                        next = Some(np);
                        break 'ridge;
                    }
                }
                t *= 0.5;
            }
        }
        next
    }

    /// Evaluates the dual at (m, ν) for the working set `rows`, from the inner start `start`.
    fn point(&self, m: Multipliers, rows: &[BoxRow], nu: &[f64], start: &DVector<f64>) -> Option<DualPoint> {
        let program = &self.program;
        let n = program.n;
        let b = program.data.norm_bound;
        let kappa = program.kappa.unwrap_or(0.0);
        let Multipliers { lambda, mu } = m;
        if mu <= 0.0 || !mu.is_finite() || !lambda.is_finite() || self.budget.get() == 0 {
            return None;
        }
        self.budget.set(self.budget.get() - 1);
        let cols: Vec<DVector<f64>> = rows.iter().map(|r| r.vector(program)).collect();
        let mut g = self.g.clone();
        for (c, v) in cols.iter().zip(nu) {
            g.axpy(-v, c, 1.0);
        }
        let gw = g.rows(0, n).clone_owned();
        let inner = |p: &DVector<f64>, e: &Eval| g.dot(p) - lambda * e.phi - 0.5 * mu * p.norm_squared();
        let mut p = start.clone();
        if program.dim > n {
            p[n] = g[n] / mu;
        }
        let mut e = program.eval(&p);
        // b Σ ν_j (no rows, no term: b is infinite without the latent box).
        let box_sum: f64 = if nu.is_empty() { 0.0 } else { nu.iter().sum::<f64>() * self.bound };
        let scale = 1.0 + lambda * kappa.abs() + mu * b * b + box_sum;
        let mut converged = false;
        // The last factorisation: D's Hessian and the warm-start sensitivities are taken from it
        // (at the last Newton step's starting point, a quasi-Newton approximation for the outer
        // step only; the certificate does not use them), saving one factorisation per point.
        let mut last_factor: Option<InnerFactor> = None;
        for _ in 0..MAX_INNER {
            let grad = &gw - &e.grad_phi * lambda - p.rows(0, n) * mu;
            let q0 = inner(&p, &e);
            // Far below the certificate's need: D's gradient and the primal point come from p.
            let accuracy = 1e-8 * self.tolerance * (scale + q0.abs());
            let r2 = grad.norm_squared();
            if !r2.is_finite() {
                return None;
            }
            if r2 / (2.0 * mu) <= accuracy {
                converged = true;
                break;
            }
            let factor = InnerFactor::new(program, &e, lambda, mu, &self.spare)?;
            let dw = factor.solve(&grad)?;
            if let Some(old) = last_factor.replace(factor) {
                old.recycle(&self.spare);
            }
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
                let ee = program.eval(&pp);
                if inner(&pp, &ee) >= q0 + 0.25 * step * decrement {
                    p = pp;
                    e = ee;
                    moved = true;
                    break;
                }
                step *= 0.5;
            }
            if !moved {
                converged = r2 / (2.0 * mu) <= 1e5 * accuracy;
                break;
            }
        }
        if !converged {
            return None;
        }
        let (value, upper) = self.value_and_upper(m, &g, nu, &p, &e);
        let off = self.offset();
        let nv = off + 1 + rows.len();
        let pn2 = p.norm_squared();
        let mut grad = DVector::zeros(nv);
        if self.lambda_free {
            grad[0] = kappa - e.phi;
        }
        grad[off] = 0.5 * (b * b - pn2);
        for (j, c) in cols.iter().enumerate() {
            grad[off + 1 + j] = self.bound - c.dot(&p);
        }
        if self.reaches_stop(upper) {
            // The program stops here ([`Dual::stopped`]): no outer step will need the Hessian.
            if let Some(old) = last_factor {
                old.recycle(&self.spare);
            }
            let (hess, sensitivity) = (DMatrix::zeros(0, 0), DMatrix::zeros(0, 0));
            return Some(DualPoint { m, nu: nu.to_vec(), p, value, upper, grad, hess, sensitivity });
        }
        // D's Hessian at the final p: F = [∇φ̃ (λ free), p, s_jc_j], H̃⁻¹F.
        let factor = match last_factor {
            Some(f) => f,
            None => InnerFactor::new(program, &e, lambda, mu, &self.spare)?,
        };
        let mut f = DMatrix::zeros(program.dim, nv);
        if self.lambda_free {
            f.view_mut((0, 0), (n, 1)).copy_from(&e.grad_phi);
        }
        f.column_mut(off).copy_from(&p);
        for (j, c) in cols.iter().enumerate() {
            f.column_mut(off + 1 + j).copy_from(c);
        }
        let mut hf = DMatrix::zeros(program.dim, nv);
        let top = factor.solve_matrix(&f.rows(0, n).clone_owned())?;
        factor.recycle(&self.spare);
        hf.view_mut((0, 0), (n, nv)).copy_from(&top);
        if program.dim > n {
            for j in 0..nv {
                hf[(n, j)] = f[(n, j)] / mu;
            }
        }
        let hess = tr_mul_blocked(&f, &hf);
        let hess = (&hess + hess.transpose()) * 0.5;
        Some(DualPoint { m, nu: nu.to_vec(), p, value, upper, grad, hess, sensitivity: hf })
    }
}

impl Program<'_> {
    /// α∇²φ(w) (n×n) = Rᵀ diag(α c_τ σ′(v_τ)) R, through the shared directions.
    fn curvature(&self, e: &Eval, alpha: f64) -> DMatrix<f64> {
        let k = self.dirs.a.nrows();
        let weight = direction_weights(self, e) * alpha;
        // Only the directions that carry curvature (the latent box's own directions carry none).
        let keep: Vec<usize> = (0..k).filter(|&d| weight[d] > 0.0).collect();
        let mut scaled = self.dirs.a.select_rows(&keep);
        for (r, mut row) in scaled.row_iter_mut().enumerate() {
            row *= weight[keep[r]].sqrt();
        }
        tr_mul_blocked(&scaled, &scaled)
    }
}

/// The curvature weight of each direction of `program.dirs` at `e`: Σ_τ c_τ σ′(v_τ) over the terms
/// τ along it, so that ∇²φ(w) = Aᵀ diag(weight) A (A the direction matrix).
fn direction_weights(program: &Program<'_>, e: &Eval) -> DVector<f64> {
    let mut weight = DVector::<f64>::zeros(program.dirs.a.nrows());
    for (tau, &vt) in e.v.iter().enumerate() {
        weight[program.dirs.term_dir[tau]] += program.data.weights[tau] * Link::Logistic.dmu(vt);
    }
    weight
}

/// A factorisation of the inner Hessian H = λ∇²φ + μI = λAᵀDA + μI (A the k×n direction matrix,
/// D the directions' curvature weights), in the cheaper of two forms: H itself (formed with one
/// product, 2kn² + n³/3 flops), or, by the Woodbury identity, H⁻¹ = (I − AᵀM⁻¹A)/μ with
/// M = (μ/λ)D⁻¹ + AAᵀ over the directions of positive weight (k³/3 flops, AAᵀ formed once per set).
enum InnerFactor<'d> {
    Primal(Cholesky),
    Woodbury {
        chol: Cholesky,
        /// The rows of A kept (positive weight): borrowed when all are.
        rows: std::borrow::Cow<'d, DMatrix<f64>>,
        mu: f64,
    },
}

impl<'d> InnerFactor<'d> {
    /// The factor at `e` for (λ, μ), built in `spare`'s storage when it has the right shape.
    fn new(
        program: &Program<'d>,
        e: &Eval,
        lambda: f64,
        mu: f64,
        spare: &std::cell::RefCell<Option<DMatrix<f64>>>,
    ) -> Option<Self> {
        let n = program.n;
        let a: &'d DMatrix<f64> = &program.dirs.a;
        let k = a.nrows();
        let weight = direction_weights(program, e);
        let keep: Vec<usize> = (0..k).filter(|&d| weight[d] > 0.0).collect();
        let kk = keep.len();
        let primal_flops = 2.0 * (kk * n * n) as f64 + (n * n * n) as f64 / 3.0;
        let woodbury_flops = (kk * kk * kk) as f64 / 3.0 + 4.0 * (kk * n) as f64;
        if lambda <= 0.0 || woodbury_flops >= primal_flops {
            let mut h = program.curvature(e, lambda);
            for i in 0..n {
                h[(i, i)] += mu;
            }
            return Cholesky::blocked_in_place(h).ok().map(InnerFactor::Primal);
        }
        let gram = program.dirs.gram.get_or_init(|| a * a.transpose());
        let mut m =
            spare.borrow_mut().take().filter(|m| m.shape() == (kk, kk)).unwrap_or_else(|| DMatrix::zeros(kk, kk));
        let rows = if kk == k {
            m.copy_from(gram);
            std::borrow::Cow::Borrowed(a)
        } else {
            for (j, &dj) in keep.iter().enumerate() {
                for (i, &di) in keep.iter().enumerate() {
                    m[(i, j)] = gram[(di, dj)];
                }
            }
            std::borrow::Cow::Owned(a.select_rows(&keep))
        };
        for (i, &d) in keep.iter().enumerate() {
            m[(i, i)] += mu / (lambda * weight[d]);
        }
        Some(InnerFactor::Woodbury { chol: Cholesky::blocked_in_place(m).ok()?, rows, mu })
    }

    /// Gives the factor's storage back for the next factorisation.
    fn recycle(self, spare: &std::cell::RefCell<Option<DMatrix<f64>>>) {
        let chol = match self {
            InnerFactor::Primal(c) => c,
            InnerFactor::Woodbury { chol, .. } => chol,
        };
        *spare.borrow_mut() = Some(chol.into_storage());
    }

    /// H⁻¹r (`None` only on a dimension mismatch, which the callers exclude).
    fn solve(&self, r: &DVector<f64>) -> Option<DVector<f64>> {
        match self {
            InnerFactor::Primal(c) => c.solve_vec(r).ok(),
            InnerFactor::Woodbury { chol, rows, mu } => {
                Some((r - rows.tr_mul(&chol.solve_vec(&(rows.as_ref() * r)).ok()?)) / *mu)
            }
        }
    }

    /// H⁻¹R, as [`InnerFactor::solve`].
    fn solve_matrix(&self, r: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        match self {
            InnerFactor::Primal(c) => c.solve_many(r).ok(),
            InnerFactor::Woodbury { chol, rows, mu } => {
                Some((r - tr_mul_blocked(rows, &chol.solve_many(&(rows.as_ref() * r)).ok()?)) / *mu)
            }
        }
    }
}

/// Solves one program of the family by Newton's method on its dual (module docs): the MLE
/// (`Objective::Likelihood`, no threshold) or max gᵀp over the confidence set of `threshold`,
/// with the latent box and the candidate's box row `candidate` when the data has a latent box.
/// `centre` is a feasible w (the MLE, or zero) near which a strictly feasible anchor is found.
/// `warm` is the [`DenseSolution::scaled_multipliers`] of a previous program of the same set: the
/// start (λ, μ) = ‖g‖·warm (D is positively homogeneous in (g, λ, μ, ν), so a program whose
/// direction is a multiple of the previous one starts at its optimum; successive candidates'
/// multipliers differ by a factor of about 2 where a cold start was 10–30 times off).
/// `stop_at`: a level for a screened search (COBOL's x^c search): the program stops
/// as soon as a dual point certifies that its maximum is at most the level (the candidate cannot
/// win), returning that bound with `lower` = −∞ and no feasible point ([`Dual::stopped`]).
/// `None` when no certificate within `tolerance` is found (the caller falls back).
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve(
    data: &ConicData,
    dirs: &Directions,
    objective: Objective<'_>,
    threshold: Option<f64>,
    candidate: Option<DVector<f64>>,
    centre: &DVector<f64>,
    tolerance: f64,
    warm: Option<(f64, f64)>,
    stop_at: Option<f64>,
    mle_start: Option<&MleWarmStart>,
) -> Option<DenseSolution> {
    let n = data.l.nrows();
    let (g, lambda_free) = match objective {
        Objective::Linear(g) => (g.clone(), true),
        Objective::Likelihood => (DVector::zeros(n), false),
    };
    if centre.len() != n || g.len() < n || lambda_free != threshold.is_some() {
        return None;
    }
    let bound = data.latent_box.unwrap_or(f64::INFINITY);
    let program = Program {
        data,
        dirs,
        objective,
        kappa: threshold.map(|t| data.constant - t),
        candidate: if data.latent_box.is_some() && lambda_free { candidate } else { None },
        n,
        dim: g.len(),
        total: data.total_weight(),
    };
    let (anchor, _) = program.interior_start(centre)?;
    let clip = program.candidate.as_ref().and_then(|c| {
        if c == &g {
            Some(true)
        } else if c == &(-&g) {
            Some(false)
        } else {
            None
        }
    });
    let candidate_on_support = program
        .candidate
        .as_ref()
        .is_some_and(|c| (program.dim == n || c[n] == 0.0) && (0..n).any(|i| (0..n).all(|k| c[k] == data.l[(i, k)])));
    let budget = std::cell::Cell::new(MAX_EVALUATIONS);
    let spare = std::cell::RefCell::new(None);
    let warm = warm.filter(|&(l, m)| lambda_free && l.is_finite() && l > 0.0 && m.is_finite() && m > 0.0);
    let stop_at = stop_at.filter(|l| lambda_free && !l.is_nan());
    let dual = Dual { program, g, lambda_free, bound, tolerance, clip, candidate_on_support, stop_at, budget, spare };
    let program = &dual.program;
    let b = data.norm_bound;
    let gnorm = dual.g.norm();
    if lambda_free && gnorm == 0.0 {
        return None;
    }
    // λ* = 0 when the maximiser over the ball alone, p = B g/‖g‖, satisfies every other row
    // strictly: then the maximum is B‖g‖ (Cauchy–Schwarz), attained there.
    if lambda_free {
        let p = &dual.g * (b / gnorm);
        let e = program.eval(&p);
        if e.f.iter().zip(&e.f_err).skip(1).all(|(f, err)| f + err < 0.0) {
            let (q, eq) = program.pull_inside(&anchor, &p)?;
            let (value, err) = dual.objective(&q, &eq);
            let lower = value - err;
            let upper = b * gnorm * (1.0 + (program.dim + 4) as f64 * U);
            if upper - lower <= tolerance * dual.scale(upper) {
                return Some(solution(q, lower, upper, &[], &[], 0));
            }
        }
    }
    // Start: the norm's price at the ball-only optimum's scale, and a likelihood price of the
    // same scale (the MLE: λ = 1 and μ of the order of the likelihood's gradient over B).
    let m = if let Some((lambda, mu)) = warm {
        Multipliers { lambda: lambda * gnorm, mu: mu * gnorm }
    } else if lambda_free {
        curvature_start(&dual, centre, gnorm)
            .unwrap_or(Multipliers { lambda: gnorm * b / program.total.max(1.0), mu: gnorm / b })
    } else {
        let e = program.eval(&anchor);
        Multipliers { lambda: 1.0, mu: (e.grad_phi.norm() / b).max(1e-3) }
    };
    if data.latent_box.is_some() {
        // A boxed MLE from an earlier MLE whose support is a prefix of this one's: its ŵ extended
        // to the new points (the same latent values at the earlier points when the Gram's leading
        // block and its factor are the same), its norm price and its active box rows. A new
        // point's w_i is 0 unless its latent value z_i = L_iw would leave the box: then z_i is
        // put just inside it (L is lower triangular, so z_i depends on w_1..w_i only).
        let restart = mle_start.filter(|s| !lambda_free && s.applies_to(n)).map(|s| {
            let mut p = DVector::zeros(n);
            p.rows_mut(0, s.w.len()).copy_from_slice(&s.w);
            let inside = bound * (1.0 - 1e-9);
            for i in s.w.len()..n {
                let z = data.l.row(i).columns(0, i).dot(&p.rows(0, i).transpose());
                let pivot = data.l[(i, i)];
                if z.abs() > inside && pivot > 0.0 {
                    p[i] = (z.clamp(-inside, inside) - z) / pivot;
                }
            }
            let rows: Vec<usize> = s.rows.iter().map(|&(i, plus)| 2 * i + usize::from(!plus)).collect();
            (Multipliers { lambda: 1.0, mu: s.mu }, p, rows)
        });
        return boxed::solve(&dual, &anchor, m, gnorm, restart);
    }
    let rows: Vec<BoxRow> = Vec::new();
    let mut point = dual.point(m, &rows, &[], &anchor)?;
    let mut stall = Stall::default();
    for iteration in 1..=MAX_OUTER {
        if let Some(stopped) = dual.stopped(&point, &rows, iteration) {
            return Some(stopped);
        }
        let (progress, scale) = match dual.certify(&anchor, &point, &rows, iteration, gnorm)? {
            Ok(sol) => return Some(sol),
            Err(gap) => gap,
        };
        if stall.gave_up(progress, iteration) {
            return None;
        }
        point = dual.newton_step(&point, &rows, scale)?;
    }
    None
}

/// When the outer Newton method gives up (the caller falls back): the certificate's gap has
/// stopped shrinking, five steps without halving it, or is still above 1e-3 after 15 steps.
/// (Progress is measured on the unclipped gap: D must come down to the box first.) Shared by the
/// unboxed and the boxed outer loops.
#[derive(Default)]
struct Stall {
    best_gap: Option<f64>,
    stalled: u32,
}

impl Stall {
    /// Records the gap of outer step `iteration` (1-based); true when it is time to give up.
    fn gave_up(&mut self, progress: f64, iteration: u32) -> bool {
        if progress < self.best_gap.unwrap_or(f64::INFINITY) * 0.5 {
            self.best_gap = Some(progress);
            self.stalled = 0;
            return false;
        }
        self.stalled += 1;
        self.stalled >= 5 || (iteration >= 15 && progress > 1e-3)
    }
}

/// A cold start for a confidence-set program from the likelihood's curvature at the MLE ŵ
/// (`centre`): with φ ≈ φ(ŵ) + ½dᵀH₀d, H₀ = ∇²φ(ŵ) + μ̂I and μ̂ = max(0, −ŵᵀ∇φ(ŵ))/‖ŵ‖² the MLE's
/// norm price (its optimality ∇φ + μ̂ŵ = 0), the program max gᵀd subject to ½dᵀH₀d ≤ κ − φ(ŵ) = β′
/// has the multiplier λ₀ = √(gᵀH₀⁻¹g / 2β′), and the norm's price follows the likelihood's,
/// μ₀ = λ₀μ̂ (floored at a thousandth of the ball-only price ‖g‖/B). One factorisation. Measured
/// on the bench instances (2026-11-29): within about 2× of the final multipliers where the
/// ball-only start (λ = ‖g‖B/W, μ = ‖g‖/B) was 10–30× off; outer steps of a cold program at 500
/// duels 11 → 8–9, at 500 labels 8–9 → 4–7. `None` where the model is degenerate (β′ ≤ 0, a
/// non-finite value, no factorisation): the caller then starts from the ball-only scale.
fn curvature_start(dual: &Dual<'_>, mle: &DVector<f64>, gnorm: f64) -> Option<Multipliers> {
    let program = &dual.program;
    let n = program.n;
    let b = program.data.norm_bound;
    let mut p = DVector::zeros(program.dim);
    p.rows_mut(0, n).copy_from(&mle.rows(0, n));
    let e = program.eval(&p);
    let slack = program.kappa? - e.phi;
    let w = p.rows(0, n);
    let wn2 = w.norm_squared();
    let mu_hat = if wn2 > 0.0 { (-w.dot(&e.grad_phi) / wn2).max(0.0) } else { 0.0 };
    let floor = 1e-3 * gnorm / b;
    let factor = InnerFactor::new(program, &e, 1.0, mu_hat.max(floor), &dual.spare)?;
    let gw = dual.g.rows(0, n).clone_owned();
    let hg = factor.solve(&gw)?;
    factor.recycle(&dual.spare);
    let mut s = gw.dot(&hg);
    if program.dim > n {
        s += dual.g[n] * dual.g[n] / mu_hat.max(floor);
    }
    let lambda = (s / (2.0 * slack)).sqrt();
    let mu = (lambda * mu_hat).max(floor);
    (slack > 0.0 && lambda.is_finite() && lambda > 0.0 && mu.is_finite()).then_some(Multipliers { lambda, mu })
}

/// The free variables of a dual point as one vector [λ (confidence sets), μ, ν…].
fn variables(dual: &Dual<'_>, point: &DualPoint) -> DVector<f64> {
    let off = dual.offset();
    let mut x = DVector::zeros(off + 1 + point.nu.len());
    if dual.lambda_free {
        x[0] = point.m.lambda;
    }
    x[off] = point.m.mu;
    for (j, v) in point.nu.iter().enumerate() {
        x[off + 1 + j] = *v;
    }
    x
}

/// The inverse of [`variables`].
fn split(dual: &Dual<'_>, x: &DVector<f64>) -> (Multipliers, Vec<f64>) {
    let off = dual.offset();
    let lambda = if dual.lambda_free { x[0] } else { 1.0 };
    (Multipliers { lambda, mu: x[off] }, x.iter().skip(off + 1).copied().collect())
}

/// The gradient with the components that push a variable at its bound further out set to zero.
fn projected_gradient(grad: &DVector<f64>, x: &DVector<f64>, lower: &[f64]) -> DVector<f64> {
    DVector::from_fn(grad.len(), |j, _| if x[j] <= lower[j] && grad[j] > 0.0 { 0.0 } else { grad[j] })
}

/// Newton's direction on the free variables (zero on the others); the diagonally scaled gradient
/// where the reduced Hessian is not positive definite or the Newton step is no descent.
fn newton_direction(grad: &DVector<f64>, hess: &DMatrix<f64>, free: &[usize], ridge: f64) -> DVector<f64> {
    let nv = grad.len();
    let k = free.len();
    let mut d = DVector::zeros(nv);
    let diagonal = |d: &mut DVector<f64>| {
        for &j in free {
            d[j] = -grad[j] / hess[(j, j)].max(1e-300);
        }
    };
    // In the diagonal scaling of the Hessian, with a ridge: duplicate rows (a candidate on the
    // support, say) make it singular, and the multipliers of the duplicates are then not unique.
    let scale: Vec<f64> = free.iter().map(|&j| hess[(j, j)].max(1e-300).sqrt().recip()).collect();
    let h = DMatrix::from_fn(k, k, |a, b| {
        hess[(free[a], free[b])] * scale[a] * scale[b] + if a == b { ridge } else { 0.0 }
    });
    let gr = DVector::from_fn(k, |a, _| grad[free[a]] * scale[a]);
    match nalgebra::Cholesky::new(h) {
        Some(c) => {
            let step = -c.solve(&gr);
            for (a, &j) in free.iter().enumerate() {
                d[j] = step[a] * scale[a];
            }
            let slope = grad.dot(&d);
            if slope.is_nan() || slope >= 0.0 || !d.iter().all(|v| v.is_finite()) {
                d.fill(0.0);
                diagonal(&mut d);
            }
        }
        None => diagonal(&mut d),
    }
    d
}

/// The certified solution in the caller's form: the candidate's box multipliers from ν.
fn solution(p: DVector<f64>, lower: f64, upper: f64, rows: &[BoxRow], nu: &[f64], iterations: u32) -> DenseSolution {
    let mut box_duals = (0.0, 0.0);
    for (row, v) in rows.iter().zip(nu) {
        match row {
            BoxRow::Candidate(true) => box_duals.0 = *v,
            BoxRow::Candidate(false) => box_duals.1 = *v,
            BoxRow::Support(..) => {}
        }
    }
    DenseSolution {
        p,
        lower,
        upper,
        box_duals,
        iterations,
        dual_residual: 0.0,
        scaled_multipliers: None,
        mle_restart: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConfidenceConfig, ConfidenceProblem, ConfidenceSet, Observation};
    use bohf_core::Duel;
    use bohf_core::rand::RngExt;

    /// A small problem: 12 points on [0, 1], SE kernel ℓ = 0.3, 25 duels or labels from a smooth
    /// utility, latent box 1.5 or none.
    fn problem(seed: u64, duels: bool, latent_box: Option<f64>) -> (DMatrix<f64>, ConfidenceProblem) {
        let mut r = bohf_core::rng::seeded(seed);
        let n = 12;
        let x: Vec<f64> = (0..n).map(|i| i as f64 / (n - 1) as f64).collect();
        let gram = DMatrix::from_fn(n, n, |i, j| (-(x[i] - x[j]).powi(2) / (2.0 * 0.09)).exp());
        let f = |i: usize| 2.0 * (4.0 * x[i]).sin();
        let obs: Vec<Observation> = (0..25)
            .map(|_| {
                let i = r.random_range(0..n);
                if duels {
                    let j = r.random_range(0..n);
                    let p = 1.0 / (1.0 + (f(j) - f(i)).exp());
                    Observation::Duel(Duel::new(i, j, r.random::<f64>() < p))
                } else {
                    Observation::Label { point: i, positive: r.random::<f64>() < 1.0 / (1.0 + (-f(i)).exp()) }
                }
            })
            .collect();
        let config = ConfidenceConfig { latent_box, nugget: 1e-8, ..ConfidenceConfig::with_norm_bound(5.0) };
        let support: Vec<usize> = (0..n).collect();
        (gram.clone(), ConfidenceProblem::on_candidates(&gram, &support, &obs, &config).unwrap())
    }

    /// The dual of max gᵀp over the confidence set of `threshold`, with the candidate's box row
    /// `candidate` and box `bound` (infinite: none), as [`solve`] builds it.
    fn linear_dual<'a>(
        data: &'a ConicData,
        dirs: &'a Directions,
        g: &'a DVector<f64>,
        threshold: f64,
        candidate: Option<DVector<f64>>,
        bound: f64,
    ) -> Dual<'a> {
        let n = data.l.nrows();
        let program = Program {
            data,
            dirs,
            objective: Objective::Linear(g),
            kappa: Some(data.constant - threshold),
            candidate,
            n,
            dim: n + 1,
            total: data.total_weight(),
        };
        Dual {
            program,
            g: g.clone(),
            lambda_free: true,
            bound,
            tolerance: 1e-9,
            clip: None,
            candidate_on_support: false,
            stop_at: None,
            budget: std::cell::Cell::new(u32::MAX),
            spare: std::cell::RefCell::new(None),
        }
    }

    /// D's gradient and Hessian (module docs) against central differences of D and of the
    /// gradient, at multipliers away from the optimum, with two box rows and the candidate's row
    /// in the working set.
    #[test]
    fn dual_gradient_and_hessian_match_finite_differences() {
        for (seed, duels) in [(1u64, true), (2, false)] {
            let (_, prob) = problem(seed, duels, Some(1.5));
            let data = prob.conic_data();
            let dirs = Directions::new(data);
            let n = data.l.nrows();
            let mle = prob.mle().unwrap();
            let kx = DVector::from_fn(n, |i, _| data.l[(3, i)] * 0.5 + data.l[(7, i)] * 0.5);
            let mut c = DVector::zeros(n + 1);
            c.rows_mut(0, n).copy_from(&kx);
            c[n] = 0.3;
            let g = DVector::from_fn(n + 1, |i, _| if i < n { c[i] - data.l[(5, i)] } else { c[i] });
            let dual = linear_dual(data, &dirs, &g, mle.log_likelihood - 1.0, Some(c.clone()), 1.5);
            let rows = [BoxRow::Support(2, true), BoxRow::Support(9, false), BoxRow::Candidate(true)];
            let x0 = DVector::from_vec(vec![0.7, 0.05, 0.2, 0.1, 0.3]);
            let at = |x: &DVector<f64>| {
                let (m, nu) = split(&dual, x);
                dual.point(m, &rows, &nu, &DVector::zeros(n + 1)).unwrap()
            };
            let p0 = at(&x0);
            for j in 0..x0.len() {
                let h = 1e-5 * x0[j];
                let mut xp = x0.clone();
                xp[j] += h;
                let mut xm = x0.clone();
                xm[j] -= h;
                let (dp, dm) = (at(&xp), at(&xm));
                let fd = (dp.value - dm.value) / (2.0 * h);
                assert!(
                    (fd - p0.grad[j]).abs() <= 1e-6 * (1.0 + fd.abs()),
                    "seed {seed}: ∂D/∂x{j} {} vs {fd}",
                    p0.grad[j]
                );
                for i in 0..x0.len() {
                    let fd2 = (dp.grad[i] - dm.grad[i]) / (2.0 * h);
                    let scale = 1.0 + p0.hess[(i, i)].abs().max(p0.hess[(j, j)].abs());
                    assert!(
                        (fd2 - p0.hess[(i, j)]).abs() <= 1e-4 * scale,
                        "seed {seed}: ∂²D/∂x{i}∂x{j} {} vs {fd2}",
                        p0.hess[(i, j)]
                    );
                }
            }
        }
    }

    /// Weak duality, checked against clarabel: D's certified upper bound at arbitrary multipliers
    /// is at least the program's optimum (the optimistic advantage, with and without the box).
    #[test]
    fn dual_bound_is_above_clarabel_optimum() {
        for (seed, duels, latent_box) in [(3u64, true, None), (4, false, Some(1.5)), (5, true, Some(1.0))] {
            let (gram, prob) = problem(seed, duels, latent_box);
            let mle = prob.mle().unwrap();
            let beta = 1.0;
            let cand = prob.candidates_from_gram(&gram, &[4]).unwrap().remove(0);
            let mut set = ConfidenceSet::new(&prob, &mle, beta).unwrap();
            let reference = set.optimistic_advantage(&cand, 8).unwrap().value;
            let data = prob.conic_data();
            let dirs = Directions::new(data);
            let n = data.l.nrows();
            let mut c = DVector::zeros(n + 1);
            c.rows_mut(0, n).copy_from(cand.coordinates());
            c[n] = cand.rho();
            let g = DVector::from_fn(n + 1, |i, _| if i < n { c[i] - data.l[(8, i)] } else { c[i] });
            let bound = latent_box.unwrap_or(f64::INFINITY);
            let dual = linear_dual(data, &dirs, &g, mle.log_likelihood - beta, latent_box.map(|_| c.clone()), bound);
            let mut r = bohf_core::rng::seeded(seed);
            let rows: Vec<BoxRow> =
                if latent_box.is_some() { vec![BoxRow::Support(1, true), BoxRow::Candidate(false)] } else { vec![] };
            for _ in 0..20 {
                let m = Multipliers { lambda: r.random_range(0.0..3.0), mu: r.random_range(1e-3..2.0) };
                let nu: Vec<f64> = rows.iter().map(|_| r.random_range(0.0..1.0)).collect();
                let point = dual.point(m, &rows, &nu, &DVector::zeros(n + 1)).unwrap();
                assert!(
                    point.upper >= reference - 1e-7 * reference.abs().max(1.0),
                    "D = {} < {reference}",
                    point.upper
                );
            }
        }
    }
}
