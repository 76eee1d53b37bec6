//! POP-BO (Xu et al. 2024) and the likelihood-ratio confidence sets of bohf-confidence: constants,
//! β tables, coverage (Theorem 3.1), the elliptical and Lemma J.1 bounds, and regret growth.
//!
//! Notes: `papers/notes/001_pop-bo.md` §2–§4 (formulas), §4.7 items 1–13 and §7.2 (the catalogue).
//! Every reference value is computed here from the paper's formula (the kernels, the sigmoid
//! constants, the information gain and the likelihood by hand); the library is only the thing measured.
//!
//! Instances. The theory assumes k ≤ 1 (Assumption 2.4), so coverage and the Lemma 3.5 / J.1 bounds
//! use a 1-D GP-sample instance of the paper's construction (§6.1, min-norm interpolant of 10 knot
//! values) with an SE kernel of **unit variance**, ℓ = 1, on [0, 10], 30 grid candidates,
//! B = 1.1‖f‖ (App. P). The regret growth uses the paper's own GP instances (variance 9, ℓ = 1,
//! β_t = β₀√t with β₀ = 1, B = 1.1‖f‖).
//!
//! Where a bound holds for every covering number N ≥ 1, the check uses log N = 0: the width is then
//! the smallest the theorem allows, so a pass holds a fortiori for the true N.

use super::Check;
use crate::report::{Row, Status, fmt};
use bohf_confidence::{
    ConfidenceConfig, ConfidenceProblem, Observation, SigmoidConstants, beta_lemma35, beta1, lipschitz_constant,
    log_likelihood,
};
use bohf_core::{Answer, FiniteDomain, Optimizer, Query, SearchContext};
use bohf_infogain::log_log_fit;
use bohf_kernels::{KernelKind, KernelSpec};
use bohf_popbo::{InitialPoint, PopBo, PopBoConfig, WidthSchedule};
use bohf_problems::popbo::GpInstanceSpec;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use std::f64::consts::PI;

/// δ of every high-probability statement.
const DELTA: f64 = 0.05;

/// The POP-BO checks, in table order.
pub fn catalogue() -> Vec<Check> {
    vec![
        Check { name: "const.popbo-sigma", in_quick: true, run: sigma_constants },
        Check { name: "beta.popbo-theorem31", in_quick: true, run: beta_table },
        Check { name: "identity.popbo-lemma-c3", in_quick: true, run: lemma_c3 },
        Check { name: "identity.popbo-lemma-a1", in_quick: true, run: lemma_a1_concavity },
        Check { name: "identity.popbo-lemma-a2", in_quick: true, run: lemma_a2 },
        Check { name: "identity.popbo-lemma41", in_quick: true, run: lemma41 },
        Check { name: "coverage.popbo-theorem31", in_quick: true, run: coverage_theorem31 },
        Check { name: "identity.popbo-lemma35", in_quick: true, run: lemma35 },
        Check { name: "identity.popbo-lemma-j1", in_quick: true, run: lemma_j1 },
        Check { name: "regret.popbo-growth", in_quick: true, run: regret_growth },
    ]
}

type R<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// σ(u) = 1/(1 + e^{−u}) (POP-BO Assumption 2.5).
fn sigmoid(u: f64) -> f64 {
    1.0 / (1.0 + (-u).exp())
}

/// The SE kernel σ² exp(−r²/(2ℓ²)) (GPy convention, notes §4.5 / App. L [R]).
fn se(variance: f64, ls: f64, a: &[f64], b: &[f64]) -> f64 {
    let r2: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum();
    variance * (-r2 / (2.0 * ls * ls)).exp()
}

/// Matérn-5/2 with unit variance, (1 + √5 r/ℓ + 5r²/(3ℓ²)) e^{−√5 r/ℓ} (notes §4.5 [R]).
fn matern52(ls: f64, a: &[f64], b: &[f64]) -> f64 {
    let r: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt();
    let s = 5f64.sqrt() * r / ls;
    (1.0 + s + s * s / 3.0) * (-s).exp()
}

fn rows_of(domain: &FiniteDomain) -> R<Vec<Vec<f64>>> {
    (0..domain.len()).map(|i| domain.coords(i).map_err(err)).collect()
}

fn gram_by_hand(pts: &[Vec<f64>], k: impl Fn(&[f64], &[f64]) -> f64) -> DMatrix<f64> {
    DMatrix::from_fn(pts.len(), pts.len(), |i, j| k(&pts[i], &pts[j]))
}

/// Runs `check` and turns an error into a failing row.
fn guarded(name: &str, claim: &str, check: impl FnOnce() -> R<Vec<Row>>) -> Vec<Row> {
    check().unwrap_or_else(|e| vec![Row::error(name, claim, e)])
}

fn judged(mut row: Row, judged: bool) -> Row {
    if !judged {
        row.status = Status::Info;
    }
    row
}

// ---------------------------------------------------------------------------------------------
// 1. Constants of App. B.

