//! POP-BO checks, part 1: the App. B constants and the Theorem 3.1 β table.

use super::*;

// ---------------------------------------------------------------------------------------------
// 1. Constants of App. B.

/// App. B constants against closed forms written here (notes §2.4): σ_lo = 1/(1+e^{2B}),
/// σ_hi = 1/(1+e^{−2B}), σ′_lo = 1/(4cosh²B) (also the minimum of σ(1−σ) over [−2B, 2B], scanned),
/// B_p = 2 sinh(2B), H_σ = (1+e^{−2B})²/2, C_L = 2 + tanh B (Lemma C.3: 1 + 2/(1+e^{−2B})).
pub(super) fn sigma_constants(_quick: bool) -> Vec<Row> {
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
pub(super) fn beta1_by_hand(b: f64, eps: f64, delta: f64, t: usize, log_n: f64) -> f64 {
    if t == 0 {
        return 0.0;
    }
    let tf = t as f64;
    let cl = 1.0 + 2.0 / (1.0 + (-2.0 * b).exp());
    (32.0 * tf * b * b * ((PI * PI * tf * tf / (6.0 * delta)).ln() + log_n)).sqrt() + cl * eps * tf
}

/// β(ε, δ/2, t) of Lemma 3.5 with the notes' reconstruction (App. B items 2–3: prefactor 1/(H_σσ′_lo²),
/// 6δ in β₂), by hand; `delta` is the overall δ.
pub(super) fn beta35_by_hand(b: f64, eps: f64, delta: f64, t: usize, log_n: f64) -> f64 {
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
pub(super) fn beta_table(quick: bool) -> Vec<Row> {
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
