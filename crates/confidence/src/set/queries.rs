//! The set's public questions at one candidate: the optimistic advantage and the pointwise bounds
//! (solved, or screened against a level), the kernel sensitivity of a solved value, and certified
//! bounds without solving (from the cuts and feasible points, or from the curvature outer set).

use super::{ConfidenceSet, ConicSolution, KernelSensitivity, PointBounds, Program, Screened, ValueBounds, direction};
use crate::curvature::CurvatureOuter;
use crate::problem::Candidate;
use bohf_core::{Error, Result, SolverStatus};
use nalgebra::DVector;

impl ConfidenceSet {
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

    /// Certified enclosures of sup f̃(x) and inf f̃(x) at `candidate` from the cuts and feasible
    /// points known so far, without solving.
    pub fn cheap_pointwise_bounds(&self, candidate: &Candidate) -> Result<PointBounds> {
        self.check_candidate(candidate)?;
        Ok(self.cheap_point(candidate))
    }

    pub(super) fn cheap_point(&self, c: &Candidate) -> PointBounds {
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
}
