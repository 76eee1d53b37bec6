//! Preference (duel) respondents.

use super::{Respondent, Utility, bernoulli, unsupported};
use bohf_core::{Answer, Error, Link, Point, Query, Result};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// How a duel between x and x′ is decided from the utility difference Δ = u(x) − u(x′).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DuelModel {
    /// P(x ≻ x′) = μ(s·Δ): Bradley–Terry–Luce for the logistic link, Thurstone for the probit
    /// (MR-LPF eq. (1), PF-TS App. F.1, POP-BO Assumption 2.5, COMP-GP-UCB §1.2). The scale s > 0
    /// is how the papers rescale utilities (MR-LPF's RKHS functions: s = 5).
    Stochastic {
        /// The link μ.
        link: Link,
        /// The utility scale s.
        scale: f64,
    },
    /// x wins iff u(x) > u(x′), a tie by a fair coin: the most literal reading of COMP-GP-UCB's
    /// experiments (notes 002 §5.2).
    Deterministic,
}

impl DuelModel {
    /// The BTL model P(x ≻ x′) = σ(Δ) (logistic link, scale 1), the papers' default.
    pub fn btl() -> Self {
        DuelModel::Stochastic { link: Link::Logistic, scale: 1.0 }
    }

    /// P(x ≻ x′) = μ(scale·Δ), with `scale` finite and > 0.
    pub fn stochastic(link: Link, scale: f64) -> Result<Self> {
        let m = DuelModel::Stochastic { link, scale };
        m.check()?;
        Ok(m)
    }

    fn check(&self) -> Result<()> {
        match *self {
            DuelModel::Stochastic { scale, .. } => bohf_core::error::ensure_positive("scale", scale),
            DuelModel::Deterministic => Ok(()),
        }
    }

    /// The probability that each of k options with utilities `utilities` is chosen in a best-of-k
    /// query ([`Query::Choice`]):
    ///
    /// * stochastic: the multinomial logit P(i) = exp(s·u_i) / Σ_j exp(s·u_j)
    ///   ([`bohf_core::link::choice_probabilities`] at scale 1/s), whatever the link: at k = 2 it
    ///   is the logistic duel μ(s·Δ), so for [`Link::Logistic`] a 2-option choice is a duel. (With
    ///   [`Link::Probit`] duels stay probit and choices are logit: no closed form exists for a
    ///   probit choice among k > 2.)
    /// * deterministic: the best option; a tie between maximisers by a fair draw among them (at
    ///   k = 2, the deterministic duel).
    pub fn choice_probabilities(&self, utilities: &[f64]) -> Vec<f64> {
        match *self {
            DuelModel::Stochastic { scale, .. } => bohf_core::link::choice_probabilities(utilities, 1.0 / scale),
            DuelModel::Deterministic => {
                let top = utilities.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let ties = utilities.iter().filter(|&&u| u == top).count() as f64;
                utilities.iter().map(|&u| if u == top { 1.0 / ties } else { 0.0 }).collect()
            }
        }
    }

    /// P(x ≻ x′) as a function of Δ = u(x) − u(x′).
    pub fn prob_first_wins(&self, delta: f64) -> f64 {
        match *self {
            DuelModel::Stochastic { link, scale } => link.mu(scale * delta),
            DuelModel::Deterministic => {
                if delta > 0.0 {
                    1.0
                } else if delta < 0.0 {
                    0.0
                } else {
                    0.5
                }
            }
        }
    }
}

/// Answers duels from a utility u: `Query::Duel(x, x′)` → `Answer::Duel { first_wins }` with
/// first_wins ~ Bernoulli(P(x ≻ x′)) under a [`DuelModel`]; and best-of-k queries:
/// `Query::Choice(x_1, …, x_k)` → `Answer::Choice { index }` with index drawn from
/// [`DuelModel::choice_probabilities`] (one uniform draw, inverted through the cumulative
/// probabilities).
#[derive(Debug, Clone)]
pub struct DuelRespondent<U> {
    utility: U,
    model: DuelModel,
}

