//! Stationary kernels k(x, y) = σ² φ(r), r = ‖(x − y) ⊘ ℓ‖₂, and the linear kernel.

use crate::{Kernel, KernelKind, symmetric_from_fn};
use bohf_core::error::ensure_positive;
use bohf_core::{Error, Result};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;

/// The squared scaled distance beyond which every profile, and its slope, is 0 in f64: e^{−√r²}
/// < e^{−1000} underflows (the smallest positive f64 is about e^{−745}) whatever polynomial factor
/// multiplies it. Returning 0 there is exact, and avoids ∞ · 0 = NaN where r² overflows (finite
/// points 2e200 apart, issue 33).
const FAR_R2: f64 = 1e6;

/// The profile φ of a stationary kind as a function of the squared scaled distance r² (formulas of
/// MR-LPF App. A and PF-TS App. B.3; closed forms as in scikit-learn; the forms are listed on
/// [`KernelKind`]). Only called for stationary kinds ([`Stationary::new`] refuses the others).
#[inline]
fn profile_sq(kind: KernelKind, r2: f64) -> f64 {
    if r2 > FAR_R2 {
        return 0.0;
    }
    match kind {
        KernelKind::Se => (-0.5 * r2).exp(),
        KernelKind::Matern12 => (-r2.sqrt()).exp(),
        KernelKind::Matern32 => {
            let s = (3.0 * r2).sqrt();
            (1.0 + s) * (-s).exp()
        }
        KernelKind::Matern52 => {
            let s = (5.0 * r2).sqrt();
            (1.0 + s + 5.0 * r2 / 3.0) * (-s).exp()
        }
        KernelKind::Linear => unreachable!("Stationary::new refuses the linear kernel"),
    }
}

/// ψ(r) = φ′(r)/r at r² > 0, the factor in every derivative of φ(r(·)) (∂φ/∂z = ψ(r) · ½ ∂r²/∂z):
/// SE −e^{−r²/2}; Matérn-½ −e^{−r}/r; Matérn-3⁄2 −3e^{−√3 r}; Matérn-5⁄2 −(5/3)(1 + √5 r)e^{−√5 r}.
#[inline]
fn profile_slope_sq(kind: KernelKind, r2: f64) -> f64 {
    if r2 > FAR_R2 {
        return 0.0;
    }
    match kind {
        KernelKind::Se => -(-0.5 * r2).exp(),
        KernelKind::Matern12 => {
            let r = r2.sqrt();
            -(-r).exp() / r
        }
        KernelKind::Matern32 => -3.0 * (-(3.0 * r2).sqrt()).exp(),
        KernelKind::Matern52 => {
            let s = (5.0 * r2).sqrt();
            -5.0 / 3.0 * (1.0 + s) * (-s).exp()
        }
        KernelKind::Linear => unreachable!("Stationary::new refuses the linear kernel"),
    }
}

/// ψ(r) of [`profile_slope_sq`] from φ(r) (`phi`, already computed, e.g. a Gram entry over σ²) at
/// r² > 0, without another exponential: SE −φ; Matérn-½ −φ/r; Matérn-3⁄2 −3φ/(1 + √3 r);
/// Matérn-5⁄2 −(5/3)(1 + √5 r) φ/(1 + √5 r + 5r²/3) (the closed forms of [`profile_sq`] and
/// [`profile_slope_sq`] share their exponential factor).
#[inline]
fn profile_slope_from_value(kind: KernelKind, r2: f64, phi: f64) -> f64 {
    if r2 > FAR_R2 {
        return 0.0;
    }
    match kind {
        KernelKind::Se => -phi,
        KernelKind::Matern12 => -phi / r2.sqrt(),
        KernelKind::Matern32 => -3.0 * phi / (1.0 + (3.0 * r2).sqrt()),
        KernelKind::Matern52 => {
            let s = (5.0 * r2).sqrt();
            -5.0 / 3.0 * (1.0 + s) * phi / (1.0 + s + 5.0 * r2 / 3.0)
        }
        KernelKind::Linear => unreachable!("Stationary::new refuses the linear kernel"),
    }
}

