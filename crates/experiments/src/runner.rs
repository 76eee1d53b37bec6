//! The runner: runs × algorithms, in parallel on the current rayon pool, each run reproducible on
//! its own.
//!
//! **Streams.** Run `r` of algorithm `a` (its index in the spec) draws
//!
//! * the algorithm's randomness from `bohf_core::rng::stream(seed, &[a, r])`, and
//! * the respondent's from `bohf_core::rng::stream(seed, &[a, r, 1])`,
//!
//! so a run's result depends only on the spec, `a` and `r`: not on the number of threads, on the
//! order in which runs are scheduled, or on which other runs are executed. That is what makes
//! sharding (run a subset with [`Experiment::run_tasks`]) and resuming (skip runs already written)
//! give the same results as one uninterrupted run.
//!
//! **A step.** At t = 1..=T: `query = suggest(rng_alg)`, `answer = respondent(query, rng_resp)`,
//! `observe(query, answer)`, `x̂_t = recommend()`; then the regrets of [`crate::metrics`] are
//! recorded. `elapsed_s` accumulates the wall time spent in the algorithm: building it (e.g. its
//! base Gram) and its three calls at each step, but not the respondent or the metrics.

use crate::error::{ExperimentError, Result};
use crate::problem::PreparedProblem;
use crate::registry::{AlgorithmEntry, Registry};
use crate::results::{QueryKind, RunRecord, StepRecord};
use crate::spec::ExperimentSpec;
use crate::summary::Summary;
use bohf_core::{Query, SearchContext, rng};
use bohf_problems::Respondent;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// One run of one algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunId {
    /// The algorithm's index in the spec.
    pub algorithm: usize,
    /// The run index, 0-based.
    pub run: usize,
}

/// The last element of the respondent's stream path (the algorithm's path has none).
pub const RESPONDENT_STREAM: u64 = 1;

impl RunId {
    /// The algorithm's random stream of this run under base seed `seed`.
    pub fn algorithm_rng(&self, seed: u64) -> bohf_core::BohfRng {
        rng::stream(seed, &[self.algorithm as u64, self.run as u64])
    }

    /// The respondent's random stream of this run under base seed `seed`.
    pub fn respondent_rng(&self, seed: u64) -> bohf_core::BohfRng {
        rng::stream(seed, &[self.algorithm as u64, self.run as u64, RESPONDENT_STREAM])
    }
}

/// A validated spec with its problem built and its algorithms resolved, ready to run.
#[derive(Debug, Clone)]
pub struct Experiment {
    spec: ExperimentSpec,
    problem: PreparedProblem,
    context: SearchContext,
    entries: Vec<AlgorithmEntry>,
}

impl Experiment {
    /// Validates `spec` against `registry`, builds the problem (loading data files), and builds
    /// each algorithm once so that a parameter the problem rules out fails here, not in a run.
    pub fn new(spec: ExperimentSpec, registry: &Registry) -> Result<Self> {
        spec.validate(registry)?;
        let problem = PreparedProblem::build(&spec.problem, &spec.respondent)?;
        let context = SearchContext::new(problem.domain().clone(), spec.horizon)?;
        let mut entries = Vec::with_capacity(spec.algorithms.len());
        for (i, a) in spec.algorithms.iter().enumerate() {
            let entry = registry.get(&a.name).expect("validated").clone();
            entry.build(&context, &a.params).map_err(|e| ExperimentError::in_field(&format!("algorithms[{i}]"), e))?;
            entries.push(entry);
        }
        Ok(Self { spec, problem, context, entries })
    }

    /// The spec.
    pub fn spec(&self) -> &ExperimentSpec {
        &self.spec
    }

    /// The problem.
    pub fn problem(&self) -> &PreparedProblem {
        &self.problem
    }

    /// The plot title: the spec's `title`, or the problem's description.
    pub fn title(&self) -> String {
        self.spec.title.clone().unwrap_or_else(|| self.problem.title().to_string())
    }

