//! Search domains: a finite candidate set (the papers' experiments) or an axis-aligned box.

use crate::error::{Error, Result};
use crate::optimizer::{Answer, Duel, Point, Query};
use nalgebra::DMatrix;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

/// A finite candidate set X = {x_1, …, x_n} ⊂ ℝ^d, stored as an n×d matrix (one candidate a row).
///
/// Algorithms work on candidate indices so that Gram matrices over X are computed once.
#[derive(Debug, Clone, PartialEq)]
pub struct FiniteDomain {
    points: DMatrix<f64>,
    names: Option<Vec<String>>,
}

impl FiniteDomain {
    /// A candidate set from an n×d matrix of finite values, n ≥ 1 and d ≥ 1.
    pub fn new(points: DMatrix<f64>) -> Result<Self> {
        if points.nrows() == 0 {
            return Err(Error::Empty("finite domain has no candidates".into()));
        }
        if points.ncols() == 0 {
            return Err(Error::Empty("finite domain candidates have dimension 0".into()));
        }
        crate::error::ensure_finite("finite domain candidates", points.iter())?;
        Ok(Self { points, names: None })
    }

    /// A candidate set from rows of equal length.
    pub fn from_rows(rows: &[Vec<f64>]) -> Result<Self> {
        let d = rows.first().map(Vec::len).ok_or_else(|| Error::Empty("finite domain has no candidates".into()))?;
        for (i, r) in rows.iter().enumerate() {
            if r.len() != d {
                return Err(Error::dims(format!("finite domain row {i}"), d, r.len()));
            }
        }
        Self::new(DMatrix::from_fn(rows.len(), d, |i, j| rows[i][j]))
    }

    /// The 1-D grid `linspace(lo, hi, n)` used by the papers' experiments (e.g. 100 points of [0, 1]).
    pub fn linspace(lo: f64, hi: f64, n: usize) -> Result<Self> {
        if n == 0 {
            return Err(Error::invalid("n", "a grid needs at least one point"));
        }
        if !(lo.is_finite() && hi.is_finite()) || hi < lo {
            return Err(Error::invalid("bounds", format!("need finite lo <= hi, got [{lo}, {hi}]")));
        }
        let step = if n > 1 { (hi - lo) / (n - 1) as f64 } else { 0.0 };
        Self::new(DMatrix::from_fn(n, 1, |i, _| if i + 1 == n { hi } else { lo + step * i as f64 }))
    }

    /// The bounding box of the candidates, for scaling inputs to [0, 1]^d (COBOL, COMP-GP-UCB): per
    /// coordinate [min, max], or [v − ½, v + ½] where every candidate has the same value v.
    pub fn bounding_box(&self) -> Result<BoxDomain> {
        let p = &self.points;
        let (mut lo, mut hi) = (Vec::with_capacity(p.ncols()), Vec::with_capacity(p.ncols()));
        for col in p.column_iter() {
            let (a, b) = (col.min(), col.max());
            if b > a {
                lo.push(a);
                hi.push(b);
            } else {
                lo.push(a - 0.5);
                hi.push(a + 0.5);
            }
        }
        BoxDomain::new(lo, hi)
    }

    /// Attaches a name to each candidate (e.g. catalyst compositions, restaurant names).
    pub fn with_names(mut self, names: Vec<String>) -> Result<Self> {
        if names.len() != self.len() {
            return Err(Error::dims("candidate names", self.len(), names.len()));
        }
        self.names = Some(names);
        Ok(self)
    }

    /// Number of candidates n.
    pub fn len(&self) -> usize {
        self.points.nrows()
    }

    /// Always false: a finite domain has at least one candidate.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Dimension d of each candidate.
    pub fn dim(&self) -> usize {
        self.points.ncols()
    }

    /// The n×d matrix of candidates.
    pub fn points(&self) -> &DMatrix<f64> {
        &self.points
    }

    /// Candidate names, if any.
    pub fn names(&self) -> Option<&[String]> {
        self.names.as_deref()
    }

    /// The coordinates of candidate `i`.
    pub fn coords(&self, i: usize) -> Result<Vec<f64>> {
        self.check_index(i)?;
        Ok(self.points.row(i).iter().copied().collect())
    }

