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

use bohf::experiments::summary::AtHorizon;
use bohf::experiments::{Experiment, ExperimentSpec, MeanSe, Metric, Registry, Summary, plot_atomic, write_atomic};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs per algorithm in `--quick` mode (at most).
pub const QUICK_RUNS: usize = 3;
/// Horizon in `--quick` mode (at most).
pub const QUICK_HORIZON: usize = 40;
/// A difference counts when it exceeds this many standard errors of the difference.
pub const SE_MULTIPLE: f64 = 2.0;

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

// ------------------------------------------------------------------------------------------------
// Panels and claims
// ------------------------------------------------------------------------------------------------

/// The paper a panel belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    /// Kayal et al. 2025, Figure 1: per-step regret r_T at the horizon.
    MrLpf,
    /// Lazzaro et al. 2026, Figures 2 and 4: cumulative regret R(T) at the horizon.
    PfTs,
    /// A spec that is not one of the papers' panels: both metrics, no claim.
    Other,
}

impl Paper {
    /// The paper of a spec name (by its prefix).
    pub fn of(name: &str) -> Self {
        if name.starts_with("mrlpf-") {
            Paper::MrLpf
        } else if name.starts_with("pfts-") {
            Paper::PfTs
        } else {
            Paper::Other
        }
    }

    /// The metric the paper's claim is about.
    pub fn metric(self) -> Metric {
        match self {
            Paper::MrLpf => Metric::Instantaneous,
            Paper::PfTs | Paper::Other => Metric::Cumulative,
        }
    }

    fn metric_name(self) -> &'static str {
        match self.metric() {
            Metric::Instantaneous => "per-step regret r_T at the horizon",
            Metric::Cumulative => "cumulative regret R(T) at the horizon",
            Metric::Simple => "simple regret at the horizon",
        }
    }
}

/// The outcome of comparing a against b.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// a < b by more than [`SE_MULTIPLE`] standard errors of the difference.
    Lower,
    /// a > b by more than [`SE_MULTIPLE`] standard errors of the difference.
    Higher,
    /// |a − b| ≤ [`SE_MULTIPLE`] s.e. of the difference.
    Indistinguishable,
}

/// The difference d = a − b of two means from independent runs, its standard error
/// s.e.(d) = √(s.e.(a)² + s.e.(b)²), and the order: `Lower` if d < −2 s.e.(d), `Higher` if
/// d > 2 s.e.(d), else `Indistinguishable`. (Different algorithms' runs use different random
/// streams, so their means are independent.)
pub fn compare(a: MeanSe, b: MeanSe) -> (f64, f64, Order) {
    let d = a.mean - b.mean;
    let se = (a.se * a.se + b.se * b.se).sqrt();
    let order = if d < -SE_MULTIPLE * se {
        Order::Lower
    } else if d > SE_MULTIPLE * se {
        Order::Higher
    } else {
        Order::Indistinguishable
    };
    (d, se, order)
}

/// The values of one algorithm at the horizon, as stored in `<name>.horizon.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct AlgorithmRow {
    /// Its label.
    pub label: String,
    /// Number of runs.
    pub runs: usize,
    /// The values at T.
    pub at: AtHorizon,
}

/// A finished panel, as stored in `<name>.horizon.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelResult {
    /// The spec name.
    pub name: String,
    /// The plot title.
    pub title: String,
    /// T.
    pub horizon: usize,
    /// Whether this was a `--quick` smoke test.
    pub quick: bool,
    /// Wall time of the whole panel (all runs of all algorithms), seconds.
    pub elapsed_s: f64,
    /// One row per algorithm, in spec order.
    pub algorithms: Vec<AlgorithmRow>,
}

impl PanelResult {
    fn from_summary(name: &str, summary: &Summary, quick: bool, elapsed_s: f64) -> Self {
        Self {
            name: name.to_string(),
            title: summary.title.clone(),
            horizon: summary.spec.horizon,
            quick,
            elapsed_s,
            algorithms: summary
                .algorithms
                .iter()
                .map(|a| AlgorithmRow { label: a.label.clone(), runs: a.runs, at: a.at_horizon })
                .collect(),
        }
    }

