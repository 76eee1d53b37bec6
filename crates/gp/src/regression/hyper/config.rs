//! The settings of a fit ([`HyperFitConfig`] → [`ValidHyperFitConfig`]) and their checks.

use super::*;

/// Settings of [`fit_hyperparameters`]. Every bound and value is in working units (inputs scaled to
/// [0, 1]^d if [`HyperFitConfig::scale_inputs`], targets standardised if
/// [`HyperFitConfig::standardise_outputs`]).
///
/// Defaults follow BoTorch's current `SingleTaskGP` defaults where it has one (dimension-scaled
/// lengthscale prior, floor 0.025, noise ≥ 1e-4, unit signal variance on standardised outputs,
/// inputs in [0, 1]^d) — COBOL's protocol (/work/shared/papers/notes/004_expert-bo.md §"Scaling").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HyperFitConfig {
    /// One lengthscale per input dimension (ARD, default) or one shared lengthscale.
    pub ard: bool,
    /// [lower, upper] for every lengthscale; 0 < lower < upper. Default [0.01, 100].
    pub lengthscale_bounds: [f64; 2],
    /// A floor on every lengthscale: the effective lower bound is max(lower, floor), against the
    /// lengthscale collapse of small data sets. 0 disables it. Default 0.025 (BoTorch's
    /// `GreaterThan(2.5e-2)` constraint).
    pub lengthscale_floor: f64,
    /// The lengthscale prior. Default [`LengthscalePrior::DimScaledLogNormal`].
    pub lengthscale_prior: LengthscalePrior,
    /// Learn the signal variance σ² (within `variance_bounds`); false (default): σ² stays at the
    /// start kernel's (1 on standardised targets, as BoTorch's default kernel has no output scale).
    pub learn_variance: bool,
    /// [lower, upper] for a learned σ²; 0 < lower < upper (checked only if learned). Default
    /// [0.05, 20].
    pub variance_bounds: [f64; 2],
    /// Learn the noise variance ρ (within `noise_bounds`, default true); false: ρ stays at the
    /// start value.
    pub learn_noise: bool,
    /// [lower, upper] for a learned ρ (checked only if learned). Default [1e-4, 10] (1e-4 is
    /// BoTorch's `MIN_INFERRED_NOISE_LEVEL`).
    pub noise_bounds: [f64; 2],
    /// Space-filling starts refined in addition to the start hyperparameters: the best of the
    /// `screen` Sobol points of the log-space box by objective value (0: only the start is
    /// refined). Default 1 (BoTorch's `fit_gpytorch_mll` refines the current values only).
    pub restarts: usize,
    /// Scrambled Sobol points of the log-space box whose objective values (no gradient, n³/3 flops
    /// each) choose the `restarts` extra starts; ≥ `restarts`. Default 16.
    pub screen: usize,
    /// Scale inputs to [0, 1]^d by the box given to the fit (x ↦ (x − lower)/(upper − lower)).
    /// Default true; the fit then needs the box.
    pub scale_inputs: bool,
    /// Standardise targets to mean 0, standard deviation 1 (sample standard deviation, n − 1).
    /// Default true.
    pub standardise_outputs: bool,
    /// The local refinement of each start. Default: 200 iterations, memory 10, projected-gradient
    /// tolerance 1e-5 and relative value tolerance 2.2e-9 (SciPy L-BFGS-B's `pgtol` and
    /// `factr`·ε, as GPy and scikit-learn use for this fit).
    pub local: LocalConfig,
    /// Refit every this many new observations (≥ 1): COMP-GP-UCB refits every 5 (label GP) and 20
    /// (comparison GP) iterations (notes/002_comp-gp-ucb.md §5.3). Default 1.
    pub refit_every: usize,
}

impl Default for HyperFitConfig {
    fn default() -> Self {
        Self {
            ard: true,
            lengthscale_bounds: [0.01, 100.0],
            lengthscale_floor: 0.025,
            lengthscale_prior: LengthscalePrior::DimScaledLogNormal,
            learn_variance: false,
            variance_bounds: [0.05, 20.0],
            learn_noise: true,
            noise_bounds: [1e-4, 10.0],
            restarts: 1,
            screen: 16,
            scale_inputs: true,
            standardise_outputs: true,
            local: LocalConfig { gradient_tolerance: 1e-5, value_tolerance: 2.2e-9, ..LocalConfig::default() },
            refit_every: 1,
        }
    }
}

