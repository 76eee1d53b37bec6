//! COBOL's two surrogates: the GP model of f (§2.1, eq. (2a)/(2b), Lemma 3.1) and the
//! likelihood-ratio confidence set of the expert's belief g (§2.2, Lemma 3.2, eq. (37)–(39)).
//!
//! Everything is in working units: inputs scaled to [0, 1]^d by the scaling box, f standardised
//! (the paper's protocol, §5.1). Comparisons of line 6 are unchanged by that positive affine map;
//! the mixed objective LCB + λ g_lower of Eq. (5) is in standardised f units, as in the code.

use crate::config::{AlphaRule, ValidCobolConfig};
use bohf_confidence::{
    Candidate, ConfidenceProblem, ConfidenceSet, MleFit, MleWarmStart, Observation, Screened, alpha1_cobol,
};
use bohf_core::{BoxDomain, Error, Result, WidthSchedule};
use bohf_gp::regression::{DataTransform, GpRegression, ValidHyperFitConfig, fit_hyperparameters};
use bohf_kernels::{Kernel, Stationary};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// The posterior of f in working units with its width β (Lemma 3.1).
#[derive(Debug, Clone)]
pub struct FModel {
    gp: GpRegression<Stationary>,
    transform: DataTransform,
    /// β_{f_t}.
    pub beta: f64,
}

/// μ, σ of f at one point (working units), and the confidence bounds of Lemma 3.1:
/// LCB = μ − βσ, UCB = μ + βσ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// μ_{f_t}(x) (eq. (2a)).
    pub mean: f64,
    /// σ_{f_t}(x) (eq. (2b)).
    pub sigma: f64,
    /// μ − βσ.
    pub lcb: f64,
    /// μ + βσ.
    pub ucb: f64,
}

/// β_{f_t} = B_f + σ√(2(γ + 1 + ln(2/δ))) of Lemma 3.1 (Chowdhury & Gopalan 2017, Theorem 2), for
/// an information gain `gamma`.
pub fn beta_lemma31(b_f: f64, sigma: f64, delta: f64, gamma: f64) -> f64 {
    b_f + sigma * (2.0 * (gamma + 1.0 + (2.0 / delta).ln())).sqrt()
}

impl FModel {
    /// Fits the lengthscales by type-II ML (bohf-gp, `config.hyper`; noise r fixed, outputscale 1)
    /// starting from `start`, on the evaluated points `x` (rows, original units) and values `f`
    /// of the minimised objective, with inputs scaled by `scaling`; `hyper` is `config.hyper`
    /// checked (once, by [`crate::Cobol`]).
    pub fn fit(
        config: &ValidCobolConfig,
        hyper: &ValidHyperFitConfig,
        start: &Stationary,
        x: &DMatrix<f64>,
        f: &DVector<f64>,
        scaling: &BoxDomain,
    ) -> Result<Self> {
        let fit = fit_hyperparameters(hyper, start, config.noise, x, f, Some(scaling))?;
        let gp = fit.regression(x, f)?;
        let beta = match config.beta {
            WidthSchedule::Constant { value } => value,
            WidthSchedule::CobolLemma31 { norm_bound, sigma, delta } => {
                let xs = gp.inputs();
                let gram = DMatrix::from_fn(xs.nrows(), xs.nrows(), |i, j| {
                    gp.kernel().eval(xs.row(i).transpose().as_slice(), xs.row(j).transpose().as_slice())
                });
                let gamma = bohf_infogain::information_gain(&gram, config.noise)?;
                beta_lemma31(norm_bound, sigma, delta, gamma)
            }
            other => unreachable!("CobolConfig::check refuses the rule \"{}\"", other.rule()),
        };
        Ok(Self { gp, transform: fit.transform, beta })
    }

    /// The fitted kernel (working units): k_g copies it (Table 3).
    pub fn kernel(&self) -> &Stationary {
        self.gp.kernel()
    }

    /// A point in working units.
    pub fn working(&self, x: &[f64]) -> Result<Vec<f64>> {
        let d = self.transform.input_widths().len();
        if x.len() != d {
            return Err(Error::dims("COBOL f model: point dimension", d, x.len()));
        }
        Ok(self.transform.input_point(x))
    }

