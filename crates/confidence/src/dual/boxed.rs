//! The latent box: its working set found by the box's own inner problem, its prices by the outer
//! Newton method of the parent module.
//!
//! **Why not the parent's active set.** The parent's dual D(λ, μ, ν) prices a working set J of
//! box rows; found from the rows the unconstrained inner maximiser violates, J churned (rows of
//! close support points are nearly collinear, each change of J cost dual evaluations) and most
//! boxed programs fell back to clarabel after an attempt that cost as much as clarabel's solve.
//!
//! **The inner box problem.** For fixed (λ, μ) the partial dual
//!
//! ```text
//! D̄(λ, μ) = max_{p ∈ box} gᵀp − λ(φ(w) − κ) − (μ/2)(‖p‖² − B²),     box = {s_jc_jᵀp ≤ b for all j}
//! ```
//!
//! is min_{ν ≥ 0} D(λ, μ, ν), and its maximiser's active rows are the working set that prices the
//! box. It is a strongly concave maximisation over a polyhedron, solved by a primal active-set
//! Newton method: from a box-feasible start, each step solves the Newton system with the working
//! set W of rows moved to (and then held at) their bound,
//!
//! ```text
//! d = H̃⁻¹(r − C_Wᵀν),   (C_W H̃⁻¹ C_Wᵀ) ν = C_W H̃⁻¹ r − (b − C_W p),
//! ```
//!
//! (r the gradient, H̃ = diag(λ∇²φ + μI, μ) through the parent's [`InnerFactor`]: one
//! factorisation, then the half solves of W's rows for C_W H̃⁻¹ C_Wᵀ
//! ([`InnerFactor::half_rows`]: one forward substitution with |W| columns, no H̃⁻¹c_j), a
//! |W|×|W| Cholesky with two steps of iterative refinement, and one solve for d),
//! takes the longest step along d that keeps every row ≤ b (a ratio test over all 2n (+2) rows:
//! one product with L), backtracks by Armijo, and adds the rows that block; the first time at a
//! point, every row the full step would cross within 1.5 times the first block's step length
//! joins W at once (rows of close support points are otherwise met one short step at a time;
//! [`BATCH_WINDOW`]). Rows whose multiplier ν_j is negative leave W, the most
//! negative first, or all at once when more than four are (a row dropped and run into at once by the next step stays until the point
//! moves, so W cannot cycle in place). A step whose factorisation is only a few steps old
//! reuses it: after blocked steps (the point moved less than a Newton step), and after full steps
//! while each cuts the Newton decrement fourfold (a stale Hessian still gives an ascent direction,
//! and near the maximiser it barely changes; a step that does not is redone with a fresh one).
//!
//! **The outer problem.** With W and ν from the inner solve, Newton's method runs on the full dual
//! over (λ, μ, ν_W) as in the parent (smooth for a fixed W; its ν are exact where the inner solve's
//! are limited by the conditioning of C_W H̃⁻¹ C_Wᵀ, and its inner maximiser is solved without the
//! box to the parent's accuracy). W is refreshed from the inner box solve at the current (λ, μ)
//! whenever the full dual's maximiser leaves the box outside W or a row of W is priced 0.
//!
//! **The certificate** is the parent's: D(λ, μ, ν) at ν ≥ 0 bounds the program from above
//! whatever W is, with its margins ([`Dual::point`]), and a strictly feasible point pulled inside
//! from an anchor bounds it from below.
//!
//! The face steps' linear algebra (the rows met, the working set's system and its factor kept
//! across steps) is in [`face`]. Where the active-set method fails and every box row is a support
//! point's (a pointwise bound clipped at the box), the inner box problem is a set of bounds on the
//! latent values z = Lw, solved by a projected Newton method in z ([`latent`]).

pub(super) mod face;
mod latent;

use super::{BoxRow, Dual, InnerFactor, MAX_OUTER, Multipliers, U};
use crate::dense::{DenseSolution, Eval, Program};
use face::{FaceFactor, Solved, face_step};
use nalgebra::DVector;
use std::cell::Cell;

