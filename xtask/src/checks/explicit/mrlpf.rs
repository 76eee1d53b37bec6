//! MR-LPF's explicit bounds: the simple regret of eq. (16) and the bracket of T₀ of eq. (27) (the
//! settings in [`super`]).

use super::*;

/// MR-LPF eq. (14): β_(r)(δ) = L(B + √((κ_r/λ) log(2R|X|/δ))) (evaluated here, not taken from the library).
fn mrlpf_beta(b: f64, kappa_r: f64, rounds: f64, n: usize) -> f64 {
    L_MU * (b + (kappa_r / LAMBDA * (2.0 * rounds * n as f64 / DELTA).ln()).sqrt())
}

/// "n in every run" or "a..b over runs" for a list of set sizes.
fn size_range(sizes: &[usize]) -> String {
    let lo = sizes.iter().min().copied().unwrap_or(0);
    let hi = sizes.iter().max().copied().unwrap_or(0);
    if lo == hi { format!("{lo} in every run") } else { format!("{lo}..{hi} over runs") }
}

/// Γ_ρ(N) ≤ ½ log det(I + 2N K/ρ) for any N pairs of candidates: K^D_N = D K Dᵀ with D the N×n
/// difference matrix (rows e_i − e_j), DᵀD ⪯ 2N I, and Sylvester's determinant identity.
fn gamma_spectral_upper(eigs: &[f64], rho: f64, pairs: f64) -> f64 {
    0.5 * eigs.iter().map(|&l| (1.0 + 2.0 * pairs * l.max(0.0) / rho).ln()).sum::<f64>()
}

