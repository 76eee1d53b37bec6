//! COBOL's report pages: a panel's Markdown, summary JSON and plots, the rules text, and the
//! reproduction index's COBOL section.

use super::claims::accuracy;
use super::*;
use bohf_cobol::XcSearch;

/// Writes a finished COBOL panel's report into the job's folder: `<name>.md`, `<name>.cobol.json`
/// and the plots `<name>-{simple,sum-simple,queries}.{png,svg}` (against f-evaluations). Returns
/// the panel.
pub fn write_cobol_report(job: &ReportJob) -> Result<CobolPanel> {
    let page = job.start()?;
    let (experiment, runs) = (job.experiment, job.results.runs());
    let spec = experiment.spec();
    let u_star = experiment.problem().regret().best_value();
    let title = experiment.title();
    let p = CobolPanel::from_runs(spec, &title, runs, u_star, job.panel.quick, job.elapsed_s);
    let plot_title = job.panel.plot_title(&title);
    for (what, axis) in [
        (Series::Simple, "simple regret SR"),
        (Series::SumSimple, "Σ SR (the code's cumulative regret)"),
        (Series::Queries, "expert queries Qᵍ (initial labels excluded)"),
    ] {
        let curves = mean_curves(spec, runs, u_star, what);
        for ext in ["png", "svg"] {
            crate::cobol_plot::plot_curves(&plot_title, axis, &curves, &job.file(&format!("-{}.{ext}", what.key())))?;
        }
    }
    write_atomic(job.file(".cobol.json"), p.to_json()?.as_bytes())?;
    write_atomic(job.file(".md"), cobol_markdown(&page, &p).as_bytes())?;
    Ok(p)
}

/// Which curve to plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Series {
    Simple,
    SumSimple,
    Queries,
}

impl Series {
    fn key(self) -> &'static str {
        match self {
            Series::Simple => "simple",
            Series::SumSimple => "sum-simple",
            Series::Queries => "queries",
        }
    }
}

/// Per algorithm: its label, its runs, and mean ± s.e. of the series at k = 1, 2, … f-evaluations
/// over the runs that reached k.
fn mean_curves(
    spec: &ExperimentSpec,
    runs: &[RunRecord],
    u_star: f64,
    what: Series,
) -> Vec<(String, usize, Vec<MeanSe>)> {
    spec.algorithms
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mine: Vec<RunCurves> =
                runs.iter().filter(|r| r.id.algorithm == i).map(|r| run_curves(r, u_star)).collect();
            let pick = |c: &RunCurves| -> Vec<f64> {
                match what {
                    Series::Simple => c.simple.clone(),
                    Series::SumSimple => c.sum_simple.clone(),
                    Series::Queries => c.queries.clone(),
                }
            };
            let series: Vec<Vec<f64>> = mine.iter().map(pick).collect();
            let len = series.iter().map(Vec::len).max().unwrap_or(0);
            let curve = (0..len)
                .map(|k| mean_se(&series.iter().filter_map(|s| s.get(k).copied()).collect::<Vec<_>>()))
                .collect();
            (a.label().to_string(), mine.len(), curve)
        })
        .collect()
}

fn opt(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{v}"))
}

fn at_cells(a: Option<CobolAt>) -> String {
    match a {
        Some(a) => format!("{} | {} | {}", pm(a.simple), pm(a.sum_simple), pm(a.queries)),
        None => "— | — | —".into(),
    }
}

/// The rule for runs stopped before k, in one sentence (every COBOL report states it).
pub fn table_rule(k: usize) -> String {
    format!(
        "Table at k = {k} f-evaluations over the runs that reached it (\"runs\": n of N); runs stopped earlier (query \
         cap) are listed apart and left out of the table and the claims, and an algorithm with no run at k has no \
         numbers and its claims are not judged."
    )
}

/// The runs stopped before k, listed apart (or a line saying there are none).
fn stopped_table(s: &mut String, p: &CobolPanel) {
    if p.stopped.is_empty() {
        let _ = writeln!(s, "No run stopped before k = {} f-evaluations.\n", p.k);
        return;
    }
    let _ = writeln!(
        s,
        "Runs stopped before k = {} f-evaluations (query cap: {} queries per run, labels and evaluations together); \
         expert labels include the initial ones:\n",
        p.k, p.horizon
    );
    let _ = writeln!(
        s,
        "| algorithm | run | f-evaluations | expert labels | accepts | queries |\n|---|---|---|---|---|---|"
    );
    for r in &p.stopped {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            r.label, r.run, r.evaluations, r.labels, r.accepts, r.queries
        );
    }
    s.push('\n');
}

