//! `bohf run` against hostile input and concurrent use (issue 10): huge sizes and memory, path
//! escapes, a second process on one folder, kill -9 at several points, damaged run files, exit
//! codes, thread counts. Every test runs the real binary.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_bohf");

mod common;
use common::TempDir;

fn bohf_env(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).current_dir(dir);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the binary runs")
}

fn bohf(args: &[&str], dir: &Path) -> Output {
    bohf_env(args, dir, &[])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exits with 1 (not a panic, not an abort) and a message without a backtrace.
fn refused(o: &Output) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "expected exit 1, got {:?}: {e}", o.status);
    assert!(!e.contains("panicked") && !e.contains("backtrace"), "{e}");
    e
}

/// PF-TS and random duels on 1-D Ackley.
fn spec_text(name: &str, runs: usize, horizon: usize) -> String {
    format!(
        "name = \"{name}\"\nhorizon = {horizon}\nruns = {runs}\nseed = 5\n\
         [problem]\nkind = \"ackley\"\npoints = 25\nsign = \"negated\"\nscaling = \"none\"\n\
         [[algorithms]]\nname = \"pf-ts\"\n[[algorithms]]\nname = \"random\"\n"
    )
}

/// The run files of a folder without timings and checksum lines (the deterministic part), by name.
fn deterministic_runs(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .map(|n| {
            let text = std::fs::read_to_string(dir.join("runs").join(&n)).unwrap();
            let last = text.lines().last().unwrap();
            assert!(last.starts_with("# checksum fnv1a64:"), "{n} ends with {last:?}");
            let body: Vec<&str> =
                text.lines().filter(|l| !l.starts_with('#')).map(|l| l.rsplit_once(',').unwrap().0).collect();
            assert!(body[0].ends_with("simple_utility_gap"), "{}", body[0]);
            (n, body.join("\n"))
        })
        .collect();
    out.sort();
    out
}

/// Finished run files (temporary files start with a dot).
fn finished_runs(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("runs"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".csv") && !n.starts_with('.'))
                .count()
        })
        .unwrap_or(0)
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("runs"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".tmp-"))
                .collect()
        })
        .unwrap_or_default()
}

fn spawn_run(dir: &Path, out: &str, resume: bool) -> Child {
    let mut args = vec!["run", "spec.toml", "--out", out, "--threads", "1"];
    if resume {
        args.push("--resume");
    }
    Command::new(BIN).args(&args).current_dir(dir).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap()
}

