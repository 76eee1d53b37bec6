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
//! [`by_name`] builds any of them from a name (and a dimension for the scalable ones);
//! [`OnUnitCube`] and [`WithDomain`] re-parametrise or restrict the domain.

pub mod hartmann;
pub mod multi_fidelity;
pub mod scalable;
pub mod two_d;

pub use hartmann::{Hartmann3, Hartmann6};
pub use multi_fidelity::{Borehole, CurrinExp, Fidelity};
pub use scalable::{Ackley, Levy, Michalewicz, Rastrigin, Rosenbrock, StyblinskiTang};
pub use two_d::{
    Beale, Branin, Bukin6, CrossInTray, DropWave, EggHolder, HolderTable, Levy13, SixHumpCamel, ThreeHumpCamel,
};

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownOptimum {
    /// The optimisers, as published (rounded to the published digits where the source rounds).
    pub points: Vec<Vec<f64>>,
    /// The optimal value, as published.
    pub value: f64,
    /// Half a unit in the last published digit of `value` (0 when the value is exact): the true
    /// optimum lies within this distance of `value`.
    pub precision: f64,
    /// Where the figures come from.
    pub source: &'static str,
}

impl KnownOptimum {
    /// An exactly known optimum.
    pub fn exact(points: Vec<Vec<f64>>, value: f64, source: &'static str) -> Self {
        Self { points, value, precision: 0.0, source }
    }

    /// An optimum whose value is published with `decimals` digits after the decimal point.
    pub fn published(points: Vec<Vec<f64>>, value: f64, decimals: i32, source: &'static str) -> Self {
        Self { points, value, precision: 0.5 * 10f64.powi(-decimals), source }
    }

    fn into_max(self, sense: Sense) -> Self {
        Self { value: sense.to_max(self.value), ..self }
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
        self.inner
            .published_optimum()
            .map(|o| KnownOptimum { points: o.points.iter().map(|x| self.from_original(x)).collect(), ..o })
    }
}

/// A function on a different box than its standard one (e.g. Ackley on [−5, 5] as in MR-LPF and
/// PF-TS, or on [−1, 1]^4 as in COBOL). The known optimum is kept only if at least one published
/// optimiser lies in the new box (then the global optimum over the standard domain is attained in
/// the sub-box); the optimisers outside it are dropped. If the new box is not a sub-box of the
/// standard one, the optimum is not known and [`TestFunction::published_optimum`] returns `None`.
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
        let points: Vec<Vec<f64>> = o.points.iter().filter(|x| self.domain.contains(x)).cloned().collect();
        if points.is_empty() { None } else { Some(KnownOptimum { points, ..o }) }
    }
}

/// The canonical names accepted by [`by_name`]; those marked "(d)" need a dimension.
pub const NAMES: &[&str] = &[
    "ackley (d)",
    "branin",
    "hartmann3",
    "hartmann6",
    "levy (d)",
    "levy13",
    "rosenbrock (d)",
    "eggholder",
    "six_hump_camel",
    "bukin6",
    "holder_table",
    "cross_in_tray",
    "michalewicz (d)",
    "styblinski_tang (d)",
    "beale",
    "three_hump_camel",
    "rastrigin (d)",
    "drop_wave",
    "currin_exp",
    "currin_exp_low",
    "borehole",
    "borehole_low",
];

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

/// Builds a test function from its name. Matching ignores case, `_`, `-`, `.` and spaces, so
/// `"Holder_table"`, `"HolderTable"` and `"holder-table"` are the same; `"bukin"` is Bukin N.6,
/// `"levy_n13"` is Levy N.13, `"hartmann"` needs `dim` 3 or 6. The scalable functions need `dim`;
/// for the fixed-dimension ones `dim` may be omitted but must match if given. See [`NAMES`].
pub fn by_name(name: &str, dim: Option<usize>) -> Result<Box<dyn TestFunction>> {
    let key: String = name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    let need_dim = || dim.ok_or_else(|| Error::invalid("dim", format!("test function `{name}` needs a dimension")));
    let f: Box<dyn TestFunction> = match key.as_str() {
        "ackley" => Box::new(Ackley::new(need_dim()?)?),
        "levy" => Box::new(Levy::new(need_dim()?)?),
        "rosenbrock" => Box::new(Rosenbrock::new(need_dim()?)?),
        "michalewicz" => Box::new(Michalewicz::new(need_dim()?)?),
        "styblinskitang" => Box::new(StyblinskiTang::new(need_dim()?)?),
        "rastrigin" => Box::new(Rastrigin::new(need_dim()?)?),
        "branin" => Box::new(Branin),
        "hartmann3" => Box::new(Hartmann3),
        "hartmann6" => Box::new(Hartmann6),
        "hartmann" => match need_dim()? {
            3 => Box::new(Hartmann3),
            6 => Box::new(Hartmann6),
            d => return Err(Error::invalid("dim", format!("Hartmann is defined here for d = 3 or 6, got {d}"))),
        },
        "levy13" | "levyn13" => Box::new(Levy13),
        "eggholder" => Box::new(EggHolder),
        "sixhumpcamel" => Box::new(SixHumpCamel),
        "bukin" | "bukin6" | "bukinn6" => Box::new(Bukin6),
        "holdertable" => Box::new(HolderTable),
        "crossintray" => Box::new(CrossInTray),
        "beale" => Box::new(Beale),
        "threehumpcamel" => Box::new(ThreeHumpCamel),
        "dropwave" => Box::new(DropWave),
        "currinexp" | "currin" => Box::new(CurrinExp::new(Fidelity::High)),
        "currinexplow" | "currinlow" => Box::new(CurrinExp::new(Fidelity::Low)),
        "borehole" => Box::new(Borehole::new(Fidelity::High)),
        "boreholelow" => Box::new(Borehole::new(Fidelity::Low)),
        _ => {
            return Err(Error::invalid("name", format!("unknown test function `{name}`; known: {}", NAMES.join(", "))));
        }
    };
    if let Some(d) = dim
        && d != f.dim()
    {
        return Err(Error::dims(format!("dimension of test function `{name}`"), f.dim(), d));
    }
    Ok(f)
}

#[cfg(test)]
mod tests;
