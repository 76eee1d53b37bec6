//! The problems of POP-BO's experiments (Xu et al., ICML 2024, §6 and App. P; notes 001 §5):
//!
//! | problem | paper | here |
//! |---|---|---|
//! | seven 2-D test functions, standardised over a 20×20 grid | §6.2, Table 2 | [`table2_problem`]; the rows and settings: `specs/popbo-table2.toml` |
//! | GP-sample instances (SE, variance 9, ℓ = 1, [0, 10]^d) | §6.1, Figs. 2, 4 | [`GpInstanceSpec::popbo`] |
//! | 7-D GP sample, ℓ = 5√7 | App. P.1, Fig. 5 | [`GpInstanceSpec::seven_d`] |
//! | 12-D GP sample | §6.3, Fig. 3 | [`GpInstanceSpec::twelve_d`] |
//! | 6-D Ackley | App. P.1, Fig. 6 | [`ackley6`] |
//! | thermal comfort, 2-D and 4-D | App. P.2, Figs. 7–8 | [`crate::thermal::ThermalComfort`], [`thermal_grid`] |
//!
//! # The 2-D test functions (Table 2)
//!
//! As in the authors' code (`util.py`, notes 001 §5.2 \[R\]): the function's box is shrunk by
//! 10⁻⁶ at each bound ([`BOUND_SHRINK`]); a 20×20 grid ([`GRID_PER_DIM`]) of linearly spaced points
//! per dimension (bounds included) is laid on the shrunk box; the maximisation-convention function is
//! standardised, y = (f(x) − mean_grid)/std_grid (population std); f* is the grid maximum of y.
//! Table 2's suboptimality f* − y(x̂) is in these **normalised units** ([`PopBoTestProblem::suboptimality`]).
//! The candidate set of bohf's grid-mode POP-BO is this grid.
//!
//! The authors' per-function settings (Matérn-5/2 ARD, variance 1, hard-coded lengthscales; B and
//! β₀ overrides; notes 001 §5.2 \[R\]) and the paper's values are in `specs/popbo-table2.toml`; the
//! paper (App. P) says B = 6 and β₀ = 1 for all and lengthscales fitted by likelihood
//! ([`PAPER_NORM_BOUND`], [`PAPER_BETA0`]).
//!
//! # GP-sample instances
//!
//! The ground truth is the minimum-norm interpolant of a GP draw at 10 uniform knots
//! ([`crate::rkhs::min_norm_interpolant`], the simplified form of notes 001 §5.2 \[E\]: y ~ N(0, K + εI),
//! f = k(·, X)(K + εI)⁻¹y, ε = 10⁻⁶), with the SE kernel σ² exp(−‖x − x′‖²/(2ℓ²)) (GPy's convention,
//! which the authors' code uses; the paper's App. L omits the ½). POP-BO sets B = 1.1‖f‖ with the
//! code's norm ‖f‖ = √(yᵀ(K + εI)⁻¹y) ([`GpInstance::norm_bound`]).
//! The paper gives variance 9 and ℓ = 1 (§6.1), ℓ = 5√7 in 7-D (eq. 103); for 12-D it gives
//! neither (notes 001 §5.5): bohf uses variance 9 and ℓ = 5√12 **by analogy with 7-D — a guess,
//! not from the paper**. f* is the maximum over the candidate set the experiment uses (the code:
//! 30 points in 1-D, 10^d in d ≥ 2); for continuous runs and large d, [`GpInstance::maximise`]
//! refines the best candidates by projected gradient ascent.

use crate::functions::{Ackley, TestFunction, WithDomain, by_name};
use crate::grid::GridFunction;
use crate::rescale::Rescaled;
use crate::rkhs::{RkhsFunction, min_norm_interpolant};
use bohf_core::{BoxDomain, Error, FiniteDomain, Result};
use bohf_kernels::{Kernel, Stationary};
use nalgebra::DMatrix;
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The shrink of each bound in the authors' code (`eps_bound`): [ℓ + 10⁻⁶, h − 10⁻⁶].
pub const BOUND_SHRINK: f64 = 1e-6;

