//! Assembly of the conic programs (POP-BO notes §3.4, COBOL notes §2.4) and the checked clarabel solve.
//!
//! Clarabel solves `min ½xᵀPx + qᵀx  s.t.  Ax + s = b, s ∈ K`. The exponential cone is
//! `K_exp = cl{(s₁, s₂, s₃): s₂ > 0, s₂·e^{s₁/s₂} ≤ s₃}` and the second-order cone is
//! `{(t, v): ‖v‖₂ ≤ t}` with `t` first.
//!
//! Variables, in this order: `w ∈ ℝⁿ` (whitened latent values, Z = Lw), optionally `ω ∈ ℝ` (the
//! whitened coordinate of a candidate x outside the span of the data representers), and for each of
//! the m distinct observation terms `u_τ, a_τ, b_τ`. Observation τ contributes −softplus(−r_τᵀw) to
//! the log-likelihood, r_τ = s_τ Lᵀc_τ (c_τ = e_i − e_j for a duel, e_i for a label, s_τ = ±1).
//! Observations with the same r_τ (a duel asked again with the same outcome; (x′, x) lost is (x, x′)
//! won) are one term with multiplicity c_τ, and duels of a point with itself (r = 0, the constant
//! −log 2) leave the program: ℓ(w) = −Σ_τ c_τ softplus(−r_τᵀw) + ℓ₀. This is the same program, with
//! as many cones as distinct duels instead of one per duel: on a finite domain POP-BO repeats duels
//! (x′_t = x_{t−1} ends in self-duels at the optimum), and the repeated identical cones made clarabel
//! stall (`InsufficientProgress`) after a few hundred steps. The epigraph `u_τ ≥ softplus(−r_τᵀw)` is
//! `e^{−u_τ} + e^{−r_τᵀw − u_τ} ≤ 1`, i.e.
//!
//! ```text
//! (−u_τ, 1, a_τ) ∈ K_exp,   (−r_τᵀw − u_τ, 1, b_τ) ∈ K_exp,   a_τ + b_τ ≤ 1.
//! ```
//!
//! The likelihood row is divided by W = Σ_τ c_τ (a mean, of order 1, instead of a sum). A solve that
//! runs into numerical trouble is retried once with shorter interior-point steps
//! ([`SolverOptions::cautious`], `max_step_fraction` 0.9 instead of 0.99); [`SolveInfo::retried`]
//! records it. Measured on the PF-TS Ackley panel: one POP-BO MLE (239 duels, 38 terms) stalled with
//! `InsufficientProgress` at a 12 % gap after 23 iterations; the cautious solve reached `Solved` in 33.
//!
//! Rows, in this order: the SOC `(B, w[, ω])`; the 2m exponential cones (3 rows each); the
//! nonnegative rows `1 − a_τ − b_τ ≥ 0`, then (confidence sets only) the likelihood row
//! `β − ℓ* + ℓ₀ − Σ_τ c_τ u_τ ≥ 0`, then the optional latent box `box ∓ (Lw)_i ≥ 0` and, with ω,
//! `box ∓ z ≥ 0` for the candidate value z = l_xᵀw + ρ_x ω.
//!
//! **Lifted layout (with the latent box).** The box rows ±(Lw)_i and the observation rows r_τᵀw
//! are rows of the dense factor L; with 2n + m such rows the interior-point KKT factorisation fills
//! a dense block over them. With a latent box the latent values z = Lw are therefore variables of
//! their own, after the `u, a, b` ([`Layout::z`]), tied to w by n equality rows `z − Lw = 0`
//! (a zero cone, after the nonnegative rows): the box rows become `box ∓ z_i ≥ 0` and the
//! observation rows `s_τ(z_i − z_j)`, so only the equality rows carry L. The same program (the
//! optimal values agree to the solver tolerance); on COBOL's bench state (100 labels, B = 16,
//! |z| ≤ 3) one iteration's CPU time went from 88 ms to 39 ms, most of it the MLE.

