//! The loop the three rules share ([`LaplaceBo`]): the duel history, the Laplace preference GP
//! refitted after each answer, random initial duels, the recommendation, and each rule's choice of
//! the next duel on a finite candidate set or a box.

use crate::acquisition::{base_samples, duel_outcome_variance, eubo_with_gradient, qeubo_mc, qeubo_mc_with_gradient};
use crate::config::{LaplaceModelConfig, ValidLaplaceModelConfig};
use bohf_core::linalg::PsdFactor;
use bohf_core::rand::RngExt;
use bohf_core::special::expected_max_of_two;
use bohf_core::{
    Answer, BoxDomain, Choice, Comparison, Duel, Error, FiniteDomain, Point, Query, Result, StepDetails, argmax_lowest,
    argmax_lowest_by, check_pending,
};
use bohf_gp::laplace::{ValidLaplaceConfig, ValidLaplaceFitConfig, fit_laplace_refit, warm_start};
use bohf_gp::{LaplacePreferenceGp, PreferenceData, fit_laplace};
use bohf_kernels::Stationary;
use bohf_optim::{BoxMaximum, MultistartConfig, Objective, maximize_on_box, sobol_design};
use nalgebra::{DMatrix, DVector};
use rand::Rng;

mod choice;

pub use choice::{EXACT_SUBSETS, maximize_options_on_unit_box};

/// The rule that chooses a duel once the model is informed.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// EUBO in closed form; `pair_screen` candidates screened on a finite domain.
    Eubo {
        /// [`crate::EuboConfig::pair_screen`].
        pair_screen: usize,
    },
    /// qEUBO by a sample average with `mc_samples` base samples over `q` options: a duel at
    /// q = 2, a best-of-q choice ([`Query::Choice`]) at q ≥ 3.
    Qeubo {
        /// [`crate::QeuboConfig::pair_screen`].
        pair_screen: usize,
        /// [`crate::QeuboConfig::mc_samples`].
        mc_samples: usize,
        /// [`crate::QeuboConfig::q`].
        q: usize,
    },
    /// Dueling Thompson sampling; `pool` Sobol points on a box.
    Dts {
        /// [`crate::DtsConfig::pool`].
        pool: usize,
    },
}

/// What one suggestion computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// A uniformly random initial query (no acquisition).
    pub initial: bool,
    /// The acquisition value of the chosen query: EUBO or its qEUBO estimate, or for DTS the
    /// variance of the duel's outcome probability (NaN for an initial query).
    pub acquisition: f64,
    /// Queries (duels and choices) answered before this step.
    pub duels: usize,
    /// Calls of the acquisition (screened pairs or points, and local searches).
    pub evaluations: usize,
}

#[derive(Debug, Clone)]
enum Space {
    Finite { domain: FiniteDomain, unit: DMatrix<f64> },
    Box { domain: BoxDomain, search: Option<MultistartConfig> },
}

/// The state and loop of [`crate::Eubo`], [`crate::Qeubo`] and [`crate::Dts`]; see the crate docs.
#[derive(Debug, Clone)]
pub struct LaplaceBo {
    name: &'static str,
    model_config: LaplaceModelConfig,
    laplace: ValidLaplaceConfig,
    fit: ValidLaplaceFitConfig,
    initial: usize,
    rule: Rule,
    space: Space,
    /// The unit-cube map u = (x − lo) ⊘ width.
    lo: Vec<f64>,
    width: Vec<f64>,
    /// Answered duels and choices on a finite domain, by candidate index.
    finite_history: Vec<Comparison>,
    /// Answered duels and choices on a box, in unit-cube coordinates.
    box_history: Vec<Comparison<Vec<f64>>>,
    kernel: Stationary,
    /// The last hyperparameter fit's L-BFGS memory ([`bohf_gp::laplace::LaplaceFit::curvature`]),
    /// the start of the next refit's search.
    curvature: Vec<(Vec<f64>, Vec<f64>)>,
    model: Option<LaplacePreferenceGp>,
    /// The options (candidate indices) of the pending suggestion on a finite domain.
    pending_options: Option<Vec<usize>>,
    /// The options (coordinates) of the pending suggestion on a box.
    pending_points: Option<Vec<Vec<f64>>>,
    last: Option<Step>,
}

