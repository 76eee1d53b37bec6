//! COBOL's synthetic expert (Example 2.2 of "Principled Bayesian Optimisation in Collaboration with
//! Human Experts"; notes 004 §1.2).

use super::{Respondent, Utility, bernoulli, unsupported};
use crate::rescale::Affine;
use bohf_core::{Answer, Error, Link, Point, Query, Result};
use rand::Rng;

/// A synthetic expert that labels points accept/reject from a utility u (COBOL Example 2.2).
///
/// **COBOL's model** (minimisation convention, objective f): the expert's latent belief is
/// g(x) = a·ρ(f(x)) + b, and
///
/// P(x is rejected) = S(g(x)),  S(t) = 1/(1 + e^{−t}),  ρ(y) = 6(y − f_min)/(f_max − f_min) − 3,
///
/// where a is the **accuracy** (a > 0 informative, a = 0 random, a < 0 adversarial), ρ is the affine
/// map of [f_min, f_max] onto [−3, 3], and b = 0 in all the paper's experiments (the code's
/// `SyntheticAgentResponse` has the offset). Labels are independent Bernoulli draws; COBOL writes
/// 1 for reject, bohf answers `Answer::Label { accept }` with accept = ¬reject.
///
/// **In bohf's maximisation convention** the utility is u = −f, so u ∈ [u_min, u_max] =
/// [−f_max, −f_min], and ρ(f(x)) = −ρ_u(u(x)) with ρ_u the affine map of [u_min, u_max] onto
/// [−3, 3]. Hence g(x) = b − a·ρ_u(u(x)) ([`SyntheticExpert::belief`]): with a = 1 the maximiser of u
/// is rejected with probability S(−3) = 0.0474 (the paper's "about 95 % accepted"). The negation
/// happens in one place: [`SyntheticExpert::cobol`] turns COBOL's (f_min, f_max) into the utility
/// range, and the belief carries the sign. ρ is not clipped, so a range narrower than the true one
/// (COBOL's Rosenbrock uses f_max = 1.5·10⁴, below the domain maximum) gives |ρ| > 3, as in the
/// code.
///
/// COBOL's scaling constants (notes 004 §5.3, code): Ackley d = 4 on [−1, 1]⁴: f_max =
/// 3.6253849384403627 (= 20 − 20e^{−0.2}, at the corners), f* = 0; Hölder table: f_min = −19.2098,
/// f_max = 0; Rastrigin d = 2: f_max = 80, f* = 0; Michalewicz: f_max = 0, f* = −4.687658 (d = 5);
/// Rosenbrock d = 3: f_max = 1.5·10⁴, f* = 0. Where only f_max is listed, f_min = f* is the natural
/// reading.
#[derive(Debug, Clone)]
pub struct SyntheticExpert<U> {
    utility: U,
    accuracy: f64,
    rho: Affine,
    offset: f64,
    link: Link,
}

