use super::*;
use bohf_core::rng::seeded;
use rand::RngExt;

/// Every function of the crate ([`FUNCTIONS`]), with the scalable ones in several dimensions.
fn all_functions() -> Vec<Box<dyn TestFunction>> {
    let mut fs: Vec<Box<dyn TestFunction>> = Vec::new();
    for entry in FUNCTIONS.iter() {
        if entry.is_scalable() {
            for d in [1, 2, 3, 5, 10] {
                if let Ok(f) = entry.build(Some(d)) {
                    fs.push(f);
                }
            }
        } else {
            fs.push(entry.build(None).unwrap());
        }
    }
    fs
}

/// The scale of a function's values near its optimum, max(1, |f*|), against which the tolerances
/// below are relative.
fn scale(o: &KnownOptimum) -> f64 {
    o.value.abs().max(1.0)
}

/// How far the double-precision f(x*) may be from the stored optimum: 10⁻¹² max(1, |f*|). That is
/// far stricter than the 10⁻⁶ the foundation issue asks for, and still loose for double precision:
/// x* is stored to the nearest double (at a stationary point an error δ in x costs only O(δ²) in
/// f; EggHolder's and Borehole's bound coordinates are exact), the stored values are within
/// 16 ε |f*| of the true ones, and evaluating these short formulas loses at most a few tens of ulps
/// (Michalewicz's sin²⁰ about 20, Cross-in-Tray's exp(≈ 99.6) about 100 before the 10th root shrinks
/// it). The largest error measured over all functions is 2·10⁻¹⁵ relative.
const VALUE_TOL: f64 = 1e-12;

/// (a) The value at every stored optimiser is the stored optimum, and the stored optimum is accurate
/// (its `precision` is within the same tolerance).
#[test]
fn value_at_each_known_optimiser_is_the_known_optimum() {
    for f in all_functions() {
        let o = f.optimum().unwrap_or_else(|| panic!("{} (d = {}) has a known optimum", f.name(), f.dim()));
        assert!(!o.points.is_empty(), "{}", f.name());
        let tol = VALUE_TOL * scale(&o);
        assert!(o.precision <= tol, "{} (d = {}): stored optimum only good to {}", f.name(), f.dim(), o.precision);
        for x in &o.points {
            assert!(f.domain().contains(x), "{}: optimiser {x:?} outside the domain", f.name());
            let v = f.value(x).unwrap();
            assert!(
                (v - o.value).abs() <= tol,
                "{} (d = {}): f({x:?}) = {v}, known optimum {}",
                f.name(),
                f.dim(),
                o.value
            );
        }
    }
}

/// Finite-difference step in unit-cube coordinates u = (x − ℓ) ⊘ (h − ℓ).
const FD_STEP: f64 = 1e-5;

/// ∂F/∂uⱼ at x, F the maximisation-convention function and u = (x − ℓ) ⊘ (h − ℓ) the unit-cube
/// coordinates (so that one tolerance fits every box, from Borehole's to EggHolder's). Inside the
/// box: the five-point central difference [8(F(u + s/2) − F(u − s/2)) − (F(u + s) − F(u − s))]/(6s)
/// (truncation error s⁴ F⁽⁵⁾/1920); on a bound: the second-order one-sided difference
/// ±[−3F(u) + 4F(u ± s) − F(u ± 2s)]/(2s) pointing into the box (truncation s² F‴/3).
fn unit_derivative(f: &dyn TestFunction, x: &[f64], j: usize, s: f64) -> f64 {
    let dom = f.domain();
    let (l, u) = (dom.lower()[j], dom.upper()[j]);
    let at = |t: f64| {
        let mut y = x.to_vec();
        y[j] = x[j] + t * (u - l);
        f.eval(&y)
    };
    if x[j] <= l {
        (-3.0 * at(0.0) + 4.0 * at(s) - at(2.0 * s)) / (2.0 * s)
    } else if x[j] >= u {
        (3.0 * at(0.0) - 4.0 * at(-s) + at(-2.0 * s)) / (2.0 * s)
    } else {
        (8.0 * (at(s / 2.0) - at(-s / 2.0)) - (at(s) - at(-s))) / (6.0 * s)
    }
}

