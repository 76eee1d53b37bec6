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
//! AAᵀ formed once per set (k distinct observation directions), or, in the latent values z = Lw,
//! n³/3 with K⁻¹ formed once per set and the duels' weighted graph Laplacian added in O(k).
//!
//! **The certificate.** The upper end is D at the final multipliers plus ‖∇_w q‖²/(2μ) (the inner
//! problem is μ-strongly concave, so this bounds the inner maximum from the computed p) and the
//! rounding of every term. The lower end is the objective at a strictly feasible point: the inner
//! maximiser pulled towards a strictly feasible anchor (near the MLE) until every constraint holds
//! with its rounding error as a margin, less the rounding of its evaluation. A result is returned
//! only when the two ends are within the tolerance; otherwise `None`, and the caller tries the
//! interior-point method and then clarabel.
//!
//! **The code.** This file holds the dual's types, its certificate and [`solve`], the outer loop
//! without the box; [`point`] evaluates the dual at one point (the inner Newton solve, D's value,
//! bound, gradient and Hessian); [`newton`] takes the outer projected Newton steps (and the cold
//! start); [`inner`] factorises the inner Hessian; [`boxed`] runs the latent box's programs;
//! [`pull`] and [`accurate`] find the certificate's strictly feasible point.

use crate::MleWarmStart;
use crate::dense::{DenseSolution, Eval, Objective, Program, ProgramSpec, U};
use nalgebra::{DMatrix, DVector};

mod accurate;
mod boxed;
mod inner;
mod newton;
mod point;
mod pull;
#[cfg(test)]
mod tests;

/// Test-only hooks of the latent box's inner solve ([`boxed`]): tests force the projected Newton
/// method in the latent values for every program whose box rows are the support points' alone
/// (instead of only after the active-set method failed), and read what the inner solves did. Per
/// thread: each test runs on its own thread, and a program is solved on the thread that asks.
#[cfg(test)]
pub(crate) mod testing {
    use std::cell::Cell;

    /// What the latent box's inner solves did on this thread since the last [`reset`].
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub(crate) struct LatentCounts {
        /// Boxed programs whose box rows are the support points' alone (the latent method applies).
        pub programs: usize,
        /// Of those, programs that used the latent method because it was forced ([`force_latent`]).
        pub forced: usize,
        /// Switches to the latent method after the active-set method failed (the unforced path).
        pub switches: usize,
        /// Latent inner solves run, and those that converged (or stopped early).
        pub solves: usize,
        pub converged: usize,
        /// Active-set inner box solves that failed in their last allowed step (MAX_INNER_STEPS).
        pub step_limit: usize,
    }

    thread_local! {
        static FORCE: Cell<bool> = const { Cell::new(false) };
        static COUNTS: Cell<LatentCounts> = const {
            Cell::new(LatentCounts { programs: 0, forced: 0, switches: 0, solves: 0, converged: 0, step_limit: 0 })
        };
    }

    /// Forces (or stops forcing) the latent method on this thread.
    pub(crate) fn force_latent(on: bool) {
        FORCE.with(|f| f.set(on));
    }

    pub(crate) fn forced() -> bool {
        FORCE.with(Cell::get)
    }

    /// The counts since the last reset, and resets them.
    pub(crate) fn take() -> LatentCounts {
        COUNTS.with(|c| c.replace(LatentCounts::default()))
    }

    pub(crate) fn peek() -> LatentCounts {
        COUNTS.with(Cell::get)
    }

    pub(crate) fn count(f: impl FnOnce(&mut LatentCounts)) {
        COUNTS.with(|c| {
            let mut v = c.get();
            f(&mut v);
            c.set(v);
        });
    }
}

