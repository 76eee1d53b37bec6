//! Benchmark test functions in the **maximisation convention**, behind one trait.
//!
//! Each function is implemented in the form in which it is published (for most, the minimisation
//! form of BoTorch's `botorch/test_functions/synthetic.py` and of the SFU Virtual Library of
//! Simulation Experiments, Surjanovic & Bingham 2013; for CurrinExp and Borehole, the maximisation
//! form of the multi-fidelity literature) together with its [`Sense`]. The conversion to
//! maximisation happens in one place, [`Sense::to_max`], which [`TestFunction::eval`] and
//! [`TestFunction::optimum`] both go through: for a minimised function the value returned is
//! −f(x) and the known optimum is (arg min f, −min f).
//!
//! | group | functions |
//! |---|---|
//! | [`scalable`] (any d) | [`Ackley`], [`Levy`], [`Rosenbrock`], [`Michalewicz`], [`StyblinskiTang`], [`Rastrigin`] |
//! | [`two_d`] | [`Branin`], [`Levy13`], [`EggHolder`], [`SixHumpCamel`], [`Bukin6`], [`HolderTable`], [`CrossInTray`], [`Beale`], [`ThreeHumpCamel`], [`DropWave`] |
//! | [`hartmann`] | [`Hartmann3`], [`Hartmann6`] |
//! | [`multi_fidelity`] | [`CurrinExp`], [`Borehole`], each with a high and a low [`Fidelity`] |
//!
//! [`by_name`] builds any of them from a name (and a dimension for the scalable ones), from the one
//! table [`FUNCTIONS`] of names and constructors;
//! [`OnUnitCube`] and [`WithDomain`] re-parametrise or restrict the domain.
//!
//! # Known optima
//!
//! Every function has a [`KnownOptimum`] to double precision. Where no closed form exists, the
//! published optimiser and value (rounded to four to eight digits in the literature) were
//! **refined** offline with mpmath at 60 digits, by Newton's method on the exact (sympy) gradient
//! started from the published point, with a positive-definite Hessian at the result (for EggHolder,
//! whose minimiser is on the edge x₁ = 512, in x₂ alone); `scripts/refine_optima.py` reproduces every
//! refined figure, and each function's doc comment gives them: Hartmann-3 and -6, EggHolder,
//! Six-Hump Camel, Hölder Table and Cross-in-Tray (all four symmetric optimisers), Michalewicz (per
//! coordinate, i ≤ 10), Styblinski–Tang. The literature's figures are kept in
//! [`KnownOptimum::published`]. Four published optimisers are off by more than their printed
//! digits (Hartmann-3's x₁, EggHolder's x₂, Six-Hump Camel's x₂, Cross-in-Tray's coordinates),
//! although every published value is right to its printed digits.
//!
//! The tests check, for every function and dimension: (a) f(x*) equals the stored optimum to
//! 10⁻¹² max(1, |f*|) at every stored optimiser; (b) every stored optimiser satisfies the
//! first-order conditions of a maximum on the box, by finite differences of the Rust function
//! (gradient ≤ 10⁻⁸ max(1, |f*|) in unit-cube coordinates inside the box, gradient pointing out of
//! the box on a bound, e.g. EggHolder's outward derivative 3.385571337 at x₁ = 512), except at the
//! non-differentiable peaks of Ackley and Bukin N.6, and every published optimiser that differs
//! from the refined one fails that check; (c) the refined value lies within the published precision
//! of the published value, the published optimisers are the refined ones rounded (save the
//! documented errata), and f at the published optimisers gives the published value; (d) no point of
//! a dense grid (d ≤ 2) or of 10⁵ random points plus 2 000 around each optimiser beats the optimum
//! by more than 10⁻¹² max(1, |f*|).

pub mod hartmann;
pub mod multi_fidelity;
pub mod scalable;
pub(crate) mod table;
pub mod two_d;

pub use hartmann::{Hartmann3, Hartmann6};
pub use multi_fidelity::{Borehole, CurrinExp, Fidelity};
pub use scalable::{Ackley, Levy, Michalewicz, Rastrigin, Rosenbrock, StyblinskiTang};
pub use two_d::{
    Beale, Branin, Bukin6, CrossInTray, DropWave, EggHolder, HolderTable, Levy13, SixHumpCamel, ThreeHumpCamel,
};

