//! End to end across the foundation layers: a simulated person answers duels about MR-LPF's RKHS
//! function, the preference model is fitted, and the dueling posterior and information gain are
//! checked against the theory they must satisfy.

use bohf::core::rng::{self, BohfRng};
use bohf::core::{Answer, Duel, FiniteDomain, Link, Query};
use bohf::gp::{DuelingPosterior, Duels, KernelLogisticConfig};
use bohf::infogain::{PairKernel, PosteriorVariances, greedy_pairs};
use bohf::kernels::{Kernel, KernelKind, Stationary};
use bohf::problems::{DuelModel, DuelRespondent, GridFunction, Respondent, RkhsFunction};
use nalgebra::{DMatrix, DVector};
use rand::RngExt;

const N: usize = 100;
const T: usize = 1500;
const RHO: f64 = 0.05;

struct Run {
    truth: GridFunction,
    base: DMatrix<f64>,
    duels: Duels,
    utility: DVector<f64>,
}

/// Uniformly random duels on the 100-point grid, answered by a BTL person with the utility scaled ×5
/// (MR-LPF's experiments), then the kernel logistic MLE with the papers' defaults.
fn run(seed: u64) -> Run {
    let grid = FiniteDomain::linspace(0.0, 1.0, N).unwrap();
    let truth = RkhsFunction::mr_lpf(KernelKind::Matern52).unwrap().on_grid(&grid).unwrap();
    let mut person = DuelRespondent::new(truth.clone(), DuelModel::stochastic(Link::Logistic, 5.0).unwrap()).unwrap();
    let mut r: BohfRng = rng::stream(seed, &[0]);
    let mut duels = Duels::new(N);
    for _ in 0..T {
        let (i, j) = (r.random_range(0..N), r.random_range(0..N));
        let q = Query::Duel(grid.point(i).unwrap(), grid.point(j).unwrap());
        let Answer::Duel { first_wins } = person.answer(&q, &mut r).unwrap() else { panic!("not a duel answer") };
        duels.push(Duel::new(i, j, first_wins)).unwrap();
    }
    let base = Stationary::matern52(0.1).unwrap().gram(grid.points()).unwrap();
    let fit = KernelLogisticConfig::default().check().unwrap().fit(&base, &duels).unwrap();
    assert!(fit.gradient_norm() <= 1e-9, "Newton stopped at gradient {}", fit.gradient_norm());
    Run { truth, base, duels, utility: fit.utility().clone() }
}

fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

#[test]
fn preference_fit_recovers_the_utility_shape_and_its_maximiser() {
    let r = run(1);
    let truth = r.truth.values();
    // 1500 duels at scale 5 identify the utility up to an affine map; the ‖θ‖² regulariser shrinks
    // it, which leaves the correlation untouched.
    let rho = correlation(r.utility.as_slice(), truth);
    assert!(rho > 0.95, "correlation of fitted and true utility {rho:.3}");
    let best_fit = r.utility.argmax().0;
    let range = r.truth.max() - r.truth.min();
    let loss = r.truth.max() - truth[best_fit];
    assert!(loss < 0.05 * range, "the fitted maximiser loses {loss:.3} of a range of {range:.3}");
}

#[test]
fn posterior_shrinks_and_information_gain_respects_the_greedy_bracket() {
    let r = run(2);
    let prior = DuelingPosterior::prior(&r.base, RHO).unwrap();
    let post = DuelingPosterior::new(&r.base, &r.duels, RHO).unwrap();
    let (p, q) = (prior.std_dev_matrix(), post.std_dev_matrix());
    // Conditioning never increases a variance; with 1500 duels the average σ falls a lot.
    assert!(q.iter().zip(p.iter()).all(|(a, b)| *a <= *b + 1e-9));
    assert!(q.mean() < 0.5 * p.mean(), "mean σ {:.4} vs prior {:.4}", q.mean(), p.mean());
    // Γ(T) is a maximum over all T-pair sequences, so the realised gain of these random duels is at
    // most its upper bracket g_T/(1 − 1/e) from greedy, whatever the duels were.
    let realised =
        PosteriorVariances::for_pairs(&r.base, PairKernel::Dueling, &r.duels.pairs(), RHO).unwrap().information_gain();
    let greedy = greedy_pairs(&r.base, PairKernel::Dueling, RHO, T).unwrap();
    let bracket = greedy.bracket();
    assert!(realised <= bracket.upper, "realised {realised:.3} above Γ's upper bracket {:.3}", bracket.upper);
    // Nemhauser's guarantee the other way: greedy ≥ (1 − 1/e)·Γ(T) ≥ (1 − 1/e)·realised.
    let ratio = 1.0 - (-1.0f64).exp();
    assert!(bracket.lower >= ratio * realised, "greedy {:.3} below (1−1/e)·{realised:.3}", bracket.lower);
}

#[test]
fn same_seed_same_results_different_seed_different_results() {
    let (a, b, c) = (run(5), run(5), run(6));
    assert_eq!(a.utility, b.utility);
    assert_eq!(a.duels.labels(), b.duels.labels());
    assert_ne!(a.utility, c.utility);
}
