//! The likelihood-ratio confidence set and the programs over it that depend on a candidate x.
//!
//! C_t = {f̃ : ‖f̃‖_k ≤ B, ℓ_t(f̃) ≥ ℓ* − β} (POP-BO eq. (9), COBOL Lemma 3.2). For a candidate x,
//! with the bordered factor of the support Gram (see [`Candidate`]), every program here is
//!
//! ```text
//! h(g) = max { g_wᵀw + g_ω ω :  ‖(w, ω)‖ ≤ B,  −Σ_τ softplus(−r_τᵀw) ≥ ℓ* − β [, box] },
//! ```
//!
//! with g = (l_x − L[r,:]ᵀ, ρ_x) for the optimistic advantage f̃(x) − f̃(x_r) (POP-BO eq. (24)),
//! g = (l_x, ρ_x) for sup f̃(x) and g = −(l_x, ρ_x) for −inf f̃(x) (POP-BO eq. (12), COBOL (38)/(39)).
//! Only the objective depends on x (and, with the latent box, the two box rows of z), so one clarabel
//! solver is built per confidence set and updated in place for each candidate.
//!
//! Without the box, h is the support function of one fixed convex set C′ ⊂ ℝ^{n+1} contained in the
//! B-ball, which gives cheap certified bounds used to prune candidates:
//! * upper: h(g) ≤ B‖g‖ (at t = 0 this is B√(k(x,x) − 2k(x,x′) + k(x′,x′)), the exact value), and
//!   after solving at u with value h(u), h(g) ≤ support function of {‖p‖ ≤ B, uᵀp ≤ h(u)}
//!   = hα/‖u‖ + B·π·√(1 − (h/(B‖u‖))²) with α = gᵀu/‖u‖, π = ‖g − αu/‖u‖‖ (or B‖g‖ if the ball's
//!   maximiser already satisfies the halfspace);
//! * lower: any feasible ŵ (the MLE, earlier optima) gives h(g) ≥ g_wᵀŵ + g_ω √(B² − ‖ŵ‖²).

use crate::conic::{self, ConicData, Layout, SolveInfo, SolverOptions};
use crate::problem::{Candidate, ConfidenceProblem, MleFit};
use bohf_core::{Error, Result, SolverStatus};
use clarabel::solver::DefaultSolver;
use nalgebra::DVector;

/// The optimum of one confidence-set program at a candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct ConicSolution {
    /// The optimal value: the advantage f̃(x) − f̃(x_r), sup f̃(x), or inf f̃(x).
    pub value: f64,
    /// The optimal latent values Z = Lw at the support points.
    pub z: DVector<f64>,
    /// The optimal value f̃(x) = l_xᵀw + ρ_x ω at the candidate.
    pub z_candidate: f64,
    /// The whitened optimiser w.
    pub w: DVector<f64>,
    /// The optimal candidate coordinate ω.
    pub omega: f64,
    /// The clarabel solve.
    pub info: SolveInfo,
}

/// The result of maximising the optimistic advantage over a candidate list (POP-BO Alg. 1 line 4).
#[derive(Debug, Clone, PartialEq)]
pub struct AdvantageSearch {
    /// Position in the candidate list of the maximiser.
    pub best: usize,
    /// Its optimistic advantage.
    pub value: f64,
    /// The full solution at the maximiser.
    pub solution: ConicSolution,
    /// How many conic programs were solved (the rest were pruned by the certified bounds).
    pub solved: usize,
}

/// First-order sensitivity of an optimal value v (advantage, sup or inf) to the candidate's kernel
/// values: dv = d_kxᵀ dk_x + d_kxx dk(x,x). Chain it with ∂k(x_i, x)/∂x for gradient-based search
/// over a continuous domain (POP-BO App. H's outer problem).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSensitivity {
    /// ∂v/∂k_x.
    pub d_kx: DVector<f64>,
    /// ∂v/∂k(x, x).
    pub d_kxx: f64,
}

/// The halfspace {p : uᵀp ≤ h} of ℝ^{n+1}.
#[derive(Debug, Clone)]
struct Halfspace {
    u: DVector<f64>,
    h: f64,
}

