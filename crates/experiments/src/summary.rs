//! Mean and standard error over runs, per step and at the horizon, per algorithm.
//!
//! Runs that ended on their `[budget]` ([`crate::budget`]) before the horizon hold their last
//! value in the per-step curves, which run to the longest run's last step; the values "at the
//! horizon" are each run's final values.
//!
//! The standard error is s.e. = std/√n with the **population** standard deviation
//! std = √(Σ(xᵢ − x̄)²/n) (`ddof = 0`), as in the authors' plotting code (MR-LPF notes §5.3:
//! `std(ddof=0)/sqrt(n_runs)`; PF-TS: "std/√30"). With one run it is 0.

use crate::error::{ExperimentError, Result};
use crate::plot::Metric;
use crate::results::RunRecord;
use crate::spec::ExperimentSpec;
use serde::{Deserialize, Serialize};

/// A mean and its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanSe {
    /// x̄ = Σxᵢ/n.
    pub mean: f64,
    /// √(Σ(xᵢ − x̄)²/n)/√n.
    pub se: f64,
}

/// The mean and standard error (ddof = 0, see the module documentation) of `xs`; NaN for no values.
pub fn mean_se(xs: &[f64]) -> MeanSe {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    MeanSe { mean, se: (var / n).sqrt() }
}

/// Mean and standard error per step t = 1..=T. With a `[budget]` the curve runs to the longest run's
/// last step, and a run that ended earlier on its budget holds its last value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Curve {
    /// Mean over runs at each step.
    pub mean: Vec<f64>,
    /// Standard error at each step.
    pub se: Vec<f64>,
}

impl Curve {
    /// Whether the curve has no point.
    pub fn is_empty(&self) -> bool {
        self.mean.is_empty()
    }

    /// The curve of per-point means and standard errors.
    pub fn of(points: &[MeanSe]) -> Self {
        Curve { mean: points.iter().map(|m| m.mean).collect(), se: points.iter().map(|m| m.se).collect() }
    }

    /// Mean ± s.e. per step over runs' per-step series of unequal length: the curve runs to the
    /// longest series, and a shorter one holds its last value (an empty series counts nothing).
    pub fn held(series: &[Vec<f64>]) -> Self {
        let length = series.iter().map(Vec::len).max().unwrap_or(0);
        let points: Vec<MeanSe> = (0..length)
            .map(|t| mean_se(&series.iter().filter_map(|v| v.get(t).or(v.last()).copied()).collect::<Vec<_>>()))
            .collect();
        Self::of(&points)
    }
}

/// A curve against the spent budget ([`crate::budget`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetCurve {
    /// The spent budgets at which the curve is evaluated: every value the runs' spent budget takes,
    /// increasing.
    pub spent: Vec<f64>,
    /// Mean ± s.e. at each: a run's value at the last step whose spent budget is at most that
    /// (a run that ended holds its last value); runs that had not yet spent that little are left
    /// out (none: NaN).
    pub curve: Curve,
}

/// Metrics of runs that ask for labels or spend a `[budget]` ([`crate::feedback`]), for every
/// algorithm of a spec with a `[budget]` or with a label query in some run. Curves that would be
/// empty (no evaluation, no label, no budget) are left out of the JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedbackSummary {
    /// u*, the optimum on the respondent's scale from which the regrets by evaluation are measured.
    pub optimum: f64,
    /// SR_k = u* − the best of the first k evaluation answers, k = 1..=K (the most evaluations of a
    /// run), over the runs with at least k evaluations ([`crate::feedback::by_evaluations`]).
    #[serde(default, skip_serializing_if = "Curve::is_empty")]
    pub simple_by_evaluations: Curve,
    /// Σ_{j ≤ k} SR_j (the COBOL code's "cumulative regret"), k = 1..=K, as `simple_by_evaluations`.
    #[serde(default, skip_serializing_if = "Curve::is_empty")]
    pub cumulative_simple_by_evaluations: Curve,
    /// Q^g, the expert queries after each step, initial labels excluded
    /// ([`crate::feedback::expert_queries`]); runs that ended hold their last value. Only when some
    /// run asked a label.
    #[serde(default, skip_serializing_if = "Curve::is_empty")]
    pub expert_queries: Curve,
    /// Q^g at the k-th f-evaluation, k = 1..=K, over the runs with at least k evaluations. Only when
    /// some run asked a label.
    #[serde(default, skip_serializing_if = "Curve::is_empty")]
    pub expert_queries_by_evaluations: Curve,
    /// The simple regret of the recommendation (the `simple_regret` column) against the spent
    /// budget; only with a `[budget]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simple_by_budget: Option<BudgetCurve>,
    /// S(Λ) of COMP-GP-UCB's eq. (1) (notes 002 §1.4; [`crate::feedback::query_regrets`]): the
    /// best value gap u* − u(x) over the queried points (a duel counts both of its points) against
    /// the spent budget; only with a `[budget]` and for runs that duel or evaluate. Evaluated at
    /// the spent budgets where some run has a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_simple_by_budget: Option<BudgetCurve>,
    /// R_c: the best u* − u(x_s) over the duels (first points) against the spent budget; only with
    /// a `[budget]` and for runs that duel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison_regret_by_budget: Option<BudgetCurve>,
    /// R_l: the best u* − u(x_s) over the evaluations against the spent budget; only with a
    /// `[budget]` and for runs that evaluate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_regret_by_budget: Option<BudgetCurve>,
}

