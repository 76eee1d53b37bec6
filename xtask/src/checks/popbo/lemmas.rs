//! POP-BO checks, part 2: lemma identities (C.3, A.1, A.2, 4.1 with optimism and the t = 0 closed form).

use super::*;

// ---------------------------------------------------------------------------------------------
// 3. Lemma C.3, A.1, A.2.

/// Random duels among `n` support points.
pub(super) fn random_duels(n: usize, t: usize, rng: &mut impl rand::Rng) -> Vec<Observation> {
    (0..t)
        .map(|_| {
            let i = rng.random_range(0..n);
            let j = (i + rng.random_range(1..n)) % n;
            Observation::Duel(Duel::new(i, j, rng.random::<bool>()))
        })
        .collect()
}

/// Lemma C.3: ‖f₁ − f₂‖∞ ≤ ε ⇒ |ℓ(f₁) − ℓ(f₂)| ≤ C_L ε t; each duel term log σ(s·d) is 1-Lipschitz in
/// d and d moves by ≤ 2ε, so even 2εt ≤ C_L ε t (notes §4.7 item 4). ℓ from the library's eq. (21).
pub(super) fn lemma_c3(quick: bool) -> Vec<Row> {
    let name = "identity.popbo-lemma-c3";
    let claim = "POP-BO Lemma C.3: |ℓ_t(f₁) − ℓ_t(f₂)| ≤ C_L ε t when ‖f₁ − f₂‖∞ ≤ ε";
    guarded(name, claim, || {
        let trials = if quick { 300 } else { 3000 };
        let b = 2.0;
        let cl = lipschitz_constant(b).map_err(err)?;
        let mut rng = bohf_core::rng::stream(31, &[0]);
        let mut worst = 0.0f64;
        for k in 0..trials {
            let n = 8;
            let t = 1 + rng.random_range(0..60);
            let obs = random_duels(n, t, &mut rng);
            let eps = [1e-3, 0.1, 1.0][k % 3];
            let z1 = DVector::from_fn(n, |_, _| b * (2.0 * rng.random::<f64>() - 1.0));
            let z2 = DVector::from_fn(n, |i, _| z1[i] + eps * (2.0 * rng.random::<f64>() - 1.0));
            let d = (log_likelihood(&obs, &z1).map_err(err)? - log_likelihood(&obs, &z2).map_err(err)?).abs();
            worst = worst.max(d / (eps * t as f64));
        }
        Ok(vec![
            Row::at_most(
                name,
                &format!(
                    "{claim}; sharper 2εt (1-Lipschitz log σ); {trials} random data sets, B = {b}, ε ∈ {{1e-3, 0.1, 1}}"
                ),
                "max |Δℓ|/(εt)",
                worst,
                "2",
                2.0,
            ),
            Row::at_most(name, &format!("{claim}; same trials"), "max |Δℓ|/(εt)", worst, "C_L", cl),
        ])
    })
}

/// Lemma A.1: ψ(y, y′) = log(e^y + e^{y′}) is convex, so ℓ(Z) is concave; finite second differences of
/// the library's ℓ along random directions against the analytic −Σ σ′(d_τ)(v_i − v_j)² (and ≤ 0).
pub(super) fn lemma_a1_concavity(quick: bool) -> Vec<Row> {
    let name = "identity.popbo-lemma-a1";
    let claim = "POP-BO Lemma A.1: ℓ(Z | D) concave (Hessian −Σσ′(d)(e_i−e_j)(e_i−e_j)ᵀ)";
    guarded(name, claim, || {
        let trials = if quick { 300 } else { 3000 };
        let mut rng = bohf_core::rng::stream(32, &[0]);
        let (mut max_second, mut max_rel) = (f64::NEG_INFINITY, 0.0f64);
        let h = 1e-3;
        for _ in 0..trials {
            let n = 10;
            let t = 1 + rng.random_range(0..60);
            let obs = random_duels(n, t, &mut rng);
            let z = DVector::from_fn(n, |_, _| 6.0 * (2.0 * rng.random::<f64>() - 1.0));
            let mut v = DVector::from_fn(n, |_, _| 2.0 * rng.random::<f64>() - 1.0);
            v /= v.norm();
            let l = |zz: &DVector<f64>| log_likelihood(&obs, zz).map_err(err);
            let second = l(&(&z + &v * h))? - 2.0 * l(&z)? + l(&(&z - &v * h))?;
            let mut analytic = 0.0;
            for o in &obs {
                let Observation::Duel(Duel { first, second: s, .. }) = *o else { unreachable!() };
                let d = z[first] - z[s];
                analytic -= sigmoid(d) * (1.0 - sigmoid(d)) * (v[first] - v[s]).powi(2);
            }
            analytic *= h * h;
            max_second = max_second.max(second);
            // Allowed: the O(h²) truncation (relative 1e-3) plus the rounding of three ℓ values of
            // size |ℓ| (≈ 4·2⁻⁵²|ℓ| ≤ 1e-12(1 + |ℓ|)).
            let allowed = 1e-3 * analytic.abs() + 1e-12 * (1.0 + l(&z)?.abs());
            max_rel = max_rel.max((second - analytic).abs() / allowed);
        }
        Ok(vec![
            Row::at_most(
                name,
                &format!("{claim}; {trials} random data sets (|z| ≤ 6), step h = 1e-3"),
                "max second difference ℓ(Z+hv) − 2ℓ(Z) + ℓ(Z−hv)",
                max_second,
                "0 + rounding",
                1e-10,
            ),
            Row::at_most(
                name,
                &format!("{claim}; second difference = h²vᵀ∇²ℓ v"),
                "max |Δ|/(1e-3·|h²vᵀ∇²ℓv| + 1e-12(1+|ℓ|))",
                max_rel,
                "1 (O(h²) truncation + rounding)",
                1.0,
            ),
        ])
    })
}

