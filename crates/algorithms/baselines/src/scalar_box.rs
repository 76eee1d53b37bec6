//! GP-UCB with scalar feedback on a continuous box (Srinivas et al. 2010; issue 12):
//!
//! ```text
//! x_t = argmax_{x ∈ box} m_t(x) + β σ_t(x)
//! ```
//!
//! with the GP-regression posterior m_t, σ_t² of [`bohf_gp::GpRegression`] (the same model and
//! settings as the candidate-set [`crate::GpUcb`]: kernel k, noise ρ, constant width β). The argmax
//! is found by bohf-optim's multistart search ([`bohf_optim::maximize_on_box`]: a scrambled Sobol
//! design and a uniform sample screened, the best refined by projected L-BFGS) with the analytic
//! gradient
//!
//! ```text
//! ∇(m + βσ)(x) = ∇m(x) + β ∇σ²(x) / (2σ(x))
//! ```
//!
//! ([`bohf_gp::GpRegression::posterior_with_gradient`]); where σ(x) ≤ 10⁻¹²·√k(x, x) the β-term's
//! gradient is taken as 0 (σ is not differentiable at 0). The observed point with the largest
//! posterior mean is added as an extra start. It recommends the observed point with the largest
//! posterior mean (lowest index on ties), or the centre of the box before any observation.
//!
//! With a `hyperparameters` table ([`GpUcbConfig::hyperparameters`]) the posterior is a
//! [`bohf_gp::LearnedGp`]: the kernel's hyperparameters are refitted by type-II maximum likelihood
//! on its schedule, and m, σ² and their gradients are those of the fitted model in original units.

use crate::scalar::{GpUcbConfig, ValidGpUcbConfig};
use bohf_core::{Answer, AtField, BoxDomain, Error, Optimizer, Point, Query, Result, check_pending};
use bohf_gp::{GpRegression, LearnedGp, UcbObjective, ValueGp};
use bohf_kernels::Kernel;
use bohf_optim::{BoxMaximum, MultistartConfig, Objective, ValidMultistartConfig, maximize_on_box};
use nalgebra::{DMatrix, DVector};
use rand::Rng;

/// What the last suggestion of [`GpUcbBox`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxUcbStep {
    /// The observations the posterior was built from.
    pub observations: usize,
    /// The largest m_t + β σ_t found (at the suggested point).
    pub ucb: f64,
    /// Calls of the acquisition function (screening and local searches).
    pub evaluations: usize,
}

/// GP-UCB on a continuous box; see the module documentation.
#[derive(Debug)]
pub struct GpUcbBox {
    config: GpUcbConfig,
    search: MultistartConfig,
    domain: BoxDomain,
    gp: ValueGp,
    initial_values: usize,
    pending: Option<Vec<f64>>,
    last_step: Option<BoxUcbStep>,
}

impl GpUcbBox {
    /// GP-UCB on `domain` with checked settings ([`GpUcbConfig::check`],
    /// [`MultistartConfig::check`]). Errors if the kernel's fixed input dimension (ARD) differs from
    /// the box's.
    pub fn new(domain: BoxDomain, config: ValidGpUcbConfig, search: ValidMultistartConfig) -> Result<Self> {
        let hyper = config.checked_hyperparameters().clone();
        let (config, search) = (config.into_config(), search.into_config());
        let kernel = config.kernel.build()?;
        if let Some(d) = kernel.input_dim()
            && d != domain.dim()
        {
            return Err(Error::dims("kernel input dimension vs box", domain.dim(), d));
        }
        let gp = match hyper {
            None => ValueGp::Fixed(GpRegression::fit(
                kernel,
                &DMatrix::zeros(0, domain.dim()),
                &DVector::zeros(0),
                config.noise,
            )?),
            Some(h) => ValueGp::Learned(Box::new(
                LearnedGp::new(
                    h,
                    config.kernel.build_stationary().at("kernel")?,
                    config.noise,
                    Some(domain.clone()),
                    domain.dim(),
                )
                .at("hyperparameters")?,
            )),
        };
        let initial_values = config.initial_values(None)?;
        Ok(Self { config, search, domain, gp, initial_values, pending: None, last_step: None })
    }

