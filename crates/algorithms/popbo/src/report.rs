//! The theoretical reporting rule of POP-BO (eq. (19)) and the σ^{ff′} it needs (eq. (16)).

use bohf_core::Result;
use bohf_infogain::{PairKernel, PosteriorVariances};
use nalgebra::DMatrix;

/// σ_t^{ff′}((x_t, x′_t)) for t = 1, …, T along a sequence of pairs (eq. (16)):
///
/// (σ_t^{ff′}(ω_t))² = k^{ff′}(ω_t, ω_t) − k^{ff′}(ω_{1:t−1}, ω_t)ᵀ (K^{ff′}_{t−1} + λI)⁻¹ k^{ff′}(ω_{1:t−1}, ω_t),
///
/// with the additive pair kernel k^{ff′}((x, x′), (x̄, x̄′)) = k(x, x̄) + k(x′, x̄′): the posterior
/// variances of bohf-infogain's [`PosteriorVariances::for_pairs`] with [`PairKernel::Additive`] and
/// noise λ (O(n²) per pair, from the base Gram of the candidates), square-rooted. Errors for λ ≤ 0
/// or an index out of range.
pub fn pair_sigmas(base_gram: &DMatrix<f64>, pairs: &[(usize, usize)], lambda: f64) -> Result<Vec<f64>> {
    let variances = PosteriorVariances::for_pairs(base_gram, PairKernel::Additive, pairs, lambda)?;
    Ok(variances.variances().iter().map(|v| v.max(0.0).sqrt()).collect())
}

/// The bound of Theorem 3.6 / eq. (19) at step t: 2(2B + λ^{−1/2}√β_t) σ_t.
pub fn duel_error_bound(norm_bound: f64, lambda: f64, beta: f64, sigma: f64) -> f64 {
    2.0 * (2.0 * norm_bound + beta.max(0.0).sqrt() / lambda.sqrt()) * sigma
}

/// t* of eq. (19): the 0-based position of the smallest [`duel_error_bound`] among
/// `(β_t, σ_t)`, lowest on ties within the relative tolerance of [`bohf_core::argmax_lowest`];
/// `None` if empty or if a bound is NaN.
pub fn t_star(norm_bound: f64, lambda: f64, betas: &[f64], sigmas: &[f64]) -> Option<usize> {
    let negated = betas.iter().zip(sigmas).map(|(&b, &s)| -duel_error_bound(norm_bound, lambda, b, s));
    bohf_core::argmax_lowest_by("t* bounds", negated.enumerate()).ok().map(|(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_sigmas_match_the_direct_formula() {
        // SE kernel on 6 points of [0, 1]; a chain of pairs as POP-BO makes.
        let xs = [0.0, 0.2, 0.45, 0.5, 0.8, 1.0];
        let k = |a: f64, b: f64| (-(a - b).powi(2) / (2.0 * 0.3f64.powi(2))).exp();
        let base = DMatrix::from_fn(6, 6, |i, j| k(xs[i], xs[j]));
        let pairs = [(1, 0), (4, 1), (2, 4), (3, 2), (5, 3), (3, 5)];
        let lambda = 0.7;
        let got = pair_sigmas(&base, &pairs, lambda).unwrap();
        for t in 0..pairs.len() {
            // Direct: k(ω,ω) − kᵀ(K + λI)⁻¹k with an LU solve of the leading block, written out.
            let kf = |p: (usize, usize), q: (usize, usize)| base[(p.0, q.0)] + base[(p.1, q.1)];
            let prior = kf(pairs[t], pairs[t]);
            let want2 = if t == 0 {
                prior
            } else {
                let a = DMatrix::from_fn(t, t, |i, j| kf(pairs[i], pairs[j]) + if i == j { lambda } else { 0.0 });
                let kv = nalgebra::DVector::from_fn(t, |i, _| kf(pairs[i], pairs[t]));
                let sol = a.lu().solve(&kv).unwrap();
                prior - kv.dot(&sol)
            };
            // Condition number of K + 0.7 I is below (12 + 0.7)/0.7 ≈ 18: agreement to ~1e−14.
            assert!((got[t] - want2.sqrt()).abs() < 1e-12, "t = {t}: {} vs {}", got[t], want2.sqrt());
        }
        // Repeating a pair: σ² = k − k²/(k + λ) = kλ/(k + λ) < k (conditioning reduces variance).
        let rep = pair_sigmas(&base, &[(1, 0), (1, 0)], lambda).unwrap();
        let k0 = base[(1, 1)] + base[(0, 0)];
        assert!((rep[1].powi(2) - k0 * lambda / (k0 + lambda)).abs() < 1e-13);
    }

    #[test]
    fn t_star_picks_the_smallest_bound() {
        assert_eq!(t_star(1.0, 1.0, &[1.0, 4.0, 9.0], &[0.5, 0.2, 0.2]), Some(1));
        // 2(2 + 1)·0.5 = 3, 2(2 + 2)·0.2 = 1.6, 2(2 + 3)·0.2 = 2.
        assert!((duel_error_bound(1.0, 1.0, 4.0, 0.2) - 1.6).abs() < 1e-15);
        assert_eq!(t_star(1.0, 1.0, &[], &[]), None);
        assert!(pair_sigmas(&DMatrix::identity(2, 2), &[(0, 2)], 1.0).is_err());
        assert!(pair_sigmas(&DMatrix::identity(2, 2), &[(0, 1)], 0.0).is_err());
    }
}