/// The setup part of a panel's report: the domain, the expert, the horizon, the algorithms with
/// their handover thresholds, and the quoted spec file.
fn setup_section(s: &mut String, page: &Page, p: &CobolPanel) {
    let experiment = page.experiment;
    let spec = experiment.spec();
    let _ = writeln!(
        s,
        "- Domain: {}; u(x*) = {} on the respondent's scale (COBOL minimises f = −u: f* = {}).",
        experiment.problem().domain(),
        experiment.problem().regret().best_value(),
        0.0 - experiment.problem().regret().best_value()
    );
    if let Some(e) = spec.respondent.expert {
        let _ = writeln!(
            s,
            "- Synthetic expert: accuracy a = {}, f_range = {}.",
            e.accuracy,
            e.f_range.map_or("the candidates' range".into(), |[lo, hi]| format!("[{lo}, {hi}]"))
        );
    }
    if let Some(b) = &spec.respondent.belief {
        let _ = writeln!(
            s,
            "- Belief expert: P(accept) = N(x; μ, Σ)/N(μ; μ, Σ) with μ = {:?}, Σ = {}.",
            b.mean,
            b.cov.as_ref().map_or("I".to_string(), |c| format!("{c:?}"))
        );
    }
    let _ = writeln!(
        s,
        "- Horizon: {} queries per run (labels and evaluations together){}, {} independent runs per algorithm, base seed {}.",
        spec.horizon,
        if p.quick { " (capped by --quick)" } else { "" },
        spec.runs,
        spec.seed
    );
    let _ = writeln!(s, "- Standard errors: std (ddof = 0) / √runs.\n");
    let _ = writeln!(s, "Algorithms and their handover threshold g_thr (line 8 of Algorithm 1):\n");
    let _ = writeln!(s, "| algorithm | variant | g_thr | η | f-evaluations per run (min–max) |\n|---|---|---|---|---|");
    for r in &p.rows {
        let g = match (r.g_thr, r.variant.as_str()) {
            (Some(g), _) => format!("{g}"),
            (None, "expert-sampling") => "— (asks at every draw)".into(),
            (None, _) => "— (never asks)".into(),
        };
        let _ = writeln!(
            s,
            "| {} | `{}` | {g} | {} | {}–{} |",
            r.label,
            r.variant,
            opt(r.eta),
            r.evaluations[0],
            r.evaluations[1]
        );
    }
    page.quote_spec(s, "\nFrom the spec file (sources and the choices made where the paper is ambiguous):");
}

/// The report of one COBOL panel.
pub(crate) fn cobol_markdown(page: &Page, p: &CobolPanel) -> String {
    let experiment = page.experiment;
    let spec = experiment.spec();
    let mut s = page.header(&p.title, p.quick, &format!("{}.toml", p.name));
    setup_section(&mut s, page, p);

    let _ = writeln!(s, "## Results\n");
    let _ = writeln!(
        s,
        "Mean ± s.e. over the runs that reached k. SR = simple regret min_j f(x_j) − f* over the f-evaluations so far; Σ SR its running \
         sum (the code's plotted \"cumulative regret\"); Q^g = expert queries, initial labels excluded (notes §5.9). \
         \"At the end\": each run's last f-evaluation (Q^g: its last step).\n"
    );
    let _ = writeln!(
        s,
        "| algorithm | runs | **SR at k = {k}** | Σ SR at k | Q^g at k | SR at the end | Σ SR at the end | Q^g at the end | wall time per run (s) |\n|---|---|---|---|---|---|---|---|---|",
        k = p.k
    );
    for r in &p.rows {
        let _ = writeln!(
            s,
            "| {} | {} of {} | **{} | {} | {:.3} ± {:.3} |",
            r.label,
            r.runs,
            r.runs + r.stopped,
            match r.at_k {
                Some(_) => at_cells(r.at_k).replacen(" | ", "** | ", 1),
                None => format!("no run reached k = {}** | — | —", p.k),
            },
            at_cells(r.at_end),
            r.wall_seconds.mean,
            r.wall_seconds.se
        );
    }
    let _ = writeln!(s, "\n{}\n", table_rule(p.k));
    stopped_table(&mut s, p);
    let _ = writeln!(
        s,
        "Wall time per run: the algorithm's own calls, over all its runs. The whole panel ({} runs) took {:.1} s{}.\n",
        p.rows.iter().map(|r| r.runs + r.stopped).sum::<usize>(),
        p.elapsed_s,
        page.untimed_note()
    );
    if let Some(section) = crate::pages::cobol_section(p, spec.reproduces.as_ref(), spec) {
        s.push_str(&section);
    }
    let _ = writeln!(s, "## Plots\n");
    let _ = writeln!(
        s,
        "Against f-evaluations; mean over the runs that reached k, ±1 s.e. bands ([SVG]({n}-simple.svg), \
         [SVG]({n}-sum-simple.svg), [SVG]({n}-queries.svg)).\n",
        n = p.name
    );
    for (key, what) in
        [("simple", "simple regret"), ("sum-simple", "sum of simple regret"), ("queries", "expert queries")]
    {
        let _ = writeln!(s, "![{what}]({}-{key}.png)\n", p.name);
    }
    s
}

