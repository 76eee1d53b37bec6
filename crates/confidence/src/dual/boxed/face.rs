//! The face steps of the parent's inner box solve: the Newton step on the working set's face
//! ([`face_step`]), the factor of the working set's system kept across steps ([`FaceFactor`]),
//! and the rows met with the current factorisation ([`Solved`]).

use crate::dense::Program;
use crate::dual::{BoxRow, InnerFactor};
use bohf_core::linalg::{Cholesky, tr_mul_blocked_into};
use nalgebra::{DMatrix, DVector, DVectorView};
use std::collections::HashMap;

/// The Newton step on the face of the working set `w` (module docs; a full step puts its rows at
/// their bound, `resid` = b − C_Wp away): (ν, r − C_Wᵀν), from the gradient r and h = H̃⁻¹r; the
/// step itself is d = H̃⁻¹(r − C_Wᵀν) (one solve by the caller: h − H̃⁻¹C_Wᵀν without the
/// columns H̃⁻¹c_j, which [`Solved`] no longer forms).
/// The |W|×|W| system is solved with the factor of [`FaceFactor`] (a small ridge: rows of close
/// support points are nearly collinear, their ν are then not unique, and any solution serves the
/// step and the certificate) and two steps of iterative refinement against the unridged system.
pub(super) fn face_step(
    solved: &Solved,
    face: &mut Option<FaceFactor>,
    w: &[usize],
    resid: &DVector<f64>,
    r: &DVector<f64>,
    h: &DVector<f64>,
) -> Option<(Vec<f64>, DVector<f64>)> {
    if w.is_empty() {
        return Some((Vec::new(), r.clone()));
    }
    let slots: Vec<usize> = w.iter().map(|j| solved.slot[j]).collect();
    let chol = FaceFactor::bring_to(face, solved, w)?;
    let gm = DMatrix::from_fn(slots.len(), slots.len(), |a, b| solved.gram(slots[a], slots[b]));
    let rhs = DVector::from_iterator(w.len(), slots.iter().map(|&s| solved.c(s).dot(h))) - resid;
    let mut nu = chol.solve_vec(&rhs).ok()?;
    // Two steps of iterative refinement against the unridged system: the ridge's error would
    // otherwise set a floor under the reduced gradient where rows are nearly collinear.
    for _ in 0..2 {
        let correction = chol.solve_vec(&(&rhs - &gm * &nu)).ok()?;
        nu += correction;
    }
    let mut reduced = r.clone();
    for (k, &s) in slots.iter().enumerate() {
        reduced.axpy(-nu[k], &solved.c(s), 1.0);
    }
    Some((nu.iter().copied().collect(), reduced))
}

/// The Cholesky factor of the face system C_W H̃⁻¹ C_Wᵀ + ridge·I of the working set `rows`, kept
/// across the face steps of one inner factorisation. W changes by a few rows at a time — a row
/// with a negative multiplier leaves (about 1.7 times per face step in COBOL's hard steps, each
/// a fresh |W|³/3 factorisation before), the rows that block a step join at the end — so the
/// factor follows it by deleting rows ([`Cholesky::remove`]) and appending them
/// ([`Cholesky::append`]), each in O(|W|²), and is factorised afresh only when W changed by more
/// than a quarter of its rows, in another order, or an append meets a pivot ≤ 0. The ridge is
/// 1e-12 of the largest diagonal entry of W's system when it was last factorised afresh.
pub(super) struct FaceFactor {
    rows: Vec<usize>,
    chol: Cholesky,
    ridge: f64,
}

impl FaceFactor {
    /// The factor of W's system afresh.
    fn fresh(solved: &Solved, w: &[usize]) -> Option<Self> {
        let slots: Vec<usize> = w.iter().map(|j| solved.slot[j]).collect();
        let mut gm = DMatrix::from_fn(slots.len(), slots.len(), |a, b| solved.gram(slots[a], slots[b]));
        let ridge = 1e-12 * gm.diagonal().max().max(f64::MIN_POSITIVE);
        for i in 0..gm.nrows() {
            gm[(i, i)] += ridge;
        }
        // faer's blocked factorisation (several times nalgebra's at |W| of a few hundred).
        Some(Self { rows: w.to_vec(), chol: Cholesky::blocked_in_place(gm).ok()?, ridge })
    }

