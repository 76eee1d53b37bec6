//! A spec's problem made concrete: the utility on its candidate set, the simulated respondent and
//! the regret.
//!
//! The respondent's scale s is folded into the utility once: the prepared utility is s·u, duels are
//! answered with P(x ≻ x′) = μ(s·u(x) − s·u(x′)), scalar evaluations with s·u(x) + N(0, σ²), and
//! the regret of [`crate::metrics`] uses the same differences h = s·(u(x) − u(x′)). So the scale
//! of every quantity is the one the respondent answers on, as in the papers (MR-LPF's ×5 and
//! [−3, 3] scalings, PF-TS's GP-TS oracle f(x) + N(0, 1) on the BTL utility f).

use crate::error::Result;
use crate::metrics::RegretModel;
use crate::spec::{ProblemSpec, RespondentSpec, ResponseModel};
use bohf_core::{BoxDomain, FiniteDomain};
use bohf_problems::respondents::Combined;
use bohf_problems::{DuelModel, DuelRespondent, GridFunction, NoisyValue, presets};
use std::sync::Arc;

/// The utility, respondent model and regret of an experiment.
#[derive(Debug, Clone)]
pub struct PreparedProblem {
    title: String,
    utility: Arc<GridFunction>,
    model: DuelModel,
    noise_sd: f64,
    regret: RegretModel,
}

impl PreparedProblem {
    /// Builds the problem of a (validated) spec: tabulates or loads the utility, applies the
    /// scaling and the respondent's scale.
    pub fn build(problem: &ProblemSpec, respondent: &RespondentSpec) -> Result<Self> {
        problem.validate()?;
        respondent.validate()?;
        let (base, title) = tabulate(problem)?;
        let utility = Arc::new(base.rescaled(&bohf_problems::Affine::new(respondent.scale, 0.0)?));
        let model = match respondent.model {
            ResponseModel::Stochastic => DuelModel::stochastic(respondent.link, 1.0)?,
            ResponseModel::Deterministic => DuelModel::Deterministic,
        };
        let regret = RegretModel::new(&utility, model);
        Ok(Self { title, utility, model, noise_sd: respondent.noise_sd, regret })
    }

    /// A description of the problem, for plot titles.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The candidate set.
    pub fn domain(&self) -> &FiniteDomain {
        self.utility.domain()
    }

    /// The utility on the respondent's scale.
    pub fn utility(&self) -> &GridFunction {
        &self.utility
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
    /// labels are not answered (an error names the query kind).
    pub fn respondent(&self) -> Result<Combined> {
        Ok(Combined::new()
            .with_duels(DuelRespondent::new(Arc::clone(&self.utility), self.model)?)
            .with_values(NoisyValue::new(Arc::clone(&self.utility), self.noise_sd)?))
    }
}

/// The utility of a problem spec (before the respondent's scale) and its description.
fn tabulate(problem: &ProblemSpec) -> Result<(GridFunction, String)> {
    let scaling_note = |s: &bohf_problems::Scaling| match s {
        bohf_problems::Scaling::None => String::new(),
        bohf_problems::Scaling::Multiply(c) => format!(", ×{c}"),
        bohf_problems::Scaling::DifferenceRange(b) => format!(", differences in [-{b}, {b}]"),
        bohf_problems::Scaling::Range([lo, hi]) => format!(", scaled to [{lo}, {hi}]"),
        bohf_problems::Scaling::Standardise => ", standardised".into(),
    };
    Ok(match problem {
        ProblemSpec::Rkhs(p) => {
            let kernel = p.kernel.name();
            (
                presets::rkhs_grid(p.kernel, p.points, &p.scaling)?,
                format!("RKHS function ({kernel}), {} points of [0, 1]{}", p.points, scaling_note(&p.scaling)),
            )
        }
        ProblemSpec::Ackley(p) => {
            let sign = match p.sign {
                bohf_problems::AckleySign::Raw => "Ackley",
                bohf_problems::AckleySign::Negated => "−Ackley",
            };
            (
                presets::ackley_grid(p.points, p.lower, p.upper, p.sign, &p.scaling)?,
                format!("{sign}, {} points of [{}, {}]{}", p.points, p.lower, p.upper, scaling_note(&p.scaling)),
            )
        }
        ProblemSpec::Catalyst(p) => {
            let table = bohf_problems::load_ocx24(&p.path, &p.filter)?;
            let f = p.scaling.apply(&table.utility_function()?)?;
            let title = format!(
                "OCx24 catalyst, {} {} compositions ({}, {} mA/cm²){}",
                table.len(),
                p.filter.elements.join("/"),
                p.filter.reaction,
                p.filter.current_density,
                scaling_note(&p.scaling)
            );
            (f, title)
        }
        ProblemSpec::Function(p) => {
            let f = bohf_problems::by_name(&p.function, p.dim)?;
            let domain = match (&p.lower, &p.upper) {
                (Some(l), Some(u)) => BoxDomain::new(l.clone(), u.clone())?,
                _ => f.domain(),
            };
            let grid = domain.grid(p.points_per_dim)?;
            let g = p.scaling.apply(&GridFunction::tabulate(f.as_ref(), &grid)?)?;
            let title =
                format!("{} (d = {}), {} grid points{}", f.name(), f.dim(), grid.len(), scaling_note(&p.scaling));
            (g, title)
        }
    })
}

#[cfg(test)]
mod tests;
