//! The dueling posterior covariance of MR-LPF eq. (10) / PF-TS eq. (9), in utility space.

use super::duels::Duels;
use crate::gram::check_base_gram;
use crate::regression::symmetrise;
use crate::sampler::JointSampler;
use bohf_core::linalg::{Cholesky, JitterPolicy, PsdFactor, PsdMethod, condition_on_observation};
use bohf_core::{Duel, Error, Result, argmax_lowest_symmetric_pairs};
use bohf_kernels::IndexPair;
use nalgebra::{DMatrix, DVector};

/// The experiments' regulariser of the dueling posterior: ρ = λ = 0.05 (the authors' code; MR-LPF
/// §2.3). Theory uses ρ = λκ (MR-LPF eq. (10), PF-TS eq. (9)).
pub const EXPERIMENT_RHO: f64 = 0.05;

/// The posterior of the dueling GP on a finite candidate set, kept in utility space.
///
/// MR-LPF eq. (10) / PF-TS eq. (9) define, for pairs z = (x, x′) and the t queried pairs,
///
/// ```text
/// σ_t²(z) = k_D(z, z) − k_D,t(z)ᵀ (K^D_t + ρ I)⁻¹ k_D,t(z).
/// ```
///
/// With D the t×n difference matrix of the queried pairs and K the base Gram of the candidates,
/// this is the dueling kernel of the utility-space posterior covariance (PF-TS §2.6)
///
/// ```text
/// Ŝ = K − K Dᵀ (D K Dᵀ + ρ I)⁻¹ D K,      σ_t²(i, j) = Ŝ_ii + Ŝ_jj − (Ŝ_ij + Ŝ_ji),
/// ```
///
/// i.e. the GP posterior of f ~ N(0, K) given noisy differences f_i − f_j with noise variance ρ.
/// Ŝ depends on the pairs only, never on the labels. Ŝ is symmetric in exact arithmetic, but
/// rank-one updates leave it asymmetric by an ulp; the form Ŝ_ij + Ŝ_ji (floating-point `+`
/// commutes) makes σ_t(i, j) = σ_t(j, i) bit for bit, so a maximum over ordered pairs and a test
/// "for all x′" see one value per unordered pair. This is the one σ of bohf: every algorithm reads
/// it from here ([`DuelingPosterior::std_dev`], or [`crate::PreferenceModel::sigma`]).
///
/// **From scratch** ([`DuelingPosterior::new`]): Dᵀ(DKDᵀ + ρI)⁻¹D = (CK + ρI)⁻¹C depends on
/// C = DᵀD only, so with any factor C = F Fᵀ (pivoted Cholesky, F n×r, r ≤ n − 1):
/// Ŝ = K − K F (Fᵀ K F + ρ I)⁻¹ Fᵀ K, computed as K − VᵀV with V = L⁻¹ Fᵀ K and
/// L Lᵀ = FᵀKF + ρI (eigenvalues ≥ ρ, so no jitter is needed even when K itself is numerically
/// singular, e.g. SE with ℓ = 0.1 on a 100-point grid; K is never factorised). Cost O(t + n³).
///
/// **Incrementally** ([`DuelingPosterior::add_duel`]): one more pair (i, j) is the rank-one update
/// Ŝ ← Ŝ − s sᵀ/(ρ + σ_t²(i, j)), s = Ŝ(e_i − e_j), in O(n²).
#[derive(Debug, Clone, PartialEq)]
pub struct DuelingPosterior {
    rho: f64,
    cov: DMatrix<f64>,
    len: usize,
    jitter: f64,
}

impl DuelingPosterior {
    /// The prior (no duels): Ŝ = K. `rho` > 0 is the noise of later duels.
    pub fn prior(base_gram: &DMatrix<f64>, rho: f64) -> Result<Self> {
        bohf_core::error::ensure_positive("rho", rho)?;
        check_base_gram(base_gram, "dueling posterior base Gram")?;
        Ok(Self { rho, cov: base_gram.clone(), len: 0, jitter: 0.0 })
    }

    /// The posterior after the pairs of `duels` (labels are ignored), computed from scratch.
    pub fn new(base_gram: &DMatrix<f64>, duels: &Duels, rho: f64) -> Result<Self> {
        if duels.n_candidates() != base_gram.nrows() {
            return Err(Error::dims(
                "dueling posterior: base Gram size vs number of candidates",
                duels.n_candidates(),
                base_gram.nrows(),
            ));
        }
        let mut post = Self::prior(base_gram, rho)?;
        post.condition_batch(&duels.laplacian(None), duels.len())?;
        Ok(post)
    }

    /// The posterior after the given candidate-index pairs, computed from scratch.
    pub fn from_pairs(base_gram: &DMatrix<f64>, pairs: &[IndexPair], rho: f64) -> Result<Self> {
        let mut duels = Duels::new(base_gram.nrows());
        for &(i, j) in pairs {
            duels.push(Duel::new(i, j, true))?;
        }
        Self::new(base_gram, &duels, rho)
    }

    fn condition_batch(&mut self, c: &DMatrix<f64>, len: usize) -> Result<()> {
        self.len = len;
        if c.iter().all(|&v| v == 0.0) {
            return Ok(());
        }
        let f = PsdFactor::with_method(c, PsdMethod::PivotedCholesky, None)?;
        let f = f.factor();
        if f.ncols() == 0 {
            return Ok(());
        }
        let kf = &self.cov * f;
        let mut a = f.transpose() * &kf;
        symmetrise(&mut a);
        for i in 0..a.nrows() {
            a[(i, i)] += self.rho;
        }
        let chol = Cholesky::with_jitter(&a, JitterPolicy::default())?;
        self.jitter = chol.jitter();
        let v = chol.solve_lower(&kf.transpose())?;
        self.cov -= v.transpose() * &v;
        symmetrise(&mut self.cov);
        Ok(())
    }

