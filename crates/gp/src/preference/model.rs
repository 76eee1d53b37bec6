//! [`PreferenceModel`]: the one owner of the BOHF preference model on a finite candidate set (the
//! duels, the kernel logistic fit and the dueling posterior), with the quantities the selection
//! rules of PF-TS, MR-LPF and MaxMinLCB read from it.

use super::duels::Duels;
use super::mle::{KernelLogistic, PreferenceFit};
use super::posterior::DuelingPosterior;
use crate::sampler::JointSampler;
use bohf_core::{Duel, Error, Link, Result, argmax_lowest_in};
use nalgebra::{DMatrix, DVector};

/// When [`PreferenceModel::observe`] refits the kernel logistic MLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refit {
    /// Refit on all duels, warm-started from the previous fit (from θ = 0 if there is none):
    /// PF-TS and MaxMinLCB after every duel.
    Warm,
    /// Refit on all duels from θ = 0 (MR-LPF's end-of-round fit, Algorithm 1).
    Cold,
    /// Do not fit: only the duels and the posterior change, and the previous fit (which would no
    /// longer describe the duels) is dropped, so μ(h) reads g ≡ 0 until the next fit. MR-LPF within
    /// a round, whose selection uses σ only.
    Defer,
}

/// The preference model of the BOHF papers on n candidates with base Gram K: the duels H_t, the
/// regularised kernel logistic MLE h_t(x, x′) = g_t(x) − g_t(x′) (MR-LPF eq. (7)–(9), PF-TS eq.
/// (6)–(8), [`KernelLogistic`]) and the dueling posterior σ_t (MR-LPF eq. (10), PF-TS eq. (9),
/// [`DuelingPosterior`], noise ρ).
///
/// The algorithms read from it:
///
/// * σ_t(i, j) ([`PreferenceModel::sigma`]): the one σ of bohf, symmetric bit for bit;
/// * μ(h_t(i, j)) ([`PreferenceModel::probability`]), the modelled probability that i beats j
///   (MR-LPF §1.5, "P(x ≻ x′) = μ(h(x, x′))"), and the confidence bounds
///   μ(h_t(i, j)) ± β σ_t(i, j) ([`PreferenceModel::ucb`], [`PreferenceModel::lcb`]): MR-LPF eq. (12)
///   and Lemma B.1, MaxMinLCB's LCB/UCB (Pásztor et al. 2024, eq. (5)–(6), as used in MR-LPF App. D);
/// * the plausibility filter {x : ∀x′, μ(h(x, x′)) + β σ(x, x′) ≥ ½} ([`PreferenceModel::plausible`]):
///   MR-LPF's elimination, eq. (12), and MaxMinLCB's plausible set;
/// * the lowest-index maximiser of g_t over a subset ([`PreferenceModel::best_in`]);
/// * joint utility draws N(g_t, v² Ŝ_t) ([`PreferenceModel::sampler`]) for PF-TS (§2.6).
///
/// Before the first fit g_t ≡ 0, so μ(h) = ½ everywhere.
///
/// [`PreferenceModel::observe`] is atomic: the fit is computed before anything changes, so a
/// solver failure or a bad index leaves the model as it was.
#[derive(Debug, Clone)]
pub struct PreferenceModel {
    base_gram: DMatrix<f64>,
    estimator: KernelLogistic,
    duels: Duels,
    posterior: DuelingPosterior,
    fit: Option<PreferenceFit>,
    utility: DVector<f64>,
}

impl PreferenceModel {
    /// No duels yet on the candidates of `base_gram` (n×n, symmetric PSD); `rho` > 0 is the
    /// posterior noise ρ (λκ in the papers).
    pub fn new(base_gram: DMatrix<f64>, estimator: KernelLogistic, rho: f64) -> Result<Self> {
        let posterior = DuelingPosterior::prior(&base_gram, rho)?;
        let n = base_gram.nrows();
        Ok(Self { base_gram, estimator, duels: Duels::new(n), posterior, fit: None, utility: DVector::zeros(n) })
    }

