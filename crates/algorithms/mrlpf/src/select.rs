//! The two decisions of MR-LPF: maximum-variance pairs within a round (eq. (11)) and the
//! end-of-round elimination (eq. (12)). Pure functions of the posterior, the fit and the active set.

use crate::config::InitialSigma;
use bohf_core::{Error, Link, Result};
use bohf_gp::DuelingPosterior;
use bohf_kernels::IndexPair;
use nalgebra::DMatrix;

/// MR-LPF's selection rule, eq. (11): (x, x′) = argmax_{x, x′ ∈ M_r} σ_(n−1,r)(x, x′) over **ordered**
/// pairs of the active set M_r (diagonal included), with σ² read from the dueling posterior of the
/// round's own duels (σ²(i, j) = Ŝ_ii + Ŝ_jj − 2Ŝ_ij, MR-LPF eq. (10)).
///
/// Ties go to the first pair in row-major order of M_r × M_r with M_r sorted by candidate index
/// (the authors' code, note §3.2), i.e. the lexicographically smallest (x, x′). Since σ is symmetric
/// and σ(x, x) = 0, the chosen pair has x < x′ unless every σ is 0 (|M_r| = 1), when it is
/// (M_r\[0\], M_r\[0\]).
///
/// `active` must be non-empty, sorted and within the posterior's candidates (checked by callers).
pub fn max_variance_pair(posterior: &DuelingPosterior, active: &[usize]) -> IndexPair {
    max_variance_in(posterior.covariance(), active)
}

fn max_variance_in(s: &DMatrix<f64>, active: &[usize]) -> IndexPair {
    // σ²(i, j) = Ŝ_ii + Ŝ_jj − (Ŝ_ij + Ŝ_ji) is symmetric exactly (floating-point + commutes) and
    // σ²(i, i) = 0, so the first maximum in row-major order over M_r × M_r is the first one over
    // the pairs i < j in the same order: only those are scanned, in tiles of B × B positions so
    // that Ŝ_ij and Ŝ_ji (a row and a column of a column-major matrix) stay in cache, and a tie is
    // resolved towards the smaller (position of i, position of j), which gives the row-major rule.
    const B: usize = 64;
    let m = active.len();
    let diag: Vec<f64> = active.iter().map(|&i| s[(i, i)]).collect();
    let mut best = (0, 0);
    let mut best_var = 0.0;
    for bi in (0..m).step_by(B) {
        for bj in (bi..m).step_by(B) {
            for p in bi..(bi + B).min(m) {
                let i = active[p];
                for q in bj.max(p + 1)..(bj + B).min(m) {
                    let j = active[q];
                    // Ŝ_ij + Ŝ_ji rather than 2Ŝ_ij: rank-one updates leave Ŝ asymmetric by an ulp,
                    // and the symmetric form keeps σ(i, j) = σ(j, i) exactly.
                    let v = (diag[p] + diag[q] - (s[(i, j)] + s[(j, i)])).max(0.0);
                    if v > best_var || (v == best_var && best_var > 0.0 && (p, q) < best) {
                        best_var = v;
                        best = (p, q);
                    }
                }
            }
        }
    }
    (active[best.0], active[best.1])
}

/// The straightforward scan of every ordered pair in row-major order (the reference for tests).
#[cfg(test)]
fn max_variance_full_scan(s: &DMatrix<f64>, active: &[usize]) -> IndexPair {
    let mut best = (active[0], active[0]);
    let mut best_var = 0.0;
    for &i in active {
        let sii = s[(i, i)];
        for &j in active {
            if i == j {
                continue;
            }
            let v = (sii + s[(j, j)] - (s[(i, j)] + s[(j, i)])).max(0.0);
            if v > best_var {
                best_var = v;
                best = (i, j);
            }
        }
    }
    best
}

