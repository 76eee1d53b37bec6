//! Tests of the conic programs against independent computations.

use crate::*;
use approx::assert_relative_eq;
use bohf_core::{Duel, Error, SolverStatus as Failure};
use nalgebra::{DMatrix, DVector};

/// SE Gram on 1-D points, lengthscale `ls`.
fn se_gram(xs: &[f64], ls: f64) -> DMatrix<f64> {
    DMatrix::from_fn(xs.len(), xs.len(), |i, j| (-(xs[i] - xs[j]).powi(2) / (2.0 * ls * ls)).exp())
}

fn grid(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64 / (n - 1) as f64).collect()
}

/// The default tolerances (set programs 1e-9, MLE 1e-11) with norm bound `b`.
fn tight(b: f64) -> ConfidenceConfig {
    ConfidenceConfig::with_norm_bound(b)
}

fn sigmoid(u: f64) -> f64 {
    1.0 / (1.0 + (-u).exp())
}

/// (s_τ, c_τ) as a dense matrix S·C (rows s_τ c_τᵀ), built here independently of the crate.
fn signed_design(obs: &[Observation], n: usize) -> DMatrix<f64> {
    let mut c = DMatrix::zeros(obs.len(), n);
    for (t, o) in obs.iter().enumerate() {
        match *o {
            Observation::Duel(Duel { first, second, first_wins }) => {
                let s = if first_wins { 1.0 } else { -1.0 };
                c[(t, first)] += s;
                c[(t, second)] -= s;
            }
            Observation::Label { point, positive } => c[(t, point)] = if positive { 1.0 } else { -1.0 },
        }
    }
    c
}

/// Independent solution of max ℓ(Z) s.t. ZᵀK⁻¹Z ≤ B² with the constraint active: for a multiplier
/// μ > 0, damped Newton on F_μ(Z) = ℓ(Z) − (μ/2) ZᵀK⁻¹Z (strictly concave), with ℓ = Σ log σ(s_τc_τᵀZ);
/// then bisection on log μ until ZᵀK⁻¹Z = B² (the norm decreases in μ). K⁻¹ through LU, not Cholesky.
fn newton_constrained_mle(k: &DMatrix<f64>, obs: &[Observation], b: f64) -> DVector<f64> {
    let n = k.nrows();
    let sc = signed_design(obs, n);
    let lu = k.clone().lu();
    let kinv = |z: &DVector<f64>| lu.solve(z).unwrap();
    let ll = |z: &DVector<f64>| (&sc * z).iter().map(|&d| sigmoid(d).ln()).sum::<f64>();
    let newton = |mu: f64, start: &DVector<f64>| {
        let mut z = start.clone();
        let f = |z: &DVector<f64>| ll(z) - 0.5 * mu * z.dot(&kinv(z));
        for _ in 0..200 {
            let d = &sc * &z;
            // ∇ℓ = (SC)ᵀ σ(−d), ∇²ℓ = −(SC)ᵀ W (SC), W = σ(d)σ(−d).
            let r = DVector::from_fn(d.len(), |i, _| sigmoid(-d[i]));
            let wdiag = DVector::from_fn(d.len(), |i, _| sigmoid(d[i]) * sigmoid(-d[i]));
            let grad = sc.transpose() * &r - mu * kinv(&z);
            // (K CᵀWC + μI) Δ = K ∇F.
            let ctwc = sc.transpose() * DMatrix::from_diagonal(&wdiag) * &sc;
            let lhs = k * ctwc + DMatrix::identity(n, n) * mu;
            let step = lhs.lu().solve(&(k * &grad)).unwrap();
            let mut t = 1.0;
            let f0 = f(&z);
            while f(&(&z + &step * t)) < f0 - 1e-14 * f0.abs() && t > 1e-10 {
                t *= 0.5;
            }
            z += &step * t;
            if (step * t).norm() < 1e-14 {
                break;
            }
        }
        z
    };
    let (mut lo, mut hi) = (-30.0_f64, 15.0_f64);
    let mut z = DVector::zeros(n);
    let norm = |z: &DVector<f64>| z.dot(&kinv(z)).sqrt();
    assert!(norm(&newton(lo.exp(), &z)) > b, "test design: the norm constraint must be active");
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        z = newton(mid.exp(), &z);
        if norm(&z) > b {
            lo = mid
        } else {
            hi = mid
        }
        if hi - lo < 1e-13 {
            break;
        }
    }
    newton((0.5 * (lo + hi)).exp(), &z)
}

fn duel_data() -> (DMatrix<f64>, Vec<Observation>) {
    let k = se_gram(&grid(6), 0.3);
    let d = |first, second, first_wins| Observation::Duel(Duel::new(first, second, first_wins));
    let obs =
        vec![d(1, 0, true), d(2, 1, true), d(3, 2, false), d(4, 2, true), d(5, 4, false), d(5, 0, true), d(3, 1, true)];
    (k, obs)
}

fn label_data() -> (DMatrix<f64>, Vec<Observation>) {
    let k = se_gram(&grid(6), 0.3);
    let l = |point, positive| Observation::Label { point, positive };
    let obs = vec![l(0, true), l(1, true), l(2, false), l(3, true), l(4, false), l(5, false), l(2, true)];
    (k, obs)
}

/// Duels with repeats, a reversed repeat ((x′, x) lost is (x, x′) won), opposite outcomes of one pair
/// and self-duels: the programs merge these into weighted terms; the independent checks do not.
fn repeated_duel_data() -> (DMatrix<f64>, Vec<Observation>) {
    let (k, mut obs) = duel_data();
    let d = |first, second, first_wins| Observation::Duel(Duel::new(first, second, first_wins));
    obs.extend([d(1, 0, true), d(1, 0, true), d(0, 1, false), d(0, 1, true), d(2, 2, true), d(4, 4, false)]);
    obs.extend([d(5, 0, true), d(3, 2, false), d(2, 3, true), d(2, 3, false)]);
    (k, obs)
}

#[test]
fn repeated_observations_are_merged_into_weighted_terms() {
    let (k, obs) = repeated_duel_data();
    let p = ConfidenceProblem::new(&k, &obs, &tight(1.5)).unwrap();
    // Distinct (unordered pair, winner) terms, counted by hand: {1≻0, 2≻1, 2≻3, 4≻2, 4≻5, 5≻0, 3≻1,
    // 0≻1, 3≻2}; the two self-duels are constants.
    assert_eq!(p.distinct_terms(), 9);
    let mut labels = label_data().1;
    labels.push(Observation::Label { point: 0, positive: true });
    assert_eq!(ConfidenceProblem::new(&k, &labels, &tight(1.5)).unwrap().distinct_terms(), 7);
    // ℓ(w) against the per-observation sum at Z = Lw, and ∇ℓ against central differences.
    let l = p.cholesky().l().clone();
    let w = DVector::from_fn(6, |i, _| 0.3 * (i as f64) - 0.7);
    let (ll, grad) = p.whitened_log_likelihood(&w).unwrap();
    let direct = |w: &DVector<f64>| p.log_likelihood(&(&l * w)).unwrap();
    assert_relative_eq!(ll, direct(&w), max_relative = 1e-13);
    for i in 0..6 {
        let mut e = DVector::zeros(6);
        e[i] = 1e-6;
        let fd = (direct(&(&w + &e)) - direct(&(&w - &e))) / 2e-6;
        // Central differences of a smooth O(10) function with step 1e−6: error ~1e−9.
        assert!((fd - grad[i]).abs() < 1e-7, "component {i}: {fd} vs {}", grad[i]);
    }
    assert!(p.whitened_log_likelihood(&DVector::zeros(5)).is_err());
}

#[test]
fn self_duels_leave_the_program_and_the_mle_unchanged() {
    let (k, obs) = duel_data();
    let p = ConfidenceProblem::new(&k, &obs, &tight(1.5)).unwrap();
    let fit = p.mle().unwrap();
    let mut more = obs.clone();
    more.extend([Observation::Duel(Duel::new(3, 3, false)); 2]);
    let q = ConfidenceProblem::new(&k, &more, &tight(1.5)).unwrap();
    assert!(q.same_program(&p));
    let reused = q.mle_from(&p, &fit).unwrap();
    // Independent: a fresh solve of the larger problem, and ℓ* lower by exactly 2 log 2.
    let fresh = q.mle().unwrap();
    for i in 0..6 {
        assert!((reused.z[i] - fresh.z[i]).abs() < 1e-6);
    }
    assert_relative_eq!(reused.log_likelihood, fit.log_likelihood - 2.0 * std::f64::consts::LN_2, max_relative = 1e-13);
    // A new distinct duel changes the program.
    more.push(Observation::Duel(Duel::new(0, 4, true)));
    let r = ConfidenceProblem::new(&k, &more, &tight(1.5)).unwrap();
    assert!(!r.same_program(&p));
    assert!(r.mle_from(&p, &fit).unwrap_err().to_string().contains("different program"));
    assert!(!ConfidenceProblem::new(&k, &obs, &tight(1.0)).unwrap().same_program(&p));
}

#[test]
fn only_self_duels_give_a_constant_likelihood() {
    let (k, _) = duel_data();
    let obs = vec![Observation::Duel(Duel::new(2, 2, true)); 3];
    let p = ConfidenceProblem::new(&k, &obs, &tight(1.0)).unwrap();
    assert_eq!(p.distinct_terms(), 0);
    let fit = p.mle().unwrap();
    assert_relative_eq!(fit.log_likelihood, -3.0 * std::f64::consts::LN_2, max_relative = 1e-14);
    // The set is the whole ball: the advantage is B‖g‖ as at t = 0; above ℓ₀ it is empty.
    let mut set = ConfidenceSet::new(&p, &fit, 0.5).unwrap();
    let c = p.candidate(&k.column(4).clone_owned(), 1.0).unwrap();
    let a = set.optimistic_advantage(&c, 0).unwrap().value;
    let closed = (k[(4, 4)] - 2.0 * k[(4, 0)] + k[(0, 0)]).sqrt();
    assert_relative_eq!(a, closed, max_relative = 1e-6);
    assert!(ConfidenceSet::with_threshold(&p, fit.log_likelihood + 0.1).is_err());
}

#[test]
fn mle_matches_independent_newton_for_duels_and_labels() {
    for (k, obs) in [duel_data(), label_data(), repeated_duel_data()] {
        for b in [0.5, 1.5] {
            let p = ConfidenceProblem::new(&k, &obs, &tight(b)).unwrap();
            assert_eq!(p.jitter(), 0.0, "well-conditioned Gram: no jitter expected");
            let fit = p.mle().unwrap();
            assert!(matches!(fit.info.status, SolverStatus::Solved | SolverStatus::AlmostSolved));
            let z_newton = newton_constrained_mle(&k, &obs, b);
            // 1e-6 is the target; at the MLE tolerance 1e-11 the solve agrees to ~1e-8.
            for i in 0..6 {
                assert!((fit.z[i] - z_newton[i]).abs() < 1e-6, "B = {b}, i = {i}: {} vs {}", fit.z[i], z_newton[i]);
            }
            assert_relative_eq!(fit.log_likelihood, p.log_likelihood(&z_newton).unwrap(), max_relative = 1e-8);
            assert_relative_eq!(fit.norm(), b, max_relative = 1e-7);
        }
    }
}

