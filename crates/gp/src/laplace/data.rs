//! The comparisons of a Laplace preference GP: the distinct compared points (the latent
//! utilities' locations) and the duels aggregated per unordered pair.

use bohf_core::{Duel, Error, Result};
use nalgebra::DMatrix;
use std::collections::BTreeMap;

/// The duels between two distinct latent points `i < j`, aggregated: `wins_i` duels won by point
/// `i`, `wins_j` won by point `j`. The likelihood of the pair is
/// μ((f_i − f_j)/s)^{wins_i} μ((f_j − f_i)/s)^{wins_j} (Chu & Ghahramani 2005, eq. (2)–(3)), so
/// repeated duels of one pair add one rank-one term to W, not one per duel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairCounts {
    /// The lower latent index.
    pub i: usize,
    /// The higher latent index (> `i`).
    pub j: usize,
    /// Duels won by point `i`.
    pub wins_i: u32,
    /// Duels won by point `j`.
    pub wins_j: u32,
}

/// The data of a Laplace preference GP: n distinct points (the rows of [`PreferenceData::points`],
/// where the latent utilities f live) and the duels between them, aggregated per unordered pair
/// ([`PairCounts`], sorted by (i, j)).
///
/// **Self-duels.** A duel whose two options are the same latent point (the same candidate, or two
/// points merged as near-duplicates) has likelihood μ(0) = ½ whatever f is: it carries no
/// information and contributes only the constant log ½ to the log-likelihood. Such duels are
/// **dropped** (counted in [`PreferenceData::dropped_self_duels`]); the evidence excludes their
/// constant.
///
/// **Determinism.** Latent points are numbered in order of first appearance in the duel list and
/// pairs are kept in a `BTreeMap`, so the same duels give the same matrices on every platform.
#[derive(Debug, Clone, PartialEq)]
pub struct PreferenceData {
    points: DMatrix<f64>,
    candidates: Option<Vec<usize>>,
    pairs: Vec<PairCounts>,
    duels: usize,
    dropped_self_duels: usize,
}

impl PreferenceData {
    /// Duels on a finite domain: `candidates` (N×d, one candidate per row) and duels by candidate
    /// index. The latent points are the distinct compared candidates (identified by index; two
    /// candidates with equal coordinates stay two points, which the Laplace factorisation
    /// tolerates: K is never factorised, only B = I + Gᵀ K G, whose eigenvalues are ≥ 1).
    ///
    /// Errors: an index beyond the candidate set, non-finite candidate coordinates.
    pub fn from_candidates(candidates: &DMatrix<f64>, duels: &[Duel]) -> Result<Self> {
        bohf_core::error::ensure_finite("Laplace preference GP: candidate coordinates", candidates.iter())?;
        let n_cand = candidates.nrows();
        let mut latent_of: BTreeMap<usize, usize> = BTreeMap::new();
        let mut order: Vec<usize> = Vec::new();
        let mut mapped = Vec::with_capacity(duels.len());
        for (k, duel) in duels.iter().enumerate() {
            let mut latent = |c: usize| -> Result<usize> {
                if c >= n_cand {
                    return Err(Error::IndexOutOfRange {
                        context: format!("Laplace preference GP: duel {k}, candidate set"),
                        index: c,
                        len: n_cand,
                    });
                }
                Ok(*latent_of.entry(c).or_insert_with(|| {
                    order.push(c);
                    order.len() - 1
                }))
            };
            let a = latent(duel.first)?;
            let b = latent(duel.second)?;
            mapped.push((a, b, duel.first_wins));
        }
        let points = DMatrix::from_fn(order.len(), candidates.ncols(), |r, c| candidates[(order[r], c)]);
        let mut data = Self::aggregate(points, &mapped);
        data.candidates = Some(order);
        Ok(data)
    }

