//! Fixtures of the registry's integration tests: the engine's test fixtures
//! (`bohf_experiments::testing`: test-only optimisers, small specs, scratch folders) with the
//! built-in algorithms registered too, and a box problem for the box modes.

#![allow(dead_code)]

pub use bohf_experiments::testing::*;
use bohf_experiments::{ExperimentSpec, Registry, Results};

/// The built-in algorithms, then the engine's test-only ones.
pub fn registry() -> Registry {
    let mut r = bohf_registry::builtin();
    for e in bohf_experiments::testing::registry().entries() {
        r.register(e.clone()).unwrap();
    }
    r
}

/// Runs `spec` with [`registry`] on a pool of `threads` threads.
pub fn run_with_threads(spec: &ExperimentSpec, threads: usize) -> Results {
    run_with_registry(spec, &registry(), threads)
}

/// A box problem: 2-D Branin on its box, uniform box duels and the box modes of POP-BO and GP-UCB
/// (short searches).
pub const BOX: &str = r#"
name = "box"
horizon = 5
runs = 3
seed = 4

[problem]
kind = "function"
function = "branin"
domain = "box"
scaling = { multiply = 0.1 }

[[algorithms]]
name = "uniform-box"

[[algorithms]]
name = "pop-bo"
[algorithms.params]
confidence = { norm_bound = 3.0 }
box_search = { samples = 40, starts = 2, iterations = 3 }

[[algorithms]]
name = "gp-ucb"
params = { box_search = { design = 32, samples = 32, starts = 2 } }

[[algorithms]]
name = "gp-ucb"
label = "gp-ucb-learned"
[algorithms.params]
noise = 0.1
box_search = { design = 32, samples = 32, starts = 2 }
hyperparameters = { refit_every = 2, screen = 4 }
"#;

pub fn box_spec() -> ExperimentSpec {
    ExperimentSpec::from_toml_str(BOX).unwrap()
}
