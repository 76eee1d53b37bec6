//! The one interface every algorithm speaks: queries, answers and the [`Optimizer`] trait.

use crate::error::Result;
use crate::query_kind::QueryKind;
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
    /// Which of these k ≥ 2 options is best? (a best-of-k query; answered by [`Answer::Choice`]
    /// with the index of the preferred option). [`Query::check`] validates it: k ≥ 2 and no option
    /// repeated. At k = 2 it asks what [`Query::Duel`] asks, but the answer's likelihood is the
    /// multinomial logit ([`crate::link::choice_log_probability`]), which at k = 2 is the logistic
    /// duel likelihood.
    Choice(Vec<Point>),
}

impl Query {
    /// The query's kind: [`QueryKind::Duel`] for a [`Query::Duel`], ….
    pub fn kind(&self) -> QueryKind {
        match self {
            Query::Duel(..) => QueryKind::Duel,
            Query::Evaluate(_) => QueryKind::Evaluate,
            Query::Label(_) => QueryKind::Label,
            Query::Choice(_) => QueryKind::Choice,
        }
    }

    /// Checks the query's own invariants; only a [`Query::Choice`] has any: at least 2 options, and
    /// no option repeated (the same candidate index, or, for points without one, equal coordinates).
    /// Errors name `query`.
    pub fn check(&self) -> Result<()> {
        match self {
            Query::Choice(options) => check_choice_options(options, same_option),
            Query::Duel(..) | Query::Evaluate(_) | Query::Label(_) => Ok(()),
        }
    }

    /// The options of a [`Query::Choice`]; for any other kind of query, an error (naming `query`)
    /// saying that `asker` asks choices.
    pub fn choice_options(&self, asker: &str) -> Result<&[Point]> {
        match self {
            Query::Choice(options) => Ok(options),
            other => Err(crate::error::Error::invalid("query", format!("{asker} asks choices, got {other:?}"))),
        }
    }

    /// The points the query shows: two for a duel, k for a choice, one otherwise.
    pub fn points(&self) -> Vec<&Point> {
        match self {
            Query::Duel(x, y) => vec![x, y],
            Query::Evaluate(x) | Query::Label(x) => vec![x],
            Query::Choice(options) => options.iter().collect(),
        }
    }

    /// Checks that `answer` is of the kind this query takes (and, for a choice, that its index is
    /// below k). Errors name `answer` (`answer.index` for an index out of range).
    pub fn check_answer(&self, answer: &Answer) -> Result<()> {
        match (self, answer) {
            (Query::Duel(..), Answer::Duel { .. })
            | (Query::Evaluate(_), Answer::Value(_))
            | (Query::Label(_), Answer::Label { .. }) => Ok(()),
            (Query::Choice(options), Answer::Choice { index }) => {
                check_choice_options(options, same_option)?;
                check_choice_index(*index, options.len())
            }
            (q, a) => Err(crate::error::Error::invalid(
                "answer",
                format!("{} does not answer {}", answer_kind(a), query_kind(q)),
            )),
        }
    }

    /// The two points of a [`Query::Duel`]; for any other kind of query, an error (naming `query`)
    /// saying that `asker` asks duels.
    pub fn duel_points(&self, asker: &str) -> Result<(&Point, &Point)> {
        match self {
            Query::Duel(p, q) => Ok((p, q)),
            other => Err(crate::error::Error::invalid("query", format!("{asker} asks duels, got {other:?}"))),
        }
    }
}

/// The kind of a query, for messages: `a duel`, `a choice between k options`, ….
fn query_kind(q: &Query) -> String {
    match q {
        Query::Duel(..) => "a duel".into(),
        Query::Evaluate(_) => "an evaluation".into(),
        Query::Label(_) => "a label query".into(),
        Query::Choice(options) => format!("a choice between {} options", options.len()),
    }
}

/// The kind of an answer, for messages.
fn answer_kind(a: &Answer) -> &'static str {
    match a {
        Answer::Duel { .. } => "a duel answer",
        Answer::Value(_) => "a value",
        Answer::Label { .. } => "a label",
        Answer::Choice { .. } => "a choice answer",
    }
}

