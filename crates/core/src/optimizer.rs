//! The one interface every algorithm speaks: queries, answers and the [`Optimizer`] trait.

use crate::error::Result;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// A point of the domain. On a finite domain it carries its candidate index, so that algorithms can
/// work on precomputed candidate Gram matrices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Index into the finite candidate set, if the point is a candidate.
    pub index: Option<usize>,
    /// Coordinates in ℝ^d.
    pub coords: Vec<f64>,
}

impl Point {
    /// A candidate of a finite domain.
    pub fn candidate(index: usize, coords: Vec<f64>) -> Self {
        Self { index: Some(index), coords }
    }

    /// A point of a continuous domain.
    pub fn continuous(coords: Vec<f64>) -> Self {
        Self { index: None, coords }
    }
}

/// What an algorithm asks the respondent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Query {
    /// Which of the two is preferred?
    Duel(Point, Point),
    /// A (noisy) value of the objective at the point.
    Evaluate(Point),
    /// Accept or reject the point (an expert's label).
    Label(Point),
}

/// The respondent's answer to a [`Query`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    /// The answer to [`Query::Duel`]: whether the first option won.
    Duel {
        /// `true` if the first point of the duel is preferred.
        first_wins: bool,
    },
    /// The answer to [`Query::Evaluate`].
    Value(f64),
    /// The answer to [`Query::Label`].
    Label {
        /// `true` if the expert accepts the point.
        accept: bool,
    },
}

/// One answered comparison between two candidates of a finite domain, by candidate index: the
/// observation (x, x′, y) of the preference papers, with y = 1 iff `first_wins`. Under the
/// preference model P(y = 1) = μ(f(x) − f(x′)) (MR-LPF §2, PF-TS §2, POP-BO eq. (3)).
/// `first == second` is allowed (a self-duel carries no information about f).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Duel {
    /// Candidate index of the first point x.
    pub first: usize,
    /// Candidate index of the second point x′.
    pub second: usize,
    /// Whether x was preferred (y = 1).
    pub first_wins: bool,
}

impl Duel {
    /// The duel (`first`, `second`) with answer `first_wins`.
    pub fn new(first: usize, second: usize, first_wins: bool) -> Self {
        Self { first, second, first_wins }
    }

    /// The label y ∈ {0, 1}.
    pub fn label(&self) -> f64 {
        if self.first_wins { 1.0 } else { 0.0 }
    }

    /// The candidate index pair (x, x′).
    pub fn pair(&self) -> (usize, usize) {
        (self.first, self.second)
    }

    /// The index of the preferred candidate.
    pub fn winner(&self) -> usize {
        if self.first_wins { self.first } else { self.second }
    }
}

/// Errors (naming `query`) unless nothing is pending or `got` is the pending suggestion: an
/// algorithm that has suggested a query accepts only the answer to that query.
pub fn check_pending<T: PartialEq + std::fmt::Debug>(pending: Option<T>, got: T) -> Result<()> {
    match pending {
        Some(p) if p != got => Err(crate::error::Error::invalid(
            "query",
            format!("the query {got:?} does not match the pending suggestion {p:?}"),
        )),
        _ => Ok(()),
    }
}

/// What an algorithm is told about the problem when it is built: the candidate set and the horizon T
/// (MR-LPF's round schedule depends on T; other algorithms may ignore it).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchContext {
    /// The finite candidate set.
    pub domain: crate::domain::FiniteDomain,
    /// The number of queries T the run will make (≥ 1).
    pub horizon: usize,
}

impl SearchContext {
    /// A context, checking T ≥ 1.
    pub fn new(domain: crate::domain::FiniteDomain, horizon: usize) -> Result<Self> {
        if horizon == 0 {
            return Err(crate::error::Error::invalid("horizon", "T must be at least 1"));
        }
        Ok(Self { domain, horizon })
    }
}

/// A sequential optimiser from human feedback.
///
/// Its state is its configuration plus the history of (query, answer) pairs, so a session is saved by
/// writing that history and restored by replaying it.
pub trait Optimizer {
    /// What to ask next.
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query>;
    /// Records the answer to a query.
    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()>;
    /// The current best guess of the maximiser.
    fn recommend(&self) -> Result<Point>;
}
