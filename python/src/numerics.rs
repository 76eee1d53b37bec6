//! Numerics on numpy arrays: kernels (Gram, cross-Gram, dueling Gram), information gain (realised,
//! greedy Γ(T) with its bracket), the preference model (fit, posterior mean and σ on the
//! candidates, joint samples) and the likelihood-ratio confidence bounds. Arrays are checked
//! by [`crate::arrays`].

use crate::arrays::{self, matrix, square};
use crate::convert::table;
use crate::errors::{InputError, SpecError, core_err, whole};
use bohf_confidence::{ConfidenceConfig, ConfidenceProblem, ConfidenceSet, Observation};
use bohf_core::Duel;
use bohf_experiments::limits::{Allocation, MemoryEstimate};
use bohf_gp::preference::{KernelLogisticConfig, PreferenceModel as Model, Refit};
use bohf_infogain::{PairKernel, greedy_pairs, greedy_points, information_gain as realised_gain};
use bohf_kernels::{Kernel, KernelSpec};
use numpy::PyArray2;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Adds the functions and classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gram, m)?)?;
    m.add_function(wrap_pyfunction!(cross_gram, m)?)?;
    m.add_function(wrap_pyfunction!(dueling_gram, m)?)?;
    m.add_function(wrap_pyfunction!(information_gain, m)?)?;
    m.add_function(wrap_pyfunction!(greedy_gamma, m)?)?;
    m.add_class::<PreferenceModel>()?;
    m.add_function(wrap_pyfunction!(confidence_bounds, m)?)?;
    m.add_function(wrap_pyfunction!(_echo_matrix, m)?)?;
    Ok(())
}

/// Refuses a call whose allocations ([`Allocation`]s, estimated from the arguments before anything
/// is allocated) exceed the memory limit: the CLI's check ([`MemoryEstimate::check`], the limit
/// of `BOHF_MEMORY_LIMIT` or the machine's memory), as an `InputError` naming the call and the
/// largest allocations, instead of an allocation failure that aborts the interpreter.
pub fn check_memory(what: &str, parts: Vec<Allocation>) -> PyResult<()> {
    MemoryEstimate::new(parts).check(what).map_err(|e| InputError::new_err(e.to_string()))
}

/// A keyword argument that must be a finite number when given (NaN and ±inf would otherwise
/// become JSON `null`, i.e. the default): an `InputError` naming it.
fn finite(arg: &str, v: Option<f64>) -> PyResult<()> {
    match v {
        Some(x) if !x.is_finite() => Err(InputError::new_err(format!("{arg}: need a finite number, got {x}"))),
        _ => Ok(()),
    }
}

/// The kernel of a spec's `kernel` table (`KernelSpec`: kind, lengthscale, lengthscales, variance).
fn kernel(
    kind: &str,
    lengthscale: Option<f64>,
    lengthscales: Option<Vec<f64>>,
    variance: Option<f64>,
) -> PyResult<Box<dyn Kernel>> {
    finite("lengthscale", lengthscale)?;
    finite("variance", variance)?;
    for (j, l) in lengthscales.iter().flatten().enumerate() {
        finite(&format!("lengthscales[{j}]"), Some(*l))?;
    }
    let spec: KernelSpec = serde_json::from_value(serde_json::json!({
        "kind": kind, "lengthscale": lengthscale, "lengthscales": lengthscales, "variance": variance
    }))
    .map_err(|e| SpecError::new_err(format!("kernel: {e}")))?;
    spec.build().map_err(core_err)
}

/// The Gram matrix K[i, j] = k(x_i, x_j) of the points `x` (n×d, one per row).
#[pyfunction]
#[pyo3(signature = (x, kind="matern52", lengthscale=None, lengthscales=None, variance=None))]
fn gram<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    kind: &str,
    lengthscale: Option<f64>,
    lengthscales: Option<Vec<f64>>,
    variance: Option<f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let k = kernel(kind, lengthscale, lengthscales, variance)?;
    let x = matrix("x", "n points × d dimensions", x)?;
    let n = x.nrows();
    check_memory(
        "gram(x)",
        vec![Allocation::matrix("the n×n Gram", n, n), Allocation::matrix("its numpy copy", n, n)],
    )?;
    let g = py.detach(|| k.gram(&x)).map_err(core_err)?;
    Ok(arrays::to_numpy(py, &g))
}

