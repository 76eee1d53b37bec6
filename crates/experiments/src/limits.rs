//! What a spec may ask for: bounds on every size-like field, and an estimate of the memory a run
//! needs, checked before anything is allocated.
//!
//! **Bounds.** [`ExperimentSpec::validate`](crate::ExperimentSpec::validate) refuses a field above
//! its bound with an error naming the field and the bound: `horizon` ≤ [`MAX_HORIZON`], `runs` ≤
//! [`MAX_RUNS`], at most [`MAX_ALGORITHMS`] algorithms, a candidate set (`problem.points`, or
//! `problem.points_per_dim` to the power `problem.dim`) of at most [`MAX_CANDIDATES`] points,
//! `problem.dim` ≤ [`MAX_DIM`], names and labels of at most [`MAX_NAME_LEN`] characters; a box
//! mode's `box_search.starts` and `iterations` ≤ [`MAX_BOX_SEARCH_STEPS`] and its `samples` × d ≤
//! [`MAX_BOX_SAMPLE_VALUES`] (checked when the algorithm is built for the box).
//!
//! **Memory.** Each registered algorithm reports the dominant allocations it makes for a problem
//! of n candidates in d dimensions and a horizon T ([`crate::AlgorithmEntry::with_memory`]: e.g.
//! PF-TS an n×n Gram, its n×n sampling factor and a T×T posterior over the queried pairs); the
//! experiment adds the candidate set and the step records it keeps (runs × algorithms × T). A spec
//! whose [`MemoryEstimate`] exceeds the limit is refused with a message that names the largest
//! allocations ("pf-ts on 100000 candidates needs an n×n Gram = 80.0 GB, …"). The limit is the
//! machine's total memory (`MemTotal` of `/proc/meminfo`), or 16 GiB where that is unknown; the
//! environment variable [`MEMORY_LIMIT_ENV`] (`BOHF_MEMORY_LIMIT`, bytes with an optional `K`, `M`,
//! `G` or `T` suffix, powers of 1024) overrides it. All arithmetic is checked: an estimate that
//! overflows counts as unbounded.

use std::fmt;

/// The largest horizon T a spec may ask for.
pub const MAX_HORIZON: usize = 100_000_000;
/// The largest number of runs per algorithm.
pub const MAX_RUNS: usize = 1_000_000;
/// The largest number of algorithms in one spec.
pub const MAX_ALGORITHMS: usize = 1_000;
/// The largest candidate set (grid points, or points per dimension to the power of the dimension).
pub const MAX_CANDIDATES: usize = 100_000_000;
/// The largest dimension of a test function.
pub const MAX_DIM: usize = 1_000;
/// The longest `name`, `title` or `label`, in characters.
pub const MAX_NAME_LEN: usize = 200;
/// The largest continuous search of a box mode: screened samples × the box's dimension (e.g.
/// `box_search.samples` of `pop-bo`; 10⁷ coordinates, 80 MB).
pub const MAX_BOX_SAMPLE_VALUES: usize = 10_000_000;
/// The most local searches (`box_search.starts`) or solves per search (`box_search.iterations`) of a
/// box mode.
pub const MAX_BOX_SEARCH_STEPS: usize = 10_000;
/// The environment variable that overrides the memory limit (bytes, or with a K/M/G/T suffix).
pub const MEMORY_LIMIT_ENV: &str = "BOHF_MEMORY_LIMIT";
/// The memory limit where the machine's total memory is unknown: 16 GiB.
pub const DEFAULT_MEMORY_LIMIT: u128 = 16 << 30;

/// The sizes an algorithm's memory depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProblemShape {
    /// The number of candidates n.
    pub candidates: usize,
    /// The dimension d of a candidate.
    pub dim: usize,
    /// The horizon T.
    pub horizon: usize,
}

/// One allocation of an estimate: what it is and its size in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    /// What is allocated, e.g. "an n×n Gram".
    pub what: String,
    /// Its size in bytes (`u128::MAX` if the product overflowed).
    pub bytes: u128,
}

impl Allocation {
    /// An allocation of `count` items of `item_bytes` bytes each: `factors` are multiplied with
    /// checked arithmetic (an overflow gives `u128::MAX`).
    pub fn of(what: impl Into<String>, item_bytes: usize, factors: &[usize]) -> Self {
        let bytes =
            factors.iter().try_fold(item_bytes as u128, |acc, &f| acc.checked_mul(f as u128)).unwrap_or(u128::MAX);
        Self { what: what.into(), bytes }
    }

    /// An n×m matrix of f64.
    pub fn matrix(what: impl Into<String>, n: usize, m: usize) -> Self {
        Self::of(what, std::mem::size_of::<f64>(), &[n, m])
    }
}

/// The memory an experiment needs: its allocations, the largest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemoryEstimate {
    parts: Vec<Allocation>,
}

impl MemoryEstimate {
    /// An estimate from its parts.
    pub fn new(mut parts: Vec<Allocation>) -> Self {
        parts.retain(|p| p.bytes > 0);
        parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
        Self { parts }
    }

