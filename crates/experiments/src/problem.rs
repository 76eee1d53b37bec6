//! A spec's problem made concrete: the utility on its candidate set (or, for a box problem, the
//! test function on its box), the simulated respondent and the regret.
//!
//! The respondent's scale s is folded into the utility once: the prepared utility is s·u, duels are
//! answered with P(x ≻ x′) = μ(s·u(x) − s·u(x′)), scalar evaluations with s·u(x) + N(0, σ²), and
//! the regret of [`crate::metrics`] uses the same differences h = s·(u(x) − u(x′)). So the scale
//! of every quantity is the one the respondent answers on, as in the papers (MR-LPF's ×5 and
//! [−3, 3] scalings, PF-TS's GP-TS oracle f(x) + N(0, 1) on the BTL utility f).
//!
//! With `respondent.comparisons = "low-fidelity"` (COMP-GP-UCB) duels are answered from the
//! problem's low fidelity f_c instead, mapped by the same affine as f (the problem's scaling as
//! computed from f's values, then s); evaluations and the regret stay on f.

use crate::error::Result;
use crate::inputs::InputMap;
use crate::metrics::RegretModel;
use crate::spec::{ComparisonSource, ProblemSpec, RespondentSpec, ResponseModel};
use bohf_core::{BoxDomain, Domain, FiniteDomain};
use bohf_problems::functions::WithDomain;
use bohf_problems::respondents::Combined;
use bohf_problems::{
    Affine, DuelModel, DuelRespondent, GridFunction, NoisyValue, Rescaled, SyntheticExpert, TestFunction, low_fidelity,
    presets,
};
use std::sync::Arc;

/// The utility of a prepared problem, on the respondent's scale.
#[derive(Debug, Clone)]
enum Truth {
    /// Tabulated on a finite candidate set.
    Grid(Arc<GridFunction>),
    /// A test function on a box (the function restricted to the box, rescaled).
    Box(Arc<dyn TestFunction>),
}

/// The utility, respondent model and regret of an experiment.
#[derive(Debug, Clone)]
pub struct PreparedProblem {
    title: String,
    domain: Domain,
    utility: Truth,
    /// The function duels are answered from when it is not the utility (the low fidelity f_c).
    comparisons: Option<Truth>,
    model: DuelModel,
    noise_sd: f64,
    regret: RegretModel,
    expert: Option<crate::spec::ExpertSpec>,
    belief: Option<crate::spec::BeliefSpec>,
    /// The coordinates the algorithms see ([`crate::inputs`]).
    inputs: InputMap,
    /// The map from the utility in the problem's own units to the respondent's scale.
    utility_map: Affine,
}

/// The number of uniform draws from a box (from the fixed stream `bohf_core::rng::seeded(0)`)
/// whose values a box problem's `scaling` is computed from (a grid problem's is computed from the
/// grid's values): 4096 draws estimate a standard deviation to about ±1 % (relative s.e.
/// 1/√(2·4096)).
pub const BOX_DESIGN: usize = 4096;

