//! Experiment specs: what to run, written in TOML.
//!
//! ```toml
//! name = "pf-ts-ackley"          # used in summaries and file names
//! title = "Ackley (PF-TS §5.2)"  # optional: plot title (default: a description of the problem)
//! horizon = 300                  # T, queries per run
//! runs = 30                      # independent runs per algorithm
//! seed = 1                       # base seed of every random stream
//! on_error = "stop"              # a failed run stops the experiment (default), or "continue"
//!
//! [reproduces]                   # optional: the paper's experiment this is (see `reproduces`)
//! paper = "pfts"                 # mrlpf | pfts | popbo | cobol | compgpucb
//! figure = "Figure 2(a, b)"
//! claims = ["PF-TS < MR-LPF"]    # judged by `bohf reproduce`; names are algorithm labels
//!
//! [problem]                      # the utility and its candidate set (or box)
//! kind = "ackley"                # rkhs | ackley | catalyst | function | svm
//! points = 40
//! sign = "negated"
//! scaling = "none"
//!
//! [respondent]                   # the simulated person (defaults shown)
//! model = "stochastic"           # or "deterministic"
//! link = "logistic"              # or "probit"
//! scale = 1.0                    # h = scale·(u(x) − u(x′))
//! noise_sd = 1.0                 # σ of scalar evaluations u(x) + N(0, σ²)
//! # expert = { accuracy = 1.0, f_range = [0.0, 3.6253849384403627] }   # COBOL's labelling expert
//! # belief = { model = "mvn", mean = [0.0, 0.0] }   # or COBOL's belief expert (Σ = I unless `cov`)
//! # comparisons = "low-fidelity"   # duels from the problem's low fidelity f_c (COMP-GP-UCB); default "same"
//!
//! # [budget]                     # optional: query costs and a budget (see `crate::budget`)
//! # total = 50.0                 # a run stops once it has spent this (or at the horizon)
//! # duel = 1.0                   # cost per query kind (defaults 1.0)
//! # evaluate = 1.0
//! # label = 0.0
//!
//! [[algorithms]]
//! name = "pf-ts"                 # a name of the algorithm registry
//! label = "PF-TS"                # optional: display name, unique (default: name)
//! [algorithms.params]            # the algorithm's config, as its crate documents it
//!
//! [[algorithms]]
//! name = "maxminlcb"
//! ```
//!
//! [`ExperimentSpec::validate`] checks every field against the [`Registry`] and names the first bad
//! one by its path (`horizon`, `problem.points`, `algorithms[1].params.beta`, …).
//!
//! ## Problems ([`ProblemSpec`])
//!
//! | `kind` | fields (defaults) | source |
//! |---|---|---|
//! | `rkhs` | `kernel` (`matern52`; any stationary kernel kind), `points` (100), `scaling` (`{ multiply = 5.0 }`) | MR-LPF §5.1(a) on linspace(0, 1, points); PF-TS uses 30 points |
//! | `ackley` | `points` (100), `lower` (−5), `upper` (5), `sign` (`raw`; or `negated`), `scaling` (`{ difference_range = 3.0 }`) | MR-LPF §5.1(b); PF-TS: 40 points, `negated`, `none` |
//! | `catalyst` | `path` (required), `filter` (PF-TS's: `{ reaction = "CO2R", current_density = 300.0, elements = ["Ag", "Au", "Zn"], composition_column = "composition", utility_column = "fe_h2", divisor = 10.0 }`), `scaling` (`none`) | PF-TS §5.2, OCx24 |
//! | `svm` | `data` (required: `magic04.data`), `seed` (0: the split's shuffle), `points_per_dim` (20), `train` (2000), `validation` (500), `comparison_train` (500), `cache` (`<out>/../.svm-cache` under `bohf run`/`reproduce`) | COMP-GP-UCB §5.1: f and f_c on a grid of (log₁₀ h, log₁₀ C) ∈ [−3, 1] × [−1, 5] |
//! | `function` | `function` (a name of `bohf_problems::by_name`), `dim` (for scalable functions), `domain` (`grid`; or `box`), `points_per_dim` (10; grid only), `lower`/`upper` (the function's box), `scaling` (`standardise`) | any test function on a tensor grid, or on the box itself |
//!
//! A `function` problem with `domain = "box"` is continuous: the algorithms work on the box
//! `[lower, upper]` itself (only those whose registry entry declares a box mode, e.g. `pop-bo`),
//! and the regret is computed from the function's known optimum on that box (so the function must
//! have one there: its standard box or a sub-box that contains an optimiser). Its `scaling` is
//! computed from the values at [`crate::problem::BOX_DESIGN`] uniform draws from the box (a fixed
//! stream), where a grid problem's is computed from the grid's values.
//!
//! `scaling` is one of `"none"`, `{ multiply = c }`, `{ difference_range = b }`,
//! `{ range = [lo, hi] }`, `"standardise"` (see [`bohf_problems::Scaling`]).
//!
//! **Defaults that learn.** Every kind takes `inputs` (`"unit-cube"` by default, or `"raw"`; see
//! [`crate::inputs`]): the algorithms see every coordinate mapped onto [0, 1], so the kernels'
//! default lengthscale 0.1 means a tenth of each coordinate's range. The general kinds (`function`,
//! `catalyst`) standardise the utility by default, so that the respondent's link μ(s·(u(x) − u(x′)))
//! sees differences of order 1 (about ±2 between a good and a typical candidate) whatever the
//! function's units; the papers' kinds (`rkhs`, `ackley`) keep the papers' scalings as their
//! defaults (×5; differences in [−3, 3]), which do the same. The papers' presets (`specs/`) state
//! `inputs` and `scaling` explicitly. A relative catalyst
//! `path` (svm `data`, `cache`) is resolved against the spec file's folder by
//! [`ExperimentSpec::from_file`].

