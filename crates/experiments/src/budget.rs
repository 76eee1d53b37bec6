//! Query costs and a budget: the spec's optional `[budget]` section ([`BudgetSpec`]).
//!
//! ```toml
//! [budget]
//! total = 50.0     # the budget Λ > 0
//! duel = 1.0       # cost of a duel (default 1)
//! evaluate = 1.0   # cost of an evaluation u(x) (default 1)
//! label = 0.0      # cost of an accept/reject label (default 1)
//! ```
//!
//! **When a run stops.** Every query costs its kind's price; a run stops after the step at which
//! its spent budget reaches `total`, or after `horizon` steps, whichever comes first (the horizon
//! stays a hard cap). The last query may overshoot: with `total = 5, evaluate = 2` a run stops after
//! its third evaluation, having spent 6; that query is done and recorded like any other. Queries
//! whose price is 0 never end a run (COBOL's free labels under `label = 0`).
//!
//! **Spent budget is derived, not recorded.** The spent budget after step t is a deterministic
//! function of the query kinds of steps 1..=t and the spec: Λ_t = n_duel(t)·duel +
//! n_evaluate(t)·evaluate + n_label(t)·label ([`spent_budget`]). The CSV of a run therefore has no
//! budget column, and specs without `[budget]` write exactly what they wrote before.
//!
//! **Rounding.** Λ_t is a sum of products of floats; it counts as having reached `total` once
//! Λ_t ≥ total·(1 − 10⁻¹²) ([`BudgetSpec::is_spent`]), so that e.g. ten duels at 0.1 spend a budget of
//! 1.0 although 0.1 is not exact in binary.
//!
//! **A complete run** has `horizon` steps, or fewer that end at the first step whose spent budget
//! reaches `total` ([`check_length`]): resuming, sharding, merging and summarising accept exactly
//! these runs.

use crate::error::{ExperimentError, Result};
use crate::results::{QueryKind, RunRecord};
use crate::spec::ExperimentSpec;
use serde::{Deserialize, Serialize};

/// `[budget]`: a price per query kind and a total budget; a run stops after the step at which its
/// spent budget reaches `total` (the last query may overshoot; it is recorded), or at the horizon,
/// whichever comes first. Without this section a run always takes `horizon` steps.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpec {
    /// The total budget Λ (finite, > 0); the run stops once the spent budget reaches it.
    pub total: f64,
    /// The cost of a duel (finite, ≥ 0; default 1).
    #[serde(default = "unit_cost")]
    pub duel: f64,
    /// The cost of an evaluation u(x) (finite, ≥ 0; default 1).
    #[serde(default = "unit_cost")]
    pub evaluate: f64,
    /// The cost of an accept/reject label (finite, ≥ 0; default 1).
    #[serde(default = "unit_cost")]
    pub label: f64,
}

fn unit_cost() -> f64 {
    1.0
}

/// The relative slack of [`BudgetSpec::is_spent`] (see the module documentation).
pub const RELATIVE_SLACK: f64 = 1e-12;

/// How many queries of each kind a run has made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryCounts {
    /// Duels (and best-of-k choices: a choice counts and costs as one duel, one preference query).
    pub duels: usize,
    /// Evaluations.
    pub evaluations: usize,
    /// Labels.
    pub labels: usize,
}

impl QueryCounts {
    /// Counts one more query of `kind`.
    pub fn add(&mut self, kind: QueryKind) {
        match kind {
            QueryKind::Duel | QueryKind::Choice => self.duels += 1,
            QueryKind::Evaluate => self.evaluations += 1,
            QueryKind::Label => self.labels += 1,
        }
    }
}

impl BudgetSpec {
    /// A budget of `total` with every query at cost 1.
    pub fn new(total: f64) -> Self {
        Self { total, duel: 1.0, evaluate: 1.0, label: 1.0 }
    }

    /// The costs and total as the algorithms see them ([`bohf_core::QueryCosts`], passed in the
    /// [`bohf_core::SearchContext`]).
    pub fn costs(&self) -> bohf_core::QueryCosts {
        bohf_core::QueryCosts { total: self.total, duel: self.duel, evaluate: self.evaluate, label: self.label }
    }

