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
use crate::registry::Registry;
use crate::reproduces::Reproduces;
use bohf_core::Link;
use bohf_kernels::KernelKind;
use bohf_problems::{AckleySign, Ocx24Filter, Scaling};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
}

impl AlgorithmSpec {
    /// An algorithm with default parameters.
    pub fn named(name: impl Into<String>) -> Self {
        Self { name: name.into(), label: None, params: toml::Table::new(), shared_start: true }
    }

    /// The display name: the label, or the name.
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }
}

/// How the simulated respondent answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RespondentSpec {
    /// Stochastic (BTL / Thurstone) or deterministic duels.
    pub model: ResponseModel,
    /// The link μ of stochastic duels: P(x ≻ x′) = μ(h), h = scale·(u(x) − u(x′)).
    pub link: Link,
    /// The utility scale s > 0: the respondent's utility is s·u (for duels and for values).
    pub scale: f64,
    /// The standard deviation σ ≥ 0 of scalar evaluations s·u(x) + N(0, σ²) (PF-TS App. F.1: 1).
    pub noise_sd: f64,
    /// A synthetic labelling expert (COBOL Example 2.2) answering label queries; none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expert: Option<ExpertSpec>,
    /// A belief expert (COBOL App. H/I, Experiment D (b)) answering label queries instead of
    /// `expert`; none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub belief: Option<BeliefSpec>,
    /// Which function duels are answered from: the utility itself (`same`, the default) or the
    /// problem's low fidelity f_c (`low-fidelity`, COMP-GP-UCB's comparison source; only for a
    /// `function` problem on `currin_exp` or `borehole`). Evaluations and the regret stay on the
    /// utility f. Written to TOML only when not the default.
    #[serde(skip_serializing_if = "ComparisonSource::is_same")]
    pub comparisons: ComparisonSource,
}

/// `respondent.comparisons`: the function a duel is decided on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComparisonSource {
    /// The utility f (every paper but COMP-GP-UCB).
    #[default]
    Same,
    /// The low fidelity f_c of a two-fidelity test function ([`bohf_problems::low_fidelity`]),
    /// tabulated on the same candidates and mapped by the same affine scaling (the problem's
    /// `scaling` computed from f's values, then the respondent's `scale`) as f, so that duels under
    /// a stochastic model are P(x ≻ x′) = μ(s·(f_c(x) − f_c(x′))) on f's scale (notes 002 §1.2, §5.2).
    LowFidelity,
}

impl ComparisonSource {
    /// Whether this is [`ComparisonSource::Same`] (the default).
    pub fn is_same(&self) -> bool {
        *self == ComparisonSource::Same
    }
}

impl Default for RespondentSpec {
    fn default() -> Self {
        Self {
            model: ResponseModel::Stochastic,
            link: Link::Logistic,
            scale: 1.0,
            noise_sd: 1.0,
            expert: None,
            belief: None,
            comparisons: ComparisonSource::Same,
        }
    }
}

/// `[respondent.expert]`: COBOL's synthetic expert P(reject) = S(a·ρ(f(x))) with f = −s·u and ρ
/// the affine map of [f_min, f_max] onto [−3, 3] ([`bohf_problems::SyntheticExpert::cobol`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpertSpec {
    /// The accuracy a (finite): > 0 informative, 0 random, < 0 adversarial (the paper: −2..2).
    pub accuracy: f64,
    /// COBOL's [f_min, f_max] of the minimised f = −s·u (the code's constants, notes 004 §5.3).
    /// Default: the range of f over the candidate set; required on a box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f_range: Option<[f64; 2]>,
}

/// `[respondent] belief = { model = "mvn", mean = [...], cov = [[...]] }`: an expert whose belief is
/// a normal density, accepting x with probability N(x; μ, Σ)/N(μ; μ, Σ)
/// ([`bohf_problems::MvnBeliefExpert`]; COBOL's πBO-style belief of App. H/I, Experiment D (b)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeliefSpec {
    /// The belief model; `"mvn"` is the only one.
    pub model: BeliefModel,
    /// μ, in the problem's own coordinates (those of `problem.lower`/`upper`, whatever
    /// `problem.inputs` shows the algorithms), of the problem's dimension.
    pub mean: Vec<f64>,
    /// Σ, d × d symmetric positive definite; default the identity (the paper's Σ = I).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cov: Option<Vec<Vec<f64>>>,
}

