//! The fast path: a dense primal–dual interior-point method for the program family of this crate,
//! with a certificate (a feasible point and a dual bound) for every result it returns.
//!
//! **The programs.** In the whitened variables p = (w[, ω]) every program of the crate is
//!
//! ```text
//! minimise f₀(p)  s.t.  N(p) = (‖p‖² − B²)/(2B²) ≤ 0,
//!                      Φ(w) = (φ(w) − κ)/W ≤ 0            (confidence sets only),
//!                      ±(Lw)_i − b ≤ 0, ±(l_xᵀw + ρ_x ω) − b ≤ 0   (with the latent box b),
//! ```
//!
//! with φ(w) = Σ_τ c_τ softplus(−r_τᵀw) = ℓ₀ − ℓ(w) (POP-BO eq. (21), COBOL eq. (4)), κ = ℓ₀ − (ℓ* − β),
//! W = Σ_τ c_τ, and f₀ = −gᵀp for the optimistic advantage and the pointwise bounds (POP-BO eqs. (12),
//! (24); COBOL (38), (39)) or f₀ = φ/W for the norm-constrained MLE (POP-BO eq. (22), COBOL eq. (37)).
//! The same programs as the conic ones of [`crate::conic`], without the epigraph variables.
//!
//! **The method.** The primal–dual interior-point method of Boyd & Vandenberghe (*Convex
//! Optimization*, §11.7): with slacks s_j = −f_j(p) > 0 and multipliers y_j > 0, each step solves
//!
//! ```text
//! (∇²f₀ + Σ_j y_j ∇²f_j + Σ_j (y_j/s_j) ∇f_j ∇f_jᵀ) Δp = −∇f₀ − (1/t) Σ_j ∇f_j / s_j,
//! Δy_j = −y_j + (1/t + y_j ∇f_jᵀΔp)/s_j,      t = 10·(number of constraints)/Σ_j y_j s_j,
//! ```
//!
//! then a backtracking line search keeps p strictly feasible and decreases the residual. The
//! Hessian is dense and formed explicitly: ∇²φ = Rᵀ diag(c_τ σ(v_τ)σ(−v_τ)) R and the box rows
//! Lᵀ diag(θ) L share one set of *directions* (a label's row is ±L_i, the box row of point i is
//! ±L_i, a duel's row is ±(L_i − L_j)), so the whole curvature is Aᵀ diag(weights) A with the k×n
//! direction matrix A built once per program family, one matrix product, plus rank-one terms
//! for the norm, the likelihood row and the candidate's box rows; one Cholesky factorisation per
//! step. Flops per step: 2kn² for the product and n³/3 for the factorisation (k = n for labels,
//! the number of distinct duels, plus n with the latent box, for duels); 15–30 steps per program.
//!
//! **The certificate.** Every iterate is strictly feasible (the line search checks it, with the
//! rounding error of each constraint's evaluation as a margin), so f₀(p) bounds the minimum from
//! above. For the multipliers y ≥ 0 the Lagrangian L′ = f₀ + Σ_{j≠N} y_j f_j is convex and below f₀
//! on the feasible set, which lies in the ball ‖q‖ ≤ B, so
//!
//! ```text
//! min f₀ ≥ min_{‖q‖≤B} L′(q) ≥ L′(p) − ∇L′(p)ᵀp − B‖∇L′(p)‖,
//! ```
//!
//! and, L = L′ + y_N N being (y_N/B²)-strongly convex, also min f₀ ≥ L(p) − B²‖∇L(p)‖²/(2y_N).
//! The larger of the two is the dual bound. A result is returned only when the enclosure
//! [dual bound, f₀(p)] is narrower than the tolerance; both ends are widened by a bound on the
//! rounding error of their evaluation, so the enclosure contains the exact optimum of the program
//! as posed with the computed factor L. Anything else (a failed factorisation, no strictly
//! feasible start, no certificate within the step limit) returns `None`, and the caller solves the
//! program with clarabel, the reference implementation.
//!
//! The program family (its data, constraints and their rounding bounds) is here; the
//! interior-point method and its certificate are in `ipm` ([`solve`]).

