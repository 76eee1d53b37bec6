//! COMP-GP-UCB's SVM-tuning task (notes 002 §5.1): an RBF-kernel soft-margin SVM on the MAGIC
//! gamma telescope data, tuned over its bandwidth and C.
//!
//! **Why our own SVM.** linfa-svm is not among the workspace's dependencies and pulls in ndarray,
//! sprs and the linfa stack; the task needs only a binary C-SVM with an RBF kernel on 2,000 points,
//! which [`RbfSvm`] solves with SMO (the maximal-violating-pair working set of Keerthi et al. 2001,
//! as in LIBSVM's `WSS 1`, with LIBSVM's two-variable update and bias), on a precomputed kernel
//! matrix. It is tested on separable and non-separable sets and on MAGIC.
//!
//! **The task** ([`SvmTask`], [`SvmTask::magic`]): the records are shuffled with a seeded RNG; the
//! first 2,000 are the training set, the next 500 the validation set; the attributes are
//! standardised with the training set's mean and standard deviation. A point is
//! x = (log₁₀ h, log₁₀ C) ∈ [−3, 1] × [−1, 5] (bandwidth h ∈ (10⁻³, 10¹), C ∈ (10⁻¹, 10⁵), the
//! paper's ranges on a log scale), with the kernel k(a, b) = exp(−‖a − b‖² / (2h²)) on the
//! standardised attributes. f(x) is the validation accuracy of the SVM trained on the 2,000
//! ([`Fidelity::High`]); f_c(x) that of the SVM trained on a fixed subset, the first 500 of them
//! ([`Fidelity::Low`]). Both are maximised.
//!
//! **Cost.** One evaluation trains an SVM (up to [`SmoOptions::max_iterations`] SMO steps of O(n)
//! each, and the n × n kernel matrix), so values are **cached per point** (by the bits of x) in the
//! task: evaluating a candidate grid once (e.g. tabulating a [`crate::GridFunction`]) and reusing
//! the task costs nothing more. An SVM that hits the iteration cap is used as it is (its accuracy is
//! still a valid, if suboptimal, value); [`RbfSvm::converged`] says so.

use crate::datasets::MagicData;
use crate::functions::{Fidelity, KnownOptimum, Sense, TestFunction};
use bohf_core::{BoxDomain, Error, Result};
use rand::seq::SliceRandom;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// SMO's stopping rule and iteration cap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmoOptions {
    /// Stop when the maximal KKT violation m(α) − M(α) is below this (LIBSVM's default 10⁻³).
    pub tolerance: f64,
    /// The most SMO steps (each O(n)).
    pub max_iterations: usize,
}

impl Default for SmoOptions {
    fn default() -> Self {
        Self { tolerance: 1e-3, max_iterations: 200_000 }
    }
}

/// A trained binary RBF-kernel C-SVM: decision(x) = Σᵢ αᵢ yᵢ k(xᵢ, x) − ρ, predicting the positive
/// class when the decision is > 0.
#[derive(Debug, Clone)]
pub struct RbfSvm {
    support: Vec<Vec<f64>>,
    coef: Vec<f64>,
    rho: f64,
    bandwidth: f64,
    converged: bool,
    iterations: usize,
}

fn rbf(a: &[f64], b: &[f64], inv_two_h2: f64) -> f64 {
    let d2: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    (-d2 * inv_two_h2).exp()
}

