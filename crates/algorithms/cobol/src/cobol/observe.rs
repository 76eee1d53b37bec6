//! COBOL's bookkeeping of answers (the initial design, the labels, the doubling test's schedule)
//! and its [`Optimizer`] implementation.

use super::*;

impl Cobol {
    pub(super) fn checked(&self, p: &Point) -> Result<Pt> {
        match &self.space {
            Space::Finite(d) => {
                let i = d.candidate_index(p, "queried")?;
                Ok(Pt { x: p.coords.clone(), index: Some(i) })
            }
            Space::Box(b, _) => Ok(Pt { x: b.checked_point(p, "queried")?.to_vec(), index: None }),
        }
    }

    /// Ends the initial labels when the sampler of [`CobolConfig::balanced_labels`] has kept
    /// `initial_labels` labels, or (balanced) after [`CobolConfig::initial_label_draws`] draws;
    /// then App. F's pre-training. Returns whether the cap ended them.
    fn finish_initial_labels(&mut self) -> Result<bool> {
        let n = self.initial_labels_wanted();
        let enough = self.labels.len() >= n;
        let capped = !enough && self.initial_label_queries >= self.config.initial_label_draws;
        if enough || capped {
            self.initial_done = true;
            // App. F pre-training: the doubling test over each prefix of the initial labels.
            if self.config.variant.uses_labels() {
                for k in 1..=self.labels.len() {
                    self.doubling_test(k)?;
                }
            }
        }
        Ok(capped)
    }

    /// Whether the balanced sampler keeps an initial label (`balanced=True` of the authors'
    /// `SyntheticAgentResponse.sample`): with h = ⌈n/2⌉, a reject while fewer than h rejects are
    /// kept, an accept while at most h accepts are kept; unbalanced, every label.
    fn keeps_initial_label(&self, accept: bool) -> bool {
        if !self.config.balanced_labels {
            return true;
        }
        let h = self.initial_labels_wanted().div_ceil(2);
        let same = self.labels.iter().filter(|l| l.1 != accept).count();
        if accept { same <= h } else { same < h }
    }

    fn record(&mut self, query: &Query, answer: Answer, info: StepInfo) -> Result<()> {
        match (query, answer) {
            (Query::Evaluate(p), answer @ Answer::Value(_)) => {
                let u = answer.value()?;
                let pt = self.checked(p)?;
                self.evals.push((pt, cobol_objective(u)));
                self.awaiting_evaluation = None;
                if !matches!(self.config.variant, Variant::RandomSearch | Variant::ExpertSampling) {
                    self.refit()?;
                }
                if info.phase == Phase::InitialEvaluation && self.evals.len() >= self.config.initial_evaluations {
                    self.finish_initial_labels()?;
                }
            }
            (Query::Label(p), Answer::Label { accept }) => {
                let pt = self.checked(p)?;
                match info.phase {
                    Phase::InitialEvaluation => {
                        return Err(Error::invalid("query", "a label during the initial evaluations"));
                    }
                    Phase::InitialLabel => {
                        self.initial_label_queries += 1;
                        if self.keeps_initial_label(accept) {
                            self.labels.push((pt.x.clone(), !accept));
                        }
                        if self.finish_initial_labels()? {
                            let accepts = self.labels.iter().filter(|l| !l.1).count();
                            let capped = (self.initial_label_queries, accepts, self.labels.len() - accepts);
                            if let Some(step) = self.last_step.as_mut().filter(|s| s.phase == Phase::InitialLabel) {
                                step.initial_labels_capped = Some(capped);
                            }
                        }
                    }
                    Phase::Iteration if info.branch == Some(Branch::Pinpoint) => {
                        // A draw of the pinpoint: not data of g's set (see [`Variant::Pinpoint`]).
                        if accept {
                            self.pinpointed = Some(pt);
                        } else {
                            self.pinpoint_draws += 1;
                        }
                        return Ok(());
                    }
                    Phase::Iteration => {
                        self.expert_queries += 1;
                        self.labels.push((pt.x.clone(), !accept));
                        if accept
                            && matches!(
                                self.config.variant,
                                Variant::Cobol | Variant::ExpertSampling | Variant::Constrained | Variant::Pinpoint
                            )
                        {
                            self.awaiting_evaluation = Some(pt);
                        }
                        let n = self.labels.len();
                        if self.config.variant.uses_labels()
                            && self.config.doubling_every > 0
                            && n.is_multiple_of(self.config.doubling_every)
                        {
                            self.doubling_test(n)?;
                        }
                    }
                }
            }
            (Query::Evaluate(_), other) => {
                other.value()?; // Not an Answer::Value (the arm above): the parser's error.
            }
            (Query::Label(_), other) => {
                return Err(Error::invalid("answer", format!("a label needs Answer::Label, got {other:?}")));
            }
            (other, _) => {
                return Err(Error::invalid("query", format!("COBOL asks labels and values, got {other:?}")));
            }
        }
        if info.phase == Phase::Iteration {
            // The iteration's pinpoint (if any) is used up.
            self.pinpointed = None;
            self.pinpoint_draws = 0;
        }
        Ok(())
    }
}

