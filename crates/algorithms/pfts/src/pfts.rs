//! The PF-TS optimiser (PF-TS Algorithm 1 with double-TS pairing, utility-space sampler).

use crate::anchored::AnchoredSampler;
use crate::config::{PfTsConfig, ValidPfTsConfig};
use bohf_core::rand::Rng;
use bohf_core::{Answer, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext};
use bohf_gp::exploration::{Feedback, TheoryInputs};
use bohf_gp::{DuelingPosterior, Duels, JointSampler, PreferenceFit, PreferenceModel, Refit};
use bohf_infogain::{PairKernel, greedy_pairs};
use nalgebra::{DMatrix, DVector};
use rand_distr::{Distribution, StandardNormal};

use bohf_core::argmax_lowest;

/// PF-TS (Lazzaro et al. 2026, Algorithm 1) on a finite candidate set.
///
/// At the 1-based round t, with the t − 1 duels observed so far (causal indexing, note §3.1; at
/// t = 1 the prior: g ≡ 0, Ŝ = K):
///
/// 1. h_t(x, x′) = g_t(x) − g_t(x′) is the kernel logistic MLE (eq. (6)–(8), [`bohf_gp::KernelLogistic`])
///    and Ŝ_t the utility-space posterior covariance whose dueling form is k^D_t of eq. (9)
///    ([`bohf_gp::DuelingPosterior`], noise ρ = λκ);
/// 2. two independent joint draws f̃⁽ᵏ⁾ = g_t + v_t F z⁽ᵏ⁾, z⁽ᵏ⁾ ~ N(0, I_r), F Fᵀ = Ŝ_t, k = 1, 2
///    (lines 4–5; [`PfTs::sampler`]);
/// 3. x_t = argmax f̃⁽¹⁾, x′_t = argmax f̃⁽²⁾ over the candidates, lowest index on ties (lines 7–8).
///
/// Step 3 replaces "argmax_x h̃⁽ᵏ⁾(x, x₀) for an anchor x₀": h̃⁽ᵏ⁾(x, x₀) = f̃⁽ᵏ⁾(x) − f̃⁽ᵏ⁾(x₀) has
/// exactly the law GP(h_t, v_t² k^D_t) restricted to (·, x₀) (note §2.6, Proposition 1), so the
/// selected actions have the paper's distribution for every anchor; [`AnchoredSampler`] implements
/// the anchored form for tests. The exploration scale v_t comes from
/// [`PfTsConfig::exploration`]; the theoretical schedule uses Γ(t) = the upper end g_t/(1 − 1/e) of
/// bohf-infogain's greedy bracket for the dueling kernel with noise λκ, computed once in
/// [`PfTs::new`] for all t ≤ T (cost O(n²T)).
///
/// **State.** The duels, the posterior Ŝ (updated by one O(n²) rank-one step per duel) and the fit
/// (refitted after every observed duel by Newton, warm-started from the previous fit), so a
/// suggestion costs one pivoted-Cholesky factorisation of Ŝ (O(n²r)) and two O(nr) draws.
///
/// **Recommendation.** The argmax of the current fitted utility g_t, lowest index on ties
/// (candidate 0 before any duel). The paper's figures report the regret r_t of the played pair
/// instead, which the experiment runner computes from the queries.
///
/// **Protocol.** [`Optimizer::observe`] accepts the duel that was last suggested (ordered), or, when
/// nothing is pending, any duel of candidates (replaying a saved history, or data from elsewhere);
/// a new [`Optimizer::suggest`] replaces a pending suggestion. Randomness comes only from the RNG
/// given to `suggest` (2r standard normals per round, first draw first), so replaying the same
/// (query, answer) history with the same RNG stream reproduces every suggestion.
#[derive(Debug, Clone)]
pub struct PfTs {
    config: PfTsConfig,
    domain: FiniteDomain,
    horizon: usize,
    model: PreferenceModel,
    theory: Option<TheoryInputs>,
    pending: Option<(usize, usize)>,
}

impl PfTs {
    /// PF-TS on the candidates of `ctx` with horizon T = `ctx.horizon()` and a checked config
    /// ([`PfTsConfig::check`]); builds the base Gram once and, for the theoretical schedule, Γ(0..=T).
    pub fn new(ctx: &SearchContext, config: ValidPfTsConfig) -> Result<Self> {
        let config = config.into_config();
        let inference = &config.inference;
        let model = inference.model(ctx.domain())?;
        let theory = if bohf_gp::exploration::needs_theory(&config.exploration) {
            let greedy = greedy_pairs(model.base_gram(), PairKernel::Dueling, inference.rho(), ctx.horizon())?;
            let gamma =
                (0..=ctx.horizon()).map(|s| greedy.bracket_at(s).map(|b| b.upper)).collect::<Result<Vec<_>>>()?;
            let feedback = Feedback::Preference { kappa: inference.kappa, lambda: inference.mle.lambda };
            Some(TheoryInputs::new(feedback, gamma)?)
        } else {
            None
        };
        Ok(Self { config, domain: ctx.domain().clone(), horizon: ctx.horizon(), model, theory, pending: None })
    }