    /// The row of the algorithm labelled `label`.
    pub fn get(&self, label: &str) -> Option<&AlgorithmRow> {
        self.algorithms.iter().find(|a| a.label == label)
    }

    /// The paper metric of `label`.
    pub fn metric(&self, label: &str) -> Option<MeanSe> {
        let at = &self.get(label)?.at;
        Some(match Paper::of(&self.name).metric() {
            Metric::Instantaneous => at.instantaneous,
            Metric::Cumulative => at.cumulative,
            Metric::Simple => at.simple,
        })
    }

    /// The CSV text: one header comment with the panel's fields, then one row per algorithm.
    /// Numbers are written with Rust's shortest round-trip formatting, so they parse back exactly.
    pub fn to_csv(&self) -> Result<String, BoxError> {
        if self.title.contains(['\n', '\t']) || self.name.contains(['\n', '\t']) {
            return Err(format!("`{}` / `{}` contains a tab or newline", self.name, self.title).into());
        }
        if let Some(a) = self.algorithms.iter().find(|a| a.label.contains([',', '\n', '\t'])) {
            return Err(format!("label `{}` contains a comma, tab or newline", a.label).into());
        }
        let mut s = format!(
            "# name\t{}\n# title\t{}\n# horizon\t{}\n# quick\t{}\n# elapsed_s\t{:?}\n",
            self.name, self.title, self.horizon, self.quick, self.elapsed_s
        );
        s.push_str("label,runs,instantaneous_mean,instantaneous_se,cumulative_mean,cumulative_se,simple_mean,simple_se,wall_s_mean,wall_s_se\n");
        for a in &self.algorithms {
            let h = &a.at;
            writeln!(
                s,
                "{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
                a.label,
                a.runs,
                h.instantaneous.mean,
                h.instantaneous.se,
                h.cumulative.mean,
                h.cumulative.se,
                h.simple.mean,
                h.simple.se,
                h.wall_seconds.mean,
                h.wall_seconds.se
            )?;
        }
        Ok(s)
    }

    /// Parses [`PanelResult::to_csv`].
    pub fn from_csv(text: &str) -> Result<Self, BoxError> {
        let mut header = std::collections::HashMap::new();
        let mut rows = Vec::new();
        let mut seen_columns = false;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if let Some(rest) = line.strip_prefix("# ") {
                let (k, v) = rest.split_once('\t').ok_or_else(|| format!("bad header line `{line}`"))?;
                header.insert(k.to_string(), v.to_string());
            } else if !seen_columns {
                seen_columns = true;
            } else {
                let f: Vec<&str> = line.split(',').collect();
                if f.len() != 10 {
                    return Err(format!("expected 10 fields, got {} in `{line}`", f.len()).into());
                }
                let num = |i: usize| -> Result<f64, BoxError> { Ok(f[i].parse::<f64>()?) };
                let ms = |i: usize| -> Result<MeanSe, BoxError> { Ok(MeanSe { mean: num(i)?, se: num(i + 1)? }) };
                rows.push(AlgorithmRow {
                    label: f[0].to_string(),
                    runs: f[1].parse()?,
                    at: AtHorizon { instantaneous: ms(2)?, cumulative: ms(4)?, simple: ms(6)?, wall_seconds: ms(8)? },
                });
            }
        }
        let field = |k: &str| header.get(k).cloned().ok_or_else(|| format!("missing header `{k}`"));
        Ok(Self {
            name: field("name")?,
            title: field("title")?,
            horizon: field("horizon")?.parse()?,
            quick: field("quick")?.parse()?,
            elapsed_s: field("elapsed_s")?.parse()?,
            algorithms: rows,
        })
    }
}

