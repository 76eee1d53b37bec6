//! GP regression whose hyperparameters are learned from the data as it arrives: the model that an
//! algorithm with learned hyperparameters keeps (GP-UCB on a box with a `hyperparameters` table;
//! COBOL and COMP-GP-UCB refit theirs on a schedule).
//!
//! [`LearnedGp`] holds the observations in original units. When [`HyperFitConfig::refit_due`] says
//! so (the first fit at 2 observations, then every `refit_every` new ones) it refits by
//! [`fit_hyperparameters`] from the configured start (the same start every time, as BoTorch's loops
//! that build a fresh `SingleTaskGP` each iteration do) and rebuilds the posterior in the fit's
//! working units ([`DataTransform`]: inputs scaled to [0, 1]^d by the box, targets standardised).
//! Between refits an observation is appended to the posterior in the last fit's working units
//! (O(n²), [`GpRegression::append`]). Queries take and return original units:
//!
//! ```text
//! m(x) = s·m′(x′) + μ,    σ²(x) = s²·σ′²(x′),    ∂m/∂x_j = s·(∂m′/∂x′_j)/w_j,    ∂σ²/∂x_j = s²·(∂σ′²/∂x′_j)/w_j
//! ```
//!
//! with x′ = (x − lower) ⊘ w, w = upper − lower, and (μ, s) the target mean and standard deviation
//! of the last fit. Before the first fit the transform scales inputs but leaves targets as they are
//! (μ = 0, s = 1), and the start hyperparameters are used.
//!
//! A caller that keeps its own posterior and reads only the hyperparameters (the finite-domain
//! algorithms of bohf-compgpucb keep a [`crate::CandidatePosterior`]) turns the model's posterior off
//! with [`LearnedGp::without_posterior`]: the observations, the refit schedule and every fit stay
//! the same (so do [`LearnedGp::kernel`], [`LearnedGp::noise`], [`LearnedGp::transform`] and
//! [`LearnedGp::fits`]), but neither the O(n³) rebuild after a fit nor the O(n²) append between
//! fits is done; posterior queries then fail, and [`LearnedGp::with_posterior`] builds the
//! posterior of the current hyperparameters on all the data in one batch (equal to the
//! incremental one up to rounding).

use super::GpRegression;
use super::hyper::{DataTransform, HyperFit, ValidHyperFitConfig, check_start, fit_hyperparameters, start_kernel};
use super::point::PointPosterior;
use bohf_core::{BoxDomain, Error, Result};
use bohf_kernels::{Kernel, Stationary};
use nalgebra::{DMatrix, DVector};

/// GP regression with hyperparameters learned by type-II maximum likelihood on a refit schedule;
/// see the module documentation.
#[derive(Debug, Clone)]
pub struct LearnedGp {
    config: ValidHyperFitConfig,
    start: Stationary,
    start_noise: f64,
    domain: Option<BoxDomain>,
    dim: usize,
    /// Observed points (original units), row-major.
    x: Vec<f64>,
    /// Observed values (original units).
    y: Vec<f64>,
    transform: DataTransform,
    /// The hyperparameters in use (working units): the start's before the first fit, then the
    /// last fit's.
    kernel: Stationary,
    noise: f64,
    /// The posterior in working units; `None` when turned off ([`LearnedGp::without_posterior`]).
    gp: Option<GpRegression<Stationary>>,
    last_fit: Option<usize>,
    fit: Option<HyperFit>,
    fits: usize,
}

