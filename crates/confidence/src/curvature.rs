//! Certified pointwise bounds from a quadratic outer approximation of the likelihood constraint.
//!
//! The cheap bounds of [`crate::ConfidenceSet`] (the ball and halfspaces) lose the curvature of ℓ, so where
//! the set is narrow only because many labels pin f̃ down (COBOL with a hundred labels or more:
//! g_lower ≈ 0…2 at explored points while ball ∩ halfspaces certify only the latent box −3) they
//! certify nothing and every program must be solved. This module keeps the curvature.
//!
//! **The outer set.** Observation τ contributes c_τ φ(t_τ) to ℓ, φ(t) = log σ(t) = −softplus(−t),
//! t_τ = r_τᵀw (COBOL eq. (4), POP-BO eq. (21)). On the common set every t_τ lies in
//! [−R_τ, R_τ], R_τ = min(B‖r_τ‖, the latent box's range of the functional: b for a label, 2b for
//! a duel). On that interval φ lies below a concave quadratic
//!
//! ```text
//! q_τ(t) = φ(a_τ) + d_τ (t − a_τ) − ½ m_τ (t − a_τ)²,
//! ```
//!
//! chosen at the MLE's value t̂_τ: the tangent at a = t̂ (d = φ′(a)), or, for
//! a term the box holds at its edge (t̂ = R, where φ still rises), the quadratic with its vertex
//! there (a = R, d = 0), which leaves no likelihood to gain beyond the box the dual relaxes. m_τ is
//! the largest curvature with q_τ ≥ φ on [−R_τ, R_τ], certified below (grid minimum of the
//! ratio 2(q⁰ − φ)/(t − a)² less a bound on its variation between grid points). Then
//! ℓ(w) ≤ Q(w) = Σ_τ c_τ q_τ(r_τᵀw) + ℓ₀, a concave quadratic, on the common set, so
//!
//! ```text
//! C′ ⊆ E = {‖(w, ω)‖ ≤ B,  ½ vᵀMv − γᵀv ≤ β′},   v = w − ŵ,  M = Σ_τ c_τ m_τ r_τ r_τᵀ,
//!          γ = ∇Q(ŵ),  β′ = Q(ŵ) − (ℓ* − β).
//! ```
//!
//! **The bound.** h(g) = max gᵀp over C′ is at most its maximum over E, and by weak duality, for
//! every ν > 0 and μ ≥ 0 (multipliers of the ball and of the quadratic constraint),
//!
//! ```text
//! h(g) ≤ D(ν, μ) = g_wᵀŵ − ν‖ŵ‖² + ½ bᵀ(2νI + μM)⁻¹b + g_ω²/(4ν) + νB² + μβ′,
//!        b = g_w − 2νŵ + μγ,
//! ```
//!
//! the maximum over p of the Lagrangian (a concave quadratic in w, ω). With the eigendecomposition
//! M = VΛVᵀ (once per set) every evaluation is O(n) in the rotated coordinates; the O(n²) per point
//! is Vᵀg_w. D is convex; it is minimised by a safeguarded Newton method
//! over (ν, μ), and every value it evaluates is a valid bound, so the result is certified however
//! far the search gets. At μ = 0 the minimum is B‖g‖ (the ball alone), so the bound is never
//! worse than the ball's. It is not a cut of a solved program but a property of the data, so it
//! certifies points far from every solved one.

use crate::conic::ConicData;
use bohf_core::Link;
use bohf_core::linalg::{symmetric_eigen_blocked, tr_mul_blocked};
use nalgebra::{DMatrix, DVector};

/// The centre ŵ in the eigenbasis of M: Vᵀŵ, Vᵀ∇Q(ŵ), ‖ŵ‖² and β′ = Q(ŵ) − (ℓ* − β).
#[derive(Debug, Clone)]
struct Centre {
    w: DVector<f64>,
    gamma: DVector<f64>,
    wnorm2: f64,
    beta: f64,
}

/// The quadratic outer approximation E of one confidence set (module docs).
#[derive(Debug, Clone)]
pub(crate) struct CurvatureOuter {
    /// Vᵀ (n×n), so that rotating a vector is one product.
    vt: DMatrix<f64>,
    /// The eigenvalues of M, clipped at 0 and shrunk by a relative 10⁻¹⁰ (so that the computed
    /// decomposition never claims more curvature than M has).
    lambda: DVector<f64>,
    centre: Centre,
    norm_bound: f64,
    /// Q(ŵ).
    pub(crate) q_centre: f64,
}

