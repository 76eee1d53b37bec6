//! The cutting planes of a confidence set and the certified bounds they give without solving:
//! every solved program records halfspaces containing the common set C′ (its direction's, the
//! likelihood tangent at its optimum, the Lagrangian cut of the latent box), which bound the
//! programs at every other candidate from above ([`ball_halfspace_support`], [`lagrangian_bound`]);
//! the feasible points known bound them from below.

use super::{ConfidenceSet, ConicSolution};
use crate::problem::Candidate;
use nalgebra::DVector;

/// A cut of the common constraint set C′ = {‖(w, ω)‖ ≤ B, ℓ(w) ≥ ℓ* − β} (∩ the support rows of
/// the latent box): the halfspace {p : uᵀp ≤ h} ⊇ C′. `mu` is the multiplier of the program that
/// produced it (0 for plain cuts), the starting guess of [`lagrangian_bound`].
#[derive(Debug, Clone)]
pub(super) struct Halfspace {
    u: DVector<f64>,
    unorm: f64,
    h: f64,
    mu: f64,
}

impl Halfspace {
    fn new(u: DVector<f64>, h: f64, mu: f64) -> Self {
        Self { unorm: u.norm(), u, h, mu }
    }

    fn plain(u: DVector<f64>, h: f64) -> Self {
        Self::new(u, h, 0.0)
    }
}

/// The inner products of one program's direction g with its candidate row c = (l_x, ρ_x).
#[derive(Debug, Clone, Copy)]
pub(super) struct DirectionDots {
    gg: f64,
    gc: f64,
    cc: f64,
}

impl DirectionDots {
    /// ‖g‖², and gᵀc and ‖c‖² when a latent box prices the candidate's rows (else zero: unused).
    pub(super) fn new(g: &DVector<f64>, c: &Candidate, latent_box: bool) -> Self {
        if !latent_box {
            return Self { gg: g.norm_squared(), gc: 0.0, cc: 0.0 };
        }
        let n = c.coordinates().len();
        let gc = g.rows(0, n).dot(c.coordinates()) + g[n] * c.rho();
        Self { gg: g.norm_squared(), gc, cc: c.coordinates().norm_squared() + c.rho() * c.rho() }
    }
}

/// One cut {uᵀp ≤ h} seen from a direction g and candidate row c: gᵀu, cᵀu, ‖u‖, h, and the
/// multiplier of the cut's own program.
#[derive(Debug, Clone, Copy)]
struct CutDots {
    gu: f64,
    cu: f64,
    unorm: f64,
    h: f64,
    mu: f64,
}

