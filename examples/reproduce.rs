//! Reproduces the MR-LPF paper's Figure 1 and the PF-TS paper's Figures 2 and 4 from the specs in
//! `specs/`, and writes the reports in `docs/reproduction/`.
//!
//! ```text
//! cargo run --release --example reproduce -- [--quick] [--index] [--out DIR] [--raw DIR] [NAME…]
//! ```
//!
//! * `NAME…`: the panels to run (spec names = file stems of `specs/*.toml`); all by default.
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
//! build the index). The index `README.md` is rebuilt from every `*.horizon.csv` in the folder and
//! states, per paper claim, whether it reproduced under the rule of [`compare`].
//!
//! The panels, claims and reports live in `bohf_experiments::reproduce` (shared with the
//! `bohf reproduce` command); this example only walks the spec folder.

pub use bohf::experiments::reproduce::*;
use bohf::experiments::{Experiment, Registry, write_atomic};
use std::path::{Path, PathBuf};
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

/// The spec files of `dir`, sorted by name.
pub fn spec_files(dir: &Path) -> Result<Vec<PathBuf>, BoxError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Runs the selected panels, writes their reports and rebuilds the index; returns the results of
/// the panels run.
pub fn run(opts: &Options) -> Result<Vec<PanelResult>, BoxError> {
    let files = spec_files(&opts.specs_dir)?;
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    for n in &opts.names {
        if !files.iter().any(|f| &stem(f) == n) {
            let all: Vec<String> = files.iter().map(|f| stem(f)).collect();
            return Err(format!("no spec `{n}` in {}; available: {}", opts.specs_dir.display(), all.join(", ")).into());
        }
    }
    let selected: Vec<&PathBuf> = if opts.index_only {
        Vec::new()
    } else {
        files.iter().filter(|f| opts.names.is_empty() || opts.names.contains(&stem(f))).collect()
    };
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| format!("cannot create {}: {e}", opts.out_dir.display()))?;
    // A panel that fails (e.g. a missing data file) is reported and the others still run.
    let mut done = Vec::new();
    let mut failed = Vec::new();
    for file in selected {
        match run_panel(file, opts) {
            Ok(r) => done.push(r),
            Err(e) => {
                eprintln!("{}: FAILED: {e}", stem(file));
                failed.push(format!("{}: {e}", stem(file)));
            }
        }
    }
    let index = build_index(&opts.out_dir, &files)?;
    write_atomic(opts.out_dir.join("README.md"), index.as_bytes())?;
    eprintln!("index: {}", opts.out_dir.join("README.md").display());
    if failed.is_empty() {
        Ok(done)
    } else {
        Err(format!("{} panel(s) failed:\n{}", failed.len(), failed.join("\n")).into())
    }
}

/// Runs one spec file and writes its report.
fn run_panel(file: &Path, opts: &Options) -> Result<PanelResult, BoxError> {
    let text = std::fs::read_to_string(file)?;
    let base = file.parent().unwrap_or(Path::new("."));
    let panel = PreparedPanel::new(&text, file, base, opts.quick, None)?;
    let name = panel.spec.name.clone();
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if name != stem {
        return Err(format!("{}: the spec's name `{name}` must equal its file stem `{stem}`", file.display()).into());
    }
    let experiment = Experiment::new(panel.spec.clone(), &Registry::builtin())?;
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
    let summary = results.summary()?;
    let command =
        format!("cargo run --release --example reproduce -- {}{name}", if opts.quick { "--quick " } else { "" });
    let link = format!("../../specs/{name}.toml");
    Ok(write_panel_report(&opts.out_dir, &experiment, &panel, &summary, elapsed, &command, &link)?)
}
