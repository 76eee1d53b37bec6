//! The standard normal distribution to double precision: the density φ, the CDF Φ and log Φ, as
//! used by the probit link μ(s) = Φ(s) (Thurstone–Mosteller) of the preference models.
//!
//! Φ follows W. J. Cody's rational Chebyshev approximations (W. J. Cody, "Rational Chebyshev
//! approximations for the error function", *Math. Comp.* 23 (1969), 631–637; his Fortran routine
//! ANORM), in the form used by R's `pnorm_both` (R's `src/nmath/pnorm.c`, Ross Ihaka and the R Core
//! Team, which also supplies the log-scale evaluation). The coefficients below are copied from
//! that file and agree digit for digit with an independent Fortran translation of it; the tests in
//! this module check the result against 30-digit mpmath values.
//!
//! Three regions in y = |s|:
//! * y ≤ 0.674 (≈ Φ⁻¹(3/4)): Φ(s) = ½ + s·R₁(s²), R₁ a (3,3) rational function;
//! * 0.674 < y ≤ √32: Φ(−y) = e^{−y²/2}·R₂(y), R₂ a (8,8) rational function;
//! * y > √32: Φ(−y) = e^{−y²/2}·(1/√(2π) − y⁻²·R₃(y⁻²))/y, R₃ a (4,4) rational function of 1/y²:
//!   a rational form of the Mills-ratio continued fraction, valid for every y > √32.
//!
//! In the two outer regions e^{−y²/2} is evaluated as e^{−ỹ²/2}·e^{−(y−ỹ)(y+ỹ)/2} with ỹ = ⌊16y⌋/16,
//! so that ỹ² is exact and no relative error of order y²·ε enters through the exponent. The upper
//! tail uses Φ(y) = 1 − Φ(−y), and log Φ is assembled on the log scale (−ỹ²/2 − (y−ỹ)(y+ỹ)/2 +
//! log(tail factor)), so it stays accurate long after Φ itself underflows (s ≈ −38.5).

/// 1/√(2π).
#[allow(clippy::excessive_precision)] // as published, beyond double precision
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_677_939_946_059_934;
/// √32, the boundary between Cody's second and third approximation.
#[allow(clippy::excessive_precision)] // as published, beyond double precision
const SQRT_32: f64 = 5.656_854_249_492_380_195_206_754_896_838;
/// Boundary of the central region, ≈ Φ⁻¹(3/4) (R's choice; Cody used 0.66291).
const CENTRAL: f64 = 0.674_489_75;
/// Beyond this |s| every quantity below is 0, 1 or ±∞ in double precision (log Φ(−10²⁰⁰) ≈
/// −5·10³⁹⁹ < −f64::MAX); cutting here keeps ⌊16y⌋ and y + ỹ finite.
const HUGE: f64 = 1e200;

// Central region, |s| ≤ 0.674: Φ(s) = ½ + s·(A₃ + A₀s² + A₁s⁴ + A₂s⁶ + A₄s⁸)/(B₃ + B₀s² + B₁s⁴ + B₂s⁶ + s⁸)
// (R's coefficient order).
#[allow(clippy::excessive_precision)] // as published, beyond double precision
const A: [f64; 5] = [
    2.235_252_035_460_683_928_7,
    161.028_231_068_555_878_81,
    1_067.689_485_460_370_958_2,
    18_154.981_253_343_561_249,
    0.065_682_337_918_207_449_113,
];
#[allow(clippy::excessive_precision)] // as published, beyond double precision
const B: [f64; 4] =
    [47.202_581_904_688_241_87, 976.098_551_737_776_693_22, 10_260.932_208_618_978_205, 45_507.789_335_026_729_956];

