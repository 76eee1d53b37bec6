//! A serialisable kernel description for experiment configs.

use crate::{Kernel, KernelKind, Linear, Stationary};
use bohf_core::Result;
use serde::{Deserialize, Serialize};

/// A kernel as written in a config file, e.g. `{ kind = "matern52", lengthscale = 0.1 }` or
/// `{ kind = "se", lengthscales = [0.2, 0.5], variance = 2.0 }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelSpec {
    /// `se`, `matern12`, `matern32`, `matern52` or `linear`.
    pub kind: KernelKind,
    /// Isotropic lengthscale (stationary kernels; default 0.1, the papers' value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lengthscale: Option<f64>,
    /// Per-dimension lengthscales (ARD); overrides `lengthscale`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lengthscales: Option<Vec<f64>>,
    /// Variance σ² (default 1, the papers' normalisation k ≤ 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variance: Option<f64>,
}

impl Default for KernelSpec {
    /// Matérn-5⁄2 with ℓ = 0.1 and unit variance: the setting of the MR-LPF and PF-TS experiments.
    fn default() -> Self {
        Self { kind: KernelKind::Matern52, lengthscale: Some(0.1), lengthscales: None, variance: None }
    }
}

impl KernelSpec {
    /// Builds the kernel, validating every field: positive finite lengthscales and variance, and no
    /// lengthscale for the linear kernel (which has none, so a given one would be ignored).
    pub fn build(&self) -> Result<Box<dyn Kernel>> {
        let variance = self.variance.unwrap_or(1.0);
        if self.kind == KernelKind::Linear {
            for (name, given) in
                [("lengthscale", self.lengthscale.is_some()), ("lengthscales", self.lengthscales.is_some())]
            {
                if given {
                    return Err(bohf_core::Error::invalid(
                        name,
                        "the linear kernel σ² xᵀy has no lengthscale; remove it (or choose a stationary kind)",
                    ));
                }
            }
            return Ok(Box::new(Linear::new(variance)?));
        }
        Ok(Box::new(self.build_stationary()?))
    }

    /// Builds the kernel as a [`Stationary`] one (what a hyperparameter fit starts from), validating
    /// every field as [`KernelSpec::build`]; the linear kernel is refused, naming `kind`.
    pub fn build_stationary(&self) -> Result<Stationary> {
        if !self.kind.is_stationary() {
            return Err(bohf_core::Error::invalid(
                "kind",
                format!(
                    "`{}` is not stationary; a stationary kind (se, matern12, matern32, matern52) is needed here",
                    self.kind.name()
                ),
            ));
        }
        let mut k =
            Stationary::new(self.kind, self.lengthscale.unwrap_or(0.1))?.with_variance(self.variance.unwrap_or(1.0))?;
        if let Some(ls) = &self.lengthscales {
            k = k.with_ard(ls.clone())?;
        }
        Ok(k)
    }
}
