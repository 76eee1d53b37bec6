//! The parent's inner box problem when every box row is a support point's (a pointwise bound
//! clipped at the box, or a program without the candidate's rows) and the active-set method
//! ([`Dual::box_inner`]) has failed: a projected Newton method in the latent values z = Lw, where
//! the box is a set of bounds |z_i| ≤ b ([`super::Dual::box_solve`]).
//!
//! **Why.** The parent's primal active-set method meets the box's rows a few at a time and drops
//! them again: on COBOL's Experiment B Rosenbrock-3D run at 492 labels (most of them rejects, many
//! support points repeated on the faces and corners of the domain, an SE kernel with one
//! lengthscale of 2.1 working units), the lower bounds at x* and at the centre have 140–240 rows
//! active at the optimum, and their first inner box solve ran out of its 80 steps with |W|
//! oscillating between 67 and 205 (batches of ~60 rows joining, then all of them leaving at once
//! with ν < 0), the reduced gradient's ‖·‖²/2μ still 1–30 against 1e-16 wanted: every such program
//! went to clarabel (0.6–1 s each, and after four of them the set stopped trying the fast path).
//! In z the rows are bounds, and a projected Newton method frees and fixes any number of them in
//! one step: the same programs' inner box solves take 4–60 steps, and all of them certify.
//!
//! **The method** (Bertsekas, "Projected Newton methods for optimization problems with simple
//! constraints", *SIAM J. Control Optim.* 20(2), 1982, 221–246, §2). With w = L⁻¹z (L the support
//! Gram's Cholesky factor, invertible) the inner problem of the parent is
//! max_{|z_i| ≤ b} q(z), q = gᵀp − λφ(w) − (μ/2)‖p‖², with gradient r_z = L⁻ᵀr_w (r_w the
//! parent's [`Dual::inner_gradient`]) and Hessian −P, P = λG + μK⁻¹ ([`latent_hessian`]: LᵀPL is
//! the parent's H); ω does not meet a support row and stays at its maximiser g_ω/μ. At z, with
//! Π the projection onto the box and ε = min(ε₀, ‖z − Π(z + r_z)‖) (Bertsekas' ε_k, ε₀ = 10⁻⁶b),
//! the ε-active set is A = {i : z_i ≥ b − ε, r_z,i > 0} ∪ {i : z_i ≤ −b + ε, r_z,i < 0} and F the
//! others; the direction is Newton's on F and, on A, the way to the bound (a positive diagonal
//! scaling of r_A, which Bertsekas' method allows),
//!
//! ```text
//! d_F = P_FF⁻¹ r_F,   d_i = sign(r_i)·b − z_i (i ∈ A),
//! ```
//!
//! (measured on the run above: ε₀ = b/100 with d_i = r_i/P_ii, Bertsekas' example, left hundreds
//! of variables creeping towards their bound by μ(K⁻¹)_ii-scaled steps, 80 steps without
//! converging; ε₀ = 10⁻⁶b with the way to the bound converged in 4–60 steps on every program)
//! and the step t = 1, ½, ¼, … along the arc z(t) = Π(z + t·d) is the first with
//! q(z(t)) ≥ q(z) + σ(t·r_Fᵀd_F + r_Aᵀ(z_A(t) − z_A)), σ = 10⁻⁴ (Bertsekas' Armijo rule along the
//! projection arc, §2, for a maximisation). The working set is the rows at their bound
//! with r_z pushing out, W = {s_i z_i ≤ b : |z_i| = b, s_i r_z,i > 0}, priced ν_i = s_i r_z,i (the
//! KKT conditions of a bound: r_z = Σ_W ν_i s_i e_i on W); the reduced gradient in w is
//! r_w − C_Wᵀν = Lᵀ(r_z off W) (C_W's rows s_iL_i), and the convergence test is the parent's
//! ([`Dual::box_inner`]): ‖r_w − C_Wᵀν‖²/2μ at most 1e-8 of the tolerance, or 1e5 times that
//! where rounding stops the steps.
//!
//! One step costs the Cholesky factorisation of P_FF (|F|³/3 flops, |F| ≤ n) and two triangular
//! solves with L; K⁻¹ is formed once per set ([`crate::dense::Directions::k_inverse`]).