use crate::error::{ExperimentError, Result};
pub use crate::inputs::Inputs;
use crate::limits::{self, Allocation, MemoryEstimate, ProblemShape};
use crate::registry::{CheckedEntry, Registry};
use crate::reproduces::Reproduces;
use bohf_core::Link;
use bohf_kernels::KernelKind;
use bohf_problems::{AckleySign, Ocx24Filter, Scaling};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

mod problem;
mod respondent;

pub use problem::{
    AckleyProblem, CatalystProblem, FunctionDomain, FunctionProblem, ProblemSpec, RkhsProblem, SvmProblem,
};
pub use respondent::{BeliefModel, BeliefSpec, ComparisonSource, ExpertSpec, RespondentSpec, ResponseModel};

/// An experiment: a problem, a simulated respondent, algorithms, a horizon, a number of runs and a
/// base seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// A short name.
    pub name: String,
    /// The plot title; by default a description of the problem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The number of queries T of each run (≥ 1); with a `[budget]`, the most a run may take.
    pub horizon: usize,
    /// The number of independent runs per algorithm (≥ 1).
    pub runs: usize,
    /// The base seed from which every random stream is derived.
    #[serde(default)]
    pub seed: u64,
    /// The utility and its candidate set.
    pub problem: ProblemSpec,
    /// The simulated respondent.
    #[serde(default)]
    pub respondent: RespondentSpec,
    /// Query costs and a total budget: a run stops after the step at which its spent budget reaches
    /// `budget.total` (that last query may overshoot the total; it is recorded), or at the horizon,
    /// whichever comes first. Costs per query kind `duel`, `evaluate`, `label` default to 1 (see
    /// [`crate::budget`]). Without it every run takes `horizon` queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<crate::budget::BudgetSpec>,
    /// Uniformly random duels every algorithm observes before its first query, the same duels and
    /// the same answers for every algorithm in a run (a shared start, as the qEUBO paper's
    /// protocol): drawn from a stream of the run alone ([`crate::runner::RunId::initial_rng`]), not
    /// counted in the horizon or the regrets. Default 0; at most 10⁸ (`limits::MAX_HORIZON`); not
    /// with a `[budget]` (they would not be charged).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub initial_duels: usize,
    /// The algorithms, in the order of their streams (see [`crate::runner`]).
    pub algorithms: Vec<AlgorithmSpec>,
    /// What a failed run (e.g. a solver failure) does to the others; finished runs are kept either
    /// way. Written to TOML only when not the default.
    #[serde(default, skip_serializing_if = "OnError::is_stop")]
    pub on_error: OnError,
    /// What the spec reproduces (the paper, the figure, the claims judged); see
    /// [`crate::reproduces`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduces: Option<Reproduces>,
}

