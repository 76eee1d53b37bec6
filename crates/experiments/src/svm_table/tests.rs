//! Tests of the SVM table and its cache, on a tiny synthetic MAGIC-format file (the real
//! tabulation takes minutes; `bohf reproduce compgpucb-fig1c-svm` runs it).

use super::*;
use crate::testing::{registry, scratch_dir, tiny_data};
use crate::{ComparisonSource, Experiment, ExperimentSpec, ProblemSpec};
use std::sync::Mutex;

fn problem(data: PathBuf, cache: Option<PathBuf>) -> SvmProblem {
    SvmProblem {
        data,
        seed: 3,
        points_per_dim: 3,
        train: 30,
        validation: 20,
        comparison_train: 10,
        cache,
        inputs: Default::default(),
    }
}

/// Notes collected, for the tests to look at.
struct Notes(Mutex<Vec<String>>);

impl Notes {
    fn new() -> Self {
        Notes(Mutex::new(Vec::new()))
    }
    fn all(&self) -> String {
        self.0.lock().unwrap().join("\n")
    }
}

fn table(p: &SvmProblem, notes: &Notes) -> (SvmTable, CacheOutcome) {
    svm_table(p, &|m| notes.0.lock().unwrap().push(m.to_string())).unwrap()
}

fn bits(g: &GridFunction) -> Vec<u64> {
    g.values().iter().map(|v| v.to_bits()).collect()
}