/// The largest violation of the first-order optimality (KKT) conditions of a maximum on a box, in
/// unit-cube coordinates: |∂F/∂uⱼ| in an interior coordinate, max(0, ∂F/∂uⱼ) at a lower bound (F must
/// not increase into the box), max(0, −∂F/∂uⱼ) at an upper bound.
fn kkt_violation(f: &dyn TestFunction, x: &[f64]) -> f64 {
    let dom = f.domain();
    (0..f.dim())
        .map(|j| {
            let g = unit_derivative(f, x, j, FD_STEP);
            if x[j] <= dom.lower()[j] {
                g.max(0.0)
            } else if x[j] >= dom.upper()[j] {
                (-g).max(0.0)
            } else {
                g.abs()
            }
        })
        .fold(0.0, f64::max)
}

/// The stationarity tolerance, relative to max(1, |f*|). With s = 10⁻⁵ the five-point difference's
/// rounding error is about 3 ε |F| / s ≈ 7·10⁻¹¹ |F| (measured: at most 1.3·10⁻¹⁰ max(1, |f*|), at
/// Cross-in-Tray, whose nested exp amplifies rounding), and its truncation error is below 10⁻¹³
/// here (it is 5·10⁻¹⁰ at s = 10⁻⁴ for Michalewicz d = 10, the steepest, and scales as s⁴); 10⁻⁸ is
/// 75 times the largest. It is also sharp enough to reject every published optimiser that differs
/// from the refined one (checked below): an error δ in x gives a gradient of about λ δ.
const KKT_TOL: f64 = 1e-8;

/// Functions whose maximiser is a non-differentiable peak, where finite differences say nothing:
/// Ackley (a cone, −20 exp(−0.2‖x‖/√d)) and Bukin N.6 (a √|·| cusp across the ridge x₂ = 0.01x₁²).
const NON_SMOOTH: &[&str] = &["ackley", "bukin6"];

/// (b) Every known maximiser of a function differentiable there satisfies the first-order conditions:
/// a stationary point inside the box, the gradient pointing out of the box on a bound (EggHolder's
/// x₁ = 512, CurrinExp's x₂ = 0, Borehole's corner). And the test can fail: every published
/// optimiser that differs from the refined one violates them.
#[test]
fn each_known_optimiser_is_a_kkt_point_and_the_published_ones_are_not() {
    for f in all_functions() {
        if NON_SMOOTH.contains(&f.name()) {
            continue;
        }
        let o = f.optimum().unwrap();
        let tol = KKT_TOL * scale(&o);
        for x in &o.points {
            let v = kkt_violation(f.as_ref(), x);
            assert!(v <= tol, "{} (d = {}): KKT violation {v:e} at {x:?} (tolerance {tol:e})", f.name(), f.dim());
        }
        for (p, x) in o.published.iter().flat_map(|p| p.points.iter().zip(&o.points)) {
            if p != x {
                let v = kkt_violation(f.as_ref(), p);
                assert!(v > tol, "{} (d = {}): published {p:?} passes the KKT check ({v:e})", f.name(), f.dim());
            }
        }
    }
    // EggHolder: the outward derivative at x₁ = 512 is strictly positive and equals mpmath's
    // −∂f/∂x₁ = 3.385571337 (in x units; 1024 per unit of u). The one-sided difference's truncation
    // error s²F‴/3 is about 10⁻⁷ relative here, so compare to 10⁻⁶.
    let egg = EggHolder.optimum().unwrap();
    let outward = unit_derivative(&EggHolder, &egg.points[0], 0, FD_STEP) / 1024.0;
    assert!((outward - 3.385571337).abs() <= 1e-6 * 3.385571337, "{outward}");
}

