//! Properties of information gain that hold for every input (issue 6, item 3): the realised gain
//! I(S) = ½ log det(I + K_S/ρ) is monotone and submodular in the observed multiset S, for points and for
//! dueling pairs; greedy lies in its (1 − 1/e) bracket around the brute-force maximum on small sets (points;
//! pairs are covered in `src/greedy.rs`); and Γ_D(T; ρ) ≤ Γ_k(2T; ρ/2) (PF-TS §4.3) by enumeration.
//!
//! Gains here are O(10) and come from Cholesky log-dets of matrices of size ≤ 12, accurate to ~1e-13;
//! inequalities get a slack of 1e-10 for that round-off, far below any real violation.

use bohf_infogain::{greedy_points, information_gain};
use bohf_kernels::{IndexPair, Kernel, Stationary, dueling_gram};
use nalgebra::DMatrix;
use proptest::prelude::*;

const SLACK: f64 = 1e-10;

fn base(xs: &[f64], n: usize, l: f64, family: u8) -> DMatrix<f64> {
    let x = DMatrix::from_vec(n, 2, xs[..2 * n].to_vec());
    let k = match family % 3 {
        0 => Stationary::se(l),
        1 => Stationary::matern32(l),
        _ => Stationary::matern52(l),
    };
    k.unwrap().gram(&x).unwrap()
}

fn gain_points(k: &DMatrix<f64>, s: &[usize], rho: f64) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    information_gain(&DMatrix::from_fn(s.len(), s.len(), |a, b| k[(s[a], s[b])]), rho).unwrap()
}

fn gain_pairs(k: &DMatrix<f64>, s: &[IndexPair], rho: f64) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    information_gain(&dueling_gram(k, s, s).unwrap(), rho).unwrap()
}

/// All multisets of size t from m items (non-decreasing index sequences).
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// I(S ∪ {e}) ≥ I(S) and, for S ⊆ S′, I(S ∪ {e}) − I(S) ≥ I(S′ ∪ {e}) − I(S′): points, repeats allowed.
    #[test]
    fn point_gain_is_monotone_and_submodular(
        n in 2usize..=8,
        xs in proptest::collection::vec(0.0..1.0f64, 16),
        l in 0.05..1.0f64,
        family in 0u8..3,
        rho in 0.01..2.0f64,
        s in proptest::collection::vec(0usize..8, 0..5),
        extra in proptest::collection::vec(0usize..8, 0..5),
        e in 0usize..8,
    ) {
        let k = base(&xs, n, l, family);
        let s: Vec<usize> = s.into_iter().map(|i| i % n).collect();
        let big: Vec<usize> = s.iter().copied().chain(extra.into_iter().map(|i| i % n)).collect();
        let e = e % n;
        let with = |set: &[usize]| -> Vec<usize> { set.iter().copied().chain([e]).collect() };
        let (g_s, g_se) = (gain_points(&k, &s, rho), gain_points(&k, &with(&s), rho));
        let (g_b, g_be) = (gain_points(&k, &big, rho), gain_points(&k, &with(&big), rho));
        prop_assert!(g_se >= g_s - SLACK, "monotone: {g_se} < {g_s}");
        prop_assert!(g_b >= g_s - SLACK, "monotone in the superset: {g_b} < {g_s}");
        prop_assert!(g_se - g_s >= g_be - g_b - SLACK, "submodular: {} < {}", g_se - g_s, g_be - g_b);
    }

    /// The same for duels under the dueling kernel (MR-LPF eq. (4)), self-pairs and reversals allowed.
    #[test]
    fn dueling_gain_is_monotone_and_submodular(
        n in 2usize..=8,
        xs in proptest::collection::vec(0.0..1.0f64, 16),
        l in 0.05..1.0f64,
        family in 0u8..3,
        rho in 0.01..2.0f64,
        s in proptest::collection::vec((0usize..8, 0usize..8), 0..5),
        extra in proptest::collection::vec((0usize..8, 0usize..8), 0..5),
        e in (0usize..8, 0usize..8),
    ) {
        let k = base(&xs, n, l, family);
        let m = |(i, j): IndexPair| (i % n, j % n);
        let s: Vec<IndexPair> = s.into_iter().map(m).collect();
        let big: Vec<IndexPair> = s.iter().copied().chain(extra.into_iter().map(m)).collect();
        let e = m(e);
        let with = |set: &[IndexPair]| -> Vec<IndexPair> { set.iter().copied().chain([e]).collect() };
        let (g_s, g_se) = (gain_pairs(&k, &s, rho), gain_pairs(&k, &with(&s), rho));
        let (g_b, g_be) = (gain_pairs(&k, &big, rho), gain_pairs(&k, &with(&big), rho));
        prop_assert!(g_se >= g_s - SLACK, "monotone: {g_se} < {g_s}");
        prop_assert!(g_b >= g_s - SLACK, "monotone in the superset: {g_b} < {g_s}");
        prop_assert!(g_se - g_s >= g_be - g_b - SLACK, "submodular: {} < {}", g_se - g_s, g_be - g_b);
    }

    /// Points, n ≤ 6, T ≤ 3: g_T ≤ Γ(T) ≤ g_T/(1 − 1/e), with Γ(T) the maximum over all multisets.
    #[test]
    fn greedy_points_bracket_the_brute_force_maximum(
        n in 2usize..=6,
        xs in proptest::collection::vec(0.0..1.0f64, 12),
        l in 0.05..1.0f64,
        family in 0u8..3,
        rho in 0.01..2.0f64,
    ) {
        let k = base(&xs, n, l, family);
        let g = greedy_points(&k, rho, 3).unwrap();
        for t in 1..=3 {
            let best = multisets(n, t).iter().map(|s| gain_points(&k, s, rho)).fold(f64::NEG_INFINITY, f64::max);
            let br = g.bracket_at(t).unwrap();
            prop_assert!(br.lower <= best + SLACK && best <= br.upper + SLACK, "t={t}: {br:?} vs {best}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// PF-TS §4.3 [DERIVED]: Γ_D(T; ρ) ≤ Γ_k(2T; ρ/2), both maxima by enumeration (n ≤ 4, T ≤ 2):
    /// K^D_T = D K_{2T} Dᵀ with DᵀD ⪯ 2I, so each duel sequence is dominated by its 2T endpoints at noise ρ/2.
    #[test]
    fn dueling_gamma_is_at_most_base_gamma_at_twice_the_steps(
        n in 2usize..=4,
        xs in proptest::collection::vec(0.0..1.0f64, 8),
        l in 0.05..1.0f64,
        family in 0u8..3,
        rho in 0.01..2.0f64,
    ) {
        let k = base(&xs, n, l, family);
        let pairs: Vec<IndexPair> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect();
        for t in 1..=2 {
            let duel = multisets(pairs.len(), t)
                .iter()
                .map(|s| gain_pairs(&k, &s.iter().map(|&q| pairs[q]).collect::<Vec<_>>(), rho))
                .fold(0.0, f64::max);
            let points = multisets(n, 2 * t).iter().map(|s| gain_points(&k, s, rho / 2.0)).fold(0.0, f64::max);
            prop_assert!(duel <= points + SLACK, "t={t}: Γ_D = {duel} > Γ_k(2t; ρ/2) = {points}");
        }
    }
}
