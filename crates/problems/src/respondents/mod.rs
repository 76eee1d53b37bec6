//! Simulated respondents: they answer an algorithm's [`Query`] with an [`Answer`] drawn from a
//! known model of a person (or of a cheap simulator), with all randomness from a caller-given RNG.
//!
//! | respondent | answers | model | paper |
//! |---|---|---|---|
//! | [`DuelRespondent`] | duels, best-of-k choices | P(x ≻ x′) = μ(s·(u(x) − u(x′))) (BTL / Thurstone), or deterministic; choices: P(i) ∝ exp(s·u(x_i)), or the argmax | MR-LPF, PF-TS, POP-BO, MaxMinLCB |
//! | [`NoisyValue`] | evaluations | y = u(x) + ε, ε ~ N(0, σ²) | GP-TS/GP-UCB baselines, COBOL, COMP-GP-UCB |
//! | [`SyntheticExpert`] | labels | P(reject) = S(a·ρ(f(x)) + b) | COBOL Example 2.2 |
//! | [`MvnBeliefExpert`] | labels | P(accept) = N(x; μ, Σ)/N(μ; μ, Σ) | COBOL App. H/I (Experiment D (b)) |
//! | [`BiasedComparisons`] | evaluations and duels | labels from f, duels from a second fidelity f_c | COMP-GP-UCB |
//! | [`Combined`] | any | routes each query kind to its own respondent | COBOL (values + labels) |
//!
//! The utility u a respondent consults is anything that implements [`Utility`]: every
//! [`TestFunction`] (by the point's coordinates, maximisation convention) and a [`GridFunction`] (by
//! the point's candidate index).

mod belief;
mod duels;
mod expert;
mod fidelity;
mod values;

pub use belief::MvnBeliefExpert;
pub use duels::{DuelModel, DuelRespondent, borda_scores};
pub use expert::SyntheticExpert;
pub use fidelity::{BiasedComparisons, comparison_bias};
pub use values::NoisyValue;

use crate::functions::TestFunction;
use crate::grid::GridFunction;
use bohf_core::{Answer, Error, Point, Query, Result};
use rand::Rng;
use std::sync::Arc;

/// Answers queries. A respondent that cannot answer a kind of query (e.g. a duel respondent asked
/// for a value) returns [`Error::InvalidParameter`] naming `query`.
pub trait Respondent {
    /// The answer to `query`, with any randomness drawn from `rng`.
    fn answer(&mut self, query: &Query, rng: &mut dyn Rng) -> Result<Answer>;
}

impl<R: Respondent + ?Sized> Respondent for Box<R> {
    fn answer(&mut self, query: &Query, rng: &mut dyn Rng) -> Result<Answer> {
        (**self).answer(query, rng)
    }
}

/// The true utility u(x) of a point, in the maximisation convention.
pub trait Utility {
    /// u at `point`.
    fn utility(&self, point: &Point) -> Result<f64>;
}

impl<F: TestFunction + ?Sized> Utility for F {
    /// The checked value at the point's coordinates (its candidate index is ignored).
    fn utility(&self, point: &Point) -> Result<f64> {
        self.value(&point.coords)
    }
}

impl Utility for GridFunction {
    /// The value of the point's candidate. The point must carry a candidate index, and its
    /// coordinates (if given) must be the candidate's, so that a point of another grid is caught.
    fn utility(&self, point: &Point) -> Result<f64> {
        let i = point.index.ok_or_else(|| {
            Error::invalid("point", "a function on a finite domain needs candidate points (Point::index)")
        })?;
        let v = self.value_at(i)?;
        if !point.coords.is_empty() {
            let c = self.domain().coords(i)?;
            if point.coords.len() != c.len() {
                return Err(Error::dims("candidate point coordinates", c.len(), point.coords.len()));
            }
            if point.coords.iter().zip(&c).any(|(a, b)| (a - b).abs() > 1e-9 * (1.0 + b.abs())) {
                return Err(Error::invalid(
                    "point",
                    format!("coordinates {:?} are not those of candidate {i} ({c:?})", point.coords),
                ));
            }
        }
        Ok(v)
    }
}

impl Utility for &GridFunction {
    fn utility(&self, point: &Point) -> Result<f64> {
        (**self).utility(point)
    }
}

impl Utility for Arc<GridFunction> {
    fn utility(&self, point: &Point) -> Result<f64> {
        (**self).utility(point)
    }
}

/// The error for a query kind a respondent does not answer.
pub(crate) fn unsupported(who: &str, query: &Query) -> Error {
    Error::invalid("query", format!("{who} cannot answer a query of kind `{}`", query.kind()))
}

/// A Bernoulli(p) draw: `u < p` for u uniform on [0, 1), so p = 0 never and p = 1 always succeeds.
pub(crate) fn bernoulli(p: f64, rng: &mut (impl Rng + ?Sized)) -> bool {
    use rand::RngExt;
    rng.random::<f64>() < p
}