/// App. B constants against closed forms written here (notes §2.4): σ_lo = 1/(1+e^{2B}),
/// σ_hi = 1/(1+e^{−2B}), σ′_lo = 1/(4cosh²B) (also the minimum of σ(1−σ) over [−2B, 2B], scanned),
/// B_p = 2 sinh(2B), H_σ = (1+e^{−2B})²/2, C_L = 2 + tanh B (Lemma C.3: 1 + 2/(1+e^{−2B})).
fn sigma_constants(_quick: bool) -> Vec<Row> {
    let name = "const.popbo-sigma";
    let claim =
        "POP-BO App. B / Lemma C.3 constants = closed forms (σ′_lo = 1/(4cosh²B), B_p = 2sinh 2B, C_L = 2 + tanh B)";
    guarded(name, claim, || {
        let mut rows = Vec::new();
        for b in [0.5, 1.0, 2.0, 3.0, 6.0] {
            let c = SigmoidConstants::new(b).map_err(err)?;
            let cl = lipschitz_constant(b).map_err(err)?;
            // The minimum of σ′ over u ∈ [−2B, 2B] on a fine scan (attained at the ends).
            let scan = (0..=4000)
                .map(|i| {
                    let u = -2.0 * b + 4.0 * b * i as f64 / 4000.0;
                    sigmoid(u) * sigmoid(-u)
                })
                .fold(f64::INFINITY, f64::min);
            let pairs = [
                (c.sigma_lo, 1.0 / (1.0 + (2.0 * b).exp())),
                (c.sigma_hi, 1.0 / (1.0 + (-2.0 * b).exp())),
                (c.dsigma_lo, 1.0 / (4.0 * b.cosh().powi(2))),
                (c.dsigma_lo, scan),
                (c.dsigma_hi, sigmoid(0.0) * (1.0 - sigmoid(0.0))),
                (c.b_p, 2.0 * (2.0 * b).sinh()),
                (c.h_sigma, (1.0 + (-2.0 * b).exp()).powi(2) / 2.0),
                (c.c_l, 2.0 + b.tanh()),
                (cl, 2.0 + b.tanh()),
            ];
            let worst = pairs.iter().map(|(lib, by_hand)| ((lib - by_hand) / by_hand).abs()).fold(0.0, f64::max);
            rows.push(Row::at_most(
                name,
                &format!(
                    "{claim}; B = {b} (σ_lo {}, σ′_lo {}, B_p {}, H_σ {}, C_L {})",
                    fmt(c.sigma_lo),
                    fmt(c.dsigma_lo),
                    fmt(c.b_p),
                    fmt(c.h_sigma),
                    fmt(c.c_l)
                ),
                "max relative deviation over the 9 values",
                worst,
                "rounding",
                1e-12,
            ));
            rows.push(Row::at_least(
                name,
                &format!("Lemma C.3: C_L ∈ [2, 3); B = {b}"),
                "3 − C_L",
                3.0 - c.c_l,
                "0 (and C_L ≥ 2)",
                if c.c_l >= 2.0 { 0.0 } else { f64::INFINITY },
            ));
        }
        Ok(rows)
    })
}

// ---------------------------------------------------------------------------------------------
// 2. β table.

/// β₁ of Theorem 3.1, eq. (9), by hand.
fn beta1_by_hand(b: f64, eps: f64, delta: f64, t: usize, log_n: f64) -> f64 {
    if t == 0 {
        return 0.0;
    }
    let tf = t as f64;
    let cl = 1.0 + 2.0 / (1.0 + (-2.0 * b).exp());
    (32.0 * tf * b * b * ((PI * PI * tf * tf / (6.0 * delta)).ln() + log_n)).sqrt() + cl * eps * tf
}

/// β(ε, δ/2, t) of Lemma 3.5 with the notes' reconstruction (App. B items 2–3: prefactor 1/(H_σσ′_lo²),
/// 6δ in β₂), by hand; `delta` is the overall δ.
fn beta35_by_hand(b: f64, eps: f64, delta: f64, t: usize, log_n: f64) -> f64 {
    if t == 0 {
        return 0.0;
    }
    let tf = t as f64;
    let d = delta / 2.0;
    let cl = 1.0 + 2.0 / (1.0 + (-2.0 * b).exp());
    let h = 0.5 * (1.0 + (-2.0 * b).exp()).powi(2);
    let dlo = 1.0 / (4.0 * b.cosh().powi(2));
    let bp = 2.0 * (2.0 * b).sinh();
    let log_term = (PI * PI * tf * tf / (6.0 * d)).ln() + log_n;
    let b2 = 8.0 * h / 16.0 * eps * eps * tf + 2.0 * cl * eps * tf + (8.0 * tf * bp * bp * log_term).sqrt();
    (b2 + 2.0 * beta1_by_hand(b, eps, d, t, log_n)) / (h * dlo * dlo)
}