/// The rules of COBOL's claims, in words (for the reports).
pub fn rules_text() -> String {
    format!(
        "**Rules.** \"A < B\", \"A ≤ B\", \"A ≈ B\", \"A best\" compare SR at k f-evaluations: a difference counts when it \
         exceeds {SE_MULTIPLE} s.e. of the difference (\"A ≤ B\": A not significantly above B; \"A ≈ B\": neither \
         significantly above the other, the sensitivity presets' \"insensitive\" for every pair; \"A best\": no algorithm \
         significantly below A, i.e. best or tied with the best). **Handover** (\"A hands over\"): the f-evaluations \
         of each run's iterations (after the 3 initial ones) are split into thirds; the claim holds when the mean expert \
         queries of the last third are at most {HANDOVER_RATIO} × those of the first third (a run with fewer than 3 such \
         evaluations is not judged). **No harm** (\"A within F× B\"): A's mean SR is not above F × B's \
         by more than {SE_MULTIPLE} s.e. (√(s.e._A² + F²·s.e._B²)) at k and at the end, and at the end A is not \
         significantly above B. Every claim is judged over the runs that reached k; one that involves an \
         algorithm with no run at k is not judged. **Query cap** (the spec's horizon): a run it stops before k \
         f-evaluations is listed apart with its evaluations, labels and accepts, and k does not move.\n"
    )
}

/// How each COBOL entry of `spec` searches x^c (line 4; the work bound of `search`), one sentence
/// for the claims section; `None` when the spec has no such entry.
pub(crate) fn searches_text(spec: &ExperimentSpec) -> Option<String> {
    let rows: Vec<String> = spec
        .algorithms
        .iter()
        .filter_map(|a| config_of(a).filter(|c| c.variant == Variant::Cobol).map(|c| (a, c)))
        .map(|(a, c)| {
            let how = match c.search {
                XcSearch::Programs(k) => {
                    format!("at most {k} programs per step (work bound), certified gap in each step's details")
                }
                XcSearch::Exact => "the exact argmin (every program its bounds cannot decide)".into(),
                XcSearch::Local { starts, evaluations } => {
                    format!("{starts} local searches × {evaluations} evaluations of J (not certified)")
                }
            };
            format!("{}: {how}", a.label())
        })
        .collect();
    (!rows.is_empty()).then(|| format!("**x^c search** (line 4): {}.\n", rows.join("; ")))
}