/// A respondent made of one respondent per query kind (e.g. COBOL's noisy evaluations of f plus a
/// synthetic expert's labels; duels and choices share the preference respondent). A kind without a
/// respondent is an error.
#[derive(Default)]
pub struct Combined {
    duels: Option<Box<dyn Respondent + Send>>,
    values: Option<Box<dyn Respondent + Send>>,
    labels: Option<Box<dyn Respondent + Send>>,
}

impl std::fmt::Debug for Combined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Combined")
            .field("duels", &self.duels.is_some())
            .field("values", &self.values.is_some())
            .field("labels", &self.labels.is_some())
            .finish()
    }
}

impl Combined {
    /// A respondent that answers nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Duels and best-of-k choices go to `r`.
    pub fn with_duels(mut self, r: impl Respondent + Send + 'static) -> Self {
        self.duels = Some(Box::new(r));
        self
    }

    /// Evaluations go to `r`.
    pub fn with_values(mut self, r: impl Respondent + Send + 'static) -> Self {
        self.values = Some(Box::new(r));
        self
    }

    /// Labels go to `r`.
    pub fn with_labels(mut self, r: impl Respondent + Send + 'static) -> Self {
        self.labels = Some(Box::new(r));
        self
    }
}

impl Respondent for Combined {
    fn answer(&mut self, query: &Query, rng: &mut dyn Rng) -> Result<Answer> {
        let slot = match query {
            Query::Duel(..) | Query::Choice(..) => &mut self.duels,
            Query::Evaluate(..) => &mut self.values,
            Query::Label(..) => &mut self.labels,
        };
        match slot {
            Some(r) => r.answer(query, rng),
            None => Err(unsupported("this combined respondent", query)),
        }
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Shared helpers for the respondents' statistical tests.

    /// |p̂ − p| ≤ 5 standard errors √(p(1 − p)/n) (a false alarm has probability ≈ 6·10⁻⁷; the seeds
    /// are fixed, so the tests are deterministic anyway). For p ∈ {0, 1} the frequency must be exact.
    pub fn assert_frequency(hits: usize, n: usize, p: f64, what: &str) {
        let phat = hits as f64 / n as f64;
        let se = (p * (1.0 - p) / n as f64).sqrt();
        assert!((phat - p).abs() <= 5.0 * se, "{what}: frequency {phat} vs probability {p} (se {se})");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::{Ackley, Branin};
    use bohf_core::FiniteDomain;
    use bohf_core::rng::seeded;

    #[test]
    fn grid_utility_checks_index_and_coordinates() {
        let g = GridFunction::new(FiniteDomain::linspace(0.0, 1.0, 3).unwrap(), vec![1.0, 2.0, 3.0]).unwrap();
        assert_eq!(g.utility(&Point::candidate(1, vec![0.5])).unwrap(), 2.0);
        assert_eq!(g.utility(&Point::candidate(2, vec![])).unwrap(), 3.0);
        assert!(matches!(g.utility(&Point::continuous(vec![0.5])), Err(Error::InvalidParameter { .. })));
        assert!(matches!(g.utility(&Point::candidate(3, vec![])), Err(Error::IndexOutOfRange { .. })));
        assert!(matches!(g.utility(&Point::candidate(1, vec![0.4])), Err(Error::InvalidParameter { .. })));
        assert!(matches!(g.utility(&Point::candidate(1, vec![0.5, 0.0])), Err(Error::DimensionMismatch { .. })));
        // Test functions use the coordinates.
        assert_eq!(Branin.utility(&Point::candidate(7, vec![1.0, 2.0])).unwrap(), Branin.value(&[1.0, 2.0]).unwrap());
        assert!(Branin.utility(&Point::continuous(vec![1.0])).is_err());
    }

    #[test]
    fn combined_routes_by_query_kind() {
        let f = Ackley::new(1).unwrap();
        let mut r = Combined::new()
            .with_values(NoisyValue::new(f, 0.0).unwrap())
            .with_duels(DuelRespondent::new(f, DuelModel::Deterministic).unwrap());
        let mut rng = seeded(0);
        let x = Point::continuous(vec![0.0]);
        let y = Point::continuous(vec![1.0]);
        // −Ackley(0) = 0 up to rounding (20 + e − 20 − e).
        match r.answer(&Query::Evaluate(x.clone()), &mut rng).unwrap() {
            Answer::Value(v) => assert!(v.abs() < 1e-14, "{v}"),
            a => panic!("unexpected {a:?}"),
        }
        assert_eq!(r.answer(&Query::Duel(x.clone(), y), &mut rng).unwrap(), Answer::Duel { first_wins: true });
        assert!(matches!(r.answer(&Query::Label(x), &mut rng), Err(Error::InvalidParameter { .. })));
    }
}
