//! Regret of the papers, on a finite candidate set with utility u (on the respondent's scale, see
//! [`crate::problem`]) and x* = arg max u (the first maximiser on ties).
//!
//! With P(x ≻ x′) the respondent's preference probability (μ(u(x) − u(x′)) for a stochastic
//! respondent; 1, ½ or 0 for a deterministic one):
//!
//! * **instantaneous regret of a duel** (MR-LPF eq. (1), PF-TS eq. (2)):
//!   r_t = (P(x* ≻ x_t) + P(x* ≻ x′_t) − 1)/2 = (μ(h(x*, x_t)) + μ(h(x*, x′_t)) − 1)/2 ∈ [0, ½];
//! * **instantaneous regret of a best-of-k choice** (x_1, …, x_k): the mean of the options' gaps,
//!   r_t = (1/k) Σ_i (P(x* ≻ x_i) − ½) = (1/k) Σ_i μ(h(x*, x_i)) − ½, which at k = 2 is the duel's;
//! * **instantaneous regret of a single point** (a scalar evaluation or a label: PF-TS §1.2 puts
//!   GP-TS on the same scale with x′_t = x_t): r_t = P(x* ≻ x_t) − ½ = μ(h(x*, x_t)) − ½;
//! * **cumulative regret** R(t) = Σ_{s ≤ t} r_s;
//! * **simple regret of the recommendation** x̂_t (MR-LPF §1.2): P(x* ≻ x̂_t) − ½.
//!
//! All are 0 exactly when the points involved are maximisers.
//!
//! **On a box** ([`RegretModel::on_box`]) the same formulas hold with u(x*) the function's known
//! optimum on the box ([`bohf_problems::TestFunction::optimum`], exact or refined to double
//! precision) and u evaluated at the points' coordinates. Since u(x*) is the maximum up to its
//! stated precision, a difference u(x*) − u(x) below 0 (a point at the optimiser, rounded) is
//! taken as 0.
//!
//! ## The utility gap
//!
//! Beside these preference regrets, the **utility gap** that papers and BoTorch compare, on the
//! utility's own scale ([`RegretModel::utility_gaps`], the `utility_gap` columns of
//! [`crate::results`]):
//!
//! * **of a query**: g_t = u(x*) − u(x_t) for a single point; for a duel the papers' average
//!   (2u(x*) − u(x_t) − u(x′_t))/2; for a best-of-k choice the mean of u(x*) − u(x_i) over its
//!   options;
//! * **cumulative**: G(t) = Σ_{s ≤ t} g_s;
//! * **simple**: u(x*) − u(x̂_t) of the recommendation (BoTorch's and most papers' "simple regret").
//!
//! **Units.** The problem's own utility: the test function's values or the data set's utility
//! column, before everything the preparation applies ([`crate::problem`]: the `[problem]`'s
//! `scaling`, standardisation by default, and the respondent's scale s), so that f* − f(x̂) is in
//! the units of the function the spec names. The model holds the utility on the respondent's
//! scale, k·u + c, and the factor k ([`RegretModel::with_units`]; the preparation passes its
//! `utility_map`'s factor); a gap is its difference on that scale divided by k. On a box u(x*) is
//! the known optimum,
//! and a point rounded past it counts 0, as above.

use crate::results::{PointRecord, QueryKind, RunRecord, StepRecord, UtilityGap, index};
use bohf_core::{Error, Point, Query, Result};
use bohf_problems::{DuelModel, GridFunction, TestFunction};
use std::sync::Arc;

/// Where u and u(x*) come from.
#[derive(Debug, Clone)]
enum Truth {
    /// A utility tabulated on the candidates, x* its first maximiser.
    Grid { values: Vec<f64>, best: usize },
    /// A test function on a box with its known optimum u(x*).
    Box { utility: Arc<dyn TestFunction>, optimum: f64 },
}

