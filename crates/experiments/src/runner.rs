//! The runner: runs × algorithms, in parallel on the current rayon pool, each run reproducible on
//! its own.
//!
//! **Streams.** Run `r` of algorithm `a` (its index in the spec) draws
//!
//! * the algorithm's randomness from `bohf_core::rng::stream(seed, &[a, r])`, and
//! * the respondent's from `bohf_core::rng::stream(seed, &[a, r, 1])`,
//!
//! (`a` is the entry's `stream` instead where it sets one: entries with one stream share their
//! randomness, [`crate::AlgorithmSpec::stream`]), so a run's result depends only on the spec, `a`
//! and `r`: not on the number of threads, on the
//! order in which runs are scheduled, or on which other runs are executed. That is what makes
//! sharding (run a subset with [`Experiment::run_tasks`]) and resuming (skip runs already written)
//! give the same results as one uninterrupted run.
//!
//! **A step.** At t = 1..=T: `query = suggest(rng_alg)`, `answer = respondent(query, rng_resp)`,
//! `observe(query, answer)`, `x̂_t = recommend()`; then the regrets of [`crate::metrics`] are
//! recorded, with the algorithm's [`bohf_core::Optimizer::step_details`]. With a `[budget]` the
//! run stops after the step at which its spent budget reaches the total, if that comes before T
//! ([`crate::budget`]). With `initial_duels = k` the algorithm first observes k uniformly random
//! duels and their answers, the same for every algorithm of the run ([`RunId::initial_rng`]), not
//! recorded as steps (unless its `shared_start = false`). `elapsed_s` accumulates the wall time spent in the algorithm: building it (e.g. its
//! base Gram) and its three calls at each step, but not the respondent or the metrics.
//!
//! **Failures.** A run that fails (an algorithm, solver or respondent error) becomes a
//! [`FailedRun`] naming the algorithm, run, step and error. The spec's `on_error` decides the rest
//! ([`crate::OnError`]): `stop` starts no further run and [`Experiment::run`] returns
//! [`ExperimentError::Stopped`] carrying every finished run; `continue` runs everything else and
//! the [`Results`] list the failures beside the finished runs. Finished runs are handed to the
//! caller as they finish in both cases (the CLI writes each to disk at once).

use crate::checkpoint::{CHECKPOINT_VERSION, Checkpoint, Checkpointing};
use crate::error::{ExperimentError, Result};
use crate::problem::PreparedProblem;
use crate::registry::{CheckedEntry, Registry};
pub use crate::results::{FailedRun, RunId};
use crate::results::{PointRecord, QueryKind, RunRecord, StepRecord, UtilityGap};
use crate::spec::{ExperimentSpec, OnError};
use crate::summary::Summary;
use bohf_core::{Domain, Query, SearchContext, rng};
use bohf_problems::Respondent;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The last element of the respondent's stream path (the algorithm's path has none).
pub const RESPONDENT_STREAM: u64 = 1;

/// The first element of the stream path of a run's shared initial duels (`[INITIAL_STREAM, run]`
/// for the points, `[INITIAL_STREAM, run, RESPONDENT_STREAM]` for the answers): no algorithm index
/// reaches it ([`crate::limits::MAX_ALGORITHMS`]), so these streams are shared by the algorithms
/// and distinct from every other.
pub const INITIAL_STREAM: u64 = u64::MAX;

impl RunId {
    /// The algorithm's random stream of this run under base seed `seed`.
    pub fn algorithm_rng(&self, seed: u64) -> bohf_core::BohfRng {
        rng::stream(seed, &[self.algorithm as u64, self.run as u64])
    }

    /// The respondent's random stream of this run under base seed `seed`.
    pub fn respondent_rng(&self, seed: u64) -> bohf_core::BohfRng {
        rng::stream(seed, &[self.algorithm as u64, self.run as u64, RESPONDENT_STREAM])
    }

