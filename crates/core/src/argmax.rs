//! The one argmax rule of bohf: the **lowest index** among the values that tie with the maximum
//! within a relative tolerance (the papers leave tie-breaking open; the authors' code takes the
//! first maximum, and a relative tolerance makes that rule survive rounding noise of a few ulps).

use crate::error::{Error, Result};

/// The relative tie tolerance of [`argmax_lowest`]: a and b tie when
/// |a − b| ≤ 1e-12 · max(|a|, |b|).
pub const TIE_TOLERANCE: f64 = 1e-12;

/// True if a and b tie: equal (including equal infinities), or
/// both finite with |a − b| ≤ [`TIE_TOLERANCE`] · max(|a|, |b|). NaN ties with nothing; an
/// infinity ties only with itself.
pub fn is_tie(a: f64, b: f64) -> bool {
    a == b || (a.is_finite() && b.is_finite() && (a - b).abs() <= TIE_TOLERANCE * a.abs().max(b.abs()))
}

/// The first item (in iteration order) whose value ties ([`is_tie`]) with the largest value, as
/// `(key, value)`. With the items in increasing key order this is the lowest key among the
/// maximisers within the tolerance.
///
/// One pass that evaluates each value once: it keeps the maximum so far and, in order, the items
/// that tie with it. When the maximum grows, the kept items that no longer tie with it are dropped;
/// one that stops tying never ties again with a larger maximum (for v < M₁ < M₂,
/// |v − M₂| = |v − M₁| + (M₂ − M₁) exceeds 1e-12·max(|v|, |M₂|) whenever |v − M₁| exceeds
/// 1e-12·max(|v|, |M₁|)). The result is thus the first item tying with the final maximum M,
/// independent of how values near M are ordered (ties are not transitive, so a "replace unless
/// tied" scan would depend on the order). Values may be ±∞.
///
/// Errors: [`Error::Empty`] for no items, [`Error::NonFinite`] if any value is NaN (a NaN score is
/// a bug upstream; it is never silently skipped). Both name `what`.
pub fn argmax_lowest_by<K, I>(what: &str, items: I) -> Result<(K, f64)>
where
    I: IntoIterator<Item = (K, f64)>,
{
    let mut max = f64::NEG_INFINITY;
    // The items tying with `max`, in iteration order (normally one).
    let mut tied: Vec<(K, f64)> = Vec::with_capacity(1);
    let mut cut = f64::NEG_INFINITY;
    for (k, v) in items {
        if v > max {
            max = v;
            cut = reject_below(v);
            tied.retain(|&(_, c)| is_tie(c, max));
            tied.push((k, v));
        } else if v >= cut {
            if is_tie(v, max) {
                tied.push((k, v));
            }
        } else if v.is_nan() {
            return Err(Error::NonFinite(format!("{what} (NaN in an argmax)")));
        }
    }
    // Every kept item ties with the final maximum (it would have been dropped otherwise).
    tied.into_iter().next().ok_or_else(|| Error::Empty(format!("{what} (argmax over no values)")))
}

/// The index of the largest value, the **lowest** index among values that tie with it
/// ([`is_tie`]): [`argmax_lowest_by`] over the enumerated values. The tie rule of every argmax over
/// candidates in bohf. Errors on an empty input or a NaN value.
pub fn argmax_lowest<I>(values: I) -> Result<usize>
where
    I: IntoIterator<Item = f64>,
{
    Ok(argmax_lowest_by("values", values.into_iter().enumerate())?.0)
}

/// An argmax accumulated value by value in any order, with the rule of [`argmax_lowest`]: the
/// lowest **key** among the values that tie with the final maximum. For scans whose natural order is
/// not the key order (e.g. a column-major sweep over pairs keyed by their row-major index), fused
/// into the loop that computes the values. It keeps the values tying with the running maximum
/// (normally one), pruned as the maximum grows (one that stops tying never ties again; see
/// [`argmax_lowest_by`]).
#[derive(Debug, Clone)]
pub struct ArgmaxLowest {
    max: f64,
    /// [`reject_below`] of `max`.
    cut: f64,
    tied: Vec<(usize, f64)>,
    nan: bool,
}

