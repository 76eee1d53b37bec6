//! Exploration scales v_t of the Thompson samplers, shared by PF-TS (preference feedback) and
//! GP-TS (scalar feedback): a draw is g_t + v_t·N(0, Σ_t) (PF-TS Algorithm 1 lines 4–5, §3.6).
//!
//! Three rules of [`WidthSchedule`] (PF-TS note §3.6), with t the 1-based round index (the round whose query is
//! being chosen, so the posterior holds t − 1 observations):
//!
//! * `rule = "pfts-experiment"` (the default): v_t² = √(t + 1 + log(2/δ)), δ = 0.05, i.e.
//!   v_t = (t + 1 + log 40)^{1/4}. PF-TS App. F.1 read literally ("v_t² = √(t+1+log(2/0.05))"),
//!   used there for both PF-TS and GP-TS.
//! * `rule = "pfts-square-root"`: v_t = √(t + 1 + log(2/δ)), the other reading of App. F.1.
//! * `rule = "theory"`: the width of the confidence sequence the regret proof
//!   uses, which depends on the feedback ([`Feedback`]):
//!   - preferences, PF-TS eq. (12) (Lemma 1, Theorem 1 takes v_t = β_t(δ)):
//!     β_t(δ) = 4B + 2√((2κ/λ)(Γ(t) + log(1/δ))), Γ the maximum information gain of the dueling
//!     kernel with noise λκ (PF-TS eq. (11));
//!   - scalar values, Chowdhury & Gopalan (2017, GP-TS): v_t = B + R√(2(Γ(t − 1) + 1 + log(2/δ))),
//!     R the sub-Gaussian constant of the noise (its standard deviation for Gaussian noise) and Γ the
//!     maximum information gain of the base kernel with the regression noise as regulariser.
//!
//!   Γ itself is supplied by the caller ([`TheoryInputs`]), typically the upper end of
//!   bohf-infogain's greedy bracket computed once for t ≤ T.

use bohf_core::error::ensure_positive;
use bohf_core::{Error, Result, WidthSchedule};

/// The δ of the papers' experiments: log(2/δ) = log 40 (PF-TS App. F.1).
pub use bohf_core::schedule::DEFAULT_DELTA;

/// The rules of [`WidthSchedule`] an exploration scale accepts.
pub const EXPLORATION_RULES: [&str; 3] = ["pfts-experiment", "pfts-square-root", "theory"];

/// The default exploration scale of PF-TS and GP-TS: v_t² = √(t + 1 + log 40)
/// (`{ rule = "pfts-experiment", delta = 0.05 }`).
pub fn default_exploration() -> WidthSchedule {
    WidthSchedule::PftsExperiment { delta: DEFAULT_DELTA }
}

/// The feedback model that decides the theoretical width (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Feedback {
    /// Duels, PF-TS eq. (12): β_t(δ) = 4B + 2√((2κ/λ)(Γ(t) + log(1/δ))).
    Preference {
        /// κ of PF-TS eq. (10) (the factor in the posterior noise λκ).
        kappa: f64,
        /// λ of the kernel logistic MLE (PF-TS eq. (8)).
        lambda: f64,
    },
    /// Noisy values, Chowdhury & Gopalan (2017): v_t = B + R√(2(Γ(t − 1) + 1 + log(2/δ))).
    Scalar {
        /// R, the sub-Gaussian constant of the observation noise (σ for N(0, σ²)).
        noise_std: f64,
    },
}

/// What the theoretical schedule needs besides B and δ: the feedback model and upper values of the
/// maximum information gain, `gamma[s] ≥ Γ(s)` for s = 0, …, T (so `gamma.len() = T + 1`).
#[derive(Debug, Clone, PartialEq)]
pub struct TheoryInputs {
    feedback: Feedback,
    gamma: Vec<f64>,
}