/// The whole query sequence of one round, computed before any of its labels (note §3.2, "batch
/// structure"): starting from the prior posterior (no duels of this round) with noise ρ, repeat
/// `count` times: pick [`max_variance_pair`] within `active`, condition on it ([`DuelingPosterior::add_duel`]).
///
/// With [`InitialSigma::Zero`] the first pair is (M_r\[0\], M_r\[0\]) (the authors' early code treats σ
/// as 0 before the round's first duel; a self-duel changes nothing, so the rest follows as usual).
pub fn max_variance_batch(
    base_gram: &DMatrix<f64>,
    active: &[usize],
    rho: f64,
    count: usize,
    initial_sigma: InitialSigma,
) -> Result<Vec<IndexPair>> {
    check_active(active, base_gram.nrows())?;
    let mut post = DuelingPosterior::prior(base_gram, rho)?;
    let mut pairs = Vec::with_capacity(count);
    for n in 0..count {
        let pair = next_pair(&post, active, n, initial_sigma);
        post.add_duel(pair.0, pair.1)?;
        pairs.push(pair);
    }
    Ok(pairs)
}

/// The n-th (0-based) pair of a round given the posterior after the round's first n duels.
pub(crate) fn next_pair(
    post: &DuelingPosterior,
    active: &[usize],
    position: usize,
    initial_sigma: InitialSigma,
) -> IndexPair {
    if position == 0 && initial_sigma == InitialSigma::Zero {
        (active[0], active[0])
    } else {
        max_variance_pair(post, active)
    }
}

/// MR-LPF's elimination, eq. (12)/(22): keep x ∈ M_r iff for every x′ ∈ M_r (x′ = x included)
///
/// ```text
/// μ(h(x, x′)) + β σ(x, x′) ≥ 1/2,     h(x, x′) = g(x) − g(x′),
/// ```
///
/// with g the utility of the round's kernel logistic fit, σ from the round's dueling posterior and β
/// the round's confidence width. The test `≥ 1/2` keeps x (the authors' code eliminates on `< 1/2`).
///
/// The result is a subset of `active` in the same (sorted) order, hence nested. It is never empty:
/// x̂ = argmax_{M_r} g has h(x̂, x′) ≥ 0, so μ(h) ≥ μ(0) = 1/2 exactly in floating point and x̂ passes
/// whenever β ≥ 0 (note §3.2). As a guard (reachable only with β < 0), if no candidate passes the
/// lowest-index maximiser of g over `active` is kept alone.
pub fn eliminate(
    active: &[usize],
    utility: &[f64],
    variance: impl Fn(usize, usize) -> f64,
    beta: f64,
    link: Link,
) -> Vec<usize> {
    let survivors: Vec<usize> = active
        .iter()
        .copied()
        .filter(|&x| {
            active.iter().all(|&xp| link.mu(utility[x] - utility[xp]) + beta * variance(x, xp).max(0.0).sqrt() >= 0.5)
        })
        .collect();
    if survivors.is_empty() { vec![argmax_within(active, utility)] } else { survivors }
}

/// The lowest-index maximiser of `utility` over `active` (non-empty).
pub(crate) fn argmax_within(active: &[usize], utility: &[f64]) -> usize {
    let mut best = active[0];
    for &i in &active[1..] {
        if utility[i] > utility[best] {
            best = i;
        }
    }
    best
}

