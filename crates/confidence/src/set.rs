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
//!
//! The set's code is split by what it does: this file holds the set itself, its result types and
//! the solve-and-record step every query goes through; `maximise` solves one program (the fast
//! path, then clarabel); `cuts` records the cutting planes and turns them into the certified bounds
//! above ([`ball_halfspace_support`]); `queries` holds the public questions at one candidate;
//! `search` the screened searches over candidate lists.

use crate::conic::{self, ConicData, Layout, SolveInfo, SolverOptions};
use crate::curvature::CurvatureOuter;
use crate::dense::Directions;
use crate::problem::{Candidate, ConfidenceProblem, MleFit};
use bohf_core::{Error, Result, SolverStatus};
use clarabel::solver::DefaultSolver;
use nalgebra::DVector;

mod cuts;
mod maximise;
mod queries;
mod search;
#[cfg(test)]
mod tests;

use cuts::Halfspace;
pub use cuts::ball_halfspace_support;

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
    /// Programs with a zero objective, answered exactly without a solver
    /// ([`crate::SolveMethod::Exact`]).
    pub exact: usize,
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
        let mut g = c.row();
        for j in 0..self.layout.n {
            g[j] -= self.data.l[(reference, j)];
        }
        g
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
        if let Some(sol) = self.zero_objective(g, c) {
            self.counts.exact += 1;
            return Ok(Ok(sol));
        }
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
}

impl ConfidenceSet {
    /// The program of a zero direction g = 0 without a solver: gᵀp = 0 at every point of the set,
    /// which is nonempty when a feasible point is known (the MLE: ℓ(ŵ) = ℓ* ≥ ℓ* − β, ‖ŵ‖ ≤ B, and
    /// with a latent box its support rows; or an earlier optimum). The candidate's own box row adds
    /// nothing: g = 0 means l_x = L[r, :] for an advantage and l_x = 0 for a pointwise bound, with
    /// ρ_x = 0 in both, so f̃(x) is a support row's value or 0. The value is therefore exactly 0 and
    /// the first known feasible point is an optimum, with ω = 0. Nothing is
    /// recorded: the point is known already and the cut 0ᵀp ≤ 0 is empty. `None` when g ≠ 0 or no
    /// feasible point is known (a set built from a threshold alone). POP-BO asks this program at
    /// x = x′ in every step whose search reaches the reference; the fast path cannot certify it
    /// (its dual is degenerate) and clarabel took 1–5 ms for it.
    fn zero_objective(&self, g: &DVector<f64>, c: &Candidate) -> Option<ConicSolution> {
        if g.iter().any(|&v| v != 0.0) {
            return None;
        }
        let w = self.feasible.first()?.clone();
        Some(ConicSolution {
            value: 0.0,
            z: &self.data.l * &w,
            z_candidate: c.coordinates().dot(&w),
            w,
            omega: 0.0,
            info: SolveInfo::exact(0.0),
            certified: Some((0.0, 0.0)),
        })
    }
}

/// (±l_x, ±ρ_x).
fn direction(c: &Candidate, sign: f64) -> DVector<f64> {
    c.row() * sign
}