impl TheoryInputs {
    /// Validates κ, λ or R (> 0) and Γ (finite, ≥ 0, non-decreasing, Γ(0) = 0 not required).
    pub fn new(feedback: Feedback, gamma: Vec<f64>) -> Result<Self> {
        match feedback {
            Feedback::Preference { kappa, lambda } => {
                ensure_positive("kappa", kappa)?;
                ensure_positive("lambda", lambda)?;
            }
            Feedback::Scalar { noise_std } => ensure_positive("noise_std", noise_std)?,
        }
        if gamma.is_empty() {
            return Err(Error::Empty("information gain table Γ(0..=T)".into()));
        }
        bohf_core::error::ensure_finite("information gain table", gamma.iter())?;
        if let Some(s) = (0..gamma.len()).find(|&s| gamma[s] < 0.0 || (s > 0 && gamma[s] < gamma[s - 1])) {
            return Err(Error::invalid(
                "gamma",
                format!("Γ must be ≥ 0 and non-decreasing, but Γ({s}) = {:.6e}", gamma[s]),
            ));
        }
        Ok(Self { feedback, gamma })
    }

    /// The feedback model.
    pub fn feedback(&self) -> Feedback {
        self.feedback
    }

    /// The table Γ(0), …, Γ(T).
    pub fn gamma(&self) -> &[f64] {
        &self.gamma
    }

    /// The largest round T the table covers.
    pub fn horizon(&self) -> usize {
        self.gamma.len() - 1
    }

    fn gamma_at(&self, s: usize) -> Result<f64> {
        self.gamma.get(s).copied().ok_or_else(|| {
            Error::invalid(
                "t",
                format!(
                    "the theoretical exploration scale needs Γ({s}), but Γ was computed only up to T = {}",
                    self.horizon()
                ),
            )
        })
    }
}

/// Checks an exploration schedule of `algorithm` ([`WidthSchedule::check`] with
/// [`EXPLORATION_RULES`]); errors name `rule`, `delta` or `norm_bound`, relative to the schedule's
/// table (the config places them under its key, e.g. `exploration.delta`).
pub fn check_exploration(schedule: &WidthSchedule, algorithm: &str) -> Result<WidthSchedule> {
    schedule.check(algorithm, &EXPLORATION_RULES)
}

/// Whether the schedule needs [`TheoryInputs`] (Γ and the feedback model).
pub fn needs_theory(schedule: &WidthSchedule) -> bool {
    matches!(schedule, WidthSchedule::Theory { .. })
}