/// The regret of queries and recommendations against the maximiser x* (of the grid, or the known
/// optimum of a box problem).
#[derive(Debug, Clone)]
pub struct RegretModel {
    truth: Truth,
    model: DuelModel,
    /// k: the tabulated utility is k·u + c, u the problem's own utility (before any scaling).
    units: f64,
}

impl RegretModel {
    /// The regret for utility `utility` under the respondent's duel model `model`.
    pub fn new(utility: &GridFunction, model: DuelModel) -> Self {
        Self { truth: Truth::Grid { values: utility.values().to_vec(), best: utility.argmax() }, model, units: 1.0 }
    }

    /// The same model for a utility that is k·u + c, u the problem's own utility (k = the factor of
    /// everything the preparation applies: the scaling, then the respondent's scale s): the utility
    /// gaps are divided by k, so they are in u's units. An error naming `respondent.scale` unless k is
    /// finite and positive.
    pub fn with_units(mut self, k: f64) -> Result<Self> {
        if !(k.is_finite() && k > 0.0) {
            return Err(Error::invalid(
                "respondent.scale",
                format!("the utility's factor must be > 0 and finite, got {k}"),
            ));
        }
        self.units = k;
        Ok(self)
    }

    /// The regret for a test function on a box (its [`TestFunction::domain`]) whose known optimum
    /// is u(x*); an error naming `problem.function` if the optimum is not known.
    pub fn on_box(utility: Arc<dyn TestFunction>, model: DuelModel) -> Result<Self> {
        let optimum = utility.optimum().map(|o| o.value).ok_or_else(|| {
            Error::invalid(
                "problem.function",
                format!("`{}` has no known optimum on the box {}", utility.name(), utility.domain()),
            )
        })?;
        Ok(Self { truth: Truth::Box { utility, optimum }, model, units: 1.0 })
    }

    /// The index of x* (the first maximiser) of a finite problem; `None` on a box.
    pub fn best(&self) -> Option<usize> {
        match &self.truth {
            Truth::Grid { best, .. } => Some(*best),
            Truth::Box { .. } => None,
        }
    }

    /// u(x*): the maximum of the tabulated utility, or the known optimum on the box.
    pub fn best_value(&self) -> f64 {
        match &self.truth {
            Truth::Grid { values, best } => values[*best],
            Truth::Box { optimum, .. } => *optimum,
        }
    }

    /// P(x* ≻ x) − ½ for a point: by its candidate index on a grid, by its coordinates on a box.
    pub fn point_gap(&self, p: &Point) -> Result<f64> {
        match &self.truth {
            Truth::Grid { .. } => self.gap(index(p)?),
            Truth::Box { utility, optimum } => {
                let v = utility.value(&p.coords)?;
                Ok(self.model.prob_first_wins((optimum - v).max(0.0)) - 0.5)
            }
        }
    }

    /// P(x* ≻ x_i) − ½ = μ(u(x*) − u(x_i)) − ½, the preference gap of candidate `i`.
    /// On a box problem, an error (there are no candidates).
    pub fn gap(&self, i: usize) -> Result<f64> {
        let Truth::Grid { values, best } = &self.truth else {
            return Err(Error::invalid("point", "a box problem has no candidates: regret is by coordinates"));
        };
        let v = values.get(i).ok_or_else(|| Error::IndexOutOfRange {
            context: "regret".into(),
            index: i,
            len: values.len(),
        })?;
        Ok(self.model.prob_first_wins(values[*best] - v) - 0.5)
    }

