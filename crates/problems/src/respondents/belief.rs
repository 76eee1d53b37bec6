//! COBOL's multivariate-normal belief expert (App. H/I, Experiment D (b), Fig. 6b; notes 004 §3.5):
//! the πBO-style belief of [42] turned into accept/reject labels.

use super::{Respondent, bernoulli, unsupported};
use bohf_core::{Answer, Error, Point, Query, Result};
use rand::Rng;

/// An expert whose belief about where the optimum lies is a normal density N(x; μ, Σ), labelling
/// x **accepted** with probability
///
/// p̃_norm(x) = N(x; μ, Σ) / N(μ; μ, Σ) = exp(−½ (x − μ)ᵀ Σ⁻¹ (x − μ)),
///
/// i.e. the density rescaled from [0, |2πΣ|^{−1/2}] to [0, 1] (the paper: "rescale … and use the
/// result as the acceptance probability"; reject with probability 1 − p̃_norm). The paper uses
/// Σ = I and three belief levels: **strong** (μ = x*), **weak** (an intermediate offset) and
/// **wrong** (the point of the domain farthest from x*). μ and Σ are in the coordinates of the
/// points the expert is asked about. Labels are independent Bernoulli draws.
#[derive(Debug, Clone)]
pub struct MvnBeliefExpert {
    mean: Vec<f64>,
    /// The Cholesky factor L of Σ = LLᵀ.
    chol: bohf_core::linalg::Cholesky,
}

impl MvnBeliefExpert {
    /// The expert of mean μ = `mean` and covariance Σ = `cov` (d × d, symmetric positive
    /// definite; `None`: the identity, the paper's Σ = I). Errors name `mean` (empty or not
    /// finite) or `cov` (wrong shape, not symmetric, not positive definite).
    #[allow(clippy::needless_range_loop)] // matrix indices read as the formula
    pub fn new(mean: Vec<f64>, cov: Option<Vec<Vec<f64>>>) -> Result<Self> {
        let d = mean.len();
        if d == 0 || mean.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid("mean", format!("need a finite point of dimension >= 1, got {mean:?}")));
        }
        let cov =
            cov.unwrap_or_else(|| (0..d).map(|i| (0..d).map(|j| f64::from(u8::from(i == j))).collect()).collect());
        if cov.len() != d || cov.iter().any(|r| r.len() != d) {
            return Err(Error::invalid("cov", format!("must be a {d} × {d} matrix (the mean's dimension)")));
        }
        for i in 0..d {
            for j in 0..d {
                let (a, b) = (cov[i][j], cov[j][i]);
                if !a.is_finite() || (a - b).abs() > 1e-12 * (a.abs() + b.abs()).max(1.0) {
                    return Err(Error::invalid(
                        "cov",
                        format!("must be finite and symmetric: [{i}][{j}] = {a}, [{j}][{i}] = {b}"),
                    ));
                }
            }
        }
        // Σ = LLᵀ (bohf-core's Cholesky, no jitter): an error means Σ is not positive definite.
        let sigma = nalgebra::DMatrix::from_fn(d, d, |i, j| cov[i][j]);
        let chol = bohf_core::linalg::Cholesky::new(&sigma)
            .map_err(|e| Error::invalid("cov", format!("must be positive definite ({e})")))?;
        Ok(Self { mean, chol })
    }

    /// The dimension d.
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// μ.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// The squared Mahalanobis distance (x − μ)ᵀ Σ⁻¹ (x − μ) = ‖L⁻¹(x − μ)‖².
    pub fn mahalanobis2(&self, x: &[f64]) -> Result<f64> {
        if x.len() != self.dim() {
            return Err(Error::dims("belief expert's point", self.dim(), x.len()));
        }
        bohf_core::error::ensure_finite("belief expert's point", x)?;
        let r = nalgebra::DMatrix::from_fn(x.len(), 1, |i, _| x[i] - self.mean[i]);
        Ok(self.chol.solve_lower(&r)?.norm_squared())
    }

    /// P(x is accepted) = exp(−½ (x − μ)ᵀ Σ⁻¹ (x − μ)) ∈ (0, 1], 1 at μ.
    pub fn prob_accept(&self, x: &Point) -> Result<f64> {
        Ok((-0.5 * self.mahalanobis2(&x.coords)?).exp())
    }

    /// One label: `true` if the expert accepts x.
    pub fn label(&self, x: &Point, rng: &mut (impl Rng + ?Sized)) -> Result<bool> {
        Ok(bernoulli(self.prob_accept(x)?, rng))
    }
}