    /// The cost of one query of `kind` ([`bohf_core::QueryCosts::of`]: a choice costs a duel).
    pub fn cost(&self, kind: QueryKind) -> f64 {
        self.costs().of(kind)
    }

    /// The budget spent by `counts`: n_duel·duel + n_evaluate·evaluate + n_label·label.
    pub fn spent(&self, counts: &QueryCounts) -> f64 {
        counts.duels as f64 * self.duel + counts.evaluations as f64 * self.evaluate + counts.labels as f64 * self.label
    }

    /// Whether `spent` has reached the total: spent ≥ total·(1 − [`RELATIVE_SLACK`]).
    pub fn is_spent(&self, spent: f64) -> bool {
        spent >= self.total * (1.0 - RELATIVE_SLACK)
    }

    /// Errors naming the invalid field (`budget.total`, `budget.duel`, `budget.evaluate`,
    /// `budget.label`).
    pub fn validate(&self) -> Result<()> {
        if !(self.total.is_finite() && self.total > 0.0) {
            return Err(ExperimentError::spec("budget.total", format!("must be finite and > 0, got {}", self.total)));
        }
        for (field, cost) in
            [("budget.duel", self.duel), ("budget.evaluate", self.evaluate), ("budget.label", self.label)]
        {
            if !(cost.is_finite() && cost >= 0.0) {
                return Err(ExperimentError::spec(field, format!("a cost must be finite and >= 0, got {cost}")));
            }
        }
        Ok(())
    }
}

/// The spent budget Λ_t after each step t of `run` under `spec`'s `[budget]`; `None` without one.
pub fn spent_budget(run: &RunRecord, spec: &ExperimentSpec) -> Option<Vec<f64>> {
    let budget = spec.budget.as_ref()?;
    let mut counts = QueryCounts::default();
    Some(
        run.steps
            .iter()
            .map(|s| {
                counts.add(s.query);
                budget.spent(&counts)
            })
            .collect(),
    )
}

/// Whether `run` has the length of a complete run of `spec`: `horizon` steps, or (with a
/// `[budget]`) fewer that end at the first step whose spent budget reaches the total. The error
/// says why not.
pub fn check_length(run: &RunRecord, spec: &ExperimentSpec) -> std::result::Result<(), String> {
    let n = run.steps.len();
    let Some(budget) = &spec.budget else {
        return if n == spec.horizon { Ok(()) } else { Err(format!("has {n} steps, not T = {}", spec.horizon)) };
    };
    let spent = spent_budget(run, spec).unwrap_or_default();
    let first_spent = spent.iter().position(|&s| budget.is_spent(s));
    match first_spent {
        Some(k) if k + 1 == n => Ok(()),
        Some(k) => Err(format!(
            "has {n} steps, but its budget of {} was spent at step {} (a run stops there)",
            budget.total,
            k + 1
        )),
        None if n == spec.horizon => Ok(()),
        None => Err(format!(
            "has {n} steps and spent {} of its budget of {}: it ends neither at T = {} nor with its budget spent",
            spent.last().copied().unwrap_or(0.0),
            budget.total,
            spec.horizon
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of query is counted, and what one query of a kind spends is its kind's cost
    /// (a choice counts and costs as a duel), with the three prices distinct so that a kind counted
    /// under another's price shows.
    #[test]
    fn every_query_kind_is_counted_at_its_cost() {
        let budget = BudgetSpec { total: 10.0, duel: 1.0, evaluate: 2.0, label: 0.25 };
        let mut all = QueryCounts::default();
        for kind in QueryKind::ALL {
            let mut one = QueryCounts::default();
            one.add(kind);
            assert_eq!(one.duels + one.evaluations + one.labels, 1, "{kind}");
            assert_eq!(budget.spent(&one), budget.cost(kind), "{kind}");
            all.add(kind);
        }
        assert_eq!(all, QueryCounts { duels: 2, evaluations: 1, labels: 1 });
        assert_eq!(budget.spent(&all), QueryKind::ALL.iter().map(|&k| budget.cost(k)).sum::<f64>());
    }
}