/// The range R_τ of each t_τ = r_τᵀw on the common set: B‖r_τ‖, and with the latent box b also
/// b for a label and 2b for a duel; widened by a relative 10⁻⁶ so that an MLE a hair outside the
/// box (within the solver's tolerance) is still inside.
fn term_ranges(data: &ConicData) -> Vec<f64> {
    let b = data.norm_bound;
    (0..data.rows.nrows())
        .map(|tau| {
            let mut range = b * data.rows.row(tau).norm();
            if let Some(bx) = data.latent_box {
                let span = if data.terms[tau].2.is_some() { 2.0 * bx } else { bx };
                range = range.min(span);
            }
            range * (1.0 + 1e-6)
        })
        .collect()
}

/// φ(t) = log σ(t).
fn phi(t: f64) -> f64 {
    Link::Logistic.log_mu(t)
}

/// Grid cells per side of a in [`term_quadratic`].
const GRID: usize = 512;

/// The concave quadratic q(t) = φ(a) + d(t − a) − ½m(t − a)² ≥ φ(t) on [−r, r] for a term whose
/// MLE value is `t_hat` (module docs): (a, d, m).
///
/// * Tangent form, a = t̂ (clamped into [−r, r]), d = φ′(a) = σ(−a): q ≥ φ iff m ≤ the ratio
///   ρ(t) = 2(φ(a) + d(t − a) − φ(t))/(t − a)² = ∫₀¹ 2(1 − u) σ′(a + u(t − a)) du for all t
///   (→ σ′(a) at t = a). Since |σ″| = σ′|1 − 2σ| ≤ σ′, |ρ′(t)| ≤ ∫₀¹ 2u(1 − u) σ′ du ≤ ρ(t), so
///   ρ(s) ≥ ρ(t)·e^{−|s − t|}: the smallest grid value times e^{−cell width} is a certified lower
///   bound of min ρ.
/// * Vertex form at the edge (t̂ ≥ r up to 10⁻⁶ relative), a = r, d = 0: the ratio is
///   2φ′(r)/(r − t) + ρ_r(t) (ρ_r the tangent ratio at r); the first part only grows as t nears r,
///   so on each cell it is taken at the cell's left end.
fn term_quadratic(t_hat: f64, r: f64) -> (f64, f64, f64) {
    let vertex = t_hat >= r * (1.0 - 1e-6);
    let a = if vertex { r } else { t_hat.clamp(-r, r) };
    let slope = Link::Logistic.mu(-a);
    let phi_a = phi(a);
    let tangent_ratio = |t: f64| {
        let h = t - a;
        if h.abs() < 1e-4 {
            Link::Logistic.dmu(a) * (-h.abs()).exp()
        } else {
            2.0 * (phi_a + slope * h - phi(t)) / (h * h)
        }
    };
    let mut m = f64::INFINITY;
    for (lo, hi) in [(-r, a), (a, r)] {
        if hi - lo <= 0.0 {
            continue;
        }
        let w = (hi - lo) / GRID as f64;
        let shrink = (-w).exp();
        for k in 0..=GRID {
            let t = lo + k as f64 * w;
            let mut v = tangent_ratio(t) * shrink;
            if vertex {
                // 2φ′(r)/(r − t) is smallest at the left end of the cell [t − w, t].
                v += 2.0 * slope / (r - (t - w)).max(0.0);
            }
            m = m.min(v);
        }
    }
    (a, if vertex { 0.0 } else { slope }, m.max(0.0))
}

