//! The screened searches over a candidate list: the argmax of the optimistic advantage (POP-BO
//! Alg. 1 line 4) and the batch of pointwise bounds for a stated question, each solving only the
//! programs that can change its answer.

use super::cuts::DirectionDots;
use super::{
    AdvantageSearch, BatchBounds, BoundsQuestion, ConfidenceSet, ConicSolution, PointBounds, Program, ValueBounds,
    direction,
};
use crate::problem::Candidate;
use bohf_core::{Error, Result};
use nalgebra::DVector;

/// The result of a screened argmax of h(g_i) over directions g_i (the one search loop behind
/// [`ConfidenceSet::maximise_advantage`] and [`ConfidenceSet::pointwise_bounds`]).
struct ScreenedMax {
    best: usize,
    solution: ConicSolution,
    /// Certified enclosure of h(g_i) at every candidate (exact where solved).
    bounds: Vec<ValueBounds>,
    solved: usize,
}

impl ConfidenceSet {
    /// argmax over `candidates` of the optimistic advantage against support point `reference`
    /// (POP-BO Alg. 1 line 4), exact up to the solver tolerance, solving only the candidates whose
    /// certified upper bound can still beat the best value found. `reference_candidate` is the
    /// reference point as a candidate (its l_x, ρ_x); with a latent box b it gives the cap
    /// A(x) ≤ b − inf_C f̃(x_r) for every x (one extra program), which ends the search as soon as a
    /// candidate reaches it.
    ///
    /// In the whitened variables the advantage at x is the support function h(g_x) of one convex
    /// set C = {‖p‖ ≤ B, ℓ(w) ≥ ℓ* − β} (∩ the latent box), g_x = (l_x − L[r,:]ᵀ, ρ_x):
    /// * **upper** — C lies in the ball and, ℓ being concave, in the tangent halfspace
    ///   {ℓ(ŵ) + ∇ℓ(ŵ)ᵀ(w − ŵ) ≥ ℓ* − β} at every solved optimum ŵ, where it touches C, and in the
    ///   halfspace of every solved direction (g_sᵀp ≤ h(g_s); with the candidate's box row
    ///   active, the Lagrangian cut of its box multipliers); so h(g) ≤ the support function of
    ///   {‖p‖ ≤ B} ∩ each halfspace ([`ball_halfspace_support`](crate::ball_halfspace_support)),
    ///   and h(g) ≤ B‖g‖ (exact at t = 0). With the box, the candidate's own box rows are priced
    ///   in by weak duality (|μ|b + that support function at g − μc, minimised over μ).
    /// * **lower** — every known feasible point ŵ (the MLE when the set was built by
    ///   [`ConfidenceSet::new`], and every solved optimum) gives h(g) ≥ g_wᵀŵ + g_ω ω for the best
    ///   admissible ω.
    ///
    /// The first candidate solved is the one with the best lower bound (the last such on exact
    /// ties), then the largest upper bound, until no upper bound exceeds the best exact value by more
    /// than 1e-7·max(|value|, B). Ties between solved values go to the first solved.
    pub fn maximise_advantage(
        &mut self,
        candidates: &[Candidate],
        reference: usize,
        reference_candidate: Option<&Candidate>,
    ) -> Result<AdvantageSearch> {
        if candidates.is_empty() {
            return Err(Error::Empty("candidate list for the optimistic advantage".into()));
        }
        self.check_reference(reference)?;
        for c in candidates {
            self.check_candidate(c)?;
        }
        let dirs: Vec<DVector<f64>> = candidates.iter().map(|c| self.advantage_direction(c, reference)).collect();
        let mut count = 0;
        let mut cap = f64::INFINITY;
        if let Some(bx) = self.data.latent_box {
            cap = 2.0 * bx;
            if let Some(rc) = reference_candidate {
                cap = cap.min(bx - self.lower_bound(rc)?.value);
                count += 1;
            }
        }
        let search = self.screened_max(&dirs, candidates, cap, Program::Advantage)?;
        Ok(AdvantageSearch {
            best: search.best,
            value: search.solution.value,
            solution: search.solution,
            solved: count + search.solved,
        })
    }

