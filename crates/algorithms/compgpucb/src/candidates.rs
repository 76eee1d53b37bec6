//! A GP of the finite-domain algorithms (COMP-GP-UCB, MF-GP-UCB, KSS) with its posterior on the
//! candidates kept up to date incrementally.
//!
//! [`OnCandidates`] pairs the bohf-gp model ([`ValueGp`]: fixed kernel, or [`bohf_gp::LearnedGp`]
//! with its refit schedule and data transform) with a [`CandidatePosterior`] on every candidate
//! in the model's working units: between refits each observation is one O(r·m) rank-one update
//! (r stacked rows, m candidates); after a refit (new kernel, noise and transform) the posterior is
//! rebuilt in one batch over the distinct observed candidates, O(|U|³ + |U|²·m). A fixed kernel
//! never refits, so the same batch runs whenever the stacked rows reach twice the distinct
//! candidates (r ≤ 2|U|: KSS's 2,000 observations on at most 400 candidates). Reading the mean
//! and standard deviation at every candidate is then O(m), where evaluating the model at each
//! candidate costs O(m·n²) per step. Values map back to original units as the learned model's do:
//! m = s·m′ + μ, σ² = s²·σ′² ([`bohf_gp::regression::DataTransform`]).
//!
//! The model itself is read for its hyperparameters only: a learned model runs without its own
//! posterior ([`bohf_gp::LearnedGp::without_posterior`]), which was more than 90 % of KSS's time on
//! the catalyst leaderboard problem (T = 800, 1,600 observations) and changes no query.

use bohf_core::{FiniteDomain, Result};
use bohf_gp::CandidatePosterior;
use bohf_gp::ValueGp;
use nalgebra::DMatrix;
use rand::Rng;

/// A GP model with its posterior on the candidates; see the module documentation.
#[derive(Debug)]
pub(crate) struct OnCandidates {
    gp: ValueGp,
    /// The candidates (original units, m×d).
    points: DMatrix<f64>,
    post: CandidatePosterior,
    indices: Vec<usize>,
    values: Vec<f64>,
    /// The model's fit count when `post` was last rebuilt.
    fits: usize,
    /// Which candidates have been observed, and how many.
    seen: Vec<bool>,
    distinct: usize,
}

impl OnCandidates {
    /// The prior of `gp` (no observations yet) on the candidates of `domain`. A learned model's
    /// own posterior is turned off ([`bohf_gp::LearnedGp::without_posterior`]): only its
    /// hyperparameters, transform and fit count are read here, so its O(n³) rebuild after every
    /// refit and O(n²) appends between refits would be wasted.
    pub(crate) fn new(gp: ValueGp, domain: &FiniteDomain) -> Result<Self> {
        let gp = match gp {
            ValueGp::Learned(g) => ValueGp::Learned(Box::new(g.without_posterior())),
            fixed @ ValueGp::Fixed(_) => fixed,
        };
        let points = domain.points().clone();
        let post = match &gp {
            ValueGp::Fixed(g) => CandidatePosterior::new(g.kernel(), &points)?,
            ValueGp::Learned(g) => CandidatePosterior::new(g.kernel(), &g.transform().inputs(&points)?)?,
        };
        let seen = vec![false; points.nrows()];
        Ok(Self { gp, points, post, indices: Vec::new(), values: Vec::new(), fits: 0, seen, distinct: 0 })
    }

    /// Adds y observed at candidate `index` to the model (which refits on its schedule) and to the
    /// posterior on the candidates. Errors as the model's append; nothing is recorded then.
    pub(crate) fn append(&mut self, index: usize, y: f64) -> Result<()> {
        let coords: Vec<f64> = self.points.row(index).iter().copied().collect();
        self.gp.append(&coords, y)?;
        self.indices.push(index);
        self.values.push(y);
        if !self.seen[index] {
            self.seen[index] = true;
            self.distinct += 1;
        }
        match &self.gp {
            // Repeats stack a row each; once they are more than half the rows, one batch over
            // the distinct candidates (the same posterior) keeps r ≤ 2|U| + 1.
            ValueGp::Fixed(g) if self.post.rank() >= 2 * self.distinct => {
                self.post = CandidatePosterior::fit(g.kernel(), &self.points, &self.indices, &self.values, g.noise())?;
                Ok(())
            }
            ValueGp::Fixed(g) => self.post.observe(g.kernel(), index, y, g.noise()),
            ValueGp::Learned(g) if g.fits() != self.fits => {
                self.fits = g.fits();
                let t = g.transform();
                let targets: Vec<f64> = self.values.iter().map(|&v| t.target(v)).collect();
                self.post =
                    CandidatePosterior::fit(g.kernel(), &t.inputs(&self.points)?, &self.indices, &targets, g.noise())?;
                Ok(())
            }
            ValueGp::Learned(g) => self.post.observe(g.kernel(), index, g.transform().target(y), g.noise()),
        }
    }

    /// The posterior mean and standard deviation at every candidate (original units).
    pub(crate) fn mean_sd(&self) -> (Vec<f64>, Vec<f64>) {
        let var = self.post.variance();
        match &self.gp {
            ValueGp::Fixed(_) => (self.post.mean().iter().copied().collect(), var.iter().map(|v| v.sqrt()).collect()),
            ValueGp::Learned(g) => {
                let t = g.transform();
                (
                    self.post.mean().iter().map(|&m| t.mean_to_original(m)).collect(),
                    var.iter().map(|&v| t.variance_to_original(v).max(0.0).sqrt()).collect(),
                )
            }
        }
    }

    /// The posterior mean at candidate `index` (original units).
    pub(crate) fn mean_at(&self, index: usize) -> f64 {
        let m = self.post.mean()[index];
        match &self.gp {
            ValueGp::Fixed(_) => m,
            ValueGp::Learned(g) => g.transform().mean_to_original(m),
        }
    }

    /// `count` joint posterior draws on the candidates, one per column (original units), by
    /// [`CandidatePosterior::sample`] (Matheron's rule) with `rng`.
    pub(crate) fn sample(&self, count: usize, rng: &mut (impl Rng + ?Sized)) -> Result<DMatrix<f64>> {
        Ok(match &self.gp {
            ValueGp::Fixed(g) => self.post.sample(g.kernel(), count, rng)?,
            ValueGp::Learned(g) => {
                let t = g.transform();
                self.post.sample(g.kernel(), count, rng)?.map(|v| t.mean_to_original(v))
            }
        })
    }

    /// The number of stacked rows of the kept posterior ([`CandidatePosterior::rank`]).
    #[cfg(test)]
    pub(crate) fn rank(&self) -> usize {
        self.post.rank()
    }

    /// The model.
    pub(crate) fn gp(&self) -> &ValueGp {
        &self.gp
    }

    /// The number of observations.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// True before the first observation.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}
