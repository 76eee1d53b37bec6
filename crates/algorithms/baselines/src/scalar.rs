//! GP-UCB and GP-TS with scalar feedback on a finite candidate set: the reference the PF-TS paper
//! plots against its preference-based methods (App. F: "vanilla GP-TS", noise N(0, 1), the same
//! v_t as PF-TS; GP-UCB with width 1 is listed among the confidence-interval methods).
//!
//! Both keep the GP-regression (kernel-ridge) posterior of f ~ GP(0, k) given the observed values
//! y_s = f(x_s) + ε_s, ε_s ~ N(0, ρ), on the candidates (PF-TS eq. (5), MR-LPF eq. (5)–(6)):
//!
//! ```text
//! m_t(x) = k_t(x)ᵀ (K_t + ρI)⁻¹ y,      Σ_t(x, x′) = k(x, x′) − k_t(x)ᵀ (K_t + ρI)⁻¹ k_t(x′),
//! ```
//!
//! updated in O(n²) per observation ([`bohf_gp::CandidateGp`]), with ρ = `noise` (default 1, the
//! papers' N(0, 1) noise) and t − 1 observations at round t (the prior at t = 1).
//!
//! * **GP-UCB** (Srinivas et al. 2010): x_t = argmax_x m_t(x) + β σ_t(x), σ_t² = Σ_t(x, x), with a
//!   constant width β (default 1, the papers' "width 1").
//! * **GP-TS** (Chowdhury & Gopalan 2017): x_t = argmax_x f̃(x), f̃ = m_t + v_t F z, z ~ N(0, I_r),
//!   F Fᵀ = Σ_t (one joint draw on the candidates), v_t from a [`WidthSchedule`] (default
//!   PF-TS App. F.1's v_t² = √(t + 1 + log 40); the theoretical schedule uses Chowdhury & Gopalan's
//!   v_t = B + R√(2(Γ(t − 1) + 1 + log(2/δ))) with R = √ρ and Γ the upper end of bohf-infogain's
//!   greedy bracket for points with noise ρ, computed once for t ≤ T; their analysis regularises
//!   with 1 + 2/T instead of ρ).
//!
//! Both recommend the argmax of the posterior mean m_t. Every argmax takes the lowest index among
//! ties (so candidate 0 at the prior). A query is [`Query::Evaluate`] and its answer
//! [`Answer::Value`]; the protocol (pending suggestion, replay) is that of every bohf algorithm.

use bohf_core::WidthSchedule;
use bohf_core::argmax_lowest;
use bohf_core::check_pending;
use bohf_core::{Answer, AtField, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext};
use bohf_gp::exploration::{Feedback, TheoryInputs};
use bohf_gp::regression::ValidHyperFitConfig;
use bohf_gp::{CandidateGp, HyperFitConfig, JointSampler, LearnedGp, check_exploration, default_exploration};
use bohf_infogain::greedy_points;
use bohf_kernels::KernelSpec;
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// The papers' observation noise: ε ~ N(0, 1) (PF-TS App. F.1).
pub const DEFAULT_NOISE: f64 = 1.0;

/// Settings of [`GpUcb`]; defaults: Matérn-5/2 with ℓ = 0.1, noise variance 1, β = 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GpUcbConfig {
    /// The kernel k (default Matérn-5/2, ℓ = 0.1).
    pub kernel: KernelSpec,
    /// The observation-noise variance ρ > 0, also the kernel-ridge regulariser (default 1).
    pub noise: f64,
    /// The width β ≥ 0 of m + βσ (default 1).
    pub beta: f64,
    /// Learn the kernel's hyperparameters by type-II maximum likelihood
    /// ([`bohf_gp::HyperFitConfig`]: bounds, prior, input scaling, output standardisation,
    /// `refit_every`), starting every fit from `kernel` and `noise` read in the fit's working units
    /// (inputs in [0, 1]^d, standardised values). Absent (default): the kernel and noise stay fixed,
    /// as in the PF-TS and MR-LPF papers. On a finite candidate set the inputs are scaled by the
    /// candidates' bounding box and the posterior is evaluated at every candidate. With the fit's
    /// default `standardise_outputs = true` the kernel's scale follows the observed values (their
    /// standard deviation, times a learned σ² with `learn_variance`), which the COMP-GP-UCB
    /// experiments need: their values span ≈ 12.6 (CurrinExp) and ≈ 300 (Borehole), where a fixed
    /// unit-variance kernel makes σ negligible beside the mean and GP-UCB re-evaluates one point
    /// (notes 002 §5.3: bandwidth and scale learned by marginal likelihood, refitted every 5
    /// values). Fitted hyperparameters are outside the papers' guarantees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hyperparameters: Option<HyperFitConfig>,
    /// Λ₀ ≥ 0: an initial budget spent on uniformly random values before the rule starts,
    /// ⌊Λ₀/λ_l⌋ of them with λ_l the run's evaluation cost ([`GpUcbConfig::initial_values`]; COMP-GP-UCB's
    /// protocol, notes 002 §5.3: 10). Default 0: the papers' GP-UCB starts at the prior.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub initial_budget: f64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

