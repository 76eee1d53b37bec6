//! POP-BO on a continuous box (Algorithm 1 with x′_t = x_{t−1}; the outer maximisation over x by
//! a multistart gradient-based local search around the exact conic inner problem, POP-BO §3.5 "a
//! gradient-based optimization method", notes 001 §3.4 option 2).
//!
//! For a point x, the inner program (24) is solved exactly by clarabel (bohf-confidence); its value
//! is A(x) = g(x)ᵀp* with g(x) = (l_x − L\[r,:\]ᵀ, ρ_x), l_x = L⁻¹k_x, ρ_x = √(k(x,x) + ε − ‖l_x‖²) and
//! p* = (w*, ω*) the optimum. Only the objective depends on x, so by Danskin's theorem (unique
//! optimum) ∇A(x) = (∂g/∂x)ᵀp*:
//!
//! ∂A/∂x_j = (∂k_x/∂x_j)ᵀ (L⁻ᵀw* − (ω*/ρ_x) L⁻ᵀl_x) + ω* (∂k(x,x)/∂x_j)/(2ρ_x),
//!
//! with ∂k_x/∂x_j from the kernel's analytic gradient ([`Kernel::grad_x`]).
//!
//! **Local search: minorise–maximise.** Every known feasible point p = (w, ω) of the common
//! constraint set {‖(w, ω)‖ ≤ B, ℓ(w) ≥ ℓ* − β} (the MLE with ω = √(B² − ‖ŵ‖²), and the optimum of
//! every exact solve of the step) gives A(y) ≥ g(y)ᵀp at every y whose latent-box row (if any)
//! admits p. Their maximum M(y) is a minorant of A, equal to A at every solved point, and costs no
//! conic solve (a triangular solve and one dot product per known point). A round of the local
//! search climbs M from the current point x by projected gradient ascent (the gradient of the
//! maximising point's g(y)ᵀp, which at y = x is Danskin's ∇A(x); step doubled on success, quartered
//! on failure), then solves exactly at the end point y: A(y) ≥ M(y) > M(x) = A(x), so every round
//! that gains on M is an exact ascent step, and one exact solve per round suffices (the earlier
//! search solved at every trial step, accepted or not). A point solved before (ascents often end
//! on the same corner of the box) is not solved again. Each ascent takes at most `iterations` exact
//! solves, and stops earlier when the ascent on M moves less than `step_tolerance` (relative to the
//! box's largest side) or gains less than 10⁻⁹ relative.
//!
//! **Starts: bohf-optim's raced multistart** ([`race_on_box`]). The pool is a scrambled Sobol
//! design, a uniform sample and the support points; the starts are taken in turn from two cheap
//! rankings, the MLE lower bound f̂(x) − f̂(x′) + ρ_x√(B² − ‖ŵ‖²) (the MLE is feasible) and the
//! optimistic upper bound B‖g(x)‖; A is solved exactly at each start, and only the `climbs` best
//! are climbed. On the 7-D timing instance (`benches/popbo.rs`) every start converged to the same
//! corner in most steps, so climbing all four of 4 starts spent about 17 solves per step where
//! racing (3 starts, the best 2 climbed: the default) spends about 10, with the same advantage found
//! at each of 10 steps (on the 12-D instance within 3 % of the all-climbed search's at every step).

use crate::config::{PopBoConfig, ReportRule, ValidPopBoConfig};
use crate::report::{pair_sigmas, t_star};
use bohf_confidence::{ConfidenceProblem, ConfidenceSet, MleFit, Observation};
use bohf_core::rand::Rng;
use bohf_core::{Answer, BoxDomain, Duel, Error, Optimizer, Point, Query, Result, argmax_lowest, check_pending};
use bohf_kernels::Kernel;
use bohf_optim::{Climb, RaceConfig, race_on_box};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// Settings of the continuous outer search: bohf-optim's raced multistart ([`race_on_box`]; the
/// first four fields are those of [`RaceConfig`]) around POP-BO's own local ascent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoxSearchConfig {
    /// Sobol points screened for starts ([`RaceConfig::design`]).
    pub design: usize,
    /// Uniform points screened for starts ([`RaceConfig::samples`]).
    pub samples: usize,
    /// Starts, solved exactly; the support points are screened too ([`RaceConfig::starts`]).
    pub starts: usize,
    /// Starts climbed, the best by their exact advantage ([`RaceConfig::climbs`]).
    pub climbs: usize,
    /// Exact solves per local ascent.
    pub iterations: usize,
    /// Stop a local ascent when the step (relative to the box's largest side) falls below this.
    pub step_tolerance: f64,
}

