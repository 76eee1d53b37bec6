use super::*;
use approx::assert_relative_eq;

fn spd(n: usize, seed: u64) -> DMatrix<f64> {
    // B Bᵀ + n I with a deterministic B.
    let b = DMatrix::from_fn(n, n, |i, j| (((i * 31 + j * 17 + seed as usize) % 23) as f64 - 11.0) / 7.0);
    &b * b.transpose() + DMatrix::identity(n, n) * n as f64
}

#[test]
fn factor_solve_logdet_against_lu() {
    let a = spd(12, 3);
    let c = Cholesky::new(&a).unwrap();
    assert_eq!(c.jitter(), 0.0);
    assert!((c.l() * c.l().transpose() - &a).abs().max() < 1e-10);
    let b = DMatrix::from_fn(12, 3, |i, j| (i as f64 - j as f64 * 0.5).sin());
    let x = c.solve(&b).unwrap();
    let x_lu = a.clone().lu().solve(&b).unwrap();
    assert!((x - x_lu).abs().max() < 1e-12);
    // Second method: log|det| from LU.
    assert_relative_eq!(c.log_det(), a.clone().lu().determinant().ln(), max_relative = 1e-12);
    let lo = c.solve_lower(&b).unwrap();
    assert!((c.l() * lo - &b).abs().max() < 1e-12);
    let up = c.solve_upper(&b).unwrap();
    assert!((c.l().transpose() * up - &b).abs().max() < 1e-12);
    // The inverse against LU's, and exactly symmetric.
    let inv = c.inverse();
    assert!((&inv - a.clone().try_inverse().unwrap()).abs().max() < 1e-13);
    assert_eq!(inv, inv.transpose());
    assert_eq!(Cholesky::new(&DMatrix::zeros(0, 0)).unwrap().inverse().nrows(), 0);
}

/// The blocked solve against LU's (a second method) at sizes below, at and across faer's
/// blocks, and with 0, 1 and many right-hand sides; and the blocked AᵀB against nalgebra's
/// dot-product `tr_mul`.
#[test]
fn blocked_solve_and_product_against_second_methods() {
    for (n, k) in [(1, 1), (7, 0), (7, 3), (64, 1), (150, 40), (301, 97)] {
        let a = spd(n, 5);
        let c = Cholesky::new(&a).unwrap();
        let b = DMatrix::from_fn(n, k, |i, j| ((i * 7 + j * 3) as f64 * 0.37).sin());
        let x = c.solve_many(&b).unwrap();
        let x_lu = a.clone().lu().solve(&b).unwrap();
        let scale = x_lu.abs().max().max(1e-300);
        assert!((&x - &x_lu).abs().max() <= 1e-12 * scale, "n = {n}, k = {k}");
        // The blocked forward half against nalgebra's substitution, and BᵀA⁻¹B = YᵀY.
        let y = c.solve_lower_many(&b).unwrap();
        let y_ref = c.solve_lower(&b).unwrap();
        assert!((&y - &y_ref).abs().max() <= 1e-12 * (1.0 + y_ref.abs().max()), "n = {n}, k = {k}");
        let half = y.tr_mul(&y);
        assert!((&half - b.tr_mul(&x_lu)).abs().max() <= 1e-11 * (1.0 + half.abs().max()), "n = {n}, k = {k}");
        let p = crate::linalg::tr_mul_blocked(&b, &x);
        assert!((&p - b.tr_mul(&x)).abs().max() <= 1e-12 * (1.0 + p.abs().max()), "n = {n}, k = {k}");
    }
    assert!(Cholesky::new(&spd(4, 1)).unwrap().solve_many(&DMatrix::zeros(3, 2)).is_err());
    assert!(Cholesky::new(&spd(4, 1)).unwrap().solve_lower_many(&DMatrix::zeros(3, 2)).is_err());
}

#[test]
fn backend_agrees_with_pure_rust() {
    // In the default build this compares the dispatcher with itself; with `--features lapack` it
    // checks dpotrf against nalgebra to 1e-10 relative.
    for n in [1, 5, 40] {
        let a = spd(n, 9);
        let got = factor_lower(&a, 0.0).unwrap();
        let pure = factor_lower_pure(&a, 0.0).unwrap();
        assert!((&got - &pure).abs().max() <= 1e-10 * pure.abs().max(), "n = {n}");
    }
}

