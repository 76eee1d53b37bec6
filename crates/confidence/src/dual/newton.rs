//! The parent's outer iteration on the multipliers: the cold start from the likelihood's
//! curvature at the MLE, and the projected Newton step on D with its line search.

use super::{BoxRow, Dual, DualPoint, InnerFactor, Multipliers};
use nalgebra::{DMatrix, DVector};

impl<'a> Dual<'a> {
    /// One projected Newton step on D over the free variables [λ, μ, ν…] of `point` (module
    /// docs), the working set `rows` fixed; `scale` is the certificate's ([`Dual::certify`]).
    /// `None` when no step of any ridge passes the line search.
    pub(super) fn newton_step(&self, point: &DualPoint<'_>, rows: &[BoxRow], scale: f64) -> Option<DualPoint<'a>> {
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
        // The trials evaluated (a trial's point is a function of its variables alone: the inner
        // start is the prediction from `point`): the step floor clamps several t, and several
        // ridges, to one trial, which is then not evaluated again.
        let mut tried: Vec<DVector<f64>> = Vec::new();
        // A trial passes only with D at most this (the larger of the two acceptance levels
        // below): [`Dual::point_below`] gives up on the others early. Not in a screened search,
        // whose trials also pass by reaching its level.
        let reject_above = self.stop_at.is_none().then(|| point.value + 1e-12 * (1.0 + point.value.abs()));
        'ridge: for ridge in [1e-10, 1e-6, 1e-3, 1e-1] {
            let d = newton_direction(&point.grad, &point.hess, &free, ridge);
            let mut t = 1.0f64;
            for _ in 0..12 {
                let xt = DVector::from_fn(x.len(), |j, _| (x[j] + t * d[j]).max(step_floor[j]));
                if tried.contains(&xt) {
                    t *= 0.5;
                    continue;
                }
                tried.push(xt.clone());
                let delta = &xt - &x;
                let (mt, nut) = split(self, &xt);
                let start = point.predict(&delta);
                if let Some(np) = self.point_below(mt, rows, &nut, &start, reject_above) {
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
                    np.recycle(&self.spare);
                }
                t *= 0.5;
            }
        }
        next
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
pub(super) fn curvature_start(dual: &Dual<'_>, mle: &DVector<f64>, gnorm: f64) -> Option<Multipliers> {
    let program = &dual.program;
    let n = program.n;
    let b = program.data.norm_bound;
    let mut p = DVector::zeros(program.dim);
    p.rows_mut(0, n).copy_from(&mle.rows(0, n));
    let e = program.eval_likelihood(&p);
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
fn variables(dual: &Dual<'_>, point: &DualPoint<'_>) -> DVector<f64> {
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
pub(super) fn split(dual: &Dual<'_>, x: &DVector<f64>) -> (Multipliers, Vec<f64>) {
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
