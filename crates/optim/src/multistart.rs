//! Multistart maximisation over a box: screen a space-filling design and a uniform sample, refine
//! the best points (and the caller's extra starts) with [`minimize_bounded`] on −f, keep the best.

use crate::local::{LocalConfig, LocalResult, check_bounds, minimize_bounded};
use bohf_core::rand::{Rng, RngExt};
use bohf_core::{AtField, BoxDomain, Error, Result};
use serde::{Deserialize, Serialize};

/// The largest design supported (the Sobol generator's 2¹⁶ points per sequence).
pub const MAX_DESIGN: usize = 1 << 16;

/// The largest dimension of the Sobol design ([`sobol_burley::NUM_DIMENSIONS`]); use `design = 0`
/// beyond it.
pub const MAX_SOBOL_DIM: usize = sobol_burley::NUM_DIMENSIONS as usize;

/// An objective to maximise: its value alone (for screening) and with its gradient (for the local
/// refinement). Every closure `FnMut(&[f64], &mut [f64]) -> Result<f64>` that returns f(x) and
/// writes ∇f(x) is one (its [`Objective::value`] then computes the gradient too, into a scratch
/// buffer); implement the trait directly when the value alone is cheaper.
pub trait Objective {
    /// f(x).
    fn value(&mut self, x: &[f64]) -> Result<f64>;
    /// f(x), with ∇f(x) written into `grad` (of length d).
    fn value_and_gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<f64>;
}

impl<F: FnMut(&[f64], &mut [f64]) -> Result<f64>> Objective for F {
    fn value(&mut self, x: &[f64]) -> Result<f64> {
        let mut scratch = vec![0.0; x.len()];
        self(x, &mut scratch)
    }
    fn value_and_gradient(&mut self, x: &[f64], grad: &mut [f64]) -> Result<f64> {
        self(x, grad)
    }
}

/// Settings of [`maximize_on_box`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MultistartConfig {
    /// Points of the scrambled Sobol design screened for starts (0 for none; at most 2¹⁶, and only
    /// in dimension ≤ 256).
    pub design: usize,
    /// Uniform random points screened for starts (0 for none).
    pub samples: usize,
    /// The number of best screened points refined by a local search (fewer if fewer were
    /// screened); the caller's extra starts are refined in addition.
    pub starts: usize,
    /// Settings of each local search ([`minimize_bounded`]).
    pub local: LocalConfig,
}

impl Default for MultistartConfig {
    /// 256 Sobol points, 256 uniform points, 5 starts, the default [`LocalConfig`] (BoTorch's
    /// tutorials call `optimize_acqf` with 512–1024 raw samples and 10–20 restarts; fewer here so
    /// that an 8-D GP-UCB step at t = 100 stays well under 30 ms).
    fn default() -> Self {
        Self { design: 256, samples: 256, starts: 5, local: LocalConfig::default() }
    }
}

bohf_core::validated! {
    /// A [`MultistartConfig`] that passed [`MultistartConfig::check`].
    pub struct ValidMultistartConfig(MultistartConfig);
}

impl MultistartConfig {
    /// The one check of the settings; errors name the first invalid field (`design`, `samples`,
    /// `starts`, `local.…`).
    pub fn check(&self) -> Result<ValidMultistartConfig> {
        if self.design > MAX_DESIGN {
            return Err(Error::invalid("design", format!("at most {MAX_DESIGN} points, got {}", self.design)));
        }
        if self.design + self.samples == 0 {
            return Err(Error::invalid("samples", "`design` and `samples` are both 0: nothing to screen"));
        }
        if self.starts == 0 {
            return Err(Error::invalid("starts", "must be >= 1"));
        }
        self.local.check().at("local")?;
        Ok(ValidMultistartConfig(self.clone()))
    }
}

/// The result of [`maximize_on_box`].
#[derive(Debug, Clone, PartialEq)]
pub struct BoxMaximum {
    /// The best point found (inside the box).
    pub x: Vec<f64>,
    /// f(x).
    pub value: f64,
    /// The index of the local search that found it: first the screened starts from best to worst,
    /// then the extra starts in the caller's order.
    pub start: usize,
    /// The local searches, in start order, with `value` and `gradient` of f itself (not of −f).
    pub searches: Vec<LocalResult>,
    /// Calls of the objective (screening and local searches).
    pub evaluations: usize,
}