    /// The configuration.
    pub fn config(&self) -> &PfTsConfig {
        &self.config
    }

    /// The candidate set.
    pub fn domain(&self) -> &FiniteDomain {
        &self.domain
    }

    /// The horizon T given at construction.
    pub fn horizon(&self) -> usize {
        self.horizon
    }

    /// The 1-based round t whose query is chosen next (number of observed duels + 1).
    pub fn round(&self) -> usize {
        self.model.duels().len() + 1
    }

    /// The preference model (duels, fit, dueling posterior).
    pub fn model(&self) -> &PreferenceModel {
        &self.model
    }

    /// The base Gram K of the candidates.
    pub fn base_gram(&self) -> &DMatrix<f64> {
        self.model.base_gram()
    }

    /// The duels observed so far.
    pub fn duels(&self) -> &Duels {
        self.model.duels()
    }

    /// The dueling posterior after the observed duels (utility-space covariance Ŝ_t).
    pub fn posterior(&self) -> &DuelingPosterior {
        self.model.posterior()
    }

    /// The current kernel logistic fit (`None` before the first duel).
    pub fn fit(&self) -> Option<&PreferenceFit> {
        self.model.fit()
    }

    /// The fitted utility g_t on the candidates (zero before the first duel).
    pub fn utility(&self) -> &DVector<f64> {
        self.model.utility()
    }

    /// Γ(0..=T) and the feedback model, when the schedule is theoretical.
    pub fn theory(&self) -> Option<&TheoryInputs> {
        self.theory.as_ref()
    }

    /// The suggestion awaiting its answer, as candidate indices.
    pub fn pending(&self) -> Option<(usize, usize)> {
        self.pending
    }

    /// v_t at the current round t = [`PfTs::round`]. Errors (naming `t`) with the theoretical
    /// schedule once t exceeds the horizon the Γ table was computed for.
    pub fn exploration_scale(&self) -> Result<f64> {
        bohf_gp::exploration_scale(&self.config.exploration, self.round(), self.theory.as_ref())
    }

    /// The utility-space sampler N(g_t, Ŝ_t) of the current round (factorises Ŝ_t; draws are scaled
    /// by v_t in [`JointSampler::transform`]).
    pub fn sampler(&self) -> Result<JointSampler> {
        self.model.sampler()
    }

    /// The anchored sampler of h̃(·, `anchor`) coupled to [`PfTs::sampler`] (same draws).
    pub fn anchored_sampler(&self, anchor: usize) -> Result<AnchoredSampler> {
        AnchoredSampler::from_utility(&self.sampler()?, anchor)
    }

    /// Algorithm 1 lines 4–8 with given standard-normal draws z (r×2, r = the sampler's rank) and
    /// scale v: (argmax of g_t + v F z⁽¹⁾, argmax of g_t + v F z⁽²⁾), lowest index on ties.
    pub fn select_with(sampler: &JointSampler, scale: f64, z: &DMatrix<f64>) -> Result<(usize, usize)> {
        if z.ncols() != 2 {
            return Err(Error::dims("standard-normal draws for a pair (columns)", 2, z.ncols()));
        }
        let f = sampler.transform(scale, z)?;
        Ok((argmax_lowest(f.column(0).iter().copied())?, argmax_lowest(f.column(1).iter().copied())?))
    }
}

impl Optimizer for PfTs {
    fn name(&self) -> &'static str {
        "PF-TS"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let scale = self.exploration_scale()?;
        let sampler = self.sampler()?;
        let r = sampler.rank();
        // Column-major: the r draws of the first sample, then the r draws of the second.
        let z = DMatrix::from_iterator(r, 2, (0..2 * r).map(|_| StandardNormal.sample(&mut *rng)));
        let (x, xp) = Self::select_with(&sampler, scale, &z)?;
        self.pending = Some((x, xp));
        Ok(Query::Duel(self.domain.point(x)?, self.domain.point(xp)?))
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let duel = self.domain.answered_duel(query, &answer, self.pending, self.name())?;
        self.model.observe(&[duel], Refit::Warm)?;
        self.pending = None;
        Ok(())
    }

    /// Validates the whole history first, then one MLE fit and, for long histories, Ŝ from scratch:
    /// the result equals observing the steps one by one up to the Newton tolerance and rounding; on
    /// an error nothing is recorded.
    fn observe_batch(&mut self, steps: &[(Query, Answer)]) -> Result<()> {
        let duels = self.domain.answered_duels(steps, self.pending, self.name())?;
        if duels.is_empty() {
            return Ok(());
        }
        self.model.observe(&duels, Refit::Warm)?;
        self.pending = None;
        Ok(())
    }

    fn recommend(&self) -> Result<Point> {
        self.domain.point(argmax_lowest(self.utility().iter().copied())?)
    }
}