/// (c) Consistency with the literature: each refined value lies within the published precision of
/// the published value; each published optimiser is the refined one rounded to its printed digits
/// (half a unit in the last printed digit of each coordinate), except for the documented errata; and
/// f at each published optimiser matches the published value to the published precision.
#[test]
fn refined_optima_agree_with_the_published_figures() {
    /// Published optimisers that are off by more than their printed digits, with the largest offset
    /// (refined figures in the doc comments): Hartmann-3's x₁ 0.114614 (refined 0.1145889),
    /// EggHolder's x₂ 404.2319 (404.2318051), Six-Hump Camel's x₂ ∓0.7126 (∓0.7126564, truncated
    /// rather than rounded) and Cross-in-Tray's ±1.3491 (±1.3494066).
    const ERRATA: &[(&str, f64)] =
        &[("hartmann3", 2.6e-5), ("eggholder", 9.6e-5), ("six_hump_camel", 5.7e-5), ("cross_in_tray", 3.1e-4)];
    /// Half a unit in the last digit of `c` as printed (the shortest decimal that round-trips, which
    /// is how the literals are written in the source).
    fn half_unit(c: f64) -> f64 {
        let s = format!("{c}");
        let decimals = s.split_once('.').map_or(0, |(_, frac)| frac.len());
        0.5 * 10f64.powi(-(decimals as i32))
    }
    let mut seen_errata = Vec::new();
    for f in all_functions() {
        let o = f.optimum().unwrap();
        let Some(p) = &o.published else { continue };
        assert!(
            (o.value - p.value).abs() <= p.precision,
            "{} (d = {}): refined {} vs published {} ± {}",
            f.name(),
            f.dim(),
            o.value,
            p.value,
            p.precision
        );
        assert!(p.points.is_empty() || p.points.len() == o.points.len(), "{}", f.name());
        let erratum = ERRATA.iter().find(|(n, _)| *n == f.name()).map(|e| e.1);
        for (pp, x) in p.points.iter().zip(&o.points) {
            let rounded = pp.iter().zip(x).all(|(a, b)| (a - b).abs() <= half_unit(*a));
            match erratum {
                None => assert!(rounded, "{}: published {pp:?} is not refined {x:?} rounded", f.name()),
                Some(offset) => {
                    // The erratum is real, and no larger than documented.
                    assert!(!rounded, "{}: published {pp:?} is {x:?} rounded after all", f.name());
                    let off = pp.iter().zip(x).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                    assert!(off <= offset, "{}: published point off by {off}", f.name());
                    seen_errata.push(f.name().to_string());
                }
            }
            let v = f.value(pp).unwrap();
            assert!(
                (v - p.value).abs() <= p.precision,
                "{} (d = {}): f(published {pp:?}) = {v} vs published {} ± {}",
                f.name(),
                f.dim(),
                p.value,
                p.precision
            );
        }
    }
    for (name, _) in ERRATA {
        assert!(seen_errata.iter().any(|n| n == name), "{name} has no published point");
    }
}

#[test]
#[allow(clippy::approx_constant)] // BoTorch publishes 1.57079633 (= π/2 to 8 decimals)
fn closed_form_optima_agree_with_the_published_digits() {
    // Branin: 5/(4π) vs the published 0.397887 (six decimals).
    assert!((5.0 / (4.0 * std::f64::consts::PI) - 0.397887).abs() < 0.5e-6);
    // Styblinski–Tang: the exact root of f′ vs the published −2.903534 (six decimals), and the
    // per-coordinate minimum vs BoTorch's −39.166166.
    let t = StyblinskiTang::coordinate_minimiser();
    assert!((t + 2.903534).abs() < 0.5e-6, "{t}");
    assert!((StyblinskiTang::new(1).unwrap().published(&[t]) + 39.166166).abs() < 0.5e-6);
    // Michalewicz d = 2: the computed maximiser vs BoTorch's (2.20290552, 1.57079633) (eight decimals).
    let m = Michalewicz::new(2).unwrap();
    assert!((m.minimiser()[0] - 2.20290552).abs() < 1e-8 && (m.minimiser()[1] - 1.57079633).abs() < 1e-8);
    // CurrinExp: the notes' grid estimate 13.79872 (five decimals) at (0.2165, 0) (four decimals).
    assert!((4319.0 / 313.0 - 13.79872_f64).abs() < 0.5e-5);
    assert!((13.0 / 60.0 - 0.2165_f64).abs() < 0.5e-3);
}

