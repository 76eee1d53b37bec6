//! Affine rescaling of utilities, as the papers' experiments apply it over a finite grid:
//!
//! | paper | rescaling | constructor |
//! |---|---|---|
//! | MaxMinLCB (Pásztor et al.), MR-LPF on Yelp, COBOL's synthetic expert ρ | min–max of f to [−3, 3] | [`Affine::to_range`] |
//! | MR-LPF / PF-TS Ackley (Kayal et al.'s code) | min–max of the difference matrix h_ij = f_i − f_j to [−3, 3], i.e. f·3/(max f − min f) | [`Affine::difference_range`] |
//! | MR-LPF RKHS functions | h scaled ×5 | [`Affine::new`]`(5, 0)` |
//! | POP-BO test functions | (f − mean)/std over a 20×20 grid | [`Affine::standardise`] |
//!
//! Every map has a positive scale, so it preserves the order of utilities and hence maximisers; the
//! coefficients are exposed so that regret can be reported on either scale. [`Rescaled`] wraps a
//! [`TestFunction`], [`crate::GridFunction::rescaled`] maps a tabulated one.

use crate::functions::{KnownOptimum, PublishedFigures, Sense, TestFunction};
use crate::grid::GridFunction;
use bohf_core::{BoxDomain, Error, FiniteDomain, Result};
use serde::{Deserialize, Serialize};

/// The order-preserving affine map v ↦ scale·v + shift, scale > 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Affine {
    /// The multiplier (> 0).
    pub scale: f64,
    /// The offset.
    pub shift: f64,
}

impl Affine {
    /// v ↦ scale·v + shift; `scale` must be finite and > 0, `shift` finite.
    pub fn new(scale: f64, shift: f64) -> Result<Self> {
        bohf_core::error::ensure_positive("scale", scale)?;
        if !shift.is_finite() {
            return Err(Error::invalid("shift", format!("must be finite, got {shift}")));
        }
        Ok(Self { scale, shift })
    }

    /// The identity map.
    pub fn identity() -> Self {
        Self { scale: 1.0, shift: 0.0 }
    }

    /// Min–max scaling: the map with min(values) ↦ `lo` and max(values) ↦ `hi`, i.e.
    /// v ↦ lo + (hi − lo)(v − min)/(max − min). Errors if `lo ≥ hi`, if `values` is empty or not
    /// finite, or if all values are equal (no affine map sends one value to two).
    pub fn to_range(values: &[f64], lo: f64, hi: f64) -> Result<Self> {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::invalid("range", format!("need finite lo < hi, got [{lo}, {hi}]")));
        }
        let (min, max) = min_max(values)?;
        let scale = (hi - lo) / (max - min);
        Self::new(scale, lo - scale * min)
    }

    /// The scaling of Kayal et al.'s code: the difference matrix h_ij = v_i − v_j is min–max scaled
    /// to [−`bound`, `bound`]. Since h is antisymmetric (min h = −max h = −(max v − min v)), this is
    /// v ↦ v·bound/(max v − min v), with no shift. It differs from [`Affine::to_range`] to
    /// [−bound, bound], whose differences span twice as much.
    pub fn difference_range(values: &[f64], bound: f64) -> Result<Self> {
        bohf_core::error::ensure_positive("bound", bound)?;
        let (min, max) = min_max(values)?;
        Self::new(bound / (max - min), 0.0)
    }

    /// Standardisation v ↦ (v − m)/s with m the mean and s the population standard deviation
    /// (divisor n, numpy's default, as in POP-BO's code) of `values`. Errors if they are constant.
    pub fn standardise(values: &[f64]) -> Result<Self> {
        min_max(values)?;
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        let sd = var.sqrt();
        if sd.is_nan() || sd <= 0.0 {
            return Err(Error::invalid("values", "cannot standardise constant values"));
        }
        Self::new(1.0 / sd, -mean / sd)
    }

    /// scale·v + shift.
    #[inline]
    pub fn apply(&self, v: f64) -> f64 {
        self.scale * v + self.shift
    }

    /// The map applied to each value.
    pub fn apply_all(&self, values: &[f64]) -> Vec<f64> {
        values.iter().map(|&v| self.apply(v)).collect()
    }

    /// The inverse map w ↦ (w − shift)/scale.
    pub fn inverse(&self) -> Self {
        Self { scale: 1.0 / self.scale, shift: -self.shift / self.scale }
    }

    /// The composition `self ∘ inner`: v ↦ self(inner(v)).
    pub fn after(&self, inner: &Affine) -> Self {
        Self { scale: self.scale * inner.scale, shift: self.scale * inner.shift + self.shift }
    }
}

/// (min, max) of finite, non-constant values.
fn min_max(values: &[f64]) -> Result<(f64, f64)> {
    if values.is_empty() {
        return Err(Error::Empty("values to rescale".into()));
    }
    bohf_core::error::ensure_finite("values to rescale", values.iter())?;
    let (min, max) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    if max <= min {
        return Err(Error::invalid("values", format!("all values equal {min}: the range is degenerate")));
    }
    Ok((min, max))
}

