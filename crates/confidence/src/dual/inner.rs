//! The inner problem's Hessian H = λ∇²φ + μI and its factorisation ([`InnerFactor`]), in the
//! primal, the observation-space (Woodbury) or the latent-space (z = Lw) form, whichever is
//! cheapest.

use super::BoxRow;
use crate::dense::{Eval, Program};
use bohf_core::Link;
use bohf_core::linalg::{Cholesky, mul_vec_strided, solve_triangular_in_place, tr_mul_blocked};
use nalgebra::{DMatrix, DVector};

impl Program<'_> {
    /// α∇²φ(w) (n×n) = Rᵀ diag(α c_τ σ′(v_τ)) R, through the shared directions, from the
    /// directions' weights ([`direction_weights`]).
    fn curvature_weighted(&self, weight: &DVector<f64>, alpha: f64) -> DMatrix<f64> {
        let k = self.dirs.a.nrows();
        let weight = weight * alpha;
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

/// P = λG + μK⁻¹ (n×n, both triangles), the inner Hessian in the latent values z = Lw at `e`
/// ([`InnerFactor::Latent`]: λ∇²φ + μI = LᵀPL, G the duels' weighted graph Laplacian plus the
/// labels' diagonal); `None` without K⁻¹ ([`crate::dense::Directions::k_inverse`]).
pub(super) fn latent_hessian(program: &Program<'_>, e: &Eval, lambda: f64, mu: f64) -> Option<DMatrix<f64>> {
    let n = program.n;
    let mut m = DMatrix::zeros(n, n);
    latent_hessian_into(program, &direction_weights(program, e), lambda, mu, &mut m)?;
    Some(m)
}

/// [`latent_hessian`] from the directions' curvature weights, written into `m` (n×n).
fn latent_hessian_into(
    program: &Program<'_>,
    weight: &DVector<f64>,
    lambda: f64,
    mu: f64,
    m: &mut DMatrix<f64>,
) -> Option<()> {
    // P = μK⁻¹ + λΣ_d w_d e_de_dᵀ (e_d = e_i − e_j, or e_i).
    let k_inv = program.dirs.k_inverse(program.data)?;
    for (to, from) in m.as_mut_slice().iter_mut().zip(k_inv.as_slice()) {
        *to = mu * from;
    }
    for d in (0..weight.len()).filter(|&d| weight[d] > 0.0) {
        let c = lambda * weight[d];
        let (i, j) = program.dirs.key(d);
        m[(i, i)] += c;
        if j != usize::MAX {
            m[(j, j)] += c;
            m[(i, j)] -= c;
            m[(j, i)] -= c;
        }
    }
    Some(())
}

/// A factorisation of the inner Hessian H = λ∇²φ + μI = λAᵀDA + μI (A the k×n direction matrix,
/// D the directions' curvature weights), in the cheapest of three forms: H itself (formed with one
/// product, 2kn² + n³/3 flops); by the Woodbury identity, H⁻¹ = (I − AᵀM⁻¹A)/μ with
/// M = (μ/λ)D⁻¹ + AAᵀ over the directions of positive weight (k³/3 flops, AAᵀ formed once per
/// set); or in the latent values z = Lw, H⁻¹ = L⁻¹(λG + μK⁻¹)⁻¹L⁻ᵀ (n³/3 flops, K⁻¹ formed once
/// per set; the cheapest whenever more than n directions carry curvature, e.g. 496 distinct duels
/// on 361 support points).
pub(super) enum InnerFactor<'d> {
    Primal(Cholesky),
    Woodbury {
        chol: Cholesky,
        /// The rows of A kept (positive weight) are the first `used` rows of `rows`: A itself,
        /// borrowed, when they are a prefix of A's (all of them for labels; for duels the
        /// observations' directions, which [`Directions`] numbers before the latent box's own),
        /// else a copy.
        ///
        /// [`Directions`]: crate::dense::Directions
        rows: std::borrow::Cow<'d, DMatrix<f64>>,
        used: usize,
        /// Their indices in A.
        keep: Vec<usize>,
        mu: f64,
    },
    /// The latent-space form in z = Lw (K = LLᵀ the support Gram, A = EL with E's rows
    /// e_i − e_j for a duel, e_i for a label or a box row): λAᵀDA + μI = Lᵀ(λG + μK⁻¹)L with
    /// G = EᵀDE the weighted graph Laplacian of the duels (plus the labels' diagonal), so
    /// H⁻¹ = L⁻¹P⁻¹L⁻ᵀ with P = λG + μK⁻¹ = L_PL_Pᵀ (n³/3 flops; K⁻¹ once per set,
    /// [`Directions::k_inverse`]). (The congruence H = LᵀPL and (XYZ)⁻¹ = Z⁻¹Y⁻¹X⁻¹; the
    /// observation-space form of docs/confidence.md, "One boxed bound at 500 duels, cheaper".)
    ///
    /// [`Directions::k_inverse`]: crate::dense::Directions::k_inverse
    Latent {
        chol: Cholesky,
        /// L, the support Gram's factor.
        l: &'d DMatrix<f64>,
    },
}

