use super::*;

#[test]
fn shard_syntax() {
    assert_eq!(parse_shard("0/4"), Ok((0, 4)));
    assert_eq!(parse_shard(" 3 / 4 "), Ok((3, 4)));
    for bad in ["4/4", "1/0", "1", "a/2", "1/b", "-1/2"] {
        assert!(parse_shard(bad).is_err(), "{bad}");
    }
}

#[test]
fn spec_differences_name_the_top_level_fields() {
    let text = "name = \"x\"\nhorizon = 5\nruns = 2\n[problem]\nkind = \"ackley\"\n[[algorithms]]\nname = \"uniform-values\"\n";
    let a = ExperimentSpec::from_toml_str(text).unwrap();
    let mut b = a.clone();
    assert!(spec_differences(&a, &b).is_empty());
    b.seed = 9;
    b.runs = 3;
    assert_eq!(spec_differences(&a, &b), ["runs", "seed"]);
    let mut c = a.clone();
    c.algorithms[0].params.insert("beta".into(), toml::Value::Float(1.0));
    assert_eq!(spec_differences(&a, &c), ["algorithms"]);
}

/// A progress that stops the call after `after` finished runs.
struct StopAfter(usize, AtomicUsize);

impl FolderProgress for StopAfter {
    fn finished(&self, _k: usize, _total: usize, _record: &RunRecord) {
        self.1.fetch_add(1, Ordering::SeqCst);
    }
    fn cancelled(&self) -> bool {
        self.1.load(Ordering::SeqCst) >= self.0
    }
}

