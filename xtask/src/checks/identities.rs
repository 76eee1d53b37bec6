//! Identities along real runs: the log-det chain rule, the elliptical-potential bounds (PF-TS Lemma 10,
//! MR-LPF eqs. (20)–(21)), separability of PF-TS samples and anchor invariance (PF-TS Prop. 1).

use crate::report::{Row, fmt};
use bohf_core::linalg::PsdFactor;
use bohf_core::{Answer, FiniteDomain, Link, Optimizer, Query, SearchContext};
use bohf_gp::DuelingPosterior;
use bohf_infogain::potential::{std_sum_bound, variance_sum_bound};
use bohf_infogain::{PosteriorVariances, greedy_pairs, information_gain};
use bohf_kernels::{IndexPair, PairKernel, dueling_gram};
use bohf_pfts::{PfTs, PfTsConfig};
use bohf_problems::RkhsFunction;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

/// The largest prior dueling variance for a unit-variance kernel: k_D(z, z) ≤ 4 (MR-LPF eq. (20)).
const MAX_DUEL_VARIANCE: f64 = 4.0;

/// The PF-TS RKHS problem: Kayal et al.'s Matérn-5/2 function on 30 points of [0, 1], ×5 (PF-TS §5.4).
pub fn rkhs_problem(points: usize, scale: f64) -> bohf_core::Result<(FiniteDomain, Vec<f64>, f64)> {
    let f = RkhsFunction::pf_ts()?;
    let domain = FiniteDomain::linspace(0.0, 1.0, points)?;
    let values: Vec<f64> = f.values(domain.points())?.iter().map(|v| scale * v).collect();
    Ok((domain, values, scale * f.rkhs_norm()?))
}

/// A PF-TS run with BTL answers P(x ≻ x′) = μ(f(x) − f(x′)) on the RKHS problem; returns the final
/// optimiser and the pairs it queried.
pub fn pfts_run(steps: usize, seed: u64) -> bohf_core::Result<(PfTs, Vec<IndexPair>, Vec<f64>)> {
    let (domain, f, _) = rkhs_problem(30, 5.0)?;
    let ctx = SearchContext::new(domain, steps)?;
    let mut pfts = PfTs::new(&ctx, PfTsConfig::default().check()?)?;
    let mut alg_rng = bohf_core::rng::stream(seed, &[0]);
    let mut resp_rng = bohf_core::rng::stream(seed, &[1]);
    let mut pairs = Vec::with_capacity(steps);
    for _ in 0..steps {
        let q = pfts.suggest(&mut alg_rng)?;
        let Query::Duel(x, y) = &q else { unreachable!("PF-TS asks duels") };
        let (i, j) = (x.index.expect("candidate"), y.index.expect("candidate"));
        let first_wins = resp_rng.random::<f64>() < Link::Logistic.mu(f[i] - f[j]);
        pfts.observe(&q, Answer::Duel { first_wins })?;
        pairs.push((i, j));
    }
    Ok((pfts, pairs, f))
}

