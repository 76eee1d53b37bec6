//! The dense interior-point path against clarabel on the same programs (issue 30): one pointwise
//! bound (duels and labels, with and without the latent box) and the MLE at n = 100, 300 and 500
//! observations. Each benchmark prints which solver produced its result (a dense run that cannot
//! certify falls back to clarabel, and its time then includes both).
//!
//! `cargo bench -p bohf-confidence --bench dense`.

use bohf_confidence::{ConfidenceConfig, ConfidenceProblem, ConfidenceSet, Observation, SolverChoice};
use bohf_core::Duel;
use bohf_core::rand::RngExt;
use nalgebra::{DMatrix, DVector};

/// `count` observations on a 2-D grid of 400 points (SE kernel, ℓ = 0.2), utility
/// 2 sin(3x₀) cos(2x₁): duels between random pairs, or unary labels.
fn instance(count: usize, duels: bool, latent_box: bool, solver: SolverChoice) -> (DMatrix<f64>, ConfidenceProblem) {
    let side = 20;
    let x: Vec<(f64, f64)> = (0..side * side).map(|i| ((i % side) as f64 / 19.0, (i / side) as f64 / 19.0)).collect();
    let gram = DMatrix::from_fn(x.len(), x.len(), |i, j| {
        let d2 = (x[i].0 - x[j].0).powi(2) + (x[i].1 - x[j].1).powi(2);
        (-d2 / (2.0 * 0.04)).exp()
    });
    let f = |i: usize| 2.0 * (3.0 * x[i].0).sin() * (2.0 * x[i].1).cos();
    let mut r = bohf_core::rng::seeded(5);
    let obs: Vec<Observation> = (0..count)
        .map(|_| {
            let i = r.random_range(0..x.len());
            if duels {
                let j = r.random_range(0..x.len());
                let p = 1.0 / (1.0 + (-(f(i) - f(j))).exp());
                Observation::Duel(Duel::new(i, j, r.random::<f64>() < p))
            } else {
                Observation::Label { point: i, positive: r.random::<f64>() < 1.0 / (1.0 + (-2.0 * f(i)).exp()) }
            }
        })
        .collect();
    let config = ConfidenceConfig {
        latent_box: latent_box.then_some(3.0),
        nugget: 1e-6,
        solver,
        ..ConfidenceConfig::with_norm_bound(16.0)
    };
    let problem = ConfidenceProblem::on_candidates(&gram, &[], &obs, &config).unwrap();
    (gram, problem)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args[1].parse().unwrap();
    let duels = args[2] == "duels";
    let latent_box = args[3] == "box";
    let solver = if args[4] == "dense" { SolverChoice::Dense } else { SolverChoice::Clarabel };
    let (gram, problem) = instance(count, duels, latent_box, solver);
    let t = std::time::Instant::now();
    let mle = problem.mle().unwrap();
    eprintln!(
        "MLE {:?} {} steps {:.1} ms ll={}",
        mle.info.method,
        mle.info.iterations,
        t.elapsed().as_secs_f64() * 1e3,
        mle.log_likelihood
    );
    let _ = DVector::<f64>::zeros(1);
    for col in [37usize, 150, 299] {
        let kx = DVector::from_fn(problem.len(), |i, _| gram[(problem.support().unwrap()[i], col)]);
        let cand = problem.candidate(&kx, 1.0).unwrap();
        let mut set = ConfidenceSet::new(&problem, &mle, 3.0).unwrap();
        let t = std::time::Instant::now();
        let low = set.lower_bound(&cand).unwrap();
        eprintln!(
            "lower {:.12} {:?} {} steps {:.1} ms",
            low.value,
            low.info.method,
            low.info.iterations,
            t.elapsed().as_secs_f64() * 1e3
        );
        let t = std::time::Instant::now();
        let up = set.upper_bound(&cand).unwrap();
        eprintln!(
            "upper {:.12} {:?} {} steps {:.1} ms",
            up.value,
            up.info.method,
            up.info.iterations,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}