/// Which form [`InnerFactor::with_form`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Primal,
    Woodbury,
    Latent,
}

impl<'d> InnerFactor<'d> {
    /// The factor at `e` for (λ, μ), built in `spare`'s storage when it has the right shape.
    pub(super) fn new(
        program: &Program<'d>,
        e: &Eval,
        lambda: f64,
        mu: f64,
        spare: &std::cell::RefCell<Option<DMatrix<f64>>>,
    ) -> Option<Self> {
        let n = program.n;
        let weight = direction_weights(program, e);
        let kk = weight.iter().filter(|&&w| w > 0.0).count();
        // Flops of each form's factorisation with its forming (the latent form copies μK⁻¹ and adds
        // the Laplacian's 4 entries per direction; its solves, 4n² against the Woodbury form's
        // 4kn + 2k², are cheaper too when it is chosen, k > n).
        let primal_flops = 2.0 * (kk * n * n) as f64 + (n * n * n) as f64 / 3.0;
        let woodbury_flops = (kk * kk * kk) as f64 / 3.0 + 4.0 * (kk * n) as f64;
        let latent_flops = (n * n * n) as f64 / 3.0 + (n * n) as f64 + 4.0 * kk as f64;
        let form = if lambda <= 0.0 {
            Form::Primal
        } else if latent_flops < woodbury_flops.min(primal_flops) && program.dirs.k_inverse(program.data).is_some() {
            Form::Latent
        } else if woodbury_flops < primal_flops {
            Form::Woodbury
        } else {
            Form::Primal
        };
        Self::build(program, &weight, lambda, mu, spare, form)
    }

    /// The factor in the given form (the tests compare the forms on one program).
    #[cfg(test)]
    pub(super) fn with_form(
        program: &Program<'d>,
        e: &Eval,
        lambda: f64,
        mu: f64,
        spare: &std::cell::RefCell<Option<DMatrix<f64>>>,
        form: Form,
    ) -> Option<Self> {
        Self::build(program, &direction_weights(program, e), lambda, mu, spare, form)
    }