impl Default for BoxSearchConfig {
    /// [`RaceConfig::default`] (512 Sobol and 512 uniform points, 3 starts, 2 climbs), 10 solves
    /// per ascent, step tolerance 10⁻⁴: a 7-D step at t = 100 then stays under 200 ms
    /// (`benches/popbo.rs`; the authors' code uses 10 Ipopt multistarts).
    fn default() -> Self {
        let race = RaceConfig::default();
        Self {
            design: race.design,
            samples: race.samples,
            starts: race.starts,
            climbs: race.climbs,
            iterations: 10,
            step_tolerance: 1e-4,
        }
    }
}

bohf_core::validated! {
    /// A [`BoxSearchConfig`] that passed [`BoxSearchConfig::check`]: what [`PopBoBox::new`] takes.
    pub struct ValidBoxSearchConfig(BoxSearchConfig);
}

impl BoxSearchConfig {
    /// The multistart part.
    pub fn race(&self) -> RaceConfig {
        RaceConfig { design: self.design, samples: self.samples, starts: self.starts, climbs: self.climbs }
    }

    /// The one check of the settings; errors name the first invalid field (`design`, `starts`,
    /// `climbs`, `iterations`, `step_tolerance`).
    pub fn check(&self) -> Result<ValidBoxSearchConfig> {
        self.race().check()?;
        if self.iterations == 0 {
            return Err(Error::invalid("iterations", "must be >= 1"));
        }
        bohf_core::error::ensure_positive("step_tolerance", self.step_tolerance)?;
        Ok(ValidBoxSearchConfig(self.clone()))
    }
}

/// Steps of projected gradient ascent on the minorant per round of the local search.
const MINORANT_STEPS: usize = 100;

/// A known feasible point p = (w, ω) of the common constraint set, with L[r,:]w = f̃(x_r).
struct Known {
    /// The point whose exact optimum this is (`None` for the MLE), and A there.
    solved: Option<(Vec<f64>, f64)>,
    w: DVector<f64>,
    omega: f64,
    at_reference: f64,
}

/// The Euclidean distance.
fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| (u - v).powi(2)).sum::<f64>().sqrt()
}

/// What the last suggestion of [`PopBoBox`] computed.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxStepInfo {
    /// The number of duels the confidence set was built from.
    pub duels: usize,
    /// The best optimistic advantage found.
    pub advantage: f64,
    /// Exact conic solves made.
    pub solved: usize,
}

/// POP-BO on a continuous box; see the module documentation.
#[derive(Debug)]
pub struct PopBoBox {
    config: PopBoConfig,
    search: BoxSearchConfig,
    domain: BoxDomain,
    kernel: Box<dyn Kernel>,
    points: Vec<Vec<f64>>,
    duels: Vec<Duel>,
    problem: Option<ConfidenceProblem>,
    mle: Option<MleFit>,
    pending: Option<(Vec<f64>, Vec<f64>)>,
    last_step: Option<BoxStepInfo>,
}

impl PopBoBox {
    /// POP-BO on `domain` with the kernel `config.inference.kernel` and checked settings
    /// ([`PopBoConfig::check`], [`BoxSearchConfig::check`]). `config.initial` must be
    /// [`crate::InitialPoint::Random`] (x₀ uniform in the box).
    pub fn new(domain: BoxDomain, config: ValidPopBoConfig, search: ValidBoxSearchConfig) -> Result<Self> {
        let (config, search) = (config.into_config(), search.into_config());
        if config.initial != crate::InitialPoint::Random {
            return Err(Error::invalid("initial", "the continuous mode draws x₀ uniformly in the box"));
        }
        let kernel = config.inference.kernel.build()?;
        if let Some(d) = kernel.input_dim()
            && d != domain.dim()
        {
            return Err(Error::dims("kernel input dimension vs box", domain.dim(), d));
        }
        Ok(Self {
            config,
            search,
            domain,
            kernel,
            points: Vec::new(),
            duels: Vec::new(),
            problem: None,
            mle: None,
            pending: None,
            last_step: None,
        })
    }

    /// The support points x₀, x₁, … (distinct).
    pub fn points(&self) -> &[Vec<f64>] {
        &self.points
    }

    /// The observed duels as support indices.
    pub fn duels(&self) -> &[Duel] {
        &self.duels
    }

