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
        let kind = match self.kind {
            KernelKind::Linear => {
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
            // Every other kind is stationary (`Stationary::new` refuses one that is not, by name).
            kind => kind,
        };
        let mut k = Stationary::new(kind, self.lengthscale.unwrap_or(0.1))?.with_variance(variance)?;
        if let Some(ls) = &self.lengthscales {
            k = k.with_ard(ls.clone())?;
        }
        Ok(Box::new(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_papers_matern52() {
        let k = KernelSpec::default().build().unwrap();
        let v = k.value(&[0.0], &[0.1]).unwrap();
        let s5 = 5f64.sqrt();
        assert!((v - (1.0 + s5 + 5.0 / 3.0) * (-s5).exp()).abs() < 1e-15);
    }

    #[test]
    fn invalid_spec_is_an_error() {
        let spec = KernelSpec { kind: KernelKind::Se, lengthscale: Some(-1.0), lengthscales: None, variance: None };
        assert!(spec.build().unwrap_err().to_string().contains("lengthscale"));
        for (lengthscale, lengthscales) in [(Some(-5.0), None), (Some(0.1), None), (None, Some(vec![1.0]))] {
            let linear = KernelSpec { kind: KernelKind::Linear, lengthscale, lengthscales, variance: None };
            let e = linear.build().unwrap_err().to_string();
            assert!(e.contains("lengthscale") && e.contains("linear"), "{e}");
        }
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let linear =
                KernelSpec { kind: KernelKind::Linear, lengthscale: None, lengthscales: None, variance: Some(bad) };
            assert!(linear.build().unwrap_err().to_string().contains("variance"), "{bad}");
            let se = KernelSpec { kind: KernelKind::Se, lengthscale: Some(bad), lengthscales: None, variance: None };
            assert!(se.build().is_err(), "lengthscale {bad}");
            let ard = KernelSpec {
                kind: KernelKind::Se,
                lengthscale: None,
                lengthscales: Some(vec![1.0, bad]),
                variance: None,
            };
            assert!(ard.build().is_err(), "lengthscales [1, {bad}]");
        }
        let ok = KernelSpec { kind: KernelKind::Linear, lengthscale: None, lengthscales: None, variance: Some(2.0) };
        assert!(ok.build().is_ok());
    }
}