/// `n` points of an Owen-scrambled Sobol sequence (Burley 2020, "Practical Hash-based Owen
/// Scrambling", JCGT 9(4); the `sobol_burley` crate) mapped to `domain`, the scramble seed drawn
/// from `rng` (one `u32`). Deterministic given the RNG. Errors for `n` > [`MAX_DESIGN`] or a
/// dimension above [`MAX_SOBOL_DIM`].
pub fn sobol_design(domain: &BoxDomain, n: usize, rng: &mut (impl Rng + ?Sized)) -> Result<Vec<Vec<f64>>> {
    if n > MAX_DESIGN {
        return Err(Error::invalid("design", format!("at most {MAX_DESIGN} points, got {n}")));
    }
    let d = domain.dim();
    if d > MAX_SOBOL_DIM {
        return Err(Error::invalid(
            "design",
            format!("the Sobol design supports dimension <= {MAX_SOBOL_DIM}, the box has {d}: set design = 0"),
        ));
    }
    let seed: u32 = rng.random();
    let (lo, hi) = (domain.lower(), domain.upper());
    Ok((0..n as u32)
        .map(|i| (0..d).map(|j| lo[j] + (hi[j] - lo[j]) * f64::from(sobol_burley::sample(i, j as u32, seed))).collect())
        .collect())
}

/// Maximises `objective` over `domain` by multistart local search:
///
/// 1. screen `config.design` scrambled Sobol points ([`sobol_design`]) and `config.samples` uniform
///    points (in that order, all drawn from `rng` before any evaluation);
/// 2. take the `config.starts` best screened points (ties: the earlier point), then append
///    `extra_starts` (e.g. the incumbent or the observed points; each must lie in the box);
/// 3. refine each start with [`minimize_bounded`] on −f (projected L-BFGS, analytic gradient);
/// 4. return the best refined point; among values that tie ([`bohf_core::is_tie`]) the lowest start
///    index ([`bohf_core::argmax_lowest`]).
///
/// Sequential and deterministic given the RNG (no dependence on thread count).
///
/// Errors: an invalid config ([`MultistartConfig::check`]), an extra start of the wrong length or
/// outside the box (naming `extra_starts[i][j]`), an error of the objective, a NaN screened value
/// or a non-finite value or gradient in a local search ([`minimize_bounded`]).
pub fn maximize_on_box<O: Objective + ?Sized>(
    objective: &mut O,
    domain: &BoxDomain,
    rng: &mut (impl Rng + ?Sized),
    extra_starts: &[Vec<f64>],
    config: &MultistartConfig,
) -> Result<BoxMaximum> {
    config.check()?;
    let (lower, upper) = (domain.lower(), domain.upper());
    for (i, s) in extra_starts.iter().enumerate() {
        check_bounds(s, lower, upper, &format!("extra_starts[{i}]"))?;
    }
    let screened = screening_pool(domain, config.design, config.samples, rng)?;
    let mut scored = Vec::with_capacity(screened.len());
    for (i, x) in screened.iter().enumerate() {
        let v = objective.value(x)?;
        if v.is_nan() {
            return Err(Error::NonFinite(format!("objective value at screened point {i} ({x:?})")));
        }
        scored.push((i, v));
    }
    let mut evaluations = screened.len();
    // Best first; the stable sort keeps the earlier point first among equal values.
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    let starts: Vec<&[f64]> = scored
        .iter()
        .take(config.starts)
        .map(|&(i, _)| screened[i].as_slice())
        .chain(extra_starts.iter().map(Vec::as_slice))
        .collect();
    let mut searches = Vec::with_capacity(starts.len());
    for x0 in starts {
        let mut neg = |x: &[f64], g: &mut [f64]| -> Result<f64> {
            let v = objective.value_and_gradient(x, g)?;
            g.iter_mut().for_each(|g| *g = -*g);
            Ok(-v)
        };
        let mut r = minimize_bounded(&mut neg, x0, lower, upper, &config.local)?;
        evaluations += r.evaluations;
        r.value = -r.value;
        r.gradient.iter_mut().for_each(|g| *g = -*g);
        searches.push(r);
    }
    let start = bohf_core::argmax_lowest(searches.iter().map(|r| r.value))?;
    let best = &searches[start];
    Ok(BoxMaximum { x: best.x.clone(), value: best.value, start, evaluations, searches })
}

