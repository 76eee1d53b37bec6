//! COBOL's decision of an iteration: the search points, x^c (Eq. (5), or the variants' own
//! rules), the no-harm test (line 6) and the handover test (line 8); and the next query of any
//! phase.

use super::search::constrained_argmin;
use super::*;

impl Cobol {
    /// The search points of the iteration: every candidate, or (box) `candidates` uniform points,
    /// x^u, x_U and the evaluated points; with x^u, min UCB and x_U.
    pub(crate) fn search_points(&mut self) -> Result<SearchPoints> {
        let mut rng = self.iteration_rng();
        let local_starts = match self.config.search {
            XcSearch::Local { starts, .. } if self.config.variant == Variant::Cobol => Some(starts),
            _ => None,
        };
        let mut starts = Vec::new();
        let mut pts: Vec<Pt> = match &self.space {
            Space::Finite(d) => {
                (0..d.len()).map(|i| Ok(Pt { x: d.coords(i)?, index: Some(i) })).collect::<Result<_>>()?
            }
            Space::Box(b, s) => {
                let model = self.model.as_ref().expect("fitted");
                let extra: Vec<Vec<f64>> = self.evals.iter().map(|e| e.0.x.clone()).collect();
                let mut out = Vec::new();
                for sign in [-1.0, 1.0] {
                    let mut obj = |x: &[f64], g: &mut [f64]| -> Result<f64> {
                        let v = model.bound_with_gradient(x, sign, g)?;
                        g.iter_mut().for_each(|v| *v = -*v);
                        Ok(-v)
                    };
                    let best = bohf_optim::maximize_on_box(&mut obj, b, &mut rng, &extra, &s.lcb)?;
                    out.push(Pt { x: best.x, index: None });
                }
                out.extend(self.evals.iter().map(|e| e.0.clone()));
                match local_starts {
                    // The local search's starts, drawn where the candidates would be.
                    Some(n) => starts.extend((0..n).map(|_| b.sample(&mut rng))),
                    None => out.extend((0..s.candidates).map(|_| Pt { x: b.sample(&mut rng), index: None })),
                }
                out
            }
        };
        pts.dedup();
        let model = self.model.as_ref().expect("fitted");
        let bounds = pts.iter().map(|p| model.bounds(&p.x)).collect::<Result<Vec<_>>>()?;
        let u = argmin(bounds.iter().map(|b| b.lcb));
        let big_u = argmin(bounds.iter().map(|b| b.ucb));
        Ok((pts, bounds, u, big_u, starts))
    }

