//! The leaderboard: every duel algorithm of bohf on a shared suite of problems, with one protocol
//! per problem (the same shared initial duels, horizon, respondent, runs and seed for every
//! algorithm), ranked by the utility gap u(x*) − u(x̂_T) of each algorithm's final recommendation
//! and by the cumulative utility gap G(T) of its duels (in the units of the problem's utility,
//! [`bohf_experiments::metrics`]), ties by the 2-s.e. rule of the reproduction's claims
//! ([`crate::compare`]); the preference regrets (P(x* ≻ x̂_T) − ½ and R(T)) stand beside them.
//!
//! The suite is a folder of experiment specs (the workspace's `specs/leaderboard/`), one per
//! problem, found by [`crate::discover`] (the spec's `name` equals its file stem). The board takes
//! every registry entry that asks duels only ([`bohf_experiments::AlgorithmEntry::asks_only`]): a
//! spec lists them with the problem's settings, and an entry it does not list joins with its
//! default params, labelled by its name, without the shared initial duels (`shared_start =
//! false`: not every algorithm can observe duels it did not ask) ([`SuiteProblem::added`]); an entry that asks evaluations
//! or labels (GP-UCB, COBOL, COMP-GP-UCB) never does. An algorithm that cannot run the problem's domain (a
//! finite-only algorithm on a box) is not run and is listed as n/a with the registry's reason
//! ([`bohf_experiments::AlgorithmEntry::unsupported`]), never dropped silently. `bohf leaderboard` runs the
//! suite ([`run_problem`], resumable and parallel as `bohf run`) and writes the page
//! ([`page_markdown`], [`write_page`]) with the boards it shows in `leaderboard/boards.json`, so
//! that a later call on some of the problems merges into the page ([`merge::merge_boards`]). A
//! problem whose data file is missing is found before anything runs ([`SuiteProblem::missing_data`])
//! and skipped with a note ([`merge::Skipped`]).

mod data;
pub mod merge;
mod page;

pub use page::{page_markdown, write_page};

use crate::{Order, PreparedPanel, Preset, SE_MULTIPLE, compare, pm};
use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::folder::{FolderProgress, Outcome, RunOptions, run_experiment};
use bohf_experiments::runner::{Experiment, Results};
use bohf_experiments::spec::{AlgorithmSpec, ExperimentSpec};
use bohf_experiments::summary::MeanSe;
use bohf_experiments::{FailedRun, RunRecord};
use bohf_experiments::{Metric, QueryKind, Registry, write_atomic};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// What a ranking orders by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The final recommendation's utility gap u(x*) − u(x̂_T) ([`BoardEntry::gap`]).
    Gap,
    /// The cumulative utility gap G(T) of the duels ([`BoardEntry::cumulative_gap`]).
    CumulativeGap,
}

impl By {
    /// The value ranked.
    pub fn value(self, e: &BoardEntry) -> MeanSe {
        match self {
            By::Gap => e.gap,
            By::CumulativeGap => e.cumulative_gap,
        }
    }

    /// The preference regret shown beside it: P(x* ≻ x̂_T) − ½, or R(T).
    pub fn secondary(self, e: &BoardEntry) -> MeanSe {
        match self {
            By::Gap => e.simple,
            By::CumulativeGap => e.cumulative,
        }
    }

    /// The column's name.
    pub fn name(self) -> &'static str {
        match self {
            By::Gap => "u(x*) − u(x̂_T)",
            By::CumulativeGap => "cumulative utility gap G(T)",
        }
    }

    /// The secondary column's name.
    pub fn secondary_name(self) -> &'static str {
        match self {
            By::Gap => "simple regret P(x* ≻ x̂_T) − ½",
            By::CumulativeGap => "cumulative regret R(T)",
        }
    }

    /// The metric plotted for it.
    pub fn metric(self) -> Metric {
        match self {
            By::Gap => Metric::SimpleGap,
            By::CumulativeGap => Metric::CumulativeGap,
        }
    }

    /// The plots' file stem after the problem's name: `<problem>-<stem>.{png,svg}`.
    pub fn file_stem(self) -> &'static str {
        match self {
            By::Gap => "gap",
            By::CumulativeGap => "cumulative-gap",
        }
    }
}

/// An algorithm of a suite spec that cannot run the problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotApplicable {
    /// Its label.
    pub label: String,
    /// Why, in the registry's words.
    pub reason: String,
}

