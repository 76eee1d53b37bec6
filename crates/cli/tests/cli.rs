//! Tests that run the `bohf` binary: resume after a kill, shards, merge, reproduce presets, plots
//! and summaries, `ask --json` against the library, damaged sessions, and the error messages of bad
//! specs. Horizons are small so that the suite stays fast.

use bohf_core::{Answer, FiniteDomain, Query, SearchContext, rng};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_bohf");

fn bohf(args: &[&str], dir: &Path) -> Output {
    Command::new(BIN).args(args).current_dir(dir).output().expect("the binary runs")
}

/// Runs `bohf ARGS` in `dir` with `input` on its standard input; its standard output.
fn with_input(args: &[&str], dir: &Path, input: &[u8]) -> String {
    let mut child =
        Command::new(BIN).args(args).current_dir(dir).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

fn ok(args: &[&str], dir: &Path) -> String {
    let out = bohf(args, dir);
    assert!(
        out.status.success(),
        "bohf {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fails(args: &[&str], dir: &Path) -> String {
    let out = bohf(args, dir);
    assert!(!out.status.success(), "bohf {args:?} should have failed");
    String::from_utf8(out.stderr).unwrap()
}

/// `steps.csv` without its last column (`elapsed_s`, the only non-deterministic one).
fn deterministic_steps(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("steps.csv")).unwrap();
    let lines: Vec<String> = text.lines().map(|l| l.rsplit_once(',').unwrap().0.to_string()).collect();
    assert!(lines[0].ends_with("simple_utility_gap"), "{}", lines[0]);
    lines.join("\n")
}

/// PF-TS and random duels on 1-D Ackley: 2 algorithms × `runs` runs of T steps.
fn spec_text(runs: usize, horizon: usize, seed: u64) -> String {
    format!(
        "name = \"small\"\nhorizon = {horizon}\nruns = {runs}\nseed = {seed}\n\
         [problem]\nkind = \"ackley\"\npoints = 25\nsign = \"negated\"\nscaling = \"none\"\n\
         [[algorithms]]\nname = \"pf-ts\"\n[[algorithms]]\nname = \"random\"\n"
    )
}

#[test]
fn resume_after_kill_equals_an_uninterrupted_run() {
    let tmp = TempDir::new("resume");
    std::fs::write(tmp.join("spec.toml"), spec_text(6, 100, 3)).unwrap();
    ok(&["run", "spec.toml", "--out", "whole", "--threads", "2"], &tmp.0);

    // Start again into another folder on one thread and kill it once some runs are written.
    let mut child = Command::new(BIN)
        .args(["run", "spec.toml", "--out", "killed", "--threads", "1"])
        .current_dir(&tmp.0)
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let runs_dir = tmp.join("killed/runs");
    let count = || {
        std::fs::read_dir(&runs_dir)
            .map(|d| d.filter_map(|e| e.ok()).filter(|e| !e.file_name().to_string_lossy().starts_with('.')).count())
            .unwrap_or(0)
    };
    let start = Instant::now();
    while count() < 2 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let finished = count();
    assert!(finished >= 2, "no run finished before the kill");
    assert!(finished < 12, "all 12 runs finished before the kill: the test did not interrupt anything");
    assert!(!tmp.join("killed/steps.csv").exists());

    // Without --resume the folder is refused; with it the finished runs are skipped.
    let e = fails(&["run", "spec.toml", "--out", "killed"], &tmp.0);
    assert!(e.contains("--resume"), "{e}");
    let out = bohf(&["run", "spec.toml", "--out", "killed", "--resume"], &tmp.0);
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains(&format!("{} to do, {finished} already finished (skipped)", 12 - finished)), "{log}");
    assert_eq!(deterministic_steps(&tmp.join("whole")), deterministic_steps(&tmp.join("killed")));
}

#[test]
fn box_runs_resume_shard_and_thread_like_finite_ones() {
    let tmp = TempDir::new("box");
    let example = include_str!("../../../docs/examples/box-branin.toml");
    std::fs::write(tmp.join("spec.toml"), example.replace("horizon = 8", "horizon = 4")).unwrap();
    let checked = ok(&["check", "spec.toml"], &tmp.0);
    assert!(checked.contains("domain: a box [-5, 10] × [0, 15]"), "{checked}");
    ok(&["run", "spec.toml", "--out", "whole", "--threads", "2"], &tmp.0);
    let steps = deterministic_steps(&tmp.join("whole"));
    // Points are recorded by coordinates (`x1;x2`), in every point column.
    let row: Vec<&str> = steps.lines().nth(1).unwrap().split(',').collect();
    for k in [4, 5, 9] {
        assert_eq!(row[k].split(';').filter_map(|v| v.parse::<f64>().ok()).count(), 2, "{row:?}");
    }
    // One thread gives the same steps.
    ok(&["run", "spec.toml", "--out", "one", "--threads", "1"], &tmp.0);
    assert_eq!(steps, deterministic_steps(&tmp.join("one")));
    // An interrupted run: some run files written, nothing else. Resuming runs the others only and
    // gives the uninterrupted results; the kept run files are untouched.
    let runs = tmp.join("whole/runs");
    let killed = tmp.join("killed/runs");
    std::fs::create_dir_all(&killed).unwrap();
    let kept = ["a0-r0.csv", "a0-r2.csv", "a1-r1.csv"];
    for f in kept {
        std::fs::copy(runs.join(f), killed.join(f)).unwrap();
    }
    let out = bohf(&["run", "spec.toml", "--out", "killed", "--resume"], &tmp.0);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("3 to do, 3 already finished (skipped)"), "{log}");
    assert_eq!(steps, deterministic_steps(&tmp.join("killed")));
    for f in kept {
        assert_eq!(std::fs::read(runs.join(f)).unwrap(), std::fs::read(killed.join(f)).unwrap(), "{f}");
    }
    // A box run file whose coordinates were edited is caught by its checksum, moved aside and
    // run again.
    let damaged = tmp.join("damaged/runs");
    std::fs::create_dir_all(&damaged).unwrap();
    let text = std::fs::read_to_string(runs.join("a0-r1.csv")).unwrap();
    let first_coordinate = text.lines().nth(1).unwrap().split(',').nth(4).unwrap().to_string();
    std::fs::write(damaged.join("a0-r1.csv"), text.replacen(&first_coordinate, "0.5;0.5", 1)).unwrap();
    let out = bohf(&["run", "spec.toml", "--out", "damaged", "--resume"], &tmp.0);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && log.contains("a0-r1.csv") && log.contains("is damaged"), "{log}");
    assert!(damaged.join("a0-r1.csv.damaged").exists());
    assert_eq!(steps, deterministic_steps(&tmp.join("damaged")));
    // Shards merged = the unsharded run.
    ok(&["run", "spec.toml", "--out", "s0", "--shard", "0/2"], &tmp.0);
    ok(&["run", "spec.toml", "--out", "s1", "--shard", "1/2"], &tmp.0);
    ok(&["merge", "s0", "s1", "--out", "merged"], &tmp.0);
    assert_eq!(steps, deterministic_steps(&tmp.join("merged")));
    // A finite-only algorithm on the box is refused naming both.
    std::fs::write(tmp.join("bad.toml"), example.replace("name = \"pop-bo\"", "name = \"pf-ts\"").replace(
        "[algorithms.params]\nconfidence = { norm_bound = 3.0 }\n[algorithms.params.box_search] # the continuous outer search (box problems only)\nsamples = 100\nstarts = 2\niterations = 4\n",
        "",
    ))
    .unwrap();
    let e = fails(&["check", "bad.toml"], &tmp.0);
    assert!(
        e.contains("algorithms[0].name")
            && e.contains("`pf-ts` works on a finite candidate set only; the problem is a box"),
        "{e}"
    );
}