impl LearnedGp {
    /// No observations yet, in dimension `dim`, with the start kernel and noise of every fit
    /// (working units) and the box the inputs live in (needed when the config scales inputs).
    /// Errors if the box's dimension differs from `dim`, if the start lies outside the config's
    /// bounds (naming `lengthscale_bounds`, `lengthscale_floor`, `variance_bounds` or
    /// `noise_bounds`) or its lengthscales do not fit `dim` and `ard`, or as [`DataTransform::new`] /
    /// [`GpRegression::fit`].
    pub fn new(
        config: ValidHyperFitConfig,
        start: Stationary,
        start_noise: f64,
        domain: Option<BoxDomain>,
        dim: usize,
    ) -> Result<Self> {
        if let Some(b) = &domain
            && b.dim() != dim
        {
            return Err(Error::dims("learned GP: box dimension", dim, b.dim()));
        }
        check_start(&config, &start_kernel(&config, &start, dim)?, start_noise)?;
        let transform = DataTransform::new(&config, dim, domain.as_ref(), &DVector::zeros(0))?;
        let gp = GpRegression::fit(start.clone(), &DMatrix::zeros(0, dim), &DVector::zeros(0), start_noise)?;
        Ok(Self {
            config,
            start: start.clone(),
            start_noise,
            domain,
            dim,
            x: Vec::new(),
            y: Vec::new(),
            transform,
            kernel: start,
            noise: start_noise,
            gp: Some(gp),
            last_fit: None,
            fit: None,
            fits: 0,
        })
    }

    /// Adds an observation y at x (original units) and refits if due. Errors name a wrong
    /// dimension or a non-finite coordinate or value; a failed refit leaves the model as it was.
    pub fn append(&mut self, x: &[f64], y: f64) -> Result<()> {
        if x.len() != self.dim {
            return Err(Error::dims("learned GP: observed point dimension", self.dim, x.len()));
        }
        bohf_core::error::ensure_finite("learned GP: observed point", x.iter())?;
        bohf_core::error::ensure_finite("learned GP: observed value", [y].iter())?;
        let n = self.y.len() + 1;
        if self.config.refit_due(n, self.last_fit) {
            let mut xs = self.x.clone();
            xs.extend_from_slice(x);
            let mut ys = self.y.clone();
            ys.push(y);
            let xm = DMatrix::from_row_slice(n, self.dim, &xs);
            let yv = DVector::from_vec(ys);
            let fit = fit_hyperparameters(&self.config, &self.start, self.start_noise, &xm, &yv, self.domain.as_ref())?;
            if self.gp.is_some() {
                self.gp = Some(fit.regression(&xm, &yv)?);
            }
            self.kernel = fit.kernel.clone();
            self.noise = fit.noise;
            self.transform = fit.transform.clone();
            self.fit = Some(fit);
            self.last_fit = Some(n);
            self.fits += 1;
        } else if let Some(gp) = &mut self.gp {
            gp.append(&self.transform.input_point(x), self.transform.target(y))?;
        }
        self.x.extend_from_slice(x);
        self.y.push(y);
        Ok(())
    }

    /// m(x) and σ²(x) in original units: O(n d + n²).
    pub fn mean_variance_at(&self, x: &[f64]) -> Result<(f64, f64)> {
        self.check_point(x)?;
        let (m, v) = self.posterior()?.mean_variance_at(&self.transform.input_point(x))?;
        Ok((self.transform.mean_to_original(m), self.transform.variance_to_original(v)))
    }

    /// m(x), σ²(x) and their gradients in x, in original units (module documentation).
    pub fn posterior_with_gradient(&self, x: &[f64]) -> Result<PointPosterior> {
        self.check_point(x)?;
        let p = self.posterior()?.posterior_with_gradient(&self.transform.input_point(x))?;
        let (_, s) = self.transform.target_mean_and_scale();
        let w = self.transform.input_widths();
        Ok(PointPosterior {
            mean: self.transform.mean_to_original(p.mean),
            variance: self.transform.variance_to_original(p.variance),
            mean_gradient: p.mean_gradient.iter().zip(w).map(|(g, w)| s * g / w).collect(),
            variance_gradient: p.variance_gradient.iter().zip(w).map(|(g, w)| s * s * g / w).collect(),
        })
    }

    /// The prior variance k(x, x) in original units (s²·k′(x′, x′)).
    pub fn prior_variance_at(&self, x: &[f64]) -> Result<f64> {
        self.check_point(x)?;
        let xw = self.transform.input_point(x);
        Ok(self.transform.variance_to_original(self.kernel.eval(&xw, &xw)))
    }