    /// The factor for `w`, updated from `face` when `w` is its rows with some deleted (order
    /// kept) and others appended, afresh otherwise (`None` when W's system is not positive
    /// definite even with the ridge).
    fn bring_to<'f>(face: &'f mut Option<FaceFactor>, solved: &Solved, w: &[usize]) -> Option<&'f Cholesky> {
        let updated = face.take().and_then(|f| f.updated(solved, w));
        let f = match updated {
            Some(f) => f,
            None => FaceFactor::fresh(solved, w)?,
        };
        Some(&face.insert(f).chol)
    }

    /// `self` brought to `w` by deletions and appends, or `None` when a fresh factor is cheaper
    /// or an append fails.
    fn updated(mut self, solved: &Solved, w: &[usize]) -> Option<Self> {
        // The longest prefix of w that is a subsequence of the factored rows: those rows stay.
        let mut keep = vec![false; self.rows.len()];
        let (mut at, mut matched) = (0, 0);
        for &j in w {
            match self.rows[at..].iter().position(|&r| r == j) {
                Some(offset) => {
                    keep[at + offset] = true;
                    at += offset + 1;
                    matched += 1;
                }
                None => break,
            }
        }
        let deleted = self.rows.len() - matched;
        let appended = &w[matched..];
        if 4 * (deleted + appended.len()) > w.len().max(self.rows.len()) {
            return None;
        }
        for k in (0..self.rows.len()).rev() {
            if !keep[k] {
                self.chol.remove(k).ok()?;
                self.rows.remove(k);
            }
        }
        for &j in appended {
            let s = solved.slot[&j];
            let column = DVector::from_iterator(
                self.rows.len() + 1,
                self.rows.iter().map(|r| solved.gram(solved.slot[r], s)).chain([solved.gram(s, s) + self.ridge]),
            );
            self.chol.append(&column).ok()?;
            self.rows.push(j);
        }
        Some(self)
    }
}

/// c_aᵀc_b for two latent-box rows with their vectors: for two support points' rows s_aL_i and
/// s_bL_j, s_as_b(LLᵀ)_ij, read off AAᵀ (`aat`: both rows are directions of A, [`Directions`]);
/// a dot product when either is the candidate's.
///
/// [`Directions`]: crate::dense::Directions
pub(in crate::dual) fn row_dot(
    program: &Program<'_>,
    aat: &DMatrix<f64>,
    (ra, ca): (BoxRow, &[f64]),
    (rb, cb): (BoxRow, &[f64]),
) -> f64 {
    if let (BoxRow::Support(i, pi), BoxRow::Support(j, pj)) = (ra, rb)
        && let (Some(di), Some(dj)) = (program.dirs.point_dir(i), program.dirs.point_dir(j))
    {
        let s = if pi == pj { 1.0 } else { -1.0 };
        return s * aat[(di, dj)];
    }
    ca.iter().zip(cb).map(|(x, y)| x * y).sum()
}

/// The rows met with the current factorisation: c_j, the half solve v_j
/// ([`InnerFactor::half_rows`]) and the matrix of c_iᵀH̃⁻¹c_j, each computed once (a face step's
/// system is a submatrix; blocked steps reuse the factorisation and add rows, and dropping rows
/// only selects). H̃ = diag(H, μ): the ω entries (when the program has one) add c_ωic_ωj/μ. The
/// columns live in buffers kept across factorisations ([`Solved::clear`] keeps their
/// allocations): a program meets tens to hundreds of rows per factorisation, and fresh n × |W|
/// matrices for every batch cost more in page faults than in arithmetic.
#[derive(Default)]
pub(super) struct Solved {
    pub(super) slot: HashMap<usize, usize>,
    /// The program's dimension, the length of each column.
    dim: usize,
    /// The length of each half-solved column.
    half: usize,
    /// The rows met, in slot order.
    rows: Vec<BoxRow>,
    /// c_j of the rows met, as the columns (in slot order) of a column-major dim × count matrix.
    c: Vec<f64>,
    /// v_j, as `c`.
    v: Vec<f64>,
    /// c_iᵀH̃⁻¹c_j (symmetrised), column-major count × count.
    gram: Vec<f64>,
    /// Scratch: the products of a batch's new half-solved columns with all of them, and the
    /// previous gram.
    vv: Vec<f64>,
    old_gram: Vec<f64>,
}

impl Solved {
    /// Forgets the rows (a new factorisation), keeping the buffers.
    pub(super) fn clear(&mut self) {
        self.slot.clear();
        self.rows.clear();
        self.c.clear();
        self.v.clear();
        self.gram.clear();
    }

    /// The number of rows met.
    fn count(&self) -> usize {
        self.slot.len()
    }