#[test]
fn two_shards_merged_equal_the_unsharded_run_and_mixed_specs_are_refused() {
    let tmp = TempDir::new("shards");
    std::fs::write(tmp.join("spec.toml"), spec_text(3, 15, 5)).unwrap();
    std::fs::write(tmp.join("other.toml"), spec_text(3, 15, 6)).unwrap();
    ok(&["run", "spec.toml", "--out", "whole"], &tmp.0);
    let s0 = ok(&["run", "spec.toml", "--out", "s0", "--shard", "0/2"], &tmp.0);
    assert!(s0.contains("shard done (3 runs)"), "{s0}");
    ok(&["run", "spec.toml", "--out", "s1", "--shard", "1/2"], &tmp.0);
    // A shard alone is not a result set.
    let e = fails(&["merge", "s0", "--out", "partial"], &tmp.0);
    assert!(e.contains("3 of 6 runs are missing"), "{e}");
    let m = ok(&["merge", "s0", "s1", "--out", "merged"], &tmp.0);
    assert!(m.contains("merged 6 runs"), "{m}");
    assert_eq!(deterministic_steps(&tmp.join("whole")), deterministic_steps(&tmp.join("merged")));

    // Shards writing into one folder (a SLURM array): the last one to finish writes the results.
    ok(&["run", "spec.toml", "--out", "shared", "--shard", "1/2"], &tmp.0);
    ok(&["run", "spec.toml", "--out", "shared", "--shard", "0/2"], &tmp.0);
    assert_eq!(deterministic_steps(&tmp.join("whole")), deterministic_steps(&tmp.join("shared")));

    // A different seed is a different spec: refused, naming the field.
    ok(&["run", "other.toml", "--out", "o1", "--shard", "1/2"], &tmp.0);
    let e = fails(&["merge", "s0", "o1", "--out", "mixed"], &tmp.0);
    assert!(e.contains("refusing to merge results of different specs") && e.contains("seed"), "{e}");
    let e = fails(&["run", "other.toml", "--out", "s0", "--shard", "0/2"], &tmp.0);
    assert!(e.contains("different spec") && e.contains("seed"), "{e}");
    let e = fails(&["run", "spec.toml", "--shard", "2/2"], &tmp.0);
    assert!(e.contains("0 <= K < N"), "{e}");
}

