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

impl Query {
    /// The two points of a [`Query::Duel`]; for any other kind of query, an error (naming `query`)
    /// saying that `asker` asks duels.
    pub fn duel_points(&self, asker: &str) -> Result<(&Point, &Point)> {
        match self {
            Query::Duel(p, q) => Ok((p, q)),
            other => Err(crate::error::Error::invalid("query", format!("{asker} asks duels, got {other:?}"))),
        }
    }
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

impl Answer {
    /// `first_wins` of an [`Answer::Duel`]; for any other kind of answer, an error naming `answer`.
    pub fn duel_outcome(&self) -> Result<bool> {
        match *self {
            Answer::Duel { first_wins } => Ok(first_wins),
            other => Err(crate::error::Error::invalid("answer", format!("a duel needs Answer::Duel, got {other:?}"))),
        }
    }
}

/// A respondent's declining to answer a [`Query`]: recorded by a session, but not an [`Answer`]
/// (an algorithm's likelihood has no term for it unless the algorithm says so, see
/// [`Optimizer::observe_abstention`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Abstention {
    /// "No preference": the respondent looked and finds the options equally good (or the
    /// question does not apply).
    NoPreference,
    /// "Skip": the respondent did not answer.
    Skip,
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

/// What an algorithm is told about the problem when it is built: the domain and the horizon T
/// (MR-LPF's round schedule depends on T; other algorithms may ignore it). Its invariant T ≥ 1 is
/// checked once, by [`SearchContext::new`]; the domain's own invariants by its constructor.
///
/// The domain type `D` says what kind of domain the algorithm works on:
///
/// * `SearchContext` (= `SearchContext<FiniteDomain>`, the default): a finite candidate set; what
///   the finite-domain algorithms' constructors take;
/// * `SearchContext<BoxDomain>`: a continuous box; what box-mode constructors take;
/// * `SearchContext<Domain>`: either, e.g. the problem of an experiment before an algorithm is
///   chosen; [`SearchContext::finite`] and [`SearchContext::boxed`] narrow it to the typed context
///   (an algorithm registry dispatches on [`Domain::kind`](crate::Domain::kind)).
///
/// With a cost budget (an experiment's `[budget]`, a session's spec) the context also carries the
/// [`QueryCosts`] ([`SearchContext::with_costs`]): the one home of the costs, which algorithms that
/// trade query kinds against each other (COMP-GP-UCB, MF-GP-UCB) read instead of a copy in their
/// own parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchContext<D = crate::domain::FiniteDomain> {
    domain: D,
    horizon: usize,
    costs: Option<QueryCosts>,
}

/// An initial random design of COMP-GP-UCB's experiments (notes 002 §5.3) as counts: a `share`
/// ∈ [0, 1] of the initial budget Λ₀ on duels at cost λ_c = `duel` and the rest on evaluations at
/// cost λ_l = `evaluate`, each ⌊budget / cost⌋ (with a relative slack of 10⁻¹², so that 5 / 0.1
/// gives 50, not 49; a kind with no budget gets 0). COMP-GP-UCB and MF-GP-UCB: ½ (50 duels and 5
/// values at Λ₀ = 10, λ_c = 0.1, λ_l = 1); KSS: 1 (all duels); GP-UCB: 0 (all values). The costs
/// must be > 0 where the budget is.
pub fn initial_split(budget: f64, duel: f64, evaluate: f64, share: f64) -> (usize, usize) {
    let count = |b: f64, cost: f64| if b <= 0.0 { 0 } else { ((b / cost) * (1.0 + 1e-12)).floor() as usize };
    (count(share * budget, duel), count((1.0 - share) * budget, evaluate))
}

/// The prices of the query kinds and the total budget Λ of a run: what the runner's `[budget]`
/// section says, handed to the algorithm through its [`SearchContext`]. The runner does the
/// accounting (a run stops once its spent budget reaches `total`); an algorithm reads the costs to
/// plan (e.g. how many random duels an initial budget buys). Each algorithm checks what it needs
/// (e.g. COMP-GP-UCB: λ_c = `duel` > 0 and λ_l = `evaluate` ≥ λ_c).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryCosts {
    /// The total budget Λ.
    pub total: f64,
    /// The cost of a duel (λ_c).
    pub duel: f64,
    /// The cost of an evaluation (λ_l).
    pub evaluate: f64,
    /// The cost of an accept/reject label.
    pub label: f64,
}

impl<D> SearchContext<D> {
    /// A context, checking T ≥ 1 (errors name `horizon`).
    pub fn new(domain: D, horizon: usize) -> Result<Self> {
        if horizon == 0 {
            return Err(crate::error::Error::invalid("horizon", "T must be at least 1"));
        }
        Ok(Self { domain, horizon, costs: None })
    }

