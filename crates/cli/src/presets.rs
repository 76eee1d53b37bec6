//! `bohf reproduce`: the papers' experiments as named presets, the spec files of a presets folder
//! found by [`bohf_reproduce::discover`] (as `examples/reproduce.rs` finds them).
//!
//! The folder is `--specs DIR`, by default the `specs/` folder of the source tree the binary was
//! built from ([`DEFAULT_SPECS_DIR`], fixed at build time); if it is missing (the binary was moved
//! to a machine without the source tree), the error says so and asks for `--specs DIR`. A preset's
//! relative data path (the catalyst panel's OCx24 CSV, the SVM panels' magic04.data) is resolved
//! against that folder, as `bohf run specs/….toml` would; `--data FILE` points it elsewhere.

use crate::CliError;
use bohf_experiments::folder::{Outcome, RunOptions, run_experiment, stored_spec};
use bohf_experiments::{Experiment, ProblemSpec};
use bohf_reproduce::table2::{Table2Spec, write_table2};
use bohf_reproduce::{Paper, PreparedPanel, Preset, QUICK_RUNS, discover, write_report};
use std::path::{Path, PathBuf};

/// The `specs/` folder of the source tree the binary was built from: the default presets folder.
pub const DEFAULT_SPECS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../specs");

/// The presets of `dir` (default [`DEFAULT_SPECS_DIR`]); a missing folder is an error that says
/// how to point at one.
pub fn load(dir: Option<&Path>) -> Result<Vec<Preset>, CliError> {
    let dir = dir.map_or_else(|| PathBuf::from(DEFAULT_SPECS_DIR), Path::to_path_buf);
    if !dir.is_dir() {
        return Err(CliError::msg(format!(
            "no presets folder at `{}` (the `specs/` folder of the source tree bohf was built from, or --specs); \
             pass --specs DIR with the spec files (e.g. the repository's specs/)",
            dir.display()
        )));
    }
    Ok(discover(&dir)?)
}

/// The preset called `name`; the error lists them and suggests the closest.
pub fn find<'a>(presets: &'a [Preset], name: &str) -> Result<&'a Preset, CliError> {
    presets.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
        CliError::msg(format!(
            "unknown preset `{name}`{}; valid presets: {} (see `bohf reproduce --list`)",
            bohf_core::closest_name(name, &names).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default(),
            names.join(", ")
        ))
    })
}

/// The `--list` text: each preset with the paper and figure of its `[reproduces]` section.
pub fn list(presets: &[Preset]) -> String {
    let w = presets.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut s = String::from("Presets (bohf reproduce NAME [--quick] [--runs R]):\n");
    for p in presets {
        s.push_str(&format!("  {:w$}  {}\n", p.name, p.source()));
    }
    s
}

/// Options of `bohf reproduce`.
#[derive(Debug, Clone)]
pub struct ReproduceOptions {
    /// Few runs, short horizon.
    pub quick: bool,
    /// Runs per algorithm (overrides the preset's, after `quick`).
    pub runs: Option<usize>,
    /// The data file of the catalyst preset or of the SVM presets.
    pub data: Option<PathBuf>,
    /// Threads, shard, resume, output folder.
    pub run: RunOptions,
}

