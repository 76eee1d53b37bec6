//! Tests of the leaderboard: the rank rule, the median, the shared initial duels of the runner,
//! and the whole machinery on a tiny suite (a finite problem and a box problem with an n/a
//! algorithm), resumed.

use super::*;
use crate::discover;
use bohf_core::rand::RngExt;
use bohf_experiments::folder::Quiet;
use bohf_experiments::runner::RunId;
use bohf_experiments::testing::scratch_dir;

fn ms(mean: f64, se: f64) -> MeanSe {
    MeanSe { mean, se }
}

#[test]
fn ranks_follow_the_two_standard_error_rule() {
    // 0.10 vs 0.12: difference 0.02 < 2·√(0.01² + 0.01²) = 0.0283, a tie; 0.5 is above both by far.
    assert_eq!(ranks(&[ms(0.10, 0.01), ms(0.12, 0.01), ms(0.5, 0.01)]), vec![1, 1, 3]);
    // 0.10 vs 0.14: difference 0.04 > 0.0283, so 0.14 ranks second; order of the input is kept.
    assert_eq!(ranks(&[ms(0.14, 0.01), ms(0.10, 0.01)]), vec![2, 1]);
    // A chain a ≈ b ≈ c with a < c: c has one algorithm significantly below it.
    assert_eq!(ranks(&[ms(0.0, 0.01), ms(0.025, 0.01), ms(0.05, 0.01)]), vec![1, 1, 2]);
    assert_eq!(ranks(&[]), Vec::<usize>::new());
    // Zero standard errors: a real difference counts, a difference in the last bits does not.
    assert_eq!(ranks(&[ms(0.0, 0.0), ms(0.1, 0.0)]), vec![1, 2]);
    assert_eq!(ranks(&[ms(0.0, 0.0), ms(4e-16, 0.0)]), vec![1, 1]);
}

#[test]
fn median_of_odd_and_even_counts() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    assert_eq!(median(&[]), 0.0);
}

#[test]
fn initial_streams_depend_on_the_run_only() {
    let draw = |id: RunId| {
        let (mut p, mut a) = id.initial_rng(7);
        (p.random::<u64>(), a.random::<u64>())
    };
    let x = draw(RunId { algorithm: 0, run: 3 });
    assert_eq!(x, draw(RunId { algorithm: 5, run: 3 }));
    assert_ne!(x, draw(RunId { algorithm: 0, run: 4 }));
    assert_ne!(x.0, x.1);
    // Distinct from the algorithm's and the respondent's streams of the same run.
    let id = RunId { algorithm: 0, run: 3 };
    assert_ne!(x.0, id.algorithm_rng(7).random::<u64>());
    assert_ne!(x.1, id.respondent_rng(7).random::<u64>());
}

const FINITE: &str = r#"
name = "NAME"
horizon = 1
runs = 6
seed = 3
initial_duels = INITIAL
[problem]
kind = "rkhs"
kernel = "se"
points = 5
[respondent]
model = "deterministic"
[[algorithms]]
name = "random"
"#;

fn simple_regrets_at_step_one(initial: usize, shared_start: bool) -> Vec<f64> {
    let text = FINITE.replace("NAME", "init").replace("INITIAL", &initial.to_string())
        + &format!("shared_start = {shared_start}\n");
    let e = Experiment::new(ExperimentSpec::from_toml_str(&text).unwrap(), &bohf_registry::builtin()).unwrap();
    e.run().unwrap().runs().iter().map(|r| r.steps[0].simple_regret).collect()
}

#[test]
fn shared_initial_duels_are_observed_before_step_one() {
    // Random duels recommend the candidate with the most wins. After 1000 duels on 5 candidates
    // with a deterministic respondent x* wins every duel it is in, than any other
    // candidate can (each loses to x*; ~400 against ~300), so every run recommends x* at t = 1: simple regret 0.
    assert!(simple_regrets_at_step_one(1000, true).iter().all(|&r| r == 0.0));
    // Without them the recommendation at t = 1 rests on one duel: some run misses x*; the same for
    // an algorithm with `shared_start = false`, which does not observe them.
    assert!(simple_regrets_at_step_one(0, true).iter().any(|&r| r > 0.0));
    assert_eq!(simple_regrets_at_step_one(1000, false), simple_regrets_at_step_one(0, true));
}