    /// μ, σ, LCB, UCB at `x` (original units).
    pub fn bounds(&self, x: &[f64]) -> Result<Bounds> {
        let (mean, var) = self.gp.mean_variance_at(&self.working(x)?)?;
        let sigma = var.max(0.0).sqrt();
        Ok(Bounds { mean, sigma, lcb: mean - self.beta * sigma, ucb: mean + self.beta * sigma })
    }

    /// μ + sign·βσ and its gradient in original units (sign = −1: LCB, +1: UCB); where σ ≈ 0 the
    /// σ term's gradient is taken as 0.
    pub fn bound_with_gradient(&self, x: &[f64], sign: f64, grad: &mut [f64]) -> Result<f64> {
        let w = self.working(x)?;
        let p = self.gp.posterior_with_gradient(&w)?;
        let sigma = p.variance.sqrt();
        let scale = if sigma > 1e-12 { sign * self.beta / (2.0 * sigma) } else { 0.0 };
        // d x'/d x_j = 1/w_j (DataTransform::input_widths).
        for ((g, w), (gm, gv)) in
            grad.iter_mut().zip(self.transform.input_widths()).zip(p.mean_gradient.iter().zip(&p.variance_gradient))
        {
            *g = (gm + scale * gv) / w;
        }
        Ok(p.mean + sign * self.beta * sigma)
    }
}

/// g's likelihood-ratio set at one iteration: C = {‖g̃‖ ≤ B_g, ℓ(g̃) ≥ ℓ* − α₁} (Lemma 3.2), or the
/// ball alone before any label.
pub struct GModel {
    kernel: Stationary,
    support: Vec<Vec<f64>>,
    inner: Option<GSet>,
    norm_bound: f64,
    latent_box: Option<f64>,
    /// α₁ used.
    pub alpha: f64,
    /// Pointwise programs whose solve failed (after bohf-confidence's cautious retry) and whose
    /// bound fell back to the certified outer end of the point's enclosure (see [`GModel::lower`]).
    pub fallbacks: usize,
    /// Whether the MLE was taken from an earlier solve ([`GModel::with_known_mles`]).
    pub reused_mle: bool,
}

struct GSet {
    problem: ConfidenceProblem,
    mle: MleFit,
    set: ConfidenceSet,
}

/// A point prepared for g: its whitened coordinates, MLE value and certified cheap enclosures
/// lower_floor ≤ g_lower ≤ lower_cap and upper_floor ≤ g_upper ≤ upper_cap (of the protected
/// values).
pub struct GPoint {
    candidate: Option<Candidate>,
    /// ĝ(x) = k_xᵀK⁻¹Ẑ, the minimum-norm MLE interpolant: feasible, so g_lower ≤ ĝ ≤ g_upper.
    pub mle: f64,
    /// A certified lower bound of g_lower(x).
    pub lower_floor: f64,
    /// A certified upper bound of g_lower(x): ĝ(x), or lower where a known feasible point of the
    /// set (an optimum solved earlier) reaches lower at x.
    pub lower_cap: f64,
    /// A certified lower bound of g_upper(x) (ĝ(x) or a known feasible point's value).
    pub upper_floor: f64,
    /// A certified upper bound of g_upper(x).
    pub upper_cap: f64,
    /// The exact bounds when no program is needed (no labels: the ball ∩ box, closed form).
    exact: Option<(f64, f64)>,
}

impl GPoint {
    /// The protected g_lower(x) when its certified enclosure has closed (to rounding), so that no
    /// program is needed: e.g. the latent box's floor −b reached by a known feasible point, or a
    /// floor at or above ĝ(x) (then g_lower = ĝ(x)).
    pub fn settled_lower(&self) -> Option<f64> {
        if let Some((lo, _)) = self.exact {
            return Some(lo);
        }
        closed(self.lower_floor, self.lower_cap)
    }

    /// The protected g_upper(x) when its certified enclosure has closed (see
    /// [`GPoint::settled_lower`]).
    pub fn settled_upper(&self) -> Option<f64> {
        if let Some((_, hi)) = self.exact {
            return Some(hi);
        }
        closed(self.upper_floor, self.upper_cap).map(|_| self.upper_floor.min(self.upper_cap))
    }
}