#[test]
fn inactive_constraint_gives_the_closed_form_logits() {
    // Repeated labels at three well-separated points: the unconstrained MLE is ẑ_i = logit(share of
    // positives), finite and inside a large ball.
    let k = se_gram(&[0.0, 1.0, 2.0], 0.25);
    let l = |point, positive| Observation::Label { point, positive };
    let obs = vec![
        l(0, true),
        l(0, true),
        l(0, true),
        l(0, false),
        l(1, true),
        l(1, false),
        l(2, false),
        l(2, false),
        l(2, false),
        l(2, true),
    ];
    let fit = ConfidenceProblem::new(&k, &obs, &tight(10.0)).unwrap().mle().unwrap();
    let expect = [3f64.ln(), 0.0, -(3f64.ln())];
    for (i, e) in expect.iter().enumerate() {
        // The optimum is strictly interior and strongly concave: tolerance 1e-6 as for the MLE target.
        assert!((fit.z[i] - e).abs() < 1e-6, "{i}: {}", fit.z[i]);
    }
    // Duels: 3 wins of x₁ over x₀ and 1 loss, and a 1:1 split between x₂ and x₁: differences are
    // logit(3/4) and 0 (the common level is not identified).
    let d = |first, second, first_wins| Observation::Duel(Duel::new(first, second, first_wins));
    let obs = vec![d(1, 0, true), d(1, 0, true), d(1, 0, true), d(1, 0, false), d(2, 1, true), d(2, 1, false)];
    let fit = ConfidenceProblem::new(&k, &obs, &tight(10.0)).unwrap().mle().unwrap();
    assert!((fit.z[1] - fit.z[0] - 3f64.ln()).abs() < 1e-6);
    assert!((fit.z[2] - fit.z[1]).abs() < 1e-6, "{:?} {:?}", fit.info, fit.z);
}

#[test]
fn advantage_at_t0_is_the_closed_form() {
    // One support point x₀ and no data: max f̃(x) − f̃(x₀) over the B-ball is B‖k(x,·) − k(x₀,·)‖.
    let xs = grid(15);
    let base = se_gram(&xs, 0.2);
    for b in [0.7, 3.0] {
        let p = ConfidenceProblem::on_candidates(&base, &[4], &[], &tight(b)).unwrap();
        let mle = p.mle().unwrap();
        let mut set = ConfidenceSet::new(&p, &mle, 1.0).unwrap();
        let cands = p.candidates_from_gram(&base, &(0..15).collect::<Vec<_>>()).unwrap();
        for (x, c) in cands.iter().enumerate() {
            let closed = b * (base[(x, x)] - 2.0 * base[(x, 4)] + base[(4, 4)]).max(0.0).sqrt();
            let adv = set.optimistic_advantage(c, 0).unwrap();
            // Solver tolerance 1e-9 on a value of order B: 1e-7 absolute is ample and meaningful.
            assert!((adv.value - closed).abs() < 1e-7, "x = {x}: {} vs {closed}", adv.value);
            // The cheap upper bound is exact at t = 0.
            let (_, ub) = set.advantage_bounds(c, 0).unwrap();
            assert!((ub - closed).abs() < 1e-9);
        }
    }
}

