//! The MR-LPF optimiser (Algorithm 1 of Kayal et al. 2025).

use crate::config::{MrLpfConfig, ValidMrLpfConfig};
use crate::schedule::round_schedule;
use crate::select::{max_variance_batch, next_pair};
use bohf_core::{Answer, Duel, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext, argmax_lowest_in};
use bohf_gp::{DuelingPosterior, Duels, PreferenceModel, Refit};
use bohf_kernels::IndexPair;
use nalgebra::{DMatrix, DVector};
use rand::Rng;

/// What happened in one completed round of MR-LPF.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundRecord {
    /// The round r (1-based).
    pub round: usize,
    /// The posterior noise ρ_r of the round's σ.
    pub rho: f64,
    /// The elimination width β_(r).
    pub beta: f64,
    /// M_r, the active set during the round (sorted candidate indices).
    pub active: Vec<usize>,
    /// M_{r+1} ⊆ M_r, the survivors of the end-of-round elimination (sorted).
    pub survivors: Vec<usize>,
    /// The round's N_r duels (its own data set H_{N_r,r}).
    pub duels: Duels,
    /// The utility g of the round's kernel logistic fit on all candidates: h(x, x′) = g(x) − g(x′).
    pub utility: DVector<f64>,
}

/// MR-LPF (Multi-Round Learning from Preference-based Feedback; Kayal et al. 2025, Algorithm 1) on
/// a finite candidate set.
///
/// The horizon T is split into rounds of N_1, …, N_R duels ([`crate::round_schedule`]). With
/// M_1 = X, in round r:
///
/// 1. the round starts with an **empty** data set; its n-th query is the ordered pair of M_r with
///    the largest σ_(n−1,r) (eq. (11), [`crate::max_variance_pair`]), σ computed from the round's
///    own duels only with noise ρ_r ([`crate::RoundNoise`]) and updated after each duel by
///    [`DuelingPosterior::add_duel`]; the labels are not used, so the whole round is known upfront
///    ([`MrLpf::round_batch`]);
/// 2. after its N_r-th duel the kernel logistic MLE is fitted to the round's duels (from θ = 0)
///    and M_{r+1} = {x ∈ M_r : ∀x′ ∈ M_r, μ(h(x, x′)) + β_(r) σ(x, x′) ≥ 1/2} (eq. (12),
///    [`PreferenceModel::plausible`]), with the same σ as the selection. The sets are nested and
///    never empty.
///
/// The round's duels, fit and posterior are one [`PreferenceModel`], reset at each round's start.
///
/// Because the schedule sums to T exactly, the last round ends at the T-th duel and its elimination
/// yields M_{R+1}, from which the output is taken (Corollary 4.4: "any x̂_T ∈ M_{R+1}").
///
/// **Recommendation** ([`Optimizer::recommend`]): the maximiser (lowest index on ties) over the
/// current active set of the utility g of the latest end-of-round fit. At the end this is a member of
/// M_{R+1} (it is the argmax of g_R over M_R, which always survives) and is the estimate's best
/// candidate. During round 1 there is no fit yet and the recommendation is candidate 0 (the first
/// member of M_1 = X); no estimate is made from a partial round, so recommending costs O(|M_r|).
///
/// **Protocol.** [`Optimizer::suggest`] returns the next duel (again, unchanged, while it is
/// unanswered; it ignores the RNG: MR-LPF is deterministic); [`Optimizer::observe`] takes the answer
/// to exactly that duel. With nothing pending, `observe` accepts exactly the duel `suggest` would
/// return, so a saved (query, answer) history can be replayed by `observe` alone; any other duel is
/// an error (MR-LPF's rounds are made of its own queries only). Both error after T duels.
#[derive(Debug, Clone)]
pub struct MrLpf {
    config: MrLpfConfig,
    domain: FiniteDomain,
    schedule: Vec<usize>,
    betas: Vec<f64>,
    /// 0-based index of the current round (== schedule.len() once finished).
    round: usize,
    /// Duels observed in the current round.
    position: usize,
    active: Vec<usize>,
    /// The current round's duels, fit and posterior (noise ρ_r).
    model: PreferenceModel,
    pending: Option<IndexPair>,
    records: Vec<RoundRecord>,
    steps: usize,
}

