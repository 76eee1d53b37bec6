//! Functions of known RKHS structure: kernel-ridge means through knots (MR-LPF, PF-TS), POP-BO's
//! minimum-norm interpolants of GP draws, and joint GP-prior draws on a candidate set.
//!
//! * [`RkhsFunction`]: f(x) = k(x, X)(K + αI)⁻¹y, the kernel-ridge / GP posterior mean through knots
//!   X with values y and ridge α (computed by `bohf_gp::GpRegression`). It lies in the RKHS of k with
//!   ‖f‖²_k = wᵀKw, w = (K + αI)⁻¹y ([`RkhsFunction::rkhs_norm`]).
//!   - MR-LPF §5.1(a) ([`RkhsFunction::mr_lpf`]): knots linspace(0, 1, 10), fixed values
//!     [−0.5, 0, 0.5, 1, 0.7, 0.2, 0.2, 0.5, 0.95, 0.7] (Kayal et al.'s early code; the paper says
//!     "random values"), α = 0.05, ℓ = 0.1, kernel SE, Matérn-5/2 or Matérn-3/2; evaluated on
//!     linspace(0, 1, 100), with h = f(x) − f(x′) scaled ×5 for the preferences.
//!   - PF-TS §5.4 ([`RkhsFunction::pf_ts`]): "sampled from an RKHS with Matérn-5/2 kernel (similar to
//!     the process used by Kayal et al.)"; the exact function is not given (notes 003 §5.4, §7). bohf
//!     uses the MR-LPF construction with Matérn-5/2, ℓ = 0.1, α = 0.05, on 30 even points of [0, 1].
//! * [`min_norm_interpolant`]: POP-BO App. P, in the simplified form of notes 001 §5.2 (tagged \[E\]): knots
//!   uniform in the box, y ~ N(0, K + εI), f = k(·, X)(K + εI)⁻¹y; POP-BO sets B = 1.1‖f‖.
//! * [`GpPriorSampler`] / [`gp_sample`]: a joint draw f ~ N(0, K) of a GP prior on the candidates of a
//!   [`FiniteDomain`] (pivoted-Cholesky factor of the possibly singular Gram, `PsdFactor`).

use crate::functions::{KnownOptimum, Sense, TestFunction};
use crate::grid::GridFunction;
use bohf_core::linalg::PsdFactor;
use bohf_core::{BoxDomain, Error, FiniteDomain, Result};
use bohf_gp::GpRegression;
use bohf_kernels::{Kernel, KernelKind, Stationary};
use nalgebra::{DMatrix, DVector};
use rand::Rng;

/// f(x) = k(x, X)(K + αI)⁻¹y on a box: the kernel-ridge regression mean through knots X (rows)
/// with values y and ridge α > 0, in the maximisation convention (no known optimum).
#[derive(Debug, Clone)]
pub struct RkhsFunction<K: Kernel> {
    gp: GpRegression<K>,
    domain: BoxDomain,
}

impl<K: Kernel> RkhsFunction<K> {
    /// Fits f through `knots` (n×d) with `values` (n) and ridge `ridge` = α > 0, on `domain`.
    pub fn fit(kernel: K, knots: &DMatrix<f64>, values: &DVector<f64>, ridge: f64, domain: BoxDomain) -> Result<Self> {
        if domain.dim() != knots.ncols() {
            return Err(Error::dims("RKHS function domain vs knot dimension", knots.ncols(), domain.dim()));
        }
        if knots.nrows() == 0 {
            return Err(Error::Empty("RKHS function knots".into()));
        }
        let gp = GpRegression::fit(kernel, knots, values, ridge)?;
        Ok(Self { gp, domain })
    }

    /// f at each row of `xs` (m×d).
    pub fn values(&self, xs: &DMatrix<f64>) -> Result<DVector<f64>> {
        self.gp.mean(xs)
    }

    /// f tabulated on the candidates of `grid`.
    pub fn on_grid(&self, grid: &FiniteDomain) -> Result<GridFunction> {
        GridFunction::new(grid.clone(), self.values(grid.points())?.iter().copied().collect())
    }

    /// The knots X (n×d).
    pub fn knots(&self) -> &DMatrix<f64> {
        self.gp.inputs()
    }