#[test]
fn reproduce_quick_writes_spec_report_plots_and_summaries() {
    let tmp = TempDir::new("reproduce");
    let list = ok(&["reproduce", "--list"], &tmp.0);
    for name in ["mrlpf-fig1a-rkhs-se", "mrlpf-fig1f-ackley-matern32", "pfts-fig2-catalyst", "pfts-fig4-rkhs"] {
        assert!(list.contains(name), "{list}");
    }
    assert!(list.contains("Figure 4"));
    let out = ok(&["reproduce", "pfts-fig4-rkhs", "--quick", "--runs", "2", "--out", "r"], &tmp.0);
    assert!(out.contains("PF-TS") && out.contains("GP-TS (scalar)"), "{out}");
    let r = tmp.join("r");
    // The spec written next to the results is the one that ran, and runs again as it is.
    let spec = bohf_experiments::ExperimentSpec::from_file(r.join("spec.toml")).unwrap();
    assert_eq!((spec.horizon, spec.runs, spec.name.as_str()), (40, 2, "pfts-fig4-rkhs"));
    for f in ["pfts-fig4-rkhs.md", "pfts-fig4-rkhs-cumulative.png", "steps.csv", "summary.json"] {
        assert!(r.join(f).exists(), "{f}");
    }
    let md = std::fs::read_to_string(r.join("pfts-fig4-rkhs.md")).unwrap();
    assert!(md.contains("bohf reproduce pfts-fig4-rkhs --quick --runs 2"), "{md}");
    assert!(md.contains("PF-TS < MR-LPF"));

    let csv = ok(&["summary", "r", "--format", "csv"], &tmp.0);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 6, "{csv}"); // header + PF-TS, MR-LPF, MaxMinLCB, GP-TS, POP-BO
    assert!(rows[1].starts_with("PF-TS,2,"));
    let md = ok(&["summary", "r", "--format", "markdown"], &tmp.0);
    assert!(md.starts_with("| algorithm |"));
    let table = ok(&["summary", "r"], &tmp.0);
    assert!(table.contains("R(T)") && table.contains("MaxMinLCB"));
    ok(&["plot", "r", "--out", "simple.svg", "--metric", "simple"], &tmp.0);
    let svg = std::fs::read_to_string(tmp.join("simple.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("PF-TS"));
    let e = fails(&["plot", "r", "--out", "x.pdf"], &tmp.0);
    assert!(e.contains(".png or .svg"), "{e}");
    let e = fails(&["reproduce", "pfts-fig4-rkh"], &tmp.0);
    assert!(e.contains("did you mean `pfts-fig4-rkhs`"), "{e}");
}

#[test]
fn reproduce_quick_of_a_cobol_preset_writes_its_report_with_the_claims() {
    let tmp = TempDir::new("reproduce-cobol");
    let list = ok(&["reproduce", "--list"], &tmp.0);
    for name in ["cobol-expa-ackley4-a1", "cobol-expb-rastrigin2", "cobol-expc-ackley4-eta", "cobol-pmv-thermal4"] {
        assert!(list.contains(name), "{list}");
    }
    assert!(list.contains("COBOL paper (Xu, Adachi, Jones & Osborne 2024), Experiment B (Fig. 4, 8)"), "{list}");
    ok(&["reproduce", "cobol-expb-rastrigin2", "--quick", "--runs", "2", "--out", "r"], &tmp.0);
    let r = tmp.join("r");
    for f in [
        "cobol-expb-rastrigin2.md",
        "cobol-expb-rastrigin2.cobol.json",
        "cobol-expb-rastrigin2-simple.png",
        "cobol-expb-rastrigin2-queries.svg",
        "cobol-expb-rastrigin2-sum-simple.png",
        "steps.csv",
    ] {
        assert!(r.join(f).exists(), "{f}");
    }
    let md = std::fs::read_to_string(r.join("cobol-expb-rastrigin2.md")).unwrap();
    assert!(md.contains("bohf reproduce cobol-expb-rastrigin2 --quick --runs 2"), "{md}");
    // The claims section, with each of the spec's claims and the rules stated.
    assert!(md.contains("## The paper's claims on this panel"), "{md}");
    for claim in ["| COBOL best |", "| COBOL < vanilla LCB |", "| COBOL hands over |", "**Handover**"] {
        assert!(md.contains(claim), "{claim}: {md}");
    }
    // g_thr of every algorithm, and the table against f-evaluations.
    assert!(md.contains("| COBOL | `cobol` | 0.1 | 3 |"), "{md}");
    assert!(md.contains("| vanilla LCB | `vanilla-lcb` | — (never asks) |"), "{md}");
    assert!(md.contains("SR at k = "), "{md}");
    let panel = bohf_reproduce::CobolPanel::from_json(
        &std::fs::read_to_string(r.join("cobol-expb-rastrigin2.cobol.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(panel.rows.len(), 4);
    // The quick horizon (40 queries) stops every run before k = 50 f-evaluations: k stays 50, the
    // runs are listed apart, and the claims are not judged.
    assert!(panel.quick && panel.k == 50, "{panel:?}");
    assert!(panel.rows.iter().all(|row| (row.runs, row.stopped) == (0, 2) && row.at_k.is_none()), "{panel:?}");
    assert_eq!(panel.stopped.len(), 8, "{panel:?}");
    assert!(md.contains("Runs stopped before k = 50 f-evaluations") && md.contains("not judged: no run of"), "{md}");
    // Vanilla LCB and random search never ask the expert; expert sampling asks before evaluating.
    let q = |l: &str| panel.stopped.iter().filter(|s| s.label == l).map(|s| s.labels).sum::<usize>() as f64;
    assert_eq!((q("vanilla LCB"), q("random search")), (0.0, 0.0));
    // A budget run ends when its budget is spent: the summary says where its values are read.
    let table = ok(&["summary", "r"], &tmp.0);
    assert!(table.contains("budget Λ = ") && table.contains("at each run's end"), "{table}");
    assert!(!table.contains("at the horizon"), "{table}");
    assert!(q("expert sampling") > 0.0);
}

#[test]
fn reproduce_finds_presets_in_the_specs_folder_and_names_bad_ones() {
    let tmp = TempDir::new("reproduce-specs");
    // The default folder is the source tree's specs/: POP-BO's Table 2 is a preset like the others.
    let list = ok(&["reproduce", "--list"], &tmp.0);
    assert!(list.contains("popbo-table2") && list.contains("POP-BO paper (Xu et al. 2024), Table 2"), "{list}");
    // --specs DIR: the presets are that folder's spec files; paper and figure come from [reproduces].
    let dir = tmp.join("mine");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = "name = \"zz\"\ntitle = \"Z\"\nhorizon = 3\nruns = 1\n[reproduces]\npaper = \"mrlpf\"\nfigure = \"Figure 7\"\n\
                [problem]\nkind = \"rkhs\"\npoints = 5\n[[algorithms]]\nname = \"random\"\n";
    std::fs::write(dir.join("zz.toml"), spec).unwrap();
    let list = ok(&["reproduce", "--list", "--specs", "mine"], &tmp.0);
    assert!(list.contains("zz") && list.contains("MR-LPF paper (Kayal et al. 2025), Figure 7: Z"), "{list}");
    assert!(!list.contains("pfts-fig4-rkhs"), "{list}");
    ok(&["reproduce", "zz", "--specs", "mine", "--out", "zz-out"], &tmp.0);
    assert!(tmp.join("zz-out/zz.md").exists());
    // An unknown paper names the file and the field.
    std::fs::write(dir.join("zz.toml"), spec.replace("\"mrlpf\"", "\"nature\"")).unwrap();
    let e = fails(&["reproduce", "--list", "--specs", "mine"], &tmp.0);
    assert!(e.contains("zz.toml") && e.contains("reproduces.paper") && e.contains("`nature`"), "{e}");
    // A missing folder says how to point at one.
    let e = fails(&["reproduce", "--list", "--specs", "nowhere"], &tmp.0);
    assert!(e.contains("nowhere") && e.contains("--specs DIR"), "{e}");
}

#[test]
fn leaderboard_runs_a_suite_folder_writes_the_page_and_resumes() {
    let tmp = TempDir::new("leaderboard");
    let dir = tmp.join("suite");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = "name = \"tiny\"\nhorizon = 3\nruns = 2\ninitial_duels = 2\n[problem]\nkind = \"rkhs\"\npoints = 6\n\
                [[algorithms]]\nname = \"random\"\n[[algorithms]]\nname = \"maxminlcb\"\n";
    std::fs::write(dir.join("tiny.toml"), spec).unwrap();
    let out = ok(&["leaderboard", "--specs", "suite", "--out", "runs", "--page", "page", "-j", "1"], &tmp.0);
    assert!(out.contains("page: page/leaderboard.md"), "{out}");
    let md = std::fs::read_to_string(tmp.join("page/leaderboard.md")).unwrap();
    assert!(md.contains("Generated by `bohf leaderboard --page page`"), "{md}");
    assert!(md.contains("| [tiny](#tiny) |") && md.contains("(`maxminlcb`)"), "{md}");
    assert!(tmp.join("page/leaderboard/tiny-gap.png").exists());
    assert!(tmp.join("page/leaderboard/tiny-cumulative-gap.svg").exists());
    assert!(tmp.join("runs/tiny/summary.json").exists());
    // A second run needs --resume (the folder holds finished runs); with it, the same values.
    let e = fails(&["leaderboard", "--specs", "suite", "--out", "runs", "--page", "page"], &tmp.0);
    assert!(e.contains("--resume"), "{e}");
    ok(&["leaderboard", "--specs", "suite", "--out", "runs", "--page", "page2", "--resume"], &tmp.0);
    let again = std::fs::read_to_string(tmp.join("page2/leaderboard.md")).unwrap();
    // The rankings (the problem's wall time above them differs).
    let table = |m: &str| m.split("**By the final").nth(1).unwrap().split("**Wall time").next().unwrap().to_string();
    assert_eq!(table(&md), table(&again));
    // An unknown problem lists the suite.
    let e = fails(&["leaderboard", "tiny2", "--specs", "suite"], &tmp.0);
    assert!(e.contains("unknown problem `tiny2`") && e.contains("did you mean `tiny`?"), "{e}");
}

#[test]
fn leaderboard_skips_a_problem_without_data_and_a_partial_call_merges_into_the_page() {
    let tmp = TempDir::new("leaderboard-merge");
    let dir = tmp.join("suite");
    std::fs::create_dir_all(&dir).unwrap();
    let tiny = |name: &str| {
        format!(
            "name = \"{name}\"\nhorizon = 3\nruns = 2\ninitial_duels = 2\n[problem]\nkind = \"rkhs\"\npoints = 6\n\
             [[algorithms]]\nname = \"random\"\n"
        )
    };
    std::fs::write(dir.join("a.toml"), tiny("a")).unwrap();
    std::fs::write(dir.join("b.toml"), tiny("b")).unwrap();
    // The leaderboard's catalyst spec, its data file not in the suite folder.
    let catalyst =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../specs/leaderboard/catalyst.toml")).unwrap();
    let head = catalyst.split("[[algorithms]]").next().unwrap();
    let head = head
        .replace("../../../shared/data/ocx24/ExpDataDump_241113_clean.csv", "nodata/ocx24/data.csv")
        .replace("name = \"catalyst\"", "name = \"c\"");
    std::fs::write(dir.join("c.toml"), format!("{head}[[algorithms]]\nname = \"random\"\n")).unwrap();
    let args = ["--specs", "suite", "--out", "runs", "--page", "page", "-j", "1"];
    // Named on the command line, the missing data stops the command before anything runs.
    let e = fails(&[&["leaderboard", "c"][..], &args].concat(), &tmp.0);
    assert!(
        e.contains("c: its data file") && e.contains("nodata/ocx24/data.csv") && e.contains("nothing was run"),
        "{e}"
    );
    assert!(!tmp.join("runs").exists() && !tmp.join("page").exists());
    // The whole suite: c is skipped with a note (terminal and page), a and b run; success.
    let out = bohf(&[&["leaderboard"][..], &args].concat(), &tmp.0);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("c: skipped: its data file"), "{err}");
    let md = std::fs::read_to_string(tmp.join("page/leaderboard.md")).unwrap();
    assert!(md.contains("> - `c`: its data file") && md.contains("## a:") && md.contains("## b:"), "{md}");
    // `--resume a`: a's board is rebuilt, b stays on the page, c is still noted.
    ok(&[&["leaderboard", "a", "--resume"][..], &args].concat(), &tmp.0);
    let md = std::fs::read_to_string(tmp.join("page/leaderboard.md")).unwrap();
    assert!(md.contains("## a:") && md.contains("## b:") && md.contains("> - `c`:"), "{md}");
    assert!(md.contains("Generated by `bohf leaderboard --page page a`"), "{md}");
    // --data pointing at a folder without the file: named in the error.
    let e = fails(&[&["leaderboard", "c", "--data", "elsewhere"][..], &args].concat(), &tmp.0);
    assert!(e.contains("elsewhere/data.csv"), "{e}");
}

#[test]
fn bad_specs_give_useful_errors() {
    let tmp = TempDir::new("errors");
    let base = "name = \"x\"\nhorizon = 5\nruns = 1\n";
    let cases: [(&str, String, &[&str]); 5] = [
        ("syntax.toml", format!("{base}[problem\nkind = \"rkhs\"\n"), &["syntax.toml", "line 4, column 9"]),
        (
            "kind.toml",
            format!("{base}[problem]\nkind = \"ackly\"\n[[algorithms]]\nname = \"pf-ts\"\n"),
            &["kind.toml", "line 5", "unknown variant `ackly`", "`rkhs`, `ackley`", "did you mean `ackley`?"],
        ),
        (
            "alg.toml",
            format!("{base}[problem]\nkind = \"ackley\"\n[[algorithms]]\nname = \"pfts\"\n"),
            &["algorithms[0].name", "did you mean `pf-ts`?", "valid names: pf-ts, mr-lpf, maxminlcb"],
        ),
        (
            "data.toml",
            format!(
                "{base}[problem]\nkind = \"catalyst\"\npath = \"nowhere/data.csv\"\n[[algorithms]]\nname = \"pf-ts\"\n"
            ),
            &["nowhere/data.csv", "No such file"],
        ),
        (
            "function.toml",
            format!("{base}[problem]\nkind = \"function\"\nfunction = \"brannin\"\n[[algorithms]]\nname = \"pf-ts\"\n"),
            &["unknown test function `brannin`", "hartmann3", "did you mean `branin`?"],
        ),
    ];
    for (file, text, wants) in &cases {
        std::fs::write(tmp.join(file), text).unwrap();
        let e = fails(&["run", file, "--out", "o"], &tmp.0);
        for w in *wants {
            assert!(e.contains(w), "{file}: `{w}` not in:\n{e}");
        }
    }
    // The data path is named in full (made absolute against the spec's folder).
    let e = fails(&["run", "data.toml"], &tmp.0);
    assert!(e.contains(&tmp.join("nowhere/data.csv").display().to_string()), "{e}");
    let e = fails(&["run", "missing.toml"], &tmp.0);
    assert!(e.contains("missing.toml"), "{e}");
}

#[test]
fn failed_runs_are_recorded_and_finished_runs_kept() {
    let tmp = TempDir::new("failures");
    // POP-BO with a 2-iteration limit fails its first conic solve (MaxIterations) in every run.
    let spec = |on_error: &str| {
        format!(
            "name = \"fl\"\nhorizon = 5\nruns = 3\n{on_error}[problem]\nkind = \"ackley\"\npoints = 15\n\
             [[algorithms]]\nname = \"random\"\n[[algorithms]]\nname = \"pop-bo\"\n\
             [algorithms.params.confidence]\nmax_iterations = 2\n"
        )
    };
    std::fs::write(tmp.join("cont.toml"), spec("on_error = \"continue\"\n")).unwrap();
    let out = bohf(&["run", "cont.toml", "--out", "c", "-j", "2"], &tmp.0);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("FAILED: algorithm `pop-bo`, run 0, step 1") && stderr.contains("MaxIterations"),
        "{stderr}"
    );
    assert!(stdout.contains("3 run(s) failed"), "{stdout}");
    for r in 0..3 {
        assert!(tmp.join(&format!("c/runs/a0-r{r}.csv")).is_file());
        let failed = std::fs::read_to_string(tmp.join(&format!("c/runs/a1-r{r}.failed"))).unwrap();
        assert!(failed.contains("max_iterations"), "{failed}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.join("c/summary.json")).unwrap()).unwrap();
    assert_eq!(summary["algorithms"].as_array().unwrap().len(), 1);
    assert_eq!(summary["failures"].as_array().unwrap().len(), 3);
    // Merging the folder keeps the failures.
    ok(&["merge", "c", "--out", "m"], &tmp.0);
    assert!(tmp.join("m/runs/a1-r2.failed").is_file());

    // The default, "stop": the error names the failure and the folder; finished runs stay on disk.
    std::fs::write(tmp.join("stop.toml"), spec("")).unwrap();
    let e = fails(&["run", "stop.toml", "--out", "s", "-j", "1"], &tmp.0);
    assert!(e.contains("algorithm `pop-bo`") && e.contains("stopped (on_error = \"stop\")"), "{e}");
    assert!(e.contains("--resume"), "{e}");
    let saved: Vec<_> = std::fs::read_dir(tmp.join("s/runs")).unwrap().map(|d| d.unwrap().file_name()).collect();
    assert!(saved.iter().any(|f| f.to_string_lossy().ends_with(".failed")), "{saved:?}");
    assert!(tmp.join("s/spec.toml").is_file());
    // A resume retries the failed run (it fails again: the same spec is deterministic) and keeps
    // every finished run file as it was.
    let before: Vec<(std::ffi::OsString, Vec<u8>)> = std::fs::read_dir(tmp.join("s/runs"))
        .unwrap()
        .map(|d| d.unwrap())
        .filter(|d| d.file_name().to_string_lossy().ends_with(".csv"))
        .map(|d| (d.file_name(), std::fs::read(d.path()).unwrap()))
        .collect();
    let e = fails(&["run", "stop.toml", "--out", "s", "--resume", "-j", "1"], &tmp.0);
    assert!(e.contains("stopped"), "{e}");
    for (name, bytes) in before {
        assert_eq!(std::fs::read(tmp.join("s/runs").join(&name)).unwrap(), bytes, "{name:?} changed");
    }
}

// ------------------------------------------------------------------------------------------------
// bohf ask
// ------------------------------------------------------------------------------------------------

const OPTIONS: &str = "name,sweetness,strength\nA,1,9\nB,2,7\nC,3,8\nD,5,5\nE,6,3\nF,8,4\nG,9,1\nH,4,6\n";

/// The scripted person's utility: prefers sweetness 6 and strength 4.
fn utility(sweet: f64, strong: f64) -> f64 {
    -((sweet - 6.0).powi(2) + (strong - 4.0).powi(2))
}

fn write_session_spec(dir: &Path, algorithm: &str, budget: usize) {
    std::fs::write(dir.join("options.csv"), OPTIONS).unwrap();
    std::fs::write(
        dir.join("ask.toml"),
        format!(
            "name = \"drinks\"\nbudget = {budget}\nseed = 11\n[candidates]\ncsv = \"options.csv\"\n\
             [algorithm]\nname = \"{algorithm}\"\n"
        ),
    )
    .unwrap();
}

/// Drives `bohf ask SESSION --json`, answering `limit` queries by the utility, then quitting (or
/// letting the budget end it). Returns (queries asked as candidate-index pairs, the final message).
fn drive(dir: &Path, limit: usize, garbage_first: bool) -> (Vec<(usize, usize)>, serde_json::Value) {
    let mut child = Command::new(BIN)
        .args(["ask", "s.json", "--json"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> serde_json::Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
    let hello = next();
    assert_eq!(hello["type"], "session");
    let mut asked = Vec::new();
    let mut garbage = garbage_first;
    loop {
        let m = next();
        match m["type"].as_str().unwrap() {
            "query" => {
                assert_eq!(m["kind"], "duel");
                if garbage {
                    // Invalid input is answered with an error and the same query again.
                    writeln!(stdin, "{{\"choice\": \"c\"}}").unwrap();
                    let e = next();
                    assert_eq!(e["type"], "error");
                    let again = next();
                    assert_eq!(again, m);
                    garbage = false;
                }
                if asked.len() == limit {
                    writeln!(stdin, "{{\"quit\": true}}").unwrap();
                    continue;
                }
                let (a, b) = (&m["a"], &m["b"]);
                let u = |o: &serde_json::Value| {
                    utility(
                        o["attributes"]["sweetness"].as_f64().unwrap(),
                        o["attributes"]["strength"].as_f64().unwrap(),
                    )
                };
                asked.push((a["index"].as_u64().unwrap() as usize, b["index"].as_u64().unwrap() as usize));
                let choice = if u(a) >= u(b) { "a" } else { "b" };
                writeln!(stdin, "{{\"choice\": \"{choice}\"}}").unwrap();
                assert_eq!(next()["type"], "saved");
            }
            "done" => {
                child.wait().unwrap();
                return (asked, m);
            }
            other => panic!("unexpected message {other}: {m}"),
        }
    }
}

/// The same session through the library: the candidates min–max scaled per attribute (the
/// documented contract), the registry's algorithm with default parameters, `rng::seeded(seed)`.
fn library_run(algorithm: &str, budget: usize) -> (Vec<(usize, usize)>, usize) {
    let raw: Vec<[f64; 2]> = OPTIONS
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            [f[1].parse().unwrap(), f[2].parse().unwrap()]
        })
        .collect();
    // sweetness spans [1, 9], strength [1, 9].
    let rows: Vec<Vec<f64>> = raw.iter().map(|r| vec![(r[0] - 1.0) / 8.0, (r[1] - 1.0) / 8.0]).collect();
    let domain = FiniteDomain::from_rows(&rows).unwrap();
    let ctx = SearchContext::new(domain, budget).unwrap();
    let registry = bohf_registry::builtin();
    let mut opt = registry.get(algorithm).unwrap().build(&ctx, &toml::Table::new()).unwrap();
    let mut r = rng::seeded(11);
    let mut asked = Vec::new();
    let (mut round, mut in_a_row) = (0, 0);
    while asked.len() < budget && in_a_row < bohf_session::MAX_SELF_DUELS_IN_A_ROW {
        let q = opt.suggest(&mut r).unwrap();
        let Query::Duel(x, y) = &q else { panic!("a duel") };
        let (a, b) = (x.index.unwrap(), y.index.unwrap());
        // A self-duel is answered by the session's coin, not shown (docs/ask-protocol.md).
        let first_wins = if a == b {
            in_a_row += 1;
            bohf_session::self_duel_coin(11, round)
        } else {
            in_a_row = 0;
            asked.push((a, b));
            utility(raw[a][0], raw[a][1]) >= utility(raw[b][0], raw[b][1])
        };
        round += 1;
        opt.observe(&q, Answer::Duel { first_wins }).unwrap();
    }
    (asked, opt.recommend().unwrap().index.unwrap())
}

#[test]
fn ask_json_reaches_the_library_recommendation_across_restarts() {
    for algorithm in ["pf-ts", "maxminlcb"] {
        let tmp = TempDir::new(&format!("ask-{algorithm}"));
        let budget = 10;
        write_session_spec(&tmp.0, algorithm, budget);
        let created = ok(&["ask", "new", "s.json", "--spec", "ask.toml"], &tmp.0);
        assert!(created.contains("8 candidates"), "{created}");
        // Four answers, quit; then the rest in a second process (the session is replayed on load).
        let (first, done) = drive(&tmp.0, 4, true);
        assert_eq!(done["reason"], "quit");
        assert_eq!(done["answered"], 4);
        let (rest, done) = drive(&tmp.0, usize::MAX, false);
        let asked: Vec<(usize, usize)> = first.into_iter().chain(rest).collect();
        // The budget, or PF-TS's self-duels (answered by the session) end it, as in the library run.
        let (lib_asked, lib_rec) = library_run(algorithm, budget);
        let reason = if lib_asked.len() == budget { "budget" } else { "self-duels" };
        assert_eq!(done["reason"], reason, "{algorithm}");
        assert_eq!(done["answered"], asked.len());
        assert_eq!(asked, lib_asked, "{algorithm}: the queries differ from the library's");
        assert_eq!(done["recommendation"]["index"].as_u64().unwrap() as usize, lib_rec, "{algorithm}");
        // The budget is spent: asking again only reports the recommendation.
        let (none, again) = drive(&tmp.0, usize::MAX, false);
        assert!(none.is_empty());
        assert_eq!(again["recommendation"], done["recommendation"]);
    }
}

/// Nothing is recommended before the person's first answer (the algorithm's pick would reflect
/// only its prior and its seed): neither the terminal's closing line nor the JSON `done` message,
/// which recommend once an answer is in.
#[test]
fn no_recommendation_before_the_first_answer() {
    let tmp = TempDir::new("ask-no-rec");
    write_session_spec(&tmp.0, "pf-ts", 5);
    ok(&["ask", "new", "s.json", "--spec", "ask.toml"], &tmp.0);
    let (asked, done) = drive(&tmp.0, 0, false);
    assert!(asked.is_empty());
    assert_eq!((&done["reason"], &done["answered"]), (&serde_json::json!("quit"), &serde_json::json!(0)));
    assert!(done["recommendation"].is_null(), "{done}");
    let text = with_input(&["ask", "s.json"], &tmp.0, b"q\n");
    assert!(text.contains("No recommendation yet: it comes with the first answer."), "{text}");
    assert!(!text.contains("Current recommendation:"), "{text}");
    let (asked, done) = drive(&tmp.0, 1, false);
    assert_eq!(asked.len(), 1);
    assert!(done["recommendation"]["index"].is_u64(), "{done}");
}

#[test]
fn damaged_session_files_are_detected_and_left_alone() {
    let tmp = TempDir::new("ask-damage");
    write_session_spec(&tmp.0, "pf-ts", 6);
    ok(&["ask", "new", "s.json", "--spec", "ask.toml"], &tmp.0);
    drive(&tmp.0, 3, false);
    let good = std::fs::read_to_string(tmp.join("s.json")).unwrap();
    assert!(tmp.join("s.json.bak").exists());

    // Truncated.
    let truncated = &good[..good.len() / 2];
    std::fs::write(tmp.join("s.json"), truncated).unwrap();
    let e = fails(&["ask", "s.json", "--json"], &tmp.0);
    assert!(e.contains("damaged") && e.contains("truncated"), "{e}");
    assert!(e.contains("s.json.bak") && e.contains("2 answer(s)"), "{e}");
    assert_eq!(std::fs::read_to_string(tmp.join("s.json")).unwrap(), truncated, "the damaged file was rewritten");

    // Edited by hand: one answer flipped, checksum left as it was.
    let edited = good.replacen("\"first_wins\": true", "\"first_wins\": false", 1);
    let edited =
        if edited == good { good.replacen("\"first_wins\": false", "\"first_wins\": true", 1) } else { edited };
    assert_ne!(edited, good);
    std::fs::write(tmp.join("s.json"), &edited).unwrap();
    let e = fails(&["ask", "s.json"], &tmp.0);
    assert!(e.contains("damaged") && e.contains("checksum mismatch"), "{e}");
    assert_eq!(std::fs::read_to_string(tmp.join("s.json")).unwrap(), edited);

    // The good copy still works.
    std::fs::write(tmp.join("s.json"), &good).unwrap();
    let (_, done) = drive(&tmp.0, usize::MAX, false);
    assert_eq!(done["answered"], 6);

    // An existing session is not overwritten by `new` without --force.
    let e = fails(&["ask", "new", "s.json", "--spec", "ask.toml"], &tmp.0);
    assert!(e.contains("--force"), "{e}");
}

#[test]
fn ask_in_the_terminal_reasks_invalid_input_and_saves_every_answer() {
    let tmp = TempDir::new("ask-terminal");
    write_session_spec(&tmp.0, "random", 5);
    ok(&["ask", "new", "s.json", "--spec", "ask.toml"], &tmp.0);
    let text = with_input(&["ask", "s.json"], &tmp.0, b"maybe\na\nb\nq\n");
    assert!(text.contains("`maybe` is not an answer"), "{text}");
    assert!(text.contains("Query 1 of 5") && text.contains("Query 3 of 5"), "{text}");
    assert!(text.contains("sweetness") && text.contains("Stopped after 2 answers"), "{text}");
    assert!(text.contains("Current recommendation:"), "{text}");
    let session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.join("s.json")).unwrap()).unwrap();
    // The person's 2 answers (random duels may ask an option against itself: answered automatically).
    let history = session["body"]["history"].as_array().unwrap();
    assert_eq!(history.iter().filter(|s| s["automatic"] != true).count(), 2);

    // A box with named dimensions.
    std::fs::write(
        tmp.join("box.toml"),
        "name = \"oven\"\nbudget = 3\n[candidates.box]\nnames = [\"temperature\", \"minutes\"]\n\
         lower = [150, 10]\nupper = [250, 40]\npoints_per_dim = 3\n[algorithm]\nname = \"gp-ucb\"\n",
    )
    .unwrap();
    let created = ok(&["ask", "new", "b.json", "--spec", "box.toml"], &tmp.0);
    assert!(created.contains("9 candidates"), "{created}");
    let text = with_input(&["ask", "b.json"], &tmp.0, b"lots\n2.5\n1\n0\n");
    assert!(text.contains("your value for") && text.contains("temperature = "), "{text}");
    assert!(text.contains("`lots` is not an answer: type a number"), "{text}");
    assert!(text.contains("The budget of 3 queries is spent."), "{text}");

    // Unknown algorithm in a session spec: valid names and a suggestion.
    std::fs::write(
        tmp.join("bad.toml"),
        "name = \"x\"\nbudget = 3\n[candidates]\ncsv = \"options.csv\"\n[algorithm]\nname = \"maxmin\"\n",
    )
    .unwrap();
    let e = fails(&["ask", "new", "x.json", "--spec", "bad.toml"], &tmp.0);
    assert!(e.contains("unknown algorithm `maxmin`") && e.contains("did you mean `maxminlcb`"), "{e}");
    std::fs::write(
        tmp.join("nocsv.toml"),
        "name = \"x\"\nbudget = 3\n[candidates]\ncsv = \"gone.csv\"\n[algorithm]\nname = \"pf-ts\"\n",
    )
    .unwrap();
    let e = fails(&["ask", "new", "x.json", "--spec", "nocsv.toml"], &tmp.0);
    assert!(e.contains("gone.csv") && e.contains("not found"), "{e}");
}

#[test]
fn check_validates_experiment_and_session_specs_without_writing() {
    let tmp = TempDir::new("check");
    std::fs::write(tmp.join("spec.toml"), spec_text(3, 10, 1)).unwrap();
    let out = bohf(&["check", "spec.toml"], &tmp.0);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    // The values of `spec_text`: 2 algorithms without labels, 3 runs, T = 10, 25 grid points.
    for want in
        ["experiment spec `small` is valid", "algorithms: pf-ts, random", "runs: 3", "horizon: 10", "candidates: 25"]
    {
        assert!(text.contains(want), "missing `{want}` in:\n{text}");
    }

    // Invalid experiment specs: exit 1 and the field named.
    for (bad, field) in [
        (spec_text(0, 10, 1), "`runs`"),
        (spec_text(3, 10, 1).replace("horizon = 10", "horizon = \"ten\""), "horizon"),
        (spec_text(3, 10, 1).replace("name = \"random\"", "name = \"randm\""), "algorithms[1].name"),
    ] {
        std::fs::write(tmp.join("bad.toml"), bad).unwrap();
        let out = bohf(&["check", "bad.toml"], &tmp.0);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(field), "`{field}` not named in: {err}");
    }

    // A session spec, detected or forced with --ask; the candidates are the CSV's data rows.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/ask");
    std::fs::copy(examples.join("coffee.toml"), tmp.join("coffee.toml")).unwrap();
    let beans = std::fs::read_to_string(examples.join("beans.csv")).unwrap();
    std::fs::write(tmp.join("beans.csv"), &beans).unwrap();
    let rows = beans.lines().filter(|l| !l.trim().is_empty()).count() - 1;
    for args in [&["check", "coffee.toml"][..], &["check", "--ask", "coffee.toml"]] {
        let text = ok(args, &tmp.0);
        assert!(text.contains("session spec `coffee` is valid"), "{text}");
        assert!(text.contains(&format!("candidates: {rows}")), "{text}");
        assert!(text.contains("budget: 12"), "{text}");
    }
    std::fs::write(
        tmp.join("box.toml"),
        "name = \"b\"\nbudget = 5\n[candidates.box]\nnames = [\"x\"]\nlower = [0.0]\nupper = [1.0]\npoints_per_dim = 1\n\
         [algorithm]\nname = \"pf-ts\"\n",
    )
    .unwrap();
    let err = fails(&["check", "box.toml"], &tmp.0);
    assert!(err.contains("points_per_dim"), "{err}");
    // An experiment spec read as a session spec is refused (no `budget`).
    let err = fails(&["check", "--ask", "spec.toml"], &tmp.0);
    assert!(err.contains("budget") || err.contains("horizon"), "{err}");

    // Nothing was written.
    let mut names: Vec<String> =
        std::fs::read_dir(&tmp.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["bad.toml", "beans.csv", "box.toml", "coffee.toml", "spec.toml"]);
}

/// "No preference" and "skip" at the terminal (`=`, `s`) and in the JSON protocol
/// (`{"no_preference": true}`, `{"skip": true}`): saved like answers, recorded as such, and
/// counted against the budget.
#[test]
fn ask_records_no_preference_and_skip_in_both_front_ends() {
    let tmp = TempDir::new("ask-abstain");
    write_session_spec(&tmp.0, "pf-ts", 5);
    ok(&["ask", "new", "s.json", "--spec", "ask.toml"], &tmp.0);
    let text = with_input(&["ask", "s.json"], &tmp.0, b"a\n=\ns\nq\n");
    assert!(text.contains("saved (3 of 5)") && text.contains("Stopped after 3 answers"), "{text}");
    let out = with_input(&["ask", "s.json", "--json"], &tmp.0, b"{\"skip\": true}\n{\"no_preference\": true}\n");
    let msgs: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let saved: Vec<u64> =
        msgs.iter().filter(|m| m["type"] == "saved").map(|m| m["answered"].as_u64().unwrap()).collect();
    assert_eq!(saved, vec![4, 5], "{out}");
    assert_eq!(msgs.last().unwrap()["reason"], "budget", "{out}");
    let session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.join("s.json")).unwrap()).unwrap();
    // The person's answers (self-duels answered by the session left out).
    let answers: Vec<serde_json::Value> = session["body"]["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["automatic"] != true)
        .map(|s| s["answer"].clone())
        .collect();
    assert_eq!(answers[1..], [serde_json::json!("NoPreference"), "Skip".into(), "Skip".into(), "NoPreference".into()]);
    assert_eq!(answers[0], serde_json::json!({ "Duel": { "first_wins": true } }));
}