/// MR-LPF Corollary 4.4, eq. (16), with the theory's settings (β_(r) of eq. (14), κ_1 = κ, κ_r = 6,
/// ρ_r = λκ_r, RKHS-norm MLE): for any x̂ ∈ M_{R+1}, P(x* ≻ x̂) − ½ ≤ 2β_(R) C √(R Γ_4λ(T)/T) w.p. ≥ 1 − δ,
/// C = √(8/log(1 + 4/(6λ))). Measured: the worst member of M_{R+1} in each run. Criterion: the
/// fraction of runs within the bound ≥ 1 − δ.
///
/// Also the claim after eq. (27): for T ≥ T₀, every pair of M_2 has μ(h(x, x′)) ∈ [1/4, 3/4]. T₀ is
/// bracketed: T₀ > N_lo² where no N ≤ N_lo satisfies (27) with Γ ≥ the greedy value (a lower bound),
/// and T₀ ≤ N_up² with Γ ≤ ½ log det(I + 2NK/ρ) and R ≤ ⌈log₂log₂T⌉ + 1. When T < T₀ the claim's
/// premise is not met: the measured μ-range of M_2 is reported, not judged.
// Long: one check's runs, its bound and the bracket of T₀ share the instance and the settings line.
pub fn mrlpf_simple_regret(quick: bool) -> Vec<Row> {
    let (horizon, runs): (usize, u64) = if quick { (300, 8) } else { (1000, 40) };
    let result = (|| -> bohf_core::Result<Vec<Row>> {
        let inst = instance()?;
        let n = inst.f.len();
        let mu = |s: f64| Link::Logistic.mu(s);
        let best = inst.f.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let config = MrLpfConfig {
            inference: theory_inference(inst.kappa),
            beta: WidthSchedule::Theory { norm_bound: inst.b, delta: DELTA },
            noise: RoundNoise::Theory,
            ..MrLpfConfig::default()
        };
        let mut worst_sr = 0.0_f64;
        let mut final_sizes = Vec::new();
        let mut srs = Vec::new();
        let (mut m2_lo, mut m2_hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut m2_ok = 0usize;
        let mut m2_sizes = Vec::new();
        let mut rounds = 0usize;
        for seed in 0..runs {
            let ctx = SearchContext::new(inst.domain.clone(), horizon)?;
            let mut alg = MrLpf::new(&ctx, config.clone().check()?)?;
            rounds = alg.schedule().len();
            let mut rng = bohf_core::rng::stream(4100 + seed, &[0]);
            let mut resp = bohf_core::rng::stream(4100 + seed, &[1]);
            for _ in 0..horizon {
                let q = alg.suggest(&mut rng)?;
                let Query::Duel(x, y) = &q else {
                    return Err(bohf_core::Error::invalid("query", "MR-LPF asks duels"));
                };
                let (i, j) = (x.index.unwrap_or(0), y.index.unwrap_or(0));
                let first_wins = resp.random::<f64>() < mu(inst.f[i] - inst.f[j]);
                alg.observe(&q, Answer::Duel { first_wins })?;
            }
            let records = alg.records();
            let last = records.last().ok_or_else(|| bohf_core::Error::Empty("MR-LPF rounds".into()))?;
            let sr = last.survivors.iter().map(|&x| mu(best - inst.f[x]) - 0.5).fold(0.0_f64, f64::max);
            srs.push(sr);
            final_sizes.push(last.survivors.len());
            worst_sr = worst_sr.max(sr);
            {
                let m2 = &records[0].survivors;
                m2_sizes.push(m2.len());
                let mut ok = true;
                for &a in m2 {
                    for &b in m2 {
                        let m = mu(inst.f[a] - inst.f[b]);
                        m2_lo = m2_lo.min(m);
                        m2_hi = m2_hi.max(m);
                        ok &= (0.25..=0.75).contains(&m);
                    }
                }
                m2_ok += ok as usize;
            }
        }
        // Eq. (16).
        let base = theory_inference(inst.kappa).base_gram(&inst.domain)?;
        let g4 = greedy_pairs(&base, PairKernel::Dueling, 4.0 * LAMBDA, horizon)?;
        let kappa_r = if rounds >= 2 { 6.0 } else { inst.kappa };
        let beta_r = mrlpf_beta(inst.b, kappa_r, rounds as f64, n);
        let c = (8.0 / (1.0 + 4.0 / (6.0 * LAMBDA)).ln()).sqrt();
        let gamma4 = g4.value() / NEMHAUSER_RATIO;
        let bound = 2.0 * beta_r * c * (rounds as f64 * gamma4 / horizon as f64).sqrt();
        let within = srs.iter().filter(|&&s| s <= bound).count();
        // T₀ of eq. (27): 2β_(1)(δ)√(8/log(1+4/(λκ)))√(Γ_λκ(N)/N) ≤ 1/4, N = ⌈√T₀⌉.
        let rho1 = LAMBDA * inst.kappa;
        let c1 = (8.0 / (1.0 + 4.0 / rho1).ln()).sqrt();
        let lhs = |gamma: f64, nn: f64, r: f64| 2.0 * mrlpf_beta(inst.b, inst.kappa, r, n) * c1 * (gamma / nn).sqrt();
        let n_lo = 2000usize;
        let g1 = greedy_pairs(&base, PairKernel::Dueling, rho1, n_lo)?;
        // Lower bound: R ≥ 1 and Γ ≥ greedy value; the first N ≤ n_lo where (27) could hold.
        let mut first_possible = None;
        for nn in 1..=n_lo {
            if lhs(g1.bracket_at(nn)?.lower, nn as f64, 1.0) <= 0.25 {
                first_possible = Some(nn);
                break;
            }
        }
        // Beyond n_lo, Γ(N) ≥ Γ(n_lo) ≥ g(n_lo) (Γ is non-decreasing), so (27) needs N ≥ 64 β_(1)² c1² g(n_lo).
        let beta1 = mrlpf_beta(inst.b, inst.kappa, 1.0, n);
        let n_first = match first_possible {
            Some(nn) => nn as f64,
            None => ((n_lo + 1) as f64).max((64.0 * beta1 * beta1 * c1 * c1 * g1.value()).ceil()),
        };
        let t0_lower = (n_first - 1.0) * (n_first - 1.0);
        // Upper bound: Γ ≤ ½ log det(I + 2NK/ρ), R ≤ ⌈log₂log₂T⌉ + 1 at T = N².
        let eigs: Vec<f64> = nalgebra::SymmetricEigen::new(base.clone()).eigenvalues.iter().copied().collect();
        let r_up = |nn: f64| ((nn * nn).log2().max(2.0).log2()).ceil() + 1.0;
        let holds_up = |nn: f64| lhs(gamma_spectral_upper(&eigs, rho1, nn), nn, r_up(nn)) <= 0.25;
        let (mut lo, mut hi) = (1.0_f64, 2.0_f64);
        while !holds_up(hi) && hi < 1e150 {
            lo = hi;
            hi *= 2.0;
        }
        for _ in 0..200 {
            let mid = (lo * hi).sqrt();
            if holds_up(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
            if hi / lo < 1.0 + 1e-6 {
                break;
            }
        }
        let t0_upper = hi.ceil() * hi.ceil();
        let reached = (horizon as f64) >= t0_upper;
        let premise_unknown = !reached && (horizon as f64) > t0_lower;
        let sr_setting = format!(
            "theory settings (β eq. 14, κ_1={}, κ_r=6, ρ_r=λκ_r, RKHS-norm MLE), RKHS f (n=30, ×5, B={}), T={horizon}, R={rounds}, C={}, β_(R)={}, Γ_4λ(T)≤{}, {runs} runs",
            fmt(inst.kappa),
            fmt(inst.b),
            fmt(c),
            fmt(beta_r),
            fmt(gamma4)
        );
        let mut rows = vec![
            Row::at_least(
                "regret.mrlpf-simple-eq16",
                &format!(
                    "MR-LPF Cor. 4.4 eq. (16): P(x* ≻ x̂) − ½ ≤ 2β_(R)C√(RΓ_4λ(T)/T) for any x̂ ∈ M_(R+1), w.p. ≥ 1−δ; {sr_setting}"
                ),
                &format!(
                    "fraction of runs whose worst x̂ ∈ M_(R+1) is within (max simple regret = {}, bound = {} = {}× the trivial ½; |M_(R+1)| = {})",
                    fmt(worst_sr),
                    fmt(bound),
                    fmt(bound / 0.5),
                    size_range(&final_sizes)
                ),
                within as f64 / srs.len().max(1) as f64,
                "1−δ",
                1.0 - DELTA,
            ),
            Row::info(
                "regret.mrlpf-t0",
                &format!(
                    "MR-LPF eq. (27): T₀ = min T with 2β_(1)√(8/log(1+4/(λκ)))√(Γ_λκ(⌈√T⌉)/⌈√T⌉) ≤ 1/4; κ={}, β_(1)(R=1)={}, bracket from Γ ≥ greedy (N ≤ {n_lo}, then Γ(N) ≥ Γ({n_lo})) and Γ ≤ ½logdet(I+2NK/ρ)",
                    fmt(inst.kappa),
                    fmt(mrlpf_beta(inst.b, inst.kappa, 1.0, n))
                ),
                format!("T₀ ∈ ({}, {}]", fmt(t0_lower), fmt(t0_upper)),
                format!(
                    "T = {horizon}: {}",
                    if reached {
                        "T ≥ T₀"
                    } else if premise_unknown {
                        "undecided"
                    } else {
                        "T < T₀ (not reached)"
                    }
                ),
            ),
        ];
        let m2_claim = format!(
            "MR-LPF after eq. (27): for T ≥ T₀, μ(h(x,x′)) ∈ [1/4, 3/4] for all x,x′ ∈ M_2; {sr_setting}; |M_2| = {}",
            size_range(&m2_sizes)
        );
        if reached {
            rows.push(Row::at_least(
                "regret.mrlpf-m2-quarter",
                &m2_claim,
                "fraction of runs with every M_2 pair in [1/4, 3/4]",
                m2_ok as f64 / m2_sizes.len().max(1) as f64,
                "1−δ",
                1.0 - DELTA,
            ));
        } else {
            rows.push(Row::info(
                "regret.mrlpf-m2-quarter",
                &m2_claim,
                format!(
                    "μ(h) over M_2 pairs ∈ [{}, {}]; runs with all pairs in [1/4, 3/4]: {m2_ok} of {}",
                    fmt(m2_lo),
                    fmt(m2_hi),
                    m2_sizes.len()
                ),
                format!("not judged: premise T ≥ T₀ not met (T = {horizon}, T₀ > {})", fmt(t0_lower)),
            ));
        }
        Ok(rows)
    })();
    result.unwrap_or_else(|e| vec![Row::error("regret.mrlpf-simple-eq16", "MR-LPF eq. (16)", e)])
}