/// A test function with its (maximisation-convention) values mapped by an [`Affine`] map:
/// g(x) = scale·f(x) + shift. Maximisers are unchanged; the known maximum maps to
/// scale·max + shift and its precision to scale·precision.
#[derive(Debug, Clone)]
pub struct Rescaled<F> {
    inner: F,
    map: Affine,
}

impl<F: TestFunction> Rescaled<F> {
    /// `inner` with values mapped by `map`.
    pub fn new(inner: F, map: Affine) -> Self {
        Self { inner, map }
    }

    /// `inner` min–max scaled to [lo, hi] over the candidates of `grid` (MaxMinLCB: [−3, 3]).
    pub fn to_range_on(inner: F, grid: &FiniteDomain, lo: f64, hi: f64) -> Result<Self> {
        let map = Affine::to_range(GridFunction::tabulate(&inner, grid)?.values(), lo, hi)?;
        Ok(Self::new(inner, map))
    }

    /// `inner` standardised over the candidates of `grid` (POP-BO: a 20×20 grid).
    pub fn standardised_on(inner: F, grid: &FiniteDomain) -> Result<Self> {
        let map = Affine::standardise(GridFunction::tabulate(&inner, grid)?.values())?;
        Ok(Self::new(inner, map))
    }

    /// The map's coefficients.
    pub fn map(&self) -> Affine {
        self.map
    }

    /// The wrapped function.
    pub fn inner(&self) -> &F {
        &self.inner
    }
}

