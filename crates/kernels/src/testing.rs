//! Fixtures shared by the tests of the crates above (compiled in every build but hidden from the docs: a
//! `test-support` feature made the tests' build of every crate above differ from the main job's,
//! so `cargo test --release` rebuilt them all). Helpers here may panic: they serve tests, where a panic is the failure report.

use crate::{IndexPair, dueling_gram};
use nalgebra::DMatrix;

/// σ_t²(z) = k_D(z, z) − k_D,t(z)ᵀ (K^D_t + ρI)⁻¹ k_D,t(z) (MR-LPF eq. (10), PF-TS eq. (9))
/// directly in pair space, by an LU solve of the t×t dueling Gram of the queried pairs `data`:
/// a reference independent of the utility-space posterior of bohf-gp. Not clamped at 0.
pub fn pair_space_variance(base: &DMatrix<f64>, data: &[IndexPair], z: IndexPair, rho: f64) -> f64 {
    let kzz = dueling_gram(base, &[z], &[z]).expect("pair within the Gram")[(0, 0)];
    if data.is_empty() {
        return kzz;
    }
    let mut kd = dueling_gram(base, data, data).expect("pairs within the Gram");
    for i in 0..data.len() {
        kd[(i, i)] += rho;
    }
    let kz = dueling_gram(base, data, &[z]).expect("pairs within the Gram");
    let sol = kd.lu().solve(&kz).expect("K^D + ρI is invertible for ρ > 0");
    kzz - (kz.transpose() * sol)[(0, 0)]
}
