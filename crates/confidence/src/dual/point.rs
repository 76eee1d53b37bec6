//! The dual at one point (λ, μ, ν) of the parent's outer method: the inner maximiser by damped
//! Newton steps, and D's value, certified upper bound, gradient and Hessian (module docs of the
//! parent).

use super::boxed::face::row_dot;
use super::{BoxRow, Dual, DualPoint, InnerFactor, MAX_INNER, Multipliers, U};
use crate::dense::Eval;
use bohf_core::linalg::tr_mul_blocked;
use nalgebra::{DMatrix, DVector};

impl<'a> Dual<'a> {
    /// D's inner value at any inner point p (no margins) and a certified upper bound on D(m, ν),
    /// where g = g₀ − Σ_j ν_j s_jc_j and p's ω is g_ω/μ: the inner problem is μ-strongly concave, so
    /// its maximum is at most q(p) + ‖∇q(p)‖²/(2μ) (module docs), plus the rounding of every term.
    pub(super) fn value_and_upper(
        &self,
        m: Multipliers,
        g: &DVector<f64>,
        nu: &[f64],
        p: &DVector<f64>,
        e: &Eval,
    ) -> (f64, f64) {
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

    /// Evaluates the dual at (m, ν) for the working set `rows`, from the inner start `start`.
    pub(super) fn point(
        &self,
        m: Multipliers,
        rows: &[BoxRow],
        nu: &[f64],
        start: &DVector<f64>,
    ) -> Option<DualPoint<'a>> {
        self.point_below(m, rows, nu, start, None)
    }

    /// [`Dual::point`] for a line-search trial ([`Dual::newton_step`]) that passes only if D's
    /// value at the end is at most `reject_above`: `None` as soon as an inner iterate's value is
    /// above it by more than its rounding. D(m, ν) is the inner maximum, so it is at least the
    /// inner objective at any iterate, and the damped Newton steps (Armijo on q) only raise the
    /// value the trial is judged on: the trial would fail whatever the rest of the solve gives
    /// (a far trial is rejected at its start, before any factorisation).
    // Long: the inner damped Newton solve and the dual's value, gradient and Hessian share its last factorisation.
    pub(super) fn point_below(
        &self,
        m: Multipliers,
        rows: &[BoxRow],
        nu: &[f64],
        start: &DVector<f64>,
        reject_above: Option<f64>,
    ) -> Option<DualPoint<'a>> {
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
        let mut e = program.eval_likelihood(&p);
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
            if let Some(level) = reject_above {
                // D's value at this iterate, less a generous bound on its rounding.
                let value = q0 + lambda * kappa + 0.5 * mu * b * b + box_sum;
                if value - 64.0 * U * (scale + q0.abs()) > level {
                    return None;
                }
            }
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
                let ee = program.eval_likelihood(&pp);
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
            let hess = DMatrix::zeros(0, 0);
            return Some(DualPoint { m, nu: nu.to_vec(), p, value, upper, grad, hess, sensitivity: None });
        }
        // D's Hessian at the final p: FᵀH̃⁻¹F for F = [∇φ̃ (λ free), p, s_jc_j], from the half
        // solves of F's columns ([`InnerFactor::half_rows`]: a box row's needs no product with A).
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
        let kinds: Vec<Option<BoxRow>> = (0..nv).map(|j| (j > off).then(|| rows[j - off - 1])).collect();
        let v = factor.half_rows(program, &kinds, &f.rows(0, n).clone_owned())?;
        let vv = tr_mul_blocked(&v, &v);
        let hess = match factor.woodbury_mu() {
            Some(m) => {
                // FᵀF with the box rows' pairs read off AAᵀ ([`row_dot`]).
                let aat = program.dirs.gram.get()?;
                let ff = DMatrix::from_fn(nv, nv, |a, b| {
                    let (ca, cb) = (f.column(a), f.column(b));
                    match (kinds[a], kinds[b]) {
                        (Some(ra), Some(rb)) => row_dot(program, aat, (ra, ca.as_slice()), (rb, cb.as_slice())),
                        _ => ca.dot(&cb),
                    }
                });
                (ff - vv) / m
            }
            None => {
                let omega = f.rows(n, program.dim - n).clone_owned();
                vv + tr_mul_blocked(&omega, &omega) / mu
            }
        };
        let hess = (&hess + hess.transpose()) * 0.5;
        Some(DualPoint { m, nu: nu.to_vec(), p, value, upper, grad, hess, sensitivity: Some((f, factor)) })
    }
}
