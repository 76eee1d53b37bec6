//! Link functions μ of the preference model P(x ≻ x′) = μ(f(x) − f(x′)), with the curvature
//! constants κ and L of the BOHF papers.

use crate::special::{std_normal_cdf, std_normal_log_cdf, std_normal_pdf};
use serde::{Deserialize, Serialize};

/// A link function μ: ℝ → (0, 1), increasing, with μ(−s) = 1 − μ(s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Link {
    /// The logistic (Bradley–Terry–Luce) link μ(s) = 1/(1+e^{−s}) of MR-LPF §1.1 and PF-TS §1.1.
    #[default]
    Logistic,
    /// The probit link μ(s) = Φ(s), the standard normal CDF (Thurstone–Mosteller).
    Probit,
}

impl Link {
    /// μ(s). Logistic: 1/(1+e^{−s}), evaluated without overflow; probit: Φ(s), the standard normal
    /// CDF by Cody's rational Chebyshev approximations ([`std_normal_cdf`]; a few ulps relative
    /// wherever Φ(s) is a normal number).
    pub fn mu(self, s: f64) -> f64 {
        match self {
            Link::Logistic => {
                if s >= 0.0 {
                    1.0 / (1.0 + (-s).exp())
                } else {
                    let e = s.exp();
                    e / (1.0 + e)
                }
            }
            Link::Probit => std_normal_cdf(s),
        }
    }

    /// μ′(s). Logistic: μ(s)(1 − μ(s)); probit: φ(s) = e^{−s²/2}/√(2π) ([`std_normal_pdf`]).
    pub fn dmu(self, s: f64) -> f64 {
        match self {
            Link::Logistic => {
                let m = self.mu(s);
                m * (1.0 - m)
            }
            Link::Probit => std_normal_pdf(s),
        }
    }

    /// log μ(s), accurate for large |s| (the log-likelihood of a won duel).
    /// Logistic: −log(1+e^{−s}) computed as −softplus(−s); probit: log Φ(s) assembled on the log
    /// scale ([`std_normal_log_cdf`]), a few ulps relative also where Φ(s) underflows (s < −38.5).
    pub fn log_mu(self, s: f64) -> f64 {
        match self {
            Link::Logistic => -softplus(-s),
            Link::Probit => std_normal_log_cdf(s),
        }
    }

    /// κ(H) = sup_{|h| ≤ H} 1/μ′(h) (MR-LPF eq. (2), PF-TS Assumption 1), attained at |h| = H because μ′
    /// is even and decreasing in |h| for both links. Logistic: 2 + e^H + e^{−H}.
    pub fn kappa(self, h_max: f64) -> f64 {
        let h = h_max.abs();
        match self {
            Link::Logistic => 2.0 + h.exp() + (-h).exp(),
            Link::Probit => 1.0 / self.dmu(h),
        }
    }

    /// L = sup μ′ (MR-LPF §1.3): attained at h = 0, since h(x, x) = 0 is always in range.
    /// Logistic: 1/4; probit: 1/√(2π).
    pub fn lipschitz(self) -> f64 {
        self.dmu(0.0)
    }
}

/// The multinomial-logit (Plackett–Luce top-1) choice probabilities of k options with utilities
/// f_1, …, f_k at scale s > 0 (the scale of the duel link, [`Link`]):
///
/// ```text
/// P(i | x_1, …, x_k) = exp(f_i/s) / Σ_j exp(f_j/s),
/// ```
///
/// the softmax of f/s, computed after subtracting max f (no overflow; each probability is in
/// [0, 1] and they sum to 1 up to rounding). At k = 2, P(1 | x_1, x_2) = μ((f_1 − f_2)/s) with the
/// logistic μ: the Bradley–Terry duel. Empty input gives an empty vector.
pub fn choice_probabilities(utilities: &[f64], scale: f64) -> Vec<f64> {
    let top = utilities.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = utilities.iter().map(|f| ((f - top) / scale).exp()).collect();
    let total: f64 = e.iter().sum();
    e.into_iter().map(|v| v / total).collect()
}

/// log P(`chosen` | x_1, …, x_k) of [`choice_probabilities`]: f_c/s − log Σ_j exp(f_j/s), by
/// log-sum-exp after subtracting max f, accurate also where the probability underflows. At k = 2
/// it is [`Link::log_mu`] of the logistic link at (f_c − f_other)/s. `chosen` must be < k
/// (an index beyond the options, or no options, panics: callers check answers first,
/// [`crate::Query::check_answer`]).
pub fn choice_log_probability(utilities: &[f64], chosen: usize, scale: f64) -> f64 {
    // log Σ_j exp((f_j − f_m)/s) = log1p(Σ_{j≠m} …) with m a maximiser: exact also when the other
    // terms are below ε (where log of the sum would round to 0).
    let m = (0..utilities.len()).fold(0, |m, j| if utilities[j] > utilities[m] { j } else { m });
    let top = utilities[m];
    let rest: f64 = utilities.iter().enumerate().filter(|&(j, _)| j != m).map(|(_, f)| ((f - top) / scale).exp()).sum();
    (utilities[chosen] - top) / scale - rest.ln_1p()
}