    /// c_j of the row in slot `s`.
    pub(super) fn c(&self, s: usize) -> DVectorView<'_, f64> {
        DVectorView::from_slice(&self.c[s * self.dim..(s + 1) * self.dim], self.dim)
    }

    /// c_aᵀH̃⁻¹c_b for the slots a and b.
    fn gram(&self, a: usize, b: usize) -> f64 {
        self.gram[b * self.count() + a]
    }

    /// Solves the rows of `w` not met yet with `f`, in one batch, and borders the matrix.
    pub(super) fn ensure(
        &mut self,
        f: &InnerFactor<'_>,
        program: &Program<'_>,
        mu: f64,
        all: &[BoxRow],
        w: &[usize],
    ) -> Option<()> {
        let missing: Vec<usize> = w.iter().copied().filter(|j| !self.slot.contains_key(j)).collect();
        if missing.is_empty() {
            return Some(());
        }
        let (n, dim) = (program.n, program.dim);
        let old = self.count();
        let added = missing.len();
        let mut top = DMatrix::zeros(n, added);
        for (k, &j) in missing.iter().enumerate() {
            let at = self.c.len();
            self.c.resize(at + dim, 0.0);
            all[j].write(program, &mut self.c[at..]);
            top.column_mut(k).copy_from_slice(&self.c[at..at + n]);
        }
        let rows: Vec<Option<BoxRow>> = missing.iter().map(|&j| Some(all[j])).collect();
        let v = f.half_rows(program, &rows, &top)?;
        if old == 0 {
            self.dim = dim;
            self.half = v.nrows();
        }
        self.v.extend_from_slice(v.as_slice());
        for (k, &j) in missing.iter().enumerate() {
            self.slot.insert(j, old + k);
            self.rows.push(all[j]);
        }
        let new = self.count();
        std::mem::swap(&mut self.gram, &mut self.old_gram);
        self.gram.clear();
        self.gram.resize(new * new, 0.0);
        for b in 0..old {
            self.gram[b * new..b * new + old].copy_from_slice(&self.old_gram[b * old..(b + 1) * old]);
        }
        // The new rows' block from v_aᵀv_b for the new a and every b (one blocked product) and,
        // in the Woodbury form, c_aᵀc_b ([`InnerFactor::half_rows`], [`row_dot`]), symmetrised on
        // the new × new block.
        tr_mul_blocked_into((self.half, added, new), &self.v[old * self.half..], &self.v, &mut self.vv);
        let woodbury = f.woodbury_mu();
        let aat = program.dirs.gram.get();
        let entry = |at: usize, a: usize, b: usize, c: &[f64]| -> f64 {
            let column = |s: usize| &c[s * dim..(s + 1) * dim];
            match (woodbury, aat) {
                (Some(m), Some(aat)) => {
                    let cc = row_dot(program, aat, (self.rows[a], column(a)), (self.rows[b], column(b)));
                    (cc - self.vv[at]) / m
                }
                _ => {
                    // The ω entries: c_ωa c_ωb / μ (H̃'s last block).
                    let omega: f64 = (n..dim).map(|i| c[a * dim + i] * c[b * dim + i]).sum();
                    self.vv[at] + omega / mu
                }
            }
        };
        let mut block = vec![0.0; added * new];
        for a in old..new {
            for b in 0..new {
                let at = b * added + (a - old);
                block[at] = entry(at, a, b, &self.c);
            }
        }
        for a in old..new {
            for b in 0..=a {
                let v = if b >= old {
                    0.5 * (block[b * added + (a - old)] + block[a * added + (b - old)])
                } else {
                    block[b * added + (a - old)]
                };
                self.gram[b * new + a] = v;
                self.gram[a * new + b] = v;
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::Directions;
    use crate::dual::inner::Form;
    use crate::dual::tests::{linear_dual, problem_with_nugget};

    /// The face system's matrix c_aᵀH̃⁻¹c_b from the half solves ([`InnerFactor::half_rows`]), in
    /// its three forms (the latent form asserted on the problems with nugget 1e-2 only; on the
    /// nugget-1e-8 Grams of [`crate::dual::tests::problem`] its entries are measured, printed:
    /// 7e-10 and 3e-9 relative off) and bordered in two batches, against a second computation: full
    /// solves with H (H⁻¹C by [`InnerFactor::solve_matrix`], then the products), for support
    /// rows of both signs and the candidate's rows, on labels and on duels (whose directions
    /// are differences of rows of L).
    #[test]
    fn the_half_solve_gives_the_face_systems_gram() {
        for (seed, duels, nugget) in [(6u64, false, 1e-8), (7, true, 1e-8), (6, false, 1e-2), (7, true, 1e-2)] {
            let (_, prob) = problem_with_nugget(seed, duels, Some(1.5), nugget);
            let data = prob.conic_data();
            let dirs = Directions::new(data);
            let n = data.l.nrows();
            let mut c = DVector::zeros(n + 1);
            c.rows_mut(0, n).copy_from(&(data.l.row(3).transpose() * 0.6 + data.l.row(8).transpose() * 0.4));
            c[n] = 0.3;
            let g = DVector::from_fn(n + 1, |i, _| if i < n { c[i] - data.l[(5, i)] } else { c[i] });
            let dual = linear_dual(data, &dirs, &g, 0.0, Some(c), 1.5);
            let program = &dual.program;
            let p = DVector::from_fn(n + 1, |i, _| 0.1 * (i as f64 * 0.7).sin());
            let e = program.eval(&p);
            let (lambda, mu) = (0.8, 0.3);
            let wood = InnerFactor::with_form(program, &e, lambda, mu, &dual.spare, Form::Woodbury).unwrap();
            assert!(wood.woodbury_mu().is_some(), "seed {seed}: the small problem takes the Woodbury form");
            let hinv = wood.solve_matrix(&DMatrix::identity(n, n)).unwrap();
            let h = hinv.clone().try_inverse().unwrap();
            let primal = InnerFactor::Primal(Cholesky::new(&((&h + h.transpose()) * 0.5)).unwrap());
            let all = dual.box_rows();
            let w: Vec<usize> = vec![0, 7, 10, all.len() - 1, 3, 16, all.len() - 2];
            let latent = InnerFactor::with_form(program, &e, lambda, mu, &dual.spare, Form::Latent).unwrap();
            // The latent form's worst relative entry error on the nugget-1e-8 Grams (not asserted).
            let mut off = 0.0f64;
            for (form, f) in [&wood, &primal, &latent].into_iter().enumerate() {
                let measured_only = form == 2 && nugget < 1e-2;
                let mut solved = Solved::default();
                solved.ensure(f, program, mu, &all, &w[..3]).unwrap();
                solved.ensure(f, program, mu, &all, &w).unwrap();
                let cols: Vec<DVector<f64>> = w.iter().map(|&j| all[j].vector(program)).collect();
                for (a, &ja) in w.iter().enumerate() {
                    for (b, &jb) in w.iter().enumerate() {
                        let (ca, cb) = (&cols[a], &cols[b]);
                        let hcb = &hinv * cb.rows(0, n);
                        let expected = ca.rows(0, n).dot(&hcb) + ca[n] * cb[n] / mu;
                        let got = solved.gram(solved.slot[&ja], solved.slot[&jb]);
                        let scale = 1.0 + expected.abs();
                        if measured_only {
                            off = off.max((got - expected).abs() / scale);
                            continue;
                        }
                        assert!(
                            (got - expected).abs() <= 1e-10 * scale,
                            "seed {seed}: ({ja}, {jb}) {got} vs {expected}"
                        );
                    }
                }
            }
            if nugget < 1e-2 {
                eprintln!("seed {seed}, nugget {nugget:e}: the latent form's face Gram {off:.1e} relative off");
            }
        }
    }

    /// A `Solved` whose rows 0..n have the Gram matrix `gram` (the columns are not needed here).
    fn solved_with(gram: &DMatrix<f64>) -> Solved {
        let n = gram.nrows();
        Solved { slot: (0..n).map(|j| (j, j)).collect(), gram: gram.as_slice().to_vec(), ..Solved::default() }
    }

    /// The face factor follows W through deletions (one, several, the last), appends, a
    /// reordering and a large change, and always factorises W's system plus its ridge: checked
    /// against the matrix itself (a second computation) after every change.
    #[test]
    fn the_face_factor_follows_the_working_set() {
        let n = 14;
        let b = DMatrix::from_fn(n, n + 3, |i, j| (((i * 37 + j * 11) % 29) as f64 - 14.0) / 9.0);
        let gram = &b * b.transpose() + DMatrix::identity(n, n) * 0.5;
        let solved = solved_with(&gram);
        let mut face = None;
        let steps: Vec<Vec<usize>> = vec![
            (0..10).collect(),
            vec![0, 1, 2, 4, 5, 6, 7, 8, 9],
            vec![0, 1, 2, 4, 5, 6, 7, 8, 9, 12],
            vec![1, 2, 4, 5, 6, 7, 8, 9, 12, 13],
            vec![1, 2, 4, 5, 6, 7, 8, 12, 13],
            vec![13, 12, 1, 2, 4, 5, 6, 7, 8],
            vec![3, 10],
            vec![3, 10, 11],
        ];
        for w in &steps {
            let chol = FaceFactor::bring_to(&mut face, &solved, w).unwrap().clone();
            let f = face.as_ref().unwrap();
            assert_eq!(&f.rows, w);
            let mut target = gram.select_rows(w).select_columns(w);
            for i in 0..w.len() {
                target[(i, i)] += f.ridge;
            }
            let rebuilt = chol.l() * chol.l().transpose();
            assert!((rebuilt - &target).amax() <= 1e-12 * target.amax(), "W = {w:?}");
        }
    }
}