use super::super::inner::latent_hessian;
use super::{BoxPoint, BoxRow, Dual, MAX_INNER_STEPS, Multipliers, U};
use crate::dense::{Eval, mat_vec};
use bohf_core::linalg::{Cholesky, solve_triangular_in_place};
use nalgebra::{DMatrix, DVector};
use std::cell::Cell;

/// σ of the Armijo rule along the projection arc (module docs).
const SIGMA: f64 = 1e-4;
/// ε₀ of the ε-active set, relative to b (module docs).
const EPSILON: f64 = 1e-6;

impl Dual<'_> {
    /// Whether the program's box rows are the support points' alone, in [`Dual::box_rows`]'s
    /// order (row 2i + 1 − s for s = 1 the + row of point i), and K⁻¹ exists: the programs of
    /// [`Dual::box_inner_latent`].
    pub(super) fn box_is_latent_bounds(&self, all: &[BoxRow]) -> bool {
        let n = self.program.n;
        all.len() == 2 * n
            && all.iter().enumerate().all(|(j, row)| *row == BoxRow::Support(j / 2, j % 2 == 0))
            && self.program.dirs.k_inverse(self.program.data).is_some()
    }

    /// The inner maximiser over the box at `m` by the projected Newton method in z (module docs),
    /// from the box-feasible `start` (clamped into the box in z), for the programs of
    /// [`Dual::box_is_latent_bounds`]. Each factorisation of P_FF counts against
    /// `factorisations`. `None` when it does not converge within the step or factorisation limits.
    // Long: Bertsekas' iteration, whose convergence tests, direction and arc search share the
    // iterate (z, p and its likelihood); the stop test and the direction are helpers below.
    pub(super) fn box_inner_latent(
        &self,
        m: Multipliers,
        start: &DVector<f64>,
        factorisations: &Cell<u32>,
    ) -> Option<BoxPoint> {
        let program = &self.program;
        let (n, dim) = (program.n, program.dim);
        let l = &program.data.l;
        let bx = self.bound;
        let b = program.data.norm_bound;
        let kappa = program.kappa.unwrap_or(0.0);
        let Multipliers { lambda, mu } = m;
        if !(mu > 0.0 && mu.is_finite() && lambda >= 0.0 && lambda.is_finite() && bx.is_finite()) {
            return None;
        }
        let q = |p: &DVector<f64>, e: &Eval| self.g.dot(p) - lambda * e.phi - 0.5 * mu * p.norm_squared();
        // The point for z: w = L⁻¹z, ω = g_ω/μ.
        let at = |z: &DVector<f64>| {
            let mut p = DVector::zeros(dim);
            p.rows_mut(0, n).copy_from(z);
            solve_triangular_in_place(l, &mut p.as_mut_slice()[..n], false);
            if dim > n {
                p[n] = self.g[n] / mu;
            }
            p
        };
        let mut z = mat_vec(l, &start.as_slice()[..n], false).map(|v| v.clamp(-bx, bx));
        let mut p = at(&z);
        let mut e = program.eval_likelihood(&p);
        let scale = 1.0 + lambda * kappa.abs() + mu * b * b;
        for _ in 0..MAX_INNER_STEPS {
            let r = self.inner_gradient(&p, &e, m);
            if !r.iter().all(|v| v.is_finite()) {
                return None;
            }
            let mut rz = r.rows(0, n).clone_owned();
            solve_triangular_in_place(l, rz.as_mut_slice(), true);
            let q0 = q(&p, &e);
            let accuracy = 1e-8 * self.tolerance * (scale + q0.abs());
            // W and ν: the rows at their bound that r_z pushes out.
            let out = |i: usize| (z[i] == bx && rz[i] > 0.0) || (z[i] == -bx && rz[i] < 0.0);
            let w: Vec<usize> = (0..n).filter(|&i| out(i)).collect();
            let mut free_r = rz.clone();
            for &i in &w {
                free_r[i] = 0.0;
            }
            let reduced = mat_vec(l, free_r.as_slice(), true);
            let reduced_gap = reduced.norm_squared() / (2.0 * mu);
            let done = |limit: f64| (reduced_gap <= limit).then(|| bounds_point(m, &p, &z, &rz, &w));
            if let Some(found) = done(accuracy) {
                return Some(found);
            }
            if let Some(stopped) = self.latent_stop(m, (&p, &e), (&z, &rz), &w) {
                return Some(stopped);
            }
            // The ε-active set and the free variables.
            let projected = DVector::from_fn(n, |i, _| z[i] - (z[i] + rz[i]).clamp(-bx, bx));
            let eps = (EPSILON * bx).min(projected.norm());
            let active = |i: usize| (z[i] >= bx - eps && rz[i] > 0.0) || (z[i] <= -bx + eps && rz[i] < 0.0);
            let free: Vec<usize> = (0..n).filter(|&i| !active(i)).collect();
            if factorisations.get() == 0 {
                return None;
            }
            factorisations.set(factorisations.get() - 1);
            let (d, decrement) = self.latent_direction(m, &e, (&z, &rz), &free, &active)?;
            // The predicted increase, with the ε-active variables' (to their bound).
            let predicted = decrement + (0..n).filter(|&i| active(i)).map(|i| rz[i] * d[i]).sum::<f64>();
            if !predicted.is_finite() {
                return None;
            }
            if predicted <= 16.0 * U * (scale + q0.abs()) {
                // At the rounding level of q. The ε-active variables not yet at their bound add
                // little to the prediction (within ε of it) but their r_z to the reduced gradient:
                // they are put on their bound (a change q cannot resolve), and the test redone.
                let off: Vec<usize> = (0..n).filter(|&i| active(i) && z[i].abs() != bx).collect();
                if done(1e5 * accuracy).is_none() && !off.is_empty() {
                    for &i in &off {
                        z[i] = bx.copysign(rz[i]);
                    }
                    p = at(&z);
                    e = program.eval_likelihood(&p);
                    continue;
                }
                return done(1e5 * accuracy);
            }
            let stuck = done(1e5 * accuracy);
            // The arc's line search (module docs).
            let mut t = 1.0f64;
            let mut moved = false;
            while t >= 1e-12 {
                let zt = DVector::from_fn(n, |i, _| (z[i] + t * d[i]).clamp(-bx, bx));
                let bent: f64 = (0..n).filter(|&i| active(i)).map(|i| rz[i] * (zt[i] - z[i])).sum();
                let pt = at(&zt);
                let et = program.eval_likelihood(&pt);
                if q(&pt, &et) >= q0 + SIGMA * (t * decrement + bent) {
                    if zt == z {
                        break;
                    }
                    z = zt;
                    p = pt;
                    e = et;
                    moved = true;
                    break;
                }
                t *= 0.5;
            }
            if !moved {
                return stuck;
            }
        }
        None
    }
}