/// A stationary kernel k(x, y) = σ² φ(‖(x − y) ⊘ ℓ‖₂) with an isotropic lengthscale or one per
/// dimension (ARD).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stationary {
    kind: KernelKind,
    variance: f64,
    /// One entry (isotropic) or d entries (ARD).
    lengthscales: Vec<f64>,
}

impl Stationary {
    /// An isotropic kernel with unit variance; errors name the offending field (`kind` for a kind
    /// that is not stationary, i.e. the linear kernel, which [`Linear`] builds).
    pub fn new(kind: KernelKind, lengthscale: f64) -> Result<Self> {
        if !kind.is_stationary() {
            return Err(Error::invalid(
                "kind",
                format!(
                    "the {} kernel is not stationary (it has no lengthscale); choose se or a matern kind",
                    kind.name()
                ),
            ));
        }
        ensure_positive("lengthscale", lengthscale)?;
        Ok(Self { kind, variance: 1.0, lengthscales: vec![lengthscale] })
    }

    /// Squared exponential with lengthscale ℓ and unit variance.
    pub fn se(lengthscale: f64) -> Result<Self> {
        Self::new(KernelKind::Se, lengthscale)
    }

    /// Matérn-½ with lengthscale ℓ and unit variance.
    pub fn matern12(lengthscale: f64) -> Result<Self> {
        Self::new(KernelKind::Matern12, lengthscale)
    }

    /// Matérn-3⁄2 with lengthscale ℓ and unit variance.
    pub fn matern32(lengthscale: f64) -> Result<Self> {
        Self::new(KernelKind::Matern32, lengthscale)
    }

    /// Matérn-5⁄2 with lengthscale ℓ and unit variance (the default kernel of the papers).
    pub fn matern52(lengthscale: f64) -> Result<Self> {
        Self::new(KernelKind::Matern52, lengthscale)
    }

    /// Sets the variance σ² (> 0).
    pub fn with_variance(mut self, variance: f64) -> Result<Self> {
        ensure_positive("variance", variance)?;
        self.variance = variance;
        Ok(self)
    }

    /// Sets one lengthscale per dimension (ARD); every entry must be > 0.
    pub fn with_ard(mut self, lengthscales: Vec<f64>) -> Result<Self> {
        if lengthscales.is_empty() {
            return Err(Error::invalid("lengthscales", "ARD needs at least one lengthscale"));
        }
        for (j, &l) in lengthscales.iter().enumerate() {
            ensure_positive(&format!("lengthscales[{j}]"), l)?;
        }
        self.lengthscales = lengthscales;
        Ok(self)
    }

    /// The contractions Σ_ik Q_ik ∂K_ik/∂log ℓ_j of a weight matrix Q (n×n) with the derivatives
    /// of the Gram matrix K of the rows of `x` with respect to the log lengthscales, one entry per
    /// lengthscale, for type-II maximum likelihood (Rasmussen & Williams 2006, eq. (5.9), where
    /// Q = ααᵀ − (K + ρI)⁻¹). The derivatives are
    ///
    /// ```text
    /// ARD:        ∂K_ik/∂log ℓ_j = ℓ_j ∂k/∂ℓ_j = −σ² ψ(r) (x_ij − x_kj)²/ℓ_j²
    /// isotropic:  ∂K_ik/∂log ℓ   = −σ² ψ(r) r²
    /// ```
    ///
    /// with ψ(r) = φ′(r)/r as in [`Kernel::grad_x`]; they are 0 at r = 0 (the diagonal and
    /// duplicated points), and ∂K/∂log σ² = K. The matrices are never formed: one pass over the
    /// n(n−1)/2 pairs, O(n² d).
    pub fn log_lengthscale_grad_contraction(&self, x: &DMatrix<f64>, q: &DMatrix<f64>) -> Result<Vec<f64>> {
        self.check_points("Gram matrix points", x)?;
        let n = x.nrows();
        if q.nrows() != n || q.ncols() != n {
            return Err(Error::dims(
                "lengthscale gradient weights (n×n)",
                n,
                if q.nrows() != n { q.nrows() } else { q.ncols() },
            ));
        }
        Ok(self.contraction_with(x, q, |_, _, r2| profile_slope_sq(self.kind, r2)))
    }