    /// The algorithms' labels, in spec order.
    pub fn labels(&self) -> Vec<String> {
        self.spec.labels()
    }

    /// Every run, run-major: (a 0, r 0), (a 1, r 0), …, (a 0, r 1), …
    pub fn tasks(&self) -> Vec<RunId> {
        (0..self.spec.runs)
            .flat_map(|run| (0..self.entries.len()).map(move |algorithm| RunId { algorithm, run }))
            .collect()
    }

    /// Shard `k` of `n` (0 ≤ k < n): the tasks at positions k, k + n, k + 2n, … of [`Experiment::tasks`].
    pub fn shard(&self, k: usize, n: usize) -> Result<Vec<RunId>> {
        if n == 0 || k >= n {
            return Err(ExperimentError::spec("shard", format!("need 0 <= k < n, got k = {k}, n = {n}")));
        }
        Ok(self.tasks().into_iter().skip(k).step_by(n).collect())
    }

    /// Runs one task.
    pub fn run_one(&self, id: RunId) -> Result<RunRecord> {
        let spec_alg = self.spec.algorithms.get(id.algorithm).ok_or_else(|| {
            ExperimentError::spec(
                "algorithm",
                format!("index {} out of range ({} algorithms)", id.algorithm, self.entries.len()),
            )
        })?;
        if id.run >= self.spec.runs {
            return Err(ExperimentError::spec(
                "run",
                format!("index {} out of range ({} runs)", id.run, self.spec.runs),
            ));
        }
        let label = spec_alg.label().to_string();
        let fail = |step: usize| {
            let label = label.clone();
            move |source: bohf_core::Error| ExperimentError::Run { label, run: id.run, step, source }
        };
        let mut alg_rng = id.algorithm_rng(self.spec.seed);
        let mut resp_rng = id.respondent_rng(self.spec.seed);
        let mut respondent = self.problem.respondent()?;
        let regret = self.problem.regret();
        let start = Instant::now();
        let mut optimizer = self.entries[id.algorithm].build(&self.context, &spec_alg.params).map_err(fail(0))?;
        let mut elapsed = start.elapsed().as_secs_f64();
        let mut cumulative = 0.0;
        let mut steps = Vec::with_capacity(self.spec.horizon);
        for t in 1..=self.spec.horizon {
            let t0 = Instant::now();
            let query = optimizer.suggest(&mut alg_rng).map_err(fail(t))?;
            let mut spent = t0.elapsed().as_secs_f64();
            let answer = respondent.answer(&query, &mut resp_rng).map_err(fail(t))?;
            let t1 = Instant::now();
            optimizer.observe(&query, answer).map_err(fail(t))?;
            let recommendation = optimizer.recommend().map_err(fail(t))?;
            spent += t1.elapsed().as_secs_f64();
            elapsed += spent;
            let r = regret.instantaneous(&query).map_err(fail(t))?;
            cumulative += r;
            let (kind, first, second) = match &query {
                Query::Duel(x, y) => (QueryKind::Duel, x, Some(y)),
                Query::Evaluate(x) => (QueryKind::Evaluate, x, None),
                Query::Label(x) => (QueryKind::Label, x, None),
            };
            steps.push(StepRecord {
                t,
                query: kind,
                first: crate::metrics::index(first).map_err(fail(t))?,
                second: second.map(crate::metrics::index).transpose().map_err(fail(t))?,
                answer,
                regret: r,
                cumulative_regret: cumulative,
                recommendation: crate::metrics::index(&recommendation).map_err(fail(t))?,
                simple_regret: regret.simple(&recommendation).map_err(fail(t))?,
                elapsed_s: elapsed,
            });
        }
        Ok(RunRecord { id, label, steps })
    }