impl Default for GpUcbConfig {
    fn default() -> Self {
        Self {
            kernel: KernelSpec::default(),
            noise: DEFAULT_NOISE,
            beta: 1.0,
            hyperparameters: None,
            initial_budget: 0.0,
        }
    }
}

bohf_core::validated! {
    /// A [`GpUcbConfig`] that passed [`GpUcbConfig::check`]: what [`GpUcb::new`] takes.
    pub struct ValidGpUcbConfig(GpUcbConfig) {
        /// The checked hyperparameter fit (`hyperparameters`), if any.
        checked_hyperparameters: Option<ValidHyperFitConfig>,
    }
}

impl GpUcbConfig {
    /// The one check of the settings; errors name the first invalid field by its path in this
    /// table, as written in TOML (`kernel.lengthscale`, …, `noise`, `beta`).
    pub fn check(&self) -> Result<ValidGpUcbConfig> {
        self.kernel.build().at("kernel")?;
        bohf_core::error::ensure_positive("noise", self.noise)?;
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return Err(Error::invalid("beta", format!("must be finite and >= 0, got {}", self.beta)));
        }
        let checked_hyperparameters = match &self.hyperparameters {
            Some(h) => {
                self.kernel.build_stationary().at("kernel")?;
                Some(h.check().at("hyperparameters")?)
            }
            None => None,
        };
        if !(self.initial_budget.is_finite() && self.initial_budget >= 0.0) {
            return Err(Error::invalid(
                "initial_budget",
                format!("must be finite and >= 0, got {}", self.initial_budget),
            ));
        }
        Ok(ValidGpUcbConfig { config: self.clone(), checked_hyperparameters })
    }

    /// The number of initial random values: ⌊Λ₀/λ_l⌋ ([`bohf_core::initial_split`] with share 0),
    /// λ_l the `evaluate` cost of the run's budget (1 without one). With Λ₀ > 0 an evaluation cost
    /// ≤ 0 is an error naming `budget.evaluate`.
    pub fn initial_values(&self, costs: Option<&bohf_core::QueryCosts>) -> Result<usize> {
        let evaluate = costs.map_or(1.0, |c| c.evaluate);
        if self.initial_budget > 0.0 && !(evaluate.is_finite() && evaluate > 0.0) {
            return Err(Error::invalid(
                "budget.evaluate",
                format!("GP-UCB's initial_budget needs an evaluation cost > 0, got {evaluate}"),
            ));
        }
        Ok(bohf_core::initial_split(self.initial_budget, 1.0, evaluate, 0.0).1)
    }
}

/// Settings of [`GpTs`]; defaults: Matérn-5/2 with ℓ = 0.1, noise variance 1, v_t² = √(t + 1 + log 40).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GpTsConfig {
    /// The kernel k (default Matérn-5/2, ℓ = 0.1).
    pub kernel: KernelSpec,
    /// The observation-noise variance ρ > 0, also the kernel-ridge regulariser (default 1).
    pub noise: f64,
    /// The exploration scale v_t (default the PF-TS experiments' schedule, as in PF-TS App. F.1).
    pub exploration: WidthSchedule,
}

impl Default for GpTsConfig {
    fn default() -> Self {
        Self { kernel: KernelSpec::default(), noise: DEFAULT_NOISE, exploration: default_exploration() }
    }
}

bohf_core::validated! {
    /// A [`GpTsConfig`] that passed [`GpTsConfig::check`]: what [`GpTs::new`] takes.
    pub struct ValidGpTsConfig(GpTsConfig);
}

impl GpTsConfig {
    /// The one check of the settings; errors name the first invalid field by its path in this
    /// table, as written in TOML (`kernel.lengthscale`, …, `noise`, `exploration.delta`,
    /// `exploration.norm_bound`, `exploration.rule`).
    pub fn check(&self) -> Result<ValidGpTsConfig> {
        self.kernel.build().at("kernel")?;
        bohf_core::error::ensure_positive("noise", self.noise)?;
        check_exploration(&self.exploration, "GP-TS").at("exploration")?;
        Ok(ValidGpTsConfig(self.clone()))
    }
}