/// One problem of the suite, prepared to run: its spec with the algorithms that can run it.
#[derive(Debug, Clone)]
pub struct SuiteProblem {
    /// The spec as run (`--quick` and `--runs` applied, a relative data path resolved, the n/a
    /// algorithms removed).
    pub spec: ExperimentSpec,
    /// The spec's horizon and runs as written (what the full suite runs).
    pub full: (usize, usize),
    /// Whether this is a `--quick` smoke test.
    pub quick: bool,
    /// The algorithms that cannot run the problem, in spec order.
    pub not_applicable: Vec<NotApplicable>,
    /// The names of the registry entries that ask duels only and that the spec does not list,
    /// added with their default params (labelled by their names) and `shared_start = false`, in
    /// registry order; run or n/a like the others.
    pub added: Vec<String>,
    /// The problem's domain in words.
    pub domain: String,
}

impl SuiteProblem {
    /// Prepares a suite spec: `quick` caps runs and horizon as `bohf reproduce --quick`
    /// ([`crate::QUICK_RUNS`], [`crate::QUICK_HORIZON`]), `runs` sets the runs
    /// (after it); every entry of `registry` that asks duels only and is not listed is added with
    /// its default params, without the shared start ([`SuiteProblem::added`]); the algorithms whose registry entry does not support the problem's kind of
    /// domain are set aside as [`NotApplicable`]. An error if an algorithm is unknown or none can
    /// run the problem (naming the file).
    pub fn prepare(preset: &Preset, quick: bool, runs: Option<usize>, registry: &Registry) -> Result<Self> {
        let in_file = |e: ExperimentError| ExperimentError::InFile { path: preset.path.clone(), source: Box::new(e) };
        let written = PreparedPanel::new(&preset.text, &preset.path, preset.dir(), false, None)?;
        let panel = PreparedPanel::new(&preset.text, &preset.path, preset.dir(), quick, runs)?;
        let mut spec = panel.spec;
        let kind = spec.problem.domain_kind();
        let domain = match spec.problem.box_domain().map_err(in_file)? {
            Some(b) => format!("a box {b}"),
            None => "a finite candidate set".to_string(),
        };
        let added: Vec<String> = registry
            .entries()
            .iter()
            .filter(|e| e.asks_only(QueryKind::Duel) && !spec.algorithms.iter().any(|a| a.name == e.name()))
            .map(|e| e.name().to_string())
            .collect();
        // Without the shared start: the registry does not say whether an algorithm can observe
        // duels it did not ask (MR-LPF cannot), and every algorithm can learn from its own.
        spec.algorithms.extend(added.iter().map(|n| AlgorithmSpec { shared_start: false, ..AlgorithmSpec::named(n) }));
        let mut not_applicable = Vec::new();
        let mut kept = Vec::new();
        for (i, a) in spec.algorithms.iter().enumerate() {
            let entry = registry
                .get(&a.name)
                .ok_or_else(|| in_file(registry.unknown(&format!("algorithms[{i}].name"), &a.name)))?;
            match entry.unsupported(kind, &domain) {
                Some(reason) => not_applicable.push(NotApplicable { label: a.label().to_string(), reason }),
                None => kept.push(a.clone()),
            }
        }
        if kept.is_empty() {
            return Err(in_file(ExperimentError::spec("algorithms", format!("no algorithm can run {domain}"))));
        }
        spec.algorithms = kept;
        Ok(Self { spec, full: (written.spec.horizon, written.spec.runs), quick, not_applicable, added, domain })
    }

    /// The spec's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }
}

/// One algorithm's row on a problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardEntry {
    /// Its label.
    pub label: String,
    /// Its registry name.
    pub name: String,
    /// Finished runs.
    pub runs: usize,
    /// The utility gap u(x*) − u(x̂_T) of the final recommendation in the units of the problem's
    /// own utility (before any scaling) (the summary's [`bohf_experiments::summary::GapSummary`]),
    /// mean ± s.e. over runs: the first ranking's metric.
    pub gap: MeanSe,
    /// The cumulative utility gap G(T) of the duels, same units: the second ranking's metric.
    pub cumulative_gap: MeanSe,
    /// Simple regret P(x* ≻ x̂_T) − ½ of the final recommendation (mean ± s.e. over runs).
    pub simple: MeanSe,
    /// Cumulative dueling regret R(T).
    pub cumulative: MeanSe,
    /// Wall time per step in the algorithm (its construction and the shared initial duels count
    /// in step 1), over every step of every run: the median.
    pub step_median_s: f64,
    /// The same, the mean.
    pub step_mean_s: f64,
    /// Wall time per run in the algorithm, mean over runs.
    pub run_mean_s: f64,
}