impl PreparedProblem {
    /// Builds the problem of a (validated) spec: tabulates or loads the utility, applies the
    /// scaling and the respondent's scale.
    pub fn build(problem: &ProblemSpec, respondent: &RespondentSpec) -> Result<Self> {
        problem.validate()?;
        respondent.validate()?;
        respondent_fits(problem, respondent)?;
        let model = match respondent.model {
            ResponseModel::Stochastic => DuelModel::stochastic(respondent.link, 1.0)?,
            ResponseModel::Deterministic => DuelModel::Deterministic,
        };
        let noise_sd = respondent.noise_sd;
        if let (ProblemSpec::Function(p), Some(domain)) = (problem, problem.box_domain()?) {
            let f = p.test_function()?;
            let title = format!("{} (d = {}) on the box {domain}{}", f.name(), f.dim(), scaling_note(&p.scaling));
            // `none` and `multiply` need no values; the others take them from a fixed design.
            let base = match p.scaling {
                bohf_problems::Scaling::None => Affine::identity(),
                bohf_problems::Scaling::Multiply(c) => Affine::new(c, 0.0)?,
                ref s => {
                    let design = domain.sample_candidates(BOX_DESIGN, &mut bohf_core::rng::seeded(0))?;
                    let on_box = WithDomain::new(p.test_function()?, domain.clone())?;
                    let values = GridFunction::tabulate(&on_box, &design)?;
                    s.affine(values.values())
                        .map_err(|e| crate::error::ExperimentError::in_field("problem.scaling", e))?
                }
            };
            let map = Affine::new(respondent.scale, 0.0)?.after(&base);
            let comparisons = match respondent.comparisons {
                ComparisonSource::Same => None,
                ComparisonSource::LowFidelity => {
                    let low = WithDomain::new(low_fidelity(&p.function)?, domain.clone())?;
                    Some(Truth::Box(Arc::new(Rescaled::new(low, map))))
                }
            };
            let on_box = WithDomain::new(f, domain.clone())?;
            let utility: Arc<dyn TestFunction> = Arc::new(Rescaled::new(on_box, map));
            // The utility gaps in the problem's own units (the function's values, before the
            // scaling and the respondent's scale): divided by the map's factor.
            let regret = RegretModel::on_box(Arc::clone(&utility), model)?.with_units(map.scale)?;
            let domain = Domain::Box(domain);
            return Ok(Self {
                title: with_source(title, respondent.comparisons),
                inputs: InputMap::new(&domain, problem.inputs())?,
                utility_map: map,
                domain,
                utility: Truth::Box(utility),
                comparisons,
                model,
                noise_sd,
                regret,
                expert: respondent.expert,
                belief: respondent.belief.clone(),
            });
        }
        let scale = Affine::new(respondent.scale, 0.0)?;
        let (base, title, svm_low, own) = tabulate(problem)?;
        let comparisons = match (respondent.comparisons, problem) {
            (ComparisonSource::Same, _) => None,
            (ComparisonSource::LowFidelity, ProblemSpec::Svm(_)) => {
                svm_low.map(|low| Truth::Grid(Arc::new(low.rescaled(&scale))))
            }
            (ComparisonSource::LowFidelity, ProblemSpec::Function(p)) => {
                // f's raw values give the scaling's affine map; f_c gets the same map.
                let grid = base.domain();
                let raw = GridFunction::tabulate(p.test_function()?.as_ref(), grid)?;
                let map = p.scaling.affine(raw.values())?;
                let low = GridFunction::tabulate(low_fidelity(&p.function)?.as_ref(), grid)?;
                Some(Truth::Grid(Arc::new(low.rescaled(&scale.after(&map)))))
            }
            // Refused above by `respondent_fits`.
            (ComparisonSource::LowFidelity, _) => None,
        };
        let utility = Arc::new(base.rescaled(&scale));
        let utility_map = scale.after(&own);
        // The utility gaps in the problem's own units (the function's values or the data's utility
        // column, before the scaling and the respondent's scale): divided by the map's factor.
        let regret = RegretModel::new(&utility, model).with_units(utility_map.scale)?;
        let domain = Domain::Finite(utility.domain().clone());
        Ok(Self {
            title: with_source(title, respondent.comparisons),
            inputs: InputMap::new(&domain, problem.inputs())?,
            utility_map,
            domain,
            utility: Truth::Grid(utility),
            comparisons,
            model,
            noise_sd,
            regret,
            expert: respondent.expert,
            belief: respondent.belief.clone(),
        })
    }

    /// A description of the problem, for plot titles.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The domain in the problem's own coordinates: the candidate set, or the box (what
    /// recommendations and records are written in).
    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    /// The domain the algorithms search: [`PreparedProblem::domain`] mapped as `problem.inputs`
    /// says (the unit cube by default, [`crate::inputs`]).
    pub fn search_domain(&self) -> &Domain {
        self.inputs.search_domain()
    }

    /// The map between the algorithms' coordinates and the problem's.
    pub fn input_map(&self) -> &InputMap {
        &self.inputs
    }

    /// The order-preserving affine map from the utility in the problem's own units (the test
    /// function's values, the data table's utility column) to the respondent's scale, on which
    /// [`PreparedProblem::utility`], the duels and the regrets are: the problem's `scaling`, then
    /// the respondent's `scale`. A gap g on the respondent's scale is g / `utility_map().scale` in
    /// the problem's units.
    pub fn utility_map(&self) -> Affine {
        self.utility_map
    }

    /// The candidate set (`None` for a box problem).
    pub fn candidates(&self) -> Option<&FiniteDomain> {
        match &self.domain {
            Domain::Finite(f) => Some(f),
            Domain::Box(_) => None,
        }
    }

    /// The number of candidates (0 for a box problem) and the dimension, as the memory estimate
    /// takes them ([`crate::ExperimentSpec::check_memory`]).
    pub fn shape(&self) -> (usize, usize) {
        (self.candidates().map_or(0, FiniteDomain::len), self.domain.dim())
    }

