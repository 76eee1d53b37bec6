//! Each rule's choice of the next query: the screened pair (or q-subset) search on a finite
//! candidate set, the search over the box, and the acquisition objective of the box search.

use super::*;

impl LaplaceBo {
    /// largest m + σ (ties: lower index) with the argmax of m put in place of the last if missing;
    /// in increasing index order.
    pub(super) fn screened(m: &DVector<f64>, v: &DVector<f64>, screen: usize) -> Result<Vec<usize>> {
        let n = m.len();
        if n <= screen {
            return Ok((0..n).collect());
        }
        let score: Vec<f64> = (0..n).map(|i| m[i] + v[i].max(0.0).sqrt()).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
        order.truncate(screen);
        let best = argmax_lowest(m.iter().copied())?;
        if !order.contains(&best) {
            order[screen - 1] = best;
        }
        order.sort_unstable();
        Ok(order)
    }

    /// (first, second, acquisition value, evaluations) on the candidates (EUBO, qEUBO at q = 2, DTS).
    pub(super) fn finite_choice(
        &self,
        gp: &LaplacePreferenceGp,
        unit: &DMatrix<f64>,
        rng: &mut dyn Rng,
    ) -> Result<(usize, usize, f64, usize)> {
        let screen = match self.rule {
            Rule::Eubo { pair_screen } | Rule::Qeubo { pair_screen, .. } => pair_screen,
            Rule::Dts { .. } => return self.dts_choice(gp, unit, rng),
        };
        let m = gp.mean(unit)?;
        let v = gp.variance(unit)?;
        let idx = Self::screened(&m, &v, screen)?;
        let sub = DMatrix::from_fn(idx.len(), unit.ncols(), |r, c| unit[(idx[r], c)]);
        let ms = DVector::from_fn(idx.len(), |r, _| m[idx[r]]);
        let cov = gp.covariance(&sub)?;
        let k = idx.len();
        let pairs = (0..k).flat_map(|p| (p + 1..k).map(move |q| (p, q)));
        let ((p, q), value) = match self.rule {
            Rule::Qeubo { mc_samples, .. } => {
                let z = base_samples(2, mc_samples, rng);
                let mut scored = Vec::with_capacity(k * (k - 1) / 2);
                for (p, q) in pairs {
                    let mean = DVector::from_vec(vec![ms[p], ms[q]]);
                    let c = DMatrix::from_row_slice(2, 2, &[cov[(p, p)], cov[(p, q)], cov[(q, p)], cov[(q, q)]]);
                    scored.push(((p, q), qeubo_mc(&mean, &c, &z)?));
                }
                argmax_lowest_by("qEUBO over candidate pairs", scored)?
            }
            _ => argmax_lowest_by(
                "EUBO over candidate pairs",
                pairs
                    .map(|(p, q)| ((p, q), expected_max_of_two(ms[p], ms[q], cov[(p, p)], cov[(q, q)], cov[(p, q)]).0)),
            )?,
        };
        Ok((idx[p], idx[q], value, k * (k - 1) / 2))
    }