    /// The decision of the current iteration (Algorithm 1 lines 4–8, or Algorithm 2), applying
    /// the dual update to λ.
    // Long: Algorithm 1's lines 4–8 and each variant's branch, in the paper's order, in one place.
    pub(crate) fn decide(&mut self) -> Result<Decision> {
        self.model()?;
        let mut info = self.base_info(Phase::Iteration);
        let (mut pts, mut bounds, u, big_u, starts) = self.search_points()?;
        let ucb_min = bounds[big_u].ucb;
        if self.config.variant == Variant::VanillaLcb {
            info.branch = Some(Branch::Vanilla);
            info.candidates = pts.len();
            return Ok(Decision { query: Query::Evaluate(pts[u].point()), info });
        }
        let mut g = self.g_model()?;
        info.alpha = g.alpha;
        info.candidates = pts.len();
        if self.config.variant == Variant::Pinpoint {
            // Experiment D (a): x^c is the expert's pinpoint; none (the draw cap bound): x^u.
            let Some(c) = self.pinpointed.clone() else {
                info.branch = Some(Branch::Vanilla);
                return Ok(Decision { query: Query::Evaluate(pts[u].point()), info });
            };
            let model = self.model.as_ref().expect("fitted");
            let bc = model.bounds(&c.x)?;
            let mut gc = g.point(&model.working(&c.x)?)?;
            info.primal = Some(c.x.clone());
            info.objective = Some(bc.lcb);
            let query = self.lines_6_to_8(
                &mut info,
                &mut g,
                &mut gc,
                (&c, &bc),
                (&pts[u], &bounds[u], &bounds[big_u], ucb_min),
            )?;
            info.fallbacks = g.fallbacks;
            return Ok(Decision { query, info });
        }
        let model = self.model.as_ref().expect("fitted");
        let local = matches!(self.config.search, XcSearch::Local { .. }) && self.config.variant == Variant::Cobol;
        // The local search needs no prepared candidates (x^c comes from its own points).
        let gpts = if local {
            Vec::new()
        } else {
            pts.iter().map(|p| g.point(&model.working(&p.x)?)).collect::<Result<Vec<GPoint>>>()?
        };
        if self.config.variant == Variant::Cobohl {
            // Algorithm 2: argmin LCB s.t. g_lower ≤ 0, in increasing LCB order.
            let i = constrained_argmin(&mut g, &bounds, &gpts, &mut info)?.unwrap_or(u);
            info.primal = Some(pts[i].x.clone());
            let width = g.upper(&gpts[i])? - g.lower(&gpts[i])?;
            info.branch = Some(Branch::Constrained);
            info.g_width = Some(width);
            let query =
                if width > self.config.g_thr { Query::Label(pts[i].point()) } else { Query::Evaluate(pts[i].point()) };
            info.fallbacks = g.fallbacks;
            return Ok(Decision { query, info });
        }
        if self.config.variant == Variant::Constrained {
            // The λ₀ = 0 ablation: COBOHL's x^c (x^u if no candidate is feasible), then lines 6–16.
            let c = constrained_argmin(&mut g, &bounds, &gpts, &mut info)?.unwrap_or(u);
            info.primal = Some(pts[c].x.clone());
            info.objective = Some(bounds[c].lcb);
            let mut gpts = gpts;
            let query = self.lines_6_to_8(
                &mut info,
                &mut g,
                &mut gpts[c],
                (&pts[c], &bounds[c]),
                (&pts[u], &bounds[u], &bounds[big_u], ucb_min),
            )?;
            info.fallbacks = g.fallbacks;
            return Ok(Decision { query, info });
        }
        // Eq. (5) via Prob. (6): J(x) = LCB(x) + λ·z(x), z = g_lower for λ ≥ 0, g_upper for λ < 0.
        let lambda = self.lambda;
        let use_upper = lambda < 0.0;
        let (c, j_c, z_star, gc) = if let XcSearch::Local { evaluations, .. } = self.config.search
            && local
        {
            let model = self.model.as_ref().expect("fitted");
            let Space::Box(domain, _) = &self.space else {
                return Err(Error::invalid("search.local", "the local x^c search needs a box domain"));
            };
            let found = local_xc(model, &mut g, domain, lambda, &starts, evaluations)?;
            info.solved = found.solved;
            info.local = true;
            pts.push(Pt { x: found.x, index: None });
            bounds.push(found.bounds);
            (pts.len() - 1, found.j, found.z, found.point)
        } else {
            self.xc_over_points(&mut g, gpts, &bounds, lambda, &mut info)?
        };
        info.primal = Some(pts[c].x.clone());
        info.objective = Some(j_c);
        // Dual update, Eq. (5).
        let next = lambda + self.config.zeta * z_star;
        self.lambda = match self.config.dual {
            DualRule::Projected => next.max(0.0),
            DualRule::Unprojected => next,
        };
        info.lambda_next = self.lambda;
        // Line 6.
        let take_c = match self.config.no_harm {
            NoHarmRule::Paper => no_harm_paper(&bounds[c], &bounds[u], ucb_min, self.config.eta),
            NoHarmRule::Code => {
                let vanilla = ucb_min < j_c
                    || (bounds[big_u].sigma > self.config.eta * bounds[c].sigma && (j_c - bounds[u].lcb).abs() > 1e-5);
                !vanilla
            }
        };
        if !take_c {
            info.branch = Some(Branch::Vanilla);
            info.fallbacks = g.fallbacks;
            return Ok(Decision { query: Query::Evaluate(pts[u].point()), info });
        }
        info.branch = Some(Branch::Expert);
        // Line 8 at x^c only; the other side is solved unless its enclosure has closed.
        let lower = match (use_upper, gc.settled_lower()) {
            (false, _) => z_star,
            (true, Some(v)) => v,
            (true, None) => g.lower(&gc)?,
        };
        let upper = match (use_upper, gc.settled_upper()) {
            (true, _) => z_star,
            (false, Some(v)) => v,
            (false, None) => g.upper(&gc)?,
        };
        let width = upper - lower;
        info.g_width = Some(width);
        let query =
            if width > self.config.g_thr { Query::Label(pts[c].point()) } else { Query::Evaluate(pts[c].point()) };
        info.fallbacks = g.fallbacks;
        Ok(Decision { query, info })
    }