/// A finished problem of the suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProblemBoard {
    /// The spec name.
    pub name: String,
    /// The plot title.
    pub title: String,
    /// The domain in words.
    pub domain: String,
    /// T as run.
    pub horizon: usize,
    /// Runs per algorithm as run.
    pub runs: usize,
    /// T and runs of the spec as written (the full suite).
    pub full: (usize, usize),
    /// Shared initial duels.
    pub initial_duels: usize,
    /// The labels of the algorithms that do not observe them (`shared_start = false`).
    pub own_start: Vec<String>,
    /// Respondent in words.
    pub respondent: String,
    /// Whether this was a `--quick` smoke test.
    pub quick: bool,
    /// Wall time of the call that finished it, seconds (runs finished earlier and resumed are
    /// not in it).
    pub elapsed_s: f64,
    /// The runs this call ran; the others of the board were finished by an earlier call
    /// (`--resume`), so [`ProblemBoard::elapsed_s`] does not cover them.
    pub runs_in_call: usize,
    /// The algorithms that ran, in spec order.
    pub entries: Vec<BoardEntry>,
    /// The algorithms that cannot run the problem.
    pub not_applicable: Vec<NotApplicable>,
    /// Failed runs (`on_error = "continue"`), as text.
    pub failures: Vec<String>,
}

/// The median of `xs` (the mean of the two middle values for an even count); 0 when empty.
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { 0.5 * (v[m - 1] + v[m]) }
}

/// Each value's rank under the 2-s.e. rule: 1 + the number of other values significantly below
/// it ([`compare`] says [`Order::Lower`]). Values no other is significantly below share rank 1;
/// a tie never makes a rank worse than the plain order would.
pub fn ranks(values: &[MeanSe]) -> Vec<usize> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            1 + values.iter().enumerate().filter(|&(j, &o)| j != i && compare(o, v).2 == Order::Lower).count()
        })
        .collect()
}

impl ProblemBoard {
    /// The board of a problem's finished results (`elapsed_s`: the wall time of the call, which
    /// ran `runs_in_call` of the runs).
    pub fn of(
        problem: &SuiteProblem,
        experiment: &Experiment,
        results: &Results,
        elapsed_s: f64,
        runs_in_call: usize,
    ) -> Result<Self> {
        let summary = results.summary()?;
        let mut entries = Vec::new();
        for a in summary.algorithms.iter().filter(|a| a.runs > 0) {
            let mut steps = Vec::new();
            let mut per_run = Vec::new();
            // The runner records the gaps; a folder of runs from before them gets them when read.
            let g = a.utility_gap.as_ref().ok_or_else(|| ExperimentError::Results {
                path: None,
                reason: format!("the runs of `{}` on `{}` have no utility gaps", a.label, problem.name()),
            })?;
            for r in results.runs().iter().filter(|r| r.label == a.label) {
                let mut before = 0.0;
                for s in &r.steps {
                    steps.push(s.elapsed_s - before);
                    before = s.elapsed_s;
                }
                per_run.push(r.wall_seconds());
            }
            entries.push(BoardEntry {
                label: a.label.clone(),
                name: a.name.clone(),
                runs: a.runs,
                gap: g.simple_at_horizon,
                cumulative_gap: g.cumulative_at_horizon,
                simple: a.at_horizon.simple,
                cumulative: a.at_horizon.cumulative,
                step_median_s: median(&steps),
                step_mean_s: if steps.is_empty() { 0.0 } else { steps.iter().sum::<f64>() / steps.len() as f64 },
                run_mean_s: if per_run.is_empty() { 0.0 } else { per_run.iter().sum::<f64>() / per_run.len() as f64 },
            });
        }
        let spec = &problem.spec;
        let r = &spec.respondent;
        let respondent = format!("{:?} {:?} duels at scale s = {}", r.model, r.link, r.scale).to_lowercase();
        Ok(Self {
            name: spec.name.clone(),
            title: experiment.title(),
            domain: problem.domain.clone(),
            horizon: spec.horizon,
            runs: spec.runs,
            full: problem.full,
            initial_duels: spec.initial_duels,
            own_start: spec.algorithms.iter().filter(|a| !a.shared_start).map(|a| a.label().to_string()).collect(),
            respondent,
            quick: problem.quick,
            elapsed_s,
            runs_in_call,
            entries,
            not_applicable: problem.not_applicable.clone(),
            failures: summary.failures.iter().map(ToString::to_string).collect(),
        })
    }