    /// qEUBO's q ≥ 3 options on the candidates. With at most [`EXACT_SUBSETS`] q-subsets of the
    /// screened candidates (as [`LaplaceBo::finite_choice`] screens them), the exact argmax of the
    /// qEUBO estimate over them (each subset in increasing index order; ties: the first in
    /// lexicographic order). Otherwise a greedy rule with swaps: the exact best pair under the
    /// first two rows of the base samples; then, one at a time, the screened candidate whose
    /// addition maximises the qEUBO estimate of the enlarged set (under the first j rows of the same
    /// base samples; ties: the lowest index); then sweeps over the q positions replacing an option
    /// by the best other screened candidate when that raises the estimate (all q rows), until a
    /// sweep changes nothing (at most 10 sweeps): the result is a local optimum under single swaps.
    /// Returns (the options, the final qEUBO estimate, evaluations).
    pub(super) fn finite_options(
        &self,
        gp: &LaplacePreferenceGp,
        unit: &DMatrix<f64>,
        rng: &mut dyn Rng,
    ) -> Result<(Vec<usize>, f64, usize)> {
        let Rule::Qeubo { pair_screen, mc_samples, q } = self.rule else {
            return Err(Error::invalid("q", format!("{} asks duels only", self.name)));
        };
        let m = gp.mean(unit)?;
        let v = gp.variance(unit)?;
        let idx = Self::screened(&m, &v, pair_screen)?;
        let sub = DMatrix::from_fn(idx.len(), unit.ncols(), |r, c| unit[(idx[r], c)]);
        let ms = DVector::from_fn(idx.len(), |r, _| m[idx[r]]);
        let cov = gp.covariance(&sub)?;
        let k = idx.len();
        let z = base_samples(q, mc_samples, rng);
        let score = |set: &[usize], z: &DMatrix<f64>| {
            let mean = DVector::from_fn(set.len(), |r, _| ms[set[r]]);
            let c = DMatrix::from_fn(set.len(), set.len(), |r, c| cov[(set[r], set[c])]);
            qeubo_mc(&mean, &c, z)
        };
        if subsets_at_most(k, q, EXACT_SUBSETS) {
            // Every q-subset of the screened candidates, each in increasing order (lexicographic;
            // ties: the first).
            let mut scored = Vec::new();
            let mut set: Vec<usize> = (0..q).collect();
            loop {
                scored.push((set.clone(), score(&set, &z)?));
                // The next combination in lexicographic order.
                let Some(j) = (0..q).rev().find(|&j| set[j] < k - q + j) else { break };
                set[j] += 1;
                for l in j + 1..q {
                    set[l] = set[l - 1] + 1;
                }
            }
            let evaluations = scored.len();
            let (set, value) = argmax_lowest_by("qEUBO over candidate subsets", scored)?;
            return Ok((set.into_iter().map(|c| idx[c]).collect(), value, evaluations));
        }
        let z2 = z.rows(0, 2).into_owned();
        let mut scored = Vec::with_capacity(k * (k - 1) / 2);
        for p in 0..k {
            for r in p + 1..k {
                scored.push(((p, r), score(&[p, r], &z2)?));
            }
        }
        let ((p, r), mut value) = argmax_lowest_by("qEUBO over candidate pairs", scored)?;
        let mut evaluations = k * (k - 1) / 2;
        let mut set = vec![p, r];
        while set.len() < q {
            let zj = z.rows(0, set.len() + 1).into_owned();
            let mut scored = Vec::with_capacity(k);
            for c in (0..k).filter(|c| !set.contains(c)) {
                let mut larger = set.clone();
                larger.push(c);
                scored.push((c, score(&larger, &zj)?));
            }
            evaluations += scored.len();
            let (c, v) = argmax_lowest_by("qEUBO over candidate additions", scored)?;
            set.push(c);
            value = v;
        }
        // Swap sweeps: replace one option at a time by the screened candidate that most improves the
        // estimate (all q rows of z), until no single swap improves it (at most MAX_SWEEPS sweeps).
        const MAX_SWEEPS: usize = 10;
        for _ in 0..MAX_SWEEPS {
            let mut improved = false;
            for j in 0..q {
                let mut scored = Vec::with_capacity(k);
                for c in (0..k).filter(|c| !set.contains(c)) {
                    let mut swapped = set.clone();
                    swapped[j] = c;
                    scored.push((c, score(&swapped, &z)?));
                }
                evaluations += scored.len();
                if scored.is_empty() {
                    continue;
                }
                let (c, v) = argmax_lowest_by("qEUBO over candidate swaps", scored)?;
                if v > value {
                    set[j] = c;
                    value = v;
                    improved = true;
                }
            }
            if !improved {
                break;
            }
        }
        Ok((set.into_iter().map(|c| idx[c]).collect(), value, evaluations))
    }