/// The value of an enclosure [lo, hi] that has closed to rounding (hi − lo ≤ 1e-12·max(1, |lo|)):
/// hi, or lo where rounding put hi below it (for g_lower, lo is ĝ(x) clamped or the box floor).
fn closed(lo: f64, hi: f64) -> Option<f64> {
    (hi - lo <= 1e-12 * lo.abs().max(1.0)).then(|| hi.max(lo))
}

/// The label data of g in the confidence-set form: label 1 = reject (COBOL eq. (4)).
pub fn observations(rejects: &[bool]) -> Vec<Observation> {
    rejects.iter().enumerate().map(|(i, &r)| Observation::Label { point: i, positive: r }).collect()
}

impl GModel {
    /// The set for labels at `points` (working units) with `rejects`, kernel k_g = `kernel`, bound
    /// B_g and width α₁.
    pub fn new(
        config: &ValidCobolConfig,
        kernel: &Stationary,
        points: &[Vec<f64>],
        rejects: &[bool],
        norm_bound: f64,
        alpha: f64,
    ) -> Result<Self> {
        Self::with_known_mles(config, kernel, points, rejects, norm_bound, alpha, &[], None)
    }

    /// [`GModel::new`], taking the MLE from `known` (MLEs solved earlier, with their problems)
    /// when one of them solved the same program ([`ConfidenceProblem::same_program`]: the same
    /// support factor, labels and B): App. F's doubling test solves the MLEs with B_g and 2B_g on
    /// the labels of the next iteration, so one of them is that iteration's MLE. The same program
    /// solved by the same deterministic solver gives the same maximiser, so the set is the one
    /// [`GModel::new`] builds, bit for bit (tested). An MLE that is solved starts from `start`
    /// ([`ConfidenceProblem::mle_from_start`]: an earlier MLE on a prefix of these labels).
    #[allow(clippy::too_many_arguments)]
    pub fn with_known_mles(
        config: &ValidCobolConfig,
        kernel: &Stationary,
        points: &[Vec<f64>],
        rejects: &[bool],
        norm_bound: f64,
        alpha: f64,
        known: &[KnownMle],
        start: Option<&MleWarmStart>,
    ) -> Result<Self> {
        let confidence = bohf_confidence::ConfidenceConfig { norm_bound, ..config.confidence.clone() };
        let mut reused_mle = false;
        let inner = if points.is_empty() {
            None
        } else {
            let gram = gram(kernel, points);
            let problem = ConfidenceProblem::new(&gram, &observations(rejects), &confidence)?;
            let mle = match known.iter().find(|k| problem.same_program(&k.problem)) {
                Some(k) => {
                    reused_mle = true;
                    problem.mle_from(&k.problem, &k.mle)?
                }
                None => problem.mle_from_start(start)?,
            };
            let set = ConfidenceSet::new(&problem, &mle, alpha)?;
            Some(GSet { problem, mle, set })
        };
        Ok(Self {
            kernel: kernel.clone(),
            support: points.to_vec(),
            inner,
            norm_bound,
            latent_box: config.confidence.latent_box,
            alpha,
            fallbacks: 0,
            reused_mle,
        })
    }

    /// How the set's programs were solved so far (`None` without labels).
    pub fn solve_counts(&self) -> Option<bohf_confidence::SolveCounts> {
        self.inner.as_ref().map(|g| g.set.solve_counts())
    }

    /// Where the MLE's dual method ended, a start for the next MLE ([`MleWarmStart`]).
    pub fn mle_warm_start(&self) -> Option<&MleWarmStart> {
        self.inner.as_ref().and_then(|g| g.mle.warm_start.as_ref())
    }

    /// How the MLE was solved (which solver, iterations), if there are labels.
    pub fn mle_solve_info(&self) -> Option<&bohf_confidence::SolveInfo> {
        self.inner.as_ref().map(|g| &g.mle.info)
    }

    /// The MLE's log-likelihood ℓ*, if there are labels.
    pub fn mle_log_likelihood(&self) -> Option<f64> {
        self.inner.as_ref().map(|g| g.mle.log_likelihood)
    }