/// What a run that fails (an algorithm or solver error) does to the rest of the experiment
/// ([`crate::Experiment::run_tasks`]). Runs already finished are never lost: they are handed out as
/// they finish and kept in the results or in the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// No new run starts after the first failure; the runs in flight finish, and the experiment
    /// ends with an error that names the failure and carries the finished runs.
    #[default]
    Stop,
    /// The failure is recorded (algorithm, run, step, error) and every other run goes on; the
    /// results summarise the runs that finished and list the failures.
    Continue,
}

impl OnError {
    /// Whether this is [`OnError::Stop`] (the default).
    pub fn is_stop(&self) -> bool {
        *self == OnError::Stop
    }
}

/// One algorithm of an experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlgorithmSpec {
    /// Its name in the [`Registry`] (e.g. `pf-ts`).
    pub name: String,
    /// Its display name, unique in the experiment; by default the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Its configuration, deserialised into the algorithm's config type (unknown keys are errors).
    #[serde(default)]
    pub params: toml::Table,
    /// Whether it observes the spec's shared initial duels ([`ExperimentSpec::initial_duels`];
    /// default true). False for an algorithm that learns from its own queries only (MR-LPF, whose
    /// rounds refuse any other duel): it starts from nothing, a handicap the leaderboard states.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub shared_start: bool,
    /// Draw the random streams (the algorithm's and the respondent's, [`crate::runner`]) as the
    /// entry at this index does, instead of by the entry's own index (the default). Entries with
    /// the same stream see the same randomness in run r (common random numbers): two entries of
    /// one algorithm that differ in a parameter then differ only where the parameter changes a
    /// decision, which is what a sensitivity comparison wants. Must be an index of `algorithms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<usize>,
}

impl AlgorithmSpec {
    /// An algorithm with default parameters.
    pub fn named(name: impl Into<String>) -> Self {
        Self { name: name.into(), label: None, params: toml::Table::new(), shared_start: true, stream: None }
    }

    /// The display name: the label, or the name.
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }
}

impl ExperimentSpec {
    /// Parses a spec from TOML text (syntax and shape only; see [`ExperimentSpec::validate`]).
    pub fn from_toml_str(text: &str) -> Result<Self> {
        crate::de::from_toml_text(text, None)
    }

