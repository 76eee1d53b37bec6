//! The settings of [`crate::Eubo`], [`crate::Qeubo`] and [`crate::Dts`]: the Laplace preference GP
//! they share ([`LaplaceModelConfig`]) and each rule's own keys.

use bohf_core::{AtField, Error, Result};
use bohf_gp::LaplaceFitConfig;
use bohf_gp::laplace::{ValidLaplaceConfig, ValidLaplaceFitConfig};
use bohf_kernels::KernelKind;
use serde::{Deserialize, Serialize};

/// The most screened candidates of a finite-domain pair search (`pair_screen`): m(m − 1)/2 pairs.
pub const MAX_PAIR_SCREEN: usize = 2048;
/// The most Monte Carlo base samples of qEUBO (`mc_samples`).
pub const MAX_MC_SAMPLES: usize = 1 << 16;
/// The most points of DTS's sampling pool on a box (`pool`): the joint sample needs a pool×pool
/// covariance.
pub const MAX_POOL: usize = 4096;
/// The most options per qEUBO query (`q`): the box search runs over a q·d-dimensional product box,
/// and a choice among many options is hard for a person to answer.
pub const MAX_Q: usize = 8;

/// The Laplace preference GP of the three rules (bohf-gp's [`bohf_gp::LaplacePreferenceGp`]) and
/// how it is refitted. Points are mapped to the unit cube of the domain (a box's bounds, or the
/// candidates' bounding box) before the model sees them, as the lengthscale priors assume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LaplaceModelConfig {
    /// The stationary kernel kind (`se`, `matern12`, `matern32`, `matern52`). Default `se`, BoTorch
    /// `PairwiseGP`'s RBF kernel.
    pub kernel: KernelKind,
    /// The likelihood, the Newton iteration and the hyperparameter fit by maximum Laplace evidence
    /// with named priors ([`bohf_gp::fit_laplace`]); default: bohf-gp's robust default (probit
    /// Φ(Δ/√2), ARD, dimension-scaled log-normal lengthscale prior, floor 0.025).
    pub fit: LaplaceFitConfig,
    /// Refit the hyperparameters after every `refit_every`-th answered duel, from the current ones
    /// (a warm start); in between, only the MAP utilities are updated (Newton warm-started from the
    /// previous mode). 1 (default) refits at every step, as BoTorch's loop; 0 never refits (the
    /// start kernel: every lengthscale at the prior's mode, outputscale 1).
    pub refit_every: usize,
    /// On a box, points within this distance of an earlier point in every unit-cube coordinate
    /// share one latent utility (bohf-gp's `PreferenceData::from_points`). Default 10⁻⁹; ≥ 0.
    pub merge_tolerance: f64,
}

impl Default for LaplaceModelConfig {
    fn default() -> Self {
        Self { kernel: KernelKind::Se, fit: LaplaceFitConfig::default(), refit_every: 1, merge_tolerance: 1e-9 }
    }
}

bohf_core::validated! {
    /// A [`LaplaceModelConfig`] that passed [`LaplaceModelConfig::check`], with its checked fit and
    /// likelihood settings (what the engine uses, so that nothing is checked again per run).
    pub struct ValidLaplaceModelConfig(LaplaceModelConfig) {
        /// The checked hyperparameter fit (`fit`).
        checked_fit: ValidLaplaceFitConfig,
        /// The checked likelihood and Newton settings (`fit.laplace`).
        checked_laplace: ValidLaplaceConfig,
    }
}

impl LaplaceModelConfig {
    /// Checks the kernel kind (`kernel`: stationary kinds only), the fit (`fit.…`, e.g.
    /// `fit.lengthscale_prior.rate` for a non-positive rate) and `merge_tolerance`.
    pub fn check(&self) -> Result<ValidLaplaceModelConfig> {
        if !self.kernel.is_stationary() {
            return Err(Error::invalid(
                "kernel",
                format!("the Laplace preference GP needs a stationary kernel, got {}", self.kernel.name()),
            ));
        }
        self.fit.check_bound_entries().at("fit")?;
        let checked_fit = self.fit.check().at("fit")?;
        let checked_laplace = self.fit.laplace.check().at("fit.laplace")?;
        if !(self.merge_tolerance.is_finite() && self.merge_tolerance >= 0.0) {
            return Err(Error::invalid(
                "merge_tolerance",
                format!("must be finite and ≥ 0, got {}", self.merge_tolerance),
            ));
        }
        Ok(ValidLaplaceModelConfig { config: self.clone(), checked_fit, checked_laplace })
    }
}