/// `respondent.belief.model`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BeliefModel {
    /// P(accept) = exp(−½ (x − μ)ᵀ Σ⁻¹ (x − μ)).
    Mvn,
}

/// The duel model of the respondent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ResponseModel {
    /// P(x ≻ x′) = μ(h): BTL for the logistic link, Thurstone for the probit.
    #[default]
    Stochastic,
    /// x wins iff h > 0, ties by a fair coin.
    Deterministic,
}

/// The problem: a utility tabulated on a finite candidate set, or a test function on a box (see the
/// module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ProblemSpec {
    /// A kernel-ridge RKHS function of MR-LPF's construction on an even grid of [0, 1].
    Rkhs(RkhsProblem),
    /// 1-D Ackley on an even grid.
    Ackley(AckleyProblem),
    /// The OCx24 catalyst compositions.
    Catalyst(CatalystProblem),
    /// A benchmark test function on a tensor grid, or on its box (`domain = "box"`).
    Function(FunctionProblem),
    /// COMP-GP-UCB's SVM-tuning task on the MAGIC data (both fidelities) on a grid.
    Svm(SvmProblem),
}

/// `kind = "rkhs"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RkhsProblem {
    /// The kernel that generates the function (MR-LPF: SE, Matérn-5/2, Matérn-3/2).
    pub kernel: KernelKind,
    /// The number of grid points of [0, 1] (MR-LPF 100, PF-TS 30).
    pub points: usize,
    /// The rescaling (MR-LPF's code: ×5).
    pub scaling: Scaling,
    /// The coordinates the algorithms see ([`crate::inputs`]): `"unit-cube"` (the default) or
    /// `"raw"` (the problem's own).
    pub inputs: Inputs,
}

impl Default for RkhsProblem {
    fn default() -> Self {
        Self { kernel: KernelKind::Matern52, points: 100, scaling: Scaling::Multiply(5.0), inputs: Inputs::UnitCube }
    }
}

/// `kind = "ackley"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AckleyProblem {
    /// The number of grid points (MR-LPF 100, PF-TS 40).
    pub points: usize,
    /// The lower end of the interval (−5).
    pub lower: f64,
    /// The upper end of the interval (5).
    pub upper: f64,
    /// Maximise A (`raw`, MR-LPF's code) or −A (`negated`, PF-TS).
    pub sign: AckleySign,
    /// The rescaling (MR-LPF's code: differences to [−3, 3]).
    pub scaling: Scaling,
    /// The coordinates the algorithms see ([`crate::inputs`]): `"unit-cube"` (the default) or
    /// `"raw"` (the problem's own).
    pub inputs: Inputs,
}

impl Default for AckleyProblem {
    fn default() -> Self {
        Self {
            points: 100,
            lower: -5.0,
            upper: 5.0,
            sign: bohf_problems::presets::MR_LPF_ACKLEY_SIGN,
            scaling: Scaling::DifferenceRange(3.0),
            inputs: Inputs::UnitCube,
        }
    }
}

/// `kind = "catalyst"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalystProblem {
    /// The OCx24 CSV file.
    pub path: PathBuf,
    /// Which rows and how to aggregate them (PF-TS's filter by default).
    #[serde(default)]
    pub filter: Ocx24Filter,
    /// A rescaling after the filter's division (default `"standardise"`: mean 0, standard
    /// deviation 1 over the compositions).
    #[serde(default = "default_scaling")]
    pub scaling: Scaling,
    /// The coordinates the algorithms see ([`crate::inputs`]): `"unit-cube"` (the default) or
    /// `"raw"` (the problem's own).
    #[serde(default)]
    pub inputs: Inputs,
}

