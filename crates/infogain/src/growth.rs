//! Theoretical growth orders of the maximum information gain Γ(T), and a log–log slope fit to compare
//! greedy trajectories with them.
//!
//! Up to constants (and for T → ∞), with d the input dimension:
//!
//! | kernel | Γ(T) | source |
//! |---|---|---|
//! | linear | d·log T | Srinivas et al. 2010, Thm. 5 |
//! | squared exponential | log^{d+1} T | Srinivas et al. 2010; Vakili et al. 2021, Cor. 1 |
//! | Matérn-ν | T^{d/(2ν+d)} · log^{2ν/(2ν+d)} T | Vakili et al. 2021, Cor. 1 |
//!
//! MR-LPF Remark 4.2 / App. B.3 and PF-TS Remark 1 quote the Matérn order as Õ(T^{d/(2ν+d)}), which hides
//! the log factor; [`GrowthOrder::value`] includes Vakili et al.'s log factor, and
//! [`GrowthOrder::polynomial_exponent`] and [`GrowthOrder::log_exponent`] expose the two exponents
//! separately so that either form can be used. The dueling kernel has the same orders as its base
//! kernel, with d the dimension of X (not 2d): its nonzero eigenvalues are twice those of the centred base
//! kernel (MR-LPF Remark 4.2; PF-TS §1.4).

use bohf_core::{Error, Result};
use bohf_kernels::{KernelKind, Smoothness};
use std::fmt;

/// The order of Γ(T) for a kernel kind in dimension d, as c · T^a · (log T)^b with c = d for the linear
/// kernel and 1 otherwise (constants depending on d, ν and the lengthscale are dropped).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrowthOrder {
    kernel: KernelKind,
    dim: usize,
}

impl GrowthOrder {
    /// The order for `kernel` in dimension `dim` ≥ 1 (an error names `dim` otherwise): d·log T
    /// (linear), log^{d+1} T (SE) or T^{d/(2ν+d)} log^{2ν/(2ν+d)} T (Matérn-ν).
    pub fn new(kernel: KernelKind, dim: usize) -> Result<Self> {
        if dim == 0 {
            return Err(Error::invalid("dim", "the input dimension must be ≥ 1"));
        }
        Ok(Self { kernel, dim })
    }

    /// The kernel kind.
    pub fn kernel(&self) -> KernelKind {
        self.kernel
    }

    /// The input dimension d.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The exponent a of T^a: d/(2ν + d) for Matérn-ν, 0 for SE and linear.
    pub fn polynomial_exponent(&self) -> f64 {
        let d = self.dim as f64;
        match self.kernel.smoothness() {
            Smoothness::Matern { nu } => d / (2.0 * nu + d),
            Smoothness::FiniteRank | Smoothness::Analytic => 0.0,
        }
    }

    /// The exponent b of (log T)^b: 1 for linear, d + 1 for SE, 2ν/(2ν + d) for Matérn-ν (Vakili et al.).
    pub fn log_exponent(&self) -> f64 {
        let d = self.dim as f64;
        match self.kernel.smoothness() {
            Smoothness::FiniteRank => 1.0,
            Smoothness::Analytic => d + 1.0,
            Smoothness::Matern { nu } => 2.0 * nu / (2.0 * nu + d),
        }
    }

    /// The constant c in front: d for the linear kernel, 1 otherwise.
    pub fn prefactor(&self) -> f64 {
        match self.kernel.smoothness() {
            Smoothness::FiniteRank => self.dim as f64,
            Smoothness::Analytic | Smoothness::Matern { .. } => 1.0,
        }
    }

    /// c · T^a · (log T)^b at T = `steps` > 1 (an error names `steps` otherwise; log T ≤ 0 for T ≤ 1).
    pub fn value(&self, steps: f64) -> Result<f64> {
        if !(steps.is_finite() && steps > 1.0) {
            return Err(Error::invalid("steps", format!("must be finite and > 1, got {steps}")));
        }
        Ok(self.prefactor() * steps.powf(self.polynomial_exponent()) * steps.ln().powf(self.log_exponent()))
    }
}

