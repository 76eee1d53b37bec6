//! Uniform random duels: the no-learning reference for the regret curves.
//!
//! Each round draws x and x′ independently and uniformly from the n candidates (so a self-duel
//! (x, x) has probability 1/n), or from the box ([`RandomDuelsBox`]). Its expected per-step
//! dueling regret (MR-LPF eq. (1), PF-TS eq. (2)) is therefore exactly E_x μ(f* − f(x)) − 1/2 at
//! every step.

use bohf_core::{Answer, BoxDomain, FiniteDomain, Optimizer, Point, Query, Result, SearchContext, check_pending};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

/// Settings of [`RandomDuels`]: there are none (the struct exists so that every algorithm is built
/// from a config; an empty table in a config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct RandomDuelsConfig {}

bohf_core::validated! {
    /// A [`RandomDuelsConfig`] that passed [`RandomDuelsConfig::check`]: what [`RandomDuels::new`]
    /// takes.
    pub struct ValidRandomDuelsConfig(RandomDuelsConfig);
}

impl RandomDuelsConfig {
    /// The one check of the settings: there are none, so it always succeeds.
    pub fn check(&self) -> Result<ValidRandomDuelsConfig> {
        Ok(ValidRandomDuelsConfig(self.clone()))
    }
}

/// Uniform random ordered pairs (x, x′), x and x′ independent and uniform over the candidates.
///
/// **Recommendation.** The candidate with the most wins among the observed duels, lowest index on
/// ties; a self-duel (x, x) counts for nobody. Before any win: the first point of the latest
/// suggestion (a uniform candidate), or candidate 0 if nothing was ever suggested (recommend takes
/// no RNG, so the uniform draw is the one made by `suggest`).
///
/// **Protocol.** As for every bohf algorithm: [`Optimizer::observe`] takes the answer to the
/// pending suggestion (ordered pair), or, with nothing pending, to any duel of candidates
/// (replaying a history); a new `suggest` replaces a pending one. Each suggestion consumes two
/// uniform draws `random_range(0..n)` from the given RNG.
#[derive(Debug, Clone)]
pub struct RandomDuels {
    config: RandomDuelsConfig,
    domain: FiniteDomain,
    wins: Vec<usize>,
    duels: usize,
    pending: Option<(usize, usize)>,
    last_suggested: Option<usize>,
}

impl RandomDuels {
    /// Uniform random duels on the candidates of `ctx` (the horizon is not used).
    pub fn new(ctx: &SearchContext, config: ValidRandomDuelsConfig) -> Result<Self> {
        let config = config.into_config();
        Ok(Self {
            config,
            domain: ctx.domain().clone(),
            wins: vec![0; ctx.domain().len()],
            duels: 0,
            pending: None,
            last_suggested: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RandomDuelsConfig {
        &self.config
    }

    /// Wins per candidate among the observed duels (self-duels excluded).
    pub fn wins(&self) -> &[usize] {
        &self.wins
    }

    /// The number of observed duels.
    pub fn len(&self) -> usize {
        self.duels
    }

    /// True before the first observed duel.
    pub fn is_empty(&self) -> bool {
        self.duels == 0
    }

    /// The pending suggestion, if any.
    pub fn pending(&self) -> Option<(usize, usize)> {
        self.pending
    }
}

impl Optimizer for RandomDuels {
    fn name(&self) -> &'static str {
        "random duels"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let n = self.domain.len();
        let i = rng.random_range(0..n);
        let j = rng.random_range(0..n);
        self.pending = Some((i, j));
        self.last_suggested = Some(i);
        Ok(Query::Duel(self.domain.point(i)?, self.domain.point(j)?))
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let duel = self.domain.answered_duel(query, &answer, self.pending, self.name())?;
        if duel.first != duel.second {
            self.wins[duel.winner()] += 1;
        }
        self.duels += 1;
        self.pending = None;
        Ok(())
    }

    fn recommend(&self) -> Result<Point> {
        let most = self.wins.iter().copied().max().unwrap_or(0);
        let index = if most > 0 {
            self.wins.iter().position(|&w| w == most).unwrap_or(0)
        } else {
            self.last_suggested.unwrap_or(0)
        };
        self.domain.point(index)
    }
}

/// Uniform random duels on a box: x and x′ independent uniform draws ([`BoxDomain::random_duel`]).
///
/// **Recommendation.** The winner of the latest observed duel (on a box no point recurs, so no
/// point has more than the one win a "most wins" rule could count); before any duel, the first
/// point of the latest suggestion, or the box's centre if nothing was ever suggested.
///
/// **Protocol.** As [`RandomDuels`]: `observe` takes the answer to the pending suggestion or, with
/// nothing pending, to any duel of points of the box (replaying a history). Each suggestion
/// consumes 2d uniform draws from the given RNG.
#[derive(Debug, Clone)]
pub struct RandomDuelsBox {
    config: RandomDuelsConfig,
    domain: BoxDomain,
    duels: usize,
    pending: Option<(Vec<f64>, Vec<f64>)>,
    last_suggested: Option<Vec<f64>>,
    last_winner: Option<Vec<f64>>,
}

impl RandomDuelsBox {
    /// Uniform random duels on the box of `ctx` (the horizon is not used).
    pub fn new(ctx: &SearchContext<BoxDomain>, config: ValidRandomDuelsConfig) -> Result<Self> {
        Ok(Self {
            config: config.into_config(),
            domain: ctx.domain().clone(),
            duels: 0,
            pending: None,
            last_suggested: None,
            last_winner: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RandomDuelsConfig {
        &self.config
    }

    /// The number of observed duels.
    pub fn len(&self) -> usize {
        self.duels
    }

    /// True before the first observed duel.
    pub fn is_empty(&self) -> bool {
        self.duels == 0
    }
}

impl Optimizer for RandomDuelsBox {
    fn name(&self) -> &'static str {
        "random duels"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let query = self.domain.random_duel(rng);
        let (p, q) = query.duel_points(self.name())?;
        self.pending = Some((p.coords.clone(), q.coords.clone()));
        self.last_suggested = Some(p.coords.clone());
        Ok(query)
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let (p, q) = query.duel_points(self.name())?;
        let first_wins = answer.duel_outcome()?;
        let (x, xp) = (self.domain.checked_point(p, "first")?, self.domain.checked_point(q, "second")?);
        check_pending(self.pending.as_ref().map(|(a, b)| (a.as_slice(), b.as_slice())), (x, xp))?;
        self.last_winner = Some(if first_wins { x.to_vec() } else { xp.to_vec() });
        self.duels += 1;
        self.pending = None;
        Ok(())
    }

    fn recommend(&self) -> Result<Point> {
        let centre = || self.domain.lower().iter().zip(self.domain.upper()).map(|(l, u)| 0.5 * (l + u)).collect();
        let x = self.last_winner.clone().or_else(|| self.last_suggested.clone()).unwrap_or_else(centre);
        Ok(Point::continuous(x))
    }
}
