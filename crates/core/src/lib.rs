//! # bohf-core
//!
//! The bottom layer of bohf: typed [errors](error), [link functions](link) with the curvature
//! constants κ and L, [domains](domain), the [`Optimizer`] interface with its [`Query`] and
//! [`Answer`], seeded [random streams](rng), and the dense [numerics](linalg) every other layer uses
//! (jittered Cholesky with rank-one append, log-det, triangular solves, symmetric eigendecomposition,
//! sampling from singular covariances), and [compensated sums](sum) with rigorous error bounds.
#![warn(missing_docs)]

pub mod argmax;
pub mod calendar;
pub mod data;
pub mod domain;
pub mod error;
pub mod linalg;
pub mod link;
pub mod optimizer;
pub mod query_kind;
pub mod rng;
pub mod schedule;

pub mod special;
pub mod suggest;
pub mod sum;
#[doc(hidden)]
pub mod testing;

pub use argmax::{
    ArgmaxLowest, TIE_TOLERANCE, argmax_lowest, argmax_lowest_by, argmax_lowest_in, argmax_lowest_symmetric_pairs,
    is_tie,
};
pub use domain::{BoxDomain, Domain, DomainKind, FiniteDomain};
pub use error::{AtField, Error, Result, SolverStatus, field_path};
pub use link::Link;
pub use optimizer::{
    Abstention, Answer, Choice, Comparison, Duel, Optimizer, Point, Query, QueryCosts, SearchContext, StepDetails,
    check_pending, initial_split,
};
pub use query_kind::QueryKind;
pub use rng::BohfRng;
pub use schedule::{BetaForm, WidthSchedule};
pub use suggest::closest_name;

/// Re-export of the `rand` version bohf is built on, so downstream crates use the same traits.
pub use rand;
