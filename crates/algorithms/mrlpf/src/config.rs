//! The configuration of MR-LPF: inference, confidence width β, per-round posterior noise, and the
//! authors'-code option for the first query of a round.

use bohf_core::{AtField, Error, Link, Result, WidthSchedule};
use bohf_gp::InferenceConfig;
use serde::{Deserialize, Serialize};

/// κ_r for rounds r ≥ 2 in the theory (MR-LPF eq. (14), note §2.3 and §4.6 step 5): after round 1 every
/// surviving pair has μ(h) ∈ [1/4, 3/4], where 1/μ′ ≤ 16/3 < 6.
pub const LATER_ROUND_KAPPA: f64 = 6.0;

/// The rules of [`WidthSchedule`] MR-LPF's elimination width β_(r) (eq. (12)) accepts:
///
/// * `constant`: the same β in every round, the experiments (β = 1 on the RKHS and Ackley problems;
///   0.1 on Yelp; MR-LPF App. D). Finite and ≥ 0.
/// * `theory`: the theoretical width of eq. (14),
///   β_(r)(δ) = L (B + √((κ_r/λ) log(2 R |X| / δ))), with L = μ′(0) of the link, κ_1 = κ
///   (`inference.kappa`), κ_r = [`LATER_ROUND_KAPPA`] = 6 for r ≥ 2, λ = `inference.mle.lambda`,
///   R the number of rounds of the schedule and |X| the number of candidates. See
///   [`theoretical_beta`].
pub const BETA_RULES: [&str; 2] = ["constant", "theory"];

/// The noise ρ_r of the round's dueling posterior σ_(n,r) (eq. (10) with κ_r).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoundNoise {
    /// ρ_r = λκ in every round, κ = `inference.kappa`: with the default κ = 1 this is the
    /// experiments' ρ = λ = 0.05 (the authors' code, note §2.3). The default.
    #[default]
    Constant,
    /// The theory's ρ_1 = λκ and ρ_r = λ κ_r = 6λ for r ≥ 2 (note §2.3, [`LATER_ROUND_KAPPA`]).
    Theory,
}

/// σ of a round before its first duel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum InitialSigma {
    /// The paper: σ_(0,r)²(z) = k_D(z, z), so the first query of a round is the pair of M_r farthest
    /// apart in kernel distance. The default.
    #[default]
    Prior,
    /// The authors' early code (note §3.2 [CODE-EARLY]): σ ≡ 0 before the round's first duel, so the
    /// first query of every round is the self-pair (M_r\[0\], M_r\[0\]).
    Zero,
}

/// Settings of [`crate::MrLpf`]. Defaults are the experiments of MR-LPF (App. D) and PF-TS (App. F):
/// Matérn-5/2, ℓ = 0.1, λ = 0.05, ρ = 0.05, β = 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MrLpfConfig {
    /// Kernel, kernel logistic MLE and posterior noise, shared by every BOHF method.
    pub inference: InferenceConfig,
    /// The elimination width β_(r) (default `{ rule = "constant", value = 1.0 }`; rules
    /// [`BETA_RULES`]).
    pub beta: WidthSchedule,
    /// The round posterior's noise ρ_r (default: λκ in every round).
    pub noise: RoundNoise,
    /// σ before a round's first duel (default: the prior, as in the paper).
    pub initial_sigma: InitialSigma,
}

impl Default for MrLpfConfig {
    /// β = 1, the experiments' value on the synthetic problems.
    fn default() -> Self {
        Self {
            inference: InferenceConfig::default(),
            beta: WidthSchedule::Constant { value: 1.0 },
            noise: RoundNoise::default(),
            initial_sigma: InitialSigma::default(),
        }
    }
}

bohf_core::validated! {
    /// An [`MrLpfConfig`] that passed [`MrLpfConfig::check`]: what [`crate::MrLpf::new`] takes.
    pub struct ValidMrLpfConfig(MrLpfConfig);
}

impl MrLpfConfig {
    /// The one check of the settings; errors name the first invalid field by its path in this
    /// table, as written in TOML (`inference.kernel.lengthscale`, `inference.mle.lambda`,
    /// `inference.kappa`, `beta.rule`, `beta.value`, `beta.norm_bound`, `beta.delta`, …).
    pub fn check(&self) -> Result<ValidMrLpfConfig> {
        self.inference.check().at("inference")?;
        self.beta.check("MR-LPF", &BETA_RULES).at("beta")?;
        Ok(ValidMrLpfConfig(self.clone()))
    }

    /// κ_r of round `round` (1-based) under the configured noise rule: κ in round 1 and under
    /// [`RoundNoise::Constant`], [`LATER_ROUND_KAPPA`] for r ≥ 2 under [`RoundNoise::Theory`].
    pub fn noise_kappa(&self, round: usize) -> f64 {
        match self.noise {
            RoundNoise::Theory if round >= 2 => LATER_ROUND_KAPPA,
            _ => self.inference.kappa,
        }
    }

    /// ρ_r = λ κ_r, the noise of round `round`'s dueling posterior.
    pub fn rho(&self, round: usize) -> f64 {
        self.inference.mle.lambda * self.noise_kappa(round)
    }

    /// β_(r) for round `round` (1-based) of a run with `rounds` rounds on `n_candidates` candidates.
    pub fn beta_for_round(&self, round: usize, rounds: usize, n_candidates: usize) -> Result<f64> {
        match self.beta {
            WidthSchedule::Constant { value } => Ok(value),
            WidthSchedule::Theory { norm_bound, delta } => {
                let kappa_r = if round >= 2 { LATER_ROUND_KAPPA } else { self.inference.kappa };
                theoretical_beta(
                    self.inference.mle.link,
                    norm_bound,
                    kappa_r,
                    self.inference.mle.lambda,
                    rounds,
                    n_candidates,
                    delta,
                )
            }
            other => Err(Error::invalid(
                "rule",
                format!("rule \"{}\" has no meaning for MR-LPF; it accepts \"constant\", \"theory\"", other.rule()),
            )
            .at("beta")),
        }
    }
}

