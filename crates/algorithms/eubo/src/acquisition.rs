//! The acquisitions on a joint Gaussian posterior of the options' utilities: EUBO in closed form,
//! qEUBO by a sample average over fixed base samples, and the posterior variance of a duel's
//! outcome probability (DTS's second point). Each with what a gradient search needs.

use bohf_core::special::expected_max_of_two;
use bohf_core::{Error, Link, Result};
use bohf_gp::JointPosterior;
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// EUBO(x, x′) = E[max(f(x), f(x′))] of the two rows of a joint posterior, in closed form (Clark
/// 1961; [`expected_max_of_two`]; Lin et al. 2022 eq. (6)), and its gradient in the 2d coordinates
/// (x then x′) by the chain rule through m(x), m(x′), v(x, x), v(x′, x′) and v(x, x′).
///
/// Errors unless the posterior has exactly two points.
pub fn eubo_with_gradient(jp: &JointPosterior) -> Result<(f64, Vec<f64>)> {
    if jp.mean.len() != 2 {
        return Err(Error::dims("EUBO: points of the joint posterior", 2, jp.mean.len()));
    }
    let s = &jp.covariance;
    let (value, g) = expected_max_of_two(jp.mean[0], jp.mean[1], s[(0, 0)], s[(1, 1)], s[(0, 1)]);
    let d = jp.mean_gradient.ncols();
    let mut grad = vec![0.0; 2 * d];
    for l in 0..d {
        let (c0, c1) = (&jp.covariance_gradient[0], &jp.covariance_gradient[1]);
        grad[l] = g[0] * jp.mean_gradient[(0, l)] + g[2] * 2.0 * c0[(l, 0)] + g[4] * c0[(l, 1)];
        grad[d + l] = g[1] * jp.mean_gradient[(1, l)] + g[3] * 2.0 * c1[(l, 1)] + g[4] * c1[(l, 0)];
    }
    Ok((value, grad))
}

/// `samples` base samples z ~ N(0, I_q), one per column (q × samples), drawn from `rng`: fixed for
/// one acquisition optimisation, so that [`qeubo_mc`] is a deterministic smooth-almost-everywhere
/// function of the options (the sample-average approximation of BoTorch's MC acquisitions).
pub fn base_samples(q: usize, samples: usize, rng: &mut (impl Rng + ?Sized)) -> DMatrix<f64> {
    DMatrix::from_fn(q, samples, |_, _| StandardNormal.sample(rng))
}

/// The lower Cholesky factor of Σ + δI with δ = 10⁻¹⁰·max(1, max_i Σ_ii) (the same point twice, or
/// a point with no posterior variance, makes Σ singular; BoTorch adds a jitter too).
fn jittered_cholesky(cov: &DMatrix<f64>) -> Result<DMatrix<f64>> {
    let q = cov.nrows();
    let delta = 1e-10 * cov.diagonal().iter().fold(1.0_f64, |m, v| m.max(*v));
    let a = cov + DMatrix::identity(q, q) * delta;
    nalgebra::Cholesky::new(a).map(|c| c.l()).ok_or_else(|| {
        Error::NonFinite("qEUBO: the posterior covariance of the options is not positive semi-definite".into())
    })
}

/// qEUBO(x_1, …, x_q) = E[max_i f(x_i)] (Astudillo et al. 2023, eq. (2)) by the sample average
/// (1/S) Σ_s max_i (m + L z_s)_i over the columns z_s of `z` (q × S, [`base_samples`]), with
/// L the Cholesky factor of the posterior covariance (jittered by 10⁻¹⁰·max(1, max Σ_ii)).
/// At q = 2 it estimates [`eubo_with_gradient`]'s value, with Monte Carlo error O(S^{−1/2}).
///
/// Errors: dimensions of `mean`, `cov` and `z` that disagree, q < 2, no sample.
pub fn qeubo_mc(mean: &DVector<f64>, cov: &DMatrix<f64>, z: &DMatrix<f64>) -> Result<f64> {
    let q = check_q(mean, cov, z)?;
    let l = jittered_cholesky(cov)?;
    let f = &l * z;
    let mut sum = 0.0;
    for s in 0..z.ncols() {
        sum += (0..q).map(|i| mean[i] + f[(i, s)]).fold(f64::NEG_INFINITY, f64::max);
    }
    Ok(sum / z.ncols() as f64)
}

fn check_q(mean: &DVector<f64>, cov: &DMatrix<f64>, z: &DMatrix<f64>) -> Result<usize> {
    let q = mean.len();
    if q < 2 {
        return Err(Error::invalid("q", format!("qEUBO needs q ≥ 2 options, got {q}")));
    }
    if cov.nrows() != q || cov.ncols() != q {
        return Err(Error::dims("qEUBO: covariance of the options", q, cov.nrows()));
    }
    if z.nrows() != q {
        return Err(Error::dims("qEUBO: rows of the base samples", q, z.nrows()));
    }
    if z.ncols() == 0 {
        return Err(Error::invalid("mc_samples", "qEUBO needs at least one base sample"));
    }
    Ok(q)
}