/// Runs a preset into `opts.run.out`: the runner's files (spec.toml, runs/, steps.csv,
/// summary.json, plots) and the report (`NAME.md`, `NAME-*.png|svg`, and `NAME.horizon.csv`, or
/// for a COBOL preset `NAME.cobol.json` with plots against f-evaluations, for a COMP-GP-UCB preset
/// `NAME.compgpucb.json` with plots of S(Λ), R_c, R_l against spent budget).
/// A POP-BO Table 2 preset (`reproduces.paper = "popbo"`) writes `NAME.md` only (see
/// [`reproduce_table2`]).
pub fn reproduce(preset: &Preset, opts: &ReproduceOptions) -> Result<Option<PathBuf>, CliError> {
    if preset.paper() == Paper::PopBo {
        return reproduce_table2(preset, opts).map(Some);
    }
    let mut panel = PreparedPanel::new(&preset.text, &preset.path, preset.dir(), opts.quick, opts.runs)?;
    let svm = matches!(panel.spec.problem, ProblemSpec::Svm(_));
    if let Some(path) = panel.spec.problem.data_path_mut() {
        if let Some(d) = &opts.data {
            *path = d.clone();
        }
        if !path.exists() {
            let (what, hint) = match svm {
                true => (
                    "the MAGIC data file",
                    "get `magic04.data` from the UCI repository (archive.ics.uci.edu/dataset/159/magic+gamma+telescope)",
                ),
                false => (
                    "the OCx24 data file",
                    "get `ExpDataDump_241113_clean.csv` from github.com/facebookresearch/fairchem \
                     (src/fairchem/applications/ocx/data/experimental_data/)",
                ),
            };
            return Err(CliError::msg(format!(
                "preset `{}` needs {what}, not found at `{}`; {hint} and pass --data FILE",
                preset.name,
                path.display()
            )));
        }
        let stored = stored_spec(panel.spec.clone()).problem.data_path().map(Path::to_path_buf).unwrap_or_default();
        if let Some(shown) = panel.shown.problem.data_path_mut() {
            *shown = stored;
        }
    }
    panel.spec = bohf_experiments::folder::with_default_cache(panel.spec.clone(), &opts.run.out);
    let experiment = Experiment::new(panel.spec.clone(), &bohf_registry::builtin())?;
    let results = match run_experiment(&experiment, &opts.run, &*crate::progress::for_stderr())? {
        Outcome::Complete(r) => r,
        Outcome::ShardDone { mine, finished, total } => {
            eprintln!(
                "shard done ({mine} runs); {finished} of {total} runs finished in `{}`; \
                 `bohf merge {}` once every shard is done",
                opts.run.out.display(),
                opts.run.out.display()
            );
            return Ok(None);
        }
    };
    // The folder's record adds up the calls that ran its runs (a `--resume` continues the time).
    let time = bohf_experiments::folder::recorded_wall_time(&opts.run.out);
    let summary = results.summary()?;
    let command = format!(
        "bohf reproduce {}{}{}",
        preset.name,
        if opts.quick { " --quick" } else { "" },
        opts.runs.map(|r| format!(" --runs {r}")).unwrap_or_default()
    );
    write_report(&opts.run.out, &experiment, &panel, &results, time, &command, "spec.toml")?;
    print!("{}", crate::report::terminal_table(&summary));
    Ok(Some(opts.run.out.join(format!("{}.md", preset.name))))
}

/// Runs a POP-BO Table 2 preset on a pool of `--threads` threads and writes `NAME.md` into
/// `opts.run.out`. `--quick` caps the runs per function at [`QUICK_RUNS`] and skips the GP slope;
/// `--runs` sets the runs per function. Shards and `--resume` do not apply (the table is one
/// piece, a few minutes long).
fn reproduce_table2(preset: &Preset, opts: &ReproduceOptions) -> Result<PathBuf, CliError> {
    if opts.run.shard.is_some() || opts.run.resume || opts.data.is_some() {
        return Err(CliError::msg(format!(
            "preset `{}` (POP-BO Table 2) runs in one piece: --shard, --resume and --data do not apply",
            preset.name
        )));
    }
    let spec = Table2Spec::of_preset(preset)?;
    let runs = opts.runs.unwrap_or(if opts.quick { spec.runs.min(QUICK_RUNS) } else { spec.runs });
    let gp_runs = if opts.quick { 0 } else { spec.gp_slope.map_or(0, |g| g.runs) };
    std::fs::create_dir_all(&opts.run.out)
        .map_err(|e| CliError::msg(format!("cannot create `{}`: {e}", opts.run.out.display())))?;
    let out = opts.run.out.join(format!("{}.md", preset.name));
    let command = format!(
        "bohf reproduce {}{}{}",
        preset.name,
        if opts.quick { " --quick" } else { "" },
        opts.runs.map(|r| format!(" --runs {r}")).unwrap_or_default()
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.run.threads)
        .build()
        .map_err(|e| CliError::msg(format!("cannot start {} threads: {e}", opts.run.threads)))?;
    pool.install(|| write_table2(&spec, runs, gp_runs, &out, &command))?;
    Ok(out)
}
