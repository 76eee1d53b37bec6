//! COBOL's checkable quantities (notes 004 §4.5): coverage of Lemma 3.1 and of the likelihood-ratio
//! set of Lemma 3.2, Lemma B.3's Σσ bound, the explicit no-harm constant of Theorem 4.1 (App. B.5),
//! and Q^g_T against T (handover).
//!
//! Instances are random RKHS functions with a known norm: f = Σ_i α_i k(z_i, ·) with an SE kernel
//! (ℓ = 0.2) on [0, 1], ‖f‖² = αᵀK_zα, rescaled to the norm wanted.

use super::Check;
use crate::report::Row;
use bohf_cobol::{Cobol, CobolConfig, model::beta_lemma31};
use bohf_confidence::{ConfidenceConfig, ConfidenceProblem, Observation};
use bohf_core::rand::{Rng, RngExt};
use bohf_core::{Answer, FiniteDomain, Optimizer, Query, SearchContext, rng};
use bohf_gp::GpRegression;
use bohf_kernels::{Kernel, Stationary};
use nalgebra::{DMatrix, DVector};

/// The COBOL checks.
pub fn catalogue() -> Vec<Check> {
    vec![
        Check { name: "cobol.lemma31-coverage", in_quick: true, run: lemma31_coverage },
        Check { name: "cobol.lemma32-coverage", in_quick: true, run: lemma32_coverage },
        Check { name: "cobol.lemma-b3-and-no-harm", in_quick: true, run: lemma_b3_and_no_harm },
        Check { name: "cobol.handover", in_quick: true, run: handover },
    ]
}

const LS: f64 = 0.2;

fn kernel() -> Stationary {
    Stationary::se(LS).expect("valid lengthscale")
}

/// A random f = Σ α_i k(z_i, ·) with ‖f‖_k = `norm`, as a closure on [0, 1].
fn rkhs_function<R: Rng>(norm: f64, r: &mut R) -> impl Fn(f64) -> f64 + use<R> {
    let k = kernel();
    let z: Vec<f64> = (0..8).map(|_| r.random::<f64>()).collect();
    let a: Vec<f64> = (0..8).map(|_| r.random::<f64>() * 2.0 - 1.0).collect();
    let kz = DMatrix::from_fn(8, 8, |i, j| k.eval(&[z[i]], &[z[j]]));
    let av = DVector::from_vec(a.clone());
    let s = norm / (av.dot(&(&kz * &av))).sqrt();
    move |x| z.iter().zip(&a).map(|(zi, ai)| s * ai * k.eval(&[*zi], &[x])).sum()
}

/// Lemma 3.1: with probability ≥ 1 − δ/2, |μ_t − f| ≤ β_t σ_t on the whole grid for all t, with
/// β_t = B_f + σ√(2(γ + 1 + ln(2/δ))) (γ the realised information gain of the observed points, a
/// lower bound of γ_{t−1}: a smaller β, so the check is stricter than the lemma). Regulariser r = 1,
/// Gaussian noise of s.d. σ = 0.1, B_f = 1.
fn lemma31_coverage(quick: bool) -> Vec<Row> {
    let (trials, horizon, delta, sigma, b) = (if quick { 40 } else { 200 }, 20, 0.1, 0.1, 1.0);
    let grid: Vec<f64> = (0..50).map(|i| i as f64 / 49.0).collect();
    let mut covered = 0;
    for trial in 0..trials {
        let mut r = rng::stream(31, &[trial]);
        let f = rkhs_function(b, &mut r);
        let mut ok = true;
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for _ in 0..horizon {
            let x = r.random::<f64>();
            let noise: f64 = rand_distr::Distribution::sample(&rand_distr::StandardNormal, &mut r);
            xs.push(x);
            ys.push(f(x) + sigma * noise);
            let xm = DMatrix::from_column_slice(xs.len(), 1, &xs);
            let gp = match GpRegression::fit(kernel(), &xm, &DVector::from_vec(ys.clone()), 1.0) {
                Ok(g) => g,
                Err(e) => return vec![Row::error("cobol.lemma31-coverage", "Lemma 3.1", e)],
            };
            let gram = DMatrix::from_fn(xs.len(), xs.len(), |i, j| kernel().eval(&[xs[i]], &[xs[j]]));
            let gamma = bohf_infogain::information_gain(&gram, 1.0).unwrap_or(0.0);
            let beta = beta_lemma31(b, sigma, delta, gamma);
            for &g in &grid {
                let (m, v) = gp.mean_variance_at(&[g]).expect("1-D point");
                if (m - f(g)).abs() > beta * v.sqrt() {
                    ok = false;
                }
            }
        }
        covered += usize::from(ok);
    }
    let freq = covered as f64 / trials as f64;
    vec![Row::at_least(
        "cobol.lemma31-coverage",
        "COBOL Lemma 3.1: P(|μ_t − f| ≤ β_t σ_t ∀x, t) ≥ 1 − δ/2 (B_f = 1, σ = 0.1, r = 1, δ = 0.1)",
        &format!("coverage over {trials} RKHS functions × {horizon} steps × 50 points"),
        freq,
        "1 − δ/2",
        1.0 - delta / 2.0,
    )]
}