    /// What the last suggestion computed.
    pub fn last_step(&self) -> Option<&BoxStepInfo> {
        self.last_step.as_ref()
    }

    fn reference(&self) -> Option<usize> {
        self.duels.last().map(|d| d.first).or(if self.points.is_empty() { None } else { Some(0) })
    }

    fn support_index(points: &mut Vec<Vec<f64>>, x: &[f64]) -> usize {
        match points.iter().position(|p| p.as_slice() == x) {
            Some(i) => i,
            None => {
                points.push(x.to_vec());
                points.len() - 1
            }
        }
    }

    fn fit(&self, points: &[Vec<f64>], duels: &[Duel]) -> Result<(ConfidenceProblem, MleFit)> {
        let n = points.len();
        let gram = DMatrix::from_fn(n, n, |i, j| self.kernel.eval(&points[i], &points[j]));
        let obs: Vec<Observation> = duels.iter().copied().map(Observation::Duel).collect();
        let problem = ConfidenceProblem::new(&gram, &obs, &self.config.confidence)?;
        let mle = problem.mle()?;
        Ok((problem, mle))
    }

    fn beta(&self) -> Result<f64> {
        bohf_confidence::beta_at(&self.config.beta, self.duels.len(), self.config.confidence.norm_bound)
    }

    fn k_vec(&self, x: &[f64]) -> DVector<f64> {
        DVector::from_fn(self.points.len(), |i, _| self.kernel.eval(&self.points[i], x))
    }

    /// The linear form m(y) = g(y)ᵀp at a point y for a fixed p = (w, ω) and its gradient in y:
    /// ∂m/∂y_j = (∂k_y/∂y_j)ᵀ (L⁻ᵀw − (ω/ρ_y) L⁻ᵀl_y) + ω (∂k(y,y)/∂y_j)/(2ρ_y) (see the module
    /// documentation). With p = (w*, ω*) the optimum at x this is A(x) and its Danskin gradient at
    /// y = x; at other y it is the minorant of the local search. Also returns f̃(y) = l_yᵀw + ρ_y ω
    /// (for the latent-box check).
    fn linear_form(
        &self,
        problem: &ConfidenceProblem,
        y: &[f64],
        w: &DVector<f64>,
        omega: f64,
        r: usize,
    ) -> Result<(f64, Vec<f64>, f64)> {
        let kx = self.k_vec(y);
        let cand = problem.candidate(&kx, self.kernel.eval(y, y))?;
        let chol = problem.cholesky();
        let l = chol.l();
        let value_at = cand.coordinates().dot(w) + cand.rho() * omega;
        let value = value_at - l.row(r).transpose().dot(w);
        let rho = cand.rho().max(1e-12);
        let v = chol.solve_upper(&DMatrix::from_column_slice(w.len(), 1, w.as_slice()))?;
        let lx = chol.solve_upper(&DMatrix::from_column_slice(kx.len(), 1, cand.coordinates().as_slice()))?;
        let coef = DVector::from_fn(kx.len(), |i, _| v[(i, 0)] - omega / rho * lx[(i, 0)]);
        // ∂k(x_i, y)/∂y = ∂k(y, x_i)/∂y (k symmetric), and ∂k(y, y)/∂y = 2 ∂k(y, z)/∂y at z = y.
        let self_grad = self.kernel.grad_x(y, y);
        let mut grad: Vec<f64> = self_grad.iter().map(|g| omega * g / rho).collect(); // ω·(2g)/(2ρ)
        for (i, p) in self.points.iter().enumerate() {
            for (gj, dk) in grad.iter_mut().zip(self.kernel.grad_x(y, p)) {
                *gj += dk * coef[i];
            }
        }
        Ok((value, grad, value_at))
    }

    /// A(x) at a point (exact solve), for checks; errors before the first suggestion.
    pub fn optimistic_advantage_at(&self, x: &[f64]) -> Result<(f64, Vec<f64>)> {
        let (problem, mle) = self.state()?;
        let mut set = ConfidenceSet::new(problem, mle, self.beta()?)?;
        let r = self.reference().expect("initialised");
        let cand = problem.candidate(&self.k_vec(x), self.kernel.eval(x, x))?;
        let sol = set.optimistic_advantage(&cand, r)?;
        let (_, grad, _) = self.linear_form(problem, x, &sol.w, sol.omega, r)?;
        Ok((sol.value, grad))
    }