impl CurvatureOuter {
    /// E for the set of `data` with log-likelihood threshold `threshold`, centred at the MLE `w_hat`
    /// (whose t̂_τ choose the quadratics): M, its eigendecomposition (O(n³), once per set), ∇Q(ŵ)
    /// and β′. `None` without observation terms (the ball is then the whole story).
    pub(crate) fn new(data: &ConicData, w_hat: &DVector<f64>, threshold: f64) -> Option<Self> {
        let m = data.rows.nrows();
        let n = data.rows.ncols();
        if m == 0 || n == 0 || w_hat.len() != n {
            return None;
        }
        let ranges = term_ranges(data);
        let t_hat = &data.rows * w_hat;
        // Q(ŵ) and ∇_t of each term at t̂; M = Rᵀ diag(c m) R.
        let mut q_hat = data.constant;
        let mut dq = DVector::zeros(m);
        let mut scaled = data.rows.clone();
        // Terms of equal (t̂, R) — repeated labels or duels of the same points — share their
        // quadratic: each distinct pair's grid is evaluated once (the same values, bit for bit).
        let mut quadratics: std::collections::HashMap<(u64, u64), (f64, f64, f64)> = Default::default();
        for tau in 0..m {
            let key = (t_hat[tau].to_bits(), ranges[tau].to_bits());
            let (a, d, curv) = *quadratics.entry(key).or_insert_with(|| term_quadratic(t_hat[tau], ranges[tau]));
            let c = data.weights[tau];
            let h = t_hat[tau] - a;
            q_hat += c * (phi(a) + d * h - 0.5 * curv * h * h);
            dq[tau] = c * (d - curv * h);
            scaled.row_mut(tau).scale_mut((c * curv).sqrt());
        }
        // faer's blocked decomposition (nalgebra's unblocked QR iteration was ~0.3 s at 670 terms).
        let eig = symmetric_eigen_blocked(&tr_mul_blocked(&scaled, &scaled)).ok()?;
        if eig.eigenvalues.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let top = eig.eigenvalues.iter().fold(0.0_f64, |a, &v| a.max(v));
        let lambda = eig.eigenvalues.map(|v| (v - 1e-10 * top).max(0.0));
        let vt = eig.eigenvectors.transpose();
        let gamma = data.rows.tr_mul(&dq);
        let beta = q_hat - threshold;
        if !beta.is_finite() {
            return None;
        }
        let centre = Centre { w: &vt * w_hat, gamma: &vt * gamma, wnorm2: w_hat.norm_squared(), beta };
        Some(Self { vt, lambda, centre, norm_bound: data.norm_bound, q_centre: q_hat })
    }

    /// A certified upper bound on h(g) = max {g_wᵀw + g_ω ω : (w, ω) ∈ C′} (module docs): the
    /// smallest D(ν, μ) the search finds.
    pub(crate) fn upper(&self, g_w: &DVector<f64>, g_omega: f64) -> f64 {
        let a = &self.vt * g_w;
        let gg = g_w.norm_squared() + g_omega * g_omega;
        dual_minimum(&a, g_omega, gg, &self.lambda, &self.centre, self.norm_bound)
    }
}

impl CurvatureOuter {
    /// A certified upper bound on max {ℓ(w) : ‖w‖ ≤ B} over the common set's box (B the norm
    /// bound of the data this was built from), ℓ ≤ Q there: by weak duality, for every ν > 0,
    ///
    /// ```text
    /// max_{‖w‖ ≤ B} Q(w) ≤ Q(ŵ) − ν‖ŵ‖² + ½ bᵀ(M + 2νI)⁻¹b + νB²,   b = γ − 2νŵ,
    /// ```
    ///
    /// which is D(ν, 1) of the module docs with g = 0 and β′ = Q(ŵ) (`q_centre`), minimised over
    /// ν by a safeguarded Newton method (every value evaluated is a valid bound). The B-doubling
    /// test uses it to skip the MLE with 2B when even this bound cannot reject B.
    pub(crate) fn likelihood_maximum_bound(&self, q_centre: f64) -> f64 {
        let e = Centre { beta: q_centre, ..self.centre.clone() };
        let zero = DVector::zeros(e.w.len());
        let b = self.norm_bound;
        minimise_dual(&zero, 0.0, &self.lambda, &e, b, (1.0 / (b * b), 1.0), true)
    }
}

/// D(ν, μ), its gradient and Hessian (module docs), in the eigenbasis: `a` = Vᵀg_w.
fn dual_value(
    a: &DVector<f64>,
    g_omega: f64,
    lambda: &DVector<f64>,
    e: &Centre,
    b: f64,
    nu: f64,
    mu: f64,
) -> (f64, [f64; 2], [f64; 3]) {
    let mut value = a.dot(&e.w) - nu * e.wnorm2 + g_omega * g_omega / (4.0 * nu) + nu * b * b + mu * e.beta;
    let (mut g_nu, mut g_mu) = (-e.wnorm2 - g_omega * g_omega / (4.0 * nu * nu) + b * b, e.beta);
    let (mut h_nn, mut h_nm, mut h_mm) = (g_omega * g_omega / (2.0 * nu * nu * nu), 0.0, 0.0);
    for j in 0..a.len() {
        let aj = 2.0 * nu + mu * lambda[j];
        let bj = a[j] - 2.0 * nu * e.w[j] + mu * e.gamma[j];
        let r = bj / aj;
        value += 0.5 * bj * r;
        // ∂(½b²/a)/∂x = r·b_x − ½r²·a_x, with b_ν = −2w̃, b_μ = γ, a_ν = 2, a_μ = λ.
        let (bn, bm) = (-2.0 * e.w[j], e.gamma[j]);
        g_nu += r * bn - r * r;
        g_mu += r * bm - 0.5 * r * r * lambda[j];
        // ∂²(½b²/a) = (1/a)·d dᵀ, d = b_x − r·a_x.
        let (dn, dm) = (bn - 2.0 * r, bm - r * lambda[j]);
        h_nn += dn * dn / aj;
        h_nm += dn * dm / aj;
        h_mm += dm * dm / aj;
    }
    (value, [g_nu, g_mu], [h_nn, h_nm, h_mm])
}