    /// The same context with the run's query costs and budget.
    pub fn with_costs(mut self, costs: QueryCosts) -> Self {
        self.costs = Some(costs);
        self
    }

    /// The run's query costs and budget, if the run has a budget.
    pub fn costs(&self) -> Option<&QueryCosts> {
        self.costs.as_ref()
    }

    /// The domain: the finite candidate set of a `SearchContext`, the box of a
    /// `SearchContext<BoxDomain>`.
    pub fn domain(&self) -> &D {
        &self.domain
    }

    /// The number of queries T the run will make (≥ 1).
    pub fn horizon(&self) -> usize {
        self.horizon
    }
}

impl SearchContext<crate::domain::Domain> {
    /// The kind of the domain.
    pub fn kind(&self) -> crate::domain::DomainKind {
        self.domain.kind()
    }

    /// The finite-domain context, if the domain is a finite candidate set (the candidate set is
    /// cloned).
    pub fn finite(&self) -> Option<SearchContext<crate::domain::FiniteDomain>> {
        match &self.domain {
            crate::domain::Domain::Finite(f) => {
                Some(SearchContext { domain: f.clone(), horizon: self.horizon, costs: self.costs })
            }
            crate::domain::Domain::Box(_) => None,
        }
    }

    /// The box context, if the domain is a box.
    pub fn boxed(&self) -> Option<SearchContext<crate::domain::BoxDomain>> {
        match &self.domain {
            crate::domain::Domain::Box(b) => {
                Some(SearchContext { domain: b.clone(), horizon: self.horizon, costs: self.costs })
            }
            crate::domain::Domain::Finite(_) => None,
        }
    }
}

impl From<SearchContext<crate::domain::FiniteDomain>> for SearchContext<crate::domain::Domain> {
    fn from(ctx: SearchContext<crate::domain::FiniteDomain>) -> Self {
        SearchContext { domain: ctx.domain.into(), horizon: ctx.horizon, costs: ctx.costs }
    }
}

impl From<SearchContext<crate::domain::BoxDomain>> for SearchContext<crate::domain::Domain> {
    fn from(ctx: SearchContext<crate::domain::BoxDomain>) -> Self {
        SearchContext { domain: ctx.domain.into(), horizon: ctx.horizon, costs: ctx.costs }
    }
}

