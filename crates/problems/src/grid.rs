//! Functions tabulated on a finite candidate set: the form in which the papers run their
//! experiments (MR-LPF and PF-TS on even grids, POP-BO's GP samples, data sets such as Yelp), and the
//! form that [`crate::rescale`] and the simulated [`crate::respondents`] work on.

use crate::functions::TestFunction;
use crate::rescale::Affine;
use bohf_core::{Error, FiniteDomain, Result};

/// A utility given by its values at the candidates of a [`FiniteDomain`] (value `i` belongs to
/// candidate `i`), in the maximisation convention.
#[derive(Debug, Clone, PartialEq)]
pub struct GridFunction {
    domain: FiniteDomain,
    values: Vec<f64>,
}

impl GridFunction {
    /// A function with the given values, one per candidate; all must be finite.
    pub fn new(domain: FiniteDomain, values: Vec<f64>) -> Result<Self> {
        if values.len() != domain.len() {
            return Err(Error::dims("grid function values (one per candidate)", domain.len(), values.len()));
        }
        bohf_core::error::ensure_finite("grid function values", values.iter())?;
        Ok(Self { domain, values })
    }

    /// Tabulates a test function (maximisation convention, checked values) on `domain`.
    pub fn tabulate<F: TestFunction + ?Sized>(f: &F, domain: &FiniteDomain) -> Result<Self> {
        let values = (0..domain.len()).map(|i| f.value(&domain.coords(i)?)).collect::<Result<Vec<_>>>()?;
        Self::new(domain.clone(), values)
    }

    /// The candidate set.
    pub fn domain(&self) -> &FiniteDomain {
        &self.domain
    }

    /// The values, one per candidate.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The value at candidate `i`.
    pub fn value_at(&self, i: usize) -> Result<f64> {
        self.domain.check_index(i)?;
        Ok(self.values[i])
    }

    /// The number of candidates.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Always false: a finite domain has at least one candidate.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The index of the largest value (the first one on ties): the grid maximiser x* that the
    /// papers' regret is measured against.
    pub fn argmax(&self) -> usize {
        (0..self.values.len()).fold(0, |best, i| if self.values[i] > self.values[best] { i } else { best })
    }

    /// The largest value.
    pub fn max(&self) -> f64 {
        self.values[self.argmax()]
    }

    /// The smallest value.
    pub fn min(&self) -> f64 {
        self.values.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The same function with every value mapped by `map` (see [`crate::rescale`]).
    pub fn rescaled(&self, map: &Affine) -> Self {
        Self { domain: self.domain.clone(), values: map.apply_all(&self.values) }
    }
}
