//! Greedy maximum-variance estimation of the maximum information gain Γ_ρ(T) on a finite candidate
//! set, with the (1 − 1/e) bracket (MR-LPF §4.1 "Numerical evaluation").

use crate::realised::PosteriorVariances;
use crate::utility::UtilityPosterior;
use crate::{check_gram, check_noise, clean_variance};
use bohf_core::{Error, Result};
use bohf_kernels::{IndexPair, PairKernel};
use nalgebra::DMatrix;

/// 1 − 1/e, the greedy approximation ratio for monotone submodular maximisation under a cardinality
/// constraint (Nemhauser, Wolsey & Fisher 1978).
pub const NEMHAUSER_RATIO: f64 = 0.632_120_558_828_557_7;

/// An interval known to contain Γ_ρ(t): [g_t, g_t/(1 − 1/e)] from a greedy value g_t.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GammaBracket {
    /// The greedy value g_t ≤ Γ_ρ(t).
    pub lower: f64,
    /// g_t/(1 − 1/e) ≥ Γ_ρ(t).
    pub upper: f64,
}

impl GammaBracket {
    /// [g, g/(1 − 1/e)].
    pub fn from_greedy(greedy_value: f64) -> Self {
        Self { lower: greedy_value, upper: greedy_value / NEMHAUSER_RATIO }
    }

    /// Whether `value` lies in the bracket (inclusive).
    pub fn contains(&self, value: f64) -> bool {
        self.lower <= value && value <= self.upper
    }
}

/// The result of a greedy run of T steps: chosen candidates (indices or index pairs), the variances they
/// were chosen at, and the greedy gains g_1, …, g_T.
///
/// g_t = ½ Σ_{s≤t} log(1 + σ²_{s−1}(z_s)/ρ) with z_s = argmax_z σ²_{s−1}(z). The first t steps of a T-step
/// run are the t-step run, so one run brackets Γ_ρ(t) for every t ≤ T:
/// g_t ≤ Γ_ρ(t) ≤ g_t/(1 − 1/e).
///
/// Why the bracket holds: F(S) = ½ log det(I + K_S/ρ) is the mutual information between f and the noisy
/// observations S, which is monotone and submodular in S. Observing a candidate twice is two elements of
/// the ground set (candidates × copies, with independent noise), so the bound covers the papers'
/// maximum over sequences with repeats, and greedy over that ground set is greedy over candidates with
/// repeats allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct GreedyGain<Z> {
    chosen: Vec<Z>,
    variances: PosteriorVariances,
    trajectory: Vec<f64>,
}

impl<Z> GreedyGain<Z> {
    fn new(chosen: Vec<Z>, variances: PosteriorVariances) -> Self {
        let trajectory = variances.gain_trajectory();
        Self { chosen, variances, trajectory }
    }

    /// The greedy value g_T, a lower bound of Γ_ρ(T).
    pub fn value(&self) -> f64 {
        self.trajectory.last().copied().unwrap_or(0.0)
    }

    /// [g_T, g_T/(1 − 1/e)] ∋ Γ_ρ(T).
    pub fn bracket(&self) -> GammaBracket {
        GammaBracket::from_greedy(self.value())
    }

    /// [g_t, g_t/(1 − 1/e)] ∋ Γ_ρ(t) for 0 ≤ t ≤ T (Γ(0) = 0); errors name `t` when t > T.
    pub fn bracket_at(&self, t: usize) -> Result<GammaBracket> {
        match t {
            0 => Ok(GammaBracket::from_greedy(0.0)),
            t if t <= self.steps() => Ok(GammaBracket::from_greedy(self.trajectory[t - 1])),
            t => Err(Error::invalid("t", format!("must be ≤ the number of greedy steps {}, got {t}", self.steps()))),
        }
    }

    /// g_1, …, g_T.
    pub fn trajectory(&self) -> &[f64] {
        &self.trajectory
    }

    /// The chosen z_1, …, z_T (candidate indices or index pairs), in order.
    pub fn chosen(&self) -> &[Z] {
        &self.chosen
    }

    /// σ²_{t−1}(z_t) = max_z σ²_{t−1}(z), t = 1…T, with the potential sums built from them.
    pub fn variances(&self) -> &PosteriorVariances {
        &self.variances
    }