use crate::conic::ConicData;
use bohf_core::Link;
use bohf_core::linalg::mul_vec_strided;
use bohf_core::link::softplus;
use bohf_core::sum::CompensatedSum;
use nalgebra::{DMatrix, DVector};

mod ipm;

pub(crate) use ipm::solve;

/// Unit roundoff.
pub(crate) const U: f64 = f64::EPSILON / 2.0;

/// The objective of one program.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Objective<'a> {
    /// Maximise gᵀp over the confidence set (p = (w, ω), g of length n + 1).
    Linear(&'a DVector<f64>),
    /// Maximise the log-likelihood over the B-ball (∩ the latent box): the MLE (p = w).
    Likelihood,
}

/// One program of the family, as both dense solvers take it ([`solve`], the interior-point
/// method, and [`crate::dual::solve`], Newton's method on the dual).
pub(crate) struct ProgramSpec<'a> {
    pub(crate) data: &'a ConicData,
    pub(crate) dirs: &'a Directions,
    pub(crate) objective: Objective<'a>,
    /// The confidence set's threshold on ℓ (`None` for the MLE).
    pub(crate) threshold: Option<f64>,
    /// The candidate's box row c = (l_x, ρ_x), used when the data has a latent box.
    pub(crate) candidate: Option<DVector<f64>>,
    /// A feasible w (the MLE, or zero) near which a strictly feasible start is found.
    pub(crate) centre: &'a DVector<f64>,
    /// The certified gap required, relative to max(1, |value|).
    pub(crate) tolerance: f64,
}

/// A certified solution of one program, in the maximisation form of the caller.
#[derive(Debug, Clone)]
pub(crate) struct DenseSolution {
    /// The (strictly feasible) solution p = (w[, ω]).
    pub p: DVector<f64>,
    /// Certified enclosure lower ≤ max ≤ upper of the optimal value (of gᵀp, or of ℓ(w) − ℓ₀ for
    /// the MLE, i.e. −φ).
    pub lower: f64,
    /// See `lower`.
    pub upper: f64,
    /// The multipliers (μ₊, μ₋) ≥ 0 of the candidate's box rows f̃(x) ≤ b and −f̃(x) ≤ b.
    pub box_duals: (f64, f64),
    /// Interior-point steps taken.
    pub iterations: u32,
    /// ‖∇L(p)‖ at the returned point (the dual residual).
    pub dual_residual: f64,
    /// The final (λ, μ) of the dual method divided by ‖g‖, a start for the next program of the
    /// same set ([`crate::dual::solve`]); `None` from the interior-point method.
    pub scaled_multipliers: Option<(f64, f64)>,
    /// The MLE's final norm price μ and its latent-box rows priced > 0 (support index, + side),
    /// a start for the MLE of a problem with more observations ([`crate::MleWarmStart`]);
    /// `None` except from the dual method's boxed MLE.
    pub mle_restart: Option<(f64, Vec<(usize, bool)>)>,
}

/// The x-independent structure of the dense programs of one [`ConicData`]: the direction matrix A
/// (k×n) whose rows carry every observation row and every box row, and which direction each uses.
#[derive(Debug, Clone)]
pub(crate) struct Directions {
    pub(crate) a: DMatrix<f64>,
    /// The direction of observation term τ (its row r_τ = s_τ · A[dir]; s_τ² = 1).
    pub(crate) term_dir: Vec<usize>,
    /// The direction of support point i (row L_i), when the latent box uses it.
    point_dir: Vec<usize>,
    /// AAᵀ (k×k), built on first use by the observation-space solves ([`Directions::aat`]).
    pub(crate) gram: std::sync::OnceLock<DMatrix<f64>>,
    /// The support points (i, j) of each direction, L_i − L_j (j = `usize::MAX`: L_i alone).
    keys: Vec<(usize, usize)>,
    /// |L| (entrywise), built on first use by the latent box's rounding bounds ([`Program::eval`]).
    l_abs: std::sync::OnceLock<DMatrix<f64>>,
    /// Lᵀ, built on first use: row i of L as a contiguous column (the latent box's rows, written
    /// hundreds at a time by the boxed programs' face systems).
    l_t: std::sync::OnceLock<DMatrix<f64>>,
    /// K⁻¹ = L⁻ᵀL⁻¹, built on first use by the latent-space solves ([`Directions::k_inverse`]).
    k_inv: std::sync::OnceLock<Option<DMatrix<f64>>>,
}

