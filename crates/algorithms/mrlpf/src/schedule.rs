//! The round schedule of MR-LPF (Kayal et al. 2025, Section 3; note §3.1).

use bohf_core::{Error, Result};

/// The round lengths N_1, …, N_R of MR-LPF for horizon T (Section 3, note §3.1):
///
/// ```text
/// N_1 = ⌈√T⌉,   N_r = ⌈√(N_{r−1} T)⌉  (1 < r < R),   N_R = min(⌈√(N_{R−1} T)⌉, T − t_{R−1}),
/// ```
///
/// with t_r = N_1 + … + N_r, so that Σ_r N_r = T exactly (the last round is truncated at T; a
/// first round with ⌈√T⌉ ≥ T, i.e. T ≤ 2, is the whole horizon). The square roots are exact integer
/// ceilings (no floating point), e.g. T = 2000 gives N_2 = ⌈√90000⌉ = 300 exactly.
///
/// | T    | N_r              |
/// |------|------------------|
/// | 100  | 10, 32, 57, 1    |
/// | 300  | 18, 74, 149, 59  |
/// | 1000 | 32, 179, 424, 365|
/// | 2000 | 45, 300, 775, 880|
///
/// R ≤ ⌈log₂ log₂ T⌉ + 1 (Li & Scarlett 2022, Prop. 1), see [`max_rounds_bound`].
///
/// Errors if T = 0 (field `horizon`).
pub fn round_schedule(horizon: usize) -> Result<Vec<usize>> {
    if horizon == 0 {
        return Err(Error::invalid("horizon", "T must be at least 1"));
    }
    let t = horizon as u128;
    let mut sizes = Vec::new();
    let mut used: u128 = 0;
    let mut previous: u128 = 1; // N_0 = 1, so that N_1 = ⌈√(1·T)⌉ (the authors' code starts this way)
    while used < t {
        let n = ceil_sqrt(previous * t).min(t - used);
        sizes.push(n as usize);
        used += n;
        previous = n;
    }
    Ok(sizes)
}

/// The bound ⌈log₂ log₂ T⌉ + 1 on the number of rounds R (Li & Scarlett 2022, Prop. 1; MR-LPF
/// Theorem 4.1); 1 for T ≤ 2, where log₂ log₂ T ≤ 0 (and −∞ at T = 1).
pub fn max_rounds_bound(horizon: usize) -> usize {
    if horizon <= 2 {
        return 1;
    }
    ((horizon as f64).log2().log2().ceil() as usize) + 1
}

/// ⌈√m⌉ for integers, exactly.
fn ceil_sqrt(m: u128) -> u128 {
    let s = m.isqrt();
    if s * s == m { s } else { s + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The table of note §3.1, re-derived by hand here (not from this code):
    /// T = 100: ⌈10⌉ = 10; ⌈√1000 = 31.62⌉ = 32; ⌈√3200 = 56.57⌉ = 57; 10+32+57 = 99, so N_4 = 1.
    /// T = 300: ⌈17.32⌉ = 18; ⌈√5400 = 73.48⌉ = 74; ⌈√22200 = 148.99⌉ = 149; 241 used, N_4 = 59.
    /// T = 1000: ⌈31.62⌉ = 32; ⌈√32000 = 178.89⌉ = 179; ⌈√179000 = 423.08⌉ = 424; 635 used, N_4 = 365.
    /// T = 2000: ⌈44.72⌉ = 45; √90000 = 300 exactly; ⌈√600000 = 774.60⌉ = 775; 1120 used, N_4 = 880.
    #[test]
    fn schedule_table_of_the_note() {
        assert_eq!(round_schedule(100).unwrap(), vec![10, 32, 57, 1]);
        assert_eq!(round_schedule(300).unwrap(), vec![18, 74, 149, 59]);
        assert_eq!(round_schedule(1000).unwrap(), vec![32, 179, 424, 365]);
        assert_eq!(round_schedule(2000).unwrap(), vec![45, 300, 775, 880]);
        // T = 10000: 100, 1000, ⌈√10⁷ = 3162.28⌉ = 3163, ⌈√31630000 = 5624.05⌉ = 5625, then 112 left.
        assert_eq!(round_schedule(10000).unwrap(), vec![100, 1000, 3163, 5625, 112]);
    }

    #[test]
    fn tiny_horizons_and_errors() {
        assert_eq!(round_schedule(1).unwrap(), vec![1]);
        assert_eq!(round_schedule(2).unwrap(), vec![2]);
        // T = 3: ⌈√3⌉ = 2, then ⌈√6⌉ = 3 truncated to the 1 step left.
        assert_eq!(round_schedule(3).unwrap(), vec![2, 1]);
        assert_eq!(round_schedule(4).unwrap(), vec![2, 2]);
        let err = round_schedule(0).unwrap_err().to_string();
        assert!(err.contains("`horizon`"), "{err}");
    }

    #[test]
    fn ceil_sqrt_on_and_around_squares() {
        for s in [0u128, 1, 2, 3, 300, 1 << 40] {
            assert_eq!(ceil_sqrt(s * s), s);
            assert_eq!(ceil_sqrt(s * s + 1), s + 1);
            if s > 1 {
                assert_eq!(ceil_sqrt(s * s - 1), s);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Σ N_r = T, rounds grow strictly until the truncated last one, and R ≤ ⌈log₂ log₂ T⌉ + 1.
        #[test]
        fn schedule_invariants(t in 1usize..1_000_000) {
            let s = round_schedule(t).unwrap();
            prop_assert_eq!(s.iter().sum::<usize>(), t);
            prop_assert!(s.iter().all(|&n| n >= 1));
            for w in s[..s.len() - 1].windows(2) {
                prop_assert!(w[1] > w[0], "{:?}", s);
            }
            prop_assert!(s.len() <= max_rounds_bound(t), "T = {}: R = {} > bound {}", t, s.len(), max_rounds_bound(t));
            // N_1 = ⌈√T⌉ checked by squares: (N_1 − 1)² < T ≤ N_1².
            let n1 = s[0];
            prop_assert!((n1 - 1) * (n1 - 1) < t && t <= n1 * n1);
        }
    }
}