impl MrLpf {
    /// MR-LPF with a checked config ([`MrLpfConfig::check`]): computes the schedule for
    /// T = `ctx.horizon()` and the base Gram of the candidates once.
    pub fn new(ctx: &SearchContext, config: ValidMrLpfConfig) -> Result<Self> {
        let config = config.into_config();
        let schedule = round_schedule(ctx.horizon())?;
        let domain = ctx.domain().clone();
        let n = domain.len();
        let betas =
            (1..=schedule.len()).map(|r| config.beta_for_round(r, schedule.len(), n)).collect::<Result<Vec<_>>>()?;
        let model =
            PreferenceModel::new(config.inference.base_gram(&domain)?, config.inference.estimator()?, config.rho(1))?;
        Ok(Self {
            config,
            domain,
            schedule,
            betas,
            round: 0,
            position: 0,
            active: (0..n).collect(),
            model,
            pending: None,
            records: Vec::new(),
            steps: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MrLpfConfig {
        &self.config
    }

    /// The round lengths N_1, …, N_R.
    pub fn schedule(&self) -> &[usize] {
        &self.schedule
    }

    /// β_(1), …, β_(R).
    pub fn betas(&self) -> &[f64] {
        &self.betas
    }

    /// The current round r (1-based); R + 1 once all T duels are answered.
    pub fn round(&self) -> usize {
        self.round + 1
    }

    /// The number of duels answered in the current round.
    pub fn position_in_round(&self) -> usize {
        self.position
    }

    /// The number of duels answered so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// True once all T duels are answered.
    pub fn is_finished(&self) -> bool {
        self.round >= self.schedule.len()
    }

    /// The current active set M_r (M_{R+1} once finished), sorted candidate indices.
    pub fn active_set(&self) -> &[usize] {
        &self.active
    }

    /// The completed rounds.
    pub fn records(&self) -> &[RoundRecord] {
        &self.records
    }

    /// The current round's dueling posterior (its own duels only, noise ρ_r).
    pub fn posterior(&self) -> &DuelingPosterior {
        self.model.posterior()
    }

    /// The current round's preference model (its duels, its posterior; its fit once closed).
    pub fn model(&self) -> &PreferenceModel {
        &self.model
    }

    /// The base Gram of the candidates.
    pub fn base_gram(&self) -> &DMatrix<f64> {
        self.model.base_gram()
    }

    /// All N_r pairs of the current round, computed upfront from the round's start (they do not depend
    /// on the round's labels, note §3.2). Entry `position_in_round()` onwards are what
    /// [`Optimizer::suggest`] returns next. Errors once the run is finished.
    pub fn round_pairs(&self) -> Result<Vec<IndexPair>> {
        if self.is_finished() {
            return Err(self.finished_error());
        }
        let r = self.round + 1;
        max_variance_batch(
            self.model.base_gram(),
            &self.active,
            self.config.rho(r),
            self.schedule[self.round],
            self.config.initial_sigma,
        )
    }

    /// [`MrLpf::round_pairs`] as duel queries, e.g. to send a whole round to respondents at once.
    pub fn round_batch(&self) -> Result<Vec<Query>> {
        self.round_pairs()?.into_iter().map(|(i, j)| self.duel(i, j)).collect()
    }

    fn duel(&self, i: usize, j: usize) -> Result<Query> {
        Ok(Query::Duel(self.domain.point(i)?, self.domain.point(j)?))
    }

    fn finished_error(&self) -> Error {
        Error::invalid("horizon", format!("MR-LPF has made all T = {} queries", self.schedule.iter().sum::<usize>()))
    }

    /// Closes the current round (its model holds the round's duels and end-of-round fit):
    /// elimination with the fit and the round's σ, record, next round.
    fn close_round(&mut self) -> Result<()> {
        let r = self.round + 1;
        let beta = self.betas[self.round];
        let survivors = self.model.plausible(&self.active, beta)?;
        let record = RoundRecord {
            round: r,
            rho: self.model.posterior().rho(),
            beta,
            active: self.active.clone(),
            survivors: survivors.clone(),
            duels: self.model.duels().clone(),
            utility: self.model.utility().clone(),
        };
        if r < self.schedule.len() {
            self.model.reset(self.config.rho(r + 1))?;
        }
        self.records.push(record);
        self.active = survivors;
        self.round += 1;
        self.position = 0;
        Ok(())
    }
}

impl Optimizer for MrLpf {
    fn name(&self) -> &'static str {
        "MR-LPF"
    }

    fn suggest(&mut self, _rng: &mut dyn Rng) -> Result<Query> {
        if self.is_finished() {
            return Err(self.finished_error());
        }
        let pair = match self.pending {
            Some(p) => p,
            None => next_pair(self.model.posterior(), &self.active, self.position, self.config.initial_sigma)?,
        };
        self.pending = Some(pair);
        self.duel(pair.0, pair.1)
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        if self.is_finished() {
            return Err(self.finished_error());
        }
        // MR-LPF's data must be its own queries: the pending suggestion, or (replaying a saved history
        // without calling suggest) the duel suggest() would return now.
        let expected = match self.pending {
            Some(p) => p,
            None => next_pair(self.model.posterior(), &self.active, self.position, self.config.initial_sigma)?,
        };
        let duel: Duel = self.domain.answered_duel(query, &answer, Some(expected), self.name())?;
        let closes_round = self.position + 1 == self.schedule[self.round];
        // The end-of-round fit is from θ = 0 (Algorithm 1); within a round only σ is needed. On an
        // error (solver failure, elimination) the state is restored untouched.
        let saved = closes_round.then(|| self.model.clone());
        self.model.observe(&[duel], if closes_round { Refit::Cold } else { Refit::Defer })?;
        if let Some(saved) = saved
            && let Err(e) = self.close_round()
        {
            self.model = saved;
            return Err(e);
        }
        self.pending = None;
        self.position += usize::from(!closes_round);
        self.steps += 1;
        Ok(())
    }

    fn recommend(&self) -> Result<Point> {
        let best = match self.records.last() {
            Some(rec) => argmax_lowest_in("MR-LPF utility over M_r", &self.active, |i| rec.utility[i])?,
            None => self.active[0],
        };
        self.domain.point(best)
    }
}
