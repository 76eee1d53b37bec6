//! The x-independent part: observations, the whitened Gram factor, and the norm-constrained MLE.

use crate::ConfidenceConfig;
use crate::conic::{self, ConicData, SolveInfo};
use crate::dense::{self, Directions, Objective, ProgramSpec};
use crate::dual::{self, DualStart};
use bohf_core::linalg::{Cholesky, JitterPolicy, max_asymmetry};
use bohf_core::{Duel, Error, Result};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// One observation of the latent function f at the support points (indices into the support).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Observation {
    /// A duel (BTL) between support points (its indices are support indices):
    /// P(first ≻ second) = σ(f(first) − f(second)) (POP-BO Assumption 2.5, eq. (3)).
    Duel(Duel),
    /// A unary logistic label: P(label = 1) = σ(f(point)) (COBOL eq. (4)).
    Label {
        /// Support index of the labelled point.
        point: usize,
        /// The label 1_τ (true = 1).
        positive: bool,
    },
}

impl Observation {
    /// The support indices the observation refers to.
    fn indices(&self) -> [Option<usize>; 2] {
        match *self {
            Observation::Duel(d) => [Some(d.first), Some(d.second)],
            Observation::Label { point, .. } => [Some(point), None],
        }
    }

    fn remap(&self, map: impl Fn(usize) -> usize) -> Self {
        match *self {
            Observation::Duel(d) => Observation::Duel(Duel::new(map(d.first), map(d.second), d.first_wins)),
            Observation::Label { point, positive } => Observation::Label { point: map(point), positive },
        }
    }

    /// (s_τ, c_τ) with the observation's log-likelihood −softplus(−s_τ c_τᵀZ): c = e_i − e_j for a duel
    /// (POP-BO eq. (7) rewritten, notes §2.1), c = e_i for a label (COBOL eq. (4)), s = 2·1_τ − 1.
    fn signed_functional(&self) -> (f64, usize, Option<usize>) {
        match *self {
            Observation::Duel(d) => (if d.first_wins { 1.0 } else { -1.0 }, d.first, Some(d.second)),
            Observation::Label { point, positive } => (if positive { 1.0 } else { -1.0 }, point, None),
        }
    }
}

/// The log-likelihood ℓ(Z | D) = −Σ_τ softplus(−s_τ c_τᵀZ) of latent values `z` at the support
/// (POP-BO eq. (21), COBOL eq. (4)).
pub fn log_likelihood(observations: &[Observation], z: &DVector<f64>) -> Result<f64> {
    bohf_core::error::ensure_finite("latent values", z.iter())?;
    let mut ll = 0.0;
    for o in observations {
        let (s, i, j) = o.signed_functional();
        for k in [Some(i), j].into_iter().flatten() {
            if k >= z.len() {
                return Err(Error::IndexOutOfRange {
                    context: "observation support index".into(),
                    index: k,
                    len: z.len(),
                });
            }
        }
        let d = z[i] - j.map_or(0.0, |j| z[j]);
        ll -= bohf_core::link::softplus(-s * d);
    }
    Ok(ll)
}

/// A point x described by its kernel values against the support: l_x = L⁻¹k_x and
/// ρ_x = √(k(x,x) + ε − ‖l_x‖²), so that the Cholesky factor of the support Gram bordered by x is
/// [[L, 0], [l_xᵀ, ρ_x]] and f̃(x) = l_xᵀw + ρ_x ω (POP-BO notes §3.4, COBOL notes §2.4).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    l: DVector<f64>,
    rho: f64,
}

impl Candidate {
    /// l_x = L⁻¹k_x, the whitened coordinates of k(x, ·) in the span of the support representers.
    pub fn coordinates(&self) -> &DVector<f64> {
        &self.l
    }

    /// ρ_x ≥ 0, the RKHS distance of k(x, ·) from that span (the noise-free posterior standard deviation).
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The row c = (l_x, ρ_x) with f̃(x) = cᵀ(w, ω): the candidate's latent box row and the
    /// direction of its pointwise bounds.
    pub(crate) fn row(&self) -> DVector<f64> {
        let n = self.l.len();
        let mut c = DVector::zeros(n + 1);
        c.rows_mut(0, n).copy_from(&self.l);
        c[n] = self.rho;
        c
    }
}