pub use table::{Constructor, FUNCTIONS, FunctionEntry, SCALABLE_DEFAULT_DIM, by_name, entry, low_fidelity};

use bohf_core::{BoxDomain, Error, Result};
use serde::{Deserialize, Serialize};

/// Whether the published form of a function is minimised or maximised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sense {
    /// The published form f is minimised; bohf maximises −f.
    Minimise,
    /// The published form f is maximised as is.
    Maximise,
}

impl Sense {
    /// The maximisation-convention value of a published value: −v for [`Sense::Minimise`], v for
    /// [`Sense::Maximise`]. This is the one place where bohf's sign convention is applied to test
    /// functions.
    #[inline]
    pub fn to_max(self, published: f64) -> f64 {
        match self {
            Sense::Minimise => -published,
            Sense::Maximise => published,
        }
    }
}

/// A known global optimum.
///
/// Returned by [`TestFunction::published_optimum`] in the function's published sense (minimisers
/// and minimum of a minimised function), and by [`TestFunction::optimum`] in the maximisation
/// convention (maximisers and maximum).
///
/// `points` and `value` are always the most accurate figures bohf has: exact where the optimum has
/// a closed form, otherwise **refined** offline to 20 significant digits with mpmath (Newton's
/// method on the exact gradient from the published point; `scripts/refine_optima.py` reproduces
/// them) and rounded to double precision. Where the literature's rounded figures exist they are kept
/// in [`KnownOptimum::published`], so the two can be compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownOptimum {
    /// The optimisers, to double precision (exact or refined).
    pub points: Vec<Vec<f64>>,
    /// The optimal value, to double precision (exact or refined).
    pub value: f64,
    /// A bound on |`value` − true optimum|: 0 when `value` is exact, 16 ε |`value`| when refined
    /// (rounding the 20-digit figure, or a sum of at most ten tabulated ones, to double), and the
    /// documented accuracy of any other computed value.
    pub precision: f64,
    /// Where the figures come from and how they were obtained.
    pub source: &'static str,
    /// The figures as the literature prints them (rounded), if any.
    #[serde(default)]
    pub published: Option<PublishedFigures>,
}

/// An optimum as printed in the literature, rounded to the printed digits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishedFigures {
    /// The printed optimisers, in the order of [`KnownOptimum::points`] (the i-th is the rounded
    /// form of the i-th there); empty when the source prints none.
    pub points: Vec<Vec<f64>>,
    /// The printed optimal value.
    pub value: f64,
    /// Half a unit in the last printed digit of `value`.
    pub precision: f64,
}

impl KnownOptimum {
    /// An exactly known optimum (no published figures attached).
    pub fn exact(points: Vec<Vec<f64>>, value: f64, source: &'static str) -> Self {
        Self { points, value, precision: 0.0, source, published: None }
    }

    /// An optimum refined offline with mpmath to 20 significant digits (see the type's docs):
    /// `precision` is 16 ε |`value`|.
    pub fn refined(points: Vec<Vec<f64>>, value: f64, source: &'static str) -> Self {
        Self { points, value, precision: 16.0 * f64::EPSILON * value.abs(), source, published: None }
    }

    /// Attaches the literature's figures: `points` (parallel to [`KnownOptimum::points`], or empty)
    /// and `value`, printed with `decimals` digits after the decimal point.
    pub fn with_published(self, points: Vec<Vec<f64>>, value: f64, decimals: i32) -> Self {
        let published = PublishedFigures { points, value, precision: 0.5 * 10f64.powi(-decimals) };
        Self { published: Some(published), ..self }
    }

    fn into_max(self, sense: Sense) -> Self {
        Self {
            value: sense.to_max(self.value),
            published: self.published.map(|p| PublishedFigures { value: sense.to_max(p.value), ..p }),
            ..self
        }
    }
}

/// A benchmark function on a box, in bohf's maximisation convention.
///
/// Implementors give the published form ([`TestFunction::published`]) and its
/// [`TestFunction::sense`]; the provided methods [`TestFunction::eval`] (unchecked),
/// [`TestFunction::value`] (checked) and [`TestFunction::optimum`] apply the sign convention. As with
/// `bohf_kernels::Kernel`, `eval` trusts the caller about the dimension and `value` checks it.
pub trait TestFunction: std::fmt::Debug + Send + Sync {
    /// The canonical name, as accepted by [`by_name`].
    fn name(&self) -> &str;

