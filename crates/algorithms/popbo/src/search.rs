//! The exact argmax of the optimistic advantage over a candidate list, with certified screening.
//!
//! In the whitened variables of bohf-confidence (K + εI = LLᵀ, Z = Lw, f̃(x) = l_xᵀw + ρ_x ω), the
//! optimistic advantage at x against the support point r is the support function of one convex set
//!
//! A(x) = h(g_x) = max { g_xᵀp : p = (w, ω) ∈ C },  g_x = (l_x − L\[r,:\]ᵀ, ρ_x),
//! C = {‖p‖ ≤ B, ℓ(w) ≥ ℓ* − β} (∩ the latent box, if configured),
//!
//! with ℓ(w) = −Σ_τ softplus(−r_τᵀw), r_τ = s_τ (L\[i_τ,:\] − L\[j_τ,:\]) (POP-BO eq. (21), (24)). The
//! screening uses two certified bounds and solves exactly (clarabel, [`ConfidenceSet::optimistic_advantage`])
//! only the candidates whose upper bound can still beat the best value found:
//!
//! * **upper** — C lies in the ball and, ℓ being concave, in every tangent halfspace
//!   {ℓ(ŵ) + ∇ℓ(ŵ)ᵀ(w − ŵ) ≥ ℓ* − β} with ∇ℓ(ŵ) = Σ_τ σ(−r_τᵀŵ) r_τ, for any ŵ. So
//!   h(g) ≤ support function of {‖p‖ ≤ B} ∩ {uᵀp ≤ c} ([`ball_halfspace_support`]) for each such
//!   halfspace; bohf takes ŵ = the optimum of every candidate solved so far, where the halfspace
//!   touches C, so the bound is exact at that candidate and tight at its neighbours. Without any
//!   halfspace, h(g) ≤ B‖g‖ (the exact value at t = 0). (These halfspaces hold with or without the
//!   box, unlike the support cuts of the boxed programs.) With a latent box b,
//!   A(x) ≤ sup_C f̃(x) − inf_C f̃(x_r) ≤ b − inf_C f̃(x_r) for every x: one extra program (the lower
//!   bound at the reference) caps all candidates at once, which ends the search as soon as one
//!   candidate reaches the cap (many do, far from the data, where the box binds).
//! * **lower** — any point of C gives h(g) ≥ g_wᵀŵ + g_ω ω for the best admissible ω: the MLE and
//!   every solved optimum.
//!
//! Candidates are taken best lower bound first, then largest upper bound first, until no upper bound
//! exceeds the best exact value by more than the solver tolerance.

use bohf_confidence::{Candidate, ConfidenceProblem, ConfidenceSet, ConicSolution, MleFit};
use bohf_core::{Error, Result};
use nalgebra::DVector;

/// The result of [`maximise_advantage`].
#[derive(Debug, Clone)]
pub struct Search {
    /// Position of the maximiser in the candidate list.
    pub best: usize,
    /// Its optimistic advantage (exact, from the conic program).
    pub value: f64,
    /// The solution at the maximiser.
    pub solution: ConicSolution,
    /// How many conic programs were solved.
    pub solved: usize,
}