/// The norm-constrained MLE (POP-BO eq. (8)/(22), COBOL eq. (37)).
#[derive(Debug, Clone, PartialEq)]
pub struct MleFit {
    /// Ẑ = Lŵ, the latent values at the support points.
    pub z: DVector<f64>,
    /// ŵ, the whitened values (‖ŵ‖ = the RKHS norm of the minimum-norm interpolant of Ẑ).
    pub w: DVector<f64>,
    /// ℓ* = ℓ(Ẑ), evaluated from Ẑ (not the solver's objective).
    pub log_likelihood: f64,
    /// The norm bound B it was solved with.
    pub norm_bound: f64,
    /// The clarabel solve.
    pub info: SolveInfo,
    /// A start for the MLE of a later problem on more observations (the boxed dual path only;
    /// [`ConfidenceProblem::mle_from_start`]).
    pub warm_start: Option<MleWarmStart>,
}

/// Where an earlier boxed MLE ended, as a start for the MLE of a problem whose support extends its
/// support (the same points first, in the same order, with the same kernel and B: e.g. one more
/// label): ŵ (padded with zeros for the new points), the norm's price μ and the latent-box rows
/// priced > 0 at its certificate ([`ConfidenceProblem::mle_from_start`]). A start changes only the
/// path of the dual method, not its certificate: the result is certified to the same tolerance,
/// and may differ from a cold start's within it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MleWarmStart {
    /// ŵ of the earlier MLE.
    pub w: Vec<f64>,
    /// Its norm price μ > 0.
    pub mu: f64,
    /// Its active latent-box rows: (support index, whether the upper side z ≤ b).
    pub rows: Vec<(usize, bool)>,
}

impl MleWarmStart {
    /// Whether the start fits a support of `n` points (its own support no larger, its rows inside).
    pub(crate) fn applies_to(&self, n: usize) -> bool {
        self.w.len() <= n
            && self.rows.iter().all(|&(i, _)| i < self.w.len())
            && self.mu.is_finite()
            && self.mu > 0.0
            && self.w.iter().all(|v| v.is_finite())
    }
}

impl MleFit {
    /// The minimum-norm MLE interpolant f̂(x) = k_xᵀK⁻¹Ẑ = l_xᵀŵ (POP-BO §3.3).
    pub fn value_at(&self, candidate: &Candidate) -> Result<f64> {
        if candidate.l.len() != self.w.len() {
            return Err(Error::dims("MLE value at a candidate (support size)", self.w.len(), candidate.l.len()));
        }
        Ok(candidate.l.dot(&self.w))
    }

    /// ‖ŵ‖, the RKHS norm of the minimum-norm interpolant (≤ B up to the solver tolerance).
    pub fn norm(&self) -> f64 {
        self.w.norm()
    }
}

/// The data part of the likelihood-ratio confidence set: support points (their Gram factor), the
/// observations, and the settings. Nothing here depends on the candidate x.
#[derive(Debug, Clone)]
pub struct ConfidenceProblem {
    config: ConfidenceConfig,
    chol: Cholesky,
    jitter: f64,
    observations: Vec<Observation>,
    data: ConicData,
    support: Option<Vec<usize>>,
}

impl ConfidenceProblem {
    /// A problem on n support points with Gram `gram` (n×n) and observations indexing the support.
    ///
    /// Errors: invalid config (naming the field, e.g. `norm_bound` for B ≤ 0), an empty or
    /// non-square, non-symmetric or non-finite Gram, an index out of range, or a Gram that is not
    /// positive definite even with the allowed jitter. Repeated support points make K singular:
    /// deduplicate them (as [`ConfidenceProblem::on_candidates`] does).
    pub fn new(gram: &DMatrix<f64>, observations: &[Observation], config: &ConfidenceConfig) -> Result<Self> {
        config.check()?;
        let n = gram.nrows();
        if n == 0 {
            return Err(Error::Empty("confidence problem support (no points)".into()));
        }
        if gram.ncols() != n {
            return Err(Error::dims("support Gram (square)", n, gram.ncols()));
        }
        bohf_core::error::ensure_finite("support Gram", gram.iter())?;
        let scale = gram.diagonal().iter().fold(0.0_f64, |a, v| a.max(v.abs())).max(1.0);
        if max_asymmetry(gram) > 1e-10 * scale {
            return Err(Error::invalid("gram", "the support Gram matrix is not symmetric"));
        }
        for o in observations {
            for i in o.indices().into_iter().flatten() {
                if i >= n {
                    return Err(Error::IndexOutOfRange {
                        context: "observation support index".into(),
                        index: i,
                        len: n,
                    });
                }
            }
        }
        let mut k = gram.clone();
        for i in 0..n {
            k[(i, i)] += config.nugget;
        }
        let chol = Cholesky::with_jitter(&k, JitterPolicy::default())?;
        let jitter = config.nugget + chol.jitter();
        let l = chol.l().clone();
        let data = ConicData::aggregate(l, observations, config);
        Ok(Self { config: config.clone(), chol, jitter, observations: observations.to_vec(), data, support: None })
    }