/// `kind = "svm"`: COMP-GP-UCB's SVM-tuning task (notes 002 §5.1; [`bohf_problems::SvmTask`]) on a
/// `points_per_dim × points_per_dim` grid of (log₁₀ h, log₁₀ C) ∈ [−3, 1] × [−1, 5]: f is the
/// validation accuracy of the RBF SVM trained on `train` rows, its low fidelity f_c (the source of
/// duels with `respondent.comparisons = "low-fidelity"`) that of the SVM trained on the first
/// `comparison_train` of them. The table of both is cached on disk (see [`crate::svm_table`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SvmProblem {
    /// The MAGIC data file `magic04.data` (a relative path is resolved against the spec file's
    /// folder; `bohf reproduce --data FILE` overrides it).
    pub data: PathBuf,
    /// The seed of the shuffle that splits the records into training and validation rows.
    #[serde(default)]
    pub seed: u64,
    /// Grid points per dimension (≥ 2; the presets: 20, i.e. 400 points and 800 SVM trainings).
    #[serde(default = "default_svm_points_per_dim")]
    pub points_per_dim: usize,
    /// Training rows of f's SVM (the paper's 2,000).
    #[serde(default = "default_svm_train")]
    pub train: usize,
    /// Validation rows (the paper's 500).
    #[serde(default = "default_svm_validation")]
    pub validation: usize,
    /// The fixed subset of the training rows f_c's SVM is trained on (the paper's 500).
    #[serde(default = "default_svm_comparison_train")]
    pub comparison_train: usize,
    /// The folder of the table cache (a relative path is resolved against the spec file's folder).
    /// Without it, `bohf run` and `bohf reproduce` use `.svm-cache` beside the results folder
    /// (`<out>/../.svm-cache`); a program that builds the experiment itself tabulates in memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<PathBuf>,
    /// The coordinates the algorithms see ([`crate::inputs`]): `"unit-cube"` (the default) or
    /// `"raw"` (the problem's own).
    #[serde(default)]
    pub inputs: Inputs,
}

fn default_svm_points_per_dim() -> usize {
    20
}
fn default_svm_train() -> usize {
    bohf_problems::svm::MAGIC_TRAIN
}
fn default_svm_validation() -> usize {
    bohf_problems::svm::MAGIC_VALIDATION
}
fn default_svm_comparison_train() -> usize {
    bohf_problems::svm::MAGIC_COMPARISON_TRAIN
}

/// `kind = "function"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionProblem {
    /// The function's name, as `bohf_problems::by_name` accepts it.
    pub function: String,
    /// The dimension of a scalable function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dim: Option<usize>,
    /// A tensor grid of the box (the default) or the box itself. Written to TOML only when `box`.
    #[serde(default, skip_serializing_if = "FunctionDomain::is_grid")]
    pub domain: FunctionDomain,
    /// Grid points per dimension (≥ 2); a box problem has no grid and takes only the default.
    #[serde(default = "default_points_per_dim")]
    pub points_per_dim: usize,
    /// Lower corner of the box (default: the function's standard domain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<Vec<f64>>,
    /// Upper corner of the box (default: the function's standard domain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<Vec<f64>>,
    /// The rescaling (default `"standardise"`: mean 0, standard deviation 1 over the grid, or
    /// over [`crate::problem::BOX_DESIGN`] uniform draws from a box).
    #[serde(default = "default_scaling")]
    pub scaling: Scaling,
    /// The coordinates the algorithms see ([`crate::inputs`]): `"unit-cube"` (the default) or
    /// `"raw"` (the problem's own).
    #[serde(default)]
    pub inputs: Inputs,
}

/// What a `function` problem's algorithms search: a grid of the box, or the box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FunctionDomain {
    /// The tensor grid with `points_per_dim` points per dimension (a finite candidate set).
    #[default]
    Grid,
    /// The continuous box `[lower, upper]`.
    Box,
}

impl FunctionDomain {
    /// Whether this is [`FunctionDomain::Grid`] (the default).
    pub fn is_grid(&self) -> bool {
        *self == FunctionDomain::Grid
    }
}

fn default_scaling() -> Scaling {
    Scaling::Standardise
}

