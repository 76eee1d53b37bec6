//! A tighter lower end for the certificate: the inner maximiser pulled inside the set with every
//! constraint evaluated by accurate dot products, so that the margins it must keep are the
//! rounding of the values themselves rather than worst-case bounds that grow with n.
//!
//! **Why.** [`Program::pull_inside`] keeps every row a margin inside its bound: for the likelihood
//! row γ_{n+3}·Σ_τ c_τ|r_τ|ᵀ|w| ([`crate::dense::phi_error`]), for a latent-box row
//! (n + 16)u·|L_i|ᵀ|w|. Where most box rows are active and the likelihood's room β/W is small, the
//! point must move a fraction margin/slack ≈ 2·10⁻⁹ of the way to the anchor (measured: COBOL,
//! a = 2, 670 labels, B = 32: the likelihood row's margin 4.7e-13 of W against the anchor's slack
//! 2.3e-4 of W), and the certified gap stalled at 1.3–1.9e-9 against the tolerance 1e-9: those
//! programs fell back to clarabel after 10–16 outer steps. Computed by Dot2 (Ogita, Rump & Oishi,
//! "Accurate sum and dot product", *SIAM J. Sci. Comput.* 26(6), 2005, §5, Algorithm 5.3: the
//! products split exactly by TwoProduct, here Veltkamp–Dekker's without an fma ([`two_product`]),
//! the sums by Knuth's TwoSum), each value r_τᵀw errs by at most
//! u|r_τᵀw| + γ_{n+1}²|r_τ|ᵀ|w| (their error bound for Dot2), so the margins shrink by a factor of
//! about n/2.
//!
//! **When.** Four accurate products (R and L with the anchor and the direction) cost several times
//! their plain, vectorised counterparts (17 flops a term for TwoProduct, and no BLAS-like
//! blocking), so [`super::Dual::certify`] uses this only when the plain pull-inside
//! leaves the gap above the tolerance but within a thousand times it, and only when a point of the
//! segment could close it ([`Dual::pull_may_certify`]): where the plain certificate succeeds it is
//! unchanged (a program may end an outer step earlier than before). Without that second test the
//! accurate pull-inside ran at outer steps whose gap was the dual's own (its upper end not yet
//! converged, the inner maximiser p outside the set, so no point of the segment certifies): in
//! criterion's `labels_box_500_dense_lower`, 4–5 of every 10 programs, once each, 190 ms each
//! (the products' `f64::mul_add` a call to libm's software fma) against 50–70 ms for the whole
//! program, and not once did it lower the gap (measured 2026-11-30; docs/confidence.md).

use super::{Dual, DualPoint, Program, Segment, bisect};
use crate::dense::{Eval, U, likelihood_row_error};
use bohf_core::link::softplus;
use bohf_core::sum::CompensatedSum;
use nalgebra::{DMatrix, DVector, DVectorView};

/// γ_k = ku/(1 − ku), rounded up.
fn gamma(k: usize) -> f64 {
    let ku = k as f64 * U;
    ku / (1.0 - ku) * (1.0 + 4.0 * U)
}

/// Veltkamp's splitting factor 2²⁷ + 1 for binary64 ([`two_product`]).
const SPLITTER: f64 = 134_217_729.0;

/// Above this magnitude the splitting of [`two_product`] may overflow (Ogita, Rump & Oishi 2005,
/// §3: no overflow for |a| ≤ 2⁹⁹⁵ or so); [`accurate_mul`] then uses the fused multiply–add.
const SPLIT_LIMIT: f64 = 1e298;