/// An experiment of 3 runs of `uniform` on Ackley (T = 4) and an emptied temporary folder for it.
fn three_uniform_runs(tag: &str) -> (Experiment, PathBuf) {
    let text =
        "name = \"x\"\nhorizon = 4\nruns = 3\n[problem]\nkind = \"ackley\"\n[[algorithms]]\nname = \"uniform\"\n";
    let spec = ExperimentSpec::from_toml_str(text).unwrap();
    let experiment = Experiment::new(spec, &crate::testing::registry()).unwrap();
    let base = std::env::temp_dir().join(format!("bohf-folder-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    (experiment, base)
}

#[test]
fn a_cancelled_run_keeps_its_finished_runs_and_resume_completes_it_identically() {
    let (experiment, base) = three_uniform_runs("cancel");
    let opts =
        |dir: &str, resume| RunOptions { out: base.join(dir), threads: 1, shard: None, resume, checkpoint_every: None };
    let e = run_experiment(&experiment, &opts("a", false), &StopAfter(1, AtomicUsize::new(0))).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("interrupted: 1 run(s)") && e.contains("2 not started") && e.contains("--resume"), "{e}");
    let saved = std::fs::read_dir(base.join("a/runs")).unwrap().count();
    assert_eq!(saved, 1, "the finished run is saved");
    let Outcome::Complete(resumed) = run_experiment(&experiment, &opts("a", true), &Quiet).unwrap() else {
        panic!("not complete")
    };
    let Outcome::Complete(whole) = run_experiment(&experiment, &opts("b", false), &Quiet).unwrap() else {
        panic!("not complete")
    };
    let csv = |r: &Results| r.runs().iter().map(|r| r.to_csv(Timing::Omit)).collect::<Vec<_>>();
    assert_eq!(csv(&resumed), csv(&whole));
    std::fs::remove_dir_all(&base).unwrap();
}
#[test]
fn a_resume_may_append_algorithms_and_nothing_else() {
    let text = |algs: &str| format!("name = \"x\"\nhorizon = 4\nruns = 2\n[problem]\nkind = \"ackley\"\n{algs}");
    let one = "[[algorithms]]\nname = \"uniform\"\n";
    let two = format!("{one}[[algorithms]]\nname = \"uniform-values\"\n");
    let spec = |t: &str| ExperimentSpec::from_toml_str(t).unwrap();
    let (a, b) = (spec(&text(one)), spec(&text(&two)));
    assert!(appends_algorithms(&a, &b));
    assert!(!appends_algorithms(&b, &a), "removing an algorithm is not appending");
    assert!(!appends_algorithms(&a, &a));
    // Inserting before, changing an entry, or changing anything else: not an extension.
    let swapped = spec(&text("[[algorithms]]\nname = \"uniform-values\"\n[[algorithms]]\nname = \"uniform\"\n"));
    assert!(!appends_algorithms(&a, &swapped));
    let mut c = b.clone();
    c.runs = 3;
    assert!(!appends_algorithms(&a, &c));

    let base = std::env::temp_dir().join(format!("bohf-folder-append-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let opts = |dir: &str, resume, shard| RunOptions {
        out: base.join(dir),
        threads: 1,
        shard,
        resume,
        checkpoint_every: None,
    };
    let registry = crate::testing::registry();
    let (ea, eb) = (Experiment::new(a, &registry).unwrap(), Experiment::new(b.clone(), &registry).unwrap());
    run_experiment(&ea, &opts("old", false, None), &Quiet).unwrap();
    // Without --resume, or as a shard, the folder of the shorter spec is refused.
    let e = run_experiment(&eb, &opts("old", false, None), &Quiet).unwrap_err().to_string();
    assert!(e.contains("different spec") && e.contains("algorithms"), "{e}");
    let e = run_experiment(&eb, &opts("old", true, Some((0, 2))), &Quiet).unwrap_err().to_string();
    assert!(e.contains("different spec"), "{e}");
    let before = std::fs::read(base.join("old/runs/a0-r1.csv")).unwrap();
    let Outcome::Complete(extended) = run_experiment(&eb, &opts("old", true, None), &Quiet).unwrap() else {
        panic!("not complete")
    };
    // The old runs are untouched, the spec replaced, and the whole equals a fresh run of it.
    assert_eq!(std::fs::read(base.join("old/runs/a0-r1.csv")).unwrap(), before);
    assert_eq!(
        spec_differences(&read_stored_spec(&base.join("old"), &registry).unwrap(), &stored_spec(b)),
        Vec::<String>::new()
    );
    let Outcome::Complete(fresh) = run_experiment(&eb, &opts("new", false, None), &Quiet).unwrap() else {
        panic!("not complete")
    };
    let csv = |r: &Results| r.runs().iter().map(|r| r.to_csv(Timing::Omit)).collect::<Vec<_>>();
    assert_eq!(csv(&extended).len(), 4);
    assert_eq!(csv(&extended), csv(&fresh));
    std::fs::remove_dir_all(&base).unwrap();
}

/// Each whole call that finishes runs adds its wall time and count to `wall_time.csv`
/// ([`recorded_wall_time`]), so a panel's time adds up over an interrupted call and its resume; a
/// resume with nothing left to run adds nothing; a shard writes nothing; a damaged line is
/// skipped and kept.
#[test]
fn the_folder_adds_up_the_wall_time_of_its_calls() {
    let (experiment, base) = three_uniform_runs("walltime");
    let opts = |dir: &str, resume, shard| RunOptions {
        out: base.join(dir),
        threads: 1,
        shard,
        resume,
        checkpoint_every: None,
    };
    let lines =
        |dir: &str| std::fs::read_to_string(base.join(dir).join("wall_time.csv")).map_or(0, |t| t.lines().count());
    assert_eq!(recorded_wall_time(&base.join("a")), WallTime::default(), "no folder: nothing recorded");
    run_experiment(&experiment, &opts("a", false, None), &StopAfter(1, AtomicUsize::new(0))).unwrap_err();
    let first = recorded_wall_time(&base.join("a"));
    assert_eq!((first.runs, lines("a")), (1, 2), "header and the interrupted call's line");
    assert!(first.seconds >= 0.0);
    run_experiment(&experiment, &opts("a", true, None), &Quiet).unwrap();
    let both = recorded_wall_time(&base.join("a"));
    assert_eq!((both.runs, lines("a")), (3, 3));
    assert!(both.seconds >= first.seconds);
    // Nothing left to run: nothing added.
    run_experiment(&experiment, &opts("a", true, None), &Quiet).unwrap();
    assert_eq!(recorded_wall_time(&base.join("a")), both);
    // A damaged line is skipped, and kept by the next call.
    let path = base.join("a").join("wall_time.csv");
    let damaged = format!("{}NaN,2\n1.5\n-1,4\nx,y\n", std::fs::read_to_string(&path).unwrap());
    std::fs::write(&path, &damaged).unwrap();
    assert_eq!(recorded_wall_time(&base.join("a")), both);
    std::fs::remove_file(base.join("a/runs/a0-r2.csv")).unwrap();
    run_experiment(&experiment, &opts("a", true, None), &Quiet).unwrap();
    assert!(std::fs::read_to_string(&path).unwrap().starts_with(&damaged));
    assert_eq!(recorded_wall_time(&base.join("a")).runs, 4);
    // Shards record nothing.
    run_experiment(&experiment, &opts("s", false, Some((0, 2))), &Quiet).unwrap();
    assert_eq!((recorded_wall_time(&base.join("s")), lines("s")), (WallTime::default(), 0));
    std::fs::remove_dir_all(&base).unwrap();
}
