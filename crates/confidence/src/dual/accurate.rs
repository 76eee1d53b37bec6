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
//! products split exactly by an fma, the sums by Knuth's TwoSum), each value r_τᵀw errs by at most
//! u|r_τᵀw| + γ_{n+1}²|r_τ|ᵀ|w| (their error bound for Dot2), so the margins shrink by a factor of
//! about n/2.
//!
//! **When.** Four accurate products (R and L with the anchor and the direction) cost a few times
//! their plain counterparts, so [`super::Dual::certify`] uses this only when the plain pull-inside
//! leaves the gap above the tolerance but within a thousand times it: where the plain certificate
//! succeeds it is unchanged (a program may end an outer step earlier than before).

use super::Program;
use crate::dense::{Eval, U, likelihood_row_error};
use bohf_core::link::softplus;
use bohf_core::sum::CompensatedSum;
use nalgebra::{DMatrix, DVector, DVectorView};

/// γ_k = ku/(1 − ku), rounded up.
fn gamma(k: usize) -> f64 {
    let ku = k as f64 * U;
    ku / (1.0 - ku) * (1.0 + 4.0 * U)
}

/// a·x by Dot2 (module docs) for every row of `a`: the values and a bound on each value's error,
/// (u|v̂_i| + γ_{n+1}²|a_i|ᵀ|x|)/(1 − u) with |a_i|ᵀ|x| accumulated recursively (rounded up by
/// (1 + (n + 2)u)) and an absolute (n + 1)·2⁻¹⁰²² for products that might underflow.
fn accurate_mul(a: &DMatrix<f64>, x: DVectorView<'_, f64>) -> (DVector<f64>, DVector<f64>) {
    let (m, n) = a.shape();
    let mut s = vec![0.0f64; m];
    let mut c = vec![0.0f64; m];
    let mut abs = vec![0.0f64; m];
    for k in 0..n {
        let xk = x[k];
        if xk == 0.0 {
            continue;
        }
        for (i, &aik) in a.column(k).iter().enumerate() {
            // TwoProduct: aik·xk = p + e exactly.
            let p = aik * xk;
            let e = aik.mul_add(xk, -p);
            // TwoSum: s + p = t + q exactly.
            let t = s[i] + p;
            let z = t - s[i];
            let q = (s[i] - (t - z)) + (p - z);
            s[i] = t;
            c[i] += q + e;
            abs[i] += p.abs();
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
        let b = data.norm_bound;
        // The norm row as in [`Program::eval`].
        let dim_err = (program.dim + 16) as f64 * U;
        let pn2 = self.norm.0 + t * (self.norm.1 + t * self.norm.2);
        if !ok((pn2 - b * b) / (2.0 * b * b), dim_err * (pn2 + b * b) / (2.0 * b * b) + U) {
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
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if segment.strictly_feasible(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-15 {
                break;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use bohf_core::rand::RngExt;
    use bohf_core::rng::{BohfRng, seeded};

    /// x as an exact integer multiple of 2⁻³⁰ (x is one by construction).
    fn units(x: f64) -> i128 {
        let scaled = x * 2f64.powi(30);
        assert_eq!(scaled.fract(), 0.0);
        scaled as i128
    }

    /// A multiple of 2⁻³⁰ below `scale` in magnitude.
    fn draw(rng: &mut BohfRng, scale: f64) -> f64 {
        let v: f64 = rng.random_range(-scale..scale);
        (v * 2f64.powi(30)).round() / 2f64.powi(30)
    }

    /// Dot2's value and error bound against exact integer arithmetic: entries that are multiples of
    /// 2⁻³⁰ (products exact in i128 units of 2⁻⁶⁰), including rows built to cancel to a small
    /// fraction of Σ|a||x|, where the plain product loses most of its digits; the bound is never
    /// looser than the plain product's γ_n|a|ᵀ|x|.
    #[test]
    fn accurate_products_are_within_their_bound_of_the_exact_value() {
        let mut rng = seeded(17);
        for case in 0..60 {
            let (m, n) = (1 + case % 7, 2 + rng.random_range(0..400usize));
            let mut a = DMatrix::from_fn(m, n, |_, _| draw(&mut rng, 1000.0));
            let x = DVector::from_fn(n, |_, _| draw(&mut rng, 1000.0));
            if case % 2 == 0 && x[n - 1] != 0.0 {
                // Row 0 nearly cancels: its last entry undoes the rest up to a small remainder.
                let partial: f64 = (0..n - 1).map(|k| a[(0, k)] * x[k]).sum();
                a[(0, n - 1)] = (-(partial / x[n - 1]) * 2f64.powi(30)).round() / 2f64.powi(30);
            }
            let (value, err) = accurate_mul(&a, x.rows(0, n));
            for i in 0..m {
                let exact: i128 = (0..n).map(|k| units(a[(i, k)]) * units(x[k])).sum();
                let exact = exact as f64 * 2f64.powi(-60);
                // The i128 → f64 conversion rounds once more (relative u): allowed for.
                let miss = (value[i] - exact).abs();
                assert!(
                    miss <= err[i] + 2.0 * U * exact.abs(),
                    "case {case} row {i}: miss {miss:e}, bound {:e}",
                    err[i]
                );
                let naive_bound = gamma(n) * (0..n).map(|k| (a[(i, k)] * x[k]).abs()).sum::<f64>();
                assert!(err[i] <= naive_bound, "case {case} row {i}: {:e} above γ_n|a||x| = {naive_bound:e}", err[i]);
            }
        }
    }
}