/// The cross-Gram K[i, j] = k(x_i, y_j) of `x` (n×d) and `y` (m×d).
#[pyfunction]
#[pyo3(signature = (x, y, kind="matern52", lengthscale=None, lengthscales=None, variance=None))]
fn cross_gram<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    kind: &str,
    lengthscale: Option<f64>,
    lengthscales: Option<Vec<f64>>,
    variance: Option<f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let k = kernel(kind, lengthscale, lengthscales, variance)?;
    let x = matrix("x", "n points × d dimensions", x)?;
    let y = matrix("y", "m points × d dimensions", y)?;
    let (n, m) = (x.nrows(), y.nrows());
    check_memory(
        "cross_gram(x, y)",
        vec![Allocation::matrix("the n×m cross-Gram", n, m), Allocation::matrix("its numpy copy", n, m)],
    )?;
    let g = py.detach(|| k.cross_gram(&x, &y)).map_err(core_err)?;
    Ok(arrays::to_numpy(py, &g))
}

/// Pairs of candidate indices `[(i, j), …]`, each below `n`.
fn pairs(arg: &str, obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<(usize, usize)>> {
    let p: Vec<(usize, usize)> = obj.extract().map_err(|_| {
        InputError::new_err(format!("{arg}: need a list of index pairs [(i, j), …] with non-negative integers"))
    })?;
    if let Some((k, &(i, j))) = p.iter().enumerate().find(|(_, (i, j))| *i >= n || *j >= n) {
        return Err(InputError::new_err(format!("{arg}[{k}] = ({i}, {j}): an index is not below n = {n}")));
    }
    Ok(p)
}

fn pair_kernel(kind: &str) -> PyResult<PairKernel> {
    match kind {
        "dueling" => Ok(PairKernel::Dueling),
        "additive" => Ok(PairKernel::Additive),
        other => Err(SpecError::new_err(format!("pair_kernel: need \"dueling\" or \"additive\", got {other:?}"))),
    }
}

/// The pair Gram over candidate-index pairs from the candidates' base Gram: the dueling kernel
/// k_D((i,j),(u,v)) = K_iu + K_jv − K_iv − K_ju (MR-LPF eq. (4)), or POP-BO's additive
/// K_iu + K_jv with `pair_kernel="additive"`. `right` defaults to `left`.
#[pyfunction]
#[pyo3(signature = (base_gram, left, right=None, pair_kernel="dueling"))]
fn dueling_gram<'py>(
    py: Python<'py>,
    base_gram: &Bound<'py, PyAny>,
    left: &Bound<'py, PyAny>,
    right: Option<&Bound<'py, PyAny>>,
    pair_kernel: &str,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let pk = self::pair_kernel(pair_kernel)?;
    let base = square("base_gram", base_gram)?;
    let n = base.nrows();
    let l = pairs("left", left, n)?;
    let r = match right {
        Some(r) => pairs("right", r, n)?,
        None => l.clone(),
    };
    check_memory(
        "dueling_gram",
        vec![
            Allocation::matrix("the pair Gram (left × right)", l.len(), r.len()),
            Allocation::matrix("its numpy copy", l.len(), r.len()),
        ],
    )?;
    let g = pk.gram(&base, &l, &r).map_err(core_err)?;
    Ok(arrays::to_numpy(py, &g))
}

/// The realised information gain ½ log det(I + K/ρ) of observations with Gram `gram` and noise
/// `noise` = ρ > 0.
#[pyfunction]
fn information_gain(py: Python<'_>, gram: &Bound<'_, PyAny>, noise: f64) -> PyResult<f64> {
    let g = square("gram", gram)?;
    check_memory("information_gain", vec![Allocation::matrix("the factorised n×n matrix", g.nrows(), g.nrows())])?;
    py.detach(|| realised_gain(&g, noise)).map_err(core_err)
}

/// Greedy Γ_ρ(T) on the candidates of `base_gram`: a dict with `value` (the greedy g_T ≤ Γ),
/// `lower`, `upper` (the bracket [g_T, g_T/(1 − 1/e)]), `trajectory` (g_1 … g_T) and `chosen` (the
/// points, or pairs with `pairs="dueling"` or `"additive"`).
#[pyfunction]
#[pyo3(signature = (base_gram, noise, steps, pairs=None))]
fn greedy_gamma<'py>(
    py: Python<'py>,
    base_gram: &Bound<'py, PyAny>,
    noise: f64,
    steps: &Bound<'py, PyAny>,
    pairs: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let steps = whole("steps", steps, usize::MAX as u64)? as usize;
    let base = square("base_gram", base_gram)?;
    let n = base.nrows();
    // The posterior covariance (2n×2n for the additive pair kernel) and, per step, the chosen point
    // or pair, its variance and the trajectory (in Rust and in numpy).
    let side = if pairs == Some("additive") { n.saturating_mul(2) } else { n };
    check_memory(
        "greedy_gamma",
        vec![
            Allocation::matrix("the posterior covariance", side, side),
            Allocation::of("the T chosen points, variances and trajectory", 48, &[steps]),
        ],
    )?;
    let d = PyDict::new(py);
    let (value, bracket, trajectory) = match pairs {
        None => {
            let g = py.detach(|| greedy_points(&base, noise, steps)).map_err(core_err)?;
            d.set_item("chosen", g.chosen().to_vec())?;
            (g.value(), g.bracket(), g.trajectory().to_vec())
        }
        Some(kind) => {
            let pk = pair_kernel(kind)?;
            let g = py.detach(|| greedy_pairs(&base, pk, noise, steps)).map_err(core_err)?;
            d.set_item("chosen", g.chosen().to_vec())?;
            (g.value(), g.bracket(), g.trajectory().to_vec())
        }
    };
    d.set_item("value", value)?;
    d.set_item("lower", bracket.lower)?;
    d.set_item("upper", bracket.upper)?;
    d.set_item("trajectory", arrays::vec_to_numpy(py, &trajectory))?;
    Ok(d)
}