/// A likelihood-ratio confidence set with its clarabel solver, ready to be queried at many candidates.
pub struct ConfidenceSet {
    data: ConicData,
    layout: Layout,
    solver: DefaultSolver<f64>,
    options: SolverOptions,
    threshold: f64,
    box_positions: Vec<usize>,
    cuts: Vec<Halfspace>,
    feasible: Vec<DVector<f64>>,
}

impl std::fmt::Debug for ConfidenceSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfidenceSet")
            .field("support", &self.layout.n)
            .field("observations", &self.layout.m)
            .field("norm_bound", &self.data.norm_bound)
            .field("threshold", &self.threshold)
            .finish()
    }
}

impl ConfidenceSet {
    /// C_t with width β ≥ 0 around the MLE: ℓ(Z) ≥ ℓ* − β (POP-BO eq. (9)). The MLE must come from
    /// this problem (same data and B).
    pub fn new(problem: &ConfidenceProblem, mle: &MleFit, beta: f64) -> Result<Self> {
        if !(beta.is_finite() && beta >= 0.0) {
            return Err(Error::invalid("beta", format!("must be finite and >= 0, got {beta}")));
        }
        if mle.w.len() != problem.len() {
            return Err(Error::dims("MLE given to the confidence set (support size)", problem.len(), mle.w.len()));
        }
        if (mle.norm_bound - problem.norm_bound()).abs() > 1e-12 * problem.norm_bound() {
            return Err(Error::invalid(
                "mle",
                format!("solved with B = {} but the problem has B = {}", mle.norm_bound, problem.norm_bound()),
            ));
        }
        let mut set = Self::with_threshold(problem, mle.log_likelihood - beta)?;
        set.feasible.push(mle.w.clone());
        if let Some(cut) = set.tangent_cut(&mle.w) {
            set.cuts.push(cut);
        }
        Ok(set)
    }

    /// The set {‖f̃‖ ≤ B, ℓ(Z) ≥ `threshold`} for a given log-likelihood threshold (e.g. to check
    /// coverage at a known ℓ(f)). A threshold above the maximum makes every program infeasible.
    pub fn with_threshold(problem: &ConfidenceProblem, threshold: f64) -> Result<Self> {
        if !threshold.is_finite() {
            return Err(Error::NonFinite("log-likelihood threshold".into()));
        }
        let data = problem.conic_data().clone();
        if data.rows.nrows() == 0 && threshold > data.constant {
            // No term depends on f̃ (no data, or only self-duels): ℓ ≡ ℓ₀ < threshold, the set is empty.
            return Err(Error::solver_failed(
                "confidence set",
                SolverStatus::PrimalInfeasible,
                format!(
                    "the constraints are infeasible: the log-likelihood is the constant {} but the threshold is {threshold}",
                    data.constant
                ),
            ));
        }
        let asm = conic::assemble(&data, true, Some(data.constant - threshold));
        let options = problem.config().solver_options(problem.config().tolerance);
        let q = vec![0.0; asm.layout.n_vars()];
        let solver = conic::new_solver("confidence set", &q, &asm.a, &asm.b, &asm.cones, &options)?;
        let mut box_positions = Vec::new();
        if let Some(row) = asm.layout.candidate_box_row {
            for r in [row, row + 1] {
                for j in 0..=asm.layout.n {
                    box_positions.push(conic::nz_position(&asm.a, r, j).expect("structural box entry"));
                }
            }
        }
        Ok(Self {
            data,
            layout: asm.layout,
            solver,
            options,
            threshold,
            box_positions,
            cuts: Vec::new(),
            feasible: Vec::new(),
        })
    }

    /// The log-likelihood threshold ℓ* − β.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// B.
    pub fn norm_bound(&self) -> f64 {
        self.data.norm_bound
    }

    fn check_candidate(&self, c: &Candidate) -> Result<()> {
        if c.coordinates().len() != self.layout.n {
            return Err(Error::dims("candidate (support size)", self.layout.n, c.coordinates().len()));
        }
        Ok(())
    }

    fn check_reference(&self, reference: usize) -> Result<()> {
        if reference >= self.layout.n {
            return Err(Error::IndexOutOfRange {
                context: "reference support index".into(),
                index: reference,
                len: self.layout.n,
            });
        }
        Ok(())
    }