/// Points per dimension of the test functions' normalisation grid (20×20 = 400 in 2-D).
pub const GRID_PER_DIM: usize = 20;

/// The paper's norm bound B for the test functions (App. P).
pub const PAPER_NORM_BOUND: f64 = 6.0;

/// The paper's β₀ in β_t = β₀√t (App. P).
pub const PAPER_BETA0: f64 = 1.0;

/// [ℓ + ε, h − ε] in every dimension; errors if a side is not longer than 2ε.
pub fn shrink_box(domain: &BoxDomain, eps: f64) -> Result<BoxDomain> {
    if !(eps.is_finite() && eps >= 0.0) {
        return Err(Error::invalid("eps", format!("must be finite and ≥ 0, got {eps}")));
    }
    BoxDomain::new(domain.lower().iter().map(|l| l + eps).collect(), domain.upper().iter().map(|h| h - eps).collect())
}

/// A test function standardised over a grid on its (shrunk) box, as POP-BO's experiments use it.
#[derive(Debug, Clone)]
pub struct PopBoTestProblem {
    function: Rescaled<WithDomain<Arc<dyn TestFunction>>>,
    utility: GridFunction,
}

impl PopBoTestProblem {
    /// `function` on its standard box shrunk by `shrink`, standardised over a `per_dim`^d grid there.
    pub fn new(function: Arc<dyn TestFunction>, shrink: f64, per_dim: usize) -> Result<Self> {
        let domain = shrink_box(&function.domain(), shrink)?;
        let grid = domain.grid(per_dim)?;
        let on_box = WithDomain::new(function, domain)?;
        let function = Rescaled::standardised_on(on_box, &grid)?;
        let utility = GridFunction::tabulate(&function, &grid)?;
        Ok(Self { function, utility })
    }

    /// The standardised function y(x) = (f(x) − mean)/std on the shrunk box.
    pub fn function(&self) -> &Rescaled<WithDomain<Arc<dyn TestFunction>>> {
        &self.function
    }

    /// y tabulated on the grid (the candidate set of grid-mode POP-BO).
    pub fn utility(&self) -> &GridFunction {
        &self.utility
    }

    /// The grid.
    pub fn grid(&self) -> &FiniteDomain {
        self.utility.domain()
    }

    /// f* = the grid maximum of y.
    pub fn f_star(&self) -> f64 {
        self.utility.max()
    }

    /// Table 2's suboptimality f* − y(x) of a point x (need not be on the grid), normalised units.
    pub fn suboptimality(&self, x: &[f64]) -> Result<f64> {
        Ok(self.f_star() - self.function.value(x)?)
    }
}

/// A 2-D test function by name ([`crate::by_name`] names, e.g. `"bukin6"`) as the authors' code
/// prepares Table 2's: box shrunk by [`BOUND_SHRINK`], standardised over the 20×20 grid. Which
/// functions, and POP-BO's settings for each, are the spec's (`specs/popbo-table2.toml`).
pub fn table2_problem(name: &str) -> Result<PopBoTestProblem> {
    let f = by_name(name, Some(2))?;
    if f.dim() != 2 {
        return Err(Error::invalid("name", format!("`{name}` is not a 2-D function")));
    }
    PopBoTestProblem::new(Arc::from(f), BOUND_SHRINK, GRID_PER_DIM)
}

/// 6-D Ackley as POP-BO (following qEUBO, Astudillo et al. 2023) uses it: −A on [−2, 2]^6, the box
/// of qEUBO's `ackley_runner.py` (x = 4u − 2 for u ∈ [0, 1]^6; the POP-BO paper does not state it).
/// Maximum 0 at 0.
pub fn ackley6() -> Result<WithDomain<Ackley>> {
    WithDomain::new(Ackley::new(6)?, BoxDomain::cube(-2.0, 2.0, 6)?)
}