    /// The knot values y.
    pub fn knot_values(&self) -> &DVector<f64> {
        self.gp.targets()
    }

    /// The representer weights w = (K + αI)⁻¹y, so that f = Σᵢ wᵢ k(·, xᵢ).
    pub fn weights(&self) -> &DVector<f64> {
        self.gp.weights()
    }

    /// The ridge α.
    pub fn ridge(&self) -> f64 {
        self.gp.noise()
    }

    /// The kernel.
    pub fn kernel(&self) -> &K {
        self.gp.kernel()
    }

    /// The underlying regression (for its jitter, variance, …).
    pub fn regression(&self) -> &GpRegression<K> {
        &self.gp
    }

    /// The RKHS norm ‖f‖_k = √(wᵀ K w) of f = Σᵢ wᵢ k(·, xᵢ) (the B of the papers' assumptions when f
    /// is the test function). POP-BO's code uses √(yᵀw) = √(wᵀ(K + εI)w), slightly larger.
    pub fn rkhs_norm(&self) -> Result<f64> {
        let k = self.kernel().gram(self.knots())?;
        let w = self.weights();
        Ok(w.dot(&(k * w)).max(0.0).sqrt())
    }
}

impl RkhsFunction<Stationary> {
    /// The knot values of MR-LPF §5.1(a) (Kayal et al.'s early code).
    pub const MR_LPF_KNOT_VALUES: [f64; 10] = [-0.5, 0.0, 0.5, 1.0, 0.7, 0.2, 0.2, 0.5, 0.95, 0.7];
    /// The ridge α of MR-LPF §5.1(a).
    pub const MR_LPF_RIDGE: f64 = 0.05;
    /// The lengthscale ℓ of MR-LPF §5.1(a).
    pub const MR_LPF_LENGTHSCALE: f64 = 0.1;

    /// MR-LPF's RKHS test function for one kernel family (SE, Matérn-5/2 or Matérn-3/2 in the
    /// paper): knots linspace(0, 1, 10) with [`Self::MR_LPF_KNOT_VALUES`], unit-variance kernel with
    /// ℓ = 0.1, α = 0.05, on [0, 1].
    pub fn mr_lpf(family: KernelKind) -> Result<Self> {
        let knots = FiniteDomain::linspace(0.0, 1.0, 10)?;
        let kernel = Stationary::new(family, Self::MR_LPF_LENGTHSCALE)?;
        let y = DVector::from_row_slice(&Self::MR_LPF_KNOT_VALUES);
        Self::fit(kernel, knots.points(), &y, Self::MR_LPF_RIDGE, BoxDomain::cube(0.0, 1.0, 1)?)
    }

    /// PF-TS's RKHS test function (§5.4): the MR-LPF construction with Matérn-5/2 (see the module
    /// documentation for why); the paper evaluates it on 30 even points of [0, 1].
    pub fn pf_ts() -> Result<Self> {
        Self::mr_lpf(KernelKind::Matern52)
    }
}

impl<K: Kernel> TestFunction for RkhsFunction<K> {
    fn name(&self) -> &str {
        "rkhs"
    }
    fn dim(&self) -> usize {
        self.knots().ncols()
    }
    fn domain(&self) -> BoxDomain {
        self.domain.clone()
    }
    fn sense(&self) -> Sense {
        Sense::Maximise
    }
    /// f(x) through `GpRegression::mean`; NaN if the point is rejected (reported by `value`).
    fn published(&self, x: &[f64]) -> f64 {
        let xm = DMatrix::from_row_slice(1, x.len(), x);
        self.gp.mean(&xm).map(|v| v[0]).unwrap_or(f64::NAN)
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        None
    }
}

