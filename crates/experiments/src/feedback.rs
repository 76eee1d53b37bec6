//! Metrics of runs that mix expert labels and evaluations (COBOL, notes 004 §1.5 and §5.9): one
//! runner step is one query, so an iteration of COBOL that asks the expert and then evaluates
//! takes two steps. These curves re-index a run by its f-evaluations and count its expert queries.
//!
//! * [`evaluation_curve`]: after the k-th evaluation, the simple regret SR_k = u* − max of the
//!   first k answers (COBOL's SR_t = min_τ f(x_τ) − f(x*) with f = −u; the answers are u(x) on
//!   COBOL's noiseless problems, `respondent.noise_sd = 0`), the cumulative regret over
//!   evaluations R_{Q^f} = Σ_j (u* − answer_j) (Theorem 4.1's regret), and the code's
//!   "cumulative regret" Σ_{j ≤ k} SR_j. u* is the caller's (the function's known optimum on the
//!   respondent's scale);
//! * [`expert_queries`]: Q^g after each step: the label queries that are not initial labels (an
//!   algorithm says so with the detail `phase = initial-label`; the code counts the initial
//!   labels out, notes §5.9);
//! * [`by_evaluations`]: mean ± s.e. over runs of SR_k for k = 1..=K, over the runs that reached k
//!   evaluations ([`over_reached`]);
//! * [`expert_queries_by_evaluations`]: Q^g at each f-evaluation.
//!
//! * [`query_regrets`]: the simple regrets of the queried points of COMP-GP-UCB's protocol (notes
//!   002 §1.4): S_t = min_{s ≤ t} r_s with r_s = u* − u(x_s) for an evaluation and
//!   min(u* − u(x_s), u* − u(x′_s)) for a duel (both duelled points count, the opponent too); the
//!   split regrets R_c (duels, x_s only, as printed) and R_l (evaluations). Accept/reject labels
//!   are not queries of f and count in none of them. Measured with the true utility, not the
//!   answers.
//!
//! [`crate::Summary`] puts these curves, averaged over runs, into `summary.json` for every spec with
//! labels or a `[budget]` ([`crate::summary::FeedbackSummary`]).

use crate::metrics::RegretModel;
use crate::results::{QueryKind, RunRecord};
use crate::summary::{MeanSe, mean_se};
use bohf_core::Answer;

/// One run's metrics against its f-evaluations.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluationCurve {
    /// SR_k, k = 1..=number of evaluations.
    pub simple_regret: Vec<f64>,
    /// Σ_{j ≤ k} gap_j.
    pub cumulative_regret: Vec<f64>,
    /// Σ_{j ≤ k} SR_j (the authors' plotted "cumulative regret").
    pub cumulative_simple_regret: Vec<f64>,
}

/// The metrics of `run` against its f-evaluations, with optimum `u_star` (see the module
/// documentation).
pub fn evaluation_curve(run: &RunRecord, u_star: f64) -> EvaluationCurve {
    let mut c = EvaluationCurve {
        simple_regret: Vec::new(),
        cumulative_regret: Vec::new(),
        cumulative_simple_regret: Vec::new(),
    };
    let (mut best, mut cum, mut cum_sr) = (f64::INFINITY, 0.0, 0.0);
    for s in run.steps.iter().filter(|s| s.query == QueryKind::Evaluate) {
        let Answer::Value(u) = s.answer else { continue };
        let gap = u_star - u;
        best = best.min(gap);
        cum += gap;
        cum_sr += best;
        c.simple_regret.push(best);
        c.cumulative_regret.push(cum);
        c.cumulative_simple_regret.push(cum_sr);
    }
    c
}

/// One run's regrets of its queried points after each step ([`query_regrets`]); `None` before the
/// first query that counts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryRegrets {
    /// S_t (eq. (1) of notes 002 §1.4): duels count both points (best-of-k choices all k),
    /// evaluations their point.
    pub simple: Vec<Option<f64>>,
    /// R_c: the best u* − u(x_s) over the duels so far (the first point x_s only, as printed).
    pub comparisons: Vec<Option<f64>>,
    /// R_l: the best u* − u(x_s) over the evaluations so far.
    pub evaluations: Vec<Option<f64>>,
}

