//! Tests of the set's closed forms ([`super::ball_halfspace_support`]).

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// In 2-D the extreme points of {‖p‖ ≤ B} ∩ {uᵀp ≤ h} are the circle points in the halfspace
    /// and the two chord endpoints; brute force over a fine circle grid plus the endpoints.
    #[test]
    fn ball_halfspace_support_matches_brute_force(
        g0 in -2.0..2.0f64, g1 in -2.0..2.0f64, u0 in -2.0..2.0f64, u1 in -2.0..2.0f64,
        b in 0.1..5.0f64, frac in -0.99..0.99f64,
    ) {
        let g = DVector::from_vec(vec![g0, g1]);
        let u = DVector::from_vec(vec![u0, u1]);
        let unorm = u.norm();
        prop_assume!(unorm > 1e-3 && g.norm() > 1e-3);
        let h = frac * b * unorm;
        let formula = ball_halfspace_support(&g, &u, h, b);
        let (uh, perp) = (&u / unorm, DVector::from_vec(vec![-u1 / unorm, u0 / unorm]));
        let c = h / unorm;
        let half = (b * b - c * c).sqrt();
        let mut brute = f64::NEG_INFINITY;
        for p in [&uh * c + &perp * half, &uh * c - &perp * half] {
            brute = brute.max(g.dot(&p));
        }
        let m = 20000;
        for k in 0..m {
            let th = std::f64::consts::TAU * k as f64 / m as f64;
            let p = DVector::from_vec(vec![b * th.cos(), b * th.sin()]);
            if u.dot(&p) <= h {
                brute = brute.max(g.dot(&p));
            }
        }
        // Grid step 2π/20000: the arc maximum is missed by at most B‖g‖(Δθ)²/2 < 1e-6.
        prop_assert!(formula >= brute - 1e-12, "bound {formula} below a feasible value {brute}");
        prop_assert!(formula <= brute + 1e-6 * (1.0 + b * g.norm()), "bound {formula} vs max {brute}");
    }
}

#[test]
fn ball_halfspace_support_is_minus_infinity_when_the_halfspace_misses_the_ball() {
    let e1 = DVector::from_vec(vec![1.0, 0.0]);
    assert_eq!(ball_halfspace_support(&e1, &e1, -3.0, 2.0), f64::NEG_INFINITY);
    // u = 0: the whole ball (c ≥ 0) or nothing.
    let zero = DVector::zeros(2);
    assert_eq!(ball_halfspace_support(&e1, &zero, 0.0, 2.0), 2.0);
    assert_eq!(ball_halfspace_support(&e1, &zero, -1.0, 2.0), f64::NEG_INFINITY);
}
