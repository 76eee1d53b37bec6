//! Duels on a finite candidate set and the sparse difference operator D they define.

use bohf_core::{Duel, Error, Result};
use bohf_kernels::IndexPair;
use nalgebra::{DMatrix, DVector};

/// The duels observed so far on a candidate set of size n, with validated indices.
///
/// The t duels define the t×n **difference matrix** D (row k = e_{first_k} − e_{second_k}), never
/// formed in the fast paths: D u costs O(t) ([`Duels::apply_d`]), Dᵀ w costs O(t)
/// ([`Duels::apply_dt`]), and the weighted Laplacian C_W = Dᵀ W D costs O(t) after zeroing n×n
/// ([`Duels::laplacian`]). The dueling Gram of the duels is K^D = D K Dᵀ.
#[derive(Debug, Clone, PartialEq)]
pub struct Duels {
    n: usize,
    duels: Vec<Duel>,
}

impl Duels {
    /// No duels yet, on `n_candidates` candidates.
    pub fn new(n_candidates: usize) -> Self {
        Self { n: n_candidates, duels: Vec::new() }
    }

    /// The duels `duels` on `n_candidates` candidates; every index must be < `n_candidates`.
    pub fn from_duels(n_candidates: usize, duels: impl IntoIterator<Item = Duel>) -> Result<Self> {
        let mut d = Self::new(n_candidates);
        for duel in duels {
            d.push(duel)?;
        }
        Ok(d)
    }

    /// Appends a duel, checking both indices.
    pub fn push(&mut self, duel: Duel) -> Result<()> {
        for index in [duel.first, duel.second] {
            if index >= self.n {
                return Err(Error::IndexOutOfRange { context: "duel candidate".into(), index, len: self.n });
            }
        }
        self.duels.push(duel);
        Ok(())
    }

    /// The number of candidates n.
    pub fn n_candidates(&self) -> usize {
        self.n
    }

    /// The number of duels t.
    pub fn len(&self) -> usize {
        self.duels.len()
    }

    /// True if there are no duels.
    pub fn is_empty(&self) -> bool {
        self.duels.is_empty()
    }

    /// The duels, in order.
    pub fn as_slice(&self) -> &[Duel] {
        &self.duels
    }

    /// Iterates over the duels.
    pub fn iter(&self) -> std::slice::Iter<'_, Duel> {
        self.duels.iter()
    }

    /// The first `len` duels (the history up to step `len`).
    pub fn prefix(&self, len: usize) -> Self {
        Self { n: self.n, duels: self.duels[..len.min(self.duels.len())].to_vec() }
    }

    /// The index pairs (x_k, x′_k).
    pub fn pairs(&self) -> Vec<IndexPair> {
        self.duels.iter().map(Duel::pair).collect()
    }

    /// The labels y_k ∈ {0, 1}.
    pub fn labels(&self) -> DVector<f64> {
        DVector::from_iterator(self.len(), self.duels.iter().map(Duel::label))
    }

    /// (D u)_k = u(first_k) − u(second_k), for u ∈ ℝⁿ (O(t)).
    pub fn apply_d(&self, u: &DVector<f64>) -> DVector<f64> {
        debug_assert_eq!(u.len(), self.n);
        DVector::from_iterator(self.len(), self.duels.iter().map(|d| u[d.first] - u[d.second]))
    }

    /// Dᵀ w = Σ_k w_k (e_{first_k} − e_{second_k}), for w ∈ ℝᵗ (O(t + n)).
    pub fn apply_dt(&self, w: &DVector<f64>) -> DVector<f64> {
        debug_assert_eq!(w.len(), self.len());
        let mut out = DVector::zeros(self.n);
        for (d, &wk) in self.duels.iter().zip(w.iter()) {
            out[d.first] += wk;
            out[d.second] -= wk;
        }
        out
    }

    /// The weighted Laplacian C_W = Dᵀ diag(w) D (n×n; all weights 1 if `weights` is `None`, giving
    /// C = DᵀD), assembled in O(t) after zeroing: duel k adds w_k to (i,i) and (j,j) and −w_k to
    /// (i,j) and (j,i). A self-duel adds exactly zero.
    pub fn laplacian(&self, weights: Option<&DVector<f64>>) -> DMatrix<f64> {
        let mut c = DMatrix::zeros(self.n, self.n);
        for (k, d) in self.duels.iter().enumerate() {
            let w = weights.map_or(1.0, |w| w[k]);
            let (i, j) = (d.first, d.second);
            if i == j {
                continue;
            }
            c[(i, i)] += w;
            c[(j, j)] += w;
            c[(i, j)] -= w;
            c[(j, i)] -= w;
        }
        c
    }

    /// The dense difference matrix D (t×n). For tests and small problems only: the fast paths use
    /// [`Duels::apply_d`], [`Duels::apply_dt`] and [`Duels::laplacian`].
    pub fn difference_matrix(&self) -> DMatrix<f64> {
        let mut d = DMatrix::zeros(self.len(), self.n);
        for (k, duel) in self.duels.iter().enumerate() {
            d[(k, duel.first)] += 1.0;
            d[(k, duel.second)] -= 1.0;
        }
        d
    }
}

impl<'a> IntoIterator for &'a Duels {
    type Item = &'a Duel;
    type IntoIter = std::slice::Iter<'a, Duel>;
    fn into_iter(self) -> Self::IntoIter {
        self.duels.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_operators_match_the_dense_difference_matrix() {
        let duels = Duels::from_duels(
            5,
            [(0, 3, true), (4, 1, false), (2, 2, true), (3, 0, false), (1, 4, true)]
                .map(|(i, j, w)| Duel::new(i, j, w)),
        )
        .unwrap();
        let d = duels.difference_matrix();
        // Row of the self-duel is zero.
        assert_eq!(d.row(2).iter().map(|v| v.abs()).sum::<f64>(), 0.0);
        let u = DVector::from_vec(vec![0.3, -1.2, 2.0, 0.7, 5.5]);
        let w = DVector::from_vec(vec![1.0, -2.0, 0.5, 3.0, 0.25]);
        assert_eq!(duels.apply_d(&u), &d * &u);
        assert_eq!(duels.apply_dt(&w), d.transpose() * &w);
        // Small integers and dyadic weights: the sums are exact.
        assert_eq!(duels.laplacian(Some(&w)), d.transpose() * DMatrix::from_diagonal(&w) * &d);
        assert_eq!(duels.laplacian(None), d.transpose() * &d);
        assert_eq!(duels.labels().as_slice(), &[1.0, 0.0, 1.0, 0.0, 1.0]);
        assert_eq!(duels.prefix(2).len(), 2);
    }

    #[test]
    fn indices_are_validated() {
        let mut d = Duels::new(3);
        assert!(matches!(d.push(Duel::new(3, 0, true)), Err(Error::IndexOutOfRange { index: 3, len: 3, .. })));
        assert!(matches!(d.push(Duel::new(0, 7, true)), Err(Error::IndexOutOfRange { index: 7, .. })));
        assert!(d.is_empty());
        d.push(Duel::new(1, 1, false)).unwrap();
        assert_eq!(d.len(), 1);
        assert!(Duels::from_duels(2, [Duel::new(0, 1, true), Duel::new(2, 0, true)]).is_err());
    }
}
