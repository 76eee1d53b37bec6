//! Tests of the accurate pull-inside ([`super`]): Dot2 against exact integer arithmetic, and the
//! pull-inside on a near-boundary program checked by exact dyadic arithmetic.

use super::*;
use crate::conic::ConicData;
use crate::dense::{Directions, Objective};
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
            assert!(miss <= err[i] + 2.0 * U * exact.abs(), "case {case} row {i}: miss {miss:e}, bound {:e}", err[i]);
            let naive_bound = gamma(n) * (0..n).map(|k| (a[(i, k)] * x[k]).abs()).sum::<f64>();
            assert!(err[i] <= naive_bound, "case {case} row {i}: {:e} above γ_n|a||x| = {naive_bound:e}", err[i]);
        }
    }
}

/// Veltkamp–Dekker's TwoProduct against the fma's (both exact, so equal bit for bit), on random
/// magnitudes over 2⁻⁴⁰⁰…2⁴⁰⁰ and on products that cancel.
#[test]
fn two_product_without_fma_is_exact() {
    let mut rng = seeded(23);
    for _ in 0..20_000 {
        let a = rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(-400..400));
        let b = rng.random_range(-1.0..1.0) * 2f64.powi(rng.random_range(-400..400));
        let (p, e) = two_product(a, split(a), b, split(b));
        assert_eq!(p, a * b);
        assert_eq!(e.to_bits(), a.mul_add(b, -p).to_bits(), "{a:e}·{b:e}");
    }
}

/// x = m·2ᵉ exactly (m an integer), read from its bits (IEEE 754 binary64).
fn dyadic(x: f64) -> (i128, i32) {
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i128;
    if exp == 0 { (sign * frac, -1074) } else { (sign * (frac | (1i128 << 52)), exp - 1075) }
}

/// x in exact units of 2^`unit` (x must be a multiple, and the result must fit).
fn in_units(x: f64, unit: i32) -> i128 {
    let (m, e) = dyadic(x);
    if m == 0 {
        return 0;
    }
    let shift = e - unit;
    assert!((0..70).contains(&shift), "{x:e} is not a multiple of 2^{unit} that fits");
    m << shift
}

/// A near-boundary latent-box program (no likelihood row, n = 200): L lower triangular with
/// entries multiples of 2⁻³⁰ in (−1/2, 1/2), unit diagonal, L_{n−1,0} = 1/2; an anchor a on the
/// same grid with a₀ = 0 and z_{n−1}(a) ≈ 2; the box b = z_{n−1}(a) + s (s = 10⁻⁵) and
/// p = a + δe₀ with δ = 4s, so that only row n − 1 binds, at t* = 1/2 of the segment. The plain
/// margin of that row, (n + 16)u·|L_{n−1}|ᵀ|w| ≈ 10⁻¹³, costs the segment ≈ 5·10⁻⁹ of t; Dot2's
/// margins ≈ 2·10⁻¹⁵ cost ≈ 10⁻¹⁰.
struct NearBoundary {
    data: ConicData,
    anchor: DVector<f64>,
    p: DVector<f64>,
    delta: f64,
}

impl NearBoundary {
    fn new() -> Self {
        let n = 200;
        let mut rng = seeded(31);
        let mut l = DMatrix::from_fn(n, n, |i, j| if j < i { draw(&mut rng, 0.5) } else { 0.0 });
        l.fill_diagonal(1.0);
        l[(n - 1, 0)] = 0.5;
        let mut anchor = DVector::from_fn(n, |i, _| if i == 0 { 0.0 } else { draw(&mut rng, 0.05) });
        let partial: f64 = (0..n - 1).map(|j| l[(n - 1, j)] * anchor[j]).sum();
        anchor[n - 1] = ((2.0 - partial) * 2f64.powi(30)).round() / 2f64.powi(30);
        let z: i128 = (0..n).map(|j| units(l[(n - 1, j)]) * units(anchor[j])).sum();
        let s = 1e-5;
        let bx = z as f64 * 2f64.powi(-60) + s;
        let delta = 4.0 * s;
        let mut p = anchor.clone();
        p[0] = delta;
        let data = ConicData {
            l,
            rows: DMatrix::zeros(0, n),
            terms: vec![],
            weights: vec![],
            abs_weighted: DVector::zeros(n),
            constant: 0.0,
            norm_bound: 100.0,
            latent_box: Some(bx),
        };
        NearBoundary { data, anchor, p, delta }
    }

    /// Where row n − 1 meets the box along the segment, t* = (b − z_{n−1}(a))/(δ/2), from exact
    /// integers (relative error a few u).
    fn t_star(&self) -> f64 {
        let n = self.anchor.len();
        let bx = self.data.latent_box.unwrap();
        let z: i128 = (0..n).map(|j| units(self.data.l[(n - 1, j)]) * units(self.anchor[j])).sum();
        let room = in_units(bx, -110) - (z << 50);
        room as f64 * 2f64.powi(-110) / (0.5 * self.delta)
    }

