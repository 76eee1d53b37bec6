//! The posterior of [`GpRegression`] at one point, with its gradient in x, for optimising an
//! acquisition function over a box by gradient steps (bohf-optim).
//!
//! With w = (K_t + ρI)⁻¹ k_t(x) and α = (K_t + ρI)⁻¹ y (MR-LPF eq. (5)–(6)):
//!
//! ```text
//! ∇m(x)  = Σ_i α_i ∇_x k(x, x_i)
//! ∇σ²(x) = ∇_x k(x, x) − 2 Σ_i w_i ∇_x k(x, x_i),      ∇_x k(x, x) = 2 ∂k(x, y)/∂x |_{y = x}
//! ```
//!
//! (K_t + ρI symmetric; k symmetric, so the derivative of k(x, x) is twice the partial derivative
//! in its first argument, zero for a stationary kernel).

use super::GpRegression;
use bohf_core::{Error, Result};
use bohf_kernels::Kernel;
use nalgebra::DVector;

/// The posterior mean and variance of a [`GpRegression`] at one point x, with their gradients in x.
#[derive(Debug, Clone, PartialEq)]
pub struct PointPosterior {
    /// m_t(x).
    pub mean: f64,
    /// σ_t²(x), clamped at 0 against rounding.
    pub variance: f64,
    /// ∇m_t(x).
    pub mean_gradient: Vec<f64>,
    /// ∇σ_t²(x) of the unclamped expression (exact wherever σ_t²(x) > 0).
    pub variance_gradient: Vec<f64>,
}

impl<K: Kernel> GpRegression<K> {
    /// m_t(x) and σ_t²(x) at one point (the single-point form of [`GpRegression::mean`] and
    /// [`GpRegression::variance`], without building matrices): O(n d + n²). Errors name the point's
    /// dimension or a non-finite coordinate.
    pub fn mean_variance_at(&self, x: &[f64]) -> Result<(f64, f64)> {
        let kx = self.kernel_column(x)?;
        let mean = kx.dot(&self.alpha);
        let mut v = kx;
        self.chol.l().solve_lower_triangular_unchecked_mut(&mut v);
        Ok((mean, (self.kernel.eval(x, x) - v.norm_squared()).max(0.0)))
    }

    /// m_t(x), σ_t²(x) and their gradients in x (module documentation): O(n d + n²). Errors as
    /// [`GpRegression::mean_variance_at`].
    pub fn posterior_with_gradient(&self, x: &[f64]) -> Result<PointPosterior> {
        let kx = self.kernel_column(x)?;
        let mean = kx.dot(&self.alpha);
        let mut w = kx.clone();
        let l = self.chol.l();
        l.solve_lower_triangular_unchecked_mut(&mut w);
        let variance = (self.kernel.eval(x, x) - w.norm_squared()).max(0.0);
        l.tr_solve_lower_triangular_unchecked_mut(&mut w);
        let d = x.len();
        let mut mean_gradient = vec![0.0; d];
        let mut variance_gradient: Vec<f64> = self.kernel.grad_x(x, x).into_iter().map(|g| 2.0 * g).collect();
        let mut row = vec![0.0; d];
        for i in 0..self.len() {
            row.iter_mut().zip(self.x.row(i).iter()).for_each(|(r, v)| *r = *v);
            let (a, c) = (self.alpha[i], 2.0 * w[i]);
            for ((gm, gv), dk) in
                mean_gradient.iter_mut().zip(variance_gradient.iter_mut()).zip(self.kernel.grad_x(x, &row))
            {
                *gm += a * dk;
                *gv -= c * dk;
            }
        }
        Ok(PointPosterior { mean, variance, mean_gradient, variance_gradient })
    }

