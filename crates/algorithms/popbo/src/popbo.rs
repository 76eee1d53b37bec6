//! The POP-BO optimiser on a finite candidate set (Algorithm 1 with x′_t = x_{t−1}).

use crate::config::{InitialPoint, PopBoConfig, ReportRule, ValidPopBoConfig};
use crate::report::{pair_sigmas, t_star};
use bohf_confidence::{Candidate, ConfidenceProblem, ConfidenceSet, MleFit, Observation};
use bohf_core::argmax_lowest;
use bohf_core::rand::{Rng, RngExt};
use bohf_core::{Answer, Duel, Error, FiniteDomain, Optimizer, Point, Query, Result, SearchContext};
use nalgebra::DMatrix;

/// What the last [`Optimizer::suggest`] computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepInfo {
    /// The number t − 1 of duels the confidence set was built from.
    pub duels: usize,
    /// β used for the set.
    pub beta: f64,
    /// The maximal optimistic advantage max_x max_{f̃ ∈ C_t} f̃(x) − f̃(x′_t).
    pub advantage: f64,
    /// Candidate index of x_t.
    pub chosen: usize,
    /// Candidate index of x′_t = x_{t−1}.
    pub reference: usize,
    /// How many inner conic programs were solved (the others were pruned by certified bounds).
    pub solved: usize,
    /// The number of candidates searched.
    pub candidates: usize,
}

/// POP-BO (Xu et al., ICML 2024, Algorithm 1) on a finite candidate set.
///
/// At step t (1-based), with the t − 1 duels D_{t−1} observed so far:
///
/// 1. x′_t = x_{t−1} (x₀ from [`PopBoConfig::initial`] at the first step);
/// 2. the norm-constrained MLE ℓ* = max {ℓ(Z | D_{t−1}) : ZᵀK⁻¹Z ≤ B²} over the latent values Z at
///    the support x₀ and the observed points (eq. (22)) and the likelihood-ratio confidence set
///    C_t = {‖f̃‖ ≤ B, ℓ(f̃) ≥ ℓ* − β_{t−1}} (eq. (9), β from [`PopBoConfig::beta`]; no likelihood
///    constraint when t = 1);
/// 3. x_t = argmax over the candidates of the optimistic advantage
///    A_t(x) = max_{f̃ ∈ C_t} f̃(x) − f̃(x′_t), each value the convex program (24) (Lemma 4.1), solved
///    exactly with clarabel ([`bohf_confidence::ConfidenceSet::optimistic_advantage`]) where the
///    certified screening of [`ConfidenceSet::maximise_advantage`] cannot rule the candidate out;
/// 4. the duel (x_t, x′_t) is asked.
///
/// **Speed.** Per step, everything that does not depend on x is done once: the support Gram factor
/// and the MLE ([`bohf_confidence::ConfidenceProblem`], refreshed in `observe`), the whitened
/// coordinates l_x = L⁻¹k_x of all candidates (one triangular solve with N right-hand sides), and the
/// clarabel solver of the set (a candidate changes only the objective). The argmax then solves only
/// the candidates whose certified upper bound (B‖g_x‖, tightened by the tangent halfspace of the
/// log-likelihood at every solved optimum, the halfspace of every solved direction and, with the
/// latent box, the Lagrangian cuts of the box rows, which screen the plateau where f̃(x) reaches
/// the box) can still beat the best value found, largest bound
/// first, with the MLE and earlier optima as certified lower bounds
/// ([`ConfidenceSet::maximise_advantage`]);
/// [`StepInfo::solved`] says how many were solved. The
/// result equals the argmax of the exact values up to the solver tolerance
/// ([`PopBo::optimistic_advantages`] computes them all, for checking). Repeated duels are one
/// weighted term of the programs and self-duels (x_t = x′_t, how POP-BO ends on a finite domain)
/// leave them unchanged ([`ConfidenceProblem::same_program`]): then the MLE is reused without a
/// solve, and if β and x′ are also unchanged, so is the argmax (`solved = 0`).
///
/// **Recommendation** ([`PopBoConfig::report`]): the argmax of the MLE over the sampled points
/// (default), of the minimum-norm MLE interpolant over all candidates, or x_{t*} of eq. (19).
///
/// **Protocol.** [`Optimizer::observe`] accepts the duel last suggested, or, with nothing pending,
/// any duel of candidates (replaying a saved history; if x₀ is not yet set, it becomes the second
/// point of the first duel). The only randomness is x₀ ([`InitialPoint::Random`], one draw from the
/// first `suggest`'s RNG); everything else is deterministic, so replaying the history reproduces the
/// state and every later suggestion.
#[derive(Debug, Clone)]
pub struct PopBo {
    config: PopBoConfig,
    domain: FiniteDomain,
    horizon: usize,
    base_gram: DMatrix<f64>,
    x0: Option<usize>,
    duels: Vec<Duel>,
    problem: Option<ConfidenceProblem>,
    mle: Option<MleFit>,
    pending: Option<(usize, usize)>,
    last_step: Option<StepInfo>,
    /// The last argmax, valid while the program is unchanged (see [`PopBo`], "Speed").
    cache: Option<CachedSearch>,
}

