//! The Hartmann functions (BoTorch `Hartmann`, SFU Virtual Library):
//! f(x) = −Σ_{i=1..4} αᵢ exp(−Σⱼ A_ij (xⱼ − P_ij)²), α = (1, 1.2, 3, 3.2), on [0, 1]^d.
//! bohf maximises −f (see [`super::Sense`]).

use super::table::{FunctionEntry, fixed};
use super::{KnownOptimum, Sense, TestFunction};
use bohf_core::BoxDomain;

/// This module's rows of [`FUNCTIONS`](crate::functions::FUNCTIONS) (the number is the row's place in
/// the lists of names).
pub(crate) const ROWS: &[FunctionEntry] = &[
    fixed(2, "hartmann3", || Box::new(Hartmann3)).in_family("Hartmann"),
    fixed(3, "hartmann6", || Box::new(Hartmann6)).in_family("Hartmann"),
];

const SRC: &str = "published: BoTorch synthetic.py / SFU Virtual Library (Surjanovic & Bingham 2013); \
                   refined: mpmath Newton on the exact gradient (scripts/refine_optima.py)";
const ALPHA: [f64; 4] = [1.0, 1.2, 3.0, 3.2];

const A3: [[f64; 3]; 4] = [[3.0, 10.0, 30.0], [0.1, 10.0, 35.0], [3.0, 10.0, 30.0], [0.1, 10.0, 35.0]];
const P3: [[f64; 3]; 4] =
    [[3689.0, 1170.0, 2673.0], [4699.0, 4387.0, 7470.0], [1091.0, 8732.0, 5547.0], [381.0, 5743.0, 8828.0]];

const A6: [[f64; 6]; 4] = [
    [10.0, 3.0, 17.0, 3.5, 1.7, 8.0],
    [0.05, 10.0, 17.0, 0.1, 8.0, 14.0],
    [3.0, 3.5, 1.7, 10.0, 17.0, 8.0],
    [17.0, 8.0, 0.05, 10.0, 0.1, 14.0],
];
const P6: [[f64; 6]; 4] = [
    [1312.0, 1696.0, 5569.0, 124.0, 8283.0, 5886.0],
    [2329.0, 4135.0, 8307.0, 3736.0, 1004.0, 9991.0],
    [2348.0, 1451.0, 3522.0, 2883.0, 3047.0, 6650.0],
    [4047.0, 8828.0, 8732.0, 5743.0, 1091.0, 381.0],
];

/// −Σᵢ αᵢ exp(−Σⱼ A_ij (xⱼ − 10⁻⁴ P_ij)²).
fn hartmann<const D: usize>(a: &[[f64; D]; 4], p: &[[f64; D]; 4], x: &[f64]) -> f64 {
    -(0..4)
        .map(|i| {
            let e: f64 = (0..D).map(|j| a[i][j] * (x[j] - 1e-4 * p[i][j]).powi(2)).sum();
            ALPHA[i] * (-e).exp()
        })
        .sum::<f64>()
}

/// Hartmann-3: A = [[3, 10, 30], [0.1, 10, 35], [3, 10, 30], [0.1, 10, 35]],
/// P = 10⁻⁴ [[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]].
///
/// Domain [0, 1]³. Published minimum −3.86278 at (0.114614, 0.555649, 0.852547). Refined (mpmath,
/// 60 digits, Newton's method on the exact gradient from the published point; the Hessian there is
/// positive definite with eigenvalues 1.21, 69.6, 193; `scripts/refine_optima.py`):
/// **min −3.8627797873326625228 at (0.11458887665506896836, 0.55564889461693004477,
/// 0.85254698468667743762)**, so bohf's maximum is 3.86277978733266… there. The published value is
/// right to its five decimals, but the published x₁ is 2.5·10⁻⁵ off (the Hessian's smallest
/// eigenvalue, 1.21, makes the minimum flat along that direction). A multistart search (300 starts)
/// finds no lower minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hartmann3;

/// Hartmann-6: A and P as in the table of `test-functions.md` (rows
/// A = [10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8],
/// [17, 8, 0.05, 10, 0.1, 14]; P = 10⁻⁴ × [1312, 1696, 5569, 124, 8283, 5886],
/// [2329, 4135, 8307, 3736, 1004, 9991], [2348, 1451, 3522, 2883, 3047, 6650],
/// [4047, 8828, 8732, 5743, 1091, 381]).
///
/// Domain [0, 1]⁶. Published minimum −3.32237 at (0.20169, 0.150011, 0.476874, 0.275332, 0.311652,
/// 0.6573). Refined as for [`Hartmann3`] (Hessian eigenvalues 18.2 … 98.9): **min
/// −3.3223680114155148001 at (0.20168951100670542433, 0.15001069182345796879,
/// 0.47687397422189699032, 0.27533243049405606824, 0.31165161660011324245,
/// 0.65730053406562030606)**, so bohf's maximum is 3.32236801141551… there; the published figures
/// are this optimum rounded to six decimals (trailing zeros dropped). Used by qEUBO.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hartmann6;

impl TestFunction for Hartmann3 {
    fn name(&self) -> &str {
        "hartmann3"
    }
    fn dim(&self) -> usize {
        3
    }
    fn domain(&self) -> BoxDomain {
        BoxDomain::cube(0.0, 1.0, 3).expect("valid constant bounds")
    }
    fn sense(&self) -> Sense {
        Sense::Minimise
    }
    fn published(&self, x: &[f64]) -> f64 {
        hartmann(&A3, &P3, x)
    }
    #[allow(clippy::excessive_precision)] // the mpmath figures, as printed (20 significant digits)
    fn published_optimum(&self) -> Option<KnownOptimum> {
        Some(
            KnownOptimum::refined(
                vec![vec![0.11458887665506896836, 0.55564889461693004477, 0.85254698468667743762]],
                -3.8627797873326625228,
                SRC,
            )
            .with_published(vec![vec![0.114614, 0.555649, 0.852547]], -3.86278, 5),
        )
    }
}

impl TestFunction for Hartmann6 {
    fn name(&self) -> &str {
        "hartmann6"
    }
    fn dim(&self) -> usize {
        6
    }
    fn domain(&self) -> BoxDomain {
        BoxDomain::cube(0.0, 1.0, 6).expect("valid constant bounds")
    }
    fn sense(&self) -> Sense {
        Sense::Minimise
    }
    fn published(&self, x: &[f64]) -> f64 {
        hartmann(&A6, &P6, x)
    }
    #[allow(clippy::excessive_precision)] // the mpmath figures, as printed (20 significant digits)
    fn published_optimum(&self) -> Option<KnownOptimum> {
        Some(
            KnownOptimum::refined(
                vec![vec![
                    0.20168951100670542433,
                    0.15001069182345796879,
                    0.47687397422189699032,
                    0.27533243049405606824,
                    0.31165161660011324245,
                    0.65730053406562030606,
                ]],
                -3.3223680114155148001,
                SRC,
            )
            .with_published(
                vec![vec![0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573]],
                -3.32237,
                5,
            ),
        )
    }
}
