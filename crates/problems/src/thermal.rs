//! Thermal comfort: Fanger's Predicted Mean Vote (PMV) and Predicted Percentage of Dissatisfied
//! (PPD) of ISO 7730 (Annex D reference algorithm), and POP-BO's thermal-comfort problems (App. P.2,
//! Figs. 7–8) as test functions with objective −PPD.
//!
//! # PMV / PPD (ISO 7730, Fanger 1970)
//!
//! Inputs: air temperature t_a (°C), mean radiant temperature t_r (°C), relative air speed v (m/s),
//! relative humidity RH (%), metabolic rate M (met), clothing insulation I (clo), external work W
//! (met, 0 here). With p_a = 10·RH·exp(16.6536 − 4030.183/(t_a + 235)) (water-vapour pressure, Pa),
//! I_cl = 0.155 I (m²K/W), M and W in W/m² (1 met = 58.15 W/m²), f_cl = 1 + 1.29 I_cl if
//! I_cl ≤ 0.078 else 1.05 + 0.645 I_cl, h_c = max(12.1 √v, 2.38 |t_cl − t_a|^0.25), the clothing
//! surface temperature t_cl solves the heat balance
//!
//! t_cl = 35.7 − 0.028 (M − W) − I_cl [3.96·10⁻⁸ f_cl ((t_cl + 273)⁴ − (t_r + 273)⁴) + f_cl h_c (t_cl − t_a)],
//!
//! found by ISO's damped fixed-point iteration (in units of 100 K, start
//! T_cla = t_a + 273 + (35.5 − t_a)/(3.5 (6.45 I_cl + 0.1)), stop when two iterates differ by at most
//! 1.5·10⁻⁴, at most 150 iterations), and
//!
//! PMV = (0.303 e^{−0.036 M} + 0.028) · [(M − W) − 3.05·10⁻³ (5733 − 6.99 (M − W) − p_a)
//!        − 0.42 ((M − W) − 58.15)₊ − 1.7·10⁻⁵ M (5867 − p_a) − 0.0014 M (34 − t_a)
//!        − 3.96·10⁻⁸ f_cl ((t_cl + 273)⁴ − (t_r + 273)⁴) − f_cl h_c (t_cl − t_a)],
//!
//! PPD = 100 − 95 exp(−0.03353 PMV⁴ − 0.2179 PMV²)   (%, minimum 5 at PMV = 0).
//!
//! **Checked against an independent implementation.** The algorithm in the notes (001, Appendix A,
//! written from memory) agrees with the reference implementation `pythermalcomfort` 4.8.1
//! (`pythermalcomfort.models.pmv_ppd_iso`, which follows ISO 7730:2025 Annex D) except in the
//! starting point of the iteration: the notes write (35.5 − t_a)/(3.5 I_cl + 0.1), the reference
//! (35.5 − t_a)/(3.5 (6.45 I_cl + 0.1)). Since the iteration stops at a tolerance, the start moves
//! the result slightly (≈ 10⁻⁴ in PMV); bohf uses the reference's start, and the tests reproduce
//! pythermalcomfort's values to 10⁻⁹. Air speed is the *relative* air speed and clothing the basic
//! insulation (no `v_relative` / dynamic-clothing corrections). bohf does not apply ISO's
//! applicability limits (10 < t_a < 30, …, |PMV| < 2) that pythermalcomfort enforces by default;
//! its reference values were taken with `limit_inputs=False, round_output=False`.
//!
//! # POP-BO's thermal problems
//!
//! The paper (App. P.2) optimises air temperature and air speed (2-D), then also mean radiant
//! temperature and relative humidity (4-D), with PMV as the simulated person, but gives neither the
//! objective, nor the ranges, nor the fixed parameters (notes 001 §5.6). bohf's choices (all fields
//! of [`ThermalComfort`], so they can be changed):
//!
//! | quantity | 2-D ([`ThermalComfort::popbo_2d`]) | 4-D ([`ThermalComfort::popbo_4d`]) | why |
//! |---|---|---|---|
//! | objective | −PPD (%) | −PPD (%) | the issue; the authors' 1-D config optimises `_PPD` |
//! | air temperature t_a | [20, 30] °C | [20, 30] °C | the authors' 1-D thermal config |
//! | air speed v | [0, 1] m/s | [0, 1] m/s | ISO 7730's applicability range |
//! | mean radiant temperature t_r | = t_a | [20, 30] °C | no radiant asymmetry unless tuned |
//! | relative humidity RH | 50 % | [30, 60] % | keeps p_a < 2700 Pa (ISO's limit) on the whole box |
//! | metabolic rate | 1.2 met | 1.2 met | ISO 7730 Table B.1, sedentary office activity |
//! | clothing | 0.5 clo | 0.5 clo | ISO 7730 Table C.1, light summer clothing |
//! | external work | 0 | 0 | |
//!
//! The maximum of −PPD is −5, attained on the whole surface PMV = 0 (a curve in 2-D), which crosses
//! both boxes; [`ThermalComfort`]'s known optimum gives one such point (by bisection in t_a).
//! As with the other test functions, the experiments standardise the objective over a grid
//! ([`crate::popbo`]) before preferences are simulated: on the raw percentage scale a BTL
//! respondent would be almost deterministic.