/// Independent evaluations: mpmath at 30 digits, from the formulas in `test-functions.md`, the SFU
/// Virtual Library and notes 002 §5.1, in the **published** form (minimisation form except
/// CurrinExp and Borehole), at generic points where no term vanishes. Relative tolerance 1e−12:
/// double-precision evaluation of these short formulas loses at most a few hundred ulps
/// (Michalewicz's sin²⁰ is the worst case).
#[test]
#[allow(clippy::excessive_precision)] // mpmath prints 17 significant digits
fn published_forms_match_independent_high_precision_values() {
    let cases: &[(&str, &[f64], f64)] = &[
        ("ackley", &[0.3, -1.7, 2.2], 7.3352854592621398),
        ("levy", &[0.3, -1.7, 2.2], 4.6820948774377553),
        ("rosenbrock", &[0.3, -1.7, 2.2], 375.8),
        ("michalewicz", &[0.7, 1.9, 2.6], -0.0027627190501828511),
        ("styblinski_tang", &[0.3, -1.7, 2.2], -44.6671),
        ("rastrigin", &[0.3, -1.7, 2.2], 40.910169943749474),
        ("branin", &[1.3, 4.1], 12.570985119627301),
        ("levy13", &[0.3, -1.7], 14.516149283687348),
        ("eggholder", &[123.4, -301.2], 177.60574105034445),
        ("six_hump_camel", &[0.3, -1.1], 1.029633),
        ("bukin6", &[-7.5, 0.8], 48.75897172404482),
        ("holder_table", &[6.3, -4.1], -0.038905589087716788),
        ("cross_in_tray", &[2.3, -4.1], -1.8051112203286512),
        ("beale", &[1.3, -0.7], 3.79548581),
        ("three_hump_camel", &[1.3, -0.7], 0.76556316666666667),
        ("drop_wave", &[0.3, -0.7], -0.017719538747389452),
        ("hartmann3", &[0.2, 0.5, 0.7], -2.3863943615672519),
        ("hartmann6", &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6], -1.4069105761385297),
        ("currin_exp", &[0.3, 0.4], 9.5343255955126702),
        ("currin_exp_low", &[0.3, 0.02], 13.310874033059383),
        ("borehole", &[0.1, 20000.0, 90000.0, 1000.0, 80.0, 760.0, 1400.0, 11000.0], 58.888168872148262),
        ("borehole_low", &[0.1, 20000.0, 90000.0, 1000.0, 80.0, 760.0, 1400.0, 11000.0], 46.861591732266741),
    ];
    for &(name, x, want) in cases {
        let f = by_name(name, Some(x.len())).unwrap();
        let got = f.published(x);
        assert!((got - want).abs() <= 1e-12 * want.abs().max(1e-300), "{name}: {got} vs {want}");
        // The sign convention, in the one place it is applied.
        let expect_max =
            if matches!(name, "currin_exp" | "currin_exp_low" | "borehole" | "borehole_low") { want } else { -want };
        assert!((f.value(x).unwrap() - expect_max).abs() <= 1e-12 * want.abs());
    }
}

/// Sample points: a full grid for d ≤ 2 (401 per axis), uniform random points otherwise, plus random
/// points within 10⁻³ of the domain width around each known optimiser.
fn sample_points(f: &dyn TestFunction, rng: &mut bohf_core::BohfRng) -> Vec<Vec<f64>> {
    let dom = f.domain();
    let mut pts: Vec<Vec<f64>> = if f.dim() <= 2 {
        let g = dom.grid(if f.dim() == 1 { 20_001 } else { 401 }).unwrap();
        (0..g.len()).map(|i| g.coords(i).unwrap()).collect()
    } else {
        (0..100_000).map(|_| dom.sample(rng)).collect()
    };
    if let Some(o) = f.optimum() {
        for x in &o.points {
            for _ in 0..2_000 {
                let y: Vec<f64> = x
                    .iter()
                    .zip(dom.lower().iter().zip(dom.upper()))
                    .map(|(&c, (&l, &u))| (c + 1e-3 * (u - l) * (2.0 * rng.random::<f64>() - 1.0)).clamp(l, u))
                    .collect();
                pts.push(y);
            }
        }
    }
    pts
}