/// v_t at the 1-based round t (module docs). `theory` is required by the theoretical schedule
/// and ignored by the others. `schedule` is a checked schedule ([`check_exploration`], run once when
/// the holding config is checked), not checked again at every round (a debug build asserts it).
/// Errors name `t` (t = 0, or beyond the Γ table), the schedule's `rule` (outside
/// [`EXPLORATION_RULES`]), or `theory` when it is missing.
pub fn exploration_scale(schedule: &WidthSchedule, t: usize, theory: Option<&TheoryInputs>) -> Result<f64> {
    debug_assert!(check_exploration(schedule, "an exploration scale").is_ok(), "unchecked schedule {schedule:?}");
    if t == 0 {
        return Err(Error::invalid("t", "rounds are numbered from 1"));
    }
    let tf = t as f64;
    match *schedule {
        WidthSchedule::PftsExperiment { delta } => Ok((tf + 1.0 + (2.0 / delta).ln()).sqrt().sqrt()),
        WidthSchedule::PftsSquareRoot { delta } => Ok((tf + 1.0 + (2.0 / delta).ln()).sqrt()),
        WidthSchedule::Theory { norm_bound: b, delta } => {
            let theory = theory.ok_or_else(|| {
                Error::invalid("theory", "the theoretical schedule needs Γ(t) and the feedback model")
            })?;
            match theory.feedback {
                Feedback::Preference { kappa, lambda } => {
                    let gamma = theory.gamma_at(t)?;
                    Ok(4.0 * b + 2.0 * ((2.0 * kappa / lambda) * (gamma + (1.0 / delta).ln())).sqrt())
                }
                Feedback::Scalar { noise_std } => {
                    let gamma = theory.gamma_at(t - 1)?;
                    Ok(b + noise_std * (2.0 * (gamma + 1.0 + (2.0 / delta).ln())).sqrt())
                }
            }
        }
        other => Err(Error::invalid("rule", format!("rule \"{}\" is not an exploration scale", other.rule()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn experiment_schedule_matches_the_note_table() {
        // PF-TS note §3.6 tabulates v_t² = 2.39, 3.83, 10.23, 17.46, 28.37 at t = 1, 10, 100, 300, 800
        // (rounded to 2 decimals, hence the 5e-3 tolerance).
        let s = default_exploration();
        for (t, v2) in [(1, 2.39), (10, 3.83), (100, 10.23), (300, 17.46), (800, 28.37)] {
            assert_relative_eq!(exploration_scale(&s, t, None).unwrap().powi(2), v2, epsilon = 5e-3);
        }
        // The square-root reading tabulated there: v_t = 2.39 at t = 1 (v_t² of the default).
        let sq = WidthSchedule::PftsSquareRoot { delta: 0.05 };
        assert_relative_eq!(exploration_scale(&sq, 1, None).unwrap(), 2.39, epsilon = 5e-3);
        // log(2/0.05) = log 40 exactly: v_t⁴ − (t + 1) = log 40 to rounding.
        assert_relative_eq!(exploration_scale(&s, 7, None).unwrap().powi(4) - 8.0, 40f64.ln(), epsilon = 1e-12);
    }

    #[test]
    fn theoretical_schedules_follow_their_formulas() {
        let gamma = vec![0.0, 1.0, 1.5, 2.5];
        let pref = TheoryInputs::new(Feedback::Preference { kappa: 2.0, lambda: 0.5 }, gamma.clone()).unwrap();
        let s = WidthSchedule::Theory { norm_bound: 1.5, delta: 0.1 };
        // Hand evaluation of eq. (12) at t = 2: 4·1.5 + 2√((4/0.5)(1.5 + log 10)).
        let expected = 6.0 + 2.0 * (8.0 * (1.5 + 10f64.ln())).sqrt();
        assert_relative_eq!(exploration_scale(&s, 2, Some(&pref)).unwrap(), expected, max_relative = 1e-14);
        // Scalar: Γ(t − 1) at t = 3 is 1.5: 1.5 + 0.5·√(2(1.5 + 1 + log 20)).
        let scalar = TheoryInputs::new(Feedback::Scalar { noise_std: 0.5 }, gamma).unwrap();
        let expected = 1.5 + 0.5 * (2.0 * (2.5 + 20f64.ln())).sqrt();
        assert_relative_eq!(exploration_scale(&s, 3, Some(&scalar)).unwrap(), expected, max_relative = 1e-14);
        // Beyond the table, without the table, or at t = 0: errors naming the field.
        assert!(exploration_scale(&s, 4, Some(&pref)).unwrap_err().to_string().contains("`t`"));
        assert!(exploration_scale(&s, 1, None).unwrap_err().to_string().contains("`theory`"));
        assert!(exploration_scale(&s, 0, Some(&pref)).unwrap_err().to_string().contains("`t`"));
    }

    #[test]
    fn invalid_fields_are_named() {
        let e = |s: WidthSchedule| check_exploration(&s, "PF-TS").unwrap_err().to_string();
        assert!(e(WidthSchedule::PftsExperiment { delta: 0.0 }).contains("`delta`"));
        assert!(e(WidthSchedule::PftsSquareRoot { delta: 1.0 }).contains("`delta`"));
        assert!(e(WidthSchedule::Theory { norm_bound: -1.0, delta: 0.05 }).contains("`norm_bound`"));
        assert!(e(WidthSchedule::Constant { value: 1.0 }).contains("`rule`"));
        let bad_gamma = TheoryInputs::new(Feedback::Scalar { noise_std: 1.0 }, vec![0.0, 2.0, 1.0]);
        assert!(bad_gamma.unwrap_err().to_string().contains("`gamma`"));
        let bad_kappa = TheoryInputs::new(Feedback::Preference { kappa: 0.0, lambda: 1.0 }, vec![0.0]);
        assert!(bad_kappa.unwrap_err().to_string().contains("`kappa`"));
    }
}
