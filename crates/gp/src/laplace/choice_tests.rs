//! Best-of-k choice observations in the Laplace preference GP, each against an independent
//! computation: the logistic duel (k = 2), finite differences, a generic optimiser, the dense
//! evidence formula.

use super::model::likelihood_at;
use super::*;
use bohf_core::rand::RngExt;
use bohf_core::{Choice, Comparison, Duel, Error, Link};
use bohf_kernels::{Kernel, KernelKind, Stationary};
use bohf_optim::{LocalConfig, minimize_bounded};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

fn cfg(link: Link, scale: f64) -> ValidLaplaceConfig {
    LaplaceConfig { link, scale, newton_tolerance: 1e-13, ..LaplaceConfig::default() }.check().unwrap()
}

fn ard(kind: KernelKind, ls: &[f64], var: f64) -> Stationary {
    Stationary::new(kind, ls[0]).unwrap().with_ard(ls.to_vec()).unwrap().with_variance(var).unwrap()
}

/// `n` random candidates in [0, 1]^d, `t` random duels and `c` random best-of-k choices
/// (k ∈ [2, min(n, 5)], distinct options), interleaved, answered by a noisy comparison of
/// u(x) = sin(3 x₀) + Σ x_j² (the choices by the multinomial logit at scale 0.3, drawn by hand).
/// A checked choice as a comparison (the tests' options are distinct, the position in range).
fn choice<P: PartialEq + std::fmt::Debug>(options: Vec<P>, chosen: usize) -> Comparison<P> {
    Choice::new(options, chosen).unwrap().into()
}

fn mixed_problem(seed: u64, n: usize, d: usize, t: usize, c: usize) -> (DMatrix<f64>, Vec<Comparison>) {
    let mut r = bohf_core::rng::seeded(seed);
    let x = DMatrix::from_fn(n, d, |_, _| r.random::<f64>());
    let u = |i: usize| (3.0 * x[(i, 0)]).sin() + x.row(i).iter().map(|v| v * v).sum::<f64>();
    let mut out = Vec::new();
    for k in 0..t.max(c) {
        if k < t {
            let (a, b) = (r.random_range(0..n), r.random_range(0..n));
            let p = Link::Probit.mu((u(a) - u(b)) / 0.3);
            out.push(Duel::new(a, b, r.random::<f64>() < p).into());
        }
        if k < c {
            let size = r.random_range(2..=n.min(5));
            let mut options: Vec<usize> = Vec::new();
            while options.len() < size {
                let o = r.random_range(0..n);
                if !options.contains(&o) {
                    options.push(o);
                }
            }
            let w: Vec<f64> = options.iter().map(|&o| (u(o) / 0.3).exp()).collect();
            let mut v = r.random::<f64>() * w.iter().sum::<f64>();
            let mut chosen = size - 1;
            for (j, wj) in w.iter().enumerate() {
                if v < *wj {
                    chosen = j;
                    break;
                }
                v -= wj;
            }
            out.push(choice(options, chosen));
        }
    }
    (x, out)
}

/// The comparisons in latent indices (the data's numbering by first appearance).
fn latent_comparisons(data: &PreferenceData, comparisons: &[Comparison]) -> Vec<Comparison> {
    let order = data.candidate_indices().unwrap();
    let l = |c: usize| order.iter().position(|&o| o == c).unwrap();
    comparisons
        .iter()
        .map(|c| match c {
            Comparison::Duel(d) => Comparison::Duel(d.map(|&o| l(o))),
            Comparison::Choice(c) => choice(c.options().iter().map(|&o| l(o)).collect(), c.chosen()),
        })
        .collect()
}