/// What GP-UCB and GP-TS share: the candidates, the posterior and the pending query.
#[derive(Debug, Clone)]
struct ScalarState {
    domain: FiniteDomain,
    horizon: usize,
    gp: CandidateGp,
    pending: Option<usize>,
}

impl ScalarState {
    fn new(ctx: &SearchContext, kernel: &KernelSpec, noise: f64) -> Result<Self> {
        let gram = kernel.build()?.gram(ctx.domain().points())?;
        Ok(Self {
            domain: ctx.domain().clone(),
            horizon: ctx.horizon(),
            gp: CandidateGp::new(&gram, noise)?,
            pending: None,
        })
    }

    fn query(&mut self, index: usize) -> Result<Query> {
        self.pending = Some(index);
        Ok(Query::Evaluate(self.domain.point(index)?))
    }

    fn observe(&mut self, query: &Query, answer: Answer, who: &str) -> Result<()> {
        let Query::Evaluate(p) = query else {
            return Err(Error::invalid("query", format!("{who} asks for values (Query::Evaluate), got {query:?}")));
        };
        let y = answer.value()?;
        let i = self.domain.candidate_index(p, "evaluated")?;
        check_pending(self.pending, i)?;
        self.gp.observe(i, y)?;
        self.pending = None;
        Ok(())
    }

    fn recommend(&self) -> Result<Point> {
        self.domain.point(argmax_lowest(self.gp.mean().iter().copied())?)
    }

    fn round(&self) -> usize {
        self.gp.len() + 1
    }
}

/// GP-UCB with scalar feedback (module docs).
#[derive(Debug, Clone)]
pub struct GpUcb {
    config: GpUcbConfig,
    state: ScalarState,
    /// The learned posterior (with a `hyperparameters` table), fed the same values as `state`'s
    /// fixed one; the rule and the recommendation then read this one.
    learned: Option<Box<LearnedGp>>,
    initial_values: usize,
}

impl GpUcb {
    /// GP-UCB on the candidates of `ctx` with a checked config ([`GpUcbConfig::check`]).
    pub fn new(ctx: &SearchContext, config: ValidGpUcbConfig) -> Result<Self> {
        let hyper = config.checked_hyperparameters().clone();
        let config = config.into_config();
        let initial_values = config.initial_values(ctx.costs())?;
        let state = ScalarState::new(ctx, &config.kernel, config.noise)?;
        let learned = match hyper {
            None => None,
            Some(h) => {
                let bounds = ctx.domain().bounding_box()?;
                let d = bounds.dim();
                Some(Box::new(
                    LearnedGp::new(h, config.kernel.build_stationary().at("kernel")?, config.noise, Some(bounds), d)
                        .at("hyperparameters")?,
                ))
            }
        };
        Ok(Self { config, state, learned, initial_values })
    }

    /// The number of initial uniformly random values ([`GpUcbConfig::initial_values`]).
    pub fn initial_values(&self) -> usize {
        self.initial_values
    }

    /// The configuration.
    pub fn config(&self) -> &GpUcbConfig {
        &self.config
    }

    /// The fixed-kernel posterior on the candidates after the observed values (the rule's own
    /// without a `hyperparameters` table; see [`GpUcb::learned`]).
    pub fn gp(&self) -> &CandidateGp {
        &self.state.gp
    }

    /// The learned posterior, with a `hyperparameters` table.
    pub fn learned(&self) -> Option<&LearnedGp> {
        self.learned.as_deref()
    }

    /// The 1-based round t whose query is chosen next.
    pub fn round(&self) -> usize {
        self.state.round()
    }

    /// The pending suggestion (a candidate index), if any.
    pub fn pending(&self) -> Option<usize> {
        self.state.pending
    }

    /// The posterior mean m_t and standard deviation σ_t on the candidates: the learned model's
    /// (in original units) with a `hyperparameters` table, else the fixed kernel's.
    pub fn posterior(&self) -> Result<(DVector<f64>, DVector<f64>)> {
        let Some(gp) = &self.learned else {
            return Ok((self.state.gp.mean().clone(), self.state.gp.std_dev()));
        };
        let n = self.state.domain.len();
        let (mut m, mut s) = (DVector::zeros(n), DVector::zeros(n));
        for i in 0..n {
            let (mi, vi) = gp.mean_variance_at(&self.state.domain.coords(i)?)?;
            m[i] = mi;
            s[i] = vi.max(0.0).sqrt();
        }
        Ok((m, s))
    }

    /// The index m_t(x) + β σ_t(x) on the candidates ([`GpUcb::posterior`]).
    pub fn ucb(&self) -> Result<DVector<f64>> {
        let (m, s) = self.posterior()?;
        Ok(m + s * self.config.beta)
    }
}

