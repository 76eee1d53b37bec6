//! The two-fidelity functions of COMP-GP-UCB's synthetic experiments (notes 002 §5.1): comparisons
//! come from the low fidelity f_c, direct labels from the high fidelity f. The paper gives no
//! formulas; these are the standard ones of Xiong, Qian & Wu (2013), "Sequential design and analysis
//! of high-accuracy and low-accuracy computer codes", *Technometrics* 55(1), as given by the SFU
//! Virtual Library and by Kandasamy et al.'s `mf-gp-ucb` code (`getCurrinExpFn.m`,
//! `getBoreHoleFn.m`), which COMP-GP-UCB follows. Both are published as functions to **maximise**,
//! so bohf uses them as they are ([`Sense::Maximise`]).

use super::table::{FunctionEntry, fixed};
use super::{KnownOptimum, OnUnitCube, Sense, TestFunction};
use bohf_core::BoxDomain;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// This module's rows of [`FUNCTIONS`](crate::functions::FUNCTIONS) (the number is the row's place in
/// the lists of names).
pub(crate) const ROWS: &[FunctionEntry] = &[
    fixed(18, "currin_exp", || Box::new(CurrinExp::new(Fidelity::High))).aka(&["currin"]).low("currin_exp_low"),
    fixed(19, "currin_exp_low", || Box::new(CurrinExp::new(Fidelity::Low))).aka(&["currin_low"]),
    fixed(20, "borehole", || Box::new(Borehole::new(Fidelity::High))).low("borehole_low"),
    fixed(21, "borehole_low", || Box::new(Borehole::new(Fidelity::Low))),
];

/// Which of the two fidelities of a multi-fidelity function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fidelity {
    /// The target f (COMP-GP-UCB's direct labels).
    High,
    /// The cheap approximation f_c (COMP-GP-UCB's comparisons).
    Low,
}

/// Currin et al. (1988) exponential function, on [0, 1]²:
///
/// f(x) = (1 − exp(−1/(2x₂))) · (2300x₁³ + 1900x₁² + 2092x₁ + 60) / (100x₁³ + 500x₁² + 4x₁ + 20),
///
/// and its low fidelity (Xiong et al. 2013)
///
/// f_c(x) = ¼ [f(x₁+δ, x₂+δ) + f(x₁+δ, max(0, x₂−δ))] + ¼ [f(x₁−δ, x₂+δ) + f(x₁−δ, max(0, x₂−δ))],
/// δ = 0.05.
///
/// The first factor is 1 at x₂ = 0 (its limit as x₂ → 0⁺); bohf also uses 1 for x₂ < 0, where the
/// formula would blow up (this matters only for probes outside the domain, and makes −0.0 safe).
///
/// Optima (both computed here, not published): f is largest at x₂ = 0 (the first factor decreases in
/// x₂ and the rational factor is positive), where the rational factor has its maximum at the root
/// x₁ = 13/60 of its derivative (exact, checked in rational arithmetic): **max f = 4319/313 =
/// 13.7987220447… at (13/60, 0)**. (The `mf-gp-ucb` code lists 13.7986850, a grid value 3.7·10⁻⁵
/// too low; notes 002 §5.1 computed ≈ 13.79872 at (0.2165, 0).) **max f_c = 13.5826470106 at
/// (0.2357529199, 0)** (root of ∂f_c/∂x₁ at x₂ = 0 with mpmath, 30 digits; notes 002: ≈ 13.5826 at
/// ≈ (0.236, 0)). The maximisers differ, as COMP-GP-UCB intends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CurrinExp {
    fidelity: Fidelity,
}

impl CurrinExp {
    /// The low-fidelity shift δ.
    pub const SHIFT: f64 = 0.05;

    /// CurrinExp at the given fidelity.
    pub fn new(fidelity: Fidelity) -> Self {
        Self { fidelity }
    }

    /// The fidelity.
    pub fn fidelity(&self) -> Fidelity {
        self.fidelity
    }

    /// The high-fidelity f at (x₁, x₂).
    pub fn high(x1: f64, x2: f64) -> f64 {
        let damp = if x2 > 0.0 { 1.0 - (-1.0 / (2.0 * x2)).exp() } else { 1.0 };
        let num = ((2300.0 * x1 + 1900.0) * x1 + 2092.0) * x1 + 60.0;
        let den = ((100.0 * x1 + 500.0) * x1 + 4.0) * x1 + 20.0;
        damp * num / den
    }

    /// The low-fidelity f_c at (x₁, x₂).
    pub fn low(x1: f64, x2: f64) -> f64 {
        let d = Self::SHIFT;
        let (up, down) = (x2 + d, (x2 - d).max(0.0));
        0.25 * (Self::high(x1 + d, up) + Self::high(x1 + d, down))
            + 0.25 * (Self::high(x1 - d, up) + Self::high(x1 - d, down))
    }
}