/// The curve against spent budget of per-step values (`value(run, step)`, `None` where a run has
/// none yet), over the spent budgets `spent` of each run: at each spent budget b where some run has
/// a value, mean ± s.e. of each run's value at its last step whose spent budget is ≤ b (runs with
/// none there are left out); `None` if no run has a value at all.
fn budget_curve(spent: &[Vec<f64>], value: &dyn Fn(usize, usize) -> Option<f64>) -> Option<BudgetCurve> {
    let mut grid: Vec<f64> = spent.iter().flatten().copied().collect();
    grid.sort_by(f64::total_cmp);
    grid.dedup();
    let mut out = BudgetCurve { spent: Vec::new(), curve: Curve::default() };
    for &b in &grid {
        let xs: Vec<f64> = spent
            .iter()
            .enumerate()
            .filter_map(|(r, sp)| {
                // Spent budget never decreases (costs are ≥ 0): the last step within b.
                let n = sp.partition_point(|&x| x <= b);
                n.checked_sub(1).and_then(|i| value(r, i))
            })
            .collect();
        if xs.is_empty() {
            continue;
        }
        let m = mean_se(&xs);
        out.spent.push(b);
        out.curve.mean.push(m.mean);
        out.curve.se.push(m.se);
    }
    (!out.spent.is_empty()).then_some(out)
}

impl FeedbackSummary {
    /// The feedback metrics of one algorithm's `runs` under `spec`, with optimum `optimum`; `labels`
    /// says whether any run of the spec asked a label. The regrets of the queried points against
    /// spent budget need the problem's `regret` (a run whose points it cannot evaluate counts none).
    pub fn of(
        spec: &ExperimentSpec,
        runs: &[&RunRecord],
        optimum: f64,
        regret: Option<&crate::metrics::RegretModel>,
        labels: bool,
    ) -> Self {
        use crate::feedback;
        let by_eval: Vec<feedback::EvaluationCurve> =
            runs.iter().map(|r| feedback::evaluation_curve(r, optimum)).collect();
        let k_max = by_eval.iter().map(|c| c.simple_regret.len()).max().unwrap_or(0);
        let pick = |f: &dyn Fn(&feedback::EvaluationCurve) -> &Vec<f64>| {
            let series: Vec<Vec<f64>> = by_eval.iter().map(|c| f(c).clone()).collect();
            Curve::of(&feedback::over_reached(&series, k_max))
        };
        let as_f64 = |v: Vec<usize>| v.into_iter().map(|q| q as f64).collect::<Vec<f64>>();
        let (expert_queries, expert_queries_by_evaluations) = if labels {
            let per_step: Vec<Vec<f64>> = runs.iter().map(|r| as_f64(feedback::expert_queries(r))).collect();
            let per_eval: Vec<Vec<f64>> =
                runs.iter().map(|r| as_f64(feedback::expert_queries_by_evaluations(r))).collect();
            (Curve::held(&per_step), Curve::of(&feedback::over_reached(&per_eval, k_max)))
        } else {
            (Curve::default(), Curve::default())
        };
        let spent: Vec<Vec<f64>> =
            runs.iter().map(|r| crate::budget::spent_budget(r, spec).unwrap_or_default()).collect();
        // The simple regret of the recommendation keeps the NaN of a budget no run has spent
        // (its grid is every spent budget).
        let simple_by_budget = spec.budget.as_ref().map(|_| {
            budget_curve(&spent, &|r, i| Some(runs[r].steps[i].simple_regret))
                .unwrap_or(BudgetCurve { spent: Vec::new(), curve: Curve::default() })
        });
        let queried: Vec<feedback::QueryRegrets> = match (spec.budget.as_ref(), regret) {
            (Some(_), Some(regret)) => {
                runs.iter().map(|r| feedback::query_regrets(r, regret).unwrap_or_default()).collect()
            }
            _ => Vec::new(),
        };
        let by_budget = |pick: fn(&feedback::QueryRegrets) -> &Vec<Option<f64>>| {
            if queried.is_empty() {
                return None;
            }
            budget_curve(&spent, &|r, i| pick(&queried[r]).get(i).copied().flatten())
        };
        let query_simple_by_budget = by_budget(|q| &q.simple);
        let comparison_regret_by_budget = by_budget(|q| &q.comparisons);
        let label_regret_by_budget = by_budget(|q| &q.evaluations);
        Self {
            optimum,
            simple_by_evaluations: pick(&|c| &c.simple_regret),
            cumulative_simple_by_evaluations: pick(&|c| &c.cumulative_simple_regret),
            expert_queries,
            expert_queries_by_evaluations,
            simple_by_budget,
            query_simple_by_budget,
            comparison_regret_by_budget,
            label_regret_by_budget,
        }
    }
}

