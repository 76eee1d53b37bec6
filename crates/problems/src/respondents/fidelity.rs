//! COMP-GP-UCB's two-fidelity respondent (Xu, Joshi, Singh & Dubrawski, UAI 2020; notes 002 §1).

use super::{DuelModel, DuelRespondent, NoisyValue, Respondent, Utility, unsupported};
use bohf_core::{Answer, Error, Query, Result};
use rand::Rng;

/// Direct labels from the target f, comparisons from a second fidelity f_c (COMP-GP-UCB §1.1–1.2):
///
/// * `Query::Evaluate(x)` → y = f(x) + ε, ε ~ N(0, σ²) (the paper assumes bounded or sub-Gaussian
///   noise; its synthetic experiments add none, σ = 0);
/// * `Query::Duel(x, x′)` → x wins with P = μ(f_c(x) − f_c(x′)) under a [`DuelModel`] (the paper
///   allows any link; its experiments do not say which, so [`DuelModel::Deterministic`],
///   1[f_c(x) > f_c(x′)], is the literal reading, notes 002 §5.2);
/// * `Query::Choice(x_1, …, x_k)` → a best-of-k answer from f_c under the same model
///   ([`DuelModel::choice_probabilities`]).
///
/// The bias between the fidelities is Assumption 1's ζ: |(f_c* − f_c(x)) − (f* − f(x))| ≤ ζ for
/// all x ([`comparison_bias`] computes it on a grid). The synthetic tasks are CurrinExp and Borehole
/// with their low fidelities as f_c ([`crate::functions::Fidelity`]).
#[derive(Debug, Clone)]
pub struct BiasedComparisons<F, C> {
    labels: NoisyValue<F>,
    duels: DuelRespondent<C>,
}

impl<F: Utility, C: Utility> BiasedComparisons<F, C> {
    /// Labels from `f` with noise standard deviation `label_noise_sd` ≥ 0, duels from `f_c` under
    /// `model`.
    pub fn new(f: F, f_c: C, model: DuelModel, label_noise_sd: f64) -> Result<Self> {
        Ok(Self { labels: NoisyValue::new(f, label_noise_sd)?, duels: DuelRespondent::new(f_c, model)? })
    }

    /// The label (high-fidelity) respondent.
    pub fn labels(&self) -> &NoisyValue<F> {
        &self.labels
    }

    /// The comparison (low-fidelity) respondent.
    pub fn duels(&self) -> &DuelRespondent<C> {
        &self.duels
    }
}

impl<F: Utility, C: Utility> Respondent for BiasedComparisons<F, C> {
    fn answer(&mut self, query: &Query, rng: &mut dyn Rng) -> Result<Answer> {
        match query {
            Query::Evaluate(_) => self.labels.answer(query, rng),
            Query::Duel(..) | Query::Choice(_) => self.duels.answer(query, rng),
            Query::Label(_) => Err(unsupported("a two-fidelity (labels + comparisons) respondent", query)),
        }
    }
}