/// An argmax of the optimistic advantage and what it depends on besides the program.
#[derive(Debug, Clone, Copy, PartialEq)]
struct CachedSearch {
    beta: f64,
    reference: usize,
    chosen: usize,
    value: f64,
}

impl PopBo {
    /// POP-BO on the candidates of `ctx` with a checked config ([`PopBoConfig::check`]); checks
    /// that a given x₀ (`initial.index`) is a candidate and builds the base Gram of
    /// `config.inference.kernel` once.
    pub fn new(ctx: &SearchContext, config: ValidPopBoConfig) -> Result<Self> {
        config.check_for(ctx.domain().len())?;
        let config = config.into_config();
        let base_gram = config.inference.base_gram(ctx.domain())?;
        let x0 = match config.initial {
            InitialPoint::Candidate { index } => Some(index),
            InitialPoint::Random => None,
        };
        Ok(Self {
            config,
            domain: ctx.domain().clone(),
            horizon: ctx.horizon(),
            base_gram,
            x0,
            duels: Vec::new(),
            problem: None,
            mle: None,
            pending: None,
            last_step: None,
            cache: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PopBoConfig {
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

    /// The base Gram K of the candidates.
    pub fn base_gram(&self) -> &DMatrix<f64> {
        &self.base_gram
    }

    /// x₀ (candidate index), once chosen.
    pub fn initial_point(&self) -> Option<usize> {
        self.x0
    }

    /// The observed duels (x_t, x′_t, 1_{x_t ≻ x′_t}) as candidate indices.
    pub fn duels(&self) -> &[Duel] {
        &self.duels
    }

    /// The 1-based step t whose query is chosen next.
    pub fn step(&self) -> usize {
        self.duels.len() + 1
    }

    /// x′ of the next query: x_{t−1}, i.e. the first point of the last duel, or x₀.
    pub fn reference(&self) -> Option<usize> {
        self.duels.last().map(|d| d.first).or(self.x0)
    }

    /// The suggestion awaiting its answer, as candidate indices.
    pub fn pending(&self) -> Option<(usize, usize)> {
        self.pending
    }

    /// What the last suggestion computed.
    pub fn last_step(&self) -> Option<&StepInfo> {
        self.last_step.as_ref()
    }

    /// The data part of the current confidence set (support, Gram factor, duels), once x₀ is known.
    pub fn problem(&self) -> Option<&ConfidenceProblem> {
        self.problem.as_ref()
    }

    /// The current norm-constrained MLE, once x₀ is known.
    pub fn mle(&self) -> Option<&MleFit> {
        self.mle.as_ref()
    }

    /// β of the confidence set built from the current data (t − 1 duels).
    pub fn beta(&self) -> Result<f64> {
        bohf_confidence::beta_at(&self.config.beta, self.duels.len(), self.config.confidence.norm_bound)
    }

    /// The confidence problem and MLE of `duels` with support x₀ ∪ observed points; the current MLE
    /// is reused (no solve) when the program is the same, and then the second value is `true`.
    fn fit(&self, x0: usize, duels: &[Duel]) -> Result<(ConfidenceProblem, MleFit, bool)> {
        let obs: Vec<Observation> = duels.iter().copied().map(Observation::Duel).collect();
        let problem = ConfidenceProblem::on_candidates(&self.base_gram, &[x0], &obs, &self.config.confidence)?;
        if let (Some(old), Some(fit)) = (&self.problem, &self.mle)
            && problem.same_program(old)
        {
            let mle = problem.mle_from(old, fit)?;
            return Ok((problem, mle, true));
        }
        let mle = problem.mle()?;
        Ok((problem, mle, false))
    }

    /// Makes sure x₀, the problem and the MLE exist (drawing x₀ from `rng` if needed).
    fn ensure_initialised(&mut self, rng: Option<&mut dyn Rng>) -> Result<()> {
        if self.x0.is_none() {
            let rng = rng.ok_or_else(|| Error::invalid("initial", "x₀ is not chosen yet"))?;
            self.x0 = Some(rng.random_range(0..self.domain.len()));
        }
        if self.problem.is_none() {
            let (p, m, _) = self.fit(self.x0.expect("set above"), &self.duels)?;
            self.problem = Some(p);
            self.mle = Some(m);
        }
        Ok(())
    }

    /// The current confidence set C_t (ℓ ≥ ℓ* − β_{t−1}) with its clarabel solver, and the whitened
    /// candidates. Errors before x₀ is chosen.
    pub fn confidence_set(&self) -> Result<(ConfidenceSet, Vec<Candidate>)> {
        let (problem, mle) = match (&self.problem, &self.mle) {
            (Some(p), Some(m)) => (p, m),
            _ => return Err(Error::invalid("initial", "x₀ is not chosen yet: call suggest first")),
        };
        let set = ConfidenceSet::new(problem, mle, self.beta()?)?;
        let all: Vec<usize> = (0..self.domain.len()).collect();
        let candidates = problem.candidates_from_gram(&self.base_gram, &all)?;
        Ok((set, candidates))
    }

    fn reference_position(&self) -> Result<usize> {
        let r = self.reference().ok_or_else(|| Error::invalid("initial", "x₀ is not chosen yet"))?;
        self.problem
            .as_ref()
            .and_then(|p| p.support_position(r))
            .ok_or_else(|| Error::invalid("reference", format!("x′ = candidate {r} is not a support point")))
    }

    /// The exact optimistic advantage A_t(x) at every candidate (one conic program each, no pruning):
    /// the quantity [`Optimizer::suggest`] maximises. For checks and plots; errors before x₀ is set.
    pub fn optimistic_advantages(&self) -> Result<Vec<f64>> {
        let (mut set, candidates) = self.confidence_set()?;
        let r = self.reference_position()?;
        candidates.iter().map(|c| set.optimistic_advantage(c, r).map(|s| s.value)).collect()
    }

    /// The minimum-norm MLE interpolant f̂(x) = k_xᵀK⁻¹Ẑ at every candidate (zero before x₀ is set).
    pub fn mle_on_candidates(&self) -> Result<Vec<f64>> {
        let (Some(problem), Some(mle)) = (&self.problem, &self.mle) else {
            return Ok(vec![0.0; self.domain.len()]);
        };
        let all: Vec<usize> = (0..self.domain.len()).collect();
        problem.candidates_from_gram(&self.base_gram, &all)?.iter().map(|c| mle.value_at(c)).collect()
    }

    /// σ_t^{ff′}((x_t, x′_t)) of eq. (16) along the observed duels, with regulariser λ.
    pub fn pair_sigmas(&self, lambda: f64) -> Result<Vec<f64>> {
        let pairs: Vec<(usize, usize)> = self.duels.iter().map(Duel::pair).collect();
        pair_sigmas(&self.base_gram, &pairs, lambda)
    }

    /// The candidate index the report rule gives now (see [`PopBoConfig::report`]). Before any
    /// duel: x₀ (candidate 0 if x₀ is not chosen yet).
    pub fn report(&self) -> Result<usize> {
        let x0 = self.x0.unwrap_or(0);
        if self.duels.is_empty() {
            return Ok(x0);
        }
        let (problem, mle) = match (&self.problem, &self.mle) {
            (Some(p), Some(m)) => (p, m),
            _ => return Ok(x0),
        };
        match self.config.report {
            ReportRule::MaxMleSampled => {
                let support = problem.support().expect("built on candidates");
                Ok(support[argmax_lowest(mle.z.iter().copied())?])
            }
            ReportRule::MaxMleGrid => argmax_lowest(self.mle_on_candidates()?),
            ReportRule::TheoreticalTStar { lambda } => {
                let sigmas = self.pair_sigmas(lambda)?;
                let b = self.config.confidence.norm_bound;
                let betas = (1..=sigmas.len())
                    .map(|t| bohf_confidence::beta_at(&self.config.beta, t, b))
                    .collect::<Result<Vec<_>>>()?;
                let t = t_star(b, lambda, &betas, &sigmas).expect("at least one duel");
                Ok(self.duels[t].first)
            }
        }
    }

    /// Appends duels and refits; the state changes only if everything succeeds.
    fn record(&mut self, new: &[Duel]) -> Result<()> {
        let x0 = self.x0.unwrap_or(new[0].second);
        let mut duels = self.duels.clone();
        duels.extend_from_slice(new);
        let (problem, mle, same) = self.fit(x0, &duels)?;
        if !same {
            self.cache = None;
        }
        self.x0 = Some(x0);
        self.duels = duels;
        self.problem = Some(problem);
        self.mle = Some(mle);
        self.pending = None;
        Ok(())
    }
}

impl Optimizer for PopBo {
    fn name(&self) -> &'static str {
        "POP-BO"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        self.ensure_initialised(Some(rng))?;
        let reference = self.reference().expect("initialised");
        let beta = self.beta()?;
        let candidates = self.domain.len();
        let cached = self.cache.filter(|c| c.beta == beta && c.reference == reference);
        let (chosen, advantage, solved) = match cached {
            Some(c) => (c.chosen, c.value, 0),
            None => {
                let (mut set, candidates) = self.confidence_set()?;
                let r = self.reference_position()?;
                let search = set.maximise_advantage(&candidates, r, Some(&candidates[reference]))?;
                self.cache = Some(CachedSearch { beta, reference, chosen: search.best, value: search.value });
                (search.best, search.value, search.solved)
            }
        };
        self.last_step =
            Some(StepInfo { duels: self.duels.len(), beta, advantage, chosen, reference, solved, candidates });
        self.pending = Some((chosen, reference));
        Ok(Query::Duel(self.domain.point(chosen)?, self.domain.point(reference)?))
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let duel = self.domain.answered_duel(query, &answer, self.pending, self.name())?;
        self.record(&[duel])
    }

    /// Validates the whole history first, then one fit; on an error nothing is recorded.
    fn observe_batch(&mut self, steps: &[(Query, Answer)]) -> Result<()> {
        let duels = self.domain.answered_duels(steps, self.pending, self.name())?;
        if duels.is_empty() {
            return Ok(());
        }
        self.record(&duels)
    }

    fn recommend(&self) -> Result<Point> {
        self.domain.point(self.report()?)
    }
}