impl Optimizer for Cobol {
    fn name(&self) -> &'static str {
        match self.config.variant {
            Variant::Cobol => "COBOL",
            Variant::Cobohl => "COBOHL",
            Variant::VanillaLcb => "GP-LCB",
            Variant::RandomSearch => "random search",
            Variant::ExpertSampling => "expert sampling",
            Variant::Constrained => "COBOL (constrained, λ₀ = 0)",
            Variant::Pinpoint => "COBOL (pinpoint)",
        }
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        if let Some((q, info)) = &self.pending {
            self.last_step = Some(info.clone());
            return Ok(q.clone());
        }
        let d = self.next_query(Some(rng))?;
        self.last_step = Some(d.info.clone());
        self.pending = Some((d.query.clone(), d.info));
        Ok(d.query)
    }

    /// Records the answer to the pending query; with nothing pending (replay), recomputes the
    /// step's decision first (so λ follows the history) and records the given query. Errors name
    /// `query` (a point outside the domain, not a candidate, a different query than the pending
    /// one, a duel) or `answer` (a NaN value, the wrong kind of answer).
    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let snapshot = (self.lambda, self.iteration);
        let info = match self.pending.take() {
            Some((q, info)) => {
                if &q != query {
                    self.pending = Some((q.clone(), info));
                    return Err(Error::invalid(
                        "query",
                        format!("the query {query:?} does not match the pending suggestion {q:?}"),
                    ));
                }
                // Checked before anything changes, so that a bad answer leaves the suggestion pending.
                if let Err(e) = self.record(query, answer, info.clone()) {
                    self.pending = Some((q, info));
                    return Err(e);
                }
                return Ok(());
            }
            None => {
                if matches!(self.phase(), Phase::InitialEvaluation | Phase::InitialLabel)
                    && self.awaiting_evaluation.is_none()
                {
                    self.base_info(self.phase())
                } else {
                    match self.next_query(None) {
                        Ok(d) => d.info,
                        Err(e) => {
                            (self.lambda, self.iteration) = snapshot;
                            return Err(e);
                        }
                    }
                }
            }
        };
        let out = self.record(query, answer, info);
        if out.is_err() {
            (self.lambda, self.iteration) = snapshot;
        }
        out
    }

    /// `phase` (`initial-evaluation`, `initial-label`, `iteration`), `iteration` t, `branch` of
    /// line 6 (`expert`, `vanilla`, `constrained`, or `-`: the evaluation after an accepted label
    /// or an initial query), `lambda` (λ_t) and `lambda_next` (λ_{t+1}), `g_width` (g_upper − g_lower at x_t if line 8
    /// was reached, else `-`), `norm_bound` (B_g) and `solved` (conic programs solved for x^c); and,
    /// in a COBOL iteration that computed x^c, `gap` (its certified optimality gap, [`XcSearch`]);
    /// only in a step where a pointwise program's solver failed, `fallbacks` (how many bounds fell
    /// back to their certified outer ends, [`crate::model::GModel::lower`]); only at the draw where
    /// the cap [`CobolConfig::initial_label_draws`] ended the initial labels,
    /// `initial_labels_capped` ("N draws, A accepts, R rejects kept").
    /// JSON: the evaluations, labels, λ, B_g, c_α, t, the counters, the evaluation awaited after an
    /// accepted label, and the start kernel of f's last fit (the fit is redone from it on restore,
    /// to the same bits), and the starts of g's next MLEs ([`MleStarts`]). The MLEs kept from the
    /// last doubling test are not saved: the next iteration solves them again from the same start,
    /// with the same result (tested with `reuse_mles` off).
    fn save_state(&self) -> Result<Option<String>> {
        state::save(self).map(Some)
    }

    fn restore_state(&mut self, state: &str) -> Result<()> {
        state::restore(self, state)
    }

    fn step_details(&self) -> bohf_core::StepDetails {
        let Some(s) = &self.last_step else { return Vec::new() };
        let phase = match s.phase {
            Phase::InitialEvaluation => "initial-evaluation",
            Phase::InitialLabel => "initial-label",
            Phase::Iteration => "iteration",
        };
        let branch = match s.branch {
            Some(Branch::Expert) => "expert",
            Some(Branch::Vanilla) => "vanilla",
            Some(Branch::Constrained) => "constrained",
            Some(Branch::Pinpoint) => "pinpoint",
            None => "-",
        };
        let mut details = vec![
            ("phase", phase.to_string()),
            ("iteration", s.iteration.to_string()),
            ("branch", branch.to_string()),
            ("lambda", format!("{:?}", s.lambda)),
            ("lambda_next", format!("{:?}", s.lambda_next)),
            ("g_width", s.g_width.map_or("-".to_string(), |w| format!("{w:?}"))),
            ("norm_bound", format!("{:?}", s.norm_bound)),
            ("solved", s.solved.to_string()),
        ];
        if s.local {
            details.push(("search", "local".to_string()));
        } else if let Some(gap) = s.gap {
            details.push(("gap", format!("{gap:?}")));
        }
        if s.fallbacks > 0 {
            details.push(("fallbacks", s.fallbacks.to_string()));
        }
        if let Some((draws, accepts, rejects)) = s.initial_labels_capped {
            details
                .push(("initial_labels_capped", format!("{draws} draws, {accepts} accepts, {rejects} rejects kept")));
        }
        details
    }

    /// The evaluated point with the smallest f (largest u); before any evaluation, candidate 0 or
    /// the box's centre.
    fn recommend(&self) -> Result<Point> {
        if let Some((p, _)) = self.evals.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
            return Ok(p.point());
        }
        match &self.space {
            Space::Finite(d) => d.point(0),
            Space::Box(b, _) => {
                Ok(Point::continuous(b.lower().iter().zip(b.upper()).map(|(l, u)| 0.5 * (l + u)).collect()))
            }
        }
    }
}
