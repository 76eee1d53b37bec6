//! The configuration of PF-TS.

use bohf_core::{AtField, Result, WidthSchedule};
use bohf_gp::{InferenceConfig, check_exploration, default_exploration};
use serde::{Deserialize, Serialize};

/// Settings of [`crate::PfTs`]. Defaults are the PF-TS paper's experiments (App. F.1): Matérn-5/2
/// with ℓ = 0.1, λ = 0.05 with the ‖θ‖² regulariser, ρ = λκ = 0.05, and
/// v_t² = √(t + 1 + log 40).
///
/// In a config file (TOML):
///
/// ```toml
/// [inference]
/// kernel = { kind = "matern52", lengthscale = 0.1 }
/// kappa = 1.0
/// [inference.mle]
/// lambda = 0.05
/// [exploration]
/// rule = "theory"
/// norm_bound = 2.0
/// delta = 0.05
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PfTsConfig {
    /// Kernel, kernel logistic MLE and posterior noise ρ = λκ, shared by all BOHF methods.
    pub inference: InferenceConfig,
    /// The exploration scale v_t (PF-TS §3.6; default the experiments' v_t² = √(t + 1 + log 40)).
    /// Rules: `pfts-experiment`, `pfts-square-root`, `theory` (eq. (12)).
    pub exploration: WidthSchedule,
}

impl Default for PfTsConfig {
    fn default() -> Self {
        Self { inference: InferenceConfig::default(), exploration: default_exploration() }
    }
}

bohf_core::validated! {
    /// A [`PfTsConfig`] that passed [`PfTsConfig::check`]: what [`crate::PfTs::new`] takes.
    pub struct ValidPfTsConfig(PfTsConfig);
}

impl PfTsConfig {
    /// The one check of the settings; errors name the first invalid field by its path in this
    /// table, as written in TOML (`inference.kappa`, `inference.mle.lambda`,
    /// `inference.kernel.lengthscale`, `exploration.delta`, `exploration.norm_bound`,
    /// `exploration.rule`, …).
    pub fn check(&self) -> Result<ValidPfTsConfig> {
        self.inference.check().at("inference")?;
        check_exploration(&self.exploration, "PF-TS").at("exploration")?;
        Ok(ValidPfTsConfig(self.clone()))
    }
}