fn default_points_per_dim() -> usize {
    10
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
            entry.check_for(kind, &domain, &a.params, &format!("{at}.name"), &format!("{at}.params"))?;
            entry.check_costs(kind, &a.params, self.budget.as_ref().map(|b| b.costs()).as_ref())?;
        }
        if let Some(r) = &self.reproduces {
            r.validate(Some(&self.labels()))?;
        }
        if let Some((candidates, dim)) = shape {
            self.check_memory(registry, candidates, dim, 1)?;
        }
        Ok(())
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
        let heaviest = self
            .algorithms
            .iter()
            .filter_map(|a| registry.get(&a.name).map(|e| (a.label(), e.memory_for(&shape, &a.params))))
            .max_by_key(|(_, parts)| parts.iter().fold(0u128, |acc, p| acc.saturating_add(p.bytes)));
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

impl RespondentSpec {
    /// Errors naming the invalid field (`respondent.scale`, `respondent.noise_sd`).
    pub fn validate(&self) -> Result<()> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(ExperimentError::spec(
                "respondent.scale",
                format!("must be finite and > 0, got {}", self.scale),
            ));
        }
        if !(self.noise_sd.is_finite() && self.noise_sd >= 0.0) {
            return Err(ExperimentError::spec(
                "respondent.noise_sd",
                format!("must be finite and >= 0, got {}", self.noise_sd),
            ));
        }
        if let Some(b) = &self.belief {
            if self.expert.is_some() {
                return Err(ExperimentError::spec(
                    "respondent.belief",
                    "give either `expert` (COBOL's synthetic expert) or `belief`, not both: one answers the labels",
                ));
            }
            if let Err(e) = bohf_problems::MvnBeliefExpert::new(b.mean.clone(), b.cov.clone()) {
                let field =
                    if e.to_string().contains("cov") { "respondent.belief.cov" } else { "respondent.belief.mean" };
                return Err(ExperimentError::spec(field, e.to_string()));
            }
        }
        if let Some(e) = self.expert {
            if !e.accuracy.is_finite() {
                return Err(ExperimentError::spec(
                    "respondent.expert.accuracy",
                    format!("must be finite, got {}", e.accuracy),
                ));
            }
            if let Some([lo, hi]) = e.f_range
                && !(lo.is_finite() && hi.is_finite() && lo < hi)
            {
                return Err(ExperimentError::spec(
                    "respondent.expert.f_range",
                    format!("need finite f_min < f_max, got [{lo}, {hi}]"),
                ));
            }
        }
        Ok(())
    }
}

impl ProblemSpec {
    /// The data file of a problem that reads one: a catalyst `path`, an svm `data`.
    pub fn data_path(&self) -> Option<&Path> {
        match self {
            ProblemSpec::Catalyst(c) => Some(&c.path),
            ProblemSpec::Svm(p) => Some(&p.data),
            _ => None,
        }
    }

    /// The data file, to change it (e.g. `bohf reproduce --data`).
    pub fn data_path_mut(&mut self) -> Option<&mut PathBuf> {
        match self {
            ProblemSpec::Catalyst(c) => Some(&mut c.path),
            ProblemSpec::Svm(p) => Some(&mut p.data),
            _ => None,
        }
    }

    /// Resolves the relative paths of the problem (its data file, an svm `cache`) against `dir`.
    pub fn resolve_paths(&mut self, dir: &Path) {
        if let Some(p) = self.data_path_mut()
            && p.is_relative()
        {
            *p = dir.join(&*p);
        }
        if let ProblemSpec::Svm(s) = self
            && let Some(c) = &mut s.cache
            && c.is_relative()
        {
            *c = dir.join(&*c);
        }
    }