/// A certified upper bound on the program h(g) = max {gᵀp : p ∈ C′, |cᵀp| ≤ `latent_box`} from the
/// halfspace {uᵀp ≤ h} ⊇ C′ (u = 0, h = 0: the ball alone). Without the box it is the support
/// function S of {‖p‖ ≤ B} ∩ the halfspace at g ([`ball_halfspace_support`]). With the box, weak
/// duality prices the candidate's box rows: for every μ (μ > 0 the row cᵀp ≤ b, μ < 0 the row
/// −cᵀp ≤ b), h(g) ≤ |μ|·b + S(g − μc), a convex function of μ; it is minimised by golden-section
/// search from `mu_hint` (the multiplier of the cut's own program), and every value evaluated is a
/// valid bound, so the result is certified however far the search gets.
fn lagrangian_bound(g: &DirectionDots, cut: CutDots, b: f64, latent_box: Option<f64>) -> f64 {
    let CutDots { gu, cu, unorm, h, mu: mu_hint } = cut;
    let at = |mu: f64| {
        let dnorm = (g.gg - 2.0 * mu * g.gc + mu * mu * g.cc).max(0.0).sqrt();
        support_from_dots(dnorm, gu - mu * cu, unorm, h, b)
    };
    let Some(bx) = latent_box else {
        return at(0.0);
    };
    let phi = |mu: f64| mu.abs() * bx + at(mu);
    let mut best = phi(0.0).min(phi(mu_hint));
    if g.cc == 0.0 {
        return best;
    }
    let (mut lo, mut hi) = (mu_hint.min(0.0) - 1.0, mu_hint.max(1.0) + 1.0);
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    let (mut x1, mut x2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
    let (mut f1, mut f2) = (phi(x1), phi(x2));
    for _ in 0..40 {
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = phi(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = phi(x2);
        }
        best = best.min(f1).min(f2);
    }
    best
}

impl ConfidenceSet {
    /// The cut of a certified dual bound `upper` ≥ max gᵀp over C′ ∩ the candidate's box rows,
    /// priced by (μ₊, μ₋) = `duals` (module docs of `crate::dense`): the same bound less
    /// (μ₊ + μ₋)b bounds max (g − (μ₊ − μ₋)c)ᵀp over C′, whether or not the row is active.
    pub(super) fn dual_cut(&self, g: DVector<f64>, c: &Candidate, upper: f64, duals: (f64, f64)) -> Option<Halfspace> {
        let n = self.layout.n;
        let (mp, mm) = duals;
        let bx = self.data.latent_box.unwrap_or(0.0);
        let (shift, offset) = if self.data.latent_box.is_some() { (mp - mm, (mp + mm) * bx) } else { (0.0, 0.0) };
        let mut u = g;
        if shift != 0.0 {
            for j in 0..n {
                u[j] -= shift * c.coordinates()[j];
            }
            u[n] -= shift * c.rho();
        }
        let h = upper - offset;
        // Rounding of the subtraction (the certificate covers its own evaluation).
        (u.norm() > 0.0 && h.is_finite())
            .then(|| Halfspace::new(u, h + 4.0 * f64::EPSILON * (upper.abs() + offset.abs()), shift))
    }

    /// Records a solved direction as a pruning cut. Without an active candidate box row the value
    /// is the support function of the common set C′ at g: the cut gᵀp ≤ h(g). With an active row,
    /// the program's box multipliers (μ₊, μ₋) give, by strong duality,
    /// h_{C′}(g − (μ₊ − μ₋)c) = h(g) − (μ₊ + μ₋)b: the cut (g − (μ₊ − μ₋)c)ᵀp ≤ that, a halfspace
    /// of C′ that bounds every candidate's program through [`lagrangian_bound`]. (On Table 2's
    /// Levy13 the advantage is a plateau where the box is active at most candidates; without these
    /// cuts nothing there was screened.)
    pub(super) fn record(&mut self, g: DVector<f64>, c: &Candidate, sol: &ConicSolution, duals: (f64, f64)) {
        let box_active = match self.data.latent_box {
            None => false,
            Some(b) => sol.z_candidate.abs() >= b * (1.0 - 1e-6),
        };
        let n = self.layout.n;
        if let Some((_, upper)) = sol.certified {
            // The dense certificate bounds the Lagrangian with the candidate's box rows priced by
            // its multipliers: a certified cut whether or not the row is active.
            if let Some(cut) = self.dual_cut(g, c, upper, duals) {
                self.cuts.push(cut);
            }
        } else if !box_active {
            if g.norm() > 0.0 {
                let h = sol.value + self.slack(sol.value);
                self.cuts.push(Halfspace::plain(g, h));
            }
        } else if let Some(b) = self.data.latent_box {
            let (mp, mm) = duals;
            let shift = mp - mm;
            let offset = (mp + mm) * b;
            let mut u = g;
            for j in 0..n {
                u[j] -= shift * c.coordinates()[j];
            }
            u[n] -= shift * c.rho();
            if u.norm() > 0.0 && shift.is_finite() && offset.is_finite() {
                let h = sol.value - offset;
                // The multipliers are accurate to the solver tolerance: a relative slack on them.
                let h = h + self.slack(h) + self.slack(offset);
                self.cuts.push(Halfspace::new(u, h, shift));
            }
        }
        if let Some(cut) = self.tangent_cut(&sol.w) {
            self.cuts.push(cut);
        }
        if self.feasible.len() < 64 {
            self.feasible.push(sol.w.clone());
        }
    }

    /// The likelihood tangent cut at w₀: ℓ is concave, so ℓ(w) ≤ ℓ(w₀) + ∇ℓ(w₀)ᵀ(w − w₀) and every
    /// feasible w satisfies −∇ℓ(w₀)ᵀw ≤ ℓ(w₀) − (ℓ* − β) − ∇ℓ(w₀)ᵀw₀, with
    /// ∇ℓ(w) = Σ_τ c_τ σ(−r_τᵀw) r_τ (ℓ = Σ_τ c_τ log σ(r_τᵀw) + ℓ₀).
    pub(super) fn tangent_cut(&self, w0: &DVector<f64>) -> Option<Halfspace> {
        if self.layout.m == 0 {
            return None;
        }
        let (ll0, grad) = self.data.log_likelihood_and_gradient(w0);
        let n = self.layout.n;
        let mut u = DVector::zeros(n + 1);
        u.rows_mut(0, n).copy_from(&(-&grad));
        let unorm = u.norm();
        if unorm < 1e-12 {
            return None;
        }
        let h = ll0 - self.threshold - grad.dot(w0);
        Some(Halfspace::plain(u, h + self.slack(h)))
    }

    /// The largest violation uᵀp − h over the recorded cuts and the given points p = (w, ω) of the
    /// common set (each cut must contain every such point).
    #[cfg(test)]
    pub(crate) fn max_cut_violation(&self, points: &[DVector<f64>]) -> f64 {
        let mut worst = f64::NEG_INFINITY;
        for cut in &self.cuts {
            for p in points {
                worst = worst.max(cut.u.dot(p) - cut.h);
            }
        }
        worst
    }

    /// How many cuts are recorded (for tests).
    #[cfg(test)]
    pub(crate) fn cut_count(&self) -> usize {
        self.cuts.len()
    }

    pub(super) fn slack(&self, value: f64) -> f64 {
        100.0 * self.options.tolerance * value.abs().max(self.data.norm_bound)
    }

    /// B‖g‖ tightened by the cuts recorded from position `from` on (0: all of them).
    pub(super) fn upper_from_cuts(&self, g: &DVector<f64>, c: &Candidate, from: usize) -> f64 {
        let dots = DirectionDots::new(g, c, self.data.latent_box.is_some());
        self.upper_with_dots(g, c, &dots, from)
    }

    /// [`Self::upper_from_cuts`] with the direction's inner products computed once by the caller
    /// (the screened search reuses them after every solve).
    pub(super) fn upper_with_dots(&self, g: &DVector<f64>, c: &Candidate, dots: &DirectionDots, from: usize) -> f64 {
        let b = self.data.norm_bound;
        let bx = self.data.latent_box;
        let mut best = if from == 0 {
            lagrangian_bound(dots, CutDots { gu: 0.0, cu: 0.0, unorm: 0.0, h: 0.0, mu: 0.0 }, b, bx)
        } else {
            f64::INFINITY
        };
        let n = self.layout.n;
        for cut in &self.cuts[from..] {
            let gu = g.dot(&cut.u);
            let cu = if bx.is_some() { cut.u.rows(0, n).dot(c.coordinates()) + cut.u[n] * c.rho() } else { 0.0 };
            best = best.min(lagrangian_bound(dots, CutDots { gu, cu, unorm: cut.unorm, h: cut.h, mu: cut.mu }, b, bx));
        }
        best
    }

    pub(super) fn lower_from_feasible(&self, g: &DVector<f64>, c: &Candidate) -> f64 {
        self.feasible.iter().map(|w| self.lower_from_point(g, c, w)).fold(f64::NEG_INFINITY, f64::max)
    }

    /// The lower bound g_wᵀŵ + g_ω ω on h(g) from one feasible ŵ, with the best admissible ω:
    /// ω ∈ [−√(B² − ‖ŵ‖²), √(B² − ‖ŵ‖²)] and, with the latent box b, |l_xᵀŵ + ρ_x ω| ≤ b (−∞ if no ω
    /// fits the box).
    pub(super) fn lower_from_point(&self, g: &DVector<f64>, c: &Candidate, w: &DVector<f64>) -> f64 {
        let n = self.layout.n;
        let b = self.data.norm_bound;
        let lin = g.rows(0, n).dot(w);
        let room = (b * b - w.norm_squared()).max(0.0).sqrt();
        let (mut lo, mut hi) = (-room, room);
        if let Some(bx) = self.data.latent_box {
            let zw = c.coordinates().dot(w);
            if c.rho() > 0.0 {
                lo = lo.max((-bx - zw) / c.rho());
                hi = hi.min((bx - zw) / c.rho());
            } else if zw.abs() > bx {
                return f64::NEG_INFINITY;
            }
            if lo > hi {
                return f64::NEG_INFINITY;
            }
        }
        lin + g[n] * if g[n] >= 0.0 { hi } else { lo }
    }
}

/// Support function at g of {‖p‖ ≤ B} ∩ {uᵀp ≤ c}:
/// B‖g‖ if the ball's maximiser Bg/‖g‖ satisfies the halfspace, else cα/‖u‖ + Bπ√(1 − (c/(B‖u‖))²)
/// with α = gᵀu/‖u‖ and π = √(‖g‖² − α²) (maximise over the cap: the optimum lies in the plane of g
/// and u, on the circle where the halfspace cuts the sphere). If the halfspace misses the ball the
/// set is empty and the value is −∞. The certified upper bound of the confidence-set searches.
pub fn ball_halfspace_support(g: &DVector<f64>, u: &DVector<f64>, c: f64, b: f64) -> f64 {
    support_from_dots(g.norm(), g.dot(u), u.norm(), c, b)
}

/// [`ball_halfspace_support`] from ‖g‖, gᵀu and ‖u‖.
fn support_from_dots(gnorm: f64, gu: f64, unorm: f64, c: f64, b: f64) -> f64 {
    if unorm == 0.0 {
        return if c >= 0.0 { b * gnorm } else { f64::NEG_INFINITY };
    }
    if gnorm == 0.0 {
        return if c >= -b * unorm { 0.0 } else { f64::NEG_INFINITY };
    }
    let alpha = gu / unorm;
    if b * alpha <= c / unorm * gnorm {
        return b * gnorm;
    }
    let r = c / (b * unorm);
    if r < -1.0 {
        return f64::NEG_INFINITY;
    }
    let perp = (gnorm * gnorm - alpha * alpha).max(0.0).sqrt();
    c * alpha / unorm + b * perp * (1.0 - r * r).max(0.0).sqrt()
}
