//! What COMP-GP-UCB's candidate-set and box modes (and KSS and MF-GP-UCB) share: the state of the
//! rule that the history determines ([`Progress`]), the GPs' builder and posterior on the candidates,
//! the β widths, the step details and the recording of answers.

use super::*;

/// The state of COMP-GP-UCB's rule that the history determines, shared by the candidate-set and
/// box modes (`P` is the kind of point: a candidate index, or coordinates): answered queries, the
/// phase-1 exit point and frozen f̂_r, γ and its run of comparisons, Algorithm 2's ζ_k and stage.
#[derive(Debug, Clone)]
pub(crate) struct Progress<P> {
    pub(crate) answered: usize,
    /// Exit point and frozen f̂_r, once phase 1 has ended.
    pub(crate) exit: Option<(P, f64)>,
    pub(crate) gamma: f64,
    run: usize,
    pub(crate) zeta_k: f64,
    pub(crate) stage: usize,
    stage_count: usize,
    stage_labels: Option<usize>,
}

impl<P> Progress<P> {
    /// The start: γ₀, ζ₀ (or the known ζ), Algorithm 2's stage length `stage_labels`.
    pub(crate) fn new(config: &CompGpUcbConfig, stage_labels: Option<usize>) -> Self {
        Self {
            answered: 0,
            exit: None,
            gamma: config.initial_gamma(),
            run: 0,
            zeta_k: config.unknown_zeta.map_or(config.zeta, |u| u.zeta0),
            stage: 0,
            stage_count: 0,
            stage_labels,
        }
    }

    /// c·L₂·ζ_k scaled (c = 2 under Algorithm 2, 1 under Algorithm 1).
    pub(crate) fn zeta_term(&self, config: &CompGpUcbConfig) -> f64 {
        let c = if config.unknown_zeta.is_some() { 2.0 } else { 1.0 };
        c * config.l2 * config.scaled(self.zeta_k)
    }

    /// f̂_r by [`LowerBoundRule`], with `running` the max LCB of f_r (over the candidates, or the
    /// box's screened and observed points).
    pub(crate) fn lower_bound(&self, config: &CompGpUcbConfig, running: impl Fn() -> f64) -> f64 {
        let frozen = self.exit.as_ref().map_or(f64::NEG_INFINITY, |(_, f)| *f);
        match config.lower_bound {
            LowerBoundRule::Frozen => frozen,
            LowerBoundRule::Running => running(),
            LowerBoundRule::MaxOfBoth => frozen.max(running()),
        }
    }

    fn count_comparison(&mut self, config: &CompGpUcbConfig, costs: &Costs, phase: Phase) {
        if phase == Phase::Comparisons && config.doubling.scope == DoublingScope::Phase2 {
            return;
        }
        self.run += 1;
        let after = config.doubling_after(costs);
        if after > 0 && self.run >= after {
            self.gamma *= config.doubling.factor;
            self.run = 0;
        }
    }

    /// Records an answered query of `kind` decided by `d` at `point` (after its answer went into
    /// the GP): the phase-1 exit, the γ-doubling, Algorithm 2's stages.
    pub(crate) fn record(&mut self, config: &CompGpUcbConfig, costs: &Costs, d: &Decision, kind: Feedback, point: P) {
        self.answered += 1;
        match (d.phase, kind) {
            (Phase::Initial, _) => {}
            (Phase::Comparisons, _) => {
                if d.exits_phase1 {
                    self.exit = Some((point, d.f_hat));
                }
                self.count_comparison(config, costs, Phase::Comparisons);
            }
            (Phase::Constrained, Feedback::Duel) => self.count_comparison(config, costs, Phase::Constrained),
            (Phase::Constrained, Feedback::Evaluate) => {
                self.run = 0;
                if let (Some(u), Some(per_stage)) = (config.unknown_zeta, self.stage_labels) {
                    self.stage_count += 1;
                    if self.stage_count >= per_stage {
                        self.stage_count = 0;
                        if 2.0 * self.zeta_k <= u.zeta_max {
                            self.zeta_k *= 2.0;
                            self.stage += 1;
                        }
                    }
                }
            }
        }
    }
}

/// The posterior mean and standard deviation of `gp` at every candidate of `domain`.
pub(crate) fn posterior_on(gp: &ValueGp, domain: &FiniteDomain) -> Result<(Vec<f64>, Vec<f64>)> {
    // The algorithms' learned models run without their own posterior (candidates.rs): build it
    // in one batch from the same hyperparameters and data.
    if let ValueGp::Learned(g) = gp
        && !g.keeps_posterior()
    {
        return posterior_on(&ValueGp::Learned(Box::new(g.with_posterior()?)), domain);
    }
    let n = domain.len();
    let (mut m, mut s) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (mi, vi) = gp.mean_variance_at(&domain.coords(i)?)?;
        m.push(mi);
        s.push(vi.max(0.0).sqrt());
    }
    Ok((m, s))
}