/// Newton steps of one inner solve.
const MAX_INNER_STEPS: u32 = 80;
/// Factorisations of the inner Hessian over all inner solves of one program: more and the program
/// goes to the fallback.
const MAX_FACTORISATIONS: u32 = 120;
/// Steps that may reuse one factorisation: after the step was cut short by a blocking row (the
/// point moved less than a Newton step: a stale Hessian still gives an ascent direction), or after
/// a full step that cut the Newton decrement fourfold (measured: 8 instead of 4 made the cold MLE
/// at 670 labels slower).
const MAX_REUSE: u32 = 4;
/// The rows a blocked step batches into W: those the full step would cross before
/// `BATCH_WINDOW`·t_max (t_max the first block's step length). Rows of close support points,
/// nearly collinear, are crossed at nearly the same t and join together; rows crossed much later
/// lie ahead of a face the step has not reached. Measured on the bench's 500-duel boxed bound
/// (2026-11-30): a cold start's first inner box solve batched all 361 rows (every crossed row,
/// the rule before) and dropped all but one again, 14 ms of a 53 ms bound; within 1.5·t_max at
/// most 28 rows, 4 ms, the same steps and result; 1.2, 1.5 and 2 certified 2,551, 2,551 and
/// 2,542 programs of the agreement test (2,547 with every crossed row). That window alone made
/// COBOL's step 437 (a = 2, 240 labels, 50–140 of 240 rows active) 2.8× slower (4.39 s of CPU
/// against 1.58 s): there nearly every crossed row is active, and W grew a few rows per point. So
/// the window of an inner solve starts here and widens eightfold after each batch whose rows all
/// stayed in W at the next face solve (step 437: 1.41 s; the cold 500-duel bound unchanged).
const BATCH_WINDOW: f64 = 1.5;

/// The inner maximiser over the box at (λ, μ), with its working set and multipliers.
struct BoxPoint {
    m: Multipliers,
    p: DVector<f64>,
    /// The working set, as indices into [`Dual::box_rows`].
    rows: Vec<usize>,
    /// The rows' multipliers ν ≥ 0, in the order of `rows`.
    nu: Vec<f64>,
    /// `Some(upper)` when the inner solve stopped early: `upper` is a certified bound on D at
    /// (λ, μ, ν) that reaches the early stop's level ([`Dual::stopped`]).
    stop: Option<f64>,
}