#[test]
fn advantage_matches_brute_force_in_two_dimensions() {
    // One support point, one label, one candidate: (w, ω) ∈ ℝ², so the program is a 2-D maximisation
    // over the disk ∩ {−softplus(−r w) ≥ thr}, brute-forced on a polar grid.
    let k = DMatrix::from_element(1, 1, 1.0);
    let obs = [Observation::Label { point: 0, positive: true }];
    let b = 2.0;
    let p = ConfidenceProblem::new(&k, &obs, &tight(b)).unwrap();
    let mle = p.mle().unwrap();
    // MLE: w = B (z = B maximises log σ(z)).
    assert!((mle.w[0] - b).abs() < 1e-6);
    let beta = 0.5;
    let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
    let kx = 0.6;
    let cand = p.candidate(&DVector::from_element(1, kx), 1.0).unwrap();
    let (l, rho) = (kx, (1.0 - kx * kx).sqrt());
    assert!((cand.rho() - rho).abs() < 1e-14);
    let thr = mle.log_likelihood - beta;
    let (mut best_hi, mut best_lo, mut best_adv) = (f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    let m = 1500;
    for i in 0..=m {
        let r = b * i as f64 / m as f64;
        for j in 0..(4 * m) {
            let th = std::f64::consts::TAU * j as f64 / (4 * m) as f64;
            let (w, om) = (r * th.cos(), r * th.sin());
            if sigmoid(w).ln() >= thr {
                let z = l * w + rho * om;
                best_hi = best_hi.max(z);
                best_lo = best_lo.min(z);
                best_adv = best_adv.max(z - w);
            }
        }
    }
    // Grid spacing B/1500 ≈ 1.3e-3 in radius: the brute force is within ~2e-3 of the optimum.
    assert!((set.upper_bound(&cand).unwrap().value - best_hi).abs() < 3e-3);
    assert!((set.lower_bound(&cand).unwrap().value - best_lo).abs() < 3e-3);
    assert!((set.optimistic_advantage(&cand, 0).unwrap().value - best_adv).abs() < 3e-3);
}

#[test]
fn bounds_bracket_the_mle_and_shrink_with_beta() {
    let (k, obs) = duel_data();
    let xs = grid(6);
    let p = ConfidenceProblem::new(&k, &obs, &tight(2.0)).unwrap();
    let mle = p.mle().unwrap();
    let mut wide = ConfidenceSet::new(&p, &mle, 2.0).unwrap();
    let mut narrow = ConfidenceSet::new(&p, &mle, 0.5).unwrap();
    for x in [0.05, 0.33, 0.5, 0.71, 0.99, 1.3] {
        let kx = DVector::from_fn(6, |i, _| (-(xs[i] - x).powi(2) / (2.0 * 0.09)).exp());
        let c = p.candidate(&kx, 1.0).unwrap();
        let f = mle.value_at(&c).unwrap();
        let tol = 1e-7; // solver tolerance 1e-9, values O(1)
        let (lw, uw) = (wide.lower_bound(&c).unwrap().value, wide.upper_bound(&c).unwrap().value);
        let (ln, un) = (narrow.lower_bound(&c).unwrap().value, narrow.upper_bound(&c).unwrap().value);
        assert!(lw - tol <= ln && ln <= f + tol && f <= un + tol && un <= uw + tol, "x = {x}: {lw} {ln} {f} {un} {uw}");
        assert!(un - ln < uw - lw, "tightening β must shrink the interval at x = {x}");
        // Every f̃ in the ball obeys |f̃(x)| ≤ B√k(x,x) (POP-BO Lemma A.2).
        assert!(uw <= 2.0 + tol && lw >= -2.0 - tol);
        for r in 0..6 {
            let fr = mle.z[r];
            let an = narrow.optimistic_advantage(&c, r).unwrap().value;
            let aw = wide.optimistic_advantage(&c, r).unwrap().value;
            // The MLE is in the set, so the optimistic advantage is at least its advantage.
            assert!(an >= f - fr - tol && aw >= an - tol, "x = {x}, r = {r}");
        }
    }
}

#[test]
fn mle_is_feasible_and_optima_satisfy_the_constraints() {
    let (k, obs) = label_data();
    let p = ConfidenceProblem::new(&k, &obs, &tight(1.5)).unwrap();
    let mle = p.mle().unwrap();
    let beta = 0.3;
    // f̃ = MLE: ℓ(Ẑ) = ℓ* ≥ ℓ* − β and ‖ŵ‖ ≤ B (up to the solver tolerance).
    assert!(mle.norm() <= 1.5 * (1.0 + 1e-8));
    assert!(p.log_likelihood(&mle.z).unwrap() >= mle.log_likelihood - beta);
    let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
    let kx = DVector::from_fn(6, |i, _| (-(grid(6)[i] - 0.4).powi(2) / 0.18).exp());
    let c = p.candidate(&kx, 1.0).unwrap();
    for sol in [set.upper_bound(&c).unwrap(), set.lower_bound(&c).unwrap(), set.optimistic_advantage(&c, 2).unwrap()] {
        // The optimum reaches the likelihood and norm boundaries only up to the solver tolerance.
        assert!(p.log_likelihood(&sol.z).unwrap() >= set.threshold() - 1e-7);
        assert!((sol.w.norm_squared() + sol.omega * sol.omega).sqrt() <= 1.5 + 1e-7);
        // The candidate value is the interpolant through (Z, z): z = l_xᵀw + ρω.
        assert_relative_eq!(sol.z_candidate, c.coordinates().dot(&sol.w) + c.rho() * sol.omega, epsilon = 1e-12);
    }
}

#[test]
fn pruned_argmax_equals_brute_force_and_bounds_are_certified() {
    let xs = grid(60);
    let base = se_gram(&xs, 0.15);
    let d = |first, second, first_wins| Observation::Duel(Duel::new(first, second, first_wins));
    // A chain as in POP-BO (x′_t = x_{t−1}), preferring points near 0.7.
    let chain = [3, 50, 20, 40, 44, 30, 42];
    let f = |i: usize| -(xs[i] - 0.7).powi(2);
    let obs: Vec<Observation> = chain.windows(2).map(|w| d(w[1], w[0], f(w[1]) > f(w[0]))).collect();
    for latent_box in [None, Some(1.0)] {
        let config = ConfidenceConfig { latent_box, ..ConfidenceConfig::with_norm_bound(3.0) };
        let p = ConfidenceProblem::on_candidates(&base, &[chain[0]], &obs, &config).unwrap();
        let mle = p.mle().unwrap();
        let cands = p.candidates_from_gram(&base, &(0..60).collect::<Vec<_>>()).unwrap();
        let reference = p.support_position(*chain.last().unwrap()).unwrap();
        let mut brute = ConfidenceSet::new(&p, &mle, 1.0).unwrap();
        let sols: Vec<ConicSolution> =
            cands.iter().map(|c| brute.optimistic_advantage(c, reference).unwrap()).collect();
        let exact: Vec<f64> = sols.iter().map(|s| s.value).collect();
        // Every cut (solved directions, likelihood tangents, the box's Lagrangian cuts) contains
        // every optimum found, i.e. points of the common set.
        let points: Vec<DVector<f64>> =
            sols.iter().map(|s| DVector::from_iterator(s.w.len() + 1, s.w.iter().copied().chain([s.omega]))).collect();
        assert!(brute.cut_count() > 60, "{latent_box:?}: {} cuts", brute.cut_count());
        let violation = brute.max_cut_violation(&points);
        assert!(violation <= 1e-6, "{latent_box:?}: a cut excludes a feasible point by {violation}");
        let argmax = (0..60).max_by(|&i, &j| exact[i].total_cmp(&exact[j])).unwrap();
        let mut fresh = ConfidenceSet::new(&p, &mle, 1.0).unwrap();
        let search = fresh.maximise_advantage(&cands, reference, Some(&cands[*chain.last().unwrap()])).unwrap();
        // Same maximum value to solver accuracy (the argmax may differ only between near-ties).
        assert!((search.value - exact[argmax]).abs() < 1e-6, "{latent_box:?}: {} vs {}", search.value, exact[argmax]);
        assert!((exact[search.best] - exact[argmax]).abs() < 1e-6);
        if latent_box.is_none() {
            assert!(search.solved < 60, "pruning solved all {} candidates", search.solved);
        }
        if let Some(bx) = latent_box {
            assert!(search.solution.z_candidate.abs() <= bx + 1e-6);
            assert!(search.solution.z.iter().all(|z| z.abs() <= bx + 1e-6));
        }
        // After all those solves the bounds must still bracket every exact value.
        for (c, &e) in cands.iter().zip(&exact) {
            let (lo, hi) = brute.advantage_bounds(c, reference).unwrap();
            assert!(lo <= e + 1e-6 && e <= hi + 1e-6, "{lo} <= {e} <= {hi}");
        }
    }
}

#[test]
fn on_candidates_matches_the_direct_support_problem() {
    let xs = grid(10);
    let base = se_gram(&xs, 0.3);
    let d = |first, second, first_wins| Observation::Duel(Duel::new(first, second, first_wins));
    let obs = [d(7, 2, true), d(4, 7, false), d(4, 2, true)];
    let p = ConfidenceProblem::on_candidates(&base, &[2], &obs, &tight(1.0)).unwrap();
    assert_eq!(p.support().unwrap(), &[2, 7, 4]);
    let sub = DMatrix::from_fn(3, 3, |i, j| base[([2, 7, 4][i], [2, 7, 4][j])]);
    let direct = [d(1, 0, true), d(2, 1, false), d(2, 0, true)];
    let q = ConfidenceProblem::new(&sub, &direct, &tight(1.0)).unwrap();
    let (a, b) = (p.mle().unwrap(), q.mle().unwrap());
    assert!((a.z - b.z).norm() < 1e-9);
    // A support point's candidate has ρ = 0 and l_x = L[i,:]ᵀ exactly (not L⁻¹k_x, which differs by
    // the nugget).
    let c = p.candidates_from_gram(&base, &[7]).unwrap().remove(0);
    assert_eq!(c.rho(), 0.0);
    assert_eq!(c.coordinates(), &p.cholesky().l().row(1).transpose());
}

/// POP-BO Lemma 4.1: the optimistic advantage of x_{t−1} against itself is 0, and a candidate that
/// coincides with a support point takes that point's latent value exactly, for every β and with or
/// without the latent box.
#[test]
fn a_past_point_takes_its_own_latent_value_and_its_advantage_against_itself_is_zero() {
    let xs = grid(12);
    let base = se_gram(&xs, 0.25);
    let d = |first, second, first_wins| Observation::Duel(Duel::new(first, second, first_wins));
    let obs = [d(5, 0, true), d(9, 5, false), d(3, 5, true), d(3, 3, false)];
    for latent_box in [None, Some(1.5)] {
        let config = ConfidenceConfig { latent_box, ..ConfidenceConfig::with_norm_bound(2.0) };
        let p = ConfidenceProblem::on_candidates(&base, &[0], &obs, &config).unwrap();
        let mle = p.mle().unwrap();
        let cands = p.candidates_from_gram(&base, &(0..12).collect::<Vec<_>>()).unwrap();
        for &j in p.support().unwrap() {
            let pos = p.support_position(j).unwrap();
            assert_eq!(cands[j].rho(), 0.0);
            // f̂(x_j) = l_xᵀŵ with l_x = L[pos, :]ᵀ is Ẑ_pos = (Lŵ)_pos: the same products and sums.
            assert_eq!(mle.value_at(&cands[j]).unwrap(), mle.z[pos]);
            for beta in [0.0, 1.0, 4.0] {
                let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
                let sol = set.optimistic_advantage(&cands[j], pos).unwrap();
                assert_eq!(sol.value, 0.0, "box {latent_box:?}, β = {beta}, x = {j}");
            }
        }
    }
}

#[test]
fn clear_errors_for_bad_input_and_failed_solves() {
    let (k, obs) = duel_data();
    // B ≤ 0.
    let e = ConfidenceProblem::new(&k, &obs, &ConfidenceConfig::with_norm_bound(0.0)).unwrap_err();
    assert!(e.to_string().contains("norm_bound"), "{e}");
    // Non-finite datum.
    let mut bad = k.clone();
    bad[(2, 3)] = f64::NAN;
    bad[(3, 2)] = f64::NAN;
    assert!(matches!(ConfidenceProblem::new(&bad, &obs, &ConfidenceConfig::default()), Err(Error::NonFinite(_))));
    let p = ConfidenceProblem::new(&k, &obs, &ConfidenceConfig::with_norm_bound(1.0)).unwrap();
    assert!(matches!(p.candidate(&DVector::from_element(6, f64::INFINITY), 1.0), Err(Error::NonFinite(_))));
    // Index out of range, wrong sizes.
    let far = [Observation::Label { point: 6, positive: true }];
    assert!(matches!(
        ConfidenceProblem::new(&k, &far, &ConfidenceConfig::default()),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(p.candidate(&DVector::zeros(5), 1.0), Err(Error::DimensionMismatch { .. })));
    // Negative β.
    let mle = p.mle().unwrap();
    assert!(ConfidenceSet::new(&p, &mle, -0.1).unwrap_err().to_string().contains("beta"));
    // Infeasible program: a likelihood threshold above the maximum in the ball.
    let mut set = ConfidenceSet::with_threshold(&p, mle.log_likelihood + 1.0).unwrap();
    let c = p.candidate(&k.column(0).clone_owned(), 1.0).unwrap();
    match set.upper_bound(&c).unwrap_err() {
        Error::SolverFailed { solver, status, .. } => {
            assert!(solver.contains("pointwise upper bound"), "{solver}");
            assert!(matches!(status, Failure::PrimalInfeasible | Failure::AlmostPrimalInfeasible), "{status}");
        }
        e => panic!("unexpected {e}"),
    }
    // An MLE from another B is refused.
    let other = p.with_norm_bound(2.0).unwrap().mle().unwrap();
    assert!(ConfidenceSet::new(&p, &other, 1.0).unwrap_err().to_string().contains("mle"));
}

#[test]
fn latent_box_constrains_the_mle() {
    // Separable labels drive the MLE to the norm bound; a box of 0.5 caps every latent value.
    let (k, obs) = label_data();
    let config = ConfidenceConfig { latent_box: Some(0.5), ..tight(5.0) };
    let fit = ConfidenceProblem::new(&k, &obs, &config).unwrap().mle().unwrap();
    assert!(fit.z.iter().all(|z| z.abs() <= 0.5 + 1e-8));
    assert!(fit.z.iter().any(|z| z.abs() > 0.5 - 1e-4), "the box should be active");
    let free = ConfidenceProblem::new(&k, &obs, &tight(5.0)).unwrap().mle().unwrap();
    assert!(free.log_likelihood > fit.log_likelihood);
}

#[test]
fn doubling_test_follows_appendix_g() {
    // Many consistent labels from a steep function: B̂ = 0.25 is far too small.
    let xs = grid(8);
    let k = se_gram(&xs, 0.2);
    let mut obs = Vec::new();
    for rep in 0..4 {
        for (i, &x) in xs.iter().enumerate() {
            obs.push(Observation::Label { point: i, positive: (x < 0.5) ^ (rep == 3 && i % 3 == 0) });
        }
    }
    let p = ConfidenceProblem::new(&k, &obs, &ConfidenceConfig::with_norm_bound(0.25)).unwrap();
    let test = doubling_test(&p, 0.5).unwrap();
    let doubled = test.mle_doubled.as_ref().expect("a rejection needs the MLE with 2B");
    // Independent consequence: a larger ball cannot lower the maximum likelihood.
    assert!(doubled.log_likelihood >= test.mle.log_likelihood - 1e-7);
    assert!(test.doubled_bound >= doubled.log_likelihood - 1e-7);
    assert_eq!(test.double, test.mle.log_likelihood < doubled.log_likelihood - 0.5);
    assert!(test.double, "B̂ = 0.25 should be rejected: {} vs {}", test.mle.log_likelihood, doubled.log_likelihood);
    // A huge β never rejects, and the certified bound shows it without solving the 2B MLE.
    let huge = doubling_test(&p, 1e6).unwrap();
    assert!(!huge.double && huge.mle_doubled.is_none());
    // The skip decides as the solved test would: with the 2B MLE solved anyway, over a range of β
    // (some skipped, some solved), the decisions agree.
    let solved = p.with_norm_bound(0.5).unwrap().mle().unwrap();
    let mut skipped = 0;
    for beta in [0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0] {
        let t = doubling_test(&p, beta).unwrap();
        assert_eq!(t.double, test.mle.log_likelihood < solved.log_likelihood - beta, "β = {beta}");
        skipped += usize::from(t.mle_doubled.is_none());
    }
    assert!(skipped > 0 && skipped < 8, "{skipped} of 8 skipped");
    let (adapted, tests) = adapt_norm_bound(&p, |b| Ok(0.5 * b), 10).unwrap();
    assert!(adapted.norm_bound() > 0.25);
    assert_eq!(adapted.norm_bound(), 0.25 * 2f64.powi(tests.iter().filter(|t| t.double).count() as i32));
    assert!(!tests.last().unwrap().double || tests.len() == 10);
}

#[test]
fn types_are_send() {
    fn send<T: Send>() {}
    send::<ConfidenceProblem>();
    send::<ConfidenceSet>();
    send::<MleFit>();
}

#[test]
fn kernel_sensitivity_matches_finite_differences() {
    // Central differences of the re-solved optimal values as the candidate x moves on the line
    // (k_x(x) from the SE kernel, chain rule with ∂k(x_i, x)/∂x), and as k(x, x) alone moves.
    let (k, obs) = duel_data();
    let p = ConfidenceProblem::new(&k, &obs, &tight(2.0)).unwrap();
    let mle = p.mle().unwrap();
    let mut set = ConfidenceSet::new(&p, &mle, 1.0).unwrap();
    let xs = grid(6);
    let kx = |x: f64| DVector::from_fn(6, |i, _| (-(xs[i] - x).powi(2) / (2.0 * 0.09)).exp());
    let dkx = |x: f64| DVector::from_fn(6, |i, _| (-(xs[i] - x).powi(2) / (2.0 * 0.09)).exp() * (xs[i] - x) / 0.09);
    let h = 1e-4;
    type Program = fn(&mut ConfidenceSet, &Candidate) -> ConicSolution;
    let programs: [(&str, Program); 3] = [
        ("advantage", |s, c| s.optimistic_advantage(c, 3).unwrap()),
        ("upper", |s, c| s.upper_bound(c).unwrap()),
        ("lower", |s, c| s.lower_bound(c).unwrap()),
    ];
    for x in [-0.2, 1.15] {
        for (name, solve) in programs {
            let c = p.candidate(&kx(x), 1.0).unwrap();
            assert!(c.rho() > 1e-2, "test design: x away from the support");
            let sol = solve(&mut set, &c);
            let sens = set.kernel_sensitivity(&c, &sol).unwrap();
            let mut value = |kx: &DVector<f64>, kxx: f64| solve(&mut set, &p.candidate(kx, kxx).unwrap()).value;
            let fd_x = (value(&kx(x + h), 1.0) - value(&kx(x - h), 1.0)) / (2.0 * h);
            let fd_kxx = (value(&kx(x), 1.0 + h) - value(&kx(x), 1.0 - h)) / (2.0 * h);
            let an_x = sens.d_kx.dot(&dkx(x));
            // Values are accurate to ~1e-9, so the differences to ~1e-5; curvature adds O(h²).
            assert!((fd_x - an_x).abs() < 1e-4 * (1.0 + fd_x.abs()), "{name} at {x}: {fd_x} vs {an_x}");
            assert!(
                (fd_kxx - sens.d_kxx).abs() < 1e-4 * (1.0 + fd_kxx.abs()),
                "{name} at {x}: {fd_kxx} vs {}",
                sens.d_kxx
            );
        }
    }
    // Not differentiable at a support point.
    let at_support = p.candidate(&k.column(2).clone_owned(), 1.0).unwrap();
    let sol = set.upper_bound(&at_support).unwrap();
    assert!(set.kernel_sensitivity(&at_support, &sol).is_err());
}

#[test]
fn numerical_trouble_is_retried_once_and_both_reasons_are_reported() {
    // Two iterations cannot solve the MLE (MaxIterations): the cautious retry runs and fails too,
    // and the error gives both statuses (clarabel's retry: the fast path has no iteration cap).
    let (k, obs) = duel_data();
    let config = ConfidenceConfig { max_iterations: 2, solver: SolverChoice::Clarabel, ..tight(1.5) };
    let e = ConfidenceProblem::new(&k, &obs, &config).unwrap().mle().unwrap_err();
    let two = Box::new(Failure::MaxIterations { iterations: 2 });
    assert!(
        matches!(&e, Error::SolverFailed { status: Failure::Retried { first, retry }, .. } if *first == two && *retry == two),
        "{e}"
    );
    // Infeasibility is not numerical trouble: no retry.
    let p = ConfidenceProblem::new(&k, &obs, &tight(1.5)).unwrap();
    let fit = p.mle().unwrap();
    assert!(!fit.info.retried);
    let mut set = ConfidenceSet::with_threshold(&p, fit.log_likelihood + 1.0).unwrap();
    let c = p.candidate(&k.column(3).clone_owned(), 1.0).unwrap();
    let e = set.upper_bound(&c).unwrap_err();
    assert!(
        matches!(&e, Error::SolverFailed { status: Failure::PrimalInfeasible | Failure::AlmostPrimalInfeasible, .. }),
        "{e}"
    );
}

/// A random small instance for the batch bounds: 25 points on [0, 1] (SE, ℓ = 0.15), a POP-BO
/// chain of duels or COBOL-style unary labels, random B, β and latent box.
fn random_instance(seed: u64) -> (DMatrix<f64>, ConfidenceProblem, MleFit, f64) {
    use bohf_core::rand::RngExt;
    let mut r = bohf_core::rng::seeded(seed);
    let xs = grid(25);
    let base = se_gram(&xs, 0.15);
    let peak: f64 = r.random();
    let f = |i: usize| -8.0 * (xs[i] - peak).powi(2);
    let k = r.random_range(3..9);
    let mut obs = Vec::new();
    let mut prev = r.random_range(0..25usize);
    for _ in 0..k {
        let x = r.random_range(0..25usize);
        if seed.is_multiple_of(2) {
            let p = sigmoid(f(x) - f(prev));
            obs.push(Observation::Duel(Duel::new(x, prev, r.random::<f64>() < p)));
            prev = x;
        } else {
            let p = sigmoid(f(x) + 1.0);
            obs.push(Observation::Label { point: x, positive: r.random::<f64>() < p });
        }
    }
    let latent_box = if seed.is_multiple_of(3) { Some(r.random_range(1.0..2.5)) } else { None };
    let config = ConfidenceConfig { latent_box, ..ConfidenceConfig::with_norm_bound(r.random_range(1.5..4.0)) };
    let anchor = r.random_range(0..25usize);
    let p = ConfidenceProblem::on_candidates(&base, &[anchor], &obs, &config).unwrap();
    let mle = p.mle().unwrap();
    let beta = r.random_range(0.3..3.0);
    (base, p, mle, beta)
}

#[test]
fn batch_bounds_equal_per_point_exact_solves_and_screened_points_cannot_change_the_decision() {
    let tol = 1e-6;
    let (mut solved_width, mut solved_best, mut total) = (0, 0, 0);
    for seed in 0..12 {
        let (base, p, mle, beta) = random_instance(seed);
        let cands = p.candidates_from_gram(&base, &(0..25).collect::<Vec<_>>()).unwrap();
        // Independent per-point solves, one fresh set per point (no shared cuts or solver).
        let exact: Vec<(f64, f64)> = cands
            .iter()
            .map(|c| {
                let mut s = ConfidenceSet::new(&p, &mle, beta).unwrap();
                (s.upper_bound(c).unwrap().value, s.lower_bound(c).unwrap().value)
            })
            .collect();
        let contains = |b: &PointBounds, (sup, inf): (f64, f64)| {
            b.sup.lower <= sup + tol && sup <= b.sup.upper + tol && b.inf.lower <= inf + tol && inf <= b.inf.upper + tol
        };
        // All: every value exactly.
        let all = ConfidenceSet::new(&p, &mle, beta).unwrap().pointwise_bounds(&cands, BoundsQuestion::All).unwrap();
        for (b, &e) in all.points.iter().zip(&exact) {
            assert!((b.sup.mid() - e.0).abs() < tol && (b.inf.mid() - e.1).abs() < tol, "seed {seed}: {b:?} vs {e:?}");
        }
        // WidthAbove at the median width: a mixed decision.
        let mut widths: Vec<f64> = exact.iter().map(|e| e.0 - e.1).collect();
        widths.sort_by(f64::total_cmp);
        let thr = widths[12] + 1e-3;
        let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
        let batch = set.pointwise_bounds(&cands, BoundsQuestion::WidthAbove(thr)).unwrap();
        let wide = batch.wide.as_ref().unwrap();
        for (i, (b, &e)) in batch.points.iter().zip(&exact).enumerate() {
            assert!(contains(b, e), "seed {seed}, point {i}: {b:?} does not contain {e:?}");
            let w = e.0 - e.1;
            if (w - thr).abs() > tol {
                assert_eq!(wide[i], w > thr, "seed {seed}, point {i}: width {w} vs {thr}");
            }
            // The enclosure of the width lies on the decided side: nothing unsolved could flip it.
            let (lo, hi) = (b.sup.lower - b.inf.upper, b.sup.upper - b.inf.lower);
            assert!(if wide[i] { lo > thr } else { hi <= thr }, "seed {seed}, point {i}: [{lo}, {hi}] vs {thr}");
        }
        solved_width += batch.solved;
        // LargestUpper and SmallestLower: the exact extreme, and no unsolved point could beat it.
        for question in [BoundsQuestion::LargestUpper, BoundsQuestion::SmallestLower] {
            let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
            let batch = set.pointwise_bounds(&cands, question).unwrap();
            let best = batch.best.unwrap();
            let up = question == BoundsQuestion::LargestUpper;
            let key = |e: &(f64, f64)| if up { e.0 } else { -e.1 };
            let extreme = exact.iter().map(key).fold(f64::NEG_INFINITY, f64::max);
            assert!(key(&exact[best]) >= extreme - tol, "seed {seed} {question:?}: {} vs {extreme}", key(&exact[best]));
            let side = |b: &PointBounds| {
                if up { b.sup } else { ValueBounds { lower: -b.inf.upper, upper: -b.inf.lower, ..b.inf } }
            };
            assert!(side(&batch.points[best]).solved);
            let found = side(&batch.points[best]).mid();
            for (i, (b, e)) in batch.points.iter().zip(&exact).enumerate() {
                assert!(contains(b, *e), "seed {seed} {question:?}, point {i}: {b:?} vs {e:?}");
                let s = side(b);
                assert!(
                    s.solved || s.upper <= found + 1e-6 * found.abs().max(1.0) + tol,
                    "seed {seed}: point {i} {s:?} vs {found}"
                );
            }
            solved_best += batch.solved;
        }
        total += 25;
    }
    // The screening saves programs overall (12 instances × 25 points; 2 programs per point for a width).
    assert!(solved_width < 2 * total, "width: {solved_width} of {}", 2 * total);
    assert!(solved_best < 2 * total, "argmax/argmin: {solved_best} of {}", 2 * total);
    eprintln!(
        "batch bounds: width {solved_width} of {} programs, argmax/argmin {solved_best} of {}",
        2 * total,
        2 * total
    );
}

/// A screened program ([`ConfidenceSet::upper_bound_screened`], [`ConfidenceSet::lower_bound_screened`])
/// asked at a level on the far side of its value must solve it; at a level beyond its value it may
/// stop, and then its bound lies between the exact value (from a fresh set's full solve) and the
/// level. Stops are counted by the set and happen (the test could fail both ways).
#[test]
fn screened_programs_stop_only_beyond_their_level() {
    let tol = 1e-6;
    let (mut stops, mut asked) = (0, 0);
    for seed in 0..12 {
        let (base, p, mle, beta) = random_instance(seed);
        let cands = p.candidates_from_gram(&base, &(0..25).collect::<Vec<_>>()).unwrap();
        for c in cands.iter().step_by(3) {
            let mut fresh = ConfidenceSet::new(&p, &mle, beta).unwrap();
            let (sup, inf) = (fresh.upper_bound(c).unwrap().value, fresh.lower_bound(c).unwrap().value);
            let scale = (sup - inf).max(1e-2);
            for frac in [-0.5, -0.01, 0.01, 0.5] {
                let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
                let level = sup + frac * scale;
                match set.upper_bound_screened(c, level).unwrap() {
                    Screened::Solved(sol) => {
                        assert!((sol.value - sup).abs() < tol, "seed {seed}: {} vs {sup}", sol.value)
                    }
                    Screened::Beyond(b) => {
                        assert!(
                            frac > 0.0 && b <= level && sup <= b + tol,
                            "seed {seed}: sup {sup}, bound {b}, level {level}"
                        );
                        stops += 1;
                        assert_eq!(set.solve_counts().stopped, 1);
                    }
                }
                let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
                let level = inf - frac * scale;
                match set.lower_bound_screened(c, level).unwrap() {
                    Screened::Solved(sol) => {
                        assert!((sol.value - inf).abs() < tol, "seed {seed}: {} vs {inf}", sol.value)
                    }
                    Screened::Beyond(b) => {
                        assert!(
                            frac > 0.0 && b >= level && inf >= b - tol,
                            "seed {seed}: inf {inf}, bound {b}, level {level}"
                        );
                        stops += 1;
                        assert_eq!(set.solve_counts().stopped, 1);
                    }
                }
                asked += 2;
            }
        }
    }
    eprintln!("screened programs: {stops} of {asked} stopped");
    assert!(stops * 8 > asked, "{stops} of {asked} stopped");
}

#[test]
fn batch_bounds_reject_a_bad_threshold_and_points_of_another_support() {
    let (base, p, mle, beta) = random_instance(2);
    let cands = p.candidates_from_gram(&base, &[0, 1]).unwrap();
    let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
    let e = set.pointwise_bounds(&cands, BoundsQuestion::WidthAbove(f64::NAN)).unwrap_err();
    assert!(e.to_string().contains("threshold"), "{e}");
    assert!(set.pointwise_bounds(&[], BoundsQuestion::LargestUpper).is_err());
    let (base2, p2, _, _) = random_instance(5);
    if p2.len() != p.len() {
        let other = p2.candidates_from_gram(&base2, &[0]).unwrap();
        assert!(set.pointwise_bounds(&other, BoundsQuestion::All).is_err());
    }
}

/// A COBOL-like instance: `labels` unary labels at random points of [0, 1] from an expert who
/// rejects where f is high (P(reject) = σ(a·ρ(x))), latent box 3, B = `b`; the set's width β.
fn many_labels_instance(seed: u64, labels: usize, b: f64) -> (DMatrix<f64>, ConfidenceProblem, MleFit, f64) {
    use bohf_core::rand::RngExt;
    let mut r = bohf_core::rng::seeded(seed);
    let m = 41;
    let xs = grid(m);
    let base = se_gram(&xs, 0.1);
    let peak: f64 = r.random();
    let rho = |x: f64| 3.0 - 6.0 * (-(x - peak).powi(2) / 0.02).exp();
    let mut obs = Vec::new();
    for _ in 0..labels {
        let i = r.random_range(0..m);
        obs.push(Observation::Label { point: i, positive: r.random::<f64>() < sigmoid(2.0 * rho(xs[i])) });
    }
    let config = ConfidenceConfig { latent_box: Some(3.0), nugget: 1e-6, ..ConfidenceConfig::with_norm_bound(b) };
    let p = ConfidenceProblem::on_candidates(&base, &[], &obs, &config).unwrap();
    let mle = p.mle().unwrap();
    (base, p, mle, r.random_range(1.0..4.0))
}

/// The curvature bounds are certified: at every point (support points and others), on duel and
/// label instances with and without the latent box, inf f̃(x) ≥ the curvature floor and
/// sup f̃(x) ≤ its cap, against independent exact solves (a fresh set per point). They are also
/// useful: the floor is above the cuts' (after a third of the points were solved) at a fifth of
/// the points or more.
#[test]
fn curvature_bounds_contain_the_exact_values() {
    let tol = 1e-6;
    let mut instances: Vec<(DMatrix<f64>, ConfidenceProblem, MleFit, f64)> = (0..6).map(random_instance).collect();
    instances.extend((0..4).map(|s| many_labels_instance(s, 60, [4.0, 8.0, 16.0, 16.0][s as usize])));
    let (mut tighter, mut points) = (0, 0);
    for (k, (base, p, mle, beta)) in instances.iter().enumerate() {
        let n = base.nrows();
        let cands = p.candidates_from_gram(base, &(0..n).collect::<Vec<_>>()).unwrap();
        let mut shared = ConfidenceSet::new(p, mle, *beta).unwrap();
        for (i, c) in cands.iter().enumerate() {
            let mut fresh = ConfidenceSet::new(p, mle, *beta).unwrap();
            let (sup, inf) = (fresh.upper_bound(c).unwrap().value, fresh.lower_bound(c).unwrap().value);
            let (lo, hi) = shared.curvature_pointwise_bounds(c).unwrap();
            assert!(lo <= inf + tol, "instance {k} point {i}: floor {lo} above inf {inf}");
            assert!(hi >= sup - tol, "instance {k} point {i}: cap {hi} below sup {sup}");
            let cheap = shared.cheap_pointwise_bounds(c).unwrap();
            points += 1;
            tighter += usize::from(lo > cheap.inf.lower + 1e-3);
            if i % 3 == 0 {
                shared.lower_bound(c).unwrap();
            }
        }
    }
    eprintln!("curvature floor tighter than the cuts' at {tighter} of {points} points");
    assert!(5 * tighter >= points, "{tighter} of {points}");
}

/// The likelihood bound without solving is certified: centred at the MLE with B, it is at least
/// the maximum likelihood with 2B (solved by clarabel) on duel and label instances with and
/// without the latent box; centred at that 2B maximiser itself it is within 10⁻⁶ of it when the
/// ball is inactive there.
#[test]
fn the_likelihood_bound_is_above_the_maximum() {
    let mut instances: Vec<(DMatrix<f64>, ConfidenceProblem, MleFit, f64)> = (0..8).map(random_instance).collect();
    instances.extend((0..4).map(|s| many_labels_instance(s, 60, [2.0, 4.0, 8.0, 16.0][s as usize])));
    let mut gaps = Vec::new();
    for (k, (_, p, mle, _)) in instances.iter().enumerate() {
        let doubled = p.with_norm_bound(2.0 * p.norm_bound()).unwrap();
        let best = doubled.mle().unwrap();
        let bound = doubled.max_log_likelihood_bound(&mle.w).unwrap();
        assert!(bound >= best.log_likelihood - 1e-7, "instance {k}: bound {bound} below ℓ* {}", best.log_likelihood);
        gaps.push(bound - best.log_likelihood);
        let at_best = doubled.max_log_likelihood_bound(&best.w).unwrap();
        assert!(at_best >= best.log_likelihood - 1e-7, "instance {k}");
        if best.w.norm() < 0.99 * doubled.norm_bound() && p.config().latent_box.is_none() {
            assert!(at_best - best.log_likelihood < 1e-6, "instance {k}: {at_best} vs {}", best.log_likelihood);
        }
    }
    eprintln!("bound − ℓ*(2B): {gaps:.3?}");
}

/// Agreement of the dense path with clarabel ([`SolverChoice`]) on random instances: the MLE and the
/// three confidence-set programs. Returns (programs compared, dense certified, fallbacks, worst
/// relative difference, worst certificate miss).
fn dense_agreement(seeds: std::ops::Range<u64>) -> Agreement {
    use bohf_core::rand::RngExt;
    let (mut compared, mut dense_count, mut fallbacks, mut inexact) = (0usize, 0usize, 0usize, 0usize);
    let (mut worst_rel, mut worst_miss) = (0.0f64, 0.0f64);
    let mut by_program = std::collections::BTreeMap::<String, (usize, usize)>::new();
    let mut tally = |name: &str, latent_box: bool, dense: bool| {
        let e = by_program.entry(format!("{name}{}", if latent_box { " (box)" } else { "" })).or_default();
        e.0 += usize::from(dense);
        e.1 += 1;
    };
    for seed in seeds {
        let mut r = bohf_core::rng::seeded(10_000 + seed);
        // 1 to 60 points in 1-D or 2-D, lengthscales from 0.05 (well conditioned) to 2 (a Gram
        // that needs the nugget or jitter); duels or labels; plateaus from repeated outcomes.
        let n_points = r.random_range(2..61usize);
        let dim = r.random_range(1..3usize);
        let xs: Vec<Vec<f64>> = (0..n_points).map(|_| (0..dim).map(|_| r.random::<f64>()).collect()).collect();
        let ls: f64 = [0.05, 0.2, 0.5, 2.0][r.random_range(0..4usize)];
        let gram = DMatrix::from_fn(n_points, n_points, |i, j| {
            let d2: f64 = xs[i].iter().zip(&xs[j]).map(|(a, b)| (a - b).powi(2)).sum();
            (-d2 / (2.0 * ls * ls)).exp()
        });
        let duels = seed % 2 == 0;
        let count = [1usize, 3, 10, 40, 150][r.random_range(0..5usize)];
        let peak: Vec<f64> = (0..dim).map(|_| r.random::<f64>()).collect();
        let f = |i: usize| -> f64 { -6.0 * xs[i].iter().zip(&peak).map(|(a, b)| (a - b).powi(2)).sum::<f64>() + 1.0 };
        let plateau = r.random::<f64>() < 0.2;
        let mut obs = Vec::new();
        for _ in 0..count {
            let i = r.random_range(0..n_points);
            if duels {
                let j = r.random_range(0..n_points);
                let p = if plateau { 1.0 } else { sigmoid(f(i) - f(j)) };
                obs.push(Observation::Duel(Duel::new(i, j, r.random::<f64>() < p)));
            } else {
                let p = if plateau { 0.0 } else { sigmoid(f(i)) };
                obs.push(Observation::Label { point: i, positive: r.random::<f64>() < p });
            }
        }
        let latent_box = if r.random::<f64>() < 0.5 { Some(r.random_range(0.5..3.5)) } else { None };
        let nugget = if ls >= 0.5 { 1e-6 } else { 0.0 };
        let norm_bound = r.random_range(0.5..20.0);
        let dense_cfg = ConfidenceConfig {
            latent_box,
            nugget,
            solver: SolverChoice::Dense,
            ..ConfidenceConfig::with_norm_bound(norm_bound)
        };
        // The reference at a tighter tolerance than the default (1e-9): at 1e-9 clarabel's optimum
        // can lie 4e-7 above the exact one (its point violates ℓ ≥ ℓ* − β by ~1e-9, times a
        // multiplier of a few hundred).
        let clarabel_cfg = ConfidenceConfig { solver: SolverChoice::Clarabel, tolerance: 1e-10, ..dense_cfg.clone() };
        let support: Vec<usize> = (0..n_points).collect();
        let pd = ConfidenceProblem::on_candidates(&gram, &support, &obs, &dense_cfg).unwrap();
        let pc = ConfidenceProblem::on_candidates(&gram, &support, &obs, &clarabel_cfg).unwrap();
        let Ok(mc) = pc.mle() else {
            continue; // clarabel failed: nothing to compare against.
        };
        let md = pd.mle().unwrap();
        compared += 1;
        tally("mle", latent_box.is_some(), md.info.method == SolveMethod::Dense);
        if md.info.method == SolveMethod::Dense {
            dense_count += 1;
        } else {
            fallbacks += 1;
        }
        let scale = md.log_likelihood.abs().max(1.0);
        if mc.info.status != SolverStatus::Solved {
            inexact += 1;
        } else {
            worst_rel = worst_rel.max((md.log_likelihood - mc.log_likelihood).abs() / scale);
        }
        assert!(
            mc.info.status != SolverStatus::Solved || (md.log_likelihood - mc.log_likelihood).abs() <= 1e-7 * scale,
            "seed {seed}: MLE {} (dense) vs {} (clarabel)",
            md.log_likelihood,
            mc.log_likelihood
        );
        // Both sets around the same MLE, so they pose the same programs.
        let beta = [1e-3, 0.1, 1.0, 5.0][r.random_range(0..4usize)];
        let mut sd = ConfidenceSet::new(&pd, &md, beta).unwrap();
        let mut sc = ConfidenceSet::new(&pc, &md, beta).unwrap();
        let others: Vec<usize> = (0..4).map(|_| r.random_range(0..n_points)).collect();
        let cands = pd.candidates_from_gram(&gram, &others).unwrap();
        // Off-support candidates: kernel vectors of fresh points.
        let fresh: Vec<Candidate> = (0..3)
            .map(|_| {
                let x: Vec<f64> = (0..dim).map(|_| r.random::<f64>()).collect();
                let kx = DVector::from_fn(n_points, |i, _| {
                    let d2: f64 = xs[i].iter().zip(&x).map(|(a, b)| (a - b).powi(2)).sum();
                    (-d2 / (2.0 * ls * ls)).exp()
                });
                pd.candidate(&kx, 1.0).unwrap()
            })
            .collect();
        let reference = r.random_range(0..n_points);
        for c in cands.iter().chain(&fresh) {
            let pairs = [
                (sd.upper_bound(c), sc.upper_bound(c)),
                (sd.lower_bound(c), sc.lower_bound(c)),
                (sd.optimistic_advantage(c, reference), sc.optimistic_advantage(c, reference)),
            ];
            for ((d, cl), name) in pairs.into_iter().zip(["upper", "lower", "advantage"]) {
                let (Ok(d), Ok(cl)) = (d, cl) else { continue };
                compared += 1;
                tally(name, latent_box.is_some(), d.certified.is_some());
                let scale = cl.value.abs().max(1.0);
                let rel = (d.value - cl.value).abs() / scale;
                // A reference that stopped short of its tolerance (AlmostSolved: gaps up to 1e-4),
                // or whose point violates the likelihood row by more than 1e-9 (its value can then
                // exceed the exact optimum by the violation times the row's multiplier: seed 871's
                // advantage, 7.2e-8 below the threshold, 1.3e-7 above the certified enclosure), is
                // not a reference to 1e-7: counted apart, the dense result still checked below.
                let (cl_ll, _) = pc.whitened_log_likelihood(&cl.w).unwrap();
                let reference_feasible = cl_ll >= sc.threshold() - 1e-9 * sc.threshold().abs().max(1.0);
                let exact_reference = cl.info.status == SolverStatus::Solved && reference_feasible;
                // A reference point that violates ℓ ≥ threshold by v > 0 (within the 1e-9 above) is
                // feasible for the set relaxed by v, whose exact value differs from the set's by up
                // to the row's multiplier times v (seed 378's upper bound: v = 1.9e-9, a multiplier
                // of about 470, clarabel 8.8e-7 above the dense enclosure and inside the relaxed
                // set's, both certified): the reference is compared with the hull of the two
                // certified enclosures, solved independently by the dense path. So is an inexact one
                // (seed 113's boxed upper bound: AlmostSolved, its point 7.6e-6 below the threshold,
                // its value 1.2e-4 above the certified enclosure and inside the relaxed set's).
                let violation = (sc.threshold() - cl_ll).max(0.0);
                let enclosure = d.certified.map(|(lo, hi)| {
                    let direct = cl.value >= lo - 1e-7 * scale && cl.value <= hi + 1e-7 * scale;
                    if direct || violation == 0.0 {
                        return (lo, hi, true);
                    }
                    // The reference is feasible for every larger relaxation too: where the fast path
                    // does not certify the set relaxed by v, it tries 2v and 4v (a wider, still valid
                    // hull; seed 378's upper bound in the long campaign).
                    for factor in [1.0, 2.0, 4.0] {
                        let mut relaxed = ConfidenceSet::new(&pd, &md, beta + factor * violation).unwrap();
                        let again = match name {
                            "upper" => relaxed.upper_bound(c),
                            "lower" => relaxed.lower_bound(c),
                            _ => relaxed.optimistic_advantage(c, reference),
                        };
                        if let Some((rlo, rhi)) = again.ok().and_then(|r| r.certified) {
                            return (lo.min(rlo), hi.max(rhi), true);
                        }
                    }
                    (lo, hi, false)
                });
                // Where no relaxed set is certified (clarabel's own answers for v, 2v and 4v then
                // moved non-monotonically by 4e-5: seed 378), the reference is not one to 1e-7; it
                // is checked as an inexact one, and, independently of both solvers, the reference
                // pulled towards the MLE ŵ until it is feasible must stay inside the enclosure: ℓ is
                // concave, so p_c + t(ŵ − p_c) satisfies ℓ ≥ threshold at t = v/(β + v), and its
                // value, linear in p, is a value of the program.
                let exact_reference = exact_reference && enclosure.is_none_or(|e| e.2);
                let enclosure = enclosure.map(|(lo, hi, _)| (lo, hi));
                if let (Some((lo, hi)), true) = (enclosure, violation > 0.0) {
                    let at_mle = md.value_at(c).unwrap()
                        - if name == "advantage" {
                            md.value_at(&pd.support_candidate(reference).unwrap()).unwrap()
                        } else {
                            0.0
                        };
                    let t = violation / (beta + violation);
                    let pulled = cl.value + t * (at_mle - cl.value);
                    let consistent =
                        if name == "lower" { pulled >= lo - 1e-7 * scale } else { pulled <= hi + 1e-7 * scale };
                    assert!(consistent, "seed {seed} {name}: a feasible value {pulled} outside [{lo}, {hi}]");
                }
                if !exact_reference {
                    inexact += 1;
                } else if let Some((lo, hi)) = enclosure {
                    // Agreement to 1e-7, or the reference inside the hull above.
                    let outside = (lo - cl.value).max(cl.value - hi).max(0.0) / scale;
                    worst_rel = worst_rel.max(rel.min(outside));
                    assert!(
                        rel <= 1e-7 || outside <= 1e-7,
                        "seed {seed} {name}: {} (dense, {:?}, enclosure {:?}) vs {} (clarabel, ℓ − threshold {:e})",
                        d.value,
                        d.info.method,
                        enclosure,
                        cl.value,
                        cl_ll - sc.threshold(),
                    );
                }
                match (d.certified, enclosure) {
                    (Some((lo, hi)), Some((hull_lo, hull_hi))) => {
                        dense_count += 1;
                        // The lower end is attained: the dense point is feasible, checked here
                        // independently (ℓ, the norm, the latent box).
                        let (ll, _) = pd.whitened_log_likelihood(&d.w).unwrap();
                        let norm2 = d.w.norm_squared() + d.omega * d.omega;
                        assert!(
                            ll >= sd.threshold() && norm2 <= norm_bound * norm_bound,
                            "seed {seed}: infeasible dense point"
                        );
                        if let Some(bx) = latent_box {
                            assert!(d.z.amax() <= bx && d.z_candidate.abs() <= bx, "seed {seed}: outside the box");
                        }
                        // Clarabel's optimum may exceed the exact one by its tolerance (its point
                        // violates ℓ ≥ ℓ* − β by up to ~1e-9, times the multiplier: the hull above).
                        // An inexact reference may also stop short of the optimum by more than its
                        // gap suggests (a program of seed 141: 1.65e-4 below the dense point, which
                        // the check above found feasible): the lower end is then
                        // checked by that feasibility alone, the upper end against the reference.
                        let slack = if exact_reference { 1e-7 * scale } else { 1e-4 * scale };
                        let below = if exact_reference { hull_lo - cl.value - slack } else { f64::NEG_INFINITY };
                        worst_miss = worst_miss.max(below).max(cl.value - hull_hi - slack);
                        assert!(
                            lo <= hi && below <= 0.0 && cl.value <= hull_hi + slack,
                            "seed {seed}: [{lo}, {hi}] (hull [{hull_lo}, {hull_hi}]) vs {} ({:?}, reference feasible: {reference_feasible})",
                            cl.value,
                            cl.info.status
                        );
                    }
                    _ => fallbacks += 1,
                }
            }
        }
    }
    Agreement { compared, dense: dense_count, fallbacks, inexact, worst_rel, worst_miss, by_program }
}

/// What [`dense_agreement`] found.
#[derive(Debug)]
#[allow(dead_code)] // Read through Debug.
struct Agreement {
    compared: usize,
    dense: usize,
    fallbacks: usize,
    /// Comparisons whose clarabel reference stopped at AlmostSolved (not a reference to 1e-7).
    inexact: usize,
    worst_rel: f64,
    worst_miss: f64,
    /// (certified by the dense path, compared) per program and latent box.
    by_program: std::collections::BTreeMap<String, (usize, usize)>,
}

#[test]
fn dense_path_agrees_with_clarabel() {
    let a = dense_agreement(0..150);
    eprintln!("{a:?}");
    assert!(a.compared > 1000);
    // What the dense path cannot certify goes to clarabel (counted); a regression guard on how
    // much it certifies on these small instances (measured: docs/confidence.md, "The dense path").
    assert!(a.dense * 2 >= a.compared, "{a:?}");
}

/// The long campaign (issue 30 asks for ≥ 5,000 instances; 1,000 seeds pose about 22,000 programs,
/// ~10 min): `cargo test -p bohf-confidence --release --
/// --ignored dense_path_agrees_with_clarabel_long --nocapture`.
#[test]
#[ignore]
fn dense_path_agrees_with_clarabel_long() {
    let a = dense_agreement(0..1000);
    eprintln!("{a:?}");
}

/// The warm start of the fast path ([`crate::dual`]): D is positively homogeneous in (g, λ, μ), so
/// the program of 3g, started from the multipliers of g's program (scaled by ‖3g‖/‖g‖), starts at
/// its optimum; solved cold in a fresh set it takes as many steps as g's did.
#[test]
fn a_program_starts_from_the_previous_programs_multipliers() {
    let (k, obs) = duel_data();
    let p = ConfidenceProblem::new(&k, &obs, &tight(3.0)).unwrap();
    let fit = p.mle().unwrap();
    let c1 = p.candidate(&k.column(4).clone_owned(), 1.0).unwrap();
    let c3 = p.candidate(&(k.column(4) * 3.0), 9.0).unwrap();
    let mut set = ConfidenceSet::new(&p, &fit, 0.05).unwrap();
    let first = set.upper_bound(&c1).unwrap();
    let warm = set.upper_bound(&c3).unwrap();
    let cold = ConfidenceSet::new(&p, &fit, 0.05).unwrap().upper_bound(&c3).unwrap();
    for s in [&first, &warm, &cold] {
        assert_eq!(s.info.method, SolveMethod::Dense, "{:?}", s.info);
    }
    assert_relative_eq!(warm.value, 3.0 * first.value, max_relative = 1e-8);
    assert_relative_eq!(cold.value, warm.value, max_relative = 1e-8);
    assert!(
        first.info.iterations >= 4 && cold.info.iterations >= 4,
        "{} {}",
        first.info.iterations,
        cold.info.iterations
    );
    assert!(warm.info.iterations <= 2, "warm start took {} outer steps", warm.info.iterations);
}

/// A boxed MLE started from the MLE of the first n − 1 labels ([`ConfidenceProblem::mle_from_start`],
/// COBOL's next iteration) is certified as the cold one: the same ℓ* to the MLE's tolerance
/// (1e-11 of max(W, |φ|), twice, plus the re-evaluation's rounding), both within clarabel's
/// tolerance of clarabel's MLE (an independent solver), in fewer outer steps (or certified where
/// the cold dual path fell back to clarabel). Labels as COBOL's at
/// a = 2 (most rejected, some points labelled twice), so many box rows are active; the last point
/// is put where the earlier MLE's interpolant leaves the box in some seeds. A start that does not
/// fit (longer than the support) is ignored: the cold MLE, bit for bit.
#[test]
fn a_warm_started_mle_agrees_with_the_cold_one() {
    use bohf_core::rand::RngExt;
    let (mut fewer_steps, mut tested, mut compared) = (0, 0, 0);
    for seed in 0..16 {
        let mut r = bohf_core::rng::seeded(100 + seed);
        let n = 80;
        let peak: f64 = r.random();
        let mut xs: Vec<f64> = (0..n).map(|_| r.random()).collect();
        // Some repeated points (COBOL labels x^c more than once).
        for i in (10..n).step_by(9) {
            xs[i] = xs[i - 7];
        }
        let rho = |x: f64| 3.0 - 6.0 * (-(x - peak).powi(2) / 0.02).exp();
        let obs: Vec<Observation> = (0..n)
            .map(|i| Observation::Label { point: i, positive: r.random::<f64>() < sigmoid(2.0 * rho(xs[i])) })
            .collect();
        let gram = se_gram(&xs, 0.1);
        let config =
            ConfidenceConfig { latent_box: Some(3.0), nugget: 1e-6, ..ConfidenceConfig::with_norm_bound(16.0) };
        let prefix =
            ConfidenceProblem::new(&gram.view((0, 0), (n - 1, n - 1)).into_owned(), &obs[..n - 1], &config).unwrap();
        let full = ConfidenceProblem::new(&gram, &obs, &config).unwrap();
        // Only a boxed MLE certified by the dual path gives a start (clarabel's fallback none).
        let Some(start) = prefix.mle().unwrap().warm_start else { continue };
        tested += 1;
        assert!(!start.rows.is_empty(), "seed {seed}: no active box row");
        let cold = full.mle().unwrap();
        let warm = full.mle_from_start(Some(&start)).unwrap();
        for fit in [&cold, &warm] {
            assert!(fit.z.amax() <= 3.0 * (1.0 + 1e-9), "seed {seed}: outside the box");
            assert!(fit.norm() <= 16.0 * (1.0 + 1e-9), "seed {seed}: outside the ball");
        }
        let scale = (n as f64).max(cold.log_likelihood.abs());
        let d = (warm.log_likelihood - cold.log_likelihood).abs();
        assert!(d <= 3e-11 * scale, "seed {seed}: ℓ* {} (warm) vs {} (cold)", warm.log_likelihood, cold.log_likelihood);
        let reference = full.mle_clarabel().unwrap();
        for fit in [&cold, &warm] {
            let gap = reference.log_likelihood - fit.log_likelihood;
            assert!(gap.abs() <= 1e-6 * scale, "seed {seed}: {gap} from clarabel's MLE");
        }
        let dense = |f: &MleFit| f.info.method == crate::SolveMethod::Dense;
        // Where both fell back to clarabel (which takes no start) there is nothing to compare; the
        // warm start must never lose the dense path where the cold solve kept it.
        if dense(&cold) || dense(&warm) {
            compared += 1;
            assert!(dense(&warm), "seed {seed}: the warm start lost the dense path");
            fewer_steps += usize::from(!dense(&cold) || warm.info.iterations < cold.info.iterations);
        }
        eprintln!(
            "seed {seed}: cold {:?} {} steps, warm {:?} {} steps, ℓ* difference {d:.1e}",
            cold.info.method, cold.info.iterations, warm.info.method, warm.info.iterations
        );
        // A start longer than the support does not apply.
        let long = crate::MleWarmStart { w: vec![0.0; n + 5], ..start.clone() };
        let ignored = full.mle_from_start(Some(&long)).unwrap();
        assert_eq!(
            (&ignored.w, ignored.log_likelihood.to_bits()),
            (&cold.w, cold.log_likelihood.to_bits()),
            "seed {seed}"
        );
    }
    assert!(
        tested >= 5 && compared >= 5 && fewer_steps == compared,
        "the warm start saved steps in {fewer_steps} of the {compared} instances with a dense solve ({tested} with a start)"
    );
}

#[test]
fn the_advantage_at_the_reference_is_exactly_zero_without_a_solver() {
    // POP-BO's search reaches x = x′, whose direction g = (l_x − L[r, :], ρ_x) is exactly 0: the
    // value is 0 at every point of the (nonempty) set. Before, the fast path could not certify this
    // degenerate program and clarabel solved it in every such step.
    let xs = grid(15);
    let base = se_gram(&xs, 0.2);
    let d = |a, b, w| Observation::Duel(Duel::new(a, b, w));
    let obs = vec![d(9, 4, true), d(11, 9, false), d(9, 4, true), d(2, 9, false), d(13, 11, true)];
    for latent_box in [None, Some(1.0)] {
        for solver in [SolverChoice::Dense, SolverChoice::Clarabel] {
            let config = ConfidenceConfig { latent_box, solver, ..tight(2.0) };
            let p = ConfidenceProblem::on_candidates(&base, &[4], &obs, &config).unwrap();
            let mle = p.mle().unwrap();
            let beta = 1.0;
            let mut set = ConfidenceSet::new(&p, &mle, beta).unwrap();
            let all: Vec<usize> = (0..15).collect();
            let cands = p.candidates_from_gram(&base, &all).unwrap();
            let r = p.support_position(9).unwrap();
            let at_reference = set.optimistic_advantage(&cands[9], r).unwrap();
            assert_eq!(at_reference.value, 0.0);
            assert_eq!(at_reference.certified, Some((0.0, 0.0)));
            assert_eq!(at_reference.info.method, SolveMethod::Exact);
            let counts = set.solve_counts();
            assert_eq!((counts.exact, counts.dense, counts.fallback, counts.clarabel), (1, 0, 0, 0));
            // Its point is in the set: ℓ ≥ ℓ* − β, ‖w‖ ≤ B, and inside the latent box.
            assert!(p.log_likelihood(&at_reference.z).unwrap() >= mle.log_likelihood - beta - 1e-12);
            assert!(at_reference.w.norm() <= 2.0 * (1.0 + 1e-9));
            if let Some(bx) = latent_box {
                assert!(at_reference.z.amax() <= bx * (1.0 + 1e-9));
            }
            // The screened argmax against every candidate solved alone (a fresh set each, so no
            // shared cut or point): the same maximum, and 0 is never above it.
            let alone: Vec<f64> = cands
                .iter()
                .map(|c| ConfidenceSet::new(&p, &mle, beta).unwrap().optimistic_advantage(c, r).unwrap().value)
                .collect();
            let best = alone.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let search =
                ConfidenceSet::new(&p, &mle, beta).unwrap().maximise_advantage(&cands, r, Some(&cands[9])).unwrap();
            assert!((search.value - best).abs() <= 1e-7 * best.abs().max(2.0), "{} vs {best}", search.value);
            assert!(best >= 0.0);
            // A nonzero direction is still solved.
            let other = ConfidenceSet::new(&p, &mle, beta).unwrap().optimistic_advantage(&cands[3], r).unwrap();
            assert_ne!(other.info.method, SolveMethod::Exact);
        }
    }
}

/// `distinct + extra` uniform points of the unit cube; with `faces`, 70 % of the first `distinct`
/// moved onto a face (one coordinate at 0 or 1) or, 40 % of those, a corner (all three). The last
/// two (off the support): the cube's centre and a point near a corner.
fn cube_points(r: &mut bohf_core::rng::BohfRng, distinct: usize, extra: usize, faces: bool) -> Vec<[f64; 3]> {
    use bohf_core::rand::RngExt;
    let mut xs: Vec<[f64; 3]> = (0..distinct + extra)
        .map(|k| {
            let mut x = [r.random::<f64>(), r.random::<f64>(), r.random::<f64>()];
            if faces && k < distinct && r.random::<f64>() < 0.7 {
                let corner = r.random::<f64>() < 0.4;
                for (d, v) in x.iter_mut().enumerate() {
                    if corner || d == k % 3 {
                        *v = if r.random::<f64>() < 0.5 { 0.0 } else { 1.0 };
                    }
                }
            }
            x
        })
        .collect();
    let m = xs.len();
    xs[m - 1] = [0.5, 0.5, 0.5];
    xs[m - 2] = [0.9, 0.1, 0.95];
    xs
}

/// The anisotropic SE Gram exp(−½ Σ_d ((x_d − y_d)/ℓ_d)²) over `xs` with lengthscales `ls`.
fn se_gram_3d(xs: &[[f64; 3]], ls: [f64; 3]) -> DMatrix<f64> {
    DMatrix::from_fn(xs.len(), xs.len(), |i, j| {
        let d2: f64 = (0..3).map(|d| ((xs[i][d] - xs[j][d]) / ls[d]).powi(2)).sum();
        (-0.5 * d2).exp()
    })
}

/// The same boxed problem twice on `gram`'s first points with observations `obs` (latent box
/// `latent_box`, nugget 1e-6, B = `norm_bound`): for the fast path (`SolverChoice::Dense`) and for
/// clarabel as the reference (tolerance 1e-10).
fn dense_and_clarabel(
    gram: &DMatrix<f64>,
    obs: &[Observation],
    latent_box: f64,
    norm_bound: f64,
) -> (ConfidenceProblem, ConfidenceProblem) {
    let config = |solver| ConfidenceConfig {
        latent_box: Some(latent_box),
        nugget: 1e-6,
        solver,
        ..ConfidenceConfig::with_norm_bound(norm_bound)
    };
    let dense = ConfidenceProblem::on_candidates(gram, &[], obs, &config(SolverChoice::Dense)).unwrap();
    let clarabel_cfg = ConfidenceConfig { tolerance: 1e-10, ..config(SolverChoice::Clarabel) };
    let clarabel = ConfidenceProblem::on_candidates(gram, &[], obs, &clarabel_cfg).unwrap();
    (dense, clarabel)
}

/// A COBOL-like feasibility instance that defeated the fast path's active-set box solve
/// (`dual/boxed/latent.rs`, "Why"): `labels` accept/reject labels, nearly all rejects, on 3-D
/// points of which most sit on the faces and corners of the unit cube and many are labelled
/// several times; an anisotropic SE kernel with one long lengthscale (COBOL's working-unit
/// [0.24, 0.5, 2.1]), nugget 1e-6, latent box 3, B = 32. Returns the Gram over the labelled points
/// followed by `extra` off-support points, and the observations.
fn face_labels_instance(seed: u64, labels: usize, extra: usize) -> (DMatrix<f64>, Vec<Observation>) {
    use bohf_core::rand::RngExt;
    let mut r = bohf_core::rng::seeded(seed);
    let distinct = labels * 9 / 10;
    let xs = cube_points(&mut r, distinct, extra, true);
    let gram = se_gram_3d(&xs, [0.24, 0.5, 2.08]);
    // Accepted only near one corner, rarely.
    let accept = |x: &[f64; 3]| sigmoid(4.0 - 12.0 * ((x[0] - 1.0).powi(2) + x[1].powi(2) + (x[2] - 1.0).powi(2)));
    let obs = (0..labels)
        .map(|k| {
            let i = if k < distinct { k } else { r.random_range(0..distinct) };
            Observation::Label { point: i, positive: r.random::<f64>() < accept(&xs[i]) }
        })
        .collect();
    (gram, obs)
}

/// A guard on the latent box's bound programs on COBOL-like feasibility labels
/// (`dual/boxed/latent.rs`): on [`face_labels_instance`] the fast path certifies the MLE and the
/// pointwise lower bounds at off-support points (on the faces, in the interior), none falls back
/// to clarabel, and the values agree with clarabel's (at 1e-10) to 1e-7 relative. (These small
/// instances do not make the active-set inner box solve fail as the recorded 492-label
/// checkpoint does, COBOL's `diagnostic_checkpoint_decide`; a 400-label one does:
/// [`the_latent_method_takes_over_where_the_active_set_method_runs_out_of_steps`].)
#[test]
fn bounds_on_face_labels_are_certified_by_the_fast_path() {
    let (labels, extra) = (160, 6);
    for seed in [3u64, 4] {
        let (gram, obs) = face_labels_instance(seed, labels, extra);
        let n = gram.nrows() - extra;
        let (dense, clarabel) = dense_and_clarabel(&gram, &obs, 3.0, 32.0);
        let mle = dense.mle().unwrap();
        assert_eq!(mle.info.method, SolveMethod::Dense, "seed {seed}: the MLE");
        let support = dense.support().unwrap().to_vec();
        let cands: Vec<Candidate> = (n..gram.nrows())
            .map(|col| {
                let kx = DVector::from_fn(support.len(), |i, _| gram[(support[i], col)]);
                dense.candidate(&kx, 1.0).unwrap()
            })
            .collect();
        let beta = 3.0;
        let mut sd = ConfidenceSet::new(&dense, &mle, beta).unwrap();
        let mut sc = ConfidenceSet::new(&clarabel, &mle, beta).unwrap();
        for (k, c) in cands.iter().enumerate() {
            let (d, cl) = (sd.lower_bound(c).unwrap(), sc.lower_bound(c).unwrap());
            let scale = cl.value.abs().max(1.0);
            // 1e-7: the reference solves to 1e-10, the fast path certifies 1e-9 relative.
            assert!(
                (d.value - cl.value).abs() <= 1e-7 * scale,
                "seed {seed}, candidate {k}: {} (dense, {:?}) vs {} (clarabel)",
                d.value,
                d.certified,
                cl.value
            );
        }
        let counts = sd.solve_counts();
        eprintln!("seed {seed}: {counts:?}");
        assert!(counts.dense > 0 && counts.fallback == 0 && counts.clarabel == 0, "seed {seed}: {counts:?}");
    }
}

/// An instance for the latent method's tests: `count` labels or duels on 3-D points, the Gram over
/// the points (the last `extra` of them off the support: the centre, a point near a corner, and
/// random ones) and the observations. `faces`: as [`face_labels_instance`] (most points on the
/// cube's faces and corners, repeated, nearly all rejects, the anisotropic SE kernel of COBOL's
/// working units); otherwise well-spread points, an isotropic SE kernel of lengthscale 0.4 and
/// outcomes from a smooth utility.
fn latent_instance(seed: u64, count: usize, duels: bool, faces: bool) -> (DMatrix<f64>, Vec<Observation>, usize) {
    use bohf_core::rand::RngExt;
    let extra = 5;
    let mut r = bohf_core::rng::seeded(seed);
    let distinct = if faces { (count * 9 / 10).max(2) } else { count.clamp(2, 60) };
    let xs = cube_points(&mut r, distinct, extra, faces);
    let gram = se_gram_3d(&xs, if faces { [0.24, 0.5, 2.08] } else { [0.4; 3] });
    let corner = |x: &[f64; 3]| (x[0] - 1.0).powi(2) + x[1].powi(2) + (x[2] - 1.0).powi(2);
    let f = |x: &[f64; 3]| if faces { 4.0 - 12.0 * corner(x) } else { 2.0 - 4.0 * corner(x) };
    // Every point labelled at least once (faces) so that the support is the first `distinct`.
    let pick =
        |k: usize, r: &mut bohf_core::rng::BohfRng| if faces && k < distinct { k } else { r.random_range(0..distinct) };
    let obs = (0..count)
        .map(|k| {
            let i = pick(k, &mut r);
            if duels {
                let j = r.random_range(0..distinct);
                Observation::Duel(Duel::new(i, j, r.random::<f64>() < sigmoid(f(&xs[i]) - f(&xs[j]))))
            } else {
                Observation::Label { point: i, positive: r.random::<f64>() < sigmoid(f(&xs[i])) }
            }
        })
        .collect();
    (gram, obs, extra)
}

/// What [`latent_agreement`] found.
#[derive(Debug, Default)]
#[allow(dead_code)] // Read through Debug.
struct LatentAgreement {
    /// Bound programs compared with clarabel, and those the forced fast path certified.
    compared: usize,
    certified: usize,
    /// Comparisons whose reference was not Solved or whose point violates the likelihood row.
    inexact: usize,
    worst_rel: f64,
    /// The worst distance of clarabel's value outside a certified enclosure, relative.
    worst_outside: f64,
    latent: crate::dual::testing::LatentCounts,
}

/// Lower and upper bounds of one instance with the latent method forced ([`crate::dual::testing`])
/// against clarabel at 1e-10; adds to `out`.
fn latent_agreement(
    (gram, obs, extra): (DMatrix<f64>, Vec<Observation>, usize),
    latent_box: f64,
    norm_bound: f64,
    beta: f64,
    out: &mut LatentAgreement,
    label: &str,
) {
    let (dense, clarabel) = dense_and_clarabel(&gram, &obs, latent_box, norm_bound);
    let mle = dense.mle().unwrap();
    let n = dense.support().unwrap().len();
    // The off-support points and a few support points.
    let m = gram.nrows();
    let indices: Vec<usize> =
        (m - extra..m).chain([0, n / 2, n - 1].into_iter().map(|k| dense.support().unwrap()[k])).collect();
    let cands = dense.candidates_from_gram(&gram, &indices).unwrap();
    let mut sd = ConfidenceSet::new(&dense, &mle, beta).unwrap();
    let mut sc = ConfidenceSet::new(&clarabel, &mle, beta).unwrap();
    for (k, c) in cands.iter().enumerate() {
        for (name, d, cl) in
            [("lower", sd.lower_bound(c), sc.lower_bound(c)), ("upper", sd.upper_bound(c), sc.upper_bound(c))]
        {
            let (d, cl) = (d.unwrap(), cl.unwrap());
            out.compared += 1;
            let scale = cl.value.abs().max(1.0);
            let (cl_ll, _) = clarabel.whitened_log_likelihood(&cl.w).unwrap();
            let exact = cl.info.status == SolverStatus::Solved
                && cl_ll >= sc.threshold() - 1e-9 * sc.threshold().abs().max(1.0);
            if !exact {
                out.inexact += 1;
            }
            let rel = (d.value - cl.value).abs() / scale;
            if exact {
                out.worst_rel = out.worst_rel.max(rel);
                assert!(
                    rel <= 1e-7,
                    "{label}, candidate {k} {name}: {} (dense, {:?}) vs {} (clarabel)",
                    d.value,
                    d.certified,
                    cl.value
                );
            }
            if let Some((lo, hi)) = d.certified {
                out.certified += 1;
                // Clarabel's value lies within its own tolerance of the exact optimum (1e-7
                // relative: its point may violate the likelihood row by ~1e-9 times a multiplier).
                let slack = if exact { 1e-7 } else { 1e-4 } * scale;
                let outside = (lo - cl.value).max(cl.value - hi).max(0.0) / scale;
                out.worst_outside = out.worst_outside.max(outside);
                assert!(
                    lo <= hi && cl.value >= lo - slack && cl.value <= hi + slack,
                    "{label}, candidate {k} {name}: [{lo}, {hi}] vs {} (clarabel, {:?})",
                    cl.value,
                    cl.info.status
                );
                // The attained end: the dense point is feasible.
                let (ll, _) = dense.whitened_log_likelihood(&d.w).unwrap();
                assert!(ll >= sd.threshold(), "{label}, candidate {k} {name}: infeasible point");
                assert!(d.z.amax() <= latent_box, "{label}, candidate {k} {name}: outside the box");
            }
        }
    }
    eprintln!("{label}: n = {n}, {:?} {:?}", sd.solve_counts(), crate::dual::testing::peek());
}

/// The projected Newton method in the latent values (`dual/boxed/latent.rs`), forced for every
/// boxed program whose box rows are the support points' alone (the MLE, lower and upper bounds),
/// against clarabel at 1e-10: labels and duels, COBOL-like instances (mostly rejects on the cube's
/// faces, repeated points, an anisotropic kernel) and well-spread ones, 10 to 200 observations, a
/// box active at the bounds' optima (1–3) and one that is not (30 with B = 4).
#[test]
fn the_latent_method_agrees_with_clarabel() {
    use crate::dual::testing;
    let mut out = LatentAgreement::default();
    testing::take();
    testing::force_latent(true);
    let cases: &[(u64, usize, bool, bool, f64, f64, f64)] = &[
        // (seed, observations, duels, faces, box, B, β)
        (1, 10, false, true, 1.0, 32.0, 3.0),
        (2, 40, false, true, 3.0, 32.0, 3.0),
        (3, 120, false, true, 3.0, 32.0, 3.0),
        (4, 200, false, true, 2.0, 32.0, 1.0),
        (5, 30, true, true, 1.5, 32.0, 3.0),
        (6, 150, true, true, 3.0, 32.0, 3.0),
        (7, 20, false, false, 1.0, 10.0, 1.0),
        (8, 80, true, false, 1.0, 10.0, 3.0),
        (9, 150, false, false, 2.0, 20.0, 5.0),
        (10, 60, true, false, 30.0, 4.0, 1.0),
        (11, 100, false, true, 30.0, 4.0, 3.0),
    ];
    for &(seed, count, duels, faces, latent_box, b, beta) in cases {
        let label = format!("seed {seed} ({count} {}, faces {faces})", if duels { "duels" } else { "labels" });
        latent_agreement(latent_instance(seed, count, duels, faces), latent_box, b, beta, &mut out, &label);
    }
    testing::force_latent(false);
    out.latent = testing::take();
    eprintln!("{out:?}");
    // The latent method ran from the first inner solve on every program the fast path tried whose
    // box rows are the support points' (the MLEs and nearly all bounds: not those of seed 4 after
    // the set gave up on the fast path).
    assert!(out.latent.forced == out.latent.programs && out.latent.programs * 10 >= out.compared * 9, "{out:?}");
    assert!(out.latent.solves >= out.latent.programs && out.latent.converged > 0, "{out:?}");
    // Measured (2026-12-01): 154 of 176 compared programs certified (87.5%), worst relative
    // difference 5.9e-10, clarabel within 1e-7 of every certified enclosure (exact references);
    // 318 latent inner solves, 310 converged. Of the 22 not certified, 6 (seeds 1, 2, 6, 7, 9) fall
    // back unforced too; 16 are seed 4's (200 labels, n = 180, box 2, β = 1), which all certify
    // unforced: forced from the first inner solve, the latent method spends one factorisation per
    // step and runs out of the program's MAX_FACTORISATIONS (120), and after four fallbacks the
    // set stops trying the fast path.
    assert!(out.certified * 10 >= out.compared * 8, "{out:?}");
}

/// The original failure of the active-set inner box solve (`dual/boxed/latent.rs`, "Why"), on a
/// synthetic instance: [`face_labels_instance`] at 400 labels (360 support points), latent box 3,
/// B = 32, β = 3. The active-set method runs out of its steps (MAX_INNER_STEPS) in one of the lower
/// bounds at three off-support points (measured: one such inner solve, one switch, 7 latent inner
/// solves, all converged); the latent method takes over (unforced) and converges, and all three
/// bounds are certified and agree with clarabel at 1e-10 to 1e-7 relative (measured: 4.5e-9
/// relative at worst, that reference AlmostSolved). At 480 labels (seed 22) the latent method
/// fails too on 3 of 3 bounds (4 of its 8 inner solves converge): those fall back to clarabel.
/// With the `lapack` feature (other rounding in the factorisations) the active-set method
/// converges on all three (CI, 2026-12-01), so there the test checks the agreement only.
#[test]
fn the_latent_method_takes_over_where_the_active_set_method_runs_out_of_steps() {
    use crate::dual::testing;
    testing::force_latent(false);
    testing::take();
    let (gram, obs) = face_labels_instance(21, 400, 6);
    let (dense, clarabel) = dense_and_clarabel(&gram, &obs, 3.0, 32.0);
    let mle = dense.mle().unwrap();
    // (The MLE's inner solves converge by the active-set method; counted apart from the bounds'.)
    testing::take();
    let m = gram.nrows();
    let cands = dense.candidates_from_gram(&gram, &[m - 1, m - 2, m - 3]).unwrap();
    let mut sd = ConfidenceSet::new(&dense, &mle, 3.0).unwrap();
    let mut sc = ConfidenceSet::new(&clarabel, &mle, 3.0).unwrap();
    for (k, c) in cands.iter().enumerate() {
        let (d, cl) = (sd.lower_bound(c).unwrap(), sc.lower_bound(c).unwrap());
        let scale = cl.value.abs().max(1.0);
        eprintln!(
            "candidate {k}: {} (dense, {:?}) vs {} (clarabel, {:?})",
            d.value, d.certified, cl.value, cl.info.status
        );
        assert!((d.value - cl.value).abs() <= 1e-7 * scale, "candidate {k}: {} vs {}", d.value, cl.value);
        let (lo, hi) = d.certified.expect("certified");
        assert!(
            cl.value >= lo - 1e-7 * scale && cl.value <= hi + 1e-7 * scale,
            "candidate {k}: [{lo}, {hi}] vs {}",
            cl.value
        );
    }
    let counts = testing::take();
    eprintln!("{:?} {counts:?}", sd.solve_counts());
    // Whether the active-set method runs out of steps depends on the factorisations' rounding:
    // measured in the default build (1 bound of 3), not with the `lapack` feature's. Where it does,
    // the latent method takes over and converges. (The forced agreement test covers the latent
    // method in both builds.)
    assert!(counts.step_limit == 0 || (counts.switches >= 1 && counts.converged == counts.solves), "{counts:?}");
    assert_eq!(sd.solve_counts().fallback, 0);
}