    /// Prepares the point `x` (working units): its certified enclosures from bohf-confidence
    /// ([`ConfidenceSet::cheap_pointwise_bounds`]: the ball, the latent box and every cut of the
    /// set known so far), tightened by the MLE interpolant (feasible, so g_lower ≤ ĝ ≤ g_upper).
    pub fn point(&self, x: &[f64]) -> Result<GPoint> {
        let kxx = self.kernel.eval(x, x);
        let cap = self.latent_box.unwrap_or(f64::INFINITY);
        let Some(g) = &self.inner else {
            let r = (self.norm_bound * kxx.max(0.0).sqrt()).min(cap);
            return Ok(GPoint {
                candidate: None,
                mle: 0.0,
                lower_floor: -r,
                lower_cap: -r,
                upper_floor: r,
                upper_cap: r,
                exact: Some((-r, r)),
            });
        };
        let kx = DVector::from_iterator(self.support.len(), self.support.iter().map(|s| self.kernel.eval(s, x)));
        let c = g.problem.candidate(&kx, kxx)?;
        let mut p = GPoint {
            candidate: Some(c),
            mle: 0.0,
            lower_floor: -cap,
            lower_cap: f64::INFINITY,
            upper_floor: f64::NEG_INFINITY,
            upper_cap: cap,
            exact: None,
        };
        self.refresh(&mut p)?;
        Ok(p)
    }

    /// Tightens `p`'s certified enclosures with the cuts the set has learnt since (every solve adds
    /// some).
    pub fn refresh(&self, p: &mut GPoint) -> Result<()> {
        let (Some(g), Some(c)) = (&self.inner, &p.candidate) else { return Ok(()) };
        p.mle = g.mle.value_at(c)?;
        let b = g.set.cheap_pointwise_bounds(c)?;
        p.lower_floor = p.lower_floor.max(b.inf.lower).min(p.mle);
        p.upper_cap = p.upper_cap.min(b.sup.upper).max(p.mle);
        p.lower_cap = p.lower_cap.min(b.inf.upper).min(p.mle);
        p.upper_floor = p.upper_floor.max(b.sup.lower).max(p.mle);
        Ok(())
    }

    /// Tightens `p`'s outer ends (lower_floor, upper_cap) with the curvature bounds of
    /// bohf-confidence ([`ConfidenceSet::curvature_pointwise_bounds`]): certified like the cuts,
    /// but they keep ℓ's curvature, so they also rule out points far from every solved one. Costs
    /// O(n²) per point after an O(n³) eigendecomposition on the set's first call: call it only for
    /// a point whose program would otherwise be solved.
    pub fn tighten(&mut self, p: &mut GPoint) -> Result<()> {
        let (Some(g), Some(c)) = (&mut self.inner, &p.candidate) else { return Ok(()) };
        let (lo, hi) = g.set.curvature_pointwise_bounds(c)?;
        p.lower_floor = p.lower_floor.max(lo).min(p.mle);
        p.upper_cap = p.upper_cap.min(hi).max(p.mle);
        Ok(())
    }

    /// g_lower(x) = inf_{g̃ ∈ C} g̃(x) (eq. (39)), "protected" by the MLE: min(g_lower, ĝ(x)).
    ///
    /// **Solver failure.** If clarabel fails on the program even after bohf-confidence's cautious
    /// retry (seen with a few hundred labels, where k_g's Gram matrix is ill-conditioned), the
    /// value is `p.lower_floor`, the certified lower end of the point's enclosure (the ball ∩
    /// likelihood-tangent halfspaces, the latent box): still a valid lower confidence bound, only
    /// looser, so the guarantees of Lemma 3.2 hold. [`GModel::fallbacks`] counts these.
    pub fn lower(&mut self, p: &GPoint) -> Result<f64> {
        match (&mut self.inner, &p.candidate, p.exact) {
            (_, _, Some((lo, _))) => Ok(lo),
            (Some(g), Some(c), None) => match g.set.lower_bound(c) {
                Ok(b) => Ok(b.value.min(p.mle)),
                Err(Error::SolverFailed { .. }) => {
                    self.fallbacks += 1;
                    Ok(p.lower_floor)
                }
                Err(e) => Err(e),
            },
            _ => Err(Error::invalid("g", "a prepared point without a candidate")),
        }
    }