impl LaplaceBo {
    fn with_space(
        name: &'static str,
        model_config: ValidLaplaceModelConfig,
        initial: usize,
        rule: Rule,
        space: Space,
        lo: Vec<f64>,
        width: Vec<f64>,
    ) -> Result<Self> {
        let (fit, laplace) = (model_config.checked_fit().clone(), model_config.checked_laplace().clone());
        let model_config = model_config.into_config();
        let kernel = model_config.fit.start_kernel(model_config.kernel, lo.len())?;
        Ok(Self {
            name,
            model_config,
            laplace,
            fit,
            initial,
            rule,
            space,
            lo,
            width,
            finite_history: Vec::new(),
            box_history: Vec::new(),
            kernel,
            curvature: Vec::new(),
            model: None,
            pending_options: None,
            pending_points: None,
            last: None,
        })
    }

    /// On a finite candidate set (at least 2 candidates), coordinates mapped to the unit cube of the
    /// candidates' bounding box (a dimension where all candidates agree keeps width 1).
    pub(crate) fn finite(
        name: &'static str,
        model_config: ValidLaplaceModelConfig,
        initial: usize,
        rule: Rule,
        domain: &FiniteDomain,
    ) -> Result<Self> {
        if domain.len() < 2 {
            return Err(Error::invalid("domain", format!("{name} needs at least 2 candidates, got {}", domain.len())));
        }
        if let Rule::Qeubo { q, .. } = rule
            && q > domain.len()
        {
            return Err(Error::invalid(
                "q",
                format!("{name} asks {q} distinct options but the domain has {} candidates", domain.len()),
            ));
        }
        let pts = domain.points();
        let d = domain.dim();
        let lo: Vec<f64> = (0..d).map(|j| pts.column(j).min()).collect();
        let width: Vec<f64> = (0..d)
            .map(|j| {
                let w = pts.column(j).max() - lo[j];
                if w > 0.0 { w } else { 1.0 }
            })
            .collect();
        let unit = DMatrix::from_fn(pts.nrows(), d, |r, c| (pts[(r, c)] - lo[c]) / width[c]);
        let space = Space::Finite { domain: domain.clone(), unit };
        Self::with_space(name, model_config, initial, rule, space, lo, width)
    }

    /// On a box, coordinates mapped to its unit cube; `search` is the multistart search of EUBO and
    /// qEUBO over the product box (unused by DTS).
    pub(crate) fn boxed(
        name: &'static str,
        model_config: ValidLaplaceModelConfig,
        initial: usize,
        rule: Rule,
        domain: &BoxDomain,
        search: Option<MultistartConfig>,
    ) -> Result<Self> {
        let lo = domain.lower().to_vec();
        let width: Vec<f64> = domain.upper().iter().zip(&lo).map(|(u, l)| u - l).collect();
        let space = Space::Box { domain: domain.clone(), search };
        Self::with_space(name, model_config, initial, rule, space, lo, width)
    }

    /// The rule.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// The model settings.
    pub fn model_config(&self) -> &LaplaceModelConfig {
        &self.model_config
    }

    /// The Laplace preference GP after the answered queries (unit-cube coordinates), once a duel
    /// or choice between distinct points was answered.
    pub fn model(&self) -> Option<&LaplacePreferenceGp> {
        self.model.as_ref()
    }

    /// The current kernel hyperparameters (the start kernel before the first fit).
    pub fn kernel(&self) -> &Stationary {
        &self.kernel
    }

    /// The number of answered queries (duels and choices).
    pub fn answered(&self) -> usize {
        self.finite_history.len() + self.box_history.len()
    }

    /// The number of options per query: q for qEUBO, 2 (duels) for EUBO and DTS.
    pub fn options_per_query(&self) -> usize {
        match self.rule {
            Rule::Qeubo { q, .. } => q,
            _ => 2,
        }
    }

    /// What the last suggestion computed.
    pub fn last_step(&self) -> Option<&Step> {
        self.last.as_ref()
    }

    /// Unit-cube coordinates of a point of the domain.
    pub fn to_unit(&self, x: &[f64]) -> Vec<f64> {
        x.iter().zip(self.lo.iter().zip(&self.width)).map(|(v, (l, w))| (v - l) / w).collect()
    }

    /// The point of the domain at unit-cube coordinates `u`: on a box [`BoxDomain::from_unit`] (the
    /// one map, clamped into the box's own bounds: `lo + width` can round past the upper bound);
    /// on a finite domain, in its candidates' bounding box.
    pub fn from_unit(&self, u: &[f64]) -> Vec<f64> {
        match &self.space {
            Space::Box { domain, .. } => domain.from_unit(u),
            Space::Finite { .. } => {
                u.iter().zip(self.lo.iter().zip(&self.width)).map(|(v, (l, w))| (l + v * w).clamp(*l, l + w)).collect()
            }
        }
    }

