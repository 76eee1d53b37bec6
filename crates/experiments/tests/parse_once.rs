//! Parse once, check once (issue 31, item 2): a spec's `params` are deserialised and checked once
//! per algorithm entry when the spec is loaded ([`Experiment::new`]), whatever the number of runs
//! and of threads; every run builds its optimiser from the checked config.

use bohf_core::rand::{Rng, RngExt};
use bohf_core::{Answer, Error, FiniteDomain, Optimizer, Point, Query, SearchContext};
use bohf_experiments::{AlgorithmEntry, Experiment, ExperimentSpec, RegisteredAlgorithm, Registry};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Deserialisations of [`CountedConfig`] (through [`RawConfig`]'s `From`).
static DESERIALISED: AtomicUsize = AtomicUsize::new(0);
/// Calls of [`Counted`]'s `check`.
static CHECKED: AtomicUsize = AtomicUsize::new(0);
/// Optimisers built.
static BUILT: AtomicUsize = AtomicUsize::new(0);

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct RawConfig {
    step: usize,
}

/// A config that counts its deserialisations.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(from = "RawConfig")]
struct CountedConfig {
    step: usize,
}

impl From<RawConfig> for CountedConfig {
    fn from(raw: RawConfig) -> Self {
        DESERIALISED.fetch_add(1, Ordering::SeqCst);
        Self { step: raw.step }
    }
}

/// Uniform duels, stepping through the candidates by `step`.
struct Counted {
    domain: FiniteDomain,
    step: usize,
    at: usize,
}

impl Optimizer for Counted {
    fn name(&self) -> &'static str {
        "counted"
    }
    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        let n = self.domain.len();
        self.at = (self.at + self.step + rng.random_range(0..n)) % n;
        Ok(Query::Duel(self.domain.point(self.at)?, self.domain.point((self.at + 1) % n)?))
    }
    fn observe(&mut self, _: &Query, _: Answer) -> bohf_core::Result<()> {
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        self.domain.point(self.at)
    }
}

impl RegisteredAlgorithm for Counted {
    type Algorithm = Self;
    type Config = CountedConfig;
    type Checked = CountedConfig;
    fn check(c: &CountedConfig) -> bohf_core::Result<CountedConfig> {
        CHECKED.fetch_add(1, Ordering::SeqCst);
        if c.step > 100 {
            return Err(Error::invalid("step", format!("at most 100, got {}", c.step)));
        }
        Ok(c.clone())
    }
    fn build(ctx: &SearchContext, c: CountedConfig) -> bohf_core::Result<Self> {
        BUILT.fetch_add(1, Ordering::SeqCst);
        Ok(Self { domain: ctx.domain().clone(), step: c.step, at: 0 })
    }
}

fn spec(runs: usize) -> ExperimentSpec {
    ExperimentSpec::from_toml_str(&format!(
        r#"
name = "counted"
horizon = 5
runs = {runs}
seed = 3

[problem]
kind = "rkhs"
kernel = "se"
points = 8

[[algorithms]]
name = "counted"
label = "A"
params = {{ step = 1 }}

[[algorithms]]
name = "counted"
label = "B"
params = {{ step = 2 }}
"#
    ))
    .unwrap()
}

fn registry() -> Registry {
    let mut r = Registry::empty();
    r.register(AlgorithmEntry::of::<Counted>("counted", "counts its parsing (test)")).unwrap();
    r
}

/// (deserialisations, checks, builds) of loading the spec with `runs` runs and running it on
/// `threads` threads.
fn counts(runs: usize, threads: usize) -> (usize, usize, usize) {
    for c in [&DESERIALISED, &CHECKED, &BUILT] {
        c.store(0, Ordering::SeqCst);
    }
    let experiment = Experiment::new(spec(runs), &registry()).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let results = pool.install(|| experiment.run()).unwrap();
    assert_eq!(results.runs().len(), 2 * runs);
    (DESERIALISED.load(Ordering::SeqCst), CHECKED.load(Ordering::SeqCst), BUILT.load(Ordering::SeqCst))
}

/// One test (the counters are global): each of the two entries is deserialised and checked once
/// per load, for R = 1 and R = 10 runs on 1 and 4 threads; each run builds its optimiser once
/// (plus the one build per entry at load that tries the problem).
#[test]
fn params_are_parsed_and_checked_once_per_entry() {
    let mut seen = Vec::new();
    for runs in [1, 10] {
        for threads in [1, 4] {
            let (deserialised, checked, built) = counts(runs, threads);
            eprintln!(
                "R = {runs}, {threads} threads: {deserialised} deserialisations, {checked} checks, {built} builds"
            );
            seen.push((runs, threads, deserialised, checked, built));
        }
    }
    for (runs, threads, deserialised, checked, built) in seen {
        assert_eq!((deserialised, checked), (2, 2), "R = {runs}, {threads} threads");
        assert_eq!(built, 2 * runs + 2, "R = {runs}, {threads} threads");
    }
}