impl RbfSvm {
    /// Trains on rows `x` with classes `y` (`true` = positive), bandwidth h > 0 and C > 0. Errors
    /// name `x` (empty, ragged, non-finite), `y` (length, a single class), `bandwidth` or `c`.
    // Long: one SMO loop (pair choice, clipped step, error-cache update) as Platt's pseudocode writes it.
    pub fn train(x: &[Vec<f64>], y: &[bool], bandwidth: f64, c: f64, options: SmoOptions) -> Result<Self> {
        bohf_core::error::ensure_positive("bandwidth", bandwidth)?;
        bohf_core::error::ensure_positive("c", c)?;
        let n = x.len();
        if n == 0 {
            return Err(Error::Empty("SVM training rows `x`".into()));
        }
        if y.len() != n {
            return Err(Error::dims("SVM classes `y` vs rows `x`", n, y.len()));
        }
        let d = x[0].len();
        if x.iter().any(|r| r.len() != d) {
            return Err(Error::invalid("x", "the training rows have different lengths"));
        }
        bohf_core::error::ensure_finite("x", x.iter().flatten())?;
        if y.iter().all(|&v| v) || y.iter().all(|&v| !v) {
            return Err(Error::invalid("y", "the training set has a single class"));
        }
        let s: Vec<f64> = y.iter().map(|&v| if v { 1.0 } else { -1.0 }).collect();
        let g2 = 1.0 / (2.0 * bandwidth * bandwidth);
        // Q_ij = y_i y_j k(x_i, x_j), row-major.
        let mut q = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v = s[i] * s[j] * rbf(&x[i], &x[j], g2);
                q[i * n + j] = v;
                q[j * n + i] = v;
            }
        }
        let mut alpha = vec![0.0; n];
        let mut grad = vec![-1.0; n]; // G = Qα − e
        let up = |a: f64, yi: f64| (yi > 0.0 && a < c) || (yi < 0.0 && a > 0.0);
        let low = |a: f64, yi: f64| (yi > 0.0 && a > 0.0) || (yi < 0.0 && a < c);
        let (mut converged, mut iterations) = (false, 0);
        while iterations < options.max_iterations {
            // i maximises −y G over I_up, j minimises it over I_low.
            let (mut i, mut gmax) = (usize::MAX, f64::NEG_INFINITY);
            let (mut j, mut gmin) = (usize::MAX, f64::INFINITY);
            for t in 0..n {
                let v = -s[t] * grad[t];
                if up(alpha[t], s[t]) && v > gmax {
                    (i, gmax) = (t, v);
                }
                if low(alpha[t], s[t]) && v < gmin {
                    (j, gmin) = (t, v);
                }
            }
            if i == usize::MAX || j == usize::MAX || gmax - gmin < options.tolerance {
                converged = true;
                break;
            }
            iterations += 1;
            let (ai, aj) = (alpha[i], alpha[j]);
            let (qii, qjj, qij) = (q[i * n + i], q[j * n + j], q[i * n + j]);
            if s[i] != s[j] {
                let quad = (qii + qjj + 2.0 * qij).max(1e-12);
                let delta = (-grad[i] - grad[j]) / quad;
                let diff = alpha[i] - alpha[j];
                alpha[i] += delta;
                alpha[j] += delta;
                if diff > 0.0 {
                    if alpha[j] < 0.0 {
                        alpha[j] = 0.0;
                        alpha[i] = diff;
                    }
                } else if alpha[i] < 0.0 {
                    alpha[i] = 0.0;
                    alpha[j] = -diff;
                }
                if diff > 0.0 {
                    if alpha[i] > c {
                        alpha[i] = c;
                        alpha[j] = c - diff;
                    }
                } else if alpha[j] > c {
                    alpha[j] = c;
                    alpha[i] = c + diff;
                }
            } else {
                let quad = (qii + qjj - 2.0 * qij).max(1e-12);
                let delta = (grad[i] - grad[j]) / quad;
                let sum = alpha[i] + alpha[j];
                alpha[i] -= delta;
                alpha[j] += delta;
                if sum > c {
                    if alpha[i] > c {
                        alpha[i] = c;
                        alpha[j] = sum - c;
                    }
                } else if alpha[j] < 0.0 {
                    alpha[j] = 0.0;
                    alpha[i] = sum;
                }
                if sum > c {
                    if alpha[j] > c {
                        alpha[j] = c;
                        alpha[i] = sum - c;
                    }
                } else if alpha[i] < 0.0 {
                    alpha[i] = 0.0;
                    alpha[j] = sum;
                }
            }
            let (di, dj) = (alpha[i] - ai, alpha[j] - aj);
            let (qi, qj) = (&q[i * n..(i + 1) * n], &q[j * n..(j + 1) * n]);
            for t in 0..n {
                grad[t] += qi[t] * di + qj[t] * dj;
            }
        }
        // ρ: the mean of y G over the free α (LIBSVM), else the middle of the feasible interval.
        let (mut sum, mut free) = (0.0, 0usize);
        let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
        for t in 0..n {
            let yg = s[t] * grad[t];
            if alpha[t] > 0.0 && alpha[t] < c {
                sum += yg;
                free += 1;
            } else if (alpha[t] >= c && s[t] < 0.0) || (alpha[t] <= 0.0 && s[t] > 0.0) {
                ub = ub.min(yg);
            } else {
                lb = lb.max(yg);
            }
        }
        let rho = if free > 0 { sum / free as f64 } else { (ub + lb) / 2.0 };
        let (mut support, mut coef) = (Vec::new(), Vec::new());
        for t in 0..n {
            if alpha[t] > 0.0 {
                support.push(x[t].clone());
                coef.push(alpha[t] * s[t]);
            }
        }
        Ok(Self { support, coef, rho, bandwidth, converged, iterations })
    }

    /// Σᵢ αᵢ yᵢ k(xᵢ, x) − ρ.
    pub fn decision(&self, x: &[f64]) -> f64 {
        let g2 = 1.0 / (2.0 * self.bandwidth * self.bandwidth);
        self.support.iter().zip(&self.coef).map(|(sv, a)| a * rbf(sv, x, g2)).sum::<f64>() - self.rho
    }

    /// The predicted class (`true` = positive).
    pub fn predict(&self, x: &[f64]) -> bool {
        self.decision(x) > 0.0
    }

    /// The fraction of `x` whose prediction equals `y` (0 for an empty set).
    pub fn accuracy(&self, x: &[Vec<f64>], y: &[bool]) -> f64 {
        if x.is_empty() {
            return 0.0;
        }
        x.iter().zip(y).filter(|(r, c)| self.predict(r) == **c).count() as f64 / x.len() as f64
    }

    /// The number of support vectors.
    pub fn support_vectors(&self) -> usize {
        self.support.len()
    }

    /// Whether SMO met its tolerance before the iteration cap.
    pub fn converged(&self) -> bool {
        self.converged
    }

    /// The SMO steps taken.
    pub fn iterations(&self) -> usize {
        self.iterations
    }
}