/// The screened pool of [`maximize_on_box`] and [`race_on_box`]: `design` scrambled Sobol points
/// ([`sobol_design`]) then `samples` uniform points, all drawn from `rng` in that order.
pub fn screening_pool(
    domain: &BoxDomain,
    design: usize,
    samples: usize,
    rng: &mut (impl Rng + ?Sized),
) -> Result<Vec<Vec<f64>>> {
    let mut pool = if design > 0 { sobol_design(domain, design, rng)? } else { Vec::new() };
    pool.extend((0..samples).map(|_| domain.sample(rng)));
    Ok(pool)
}

/// A maximisation over a box whose exact value is expensive and whose local search is the
/// caller's own (e.g. POP-BO's optimistic advantage, an exact conic program per point, climbed by
/// a minorise–maximise ascent): what [`race_on_box`] needs of it.
pub trait Climb {
    /// The number of rankings [`Climb::screen`] fills (≥ 1); the starts are taken from them in
    /// turn.
    fn rankings(&self) -> usize {
        1
    }
    /// Cheap scores of a screened point, one per ranking, higher better (e.g. a lower and an upper
    /// bound on f(x)); written into `scores` (of length [`Climb::rankings`]). A NaN score is an
    /// error.
    fn screen(&mut self, x: &[f64], scores: &mut [f64]) -> Result<()>;
    /// f(x), exactly.
    fn value(&mut self, x: &[f64]) -> Result<f64>;
    /// A local ascent from `x0`, where f = `f0` (just computed by [`Climb::value`]); returns a
    /// point of the box and f there.
    fn climb(&mut self, x0: &[f64], f0: f64) -> Result<(Vec<f64>, f64)>;
}

/// Settings of [`race_on_box`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RaceConfig {
    /// Points of the scrambled Sobol design screened for starts (0 for none; at most 2¹⁶, and only
    /// in dimension ≤ 256).
    pub design: usize,
    /// Uniform random points screened for starts (0 for none).
    pub samples: usize,
    /// Starts taken from the screened points (and the caller's extra points), in turn from each
    /// ranking; f is computed exactly at each.
    pub starts: usize,
    /// Local ascents, from the starts with the largest exact values (at most `starts`).
    pub climbs: usize,
}

impl Default for RaceConfig {
    /// 512 Sobol points, 512 uniform points, 3 starts, 2 climbs (POP-BO's box step, d = 7 at
    /// t = 100, then stays under 200 ms: `benches/popbo.rs`).
    fn default() -> Self {
        Self { design: 512, samples: 512, starts: 3, climbs: 2 }
    }
}

bohf_core::validated! {
    /// A [`RaceConfig`] that passed [`RaceConfig::check`].
    pub struct ValidRaceConfig(RaceConfig);
}

impl RaceConfig {
    /// The one check of the settings; errors name the first invalid field (`design`, `starts`,
    /// `climbs`).
    pub fn check(&self) -> Result<ValidRaceConfig> {
        if self.design > MAX_DESIGN {
            return Err(Error::invalid("design", format!("at most {MAX_DESIGN} points, got {}", self.design)));
        }
        if self.starts == 0 {
            return Err(Error::invalid("starts", "must be >= 1"));
        }
        if self.climbs == 0 || self.climbs > self.starts {
            return Err(Error::invalid(
                "climbs",
                format!("must be between 1 and `starts` ({}), got {}", self.starts, self.climbs),
            ));
        }
        Ok(ValidRaceConfig(self.clone()))
    }
}

/// The result of [`race_on_box`].
#[derive(Debug, Clone, PartialEq)]
pub struct BoxRace {
    /// The best point found (inside the box).
    pub x: Vec<f64>,
    /// f(x).
    pub value: f64,
    /// The starts, in the order they were taken, with f there.
    pub starts: Vec<(Vec<f64>, f64)>,
    /// The ascents, in climb order (best start first): where each ended and f there.
    pub climbs: Vec<(Vec<f64>, f64)>,
}