/// min over ν > 0, μ ≥ 0 of D(ν, μ) from the ball's optimum (ν = ‖g‖/(2B), μ = 0), by
/// [`minimise_dual`].
fn dual_minimum(a: &DVector<f64>, g_omega: f64, gg: f64, lambda: &DVector<f64>, e: &Centre, b: f64) -> f64 {
    let gnorm = gg.sqrt();
    if gnorm == 0.0 {
        return 0.0;
    }
    minimise_dual(a, g_omega, lambda, e, b, (gnorm / (2.0 * b), 0.0), false)
}

/// min of D over ν > 0 and μ ≥ 0 (or over ν alone with μ held at its start when `mu_fixed`), by a
/// safeguarded projected Newton method from `start`: the smallest value evaluated (each is a
/// valid bound).
fn minimise_dual(
    a: &DVector<f64>,
    g_omega: f64,
    lambda: &DVector<f64>,
    e: &Centre,
    b: f64,
    (mut nu, mut mu): (f64, f64),
    mu_fixed: bool,
) -> f64 {
    let (mut value, mut grad, mut hess) = dual_value(a, g_omega, lambda, e, b, nu, mu);
    let mut best = value;
    for _ in 0..60 {
        let [h_nn, h_nm, h_mm] = hess;
        // At μ = 0 with ∂D/∂μ ≥ 0 the constraint μ ≥ 0 is active: a Newton step in ν alone.
        let nu_only = mu_fixed || (mu == 0.0 && grad[1] >= 0.0);
        let (dn, dm) = if nu_only {
            (-grad[0] / h_nn.max(f64::MIN_POSITIVE), 0.0)
        } else {
            // Levenberg-damped 2×2 solve (H is positive semidefinite).
            let damp = 1e-12 * (h_nn + h_mm).max(f64::MIN_POSITIVE);
            let (p, q, r) = (h_nn + damp, h_nm, h_mm + damp);
            let det = p * r - q * q;
            if det > 0.0 {
                ((-r * grad[0] + q * grad[1]) / det, (q * grad[0] - p * grad[1]) / det)
            } else {
                (-grad[0] / p, -grad[1] / r)
            }
        };
        if !(dn.is_finite() && dm.is_finite()) {
            break;
        }
        // Backtracking along the projected path, keeping ν > 0.
        let mut step = 1.0;
        let mut improved = false;
        for _ in 0..40 {
            let nn = (nu + step * dn).max(0.1 * nu);
            let mm = (mu + step * dm).max(0.0);
            let (v, g, h) = dual_value(a, g_omega, lambda, e, b, nn, mm);
            if v.is_finite() && v < value {
                improved = value - v > 1e-13 * value.abs().max(1.0);
                (nu, mu, value, grad, hess) = (nn, mm, v, g, h);
                best = best.min(v);
                break;
            }
            step *= 0.5;
        }
        if !improved {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn centre(n: usize, seed: u64) -> (DVector<f64>, DVector<f64>, Centre) {
        let mut s = seed;
        let mut next = move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let a = DVector::from_fn(n, |_, _| next());
        let lambda = DVector::from_fn(n, |_, _| (next() + 0.5) * 3.0);
        let e = Centre {
            w: DVector::from_fn(n, |_, _| next()),
            gamma: DVector::from_fn(n, |_, _| next()),
            wnorm2: 0.0,
            beta: 0.7,
        };
        let e = Centre { wnorm2: e.w.norm_squared(), ..e };
        (a, lambda, e)
    }

    /// Each term's quadratic lies above φ on its whole interval (checked on a grid 40× finer than
    /// the one that chose m, and at the ends), touches it at a (tangent form) or at the box edge
    /// (vertex form), and its m is within 10 % of the largest valid curvature (found by a fine
    /// scan): certified without being needlessly loose.
    #[test]
    fn term_quadratics_lie_above_the_log_sigmoid_and_are_nearly_tight() {
        for &r in &[0.5, 1.0, 3.0, 6.0, 12.0] {
            for k in 0..=40 {
                let t_hat = -r + 2.0 * r * k as f64 / 40.0;
                let (a, d, m) = term_quadratic(t_hat, r);
                assert!(m > 0.0, "r {r} t̂ {t_hat}: m {m}");
                let q = |t: f64| phi(a) + d * (t - a) - 0.5 * m * (t - a) * (t - a);
                let mut largest = f64::INFINITY;
                for j in 0..=10_240 {
                    let t = -r + 2.0 * r * j as f64 / 10_240.0;
                    assert!(q(t) >= phi(t) - 1e-13, "r {r} t̂ {t_hat}: q({t}) = {} < φ = {}", q(t), phi(t));
                    let h = t - a;
                    if h.abs() > 1e-3 {
                        largest = largest.min(2.0 * (phi(a) + d * h - phi(t)) / (h * h));
                    }
                }
                if k == 40 {
                    assert_eq!((a, d), (r, 0.0), "the edge takes the vertex form");
                } else {
                    assert!((a - t_hat).abs() < 1e-15 && (d - Link::Logistic.mu(-a)).abs() < 1e-15);
                }
                assert!(
                    m >= 0.9 * largest.min(if k == 40 { f64::INFINITY } else { Link::Logistic.dmu(a) }),
                    "r {r} t̂ {t_hat}: m {m} vs {largest}"
                );
            }
        }
    }

    /// The analytic gradient and Hessian of D match central finite differences.
    #[test]
    fn dual_derivatives_match_finite_differences() {
        let (a, lambda, e) = centre(7, 3);
        let (b, go) = (4.0, 0.3);
        let (nu, mu) = (0.37, 0.81);
        let (_, g, [hnn, hnm, hmm]) = dual_value(&a, go, &lambda, &e, b, nu, mu);
        let h = 1e-5;
        let f = |x: f64, y: f64| dual_value(&a, go, &lambda, &e, b, x, y).0;
        let dn = (f(nu + h, mu) - f(nu - h, mu)) / (2.0 * h);
        let dm = (f(nu, mu + h) - f(nu, mu - h)) / (2.0 * h);
        approx::assert_relative_eq!(g[0], dn, max_relative = 1e-6);
        approx::assert_relative_eq!(g[1], dm, max_relative = 1e-6);
        let gd = |x: f64, y: f64| dual_value(&a, go, &lambda, &e, b, x, y).1;
        let hn = (gd(nu + h, mu)[0] - gd(nu - h, mu)[0]) / (2.0 * h);
        let hx = (gd(nu, mu + h)[0] - gd(nu, mu - h)[0]) / (2.0 * h);
        let hm = (gd(nu, mu + h)[1] - gd(nu, mu - h)[1]) / (2.0 * h);
        approx::assert_relative_eq!(hnn, hn, max_relative = 1e-5);
        approx::assert_relative_eq!(hnm, hx, max_relative = 1e-5);
        approx::assert_relative_eq!(hmm, hm, max_relative = 1e-5);
    }

    /// The Newton search finds the minimum of D: no point of a fine (ν, μ) grid is lower (up to
    /// 10⁻⁸ relative), and at μ = 0 D reduces to the ball's bound B‖g‖.
    #[test]
    fn the_newton_search_finds_the_grid_minimum() {
        for seed in 0..20 {
            let (a, lambda, e) = centre(6, seed);
            let (b, go) = (3.0, 0.2 * seed as f64 / 20.0);
            let gg = a.norm_squared() + go * go;
            let found = dual_minimum(&a, go, gg, &lambda, &e, b);
            let mut grid = f64::INFINITY;
            for i in 0..400 {
                let nu = 10f64.powf(-3.0 + 5.0 * i as f64 / 399.0);
                for j in 0..400 {
                    let mu = if j == 0 { 0.0 } else { 10f64.powf(-4.0 + 6.0 * (j - 1) as f64 / 398.0) };
                    grid = grid.min(dual_value(&a, go, &lambda, &e, b, nu, mu).0);
                }
            }
            assert!(found <= grid + 1e-8 * grid.abs().max(1.0), "seed {seed}: Newton {found} vs grid {grid}");
            assert!(found <= b * gg.sqrt() + 1e-12, "never worse than the ball");
            // At μ = 0 and the ball's ν, D is B‖g‖ exactly (the ball's support function).
            let nu0 = gg.sqrt() / (2.0 * b);
            approx::assert_relative_eq!(
                dual_value(&a, go, &lambda, &e, b, nu0, 0.0).0,
                b * gg.sqrt(),
                max_relative = 1e-12
            );
        }
    }
}
