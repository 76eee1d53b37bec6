//! The loop the three rules share ([`LaplaceBo`]): the duel history, the Laplace preference GP
//! refitted after each answer, random initial duels, the recommendation, and each rule's choice of
//! the next duel on a finite candidate set or a box.

use crate::acquisition::{base_samples, duel_outcome_variance, eubo_with_gradient, qeubo_mc, qeubo_mc_with_gradient};
use crate::config::LaplaceModelConfig;
use bohf_core::linalg::PsdFactor;
use bohf_core::special::expected_max_of_two;
use bohf_core::{
    Answer, BoxDomain, Duel, Error, FiniteDomain, Point, Query, Result, StepDetails, argmax_lowest, argmax_lowest_by,
    check_pending,
};
use bohf_gp::laplace::{ValidLaplaceConfig, ValidLaplaceFitConfig, warm_start};
use bohf_gp::{LaplacePreferenceGp, PreferenceData, fit_laplace};
use bohf_kernels::Stationary;
use bohf_optim::{BoxMaximum, MultistartConfig, Objective, maximize_on_box, sobol_design};
use nalgebra::{DMatrix, DVector};
use rand::Rng;

/// The rule that chooses a duel once the model is informed.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// EUBO in closed form; `pair_screen` candidates screened on a finite domain.
    Eubo {
        /// [`crate::EuboConfig::pair_screen`].
        pair_screen: usize,
    },
    /// qEUBO by a sample average with `mc_samples` base samples, q = 2.
    Qeubo {
        /// [`crate::QeuboConfig::pair_screen`].
        pair_screen: usize,
        /// [`crate::QeuboConfig::mc_samples`].
        mc_samples: usize,
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
    /// A uniformly random initial duel (no acquisition).
    pub initial: bool,
    /// The acquisition value of the chosen duel: EUBO or its qEUBO estimate, or for DTS the
    /// variance of the duel's outcome probability (NaN for an initial duel).
    pub acquisition: f64,
    /// Duels answered before this step.
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
    finite_duels: Vec<Duel>,
    /// Duels on a box, in unit-cube coordinates.
    box_duels: Vec<(Vec<f64>, Vec<f64>, bool)>,
    kernel: Stationary,
    model: Option<LaplacePreferenceGp>,
    pending_pair: Option<(usize, usize)>,
    pending_points: Option<(Vec<f64>, Vec<f64>)>,
    last: Option<Step>,
}