/// The sizes of the task (the paper's: 2,000 training, 500 validation, 500 for the comparison SVM).
pub const MAGIC_TRAIN: usize = 2000;
/// Validation rows.
pub const MAGIC_VALIDATION: usize = 500;
/// The fixed training subset of the comparison (low-fidelity) SVM.
pub const MAGIC_COMPARISON_TRAIN: usize = 500;

/// The SVM-tuning task on a data set: f (or f_c) at x = (log₁₀ h, log₁₀ C) is a validation accuracy
/// (module documentation). Clones share the cache.
#[derive(Debug, Clone)]
pub struct SvmTask {
    train_x: Arc<Vec<Vec<f64>>>,
    train_y: Arc<Vec<bool>>,
    valid_x: Arc<Vec<Vec<f64>>>,
    valid_y: Arc<Vec<bool>>,
    /// How many of the training rows the SVM uses (all for f, the first 500 for f_c).
    used: usize,
    fidelity: Fidelity,
    options: SmoOptions,
    cache: Arc<Mutex<HashMap<[u64; 2], f64>>>,
}

impl SvmTask {
    /// The log₁₀-bandwidth range.
    pub const LOG_BANDWIDTH: [f64; 2] = [-3.0, 1.0];
    /// The log₁₀-C range.
    pub const LOG_C: [f64; 2] = [-1.0, 5.0];

    /// The box of x = (log₁₀ h, log₁₀ C): [−3, 1] × [−1, 5].
    pub fn search_box() -> BoxDomain {
        BoxDomain::new(vec![Self::LOG_BANDWIDTH[0], Self::LOG_C[0]], vec![Self::LOG_BANDWIDTH[1], Self::LOG_C[1]])
            .expect("valid constant bounds")
    }

    /// The paper's task on MAGIC at `fidelity`: a seeded split of `data` into 2,000 training and 500
    /// validation rows, attributes standardised by the training rows. An error if `data` has fewer
    /// than 2,500 records.
    pub fn magic(data: &MagicData, seed: u64, fidelity: Fidelity) -> Result<Self> {
        Self::from_split(data, seed, MAGIC_TRAIN, MAGIC_VALIDATION, MAGIC_COMPARISON_TRAIN, fidelity)
    }