impl Directions {
    pub(crate) fn new(data: &ConicData) -> Self {
        use std::collections::HashMap;
        let n = data.l.nrows();
        let mut index: HashMap<(usize, usize), usize> = HashMap::new();
        let mut keys: Vec<(usize, usize)> = Vec::new();
        let mut lookup = |key: (usize, usize)| {
            *index.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() - 1
            })
        };
        let term_dir: Vec<usize> = data.terms.iter().map(|&(_, i, j)| lookup((i, j.unwrap_or(usize::MAX)))).collect();
        let point_dir: Vec<usize> =
            if data.latent_box.is_some() { (0..n).map(|i| lookup((i, usize::MAX))).collect() } else { Vec::new() };
        let a = DMatrix::from_fn(keys.len(), n, |d, c| {
            let (i, j) = keys[d];
            data.l[(i, c)] - if j == usize::MAX { 0.0 } else { data.l[(j, c)] }
        });
        Self {
            a,
            term_dir,
            point_dir,
            gram: std::sync::OnceLock::new(),
            keys,
            l_abs: std::sync::OnceLock::new(),
            l_t: std::sync::OnceLock::new(),
            k_inv: std::sync::OnceLock::new(),
        }
    }

    /// The support points (i, j) of direction d: its row of A is L_i − L_j, or L_i alone when
    /// j = `usize::MAX`.
    pub(crate) fn key(&self, d: usize) -> (usize, usize) {
        self.keys[d]
    }

    /// K⁻¹ = (LLᵀ)⁻¹ = L⁻ᵀL⁻¹ (n×n, exactly symmetric), built on first use, for the inner
    /// Hessian's latent-space form λG + μK⁻¹ (`InnerFactor` in `crate::dual`). A term of that
    /// matrix, never used to solve with K: from L by [`bohf_core::linalg::inverse_from_lower_factor`]
    /// (L⁻¹, then L⁻ᵀL⁻¹, about 2n³/3 flops, once per set). Each entry errs by about
    /// u·cond(K)-relative of ‖K⁻¹‖ (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd
    /// ed. 2002, §14.3), measured in `latent_form_matches_the_woodbury_form` and
    /// docs/confidence.md. `None` when L is not lower triangular with a
    /// positive finite diagonal (then the other forms serve).
    pub(crate) fn k_inverse(&self, data: &ConicData) -> Option<&DMatrix<f64>> {
        self.k_inv
            .get_or_init(|| {
                let l = &data.l;
                let n = l.nrows();
                let triangular = l.ncols() == n
                    && (0..n).all(|j| l[(j, j)] > 0.0 && l[(j, j)].is_finite() && (0..j).all(|i| l[(i, j)] == 0.0));
                if !triangular {
                    return None;
                }
                let k_inv = bohf_core::linalg::inverse_from_lower_factor(l);
                k_inv.iter().all(|x| x.is_finite()).then_some(k_inv)
            })
            .as_ref()
    }

    /// Row i of L (of `data`, the data these directions were built from), contiguous.
    pub(crate) fn l_row<'s>(&'s self, data: &ConicData, i: usize) -> &'s [f64] {
        let lt = self.l_t.get_or_init(|| data.l.transpose());
        let n = lt.nrows();
        &lt.as_slice()[i * n..(i + 1) * n]
    }

    /// |L| (entrywise), built on first use (the latent box's rounding bounds).
    pub(crate) fn l_abs(&self, data: &ConicData) -> &DMatrix<f64> {
        self.l_abs.get_or_init(|| data.l.abs())
    }

    /// AAᵀ (k×k, exactly symmetric), built on first use: every row of A is L_i − L_j or L_i, so
    /// A = EL for the k×n matrix E of those ±1 entries and AAᵀ = E(LLᵀ)Eᵀ, with
    /// (AAᵀ)_de = K_ik − K_il − K_jk + K_jl for d = (i, j), e = (k, l) and K = LLᵀ (the terms of
    /// a single point's direction dropped). K costs 2n³ flops (faer's blocked product, once), the
    /// rest O(k²): at 500 duels with the latent box (k ≈ 860, n = 361) the product 2k²n was 5·10⁸
    /// flops, a tenth of a cold bound. Each entry errs by at most γ_n-relative of the |L||L|ᵀ it
    /// sums (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed. 2002, eq. (3.5))
    /// plus 3u of the four terms' magnitudes: a duel between close points loses relative accuracy
    /// to the cancellation, an error of the order of the Woodbury system's own Cholesky backward
    /// error (u‖M‖, ‖M‖ ≥ max K) that only guides the Newton steps ([`InnerFactor`]; the
    /// certificate never uses AAᵀ).
    ///
    /// [`InnerFactor`]: crate::dual
    pub(crate) fn aat(&self, data: &ConicData) -> &DMatrix<f64> {
        self.gram.get_or_init(|| {
            let lt = self.l_t.get_or_init(|| data.l.transpose());
            let mut k = bohf_core::linalg::tr_mul_blocked(lt, lt);
            k.fill_upper_triangle_with_lower_triangle();
            let n = k.nrows();
            // K bordered by a zero row and column, index n standing for an absent point.
            let k = k.insert_row(n, 0.0).insert_column(n, 0.0);
            let at = |i: usize| i.min(n);
            let dirs = self.keys.len();
            let mut out = DMatrix::zeros(dirs, dirs);
            for (e, mut column) in out.column_iter_mut().enumerate() {
                let (p, q) = self.keys[e];
                let (kp, kq) = (k.column(at(p)), k.column(at(q)));
                let (kp, kq) = (kp.as_slice(), kq.as_slice());
                for (d, o) in column.iter_mut().enumerate() {
                    let (i, j) = self.keys[d];
                    let (i, j) = (at(i), at(j));
                    // (K_ip + K_jq) − (K_iq + K_jp): exactly symmetric in (d, e), as
                    // floating-point addition is commutative.
                    *o = (kp[i] + kq[j]) - (kq[i] + kp[j]);
                }
            }
            out
        })
    }

    /// The direction (row of A) of support point i's latent value L_i, when the latent box uses it.
    pub(crate) fn point_dir(&self, i: usize) -> Option<usize> {
        self.point_dir.get(i).copied()
    }
}