    /// The objective direction g = (l_x − L[r,:]ᵀ, ρ_x) of the optimistic advantage.
    fn advantage_direction(&self, c: &Candidate, reference: usize) -> DVector<f64> {
        let n = self.layout.n;
        let mut g = DVector::zeros(n + 1);
        for j in 0..n {
            g[j] = c.coordinates()[j] - self.data.l[(reference, j)];
        }
        g[n] = c.rho();
        g
    }

    /// Solves max gᵀ(w, ω) over the set, with the candidate box rows of `c`.
    fn maximise(&mut self, g: &DVector<f64>, c: &Candidate, problem: &str) -> Result<ConicSolution> {
        let n = self.layout.n;
        let mut q = vec![0.0; self.layout.n_vars()];
        for j in 0..=n {
            q[j] = -g[j];
        }
        let fail = |e: clarabel::solver::DataUpdateError| {
            Error::solver_failed(format!("clarabel ({problem})"), SolverStatus::DataUpdateFailed(e.to_string()), "")
        };
        self.solver.update_q(&q).map_err(fail)?;
        let mut box_values = Vec::new();
        if !self.box_positions.is_empty() {
            // Rows −A·x + s = b: the +z row carries (l_x, ρ_x), the −z row its negative.
            box_values.reserve(2 * (n + 1));
            for sign in [1.0, -1.0] {
                box_values.extend(c.coordinates().iter().map(|v| sign * v));
                box_values.push(sign * c.rho());
            }
            self.solver.update_A(&(self.box_positions.clone(), box_values.clone())).map_err(fail)?;
        }
        let info = match conic::solve_checked(&mut self.solver, problem, self.options.acceptable_tolerance) {
            Ok(info) => info,
            Err(first) if !self.options.cautious && conic::retry_worthy(self.solver.solution.status) => {
                // Numerical trouble: the same program with shorter steps; the cautious solver is
                // kept for the set's later programs.
                let asm = conic::assemble(&self.data, true, Some(self.data.constant - self.threshold));
                let cautious = SolverOptions { cautious: true, ..self.options };
                let mut solver = conic::new_solver(problem, &q, &asm.a, &asm.b, &asm.cones, &cautious)?;
                if !box_values.is_empty() {
                    solver.update_A(&(self.box_positions.clone(), box_values)).map_err(fail)?;
                }
                let mut info = conic::solve_checked(&mut solver, problem, self.options.acceptable_tolerance)
                    .map_err(|second| conic::both_failed(first, second))?;
                self.solver = solver;
                self.options = cautious;
                info.retried = true;
                info
            }
            Err(e) => return Err(e),
        };
        let x = &self.solver.solution.x;
        let w = DVector::from_column_slice(&x[..n]);
        let omega = x[n];
        let value = g.rows(0, n).dot(&w) + g[n] * omega;
        let z = &self.data.l * &w;
        let z_candidate = c.coordinates().dot(&w) + c.rho() * omega;
        Ok(ConicSolution { value, z, z_candidate, w, omega, info })
    }

    /// Records a solved direction as a pruning cut (only when no candidate-dependent box row is
    /// active, so that the value is the support function of the common set).
    fn record(&mut self, g: DVector<f64>, sol: &ConicSolution) {
        let box_inactive = match self.data.latent_box {
            None => true,
            Some(b) => sol.z_candidate.abs() < b * (1.0 - 1e-6),
        };
        if box_inactive {
            let unorm = g.norm();
            if unorm > 0.0 {
                let h = sol.value + self.slack(sol.value);
                self.cuts.push(Halfspace { u: g, h });
            }
        }
        if let Some(cut) = self.tangent_cut(&sol.w) {
            self.cuts.push(cut);
        }
        if self.feasible.len() < 64 {
            self.feasible.push(sol.w.clone());
        }
    }

