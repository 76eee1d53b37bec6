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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conic::ConicData;
    use crate::dense::{Directions, Objective};
    use nalgebra::DMatrix;

    /// ln(1 + eˣ), written out (|x| ≤ 4 here), independent of the crate's `softplus`.
    fn softplus(x: f64) -> f64 {
        x.exp().ln_1p()
    }

    /// The case the move along c_w is for (module docs): the centre ŵ on the norm bound
    /// (‖ŵ‖ = B = 4), two positive labels (L = I, so z = w and φ(w) = Σ softplus(−w_i)), the
    /// threshold β = 0.005 above φ(ŵ), the box 3 and a candidate with c_wᵀŵ = 3.13 and ρ = 0.017.
    /// Every plain halving fails, checked by the anchor search and again by an independent
    /// evaluation (θ ≥ 1/16: the likelihood row, φ((1 − θ)ŵ) − φ(ŵ) ≥ 0.02 > β; θ ≤ 1/32: the
    /// candidate's value (1 − θ)·3.13 − ρ·room ≥ 3); the anchor found is strictly feasible by a
    /// direct evaluation of every row with room to spare (≥ 10⁻⁴ of its bound) and has the
    /// candidate's value (1 − 10⁻³)·3, where the move along c_w puts it.
    #[test]
    fn anchor_moves_along_the_candidate_where_scaling_the_centre_fails() {
        let (norm_bound, bx, beta, rho): (f64, f64, f64, f64) = (4.0, 3.0, 0.005, 0.017);
        let u = DVector::from_vec(vec![2.8, 2.857]);
        let centre: DVector<f64> = &u * (norm_bound / u.norm());
        let orth = DVector::from_vec(vec![centre[1], -centre[0]]) / norm_bound;
        let cw = &centre * (3.13 / (norm_bound * norm_bound)) + &orth * 3.0;
        let c = DVector::from_vec(vec![cw[0], cw[1], rho]);
        let data = ConicData {
            l: DMatrix::identity(2, 2),
            rows: DMatrix::identity(2, 2),
            terms: vec![(1.0, 0, None), (1.0, 1, None)],
            weights: vec![1.0, 1.0],
            abs_weighted: DVector::from_vec(vec![1.0, 1.0]),
            constant: 0.0,
            norm_bound,
            latent_box: Some(bx),
        };
        let dirs = Directions::new(&data);
        let phi = |w: &[f64]| w.iter().map(|&x| softplus(-x)).sum::<f64>();
        let kappa = phi(centre.as_slice()) + beta;
        let program = Program {
            data: &data,
            dirs: &dirs,
            objective: Objective::Linear(&c),
            kappa: Some(kappa),
            candidate: Some(c.clone()),
            n: 2,
            dim: 3,
            total: 2.0,
        };
        for k in 1..=40 {
            let theta = 0.5f64.powi(k);
            assert!(program.scaled_start(&centre, theta, false).is_none(), "θ = 2^-{k} found");
            let w = &centre * (1.0 - theta);
            let room = 0.5 * (norm_bound * norm_bound - w.norm_squared()).max(0.0).sqrt();
            let value = cw.dot(&w) - rho * room;
            assert!(phi(w.as_slice()) - kappa >= 0.01 || value >= bx + 0.01, "θ = 2^-{k}: {value}");
        }
        let (p, _) = program.interior_start(&centre).expect("the move along c_w finds an anchor");
        let w = [p[0], p[1]];
        let spare = 1e-4;
        assert!(p.norm_squared() < norm_bound * norm_bound * (1.0 - spare), "‖p‖² = {}", p.norm_squared());
        assert!(phi(&w) < kappa - spare, "φ = {} against κ = {kappa}", phi(&w));
        assert!(w.iter().all(|z| z.abs() < bx * (1.0 - spare)), "z = {w:?}");
        let value = c[0] * p[0] + c[1] * p[1] + c[2] * p[2];
        assert!((value - (1.0 - 1e-3) * bx).abs() <= 1e-12, "candidate's value {value}");
    }
}