impl Optimizer for GpUcb {
    fn name(&self) -> &'static str {
        "GP-UCB"
    }

    /// A uniformly random candidate (from `rng`) while fewer than [`GpUcb::initial_values`] values
    /// are observed; then argmax of m_t + β σ_t (lowest index on ties), which uses no randomness.
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let x = if self.state.gp.len() < self.initial_values {
            bohf_core::rand::RngExt::random_range(rng, 0..self.state.domain.len())
        } else {
            argmax_lowest(self.ucb()?.iter().copied())?
        };
        self.state.query(x)
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let pending = self.state.pending;
        self.state.observe(query, answer, Optimizer::name(self))?;
        if let (Some(gp), Some(i), Answer::Value(y)) = (&mut self.learned, pending, answer) {
            gp.append(&self.state.domain.coords(i)?, y)?;
        }
        Ok(())
    }

    /// The argmax of the posterior mean over the candidates (lowest index on ties).
    fn recommend(&self) -> Result<Point> {
        if self.learned.is_none() {
            return self.state.recommend();
        }
        self.state.domain.point(argmax_lowest(self.posterior()?.0.iter().copied())?)
    }
}

/// GP-TS with scalar feedback (module docs).
#[derive(Debug, Clone)]
pub struct GpTs {
    config: GpTsConfig,
    state: ScalarState,
    theory: Option<TheoryInputs>,
}

impl GpTs {
    /// GP-TS on the candidates of `ctx` with horizon T and a checked config ([`GpTsConfig::check`]);
    /// for the theoretical schedule, computes Γ(0..=T) for points (O(n²T)).
    pub fn new(ctx: &SearchContext, config: ValidGpTsConfig) -> Result<Self> {
        let config = config.into_config();
        let state = ScalarState::new(ctx, &config.kernel, config.noise)?;
        let theory = if bohf_gp::exploration::needs_theory(&config.exploration) {
            let greedy = greedy_points(state.gp.covariance(), config.noise, ctx.horizon())?;
            let gamma =
                (0..=ctx.horizon()).map(|s| greedy.bracket_at(s).map(|b| b.upper)).collect::<Result<Vec<_>>>()?;
            Some(TheoryInputs::new(Feedback::Scalar { noise_std: config.noise.sqrt() }, gamma)?)
        } else {
            None
        };
        Ok(Self { config, state, theory })
    }

    /// The configuration.
    pub fn config(&self) -> &GpTsConfig {
        &self.config
    }

    /// The posterior on the candidates after the observed values.
    pub fn gp(&self) -> &CandidateGp {
        &self.state.gp
    }

    /// The 1-based round t whose query is chosen next.
    pub fn round(&self) -> usize {
        self.state.round()
    }

    /// The horizon T given at construction.
    pub fn horizon(&self) -> usize {
        self.state.horizon
    }

    /// The pending suggestion (a candidate index), if any.
    pub fn pending(&self) -> Option<usize> {
        self.state.pending
    }

    /// Γ(0..=T) and the noise, when the schedule is theoretical.
    pub fn theory(&self) -> Option<&TheoryInputs> {
        self.theory.as_ref()
    }

    /// v_t at the current round (errors naming `t` past the horizon with the theoretical schedule).
    pub fn exploration_scale(&self) -> Result<f64> {
        bohf_gp::exploration_scale(&self.config.exploration, self.round(), self.theory.as_ref())
    }

    /// The sampler of N(m_t, Σ_t) on the candidates (draws scaled by v_t in `transform`).
    pub fn sampler(&self) -> Result<JointSampler> {
        self.state.gp.sampler()
    }

    /// argmax of m_t + v F z for given standard-normal draws z (r×1), lowest index on ties.
    pub fn select_with(sampler: &JointSampler, scale: f64, z: &DMatrix<f64>) -> Result<usize> {
        if z.ncols() != 1 {
            return Err(Error::dims("standard-normal draws for one sample (columns)", 1, z.ncols()));
        }
        argmax_lowest(sampler.transform(scale, z)?.column(0).iter().copied())
    }
}

impl Optimizer for GpTs {
    fn name(&self) -> &'static str {
        "GP-TS"
    }

    /// One joint draw (r standard normals from `rng`) and its argmax.
    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let scale = self.exploration_scale()?;
        let sampler = self.sampler()?;
        let z =
            DMatrix::from_iterator(sampler.rank(), 1, (0..sampler.rank()).map(|_| StandardNormal.sample(&mut *rng)));
        let x = Self::select_with(&sampler, scale, &z)?;
        self.state.query(x)
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        self.state.observe(query, answer, Optimizer::name(self))
    }

    fn recommend(&self) -> Result<Point> {
        self.state.recommend()
    }
}