    /// The likelihood tangent cut at w₀: ℓ is concave, so ℓ(w) ≤ ℓ(w₀) + ∇ℓ(w₀)ᵀ(w − w₀) and every
    /// feasible w satisfies −∇ℓ(w₀)ᵀw ≤ ℓ(w₀) − (ℓ* − β) − ∇ℓ(w₀)ᵀw₀, with
    /// ∇ℓ(w) = Σ_τ c_τ σ(−r_τᵀw) r_τ (ℓ = Σ_τ c_τ log σ(r_τᵀw) + ℓ₀).
    fn tangent_cut(&self, w0: &DVector<f64>) -> Option<Halfspace> {
        if self.layout.m == 0 {
            return None;
        }
        let (ll0, grad) = self.data.log_likelihood_and_gradient(w0);
        let n = self.layout.n;
        let mut u = DVector::zeros(n + 1);
        u.rows_mut(0, n).copy_from(&(-&grad));
        let unorm = u.norm();
        if unorm < 1e-12 {
            return None;
        }
        let h = ll0 - self.threshold - grad.dot(w0);
        Some(Halfspace { u, h: h + self.slack(h) })
    }

    fn slack(&self, value: f64) -> f64 {
        100.0 * self.options.tolerance * value.abs().max(self.data.norm_bound)
    }

    /// The optimistic advantage max_{f̃ ∈ C_t} f̃(x) − f̃(x_r) (POP-BO eq. (24), Lemma 4.1) against the
    /// support point `reference` (POP-BO: x′_t = x_{t−1}).
    pub fn optimistic_advantage(&mut self, candidate: &Candidate, reference: usize) -> Result<ConicSolution> {
        self.check_candidate(candidate)?;
        self.check_reference(reference)?;
        let g = self.advantage_direction(candidate, reference);
        let sol = self.maximise(&g, candidate, "optimistic advantage (POP-BO eq. 24)")?;
        self.record(g, &sol);
        Ok(sol)
    }

    /// sup_{f̃ ∈ C_t} f̃(x) (POP-BO eq. (12), COBOL eq. (38)).
    pub fn upper_bound(&mut self, candidate: &Candidate) -> Result<ConicSolution> {
        self.check_candidate(candidate)?;
        let g = direction(candidate, 1.0);
        self.maximise(&g, candidate, "pointwise upper bound (POP-BO eq. 12)")
    }

    /// inf_{f̃ ∈ C_t} f̃(x) (POP-BO eq. (12), COBOL eq. (39)); `value` is the infimum.
    pub fn lower_bound(&mut self, candidate: &Candidate) -> Result<ConicSolution> {
        self.check_candidate(candidate)?;
        let g = direction(candidate, -1.0);
        let mut sol = self.maximise(&g, candidate, "pointwise lower bound (POP-BO eq. 12)")?;
        sol.value = -sol.value;
        Ok(sol)
    }

    /// The sensitivity of `solution`'s optimal value (from [`ConfidenceSet::optimistic_advantage`],
    /// [`ConfidenceSet::upper_bound`] or [`ConfidenceSet::lower_bound`] at `candidate`) to the
    /// candidate's kernel values. By the envelope theorem the value moves as the objective at the
    /// fixed optimiser (w*, ω*), which depends on x only through l_x = L⁻¹k_x and
    /// ρ_x = √(k(x,x) + ε − ‖l_x‖²):
    ///
    /// ```text
    /// dv = w*ᵀ dl_x + ω* dρ_x = (L⁻ᵀ(w* − ω* l_x/ρ_x))ᵀ dk_x + ω*/(2ρ_x) dk(x,x).
    /// ```
    ///
    /// Valid where the optimiser is unique and ρ_x > 0 (not at a support point), and only when the
    /// candidate's latent-box row is inactive (otherwise an error).
    pub fn kernel_sensitivity(&self, candidate: &Candidate, solution: &ConicSolution) -> Result<KernelSensitivity> {
        self.check_candidate(candidate)?;
        if solution.w.len() != self.layout.n {
            return Err(Error::dims("solution (support size)", self.layout.n, solution.w.len()));
        }
        let rho = candidate.rho();
        if rho <= 1e-10 {
            return Err(Error::invalid(
                "candidate",
                format!("ρ_x = {rho:.2e}: the value is not differentiable at a support point"),
            ));
        }
        if let Some(b) = self.data.latent_box
            && solution.z_candidate.abs() >= b * (1.0 - 1e-6)
        {
            return Err(Error::invalid("candidate", "the latent box is active at the candidate: no envelope gradient"));
        }
        let v = &solution.w - candidate.coordinates() * (solution.omega / rho);
        let d_kx = self.data.l.tr_solve_lower_triangular(&v).ok_or_else(|| {
            Error::solver_failed("triangular solve", SolverStatus::Singular, "the Cholesky factor is singular")
        })?;
        Ok(KernelSensitivity { d_kx, d_kxx: solution.omega / (2.0 * rho) })
    }