// ------------------------------------------------------------------------------------------------
// Running
// ------------------------------------------------------------------------------------------------

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
    let mut spec = ExperimentSpec::from_file(file)?;
    let name = spec.name.clone();
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if name != stem {
        return Err(format!("{}: the spec's name `{name}` must equal its file stem `{stem}`", file.display()).into());
    }
    // The spec as the report shows it: data paths as written in the file (relative to it), not resolved.
    let mut shown = ExperimentSpec::from_toml_str(&text)?;
    if opts.quick {
        for s in [&mut spec, &mut shown] {
            s.runs = s.runs.min(QUICK_RUNS);
            s.horizon = s.horizon.min(QUICK_HORIZON);
            s.title =
                Some(format!("{} [quick: T = {}, {} runs]", s.title.as_deref().unwrap_or(&name), s.horizon, s.runs));
        }
    }
    let experiment = Experiment::new(spec, &Registry::builtin())?;
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
    let out = &opts.out_dir;
    for metric in [Metric::Instantaneous, Metric::Cumulative] {
        for ext in ["png", "svg"] {
            plot_atomic(&summary, metric, out.join(format!("{name}-{}.{ext}", metric.as_str())))?;
        }
    }
    let result = PanelResult::from_summary(&name, &summary, opts.quick, elapsed);
    write_atomic(out.join(format!("{name}.horizon.csv")), result.to_csv()?.as_bytes())?;
    let md = panel_markdown(&experiment, &shown, &text, &result)?;
    write_atomic(out.join(format!("{name}.md")), md.as_bytes())?;
    Ok(result)
}

// ------------------------------------------------------------------------------------------------
// Reports
// ------------------------------------------------------------------------------------------------

/// `mean ± se` with as many decimals as the standard error needs (two significant digits of the
/// s.e., at least one and at most six decimals).
pub fn pm(m: MeanSe) -> String {
    let decimals = if m.se > 0.0 && m.se.is_finite() { (1 - m.se.log10().floor() as i32).clamp(1, 6) } else { 4 };
    let d = decimals as usize;
    format!("{:.d$} ± {:.d$}", m.mean, m.se)
}

fn signed(d: f64, se: f64) -> String {
    pm(MeanSe { mean: d, se }).replacen('-', "−", 1)
}

/// The report of one panel.
fn panel_markdown(
    experiment: &Experiment,
    shown: &ExperimentSpec,
    spec_text: &str,
    r: &PanelResult,
) -> Result<String, BoxError> {
    let spec = experiment.spec();
    let paper = Paper::of(&r.name);
    let u = experiment.problem().utility();
    let mut s = String::new();
    writeln!(s, "# {}\n", r.title)?;
    if r.quick {
        writeln!(s, "> **Quick smoke test** (`--quick`): few runs and a short horizon; not a reproduction.\n")?;
    }
    writeln!(
        s,
        "Generated by `cargo run --release --example reproduce -- {}{}` from [`specs/{}.toml`](../../specs/{}.toml). \
         Back to the [index](README.md).\n",
        if r.quick { "--quick " } else { "" },
        r.name,
        r.name,
        r.name
    )?;
    writeln!(s, "## Settings\n")?;
    writeln!(s, "- Problem: {}.", experiment.problem().title())?;
    writeln!(
        s,
        "- Candidates: {}; utility range on the respondent's scale max u − min u = {:.4}; x* = candidate {}.",
        u.len(),
        u.max() - u.min(),
        u.argmax()
    )?;
    writeln!(
        s,
        "- Horizon T = {}, {} independent runs per algorithm, base seed {}.",
        spec.horizon, spec.runs, spec.seed
    )?;
    writeln!(
        s,
        "- Algorithms: {}.",
        spec.algorithms.iter().map(|a| format!("{} (`{}`)", a.label(), a.name)).collect::<Vec<_>>().join(", ")
    )?;
    writeln!(s, "- Standard errors: std (ddof = 0) / √runs, as in the authors' plots.")?;
    writeln!(s, "\nFrom the spec file (sources and the choices made where the papers are ambiguous):\n")?;
    for line in spec_text.lines().take_while(|l| l.starts_with('#') || l.trim().is_empty()) {
        if let Some(c) = line.strip_prefix('#') {
            writeln!(s, ">{c}")?;
        }
    }
    writeln!(
        s,
        "\n<details><summary>Full spec as run</summary>\n\n```toml\n{}```\n\n</details>\n",
        shown.to_toml_string()?
    )?;

    writeln!(s, "## Results at the horizon T = {}\n", r.horizon)?;
    writeln!(s, "Paper metric: **{}** (mean ± s.e. over runs).\n", paper.metric_name())?;
    let (first, second) = match paper.metric() {
        Metric::Instantaneous => ("per-step regret r_T", "cumulative regret R(T)"),
        _ => ("cumulative regret R(T)", "per-step regret r_T"),
    };
    writeln!(
        s,
        "| algorithm | runs | **{first}** | {second} | simple regret of x̂_T | wall time per run (s) |\n|---|---|---|---|---|---|"
    )?;
    for a in &r.algorithms {
        let (p, q) = match paper.metric() {
            Metric::Instantaneous => (a.at.instantaneous, a.at.cumulative),
            _ => (a.at.cumulative, a.at.instantaneous),
        };
        writeln!(
            s,
            "| {} | {} | **{}** | {} | {} | {:.3} ± {:.3} |",
            a.label,
            a.runs,
            pm(p),
            pm(q),
            pm(a.at.simple),
            a.at.wall_seconds.mean,
            a.at.wall_seconds.se
        )?;
    }
    writeln!(
        s,
        "\nWall time per run: the algorithm's own calls (construction, suggest, observe, recommend), release build. \
         The whole panel ({} runs) took {:.1} s on rayon's global pool.\n",
        r.algorithms.iter().map(|a| a.runs).sum::<usize>(),
        r.elapsed_s
    )?;
    let claims = claims_of(r);
    if !claims.is_empty() {
        writeln!(s, "## The paper's claims on this panel\n")?;
        writeln!(s, "{}", claims_table(&claims, false))?;
    }
    writeln!(s, "## Plots\n")?;
    writeln!(
        s,
        "Mean over runs with ±1 s.e. bands ([SVG]({n}-instantaneous.svg), [SVG]({n}-cumulative.svg)).\n",
        n = r.name
    )?;
    let order = match paper.metric() {
        Metric::Instantaneous => ["instantaneous", "cumulative"],
        _ => ["cumulative", "instantaneous"],
    };
    for m in order {
        writeln!(s, "![{m} regret]({}-{m}.png)\n", r.name)?;
    }
    Ok(s)
}