    /// [`GModel::lower`] for the x^c search, which only needs g_lower(x) if it may be below
    /// `level`: the program may stop early with a certified bound ([`ZValue::Beyond`]: the
    /// protected g_lower is at least it, and it is at least `level`). Without a program to stop
    /// (a settled point, no labels, ĝ(x) ≤ `level`) it is [`GModel::lower`].
    pub fn lower_screened(&mut self, p: &GPoint, level: f64) -> Result<ZValue> {
        if let (Some(g), Some(c), None) = (&mut self.inner, &p.candidate, p.exact)
            && p.mle > level
        {
            return match g.set.lower_bound_screened(c, level) {
                Ok(Screened::Solved(b)) => Ok(ZValue::Exact(b.value.min(p.mle))),
                Ok(Screened::Beyond(b)) => Ok(ZValue::Beyond(b.min(p.mle))),
                Err(Error::SolverFailed { .. }) => {
                    self.fallbacks += 1;
                    Ok(ZValue::Exact(p.lower_floor))
                }
                Err(e) => Err(e),
            };
        }
        self.lower(p).map(ZValue::Exact)
    }

    /// [`GModel::upper`] for the x^c search when λ < 0: g_upper(x) if it may be above `level`,
    /// else a certified bound ≤ `level` ([`ZValue::Beyond`]; see [`GModel::lower_screened`]).
    pub fn upper_screened(&mut self, p: &GPoint, level: f64) -> Result<ZValue> {
        if let (Some(g), Some(c), None) = (&mut self.inner, &p.candidate, p.exact)
            && p.mle < level
        {
            return match g.set.upper_bound_screened(c, level) {
                Ok(Screened::Solved(b)) => Ok(ZValue::Exact(b.value.max(p.mle))),
                Ok(Screened::Beyond(b)) => Ok(ZValue::Beyond(b.max(p.mle))),
                Err(Error::SolverFailed { .. }) => {
                    self.fallbacks += 1;
                    Ok(ZValue::Exact(p.upper_cap))
                }
                Err(e) => Err(e),
            };
        }
        self.upper(p).map(ZValue::Exact)
    }

    /// g_upper(x) = sup_{g̃ ∈ C} g̃(x) (eq. (38)), protected: max(g_upper, ĝ(x)). On a solver
    /// failure, `p.upper_cap` (see [`GModel::lower`]).
    pub fn upper(&mut self, p: &GPoint) -> Result<f64> {
        match (&mut self.inner, &p.candidate, p.exact) {
            (_, _, Some((_, hi))) => Ok(hi),
            (Some(g), Some(c), None) => match g.set.upper_bound(c) {
                Ok(b) => Ok(b.value.max(p.mle)),
                Err(Error::SolverFailed { .. }) => {
                    self.fallbacks += 1;
                    Ok(p.upper_cap)
                }
                Err(e) => Err(e),
            },
            _ => Err(Error::invalid("g", "a prepared point without a candidate")),
        }
    }
}

/// A protected pointwise bound from [`GModel::lower_screened`] / [`GModel::upper_screened`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ZValue {
    /// The bound itself (within the solver's tolerance, or a certified end on a solver failure).
    Exact(f64),
    /// The program stopped at the level: a certified bound on the value beyond it.
    Beyond(f64),
}

/// The Gram matrix of `kernel` on `points`.
pub fn gram(kernel: &Stationary, points: &[Vec<f64>]) -> DMatrix<f64> {
    DMatrix::from_fn(points.len(), points.len(), |i, j| kernel.eval(&points[i], &points[j]))
}

/// α₁ for n labels at iteration t with bound B and the practical constant c_α.
pub fn alpha1(rule: &AlphaRule, c_alpha: f64, norm_bound: f64, labels: usize, t: usize) -> Result<f64> {
    match *rule {
        AlphaRule::Practical { .. } => Ok(c_alpha * ((labels + 1) as f64).sqrt()),
        AlphaRule::Lemma32 { epsilon, delta, log_covering } => {
            alpha1_cobol(norm_bound, epsilon, delta, labels, t.max(labels).max(1), log_covering)
        }
    }
}