    /// Checks the fields that can be checked without loading data; errors name `problem.<field>`.
    /// Returns the size of the candidate set and its dimension when the spec fixes them (not for
    /// `catalyst`, whose size comes from the data).
    pub fn validate(&self) -> Result<Option<(usize, usize)>> {
        let empty = |n: usize, field: &str, min: usize| -> Result<()> {
            at_most(&format!("problem.{field}"), n, limits::MAX_CANDIDATES)?;
            if n < min {
                let what =
                    if n == 0 { "the candidate set is empty".to_string() } else { format!("need at least {min}") };
                Err(ExperimentError::spec(format!("problem.{field}"), format!("{what} (got {n})")))
            } else {
                Ok(())
            }
        };
        let scaling = |s: &Scaling| s.validate().map_err(|e| ExperimentError::in_field("problem.scaling", e));
        match self {
            ProblemSpec::Rkhs(p) => {
                empty(p.points, "points", 1)?;
                scaling(&p.scaling)?;
                Ok(Some((p.points, 1)))
            }
            ProblemSpec::Ackley(p) => {
                empty(p.points, "points", 1)?;
                if !(p.lower.is_finite() && p.upper.is_finite() && p.lower < p.upper) {
                    return Err(ExperimentError::spec(
                        "problem.upper",
                        format!("need finite lower < upper, got [{}, {}]", p.lower, p.upper),
                    ));
                }
                scaling(&p.scaling)?;
                Ok(Some((p.points, 1)))
            }
            ProblemSpec::Catalyst(p) => {
                if p.path.as_os_str().is_empty() {
                    return Err(ExperimentError::spec("problem.path", "the path of the OCx24 CSV file is empty"));
                }
                p.filter.validate().map_err(|e| match e {
                    bohf_core::data::DataError::Option { name, reason } => {
                        ExperimentError::spec(format!("problem.filter.{name}"), reason)
                    }
                    other => ExperimentError::Data(other),
                })?;
                scaling(&p.scaling)?;
                Ok(None)
            }
            ProblemSpec::Svm(p) => {
                if p.data.as_os_str().is_empty() {
                    return Err(ExperimentError::spec("problem.data", "the path of the MAGIC data file is empty"));
                }
                empty(p.points_per_dim, "points_per_dim", 2)?;
                let n = p
                    .points_per_dim
                    .checked_mul(p.points_per_dim)
                    .filter(|&n| n <= limits::MAX_CANDIDATES)
                    .ok_or_else(|| {
                        ExperimentError::spec(
                            "problem.points_per_dim",
                            format!(
                                "{} points per dimension in 2 dimensions make more than {} candidates (the limit)",
                                p.points_per_dim,
                                limits::MAX_CANDIDATES
                            ),
                        )
                    })?;
                for (field, v) in
                    [("train", p.train), ("validation", p.validation), ("comparison_train", p.comparison_train)]
                {
                    if v == 0 {
                        return Err(ExperimentError::spec(format!("problem.{field}"), "need at least one row, got 0"));
                    }
                }
                if p.comparison_train > p.train {
                    return Err(ExperimentError::spec(
                        "problem.comparison_train",
                        format!(
                            "the comparison SVM trains on a subset of the {} training rows, got {}",
                            p.train, p.comparison_train
                        ),
                    ));
                }
                Ok(Some((n, 2)))
            }
            ProblemSpec::Function(p) => {
                empty(p.points_per_dim, "points_per_dim", 2)?;
                if let Some(d) = p.dim {
                    at_most("problem.dim", d, limits::MAX_DIM)?;
                }
                let f = p.test_function()?;
                let domain = p.checked_box(f.as_ref())?;
                scaling(&p.scaling)?;
                if p.domain == FunctionDomain::Box {
                    if p.points_per_dim != default_points_per_dim() {
                        return Err(ExperimentError::spec(
                            "problem.points_per_dim",
                            format!(
                                "a box problem (`domain = \"box\"`) has no grid; remove `points_per_dim` (got {})",
                                p.points_per_dim
                            ),
                        ));
                    }
                    let on_box = bohf_problems::functions::WithDomain::new(f.as_ref(), domain.clone())
                        .map_err(|e| ExperimentError::spec("problem.lower", e.to_string()))?;
                    if bohf_problems::TestFunction::optimum(&on_box).is_none() {
                        return Err(ExperimentError::spec(
                            "problem.function",
                            format!(
                                "`{}` has no known optimum on the box {domain}, which the regret of a box run needs; \
                                 use its standard box {} or a sub-box that contains an optimiser",
                                f.name(),
                                f.domain()
                            ),
                        ));
                    }
                    return Ok(Some((0, f.dim())));
                }
                let n = u32::try_from(f.dim())
                    .ok()
                    .and_then(|d| p.points_per_dim.checked_pow(d))
                    .filter(|&n| n <= limits::MAX_CANDIDATES)
                    .ok_or_else(|| {
                        ExperimentError::spec(
                            "problem.points_per_dim",
                            format!(
                                "{} points per dimension in {} dimensions make more than {} candidates (the limit)",
                                p.points_per_dim,
                                f.dim(),
                                limits::MAX_CANDIDATES
                            ),
                        )
                    })?;
                Ok(Some((n, f.dim())))
            }
        }
    }

