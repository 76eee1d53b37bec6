//! Greedy maximum information gain Γ(T) of the dueling kernel against its theoretical order.
//!
//! For Matérn-ν kernels on a 1-D grid of [0, 1] (ℓ = 0.1, the papers' setting) this runs greedy
//! maximum-variance selection over all ordered candidate pairs (MR-LPF §4.1), prints the bracket
//! g_T ≤ Γ(T) ≤ g_T/(1 − 1/e), and compares the log–log slope of g_T with the exponent of the order
//! T^{d/(2ν+d)} (up to log factors) that the regret bounds use.
//!
//! Run: `cargo run --release --example gamma_growth [n_candidates] [T]` (defaults 200 and 2000).

use bohf::core::{Error, FiniteDomain};
use bohf::infogain::{GrowthOrder, PairKernel, greedy_pairs, log_log_slope};
use bohf::kernels::{Kernel, KernelKind, Stationary};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(200);
    let steps: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(2000);
    let noise = 0.05; // ρ = λ = 0.05, as in the authors' code.
    let grid = FiniteDomain::linspace(0.0, 1.0, n)?;
    println!("Greedy Γ(T) for the dueling kernel on {n} grid points of [0,1], ℓ = 0.1, ρ = {noise}\n");

    for family in [KernelKind::Matern32, KernelKind::Matern52, KernelKind::Se] {
        let kernel = Stationary::new(family, 0.1)?;
        let base = kernel.gram(grid.points())?;
        let start = std::time::Instant::now();
        let greedy = greedy_pairs(&base, PairKernel::Dueling, noise, steps)?;
        let elapsed = start.elapsed();
        let order = GrowthOrder::new(family, 1)?;
        println!("{family:?}: theoretical order {order}  (greedy run: {:.1} ms)", elapsed.as_secs_f64() * 1e3);
        println!("{:>7} {:>12} {:>16} {:>10}", "T", "g_T ≤ Γ(T)", "≤ g_T/(1−1/e)", "order(T)");
        let checkpoints: Vec<usize> =
            [10, 20, 50, 100, 200, 500, 1000, 2000, 5000].into_iter().filter(|&t| t <= steps).collect();
        for &t in &checkpoints {
            let b = greedy.bracket_at(t)?;
            println!("{t:>7} {:>12.3} {:>16.3} {:>10.3}", b.lower, b.upper, order.value(t as f64)?);
        }
        // Slope over the second half of the checkpoints, where the asymptotic regime is closest.
        let tail: Vec<(f64, f64)> = checkpoints
            .iter()
            .filter(|&&t| t >= 100)
            .map(|&t| Ok((t as f64, greedy.bracket_at(t)?.lower)))
            .collect::<Result<_, Error>>()?;
        if tail.len() >= 2 {
            let g_slope = log_log_slope(&tail)?;
            let o_pts: Vec<(f64, f64)> =
                tail.iter().map(|&(t, _)| Ok((t, order.value(t)?))).collect::<Result<_, Error>>()?;
            println!(
                "log–log slope for T ≥ 100: greedy {:.3}, theoretical order {:.3} (polynomial exponent {:.3})\n",
                g_slope,
                log_log_slope(&o_pts)?,
                order.polynomial_exponent()
            );
        }
    }
    Ok(())
}