use crate::functions::table::{FunctionEntry, fixed};
use crate::functions::{KnownOptimum, Sense, TestFunction};
use bohf_core::{BoxDomain, Error, Result, SolverStatus};
use serde::{Deserialize, Serialize};

/// This module's rows of [`FUNCTIONS`](crate::functions::FUNCTIONS) (the number is the row's place in
/// the lists of names).
pub(crate) const ROWS: &[FunctionEntry] = &[
    fixed(22, "thermal_comfort_2d", || Box::new(ThermalComfort::popbo_2d())),
    fixed(23, "thermal_comfort_4d", || Box::new(ThermalComfort::popbo_4d())),
];

/// W/m² per met (ISO 7730; pythermalcomfort's `met_to_w_m2`).
pub const MET_TO_W_M2: f64 = 58.15;

/// The stopping tolerance of ISO 7730's clothing-temperature iteration (in units of 100 K).
pub const PMV_ITERATION_TOLERANCE: f64 = 0.00015;

/// The iteration limit of ISO 7730's clothing-temperature iteration.
pub const PMV_MAX_ITERATIONS: usize = 150;

/// The inputs of the PMV model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmvInputs {
    /// Air (dry-bulb) temperature t_a, °C.
    pub air_temperature: f64,
    /// Mean radiant temperature t_r, °C.
    pub mean_radiant_temperature: f64,
    /// Relative air speed v ≥ 0, m/s.
    pub air_speed: f64,
    /// Relative humidity RH ∈ [0, 100], %.
    pub relative_humidity: f64,
    /// Metabolic rate M > 0, met.
    pub metabolic_rate: f64,
    /// Basic clothing insulation I ≥ 0, clo.
    pub clothing: f64,
    /// External work W ≥ 0, met (usually 0).
    pub external_work: f64,
}

