//! MaxMinLCB (Pásztor, Kassraie & Krause, NeurIPS 2024, Algorithm 1), as compared against in MR-LPF
//! (App. D; note §3.3) and PF-TS (App. F).
//!
//! After every duel the kernel logistic MLE h_t = g_t(x) − g_t(x′) is refitted to **all** duels
//! (warm-started from the previous fit) and the dueling posterior σ_t (MR-LPF eq. (10), noise
//! ρ = λκ) is updated by one rank-one step. With
//!
//! ```text
//! LCB_t(x, x′) = μ(h_t(x, x′)) − β σ_t(x, x′),     UCB_t(x, x′) = μ(h_t(x, x′)) + β σ_t(x, x′),
//! ```
//!
//! the next duel is the leader–follower (Stackelberg) solution over the plausible set M_t:
//!
//! ```text
//! x′(x) = argmin_{x′ ∈ M_t} LCB_t(x, x′)                  (follower)
//! x_t   = argmax_{x ∈ M_t} LCB_t(x, x′(x)),  x′_t = x′(x_t)   (leader)
//! ```
//!
//! The paper leaves M_t and the diagonal undefined; the two reference implementations differ
//! (note §3.3), so both are options of [`MaxMinLcbConfig`]:
//!
//! * the MR-LPF authors' script: M_t = {x ∈ X : ∀x′ ∈ X, UCB_t(x, x′) ≥ 1/2} recomputed from all of X
//!   each step, self-duels (x, x) allowed (LCB(x, x) = 1/2), ties to the first pair: the defaults;
//! * Pásztor et al.'s code: diagonal excluded, ties within 1e−4 broken uniformly at random, and if a
//!   single candidate is plausible it plays (x, x): `exclude_diagonal = true`, `random_ties = true`.

use bohf_core::{
    Answer, AtField, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext, argmax_lowest_by,
};
use bohf_gp::{DuelingPosterior, Duels, InferenceConfig, PreferenceFit, PreferenceModel, Refit};
use nalgebra::DMatrix;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

/// Which candidates take part in the max–min game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PlausibleSet {
    /// M_t = {x ∈ X : ∀x′ ∈ X, UCB_t(x, x′) ≥ 1/2}, recomputed from all of X after every duel (not
    /// nested; the MR-LPF authors' script and, with a strict test, Pásztor et al.'s mask). The default.
    #[default]
    AllCandidates,
    /// M_t = {x ∈ M_{t−1} : ∀x′ ∈ M_{t−1}, UCB_t(x, x′) ≥ 1/2} with M_0 = X: nested, as in MR-LPF.
    Nested,
    /// No restriction: the game is played over all of X (Pásztor et al.'s `use_candidate_set = false`).
    Off,
}

/// Settings of [`MaxMinLcb`]; defaults are the MR-LPF and PF-TS experiments (β = 1, the shared
/// inference: Matérn-5/2, ℓ = 0.1, λ = 0.05, ρ = 0.05) with the MR-LPF authors' variant of the game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MaxMinLcbConfig {
    /// Kernel, kernel logistic MLE and posterior noise, shared by every BOHF method.
    pub inference: InferenceConfig,
    /// β ≥ 0, the width of the confidence bounds (default 1; the MR-LPF paper tuned 2 on Yelp).
    pub beta: f64,
    /// The plausible set M_t (default: recomputed from all of X).
    pub plausible_set: PlausibleSet,
    /// Exclude self-duels (x, x) from the game (Pásztor et al.; default false: allowed, LCB = 1/2).
    /// With a single plausible candidate x the duel is (x, x) either way.
    pub exclude_diagonal: bool,
    /// Break ties within `tie_tolerance` uniformly at random with the RNG given to `suggest`
    /// (Pásztor et al.; default false: the lowest index, i.e. the first pair in row-major order).
    pub random_ties: bool,
    /// The tie tolerance of `random_ties` (default 1e−4, Pásztor et al.'s `argmax_tol`), ≥ 0.
    pub tie_tolerance: f64,
}

impl Default for MaxMinLcbConfig {
    fn default() -> Self {
        Self {
            inference: InferenceConfig::default(),
            beta: 1.0,
            plausible_set: PlausibleSet::AllCandidates,
            exclude_diagonal: false,
            random_ties: false,
            tie_tolerance: 1e-4,
        }
    }
}

