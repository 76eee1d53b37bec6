use super::*;
use bohf_core::rng::seeded;
use rand::RngExt;

/// Every function of the crate, with the scalable ones in several dimensions.
fn all_functions() -> Vec<Box<dyn TestFunction>> {
    let mut fs: Vec<Box<dyn TestFunction>> = Vec::new();
    for name in NAMES {
        let name = name.trim_end_matches(" (d)");
        if NAMES.contains(&format!("{name} (d)").as_str()) {
            for d in [1, 2, 3, 5, 10] {
                if let Ok(f) = by_name(name, Some(d)) {
                    fs.push(f);
                }
            }
        } else {
            fs.push(by_name(name, None).unwrap());
        }
    }
    fs
}

/// How far f(x*) may be from the known optimum: the published precision (half a unit in the last
/// published digit; the published optimisers are rounded too, but at an interior optimum that costs
/// only a second-order amount, below 1e−7 for every function here), or 1e−9 relative for exact
/// values (a few ulps of rounding in the formulas).
fn optimum_tolerance(o: &KnownOptimum) -> f64 {
    if o.precision == 0.0 { 1e-9 * o.value.abs().max(1.0) } else { o.precision }
}

#[test]
fn value_at_each_known_optimiser_is_the_known_optimum() {
    for f in all_functions() {
        let o = f.optimum().unwrap_or_else(|| panic!("{} (d = {}) has a known optimum", f.name(), f.dim()));
        assert!(!o.points.is_empty(), "{}", f.name());
        for x in &o.points {
            assert!(f.domain().contains(x), "{}: optimiser {x:?} outside the domain", f.name());
            let v = f.value(x).unwrap();
            assert!(
                (v - o.value).abs() <= optimum_tolerance(&o),
                "{} (d = {}): f({x:?}) = {v}, known optimum {} ± {}",
                f.name(),
                f.dim(),
                o.value,
                o.precision
            );
        }
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

/// An independent check of the sign convention and of the optimum: no sampled point of the domain
/// beats the known maximum (by more than its published precision). With the wrong sign every
/// function here would fail (its other extreme is far above the optimum).
#[test]
fn known_optimum_is_at_least_the_max_over_a_dense_sample() {
    let mut rng = seeded(20240601);
    for f in all_functions() {
        let o = f.optimum().unwrap();
        let best =
            sample_points(f.as_ref(), &mut rng).iter().map(|x| f.value(x).unwrap()).fold(f64::NEG_INFINITY, f64::max);
        assert!(
            best <= o.value + o.precision + 1e-9 * o.value.abs().max(1.0),
            "{} (d = {}): sampled {best} > known maximum {}",
            f.name(),
            f.dim(),
            o.value
        );
    }
}

#[test]
fn michalewicz_computed_optimum_beats_a_fine_grid_per_coordinate() {
    // Separable: for d = 3 compare each computed coordinate with a 10⁶-point grid of gᵢ on [0, π].
    let m = Michalewicz::new(3).unwrap();
    for (i, &t) in m.minimiser().iter().enumerate() {
        let n = 1_000_000;
        let grid_best = (0..=n)
            .map(|k| Michalewicz::coordinate_term(i + 1, std::f64::consts::PI * k as f64 / n as f64))
            .fold(f64::NEG_INFINITY, f64::max);
        let at = Michalewicz::coordinate_term(i + 1, t);
        // The grid's spacing 3·10⁻⁶ leaves it below the true peak by O(10⁻⁹); the refined point must
        // be at least as good, and not better than the grid by more than that.
        assert!(at >= grid_best - 1e-15 && at - grid_best < 1e-8, "coordinate {i}: {at} vs grid {grid_best}");
    }
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
    assert_eq!(holder.optimum().unwrap().points, vec![vec![8.05502, 9.66459]]);
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