/// MR-LPF eq. (14): β_(r)(δ) = L (B + √((κ_r/λ) log(2 R |X| / δ))), L = μ′(0) (= 1/4 for the
/// logistic link, note §1.3).
///
/// The paper puts |X| in the union bound although the event ranges over pairs (|X|² would be
/// strict, note §4.5); this follows the paper. Errors name `norm_bound`, `kappa`, `lambda`, `rounds`,
/// `n_candidates` or `delta`.
pub fn theoretical_beta(
    link: Link,
    norm_bound: f64,
    kappa_r: f64,
    lambda: f64,
    rounds: usize,
    n_candidates: usize,
    delta: f64,
) -> Result<f64> {
    if !(norm_bound.is_finite() && norm_bound >= 0.0) {
        return Err(Error::invalid("norm_bound", format!("must be finite and >= 0, got {norm_bound}")));
    }
    bohf_core::error::ensure_positive("kappa", kappa_r)?;
    bohf_core::error::ensure_positive("lambda", lambda)?;
    if rounds == 0 {
        return Err(Error::invalid("rounds", "must be >= 1"));
    }
    if n_candidates == 0 {
        return Err(Error::invalid("n_candidates", "must be >= 1"));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(Error::invalid("delta", format!("must lie in (0, 1), got {delta}")));
    }
    let log_term = (2.0 * rounds as f64 * n_candidates as f64 / delta).ln();
    Ok(link.lipschitz() * (norm_bound + (kappa_r / lambda * log_term).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// Note §3.2 [OBS]: L = 1/4, B = 1, λ = 0.05, R = 4, |X| = 100, δ = 0.1 gives β ≈ 8.46 for κ_r = 6
    /// and β ≈ 16.0 for κ_1 = 22.1 (the note rounds to 3 significant digits, hence the tolerance).
    /// By hand: log(8000) = 8.98720, √(120 · 8.98720) = 32.840, (1 + 32.840)/4 = 8.4600.
    #[test]
    fn theoretical_beta_matches_the_note() {
        let b6 = theoretical_beta(Link::Logistic, 1.0, 6.0, 0.05, 4, 100, 0.1).unwrap();
        assert_relative_eq!(b6, 8.46, epsilon = 5e-3);
        let b1 = theoretical_beta(Link::Logistic, 1.0, 22.1, 0.05, 4, 100, 0.1).unwrap();
        assert_relative_eq!(b1, 16.0, epsilon = 5e-2);
        assert!(
            theoretical_beta(Link::Logistic, 1.0, 6.0, 0.05, 4, 100, 1.0).unwrap_err().to_string().contains("delta")
        );
        assert!(
            theoretical_beta(Link::Logistic, -1.0, 6.0, 0.05, 4, 100, 0.1)
                .unwrap_err()
                .to_string()
                .contains("norm_bound")
        );
    }

    #[test]
    fn per_round_noise_and_beta() {
        let mut c = MrLpfConfig::default();
        assert_eq!(c.rho(1), 0.05);
        assert_eq!(c.rho(3), 0.05);
        assert_eq!(c.beta_for_round(2, 4, 100).unwrap(), 1.0);
        c.noise = RoundNoise::Theory;
        c.inference.kappa = 22.0;
        assert_relative_eq!(c.rho(1), 0.05 * 22.0, epsilon = 1e-15);
        assert_relative_eq!(c.rho(2), 0.3, epsilon = 1e-15);
        c.beta = WidthSchedule::Theory { norm_bound: 1.0, delta: 0.1 };
        let b1 = c.beta_for_round(1, 4, 100).unwrap();
        let b2 = c.beta_for_round(2, 4, 100).unwrap();
        assert_relative_eq!(
            b2,
            theoretical_beta(Link::Logistic, 1.0, 6.0, 0.05, 4, 100, 0.1).unwrap(),
            epsilon = 1e-15
        );
        assert!(b1 > b2);
    }

    #[test]
    fn validation_names_fields() {
        let bad = |c: MrLpfConfig| c.check().unwrap_err().to_string();
        assert!(
            bad(MrLpfConfig { beta: WidthSchedule::Constant { value: -1.0 }, ..Default::default() })
                .contains("`beta.value`")
        );
        assert!(
            bad(MrLpfConfig { beta: WidthSchedule::Constant { value: f64::NAN }, ..Default::default() })
                .contains("`beta.value`")
        );
        assert!(
            bad(MrLpfConfig { beta: WidthSchedule::Theory { norm_bound: 1.0, delta: 0.0 }, ..Default::default() })
                .contains("`beta.delta`")
        );
        assert!(
            bad(MrLpfConfig {
                beta: WidthSchedule::Theory { norm_bound: f64::INFINITY, delta: 0.1 },
                ..Default::default()
            })
            .contains("`beta.norm_bound`")
        );
        let mut c = MrLpfConfig::default();
        c.inference.kappa = 0.0;
        assert!(bad(c).contains("`inference.kappa`"));
        let mut c = MrLpfConfig::default();
        c.inference.mle.lambda = -0.1;
        assert!(bad(c).contains("`inference.mle.lambda`"));
        MrLpfConfig::default().check().unwrap();
    }
}