    /// [`Stationary::log_lengthscale_grad_contraction`] given the Gram matrix `gram` = K of the rows
    /// of `x` under this kernel (as [`Kernel::gram`] returns it): ψ(r) is recovered from
    /// K_ik/σ² = φ(r) without recomputing the exponentials ([`profile_slope_from_value`]), which
    /// halves the cost of a marginal-likelihood gradient that has K already. Same formula, same
    /// result to rounding.
    pub fn log_lengthscale_grad_contraction_with_gram(
        &self,
        x: &DMatrix<f64>,
        q: &DMatrix<f64>,
        gram: &DMatrix<f64>,
    ) -> Result<Vec<f64>> {
        self.check_points("Gram matrix points", x)?;
        let n = x.nrows();
        for (what, m) in [("lengthscale gradient weights (n×n)", q), ("Gram matrix (n×n)", gram)] {
            if m.nrows() != n || m.ncols() != n {
                return Err(Error::dims(what, n, if m.nrows() != n { m.nrows() } else { m.ncols() }));
            }
        }
        Ok(self
            .contraction_with(x, q, |i, k, r2| profile_slope_from_value(self.kind, r2, gram[(i, k)] / self.variance)))
    }

    /// The loop shared by the two lengthscale contractions: Σ_{i>k} −(q_ik + q_ki) σ² ψ_ik times
    /// (u_j − v_j)² per dimension (ARD) or r² (isotropic), with ψ_ik = `psi(i, k, r²)` at r² > 0.
    fn contraction_with(&self, x: &DMatrix<f64>, q: &DMatrix<f64>, psi: impl Fn(usize, usize, f64) -> f64) -> Vec<f64> {
        let n = x.nrows();
        let rows = self.scaled_rows(x);
        let mut out = vec![0.0; self.lengthscales.len()];
        let ard = out.len() > 1;
        for k in 0..n {
            for i in k + 1..n {
                let r2 = sq_dist(rows.row(i), rows.row(k));
                if r2 == 0.0 {
                    continue;
                }
                let w = -(q[(i, k)] + q[(k, i)]) * self.variance * psi(i, k, r2);
                if ard {
                    for (o, (u, v)) in out.iter_mut().zip(rows.row(i).iter().zip(rows.row(k))) {
                        *o += w * (u - v) * (u - v);
                    }
                } else {
                    out[0] += w * r2;
                }
            }
        }
        out
    }

    /// ∇ₓk(x, y_r) for every row y_r of `y` (rows of the result, `y.nrows()` × d), given the kernel
    /// values `values[r]` = k(x, y_r) (e.g. a row of [`Kernel::cross_gram`]): the formula of
    /// [`Kernel::grad_x`], σ² ψ(r) (x_j − y_j)/ℓ_j², with ψ from the value
    /// ([`profile_slope_from_value`]) and one allocation for all rows.
    pub fn grad_x_rows_with_values(&self, x: &[f64], y: &DMatrix<f64>, values: &[f64]) -> Result<DMatrix<f64>> {
        let d = x.len();
        if y.ncols() != d {
            return Err(Error::dims("kernel gradient: dimension of the points", d, y.ncols()));
        }
        if values.len() != y.nrows() {
            return Err(Error::dims("kernel gradient: kernel values per point", y.nrows(), values.len()));
        }
        if let Some(m) = self.input_dim() {
            crate::check_dim("kernel gradient: ARD lengthscales vs point dimension", m, d)?;
        }
        let mut out = DMatrix::zeros(y.nrows(), d);
        let inv_l2: Vec<f64> = (0..d).map(|j| self.lengthscale(j).powi(-2)).collect();
        for (r, &kv) in values.iter().enumerate() {
            let r2: f64 = (0..d).map(|j| (x[j] - y[(r, j)]) * (x[j] - y[(r, j)]) * inv_l2[j]).sum();
            if r2 == 0.0 {
                continue;
            }
            let c = self.variance * profile_slope_from_value(self.kind, r2, kv / self.variance);
            for j in 0..d {
                out[(r, j)] = c * (x[j] - y[(r, j)]) * inv_l2[j];
            }
        }
        Ok(out)
    }

