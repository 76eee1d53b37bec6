//! Property tests of the kernels: symmetry, positive semi-definiteness, the analytic gradients
//! against central finite differences, and the dueling kernel's algebra (antisymmetry, vanishing
//! self-pairs, and the isometry ‖f‖_k = ‖h‖_{k_D}). Every strategy draws its kind from
//! [`KernelKind::ALL`], so a new kernel is covered without editing this file.

use bohf_core::linalg::symmetric_eigen;
use bohf_kernels::{Kernel, KernelKind, KernelSpec, PairKernel, Stationary, dueling_gram, dueling_value};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

fn kind() -> impl Strategy<Value = KernelKind> {
    prop::sample::select(KernelKind::ALL.to_vec())
}

fn stationary_kind() -> impl Strategy<Value = KernelKind> {
    prop::sample::select(KernelKind::ALL.into_iter().filter(|k| k.is_stationary()).collect::<Vec<_>>())
}

/// The hyperparameters of a random kernel on ℝ^d: any kind, isotropic or ARD lengthscales (none for
/// a kind without lengthscales), a variance.
#[derive(Debug, Clone)]
struct Params {
    kind: KernelKind,
    lengthscales: Vec<f64>,
    variance: f64,
}

impl Params {
    fn build(&self) -> Box<dyn Kernel> {
        let spec = KernelSpec {
            kind: self.kind,
            lengthscale: (self.lengthscales.len() == 1).then(|| self.lengthscales[0]),
            lengthscales: (self.lengthscales.len() > 1).then(|| self.lengthscales.clone()),
            variance: Some(self.variance),
        };
        spec.build().unwrap()
    }
}

fn params(d: usize) -> impl Strategy<Value = Params> {
    (kind(), prop::collection::vec(0.05f64..3.0, d), 0.1f64..4.0, any::<bool>()).prop_map(
        move |(kind, ls, variance, ard)| {
            let lengthscales = match (kind.is_stationary(), ard && d > 1) {
                (false, _) => vec![],
                (true, true) => ls,
                (true, false) => vec![ls[0]],
            };
            Params { kind, lengthscales, variance }
        },
    )
}

/// A random kernel (any kind, isotropic or ARD) on ℝ^d.
fn kernel(d: usize) -> impl Strategy<Value = Box<dyn Kernel>> {
    params(d).prop_map(|p| p.build())
}

/// Two points x, y = x + t·u: equal (t = 0), close (t ≤ 1e−2) or anywhere.
fn point_pair(d: usize) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (
        prop::collection::vec(-2.0f64..2.0, d),
        prop::collection::vec(-1.0f64..1.0, d),
        prop_oneof![Just(0.0), 1e-3f64..1e-2, 1e-2f64..2.0],
    )
        .prop_map(|(x, u, t)| {
            let y = x.iter().zip(&u).map(|(a, b)| a + t * b).collect();
            (x, y)
        })
}

/// The scaled distance ‖(x − y) ⊘ ℓ‖ (Euclidean distance for a kernel without lengthscales).
fn scaled_dist(p: &Params, x: &[f64], y: &[f64]) -> f64 {
    let l = |j: usize| if p.lengthscales.is_empty() { 1.0 } else { p.lengthscales[j.min(p.lengthscales.len() - 1)] };
    x.iter().zip(y).enumerate().map(|(j, (a, b))| ((a - b) / l(j)).powi(2)).sum::<f64>().sqrt()
}