    /// r_t of a query: the mean of the two gaps for a duel (eq. (1)/(2)), the mean of the k gaps
    /// for a best-of-k choice, the gap for a single point. A choice with no options is an error
    /// naming `query`.
    pub fn instantaneous(&self, query: &Query) -> Result<f64> {
        match query {
            Query::Duel(x, y) => Ok(0.5 * (self.point_gap(x)? + self.point_gap(y)?)),
            Query::Choice(options) => {
                if options.is_empty() {
                    return Err(Error::invalid("query", "a choice with no options has no regret"));
                }
                let total = options.iter().map(|p| self.point_gap(p)).sum::<Result<f64>>()?;
                Ok(total / options.len() as f64)
            }
            Query::Evaluate(x) | Query::Label(x) => self.point_gap(x),
        }
    }

    /// The value gap u(x*) − u(x) of a recorded point (≥ 0; on a box, a point rounded past the
    /// optimum counts 0): the regret of COMP-GP-UCB's eq. (1) (notes 002 §1.4), on the utility's
    /// own scale rather than the preference scale. Errors for a candidate out of range, or a point
    /// of the other kind of domain.
    pub fn value_gap(&self, p: &crate::results::PointRecord) -> Result<f64> {
        use crate::results::PointRecord;
        match (&self.truth, p) {
            (Truth::Grid { values, best }, PointRecord::Candidate(i)) => {
                let v = values.get(*i).ok_or_else(|| Error::IndexOutOfRange {
                    context: "regret".into(),
                    index: *i,
                    len: values.len(),
                })?;
                Ok(values[*best] - v)
            }
            (Truth::Box { utility, optimum }, PointRecord::Coords(x)) => Ok((optimum - utility.value(x)?).max(0.0)),
            _ => Err(Error::invalid("point", "a candidate index on a box problem, or coordinates on a finite one")),
        }
    }

    /// The simple regret P(x* ≻ x̂) − ½ of a recommendation.
    pub fn simple(&self, recommendation: &Point) -> Result<f64> {
        self.point_gap(recommendation)
    }

    /// u(x*) − u(x) of a recorded point in the units of the problem's utility as the spec writes
    /// it (the [value gap](RegretModel::value_gap) divided by k, [`RegretModel::with_units`]).
    pub fn utility_gap(&self, p: &PointRecord) -> Result<f64> {
        Ok(self.value_gap(p)? / self.units)
    }

    /// The utility gaps of a step (see the module documentation), G(t) continuing from
    /// `cumulative_before` = G(t − 1). Errors as [`RegretModel::value_gap`], or for a choice
    /// without options or a duel without its second point (naming `query`).
    pub fn utility_gaps(&self, step: &StepRecord, cumulative_before: f64) -> Result<UtilityGap> {
        let points: Vec<&PointRecord> = match step.query {
            QueryKind::Choice => step.options.iter().collect(),
            QueryKind::Duel => {
                let second = step
                    .second
                    .as_ref()
                    .ok_or_else(|| Error::invalid("query", "a duel without its second point has no utility gap"))?;
                vec![&step.first, second]
            }
            QueryKind::Evaluate | QueryKind::Label => vec![&step.first],
        };
        if points.is_empty() {
            return Err(Error::invalid("query", "a choice with no options has no utility gap"));
        }
        let total = points.iter().map(|p| self.utility_gap(p)).sum::<Result<f64>>()?;
        let instantaneous = total / points.len() as f64;
        Ok(UtilityGap {
            instantaneous,
            cumulative: cumulative_before + instantaneous,
            simple: self.utility_gap(&step.recommendation)?,
        })
    }