impl Dual<'_> {
    /// Every latent-box row of the program: the support points' (±) and, unless it is the
    /// objective itself (a clipped pointwise bound) or duplicates a support point's, the candidate's.
    fn box_rows(&self) -> Vec<BoxRow> {
        let mut rows: Vec<BoxRow> =
            (0..self.program.n).flat_map(|i| [BoxRow::Support(i, true), BoxRow::Support(i, false)]).collect();
        if self.program.candidate.is_some() && self.clip.is_none() && !self.candidate_on_support {
            rows.extend([BoxRow::Candidate(true), BoxRow::Candidate(false)]);
        }
        rows
    }

    /// s_jc_jᵀx for every row of `all` ([`Dual::box_rows`]'s order): one product with L.
    fn row_values(&self, all: &[BoxRow], x: &DVector<f64>) -> DVector<f64> {
        let program = &self.program;
        let z = crate::dense::mat_vec(&program.data.l, &x.as_slice()[..program.n], false);
        let cx = program.candidate.as_ref().map_or(0.0, |c| c.dot(x));
        DVector::from_iterator(
            all.len(),
            all.iter().map(|row| match *row {
                BoxRow::Support(i, plus) => sign(plus) * z[i],
                BoxRow::Candidate(plus) => sign(plus) * cx,
            }),
        )
    }

    /// The inner objective's gradient r = g − λ∇φ̃(w) − μp.
    fn inner_gradient(&self, p: &DVector<f64>, e: &Eval, m: Multipliers) -> DVector<f64> {
        let mut r = &self.g - p * m.mu;
        r.rows_mut(0, self.program.n).axpy(-m.lambda, &e.grad_phi, 1.0);
        r
    }

    /// The inner maximiser over the box at `m` (module docs), from the box-feasible `start` and the
    /// working set `working` (rows of a previous solve: those still at their bound are kept).
    /// `None` when it does not converge within the step or factorisation limits.
    // Long: one active-set Newton loop (Newton system, ratio test, leaving rows) sharing the products H̃⁻¹c_j of its factorisation.
    fn box_inner(
        &self,
        m: Multipliers,
        all: &[BoxRow],
        working: &[usize],
        start: &DVector<f64>,
        factorisations: &Cell<u32>,
    ) -> Option<BoxPoint> {
        let program = &self.program;
        let bx = self.bound;
        let b = program.data.norm_bound;
        let kappa = program.kappa.unwrap_or(0.0);
        let Multipliers { lambda, mu } = m;
        if !(mu > 0.0 && mu.is_finite() && lambda >= 0.0 && lambda.is_finite()) {
            return None;
        }
        let q = |p: &DVector<f64>, e: &Eval| self.g.dot(p) - lambda * e.phi - 0.5 * mu * p.norm_squared();
        let mut p = start.clone();
        let mut e = program.eval_likelihood(&p);
        let mut values = self.row_values(all, &p);
        let mut w: Vec<usize> = working.iter().copied().filter(|&j| values[j] >= bx * (1.0 - 1e-9)).collect();
        let scale = 1.0 + lambda * kappa.abs() + mu * b * b;
        let mut factor: Option<InnerFactor> = None;
        let mut reused = 0u32;
        let mut result = None;
        // Rows put back after a drop that the step at once ran into: kept until the point moves.
        let mut pinned: Vec<usize> = Vec::new();
        // (c_j, H̃⁻¹c_j) of the rows met with the current factorisation.
        let mut solved = Solved::default();
        // The factor of W's system, kept while W changes by a few rows.
        let mut face: Option<FaceFactor> = None;
        // The decrement before the last full Newton step, and whether its factorisation was fresh.
        let mut last_full: Option<(f64, bool)> = None;
        // Whether the rows crossed by the full step were added at this point (below).
        let mut batched = false;
        // The window of the next batch, and the rows the last batch added (checked at the next
        // face solve: a batch whose rows all stay widens the window eightfold).
        let mut window = BATCH_WINDOW;
        let mut last_batch: Vec<usize> = Vec::new();
        // Full steps taken below q's rounding level, judged by the reduced gradient (below).
        let mut blind = 0u32;
        #[cfg(test)]
        let mut steps = 0u32;
        for _ in 0..MAX_INNER_STEPS {
            #[cfg(test)]
            {
                steps += 1;
            }
            let r = self.inner_gradient(&p, &e, m);
            let q0 = q(&p, &e);
            // The certificate re-solves from here without the box ([`Dual::point`]): the inner
            // maximiser is needed to well below the tolerance, not to the last digit.
            // As the parent's inner solves (the outer gradient, ‖p‖² and φ, comes from p); where
            // rounding stops the steps, 1e5 times this (as there).
            let accuracy = 1e-8 * self.tolerance * (scale + q0.abs());
            if !r.iter().all(|v| v.is_finite()) {
                break;
            }
            let fresh = factor.is_none() || reused >= MAX_REUSE;
            if fresh {
                if factorisations.get() == 0 {
                    break;
                }
                factorisations.set(factorisations.get() - 1);
                if let Some(old) = factor.take() {
                    old.recycle(&self.spare);
                }
                factor = InnerFactor::new(program, &e, lambda, mu, &self.spare);
                solved.clear();
                face = None;
                reused = 0;
            }
            let Some(f) = factor.as_ref() else { break };
            let Some(h) = solve_tilde(f, program, mu, &r) else { break };
            // The face's Newton step; rows of negative multiplier leave W, the most negative first.
            let mut step = None;
            for _ in 0..=all.len() {
                let resid = DVector::from_iterator(w.len(), w.iter().map(|&j| bx - values[j]));
                if solved.ensure(f, program, mu, all, &w).is_none() {
                    break;
                }
                let Some((nu, reduced)) = face_step(&solved, &mut face, &w, &resid, &r, &h) else { break };
                let negative: Vec<usize> = (0..w.len()).filter(|&k| nu[k] < 0.0 && !pinned.contains(&w[k])).collect();
                if negative.is_empty() {
                    // d = H̃⁻¹(r − C_Wᵀν) ([`face_step`]).
                    let Some(d) = solve_tilde(f, program, mu, &reduced) else { break };
                    step = Some((d, nu, reduced));
                    break;
                }
                if negative.len() > 4 {
                    // Many at once (a working set from a distant point): all leave.
                    let mut k = 0;
                    w.retain(|_| {
                        k += 1;
                        !negative.contains(&(k - 1))
                    });
                } else {
                    let worst = negative.into_iter().min_by(|&a, &b| nu[a].total_cmp(&nu[b]));
                    w.remove(worst.unwrap_or(0));
                }
            }
            let Some((d, nu, reduced)) = step else { break };
            if !last_batch.is_empty() {
                if last_batch.iter().all(|j| w.contains(j)) {
                    window *= 8.0;
                }
                last_batch.clear();
            }
            if self.stop_at.is_some() && nu.iter().all(|&v| v >= 0.0) {
                // Any iterate bounds D at (λ, μ, ν) (strong concavity, [`Dual::value_and_upper`]):
                // the program may stop before the inner solve converges.
                let mut g = self.g.clone();
                for (&j, v) in w.iter().zip(&nu) {
                    g.axpy(-v, &solved.c(solved.slot[&j]), 1.0);
                }
                let mut pw = p.clone();
                if program.dim > program.n {
                    pw[program.n] = g[program.n] / mu;
                }
                let (_, upper) = self.value_and_upper(m, &g, &nu, &pw, &e);
                if self.reaches_stop(upper) {
                    if let Some(old) = factor.take() {
                        old.recycle(&self.spare);
                    }
                    return Some(BoxPoint { m, p: pw, rows: w, nu, stop: Some(upper) });
                }
            }
            let decrement = d.dot(&reduced);
            // The rows of W priced ≥ 0 and at their bound (a full step puts them there) to within
            // a hundredth of the tolerance in D (ν_j(b − c_jᵀp) is D's term for row j).
            let off_face: f64 = w.iter().zip(&nu).map(|(&j, v)| v.abs() * (bx - values[j]).abs()).sum();
            // (Loosely: the outer Newton method then prices W's rows exactly.)
            let multipliers_ok = nu.iter().all(|&v| v >= 0.0) && off_face <= 1e-6 * (scale + q0.abs());
            let slope = r.dot(&d);
            let reduced_gap = reduced.norm_squared() / (2.0 * mu);
            if multipliers_ok && reduced_gap <= accuracy {
                result = Some(nu);
                break;
            }
            if !fresh && last_full.is_some_and(|(last, _)| decrement > 0.25 * last) {
                // A factorisation reused after a full step that did not cut the decrement
                // fourfold: factorise afresh at this point (this face step is discarded).
                reused = MAX_REUSE;
                continue;
            }
            // A full step that did not halve the decrement: the face's rounding floor (both
            // steps with a factorisation of their own point).
            let floor = fresh && last_full.is_some_and(|(last, was_fresh)| was_fresh && decrement > 0.5 * last);
            if !slope.is_finite() || slope <= 16.0 * U * (scale + q0.abs()) || floor {
                // The Newton decrement is at the rounding level of q: as far as f64 goes.
                if multipliers_ok && reduced_gap <= 1e5 * accuracy {
                    result = Some(nu);
                    break;
                }
                // q no longer tells a step's progress but the reduced gradient still can: a start
                // next to the maximiser reaches this level on a reused factorisation with the
                // gradient short of the test (the boxed MLE's warm start, 1e-12 against 1e-13).
                // Up to two full steps that stay in the box, each judged by the next gap.
                let inside =
                    self.row_values(all, &d).iter().enumerate().all(|(j, &dv)| w.contains(&j) || values[j] + dv <= bx);
                if slope.is_finite() && multipliers_ok && blind < 2 && inside {
                    blind += 1;
                    p += &d;
                    e = program.eval_likelihood(&p);
                    values = self.row_values(all, &p);
                    last_full = None;
                    reused = MAX_REUSE;
                    continue;
                }
                break;
            }
            // The ratio test: the longest step along d that keeps the rows outside W within b.
            let dv = self.row_values(all, &d);
            let ratios: Vec<f64> =
                (0..all.len())
                    .map(|j| {
                        if dv[j] > 0.0 && !w.contains(&j) { ((bx - values[j]) / dv[j]).max(0.0) } else { f64::INFINITY }
                    })
                    .collect();
            let t_max = ratios.iter().copied().fold(1.0f64, f64::min);
            if t_max < 1.0 && !batched {
                // Every row the full step would cross within [`BATCH_WINDOW`] times the first
                // block joins W at once (rows of close support points are otherwise met one short
                // step at a time); those the face step then pushes away from their bound (ν < 0)
                // leave again. Once per point.
                last_batch = (0..all.len())
                    .filter(|&j| ratios[j] < 1.0 && ratios[j] <= window * t_max && !w.contains(&j))
                    .collect();
                w.extend(&last_batch);
                batched = true;
                continue;
            }
            let mut t = t_max;
            let mut moved = t_max == 0.0;
            while !moved && t > 0.0 {
                let pp = &p + &d * t;
                let ee = program.eval_likelihood(&pp);
                if q(&pp, &ee) >= q0 + 0.25 * t * slope {
                    p = pp;
                    e = ee;
                    moved = true;
                } else if t < 1e-12 * t_max {
                    break;
                } else {
                    t *= 0.5;
                }
            }
            if !moved {
                // As far as f64 goes on this face: accept if the reduced gradient is nearly there.
                if multipliers_ok && reduced_gap <= 1e5 * accuracy {
                    result = Some(nu);
                }
                break;
            }
            last_full = (t == 1.0).then_some((decrement, fresh));
            if t == t_max && t_max < 1.0 {
                // Blocked: the rows that stopped the step join W; the factorisation is reused. A
                // row dropped above and run into at once stays until the point moves.
                let blocking: Vec<usize> = (0..all.len()).filter(|&j| ratios[j] <= t_max * (1.0 + 1e-9)).collect();
                if t_max == 0.0 {
                    pinned.extend(&blocking);
                } else {
                    pinned.clear();
                }
                w.extend(blocking);
                reused += 1;
            } else {
                // A full step: the factorisation is reused while each such step cuts the Newton
                // decrement fourfold (checked at the next step, above).
                pinned.clear();
                reused = if t == 1.0 { reused + 1 } else { MAX_REUSE };
            }
            if t > 0.0 {
                values = self.row_values(all, &p);
                batched = false;
            }
        }
        if let Some(old) = factor.take() {
            old.recycle(&self.spare);
        }
        #[cfg(test)]
        if result.is_none() && steps == MAX_INNER_STEPS {
            super::testing::count(|c| c.step_limit += 1);
        }
        let nu = result?;
        Some(BoxPoint { m, p, rows: w, nu, stop: None })
    }
}

