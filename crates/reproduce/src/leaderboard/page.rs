//! The leaderboard's page (`leaderboard.md`): the protocol, the overview of ranks, one section per
//! problem (rankings, wall times, plots) and the timings.

use super::*;

fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

fn ranking_table(s: &mut String, board: &ProblemBoard, by: By) {
    let _ =
        writeln!(s, "| rank | algorithm | runs | **{}** | {} |\n|---|---|---|---|---|", by.name(), by.secondary_name());
    for (rank, e) in board.ranked(by) {
        let (v, o) = (by.value(e), by.secondary(e));
        let _ = writeln!(s, "| {rank} | {} (`{}`) | {} | **{}** | {} |", e.label, e.name, e.runs, pm(v), pm(o));
    }
    for n in &board.not_applicable {
        let _ = writeln!(s, "| n/a | {} | 0 | {} | |", n.label, n.reason);
    }
}

/// The overview: each problem's rank of every algorithm by the final recommendation's utility gap
/// (by the cumulative utility gap in brackets).
fn overview_section(s: &mut String, boards: &[ProblemBoard]) {
    let mut labels: Vec<String> = Vec::new();
    for b in boards {
        for l in b.entries.iter().map(|e| &e.label).chain(b.not_applicable.iter().map(|n| &n.label)) {
            if !labels.contains(l) {
                labels.push(l.clone());
            }
        }
    }
    s.push_str(
        "## Overview: rank by the final recommendation's utility gap u(x*) − u(x̂_T) (by the cumulative utility gap \
         G(T) in brackets)\n\n",
    );
    let _ = writeln!(s, "| problem | {} |", labels.join(" | "));
    let _ = writeln!(s, "|---|{}", "---|".repeat(labels.len()));
    for b in boards {
        let simple = b.ranked(By::Gap);
        let cumulative = b.ranked(By::CumulativeGap);
        let cells: Vec<String> = labels
            .iter()
            .map(|l| {
                let rs = simple.iter().find(|(_, e)| &e.label == l).map(|(r, _)| *r);
                let rc = cumulative.iter().find(|(_, e)| &e.label == l).map(|(r, _)| *r);
                match (rs, rc) {
                    (Some(a), Some(c)) => format!("{a} ({c})"),
                    _ if b.not_applicable.iter().any(|n| &n.label == l) => "n/a".to_string(),
                    _ => "—".to_string(),
                }
            })
            .collect();
        let _ = writeln!(s, "| [{}](#{}) | {} |", b.name, b.name, cells.join(" | "));
    }
    s.push('\n');
}

/// One problem's section of the page: its settings, the two rankings, the wall times, the failed
/// runs and the plots.
fn problem_section(s: &mut String, b: &ProblemBoard, images: &str) {
    let _ = writeln!(s, "<a id=\"{}\"></a>\n## {}: {}\n", b.name, b.name, b.title);
    let _ = writeln!(
        s,
        "Spec [`specs/leaderboard/{n}.toml`](../specs/leaderboard/{n}.toml). Domain: {}. T = {}{}, {} runs, \
         {} shared initial duels, {}. Wall time of this problem: {:.1} s{}.\n",
        b.domain,
        b.horizon,
        if b.quick { format!(" (full: {})", b.full.0) } else { String::new() },
        b.runs,
        b.initial_duels,
        b.respondent,
        b.elapsed_s,
        if b.runs_in_call < b.runs_total() {
            format!(" for {} of its {} runs (the others were finished earlier)", b.runs_in_call, b.runs_total())
        } else {
            String::new()
        },
        n = b.name
    );
    if b.initial_duels > 0 && !b.own_start.is_empty() {
        let _ = writeln!(
            s,
            "Without the shared initial duels (`shared_start = false`: they learn from their own queries only): {}.\n",
            b.own_start.join(", ")
        );
    }
    s.push_str("**By the final recommendation's utility gap u(x*) − u(x̂_T)**\n\n");
    ranking_table(s, b, By::Gap);
    s.push_str("\n**By the cumulative utility gap G(T)**\n\n");
    ranking_table(s, b, By::CumulativeGap);
    s.push_str("\n**Wall time in the algorithm**\n\n| algorithm | per step, median | per step, mean | per run, mean |\n|---|---|---|---|\n");
    for e in &b.entries {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            e.label,
            seconds(e.step_median_s),
            seconds(e.step_mean_s),
            seconds(e.run_mean_s)
        );
    }
    if !b.failures.is_empty() {
        let _ = writeln!(s, "\nFailed runs (not in the tables):\n");
        for f in &b.failures {
            let _ = writeln!(s, "- {f}");
        }
    }
    let _ = writeln!(
        s,
        "\nOne cell per algorithm, best first; the other algorithms' means in grey.\n\n\
         ![utility gap of the recommendation]({images}/{n}-gap.png)\n\n\
         ![cumulative utility gap]({images}/{n}-cumulative-gap.png)\n\n\
         ([SVG]({images}/{n}-gap.svg), [SVG]({images}/{n}-cumulative-gap.svg))\n",
        n = b.name
    );
}