pub fn chain_rule_and_potential(quick: bool) -> Vec<Row> {
    let steps = if quick { 100 } else { 300 };
    let result = (|| -> bohf_core::Result<Vec<Row>> {
        let (pfts, pairs, _) = pfts_run(steps, 3)?;
        let rho = pfts.config().inference.rho();
        let pv = PosteriorVariances::for_pairs(pfts.base_gram(), PairKernel::Dueling, &pairs, rho)?;
        let chain = pv.information_gain();
        let logdet = information_gain(&dueling_gram(pfts.base_gram(), &pairs, &pairs)?, rho)?;
        let gain = chain;
        Ok(vec![
            Row::at_most(
                "identity.logdet-chain-rule",
                &format!("PF-TS §9.5: Σ_t ½log(1+σ²_{{t−1}}(z_t)/λκ) = ½log det(I + K^D_T/λκ), a PF-TS run, T={steps}"),
                &format!("|chain − logdet|/logdet (logdet = {})", fmt(logdet)),
                (chain - logdet).abs() / logdet,
                "round-off",
                1e-9,
            ),
            Row::at_most(
                "identity.lemma10.variance-sum",
                &format!(
                    "PF-TS Lemma 10: Σσ²_{{t−1}}(z_t) ≤ 8Γ/log(1+4/λκ), Γ = the run's realised gain (≤ max), T={steps}"
                ),
                "Σσ²",
                pv.variance_sum(),
                "8I/log(1+4/ρ)",
                variance_sum_bound(gain, MAX_DUEL_VARIANCE, rho)?,
            ),
            Row::at_most(
                "identity.lemma10.std-sum",
                &format!("PF-TS Lemma 10: Σσ_{{t−1}}(z_t) ≤ √(8TΓ/log(1+4/λκ)), T={steps}"),
                "Σσ",
                pv.std_sum(),
                "√(8TI/log(1+4/ρ))",
                std_sum_bound(steps, gain, MAX_DUEL_VARIANCE, rho)?,
            ),
        ])
    })();
    result.unwrap_or_else(|e| vec![Row::error("identity.chain-rule", "PF-TS run", e)])
}

/// MR-LPF eqs. (20)–(21) inside a round of N max-variance duels on all candidates (round 1).
pub fn mrlpf_round_potential(quick: bool) -> Vec<Row> {
    let n_duels = if quick { 60 } else { 200 };
    let result = (|| -> bohf_core::Result<Vec<Row>> {
        let (domain, _, _) = rkhs_problem(100, 5.0)?;
        let inference = bohf_gp::InferenceConfig::default();
        let base = inference.base_gram(&domain)?;
        let rho = inference.rho();
        let g = greedy_pairs(&base, PairKernel::Dueling, rho, n_duels)?;
        let gain = g.value();
        let post = DuelingPosterior::from_pairs(&base, g.chosen(), rho)?;
        let max_sigma = post.std_dev_matrix().max();
        let min_selected = g.variances().variances().iter().fold(f64::INFINITY, |m, v| m.min(*v)).sqrt();
        let c = variance_sum_bound(1.0, MAX_DUEL_VARIANCE, rho)?.sqrt();
        Ok(vec![
            Row::at_most(
                "identity.mrlpf-eq20",
                &format!(
                    "MR-LPF eq. (20): Σ_n σ²_{{n−1}}(z_n) ≤ 8/log(1+4/ρ)·Γ(N), max-variance round, N={n_duels}, |M|=100"
                ),
                "Σσ²",
                g.variances().variance_sum(),
                "8I/log(1+4/ρ)",
                variance_sum_bound(gain, MAX_DUEL_VARIANCE, rho)?,
            ),
            Row::at_most(
                "identity.mrlpf-eq21",
                &format!("MR-LPF eq. (21): max_z σ_N(z) ≤ √(8/log(1+4/ρ))·√(Γ(N)/N), N={n_duels}"),
                "max σ_N",
                max_sigma,
                "√(8/log(1+4/ρ))√(I/N)",
                c * (gain / n_duels as f64).sqrt(),
            ),
            Row::at_most(
                "identity.mrlpf-monotone",
                "MR-LPF proof of (21): max_z σ_N(z) ≤ σ_{n−1}(z_n) for all n under max-variance selection",
                "max σ_N",
                max_sigma,
                "min_n σ_{n−1}(z_n)",
                min_selected,
            ),
        ])
    })();
    result.unwrap_or_else(|e| vec![Row::error("identity.mrlpf-round", "MR-LPF eqs. (20)-(21)", e)])
}