    /// The utility on the candidate set, on the respondent's scale (`None` for a box problem).
    pub fn utility(&self) -> Option<&GridFunction> {
        match &self.utility {
            Truth::Grid(g) => Some(g),
            Truth::Box(_) => None,
        }
    }

    /// The smallest and the largest utility on the respondent's scale: over the candidates, or on a
    /// box over [`BOX_DESIGN`] draws (the fixed stream of the scaling) and the known optimum.
    pub fn utility_range(&self) -> Result<(f64, f64)> {
        let values = match &self.utility {
            Truth::Grid(g) => g.values().to_vec(),
            Truth::Box(u) => {
                let Domain::Box(b) = &self.domain else {
                    return Err(crate::error::ExperimentError::spec("problem.domain", "a box utility off its box"));
                };
                let design = b.sample_candidates(BOX_DESIGN, &mut bohf_core::rng::seeded(0))?;
                let mut v = GridFunction::tabulate(u.as_ref(), &design)?.values().to_vec();
                v.push(self.regret.best_value());
                v
            }
        };
        Ok(values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v))))
    }

    /// The duel model (on the scaled utility, so its own scale is 1).
    pub fn duel_model(&self) -> DuelModel {
        self.model
    }

    /// The regret of queries and recommendations.
    pub fn regret(&self) -> &RegretModel {
        &self.regret
    }

    /// A fresh simulated respondent: duels from the duel model, evaluations with N(0, σ²) noise;
    /// labels by the synthetic expert of `respondent.expert`, if given (otherwise an error names
    /// the query kind).
    pub fn respondent(&self) -> Result<Combined> {
        let no_range = || {
            crate::error::ExperimentError::spec(
                "respondent.expert.f_range",
                "a box problem needs COBOL's [f_min, f_max] (the candidate set's range is the default only on grids)",
            )
        };
        Ok(match &self.utility {
            Truth::Grid(u) => {
                let c = Combined::new()
                    .with_duels(match &self.comparisons {
                        Some(Truth::Grid(fc)) => DuelRespondent::new(Arc::clone(fc), self.model)?,
                        _ => DuelRespondent::new(Arc::clone(u), self.model)?,
                    })
                    .with_values(NoisyValue::new(Arc::clone(u), self.noise_sd)?);
                match self.expert {
                    None => self.with_belief(c)?,
                    Some(e) => {
                        let [lo, hi] = e.f_range.unwrap_or([-u.max(), -u.min()]);
                        c.with_labels(SyntheticExpert::cobol(Arc::clone(u), e.accuracy, lo, hi)?)
                    }
                }
            }
            Truth::Box(u) => {
                let c = Combined::new()
                    .with_duels(match &self.comparisons {
                        Some(Truth::Box(fc)) => DuelRespondent::new(Arc::clone(fc), self.model)?,
                        _ => DuelRespondent::new(Arc::clone(u), self.model)?,
                    })
                    .with_values(NoisyValue::new(Arc::clone(u), self.noise_sd)?);
                match self.expert {
                    None => self.with_belief(c)?,
                    Some(e) => {
                        let [lo, hi] = e.f_range.ok_or_else(no_range)?;
                        c.with_labels(SyntheticExpert::cobol(Arc::clone(u), e.accuracy, lo, hi)?)
                    }
                }
            }
        })
    }
}

impl PreparedProblem {
    /// `c` with the labels of `respondent.belief`'s expert, if given; its mean must have the
    /// problem's dimension (an error names `respondent.belief.mean`).
    fn with_belief(&self, c: Combined) -> Result<Combined> {
        let Some(b) = &self.belief else { return Ok(c) };
        let d = self.domain.dim();
        if b.mean.len() != d {
            return Err(crate::error::ExperimentError::spec(
                "respondent.belief.mean",
                format!("has dimension {}, the problem has dimension {d}", b.mean.len()),
            ));
        }
        let e = bohf_problems::MvnBeliefExpert::new(b.mean.clone(), b.cov.clone())
            .map_err(|e| crate::error::ExperimentError::spec("respondent.belief", e.to_string()))?;
        Ok(c.with_labels(e))
    }
}