    /// A task with `train` training rows, `validation` validation rows, and `comparison_train` rows
    /// for the low fidelity (≤ `train`).
    pub fn from_split(
        data: &MagicData,
        seed: u64,
        train: usize,
        validation: usize,
        comparison_train: usize,
        fidelity: Fidelity,
    ) -> Result<Self> {
        if train + validation > data.len() || comparison_train > train || comparison_train == 0 {
            return Err(Error::invalid(
                "split",
                format!(
                    "need 0 < comparison_train ({comparison_train}) ≤ train ({train}) and train + validation ({}) ≤ \
                     the {} records",
                    train + validation,
                    data.len()
                ),
            ));
        }
        let mut order: Vec<usize> = (0..data.len()).collect();
        order.shuffle(&mut bohf_core::rng::seeded(seed));
        let (tr, va) = (&order[..train], &order[train..train + validation]);
        let d = data.features[0].len();
        let mean: Vec<f64> =
            (0..d).map(|j| tr.iter().map(|&i| data.features[i][j]).sum::<f64>() / train as f64).collect();
        let sd: Vec<f64> = (0..d)
            .map(|j| {
                let v = tr.iter().map(|&i| (data.features[i][j] - mean[j]).powi(2)).sum::<f64>() / train as f64;
                if v > 0.0 { v.sqrt() } else { 1.0 }
            })
            .collect();
        let row = |i: usize| (0..d).map(|j| (data.features[i][j] - mean[j]) / sd[j]).collect::<Vec<f64>>();
        Ok(Self {
            train_x: Arc::new(tr.iter().map(|&i| row(i)).collect()),
            train_y: Arc::new(tr.iter().map(|&i| data.gamma[i]).collect()),
            valid_x: Arc::new(va.iter().map(|&i| row(i)).collect()),
            valid_y: Arc::new(va.iter().map(|&i| data.gamma[i]).collect()),
            used: if fidelity == Fidelity::High { train } else { comparison_train },
            fidelity,
            options: SmoOptions::default(),
            cache: Arc::new(Mutex::new(HashMap::new())),
        })
    }

    /// The validation accuracy of the SVM with bandwidth 10^`log_h` and C = 10^`log_c` (cached).
    pub fn accuracy(&self, log_h: f64, log_c: f64) -> Result<f64> {
        let key = [log_h.to_bits(), log_c.to_bits()];
        if let Some(v) = self.cache.lock().ok().and_then(|c| c.get(&key).copied()) {
            return Ok(v);
        }
        let (h, c) = (10f64.powf(log_h), 10f64.powf(log_c));
        let svm = RbfSvm::train(&self.train_x[..self.used], &self.train_y[..self.used], h, c, self.options)?;
        let acc = svm.accuracy(&self.valid_x, &self.valid_y);
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(key, acc);
        }
        Ok(acc)
    }

    /// The number of cached evaluations.
    pub fn cached(&self) -> usize {
        self.cache.lock().map_or(0, |c| c.len())
    }
}

impl TestFunction for SvmTask {
    fn name(&self) -> &str {
        match self.fidelity {
            Fidelity::High => "svm_magic",
            Fidelity::Low => "svm_magic_low",
        }
    }
    fn dim(&self) -> usize {
        2
    }
    fn domain(&self) -> BoxDomain {
        Self::search_box()
    }
    fn sense(&self) -> Sense {
        Sense::Maximise
    }
    /// The accuracy; NaN if training fails (it cannot for valid data and a point of the domain:
    /// h, C > 0 always), which [`TestFunction::value`] reports as an error.
    fn published(&self, x: &[f64]) -> f64 {
        self.accuracy(x[0], x[1]).unwrap_or(f64::NAN)
    }
    fn published_optimum(&self) -> Option<KnownOptimum> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datasets::load_magic;