    /// The posterior means at the observed points, in original units.
    pub fn means_at_observed(&self) -> Result<DVector<f64>> {
        let gp = self.posterior()?;
        Ok(gp.mean(gp.inputs())?.map(|m| self.transform.mean_to_original(m)))
    }

    /// The observed point `i` (original units).
    pub fn observed_point(&self, i: usize) -> &[f64] {
        &self.x[i * self.dim..(i + 1) * self.dim]
    }

    /// The kernel in use (working units).
    pub fn kernel(&self) -> &Stationary {
        &self.kernel
    }

    /// The noise variance in use (working units).
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// The last fit (`None` before the first).
    pub fn last_fit(&self) -> Option<&HyperFit> {
        self.fit.as_ref()
    }

    /// How many fits have run.
    pub fn fits(&self) -> usize {
        self.fits
    }

    /// The map between original and working units in use.
    pub fn transform(&self) -> &DataTransform {
        &self.transform
    }

    /// The posterior in working units; an error if it is turned off ([`LearnedGp::without_posterior`]).
    pub fn working(&self) -> Result<&GpRegression<Stationary>> {
        self.posterior()
    }

    /// The same model without its posterior: observations, refit schedule and fits unchanged,
    /// neither the rebuild after a fit nor the appends between fits done; posterior queries
    /// (`mean_variance_at`, `posterior_with_gradient`, `means_at_observed`, `working`) then fail
    /// (module documentation).
    pub fn without_posterior(mut self) -> Self {
        self.gp = None;
        self
    }

    /// Whether the model keeps its posterior (see [`LearnedGp::without_posterior`]).
    pub fn keeps_posterior(&self) -> bool {
        self.gp.is_some()
    }

    /// A copy that keeps its posterior: if this one does not, the posterior of the current
    /// hyperparameters and transform on all observations, built in one batch
    /// ([`GpRegression::fit`] in working units). Errors as [`GpRegression::fit`].
    pub fn with_posterior(&self) -> Result<Self> {
        let mut out = self.clone();
        if out.gp.is_none() {
            let n = self.y.len();
            let xm = DMatrix::from_row_slice(n, self.dim, &self.x);
            let yv = DVector::from_column_slice(&self.y);
            out.gp = Some(GpRegression::fit(
                self.kernel.clone(),
                &self.transform.inputs(&xm)?,
                &self.transform.targets(&yv),
                self.noise,
            )?);
        }
        Ok(out)
    }

    fn posterior(&self) -> Result<&GpRegression<Stationary>> {
        self.gp.as_ref().ok_or_else(|| {
            Error::invalid("learned GP", "its posterior was turned off (without_posterior); use with_posterior")
        })
    }

    /// The number of observations.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// True before the first observation.
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    fn check_point(&self, x: &[f64]) -> Result<()> {
        if x.len() != self.dim {
            return Err(Error::dims("learned GP query point: dimension", self.dim, x.len()));
        }
        bohf_core::error::ensure_finite("learned GP query point", x.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regression::hyper::HyperFitConfig;
    use bohf_kernels::KernelKind;

    fn data(n: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
        // Points in [−2, 3] × [10, 14], a smooth function with a scale far from 1.
        let xs: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let t = i as f64 / n as f64;
                vec![-2.0 + 5.0 * ((7.3 * t).fract()), 10.0 + 4.0 * ((3.1 * t + 0.2).fract())]
            })
            .collect();
        let ys = xs.iter().map(|x| 40.0 + 8.0 * (x[0]).sin() + 3.0 * (x[1] - 12.0).powi(2)).collect();
        (xs, ys)
    }

    fn model(refit_every: usize) -> LearnedGp {
        let config = HyperFitConfig { refit_every, ..HyperFitConfig::default() }.check().unwrap();
        let start = Stationary::new(KernelKind::Matern52, 0.2).unwrap();
        let domain = BoxDomain::new(vec![-2.0, 10.0], vec![3.0, 14.0]).unwrap();
        LearnedGp::new(config, start, 0.01, Some(domain), 2).unwrap()
    }