/// Lemma A.2: ‖f‖_k ≤ B ⇒ |f(x)| ≤ B√k(x,x); random f = Σαᵢk(·,cᵢ) rescaled to ‖f‖ = B (norm √(αᵀKα)).
pub(super) fn lemma_a2(quick: bool) -> Vec<Row> {
    let name = "identity.popbo-lemma-a2";
    let claim = "POP-BO Lemma A.2: |f(x)| ≤ B√k(x,x) for ‖f‖_k ≤ B";
    guarded(name, claim, || {
        let trials = if quick { 200 } else { 2000 };
        let mut rng = bohf_core::rng::stream(33, &[0]);
        let b = 2.0;
        let ls = 0.2;
        let xs: Vec<Vec<f64>> = (0..=400).map(|i| vec![i as f64 / 400.0]).collect();
        let mut worst = 0.0f64;
        for _ in 0..trials {
            let m = 1 + rng.random_range(0..8);
            let c: Vec<Vec<f64>> = (0..m).map(|_| vec![rng.random::<f64>()]).collect();
            let alpha = DVector::from_fn(m, |_, _| 2.0 * rng.random::<f64>() - 1.0);
            let k = gram_by_hand(&c, |a, b2| matern52(ls, a, b2));
            let norm = alpha.dot(&(&k * &alpha)).sqrt();
            for x in &xs {
                let f: f64 = (0..m).map(|i| alpha[i] * matern52(ls, x, &c[i])).sum::<f64>() * b / norm;
                worst = worst.max(f.abs() / (b * matern52(ls, x, x).sqrt()));
            }
        }
        Ok(vec![Row::at_most(
            name,
            &format!("{claim}; {trials} random Matérn-5/2 (ℓ=0.2) expansions on [0,1], B = {b}, 401 points"),
            "max |f(x)|/(B√k(x,x))",
            worst,
            "1",
            1.0,
        )])
    })
}

// ---------------------------------------------------------------------------------------------
// 4. Lemma 4.1, optimism, t = 0 closed form.

/// A BTL answer P(x ≻ x′) = σ(f(x) − f(x′)) (Assumption 2.5).
pub(super) fn btl(f: &[f64], i: usize, j: usize, rng: &mut impl rand::Rng) -> bool {
    rng.random::<f64>() < sigmoid(f[i] - f[j])
}

/// One POP-BO step against BTL answers from `f` (values on the candidates); returns (x_t, x′_t).
pub(super) fn step(p: &mut PopBo, f: &[f64], alg: &mut impl rand::Rng, resp: &mut impl rand::Rng) -> R<(usize, usize)> {
    let q = p.suggest(alg).map_err(err)?;
    let Query::Duel(x, y) = &q else { return Err("POP-BO asked a non-duel".into()) };
    let (i, j) = (x.index.ok_or("no candidate index")?, y.index.ok_or("no candidate index")?);
    let first_wins = btl(f, i, j, resp);
    p.observe(&q, Answer::Duel { first_wins }).map_err(err)?;
    Ok((i, j))
}