/// Support function at g of {‖p‖ ≤ B} ∩ {uᵀp ≤ c}:
/// B‖g‖ if the ball's maximiser Bg/‖g‖ satisfies the halfspace, else cα/‖u‖ + Bπ√(1 − (c/(B‖u‖))²)
/// with α = gᵀu/‖u‖ and π = √(‖g‖² − α²) (maximise over the cap: the optimum lies in the plane of g
/// and u, on the circle where the halfspace cuts the sphere). If the halfspace misses the ball the
/// set is empty and the value is −∞.
pub fn ball_halfspace_support(g: &DVector<f64>, u: &DVector<f64>, c: f64, b: f64) -> f64 {
    let gnorm = g.norm();
    let unorm = u.norm();
    if unorm == 0.0 {
        return if c >= 0.0 { b * gnorm } else { f64::NEG_INFINITY };
    }
    if gnorm == 0.0 {
        return if c >= -b * unorm { 0.0 } else { f64::NEG_INFINITY };
    }
    let alpha = g.dot(u) / unorm;
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

struct Cut {
    u: DVector<f64>,
    c: f64,
}

/// argmax over `candidates` of the optimistic advantage against support point `reference`
/// (exact up to the solver tolerance; see the module documentation).
pub fn maximise_advantage(
    set: &mut ConfidenceSet,
    problem: &ConfidenceProblem,
    mle: &MleFit,
    candidates: &[Candidate],
    reference: usize,
    reference_candidate: Option<&Candidate>,
) -> Result<Search> {
    if candidates.is_empty() {
        return Err(Error::Empty("candidate list for the optimistic advantage".into()));
    }
    let l = problem.cholesky().l();
    let n = l.nrows();
    if reference >= n {
        return Err(Error::IndexOutOfRange { context: "reference support index".into(), index: reference, len: n });
    }
    let b = set.norm_bound();
    let latent_box = problem.config().latent_box;
    let threshold = set.threshold();
    let dirs: Vec<DVector<f64>> = candidates
        .iter()
        .map(|c| {
            let mut g = DVector::zeros(n + 1);
            for j in 0..n {
                g[j] = c.coordinates()[j] - l[(reference, j)];
            }
            g[n] = c.rho();
            g
        })
        .collect();
    let mut upper: Vec<f64> = dirs.iter().map(|g| b * g.norm()).collect();
    let mut count = 0;
    let mut cap = f64::INFINITY;
    if let Some(bx) = latent_box {
        cap = 2.0 * bx;
        if let Some(rc) = reference_candidate {
            cap = cap.min(bx - set.lower_bound(rc)?.value);
            count += 1;
        }
        for u in &mut upper {
            *u = u.min(cap);
        }
    }
    // Lower bounds from a feasible point ŵ: max over admissible ω of g_wᵀŵ + g_ω ω.
    let lower_from = |w: &DVector<f64>| -> Vec<f64> {
        let room = (b * b - w.norm_squared()).max(0.0).sqrt();
        candidates
            .iter()
            .zip(&dirs)
            .map(|(c, g)| {
                let lin = g.rows(0, n).dot(w);
                let (mut lo, mut hi) = (-room, room);
                if let Some(bx) = latent_box {
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
            })
            .collect()
    };
    let mle_lower = lower_from(&mle.w);
    let mut floor = mle_lower.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let first = (0..candidates.len()).max_by(|&i, &j| mle_lower[i].total_cmp(&mle_lower[j])).expect("non-empty");
    let mut solved = vec![false; candidates.len()];
    let mut best: Option<(usize, ConicSolution)> = None;
    let mut next = Some(first);
    let tol = |v: f64| 1e-7 * v.abs().max(b);
    while let Some(i) = next {
        let sol = set.optimistic_advantage(&candidates[i], reference)?;
        count += 1;
        solved[i] = true;
        // Tangent halfspace of ℓ at the optimum: aᵀw ≥ ℓ* − β − ℓ(ŵ) + aᵀŵ, i.e. uᵀp ≤ c with u = (−a, 0).
        let (ll, a) = problem.whitened_log_likelihood(&sol.w)?;
        let mut u = DVector::zeros(n + 1);
        u.rows_mut(0, n).copy_from(&(-&a));
        let cut = Cut { c: -(threshold - ll + a.dot(&sol.w)), u };
        for (j, g) in dirs.iter().enumerate() {
            if !solved[j] {
                upper[j] = upper[j].min(ball_halfspace_support(g, &cut.u, cut.c, b) + tol(upper[j]));
            }
        }
        let lows = lower_from(&sol.w);
        floor = lows.iter().cloned().fold(floor, f64::max);
        if best.as_ref().is_none_or(|(_, s)| sol.value > s.value) {
            best = Some((i, sol));
        }
        let best_value = best.as_ref().map(|(_, s)| s.value).expect("set above");
        let bar = best_value.max(floor);
        if best_value >= cap - tol(cap) {
            break;
        }
        next = (0..candidates.len())
            .filter(|&j| !solved[j] && upper[j] > bar + tol(bar))
            .max_by(|&x, &y| upper[x].total_cmp(&upper[y]));
    }
    let (best, solution) = best.expect("at least one solve");
    Ok(Search { best, value: solution.value, solution, solved: count })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ball_halfspace_support_matches_brute_force() {
        // 2-D: sample the unit-circle boundary and the chord densely.
        let b = 2.0;
        let cases = [
            (vec![1.0, 0.3], vec![1.0, 0.0], 0.5),
            (vec![1.0, 0.3], vec![-1.0, 1.0], 0.2),
            (vec![-0.4, 1.0], vec![0.0, 1.0], -1.0),
            (vec![0.5, 0.5], vec![1.0, 1.0], 5.0),
        ];
        for (g, u, c) in cases {
            let (g, u) = (DVector::from_vec(g), DVector::from_vec(u));
            let mut best = f64::NEG_INFINITY;
            let k = 2000;
            for i in 0..k {
                for s in 0..=200 {
                    let th = 2.0 * std::f64::consts::PI * i as f64 / k as f64;
                    let r = b * s as f64 / 200.0;
                    let p = DVector::from_vec(vec![r * th.cos(), r * th.sin()]);
                    if u.dot(&p) <= c {
                        best = best.max(g.dot(&p));
                    }
                }
            }
            let got = ball_halfspace_support(&g, &u, c, b);
            // Angular grid 2π/2000 on radius 2: error ≤ B‖g‖(1 − cos(π/2000)) + chord sampling,
            // below 5e−3 for these g.
            assert!(got >= best - 1e-9 && got - best < 5e-3, "{got} vs {best}");
        }
        // The halfspace misses the ball: empty.
        let e =
            ball_halfspace_support(&DVector::from_vec(vec![1.0, 0.0]), &DVector::from_vec(vec![1.0, 0.0]), -3.0, 2.0);
        assert_eq!(e, f64::NEG_INFINITY);
    }
}