impl fmt::Display for GrowthOrder {
    /// E.g. `3·log T`, `log^3 T`, `T^0.1667·log^0.8333 T`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kernel.smoothness() {
            Smoothness::FiniteRank => write!(f, "{}·log T", self.dim),
            Smoothness::Analytic => write!(f, "log^{} T", self.dim + 1),
            Smoothness::Matern { .. } => {
                write!(f, "T^{:.4}·log^{:.4} T", self.polynomial_exponent(), self.log_exponent())
            }
        }
    }
}

/// A least-squares fit log y ≈ intercept + slope · log x, i.e. y ≈ e^intercept · x^slope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerLawFit {
    /// The exponent (slope on log–log axes).
    pub slope: f64,
    /// The intercept on log–log axes (log of the constant).
    pub intercept: f64,
}

/// Ordinary least squares of log y on log x over the given (x, y) points:
/// slope = Σ(u − ū)(v − v̄)/Σ(u − ū)², u = log x, v = log y.
///
/// Errors (naming `points`): fewer than 2 points, a non-finite or non-positive coordinate, or all x equal.
pub fn log_log_fit(points: &[(f64, f64)]) -> Result<PowerLawFit> {
    if points.len() < 2 {
        return Err(Error::invalid("points", format!("need at least 2 points for a slope, got {}", points.len())));
    }
    if let Some((k, (x, y))) =
        points.iter().enumerate().find(|(_, (x, y))| !(x.is_finite() && y.is_finite() && *x > 0.0 && *y > 0.0))
    {
        return Err(Error::invalid("points", format!("point {k} = ({x}, {y}): coordinates must be finite and > 0")));
    }
    let m = points.len() as f64;
    let (u, v): (Vec<f64>, Vec<f64>) = points.iter().map(|(x, y)| (x.ln(), y.ln())).unzip();
    let (ub, vb) = (u.iter().sum::<f64>() / m, v.iter().sum::<f64>() / m);
    let sxx: f64 = u.iter().map(|a| (a - ub) * (a - ub)).sum();
    let sxy: f64 = u.iter().zip(&v).map(|(a, b)| (a - ub) * (b - vb)).sum();
    if sxx <= 0.0 {
        return Err(Error::invalid("points", "all x are equal: the slope is undefined"));
    }
    let slope = sxy / sxx;
    Ok(PowerLawFit { slope, intercept: vb - slope * ub })
}