/// β₁(1/T, δ, t, log N) over t (Thm 3.1, Remark 3.2) with the SE surrogate log N = (log T)^{d+1}, d = 1
/// (Table 3's order with constant 1), by hand vs the library; monotone in t; β(ε, δ/2, t − 1) ≤
/// β(ε, δ/2, t) (used in the proof of Thm 5.2, step 3).
fn beta_table(quick: bool) -> Vec<Row> {
    let name = "beta.popbo-theorem31";
    let claim = "POP-BO Thm 3.1 eq. (9) β₁(ε=1/T, δ, t) and Lemma 3.5 β(ε, δ/2, t)";
    guarded(name, claim, || {
        let horizon: usize = if quick { 100 } else { 1000 };
        let eps = 1.0 / horizon as f64;
        let log_n = (horizon as f64).ln().powi(2);
        let mut rows = Vec::new();
        for b in [1.0, 3.0] {
            let (mut dev, mut dev35) = (0.0f64, 0.0f64);
            let (mut mono1, mut mono35) = (true, true);
            let (mut prev1, mut prev35) = (0.0, 0.0);
            for t in 0..=horizon {
                let v1 = beta1(b, eps, DELTA, t, log_n).map_err(err)?;
                let v35 = beta_lemma35(b, eps, DELTA, t, log_n).map_err(err)?;
                let h1 = beta1_by_hand(b, eps, DELTA, t, log_n);
                let h35 = beta35_by_hand(b, eps, DELTA, t, log_n);
                if t > 0 {
                    dev = dev.max(((v1 - h1) / h1).abs());
                    dev35 = dev35.max(((v35 - h35) / h35).abs());
                    mono1 &= v1 > prev1;
                    mono35 &= v35 >= prev35;
                }
                prev1 = v1;
                prev35 = v35;
            }
            rows.push(Row::at_most(
                name,
                &format!("{claim}: library = formula by hand; B = {b}, δ = {DELTA}, T = {horizon}, log N = (ln T)² (SE d=1 surrogate)"),
                "max relative deviation of β₁ and β over t ≤ T",
                dev.max(dev35),
                "rounding",
                1e-12,
            ));
            let ok = mono1 && mono35;
            rows.push(Row {
                check: name.into(),
                claim: format!("β₁(ε,δ,t) strictly increasing in t and β(ε,δ/2,t−1) ≤ β(ε,δ/2,t) for 1 ≤ t ≤ {horizon} (Thm 5.2 proof step 3); B = {b}"),
                measured: format!("β₁ increasing: {mono1}; β nondecreasing: {mono35}"),
                bound: "both true".into(),
                margin: "—".into(),
                status: if ok { Status::Pass } else { Status::Fail },
            });
            let table: Vec<String> = [1usize, 10, 30, 100, 300, 1000]
                .into_iter()
                .filter(|&t| t <= horizon)
                .map(|t| {
                    format!(
                        "t={t}: β₁={} (β₀√t with β₀=1: {}), β={}",
                        fmt(beta1_by_hand(b, eps, DELTA, t, log_n)),
                        fmt((t as f64).sqrt()),
                        fmt(beta35_by_hand(b, eps, DELTA, t, log_n))
                    )
                })
                .collect();
            rows.push(Row::info(
                name,
                &format!("β table, B = {b}, δ = {DELTA}, ε = 1/T, log N = (ln T)² = {}", fmt(log_n)),
                table.join("; "),
                "theoretical β₁ vs the experiments' β₀√t (App. P)".into(),
            ));
        }
        Ok(rows)
    })
}

// ---------------------------------------------------------------------------------------------
// 3. Lemma C.3, A.1, A.2.

/// Random duels among `n` support points.
fn random_duels(n: usize, t: usize, rng: &mut impl rand::Rng) -> Vec<Observation> {
    (0..t)
        .map(|_| {
            let i = rng.random_range(0..n);
            let j = (i + rng.random_range(1..n)) % n;
            Observation::Duel { first: i, second: j, first_wins: rng.random::<bool>() }
        })
        .collect()
}