    fn state(&self) -> Result<(&ConfidenceProblem, &MleFit)> {
        match (&self.problem, &self.mle) {
            (Some(p), Some(m)) => Ok((p, m)),
            _ => Err(Error::invalid("initial", "x₀ is not chosen yet: call suggest first")),
        }
    }

    fn project(&self, x: &mut [f64]) {
        self.domain.clamp(x);
    }

    /// The minorant M(y) = max_k g(y)ᵀp_k over the known feasible points p_k = (w_k, ω_k) of the
    /// common set (the MLE and every exact optimum of this step) whose latent-box row admits y: a
    /// lower bound on A(y), equal to A(x) at every solved x. Returns the value, the index of the
    /// maximising point (`None` if no known point is admissible at y).
    fn minorant(&self, problem: &ConfidenceProblem, y: &[f64], known: &[Known]) -> Result<Option<(f64, usize)>> {
        let cand = problem.candidate(&self.k_vec(y), self.kernel.eval(y, y))?;
        let lb = self.config.confidence.latent_box;
        let mut best: Option<(f64, usize)> = None;
        for (k, p) in known.iter().enumerate() {
            let at = cand.coordinates().dot(&p.w) + cand.rho() * p.omega;
            if lb.is_some_and(|b| at.abs() > b) {
                continue;
            }
            let v = at - p.at_reference;
            if best.is_none_or(|(bv, _)| v > bv) {
                best = Some((v, k));
            }
        }
        Ok(best)
    }

    /// One local search from `start`: minorise–maximise (see the module documentation). Each round
    /// maximises the minorant M of [`Self::minorant`] by projected gradient ascent (cheap: no conic
    /// solve; the gradient is that of the maximising point's linear form), then solves exactly at
    /// the new point, whose advantage is then at least M there, above the current one. Stops after
    /// `iterations` exact solves, or when the ascent on M moves less than `step_tolerance`
    /// (relative to the box's largest side) or gains less than 10⁻⁹ relative.
    fn local_search(
        &self,
        set: &mut ConfidenceSet,
        start: Vec<f64>,
        r: usize,
        known: &mut Vec<Known>,
        solves: &mut usize,
    ) -> Result<(Vec<f64>, f64)> {
        let problem = self.problem.as_ref().expect("initialised");
        let side = self.domain.upper().iter().zip(self.domain.lower()).map(|(u, l)| u - l).fold(0.0, f64::max);
        let min_step = self.search.step_tolerance * side;
        let lref = problem.cholesky().l().row(r).transpose();
        let mut x = start;
        let (mut value, mut at) = self.solve_at(set, &x, r, &lref, known, solves)?;
        let mut step = 0.1 * side; // of the ascent on M
        let mut reach = 0.1 * side; // of a plain gradient step
        for _ in 1..self.search.iterations {
            // Ascent on M from x, where M(x) = A(x) and the gradient is Danskin's ∇A(x).
            let (mut y, mut my, mut k) = (x.clone(), value, at);
            let grad = self.linear_form(problem, &y, &known[k].w, known[k].omega, r)?.1;
            let mut g = grad.clone();
            for _ in 0..MINORANT_STEPS {
                let gn = g.iter().map(|v| v * v).sum::<f64>().sqrt();
                if gn == 0.0 || step < min_step {
                    break;
                }
                let mut t: Vec<f64> = y.iter().zip(&g).map(|(a, b)| a + step * b / gn).collect();
                self.project(&mut t);
                match self.minorant(problem, &t, known)? {
                    Some((mt, kt)) if mt > my => {
                        (y, my, k) = (t, mt, kt);
                        g = self.linear_form(problem, &y, &known[k].w, known[k].omega, r)?.1;
                        step *= 2.0;
                    }
                    _ => step *= 0.25,
                }
            }
            step = step.max(4.0 * min_step);
            let moved = dist(&y, &x);
            let gains = my > value + 1e-9 * value.abs().max(1.0);
            // A(y) ≥ M(y) > A(x): an exact ascent step. Where M is too pessimistic to move as far as
            // the last successful plain step (M can be much more curved than A), a plain gradient
            // step of that length instead, kept only if the exact value rises.
            let trial = if gains && moved >= reach.min(side) {
                y
            } else {
                let gn = grad.iter().map(|v| v * v).sum::<f64>().sqrt();
                if reach < min_step || gn == 0.0 {
                    break;
                }
                let mut t: Vec<f64> = x.iter().zip(&grad).map(|(a, b)| a + reach * b / gn).collect();
                self.project(&mut t);
                if dist(&t, &x) < min_step {
                    break;
                }
                t
            };
            let (next, next_at) = self.solve_at(set, &trial, r, &lref, known, solves)?;
            if next > value {
                reach = 2.0 * reach.max(dist(&trial, &x));
                x = trial;
                (value, at) = (next, next_at);
            } else {
                reach *= 0.25;
            }
        }
        Ok((x, value))
    }

