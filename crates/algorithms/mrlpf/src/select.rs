//! MR-LPF's selection rule: maximum-variance pairs within a round (eq. (11)), a pure function of
//! the round's dueling posterior and the active set. The end-of-round elimination (eq. (12)) is the
//! plausibility filter of the preference model ([`bohf_gp::PreferenceModel::plausible`]).

use crate::config::InitialSigma;
use bohf_core::{Error, Result};
use bohf_gp::DuelingPosterior;
use bohf_kernels::IndexPair;
use nalgebra::DMatrix;

/// MR-LPF's selection rule, eq. (11): (x, x′) = argmax_{x, x′ ∈ M_r} σ_(n−1,r)(x, x′) over **ordered**
/// pairs of the active set M_r (diagonal included), with σ² read from the dueling posterior of the
/// round's own duels (MR-LPF eq. (10)), found by [`DuelingPosterior::max_variance_within`].
///
/// Ties go to the first pair in row-major order of M_r × M_r with M_r sorted by candidate index
/// (the authors' code, note §3.2), i.e. the lexicographically smallest (x, x′), within the relative
/// tolerance of [`bohf_core::argmax_lowest`]. Since σ is symmetric bit for bit and σ(x, x) = 0, the
/// chosen pair has x < x′ unless every σ is 0 (|M_r| = 1), when it is (M_r\[0\], M_r\[0\]).
///
/// `active` must be non-empty, sorted and within the posterior's candidates; errors otherwise.
pub fn max_variance_pair(posterior: &DuelingPosterior, active: &[usize]) -> Result<IndexPair> {
    Ok(posterior.max_variance_within(active)?.0)
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
        let pair = next_pair(&post, active, n, initial_sigma)?;
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
) -> Result<IndexPair> {
    if position == 0 && initial_sigma == InitialSigma::Zero {
        Ok((active[0], active[0]))
    } else {
        max_variance_pair(post, active)
    }
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
    use bohf_kernels::testing::pair_space_variance;
    use bohf_kernels::{Kernel, Stationary};

    fn grid_gram(n: usize) -> DMatrix<f64> {
        let x = DMatrix::from_fn(n, 1, |i, _| i as f64 / (n - 1) as f64);
        Stationary::matern52(0.2).unwrap().gram(&x).unwrap()
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

    /// The tie rule with exact ties (a Gram of repeated points: many pairs share the largest σ²)
    /// and on a singleton (the diagonal pair). Near ties within 1e-12 relative and gaps just outside
    /// it are tested on hand matrices with the scan itself
    /// (`bohf_core::argmax::tests::symmetric_pairs_agree_with_the_definition`).
    #[test]
    fn ties_go_to_the_first_pair_in_row_major_order() {
        let x = DMatrix::from_fn(130, 1, |i, _| (i % 2) as f64);
        let tied = Stationary::matern52(0.2).unwrap().gram(&x).unwrap();
        let post = DuelingPosterior::prior(&tied, 0.05).unwrap();
        let all: Vec<usize> = (0..130).collect();
        assert_eq!(max_variance_pair(&post, &all).unwrap(), (0, 1));
        assert_eq!(max_variance_pair(&post, &[4]).unwrap(), (4, 4));
        assert_eq!(max_variance_pair(&post, &[2, 4, 6, 7, 9]).unwrap(), (2, 7));
        assert!(max_variance_pair(&post, &[]).is_err() && max_variance_pair(&post, &[130]).is_err());
    }
}
