//! The comparisons of a Laplace preference GP: the distinct compared points (the latent
//! utilities' locations), the duels aggregated per unordered pair and the best-of-k choices
//! aggregated per set of options.

use bohf_core::{Comparison, Duel, Error, Result};
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

/// Best-of-k choices among one set of distinct latent points, aggregated: every choice whose
/// options are these latent points (with these multiplicities) adds one win to the option chosen.
/// The likelihood of the block is Π_u P(u)^{wins[u]} with the multinomial logit (Plackett–Luce
/// top-1) P(u) = m_u exp(f_u/s) / Σ_v m_v exp(f_v/s) ([`bohf_core::link::choice_log_probability`]
/// at the utilities f_u + s log m_u), so repeated choices among the same options add one k×k
/// block to W, not one per choice. With merged options (m_u > 1), P(u) is the probability that
/// one of the m_u merged options is chosen: the probability of the one shown option that was
/// chosen is P(u)/m_u, a constant factor that the evidence excludes (as it excludes the log ½ of a
/// dropped self-duel).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceCounts {
    /// The distinct latent indices of the options, ascending (at least 2).
    pub options: Vec<usize>,
    /// m_u: how many of the options shown are latent point `options[u]` (1, unless near-duplicate
    /// options of one choice were merged on a box).
    pub multiplicity: Vec<u32>,
    /// How many of the choices chose (an option merged into) `options[u]`.
    pub wins: Vec<u32>,
}

impl ChoiceCounts {
    /// The number of choices aggregated, N = Σ_u wins[u].
    pub fn total(&self) -> u32 {
        self.wins.iter().sum()
    }

    /// The utility offsets s log m_u of the options (0 for an option shown once).
    pub fn offsets(&self, scale: f64) -> Vec<f64> {
        self.multiplicity.iter().map(|&m| if m == 1 { 0.0 } else { scale * f64::from(m).ln() }).collect()
    }
}

/// A comparison mapped to latent indices.
enum Mapped {
    Duel(usize, usize, bool),
    Choice(Vec<usize>, usize),
}

/// The data of a Laplace preference GP: n distinct points (the rows of [`PreferenceData::points`],
/// where the latent utilities f live), the duels between them, aggregated per unordered pair
/// ([`PairCounts`], sorted by (i, j)), and the best-of-k choices among them, aggregated per set of
/// options ([`ChoiceCounts`], sorted by options).
///
/// **Self-duels.** A duel whose two options are the same latent point (the same candidate, or two
/// points merged as near-duplicates) has likelihood μ(0) = ½ whatever f is: it carries no
/// information and contributes only the constant log ½ to the log-likelihood. Such duels are
/// **dropped** (counted in [`PreferenceData::dropped_self_duels`]); the evidence excludes their
/// constant. Likewise a choice whose options were all merged into one latent point (probability
/// 1/k whatever f) is dropped ([`PreferenceData::dropped_choices`]); a choice where only some options
/// were merged keeps them, with multiplicities ([`ChoiceCounts::multiplicity`]).
///
/// **Determinism.** Latent points are numbered in order of first appearance in the comparison
/// list and pairs and choice sets are kept in `BTreeMap`s, so the same comparisons give the same
/// matrices on every platform.
#[derive(Debug, Clone, PartialEq)]
pub struct PreferenceData {
    points: DMatrix<f64>,
    candidates: Option<Vec<usize>>,
    pairs: Vec<PairCounts>,
    choices: Vec<ChoiceCounts>,
    duels: usize,
    dropped_self_duels: usize,
    choice_count: usize,
    dropped_choices: usize,
}

impl PreferenceData {
    /// Duels on a finite domain: `candidates` (N×d, one candidate per row) and duels by candidate
    /// index. The latent points are the distinct compared candidates (identified by index; two
    /// candidates with equal coordinates stay two points, which the Laplace factorisation
    /// tolerates: K is never factorised, only B = I + Gᵀ K G, whose eigenvalues are ≥ 1).
    ///
    /// Errors: an index beyond the candidate set, non-finite candidate coordinates.
    pub fn from_candidates(candidates: &DMatrix<f64>, duels: &[Duel]) -> Result<Self> {
        let comparisons: Vec<Comparison> = duels.iter().map(|&d| d.into()).collect();
        Self::from_candidate_comparisons(candidates, &comparisons)
    }