    /// A problem on a finite candidate set with base Gram `base_gram` (N×N), observations given in
    /// candidate indices. The support is `anchors` (e.g. POP-BO's x₀ before any duel) followed by the
    /// observed candidates, each once, in order of first appearance.
    pub fn on_candidates(
        base_gram: &DMatrix<f64>,
        anchors: &[usize],
        observations: &[Observation],
        config: &ConfidenceConfig,
    ) -> Result<Self> {
        let big_n = base_gram.nrows();
        if base_gram.ncols() != big_n {
            return Err(Error::dims("base Gram (square)", big_n, base_gram.ncols()));
        }
        let mut support: Vec<usize> = Vec::new();
        let mut position = vec![usize::MAX; big_n];
        let all = anchors.iter().copied().chain(observations.iter().flat_map(|o| o.indices().into_iter().flatten()));
        for c in all {
            if c >= big_n {
                return Err(Error::IndexOutOfRange { context: "candidate index".into(), index: c, len: big_n });
            }
            if position[c] == usize::MAX {
                position[c] = support.len();
                support.push(c);
            }
        }
        let gram = DMatrix::from_fn(support.len(), support.len(), |i, j| base_gram[(support[i], support[j])]);
        let obs: Vec<Observation> = observations.iter().map(|o| o.remap(|c| position[c])).collect();
        let mut p = Self::new(&gram, &obs, config)?;
        p.support = Some(support);
        Ok(p)
    }

    /// Number of support points n.
    pub fn len(&self) -> usize {
        self.data.l.nrows()
    }

    /// Whether the support is empty (never, for a constructed problem).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The observations (support indices).
    pub fn observations(&self) -> &[Observation] {
        &self.observations
    }

    /// The settings.
    pub fn config(&self) -> &ConfidenceConfig {
        &self.config
    }

    /// B.
    pub fn norm_bound(&self) -> f64 {
        self.config.norm_bound
    }

    /// The total diagonal ε added to the support Gram: the nugget plus any Cholesky jitter.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// The factor L with L Lᵀ = K + ε I.
    pub fn cholesky(&self) -> &Cholesky {
        &self.chol
    }

    /// Candidate indices of the support points (problems built with [`ConfidenceProblem::on_candidates`]).
    pub fn support(&self) -> Option<&[usize]> {
        self.support.as_deref()
    }

    /// The support position of candidate `index`, if it is a support point.
    pub fn support_position(&self, index: usize) -> Option<usize> {
        self.support.as_ref()?.iter().position(|&c| c == index)
    }

    pub(crate) fn conic_data(&self) -> &ConicData {
        &self.data
    }

    /// The number of distinct observation terms in the conic programs: observations with the same
    /// functional and outcome are merged, self-duels dropped (see the [`crate::conic`] notes).
    pub fn distinct_terms(&self) -> usize {
        self.data.rows.nrows()
    }

    /// ℓ(w) and ∇ℓ(w) in the whitened variables w (Z = Lw): ℓ = −Σ_τ softplus(−r_τᵀw) over the
    /// observations (POP-BO eq. (21)), ∇ℓ = Σ_τ σ(−r_τᵀw) r_τ with r_τ = s_τ Lᵀc_τ. Used for the
    /// likelihood tangent halfspaces that bound the confidence set.
    pub fn whitened_log_likelihood(&self, w: &DVector<f64>) -> Result<(f64, DVector<f64>)> {
        if w.len() != self.len() {
            return Err(Error::dims("whitened latent values (support size)", self.len(), w.len()));
        }
        bohf_core::error::ensure_finite("whitened latent values", w.iter())?;
        Ok(self.data.log_likelihood_and_gradient(w))
    }