impl Respondent for MvnBeliefExpert {
    fn answer(&mut self, query: &Query, rng: &mut dyn Rng) -> Result<Answer> {
        match query {
            Query::Label(x) => Ok(Answer::Label { accept: self.label(x, rng)? }),
            _ => Err(unsupported("a belief expert", query)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::assert_frequency;
    use super::*;
    use bohf_core::rng::seeded;

    #[test]
    fn acceptance_is_the_rescaled_normal_density() {
        // Σ = I in 4-D: at μ the density ratio is 1; at distance r it is exp(−r²/2), written here
        // as the ratio of the normal densities (2π)^{−d/2} e^{−r²/2} / (2π)^{−d/2}.
        let e = MvnBeliefExpert::new(vec![0.0; 4], None).unwrap();
        let at = |x: Vec<f64>| e.prob_accept(&Point::continuous(x)).unwrap();
        assert_eq!(at(vec![0.0; 4]), 1.0);
        let norm = (2.0 * std::f64::consts::PI).powf(-2.0);
        let density = |r2: f64| norm * (-0.5 * r2).exp();
        assert!((at(vec![1.0; 4]) - density(4.0) / density(0.0)).abs() < 1e-15);
        assert!((at(vec![1.0; 4]) - 0.1353352832366127).abs() < 1e-15);
        // Far away: vanishing (underflows to 0 without error).
        assert!(at(vec![30.0; 4]) < 1e-300);
        // A full covariance: Σ = [[2, 1], [1, 2]], Σ⁻¹ = [[2, −1], [−1, 2]]/3, so at x − μ = (1, 0)
        // the quadratic form is 2/3 and at (1, −1) it is 2.
        let e2 = MvnBeliefExpert::new(vec![0.5, -0.5], Some(vec![vec![2.0, 1.0], vec![1.0, 2.0]])).unwrap();
        assert!((e2.mahalanobis2(&[1.5, -0.5]).unwrap() - 2.0 / 3.0).abs() < 1e-15);
        assert!((e2.mahalanobis2(&[1.5, -1.5]).unwrap() - 2.0).abs() < 1e-15);
        // Label frequencies follow the probability.
        let mut e = e;
        let n = 40_000;
        for (x, seed) in [(vec![0.0; 4], 1), (vec![0.5; 4], 2), (vec![1.0; 4], 3)] {
            let p = e.prob_accept(&Point::continuous(x.clone())).unwrap();
            let mut r = seeded(seed);
            let hits = (0..n)
                .filter(|_| {
                    matches!(
                        e.answer(&Query::Label(Point::continuous(x.clone())), &mut r).unwrap(),
                        Answer::Label { accept: true }
                    )
                })
                .count();
            assert_frequency(hits, n, p, &format!("{x:?}"));
        }
    }

    #[test]
    fn bad_beliefs_name_the_field() {
        let field = |r: Result<MvnBeliefExpert>| r.unwrap_err().to_string();
        assert!(field(MvnBeliefExpert::new(vec![], None)).contains("mean"));
        assert!(field(MvnBeliefExpert::new(vec![f64::NAN], None)).contains("mean"));
        assert!(field(MvnBeliefExpert::new(vec![0.0, 0.0], Some(vec![vec![1.0]]))).contains("cov"));
        let not_pd = Some(vec![vec![1.0, 2.0], vec![2.0, 1.0]]);
        assert!(field(MvnBeliefExpert::new(vec![0.0, 0.0], not_pd)).contains("positive definite"));
        let asym = Some(vec![vec![1.0, 0.5], vec![0.0, 1.0]]);
        assert!(field(MvnBeliefExpert::new(vec![0.0, 0.0], asym)).contains("symmetric"));
        assert!(field(MvnBeliefExpert::new(vec![0.0], Some(vec![vec![0.0]]))).contains("cov"));
        let mut e = MvnBeliefExpert::new(vec![0.0, 0.0], None).unwrap();
        assert!(e.answer(&Query::Label(Point::continuous(vec![0.0; 3])), &mut seeded(0)).is_err());
        assert!(e.answer(&Query::Evaluate(Point::continuous(vec![0.0; 2])), &mut seeded(0)).is_err());
    }
}