impl PmvInputs {
    /// Errors naming the first field that is not finite or outside its physical range.
    pub fn validate(&self) -> Result<()> {
        let fields = [
            ("air_temperature", self.air_temperature),
            ("mean_radiant_temperature", self.mean_radiant_temperature),
            ("air_speed", self.air_speed),
            ("relative_humidity", self.relative_humidity),
            ("metabolic_rate", self.metabolic_rate),
            ("clothing", self.clothing),
            ("external_work", self.external_work),
        ];
        for (name, v) in fields {
            if !v.is_finite() {
                return Err(Error::invalid(name, format!("must be finite, got {v}")));
            }
        }
        // Temperatures above −235 °C keep the Magnus-type exponent finite; anything near that is
        // outside the model anyway, so require more than −50 °C.
        for (name, v) in
            [("air_temperature", self.air_temperature), ("mean_radiant_temperature", self.mean_radiant_temperature)]
        {
            if v <= -50.0 {
                return Err(Error::invalid(name, format!("must exceed −50 °C, got {v}")));
            }
        }
        if self.air_speed < 0.0 {
            return Err(Error::invalid("air_speed", format!("must be ≥ 0, got {}", self.air_speed)));
        }
        if !(0.0..=100.0).contains(&self.relative_humidity) {
            return Err(Error::invalid(
                "relative_humidity",
                format!("must lie in [0, 100] %, got {}", self.relative_humidity),
            ));
        }
        bohf_core::error::ensure_positive("metabolic_rate", self.metabolic_rate)?;
        if self.clothing < 0.0 {
            return Err(Error::invalid("clothing", format!("must be ≥ 0, got {}", self.clothing)));
        }
        if self.external_work < 0.0 {
            return Err(Error::invalid("external_work", format!("must be ≥ 0, got {}", self.external_work)));
        }
        Ok(())
    }

    /// Water-vapour partial pressure p_a = 10·RH·exp(16.6536 − 4030.183/(t_a + 235)) in Pa (ISO 7730
    /// Annex D).
    pub fn vapour_pressure(&self) -> f64 {
        self.relative_humidity * 10.0 * (16.6536 - 4030.183 / (self.air_temperature + 235.0)).exp()
    }
}

/// The result of the PMV model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PmvOutput {
    /// Predicted Mean Vote (−3 cold … +3 hot).
    pub pmv: f64,
    /// Predicted Percentage of Dissatisfied, % (≥ 5).
    pub ppd: f64,
    /// The clothing surface temperature t_cl the iteration converged to, °C.
    pub clothing_temperature: f64,
    /// The convective heat-transfer coefficient h_c at t_cl, W/(m²K).
    pub convection_coefficient: f64,
    /// Iterations of the clothing-temperature fixed point.
    pub iterations: usize,
}

/// PPD = 100 − 95 exp(−0.03353 PMV⁴ − 0.2179 PMV²) (ISO 7730 eq. (5)), in %.
pub fn ppd(pmv: f64) -> f64 {
    let p2 = pmv * pmv;
    100.0 - 95.0 * (-0.03353 * p2 * p2 - 0.2179 * p2).exp()
}

/// Fanger's PMV and PPD by the ISO 7730 Annex D algorithm (see the module documentation for the
/// formulas). Errors if an input is invalid ([`PmvInputs::validate`]) or if the clothing-temperature
/// iteration does not converge within [`PMV_MAX_ITERATIONS`] ([`Error::SolverFailed`] with status `MaxIterations`).
pub fn pmv(inputs: &PmvInputs) -> Result<PmvOutput> {
    inputs.validate()?;
    let ta = inputs.air_temperature;
    let tr = inputs.mean_radiant_temperature;
    let pa = inputs.vapour_pressure();
    let icl = 0.155 * inputs.clothing;
    let m = inputs.metabolic_rate * MET_TO_W_M2;
    let w = inputs.external_work * MET_TO_W_M2;
    let mw = m - w;
    let fcl = if icl <= 0.078 { 1.0 + 1.29 * icl } else { 1.05 + 0.645 * icl };
    let hcf = 12.1 * inputs.air_speed.sqrt();
    let taa = ta + 273.0;
    let tra = tr + 273.0;
    let tcla = taa + (35.5 - ta) / (3.5 * (6.45 * icl + 0.1));
    let p1 = icl * fcl;
    let p2 = p1 * 3.96;
    let p3 = p1 * 100.0;
    let p4 = p1 * taa;
    let p5 = (308.7 - 0.028 * mw) + p2 * (tra / 100.0).powi(4);
    let mut xn = tcla / 100.0;
    let mut xf = tcla / 50.0;
    let mut hc = hcf;
    let mut iterations = 0;
    while (xn - xf).abs() > PMV_ITERATION_TOLERANCE {
        if iterations == PMV_MAX_ITERATIONS {
            return Err(Error::solver_failed(
                "PMV clothing-temperature iteration",
                SolverStatus::MaxIterations { iterations: PMV_MAX_ITERATIONS },
                format!("the last step is {:.3e} at {inputs:?}", (xn - xf).abs()),
            ));
        }
        xf = (xf + xn) / 2.0;
        let hcn = 2.38 * (100.0 * xf - taa).abs().powf(0.25);
        hc = hcf.max(hcn);
        xn = (p5 + p4 * hc - p2 * xf.powi(4)) / (100.0 + p3 * hc);
        iterations += 1;
    }
    let tcl = 100.0 * xn - 273.0;
    let hl1 = 3.05e-3 * (5733.0 - 6.99 * mw - pa);
    let hl2 = if mw > MET_TO_W_M2 { 0.42 * (mw - MET_TO_W_M2) } else { 0.0 };
    let hl3 = 1.7e-5 * m * (5867.0 - pa);
    let hl4 = 0.0014 * m * (34.0 - ta);
    let hl5 = 3.96 * fcl * (xn.powi(4) - (tra / 100.0).powi(4));
    let hl6 = fcl * hc * (tcl - ta);
    let ts = 0.303 * (-0.036 * m).exp() + 0.028;
    let pmv = ts * (mw - hl1 - hl2 - hl3 - hl4 - hl5 - hl6);
    if !pmv.is_finite() {
        return Err(Error::NonFinite(format!("PMV at {inputs:?}")));
    }
    Ok(PmvOutput { pmv, ppd: ppd(pmv), clothing_temperature: tcl, convection_coefficient: hc, iterations })
}

