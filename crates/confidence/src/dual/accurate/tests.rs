//! Tests of the accurate pull-inside ([`super`]): Dot2 against exact integer arithmetic.

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