    /// Computes the utility gaps of every step of `run` from its recorded points if some step has
    /// none recorded (a run written before they existed); a run with all of them is left as it is.
    /// Returns whether it filled them.
    pub fn fill_utility_gaps(&self, run: &mut RunRecord) -> Result<bool> {
        if run.steps.iter().all(|s| s.utility_gap.is_recorded()) {
            return Ok(false);
        }
        let mut cumulative = 0.0;
        for s in &mut run.steps {
            s.utility_gap = self.utility_gaps(s, cumulative)?;
            cumulative = s.utility_gap.cumulative;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bohf_core::{FiniteDomain, Link};

    fn sigmoid(t: f64) -> f64 {
        1.0 / (1.0 + (-t).exp())
    }

    #[test]
    fn regret_by_hand() {
        let dom = FiniteDomain::linspace(0.0, 1.0, 3).unwrap();
        let u = GridFunction::new(dom.clone(), vec![0.0, 1.0, 3.0]).unwrap();
        let p = |i| dom.point(i).unwrap();
        let m = RegretModel::new(&u, DuelModel::btl());
        assert_eq!(m.best(), Some(2));
        // Duel (0, 1): (σ(3) + σ(2) − 1)/2; one rounding per σ, so 1e−15.
        let want = (sigmoid(3.0) + sigmoid(2.0) - 1.0) / 2.0;
        assert!((m.instantaneous(&Query::Duel(p(0), p(1))).unwrap() - want).abs() < 1e-15);
        // The optimal duel has zero regret; a single point σ(2) − ½.
        assert_eq!(m.instantaneous(&Query::Duel(p(2), p(2))).unwrap(), 0.0);
        assert!((m.instantaneous(&Query::Evaluate(p(1))).unwrap() - (sigmoid(2.0) - 0.5)).abs() < 1e-15);
        assert!((m.simple(&p(0)).unwrap() - (sigmoid(3.0) - 0.5)).abs() < 1e-15);
        // A choice: the mean of the k gaps, (σ(3) + σ(2) + σ(0) − 3/2)/3; at k = 2 the duel's regret
        // (the same two sums in another order, so equal to rounding).
        let c3 = m.instantaneous(&Query::Choice(vec![p(0), p(1), p(2)])).unwrap();
        assert!((c3 - (sigmoid(3.0) + sigmoid(2.0) + 0.5 - 1.5) / 3.0).abs() < 1e-15, "{c3}");
        let c2 = m.instantaneous(&Query::Choice(vec![p(0), p(1)])).unwrap();
        assert!((c2 - want).abs() < 1e-15, "{c2} vs {want}");
        assert!(m.instantaneous(&Query::Choice(vec![])).unwrap_err().to_string().contains("`query`"));
        // Deterministic respondent: P(x* ≻ x) is 1 for a worse point, ½ for x* itself.
        let d = RegretModel::new(&u, DuelModel::Deterministic);
        assert_eq!(d.instantaneous(&Query::Duel(p(0), p(2))).unwrap(), 0.25);
        assert_eq!(d.instantaneous(&Query::Label(p(1))).unwrap(), 0.5);
        // Probit with scale 2: Φ(2·3) − ½ for candidate 0.
        let pr = RegretModel::new(&u, DuelModel::stochastic(Link::Probit, 2.0).unwrap());
        // Φ(6) = 0.9999999990134123 (mpmath); the link is accurate to a few ulps.
        assert!((pr.simple(&p(0)).unwrap() - (0.999_999_999_013_412_3 - 0.5)).abs() < 1e-14);
        // Errors: a point without an index, an index out of range.
        assert!(m.simple(&Point::continuous(vec![0.5])).is_err());
        assert!(m.simple(&Point::candidate(3, vec![])).is_err());
    }

    fn step(query: QueryKind, points: &[usize], recommendation: usize) -> StepRecord {
        let p: Vec<PointRecord> = points.iter().map(|&i| PointRecord::Candidate(i)).collect();
        StepRecord {
            t: 1,
            query,
            first: p[0].clone(),
            second: p.get(1).cloned(),
            options: if query == QueryKind::Choice { p.clone() } else { Vec::new() },
            answer: bohf_core::Answer::Duel { first_wins: true },
            regret: 0.0,
            cumulative_regret: 0.0,
            recommendation: PointRecord::Candidate(recommendation),
            simple_regret: 0.0,
            utility_gap: UtilityGap::NOT_RECORDED,
            elapsed_s: 0.0,
            details: Vec::new(),
        }
    }

    #[test]
    fn utility_gaps_by_hand() {
        // The spec's utility u = (0, 1, 3) on three points, prepared on the respondent's scale
        // s = 2 as (0, 2, 6): the gaps are in u's units, u* = 3.
        let dom = FiniteDomain::linspace(0.0, 1.0, 3).unwrap();
        let prepared = GridFunction::new(dom, vec![0.0, 2.0, 6.0]).unwrap();
        let m = RegretModel::new(&prepared, DuelModel::btl()).with_units(2.0).unwrap();
        let mut run = RunRecord {
            id: crate::results::RunId { algorithm: 0, run: 0 },
            label: "a".into(),
            steps: vec![
                // Duel (0, 1): (2·3 − 0 − 1)/2 = 2.5; recommendation 1: 3 − 1 = 2.
                step(QueryKind::Duel, &[0, 1], 1),
                // Choice (0, 1, 2): (3 + 2 + 0)/3 = 5/3, G = 2.5 + 5/3 = 25/6; recommendation x*: 0.
                step(QueryKind::Choice, &[0, 1, 2], 2),
                // Evaluate 0: 3, G = 25/6 + 3 = 43/6; label 2: 0, G stays; recommendation 0: 3.
                step(QueryKind::Evaluate, &[0], 0),
                step(QueryKind::Label, &[2], 0),
            ],
        };
        assert!(m.fill_utility_gaps(&mut run).unwrap());
        let want = [(2.5, 2.5, 2.0), (5.0 / 3.0, 25.0 / 6.0, 0.0), (3.0, 43.0 / 6.0, 3.0), (0.0, 43.0 / 6.0, 3.0)];
        for (s, (g, cum, simple)) in run.steps.iter().zip(want) {
            let u = s.utility_gap;
            // A few additions and one division of small numbers: within 4 ulps of 7.
            assert!((u.instantaneous - g).abs() < 4e-15, "{u:?} vs {g}");
            assert!((u.cumulative - cum).abs() < 4e-15, "{u:?} vs {cum}");
            assert_eq!(u.simple, simple);
        }
        // All recorded: nothing to fill.
        assert!(!m.fill_utility_gaps(&mut run).unwrap());
        // The factor must be positive; a duel without its second point has no gap.
        assert!(m.clone().with_units(0.0).unwrap_err().to_string().contains("`respondent.scale`"));
        let mut bad = step(QueryKind::Duel, &[0, 1], 1);
        bad.second = None;
        assert!(m.utility_gaps(&bad, 0.0).unwrap_err().to_string().contains("`query`"));
    }

    #[test]
    fn utility_gaps_on_a_box_use_the_known_optimum_in_the_spec_units() {
        // Ackley on its box, u = −A with u* = 0 at the origin; prepared ×4 (s = 4).
        let f = bohf_problems::functions::Ackley::new(2).unwrap();
        let scaled: Arc<dyn TestFunction> =
            Arc::new(bohf_problems::Rescaled::new(f, bohf_problems::Affine::new(4.0, 0.0).unwrap()));
        let m = RegretModel::on_box(scaled, DuelModel::btl()).unwrap().with_units(4.0).unwrap();
        let x = vec![1.0, 0.0];
        // A(1, 0) = −20·exp(−0.2·√0.5) − exp((cos 2π + 1)/2) + 20 + e = 20(1 − e^{−0.2/√2}) + e − e^1.
        let a = 20.0 * (1.0 - (-0.2 / 2f64.sqrt()).exp());
        let g = m.utility_gap(&PointRecord::Coords(x)).unwrap();
        assert!((g - a).abs() < 1e-12, "{g} vs {a}");
        // At the optimiser: 0 up to the rounding of Ackley's formula (−20 − e + 20 + e).
        assert!(m.utility_gap(&PointRecord::Coords(vec![0.0, 0.0])).unwrap().abs() < 1e-15);
    }
}