/// One claim checked on one panel.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The panel.
    pub panel: String,
    /// The claim, e.g. "MR-LPF < MaxMinLCB".
    pub statement: String,
    /// The values compared and the differences with their s.e.
    pub evidence: String,
    /// Whether it holds under the rule of [`compare`].
    pub holds: bool,
    /// The verdict in words.
    pub verdict: String,
}

fn lower_claim(r: &PanelResult, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (r.metric(a)?, r.metric(b)?);
    let (d, se, order) = compare(ma, mb);
    let (holds, verdict) = match order {
        Order::Lower => (true, "reproduced".to_string()),
        Order::Indistinguishable => (false, format!("not reproduced: no difference beyond {SE_MULTIPLE} s.e.")),
        Order::Higher => (false, format!("not reproduced: {a} is higher")),
    };
    Some(Claim {
        panel: r.name.clone(),
        statement: format!("{a} < {b}"),
        evidence: format!("{a} {}, {b} {}; difference {}", pm(ma), pm(mb), signed(d, se)),
        holds,
        verdict,
    })
}

fn parity_claim(r: &PanelResult, a: &str, b: &str) -> Option<Claim> {
    let (ma, mb) = (r.metric(a)?, r.metric(b)?);
    let (d, se, order) = compare(ma, mb);
    let (holds, verdict) = match order {
        Order::Indistinguishable => (true, format!("reproduced: within {SE_MULTIPLE} s.e.")),
        Order::Lower => (false, format!("not reproduced: {a} is significantly lower (better than claimed)")),
        Order::Higher => (false, format!("not reproduced: {a} is significantly higher")),
    };
    Some(Claim {
        panel: r.name.clone(),
        statement: format!("{a} ≈ {b}"),
        evidence: format!("{a} {}, {b} {}; difference {}", pm(ma), pm(mb), signed(d, se)),
        holds,
        verdict,
    })
}