/// An error naming `respondent.comparisons` unless the problem has the comparison source asked for:
/// the low fidelity needs a `function` problem on a two-fidelity function, or an `svm` problem.
fn respondent_fits(problem: &ProblemSpec, respondent: &RespondentSpec) -> Result<()> {
    if respondent.comparisons == ComparisonSource::Same {
        return Ok(());
    }
    let field = "respondent.comparisons";
    match problem {
        ProblemSpec::Svm(_) => Ok(()),
        ProblemSpec::Function(p) => low_fidelity(&p.function).map(|_| ()).map_err(|e| {
            crate::error::ExperimentError::spec(field, format!("\"low-fidelity\" needs a two-fidelity function: {e}"))
        }),
        _ => Err(crate::error::ExperimentError::spec(
            field,
            "\"low-fidelity\" needs a `function` problem on a two-fidelity function (currin_exp or borehole) or an \
             `svm` problem",
        )),
    }
}

/// The title, with the comparison source when it is not the utility.
fn with_source(title: String, source: ComparisonSource) -> String {
    match source {
        ComparisonSource::Same => title,
        ComparisonSource::LowFidelity => format!("{title}, duels from the low fidelity"),
    }
}

/// A note on the scaling for the problem's title.
fn scaling_note(s: &bohf_problems::Scaling) -> String {
    match s {
        bohf_problems::Scaling::None => String::new(),
        bohf_problems::Scaling::Multiply(c) => format!(", ×{c}"),
        bohf_problems::Scaling::DifferenceRange(b) => format!(", differences in [-{b}, {b}]"),
        bohf_problems::Scaling::Range([lo, hi]) => format!(", scaled to [{lo}, {hi}]"),
        bohf_problems::Scaling::Standardise => ", standardised".into(),
    }
}

/// The utility of a problem spec (scaled, before the respondent's scale), its description, for an
/// svm problem its low fidelity f_c (tabulated with f, [`crate::svm_table`]), and the scaling's
/// affine map from the problem's own units.
fn tabulate(problem: &ProblemSpec) -> Result<(GridFunction, String, Option<GridFunction>, Affine)> {
    let (raw, title, scaling) = match problem {
        ProblemSpec::Rkhs(p) => {
            let kernel = p.kernel.name();
            (
                presets::rkhs_grid(p.kernel, p.points, &bohf_problems::Scaling::None)?,
                format!("RKHS function ({kernel}), {} points of [0, 1]{}", p.points, scaling_note(&p.scaling)),
                &p.scaling,
            )
        }
        ProblemSpec::Ackley(p) => {
            let sign = match p.sign {
                bohf_problems::AckleySign::Raw => "Ackley",
                bohf_problems::AckleySign::Negated => "−Ackley",
            };
            (
                presets::ackley_grid(p.points, p.lower, p.upper, p.sign, &bohf_problems::Scaling::None)?,
                format!("{sign}, {} points of [{}, {}]{}", p.points, p.lower, p.upper, scaling_note(&p.scaling)),
                &p.scaling,
            )
        }
        ProblemSpec::Catalyst(p) => {
            let table = bohf_problems::load_ocx24(&p.path, &p.filter)?;
            let title = format!(
                "OCx24 catalyst, {} {} compositions ({}, {} mA/cm²){}",
                table.len(),
                p.filter.elements.join("/"),
                p.filter.reaction,
                p.filter.current_density,
                scaling_note(&p.scaling)
            );
            (table.utility_function()?, title, &p.scaling)
        }
        // Both fidelities at once (the table is cached, `svm_table`).
        ProblemSpec::Svm(p) => {
            let (table, _) = crate::svm_table::svm_table(p, &|m| eprintln!("{m}"))?;
            let title = format!(
                "SVM tuning on MAGIC (d = 2: log₁₀ h, log₁₀ C), {} grid points, f = validation accuracy with {} \
                 training rows, f_c with {}",
                table.high.len(),
                p.train,
                p.comparison_train
            );
            return Ok((table.high, title, Some(table.low), Affine::identity()));
        }
        ProblemSpec::Function(p) => {
            let f = bohf_problems::by_name(&p.function, p.dim)?;
            let domain = match (&p.lower, &p.upper) {
                (Some(l), Some(u)) => BoxDomain::new(l.clone(), u.clone())?,
                _ => f.domain(),
            };
            let grid = domain.grid(p.points_per_dim)?;
            let title =
                format!("{} (d = {}), {} grid points{}", f.name(), f.dim(), grid.len(), scaling_note(&p.scaling));
            (GridFunction::tabulate(f.as_ref(), &grid)?, title, &p.scaling)
        }
    };
    let map =
        scaling.affine(raw.values()).map_err(|e| crate::error::ExperimentError::in_field("problem.scaling", e))?;
    Ok((raw.rescaled(&map), title, None, map))
}

#[cfg(test)]
mod tests;