    /// Forgets every duel and the fit, and restarts the posterior from the prior with noise `rho`
    /// (MR-LPF's rounds each start from an empty data set with their own ρ_r).
    pub fn reset(&mut self, rho: f64) -> Result<()> {
        let posterior = DuelingPosterior::prior(&self.base_gram, rho)?;
        self.posterior = posterior;
        self.duels = Duels::new(self.n_candidates());
        self.fit = None;
        self.utility.fill(0.0);
        Ok(())
    }

    /// Adds duels: refits as `refit` says, then conditions the posterior on their pairs (one
    /// rank-one step each, or from scratch in O(t + n³) when more than n arrive at once). Nothing
    /// changes on an error (bad index, solver failure).
    pub fn observe(&mut self, new: &[Duel], refit: Refit) -> Result<()> {
        let mut duels = self.duels.clone();
        for &d in new {
            duels.push(d)?;
        }
        let fit = match (refit, &self.fit) {
            (Refit::Warm, Some(previous)) => Some(self.estimator.fit_warm(&self.base_gram, &duels, previous)?),
            (Refit::Warm, None) | (Refit::Cold, _) => Some(self.estimator.fit(&self.base_gram, &duels)?),
            (Refit::Defer, _) => None,
        };
        if new.len() > self.n_candidates() {
            self.posterior = DuelingPosterior::new(&self.base_gram, &duels, self.posterior.rho())?;
        } else if let [d] = new {
            // One rank-one step fails (if at all) before it changes Ŝ: no copy needed.
            self.posterior.add_duel(d.first, d.second)?;
        } else {
            let mut posterior = self.posterior.clone();
            for d in new {
                posterior.add_duel(d.first, d.second)?;
            }
            self.posterior = posterior;
        }
        self.duels = duels;
        match fit {
            Some(ref fit) => self.utility.copy_from(fit.utility()),
            None => self.utility.fill(0.0),
        }
        self.fit = fit;
        Ok(())
    }

    /// The base Gram K of the candidates.
    pub fn base_gram(&self) -> &DMatrix<f64> {
        &self.base_gram
    }

    /// The number of candidates n.
    pub fn n_candidates(&self) -> usize {
        self.base_gram.nrows()
    }

    /// The validated MLE estimator.
    pub fn estimator(&self) -> &KernelLogistic {
        &self.estimator
    }

    /// The link μ of the MLE.
    pub fn link(&self) -> Link {
        self.estimator.config().link
    }

    /// The duels observed since construction or the last [`PreferenceModel::reset`].
    pub fn duels(&self) -> &Duels {
        &self.duels
    }

    /// The dueling posterior of the duels (utility-space covariance Ŝ_t, noise ρ).
    pub fn posterior(&self) -> &DuelingPosterior {
        &self.posterior
    }

    /// The latest kernel logistic fit (`None` before the first fit or after a deferred one).
    pub fn fit(&self) -> Option<&PreferenceFit> {
        self.fit.as_ref()
    }

    /// The fitted utility g_t on the candidates (zero without a current fit).
    pub fn utility(&self) -> &DVector<f64> {
        &self.utility
    }

    /// σ_t(i, j) = √(Ŝ_ii + Ŝ_jj − (Ŝ_ij + Ŝ_ji)) ([`DuelingPosterior::std_dev`]).
    pub fn sigma(&self, i: usize, j: usize) -> Result<f64> {
        self.posterior.std_dev(i, j)
    }

    /// μ(h_t(i, j)) = μ(g_t(i) − g_t(j)), the modelled probability that i beats j (½ without a fit).
    pub fn probability(&self, i: usize, j: usize) -> Result<f64> {
        let n = self.n_candidates();
        for index in [i, j] {
            if index >= n {
                return Err(Error::IndexOutOfRange { context: "preference probability".into(), index, len: n });
            }
        }
        Ok(self.link().mu(self.utility[i] - self.utility[j]))
    }

    /// The upper confidence bound μ(h_t(i, j)) + β σ_t(i, j) (MR-LPF eq. (12); MaxMinLCB's UCB).
    pub fn ucb(&self, i: usize, j: usize, beta: f64) -> Result<f64> {
        Ok(self.probability(i, j)? + beta * self.sigma(i, j)?)
    }