#[test]
fn append_matches_full_factorisation() {
    let a = spd(9, 5);
    let mut c = Cholesky::new(&a.view((0, 0), (5, 5)).clone_owned()).unwrap();
    for k in 5..9 {
        c.append(&a.view((0, k), (k + 1, 1)).column(0).clone_owned()).unwrap();
    }
    let full = Cholesky::new(&a).unwrap();
    assert!((c.l() - full.l()).abs().max() < 1e-12);
}

/// Deleting rows and columns (first, middle, last, down to one) against factorising the
/// reduced matrix afresh; an index out of range is an error that leaves the factor intact.
#[test]
fn remove_matches_factorising_the_reduced_matrix() {
    let a = spd(10, 7);
    let mut kept: Vec<usize> = (0..10).collect();
    let mut c = Cholesky::new(&a).unwrap();
    for &at in &[4usize, 0, 7, 3, 5, 0, 2, 1, 0] {
        c.remove(at).unwrap();
        kept.remove(at);
        let reduced = a.select_rows(&kept).select_columns(&kept);
        let fresh = Cholesky::new(&reduced).unwrap();
        assert!((c.l() - fresh.l()).abs().max() < 1e-12 * fresh.l().abs().max(), "kept {kept:?}");
        assert!((c.l() * c.l().transpose() - &reduced).abs().max() < 1e-11 * reduced.abs().max());
    }
    assert_eq!(c.dim(), 1);
    let before = c.clone();
    assert!(matches!(c.remove(1), Err(Error::DimensionMismatch { .. })));
    assert_eq!(c, before);
    c.remove(0).unwrap();
    assert_eq!(c.dim(), 0);
}

#[test]
fn jitter_escalates_and_is_recorded() {
    // Rank-one PSD matrix: singular, needs jitter.
    let v = DVector::from_fn(6, |i, _| i as f64 + 1.0);
    let a = &v * v.transpose();
    assert!(matches!(Cholesky::new(&a), Err(Error::NotPositiveDefinite { .. })));
    let c = Cholesky::with_jitter(&a, JitterPolicy::default()).unwrap();
    assert!(c.jitter() > 0.0);
    let mut aj = a.clone();
    for i in 0..6 {
        aj[(i, i)] += c.jitter();
    }
    assert!((c.l() * c.l().transpose() - aj).abs().max() < 1e-9);
}

#[test]
fn indefinite_matrix_reports_jitter_reached() {
    let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, -1.0]);
    let err = Cholesky::with_jitter(&a, JitterPolicy::default()).unwrap_err();
    match &err {
        Error::NotPositiveDefinite { jitter, max_jitter, .. } => {
            assert!(*jitter > 0.0 && *jitter <= *max_jitter * 1.0001);
        }
        e => panic!("unexpected {e}"),
    }
    assert!(err.to_string().contains("jitter up to"));
}

#[test]
fn non_finite_and_shape_errors() {
    let mut a = spd(3, 1);
    a[(1, 1)] = f64::NAN;
    assert!(matches!(Cholesky::new(&a), Err(Error::NonFinite(_))));
    assert!(matches!(Cholesky::new(&DMatrix::zeros(2, 3)), Err(Error::DimensionMismatch { .. })));
    let c = Cholesky::new(&spd(3, 2)).unwrap();
    assert!(matches!(c.solve(&DMatrix::zeros(4, 1)), Err(Error::DimensionMismatch { .. })));
    let mut c2 = c.clone();
    assert!(c2.append(&DVector::zeros(3)).is_err());
    // Appending a dependent column fails cleanly and leaves the factor intact.
    let mut col = DVector::zeros(4);
    col[3] = -1.0;
    assert!(matches!(c2.append(&col), Err(Error::NotPositiveDefinite { .. })));
    assert_eq!(c2, c);
}

type Factoriser = fn(&DMatrix<f64>, JitterPolicy) -> Result<Cholesky>;

