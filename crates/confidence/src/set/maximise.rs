//! One program of the set solved: the fast path ([`crate::dual`]) first, then clarabel, whose
//! solver is built on the first program the fast path does not certify and updated in place for
//! each candidate.

use super::{ConfidenceSet, ConicSolution, Maximised};
use crate::conic::{self, SolveInfo, SolverOptions};
use crate::dense::{Directions, Objective, ProgramSpec};
use crate::dual::{self, DualStart};
use crate::problem::Candidate;
use bohf_core::{Error, Result, SolverStatus};
use clarabel::solver::DefaultSolver;
use nalgebra::DVector;

impl ConfidenceSet {
    /// Solves max gᵀ(w, ω) over the set, with the candidate box rows of `c`; also returns the
    /// multipliers (μ₊, μ₋) ≥ 0 of the candidate's box rows f̃(x) ≤ b and
    /// −f̃(x) ≤ b (zero without the latent box).
    /// With `stop_at`, the fast path may stop as soon as it certifies max ≤ `stop_at`
    /// ([`Maximised::Stopped`]; clarabel always solves to the end).
    pub(super) fn maximise(
        &mut self,
        g: &DVector<f64>,
        c: &Candidate,
        problem: &str,
        stop_at: Option<f64>,
    ) -> Result<Maximised> {
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
        let objective = Objective::Linear(g);
        let spec = ProgramSpec {
            data: &self.data,
            dirs: directions,
            objective,
            threshold: Some(self.threshold),
            candidate: Some(c.row()),
            centre: &centre,
            tolerance: self.options.tolerance,
        };
        let sol = dual::solve(spec, DualStart { warm: self.warm, stop_at, mle_start: None })?;
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
}
