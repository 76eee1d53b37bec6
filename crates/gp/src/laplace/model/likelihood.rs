//! The preference likelihood at the latent utilities f (duels and choice blocks): its value, the
//! weights of the difference rows and its gradient, and the algebra of the difference rows D.

use super::*;

/// Per-pair figures at a utility vector f, as functions of the difference Δ = f_i − f_j.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PairTerms {
    /// L(Δ) = wins_i log μ(Δ/s) + wins_j log μ(−Δ/s).
    loglik: f64,
    /// L′(Δ).
    grad: f64,
    /// w = −L″(Δ) ≥ 0 (the pair's weight in W = Dᵀ diag(w) D).
    curv: f64,
}

pub(super) fn pair_terms(config: &LaplaceConfig, p: &PairCounts, delta: f64) -> PairTerms {
    let s = config.scale;
    let z = delta / s;
    let (ni, nj) = (f64::from(p.wins_i), f64::from(p.wins_j));
    let mut t = PairTerms::default();
    for (count, first_wins) in [(ni, true), (nj, false)] {
        if count > 0.0 {
            let l = duel_loss(config.link, first_wins, z);
            t.loglik -= count * l.value;
            t.grad -= count * l.grad / s;
            t.curv += count * l.curv / (s * s);
        }
    }
    t
}

/// dw/dΔ = −L‴(Δ) of a pair.
pub(super) fn pair_third(config: &LaplaceConfig, p: &PairCounts, delta: f64) -> f64 {
    let s = config.scale;
    let z = delta / s;
    let (ni, nj) = (f64::from(p.wins_i), f64::from(p.wins_j));
    (ni * duel_loss_third(config.link, true, z) + nj * duel_loss_third(config.link, false, z)) / (s * s * s)
}

/// The utilities f_u + s log m_u of a choice block's options (the multinomial logit with
/// multiplicities m_u, [`ChoiceCounts`]).
pub(super) fn choice_utilities(c: &ChoiceCounts, f: &DVector<f64>, scale: f64) -> Vec<f64> {
    c.options.iter().zip(c.offsets(scale)).map(|(&o, off)| f[o] + off).collect()
}

/// The multinomial-logit probabilities p_u of a choice block's options at f
/// ([`bohf_core::link::choice_probabilities`]).
pub(super) fn choice_probs(c: &ChoiceCounts, f: &DVector<f64>, scale: f64) -> Vec<f64> {
    choice_probabilities(&choice_utilities(c, f, scale), scale)
}

/// The log-likelihood at f, the weights w of the difference rows
/// ([`PreferenceData::difference_rows`]) and ∇log p(y | f) = Dᵀ L′ (duels) + Σ_c (n_u − N p_u)/s
/// (choices; n entries).
///
/// A choice block c with options o_1..o_k, wins n_u and N = Σ n_u (Plackett–Luce top-1, the
/// softmax likelihood of GPML §3.5, eq. (3.34)–(3.38), in the utilities f/s):
///
/// ```text
/// L_c = Σ_u n_u log p_u,  ∂L_c/∂f_{o_u} = (n_u − N p_u)/s,
/// −∇∇L_c = N (diag(p) − p pᵀ)/s² = Σ_{u<v} (N p_u p_v/s²)(e_{o_u} − e_{o_v})(e_{o_u} − e_{o_v})ᵀ,
/// ```
///
/// so a choice's rows get the weights w_uv = N p_u p_v/s² (GPML eq. (3.38), Π Πᵀ written as a
/// sum over pairs, which keeps W = Dᵀ diag(w) D with difference rows only).
pub(in crate::laplace) fn likelihood_at(
    config: &LaplaceConfig,
    data: &PreferenceData,
    f: &DVector<f64>,
) -> (f64, Vec<f64>, DVector<f64>) {
    let mut grad = DVector::zeros(f.len());
    let mut total = 0.0;
    let s = config.scale;
    let mut w: Vec<f64> = data
        .pairs()
        .iter()
        .map(|p| {
            let t = pair_terms(config, p, f[p.i] - f[p.j]);
            total += t.loglik;
            grad[p.i] += t.grad;
            grad[p.j] -= t.grad;
            t.curv
        })
        .collect();
    for c in data.choices() {
        let u = choice_utilities(c, f, s);
        let p = choice_probabilities(&u, s);
        let n = f64::from(c.total());
        for (j, (&o, &wins)) in c.options.iter().zip(&c.wins).enumerate() {
            if wins > 0 {
                total += f64::from(wins) * choice_log_probability(&u, j, s);
            }
            grad[o] += (f64::from(wins) - n * p[j]) / s;
        }
        for a in 0..p.len() {
            w.extend(p[a + 1..].iter().map(|pb| n * p[a] * pb / (s * s)));
        }
    }
    (total, w, grad)
}

/// D v: (v_i − v_j) per difference row (i, j).
pub(super) fn diff(rows: &[(usize, usize)], v: &DVector<f64>) -> DVector<f64> {
    DVector::from_iterator(rows.len(), rows.iter().map(|&(i, j)| v[i] - v[j]))
}

/// Dᵀ u (n entries).
pub(super) fn diff_t(rows: &[(usize, usize)], u: &DVector<f64>, n: usize) -> DVector<f64> {
    let mut out = DVector::zeros(n);
    for (&(i, j), v) in rows.iter().zip(u.iter()) {
        out[i] += v;
        out[j] -= v;
    }
    out
}

/// D X for a matrix X with n rows (p × columns).
pub(super) fn diff_rows(rows: &[(usize, usize)], x: &DMatrix<f64>) -> DMatrix<f64> {
    let mut out = DMatrix::zeros(rows.len(), x.ncols());
    for c in 0..x.ncols() {
        let col = x.column(c);
        for (k, &(i, j)) in rows.iter().enumerate() {
            out[(k, c)] = col[i] - col[j];
        }
    }
    out
}

/// M = D K Dᵀ (p×p, p difference rows), M_kl = K_{i_k i_l} − K_{i_k j_l} − K_{j_k i_l} + K_{j_k j_l}.
pub(super) fn pair_gram(rows: &[(usize, usize)], k: &DMatrix<f64>) -> DMatrix<f64> {
    let p = rows.len();
    let mut m = DMatrix::zeros(p, p);
    for (l, &(bi, bj)) in rows.iter().enumerate() {
        for (r, &(ai, aj)) in rows.iter().enumerate().skip(l) {
            let v = k[(ai, bi)] - k[(ai, bj)] - k[(aj, bi)] + k[(aj, bj)];
            m[(r, l)] = v;
            m[(l, r)] = v;
        }
    }
    m
}

/// B = I + Ŵ M Ŵ with Ŵ = diag(√w), factorised (eigenvalues ≥ 1: no jitter is ever needed for a
/// finite M; the default policy only guards against rounding) by the gaxpy Cholesky
/// ([`Cholesky::with_jitter_gaxpy`]: several per evidence evaluation, the fit's largest cost).
pub(super) fn factor_b(m: &DMatrix<f64>, sqrt_w: &DVector<f64>) -> Result<Cholesky> {
    let p = m.nrows();
    let b = DMatrix::from_fn(p, p, |r, c| f64::from(u8::from(r == c)) + sqrt_w[r] * m[(r, c)] * sqrt_w[c]);
    Cholesky::with_jitter_gaxpy(&b, JitterPolicy::default())
}