    /// Candidate `i` as a [`Point`] that carries its index.
    pub fn point(&self, i: usize) -> Result<Point> {
        Ok(Point::candidate(i, self.coords(i)?))
    }

    /// The candidate index a query point carries, checked: the index must be present and in range,
    /// and the coordinates must be exactly those of that candidate. `which` names the point in the
    /// error (e.g. "first"); errors name `query` (or are [`Error::IndexOutOfRange`]).
    pub fn candidate_index(&self, p: &Point, which: &str) -> Result<usize> {
        let i =
            p.index.ok_or_else(|| Error::invalid("query", format!("the {which} point carries no candidate index")))?;
        self.check_index(i)?;
        if p.coords.len() != self.dim() || p.coords.iter().zip(self.points.row(i).iter()).any(|(a, b)| a != b) {
            return Err(Error::invalid(
                "query",
                format!("the coordinates of the {which} point {:?} are not those of candidate {i}", p.coords),
            ));
        }
        Ok(i)
    }

    /// The [`Duel`] (candidate indices and outcome) of an answered duel query, checked: the query
    /// must be a duel ([`Query::duel_points`]; `asker` names the algorithm in the error), the answer
    /// a duel answer ([`Answer::duel_outcome`]), both points candidates
    /// ([`FiniteDomain::candidate_index`]), and, if a suggestion is `pending`, the pair must be it
    /// ([`crate::check_pending`]). The one parser of duel steps of the finite-domain algorithms.
    pub fn answered_duel(
        &self,
        query: &Query,
        answer: &Answer,
        pending: Option<(usize, usize)>,
        asker: &str,
    ) -> Result<Duel> {
        let (p, q) = query.duel_points(asker)?;
        let first_wins = answer.duel_outcome()?;
        let duel = Duel::new(self.candidate_index(p, "first")?, self.candidate_index(q, "second")?, first_wins);
        crate::optimizer::check_pending(pending, duel.pair())?;
        Ok(duel)
    }

    /// The duels of a history of (query, answer) steps, each checked as by
    /// [`FiniteDomain::answered_duel`] (the first against `pending`, the others against nothing);
    /// errors say which history entry is wrong ([`Error::in_history_entry`]). For
    /// [`crate::Optimizer::observe_batch`] overrides that refit once for the whole batch.
    pub fn answered_duels(
        &self,
        steps: &[(Query, Answer)],
        pending: Option<(usize, usize)>,
        asker: &str,
    ) -> Result<Vec<Duel>> {
        steps
            .iter()
            .enumerate()
            .map(|(k, (q, a))| {
                self.answered_duel(q, a, if k == 0 { pending } else { None }, asker).map_err(|e| e.in_history_entry(k))
            })
            .collect()
    }

    /// A duel of two distinct candidates drawn uniformly: i uniform over the n candidates, then j
    /// uniform over the other n − 1 (two draws `random_range`). An error for fewer than two
    /// candidates.
    pub fn random_duel(&self, rng: &mut (impl Rng + ?Sized)) -> Result<Query> {
        let n = self.len();
        if n < 2 {
            return Err(Error::invalid(
                "candidates",
                format!("a duel of two distinct candidates needs at least 2, got {n}"),
            ));
        }
        let i = rng.random_range(0..n);
        let mut j = rng.random_range(0..n - 1);
        if j >= i {
            j += 1;
        }
        Ok(Query::Duel(self.point(i)?, self.point(j)?))
    }

    /// Errors unless `i < n`.
    pub fn check_index(&self, i: usize) -> Result<()> {
        if i < self.len() {
            Ok(())
        } else {
            Err(Error::IndexOutOfRange { context: "finite domain".into(), index: i, len: self.len() })
        }
    }
}

