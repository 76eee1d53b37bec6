//! Budgets of bohf-experiments (criterion medians on the 2-core reference machine, default build):
//!
//! * `experiments/pf_ts_ackley_full`: the whole PF-TS Ackley experiment of PF-TS §5.2 through the
//!   runner: 4 methods (PF-TS, MR-LPF, MaxMinLCB, GP-TS) × 30 runs × T = 300 on the flipped Ackley
//!   of 40 points, both cores: < 10 s.
//! * `experiments/runner_overhead_random_T2000_n100`: one run of uniformly random duels, T = 2000
//!   on MR-LPF's 100-point RKHS grid: the cost of the runner itself (respondent, regret, records).
//! * `experiments/csv_4x30x300`: writing the 36 000-row CSV of the Ackley experiment.
//! * `experiments/spec_load_leaderboard_ackley`: a spec load: parse the leaderboard's flipped
//!   Ackley spec (9 algorithms with their nested settings), check every algorithm's parameters
//!   once and prepare the problem (`Experiment::new`).

use bohf::experiments::{Experiment, ExperimentSpec, RunId, Timing};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

const PF_TS_ACKLEY: &str = r#"
name = "pf-ts-ackley"
horizon = 300
runs = 30
seed = 1
[problem]
kind = "ackley"
points = 40
sign = "negated"
scaling = "none"
[[algorithms]]
name = "pf-ts"
[[algorithms]]
name = "mr-lpf"
[[algorithms]]
name = "maxminlcb"
[[algorithms]]
name = "gp-ts"
"#;

const RANDOM_RKHS: &str = r#"
name = "random-rkhs"
horizon = 2000
runs = 1
[problem]
kind = "rkhs"
kernel = "se"
[[algorithms]]
name = "random"
"#;

/// The leaderboard's flipped-Ackley problem: nine algorithms with nested settings.
const LEADERBOARD_ACKLEY: &str = include_str!("../specs/leaderboard/ackley-1d.toml");

fn experiment(text: &str) -> Experiment {
    Experiment::new(ExperimentSpec::from_toml_str(text).unwrap(), &bohf::registry::builtin()).unwrap()
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("experiments");
    let ackley = experiment(PF_TS_ACKLEY);
    g.sample_size(10).measurement_time(Duration::from_secs(60));
    g.bench_function("pf_ts_ackley_full", |b| b.iter(|| black_box(ackley.run().unwrap())));
    let results = ackley.run().unwrap();
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("csv_4x30x300", |b| b.iter(|| black_box(results.to_csv(Timing::Include))));
    let random = experiment(RANDOM_RKHS);
    g.bench_function("runner_overhead_random_T2000_n100", |b| {
        b.iter(|| black_box(random.run_one(RunId { algorithm: 0, run: 0 }).unwrap()))
    });
    g.bench_function("spec_load_leaderboard_ackley", |b| b.iter(|| black_box(experiment(LEADERBOARD_ACKLEY))));
    g.finish();
}

criterion_group!(experiments, benches);
criterion_main!(experiments);