// Second region, 0.674 < y ≤ √32: Φ(−y) = e^{−y²/2}·(Σ C·yᵏ)/(Σ D·yᵏ), Horner order as in R.
#[allow(clippy::excessive_precision)] // as published, beyond double precision
const C: [f64; 9] = [
    0.398_941_512_088_134_667_64,
    8.883_149_794_388_375_941_2,
    93.506_656_132_177_855_979,
    597.270_276_394_800_262_26,
    2_494.537_585_290_372_671_1,
    6_848.190_450_536_282_332_6,
    11_602.651_437_647_350_124,
    9_842.714_838_383_978_021_8,
    1.076_557_677_372_019_231_7e-8,
];
#[allow(clippy::excessive_precision)] // as published, beyond double precision
const D: [f64; 8] = [
    22.266_688_044_328_115_691,
    235.387_901_782_624_998_61,
    1_519.377_599_407_554_805,
    6_485.558_298_266_760_755,
    18_615.571_640_885_098_091,
    34_900.952_721_145_977_266,
    38_912.003_286_093_271_411,
    19_685.429_676_859_990_727,
];

// Third region, y > √32, in z = 1/y².
#[allow(clippy::excessive_precision)] // as published, beyond double precision
const P: [f64; 6] = [
    0.215_898_534_057_956_99,
    0.127_401_161_160_247_363_9,
    0.022_235_277_870_649_807,
    0.001_421_619_193_227_893_466,
    2.911_287_495_116_879_2e-5,
    0.023_073_441_764_940_173_03,
];
#[allow(clippy::excessive_precision)] // as published, beyond double precision
const Q: [f64; 5] = [
    1.284_260_096_144_911_21,
    0.468_238_212_480_865_118,
    0.065_988_137_868_928_551_5,
    0.003_782_396_332_027_582_44,
    7.297_515_550_839_662_05e-5,
];

/// The central approximation: t with Φ(s) = ½ + t for |s| ≤ 0.674 (t is odd in s).
fn central(s: f64) -> f64 {
    let (num, den) = if s.abs() > 0.5 * f64::EPSILON {
        let s2 = s * s;
        let mut num = A[4] * s2;
        let mut den = s2;
        for i in 0..3 {
            num = (num + A[i]) * s2;
            den = (den + B[i]) * s2;
        }
        (num, den)
    } else {
        (0.0, 0.0)
    };
    s * (num + A[3]) / (den + B[3])
}

/// The lower tail Φ(−y) = e^{−h}·e^{−d}·r for 0.674 < y ≤ 10²⁰⁰, returned as (h, d, r) with
/// h = ỹ²/2 exact (ỹ = ⌊16y⌋/16), d = (y − ỹ)(y + ỹ)/2 and r the rational tail factor.
fn lower_tail(y: f64) -> (f64, f64, f64) {
    debug_assert!(y > CENTRAL && y <= HUGE);
    let r = if y <= SQRT_32 {
        let mut num = C[8] * y;
        let mut den = y;
        for i in 0..7 {
            num = (num + C[i]) * y;
            den = (den + D[i]) * y;
        }
        (num + C[7]) / (den + D[7])
    } else {
        let z = 1.0 / (y * y);
        let mut num = P[5] * z;
        let mut den = z;
        for i in 0..4 {
            num = (num + P[i]) * z;
            den = (den + Q[i]) * z;
        }
        (FRAC_1_SQRT_2PI - z * (num + P[4]) / (den + Q[4])) / y
    };
    let (h, d) = split_half_square(y);
    (h, d, r)
}

/// y²/2 = h + d with h = ỹ·ỹ/2 (ỹ = ⌊16y⌋/16, so h is exact for y < 2²²) and the small remainder
/// d = (y − ỹ)(y + ỹ)/2, following R's `do_del`; e^{−y²/2} = e^{−h}·e^{−d} then carries only the
/// rounding of the two exponentials.
fn split_half_square(y: f64) -> (f64, f64) {
    let yt = (y * 16.0).trunc() / 16.0;
    ((0.5 * yt) * yt, 0.5 * ((y - yt) * (y + yt)))
}

