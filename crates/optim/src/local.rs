//! Local minimisation of a smooth function under box bounds: a projected L-BFGS method.
//!
//! The method is the projected quasi-Newton scheme of Bertsekas (1982, "Projected Newton methods
//! for optimization problems with simple constraints", SIAM J. Control Optim. 20(2)) with the
//! limited-memory BFGS matrix of Nocedal & Wright, *Numerical Optimization* (2nd ed. 2006),
//! Algorithm 7.4 (two-loop recursion), in the spirit of L-BFGS-B (Byrd, Lu, Nocedal & Zhu 1995,
//! "A limited memory algorithm for bound constrained optimization", SIAM J. Sci. Comput. 16(5))
//! but without its generalised Cauchy point and subspace minimisation. Each iteration:
//!
//! 1. The projected gradient PG = x − P(x − ∇f(x)) (P the projection onto the box); stop when
//!    ‖PG‖_∞ ≤ `gradient_tolerance` (the first-order KKT condition of the box-constrained problem).
//! 2. The ε-active set A: coordinates within ε = min(‖PG‖_∞, 10⁻⁸·side) of a bound whose gradient
//!    points out of the box. The other coordinates are free.
//! 3. The direction d: d_A = −∇f_A, and d_F = −H ∇f_F on the free coordinates F with H the
//!    L-BFGS inverse Hessian built from the stored pairs (s, y) restricted to F (pairs with
//!    s_Fᵀy_F ≤ 0 are skipped). If d is not a descent direction the memory is cleared and d = −∇f.
//! 4. A projected backtracking line search: x(α) = P(x + α d), accepted when
//!    f(x(α)) ≤ f(x) + c₁ ∇f(x)ᵀ(x(α) − x) (Armijo, c₁ = 10⁻⁴), α halved otherwise. A trial value
//!    that is NaN or ±∞ counts as +∞ (the step is shortened). If no α is accepted the memory is
//!    cleared and the iteration is retried once along −∇f; if that fails too, the search stops
//!    ([`LocalStop::LineSearch`], usually at the precision limit near a minimum).
//! 5. The pair (s, y) = (x⁺ − x, ∇f(x⁺) − ∇f(x)) is stored if sᵀy > 10⁻¹⁰·yᵀy (curvature
//!    condition); the oldest is dropped beyond `memory` pairs. Stop when the relative decrease
//!    (f − f⁺)/max(|f|, |f⁺|, 1) ≤ `value_tolerance`.
//!
//! [`minimize_bounded_warm`] starts the memory from given pairs (a previous search's
//! [`LocalResult::curvature`], e.g. of the same objective after a small change of its data), so
//! that the first step is a quasi-Newton step instead of a steepest-descent step; the iteration and
//! its stopping rules are the same.
//!
//! Why not argmin: its L-BFGS has no bound constraints, and argmin-math supports nalgebra only up
//! to 0.34 (bohf uses 0.35); see `docs/optim.md`.

use bohf_core::{Error, Result};
use serde::{Deserialize, Serialize};

/// Settings of [`minimize_bounded`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LocalConfig {
    /// The most iterations (accepted steps); reaching it is not an error ([`LocalStop::MaxIterations`]).
    pub max_iterations: usize,
    /// The number of (s, y) pairs of the L-BFGS memory (≥ 1).
    pub memory: usize,
    /// Stop when the largest entry of the projected gradient x − P(x − ∇f(x)) is at most this.
    pub gradient_tolerance: f64,
    /// Stop when an accepted step decreases f by at most this, relative to max(|f|, 1).
    pub value_tolerance: f64,
    /// The most step halvings of one line search.
    pub max_backtracks: usize,
}

impl Default for LocalConfig {
    /// 200 iterations, memory 10, projected-gradient tolerance 10⁻⁸, relative value tolerance
    /// 10⁻¹⁵, 40 halvings (SciPy's L-BFGS-B defaults are m = 10, pgtol = 10⁻⁵, factr·ε ≈ 2·10⁻⁹;
    /// these are tighter because an acquisition maximum is cheap to refine).
    fn default() -> Self {
        Self { max_iterations: 200, memory: 10, gradient_tolerance: 1e-8, value_tolerance: 1e-15, max_backtracks: 40 }
    }
}

bohf_core::validated! {
    /// A [`LocalConfig`] that passed [`LocalConfig::check`].
    pub struct ValidLocalConfig(LocalConfig);
}