/// COMP-GP-UCB's Assumption 1 bias on a grid: ζ = maxᵢ |(f_c* − f_c(xᵢ)) − (f* − f(xᵢ))| with
/// f* = maxᵢ f(xᵢ), f_c* = maxᵢ f_c(xᵢ), from the values of f and f_c at the same points. It is
/// invariant to adding constants to either function, and 0 when f_c = f + const.
pub fn comparison_bias(f_values: &[f64], fc_values: &[f64]) -> Result<f64> {
    if f_values.len() != fc_values.len() {
        return Err(Error::dims("comparison bias: f_c values vs f values", f_values.len(), fc_values.len()));
    }
    if f_values.is_empty() {
        return Err(Error::Empty("values for the comparison bias".into()));
    }
    bohf_core::error::ensure_finite("f values", f_values.iter())?;
    bohf_core::error::ensure_finite("f_c values", fc_values.iter())?;
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (fs, cs) = (max(f_values), max(fc_values));
    Ok(f_values.iter().zip(fc_values).map(|(f, c)| ((cs - c) - (fs - f)).abs()).fold(0.0, f64::max))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::assert_frequency;
    use super::*;
    use crate::functions::{CurrinExp, Fidelity, TestFunction};
    use crate::grid::GridFunction;
    use bohf_core::rng::seeded;
    use bohf_core::{Link, Point};

    fn currin() -> BiasedComparisons<CurrinExp, CurrinExp> {
        BiasedComparisons::new(
            CurrinExp::new(Fidelity::High),
            CurrinExp::new(Fidelity::Low),
            DuelModel::Deterministic,
            0.0,
        )
        .unwrap()
    }

    #[test]
    fn labels_come_from_f_and_duels_from_f_c() {
        let mut r = currin();
        let mut rng = seeded(4);
        // x maximises f, y maximises f_c: f prefers x, f_c prefers y.
        let x = Point::continuous(vec![13.0 / 60.0, 0.0]);
        let y = Point::continuous(vec![0.235752919947553, 0.0]);
        let (f, fc) = (CurrinExp::new(Fidelity::High), CurrinExp::new(Fidelity::Low));
        assert!(f.value(&x.coords).unwrap() > f.value(&y.coords).unwrap());
        assert!(fc.value(&y.coords).unwrap() > fc.value(&x.coords).unwrap());
        assert_eq!(r.answer(&Query::Evaluate(x.clone()), &mut rng).unwrap(), Answer::Value(4319.0 / 313.0));
        for _ in 0..100 {
            assert_eq!(
                r.answer(&Query::Duel(x.clone(), y.clone()), &mut rng).unwrap(),
                Answer::Duel { first_wins: false }
            );
        }
        assert!(r.answer(&Query::Label(x), &mut rng).is_err());
    }

    #[test]
    fn stochastic_comparisons_follow_the_low_fidelity() {
        let (f, fc) = (CurrinExp::new(Fidelity::High), CurrinExp::new(Fidelity::Low));
        let mut r = BiasedComparisons::new(f, fc, DuelModel::stochastic(Link::Logistic, 1.0).unwrap(), 0.0).unwrap();
        let (a, b) = (vec![0.3, 0.2], vec![0.6, 0.5]);
        let want = 1.0 / (1.0 + (-(fc.published(&a) - fc.published(&b))).exp());
        let q = Query::Duel(Point::continuous(a), Point::continuous(b));
        let mut rng = seeded(12);
        let n = 40_000;
        let hits = (0..n).filter(|_| r.answer(&q, &mut rng).unwrap() == Answer::Duel { first_wins: true }).count();
        assert_frequency(hits, n, want, "CurrinExp f_c duel");
    }

    #[test]
    fn currin_bias_matches_the_notes() {
        // Notes 002 §5.1 [COMPUTED]: the Assumption-1 sup is ≈ 0.755 on a 1001² grid (three digits).
        let grid = CurrinExp::new(Fidelity::High).domain().grid(1001).unwrap();
        let f = GridFunction::tabulate(&CurrinExp::new(Fidelity::High), &grid).unwrap();
        let fc = GridFunction::tabulate(&CurrinExp::new(Fidelity::Low), &grid).unwrap();
        let zeta = comparison_bias(f.values(), fc.values()).unwrap();
        assert!((zeta - 0.755).abs() < 0.5e-3, "ζ = {zeta}");
    }

    #[test]
    fn bias_by_hand_and_errors() {
        // f_c = f + 7 has no bias. Swapped values: gaps to the optimum are (1, 0) under f and (0, 1)
        // under f_c, so ζ = 1. Three points: gaps (2, 0, 1) vs (0, 3, 3) give ζ = max(2, 3, 2) = 3.
        assert_eq!(comparison_bias(&[1.0, 2.0, 0.5], &[8.0, 9.0, 7.5]).unwrap(), 0.0);
        assert_eq!(comparison_bias(&[1.0, 2.0], &[2.0, 1.0]).unwrap(), 1.0);
        assert_eq!(comparison_bias(&[0.0, 2.0, 1.0], &[5.0, 2.0, 2.0]).unwrap(), 3.0);
        assert!(comparison_bias(&[1.0], &[1.0, 2.0]).is_err());
        assert!(comparison_bias(&[], &[]).is_err());
        assert!(
            BiasedComparisons::new(
                CurrinExp::new(Fidelity::High),
                CurrinExp::new(Fidelity::Low),
                DuelModel::btl(),
                -1.0
            )
            .is_err()
        );
    }
}