/// `bohf serve` refuses what it cannot serve before listening, naming the file, and prints the
/// page's address (with its 128-bit token) when it can.
#[test]
fn serve_refuses_a_missing_session_or_study_and_prints_the_address() {
    let tmp = TempDir::new("serve");
    let e = fails(&["serve", "nope.json", "--port", "0"], &tmp.0);
    assert!(e.contains("`nope.json` does not exist"), "{e}");
    let e = fails(&["serve", "--study", ".", "--port", "0"], &tmp.0);
    assert!(e.contains("study.toml") && e.contains("not found"), "{e}");
    let e = fails(&["serve", "--port", "0"], &tmp.0);
    assert!(e.contains("required arguments were not provided") && e.contains("<SESSION>"), "{e}");
    write_session_spec(&tmp.0, "pf-ts", 3);
    ok(&["ask", "new", "s.json", "--spec", "ask.toml"], &tmp.0);
    let mut child = Command::new(BIN)
        .args(["serve", "s.json", "--port", "0"])
        .current_dir(&tmp.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let line = BufReader::new(child.stdout.take().unwrap()).lines().next().unwrap().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let url = line.strip_prefix("drinks: http://127.0.0.1:").unwrap_or_else(|| panic!("{line}"));
    let token = url.split("/p/").nth(1).unwrap().trim_end_matches('/');
    assert!(token.len() == 32 && token.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
}

/// A MAGIC-format file of `n` records (10 attributes, class `g`/`h` from the first two).
fn tiny_magic(path: &Path, n: usize) {
    let mut text = String::new();
    for i in 0..n {
        let row: Vec<f64> = (0..10).map(|j| ((i * 7 + j * 13) % 23) as f64 - 11.0).collect();
        let class = if row[0] + 0.3 * row[1] > 0.0 { "g" } else { "h" };
        let fields: Vec<String> = row.iter().map(|v| format!("{v}")).collect();
        text.push_str(&format!("{},{class}\n", fields.join(",")));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn svm_runs_share_one_cached_table_and_a_missing_data_file_is_named() {
    let tmp = TempDir::new("svm-cache");
    tiny_magic(&tmp.join("tiny.data"), 60);
    let spec = "name = \"svm\"\nhorizon = 6\nruns = 2\n[problem]\nkind = \"svm\"\ndata = \"tiny.data\"\n\
                points_per_dim = 3\ntrain = 30\nvalidation = 20\ncomparison_train = 10\n[respondent]\n\
                model = \"deterministic\"\nnoise_sd = 0.0\ncomparisons = \"low-fidelity\"\n\
                [[algorithms]]\nname = \"random\"\n";
    std::fs::write(tmp.join("svm.toml"), spec).unwrap();
    // The first run tabulates (a progress line on stderr) into `.svm-cache` beside the results.
    let first = bohf(&["run", "svm.toml", "--out", "res/a"], &tmp.0);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(String::from_utf8_lossy(&first.stderr).contains("tabulating the SVM task"));
    let cached: Vec<_> = std::fs::read_dir(tmp.join("res/.svm-cache")).unwrap().collect();
    assert_eq!(cached.len(), 1);
    // Another results folder beside it and the summary of the first reuse the table.
    let second = bohf(&["run", "svm.toml", "--out", "res/b"], &tmp.0);
    assert!(second.status.success());
    assert!(!String::from_utf8_lossy(&second.stderr).contains("tabulating"));
    let s = bohf(&["summary", "res/a"], &tmp.0);
    assert!(s.status.success() && !String::from_utf8_lossy(&s.stderr).contains("tabulating"));
    // The same values: the two folders' steps are equal (same seed; the timings aside).
    assert_eq!(deterministic_steps(&tmp.join("res/a")), deterministic_steps(&tmp.join("res/b")));
    // A missing data file: the error names it.
    let e = fails(&["reproduce", "compgpucb-fig1c-svm", "--quick", "--data", "nowhere/magic.data"], &tmp.0);
    assert!(e.contains("MAGIC data file") && e.contains("nowhere/magic.data") && e.contains("--data"), "{e}");
    std::fs::write(tmp.join("svm.toml"), spec.replace("tiny.data", "missing.data")).unwrap();
    let e = fails(&["run", "svm.toml", "--out", "res/c"], &tmp.0);
    assert!(e.contains("missing.data"), "{e}");
}