    /// The same algorithm at the run's costs: the initial random values become ⌊Λ₀/λ_l⌋ with λ_l
    /// the budget's evaluation cost ([`GpUcbConfig::initial_values`]; [`GpUcbBox::new`] assumes
    /// cost 1). Errors name `budget.evaluate`.
    pub fn with_costs(mut self, costs: Option<&bohf_core::QueryCosts>) -> Result<Self> {
        self.initial_values = self.config.initial_values(costs)?;
        Ok(self)
    }

    /// The number of initial uniformly random values.
    pub fn initial_values(&self) -> usize {
        self.initial_values
    }

    /// The configuration.
    pub fn config(&self) -> &GpUcbConfig {
        &self.config
    }

    /// The settings of the acquisition search.
    pub fn search(&self) -> &MultistartConfig {
        &self.search
    }

    /// The box.
    pub fn domain(&self) -> &BoxDomain {
        &self.domain
    }

    /// The posterior after the observed values.
    pub fn gp(&self) -> &ValueGp {
        &self.gp
    }

    /// The 1-based round t whose query is chosen next.
    pub fn round(&self) -> usize {
        self.gp.len() + 1
    }

    /// The pending suggestion, if any.
    pub fn pending(&self) -> Option<&[f64]> {
        self.pending.as_deref()
    }

    /// What the last suggestion found.
    pub fn last_step(&self) -> Option<&BoxUcbStep> {
        self.last_step.as_ref()
    }

    /// m_t(x) + β σ_t(x) at a point (errors name a wrong dimension or a non-finite coordinate).
    pub fn ucb_at(&self, x: &[f64]) -> Result<f64> {
        UcbObjective { gp: &self.gp, beta: self.config.beta }.value(x)
    }

    /// m_t(x) + β σ_t(x) and its gradient at a point.
    pub fn ucb_with_gradient(&self, x: &[f64]) -> Result<(f64, Vec<f64>)> {
        let mut g = vec![0.0; x.len()];
        let v = UcbObjective { gp: &self.gp, beta: self.config.beta }.value_and_gradient(x, &mut g)?;
        Ok((v, g))
    }

    /// The maximiser of m_t + β σ_t over the box (the multistart search of the module docs).
    pub fn maximize_ucb(&self, rng: &mut (impl Rng + ?Sized)) -> Result<BoxMaximum> {
        let extra: Vec<Vec<f64>> = self.gp.incumbent()?.into_iter().collect();
        let mut ucb = UcbObjective { gp: &self.gp, beta: self.config.beta };
        maximize_on_box(&mut ucb, &self.domain, rng, &extra, &self.search)
    }
}

impl Optimizer for GpUcbBox {
    fn name(&self) -> &'static str {
        "GP-UCB"
    }

    /// A uniformly random point of the box while fewer than [`GpUcbBox::initial_values`] values are
    /// observed; then the multistart maximiser of m_t + β σ_t, with its screening points drawn from
    /// `rng`.
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        if self.gp.len() < self.initial_values {
            let x = self.domain.sample(rng);
            self.last_step = None;
            self.pending = Some(x.clone());
            return Ok(Query::Evaluate(Point::continuous(x)));
        }
        let best = self.maximize_ucb(&mut *rng)?;
        self.last_step =
            Some(BoxUcbStep { observations: self.gp.len(), ucb: best.value, evaluations: best.evaluations });
        self.pending = Some(best.x.clone());
        Ok(Query::Evaluate(Point::continuous(best.x)))
    }

    /// Errors (naming `query` or `answer`) for a query other than [`Query::Evaluate`], a point of
    /// the wrong dimension, non-finite or outside the box, a point other than the pending suggestion,
    /// or an answer other than a finite [`Answer::Value`].
    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let Query::Evaluate(p) = query else {
            return Err(Error::invalid("query", format!("GP-UCB asks for values (Query::Evaluate), got {query:?}")));
        };
        let y = answer.value()?;
        let x = self.domain.checked_point(p, "evaluated")?;
        check_pending(self.pending.as_deref(), x)?;
        self.gp.append(x, y)?;
        self.pending = None;
        Ok(())
    }

    /// The observed point with the largest posterior mean, or the box's centre before any
    /// observation.
    fn recommend(&self) -> Result<Point> {
        let x = match self.gp.incumbent()? {
            Some(x) => x,
            None => self.domain.lower().iter().zip(self.domain.upper()).map(|(l, u)| 0.5 * (l + u)).collect(),
        };
        Ok(Point::continuous(x))
    }
}