use bohf_core::link::softplus;
use bohf_core::{Error, Result, SolverStatus as Failure};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
    SupportedConeT::{ExponentialConeT, NonnegativeConeT, SecondOrderConeT, ZeroConeT},
};
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// What one clarabel solve reported: its status and the figures that show how it went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveInfo {
    /// The solver status: [`SolverStatus::Solved`] (the target tolerance was met), or
    /// [`SolverStatus::AlmostSolved`] when clarabel stalled short of the target but its gap and
    /// residuals meet [`crate::ConfidenceConfig::acceptable_tolerance`].
    pub status: SolverStatus,
    /// Interior-point iterations.
    pub iterations: u32,
    /// Wall time of the solve in seconds, as clarabel measured it.
    pub solve_time: f64,
    /// Primal residual at termination.
    pub primal_residual: f64,
    /// Dual residual at termination.
    pub dual_residual: f64,
    /// Whether this is the result of the cautious retry (`max_step_fraction` 0.9) after the first
    /// solve ran into numerical trouble.
    pub retried: bool,
    /// Absolute duality gap at termination.
    pub gap_abs: f64,
    /// Relative duality gap at termination.
    pub gap_rel: f64,
    /// Which solver produced the result.
    pub method: SolveMethod,
}

/// Which solver produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolveMethod {
    /// The dense interior-point method of [`crate::dense`] with a certificate: a strictly feasible
    /// point and a dual bound whose gap meets the tolerance.
    Dense,
    /// Clarabel, the reference conic solver (also the fallback of the dense path).
    Clarabel,
    /// No solver: the objective is zero, so the value is exactly 0 at every point of the
    /// (nonempty) set and a known feasible point is an optimum (POP-BO's advantage at x′ itself).
    Exact,
}

impl SolveInfo {
    /// The record of a program answered without a solver ([`SolveMethod::Exact`]).
    pub(crate) fn exact(seconds: f64) -> Self {
        SolveInfo {
            status: SolverStatus::Solved,
            iterations: 0,
            solve_time: seconds,
            primal_residual: 0.0,
            dual_residual: 0.0,
            retried: false,
            gap_abs: 0.0,
            gap_rel: 0.0,
            method: SolveMethod::Exact,
        }
    }

    /// The record of a certified dense solve taking `seconds`.
    pub(crate) fn dense(sol: &crate::dense::DenseSolution, seconds: f64) -> Self {
        let gap = sol.upper - sol.lower;
        SolveInfo {
            status: SolverStatus::Solved,
            iterations: sol.iterations,
            solve_time: seconds,
            primal_residual: 0.0,
            dual_residual: sol.dual_residual,
            retried: false,
            gap_abs: gap,
            gap_rel: gap / sol.upper.abs().max(sol.lower.abs()).max(1.0),
            method: SolveMethod::Dense,
        }
    }
}

/// Solver settings derived from [`crate::ConfidenceConfig`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct SolverOptions {
    pub tolerance: f64,
    pub max_iterations: u32,
    pub acceptable_tolerance: f64,
    /// Shorter interior-point steps (`max_step_fraction` 0.9 instead of clarabel's 0.99): the retry
    /// after numerical trouble ([`retry_worthy`]).
    pub cautious: bool,
}

/// `max_step_fraction` of a cautious solve.
pub(crate) const CAUTIOUS_STEP_FRACTION: f64 = 0.9;

/// Whether a failed solve is numerical trouble that the same program, solved with shorter steps,
/// may get past: clarabel stalled (`InsufficientProgress`, `NumericalError`), or stopped short of
/// the acceptable accuracy (`AlmostSolved`, `MaxIterations`). Infeasibility is not retried.
pub(crate) fn retry_worthy(status: SolverStatus) -> bool {
    matches!(
        status,
        SolverStatus::InsufficientProgress
            | SolverStatus::NumericalError
            | SolverStatus::AlmostSolved
            | SolverStatus::MaxIterations
    )
}