/// (d) An independent check of the sign convention and of the optimum: no sampled point of the
/// domain beats the known maximum by more than the value tolerance [`VALUE_TOL`] (which covers the
/// stored optimum's `precision` and the rounding of f near it). With the wrong sign every function
/// here would fail (its other extreme is far above the optimum).
#[test]
fn known_optimum_is_at_least_the_max_over_a_dense_sample() {
    let mut rng = seeded(20240601);
    for f in all_functions() {
        let o = f.optimum().unwrap();
        let best =
            sample_points(f.as_ref(), &mut rng).iter().map(|x| f.value(x).unwrap()).fold(f64::NEG_INFINITY, f64::max);
        assert!(
            best <= o.value + VALUE_TOL * scale(&o),
            "{} (d = {}): sampled {best} > known maximum {}",
            f.name(),
            f.dim(),
            o.value
        );
    }
}

#[test]
fn michalewicz_refined_coordinates_beat_a_fine_grid() {
    // Separable: compare each refined coordinate i = 1..10 with a 10⁶-point grid of gᵢ on [0, π].
    for (i, &(t, g)) in Michalewicz::REFINED_COORDINATES.iter().enumerate() {
        let n = 1_000_000;
        let grid_best = (0..=n)
            .map(|k| Michalewicz::coordinate_term(i + 1, std::f64::consts::PI * k as f64 / n as f64))
            .fold(f64::NEG_INFINITY, f64::max);
        let at = Michalewicz::coordinate_term(i + 1, t);
        // The tabulated maximum is what gᵢ gives at the tabulated maximiser (sin²⁰ costs about 20
        // ulps of rounding); the grid (spacing 3·10⁻⁶) can only come within rounding of it from
        // below, and its miss is at most ½ gᵢ″ h² ≈ 10⁻⁸ for the steepest term (i = 10).
        assert!((at - g).abs() <= 1e-14, "coordinate {}: g(t*) = {at} vs tabulated {g}", i + 1);
        assert!(at >= grid_best - 1e-14 && at - grid_best < 1e-8, "coordinate {}: {at} vs grid {grid_best}", i + 1);
    }
}

#[test]
fn michalewicz_golden_section_search_finds_the_refined_coordinates() {
    // The run-time search used beyond i = 10, checked against the mpmath table: a flat maximum
    // locates t only to about √(ε / |gᵢ″|) ≈ 10⁻⁹, but the value to a few ulps.
    for (i, &(t, g)) in Michalewicz::REFINED_COORDINATES.iter().enumerate() {
        let found = super::scalable::maximise_coordinate_term(i + 1);
        assert!((found - t).abs() <= 1e-7, "coordinate {}: {found} vs {t}", i + 1);
        assert!((Michalewicz::coordinate_term(i + 1, found) - g).abs() <= 1e-14, "coordinate {}", i + 1);
    }
    // d = 11 uses the search for its last coordinate; its optimum is still a maximum of the sample.
    let m = Michalewicz::new(11).unwrap();
    assert_eq!(&m.minimiser()[..10], Michalewicz::new(10).unwrap().minimiser());
}

#[test]
fn borehole_maximum_is_the_best_corner() {
    for fid in [Fidelity::High, Fidelity::Low] {
        let f = Borehole::new(fid);
        let (lo, hi) = (Borehole::LOWER, Borehole::UPPER);
        let best = (0..256u32)
            .map(|mask| (0..8).map(|j| if mask >> j & 1 == 1 { hi[j] } else { lo[j] }).collect::<Vec<_>>())
            .max_by(|a, b| f.eval(a).total_cmp(&f.eval(b)))
            .unwrap();
        assert_eq!(best, f.optimum().unwrap().points[0], "{fid:?}");
    }
}