impl LocalConfig {
    /// The one check of the settings; errors name the first invalid field (`max_iterations`,
    /// `memory`, `gradient_tolerance`, `value_tolerance`, `max_backtracks`).
    pub fn check(&self) -> Result<ValidLocalConfig> {
        if self.max_iterations == 0 {
            return Err(Error::invalid("max_iterations", "must be >= 1"));
        }
        if self.memory == 0 {
            return Err(Error::invalid("memory", "must be >= 1"));
        }
        for (name, v) in [("gradient_tolerance", self.gradient_tolerance), ("value_tolerance", self.value_tolerance)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::invalid(name, format!("must be finite and >= 0, got {v}")));
            }
        }
        if self.max_backtracks == 0 {
            return Err(Error::invalid("max_backtracks", "must be >= 1"));
        }
        Ok(ValidLocalConfig(self.clone()))
    }
}

/// Why [`minimize_bounded`] stopped. Every reason returns the best point found; none is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LocalStop {
    /// The projected gradient met `gradient_tolerance` (a KKT point to that tolerance).
    ProjectedGradient,
    /// An accepted step decreased f by at most `value_tolerance` (relative).
    ValueChange,
    /// `max_iterations` steps were taken.
    MaxIterations,
    /// No step along the L-BFGS direction nor along −∇f decreased f enough (Armijo) within
    /// `max_backtracks` halvings: usually the precision limit near a minimum.
    LineSearch,
}

impl LocalStop {
    /// Whether the stop is a convergence test ([`LocalStop::ProjectedGradient`] or
    /// [`LocalStop::ValueChange`]).
    pub fn converged(self) -> bool {
        matches!(self, LocalStop::ProjectedGradient | LocalStop::ValueChange)
    }
}

/// The result of [`minimize_bounded`].
#[derive(Debug, Clone, PartialEq)]
pub struct LocalResult {
    /// The best point found (inside the bounds).
    pub x: Vec<f64>,
    /// f(x).
    pub value: f64,
    /// ∇f(x).
    pub gradient: Vec<f64>,
    /// ‖x − P(x − ∇f(x))‖_∞ at x: the first-order optimality measure.
    pub projected_gradient: f64,
    /// Accepted steps.
    pub iterations: usize,
    /// Calls of the objective.
    pub evaluations: usize,
    /// Why the search stopped.
    pub stop: LocalStop,
    /// The L-BFGS memory at the end, oldest first: the pairs (s, y) of step 5 of the module
    /// documentation, at most `memory` of them (a start for [`minimize_bounded_warm`]).
    pub curvature: Vec<(Vec<f64>, Vec<f64>)>,
}

/// Checks bounds and a start: equal lengths, finite, lower ≤ upper, x0 inside. Errors name the
/// field (`lower[j]`, `upper[j]`, `x0[j]`).
pub(crate) fn check_bounds(x0: &[f64], lower: &[f64], upper: &[f64], start: &str) -> Result<()> {
    if lower.is_empty() {
        return Err(Error::Empty("bounds of a bounded minimisation (dimension 0)".into()));
    }
    if upper.len() != lower.len() {
        return Err(Error::dims("bounds (`upper` vs `lower`)", lower.len(), upper.len()));
    }
    if x0.len() != lower.len() {
        return Err(Error::dims(format!("`{start}` vs bounds"), lower.len(), x0.len()));
    }
    for (j, ((&l, &u), &x)) in lower.iter().zip(upper).zip(x0).enumerate() {
        if !l.is_finite() {
            return Err(Error::invalid(format!("lower[{j}]"), format!("must be finite, got {l}")));
        }
        if !u.is_finite() {
            return Err(Error::invalid(format!("upper[{j}]"), format!("must be finite, got {u}")));
        }
        if l > u {
            return Err(Error::invalid(format!("lower[{j}]"), format!("exceeds upper[{j}]: {l} > {u}")));
        }
        if !(l <= x && x <= u) {
            return Err(Error::invalid(format!("{start}[{j}]"), format!("{x} is outside the bounds [{l}, {u}]")));
        }
    }
    Ok(())
}

fn project(x: &mut [f64], lower: &[f64], upper: &[f64]) {
    for ((v, &l), &u) in x.iter_mut().zip(lower).zip(upper) {
        *v = v.clamp(l, u);
    }
}