/// A thermal-comfort problem (or any test function) tabulated on a `per_dim`^d grid of its box and
/// standardised there, like the test functions of Table 2 (the paper does not say how it scaled
/// −PPD; standardising puts it on the scale of the other problems).
pub fn thermal_grid<F: TestFunction>(f: F, per_dim: usize) -> Result<GridFunction> {
    let grid = f.domain().grid(per_dim)?;
    let g = GridFunction::tabulate(&f, &grid)?;
    crate::presets::Scaling::Standardise.apply(&g)
}

/// How a GP-sample instance is drawn (POP-BO §6.1, App. P).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GpInstanceSpec {
    /// Input dimension d.
    pub dim: usize,
    /// SE variance σ² (paper: 9).
    pub variance: f64,
    /// SE lengthscale ℓ, GPy convention exp(−r²/(2ℓ²)) (paper: 1; 5√7 in 7-D).
    pub lengthscale: f64,
    /// Lower end of the cube (paper's code: 0).
    pub lower: f64,
    /// Upper end of the cube (paper's code: 10).
    pub upper: f64,
    /// Number of knots (code: 10).
    pub knots: usize,
    /// ε of K + εI (code: 10⁻⁶).
    pub jitter: f64,
    /// B = `norm_factor`·‖f‖ (paper: 1.1).
    pub norm_factor: f64,
}

impl Default for GpInstanceSpec {
    fn default() -> Self {
        Self::popbo(2)
    }
}

impl GpInstanceSpec {
    /// §6.1: SE with variance 9 and ℓ = 1 on [0, 10]^d, 10 knots, ε = 10⁻⁶, B = 1.1‖f‖.
    pub fn popbo(dim: usize) -> Self {
        Self {
            dim,
            variance: 9.0,
            lengthscale: 1.0,
            lower: 0.0,
            upper: 10.0,
            knots: 10,
            jitter: 1e-6,
            norm_factor: 1.1,
        }
    }

    /// App. P.1, Fig. 5: d = 7, ℓ = 5√7.
    pub fn seven_d() -> Self {
        Self { lengthscale: 5.0 * 7f64.sqrt(), ..Self::popbo(7) }
    }

    /// §6.3, Fig. 3: d = 12 with ℓ = 5√12 — the paper gives no kernel for 12-D; this is the 7-D
    /// rule carried over (a guess, see the module documentation).
    pub fn twelve_d() -> Self {
        Self { lengthscale: 5.0 * 12f64.sqrt(), ..Self::popbo(12) }
    }

    /// Errors naming the first invalid field.
    pub fn validate(&self) -> Result<()> {
        if self.dim == 0 {
            return Err(Error::invalid("dim", "must be ≥ 1"));
        }
        bohf_core::error::ensure_positive("variance", self.variance)?;
        bohf_core::error::ensure_positive("lengthscale", self.lengthscale)?;
        if !(self.lower.is_finite() && self.upper.is_finite() && self.lower < self.upper) {
            return Err(Error::invalid(
                "upper",
                format!("need finite lower < upper, got [{}, {}]", self.lower, self.upper),
            ));
        }
        if self.knots == 0 {
            return Err(Error::invalid("knots", "must be ≥ 1"));
        }
        bohf_core::error::ensure_positive("jitter", self.jitter)?;
        bohf_core::error::ensure_positive("norm_factor", self.norm_factor)
    }

    /// The kernel σ² exp(−‖x − x′‖²/(2ℓ²)).
    pub fn kernel(&self) -> Result<Stationary> {
        Stationary::se(self.lengthscale)?.with_variance(self.variance)
    }

    /// The box [lower, upper]^d.
    pub fn domain(&self) -> Result<BoxDomain> {
        BoxDomain::cube(self.lower, self.upper, self.dim)
    }

    /// Draws one instance (all randomness from `rng`).
    pub fn sample(&self, rng: &mut (impl Rng + ?Sized)) -> Result<GpInstance> {
        self.validate()?;
        let f = min_norm_interpolant(self.kernel()?, self.domain()?, self.knots, self.jitter, rng)?;
        let code_norm = f.knot_values().dot(f.weights()).max(0.0).sqrt();
        Ok(GpInstance { function: f, code_norm, norm_factor: self.norm_factor })
    }
}