bohf_core::validated! {
    /// A [`HyperFitConfig`] that passed [`HyperFitConfig::check`].
    pub struct ValidHyperFitConfig(HyperFitConfig);
}

/// Errors unless `[lo, hi]` is finite with 0 < lo < hi, naming `name`.
pub(crate) fn check_bounds(name: &str, [lo, hi]: [f64; 2]) -> Result<()> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo < hi) {
        return Err(Error::invalid(name, format!("must be finite with 0 < lower < upper, got [{lo}, {hi}]")));
    }
    Ok(())
}

/// The lengthscale range of a fit: `lengthscale_bounds` (0 < lower < upper, finite) and
/// `lengthscale_floor` (finite, ≥ 0, below the upper bound); errors name the field.
pub(crate) fn check_lengthscale_range(bounds: [f64; 2], floor: f64) -> Result<()> {
    check_bounds("lengthscale_bounds", bounds)?;
    if !(floor.is_finite() && floor >= 0.0 && floor < bounds[1]) {
        return Err(Error::invalid(
            "lengthscale_floor",
            format!("must be finite, ≥ 0 and below the upper lengthscale bound {}, got {floor}", bounds[1]),
        ));
    }
    Ok(())
}

impl HyperFitConfig {
    /// Checks every field; the error names the first invalid one (`lengthscale_bounds`,
    /// `lengthscale_floor`, `lengthscale_prior.scale`, `variance_bounds`, `noise_bounds`,
    /// `refit_every`).
    pub fn check(&self) -> Result<ValidHyperFitConfig> {
        check_lengthscale_range(self.lengthscale_bounds, self.lengthscale_floor)?;
        self.lengthscale_prior.check()?;
        if self.learn_variance {
            check_bounds("variance_bounds", self.variance_bounds)?;
        }
        if self.learn_noise {
            check_bounds("noise_bounds", self.noise_bounds)?;
        }
        if self.screen < self.restarts {
            return Err(Error::invalid(
                "screen",
                format!("must be ≥ restarts ({}) to choose that many starts, got {}", self.restarts, self.screen),
            ));
        }
        self.local.check().at("local")?;
        if self.refit_every == 0 {
            return Err(Error::invalid("refit_every", "must be ≥ 1"));
        }
        Ok(ValidHyperFitConfig(self.clone()))
    }

    /// Checks every bound pair, learned or not (`lengthscale_bounds`, `variance_bounds`,
    /// `noise_bounds`), naming the invalid entry (`noise_bounds[1]`): 0 < lower finite, then
    /// lower < upper finite. For configs read from a file, so that no invalid value passes
    /// silently even where [`HyperFitConfig::check`] ignores it (a pair that is not learned).
    pub fn check_bound_entries(&self) -> Result<()> {
        check_bound_entries(&[
            ("lengthscale_bounds", self.lengthscale_bounds),
            ("variance_bounds", self.variance_bounds),
            ("noise_bounds", self.noise_bounds),
        ])
    }

    /// The effective lengthscale bounds [max(lower, floor), upper].
    pub fn effective_lengthscale_bounds(&self) -> [f64; 2] {
        [self.lengthscale_bounds[0].max(self.lengthscale_floor), self.lengthscale_bounds[1]]
    }

    /// Whether a refit is due with `observations` observations when the last fit used
    /// `last_fit` of them (`None`: never fitted): the first fit once there are 2 observations,
    /// then every [`HyperFitConfig::refit_every`] new ones.
    pub fn refit_due(&self, observations: usize, last_fit: Option<usize>) -> bool {
        match last_fit {
            None => observations >= 2,
            Some(l) => observations >= l + self.refit_every,
        }
    }
}

/// Checks named bound pairs `[lower, upper]`, naming the invalid entry (`noise_bounds[1]`):
/// 0 < lower finite, then lower < upper finite. The one check of the bound entries of
/// [`HyperFitConfig::check_bound_entries`] and [`crate::LaplaceFitConfig::check_bound_entries`].
pub(crate) fn check_bound_entries(pairs: &[(&str, [f64; 2])]) -> Result<()> {
    for &(name, [lo, hi]) in pairs {
        let entry = if !(lo.is_finite() && lo > 0.0) {
            Some(0)
        } else if !(hi.is_finite() && hi > lo) {
            Some(1)
        } else {
            None
        };
        if let Some(k) = entry {
            return Err(Error::invalid(
                format!("{name}[{k}]"),
                format!("must be finite with 0 < lower < upper, got [{lo}, {hi}]"),
            ));
        }
    }
    Ok(())
}
