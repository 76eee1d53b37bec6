//! Settings of the confidence-set programs.

use bohf_core::error::ensure_positive;
use bohf_core::{Error, Result};
use serde::{Deserialize, Serialize};

/// Settings shared by the MLE and the confidence-set programs.
///
/// Defaults: B = 6 (POP-BO App. P, test functions), no latent box (the paper; the authors' code
/// boxes every latent value to |z| ≤ 3, set `latent_box = Some(3.0)` for that), no nugget (jitter
/// is added only if the Cholesky factorisation needs it, and recorded; the code adds ε_K = 1e-6, POP-BO
/// Remark 4.2), clarabel tolerances 1e-9 (1e-11 for the MLE), at most 200 iterations, and `AlmostSolved` accepted only within
/// 1e-4: clarabel stops with `AlmostSolved` on a few of the hundreds of programs of a POP-BO run,
/// with relative gaps and residuals between 10⁻⁸ and ~5·10⁻⁵ (measured on the Table 2 functions),
/// ample for ranking candidates and for thresholds of width β ≥ 10⁻²; any worse status is an error
/// that names the program. Set it lower for stricter solves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConfidenceConfig {
    /// B, the RKHS-norm bound ‖f‖_k ≤ B (POP-BO Assumption 2.2, COBOL B_g).
    pub norm_bound: f64,
    /// Optional box |z_i| ≤ value on every latent value (the authors' code uses 3).
    pub latent_box: Option<f64>,
    /// ε_K ≥ 0 added to the Gram diagonal before factorising (POP-BO Remark 4.2); further jitter is
    /// added only if needed and recorded.
    pub nugget: f64,
    /// Clarabel's gap and feasibility tolerances for the confidence-set programs (advantage, bounds):
    /// their optimal values are accurate to about this, relative.
    pub tolerance: f64,
    /// The same for the MLE. Tighter by default (1e-11): the latent values of an interior-point
    /// solution are only about √tolerance accurate near a flat optimum, and at 1e-11 they agree with
    /// an independent Newton solution to ~1e-8.
    pub mle_tolerance: f64,
    /// Clarabel's iteration limit.
    pub max_iterations: u32,
    /// Clarabel sometimes stalls just short of a tight target (status `AlmostSolved`); such a
    /// solution is accepted when its duality gap and residuals are within this (default 1e-4), and
    /// reported as an error otherwise. The status is kept in [`crate::SolveInfo`].
    pub acceptable_tolerance: f64,
    /// Accept every `AlmostSolved` (clarabel's reduced tolerances, gap ~5e-5) whatever
    /// `acceptable_tolerance` says. Off by default.
    pub accept_almost_solved: bool,
    /// Which solver runs the programs: `"auto"` (the default) and `"dense"`: the certified fast
    /// path (Newton's method on the programs' low-dimensional dual, the latent box by an inner
    /// active-set method, then a dense interior-point method for the MLE) for every program,
    /// clarabel as the fallback for whatever it cannot certify; `"clarabel"`: clarabel for every
    /// program (the reference implementation). The fast path gives up on a set where it mostly
    /// fails (docs/confidence.md, "The fast path"). `"auto"` is the name to write for "whatever
    /// bohf thinks best"; it sent programs with the latent box to clarabel until 2026-11-29.
    #[serde(skip_serializing_if = "SolverChoice::is_default")]
    pub solver: SolverChoice,
}

/// Which solver runs the confidence-set programs ([`ConfidenceConfig::solver`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverChoice {
    /// The fast path for every program, clarabel as its fallback (the default; the same as
    /// [`SolverChoice::Dense`] today).
    #[default]
    Auto,
    /// The certified fast path first ([`crate::ConfidenceConfig::solver`]), clarabel for what it
    /// cannot certify.
    Dense,
    /// Clarabel for every program.
    Clarabel,
}

