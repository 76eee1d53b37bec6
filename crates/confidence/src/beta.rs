//! Widths β of the likelihood-ratio confidence sets.

use bohf_core::error::ensure_positive;
use bohf_core::{Error, Result, WidthSchedule};
use std::f64::consts::PI;

/// C_L = 1 + 2/(1 + e^{−2B}), the Lipschitz constant of Lemma C.3 (POP-BO App. B; in [2, 3)).
pub fn lipschitz_constant(norm_bound: f64) -> Result<f64> {
    ensure_positive("norm_bound", norm_bound)?;
    Ok(1.0 + 2.0 / (1.0 + (-2.0 * norm_bound).exp()))
}

/// The theoretical width of POP-BO Theorem 3.1, eq. (9):
///
/// ```text
/// β₁(ε, δ, t) = √(32 t B² · log(π² t² N(B_f, ε, ‖·‖∞) / (6δ))) + C_L ε t,
/// ```
///
/// with `log_covering = log N(B_f, ε, ‖·‖∞)` supplied by the caller (it is not computable in general;
/// POP-BO Table 3 gives its growth orders). β₁ = 0 at t = 0 (no data, no likelihood constraint). For
/// the guarantees of Lemma 3.5 / Thm 3.6 pass δ/2 (notes Appendix B, item 4).
pub fn beta1(norm_bound: f64, epsilon: f64, delta: f64, t: usize, log_covering: f64) -> Result<f64> {
    let cl = lipschitz_constant(norm_bound)?;
    if !(epsilon.is_finite() && epsilon >= 0.0) {
        return Err(Error::invalid("epsilon", format!("must be finite and >= 0, got {epsilon}")));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(Error::invalid("delta", format!("must be in (0, 1), got {delta}")));
    }
    if !(log_covering.is_finite() && log_covering >= 0.0) {
        return Err(Error::invalid("log_covering", format!("must be finite and >= 0, got {log_covering}")));
    }
    if t == 0 {
        return Ok(0.0);
    }
    let tf = t as f64;
    let log_term = (PI * PI * tf * tf / (6.0 * delta)).ln() + log_covering;
    Ok((32.0 * tf * norm_bound * norm_bound * log_term).sqrt() + cl * epsilon * tf)
}

/// The σ-related constants of POP-BO Appendix B for a norm bound B (differences u ∈ [−2B, 2B]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SigmoidConstants {
    /// σ_lo = 1/(1 + e^{2B}).
    pub sigma_lo: f64,
    /// σ_hi = 1/(1 + e^{−2B}).
    pub sigma_hi: f64,
    /// σ′_lo = 1/(2 + e^{2B} + e^{−2B}) = 1/(4cosh²B).
    pub dsigma_lo: f64,
    /// σ′_hi = 1/4.
    pub dsigma_hi: f64,
    /// B_p = σ_hi/σ_lo − σ_lo/σ_hi (= e^{2B} − e^{−2B}).
    pub b_p: f64,
    /// H_σ = 1/(2σ_hi²).
    pub h_sigma: f64,
    /// C_L = 1 + 2/(1 + e^{−2B}).
    pub c_l: f64,
}

impl SigmoidConstants {
    /// The constants for norm bound B > 0.
    pub fn new(norm_bound: f64) -> Result<Self> {
        let c_l = lipschitz_constant(norm_bound)?;
        let e = (2.0 * norm_bound).exp();
        let sigma_lo = 1.0 / (1.0 + e);
        let sigma_hi = 1.0 / (1.0 + 1.0 / e);
        Ok(Self {
            sigma_lo,
            sigma_hi,
            dsigma_lo: 1.0 / (2.0 + e + 1.0 / e),
            dsigma_hi: 0.25,
            b_p: sigma_hi / sigma_lo - sigma_lo / sigma_hi,
            h_sigma: 1.0 / (2.0 * sigma_hi * sigma_hi),
            c_l,
        })
    }
}