impl<U: Utility> SyntheticExpert<U> {
    /// An expert of accuracy a = `accuracy` whose ρ_u maps `utility_range` = (u_min, u_max) onto
    /// [−3, 3]; offset b = 0, logistic S.
    pub fn new(utility: U, accuracy: f64, utility_range: (f64, f64)) -> Result<Self> {
        if !accuracy.is_finite() {
            return Err(Error::invalid("accuracy", format!("must be finite, got {accuracy}")));
        }
        let (lo, hi) = utility_range;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::invalid("utility_range", format!("need finite u_min < u_max, got ({lo}, {hi})")));
        }
        let rho = Affine::to_range(&[lo, hi], -3.0, 3.0)?;
        Ok(Self { utility, accuracy, rho, offset: 0.0, link: Link::Logistic })
    }

    /// The expert of COBOL's experiments, from COBOL's scaling constants (f_min, f_max) of the
    /// **minimised** objective f = −u: the utility range is (−f_max, −f_min).
    pub fn cobol(utility: U, accuracy: f64, f_min: f64, f_max: f64) -> Result<Self> {
        Self::new(utility, accuracy, (-f_max, -f_min))
    }

    /// Sets the offset b (the code's `b`; 0 in the paper).
    pub fn with_offset(mut self, offset: f64) -> Result<Self> {
        if !offset.is_finite() {
            return Err(Error::invalid("offset", format!("must be finite, got {offset}")));
        }
        self.offset = offset;
        Ok(self)
    }

    /// Uses `link` for S instead of the logistic function.
    pub fn with_link(mut self, link: Link) -> Self {
        self.link = link;
        self
    }

    /// The accuracy a.
    pub fn accuracy(&self) -> f64 {
        self.accuracy
    }

    /// ρ_u(u) = 6(u − u_min)/(u_max − u_min) − 3.
    pub fn rho(&self, u: f64) -> f64 {
        self.rho.apply(u)
    }

    /// The latent belief g(x) = b − a·ρ_u(u(x)) (= COBOL's a·ρ(f(x)) + b): large g means likely
    /// rejection.
    pub fn belief(&self, x: &Point) -> Result<f64> {
        Ok(self.offset - self.accuracy * self.rho(self.utility.utility(x)?))
    }

    /// P(x is rejected) = S(g(x)).
    pub fn prob_reject(&self, x: &Point) -> Result<f64> {
        Ok(self.link.mu(self.belief(x)?))
    }

    /// One label: `true` if the expert accepts x.
    pub fn label(&self, x: &Point, rng: &mut (impl Rng + ?Sized)) -> Result<bool> {
        Ok(!bernoulli(self.prob_reject(x)?, rng))
    }
}