/// Maximises an expensive f over `domain` by a raced multistart:
///
/// 1. screen the pool of [`screening_pool`] (`config.design` Sobol points, `config.samples`
///    uniform points) followed by `extra` (e.g. the points already queried; each must lie in the
///    box) with the cheap [`Climb::screen`];
/// 2. take `config.starts` distinct starts, in turn from each ranking, best first (ties: the
///    earlier point);
/// 3. compute f exactly at each start ([`Climb::value`]);
/// 4. climb ([`Climb::climb`]) from the `config.climbs` starts with the largest f (ties: the
///    earlier start);
/// 5. return the best end point; among values that tie ([`bohf_core::is_tie`]) the earliest climb
///    ([`bohf_core::argmax_lowest`]).
///
/// Racing the starts on their exact values before climbing spends the expensive local searches
/// where they start high. Sequential and deterministic given the RNG.
///
/// Errors: an invalid config ([`RaceConfig::check`]), an extra point of the wrong length or
/// outside the box (naming `extra[i][j]`), a NaN score, an error of the problem.
pub fn race_on_box<C: Climb + ?Sized>(
    problem: &mut C,
    domain: &BoxDomain,
    rng: &mut (impl Rng + ?Sized),
    extra: &[Vec<f64>],
    config: &RaceConfig,
) -> Result<BoxRace> {
    config.check()?;
    for (i, s) in extra.iter().enumerate() {
        check_bounds(s, domain.lower(), domain.upper(), &format!("extra[{i}]"))?;
    }
    let mut pool = screening_pool(domain, config.design, config.samples, rng)?;
    pool.extend(extra.iter().cloned());
    if pool.is_empty() {
        return Err(Error::invalid(
            "samples",
            "`design`, `samples` and the extra points are all empty: nothing to screen",
        ));
    }
    let k = problem.rankings().max(1);
    let mut scores = vec![vec![0.0; pool.len()]; k];
    let mut row = vec![0.0; k];
    for (i, x) in pool.iter().enumerate() {
        problem.screen(x, &mut row)?;
        for (r, &v) in row.iter().enumerate() {
            if v.is_nan() {
                return Err(Error::NonFinite(format!("screening score {r} at point {i} ({x:?})")));
            }
            scores[r][i] = v;
        }
    }
    // Each ranking best first; the stable sort keeps the earlier point first among equal scores.
    let mut rankings: Vec<std::vec::IntoIter<usize>> = scores
        .iter()
        .map(|s| {
            let mut order: Vec<usize> = (0..pool.len()).collect();
            order.sort_by(|&i, &j| s[j].total_cmp(&s[i]));
            order.into_iter()
        })
        .collect();
    let mut chosen: Vec<usize> = Vec::with_capacity(config.starts);
    let mut exhausted = 0;
    'take: while chosen.len() < config.starts.min(pool.len()) && exhausted < k {
        exhausted = 0;
        for ranking in rankings.iter_mut() {
            match ranking.find(|i| !chosen.contains(i)) {
                Some(i) => chosen.push(i),
                None => exhausted += 1,
            }
            if chosen.len() == config.starts.min(pool.len()) {
                break 'take;
            }
        }
    }
    let mut starts = Vec::with_capacity(chosen.len());
    for &i in &chosen {
        let v = problem.value(&pool[i])?;
        starts.push((pool[i].clone(), v));
    }
    let mut order: Vec<usize> = (0..starts.len()).collect();
    order.sort_by(|&i, &j| starts[j].1.total_cmp(&starts[i].1));
    let mut climbs = Vec::with_capacity(config.climbs);
    for &i in order.iter().take(config.climbs) {
        climbs.push(problem.climb(&starts[i].0, starts[i].1)?);
    }
    let best = bohf_core::argmax_lowest(climbs.iter().map(|c| c.1))?;
    let (x, value) = climbs[best].clone();
    Ok(BoxRace { x, value, starts, climbs })
}