    /// The lower confidence bound μ(h_t(i, j)) − β σ_t(i, j) (MaxMinLCB's LCB; ½ on the diagonal).
    pub fn lcb(&self, i: usize, j: usize, beta: f64) -> Result<f64> {
        Ok(self.probability(i, j)? - beta * self.sigma(i, j)?)
    }

    /// The members of `pool` that are plausibly best, in `pool`'s order (see [`plausible_filter`]):
    /// {x ∈ pool : ∀x′ ∈ pool, μ(h_t(x, x′)) + β σ_t(x, x′) ≥ ½}.
    pub fn plausible(&self, pool: &[usize], beta: f64) -> Result<Vec<usize>> {
        plausible_filter(pool, self.utility.as_slice(), self.link(), |i, j| self.sigma(i, j), beta)
    }

    /// The maximiser of g_t over `subset` (non-empty), the first one in `subset`'s order among
    /// ties within the relative tolerance of [`bohf_core::argmax_lowest`].
    pub fn best_in(&self, subset: &[usize]) -> Result<usize> {
        if let Some(&bad) = subset.iter().find(|&&i| i >= self.n_candidates()) {
            return Err(Error::IndexOutOfRange { context: "subset".into(), index: bad, len: self.n_candidates() });
        }
        argmax_lowest_in("fitted utility over a subset", subset, |i| self.utility[i])
    }

    /// The sampler of joint utility draws N(g_t, v² Ŝ_t) ([`DuelingPosterior::sampler`]).
    pub fn sampler(&self) -> Result<JointSampler> {
        self.posterior.sampler(&self.utility)
    }
}

/// The plausibility filter of MR-LPF eq. (12) (elimination) and MaxMinLCB (plausible set): keeps
/// x ∈ `pool` iff for every x′ ∈ `pool` (x′ = x included)
///
/// ```text
/// μ(h(x, x′)) + β σ(x, x′) ≥ 1/2,     h(x, x′) = g(x) − g(x′),
/// ```
///
/// with g = `utility` (indexed by candidate), μ = `link` and `sigma(x, x′)` = σ(x, x′) ≥ 0. The
/// test `≥ ½` keeps x (the MR-LPF authors' code eliminates on `< ½`). The result is a subset of
/// `pool` in its order (nested when `pool` is the previous set).
///
/// It is never empty: x̂ = argmax_{pool} g has h(x̂, x′) ≥ 0, so μ(h) ≥ μ(0) = ½ exactly in
/// floating point and x̂ passes whenever β ≥ 0 (MR-LPF note §3.2). As a guard (reachable only with
/// β < 0), if no member passes, the lowest-index maximiser of g over `pool` is kept alone.
///
/// Errors: an empty pool, an index beyond `utility`, an error from `sigma` (propagated), or a NaN
/// bound.
pub fn plausible_filter(
    pool: &[usize],
    utility: &[f64],
    link: Link,
    sigma: impl Fn(usize, usize) -> Result<f64>,
    beta: f64,
) -> Result<Vec<usize>> {
    if pool.is_empty() {
        return Err(Error::Empty("pool of the plausibility filter".into()));
    }
    if let Some(&bad) = pool.iter().find(|&&i| i >= utility.len()) {
        return Err(Error::IndexOutOfRange {
            context: "plausibility filter pool".into(),
            index: bad,
            len: utility.len(),
        });
    }
    let mut kept = Vec::with_capacity(pool.len());
    'candidates: for &x in pool {
        for &xp in pool {
            let ucb = link.mu(utility[x] - utility[xp]) + beta * sigma(x, xp)?;
            if ucb.is_nan() {
                return Err(Error::NonFinite(format!("confidence bound μ(h) + βσ of the pair ({x}, {xp})")));
            }
            if ucb < 0.5 {
                continue 'candidates;
            }
        }
        kept.push(x);
    }
    if kept.is_empty() {
        kept.push(argmax_lowest_in("utility over the plausibility filter pool", pool, |i| utility[i])?);
    }
    Ok(kept)
}