    /// Runs `ids` in parallel on the current rayon pool (use `ThreadPool::install` to choose the
    /// number of threads), calling `on_done` with each finished run (from the worker thread, in
    /// completion order: e.g. to write it to disk at once). The records come back in the order of
    /// `ids`; the first error stops the remaining runs.
    pub fn run_tasks(&self, ids: &[RunId], on_done: &(dyn Fn(&RunRecord) + Sync)) -> Result<Vec<RunRecord>> {
        ids.par_iter()
            .map(|&id| {
                let record = self.run_one(id)?;
                on_done(&record);
                Ok(record)
            })
            .collect()
    }

    /// Runs every task and gathers the results.
    pub fn run(&self) -> Result<Results> {
        let runs = self.run_tasks(&self.tasks(), &|_| {})?;
        Results::new(self.spec.clone(), self.title(), runs)
    }
}

/// The runs of a complete experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    spec: ExperimentSpec,
    title: String,
    runs: Vec<RunRecord>,
}

impl Results {
    /// Results from runs (in any order, e.g. gathered from shards). Every (algorithm, run) of the
    /// spec must appear exactly once with T steps and the spec's label; the runs are sorted by
    /// (algorithm, run).
    pub fn new(spec: ExperimentSpec, title: impl Into<String>, mut runs: Vec<RunRecord>) -> Result<Self> {
        runs.sort_by_key(|r| r.id);
        let labels = spec.labels();
        let bad = |reason: String| ExperimentError::Results { path: None, reason };
        let expected = labels.len() * spec.runs;
        for (k, r) in runs.iter().enumerate() {
            if k >= expected {
                return Err(bad(format!(
                    "run {} of algorithm {} is beyond the spec's {} algorithms × {} runs",
                    r.id.run,
                    r.id.algorithm,
                    labels.len(),
                    spec.runs
                )));
            }
            let want = RunId { algorithm: k / spec.runs, run: k % spec.runs };
            if r.id != want {
                return Err(bad(format!(
                    "expected run {} of `{}`, found run {} of algorithm {} (a run is missing, repeated or out of range)",
                    want.run,
                    labels.get(want.algorithm).map_or("?", String::as_str),
                    r.id.run,
                    r.id.algorithm
                )));
            }
            if r.label != labels[r.id.algorithm] {
                return Err(bad(format!(
                    "run {} of algorithm {} is labelled `{}`, the spec says `{}`",
                    r.id.run, r.id.algorithm, r.label, labels[r.id.algorithm]
                )));
            }
            if r.steps.len() != spec.horizon {
                return Err(bad(format!(
                    "run {} of `{}` has {} steps, not T = {}",
                    r.id.run,
                    r.label,
                    r.steps.len(),
                    spec.horizon
                )));
            }
        }
        if runs.len() != expected {
            return Err(bad(format!(
                "{} runs, expected {} algorithms × {} runs = {expected}",
                runs.len(),
                labels.len(),
                spec.runs
            )));
        }
        Ok(Self { spec, title: title.into(), runs })
    }

    /// The spec.
    pub fn spec(&self) -> &ExperimentSpec {
        &self.spec
    }

    /// The plot title.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The runs, sorted by (algorithm, run).
    pub fn runs(&self) -> &[RunRecord] {
        &self.runs
    }

    /// All runs as CSV (see [`crate::results`]).
    pub fn to_csv(&self, timing: crate::results::Timing) -> String {
        crate::results::runs_to_csv(&self.runs, timing)
    }

    /// Results from a CSV of all runs (e.g. `steps.csv`) and the spec that produced it.
    pub fn from_csv(spec: ExperimentSpec, title: impl Into<String>, text: &str) -> Result<Self> {
        let runs = crate::results::runs_from_csv(text, &spec.labels(), None)?;
        Self::new(spec, title, runs)
    }

    /// Mean and standard error per step and at the horizon.
    pub fn summary(&self) -> Result<Summary> {
        Summary::from_runs(&self.spec, &self.title, &self.runs)
    }
}