    /// The same data with another norm bound B (for the B-doubling test); reuses the factorisation.
    pub fn with_norm_bound(&self, norm_bound: f64) -> Result<Self> {
        let config = ConfidenceConfig { norm_bound, ..self.config.clone() };
        config.check()?;
        let mut p = self.clone();
        p.data.norm_bound = norm_bound;
        p.config = config;
        Ok(p)
    }

    /// ℓ(Z | D) at latent values `z` on the support.
    pub fn log_likelihood(&self, z: &DVector<f64>) -> Result<f64> {
        if z.len() != self.len() {
            return Err(Error::dims("latent values (support size)", self.len(), z.len()));
        }
        log_likelihood(&self.observations, z)
    }

    /// A point x from its kernel values k_x = (k(x_i, x))_i against the support and k(x, x).
    pub fn candidate(&self, k_x: &DVector<f64>, k_xx: f64) -> Result<Candidate> {
        if k_x.len() != self.len() {
            return Err(Error::dims("candidate kernel vector (support size)", self.len(), k_x.len()));
        }
        bohf_core::error::ensure_finite("candidate kernel values", k_x.iter().chain(std::iter::once(&k_xx)))?;
        let mut l = k_x.clone();
        self.data.l.solve_lower_triangular_unchecked_mut(&mut l);
        let rho2 = k_xx + self.jitter - l.norm_squared();
        Ok(Candidate { l, rho: rho2.max(0.0).sqrt() })
    }

    /// The support point at `position` as a candidate: l_x = L[position, :]ᵀ and ρ_x = 0, so that
    /// f̃(x) = l_xᵀw is exactly its latent value Z_position (not a new, jittered variable: with the
    /// nugget ε, L⁻¹k_x differs from L[position, :]ᵀ by O(ε)). Hence the optimistic advantage of a
    /// support point against itself is exactly 0 (POP-BO Lemma 4.1 at x = x_{t−1}).
    pub fn support_candidate(&self, position: usize) -> Result<Candidate> {
        if position >= self.len() {
            return Err(Error::IndexOutOfRange {
                context: "support position".into(),
                index: position,
                len: self.len(),
            });
        }
        Ok(Candidate { l: self.data.l.row(position).transpose(), rho: 0.0 })
    }

    /// Candidates for columns `indices` of the base Gram (problems built with
    /// [`ConfidenceProblem::on_candidates`]); one triangular solve with all right-hand sides. A
    /// candidate that is a support point is [`ConfidenceProblem::support_candidate`]: it takes that
    /// point's latent value exactly.
    pub fn candidates_from_gram(&self, base_gram: &DMatrix<f64>, indices: &[usize]) -> Result<Vec<Candidate>> {
        let support = self
            .support
            .as_ref()
            .ok_or_else(|| Error::invalid("support", "the problem was not built on a candidate set"))?;
        let big_n = base_gram.nrows();
        if base_gram.ncols() != big_n {
            return Err(Error::dims("base Gram (square)", big_n, base_gram.ncols()));
        }
        for &j in indices.iter().chain(support.iter()) {
            if j >= big_n {
                return Err(Error::IndexOutOfRange { context: "candidate index".into(), index: j, len: big_n });
            }
        }
        let kx = DMatrix::from_fn(self.len(), indices.len(), |i, c| base_gram[(support[i], indices[c])]);
        bohf_core::error::ensure_finite("candidate kernel values", kx.iter())?;
        let l = self.chol.solve_lower(&kx)?;
        indices
            .iter()
            .enumerate()
            .map(|(c, &j)| match support.iter().position(|&s| s == j) {
                Some(p) => self.support_candidate(p),
                None => {
                    let col = l.column(c).clone_owned();
                    let rho2 = base_gram[(j, j)] + self.jitter - col.norm_squared();
                    Ok(Candidate { l: col, rho: rho2.max(0.0).sqrt() })
                }
            })
            .collect()
    }