    /// Reads a spec file; a relative data path (catalyst `path`, svm `data` and `cache`) is resolved
    /// against the file's folder.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ExperimentError::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        let mut spec: Self = crate::de::from_toml_text(&text, Some(path))?;
        if let Some(dir) = path.parent() {
            spec.problem.resolve_paths(dir);
        }
        Ok(spec)
    }

    /// The spec as TOML text (parses back to an equal spec). The seed must fit in an i64 (TOML
    /// integers are 64-bit signed).
    pub fn to_toml_string(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| ExperimentError::spec("seed", format!("cannot write the spec as TOML: {e}")))
    }

    /// The labels of the algorithms, in order.
    pub fn labels(&self) -> Vec<String> {
        self.algorithms.iter().map(|a| a.label().to_string()).collect()
    }

    /// Checks every field; the error names the first invalid one by its path in the spec.
    ///
    /// Besides each field's own rules: `name` must be a plain file name (it names the results
    /// folder), every size-like field is bounded ([`crate::limits`]), and the memory the runs need
    /// is estimated and compared with the limit ([`MemoryLimit::from_env`]) when the candidate
    /// set's size is known from the spec (for a catalyst problem, [`crate::Experiment::new`] does it
    /// once the data is loaded).
    pub fn validate(&self, registry: &Registry) -> Result<()> {
        self.check(registry).map(|_| ())
    }

    /// [`ExperimentSpec::validate`], returning what it made of each algorithm's `params`: its
    /// checked config for the problem's kind of domain, in spec order, read and checked here once
    /// ([`crate::AlgorithmEntry::parse_for`]); [`crate::Experiment`] builds every run from these.
    pub fn check(&self, registry: &Registry) -> Result<Vec<CheckedEntry>> {
        check_file_name("name", &self.name)?;
        if let Some(title) = &self.title {
            check_text("title", title, true)?;
        }
        if self.horizon == 0 {
            return Err(ExperimentError::spec("horizon", "T must be at least 1, got 0"));
        }
        at_most("horizon", self.horizon, limits::MAX_HORIZON)?;
        if self.runs == 0 {
            return Err(ExperimentError::spec("runs", "need at least one run, got 0"));
        }
        at_most("runs", self.runs, limits::MAX_RUNS)?;
        at_most("algorithms", self.algorithms.len(), limits::MAX_ALGORITHMS)?;
        if self.seed > i64::MAX as u64 {
            return Err(ExperimentError::spec(
                "seed",
                format!("must be at most {} (TOML integers), got {}", i64::MAX, self.seed),
            ));
        }
        at_most("initial_duels", self.initial_duels, limits::MAX_HORIZON)?;
        if self.initial_duels > 0 && self.budget.is_some() {
            return Err(ExperimentError::spec(
                "initial_duels",
                "shared initial duels are not charged to a budget; leave out one of `initial_duels` and `[budget]`",
            ));
        }
        let shape = self.problem.validate()?;
        let kind = self.problem.domain_kind();
        let domain = match self.problem.box_domain()? {
            Some(b) => format!("a box {b} (`problem.domain = \"box\"`)"),
            None => "a finite candidate set".to_string(),
        };
        self.respondent.validate()?;
        if let Some(b) = &self.budget {
            b.validate()?;
        }
        if self.algorithms.is_empty() {
            return Err(ExperimentError::spec("algorithms", "need at least one algorithm"));
        }
        let costs = self.budget.as_ref().map(|b| b.costs());
        let mut checked = Vec::with_capacity(self.algorithms.len());
        for (i, a) in self.algorithms.iter().enumerate() {
            let at = format!("algorithms[{i}]");
            let entry = registry.get(&a.name).ok_or_else(|| registry.unknown(&format!("{at}.name"), &a.name))?;
            let label = a.label();
            check_text(&format!("{at}.label"), label, false)?;
            if let Some(j) = self.algorithms[..i].iter().position(|b| b.label() == label) {
                return Err(ExperimentError::spec(
                    format!("{at}.label"),
                    format!("`{label}` is also the label of algorithms[{j}]; give each a distinct `label`"),
                ));
            }
            if let Some(j) = a.stream.filter(|&j| j >= self.algorithms.len()) {
                return Err(ExperimentError::spec(
                    format!("{at}.stream"),
                    format!("{j} is not the index of an entry (there are {}, from 0)", self.algorithms.len()),
                ));
            }
            let c = entry.parse_for(kind, &domain, &a.params, &format!("{at}.name"), &format!("{at}.params"))?;
            c.check_costs(costs.as_ref())?;
            checked.push(c);
        }
        if let Some(r) = &self.reproduces {
            r.validate(Some(&self.labels()))?;
        }
        if let Some((candidates, dim)) = shape {
            self.check_memory_of(&checked, candidates, dim, 1)?;
        }
        Ok(checked)
    }

    /// The memory the experiment needs on `candidates` points of dimension `dim` with `parallel`
    /// runs in flight: the candidate set, the step records of every run (kept until the results
    /// are written), and `parallel` times the heaviest algorithm's own estimate
    /// ([`crate::AlgorithmEntry::memory`]). Algorithms not in `registry` count nothing.
    pub fn memory_estimate(
        &self,
        registry: &Registry,
        candidates: usize,
        dim: usize,
        parallel: usize,
    ) -> MemoryEstimate {
        let shape = ProblemShape { candidates, dim, horizon: self.horizon };
        let own = self
            .algorithms
            .iter()
            .filter_map(|a| registry.get(&a.name).map(|e| (a.label(), e.memory_for(&shape, &a.params))))
            .collect();
        self.estimate(own, candidates, dim, parallel)
    }

    /// [`ExperimentSpec::memory_estimate`] of the spec's algorithms as checked
    /// ([`ExperimentSpec::check`], in spec order).
    pub fn memory_estimate_of(
        &self,
        checked: &[CheckedEntry],
        candidates: usize,
        dim: usize,
        parallel: usize,
    ) -> MemoryEstimate {
        let shape = ProblemShape { candidates, dim, horizon: self.horizon };
        let own = self.algorithms.iter().zip(checked).map(|(a, c)| (a.label(), c.memory(&shape))).collect();
        self.estimate(own, candidates, dim, parallel)
    }

    /// The estimate from each algorithm's own allocations (label, parts).
    fn estimate(
        &self,
        own: Vec<(&str, Vec<Allocation>)>,
        candidates: usize,
        dim: usize,
        parallel: usize,
    ) -> MemoryEstimate {
        // About four copies of the n×d candidates (the grid, the tabulated and the rescaled
        // utility's domains, the search context's), f64 each; the n values are smaller.
        let mut parts = vec![
            Allocation::of(
                format!("the candidate set ({candidates} points × {dim} dimensions)"),
                32,
                &[candidates, dim.max(1)],
            ),
            // Each step is kept as a record and written as a CSV row (about 160 bytes of text).
            Allocation::of(
                format!(
                    "the step records ({} runs × {} algorithms × T = {})",
                    self.runs,
                    self.algorithms.len(),
                    self.horizon
                ),
                std::mem::size_of::<crate::results::StepRecord>() + 160,
                &[self.runs, self.algorithms.len(), self.horizon],
            ),
        ];
        let heaviest =
            own.into_iter().max_by_key(|(_, parts)| parts.iter().fold(0u128, |acc, p| acc.saturating_add(p.bytes)));
        let parallel = parallel.max(1).min(self.runs.saturating_mul(self.algorithms.len()).max(1));
        if let Some((label, own)) = heaviest {
            for p in own {
                let what = if parallel > 1 {
                    format!("{label} on {candidates} candidates needs {} (× {parallel} runs at once)", p.what)
                } else {
                    format!("{label} on {candidates} candidates needs {}", p.what)
                };
                parts.push(Allocation { what, bytes: p.bytes.saturating_mul(parallel as u128) });
            }
        }
        MemoryEstimate::new(parts)
    }

    /// Refuses the experiment if [`ExperimentSpec::memory_estimate`] exceeds the memory limit
    /// ([`MemoryLimit::from_env`]).
    pub fn check_memory(&self, registry: &Registry, candidates: usize, dim: usize, parallel: usize) -> Result<()> {
        self.memory_estimate(registry, candidates, dim, parallel).check("the experiment")
    }

    /// [`ExperimentSpec::check_memory`] of the spec's algorithms as checked
    /// ([`ExperimentSpec::check`], in spec order).
    pub fn check_memory_of(
        &self,
        checked: &[CheckedEntry],
        candidates: usize,
        dim: usize,
        parallel: usize,
    ) -> Result<()> {
        self.memory_estimate_of(checked, candidates, dim, parallel).check("the experiment")
    }
}