    /// Lines 6–8 of Algorithm 1 for an x^c found otherwise than by Eq. (5) ([`Variant::Constrained`],
    /// [`Variant::Pinpoint`]; J_c = LCB(x^c), no dual variable): the no-harm test, then the
    /// handover test at x^c. `c`: x^c and its bounds; `vanilla`: x^u, its bounds, x_U's bounds and
    /// min UCB.
    fn lines_6_to_8(
        &self,
        info: &mut StepInfo,
        g: &mut GModel,
        gc: &mut GPoint,
        (c, bc): (&Pt, &Bounds),
        (xu, bu, b_big_u, ucb_min): (&Pt, &Bounds, &Bounds, f64),
    ) -> Result<Query> {
        let take_c = match self.config.no_harm {
            NoHarmRule::Paper => no_harm_paper(bc, bu, ucb_min, self.config.eta),
            NoHarmRule::Code => {
                let j_c = bc.lcb;
                !(ucb_min < j_c || (b_big_u.sigma > self.config.eta * bc.sigma && (j_c - bu.lcb).abs() > 1e-5))
            }
        };
        if !take_c {
            info.branch = Some(Branch::Vanilla);
            return Ok(Query::Evaluate(xu.point()));
        }
        info.branch = Some(Branch::Expert);
        let lower = match gc.settled_lower() {
            Some(v) => v,
            None => g.lower(gc)?,
        };
        let upper = match gc.settled_upper() {
            Some(v) => v,
            None => g.upper(gc)?,
        };
        let width = upper - lower;
        info.g_width = Some(width);
        Ok(if width > self.config.g_thr { Query::Label(c.point()) } else { Query::Evaluate(c.point()) })
    }

    /// The next query and what it computed (without recording it as pending).
    pub(super) fn next_query(&mut self, rng: Option<&mut dyn Rng>) -> Result<Decision> {
        if let Some(p) = &self.awaiting_evaluation {
            let mut info = self.base_info(Phase::Iteration);
            info.iteration = self.iteration;
            return Ok(Decision { query: Query::Evaluate(p.point()), info });
        }
        match self.phase() {
            Phase::InitialEvaluation | Phase::InitialLabel => {
                let phase = self.phase();
                let rng = rng.ok_or_else(|| Error::invalid("query", "the initial design needs a suggestion"))?;
                let p = self.random_point(rng)?;
                let query = if phase == Phase::InitialEvaluation {
                    Query::Evaluate(p.point())
                } else {
                    Query::Label(p.point())
                };
                Ok(Decision { query, info: self.base_info(phase) })
            }
            Phase::Iteration => {
                if self.config.variant == Variant::Pinpoint && self.pinpointed.is_none() {
                    if self.pinpoint_draws == 0 {
                        self.iteration += 1;
                    }
                    if self.pinpoint_draws < self.config.pinpoint_draws {
                        // The expert's next draw, from a stream of (iteration, draw), so replay
                        // reproduces it.
                        let mut r =
                            bohf_core::rng::stream(self.iteration_rng().next_u64(), &[self.pinpoint_draws as u64]);
                        let p = self.random_point(&mut r)?;
                        let mut info = self.base_info(Phase::Iteration);
                        info.branch = Some(Branch::Pinpoint);
                        return Ok(Decision { query: Query::Label(p.point()), info });
                    }
                    // The cap bound: the iteration takes x^u (decide() without a pinpoint).
                    return self.decide();
                }
                if self.config.variant != Variant::Pinpoint {
                    self.iteration += 1;
                }
                match self.config.variant {
                    Variant::RandomSearch | Variant::ExpertSampling => {
                        // The draw comes from the iteration's stream, so replay reproduces it.
                        let p = self.random_point(&mut self.iteration_rng())?;
                        let mut info = self.base_info(Phase::Iteration);
                        info.iteration = self.iteration;
                        let query = if self.config.variant == Variant::RandomSearch {
                            Query::Evaluate(p.point())
                        } else {
                            Query::Label(p.point())
                        };
                        Ok(Decision { query, info })
                    }
                    _ => self.decide(),
                }
            }
        }
    }
}

/// Line 6 of Algorithm 1 (the paper): x^c passes iff LCB(x^c) ≤ min_x UCB(x) and
/// σ(x^u) ≤ η σ(x^c).
pub fn no_harm_paper(c: &Bounds, u: &Bounds, ucb_min: f64, eta: f64) -> bool {
    c.lcb <= ucb_min && u.sigma <= eta * c.sigma
}

fn argmin(values: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::INFINITY);
    for (i, v) in values.enumerate() {
        if v < best.1 {
            best = (i, v);
        }
    }
    best.0
}