/// Algorithm-specific facts about the last step, as (name, value) pairs in a fixed order, which
/// the experiment runner records beside each step (e.g. COBOL's λ, the branch of its no-harm test,
/// whether an evaluation followed an accepted label). Names are short identifiers; values are
/// text (numbers in Rust's shortest round-trip form). Neither may contain `;` or `=`.
pub type StepDetails = Vec<(&'static str, String)>;

/// A sequential optimiser from human feedback.
///
/// Its state is its configuration plus the history of (query, answer) pairs, so a session is saved by
/// writing that history and restored by replaying it with [`Optimizer::observe_batch`].
pub trait Optimizer {
    /// The algorithm's display name (e.g. "PF-TS"), used in its error messages and reports.
    fn name(&self) -> &'static str;
    /// What to ask next.
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query>;
    /// Records the answer to a query.
    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()>;
    /// Records a history of (query, answer) steps, e.g. to restore a saved session; the first step
    /// must answer the pending suggestion, if there is one. Errors raised at step `k` say
    /// "history entry k" ([`crate::Error::in_history_entry`]).
    ///
    /// The default observes the steps one by one, so on an error the steps before `k` stay recorded.
    /// An algorithm may override it with a cheaper refit (one fit for the whole batch); PF-TS and
    /// POP-BO do, and validate the whole history first, so that on an error nothing is recorded.
    fn observe_batch(&mut self, steps: &[(Query, Answer)]) -> Result<()> {
        for (k, (query, answer)) in steps.iter().enumerate() {
            self.observe(query, *answer).map_err(|e| e.in_history_entry(k))?;
        }
        Ok(())
    }
    /// Records that the respondent abstained from `query` ("no preference" or "skip").
    ///
    /// The default drops it: the algorithm's state is unchanged, as if the query had not been
    /// asked. That is the safe default for the theory: the preference likelihoods of the papers
    /// (MR-LPF §2, PF-TS §2, POP-BO eq. (3)) model a forced binary choice and have no term for a
    /// tie, and dropping a query chosen by the algorithm does not bias the answers that are
    /// observed. What the next [`Optimizer::suggest`] asks is the algorithm's own rule: one that
    /// keeps its pending suggestion until answered (MR-LPF) asks the same query again, the others
    /// choose afresh (a random one, e.g. PF-TS, may ask another).
    fn observe_abstention(&mut self, query: &Query, kind: Abstention) -> Result<()> {
        let _ = (query, kind);
        Ok(())
    }
    /// The current best guess of the maximiser.
    fn recommend(&self) -> Result<Point>;
    /// What the last step computed, for the records ([`StepDetails`]); by default nothing, so an
    /// algorithm that supplies none writes the same records as before this method existed.
    fn step_details(&self) -> StepDetails {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the first coordinate of every evaluated point; rejects anything but evaluations.
    struct Recorder(Vec<f64>);

    impl Optimizer for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn suggest(&mut self, _: &mut dyn Rng) -> Result<Query> {
            Ok(Query::Evaluate(Point::continuous(vec![0.0])))
        }
        fn observe(&mut self, query: &Query, _: Answer) -> Result<()> {
            match query {
                Query::Evaluate(p) => {
                    self.0.push(p.coords[0]);
                    Ok(())
                }
                other => Err(crate::Error::invalid("query", format!("{} evaluates, got {other:?}", self.name()))),
            }
        }
        fn recommend(&self) -> Result<Point> {
            Ok(Point::continuous(vec![0.0]))
        }
    }

    #[test]
    fn default_observe_batch_observes_in_order_and_names_the_failing_entry() {
        let eval = |x: f64| (Query::Evaluate(Point::continuous(vec![x])), Answer::Value(x));
        let mut r = Recorder(Vec::new());
        r.observe_batch(&[eval(1.0), eval(2.0)]).unwrap();
        assert_eq!(r.0, vec![1.0, 2.0]);
        let duel = (Query::Duel(Point::continuous(vec![0.0]), Point::continuous(vec![1.0])), Answer::Value(0.0));
        let e = r.observe_batch(&[eval(3.0), duel, eval(4.0)]).unwrap_err().to_string();
        assert!(e.contains("history entry 1: recorder evaluates"), "{e}");
        // The default is step by step: the entry before the failure stays recorded, none after it.
        assert_eq!(r.0, vec![1.0, 2.0, 3.0]);
    }

    #[test]
    fn the_default_abstention_is_dropped() {
        let mut r = Recorder(Vec::new());
        let q = Query::Evaluate(Point::continuous(vec![5.0]));
        r.observe_abstention(&q, Abstention::Skip).unwrap();
        r.observe_abstention(&q, Abstention::NoPreference).unwrap();
        assert!(r.0.is_empty(), "a dropped abstention changed the state: {:?}", r.0);
        r.observe(&q, Answer::Value(1.0)).unwrap();
        assert_eq!(r.0, vec![5.0]);
    }

    #[test]
    fn duel_accessors_reject_other_kinds_naming_the_field() {
        let p = Point::continuous(vec![0.5]);
        let e = Query::Evaluate(p.clone()).duel_points("X").unwrap_err().to_string();
        assert!(e.contains("`query`") && e.contains("X asks duels"), "{e}");
        assert!(Answer::Value(1.0).duel_outcome().unwrap_err().to_string().contains("`answer`"));
        assert!(!Answer::Duel { first_wins: false }.duel_outcome().unwrap());
        let d = Duel::new(3, 5, false);
        assert_eq!((d.pair(), d.winner(), d.label()), ((3, 5), 5, 0.0));
    }

    #[test]
    fn a_search_context_needs_a_positive_horizon() {
        let dom = crate::FiniteDomain::linspace(0.0, 1.0, 3).unwrap();
        assert!(SearchContext::new(dom.clone(), 0).unwrap_err().to_string().contains("`horizon`"));
        let ctx = SearchContext::new(dom.clone(), 7).unwrap();
        assert_eq!((ctx.domain().len(), ctx.horizon()), (3, 7));
        // A context of either kind narrows to the typed context of its kind only.
        let any: SearchContext<crate::Domain> = ctx.clone().into();
        assert_eq!(any.kind(), crate::DomainKind::Finite);
        assert_eq!(any.finite(), Some(ctx));
        assert_eq!(any.boxed(), None);
        let cube = crate::BoxDomain::cube(0.0, 1.0, 2).unwrap();
        let any: SearchContext<crate::Domain> = SearchContext::new(cube.clone(), 4).unwrap().into();
        assert_eq!(
            (any.kind(), any.finite(), any.boxed().map(|b| b.domain().clone())),
            (crate::DomainKind::Box, None, Some(cube))
        );
        assert!(SearchContext::new(crate::BoxDomain::cube(0.0, 1.0, 1).unwrap(), 0).is_err());
    }
}