impl LaplaceBo {
    fn with_space(
        name: &'static str,
        model_config: LaplaceModelConfig,
        initial: usize,
        rule: Rule,
        space: Space,
        lo: Vec<f64>,
        width: Vec<f64>,
    ) -> Result<Self> {
        let fit = model_config.fit.check()?;
        let laplace = model_config.fit.laplace.check()?;
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
            finite_duels: Vec::new(),
            box_duels: Vec::new(),
            kernel,
            model: None,
            pending_pair: None,
            pending_points: None,
            last: None,
        })
    }

    /// On a finite candidate set (at least 2 candidates), coordinates mapped to the unit cube of the
    /// candidates' bounding box (a dimension where all candidates agree keeps width 1).
    pub(crate) fn finite(
        name: &'static str,
        model_config: LaplaceModelConfig,
        initial: usize,
        rule: Rule,
        domain: &FiniteDomain,
    ) -> Result<Self> {
        if domain.len() < 2 {
            return Err(Error::invalid("domain", format!("{name} needs at least 2 candidates, got {}", domain.len())));
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
        model_config: LaplaceModelConfig,
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

    /// The Laplace preference GP after the answered duels (unit-cube coordinates), once a duel
    /// between two distinct points was answered.
    pub fn model(&self) -> Option<&LaplacePreferenceGp> {
        self.model.as_ref()
    }

    /// The current kernel hyperparameters (the start kernel before the first fit).
    pub fn kernel(&self) -> &Stationary {
        &self.kernel
    }

    /// The number of answered duels.
    pub fn answered(&self) -> usize {
        self.finite_duels.len() + self.box_duels.len()
    }

    /// What the last suggestion computed.
    pub fn last_step(&self) -> Option<&Step> {
        self.last.as_ref()
    }

    /// Unit-cube coordinates of a point of the domain.
    pub fn to_unit(&self, x: &[f64]) -> Vec<f64> {
        x.iter().zip(self.lo.iter().zip(&self.width)).map(|(v, (l, w))| (v - l) / w).collect()
    }

    /// The point of the domain at unit-cube coordinates `u` (clamped into the box against rounding).
    pub fn from_unit(&self, u: &[f64]) -> Vec<f64> {
        u.iter().zip(self.lo.iter().zip(&self.width)).map(|(v, (l, w))| (l + v * w).clamp(*l, l + w)).collect()
    }

    fn data(&self) -> Result<PreferenceData> {
        match &self.space {
            Space::Finite { unit, .. } => PreferenceData::from_candidates(unit, &self.finite_duels),
            Space::Box { .. } => PreferenceData::from_points(&self.box_duels, self.model_config.merge_tolerance),
        }
    }

    /// Refits after a new duel: the hyperparameters by maximum evidence on the `refit_every`
    /// schedule (from the current ones), else the MAP utilities only (warm-started).
    fn refit(&mut self) -> Result<()> {
        let data = self.data()?;
        if data.pairs().is_empty() {
            self.model = None;
            return Ok(());
        }
        let every = self.model_config.refit_every;
        let hyper = every > 0 && (self.model.is_none() || self.answered().is_multiple_of(every));
        let model = if hyper {
            let fit = fit_laplace(&self.fit, &self.warm_kernel()?, &data)?;
            self.kernel = fit.model.kernel().clone();
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

    /// The current kernel as the start of a hyperparameter fit, clamped into the fit's bounds: a
    /// fit's optimum on a bound comes back as exp(log bound), which can lie an ulp outside it, and
    /// [`fit_laplace`] refuses a start outside its bounds.
    fn warm_kernel(&self) -> Result<Stationary> {
        let fit = &self.model_config.fit;
        let [lo, hi] = fit.effective_lengthscale_bounds();
        let ls: Vec<f64> = self.kernel.lengthscales().iter().map(|l| l.clamp(lo, hi)).collect();
        let k = if ls.len() == 1 {
            Stationary::new(self.kernel.kind(), ls[0])?
        } else {
            Stationary::new(self.kernel.kind(), ls[0])?.with_ard(ls)?
        };
        let v = self.kernel.variance();
        k.with_variance(if fit.learn_outputscale {
            v.clamp(fit.outputscale_bounds[0], fit.outputscale_bounds[1])
        } else {
            v
        })
    }

    /// A uniformly random duel of two distinct candidates, or two uniform points of the box.
    fn random_duel(&self, rng: &mut dyn Rng) -> Result<Query> {
        match &self.space {
            Space::Finite { domain, .. } => domain.random_duel(rng),
            Space::Box { domain, .. } => Ok(domain.random_duel(rng)),
        }
    }

    pub(crate) fn suggest(&mut self, rng: &mut dyn Rng) -> Result<Query> {
        let duels = self.answered();
        let (query, step) = match &self.model {
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
            _ => (self.random_duel(rng)?, Step { initial: true, acquisition: f64::NAN, duels, evaluations: 0 }),
        };
        let (p, q) = query.duel_points(self.name)?;
        match &self.space {
            Space::Finite { .. } => self.pending_pair = Some((p.index.unwrap_or(0), q.index.unwrap_or(0))),
            Space::Box { .. } => self.pending_points = Some((p.coords.clone(), q.coords.clone())),
        }
        self.last = Some(step);
        Ok(query)
    }

    /// The screened candidates of a finite pair search: all if at most `screen`, else the `screen`
    /// largest m + σ (ties: lower index) with the argmax of m put in place of the last if missing;
    /// in increasing index order.
    fn screened(m: &DVector<f64>, v: &DVector<f64>, screen: usize) -> Result<Vec<usize>> {
        let n = m.len();
        if n <= screen {
            return Ok((0..n).collect());
        }
        let score: Vec<f64> = (0..n).map(|i| m[i] + v[i].max(0.0).sqrt()).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
        order.truncate(screen);
        let best = argmax_lowest(m.iter().copied())?;
        if !order.contains(&best) {
            order[screen - 1] = best;
        }
        order.sort_unstable();
        Ok(order)
    }

    /// (first, second, acquisition value, evaluations) on the candidates.
    fn finite_choice(
        &self,
        gp: &LaplacePreferenceGp,
        unit: &DMatrix<f64>,
        rng: &mut dyn Rng,
    ) -> Result<(usize, usize, f64, usize)> {
        let screen = match self.rule {
            Rule::Eubo { pair_screen } | Rule::Qeubo { pair_screen, .. } => pair_screen,
            Rule::Dts { .. } => return self.dts_choice(gp, unit, rng),
        };
        let m = gp.mean(unit)?;
        let v = gp.variance(unit)?;
        let idx = Self::screened(&m, &v, screen)?;
        let sub = DMatrix::from_fn(idx.len(), unit.ncols(), |r, c| unit[(idx[r], c)]);
        let ms = DVector::from_fn(idx.len(), |r, _| m[idx[r]]);
        let cov = gp.covariance(&sub)?;
        let k = idx.len();
        let pairs = (0..k).flat_map(|p| (p + 1..k).map(move |q| (p, q)));
        let ((p, q), value) = match self.rule {
            Rule::Qeubo { mc_samples, .. } => {
                let z = base_samples(2, mc_samples, rng);
                let mut scored = Vec::with_capacity(k * (k - 1) / 2);
                for (p, q) in pairs {
                    let mean = DVector::from_vec(vec![ms[p], ms[q]]);
                    let c = DMatrix::from_row_slice(2, 2, &[cov[(p, p)], cov[(p, q)], cov[(q, p)], cov[(q, q)]]);
                    scored.push(((p, q), qeubo_mc(&mean, &c, &z)?));
                }
                argmax_lowest_by("qEUBO over candidate pairs", scored)?
            }
            _ => argmax_lowest_by(
                "EUBO over candidate pairs",
                pairs
                    .map(|(p, q)| ((p, q), expected_max_of_two(ms[p], ms[q], cov[(p, p)], cov[(q, q)], cov[(p, q)]).0)),
            )?,
        };
        Ok((idx[p], idx[q], value, k * (k - 1) / 2))
    }

    /// DTS on a pool of points (rows of `pool`, unit coordinates): the argmax of one joint posterior
    /// sample, then the argmax of the variance of the duel's outcome probability against it.
    /// Returns (first, second, that variance, pool size).
    fn dts_choice(
        &self,
        gp: &LaplacePreferenceGp,
        pool: &DMatrix<f64>,
        rng: &mut dyn Rng,
    ) -> Result<(usize, usize, f64, usize)> {
        let m = gp.mean(pool)?;
        let cov = gp.covariance(pool)?;
        let sample = PsdFactor::new(&cov)?.sample(&m, rng)?;
        let first = argmax_lowest(sample.iter().copied())?;
        let (link, scale) = (gp.config().link, gp.config().scale);
        let variance: Vec<f64> = (0..pool.nrows())
            .map(|j| {
                duel_outcome_variance(
                    m[first] - m[j],
                    cov[(first, first)] + cov[(j, j)] - 2.0 * cov[(first, j)],
                    link,
                    scale,
                )
            })
            .collect();
        let second = argmax_lowest(variance.iter().copied())?;
        Ok((first, second, variance[second], pool.nrows()))
    }

    /// (first, second in unit coordinates, acquisition value, evaluations) on a box.
    fn box_choice(
        &self,
        gp: &LaplacePreferenceGp,
        search: Option<&MultistartConfig>,
        rng: &mut dyn Rng,
    ) -> Result<(Vec<f64>, Vec<f64>, f64, usize)> {
        let d = self.lo.len();
        if let Rule::Dts { pool } = self.rule {
            let cube = BoxDomain::cube(0.0, 1.0, d)?;
            let mut rows = if d <= bohf_optim::MAX_SOBOL_DIM {
                sobol_design(&cube, pool, rng)?
            } else {
                (0..pool).map(|_| cube.sample(rng)).collect()
            };
            let latent = gp.data().points();
            rows.extend((0..latent.nrows()).map(|r| latent.row(r).iter().copied().collect::<Vec<f64>>()));
            let pts = DMatrix::from_fn(rows.len(), d, |r, c| rows[r][c]);
            let (i, j, v, e) = self.dts_choice(gp, &pts, rng)?;
            return Ok((rows[i].clone(), rows[j].clone(), v, e));
        }
        let search = search.cloned().unwrap_or_default();
        let best = match self.rule {
            Rule::Qeubo { mc_samples, .. } => {
                let z = base_samples(2, mc_samples, rng);
                maximize_options_on_unit_box(gp, 2, Some(&z), &search, rng)?
            }
            _ => maximize_options_on_unit_box(gp, 2, None, &search, rng)?,
        };
        Ok((best.x[..d].to_vec(), best.x[d..].to_vec(), best.value, best.evaluations))
    }

    pub(crate) fn observe(&mut self, query: &Query, answer: Answer) -> Result<()> {
        match &self.space {
            Space::Finite { domain, .. } => {
                let duel = domain.answered_duel(query, &answer, self.pending_pair, self.name)?;
                self.finite_duels.push(duel);
            }
            Space::Box { domain, .. } => {
                let (p, q) = query.duel_points(self.name)?;
                let x = domain.checked_point(p, "first")?.to_vec();
                let y = domain.checked_point(q, "second")?.to_vec();
                let first_wins = answer.duel_outcome()?;
                check_pending(self.pending_points.clone(), (x.clone(), y.clone()))?;
                let (ux, uy) = (self.to_unit(&x), self.to_unit(&y));
                self.box_duels.push((ux, uy, first_wins));
            }
        }
        let (kernel, model) = (self.kernel.clone(), self.model.clone());
        if let Err(e) = self.refit() {
            // Leave the state as before this answer.
            self.finite_duels.truncate(self.finite_duels.len().saturating_sub(usize::from(self.is_finite())));
            self.box_duels.truncate(self.box_duels.len().saturating_sub(usize::from(!self.is_finite())));
            (self.kernel, self.model) = (kernel, model);
            return Err(e);
        }
        self.pending_pair = None;
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

/// EUBO (`z` = None, q = 2) or qEUBO (`z` the q × S base samples) of the q options whose unit
/// coordinates are the consecutive d-blocks of x, as a [`bohf_optim::Objective`].
struct OptionsAcquisition<'a> {
    gp: &'a LaplacePreferenceGp,
    q: usize,
    d: usize,
    z: Option<&'a DMatrix<f64>>,
}

impl Objective for OptionsAcquisition<'_> {
    fn value(&mut self, x: &[f64]) -> Result<f64> {
        let xs = DMatrix::from_row_slice(self.q, self.d, x);
        let (m, c) = self.gp.joint(&xs)?;
        match self.z {
            Some(z) => qeubo_mc(&m, &c, z),
            None => Ok(expected_max_of_two(m[0], m[1], c[(0, 0)], c[(1, 1)], c[(0, 1)]).0),
        }
    }

    fn value_and_gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<f64> {
        let jp = self.gp.joint_with_gradient(&DMatrix::from_row_slice(self.q, self.d, x))?;
        let (v, g) = match self.z {
            Some(z) => qeubo_mc_with_gradient(&jp, z)?,
            None => eubo_with_gradient(&jp)?,
        };
        grad.copy_from_slice(&g);
        Ok(v)
    }
}

/// The q options maximising qEUBO (`z`: q × S base samples, [`base_samples`]) or, with `z` = None
/// and q = 2, EUBO in closed form, over the product of q copies of the unit cube [0, 1]^d of a
/// Laplace GP's inputs, by bohf-optim's multistart L-BFGS with the analytic gradient. The result's
/// `x` holds the options' coordinates one after the other. This is the box search of [`crate::Eubo`]
/// and [`crate::Qeubo`] (q = 2), and the q-option acquisition for best-of-q queries.
///
/// Errors: q < 2, EUBO with q ≠ 2, base samples with other than q rows, and the search's errors.
pub fn maximize_options_on_unit_box(
    gp: &LaplacePreferenceGp,
    q: usize,
    z: Option<&DMatrix<f64>>,
    search: &MultistartConfig,
    rng: &mut (impl Rng + ?Sized),
) -> Result<BoxMaximum> {
    if q < 2 || (z.is_none() && q != 2) {
        return Err(Error::invalid("q", format!("EUBO needs q = 2 and qEUBO q ≥ 2 options, got {q}")));
    }
    if let Some(z) = z
        && z.nrows() != q
    {
        return Err(Error::dims("qEUBO: rows of the base samples", q, z.nrows()));
    }
    let d = gp.data().dim();
    let product = BoxDomain::cube(0.0, 1.0, q * d)?;
    maximize_on_box(&mut OptionsAcquisition { gp, q, d, z }, &product, rng, &[], search)
}