/// A PMV input that a [`ThermalComfort`] problem lets the optimiser set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThermalVariable {
    /// Air temperature t_a, °C.
    AirTemperature,
    /// Relative air speed v, m/s.
    AirSpeed,
    /// Mean radiant temperature t_r, °C.
    MeanRadiantTemperature,
    /// Relative humidity RH, %.
    RelativeHumidity,
}

/// A thermal-comfort problem: maximise −PPD over some PMV inputs (the [`ThermalVariable`]s, in the
/// order of the coordinates of x, on a box), the others fixed at [`ThermalComfort::fixed`]. If
/// `radiant_follows_air` is set (and t_r is not a variable), t_r = t_a.
#[derive(Debug, Clone, PartialEq)]
pub struct ThermalComfort {
    name: String,
    variables: Vec<ThermalVariable>,
    domain: BoxDomain,
    fixed: PmvInputs,
    radiant_follows_air: bool,
}

impl ThermalComfort {
    /// A problem over `variables` (distinct, one per coordinate of `domain`), the remaining inputs
    /// taken from `fixed`. Errors if a variable repeats, if the dimensions disagree, if `fixed` is
    /// invalid, or if `radiant_follows_air` is set while t_r is a variable.
    pub fn new(
        name: impl Into<String>,
        variables: Vec<ThermalVariable>,
        domain: BoxDomain,
        fixed: PmvInputs,
        radiant_follows_air: bool,
    ) -> Result<Self> {
        if variables.len() != domain.dim() {
            return Err(Error::dims(
                "thermal-comfort domain (one coordinate per variable)",
                variables.len(),
                domain.dim(),
            ));
        }
        for (i, v) in variables.iter().enumerate() {
            if variables[..i].contains(v) {
                return Err(Error::invalid("variables", format!("{v:?} appears twice")));
            }
        }
        if radiant_follows_air && variables.contains(&ThermalVariable::MeanRadiantTemperature) {
            return Err(Error::invalid(
                "radiant_follows_air",
                "cannot tie the mean radiant temperature to the air temperature when it is a variable",
            ));
        }
        fixed.validate()?;
        let problem = Self { name: name.into(), variables, domain, fixed, radiant_follows_air };
        // Every corner of the box must be a valid input (the bounds are the extremes of each field).
        let d = problem.domain.dim();
        for corner in 0..(1usize << d) {
            let x: Vec<f64> = (0..d)
                .map(|j| if corner >> j & 1 == 1 { problem.domain.upper()[j] } else { problem.domain.lower()[j] })
                .collect();
            problem.inputs_at(&x).validate()?;
        }
        Ok(problem)
    }