/// The invariants of a choice's options (errors name `query`): k ≥ 2, and no two options the same
/// by `same`.
fn check_choice_options<T: std::fmt::Debug>(options: &[T], same: impl Fn(&T, &T) -> bool) -> Result<()> {
    if options.len() < 2 {
        return Err(crate::error::Error::invalid(
            "query",
            format!("a choice needs at least 2 options, got {}", options.len()),
        ));
    }
    for (j, q) in options.iter().enumerate() {
        if let Some(i) = options[..j].iter().position(|p| same(p, q)) {
            return Err(crate::error::Error::invalid(
                "query",
                format!("option {j} of the choice repeats option {i} ({q:?}): the options must be distinct"),
            ));
        }
    }
    Ok(())
}

/// Two options of a choice are the same point: the same candidate index, or, unless both carry
/// one, equal coordinates.
fn same_option(p: &Point, q: &Point) -> bool {
    match (p.index, q.index) {
        (Some(a), Some(b)) => a == b,
        _ => p.coords == q.coords,
    }
}

/// An answer index below k (errors name `answer.index`).
fn check_choice_index(index: usize, k: usize) -> Result<()> {
    if index >= k {
        return Err(crate::error::Error::invalid(
            "answer.index",
            format!("option {index} does not exist: the choice has {k} options, numbered from 0 (so below {k})"),
        ));
    }
    Ok(())
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
    /// The answer to [`Query::Choice`]: the position of the preferred option in the query's list.
    Choice {
        /// 0-based index of the preferred option (< k).
        index: usize,
    },
}

impl Answer {
    /// The value of an [`Answer::Value`] (the answer to [`Query::Evaluate`]), which must be finite;
    /// for a non-finite value or any other kind of answer, an error naming `answer`. The one parser
    /// of an evaluation's answer, as [`Answer::duel_outcome`] is of a duel's.
    pub fn value(&self) -> Result<f64> {
        match *self {
            Answer::Value(y) if y.is_finite() => Ok(y),
            Answer::Value(y) => {
                Err(crate::error::Error::invalid("answer", format!("the value must be finite, got {y}")))
            }
            other => {
                Err(crate::error::Error::invalid("answer", format!("an evaluation needs Answer::Value, got {other:?}")))
            }
        }
    }

    /// `first_wins` of an [`Answer::Duel`]; for any other kind of answer, an error naming `answer`.
    pub fn duel_outcome(&self) -> Result<bool> {
        match *self {
            Answer::Duel { first_wins } => Ok(first_wins),
            other => Err(crate::error::Error::invalid("answer", format!("a duel needs Answer::Duel, got {other:?}"))),
        }
    }

