//! Test fixtures of the engine, shared with the tests of the crates above it (compiled in every build but hidden from the docs: a
//! `test-support` feature made the tests' build of every crate above differ from the main job's,
//! so `cargo test --release` rebuilt them all): small test-only optimisers (uniform duels, uniform evaluations, one that fails
//! at a step), a registry with them, a small spec, a tiny data file and scratch folders.
#![allow(missing_docs)]

use crate::*;
use bohf_core::rand::{Rng, RngExt};
use bohf_core::{Answer, Error, FiniteDomain, Optimizer, Point, Query, SearchContext, SolverStatus};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Uniformly random duels; recommends the candidate with the most wins so far (lowest index on ties).
struct UniformDuels {
    domain: FiniteDomain,
    wins: Vec<usize>,
    pending: Option<(usize, usize)>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct UniformConfig {
    /// Probability of a self-duel (x, x); must lie in [0, 1].
    self_duel: f64,
}

impl Optimizer for UniformDuels {
    fn name(&self) -> &'static str {
        "uniform duels"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        let n = self.domain.len();
        let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
        self.pending = Some((i, j));
        Ok(Query::Duel(self.domain.point(i)?, self.domain.point(j)?))
    }
    fn observe(&mut self, query: &Query, answer: Answer) -> bohf_core::Result<()> {
        let (i, j) = self.pending.take().ok_or_else(|| Error::invalid("query", "nothing was suggested"))?;
        match (query, answer) {
            (Query::Duel(x, y), Answer::Duel { first_wins }) if x.index == Some(i) && y.index == Some(j) => {
                self.wins[if first_wins { i } else { j }] += 1;
                Ok(())
            }
            _ => Err(Error::invalid("query", "does not match the suggestion")),
        }
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        let best = (0..self.wins.len()).fold(0, |b, i| if self.wins[i] > self.wins[b] { i } else { b });
        self.domain.point(best)
    }
}

impl RegisteredAlgorithm for UniformDuels {
    type Algorithm = Self;
    type Config = UniformConfig;
    type Checked = UniformConfig;
    fn check(c: &UniformConfig) -> bohf_core::Result<UniformConfig> {
        if (0.0..=1.0).contains(&c.self_duel) {
            Ok(UniformConfig { self_duel: c.self_duel })
        } else {
            Err(Error::invalid("self_duel", format!("must lie in [0, 1], got {}", c.self_duel)))
        }
    }
    fn build(ctx: &SearchContext, _: UniformConfig) -> bohf_core::Result<Self::Algorithm> {
        Ok(Self { domain: ctx.domain().clone(), wins: vec![0; ctx.domain().len()], pending: None })
    }
}

/// Noisy evaluations of uniformly random points; recommends the best value seen.
struct UniformValues {
    domain: FiniteDomain,
    best: Option<(usize, f64)>,
}

impl Optimizer for UniformValues {
    fn name(&self) -> &'static str {
        "uniform values"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        Ok(Query::Evaluate(self.domain.point(rng.random_range(0..self.domain.len()))?))
    }
    fn observe(&mut self, query: &Query, answer: Answer) -> bohf_core::Result<()> {
        if let (Query::Evaluate(x), Answer::Value(v)) = (query, answer)
            && self.best.is_none_or(|(_, b)| v > b)
        {
            self.best = Some((x.index.unwrap(), v));
        }
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        self.domain.point(self.best.map_or(0, |(i, _)| i))
    }
}

/// A fair coin between a uniform duel and a uniform evaluation at each step (so that runs under a
/// `[budget]` end at different steps); recommends candidate 0.
struct UniformMixed {
    domain: FiniteDomain,
}

impl Optimizer for UniformMixed {
    fn name(&self) -> &'static str {
        "uniform mixed"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        let n = self.domain.len();
        let x = self.domain.point(rng.random_range(0..n))?;
        Ok(if rng.random::<bool>() {
            Query::Duel(x, self.domain.point(rng.random_range(0..n))?)
        } else {
            Query::Evaluate(x)
        })
    }
    fn observe(&mut self, _: &Query, _: Answer) -> bohf_core::Result<()> {
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        self.domain.point(0)
    }
}