/// The CSV columns of [`AtHorizon::csv_fields`], after the algorithm's label.
pub const HORIZON_CSV_COLUMNS: &str = "runs,instantaneous_mean,instantaneous_se,cumulative_mean,cumulative_se,simple_mean,simple_se,wall_s_mean,wall_s_se";

/// The values at the horizon T: each run's final values (a run that ended on its `[budget]` ends
/// before T).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AtHorizon {
    /// r_T.
    pub instantaneous: MeanSe,
    /// R(T).
    pub cumulative: MeanSe,
    /// Simple regret of x̂_T.
    pub simple: MeanSe,
    /// Wall time of a run's algorithm calls, in seconds.
    pub wall_seconds: MeanSe,
}

impl AtHorizon {
    /// `runs` and the eight values at full (round-trip) precision, comma-separated, in the order of
    /// [`HORIZON_CSV_COLUMNS`].
    pub fn csv_fields(&self, runs: usize) -> String {
        format!(
            "{runs},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
            self.instantaneous.mean,
            self.instantaneous.se,
            self.cumulative.mean,
            self.cumulative.se,
            self.simple.mean,
            self.simple.se,
            self.wall_seconds.mean,
            self.wall_seconds.se
        )
    }
}

/// The utility gaps of one algorithm's runs ([`crate::metrics`], in the units of the problem's
/// own utility (before any scaling)): per step and at the horizon, as the preference regrets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GapSummary {
    /// g_t, the query's utility gap.
    pub instantaneous: Curve,
    /// G(t) = Σ_{s ≤ t} g_s.
    pub cumulative: Curve,
    /// u(x*) − u(x̂_t) of the recommendation.
    pub simple: Curve,
    /// g_T over runs.
    pub instantaneous_at_horizon: MeanSe,
    /// G(T) over runs.
    pub cumulative_at_horizon: MeanSe,
    /// u(x*) − u(x̂_T) over runs.
    pub simple_at_horizon: MeanSe,
}

/// The summary of one algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlgorithmSummary {
    /// Its label.
    pub label: String,
    /// Its registry name.
    pub name: String,
    /// The number of runs summarised.
    pub runs: usize,
    /// Instantaneous regret r_t.
    pub instantaneous: Curve,
    /// Cumulative regret R(t).
    pub cumulative: Curve,
    /// Simple regret of the recommendation.
    pub simple: Curve,
    /// The values at T.
    pub at_horizon: AtHorizon,
    /// The utility gaps; absent when some run has none recorded (a summary written before they
    /// existed, or runs whose problem could not be prepared to compute them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utility_gap: Option<GapSummary>,
    /// Metrics against f-evaluations, expert queries and spent budget, for specs with labels or a
    /// `[budget]`; absent otherwise (and in summaries written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<FeedbackSummary>,
}