/// a = hi + lo exactly, each half with at most 26 significant bits: Veltkamp's splitting
/// (Ogita, Rump & Oishi 2005, §3, Algorithm 3.2 "Split", after Dekker 1971).
#[inline]
fn split(a: f64) -> (f64, f64) {
    let c = SPLITTER * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// TwoProduct without an fma: a·b = p + e exactly with p = fl(a·b), for the split halves of a and
/// b (Dekker 1971; Ogita, Rump & Oishi 2005, §3, Algorithm 3.3 "TwoProduct"; exact barring
/// underflow, whose error ≤ 5·2⁻¹⁰⁷⁴ is within [`accurate_mul`]'s absolute term, and overflow,
/// excluded by [`SPLIT_LIMIT`]). 17 flops that vectorise, where `f64::mul_add` without the target's
/// fma feature is a call to libm's software fma (module docs, "When": what that cost).
#[inline]
fn two_product(a: f64, (a1, a2): (f64, f64), b: f64, (b1, b2): (f64, f64)) -> (f64, f64) {
    let p = a * b;
    (p, a2 * b2 - (((p - a1 * b1) - a2 * b1) - a1 * b2))
}

/// a·x by Dot2 (module docs) for every row of `a`: the values and a bound on each value's error,
/// (u|v̂_i| + γ_{n+1}²|a_i|ᵀ|x|)/(1 − u) with |a_i|ᵀ|x| accumulated recursively (rounded up by
/// (1 + (n + 2)u)) and an absolute (n + 1)·2⁻¹⁰²² for products that might underflow. The products
/// split by [`two_product`] (the fma where an entry is beyond [`SPLIT_LIMIT`]): the same exact
/// (p, e), so the same values and bounds either way.
fn accurate_mul(a: &DMatrix<f64>, x: DVectorView<'_, f64>) -> (DVector<f64>, DVector<f64>) {
    let (m, n) = a.shape();
    let mut s = vec![0.0f64; m];
    let mut c = vec![0.0f64; m];
    let mut abs = vec![0.0f64; m];
    let splittable = a.amax() <= SPLIT_LIMIT && x.amax() <= SPLIT_LIMIT;
    for k in 0..n {
        let xk = x[k];
        if xk == 0.0 {
            continue;
        }
        let xs = split(xk);
        let column = &a.as_slice()[k * m..(k + 1) * m];
        for (((&aik, s), c), abs) in column.iter().zip(&mut s).zip(&mut c).zip(&mut abs) {
            // TwoProduct: aik·xk = p + e exactly.
            let (p, e) =
                if splittable { two_product(aik, split(aik), xk, xs) } else { (aik * xk, aik.mul_add(xk, -aik * xk)) };
            // TwoSum: s + p = t + q exactly.
            let t = *s + p;
            let z = t - *s;
            let q = (*s - (t - z)) + (p - z);
            *s = t;
            *c += q + e;
            *abs += p.abs();
        }
    }
    let g2 = gamma(n + 1).powi(2);
    let grow = 1.0 + (n + 2) as f64 * U;
    let tiny = (n + 1) as f64 * f64::MIN_POSITIVE;
    let value = DVector::from_iterator(m, s.iter().zip(&c).map(|(s, c)| s + c));
    let err = DVector::from_iterator(
        m,
        value.iter().zip(&abs).map(|(v, a)| (U * v.abs() + g2 * a * grow) / (1.0 - U) * (1.0 + 4.0 * U) + tiny),
    );
    (value, err)
}

/// The constraint values of [`Program::eval`] along the segment anchor + t·d, each from accurate
/// products ([`accurate_mul`]) and with a margin of their own rounding: v(t) = v_a + t·v_d errs by at
/// most e_a + t·e_d (the products') plus 2u(|v_a| + t|v_d|) (the product by t and the sum), rounded up.
struct TightSegment<'p, 'a> {
    program: &'p Program<'a>,
    /// R·w at the anchor and along d, each as (values, error bounds).
    v: [(DVector<f64>, DVector<f64>); 2],
    /// (‖a‖², 2aᵀd, ‖d‖²).
    norm: (f64, f64, f64),
    /// L·w at the anchor and along d (the latent box).
    z: Option<[(DVector<f64>, DVector<f64>); 2]>,
    /// The candidate's value at the anchor and along d, with error bounds.
    candidate: Option<[(f64, f64); 2]>,
}

impl<'p, 'a> TightSegment<'p, 'a> {
    fn new(program: &'p Program<'a>, a: &DVector<f64>, d: &DVector<f64>) -> Self {
        let n = program.n;
        let data = program.data;
        let (wa, wd) = (a.rows(0, n), d.rows(0, n));
        let v = [accurate_mul(&data.rows, wa), accurate_mul(&data.rows, wd)];
        let z = data.latent_box.map(|_| [accurate_mul(&data.l, wa), accurate_mul(&data.l, wd)]);
        let candidate = match (&program.candidate, data.latent_box) {
            (Some(c), Some(_)) => {
                let ct = DMatrix::from_row_slice(1, c.len(), c.as_slice());
                let (va, ea) = accurate_mul(&ct, a.rows(0, c.len()));
                let (vd, ed) = accurate_mul(&ct, d.rows(0, c.len()));
                Some([(va[0], ea[0]), (vd[0], ed[0])])
            }
            _ => None,
        };
        let norm = (a.norm_squared(), 2.0 * a.dot(d), d.norm_squared());
        TightSegment { program, v, norm, z, candidate }
    }

    /// Whether anchor + t·d (t ∈ [0, 1]) is strictly feasible with these margins.
    fn strictly_feasible(&self, t: f64) -> bool {
        let program = self.program;
        let data = program.data;
        let ok = |f: f64, err: f64| f.is_finite() && f + err < 0.0;
        let at = |(va, ea): (f64, f64), (vd, ed): (f64, f64)| {
            let v = va + t * vd;
            (v, (ea + t * ed + 2.0 * U * (va.abs() + t * vd.abs())) * (1.0 + 4.0 * U))
        };
        // The norm row as in [`Program::eval`].
        let (norm, norm_err) = program.norm_row(self.norm.0 + t * (self.norm.1 + t * self.norm.2));
        if !ok(norm, norm_err) {
            return false;
        }
        if let Some(kappa) = program.kappa {
            let [(va, ea), (vd, ed)] = &self.v;
            let mut sum = CompensatedSum::new();
            let mut shift = 0.0;
            for k in 0..va.len() {
                let (v, err) = at((va[k], ea[k]), (vd[k], ed[k]));
                sum.add(data.weights[k] * softplus(-v));
                // softplus is 1-Lipschitz: the term moves by at most c_τ·err.
                shift += data.weights[k] * err;
            }
            let phi = sum.value();
            // As [`crate::dense::phi_error`], with the values' own errors in place of γ_{n+3}|r|ᵀ|w|.
            let m = va.len();
            let phi_err =
                (shift * (1.0 + (m + 2) as f64 * U) + 5.0 * U * sum.abs_sum() * (1.0 + 1e-6) + sum.error_bound())
                    * (1.0 + 4.0 * U);
            if !ok((phi - kappa) / program.total, likelihood_row_error(phi, phi_err, kappa, program.total)) {
                return false;
            }
        }
        if let (Some([(za, ea), (zd, ed)]), Some(bx)) = (&self.z, data.latent_box) {
            for i in 0..program.n {
                let (z, err) = at((za[i], ea[i]), (zd[i], ed[i]));
                // The subtraction of b: u|z ∓ b| ≤ u(|z| + b).
                let err = err + U * (z.abs() + bx) * (1.0 + 4.0 * U);
                if !ok(z - bx, err) || !ok(-z - bx, err) {
                    return false;
                }
            }
        }
        if let (Some([a, d]), Some(bx)) = (self.candidate, data.latent_box) {
            let (cp, err) = at(a, d);
            let err = err + U * (cp.abs() + bx) * (1.0 + 4.0 * U);
            if !ok(cp - bx, err) || !ok(-cp - bx, err) {
                return false;
            }
        }
        true
    }
}

impl Program<'_> {
    /// Whether `p` is strictly feasible by the accurate evaluation (module docs).
    pub(super) fn accurately_feasible(&self, p: &DVector<f64>) -> bool {
        TightSegment::new(self, p, &DVector::zeros(p.len())).strictly_feasible(0.0)
    }

    /// [`Program::pull_inside`] with the accurate evaluation's margins (module docs): the point
    /// anchor + t(p − anchor) for the largest t found by bisection that is strictly feasible,
    /// checked at the end by a fresh accurate evaluation. The returned [`Eval`] is the plain one
    /// (the objective's rounding is taken from it).
    pub(super) fn pull_inside_accurately(
        &self,
        anchor: &DVector<f64>,
        p: &DVector<f64>,
    ) -> Option<(DVector<f64>, Eval)> {
        if self.accurately_feasible(p) {
            return Some((p.clone(), self.eval(p)));
        }
        let d = p - anchor;
        let segment = TightSegment::new(self, anchor, &d);
        let (lo, _) = bisect(|t| segment.strictly_feasible(t));
        for back in [0.0, 1e-12, 1e-9, 1e-6] {
            let t = lo * (1.0 - back);
            let q = anchor + &d * t;
            if self.accurately_feasible(&q) {
                let eq = self.eval(&q);
                return Some((q, eq));
            }
        }
        None
    }
}