/// One program's data and state, borrowed from the caller.
pub(crate) struct Program<'a> {
    pub(crate) data: &'a ConicData,
    pub(crate) dirs: &'a Directions,
    pub(crate) objective: Objective<'a>,
    /// κ = ℓ₀ − threshold (confidence sets; `None` for the MLE).
    pub(crate) kappa: Option<f64>,
    /// The candidate row c = (l_x, ρ_x) (confidence sets with the latent box).
    pub(crate) candidate: Option<DVector<f64>>,
    pub(crate) n: usize,
    pub(crate) dim: usize,
    pub(crate) total: f64,
}

/// Values at a point p: everything the step and the certificate need.
pub(crate) struct Eval {
    /// v = R w.
    pub(crate) v: DVector<f64>,
    /// φ(w), by compensated summation, and a bound on its rounding error ([`phi_error`]).
    pub(crate) phi: f64,
    pub(crate) phi_err: f64,
    /// ∇φ(w) = −Rᵀ(c ⊙ σ(−v)).
    pub(crate) grad_phi: DVector<f64>,
    /// The constraint values f_j(p) in the order: norm, likelihood, box (+z_i, −z_i)_i, candidate (+, −).
    pub(crate) f: Vec<f64>,
    /// A bound on the rounding error of each f_j.
    pub(crate) f_err: Vec<f64>,
}