    /// Whether `other` poses the same conic programs: the same support factor, settings and distinct
    /// observation terms with the same multiplicities, so that only ℓ₀ (the self-duels) may differ.
    /// Then the MLE, and every confidence set of the same width β, are the same.
    pub fn same_program(&self, other: &ConfidenceProblem) -> bool {
        self.config == other.config
            && self.jitter == other.jitter
            && self.support == other.support
            && self.data.l == other.data.l
            && self.data.rows == other.data.rows
            && self.data.weights == other.data.weights
    }

    /// The MLE of this problem from `fit`, the MLE of `other` solving the same program
    /// ([`ConfidenceProblem::same_program`]): the same maximiser, with ℓ* re-evaluated on this
    /// problem's observations (ℓ₀ may differ). No solve; errors if the programs differ.
    pub fn mle_from(&self, other: &ConfidenceProblem, fit: &MleFit) -> Result<MleFit> {
        if !self.same_program(other) {
            return Err(Error::invalid("mle", "the previous problem poses a different program; solve the MLE afresh"));
        }
        let log_likelihood = self.log_likelihood(&fit.z)?;
        Ok(MleFit { log_likelihood, ..fit.clone() })
    }

    /// A certified upper bound on the norm-constrained maximum likelihood max {ℓ(w) : ‖w‖ ≤ B}
    /// (∩ the latent box), without solving: the concave quadratic Q ≥ ℓ of [`crate::curvature`]
    /// centred at `w` (any point; the closer to the maximiser the tighter, e.g. the MLE with a
    /// smaller B), maximised over the ball by its 1-D dual. `+∞` when there are no observation
    /// terms to bound.
    pub fn max_log_likelihood_bound(&self, w: &DVector<f64>) -> Result<f64> {
        if w.len() != self.len() {
            return Err(Error::dims("centre of the likelihood bound (support size)", self.len(), w.len()));
        }
        bohf_core::error::ensure_finite("centre of the likelihood bound", w.iter())?;
        Ok(match crate::curvature::CurvatureOuter::new(&self.data, w, 0.0) {
            Some(outer) => outer.likelihood_maximum_bound(outer.q_centre),
            None => f64::INFINITY,
        })
    }

    /// The norm-constrained MLE max_Z ℓ(Z | D) s.t. ZᵀK⁻¹Z ≤ B² (POP-BO eq. (22), COBOL eq. (37)),
    /// solved as (C-MLE) of the notes: min Σu s.t. (B, w) ∈ SOC, softplus epigraphs, with Z = Lw.
    ///
    /// When the norm constraint is inactive the maximiser need not be unique (e.g. a common shift of
    /// all duel values); clarabel then returns one interior point of the optimal set.
    pub fn mle(&self) -> Result<MleFit> {
        self.mle_from_start(None)
    }

    /// [`ConfidenceProblem::mle`], the dual method started from `start` (an earlier MLE on a prefix
    /// of this support, [`MleWarmStart`]) where it applies: the boxed dual's first inner solve then
    /// begins at the earlier maximiser with its working set instead of at w = 0 with none. Certified
    /// as a cold solve; clarabel, the fallback, ignores the start.
    pub fn mle_from_start(&self, start: Option<&MleWarmStart>) -> Result<MleFit> {
        if self.config.uses_fast_path()
            && let Some(fit) = self.mle_dense(start)
        {
            return Ok(fit);
        }
        self.mle_clarabel()
    }

    /// The MLE by the certified dense interior-point method ([`crate::dense`]), from w = 0 (or
    /// `start`); `None` when it cannot certify the result within `mle_tolerance`.
    fn mle_dense(&self, start: Option<&MleWarmStart>) -> Option<MleFit> {
        let clock = std::time::Instant::now();
        let dirs = Directions::new(&self.data);
        let centre = DVector::zeros(self.len());
        let tol = self.config.mle_tolerance;
        // The interior-point method only without the latent box: with it, it stalled short of the
        // certificate on every label MLE measured (docs/confidence.md), and a failed attempt costs
        // up to 80 factorisations before clarabel.
        let spec = || ProgramSpec {
            data: &self.data,
            dirs: &dirs,
            objective: Objective::Likelihood,
            threshold: None,
            candidate: None,
            centre: &centre,
            tolerance: tol,
        };
        let sol = dual::solve(spec(), DualStart { mle_start: start, ..DualStart::default() })
            .or_else(|| self.data.latent_box.is_none().then(|| dense::solve(spec())).flatten())?;
        let z = &self.data.l * &sol.p;
        let log_likelihood = log_likelihood(&self.observations, &z).ok()?;
        let info = SolveInfo::dense(&sol, clock.elapsed().as_secs_f64());
        let warm_start = sol.mle_restart.as_ref().map(|(mu, rows)| MleWarmStart {
            w: sol.p.iter().copied().collect(),
            mu: *mu,
            rows: rows.clone(),
        });
        Some(MleFit { z, w: sol.p, log_likelihood, norm_bound: self.config.norm_bound, info, warm_start })
    }

