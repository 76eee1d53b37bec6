//! # bohf-eubo
//!
//! The acquisitions most researchers run with BoTorch's `PairwiseGP`, on bohf's Laplace preference
//! GP ([`bohf_gp::LaplacePreferenceGp`], Chu & Ghahramani 2005), on finite candidate sets and
//! boxes. Guide: `docs/eubo.md`.
//!
//! * [`Eubo`] / [`EuboConfig`]: EUBO (Lin, Astudillo, Frazier & Bakshy 2022, eq. (6)), the duel
//!   maximising E[max(f(x), f(x′))] in closed form (Clark 1961,
//!   [`bohf_core::special::expected_max_of_two`]).
//! * [`Qeubo`] / [`QeuboConfig`]: qEUBO (Astudillo et al. 2023), E[max_i f(x_i)] by a sample
//!   average over fixed base samples ([`qeubo_mc`]); duels at q = 2, best-of-q choices
//!   ([`bohf_core::Query::Choice`]) at q ≥ 3, learnt through the Laplace GP's multinomial-logit
//!   choice likelihood.
//! * [`Dts`] / [`DtsConfig`]: dueling Thompson sampling (González et al. 2017, §4.3).
//!
//! **The loop** ([`LaplaceBo`]). Points are mapped to the unit cube (of the box, or of the
//! candidates' bounding box). Uniformly random queries come first (`initial_duels`: duels, or
//! choices among q random options for qEUBO with q ≥ 3; and until one query between distinct
//! points was answered); after each answer the Laplace GP is refitted: its
//! hyperparameters by maximum Laplace evidence with the configured priors on the `refit_every`
//! schedule, warm-started from the current ones ([`bohf_gp::fit_laplace`]), otherwise only the MAP
//! utilities, Newton warm-started from the previous mode.
//!
//! **The duel.** EUBO and qEUBO (q = 2): on a finite domain, the exact argmax over the pairs of the
//! `pair_screen` candidates with the largest m + σ (all pairs when there are fewer candidates,
//! which is then the brute-force argmax; lowest pair in lexicographic order on ties); on a box,
//! bohf-optim's multistart L-BFGS ([`bohf_optim::maximize_on_box`]) over the 2d-dimensional
//! product box, with the analytic gradient ([`eubo_with_gradient`], [`qeubo_mc_with_gradient`]).
//! DTS: the first point is the argmax of one joint posterior sample of f on the candidates (on a
//! box: on a pool of `pool` scrambled Sobol points plus the compared points), the second the
//! argmax over the same points of the posterior variance of the duel's outcome probability
//! against the first ([`duel_outcome_variance`]).
//!
//! **The choice** (qEUBO, q ≥ 3): on a finite domain, the exact argmax over the q-subsets of the
//! screened candidates when there are at most [`EXACT_SUBSETS`], otherwise greedy (the best pair,
//! then the best addition) followed by single-option swaps to a local optimum; on a box, the
//! multistart search over the q·d-dimensional product box ([`maximize_options_on_unit_box`]).
//!
//! **Recommendation**: the candidate with the largest posterior mean (finite), or the compared
//! point with the largest posterior mean (box).
#![warn(missing_docs)]

mod acquisition;
mod config;
mod engine;

pub use acquisition::{base_samples, duel_outcome_variance, eubo_with_gradient, qeubo_mc, qeubo_mc_with_gradient};
pub use config::{
    DtsConfig, EuboConfig, LaplaceModelConfig, MAX_MC_SAMPLES, MAX_PAIR_SCREEN, MAX_POOL, MAX_Q, QeuboConfig,
    ValidDtsConfig, ValidEuboConfig, ValidLaplaceModelConfig, ValidQeuboConfig,
};
pub use engine::{EXACT_SUBSETS, LaplaceBo, Rule, Step, maximize_options_on_unit_box};

use bohf_core::{Answer, BoxDomain, Optimizer, Point, Query, Result, SearchContext, StepDetails};
use bohf_optim::ValidMultistartConfig;
use rand::Rng;