    /// Duels between points of ℝ^d (a box domain): each duel is (first point, second point,
    /// first wins). A point within `tolerance` of an earlier distinct point in every coordinate
    /// (‖x − x′‖_∞ ≤ tolerance) is merged into it (the earlier point's coordinates are kept);
    /// tolerance 0 merges exact duplicates only. Merging keeps the Gram matrix of the latent points
    /// away from exact singularity and puts repeated queries of one option on one utility.
    ///
    /// Errors: points of unequal dimension, non-finite coordinates, a negative or NaN `tolerance`.
    pub fn from_points(duels: &[(Vec<f64>, Vec<f64>, bool)], tolerance: f64) -> Result<Self> {
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(Error::invalid("merge_tolerance", format!("must be finite and ≥ 0, got {tolerance}")));
        }
        let d = duels.first().map_or(0, |(x, _, _)| x.len());
        let mut rows: Vec<Vec<f64>> = Vec::new();
        let mut mapped = Vec::with_capacity(duels.len());
        for (k, (x, xp, first_wins)) in duels.iter().enumerate() {
            let mut latent = |p: &Vec<f64>, which: &str| -> Result<usize> {
                if p.len() != d {
                    return Err(Error::dims(
                        format!("Laplace preference GP: duel {k}, {which} point dimension"),
                        d,
                        p.len(),
                    ));
                }
                bohf_core::error::ensure_finite(&format!("Laplace preference GP: duel {k}, {which} point"), p.iter())?;
                let close = |r: &Vec<f64>| r.iter().zip(p).all(|(u, v)| (u - v).abs() <= tolerance);
                Ok(match rows.iter().position(close) {
                    Some(i) => i,
                    None => {
                        rows.push(p.clone());
                        rows.len() - 1
                    }
                })
            };
            let a = latent(x, "first")?;
            let b = latent(xp, "second")?;
            mapped.push((a, b, *first_wins));
        }
        let points = DMatrix::from_fn(rows.len(), d, |r, c| rows[r][c]);
        Ok(Self::aggregate(points, &mapped))
    }

    fn aggregate(points: DMatrix<f64>, mapped: &[(usize, usize, bool)]) -> Self {
        let mut counts: BTreeMap<(usize, usize), (u32, u32)> = BTreeMap::new();
        let mut dropped = 0;
        for &(a, b, first_wins) in mapped {
            if a == b {
                dropped += 1;
                continue;
            }
            let (winner, loser) = if first_wins { (a, b) } else { (b, a) };
            let key = (winner.min(loser), winner.max(loser));
            let e = counts.entry(key).or_insert((0, 0));
            if winner == key.0 {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
        let pairs = counts.into_iter().map(|((i, j), (wi, wj))| PairCounts { i, j, wins_i: wi, wins_j: wj }).collect();
        Self { points, candidates: None, pairs, duels: mapped.len(), dropped_self_duels: dropped }
    }

    /// The distinct compared points (n×d): row r is the location of latent utility f_r.
    pub fn points(&self) -> &DMatrix<f64> {
        &self.points
    }

    /// On a finite domain, the candidate index of each latent point (`None` for points on a box).
    pub fn candidate_indices(&self) -> Option<&[usize]> {
        self.candidates.as_deref()
    }

    /// The aggregated duels, sorted by (i, j).
    pub fn pairs(&self) -> &[PairCounts] {
        &self.pairs
    }

    /// The number of duels given (including dropped self-duels).
    pub fn duels(&self) -> usize {
        self.duels
    }

    /// The number of self-duels dropped (see the type's documentation).
    pub fn dropped_self_duels(&self) -> usize {
        self.dropped_self_duels
    }

    /// The number n of latent points.
    pub fn len(&self) -> usize {
        self.points.nrows()
    }

    /// True if no point was compared.
    pub fn is_empty(&self) -> bool {
        self.points.nrows() == 0
    }

    /// The input dimension d.
    pub fn dim(&self) -> usize {
        self.points.ncols()
    }
}
