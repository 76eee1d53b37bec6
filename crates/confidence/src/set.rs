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
use crate::curvature::CurvatureOuter;
use crate::dense::{Directions, Objective};
use crate::dual;
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
    /// The solve.
    pub info: SolveInfo,
    /// A certified enclosure (lower, upper) of the optimal value, rounding included (the dense
    /// path, [`crate::SolveMethod::Dense`]); `None` for clarabel's solutions, whose value is
    /// accurate to its tolerance.
    pub certified: Option<(f64, f64)>,
}

/// How the programs of one confidence set were solved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SolveCounts {
    /// Programs certified by the fast path ([`crate::SolverChoice::Dense`]).
    pub dense: usize,
    /// Programs the fast path could not certify, solved by clarabel instead.
    pub fallback: usize,
    /// Programs solved by clarabel directly: the fast path is off ([`crate::SolverChoice::Clarabel`])
    /// or gave up on the set.
    pub clarabel: usize,
    /// Programs of a screened search the fast path stopped early, once a dual point certified that
    /// the candidate cannot win ([`Screened::Beyond`]).
    pub stopped: usize,
}

/// The answer of a program asked with a level ([`ConfidenceSet::upper_bound_screened`],
/// [`ConfidenceSet::lower_bound_screened`]): a search that only needs to know whether a candidate
/// can beat its incumbent lets the program stop as soon as it certifies that it cannot.
#[derive(Debug, Clone, PartialEq)]
pub enum Screened {
    /// Solved within the tolerance.
    Solved(ConicSolution),
    /// Stopped early with a certified bound on the optimal value beyond the level: at most the
    /// level for an upper bound, at least it for a lower bound (weak duality at one dual point of
    /// the fast path, rounding included).
    Beyond(f64),
}

/// One program's outcome inside the set, with the candidate's box multipliers (μ₊, μ₋).
enum Maximised {
    Solved(ConicSolution, (f64, f64)),
    /// The fast path stopped at the caller's level: max ≤ `upper` (certified).
    Stopped {
        upper: f64,
        duals: (f64, f64),
    },
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

/// A cut of the common constraint set C′ = {‖(w, ω)‖ ≤ B, ℓ(w) ≥ ℓ* − β} (∩ the support rows of
/// the latent box): the halfspace {p : uᵀp ≤ h} ⊇ C′. `mu` is the multiplier of the program that
/// produced it (0 for plain cuts), the starting guess of [`lagrangian_bound`].
#[derive(Debug, Clone)]
struct Halfspace {
    u: DVector<f64>,
    unorm: f64,
    h: f64,
    mu: f64,
}

impl Halfspace {
    fn new(u: DVector<f64>, h: f64, mu: f64) -> Self {
        Self { unorm: u.norm(), u, h, mu }
    }

    fn plain(u: DVector<f64>, h: f64) -> Self {
        Self::new(u, h, 0.0)
    }
}

/// The inner products of one program's direction g with its candidate row c = (l_x, ρ_x).
#[derive(Debug, Clone, Copy)]
struct DirectionDots {
    gg: f64,
    gc: f64,
    cc: f64,
}

impl DirectionDots {
    /// ‖g‖², and gᵀc and ‖c‖² when a latent box prices the candidate's rows (else zero: unused).
    fn new(g: &DVector<f64>, c: &Candidate, latent_box: bool) -> Self {
        if !latent_box {
            return Self { gg: g.norm_squared(), gc: 0.0, cc: 0.0 };
        }
        let n = c.coordinates().len();
        let gc = g.rows(0, n).dot(c.coordinates()) + g[n] * c.rho();
        Self { gg: g.norm_squared(), gc, cc: c.coordinates().norm_squared() + c.rho() * c.rho() }
    }
}

/// One cut {uᵀp ≤ h} seen from a direction g and candidate row c: gᵀu, cᵀu, ‖u‖, h, and the
/// multiplier of the cut's own program.
#[derive(Debug, Clone, Copy)]
struct CutDots {
    gu: f64,
    cu: f64,
    unorm: f64,
    h: f64,
    mu: f64,
}

/// A certified upper bound on the program h(g) = max {gᵀp : p ∈ C′, |cᵀp| ≤ `latent_box`} from the
/// halfspace {uᵀp ≤ h} ⊇ C′ (u = 0, h = 0: the ball alone). Without the box it is the support
/// function S of {‖p‖ ≤ B} ∩ the halfspace at g ([`ball_halfspace_support`]). With the box, weak
/// duality prices the candidate's box rows: for every μ (μ > 0 the row cᵀp ≤ b, μ < 0 the row
/// −cᵀp ≤ b), h(g) ≤ |μ|·b + S(g − μc), a convex function of μ; it is minimised by golden-section
/// search from `mu_hint` (the multiplier of the cut's own program), and every value evaluated is a
/// valid bound, so the result is certified however far the search gets.
fn lagrangian_bound(g: &DirectionDots, cut: CutDots, b: f64, latent_box: Option<f64>) -> f64 {
    let CutDots { gu, cu, unorm, h, mu: mu_hint } = cut;
    let at = |mu: f64| {
        let dnorm = (g.gg - 2.0 * mu * g.gc + mu * mu * g.cc).max(0.0).sqrt();
        support_from_dots(dnorm, gu - mu * cu, unorm, h, b)
    };
    let Some(bx) = latent_box else {
        return at(0.0);
    };
    let phi = |mu: f64| mu.abs() * bx + at(mu);
    let mut best = phi(0.0).min(phi(mu_hint));
    if g.cc == 0.0 {
        return best;
    }
    let (mut lo, mut hi) = (mu_hint.min(0.0) - 1.0, mu_hint.max(1.0) + 1.0);
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    let (mut x1, mut x2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
    let (mut f1, mut f2) = (phi(x1), phi(x2));
    for _ in 0..40 {
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = phi(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = phi(x2);
        }
        best = best.min(f1).min(f2);
    }
    best
}

/// What a batch of pointwise bounds is for ([`ConfidenceSet::pointwise_bounds`]): only the programs
/// that can change this decision are solved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BoundsQuestion {
    /// Every sup f̃(x) and inf f̃(x) exactly (2 programs per point).
    All,
    /// Whether the width sup f̃(x) − inf f̃(x) exceeds the threshold, at every point (COBOL's
    /// handover test g_upper − g_lower > g_thr).
    WidthAbove(f64),
    /// Which point has the largest sup f̃(x) (an optimistic argmax).
    LargestUpper,
    /// Which point has the smallest inf f̃(x) (a pessimistic argmin).
    SmallestLower,
}

/// A certified enclosure lower ≤ v ≤ upper of one optimal value (lower = upper = v once solved,
/// up to the solver tolerance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueBounds {
    /// The lower end.
    pub lower: f64,
    /// The upper end.
    pub upper: f64,
    /// Whether the program was solved (then both ends are its optimal value).
    pub solved: bool,
}