#[test]
fn initial_duels_with_a_budget_are_refused_by_name() {
    let text = FINITE.replace("NAME", "b").replace("INITIAL", "2") + "[budget]\ntotal = 3.0\n";
    let spec: ExperimentSpec = toml::from_str(&text).unwrap();
    let e = spec.validate(&bohf_registry::builtin()).unwrap_err().to_string();
    assert!(e.contains("initial_duels"), "{e}");
}

const TINY_FINITE: &str = r#"
name = "tiny-finite"
title = "Tiny RKHS"
horizon = 4
runs = 2
seed = 1
initial_duels = 2
on_error = "continue"
[problem]
kind = "rkhs"
kernel = "se"
points = 8
[[algorithms]]
name = "random"
[[algorithms]]
name = "maxminlcb"
label = "MaxMinLCB"
"#;

const TINY_BOX: &str = r#"
name = "tiny-box"
horizon = 2
runs = 2
seed = 1
initial_duels = 3
[problem]
kind = "function"
function = "branin"
domain = "box"
scaling = { multiply = 0.1 }
[[algorithms]]
name = "pf-ts"
[[algorithms]]
name = "eubo"
label = "EUBO"
params = { initial_duels = 0, model = { refit_every = 0 } }
"#;

/// The registry of the built-in entries called `names`.
fn registry_of(names: &[&str]) -> Registry {
    let builtin = bohf_registry::builtin();
    let mut r = Registry::empty();
    for n in names {
        r.register(builtin.get(n).unwrap().clone()).unwrap();
    }
    r
}

