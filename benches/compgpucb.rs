//! Whole runs of COMP-GP-UCB and its baselines on the paper's presets (notes 002 §5.1; criterion
//! medians in docs/compgpucb.md, "Performance"), through the experiments runner, one run (run 0,
//! seed 2020) each:
//!
//! * `compgpucb/comp_gp_ucb_borehole_L100`: COMP-GP-UCB on Borehole's 3⁸ grid (6,561 candidates),
//!   λ_c = 0.1, λ_l = 1, Λ = 100 (`specs/compgpucb-fig3a-borehole.toml`); the target is
//!   < 1 s.
//! * `compgpucb/mf_gp_ucb_borehole_L100`: MF-GP-UCB on the same preset.
//! * `compgpucb/comp_gp_ucb_currin_L100`: COMP-GP-UCB on CurrinExp's 20 × 20 grid, λ_c = 0.1,
//!   Λ = 100 (`specs/compgpucb-fig1a-currin.toml`).
//! * `compgpucb/kss_currin_L100`: KSS on that preset: 1,000 duels (two GP observations each) and a
//!   pair of joint posterior draws on the 400 candidates per duel.
//! * `compgpucb/kss_leaderboard_ackley1d_T300`: KSS as the leaderboard runs it
//!   (`specs/leaderboard/ackley-1d.toml`: 40 candidates, 4 shared initial duels, T = 300, learned
//!   kernel refitted every 20 of its 600 observations); the learned GP keeps no posterior of its own
//!   (docs/compgpucb.md, "Performance").

use bohf::experiments::{Experiment, ExperimentSpec, RunId};
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

const BOREHOLE: &str = include_str!("../specs/compgpucb-fig3a-borehole.toml");
const CURRIN: &str = include_str!("../specs/compgpucb-fig1a-currin.toml");

fn experiment(text: &str) -> Experiment {
    Experiment::new(ExperimentSpec::from_toml_str(text).unwrap(), &bohf::registry::builtin()).unwrap()
}

/// The index of the algorithm labelled `label` in the spec.
fn index(text: &str, label: &str) -> usize {
    let spec = ExperimentSpec::from_toml_str(text).unwrap();
    spec.algorithms.iter().position(|a| a.label.as_deref() == Some(label)).expect("the preset has this algorithm")
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("compgpucb");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for (name, text, label) in [
        ("comp_gp_ucb_borehole_L100", BOREHOLE, "COMP-GP-UCB"),
        ("mf_gp_ucb_borehole_L100", BOREHOLE, "MF-GP-UCB"),
        ("comp_gp_ucb_currin_L100", CURRIN, "COMP-GP-UCB"),
    ] {
        let e = experiment(text);
        let algorithm = index(text, label);
        g.bench_function(name, |b| b.iter(|| black_box(e.run_one(RunId { algorithm, run: 0 }).unwrap())));
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/specs/leaderboard/ackley-1d.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let e = experiment(&text);
    let algorithm = index(&text, "KSS");
    g.bench_function("kss_leaderboard_ackley1d_T300", |b| {
        b.iter(|| black_box(e.run_one(RunId { algorithm, run: 0 }).unwrap()))
    });
    let e = experiment(CURRIN);
    let algorithm = index(CURRIN, "KSS");
    // Seconds per run: 10 samples of one run each (flat sampling), not criterion's 55-run ramp.
    g.sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(60));
    g.bench_function("kss_currin_L100", |b| b.iter(|| black_box(e.run_one(RunId { algorithm, run: 0 }).unwrap())));
    g.finish();
}

criterion_group!(compgpucb, benches);
criterion_main!(compgpucb);
