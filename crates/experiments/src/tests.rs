//! Tests of the experiment layer with small test-only optimisers (and MR-LPF where a real
//! algorithm is needed).

use crate::*;
use bohf_core::rand::{Rng, RngExt};
use bohf_core::{Answer, Error, FiniteDomain, Optimizer, Point, Query, SearchContext};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// Uniformly random duels; recommends the candidate with the most wins so far (lowest index on ties).
struct UniformDuels {
    domain: FiniteDomain,
    wins: Vec<usize>,
    pending: Option<(usize, usize)>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
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
    type Config = UniformConfig;
    type Checked = UniformConfig;
    fn check(c: &UniformConfig) -> bohf_core::Result<UniformConfig> {
        if (0.0..=1.0).contains(&c.self_duel) {
            Ok(UniformConfig { self_duel: c.self_duel })
        } else {
            Err(Error::invalid("self_duel", format!("must lie in [0, 1], got {}", c.self_duel)))
        }
    }
    fn build(ctx: &SearchContext, _: UniformConfig) -> bohf_core::Result<Self> {
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

/// Asks a fixed list of queries (candidate pairs; `(i, None)` is an evaluation) and recommends a
/// fixed list of candidates.
struct Scripted {
    domain: FiniteDomain,
    queries: Vec<(usize, Option<usize>)>,
    recommendations: Vec<usize>,
    t: usize,
}

impl Optimizer for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    fn suggest(&mut self, _: &mut dyn Rng) -> bohf_core::Result<Query> {
        let (i, j) = self.queries[self.t];
        Ok(match j {
            Some(j) => Query::Duel(self.domain.point(i)?, self.domain.point(j)?),
            None => Query::Evaluate(self.domain.point(i)?),
        })
    }
    fn observe(&mut self, _: &Query, _: Answer) -> bohf_core::Result<()> {
        self.t += 1;
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<Point> {
        self.domain.point(self.recommendations[self.t - 1])
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

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FlakyConfig {
    fail_at: usize,
    probability: f64,
}

impl Optimizer for Flaky {
    fn name(&self) -> &'static str {
        "flaky"
    }

    fn suggest(&mut self, rng: &mut dyn Rng) -> bohf_core::Result<Query> {
        self.t += 1;
        if self.t == self.fail_at && rng.random::<f64>() < self.probability {
            return Err(Error::SolverFailed {
                solver: "test solver".into(),
                reason: "status InsufficientProgress".into(),
            });
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
    type Config = FlakyConfig;
    type Checked = FlakyConfig;
    fn check(c: &FlakyConfig) -> bohf_core::Result<FlakyConfig> {
        Ok(FlakyConfig { fail_at: c.fail_at, probability: c.probability })
    }
    fn build(ctx: &SearchContext, c: FlakyConfig) -> bohf_core::Result<Self> {
        let inner = UniformDuels { domain: ctx.domain().clone(), wins: vec![0; ctx.domain().len()], pending: None };
        Ok(Self { inner, fail_at: c.fail_at, probability: c.probability, t: 0 })
    }
}

fn registry() -> Registry {
    let mut r = Registry::builtin();
    r.register(AlgorithmEntry::of::<Flaky>("flaky", "uniform duels that may fail at one step (test)")).unwrap();
    r.register(AlgorithmEntry::of::<UniformDuels>("uniform", "uniform random duels (test)")).unwrap();
    r.register(AlgorithmEntry::new(
        "uniform-values",
        "uniform random evaluations (test)",
        |_, _| Ok(()),
        |ctx, _| Ok(Box::new(UniformValues { domain: ctx.domain().clone(), best: None }) as BoxedOptimizer),
    ))
    .unwrap();
    r
}

fn scripted_registry(queries: Vec<(usize, Option<usize>)>, recommendations: Vec<usize>) -> Registry {
    let mut r = Registry::empty();
    let (q, rec) = (Arc::new(queries), Arc::new(recommendations));
    r.register(AlgorithmEntry::new(
        "scripted",
        "a fixed script (test)",
        |_, _| Ok(()),
        move |ctx, _| {
            Ok(Box::new(Scripted {
                domain: ctx.domain().clone(),
                queries: q.to_vec(),
                recommendations: rec.to_vec(),
                t: 0,
            }) as BoxedOptimizer)
        },
    ))
    .unwrap();
    r
}

const SMALL: &str = r#"
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

fn small_spec() -> ExperimentSpec {
    ExperimentSpec::from_toml_str(SMALL).unwrap()
}

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bohf-experiments-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ocx24_path() -> PathBuf {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/ocx24/ExpDataDump_241113_clean.csv");
    assert!(
        p.is_file(),
        "the OCx24 data file is missing: expected it at {} (the `shared/` folder beside the checkout)",
        p.display()
    );
    p
}

// ---------------------------------------------------------------------------------------------
// Specs

#[test]
fn spec_parses_with_defaults_and_round_trips() {
    let s = small_spec();
    assert_eq!((s.horizon, s.runs, s.seed), (25, 4, 11));
    assert_eq!(s.respondent, RespondentSpec::default());
    assert_eq!(s.labels(), ["Uniform, 10% self", "uniform-values"]);
    match &s.problem {
        ProblemSpec::Rkhs(p) => {
            assert_eq!(p.kernel, bohf_kernels::KernelKind::Se);
            assert_eq!(p.points, 12);
            assert_eq!(p.scaling, bohf_problems::Scaling::Multiply(5.0));
        }
        other => panic!("{other:?}"),
    }
    s.validate(&registry()).unwrap();
    let back = ExperimentSpec::from_toml_str(&s.to_toml_string().unwrap()).unwrap();
    assert_eq!(back, s);

    // Every problem kind and the respondent options.
    let text = r#"
        name = "kinds"
        horizon = 3
        runs = 1
        [problem]
        kind = "ackley"
        points = 40
        sign = "negated"
        scaling = "none"
        [respondent]
        model = "deterministic"
        link = "probit"
        scale = 2.0
        noise_sd = 0.5
        [[algorithms]]
        name = "mr-lpf"
        [algorithms.params.beta]
        rule = "constant"
        value = 0.5
    "#;
    let s = ExperimentSpec::from_toml_str(text).unwrap();
    s.validate(&registry()).unwrap();
    assert_eq!(s.respondent.model, ResponseModel::Deterministic);
    assert_eq!(s.respondent.link, bohf_core::Link::Probit);
    let f = r#"name = "f"
        horizon = 3
        runs = 1
        problem = { kind = "function", function = "branin", points_per_dim = 5, scaling = { range = [-3.0, 3.0] } }
        algorithms = [{ name = "uniform" }]"#;
    let s = ExperimentSpec::from_toml_str(f).unwrap();
    s.validate(&registry()).unwrap();
    let e = Experiment::new(s, &registry()).unwrap();
    assert_eq!(e.problem().domain().len(), 25);
    assert!((e.problem().utility().max() - 3.0).abs() < 1e-12);
}

#[test]
fn the_crate_example_spec_is_valid() {
    // The spec of the crate documentation's example.
    let text = r#"
        name = "mr-lpf-rkhs-se"
        horizon = 300
        runs = 60
        seed = 1
        [problem]
        kind = "rkhs"
        kernel = "se"
        [[algorithms]]
        name = "mr-lpf"
        [algorithms.params.inference.kernel]
        kind = "se"
    "#;
    ExperimentSpec::from_toml_str(text).unwrap().validate(&Registry::builtin()).unwrap();
}

/// The field named by a failed validation.
fn field_of(text: &str) -> String {
    let s = ExperimentSpec::from_toml_str(text).unwrap();
    let e = s.validate(&registry()).unwrap_err();
    assert!(e.to_string().contains(e.field().unwrap()), "{e}");
    e.field().unwrap().to_string()
}

#[test]
fn validation_names_the_field() {
    let base = SMALL.to_string();
    // T = 0, no runs.
    assert_eq!(field_of(&base.replace("horizon = 25", "horizon = 0")), "horizon");
    assert_eq!(field_of(&base.replace("runs = 4", "runs = 0")), "runs");
    // An empty candidate set.
    let e = ExperimentSpec::from_toml_str(&base.replace("points = 12", "points = 0")).unwrap().validate(&registry());
    let e = e.unwrap_err();
    assert_eq!(e.field(), Some("problem.points"));
    assert!(e.to_string().contains("empty"), "{e}");
    // An unknown algorithm: the message lists the valid names and suggests the closest.
    let s =
        ExperimentSpec::from_toml_str(&base.replace("name = \"uniform-values\"", "name = \"unifrom-values\"")).unwrap();
    let e = s.validate(&registry()).unwrap_err();
    assert_eq!(e.field(), Some("algorithms[1].name"));
    let msg = e.to_string();
    assert!(msg.contains("did you mean `uniform-values`") && msg.contains("mr-lpf"), "{msg}");
    // Parameters out of range, of a test optimiser and of MR-LPF.
    assert_eq!(field_of(&base.replace("self_duel = 0.1", "self_duel = 1.5")), "algorithms[0].params.self_duel");
    let mr = base.replace(
        "name = \"uniform-values\"",
        "name = \"mr-lpf\"\nparams = { beta = { rule = \"constant\", value = -1.0 } }",
    );
    assert_eq!(field_of(&mr), "algorithms[1].params.beta.value");
    let mr = base.replace("name = \"uniform-values\"", "name = \"mr-lpf\"\nparams = { inference = { kappa = 0.0 } }");
    assert_eq!(field_of(&mr), "algorithms[1].params.inference.kappa");
    // An unknown parameter key is named by its path, and in the message.
    let s = ExperimentSpec::from_toml_str(&base.replace("self_duel = 0.1", "self_dual = 0.1")).unwrap();
    let e = s.validate(&registry()).unwrap_err();
    assert_eq!(e.field(), Some("algorithms[0].params.self_dual"));
    assert!(e.to_string().contains("self_dual"), "{e}");
    // Duplicate labels, respondent, problem details.
    let dup = base.replace("label = \"Uniform, 10% self\"", "label = \"uniform-values\"");
    assert_eq!(field_of(&dup), "algorithms[1].label");
    assert_eq!(field_of(&format!("{base}\n[respondent]\nscale = 0.0\n")), "respondent.scale");
    assert_eq!(field_of(&format!("{base}\n[respondent]\nnoise_sd = -1.0\n")), "respondent.noise_sd");
    assert_eq!(
        field_of(&base.replace("points = 12", "points = 12\nscaling = { multiply = -5.0 }")),
        "problem.scaling.multiply"
    );
    let no_alg = "name = \"x\"\nhorizon = 1\nruns = 1\nalgorithms = []\n[problem]\nkind = \"rkhs\"\n";
    assert_eq!(field_of(no_alg), "algorithms");
    let fun = "name = \"x\"\nhorizon = 1\nruns = 1\nalgorithms = [{ name = \"uniform\" }]\n[problem]\nkind = \"function\"\nfunction = \"ackley\"\n";
    assert_eq!(field_of(fun), "problem.dim");
    assert_eq!(field_of(&fun.replace("ackley", "ackly")), "problem.function");
    let cat = "name = \"x\"\nhorizon = 1\nruns = 1\nalgorithms = [{ name = \"uniform\" }]\n[problem]\nkind = \"catalyst\"\npath = \"a.csv\"\nfilter = { divisor = 0.0 }\n";
    assert_eq!(field_of(cat), "problem.filter.divisor");
}

#[test]
fn toml_errors_give_line_and_column_and_missing_files_their_path() {
    let e = ExperimentSpec::from_toml_str("name = \"x\"\nhorizon = = 3\n").unwrap_err();
    assert!(matches!(e, ExperimentError::Toml { .. }));
    assert!(e.to_string().contains("line 2"), "{e}");
    // A misspelt top-level key.
    let e = ExperimentSpec::from_toml_str(&SMALL.replace("horizon", "horizn")).unwrap_err();
    assert!(e.to_string().contains("horizn"), "{e}");
    // A negative horizon is a shape error, not a panic.
    assert!(ExperimentSpec::from_toml_str(&SMALL.replace("horizon = 25", "horizon = -1")).is_err());
    // A spec file that does not exist, and a catalyst file that does not exist.
    let e = ExperimentSpec::from_file("/nonexistent/spec.toml").unwrap_err();
    assert!(e.to_string().contains("/nonexistent/spec.toml"), "{e}");
    let dir = scratch_dir("relative");
    let spec_path = dir.join("spec.toml");
    std::fs::write(
        &spec_path,
        "name = \"c\"\nhorizon = 2\nruns = 1\nalgorithms = [{ name = \"uniform\" }]\n[problem]\nkind = \"catalyst\"\npath = \"data/missing.csv\"\n",
    )
    .unwrap();
    let spec = ExperimentSpec::from_file(&spec_path).unwrap();
    let e = Experiment::new(spec, &registry()).unwrap_err();
    assert!(matches!(e, ExperimentError::Data(bohf_problems::DataError::Io { .. })), "{e}");
    assert!(e.to_string().contains(&dir.join("data/missing.csv").display().to_string()), "{e}");
}

#[test]
fn catalyst_problem_from_the_real_file() {
    let text = format!(
        "name = \"cat\"\nhorizon = 5\nruns = 2\nalgorithms = [{{ name = \"uniform\" }}]\n[problem]\nkind = \"catalyst\"\npath = {:?}\n",
        ocx24_path().display().to_string()
    );
    let e = Experiment::new(ExperimentSpec::from_toml_str(&text).unwrap(), &registry()).unwrap();
    assert_eq!(e.problem().domain().len(), 60);
    assert_eq!(e.problem().domain().dim(), 3);
    assert!(e.title().contains("60 Ag/Au/Zn compositions"), "{}", e.title());
    let r = e.run().unwrap();
    assert_eq!(r.runs().len(), 2);
}

// ---------------------------------------------------------------------------------------------
// The runner

fn run_with_threads(spec: &ExperimentSpec, threads: usize) -> Results {
    let e = Experiment::new(spec.clone(), &registry()).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| e.run()).unwrap()
}

#[test]
fn one_and_two_threads_give_identical_csv() {
    let mut spec = small_spec();
    // A real algorithm too: MR-LPF on the same problem.
    spec.algorithms.push(AlgorithmSpec::named("mr-lpf"));
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    let csv1 = one.to_csv(Timing::Omit);
    assert_eq!(csv1, two.to_csv(Timing::Omit));
    assert_eq!(csv1.lines().count(), 1 + 3 * 4 * 25);
    // The streams differ between runs and seeds (the CSV is not trivially constant).
    let runs = one.runs();
    assert_ne!(runs[0].steps, runs[1].steps);
    spec.seed += 1;
    assert_ne!(run_with_threads(&spec, 2).to_csv(Timing::Omit), csv1);
    // A run on its own equals the same run inside the full experiment (what shards and resume use).
    spec.seed -= 1;
    let e = Experiment::new(spec, &registry()).unwrap();
    let id = RunId { algorithm: 2, run: 3 };
    let alone = e.run_one(id).unwrap();
    let inside = one.runs().iter().find(|r| r.id == id).unwrap();
    assert_eq!(alone.to_csv(Timing::Omit), inside.to_csv(Timing::Omit));
}

#[test]
fn every_builtin_algorithm_runs_and_is_deterministic_across_threads() {
    let mut spec = small_spec();
    spec.horizon = 30;
    spec.runs = 2;
    spec.algorithms = Registry::builtin().names().into_iter().map(AlgorithmSpec::named).collect();
    assert_eq!(spec.labels(), ["pf-ts", "mr-lpf", "maxminlcb", "gp-ucb", "gp-ts", "random", "pop-bo"]);
    let one = run_with_threads(&spec, 1);
    let two = run_with_threads(&spec, 2);
    assert!(one.to_csv(Timing::Omit) == two.to_csv(Timing::Omit), "1 and 2 threads differ");
    for r in one.runs() {
        let scalar = r.label.starts_with("gp-");
        for s in &r.steps {
            assert_eq!(s.query == QueryKind::Evaluate, scalar, "{} asks {:?}", r.label, s.query);
            // r_t ∈ [0, ½] for every query kind.
            assert!((0.0..=0.5).contains(&s.regret), "{}: r_t = {}", r.label, s.regret);
        }
    }
}

#[test]
fn shards_cover_every_task_once_and_merge_into_the_full_results() {
    let spec = small_spec();
    let e = Experiment::new(spec.clone(), &registry()).unwrap();
    let mut all: Vec<RunId> = (0..3).flat_map(|k| e.shard(k, 3).unwrap()).collect();
    all.sort();
    let mut tasks = e.tasks();
    tasks.sort();
    assert_eq!(all, tasks);
    assert!(e.shard(3, 3).is_err());
    // Two shards run separately (reporting finished runs through the callback), merged.
    let seen = std::sync::Mutex::new(Vec::new());
    let mut pieces = Vec::new();
    for k in 0..2 {
        let outcome = e.run_tasks(&e.shard(k, 2).unwrap(), &|r| seen.lock().unwrap().push(r.id), &|f| panic!("{f}"));
        assert!(outcome.failures.is_empty() && outcome.not_started.is_empty());
        pieces.extend(outcome.runs);
    }
    assert_eq!(seen.lock().unwrap().len(), 8);
    let merged = Results::new(spec.clone(), e.title(), pieces.clone()).unwrap();
    assert!(merged.to_csv(Timing::Omit) == e.run().unwrap().to_csv(Timing::Omit), "merged shards differ");
    // A missing or repeated run is refused.
    assert!(Results::new(spec.clone(), "", pieces[1..].to_vec()).is_err());
    let mut twice = pieces.clone();
    twice[0] = pieces[1].clone();
    assert!(Results::new(spec.clone(), "", twice).is_err());
    let mut extra = pieces.clone();
    extra.push(RunRecord { id: RunId { algorithm: 2, run: 0 }, ..pieces[0].clone() });
    assert!(Results::new(spec, "", extra).is_err());
}

#[test]
fn metrics_on_a_hand_computable_script() {
    // Utility 5·f on 3 points of [0, 1]: use a deterministic respondent, so every answer and regret
    // follows from the order of the utilities alone.
    let spec_text = r#"
        name = "script"
        horizon = 4
        runs = 2
        [problem]
        kind = "rkhs"
        kernel = "se"
        points = 3
        [respondent]
        model = "deterministic"
        [[algorithms]]
        name = "scripted"
    "#;
    let spec = ExperimentSpec::from_toml_str(spec_text).unwrap();
    let u = bohf_problems::presets::rkhs_grid(bohf_kernels::KernelKind::Se, 3, &bohf_problems::Scaling::Multiply(5.0))
        .unwrap();
    let mut order: Vec<usize> = (0..3).collect();
    order.sort_by(|&a, &b| u.values()[b].partial_cmp(&u.values()[a]).unwrap());
    let (best, mid, worst) = (order[0], order[1], order[2]);
    assert!(u.values()[best] > u.values()[mid] && u.values()[mid] > u.values()[worst]);
    // Queries: (best, best), (mid, worst), (worst, best), evaluate(mid); recommendations.
    let queries = vec![(best, Some(best)), (mid, Some(worst)), (worst, Some(best)), (mid, None)];
    let recs = vec![worst, mid, best, best];
    let reg = scripted_registry(queries, recs.clone());
    let r = Experiment::new(spec, &reg).unwrap().run().unwrap();
    // Deterministic P(x* ≻ x): ½ for x*, 1 otherwise, so the gaps are 0 for x*, ½ otherwise.
    let want_r = [0.0, 0.5, 0.25, 0.5];
    let want_cum = [0.0, 0.5, 0.75, 1.25];
    let want_simple = [0.5, 0.5, 0.0, 0.0];
    for run in r.runs() {
        for (k, s) in run.steps.iter().enumerate() {
            assert_eq!(s.t, k + 1);
            assert_eq!(s.regret, want_r[k], "step {}", k + 1);
            assert_eq!(s.cumulative_regret, want_cum[k]);
            assert_eq!(s.simple_regret, want_simple[k]);
            assert_eq!(s.recommendation, recs[k]);
            assert!(s.elapsed_s >= 0.0);
        }
        // Duel answers: (mid, worst) → first wins; (worst, best) → second wins.
        assert_eq!(run.steps[1].answer, Answer::Duel { first_wins: true });
        assert_eq!(run.steps[2].answer, Answer::Duel { first_wins: false });
        assert_eq!(run.steps[3].query, QueryKind::Evaluate);
        assert_eq!(run.steps[3].second, None);
        assert!(matches!(run.steps[3].answer, Answer::Value(_)));
    }
    // Summary: identical regrets in both runs, so s.e. 0; wall time mean over the two runs.
    let s = r.summary().unwrap();
    let a = &s.algorithms[0];
    assert_eq!(a.instantaneous.mean, want_r);
    assert_eq!(a.cumulative.mean, want_cum);
    assert!(a.cumulative.se.iter().all(|&x| x == 0.0));
    assert_eq!(a.at_horizon.cumulative, MeanSe { mean: 1.25, se: 0.0 });

    // With a BTL respondent (logistic, scale 1) the regret of (mid, worst) is
    // (σ(u* − u_mid) + σ(u* − u_worst) − 1)/2, computed here by hand.
    let spec = ExperimentSpec::from_toml_str(&spec_text.replace("model = \"deterministic\"", "model = \"stochastic\""))
        .unwrap();
    let reg = scripted_registry(
        vec![(mid, Some(worst)), (best, None), (mid, None), (best, Some(best))],
        vec![mid, best, worst, best],
    );
    let r = Experiment::new(spec, &reg).unwrap().run().unwrap();
    let sig = |t: f64| 1.0 / (1.0 + (-t).exp());
    let v = u.values();
    let g = |i: usize| sig(v[best] - v[i]) - 0.5;
    let want = [0.5 * (g(mid) + g(worst)), 0.0, g(mid), 0.0];
    let steps = &r.runs()[0].steps;
    let mut cum = 0.0;
    for (k, s) in steps.iter().enumerate() {
        cum += want[k];
        // One exp and a few additions on values of order 1: 1e−15 relative.
        assert!((s.regret - want[k]).abs() < 1e-15, "step {}: {} vs {}", k + 1, s.regret, want[k]);
        assert!((s.cumulative_regret - cum).abs() < 1e-15);
    }
    assert!((steps[0].simple_regret - g(mid)).abs() < 1e-15);
    assert!((steps[2].simple_regret - g(worst)).abs() < 1e-15);
}

#[test]
fn mean_and_standard_error_by_hand() {
    // mean 2.5, population variance (2.25 + 0.25 + 0.25 + 2.25)/4 = 1.25, s.e. √1.25/2.
    let m = mean_se(&[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(m.mean, 2.5);
    assert!((m.se - 1.25f64.sqrt() / 2.0).abs() < 1e-15);
    assert_eq!(mean_se(&[7.0]), MeanSe { mean: 7.0, se: 0.0 });
}

// ---------------------------------------------------------------------------------------------
// Files

#[test]
fn csv_and_json_round_trip() {
    let r = run_with_threads(&small_spec(), 2);
    // With timings: exact round trip (shortest round-trip float formatting).
    let csv = r.to_csv(Timing::Include);
    let back = Results::from_csv(r.spec().clone(), r.title(), &csv).unwrap();
    assert!(back == r, "CSV round trip changed the results");
    // Without timings: everything but elapsed_s, which reads as 0.
    let back = Results::from_csv(r.spec().clone(), r.title(), &r.to_csv(Timing::Omit)).unwrap();
    for (a, b) in back.runs().iter().zip(r.runs()) {
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert_eq!(StepRecord { elapsed_s: y.elapsed_s, ..x.clone() }, *y);
        }
    }
    // The label with a comma is quoted.
    assert!(csv.contains("\"Uniform, 10% self\",0,1,duel,"), "{}", &csv[..300]);
    // A per-run CSV reads back to the run.
    let one = &r.runs()[5];
    let parsed = runs_from_csv(&one.to_csv(Timing::Include), &r.spec().labels(), None).unwrap();
    assert_eq!(parsed, vec![one.clone()]);
    // JSON summary.
    let s = r.summary().unwrap();
    let json = s.to_json().unwrap();
    assert!(Summary::from_json(&json).unwrap() == s, "JSON round trip changed the summary");
    assert!(json.contains("std(ddof=0)/sqrt(runs)"));
    let a = &s.algorithms[1];
    assert_eq!(a.instantaneous.mean.len(), 25);
    let last: Vec<f64> =
        r.runs().iter().filter(|x| x.id.algorithm == 1).map(|x| x.steps[24].cumulative_regret).collect();
    assert_eq!(a.at_horizon.cumulative, mean_se(&last));
    // Malformed CSV: a step out of order names the line.
    let broken = csv.replacen(",0,2,duel,", ",0,3,duel,", 1);
    let e = Results::from_csv(r.spec().clone(), "", &broken).unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
    let e = runs_from_csv("algorithm,run\n", &[], None).unwrap_err();
    assert!(e.to_string().contains("`t`"), "{e}");
}

#[test]
fn results_folder_with_plots() {
    let r = run_with_threads(&small_spec(), 2);
    let dir = scratch_dir("folder");
    let files = write_results(&r, &dir).unwrap();
    let spec = ExperimentSpec::from_file(&files.spec).unwrap();
    assert_eq!(&spec, r.spec());
    let csv = std::fs::read_to_string(&files.steps).unwrap();
    assert!(csv.starts_with(
        "algorithm,run,t,query,first,second,answer,regret,cumulative_regret,recommendation,simple_regret,elapsed_s\n"
    ));
    assert!(Results::from_csv(spec, r.title(), &csv).unwrap() == r, "steps.csv does not read back");
    assert_eq!(files.plots.len(), 4);
    for p in &files.plots {
        let bytes = std::fs::read(p).unwrap();
        assert!(bytes.len() > 1000, "{} has {} bytes", p.display(), bytes.len());
        if p.extension().unwrap() == "png" {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        } else {
            let svg = String::from_utf8(bytes).unwrap();
            assert!(svg.contains("<svg") && svg.contains("RKHS function (SE)"), "title missing");
            assert!(svg.contains("uniform-values (4 runs)"), "legend missing");
        }
    }
    // No temporary file is left behind.
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    // A plot to an unknown extension is an error naming the file.
    let e = plot(&r.summary().unwrap(), Metric::Simple, dir.join("x.gif")).unwrap_err();
    assert!(e.to_string().contains("x.gif"), "{e}");
    assert_eq!("cumulative".parse::<Metric>().unwrap(), Metric::Cumulative);
    assert!("total".parse::<Metric>().is_err());
}

// ---------------------------------------------------------------------------------------------
// Failures and `on_error`

fn flaky_spec(on_error: &str, runs: usize) -> ExperimentSpec {
    let text = format!(
        "name = \"flaky\"\nhorizon = 10\nruns = {runs}\nseed = 3\non_error = \"{on_error}\"\n[problem]\nkind = \"rkhs\"\n\
         points = 8\n[[algorithms]]\nname = \"uniform\"\n[[algorithms]]\nname = \"flaky\"\n\
         params = {{ fail_at = 4, probability = 0.5 }}\n"
    );
    ExperimentSpec::from_toml_str(&text).unwrap()
}

fn run_on(threads: usize, e: &Experiment) -> Result<Results> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| e.run())
}

#[test]
fn on_error_continue_records_failures_and_keeps_every_other_run() {
    let reg = registry();
    let spec = flaky_spec("continue", 16);
    assert_eq!(spec.on_error, OnError::Continue);
    let e = Experiment::new(spec.clone(), &reg).unwrap();
    let r = run_on(2, &e).unwrap();
    let failures = r.failures();
    // P(all 16 succeed or all fail) = 2·2⁻¹⁶: with this seed some fail and some finish (checked, not assumed).
    assert!(!failures.is_empty() && failures.len() < 16, "{} failures", failures.len());
    for f in failures {
        assert_eq!((f.id.algorithm, f.label.as_str(), f.step), (1, "flaky", 4));
        assert!(f.error.contains("test solver") && f.error.contains("InsufficientProgress"), "{}", f.error);
    }
    // Every run of the spec is either finished (T steps) or failed, once.
    assert_eq!(r.runs().len() + failures.len(), 32);
    assert!(r.runs().iter().all(|x| x.steps.len() == 10));
    // A failed run is the same failure when run alone, and a finished run the same record: results
    // do not depend on which runs failed beside them, nor on the thread count.
    let alone = e.run_one(failures[0].id).unwrap_err();
    assert!(alone.to_string().contains("step 4"), "{alone}");
    let one_thread = run_on(1, &e).unwrap();
    assert_eq!(one_thread.failures(), failures);
    assert!(one_thread.to_csv(Timing::Omit) == r.to_csv(Timing::Omit));
    // The summary is over the finished runs and lists the failures.
    let s = r.summary().unwrap();
    assert_eq!(s.algorithms[0].runs, 16);
    assert_eq!(s.algorithms[1].runs, 16 - failures.len());
    assert_eq!(s.failures, failures);
    assert!(s.markdown_table().contains("failed"));
    let back = Summary::from_json(&s.to_json().unwrap()).unwrap();
    assert_eq!(back.failures, failures);
    // Results::with_failures refuses a run that is both finished and failed, or missing.
    let mut dup = failures.to_vec();
    dup.push(FailedRun { id: r.runs()[0].id, label: "uniform".into(), step: 1, error: "x".into() });
    assert!(Results::with_failures(spec.clone(), "", r.runs().to_vec(), dup).is_err());
    assert!(Results::with_failures(spec.clone(), "", r.runs()[1..].to_vec(), failures.to_vec()).is_err());
    assert!(Results::new(spec, "", r.runs().to_vec()).is_err(), "failed runs are missing from `new`");
}

#[test]
fn on_error_stop_ends_with_the_failure_and_keeps_finished_runs() {
    let reg = registry();
    let spec = flaky_spec("stop", 16);
    let e = Experiment::new(spec, &reg).unwrap();
    let handed = std::sync::Mutex::new(Vec::new());
    let outcome = e.run_tasks(&e.tasks(), &|r| handed.lock().unwrap().push(r.id), &|_| {});
    assert!(!outcome.failures.is_empty());
    // Every task is accounted for once; each finished run was handed out as it finished.
    assert_eq!(outcome.runs.len() + outcome.failures.len() + outcome.not_started.len(), 32);
    let mut handed = handed.into_inner().unwrap();
    handed.sort();
    let mut finished: Vec<RunId> = outcome.runs.iter().map(|r| r.id).collect();
    finished.sort();
    assert_eq!(handed, finished);
    let n_finished = outcome.runs.len();
    match e.gather(outcome).unwrap_err() {
        ExperimentError::Stopped { failure, finished, not_started } => {
            assert_eq!(finished.len(), n_finished);
            assert!(finished.windows(2).all(|w| w[0].id < w[1].id));
            assert_eq!(failure.step, 4);
            let msg = ExperimentError::Stopped { failure, finished, not_started }.to_string();
            assert!(msg.contains("algorithm `flaky`") && msg.contains("on_error") && msg.contains("kept"), "{msg}");
        }
        other => panic!("expected Stopped, got {other}"),
    }
    // The default is "stop", and is not written to TOML.
    let default = ExperimentSpec::from_toml_str(SMALL).unwrap();
    assert_eq!(default.on_error, OnError::Stop);
    assert!(!default.to_toml_string().unwrap().contains("on_error"));
    assert!(flaky_spec("continue", 2).to_toml_string().unwrap().contains("on_error = \"continue\""));
    let bad =
        ExperimentSpec::from_toml_str(&SMALL.replace("seed = 11", "seed = 11\non_error = \"retry\"")).unwrap_err();
    assert!(bad.to_string().contains("on_error") || bad.to_string().contains("retry"), "{bad}");
}

// ---------------------------------------------------------------------------------------------
// Bounds, names and memory (issue 10, items 1, 2 and 7)

#[test]
fn huge_sizes_are_refused_with_the_field_and_the_bound() {
    let base = SMALL.to_string();
    let huge = "9223372036854775807";
    for (from, to, field, bound) in [
        ("horizon = 25", format!("horizon = {huge}"), "horizon", limits::MAX_HORIZON),
        ("runs = 4", format!("runs = {huge}"), "runs", limits::MAX_RUNS),
        ("points = 12", format!("points = {huge}"), "problem.points", limits::MAX_CANDIDATES),
    ] {
        let s = ExperimentSpec::from_toml_str(&base.replace(from, &to)).unwrap();
        let e = s.validate(&registry()).unwrap_err();
        assert_eq!(e.field(), Some(field), "{e}");
        assert!(e.to_string().contains(&bound.to_string()), "the bound is named: {e}");
    }
    let fun = |extra: &str| {
        format!(
            "name = \"x\"\nhorizon = 1\nruns = 1\nalgorithms = [{{ name = \"uniform\" }}]\n[problem]\nkind = \
             \"function\"\nfunction = \"ackley\"\n{extra}"
        )
    };
    assert_eq!(field_of(&fun(&format!("dim = {huge}"))), "problem.dim");
    assert_eq!(field_of(&fun(&format!("dim = 2\npoints_per_dim = {huge}"))), "problem.points_per_dim");
    // 10^(10 × 1000) grid points: the product is checked, not computed.
    assert_eq!(field_of(&fun("dim = 1000\npoints_per_dim = 10")), "problem.points_per_dim");
    // Many algorithms.
    let many = format!(
        "name = \"x\"\nhorizon = 1\nruns = 1\n[problem]\nkind = \"rkhs\"\n{}",
        "[[algorithms]]\nname = \"uniform\"\n".repeat(limits::MAX_ALGORITHMS + 1)
    );
    assert_eq!(field_of(&many), "algorithms");
}

#[test]
fn names_must_be_plain_file_names() {
    for bad in ["../../x", "/tmp/x", "a/b", "a\\b", "..", ".", ".hidden", "", "  ", "a\nb", "c:x", " x"] {
        let text = SMALL.replacen("name = \"small\"", &format!("name = {}", toml::Value::String(bad.into())), 1);
        let s = ExperimentSpec::from_toml_str(&text).unwrap();
        assert_eq!(s.name, bad, "the test replaced the name");
        let e = s.validate(&registry()).unwrap_err();
        assert_eq!(e.field(), Some("name"), "{bad:?}: {e}");
    }
    let long = "n".repeat(limits::MAX_NAME_LEN + 1);
    let s =
        ExperimentSpec::from_toml_str(&SMALL.replacen("name = \"small\"", &format!("name = \"{long}\""), 1)).unwrap();
    assert_eq!(s.validate(&registry()).unwrap_err().field(), Some("name"));
    for good in ["pf-ts ackley", "fig4_rkhs", "Ünïcode-name", "a.b"] {
        let text = SMALL.replacen("name = \"small\"", &format!("name = \"{good}\""), 1);
        ExperimentSpec::from_toml_str(&text).unwrap().validate(&registry()).unwrap();
    }
}

#[test]
fn the_memory_estimate_names_the_dominant_allocation() {
    let text = "name = \"x\"\nhorizon = 10\nruns = 1\n[problem]\nkind = \"rkhs\"\npoints = 100000\n\
                [[algorithms]]\nname = \"pf-ts\"\n[[algorithms]]\nname = \"random\"\n";
    let s = ExperimentSpec::from_toml_str(text).unwrap();
    let b = Registry::builtin();
    let e = s.memory_estimate(&b, 100_000, 1, 1);
    // PF-TS: two n×n matrices of f64 (Gram and sampling factor) = 2 × 8 × 10^10 bytes.
    assert!(e.total() >= 160_000_000_000, "{}", e.total());
    assert_eq!(e.parts()[0].bytes, 80_000_000_000);
    assert!(e.parts()[0].what.contains("pf-ts on 100000 candidates needs an n×n Gram"), "{:?}", e.parts()[0]);
    // Two runs at once need twice the algorithm's part.
    assert_eq!(s.memory_estimate(&b, 100_000, 1, 2).parts()[0].bytes, 160_000_000_000);
    // Random duels alone need no n×n matrix.
    let r = ExperimentSpec::from_toml_str(&text.replace("name = \"pf-ts\"\n[[algorithms]]\n", "")).unwrap();
    assert!(r.memory_estimate(&b, 100_000, 1, 1).total() < 100_000_000);
    // A horizon of 10^8 with 10^6 runs: the step records alone are beyond any machine, and the
    // product does not overflow.
    let mut big = s.clone();
    big.horizon = limits::MAX_HORIZON;
    big.runs = limits::MAX_RUNS;
    assert!(big.memory_estimate(&b, 100_000, 1, 1).total() > 10u128.pow(16));
    // 10^6 candidates (8 TB per Gram) are refused by validation with the size and the reason.
    let huge = ExperimentSpec::from_toml_str(&text.replace("points = 100000", "points = 1000000")).unwrap();
    let err = huge.validate(&b).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ExperimentError::Memory { .. }), "{msg}");
    assert!(msg.contains("pf-ts on 1000000 candidates needs an n×n Gram") && msg.contains("8.0 TB"), "{msg}");
    assert!(msg.contains("BOHF_MEMORY_LIMIT"), "{msg}");
}