impl<U: Utility> DuelRespondent<U> {
    /// A respondent with utility `utility` and duel model `model` (its scale is checked).
    pub fn new(utility: U, model: DuelModel) -> Result<Self> {
        model.check()?;
        Ok(Self { utility, model })
    }

    /// The BTL respondent P(x ≻ x′) = σ(u(x) − u(x′)).
    pub fn btl(utility: U) -> Self {
        Self { utility, model: DuelModel::btl() }
    }

    /// The utility.
    pub fn utility(&self) -> &U {
        &self.utility
    }

    /// The duel model.
    pub fn model(&self) -> DuelModel {
        self.model
    }

    /// P(x ≻ x′).
    pub fn prob_first_wins(&self, x: &Point, x_prime: &Point) -> Result<f64> {
        Ok(self.model.prob_first_wins(self.utility.utility(x)? - self.utility.utility(x_prime)?))
    }

    /// One duel: `true` if x wins.
    pub fn duel(&self, x: &Point, x_prime: &Point, rng: &mut (impl Rng + ?Sized)) -> Result<bool> {
        Ok(bernoulli(self.prob_first_wins(x, x_prime)?, rng))
    }

    /// P(option i is chosen) for each of `options` ([`DuelModel::choice_probabilities`]). Errors:
    /// an invalid choice (fewer than 2 options, a repeated option; naming `query`), a utility error.
    pub fn choice_probabilities(&self, options: &[Point]) -> Result<Vec<f64>> {
        let query = Query::Choice(options.to_vec());
        query.check()?;
        let u = options.iter().map(|p| self.utility.utility(p)).collect::<Result<Vec<f64>>>()?;
        Ok(self.model.choice_probabilities(&u))
    }

    /// One best-of-k answer: the index of the chosen option.
    pub fn choose(&self, options: &[Point], rng: &mut (impl Rng + ?Sized)) -> Result<usize> {
        use rand::RngExt;
        let p = self.choice_probabilities(options)?;
        let u: f64 = rng.random();
        let mut cumulative = 0.0;
        for (i, pi) in p.iter().enumerate() {
            cumulative += pi;
            if u < cumulative {
                return Ok(i);
            }
        }
        // Rounding left the cumulative sum just below u: the last option with positive probability.
        Ok(p.iter().rposition(|&pi| pi > 0.0).unwrap_or(p.len() - 1))
    }
}

impl<U: Utility> Respondent for DuelRespondent<U> {
    fn answer(&mut self, query: &Query, rng: &mut dyn Rng) -> Result<Answer> {
        match query {
            Query::Duel(x, x_prime) => Ok(Answer::Duel { first_wins: self.duel(x, x_prime, rng)? }),
            Query::Choice(options) => Ok(Answer::Choice { index: self.choose(options, rng)? }),
            _ => Err(unsupported("a duel respondent", query)),
        }
    }
}

/// The Borda scores f_r(xᵢ) = (1/n) Σⱼ P(xᵢ ≻ xⱼ) on a grid with utilities `values`: the probability
/// that xᵢ beats a point drawn uniformly from the grid (itself included, at probability ½).
/// COMP-GP-UCB §1.3 regresses f_r(x) = P(x ≻ X) on duel outcomes against random X; this is its
/// value for X uniform on the grid (the paper leaves the distribution open, notes 002 §1.3). O(n²).
pub fn borda_scores(values: &[f64], model: &DuelModel) -> Result<Vec<f64>> {
    if values.is_empty() {
        return Err(Error::Empty("values for Borda scores".into()));
    }
    bohf_core::error::ensure_finite("values for Borda scores", values.iter())?;
    model.check()?;
    let n = values.len() as f64;
    Ok(values.iter().map(|&a| values.iter().map(|&b| model.prob_first_wins(a - b)).sum::<f64>() / n).collect())
}

#[cfg(test)]
mod tests {
    use super::super::test_support::assert_frequency;
    use super::*;
    use crate::functions::{Branin, TestFunction};
    use crate::grid::GridFunction;
    use bohf_core::FiniteDomain;
    use bohf_core::rng::seeded;

    fn grid3() -> GridFunction {
        GridFunction::new(FiniteDomain::linspace(0.0, 1.0, 3).unwrap(), vec![0.0, 0.3, -0.5]).unwrap()
    }