/// The width that multiplies σ under `rule` at t in dimension d, for the rules that need no
/// information gain ([`crate::BOX_BETA_RULES`]): practical (0.5·log(2t + ε), or its square root),
/// `kandasamy` (√(0.2·d·log(2dt))) and constant. `rule` is a checked schedule: the configs refuse
/// the other rules when they are checked (COMP-GP-UCB on candidates takes `theory` itself, with its Φ).
pub(crate) fn beta_width(rule: &WidthSchedule, t: usize, d: usize) -> f64 {
    match *rule {
        WidthSchedule::Practical { epsilon, form } => {
            let b = beta_practical(t, epsilon);
            match form {
                BetaForm::Multiplier => b,
                BetaForm::SquareRoot => b.max(0.0).sqrt(),
            }
        }
        WidthSchedule::Kandasamy => {
            let d = d as f64;
            (0.2 * d * (2.0 * d * t as f64).ln()).max(0.0).sqrt()
        }
        WidthSchedule::Constant { value } => value,
        ref other => unreachable!("the configs refuse the rule \"{}\" here when they are checked", other.rule()),
    }
}

/// A GP on the candidates' coordinates with `kernel`: fixed (`hyper` absent) or learned (inputs
/// scaled by the candidates' bounding box); errors of the fit settings name `field`. The one
/// builder of COMP-GP-UCB's, KSS's and MF-GP-UCB's GPs.
pub(crate) fn model(
    kernel: &bohf_kernels::KernelSpec,
    hyper: Option<&bohf_gp::regression::ValidHyperFitConfig>,
    noise: f64,
    domain: &FiniteDomain,
    field: &str,
) -> Result<ValueGp> {
    model_on(kernel, hyper, noise, &domain.bounding_box()?, field)
}

/// [`model`] on a box: a learned GP scales its inputs by `bounds`.
pub(crate) fn model_on(
    kernel: &bohf_kernels::KernelSpec,
    hyper: Option<&bohf_gp::regression::ValidHyperFitConfig>,
    noise: f64,
    bounds: &bohf_core::BoxDomain,
    field: &str,
) -> Result<ValueGp> {
    let d = bounds.dim();
    Ok(match hyper {
        None => ValueGp::Fixed(GpRegression::fit(kernel.build()?, &DMatrix::zeros(0, d), &DVector::zeros(0), noise)?),
        Some(h) => ValueGp::Learned(Box::new(
            LearnedGp::new(h.clone(), kernel.build_stationary().at("kernel")?, noise, Some(bounds.clone()), d)
                .at(field)?,
        )),
    })
}
/// The step details of a decision (both modes).
pub(crate) fn details(d: &Decision) -> StepDetails {
    vec![
        ("phase", d.phase.label().to_string()),
        ("query", bohf_core::QueryKind::from(d.kind).to_string()),
        ("t", d.t.to_string()),
        ("beta_r_sigma_r", d.beta_r_sigma_r.to_string()),
        ("gamma", d.gamma.to_string()),
        ("zeta_term", d.zeta_term.to_string()),
        ("f_hat", d.f_hat.to_string()),
        ("feasible", d.feasible.to_string()),
        ("feasible_empty", d.feasible_empty.to_string()),
        ("exits_phase1", d.exits_phase1.to_string()),
        ("stage", d.stage.to_string()),
    ]
}

/// Records `answer` to the query of `kind` (COMP-GP-UCB's two GPs, finite and box modes) by
/// `append(gp, target)`: a duel's outcome (1 if the queried point won against its random opponent)
/// in f_r's GP `comparisons`, a value in f's GP `labels`. Errors (naming `answer`) for an answer of
/// the wrong kind or a non-finite value; nothing is recorded then.
pub(crate) fn record_answer<G>(
    comparisons: &mut G,
    labels: &mut G,
    kind: Feedback,
    answer: Answer,
    mut append: impl FnMut(&mut G, f64) -> Result<()>,
) -> Result<()> {
    match kind {
        Feedback::Duel => {
            let z = if answer.duel_outcome()? { 1.0 } else { 0.0 };
            append(comparisons, z)
        }
        Feedback::Evaluate => append(labels, answer.value()?),
    }
}