impl Dual<'_> {
    /// With a level ([`Dual::stop_at`]): the stop certified at the iterate (p, its likelihood `e`),
    /// z with r_z, and the bound rows `w`, if D at (λ, μ, ν) with ν_i = |r_z,i| is already at most
    /// the level (any iterate bounds D there: strong concavity, [`Dual::value_and_upper`]).
    fn latent_stop(
        &self,
        m: Multipliers,
        (p, e): (&DVector<f64>, &Eval),
        (z, rz): (&DVector<f64>, &DVector<f64>),
        w: &[usize],
    ) -> Option<BoxPoint> {
        self.stop_at?;
        let n = self.program.n;
        let mut snu = DVector::zeros(n);
        for &i in w {
            snu[i] = rz[i];
        }
        let mut g = self.g.clone();
        g.rows_mut(0, n).axpy(-1.0, &mat_vec(&self.program.data.l, snu.as_slice(), true), 1.0);
        let nu: Vec<f64> = w.iter().map(|&i| rz[i].abs()).collect();
        let (_, upper) = self.value_and_upper(m, &g, &nu, p, e);
        if !self.reaches_stop(upper) {
            return None;
        }
        let rows = w.iter().map(|&i| 2 * i + usize::from(z[i] < 0.0)).collect();
        Some(BoxPoint { m, p: p.clone(), rows, nu, stop: Some(upper) })
    }

    /// The projected Newton direction at z with gradient r_z (module docs): d_F = P_FF⁻¹r_F on the
    /// `free` variables, the way to the bound on the `active` ones; with the Newton decrement
    /// r_Fᵀd_F. `None` when P_FF cannot be factorised.
    fn latent_direction(
        &self,
        Multipliers { lambda, mu }: Multipliers,
        e: &Eval,
        (z, rz): (&DVector<f64>, &DVector<f64>),
        free: &[usize],
        active: &dyn Fn(usize) -> bool,
    ) -> Option<(DVector<f64>, f64)> {
        let (n, bx) = (self.program.n, self.bound);
        let hz = latent_hessian(&self.program, e, lambda, mu)?;
        let mut d = DVector::from_fn(n, |i, _| if !active(i) { 0.0 } else { bx.copysign(rz[i]) - z[i] });
        let mut decrement = 0.0;
        if !free.is_empty() {
            let pff = DMatrix::from_fn(free.len(), free.len(), |a, c| hz[(free[a], free[c])]);
            let rf = DVector::from_iterator(free.len(), free.iter().map(|&i| rz[i]));
            let df = Cholesky::blocked_in_place(pff).ok()?.solve_vec(&rf).ok()?;
            decrement = rf.dot(&df);
            for (k, &i) in free.iter().enumerate() {
                d[i] = df[k];
            }
        }
        Some((d, decrement))
    }
}