    /// Whether q (the anchor but for its first coordinate) is strictly inside every box row, by
    /// exact dyadic arithmetic in units of 2⁻¹¹⁰: z_i = Σ_j L_ij q_j exactly, against ±b; and
    /// inside the norm bound (by far: ‖q‖² ≈ 4 against 10⁴).
    fn exactly_inside(&self, q: &DVector<f64>) -> bool {
        let n = q.len();
        assert!((1..n).all(|j| q[j] == self.anchor[j]), "only q₀ moves");
        let bx = in_units(self.data.latent_box.unwrap(), -110);
        let q0 = in_units(q[0], -80);
        (0..n).all(|i| {
            let rest: i128 = (1..n).map(|j| units(self.data.l[(i, j)]) * units(q[j])).sum();
            let z = (rest << 50) + units(self.data.l[(i, 0)]) * q0;
            z.abs() < bx
        }) && q.norm_squared() < 0.5 * self.data.norm_bound.powi(2)
    }
}

/// The dual of max q₀/δ (g = e₀/δ: the objective is the segment's t) for `case`, as
/// [`super::super::solve`] builds it.
fn dual_of<'a>(case: &'a NearBoundary, dirs: &'a Directions, g: &'a DVector<f64>) -> Dual<'a> {
    let n = case.anchor.len();
    let program = Program {
        data: &case.data,
        dirs,
        objective: Objective::Linear(g),
        kappa: None,
        candidate: None,
        n,
        dim: n,
        total: 0.0,
    };
    Dual {
        program,
        g: g.clone(),
        lambda_free: true,
        bound: case.data.latent_box.unwrap(),
        tolerance: 1e-9,
        clip: None,
        candidate_on_support: false,
        stop_at: None,
        budget: std::cell::Cell::new(u32::MAX),
        spare: std::cell::RefCell::new(None),
    }
}

/// A dual point at p with the certificate's upper end `upper` (the rest is not read).
fn point_at(p: &DVector<f64>, upper: f64) -> DualPoint<'static> {
    DualPoint {
        m: super::super::Multipliers { lambda: 1.0, mu: 1.0 },
        nu: vec![],
        p: p.clone(),
        value: 0.0,
        upper,
        grad: DVector::zeros(2),
        hess: DMatrix::zeros(2, 2),
        sensitivity: None,
    }
}

/// On [`NearBoundary`], with the certificate's upper end at the segment's exact maximum t*: the
/// plain pull-inside leaves a gap above the tolerance 10⁻⁹ (its margins), the accurate one meets
/// it; the accurate point is strictly feasible by exact dyadic arithmetic (every box row) and
/// lies between the plain point and t*.
#[test]
fn accurate_pull_inside_certifies_where_the_plain_one_cannot() {
    let case = NearBoundary::new();
    let dirs = Directions::new(&case.data);
    let n = case.anchor.len();
    let g = DVector::from_fn(n, |i, _| if i == 0 { 1.0 / case.delta } else { 0.0 });
    let dual = dual_of(&case, &dirs, &g);
    let t_star = case.t_star();
    assert!((t_star - 0.5).abs() < 1e-9, "t* = {t_star}");
    assert!(!case.exactly_inside(&case.p), "p is outside");
    let gap = |q: &DVector<f64>| {
        let (value, err) = dual.objective(q, &dual.program.eval(q));
        t_star - (value - err)
    };
    let (plain, _) = dual.program.pull_inside(&case.anchor, &case.p).unwrap();
    let (accurate, _) = dual.program.pull_inside_accurately(&case.anchor, &case.p).unwrap();
    assert!(case.exactly_inside(&plain));
    assert!(case.exactly_inside(&accurate), "the accurate point is outside: q₀ = {:e}", accurate[0]);
    let (plain_gap, accurate_gap) = (gap(&plain), gap(&accurate));
    assert!(plain_gap > 1e-9, "plain gap {plain_gap:e}");
    assert!((0.0..=1e-9).contains(&accurate_gap), "accurate gap {accurate_gap:e}");
    assert!(plain[0] < accurate[0] && accurate[0] < t_star * case.delta);
}

/// [`Dual::tighten`] and its guard on the same program: with the certificate's upper end at t*,
/// a point of the segment can certify and the accurate point replaces the plain one; with the
/// upper end 10⁻⁷ above t* (a dual not yet converged; the gap within 1,000 tolerances) none can,
/// so the guard is false and the plain point is returned unchanged, bit for bit.
#[test]
fn tighten_runs_the_accurate_pull_inside_only_where_it_can_certify() {
    let case = NearBoundary::new();
    let dirs = Directions::new(&case.data);
    let n = case.anchor.len();
    let g = DVector::from_fn(n, |i, _| if i == 0 { 1.0 / case.delta } else { 0.0 });
    let dual = dual_of(&case, &dirs, &g);
    let t_star = case.t_star();
    let (plain, eq) = dual.program.pull_inside(&case.anchor, &case.p).unwrap();
    let (value, err) = dual.objective(&plain, &eq);

    let converged = point_at(&case.p, t_star);
    assert!(dual.pull_may_certify(&case.anchor, &converged, &plain));
    let (q, v, e) = dual.tighten(&case.anchor, &converged, plain.clone(), value, err);
    assert!(q[0] > plain[0] && t_star - (v - e) <= 1e-9, "tightened gap {:e}", t_star - (v - e));

    let early = point_at(&case.p, t_star + 1e-7);
    assert!((1.0..1e3).contains(&((early.upper - (value - err)) / 1e-9)));
    assert!(!dual.pull_may_certify(&case.anchor, &early, &plain));
    let (q, v, e) = dual.tighten(&case.anchor, &early, plain.clone(), value, err);
    assert_eq!((q, v.to_bits(), e.to_bits()), (plain, value.to_bits(), err.to_bits()));
}
