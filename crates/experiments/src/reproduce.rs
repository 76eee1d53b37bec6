//! Reproduction of the papers' experiments: the panels (one spec each), the papers' claims and the
//! rule that judges them, and the reports (per-panel markdown, horizon files, index).
//!
//! Shared by `examples/reproduce.rs` (which rewrites `docs/reproduction/`) and the `bohf reproduce`
//! command. A panel is a spec whose name starts with `mrlpf-` (MR-LPF paper, Figure 1, judged on
//! per-step regret r_T) or `pfts-` (PF-TS paper, Figures 2 and 4, judged on cumulative regret R(T)).

use crate::error::{ExperimentError, Result};
use crate::runner::Experiment;
use crate::spec::{ExperimentSpec, ProblemSpec};
use crate::summary::{AtHorizon, HORIZON_CSV_COLUMNS, MeanSe, Summary};
use crate::{Metric, plot_atomic, write_atomic};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Runs per algorithm in `--quick` mode (at most).
pub const QUICK_RUNS: usize = 3;
/// Horizon in `--quick` mode (at most).
pub const QUICK_HORIZON: usize = 40;
/// A difference counts when it exceeds this many standard errors of the difference.
pub const SE_MULTIPLE: f64 = 2.0;
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
    /// The values at the horizon of a finished panel (`elapsed_s`: wall time of all its runs).
    pub fn from_summary(name: &str, summary: &Summary, quick: bool, elapsed_s: f64) -> Self {
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
    pub fn to_csv(&self) -> Result<String> {
        let bad = |reason: String| ExperimentError::Results { path: None, reason };
        if self.title.contains(['\n', '\t']) || self.name.contains(['\n', '\t']) {
            return Err(bad(format!("`{}` / `{}` contains a tab or newline", self.name, self.title)));
        }
        if let Some(a) = self.algorithms.iter().find(|a| a.label.contains([',', '\n', '\t'])) {
            return Err(bad(format!("label `{}` contains a comma, tab or newline", a.label)));
        }
        let mut s = format!(
            "# name\t{}\n# title\t{}\n# horizon\t{}\n# quick\t{}\n# elapsed_s\t{:?}\n",
            self.name, self.title, self.horizon, self.quick, self.elapsed_s
        );
        let _ = writeln!(s, "label,{HORIZON_CSV_COLUMNS}");
        for a in &self.algorithms {
            let _ = writeln!(s, "{},{}", a.label, a.at.csv_fields(a.runs));
        }
        Ok(s)
    }

    /// Parses [`PanelResult::to_csv`].
    pub fn from_csv(text: &str) -> Result<Self> {
        let bad = |reason: String| ExperimentError::Results { path: None, reason };
        fn parse<T: std::str::FromStr>(what: &str, v: &str) -> Result<T> {
            v.trim().parse().map_err(|_| ExperimentError::Results { path: None, reason: format!("bad {what} `{v}`") })
        }
        let mut header = std::collections::HashMap::new();
        let mut rows = Vec::new();
        let mut seen_columns = false;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if let Some(rest) = line.strip_prefix("# ") {
                let (k, v) = rest.split_once('\t').ok_or_else(|| bad(format!("bad header line `{line}`")))?;
                header.insert(k.to_string(), v.to_string());
            } else if !seen_columns {
                seen_columns = true;
            } else {
                let f: Vec<&str> = line.split(',').collect();
                if f.len() != 10 {
                    return Err(bad(format!("expected 10 fields, got {} in `{line}`", f.len())));
                }
                let num = |i: usize| -> Result<f64> { parse("number", f[i]) };
                let ms = |i: usize| -> Result<MeanSe> { Ok(MeanSe { mean: num(i)?, se: num(i + 1)? }) };
                rows.push(AlgorithmRow {
                    label: f[0].to_string(),
                    runs: parse("number of runs", f[1])?,
                    at: AtHorizon { instantaneous: ms(2)?, cumulative: ms(4)?, simple: ms(6)?, wall_seconds: ms(8)? },
                });
            }
        }
        let field = |k: &str| header.get(k).cloned().ok_or_else(|| bad(format!("missing header `{k}`")));
        Ok(Self {
            name: field("name")?,
            title: field("title")?,
            horizon: parse("horizon", &field("horizon")?)?,
            quick: parse("quick flag", &field("quick")?)?,
            elapsed_s: parse("elapsed_s", &field("elapsed_s")?)?,
            algorithms: rows,
        })
    }
}

// ------------------------------------------------------------------------------------------------
// Preparing and writing a panel
// ------------------------------------------------------------------------------------------------