/// Errors unless `active` is non-empty, strictly increasing and within `n` candidates.
pub(crate) fn check_active(active: &[usize], n: usize) -> Result<()> {
    if active.is_empty() {
        return Err(Error::Empty("active set M_r".into()));
    }
    if let Some(&bad) = active.iter().find(|&&i| i >= n) {
        return Err(Error::IndexOutOfRange { context: "active set M_r".into(), index: bad, len: n });
    }
    if active.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::invalid("active", "the active set must be strictly increasing candidate indices"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;
    use bohf_kernels::{Kernel, Stationary, dueling_gram};
    use proptest::prelude::*;

    fn grid_gram(n: usize) -> DMatrix<f64> {
        let x = DMatrix::from_fn(n, 1, |i, _| i as f64 / (n - 1) as f64);
        Stationary::matern52(0.2).unwrap().gram(&x).unwrap()
    }

    /// σ²(z) = k_D(z,z) − k_D,t(z)ᵀ (K^D_t + ρI)⁻¹ k_D,t(z) directly in pair space (MR-LPF eq. (10)),
    /// by an LU solve of the t×t dueling Gram: independent of the utility-space posterior.
    fn pair_space_variance(base: &DMatrix<f64>, data: &[IndexPair], z: IndexPair, rho: f64) -> f64 {
        let kzz = dueling_gram(base, &[z], &[z]).unwrap()[(0, 0)];
        if data.is_empty() {
            return kzz;
        }
        let mut kd = dueling_gram(base, data, data).unwrap();
        for i in 0..data.len() {
            kd[(i, i)] += rho;
        }
        let kz = dueling_gram(base, data, &[z]).unwrap();
        let sol = kd.lu().solve(&kz).unwrap();
        kzz - (kz.transpose() * sol)[(0, 0)]
    }

    /// Every pair of a batch attains the maximum pair-space σ² over M × M given the earlier pairs
    /// (brute force over all ordered pairs), and is the first such pair in row-major order up to
    /// rounding (1e-10 absolute on σ² ≤ 4: the two computations differ by a few ulps of the Gram
    /// entries, amplified by at most ‖(K^D + ρI)⁻¹‖ ≤ 1/ρ = 20).
    #[test]
    fn batch_is_greedy_maximum_variance_by_brute_force() {
        let base = grid_gram(9);
        let active = vec![0, 2, 3, 5, 8];
        let rho = 0.05;
        let pairs = max_variance_batch(&base, &active, rho, 12, InitialSigma::Prior).unwrap();
        for (t, &chosen) in pairs.iter().enumerate() {
            let data = &pairs[..t];
            let mut best = f64::NEG_INFINITY;
            let mut first_best = None;
            for &i in &active {
                for &j in &active {
                    let v = pair_space_variance(&base, data, (i, j), rho);
                    if v > best + 1e-10 {
                        best = v;
                        first_best = Some((i, j));
                    }
                }
            }
            let v = pair_space_variance(&base, data, chosen, rho);
            assert_relative_eq!(v, best, epsilon = 1e-10);
            assert_eq!(Some(chosen), first_best, "step {t}");
            assert!(active.contains(&chosen.0) && active.contains(&chosen.1));
        }
        // The first pair is the farthest apart in kernel distance: the two ends of the active set.
        assert_eq!(pairs[0], (0, 8));
    }

    #[test]
    fn singleton_and_zero_initial_sigma() {
        let base = grid_gram(6);
        assert_eq!(max_variance_batch(&base, &[4], 0.05, 3, InitialSigma::Prior).unwrap(), vec![(4, 4); 3]);
        let code = max_variance_batch(&base, &[1, 3, 5], 0.05, 3, InitialSigma::Zero).unwrap();
        let paper = max_variance_batch(&base, &[1, 3, 5], 0.05, 2, InitialSigma::Prior).unwrap();
        assert_eq!(code[0], (1, 1));
        assert_eq!(&code[1..], &paper[..]);
        assert!(max_variance_batch(&base, &[], 0.05, 1, InitialSigma::Prior).is_err());
        assert!(max_variance_batch(&base, &[3, 1], 0.05, 1, InitialSigma::Prior).is_err());
        assert!(matches!(
            max_variance_batch(&base, &[1, 6], 0.05, 1, InitialSigma::Prior),
            Err(Error::IndexOutOfRange { index: 6, .. })
        ));
    }

    /// Hand-computed cases of eq. (12) with g = (0, 1, 3) and the logistic link:
    /// μ(−3) = 0.047426, μ(−2) = 0.119203, μ(−1) = 0.268941.
    #[test]
    fn elimination_by_hand() {
        let g = [0.0, 1.0, 3.0];
        let link = Link::Logistic;
        // σ = 0: only the maximiser has μ(h) ≥ 1/2 against everyone.
        assert_eq!(eliminate(&[0, 1, 2], &g, |_, _| 0.0, 1.0, link), vec![2]);
        // σ = 0.5 off the diagonal, β = 1: x = 1 has μ(1) = 0.73 against 0 and μ(−2) + 0.5 = 0.619
        // against 2 → kept; x = 0 has μ(−1) + 0.5 = 0.769 and μ(−3) + 0.5 = 0.547 → kept.
        let half = |i: usize, j: usize| if i == j { 0.0 } else { 0.25 };
        assert_eq!(eliminate(&[0, 1, 2], &g, half, 1.0, link), vec![0, 1, 2]);
        // β = 0.9: x = 0 gets μ(−3) + 0.45 = 0.497 < 0.5 → out; x = 1 gets μ(−2) + 0.45 = 0.569 → in.
        assert_eq!(eliminate(&[0, 1, 2], &g, half, 0.9, link), vec![1, 2]);
        // Only pairs within the active set count: against {0, 1} alone, 1 is the best and 0 needs
        // μ(−1) + β σ ≥ 1/2, i.e. β ≥ 0.231/0.5 = 0.462.
        assert_eq!(eliminate(&[0, 1], &g, half, 0.46, link), vec![1]);
        assert_eq!(eliminate(&[0, 1], &g, half, 0.47, link), vec![0, 1]);
        // The guard: with β < 0 (never produced by a valid config) every x ≠ x′ fails; the argmax is kept.
        assert_eq!(eliminate(&[0, 1, 2], &g, half, -10.0, link), vec![2]);
        // Ties for the maximum: the lowest index.
        assert_eq!(argmax_within(&[0, 1, 2], &[1.0, 5.0, 5.0]), 1);
    }

    /// The tiled half scan picks the pair of the full row-major scan: on posteriors with up to
    /// 300 candidates (several tiles) after 0 to 40 duels, on random active subsets, and with exact
    /// ties (a Gram of repeated points, where many pairs share the largest σ).
    #[test]
    fn tiled_scan_equals_the_full_row_major_scan() {
        use rand::RngExt;
        let mut r = bohf_core::rng::seeded(5);
        for (n, duels) in [(7, 0), (150, 3), (300, 40), (200, 10)] {
            let base = grid_gram(n);
            let mut post = DuelingPosterior::prior(&base, 0.05).unwrap();
            for _ in 0..duels {
                post.add_duel(r.random_range(0..n), r.random_range(0..n)).unwrap();
            }
            for keep in [1.0, 0.5, 0.1] {
                let active: Vec<usize> = (0..n).filter(|_| r.random::<f64>() < keep).collect();
                if active.is_empty() {
                    continue;
                }
                let s = post.covariance();
                assert_eq!(max_variance_in(s, &active), max_variance_full_scan(s, &active), "n = {n}, keep {keep}");
            }
        }
        // Ties: 130 points at two locations, so σ² takes the same largest value on many pairs.
        let x = DMatrix::from_fn(130, 1, |i, _| (i % 2) as f64);
        let tied = Stationary::matern52(0.2).unwrap().gram(&x).unwrap();
        let all: Vec<usize> = (0..130).collect();
        assert_eq!(max_variance_in(&tied, &all), max_variance_full_scan(&tied, &all));
        assert_eq!(max_variance_in(&tied, &all), (0, 1));
        assert_eq!(max_variance_in(&tied, &[4]), (4, 4));
        // A tie met out of row-major order by the tiles: (1, 2) lies in the first tile, (0, 65) in
        // the next one; row-major meets (0, 65) first.
        let mut s = DMatrix::zeros(130, 130);
        for (i, j) in [(1, 2), (0, 65)] {
            s[(i, j)] = -1.0;
            s[(j, i)] = -1.0;
        }
        assert_eq!(max_variance_full_scan(&s, &all), (0, 65));
        assert_eq!(max_variance_in(&s, &all), (0, 65));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// For any utility, any non-negative σ² and β ≥ 0 (including 0): the survivors are a
        /// non-empty, sorted subset of the active set that contains the maximiser of g over it.
        #[test]
        fn elimination_is_nested_nonempty_and_keeps_the_argmax(
            g in prop::collection::vec(-5.0f64..5.0, 8),
            s in prop::collection::vec(0.0f64..1.0, 64),
            mask in prop::collection::vec(any::<bool>(), 8),
            beta in prop_oneof![Just(0.0), 0.0f64..3.0],
        ) {
            let mut active: Vec<usize> = (0..8).filter(|&i| mask[i]).collect();
            if active.is_empty() { active.push(3); }
            let var = |i: usize, j: usize| if i == j { 0.0 } else { s[i.min(j) * 8 + i.max(j)] };
            let kept = eliminate(&active, &g, var, beta, Link::Logistic);
            prop_assert!(!kept.is_empty());
            prop_assert!(kept.iter().all(|k| active.contains(k)));
            prop_assert!(kept.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(kept.contains(&argmax_within(&active, &g)));
        }
    }
}
