use super::*;
use approx::assert_relative_eq;

#[test]
fn closed_forms_at_known_distances() {
    // r = |x - y| / ℓ = 1 (ℓ = 0.5, distance 0.5).
    let (x, y) = ([0.25], [0.75]);
    let e = std::f64::consts::E;
    assert_relative_eq!(Stationary::se(0.5).unwrap().eval(&x, &y), (-0.5f64).exp(), epsilon = 1e-15);
    assert_relative_eq!(Stationary::matern12(0.5).unwrap().eval(&x, &y), 1.0 / e, epsilon = 1e-15);
    let s3 = 3f64.sqrt();
    assert_relative_eq!(Stationary::matern32(0.5).unwrap().eval(&x, &y), (1.0 + s3) * (-s3).exp(), epsilon = 1e-15);
    let s5 = 5f64.sqrt();
    assert_relative_eq!(
        Stationary::matern52(0.5).unwrap().eval(&x, &y),
        (1.0 + s5 + 5.0 / 3.0) * (-s5).exp(),
        epsilon = 1e-15
    );
}

/// Issue 33, item 9: finite points so far apart that r² overflows give k = 0 (and slope 0),
/// not ∞ · 0 = NaN, for every kind; the cutoff is exact (the profiles are already 0 there).
#[test]
fn far_apart_points_give_zero_not_nan() {
    let (x, y) = ([1e200, 0.0], [-1e200, 0.0]);
    for k in [
        Stationary::se(1.0).unwrap(),
        Stationary::matern12(1.0).unwrap(),
        Stationary::matern32(1.0).unwrap(),
        Stationary::matern52(1.0).unwrap(),
    ] {
        assert_eq!(k.eval(&x, &y), 0.0, "{k:?}");
        // A subnormal lengthscale: every scaled coordinate overflows; the diagonal stays σ².
        let tiny = Stationary::new(k.kind, 1e-320).unwrap();
        let pts = DMatrix::from_row_slice(2, 1, &[1.0, 2.0]);
        assert_eq!(tiny.gram(&pts).unwrap(), DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 1.0]), "{k:?}");
        assert_eq!(tiny.cross_gram(&pts, &pts).unwrap(), tiny.gram(&pts).unwrap());
        let g = k.gram(&DMatrix::from_row_slice(2, 2, &[1e200, 0.0, -1e200, 0.0])).unwrap();
        assert!(g.iter().all(|v| v.is_finite()) && g[(0, 1)] == 0.0 && g[(0, 0)] == 1.0, "{k:?}: {g}");
        for kind in [KernelKind::Se, KernelKind::Matern12, KernelKind::Matern32, KernelKind::Matern52] {
            assert_eq!(profile_sq(kind, FAR_R2 * 0.999_999), 0.0, "{kind:?}: continuous at the cutoff");
            assert_eq!(profile_slope_sq(kind, f64::INFINITY), 0.0);
            assert_eq!(profile_slope_from_value(kind, f64::INFINITY, 0.0), 0.0);
        }
    }
}

#[test]
fn matern_matches_bessel_form() {
    // General Matérn: (2^{1-ν}/Γ(ν)) (√(2ν) r)^ν K_ν(√(2ν) r). For half-integer ν,
    // K_{1/2}(z) = √(π/2z) e^{-z}, K_{3/2}(z) = √(π/2z) e^{-z}(1 + 1/z),
    // K_{5/2}(z) = √(π/2z) e^{-z}(1 + 3/z + 3/z²).
    use std::f64::consts::PI;
    let gamma = |nu: f64| {
        if nu == 0.5 {
            PI.sqrt()
        } else if nu == 1.5 {
            PI.sqrt() / 2.0
        } else {
            3.0 * PI.sqrt() / 4.0
        }
    };
    let bessel_k = |nu: f64, z: f64| {
        let base = (PI / (2.0 * z)).sqrt() * (-z).exp();
        if nu == 0.5 {
            base
        } else if nu == 1.5 {
            base * (1.0 + 1.0 / z)
        } else {
            base * (1.0 + 3.0 / z + 3.0 / (z * z))
        }
    };
    for kind in KernelKind::ALL {
        let crate::Smoothness::Matern { nu } = kind.smoothness() else { continue };
        for r in [0.05, 0.3, 1.0, 2.7] {
            let z = (2.0 * nu).sqrt() * r;
            let general = 2f64.powf(1.0 - nu) / gamma(nu) * z.powf(nu) * bessel_k(nu, z);
            assert_relative_eq!(profile_sq(kind, r * r), general, max_relative = 1e-12);
        }
    }
}