    /// k_t(x) = [k(x_i, x)]_i after checking x's dimension and finiteness.
    fn kernel_column(&self, x: &[f64]) -> Result<DVector<f64>> {
        let d = self.x.ncols();
        if x.len() != d {
            return Err(Error::dims("GP regression query point: dimension", d, x.len()));
        }
        bohf_core::error::ensure_finite("GP regression query point", x.iter())?;
        let mut row = vec![0.0; d];
        Ok(DVector::from_fn(self.len(), |i, _| {
            row.iter_mut().zip(self.x.row(i).iter()).for_each(|(r, v)| *r = *v);
            self.kernel.eval(&row, x)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bohf_kernels::{KernelKind, KernelSpec};
    use nalgebra::DMatrix;
    use proptest::prelude::*;

    fn model(k: usize, n: usize, d: usize, seed: u64) -> GpRegression<Box<dyn Kernel>> {
        let spec = kernels()[k].clone();
        let mut s = seed;
        let mut next = move || {
            s = bohf_core::rng::splitmix64(s);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let x = DMatrix::from_fn(n, d, |_, _| next());
        let y = DVector::from_fn(n, |i, _| (3.0 * x[(i, 0)]).sin() + next() * 0.1);
        GpRegression::fit(spec.build().unwrap(), &x, &y, 0.01).unwrap()
    }

    /// Central differences with step h of m and σ² at x.
    fn finite_differences(gp: &GpRegression<Box<dyn Kernel>>, x: &[f64], h: f64) -> (Vec<f64>, Vec<f64>) {
        (0..x.len())
            .map(|j| {
                let (mut up, mut down) = (x.to_vec(), x.to_vec());
                up[j] += h;
                down[j] -= h;
                let (mu, vu) = gp.mean_variance_at(&up).unwrap();
                let (md, vd) = gp.mean_variance_at(&down).unwrap();
                ((mu - md) / (2.0 * h), (vu - vd) / (2.0 * h))
            })
            .unzip()
    }

    /// SE with variance 2, Matérn-5/2 ARD, Matérn-3/2, and the non-stationary linear kernel (whose
    /// ∇k(x, x) ≠ 0 exercises the first term of ∇σ²).
    fn kernels() -> [KernelSpec; 4] {
        let spec = |kind, lengthscale, lengthscales, variance| KernelSpec { kind, lengthscale, lengthscales, variance };
        [
            spec(KernelKind::Se, Some(0.3), None, Some(2.0)),
            spec(KernelKind::Matern52, None, Some(vec![0.3, 0.5, 0.4]), None),
            spec(KernelKind::Matern32, Some(0.4), None, None),
            spec(KernelKind::Linear, None, None, Some(1.5)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn gradients_match_finite_differences(k in 0usize..4, n in 0usize..25, seed in 0u64..1000,
                                              x in proptest::collection::vec(0.0f64..1.0, 3)) {
            let gp = model(k, n, 3, seed);
            let p = gp.posterior_with_gradient(&x).unwrap();
            let (m, v) = gp.mean_variance_at(&x).unwrap();
            prop_assert!((p.mean - m).abs() < 1e-12 && (p.variance - v).abs() < 1e-12);
            let (gm, gv) = finite_differences(&gp, &x, 1e-6);
            for j in 0..3 {
                let tol = |a: f64| 1e-5 * (1.0 + a.abs());
                prop_assert!((p.mean_gradient[j] - gm[j]).abs() < tol(gm[j]), "mean {j}: {} vs {}", p.mean_gradient[j], gm[j]);
                if v > 1e-8 {
                    prop_assert!((p.variance_gradient[j] - gv[j]).abs() < tol(gv[j]), "var {j}: {} vs {}", p.variance_gradient[j], gv[j]);
                }
            }
        }
    }

    #[test]
    fn single_point_forms_match_the_matrix_forms_and_check_input() {
        let gp = model(1, 12, 3, 4);
        let xs = DMatrix::from_row_slice(2, 3, &[0.1, 0.2, 0.9, 0.5, 0.5, 0.5]);
        let (m, v) = (gp.mean(&xs).unwrap(), gp.variance(&xs).unwrap());
        for i in 0..2 {
            let row: Vec<f64> = xs.row(i).iter().copied().collect();
            let (mi, vi) = gp.mean_variance_at(&row).unwrap();
            assert!((mi - m[i]).abs() < 1e-12 && (vi - v[i]).abs() < 1e-12);
        }
        assert!(matches!(gp.mean_variance_at(&[0.0, 0.0]), Err(Error::DimensionMismatch { .. })));
        assert!(matches!(gp.posterior_with_gradient(&[0.0, f64::NAN, 0.0]), Err(Error::NonFinite(_))));
    }
}