/// ‖x − P(x − g)‖_∞.
fn projected_gradient_norm(x: &[f64], g: &[f64], lower: &[f64], upper: &[f64]) -> f64 {
    x.iter()
        .zip(g)
        .zip(lower.iter().zip(upper))
        .map(|((&x, &g), (&l, &u))| (x - (x - g).clamp(l, u)).abs())
        .fold(0.0, f64::max)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Minimises a smooth f over the box ∏ [lower_j, upper_j] from `x0` by the projected L-BFGS method
/// of the module documentation. `f(x, grad)` returns f(x) and writes ∇f(x) into `grad`.
///
/// Errors: bounds of different lengths, a NaN or infinite bound or lower > upper (naming
/// `lower[j]`/`upper[j]`), `x0` of the wrong length or outside the bounds (naming `x0[j]`), an invalid
/// config ([`LocalConfig::check`]), an error returned by `f`, and [`Error::NonFinite`] when f(x0) or
/// a gradient at an accepted point is NaN or infinite (a non-finite value at a trial point only
/// shortens the step). Reaching `max_iterations` is not an error: see [`LocalResult::stop`].
pub fn minimize_bounded<F>(f: F, x0: &[f64], lower: &[f64], upper: &[f64], config: &LocalConfig) -> Result<LocalResult>
where
    F: FnMut(&[f64], &mut [f64]) -> Result<f64>,
{
    minimize_bounded_warm(f, x0, lower, upper, config, &[])
}

/// [`minimize_bounded`] with the L-BFGS memory started from `curvature`, pairs (s, y) oldest first
/// (a previous search's [`LocalResult::curvature`]): pairs that fail the curvature condition
/// sᵀy > 10⁻¹⁰·yᵀy are dropped and at most the newest `memory` are kept; with a memory the first
/// line search starts at α = 1 (a quasi-Newton step) instead of a step of at most 10 % of the box.
/// With no pairs this is [`minimize_bounded`], step for step. The stopping rules are unchanged.
///
/// Errors: those of [`minimize_bounded`], and a pair of the wrong length or not finite (naming
/// `curvature[k]`).
// Long: one projected L-BFGS loop; its line search, memory update and stopping rules share the iterate.
pub fn minimize_bounded_warm<F>(
    mut f: F,
    x0: &[f64],
    lower: &[f64],
    upper: &[f64],
    config: &LocalConfig,
    curvature: &[(Vec<f64>, Vec<f64>)],
) -> Result<LocalResult>
where
    F: FnMut(&[f64], &mut [f64]) -> Result<f64>,
{
    config.check()?;
    check_bounds(x0, lower, upper, "x0")?;
    for (k, (s, y)) in curvature.iter().enumerate() {
        if s.len() != x0.len() || y.len() != x0.len() {
            return Err(Error::dims(format!("`curvature[{k}]` vs bounds"), x0.len(), s.len().max(y.len())));
        }
        if !s.iter().chain(y).all(|v| v.is_finite()) {
            return Err(Error::invalid(format!("curvature[{k}]"), "must be finite"));
        }
    }
    let n = x0.len();
    let mut x = x0.to_vec();
    let mut g = vec![0.0; n];
    let mut value = f(&x, &mut g)?;
    let mut evaluations = 1;
    if !value.is_finite() {
        return Err(Error::NonFinite(format!("objective value {value} at the start x0 = {x:?}")));
    }
    bohf_core::error::ensure_finite("objective gradient at the start x0", &g)?;
    // Pairs (s, y), oldest first.
    let mut memory: std::collections::VecDeque<(Vec<f64>, Vec<f64>)> =
        curvature.iter().filter(|(s, y)| dot(s, y) > 1e-10 * dot(y, y)).cloned().collect();
    while memory.len() > config.memory {
        memory.pop_front();
    }
    let sides: Vec<f64> = lower.iter().zip(upper).map(|(l, u)| u - l).collect();
    let (mut trial, mut g_trial, mut d) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut iterations = 0;
    let stop = loop {
        let pg = projected_gradient_norm(&x, &g, lower, upper);
        if pg <= config.gradient_tolerance {
            break LocalStop::ProjectedGradient;
        }
        if iterations >= config.max_iterations {
            break LocalStop::MaxIterations;
        }
        let free: Vec<bool> = (0..n)
            .map(|j| {
                let eps = pg.min(1e-8 * sides[j]);
                !((x[j] - lower[j] <= eps && g[j] > 0.0) || (upper[j] - x[j] <= eps && g[j] < 0.0))
            })
            .collect();
        let mut accepted = None;
        for use_memory in [true, false] {
            if !use_memory && memory.is_empty() {
                break;
            }
            if !use_memory {
                memory.clear();
            }
            direction(&g, &free, &memory, &mut d);
            // A coordinate with lower = upper cannot move.
            d.iter_mut().zip(&sides).filter(|(_, s)| **s == 0.0).for_each(|(d, _)| *d = 0.0);
            let slope = dot(&g, &d);
            if slope >= 0.0 || slope.is_nan() {
                memory.clear();
                d.iter_mut().zip(&g).zip(&sides).for_each(|((d, g), s)| *d = if *s == 0.0 { 0.0 } else { -g });
            }
            // The first step of a search without curvature information moves at most 10% of the box.
            let mut alpha = if memory.is_empty() {
                let dmax =
                    d.iter().zip(&sides).filter(|(_, s)| **s > 0.0).map(|(d, s)| d.abs() / s).fold(0.0, f64::max);
                if dmax > 0.1 { 0.1 / dmax } else { 1.0 }
            } else {
                1.0
            };
            for _ in 0..config.max_backtracks {
                for j in 0..n {
                    trial[j] = x[j] + alpha * d[j];
                }
                project(&mut trial, lower, upper);
                let decrease = dot(&g, &trial.iter().zip(&x).map(|(t, x)| t - x).collect::<Vec<_>>());
                if decrease >= 0.0 {
                    // The projected step is no descent (it collapsed onto x): shorter steps do not help.
                    if trial == x {
                        break;
                    }
                    alpha *= 0.5;
                    continue;
                }
                let v = f(&trial, &mut g_trial)?;
                evaluations += 1;
                if v.is_finite() && v <= value + 1e-4 * decrease {
                    accepted = Some(v);
                    break;
                }
                alpha *= 0.5;
            }
            if accepted.is_some() {
                break;
            }
        }
        let Some(v) = accepted else { break LocalStop::LineSearch };
        bohf_core::error::ensure_finite(&format!("objective gradient at {trial:?}"), &g_trial)?;
        iterations += 1;
        let s: Vec<f64> = trial.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_trial.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-10 * dot(&y, &y) {
            if memory.len() == config.memory {
                memory.pop_front();
            }
            memory.push_back((s, y));
        }
        let old = value;
        std::mem::swap(&mut x, &mut trial);
        std::mem::swap(&mut g, &mut g_trial);
        value = v;
        if old - value <= config.value_tolerance * old.abs().max(value.abs()).max(1.0) {
            break LocalStop::ValueChange;
        }
    };
    let projected_gradient = projected_gradient_norm(&x, &g, lower, upper);
    let curvature = memory.into_iter().collect();
    Ok(LocalResult { x, value, gradient: g, projected_gradient, iterations, evaluations, stop, curvature })
}

/// d = −H g on the free coordinates (two-loop recursion over the pairs restricted to them,
/// Nocedal & Wright Algorithm 7.4, H₀ = γI with γ = sᵀy/yᵀy of the newest usable pair) and −g on
/// the others.
fn direction(g: &[f64], free: &[bool], memory: &std::collections::VecDeque<(Vec<f64>, Vec<f64>)>, d: &mut [f64]) {
    let masked_dot = |a: &[f64], b: &[f64]| -> f64 { (0..a.len()).filter(|&j| free[j]).map(|j| a[j] * b[j]).sum() };
    let mut q: Vec<f64> = g.iter().zip(free).map(|(g, &f)| if f { *g } else { 0.0 }).collect();
    let mut alphas = Vec::with_capacity(memory.len());
    let mut gamma = 1.0;
    let mut have_gamma = false;
    for (s, y) in memory.iter().rev() {
        let sy = masked_dot(s, y);
        if sy <= 0.0 {
            alphas.push(None);
            continue;
        }
        if !have_gamma {
            let yy = masked_dot(y, y);
            if yy > 0.0 {
                gamma = sy / yy;
                have_gamma = true;
            }
        }
        let rho = 1.0 / sy;
        let a = rho * masked_dot(s, &q);
        for j in 0..q.len() {
            if free[j] {
                q[j] -= a * y[j];
            }
        }
        alphas.push(Some((a, rho)));
    }
    q.iter_mut().for_each(|v| *v *= gamma);
    for ((s, y), a) in memory.iter().zip(alphas.into_iter().rev()) {
        let Some((a, rho)) = a else { continue };
        let b = rho * masked_dot(y, &q);
        for j in 0..q.len() {
            if free[j] {
                q[j] += (a - b) * s[j];
            }
        }
    }
    for j in 0..d.len() {
        d[j] = if free[j] { -q[j] } else { -g[j] };
    }
}