/// Lemma C.3: ‖f₁ − f₂‖∞ ≤ ε ⇒ |ℓ(f₁) − ℓ(f₂)| ≤ C_L ε t; each duel term log σ(s·d) is 1-Lipschitz in
/// d and d moves by ≤ 2ε, so even 2εt ≤ C_L ε t (notes §4.7 item 4). ℓ from the library's eq. (21).
fn lemma_c3(quick: bool) -> Vec<Row> {
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
fn lemma_a1_concavity(quick: bool) -> Vec<Row> {
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
                let Observation::Duel { first, second: s, .. } = *o else { unreachable!() };
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
fn lemma_a2(quick: bool) -> Vec<Row> {
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
fn btl(f: &[f64], i: usize, j: usize, rng: &mut impl rand::Rng) -> bool {
    rng.random::<f64>() < sigmoid(f[i] - f[j])
}

/// One POP-BO step against BTL answers from `f` (values on the candidates); returns (x_t, x′_t).
fn step(p: &mut PopBo, f: &[f64], alg: &mut impl rand::Rng, resp: &mut impl rand::Rng) -> R<(usize, usize)> {
    let q = p.suggest(alg).map_err(err)?;
    let Query::Duel(x, y) = &q else { return Err("POP-BO asked a non-duel".into()) };
    let (i, j) = (x.index.ok_or("no candidate index")?, y.index.ok_or("no candidate index")?);
    let first_wins = btl(f, i, j, resp);
    p.observe(&q, Answer::Duel { first_wins }).map_err(err)?;
    Ok((i, j))
}

/// Lemma 4.1 (eqs. (23)–(25)) and the optimism sanity checks (notes §4.7 items 11–13) on POP-BO's own
/// confidence sets along a run (1-D, 15 candidates, Matérn-5/2 ℓ = 0.2, B = 2, β₀√t with β₀ = 1).
fn lemma41(quick: bool) -> Vec<Row> {
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
        let mut p = PopBo::new(&ctx, cfg).map_err(err)?;
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

// ---------------------------------------------------------------------------------------------
// 5. Coverage, Lemma 3.5, Lemma J.1 on a unit-variance GP instance.

/// The unit-variance 1-D GP instance (module docs): candidates, f on them, B, ‖f‖_k, the Gram by hand.
struct Instance {
    domain: FiniteDomain,
    pts: Vec<Vec<f64>>,
    f: Vec<f64>,
    b: f64,
    norm: f64,
    gram: DMatrix<f64>,
}

const UNIT_LS: f64 = 1.0;

/// A named confidence width β(t).
type Width<'a> = Box<dyn Fn(usize) -> f64 + 'a>;

/// A finished POP-BO run: the optimiser, its duels (x_t, x′_t), and the Lemma 3.5 sums after each step.
type UnitRun = (PopBo, Vec<(usize, usize)>, Vec<f64>);

/// ε_K of K + ε_K I (POP-BO Remark 4.2; the authors' code: 1e-6).
const NUGGET: f64 = 1e-6;

fn unit_instance(seed: u64) -> R<Instance> {
    let spec = GpInstanceSpec { variance: 1.0, ..GpInstanceSpec::popbo(1) };
    let inst = spec.sample(&mut bohf_core::rng::stream(seed, &[0])).map_err(err)?;
    let domain = FiniteDomain::linspace(spec.lower, spec.upper, 30).map_err(err)?;
    let f = inst.on_grid(&domain).map_err(err)?.values().to_vec();
    let pts = rows_of(&domain)?;
    let gram = gram_by_hand(&pts, |a, c| se(1.0, UNIT_LS, a, c));
    let norm = inst.function().rkhs_norm().map_err(err)?;
    Ok(Instance { domain, pts, f, b: inst.norm_bound(), norm, gram })
}

fn unit_config(inst: &Instance) -> PopBoConfig {
    let mut cfg = PopBoConfig::default();
    cfg.confidence.norm_bound = inst.b;
    cfg.confidence.nugget = NUGGET;
    cfg.inference.kernel =
        KernelSpec { kind: KernelKind::Se, lengthscale: Some(UNIT_LS), lengthscales: None, variance: Some(1.0) };
    cfg.beta = WidthSchedule::SqrtT { scale: 1.0 };
    cfg
}

/// Theorem 3.1: P(∀t: ℓ_t(f) ≥ ℓ_t(f̂^MLE) − β₁(ε,δ,t)) ≥ 1 − δ. Duels x_t uniform random against
/// x′_t = x_{t−1} (the Fig. 1 protocol), BTL answers; the MLE refitted after every duel; ℓ_t(f) by
/// `ConfidenceProblem::log_likelihood` at the true values.
fn coverage_theorem31(quick: bool) -> Vec<Row> {
    let name = "coverage.popbo-theorem31";
    let claim = "POP-BO Thm 3.1 eq. (10): P(∀t ≤ T: ℓ_t(f) ≥ ℓ_t(f̂^MLE) − β) ≥ 1 − δ";
    guarded(name, claim, || {
        let (seeds, horizon) = if quick { (30usize, 30usize) } else { (200, 60) };
        let inst = unit_instance(900)?;
        let n = inst.domain.len();
        // ε_K = 1e-6 (Remark 4.2, the authors' `numerical_epsilon`); reduced-accuracy MLE solves are
        // accepted down to 1e-4 as in POP-BO's default configuration.
        let cfg = ConfidenceConfig {
            norm_bound: inst.b,
            nugget: NUGGET,
            acceptable_tolerance: 1e-4,
            ..ConfidenceConfig::default()
        };
        let eps = 1.0 / horizon as f64;
        let log_n_surrogate = (horizon as f64).ln().powi(2);
        // Widths: β₁ with log N = 0 (the smallest the theorem allows), with the surrogate, the paper's
        // β₀√t (β₀ = 1), the authors' code β₀√(t+1) (β₀ = 0.1).
        let widths: [(&str, Width); 4] = [
            ("β₁(1/T, δ, t), log N = 0", Box::new(|t| beta1_by_hand(inst.b, eps, DELTA, t, 0.0))),
            ("β₁(1/T, δ, t), log N = (ln T)²", Box::new(|t| beta1_by_hand(inst.b, eps, DELTA, t, log_n_surrogate))),
            ("β₀√t, β₀ = 1 (paper App. P)", Box::new(|t| (t as f64).sqrt())),
            ("β₀√(t+1), β₀ = 0.1 (authors' code, GP instances)", Box::new(|t| 0.1 * (t as f64 + 1.0).sqrt())),
        ];
        let mut covered = [0usize; 4];
        let mut mle_excess = f64::NEG_INFINITY;
        let mut worst_gap_over_sqrt_t = Vec::with_capacity(seeds);
        for seed in 0..seeds {
            let mut rng = bohf_core::rng::stream(7000 + seed as u64, &[0]);
            let x0 = rng.random_range(0..n);
            let mut prev = x0;
            let mut obs = Vec::with_capacity(horizon);
            let mut ok = [true; 4];
            let mut worst = 0.0f64;
            for t in 1..=horizon {
                let x = rng.random_range(0..n);
                let first_wins = btl(&inst.f, x, prev, &mut rng);
                obs.push(Observation::Duel { first: x, second: prev, first_wins });
                prev = x;
                let problem = ConfidenceProblem::on_candidates(&inst.gram, &[x0], &obs, &cfg).map_err(err)?;
                let mle = problem.mle().map_err(err)?;
                let support = problem.support().ok_or("no support")?;
                let zf = DVector::from_iterator(support.len(), support.iter().map(|&i| inst.f[i]));
                let lf = problem.log_likelihood(&zf).map_err(err)?;
                let gap = mle.log_likelihood - lf;
                // f is feasible (‖f‖ ≤ B), so ℓ* ≥ ℓ(f) up to the solver tolerance.
                mle_excess = mle_excess.max(-gap);
                worst = worst.max(gap / (t as f64).sqrt());
                for (w, (_, beta)) in widths.iter().enumerate() {
                    ok[w] &= gap <= beta(t);
                }
            }
            worst_gap_over_sqrt_t.push(worst);
            for w in 0..4 {
                covered[w] += ok[w] as usize;
            }
        }
        worst_gap_over_sqrt_t.sort_by(f64::total_cmp);
        let q95 = worst_gap_over_sqrt_t[((seeds as f64 * (1.0 - DELTA)).ceil() as usize).min(seeds) - 1];
        let setting = format!(
            "1-D GP sample (SE var 1, ℓ=1, [0,10], 30 candidates), ‖f‖_k = {}, B = 1.1‖f‖ = {}, x_t uniform vs x_{{t−1}}, T = {horizon}, {seeds} seeds, δ = {DELTA}",
            fmt(inst.norm),
            fmt(inst.b)
        );
        let mut rows = Vec::new();
        for (w, (label, _)) in widths.iter().enumerate() {
            let freq = covered[w] as f64 / seeds as f64;
            let row = Row::at_least(
                name,
                &format!("{claim}; β = {label}; {setting}"),
                "coverage frequency",
                freq,
                "1 − δ",
                1.0 - DELTA,
            );
            rows.push(judged(row, w < 2));
        }
        rows.push(Row::at_most(
            name,
            &format!("MLE optimality (f is feasible): ℓ_t(f) ≤ ℓ_t(f̂^MLE) for all t, seeds; {setting}"),
            "max ℓ_t(f) − ℓ*",
            mle_excess,
            "accepted solver accuracy 1e-4",
            1e-4,
        ));
        rows.push(Row::info(
            name,
            &format!("the β₀ a β₀√t schedule would need for 1 − δ coverage here (the (1−δ)-quantile over seeds of max_t (ℓ* − ℓ_t(f))/√t); {setting}"),
            format!("β₀ needed = {}", fmt(q95)),
            "paper β₀ = 1, code β₀ = 0.1 (with √(t+1))".into(),
        ));
        Ok(rows)
    })
}

/// One POP-BO run on the unit instance: the duels (x_t, x′_t, 1_t), the duel-difference error sums of
/// the MLE after each step (Lemma 3.5), and the final PopBo.
fn unit_run(inst: &Instance, horizon: usize, seed: u64) -> R<UnitRun> {
    let ctx = SearchContext::new(inst.domain.clone(), horizon).map_err(err)?;
    let mut p = PopBo::new(&ctx, unit_config(inst)).map_err(err)?;
    let mut alg = bohf_core::rng::stream(seed, &[0]);
    let mut resp = bohf_core::rng::stream(seed, &[1]);
    let mut pairs = Vec::with_capacity(horizon);
    let mut sums = Vec::with_capacity(horizon);
    for _ in 0..horizon {
        pairs.push(step(&mut p, &inst.f, &mut alg, &mut resp)?);
        let problem = p.problem().ok_or("no problem")?;
        let mle = p.mle().ok_or("no MLE")?;
        let pos = |i: usize| problem.support_position(i).ok_or_else(|| "not in support".to_string());
        let mut s = 0.0;
        for &(x, xp) in &pairs {
            let e = (mle.z[pos(x)?] - mle.z[pos(xp)?]) - (inst.f[x] - inst.f[xp]);
            s += e * e;
        }
        sums.push(s);
    }
    Ok((p, pairs, sums))
}

/// Lemma 3.5 eq. (13): Σ_τ ((f̂(x_τ) − f̂(x′_τ)) − (f(x_τ) − f(x′_τ)))² ≤ β(ε, δ/2, t) for f̂ = f̂^MLE_{t+1},
/// along POP-BO runs; and Thm 3.6 eq. (17) over all pairs at the end.
fn lemma35(quick: bool) -> Vec<Row> {
    let name = "identity.popbo-lemma35";
    let claim = "POP-BO Lemma 3.5 eq. (13): Σ_τ(Δf̂^MLE_τ − Δf_τ)² ≤ β(ε, δ/2, t)";
    guarded(name, claim, || {
        let (runs, horizon) = if quick { (3usize, 30usize) } else { (6, 80) };
        let inst = unit_instance(900)?;
        let eps = 1.0 / horizon as f64;
        let lambda = 1.0 + 2.0 / horizon as f64;
        let (mut worst, mut worst_b1) = (0.0f64, 0.0f64);
        let mut worst36 = 0.0f64;
        let mut worst36_practical = 0.0f64;
        for run in 0..runs {
            let (p, pairs, sums) = unit_run(&inst, horizon, 3500 + run as u64)?;
            for (k, s) in sums.iter().enumerate() {
                let t = k + 1;
                worst = worst.max(s / beta35_by_hand(inst.b, eps, DELTA, t, 0.0));
                worst_b1 = worst_b1.max(s / beta1_by_hand(inst.b, eps, DELTA / 2.0, t, 0.0));
            }
            // Thm 3.6 at t = T over all pairs (x, x′): σ_{T+1}^{ff′} from the additive kernel by hand.
            let kff = |a: (usize, usize), c: (usize, usize)| inst.gram[(a.0, c.0)] + inst.gram[(a.1, c.1)];
            let m = pairs.len();
            let mut kt = DMatrix::from_fn(m, m, |i, j| kff(pairs[i], pairs[j]));
            for d in 0..m {
                kt[(d, d)] += lambda;
            }
            let chol = kt.cholesky().ok_or("K^{ff′} + λI not positive definite")?;
            let problem = p.problem().ok_or("no problem")?;
            let mle = p.mle().ok_or("no MLE")?;
            let all: Vec<usize> = (0..inst.domain.len()).collect();
            let cands = problem.candidates_from_gram(&inst.gram, &all).map_err(err)?;
            let fhat: Vec<f64> =
                cands.iter().map(|c| mle.value_at(c)).collect::<bohf_core::Result<_>>().map_err(err)?;
            let beta_t = beta35_by_hand(inst.b, eps, DELTA, m, 0.0);
            let n = inst.domain.len();
            for i in 0..n {
                for j in 0..n {
                    let kv = DVector::from_fn(m, |r, _| kff(pairs[r], (i, j)));
                    let s2 = kff((i, j), (i, j)) - kv.dot(&chol.solve(&kv));
                    let sigma = s2.max(0.0).sqrt();
                    let e = ((fhat[i] - fhat[j]) - (inst.f[i] - inst.f[j])).abs();
                    let bound = 2.0 * (2.0 * inst.b + (beta_t / lambda).sqrt()) * sigma;
                    let practical = 2.0 * (2.0 * inst.b + ((m as f64).sqrt() / lambda).sqrt()) * sigma;
                    if bound > 0.0 {
                        worst36 = worst36.max(e / bound);
                    }
                    if practical > 0.0 {
                        worst36_practical = worst36_practical.max(e / practical);
                    }
                }
            }
        }
        let setting = format!(
            "unit-variance 1-D GP sample, B = {}, POP-BO (β₀√t, β₀=1), {runs} runs × T = {horizon}, ε = 1/T, δ = {DELTA}, log N = 0 (smallest β)",
            fmt(inst.b)
        );
        Ok(vec![
            Row::at_most(
                name,
                &format!("{claim} (prefactor 1/(H_σσ′_lo²), notes App. B item 2); every t ≤ T; {setting}"),
                "max_t Σ/β(ε,δ/2,t)",
                worst,
                "1",
                1.0,
            ),
            Row::info(
                name,
                &format!(
                    "the same sums against β₁(ε,δ/2,t) alone (no 1/(H_σσ′_lo²) prefactor): how loose the lemma is; {setting}"
                ),
                format!("max_t Σ/β₁ = {}", fmt(worst_b1)),
                "no claim".into(),
            ),
            Row::at_most(
                name,
                &format!(
                    "POP-BO Thm 3.6 eq. (17): |Δf̂ − Δf| ≤ 2(2B + λ^{{−1/2}}√β(ε,δ/2,T))σ_{{T+1}}^{{ff′}} over all 900 pairs, λ = 1 + 2/T; {setting}"
                ),
                "max ratio",
                worst36,
                "1",
                1.0,
            ),
            Row::info(
                name,
                &format!("eq. (17) with the practical β₀√T (β₀ = 1) in place of β(ε,δ/2,T) (no guarantee); {setting}"),
                format!("max ratio = {}", fmt(worst36_practical)),
                "≤ 1 would mean the practical width also bounds every duel".into(),
            ),
        ])
    })
}

/// Lemma J.1 (C&G 2017 Lemma 4 with k^{ff′}): Σ_t σ_t^{ff′}((x_t, x′_t)) ≤ √(4(T+2)·I_T), λ = 1 + 2/T,
/// on the realized POP-BO sequence; I_T = ½ log det(I + λ⁻¹K_T^{ff′}) by hand (lower bound on γ_T^{ff′}).
fn lemma_j1(quick: bool) -> Vec<Row> {
    let name = "identity.popbo-lemma-j1";
    let claim = "POP-BO Lemma J.1: Σ_t σ_t^{ff′}(x_t, x′_t) ≤ √(4(T+2) γ_T^{ff′}), checked with the realized I_T ≤ γ_T";
    guarded(name, claim, || {
        let (runs, horizon) = if quick { (3usize, 30usize) } else { (6, 80) };
        let inst = unit_instance(900)?;
        let lambda = 1.0 + 2.0 / horizon as f64;
        let (mut worst, mut chain) = (0.0f64, 0.0f64);
        let mut figures = Vec::new();
        for run in 0..runs {
            let (p, pairs, _) = unit_run(&inst, horizon, 3500 + run as u64)?;
            let sigmas = p.pair_sigmas(lambda).map_err(err)?;
            let m = pairs.len();
            // K^{ff′}[i, j] = k(x_i, x_j) + k(x′_i, x′_j) (eq. (16)), kernel by hand.
            let kff = DMatrix::from_fn(m, m, |i, j| {
                se(1.0, UNIT_LS, &inst.pts[pairs[i].0], &inst.pts[pairs[j].0])
                    + se(1.0, UNIT_LS, &inst.pts[pairs[i].1], &inst.pts[pairs[j].1])
            });
            let a = DMatrix::<f64>::identity(m, m) + kff / lambda;
            let chol = a.cholesky().ok_or("I + K/λ not positive definite")?;
            let i_t: f64 = chol.l().diagonal().iter().map(|d| d.ln()).sum(); // ½ log det = Σ log L_ii
            let sum: f64 = sigmas.iter().sum();
            let bound = (4.0 * (m as f64 + 2.0) * i_t).sqrt();
            worst = worst.max(sum / bound);
            let chain_sum: f64 = 0.5 * sigmas.iter().map(|s| (1.0 + s * s / lambda).ln()).sum::<f64>();
            chain = chain.max(((chain_sum - i_t) / i_t).abs());
            figures.push(format!("Σσ={} vs {}", fmt(sum), fmt(bound)));
        }
        let setting =
            format!("unit-variance 1-D GP sample, POP-BO (β₀√t, β₀=1), {runs} runs × T = {horizon}, λ = 1 + 2/T");
        Ok(vec![
            Row::at_most(
                name,
                &format!("{claim}; {setting} ({})", figures.join(", ")),
                "max Σσ/√(4(T+2)I_T)",
                worst,
                "1",
                1.0,
            ),
            Row::at_most(
                name,
                &format!("chain rule: ½Σ log(1 + σ_t²/λ) = I_T (library σ_t vs log det by hand); {setting}"),
                "max relative deviation",
                chain,
                "1e-9",
                1e-9,
            ),
        ])
    })
}

// ---------------------------------------------------------------------------------------------
// 6. Regret growth.

/// Cumulative regret of POP-BO on the paper's GP instances (§6.1: SE var 9, ℓ = 1, [0,10]^d, B = 1.1‖f‖,
/// β_t = β₀√t, β₀ = 1). Criteria fixed before measuring: (i) the log–log slope of the mean R(t) over
/// t ∈ [T/8, T] is ≤ 1 (sublinear, Thm 5.2); (ii) it is ≤ the slope of the SE rate T^{3/4}(log T)^{3(d+1)/4}
/// (eq. (32)) over the same t; (iii) Fig. 4 "close to 3/4": |slope − 3/4| ≤ 0.15 — judged in the full
/// run only (quick horizons are too short to resolve an exponent). Rows are named
/// `regret.popbo-growth.d<d>`; ε_K = 1e-6 (Remark 4.2). A run whose solver fails is counted in a judged
/// "runs completed" row and left out of the mean (never silently).
fn regret_growth(quick: bool) -> Vec<Row> {
    let name = "regret.popbo-growth";
    let claim = "POP-BO Thm 5.2 / Fig. 4: R_T sublinear, log–log slope ≈ 3/4 on GP instances";
    guarded(name, claim, || {
        let settings: Vec<(usize, usize, usize, usize)> =
            if quick { vec![(1, 30, 50, 3)] } else { vec![(1, 30, 100, 15), (2, 10, 50, 5)] };
        let mut rows = Vec::new();
        for (d, per_dim, horizon, instances) in settings {
            // One row name per dimension, `regret.popbo-growth.d<d>`.
            let name: &str = &format!("{name}.d{d}");
            let spec = GpInstanceSpec::popbo(d);
            let domain = spec.domain().map_err(err)?.grid(per_dim).map_err(err)?;
            let mut curves: Vec<Vec<f64>> = Vec::new();
            let mut failures: Vec<String> = Vec::new();
            let mut covered = 0usize;
            for inst_k in 0..instances {
                let inst = spec.sample(&mut bohf_core::rng::stream(5000 + inst_k as u64, &[d as u64])).map_err(err)?;
                let f = inst.on_grid(&domain).map_err(err)?.values().to_vec();
                let f_star = f.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let mut cfg = PopBoConfig::default();
                cfg.confidence.norm_bound = inst.norm_bound();
                cfg.confidence.nugget = NUGGET;
                cfg.inference.kernel = KernelSpec {
                    kind: KernelKind::Se,
                    lengthscale: Some(spec.lengthscale),
                    lengthscales: None,
                    variance: Some(spec.variance),
                };
                cfg.beta = WidthSchedule::SqrtT { scale: 1.0 };
                let ctx = SearchContext::new(domain.clone(), horizon).map_err(err)?;
                let mut p = PopBo::new(&ctx, cfg).map_err(err)?;
                let mut alg = bohf_core::rng::stream(6000 + inst_k as u64, &[d as u64, 0]);
                let mut resp = bohf_core::rng::stream(6000 + inst_k as u64, &[d as u64, 1]);
                // One run; a solver failure ends the run and is counted (not hidden).
                let run = (|| -> R<(Vec<f64>, bool)> {
                    let mut cum = 0.0;
                    let mut curve = Vec::with_capacity(horizon);
                    let mut ok = true;
                    for t in 0..horizon {
                        let (x, _) =
                            step(&mut p, &f, &mut alg, &mut resp).map_err(|e| format!("step {}: {e}", t + 1))?;
                        cum += f_star - f[x];
                        curve.push(cum);
                        // Practical-β coverage along the run (the set used at the next step).
                        let problem = p.problem().ok_or("no problem")?;
                        let support = problem.support().ok_or("no support")?;
                        let zf = DVector::from_iterator(support.len(), support.iter().map(|&i| f[i]));
                        let lf = problem.log_likelihood(&zf).map_err(err)?;
                        ok &= p.mle().ok_or("no MLE")?.log_likelihood - lf <= p.beta().map_err(err)?;
                    }
                    Ok((curve, ok))
                })();
                match run {
                    Ok((curve, ok)) => {
                        curves.push(curve);
                        covered += ok as usize;
                    }
                    Err(e) => failures.push(format!("instance {inst_k} (B = {}): {e}", fmt(inst.norm_bound()))),
                }
            }
            let runs = curves.len();
            if runs == 0 {
                return Err(format!("every run failed: {}", failures.join("; ")));
            }
            let mean: Vec<f64> = (0..horizon).map(|t| curves.iter().map(|c| c[t]).sum::<f64>() / runs as f64).collect();
            let done = format!(
                "runs completed without a solver failure (ε_K = {NUGGET}); d = {d}, {instances} instances × T = {horizon}"
            );
            let failed_text: String =
                failures.iter().map(|s| s.chars().take(220).collect::<String>()).collect::<Vec<_>>().join(" | ");
            let mut row = Row::at_least(name, &done, "completed runs", runs as f64, "instances", instances as f64);
            if !failures.is_empty() {
                row.measured = format!("{} — {failed_text}", row.measured);
            }
            rows.push(row);
            let ts: Vec<usize> = (horizon / 8..=horizon).filter(|&t| t >= 1).collect();
            let pts: Vec<(f64, f64)> = ts.iter().map(|&t| (t as f64, mean[t - 1])).collect();
            let slope = log_log_fit(&pts).map_err(err)?.slope;
            let rate = |t: f64| t.powf(0.75) * t.ln().powf(0.75 * (d as f64 + 1.0));
            let rpts: Vec<(f64, f64)> = ts.iter().map(|&t| (t as f64, rate(t as f64))).collect();
            let rslope = log_log_fit(&rpts).map_err(err)?.slope;
            let setting = format!(
                "d={d}, {} candidates, SE var 9 ℓ=1 on [0,10]^d, B=1.1‖f‖, β₀√t (β₀=1), ε_K={NUGGET}, mean over the {runs} completed of {instances} instances × T={horizon}, slope over t∈[{},{horizon}]",
                domain.len(),
                ts[0]
            );
            rows.push(Row::at_most(
                name,
                &format!("{claim}: sublinear; {setting}"),
                "slope of mean R(t)",
                slope,
                "1",
                1.0,
            ));
            rows.push(Row::at_most(
                name,
                &format!("Thm 5.5 eq. (32): R_T = O(T^{{3/4}}(log T)^{{3(d+1)/4}}); {setting}"),
                "slope of mean R(t)",
                slope,
                "slope of the rate",
                rslope,
            ));
            let close = (slope - 0.75).abs();
            rows.push(judged(
                Row::at_most(
                    name,
                    &format!("Fig. 4 (App. N): slope \"close to 3/4\", criterion |slope − 3/4| ≤ 0.15 (judged in the full run only); {setting}"),
                    &format!("|slope − 0.75| (slope {})", fmt(slope)),
                    close,
                    "0.15",
                    0.15,
                ),
                !quick,
            ));
            rows.push(Row::info(
                name,
                &format!(
                    "mean R(T) and the practical set's coverage along the runs (ℓ_t(f) ≥ ℓ* − β₀√t ∀t); {setting}"
                ),
                format!(
                    "mean R(T) = {}, R(T)/T^{{3/4}} = {}, coverage {covered}/{runs}",
                    fmt(mean[horizon - 1]),
                    fmt(mean[horizon - 1] / (horizon as f64).powf(0.75))
                ),
                "no claim (practical β)".into(),
            ));
        }
        Ok(rows)
    })
}