/// The page's last section: wall and CPU time per problem (and, `quick`, the full suite's estimate).
fn timings_section(s: &mut String, boards: &[ProblemBoard], quick: bool) {
    s.push_str(
        "## Timings\n\n| problem | T × runs × algorithms run | wall time of the call (s) | CPU in the algorithms (s) |",
    );
    if quick {
        s.push_str(" full suite, estimated CPU (s) |\n|---|---|---|---|---|\n");
    } else {
        s.push_str("\n|---|---|---|---|\n");
    }
    let mut estimate = 0.0;
    for b in boards {
        let _ = write!(
            s,
            "| {} | {} × {} × {} | {:.1}{} | {:.1} |",
            b.name,
            b.horizon,
            b.runs,
            b.entries.len(),
            b.elapsed_s,
            if b.runs_in_call < b.runs_total() {
                format!(" ({} of {} runs)", b.runs_in_call, b.runs_total())
            } else {
                String::new()
            },
            b.cpu_s()
        );
        if quick {
            let e = b.full_cpu_estimate_s();
            estimate += e;
            let _ = write!(s, " {e:.0} ({} × {}) |", b.full.0, b.full.1);
        }
        s.push('\n');
    }
    if quick {
        let _ = writeln!(
            s,
            "\nEstimated CPU time of the full suite: {estimate:.0} s ≈ {:.1} h, from each algorithm's mean time per \
             step in this quick run × T × runs of the specs. A lower bound for the GP-based algorithms, whose step \
             cost grows with the number of duels.",
            estimate / 3600.0
        );
    }
}

/// The page: the command and its wall time, the rule, an overview of the ranks, then per problem
/// its settings, the two rankings, n/a algorithms, wall time per step and the plots (`images`: the
/// plots' folder relative to the page); the problems `skipped` (no board) are listed with why.
pub fn page_markdown(
    boards: &[ProblemBoard],
    skipped: &[merge::Skipped],
    command: &str,
    wall_s: f64,
    images: &str,
) -> String {
    let mut s = String::from("# Leaderboard: every duel algorithm of bohf on one suite\n\n");
    if !skipped.is_empty() {
        s.push_str("> **Not on this page** (they did not run):\n");
        for k in skipped {
            let _ = writeln!(s, "> - `{}`: {}", k.name, k.reason);
        }
        s.push('\n');
    }
    let quick = boards.iter().any(|b| b.quick);
    if quick {
        s.push_str(
            "> **Quick smoke test** (`--quick`: at most 3 runs and T = 40 per problem): the ranks below mean \
             little. To be replaced by the full run (30 runs, the specs' horizons).\n\n",
        );
    }
    let (in_call, total): (usize, usize) =
        boards.iter().fold((0, 0), |(a, b), x| (a + x.runs_in_call, b + x.runs_total()));
    let cpu: f64 = boards.iter().map(ProblemBoard::cpu_s).sum();
    let resumed = if in_call < total {
        format!(
            " This call ran {in_call} of the {total} runs; the others were finished by earlier calls (`--resume`), \
             so this wall time is not the suite's. The runs' time in the algorithms, which does not \
             depend on how they were split, sums to {cpu:.0} s ≈ {:.2} h (Timings, at the end).",
            cpu / 3600.0
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "Generated by `{command}` in {wall_s:.1} s of wall time (release build; the runs of a problem in parallel), \
         from the specs in [`specs/leaderboard/`](../specs/leaderboard).{resumed} Regenerate it with the same command \
         (`--resume` continues an interrupted run; `-j N` sets the threads; results do not depend on them).\n"
    );
    let _ = writeln!(
        s,
        "**Protocol.** Per problem every algorithm gets the same shared initial duels (uniformly random, the same \
         duels and answers for every algorithm of a run, not counted in T or the regrets), the same horizon T, \
         respondent, number of runs and seed. The ranking's metric is the **utility gap of the final \
         recommendation** u(x*) − u(x̂_T) (what BoTorch and most papers call the simple regret), in the units of \
         the problem's own utility u (before its scaling and the respondent's scale s), x̂_T the algorithm's \
         recommendation after T duels; beside it the simple regret on the preference scale, \
         P(x* ≻ x̂_T) − ½ = μ(s(u* − u(x̂_T))) − ½ ∈ [0, ½] (μ the respondent's link). The second ranking is \
         by the **cumulative utility gap** G(T) = Σ_t (2u* − u(x_t) − u(x′_t))/2 of the duels, beside it the \
         cumulative dueling regret R(T) = Σ_t r_t, r_t = (μ(s(u* − u(x_t))) + μ(s(u* − u(x′_t))) − 1)/2 \
         (MR-LPF eq. (1), PF-TS eq. (2); [experiments.md](experiments.md)). **Rank** = 1 + the number of algorithms significantly lower, where a difference counts when it \
         exceeds {SE_MULTIPLE} standard errors of the difference, √(s.e.(a)² + s.e.(b)²) (the rule of the \
         reproduction's claims, [reproduction/README.md](reproduction/README.md)); algorithms that no other beats \
         share rank 1. **Wall time per step**: the algorithm's own calls (suggest, observe, recommend; its \
         construction and the initial duels count in step 1), over every step of every run. An algorithm that \
         cannot run a problem's domain is listed as n/a with the reason.\n"
    );

    overview_section(&mut s, boards);
    for b in boards {
        problem_section(&mut s, b, images);
    }

    timings_section(&mut s, boards, quick);
    s
}

/// Writes the page `dir/leaderboard.md` (the plots being in `dir/leaderboard/` already) and the
/// boards it shows, `dir/leaderboard/boards.json` ([`merge::read_boards`]).
pub fn write_page(
    dir: &Path,
    boards: &[ProblemBoard],
    skipped: &[merge::Skipped],
    command: &str,
    wall_s: f64,
) -> Result<std::path::PathBuf> {
    merge::write_boards(dir, boards, skipped)?;
    let path = dir.join("leaderboard.md");
    write_atomic(&path, page_markdown(boards, skipped, command, wall_s, "leaderboard").as_bytes())?;
    Ok(path)
}