/// An axis-aligned box ∏_j [lower_j, upper_j] ⊂ ℝ^d.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoxDomain {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl BoxDomain {
    /// A box with finite bounds, lower_j < upper_j for every dimension.
    pub fn new(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self> {
        if lower.is_empty() {
            return Err(Error::Empty("box domain has dimension 0".into()));
        }
        if lower.len() != upper.len() {
            return Err(Error::dims("box domain bounds (upper vs lower)", lower.len(), upper.len()));
        }
        for (j, (&l, &u)) in lower.iter().zip(&upper).enumerate() {
            if !(l.is_finite() && u.is_finite() && l < u) {
                return Err(Error::invalid(
                    format!("bounds[{j}]"),
                    format!("need finite lower < upper, got [{l}, {u}]"),
                ));
            }
        }
        Ok(Self { lower, upper })
    }

    /// The cube [lo, hi]^d.
    pub fn cube(lo: f64, hi: f64, d: usize) -> Result<Self> {
        Self::new(vec![lo; d], vec![hi; d])
    }

    /// Dimension d.
    pub fn dim(&self) -> usize {
        self.lower.len()
    }

    /// Lower bounds.
    pub fn lower(&self) -> &[f64] {
        &self.lower
    }

    /// Upper bounds.
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }

    /// Whether `x` lies in the box (bounds included).
    pub fn contains(&self, x: &[f64]) -> bool {
        x.len() == self.dim()
            && x.iter().zip(self.lower.iter().zip(&self.upper)).all(|(v, (l, u))| *l <= *v && *v <= *u)
    }

    /// The coordinates of a query point, checked against the box: dimension d, finite, and inside
    /// the box (bounds included). `which` names the point in the error (e.g. "first"); errors name
    /// `query` (or are [`Error::DimensionMismatch`]). The one check of a box-mode `observe`.
    pub fn checked_point<'a>(&self, p: &'a Point, which: &str) -> Result<&'a [f64]> {
        if p.coords.len() != self.dim() {
            return Err(Error::dims(format!("the {which} point of the query"), self.dim(), p.coords.len()));
        }
        if !self.contains(&p.coords) {
            return Err(Error::invalid("query", format!("the {which} point {:?} is outside the box {self}", p.coords)));
        }
        Ok(&p.coords)
    }

    /// The point at unit-cube coordinates `u`: lower + u ⊙ (upper − lower), clamped into the box.
    /// The one map from the unit cube to a box (every box proposal of an algorithm that searches
    /// the unit cube goes through it): in floating point, lower + 1 · (upper − lower) can round past
    /// upper (`[-4.999999, 9.999999]` gives 9.999999000000003, issue 33), and the clamp puts it back.
    pub fn from_unit(&self, u: &[f64]) -> Vec<f64> {
        u.iter().zip(self.lower.iter().zip(&self.upper)).map(|(v, (l, h))| (l + v * (h - l)).clamp(*l, *h)).collect()
    }

    /// The unit-cube coordinates of `x`: (x − lower) ⊘ (upper − lower), the inverse of
    /// [`BoxDomain::from_unit`] (no clamp: a point outside the box maps outside the unit cube).
    /// The box's corners map to exactly 0 and 1.
    pub fn to_unit(&self, x: &[f64]) -> Vec<f64> {
        x.iter().zip(self.lower.iter().zip(&self.upper)).map(|(v, (l, h))| (v - l) / (h - l)).collect()
    }

    /// `x` clamped into the box, coordinate by coordinate.
    pub fn clamp(&self, x: &mut [f64]) {
        for (v, (l, h)) in x.iter_mut().zip(self.lower.iter().zip(&self.upper)) {
            *v = v.clamp(*l, *h);
        }
    }

    /// A uniform draw from the box ([`BoxDomain::from_unit`] of a uniform draw from the unit cube).
    pub fn sample(&self, rng: &mut (impl Rng + ?Sized)) -> Vec<f64> {
        let u: Vec<f64> = (0..self.dim()).map(|_| rng.random::<f64>()).collect();
        self.from_unit(&u)
    }

    /// A duel of two independent uniform draws from the box (first point drawn first).
    pub fn random_duel(&self, rng: &mut (impl Rng + ?Sized)) -> Query {
        let first = Point::continuous(self.sample(rng));
        Query::Duel(first, Point::continuous(self.sample(rng)))
    }

    /// `n` uniform draws as a finite candidate set (rows), e.g. a per-round discretisation.
    pub fn sample_candidates(&self, n: usize, rng: &mut (impl Rng + ?Sized)) -> Result<FiniteDomain> {
        if n == 0 {
            return Err(Error::invalid("n", "need at least one candidate"));
        }
        let rows: Vec<Vec<f64>> = (0..n).map(|_| self.sample(rng)).collect();
        FiniteDomain::from_rows(&rows)
    }

    /// The full tensor grid with `per_dim` points per dimension (bounds included), in row-major
    /// order with the last dimension varying fastest.
    pub fn grid(&self, per_dim: usize) -> Result<FiniteDomain> {
        if per_dim < 2 {
            return Err(Error::invalid(
                "per_dim",
                format!("a grid needs at least 2 points per dimension, got {per_dim}"),
            ));
        }
        let d = self.dim();
        let total = per_dim
            .checked_pow(d as u32)
            .filter(|&t| t <= 50_000_000)
            .ok_or_else(|| Error::invalid("per_dim", format!("{per_dim}^{d} grid points is too many")))?;
        let mut m = DMatrix::zeros(total, d);
        for row in 0..total {
            let mut rem = row;
            for j in (0..d).rev() {
                let k = rem % per_dim;
                rem /= per_dim;
                let t = k as f64 / (per_dim - 1) as f64;
                m[(row, j)] =
                    if k + 1 == per_dim { self.upper[j] } else { self.lower[j] + t * (self.upper[j] - self.lower[j]) };
            }
        }
        FiniteDomain::new(m)
    }
}