/// [`qeubo_mc`] at the points of a joint posterior, with its gradient in their q·d coordinates
/// (point 1's, then point 2's, …): with i*(s) the maximising option of sample s,
/// ∂/∂x_{k,l} = (1/S) Σ_s (∂m_{i*}/∂x_{k,l} + (∂L/∂x_{k,l} z_s)_{i*}), and the Cholesky factor's
/// derivative by the forward-mode rule dL = L Φ(L⁻¹ dΣ L⁻ᵀ), Φ the lower triangle with the
/// diagonal halved (Murray 2016, "Differentiation of the Cholesky decomposition", eq. (9)),
/// contracted without forming dL: Σ_ij (dL)_ij A_ij = Σ_{i≥j} Φ_ij (Lᵀ A)_ij, where only row and
/// column k of dΣ are non-zero, so L⁻¹ dΣ L⁻ᵀ = g hᵀ + h gᵀ (g = L⁻¹ e_k, h = L⁻¹ c, c the k-th
/// row of dΣ with its diagonal entry halved).
pub fn qeubo_mc_with_gradient(jp: &JointPosterior, z: &DMatrix<f64>) -> Result<(f64, Vec<f64>)> {
    let q = check_q(&jp.mean, &jp.covariance, z)?;
    let d = jp.mean_gradient.ncols();
    let l = jittered_cholesky(&jp.covariance)?;
    let f = &l * z;
    let samples = z.ncols();
    // Per option i: how many samples it wins, and A[i, j] = Σ_{s won by i} z_js.
    let mut wins = vec![0usize; q];
    let mut a = DMatrix::zeros(q, q);
    let mut sum = 0.0;
    for s in 0..samples {
        let (mut best, mut arg) = (f64::NEG_INFINITY, 0);
        for i in 0..q {
            let v = jp.mean[i] + f[(i, s)];
            if v > best {
                best = v;
                arg = i;
            }
        }
        sum += best;
        wins[arg] += 1;
        for j in 0..q {
            a[(arg, j)] += z[(j, s)];
        }
    }
    let inv_s = 1.0 / samples as f64;
    let l_inv = l
        .clone()
        .solve_lower_triangular(&DMatrix::identity(q, q))
        .ok_or_else(|| Error::NonFinite("qEUBO: singular Cholesky factor of the options' covariance".into()))?;
    // Σ_ij (dL ∘ A)_ij = tr(Φᵀ Lᵀ A) = Σ_{i≥j} Φ_ij P_ij with P = Lᵀ A, and dΣ = e_k cᵀ + c e_kᵀ (c_j
    // = ∂Σ_kj/∂x_{k,l} for j ≠ k, c_k half of ∂Σ_kk), so L⁻¹ dΣ L⁻ᵀ = g hᵀ + h gᵀ with g = L⁻¹ e_k,
    // h = L⁻¹ c: O(q²) per coordinate, no q×q products.
    let p = l.transpose() * &a;
    let mut grad = vec![0.0; q * d];
    let mut c = DVector::zeros(q);
    for k in 0..q {
        let ck = &jp.covariance_gradient[k];
        let g = l_inv.column(k);
        for ll in 0..d {
            for j in 0..q {
                c[j] = ck[(ll, j)];
            }
            let h = &l_inv * &c;
            let mut chol_term = 0.0;
            for j in 0..q {
                chol_term += g[j] * h[j] * p[(j, j)];
                for i in j + 1..q {
                    chol_term += (g[i] * h[j] + h[i] * g[j]) * p[(i, j)];
                }
            }
            grad[k * d + ll] = inv_s * (wins[k] as f64 * jp.mean_gradient[(k, ll)] + chol_term);
        }
    }
    Ok((sum * inv_s, grad))
}

/// The posterior variance of a duel's outcome probability, Var[μ(Δ/s)] with Δ = f(x) − f(x′) ~
/// N(`mean`, `variance`) (González et al. 2017, §4.3: DTS's second point maximises the variance of
/// σ(f([x, x′])) over x′). For the probit link Φ, exactly (Plackett's identity
/// ∂Φ₂(h, h; ρ)/∂ρ = φ₂(h, h; ρ), then r = sin t):
///
/// ```text
/// Var = Φ₂(h, h; ρ) − Φ(h)² = (1/2π) ∫₀^{asin ρ} exp(−h²/(1 + sin t)) dt,
/// h = mean/√(s² + variance),   ρ = variance/(s² + variance),
/// ```
///
/// by composite Simpson with 64 intervals (the integrand is smooth on the closed interval). For
/// the logistic link, the probit approximation σ(z) ≈ Φ(z √(π/8)) (MacKay 1992) is used, i.e.
/// scale s √(8/π).
pub fn duel_outcome_variance(mean: f64, variance: f64, link: Link, scale: f64) -> f64 {
    let s = match link {
        Link::Probit => scale,
        Link::Logistic => scale * (8.0 / std::f64::consts::PI).sqrt(),
    };
    let v = variance.max(0.0);
    if v == 0.0 {
        return 0.0;
    }
    let total = s * s + v;
    let h2 = mean * mean / total;
    let upper = (v / total).min(1.0).asin();
    let n = 64;
    let step = upper / n as f64;
    let g = |t: f64| (-h2 / (1.0 + t.sin())).exp();
    let mut acc = g(0.0) + g(upper);
    for i in 1..n {
        acc += if i % 2 == 1 { 4.0 } else { 2.0 } * g(i as f64 * step);
    }
    acc * step / 3.0 / (2.0 * std::f64::consts::PI)
}

/// E[μ(Δ/s)] for Δ ~ N(`mean`, `variance`) under the probit link: Φ(mean/√(s² + variance)) (for
/// the tests of [`duel_outcome_variance`]).
#[cfg(test)]
pub(crate) fn duel_outcome_mean_probit(mean: f64, variance: f64, scale: f64) -> f64 {
    bohf_core::special::std_normal_cdf(mean / (scale * scale + variance).sqrt())
}