#[test]
fn unit_cube_and_restricted_domains() {
    let cube = Borehole::on_unit_cube(Fidelity::High);
    assert_eq!(cube.domain(), BoxDomain::cube(0.0, 1.0, 8).unwrap());
    let o = cube.optimum().unwrap();
    // The corner (max r_w, min r, …) in unit coordinates.
    assert_eq!(o.points[0], vec![1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
    let u = [0.3, 0.1, 0.7, 0.2, 0.9, 0.4, 0.5, 0.6];
    let x = cube.to_original(&u);
    assert!((cube.value(&u).unwrap() - Borehole::new(Fidelity::High).value(&x).unwrap()).abs() < 1e-12);
    for (a, b) in cube.from_original(&x).iter().zip(&u) {
        assert!((a - b).abs() < 1e-12);
    }

    let ack = WithDomain::new(Ackley::new(1).unwrap(), BoxDomain::cube(-5.0, 5.0, 1).unwrap()).unwrap();
    assert_eq!(ack.optimum().unwrap().points, vec![vec![0.0]]);
    let off = WithDomain::new(Ackley::new(1).unwrap(), BoxDomain::cube(1.0, 2.0, 1).unwrap()).unwrap();
    assert!(off.optimum().is_none());
    let holder = WithDomain::new(HolderTable, BoxDomain::cube(0.0, 10.0, 2).unwrap()).unwrap();
    let o = holder.optimum().unwrap();
    assert_eq!(o.points, vec![HolderTable.optimum().unwrap().points[0].clone()]);
    // The published optimisers are filtered alongside the refined ones.
    assert_eq!(o.published.unwrap().points, vec![vec![8.05502, 9.66459]]);
    assert!(WithDomain::new(Ackley::new(2).unwrap(), BoxDomain::cube(-1.0, 1.0, 3).unwrap()).is_err());
}

#[test]
fn lookup_by_name_and_its_errors() {
    assert_eq!(by_name("Holder_table", None).unwrap().name(), "holder_table");
    assert_eq!(by_name("HolderTable", Some(2)).unwrap().name(), "holder_table");
    assert_eq!(by_name("Bukin", None).unwrap().name(), "bukin6");
    assert_eq!(by_name("Styblinski-Tang", Some(4)).unwrap().dim(), 4);
    assert_eq!(by_name("hartmann", Some(6)).unwrap().name(), "hartmann6");
    assert_eq!(by_name("CurrinExp_low", None).unwrap().name(), "currin_exp_low");
    assert!(matches!(by_name("ackley", None), Err(Error::InvalidParameter { .. })));
    assert!(matches!(by_name("branin", Some(3)), Err(Error::DimensionMismatch { .. })));
    assert!(matches!(by_name("nonesuch", None), Err(Error::InvalidParameter { .. })));
    let e = by_name("brannin", None).err().unwrap().to_string();
    assert!(e.contains("unknown test function `brannin`") && e.ends_with("help: did you mean `branin`?"), "{e}");
    let e = by_name("nonesuch", None).err().unwrap().to_string();
    assert!(!e.contains("did you mean"), "{e}");
    assert!(matches!(by_name("rosenbrock", Some(1)), Err(Error::InvalidParameter { .. })));
    assert!(matches!(by_name("levy", Some(0)), Err(Error::InvalidParameter { .. })));
    let spec = FunctionSpec { name: "michalewicz".into(), dim: Some(5) };
    assert_eq!(spec.build().unwrap().dim(), 5);
    for f in all_functions() {
        let again = by_name(f.name(), Some(f.dim())).unwrap();
        assert_eq!((again.name(), again.dim()), (f.name(), f.dim()));
    }
}

#[test]
fn checked_value_rejects_bad_input() {
    let f = Branin;
    assert!(matches!(f.value(&[1.0]), Err(Error::DimensionMismatch { expected: 2, got: 1, .. })));
    assert!(matches!(f.value(&[1.0, f64::NAN]), Err(Error::NonFinite(_))));
    // Borehole with r < 0 (outside the box) has a NaN logarithm: reported, not returned.
    let b = Borehole::new(Fidelity::High);
    assert!(matches!(b.value(&[0.1, -5.0, 9e4, 1000.0, 80.0, 760.0, 1400.0, 11000.0]), Err(Error::NonFinite(_))));
    // CurrinExp at x₂ = −0.0 takes the limit value, not −∞.
    assert_eq!(CurrinExp::new(Fidelity::High).value(&[0.5, -0.0]).unwrap(), CurrinExp::high(0.5, 0.0));
}

#[test]
fn low_fidelity_by_name() {
    // The low fidelity of each two-fidelity function is the `_low` function of `by_name`: same
    // values at a point of each domain.
    for (name, low, x) in [
        ("currin_exp", "currin_exp_low", vec![0.3, 0.6]),
        ("Borehole", "borehole_low", vec![0.1, 2000.0, 80000.0, 1000.0, 80.0, 750.0, 1300.0, 10000.0]),
    ] {
        let a = low_fidelity(name).unwrap();
        let b = by_name(low, None).unwrap();
        assert_eq!(a.value(&x).unwrap(), b.value(&x).unwrap(), "{name}");
        assert_ne!(a.value(&x).unwrap(), by_name(name, None).unwrap().value(&x).unwrap(), "{name}");
    }
    let e = low_fidelity("branin").err().unwrap().to_string();
    assert!(e.contains("branin") && e.contains("currin_exp"), "{e}");
}

/// The table itself: every entry builds at its default dimension under its own name, with a finite
/// box and a finite value there, a finite known maximum attained inside the box; names and aliases are
/// unique as `by_name` matches them and each finds its entry; families and low fidelities name entries.
#[test]
fn every_entry_of_the_table_builds_and_the_names_are_unique() {
    let key = |n: &str| -> String { n.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect() };
    let mut seen = std::collections::BTreeMap::new();
    // The places are 0, 1, …, n − 1: none taken twice (the group modules write them).
    assert!(FUNCTIONS.iter().map(|e| usize::from(e.place)).eq(0..FUNCTIONS.len()), "places of FUNCTIONS");
    for entry in FUNCTIONS.iter() {
        let f = entry.build_default().unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        assert_eq!(f.name(), entry.name, "the built function's name is the entry's");
        if entry.is_scalable() {
            assert_eq!(f.dim(), SCALABLE_DEFAULT_DIM, "{}", entry.name);
            assert!(entry.build(None).is_err(), "{}: a scalable function needs a dimension", entry.name);
            assert_eq!(entry.listed_name(), format!("{} (d)", entry.name));
        } else {
            assert!(entry.build(Some(f.dim() + 1)).is_err(), "{}: a wrong dimension is refused", entry.name);
        }
        let dom = f.domain();
        assert_eq!(dom.dim(), f.dim(), "{}", entry.name);
        for (l, u) in dom.lower().iter().zip(dom.upper()) {
            assert!(l.is_finite() && u.is_finite() && l < u, "{}: box [{l}, {u}]", entry.name);
        }
        let centre: Vec<f64> = dom.lower().iter().zip(dom.upper()).map(|(l, u)| 0.5 * (l + u)).collect();
        assert!(f.value(&centre).unwrap().is_finite(), "{}", entry.name);
        let o = f.optimum().unwrap_or_else(|| panic!("{}: no known maximum", entry.name));
        assert!(o.value.is_finite() && !o.points.is_empty(), "{}", entry.name);
        for x in &o.points {
            assert!(dom.contains(x), "{}: maximiser {x:?} outside the box", entry.name);
        }
        for n in std::iter::once(&entry.name).chain(entry.aliases) {
            assert!(seen.insert(key(n), entry.name).is_none(), "`{n}` names two entries");
            assert_eq!(by_name(n, f.dim().into()).unwrap().name(), entry.name, "{n}");
            assert_eq!(super::entry(n).unwrap().name, entry.name, "{n}");
        }
        if let Some(family) = entry.family {
            assert!(!entry.is_scalable(), "{}: a family member has a fixed dimension", entry.name);
            assert_eq!(by_name(family, Some(f.dim())).unwrap().name(), entry.name, "{family}");
        }
        if let Some(low) = entry.low_fidelity {
            let low_entry = super::entry(low).unwrap_or_else(|| panic!("{}: no entry `{low}`", entry.name));
            assert_eq!(low_fidelity(entry.name).unwrap().name(), low_entry.name);
        }
    }
    // A family name is none of the names.
    for family in FUNCTIONS.iter().filter_map(|e| e.family) {
        assert!(!seen.contains_key(&key(family)), "{family}");
    }
    // The error's list of names is the table's, in its order.
    let e = by_name("nonesuch", None).err().unwrap().to_string();
    let listed: Vec<String> = FUNCTIONS.iter().map(FunctionEntry::listed_name).collect();
    assert!(e.contains(&format!("known: {}", listed.join(", "))), "{e}");
    assert!(e.contains("ackley (d), branin,"), "{e}");
    let e = by_name("hartmann", Some(5)).err().unwrap().to_string();
    assert!(e.contains("Hartmann is defined here for d = 3 or 6, got 5"), "{e}");
    let e = low_fidelity("branin").err().unwrap().to_string();
    assert!(e.ends_with("the two-fidelity functions are currin_exp and borehole"), "{e}");
}