/// The width of the duel-wise elliptical bound, POP-BO Lemma 3.5 / eq. (13), with the notes'
/// reconstruction (Appendix B items 2–3): prefactor 1/(H_σ σ′_lo²) and 6δ inside β₂'s log,
///
/// ```text
/// β(ε, δ/2, t) = (β₂(ε, δ/2, t) + 2β₁(ε, δ/2, t)) / (H_σ σ′_lo²),
/// β₂(ε, δ, t) = 8H_σσ′_hi²ε²t + 2C_Lεt + √(8tB_p² log(π²t²N/(6δ))).
/// ```
///
/// `delta` is the overall δ (halved inside). Used by POP-BO's theoretical reporting rule, eq. (19).
pub fn beta_lemma35(norm_bound: f64, epsilon: f64, delta: f64, t: usize, log_covering: f64) -> Result<f64> {
    let c = SigmoidConstants::new(norm_bound)?;
    let b1 = beta1(norm_bound, epsilon, delta / 2.0, t, log_covering)?;
    if t == 0 {
        return Ok(0.0);
    }
    let tf = t as f64;
    let log_term = (PI * PI * tf * tf / (6.0 * delta / 2.0)).ln() + log_covering;
    let b2 = 8.0 * c.h_sigma * c.dsigma_hi.powi(2) * epsilon * epsilon * tf
        + 2.0 * c.c_l * epsilon * tf
        + (8.0 * tf * c.b_p * c.b_p * log_term).sqrt();
    Ok((b2 + 2.0 * b1) / (c.h_sigma * c.dsigma_lo * c.dsigma_lo))
}

/// COBOL's α₁ (Lemma 3.2) for unary labels: √(32 n B² log(π²t²N/(6δ))) + 2εt, n = number of labels,
/// t = iteration (n ≤ t); 0 when n = 0.
pub fn alpha1_cobol(
    norm_bound: f64,
    epsilon: f64,
    delta: f64,
    labels: usize,
    t: usize,
    log_covering: f64,
) -> Result<f64> {
    ensure_positive("norm_bound", norm_bound)?;
    beta1(norm_bound, epsilon, delta, t.max(1), log_covering)?; // validates ε, δ, log N
    if labels == 0 {
        return Ok(0.0);
    }
    let tf = t.max(1) as f64;
    let log_term = (PI * PI * tf * tf / (6.0 * delta)).ln() + log_covering;
    Ok((32.0 * labels as f64 * norm_bound * norm_bound * log_term).sqrt() + 2.0 * epsilon * tf)
}

/// The rules of [`WidthSchedule`] POP-BO's likelihood-ratio width accepts.
pub const BETA_RULES: [&str; 4] = ["constant", "sqrt-t", "sqrt-t-plus-one", "popbo-theorem31"];

/// Checks a confidence-set width ([`WidthSchedule::check`] with [`BETA_RULES`]); errors name
/// `rule`, `value`, `scale`, `epsilon`, `delta` or `log_covering`, relative to the schedule's table
/// (the config places them under its key, e.g. `beta.scale`).
pub fn check_beta(schedule: &WidthSchedule) -> Result<WidthSchedule> {
    schedule.check("a likelihood-ratio confidence set", &BETA_RULES)
}