    #[test]
    fn separable_sets_are_learned_exactly() {
        // Two well-separated clusters in 2-D: every point is classified right, and the decision
        // has the sign of the class at points far on each side.
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..10 {
            let t = i as f64 * 0.1;
            x.push(vec![t, 0.0]);
            y.push(true);
            x.push(vec![t, 3.0]);
            y.push(false);
        }
        for c in [0.1, 1.0, 1e4] {
            let svm = RbfSvm::train(&x, &y, 1.0, c, SmoOptions::default()).unwrap();
            assert!(svm.converged());
            assert_eq!(svm.accuracy(&x, &y), 1.0, "C = {c}");
            assert!(svm.predict(&[0.5, -1.0]) && !svm.predict(&[0.5, 4.0]));
        }
        // XOR is not linearly separable but an RBF SVM with a small bandwidth and large C fits it.
        let xor = vec![vec![0.0, 0.0], vec![1.0, 1.0], vec![0.0, 1.0], vec![1.0, 0.0]];
        let yx = vec![true, true, false, false];
        let svm = RbfSvm::train(&xor, &yx, 0.5, 100.0, SmoOptions::default()).unwrap();
        assert_eq!(svm.accuracy(&xor, &yx), 1.0);
        // The dual optimum of a symmetric 2-point problem: α₁ = α₂, ρ = 0 by symmetry, so the
        // decision at the midpoint is 0 and the points sit at ±1 (margin) when C is large.
        let two = vec![vec![0.0], vec![1.0]];
        let svm = RbfSvm::train(&two, &[true, false], 1.0, 1e3, SmoOptions::default()).unwrap();
        assert!(svm.decision(&[0.5]).abs() < 1e-6);
        assert!((svm.decision(&[0.0]) - 1.0).abs() < 2e-3, "{}", svm.decision(&[0.0]));
    }

    #[test]
    fn bad_inputs_are_named() {
        let x = vec![vec![0.0], vec![1.0]];
        let field = |e: Error| e.to_string();
        assert!(
            field(RbfSvm::train(&x, &[true, false], 0.0, 1.0, SmoOptions::default()).unwrap_err())
                .contains("bandwidth")
        );
        assert!(field(RbfSvm::train(&x, &[true, false], 1.0, -1.0, SmoOptions::default()).unwrap_err()).contains('c'));
        assert!(
            field(RbfSvm::train(&x, &[true, true], 1.0, 1.0, SmoOptions::default()).unwrap_err())
                .contains("single class")
        );
        assert!(RbfSvm::train(&x, &[true], 1.0, 1.0, SmoOptions::default()).is_err());
        assert!(RbfSvm::train(&[], &[], 1.0, 1.0, SmoOptions::default()).is_err());
    }

    #[test]
    fn magic_accuracy_is_plausible_and_cached() {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/magic04/magic04.data");
        let data = load_magic(&p).unwrap();
        // The low fidelity (500 training rows) keeps the debug-build test short. With sensible
        // hyperparameters (h = 10^0.5 ≈ 3.2 on standardised attributes, C = 10) an RBF SVM on MAGIC
        // is ≈ 0.8–0.87 accurate (the majority class alone is 12,332/19,020 ≈ 0.65).
        let fc = SvmTask::magic(&data, 1, Fidelity::Low).unwrap();
        let a = fc.value(&[0.5, 1.0]).unwrap();
        assert!((0.78..=0.9).contains(&a), "accuracy {a}");
        assert_eq!(fc.cached(), 1);
        assert_eq!(fc.value(&[0.5, 1.0]).unwrap(), a);
        assert_eq!(fc.cached(), 1);
        // A tiny bandwidth memorises the training set: validation accuracy falls to about the
        // majority rate.
        let tiny = fc.value(&[-3.0, 1.0]).unwrap();
        assert!(tiny < a - 0.05 && tiny < 0.75, "{tiny} vs {a}");
        // Same seed, same split: a fresh task gives the same value; another seed another split.
        assert_eq!(SvmTask::magic(&data, 1, Fidelity::Low).unwrap().accuracy(0.5, 1.0).unwrap(), a);
        assert!(SvmTask::from_split(&data, 1, 19_000, 500, 500, Fidelity::High).is_err());
        // f (2,000 training rows) at the same point, same plausible range.
        let f = SvmTask::magic(&data, 1, Fidelity::High).unwrap();
        let af = f.value(&[0.5, 1.0]).unwrap();
        assert!((0.8..=0.9).contains(&af), "accuracy {af}");
    }
}
