//! Fixtures shared by the algorithm crates' tests (compiled in every build but hidden from the docs: a
//! `test-support` feature made the tests' build of every crate above differ from the main job's,
//! so `cargo test --release` rebuilt them all): a smooth utility on a 1-D grid, duel indices of a query, and Bradley–Terry–Luce answers.
//! Helpers here may panic: they serve tests, where a panic is the failure report.

use crate::{Answer, FiniteDomain, Link, Query, SearchContext};
use rand::{Rng, RngExt};

/// A smooth utility on a grid of [0, 1], u(x) = 2 sin(2πx) + 1.5 exp(−(x − 0.3)²/0.02), with one
/// clear maximum near x = 0.27 and range ≈ 5 (|h| ≤ 5, like the MR-LPF experiments' ×5 RKHS
/// functions).
pub fn smooth_utility(domain: &FiniteDomain) -> Vec<f64> {
    (0..domain.len())
        .map(|i| {
            let x = domain.coords(i).expect("index within the domain")[0];
            2.0 * (2.0 * std::f64::consts::PI * x).sin() + 1.5 * (-(x - 0.3).powi(2) / 0.02).exp()
        })
        .collect()
}

/// n evenly spaced candidates on [0, 1] with horizon T.
pub fn grid_context(n: usize, horizon: usize) -> SearchContext {
    SearchContext::new(FiniteDomain::linspace(0.0, 1.0, n).expect("n >= 1"), horizon).expect("horizon >= 1")
}

/// The candidate indices (i, j) of a duel query; panics on anything else.
pub fn duel_indices(q: &Query) -> (usize, usize) {
    match q {
        Query::Duel(a, b) => (a.index.expect("a candidate"), b.index.expect("a candidate")),
        other => panic!("not a duel: {other:?}"),
    }
}

/// A BTL answer to the duel (i, j) under utility f: y ~ Bernoulli(μ(f(i) − f(j))), logistic μ, one
/// uniform draw from `rng`.
pub fn btl_answer(f: &[f64], (i, j): (usize, usize), rng: &mut impl Rng) -> Answer {
    Answer::Duel { first_wins: rng.random::<f64>() < Link::Logistic.mu(f[i] - f[j]) }
}

/// The per-step regret of the duel (i, j) under utility f with the logistic link (MR-LPF §1.5):
/// r = (μ(f* − f(i)) + μ(f* − f(j)) − 1)/2, f* = max f; 0 for the duel (x*, x*).
pub fn duel_regret(f: &[f64], (i, j): (usize, usize)) -> f64 {
    let best = f.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (Link::Logistic.mu(best - f[i]) + Link::Logistic.mu(best - f[j]) - 1.0) / 2.0
}
