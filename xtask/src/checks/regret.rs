//! Empirical growth of cumulative regret on the RKHS instance against each theorem's rate (PF-TS
//! Theorem 1: R(T) = Õ(β_T√(TΓ(T))) with β_T = O(√Γ(T)), i.e. Õ(Γ(T)√T); MR-LPF Theorem 4.1:
//! Õ(√(TΓ(T)))). Runs go through the experiment runner (the same code path as the reproductions), with
//! the experiments' settings.
//!
//! Criterion (fixed in advance): the log–log slope of the mean cumulative regret over
//! t ∈ [T/8, T] must not exceed the log–log slope of the rate (with Γ the upper end of the greedy
//! bracket on the same candidates, noise ρ = 0.05) over the same t. R(T)/√(TΓ(T)) is printed as well.

use crate::report::{Row, fmt};
use bohf_experiments::{Experiment, ExperimentSpec, Registry};
use bohf_infogain::{greedy_pairs, log_log_fit};
use bohf_kernels::PairKernel;

fn spec(horizon: usize, runs: usize) -> String {
    format!(
        r#"
name = "verify-regret"
horizon = {horizon}
runs = {runs}
seed = 5
[problem]
kind = "rkhs"
kernel = "matern52"
points = 30
scaling = {{ multiply = 5.0 }}
[respondent]
model = "stochastic"
link = "logistic"
scale = 1.0
[[algorithms]]
name = "pf-ts"
[[algorithms]]
name = "mr-lpf"
"#
    )
}

pub fn regret_growth(quick: bool) -> Vec<Row> {
    let (horizon, runs) = if quick { (150, 4) } else { (600, 16) };
    let result = (|| -> Result<Vec<Row>, String> {
        let spec = ExperimentSpec::from_toml_str(&spec(horizon, runs)).map_err(|e| e.to_string())?;
        let experiment = Experiment::new(spec, &Registry::builtin()).map_err(|e| e.to_string())?;
        let results = experiment.run().map_err(|e| e.to_string())?;
        let inference = bohf_gp::InferenceConfig::default();
        let base = inference.base_gram(experiment.problem().domain()).map_err(|e| e.to_string())?;
        let g = greedy_pairs(&base, PairKernel::Dueling, inference.rho(), horizon).map_err(|e| e.to_string())?;
        let gamma = |t: usize| g.bracket_at(t).map(|b| b.upper).unwrap_or(f64::NAN);
        let ts: Vec<usize> = (horizon / 8..=horizon).step_by((horizon / 64).max(1)).collect();
        let mut rows = Vec::new();
        for (label, rate_name, rate) in [
            (
                "pf-ts",
                "Γ(T)√T (PF-TS Thm 1 with β_T ∝ √Γ)",
                Box::new(|t: usize| gamma(t) * (t as f64).sqrt()) as Box<dyn Fn(usize) -> f64>,
            ),
            ("mr-lpf", "√(TΓ(T)) (MR-LPF Thm 4.1)", Box::new(|t: usize| (t as f64 * gamma(t)).sqrt())),
        ] {
            let mine: Vec<_> = results.runs().iter().filter(|r| r.label == label).collect();
            if mine.is_empty() {
                rows.push(Row::error(&format!("regret.{label}"), label, "no runs"));
                continue;
            }
            let mean =
                |t: usize| mine.iter().map(|r| r.steps[t - 1].cumulative_regret).sum::<f64>() / mine.len() as f64;
            let pts: Vec<(f64, f64)> = ts.iter().map(|&t| (t as f64, mean(t))).collect();
            let slope = log_log_fit(&pts).map_err(|e| e.to_string())?.slope;
            let rpts: Vec<(f64, f64)> = ts.iter().map(|&t| (t as f64, rate(t))).collect();
            let rslope = log_log_fit(&rpts).map_err(|e| e.to_string())?.slope;
            rows.push(Row::at_most(
                &format!("regret.{label}.growth"),
                &format!(
                    "{label}: R(T) = Õ({rate_name}); RKHS Matérn-5/2, n=30, ×5, experiments' settings, {} runs, log–log slope over t∈[{},{horizon}]",
                    mine.len(),
                    horizon / 8
                ),
                "slope of mean R(t)",
                slope,
                "slope of the rate",
                rslope,
            ));
            let ratio = |t: usize| mean(t) / (t as f64 * gamma(t)).sqrt();
            rows.push(Row::info(
                &format!("regret.{label}.normalised"),
                &format!("{label}: R(T)/√(TΓ(T)) should stay bounded (MR-LPF §8.11, PF-TS §9.13)"),
                format!(
                    "T={}: {}; T={}: {}; T={horizon}: {}",
                    horizon / 4,
                    fmt(ratio(horizon / 4)),
                    horizon / 2,
                    fmt(ratio(horizon / 2)),
                    fmt(ratio(horizon))
                ),
                format!("R(T)/T at T={horizon}: {}", fmt(mean(horizon) / horizon as f64)),
            ));
        }
        Ok(rows)
    })();
    result.unwrap_or_else(|e| vec![Row::error("regret", "regret growth", e)])
}