impl ValueBounds {
    /// The enclosure of a solved program: its certificate (the dense path), or its value.
    fn solved(sol: &ConicSolution) -> Self {
        let (lower, upper) = sol.certified.unwrap_or((sol.value, sol.value));
        Self { lower, upper, solved: true }
    }

    /// The midpoint (the value itself once solved).
    pub fn mid(&self) -> f64 {
        0.5 * (self.lower + self.upper)
    }
}

/// Enclosures of sup f̃(x) and inf f̃(x) over the confidence set at one point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointBounds {
    /// sup_{f̃ ∈ C} f̃(x) (POP-BO eq. (12), COBOL's g_upper).
    pub sup: ValueBounds,
    /// inf_{f̃ ∈ C} f̃(x) (COBOL's g_lower).
    pub inf: ValueBounds,
}

/// The answer of [`ConfidenceSet::pointwise_bounds`].
#[derive(Debug, Clone, PartialEq)]
pub struct BatchBounds {
    /// One enclosure pair per point, in the order given.
    pub points: Vec<PointBounds>,
    /// For [`BoundsQuestion::WidthAbove`]: whether each point's width exceeds the threshold.
    pub wide: Option<Vec<bool>>,
    /// For [`BoundsQuestion::LargestUpper`] / [`BoundsQuestion::SmallestLower`]: the position of
    /// the maximiser / minimiser (its side is solved exactly).
    pub best: Option<usize>,
    /// How many conic programs were solved.
    pub solved: usize,
}

/// The result of a screened argmax of h(g_i) over directions g_i (the one search loop behind
/// [`ConfidenceSet::maximise_advantage`] and [`ConfidenceSet::pointwise_bounds`]).
struct ScreenedMax {
    best: usize,
    solution: ConicSolution,
    /// Certified enclosure of h(g_i) at every candidate (exact where solved).
    bounds: Vec<ValueBounds>,
    solved: usize,
}

/// Which program a direction belongs to (for the solver's error messages).
#[derive(Clone, Copy)]
enum Program {
    Advantage,
    Upper,
    NegLower,
}

impl Program {
    fn name(self) -> &'static str {
        match self {
            Program::Advantage => "optimistic advantage (POP-BO eq. 24)",
            Program::Upper => "pointwise upper bound (POP-BO eq. 12)",
            Program::NegLower => "pointwise lower bound (POP-BO eq. 12)",
        }
    }
}