/// β after t observations, for norm bound B (used only by `popbo-theorem31`, see [`beta1`]):
/// `constant` β = value; `sqrt-t` β = β₀√t (POP-BO App. P); `sqrt-t-plus-one` β = β₀√(t + 1)
/// (the authors' code, `beta_func(num_data)`); `popbo-theorem31` β₁(ε, δ, t) of Theorem 3.1.
///
/// `schedule` is a checked schedule ([`check_beta`], run once when the holding config is checked):
/// it is not checked again here, at every step (a debug build asserts it). A rule outside
/// [`BETA_RULES`] is still an error naming `rule`; B is checked, as it changes along a run (B̂ doubles).
pub fn beta_at(schedule: &WidthSchedule, t: usize, norm_bound: f64) -> Result<f64> {
    debug_assert!(check_beta(schedule).is_ok(), "beta_at takes a checked schedule: {schedule:?}");
    ensure_positive("norm_bound", norm_bound)?;
    match *schedule {
        WidthSchedule::Constant { value } => Ok(value),
        WidthSchedule::SqrtT { scale } => Ok(scale * (t as f64).sqrt()),
        WidthSchedule::SqrtTPlusOne { scale } => Ok(scale * (t as f64 + 1.0).sqrt()),
        WidthSchedule::PopboTheorem31 { epsilon, delta, log_covering } => {
            beta1(norm_bound, epsilon, delta, t, log_covering)
        }
        other => Err(Error::invalid("rule", format!("rule \"{}\" is not a confidence-set width", other.rule()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn lipschitz_constant_matches_the_notes_table() {
        // POP-BO notes §2.4 table (computed independently in Python), 5 significant digits.
        for (b, cl) in [(0.5, 2.46212), (1.0, 2.76159), (2.0, 2.96403), (3.0, 2.99505)] {
            assert_relative_eq!(lipschitz_constant(b).unwrap(), cl, max_relative = 3e-6);
        }
    }

    #[test]
    fn beta1_by_hand() {
        // t = 2, B = 1, δ = 0.1, ε = 0.5, log N = 3: √(64·(ln(4π²/0.6) + 3)) + C_L·1.
        let by_hand = (64.0 * ((4.0 * PI * PI / 0.6).ln() + 3.0)).sqrt() + (1.0 + 2.0 / (1.0 + (-2.0f64).exp()));
        assert_relative_eq!(beta1(1.0, 0.5, 0.1, 2, 3.0).unwrap(), by_hand, max_relative = 1e-14);
        assert_eq!(beta1(1.0, 0.5, 0.1, 0, 3.0).unwrap(), 0.0);
        // Monotone in t, B, log N; decreasing in δ.
        let b = |t, bb, d, ln| beta1(bb, 0.01, d, t, ln).unwrap();
        assert!(b(10, 1.0, 0.1, 1.0) < b(11, 1.0, 0.1, 1.0));
        assert!(b(10, 1.0, 0.1, 1.0) < b(10, 2.0, 0.1, 1.0));
        assert!(b(10, 1.0, 0.1, 1.0) < b(10, 1.0, 0.1, 2.0));
        assert!(b(10, 1.0, 0.1, 1.0) > b(10, 1.0, 0.2, 1.0));
    }

    #[test]
    fn appendix_b_constants_match_the_notes_table() {
        // POP-BO notes §2.4 (computed independently in Python): B, σ_lo, σ′_lo, B_p, H_σ, 1/(H_σσ′_lo²).
        let table = [
            (0.5, 0.26894, 0.19661, 2.3504, 0.93555, 27.65),
            (1.0, 0.11920, 0.10499, 7.2537, 0.64449, 140.75),
            (2.0, 0.017986, 0.017663, 54.580, 0.51848, 6182.3),
            (3.0, 2.4726e-3, 2.4665e-3, 403.43, 0.50248, 3.271e5),
        ];
        for (b, slo, dslo, bp, hs, pref) in table {
            let c = SigmoidConstants::new(b).unwrap();
            // The table has 4–5 significant digits.
            assert_relative_eq!(c.sigma_lo, slo, max_relative = 5e-4);
            assert_relative_eq!(c.dsigma_lo, dslo, max_relative = 5e-4);
            assert_relative_eq!(c.b_p, bp, max_relative = 5e-4);
            assert_relative_eq!(c.h_sigma, hs, max_relative = 5e-4);
            assert_relative_eq!(1.0 / (c.h_sigma * c.dsigma_lo * c.dsigma_lo), pref, max_relative = 5e-4);
            // Closed forms of the notes: B_p = 2 sinh(2B), 1/σ′_lo = 4cosh²B.
            assert_relative_eq!(c.b_p, 2.0 * (2.0 * b).sinh(), max_relative = 1e-12);
            assert_relative_eq!(1.0 / c.dsigma_lo, 4.0 * b.cosh().powi(2), max_relative = 1e-12);
        }
    }

    #[test]
    fn lemma35_and_cobol_widths_by_hand() {
        // t = 3, B = 1, ε = 0.1, δ = 0.2 (δ/2 = 0.1 inside), log N = 1.
        let c = SigmoidConstants::new(1.0).unwrap();
        let l = (9.0 * PI * PI / 0.6).ln() + 1.0;
        let b1 = (96.0 * l).sqrt() + c.c_l * 0.3;
        let b2 = 8.0 * c.h_sigma / 16.0 * 0.01 * 3.0 + 2.0 * c.c_l * 0.3 + (24.0 * c.b_p * c.b_p * l).sqrt();
        let by_hand = (b2 + 2.0 * b1) / (c.h_sigma * c.dsigma_lo * c.dsigma_lo);
        assert_relative_eq!(beta_lemma35(1.0, 0.1, 0.2, 3, 1.0).unwrap(), by_hand, max_relative = 1e-13);
        // Monotone in t (the regret proof uses β(ε, δ/2, t−1) ≤ β(ε, δ/2, t)).
        assert!(beta_lemma35(1.0, 0.1, 0.2, 3, 1.0).unwrap() < beta_lemma35(1.0, 0.1, 0.2, 4, 1.0).unwrap());
        // COBOL: n = 5 labels at t = 8.
        let l8 = (64.0 * PI * PI / 0.6).ln() + 1.0;
        let a = (32.0 * 5.0 * 4.0 * l8).sqrt() + 2.0 * 0.1 * 8.0;
        assert_relative_eq!(alpha1_cobol(2.0, 0.1, 0.1, 5, 8, 1.0).unwrap(), a, max_relative = 1e-13);
        assert_eq!(alpha1_cobol(2.0, 0.1, 0.1, 0, 8, 1.0).unwrap(), 0.0);
        assert!(alpha1_cobol(-2.0, 0.1, 0.1, 1, 8, 1.0).unwrap_err().to_string().contains("norm_bound"));
    }

    #[test]
    fn schedules_and_errors() {
        let at = |s: WidthSchedule, t, b| beta_at(&s, t, b).unwrap();
        // Hand values: 0.1·√4 = 0.2; 2·√9 = 6.
        assert_relative_eq!(at(WidthSchedule::SqrtTPlusOne { scale: 0.1 }, 3, 1.0), 0.2, max_relative = 1e-15);
        assert_relative_eq!(at(WidthSchedule::SqrtT { scale: 2.0 }, 9, 1.0), 6.0, max_relative = 1e-15);
        assert_eq!(at(WidthSchedule::Constant { value: 1.0 }, 50, 1.0), 1.0);
        let th = WidthSchedule::PopboTheorem31 { epsilon: 0.1, delta: 0.05, log_covering: 2.0 };
        assert_eq!(at(th, 7, 3.0), beta1(3.0, 0.1, 0.05, 7, 2.0).unwrap());
        let msg = |r: Result<f64>| r.unwrap_err().to_string();
        assert!(msg(beta1(0.0, 0.1, 0.1, 1, 0.0)).contains("norm_bound"));
        assert!(msg(beta1(1.0, 0.1, 1.5, 1, 0.0)).contains("delta"));
        assert!(msg(beta1(1.0, -0.1, 0.1, 1, 0.0)).contains("epsilon"));
        assert!(msg(beta1(1.0, 0.1, 0.1, 1, f64::NAN)).contains("log_covering"));
        // The range check is the config's, once ([`check_beta`]), not every step's.
        assert!(msg(check_beta(&WidthSchedule::SqrtT { scale: -1.0 }).map(|_| 0.0)).contains("`scale`"));
        assert!(msg(beta_at(&WidthSchedule::Constant { value: 1.0 }, 1, 0.0)).contains("norm_bound"));
        // A rule without a meaning for the confidence set is named, with the accepted ones.
        let e = msg(check_beta(&WidthSchedule::PftsExperiment { delta: 0.05 }).map(|_| 0.0));
        assert!(e.contains("`rule`") && e.contains("\"sqrt-t\""), "{e}");
    }

    /// Each POP-BO schedule, parsed from its new TOML spelling, gives the β_t sequence of its paper
    /// formula for t = 0, …, 30: App. P β₀√t, the authors' `beta_func` β₀√(t + 1), the constant,
    /// and Theorem 3.1 eq. (9) written out here term by term.
    #[test]
    fn named_schedules_give_the_papers_sequences() {
        #[derive(serde::Deserialize)]
        struct Spec {
            beta: WidthSchedule,
        }
        let parse = |s: &str| toml::from_str::<Spec>(s).unwrap().beta;
        let b: f64 = 2.0;
        let cl = 1.0 + 2.0 / (1.0 + (-2.0 * b).exp());
        type Formula = Box<dyn Fn(f64) -> f64>;
        let cases: [(&str, Formula); 4] = [
            ("beta = { rule = \"constant\", value = 1.0 }", Box::new(|_| 1.0)),
            ("beta = { rule = \"sqrt-t\", scale = 1.0 }", Box::new(|t: f64| t.sqrt())),
            ("beta = { rule = \"sqrt-t-plus-one\", scale = 0.1 }", Box::new(|t: f64| 0.1 * (t + 1.0).sqrt())),
            (
                "beta = { rule = \"popbo-theorem31\", epsilon = 0.01, delta = 0.05, log_covering = 3.0 }",
                Box::new(move |t: f64| {
                    if t == 0.0 {
                        0.0
                    } else {
                        (32.0 * t * b * b * ((PI * PI * t * t / (6.0 * 0.05)).ln() + 3.0)).sqrt() + cl * 0.01 * t
                    }
                }),
            ),
        ];
        for (text, formula) in cases {
            let s = parse(text);
            for t in 0..=30 {
                assert_relative_eq!(beta_at(&s, t, b).unwrap(), formula(t as f64), max_relative = 1e-13);
            }
        }
    }
}
