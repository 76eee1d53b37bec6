//! The per-duel negative log-likelihood of the preference model and its first two derivatives in
//! the logit, for either link (MR-LPF §2.2, PF-TS eq. (6)).

use bohf_core::Link;
use std::f64::consts::PI;

/// ℓ(y, f) = −y log μ(f) − (1 − y) log(1 − μ(f)) = −log μ(s f), s = 2y − 1 (using μ(−f) = 1 − μ(f)),
/// with its derivatives ℓ′ = ∂ℓ/∂f and ℓ″ = ∂²ℓ/∂f².
///
/// * Logistic: ℓ′ = μ(f) − y, ℓ″ = μ(f)(1 − μ(f)) ∈ (0, ¼].
/// * Probit: with u = s f and the inverse Mills ratio m(u) = φ(u)/Φ(u) (computed as
///   exp(log φ(u) − log Φ(u))), ℓ′ = −s m(u), ℓ″ = m(u)(u + m(u)) ∈ (0, 1), clamped to [0, 1]
///   against cancellation for u ≪ 0. For u < −38 core's log Φ uses a first-order tail
///   approximation, so ℓ″ there is only indicative; such logits do not occur in practice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DuelLoss {
    /// ℓ(y, f).
    pub value: f64,
    /// ℓ′(y, f) = ∂ℓ/∂f.
    pub grad: f64,
    /// ℓ″(y, f) = ∂²ℓ/∂f² ≥ 0.
    pub curv: f64,
}

/// ℓ, ℓ′ and ℓ″ of one duel with label `y` ∈ {0, 1} (given as `first_wins`) at logit `f`.
pub fn duel_loss(link: Link, first_wins: bool, f: f64) -> DuelLoss {
    let s = if first_wins { 1.0 } else { -1.0 };
    let u = s * f;
    let value = -link.log_mu(u);
    match link {
        Link::Logistic => {
            let m = link.mu(f);
            let y = if first_wins { 1.0 } else { 0.0 };
            DuelLoss { value, grad: m - y, curv: link.dmu(f) }
        }
        Link::Probit => {
            let log_phi = -0.5 * u * u - 0.5 * (2.0 * PI).ln();
            let mills = (log_phi - link.log_mu(u)).exp();
            DuelLoss { value, grad: -s * mills, curv: (mills * (u + mills)).clamp(0.0, 1.0) }
        }
    }
}

/// ℓ‴(y, f) = ∂³ℓ/∂f³, the derivative of the curvature ℓ″ (the Laplace evidence's gradient needs it
/// through ∂W/∂f, Rasmussen & Williams eq. (5.23)).
///
/// * Logistic: ℓ‴ = μ(f)(1 − μ(f))(1 − 2μ(f)) (independent of y, as ℓ″ is).
/// * Probit: with u = s f and m = m(u) as in [`duel_loss`], m′(u) = −m(u + m), so
///   ℓ‴ = s m (1 − (u + m)(u + 2m)).
pub fn duel_loss_third(link: Link, first_wins: bool, f: f64) -> f64 {
    match link {
        Link::Logistic => {
            let m = link.mu(f);
            m * (1.0 - m) * (1.0 - 2.0 * m)
        }
        Link::Probit => {
            let s = if first_wins { 1.0 } else { -1.0 };
            let u = s * f;
            let log_phi = -0.5 * u * u - 0.5 * (2.0 * PI).ln();
            let mills = (log_phi - link.log_mu(u)).exp();
            s * mills * (1.0 - (u + mills) * (u + 2.0 * mills))
        }
    }
}

/// ℓ(y, f) alone (cheaper: for line searches).
pub fn duel_nll(link: Link, first_wins: bool, f: f64) -> f64 {
    let s = if first_wins { 1.0 } else { -1.0 };
    -link.log_mu(s * f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn derivatives_match_finite_differences() {
        for link in [Link::Logistic, Link::Probit] {
            for y in [true, false] {
                for f in [-6.0, -2.0, -0.3, 0.0, 0.4, 1.7, 5.0] {
                    let l = duel_loss(link, y, f);
                    assert_relative_eq!(l.value, duel_nll(link, y, f), epsilon = 0.0);
                    // Direct definition −y log μ(f) − (1−y) log(1 − μ(f)).
                    let direct = if y { -link.mu(f).ln() } else { -(1.0 - link.mu(f)).ln() };
                    assert_relative_eq!(l.value, direct, max_relative = 1e-10);
                    let h = 1e-5;
                    let d1 = (duel_nll(link, y, f + h) - duel_nll(link, y, f - h)) / (2.0 * h);
                    let d2 = (duel_loss(link, y, f + h).grad - duel_loss(link, y, f - h).grad) / (2.0 * h);
                    // Central differences: truncation O(h²·ℓ‴) ≈ 1e-10, rounding O(ε/h) ≈ 1e-11.
                    assert_relative_eq!(l.grad, d1, epsilon = 1e-8);
                    assert_relative_eq!(l.curv, d2, epsilon = 1e-8);
                    assert!(l.curv > 0.0);
                    // ℓ‴ against central differences of ℓ″ (same error budget).
                    let d3 = (duel_loss(link, y, f + h).curv - duel_loss(link, y, f - h).curv) / (2.0 * h);
                    assert_relative_eq!(duel_loss_third(link, y, f), d3, epsilon = 1e-8);
                }
            }
        }
    }

    #[test]
    fn logistic_closed_forms() {
        // ℓ(1, 0) = log 2, ℓ′ = −½, ℓ″ = ¼.
        let l = duel_loss(Link::Logistic, true, 0.0);
        assert_relative_eq!(l.value, std::f64::consts::LN_2, epsilon = 1e-15);
        assert_relative_eq!(l.grad, -0.5, epsilon = 1e-15);
        assert_relative_eq!(l.curv, 0.25, epsilon = 1e-15);
        // Probit at 0: ℓ′ = −φ(0)/Φ(0) = −2/√(2π), ℓ″ = m(0)² = 2/π.
        let p = duel_loss(Link::Probit, true, 0.0);
        assert_relative_eq!(p.grad, -2.0 / (2.0 * PI).sqrt(), epsilon = 1e-12);
        assert_relative_eq!(p.curv, 2.0 / PI, epsilon = 1e-12);
    }
}
