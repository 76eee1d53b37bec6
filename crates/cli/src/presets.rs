//! `bohf reproduce`: the papers' experiments as named presets (the specs of `specs/`, embedded in
//! the binary).
//!
//! A preset's relative data path (the catalyst panel's OCx24 CSV) is resolved against the `specs/`
//! folder of the source tree the binary was built from ([`SPECS_DIR`]), as `bohf run specs/….toml`
//! would; `--data FILE` points it elsewhere.

use crate::CliError;
use crate::run::{Outcome, RunOptions, run_experiment, stored_spec};
use bohf_experiments::reproduce::{PreparedPanel, write_panel_report};
use bohf_experiments::{Experiment, ProblemSpec, Registry};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One preset.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    /// Its name (the spec's `name`, its file stem in `specs/`).
    pub name: &'static str,
    /// The paper, figure or table it reproduces.
    pub source: &'static str,
    /// The spec text.
    pub text: &'static str,
}

/// The `specs/` folder of the source tree (the base of the presets' relative data paths).
pub const SPECS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../specs");

macro_rules! preset {
    ($name:literal, $source:literal) => {
        Preset { name: $name, source: $source, text: include_str!(concat!("../../../specs/", $name, ".toml")) }
    };
}

/// Every preset, in the order of `bohf reproduce --list`.
pub const PRESETS: &[Preset] = &[
    preset!("mrlpf-fig1a-rkhs-se", "MR-LPF (Kayal et al. 2025), Figure 1(a): RKHS function, SE kernel, T = 300"),
    preset!("mrlpf-fig1b-rkhs-matern52", "MR-LPF, Figure 1(b): RKHS function, Matérn-5/2, T = 300"),
    preset!("mrlpf-fig1c-rkhs-matern32", "MR-LPF, Figure 1(c): RKHS function, Matérn-3/2, T = 300"),
    preset!("mrlpf-fig1d-ackley-se", "MR-LPF, Figure 1(d): Ackley, SE kernel, T = 2000"),
    preset!("mrlpf-fig1e-ackley-matern52", "MR-LPF, Figure 1(e): Ackley, Matérn-5/2, T = 2000"),
    preset!("mrlpf-fig1f-ackley-matern32", "MR-LPF, Figure 1(f): Ackley, Matérn-3/2, T = 2000"),
    preset!("pfts-fig2-ackley", "PF-TS (Lazzaro et al. 2026), Figure 2(a, b): flipped Ackley, 40 points, T = 300"),
    preset!("pfts-fig2-catalyst", "PF-TS, Figure 2(c, d): OCx24 catalyst (needs the data file), T = 800"),
    preset!("pfts-fig4-rkhs", "PF-TS, Figure 4(c, d): RKHS function, Matérn-5/2, 30 points, T = 200"),
];

/// The preset called `name`; the error lists them and suggests the closest.
pub fn find(name: &str) -> Result<&'static Preset, CliError> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        CliError::msg(format!(
            "unknown preset `{name}`{}; valid presets: {} (see `bohf reproduce --list`)",
            crate::suggest(name, &names).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default(),
            names.join(", ")
        ))
    })
}

/// The `--list` text.
pub fn list() -> String {
    let w = PRESETS.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut s = String::from("Presets (bohf reproduce NAME [--quick] [--runs R]):\n");
    for p in PRESETS {
        s.push_str(&format!("  {:w$}  {}\n", p.name, p.source));
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
    /// The data file of the catalyst preset.
    pub data: Option<PathBuf>,
    /// Threads, shard, resume, output folder.
    pub run: RunOptions,
}

/// Runs a preset into `opts.run.out`: the runner's files (spec.toml, runs/, steps.csv,
/// summary.json, plots) and the report (`NAME.md`, `NAME-*.png|svg`, `NAME.horizon.csv`).
pub fn reproduce(preset: &Preset, opts: &ReproduceOptions) -> Result<Option<PathBuf>, CliError> {
    let origin = Path::new(SPECS_DIR).join(format!("{}.toml", preset.name));
    let mut panel = PreparedPanel::new(preset.text, &origin, Path::new(SPECS_DIR), opts.quick, opts.runs)?;
    if let ProblemSpec::Catalyst(c) = &mut panel.spec.problem {
        if let Some(d) = &opts.data {
            c.path = d.clone();
        }
        if !c.path.exists() {
            return Err(CliError::msg(format!(
                "preset `{}` needs the OCx24 data file, not found at `{}`; get `ExpDataDump_241113_clean.csv` \
                 from github.com/facebookresearch/fairchem (src/fairchem/applications/ocx/data/experimental_data/) \
                 and pass --data FILE",
                preset.name,
                c.path.display()
            )));
        }
        if let ProblemSpec::Catalyst(shown) = &mut panel.shown.problem {
            shown.path = stored_spec(panel.spec.clone()).problem_path().unwrap_or_default();
        }
    }
    let experiment = Experiment::new(panel.spec.clone(), &Registry::builtin())?;
    let start = Instant::now();
    let results = match run_experiment(&experiment, &opts.run)? {
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
    let elapsed = start.elapsed().as_secs_f64();
    let summary = results.summary()?;
    let command = format!(
        "bohf reproduce {}{}{}",
        preset.name,
        if opts.quick { " --quick" } else { "" },
        opts.runs.map(|r| format!(" --runs {r}")).unwrap_or_default()
    );
    write_panel_report(&opts.run.out, &experiment, &panel, &summary, elapsed, &command, "spec.toml")?;
    print!("{}", crate::report::terminal_table(&summary));
    Ok(Some(opts.run.out.join(format!("{}.md", preset.name))))
}

/// The data path of a catalyst problem.
trait ProblemPath {
    fn problem_path(&self) -> Option<PathBuf>;
}

impl ProblemPath for bohf_experiments::ExperimentSpec {
    fn problem_path(&self) -> Option<PathBuf> {
        match &self.problem {
            ProblemSpec::Catalyst(c) => Some(c.path.clone()),
            _ => None,
        }
    }
}
