//! Compensated summation with a rigorous rounding bound, for the certificates of the confidence
//! programs (`bohf-confidence`), whose likelihood is a sum of thousands of terms.
//!
//! [`CompensatedSum`] is Neumaier's variant of Kahan's summation (A. Neumaier, "Rundungsfehleranalyse
//! einiger Verfahren zur Summation endlicher Summen", *ZAMM* 54 (1974), 39–51): the rounding error
//! of every addition is recovered exactly by Knuth's TwoSum identity and added back at the end.
//! Its error bound (N. J. Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §4.3,
//! eq. (4.9) and Problem 4.11) is
//!
//! ```text
//! |Ŝ − S| ≤ 2u|S| + 2m²u² Σ|x_i|        (m terms, u = 2⁻⁵³),
//! ```
//!
//! against (m − 1)u Σ|x_i| for the recursive sum: the bound no longer grows with the number of
//! terms until m ≈ 1/√u ≈ 10⁸. [`CompensatedSum::error_bound`] returns it, rounded up.

/// The unit roundoff u = 2⁻⁵³ of `f64`.
const U: f64 = f64::EPSILON / 2.0;

/// A running compensated sum (module docs): add terms with [`add`](Self::add), read the sum with
/// [`value`](Self::value) and a bound on its rounding error with [`error_bound`](Self::error_bound).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CompensatedSum {
    sum: f64,
    compensation: f64,
    abs_sum: f64,
    count: usize,
}

impl CompensatedSum {
    /// An empty sum (value 0).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `x`.
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        // TwoSum's error term: exact in binary floating point (Knuth; Neumaier's ordering).
        self.compensation += if self.sum.abs() >= x.abs() { (self.sum - t) + x } else { (x - t) + self.sum };
        self.sum = t;
        self.abs_sum += x.abs();
        self.count += 1;
    }

    /// The compensated sum Ŝ.
    pub fn value(&self) -> f64 {
        self.sum + self.compensation
    }

    /// Σ|x_i| as accumulated (a recursive sum of non-negative terms, so within (m − 1)u of itself).
    pub fn abs_sum(&self) -> f64 {
        self.abs_sum
    }

    /// A bound on |Ŝ − S| (module docs), with |S| ≤ |Ŝ| + the bound's first part accounted for and
    /// every factor rounded up.
    pub fn error_bound(&self) -> f64 {
        let m = self.count as f64;
        // Σ|x_i| computed recursively: at most (1 + m·u) times too small.
        let abs = self.abs_sum * (1.0 + (m + 2.0) * U);
        let second = 2.0 * m * m * U * U * abs;
        // |S| ≤ |Ŝ| + |Ŝ − S| and 2u|Ŝ − S| is of second order: 2u(|Ŝ| + 2u·abs) covers it.
        (2.0 * U * (self.value().abs() + 2.0 * U * abs) + second) * (1.0 + 8.0 * U)
    }
}

impl Extend<f64> for CompensatedSum {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, iter: I) {
        for x in iter {
            self.add(x);
        }
    }
}

impl FromIterator<f64> for CompensatedSum {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut s = Self::new();
        s.extend(iter);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;
    use rand::RngExt;

    /// The exact sum of values that are all integer multiples of 2⁻⁶² (as i128 in units of 2⁻⁶²).
    fn exact(xs: &[f64]) -> i128 {
        xs.iter()
            .map(|x| {
                let scaled = x * 2f64.powi(62);
                assert_eq!(scaled.fract(), 0.0, "{x} is not a multiple of 2^-62");
                scaled as i128
            })
            .sum()
    }

    #[test]
    fn recovers_what_the_recursive_sum_loses() {
        // 1 + 2²⁰·2⁻⁶⁰ = 1 + 2⁻⁴⁰ exactly; the recursive sum drops every small term.
        let mut xs = vec![1.0];
        xs.extend(std::iter::repeat_n(2f64.powi(-60), 1 << 20));
        let naive: f64 = xs.iter().sum();
        assert_eq!(naive, 1.0);
        let s: CompensatedSum = xs.iter().copied().collect();
        assert_eq!(s.value(), 1.0 + 2f64.powi(-40));
        // Cancellation: (1e16 + 1) − 1e16 = 1, which the recursive sum gets wrong.
        let s: CompensatedSum = [1e16, 1.0, -1e16].into_iter().collect();
        assert_eq!(s.value(), 1.0);
        assert_eq!(CompensatedSum::new().value(), 0.0);
    }

    #[test]
    fn the_error_bound_holds_against_exact_integer_sums() {
        let mut rng = seeded(11);
        for case in 0..200 {
            let m = 1 + rng.random_range(0..5000usize);
            let signed = case % 2 == 1;
            // Values in [2⁻¹⁰, 2¹⁰) with 52-bit mantissas: multiples of 2⁻⁶², summable exactly in i128.
            let xs: Vec<f64> = (0..m)
                .map(|_| {
                    let x = 2f64.powi(rng.random_range(-10..10)) * (1.0 + rng.random::<f64>());
                    if signed && rng.random::<bool>() { -x } else { x }
                })
                .collect();
            let exact_sum = exact(&xs);
            let s: CompensatedSum = xs.iter().copied().collect();
            // |Ŝ − S| in units of 2⁻⁶², exactly (Ŝ is also a multiple of 2⁻⁶² or larger ulps).
            let err = ((s.value() * 2f64.powi(62)) as i128 - exact_sum).unsigned_abs() as f64 * 2f64.powi(-62);
            assert!(err <= s.error_bound(), "case {case}: error {err:e} > bound {:e}", s.error_bound());
            // And the bound is far below the recursive sum's worst case once m is large.
            if m > 100 {
                assert!(s.error_bound() < 0.1 * (m as f64 - 1.0) * U * s.abs_sum());
            }
        }
    }
}