    fn frequency(r: &mut impl Respondent, q: &Query, n: usize, seed: u64) -> usize {
        let mut rng = seeded(seed);
        (0..n).filter(|_| matches!(r.answer(q, &mut rng).unwrap(), Answer::Duel { first_wins: true })).count()
    }

    #[test]
    fn btl_frequencies_match_the_model() {
        let g = grid3();
        let p = |i: usize| g.domain().point(i).unwrap();
        let n = 40_000;
        // Logistic with the MR-LPF scale 5: P = 1/(1 + exp(−5Δ)), written out.
        let mut r = DuelRespondent::new(&g, DuelModel::stochastic(Link::Logistic, 5.0).unwrap()).unwrap();
        for (a, b, delta) in [(1, 0, 0.3), (0, 2, 0.5), (2, 1, -0.8), (1, 1, 0.0_f64)] {
            let want = 1.0 / (1.0 + (-5.0 * delta).exp());
            assert!((r.prob_first_wins(&p(a), &p(b)).unwrap() - want).abs() < 1e-15);
            let hits = frequency(&mut r, &Query::Duel(p(a), p(b)), n, 11 + a as u64);
            assert_frequency(hits, n, want, &format!("logistic ({a}, {b})"));
        }
        // Probit, scale 1: Φ(0.8) = 0.78814460141660333 (mpmath); bohf-core's Φ (Cody's algorithm) is
        // accurate to a few ulps, and Δ = 0.8 itself carries a rounding error of an ulp or two.
        let mut r = DuelRespondent::new(&g, DuelModel::stochastic(Link::Probit, 1.0).unwrap()).unwrap();
        let want = 0.788_144_601_416_603_4;
        let got = r.prob_first_wins(&p(1), &p(2)).unwrap();
        assert!((got - want).abs() < 1e-15, "{got} vs {want}");
        assert_frequency(frequency(&mut r, &Query::Duel(p(1), p(2)), n, 5), n, want, "probit");
    }

    #[test]
    fn btl_on_a_continuous_test_function() {
        // Branin (maximise −Branin): a point near a minimiser beats a poor one with P = σ(Δ).
        let mut r = DuelRespondent::btl(Branin);
        let (x, y) = (Point::continuous(vec![3.0, 2.5]), Point::continuous(vec![3.2, 3.0]));
        let delta = Branin.published(&[3.2, 3.0]) - Branin.published(&[3.0, 2.5]);
        let want = 1.0 / (1.0 + (-delta).exp());
        let n = 40_000;
        assert_frequency(frequency(&mut r, &Query::Duel(x, y), n, 3), n, want, "branin");
    }

    #[test]
    fn deterministic_duels() {
        let g = grid3();
        let p = |i: usize| g.domain().point(i).unwrap();
        let mut r = DuelRespondent::new(&g, DuelModel::Deterministic).unwrap();
        assert_eq!(frequency(&mut r, &Query::Duel(p(1), p(0)), 1000, 1), 1000);
        assert_eq!(frequency(&mut r, &Query::Duel(p(2), p(0)), 1000, 1), 0);
        let n = 40_000;
        assert_frequency(frequency(&mut r, &Query::Duel(p(0), p(0)), n, 2), n, 0.5, "tie");
    }