impl Dual<'_> {
    /// The inner box solve: by the active-set method ([`Dual::box_inner`]) and, once that has
    /// failed in this program (`latent` then set) and the box rows are the support points' alone,
    /// by the projected Newton method in the latent values ([`latent`]). The active-set method
    /// stays first where it converges (it reuses its factorisations across steps, and it is
    /// measured on the bench's programs); the projected Newton method converges where it churns.
    fn box_solve(
        &self,
        m: Multipliers,
        all: &[BoxRow],
        working: &[usize],
        start: &DVector<f64>,
        factorisations: &Cell<u32>,
        latent: &Cell<bool>,
    ) -> Option<BoxPoint> {
        if !latent.get() {
            if let Some(found) = self.box_inner(m, all, working, start, factorisations) {
                return Some(found);
            }
            if !self.box_is_latent_bounds(all) {
                return None;
            }
            latent.set(true);
            #[cfg(test)]
            super::testing::count(|c| c.switches += 1);
        }
        let found = self.box_inner_latent(m, start, factorisations);
        #[cfg(test)]
        super::testing::count(|c| {
            c.solves += 1;
            c.converged += usize::from(found.is_some());
        });
        found
    }
}

fn sign(plus: bool) -> f64 {
    if plus { 1.0 } else { -1.0 }
}