/// One GP-sample ground truth f = k(·, X)(K + εI)⁻¹y.
#[derive(Debug, Clone)]
pub struct GpInstance {
    function: RkhsFunction<Stationary>,
    code_norm: f64,
    norm_factor: f64,
}

impl GpInstance {
    /// The function.
    pub fn function(&self) -> &RkhsFunction<Stationary> {
        &self.function
    }

    /// The authors' norm ‖f‖ = √(yᵀ(K + εI)⁻¹y) (slightly above the RKHS norm √(wᵀKw), by ε‖w‖²).
    pub fn code_norm(&self) -> f64 {
        self.code_norm
    }

    /// POP-BO's B = 1.1‖f‖ (with the code's norm).
    pub fn norm_bound(&self) -> f64 {
        self.norm_factor * self.code_norm
    }

    /// f on a candidate set.
    pub fn on_grid(&self, grid: &FiniteDomain) -> Result<GridFunction> {
        self.function.on_grid(grid)
    }

    /// ∇f(x) = Σᵢ wᵢ k(x, xᵢ) (xᵢ − x)/ℓ² for the SE kernel (unchecked dimension).
    pub fn gradient(&self, x: &[f64]) -> Vec<f64> {
        let knots = self.function.knots();
        let w = self.function.weights();
        let kernel = self.function.kernel();
        let l2: Vec<f64> = kernel.lengthscales().iter().map(|l| l * l).collect();
        let l2 = |j: usize| if l2.len() == 1 { l2[0] } else { l2[j] };
        let mut g = vec![0.0; x.len()];
        for i in 0..knots.nrows() {
            let c: Vec<f64> = knots.row(i).iter().copied().collect();
            let k = kernel.eval(x, &c);
            for j in 0..x.len() {
                g[j] += w[i] * k * (c[j] - x[j]) / l2(j);
            }
        }
        g
    }