bohf_core::validated! {
    /// A [`MaxMinLcbConfig`] that passed [`MaxMinLcbConfig::check`]: what [`MaxMinLcb::new`] takes.
    pub struct ValidMaxMinLcbConfig(MaxMinLcbConfig);
}

impl MaxMinLcbConfig {
    /// The one check of the settings; errors name the first invalid field by its path in this
    /// table, as written in TOML (`inference.kernel.lengthscale`, `inference.mle.lambda`,
    /// `inference.kappa`, `beta`, `tie_tolerance`, …).
    pub fn check(&self) -> Result<ValidMaxMinLcbConfig> {
        self.inference.check().at("inference")?;
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return Err(Error::invalid("beta", format!("must be finite and >= 0, got {}", self.beta)));
        }
        if !(self.tie_tolerance.is_finite() && self.tie_tolerance >= 0.0) {
            return Err(Error::invalid(
                "tie_tolerance",
                format!("must be finite and >= 0, got {}", self.tie_tolerance),
            ));
        }
        Ok(ValidMaxMinLcbConfig(self.clone()))
    }
}

/// The MaxMinLCB optimiser on a finite candidate set (see the [module docs](self) for the rule).
///
/// **Recommendation** ([`Optimizer::recommend`]): the leader of the max–min game at the current
/// data with the deterministic rule (lowest index on ties, no RNG), i.e. the plausible candidate
/// whose worst lower confidence bound of winning against any plausible rival is largest. It is
/// always a member of M_t.
///
/// **Protocol.** [`Optimizer::suggest`] solves the game (drawing from the RNG only when
/// `random_ties` is on: one uniform index for the leader, then one for the follower); a new
/// `suggest` replaces a pending one. [`Optimizer::observe`] takes the answer to the pending duel,
/// or, with nothing pending, to any duel of candidates (replaying a saved history); every answer
/// triggers a refit on all data. Replaying the same history with the same RNG stream reproduces
/// every suggestion.
#[derive(Debug, Clone)]
pub struct MaxMinLcb {
    config: MaxMinLcbConfig,
    domain: FiniteDomain,
    model: PreferenceModel,
    plausible: Vec<usize>,
    pending: Option<(usize, usize)>,
}

impl MaxMinLcb {
    /// MaxMinLCB on the candidates of `ctx` (the horizon is not used) with a checked config
    /// ([`MaxMinLcbConfig::check`]); builds the base Gram once.
    pub fn new(ctx: &SearchContext, config: ValidMaxMinLcbConfig) -> Result<Self> {
        let config = config.into_config();
        let domain = ctx.domain().clone();
        let model = config.inference.model(&domain)?;
        let mut alg = Self { config, domain, model, plausible: Vec::new(), pending: None };
        alg.plausible = alg.plausible_from(&(0..alg.domain.len()).collect::<Vec<_>>())?;
        Ok(alg)
    }

    /// The configuration.
    pub fn config(&self) -> &MaxMinLcbConfig {
        &self.config
    }

    /// The preference model (all duels, the latest fit, the dueling posterior).
    pub fn model(&self) -> &PreferenceModel {
        &self.model
    }

    /// All duels observed so far.
    pub fn duels(&self) -> &Duels {
        self.model.duels()
    }

    /// The current plausible set M_t (sorted candidate indices; all of X with [`PlausibleSet::Off`]).
    pub fn plausible_set(&self) -> &[usize] {
        &self.plausible
    }

    /// The latest kernel logistic fit (None before the first duel).
    pub fn fit(&self) -> Option<&PreferenceFit> {
        self.model.fit()
    }

    /// The dueling posterior of all duels.
    pub fn posterior(&self) -> &DuelingPosterior {
        self.model.posterior()
    }

    /// The base Gram of the candidates.
    pub fn base_gram(&self) -> &DMatrix<f64> {
        self.model.base_gram()
    }

    /// The pending suggestion, if any.
    pub fn pending(&self) -> Option<(usize, usize)> {
        self.pending
    }