impl Dual<'_> {
    /// The certificate's primal point q (objective `value`, rounding `err`) from the plain
    /// pull-inside, replaced by [`Program::pull_inside_accurately`]'s where the gap is within 1 to
    /// 1,000 times the tolerance, that pull-inside can close it ([`Dual::pull_may_certify`]), and
    /// its lower end is higher (module docs, "When").
    pub(super) fn tighten(
        &self,
        anchor: &DVector<f64>,
        point: &DualPoint<'_>,
        q: DVector<f64>,
        value: f64,
        err: f64,
    ) -> (DVector<f64>, f64, f64) {
        let near = (point.upper - (value - err)) / self.scale(value) / self.tolerance;
        if !(1.0..1e3).contains(&near) || !self.pull_may_certify(anchor, point, &q) {
            return (q, value, err);
        }
        match self.program.pull_inside_accurately(anchor, &point.p) {
            Some((qa, ea)) => {
                let (va, erra) = self.objective(&qa, &ea);
                if va - erra > value - err { (qa, va, erra) } else { (q, value, err) }
            }
            None => (q, value, err),
        }
    }

    /// Whether any point of the segment from `anchor` to the inner maximiser p beyond the pulled
    /// point q could meet the tolerance, a necessary condition for the accurate pull-inside to
    /// certify. Every row is convex along the segment, so its exactly feasible points are
    /// t ∈ [0, t*], and t* < t_max, the first t at which a row fails even with its rounding
    /// margin counted in its favour ([`Segment::passes`] with margin −2, [`bisect`]). On
    /// [t_q, t_max] the objective is at most its value at t_max plus its rounding (a linear
    /// objective: the larger end, q's being short of the tolerance already), or for the MLE
    /// (−φ, concave) at most its tangent at t_max: −φ(t_max) + (t_max − t_q)·max(0, ∇φ(t_max)ᵀd)
    /// (a concave function lies below its tangents, Boyd & Vandenberghe, *Convex Optimization*,
    /// 2004, §3.1.3). Where the dual's upper end is still far from the optimum this is false and
    /// the four accurate products are not paid for (module docs, "When").
    fn pull_may_certify(&self, anchor: &DVector<f64>, point: &DualPoint<'_>, q: &DVector<f64>) -> bool {
        let program = &self.program;
        let d = &point.p - anchor;
        let segment = Segment::new(program, anchor, &d);
        let (_, t_max) = segment.boundary(-2.0);
        let best = anchor + &d * t_max;
        let eb = program.eval(&best);
        let (vb, errb) = self.objective(&best, &eb);
        let mut reach = vb + errb;
        if !self.lambda_free {
            let dd = d.norm_squared();
            let t_q = if dd > 0.0 { (q - anchor).dot(&d) / dd } else { t_max };
            let slope = eb.grad_phi.dot(&d.rows(0, program.n));
            reach += (t_max - t_q).max(0.0) * slope.max(0.0);
        }
        // The certificate's upper end, clipped at the box as [`Dual::certify`] clips it.
        let upper = if self.clip.is_some() && point.upper >= self.bound { self.bound } else { point.upper };
        upper - reach <= self.tolerance * self.scale(reach)
    }
}

#[cfg(test)]
mod tests;