/// A value below this cannot tie with `max` (a cheap test before [`is_tie`]): for v ≤ M finite, a
/// tie needs M − v ≤ 1e-12·max(|v|, |M|) ≤ 1e-12·(|M| + (M − v)), so M − v ≤ 1e-12·|M|/(1 − 1e-12)
/// < 2e-12·|M|; rounding of the cut is of order 1e-16·|M|, far inside that margin. With M infinite
/// every value goes to [`is_tie`] (the cut is −∞).
#[inline]
fn reject_below(max: f64) -> f64 {
    if max.is_finite() { max - 2.0 * TIE_TOLERANCE * max.abs() } else { f64::NEG_INFINITY }
}

impl Default for ArgmaxLowest {
    fn default() -> Self {
        Self { max: f64::NEG_INFINITY, cut: f64::NEG_INFINITY, tied: Vec::with_capacity(4), nan: false }
    }
}

impl ArgmaxLowest {
    /// Offers value `v` under `key`.
    #[inline]
    pub fn push(&mut self, key: usize, v: f64) {
        if v > self.max {
            self.max = v;
            self.cut = reject_below(v);
            self.tied.retain(|&(_, c)| is_tie(c, v));
            self.tied.push((key, v));
        } else if v >= self.cut {
            if is_tie(v, self.max) {
                self.tied.push((key, v));
            }
        } else if v.is_nan() {
            self.nan = true;
        }
    }

    /// Offers a run of values, `values[i]` under key `first + i·stride`: the same as calling
    /// [`push`](Self::push) on each, but the run's maximum (and whether it holds a NaN) is found
    /// first in a branch-free pass over four lanes that the compiler vectorises, and the values
    /// are visited one by one only when that maximum can reach the tie band of the running
    /// maximum (v ≥ the cheap cut `reject_below`), which in a long scan is rare. A value below
    /// `reject_below(run max)` is below `reject_below` of every later maximum (the cut grows with
    /// the maximum), so skipping it changes nothing.
    #[inline]
    pub fn push_run(&mut self, first: usize, stride: usize, values: &[f64]) {
        let (run_max, nan) = lane_max(values);
        if nan {
            self.nan = true;
        }
        if run_max > self.max || run_max >= self.cut {
            let cut = reject_below(run_max);
            for (i, &v) in values.iter().enumerate() {
                if v >= cut {
                    self.push(first + i * stride, v);
                }
            }
        }
    }

    /// The lowest key among the values tying with the maximum, with its value. Errors as
    /// [`argmax_lowest_by`] (no values, or a NaN), naming `what`.
    pub fn finish(self, what: &str) -> Result<(usize, f64)> {
        if self.nan {
            return Err(Error::NonFinite(format!("{what} (NaN in an argmax)")));
        }
        let max = self.max;
        self.tied
            .into_iter()
            .filter(|&(_, c)| is_tie(c, max))
            .min_by_key(|&(k, _)| k)
            .ok_or_else(|| Error::Empty(format!("{what} (argmax over no values)")))
    }
}