impl AlgorithmSummary {
    /// The curve of a metric; `None` for a utility gap the summary does not hold.
    pub fn curve(&self, metric: Metric) -> Option<&Curve> {
        let gap = self.utility_gap.as_ref();
        match metric {
            Metric::Instantaneous => Some(&self.instantaneous),
            Metric::Cumulative => Some(&self.cumulative),
            Metric::Simple => Some(&self.simple),
            Metric::InstantaneousGap => gap.map(|g| &g.instantaneous),
            Metric::CumulativeGap => gap.map(|g| &g.cumulative),
            Metric::SimpleGap => gap.map(|g| &g.simple),
        }
    }
}

/// The JSON summary of an experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The problem's description (the plot title).
    pub title: String,
    /// How the standard error is computed.
    pub standard_error: String,
    /// The spec that produced the results.
    pub spec: ExperimentSpec,
    /// One entry per algorithm with a finished run, in the spec's order.
    pub algorithms: Vec<AlgorithmSummary>,
    /// Runs that failed (`on_error = "continue"`); the curves are over the finished runs only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<crate::results::FailedRun>,
    /// The checksum ([`crate::checksum::fnv1a64_tag`]) of the `steps.csv` written beside this
    /// summary, so that a later change to that file is detected
    /// ([`crate::output::verify_steps_csv`]); `None` for a summary not written with a `steps.csv`
    /// (or written before this field existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_csv: Option<String>,
}

/// The description written into [`Summary::standard_error`].
pub const STANDARD_ERROR: &str = "std(ddof=0)/sqrt(runs)";

impl Summary {
    /// Summarises `runs` (each complete: `spec.horizon` steps, or fewer ending where its budget is
    /// spent, [`crate::budget::check_length`]; at least one per algorithm of `spec`).
    pub fn from_runs(spec: &ExperimentSpec, title: &str, runs: &[RunRecord]) -> Result<Self> {
        Self::with_failures(spec, title, runs, &[])
    }

    /// Summarises the finished `runs` and lists `failures`. An algorithm whose every run failed has
    /// no entry in [`Summary::algorithms`] (its failures say why); any other algorithm needs at
    /// least one finished run.
    pub fn with_failures(
        spec: &ExperimentSpec,
        title: &str,
        runs: &[RunRecord],
        failures: &[crate::results::FailedRun],
    ) -> Result<Self> {
        let mut algorithms = Vec::with_capacity(spec.algorithms.len());
        let labels = runs.iter().any(|r| r.steps.iter().any(|s| s.query == crate::results::QueryKind::Label));
        let regret = if spec.budget.is_some() || labels {
            let problem = crate::problem::PreparedProblem::build(&spec.problem, &spec.respondent)?;
            Some(problem.regret().clone())
        } else {
            None
        };
        for (a, alg) in spec.algorithms.iter().enumerate() {
            let mine: Vec<&RunRecord> = runs.iter().filter(|r| r.id.algorithm == a).collect();
            if mine.is_empty() && failures.iter().any(|f| f.id.algorithm == a) {
                continue;
            }
            if mine.is_empty() {
                return Err(ExperimentError::Results {
                    path: None,
                    reason: format!("no run of `{}` to summarise", alg.label()),
                });
            }
            if let Some((r, why)) = mine.iter().find_map(|r| crate::budget::check_length(r, spec).err().map(|w| (r, w)))
            {
                return Err(ExperimentError::Results {
                    path: None,
                    reason: format!("run {} of `{}` {why}", r.id.run, r.label),
                });
            }
            // Runs that ended on their budget are shorter than the longest: they hold their last
            // value.
            let curve = |f: &dyn Fn(&crate::results::StepRecord) -> f64| {
                Curve::held(&mine.iter().map(|r| r.steps.iter().map(f).collect()).collect::<Vec<_>>())
            };
            let last = |f: &dyn Fn(&RunRecord) -> f64| mean_se(&mine.iter().map(|r| f(r)).collect::<Vec<_>>());
            fn final_step(r: &RunRecord) -> &crate::results::StepRecord {
                r.steps.last().expect("a complete run has a step")
            }
            algorithms.push(AlgorithmSummary {
                label: alg.label().to_string(),
                name: alg.name.clone(),
                runs: mine.len(),
                instantaneous: curve(&|s| s.regret),
                cumulative: curve(&|s| s.cumulative_regret),
                simple: curve(&|s| s.simple_regret),
                at_horizon: AtHorizon {
                    instantaneous: last(&|r| final_step(r).regret),
                    cumulative: last(&|r| final_step(r).cumulative_regret),
                    simple: last(&|r| final_step(r).simple_regret),
                    wall_seconds: last(&|r| r.wall_seconds()),
                },
                utility_gap: mine.iter().all(|r| r.steps.iter().all(|s| s.utility_gap.is_recorded())).then(|| {
                    GapSummary {
                        instantaneous: curve(&|s| s.utility_gap.instantaneous),
                        cumulative: curve(&|s| s.utility_gap.cumulative),
                        simple: curve(&|s| s.utility_gap.simple),
                        instantaneous_at_horizon: last(&|r| final_step(r).utility_gap.instantaneous),
                        cumulative_at_horizon: last(&|r| final_step(r).utility_gap.cumulative),
                        simple_at_horizon: last(&|r| final_step(r).utility_gap.simple),
                    }
                }),
                feedback: regret
                    .as_ref()
                    .map(|m| FeedbackSummary::of(spec, &mine, m.best_value(), spec.budget.as_ref().map(|_| m), labels)),
            });
        }
        Ok(Self {
            title: title.to_string(),
            standard_error: STANDARD_ERROR.into(),
            spec: spec.clone(),
            algorithms,
            failures: failures.to_vec(),
            steps_csv: None,
        })
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }

    /// Parses the JSON of [`Summary::to_json`].
    pub fn from_json(text: &str) -> Result<Self> {
        Ok(serde_json::from_str(text)?)
    }

    /// A markdown table of the values at the horizon (mean ± s.e.): the preference regrets and,
    /// when every algorithm has them, the utility gaps G(T) and u(x*) − u(x̂_T) (in the units of the
    /// problem's own utility (before any scaling)).
    pub fn markdown_table(&self) -> String {
        if self.algorithms.iter().all(|a| a.utility_gap.is_some()) && !self.algorithms.is_empty() {
            return self.markdown_table_with_gaps();
        }
        let mut s = String::from(
            "| algorithm | runs | instantaneous regret r_T | cumulative regret R(T) | simple regret | wall time per run (s) |\n|---|---|---|---|---|---|\n",
        );
        for a in &self.algorithms {
            let h = &a.at_horizon;
            let f = |m: MeanSe| format!("{:.4} ± {:.4}", m.mean, m.se);
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {:.3} ± {:.3} |\n",
                a.label,
                a.runs,
                f(h.instantaneous),
                f(h.cumulative),
                f(h.simple),
                h.wall_seconds.mean,
                h.wall_seconds.se
            ));
        }
        self.failures_list(&mut s);
        s
    }

    fn markdown_table_with_gaps(&self) -> String {
        let mut s = String::from(
            "| algorithm | runs | instantaneous regret r_T | cumulative regret R(T) | simple regret | cumulative utility gap G(T) | utility gap u(x*) − u(x̂_T) | wall time per run (s) |\n|---|---|---|---|---|---|---|---|\n",
        );
        for a in &self.algorithms {
            let (h, Some(g)) = (&a.at_horizon, &a.utility_gap) else { continue };
            let f = |m: MeanSe| format!("{:.4} ± {:.4}", m.mean, m.se);
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {:.3} ± {:.3} |\n",
                a.label,
                a.runs,
                f(h.instantaneous),
                f(h.cumulative),
                f(h.simple),
                f(g.cumulative_at_horizon),
                f(g.simple_at_horizon),
                h.wall_seconds.mean,
                h.wall_seconds.se
            ));
        }
        self.failures_list(&mut s);
        s
    }

    fn failures_list(&self, s: &mut String) {
        if !self.failures.is_empty() {
            s.push_str(&format!("\n{} run(s) failed and are not in the table:\n\n", self.failures.len()));
            for f in &self.failures {
                s.push_str(&format!("- {f}\n"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_standard_error_by_hand() {
        // mean 2.5, population variance (2.25 + 0.25 + 0.25 + 2.25)/4 = 1.25, s.e. √1.25/2.
        let m = mean_se(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(m.mean, 2.5);
        assert!((m.se - 1.25f64.sqrt() / 2.0).abs() < 1e-15);
        assert_eq!(mean_se(&[7.0]), MeanSe { mean: 7.0, se: 0.0 });
    }
}