fn default_initial() -> usize {
    4
}

fn check_initial(initial_duels: usize) -> Result<()> {
    if initial_duels > 1_000_000 {
        return Err(Error::invalid("initial_duels", format!("at most 10⁶, got {initial_duels}")));
    }
    Ok(())
}

fn check_screen(pair_screen: usize) -> Result<()> {
    if !(2..=MAX_PAIR_SCREEN).contains(&pair_screen) {
        return Err(Error::invalid("pair_screen", format!("must be in [2, {MAX_PAIR_SCREEN}], got {pair_screen}")));
    }
    Ok(())
}

/// Settings of [`crate::Eubo`]: EUBO (Lin et al. 2022, "Preference exploration for efficient
/// Bayesian optimization with multiple outcomes", AISTATS, eq. (6)), the duel (x, x′) maximising
/// E[max(f(x), f(x′))] under the Laplace posterior, in closed form
/// ([`bohf_core::special::expected_max_of_two`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EuboConfig {
    /// The Laplace preference GP.
    pub model: LaplaceModelConfig,
    /// Uniformly random duels before the first acquisition (default 4; Astudillo et al. 2023
    /// start from random queries too). At least one is needed for a posterior that is not the
    /// prior; 0 starts with EUBO under the prior.
    #[serde(default = "default_initial")]
    pub initial_duels: usize,
    /// Finite domains: the candidates screened by m + σ (the largest, plus the incumbent argmax m)
    /// whose m(m − 1)/2 pairs are scored exactly; a pair search over all candidates when it is at
    /// least their number. Default 200, at most 2048.
    pub pair_screen: usize,
}

impl Default for EuboConfig {
    fn default() -> Self {
        Self { model: LaplaceModelConfig::default(), initial_duels: default_initial(), pair_screen: 200 }
    }
}

bohf_core::validated! {
    /// An [`EuboConfig`] that passed [`EuboConfig::check`].
    pub struct ValidEuboConfig(EuboConfig) {
        /// The checked model settings (`model`).
        checked_model: ValidLaplaceModelConfig,
    }
}

impl EuboConfig {
    /// The one check; errors name `model.…`, `initial_duels` or `pair_screen`.
    pub fn check(&self) -> Result<ValidEuboConfig> {
        let checked_model = self.model.check().at("model")?;
        check_initial(self.initial_duels)?;
        check_screen(self.pair_screen)?;
        Ok(ValidEuboConfig { config: self.clone(), checked_model })
    }
}

/// Settings of [`crate::Qeubo`]: qEUBO (Astudillo, Lin, Bakshy & Frazier 2023, "qEUBO: a
/// decision-theoretic acquisition function for preferential Bayesian optimization", AISTATS,
/// eq. (2)), E[max_i f(x_i)] over q options by a sample average over fixed base samples
/// ([`crate::qeubo_mc`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QeuboConfig {
    /// The Laplace preference GP.
    pub model: LaplaceModelConfig,
    /// Uniformly random queries before the first acquisition (default 4): duels, or choices among
    /// q uniformly random options when q ≥ 3.
    #[serde(default = "default_initial")]
    pub initial_duels: usize,
    /// Finite domains: the screened candidates, as [`EuboConfig::pair_screen`]. Default 200.
    pub pair_screen: usize,
    /// The number q of options per query, in [2, 8]. q = 2 asks duels; q ≥ 3 asks best-of-q
    /// choices ([`bohf_core::Query::Choice`], answered by the index of the preferred option, learnt
    /// through the multinomial-logit likelihood of the Laplace GP), including the random initial
    /// queries. On a finite domain the q options are chosen greedily (the best pair, then the best
    /// addition, one at a time, among the screened candidates), on a box by the multistart search over
    /// the q·d-dimensional product box. Needs at least q candidates and `pair_screen` ≥ q.
    pub q: usize,
    /// Base samples z ~ N(0, I_q) of the sample average, drawn once per step from the run's RNG
    /// (BoTorch's sample-average approximation). Default 256, at most 65536.
    pub mc_samples: usize,
}