    /// T.
    pub fn steps(&self) -> usize {
        self.chosen.len()
    }

    /// The noise ρ.
    pub fn noise(&self) -> f64 {
        self.variances.noise()
    }
}

/// Validates the common inputs; returns max_i K_ii.
fn check_inputs(base: &DMatrix<f64>, noise: f64, steps: usize) -> Result<f64> {
    check_noise(noise)?;
    if steps == 0 {
        return Err(Error::invalid("steps", "must be ≥ 1 (got T = 0)"));
    }
    let scale = check_gram("base", base)?;
    if base.nrows() == 0 {
        return Err(Error::Empty("`base`: the candidate set has no points (n = 0)".into()));
    }
    Ok(scale)
}

/// Greedy Γ_ρ(T) for point observations: z_t = argmax_i σ²_{t−1}(x_i) over the n candidates with base
/// Gram `base` (K_ij = k(x_i, x_j)), lowest index among ties within the relative tolerance of
/// [`bohf_core::argmax_lowest`], repeats allowed.
///
/// Cost O(n²) per step (one rank-one update of the n×n posterior covariance), O(n²T) in all.
/// Errors name `noise` (not finite and > 0), `steps` (T = 0) or `base` (not square, n = 0, non-finite,
/// not symmetric, negative diagonal, or found not PSD on the way).
pub fn greedy_points(base: &DMatrix<f64>, noise: f64, steps: usize) -> Result<GreedyGain<usize>> {
    let scale = check_inputs(base, noise, steps)?;
    let mut post = UtilityPosterior::new(base, None);
    let mut chosen = Vec::with_capacity(steps);
    let mut variances = Vec::with_capacity(steps);
    for t in 1..=steps {
        let (i, _) = post.argmax_point()?;
        let v = post.observe_point(i, noise);
        variances.push(clean_variance("base", v, scale, t)?);
        // A PSD prior keeps every posterior variance of the utility ≥ 0; a clearly negative one exposes
        // an indefinite `base` (O(n) to check).
        clean_variance("base", Ok(post.min_diagonal()), scale, t)?;
        chosen.push(i);
    }
    Ok(GreedyGain::new(chosen, PosteriorVariances::new(variances, noise)?))
}