impl SolverOptions {
    pub(crate) fn settings(&self) -> DefaultSettings<f64> {
        DefaultSettings {
            verbose: false,
            max_iter: self.max_iterations,
            tol_gap_abs: self.tolerance,
            tol_gap_rel: self.tolerance,
            tol_feas: self.tolerance,
            tol_ktratio: self.tolerance.min(1e-6),
            // Data updates (the per-candidate objective and box rows) need the problem kept as built.
            presolve_enable: false,
            input_sparse_dropzeros: false,
            max_step_fraction: if self.cautious { CAUTIOUS_STEP_FRACTION } else { 0.99 },
            ..DefaultSettings::default()
        }
    }
}

/// Why a status other than solved happened, in words a researcher can act on.
fn explain(status: SolverStatus) -> &'static str {
    match status {
        SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
            "the constraints are infeasible: no function in the B-ball reaches the log-likelihood threshold \
             ℓ* − β (β too small for the solver tolerance, or ℓ* does not come from these data and this B)"
        }
        SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => {
            "the objective is unbounded over the feasible set (a missing norm bound)"
        }
        SolverStatus::MaxIterations => "the iteration limit was reached (raise `max_iterations`)",
        SolverStatus::MaxTime => "the time limit was reached",
        SolverStatus::NumericalError | SolverStatus::InsufficientProgress => {
            "numerical trouble in the interior-point method (an ill-conditioned Gram matrix: raise the nugget; \
             or a badly scaled program: loosen `tolerance`)"
        }
        SolverStatus::AlmostSolved => {
            "only reduced accuracy was reached, worse than `acceptable_tolerance` (raise it, or set \
             `accept_almost_solved`, to accept such solutions)"
        }
        SolverStatus::Unsolved => "the solver did not run",
        SolverStatus::CallbackTerminated => "a callback stopped the solver",
        SolverStatus::Solved => "solved",
    }
}

/// bohf's typed status for a clarabel status other than `Solved`, one to one (`None` for `Solved`).
pub(crate) fn failure_status(status: SolverStatus, iterations: u32) -> Option<Failure> {
    Some(match status {
        SolverStatus::Solved => return None,
        SolverStatus::Unsolved => Failure::Unsolved,
        SolverStatus::PrimalInfeasible => Failure::PrimalInfeasible,
        SolverStatus::DualInfeasible => Failure::DualInfeasible,
        SolverStatus::AlmostSolved => Failure::AlmostSolved,
        SolverStatus::AlmostPrimalInfeasible => Failure::AlmostPrimalInfeasible,
        SolverStatus::AlmostDualInfeasible => Failure::AlmostDualInfeasible,
        SolverStatus::MaxIterations => Failure::MaxIterations { iterations: iterations as usize },
        SolverStatus::MaxTime => Failure::MaxTime,
        SolverStatus::NumericalError => Failure::NumericalError,
        SolverStatus::InsufficientProgress => Failure::InsufficientProgress,
        SolverStatus::CallbackTerminated => Failure::CallbackTerminated,
    })
}

/// Runs `solver` and turns any status other than solved into [`Error::SolverFailed`] naming `problem`:
/// its status is clarabel's ([`failure_status`]), or `NonFinite` for a solution with non-finite values.
///
/// `AlmostSolved` is accepted when clarabel's duality gap (absolute or relative) and primal and dual
/// residuals are all within `acceptable_tolerance`: clarabel then stalled between that and its target.
pub(crate) fn solve_checked(
    solver: &mut DefaultSolver<f64>,
    problem: &str,
    acceptable_tolerance: f64,
) -> Result<SolveInfo> {
    solver.solve();
    let s = &solver.solution;
    let i = &solver.info;
    let info = SolveInfo {
        retried: false,
        status: s.status,
        iterations: s.iterations,
        solve_time: s.solve_time,
        primal_residual: i.res_primal,
        dual_residual: i.res_dual,
        gap_abs: i.gap_abs,
        gap_rel: i.gap_rel,
        method: SolveMethod::Clarabel,
    };
    let acc = acceptable_tolerance;
    let within = (i.gap_abs <= acc || i.gap_rel <= acc) && i.res_primal <= acc && i.res_dual <= acc;
    let good_enough = acc == f64::INFINITY || within;
    let ok = s.status == SolverStatus::Solved || (s.status == SolverStatus::AlmostSolved && good_enough);
    if ok && s.x.iter().all(|v| v.is_finite()) {
        Ok(info)
    } else {
        let (status, why) = match failure_status(s.status, s.iterations) {
            Some(status) if !ok => (status, explain(s.status)),
            _ => (Failure::NonFinite, "the solution contains non-finite values"),
        };
        Err(Error::solver_failed(
            format!("clarabel ({problem})"),
            status,
            format!(
                "after {} iterations (gap {:.2e} abs / {:.2e} rel, primal residual {:.2e}, dual residual {:.2e}): {why}",
                s.iterations, i.gap_abs, i.gap_rel, i.res_primal, i.res_dual
            ),
        ))
    }
}