/// An independent log-likelihood, comparison by comparison (no aggregation): duels
/// log μ(±(f_a − f_b)/s), choices f_c/s − log Σ_j exp(f_j/s) written out directly; and its
/// gradient ((e_c − p)/s for a choice).
fn loglik_by_hand(link: Link, s: f64, comparisons: &[Comparison], f: &[f64]) -> (f64, Vec<f64>) {
    let mut value = 0.0;
    let mut grad = vec![0.0; f.len()];
    for c in comparisons {
        match c {
            Comparison::Duel(d) => {
                let sign = if d.first_wins { 1.0 } else { -1.0 };
                let z = sign * (f[d.first] - f[d.second]) / s;
                value += link.log_mu(z);
                let g = link.dmu(z) / link.mu(z) * sign / s;
                grad[d.first] += g;
                grad[d.second] -= g;
            }
            Comparison::Choice(c) => {
                let options = c.options();
                let e: Vec<f64> = options.iter().map(|&o| (f[o] / s).exp()).collect();
                let z: f64 = e.iter().sum();
                value += f[c.winner()] / s - z.ln();
                grad[c.winner()] += 1.0 / s;
                for (&o, ej) in options.iter().zip(&e) {
                    grad[o] -= ej / z / s;
                }
            }
        }
    }
    (value, grad)
}