    /// The input dimension d.
    fn dim(&self) -> usize;

    /// The standard domain (BoTorch's default bounds unless documented otherwise).
    fn domain(&self) -> BoxDomain;

    /// Whether [`TestFunction::published`] is minimised or maximised.
    fn sense(&self) -> Sense;

    /// The function in its published form, without checks (`x.len() == self.dim()` is the
    /// caller's promise).
    fn published(&self, x: &[f64]) -> f64;

    /// The known global optimum of the published form, if any.
    fn published_optimum(&self) -> Option<KnownOptimum>;

    /// The maximisation-convention value `sense.to_max(published(x))`, without checks.
    #[inline]
    fn eval(&self, x: &[f64]) -> f64 {
        self.sense().to_max(self.published(x))
    }

    /// The maximisation-convention value, checking that `x` has dimension d and is finite and that
    /// the value is finite. Points outside [`TestFunction::domain`] are allowed (many algorithms
    /// probe slightly outside); a formula that is undefined there gives [`Error::NonFinite`].
    fn value(&self, x: &[f64]) -> Result<f64> {
        if x.len() != self.dim() {
            return Err(Error::dims(format!("test function `{}` input", self.name()), self.dim(), x.len()));
        }
        bohf_core::error::ensure_finite(&format!("input of test function `{}`", self.name()), x)?;
        let v = self.eval(x);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(Error::NonFinite(format!("value of test function `{}` at {x:?}", self.name())))
        }
    }

    /// The known global optimum in the maximisation convention: the maximisers and the maximum.
    fn optimum(&self) -> Option<KnownOptimum> {
        self.published_optimum().map(|o| o.into_max(self.sense()))
    }
}

impl<F: TestFunction + ?Sized> TestFunction for Box<F> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn domain(&self) -> BoxDomain {
        (**self).domain()
    }
    fn sense(&self) -> Sense {
        (**self).sense()
    }
    fn published(&self, x: &[f64]) -> f64 {
        (**self).published(x)
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        (**self).published_optimum()
    }
}

impl<F: TestFunction + ?Sized> TestFunction for &F {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn domain(&self) -> BoxDomain {
        (**self).domain()
    }
    fn sense(&self) -> Sense {
        (**self).sense()
    }
    fn published(&self, x: &[f64]) -> f64 {
        (**self).published(x)
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        (**self).published_optimum()
    }
}

impl<F: TestFunction + ?Sized> TestFunction for std::sync::Arc<F> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn domain(&self) -> BoxDomain {
        (**self).domain()
    }
    fn sense(&self) -> Sense {
        (**self).sense()
    }
    fn published(&self, x: &[f64]) -> f64 {
        (**self).published(x)
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        (**self).published_optimum()
    }
}

/// Errors unless `d ≥ min`: the dimension check of the scalable functions.
pub(crate) fn check_dim_at_least(name: &str, d: usize, min: usize) -> Result<()> {
    if d >= min { Ok(()) } else { Err(Error::invalid("dim", format!("{name} needs dimension >= {min}, got {d}"))) }
}

/// A function re-parametrised on the unit cube: g(u) = f(ℓ + u ⊙ (h − ℓ)) for u ∈ [0, 1]^d, where
/// [ℓ, h] is the function's domain. The multi-fidelity code that COMP-GP-UCB follows (Kandasamy et
/// al.'s `mf-gp-ucb`) and qEUBO work on [0, 1]^d this way. Optimisers are mapped back by
/// u = (x − ℓ) ⊘ (h − ℓ); values are unchanged.
#[derive(Debug, Clone)]
pub struct OnUnitCube<F> {
    inner: F,
    lower: Vec<f64>,
    width: Vec<f64>,
}

impl<F: TestFunction> OnUnitCube<F> {
    /// Wraps `inner`, using its [`TestFunction::domain`].
    pub fn new(inner: F) -> Self {
        let dom = inner.domain();
        let lower = dom.lower().to_vec();
        let width = dom.upper().iter().zip(&lower).map(|(h, l)| h - l).collect();
        Self { inner, lower, width }
    }

    /// The wrapped function.
    pub fn inner(&self) -> &F {
        &self.inner
    }