/// softplus(s) = log(1 + e^s), without overflow.
pub fn softplus(s: f64) -> f64 {
    if s > 0.0 { s + (-s).exp().ln_1p() } else { s.exp().ln_1p() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn softplus_is_stable_and_exact() {
        // Independent: direct formula where it does not overflow; asymptote u for large u.
        for u in [-30.0, -1.0, 0.0, 0.5, 20.0] {
            assert!((softplus(u) - (1.0 + f64::exp(u)).ln()).abs() < 1e-14);
        }
        assert_eq!(softplus(1000.0), 1000.0);
        assert!(softplus(-1000.0) >= 0.0);
    }

    #[test]
    fn the_choice_likelihood_at_k_2_is_the_logistic_duel() {
        // Independent: P(1 | x_1, x_2) = 1/(1 + e^{−(f_1 − f_2)/s}) is the logistic duel of Link.
        for (f1, f2, s) in
            [(0.3, -1.2, 1.0), (2.0, 2.0, 0.5), (-40.0, 3.0, 1.0), (700.0, -700.0, std::f64::consts::SQRT_2)]
        {
            let p = choice_probabilities(&[f1, f2], s);
            assert_relative_eq!(p[0], Link::Logistic.mu((f1 - f2) / s), max_relative = 1e-14);
            assert_relative_eq!(p[1], Link::Logistic.mu((f2 - f1) / s), max_relative = 1e-14);
            for (c, d) in [(0, f1 - f2), (1, f2 - f1)] {
                let want = Link::Logistic.log_mu(d / s);
                assert_relative_eq!(
                    choice_log_probability(&[f1, f2], c, s),
                    want,
                    max_relative = 1e-13,
                    epsilon = 1e-300
                );
            }
        }
    }

    #[test]
    fn choice_probabilities_by_hand_and_in_the_tails() {
        // f = (0, ln 2, ln 3) at s = 1: weights 1, 2, 3 over 6.
        let f = [0.0, 2f64.ln(), 3f64.ln()];
        let p = choice_probabilities(&f, 1.0);
        for (pi, want) in p.iter().zip([1.0 / 6.0, 2.0 / 6.0, 3.0 / 6.0]) {
            assert_relative_eq!(*pi, want, max_relative = 1e-15);
        }
        // The scale divides the utilities: at s = 2 the weights are 1, √2, √3.
        let p2 = choice_probabilities(&f, 2.0);
        let z = 1.0 + 2f64.sqrt() + 3f64.sqrt();
        assert_relative_eq!(p2[2], 3f64.sqrt() / z, max_relative = 1e-15);
        assert_relative_eq!(choice_log_probability(&f, 1, 1.0), (1.0f64 / 3.0).ln(), max_relative = 1e-15);
        // Huge utilities neither overflow nor give NaN; the log of a vanishing probability stays exact.
        let p = choice_probabilities(&[1000.0, -1000.0, 999.0], 1.0);
        assert!(p.iter().all(|v| v.is_finite()) && (p.iter().sum::<f64>() - 1.0).abs() < 1e-15, "{p:?}");
        assert_relative_eq!(
            choice_log_probability(&[1000.0, -1000.0, 999.0], 1, 1.0),
            -2000.0 - (1.0 + (-1f64).exp()).ln(),
            max_relative = 1e-15
        );
    }

    #[test]
    fn logistic_closed_forms() {
        let l = Link::Logistic;
        assert_eq!(l.mu(0.0), 0.5);
        assert_relative_eq!(l.lipschitz(), 0.25, epsilon = 1e-15);
        // MR-LPF §1.3: f in [-5, 5] gives κ = 2 + e^10 + e^-10 = 22028.47.
        assert_relative_eq!(l.kappa(10.0), 22028.46584020665, max_relative = 1e-12);
        // 1/μ'(s) = 2 + e^s + e^-s for the logistic link.
        for s in [-7.0, -1.0, 0.3, 4.0] {
            assert_relative_eq!(1.0 / l.dmu(s), 2.0 + f64::exp(s) + f64::exp(-s), max_relative = 1e-12);
        }
    }

    #[test]
    fn symmetry_and_derivative_by_finite_differences() {
        for link in [Link::Logistic, Link::Probit] {
            for s in [-6.0, -2.5, -0.1, 0.0, 0.7, 3.0] {
                assert_relative_eq!(link.mu(-s), 1.0 - link.mu(s), epsilon = 1e-15);
                let h = 1e-5;
                let fd = (link.mu(s + h) - link.mu(s - h)) / (2.0 * h);
                // Central difference error is O(h²·μ‴) ≲ 1e-10.
                assert_relative_eq!(link.dmu(s), fd, epsilon = 1e-9);
                assert_relative_eq!(link.log_mu(s), link.mu(s).ln(), max_relative = 1e-12);
            }
        }
    }

    #[test]
    #[allow(clippy::excessive_precision)] // mpmath values to 17 significant digits
    fn probit_matches_known_values() {
        // Φ(1.96) = 0.97500210485177957 (mpmath, 30 digits); Cody's Φ is accurate to a few ulps.
        assert_relative_eq!(Link::Probit.mu(1.96), 0.97500210485177957, epsilon = 1e-15);
        // Φ(0.8) = 0.78814460141660331 (mpmath): where statrs' erfc was off by 2e-11.
        assert_relative_eq!(Link::Probit.mu(0.8), 0.78814460141660331, epsilon = 1e-15);
        assert_relative_eq!(Link::Probit.lipschitz(), 0.3989422804014327, epsilon = 1e-15);
    }

    #[test]
    #[allow(clippy::excessive_precision)] // mpmath values to 17 significant digits
    fn log_mu_is_stable_far_in_the_tails() {
        assert_relative_eq!(Link::Logistic.log_mu(-800.0), -800.0, max_relative = 1e-12);
        assert!(Link::Logistic.log_mu(800.0).abs() < 1e-300);
        // log Φ(−40) = −804.60844201375379 (mpmath, 30 digits), where Φ itself underflows; the old
        // first-order Mills ratio φ(s)/|s| was off by log(1 − 1/s²) ≈ 6e-4 here.
        assert_relative_eq!(Link::Probit.log_mu(-40.0), -804.60844201375379, max_relative = 1e-14);
    }
}