    /// After a refit the model equals the one built by hand from the fit: fit_hyperparameters on
    /// all the data, the posterior in working units, mapped back.
    #[test]
    fn queries_equal_the_hand_built_posterior_of_the_same_fit() {
        let (xs, ys) = data(12);
        let mut gp = model(1);
        for (x, y) in xs.iter().zip(&ys) {
            gp.append(x, *y).unwrap();
        }
        let config = HyperFitConfig::default().check().unwrap();
        let xm = DMatrix::from_fn(12, 2, |i, j| xs[i][j]);
        let yv = DVector::from_vec(ys.clone());
        let domain = BoxDomain::new(vec![-2.0, 10.0], vec![3.0, 14.0]).unwrap();
        let start = Stationary::new(KernelKind::Matern52, 0.2).unwrap();
        let fit = fit_hyperparameters(&config, &start, 0.01, &xm, &yv, Some(&domain)).unwrap();
        let reg = fit.regression(&xm, &yv).unwrap();
        for q in [[0.3, 11.0], [-1.9, 13.9], [2.5, 12.2]] {
            let xw = [(q[0] + 2.0) / 5.0, (q[1] - 10.0) / 4.0];
            let (m, v) = reg.mean_variance_at(&xw).unwrap();
            let (mean, sd) = (yv.mean(), (yv.iter().map(|y| (y - yv.mean()).powi(2)).sum::<f64>() / 11.0).sqrt());
            let (gm, gv) = gp.mean_variance_at(&q).unwrap();
            approx::assert_relative_eq!(gm, m * sd + mean, max_relative = 1e-10);
            approx::assert_relative_eq!(gv, v * sd * sd, max_relative = 1e-10);
        }
        assert_eq!(gp.fits(), 11, "one fit per observation from the second on");
    }

    /// The gradients in original units match central finite differences of the values.
    #[test]
    fn gradients_match_finite_differences_in_original_units() {
        let (xs, ys) = data(9);
        let mut gp = model(4);
        for (x, y) in xs.iter().zip(&ys) {
            gp.append(x, *y).unwrap();
        }
        let q = [0.7, 12.9];
        let p = gp.posterior_with_gradient(&q).unwrap();
        for j in 0..2 {
            let h = 1e-5;
            let (mut a, mut b) = (q, q);
            a[j] += h;
            b[j] -= h;
            let (ma, va) = gp.mean_variance_at(&a).unwrap();
            let (mb, vb) = gp.mean_variance_at(&b).unwrap();
            approx::assert_relative_eq!(p.mean_gradient[j], (ma - mb) / (2.0 * h), max_relative = 1e-5, epsilon = 1e-6);
            approx::assert_relative_eq!(
                p.variance_gradient[j],
                (va - vb) / (2.0 * h),
                max_relative = 1e-5,
                epsilon = 1e-6
            );
        }
    }

    /// The schedule: fits at 2 observations and then every `refit_every` new ones; between fits
    /// the appended posterior equals a fresh posterior with the same hyperparameters.
    #[test]
    fn refits_follow_the_schedule_and_appends_between_them_are_exact() {
        let (xs, ys) = data(9);
        let mut gp = model(3);
        let mut fitted_at = Vec::new();
        for (k, (x, y)) in xs.iter().zip(&ys).enumerate() {
            let before = gp.fits();
            gp.append(x, *y).unwrap();
            if gp.fits() > before {
                fitted_at.push(k + 1);
            }
        }
        assert_eq!(fitted_at, [2, 5, 8]);
        // 9 observations, last fit at 8: the ninth was appended in the fit's working units.
        let t = gp.transform().clone();
        let xm = DMatrix::from_fn(9, 2, |i, j| xs[i][j]);
        let fresh = GpRegression::fit(
            gp.kernel().clone(),
            &t.inputs(&xm).unwrap(),
            &t.targets(&DVector::from_vec(ys)),
            gp.noise(),
        )
        .unwrap();
        let q = [1.0, 11.5];
        let (m, v) = fresh.mean_variance_at(&t.input_point(&q)).unwrap();
        let (gm, gv) = gp.mean_variance_at(&q).unwrap();
        approx::assert_relative_eq!(gm, t.mean_to_original(m), max_relative = 1e-9);
        approx::assert_relative_eq!(gv, t.variance_to_original(v), max_relative = 1e-9);
    }