fn lowest_claim(r: &PanelResult, a: &str) -> Option<Claim> {
    let ma = r.metric(a)?;
    let others: Vec<&AlgorithmRow> = r.algorithms.iter().filter(|x| x.label != a).collect();
    let mut evidence = vec![format!("{a} {}", pm(ma))];
    let mut failures = Vec::new();
    for o in &others {
        let mo = r.metric(&o.label)?;
        let (d, se, order) = compare(ma, mo);
        evidence.push(format!("vs {} {}: {}", o.label, pm(mo), signed(d, se)));
        if order != Order::Lower {
            failures.push(o.label.clone());
        }
    }
    let holds = failures.is_empty();
    Some(Claim {
        panel: r.name.clone(),
        statement: format!("{a} lowest"),
        evidence: evidence.join("; "),
        holds,
        verdict: if holds {
            "reproduced".into()
        } else {
            format!("not reproduced: not significantly below {}", failures.join(", "))
        },
    })
}

const PF_TS: &str = "PF-TS";
const MR_LPF: &str = "MR-LPF";
const MAXMIN: &str = "MaxMinLCB";
const GP_TS: &str = "GP-TS (scalar)";

/// The paper's claims that apply to a panel.
pub fn claims_of(r: &PanelResult) -> Vec<Claim> {
    match Paper::of(&r.name) {
        Paper::MrLpf => lower_claim(r, MR_LPF, MAXMIN).into_iter().collect(),
        Paper::PfTs => [lower_claim(r, PF_TS, MR_LPF), parity_claim(r, PF_TS, MAXMIN), lowest_claim(r, GP_TS)]
            .into_iter()
            .flatten()
            .collect(),
        Paper::Other => Vec::new(),
    }
}

fn claims_table(claims: &[Claim], with_panel: bool) -> String {
    let mut s = String::new();
    if with_panel {
        s.push_str("| panel | claim | values (mean ± s.e.) and difference ± s.e. | verdict |\n|---|---|---|---|\n");
    } else {
        s.push_str("| claim | values (mean ± s.e.) and difference ± s.e. | verdict |\n|---|---|---|\n");
    }
    for c in claims {
        let verdict = if c.holds { format!("**{}**", c.verdict) } else { c.verdict.clone() };
        if with_panel {
            let _ = writeln!(s, "| [{p}]({p}.md) | {} | {} | {verdict} |", c.statement, c.evidence, p = c.panel);
        } else {
            let _ = writeln!(s, "| {} | {} | {verdict} |", c.statement, c.evidence);
        }
    }
    s
}