/// POP-BO's GP-sample ground truth (App. P; simplified form of notes 001 §5.2 (tagged \[E\])): `n_knots` knots
/// uniform in `domain`, values y ~ N(0, K + εI) with ε = `jitter` > 0, and the minimum-norm
/// interpolant f = k(·, X)(K + εI)⁻¹y (POP-BO: SE with variance 9, ℓ = 1, [0, 10]^d, 10 knots,
/// ε = 10⁻⁶, B = 1.1‖f‖). All randomness comes from `rng`.
pub fn min_norm_interpolant<K: Kernel>(
    kernel: K,
    domain: BoxDomain,
    n_knots: usize,
    jitter: f64,
    rng: &mut (impl Rng + ?Sized),
) -> Result<RkhsFunction<K>> {
    bohf_core::error::ensure_positive("jitter", jitter)?;
    if n_knots == 0 {
        return Err(Error::invalid("n_knots", "need at least one knot"));
    }
    let knots = domain.sample_candidates(n_knots, rng)?;
    let mut cov = kernel.gram(knots.points())?;
    for i in 0..n_knots {
        cov[(i, i)] += jitter;
    }
    let y = PsdFactor::new(&cov)?.sample(&DVector::zeros(n_knots), rng)?;
    RkhsFunction::fit(kernel, knots.points(), &y, jitter, domain)
}

/// Joint draws f ~ N(0, K) of a zero-mean GP prior on the candidates of a finite domain, K the
/// kernel's Gram matrix there. The Gram is factorised once (pivoted Cholesky, so a singular K, e.g.
/// from a long lengthscale on a fine grid, is fine and gets no jitter).
#[derive(Debug, Clone)]
pub struct GpPriorSampler {
    domain: FiniteDomain,
    factor: PsdFactor,
}

impl GpPriorSampler {
    /// Factorises the Gram matrix of `kernel` on `domain`.
    pub fn new<K: Kernel + ?Sized>(kernel: &K, domain: &FiniteDomain) -> Result<Self> {
        let gram = kernel.gram(domain.points())?;
        Ok(Self { domain: domain.clone(), factor: PsdFactor::new(&gram)? })
    }

    /// One joint draw, as a function on the domain.
    pub fn sample(&self, rng: &mut (impl Rng + ?Sized)) -> Result<GridFunction> {
        let f = self.factor.sample(&DVector::zeros(self.domain.len()), rng)?;
        GridFunction::new(self.domain.clone(), f.iter().copied().collect())
    }

    /// The factor F with F Fᵀ = K.
    pub fn factor(&self) -> &PsdFactor {
        &self.factor
    }
}