    /// The fixed inputs of POP-BO's thermal problems in bohf (see the module documentation):
    /// t_a = t_r = 25 °C (placeholders, overridden), v = 0.1 m/s, RH = 50 %, 1.2 met, 0.5 clo, W = 0.
    pub fn popbo_fixed() -> PmvInputs {
        PmvInputs {
            air_temperature: 25.0,
            mean_radiant_temperature: 25.0,
            air_speed: 0.1,
            relative_humidity: 50.0,
            metabolic_rate: 1.2,
            clothing: 0.5,
            external_work: 0.0,
        }
    }

    /// POP-BO's 2-D problem: x = (t_a ∈ [20, 30] °C, v ∈ [0, 1] m/s), t_r = t_a, RH 50 %, 1.2 met,
    /// 0.5 clo.
    pub fn popbo_2d() -> Self {
        Self::new(
            "thermal_comfort_2d",
            vec![ThermalVariable::AirTemperature, ThermalVariable::AirSpeed],
            BoxDomain::new(vec![20.0, 0.0], vec![30.0, 1.0]).expect("valid constant bounds"),
            Self::popbo_fixed(),
            true,
        )
        .expect("valid constant problem")
    }

    /// POP-BO's 4-D problem: x = (t_a ∈ [20, 30] °C, v ∈ [0, 1] m/s, t_r ∈ [20, 30] °C,
    /// RH ∈ [30, 60] %), 1.2 met, 0.5 clo.
    pub fn popbo_4d() -> Self {
        Self::new(
            "thermal_comfort_4d",
            vec![
                ThermalVariable::AirTemperature,
                ThermalVariable::AirSpeed,
                ThermalVariable::MeanRadiantTemperature,
                ThermalVariable::RelativeHumidity,
            ],
            BoxDomain::new(vec![20.0, 0.0, 20.0, 30.0], vec![30.0, 1.0, 30.0, 60.0]).expect("valid constant bounds"),
            Self::popbo_fixed(),
            false,
        )
        .expect("valid constant problem")
    }

    /// The variables, in coordinate order.
    pub fn variables(&self) -> &[ThermalVariable] {
        &self.variables
    }

    /// The fixed inputs (the variables' entries are overridden by x).
    pub fn fixed(&self) -> &PmvInputs {
        &self.fixed
    }

    /// Whether t_r is tied to t_a.
    pub fn radiant_follows_air(&self) -> bool {
        self.radiant_follows_air
    }

    /// The PMV inputs that x (one coordinate per variable, unchecked) stands for.
    pub fn inputs_at(&self, x: &[f64]) -> PmvInputs {
        let mut p = self.fixed;
        for (v, &xi) in self.variables.iter().zip(x) {
            match v {
                ThermalVariable::AirTemperature => p.air_temperature = xi,
                ThermalVariable::AirSpeed => p.air_speed = xi,
                ThermalVariable::MeanRadiantTemperature => p.mean_radiant_temperature = xi,
                ThermalVariable::RelativeHumidity => p.relative_humidity = xi,
            }
        }
        if self.radiant_follows_air {
            p.mean_radiant_temperature = p.air_temperature;
        }
        p
    }

    /// PMV and PPD at x (checked).
    pub fn pmv_at(&self, x: &[f64]) -> Result<PmvOutput> {
        if x.len() != self.dim() {
            return Err(Error::dims(format!("`{}` input", self.name), self.dim(), x.len()));
        }
        pmv(&self.inputs_at(x))
    }