impl TestFunction for CurrinExp {
    fn name(&self) -> &str {
        match self.fidelity {
            Fidelity::High => "currin_exp",
            Fidelity::Low => "currin_exp_low",
        }
    }
    fn dim(&self) -> usize {
        2
    }
    fn domain(&self) -> BoxDomain {
        BoxDomain::cube(0.0, 1.0, 2).expect("valid constant bounds")
    }
    fn sense(&self) -> Sense {
        Sense::Maximise
    }
    fn published(&self, x: &[f64]) -> f64 {
        match self.fidelity {
            Fidelity::High => Self::high(x[0], x[1]),
            Fidelity::Low => Self::low(x[0], x[1]),
        }
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        Some(match self.fidelity {
            Fidelity::High => KnownOptimum::exact(
                vec![vec![13.0 / 60.0, 0.0]],
                4319.0 / 313.0,
                "computed: x₂ = 0, x₁ = 13/60 is the root of the rational factor's derivative",
            ),
            Fidelity::Low => KnownOptimum {
                points: vec![vec![0.235752919947553, 0.0]],
                value: 13.582647010607023,
                precision: 1e-12,
                source: "computed with mpmath (root of ∂f_c/∂x₁ at x₂ = 0)",
                published: None,
            },
        })
    }
}

/// The Borehole function (water flow through a borehole), 8-D, inputs in the order
/// (r_w, r, T_u, H_u, T_l, H_l, L, K_w) with ranges r_w ∈ [0.05, 0.15], r ∈ [100, 50000],
/// T_u ∈ [63070, 115600], H_u ∈ [990, 1110], T_l ∈ [63.1, 116], H_l ∈ [700, 820], L ∈ [1120, 1680],
/// K_w ∈ [9855, 12045]:
///
/// f = 2π T_u (H_u − H_l) / (ln(r/r_w) (1 + 2L T_u / (ln(r/r_w) r_w² K_w) + T_u/T_l)),
///
/// and its low fidelity (Xiong et al. 2013)
///
/// f_c = 5 T_u (H_u − H_l) / (ln(r/r_w) (1.5 + 2L T_u / (ln(r/r_w) r_w² K_w) + T_u/T_l)).
///
/// The domain is the native box above; COMP-GP-UCB (following `mf-gp-ucb`) works on [0, 1]^8, which
/// is [`Borehole::on_unit_cube`].
///
/// Optima (computed, not published): dividing by T_u,
/// f = 2π(H_u − H_l) / (ln(r/r_w)(1/T_u + 1/T_l) + 2L/(r_w² K_w)), which increases in r_w, T_u, H_u, T_l, K_w and decreases in r, H_l, L (and the
/// same for f_c with 1.5/T_u), so both are maximised at the corner
/// **x* = (0.15, 100, 115600, 1110, 116, 700, 1120, 12045)**, with **max f = 309.5755876604** and
/// **max f_c = 246.3515925828** (notes 002 §5.1; `mf-gp-ucb` lists 309.523221). Unlike CurrinExp,
/// the two fidelities share their maximiser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Borehole {
    fidelity: Fidelity,
}

impl Borehole {
    /// Lower bounds of (r_w, r, T_u, H_u, T_l, H_l, L, K_w).
    pub const LOWER: [f64; 8] = [0.05, 100.0, 63070.0, 990.0, 63.1, 700.0, 1120.0, 9855.0];
    /// Upper bounds of (r_w, r, T_u, H_u, T_l, H_l, L, K_w).
    pub const UPPER: [f64; 8] = [0.15, 50000.0, 115600.0, 1110.0, 116.0, 820.0, 1680.0, 12045.0];

    /// Borehole at the given fidelity, on its native box.
    pub fn new(fidelity: Fidelity) -> Self {
        Self { fidelity }
    }

    /// Borehole at the given fidelity, re-parametrised on [0, 1]^8 as in COMP-GP-UCB.
    pub fn on_unit_cube(fidelity: Fidelity) -> OnUnitCube<Self> {
        OnUnitCube::new(Self::new(fidelity))
    }

    /// The fidelity.
    pub fn fidelity(&self) -> Fidelity {
        self.fidelity
    }
}

impl TestFunction for Borehole {
    fn name(&self) -> &str {
        match self.fidelity {
            Fidelity::High => "borehole",
            Fidelity::Low => "borehole_low",
        }
    }
    fn dim(&self) -> usize {
        8
    }
    fn domain(&self) -> BoxDomain {
        BoxDomain::new(Self::LOWER.to_vec(), Self::UPPER.to_vec()).expect("valid constant bounds")
    }
    fn sense(&self) -> Sense {
        Sense::Maximise
    }
    fn published(&self, x: &[f64]) -> f64 {
        let [rw, r, tu, hu, tl, hl, l, kw] = [x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]];
        let lg = (r / rw).ln();
        let (numerator, offset) = match self.fidelity {
            Fidelity::High => (2.0 * PI, 1.0),
            Fidelity::Low => (5.0, 1.5),
        };
        numerator * tu * (hu - hl) / (lg * (offset + 2.0 * l * tu / (lg * rw * rw * kw) + tu / tl))
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        let corner = vec![0.15, 100.0, 115600.0, 1110.0, 116.0, 700.0, 1120.0, 12045.0];
        let value = match self.fidelity {
            Fidelity::High => 309.575587660408,
            Fidelity::Low => 246.35159258277,
        };
        Some(KnownOptimum {
            points: vec![corner],
            value,
            precision: 1e-10,
            source: "computed: f is monotone in every input, so the maximum is at a corner (value from mpmath)",
            published: None,
        })
    }
}