    /// Duels and best-of-k choices on a finite domain, by candidate index, in the order they were
    /// answered ([`PreferenceData::from_candidates`] for the latent points).
    ///
    /// (A choice's options were checked when it was built, [`bohf_core::Choice::new`].)
    ///
    /// Errors: an index beyond the candidate set, non-finite candidate coordinates.
    pub fn from_candidate_comparisons(candidates: &DMatrix<f64>, comparisons: &[Comparison]) -> Result<Self> {
        bohf_core::error::ensure_finite("Laplace preference GP: candidate coordinates", candidates.iter())?;
        let n_cand = candidates.nrows();
        let mut latent_of: BTreeMap<usize, usize> = BTreeMap::new();
        let mut order: Vec<usize> = Vec::new();
        let mut mapped = Vec::with_capacity(comparisons.len());
        for (k, comparison) in comparisons.iter().enumerate() {
            let mut latent = |c: usize| -> Result<usize> {
                if c >= n_cand {
                    return Err(Error::IndexOutOfRange {
                        context: format!("Laplace preference GP: comparison {k}, candidate set"),
                        index: c,
                        len: n_cand,
                    });
                }
                Ok(*latent_of.entry(c).or_insert_with(|| {
                    order.push(c);
                    order.len() - 1
                }))
            };
            mapped.push(match comparison {
                Comparison::Duel(d) => Mapped::Duel(latent(d.first)?, latent(d.second)?, d.first_wins),
                Comparison::Choice(c) => {
                    let opts = c.options().iter().map(|&o| latent(o)).collect::<Result<Vec<_>>>()?;
                    Mapped::Choice(opts, c.chosen())
                }
            });
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
        let comparisons: Vec<Comparison<Vec<f64>>> = duels
            .iter()
            .map(|(x, y, w)| Comparison::Duel(Duel { first: x.clone(), second: y.clone(), first_wins: *w }))
            .collect();
        Self::from_point_comparisons(&comparisons, tolerance)
    }

    /// Duels and best-of-k choices between points of ℝ^d, in the order they were answered, merged
    /// within `tolerance` as by [`PreferenceData::from_points`].
    ///
    /// (A choice's options were checked when it was built, [`bohf_core::Choice::new`].)
    ///
    /// Errors: as [`PreferenceData::from_points`].
    pub fn from_point_comparisons(comparisons: &[Comparison<Vec<f64>>], tolerance: f64) -> Result<Self> {
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(Error::invalid("merge_tolerance", format!("must be finite and ≥ 0, got {tolerance}")));
        }
        let d = comparisons.first().map_or(0, |c| match c {
            Comparison::Duel(d) => d.first.len(),
            Comparison::Choice(c) => c.options().first().map_or(0, Vec::len),
        });
        let mut rows: Vec<Vec<f64>> = Vec::new();
        let mut mapped = Vec::with_capacity(comparisons.len());
        for (k, comparison) in comparisons.iter().enumerate() {
            let mut latent = |p: &Vec<f64>, which: &str| -> Result<usize> {
                if p.len() != d {
                    return Err(Error::dims(
                        format!("Laplace preference GP: comparison {k}, {which} point dimension"),
                        d,
                        p.len(),
                    ));
                }
                bohf_core::error::ensure_finite(
                    &format!("Laplace preference GP: comparison {k}, {which} point"),
                    p.iter(),
                )?;
                let close = |r: &Vec<f64>| r.iter().zip(p).all(|(u, v)| (u - v).abs() <= tolerance);
                Ok(match rows.iter().position(close) {
                    Some(i) => i,
                    None => {
                        rows.push(p.clone());
                        rows.len() - 1
                    }
                })
            };
            mapped.push(match comparison {
                Comparison::Duel(d) => {
                    Mapped::Duel(latent(&d.first, "first")?, latent(&d.second, "second")?, d.first_wins)
                }
                Comparison::Choice(c) => {
                    let opts = c
                        .options()
                        .iter()
                        .enumerate()
                        .map(|(j, x)| latent(x, &format!("option {j}")))
                        .collect::<Result<Vec<_>>>()?;
                    Mapped::Choice(opts, c.chosen())
                }
            });
        }
        let points = DMatrix::from_fn(rows.len(), d, |r, c| rows[r][c]);
        Ok(Self::aggregate(points, &mapped))
    }