    /// The streams of this run's shared initial duels ([`crate::ExperimentSpec::initial_duels`]):
    /// (points, answers). They depend on the run alone, so every algorithm sees the same duels
    /// with the same answers.
    pub fn initial_rng(&self, seed: u64) -> (bohf_core::BohfRng, bohf_core::BohfRng) {
        let run = self.run as u64;
        (rng::stream(seed, &[INITIAL_STREAM, run]), rng::stream(seed, &[INITIAL_STREAM, run, RESPONDENT_STREAM]))
    }
}

impl FailedRun {
    fn from_error(id: RunId, label: &str, e: &ExperimentError) -> Self {
        match e {
            ExperimentError::Run { step, source, .. } => {
                Self { id, label: label.to_string(), step: *step, error: source.to_string() }
            }
            other => Self { id, label: label.to_string(), step: 0, error: other.to_string() },
        }
    }
}

/// What [`Experiment::run_tasks`] did with its tasks.
#[derive(Debug, Clone, Default)]
pub struct TaskOutcome {
    /// The finished runs, in the order of the tasks.
    pub runs: Vec<RunRecord>,
    /// The failed runs, in the order of the tasks.
    pub failures: Vec<FailedRun>,
    /// Tasks not started because an earlier failure stopped the experiment (`on_error = "stop"`).
    pub not_started: Vec<RunId>,
}

/// A validated spec with its problem built and its algorithms resolved, ready to run.
#[derive(Debug, Clone)]
pub struct Experiment {
    spec: ExperimentSpec,
    problem: PreparedProblem,
    context: SearchContext<Domain>,
    /// Each algorithm's checked config, read from the spec once; every run builds from it.
    algorithms: Vec<CheckedEntry>,
    /// The registry the algorithms were resolved in (resuming a folder checks a stored spec and
    /// the memory of parallel runs against it).
    registry: Registry,
}

impl Experiment {
    /// Validates `spec` against `registry` (reading and checking each algorithm's `params` once,
    /// [`ExperimentSpec::check`]), builds the problem (loading data files), checks the memory
    /// estimate against the limit ([`crate::limits`]), and builds each algorithm once so that a
    /// parameter the problem rules out fails here, not in a run.
    pub fn new(spec: ExperimentSpec, registry: &Registry) -> Result<Self> {
        let algorithms = spec.check(registry)?;
        let problem = PreparedProblem::build(&spec.problem, &spec.respondent)?;
        // The candidate set's size is known now (for data files, only now): the algorithms'
        // memory is checked before they are built.
        let (candidates, dim) = problem.shape();
        spec.check_memory_of(&algorithms, candidates, dim, 1)?;
        let mut context = SearchContext::new(problem.search_domain().clone(), spec.horizon)?;
        if let Some(b) = &spec.budget {
            context = context.with_costs(b.costs());
        }
        for (i, a) in algorithms.iter().enumerate() {
            a.build(&context).map_err(|e| ExperimentError::in_field(&format!("algorithms[{i}]"), e))?;
        }
        Ok(Self { spec, problem, context, algorithms, registry: registry.clone() })
    }

    /// Refuses `parallel` runs at once if the memory they need exceeds the limit
    /// ([`ExperimentSpec::check_memory_of`], with the algorithms as checked).
    pub fn check_memory(&self, parallel: usize) -> Result<()> {
        let (candidates, dim) = self.problem.shape();
        self.spec.check_memory_of(&self.algorithms, candidates, dim, parallel)
    }

    /// The registry the experiment's algorithms come from.
    pub fn registry(&self) -> &Registry {
        &self.registry
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
            .flat_map(|run| (0..self.algorithms.len()).map(move |algorithm| RunId { algorithm, run }))
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
        self.run_one_checkpointed(id, None)
    }

