//! The certificate's primal point ([`super::Dual::certify`]): the inner maximiser pulled back
//! along the segment to the strictly feasible anchor, by bisection on the segment's constraint
//! values ([`Segment`], [`bisect`]); [`super::accurate`] repeats it with tighter margins.

use crate::dense::{Eval, Program, U, likelihood_row_error, mat_vec, phi_error, strictly_feasible};
use bohf_core::link::softplus;
use bohf_core::sum::CompensatedSum;
use nalgebra::DVector;

impl Program<'_> {
    /// The last strictly feasible point (to bisection precision) on the segment from the strictly
    /// feasible `anchor` to `p`, and its evaluation. The bisection runs on [`Segment`] (each
    /// constraint affine or, for the norm, quadratic in the step, after two matrix–vector products
    /// per matrix), and only its answer is evaluated in full: the full evaluation decides, so a
    /// point returned is strictly feasible by [`Program::eval`]'s own margins. (Bisection on full
    /// evaluations cost as much as the inner solves: 60 products with R and Rᵀ per outer step.)
    pub(super) fn pull_inside(&self, anchor: &DVector<f64>, p: &DVector<f64>) -> Option<(DVector<f64>, Eval)> {
        let e = self.eval(p);
        if strictly_feasible(&e) {
            return Some((p.clone(), e));
        }
        let d = p - anchor;
        let segment = Segment::new(self, anchor, &d);
        let (lo, _) = segment.boundary(1.0);
        // The segment's answer nearly always passes the full check; if not, step back towards the
        // anchor by growing fractions (the anchor itself is strictly feasible: a valid, weaker point).
        for back in [0.0, 1e-12, 1e-9, 1e-6, 1e-3, 0.5, 1.0] {
            let t = lo * (1.0 - back);
            let q = anchor + &d * t;
            let eq = self.eval(&q);
            if strictly_feasible(&eq) {
                return Some((q, eq));
            }
        }
        None
    }
}

/// The bisection of the pull-inside on [0, 1] (60 halvings at most, stopping at a width of
/// 10⁻¹⁵): (lo, hi) with `feasible(lo)` (or lo = 0) and not `feasible(hi)` (or hi = 1). Where the
/// set of t that pass is an interval [0, t*] (a convex row along a segment), t* ∈ [lo, hi].
pub(super) fn bisect(feasible: impl Fn(f64) -> bool) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if feasible(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-15 {
            break;
        }
    }
    (lo, hi)
}

/// [`Program::eval`]'s constraint values along a segment anchor + t·d, each from precomputed
/// products (v, z and the candidate's value are affine in t, ‖p‖² quadratic), for the bisection of
/// [`Program::pull_inside`]. The rounding margins are [`Program::eval`]'s, with the magnitudes
/// |L||w| bounded by |L||anchor| + t|L||d|: a point this accepts is accepted by the full
/// evaluation up to the rounding of the recombination, which the full evaluation then checks
/// (stepping back by relative 1e-12, 1e-9, … towards the anchor when it does not).
pub(super) struct Segment<'p, 'a> {
    program: &'p Program<'a>,
    v: (DVector<f64>, DVector<f64>),
    /// (|R|ᵀc)ᵀ|a| and (|R|ᵀc)ᵀ|d|, for the likelihood's rounding bound ([`phi_error`]).
    abs_dot: (f64, f64),
    /// (‖a‖², 2aᵀd, ‖d‖²).
    norm: (f64, f64, f64),
    /// The support values z = L w and their magnitudes |L||w|, each as (at the anchor, along d).
    z: Option<[(DVector<f64>, DVector<f64>); 2]>,
    /// The candidate's value (cᵀa, cᵀd) and magnitudes (|c|ᵀ|a|, |c|ᵀ|d|).
    candidate: Option<(f64, f64, f64, f64)>,
}

impl<'p, 'a> Segment<'p, 'a> {
    pub(super) fn new(program: &'p Program<'a>, a: &DVector<f64>, d: &DVector<f64>) -> Self {
        let n = program.n;
        let data = program.data;
        let (wa, wd) = (a.rows(0, n), d.rows(0, n));
        let (wa_abs, wd_abs) = (wa.abs(), wd.abs());
        let (wa, wd) = (&a.as_slice()[..n], &d.as_slice()[..n]);
        let v = (mat_vec(&data.rows, wa, false), mat_vec(&data.rows, wd, false));
        let abs_dot = (data.abs_weighted.dot(&wa_abs), data.abs_weighted.dot(&wd_abs));
        let norm = (a.norm_squared(), 2.0 * a.dot(d), d.norm_squared());
        let z = data.latent_box.map(|_| {
            let labs = program.dirs.l_abs(data);
            [
                (mat_vec(&data.l, wa, false), mat_vec(&data.l, wd, false)),
                (mat_vec(labs, wa_abs.as_slice(), false), mat_vec(labs, wd_abs.as_slice(), false)),
            ]
        });
        let candidate = match (&program.candidate, data.latent_box) {
            (Some(c), Some(_)) => Some((c.dot(a), c.dot(d), c.abs().dot(&a.abs()), c.abs().dot(&d.abs()))),
            _ => None,
        };
        Segment { program, v, abs_dot, norm, z, candidate }
    }