/// Lemma 3.2: ℓ_t(g) ≥ ℓ_t(ĝ^MLE) − α₁ for the true g (‖g‖ = B_g), α₁ of Lemma 3.2 with
/// log N = 0 (N ≥ 1, so this α₁ is a lower bound of the lemma's: stricter), ε = 1/T, δ = 0.1;
/// and the practical α₁ = 0.01√(n+1) (no guarantee claimed; reported).
fn lemma32_coverage(quick: bool) -> Vec<Row> {
    let (trials, n, delta, b_g) = (if quick { 20 } else { 100 }, 30, 0.1, 2.0);
    let (mut covered, mut covered_practical) = (0, 0);
    for trial in 0..trials {
        let mut r = rng::stream(32, &[trial]);
        let g = rkhs_function(b_g, &mut r);
        let xs: Vec<f64> = (0..n).map(|_| r.random::<f64>()).collect();
        let labels: Vec<bool> = xs.iter().map(|&x| r.random::<f64>() < 1.0 / (1.0 + (-g(x)).exp())).collect();
        let gram = DMatrix::from_fn(n, n, |i, j| kernel().eval(&[xs[i]], &[xs[j]]));
        let obs: Vec<Observation> =
            labels.iter().enumerate().map(|(i, &l)| Observation::Label { point: i, positive: l }).collect();
        let config = ConfidenceConfig { nugget: 1e-6, ..ConfidenceConfig::with_norm_bound(b_g) };
        let run = || -> bohf_core::Result<(f64, f64)> {
            let p = ConfidenceProblem::new(&gram, &obs, &config)?;
            let mle = p.mle()?;
            let truth = p.log_likelihood(&DVector::from_iterator(n, xs.iter().map(|&x| g(x))))?;
            Ok((mle.log_likelihood, truth))
        };
        let (best, truth) = match run() {
            Ok(v) => v,
            Err(e) => return vec![Row::error("cobol.lemma32-coverage", "Lemma 3.2", e)],
        };
        let alpha = bohf_confidence::alpha1_cobol(b_g, 1.0 / n as f64, delta, n, n, 0.0).expect("valid");
        covered += usize::from(truth >= best - alpha);
        covered_practical += usize::from(truth >= best - 0.01 * ((n + 1) as f64).sqrt());
    }
    let freq = covered as f64 / trials as f64;
    vec![
        Row::at_least(
            "cobol.lemma32-coverage",
            "COBOL Lemma 3.2: P(ℓ_t(g) ≥ ℓ_t(ĝ^MLE) − α₁) ≥ 1 − δ (B_g = 2, 30 labels, δ = 0.1, log N = 0)",
            &format!("coverage over {trials} functions"),
            freq,
            "1 − δ",
            1.0 - delta,
        ),
        Row::info(
            "cobol.lemma32-coverage",
            "COBOL App. F practical α₁ = 0.01√(n+1) before doubling (no guarantee claimed)",
            format!("coverage = {}", covered_practical as f64 / trials as f64),
            "none (the doubling test raises c_α with B_g)".into(),
        ),
    ]
}

/// Runs COBOL for `steps` queries on a 41-point grid of [0, 1] with utility u and an expert of
/// accuracy `a` (P(reject) = S(a·ρ(f)), ρ mapping f's grid range to [−3, 3]); returns the
/// optimiser and, per step, the query, the answer, whether it was an expert query of an
/// iteration (Q^g counts those; the initial labels are excluded), and whether it was a step of an
/// iteration (not the initial design).
type Step = (Query, Answer, bool, bool);

fn cobol_run(
    steps: usize,
    a: f64,
    u: &dyn Fn(f64) -> f64,
    config: CobolConfig,
) -> bohf_core::Result<(Cobol, Vec<Step>)> {
    let domain = FiniteDomain::linspace(0.0, 1.0, 41)?;
    let fs: Vec<f64> = (0..41).map(|i| -u(i as f64 / 40.0)).collect();
    let (lo, hi) = fs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(*v), h.max(*v)));
    let ctx = SearchContext::new(domain, steps)?;
    let mut c = Cobol::new(&ctx, config.check()?)?;
    let (mut alg, mut resp) = (rng::seeded(3), rng::seeded(4));
    let mut history = Vec::new();
    for _ in 0..steps {
        let q = c.suggest(&mut alg)?;
        let ans = match &q {
            Query::Evaluate(p) => Answer::Value(u(p.coords[0])),
            Query::Label(p) => {
                let rho = 6.0 * (-u(p.coords[0]) - lo) / (hi - lo) - 3.0;
                Answer::Label { accept: resp.random::<f64>() >= 1.0 / (1.0 + (-a * rho).exp()) }
            }
            _ => unreachable!("COBOL asks labels and values"),
        };
        let iteration = c.last_step().is_some_and(|s| s.phase == bohf_cobol::Phase::Iteration);
        let expert = matches!(q, Query::Label(_)) && iteration;
        c.observe(&q, ans)?;
        history.push((q, ans, expert, iteration));
    }
    Ok((c, history))
}

