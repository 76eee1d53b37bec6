//! # bohf-core
//!
//! The bottom layer of bohf: typed [errors](error), [link functions](link) with the curvature
//! constants κ and L, [domains](domain), the [`Optimizer`] interface with its [`Query`] and
//! [`Answer`], seeded [random streams](rng), and the dense [numerics](linalg) every other layer uses
//! (jittered Cholesky with rank-one append, log-det, triangular solves, symmetric eigendecomposition,
//! sampling from singular covariances).
#![warn(missing_docs)]

pub mod domain;
pub mod error;
pub mod linalg;
pub mod link;
pub mod optimizer;
pub mod rng;
pub mod schedule;

/// The index of the largest value, the **lowest** index among ties (0 for an empty input); NaN never
/// wins. The tie rule of every argmax over candidates in bohf (the papers leave tie-breaking open).
pub fn argmax_lowest(values: impl IntoIterator<Item = f64>) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (i, v) in values.into_iter().enumerate() {
        if v > best.1 {
            best = (i, v);
        }
    }
    best.0
}
pub mod special;

pub use domain::{BoxDomain, Domain, FiniteDomain};
pub use error::{AtField, Error, Result, field_path};
pub use link::Link;
pub use optimizer::{Answer, Duel, Optimizer, Point, Query, SearchContext, check_pending};
pub use rng::BohfRng;
pub use schedule::WidthSchedule;

/// Re-export of the `rand` version bohf is built on, so downstream crates use the same traits.
pub use rand;

#[cfg(test)]
mod tests {
    #[test]
    fn argmax_takes_the_lowest_index_among_ties_and_skips_nan() {
        assert_eq!(super::argmax_lowest([1.0, 3.0, 3.0, 2.0]), 1);
        assert_eq!(super::argmax_lowest([f64::NAN, 0.5, f64::NAN]), 1);
        assert_eq!(super::argmax_lowest([f64::NEG_INFINITY, f64::NEG_INFINITY]), 0);
        assert_eq!(super::argmax_lowest(std::iter::empty()), 0);
    }
}