    /// The point of the original domain that u ∈ [0, 1]^d stands for.
    pub fn to_original(&self, u: &[f64]) -> Vec<f64> {
        u.iter().zip(self.lower.iter().zip(&self.width)).map(|(u, (l, w))| l + u * w).collect()
    }

    /// The unit-cube coordinates of a point x of the original domain.
    pub fn from_original(&self, x: &[f64]) -> Vec<f64> {
        x.iter().zip(self.lower.iter().zip(&self.width)).map(|(x, (l, w))| (x - l) / w).collect()
    }
}

impl<F: TestFunction> TestFunction for OnUnitCube<F> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn domain(&self) -> BoxDomain {
        BoxDomain::cube(0.0, 1.0, self.inner.dim()).expect("d >= 1 and 0 < 1")
    }
    fn sense(&self) -> Sense {
        self.inner.sense()
    }
    fn published(&self, u: &[f64]) -> f64 {
        self.inner.published(&self.to_original(u))
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        let map = |pts: &[Vec<f64>]| pts.iter().map(|x| self.from_original(x)).collect();
        self.inner.published_optimum().map(|o| KnownOptimum {
            points: map(&o.points),
            published: o.published.as_ref().map(|p| PublishedFigures { points: map(&p.points), ..p.clone() }),
            ..o
        })
    }
}

/// A function on a different box than its standard one (e.g. Ackley on [−5, 5] as in MR-LPF and
/// PF-TS, or on [−1, 1]^4 as in COBOL). The known optimum is kept only if at least one published
/// optimiser lies in the new box (then the global optimum over the standard domain is attained in
/// the sub-box); the optimisers outside it are dropped. If the new box is not a sub-box of the
/// standard one, the optimum is not known and [`TestFunction::published_optimum`] returns `None`.
/// The published optimisers are filtered alongside the refined ones they round.
#[derive(Debug, Clone)]
pub struct WithDomain<F> {
    inner: F,
    domain: BoxDomain,
}

impl<F: TestFunction> WithDomain<F> {
    /// Puts `inner` on `domain`, which must have the function's dimension.
    pub fn new(inner: F, domain: BoxDomain) -> Result<Self> {
        if domain.dim() != inner.dim() {
            return Err(Error::dims(format!("domain of `{}`", inner.name()), inner.dim(), domain.dim()));
        }
        Ok(Self { inner, domain })
    }

    /// The wrapped function.
    pub fn inner(&self) -> &F {
        &self.inner
    }
}

impl<F: TestFunction> TestFunction for WithDomain<F> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn domain(&self) -> BoxDomain {
        self.domain.clone()
    }
    fn sense(&self) -> Sense {
        self.inner.sense()
    }
    fn published(&self, x: &[f64]) -> f64 {
        self.inner.published(x)
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        let std = self.inner.domain();
        let is_sub_box = self.domain.lower().iter().zip(std.lower()).all(|(a, b)| a >= b)
            && self.domain.upper().iter().zip(std.upper()).all(|(a, b)| a <= b);
        if !is_sub_box {
            return None;
        }
        let o = self.inner.published_optimum()?;
        let keep: Vec<bool> = o.points.iter().map(|x| self.domain.contains(x)).collect();
        if !keep.contains(&true) {
            return None;
        }
        let filter = |pts: &[Vec<f64>]| pts.iter().zip(&keep).filter(|(_, k)| **k).map(|(x, _)| x.clone()).collect();
        let points = filter(&o.points);
        // Published points are parallel to the refined ones (or absent): keep the same ones.
        let published = o.published.as_ref().map(|p| PublishedFigures {
            points: if p.points.len() == keep.len() { filter(&p.points) } else { Vec::new() },
            ..p.clone()
        });
        Some(KnownOptimum { points, published, ..o })
    }
}

/// A serialisable description of a test function, for experiment configs: a name as accepted by
/// [`by_name`] and, for the scalable functions, a dimension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionSpec {
    /// The function's name.
    pub name: String,
    /// The dimension (required for the scalable functions, optional otherwise).
    #[serde(default)]
    pub dim: Option<usize>,
}

impl FunctionSpec {
    /// Builds the function.
    pub fn build(&self) -> Result<Box<dyn TestFunction>> {
        by_name(&self.name, self.dim)
    }
}

#[cfg(test)]
mod tests;
