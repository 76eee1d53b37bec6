//! Regret of the papers, on a finite candidate set with utility u (on the respondent's scale, see
//! [`crate::problem`]) and x* = arg max u (the first maximiser on ties).
//!
//! With P(x ≻ x′) the respondent's preference probability (μ(u(x) − u(x′)) for a stochastic
//! respondent; 1, ½ or 0 for a deterministic one):
//!
//! * **instantaneous regret of a duel** (MR-LPF eq. (1), PF-TS eq. (2)):
//!   r_t = (P(x* ≻ x_t) + P(x* ≻ x′_t) − 1)/2 = (μ(h(x*, x_t)) + μ(h(x*, x′_t)) − 1)/2 ∈ [0, ½];
//! * **instantaneous regret of a single point** (a scalar evaluation or a label: PF-TS §1.2 puts
//!   GP-TS on the same scale with x′_t = x_t): r_t = P(x* ≻ x_t) − ½ = μ(h(x*, x_t)) − ½;
//! * **cumulative regret** R(t) = Σ_{s ≤ t} r_s;
//! * **simple regret of the recommendation** x̂_t (MR-LPF §1.2): P(x* ≻ x̂_t) − ½.
//!
//! All are 0 exactly when the points involved are maximisers.

use bohf_core::{Error, Point, Query, Result};
use bohf_problems::{DuelModel, GridFunction};

/// The regret of queries and recommendations against the grid maximiser x*.
#[derive(Debug, Clone, PartialEq)]
pub struct RegretModel {
    values: Vec<f64>,
    best: usize,
    model: DuelModel,
}

impl RegretModel {
    /// The regret for utility `utility` under the respondent's duel model `model`.
    pub fn new(utility: &GridFunction, model: DuelModel) -> Self {
        Self { values: utility.values().to_vec(), best: utility.argmax(), model }
    }

    /// The index of x* (the first maximiser).
    pub fn best(&self) -> usize {
        self.best
    }

    /// P(x* ≻ x_i) − ½ = μ(u(x*) − u(x_i)) − ½, the preference gap of candidate `i`.
    pub fn gap(&self, i: usize) -> Result<f64> {
        let v = self.values.get(i).ok_or_else(|| Error::IndexOutOfRange {
            context: "regret".into(),
            index: i,
            len: self.values.len(),
        })?;
        Ok(self.model.prob_first_wins(self.values[self.best] - v) - 0.5)
    }

    /// r_t of a query: the mean of the two gaps for a duel (eq. (1)/(2)), the gap for a single point.
    pub fn instantaneous(&self, query: &Query) -> Result<f64> {
        match query {
            Query::Duel(x, y) => Ok(0.5 * (self.gap(index(x)?)? + self.gap(index(y)?)?)),
            Query::Evaluate(x) | Query::Label(x) => self.gap(index(x)?),
        }
    }

    /// The simple regret P(x* ≻ x̂) − ½ of a recommendation.
    pub fn simple(&self, recommendation: &Point) -> Result<f64> {
        self.gap(index(recommendation)?)
    }
}

/// The candidate index a point carries.
pub(crate) fn index(p: &Point) -> Result<usize> {
    p.index.ok_or_else(|| Error::invalid("point", "regret is defined on candidates: the point has no candidate index"))
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
        assert_eq!(m.best(), 2);
        // Duel (0, 1): (σ(3) + σ(2) − 1)/2; one rounding per σ, so 1e−15.
        let want = (sigmoid(3.0) + sigmoid(2.0) - 1.0) / 2.0;
        assert!((m.instantaneous(&Query::Duel(p(0), p(1))).unwrap() - want).abs() < 1e-15);
        // The optimal duel has zero regret; a single point σ(2) − ½.
        assert_eq!(m.instantaneous(&Query::Duel(p(2), p(2))).unwrap(), 0.0);
        assert!((m.instantaneous(&Query::Evaluate(p(1))).unwrap() - (sigmoid(2.0) - 0.5)).abs() < 1e-15);
        assert!((m.simple(&p(0)).unwrap() - (sigmoid(3.0) - 0.5)).abs() < 1e-15);
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
}