    /// An estimate of max f over the box: the best of `candidates` (e.g. the experiment's grid or
    /// random points) and the knots, each of the `starts` best refined by projected gradient ascent
    /// with backtracking (≤ 200 steps). Returns (x*, f*). A lower bound on the true maximum.
    pub fn maximise(&self, candidates: &FiniteDomain, starts: usize) -> Result<(Vec<f64>, f64)> {
        let f = &self.function;
        let dom = f.domain();
        let d = dom.dim();
        if candidates.dim() != d {
            return Err(Error::dims("candidates for GP-instance maximisation", d, candidates.dim()));
        }
        let mut pts: Vec<Vec<f64>> = (0..candidates.len()).map(|i| candidates.coords(i)).collect::<Result<_>>()?;
        pts.extend((0..f.knots().nrows()).map(|i| f.knots().row(i).iter().copied().collect::<Vec<f64>>()));
        let m = DMatrix::from_fn(pts.len(), d, |i, j| pts[i][j]);
        let vals = f.values(&m)?;
        let mut order: Vec<usize> = (0..pts.len()).collect();
        order.sort_by(|&a, &b| vals[b].total_cmp(&vals[a]));
        let project = |x: &mut [f64]| {
            for (j, v) in x.iter_mut().enumerate() {
                *v = v.clamp(dom.lower()[j], dom.upper()[j]);
            }
        };
        let mut best = (pts[order[0]].clone(), vals[order[0]]);
        for &s in order.iter().take(starts.max(1)) {
            let mut x = pts[s].clone();
            project(&mut x);
            let mut fx = f.value(&x)?;
            let mut step = 1.0;
            for _ in 0..200 {
                let g = self.gradient(&x);
                let gn = g.iter().map(|v| v * v).sum::<f64>().sqrt();
                if gn < 1e-12 {
                    break;
                }
                let mut improved = false;
                while step > 1e-12 {
                    let mut y: Vec<f64> = x.iter().zip(&g).map(|(a, b)| a + step * b).collect();
                    project(&mut y);
                    let fy = f.value(&y)?;
                    if fy > fx {
                        x = y;
                        fx = fy;
                        improved = true;
                        step *= 2.0;
                        break;
                    }
                    step *= 0.5;
                }
                if !improved {
                    break;
                }
            }
            if fx > best.1 {
                best = (x, fx);
            }
        }
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bohf_core::rng::seeded;

    #[test]
    fn table2_grid_is_the_shrunk_20x20_grid_and_standardised() {
        let p = table2_problem("branin").unwrap();
        let g = p.grid();
        assert_eq!(g.len(), 400);
        // numpy.linspace(-5 + 1e-6, 10 - 1e-6, 20) and (0 + 1e-6, 15 - 1e-6, 20), meshgrid 'ij':
        // last coordinate fastest.
        let step0 = (15.0 - 2e-6) / 19.0;
        assert!((g.coords(0).unwrap()[0] - (-5.0 + 1e-6)).abs() < 1e-15);
        assert!((g.coords(0).unwrap()[1] - 1e-6).abs() < 1e-15);
        assert!((g.coords(20).unwrap()[0] - (-5.0 + 1e-6 + step0)).abs() < 1e-13);
        assert!((g.coords(399).unwrap()[1] - (15.0 - 1e-6)).abs() < 1e-13);
        // Independent standardisation: raw −Branin at the grid points, population moments.
        let raw: Vec<f64> = (0..400)
            .map(|i| {
                let x = g.coords(i).unwrap();
                let (b, c) = (5.1 / (4.0 * std::f64::consts::PI.powi(2)), 5.0 / std::f64::consts::PI);
                -((x[1] - b * x[0] * x[0] + c * x[0] - 6.0).powi(2)
                    + 10.0 * (1.0 - 1.0 / (8.0 * std::f64::consts::PI)) * x[0].cos()
                    + 10.0)
            })
            .collect();
        let mean = raw.iter().sum::<f64>() / 400.0;
        let sd = (raw.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 400.0).sqrt();
        for (i, r) in raw.iter().enumerate() {
            // Values of order 100 divided by sd ≈ 50: a few ulps.
            assert!((p.utility().values()[i] - (r - mean) / sd).abs() < 1e-12);
        }
        assert!((p.f_star() - (raw.iter().cloned().fold(f64::MIN, f64::max) - mean) / sd).abs() < 1e-12);
        // The grid argmax has suboptimality 0; a worse point has positive suboptimality.
        let best = g.coords(p.utility().argmax()).unwrap();
        assert!(p.suboptimality(&best).unwrap().abs() < 1e-12);
        assert!(p.suboptimality(&g.coords(0).unwrap()).unwrap() > 0.1);
    }

    #[test]
    fn all_seven_build_standardised_inside_the_box() {
        for name in ["beale", "branin", "bukin6", "cross_in_tray", "eggholder", "holder_table", "levy13"] {
            let p = table2_problem(name).unwrap();
            assert_eq!(p.function().name(), name);
            let v = p.utility().values();
            let mean = v.iter().sum::<f64>() / 400.0;
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 400.0;
            // 400 standardised values: rounding in the sums stays below 1e−12.
            assert!(mean.abs() < 1e-12 && (var - 1.0).abs() < 1e-12, "{name}");
            // Grid points lie strictly inside the standard box.
            let std_box = by_name(name, None).unwrap().domain();
            let c = p.grid().coords(0).unwrap();
            assert!(c[0] > std_box.lower()[0] && c[1] > std_box.lower()[1]);
        }
        assert!(table2_problem("no-such-function").is_err());
    }

    #[test]
    fn known_optimum_of_beale_is_above_the_grid_maximum() {
        // Beale's maximiser (3, 0.5) is inside the shrunk box, but not a grid point: the true
        // standardised maximum exceeds f* on the grid.
        let p = table2_problem("beale").unwrap();
        let o = p.function().optimum().unwrap();
        assert!(o.value >= p.f_star());
        assert!((p.function().value(&[3.0, 0.5]).unwrap() - o.value).abs() < 1e-12);
        // Eggholder's maximiser sits on x₁ = 512, outside the shrunk box: no known optimum.
        assert!(table2_problem("eggholder").unwrap().function().optimum().is_none());
    }

    #[test]
    fn gp_instances_follow_the_spec() {
        let spec = GpInstanceSpec::popbo(2);
        let a = spec.sample(&mut seeded(1)).unwrap();
        let b = spec.sample(&mut seeded(1)).unwrap();
        assert_eq!(a.function().knot_values(), b.function().knot_values());
        // B = 1.1 √(yᵀw), computed here from the knots and weights.
        let y = a.function().knot_values();
        let w = a.function().weights();
        assert!((a.norm_bound() - 1.1 * y.dot(w).sqrt()).abs() < 1e-12);
        assert_eq!(a.function().kernel().variance(), 9.0);
        assert_eq!(GpInstanceSpec::seven_d().lengthscale, 5.0 * 7f64.sqrt());
        assert_eq!(GpInstanceSpec::twelve_d().dim, 12);
        assert!(GpInstanceSpec { jitter: 0.0, ..GpInstanceSpec::popbo(1) }.validate().is_err());
        assert!(GpInstanceSpec { dim: 0, ..GpInstanceSpec::popbo(1) }.validate().is_err());
        assert!(GpInstanceSpec { lower: 1.0, upper: 1.0, ..GpInstanceSpec::popbo(1) }.validate().is_err());
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let inst = GpInstanceSpec::seven_d().sample(&mut seeded(5)).unwrap();
        let f = inst.function();
        let x = vec![3.0, 4.0, 5.0, 6.0, 2.0, 7.5, 1.0];
        let g = inst.gradient(&x);
        let h = 1e-5;
        for j in 0..7 {
            let (mut a, mut b) = (x.clone(), x.clone());
            a[j] += h;
            b[j] -= h;
            let fd = (f.value(&a).unwrap() - f.value(&b).unwrap()) / (2.0 * h);
            // Central differences: O(h²)·f''' ≈ 1e−10·|f|/ℓ³ plus rounding ε|f|/h ≈ 1e−10.
            assert!((fd - g[j]).abs() < 1e-7 * (1.0 + g[j].abs()), "{j}: {fd} vs {}", g[j]);
        }
    }

    #[test]
    fn maximise_agrees_with_a_dense_grid() {
        // 2-D, ℓ = 1 on [0, 10]²: a 201² grid has spacing 0.05, so its maximum is within
        // ~½·|f''|·0.05² ≈ 9·0.0025/2 of the true maximum; the refined maximum must beat the grid
        // and be within that of it.
        for seed in 0..3 {
            let inst = GpInstanceSpec::popbo(2).sample(&mut seeded(seed)).unwrap();
            let coarse = inst.function().domain().grid(11).unwrap();
            let (x, v) = inst.maximise(&coarse, 10).unwrap();
            let dense = inst.on_grid(&inst.function().domain().grid(201).unwrap()).unwrap();
            assert!(v >= dense.max() - 1e-9, "seed {seed}: {v} < {}", dense.max());
            assert!(v - dense.max() < 0.02, "seed {seed}: {v} vs {}", dense.max());
            assert!((inst.function().value(&x).unwrap() - v).abs() < 1e-12);
        }
    }

    #[test]
    fn ackley6_and_thermal_grid() {
        let a = ackley6().unwrap();
        assert_eq!(a.dim(), 6);
        assert_eq!(a.optimum().unwrap().value, 0.0);
        // 20 + e − 20 − e: one rounding of order ε·20.
        assert!(a.value(&[0.0; 6]).unwrap().abs() < 1e-14);
        // −A at (1, …, 1): ‖x‖/√d = 1 and cos 2π = 1, so A = −20e^{−0.2} − e + 20 + e.
        let want = -(20.0 - 20.0 * (-0.2f64).exp());
        assert!((a.value(&[1.0; 6]).unwrap() - want).abs() < 1e-12);
        let g = thermal_grid(crate::thermal::ThermalComfort::popbo_2d(), 20).unwrap();
        assert_eq!(g.len(), 400);
        let mean = g.values().iter().sum::<f64>() / 400.0;
        assert!(mean.abs() < 1e-12);
    }
}