    /// LCB_t(i, j) = μ(h_t(i, j)) − β σ_t(i, j) (equal to 1/2 on the diagonal;
    /// [`PreferenceModel::lcb`]).
    pub fn lcb(&self, i: usize, j: usize) -> Result<f64> {
        self.model.lcb(i, j, self.config.beta)
    }

    /// UCB_t(i, j) = μ(h_t(i, j)) + β σ_t(i, j) ([`PreferenceModel::ucb`]).
    pub fn ucb(&self, i: usize, j: usize) -> Result<f64> {
        self.model.ucb(i, j, self.config.beta)
    }

    /// The plausible set given the current fit and posterior, from the previous set `previous`
    /// ([`PreferenceModel::plausible`]; never empty).
    fn plausible_from(&self, previous: &[usize]) -> Result<Vec<usize>> {
        let all = || (0..self.domain.len()).collect::<Vec<_>>();
        match self.config.plausible_set {
            PlausibleSet::Off => Ok(all()),
            PlausibleSet::AllCandidates => self.model.plausible(&all(), self.config.beta),
            PlausibleSet::Nested => self.model.plausible(previous, self.config.beta),
        }
    }

    /// Solves the max–min game over the plausible set; `rng` is used only with random tie-breaking.
    fn game(&self, mut rng: Option<&mut dyn Rng>) -> Result<(usize, usize)> {
        let m = &self.plausible;
        let exclude = self.config.exclude_diagonal;
        if m.len() == 1 {
            return Ok((m[0], m[0]));
        }
        let tol = self.config.tie_tolerance;
        // Row minima of the LCB (follower's value for each leader) and the LCB rows themselves.
        let k = m.len();
        let mut lcb = vec![0.0; k * k];
        let mut row_min = vec![f64::INFINITY; k];
        for (a, &x) in m.iter().enumerate() {
            for (b, &xp) in m.iter().enumerate() {
                if exclude && a == b {
                    lcb[a * k + b] = f64::INFINITY;
                    continue;
                }
                let v = self.lcb(x, xp)?;
                lcb[a * k + b] = v;
                if v < row_min[a] {
                    row_min[a] = v;
                }
            }
        }
        let (leader, best) = argmax_lowest_by("MaxMinLCB leader values", row_min.iter().copied().enumerate())?;
        let leader = match rng.as_deref_mut() {
            Some(r) => pick(r, (0..k).filter(|&a| row_min[a] >= best - tol)),
            None => leader,
        };
        let row = &lcb[leader * k..(leader + 1) * k];
        let min = row_min[leader];
        let follower = match rng {
            Some(r) => pick(r, (0..k).filter(|&b| row[b] <= min + tol)),
            // The follower minimises: the lowest-index argmax of −LCB (the excluded diagonal is +∞).
            None => argmax_lowest_by("MaxMinLCB follower values", row.iter().map(|&v| -v).enumerate())?.0,
        };
        Ok((m[leader], m[follower]))
    }
}

/// A uniformly random member of a non-empty index set (the tie set always contains the optimum).
fn pick(rng: &mut dyn Rng, set: impl Iterator<Item = usize>) -> usize {
    let set: Vec<usize> = set.collect();
    set[rng.random_range(0..set.len())]
}

impl Optimizer for MaxMinLcb {
    fn name(&self) -> &'static str {
        "MaxMinLCB"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let (i, j) = if self.config.random_ties { self.game(Some(rng))? } else { self.game(None)? };
        self.pending = Some((i, j));
        Ok(Query::Duel(self.domain.point(i)?, self.domain.point(j)?))
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let duel = self.domain.answered_duel(query, &answer, self.pending, self.name())?;
        // The model refits on all data (warm start) atomically; the plausible set is computed before
        // anything is stored, so an error leaves the state untouched.
        let mut model = self.model.clone();
        model.observe(&[duel], Refit::Warm)?;
        let previous = std::mem::replace(&mut self.model, model);
        match self.plausible_from(&self.plausible) {
            Ok(plausible) => self.plausible = plausible,
            Err(e) => {
                self.model = previous;
                return Err(e);
            }
        }
        self.pending = None;
        Ok(())
    }

    fn recommend(&self) -> Result<Point> {
        self.domain.point(self.game(None)?.0)
    }
}