/// Uniform duels whose step `fail_at` fails, with probability `probability` (one draw from the
/// run's stream), as a conic solver failure would.
struct Flaky {
    inner: UniformDuels,
    fail_at: usize,
    probability: f64,
    t: usize,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FlakyConfig {
    fail_at: usize,
    probability: f64,
}

/// The error [`Flaky`] fails with.
pub fn flaky_error() -> Error {
    Error::solver_failed("test solver", SolverStatus::InsufficientProgress, "a test failure")
}

impl Optimizer for Flaky {
    fn name(&self) -> &'static str {
        "flaky"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        self.t += 1;
        if self.t == self.fail_at && rng.random::<f64>() < self.probability {
            return Err(flaky_error());
        }
        self.inner.suggest(rng)
    }
    fn observe(&mut self, query: &Query, answer: Answer) -> bohf_core::Result<()> {
        self.inner.observe(query, answer)
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        self.inner.recommend()
    }
}

impl RegisteredAlgorithm for Flaky {
    type Algorithm = Self;
    type Config = FlakyConfig;
    type Checked = FlakyConfig;
    fn check(c: &FlakyConfig) -> bohf_core::Result<FlakyConfig> {
        Ok(FlakyConfig { fail_at: c.fail_at, probability: c.probability })
    }
    fn build(ctx: &SearchContext, c: FlakyConfig) -> bohf_core::Result<Self::Algorithm> {
        let inner = UniformDuels { domain: ctx.domain().clone(), wins: vec![0; ctx.domain().len()], pending: None };
        Ok(Self { inner, fail_at: c.fail_at, probability: c.probability, t: 0 })
    }
}

/// Uniformly random duels in a box (a box-only test algorithm); recommends the last winner (the
/// box's lower corner before any duel). `observe` checks both points against the box.
struct UniformBox {
    domain: bohf_core::BoxDomain,
    last_winner: Option<Vec<f64>>,
}

impl Optimizer for UniformBox {
    fn name(&self) -> &'static str {
        "uniform box duels"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        let x = self.domain.sample(&mut *rng);
        let y = self.domain.sample(&mut *rng);
        Ok(Query::Duel(Point::continuous(x), Point::continuous(y)))
    }
    fn observe(&mut self, query: &Query, answer: Answer) -> bohf_core::Result<()> {
        let (p, q) = query.duel_points(self.name())?;
        let (x, y) = (self.domain.checked_point(p, "first")?, self.domain.checked_point(q, "second")?);
        self.last_winner = Some(if answer.duel_outcome()? { x.to_vec() } else { y.to_vec() });
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        Ok(Point::continuous(self.last_winner.clone().unwrap_or_else(|| self.domain.lower().to_vec())))
    }
}

/// [`UniformChoice`] on a box.
struct UniformBoxChoice(UniformChoice);

impl Optimizer for UniformBoxChoice {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        self.0.suggest(rng)
    }
    fn observe(&mut self, query: &Query, answer: Answer) -> bohf_core::Result<()> {
        self.0.observe(query, answer)
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        self.0.recommend()
    }
}

impl RegisteredAlgorithm<bohf_core::BoxDomain> for UniformBoxChoice {
    type Algorithm = Self;
    type Config = UniformConfig;
    type Checked = UniformConfig;
    fn check(c: &UniformConfig) -> bohf_core::Result<UniformConfig> {
        UniformDuels::check(c)
    }
    fn build(ctx: &SearchContext<bohf_core::BoxDomain>, _: UniformConfig) -> bohf_core::Result<Self::Algorithm> {
        Ok(Self(UniformChoice { domain: ctx.domain().clone().into(), last: None }))
    }
}

impl RegisteredAlgorithm<bohf_core::BoxDomain> for UniformBox {
    type Algorithm = Self;
    type Config = UniformConfig;
    type Checked = UniformConfig;
    fn check(c: &UniformConfig) -> bohf_core::Result<UniformConfig> {
        UniformDuels::check(c)
    }
    fn build(ctx: &SearchContext<bohf_core::BoxDomain>, _: UniformConfig) -> bohf_core::Result<Self::Algorithm> {
        Ok(Self { domain: ctx.domain().clone(), last_winner: None })
    }
}

/// Best-of-3 choices between uniformly random distinct candidates (or, on a box, uniform points);
/// recommends the last chosen option (the first candidate, or the box's lower corner, before any).
/// `observe` checks the answer against the query.
struct UniformChoice {
    domain: bohf_core::Domain,
    last: Option<Point>,
}