/// The error of a solve that failed, then failed again in its cautious retry: status
/// [`Failure::Retried`] with both statuses, and both details.
pub(crate) fn both_failed(first: Error, second: Error) -> Error {
    match (first, second) {
        (
            Error::SolverFailed { solver, status: s1, detail: d1 },
            Error::SolverFailed { status: s2, detail: d2, .. },
        ) => Error::solver_failed(
            solver,
            Failure::Retried { first: Box::new(s1), retry: Box::new(s2) },
            format!("{d1}; retried with max_step_fraction {CAUTIOUS_STEP_FRACTION}: {d2}"),
        ),
        (_, second) => second,
    }
}

/// Builds a clarabel solver, mapping a setup failure to [`Error::SolverFailed`].
pub(crate) fn new_solver(
    problem: &str,
    q: &[f64],
    a: &CscMatrix<f64>,
    b: &[f64],
    cones: &[SupportedConeT<f64>],
    options: &SolverOptions,
) -> Result<DefaultSolver<f64>> {
    let p = CscMatrix::zeros((q.len(), q.len()));
    DefaultSolver::new(&p, q, a, b, cones, options.settings())
        .map_err(|e| Error::solver_failed(format!("clarabel ({problem})"), Failure::SetupFailed(e.to_string()), ""))
}

/// The x-independent data of every program: the whitened observation rows and the norm bound.
#[derive(Debug, Clone)]
pub(crate) struct ConicData {
    /// Lower Cholesky factor L of K + jitter·I (n×n).
    pub l: DMatrix<f64>,
    /// m×n matrix whose row τ is r_τᵀ = s_τ c_τᵀ L, one row per distinct observation term.
    pub rows: DMatrix<f64>,
    /// Row τ as the signed functional of the latent values: r_τᵀw = s_τ(z_i − z_j) (z_j absent for a
    /// label), (s_τ, i, j).
    pub terms: Vec<(f64, usize, Option<usize>)>,
    /// The multiplicity c_τ of each row.
    pub weights: Vec<f64>,
    /// |R|ᵀc: Σ_τ c_τ|r_τ| (n), so that Σ_τ c_τ|r_τ|ᵀ|w| costs one dot product (the rounding bound
    /// of the likelihood, [`crate::dense::phi_error`]).
    pub abs_weighted: nalgebra::DVector<f64>,
    /// ℓ₀ = −(number of self-duels)·log 2, the part of ℓ that does not depend on w.
    pub constant: f64,
    /// The RKHS-norm bound B.
    pub norm_bound: f64,
    /// Optional latent box |z| ≤ box.
    pub latent_box: Option<f64>,
}

/// Index bookkeeping of one assembled program.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub n: usize,
    pub m: usize,
    pub omega: bool,
    /// Whether the latent values z = Lw are variables of their own (after u, a, b), tied to w by
    /// n equality rows ([`assemble`]).
    pub lifted: bool,
    /// First row of the candidate box rows (+z, then −z), if present.
    pub candidate_box_row: Option<usize>,
}

impl Layout {
    pub fn n_vars(&self) -> usize {
        self.n + usize::from(self.omega) + 3 * self.m + if self.lifted { self.n } else { 0 }
    }
    /// The variable of the latent value z_i (lifted layout only).
    pub fn z(&self, i: usize) -> usize {
        self.n + usize::from(self.omega) + 3 * self.m + i
    }
    pub fn u(&self, tau: usize) -> usize {
        self.n + usize::from(self.omega) + tau
    }
    pub fn a(&self, tau: usize) -> usize {
        self.u(tau) + self.m
    }
    pub fn b(&self, tau: usize) -> usize {
        self.u(tau) + 2 * self.m
    }
}