    #[test]
    fn same_seed_same_answers() {
        let g = grid3();
        let p = |i: usize| g.domain().point(i).unwrap();
        let q = Query::Duel(p(0), p(1));
        let mut r = DuelRespondent::btl(&g);
        let run = |r: &mut DuelRespondent<&GridFunction>, seed| {
            let mut rng = seeded(seed);
            (0..200).map(|_| r.answer(&q, &mut rng).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(run(&mut r, 42), run(&mut r, 42));
        assert_ne!(run(&mut r, 42), run(&mut r, 43));
    }

    #[test]
    fn choice_frequencies_match_the_multinomial_logit() {
        let g = grid3();
        let p = |i: usize| g.domain().point(i).unwrap();
        let options = vec![p(0), p(1), p(2)];
        let q = Query::Choice(options.clone());
        let n = 40_000;
        // Scale 2: weights exp(2·u) = exp(0), exp(0.6), exp(−1), written out.
        let mut r = DuelRespondent::new(&g, DuelModel::stochastic(Link::Logistic, 2.0).unwrap()).unwrap();
        let w = [1.0, 0.6f64.exp(), (-1.0f64).exp()];
        let z: f64 = w.iter().sum();
        let probs = r.choice_probabilities(&options).unwrap();
        let mut rng = seeded(8);
        let answers: Vec<usize> = (0..n)
            .map(|_| match r.answer(&q, &mut rng).unwrap() {
                Answer::Choice { index } => index,
                a => panic!("not a choice answer: {a:?}"),
            })
            .collect();
        for i in 0..3 {
            assert!((probs[i] - w[i] / z).abs() < 1e-15, "{probs:?}");
            assert_frequency(answers.iter().filter(|&&a| a == i).count(), n, w[i] / z, &format!("option {i}"));
        }
        // k = 2: the logistic duel's probability.
        let two = r.choice_probabilities(&[p(1), p(2)]).unwrap();
        assert!((two[0] - r.prob_first_wins(&p(1), &p(2)).unwrap()).abs() < 1e-15);
        // Deterministic: the argmax always; a tie between maximisers by a fair draw.
        let mut d = DuelRespondent::new(&g, DuelModel::Deterministic).unwrap();
        let mut rng = seeded(1);
        assert!((0..200).all(|_| d.answer(&q, &mut rng).unwrap() == Answer::Choice { index: 1 }));
        let tied = GridFunction::new(g.domain().clone(), vec![1.0, -2.0, 1.0]).unwrap();
        let mut t = DuelRespondent::new(&tied, DuelModel::Deterministic).unwrap();
        let hits = (0..n).filter(|_| t.answer(&q, &mut rng).unwrap() == Answer::Choice { index: 2 }).count();
        assert_frequency(hits, n, 0.5, "tie between options 0 and 2");
        // Invalid choices are errors naming the query.
        for bad in [vec![p(0)], vec![p(0), p(1), p(0)]] {
            let e = r.answer(&Query::Choice(bad), &mut rng).unwrap_err().to_string();
            assert!(e.contains("`query`"), "{e}");
        }
    }

    #[test]
    fn borda_scores_by_hand() {
        // Deterministic: xᵢ beats the i smaller values and ties itself: (i + ½)/3.
        let s = borda_scores(&[0.0, 1.0, 2.0], &DuelModel::Deterministic).unwrap();
        for (i, v) in s.iter().enumerate() {
            assert!((v - (i as f64 + 0.5) / 3.0).abs() < 1e-15);
        }
        // Logistic: f_r(x₀) = (σ(0) + σ(−1) + σ(−2))/3.
        let s = borda_scores(&[0.0, 1.0, 2.0], &DuelModel::btl()).unwrap();
        let sig = |t: f64| 1.0 / (1.0 + (-t).exp());
        assert!((s[0] - (0.5 + sig(-1.0) + sig(-2.0)) / 3.0).abs() < 1e-15);
        // The scores average to ½ (P(i ≻ j) + P(j ≻ i) = 1).
        assert!((s.iter().sum::<f64>() / 3.0 - 0.5).abs() < 1e-15);
        assert!(borda_scores(&[], &DuelModel::btl()).is_err());
    }

    #[test]
    fn wrong_queries_and_parameters_are_errors() {
        let g = grid3();
        let mut r = DuelRespondent::btl(&g);
        let mut rng = seeded(0);
        let x = g.domain().point(0).unwrap();
        assert!(matches!(r.answer(&Query::Evaluate(x.clone()), &mut rng), Err(Error::InvalidParameter { .. })));
        assert!(matches!(r.answer(&Query::Label(x), &mut rng), Err(Error::InvalidParameter { .. })));
        assert!(DuelModel::stochastic(Link::Logistic, 0.0).is_err());
        assert!(DuelRespondent::new(&g, DuelModel::Stochastic { link: Link::Probit, scale: f64::NAN }).is_err());
    }
}