    /// qEUBO's q ≥ 3 options on a box (unit coordinates): bohf-optim's multistart search over the
    /// q·d-dimensional product box ([`maximize_options_on_unit_box`]). An option equal to an
    /// earlier one within `merge_tolerance` in every unit coordinate (a search ending with two
    /// options on the same corner) is replaced by a uniform point of the cube, so that the choice
    /// shows q distinct options. Returns (options, qEUBO estimate, evaluations).
    pub(super) fn box_options(
        &self,
        gp: &LaplacePreferenceGp,
        search: Option<&MultistartConfig>,
        rng: &mut dyn Rng,
    ) -> Result<(Vec<Vec<f64>>, f64, usize)> {
        let Rule::Qeubo { mc_samples, q, .. } = self.rule else {
            return Err(Error::invalid("q", format!("{} asks duels only", self.name)));
        };
        let d = self.lo.len();
        let search = search.cloned().unwrap_or_default();
        let z = base_samples(q, mc_samples, rng);
        let best = maximize_options_on_unit_box(gp, q, Some(&z), &search, rng)?;
        let cube = BoxDomain::cube(0.0, 1.0, d)?;
        let tol = self.model_config.merge_tolerance;
        let mut options: Vec<Vec<f64>> = Vec::with_capacity(q);
        for chunk in best.x.chunks(d) {
            let mut x = chunk.to_vec();
            while options.iter().any(|o| o.iter().zip(&x).all(|(a, b)| (a - b).abs() <= tol)) {
                x = cube.sample(rng);
            }
            options.push(x);
        }
        Ok((options, best.value, best.evaluations))
    }

    /// DTS on a pool of points (rows of `pool`, unit coordinates): the argmax of one joint posterior
    /// sample, then the argmax of the variance of the duel's outcome probability against it.
    /// Returns (first, second, that variance, pool size).
    pub(super) fn dts_choice(
        &self,
        gp: &LaplacePreferenceGp,
        pool: &DMatrix<f64>,
        rng: &mut dyn Rng,
    ) -> Result<(usize, usize, f64, usize)> {
        let m = gp.mean(pool)?;
        let cov = gp.covariance(pool)?;
        let sample = PsdFactor::new(&cov)?.sample(&m, rng)?;
        let first = argmax_lowest(sample.iter().copied())?;
        let (link, scale) = (gp.config().link, gp.config().scale);
        let variance: Vec<f64> = (0..pool.nrows())
            .map(|j| {
                duel_outcome_variance(
                    m[first] - m[j],
                    cov[(first, first)] + cov[(j, j)] - 2.0 * cov[(first, j)],
                    link,
                    scale,
                )
            })
            .collect();
        let second = argmax_lowest(variance.iter().copied())?;
        Ok((first, second, variance[second], pool.nrows()))
    }

    /// (first, second in unit coordinates, acquisition value, evaluations) on a box.
    pub(super) fn box_choice(
        &self,
        gp: &LaplacePreferenceGp,
        search: Option<&MultistartConfig>,
        rng: &mut dyn Rng,
    ) -> Result<(Vec<f64>, Vec<f64>, f64, usize)> {
        let d = self.lo.len();
        if let Rule::Dts { pool } = self.rule {
            let cube = BoxDomain::cube(0.0, 1.0, d)?;
            let mut rows = if d <= bohf_optim::MAX_SOBOL_DIM {
                sobol_design(&cube, pool, rng)?
            } else {
                (0..pool).map(|_| cube.sample(rng)).collect()
            };
            let latent = gp.data().points();
            rows.extend((0..latent.nrows()).map(|r| latent.row(r).iter().copied().collect::<Vec<f64>>()));
            let pts = DMatrix::from_fn(rows.len(), d, |r, c| rows[r][c]);
            let (i, j, v, e) = self.dts_choice(gp, &pts, rng)?;
            return Ok((rows[i].clone(), rows[j].clone(), v, e));
        }
        let search = search.cloned().unwrap_or_default();
        let best = match self.rule {
            Rule::Qeubo { mc_samples, .. } => {
                let z = base_samples(2, mc_samples, rng);
                maximize_options_on_unit_box(gp, 2, Some(&z), &search, rng)?
            }
            _ => maximize_options_on_unit_box(gp, 2, None, &search, rng)?,
        };
        Ok((best.x[..d].to_vec(), best.x[d..].to_vec(), best.value, best.evaluations))
    }
}