    /// Certified bounds (lower, upper) on the optimistic advantage at `candidate` without solving:
    /// the upper bound is B‖g‖ tightened by every cut recorded so far, the lower bound the best value of the known feasible points (−∞ if none
    /// fits the box). See the module documentation for the formulas.
    pub fn advantage_bounds(&self, candidate: &Candidate, reference: usize) -> Result<(f64, f64)> {
        self.check_candidate(candidate)?;
        self.check_reference(reference)?;
        let g = self.advantage_direction(candidate, reference);
        Ok((self.lower_from_feasible(&g, candidate), self.upper_from_cuts(&g)))
    }

    fn upper_from_cuts(&self, g: &DVector<f64>) -> f64 {
        let b = self.data.norm_bound;
        let gnorm = g.norm();
        let mut best = b * gnorm;
        for cut in &self.cuts {
            best = best.min(ball_halfspace_support(g, &cut.u, cut.h, b));
        }
        best
    }

    fn lower_from_feasible(&self, g: &DVector<f64>, c: &Candidate) -> f64 {
        self.feasible.iter().map(|w| self.lower_from_point(g, c, w)).fold(f64::NEG_INFINITY, f64::max)
    }

    /// The lower bound g_wᵀŵ + g_ω ω on h(g) from one feasible ŵ, with the best admissible ω:
    /// ω ∈ [−√(B² − ‖ŵ‖²), √(B² − ‖ŵ‖²)] and, with the latent box b, |l_xᵀŵ + ρ_x ω| ≤ b (−∞ if no ω
    /// fits the box).
    fn lower_from_point(&self, g: &DVector<f64>, c: &Candidate, w: &DVector<f64>) -> f64 {
        let n = self.layout.n;
        let b = self.data.norm_bound;
        let lin = g.rows(0, n).dot(w);
        let room = (b * b - w.norm_squared()).max(0.0).sqrt();
        let (mut lo, mut hi) = (-room, room);
        if let Some(bx) = self.data.latent_box {
            let zw = c.coordinates().dot(w);
            if c.rho() > 0.0 {
                lo = lo.max((-bx - zw) / c.rho());
                hi = hi.min((bx - zw) / c.rho());
            } else if zw.abs() > bx {
                return f64::NEG_INFINITY;
            }
            if lo > hi {
                return f64::NEG_INFINITY;
            }
        }
        lin + g[n] * if g[n] >= 0.0 { hi } else { lo }
    }