/// Lemma B.3 on the evaluated sequence of a COBOL run (r = 10⁻⁴, the fitted kernel of the last
/// step): Σ_t σ_{t−1}(x_t) ≤ √(4(n+2)γ) with γ the realised ½ log det(I + K/r) (the smallest valid
/// γ_n); and Theorem 4.1's explicit no-harm bound R_{Q^f} ≤ 2(2+η)β √(4(n+2)γ) in standardised
/// units (f standardised as the model sees it, so B_f = 1 is the paper's setting).
fn lemma_b3_and_no_harm(quick: bool) -> Vec<Row> {
    let steps = if quick { 40 } else { 80 };
    let mut r = rng::seeded(33);
    let u = rkhs_function(1.0, &mut r);
    let (c, _) = match cobol_run(steps, -2.0, &u, CobolConfig { initial_labels: 6, ..CobolConfig::default() }) {
        Ok(v) => v,
        Err(e) => return vec![Row::error("cobol.lemma-b3-and-no-harm", "Lemma B.3", e)],
    };
    let model = c.f_model().expect("evaluated");
    let evals = c.evaluations();
    let xs: Vec<Vec<f64>> = evals.iter().map(|(x, _)| model.working(x).expect("1-D")).collect();
    let k = model.kernel();
    let n = xs.len();
    let gram = DMatrix::from_fn(n, n, |i, j| k.eval(&xs[i], &xs[j]));
    let noise = 1e-4;
    let gamma = bohf_infogain::information_gain(&gram, noise).unwrap_or(f64::NAN);
    let mut sum_sigma = 0.0;
    for t in 0..n {
        let (m, y) = (DMatrix::from_fn(t, 1, |i, _| xs[i][0]), DVector::zeros(t));
        let gp = GpRegression::fit(k.clone(), &m, &y, noise).expect("posterior");
        sum_sigma += gp.mean_variance_at(&xs[t]).expect("1-D").1.sqrt();
    }
    let bound = (4.0 * (n as f64 + 2.0) * gamma).sqrt();
    // Regret in standardised f units: f = −u standardised over the evaluated values.
    let f: Vec<f64> = evals.iter().map(|e| e.1).collect();
    let mean = f.iter().sum::<f64>() / n as f64;
    let sd = (f.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
    let f_star = (0..401).map(|i| -u(i as f64 / 400.0)).fold(f64::INFINITY, f64::min);
    let regret: f64 = f.iter().map(|v| (v - f_star) / sd).sum();
    let eta = c.config().eta;
    vec![
        Row::at_most(
            "cobol.lemma-b3-and-no-harm",
            "COBOL Lemma B.3: Σ_{t∈Q^f} σ_t(x_t) ≤ √(4(n+2)γ_n) (γ_n ≥ realised gain, r = 1e-4)",
            &format!("Σσ over {n} evaluations of a COBOL run (a = −2)"),
            sum_sigma,
            "√(4(n+2)γ)",
            bound,
        ),
        Row::at_most(
            "cobol.lemma-b3-and-no-harm",
            "COBOL Theorem 4.1 (App. B.5): R_{Q^f_T} ≤ 2(2+η) β_T √(4(n+2)γ) (standardised f, a = −2)",
            "R_{Q^f_T}",
            regret,
            &format!("2(2+η)β√(4(n+2)γ), η = {eta}, β = {:.4}", model.beta),
            2.0 * (2.0 + eta) * model.beta * bound,
        ),
    ]
}

/// Handover: Q^g_T against T for an informative expert (a = 1): the expert queries in the first
/// and second halves of the iteration steps (after the initial design), reported.
fn handover(quick: bool) -> Vec<Row> {
    let steps = if quick { 150 } else { 400 };
    let u = |x: f64| -(x - 0.3) * (x - 0.3);
    let (_, history) = match cobol_run(steps, 1.0, &u, CobolConfig { initial_labels: 6, ..CobolConfig::default() }) {
        Ok(v) => v,
        Err(e) => return vec![Row::error("cobol.handover", "handover", e)],
    };
    let labels: Vec<usize> = history.iter().filter(|h| h.3).map(|h| usize::from(h.2)).collect();
    let (steps, half) = (labels.len(), labels.len() / 2);
    let first: usize = labels[..half].iter().sum();
    let second: usize = labels[half..].iter().sum();
    // Reported, not judged: with g_thr = 0.1 the g-interval at x^c shrinks like 1/√(labels there)
    // and the expert is still asked at about half the iteration steps at this horizon (see
    // docs/cobol.md); the paper's plateau is not reproduced on this instance.
    vec![Row::info(
        "cobol.handover",
        "COBOL Theorem 4.1 (7b), handover: Q^g_T sublinear in T (a = 1, g_thr = 0.1, 41-point grid)",
        format!(
            "Q^g in iteration steps 1..{half} = {first}, in {half}..{steps} = {second}; Q^g_T/T = {:.3}",
            (first + second) as f64 / steps.max(1) as f64
        ),
        "plateau: second half ≪ first half".into(),
    )]
}