/// A panel's spec, prepared to run.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedPanel {
    /// The spec to run: a relative catalyst data path resolved against the spec's folder.
    pub spec: ExperimentSpec,
    /// The spec as a report shows it: data paths as written (relative to the spec's folder).
    pub shown: ExperimentSpec,
    /// The spec's text (its leading comments go into the report).
    pub text: String,
    /// Whether this is a `--quick` smoke test.
    pub quick: bool,
}

impl PreparedPanel {
    /// Parses a panel's spec text; a relative catalyst `path` is resolved against `base_dir` (the
    /// folder of the spec file). `quick` caps runs and horizon at [`QUICK_RUNS`] and
    /// [`QUICK_HORIZON`]; `runs` (applied after it) sets the number of runs. The spec's `title` is
    /// left alone (a copied spec must not carry a stale mark): [`PreparedPanel::plot_title`] derives
    /// the "[quick: …]" mark from the spec when the report is drawn.
    /// `origin` names the text in parse errors.
    pub fn new(text: &str, origin: &Path, base_dir: &Path, quick: bool, runs: Option<usize>) -> Result<Self> {
        let mut shown: ExperimentSpec = toml::from_str(text)
            .map_err(|e| ExperimentError::Toml { path: Some(origin.to_path_buf()), source: Box::new(e) })?;
        if quick {
            shown.runs = shown.runs.min(QUICK_RUNS);
            shown.horizon = shown.horizon.min(QUICK_HORIZON);
        }
        if let Some(r) = runs {
            shown.runs = r;
        }
        let mut spec = shown.clone();
        if let ProblemSpec::Catalyst(c) = &mut spec.problem
            && c.path.is_relative()
        {
            c.path = base_dir.join(&c.path);
        }
        Ok(Self { spec, shown, text: text.to_string(), quick })
    }

    /// The title of the report's plots: `base`, with "[quick: T = …, … runs]" (from the spec as it
    /// is run) for a `--quick` panel.
    pub fn plot_title(&self, base: &str) -> String {
        if self.quick {
            format!("{base} [quick: T = {}, {} runs]", self.spec.horizon, self.spec.runs)
        } else {
            base.to_string()
        }
    }
}