/// Greedy Γ_ρ(T) for pair observations over all n² ordered candidate pairs (x_i, x_j), for the dueling
/// kernel k_D (MR-LPF eq. (13), PF-TS eq. (11)) or POP-BO's additive pair kernel (eq. (18)):
/// z_t = argmax_{(i,j)} σ²_{t−1}(i, j), lowest linear index i·n + j among ties within the relative
/// tolerance of [`bohf_core::argmax_lowest`], repeats allowed.
///
/// The n²×n² pair Gram is never formed: the posterior covariance Ŝ of the utility on the candidates
/// (n×n; 2n×2n for the additive kernel) is updated by one rank-one step per observation
/// (Ŝ ← Ŝ − Ŝd dᵀŜ/(ρ + dᵀŜd), d = e_i − e_j for duels), and the dueling variance is read off as
/// σ²(i, j) = Ŝ_ii + Ŝ_jj − 2Ŝ_ij. Cost O(n²) per step. Under the dueling kernel (i, j) and (j, i) carry
/// the same information and self-pairs none, so the chosen pairs have i < j unless every variance is 0.
///
/// Errors as for [`greedy_points`].
pub fn greedy_pairs(
    base: &DMatrix<f64>,
    kernel: PairKernel,
    noise: f64,
    steps: usize,
) -> Result<GreedyGain<IndexPair>> {
    check_inputs(base, noise, steps)?;
    let mut post = UtilityPosterior::new(base, Some(kernel));
    let scale = post.scale();
    let mut chosen = Vec::with_capacity(steps);
    let mut variances = Vec::with_capacity(steps);
    for t in 1..=steps {
        let (pair, _) = post.argmax_pair()?;
        let v = post.observe_pair(pair, noise);
        variances.push(clean_variance("base", v, scale, t)?);
        // A PSD prior keeps every posterior variance of the utility ≥ 0; a clearly negative one exposes
        // an indefinite `base` (O(n) to check).
        clean_variance("base", Ok(post.min_diagonal()), scale, t)?;
        chosen.push(pair);
    }
    Ok(GreedyGain::new(chosen, PosteriorVariances::new(variances, noise)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::information_gain;
    use approx::assert_relative_eq;
    use bohf_core::linalg::Cholesky;
    use bohf_kernels::{Kernel, Linear, Stationary, additive_pair_gram, dueling_gram};
    use proptest::prelude::*;

    /// All multisets of size `t` from `m` items, as non-decreasing index sequences. The log-det is
    /// invariant under reordering, so these cover every sequence of length t.
    fn multisets(m: usize, t: usize) -> Vec<Vec<usize>> {
        fn rec(m: usize, t: usize, start: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if cur.len() == t {
                out.push(cur.clone());
                return;
            }
            for i in start..m {
                cur.push(i);
                rec(m, t, i, cur, out);
                cur.pop();
            }
        }
        let mut out = Vec::new();
        rec(m, t, 0, &mut Vec::new(), &mut out);
        out
    }

    fn pair_gram(base: &DMatrix<f64>, kernel: PairKernel, seq: &[IndexPair]) -> DMatrix<f64> {
        match kernel {
            PairKernel::Dueling => dueling_gram(base, seq, seq).unwrap(),
            PairKernel::Additive => additive_pair_gram(base, seq, seq).unwrap(),
        }
    }

    /// max over all length-t sequences from `items` of ½ log det(I + K/ρ), by enumeration.
    fn brute_force_pairs(base: &DMatrix<f64>, kernel: PairKernel, items: &[IndexPair], t: usize, rho: f64) -> f64 {
        multisets(items.len(), t)
            .iter()
            .map(|ms| {
                let seq: Vec<IndexPair> = ms.iter().map(|&k| items[k]).collect();
                information_gain(&pair_gram(base, kernel, &seq), rho).unwrap()
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }

    fn ordered_pairs(n: usize) -> Vec<IndexPair> {
        (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).collect()
    }

    fn matern_base(x: &DMatrix<f64>, l: f64) -> DMatrix<f64> {
        Stationary::matern52(l).unwrap().gram(x).unwrap()
    }

    #[test]
    fn nemhauser_ratio_is_one_minus_inverse_e() {
        assert_relative_eq!(NEMHAUSER_RATIO, 1.0 - (-1.0f64).exp(), max_relative = 1e-16);
    }

    #[test]
    fn ties_break_to_the_lowest_index() {
        // K = I: all points have variance 1, so greedy cycles 0, 1, 2, 3 and then starts again at 0
        // (after one observation each, all variances equal ρ/(1 + ρ) again).
        let k = DMatrix::<f64>::identity(4, 4);
        let g = greedy_points(&k, 0.5, 6).unwrap();
        assert_eq!(g.chosen(), &[0, 1, 2, 3, 0, 1]);
        // Dueling, K = I: σ²(i,j) = 2 for i ≠ j → (0,1). Then σ²(0,1) = 2 − 4/(ρ+2),
        // σ²(0,2) = 2 − 1/(ρ+2), σ²(2,3) = 2 → (2,3).
        let g = greedy_pairs(&k, PairKernel::Dueling, 0.5, 2).unwrap();
        assert_eq!(g.chosen(), &[(0, 1), (2, 3)]);
        assert_relative_eq!(g.variances().variances()[1], 2.0, max_relative = 1e-15);
        // Additive, K = I: σ²(i,j) = 2 for all ordered pairs, self-pairs included → (0,0); afterwards
        // σ²(0,j) = σ²(i,0) = 2 − 1/(ρ+2) for i, j ≠ 0, and σ²(1,1) = 2 → (1,1).
        let g = greedy_pairs(&k, PairKernel::Additive, 0.5, 2).unwrap();
        assert_eq!(g.chosen(), &[(0, 0), (1, 1)]);
        // A zero Gram: nothing to learn, every variance 0 → (0,0) and a zero gain.
        let g = greedy_pairs(&DMatrix::zeros(3, 3), PairKernel::Dueling, 1.0, 2).unwrap();
        assert_eq!(g.chosen(), &[(0, 0), (0, 0)]);
        assert_eq!(g.value(), 0.0);
    }

    #[test]
    fn brute_force_points() {
        let x = DMatrix::from_vec(7, 2, (0..14).map(|k| (k * 37 % 23) as f64 / 23.0).collect());
        for (l, rho) in [(0.1, 0.05), (0.3, 0.3), (1.0, 1.0)] {
            let base = matern_base(&x, l);
            let g = greedy_points(&base, rho, 4).unwrap();
            for t in 1..=4 {
                let best = multisets(7, t)
                    .iter()
                    .map(|s| information_gain(&DMatrix::from_fn(t, t, |a, b| base[(s[a], s[b])]), rho).unwrap())
                    .fold(f64::NEG_INFINITY, f64::max);
                let br = g.bracket_at(t).unwrap();
                // Slack 1e-12: greedy and enumeration compute the same log-dets two ways.
                assert!(br.lower <= best + 1e-12 && best <= br.upper + 1e-12, "l={l} t={t}: {br:?} vs {best}");
                let chosen = &g.chosen()[..t];
                let explicit = DMatrix::from_fn(t, t, |a, b| base[(chosen[a], chosen[b])]);
                // Tolerance 1e-9 (the task's): rank-one updates vs Cholesky of a ≤4×4 matrix agree to ~1e-14.
                assert_relative_eq!(g.trajectory()[t - 1], information_gain(&explicit, rho).unwrap(), epsilon = 1e-9);
            }
        }
    }

    /// Greedy's value is the dueling log-det of its own pairs, and Γ(t) (by exhaustive enumeration) lies
    /// in its bracket, for every t ≤ T.
    fn check_pairs_against_brute_force(
        base: &DMatrix<f64>,
        kernel: PairKernel,
        items: &[IndexPair],
        t_max: usize,
        rho: f64,
    ) {
        let g = greedy_pairs(base, kernel, rho, t_max).unwrap();
        for t in 1..=t_max {
            let chosen = &g.chosen()[..t];
            let explicit = information_gain(&pair_gram(base, kernel, chosen), rho).unwrap();
            // Tolerance 1e-9 (the task's): two computations of a ≤4×4 log-det, ~1e-14 apart in practice.
            assert!((g.trajectory()[t - 1] - explicit).abs() < 1e-9, "{kernel:?} t={t}");
            let best = brute_force_pairs(base, kernel, items, t, rho);
            let br = g.bracket_at(t).unwrap();
            assert!(br.lower <= best + 1e-12 && best <= br.upper + 1e-12, "{kernel:?} t={t}: {br:?} vs {best}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Dueling pairs, n ≤ 8, T ≤ 4: greedy ≤ Γ ≤ greedy/(1 − 1/e), with Γ the maximum over all
        /// multisets of unordered pairs i < j (reversing a duel or adding a self-pair never adds
        /// information; `full_ordered_enumeration_agrees` checks this reduction).
        #[test]
        fn dueling_greedy_against_brute_force(
            n in 3usize..=8,
            xs in proptest::collection::vec(0.0..1.0f64, 16),
            l in 0.05..1.0f64,
            rho in 0.01..2.0f64,
        ) {
            let base = matern_base(&DMatrix::from_vec(n, 2, xs[..2 * n].to_vec()), l);
            let items: Vec<IndexPair> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect();
            check_pairs_against_brute_force(&base, PairKernel::Dueling, &items, 4, rho);
        }

        /// Additive pairs over all ordered pairs, self-pairs included; n ≤ 4, T ≤ 3.
        #[test]
        fn additive_greedy_against_brute_force(
            n in 2usize..=4,
            xs in proptest::collection::vec(0.0..1.0f64, 4),
            l in 0.05..1.0f64,
            rho in 0.01..2.0f64,
        ) {
            let base = matern_base(&DMatrix::from_vec(n, 1, xs[..n].to_vec()), l);
            check_pairs_against_brute_force(&base, PairKernel::Additive, &ordered_pairs(n), 3, rho);
        }

        /// The argmax is right at every step: recompute every pair's posterior variance from scratch,
        /// σ²_{t−1}(z) = k_D(z,z) − k_t(z)ᵀ(K^D_t + ρI)⁻¹k_t(z), with the explicit dueling Gram and Cholesky.
        #[test]
        fn each_greedy_pick_has_maximal_explicit_variance(
            xs in proptest::collection::vec(0.0..1.0f64, 6),
            rho in 0.01..1.0f64,
        ) {
            let base = matern_base(&DMatrix::from_vec(6, 1, xs), 0.2);
            let all = ordered_pairs(6);
            let g = greedy_pairs(&base, PairKernel::Dueling, rho, 8).unwrap();
            for t in 0..8 {
                let past = &g.chosen()[..t];
                let prior = dueling_gram(&base, &all, &all).unwrap();
                let var = |z: usize| -> f64 {
                    if t == 0 { return prior[(z, z)]; }
                    let kt = dueling_gram(&base, past, past).unwrap() + DMatrix::identity(t, t) * rho;
                    let c = dueling_gram(&base, past, &all[z..=z]).unwrap();
                    let chol = Cholesky::new(&kt).unwrap();
                    prior[(z, z)] - (c.transpose() * chol.solve(&c).unwrap())[(0, 0)]
                };
                let pick = all.iter().position(|&p| p == g.chosen()[t]).unwrap();
                let vp = var(pick);
                // Tolerance 1e-10: two computations of a variance ≤ 4 from matrices of size ≤ 8.
                prop_assert!((vp - g.variances().variances()[t]).abs() < 1e-10);
                for (z, pair) in all.iter().enumerate() {
                    prop_assert!(var(z) <= vp + 1e-10, "t={} pair {:?} beats the pick", t, pair);
                }
            }
        }
    }

    #[test]
    fn full_ordered_enumeration_agrees() {
        // Enumerating all n² ordered pairs (reversed duels and self-pairs included) gives the same Γ as
        // unordered pairs i < j: the reduction the dueling brute force relies on.
        let x = DMatrix::from_vec(4, 1, vec![0.1, 0.45, 0.5, 0.9]);
        let base = matern_base(&x, 0.3);
        let unordered: Vec<IndexPair> = (0..4).flat_map(|i| (i + 1..4).map(move |j| (i, j))).collect();
        for t in 1..=3 {
            let a = brute_force_pairs(&base, PairKernel::Dueling, &ordered_pairs(4), t, 0.1);
            let b = brute_force_pairs(&base, PairKernel::Dueling, &unordered, t, 0.1);
            assert_relative_eq!(a, b, max_relative = 1e-12);
        }
        check_pairs_against_brute_force(&base, PairKernel::Dueling, &ordered_pairs(4), 3, 0.1);
    }

    #[test]
    fn greedy_variances_decrease_and_gain_is_monotone() {
        let x = DMatrix::from_fn(30, 1, |i, _| i as f64 / 29.0);
        let base = matern_base(&x, 0.1);
        for g in [
            greedy_pairs(&base, PairKernel::Dueling, 0.05, 60).unwrap().variances().clone(),
            greedy_points(&base, 0.05, 60).unwrap().variances().clone(),
        ] {
            // σ²_{t}(z_{t+1}) ≤ σ²_{t−1}(z_{t+1}) ≤ σ²_{t−1}(z_t): the max posterior variance never grows.
            for w in g.variances().windows(2) {
                assert!(w[1] <= w[0] * (1.0 + 1e-12), "{w:?}");
            }
            let traj = g.gain_trajectory();
            assert!(traj.windows(2).all(|w| w[1] >= w[0]));
            // Diminishing returns: increments decrease (they are ½ log(1 + σ²/ρ) of decreasing σ²).
            let inc: Vec<f64> = std::iter::once(traj[0]).chain(traj.windows(2).map(|w| w[1] - w[0])).collect();
            assert!(inc.windows(2).all(|w| w[1] <= w[0] + 1e-12));
        }
    }

    #[test]
    fn linear_kernel_obeys_the_d_log_t_bound() {
        // For K = X Xᵀ of rank d and any T observations, ½ log det(I_T + X_S X_Sᵀ/ρ)
        // = ½ log det(I_d + X_SᵀX_S/ρ) ≤ (d/2) log(1 + T c/(dρ)), c = max‖x‖² (AM–GM on the eigenvalues).
        let d = 3;
        let x = DMatrix::from_fn(40, d, |i, j| ((i * 7 + j * 11) % 13) as f64 / 13.0 - 0.4);
        let base = Linear::new(1.0).unwrap().gram(&x).unwrap();
        let c = x.row_iter().map(|r| r.norm_squared()).fold(0.0, f64::max);
        let rho = 0.1;
        let g = greedy_points(&base, rho, 200).unwrap();
        for t in [1usize, 10, 50, 200] {
            let bound = 0.5 * d as f64 * (1.0 + t as f64 * c / (d as f64 * rho)).ln();
            assert!(g.trajectory()[t - 1] <= bound, "t={t}: {} > {bound}", g.trajectory()[t - 1]);
        }
        // A rank-d Gram: past d steps the gain grows only logarithmically, so doubling T from 100 to 200
        // adds at most (d/2) log 2 + o(1).
        assert!(g.trajectory()[199] - g.trajectory()[99] <= 0.5 * d as f64 * 2f64.ln() + 0.05);
    }

    #[test]
    fn dueling_gain_is_at_most_base_gain_at_twice_the_steps() {
        // PF-TS §4.3 [DERIVED]: Γ_D(T; ρ) ≤ Γ_k(2T; ρ/2), because K^D_T = D K_{2T} Dᵀ with DᵀD ⪯ 2I.
        // Hence greedy_D(T; ρ) ≤ Γ_D(T; ρ) ≤ Γ_k(2T; ρ/2) ≤ greedy_k(2T; ρ/2)/(1 − 1/e).
        let x = DMatrix::from_fn(50, 1, |i, _| i as f64 / 49.0);
        for (l, rho) in [(0.1, 0.05), (0.3, 0.5)] {
            let base = matern_base(&x, l);
            let pairs = greedy_pairs(&base, PairKernel::Dueling, rho, 40).unwrap();
            let points = greedy_points(&base, rho / 2.0, 80).unwrap();
            for t in [1usize, 5, 20, 40] {
                assert!(pairs.bracket_at(t).unwrap().lower <= points.bracket_at(2 * t).unwrap().upper);
            }
        }
    }

    #[test]
    fn errors_name_the_field() {
        let k = DMatrix::<f64>::identity(3, 3);
        for rho in [0.0, -0.5, f64::NAN] {
            assert!(greedy_points(&k, rho, 2).unwrap_err().to_string().contains("noise"));
            assert!(greedy_pairs(&k, PairKernel::Dueling, rho, 2).unwrap_err().to_string().contains("noise"));
        }
        assert!(greedy_points(&k, 1.0, 0).unwrap_err().to_string().contains("steps"));
        assert!(greedy_pairs(&k, PairKernel::Additive, 1.0, 0).unwrap_err().to_string().contains("steps"));
        let e = greedy_points(&DMatrix::zeros(0, 0), 1.0, 1).unwrap_err();
        assert!(matches!(e, Error::Empty(_)) && e.to_string().contains("base"), "{e}");
        let e = greedy_pairs(&DMatrix::zeros(3, 2), PairKernel::Dueling, 1.0, 1).unwrap_err();
        assert!(matches!(e, Error::DimensionMismatch { .. }) && e.to_string().contains("base"), "{e}");
        let mut nan = k.clone();
        nan[(2, 2)] = f64::NAN;
        let e = greedy_pairs(&nan, PairKernel::Dueling, 1.0, 1).unwrap_err();
        assert!(matches!(e, Error::NonFinite(_)) && e.to_string().contains("base"), "{e}");
        let mut neg = k.clone();
        neg[(1, 1)] = -1.0;
        assert!(greedy_points(&neg, 1.0, 1).unwrap_err().to_string().contains("base"));
        // Indefinite with a positive diagonal: found on the way.
        let indef = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        let e = greedy_points(&indef, 0.1, 2).unwrap_err();
        assert!(e.to_string().contains("base") && e.to_string().contains("positive semi-definite"), "{e}");
        let g = greedy_points(&k, 1.0, 3).unwrap();
        assert!(g.bracket_at(4).unwrap_err().to_string().contains("`t`"));
        assert_eq!(g.bracket_at(0).unwrap(), GammaBracket { lower: 0.0, upper: 0.0 });
    }
}