/// H̃⁻¹r for H̃ = diag(λ∇²φ + μI, μ) (the ω component, when the program has one, is r_ω/μ).
fn solve_tilde(f: &InnerFactor<'_>, program: &Program<'_>, mu: f64, r: &DVector<f64>) -> Option<DVector<f64>> {
    let n = program.n;
    let mut out = DVector::zeros(r.len());
    out.rows_mut(0, n).copy_from(&f.solve(&r.rows(0, n).clone_owned())?);
    for i in n..r.len() {
        out[i] = r[i] / mu;
    }
    Some(out)
}

/// Solves one boxed program of the family (module docs), from the multipliers `m` (a warm or
/// curvature start, as the parent's [`super::solve`]): the working set W and its ν from the inner
/// box solve, then Newton's method on the full dual over (λ, μ, ν_W) (smooth for a fixed W, and
/// its ν exact where the inner solve's are limited by nearly collinear rows), W refreshed from the
/// box's own maximiser whenever the full dual's maximiser leaves the box or a row's price hits 0.
///
/// `restart` (an MLE only): multipliers, a start and a working set from an earlier MLE
/// ([`crate::MleWarmStart`]), used in place of (`m`, `anchor`, no rows) when the start lies in the
/// box; the first inner solve then begins next to its maximiser. The certificate is unchanged (its
/// strictly feasible point still comes from `anchor`), so only the path to it differs.
pub(super) fn solve(
    dual: &Dual<'_>,
    anchor: &DVector<f64>,
    m: Multipliers,
    gnorm: f64,
    restart: Option<(Multipliers, DVector<f64>, Vec<usize>)>,
) -> Option<DenseSolution> {
    let all = dual.box_rows();
    let budget = Cell::new(MAX_FACTORISATIONS);
    // Whether the active-set inner box solve has failed in this program ([`Dual::box_solve`]).
    let latent = Cell::new(false);
    #[cfg(test)]
    if dual.box_is_latent_bounds(&all) {
        // Tests force the latent method ([`super::testing`]).
        let forced = super::testing::forced();
        latent.set(forced);
        super::testing::count(|c| {
            c.programs += 1;
            c.forced += usize::from(forced);
        });
    }
    let bx = dual.bound;
    let in_box = |p: &DVector<f64>| dual.row_values(&all, p).iter().all(|&v| v <= bx);
    let restart = restart
        .filter(|(r, p, rows)| r.mu > 0.0 && r.mu.is_finite() && rows.iter().all(|&j| j < all.len()) && in_box(p));
    let warm = restart.and_then(|(rm, p, rows)| dual.box_solve(rm, &all, &rows, &p, &budget, &latent));
    let mut bp = match warm {
        Some(bp) => bp,
        None => dual.box_solve(m, &all, &[], anchor, &budget, &latent)?,
    };
    let mut rows: Vec<BoxRow> = bp.rows.iter().map(|&j| all[j]).collect();
    if let Some(upper) = bp.stop {
        return dual.stop(&rows, &bp.nu, &bp.p, upper, 0);
    }
    let mut point = dual.point(bp.m, &rows, &bp.nu, &bp.p)?;
    let mut stall = super::Stall::default();
    for iteration in 1..=MAX_OUTER {
        if let Some(stopped) = dual.stopped(&point, &rows, iteration) {
            return Some(stopped);
        }
        let cert = dual.certify(anchor, &point, &rows, iteration, gnorm)?;
        let (progress, scale) = match cert {
            Ok(sol) => return Some(sol),
            Err(gap) => gap,
        };
        if stall.gave_up(progress, iteration) {
            return None;
        }
        // The parent's projected Newton step, over (λ, μ, ν_W).
        let next = dual.newton_step(&point, &rows, scale)?;
        std::mem::replace(&mut point, next).recycle(&dual.spare);
        if let Some(stopped) = dual.stopped(&point, &rows, iteration) {
            return Some(stopped);
        }
        // Refresh W when the full dual's maximiser leaves the box outside W or a row's price is 0.
        let values = dual.row_values(&all, &point.p);
        let leaves = (0..all.len()).any(|j| values[j] > bx * (1.0 + 1e-9) && !bp.rows.contains(&j));
        if leaves || point.nu.contains(&0.0) {
            if let Some(nb) = dual.box_solve(point.m, &all, &bp.rows, &bp.p, &budget, &latent) {
                if let Some(upper) = nb.stop {
                    let rows: Vec<BoxRow> = nb.rows.iter().map(|&j| all[j]).collect();
                    return dual.stop(&rows, &nb.nu, &nb.p, upper, iteration);
                }
                let same = nb.rows.len() == bp.rows.len() && nb.rows.iter().all(|j| bp.rows.contains(j));
                if !same {
                    rows = nb.rows.iter().map(|&j| all[j]).collect();
                    let np = dual.point(nb.m, &rows, &nb.nu, &nb.p)?;
                    std::mem::replace(&mut point, np).recycle(&dual.spare);
                }
                bp = nb;
            } else if budget.get() == 0 {
                return None;
            }
        }
    }
    None
}