/// The absolute part of the gradient tolerances: σ² times the scale of a derivative (1/ℓ_min for
/// the stationary kinds, 1 + max|y| for one without lengthscales).
fn grad_scale(p: &Params, y: &[f64]) -> f64 {
    let inv_l = p.lengthscales.iter().map(|l| 1.0 / l).fold(0.0, f64::max);
    p.variance * (inv_l + 1.0 + y.iter().map(|v| v.abs()).fold(0.0, f64::max))
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
    fn stationary_kernels_are_bounded_by_their_variance((k, x) in (1usize..4).prop_flat_map(|d| (stationary_kind(), 0.05f64..3.0, 0.1f64..4.0, points(6, d)).prop_map(|(f, l, v, x)| (Stationary::new(f, l).unwrap().with_variance(v).unwrap(), x)))) {
        let g = k.gram(&x).unwrap();
        for v in g.iter() {
            prop_assert!(*v <= k.variance() * (1.0 + 1e-15) && *v >= 0.0);
        }
    }

    /// ∂k(x, y)/∂x against central differences with step h = 10⁻⁴·ℓ_min·min(1, r) (r the scaled
    /// distance): truncation ~(h/(ℓr))² relative, rounding ~10⁻¹⁶σ²/h. Pairs with 0 < r < 10⁻³ are
    /// excluded: there Matérn-½'s kink at x = y makes the step too small for rounding; x = y itself
    /// is included (every central difference is 0 there by symmetry, and the gradient is 0).
    #[test]
    fn input_gradient_matches_central_differences(
        (p, (x, y)) in (1usize..4).prop_flat_map(|d| (params(d), point_pair(d)))
    ) {
        let r = scaled_dist(&p, &x, &y);
        prop_assume!(r == 0.0 || r >= 1e-3);
        let k = p.build();
        let g = k.grad_x(&x, &y);
        prop_assert_eq!(g.len(), x.len());
        let l_min = p.lengthscales.iter().copied().fold(1.0, f64::min);
        let h = 1e-4 * l_min * if r > 0.0 { r.min(1.0) } else { 1.0 };
        let scale = grad_scale(&p, &y);
        for j in 0..x.len() {
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[j] += h;
            xm[j] -= h;
            let fd = (k.eval(&xp, &y) - k.eval(&xm, &y)) / (2.0 * h);
            prop_assert!((g[j] - fd).abs() <= 1e-6 * fd.abs() + 1e-7 * scale, "{}: ∂/∂x_{j} = {} vs FD {fd}", k.name(), g[j]);
        }
    }

    /// ∂k(x, y)/∂ℓ (one entry per lengthscale: 1 isotropic, d ARD, 0 without) against central
    /// differences in each lengthscale with step 10⁻⁵·ℓ_j (k is smooth in ℓ for every kind).
    #[test]
    fn lengthscale_gradient_matches_central_differences(
        (p, (x, y)) in (1usize..4).prop_flat_map(|d| (params(d), point_pair(d)))
    ) {
        let k = p.build();
        let g = k.grad_lengthscales(&x, &y);
        prop_assert_eq!(g.len(), p.lengthscales.len());
        let scale = grad_scale(&p, &y);
        for (j, &gj) in g.iter().enumerate() {
            let h = 1e-5 * p.lengthscales[j];
            let (mut pp, mut pm) = (p.clone(), p.clone());
            pp.lengthscales[j] += h;
            pm.lengthscales[j] -= h;
            let fd = (pp.build().eval(&x, &y) - pm.build().eval(&x, &y)) / (2.0 * h);
            prop_assert!((gj - fd).abs() <= 1e-6 * fd.abs() + 1e-7 * scale, "{}: ∂/∂ℓ_{j} = {gj} vs FD {fd}", k.name());
        }
    }
}

/// At x = y Matérn-½ is not differentiable: the one-sided derivatives along e_j are ∓σ²/ℓ_j, and
/// `grad_x` returns their mean 0 (as documented).
#[test]
fn matern12_one_sided_derivatives_at_the_diagonal() {
    let k = Stationary::matern12(1.0).unwrap().with_ard(vec![0.5, 2.0]).unwrap().with_variance(3.0).unwrap();
    let x = [0.3, -0.7];
    assert_eq!(k.grad_x(&x, &x), vec![0.0, 0.0]);
    let h = 1e-7;
    for (j, l) in [0.5, 2.0].into_iter().enumerate() {
        let mut xp = x;
        xp[j] += h;
        let forward = (k.eval(&xp, &x) - k.eval(&x, &x)) / h;
        let mut xm = x;
        xm[j] -= h;
        let backward = (k.eval(&x, &x) - k.eval(&xm, &x)) / h;
        assert!((forward + 3.0 / l).abs() < 1e-5, "{forward}");
        assert!((backward - 3.0 / l).abs() < 1e-5, "{backward}");
    }
}

#[test]
fn names_show_kind_and_hyperparameters() {
    let spec = |kind, lengthscale, lengthscales, variance| KernelSpec { kind, lengthscale, lengthscales, variance };
    let m = spec(KernelKind::Matern52, Some(0.1), None, None).build().unwrap();
    assert_eq!(m.name(), "Matérn-5/2 (ℓ = 0.1)");
    let se = spec(KernelKind::Se, None, Some(vec![0.5, 2.0]), Some(3.0)).build().unwrap();
    assert_eq!(se.name(), "SE (ℓ = [0.5, 2], σ² = 3)");
    assert_eq!(spec(KernelKind::Linear, None, None, Some(2.0)).build().unwrap().name(), "linear (σ² = 2)");
    // Every kind's kernel name starts with the kind's name.
    for kind in KernelKind::ALL {
        let ls = kind.is_stationary().then_some(0.3);
        let k = spec(kind, ls, None, None).build().unwrap();
        assert!(k.name().starts_with(kind.name()), "{} vs {}", k.name(), kind.name());
    }
}
