//! Reproduces the papers' experiments from the presets in `specs/` (the MR-LPF paper's Figure 1,
//! the PF-TS paper's Figures 2 and 4, POP-BO's Table 2 on the grid and over the box, COBOL's
//! Experiments A–C and bohf's PMV case), and writes the reports in `docs/reproduction/`.
//!
//! ```text
//! cargo run --release --example reproduce -- [--quick] [--index] [--out DIR] [--raw DIR] [NAME…]
//! ```
//!
//! * `NAME…`: the presets to run (spec names = file stems of `specs/*.toml`); all by default.
//!   `popbo-table2` and `popbo-table2-box` (about 3 minutes each on 2 cores) write
//!   `popbo-table2.md` and `popbo-table2-box.md` only.
//! * `--quick`: a smoke test, at most [`QUICK_RUNS`] runs and [`QUICK_HORIZON`] steps per panel,
//!   written by default to `target/reproduction-quick/` so that it never overwrites the reports.
//! * `--out DIR`: where the reports go (default `docs/reproduction/`, or the quick folder).
//! * `--raw DIR`: also write each panel's full results folder (spec, per-step CSV, JSON summary)
//!   to `DIR/<name>/` (large; not committed).
//! * `--index`: run nothing, only rebuild the index from the panels' files in the report folder.
//! * Threads: the runs of a panel execute on rayon's global pool; set `RAYON_NUM_THREADS` to choose
//!   its size. Results do not depend on it (every run has its own random streams).
//!
//! For each panel the program writes `<name>.md` (settings, the table at the horizon with mean ±
//! standard error and the wall time per run, the plots), `<name>-instantaneous.{png,svg}` and
//! `<name>-cumulative.{png,svg}`, and `<name>.horizon.csv` (the values at the horizon, read back to
//! build the index). A COBOL preset (`reproduces.paper = "cobol"`) writes COBOL's report instead:
//! `<name>.md`, `<name>-{simple,sum-simple,queries}.{png,svg}` against f-evaluations and
//! `<name>.cobol.json` (see `bohf_reproduce::cobol`); a COMP-GP-UCB preset writes
//! `<name>.md`, `<name>-{simple,comparisons,labels}.{png,svg}` (S(Λ), R_c, R_l against spent budget)
//! and `<name>.compgpucb.json` (`bohf_reproduce::compgpucb`). The index `README.md` is
//! rebuilt from every `*.horizon.csv`, `*.cobol.json` and `*.compgpucb.json` in the folder and states, per paper claim, whether it
//! reproduced under the rule of [`compare`] (COBOL's handover and no-harm rules are its own).
//!
//! The presets (found by `bohf_reproduce::discover` in `specs/`, as `bohf reproduce`
//! finds them), claims and reports live in `bohf_reproduce`; this example only parses
//! its options and loops over the presets.

use bohf::experiments::{Experiment, write_atomic};
pub use bohf::reproduce::*;
use std::path::PathBuf;
use std::time::Instant;

type BoxError = Box<dyn std::error::Error>;

/// The workspace root (this example belongs to the root package).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Command-line options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Few runs and a short horizon.
    pub quick: bool,
    /// The panels to run; empty = all specs of `specs_dir`.
    pub names: Vec<String>,
    /// The folder of the spec files.
    pub specs_dir: PathBuf,
    /// The report folder.
    pub out_dir: PathBuf,
    /// Where to write the full results folders, if anywhere.
    pub raw_dir: Option<PathBuf>,
    /// Only rebuild the index.
    pub index_only: bool,
}

impl Options {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, BoxError> {
        let root = workspace_root();
        let (mut quick, mut names, mut out, mut raw, mut index_only) = (false, Vec::new(), None, None, false);
        let mut args = args.into_iter();
        while let Some(a) = args.next() {
            match a.as_str() {
                "--quick" => quick = true,
                "--index" => index_only = true,
                "--out" => out = Some(PathBuf::from(args.next().ok_or("--out needs a folder")?)),
                "--raw" => raw = Some(PathBuf::from(args.next().ok_or("--raw needs a folder")?)),
                "-h" | "--help" => {
                    return Err("usage: reproduce [--quick] [--index] [--out DIR] [--raw DIR] [NAME...]".into());
                }
                s if s.starts_with('-') => return Err(format!("unknown option `{s}`").into()),
                _ => names.push(a),
            }
        }
        let out_dir = out.unwrap_or_else(|| {
            if quick { root.join("target").join("reproduction-quick") } else { root.join("docs").join("reproduction") }
        });
        Ok(Self { quick, names, specs_dir: root.join("specs"), out_dir, raw_dir: raw, index_only })
    }
}