    /// A point with PMV = 0 (PPD = 5 %): the other coordinates at the box centre, t_a by bisection
    /// on [lower, upper] (PMV increases with t_a). `None` if PMV has the same sign at both ends.
    pub fn comfort_point(&self) -> Option<Vec<f64>> {
        let j = self.variables.iter().position(|v| *v == ThermalVariable::AirTemperature)?;
        let mut x: Vec<f64> = self.domain.lower().iter().zip(self.domain.upper()).map(|(l, u)| 0.5 * (l + u)).collect();
        let at = |x: &mut Vec<f64>, t: f64| {
            x[j] = t;
            self.pmv_at(x).map(|o| o.pmv).ok()
        };
        let (mut lo, mut hi) = (self.domain.lower()[j], self.domain.upper()[j]);
        let (plo, phi) = (at(&mut x, lo)?, at(&mut x, hi)?);
        if plo > 0.0 || phi < 0.0 {
            return None;
        }
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if at(&mut x, mid)? < 0.0 { lo = mid } else { hi = mid }
        }
        x[j] = 0.5 * (lo + hi);
        Some(x)
    }
}

impl TestFunction for ThermalComfort {
    fn name(&self) -> &str {
        &self.name
    }
    fn dim(&self) -> usize {
        self.variables.len()
    }
    fn domain(&self) -> BoxDomain {
        self.domain.clone()
    }
    fn sense(&self) -> Sense {
        Sense::Maximise
    }
    /// −PPD(x) in %; NaN where the PMV model fails (reported by `value`).
    fn published(&self, x: &[f64]) -> f64 {
        pmv(&self.inputs_at(x)).map(|o| -o.ppd).unwrap_or(f64::NAN)
    }
    /// −5 (PPD's minimum, at PMV = 0) at [`ThermalComfort::comfort_point`]; one of a continuum of
    /// maximisers.
    fn published_optimum(&self) -> Option<KnownOptimum> {
        self.comfort_point().map(|x| {
            KnownOptimum::exact(
                vec![x],
                -5.0,
                "PPD = 5 % exactly at PMV = 0 (ISO 7730 eq. (5)); point by bisection in t_a",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(ta: f64, tr: f64, v: f64, rh: f64, met: f64, clo: f64) -> PmvInputs {
        PmvInputs {
            air_temperature: ta,
            mean_radiant_temperature: tr,
            air_speed: v,
            relative_humidity: rh,
            metabolic_rate: met,
            clothing: clo,
            external_work: 0.0,
        }
    }

    /// Reference values from pythermalcomfort 4.8.1 (PyPI), computed with
    /// `pythermalcomfort.models.pmv_ppd_iso(tdb, tr, vr, rh, met, clo, limit_inputs=False,
    /// round_output=False)` and printed with `repr(float(...))`: (t_a, t_r, v, RH, met, clo, PMV, PPD).
    /// The first six rows use the conditions of ISO 7730 Table D.1 (runs 1–6), as a familiar set.
    const PYTHERMALCOMFORT: [[f64; 8]; 16] = [
        [22.0, 22.0, 0.1, 60.0, 1.2, 0.5, -0.7523668571085066, 16.921191640039524],
        [27.0, 27.0, 0.1, 60.0, 1.2, 0.5, 0.7652678267763074, 17.337393973622667],
        [27.0, 27.0, 0.3, 60.0, 1.2, 0.5, 0.43370324086106926, 8.923127585105235],
        [23.5, 25.5, 0.1, 60.0, 1.2, 0.5, -0.01323205407420131, 5.003624422230345],
        [23.5, 25.5, 0.3, 60.0, 1.2, 0.5, -0.55507076569334, 11.450811680975107],
        [19.0, 19.0, 0.1, 40.0, 1.2, 1.0, -0.5984034716017779, 12.50773622423148],
        [25.0, 25.0, 0.1, 50.0, 1.4, 0.5, 0.4122523655866827, 8.542363319850637],
        [22.0, 22.0, 0.1, 50.0, 1.2, 0.5, -0.8112323225085935, 18.877872910092293],
        [20.0, 20.0, 0.0, 50.0, 1.2, 0.5, -1.4339409113918173, 47.32861889754288],
        [30.0, 30.0, 1.0, 50.0, 1.2, 0.5, 1.1709131013382228, 33.838414657748544],
        [26.0, 28.0, 0.3, 40.0, 1.2, 0.5, 0.18223388472616936, 5.688453091115491],
        [21.0, 24.0, 0.6, 60.0, 1.2, 0.5, -1.830333589128886, 68.57612681921738],
        [28.0, 22.0, 0.05, 30.0, 1.2, 0.5, 0.037402096049814204, 5.028960095577531],
        [24.0, 24.0, 0.2, 50.0, 1.0, 1.0, 0.017418496985825663, 5.00628070087123],
        [19.0, 19.0, 0.1, 40.0, 1.0, 1.0, -1.2013574494798893, 35.31381501894293],
        [27.5, 29.0, 0.8, 55.0, 1.2, 0.5, 0.3963040050201551, 8.27205091708096],
    ];

    #[test]
    fn pmv_matches_pythermalcomfort() {
        for &[ta, tr, v, rh, met, clo, want_pmv, want_ppd] in &PYTHERMALCOMFORT {
            let out = pmv(&inputs(ta, tr, v, rh, met, clo)).unwrap();
            // Same algorithm, same start and stopping rule: only floating-point rounding differs
            // (numpy vs Rust exp/pow), a few ulps amplified by at most ~30 iterations, so 1e-9.
            assert!((out.pmv - want_pmv).abs() < 1e-9, "PMV at {ta},{tr},{v},{rh}: {} vs {want_pmv}", out.pmv);
            assert!((out.ppd - want_ppd).abs() < 1e-8, "PPD at {ta},{tr},{v},{rh}: {} vs {want_ppd}", out.ppd);
            assert!(out.iterations >= 1 && out.iterations < PMV_MAX_ITERATIONS);
        }
    }

    /// The converged clothing temperature satisfies ISO 7730's heat balance (eq. (2)) up to the
    /// iteration's stopping tolerance, checked by evaluating the balance directly.
    #[test]
    fn clothing_temperature_satisfies_the_heat_balance() {
        for &[ta, tr, v, rh, met, clo, ..] in &PYTHERMALCOMFORT {
            let p = inputs(ta, tr, v, rh, met, clo);
            let out = pmv(&p).unwrap();
            let icl = 0.155 * clo;
            let fcl = if icl <= 0.078 { 1.0 + 1.29 * icl } else { 1.05 + 0.645 * icl };
            let tcl = out.clothing_temperature;
            let hc = (12.1 * v.sqrt()).max(2.38 * (tcl - ta).abs().powf(0.25));
            let rad = 3.96e-8 * fcl * ((tcl + 273.0).powi(4) - (tr + 273.0).powi(4));
            let rhs = 35.7 - 0.028 * met * MET_TO_W_M2 - icl * (rad + fcl * hc * (tcl - ta));
            // The iteration stops when successive iterates (units of 100 K) differ by ≤ 1.5e−4,
            // i.e. 0.015 K; the damped iteration's residual is of the same order, so allow 0.05 K.
            assert!((tcl - rhs).abs() < 0.05, "t_cl {tcl} vs balance {rhs} at {ta},{tr},{v}");
        }
    }

    #[test]
    fn ppd_closed_form_facts() {
        // PPD(0) = 100 − 95 = 5 exactly; symmetric in PMV; PPD(±1) = 100 − 95 e^{−0.25143}.
        assert_eq!(ppd(0.0), 5.0);
        assert_eq!(ppd(0.7), ppd(-0.7));
        assert!((ppd(1.0) - (100.0 - 95.0 * (-0.25143f64).exp())).abs() < 1e-12);
        assert!(ppd(3.0) > 99.0);
    }

    #[test]
    fn pmv_monotone_in_temperature_and_speed() {
        // Warmer air and warmer walls raise PMV; more air movement lowers it (below skin temperature).
        let base = inputs(24.0, 24.0, 0.2, 50.0, 1.2, 0.5);
        let p = |q: PmvInputs| pmv(&q).unwrap().pmv;
        assert!(p(PmvInputs { air_temperature: 25.0, ..base }) > p(base));
        assert!(p(PmvInputs { mean_radiant_temperature: 25.0, ..base }) > p(base));
        assert!(p(PmvInputs { air_speed: 0.5, ..base }) < p(base));
        assert!(p(PmvInputs { relative_humidity: 70.0, ..base }) > p(base));
    }

    #[test]
    fn problems_evaluate_minus_ppd() {
        let two = ThermalComfort::popbo_2d();
        assert_eq!(two.dim(), 2);
        // (25, 0.1) in 2-D is t_a = t_r = 25, v = 0.1, RH 50, 1.2 met, 0.5 clo.
        let want = ppd(pmv(&inputs(25.0, 25.0, 0.1, 50.0, 1.2, 0.5)).unwrap().pmv);
        assert_eq!(two.value(&[25.0, 0.1]).unwrap(), -want);
        // Row 10 of the reference table: (30, 30, 1.0, 50 %, 1.2 met, 0.5 clo).
        assert!((two.value(&[30.0, 1.0]).unwrap() + 33.838414657748544).abs() < 1e-8);
        let four = ThermalComfort::popbo_4d();
        // Row 11: t_a 26, v 0.3, t_r 28, RH 40.
        assert!((four.value(&[26.0, 0.3, 28.0, 40.0]).unwrap() + 5.688453091115491).abs() < 1e-8);
        for f in [&two, &four] {
            let o = f.optimum().unwrap();
            assert_eq!(o.value, -5.0);
            // Bisection to 2^-80 of the range: PMV is within the iteration's resolution of 0, and
            // PPD − 5 ≈ 0.2179·95·PMV² is tiny.
            let v = f.value(&o.points[0]).unwrap();
            assert!(v <= -5.0 && v > -5.0 - 1e-6, "{v}");
            assert!(f.domain().contains(&o.points[0]));
        }
        // Nothing on a grid beats −5.
        let g = two.domain().grid(15).unwrap();
        for i in 0..g.len() {
            assert!(two.value(&g.coords(i).unwrap()).unwrap() <= -5.0);
        }
    }

    #[test]
    fn bad_inputs_are_errors() {
        let ok = inputs(24.0, 24.0, 0.2, 50.0, 1.2, 0.5);
        for (bad, field) in [
            (PmvInputs { air_speed: -0.1, ..ok }, "air_speed"),
            (PmvInputs { relative_humidity: 120.0, ..ok }, "relative_humidity"),
            (PmvInputs { metabolic_rate: 0.0, ..ok }, "metabolic_rate"),
            (PmvInputs { clothing: -1.0, ..ok }, "clothing"),
            (PmvInputs { air_temperature: f64::NAN, ..ok }, "air_temperature"),
        ] {
            assert!(matches!(pmv(&bad), Err(Error::InvalidParameter { name, .. }) if name == field), "{field}");
        }
        let dom = BoxDomain::new(vec![20.0], vec![30.0]).unwrap();
        let v = vec![ThermalVariable::AirTemperature, ThermalVariable::AirTemperature];
        assert!(ThermalComfort::new("x", v, BoxDomain::cube(20.0, 30.0, 2).unwrap(), ok, false).is_err());
        assert!(ThermalComfort::new("x", vec![ThermalVariable::AirSpeed], dom.clone(), ok, false).is_ok());
        // Air speed −1 at a corner.
        let neg = BoxDomain::new(vec![-1.0], vec![1.0]).unwrap();
        assert!(ThermalComfort::new("x", vec![ThermalVariable::AirSpeed], neg, ok, false).is_err());
        let mrt = vec![ThermalVariable::MeanRadiantTemperature];
        assert!(ThermalComfort::new("x", mrt, dom, ok, true).is_err());
        assert!(matches!(ThermalComfort::popbo_2d().value(&[25.0]), Err(Error::DimensionMismatch { .. })));
    }
}