#[test]
fn a_two_option_choice_is_the_logistic_duel() {
    // Duels with the logistic link at scale s, and the same answers as 2-option choices: the
    // multinomial logit at k = 2 is σ((f_c − f_other)/s), so the likelihood, its gradient and W,
    // the MAP, the evidence and its gradient, and the posterior agree (up to rounding: the two
    // paths compute through different formulas).
    let s = 0.8;
    let mut r = bohf_core::rng::seeded(21);
    let x = DMatrix::from_fn(7, 2, |_, _| r.random::<f64>());
    let mut duels = Vec::new();
    while duels.len() < 25 {
        let (a, b) = (r.random_range(0..7), r.random_range(0..7));
        if a != b {
            duels.push(Duel::new(a, b, r.random::<f64>() < 0.6));
        }
    }
    let as_choices: Vec<Comparison> =
        duels.iter().map(|d| choice(vec![d.first, d.second], usize::from(!d.first_wins))).collect();
    let dd = PreferenceData::from_candidates(&x, &duels).unwrap();
    let dc = PreferenceData::from_candidate_comparisons(&x, &as_choices).unwrap();
    assert!(dc.pairs().is_empty() && !dc.choices().is_empty() && dc.choice_count() == 25);
    assert_eq!(dd.candidate_indices(), dc.candidate_indices());
    let c = cfg(Link::Logistic, s);
    // Likelihood pieces at a random f.
    let f = DVector::from_fn(dd.len(), |_, _| r.random::<f64>() * 2.0 - 1.0);
    let (ld, wd, gd) = likelihood_at(c.config(), &dd, &f);
    let (lc, wc, gc) = likelihood_at(c.config(), &dc, &f);
    assert!((ld - lc).abs() < 1e-12 * ld.abs().max(1.0), "{ld} vs {lc}");
    assert!((&gd - &gc).amax() < 1e-12);
    let dense = |data: &PreferenceData, w: &[f64]| {
        let mut m = DMatrix::<f64>::zeros(data.len(), data.len());
        for (&(i, j), wk) in data.difference_rows().iter().zip(w) {
            m[(i, i)] += wk;
            m[(j, j)] += wk;
            m[(i, j)] -= wk;
            m[(j, i)] -= wk;
        }
        m
    };
    assert!((dense(&dd, &wd) - dense(&dc, &wc)).amax() < 1e-12);
    let k = ard(KernelKind::Matern52, &[0.4, 0.6], 1.5);
    let gpd = LaplacePreferenceGp::fit(k.clone(), dd, &c).unwrap();
    let gpc = LaplacePreferenceGp::fit(k, dc, &c).unwrap();
    assert!((gpd.utilities() - gpc.utilities()).amax() < 1e-10);
    assert!((gpd.log_evidence() - gpc.log_evidence()).abs() < 1e-10);
    let (ed, ec) = (gpd.log_evidence_gradient().unwrap(), gpc.log_evidence_gradient().unwrap());
    for (a, b) in ed.iter().zip(&ec) {
        assert!((a - b).abs() < 1e-9, "{ed:?} vs {ec:?}");
    }
    let xs = DMatrix::from_fn(5, 2, |_, _| r.random::<f64>());
    assert!((gpd.mean(&xs).unwrap() - gpc.mean(&xs).unwrap()).amax() < 1e-10);
    assert!((gpd.covariance(&xs).unwrap() - gpc.covariance(&xs).unwrap()).amax() < 1e-10);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// The log-likelihood of mixed duels and choices equals the comparison-by-comparison sum; its
    /// gradient matches central differences of that sum, and W = Dᵀ diag(w) D matches central
    /// differences of the gradient (−∇∇ log p), with repeated and merged-multiplicity-free options.
    #[test]
    fn choice_likelihood_gradient_and_hessian_match_finite_differences(
        seed in 0u64..10_000,
        n in 2usize..8,
        t in 0usize..6,
        c in 1usize..10,
        probit in any::<bool>(),
        scale in 0.3f64..2.0,
        spread in 0.1f64..4.0,
    ) {
        let link = if probit { Link::Probit } else { Link::Logistic };
        let (x, comparisons) = mixed_problem(seed, n, 1, t, c);
        let data = PreferenceData::from_candidate_comparisons(&x, &comparisons).unwrap();
        let latent = latent_comparisons(&data, &comparisons);
        let mut r = bohf_core::rng::seeded(seed + 1);
        let f: Vec<f64> = (0..data.len()).map(|_| spread * (r.random::<f64>() * 2.0 - 1.0)).collect();
        let config = cfg(link, scale);
        let fv = DVector::from_column_slice(&f);
        let (value, w, grad) = likelihood_at(config.config(), &data, &fv);
        // Self-duels are dropped with their constant log ½ (PreferenceData's rule).
        let (by_hand, _) = loglik_by_hand(link, scale, &latent, &f);
        let dropped = data.dropped_self_duels() as f64 * std::f64::consts::LN_2;
        prop_assert!((value - (by_hand + dropped)).abs() < 1e-10 * (1.0 + by_hand.abs()), "{} vs {}", value, by_hand);
        let h = 1e-6;
        for m in 0..f.len() {
            let (mut up, mut dn) = (f.clone(), f.clone());
            up[m] += h;
            dn[m] -= h;
            let fd = (loglik_by_hand(link, scale, &latent, &up).0 - loglik_by_hand(link, scale, &latent, &dn).0) / (2.0 * h);
            prop_assert!((grad[m] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "∂/∂f_{}: {} vs FD {}", m, grad[m], fd);
        }
        let nl = data.len();
        let mut wm = DMatrix::<f64>::zeros(nl, nl);
        for (&(i, j), wk) in data.difference_rows().iter().zip(&w) {
            prop_assert!(*wk >= 0.0);
            wm[(i, i)] += wk;
            wm[(j, j)] += wk;
            wm[(i, j)] -= wk;
            wm[(j, i)] -= wk;
        }
        let h = 1e-5;
        for m in 0..nl {
            let (mut up, mut dn) = (f.clone(), f.clone());
            up[m] += h;
            dn[m] -= h;
            let gu = loglik_by_hand(link, scale, &latent, &up).1;
            let gd = loglik_by_hand(link, scale, &latent, &dn).1;
            for i in 0..nl {
                let fd = -(gu[i] - gd[i]) / (2.0 * h);
                prop_assert!((wm[(i, m)] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "W[{},{}]: {} vs FD {}", i, m, wm[(i, m)], fd);
            }
        }
    }

    /// The evidence gradient with choice data (mixed with duels) against central differences of the
    /// evidence in the log hyperparameters.
    #[test]
    fn evidence_gradient_with_choices_matches_central_differences(
        seed in 0u64..10_000,
        n in 3usize..8,
        t in 0usize..5,
        c in 1usize..8,
        probit in any::<bool>(),
        kind in prop::sample::select(vec![KernelKind::Se, KernelKind::Matern52]),
        log_ls in prop::collection::vec(-1.6f64..1.0, 2),
        log_var in -1.5f64..2.0,
    ) {
        let (x, comparisons) = mixed_problem(seed, n, 2, t, c);
        let data = PreferenceData::from_candidate_comparisons(&x, &comparisons).unwrap();
        let config = cfg(if probit { Link::Probit } else { Link::Logistic }, if probit { std::f64::consts::SQRT_2 } else { 1.0 });
        let mut theta = log_ls.clone();
        theta.push(log_var);
        let model = |t: &[f64]| {
            let ls: Vec<f64> = t[..2].iter().map(|v| v.exp()).collect();
            LaplacePreferenceGp::fit(ard(kind, &ls, t[2].exp()), data.clone(), &config).unwrap()
        };
        let g = model(&theta).log_evidence_gradient().unwrap();
        let h = 1e-5;
        for p in 0..3 {
            let (mut up, mut dn) = (theta.clone(), theta.clone());
            up[p] += h;
            dn[p] -= h;
            let fd = (model(&up).log_evidence() - model(&dn).log_evidence()) / (2.0 * h);
            prop_assert!((g[p] - fd).abs() <= 1e-6 * (1.0 + fd.abs()), "θ_{}: analytic {} vs FD {}", p, g[p], fd);
        }
    }
}

#[test]
fn map_and_evidence_with_choices_match_a_generic_optimiser_and_the_dense_formula() {
    for link in [Link::Probit, Link::Logistic] {
        let (x, comparisons) = mixed_problem(5, 7, 2, 8, 10);
        let data = PreferenceData::from_candidate_comparisons(&x, &comparisons).unwrap();
        let latent = latent_comparisons(&data, &comparisons);
        let s = 1.2;
        let kernel = ard(KernelKind::Se, &[0.4, 0.7], 1.7);
        let gp = LaplacePreferenceGp::fit(kernel.clone(), data.clone(), &cfg(link, s)).unwrap();
        let k = kernel.gram(data.points()).unwrap();
        let kinv = k.clone().try_inverse().unwrap();
        let n = data.len();
        // Independent: L-BFGS on −Ψ(f) = −(log p(y | f) − ½ fᵀK⁻¹f), comparison by comparison.
        let psi = |f: &[f64]| {
            let (l, g) = loglik_by_hand(link, s, &latent, f);
            let fv = DVector::from_column_slice(f);
            let kf = &kinv * &fv;
            (l - 0.5 * fv.dot(&kf), g.iter().zip(kf.iter()).map(|(a, b)| a - b).collect::<Vec<f64>>())
        };
        let local = LocalConfig {
            gradient_tolerance: 1e-11,
            value_tolerance: 0.0,
            max_iterations: 2000,
            ..LocalConfig::default()
        };
        let r = minimize_bounded(
            |f: &[f64], g: &mut [f64]| {
                let (v, gr) = psi(f);
                for (gi, v) in g.iter_mut().zip(gr) {
                    *gi = -v;
                }
                Ok(-v)
            },
            &vec![0.0; n],
            &vec![-30.0; n],
            &vec![30.0; n],
            &local,
        )
        .unwrap();
        for i in 0..n {
            assert!((gp.utilities()[i] - r.x[i]).abs() < 1e-6, "{link:?} f[{i}]: {} vs {}", gp.utilities()[i], r.x[i]);
        }
        assert!(psi(gp.utilities().as_slice()).0 >= -r.value - 1e-10);
        // The evidence: −½ f̂ᵀK⁻¹f̂ + log p(y | f̂) − ½ log det(I + K W), W by central differences of
        // the hand-written gradient (GPML eq. (3.32)); self-duels' constants are excluded.
        let f: Vec<f64> = gp.utilities().iter().copied().collect();
        let h = 1e-5;
        let w = DMatrix::from_fn(n, n, |i, j| {
            let (mut up, mut dn) = (f.clone(), f.clone());
            up[j] += h;
            dn[j] -= h;
            -(loglik_by_hand(link, s, &latent, &up).1[i] - loglik_by_hand(link, s, &latent, &dn).1[i]) / (2.0 * h)
        });
        let dropped = data.dropped_self_duels() as f64 * std::f64::consts::LN_2;
        let dense = psi(&f).0 + dropped - 0.5 * (DMatrix::identity(n, n) + &k * &w).determinant().ln();
        assert!((gp.log_evidence() - dense).abs() < 1e-7, "{link:?}: {} vs {dense}", gp.log_evidence());
        let sigma = (&kinv + &w).try_inverse().unwrap();
        assert!((gp.latent_covariance().unwrap() - sigma).abs().max() < 1e-7);
    }
}

#[test]
fn repeated_choices_aggregate_and_merged_options_keep_multiplicities() {
    let x = DMatrix::from_row_slice(4, 1, &[0.1, 0.4, 0.7, 0.9]);
    let ch = choice::<usize>;
    // The same set {0, 1, 2} in three orders: one block with wins per option.
    let comps = vec![ch(vec![2, 0, 1], 0), ch(vec![0, 1, 2], 2), ch(vec![1, 2, 0], 2), ch(vec![1, 3], 0)];
    let data = PreferenceData::from_candidate_comparisons(&x, &comps).unwrap();
    // Latent order of first appearance: candidates 2, 0, 1, 3 → latent 0, 1, 2, 3.
    assert_eq!(data.candidate_indices(), Some(&[2, 0, 1, 3][..]));
    assert_eq!(
        data.choices(),
        &[
            ChoiceCounts { options: vec![0, 1, 2], multiplicity: vec![1; 3], wins: vec![2, 1, 0] },
            ChoiceCounts { options: vec![2, 3], multiplicity: vec![1; 2], wins: vec![1, 0] },
        ]
    );
    assert_eq!(data.difference_rows(), vec![(0, 1), (0, 2), (1, 2), (2, 3)]);
    // On a box, options within the tolerance merge: the choice keeps them with multiplicity 2, and its
    // likelihood is that of choosing either of the two merged options, P = 2e^{f₀}/(2e^{f₀} + e^{f₁})
    // (the k = 3 choice with two equal utilities, up to the constant log 2 of the chosen copy);
    // all-merged choices are dropped.
    let p = |v: f64| vec![v, 0.5];
    let eps = 1e-12;
    let comps = vec![
        choice(vec![p(0.2), p(0.2 + eps), p(0.8)], 1),
        choice(vec![p(0.8), p(0.8 + eps)], 0),
        Comparison::Duel(Duel { first: p(0.2), second: p(0.8), first_wins: false }),
    ];
    let data = PreferenceData::from_point_comparisons(&comps, 1e-9).unwrap();
    assert_eq!((data.len(), data.choice_count(), data.dropped_choices()), (2, 2, 1));
    assert_eq!(data.choices(), &[ChoiceCounts { options: vec![0, 1], multiplicity: vec![2, 1], wins: vec![1, 0] }]);
    let f = DVector::from_vec(vec![0.3, -0.4]);
    let (l, _, g) = likelihood_at(cfg(Link::Logistic, 1.0).config(), &data, &f);
    let duel = Link::Logistic.log_mu(-0.7);
    let choice = (2.0 * 0.3f64.exp()).ln() - (2.0 * 0.3f64.exp() + (-0.4f64).exp()).ln();
    assert!((l - duel - choice).abs() < 1e-14, "{l}");
    // ∂/∂f_0 of log(e^{f0}/(2e^{f0} + e^{f1})) = 1 − 2p, p = e^{f0}/(2e^{f0} + e^{f1}); plus the duel's.
    let pz = 0.3f64.exp() / (2.0 * 0.3f64.exp() + (-0.4f64).exp());
    let gduel = -Link::Logistic.dmu(-0.7) / Link::Logistic.mu(-0.7);
    assert!((g[0] - (1.0 - 2.0 * pz + gduel)).abs() < 1e-14);
    assert!((g[0] + g[1]).abs() < 1e-14);
}

#[test]
fn a_hundred_choices_against_one_incumbent_and_repeated_points() {
    // The incumbent at (0.5, 0.5) is shown in every one of 100 best-of-3 choices, with two random
    // challengers (one of them repeated from an earlier choice every fourth time); it is chosen 80
    // times. B = I + GᵀKG keeps eigenvalues ≥ 1 whatever K.
    let mut r = bohf_core::rng::seeded(8);
    let inc = vec![0.5, 0.5];
    let mut seen: Vec<Vec<f64>> = Vec::new();
    let mut comps = Vec::new();
    for k in 0..100 {
        let a = if k % 4 == 3 { seen[k / 2].clone() } else { vec![r.random::<f64>(), r.random::<f64>()] };
        let b = vec![r.random::<f64>(), r.random::<f64>()];
        seen.extend([a.clone(), b.clone()]);
        let chosen = if k % 5 == 4 { 1 + k % 2 } else { 0 };
        comps.push(choice(vec![inc.clone(), a, b], chosen));
    }
    let data = PreferenceData::from_point_comparisons(&comps, 1e-9).unwrap();
    assert!(data.len() < 201 && data.choices().len() == 100);
    for cfg in [LaplaceFitConfig::default(), LaplaceFitConfig::botorch_pairwise()] {
        let cfg = cfg.check().unwrap();
        let fit = fit_laplace(&cfg, &cfg.start_kernel(KernelKind::Se, 2).unwrap(), &data).unwrap();
        let gp = &fit.model;
        assert!(matches!(fit.outcome, LaplaceFitOutcome::Optimised { .. }));
        assert!(fit.objective.is_finite() && gp.log_evidence().is_finite());
        assert!(gp.newton_report().residual < 1e-8);
        assert!(gp.log_evidence_gradient().unwrap().iter().all(|g| g.is_finite()));
        let f = gp.utilities();
        let best_other = f.rows(1, f.len() - 1).max();
        assert!(f[0] > best_other, "incumbent {} vs best challenger {best_other}", f[0]);
        let var = gp.variance(data.points()).unwrap();
        assert!(var.iter().all(|v| v.is_finite() && *v >= 0.0 && *v <= gp.kernel().variance() + 1e-12));
    }
}

#[test]
fn bad_choices_are_errors_naming_the_field() {
    // A choice is checked once, when it is built (`Choice::new`); the data then checks what only it
    // can: candidate indices in range, dimensions and finite coordinates.
    let named = |e: Error, field: &str| matches!(&e, Error::InvalidParameter { name, .. } if name == field);
    for (options, chosen, field) in
        [(vec![1], 0, "query"), (vec![], 0, "query"), (vec![0, 2, 0], 1, "query"), (vec![0, 2], 2, "answer.index")]
    {
        let e = Choice::<usize>::new(options, chosen).unwrap_err();
        assert!(named(e.clone(), field), "{field}: {e}");
    }
    let x = DMatrix::from_row_slice(3, 1, &[0.1, 0.5, 0.9]);
    assert!(matches!(
        PreferenceData::from_candidate_comparisons(&x, &[choice(vec![0, 3], 0)]),
        Err(Error::IndexOutOfRange { index: 3, .. })
    ));
    let p = |v: f64| vec![v, 0.5];
    for (options, chosen, field) in [
        (vec![p(0.1)], 0, "query"),
        (vec![p(0.1), p(0.3), p(0.1)], 0, "query"),
        (vec![p(0.1), p(0.3)], 5, "answer.index"),
    ] {
        let e = Choice::new(options, chosen).unwrap_err();
        assert!(named(e.clone(), field), "{field}: {e}");
    }
    assert!(matches!(
        PreferenceData::from_point_comparisons(&[choice(vec![p(0.1), vec![0.2]], 0)], 0.0),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        PreferenceData::from_point_comparisons(&[choice(vec![p(0.1), vec![f64::NAN, 0.5]], 0)], 0.0),
        Err(Error::NonFinite(_))
    ));
}