/// A search domain.
#[derive(Debug, Clone, PartialEq)]
pub enum Domain {
    /// A finite candidate set.
    Finite(FiniteDomain),
    /// A continuous box.
    Box(BoxDomain),
}

impl Domain {
    /// Dimension d of the points.
    pub fn dim(&self) -> usize {
        match self {
            Domain::Finite(f) => f.dim(),
            Domain::Box(b) => b.dim(),
        }
    }

    /// A uniformly random duel: two distinct candidates ([`FiniteDomain::random_duel`]) or two
    /// uniform points of the box ([`BoxDomain::random_duel`]).
    pub fn random_duel(&self, rng: &mut (impl Rng + ?Sized)) -> Result<Query> {
        match self {
            Domain::Finite(f) => f.random_duel(rng),
            Domain::Box(b) => Ok(b.random_duel(rng)),
        }
    }

    /// The kind of domain.
    pub fn kind(&self) -> DomainKind {
        match self {
            Domain::Finite(_) => DomainKind::Finite,
            Domain::Box(_) => DomainKind::Box,
        }
    }
}

impl std::fmt::Display for Domain {
    /// "a finite candidate set of n points in d dimensions", or "a box [l, u] × …".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Domain::Finite(c) => write!(f, "a finite candidate set of {} points in {} dimensions", c.len(), c.dim()),
            Domain::Box(b) => write!(f, "a box {b}"),
        }
    }
}

impl std::fmt::Display for BoxDomain {
    /// The sides, `[l₁, u₁] × [l₂, u₂] × …`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sides: Vec<String> = self.lower.iter().zip(&self.upper).map(|(l, u)| format!("[{l}, {u}]")).collect();
        f.write_str(&sides.join(" × "))
    }
}

impl From<FiniteDomain> for Domain {
    fn from(d: FiniteDomain) -> Self {
        Domain::Finite(d)
    }
}

impl From<BoxDomain> for Domain {
    fn from(d: BoxDomain) -> Self {
        Domain::Box(d)
    }
}

/// The kind of a [`Domain`]: what an algorithm declares it works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DomainKind {
    /// A finite candidate set ([`FiniteDomain`]).
    Finite,
    /// A continuous box ([`BoxDomain`]).
    Box,
}

impl std::fmt::Display for DomainKind {
    /// "a finite candidate set" or "a box".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DomainKind::Finite => "a finite candidate set",
            DomainKind::Box => "a box",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn random_duels_are_distinct_uniform_candidates_or_points_of_the_box() {
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(3);
        let d = FiniteDomain::linspace(0.0, 1.0, 3).unwrap();
        let mut counts = [[0usize; 3]; 3];
        for _ in 0..6000 {
            let Query::Duel(x, y) = Domain::Finite(d.clone()).random_duel(&mut rng).unwrap() else { panic!() };
            counts[x.index.unwrap()][y.index.unwrap()] += 1;
        }
        // Never a self-duel; each of the 6 ordered pairs about 1000 times (binomial s.d. ≈ 29).
        for (i, row) in counts.iter().enumerate() {
            for (j, &c) in row.iter().enumerate() {
                if i == j {
                    assert_eq!(c, 0);
                } else {
                    assert!((850..=1150).contains(&c), "{counts:?}");
                }
            }
        }
        let one = FiniteDomain::linspace(0.0, 1.0, 1).unwrap();
        let e = one.random_duel(&mut rng).unwrap_err().to_string();
        assert!(e.contains("candidates") && e.contains("at least 2"), "{e}");
        let b = BoxDomain::new(vec![-1.0, 2.0], vec![0.0, 5.0]).unwrap();
        for _ in 0..100 {
            let Query::Duel(x, y) = Domain::Box(b.clone()).random_duel(&mut rng).unwrap() else { panic!() };
            assert!(b.contains(&x.coords) && b.contains(&y.coords) && x.coords != y.coords);
        }
    }