/// An entry that asks duels only and that a spec does not list joins the board with its default
/// params, labelled by its name, without the shared start (n/a on a domain it does not work on, like a listed one); entries
/// that ask evaluations or labels (GP-UCB, COBOL, and COMP-GP-UCB, which asks duels too) never do.
#[test]
fn an_unlisted_duel_entry_joins_the_board_and_no_other_does() {
    let dir = scratch_dir("leaderboard-added");
    let specs = dir.join("specs");
    std::fs::create_dir_all(&specs).unwrap();
    std::fs::write(specs.join("tiny-finite.toml"), TINY_FINITE).unwrap();
    std::fs::write(specs.join("tiny-box.toml"), TINY_BOX).unwrap();
    let registry = registry_of(&[
        "random",
        "maxminlcb",
        "pf-ts",
        "mr-lpf",
        "eubo",
        "gp-ucb",
        "cobol",
        "comp-gp-ucb",
        "dts",
        "kss",
    ]);
    let presets = discover(&specs).unwrap();
    let prepare = |name: &str| {
        let p = presets.iter().find(|p| p.name == name).unwrap();
        SuiteProblem::prepare(p, false, None, &registry).unwrap()
    };
    let finite = prepare("tiny-finite");
    assert_eq!(finite.added, ["pf-ts", "mr-lpf", "eubo", "dts", "kss"]);
    let labels: Vec<&str> = finite.spec.algorithms.iter().map(|a| a.label()).collect();
    assert_eq!(labels, ["random", "MaxMinLCB", "pf-ts", "mr-lpf", "eubo", "dts", "kss"]);
    // With their defaults and their own queries only (not every algorithm observes duels it did
    // not ask: MR-LPF refuses them).
    assert!(finite.spec.algorithms[2..].iter().all(|a| a.params.is_empty() && !a.shared_start));
    // On the box, the added KSS (finite candidate sets only) is n/a with the reason, as a listed
    // algorithm would be; the listed `pf-ts` too.
    let boxed = prepare("tiny-box");
    assert_eq!(boxed.added, ["random", "maxminlcb", "mr-lpf", "dts", "kss"]);
    let na: Vec<&str> = boxed.not_applicable.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(na, ["pf-ts", "maxminlcb", "mr-lpf", "kss"]);
    // The added entries run (MR-LPF too, on a problem with shared initial duels) and are on the
    // board, listed as without the shared start.
    let board = run_problem(&finite, &dir.join("results"), &dir.join("images"), 1, false, &registry, &Quiet).unwrap();
    let on_board: Vec<&str> = board.entries.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(on_board, labels);
    assert_eq!(board.own_start, ["pf-ts", "mr-lpf", "eubo", "dts", "kss"]);
    assert!(board.failures.is_empty(), "{:?}", board.failures);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tiny_suite_runs_ranks_and_resumes() {
    let dir = scratch_dir("leaderboard");
    let specs = dir.join("specs");
    std::fs::create_dir_all(&specs).unwrap();
    std::fs::write(specs.join("tiny-finite.toml"), TINY_FINITE).unwrap();
    std::fs::write(specs.join("tiny-box.toml"), TINY_BOX).unwrap();
    let registry = bohf_registry::builtin();
    let presets = discover(&specs).unwrap();
    // Each problem with the registry of the algorithms its spec lists, so that no other duel
    // entry joins.
    let listed = |p: &Preset| {
        let names: Vec<String> =
            ExperimentSpec::from_toml_str(&p.text).unwrap().algorithms.into_iter().map(|a| a.name).collect();
        registry_of(&names.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let problems: Vec<SuiteProblem> =
        presets.iter().map(|p| SuiteProblem::prepare(p, false, None, &listed(p)).unwrap()).collect();
    // The box problem: `pf-ts` works on a finite candidate set only, so it is n/a, with the reason.
    let boxed = problems.iter().find(|p| p.name() == "tiny-box").unwrap();
    assert_eq!(boxed.spec.algorithms.len(), 1);
    assert_eq!(boxed.not_applicable.len(), 1);
    assert_eq!(boxed.not_applicable[0].label, "pf-ts");
    assert!(boxed.not_applicable[0].reason.contains("finite candidate set only"), "{:?}", boxed.not_applicable);
    assert_eq!(boxed.full, (2, 2));

    let (out, page) = (dir.join("results"), dir.join("page"));
    let run = |resume: bool| -> Vec<ProblemBoard> {
        problems
            .iter()
            .map(|p| run_problem(p, &out, &page.join("leaderboard"), 1, resume, &registry, &Quiet).unwrap())
            .collect()
    };
    let boards = run(false);
    let finite = boards.iter().find(|b| b.name == "tiny-finite").unwrap();
    assert_eq!(finite.entries.len(), 2);
    assert_eq!((finite.horizon, finite.runs, finite.initial_duels), (4, 2, 2));
    for e in &finite.entries {
        assert_eq!(e.runs, 2);
        assert!((0.0..=0.5).contains(&e.simple.mean), "{e:?}");
        assert!(e.gap.mean >= 0.0, "{e:?}");
        assert!((0.0..=2.0).contains(&e.cumulative.mean), "{e:?}");
        assert!(e.step_median_s >= 0.0 && e.step_mean_s > 0.0 && e.run_mean_s > 0.0, "{e:?}");
        // The per-step times add up to the run's time: mean step × T = mean run.
        assert!((e.step_mean_s * 4.0 - e.run_mean_s).abs() <= 1e-9 * e.run_mean_s.max(1.0), "{e:?}");
    }
    // The gap by hand: u* − u(x̂_T) in the problem's own units (the prepared utility k·u + c, k the
    // factor of its scaling and the respondent's scale, divided by k) at each run's last
    // recommendation read from steps.csv.
    let spec = &problems.iter().find(|p| p.name() == "tiny-finite").unwrap().spec;
    let prepared = bohf_experiments::PreparedProblem::build(&spec.problem, &spec.respondent).unwrap();
    let k = prepared.utility_map().scale;
    let u: Vec<f64> = prepared.utility().unwrap().values().iter().map(|v| v / k).collect();
    let best = u.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let csv = std::fs::read_to_string(out.join("tiny-finite/steps.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    for e in &finite.entries {
        let gaps: Vec<f64> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|f| f[0] == e.label && f[col("t")] == "4")
            .map(|f| best - u[f[col("recommendation")].parse::<usize>().unwrap()])
            .collect();
        assert_eq!(gaps.len(), 2);
        let want = (gaps[0] + gaps[1]) / 2.0;
        assert!((e.gap.mean - want).abs() <= 1e-12 * (1.0 + want.abs()), "{e:?}: {want}");
    }
    let ranked = finite.ranked(By::Gap);
    assert_eq!(ranked.len(), 2);
    assert_eq!(ranked[0].0, 1, "the best mean always has rank 1");
    for name in ["tiny-finite", "tiny-box"] {
        for m in ["gap", "cumulative-gap"] {
            for ext in ["png", "svg"] {
                let f = page.join("leaderboard").join(format!("{name}-{m}.{ext}"));
                assert!(std::fs::metadata(&f).map(|m| m.len() > 1000).unwrap_or(false), "{}", f.display());
            }
        }
    }
    let path = write_page(&page, &boards, &[], "bohf leaderboard --test", 1.5).unwrap();
    let md = std::fs::read_to_string(path).unwrap();
    assert!(md.contains("| n/a | pf-ts | 0 | `pf-ts` works on a finite candidate set only"), "{md}");
    // A call that ran every run says nothing of resumed runs.
    assert!(boards.iter().all(|b| b.runs_in_call == b.runs_total() && b.runs_total() > 0));
    assert!(!md.contains("This call ran") && !md.contains("finished earlier"), "{md}");
    assert!(md.contains("](leaderboard/tiny-box-gap.png)"), "{md}");
    assert!(md.contains("`bohf leaderboard --test` in 1.5 s"), "{md}");
    // Overview columns: labels in order of appearance (EUBO, pf-ts, random, MaxMinLCB).
    assert!(md.contains("| [tiny-box](#tiny-box) | 1 (1) | n/a | — |"), "{md}");
    assert!(!md.contains("Quick smoke test"));

    // Without --resume the finished folder is refused; with it, the runs are read back unchanged.
    assert!(run_problem(&problems[0], &out, &page.join("leaderboard"), 1, false, &registry, &Quiet).is_err());
    let again = run(true);
    for (a, b) in boards.iter().zip(&again) {
        let values = |b: &ProblemBoard| {
            b.entries.iter().map(|e| (e.gap, e.cumulative_gap, e.simple, e.cumulative)).collect::<Vec<_>>()
        };
        assert_eq!(values(a), values(b));
        // The resumed call ran nothing: its wall time is not the runs', and the page says so.
        assert_eq!((b.runs_in_call, b.runs_total()), (0, a.runs_total()));
    }
    let total: usize = again.iter().map(ProblemBoard::runs_total).sum();
    let md = page_markdown(&again, &[], "bohf leaderboard --test", 0.2, "leaderboard");
    assert!(md.contains(&format!("This call ran 0 of the {total} runs")), "{md}");
    assert!(md.contains("for 0 of its 4 runs (the others were finished earlier)"), "{md}");
    assert!(md.contains("(0 of 4 runs)"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_workspace_suite_specs_are_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs/leaderboard");
    let presets = discover(&dir).unwrap();
    assert!(presets.len() >= 6, "{}", presets.len());
    // The duel algorithms the specs list with each problem's settings (sorted); any other
    // registry entry that asks duels only joins with its defaults (`added`), so a new algorithm
    // needs no edit of the specs or of this test.
    const LISTED: [&str; 9] = ["dts", "eubo", "kss", "maxminlcb", "mr-lpf", "pf-ts", "pop-bo", "qeubo", "random"];
    let registry = bohf_registry::builtin();
    let duel_only: Vec<&str> =
        registry.entries().iter().filter(|e| e.asks_only(QueryKind::Duel)).map(|e| e.name()).collect();
    assert!(LISTED.iter().all(|n| duel_only.contains(n)), "{duel_only:?}");
    let unlisted: Vec<&str> = duel_only.iter().copied().filter(|n| !LISTED.contains(n)).collect();
    for p in &presets {
        let problem = SuiteProblem::prepare(p, true, None, &registry).unwrap();
        // Every spec lists exactly LISTED, and the other duel-only entries are added: run or n/a.
        let written = ExperimentSpec::from_toml_str(&p.text).unwrap();
        assert_eq!(problem.added, unlisted, "{}", p.name);
        assert_eq!(
            written.algorithms.len() + problem.added.len(),
            problem.spec.algorithms.len() + problem.not_applicable.len()
        );
        let mut names: Vec<&str> = written.algorithms.iter().map(|a| a.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, LISTED, "{}", p.name);
        assert_eq!((written.runs, written.seed), (30, 1), "{}", p.name);
        assert!(written.initial_duels > 0, "{}", p.name);
        // The spec as run validates (a catalyst path resolved against specs/leaderboard/).
        if !matches!(problem.spec.problem, bohf_experiments::ProblemSpec::Catalyst(_)) {
            problem.spec.validate(&registry).unwrap();
        }
    }
}

/// A board of problem `name` with one entry per (label, gap, cumulative gap), s.e. 0.01.
fn fake_board(name: &str, rows: &[(&str, f64, f64)]) -> ProblemBoard {
    ProblemBoard {
        name: name.into(),
        title: format!("Fake {name}"),
        domain: "a finite candidate set".into(),
        horizon: 10,
        runs: 3,
        full: (10, 3),
        initial_duels: 2,
        own_start: Vec::new(),
        respondent: "stochastic logistic duels at scale s = 1".into(),
        quick: false,
        elapsed_s: 1.0,
        runs_in_call: 3 * rows.len(),
        entries: rows
            .iter()
            .map(|&(label, gap, cumulative_gap)| BoardEntry {
                label: label.into(),
                name: label.to_lowercase(),
                runs: 3,
                gap: ms(gap, 0.01),
                cumulative_gap: ms(cumulative_gap, 0.01),
                simple: ms(0.1, 0.01),
                cumulative: ms(1.0, 0.01),
                step_median_s: 0.001,
                step_mean_s: 0.001,
                run_mean_s: 0.01,
            })
            .collect(),
        not_applicable: Vec::new(),
        failures: Vec::new(),
    }
}

#[test]
fn fake_boards_rank_by_the_utility_gaps_with_the_preference_regrets_beside() {
    // Gaps 0.5, 0.1, 0.105 (s.e. 0.01): 0.1 and 0.105 tie (0.005 < 2·√2·0.01), 0.5 is third.
    // Cumulative gaps 3, 9, 1: all apart, ranks 2, 3, 1.
    let b = fake_board("a", &[("X", 0.5, 3.0), ("Y", 0.1, 9.0), ("Z", 0.105, 1.0)]);
    let by_gap: Vec<(usize, &str)> = b.ranked(By::Gap).iter().map(|(r, e)| (*r, e.label.as_str())).collect();
    assert_eq!(by_gap, vec![(1, "Y"), (1, "Z"), (3, "X")]);
    let by_cum: Vec<(usize, &str)> = b.ranked(By::CumulativeGap).iter().map(|(r, e)| (*r, e.label.as_str())).collect();
    assert_eq!(by_cum, vec![(1, "Z"), (2, "X"), (3, "Y")]);
    let md = page_markdown(std::slice::from_ref(&b), &[], "bohf leaderboard", 1.0, "leaderboard");
    // Overview: rank by gap (by cumulative gap): X 3 (2), Y 1 (3), Z 1 (1).
    assert!(md.contains("| [a](#a) | 3 (2) | 1 (3) | 1 (1) |"), "{md}");
    // Each table shows the preference regret beside the gap it ranks.
    assert!(md.contains("| **u(x*) − u(x̂_T)** | simple regret P(x* ≻ x̂_T) − ½ |"), "{md}");
    assert!(md.contains("| **cumulative utility gap G(T)** | cumulative regret R(T) |"), "{md}");
    assert!(md.contains("![utility gap of the recommendation](leaderboard/a-gap.png)"), "{md}");
}

#[test]
fn a_partial_call_merges_into_the_page_and_skipped_problems_are_listed() {
    let dir = scratch_dir("leaderboard-merge");
    let suite: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    // A first call ran A and B, C was skipped for its data.
    let first = vec![fake_board("a", &[("X", 0.5, 3.0)]), fake_board("b", &[("X", 0.2, 2.0)])];
    let no_data = merge::Skipped { name: "c".into(), reason: "its data file `/x/c.csv` is missing".into() };
    let (boards, skipped) = merge::merge_boards(None, first, vec![no_data.clone()], &suite);
    write_page(&dir, &boards, &skipped, "bohf leaderboard", 2.0).unwrap();
    let md = std::fs::read_to_string(dir.join("leaderboard.md")).unwrap();
    assert!(md.contains("> - `c`: its data file `/x/c.csv` is missing"), "{md}");
    // `--resume a`: A's new board replaces the old one, B stays, C is still listed as skipped.
    let earlier = merge::read_boards(&dir).unwrap().unwrap();
    assert_eq!(earlier.boards.len(), 2);
    let (boards, skipped) =
        merge::merge_boards(Some(earlier), vec![fake_board("a", &[("X", 0.05, 0.5)])], vec![], &suite);
    assert_eq!(boards.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(boards[0].entries[0].gap.mean, 0.05);
    assert_eq!(boards[1].entries[0].gap.mean, 0.2);
    assert_eq!(skipped, vec![no_data]);
    write_page(&dir, &boards, &skipped, "bohf leaderboard --resume a", 1.0).unwrap();
    let md = std::fs::read_to_string(dir.join("leaderboard.md")).unwrap();
    assert!(md.contains("## a: Fake a") && md.contains("## b: Fake b"), "{md}");
    // Then C runs (its data found): it joins in suite order and is no longer listed as skipped.
    let earlier = merge::read_boards(&dir).unwrap();
    let (boards, skipped) = merge::merge_boards(
        earlier,
        vec![fake_board("c", &[("X", 0.3, 1.0)])],
        vec![],
        &["c", "b", "a"].map(String::from),
    );
    assert_eq!(boards.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["c", "b", "a"]);
    assert!(skipped.is_empty());
    // A problem skipped again keeps its board and is not listed as skipped.
    let again = merge::Skipped { name: "c".into(), reason: "gone".into() };
    let (boards, skipped) = merge::merge_boards(
        Some(merge::Boards { version: merge::BOARDS_VERSION, boards, skipped }),
        vec![],
        vec![again],
        &suite,
    );
    assert_eq!(boards.len(), 3);
    assert!(skipped.is_empty());
    // A damaged boards file is an error naming it; no page yet is none.
    std::fs::write(merge::boards_file(&dir), "{").unwrap();
    assert!(merge::read_boards(&dir).unwrap_err().to_string().contains("boards.json"));
    assert!(merge::read_boards(&dir.join("nothing")).unwrap().is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn data_files_are_looked_for_in_the_data_folder_and_missing_ones_found_before_running() {
    let dir = scratch_dir("leaderboard-data");
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs/leaderboard");
    let presets = discover(&specs).unwrap();
    let catalyst = presets.iter().find(|p| p.name == "catalyst").unwrap();
    let registry = bohf_registry::builtin();
    let problem = SuiteProblem::prepare(catalyst, true, None, &registry).unwrap();
    // An empty folder: missing, naming the path in it.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let why = problem.clone().with_data_dir(&empty).missing_data().unwrap();
    assert!(why.contains(&empty.join("ExpDataDump_241113_clean.csv").display().to_string()), "{why}");
    assert!(why.contains("--data DIR"), "{why}");
    // The file directly in the folder, or in its `ocx24/` subfolder (the folder above it given).
    let direct = dir.join("direct");
    std::fs::create_dir_all(&direct).unwrap();
    std::fs::write(direct.join("ExpDataDump_241113_clean.csv"), "x").unwrap();
    let p = problem.clone().with_data_dir(&direct);
    assert_eq!(p.missing_data(), None);
    assert_eq!(p.spec.problem.data_path().unwrap(), direct.join("ExpDataDump_241113_clean.csv"));
    let nested = dir.join("data/ocx24");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(nested.join("ExpDataDump_241113_clean.csv"), "x").unwrap();
    let p = problem.clone().with_data_dir(&dir.join("data"));
    assert_eq!(p.spec.problem.data_path().unwrap(), nested.join("ExpDataDump_241113_clean.csv"));
    // A problem without data is never missing any.
    let rkhs = presets.iter().find(|p| p.name == "rkhs-1d").unwrap();
    assert_eq!(SuiteProblem::prepare(rkhs, true, None, &registry).unwrap().with_data_dir(&empty).missing_data(), None);
    let _ = std::fs::remove_dir_all(&dir);
}