    fn data(&self) -> Result<PreferenceData> {
        match &self.space {
            Space::Finite { unit, .. } => PreferenceData::from_candidate_comparisons(unit, &self.finite_history),
            Space::Box { .. } => {
                PreferenceData::from_point_comparisons(&self.box_history, self.model_config.merge_tolerance)
            }
        }
    }

    /// Refits after a new duel: the hyperparameters by maximum evidence on the `refit_every`
    /// schedule (from the current ones), else the MAP utilities only (warm-started).
    fn refit(&mut self) -> Result<()> {
        let data = self.data()?;
        if !data.is_informative() {
            self.model = None;
            return Ok(());
        }
        let every = self.model_config.refit_every;
        let hyper = every > 0 && (self.model.is_none() || self.answered().is_multiple_of(every));
        let model = if hyper {
            // The current kernel is a valid start: the start kernel, or a fit's result, which
            // `fit_laplace` clamps into its bounds (exp(log bound) can round an ulp outside). A
            // refit starts its search with the previous fit's L-BFGS curvature.
            let fit = match &self.model {
                Some(m) => fit_laplace_refit(&self.fit, &self.kernel, &data, &warm_start(m, &data), &self.curvature)?,
                None => fit_laplace(&self.fit, &self.kernel, &data)?,
            };
            self.kernel = fit.model.kernel().clone();
            self.curvature = fit.curvature;
            fit.model
        } else {
            let warm = match &self.model {
                Some(m) => warm_start(m, &data),
                None => DVector::zeros(data.len()),
            };
            LaplacePreferenceGp::fit_warm(self.kernel.clone(), data, &self.laplace, &warm)?
        };
        self.model = Some(model);
        Ok(())
    }

    /// A uniformly random duel of two distinct candidates, or two uniform points of the box.
    fn random_duel(&self, rng: &mut dyn Rng) -> Result<Query> {
        match &self.space {
            Space::Finite { domain, .. } => domain.random_duel(rng),
            Space::Box { domain, .. } => Ok(domain.random_duel(rng)),
        }
    }

    /// `q` ≥ 3 uniformly random options: distinct candidates (rejection of repeats), or uniform
    /// points of the box.
    fn random_choice(&self, q: usize, rng: &mut dyn Rng) -> Result<Query> {
        match &self.space {
            Space::Finite { domain, .. } => {
                let mut picked: Vec<usize> = Vec::with_capacity(q);
                while picked.len() < q {
                    let i = rng.random_range(0..domain.len());
                    if !picked.contains(&i) {
                        picked.push(i);
                    }
                }
                Ok(Query::Choice(picked.into_iter().map(|i| domain.point(i)).collect::<Result<_>>()?))
            }
            Space::Box { domain, .. } => {
                Ok(Query::Choice((0..q).map(|_| Point::continuous(domain.sample(rng))).collect()))
            }
        }
    }