    #[test]
    fn bounding_box_spans_the_candidates_and_widens_a_flat_coordinate() {
        let d = FiniteDomain::from_rows(&[vec![0.2, 3.0], vec![-1.0, 3.0], vec![0.5, 3.0]]).unwrap();
        let b = d.bounding_box().unwrap();
        assert_eq!(b.lower(), &[-1.0, 2.5]);
        assert_eq!(b.upper(), &[0.5, 3.5]);
    }

    #[test]
    fn linspace_and_grid() {
        let g = FiniteDomain::linspace(0.0, 1.0, 100).unwrap();
        assert_eq!(g.len(), 100);
        assert_eq!(g.coords(99).unwrap(), vec![1.0]);
        assert!((g.coords(1).unwrap()[0] - 1.0 / 99.0).abs() < 1e-15);
        let b = BoxDomain::new(vec![-5.0, 0.0], vec![10.0, 15.0]).unwrap();
        let grid = b.grid(3).unwrap();
        assert_eq!(grid.len(), 9);
        assert_eq!(grid.coords(0).unwrap(), vec![-5.0, 0.0]);
        assert_eq!(grid.coords(1).unwrap(), vec![-5.0, 7.5]);
        assert_eq!(grid.coords(8).unwrap(), vec![10.0, 15.0]);
    }

    #[test]
    fn bad_domains_are_errors() {
        assert!(matches!(BoxDomain::new(vec![1.0], vec![0.0]), Err(Error::InvalidParameter { .. })));
        assert!(matches!(BoxDomain::new(vec![0.0, 0.0], vec![1.0]), Err(Error::DimensionMismatch { .. })));
        assert!(matches!(FiniteDomain::from_rows(&[vec![0.0], vec![f64::NAN]]), Err(Error::NonFinite(_))));
        assert!(matches!(FiniteDomain::from_rows(&[vec![0.0], vec![1.0, 2.0]]), Err(Error::DimensionMismatch { .. })));
        let g = FiniteDomain::linspace(0.0, 1.0, 3).unwrap();
        assert!(matches!(g.point(3), Err(Error::IndexOutOfRange { index: 3, len: 3, .. })));
    }

    #[test]
    fn answered_duel_checks_index_coordinates_kinds_and_pending() {
        let g = FiniteDomain::linspace(0.0, 1.0, 3).unwrap();
        let win = Answer::Duel { first_wins: true };
        let q = Query::Duel(g.point(2).unwrap(), g.point(0).unwrap());
        assert_eq!(g.answered_duel(&q, &win, None, "X").unwrap(), Duel::new(2, 0, true));
        assert_eq!(g.answered_duel(&q, &win, Some((2, 0)), "X").unwrap(), Duel::new(2, 0, true));
        let e = g.answered_duel(&q, &win, Some((0, 2)), "X").unwrap_err().to_string();
        assert!(e.contains("does not match the pending suggestion (0, 2)"), "{e}");
        assert!(g.answered_duel(&q, &Answer::Value(1.0), None, "X").unwrap_err().to_string().contains("`answer`"));
        let moved = Query::Duel(Point::candidate(1, vec![0.7]), g.point(0).unwrap());
        assert!(g.answered_duel(&moved, &win, None, "X").is_err());
        let bare = Query::Duel(Point::continuous(vec![0.5]), g.point(0).unwrap());
        assert!(g.answered_duel(&bare, &win, None, "X").is_err());
        let eval = Query::Evaluate(g.point(0).unwrap());
        let e = g.answered_duel(&eval, &win, None, "X").unwrap_err();
        assert!(e.to_string().contains("X asks duels"));
    }