#[test]
fn ard_scales_each_dimension() {
    let k = Stationary::se(1.0).unwrap().with_ard(vec![0.5, 2.0]).unwrap().with_variance(3.0).unwrap();
    let v = k.eval(&[0.0, 0.0], &[0.5, 2.0]);
    assert_relative_eq!(v, 3.0 * (-1.0f64).exp(), epsilon = 1e-14);
    assert!(matches!(k.value(&[0.0], &[0.0]), Err(Error::DimensionMismatch { .. })));
}

#[test]
fn invalid_hyperparameters_name_the_field() {
    let e = Stationary::se(0.0).unwrap_err();
    assert!(e.to_string().contains("`lengthscale`"), "{e}");
    let e = Stationary::matern52(f64::NAN).unwrap_err();
    assert!(e.to_string().contains("`lengthscale`"), "{e}");
    let e = Stationary::se(1.0).unwrap().with_variance(-1.0).unwrap_err();
    assert!(e.to_string().contains("`variance`"), "{e}");
    let e = Stationary::se(1.0).unwrap().with_ard(vec![1.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("`lengthscales[1]`"), "{e}");
    assert!(Linear::new(0.0).unwrap_err().to_string().contains("`variance`"));
    let e = Stationary::new(KernelKind::Linear, 1.0).unwrap_err();
    assert!(e.to_string().contains("`kind`") && e.to_string().contains("linear"), "{e}");
}

#[test]
fn log_lengthscale_contractions_match_central_differences() {
    // Seven points in 3-D; the last duplicates row 2 (r = 0 off the diagonal).
    let mut x = DMatrix::from_fn(7, 3, |i, j| ((i * 5 + j * 3) % 7) as f64 / 3.0 + 0.1 * (i * j) as f64);
    let dup: Vec<f64> = x.row(2).iter().copied().collect();
    x.row_mut(6).copy_from_slice(&dup);
    // A non-symmetric weight matrix: every entry counts.
    let q = DMatrix::from_fn(7, 7, |i, k| ((i * 3 + k * 5) as f64 * 0.731).sin());
    for kind in KernelKind::ALL.into_iter().filter(|k| k.is_stationary()) {
        for ard in [true, false] {
            let build = |ls: &[f64]| {
                let k = Stationary::new(kind, ls[0]).unwrap().with_variance(1.7).unwrap();
                if ard { k.with_ard(ls.to_vec()).unwrap() } else { k }
            };
            let base = if ard { vec![0.5, 1.3, 2.0] } else { vec![0.8] };
            let c = build(&base).log_lengthscale_grad_contraction(&x, &q).unwrap();
            assert_eq!(c.len(), base.len());
            let h = 1e-6;
            for (j, cj) in c.iter().enumerate() {
                let shifted = |s: f64| {
                    let mut l = base.clone();
                    l[j] *= s.exp();
                    build(&l).gram(&x).unwrap()
                };
                let fd = (shifted(h) - shifted(-h)).dot(&q) / (2.0 * h);
                // Central differences: truncation O(h²) ≈ 1e-12 and rounding ≈ 49·1e-16/h ≈ 1e-8.
                assert!((cj - fd).abs() < 1e-7 * (1.0 + fd.abs()), "{kind:?} ard={ard} j={j}: {cj} vs {fd}");
                assert!(fd.abs() > 1e-3, "a vanishing contraction would pass trivially");
            }
            // Weight only on the duplicated pair: r = 0 there, so nothing.
            let mut only_dup = DMatrix::zeros(7, 7);
            only_dup[(2, 6)] = 1.0;
            assert!(build(&base).log_lengthscale_grad_contraction(&x, &only_dup).unwrap().iter().all(|v| *v == 0.0));
        }
    }
    let k = Stationary::se(0.5).unwrap();
    assert!(k.log_lengthscale_grad_contraction(&x, &DMatrix::zeros(6, 7)).is_err());
}

#[test]
fn fast_gram_paths_match_pointwise_evaluation() {
    let x = DMatrix::from_fn(7, 3, |i, j| ((i * 5 + j * 3) % 7) as f64 / 3.0);
    let y = DMatrix::from_fn(4, 3, |i, j| ((i + j * 2) % 5) as f64 / 4.0);
    let kernels: Vec<Box<dyn Kernel>> = vec![
        Box::new(Stationary::matern32(0.7).unwrap().with_ard(vec![0.5, 1.0, 2.0]).unwrap()),
        Box::new(Stationary::se(0.4).unwrap().with_variance(2.0).unwrap()),
        Box::new(Linear::new(0.5).unwrap()),
    ];
    for k in kernels {
        let g = k.gram(&x).unwrap();
        let c = k.cross_gram(&x, &y).unwrap();
        let dg = k.diagonal(&x).unwrap();
        for i in 0..7 {
            let xi: Vec<f64> = x.row(i).iter().copied().collect();
            assert_relative_eq!(dg[i], k.eval(&xi, &xi), epsilon = 1e-14);
            for j in 0..7 {
                let xj: Vec<f64> = x.row(j).iter().copied().collect();
                assert_relative_eq!(g[(i, j)], k.eval(&xi, &xj), epsilon = 1e-14);
            }
            for j in 0..4 {
                let yj: Vec<f64> = y.row(j).iter().copied().collect();
                assert_relative_eq!(c[(i, j)], k.eval(&xi, &yj), epsilon = 1e-14);
            }
        }
    }
}

/// The from-values shortcuts (ψ from φ, no second exponential) against the direct computations
/// (`log_lengthscale_grad_contraction`, `grad_x`, which evaluate ψ by its own exponential), for
/// every stationary kind, isotropic and ARD, with a duplicated point (r = 0) and a far pair
/// (φ underflows to 0 for SE).
#[test]
fn from_value_shortcuts_match_direct_computations() {
    let x = DMatrix::from_row_slice(6, 2, &[0.1, 0.2, 0.4, 0.9, 0.1, 0.2, 0.75, 0.3, 0.5, 0.5, 60.0, -40.0]);
    let q = DMatrix::from_fn(6, 6, |i, j| ((i * 7 + j * 3) % 5) as f64 - 2.0 + 0.1 * i as f64);
    for kind in [KernelKind::Se, KernelKind::Matern12, KernelKind::Matern32, KernelKind::Matern52] {
        for k in [
            Stationary::new(kind, 0.3).unwrap().with_variance(2.5).unwrap(),
            Stationary::new(kind, 0.3).unwrap().with_ard(vec![0.3, 0.7]).unwrap().with_variance(0.4).unwrap(),
        ] {
            let gram = k.gram(&x).unwrap();
            let direct = k.log_lengthscale_grad_contraction(&x, &q).unwrap();
            let shortcut = k.log_lengthscale_grad_contraction_with_gram(&x, &q, &gram).unwrap();
            for (a, b) in direct.iter().zip(&shortcut) {
                assert_relative_eq!(a, b, max_relative = 1e-12, epsilon = 1e-14);
            }
            let p = [0.45, 0.25];
            let kx = k.cross_gram(&DMatrix::from_row_slice(1, 2, &p), &x).unwrap();
            let rows = k.grad_x_rows_with_values(&p, &x, kx.as_slice()).unwrap();
            for r in 0..x.nrows() {
                let y: Vec<f64> = x.row(r).iter().copied().collect();
                let g = k.grad_x(&p, &y);
                for j in 0..2 {
                    assert_relative_eq!(rows[(r, j)], g[j], max_relative = 1e-12, epsilon = 1e-15);
                }
            }
            // At a latent point itself (r = 0) the gradient is 0, as grad_x's.
            let at = k.grad_x_rows_with_values(&[0.1, 0.2], &x, gram.column(0).as_slice()).unwrap();
            assert_eq!((at[(0, 0)], at[(0, 1)], at[(2, 0)]), (0.0, 0.0, 0.0));
        }
    }
    // Shape errors, not panics.
    let k = Stationary::se(0.5).unwrap();
    assert!(k.log_lengthscale_grad_contraction_with_gram(&x, &q, &DMatrix::zeros(5, 6)).is_err());
    assert!(k.grad_x_rows_with_values(&[0.1, 0.2], &x, &[1.0; 5]).is_err());
    assert!(k.grad_x_rows_with_values(&[0.1], &x, &[1.0; 6]).is_err());
}
