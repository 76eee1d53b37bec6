//! Kernels on pairs z = (x, x′) of points.
//!
//! * The **dueling kernel** (MR-LPF eq. (4), PF-TS eq. (4), from Pásztor et al. 2024 Prop. 4)
//!   k_D((x,x′),(u,u′)) = k(x,u) + k(x′,u′) − k(x,u′) − k(x′,u) = ⟨φ(x)−φ(x′), φ(u)−φ(u′)⟩,
//!   the kernel of preference functions h(x,x′) = f(x) − f(x′), with ‖h‖_{k_D} = ‖f‖_k.
//! * POP-BO's **additive pair kernel** k((x,x′),(u,u′)) = k(x,u) + k(x′,u′).
//!
//! On a finite candidate set, a pair is a pair of candidate indices and every Gram matrix over pairs
//! is assembled from the one base Gram K of the candidates, in O(1) per entry.

use crate::Kernel;
use bohf_core::{Error, Result};
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// A pair of candidate indices (x, x′).
pub type IndexPair = (usize, usize);

/// Which kernel on pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PairKernel {
    /// k_D((x,x′),(u,u′)) = k(x,u) + k(x′,u′) − k(x,u′) − k(x′,u) (MR-LPF eq. (4)).
    Dueling,
    /// k(x,u) + k(x′,u′) (POP-BO's kernel on pairs).
    Additive,
}

impl PairKernel {
    /// The pair-kernel value from base-kernel values.
    #[inline]
    pub fn combine(self, k_xu: f64, k_xpup: f64, k_xup: f64, k_xpu: f64) -> f64 {
        match self {
            PairKernel::Dueling => k_xu + k_xpup - k_xup - k_xpu,
            PairKernel::Additive => k_xu + k_xpup,
        }
    }

    /// The value for candidate-index pairs, read from the base Gram `base`.
    #[inline]
    pub fn from_base(self, base: &DMatrix<f64>, (x, xp): IndexPair, (u, up): IndexPair) -> f64 {
        self.combine(base[(x, u)], base[(xp, up)], base[(x, up)], base[(xp, u)])
    }

    /// The Gram matrix G_ij = k(left_i, right_j) over candidate-index pairs, from the base Gram.
    pub fn gram(self, base: &DMatrix<f64>, left: &[IndexPair], right: &[IndexPair]) -> Result<DMatrix<f64>> {
        check_pairs(base, left, "left pairs")?;
        check_pairs(base, right, "right pairs")?;
        Ok(DMatrix::from_fn(left.len(), right.len(), |i, j| self.from_base(base, left[i], right[j])))
    }

    /// The value at coordinates, from any base kernel.
    pub fn value<K: Kernel + ?Sized>(self, k: &K, (x, xp): (&[f64], &[f64]), (u, up): (&[f64], &[f64])) -> Result<f64> {
        Ok(self.combine(k.value(x, u)?, k.value(xp, up)?, k.value(x, up)?, k.value(xp, u)?))
    }
}

/// Dueling Gram over candidate-index pairs, from the base Gram of the candidates (MR-LPF eq. (4)).
pub fn dueling_gram(base: &DMatrix<f64>, left: &[IndexPair], right: &[IndexPair]) -> Result<DMatrix<f64>> {
    PairKernel::Dueling.gram(base, left, right)
}

/// POP-BO's additive pair Gram k(x,u) + k(x′,u′) over candidate-index pairs.
pub fn additive_pair_gram(base: &DMatrix<f64>, left: &[IndexPair], right: &[IndexPair]) -> Result<DMatrix<f64>> {
    PairKernel::Additive.gram(base, left, right)
}

/// k_D((x,x′),(u,u′)) at coordinates (MR-LPF eq. (4)).
pub fn dueling_value<K: Kernel + ?Sized>(k: &K, z1: (&[f64], &[f64]), z2: (&[f64], &[f64])) -> Result<f64> {
    PairKernel::Dueling.value(k, z1, z2)
}

fn check_pairs(base: &DMatrix<f64>, pairs: &[IndexPair], what: &str) -> Result<()> {
    let n = base.nrows();
    if base.ncols() != n {
        return Err(Error::dims("base Gram (square matrix)", n, base.ncols()));
    }
    for &(a, b) in pairs {
        for idx in [a, b] {
            if idx >= n {
                return Err(Error::IndexOutOfRange { context: format!("pair Gram {what}"), index: idx, len: n });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stationary;

    #[test]
    fn gram_from_base_matches_coordinates() {
        let k = Stationary::matern52(0.3).unwrap();
        let x = DMatrix::from_fn(5, 2, |i, j| (i as f64 * 0.37 + j as f64 * 0.11).sin());
        let base = k.gram(&x).unwrap();
        let pairs = [(0, 1), (2, 2), (4, 3), (1, 0)];
        let row = |i: usize| x.row(i).iter().copied().collect::<Vec<_>>();
        for pk in [PairKernel::Dueling, PairKernel::Additive] {
            let g = pk.gram(&base, &pairs, &pairs).unwrap();
            for (i, &(a, b)) in pairs.iter().enumerate() {
                for (j, &(c, d)) in pairs.iter().enumerate() {
                    let v = pk.value(&k, (&row(a), &row(b)), (&row(c), &row(d))).unwrap();
                    assert!((g[(i, j)] - v).abs() < 1e-14);
                }
            }
        }
        assert!(matches!(dueling_gram(&base, &[(0, 5)], &pairs), Err(Error::IndexOutOfRange { index: 5, .. })));
    }
}