    /// `problem.inputs`: the coordinates the algorithms see.
    pub fn inputs(&self) -> Inputs {
        match self {
            ProblemSpec::Rkhs(p) => p.inputs,
            ProblemSpec::Ackley(p) => p.inputs,
            ProblemSpec::Catalyst(p) => p.inputs,
            ProblemSpec::Function(p) => p.inputs,
            ProblemSpec::Svm(p) => p.inputs,
        }
    }

    /// Sets `problem.inputs` (e.g. `raw` for a stored spec written before the key existed).
    pub fn set_inputs(&mut self, inputs: Inputs) {
        match self {
            ProblemSpec::Rkhs(p) => p.inputs = inputs,
            ProblemSpec::Ackley(p) => p.inputs = inputs,
            ProblemSpec::Catalyst(p) => p.inputs = inputs,
            ProblemSpec::Function(p) => p.inputs = inputs,
            ProblemSpec::Svm(p) => p.inputs = inputs,
        }
    }

    /// The kind of domain the algorithms search: a box for a `function` problem with
    /// `domain = "box"`, else a finite candidate set.
    pub fn domain_kind(&self) -> bohf_core::DomainKind {
        match self {
            ProblemSpec::Function(p) if p.domain == FunctionDomain::Box => bohf_core::DomainKind::Box,
            _ => bohf_core::DomainKind::Finite,
        }
    }

    /// The box of a box problem (checked as by [`ProblemSpec::validate`]), `None` for a problem on
    /// a finite candidate set.
    pub fn box_domain(&self) -> Result<Option<bohf_core::BoxDomain>> {
        match self {
            ProblemSpec::Function(p) if p.domain == FunctionDomain::Box => {
                Ok(Some(p.checked_box(p.test_function()?.as_ref())?))
            }
            _ => Ok(None),
        }
    }
}

impl FunctionProblem {
    /// The test function (errors name `problem.dim` or `problem.function`).
    pub fn test_function(&self) -> Result<Box<dyn bohf_problems::TestFunction>> {
        bohf_problems::by_name(&self.function, self.dim).map_err(|e| match e {
            bohf_core::Error::InvalidParameter { name, reason } if name == "d" || name == "dim" => {
                ExperimentError::spec("problem.dim", reason)
            }
            other => ExperimentError::spec("problem.function", other.to_string()),
        })
    }

    /// The box `[lower, upper]` (the function's standard box if neither is given), checked: both or
    /// neither given, each of the function's dimension d, every bound finite, lower[j] < upper[j].
    /// Errors name the field (`problem.lower`, `problem.upper[1]`, …).
    pub fn checked_box(&self, f: &dyn bohf_problems::TestFunction) -> Result<bohf_core::BoxDomain> {
        let (l, u) = match (&self.lower, &self.upper) {
            (None, None) => return Ok(f.domain()),
            (Some(l), Some(u)) => (l, u),
            _ => return Err(ExperimentError::spec("problem.lower", "give both `lower` and `upper`, or neither")),
        };
        for (field, v) in [("problem.lower", l), ("problem.upper", u)] {
            if v.len() != f.dim() {
                return Err(ExperimentError::spec(
                    field,
                    format!(
                        "`{}` has dimension {}, the box's {field} has {} entries; give one bound per dimension",
                        self.function,
                        f.dim(),
                        v.len()
                    ),
                ));
            }
        }
        for (j, (&lo, &hi)) in l.iter().zip(u).enumerate() {
            for (field, v) in [("problem.lower", lo), ("problem.upper", hi)] {
                if !v.is_finite() {
                    return Err(ExperimentError::spec(format!("{field}[{j}]"), format!("must be finite, got {v}")));
                }
            }
            if lo >= hi {
                return Err(ExperimentError::spec(
                    format!("problem.upper[{j}]"),
                    format!("must exceed lower[{j}] = {lo}, got {hi}"),
                ));
            }
        }
        bohf_core::BoxDomain::new(l.clone(), u.clone())
            .map_err(|e| ExperimentError::spec("problem.upper", e.to_string()))
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