    /// argmax over `candidates` of the optimistic advantage against support point `reference`
    /// (POP-BO Alg. 1 line 4), exact up to the solver tolerance, solving only the candidates whose
    /// certified upper bound can still beat the best value found. `reference_candidate` is the
    /// reference point as a candidate (its l_x, ρ_x); with a latent box b it gives the cap
    /// A(x) ≤ b − inf_C f̃(x_r) for every x (one extra program), which ends the search as soon as a
    /// candidate reaches it.
    ///
    /// In the whitened variables the advantage at x is the support function h(g_x) of one convex
    /// set C = {‖p‖ ≤ B, ℓ(w) ≥ ℓ* − β} (∩ the latent box), g_x = (l_x − L[r,:]ᵀ, ρ_x):
    /// * **upper** — C lies in the ball and, ℓ being concave, in the tangent halfspace
    ///   {ℓ(ŵ) + ∇ℓ(ŵ)ᵀ(w − ŵ) ≥ ℓ* − β} at every solved optimum ŵ, where it touches C; so
    ///   h(g) ≤ the support function of {‖p‖ ≤ B} ∩ that halfspace ([`ball_halfspace_support`]),
    ///   and h(g) ≤ B‖g‖ (exact at t = 0). These hold with or without the box.
    /// * **lower** — every known feasible point ŵ (the MLE when the set was built by
    ///   [`ConfidenceSet::new`], and every solved optimum) gives h(g) ≥ g_wᵀŵ + g_ω ω for the best
    ///   admissible ω.
    ///
    /// The first candidate solved is the one with the best lower bound (the last such on exact
    /// ties), then the largest upper bound, until no upper bound exceeds the best exact value by more
    /// than 1e-7·max(|value|, B). Ties between solved values go to the first solved.
    pub fn maximise_advantage(
        &mut self,
        candidates: &[Candidate],
        reference: usize,
        reference_candidate: Option<&Candidate>,
    ) -> Result<AdvantageSearch> {
        if candidates.is_empty() {
            return Err(Error::Empty("candidate list for the optimistic advantage".into()));
        }
        self.check_reference(reference)?;
        for c in candidates {
            self.check_candidate(c)?;
        }
        let n = self.layout.n;
        let b = self.data.norm_bound;
        let threshold = self.threshold;
        let dirs: Vec<DVector<f64>> = candidates.iter().map(|c| self.advantage_direction(c, reference)).collect();
        let mut upper: Vec<f64> = dirs.iter().map(|g| b * g.norm()).collect();
        let mut count = 0;
        let mut cap = f64::INFINITY;
        if let Some(bx) = self.data.latent_box {
            cap = 2.0 * bx;
            if let Some(rc) = reference_candidate {
                cap = cap.min(bx - self.lower_bound(rc)?.value);
                count += 1;
            }
            for u in &mut upper {
                *u = u.min(cap);
            }
        }
        let lower_from = |set: &Self, w: &DVector<f64>| -> Vec<f64> {
            candidates.iter().zip(&dirs).map(|(c, g)| set.lower_from_point(g, c, w)).collect()
        };
        let known_lower: Vec<f64> = dirs.iter().zip(candidates).map(|(g, c)| self.lower_from_feasible(g, c)).collect();
        let mut floor = known_lower.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let first = if floor > f64::NEG_INFINITY {
            (0..candidates.len()).max_by(|&i, &j| known_lower[i].total_cmp(&known_lower[j]))
        } else {
            (0..candidates.len()).max_by(|&i, &j| upper[i].total_cmp(&upper[j]))
        };
        let mut solved = vec![false; candidates.len()];
        let mut best: Option<(usize, ConicSolution)> = None;
        let mut next = first;
        let tol = |v: f64| 1e-7 * v.abs().max(b);
        while let Some(i) = next {
            let sol = self.optimistic_advantage(&candidates[i], reference)?;
            count += 1;
            solved[i] = true;
            // Tangent halfspace of ℓ at the optimum: aᵀw ≥ ℓ* − β − ℓ(ŵ) + aᵀŵ, i.e. uᵀp ≤ c with u = (−a, 0).
            let (ll, a) = self.data.log_likelihood_and_gradient(&sol.w);
            let mut u = DVector::zeros(n + 1);
            u.rows_mut(0, n).copy_from(&(-&a));
            let c = -(threshold - ll + a.dot(&sol.w));
            for (j, g) in dirs.iter().enumerate() {
                if !solved[j] {
                    upper[j] = upper[j].min(ball_halfspace_support(g, &u, c, b) + tol(upper[j]));
                }
            }
            let lows = lower_from(self, &sol.w);
            floor = lows.iter().cloned().fold(floor, f64::max);
            if best.as_ref().is_none_or(|(_, s)| sol.value > s.value) {
                best = Some((i, sol));
            }
            let best_value = best.as_ref().map(|(_, s)| s.value).expect("set above");
            let bar = best_value.max(floor);
            if best_value >= cap - tol(cap) {
                break;
            }
            next = (0..candidates.len())
                .filter(|&j| !solved[j] && upper[j] > bar + tol(bar))
                .max_by(|&x, &y| upper[x].total_cmp(&upper[y]));
        }
        let (i, solution) = best.expect("at least one candidate is solved");
        Ok(AdvantageSearch { best: i, value: solution.value, solution, solved: count })
    }
}

/// (±l_x, ±ρ_x).
fn direction(c: &Candidate, sign: f64) -> DVector<f64> {
    let n = c.coordinates().len();
    let mut g = DVector::zeros(n + 1);
    for j in 0..n {
        g[j] = sign * c.coordinates()[j];
    }
    g[n] = sign * c.rho();
    g
}