/// The inner box solve's result at the point (`p`, z) with the bound rows `w` of r_z = `rz`:
/// the rows' indices in [`Dual::box_rows`] and their prices ν_i = |r_z,i| (module docs).
fn bounds_point(m: Multipliers, p: &DVector<f64>, z: &DVector<f64>, rz: &DVector<f64>, w: &[usize]) -> BoxPoint {
    BoxPoint {
        m,
        p: p.clone(),
        rows: w.iter().map(|&i| 2 * i + usize::from(z[i] < 0.0)).collect(),
        nu: w.iter().map(|&i| rz[i].abs()).collect(),
        stop: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::linear_dual;
    use super::*;
    use crate::dense::Directions;
    use crate::{ConfidenceConfig, ConfidenceProblem, Observation};

    /// The projected Newton method on tiny programs (n = 2–4 support points, labels, a latent box
    /// that binds): the point it returns is in the box and satisfies the KKT conditions of the box
    /// in z (r_z,i ≈ 0 off the bounds, r_z,i pushing outward at them, the returned W and ν exactly
    /// those rows), and its q is not below that of an independent projected gradient ascent in z
    /// (20,000 backtracked steps) by more than 1e-10 relative (q is strongly concave in z: its
    /// KKT point is its maximiser).
    #[test]
    fn the_projected_newton_method_finds_the_kkt_point_of_the_box() {
        let mut checked_bound = 0;
        for (n, seed) in [(2usize, 1u64), (3, 2), (4, 3), (4, 4)] {
            let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.7 / n as f64).collect();
            let gram = DMatrix::from_fn(n, n, |i, j| (-(x[i] - x[j]).powi(2) / (2.0 * 0.25)).exp());
            let obs: Vec<Observation> = (0..3 * n)
                .map(|k| Observation::Label { point: k % n, positive: (k * 7 + seed as usize).is_multiple_of(3) })
                .collect();
            let bx = 0.4;
            let config =
                ConfidenceConfig { latent_box: Some(bx), nugget: 1e-4, ..ConfidenceConfig::with_norm_bound(5.0) };
            let support: Vec<usize> = (0..n).collect();
            let prob = ConfidenceProblem::on_candidates(&gram, &support, &obs, &config).unwrap();
            let data = prob.conic_data();
            let dirs = Directions::new(data);
            // An objective that pushes the first half of the points up and the rest down, hard.
            let g = DVector::from_fn(n + 1, |i, _| if i < n { if i < n / 2 + 1 { 3.0 } else { -2.0 } } else { 0.5 });
            let dual = linear_dual(data, &dirs, &g, 0.0, None, bx);
            let l = &data.l;
            for (lambda, mu) in [(1.0, 0.5), (0.2, 2.0), (3.0, 0.05)] {
                let m = Multipliers { lambda, mu };
                let found = dual.box_inner_latent(m, &DVector::zeros(n + 1), &Cell::new(200)).expect("converges");
                let p = &found.p;
                let z = mat_vec(l, &p.as_slice()[..n], false);
                let e = dual.program.eval_likelihood(p);
                let r = dual.inner_gradient(p, &e, m);
                let mut rz = r.rows(0, n).clone_owned();
                solve_triangular_in_place(l, rz.as_mut_slice(), true);
                let tol = 1e-6 * (1.0 + rz.amax());
                // ω at its maximiser.
                assert!((p[n] - g[n] / mu).abs() <= 1e-12, "n = {n}: ω");
                for i in 0..n {
                    // (z recomputed from p = L⁻¹z: to rounding.)
                    assert!(z[i].abs() <= bx * (1.0 + 1e-12), "n = {n}: z_{i} = {} outside the box", z[i]);
                    let at_bound = z[i].abs() >= bx * (1.0 - 1e-12);
                    if at_bound && rz[i] * z[i] > 0.0 {
                        // Bound, gradient pushing outward: in W, priced |r_z,i|.
                        checked_bound += 1;
                        let k = found.rows.iter().position(|&j| j / 2 == i).expect("in W");
                        assert_eq!(found.rows[k], 2 * i + usize::from(z[i] < 0.0));
                        assert!((found.nu[k] - rz[i].abs()).abs() <= 1e-12 * (1.0 + rz[i].abs()));
                    } else {
                        // Free (or at the bound with the gradient pointing inward, to tolerance).
                        assert!(
                            rz[i].abs() <= tol,
                            "n = {n}, (λ, μ) = {:?}: r_z,{i} = {} at z = {}",
                            (lambda, mu),
                            rz[i],
                            z[i]
                        );
                        assert!(!found.rows.iter().any(|&j| j / 2 == i));
                    }
                }
                // The projected gradient vanishes.
                let projected = DVector::from_fn(n, |i, _| z[i].clamp(-bx, bx) - (z[i] + rz[i]).clamp(-bx, bx));
                assert!(projected.amax() <= tol, "n = {n}: projected gradient {projected}");
                // An independent maximisation: projected gradient ascent in z with backtracking.
                let q = |z: &DVector<f64>| {
                    let mut p = DVector::zeros(n + 1);
                    p.rows_mut(0, n).copy_from(z);
                    solve_triangular_in_place(l, &mut p.as_mut_slice()[..n], false);
                    p[n] = g[n] / mu;
                    let e = dual.program.eval_likelihood(&p);
                    (g.dot(&p) - lambda * e.phi - 0.5 * mu * p.norm_squared(), p, e)
                };
                let mut zg = DVector::<f64>::zeros(n);
                let mut step = 1.0;
                for _ in 0..20_000 {
                    let (q0, p0, e0) = q(&zg);
                    let mut rg = dual.inner_gradient(&p0, &e0, m).rows(0, n).clone_owned();
                    solve_triangular_in_place(l, rg.as_mut_slice(), true);
                    step *= 2.0;
                    loop {
                        let zt = (&zg + &rg * step).map(|v| v.clamp(-bx, bx));
                        if q(&zt).0 >= q0 || step < 1e-14 {
                            zg = zt;
                            break;
                        }
                        step *= 0.5;
                    }
                }
                let (qg, qn) = (q(&zg).0, q(&z).0);
                assert!(
                    qn >= qg - 1e-10 * (1.0 + qg.abs()),
                    "n = {n}: q {qn} (projected Newton) < {qg} (gradient ascent)"
                );
                assert!((&z - &zg).amax() <= 1e-5, "n = {n}: z {z} vs {zg} (gradient ascent)");
            }
        }
        // Both kinds of variables were met.
        assert!(checked_bound > 0);
    }
}
