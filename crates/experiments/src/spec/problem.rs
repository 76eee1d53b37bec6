//! The `[problem]` table: the utility and its candidate set or box, one variant per `kind` (see
//! the table of [`super`]), with its checks and the paths it reads.

use super::*;

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
        match self {
            ProblemSpec::Rkhs(p) => {
                check_points(p.points, "points", 1)?;
                check_scaling(&p.scaling)?;
                Ok(Some((p.points, 1)))
            }
            ProblemSpec::Ackley(p) => {
                check_points(p.points, "points", 1)?;
                if !(p.lower.is_finite() && p.upper.is_finite() && p.lower < p.upper) {
                    return Err(ExperimentError::spec(
                        "problem.upper",
                        format!("need finite lower < upper, got [{}, {}]", p.lower, p.upper),
                    ));
                }
                check_scaling(&p.scaling)?;
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
                check_scaling(&p.scaling)?;
                Ok(None)
            }
            ProblemSpec::Svm(p) => Ok(Some((p.validate()?, 2))),
            ProblemSpec::Function(p) => p.validate(),
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

/// `problem.<field>`: a number of candidates within the limit and at least `min`.
fn check_points(n: usize, field: &str, min: usize) -> Result<()> {
    at_most(&format!("problem.{field}"), n, limits::MAX_CANDIDATES)?;
    if n < min {
        let what = if n == 0 { "the candidate set is empty".to_string() } else { format!("need at least {min}") };
        Err(ExperimentError::spec(format!("problem.{field}"), format!("{what} (got {n})")))
    } else {
        Ok(())
    }
}

/// `problem.scaling`.
fn check_scaling(s: &Scaling) -> Result<()> {
    s.validate().map_err(|e| ExperimentError::in_field("problem.scaling", e))
}

impl SvmProblem {
    /// [`ProblemSpec::validate`] of an `svm` problem: the number of candidates (in 2 dimensions).
    fn validate(&self) -> Result<usize> {
        let p = self;
        if p.data.as_os_str().is_empty() {
            return Err(ExperimentError::spec("problem.data", "the path of the MAGIC data file is empty"));
        }
        check_points(p.points_per_dim, "points_per_dim", 2)?;
        let n = p.points_per_dim.checked_mul(p.points_per_dim).filter(|&n| n <= limits::MAX_CANDIDATES).ok_or_else(
            || {
                ExperimentError::spec(
                    "problem.points_per_dim",
                    format!(
                        "{} points per dimension in 2 dimensions make more than {} candidates (the limit)",
                        p.points_per_dim,
                        limits::MAX_CANDIDATES
                    ),
                )
            },
        )?;
        for (field, v) in [("train", p.train), ("validation", p.validation), ("comparison_train", p.comparison_train)] {
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
        Ok(n)
    }
}

impl FunctionProblem {
    /// [`ProblemSpec::validate`] of a `function` problem.
    fn validate(&self) -> Result<Option<(usize, usize)>> {
        let p = self;
        check_points(p.points_per_dim, "points_per_dim", 2)?;
        if let Some(d) = p.dim {
            at_most("problem.dim", d, limits::MAX_DIM)?;
        }
        let f = p.test_function()?;
        let domain = p.checked_box(f.as_ref())?;
        check_scaling(&p.scaling)?;
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