    /// The kind (always a stationary one).
    pub fn kind(&self) -> KernelKind {
        self.kind
    }

    /// The variance σ².
    pub fn variance(&self) -> f64 {
        self.variance
    }

    /// The lengthscales (one entry if isotropic).
    pub fn lengthscales(&self) -> &[f64] {
        &self.lengthscales
    }

    /// Points scaled by their lengthscales, row after row in one buffer (one allocation; row i is
    /// `rows[i * d..(i + 1) * d]`).
    fn scaled_rows(&self, x: &DMatrix<f64>) -> ScaledRows {
        let d = x.ncols();
        let mut data = Vec::with_capacity(x.nrows() * d);
        for r in x.row_iter() {
            data.extend(r.iter().enumerate().map(|(j, v)| v / self.lengthscale(j)));
        }
        ScaledRows { data, d }
    }

    /// The lengthscale of dimension j (the single one if isotropic).
    #[inline]
    fn lengthscale(&self, j: usize) -> f64 {
        self.lengthscales[if self.lengthscales.len() == 1 { 0 } else { j }]
    }

    /// r² = ‖(x − y) ⊘ ℓ‖².
    #[inline]
    /// r² between row i of `x` and row j of `y`, differences first: where scaling the points first
    /// overflows (a tiny lengthscale, huge coordinates) and ∞ − ∞ would give NaN for a point and
    /// itself (issue 33).
    fn pair_r2(&self, x: &DMatrix<f64>, i: usize, y: &DMatrix<f64>, j: usize) -> f64 {
        (0..x.ncols()).map(|k| ((x[(i, k)] - y[(j, k)]) / self.lengthscale(k)).powi(2)).sum()
    }

    fn scaled_sq_dist(&self, x: &[f64], y: &[f64]) -> f64 {
        x.iter().zip(y).enumerate().map(|(j, (u, v))| ((u - v) / self.lengthscale(j)).powi(2)).sum()
    }
}

/// Scaled points stored row after row ([`Stationary::scaled_rows`]).
struct ScaledRows {
    data: Vec<f64>,
    d: usize,
}

impl ScaledRows {
    /// Whether every scaled coordinate is finite (else [`Stationary::pair_r2`] is used).
    fn is_finite(&self) -> bool {
        self.data.iter().all(|v| v.is_finite())
    }

    #[inline]
    fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.d..(i + 1) * self.d]
    }
}

#[inline]
fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| (u - v) * (u - v)).sum()
}