/// Standard normal density φ(s) = e^{−s²/2}/√(2π), to a few ulps relative (the exponent is split
/// as in [`std_normal_cdf`]); 0 for |s| > 40, where φ underflows (φ(38.6) < 2⁻¹⁰⁷⁴).
pub fn std_normal_pdf(s: f64) -> f64 {
    let y = s.abs();
    if y.is_nan() {
        return f64::NAN;
    }
    if y > 40.0 {
        return 0.0;
    }
    let (h, d) = split_half_square(y);
    (-h).exp() * (-d).exp() * FRAC_1_SQRT_2PI
}

/// Standard normal CDF Φ(s) = ∫_{−∞}^s φ(t) dt (the probit link), by Cody's rational Chebyshev
/// approximations (module docs). Relative error a few ulps wherever Φ(s) is a normal number
/// (s ≳ −37.5); Φ(s) is computed into the subnormal range down to its underflow near s = −38.5,
/// with the reduced precision of subnormals there. Φ(−s) = 1 − Φ(s) holds to within rounding.
pub fn std_normal_cdf(s: f64) -> f64 {
    let y = s.abs();
    if y.is_nan() {
        return f64::NAN;
    }
    let lower = lower_cdf(y);
    if s > 0.0 { 1.0 - lower } else { lower }
}

/// Φ(−y) for y = |s| ≥ 0 (not NaN). Both Φ(s) and Φ(−s) are derived from this one value, so
/// Φ(s) = fl(1 − Φ(−s)) for s > 0 and the symmetry Φ(−s) = 1 − Φ(s) holds to ½ ulp.
fn lower_cdf(y: f64) -> f64 {
    if y <= CENTRAL {
        0.5 - central(y)
    } else if y > HUGE {
        0.0
    } else {
        let (h, d, r) = lower_tail(y);
        (-h).exp() * (-d).exp() * r
    }
}

/// log Φ(s), accurate to a few ulps relative for all s, including the far lower tail where Φ
/// underflows: for s < −0.674 it is −ỹ²/2 − (y−ỹ)(y+ỹ)/2 + log r(y) with y = −s (module docs), whose
/// third-region factor r is the rational form of the Mills ratio R(y) = Φ(−y)/φ(y) ~ 1/y − 1/y³ + …;
/// for −0.674 ≤ s ≤ 0 it is log(½ + t); for s > 0 it is log1p(−Φ(−s)), so log Φ(s) ≈ −Φ(−s) keeps its
/// relative accuracy as s → ∞.
/// −∞ for s < −10²⁰⁰ (the true value is below −f64::MAX there).
pub fn std_normal_log_cdf(s: f64) -> f64 {
    let y = s.abs();
    if y.is_nan() {
        return f64::NAN;
    }
    if s > 0.0 {
        (-lower_cdf(y)).ln_1p()
    } else if y <= CENTRAL {
        (0.5 - central(y)).ln()
    } else if y > HUGE {
        f64::NEG_INFINITY
    } else {
        let (h, d, r) = lower_tail(y);
        -h - d + r.ln()
    }
}