    /// `index` of an [`Answer::Choice`], checked against the number of options `k` (an error naming
    /// `answer.index` if it is ≥ k); for any other kind of answer, an error naming `answer`.
    pub fn choice_index(&self, k: usize) -> Result<usize> {
        match *self {
            Answer::Choice { index } => check_choice_index(index, k).map(|()| index),
            other => {
                Err(crate::error::Error::invalid("answer", format!("a choice needs Answer::Choice, got {other:?}")))
            }
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

/// One answered comparison between two options: the observation (x, x′, y) of the preference
/// papers, with y = 1 iff `first_wins`. Under the preference model P(y = 1) = μ(f(x) − f(x′))
/// (MR-LPF §2, PF-TS §2, POP-BO eq. (3)). The options are of type `P`: a candidate index of a
/// finite domain (`Duel` = `Duel<usize>`, what the finite-domain algorithms observe) or
/// coordinates (`Duel<Vec<f64>>`, on a box). `first == second` is allowed (a self-duel carries no
/// information about f). The one duel type of bohf: the Laplace GP's data
/// ([`Comparison`]) and every algorithm's history use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Duel<P = usize> {
    /// The first option x (a candidate index, or coordinates).
    pub first: P,
    /// The second option x′.
    pub second: P,
    /// Whether x was preferred (y = 1).
    pub first_wins: bool,
}

impl Duel {
    /// The duel (`first`, `second`) with answer `first_wins`, by candidate index.
    pub fn new(first: usize, second: usize, first_wins: bool) -> Self {
        Self { first, second, first_wins }
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

impl<P> Duel<P> {
    /// The label y ∈ {0, 1}.
    pub fn label(&self) -> f64 {
        if self.first_wins { 1.0 } else { 0.0 }
    }

    /// The same duel with each option mapped by `f` (e.g. candidate indices to latent indices).
    pub fn map<Q>(&self, mut f: impl FnMut(&P) -> Q) -> Duel<Q> {
        Duel { first: f(&self.first), second: f(&self.second), first_wins: self.first_wins }
    }
}

/// One answered best-of-k query: the options x_1, …, x_k shown and the one chosen. Under the
/// multinomial-logit (Plackett–Luce top-1) model P(x_i chosen) = exp(f(x_i)/s) / Σ_j exp(f(x_j)/s)
/// ([`crate::link::choice_log_probability`]). The options are of type `P` as for [`Duel`]
/// (`Choice` = `Choice<usize>`, by candidate index). Built by [`Choice::new`], which checks k ≥ 2,
/// distinct options (equal indices, or equal coordinates) and `chosen` < k.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Choice<P = usize> {
    options: Vec<P>,
    chosen: usize,
}

impl<P: PartialEq + std::fmt::Debug> Choice<P> {
    /// The choice of option `chosen` (a position in `options`) among `options`.
    /// Errors: fewer than 2 options or a repeated option (naming `query`), `chosen` ≥ k
    /// (naming `answer.index`).
    pub fn new(options: Vec<P>, chosen: usize) -> Result<Self> {
        check_choice_options(&options, |a, b| a == b)?;
        check_choice_index(chosen, options.len())?;
        Ok(Self { options, chosen })
    }
}

impl<P> Choice<P> {
    /// The options, in the order shown.
    pub fn options(&self) -> &[P] {
        &self.options
    }

    /// The position of the chosen option in [`Choice::options`].
    pub fn chosen(&self) -> usize {
        self.chosen
    }

    /// The chosen option.
    pub fn chosen_option(&self) -> &P {
        &self.options[self.chosen]
    }
}

impl Choice {
    /// The candidate index of the chosen option.
    pub fn winner(&self) -> usize {
        self.options[self.chosen]
    }
}

/// One answered comparison of either kind, between options of type `P` (a candidate index on a
/// finite domain, coordinates `Vec<f64>` on a box): what a preference model's data is built from
/// (the Laplace preference GP's `PreferenceData`), in the order answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Comparison<P = usize> {
    /// A duel.
    Duel(Duel<P>),
    /// A best-of-k choice.
    Choice(Choice<P>),
}

impl<P> From<Duel<P>> for Comparison<P> {
    fn from(d: Duel<P>) -> Self {
        Comparison::Duel(d)
    }
}

impl<P> From<Choice<P>> for Comparison<P> {
    fn from(c: Choice<P>) -> Self {
        Comparison::Choice(c)
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

impl QueryCosts {
    /// The cost of one query of `kind`: a best-of-k choice costs one duel (one preference query).
    pub fn of(&self, kind: QueryKind) -> f64 {
        match kind {
            QueryKind::Duel | QueryKind::Choice => self.duel,
            QueryKind::Evaluate => self.evaluate,
            QueryKind::Label => self.label,
        }
    }
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
    /// The algorithm's state between two steps (nothing pending), as text that
    /// [`Optimizer::restore_state`] reads back, for a checkpoint of an unfinished run: a long run
    /// (e.g. COBOL with many labels) then survives the end of its process. Replaying the history
    /// ([`Optimizer::observe_batch`]) restores the same state but may cost as much as the run;
    /// this skips the work.
    ///
    /// `Ok(None)` (the default) means the algorithm does not save its state: its runs are not
    /// checkpointed and restart from step 1. An algorithm that saves must restore *exactly*: a
    /// freshly built optimizer of the same configuration, restored, then continued with the same
    /// random stream, makes the same queries, to the last bit, as the one that saved.
    fn save_state(&self) -> Result<Option<String>> {
        Ok(None)
    }
    /// Sets the state saved by [`Optimizer::save_state`] on a freshly built optimizer of the same
    /// configuration. Errors name `state` (text that is not a saved state of this algorithm, or
    /// one that does not fit its domain). The default refuses: the algorithm saves no state.
    fn restore_state(&mut self, state: &str) -> Result<()> {
        let _ = state;
        Err(crate::Error::invalid("state", format!("{} does not save or restore its state", self.name())))
    }
}

#[cfg(test)]
mod tests;