impl Optimizer for UniformChoice {
    fn name(&self) -> &'static str {
        "uniform choices"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        let options = match &self.domain {
            bohf_core::Domain::Finite(d) => {
                let mut picked: Vec<usize> = Vec::new();
                while picked.len() < 3 {
                    let i = rng.random_range(0..d.len());
                    if !picked.contains(&i) {
                        picked.push(i);
                    }
                }
                picked.into_iter().map(|i| d.point(i)).collect::<bohf_core::Result<Vec<_>>>()?
            }
            bohf_core::Domain::Box(b) => (0..3).map(|_| Point::continuous(b.sample(&mut *rng))).collect(),
        };
        Ok(Query::Choice(options))
    }
    fn observe(&mut self, query: &Query, answer: Answer) -> bohf_core::Result<()> {
        query.check_answer(&answer)?;
        let options = query.choice_options(self.name())?;
        self.last = Some(options[answer.choice_index(options.len())?].clone());
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        match (&self.last, &self.domain) {
            (Some(p), _) => Ok(p.clone()),
            (None, bohf_core::Domain::Finite(d)) => d.point(0),
            (None, bohf_core::Domain::Box(b)) => Ok(Point::continuous(b.lower().to_vec())),
        }
    }
}

pub fn registry() -> Registry {
    let mut r = Registry::empty();
    r.register(AlgorithmEntry::of_box::<UniformBox>("uniform-box", "uniform random duels in a box (test)")).unwrap();
    r.register(AlgorithmEntry::of::<Flaky>("flaky", "uniform duels that may fail at one step (test)")).unwrap();
    r.register(AlgorithmEntry::of::<UniformDuels>("uniform", "uniform random duels (test)")).unwrap();
    r.register(AlgorithmEntry::new(
        "uniform-mixed",
        "uniform random duels or evaluations (test)",
        |_, _| Ok(()),
        |ctx, _| Ok(Box::new(UniformMixed { domain: ctx.domain().clone() }) as BoxedOptimizer),
    ))
    .unwrap();
    r.register(AlgorithmEntry::new(
        "uniform-choice",
        "best-of-3 choices between uniform random candidates (test)",
        |_, _| Ok(()),
        |ctx, _| Ok(Box::new(UniformChoice { domain: ctx.domain().clone().into(), last: None }) as BoxedOptimizer),
    ))
    .unwrap();
    r.register(AlgorithmEntry::of_box::<UniformBoxChoice>("uniform-box-choice", "best-of-3 choices in a box (test)"))
        .unwrap();
    r.register(AlgorithmEntry::new(
        "uniform-values",
        "uniform random evaluations (test)",
        |_, _| Ok(()),
        |ctx, _| Ok(Box::new(UniformValues { domain: ctx.domain().clone(), best: None }) as BoxedOptimizer),
    ))
    .unwrap();
    r
}

pub const SMALL: &str = r#"
name = "small"
horizon = 25
runs = 4
seed = 11

[problem]
kind = "rkhs"
kernel = "se"
points = 12

[[algorithms]]
name = "uniform"
label = "Uniform, 10% self"
params = { self_duel = 0.1 }

[[algorithms]]
name = "uniform-values"
"#;

pub fn small_spec() -> ExperimentSpec {
    ExperimentSpec::from_toml_str(SMALL).unwrap()
}

/// A MAGIC-format file of `n` records: 10 attributes from a fixed pseudo-random sequence, the
/// class `g` when a noisy linear score of the first two is positive (so a good SVM does better
/// than the majority).
pub fn tiny_data(dir: &std::path::Path, n: usize) -> PathBuf {
    let mut state: u64 = 12345;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut text = String::new();
    for _ in 0..n {
        let row: Vec<f64> = (0..10).map(|_| next() * 50.0).collect();
        let class = if row[0] + 0.5 * row[1] + 10.0 * next() > 0.0 { "g" } else { "h" };
        let fields: Vec<String> = row.iter().map(|v| format!("{v:.4}")).collect();
        text.push_str(&format!("{},{class}\n", fields.join(",")));
    }
    let p = dir.join("tiny-magic.data");
    std::fs::write(&p, text).unwrap();
    p
}

pub fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bohf-experiments-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn run_with_threads(spec: &ExperimentSpec, threads: usize) -> Results {
    run_with_registry(spec, &registry(), threads)
}

/// Runs `spec` with the algorithms of `registry` on a pool of `threads` threads.
pub fn run_with_registry(spec: &ExperimentSpec, registry: &Registry, threads: usize) -> Results {
    let e = Experiment::new(spec.clone(), registry).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| e.run()).unwrap()
}