    pub(crate) fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let duels = self.answered();
        let q = self.options_per_query();
        let (query, step) = match &self.model {
            Some(gp) if duels >= self.initial && q > 2 => {
                let (query, acquisition, evaluations) = match &self.space {
                    Space::Finite { domain, unit } => {
                        let (options, v, e) = self.finite_options(gp, unit, rng)?;
                        (Query::Choice(options.into_iter().map(|i| domain.point(i)).collect::<Result<_>>()?), v, e)
                    }
                    Space::Box { search, .. } => {
                        let (options, v, e) = self.box_options(gp, search.as_ref(), rng)?;
                        (Query::Choice(options.iter().map(|u| Point::continuous(self.from_unit(u))).collect()), v, e)
                    }
                };
                (query, Step { initial: false, acquisition, duels, evaluations })
            }
            Some(gp) if duels >= self.initial => {
                let (query, acquisition, evaluations) = match &self.space {
                    Space::Finite { domain, unit } => {
                        let (i, j, v, e) = self.finite_choice(gp, unit, rng)?;
                        (Query::Duel(domain.point(i)?, domain.point(j)?), v, e)
                    }
                    Space::Box { search, .. } => {
                        let (x, y, v, e) = self.box_choice(gp, search.as_ref(), rng)?;
                        (
                            Query::Duel(Point::continuous(self.from_unit(&x)), Point::continuous(self.from_unit(&y))),
                            v,
                            e,
                        )
                    }
                };
                (query, Step { initial: false, acquisition, duels, evaluations })
            }
            _ if q > 2 => {
                (self.random_choice(q, rng)?, Step { initial: true, acquisition: f64::NAN, duels, evaluations: 0 })
            }
            _ => (self.random_duel(rng)?, Step { initial: true, acquisition: f64::NAN, duels, evaluations: 0 }),
        };
        let points = query.points();
        match &self.space {
            Space::Finite { .. } => self.pending_options = Some(points.iter().map(|p| p.index.unwrap_or(0)).collect()),
            Space::Box { .. } => self.pending_points = Some(points.iter().map(|p| p.coords.clone()).collect()),
        }
        self.last = Some(step);
        Ok(query)
    }

    /// Records an answered duel, or (qEUBO only) an answered best-of-k choice, and refits.
    pub(crate) fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        let choice = match query {
            Query::Choice(options) if matches!(self.rule, Rule::Qeubo { .. }) => {
                query.check_answer(&answer)?;
                Some((options, answer.choice_index(options.len())?))
            }
            _ => None,
        };
        match &self.space {
            Space::Finite { domain, .. } => {
                let comparison = match choice {
                    Some((options, chosen)) => {
                        let idx = options
                            .iter()
                            .enumerate()
                            .map(|(j, p)| domain.candidate_index(p, &format!("option {j}")))
                            .collect::<Result<Vec<usize>>>()?;
                        check_pending(self.pending_options.clone(), idx.clone())?;
                        Choice::new(idx, chosen)?.into()
                    }
                    None => {
                        let duel = domain.answered_duel(query, &answer, None, self.name)?;
                        check_pending(self.pending_options.clone(), vec![duel.first, duel.second])?;
                        duel.into()
                    }
                };
                self.finite_history.push(comparison);
            }
            Space::Box { domain, .. } => {
                let comparison = match choice {
                    Some((options, chosen)) => {
                        let pts = options
                            .iter()
                            .enumerate()
                            .map(|(j, p)| domain.checked_point(p, &format!("option {j}")).map(<[f64]>::to_vec))
                            .collect::<Result<Vec<Vec<f64>>>>()?;
                        check_pending(self.pending_points.clone(), pts.clone())?;
                        Choice::new(pts.iter().map(|x| self.to_unit(x)).collect(), chosen)?.into()
                    }
                    None => {
                        let (p, q) = query.duel_points(self.name)?;
                        let x = domain.checked_point(p, "first")?.to_vec();
                        let y = domain.checked_point(q, "second")?.to_vec();
                        let first_wins = answer.duel_outcome()?;
                        check_pending(self.pending_points.clone(), vec![x.clone(), y.clone()])?;
                        Duel { first: self.to_unit(&x), second: self.to_unit(&y), first_wins }.into()
                    }
                };
                self.box_history.push(comparison);
            }
        }
        let (kernel, model) = (self.kernel.clone(), self.model.clone());
        if let Err(e) = self.refit() {
            // Leave the state as before this answer.
            self.finite_history.truncate(self.finite_history.len().saturating_sub(usize::from(self.is_finite())));
            self.box_history.truncate(self.box_history.len().saturating_sub(usize::from(!self.is_finite())));
            (self.kernel, self.model) = (kernel, model);
            return Err(e);
        }
        self.pending_options = None;
        self.pending_points = None;
        Ok(())
    }

    fn is_finite(&self) -> bool {
        matches!(self.space, Space::Finite { .. })
    }

    /// Finite: the candidate with the largest posterior mean (lowest index on ties; candidate 0
    /// before the model is informed). Box: the compared point with the largest posterior mean (the
    /// box's centre before).
    pub(crate) fn recommend(&self) -> Result<Point> {
        match (&self.space, &self.model) {
            (Space::Finite { domain, .. }, None) => domain.point(0),
            (Space::Finite { domain, unit }, Some(gp)) => domain.point(argmax_lowest(gp.mean(unit)?.iter().copied())?),
            (Space::Box { .. }, None) => Ok(Point::continuous(self.from_unit(&vec![0.5; self.lo.len()]))),
            (Space::Box { .. }, Some(gp)) => {
                let latent = gp.data().points();
                let best = argmax_lowest(gp.utilities().iter().copied())?;
                let u: Vec<f64> = latent.row(best).iter().copied().collect();
                Ok(Point::continuous(self.from_unit(&u)))
            }
        }
    }

    /// `phase` (initial, acquisition), `acquisition`, `duels`, `evaluations`, `lengthscales`,
    /// `outputscale`.
    pub(crate) fn step_details(&self) -> StepDetails {
        let Some(s) = &self.last else { return Vec::new() };
        vec![
            ("phase", if s.initial { "initial" } else { "acquisition" }.to_string()),
            ("acquisition", s.acquisition.to_string()),
            ("duels", s.duels.to_string()),
            ("evaluations", s.evaluations.to_string()),
            ("lengthscales", format!("{:?}", self.kernel.lengthscales())),
            ("outputscale", self.kernel.variance().to_string()),
        ]
    }
}