/// log Γ(x) for x > 0, by the Lanczos approximation with g = 7 and nine coefficients (the set
/// published with Numerical Recipes' `gammln` successors and Wikipedia's "Lanczos approximation";
/// relative error below 10⁻¹⁴ for x ≥ ½), with the reflection Γ(x)Γ(1 − x) = π/sin(πx) below ½.
/// Used for the normalising constant of Gamma priors. NaN for x ≤ 0 or NaN; +∞ for x = +∞.
#[allow(clippy::excessive_precision)] // as published, beyond double precision
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const P: [f64; 9] = [
        0.999_999_999_999_809_93,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_13,
        -176.615_029_162_140_59,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_571_6e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    if x < 0.5 {
        // Reflection: log Γ(x) = log(π / sin(πx)) − log Γ(1 − x); sin(πx) > 0 on (0, ½).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let x = x - 1.0;
    let a = P[1..].iter().enumerate().fold(P[0], |acc, (i, p)| acc + p / (x + (i + 1) as f64));
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// E[max(X₁, X₂)] for a bivariate Gaussian (X₁, X₂) with means `m1`, `m2`, variances `v1`, `v2`
/// and covariance `c` (Clark 1961, "The greatest of a finite set of random variables", *Oper. Res.*
/// 9(2), eq. (2)–(3)):
///
/// ```text
/// E[max(X₁, X₂)] = m₁ Φ(γ) + m₂ Φ(−γ) + θ φ(γ),   θ² = v₁ + v₂ − 2c,   γ = (m₁ − m₂)/θ,
/// ```
///
/// the expected utility of the best option (EUBO) of a duel under a Gaussian posterior of the
/// utilities (Lin et al. 2022, eq. (6); Astudillo et al. 2023, qEUBO at q = 2). Also returns the
/// gradient with respect to (m₁, m₂, v₁, v₂, c): (Φ(γ), Φ(−γ), φ(γ)/(2θ), φ(γ)/(2θ), −φ(γ)/θ), from
/// E[max] = m₂ + E[(X₁ − X₂)⁺] and d E[D⁺]/dθ = φ(γ).
///
/// When θ² ≤ 10⁻²⁴·max(1, v₁, v₂) (X₁ − X₂ almost surely constant: the same point twice, or a
/// degenerate covariance) the value is max(m₁, m₂) and the gradient is that of max(m₁, m₂) (½, ½
/// at a tie) with zeros for the second moments, where the formula's θ-derivative is unbounded.
pub fn expected_max_of_two(m1: f64, m2: f64, v1: f64, v2: f64, c: f64) -> (f64, [f64; 5]) {
    let theta2 = v1 + v2 - 2.0 * c;
    if theta2 <= 1e-24 * v1.max(v2).max(1.0) {
        let g = if m1 > m2 {
            [1.0, 0.0, 0.0, 0.0, 0.0]
        } else if m2 > m1 {
            [0.0, 1.0, 0.0, 0.0, 0.0]
        } else {
            [0.5, 0.5, 0.0, 0.0, 0.0]
        };
        return (m1.max(m2), g);
    }
    let theta = theta2.sqrt();
    let gamma = (m1 - m2) / theta;
    let (cdf, cdf_neg, pdf) = (std_normal_cdf(gamma), std_normal_cdf(-gamma), std_normal_pdf(gamma));
    let value = m1 * cdf + m2 * cdf_neg + theta * pdf;
    let dv = pdf / (2.0 * theta);
    (value, [cdf, cdf_neg, dv, dv, -2.0 * dv])
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::{assert_abs_diff_eq, assert_relative_eq};
    use std::f64::consts::LN_2;

    /// (s, Φ(s), log Φ(s), φ(s)) from mpmath 1.3 at 30 significant digits (`mp.ncdf`, `mp.log`,
    /// `mp.npdf` with `mp.dps = 30`), printed to 17 significant digits. Φ(−40) = 3.66e−350 and
    /// Φ(−38.5) = 1.41e−324 are below the smallest subnormal and are given as 0 (checked apart);
    /// likewise φ(−40) = 1.46e−348.
    #[allow(clippy::excessive_precision)] // mpmath printed to 17 significant digits
    const REFERENCE: [(f64, f64, f64, f64); 25] = [
        (-40.0, 0.0, -8.0460844201375379e+2, 0.0),
        (-38.5, 0.0, -7.4569527029041108e+2, 5.4251551813365902e-323),
        (-37.0, 5.7255712225245768e-300, -6.8903058557689059e+2, 2.1200065515246056e-298),
        (-30.0, 4.9067139271481871e-198, -4.543212439563432e+2, 1.4736461348785475e-196),
        (-20.0, 2.7536241186062337e-89, -2.0391715537109726e+2, 5.5209483621597632e-88),
        (-10.0, 7.6198530241605261e-24, -5.3231285150512471e+1, 7.6945986267064193e-23),
        (-7.0, 1.279812543885835e-12, -2.7384307498811075e+1, 9.1347204083645933e-12),
        (-5.5, 1.8989562465887719e-8, -1.7779376352625261e+1, 1.0769760042543276e-7),
        (-5.0, 2.8665157187919391e-7, -1.5064998393988726e+1, 1.4867195147342977e-6),
        (-3.0, 1.3498980316300945e-3, -6.6077262215103495, 4.4318484119380072e-3),
        (-1.96, 2.4997895148220434e-2, -3.6889636517296387, 5.844094433345146e-2),
        (-1.0, 1.5865525393145705e-1, -1.8410216450092635, 2.4197072451914335e-1),
        (-0.7, 2.4196365222307301e-1, -1.4189677615315316, 3.1225393336676126e-1),
        (-0.5, 3.085375387259869e-1, -1.1759117615936186, 3.5206532676429948e-1),
        (-0.1, 4.6017216272297102e-1, -7.7615459273027332e-1, 3.9695254747701177e-1),
        (0.0, 0.5, -LN_2, 3.9894228040143268e-1), // mpmath: log Φ(0) = −0.69314718055994531 = −ln 2
        (0.3, 6.1791142218895264e-1, -4.814101615884812e-1, 3.8138781546052409e-1),
        (0.6, 7.2574688224992642e-1, -3.2055397198751886e-1, 3.3322460289179964e-1),
        (0.8, 7.8814460141660331e-1, -2.3807370162332806e-1, 2.8969155276148274e-1),
        (1.0, 8.4134474606854295e-1, -1.7275377902344989e-1, 2.4197072451914335e-1),
        (1.96, 9.7500210485177957e-1, -2.5315649164282113e-2, 5.844094433345146e-2),
        (3.0, 9.9865010196836991e-1, -1.3508099647481938e-3, 4.4318484119380072e-3),
        (5.0, 9.9999971334842812e-1, -2.8665161296376359e-7, 1.4867195147342977e-6),
        (6.0, 9.9999999901341235e-1, -9.8658764552437573e-10, 6.0758828498232855e-9),
        (8.0, 9.9999999999999938e-1, -6.2209605742717858e-16, 5.0522710835368923e-15),
    ];

    #[test]
    fn cdf_matches_mpmath() {
        for &(s, cdf, _, _) in &REFERENCE {
            if cdf >= 1e-300 {
                // Cody's approximations are accurate to ~1e−18 relative; the double-precision
                // evaluation adds a few ulps (≈ 1e−15); 1e−14 leaves a margin of ~10 ulps.
                assert_relative_eq!(std_normal_cdf(s), cdf, max_relative = 1e-14);
            }
        }
        // Below the smallest subnormal (true values 3.7e−350 and 1.4e−324, the latter rounding to 0).
        assert_eq!(std_normal_cdf(-40.0), 0.0);
        assert!(std_normal_cdf(-38.5) <= 5e-324);
        assert_eq!(std_normal_cdf(-1e300), 0.0);
        assert_eq!(std_normal_cdf(41.0), 1.0);
        assert_eq!(std_normal_cdf(f64::NEG_INFINITY), 0.0);
        assert_eq!(std_normal_cdf(f64::INFINITY), 1.0);
        assert!(std_normal_cdf(f64::NAN).is_nan());
    }

    #[test]
    fn log_cdf_matches_mpmath_including_where_cdf_underflows() {
        for &(s, _, log_cdf, _) in &REFERENCE {
            // log Φ is assembled from exact or few-ulp pieces (−ỹ²/2, the small remainder, log of
            // the tail factor, or log1p of the tail); 1e−13 is the brief's bound, ~500 ulps.
            assert_relative_eq!(std_normal_log_cdf(s), log_cdf, max_relative = 1e-13);
        }
        assert_eq!(std_normal_log_cdf(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(std_normal_log_cdf(f64::INFINITY), 0.0);
        assert!(std_normal_log_cdf(-1e10).is_finite());
    }

    #[test]
    fn pdf_matches_mpmath() {
        for &(s, _, _, pdf) in &REFERENCE {
            if pdf >= 1e-300 {
                // exp(−ỹ²/2) with exact ỹ² plus two roundings: a few ulps; 1e−14 as for Φ.
                assert_relative_eq!(std_normal_pdf(s), pdf, max_relative = 1e-14);
                assert_eq!(std_normal_pdf(-s), std_normal_pdf(s));
            }
        }
        assert_eq!(std_normal_pdf(-40.0), 0.0);
        assert_eq!(std_normal_pdf(f64::INFINITY), 0.0);
    }

    #[test]
    fn symmetry_to_rounding() {
        // Φ(|s|) is computed as fl(1 − Φ(−|s|)), so 1 − Φ(s) differs from Φ(−s) only by that one
        // rounding (≤ ½ ulp of a number below 1, 5.6e−17; 1 − Φ(|s|) itself is exact by Sterbenz).
        for i in -800..=800 {
            let s = f64::from(i) * 0.01;
            assert_abs_diff_eq!(std_normal_cdf(-s), 1.0 - std_normal_cdf(s), epsilon = 1e-16);
        }
    }

    #[test]
    fn continuous_across_region_boundaries() {
        // Each boundary is crossed by two different approximations, both accurate to ~1e−17
        // relative, so across a step of 2e−12 Φ must move by φ·2e−12 (the central-difference
        // remainder φ″·Δ³/3 is ~1e−36) up to a few ulps of Φ, and log Φ by (φ/Φ)·2e−12 up to a few
        // ulps of log Φ. The upper boundaries mirror these (Φ(s) = 1 − Φ(−s) there).
        for b in [-SQRT_32, -CENTRAL] {
            let (lo, hi) = (b - 1e-12, b + 1e-12);
            let cdf = std_normal_cdf(b);
            let expected = std_normal_pdf(b) * 2e-12;
            let jump = std_normal_cdf(hi) - std_normal_cdf(lo);
            assert_abs_diff_eq!(jump, expected, epsilon = 8.0 * f64::EPSILON * cdf);
            let log_jump = std_normal_log_cdf(hi) - std_normal_log_cdf(lo);
            let tol = 8.0 * f64::EPSILON * std_normal_log_cdf(b).abs();
            assert_abs_diff_eq!(log_jump, expected / cdf, epsilon = tol);
        }
    }

    #[test]
    fn log_cdf_agrees_with_log_of_cdf_where_both_are_representable() {
        // An internal consistency check between the two code paths (log-scale assembly versus
        // ln of the product); ln maps a relative error δ of Φ to an absolute error δ in log Φ.
        for i in -3700..=800 {
            let s = f64::from(i) * 0.01;
            // Tolerance: 1e−14 absolute (≈ 50 ulps of relative error in Φ) or, far in the tail where
            // |log Φ| ~ 700 and one ulp of it is 1.1e−13, 4 ulps relative.
            let (direct, via_cdf) = (std_normal_log_cdf(s), std_normal_cdf(s).ln());
            assert_relative_eq!(direct, via_cdf, epsilon = 1e-14, max_relative = 4.0 * f64::EPSILON);
        }
    }
    #[test]
    fn ln_gamma_matches_factorials_and_half_integers() {
        // Γ(n) = (n − 1)! exactly; Γ(½) = √π, Γ(3/2) = √π/2; Γ(0.1) = 9.513507698668731836 (DLMF 5.4 tables).
        let mut fact = 1.0f64;
        for n in 1..30 {
            if n > 1 {
                fact *= (n - 1) as f64;
            }
            assert_relative_eq!(ln_gamma(n as f64), fact.ln(), max_relative = 1e-13, epsilon = 1e-14);
        }
        let sqrt_pi = std::f64::consts::PI.sqrt();
        assert_relative_eq!(ln_gamma(0.5), sqrt_pi.ln(), max_relative = 1e-13);
        assert_relative_eq!(ln_gamma(1.5), (0.5 * sqrt_pi).ln(), max_relative = 1e-13);
        assert_relative_eq!(ln_gamma(0.1), 9.513_507_698_668_732f64.ln(), max_relative = 1e-13);
        // Recurrence Γ(x + 1) = x Γ(x) at non-integers, across the reflection boundary.
        for x in [0.01, 0.3, 0.49, 0.51, 2.4, 7.3, 55.5] {
            assert_relative_eq!(ln_gamma(x + 1.0), ln_gamma(x) + f64::ln(x), max_relative = 1e-12, epsilon = 1e-13);
        }
        assert!(ln_gamma(0.0).is_nan() && ln_gamma(-1.0).is_nan() && ln_gamma(f64::NAN).is_nan());
    }

    /// Clark's E[max(X₁, X₂)] against a Monte Carlo mean of max(X₁, X₂) over 200 000 draws
    /// (X₁ = m₁ + σ₁Z₁, X₂ = m₂ + σ₂(ρZ₁ + √(1−ρ²)Z₂)): within 3 standard errors, for positive,
    /// negative and zero correlation and a tie of the means.
    #[test]
    fn expected_max_of_two_matches_monte_carlo() {
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = crate::rng::seeded(7);
        for &(m1, m2, s1, s2, rho) in &[
            (0.3, -0.2, 1.0, 0.5, 0.6),
            (1.0, 1.0, 0.3, 0.8, -0.4),
            (-0.5, 0.4, 2.0, 1.5, 0.0),
            (0.0, 0.1, 0.2, 0.2, 0.95),
        ] {
            let n = 200_000;
            let (mut sum, mut sum2) = (0.0, 0.0);
            for _ in 0..n {
                let z1: f64 = StandardNormal.sample(&mut rng);
                let z2: f64 = StandardNormal.sample(&mut rng);
                let x1 = m1 + s1 * z1;
                let x2 = m2 + s2 * (rho * z1 + (1.0f64 - rho * rho).sqrt() * z2);
                let v = x1.max(x2);
                sum += v;
                sum2 += v * v;
            }
            let mean = sum / n as f64;
            let se = ((sum2 / n as f64 - mean * mean) / n as f64).sqrt();
            let (value, _) = expected_max_of_two(m1, m2, s1 * s1, s2 * s2, rho * s1 * s2);
            assert!((value - mean).abs() < 3.0 * se, "({m1}, {m2}, {s1}, {s2}, {rho}): {value} vs MC {mean} ± {se}");
        }
    }

    /// The gradient against central differences (step 10⁻⁶, tolerance 10⁻⁶ for O(h²) and rounding
    /// errors of order ε/h), and the degenerate case θ = 0 (the same point twice).
    #[test]
    fn expected_max_of_two_gradient_and_degenerate_case() {
        let x = [0.3, -0.1, 0.7, 0.4, 0.2];
        let f = |x: &[f64; 5]| expected_max_of_two(x[0], x[1], x[2], x[3], x[4]).0;
        let (_, g) = expected_max_of_two(x[0], x[1], x[2], x[3], x[4]);
        for j in 0..5 {
            let h = 1e-6;
            let (mut xp, mut xm) = (x, x);
            xp[j] += h;
            xm[j] -= h;
            assert_abs_diff_eq!(g[j], (f(&xp) - f(&xm)) / (2.0 * h), epsilon = 1e-6);
        }
        // X₁ = X₂ almost surely: E[max] = m.
        assert_eq!(expected_max_of_two(0.4, 0.4, 0.5, 0.5, 0.5).0, 0.4);
        // Independent equal means: E[max] = m + θφ(0) = m + √(v₁+v₂)/√(2π).
        assert_relative_eq!(
            expected_max_of_two(1.0, 1.0, 1.0, 1.0, 0.0).0,
            1.0 + 2f64.sqrt() * FRAC_1_SQRT_2PI,
            max_relative = 1e-14
        );
    }
}