/// An error if `value` exceeds `max`, naming `field` and the bound.
fn at_most(field: &str, value: usize, max: usize) -> Result<()> {
    if value > max {
        return Err(ExperimentError::spec(field, format!("at most {max} is supported, got {value}")));
    }
    Ok(())
}

/// Whether `c` reorders text on screen: the Unicode bidirectional controls (embeddings,
/// overrides, isolates and the marks), which make a name display as something else (a
/// right-to-left override shows `x\u{202E}gpj.exe` as `xexe.jpg`).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Display text: not blank (unless `may_be_empty`), no control characters (bidirectional
/// controls included, [`is_bidi_control`]), at most [`limits::MAX_NAME_LEN`] characters.
fn check_text(field: &str, text: &str, may_be_empty: bool) -> Result<()> {
    let len = text.chars().count();
    if (!may_be_empty && text.trim().is_empty())
        || text.chars().any(|c| c.is_control() || is_bidi_control(c))
        || len > limits::MAX_NAME_LEN
    {
        return Err(ExperimentError::spec(
            field,
            format!(
                "must be {}text without control characters (bidirectional controls such as U+202E included), at most {} characters, got {:?}",
                if may_be_empty { "" } else { "non-empty " },
                limits::MAX_NAME_LEN,
                text.chars().take(limits::MAX_NAME_LEN + 1).collect::<String>()
            ),
        ));
    }
    Ok(())
}

/// A plain file name (the default results folder is `results/<name>`): not empty, no `/` or `\`,
/// not `.` or `..`, no leading dot, no `:`, no control characters, at most
/// [`limits::MAX_NAME_LEN`] characters.
fn check_file_name(field: &str, name: &str) -> Result<()> {
    check_text(field, name, false)?;
    let bad = if name.contains(['/', '\\']) {
        Some("contains a path separator")
    } else if name.starts_with('.') {
        Some("starts with a dot (`.`, `..` and hidden names are not allowed)")
    } else if name.contains(':') {
        Some("contains `:`")
    } else if name != name.trim() {
        Some("starts or ends with white space")
    } else {
        None
    };
    match bad {
        Some(why) => Err(ExperimentError::spec(
            field,
            format!("must be a plain file name (it names the results folder results/<name>); {name:?} {why}"),
        )),
        None => Ok(()),
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
}