impl<F: TestFunction> TestFunction for Rescaled<F> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn domain(&self) -> BoxDomain {
        self.inner.domain()
    }
    /// Already in the maximisation convention: the inner function's `eval` applied its sense.
    fn sense(&self) -> Sense {
        Sense::Maximise
    }
    fn published(&self, x: &[f64]) -> f64 {
        self.map.apply(self.inner.eval(x))
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        let scale = self.map.scale;
        self.inner.optimum().map(|o| KnownOptimum {
            value: self.map.apply(o.value),
            precision: scale * o.precision,
            published: o.published.as_ref().map(|p| PublishedFigures {
                value: self.map.apply(p.value),
                precision: scale * p.precision,
                ..p.clone()
            }),
            ..o
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::{Ackley, Branin};
    use approx::assert_relative_eq;

    #[test]
    fn to_range_maps_extremes_and_preserves_order() {
        let v = [3.0, -1.0, 7.0, 2.5];
        let m = Affine::to_range(&v, -3.0, 3.0).unwrap();
        let w = m.apply_all(&v);
        // Exact arithmetic gives −3 and 3; a few ulps of rounding in scale and shift.
        assert_relative_eq!(w[1], -3.0, epsilon = 1e-14);
        assert_relative_eq!(w[2], 3.0, epsilon = 1e-14);
        // Hand computation: 6/8 = 0.75 per unit, so 3 ↦ −3 + 0.75·4 = 0, 2.5 ↦ −0.375.
        assert_relative_eq!(w[0], 0.0, epsilon = 1e-14);
        assert_relative_eq!(w[3], -0.375, epsilon = 1e-14);
        let back = m.inverse().apply_all(&w);
        for (a, b) in back.iter().zip(&v) {
            assert_relative_eq!(a, b, epsilon = 1e-14);
        }
    }

    #[test]
    fn difference_range_bounds_the_difference_matrix() {
        let v = [0.2, -1.3, 4.1, 0.0];
        let m = Affine::difference_range(&v, 3.0).unwrap();
        let w = m.apply_all(&v);
        // Brute force over the difference matrix: its min–max scaling to [−3, 3].
        let h: Vec<f64> = v.iter().flat_map(|a| v.iter().map(move |b| a - b)).collect();
        let hm = Affine::to_range(&h, -3.0, 3.0).unwrap();
        for (i, a) in w.iter().enumerate() {
            for (j, b) in w.iter().enumerate() {
                // The two routes differ only by rounding in the scale.
                assert_relative_eq!(a - b, hm.apply(v[i] - v[j]), epsilon = 1e-13);
            }
        }
        assert_eq!(m.shift, 0.0);
    }

    #[test]
    fn standardise_gives_mean_zero_unit_population_sd() {
        let v = [1.0, 2.0, 4.0, 9.0];
        let m = Affine::standardise(&v).unwrap();
        // mean 4, population variance (9 + 4 + 0 + 25)/4 = 9.5.
        assert_relative_eq!(m.scale, 1.0 / 9.5f64.sqrt(), epsilon = 1e-15);
        assert_relative_eq!(m.shift, -4.0 / 9.5f64.sqrt(), epsilon = 1e-15);
        let w = m.apply_all(&v);
        assert_relative_eq!(w.iter().sum::<f64>(), 0.0, epsilon = 1e-14);
        assert_relative_eq!(w.iter().map(|x| x * x).sum::<f64>() / 4.0, 1.0, epsilon = 1e-14);
    }

    #[test]
    fn degenerate_inputs_are_errors() {
        assert!(matches!(Affine::to_range(&[1.0, 1.0], -3.0, 3.0), Err(Error::InvalidParameter { .. })));
        assert!(matches!(Affine::to_range(&[], -3.0, 3.0), Err(Error::Empty(_))));
        assert!(matches!(Affine::to_range(&[0.0, 1.0], 3.0, -3.0), Err(Error::InvalidParameter { .. })));
        assert!(matches!(Affine::standardise(&[2.0; 5]), Err(Error::InvalidParameter { .. })));
        assert!(matches!(Affine::to_range(&[0.0, f64::NAN], 0.0, 1.0), Err(Error::NonFinite(_))));
        assert!(matches!(Affine::new(-1.0, 0.0), Err(Error::InvalidParameter { .. })));
        assert!(matches!(Affine::difference_range(&[0.0, 1.0], 0.0), Err(Error::InvalidParameter { .. })));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Min–max scaling hits both ends, keeps every value inside, and preserves order; the
        /// inverse undoes it. Tolerances: a few ulps of the range, relative to the data's magnitude.
        #[test]
        fn to_range_invariants(values in proptest::collection::vec(-1e3f64..1e3, 2..40), lo in -10.0f64..0.0, width in 0.1f64..10.0) {
            let (mn, mx) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
            proptest::prop_assume!(mx - mn > 1e-6);
            let hi = lo + width;
            let m = Affine::to_range(&values, lo, hi).unwrap();
            let w = m.apply_all(&values);
            let tol = 1e-12 * (1.0 + lo.abs() + hi.abs()) * (1.0 + mx.abs().max(mn.abs()) / (mx - mn));
            for (i, (&a, &wa)) in values.iter().zip(&w).enumerate() {
                proptest::prop_assert!(wa >= lo - tol && wa <= hi + tol);
                for (&b, &wb) in values.iter().zip(&w).skip(i + 1) {
                    if a < b { proptest::prop_assert!(wa <= wb); }
                }
                proptest::prop_assert!((m.inverse().apply(wa) - a).abs() <= 1e-9 * (1.0 + a.abs()));
            }
            let (wmn, wmx) = w.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
            proptest::prop_assert!((wmn - lo).abs() <= tol && (wmx - hi).abs() <= tol);
        }
    }

    #[test]
    fn rescaled_function_on_a_grid() {
        // MaxMinLCB-style: 1-D Ackley on 100 points of [−5, 5] mapped to [−3, 3].
        let grid = FiniteDomain::linspace(-5.0, 5.0, 100).unwrap();
        let ack =
            crate::functions::WithDomain::new(Ackley::new(1).unwrap(), BoxDomain::cube(-5.0, 5.0, 1).unwrap()).unwrap();
        let r = Rescaled::to_range_on(ack, &grid, -3.0, 3.0).unwrap();
        let g = GridFunction::tabulate(&r, &grid).unwrap();
        assert_relative_eq!(g.max(), 3.0, epsilon = 1e-13);
        assert_relative_eq!(g.min(), -3.0, epsilon = 1e-13);
        // The same maximiser as the raw function on the grid.
        let raw = GridFunction::tabulate(r.inner(), &grid).unwrap();
        assert_eq!(g.argmax(), raw.argmax());
        // The known maximum (0 at x = 0) maps with the same coefficients; 0 is off the grid, so it
        // lies above the grid maximum 3.
        let o = r.optimum().unwrap();
        assert_relative_eq!(o.value, r.map().shift, epsilon = 1e-15);
        assert!(o.value > 3.0);
        // The grid-function route gives the same values.
        let via_grid = raw.rescaled(&r.map());
        for (a, b) in via_grid.values().iter().zip(g.values()) {
            assert_relative_eq!(a, b, epsilon = 1e-14);
        }
    }

    #[test]
    fn standardised_branin_on_the_popbo_grid() {
        let grid = Branin.domain().grid(20).unwrap();
        let s = Rescaled::standardised_on(Branin, &grid).unwrap();
        let g = GridFunction::tabulate(&s, &grid).unwrap();
        let n = g.len() as f64;
        let mean = g.values().iter().sum::<f64>() / n;
        let var = g.values().iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        // 400 values of order 1: rounding in the sums is below 1e−13.
        assert_relative_eq!(mean, 0.0, epsilon = 1e-13);
        assert_relative_eq!(var, 1.0, epsilon = 1e-13);
        let composed = s.map().after(&s.map().inverse());
        assert_relative_eq!(composed.scale, 1.0, epsilon = 1e-15);
        assert_relative_eq!(composed.shift, 0.0, epsilon = 1e-14);
    }
}