/// One joint draw of a zero-mean GP prior with `kernel` on `domain` (see [`GpPriorSampler`]).
pub fn gp_sample<K: Kernel + ?Sized>(
    kernel: &K,
    domain: &FiniteDomain,
    rng: &mut (impl Rng + ?Sized),
) -> Result<GridFunction> {
    GpPriorSampler::new(kernel, domain)?.sample(rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bohf_core::rng::seeded;

    /// The kernels of MR-LPF App. A written out independently of bohf-kernels (unit variance).
    fn profile(family: KernelKind, r: f64, l: f64) -> f64 {
        let s = r / l;
        match family {
            KernelKind::Se => (-0.5 * s * s).exp(),
            KernelKind::Matern32 => (1.0 + 3f64.sqrt() * s) * (-(3f64.sqrt()) * s).exp(),
            KernelKind::Matern52 => (1.0 + 5f64.sqrt() * s + 5.0 * s * s / 3.0) * (-(5f64.sqrt()) * s).exp(),
            KernelKind::Matern12 => (-s).exp(),
            other => panic!("no reference profile for {other:?} (the tests use SE and the Matérn kinds)"),
        }
    }

    #[test]
    fn a_non_stationary_kind_is_a_clear_error() {
        let e = RkhsFunction::mr_lpf(KernelKind::Linear).unwrap_err().to_string();
        assert!(e.contains("kind") && e.contains("linear") && e.contains("not stationary"), "{e}");
    }

    /// w = (K + αI)⁻¹y by LU, the explicit formula, on 1-D knots.
    fn explicit_weights(family: KernelKind, knots: &[f64], y: &[f64], l: f64, alpha: f64) -> DVector<f64> {
        let n = knots.len();
        let a = DMatrix::from_fn(n, n, |i, j| {
            profile(family, (knots[i] - knots[j]).abs(), l) + if i == j { alpha } else { 0.0 }
        });
        a.lu().solve(&DVector::from_row_slice(y)).expect("K + αI is nonsingular")
    }

    #[test]
    fn mr_lpf_function_equals_the_explicit_ridge_formula() {
        let knots: Vec<f64> = (0..10).map(|i| i as f64 / 9.0).collect();
        let y = RkhsFunction::MR_LPF_KNOT_VALUES;
        for family in [KernelKind::Se, KernelKind::Matern52, KernelKind::Matern32] {
            let f = RkhsFunction::mr_lpf(family).unwrap();
            let w = explicit_weights(family, &knots, &y, 0.1, 0.05);
            let grid = FiniteDomain::linspace(0.0, 1.0, 100).unwrap();
            let got = f.on_grid(&grid).unwrap();
            for (i, &v) in got.values().iter().enumerate() {
                let x = grid.coords(i).unwrap()[0];
                let want: f64 = (0..10).map(|j| profile(family, (x - knots[j]).abs(), 0.1) * w[j]).sum();
                // K + 0.05 I has condition number ≤ (10 + 0.05)/0.05 ≈ 200, so two different solves
                // agree to ~200 ε‖y‖ ≈ 5e−14; 1e−11 leaves room for the kernel evaluations.
                assert!((v - want).abs() < 1e-11, "{family:?} at x = {x}: {v} vs {want}");
                // The scalar path (TestFunction) agrees with the batch path.
                assert!((f.value(&[x]).unwrap() - v).abs() < 1e-14);
            }
            assert_eq!(f.regression().jitter(), 0.0, "the ridge makes K + αI well conditioned");
        }
    }

    #[test]
    fn residual_at_the_knots_is_the_ridge_residual() {
        // y − f(X) = y − K w = (K + αI)w − K w = α w exactly: the function interpolates the knots
        // up to the ridge term, not exactly.
        for family in [KernelKind::Se, KernelKind::Matern52, KernelKind::Matern32] {
            let f = RkhsFunction::mr_lpf(family).unwrap();
            let fx = f.values(f.knots()).unwrap();
            let y = f.knot_values();
            let w = f.weights();
            for i in 0..10 {
                assert!((y[i] - fx[i] - 0.05 * w[i]).abs() < 1e-13, "{family:?} knot {i}");
            }
            // Approximate interpolation: r = α(K + αI)⁻¹y shrinks y along every eigenvector (by
            // α/(λ + α) ≤ 1), so 0 < ‖r‖ < ‖y‖.
            let r = (y - &fx).norm();
            assert!(r > 0.0 && r < y.norm(), "{family:?}: ‖r‖ = {r}, ‖y‖ = {}", y.norm());
        }
    }

    #[test]
    fn rkhs_norm_matches_the_explicit_quadratic_form() {
        let knots: Vec<f64> = (0..10).map(|i| i as f64 / 9.0).collect();
        let f = RkhsFunction::pf_ts().unwrap();
        let w = explicit_weights(KernelKind::Matern52, &knots, &RkhsFunction::MR_LPF_KNOT_VALUES, 0.1, 0.05);
        let k = DMatrix::from_fn(10, 10, |i, j| profile(KernelKind::Matern52, (knots[i] - knots[j]).abs(), 0.1));
        let want = w.dot(&(&k * &w)).sqrt();
        assert!((f.rkhs_norm().unwrap() - want).abs() < 1e-11 * want);
        // PF-TS's 30-point grid.
        let g = f.on_grid(&FiniteDomain::linspace(0.0, 1.0, 30).unwrap()).unwrap();
        assert_eq!(g.len(), 30);
    }

    #[test]
    fn min_norm_interpolant_interpolates_and_is_reproducible() {
        let kernel = Stationary::se(1.0).unwrap().with_variance(9.0).unwrap();
        let domain = BoxDomain::cube(0.0, 10.0, 2).unwrap();
        let f = min_norm_interpolant(kernel.clone(), domain.clone(), 10, 1e-6, &mut seeded(3)).unwrap();
        let g = min_norm_interpolant(kernel.clone(), domain.clone(), 10, 1e-6, &mut seeded(3)).unwrap();
        let h = min_norm_interpolant(kernel, domain, 10, 1e-6, &mut seeded(4)).unwrap();
        assert_eq!(f.knots(), g.knots());
        assert_eq!(f.knot_values(), g.knot_values());
        assert_ne!(f.knot_values(), h.knot_values());
        // Residual ε wᵢ at the knots (exact identity), so |yᵢ − f(xᵢ)| ≤ ε ‖w‖∞.
        let fx = f.values(f.knots()).unwrap();
        let bound = 1e-6 * f.weights().amax();
        for i in 0..10 {
            assert!((f.knot_values()[i] - fx[i]).abs() <= bound * (1.0 + 1e-6) + 1e-12);
        }
        // POP-BO's norm √(yᵀw) exceeds the RKHS norm by the ε‖w‖² term only.
        let popbo = f.knot_values().dot(f.weights()).sqrt();
        let norm = f.rkhs_norm().unwrap();
        assert!(
            popbo >= norm && popbo * popbo - norm * norm <= 1e-6 * f.weights().norm_squared() * (1.0 + 1e-6) + 1e-9
        );
    }

    #[test]
    fn gp_prior_draws_have_the_kernel_covariance() {
        let domain = FiniteDomain::linspace(0.0, 1.0, 5).unwrap();
        let kernel = Stationary::matern52(0.4).unwrap().with_variance(2.0).unwrap();
        let sampler = GpPriorSampler::new(&kernel, &domain).unwrap();
        let k = kernel.gram(domain.points()).unwrap();
        let mut rng = seeded(99);
        let n = 20_000;
        let draws: Vec<GridFunction> = (0..n).map(|_| sampler.sample(&mut rng).unwrap()).collect();
        for i in 0..5 {
            let mean = draws.iter().map(|d| d.values()[i]).sum::<f64>() / n as f64;
            // Standard error of the mean: √(K_ii/n) ≈ 0.01; allow 5 s.e.
            assert!(mean.abs() < 5.0 * (k[(i, i)] / n as f64).sqrt(), "mean {i}: {mean}");
            for j in 0..5 {
                let c = draws.iter().map(|d| d.values()[i] * d.values()[j]).sum::<f64>() / n as f64;
                // Var of a product of jointly Gaussian zero-mean entries: K_ii K_jj + K_ij²; 5 s.e.
                let se = ((k[(i, i)] * k[(j, j)] + k[(i, j)].powi(2)) / n as f64).sqrt();
                assert!((c - k[(i, j)]).abs() < 5.0 * se, "cov ({i},{j}): {c} vs {}", k[(i, j)]);
            }
        }
        // Reproducible from the seed, different across seeds.
        let a = gp_sample(&kernel, &domain, &mut seeded(1)).unwrap();
        let b = gp_sample(&kernel, &domain, &mut seeded(1)).unwrap();
        let c = gp_sample(&kernel, &domain, &mut seeded(2)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn singular_gram_is_sampled_without_jitter() {
        // Lengthscale 100 on 50 points of [0, 1]: numerically rank-deficient Gram.
        let domain = FiniteDomain::linspace(0.0, 1.0, 50).unwrap();
        let kernel = Stationary::se(100.0).unwrap();
        let s = GpPriorSampler::new(&kernel, &domain).unwrap();
        assert!(s.factor().rank() < 50);
        let f = s.sample(&mut seeded(5)).unwrap();
        // A draw from a nearly constant kernel is nearly constant.
        assert!(f.max() - f.min() < 1e-2 * f.values()[0].abs().max(1.0));
    }

    #[test]
    fn bad_inputs_are_errors() {
        let k = Stationary::se(0.1).unwrap();
        let knots = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
        let y = DVector::from_row_slice(&[0.0, 1.0]);
        let dom = BoxDomain::cube(0.0, 1.0, 1).unwrap();
        assert!(RkhsFunction::fit(k.clone(), &knots, &y, 0.0, dom.clone()).is_err());
        assert!(RkhsFunction::fit(k.clone(), &knots, &y, 0.05, BoxDomain::cube(0.0, 1.0, 2).unwrap()).is_err());
        assert!(RkhsFunction::fit(k.clone(), &knots, &DVector::from_row_slice(&[1.0]), 0.05, dom.clone()).is_err());
        let f = RkhsFunction::fit(k.clone(), &knots, &y, 0.05, dom.clone()).unwrap();
        assert!(matches!(f.value(&[0.1, 0.2]), Err(Error::DimensionMismatch { .. })));
        assert!(min_norm_interpolant(k, dom, 0, 1e-6, &mut seeded(0)).is_err());
    }
}