/// S_t, R_c and R_l after each step of `run`, with the value gaps u* − u(x) of `regret`
/// ([`RegretModel::value_gap`]); see the module documentation.
pub fn query_regrets(run: &RunRecord, regret: &RegretModel) -> bohf_core::Result<QueryRegrets> {
    let mut out = QueryRegrets::default();
    let (mut s, mut c, mut l): (Option<f64>, Option<f64>, Option<f64>) = (None, None, None);
    let min = |a: Option<f64>, b: f64| Some(a.map_or(b, |a| a.min(b)));
    for step in &run.steps {
        match step.query {
            QueryKind::Duel => {
                let first = regret.value_gap(&step.first)?;
                let both = match &step.second {
                    Some(p) => first.min(regret.value_gap(p)?),
                    None => first,
                };
                s = min(s, both);
                c = min(c, first);
            }
            QueryKind::Evaluate => {
                let g = regret.value_gap(&step.first)?;
                s = min(s, g);
                l = min(l, g);
            }
            QueryKind::Choice => {
                // A best-of-k comparison: every option counts toward S_t, the first one toward R_c
                // (at k = 2 exactly the duel's rule).
                let first = regret.value_gap(&step.first)?;
                let mut all = first;
                for p in step.options.iter().skip(1) {
                    all = all.min(regret.value_gap(p)?);
                }
                s = min(s, all);
                c = min(c, first);
            }
            QueryKind::Label => {}
        }
        out.simple.push(s);
        out.comparisons.push(c);
        out.evaluations.push(l);
    }
    Ok(out)
}

/// Q^g after each step of `run`: the label queries so far, initial labels excluded.
pub fn expert_queries(run: &RunRecord) -> Vec<usize> {
    let mut n = 0;
    run.steps
        .iter()
        .map(|s| {
            if s.query == QueryKind::Label && s.detail("phase") != Some("initial-label") {
                n += 1;
            }
            n
        })
        .collect()
}

/// Mean ± s.e. of SR_k over `runs`, for k = 1..=`evaluations`; a k that no run reached is NaN.
pub fn by_evaluations(runs: &[RunRecord], u_star: f64, evaluations: usize) -> Vec<MeanSe> {
    let curves: Vec<Vec<f64>> = runs.iter().map(|r| evaluation_curve(r, u_star).simple_regret).collect();
    over_reached(&curves, evaluations)
}

/// Q^g (initial labels excluded, as [`expert_queries`]) at each f-evaluation of `run`: the k-th
/// entry counts the expert queries asked before the k-th evaluation.
pub fn expert_queries_by_evaluations(run: &RunRecord) -> Vec<usize> {
    expert_queries(run)
        .into_iter()
        .zip(&run.steps)
        .filter(|(_, s)| s.query == QueryKind::Evaluate)
        .map(|(q, _)| q)
        .collect()
}

/// Mean ± s.e. at k = 1..=`k_max` of per-run series indexed by k (e.g. by f-evaluation), over
/// the runs whose series reach k ([`by_evaluations`]' convention); a k that no run reached is NaN.
pub fn over_reached(series: &[Vec<f64>], k_max: usize) -> Vec<MeanSe> {
    (0..k_max)
        .map(|k| {
            let xs: Vec<f64> = series.iter().filter_map(|c| c.get(k).copied()).collect();
            mean_se(&xs)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::RunId;
    use crate::results::{PointRecord, StepRecord};

    /// A step whose evaluation answers u = 10 − gap (u* = 10).
    fn step(t: usize, query: QueryKind, gap: f64, phase: &str) -> StepRecord {
        StepRecord {
            t,
            query,
            first: PointRecord::Candidate(0),
            second: None,
            options: Vec::new(),
            answer: if query == QueryKind::Label { Answer::Label { accept: true } } else { Answer::Value(10.0 - gap) },
            regret: 0.25,
            cumulative_regret: 0.0,
            recommendation: PointRecord::Candidate(0),
            simple_regret: 0.0,
            utility_gap: crate::results::UtilityGap::NOT_RECORDED,
            elapsed_s: 0.0,
            details: vec![("phase".into(), phase.into())],
        }
    }

    #[test]
    fn curves_follow_the_evaluations_and_count_only_iteration_labels() {
        use QueryKind::{Evaluate as E, Label as L};
        let steps = vec![
            step(1, E, 3.0, "initial-evaluation"),
            step(2, L, 9.0, "initial-label"),
            step(3, L, 1.0, "iteration"),
            step(4, E, 1.0, "iteration"),
            step(5, E, 2.0, "iteration"),
            step(6, L, 0.5, "iteration"),
        ];
        let run = RunRecord { id: RunId { algorithm: 0, run: 0 }, label: "c".into(), steps };
        let c = evaluation_curve(&run, 10.0);
        // Evaluations have gaps 3, 1, 2: SR = 3, 1, 1; R = 3, 4, 6; Σ SR = 3, 4, 5.
        assert_eq!(c.simple_regret, vec![3.0, 1.0, 1.0]);
        assert_eq!(c.cumulative_regret, vec![3.0, 4.0, 6.0]);
        assert_eq!(c.cumulative_simple_regret, vec![3.0, 4.0, 5.0]);
        assert_eq!(expert_queries(&run), vec![0, 0, 1, 1, 1, 2]);
        // The evaluations are steps 1, 4 and 5: Q^g = 0, 1, 1 there.
        assert_eq!(expert_queries_by_evaluations(&run), vec![0, 1, 1]);
        let m = by_evaluations(&[run.clone(), run], 10.0, 4);
        assert_eq!((m[1].mean, m[1].se), (1.0, 0.0));
        assert!(m[3].mean.is_nan());
    }
}