/// The argmax over all m² ordered pairs (p, q) of a **symmetric** value with a **zero diagonal**
/// (a pair variance σ²(p, q) = σ²(q, p), σ²(p, p) = 0), with the rule of [`argmax_lowest`] on the
/// row-major index p·m + q: the lowest such index among the pairs tying with the maximum. Returns
/// `((p, q), value)`.
///
/// `value(p, q)` is called once for each p < q only: by symmetry the upper-triangle pair has the
/// lower row-major index of the two, and the diagonal (value 0) is represented by (0, 0), the lowest
/// index of all, so the result has p < q unless the maximum is 0 (then it is (0, 0)). The upper
/// triangle is visited in 64×64 tiles, each column of a tile fed to one [`ArgmaxLowest`] as a run,
/// so that a `value` reading both the (p, q) and (q, p) entries of a column-major matrix keeps both
/// in cache. Errors as [`argmax_lowest_by`] (m = 0, or a NaN value), naming `what`.
pub fn argmax_lowest_symmetric_pairs(
    what: &str,
    m: usize,
    value: impl Fn(usize, usize) -> f64,
) -> Result<((usize, usize), f64)> {
    const TILE: usize = 64;
    if m == 0 {
        return Err(Error::Empty(format!("{what} (argmax over no pairs)")));
    }
    let mut best = ArgmaxLowest::default();
    best.push(0, 0.0);
    let mut run = [0.0; TILE];
    for row0 in (0..m).step_by(TILE) {
        for col0 in (row0..m).step_by(TILE) {
            for q in col0.max(row0 + 1)..(col0 + TILE).min(m) {
                let rows = row0..q.min(row0 + TILE);
                let out = &mut run[..rows.len()];
                for (slot, p) in out.iter_mut().zip(rows) {
                    *slot = value(p, q);
                }
                best.push_run(row0 * m + q, m, out);
            }
        }
    }
    let (key, v) = best.finish(what)?;
    Ok(((key / m, key % m), v))
}

/// The largest non-NaN value of `values` (−∞ if there is none) and whether any value is NaN, in
/// one pass over four independent lanes (`v > m` never holds for a NaN `v`, so NaNs are skipped by
/// the comparison and reported by the flag).
#[inline]
fn lane_max(values: &[f64]) -> (f64, bool) {
    let mut m = [f64::NEG_INFINITY; 4];
    let mut nan = [false; 4];
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..4 {
            m[k] = if c[k] > m[k] { c[k] } else { m[k] };
            nan[k] |= c[k].is_nan();
        }
    }
    for (k, &v) in rest.iter().enumerate() {
        m[k] = if v > m[k] { v } else { m[k] };
        nan[k] |= v.is_nan();
    }
    let max = [m[1], m[2], m[3]].into_iter().fold(m[0], |a, b| if b > a { b } else { a });
    (max, nan.iter().any(|&b| b))
}