fn main() {
    let result = Options::parse(std::env::args().skip(1)).and_then(|o| run(&o));
    if let Err(e) = result {
        eprintln!("reproduce: {e}");
        std::process::exit(1);
    }
}

/// Runs the selected panels, writes their reports and rebuilds the index; returns the results of
/// the panels run (not the COBOL and COMP-GP-UCB ones, whose results are their `<name>.cobol.json`
/// and `<name>.compgpucb.json`).
pub fn run(opts: &Options) -> Result<Vec<PanelResult>, BoxError> {
    let presets = discover(&opts.specs_dir)?;
    for n in &opts.names {
        if !presets.iter().any(|p| &p.name == n) {
            let all: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
            return Err(format!("no spec `{n}` in {}; available: {}", opts.specs_dir.display(), all.join(", ")).into());
        }
    }
    let selected: Vec<&Preset> = if opts.index_only {
        Vec::new()
    } else {
        presets.iter().filter(|p| opts.names.is_empty() || opts.names.contains(&p.name)).collect()
    };
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| format!("cannot create {}: {e}", opts.out_dir.display()))?;
    // A panel that fails (e.g. a missing data file) is reported and the others still run.
    let mut done = Vec::new();
    let mut failed = Vec::new();
    for preset in selected {
        if preset.paper() == Paper::PopBo {
            if let Err(e) = run_table2(preset, opts) {
                eprintln!("{}: FAILED: {e}", preset.name);
                failed.push(format!("{}: {e}", preset.name));
            }
            continue;
        }
        match run_panel(preset, opts) {
            Ok(r) => done.extend(r),
            Err(e) => {
                eprintln!("{}: FAILED: {e}", preset.name);
                failed.push(format!("{}: {e}", preset.name));
            }
        }
    }
    let index = build_index(&opts.out_dir, &presets)?;
    write_atomic(opts.out_dir.join("README.md"), index.as_bytes())?;
    eprintln!("index: {}", opts.out_dir.join("README.md").display());
    if failed.is_empty() {
        Ok(done)
    } else {
        Err(format!("{} panel(s) failed:\n{}", failed.len(), failed.join("\n")).into())
    }
}

/// Runs a POP-BO Table 2 preset and writes `<name>.md` (`--quick`: at most [`QUICK_RUNS`] runs per
/// function, no GP slope).
fn run_table2(preset: &Preset, opts: &Options) -> Result<(), BoxError> {
    let spec = table2::Table2Spec::of_preset(preset)?;
    let (runs, gp_runs) =
        if opts.quick { (spec.runs.min(QUICK_RUNS), 0) } else { (spec.runs, spec.gp_slope.map_or(0, |g| g.runs)) };
    let command = format!(
        "cargo run --release --example reproduce -- {}{}",
        if opts.quick { "--quick " } else { "" },
        preset.name
    );
    table2::write_table2(&spec, runs, gp_runs, &opts.out_dir.join(format!("{}.md", preset.name)), &command)?;
    Ok(())
}

/// Runs one preset (a panel) and writes its report; a COBOL or COMP-GP-UCB preset's result (its
/// `<name>.cobol.json` / `<name>.compgpucb.json`) is not a [`PanelResult`] (`None`).
fn run_panel(preset: &Preset, opts: &Options) -> Result<Option<PanelResult>, BoxError> {
    let mut panel = PreparedPanel::new(&preset.text, &preset.path, preset.dir(), opts.quick, None)?;
    // The SVM presets share one cached table, kept under target/ (not in the published folder).
    panel.spec = bohf::experiments::folder::with_default_cache(
        panel.spec.clone(),
        &opts.specs_dir.join("..").join("target").join("reproduction"),
    );
    let name = panel.spec.name.clone();
    let experiment = Experiment::new(panel.spec.clone(), &bohf::registry::builtin())?;
    eprintln!(
        "{name}: {} algorithms × {} runs, T = {} …",
        experiment.spec().algorithms.len(),
        experiment.spec().runs,
        experiment.spec().horizon
    );
    let start = Instant::now();
    let results = experiment.run()?;
    let elapsed = start.elapsed().as_secs_f64();
    eprintln!("{name}: done in {elapsed:.1} s");
    if let Some(raw) = &opts.raw_dir {
        bohf::experiments::write_results(&results, raw.join(&name))?;
    }
    let command =
        format!("cargo run --release --example reproduce -- {}{name}", if opts.quick { "--quick " } else { "" });
    let link = format!("../../specs/{name}.toml");
    let time = bohf::experiments::folder::WallTime { seconds: elapsed, runs: results.runs().len() };
    Ok(write_report(&opts.out_dir, &experiment, &panel, &results, time, &command, &link)?.panel_result())
}