/// Waits until `pred` holds (or 120 s pass).
fn wait_for(pred: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    while !pred() {
        if start.elapsed() > Duration::from_secs(120) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    true
}

#[test]
fn huge_sizes_and_memory_are_refused_before_allocating() {
    let tmp = TempDir::new("huge");
    let huge = "9223372036854775807";
    for (from, to, field) in [
        ("horizon = 10", format!("horizon = {huge}"), "horizon"),
        ("runs = 2", format!("runs = {huge}"), "runs"),
        ("points = 25", format!("points = {huge}"), "problem.points"),
    ] {
        std::fs::write(tmp.join("s.toml"), spec_text("h", 2, 10).replace(from, &to)).unwrap();
        let e = refused(&bohf(&["run", "s.toml"], &tmp.0));
        assert!(e.contains(&format!("`{field}`")) && e.contains("at most"), "{e}");
    }
    // 10^5 candidates with PF-TS: two n×n matrices of 80 GB each; under a 16 GiB limit it is refused
    // with the size and the reason, and nothing is written.
    let text = spec_text("h", 1, 10).replace("kind = \"ackley\"\npoints = 25", "kind = \"rkhs\"\npoints = 100000");
    let text = text.replace("sign = \"negated\"\n", "");
    std::fs::write(tmp.join("s.toml"), text).unwrap();
    let e = refused(&bohf_env(&["run", "s.toml"], &tmp.0, &[("BOHF_MEMORY_LIMIT", "16G")]));
    assert!(e.contains("pf-ts on 100000 candidates needs an n×n Gram") && e.contains("80.0 GB"), "{e}");
    assert!(e.contains("BOHF_MEMORY_LIMIT=16G"), "the limit's source is named: {e}");
    assert!(!tmp.join("results").exists());
    // 10^7 runs of T = 10^5 (step records of some 10^14 bytes).
    std::fs::write(
        tmp.join("s.toml"),
        spec_text("h", 2, 10).replace("runs = 2", "runs = 1000000").replace("horizon = 10", "horizon = 100000"),
    )
    .unwrap();
    let e = refused(&bohf_env(&["run", "s.toml"], &tmp.0, &[("BOHF_MEMORY_LIMIT", "16G")]));
    assert!(e.contains("the step records (1000000 runs × 2 algorithms × T = 100000)"), "{e}");
    // A limit that is not a byte count is named.
    std::fs::write(tmp.join("s.toml"), spec_text("h", 1, 3)).unwrap();
    let e = refused(&bohf_env(&["run", "s.toml"], &tmp.0, &[("BOHF_MEMORY_LIMIT", "lots")]));
    assert!(e.contains("BOHF_MEMORY_LIMIT") && e.contains("lots"), "{e}");
}

#[test]
fn a_name_cannot_escape_the_results_folder() {
    let tmp = TempDir::new("escape");
    std::fs::create_dir_all(tmp.join("work")).unwrap();
    for name in ["../../x", "/tmp/bohf-escape-x", "..", ".x", "a/b"] {
        std::fs::write(tmp.join("work/s.toml"), spec_text(name, 1, 2)).unwrap();
        let e = refused(&bohf(&["run", "s.toml"], &tmp.join("work")));
        assert!(e.contains("`name`") && e.contains("plain file name"), "{name}: {e}");
    }
    assert!(!Path::new("/tmp/bohf-escape-x").exists());
    assert_eq!(std::fs::read_dir(&tmp.0).unwrap().count(), 1, "nothing was written beside work/");
    assert!(!tmp.join("work/results").exists());
}

#[test]
fn a_second_process_on_one_folder_is_refused_with_the_pid() {
    let tmp = TempDir::new("lock");
    std::fs::write(tmp.join("spec.toml"), spec_text("lock", 400, 150)).unwrap();
    let mut first = spawn_run(&tmp.0, "out", false);
    let lock = tmp.join("out/.lock");
    let pid = first.id().to_string();
    assert!(wait_for(|| std::fs::read_to_string(&lock).is_ok_and(|t| t.trim() == pid)), "no lock file");
    for args in [&["run", "spec.toml", "--out", "out", "--resume"][..], &["run", "spec.toml", "--out", "out"][..]] {
        let e = refused(&bohf(args, &tmp.0));
        assert!(e.contains("`out`") && e.contains(&format!("(pid {pid})")), "{args:?}: {e}");
    }
    assert!(first.try_wait().unwrap().is_none(), "the first process was still running");
    first.kill().unwrap();
    first.wait().unwrap();
    // The OS released the lock with the process: a resume goes ahead.
    let o = bohf(&["run", "spec.toml", "--out", "out", "--resume", "--shard", "0/400"], &tmp.0);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn kill_9_at_several_points_then_resume_equals_an_uninterrupted_run() {
    let tmp = TempDir::new("kill");
    std::fs::write(tmp.join("spec.toml"), spec_text("kill", 5, 600)).unwrap();
    let whole = bohf(&["run", "spec.toml", "--out", "whole", "--threads", "2"], &tmp.0);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let killed = tmp.join("killed");
    // Kill at 0 finished runs (at once), and as soon as 2, 5 and 7 of 10 are written. T = 600 keeps a
    // run long enough (tens of ms) that the last kill lands before the other 3 runs finish.
    let mut stale_seen = 0;
    for (k, target) in [0usize, 2, 5, 7].into_iter().enumerate() {
        let mut child = spawn_run(&tmp.0, "killed", k > 0);
        if target == 0 {
            std::thread::sleep(Duration::from_millis(30));
        } else {
            assert!(wait_for(|| finished_runs(&killed) >= target), "run {target} never finished");
        }
        child.kill().unwrap();
        child.wait().unwrap();
        // A temporary file as a kill between create and rename leaves it (the kills above may also).
        std::fs::create_dir_all(killed.join("runs")).unwrap();
        std::fs::write(killed.join(format!("runs/.a1-r{k}.tmp-99999{k}.csv")), "algorithm,run\npf").unwrap();
        stale_seen += temp_files(&killed).len();
    }
    assert!(finished_runs(&killed) < 10, "every run finished before the last kill");
    let o = bohf(&["run", "spec.toml", "--out", "killed", "--resume"], &tmp.0);
    let log = stderr(&o);
    assert!(o.status.success(), "{log}");
    assert!(stale_seen >= 4);
    assert!(log.contains("stale temporary file(s)") && log.contains("nothing else changed"), "{log}");
    assert_eq!(log.matches("stale temporary").count(), 1, "said in one line: {log}");
    assert!(temp_files(&killed).is_empty(), "{:?}", temp_files(&killed));
    let (a, b) = (deterministic_runs(&tmp.join("whole")), deterministic_runs(&killed));
    assert_eq!(a.len(), 10);
    assert_eq!(a, b);
}

#[test]
fn a_changed_digit_in_a_run_file_is_detected_moved_aside_and_redone() {
    let tmp = TempDir::new("damaged");
    std::fs::write(tmp.join("spec.toml"), spec_text("dmg", 2, 20)).unwrap();
    let o = bohf(&["run", "spec.toml", "--out", "out"], &tmp.0);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = deterministic_runs(&tmp.join("out"));
    let path = tmp.join("out/runs/a0-r1.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    // Change one digit of the regret column of step 3 (the file still parses as CSV).
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let fields: Vec<&str> = lines[3].split(',').collect();
    let regret = fields[7];
    let pos = regret.find(|c: char| c.is_ascii_digit() && c != '0').unwrap();
    let mut changed = regret.to_string();
    changed.replace_range(pos..=pos, if &regret[pos..=pos] == "9" { "8" } else { "9" });
    lines[3] = lines[3].replacen(regret, &changed, 1);
    let damaged = lines.join("\n") + "\n";
    assert_ne!(damaged, text);
    std::fs::write(&path, &damaged).unwrap();
    let o = bohf(&["run", "spec.toml", "--out", "out", "--resume"], &tmp.0);
    let log = stderr(&o);
    assert!(o.status.success(), "{log}");
    assert!(log.contains("a0-r1.csv") && log.contains("damaged") && log.contains("1 to do"), "{log}");
    assert_eq!(std::fs::read_to_string(tmp.join("out/runs/a0-r1.csv.damaged")).unwrap(), damaged, "kept as it was");
    assert_eq!(deterministic_runs(&tmp.join("out")), before, "the run was redone, the same");
    // A run file with its checksum line removed is not reused either; a second damage of the same
    // file does not overwrite the first `.damaged`.
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = &text[..text.trim_end().rfind('\n').unwrap() + 1];
    std::fs::write(&path, cut).unwrap();
    let o = bohf(&["run", "spec.toml", "--out", "out", "--resume"], &tmp.0);
    assert!(o.status.success() && stderr(&o).contains("checksum"), "{}", stderr(&o));
    assert!(tmp.join("out/runs/a0-r1.csv.damaged.2").exists());
    assert_eq!(deterministic_runs(&tmp.join("out")), before);
}

/// `steps.csv` (the combined copy of the run files for other tools) is checked against the checksum
/// recorded in summary.json by every command that reads the folder's results (`bohf summary`,
/// `bohf plot`); a changed digit is reported by name and `bohf merge` writes it again from `runs/`.
/// A summary without the record (an older bohf's folder) and a folder without steps.csv still load.
#[test]
fn a_changed_digit_in_steps_csv_is_detected_and_merge_rewrites_it() {
    let tmp = TempDir::new("damaged-steps");
    std::fs::write(tmp.join("spec.toml"), spec_text("steps", 2, 6)).unwrap();
    assert!(bohf(&["run", "spec.toml", "--out", "out", "--threads", "1"], &tmp.0).status.success());
    let good = bohf(&["summary", "out"], &tmp.0);
    assert!(good.status.success(), "{}", stderr(&good));
    let path = tmp.join("out/steps.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    // One digit of the regret column of the third row (it still parses as CSV, same length).
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let regret = lines[3].split(',').nth(7).unwrap().to_string();
    let pos = regret.find(|c: char| c.is_ascii_digit() && c != '0').unwrap();
    let mut changed = regret.clone();
    changed.replace_range(pos..=pos, if &regret[pos..=pos] == "9" { "8" } else { "9" });
    lines[3] = lines[3].replacen(&regret, &changed, 1);
    let damaged = lines.join("\n") + "\n";
    assert_ne!(damaged, text);
    std::fs::write(&path, &damaged).unwrap();
    for args in [&["summary", "out"][..], &["plot", "out"][..]] {
        let e = refused(&bohf(args, &tmp.0));
        assert!(e.contains("steps.csv") && e.contains("changed") && e.contains("bohf merge"), "{args:?}: {e}");
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), damaged, "a check never rewrites the file");
    let o = bohf(&["merge", "out"], &tmp.0);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), text.lines().count());
    let again = bohf(&["summary", "out"], &tmp.0);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(again.stdout, good.stdout);
    // An older folder: no checksum recorded, so nothing to verify against.
    std::fs::write(&path, &damaged).unwrap();
    let summary_path = tmp.join("out/summary.json");
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&summary_path).unwrap()).unwrap();
    assert!(json["steps_csv"].as_str().is_some_and(|s| s.starts_with("fnv1a64:")), "{}", json["steps_csv"]);
    json.as_object_mut().unwrap().remove("steps_csv");
    std::fs::write(&summary_path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    assert!(bohf(&["summary", "out"], &tmp.0).status.success());
    // No steps.csv at all: the summary is still valid.
    assert!(bohf(&["merge", "out"], &tmp.0).status.success());
    std::fs::remove_file(&path).unwrap();
    let o = bohf(&["summary", "out"], &tmp.0);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2_and_other_errors_1() {
    let tmp = TempDir::new("exit");
    assert_eq!(bohf(&["run"], &tmp.0).status.code(), Some(2));
    assert_eq!(bohf(&["frobnicate"], &tmp.0).status.code(), Some(2));
    assert_eq!(bohf(&["run", "s.toml", "--threads", "x"], &tmp.0).status.code(), Some(2));
    assert_eq!(bohf(&["run", "missing.toml"], &tmp.0).status.code(), Some(1));
}

#[test]
fn absurd_thread_counts_get_a_clear_error() {
    let tmp = TempDir::new("threads");
    std::fs::write(tmp.join("s.toml"), spec_text("t", 1, 2)).unwrap();
    let o = bohf(&["run", "s.toml", "--threads", "100000"], &tmp.0);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--threads") && e.contains("1024") && !e.contains("backtrace"), "{e}");
}

#[test]
fn an_experiment_whose_every_run_failed_exits_non_zero_and_t_1_plots() {
    let tmp = TempDir::new("allfailed");
    // POP-BO with a 2-iteration limit fails its first conic solve in every run.
    std::fs::write(
        tmp.join("s.toml"),
        "name = \"f\"\nhorizon = 3\nruns = 2\non_error = \"continue\"\n[problem]\nkind = \"ackley\"\npoints = 9\n\
         [[algorithms]]\nname = \"pop-bo\"\n[algorithms.params.confidence]\nmax_iterations = 2\n",
    )
    .unwrap();
    let e = refused(&bohf(&["run", "s.toml", "--out", "o"], &tmp.0));
    assert!(e.contains("every run failed (2 failure(s)") && e.contains("nothing to summarise or plot"), "{e}");
    assert!(tmp.join("o/runs/a0-r1.failed").is_file(), "the failures are kept");
    assert!(!tmp.join("o/summary.json").exists());
    // T = 1 runs, summarises and plots (PNG and SVG) with a whole-step axis.
    std::fs::write(tmp.join("one.toml"), spec_text("one", 2, 1)).unwrap();
    let o = bohf(&["run", "one.toml", "--out", "one"], &tmp.0);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(tmp.join("one/regret_cumulative.svg")).unwrap();
    let labels: Vec<&str> = svg.lines().filter(|l| l.trim().parse::<f64>().is_ok()).collect();
    assert!(labels.contains(&"1") && !labels.contains(&"2") && !labels.contains(&"1.2"), "x ticks: {labels:?}");
    let o = bohf(&["plot", "one", "--metric", "simple", "--out", "s.svg"], &tmp.0);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_quick_reproduction_stores_no_quick_title_and_links_only_what_exists() {
    let tmp = TempDir::new("quick");
    let o = bohf(&["reproduce", "pfts-fig2-ackley", "--quick", "--runs", "1", "--out", "q"], &tmp.0);
    assert!(o.status.success(), "{}", stderr(&o));
    let spec = std::fs::read_to_string(tmp.join("q/spec.toml")).unwrap();
    assert!(!spec.contains("quick"), "the stored spec carries no quick mark:\n{spec}");
    let md = std::fs::read_to_string(tmp.join("q/pfts-fig2-ackley.md")).unwrap();
    assert!(md.contains("Quick smoke test"), "{md}");
    for link in md.split("](").skip(1).map(|r| r.split(')').next().unwrap()) {
        if !link.contains("://") && !link.starts_with('#') {
            assert!(tmp.join("q").join(link).exists(), "the report links to `{link}`, which is not there");
        }
    }
    let svg = std::fs::read_to_string(tmp.join("q/pfts-fig2-ackley-cumulative.svg")).unwrap();
    assert!(svg.contains("[quick: T = 40, 1 runs]"), "the report's plots are marked");
}

#[test]
fn repeated_csv_column_names_are_refused_not_dropped() {
    let tmp = TempDir::new("dupcols");
    std::fs::write(tmp.join("beans.csv"), "name,roast,acidity,roast\nA,1,2,3\nB,2,3,4\nC,3,1,2\n").unwrap();
    std::fs::write(
        tmp.join("coffee.toml"),
        "name = \"c\"\nbudget = 3\nseed = 1\n[candidates]\ncsv = \"beans.csv\"\n[algorithm]\nname = \"random\"\n",
    )
    .unwrap();
    let e = refused(&bohf(&["ask", "new", "s.json", "--spec", "coffee.toml"], &tmp.0));
    assert!(e.contains("beans.csv") && e.contains("column 2 and column 4 both `roast`"), "{e}");
    assert!(!tmp.join("s.json").exists());
}

#[test]
fn shards_share_a_folder_but_not_with_a_whole_run_or_their_twin() {
    let tmp = TempDir::new("shardlock");
    std::fs::write(tmp.join("spec.toml"), spec_text("sl", 400, 150)).unwrap();
    let mut first = Command::new(BIN)
        .args(["run", "spec.toml", "--out", "out", "--threads", "1", "--shard", "0/2"])
        .current_dir(&tmp.0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = first.id().to_string();
    let own = tmp.join("out/.lock-shard-0-of-2");
    assert!(wait_for(|| std::fs::read_to_string(&own).is_ok_and(|t| t.trim() == pid)), "no shard lock");
    // The same shard again, and a whole run, are refused while shard 0/2 works.
    let e = refused(&bohf(&["run", "spec.toml", "--out", "out", "--shard", "0/2", "--resume"], &tmp.0));
    assert!(e.contains("shard 0/2") && e.contains(&pid), "{e}");
    let e = refused(&bohf(&["run", "spec.toml", "--out", "out", "--resume"], &tmp.0));
    assert!(e.contains("`out`") && e.contains("in use"), "{e}");
    // Another shard works beside it (a shard of 2 of the 800 runs, to stay short).
    let o = bohf(&["run", "spec.toml", "--out", "out", "--shard", "399/400", "--resume"], &tmp.0);
    // 399/400 is a different shard count: it has its own shard lock and shares the folder lock.
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(first.try_wait().unwrap().is_none(), "shard 0/2 was still running");
    first.kill().unwrap();
    first.wait().unwrap();
}

#[test]
fn merge_checks_the_stored_spec_before_sizing_anything() {
    let tmp = TempDir::new("mergehuge");
    std::fs::write(tmp.join("spec.toml"), spec_text("m", 1, 3)).unwrap();
    let o = bohf(&["run", "spec.toml", "--out", "out"], &tmp.0);
    assert!(o.status.success(), "{}", stderr(&o));
    let stored = std::fs::read_to_string(tmp.join("out/spec.toml")).unwrap();
    assert!(stored.contains("runs = 1\n"), "{stored}");
    std::fs::write(tmp.join("out/spec.toml"), stored.replace("runs = 1\n", "runs = 9223372036854775807\n")).unwrap();
    let e = refused(&bohf(&["merge", "out"], &tmp.0));
    assert!(e.contains("spec.toml") && e.contains("`runs`"), "{e}");
}