/// A bound on |φ̂ − φ(w)| for φ̂ = Σ_τ c_τ softplus(−v̂_τ) summed by `sum` (compensated), where
/// v̂_τ = fl(r_τᵀw) and `abs_dot` = (|R|ᵀc)ᵀ|w| = Σ_τ c_τ |r_τ|ᵀ|w| (computed): each v̂_τ errs by at
/// most γ_{n+1}|r_τ|ᵀ|w| (the dot product, and the subtraction that formed r_τ; Higham eq. (3.5)),
/// which softplus (1-Lipschitz) passes on at most unchanged; each term's evaluation (exp, ln_1p,
/// one addition, the product by c_τ) errs by at most 5u of itself; and the sum adds
/// [`CompensatedSum::error_bound`]. No factor grows with the number of terms, so the bound stays
/// near (n + 3)u·Σ_τ c_τ|v_τ| at thousands of observations (it was (n + m + 16)u with a plain sum).
pub(crate) fn phi_error(n: usize, sum: &CompensatedSum, abs_dot: f64) -> f64 {
    let gamma = (n + 3) as f64 * U * (1.0 + 1e-6);
    let abs_dot = abs_dot * (1.0 + (n + 2) as f64 * U);
    (gamma * abs_dot + 5.0 * U * sum.abs_sum() * (1.0 + 1e-6) + sum.error_bound()) * (1.0 + 4.0 * U)
}

/// The rounding bound of the likelihood row (φ − κ)/W from φ's (`phi_err`): the subtraction and the
/// division, with κ's magnitude for the rounding of the threshold's own difference.
pub(crate) fn likelihood_row_error(phi: f64, phi_err: f64, kappa: f64, total: f64) -> f64 {
    (phi_err + 4.0 * U * (phi.abs() + kappa.abs())) / total * (1.0 + 2.0 * U)
}

impl<'a> Program<'a> {
    /// The norm row at a point with ‖p‖² = `pn2`: its value (‖p‖² − B²)/(2B²) (≤ 0 inside the
    /// ball) and the bound on its rounding error, (dim + 16)u(‖p‖² + B²)/(2B²) + u. The one home of
    /// the row for [`Program::eval`] and the pull-inside's segment searches.
    pub(crate) fn norm_row(&self, pn2: f64) -> (f64, f64) {
        let b = self.data.norm_bound;
        let dim_err = (self.dim + 16) as f64 * U;
        ((pn2 - b * b) / (2.0 * b * b), dim_err * (pn2 + b * b) / (2.0 * b * b) + U)
    }

    pub(crate) fn constraint_count(&self) -> usize {
        1 + usize::from(self.kappa.is_some())
            + if self.data.latent_box.is_some() { 2 * self.n } else { 0 }
            + if self.candidate.is_some() { 2 } else { 0 }
    }

    pub(crate) fn first_box(&self) -> usize {
        1 + usize::from(self.kappa.is_some())
    }