/// The most q-subsets of the screened candidates that qEUBO's finite search (q ≥ 3) scores one by
/// one; beyond, it is greedy with swaps ([`LaplaceBo`]'s `finite_options`).
pub const EXACT_SUBSETS: usize = 4096;

/// True if C(k, q) ≤ `limit` (computed without overflow).
fn subsets_at_most(k: usize, q: usize, limit: usize) -> bool {
    let mut c: usize = 1;
    for j in 0..q.min(k) {
        // C(k, j + 1) = C(k, j) (k − j) / (j + 1), exact at every step.
        c = match c.checked_mul(k - j) {
            Some(v) => v / (j + 1),
            None => return false,
        };
        if c > limit {
            return false;
        }
    }
    true
}

/// EUBO (`z` = None, q = 2) or qEUBO (`z` the q × S base samples) of the q options whose unit
/// coordinates are the consecutive d-blocks of x, as a [`bohf_optim::Objective`].
struct OptionsAcquisition<'a> {
    gp: &'a LaplacePreferenceGp,
    q: usize,
    d: usize,
    z: Option<&'a DMatrix<f64>>,
}

impl Objective for OptionsAcquisition<'_> {
    fn value(&mut self, x: &[f64]) -> Result<f64> {
        let xs = DMatrix::from_row_slice(self.q, self.d, x);
        let (m, c) = self.gp.joint(&xs)?;
        match self.z {
            Some(z) => qeubo_mc(&m, &c, z),
            None => Ok(expected_max_of_two(m[0], m[1], c[(0, 0)], c[(1, 1)], c[(0, 1)]).0),
        }
    }

    fn value_and_gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<f64> {
        let jp = self.gp.joint_with_gradient(&DMatrix::from_row_slice(self.q, self.d, x))?;
        let (v, g) = match self.z {
            Some(z) => qeubo_mc_with_gradient(&jp, z)?,
            None => eubo_with_gradient(&jp)?,
        };
        grad.copy_from_slice(&g);
        Ok(v)
    }
}

/// The q options maximising qEUBO (`z`: q × S base samples, [`base_samples`]) or, with `z` = None
/// and q = 2, EUBO in closed form, over the product of q copies of the unit cube [0, 1]^d of a
/// Laplace GP's inputs, by bohf-optim's multistart L-BFGS with the analytic gradient. The result's
/// `x` holds the options' coordinates one after the other. This is the box search of [`crate::Eubo`]
/// and [`crate::Qeubo`] (q = 2), and the q-option acquisition for best-of-q queries.
///
/// Errors: q < 2, EUBO with q ≠ 2, base samples with other than q rows, and the search's errors.
pub fn maximize_options_on_unit_box(
    gp: &LaplacePreferenceGp,
    q: usize,
    z: Option<&DMatrix<f64>>,
    search: &MultistartConfig,
    rng: &mut (impl Rng + ?Sized),
) -> Result<BoxMaximum> {
    if q < 2 || (z.is_none() && q != 2) {
        return Err(Error::invalid("q", format!("EUBO needs q = 2 and qEUBO q ≥ 2 options, got {q}")));
    }
    if let Some(z) = z
        && z.nrows() != q
    {
        return Err(Error::dims("qEUBO: rows of the base samples", q, z.nrows()));
    }
    let d = gp.data().dim();
    let product = BoxDomain::cube(0.0, 1.0, q * d)?;
    maximize_on_box(&mut OptionsAcquisition { gp, q, d, z }, &product, rng, &[], search)
}
