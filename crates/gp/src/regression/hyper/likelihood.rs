//! The log marginal likelihood log p(y | θ) and its analytic gradient in the log hyperparameters
//! (R&W eq. (5.8)–(5.9)), from one Cholesky factor (grouped by repeated inputs where that is cheaper).

use super::*;

/// log p(y | θ) and its gradient with respect to θ = (log ℓ_1, …, log ℓ_m, log σ², log ρ)
/// (m = 1 for an isotropic kernel, d for ARD), in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMarginal {
    /// log p(y | θ) = −½ yᵀA⁻¹y − ½ log det A − (n/2) log 2π, A = K + ρI (R&W eq. (5.8)).
    pub value: f64,
    /// ∂ log p / ∂θ_p = ½ tr((ααᵀ − A⁻¹) ∂A/∂θ_p), α = A⁻¹y (R&W eq. (5.9)); m + 2 entries.
    pub gradient: Vec<f64>,
}

/// The log marginal likelihood of zero-mean GP regression with kernel `kernel` and noise variance
/// `noise` on the rows of `x` and targets `y`, with its analytic gradient (R&W eq. (5.8)–(5.9)).
///
/// One Cholesky factor L Lᵀ = A = K + ρI (+ the jitter [`Cholesky::with_jitter`] may add) gives
/// α = A⁻¹y by two triangular solves and log det A = 2 Σ log L_ii (n³/3 flops). The traces
/// tr(A⁻¹ ∂A/∂θ_p) need W = A⁻¹, taken from the factor without a general inverse:
/// [`Cholesky::inverse`] forms L⁻¹ by triangular substitution and W = L⁻ᵀL⁻¹ (n³/3 flops; solving
/// A W = I would cost n³). Each gradient entry is then an O(n²) contraction
/// ½ Σ_ik Q_ik (∂A/∂θ_p)_ik with Q = ααᵀ − W: ∂A/∂log ℓ_j through
/// [`Stationary::log_lengthscale_grad_contraction`] (one pass over the pairs, no matrix per
/// lengthscale), ∂A/∂log σ² = K and ∂A/∂log ρ = ρI (so ½ρ tr Q). Total ≈ (2/3) n³ + O(n² d)
/// flops; the criterion median at n = 100, d = 8 (ARD) is in docs/gp.md.
pub fn log_marginal_likelihood(
    kernel: &Stationary,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    noise: f64,
) -> Result<LogMarginal> {
    log_marginal(kernel, x, y, noise, true)
}

/// [`log_marginal_likelihood`], with an empty gradient unless `with_gradient` (the value alone
/// needs only the factor: n³/3 flops instead of ≈ (2/3) n³).
///
/// Repeated input points (rows equal bit for bit) are aggregated first, exactly: the c_u targets at
/// a distinct point u with mean ȳ_u and scatter S_u = Σ (y − ȳ_u)² have the likelihood
/// N(ȳ_u; f_u, ρ/c_u) · (2πρ)^{−(c_u−1)/2} c_u^{−1/2} e^{−S_u/(2ρ)}, so with A = K_UU + ρ·diag(1/c_u)
/// over the U distinct points and α = A⁻¹ȳ,
///
/// ```text
/// log p(y) = −½ ȳᵀα − ½ log det A − (U/2) log 2π − Σ_u [(c_u − 1)/2 · log(2πρ) + ½ log c_u] − Σ_u S_u/(2ρ)
/// ```
///
/// with gradient ½ tr(Q ∂A/∂θ_p), Q = ααᵀ − A⁻¹, for the kernel's parameters, and
/// ½ ρ Σ_u Q_uu/c_u − Σ_u (c_u − 1)/2 + Σ_u S_u/(2ρ) for log ρ: O(U³) instead of O(n³) (a duel GP
/// on a grid sees the same candidates many times). Without repeats the direct formula runs.
pub(super) fn log_marginal(
    kernel: &Stationary,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    noise: f64,
    with_gradient: bool,
) -> Result<LogMarginal> {
    ensure_positive("noise", noise)?;
    if x.nrows() != y.len() {
        return Err(Error::dims("log marginal likelihood: targets vs input points", x.nrows(), y.len()));
    }
    bohf_core::error::ensure_finite("log marginal likelihood targets", y.iter())?;
    let mut first: std::collections::HashMap<Vec<u64>, usize> = std::collections::HashMap::new();
    let mut group = Vec::with_capacity(y.len());
    for i in 0..x.nrows() {
        let key: Vec<u64> = x.row(i).iter().map(|v| v.to_bits()).collect();
        let next = first.len();
        group.push(*first.entry(key).or_insert(next));
    }
    if first.len() < y.len() {
        return log_marginal_grouped(kernel, x, y, noise, with_gradient, &group, first.len());
    }
    log_marginal_rows(kernel, x, y, noise, with_gradient)
}