/// The assembled program: constraint matrix, right-hand side, cones and layout.
pub(crate) struct Assembled {
    pub a: CscMatrix<f64>,
    pub b: Vec<f64>,
    pub cones: Vec<SupportedConeT<f64>>,
    pub layout: Layout,
}

/// Assembles the constraints. `omega` adds the candidate coordinate (confidence-set programs);
/// `likelihood_rhs = Some(β − ℓ* + ℓ₀)` adds the likelihood row Σ c_τ u_τ ≤ β − ℓ* + ℓ₀.
pub(crate) fn assemble(data: &ConicData, omega: bool, likelihood_rhs: Option<f64>) -> Assembled {
    assemble_layout(data, omega, likelihood_rhs, data.latent_box.is_some())
}

/// The layout [`assemble`] gives `data` (`omega` as there), without assembling, except for
/// `candidate_box_row`, which only the assembly fills in (`None` here).
pub(crate) fn layout(data: &ConicData, omega: bool) -> Layout {
    let lifted = data.latent_box.is_some();
    Layout { n: data.l.nrows(), m: data.rows.nrows(), omega, lifted, candidate_box_row: None }
}

/// [`assemble`] with the layout chosen: `lifted` only matters with a latent box.
// Long: the program's rows written in one pass, one block per constraint in the layout's order.
fn assemble_layout(data: &ConicData, omega: bool, likelihood_rhs: Option<f64>, lifted: bool) -> Assembled {
    let n = data.l.nrows();
    let m = data.rows.nrows();
    // With the latent box the program has 2n dense rows ±(Lw)_i (and every label row is a row of
    // L): the interior-point factorisation then fills a dense block over all those rows. Lifting
    // z = Lw into variables of its own makes the box and observation rows sparse (±z_i,
    // s(z_i − z_j)) at the price of n equality rows z − Lw = 0 with L's n(n+1)/2 entries.
    let lifted = lifted && data.latent_box.is_some();
    let mut layout = Layout { n, m, omega, lifted, candidate_box_row: None };
    let (mut ii, mut jj, mut vv) = (Vec::new(), Vec::new(), Vec::new());
    let mut b = Vec::new();
    let mut cones = Vec::new();
    let push = |i: usize, j: usize, v: f64, ii: &mut Vec<usize>, jj: &mut Vec<usize>, vv: &mut Vec<f64>| {
        ii.push(i);
        jj.push(j);
        vv.push(v);
    };
    // SOC (B, w[, ω]): s = b − A x, so rows of w carry A = −1.
    let soc = n + 1 + usize::from(omega);
    b.push(data.norm_bound);
    for j in 0..n {
        push(1 + j, j, -1.0, &mut ii, &mut jj, &mut vv);
        b.push(0.0);
    }
    if omega {
        push(1 + n, n, -1.0, &mut ii, &mut jj, &mut vv);
        b.push(0.0);
    }
    cones.push(SecondOrderConeT(soc));
    let mut row = soc;
    for tau in 0..m {
        // (−u, 1, a) ∈ K_exp.
        push(row, layout.u(tau), 1.0, &mut ii, &mut jj, &mut vv);
        push(row + 2, layout.a(tau), -1.0, &mut ii, &mut jj, &mut vv);
        b.extend_from_slice(&[0.0, 1.0, 0.0]);
        cones.push(ExponentialConeT());
        row += 3;
        // (−rᵀw − u, 1, b) ∈ K_exp.
        if lifted {
            let (s, i, j) = data.terms[tau];
            push(row, layout.z(i), s, &mut ii, &mut jj, &mut vv);
            if let Some(j) = j {
                push(row, layout.z(j), -s, &mut ii, &mut jj, &mut vv);
            }
        } else {
            for j in 0..n {
                let r = data.rows[(tau, j)];
                if r != 0.0 {
                    push(row, j, r, &mut ii, &mut jj, &mut vv);
                }
            }
        }
        push(row, layout.u(tau), 1.0, &mut ii, &mut jj, &mut vv);
        push(row + 2, layout.b(tau), -1.0, &mut ii, &mut jj, &mut vv);
        b.extend_from_slice(&[0.0, 1.0, 0.0]);
        cones.push(ExponentialConeT());
        row += 3;
    }
    let first_nonneg = row;
    for tau in 0..m {
        push(row, layout.a(tau), 1.0, &mut ii, &mut jj, &mut vv);
        push(row, layout.b(tau), 1.0, &mut ii, &mut jj, &mut vv);
        b.push(1.0);
        row += 1;
    }
    if let Some(rhs) = likelihood_rhs
        && m > 0
    {
        let total = data.total_weight();
        for tau in 0..m {
            push(row, layout.u(tau), data.weights[tau] / total, &mut ii, &mut jj, &mut vv);
        }
        b.push(rhs / total);
        row += 1;
    }
    if let Some(bx) = data.latent_box {
        for i in 0..n {
            for sign in [1.0, -1.0] {
                if lifted {
                    push(row, layout.z(i), sign, &mut ii, &mut jj, &mut vv);
                } else {
                    for j in 0..=i {
                        push(row, j, sign * data.l[(i, j)], &mut ii, &mut jj, &mut vv);
                    }
                }
                b.push(bx);
                row += 1;
            }
        }
        if omega {
            layout.candidate_box_row = Some(row);
            for sign in [1.0, -1.0] {
                // Structural entries on every w and on ω; values are set per candidate.
                for j in 0..=n {
                    push(row, j, sign, &mut ii, &mut jj, &mut vv);
                }
                b.push(bx);
                row += 1;
            }
        }
    }
    if row > first_nonneg {
        cones.push(NonnegativeConeT(row - first_nonneg));
    }
    if lifted {
        // z_i − (Lw)_i = 0.
        for i in 0..n {
            push(row, layout.z(i), 1.0, &mut ii, &mut jj, &mut vv);
            for j in 0..=i {
                let v = data.l[(i, j)];
                if v != 0.0 {
                    push(row, j, -v, &mut ii, &mut jj, &mut vv);
                }
            }
            b.push(0.0);
            row += 1;
        }
        cones.push(ZeroConeT(n));
    }
    let a = CscMatrix::new_from_triplets(row, layout.n_vars(), ii, jj, vv);
    Assembled { a, b, cones, layout }
}