    /// The rows ranked by the final utility gap or by the cumulative utility gap: (rank, row), sorted
    /// by rank then mean.
    pub fn ranked(&self, by: By) -> Vec<(usize, &BoardEntry)> {
        let value = |e: &BoardEntry| by.value(e);
        let values: Vec<MeanSe> = self.entries.iter().map(value).collect();
        let mut rows: Vec<(usize, &BoardEntry)> = ranks(&values).into_iter().zip(&self.entries).collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0).then(value(a.1).mean.total_cmp(&value(b.1).mean)));
        rows
    }

    /// The CPU seconds of the full suite's runs of this problem, extrapolated from the measured
    /// mean time per step: Σ over algorithms of runs × T × mean step time (the spec's runs and T
    /// as written).
    pub fn full_cpu_estimate_s(&self) -> f64 {
        let (horizon, runs) = self.full;
        self.entries.iter().map(|e| (runs * horizon) as f64 * e.step_mean_s).sum()
    }

    /// The CPU seconds of the runs measured (Σ of every run's wall time in the algorithm).
    pub fn cpu_s(&self) -> f64 {
        self.entries.iter().map(|e| e.run_mean_s * e.runs as f64).sum()
    }

    /// The finished runs on the board (every algorithm's).
    pub fn runs_total(&self) -> usize {
        self.entries.iter().map(|e| e.runs).sum()
    }
}

/// A [`FolderProgress`] that passes every event on and keeps the number of runs the call has to do.
struct CountingProgress<'a> {
    inner: &'a dyn FolderProgress,
    todo: std::sync::atomic::AtomicUsize,
}

impl FolderProgress for CountingProgress<'_> {
    fn start(&self, line: &str, todo: usize) {
        self.todo.store(todo, std::sync::atomic::Ordering::Relaxed);
        self.inner.start(line, todo);
    }
    fn note(&self, message: &str) {
        self.inner.note(message);
    }
    fn finished(&self, k: usize, total: usize, record: &RunRecord) {
        self.inner.finished(k, total, record);
    }
    fn failed(&self, k: usize, total: usize, failure: &FailedRun) {
        self.inner.failed(k, total, failure);
    }
    fn end(&self, total: usize, seconds: f64) {
        self.inner.end(total, seconds);
    }
    fn cancelled(&self) -> bool {
        self.inner.cancelled()
    }
}

/// Runs one problem of the suite into `out/<name>/` (the runner's folder: spec, one file per
/// finished run, steps.csv, summary.json; `resume` continues a folder with finished runs), and
/// draws its plots into `images`: the utility gap of the recommendation and the cumulative utility
/// gap as small multiples, one cell per algorithm (`<name>-gap.{png,svg}`,
/// `<name>-cumulative-gap.{png,svg}`, [`bohf_experiments::plot_small_multiples`]).
pub fn run_problem(
    problem: &SuiteProblem,
    out: &Path,
    images: &Path,
    threads: usize,
    resume: bool,
    registry: &Registry,
    progress: &dyn FolderProgress,
) -> Result<ProblemBoard> {
    let experiment = Experiment::new(problem.spec.clone(), registry)?;
    let opts = RunOptions {
        out: out.join(problem.name()),
        threads,
        shard: None,
        resume,
        checkpoint_every: Some(bohf_experiments::checkpoint::DEFAULT_CHECKPOINT_EVERY),
    };
    let start = std::time::Instant::now();
    let counting = CountingProgress { inner: progress, todo: std::sync::atomic::AtomicUsize::new(0) };
    let results = match run_experiment(&experiment, &opts, &counting)? {
        Outcome::Complete(results) => results,
        Outcome::ShardDone { .. } => unreachable!("no shard was asked for"),
    };
    let elapsed = start.elapsed().as_secs_f64();
    let mut summary = results.summary()?;
    if problem.quick {
        summary.title = format!("{} [quick: T = {}, {} runs]", summary.title, problem.spec.horizon, problem.spec.runs);
    }
    std::fs::create_dir_all(images).map_err(|source| ExperimentError::Io {
        action: "create",
        path: images.to_path_buf(),
        source,
    })?;
    for by in [By::Gap, By::CumulativeGap] {
        for ext in ["png", "svg"] {
            let path = images.join(format!("{}-{}.{ext}", problem.name(), by.file_stem()));
            bohf_experiments::output::small_multiples_atomic(&summary, by.metric(), path)?;
        }
    }
    ProblemBoard::of(problem, &experiment, &results, elapsed, counting.todo.into_inner())
}

#[cfg(test)]
mod tests;