/// A likelihood-ratio confidence set with its clarabel solver, ready to be queried at many candidates.
pub struct ConfidenceSet {
    data: ConicData,
    layout: Layout,
    /// clarabel's solver with the set's data and the positions of the candidate's box rows in its
    /// constraint matrix, built on the first program the fast path does not certify (with many
    /// labels, building it — the KKT matrix and its ordering — took 0.1–0.2 s of a set that
    /// clarabel never solved). A solver built later from the same data gives the same results.
    solver: Option<(DefaultSolver<f64>, Vec<usize>)>,
    options: SolverOptions,
    threshold: f64,
    cuts: Vec<Halfspace>,
    feasible: Vec<DVector<f64>>,
    /// The quadratic outer approximation ([`crate::curvature`]), built on first use (`None` before;
    /// `Some(None)` when the set has no observation terms).
    curvature: Option<Option<CurvatureOuter>>,
    /// Whether the dense path runs first ([`crate::ConfidenceConfig::solver`]).
    dense: bool,
    /// The dense programs' direction matrix, built on first use.
    directions: Option<Directions>,
    /// The fast path's last multipliers over ‖g‖, the next program's start ([`crate::dual::solve`]):
    /// results depend on the order of the programs solved in this set (deterministically), within
    /// the tolerance.
    warm: Option<(f64, f64)>,
    counts: SolveCounts,
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
        let options = problem.config().solver_options(problem.config().tolerance);
        let layout = conic::layout(&data, true);
        Ok(Self {
            data,
            layout,
            solver: None,
            options,
            threshold,
            cuts: Vec::new(),
            feasible: Vec::new(),
            curvature: None,
            dense: problem.config().uses_fast_path(),
            directions: None,
            warm: None,
            counts: SolveCounts::default(),
        })
    }

    /// How the programs solved so far were solved (dense, fallback to clarabel, clarabel only).
    pub fn solve_counts(&self) -> SolveCounts {
        self.counts
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

    /// Solves max gᵀ(w, ω) over the set, with the candidate box rows of `c`; also returns the
    /// multipliers (μ₊, μ₋) ≥ 0 of the candidate's box rows f̃(x) ≤ b and
    /// −f̃(x) ≤ b (zero without the latent box).
    /// With `stop_at`, the fast path may stop as soon as it certifies max ≤ `stop_at`
    /// ([`Maximised::Stopped`]; clarabel always solves to the end).
    fn maximise(&mut self, g: &DVector<f64>, c: &Candidate, problem: &str, stop_at: Option<f64>) -> Result<Maximised> {
        // The fast path gives up on a set where it mostly fails (measured: the latent box's
        // programs on nearly collinear support rows), so that a failing attempt does not double the
        // cost of every program; deterministic, so the same seed gives the same results.
        let c_ = &self.counts;
        let dense_worth_trying = !(c_.fallback >= 4 && c_.fallback > 2 * c_.dense);
        if self.dense && !dense_worth_trying {
            self.counts.clarabel += 1;
        } else if self.dense {
            if let Some(found) = self.maximise_dense(g, c, stop_at) {
                match found {
                    Maximised::Solved(..) => self.counts.dense += 1,
                    Maximised::Stopped { .. } => self.counts.stopped += 1,
                }
                return Ok(found);
            }
            self.counts.fallback += 1;
        } else {
            self.counts.clarabel += 1;
        }
        if self.solver.is_none() {
            let asm = conic::assemble(&self.data, true, Some(self.data.constant - self.threshold));
            let zero = vec![0.0; asm.layout.n_vars()];
            let solver = conic::new_solver("confidence set", &zero, &asm.a, &asm.b, &asm.cones, &self.options)?;
            let mut box_positions = Vec::new();
            if let Some(row) = asm.layout.candidate_box_row {
                for r in [row, row + 1] {
                    for j in 0..=asm.layout.n {
                        box_positions.push(conic::nz_position(&asm.a, r, j).expect("structural box entry"));
                    }
                }
            }
            self.layout = asm.layout;
            self.solver = Some((solver, box_positions));
        }
        // Out of `self` for the solve (the retry may replace it), and back whatever the outcome.
        let mut slot = self.solver.take().expect("built above");
        let out = self.maximise_clarabel(&mut slot, g, c, problem);
        self.solver = Some(slot);
        out
    }

    /// The clarabel part of [`Self::maximise`], with the set's solver and box positions `slot`.
    fn maximise_clarabel(
        &mut self,
        slot: &mut (DefaultSolver<f64>, Vec<usize>),
        g: &DVector<f64>,
        c: &Candidate,
        problem: &str,
    ) -> Result<Maximised> {
        let n = self.layout.n;
        let mut q = vec![0.0; self.layout.n_vars()];
        for j in 0..=n {
            q[j] = -g[j];
        }
        let fail = |e: clarabel::solver::DataUpdateError| {
            Error::solver_failed(format!("clarabel ({problem})"), SolverStatus::DataUpdateFailed(e.to_string()), "")
        };
        let (solver, box_positions) = (&mut slot.0, &slot.1);
        solver.update_q(&q).map_err(fail)?;
        let mut box_values = Vec::new();
        if !box_positions.is_empty() {
            // Rows −A·x + s = b: the +z row carries (l_x, ρ_x), the −z row its negative.
            box_values.reserve(2 * (n + 1));
            for sign in [1.0, -1.0] {
                box_values.extend(c.coordinates().iter().map(|v| sign * v));
                box_values.push(sign * c.rho());
            }
            solver.update_A(&(box_positions.clone(), box_values.clone())).map_err(fail)?;
        }
        let info = match conic::solve_checked(solver, problem, self.options.acceptable_tolerance) {
            Ok(info) => info,
            Err(first) if !self.options.cautious && conic::retry_worthy(solver.solution.status) => {
                // Numerical trouble: the same program with shorter steps; the cautious solver is
                // kept for the set's later programs.
                let asm = conic::assemble(&self.data, true, Some(self.data.constant - self.threshold));
                let cautious = SolverOptions { cautious: true, ..self.options };
                let mut solver = conic::new_solver(problem, &q, &asm.a, &asm.b, &asm.cones, &cautious)?;
                if !box_values.is_empty() {
                    solver.update_A(&(box_positions.clone(), box_values)).map_err(fail)?;
                }
                let mut info = conic::solve_checked(&mut solver, problem, self.options.acceptable_tolerance)
                    .map_err(|second| conic::both_failed(first, second))?;
                slot.0 = solver;
                self.options = cautious;
                info.retried = true;
                info
            }
            Err(e) => return Err(e),
        };
        let x = &slot.0.solution.x;
        let w = DVector::from_column_slice(&x[..n]);
        let omega = x[n];
        let value = g.rows(0, n).dot(&w) + g[n] * omega;
        let z = &self.data.l * &w;
        let z_candidate = c.coordinates().dot(&w) + c.rho() * omega;
        let duals = match self.layout.candidate_box_row {
            Some(row) => {
                let d = &slot.0.solution.z;
                (d[row].max(0.0), d[row + 1].max(0.0))
            }
            None => (0.0, 0.0),
        };
        Ok(Maximised::Solved(ConicSolution { value, z, z_candidate, w, omega, info, certified: None }, duals))
    }

    /// [`Self::maximise`] by the certified dense interior-point method ([`crate::dense`]), started
    /// inside the set near the MLE (w = 0 for a set built from a threshold); `None` when it cannot
    /// certify the optimum within the tolerance.
    fn maximise_dense(&mut self, g: &DVector<f64>, c: &Candidate, stop_at: Option<f64>) -> Option<Maximised> {
        let n = self.layout.n;
        let clock = std::time::Instant::now();
        let directions = self.directions.get_or_insert_with(|| Directions::new(&self.data));
        let centre = self.feasible.first().cloned().unwrap_or_else(|| DVector::zeros(n));
        let mut row = DVector::zeros(n + 1);
        row.rows_mut(0, n).copy_from(c.coordinates());
        row[n] = c.rho();
        let objective = Objective::Linear(g);
        let sol = dual::solve(
            &self.data,
            directions,
            objective,
            Some(self.threshold),
            Some(row),
            &centre,
            self.options.tolerance,
            self.warm,
            stop_at,
            None,
        )?;
        if sol.lower == f64::NEG_INFINITY {
            return Some(Maximised::Stopped { upper: sol.upper, duals: sol.box_duals });
        }
        if sol.scaled_multipliers.is_some() {
            self.warm = sol.scaled_multipliers;
        }
        let w = sol.p.rows(0, n).clone_owned();
        let omega = sol.p[n];
        let value = g.rows(0, n).dot(&w) + g[n] * omega;
        let z = &self.data.l * &w;
        let z_candidate = c.coordinates().dot(&w) + c.rho() * omega;
        let info = SolveInfo::dense(&sol, clock.elapsed().as_secs_f64());
        let solution = ConicSolution { value, z, z_candidate, w, omega, info, certified: Some((sol.lower, sol.upper)) };
        Some(Maximised::Solved(solution, sol.box_duals))
    }

    /// Solves the program of direction `g` at candidate `c` and records its cuts and feasible point.
    fn solve_recorded(&mut self, g: &DVector<f64>, c: &Candidate, program: Program) -> Result<ConicSolution> {
        match self.solve_screened(g, c, program, None)? {
            Ok(sol) => Ok(sol),
            Err(_) => unreachable!("a program without a level is never stopped"),
        }
    }

    /// [`Self::solve_recorded`] with a level: `Err(bound)` when the fast path stopped with the
    /// certified max ≤ bound ≤ `stop_at` (its dual point's cut is recorded; it has no feasible
    /// point).
    fn solve_screened(
        &mut self,
        g: &DVector<f64>,
        c: &Candidate,
        program: Program,
        stop_at: Option<f64>,
    ) -> Result<std::result::Result<ConicSolution, f64>> {
        match self.maximise(g, c, program.name(), stop_at)? {
            Maximised::Solved(sol, duals) => {
                self.record(g.clone(), c, &sol, duals);
                Ok(Ok(sol))
            }
            Maximised::Stopped { upper, duals } => {
                if let Some(cut) = self.dual_cut(g.clone(), c, upper, duals) {
                    self.cuts.push(cut);
                }
                Ok(Err(upper))
            }
        }
    }

    /// The cut of a certified dual bound `upper` ≥ max gᵀp over C′ ∩ the candidate's box rows,
    /// priced by (μ₊, μ₋) = `duals` (module docs of `crate::dense`): the same bound less
    /// (μ₊ + μ₋)b bounds max (g − (μ₊ − μ₋)c)ᵀp over C′, whether or not the row is active.
    fn dual_cut(&self, g: DVector<f64>, c: &Candidate, upper: f64, duals: (f64, f64)) -> Option<Halfspace> {
        let n = self.layout.n;
        let (mp, mm) = duals;
        let bx = self.data.latent_box.unwrap_or(0.0);
        let (shift, offset) = if self.data.latent_box.is_some() { (mp - mm, (mp + mm) * bx) } else { (0.0, 0.0) };
        let mut u = g;
        if shift != 0.0 {
            for j in 0..n {
                u[j] -= shift * c.coordinates()[j];
            }
            u[n] -= shift * c.rho();
        }
        let h = upper - offset;
        // Rounding of the subtraction (the certificate covers its own evaluation).
        (u.norm() > 0.0 && h.is_finite())
            .then(|| Halfspace::new(u, h + 4.0 * f64::EPSILON * (upper.abs() + offset.abs()), shift))
    }

    /// Records a solved direction as a pruning cut. Without an active candidate box row the value
    /// is the support function of the common set C′ at g: the cut gᵀp ≤ h(g). With an active row,
    /// the program's box multipliers (μ₊, μ₋) give, by strong duality,
    /// h_{C′}(g − (μ₊ − μ₋)c) = h(g) − (μ₊ + μ₋)b: the cut (g − (μ₊ − μ₋)c)ᵀp ≤ that, a halfspace
    /// of C′ that bounds every candidate's program through [`lagrangian_bound`]. (On Table 2's
    /// Levy13 the advantage is a plateau where the box is active at most candidates; without these
    /// cuts nothing there was screened.)
    fn record(&mut self, g: DVector<f64>, c: &Candidate, sol: &ConicSolution, duals: (f64, f64)) {
        let box_active = match self.data.latent_box {
            None => false,
            Some(b) => sol.z_candidate.abs() >= b * (1.0 - 1e-6),
        };
        let n = self.layout.n;
        if let Some((_, upper)) = sol.certified {
            // The dense certificate bounds the Lagrangian with the candidate's box rows priced by
            // its multipliers: a certified cut whether or not the row is active.
            if let Some(cut) = self.dual_cut(g, c, upper, duals) {
                self.cuts.push(cut);
            }
        } else if !box_active {
            if g.norm() > 0.0 {
                let h = sol.value + self.slack(sol.value);
                self.cuts.push(Halfspace::plain(g, h));
            }
        } else if let Some(b) = self.data.latent_box {
            let (mp, mm) = duals;
            let shift = mp - mm;
            let offset = (mp + mm) * b;
            let mut u = g;
            for j in 0..n {
                u[j] -= shift * c.coordinates()[j];
            }
            u[n] -= shift * c.rho();
            if u.norm() > 0.0 && shift.is_finite() && offset.is_finite() {
                let h = sol.value - offset;
                // The multipliers are accurate to the solver tolerance: a relative slack on them.
                let h = h + self.slack(h) + self.slack(offset);
                self.cuts.push(Halfspace::new(u, h, shift));
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
        Some(Halfspace::plain(u, h + self.slack(h)))
    }

    /// The largest violation uᵀp − h over the recorded cuts and the given points p = (w, ω) of the
    /// common set (each cut must contain every such point).
    #[cfg(test)]
    pub(crate) fn max_cut_violation(&self, points: &[DVector<f64>]) -> f64 {
        let mut worst = f64::NEG_INFINITY;
        for cut in &self.cuts {
            for p in points {
                worst = worst.max(cut.u.dot(p) - cut.h);
            }
        }
        worst
    }

    /// How many cuts are recorded (for tests).
    #[cfg(test)]
    pub(crate) fn cut_count(&self) -> usize {
        self.cuts.len()
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
        self.solve_recorded(&g, candidate, Program::Advantage)
    }

    /// sup_{f̃ ∈ C_t} f̃(x) (POP-BO eq. (12), COBOL eq. (38)).
    pub fn upper_bound(&mut self, candidate: &Candidate) -> Result<ConicSolution> {
        self.check_candidate(candidate)?;
        let g = direction(candidate, 1.0);
        self.solve_recorded(&g, candidate, Program::Upper)
    }

    /// [`Self::upper_bound`] for a search that only needs sup f̃(x) if it may exceed `level`: the
    /// program may stop early with a certified bound sup ≤ bound ≤ `level` ([`Screened::Beyond`];
    /// the fast path only, clarabel solves to the end). Every stop records a cut like a solve.
    pub fn upper_bound_screened(&mut self, candidate: &Candidate, level: f64) -> Result<Screened> {
        self.check_candidate(candidate)?;
        let g = direction(candidate, 1.0);
        Ok(match self.solve_screened(&g, candidate, Program::Upper, Some(level))? {
            Ok(sol) => Screened::Solved(sol),
            Err(bound) => Screened::Beyond(bound),
        })
    }

    /// [`Self::lower_bound`] for a search that only needs inf f̃(x) if it may be below `level`:
    /// the program may stop early with a certified bound inf ≥ bound ≥ `level`
    /// ([`Screened::Beyond`]).
    pub fn lower_bound_screened(&mut self, candidate: &Candidate, level: f64) -> Result<Screened> {
        self.check_candidate(candidate)?;
        let g = direction(candidate, -1.0);
        Ok(match self.solve_screened(&g, candidate, Program::NegLower, Some(-level))? {
            Ok(mut sol) => {
                sol.value = -sol.value;
                sol.certified = sol.certified.map(|(lo, hi)| (-hi, -lo));
                Screened::Solved(sol)
            }
            Err(bound) => Screened::Beyond(-bound),
        })
    }

    /// inf_{f̃ ∈ C_t} f̃(x) (POP-BO eq. (12), COBOL eq. (39)); `value` is the infimum.
    pub fn lower_bound(&mut self, candidate: &Candidate) -> Result<ConicSolution> {
        self.check_candidate(candidate)?;
        let g = direction(candidate, -1.0);
        let mut sol = self.solve_recorded(&g, candidate, Program::NegLower)?;
        sol.value = -sol.value;
        sol.certified = sol.certified.map(|(lo, hi)| (-hi, -lo));
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
        Ok((self.lower_from_feasible(&g, candidate), self.upper_from_cuts(&g, candidate, 0)))
    }

    /// B‖g‖ tightened by the cuts recorded from position `from` on (0: all of them).
    fn upper_from_cuts(&self, g: &DVector<f64>, c: &Candidate, from: usize) -> f64 {
        let dots = DirectionDots::new(g, c, self.data.latent_box.is_some());
        self.upper_with_dots(g, c, &dots, from)
    }

    /// [`Self::upper_from_cuts`] with the direction's inner products computed once by the caller
    /// (the screened search reuses them after every solve).
    fn upper_with_dots(&self, g: &DVector<f64>, c: &Candidate, dots: &DirectionDots, from: usize) -> f64 {
        let b = self.data.norm_bound;
        let bx = self.data.latent_box;
        let mut best = if from == 0 {
            lagrangian_bound(dots, CutDots { gu: 0.0, cu: 0.0, unorm: 0.0, h: 0.0, mu: 0.0 }, b, bx)
        } else {
            f64::INFINITY
        };
        let n = self.layout.n;
        for cut in &self.cuts[from..] {
            let gu = g.dot(&cut.u);
            let cu = if bx.is_some() { cut.u.rows(0, n).dot(c.coordinates()) + cut.u[n] * c.rho() } else { 0.0 };
            best = best.min(lagrangian_bound(dots, CutDots { gu, cu, unorm: cut.unorm, h: cut.h, mu: cut.mu }, b, bx));
        }
        best
    }

    /// Certified enclosures of sup f̃(x) and inf f̃(x) at `candidate` from the cuts and feasible
    /// points known so far, without solving.
    pub fn cheap_pointwise_bounds(&self, candidate: &Candidate) -> Result<PointBounds> {
        self.check_candidate(candidate)?;
        Ok(self.cheap_point(candidate))
    }

    fn cheap_point(&self, c: &Candidate) -> PointBounds {
        let (up, down) = (direction(c, 1.0), direction(c, -1.0));
        let sup = ValueBounds {
            lower: self.lower_from_feasible(&up, c),
            upper: self.cap_point(self.upper_from_cuts(&up, c, 0)),
            solved: false,
        };
        let inf = ValueBounds {
            lower: -self.cap_point(self.upper_from_cuts(&down, c, 0)),
            upper: -self.lower_from_feasible(&down, c),
            solved: false,
        };
        PointBounds { sup, inf }
    }

    /// Certified bounds (inf f̃(x) ≥ lower, sup f̃(x) ≤ upper) from the quadratic outer
    /// approximation of the likelihood constraint ([`crate::curvature`]), capped by the latent box.
    /// Unlike the cuts, they keep the curvature of ℓ, so they certify points far from every solved
    /// one where many observations pin f̃ down. The first call builds the outer set (an O(n³)
    /// eigendecomposition, ≈ 20 ms at 215 support points, a tenth of one program); each call is then O(n²) plus a 2-D Newton
    /// search of O(n) steps. Centred at the MLE (at w = 0 for a set built from a threshold).
    pub fn curvature_pointwise_bounds(&mut self, candidate: &Candidate) -> Result<(f64, f64)> {
        self.check_candidate(candidate)?;
        if self.curvature.is_none() {
            let centre = self.feasible.first().cloned().unwrap_or_else(|| DVector::zeros(self.layout.n));
            self.curvature = Some(CurvatureOuter::new(&self.data, &centre, self.threshold));
        }
        let Some(Some(outer)) = &self.curvature else {
            return Ok((f64::NEG_INFINITY, f64::INFINITY));
        };
        let l = candidate.coordinates();
        let sup = outer.upper(l, candidate.rho());
        let neg_inf = outer.upper(&(-l), -candidate.rho());
        // The floating-point error of the O(n) sums (a relative 10⁻¹² of their scale, B‖g‖) is
        // covered by the usual slack.
        let (sup, neg_inf) = (sup + self.slack(sup), neg_inf + self.slack(neg_inf));
        Ok((-self.cap_point(neg_inf), self.cap_point(sup)))
    }

    /// With the latent box b, |f̃(x)| ≤ b caps every pointwise value.
    fn cap_point(&self, v: f64) -> f64 {
        match self.data.latent_box {
            Some(b) => v.min(b),
            None => v,
        }
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
    ///   {ℓ(ŵ) + ∇ℓ(ŵ)ᵀ(w − ŵ) ≥ ℓ* − β} at every solved optimum ŵ, where it touches C, and in the
    ///   halfspace of every solved direction (g_sᵀp ≤ h(g_s); with the candidate's box row
    ///   active, the Lagrangian cut of its box multipliers); so h(g) ≤ the support function of
    ///   {‖p‖ ≤ B} ∩ each halfspace ([`ball_halfspace_support`]), and h(g) ≤ B‖g‖ (exact at
    ///   t = 0). With the box, the candidate's own box rows are priced in by weak duality
    ///   (|μ|b + that support function at g − μc, minimised over μ).
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
        let dirs: Vec<DVector<f64>> = candidates.iter().map(|c| self.advantage_direction(c, reference)).collect();
        let mut count = 0;
        let mut cap = f64::INFINITY;
        if let Some(bx) = self.data.latent_box {
            cap = 2.0 * bx;
            if let Some(rc) = reference_candidate {
                cap = cap.min(bx - self.lower_bound(rc)?.value);
                count += 1;
            }
        }
        let search = self.screened_max(&dirs, candidates, cap, Program::Advantage)?;
        Ok(AdvantageSearch {
            best: search.best,
            value: search.solution.value,
            solution: search.solution,
            solved: count + search.solved,
        })
    }

    /// The screened argmax of h(g_i) over directions `dirs` at `candidates` (each at most `cap`):
    /// the loop documented at [`ConfidenceSet::maximise_advantage`]. Every solve records its cuts,
    /// which tighten the upper bounds of the unsolved candidates at once.
    fn screened_max(
        &mut self,
        dirs: &[DVector<f64>],
        candidates: &[Candidate],
        cap: f64,
        program: Program,
    ) -> Result<ScreenedMax> {
        let b = self.data.norm_bound;
        let with_box = self.data.latent_box.is_some();
        let dots: Vec<DirectionDots> =
            dirs.iter().zip(candidates).map(|(g, c)| DirectionDots::new(g, c, with_box)).collect();
        let mut upper: Vec<f64> =
            (0..dirs.len()).map(|j| self.upper_with_dots(&dirs[j], &candidates[j], &dots[j], 0).min(cap)).collect();
        let mut lower: Vec<f64> = dirs.iter().zip(candidates).map(|(g, c)| self.lower_from_feasible(g, c)).collect();
        let mut floor = lower.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let first = if floor > f64::NEG_INFINITY {
            (0..candidates.len()).max_by(|&i, &j| lower[i].total_cmp(&lower[j]))
        } else {
            (0..candidates.len()).max_by(|&i, &j| upper[i].total_cmp(&upper[j]))
        };
        let mut solved = vec![false; candidates.len()];
        let mut best: Option<(usize, ConicSolution)> = None;
        let mut next = first;
        let mut count = 0;
        let tol = |v: f64| 1e-7 * v.abs().max(b);
        while let Some(i) = next {
            let known_cuts = self.cuts.len();
            let known_points = self.feasible.len();
            let sol = self.solve_recorded(&dirs[i], &candidates[i], program)?;
            count += 1;
            solved[i] = true;
            let (lo, hi) = sol.certified.unwrap_or((sol.value, sol.value));
            upper[i] = hi;
            lower[i] = lo;
            for (j, (g, c)) in dirs.iter().zip(candidates).enumerate() {
                if !solved[j] {
                    upper[j] = upper[j].min(self.upper_with_dots(g, c, &dots[j], known_cuts) + tol(upper[j]));
                    for w in &self.feasible[known_points..] {
                        lower[j] = lower[j].max(self.lower_from_point(g, c, w));
                    }
                    floor = floor.max(lower[j]);
                }
            }
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
        let (best, solution) = best.expect("at least one candidate is solved");
        let bounds = (0..candidates.len())
            .map(|j| {
                if solved[j] {
                    ValueBounds { lower: lower[j], upper: upper[j], solved: true }
                } else {
                    ValueBounds { lower: lower[j], upper: upper[j], solved: false }
                }
            })
            .collect();
        Ok(ScreenedMax { best, solution, bounds, solved: count })
    }

    /// sup f̃(x) and inf f̃(x) over the set at a batch of points (COBOL's g_upper and g_lower),
    /// solving only the programs that can change the decision `question` asks:
    ///
    /// * every point starts from certified cheap enclosures: the feasible points known (the MLE,
    ///   earlier optima) bound sup from below and inf from above; B‖(l_x, ρ_x)‖ tightened by every
    ///   recorded cut (solved directions, likelihood tangents, Lagrangian cuts of the latent box)
    ///   bounds sup from above and inf from below, and |f̃(x)| ≤ b with a latent box;
    /// * [`BoundsQuestion::WidthAbove`]: a point is decided when its width enclosure
    ///   [sup.lower − inf.upper, sup.upper − inf.lower] lies on one side of the threshold;
    ///   otherwise the side with the wider enclosure is solved, and the point's enclosures are
    ///   recomputed from the cuts known then (each solve tightens all later points);
    /// * [`BoundsQuestion::LargestUpper`] / [`BoundsQuestion::SmallestLower`]: the screened argmax of
    ///   [`ConfidenceSet::maximise_advantage`] over the directions ±(l_x, ρ_x);
    /// * [`BoundsQuestion::All`]: both programs at every point.
    ///
    /// The returned enclosures contain the exact values (up to the solver tolerance) at every
    /// point, solved or not, so a point that was not solved provably could not change the answer.
    /// One solver and one factorisation of the set serve the whole batch (only the objective and
    /// the candidate's box rows change between programs).
    pub fn pointwise_bounds(&mut self, candidates: &[Candidate], question: BoundsQuestion) -> Result<BatchBounds> {
        for c in candidates {
            self.check_candidate(c)?;
        }
        if let BoundsQuestion::WidthAbove(t) = question
            && !t.is_finite()
        {
            return Err(Error::invalid("threshold", format!("the width threshold must be finite, got {t}")));
        }
        match question {
            BoundsQuestion::All => {
                let mut points = Vec::with_capacity(candidates.len());
                for c in candidates {
                    let sup = ValueBounds::solved(&self.upper_bound(c)?);
                    let inf = ValueBounds::solved(&self.lower_bound(c)?);
                    points.push(PointBounds { sup, inf });
                }
                Ok(BatchBounds { points, wide: None, best: None, solved: 2 * candidates.len() })
            }
            BoundsQuestion::LargestUpper | BoundsQuestion::SmallestLower => {
                if candidates.is_empty() {
                    return Err(Error::Empty("point list for the pointwise bounds".into()));
                }
                let up = question == BoundsQuestion::LargestUpper;
                let sign = if up { 1.0 } else { -1.0 };
                let dirs: Vec<DVector<f64>> = candidates.iter().map(|c| direction(c, sign)).collect();
                let cap = self.data.latent_box.unwrap_or(f64::INFINITY);
                let (program, solved_before) = (if up { Program::Upper } else { Program::NegLower }, 0);
                let search = self.screened_max(&dirs, candidates, cap, program)?;
                let points = candidates
                    .iter()
                    .zip(&search.bounds)
                    .map(|(c, v)| {
                        let mut p = self.cheap_point(c);
                        if up {
                            p.sup = *v;
                        } else {
                            p.inf = ValueBounds { lower: -v.upper, upper: -v.lower, solved: v.solved };
                        }
                        p
                    })
                    .collect();
                Ok(BatchBounds { points, wide: None, best: Some(search.best), solved: solved_before + search.solved })
            }
            BoundsQuestion::WidthAbove(threshold) => {
                let mut points = Vec::with_capacity(candidates.len());
                let mut wide = Vec::with_capacity(candidates.len());
                let mut solved = 0;
                for c in candidates {
                    let mut p = self.cheap_point(c);
                    let decision = loop {
                        let (lo, hi) = (p.sup.lower - p.inf.upper, p.sup.upper - p.inf.lower);
                        if lo > threshold {
                            break true;
                        }
                        if hi <= threshold {
                            break false;
                        }
                        if p.sup.solved && p.inf.solved {
                            // Both certified, the enclosures within the tolerance straddle the
                            // threshold: decide by the values.
                            break p.sup.mid() - p.inf.mid() > threshold;
                        }
                        let sup_gap = if p.sup.solved { -1.0 } else { p.sup.upper - p.sup.lower };
                        let inf_gap = if p.inf.solved { -1.0 } else { p.inf.upper - p.inf.lower };
                        if sup_gap >= inf_gap {
                            p.sup = ValueBounds::solved(&self.upper_bound(c)?);
                        } else {
                            p.inf = ValueBounds::solved(&self.lower_bound(c)?);
                        }
                        solved += 1;
                        // Refresh the other side from the cuts and points this solve added.
                        let fresh = self.cheap_point(c);
                        if !p.sup.solved {
                            p.sup = tighter(p.sup, fresh.sup);
                        }
                        if !p.inf.solved {
                            p.inf = tighter(p.inf, fresh.inf);
                        }
                    };
                    points.push(p);
                    wide.push(decision);
                }
                Ok(BatchBounds { points, wide: Some(wide), best: None, solved })
            }
        }
    }
}

/// The intersection of two enclosures of the same value.
fn tighter(a: ValueBounds, b: ValueBounds) -> ValueBounds {
    ValueBounds { lower: a.lower.max(b.lower), upper: a.upper.min(b.upper), solved: false }
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
    support_from_dots(g.norm(), g.dot(u), u.norm(), c, b)
}

/// [`ball_halfspace_support`] from ‖g‖, gᵀu and ‖u‖.
fn support_from_dots(gnorm: f64, gu: f64, unorm: f64, c: f64, b: f64) -> f64 {
    if unorm == 0.0 {
        return if c >= 0.0 { b * gnorm } else { f64::NEG_INFINITY };
    }
    if gnorm == 0.0 {
        return if c >= -b * unorm { 0.0 } else { f64::NEG_INFINITY };
    }
    let alpha = gu / unorm;
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