    /// The MLE solved by clarabel (the reference implementation).
    pub fn mle_clarabel(&self) -> Result<MleFit> {
        let asm = conic::assemble(&self.data, false, None);
        let mut q = vec![0.0; asm.layout.n_vars()];
        for tau in 0..asm.layout.m {
            q[asm.layout.u(tau)] = self.data.weights[tau];
        }
        let opts = self.config.solver_options(self.config.mle_tolerance);
        let name = "norm-constrained MLE";
        let mut solver = conic::new_solver(name, &q, &asm.a, &asm.b, &asm.cones, &opts)?;
        let info = match conic::solve_checked(&mut solver, name, opts.acceptable_tolerance) {
            Ok(info) => info,
            Err(first) if conic::retry_worthy(solver.solution.status) => {
                let cautious = conic::SolverOptions { cautious: true, ..opts };
                solver = conic::new_solver(name, &q, &asm.a, &asm.b, &asm.cones, &cautious)?;
                let mut info = conic::solve_checked(&mut solver, name, opts.acceptable_tolerance)
                    .map_err(|second| conic::both_failed(first, second))?;
                info.retried = true;
                info
            }
            Err(e) => return Err(e),
        };
        let w = DVector::from_column_slice(&solver.solution.x[..self.len()]);
        let z = &self.data.l * &w;
        let log_likelihood = log_likelihood(&self.observations, &z)?;
        Ok(MleFit { z, w, log_likelihood, norm_bound: self.config.norm_bound, info, warm_start: None })
    }
}

impl ConicData {
    /// The whitened rows r_τ = s_τ Lᵀc_τ of `observations`, one per distinct (functional, outcome)
    /// with its multiplicity; self-duels go into the constant ℓ₀ = −count·log 2.
    fn aggregate(l: DMatrix<f64>, observations: &[Observation], config: &ConfidenceConfig) -> Self {
        use std::collections::HashMap;
        let n = l.nrows();
        // Key: (i, j or usize::MAX for a label, sign), with i < j for duels.
        let mut index: HashMap<(usize, usize, bool), usize> = HashMap::new();
        let mut terms: Vec<(f64, usize, Option<usize>)> = Vec::new();
        let mut weights: Vec<f64> = Vec::new();
        let mut self_duels = 0usize;
        for o in observations {
            let (s, i, j) = o.signed_functional();
            let (s, i, j) = match j {
                Some(j) if j == i => {
                    self_duels += 1;
                    continue;
                }
                Some(j) if j < i => (-s, j, Some(i)),
                _ => (s, i, j),
            };
            let key = (i, j.unwrap_or(usize::MAX), s > 0.0);
            match index.get(&key) {
                Some(&k) => weights[k] += 1.0,
                None => {
                    index.insert(key, terms.len());
                    terms.push((s, i, j));
                    weights.push(1.0);
                }
            }
        }
        let rows = DMatrix::from_fn(terms.len(), n, |tau, c| {
            let (s, i, j) = terms[tau];
            s * (l[(i, c)] - j.map_or(0.0, |j| l[(j, c)]))
        });
        let constant = -(self_duels as f64) * std::f64::consts::LN_2;
        let abs_weighted = rows.abs().tr_mul(&DVector::from_column_slice(&weights));
        ConicData {
            l,
            rows,
            terms,
            weights,
            abs_weighted,
            constant,
            norm_bound: config.norm_bound,
            latent_box: config.latent_box,
        }
    }
}