/// Writes a finished panel's report into `out`: `<name>-{instantaneous,cumulative}.{png,svg}`,
/// `<name>.horizon.csv` and `<name>.md` (with a link back to the index `README.md` when `out` has
/// one); `command` is the command line the report says generated it
/// and `spec_link` the link to the spec file. Returns the panel's values at the horizon.
pub fn write_panel_report(
    out: &Path,
    experiment: &Experiment,
    panel: &PreparedPanel,
    summary: &Summary,
    elapsed_s: f64,
    command: &str,
    spec_link: &str,
) -> Result<PanelResult> {
    let name = &experiment.spec().name;
    std::fs::create_dir_all(out).map_err(|source| ExperimentError::Io {
        action: "create",
        path: out.to_path_buf(),
        source,
    })?;
    let mut summary = summary.clone();
    summary.title = panel.plot_title(&summary.title);
    let summary = &summary;
    for metric in [Metric::Instantaneous, Metric::Cumulative] {
        for ext in ["png", "svg"] {
            plot_atomic(summary, metric, out.join(format!("{name}-{}.{ext}", metric.as_str())))?;
        }
    }
    let result = PanelResult::from_summary(name, summary, panel.quick, elapsed_s);
    write_atomic(out.join(format!("{name}.horizon.csv")), result.to_csv()?.as_bytes())?;
    let shown = panel.shown.to_toml_string()?;
    // The link back to the index only where there is one (docs/reproduction/README.md); a
    // `bohf reproduce` folder has none.
    let index = out.join("README.md").is_file();
    let md = panel_markdown(experiment, &shown, &panel.text, &result, command, spec_link, index);
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
    shown_toml: &str,
    spec_text: &str,
    r: &PanelResult,
    command: &str,
    spec_link: &str,
    index: bool,
) -> String {
    let spec = experiment.spec();
    let paper = Paper::of(&r.name);
    let u = experiment.problem().utility();
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", r.title);
    if r.quick {
        let _ = writeln!(s, "> **Quick smoke test** (`--quick`): few runs and a short horizon; not a reproduction.\n");
    }
    let _ = writeln!(
        s,
        "Generated by `{command}` from [`specs/{}.toml`]({spec_link}).{}\n",
        r.name,
        if index { " Back to the [index](README.md)." } else { "" }
    );
    let _ = writeln!(s, "## Settings\n");
    let _ = writeln!(s, "- Problem: {}.", experiment.problem().title());
    let _ = writeln!(
        s,
        "- Candidates: {}; utility range on the respondent's scale max u − min u = {:.4}; x* = candidate {}.",
        u.len(),
        u.max() - u.min(),
        u.argmax()
    );
    let _ = writeln!(
        s,
        "- Horizon T = {}, {} independent runs per algorithm, base seed {}.",
        spec.horizon, spec.runs, spec.seed
    );
    let _ = writeln!(
        s,
        "- Algorithms: {}.",
        spec.algorithms.iter().map(|a| format!("{} (`{}`)", a.label(), a.name)).collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(s, "- Standard errors: std (ddof = 0) / √runs, as in the authors' plots.");
    let _ = writeln!(s, "\nFrom the spec file (sources and the choices made where the papers are ambiguous):\n");
    for line in spec_text.lines().take_while(|l| l.starts_with('#') || l.trim().is_empty()) {
        if let Some(c) = line.strip_prefix('#') {
            let _ = writeln!(s, ">{c}");
        }
    }
    let _ = writeln!(s, "\n<details><summary>Full spec as run</summary>\n\n```toml\n{}```\n\n</details>\n", shown_toml);

    let _ = writeln!(s, "## Results at the horizon T = {}\n", r.horizon);
    let _ = writeln!(s, "Paper metric: **{}** (mean ± s.e. over runs).\n", paper.metric_name());
    let (first, second) = match paper.metric() {
        Metric::Instantaneous => ("per-step regret r_T", "cumulative regret R(T)"),
        _ => ("cumulative regret R(T)", "per-step regret r_T"),
    };
    let _ = writeln!(
        s,
        "| algorithm | runs | **{first}** | {second} | simple regret of x̂_T | wall time per run (s) |\n|---|---|---|---|---|---|"
    );
    for a in &r.algorithms {
        let (p, q) = match paper.metric() {
            Metric::Instantaneous => (a.at.instantaneous, a.at.cumulative),
            _ => (a.at.cumulative, a.at.instantaneous),
        };
        let _ = writeln!(
            s,
            "| {} | {} | **{}** | {} | {} | {:.3} ± {:.3} |",
            a.label,
            a.runs,
            pm(p),
            pm(q),
            pm(a.at.simple),
            a.at.wall_seconds.mean,
            a.at.wall_seconds.se
        );
    }
    let _ = writeln!(
        s,
        "\nWall time per run: the algorithm's own calls (construction, suggest, observe, recommend), release build. \
         The whole panel ({} runs) took {:.1} s on rayon's global pool.\n",
        r.algorithms.iter().map(|a| a.runs).sum::<usize>(),
        r.elapsed_s
    );
    let claims = claims_of(r);
    if !claims.is_empty() {
        let _ = writeln!(s, "## The paper's claims on this panel\n");
        let _ = writeln!(s, "{}", claims_table(&claims, false));
    }
    let _ = writeln!(s, "## Plots\n");
    let _ = writeln!(
        s,
        "Mean over runs with ±1 s.e. bands ([SVG]({n}-instantaneous.svg), [SVG]({n}-cumulative.svg)).\n",
        n = r.name
    );
    let order = match paper.metric() {
        Metric::Instantaneous => ["instantaneous", "cumulative"],
        _ => ["cumulative", "instantaneous"],
    };
    for m in order {
        let _ = writeln!(s, "![{m} regret]({}-{m}.png)\n", r.name);
    }
    s
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
const POP_BO: &str = "POP-BO";

/// The paper's claims that apply to a panel.
pub fn claims_of(r: &PanelResult) -> Vec<Claim> {
    match Paper::of(&r.name) {
        Paper::MrLpf => lower_claim(r, MR_LPF, MAXMIN).into_iter().collect(),
        Paper::PfTs => {
            // "significantly smaller than that of MR-LPF and POP-BO" is said of Fig. 2 only (notes 003 §5.9);
            // on Fig. 4 the paper says "competitive or improved relative to the others".
            let pop_bo = if r.name.starts_with("pfts-fig2") { lower_claim(r, PF_TS, POP_BO) } else { None };
            [lower_claim(r, PF_TS, MR_LPF), pop_bo, parity_claim(r, PF_TS, MAXMIN), lowest_claim(r, GP_TS)]
                .into_iter()
                .flatten()
                .collect()
        }
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
pub fn build_index(out: &Path, files: &[PathBuf]) -> Result<String> {
    let mut panels = Vec::new();
    let mut missing = Vec::new();
    for f in files {
        let name = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let csv = out.join(format!("{name}.horizon.csv"));
        match std::fs::read_to_string(&csv) {
            Ok(text) => panels.push(PanelResult::from_csv(&text).map_err(|e| match e {
                ExperimentError::Results { reason, .. } => ExperimentError::Results { path: Some(csv.clone()), reason },
                other => other,
            })?),
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
            "Claims on cumulative regret R(T) at the horizon (30 runs): PF-TS < MR-LPF; PF-TS < POP-BO (Fig. 2 only: \
             Ackley and catalyst); PF-TS ≈ MaxMinLCB (\"competitive\"); GP-TS with scalar feedback lowest. POP-BO's own \
             Table 2 is re-run in [popbo-table2.md](popbo-table2.md).\n\n",
        );
        let claims: Vec<Claim> = pf.iter().flat_map(|p| claims_of(p)).collect();
        s.push_str(&claims_table(&claims, true));
        s.push('\n');
        let statements = [
            format!("{PF_TS} < {MR_LPF}"),
            format!("{PF_TS} < {POP_BO}"),
            format!("{PF_TS} ≈ {MAXMIN}"),
            format!("{GP_TS} lowest"),
        ];
        for statement in statements {
            let these: Vec<&Claim> = claims.iter().filter(|c| c.statement == statement).collect();
            if these.is_empty() {
                continue;
            }
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
    if out.join("popbo-table2.md").exists() {
        s.push_str("\nPOP-BO paper (Xu et al. 2024), Table 2 (test functions, reported-solution suboptimality): [popbo-table2.md](popbo-table2.md) (written by `examples/popbo_table2.rs`).\n");
    }
    if out.join("discussion.md").exists() {
        s.push_str("\nWhat might explain the claims that did not reproduce: [discussion.md](discussion.md) (written by hand for the committed run).\n");
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALYST: &str = r#"
        name = "pfts-x"
        title = "X"
        horizon = 800
        runs = 30
        [problem]
        kind = "catalyst"
        path = "../data/file.csv"
        [[algorithms]]
        name = "pf-ts"
        label = "PF-TS"
    "#;

    #[test]
    fn prepared_panel_caps_quick_runs_and_resolves_the_data_path() {
        let p = PreparedPanel::new(CATALYST, Path::new("specs/x.toml"), Path::new("/base/specs"), false, None).unwrap();
        assert_eq!((p.spec.horizon, p.spec.runs), (800, 30));
        let ProblemSpec::Catalyst(run) = &p.spec.problem else { panic!() };
        let ProblemSpec::Catalyst(shown) = &p.shown.problem else { panic!() };
        assert_eq!(run.path, Path::new("/base/specs/../data/file.csv"));
        assert_eq!(shown.path, Path::new("../data/file.csv"));

        let q = PreparedPanel::new(CATALYST, Path::new("x.toml"), Path::new("/b"), true, None).unwrap();
        assert_eq!((q.spec.horizon, q.spec.runs), (QUICK_HORIZON, QUICK_RUNS));
        assert!(q.quick);
        // The quick mark is derived for the plots, never stored in the spec (a copied and edited
        // spec would carry a stale "[quick: …]" title).
        assert_eq!(q.spec.title.as_deref(), Some("X"));
        assert_eq!(q.shown.title.as_deref(), Some("X"));
        assert_eq!(q.plot_title("X"), "X [quick: T = 40, 3 runs]");
        assert_eq!(p.plot_title("X"), "X");
        // --runs applies after --quick, and the title says so.
        let mut r = PreparedPanel::new(CATALYST, Path::new("x.toml"), Path::new("/b"), true, Some(7)).unwrap();
        assert_eq!((r.spec.horizon, r.spec.runs), (QUICK_HORIZON, 7));
        assert_eq!(r.plot_title("X"), "X [quick: T = 40, 7 runs]");
        r.spec.horizon = 12;
        assert_eq!(r.plot_title("X"), "X [quick: T = 12, 7 runs]");
        let e = PreparedPanel::new("name = ", Path::new("bad.toml"), Path::new("."), false, None).unwrap_err();
        assert!(e.to_string().contains("bad.toml") && e.to_string().contains("line 1"), "{e}");
    }

    #[test]
    fn pm_uses_two_significant_digits_of_the_standard_error() {
        // s.e. 0.0123 → 2 significant digits (0.012) = 3 decimals; s.e. 4.6 → 1 decimal; s.e. 0 → 4 decimals.
        assert_eq!(pm(MeanSe { mean: 0.123456, se: 0.0123 }), "0.123 ± 0.012");
        assert_eq!(pm(MeanSe { mean: 27.94, se: 4.6 }), "27.9 ± 4.6");
        assert_eq!(pm(MeanSe { mean: 1.0, se: 0.0 }), "1.0000 ± 0.0000");
    }
}