    /// An exact solve at x: records the optimum among the known points and returns A(x) and the
    /// optimum's position among them.
    fn solve_at(
        &self,
        set: &mut ConfidenceSet,
        x: &[f64],
        r: usize,
        lref: &DVector<f64>,
        known: &mut Vec<Known>,
        solves: &mut usize,
    ) -> Result<(f64, usize)> {
        // A point solved before (an ascent that ends on an earlier optimum, e.g. a corner of the
        // box): its value is known, and its optimum is already among the known points.
        if let Some(i) = known.iter().position(|k| k.solved.as_ref().is_some_and(|(p, _)| p.as_slice() == x)) {
            return Ok((known[i].solved.as_ref().expect("found").1, i));
        }
        let problem = self.problem.as_ref().expect("initialised");
        let cand = problem.candidate(&self.k_vec(x), self.kernel.eval(x, x))?;
        let sol = set.optimistic_advantage(&cand, r)?;
        *solves += 1;
        known.push(Known {
            solved: Some((x.to_vec(), sol.value)),
            at_reference: lref.dot(&sol.w),
            w: sol.w,
            omega: sol.omega,
        });
        Ok((sol.value, known.len() - 1))
    }

    /// The reported point (see [`ReportRule`]; `MaxMleGrid` maximises the minimum-norm MLE over
    /// the support points and a grid of at most ~10⁴ points of the box).
    pub fn report(&self) -> Result<Vec<f64>> {
        let (Some(problem), Some(mle)) = (&self.problem, &self.mle) else {
            return Err(Error::invalid("initial", "nothing observed yet"));
        };
        if self.duels.is_empty() {
            return Ok(self.points[0].clone());
        }
        match self.config.report {
            ReportRule::MaxMleSampled => Ok(self.points[argmax_lowest(mle.z.iter().copied())?].clone()),
            ReportRule::MaxMleGrid => {
                let d = self.domain.dim();
                let per_dim = ((10_000f64).powf(1.0 / d as f64).floor() as usize).max(2);
                let grid = self.domain.grid(per_dim)?;
                let mut pts: Vec<Vec<f64>> = (0..grid.len()).map(|i| grid.coords(i)).collect::<Result<_>>()?;
                pts.extend(self.points.iter().cloned());
                let vals = pts
                    .iter()
                    .map(|x| mle.value_at(&problem.candidate(&self.k_vec(x), self.kernel.eval(x, x))?))
                    .collect::<Result<Vec<f64>>>()?;
                Ok(pts[argmax_lowest(vals)?].clone())
            }
            ReportRule::TheoreticalTStar { lambda } => {
                let n = self.points.len();
                let gram = DMatrix::from_fn(n, n, |i, j| self.kernel.eval(&self.points[i], &self.points[j]));
                let pairs: Vec<(usize, usize)> = self.duels.iter().map(Duel::pair).collect();
                let sigmas = pair_sigmas(&gram, &pairs, lambda)?;
                let b = self.config.confidence.norm_bound;
                let betas = (1..=sigmas.len())
                    .map(|t| bohf_confidence::beta_at(&self.config.beta, t, b))
                    .collect::<Result<Vec<_>>>()?;
                let t = t_star(b, lambda, &betas, &sigmas).expect("at least one duel");
                Ok(self.points[self.duels[t].first].clone())
            }
        }
    }

    /// The points and outcome of an answered duel, checked: a duel query and answer, both points in
    /// the box, and, if a suggestion is pending, the pending pair.
    fn parse(&self, query: &Query, answer: &Answer) -> Result<(Vec<f64>, Vec<f64>, bool)> {
        let (p, q) = query.duel_points(self.name())?;
        let first_wins = answer.duel_outcome()?;
        let (x, xp) = (self.domain.checked_point(p, "first")?, self.domain.checked_point(q, "second")?);
        check_pending(self.pending.as_ref().map(|(a, b)| (a.as_slice(), b.as_slice())), (x, xp))?;
        Ok((x.to_vec(), xp.to_vec(), first_wins))
    }
}