/// The index: every panel of `files` with a `<name>.horizon.csv` in `out`, the claims' verdicts,
/// and the timings.
pub fn build_index(out: &Path, files: &[PathBuf]) -> Result<String, BoxError> {
    let mut panels = Vec::new();
    let mut missing = Vec::new();
    for f in files {
        let name = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let csv = out.join(format!("{name}.horizon.csv"));
        match std::fs::read_to_string(&csv) {
            Ok(text) => panels.push(PanelResult::from_csv(&text).map_err(|e| format!("{}: {e}", csv.display()))?),
            Err(_) => missing.push(name),
        }
    }
    let mut s = String::from("# Reproduction of the papers' experiments\n\n");
    s.push_str(
        "Generated by `cargo run --release --example reproduce` (`examples/reproduce.rs`) from the specs in \
         [`specs/`](../../specs). Each panel's page gives its settings, the table at the horizon and the plots.\n\n",
    );
    if panels.iter().any(|p| p.quick) {
        s.push_str("> **Some panels below are `--quick` smoke tests** (few runs, short horizon): their verdicts mean nothing.\n\n");
    }
    let _ = writeln!(
        s,
        "**Rule.** Two algorithms differ when their means at the horizon differ by more than {SE_MULTIPLE} standard errors \
         of the difference, s.e.(a − b) = √(s.e.(a)² + s.e.(b)²) (runs of different algorithms are independent; s.e. = \
         std (ddof = 0)/√runs, as in the papers' plots). \"a < b\" holds when a − b < −{SE_MULTIPLE} s.e.; \"a ≈ b\" holds \
         when |a − b| ≤ {SE_MULTIPLE} s.e.; \"a lowest\" when a < b for every other b. Nothing was tuned: every setting is \
         the notes' default, and each spec lists the choices made where the papers are ambiguous.\n"
    );
    if !missing.is_empty() {
        let _ = writeln!(s, "Not run yet: {}.\n", missing.join(", "));
    }

    let mr: Vec<&PanelResult> = panels.iter().filter(|p| Paper::of(&p.name) == Paper::MrLpf).collect();
    if !mr.is_empty() {
        s.push_str("## MR-LPF paper (Kayal et al. 2025), Figure 1\n\n");
        s.push_str(
            "Claim: \"MR-LPF consistently achieves lower regret than MaxMinLCB across all test functions\" \
             (per-step regret, 60 runs). Metric: per-step regret r_T at the horizon.\n\n",
        );
        let claims: Vec<Claim> = mr.iter().flat_map(|p| claims_of(p)).collect();
        s.push_str(&claims_table(&claims, true));
        let held = claims.iter().filter(|c| c.holds).count();
        let _ = writeln!(
            s,
            "\n**Verdict: {}** — MR-LPF is significantly lower on {held} of {} functions{}.\n",
            if held == claims.len() && claims.len() == 6 { "reproduced" } else { "not reproduced" },
            claims.len(),
            if claims.len() < 6 { " (not all six panels have been run)" } else { "" }
        );
    }

    let pf: Vec<&PanelResult> = panels.iter().filter(|p| Paper::of(&p.name) == Paper::PfTs).collect();
    if !pf.is_empty() {
        s.push_str("## PF-TS paper (Lazzaro et al. 2026), Figures 2 and 4\n\n");
        s.push_str(
            "Claims on cumulative regret R(T) at the horizon (30 runs): PF-TS < MR-LPF; PF-TS ≈ MaxMinLCB \
             (\"competitive\"); GP-TS with scalar feedback lowest. POP-BO is not implemented yet and is left out.\n\n",
        );
        let claims: Vec<Claim> = pf.iter().flat_map(|p| claims_of(p)).collect();
        s.push_str(&claims_table(&claims, true));
        s.push('\n');
        for statement in [format!("{PF_TS} < {MR_LPF}"), format!("{PF_TS} ≈ {MAXMIN}"), format!("{GP_TS} lowest")] {
            let these: Vec<&Claim> = claims.iter().filter(|c| c.statement == statement).collect();
            let held: Vec<&str> = these.iter().filter(|c| c.holds).map(|c| c.panel.as_str()).collect();
            let _ = writeln!(
                s,
                "- **{statement}: {}** — holds on {} of {} panels{}.",
                if held.len() == these.len() {
                    "reproduced"
                } else if held.is_empty() {
                    "not reproduced"
                } else {
                    "partly reproduced"
                },
                held.len(),
                these.len(),
                if held.is_empty() { String::new() } else { format!(" ({})", held.join(", ")) }
            );
        }
        s.push('\n');
    }

    let other: Vec<&PanelResult> = panels.iter().filter(|p| Paper::of(&p.name) == Paper::Other).collect();
    if !other.is_empty() {
        s.push_str("## Other specs\n\n");
        for p in other {
            let _ = writeln!(s, "- [{}]({}.md)", p.title, p.name);
        }
        s.push('\n');
    }

    s.push_str("## Panels and timings\n\n");
    s.push_str("| panel | T | runs × algorithms | wall time of the panel (s) | wall time per run, by algorithm (s) |\n|---|---|---|---|---|\n");
    let mut total = 0.0;
    for p in &panels {
        total += p.elapsed_s;
        let runs = p.algorithms.first().map_or(0, |a| a.runs);
        let per: Vec<String> =
            p.algorithms.iter().map(|a| format!("{} {:.3}", a.label, a.at.wall_seconds.mean)).collect();
        let _ = writeln!(
            s,
            "| [{}]({}.md){} | {} | {} × {} | {:.1} | {} |",
            p.title,
            p.name,
            if p.quick { " (quick)" } else { "" },
            p.horizon,
            runs,
            p.algorithms.len(),
            p.elapsed_s,
            per.join("; ")
        );
    }
    let _ = writeln!(
        s,
        "\nTotal wall time of the panels: {total:.1} s (release build, runs in parallel on rayon's global pool)."
    );
    if out.join("discussion.md").exists() {
        s.push_str("\nWhat might explain the claims that did not reproduce: [discussion.md](discussion.md) (written by hand for the committed run).\n");
    }
    Ok(s)
}