impl Kernel for Stationary {
    fn input_dim(&self) -> Option<usize> {
        (self.lengthscales.len() > 1).then_some(self.lengthscales.len())
    }

    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.variance * profile_sq(self.kind, self.scaled_sq_dist(x, y))
    }

    /// `"Matérn-5/2 (ℓ = 0.1)"`, `"SE (ℓ = [0.5, 2], σ² = 3)"`: the kind's name, the lengthscale(s),
    /// and the variance if it is not 1.
    fn name(&self) -> String {
        let ls = match self.lengthscales.as_slice() {
            [l] => format!("{l}"),
            many => format!("[{}]", many.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")),
        };
        let var = if self.variance == 1.0 { String::new() } else { format!(", σ² = {}", self.variance) };
        format!("{} (ℓ = {ls}{var})", self.kind.name())
    }

    /// ∂k/∂x_j = σ² ψ(r) (x_j − y_j)/ℓ_j², with ψ(r) = φ′(r)/r (SE −e^{−r²/2}, Matérn-½ −e^{−r}/r,
    /// Matérn-3⁄2 −3e^{−√3 r}, Matérn-5⁄2 −(5/3)(1 + √5 r)e^{−√5 r}). At x = y it is 0: the gradient
    /// of the smooth kinds, and for Matérn-½ (not differentiable there; one-sided derivatives ±σ²/ℓ_j)
    /// the mean of the two one-sided ones.
    fn grad_x(&self, x: &[f64], y: &[f64]) -> Vec<f64> {
        let r2 = self.scaled_sq_dist(x, y);
        if r2 == 0.0 {
            return vec![0.0; x.len()];
        }
        let c = self.variance * profile_slope_sq(self.kind, r2);
        x.iter().zip(y).enumerate().map(|(j, (u, v))| c * (u - v) / self.lengthscale(j).powi(2)).collect()
    }

    /// ARD: ∂k/∂ℓ_j = −σ² ψ(r) (x_j − y_j)²/ℓ_j³ (one entry per dimension); isotropic: the sum of
    /// those, ∂k/∂ℓ = −σ² ψ(r) r²/ℓ (one entry). 0 at x = y.
    fn grad_lengthscales(&self, x: &[f64], y: &[f64]) -> Vec<f64> {
        let r2 = self.scaled_sq_dist(x, y);
        if r2 == 0.0 {
            return vec![0.0; self.lengthscales.len()];
        }
        let c = -self.variance * profile_slope_sq(self.kind, r2);
        match self.lengthscales.as_slice() {
            [l] => vec![c * r2 / l],
            many => x.iter().zip(y).zip(many).map(|((u, v), l)| c * (u - v).powi(2) / l.powi(3)).collect(),
        }
    }

    fn gram(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_points("Gram matrix points", x)?;
        let rows = self.scaled_rows(x);
        if !rows.is_finite() {
            return Ok(symmetric_from_fn(x.nrows(), |i, j| {
                self.variance * profile_sq(self.kind, self.pair_r2(x, i, x, j))
            }));
        }
        Ok(symmetric_from_fn(x.nrows(), |i, j| {
            self.variance * profile_sq(self.kind, sq_dist(rows.row(i), rows.row(j)))
        }))
    }

    fn cross_gram(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_cross(x, y)?;
        let (rx, ry) = (self.scaled_rows(x), self.scaled_rows(y));
        if !(rx.is_finite() && ry.is_finite()) {
            return Ok(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
                self.variance * profile_sq(self.kind, self.pair_r2(x, i, y, j))
            }));
        }
        Ok(DMatrix::from_fn(x.nrows(), y.nrows(), |i, j| {
            self.variance * profile_sq(self.kind, sq_dist(rx.row(i), ry.row(j)))
        }))
    }

    fn diagonal(&self, x: &DMatrix<f64>) -> Result<DVector<f64>> {
        self.check_points("kernel diagonal points", x)?;
        Ok(DVector::from_element(x.nrows(), self.variance))
    }
}

/// The linear kernel k(x, y) = σ² xᵀy (MR-LPF App. A, with a variance).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Linear {
    variance: f64,
}

impl Linear {
    /// A linear kernel with variance σ² > 0.
    pub fn new(variance: f64) -> Result<Self> {
        ensure_positive("variance", variance)?;
        Ok(Self { variance })
    }

    /// The variance σ².
    pub fn variance(&self) -> f64 {
        self.variance
    }
}

impl Kernel for Linear {
    fn input_dim(&self) -> Option<usize> {
        None
    }

    fn eval(&self, x: &[f64], y: &[f64]) -> f64 {
        self.variance * x.iter().zip(y).map(|(u, v)| u * v).sum::<f64>()
    }

    /// `"linear"`, or `"linear (σ² = 2)"` if the variance is not 1.
    fn name(&self) -> String {
        if self.variance == 1.0 { "linear".into() } else { format!("linear (σ² = {})", self.variance) }
    }

    /// ∂k/∂x = σ² y.
    fn grad_x(&self, _x: &[f64], y: &[f64]) -> Vec<f64> {
        y.iter().map(|v| self.variance * v).collect()
    }

    /// Empty: the linear kernel has no lengthscale.
    fn grad_lengthscales(&self, _x: &[f64], _y: &[f64]) -> Vec<f64> {
        Vec::new()
    }

    fn gram(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_points("Gram matrix points", x)?;
        Ok(x * x.transpose() * self.variance)
    }

    fn cross_gram(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        self.check_cross(x, y)?;
        Ok(x * y.transpose() * self.variance)
    }
}

#[cfg(test)]
mod tests;