/// A warm start kept with what its MLE was solved on: the number of evaluations (f's fit, hence
/// k_g, changes only with them), B_g and the number of labels (the support is the labels, in order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptStart {
    /// Evaluations when it was solved.
    pub evaluations: usize,
    /// B_g it was solved with.
    pub norm_bound: f64,
    /// Labels it was solved on (a prefix of every later label list).
    pub labels: usize,
    /// The start.
    pub start: MleWarmStart,
}

/// The starts of g's MLEs ([`ConfidenceProblem::mle_from_start`]): the last MLE solved and the one
/// before it with fewer labels. An MLE on n labels starts from the latest kept one solved on fewer
/// than n labels with the same evaluations and B_g, so the MLE that App. F's doubling test solves
/// on n labels and the one an iteration would solve on the same n labels start alike (and are then
/// the same bits: the reuse of [`GModel::with_known_mles`] stays exact). Part of COBOL's saved
/// state, so a restored run starts its MLEs as the uninterrupted run does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MleStarts {
    latest: Option<KeptStart>,
    previous: Option<KeptStart>,
}

impl MleStarts {
    /// The start for an MLE on `labels` labels after `evaluations` evaluations with B_g = `norm_bound`.
    pub fn for_labels(&self, evaluations: usize, norm_bound: f64, labels: usize) -> Option<&MleWarmStart> {
        [&self.latest, &self.previous]
            .into_iter()
            .flatten()
            .find(|k| k.evaluations == evaluations && k.norm_bound == norm_bound && k.labels < labels)
            .map(|k| &k.start)
    }

    /// Keeps the start of an MLE just solved on `labels` labels (nothing when the solve gave none);
    /// a second MLE on the same labels (e.g. the iteration's after the doubling test's) keeps the
    /// first.
    pub fn keep(&mut self, evaluations: usize, norm_bound: f64, labels: usize, start: Option<&MleWarmStart>) {
        let Some(start) = start else { return };
        let same = |k: &KeptStart| k.evaluations == evaluations && k.norm_bound == norm_bound;
        if self.latest.as_ref().is_some_and(|k| same(k) && k.labels == labels) {
            return;
        }
        let earlier = self.latest.take().filter(|k| same(k) && k.labels < labels);
        self.previous = earlier;
        self.latest = Some(KeptStart { evaluations, norm_bound, labels, start: start.clone() });
    }
}

/// An MLE solved earlier with the problem it solved (see [`GModel::with_known_mles`]).
#[derive(Debug, Clone)]
pub struct KnownMle {
    /// The problem.
    pub problem: ConfidenceProblem,
    /// Its MLE.
    pub mle: MleFit,
}

/// App. F's doubling test on the labels (working units): ℓ_t(ĝ_{B}) < ℓ_t(ĝ_{2B}) − α₁(·|2B);
/// with the practical rule α₁(·|2B) = 2c_α√(n+1) (the code). Returns whether to double, and the
/// MLEs it solved (with B, and with 2B unless a certified bound made that solve unnecessary,
/// [`bohf_confidence::doubling_test`]; none without labels). The MLE with B starts from `start`
/// ([`bohf_confidence::doubling_test_from`]).
#[allow(clippy::too_many_arguments)]
pub fn doubling_says_double(
    config: &ValidCobolConfig,
    kernel: &Stationary,
    points: &[Vec<f64>],
    rejects: &[bool],
    norm_bound: f64,
    c_alpha: f64,
    t: usize,
    start: Option<&MleWarmStart>,
) -> Result<(bool, Vec<KnownMle>)> {
    if points.is_empty() {
        return Ok((false, Vec::new()));
    }
    let confidence = bohf_confidence::ConfidenceConfig { norm_bound, ..config.confidence.clone() };
    let problem = ConfidenceProblem::new(&gram(kernel, points), &observations(rejects), &confidence)?;
    let alpha_doubled = alpha1(&config.alpha, 2.0 * c_alpha, 2.0 * norm_bound, points.len(), t)?;
    let test = bohf_confidence::doubling_test_from(&problem, alpha_doubled, start)?;
    let doubled = problem.with_norm_bound(2.0 * norm_bound)?;
    let mut known = vec![KnownMle { problem, mle: test.mle }];
    if let Some(mle) = test.mle_doubled {
        known.push(KnownMle { problem: doubled, mle });
    }
    Ok((test.double, known))
}

#[cfg(test)]
mod tests;