/// Lemma 4.1 (eqs. (23)–(25)) and the optimism sanity checks (notes §4.7 items 11–13) on POP-BO's own
/// confidence sets along a run (1-D, 15 candidates, Matérn-5/2 ℓ = 0.2, B = 2, β₀√t with β₀ = 1).
// Long: one check's run and its rows share the instance and the settings line.
pub(super) fn lemma41(quick: bool) -> Vec<Row> {
    let name = "identity.popbo-lemma41";
    let claim = "POP-BO Lemma 4.1 / eq. (24)";
    guarded(name, claim, || {
        let (n, b, ls) = (15usize, 2.0, 0.2);
        let steps = if quick { 8 } else { 25 };
        let domain = FiniteDomain::linspace(0.0, 1.0, n).map_err(err)?;
        let pts = rows_of(&domain)?;
        let k = |a: &[f64], c: &[f64]| matern52(ls, a, c);
        let f: Vec<f64> = pts.iter().map(|x| 2.0 * (6.0 * x[0]).sin() + x[0]).collect();
        let mut cfg = PopBoConfig::default();
        cfg.confidence.norm_bound = b;
        cfg.inference.kernel =
            KernelSpec { kind: KernelKind::Matern52, lengthscale: Some(ls), lengthscales: None, variance: None };
        cfg.beta = WidthSchedule::SqrtT { scale: 1.0 };
        let x0 = 4;
        cfg.initial = InitialPoint::Candidate { index: x0 };
        let ctx = SearchContext::new(domain.clone(), steps + 1).map_err(err)?;
        let mut p = PopBo::new(&ctx, cfg.check().map_err(err)?).map_err(err)?;
        let mut alg = bohf_core::rng::stream(41, &[0]);
        let mut resp = bohf_core::rng::stream(41, &[1]);

        // t = 0: A_1(x) = B√(k(x,x) − 2k(x,x₀) + k(x₀,x₀)) (notes §3.4 / §4.7 item 13).
        let q = p.suggest(&mut alg).map_err(err)?;
        let Query::Duel(first, _) = &q else { return Err("non-duel".into()) };
        let a0 = p.optimistic_advantages().map_err(err)?;
        let closed: Vec<f64> =
            pts.iter().map(|x| b * (k(x, x) - 2.0 * k(x, &pts[x0]) + k(&pts[x0], &pts[x0])).max(0.0).sqrt()).collect();
        let dev0 = a0.iter().zip(&closed).map(|(a, c)| (a - c).abs()).fold(0.0, f64::max);
        let chosen = first.index.ok_or("no index")?;
        let best = closed.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let first_wins = btl(&f, chosen, x0, &mut resp);
        p.observe(&q, Answer::Duel { first_wins }).map_err(err)?;

        let (mut interp, mut norm_excess, mut ll_short, mut opt_short, mut self_adv) =
            (0.0f64, f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0f64);
        let mut band_violation = f64::NEG_INFINITY;
        let mut solved = 0usize;
        for s in 1..=steps {
            if s > 1 {
                step(&mut p, &f, &mut alg, &mut resp)?;
            }
            let problem = p.problem().ok_or("no problem")?.clone();
            let mle = p.mle().ok_or("no MLE")?.clone();
            let beta = p.beta().map_err(err)?;
            let support = problem.support().ok_or("no support")?.to_vec();
            let r_idx = p.reference().ok_or("no reference")?;
            let r = problem.support_position(r_idx).ok_or("reference not in support")?;
            let (mut set, cands) = p.confidence_set().map_err(err)?;
            let jitter = problem.jitter();
            let obs = problem.observations().to_vec();
            for (i, c) in cands.iter().enumerate() {
                let sol = set.optimistic_advantage(c, r).map_err(err)?;
                solved += 1;
                // Feasibility: ℓ(Z) ≥ ℓ* − β (eq. (24) second constraint), ℓ by the free function.
                ll_short = ll_short.max(mle.log_likelihood - beta - log_likelihood(&obs, &sol.z).map_err(err)?);
                // Optimism: the MLE is feasible, so A_t(x) ≥ f̂(x) − f̂(x_{t−1}) (notes §4.7 item 12).
                opt_short = opt_short.max(mle.value_at(c).map_err(err)? - mle.z[r] - sol.value);
                if i == r_idx {
                    self_adv = self_adv.max(sol.value.abs());
                }
                // The value is z − z_{t−1} of the optimiser.
                interp = interp.max((sol.value - (sol.z_candidate - sol.z[r])).abs());
                if support.contains(&i) {
                    // x in the support: z is the support value.
                    let pos = problem.support_position(i).ok_or("support")?;
                    interp = interp.max((sol.z_candidate - sol.z[pos]).abs());
                } else {
                    // Min-norm interpolant through (x_0..x_t, x): α = (K + εI)⁻¹[Z; z], f̃ = Σα k(·, ·).
                    let mut ext: Vec<Vec<f64>> = support.iter().map(|&j| pts[j].clone()).collect();
                    ext.push(pts[i].clone());
                    let m = ext.len();
                    let mut kk = gram_by_hand(&ext, k);
                    let kraw = kk.clone();
                    for d in 0..m {
                        kk[(d, d)] += jitter;
                    }
                    let mut zz = DVector::zeros(m);
                    zz.rows_mut(0, m - 1).copy_from(&sol.z);
                    zz[m - 1] = sol.z_candidate;
                    let chol = kk.cholesky().ok_or("extended Gram not positive definite")?;
                    let alpha = chol.solve(&zz);
                    let values = &kraw * &alpha;
                    interp = interp.max((values - &zz).amax());
                    // ‖f̃‖² = [Z; z]ᵀ(K + εI)⁻¹[Z; z] ≤ B² (Lemma 4.1, first constraint).
                    norm_excess = norm_excess.max(zz.dot(&alpha) / (b * b) - 1.0);
                }
                // Eq. (12): inf ≤ f̂^MLE(x) ≤ sup over the set.
                let up = set.upper_bound(c).map_err(err)?.value;
                let lo = set.lower_bound(c).map_err(err)?.value;
                let m = mle.value_at(c).map_err(err)?;
                band_violation = band_violation.max(m - up).max(lo - m);
            }
        }
        let setting = format!(
            "1-D, {n} candidates, Matérn-5/2 ℓ={ls}, B={b}, β₀√t (β₀=1), POP-BO run of {steps} steps, {solved} programs"
        );
        Ok(vec![
            Row::at_most(
                name,
                &format!(
                    "notes §3.4/§4.7 item 13: t = 0 closed form A_1(x) = B√(k(x,x) − 2k(x,x₀) + k(x₀,x₀)); {n} candidates, x₀ = {x0}"
                ),
                "max |A_1(x) − closed form|",
                dev0,
                "solver tolerance 1e-6",
                1e-6,
            ),
            Row::at_least(
                name,
                "t = 0: the first query maximises the closed form (farthest point from x₀)",
                "closed form at x₁",
                closed[chosen],
                "max closed form − 1e-6",
                best - 1e-6,
            ),
            Row::at_most(
                name,
                &format!(
                    "{claim}: the optimiser f̃ = [Z;z]ᵀK⁻¹k(·) interpolates (Z, z) and A = z − z_{{t−1}}; {setting}"
                ),
                "max interpolation / value error",
                interp,
                "1e-6",
                1e-6,
            ),
            Row::at_most(
                name,
                &format!("{claim}: ‖f̃‖² = [Z;z]ᵀK⁻¹[Z;z] ≤ B² (K by hand); {setting}"),
                "max ‖f̃‖²/B² − 1",
                norm_excess,
                "1e-6",
                1e-6,
            ),
            Row::at_most(
                name,
                &format!("{claim}: ℓ(Z) ≥ ℓ* − β at the optimiser; {setting}"),
                "max ℓ* − β − ℓ(Z)",
                ll_short,
                "1e-6",
                1e-6,
            ),
            Row::at_most(
                name,
                &format!("notes §4.7 item 12: A_t(x_{{t−1}}) = 0; {setting}"),
                "max |A_t(x_{t−1})|",
                self_adv,
                "1e-6",
                1e-6,
            ),
            Row::at_most(
                name,
                &format!("notes §4.7 item 12: A_t(x) ≥ f̂^MLE(x) − f̂^MLE(x_{{t−1}}) (MLE feasible); {setting}"),
                "max (MLE difference − A_t(x))",
                opt_short,
                "1e-6",
                1e-6,
            ),
            Row::at_most(
                name,
                &format!("eq. (12): inf_{{C_t}} f̃(x) ≤ f̂^MLE(x) ≤ sup_{{C_t}} f̃(x); {setting}"),
                "max violation",
                band_violation,
                "1e-6",
                1e-6,
            ),
        ])
    })
}