/// The slope of [`log_log_fit`].
pub fn log_log_slope(points: &[(f64, f64)]) -> Result<f64> {
    Ok(log_log_fit(points)?.slope)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn exponents_by_hand() {
        let m52 = GrowthOrder::new(KernelKind::Matern52, 1).unwrap();
        // The 1-D values MR-LPF §4.1 quotes: T^{1/6} (ν = 5/2) and T^{1/4} (ν = 3/2).
        assert_relative_eq!(m52.polynomial_exponent(), 1.0 / 6.0, max_relative = 1e-15);
        assert_relative_eq!(m52.log_exponent(), 5.0 / 6.0, max_relative = 1e-15);
        let m32 = GrowthOrder::new(KernelKind::Matern32, 1).unwrap();
        assert_relative_eq!(m32.polynomial_exponent(), 0.25, max_relative = 1e-15);
        assert_relative_eq!(m32.log_exponent(), 0.75, max_relative = 1e-15);
        let m12 = GrowthOrder::new(KernelKind::Matern12, 2).unwrap();
        assert_relative_eq!(m12.polynomial_exponent(), 2.0 / 3.0, max_relative = 1e-15);
        assert_relative_eq!(m12.log_exponent(), 1.0 / 3.0, max_relative = 1e-15);
        let se = GrowthOrder::new(KernelKind::Se, 3).unwrap();
        assert_eq!((se.polynomial_exponent(), se.log_exponent()), (0.0, 4.0));
        // SE in d = 3 at T = e²: (log T)^4 = 16.
        assert_relative_eq!(se.value(2f64.exp()).unwrap(), 16.0, max_relative = 1e-14);
        // Linear in d = 4 at T = e²: 4 · 2 = 8.
        let lin = GrowthOrder::new(KernelKind::Linear, 4).unwrap();
        assert_relative_eq!(lin.value(2f64.exp()).unwrap(), 8.0, max_relative = 1e-14);
        // Matérn-5/2, d = 1 at T = e⁶: e^{1} · 6^{5/6}.
        assert_relative_eq!(m52.value(6f64.exp()).unwrap(), 1f64.exp() * 6f64.powf(5.0 / 6.0), max_relative = 1e-13);
        assert_eq!(lin.to_string(), "4·log T");
        assert_eq!(se.to_string(), "log^4 T");
        assert_eq!(m52.to_string(), "T^0.1667·log^0.8333 T");
    }

    #[test]
    fn local_slope_of_the_order_is_a_plus_b_over_log_t() {
        // d log(T^a log^b T)/d log T = a + b/log T: the slope fitted over two nearby T checks `value`.
        for order in [
            GrowthOrder::new(KernelKind::Matern52, 1).unwrap(),
            GrowthOrder::new(KernelKind::Matern32, 2).unwrap(),
            GrowthOrder::new(KernelKind::Se, 2).unwrap(),
            GrowthOrder::new(KernelKind::Linear, 3).unwrap(),
        ] {
            for t in [50.0, 500.0, 2000.0] {
                let t2 = t * (1.0 + 1e-6);
                let fit = log_log_slope(&[(t, order.value(t).unwrap()), (t2, order.value(t2).unwrap())]).unwrap();
                let expected = order.polynomial_exponent() + order.log_exponent() / f64::ln(t);
                // Tolerance 1e-5: finite-difference error O(1e-6 · curvature) plus cancellation in log y.
                assert_relative_eq!(fit, expected, max_relative = 1e-5);
            }
        }
    }

    #[test]
    fn fit_recovers_exact_power_laws() {
        for (c, a) in [(3.0, 0.37), (0.02, -1.5), (1.0, 0.0), (7.5, 2.0)] {
            let pts: Vec<(f64, f64)> =
                [50.0, 80.0, 200.0, 650.0, 2000.0].iter().map(|&x: &f64| (x, c * x.powf(a))).collect();
            let fit = log_log_fit(&pts).unwrap();
            // Tolerance 1e-12: exact data, only rounding of logs and sums.
            assert!((fit.slope - a).abs() < 1e-12, "{fit:?}");
            assert!((fit.intercept - f64::ln(c)).abs() < 1e-10, "{fit:?}");
        }
        // Two points: the slope through them.
        assert_relative_eq!(log_log_slope(&[(1.0, 1.0), (4.0, 2.0)]).unwrap(), 0.5, max_relative = 1e-15);
    }

    /// Every kind in the one list has an order, with exponents in the range the theory allows
    /// (0 ≤ a < 1: Γ(T) is sublinear; b ≥ 0), and T^a·log^b T grows.
    #[test]
    fn every_kernel_kind_has_a_sublinear_growth_order() {
        for kind in KernelKind::ALL {
            for d in 1..=4 {
                let o = GrowthOrder::new(kind, d).unwrap();
                let (a, b) = (o.polynomial_exponent(), o.log_exponent());
                assert!((0.0..1.0).contains(&a) && b >= 0.0, "{kind}: a = {a}, b = {b}");
                assert!(o.value(1e4).unwrap() > o.value(1e2).unwrap(), "{kind} in d = {d}");
            }
        }
    }

    #[test]
    fn errors_name_the_field() {
        assert!(GrowthOrder::new(KernelKind::Linear, 0).unwrap_err().to_string().contains("dim"));
        let o = GrowthOrder::new(KernelKind::Se, 1).unwrap();
        for t in [1.0, 0.5, -3.0, f64::NAN, f64::INFINITY] {
            assert!(o.value(t).unwrap_err().to_string().contains("steps"));
        }
        assert!(log_log_slope(&[]).unwrap_err().to_string().contains("points"));
        assert!(log_log_slope(&[(1.0, 2.0)]).unwrap_err().to_string().contains("at least 2"));
        for bad in [(0.0, 1.0), (1.0, -1.0), (f64::NAN, 1.0), (2.0, f64::INFINITY)] {
            let e = log_log_slope(&[(1.0, 1.0), bad]).unwrap_err();
            assert!(e.to_string().contains("points") && e.to_string().contains("point 1"), "{e}");
        }
        assert!(log_log_slope(&[(3.0, 1.0), (3.0, 2.0)]).unwrap_err().to_string().contains("equal"));
    }
}