/// The COBOL section of the index: each panel's claims, Experiment A's accuracy ordering, and a
/// verdict per kind of claim. `panels`: the COBOL presets with their finished panels; `expected`:
/// the paper's COBOL presets ([`is_paper_experiment`]), run or not.
pub(crate) fn index_section(s: &mut String, panels: &[(&Preset, CobolPanel)], expected: usize) {
    let _ = writeln!(s, "## {}\n", Paper::Cobol.citation());
    let _ = writeln!(s, "{}", rules_text());
    let _ = writeln!(s, "{} Each panel's report lists its stopped runs.\n", table_rule(TABLE_EVALUATIONS));
    let _ = writeln!(
        s,
        "| panel | g_thr by algorithm | k | claim | values (mean ± s.e.) | verdict |\n|---|---|---|---|---|---|"
    );
    let mut all: Vec<Claim> = Vec::new();
    for (preset, p) in panels {
        let gthr: Vec<String> = p.rows.iter().filter_map(|r| r.g_thr.map(|g| format!("{} {g}", r.label))).collect();
        let claims = cobol_claims(p, preset.reproduces.as_ref());
        for c in &claims {
            let verdict = if c.holds { format!("**{}**", c.verdict) } else { c.verdict.clone() };
            let _ = writeln!(
                s,
                "| [{n}]({n}.md){} | {} | {} | {} | {} | {verdict} |",
                if p.quick { " (quick)" } else { "" },
                gthr.join("; "),
                p.k,
                c.statement,
                c.evidence,
                n = p.name
            );
        }
        // Only the paper's experiments count towards its verdicts (not bohf's own cases).
        if is_paper_experiment(preset) {
            all.extend(claims);
        }
    }
    // Experiment A's ordering across panels.
    let exp_a: Vec<(CobolPanel, f64)> = panels
        .iter()
        // The accuracy panels only (Fig. 3), not the sensitivity presets of Experiment A at a = 1.
        .filter(|(pr, _)| pr.reproduces.as_ref().is_some_and(|r| r.figure.starts_with("Experiment A (Fig. 3)")))
        .filter_map(|(pr, p)| {
            let spec: ExperimentSpec = toml::from_str(&pr.text).ok()?;
            Some((p.clone(), accuracy(&spec)?))
        })
        .collect();
    let ordering = accuracy_ordering(&exp_a);
    if !ordering.is_empty() {
        let _ = writeln!(s, "\nExperiment A, accuracy ordering a = 2 ≤ a = 1 ≤ vanilla LCB (SR at k):\n");
        s.push_str(&claims_table(&ordering, true));
    }
    all.extend(ordering);
    s.push('\n');
    for (kind, test) in [
        (
            "handover (expert queries plateau)",
            &(|c: &Claim| c.statement.ends_with(" hands over")) as &dyn Fn(&Claim) -> bool,
        ),
        ("no harm (within a factor of vanilla LCB)", &|c: &Claim| c.statement.contains(" within ")),
        ("benefit (COBOL below vanilla LCB)", &|c: &Claim| {
            c.statement.contains(" < ") && c.statement.ends_with(" vanilla LCB")
        }),
        ("ablations worse (λ₀ = 0, pinpointing)", &|c: &Claim| {
            c.statement.contains(" < ") && !c.statement.ends_with(" vanilla LCB")
        }),
        ("insensitivity (every pair within 2 s.e.)", &|c: &Claim| c.statement.contains(" ≈ ")),
        ("COBOL best of the four", &|c: &Claim| c.statement.ends_with(" best")),
        ("accuracy ordering", &|c: &Claim| c.statement.contains(" ≤ ") && c.statement.contains("(a = ")),
        ("robust to the belief (not above vanilla LCB)", &|c: &Claim| {
            c.statement.contains(" ≤ ") && !c.statement.contains("(a = ")
        }),
    ] {
        let these: Vec<&Claim> = all.iter().filter(|c| test(c)).collect();
        if these.is_empty() {
            continue;
        }
        let held = these.iter().filter(|c| c.holds).count();
        let _ = writeln!(
            s,
            "- **{kind}: {}** — holds in {held} of {} checks.{}",
            if held == these.len() {
                "reproduced"
            } else if held == 0 {
                "not reproduced"
            } else {
                "partly reproduced"
            },
            these.len(),
            crate::claims::failed_directions(&these)
        );
    }
    let run = panels.iter().filter(|(p, _)| is_paper_experiment(p)).count();
    if run < expected {
        let _ = writeln!(s, "\n{run} of the paper's {expected} COBOL presets have been run.");
    }
    s.push('\n');
}

/// Whether a preset is one of the paper's experiments (its figure starts with "Experiment"), not
/// one of bohf's own cases (the PMV case).
pub(crate) fn is_paper_experiment(preset: &Preset) -> bool {
    preset.reproduces.as_ref().is_some_and(|r| r.figure.starts_with("Experiment"))
}
