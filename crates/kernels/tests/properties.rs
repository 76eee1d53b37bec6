//! Property tests of the kernels: symmetry, positive semi-definiteness, and the dueling kernel's
//! algebra (antisymmetry, vanishing self-pairs, and the isometry ‖f‖_k = ‖h‖_{k_D}).

use bohf_core::linalg::symmetric_eigen;
use bohf_kernels::{Family, Kernel, Linear, PairKernel, Stationary, dueling_gram, dueling_value};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

fn family() -> impl Strategy<Value = Family> {
    prop_oneof![Just(Family::Se), Just(Family::Matern12), Just(Family::Matern32), Just(Family::Matern52)]
}

/// A random kernel (stationary, isotropic or ARD, or linear) on ℝ^d.
fn kernel(d: usize) -> impl Strategy<Value = Box<dyn Kernel>> {
    (family(), prop::collection::vec(0.05f64..3.0, d), 0.1f64..4.0, any::<bool>(), any::<bool>()).prop_map(
        move |(fam, ls, var, ard, linear)| -> Box<dyn Kernel> {
            if linear {
                Box::new(Linear::new(var).unwrap())
            } else if ard {
                Box::new(Stationary::new(fam, 1.0).unwrap().with_ard(ls).unwrap().with_variance(var).unwrap())
            } else {
                Box::new(Stationary::new(fam, ls[0]).unwrap().with_variance(var).unwrap())
            }
        },
    )
}

fn points(n: usize, d: usize) -> impl Strategy<Value = DMatrix<f64>> {
    prop::collection::vec(-2.0f64..2.0, n * d).prop_map(move |v| DMatrix::from_row_slice(n, d, &v))
}

fn row(x: &DMatrix<f64>, i: usize) -> Vec<f64> {
    x.row(i).iter().copied().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn gram_is_symmetric_and_psd((k, x) in (1usize..4).prop_flat_map(|d| (kernel(d), (1usize..25).prop_flat_map(move |n| points(n, d))))) {
        let g = k.gram(&x).unwrap();
        let n = g.nrows();
        prop_assert_eq!(&g, &g.transpose());
        let max_diag = g.diagonal().max().max(1e-300);
        let lambda_min = symmetric_eigen(&g).unwrap().eigenvalues[0];
        // Rounding in an n×n Gram gives eigenvalue errors of order n·ε·‖K‖; 1e-9·n·max diag is far above it.
        prop_assert!(lambda_min >= -1e-9 * n as f64 * max_diag, "λ_min = {lambda_min:e}");
    }

    #[test]
    fn dueling_gram_is_psd_antisymmetric_and_vanishes_on_self_pairs(
        (k, x, pairs) in (1usize..3).prop_flat_map(|d| (kernel(d), points(8, d), prop::collection::vec((0usize..8, 0usize..8), 1..20)))
    ) {
        let base = k.gram(&x).unwrap();
        let g = dueling_gram(&base, &pairs, &pairs).unwrap();
        let max_diag = g.diagonal().max().max(1e-300);
        let lambda_min = symmetric_eigen(&g).unwrap().eigenvalues[0];
        prop_assert!(lambda_min >= -1e-9 * pairs.len() as f64 * max_diag, "λ_min = {lambda_min:e}");
        let swapped: Vec<(usize, usize)> = pairs.iter().map(|&(a, b)| (b, a)).collect();
        let gs = dueling_gram(&base, &swapped, &pairs).unwrap();
        // k_D((x',x), z) = -k_D((x,x'), z): exact up to rounding of four additions.
        prop_assert!((gs + &g).abs().max() <= 1e-12 * (1.0 + base.abs().max()));
        let selfs: Vec<(usize, usize)> = (0..8).map(|i| (i, i)).collect();
        let g0 = dueling_gram(&base, &selfs, &pairs).unwrap();
        prop_assert!(g0.abs().max() <= 1e-12 * (1.0 + base.abs().max()));
        // Coordinates and Gram agree.
        let (a, b) = pairs[0];
        let v = dueling_value(&k, (&row(&x, a), &row(&x, b)), (&row(&x, b), &row(&x, a))).unwrap();
        prop_assert!((v + g[(0, 0)]).abs() <= 1e-12 * (1.0 + base.abs().max()));
    }

    /// For h = Σ_j β_j k_D(·, (a_j, b_j)), the utility is f = Σ_j β_j (k(·, a_j) − k(·, b_j)), and
    /// h(x, x′) = f(x) − f(x′) with ‖h‖²_{k_D} = βᵀK_Dβ equal to ‖f‖²_k = cᵀKc over the expanded points.
    #[test]
    fn dueling_norm_equals_base_norm(
        (k, x, pairs, beta, probe) in (1usize..3).prop_flat_map(|d| (
            kernel(d), points(10, d), prop::collection::vec((0usize..10, 0usize..10), 1..12),
            prop::collection::vec(-2.0f64..2.0, 12), points(2, d),
        ))
    ) {
        let t = pairs.len();
        let beta = DVector::from_fn(t, |i, _| beta[i]);
        let base = k.gram(&x).unwrap();
        let kd = dueling_gram(&base, &pairs, &pairs).unwrap();
        let h_norm2 = beta.dot(&(&kd * &beta));
        // Expansion of f on the 2t points (a_1..a_t, b_1..b_t) with coefficients (β, −β).
        let expanded = DMatrix::from_fn(2 * t, x.ncols(), |i, j| if i < t { x[(pairs[i].0, j)] } else { x[(pairs[i - t].1, j)] });
        let c = DVector::from_fn(2 * t, |i, _| if i < t { beta[i] } else { -beta[i - t] });
        let f_norm2 = c.dot(&(k.gram(&expanded).unwrap() * &c));
        let scale = 1.0 + c.abs().sum().powi(2) * base.abs().max();
        prop_assert!((h_norm2 - f_norm2).abs() <= 1e-10 * scale, "{h_norm2} vs {f_norm2}");
        // Pointwise: h(p, q) = f(p) − f(q) at two probe points.
        let (p, q) = (row(&probe, 0), row(&probe, 1));
        let f = |z: &[f64]| (0..2 * t).map(|i| c[i] * k.eval(z, &row(&expanded, i))).sum::<f64>();
        let h: f64 = (0..t).map(|j| beta[j] * PairKernel::Dueling.value(&k, (&p, &q), (&row(&x, pairs[j].0), &row(&x, pairs[j].1))).unwrap()).sum();
        prop_assert!((h - (f(&p) - f(&q))).abs() <= 1e-10 * scale);
    }

    #[test]
    fn stationary_kernels_are_bounded_by_their_variance((k, x) in (1usize..4).prop_flat_map(|d| (family(), 0.05f64..3.0, 0.1f64..4.0, points(6, d)).prop_map(|(f, l, v, x)| (Stationary::new(f, l).unwrap().with_variance(v).unwrap(), x)))) {
        let g = k.gram(&x).unwrap();
        for v in g.iter() {
            prop_assert!(*v <= k.variance() * (1.0 + 1e-15) && *v >= 0.0);
        }
    }
}