    #[test]
    fn answered_duels_check_the_first_step_against_pending_and_name_the_bad_entry() {
        let g = FiniteDomain::linspace(0.0, 1.0, 4).unwrap();
        let step = |i, j, w| (Query::Duel(g.point(i).unwrap(), g.point(j).unwrap()), Answer::Duel { first_wins: w });
        let steps = [step(1, 2, true), step(3, 3, false), step(0, 1, true)];
        let duels = g.answered_duels(&steps, Some((1, 2)), "X").unwrap();
        assert_eq!(duels, vec![Duel::new(1, 2, true), Duel::new(3, 3, false), Duel::new(0, 1, true)]);
        // The pending pair constrains only the first step.
        assert!(g.answered_duels(&steps, Some((0, 1)), "X").is_err());
        let mut bad = steps.to_vec();
        bad[2].1 = Answer::Value(0.0);
        let e = g.answered_duels(&bad, None, "X").unwrap_err().to_string();
        assert!(e.contains("history entry 2"), "{e}");
    }

    /// Issue 33, item 13: the unit-cube map stays in the box where plain arithmetic leaves it.
    #[test]
    fn from_unit_clamps_into_the_box() {
        let b = BoxDomain::new(vec![-4.999999, 1e-6], vec![9.999999, 14.999999]).unwrap();
        let (l, h) = (-4.999999f64, 9.999999f64);
        assert!(l + 1.0 * (h - l) > h, "the rounding this test is about: {}", l + (h - l));
        assert_eq!(b.from_unit(&[1.0, 0.0]), vec![9.999999, 1e-6]);
        assert_eq!(b.from_unit(&[0.0, 1.0]), vec![-4.999999, 14.999999]);
        assert_eq!(b.from_unit(&[1.5, -0.5]), vec![9.999999, 1e-6], "outside the cube: clamped");
        let mut x = [10.0, -1.0];
        b.clamp(&mut x);
        assert_eq!(x, [9.999999, 1e-6]);
        let mut rng = crate::rng::seeded(7);
        assert!((0..1000).all(|_| b.contains(&b.sample(&mut rng))));
    }

    /// Branin's box [−5, 10] × [0, 15]: (x − l)/(h − l) by hand; the corners give exactly 0 and 1.
    #[test]
    fn to_unit_inverts_from_unit() {
        let b = BoxDomain::new(vec![-5.0, 0.0], vec![10.0, 15.0]).unwrap();
        assert_eq!(b.to_unit(&[-5.0, 15.0]), vec![0.0, 1.0]);
        assert_eq!(b.to_unit(&[2.5, 3.0]), vec![0.5, 0.2]);
        assert_eq!(b.to_unit(&[25.0, -15.0]), vec![2.0, -1.0], "outside the box: outside the cube, not clamped");
        let u = b.to_unit(&[1.0, 7.0]);
        let back = b.from_unit(&u);
        assert!((back[0] - 1.0).abs() < 1e-14 && (back[1] - 7.0).abs() < 1e-14, "{back:?}");
    }

    #[test]
    fn checked_point_refuses_points_outside_the_box_naming_the_query() {
        let b = BoxDomain::new(vec![0.0, -1.0], vec![1.0, 1.0]).unwrap();
        assert_eq!(b.checked_point(&Point::continuous(vec![1.0, -1.0]), "first").unwrap(), &[1.0, -1.0]);
        let e = b.checked_point(&Point::continuous(vec![0.5, 1.5]), "second").unwrap_err().to_string();
        assert!(
            e.contains("`query`") && e.contains("second point [0.5, 1.5] is outside the box [0, 1] × [-1, 1]"),
            "{e}"
        );
        assert!(b.checked_point(&Point::continuous(vec![f64::NAN, 0.0]), "first").is_err());
        let e = b.checked_point(&Point::continuous(vec![0.5]), "first").unwrap_err();
        assert!(matches!(e, Error::DimensionMismatch { expected: 2, got: 1, .. }), "{e}");
        assert_eq!(Domain::from(b).to_string(), "a box [0, 1] × [-1, 1]");
        assert_eq!(DomainKind::Finite.to_string(), "a finite candidate set");
    }

    #[test]
    fn box_samples_stay_inside() {
        let b = BoxDomain::cube(-1.0, 2.0, 3).unwrap();
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(1);
        for _ in 0..1000 {
            assert!(b.contains(&b.sample(&mut rng)));
        }
    }
}