macro_rules! delegate_optimizer {
    ($ty:ident, $name:literal) => {
        impl $ty {
            /// The shared loop's state (model, history, last step).
            pub fn engine(&self) -> &LaplaceBo {
                &self.0
            }
        }

        impl Optimizer for $ty {
            fn name(&self) -> &'static str {
                $name
            }

            /// A random initial query, or the rule's query (module docs of the crate); every random
            /// draw comes from `rng`.
            fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
                self.0.suggest(rng)
            }

            /// Errors (naming `query`, `answer` or `answer.index`) for a query that is not a duel
            /// (qEUBO also takes best-of-k choices), a point that is not a candidate or outside the
            /// box, repeated options, options other than the pending suggestion, or an answer of
            /// the wrong kind or out of range; a failed refit errors too. Nothing is recorded then.
            fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
                self.0.observe(query, answer)
            }

            fn recommend(&self) -> Result<Point> {
                self.0.recommend()
            }

            /// `phase` (initial, acquisition), `acquisition`, `duels`, `evaluations`,
            /// `lengthscales`, `outputscale`.
            fn step_details(&self) -> StepDetails {
                self.0.step_details()
            }
        }
    };
}

/// EUBO on the Laplace preference GP; see the crate docs.
#[derive(Debug, Clone)]
pub struct Eubo(LaplaceBo);

impl Eubo {
    /// On the candidates of `ctx` (at least 2).
    pub fn new(ctx: &SearchContext, config: ValidEuboConfig) -> Result<Self> {
        let model = config.checked_model().clone();
        let c = config.into_config();
        let rule = Rule::Eubo { pair_screen: c.pair_screen };
        Ok(Self(LaplaceBo::finite("EUBO", model, c.initial_duels, rule, ctx.domain())?))
    }

    /// On the box of `ctx`, the duel by the multistart search `search` over the product box.
    pub fn new_box(
        ctx: &SearchContext<BoxDomain>,
        config: ValidEuboConfig,
        search: ValidMultistartConfig,
    ) -> Result<Self> {
        let model = config.checked_model().clone();
        let c = config.into_config();
        let rule = Rule::Eubo { pair_screen: c.pair_screen };
        Ok(Self(LaplaceBo::boxed("EUBO", model, c.initial_duels, rule, ctx.domain(), Some(search.into_config()))?))
    }
}

delegate_optimizer!(Eubo, "EUBO");

/// qEUBO (duels at q = 2, best-of-q choices at q ≥ 3) on the Laplace preference GP; see the crate docs.
#[derive(Debug, Clone)]
pub struct Qeubo(LaplaceBo);

impl Qeubo {
    /// On the candidates of `ctx` (at least 2).
    pub fn new(ctx: &SearchContext, config: ValidQeuboConfig) -> Result<Self> {
        let model = config.checked_model().clone();
        let c = config.into_config();
        let rule = Rule::Qeubo { pair_screen: c.pair_screen, mc_samples: c.mc_samples, q: c.q };
        Ok(Self(LaplaceBo::finite("qEUBO", model, c.initial_duels, rule, ctx.domain())?))
    }

    /// On the box of `ctx`, the duel by the multistart search `search` over the product box.
    pub fn new_box(
        ctx: &SearchContext<BoxDomain>,
        config: ValidQeuboConfig,
        search: ValidMultistartConfig,
    ) -> Result<Self> {
        let model = config.checked_model().clone();
        let c = config.into_config();
        let rule = Rule::Qeubo { pair_screen: c.pair_screen, mc_samples: c.mc_samples, q: c.q };
        Ok(Self(LaplaceBo::boxed("qEUBO", model, c.initial_duels, rule, ctx.domain(), Some(search.into_config()))?))
    }
}

delegate_optimizer!(Qeubo, "qEUBO");

/// Dueling Thompson sampling on the Laplace preference GP; see the crate docs.
#[derive(Debug, Clone)]
pub struct Dts(LaplaceBo);

impl Dts {
    /// On the candidates of `ctx` (at least 2).
    pub fn new(ctx: &SearchContext, config: ValidDtsConfig) -> Result<Self> {
        let model = config.checked_model().clone();
        let c = config.into_config();
        Ok(Self(LaplaceBo::finite("DTS", model, c.initial_duels, Rule::Dts { pool: c.pool }, ctx.domain())?))
    }

    /// On the box of `ctx`, on a pool of `pool` Sobol points plus the compared points.
    pub fn new_box(ctx: &SearchContext<BoxDomain>, config: ValidDtsConfig) -> Result<Self> {
        let model = config.checked_model().clone();
        let c = config.into_config();
        Ok(Self(LaplaceBo::boxed("DTS", model, c.initial_duels, Rule::Dts { pool: c.pool }, ctx.domain(), None)?))
    }
}

delegate_optimizer!(Dts, "DTS");

#[cfg(test)]
mod tests;