    pub(crate) fn eval(&self, p: &DVector<f64>) -> Eval {
        let Eval { v, phi, phi_err, grad_phi, .. } = self.eval_likelihood(p);
        let n = self.n;
        let data = self.data;
        let w = p.rows(0, n);
        let ws = &p.as_slice()[..n];
        let (norm, norm_err) = self.norm_row(p.norm_squared());
        let mut sum = CompensatedSum::new();
        let mut coef = DVector::zeros(v.len());
        for (k, &vk) in v.iter().enumerate() {
            sum.add(data.weights[k] * softplus(-vk));
            coef[k] = -data.weights[k] * Link::Logistic.mu(-vk);
        }
        let mut f = vec![norm];
        let dim_err = (self.dim + 16) as f64 * U;
        let mut f_err = vec![norm_err];
        if let Some(kappa) = self.kappa {
            f.push((phi - kappa) / self.total);
            f_err.push(likelihood_row_error(phi, phi_err, kappa, self.total));
        }
        if let Some(bx) = data.latent_box {
            let z = mat_vec(&data.l, ws, false);
            let zabs = mat_vec(self.dirs.l_abs(data), w.abs().as_slice(), false);
            for i in 0..n {
                let err = dim_err * zabs[i] + U * bx;
                f.push(z[i] - bx);
                f_err.push(err);
                f.push(-z[i] - bx);
                f_err.push(err);
            }
        }
        if let (Some(c), Some(bx)) = (&self.candidate, data.latent_box) {
            let cp = c.dot(p);
            let err = dim_err * c.abs().dot(&p.abs()) + U * bx;
            f.push(cp - bx);
            f_err.push(err);
            f.push(-cp - bx);
            f_err.push(err);
        }
        Eval { v, phi, phi_err, grad_phi, f, f_err }
    }

    /// [`Program::eval`]'s likelihood part alone (v, φ, its rounding bound, ∇φ), for the dual's
    /// inner solves and their line searches, which read nothing else: the box rows' z = Lw and
    /// |L||w| were half of each evaluation's products. No constraint values: `f` holds one NaN,
    /// so that [`strictly_feasible`] rejects the result.
    pub(crate) fn eval_likelihood(&self, p: &DVector<f64>) -> Eval {
        let n = self.n;
        let data = self.data;
        let w = p.rows(0, n);
        let v = mat_vec(&data.rows, &p.as_slice()[..n], false);
        let mut sum = CompensatedSum::new();
        let mut coef = DVector::zeros(v.len());
        for (k, &vk) in v.iter().enumerate() {
            sum.add(data.weights[k] * softplus(-vk));
            coef[k] = -data.weights[k] * Link::Logistic.mu(-vk);
        }
        let phi = sum.value();
        let phi_err = phi_error(self.n, &sum, data.abs_weighted.dot(&w.abs()));
        let grad_phi = mat_vec(&data.rows, coef.as_slice(), true);
        Eval { v, phi, phi_err, grad_phi, f: vec![f64::NAN], f_err: vec![f64::INFINITY] }
    }
}

/// A·x (or Aᵀ·x when `transpose`) by faer's kernels ([`mul_vec_strided`]): the products with the
/// observation rows R and with L of every evaluation ([`Program::eval`], the pull-inside's
/// segments, the box's row values), a tenth of a cold duel-box bound in nalgebra's baseline-target
/// code. The rounding bounds of their callers are those of a dot product in any order of
/// summation, with or without fused multiply–adds (Higham, *Accuracy and Stability of Numerical
/// Algorithms*, 2nd ed. 2002, §3.1 and eq. (3.5)), so they hold for faer's order as for nalgebra's.
pub(crate) fn mat_vec(a: &DMatrix<f64>, x: &[f64], transpose: bool) -> DVector<f64> {
    let (rows, cols) = a.shape();
    let mut out = DVector::zeros(if transpose { cols } else { rows });
    mul_vec_strided(a.as_slice(), (rows, cols), rows, x, transpose, out.as_mut_slice());
    out
}

/// Whether every constraint holds strictly, with its rounding error as a margin.
pub(crate) fn strictly_feasible(e: &Eval) -> bool {
    e.f.iter().zip(&e.f_err).all(|(f, err)| f.is_finite() && *f + *err < 0.0)
}

#[cfg(test)]
mod tests {
    // The dense path is tested against clarabel in `crate::tests` (random instances of every
    // program type); see `dense_path_agrees_with_clarabel`.
}