    fn build(
        program: &Program<'d>,
        weight: &DVector<f64>,
        lambda: f64,
        mu: f64,
        spare: &std::cell::RefCell<Option<DMatrix<f64>>>,
        form: Form,
    ) -> Option<Self> {
        let n = program.n;
        let a: &'d DMatrix<f64> = &program.dirs.a;
        let k = a.nrows();
        let keep: Vec<usize> = (0..k).filter(|&d| weight[d] > 0.0).collect();
        let kk = keep.len();
        match form {
            Form::Primal => {
                let mut h = program.curvature_weighted(weight, lambda);
                for i in 0..n {
                    h[(i, i)] += mu;
                }
                return Cholesky::blocked_in_place(h).ok().map(InnerFactor::Primal);
            }
            Form::Latent => {
                let mut m =
                    spare.borrow_mut().take().filter(|m| m.shape() == (n, n)).unwrap_or_else(|| DMatrix::zeros(n, n));
                latent_hessian_into(program, weight, lambda, mu, &mut m)?;
                return Some(InnerFactor::Latent { chol: Cholesky::blocked_in_place(m).ok()?, l: &program.data.l });
            }
            Form::Woodbury => {}
        }
        let gram = program.dirs.aat(program.data);
        let mut m =
            spare.borrow_mut().take().filter(|m| m.shape() == (kk, kk)).unwrap_or_else(|| DMatrix::zeros(kk, kk));
        let rows = if keep.iter().enumerate().all(|(i, &d)| i == d) {
            // A prefix: the leading kk×kk block of AAᵀ, column by column (column-major storage).
            let (from, to) = (gram.as_slice(), m.as_mut_slice());
            for j in 0..kk {
                to[j * kk..(j + 1) * kk].copy_from_slice(&from[j * k..j * k + kk]);
            }
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
        Some(InnerFactor::Woodbury { chol: Cholesky::blocked_in_place(m).ok()?, rows, used: kk, keep, mu })
    }

    /// Gives the factor's storage back for the next factorisation.
    pub(super) fn recycle(self, spare: &std::cell::RefCell<Option<DMatrix<f64>>>) {
        let chol = match self {
            InnerFactor::Primal(c) => c,
            InnerFactor::Woodbury { chol, .. } | InnerFactor::Latent { chol, .. } => chol,
        };
        *spare.borrow_mut() = Some(chol.into_storage());
    }

    /// H⁻¹r (`None` only on a dimension mismatch, which the callers exclude).
    pub(super) fn solve(&self, r: &DVector<f64>) -> Option<DVector<f64>> {
        match self {
            InnerFactor::Primal(c) => c.solve_vec(r).ok(),
            InnerFactor::Woodbury { chol, rows, used, mu, .. } => {
                // (r − Aᵀ M⁻¹ A r)/μ with faer's products and triangular solves
                // ([`mul_vec_strided`], [`Cholesky::solve_many`]): the two products with A were
                // a seventh of a cold duel-box bound in nalgebra's baseline-target code.
                let (k, n) = rows.shape();
                let mut ar = DMatrix::zeros(*used, 1);
                mul_vec_strided(rows.as_slice(), (*used, n), k, r.as_slice(), false, ar.as_mut_slice());
                let y = chol.solve_many(&ar).ok()?;
                let mut aty = DVector::zeros(n);
                mul_vec_strided(rows.as_slice(), (*used, n), k, y.as_slice(), true, aty.as_mut_slice());
                Some((r - aty) / *mu)
            }
            InnerFactor::Latent { chol, l } => {
                // L⁻¹P⁻¹L⁻ᵀr: a back substitution with Lᵀ, P's two, a forward one with L.
                let mut y = DMatrix::from_column_slice(r.len(), 1, r.as_slice());
                solve_triangular_in_place(l, y.as_mut_slice(), true);
                let mut x = chol.solve_many(&y).ok()?;
                solve_triangular_in_place(l, x.as_mut_slice(), false);
                Some(DVector::from_column_slice(x.as_slice()))
            }
        }
    }

    /// H⁻¹R, as [`InnerFactor::solve`] (the tests' second computation of the half solves).
    #[cfg(test)]
    pub(super) fn solve_matrix(&self, r: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        match self {
            InnerFactor::Primal(c) => c.solve_many(r).ok(),
            InnerFactor::Woodbury { chol, rows, used, mu, .. } => {
                let a = rows.rows(0, *used).clone_owned();
                Some((r - tr_mul_blocked(&a, &chol.solve_many(&(&a * r)).ok()?)) / *mu)
            }
            InnerFactor::Latent { chol, l } => {
                let mut y = r.clone();
                solve_triangular_in_place(l, y.as_mut_slice(), true);
                let mut x = chol.solve_many(&y).ok()?;
                solve_triangular_in_place(l, x.as_mut_slice(), false);
                Some(x)
            }
        }
    }

    /// The triangular half of H⁻¹ on the columns of `top`: the first n entries of the latent-box
    /// rows `rows` (s_jc_j; `None`: any other column), so that their Gram matrix needs no full
    /// solve:
    ///
    /// - primal, H = L_H L_Hᵀ: V = L_H⁻¹·top, and c_aᵀH⁻¹c_b = v_aᵀv_b;
    /// - Woodbury, H⁻¹ = (I − AᵀM⁻¹A)/μ with M = L_M L_Mᵀ (the class docs; A the kept
    ///   directions): V = L_M⁻¹A·top, and c_aᵀH⁻¹c_b = (c_aᵀc_b − v_aᵀv_b)/μ;
    /// - latent, H⁻¹ = L⁻¹P⁻¹L⁻ᵀ with P = L_PL_Pᵀ: V = L_P⁻¹L⁻ᵀ·top, and c_aᵀH⁻¹c_b = v_aᵀv_b; a
    ///   support point's row s·L_i has L⁻ᵀ(s·L_iᵀ) = s·e_i, so its half solve is s·L_P⁻¹e_i.
    ///
    /// (Expanding H⁻¹ = L_H⁻ᵀL_H⁻¹, resp. the Woodbury form — Golub & Van Loan, *Matrix
    /// Computations*, 4th ed. 2013, §2.1.4 — with M⁻¹ = L_M⁻ᵀL_M⁻¹.) In the
    /// Woodbury form a support point's row s·L_i is a direction of A ([`Directions`]), so A·s L_iᵀ
    /// is s times a column of AAᵀ, read off without a product; only the candidate's rows are
    /// multiplied. One forward substitution with many columns, against the two substitutions and
    /// the two products with A of [`InnerFactor::solve_matrix`]; tested against H⁻¹ itself in
    /// `the_half_solve_gives_the_face_systems_gram`.
    ///
    /// [`Directions`]: crate::dense::Directions
    pub(super) fn half_rows(
        &self,
        program: &Program<'_>,
        rows: &[Option<BoxRow>],
        top: &DMatrix<f64>,
    ) -> Option<DMatrix<f64>> {
        match self {
            InnerFactor::Primal(c) => c.solve_lower_many(top).ok(),
            InnerFactor::Woodbury { chol, rows: a, used, keep, .. } => {
                let gram = program.dirs.gram.get()?;
                let mut at = DMatrix::zeros(keep.len(), rows.len());
                for (k, row) in rows.iter().enumerate() {
                    match *row {
                        Some(BoxRow::Support(i, plus)) => {
                            let d = program.dirs.point_dir(i)?;
                            let s = if plus { 1.0 } else { -1.0 };
                            for (r, &kd) in keep.iter().enumerate() {
                                at[(r, k)] = s * gram[(kd, d)];
                            }
                        }
                        _ => at.set_column(k, &(a.rows(0, *used) * top.column(k))),
                    }
                }
                chol.solve_lower_many(&at).ok()
            }
            InnerFactor::Latent { chol, l } => {
                // L⁻ᵀc for each column: a support point's row s·L_i (as a vector, s·Lᵀe_i) gives
                // s·e_i without a solve; the others one back substitution with Lᵀ (in one batch).
                let mut at = top.clone();
                let others: Vec<usize> =
                    (0..rows.len()).filter(|&k| !matches!(rows[k], Some(BoxRow::Support(..)))).collect();
                if !others.is_empty() {
                    let mut batch = top.select_columns(&others);
                    solve_triangular_in_place(l, batch.as_mut_slice(), true);
                    for (b, &k) in others.iter().enumerate() {
                        at.set_column(k, &batch.column(b));
                    }
                }
                for (k, row) in rows.iter().enumerate() {
                    if let Some(BoxRow::Support(i, plus)) = *row {
                        let mut column = at.column_mut(k);
                        column.fill(0.0);
                        column[i] = if plus { 1.0 } else { -1.0 };
                    }
                }
                chol.solve_lower_many(&at).ok()
            }
        }
    }

    /// The dimension n of H.
    pub(super) fn dim(&self) -> usize {
        match self {
            InnerFactor::Primal(c) => c.dim(),
            InnerFactor::Woodbury { rows, .. } => rows.ncols(),
            InnerFactor::Latent { l, .. } => l.nrows(),
        }
    }

    /// Whether c_aᵀH⁻¹c_b is (c_aᵀc_b − v_aᵀv_b)/μ ([`InnerFactor::half_rows`]; else v_aᵀv_b).
    pub(super) fn woodbury_mu(&self) -> Option<f64> {
        match self {
            InnerFactor::Primal(_) | InnerFactor::Latent { .. } => None,
            InnerFactor::Woodbury { mu, .. } => Some(*mu),
        }
    }
}