/// PF-TS Prop. 1: a joint draw h̃ on all n² pairs from N(h_t, k^D_t) is a utility difference, and
/// argmax_x h̃(x, x₀) does not depend on the anchor x₀.
pub fn separability_and_anchors(quick: bool) -> Vec<Row> {
    let draws = if quick { 20 } else { 200 };
    let result = (|| -> bohf_core::Result<Vec<Row>> {
        let (pfts, _, _) = pfts_run(50, 5)?;
        let n = pfts.domain().len();
        let s = pfts.posterior().covariance();
        let g = pfts.utility();
        let all: Vec<IndexPair> = (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).collect();
        let cov = dueling_gram(s, &all, &all)?;
        let mean = DVector::from_iterator(n * n, all.iter().map(|&(i, j)| g[i] - g[j]));
        let factor = PsdFactor::new(&cov)?;
        let mut rng = bohf_core::rng::seeded(17);
        let (mut worst, mut anchor_disagreements, mut sampler_disagreements) = (0.0_f64, 0usize, 0usize);
        // PF-TS Lemma 2 with v_t = 1: |h̃ − h_t| ≤ √(2 log(|C|²/δ)) σ_t on all pairs, probability ≥ 1 − δ.
        let lemma2_width = (2.0 * ((n * n) as f64 / 0.05).ln()).sqrt();
        let sd: Vec<f64> = (0..n * n).map(|z| cov[(z, z)].max(0.0).sqrt()).collect();
        let mut lemma2_ok = 0usize;
        let scale = pfts.exploration_scale()?;
        let joint = pfts.sampler()?;
        for _ in 0..draws {
            let h = factor.sample(&mean, &mut rng)?;
            let hs = h.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            lemma2_ok += (0..n * n).all(|z| (h[z] - mean[z]).abs() <= lemma2_width * sd[z] + 1e-12) as usize;
            let at = |i: usize, j: usize| h[i * n + j];
            for x in 0..n {
                for xp in 0..n {
                    for x0 in 0..n {
                        worst = worst.max((at(x, xp) - at(x, x0) + at(xp, x0)).abs() / hs);
                    }
                }
            }
            let argmax_for = |x0: usize| bohf_core::argmax_lowest((0..n).map(|x| at(x, x0)));
            let first = argmax_for(0)?;
            for x0 in 1..n {
                anchor_disagreements += usize::from(argmax_for(x0)? != first);
            }
            // The algorithm's own samplers: the utility-space draw and every anchored one, same normals.
            let z = DMatrix::from_fn(joint.rank().max(1), 2, |_, _| StandardNormal.sample(&mut rng));
            let pick = PfTs::select_with(&joint, scale, &z)?;
            for anchor in 0..n {
                if pfts.anchored_sampler(anchor)?.select(scale, &z)? != pick {
                    sampler_disagreements += 1;
                }
            }
        }
        Ok(vec![
            Row::at_most(
                "identity.separability",
                &format!(
                    "PF-TS Prop. 1: h̃(x,x′) = h̃(x,x₀) − h̃(x′,x₀) for a joint draw on all n² pairs, n={n}, {draws} draws"
                ),
                "max |h̃(x,x′) − h̃(x,x₀) + h̃(x′,x₀)| / max|h̃|",
                worst,
                "round-off",
                1e-8,
            ),
            Row::at_least(
                "identity.pfts-lemma2",
                &format!(
                    "PF-TS Lemma 2 (v_t = 1): P(∀ pairs: |h̃ − h_t| ≤ √(2log(|C|²/δ))σ_t) ≥ 1−δ, δ = 0.05, n={n}, {draws} joint draws"
                ),
                "empirical frequency",
                lemma2_ok as f64 / draws as f64,
                "1−δ",
                0.95,
            ),
            Row::at_most(
                "identity.anchor-invariance",
                &format!(
                    "PF-TS Prop. 1: argmax_x h̃(x,x₀) is the same for every anchor x₀ ({draws} draws × {n} anchors)"
                ),
                "anchors disagreeing",
                anchor_disagreements as f64,
                "",
                0.0,
            ),
            Row::at_most(
                "identity.anchored-sampler",
                &format!(
                    "PF-TS Alg. 1 l.4–8 vs utility-space sampler (note §2.6): same duel for every anchor, same normals ({draws} × {n})"
                ),
                "disagreements",
                sampler_disagreements as f64,
                "",
                0.0,
            ),
        ])
    })();
    result.unwrap_or_else(|e| vec![Row::error("identity.separability", "PF-TS Prop. 1", e)])
}