    /// The total in bytes (saturating: `u128::MAX` means "more than can be counted").
    pub fn total(&self) -> u128 {
        self.parts.iter().fold(0u128, |acc, p| acc.saturating_add(p.bytes))
    }

    /// The allocations, the largest first.
    pub fn parts(&self) -> &[Allocation] {
        &self.parts
    }

    /// Refuses the estimate when its total exceeds the memory limit ([`MemoryLimit::from_env`]),
    /// naming `what` needs it and the largest allocations: the one check that every front end
    /// makes before it allocates (`bohf run`'s specs, the Python package's arrays).
    pub fn check(&self, what: &str) -> Result<(), crate::ExperimentError> {
        let limit = MemoryLimit::from_env().map_err(|reason| crate::ExperimentError::spec(MEMORY_LIMIT_ENV, reason))?;
        if self.total() > limit.bytes {
            return Err(crate::ExperimentError::Memory {
                needs: format!("{what} needs about {}", Bytes(self.total())),
                limit: Bytes(limit.bytes).to_string(),
                source_of_limit: limit.source,
                detail: self.largest(),
            });
        }
        Ok(())
    }

    /// The three largest allocations as "what = size, …".
    pub fn largest(&self) -> String {
        self.parts.iter().take(3).map(|p| format!("{} = {}", p.what, Bytes(p.bytes))).collect::<Vec<_>>().join(", ")
    }
}

/// A byte count for people: "80.0 GB" (powers of 1000), "overflowing" for `u128::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bytes(pub u128);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == u128::MAX {
            return f.write_str("more than 10^38 bytes");
        }
        let units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB"];
        let mut value = self.0 as f64;
        let mut unit = 0;
        while value >= 1000.0 && unit + 1 < units.len() {
            value /= 1000.0;
            unit += 1;
        }
        if unit == 0 { write!(f, "{} bytes", self.0) } else { write!(f, "{value:.1} {}", units[unit]) }
    }
}

/// Parses a byte count: digits with an optional `K`, `M`, `G` or `T` suffix (powers of 1024, an
/// optional trailing `B` or `iB`).
pub fn parse_bytes(text: &str) -> Option<u128> {
    let t = text.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (digits, shift) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], 10),
        'M' | 'm' => (&t[..t.len() - 1], 20),
        'G' | 'g' => (&t[..t.len() - 1], 30),
        'T' | 't' => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let n: u128 = digits.trim().parse().ok()?;
    n.checked_mul(1u128 << shift)
}

/// The machine's total memory from `/proc/meminfo` (`None` where unavailable).
fn total_memory() -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u128 = line.trim_start_matches("MemTotal:").trim().trim_end_matches("kB").trim().parse().ok()?;
    kb.checked_mul(1024)
}

/// The memory limit and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryLimit {
    /// The limit in bytes.
    pub bytes: u128,
    /// Where it came from (for messages), e.g. "the machine's total memory".
    pub source: String,
}

impl MemoryLimit {
    /// The limit from [`MEMORY_LIMIT_ENV`], else the machine's total memory, else
    /// [`DEFAULT_MEMORY_LIMIT`]. An unparsable variable is an error naming it.
    pub fn from_env() -> Result<Self, String> {
        if let Some(v) = std::env::var_os(MEMORY_LIMIT_ENV) {
            let text = v.to_string_lossy();
            return match parse_bytes(&text) {
                Some(bytes) => Ok(Self { bytes, source: format!("{MEMORY_LIMIT_ENV}={text}") }),
                None => Err(format!("{MEMORY_LIMIT_ENV}={text:?} is not a byte count (e.g. 8G, 512M, 1000000000)")),
            };
        }
        Ok(match total_memory() {
            Some(bytes) => Self { bytes, source: "the machine's total memory".into() },
            None => Self { bytes: DEFAULT_MEMORY_LIMIT, source: "the default limit (total memory unknown)".into() },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_products_are_checked() {
        assert_eq!(Allocation::matrix("g", 100_000, 100_000).bytes, 80_000_000_000);
        assert_eq!(Allocation::of("x", 8, &[usize::MAX, usize::MAX, usize::MAX]).bytes, u128::MAX);
        let e = MemoryEstimate::new(vec![Allocation::of("a", 1, &[usize::MAX; 5]), Allocation::of("b", 1, &[7])]);
        assert_eq!(e.total(), u128::MAX);
        assert_eq!(e.parts()[0].what, "a");
    }

    #[test]
    fn byte_counts_read_and_print() {
        assert_eq!(parse_bytes("8G"), Some(8 << 30));
        assert_eq!(parse_bytes("512MiB"), Some(512 << 20));
        assert_eq!(parse_bytes("1000"), Some(1000));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes(""), None);
        assert_eq!(Bytes(80_000_000_000).to_string(), "80.0 GB");
        assert_eq!(Bytes(999).to_string(), "999 bytes");
    }
}