    /// The screened argmax of h(g_i) over directions `dirs` at `candidates` (each at most `cap`):
    /// the loop documented at [`ConfidenceSet::maximise_advantage`]. Every solve records its cuts,
    /// which tighten the upper bounds of the unsolved candidates at once.
    fn screened_max(
        &mut self,
        dirs: &[DVector<f64>],
        candidates: &[Candidate],
        cap: f64,
        program: Program,
    ) -> Result<ScreenedMax> {
        let b = self.data.norm_bound;
        let with_box = self.data.latent_box.is_some();
        let dots: Vec<DirectionDots> =
            dirs.iter().zip(candidates).map(|(g, c)| DirectionDots::new(g, c, with_box)).collect();
        let mut upper: Vec<f64> =
            (0..dirs.len()).map(|j| self.upper_with_dots(&dirs[j], &candidates[j], &dots[j], 0).min(cap)).collect();
        let mut lower: Vec<f64> = dirs.iter().zip(candidates).map(|(g, c)| self.lower_from_feasible(g, c)).collect();
        let mut floor = lower.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let first = if floor > f64::NEG_INFINITY {
            (0..candidates.len()).max_by(|&i, &j| lower[i].total_cmp(&lower[j]))
        } else {
            (0..candidates.len()).max_by(|&i, &j| upper[i].total_cmp(&upper[j]))
        };
        let mut solved = vec![false; candidates.len()];
        let mut best: Option<(usize, ConicSolution)> = None;
        let mut next = first;
        let mut count = 0;
        let tol = |v: f64| 1e-7 * v.abs().max(b);
        while let Some(i) = next {
            let known_cuts = self.cuts.len();
            let known_points = self.feasible.len();
            let sol = self.solve_recorded(&dirs[i], &candidates[i], program)?;
            count += 1;
            solved[i] = true;
            let (lo, hi) = sol.certified.unwrap_or((sol.value, sol.value));
            upper[i] = hi;
            lower[i] = lo;
            for (j, (g, c)) in dirs.iter().zip(candidates).enumerate() {
                if !solved[j] {
                    upper[j] = upper[j].min(self.upper_with_dots(g, c, &dots[j], known_cuts) + tol(upper[j]));
                    for w in &self.feasible[known_points..] {
                        lower[j] = lower[j].max(self.lower_from_point(g, c, w));
                    }
                    floor = floor.max(lower[j]);
                }
            }
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
        let (best, solution) = best.expect("at least one candidate is solved");
        let bounds = (0..candidates.len())
            .map(|j| {
                if solved[j] {
                    ValueBounds { lower: lower[j], upper: upper[j], solved: true }
                } else {
                    ValueBounds { lower: lower[j], upper: upper[j], solved: false }
                }
            })
            .collect();
        Ok(ScreenedMax { best, solution, bounds, solved: count })
    }

    /// sup f̃(x) and inf f̃(x) over the set at a batch of points (COBOL's g_upper and g_lower),
    /// solving only the programs that can change the decision `question` asks:
    ///
    /// * every point starts from certified cheap enclosures: the feasible points known (the MLE,
    ///   earlier optima) bound sup from below and inf from above; B‖(l_x, ρ_x)‖ tightened by every
    ///   recorded cut (solved directions, likelihood tangents, Lagrangian cuts of the latent box)
    ///   bounds sup from above and inf from below, and |f̃(x)| ≤ b with a latent box;
    /// * [`BoundsQuestion::WidthAbove`]: a point is decided when its width enclosure
    ///   [sup.lower − inf.upper, sup.upper − inf.lower] lies on one side of the threshold;
    ///   otherwise the side with the wider enclosure is solved, and the point's enclosures are
    ///   recomputed from the cuts known then (each solve tightens all later points);
    /// * [`BoundsQuestion::LargestUpper`] / [`BoundsQuestion::SmallestLower`]: the screened argmax of
    ///   [`ConfidenceSet::maximise_advantage`] over the directions ±(l_x, ρ_x);
    /// * [`BoundsQuestion::All`]: both programs at every point.
    ///
    /// The returned enclosures contain the exact values (up to the solver tolerance) at every
    /// point, solved or not, so a point that was not solved provably could not change the answer.
    /// One solver and one factorisation of the set serve the whole batch (only the objective and
    /// the candidate's box rows change between programs).
    pub fn pointwise_bounds(&mut self, candidates: &[Candidate], question: BoundsQuestion) -> Result<BatchBounds> {
        for c in candidates {
            self.check_candidate(c)?;
        }
        if let BoundsQuestion::WidthAbove(t) = question
            && !t.is_finite()
        {
            return Err(Error::invalid("threshold", format!("the width threshold must be finite, got {t}")));
        }
        match question {
            BoundsQuestion::All => {
                let mut points = Vec::with_capacity(candidates.len());
                for c in candidates {
                    let sup = ValueBounds::solved(&self.upper_bound(c)?);
                    let inf = ValueBounds::solved(&self.lower_bound(c)?);
                    points.push(PointBounds { sup, inf });
                }
                Ok(BatchBounds { points, wide: None, best: None, solved: 2 * candidates.len() })
            }
            BoundsQuestion::LargestUpper | BoundsQuestion::SmallestLower => {
                if candidates.is_empty() {
                    return Err(Error::Empty("point list for the pointwise bounds".into()));
                }
                let up = question == BoundsQuestion::LargestUpper;
                let sign = if up { 1.0 } else { -1.0 };
                let dirs: Vec<DVector<f64>> = candidates.iter().map(|c| direction(c, sign)).collect();
                let cap = self.data.latent_box.unwrap_or(f64::INFINITY);
                let (program, solved_before) = (if up { Program::Upper } else { Program::NegLower }, 0);
                let search = self.screened_max(&dirs, candidates, cap, program)?;
                let points = candidates
                    .iter()
                    .zip(&search.bounds)
                    .map(|(c, v)| {
                        let mut p = self.cheap_point(c);
                        if up {
                            p.sup = *v;
                        } else {
                            p.inf = ValueBounds { lower: -v.upper, upper: -v.lower, solved: v.solved };
                        }
                        p
                    })
                    .collect();
                Ok(BatchBounds { points, wide: None, best: Some(search.best), solved: solved_before + search.solved })
            }
            BoundsQuestion::WidthAbove(threshold) => {
                let mut points = Vec::with_capacity(candidates.len());
                let mut wide = Vec::with_capacity(candidates.len());
                let mut solved = 0;
                for c in candidates {
                    let mut p = self.cheap_point(c);
                    let decision = loop {
                        let (lo, hi) = (p.sup.lower - p.inf.upper, p.sup.upper - p.inf.lower);
                        if lo > threshold {
                            break true;
                        }
                        if hi <= threshold {
                            break false;
                        }
                        if p.sup.solved && p.inf.solved {
                            // Both certified, the enclosures within the tolerance straddle the
                            // threshold: decide by the values.
                            break p.sup.mid() - p.inf.mid() > threshold;
                        }
                        let sup_gap = if p.sup.solved { -1.0 } else { p.sup.upper - p.sup.lower };
                        let inf_gap = if p.inf.solved { -1.0 } else { p.inf.upper - p.inf.lower };
                        if sup_gap >= inf_gap {
                            p.sup = ValueBounds::solved(&self.upper_bound(c)?);
                        } else {
                            p.inf = ValueBounds::solved(&self.lower_bound(c)?);
                        }
                        solved += 1;
                        // Refresh the other side from the cuts and points this solve added.
                        let fresh = self.cheap_point(c);
                        if !p.sup.solved {
                            p.sup = tighter(p.sup, fresh.sup);
                        }
                        if !p.inf.solved {
                            p.inf = tighter(p.inf, fresh.inf);
                        }
                    };
                    points.push(p);
                    wide.push(decision);
                }
                Ok(BatchBounds { points, wide: Some(wide), best: None, solved })
            }
        }
    }
}

/// The intersection of two enclosures of the same value.
fn tighter(a: ValueBounds, b: ValueBounds) -> ValueBounds {
    ValueBounds { lower: a.lower.max(b.lower), upper: a.upper.min(b.upper), solved: false }
}
