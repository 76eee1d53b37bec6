//! A GP posterior of observed values with fixed or learned hyperparameters ([`ValueGp`]), and its
//! upper confidence bound as an objective for the box search ([`UcbObjective`]).

use super::{GpRegression, LearnedGp, PointPosterior};
use bohf_core::{Result, argmax_lowest};
use bohf_kernels::Kernel;
use bohf_optim::Objective;
use nalgebra::DMatrix;
use rand::Rng;

/// A GP posterior of observed values: fixed hyperparameters (the papers' setting) or learned
/// ones. GP-UCB (`bohf-baselines`) and COMP-GP-UCB's two GPs (`bohf-compgpucb`) keep one.
#[derive(Debug)]
pub enum ValueGp {
    /// The configured kernel and noise.
    Fixed(GpRegression<Box<dyn Kernel>>),
    /// Hyperparameters refitted on the config's schedule.
    Learned(Box<LearnedGp>),
}

impl ValueGp {
    /// m(x) and σ²(x).
    pub fn mean_variance_at(&self, x: &[f64]) -> Result<(f64, f64)> {
        match self {
            ValueGp::Fixed(gp) => gp.mean_variance_at(x),
            ValueGp::Learned(gp) => gp.mean_variance_at(x),
        }
    }

    /// m(x), σ²(x) and their gradients.
    pub fn posterior_with_gradient(&self, x: &[f64]) -> Result<PointPosterior> {
        match self {
            ValueGp::Fixed(gp) => gp.posterior_with_gradient(x),
            ValueGp::Learned(gp) => gp.posterior_with_gradient(x),
        }
    }

    /// `count` joint posterior draws of f at the rows of `xs`, one per column (m×count), in the
    /// model's original units (a learned model draws in its working units and maps back, which is
    /// affine); the draws come from `rng` ([`GpRegression::sample`]).
    pub fn sample(&self, xs: &DMatrix<f64>, count: usize, rng: &mut (impl Rng + ?Sized)) -> Result<DMatrix<f64>> {
        match self {
            ValueGp::Fixed(gp) => gp.sample(xs, count, rng),
            ValueGp::Learned(gp) => {
                let t = gp.transform();
                Ok(gp.working()?.sample(&t.inputs(xs)?, count, rng)?.map(|v| t.mean_to_original(v)))
            }
        }
    }

    /// The prior variance k(x, x).
    pub fn prior_variance_at(&self, x: &[f64]) -> Result<f64> {
        match self {
            ValueGp::Fixed(gp) => Ok(gp.kernel().eval(x, x)),
            ValueGp::Learned(gp) => gp.prior_variance_at(x),
        }
    }

    /// Adds an observation (a learned model refits when its schedule says so).
    pub fn append(&mut self, x: &[f64], y: f64) -> Result<()> {
        match self {
            ValueGp::Fixed(gp) => gp.append(x, y),
            ValueGp::Learned(gp) => gp.append(x, y),
        }
    }

    /// The number of observations.
    pub fn len(&self) -> usize {
        match self {
            ValueGp::Fixed(gp) => gp.len(),
            ValueGp::Learned(gp) => gp.len(),
        }
    }

    /// True before the first observation.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The observed point with the largest posterior mean (lowest index on ties), if any.
    pub fn incumbent(&self) -> Result<Option<Vec<f64>>> {
        if self.is_empty() {
            return Ok(None);
        }
        Ok(Some(match self {
            ValueGp::Fixed(gp) => {
                let i = argmax_lowest(gp.mean(gp.inputs())?.iter().copied())?;
                gp.inputs().row(i).iter().copied().collect()
            }
            ValueGp::Learned(gp) => gp.observed_point(argmax_lowest(gp.means_at_observed()?.iter().copied())?).to_vec(),
        }))
    }
}

/// The upper confidence bound m + βσ (Srinivas et al. 2010) with its gradient
/// ∇m + β∇σ²/(2σ), as a [`bohf_optim::Objective`]; the β-term's gradient is taken as 0 where
/// σ ≤ 10⁻¹²·√k(x, x) (σ is not differentiable at 0).
#[derive(Debug, Clone, Copy)]
pub struct UcbObjective<'a> {
    /// The posterior.
    pub gp: &'a ValueGp,
    /// The width β.
    pub beta: f64,
}

impl Objective for UcbObjective<'_> {
    fn value(&mut self, x: &[f64]) -> Result<f64> {
        let (m, v) = self.gp.mean_variance_at(x)?;
        Ok(m + self.beta * v.sqrt())
    }

    fn value_and_gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<f64> {
        let p = self.gp.posterior_with_gradient(x)?;
        let sigma = p.variance.sqrt();
        let prior = self.gp.prior_variance_at(x)?.max(0.0).sqrt();
        let scale = if sigma > 1e-12 * prior && sigma > 0.0 { self.beta / (2.0 * sigma) } else { 0.0 };
        for ((g, gm), gv) in grad.iter_mut().zip(&p.mean_gradient).zip(&p.variance_gradient) {
            *g = gm + scale * gv;
        }
        Ok(p.mean + self.beta * sigma)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bohf_kernels::Stationary;
    use nalgebra::DVector;

    fn fitted(len: usize) -> ValueGp {
        let x = DMatrix::from_fn(len, 2, |i, j| ((i * 7 + j * 3) % 11) as f64 / 10.0);
        let y = DVector::from_fn(len, |i, _| (3.0 * x[(i, 0)]).sin() + x[(i, 1)]);
        let kernel: Box<dyn Kernel> = Box::new(Stationary::matern52(0.3).unwrap());
        ValueGp::Fixed(GpRegression::fit(kernel, &x, &y, 0.01).unwrap())
    }

    #[test]
    fn the_ucb_is_m_plus_beta_sigma_and_its_gradient_matches_finite_differences() {
        let gp = fitted(8);
        for beta in [0.0, 0.5, 2.0] {
            let mut ucb = UcbObjective { gp: &gp, beta };
            for x in [[0.05, 0.9], [0.45, 0.35], [0.97, 0.02]] {
                let (m, v) = gp.mean_variance_at(&x).unwrap();
                let mut g = [0.0; 2];
                let value = ucb.value_and_gradient(&x, &mut g).unwrap();
                assert!((value - (m + beta * v.sqrt())).abs() < 1e-12, "{value} vs m + βσ");
                assert!((ucb.value(&x).unwrap() - value).abs() < 1e-12);
                for j in 0..2 {
                    let h = 1e-6;
                    let (mut up, mut down) = (x, x);
                    up[j] += h;
                    down[j] -= h;
                    let fd = (ucb.value(&up).unwrap() - ucb.value(&down).unwrap()) / (2.0 * h);
                    assert!((g[j] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "β {beta}, ∂{j} at {x:?}: {} vs {fd}", g[j]);
                }
            }
        }
    }

    #[test]
    fn the_incumbent_is_the_observed_point_of_largest_mean_and_appending_grows_the_model() {
        let mut gp = fitted(8);
        let ValueGp::Fixed(inner) = &gp else { unreachable!() };
        let means = inner.mean(inner.inputs()).unwrap();
        let best = (0..means.len()).max_by(|&a, &b| means[a].total_cmp(&means[b])).unwrap();
        let expected: Vec<f64> = inner.inputs().row(best).iter().copied().collect();
        assert_eq!(gp.incumbent().unwrap(), Some(expected));
        gp.append(&[0.5, 0.5], 3.0).unwrap();
        assert_eq!(gp.len(), 9);
        assert!(!gp.is_empty());
        assert_eq!(gp.prior_variance_at(&[0.2, 0.2]).unwrap(), 1.0);
    }
}
