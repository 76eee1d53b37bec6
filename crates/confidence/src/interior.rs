//! A strictly feasible start for the fast path ([`crate::dense`], [`crate::dual`]): the anchor
//! every certificate's primal point is pulled towards.

use crate::dense::{Eval, Program, strictly_feasible};
use nalgebra::DVector;

impl Program<'_> {
    /// A strictly feasible point near `centre` (a feasible w, e.g. the MLE): (1 − θ)·centre for the
    /// largest θ ∈ {1/2, 1/4, …, 2⁻⁴⁰} that is strictly feasible, with ω chosen to put the
    /// candidate's value inside its box rows. Where none is (measured: COBOL, a = 2, 670 labels: an
    /// MLE at the norm bound, ‖ŵ‖ = B, so ω has no room, extrapolating to 3.13 at a candidate
    /// with ρ = 0.017 against the box 3; shrinking w enough to fix the candidate's row breaks the
    /// likelihood's), the same points with w moved along the candidate's own coefficients c_w until
    /// its value is just inside the box: w − s·c_w with s = (cᵀp − t)/‖c_w‖², t the value clamped
    /// to ±(1 − 10⁻³)b. `None` if no such point is found (e.g. β = 0: no interior).
    pub(crate) fn interior_start(&self, centre: &DVector<f64>) -> Option<(DVector<f64>, Eval)> {
        let halvings = (1..=40).map(|k| 0.5f64.powi(k));
        let shift = self.candidate.is_some() && self.data.latent_box.is_some();
        halvings.clone().find_map(|theta| self.scaled_start(centre, theta, false)).or_else(|| {
            if shift { halvings.into_iter().find_map(|theta| self.scaled_start(centre, theta, true)) } else { None }
        })
    }

    /// (1 − θ)·centre with ω set as [`Program::interior_start`] says, and (`shift`) moved along c_w
    /// to put the candidate's value inside the box; `Some` when strictly feasible.
    fn scaled_start(&self, centre: &DVector<f64>, theta: f64, shift: bool) -> Option<(DVector<f64>, Eval)> {
        let n = self.n;
        let b = self.data.norm_bound;
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
        if let (true, Some(c), Some(bx)) = (shift, &self.candidate, self.data.latent_box) {
            let cw = c.rows(0, n);
            let cp = c.dot(&p);
            let inside = (1.0 - 1e-3) * bx;
            let target = cp.clamp(-inside, inside);
            let cw2 = cw.norm_squared();
            if cp != target && cw2 > 0.0 {
                p.rows_mut(0, n).axpy(-(cp - target) / cw2, &cw, 1.0);
            }
        }
        let e = self.eval(&p);
        strictly_feasible(&e).then_some((p, e))
    }
}