    fn aggregate(points: DMatrix<f64>, mapped: &[Mapped]) -> Self {
        let mut counts: BTreeMap<(usize, usize), (u32, u32)> = BTreeMap::new();
        let mut sets: BTreeMap<(Vec<usize>, Vec<u32>), Vec<u32>> = BTreeMap::new();
        let (mut duels, mut dropped, mut choice_count, mut dropped_choices) = (0, 0, 0, 0);
        for m in mapped {
            match *m {
                Mapped::Duel(a, b, first_wins) => {
                    duels += 1;
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
                Mapped::Choice(ref opts, chosen) => {
                    choice_count += 1;
                    let mut distinct: Vec<usize> = opts.clone();
                    distinct.sort_unstable();
                    distinct.dedup();
                    if distinct.len() < 2 {
                        dropped_choices += 1;
                        continue;
                    }
                    let multiplicity: Vec<u32> =
                        distinct.iter().map(|u| opts.iter().filter(|&o| o == u).count() as u32).collect();
                    let winner = distinct.binary_search(&opts[chosen]).unwrap_or_default();
                    let k = distinct.len();
                    let wins = sets.entry((distinct, multiplicity)).or_insert_with(|| vec![0; k]);
                    wins[winner] += 1;
                }
            }
        }
        let pairs = counts.into_iter().map(|((i, j), (wi, wj))| PairCounts { i, j, wins_i: wi, wins_j: wj }).collect();
        let choices = sets
            .into_iter()
            .map(|((options, multiplicity), wins)| ChoiceCounts { options, multiplicity, wins })
            .collect();
        Self {
            points,
            candidates: None,
            pairs,
            choices,
            duels,
            dropped_self_duels: dropped,
            choice_count,
            dropped_choices,
        }
    }

    /// The aggregated best-of-k choices, sorted by (options, multiplicity).
    pub fn choices(&self) -> &[ChoiceCounts] {
        &self.choices
    }

    /// The number of choices given (including dropped ones).
    pub fn choice_count(&self) -> usize {
        self.choice_count
    }

    /// The number of choices dropped because all their options are one latent point.
    pub fn dropped_choices(&self) -> usize {
        self.dropped_choices
    }

    /// True if some duel or choice compares distinct latent points (otherwise the likelihood does
    /// not depend on f, the posterior is the prior and the evidence is constant).
    pub fn is_informative(&self) -> bool {
        !self.pairs.is_empty() || !self.choices.is_empty()
    }

    /// The difference rows of W: (i, j) per aggregated duel pair, then per choice block the pairs
    /// (options[u], options[v]), u < v. The Hessian of a choice block is
    /// N Sᵀ(diag(p) − ppᵀ)S/s² = Σ_{u<v} (N p_u p_v/s²)(e_u − e_v)(e_u − e_v)ᵀ, so W is
    /// Dᵀ diag(w) D with D these rows (see the module doc of [`super`]).
    pub fn difference_rows(&self) -> Vec<(usize, usize)> {
        let mut rows: Vec<(usize, usize)> = self.pairs.iter().map(|p| (p.i, p.j)).collect();
        for c in &self.choices {
            for (u, &a) in c.options.iter().enumerate() {
                rows.extend(c.options[u + 1..].iter().map(|&b| (a, b)));
            }
        }
        rows
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

    /// The number of duels given (including dropped self-duels; choices not included).
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