/// The preference model of the BOHF papers on n candidates (`bohf_gp::preference::PreferenceModel`):
/// the kernel logistic MLE of the utility g from duels and the dueling posterior σ with noise ρ.
#[pyclass(module = "bohf._bohf")]
pub struct PreferenceModel {
    model: Model,
}

#[pymethods]
impl PreferenceModel {
    /// `base_gram` (n×n) of the candidates; `rho` > 0 the posterior noise (default 0.05, the
    /// experiments' ρ = λ); `mle` the estimator's settings (the `inference.mle` table of a spec:
    /// lambda, regulariser, scale_by_n, link, tolerance, max_iterations).
    #[new]
    #[pyo3(signature = (base_gram, rho=bohf_gp::preference::EXPERIMENT_RHO, mle=None))]
    fn new(base_gram: &Bound<'_, PyAny>, rho: f64, mle: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let base = square("base_gram", base_gram)?;
        let config: KernelLogisticConfig = match mle {
            Some(d) => toml::Value::Table(table("mle", d)?)
                .try_into()
                .map_err(|e| SpecError::new_err(format!("mle: {}", one_line(&e.to_string()))))?,
            None => KernelLogisticConfig::default(),
        };
        let estimator = config.check().map_err(core_err)?;
        let n = base.nrows();
        check_memory("PreferenceModel", vec![Allocation::of("the model's n×n matrices (4)", 32, &[n, n])])?;
        Ok(Self { model: Model::new(base, estimator, rho).map_err(core_err)? })
    }

    /// Adds duels `[(i, j, i_wins), …]` and refits the MLE (from scratch); nothing changes on an
    /// error.
    fn observe(&mut self, py: Python<'_>, duels: &Bound<'_, PyAny>) -> PyResult<()> {
        let new = duel_list("duels", duels, self.model.n_candidates())?;
        let model = &mut self.model;
        py.detach(|| model.observe(&new, Refit::Cold)).map_err(core_err)
    }

    /// The number of candidates n.
    #[getter]
    fn n(&self) -> usize {
        self.model.n_candidates()
    }

    /// The fitted utility g_t (the posterior mean; zero before the first duel), length n.
    fn mean<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        arrays::vec_to_numpy(py, self.model.utility().as_slice())
    }

    /// σ_t(i, j) for every pair: the n×n matrix of the dueling posterior's standard deviations.
    fn sigma<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let n = self.model.n_candidates();
        check_memory("PreferenceModel.sigma", vec![Allocation::of("the n×n matrix and its numpy copy", 16, &[n, n])])?;
        Ok(arrays::to_numpy(py, &self.model.posterior().std_dev_matrix()))
    }

    /// μ(g_t(i) − g_t(j)) for every pair: the modelled probability that i beats j (n×n).
    fn probability<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let n = self.model.n_candidates();
        check_memory(
            "PreferenceModel.probability",
            vec![Allocation::of("the n×n matrix and its numpy copy", 16, &[n, n])],
        )?;
        let mut p = nalgebra::DMatrix::zeros(n, n);
        for i in 0..n {
            for j in 0..n {
                p[(i, j)] = self.model.probability(i, j).map_err(core_err)?;
            }
        }
        Ok(arrays::to_numpy(py, &p))
    }

    /// `count` joint draws of the utility N(g_t, scale²·Ŝ_t), one per row (count×n), from the
    /// random stream of `seed`.
    #[pyo3(signature = (count, seed=None, scale=1.0), text_signature = "(count, seed=0, scale=1.0)")]
    fn samples<'py>(
        &self,
        py: Python<'py>,
        count: &Bound<'py, PyAny>,
        seed: Option<&Bound<'py, PyAny>>,
        scale: f64,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let count = whole("count", count, usize::MAX as u64)? as usize;
        // `seed=None` (the signature's default) is seed 0.
        let seed = seed.map(|s| whole("seed", s, u64::MAX)).transpose()?.unwrap_or(0);
        let n = self.model.n_candidates();
        check_memory(
            "PreferenceModel.samples",
            vec![Allocation::of("the count × n draws (sampled, transposed, numpy copy)", 24, &[count, n])],
        )?;
        let sampler = self.model.sampler().map_err(core_err)?;
        let mut rng = bohf_core::rng::seeded(seed);
        let draws = sampler.sample(scale, count, &mut rng).map_err(core_err)?;
        Ok(arrays::to_numpy(py, &draws.transpose()))
    }
}

