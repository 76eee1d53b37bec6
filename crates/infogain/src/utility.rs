//! The posterior covariance of the utility on the candidate set, conditioned one observation at a time.
//!
//! Every observation of a point or pair is a linear functional dᵀu of a Gaussian vector u with prior
//! covariance Σ₀, observed with noise ρ, so the posterior after each observation is the O(m²) rank-one
//! update of [`condition_on_observation`], and the posterior variance of any point or pair is dᵀΣd:
//!
//! * points: u = f (the candidates' utilities), Σ₀ = K, d = e_i, σ²(i) = Σ_ii;
//! * dueling pairs (MR-LPF eq. (4)): u = f, Σ₀ = K, d = e_i − e_j, σ²(i,j) = Σ_ii + Σ_jj − 2Σ_ij, because
//!   k_D((x,x′),(u,u′)) = cov(f(x) − f(x′), f(u) − f(u′)) when f ~ GP(0, k);
//! * additive pairs (POP-BO): u = (f, f′) with f, f′ independent GP(0, k), Σ₀ = diag(K, K),
//!   d = e_i + e_{n+j}, σ²(i,j) = Σ_ii + Σ_{n+j,n+j} + 2Σ_{i,n+j}, because
//!   k(x,u) + k(x′,u′) = cov(f(x) + f′(x′), f(u) + f′(u′)).
//!
//! This is the utility-space form of PF-TS §2.6 / MR-LPF §2.5: the n²×n² pair Gram is never formed.

use bohf_core::linalg::condition_on_observation;
use bohf_core::{ArgmaxLowest, Result, argmax_lowest_by, argmax_lowest_symmetric_pairs};
use bohf_kernels::{IndexPair, PairKernel};
use nalgebra::DMatrix;

/// The posterior covariance of the utility vector u given the observations so far.
#[derive(Debug, Clone)]
pub(crate) struct UtilityPosterior {
    cov: DMatrix<f64>,
    /// Number of candidates n.
    n: usize,
    kernel: Option<PairKernel>,
}

impl UtilityPosterior {
    /// The prior: `kernel` is `None` for point observations, `Some` for pairs. `base` must already be
    /// validated (square, finite, symmetric within tolerance); it is symmetrised exactly here.
    pub(crate) fn new(base: &DMatrix<f64>, kernel: Option<PairKernel>) -> Self {
        let n = base.nrows();
        let sym = (base + base.transpose()) * 0.5;
        let cov = match kernel {
            None | Some(PairKernel::Dueling) => sym,
            Some(PairKernel::Additive) => {
                let mut c = DMatrix::zeros(2 * n, 2 * n);
                c.view_mut((0, 0), (n, n)).copy_from(&sym);
                c.view_mut((n, n), (n, n)).copy_from(&sym);
                c
            }
        };
        Self { cov, n, kernel }
    }

    /// The largest prior variance, the scale for round-off tolerances.
    pub(crate) fn scale(&self) -> f64 {
        let d = self.cov.diagonal().iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        match self.kernel {
            // σ²(i,j) ≤ (√Σ_ii + √Σ_jj)² ≤ 4 max Σ_ii.
            Some(_) => 4.0 * d,
            None => d,
        }
    }

    /// The smallest posterior variance of a single utility value, min_i Σ_ii.
    pub(crate) fn min_diagonal(&self) -> f64 {
        self.cov.diagonal().iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The observation direction d of a pair.
    fn pair_direction(&self, (i, j): IndexPair) -> [(usize, f64); 2] {
        match self.kernel {
            Some(PairKernel::Additive) => [(i, 1.0), (self.n + j, 1.0)],
            _ => [(i, 1.0), (j, -1.0)],
        }
    }

    /// Conditions on a noisy observation of f(x_i); returns its prior variance σ²(i).
    pub(crate) fn observe_point(&mut self, i: usize, noise: f64) -> Result<f64> {
        condition_on_observation(&mut self.cov, &[(i, 1.0)], noise)
    }

    /// Conditions on a noisy observation of the pair functional; returns its prior variance σ²(i,j).
    pub(crate) fn observe_pair(&mut self, pair: IndexPair, noise: f64) -> Result<f64> {
        let d = self.pair_direction(pair);
        condition_on_observation(&mut self.cov, &d, noise)
    }

    /// argmax_i σ²(i), lowest index among ties within the relative tolerance of
    /// [`bohf_core::argmax_lowest`]; a NaN variance is an error.
    pub(crate) fn argmax_point(&self) -> Result<(usize, f64)> {
        argmax_lowest_by("posterior variances of the points", (0..self.n).map(|i| (i, self.cov[(i, i)])))
    }

    /// argmax over all n² ordered pairs (i, j) of σ²(i,j); among ties (within the relative tolerance
    /// of [`bohf_core::argmax_lowest`]) the lowest linear index i·n + j. For the dueling kernel σ² is
    /// symmetric with a zero diagonal: [`argmax_lowest_symmetric_pairs`] on the upper triangle. For
    /// the additive kernel the values are computed column by column (contiguous in Ŝ) into one
    /// buffer, each column fed to one [`ArgmaxLowest`] as a run keyed i·n + j (first key j, stride n).
    pub(crate) fn argmax_pair(&self) -> Result<(IndexPair, f64)> {
        const WHAT: &str = "posterior variances of the pairs";
        let n = self.n;
        let diag: Vec<f64> = self.cov.diagonal().iter().copied().collect();
        if self.kernel != Some(PairKernel::Additive) {
            let cov = &self.cov;
            return argmax_lowest_symmetric_pairs(WHAT, n, |i, j| diag[i] + diag[j] - 2.0 * cov[(i, j)]);
        }
        let (first, second) = diag.split_at(n);
        let mut column = vec![0.0; n];
        let mut best = ArgmaxLowest::default();
        for (j, &djj) in second.iter().enumerate() {
            let col = self.cov.column(n + j);
            for ((out, &dii), &c) in column.iter_mut().zip(first).zip(&col.as_slice()[..n]) {
                *out = dii + djj + 2.0 * c;
            }
            best.push_run(j, n, &column);
        }
        let (l, v) = best.finish(WHAT)?;
        Ok(((l / n, l % n), v))
    }
}