/// The aggregated form of [`log_marginal`] (its documentation): `group[i]` is the distinct point
/// of row i, numbered in order of first appearance, `u` of them.
fn log_marginal_grouped(
    kernel: &Stationary,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    noise: f64,
    with_gradient: bool,
    group: &[usize],
    u: usize,
) -> Result<LogMarginal> {
    let mut rep = vec![usize::MAX; u];
    let mut count = vec![0.0; u];
    let mut sum = vec![0.0; u];
    for (i, &g) in group.iter().enumerate() {
        if rep[g] == usize::MAX {
            rep[g] = i;
        }
        count[g] += 1.0;
        sum[g] += y[i];
    }
    let ybar = DVector::from_fn(u, |g, _| sum[g] / count[g]);
    let scatter: f64 = group.iter().enumerate().map(|(i, &g)| (y[i] - ybar[g]).powi(2)).sum();
    let xu = DMatrix::from_fn(u, x.ncols(), |g, j| x[(rep[g], j)]);
    let k = kernel.gram(&xu)?;
    let mut a = k.clone();
    for g in 0..u {
        a[(g, g)] += noise / count[g];
    }
    let chol = Cholesky::with_jitter(&a, JitterPolicy::default())?;
    let alpha = chol.solve_vec(&ybar)?;
    let two_pi = 2.0 * std::f64::consts::PI;
    let extra: f64 = count.iter().map(|c| -0.5 * (c - 1.0) * (two_pi * noise).ln() - 0.5 * c.ln()).sum::<f64>()
        - scatter / (2.0 * noise);
    let value = crate::regression::log_ml_value(&ybar, &alpha, chol.log_det()) + extra;
    if !with_gradient {
        return Ok(LogMarginal { value, gradient: Vec::new() });
    }
    let mut q = chol.inverse();
    q.ger(1.0, &alpha, &alpha, -1.0);
    let mut gradient: Vec<f64> = kernel.log_lengthscale_grad_contraction(&xu, &q)?.iter().map(|c| 0.5 * c).collect();
    gradient.push(0.5 * q.dot(&k));
    let noise_grad = 0.5 * noise * (0..u).map(|g| q[(g, g)] / count[g]).sum::<f64>()
        - count.iter().map(|c| 0.5 * (c - 1.0)).sum::<f64>()
        + scatter / (2.0 * noise);
    gradient.push(noise_grad);
    Ok(LogMarginal { value, gradient })
}

/// [`log_marginal`] by the direct formula on every row (R&W eq. (5.8)–(5.9)).
pub(super) fn log_marginal_rows(
    kernel: &Stationary,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    noise: f64,
    with_gradient: bool,
) -> Result<LogMarginal> {
    let n = y.len();
    let k = kernel.gram(x)?;
    let mut a = k.clone();
    for i in 0..n {
        a[(i, i)] += noise;
    }
    let chol = Cholesky::with_jitter(&a, JitterPolicy::default())?;
    let alpha = chol.solve_vec(y)?;
    let value = crate::regression::log_ml_value(y, &alpha, chol.log_det());
    if !with_gradient {
        return Ok(LogMarginal { value, gradient: Vec::new() });
    }
    // Q = ααᵀ − A⁻¹; each gradient entry is ½ Σ_ik Q_ik (∂A/∂θ_p)_ik.
    let mut q = chol.inverse();
    q.ger(1.0, &alpha, &alpha, -1.0);
    let mut gradient: Vec<f64> = kernel.log_lengthscale_grad_contraction(x, &q)?.iter().map(|c| 0.5 * c).collect();
    gradient.push(0.5 * q.dot(&k));
    gradient.push(0.5 * noise * q.trace());
    Ok(LogMarginal { value, gradient })
}
