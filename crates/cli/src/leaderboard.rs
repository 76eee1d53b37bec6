//! `bohf leaderboard`: every duel algorithm of bohf on the suite of `specs/leaderboard/`, and the
//! page that ranks them ([`bohf_reproduce::leaderboard`]).

use crate::CliError;
use crate::presets::DEFAULT_SPECS_DIR;
use bohf_reproduce::discover;
use bohf_reproduce::leaderboard::merge::{Skipped, merge_boards, read_boards};
use bohf_reproduce::leaderboard::{ProblemBoard, SuiteProblem, run_problem, write_page};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of `bohf leaderboard`.
#[derive(Debug, Clone)]
pub struct LeaderboardOptions {
    /// The problems to run (spec names); all when empty.
    pub problems: Vec<String>,
    /// The runs' folder: `OUT/<problem>/`.
    pub out: PathBuf,
    /// Where the page goes: `PAGE/leaderboard.md` and `PAGE/leaderboard/*.{png,svg}`.
    pub page: PathBuf,
    /// The suite folder (default: the source tree's `specs/leaderboard/`).
    pub specs: Option<PathBuf>,
    /// Threads (0: one per core).
    pub threads: usize,
    /// Continue folders with finished runs.
    pub resume: bool,
    /// At most 3 runs and T = 40 per problem.
    pub quick: bool,
    /// Runs per algorithm (after `quick`).
    pub runs: Option<usize>,
    /// The folder of the data sets (the catalyst problem's OCx24 CSV), instead of the specs'
    /// paths ([`SuiteProblem::with_data_dir`]).
    pub data: Option<PathBuf>,
}

/// The command line that regenerates the page, as the page states it.
fn command_line(opts: &LeaderboardOptions) -> String {
    let mut c = String::from("bohf leaderboard");
    if opts.quick {
        c.push_str(" --quick");
    }
    if let Some(r) = opts.runs {
        c.push_str(&format!(" --runs {r}"));
    }
    if let Some(d) = &opts.data {
        c.push_str(&format!(" --data {}", d.display()));
    }
    c.push_str(&format!(" --page {}", opts.page.display()));
    for p in &opts.problems {
        c.push_str(&format!(" {p}"));
    }
    c
}

/// Runs the suite (each problem's runs in parallel, the problems one after another) and writes the
/// page; returns its path. A problem whose data file is missing is found before anything runs: if
/// it was named on the command line the command stops at once; otherwise it is skipped with a note
/// in the terminal and on the page. A problem that fails is reported and the others still run; the
/// page then holds the problems that finished and the command fails naming the others (if none
/// finished, no page is written). The page merges with the one already in `--page` (its
/// `leaderboard/boards.json`): the problems this call ran replace theirs, the others stay.
// Long: the command's argument checks, runs and page in the order it does them; each step is a call.
pub fn leaderboard(opts: &LeaderboardOptions) -> Result<PathBuf, CliError> {
    let dir = opts.specs.clone().unwrap_or_else(|| Path::new(DEFAULT_SPECS_DIR).join("leaderboard"));
    if !dir.is_dir() {
        return Err(CliError::msg(format!(
            "no suite folder at `{}` (the source tree's specs/leaderboard/); pass --specs DIR",
            dir.display()
        )));
    }
    if opts.runs == Some(0) {
        return Err(CliError::msg("--runs must be at least 1"));
    }
    let all = discover(&dir)?;
    for p in &opts.problems {
        if !all.iter().any(|a| &a.name == p) {
            let names: Vec<&str> = all.iter().map(|a| a.name.as_str()).collect();
            return Err(CliError::msg(format!(
                "unknown problem `{p}`{}; the suite has: {}",
                bohf_core::closest_name(p, &names).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default(),
                names.join(", ")
            )));
        }
    }
    let registry = bohf_registry::builtin();
    // Every spec is checked before anything runs.
    let prepared = all
        .iter()
        .filter(|p| opts.problems.is_empty() || opts.problems.contains(&p.name))
        .map(|p| {
            let problem = SuiteProblem::prepare(p, opts.quick, opts.runs, &registry)?;
            Ok(match &opts.data {
                Some(d) => problem.with_data_dir(d),
                None => problem,
            })
        })
        .collect::<Result<Vec<_>, bohf_experiments::ExperimentError>>()?;
    // Missing data is found before anything runs.
    let mut problems = Vec::new();
    let mut skipped = Vec::new();
    for p in prepared {
        match p.missing_data() {
            Some(why) if opts.problems.contains(&p.spec.name) => {
                return Err(CliError::msg(format!("{}: {why}; nothing was run", p.name())));
            }
            Some(why) => {
                eprintln!("{}: skipped: {why}", p.name());
                skipped.push(Skipped { name: p.name().to_string(), reason: why });
            }
            None => problems.push(p),
        }
    }
    if problems.is_empty() {
        return Err(CliError::msg("no problem of the suite can run (see above); nothing was run"));
    }
    let start = Instant::now();
    let progress = crate::progress::for_stderr();
    let images = opts.page.join("leaderboard");
    let mut boards: Vec<ProblemBoard> = Vec::new();
    let mut failed = Vec::new();
    for p in &problems {
        for n in &p.not_applicable {
            eprintln!("{}: {} n/a: {}", p.name(), n.label, n.reason);
        }
        match run_problem(p, &opts.out, &images, opts.threads, opts.resume, &registry, &*progress) {
            Ok(b) => boards.push(b),
            Err(e) => {
                eprintln!("{}: FAILED: {e}", p.name());
                failed.push(format!("{}: {e}", p.name()));
            }
        }
    }
    if boards.is_empty() {
        // Nothing finished: an earlier page stays as it is.
        return Err(CliError::msg(format!("every problem failed:\n{}", failed.join("\n"))));
    }
    let suite: Vec<String> = all.iter().map(|p| p.name.clone()).collect();
    let earlier = read_boards(&opts.page)?.map(|mut b| {
        // Problems no longer in the suite leave the page.
        b.boards.retain(|x| suite.contains(&x.name));
        b.skipped.retain(|x| suite.contains(&x.name));
        b
    });
    if earlier.is_none() && !opts.problems.is_empty() && opts.page.join("leaderboard.md").exists() {
        eprintln!(
            "note: `{}` has no leaderboard/boards.json (written by an older bohf): the page is rewritten with \
             this call's problems only",
            opts.page.display()
        );
    }
    let (boards, skipped) = merge_boards(earlier, boards, skipped, &suite);
    let page = write_page(&opts.page, &boards, &skipped, &command_line(opts), start.elapsed().as_secs_f64())?;
    if failed.is_empty() {
        Ok(page)
    } else {
        Err(CliError::msg(format!(
            "{} problem(s) failed (the page `{}` holds the others):\n{}",
            failed.len(),
            page.display(),
            failed.join("\n")
        )))
    }
}