    /// Runs one task, continuing from its checkpoint and saving checkpoints as `checkpointing`
    /// says ([`crate::checkpoint`]); `None` runs it from step 1 without checkpoints.
    // Long: the step loop (query check, answer, records, budget, checkpoints) shares the run's state.
    pub fn run_one_checkpointed(&self, id: RunId, checkpointing: Option<&Checkpointing>) -> Result<RunRecord> {
        let spec_alg = self.spec.algorithms.get(id.algorithm).ok_or_else(|| {
            ExperimentError::spec(
                "algorithm",
                format!("index {} out of range ({} algorithms)", id.algorithm, self.algorithms.len()),
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
        // The entry's streams: its own index's, or another entry's (`stream`, common random numbers).
        let streams = RunId { algorithm: spec_alg.stream.unwrap_or(id.algorithm), run: id.run };
        let mut alg_rng = streams.algorithm_rng(self.spec.seed);
        let mut resp_rng = streams.respondent_rng(self.spec.seed);
        let mut respondent = self.problem.respondent()?;
        let regret = self.problem.regret();
        // Queries and recommendations in the problem's coordinates (`problem.inputs`).
        let inputs = self.problem.input_map();
        let kind_of_domain = self.context.kind();
        let start = Instant::now();
        let mut optimizer = self.algorithms[id.algorithm].build(&self.context).map_err(fail(0))?;
        let mut elapsed = start.elapsed().as_secs_f64();
        let mut cumulative = 0.0;
        let mut steps = Vec::with_capacity(self.spec.horizon);
        let mut counts = crate::budget::QueryCounts::default();
        // A checkpoint replaces the initial duels and the steps it holds.
        let resumed = checkpointing.and_then(|c| {
            let from = (c.load)(id)?;
            let t0 = Instant::now();
            match optimizer.restore_state(&from.optimizer) {
                Ok(()) => Some((from, t0.elapsed().as_secs_f64())),
                Err(e) => {
                    (c.reject)(id, &e.to_string());
                    None
                }
            }
        });
        if let Some((from, restore_s)) = resumed {
            (alg_rng, resp_rng) = (from.algorithm_rng, from.respondent_rng);
            steps = from.steps;
            // A checkpoint written before the utility gaps existed gets them from its points.
            if steps.iter().any(|s| !s.utility_gap.is_recorded()) {
                let mut partial = RunRecord { id, label: label.clone(), steps };
                regret.fill_utility_gaps(&mut partial).map_err(fail(0))?;
                steps = partial.steps;
            }
            let last = steps.last().expect("a checkpoint holds a step");
            (cumulative, elapsed) = (last.cumulative_regret, last.elapsed_s + restore_s);
            steps.iter().for_each(|s| counts.add(s.query));
        } else if self.spec.initial_duels > 0 && spec_alg.shared_start {
            // The shared start: the same duels and answers for every algorithm of this run, observed
            // before step 1 (the algorithm's time to observe them counts in `elapsed_s`).
            let (mut points_rng, mut answers_rng) = id.initial_rng(self.spec.seed);
            let mut initial = self.problem.respondent()?;
            for _ in 0..self.spec.initial_duels {
                let query = self.problem.search_domain().random_duel(&mut points_rng).map_err(fail(0))?;
                let answer =
                    initial.answer(&to_problem(inputs, &query).map_err(fail(0))?, &mut answers_rng).map_err(fail(0))?;
                let t0 = Instant::now();
                optimizer.observe(&query, answer).map_err(fail(0))?;
                elapsed += t0.elapsed().as_secs_f64();
            }
        }
        let mut saving = checkpointing.map(|c| (c, Instant::now()));
        for t in steps.len() + 1..=self.spec.horizon {
            let t0 = Instant::now();
            let query = optimizer.suggest(&mut alg_rng).map_err(fail(t))?;
            let mut spent = t0.elapsed().as_secs_f64();
            self.algorithms[id.algorithm].check_query(&query).map_err(fail(t))?;
            let asked = to_problem(inputs, &query).map_err(fail(t))?;
            let answer = respondent.answer(&asked, &mut resp_rng).map_err(fail(t))?;
            let t1 = Instant::now();
            optimizer.observe(&query, answer).map_err(fail(t))?;
            let recommendation = optimizer.recommend().map_err(fail(t))?;
            let recommendation = inputs.point_to_problem(&recommendation).map_err(|e| fail(t)(core_error(e)))?;
            let query = asked;
            spent += t1.elapsed().as_secs_f64();
            elapsed += spent;
            let r = regret.instantaneous(&query).map_err(fail(t))?;
            cumulative += r;
            let kind = query.kind();
            let points = query
                .points()
                .into_iter()
                .map(|p| PointRecord::of(p, kind_of_domain))
                .collect::<bohf_core::Result<Vec<_>>>()
                .map_err(fail(t))?;
            let first = points.first().cloned().ok_or_else(|| {
                fail(t)(bohf_core::Error::invalid("query", "the algorithm asked a query with no points"))
            })?;
            let mut step = StepRecord {
                t,
                query: kind,
                first,
                second: points.get(1).cloned(),
                options: if kind == QueryKind::Choice { points } else { Vec::new() },
                answer,
                regret: r,
                cumulative_regret: cumulative,
                recommendation: PointRecord::of(&recommendation, kind_of_domain).map_err(fail(t))?,
                simple_regret: regret.simple(&recommendation).map_err(fail(t))?,
                elapsed_s: elapsed,
                details: optimizer.step_details().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                utility_gap: UtilityGap::NOT_RECORDED,
            };
            let gap_before = steps.last().map_or(0.0, |s: &StepRecord| s.utility_gap.cumulative);
            step.utility_gap = regret.utility_gaps(&step, gap_before).map_err(fail(t))?;
            steps.push(step);
            counts.add(kind);
            if let Some(budget) = &self.spec.budget
                && budget.is_spent(budget.spent(&counts))
            {
                break;
            }
            if let Some((c, last)) = saving
                && last.elapsed() >= c.every
                && t < self.spec.horizon
            {
                saving = match optimizer.save_state() {
                    Ok(Some(state)) => {
                        (c.save)(&Checkpoint {
                            version: CHECKPOINT_VERSION,
                            id,
                            label: label.clone(),
                            steps: steps.clone(),
                            algorithm_rng: alg_rng.clone(),
                            respondent_rng: resp_rng.clone(),
                            optimizer: state,
                        });
                        Some((c, Instant::now()))
                    }
                    // The algorithm does not save its state: no checkpoints for this run.
                    Ok(None) => None,
                    Err(e) => {
                        (c.warn)(
                            id,
                            &format!("no checkpoints for this run: saving its state after step {t} failed: {e}"),
                        );
                        None
                    }
                };
            }
        }
        Ok(RunRecord { id, label, steps })
    }

    /// Runs `ids` in parallel on the current rayon pool (use `ThreadPool::install` to choose the
    /// number of threads), calling `on_done` with each finished run and `on_failed` with each
    /// failed one (from the worker thread, in completion order: e.g. to write it to disk at once).
    /// With `on_error = "stop"` no task starts after the first failure; the runs in flight finish.
    pub fn run_tasks(
        &self,
        ids: &[RunId],
        on_done: &(dyn Fn(&RunRecord) + Sync),
        on_failed: &(dyn Fn(&FailedRun) + Sync),
    ) -> TaskOutcome {
        self.run_tasks_until(ids, on_done, on_failed, &|| false)
    }

    /// [`Experiment::run_tasks`], asking `cancelled` before each run starts: once it says true, no
    /// further run starts (they are [`TaskOutcome::not_started`]); runs in flight finish.
    pub fn run_tasks_until(
        &self,
        ids: &[RunId],
        on_done: &(dyn Fn(&RunRecord) + Sync),
        on_failed: &(dyn Fn(&FailedRun) + Sync),
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> TaskOutcome {
        self.run_tasks_checkpointed(ids, on_done, on_failed, cancelled, None)
    }

    /// [`Experiment::run_tasks_until`], each run continuing from its checkpoint and saving
    /// checkpoints as `checkpointing` says ([`crate::checkpoint`]).
    pub fn run_tasks_checkpointed(
        &self,
        ids: &[RunId],
        on_done: &(dyn Fn(&RunRecord) + Sync),
        on_failed: &(dyn Fn(&FailedRun) + Sync),
        cancelled: &(dyn Fn() -> bool + Sync),
        checkpointing: Option<&Checkpointing>,
    ) -> TaskOutcome {
        enum Ran {
            Done(RunRecord),
            Failed(FailedRun),
            NotStarted(RunId),
        }
        let stop = AtomicBool::new(false);
        let ran: Vec<Ran> = ids
            .par_iter()
            .map(|&id| {
                if stop.load(Ordering::SeqCst) || cancelled() {
                    return Ran::NotStarted(id);
                }
                match self.run_one_checkpointed(id, checkpointing) {
                    Ok(record) => {
                        on_done(&record);
                        Ran::Done(record)
                    }
                    Err(e) => {
                        let label = self.spec.algorithms.get(id.algorithm).map_or("?", |a| a.label());
                        let failed = FailedRun::from_error(id, label, &e);
                        if self.spec.on_error == OnError::Stop {
                            stop.store(true, Ordering::SeqCst);
                        }
                        on_failed(&failed);
                        Ran::Failed(failed)
                    }
                }
            })
            .collect();
        let mut outcome = TaskOutcome::default();
        for r in ran {
            match r {
                Ran::Done(record) => outcome.runs.push(record),
                Ran::Failed(f) => outcome.failures.push(f),
                Ran::NotStarted(id) => outcome.not_started.push(id),
            }
        }
        outcome
    }

    /// Runs every task and gathers the results. A failure ends in [`ExperimentError::Stopped`]
    /// (with the finished runs) under `on_error = "stop"`, and is listed in the results under
    /// `"continue"`.
    pub fn run(&self) -> Result<Results> {
        let outcome = self.run_tasks(&self.tasks(), &|_| {}, &|_| {});
        self.gather(outcome)
    }

    /// The results of a [`TaskOutcome`] over all tasks, under the spec's `on_error`.
    pub fn gather(&self, outcome: TaskOutcome) -> Result<Results> {
        let TaskOutcome { mut runs, failures, not_started } = outcome;
        match (failures.first(), self.spec.on_error) {
            (None, _) => Results::new(self.spec.clone(), self.title(), runs),
            (Some(first), OnError::Stop) => {
                runs.sort_by_key(|r| r.id);
                Err(ExperimentError::Stopped {
                    failure: Box::new(first.clone()),
                    finished: runs,
                    not_started: not_started.len(),
                })
            }
            (Some(_), OnError::Continue) => Results::with_failures(self.spec.clone(), self.title(), runs, failures),
        }
    }
}

/// The runs of an experiment: every (algorithm, run) of the spec, finished or (with
/// `on_error = "continue"`) failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    spec: ExperimentSpec,
    title: String,
    runs: Vec<RunRecord>,
    failures: Vec<FailedRun>,
}

impl Results {
    /// Results from runs (in any order, e.g. gathered from shards). Every (algorithm, run) of the
    /// spec must appear exactly once, complete ([`crate::budget::check_length`]: T steps, or fewer
    /// ending where its budget is spent) and with the spec's label; the runs are sorted by
    /// (algorithm, run).
    pub fn new(spec: ExperimentSpec, title: impl Into<String>, runs: Vec<RunRecord>) -> Result<Self> {
        Self::with_failures(spec, title, runs, Vec::new())
    }

    /// Results in which some runs failed (`on_error = "continue"`): every (algorithm, run) of the
    /// spec must appear exactly once, either among `runs` (complete, with the spec's label) or
    /// among `failures`.
    pub fn with_failures(
        spec: ExperimentSpec,
        title: impl Into<String>,
        mut runs: Vec<RunRecord>,
        mut failures: Vec<FailedRun>,
    ) -> Result<Self> {
        runs.sort_by_key(|r| r.id);
        failures.sort_by_key(|f| f.id);
        let labels = spec.labels();
        let bad = |reason: String| ExperimentError::Results { path: None, reason };
        let expected = labels.len() * spec.runs;
        let mut seen = vec![false; expected];
        let ids = runs.iter().map(|r| (r.id, "run")).chain(failures.iter().map(|f| (f.id, "failed run")));
        for (id, what) in ids {
            if id.algorithm >= labels.len() || id.run >= spec.runs {
                return Err(bad(format!(
                    "{what} {} of algorithm {} is beyond the spec's {} algorithms × {} runs",
                    id.run,
                    id.algorithm,
                    labels.len(),
                    spec.runs
                )));
            }
            let k = id.algorithm * spec.runs + id.run;
            if seen[k] {
                return Err(bad(format!(
                    "run {} of `{}` appears twice (finished or failed)",
                    id.run, labels[id.algorithm]
                )));
            }
            seen[k] = true;
        }
        if let Some(k) = seen.iter().position(|s| !s) {
            return Err(bad(format!(
                "run {} of `{}` is missing: {} finished and {} failed of {} algorithms × {} runs = {expected}",
                k % spec.runs,
                labels[k / spec.runs],
                runs.len(),
                failures.len(),
                labels.len(),
                spec.runs
            )));
        }
        for r in &runs {
            if r.label != labels[r.id.algorithm] {
                return Err(bad(format!(
                    "run {} of algorithm {} is labelled `{}`, the spec says `{}`",
                    r.id.run, r.id.algorithm, r.label, labels[r.id.algorithm]
                )));
            }
            if let Err(why) = crate::budget::check_length(r, &spec) {
                return Err(bad(format!("run {} of `{}` {why}", r.id.run, r.label)));
            }
            // Points are candidate indices on a finite candidate set and coordinates on a box.
            let kind = spec.problem.domain_kind();
            let by_coords = kind == bohf_core::DomainKind::Box;
            for s in &r.steps {
                let points = [Some(&s.first), s.second.as_ref(), Some(&s.recommendation)];
                if let Some(p) = points.into_iter().flatten().find(|p| p.coords().is_some() != by_coords) {
                    return Err(bad(format!(
                        "run {} of `{}`, step {}: the point {p:?} is {} but the problem's domain is {}",
                        r.id.run,
                        r.label,
                        s.t,
                        if by_coords { "a candidate index" } else { "given by coordinates" },
                        if by_coords {
                            "a box (points by coordinates)"
                        } else {
                            "a finite candidate set (points by index)"
                        },
                    )));
                }
            }
        }
        Ok(Self { spec, title: title.into(), runs, failures })
    }

    /// The failed runs (empty unless `on_error = "continue"` and some run failed), sorted by id.
    pub fn failures(&self) -> &[FailedRun] {
        &self.failures
    }

    /// The spec.
    pub fn spec(&self) -> &ExperimentSpec {
        &self.spec
    }

    /// The plot title.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The finished runs, sorted by (algorithm, run).
    pub fn runs(&self) -> &[RunRecord] {
        &self.runs
    }

    /// All runs as CSV (see [`crate::results`]).
    pub fn to_csv(&self, timing: crate::results::Timing) -> String {
        crate::results::runs_to_csv(&self.runs, timing)
    }

    /// Results from a CSV of all runs (e.g. `steps.csv`) and the spec that produced it.
    pub fn from_csv(spec: ExperimentSpec, title: impl Into<String>, text: &str) -> Result<Self> {
        let runs = crate::runs_csv::runs_from_csv(text, &spec.labels(), None)?;
        Self::new(spec, title, runs)
    }

    /// Mean and standard error per step and at the horizon, over the finished runs; the failures
    /// are listed in [`Summary::failures`].
    pub fn summary(&self) -> Result<Summary> {
        Summary::with_failures(&self.spec, &self.title, &self.runs, &self.failures)
    }
}

#[cfg(test)]
mod tests;

/// A query of the algorithm in the problem's coordinates ([`crate::inputs::InputMap::to_problem`]),
/// its error as a core error (the step's failure).
fn to_problem(inputs: &crate::inputs::InputMap, q: &Query) -> bohf_core::Result<Query> {
    inputs.to_problem(q).map_err(core_error)
}

/// An engine error met inside a step, as the core error a failed step carries.
fn core_error(e: ExperimentError) -> bohf_core::Error {
    match e {
        ExperimentError::Core(c) => c,
        other => bohf_core::Error::invalid("query", other.to_string()),
    }
}