    /// Conditions on one more pair (i, j) in O(n²) (core's [`condition_on_observation`] with
    /// direction e_i − e_j and noise ρ). Returns σ_t²(i, j) before the update, the variance that
    /// max-variance selection and information gain use. A self-pair (i, i) changes nothing.
    pub fn add_duel(&mut self, i: usize, j: usize) -> Result<f64> {
        let n = self.dim();
        for index in [i, j] {
            if index >= n {
                return Err(Error::IndexOutOfRange { context: "dueling posterior pair".into(), index, len: n });
            }
        }
        let prior_var =
            if i == j { 0.0 } else { condition_on_observation(&mut self.cov, &[(i, 1.0), (j, -1.0)], self.rho)? };
        self.len += 1;
        Ok(prior_var)
    }

    /// The utility-space posterior covariance Ŝ (n×n).
    pub fn covariance(&self) -> &DMatrix<f64> {
        &self.cov
    }

    /// σ_t²(i, j) = Ŝ_ii + Ŝ_jj − (Ŝ_ij + Ŝ_ji) (MR-LPF eq. (10), PF-TS eq. (9), symmetric bit for
    /// bit), 0 on the diagonal, clamped at 0 against rounding.
    pub fn variance(&self, i: usize, j: usize) -> Result<f64> {
        let n = self.dim();
        for index in [i, j] {
            if index >= n {
                return Err(Error::IndexOutOfRange { context: "dueling posterior pair".into(), index, len: n });
            }
        }
        Ok(self.pair_variance(i, j))
    }

    /// σ_t(i, j).
    pub fn std_dev(&self, i: usize, j: usize) -> Result<f64> {
        Ok(self.variance(i, j)?.sqrt())
    }

    /// σ_t²(i, j) on all n² ordered pairs, in O(n²) (zero diagonal, symmetric).
    pub fn variance_matrix(&self) -> DMatrix<f64> {
        DMatrix::from_fn(self.dim(), self.dim(), |i, j| self.pair_variance(i, j))
    }

    /// The pair of maximum posterior variance within a subset M = `active` of the candidates:
    /// argmax over the |M|² ordered pairs (active\[p\], active\[q\]) of σ_t²(active\[p\], active\[q\])
    /// (the values of [`DuelingPosterior::variance`] bit for bit), the lowest row-major position
    /// p·|M| + q among the pairs tying within the relative tolerance of [`bohf_core::argmax_lowest`]
    /// ([`bohf_core::argmax_lowest_symmetric_pairs`]: σ is symmetric bit for bit and 0 on the
    /// diagonal). Returns the pair of candidate indices and its σ². One fused O(|M|²) scan (no |M|×|M|
    /// table), in tiles that keep Ŝ_ij and Ŝ_ji in cache. Errors on an empty subset, an index ≥ n or
    /// a NaN variance.
    pub fn max_variance_within(&self, active: &[usize]) -> Result<(IndexPair, f64)> {
        let n = self.dim();
        if let Some(&bad) = active.iter().find(|&&i| i >= n) {
            return Err(Error::IndexOutOfRange { context: "dueling posterior subset".into(), index: bad, len: n });
        }
        let ((p, q), v) =
            argmax_lowest_symmetric_pairs("posterior variances of the pairs in the subset", active.len(), |p, q| {
                self.pair_variance(active[p], active[q])
            })?;
        Ok(((active[p], active[q]), v))
    }

    /// σ_t(i, j) on all n² ordered pairs, in O(n²).
    pub fn std_dev_matrix(&self) -> DMatrix<f64> {
        DMatrix::from_fn(self.dim(), self.dim(), |i, j| self.pair_variance(i, j).sqrt())
    }

    /// A sampler of joint utility draws f̃ ~ N(g, v² Ŝ) on the candidates (PF-TS §2.6): with g = g_t
    /// from the kernel logistic fit, f̃(x) − f̃(x′) has the law of h̃_t(x, x′) ~ GP(h_t, v² k_D,t), and
    /// argmax f̃ is PF-TS's anchor-free argmax (Proposition 1). Use [`JointSampler::transform`] to
    /// pass given standard-normal draws.
    pub fn sampler(&self, utility: &DVector<f64>) -> Result<JointSampler> {
        if utility.len() != self.dim() {
            return Err(Error::dims("utility mean of the dueling posterior sampler", self.dim(), utility.len()));
        }
        JointSampler::new(utility.clone(), &self.cov)
    }

    /// The regulariser ρ.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The number of candidates n.
    pub fn dim(&self) -> usize {
        self.cov.nrows()
    }

    /// The number of duels conditioned on (including self-duels).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if no duel has been conditioned on.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The jitter the from-scratch factorisation of FᵀKF + ρI needed (0 unless ρ is tiny).
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// σ_t²(i, j) without the index check, for scans over many pairs (indices must be < n).
    #[inline]
    pub(crate) fn pair_variance(&self, i: usize, j: usize) -> f64 {
        if i == j {
            return 0.0;
        }
        (self.cov[(i, i)] + self.cov[(j, j)] - (self.cov[(i, j)] + self.cov[(j, i)])).max(0.0)
    }
}