/// Support function at g of {‖p‖ ≤ B} ∩ {uᵀp ≤ c}:
/// B‖g‖ if the ball's maximiser Bg/‖g‖ satisfies the halfspace, else cα/‖u‖ + Bπ√(1 − (c/(B‖u‖))²)
/// with α = gᵀu/‖u‖ and π = √(‖g‖² − α²) (maximise over the cap: the optimum lies in the plane of g
/// and u, on the circle where the halfspace cuts the sphere). If the halfspace misses the ball the
/// set is empty and the value is −∞. The certified upper bound of the confidence-set searches.
pub fn ball_halfspace_support(g: &DVector<f64>, u: &DVector<f64>, c: f64, b: f64) -> f64 {
    let gnorm = g.norm();
    let unorm = u.norm();
    if unorm == 0.0 {
        return if c >= 0.0 { b * gnorm } else { f64::NEG_INFINITY };
    }
    if gnorm == 0.0 {
        return if c >= -b * unorm { 0.0 } else { f64::NEG_INFINITY };
    }
    let alpha = g.dot(u) / unorm;
    if b * alpha <= c / unorm * gnorm {
        return b * gnorm;
    }
    let r = c / (b * unorm);
    if r < -1.0 {
        return f64::NEG_INFINITY;
    }
    let perp = (gnorm * gnorm - alpha * alpha).max(0.0).sqrt();
    c * alpha / unorm + b * perp * (1.0 - r * r).max(0.0).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// In 2-D the extreme points of {‖p‖ ≤ B} ∩ {uᵀp ≤ h} are the circle points in the halfspace
        /// and the two chord endpoints; brute force over a fine circle grid plus the endpoints.
        #[test]
        fn ball_halfspace_support_matches_brute_force(
            g0 in -2.0..2.0f64, g1 in -2.0..2.0f64, u0 in -2.0..2.0f64, u1 in -2.0..2.0f64,
            b in 0.1..5.0f64, frac in -0.99..0.99f64,
        ) {
            let g = DVector::from_vec(vec![g0, g1]);
            let u = DVector::from_vec(vec![u0, u1]);
            let unorm = u.norm();
            prop_assume!(unorm > 1e-3 && g.norm() > 1e-3);
            let h = frac * b * unorm;
            let formula = ball_halfspace_support(&g, &u, h, b);
            let (uh, perp) = (&u / unorm, DVector::from_vec(vec![-u1 / unorm, u0 / unorm]));
            let c = h / unorm;
            let half = (b * b - c * c).sqrt();
            let mut brute = f64::NEG_INFINITY;
            for p in [&uh * c + &perp * half, &uh * c - &perp * half] {
                brute = brute.max(g.dot(&p));
            }
            let m = 20000;
            for k in 0..m {
                let th = std::f64::consts::TAU * k as f64 / m as f64;
                let p = DVector::from_vec(vec![b * th.cos(), b * th.sin()]);
                if u.dot(&p) <= h {
                    brute = brute.max(g.dot(&p));
                }
            }
            // Grid step 2π/20000: the arc maximum is missed by at most B‖g‖(Δθ)²/2 < 1e-6.
            prop_assert!(formula >= brute - 1e-12, "bound {formula} below a feasible value {brute}");
            prop_assert!(formula <= brute + 1e-6 * (1.0 + b * g.norm()), "bound {formula} vs max {brute}");
        }
    }

    #[test]
    fn ball_halfspace_support_is_minus_infinity_when_the_halfspace_misses_the_ball() {
        let e1 = DVector::from_vec(vec![1.0, 0.0]);
        assert_eq!(ball_halfspace_support(&e1, &e1, -3.0, 2.0), f64::NEG_INFINITY);
        // u = 0: the whole ball (c ≥ 0) or nothing.
        let zero = DVector::zeros(2);
        assert_eq!(ball_halfspace_support(&e1, &zero, 0.0, 2.0), 2.0);
        assert_eq!(ball_halfspace_support(&e1, &zero, -1.0, 2.0), f64::NEG_INFINITY);
    }
}