    /// Whether every row at anchor + t·d passes f + margin·err < 0: `margin` = 1 is strict
    /// feasibility with the rounding margins; −2 is necessary for exact feasibility (the errors
    /// counted twice for the recombination), so where it fails no point is feasible. The
    /// searches use [`Segment::boundary`]; this is the tests' second method.
    #[cfg(test)]
    pub(super) fn passes(&self, t: f64, margin: f64) -> bool {
        self.cheap_rows_pass(t, margin) && self.likelihood_row(t, margin) < 0.0
    }

    /// The largest t of [`Segment::passes`] as [`bisect`] finds it — (lo, hi) with `passes(lo)`
    /// (or lo = 0) and not `passes(hi)` (or hi = 1), hi − lo ≤ 10⁻¹⁵ — with a few likelihood sums
    /// instead of one per halving: the rows other than the likelihood (O(n) each) by bisection
    /// to t_c; then, if the likelihood row fails there, its boundary in [0, t_c] by regula falsi
    /// with the Illinois modification (Dowell & Jarratt, BIT 11 (1971) 168–174: superlinear,
    /// the bracket kept), a midpoint step whenever the last step did not halve the bracket (where
    /// rounding makes the row's values noise, near its end, the search is a bisection). Every row
    /// is convex along the segment, so the t that pass are an interval and both searches bracket
    /// its end; the answer differs from [`bisect`]'s by at most the bracket's width. (The
    /// bisection's ~50 sums of the m softplus terms were 63 % of a boxed bench program.) Tested
    /// against [`bisect`] in `the_segments_boundary_is_the_bisections`.
    pub(super) fn boundary(&self, margin: f64) -> (f64, f64) {
        let (lo_c, hi_c) = bisect(|t| self.cheap_rows_pass(t, margin));
        if self.program.kappa.is_none() {
            return (lo_c, hi_c);
        }
        let at_c = self.likelihood_row(lo_c, margin);
        if at_c < 0.0 {
            return (lo_c, hi_c);
        }
        let at_0 = self.likelihood_row(0.0, margin);
        if at_0 >= 0.0 {
            return bisect(|_| false);
        }
        let (mut a, mut fa, mut b, mut fb) = (0.0f64, at_0, lo_c, at_c);
        let (mut side, mut last_width) = (0i8, f64::INFINITY);
        // At most 120 evaluations: a midpoint at least every other step.
        for _ in 0..120 {
            let width = b - a;
            if width <= 1e-15 {
                break;
            }
            let secant = if fb.is_finite() { (a * fb - b * fa) / (fb - fa) } else { f64::NAN };
            let halving = width > 0.5 * last_width;
            let t = if !halving && secant > a && secant < b { secant } else { 0.5 * (a + b) };
            last_width = width;
            let ft = self.likelihood_row(t, margin);
            if ft < 0.0 {
                (a, fa) = (t, ft);
                if side == -1 {
                    fb *= 0.5;
                }
                side = -1;
            } else {
                (b, fb) = (t, if ft.is_finite() { ft } else { f64::INFINITY });
                if side == 1 {
                    fa *= 0.5;
                }
                side = 1;
            }
        }
        (a, b)
    }

    /// [`Segment::passes`] for every row but the likelihood's.
    pub(super) fn cheap_rows_pass(&self, t: f64, margin: f64) -> bool {
        let program = self.program;
        let data = program.data;
        let ok = |f: f64, err: f64| f.is_finite() && f + margin * err < 0.0;
        let (norm, norm_err) = program.norm_row(self.norm.0 + t * (self.norm.1 + t * self.norm.2));
        if !ok(norm, norm_err) {
            return false;
        }
        let dim_err = (program.dim + 16) as f64 * U;
        if let (Some([(za, zd), (aa, ad)]), Some(bx)) = (&self.z, data.latent_box) {
            for i in 0..program.n {
                let z = za[i] + t * zd[i];
                let err = dim_err * (aa[i] + t * ad[i]) + U * bx;
                if !ok(z - bx, err) || !ok(-z - bx, err) {
                    return false;
                }
            }
        }
        if let (Some((ca, cd, aa, ad)), Some(bx)) = (self.candidate, data.latent_box) {
            let cp = ca + t * cd;
            let err = dim_err * (aa + t * ad) + U * bx;
            if !ok(cp - bx, err) || !ok(-cp - bx, err) {
                return false;
            }
        }
        true
    }

    /// The likelihood row's f + margin·err at anchor + t·d ([`Segment::passes`]: it passes where
    /// this is < 0); −∞ without the row, +∞ where it is not finite.
    fn likelihood_row(&self, t: f64, margin: f64) -> f64 {
        let program = self.program;
        let data = program.data;
        let Some(kappa) = program.kappa else { return f64::NEG_INFINITY };
        let mut sum = CompensatedSum::new();
        for (k, (va, vd)) in self.v.0.iter().zip(&self.v.1).enumerate() {
            sum.add(data.weights[k] * softplus(-(va + t * vd)));
        }
        let phi = sum.value();
        // |w| ≤ |a| + t|d| along the segment.
        let phi_err = phi_error(program.n, &sum, self.abs_dot.0 + t * self.abs_dot.1);
        let f = (phi - kappa) / program.total;
        let value = f + margin * likelihood_row_error(phi, phi_err, kappa, program.total);
        if f.is_finite() && value.is_finite() { value } else { f64::INFINITY }
    }
}