use inner::InnerFactor;
use newton::curvature_start;
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
                let l = program.dirs.l_row(program.data, i);
                out.fill(0.0);
                for (o, v) in out.iter_mut().zip(l) {
                    *o = sign(plus) * v;
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
struct DualPoint<'d> {
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
    /// F = [∇φ̃ (λ free), p, s_jc_j] and the factorisation of H̃'s top block that D's Hessian
    /// came from (`None` at an early stop): the first-order change of p is −H̃⁻¹F·Δ.
    sensitivity: Option<(DMatrix<f64>, InnerFactor<'d>)>,
}

impl DualPoint<'_> {
    /// Gives the factorisation's storage back for the next ([`InnerFactor::recycle`]): a point
    /// replaced or rejected by the line search would otherwise take an n×n buffer with it, and
    /// the next factorisation fault in fresh pages.
    fn recycle(self, spare: &std::cell::RefCell<Option<DMatrix<f64>>>) {
        if let Some((_, factor)) = self.sensitivity {
            factor.recycle(spare);
        }
    }

    /// The inner maximiser predicted to first order after the change `delta` of the variables:
    /// p − H̃⁻¹(FΔ), one solve (H̃⁻¹F itself is not formed: its n × (|W| + 2) solves were a
    /// fifth of a boxed program's time at 670 labels). p itself without the factorisation.
    fn predict(&self, delta: &DVector<f64>) -> DVector<f64> {
        let Some((f, factor)) = &self.sensitivity else { return self.p.clone() };
        let fd = f * delta;
        let n = factor.dim();
        let mu = self.m.mu;
        let Some(top) = factor.solve(&fd.rows(0, n).clone_owned()) else { return self.p.clone() };
        let mut out = self.p.clone();
        out.rows_mut(0, n).axpy(-1.0, &top, 1.0);
        for i in n..out.len() {
            out[i] -= fd[i] / mu;
        }
        out
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
        point: &DualPoint<'_>,
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
    fn stopped(&self, point: &DualPoint<'_>, rows: &[BoxRow], iteration: u32) -> Option<DenseSolution> {
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
}

/// Where [`solve`] starts, and when it may stop early (all `None`: a cold start, solved to the end).
#[derive(Default)]
pub(crate) struct DualStart<'a> {
    /// The [`DenseSolution::scaled_multipliers`] of a previous program of the same set: the
    /// start (λ, μ) = ‖g‖·warm (D is positively homogeneous in (g, λ, μ, ν), so a program whose
    /// direction is a multiple of the previous one starts at its optimum; successive candidates'
    /// multipliers differ by a factor of about 2 where a cold start was 10–30 times off).
    pub(crate) warm: Option<(f64, f64)>,
    /// A level for a screened search (COBOL's x^c search): the program stops as soon as a dual
    /// point certifies that its maximum is at most the level (the candidate cannot win),
    /// returning that bound with `lower` = −∞ and no feasible point ([`Dual::stopped`]).
    pub(crate) stop_at: Option<f64>,
    /// A boxed MLE's start from an earlier MLE ([`MleWarmStart`], COBOL's next iteration).
    pub(crate) mle_start: Option<&'a MleWarmStart>,
}

/// Solves one program of the family by Newton's method on its dual (module docs): the MLE
/// (`Objective::Likelihood`, no threshold) or max gᵀp over the confidence set of `threshold`,
/// with the latent box and the candidate's box row when the data has a latent box; the
/// strictly feasible anchor is found near `spec.centre`. How it starts, in [`DualStart`].
/// `None` when no certificate within the tolerance is found (the caller falls back).
// Long: the outer projected Newton loop, its stopping rules and its certificate share the iterate.
pub(crate) fn solve(spec: ProgramSpec<'_>, start: DualStart<'_>) -> Option<DenseSolution> {
    let ProgramSpec { data, dirs, objective, threshold, candidate, centre, tolerance } = spec;
    let DualStart { warm, stop_at, mle_start } = start;
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
        let next = dual.newton_step(&point, &rows, scale)?;
        std::mem::replace(&mut point, next).recycle(&dual.spare);
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