impl<U: Utility> Respondent for SyntheticExpert<U> {
    fn answer(&mut self, query: &Query, rng: &mut dyn Rng) -> Result<Answer> {
        match query {
            Query::Label(x) => Ok(Answer::Label { accept: self.label(x, rng)? }),
            _ => Err(unsupported("a labelling expert", query)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::assert_frequency;
    use super::*;
    use crate::functions::{Ackley, TestFunction, WithDomain};
    use bohf_core::BoxDomain;
    use bohf_core::rng::seeded;

    const ACKLEY4_FMAX: f64 = 3.6253849384403627;

    fn ackley4() -> WithDomain<Ackley> {
        WithDomain::new(Ackley::new(4).unwrap(), BoxDomain::cube(-1.0, 1.0, 4).unwrap()).unwrap()
    }

    fn rejections(e: &mut impl Respondent, x: &Point, n: usize, seed: u64) -> usize {
        let mut rng = seeded(seed);
        (0..n)
            .filter(|_| {
                matches!(e.answer(&Query::Label(x.clone()), &mut rng).unwrap(), Answer::Label { accept: false })
            })
            .count()
    }

    #[test]
    fn cobol_ackley_expert_matches_example_2_2() {
        // COBOL's f_max for Ackley-4 on [−1, 1]⁴ is its corner value 20 − 20e^{−0.2}.
        assert!((ackley4().published(&[1.0; 4]) - ACKLEY4_FMAX).abs() < 1e-14);
        assert!((20.0 - 20.0 * (-0.2f64).exp() - ACKLEY4_FMAX).abs() < 1e-14);
        let mut e = SyntheticExpert::cobol(ackley4(), 1.0, 0.0, ACKLEY4_FMAX).unwrap();
        let best = Point::continuous(vec![0.0; 4]);
        let worst = Point::continuous(vec![1.0; 4]);
        // The paper: S(−3) ≈ 0.05 ("exactly 0.04743") at the optimum; S(3) at the worst point.
        let s = |t: f64| 1.0 / (1.0 + (-t).exp());
        assert!((e.prob_reject(&best).unwrap() - s(-3.0)).abs() < 1e-15);
        assert!((e.prob_reject(&best).unwrap() - 0.04743).abs() < 0.5e-5);
        assert!((e.prob_reject(&worst).unwrap() - s(3.0)).abs() < 1e-14);
        // A middle point: p = S(a·ρ(f(x))) with ρ written out in COBOL's minimisation form.
        let x = vec![0.3, -0.2, 0.5, 0.1];
        let f = Ackley::new(4).unwrap().published(&x);
        let rho = 6.0 * (f - 0.0) / (ACKLEY4_FMAX - 0.0) - 3.0;
        let mid = Point::continuous(x);
        assert!((e.prob_reject(&mid).unwrap() - s(rho)).abs() < 1e-14);
        let n = 40_000;
        for (pt, seed) in [(&best, 1), (&mid, 2), (&worst, 3)] {
            let p = e.prob_reject(pt).unwrap();
            assert_frequency(rejections(&mut e, pt, n, seed), n, p, &format!("{:?}", pt.coords));
        }
    }

    #[test]
    fn accuracy_zero_is_random_and_negative_is_adversarial() {
        let best = Point::continuous(vec![0.0; 4]);
        let e0 = SyntheticExpert::cobol(ackley4(), 0.0, 0.0, ACKLEY4_FMAX).unwrap();
        assert_eq!(e0.prob_reject(&best).unwrap(), 0.5);
        let adv = SyntheticExpert::cobol(ackley4(), -2.0, 0.0, ACKLEY4_FMAX).unwrap();
        assert!((adv.prob_reject(&best).unwrap() - 1.0 / (1.0 + (-6.0f64).exp())).abs() < 1e-15);
        // The offset shifts the belief; the probit link changes S: Φ(−3) = 0.0013498980316300945
        // (mpmath); bohf-core's Φ is accurate to a few ulps, ρ(f) to a few more.
        let probit = SyntheticExpert::cobol(ackley4(), 1.0, 0.0, ACKLEY4_FMAX).unwrap().with_link(Link::Probit);
        let got = probit.prob_reject(&best).unwrap();
        assert!((got - 0.001_349_898_031_630_094_5).abs() < 1e-16, "{got}");
        let shifted = SyntheticExpert::cobol(ackley4(), 1.0, 0.0, ACKLEY4_FMAX).unwrap().with_offset(3.0).unwrap();
        // b = 3 cancels −a·ρ = −3 (up to rounding in ρ).
        assert!((shifted.prob_reject(&best).unwrap() - 0.5).abs() < 1e-14);
    }

    #[test]
    fn labels_repeat_with_the_seed() {
        let mut e = SyntheticExpert::cobol(ackley4(), 1.0, 0.0, ACKLEY4_FMAX).unwrap();
        let x = Point::continuous(vec![0.5, 0.5, 0.0, 0.0]);
        let run = |e: &mut SyntheticExpert<WithDomain<Ackley>>, s| {
            let mut rng = seeded(s);
            (0..200).map(|_| e.answer(&Query::Label(x.clone()), &mut rng).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(run(&mut e, 9), run(&mut e, 9));
        assert_ne!(run(&mut e, 9), run(&mut e, 10));
    }

    #[test]
    fn errors() {
        assert!(SyntheticExpert::new(ackley4(), 1.0, (1.0, 1.0)).is_err());
        assert!(SyntheticExpert::new(ackley4(), f64::NAN, (0.0, 1.0)).is_err());
        assert!(SyntheticExpert::new(ackley4(), 1.0, (0.0, 1.0)).unwrap().with_offset(f64::INFINITY).is_err());
        let mut e = SyntheticExpert::new(ackley4(), 1.0, (0.0, 1.0)).unwrap();
        let x = Point::continuous(vec![0.0; 4]);
        assert!(matches!(e.answer(&Query::Evaluate(x.clone()), &mut seeded(0)), Err(Error::InvalidParameter { .. })));
        assert!(e.answer(&Query::Label(Point::continuous(vec![0.0; 3])), &mut seeded(0)).is_err());
    }
}