    /// Without its posterior the model fits at the same observations to the same hyperparameters
    /// (bit for bit) as the full model; its posterior queries fail, naming the switch, and
    /// `with_posterior` (one batch) equals the full model's incrementally appended posterior.
    #[test]
    fn without_posterior_keeps_the_fits_and_with_posterior_equals_the_full_model() {
        let (xs, ys) = data(11);
        let (mut full, mut bare) = (model(3), model(3).without_posterior());
        assert!(full.keeps_posterior() && !bare.keeps_posterior());
        for (x, y) in xs.iter().zip(&ys) {
            full.append(x, *y).unwrap();
            bare.append(x, *y).unwrap();
            assert_eq!(bare.fits(), full.fits());
            assert_eq!(bare.kernel().lengthscales(), full.kernel().lengthscales());
            assert_eq!(bare.kernel().variance().to_bits(), full.kernel().variance().to_bits());
            assert_eq!(bare.noise().to_bits(), full.noise().to_bits());
            assert_eq!(bare.transform().target_mean_and_scale(), full.transform().target_mean_and_scale());
        }
        assert_eq!(full.fits(), 4, "fits at 2, 5, 8, 11");
        let q = [1.0, 11.5];
        let err = bare.mean_variance_at(&q).unwrap_err().to_string();
        assert!(err.contains("without_posterior"), "{err}");
        assert!(bare.working().is_err() && bare.means_at_observed().is_err());
        let rebuilt = bare.with_posterior().unwrap();
        // 11 observations, last fit at 11: append the twelfth too, so the full model's posterior
        // has an incremental append the batch does not.
        let (x12, y12) = ([0.4, 13.1], 44.0);
        full.append(&x12, y12).unwrap();
        bare.append(&x12, y12).unwrap();
        let rebuilt12 = bare.with_posterior().unwrap();
        for (r, n) in [(&rebuilt, 11), (&rebuilt12, 12)] {
            assert_eq!(r.len(), n);
        }
        let (gm, gv) = full.mean_variance_at(&q).unwrap();
        let (rm, rv) = rebuilt12.mean_variance_at(&q).unwrap();
        approx::assert_relative_eq!(gm, rm, max_relative = 1e-9);
        approx::assert_relative_eq!(gv, rv, max_relative = 1e-9);
        assert!((gm - rebuilt.mean_variance_at(&q).unwrap().0).abs() > 1e-12, "the twelfth point moved the mean");
    }

    /// Degenerate data never gives NaN: one point, constant values, duplicated inputs.
    #[test]
    fn degenerate_data_gives_finite_posteriors() {
        let mut gp = model(1);
        gp.append(&[0.0, 12.0], 5.0).unwrap();
        assert!(gp.mean_variance_at(&[1.0, 11.0]).unwrap().0.is_finite());
        for _ in 0..4 {
            gp.append(&[0.0, 12.0], 5.0).unwrap();
        }
        let (m, v) = gp.mean_variance_at(&[1.0, 11.0]).unwrap();
        assert!(m.is_finite() && v.is_finite() && v >= 0.0, "{m} {v}");
        assert!(gp.kernel().lengthscales().iter().all(|l| l.is_finite()));
        assert!(gp.append(&[f64::NAN, 12.0], 1.0).is_err());
        assert!(gp.append(&[0.0], 1.0).unwrap_err().to_string().contains("dimension"));
    }
}