/// One suggestion's outer search: the confidence set of the step, the known feasible points of the
/// minorant, and the exact solves made ([`Climb`] for bohf-optim's [`race_on_box`]).
struct BoxStep<'a> {
    pb: &'a PopBoBox,
    problem: &'a ConfidenceProblem,
    set: ConfidenceSet,
    mle_w: &'a DVector<f64>,
    /// The reference x′ (a support index).
    r: usize,
    /// √(B² − ‖ŵ‖²): the ω that makes the MLE feasible at any x.
    room: f64,
    /// L[r,:]ᵀ.
    lref: DVector<f64>,
    known: Vec<Known>,
    solves: usize,
}

impl Climb for BoxStep<'_> {
    /// Two rankings: the MLE lower bound f̂(x) − f̂(x′) + ρ_x√(B² − ‖ŵ‖²) (the MLE is feasible) and
    /// the optimistic upper bound B‖g(x)‖.
    fn rankings(&self) -> usize {
        2
    }

    fn screen(&mut self, x: &[f64], scores: &mut [f64]) -> Result<()> {
        let c = self.problem.candidate(&self.pb.k_vec(x), self.pb.kernel.eval(x, x))?;
        let gw = c.coordinates() - &self.lref;
        let b = self.pb.config.confidence.norm_bound;
        scores[0] = gw.dot(self.mle_w) + c.rho() * self.room;
        scores[1] = b * (gw.norm_squared() + c.rho() * c.rho()).sqrt();
        Ok(())
    }

    fn value(&mut self, x: &[f64]) -> Result<f64> {
        let (pb, r) = (self.pb, self.r);
        Ok(pb.solve_at(&mut self.set, x, r, &self.lref, &mut self.known, &mut self.solves)?.0)
    }

    fn climb(&mut self, x0: &[f64], _f0: f64) -> Result<(Vec<f64>, f64)> {
        // The local search starts with an exact solve at x0, which `value` made: it is found among
        // the known points and not solved again.
        let (pb, r) = (self.pb, self.r);
        pb.local_search(&mut self.set, x0.to_vec(), r, &mut self.known, &mut self.solves)
    }
}

impl Optimizer for PopBoBox {
    fn name(&self) -> &'static str {
        "POP-BO"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        if self.points.is_empty() {
            let x0 = self.domain.sample(&mut *rng);
            let (p, m) = self.fit(std::slice::from_ref(&x0), &[])?;
            self.points.push(x0);
            self.problem = Some(p);
            self.mle = Some(m);
        }
        let (problem, mle) = self.state()?;
        let r = self.reference().expect("initialised");
        let b = self.config.confidence.norm_bound;
        let room = (b * b - mle.w.norm_squared()).max(0.0).sqrt();
        let lref = problem.cholesky().l().row(r).transpose();
        // The MLE is feasible (ω = the room left in the ball); every exact optimum joins it.
        let known = vec![Known { solved: None, at_reference: lref.dot(&mle.w), w: mle.w.clone(), omega: room }];
        let mut step = BoxStep {
            pb: self,
            problem,
            set: ConfidenceSet::new(problem, mle, self.beta()?)?,
            mle_w: &mle.w,
            r,
            room,
            lref,
            known,
            solves: 0,
        };
        let found = race_on_box(&mut step, &self.domain, &mut *rng, &self.points, &self.search.race())?;
        let (x, v, solves) = (found.x, found.value, step.solves);
        let reference = self.points[r].clone();
        self.last_step = Some(BoxStepInfo { duels: self.duels.len(), advantage: v, solved: solves });
        self.pending = Some((x.clone(), reference.clone()));
        Ok(Query::Duel(Point::continuous(x), Point::continuous(reference)))
    }

    fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let (x, xp, w) = self.parse(query, &answer)?;
        let mut points = self.points.clone();
        // Replaying from scratch: x₀ is the second point of the first duel.
        let j = Self::support_index(&mut points, &xp);
        let i = Self::support_index(&mut points, &x);
        let mut duels = self.duels.clone();
        duels.push(Duel::new(i, j, w));
        let (problem, mle) = self.fit(&points, &duels)?;
        self.points = points;
        self.duels = duels;
        self.problem = Some(problem);
        self.mle = Some(mle);
        self.pending = None;
        Ok(())
    }

    fn recommend(&self) -> Result<Point> {
        self.report().map(Point::continuous)
    }
}

#[cfg(test)]
mod tests;