impl ConicData {
    /// W = Σ_τ c_τ, the number of observations that depend on w (1 if there are none).
    pub fn total_weight(&self) -> f64 {
        let w: f64 = self.weights.iter().sum();
        if w > 0.0 { w } else { 1.0 }
    }

    /// ℓ(w) = −Σ_τ c_τ softplus(−r_τᵀw) + ℓ₀ and its gradient ∇ℓ(w) = Σ_τ c_τ σ(−r_τᵀw) r_τ
    /// (POP-BO eq. (21) in whitened variables; σ(−v) = 1/(1 + e^v)).
    pub fn log_likelihood_and_gradient(&self, w: &nalgebra::DVector<f64>) -> (f64, nalgebra::DVector<f64>) {
        let d = &self.rows * w;
        let mut ll = self.constant;
        let mut coef = nalgebra::DVector::zeros(d.len());
        for (k, &v) in d.iter().enumerate() {
            ll -= self.weights[k] * softplus(-v);
            coef[k] = self.weights[k] / (1.0 + v.exp());
        }
        (ll, self.rows.transpose() * coef)
    }
}

/// Position in `a.nzval` of the structural entry (row, col).
pub(crate) fn nz_position(a: &CscMatrix<f64>, row: usize, col: usize) -> Option<usize> {
    (a.colptr[col]..a.colptr[col + 1]).find(|&k| a.rowval[k] == row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConfidenceConfig, ConfidenceProblem, Observation};
    use nalgebra::DVector;

    /// The lifted layout (z = Lw as variables) poses the same programs as the dense one: on labels
    /// where the latent box and the likelihood row are active, the MLE and a pointwise program
    /// (with ω and the candidate's box rows) reach the same optimal values and the same w.
    #[test]
    fn the_lifted_layout_poses_the_same_programs() {
        let xs: Vec<f64> = (0..12).map(|i| i as f64 / 11.0).collect();
        let gram = DMatrix::from_fn(12, 12, |i, j| (-(xs[i] - xs[j]).powi(2) / (2.0 * 0.09)).exp());
        // Rejects on the right, accepts on the left, two repeated: B = 16 lets |z| reach the box.
        let labels: Vec<Observation> =
            (0..14).map(|k| Observation::Label { point: k % 12, positive: xs[k % 12] > 0.45 }).collect();
        let config = ConfidenceConfig { norm_bound: 16.0, latent_box: Some(3.0), nugget: 1e-6, ..Default::default() };
        let problem = ConfidenceProblem::new(&gram, &labels, &config).unwrap();
        let data = problem.conic_data();
        let opts = config.solver_options(1e-10);
        let solve = |asm: &Assembled, q: &[f64]| {
            let mut s = new_solver("test", q, &asm.a, &asm.b, &asm.cones, &opts).unwrap();
            solve_checked(&mut s, "test", 1e-7).unwrap();
            (s.solution.obj_val, s.solution.x[..asm.layout.n + usize::from(asm.layout.omega)].to_vec())
        };
        // The MLE: min Σ c_τ u_τ.
        let (dense, lifted) = (assemble_layout(data, false, None, false), assemble_layout(data, false, None, true));
        assert!(lifted.layout.lifted && !dense.layout.lifted);
        let mle_q = |layout: &Layout| {
            let mut q = vec![0.0; layout.n_vars()];
            (0..layout.m).for_each(|t| q[layout.u(t)] = data.weights[t]);
            q
        };
        let (vd, wd) = solve(&dense, &mle_q(&dense.layout));
        let (vl, wl) = solve(&lifted, &mle_q(&lifted.layout));
        assert!((vd - vl).abs() <= 1e-7 * vd.abs().max(1.0), "MLE {vd} vs {vl}");
        let z = &data.l * DVector::from_column_slice(&wl);
        assert!(z.amax() > 2.9 && z.amax() <= 3.0 + 1e-6, "the box is active: max |z| = {}", z.amax());
        assert!(wd.iter().zip(&wl).all(|(a, b)| (a - b).abs() < 1e-4), "{wd:?} vs {wl:?}");
        // A pointwise program at the first support point, max −z₀ (with ω; its box rows zero), over
        // the set of width β = 1: Σ c_τ u_τ ≤ (min Σ c_τ u_τ) + 1.
        let rhs = Some(vd + 1.0);
        let (dense, lifted) = (assemble_layout(data, true, rhs, false), assemble_layout(data, true, rhs, true));
        let low_q = |layout: &Layout| {
            let mut q = vec![0.0; layout.n_vars()];
            q[0] = data.l[(0, 0)];
            q
        };
        let (vd, _) = solve(&dense, &low_q(&dense.layout));
        let (vl, _) = solve(&lifted, &low_q(&lifted.layout));
        assert!((vd - vl).abs() <= 1e-7 * vd.abs().max(1.0), "lower bound {vd} vs {vl}");
    }

    #[test]
    fn unbounded_problem_is_reported_with_its_status() {
        // min −x s.t. x ≥ 0: unbounded below, so clarabel returns a dual-infeasibility certificate.
        let a = CscMatrix::new_from_triplets(1, 1, vec![0], vec![0], vec![-1.0]);
        let opts = SolverOptions { tolerance: 1e-8, max_iterations: 100, acceptable_tolerance: 1e-7, cautious: false };
        let mut s = new_solver("test program", &[-1.0], &a, &[0.0], &[NonnegativeConeT(1)], &opts).unwrap();
        match solve_checked(&mut s, "test program", 1e-7).unwrap_err() {
            Error::SolverFailed { solver, status, .. } => {
                assert_eq!(solver, "clarabel (test program)");
                assert_eq!(status, Failure::DualInfeasible);
            }
            e => panic!("unexpected {e}"),
        }
    }
}