/// The gaxpy and the blocked (faer) factorisations against nalgebra's (`with_jitter`, a second
/// implementation) and against A itself (L Lᵀ = A + jitter·I), on SPD matrices of sizes around
/// the 4-column unrolling (1–9), 100 and 300 (several of faer's blocks), with the upper triangle
/// of the input ignored; the jitter path on a singular matrix; the errors.
#[test]
fn fast_factors_match_nalgebra_and_reconstruct_the_matrix() {
    let methods: [(&str, Factoriser); 2] =
        [("gaxpy", Cholesky::with_jitter_gaxpy), ("blocked", Cholesky::with_jitter_blocked)];
    for (name, method) in methods {
        check_fast_factor(name, method);
    }
}

/// The in-place form gives the same factor as `with_jitter_blocked`, its storage can be
/// refilled, and it refuses what is not positive definite.
#[test]
fn blocked_in_place_matches_and_recycles() {
    let a = spd(150, 4);
    let c = Cholesky::blocked_in_place(a.clone()).unwrap();
    assert_eq!(c.l(), Cholesky::with_jitter_blocked(&a, JitterPolicy::none()).unwrap().l());
    let mut buffer = c.into_storage();
    buffer.copy_from(&spd(150, 8));
    let c = Cholesky::blocked_in_place(buffer).unwrap();
    assert!((c.l() * c.l().transpose() - spd(150, 8)).amax() <= 1e-12 * spd(150, 8).amax());
    let v = DVector::from_fn(6, |i, _| i as f64 - 2.5);
    assert!(matches!(Cholesky::blocked_in_place(&v * v.transpose()), Err(Error::NotPositiveDefinite { .. })));
    assert!(matches!(Cholesky::blocked_in_place(DMatrix::zeros(2, 3)), Err(Error::DimensionMismatch { .. })));
}

fn check_fast_factor(name: &str, method: Factoriser) {
    for n in [1, 2, 3, 4, 5, 7, 8, 9, 100, 300] {
        let a = spd(n, n as u64);
        let mut garbled = a.clone();
        for j in 1..n {
            garbled[(0, j)] = 1e300; // upper triangle: never read
        }
        let fast = method(&garbled, JitterPolicy::default()).unwrap();
        let reference = Cholesky::with_jitter(&a, JitterPolicy::default()).unwrap();
        assert_eq!(fast.jitter(), 0.0);
        let scale = a.amax();
        let tol = 1e-13 * (n as f64 / 100.0).max(1.0);
        assert!((fast.l() - reference.l()).amax() <= tol * scale.sqrt(), "{name}: n = {n}");
        assert!((fast.l() * fast.l().transpose() - &a).amax() <= tol * scale, "{name}: n = {n}");
        assert!(
            fast.l().upper_triangle().iter().zip(fast.l().lower_triangle().iter()).all(|(u, l)| u == l || *u == 0.0)
        );
        assert_relative_eq!(fast.log_det(), reference.log_det(), max_relative = tol);
    }
    // Singular PSD (rank 1): a jitter is added, recorded, and L Lᵀ = A + jitter·I.
    let v = DVector::from_fn(6, |i, _| i as f64 - 2.5);
    let singular = &v * v.transpose();
    let c = method(&singular, JitterPolicy::default()).unwrap();
    assert!(c.jitter() > 0.0 && c.jitter() <= 1e-6 * singular.diagonal().mean());
    let want = &singular + DMatrix::identity(6, 6) * c.jitter();
    assert!((c.l() * c.l().transpose() - want).amax() <= 1e-12 * singular.amax());
    // Errors as `with_jitter`.
    assert!(matches!(method(&singular, JitterPolicy::none()), Err(Error::NotPositiveDefinite { size: 6, .. })));
    let mut nan = spd(3, 1);
    nan[(2, 1)] = f64::NAN;
    assert!(method(&nan, JitterPolicy::default()).is_err());
    assert!(method(&DMatrix::zeros(2, 3), JitterPolicy::default()).is_err());
    assert_eq!(method(&DMatrix::zeros(0, 0), JitterPolicy::default()).unwrap().dim(), 0);
}