impl SolverChoice {
    /// Whether this is the default (kept out of serialised configs, so that configs written
    /// before the key existed serialise unchanged).
    pub fn is_default(&self) -> bool {
        *self == SolverChoice::default()
    }
}

bohf_core::validated! {
    /// A [`ConfidenceConfig`] that passed [`ConfidenceConfig::check`].
    pub struct ValidConfidenceConfig(ConfidenceConfig);
}

impl Default for ConfidenceConfig {
    fn default() -> Self {
        Self {
            norm_bound: 6.0,
            latent_box: None,
            nugget: 0.0,
            tolerance: 1e-9,
            mle_tolerance: 1e-11,
            max_iterations: 200,
            acceptable_tolerance: 1e-4,
            accept_almost_solved: false,
            solver: SolverChoice::Auto,
        }
    }
}

impl ConfidenceConfig {
    /// Whether the programs run through the certified fast path first ([`Self::solver`]).
    pub fn uses_fast_path(&self) -> bool {
        match self.solver {
            SolverChoice::Auto | SolverChoice::Dense => true,
            SolverChoice::Clarabel => false,
        }
    }

    /// The default settings with norm bound `b`.
    pub fn with_norm_bound(b: f64) -> Self {
        Self { norm_bound: b, ..Self::default() }
    }

    /// The one check of the settings: errors name the first invalid field relative to this table
    /// (`norm_bound`, `latent_box`, `nugget`, `tolerance`, `mle_tolerance`, `acceptable_tolerance`,
    /// `max_iterations`); a config holding it places them under its key ([`bohf_core::AtField`]).
    pub fn check(&self) -> Result<ValidConfidenceConfig> {
        ensure_positive("norm_bound", self.norm_bound)?;
        if let Some(b) = self.latent_box {
            ensure_positive("latent_box", b)?;
        }
        if !(self.nugget.is_finite() && self.nugget >= 0.0) {
            return Err(Error::invalid("nugget", format!("must be finite and >= 0, got {}", self.nugget)));
        }
        let tolerances = [
            ("tolerance", self.tolerance),
            ("mle_tolerance", self.mle_tolerance),
            ("acceptable_tolerance", self.acceptable_tolerance),
        ];
        for (name, tol) in tolerances {
            if !(tol.is_finite() && tol > 0.0 && tol < 1.0) {
                return Err(Error::invalid(name, format!("must be in (0, 1), got {tol}")));
            }
        }
        if self.max_iterations == 0 {
            return Err(Error::invalid("max_iterations", "must be >= 1"));
        }
        Ok(ValidConfidenceConfig(self.clone()))
    }

    pub(crate) fn solver_options(&self, tolerance: f64) -> crate::conic::SolverOptions {
        crate::conic::SolverOptions {
            cautious: false,
            tolerance,
            max_iterations: self.max_iterations,
            acceptable_tolerance: if self.accept_almost_solved {
                f64::INFINITY
            } else {
                self.acceptable_tolerance.max(tolerance)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_fields_are_named() {
        let bad = |c: ConfidenceConfig, field: &str| {
            let e = c.check().unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        };
        bad(ConfidenceConfig::with_norm_bound(0.0), "norm_bound");
        bad(ConfidenceConfig::with_norm_bound(-1.0), "norm_bound");
        bad(ConfidenceConfig::with_norm_bound(f64::NAN), "norm_bound");
        bad(ConfidenceConfig { latent_box: Some(0.0), ..Default::default() }, "latent_box");
        bad(ConfidenceConfig { nugget: -1e-6, ..Default::default() }, "nugget");
        bad(ConfidenceConfig { tolerance: 0.0, ..Default::default() }, "tolerance");
        bad(ConfidenceConfig { mle_tolerance: 2.0, ..Default::default() }, "mle_tolerance");
        bad(ConfidenceConfig { max_iterations: 0, ..Default::default() }, "max_iterations");
        ConfidenceConfig::default().check().unwrap();
    }
}
