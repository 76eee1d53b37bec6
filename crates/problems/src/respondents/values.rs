//! Noisy evaluations of the utility.

use super::{Respondent, Utility, unsupported};
use bohf_core::{Answer, Error, Point, Query, Result};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// Answers `Query::Evaluate(x)` with y = u(x) + ε, ε ~ N(0, σ²) (the scalar oracle of PF-TS App.
/// F.1 with σ = 1, COBOL's oracle queries, COMP-GP-UCB's direct labels with σ = 0: "no extra noise").
#[derive(Debug, Clone)]
pub struct NoisyValue<U> {
    utility: U,
    noise_sd: f64,
}

impl<U: Utility> NoisyValue<U> {
    /// Evaluations of `utility` with noise standard deviation σ = `noise_sd` ≥ 0.
    pub fn new(utility: U, noise_sd: f64) -> Result<Self> {
        if !(noise_sd.is_finite() && noise_sd >= 0.0) {
            return Err(Error::invalid("noise_sd", format!("must be finite and >= 0, got {noise_sd}")));
        }
        Ok(Self { utility, noise_sd })
    }

    /// The noise standard deviation σ.
    pub fn noise_sd(&self) -> f64 {
        self.noise_sd
    }

    /// The utility.
    pub fn utility(&self) -> &U {
        &self.utility
    }

    /// One noisy evaluation u(x) + σ z, z ~ N(0, 1) (no draw is taken when σ = 0).
    pub fn observe(&self, x: &Point, rng: &mut (impl Rng + ?Sized)) -> Result<f64> {
        let u = self.utility.utility(x)?;
        if self.noise_sd == 0.0 {
            return Ok(u);
        }
        let z: f64 = StandardNormal.sample(rng);
        Ok(u + self.noise_sd * z)
    }
}

impl<U: Utility> Respondent for NoisyValue<U> {
    fn answer(&mut self, query: &Query, rng: &mut dyn Rng) -> Result<Answer> {
        match query {
            Query::Evaluate(x) => Ok(Answer::Value(self.observe(x, rng)?)),
            _ => Err(unsupported("a value respondent", query)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::{Branin, TestFunction};
    use bohf_core::rng::seeded;

    #[test]
    fn mean_and_variance_match_the_model() {
        let sd = 0.7;
        let mut r = NoisyValue::new(Branin, sd).unwrap();
        let x = Point::continuous(vec![1.0, 3.0]);
        let u = Branin.value(&[1.0, 3.0]).unwrap();
        let mut rng = seeded(8);
        let n = 40_000;
        let ys: Vec<f64> = (0..n)
            .map(|_| match r.answer(&Query::Evaluate(x.clone()), &mut rng).unwrap() {
                Answer::Value(y) => y,
                a => panic!("unexpected {a:?}"),
            })
            .collect();
        let mean = ys.iter().sum::<f64>() / n as f64;
        let var = ys.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        // 5 standard errors: σ/√n for the mean, σ²√(2/(n−1)) for the sample variance.
        assert!((mean - u).abs() < 5.0 * sd / (n as f64).sqrt(), "mean {mean} vs {u}");
        assert!((var - sd * sd).abs() < 5.0 * sd * sd * (2.0 / (n - 1) as f64).sqrt(), "var {var}");
    }

    #[test]
    fn noiseless_is_exact_and_seeded_runs_repeat() {
        let mut r = NoisyValue::new(Branin, 0.0).unwrap();
        let x = Point::continuous(vec![1.0, 3.0]);
        let want = Answer::Value(Branin.value(&[1.0, 3.0]).unwrap());
        assert_eq!(r.answer(&Query::Evaluate(x.clone()), &mut seeded(1)).unwrap(), want);
        let mut noisy = NoisyValue::new(Branin, 1.0).unwrap();
        let draw = |r: &mut NoisyValue<Branin>, s| r.answer(&Query::Evaluate(x.clone()), &mut seeded(s)).unwrap();
        assert_eq!(draw(&mut noisy, 5), draw(&mut noisy, 5));
        assert_ne!(draw(&mut noisy, 5), draw(&mut noisy, 6));
    }

    #[test]
    fn errors() {
        assert!(NoisyValue::new(Branin, -1.0).is_err());
        assert!(NoisyValue::new(Branin, f64::INFINITY).is_err());
        let mut r = NoisyValue::new(Branin, 1.0).unwrap();
        let x = Point::continuous(vec![1.0, 3.0]);
        assert!(r.answer(&Query::Label(x.clone()), &mut seeded(0)).is_err());
        assert!(r.answer(&Query::Duel(x.clone(), x), &mut seeded(0)).is_err());
        assert!(r.answer(&Query::Evaluate(Point::continuous(vec![1.0])), &mut seeded(0)).is_err());
    }
}