#[test]
fn the_table_is_the_tasks_accuracies_on_the_log_grid() {
    let dir = scratch_dir("svm-table-values");
    let p = problem(tiny_data(&dir, 60), None);
    let notes = Notes::new();
    let (t, outcome) = table(&p, &notes);
    assert_eq!(outcome, CacheOutcome::Disabled);
    assert!(notes.all().contains("6 of 18 trainings") || notes.all().contains("18 of 18"), "{}", notes.all());
    // The grid: 3 points per axis of [−3, 1] × [−1, 5], i.e. {−3, −1, 1} × {−1, 2, 5}, each once.
    let g = t.high.domain();
    assert_eq!(g.len(), 9);
    let mut coords: Vec<(i64, i64)> =
        (0..9).map(|i| g.coords(i).unwrap()).map(|x| (x[0].round() as i64, x[1].round() as i64)).collect();
    coords.sort();
    let want: Vec<(i64, i64)> = [-3, -1, 1].iter().flat_map(|&h| [-1, 2, 5].map(|c| (h, c))).collect();
    assert_eq!(coords, want);
    // Each value is the accuracy of a fresh task (its own split and SVM) at that point.
    let data = load_magic(&p.data).unwrap();
    let high = SvmTask::from_split(&data, 3, 30, 20, 10, Fidelity::High).unwrap();
    let low = SvmTask::from_split(&data, 3, 30, 20, 10, Fidelity::Low).unwrap();
    for i in 0..9 {
        let x = g.coords(i).unwrap();
        assert_eq!(t.high.values()[i].to_bits(), high.accuracy(x[0], x[1]).unwrap().to_bits(), "f at {x:?}");
        assert_eq!(t.low.values()[i].to_bits(), low.accuracy(x[0], x[1]).unwrap().to_bits(), "f_c at {x:?}");
        // Accuracies on 20 validation rows: multiples of 1/20.
        assert!((t.high.values()[i] * 20.0 - (t.high.values()[i] * 20.0).round()).abs() < 1e-9);
    }
    // The fidelities differ somewhere (10 vs 30 training rows).
    assert_ne!(bits(&t.high), bits(&t.low));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_table_does_not_depend_on_the_thread_count() {
    let dir = scratch_dir("svm-table-threads");
    let p = problem(tiny_data(&dir, 60), None);
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| table(&p, &Notes::new()).0)
    };
    let (one, three) = (run(1), run(3));
    assert_eq!(bits(&one.high), bits(&three.high));
    assert_eq!(bits(&one.low), bits(&three.low));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_cache_is_hit_and_a_mismatching_or_corrupt_file_is_rebuilt() {
    let dir = scratch_dir("svm-table-cache");
    let cache = dir.join("cache");
    let p = problem(tiny_data(&dir, 60), Some(cache.clone()));
    let fresh = table(&problem(p.data.clone(), None), &Notes::new()).0;

    // First call: built and written.
    let (t1, o1) = table(&p, &Notes::new());
    let CacheOutcome::Built(file) = o1 else { panic!("{o1:?}") };
    assert!(file.starts_with(&cache) && file.is_file());
    assert_eq!(bits(&t1.high), bits(&fresh.high));
    // Second call: read back, bit for bit, without tabulating (no progress line).
    let notes = Notes::new();
    let (t2, o2) = table(&p, &notes);
    assert_eq!(o2, CacheOutcome::Hit(file.clone()));
    assert!(!notes.all().contains("tabulating"), "{}", notes.all());
    assert_eq!((bits(&t2.high), bits(&t2.low)), (bits(&fresh.high), bits(&fresh.low)));

    // Another split seed: another key, another file (the first is not used for it).
    let other = SvmProblem { seed: 4, ..p.clone() };
    let (_, o3) = table(&other, &Notes::new());
    assert!(matches!(&o3, CacheOutcome::Built(f) if *f != file), "{o3:?}");

    // A corrupt file (one digit changed): the checksum fails; warned, rebuilt, rewritten.
    let text = std::fs::read_to_string(&file).unwrap();
    let row = text.lines().nth(2).unwrap().to_string();
    let bad_row = row.replacen("0.", "9.", 1);
    std::fs::write(&file, text.replacen(&row, &bad_row, 1)).unwrap();
    let notes = Notes::new();
    let (t4, o4) = table(&p, &notes);
    assert!(matches!(&o4, CacheOutcome::Rebuilt(f, why) if *f == file && why.contains("checksum")), "{o4:?}");
    assert!(notes.all().contains("warning: ignoring the SVM table cache"), "{}", notes.all());
    assert_eq!(bits(&t4.high), bits(&fresh.high));
    assert_eq!(table(&p, &Notes::new()).1, CacheOutcome::Hit(file.clone()));

    // A file with a valid checksum but another key (e.g. other SMO options written by another
    // version): rebuilt.
    let text = std::fs::read_to_string(&file).unwrap();
    let body = strip_checksum_line(&text).unwrap().replacen("seed=3", "seed=9", 1);
    std::fs::write(&file, with_checksum_line(&body)).unwrap();
    let (_, o5) = table(&p, &Notes::new());
    assert!(matches!(&o5, CacheOutcome::Rebuilt(_, why) if why.contains("key differs")), "{o5:?}");

    // A valid checksum and key but a wrong value (outside [0, 1]) or a row missing: rebuilt.
    let text = std::fs::read_to_string(&file).unwrap();
    let body = strip_checksum_line(&text).unwrap().to_string();
    let row = body.lines().nth(2).unwrap().to_string();
    let mut fields: Vec<&str> = row.split(',').collect();
    fields[2] = "1.5";
    std::fs::write(&file, with_checksum_line(&body.replacen(&row, &fields.join(","), 1))).unwrap();
    let (t6, o6) = table(&p, &Notes::new());
    assert!(matches!(&o6, CacheOutcome::Rebuilt(_, why) if why.contains("outside")), "{o6:?}");
    assert_eq!(bits(&t6.high), bits(&fresh.high));
    let short: String = body.lines().take(5).map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, with_checksum_line(&short)).unwrap();
    let (_, o7) = table(&p, &Notes::new());
    assert!(matches!(&o7, CacheOutcome::Rebuilt(_, why) if why.contains("rows")), "{o7:?}");
    // Garbage: rebuilt.
    std::fs::write(&file, "not a table").unwrap();
    assert!(matches!(table(&p, &Notes::new()).1, CacheOutcome::Rebuilt(..)));
    // The data file changed (one more record): another key, so the old table is not used.
    let changed = SvmProblem { data: tiny_data(&dir, 61), ..p.clone() };
    assert!(matches!(table(&changed, &Notes::new()).1, CacheOutcome::Built(f) if f != file));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_short_or_malformed_data_file_is_an_error_naming_it() {
    let dir = scratch_dir("svm-table-errors");
    let missing = problem(dir.join("nope.data"), None);
    let e = svm_table(&missing, &|_| {}).unwrap_err().to_string();
    assert!(e.contains("nope.data"), "{e}");
    // 40 records, but the split needs 30 + 20.
    let short = problem(tiny_data(&dir, 40), None);
    let e = svm_table(&short, &|_| {}).unwrap_err().to_string();
    assert!(e.contains("tiny-magic.data") && e.contains("40 records") && e.contains("problem.train"), "{e}");
    let bad = dir.join("bad.data");
    std::fs::write(&bad, "1,2,3,g\n").unwrap();
    let e = svm_table(&problem(bad, None), &|_| {}).unwrap_err().to_string();
    assert!(e.contains("bad.data") && e.contains("line 1"), "{e}");
    // Through the experiment: the same error.
    let text = format!(
        "name = \"s\"\nhorizon = 3\nruns = 1\nalgorithms = [{{ name = \"uniform\" }}]\n[problem]\nkind = \"svm\"\ndata = {:?}\n",
        dir.join("nope.data").display().to_string()
    );
    let e = Experiment::new(ExperimentSpec::from_toml_str(&text).unwrap(), &registry()).unwrap_err();
    assert!(e.to_string().contains("nope.data"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A spec of the tiny SVM problem with `extra` problem lines.
fn spec_text(data: &Path, extra: &str) -> String {
    format!(
        "name = \"s\"\nhorizon = 30\nruns = 2\nseed = 5\n[problem]\nkind = \"svm\"\ndata = {:?}\nseed = 3\n\
         points_per_dim = 3\ntrain = 30\nvalidation = 20\ncomparison_train = 10\n{extra}\n[respondent]\n\
         model = \"deterministic\"\nnoise_sd = 0.0\ncomparisons = \"low-fidelity\"\n[budget]\ntotal = 5.0\nduel = 0.5\n\
         evaluate = 1.0\n[[algorithms]]\nname = \"gp-ucb\"\n[algorithms.params]\ninitial_budget = 2.0\n\
         [[algorithms]]\nname = \"kss\"\n[algorithms.params]\ninitial_budget = 1.0\n",
        data.display().to_string()
    )
}

#[test]
fn the_kind_parses_validates_and_answers_duels_from_f_c() {
    let dir = scratch_dir("svm-kind");
    let data = tiny_data(&dir, 60);
    let spec = ExperimentSpec::from_toml_str(&spec_text(&data, "")).unwrap();
    let ProblemSpec::Svm(p) = &spec.problem else { panic!("{:?}", spec.problem) };
    assert_eq!((p.points_per_dim, p.cache.as_ref()), (3, None));
    // The defaults are the paper's split.
    let minimal: ExperimentSpec = toml::from_str(
        "name = \"m\"\nhorizon = 1\nruns = 1\nalgorithms = [{ name = \"random\" }]\n[problem]\nkind = \"svm\"\n\
         data = \"magic04.data\"\n",
    )
    .unwrap();
    let ProblemSpec::Svm(m) = &minimal.problem else { panic!() };
    assert_eq!((m.train, m.validation, m.comparison_train, m.points_per_dim, m.seed), (2000, 500, 500, 20, 0));
    assert_eq!(minimal.problem.validate().unwrap(), Some((400, 2)));
    // Bad grids and splits name their field.
    for (extra, field) in [
        ("points_per_dim = 1", "problem.points_per_dim"),
        ("points_per_dim = 0", "problem.points_per_dim"),
        ("points_per_dim = 100000", "problem.points_per_dim"),
        ("validation = 0", "problem.validation"),
        ("comparison_train = 40", "problem.comparison_train"),
        ("data = \"\"", "problem.data"),
    ] {
        let text = minimal.to_toml_string().unwrap().replace("[problem]\n", &format!("[problem]\n{extra}\n"));
        let text = if extra.starts_with("data") { text.replacen("data = \"magic04.data\"\n", "", 1) } else { text };
        let text = if extra.starts_with("points") { text.replacen("points_per_dim = 20\n", "", 1) } else { text };
        let text = if extra.starts_with("validation") { text.replacen("validation = 500\n", "", 1) } else { text };
        let text =
            if extra.starts_with("comparison") { text.replacen("comparison_train = 500\n", "", 1) } else { text };
        let text = text.replace("train = 2000", "train = 30");
        let s: ExperimentSpec = toml::from_str(&text).unwrap_or_else(|e| panic!("{extra}: {e}\n{text}"));
        let e = s.problem.validate().unwrap_err().to_string();
        assert!(e.contains(field), "{extra}: {e}");
    }
    // An unknown field is refused by name.
    let e = ExperimentSpec::from_toml_str(&spec_text(&data, "bandwidth = 1.0")).unwrap_err().to_string();
    assert!(e.contains("bandwidth"), "{e}");

    // Built: the utility is f on the grid, duels are answered from f_c (test algorithms in place of
    // the spec's, which bohf-registry's tests build).
    let test_algorithms = spec_text(&data, "")
        .replace("name = \"gp-ucb\"", "name = \"uniform-values\"")
        .replace("name = \"kss\"", "name = \"uniform-mixed\"");
    let e = Experiment::new(ExperimentSpec::from_toml_str(&test_algorithms).unwrap(), &registry()).unwrap();
    let (t, _) = svm_table(p, &|_| {}).unwrap();
    assert_eq!(bits(e.problem().utility().unwrap()), bits(&t.high));
    assert!(e.title().contains("SVM") && e.title().contains("low fidelity"), "{}", e.title());
    assert_eq!(spec.respondent.comparisons, ComparisonSource::LowFidelity);
    let mut r = e.problem().respondent().unwrap();
    let (lo, hi) = (t.low.values(), t.high.values());
    // A pair where f and f_c order the points differently, if any: the duel follows f_c.
    if let Some((i, j)) =
        (0..9).flat_map(|i| (0..9).map(move |j| (i, j))).find(|&(i, j)| lo[i] > lo[j] && hi[i] < hi[j])
    {
        let g = e.problem().candidates().unwrap();
        let q = bohf_core::Query::Duel(g.point(i).unwrap(), g.point(j).unwrap());
        let mut rng = bohf_core::rng::seeded(1);
        for _ in 0..5 {
            let a = bohf_problems::respondents::Respondent::answer(&mut r, &q, &mut rng).unwrap();
            assert_eq!(a, bohf_core::Answer::Duel { first_wins: true });
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn relative_data_and_cache_paths_resolve_against_the_spec_file() {
    let dir = scratch_dir("svm-paths");
    std::fs::create_dir_all(dir.join("specs")).unwrap();
    let data = tiny_data(&dir, 60);
    let text = spec_text(Path::new("../tiny-magic.data"), "cache = \"../c\"");
    std::fs::write(dir.join("specs/s.toml"), text).unwrap();
    let spec = ExperimentSpec::from_file(dir.join("specs/s.toml")).unwrap();
    assert_eq!(spec.problem.data_path().unwrap(), dir.join("specs/../tiny-magic.data"));
    let ProblemSpec::Svm(p) = &spec.problem else { panic!() };
    assert_eq!(p.cache.as_deref(), Some(dir.join("specs/../c").as_path()));
    // The stored spec makes them absolute; the default cache sits beside the results folder.
    let stored = crate::folder::stored_spec(spec.clone());
    assert_eq!(stored.problem.data_path().unwrap(), std::fs::canonicalize(&data).unwrap());
    let mut no_cache = spec.clone();
    if let ProblemSpec::Svm(p) = &mut no_cache.problem {
        p.cache = None;
    }
    let with = crate::folder::with_default_cache(no_cache, &dir.join("results/s"));
    let ProblemSpec::Svm(p) = &with.problem else { panic!() };
    assert_eq!(p.cache.as_deref(), Some(dir.join("results/.svm-cache").as_path()));
    // A cache already given is kept.
    let kept = crate::folder::with_default_cache(spec.clone(), &dir.join("results/s"));
    assert_eq!(kept, spec);
    let _ = std::fs::remove_dir_all(&dir);
}