/// `a` converted to a nalgebra matrix (checked like every argument) and back to a new numpy array:
/// the conversion every matrix function pays, timed by `python/benches/overhead.py`.
#[pyfunction]
fn _echo_matrix<'py>(py: Python<'py>, a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let m = matrix("a", "any matrix", a)?;
    Ok(arrays::to_numpy(py, &m))
}

/// A (TOML deserialisation) message on one line: `invalid type … in `lambda``.
pub fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Duels `[(i, j, i_wins), …]` with indices below `n`, checked.
fn duel_list(arg: &str, duels: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<Duel>> {
    let duels: Vec<(usize, usize, bool)> = duels.extract().map_err(|_| {
        InputError::new_err(format!(
            "{arg}: need a list of duels [(i, j, i_wins), …]: non-negative integer indices and a bool"
        ))
    })?;
    if let Some((k, d)) = duels.iter().enumerate().find(|(_, d)| d.0 >= n || d.1 >= n) {
        return Err(InputError::new_err(format!(
            "{arg}[{k}] = ({}, {}, {}): an index is not below n = {n}",
            d.0, d.1, d.2
        )));
    }
    Ok(duels.iter().map(|&(i, j, w)| Duel::new(i, j, w)).collect())
}

/// The likelihood-ratio confidence set of POP-BO Theorem 3.1 on the candidates of `base_gram`
/// after `duels` (`bohf_confidence`): C = {‖f̃‖ ≤ B, ℓ(f̃) ≥ ℓ* − β}. Returns a dict with `lower`
/// and `upper` (inf and sup of f̃(x) over C at every candidate, POP-BO eq. (12)), `mle` (the
/// minimum-norm MLE interpolant f̂ at every candidate) and `log_likelihood` (ℓ*). `config` is a
/// `ConfidenceConfig` table (`norm_bound` B, default 6; tolerances).
#[pyfunction]
#[pyo3(signature = (base_gram, duels, beta, config=None))]
fn confidence_bounds<'py>(
    py: Python<'py>,
    base_gram: &Bound<'py, PyAny>,
    duels: &Bound<'py, PyAny>,
    beta: f64,
    config: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let base = square("base_gram", base_gram)?;
    let n = base.nrows();
    check_memory("confidence_bounds", vec![Allocation::of("the problem's n×n matrices (4)", 32, &[n, n])])?;
    let obs: Vec<Observation> = duel_list("duels", duels, n)?.into_iter().map(Observation::Duel).collect();
    let config: ConfidenceConfig = match config {
        Some(d) => toml::Value::Table(table("config", d)?)
            .try_into()
            .map_err(|e| SpecError::new_err(format!("config: {}", one_line(&e.to_string()))))?,
        None => ConfidenceConfig::default(),
    };
    let (lower, upper, mle, ll) = py
        .detach(|| -> bohf_core::Result<_> {
            let problem = ConfidenceProblem::on_candidates(&base, &[], &obs, &config)?;
            let fit = problem.mle()?;
            let mut set = ConfidenceSet::new(&problem, &fit, beta)?;
            let all: Vec<usize> = (0..n).collect();
            let (mut lower, mut upper, mut mle) = (Vec::new(), Vec::new(), Vec::new());
            for c in problem.candidates_from_gram(&base, &all)? {
                lower.push(set.lower_bound(&c)?.value);
                upper.push(set.upper_bound(&c)?.value);
                mle.push(fit.value_at(&c)?);
            }
            Ok((lower, upper, mle, fit.log_likelihood))
        })
        .map_err(core_err)?;
    let d = PyDict::new(py);
    d.set_item("lower", arrays::vec_to_numpy(py, &lower))?;
    d.set_item("upper", arrays::vec_to_numpy(py, &upper))?;
    d.set_item("mle", arrays::vec_to_numpy(py, &mle))?;
    d.set_item("log_likelihood", ll)?;
    Ok(d)
}