/// The member of `subset` (in its order, normally increasing candidate indices) maximising
/// `value`, the first one among ties: [`argmax_lowest_by`] over `(i, value(i))`, i ∈ `subset`.
pub fn argmax_lowest_in(what: &str, subset: &[usize], value: impl Fn(usize) -> f64) -> Result<usize> {
    Ok(argmax_lowest_by(what, subset.iter().map(|&i| (i, value(i))))?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_ties_take_the_lowest_index() {
        assert_eq!(argmax_lowest([1.0, 3.0, 3.0, 2.0]).unwrap(), 1);
        assert_eq!(argmax_lowest([2.0, 2.0]).unwrap(), 0);
        assert_eq!(argmax_lowest([f64::NEG_INFINITY, f64::NEG_INFINITY]).unwrap(), 0);
        assert_eq!(argmax_lowest([0.0, f64::INFINITY, f64::INFINITY]).unwrap(), 1);
        assert_eq!(argmax_lowest([0.0, -0.0]).unwrap(), 0);
        assert_eq!(argmax_lowest([-3.0]).unwrap(), 0);
    }

    /// 1e-12 relative: at 5.0 the tolerance is 5e-12. A gap of 4e-12 ties (the earlier index wins
    /// although it is smaller); a gap of 6e-12 does not (the larger value wins).
    #[test]
    fn ties_within_the_relative_tolerance_and_not_just_outside() {
        assert_eq!(argmax_lowest([-1.0, 5.0, 5.0 + 4e-12]).unwrap(), 1);
        assert_eq!(argmax_lowest([-1.0, 5.0, 5.0 + 6e-12]).unwrap(), 2);
        assert_eq!(argmax_lowest([-1.0, 5.0 + 4e-12, 5.0]).unwrap(), 1);
        // Relative, not absolute: at 1e6 a gap of 5e-7 ties, at 1 it does not.
        assert_eq!(argmax_lowest([1e6, 1e6 + 5e-7]).unwrap(), 0);
        assert_eq!(argmax_lowest([1.0, 1.0 + 5e-7]).unwrap(), 1);
        // Zero ties only with zero.
        assert_eq!(argmax_lowest([0.0, 1e-300]).unwrap(), 1);
        assert!(is_tie(-2.0, -2.0 - 1e-12) && !is_tie(-2.0, -2.0 - 3e-12));
    }

    /// Ties are measured against the maximum, not against the running best: with values 1,
    /// 1 + 0.9e-12, 1 + 1.8e-12, index 0 is 1.8e-12 below the maximum (not a tie) while index 1 is
    /// 0.9e-12 below it (a tie), so the answer is 1 whatever the scan order.
    #[test]
    fn the_rule_is_relative_to_the_maximum() {
        assert_eq!(argmax_lowest([1.0, 1.0 + 0.9e-12, 1.0 + 1.8e-12]).unwrap(), 1);
        assert_eq!(argmax_lowest([1.0 + 1.8e-12, 1.0 + 0.9e-12, 1.0]).unwrap(), 0);
    }

    #[test]
    fn nan_and_empty_inputs_are_errors() {
        assert!(matches!(argmax_lowest([f64::NAN, 0.5]), Err(Error::NonFinite(_))));
        assert!(matches!(argmax_lowest([0.5, f64::NAN]), Err(Error::NonFinite(_))));
        assert!(matches!(argmax_lowest(std::iter::empty()), Err(Error::Empty(_))));
        let e = argmax_lowest_in("utility over M_r", &[], |_| 0.0).unwrap_err();
        assert!(e.to_string().contains("utility over M_r"), "{e}");
    }

    #[test]
    fn runs_report_nan_and_empty_like_single_values() {
        let mut acc = ArgmaxLowest::default();
        acc.push_run(0, 1, &[1.0, 2.0, 3.0, 4.0, f64::NAN, 0.0]);
        assert!(matches!(acc.finish("runs"), Err(Error::NonFinite(_))));
        let mut acc = ArgmaxLowest::default();
        acc.push_run(0, 1, &[]);
        assert!(matches!(acc.finish("runs"), Err(Error::Empty(_))));
        // A run wholly below the running maximum changes nothing; a later run's tie with a lower
        // key wins.
        let mut acc = ArgmaxLowest::default();
        acc.push_run(10, 1, &[5.0, 1.0, 5.0, 2.0, 4.0]);
        acc.push_run(20, 1, &[1.0, 2.0, 3.0, 4.0, 4.5, 0.0, -1.0]);
        acc.push_run(3, 100, &[0.0, 5.0 + 1e-12]);
        assert_eq!(acc.finish("runs").unwrap(), (10, 5.0));
        assert_eq!(lane_max(&[-1.0, f64::NAN, -3.0]), (-1.0, true));
        assert_eq!(lane_max(&[f64::NEG_INFINITY; 5]), (f64::NEG_INFINITY, false));
    }

    /// The symmetric-pair scan against the definition on all m² ordered pairs: random symmetric
    /// zero-diagonal matrices with clustered values (non-transitive near ties, exact repeats), m
    /// spanning one and several 64-wide tiles.
    #[test]
    fn symmetric_pairs_agree_with_the_definition() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d_u64);
        for case in 0..300 {
            let m = [1, 2, 3, 7, 64, 65, 130][case % 7];
            let base = [2.0, 1e-3, 0.0][case % 3];
            let mut v = vec![0.0; m * m];
            for p in 0..m {
                for q in p + 1..m {
                    let x = match next() % 8 {
                        0 => 0.0,
                        1 => base * 0.5,
                        k => base + (k as f64 - 4.0) * 0.6e-12 * base,
                    };
                    v[p * m + q] = x;
                    v[q * m + p] = x;
                }
            }
            let (pair, val) = argmax_lowest_symmetric_pairs("v", m, |p, q| v[p * m + q]).unwrap();
            let k = by_definition(&v);
            assert_eq!(pair, (k / m, k % m), "case {case}, m = {m}");
            assert_eq!(val, v[k]);
        }
        // The hand cases of MR-LPF's rule on 4 positions: (0, 3) comes before (1, 2) in row-major
        // order and wins a tie within 1e-12 · 2, not a gap of 3e-12; all zero gives (0, 0).
        let with = |entries: &[((usize, usize), f64)]| {
            let mut v = [[0.0; 4]; 4];
            for &((p, q), x) in entries {
                v[p][q] = x;
                v[q][p] = x;
            }
            argmax_lowest_symmetric_pairs("v", 4, |p, q| v[p][q]).unwrap().0
        };
        assert_eq!(with(&[((1, 2), 2.0 + 1e-12), ((0, 3), 2.0)]), (0, 3));
        assert_eq!(with(&[((1, 2), 2.0 + 3e-12), ((0, 3), 2.0)]), (1, 2));
        assert_eq!(with(&[((1, 2), 2.0), ((0, 3), 2.0)]), (0, 3));
        assert_eq!(with(&[]), (0, 0));
        assert!(matches!(
            argmax_lowest_symmetric_pairs("v", 4, |p, q| if (p, q) == (1, 3) { f64::NAN } else { 1.0 }),
            Err(Error::NonFinite(_))
        ));
        assert!(matches!(argmax_lowest_symmetric_pairs("v", 0, |_, _| 1.0), Err(Error::Empty(_))));
    }

    #[test]
    fn subsets_and_keys() {
        let g = [0.0, 5.0, 1.0, 5.0, 7.0];
        assert_eq!(argmax_lowest_in("g", &[0, 1, 2, 3], |i| g[i]).unwrap(), 1);
        assert_eq!(argmax_lowest_in("g", &[2, 3], |i| g[i]).unwrap(), 3);
        let pairs = [((0, 1), 2.0), ((0, 2), 3.0), ((1, 2), 3.0)];
        assert_eq!(argmax_lowest_by("pairs", pairs).unwrap(), ((0, 2), 3.0));
    }

    /// A fixed-seed xorshift64 generator for the randomised cases (no dependency on rand here).
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// The definition, by brute force: the maximum M, then the first value tying with M.
    fn by_definition(v: &[f64]) -> usize {
        let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        v.iter().position(|&x| is_tie(x, m)).unwrap()
    }

    #[test]
    fn one_pass_agrees_with_the_definition_on_clustered_values() {
        // Values within a few tolerances of each other (non-transitive ties), exact repeats and
        // infinities, in random order: 20 000 cases from a fixed-seed generator.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15_u64);
        for case in 0..20_000 {
            let n = 1 + (next() % 12) as usize;
            let base: f64 = [1.0, -1.0, 5.0, 1e-300, 0.0][case % 5];
            let v: Vec<f64> = (0..n)
                .map(|_| match next() % 10 {
                    0 => f64::NEG_INFINITY,
                    1 if case % 7 == 0 => f64::INFINITY,
                    k => base + (k as f64 - 5.0) * 0.6e-12 * base.abs().max(1e-300),
                })
                .collect();
            assert_eq!(argmax_lowest(v.iter().copied()).unwrap(), by_definition(&v), "{v:?}");
            // The accumulator, fed in reverse order, still returns the lowest key.
            let mut acc = ArgmaxLowest::default();
            for (k, &x) in v.iter().enumerate().rev() {
                acc.push(k, x);
            }
            assert_eq!(acc.finish("v").unwrap().0, by_definition(&v), "{v:?}");
            // Fed as runs (strided keys, runs in reverse key order), the same answer.
            let width = 1 + case % 5;
            let mut acc = ArgmaxLowest::default();
            let columns: Vec<usize> = (0..width).rev().collect();
            for &c in &columns {
                let run: Vec<f64> = v.iter().copied().skip(c).step_by(width).collect();
                acc.push_run(c, width, &run);
            }
            assert_eq!(acc.finish("v").unwrap().0, by_definition(&v), "{v:?} as runs of stride {width}");
        }
    }
}