impl Default for QeuboConfig {
    fn default() -> Self {
        Self {
            model: LaplaceModelConfig::default(),
            initial_duels: default_initial(),
            pair_screen: 200,
            q: 2,
            mc_samples: 256,
        }
    }
}

bohf_core::validated! {
    /// A [`QeuboConfig`] that passed [`QeuboConfig::check`].
    pub struct ValidQeuboConfig(QeuboConfig) {
        /// The checked model settings (`model`).
        checked_model: ValidLaplaceModelConfig,
    }
}

impl QeuboConfig {
    /// The one check; errors name `model.…`, `initial_duels`, `pair_screen` (also below q), `q`
    /// (outside [2, [`MAX_Q`]]) or `mc_samples`.
    pub fn check(&self) -> Result<ValidQeuboConfig> {
        let checked_model = self.model.check().at("model")?;
        check_initial(self.initial_duels)?;
        check_screen(self.pair_screen)?;
        if self.q < 2 {
            return Err(Error::invalid("q", format!("a query needs q ≥ 2 options, got {}", self.q)));
        }
        if self.q > MAX_Q {
            return Err(Error::invalid("q", format!("at most {MAX_Q} options per query, got {}", self.q)));
        }
        if self.pair_screen < self.q {
            return Err(Error::invalid(
                "pair_screen",
                format!(
                    "must be ≥ q = {} (the options are chosen among the screened candidates), got {}",
                    self.q, self.pair_screen
                ),
            ));
        }
        if !(1..=MAX_MC_SAMPLES).contains(&self.mc_samples) {
            return Err(Error::invalid(
                "mc_samples",
                format!("must be in [1, {MAX_MC_SAMPLES}], got {}", self.mc_samples),
            ));
        }
        Ok(ValidQeuboConfig { config: self.clone(), checked_model })
    }
}

/// Settings of [`crate::Dts`]: dueling Thompson sampling (González, Dai, Damianou & Lawrence 2017,
/// "Preferential Bayesian optimization", ICML, §4.3) on the Laplace preference GP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DtsConfig {
    /// The Laplace preference GP.
    pub model: LaplaceModelConfig,
    /// Uniformly random duels before the first acquisition (default 4).
    #[serde(default = "default_initial")]
    pub initial_duels: usize,
    /// On a box: the scrambled Sobol points (plus the compared points) on which the joint posterior
    /// sample is drawn and both points are chosen. Default 512, in [2, 4096]. Finite domains use
    /// every candidate.
    pub pool: usize,
}

impl Default for DtsConfig {
    fn default() -> Self {
        Self { model: LaplaceModelConfig::default(), initial_duels: default_initial(), pool: 512 }
    }
}

bohf_core::validated! {
    /// A [`DtsConfig`] that passed [`DtsConfig::check`].
    pub struct ValidDtsConfig(DtsConfig) {
        /// The checked model settings (`model`).
        checked_model: ValidLaplaceModelConfig,
    }
}

impl DtsConfig {
    /// The one check; errors name `model.…`, `initial_duels` or `pool`.
    pub fn check(&self) -> Result<ValidDtsConfig> {
        let checked_model = self.model.check().at("model")?;
        check_initial(self.initial_duels)?;
        if !(2..=MAX_POOL).contains(&self.pool) {
            return Err(Error::invalid("pool", format!("must be in [2, {MAX_POOL}], got {}", self.pool)));
        }
        Ok(ValidDtsConfig { config: self.clone(), checked_model })
    }
}
