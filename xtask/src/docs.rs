//! `cargo xtask docs [--check]`: the pages of `docs/generated/`, built from the code.
//!
//! * `algorithms.md`: every algorithm of [`bohf_experiments::Registry::builtin`] (the registry the
//!   specs and the CLI use), with its paper, what it queries, and every parameter with its default and
//!   meaning. Defaults are each config type's `Default` serialised to TOML (and accepted by the
//!   registry's own parameter check); the meanings are kept in [`ALGORITHMS`] and [`PARAMS`] below. A
//!   registered algorithm or a config key without a description, or a description of a key that no
//!   config has, is an error, so the page cannot drift from the code.
//! * `verification.md`: the table of `cargo xtask verify`, rendered from
//!   `docs/generated/verification.json` (written by `cargo xtask verify --json
//!   docs/generated/verification.json`), with its date, commit and run time.
//! * `reproduction.md`: an index of `docs/reproduction/` (title of every page, the specs of the
//!   sensitivity runs).
//!
//! `--check` regenerates in memory and exits 1 if any checked-in page differs.

use crate::VerifyReport;
use crate::report::{Status, markdown};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Per registered algorithm: (name, paper, what it queries, default config as a TOML table).
type DefaultsFn = fn() -> Result<toml::Table, String>;

fn defaults<C: serde::Serialize + Default>() -> Result<toml::Table, String> {
    toml::Table::try_from(C::default()).map_err(|e| e.to_string())
}

/// (registry name, paper, what it queries, the config's defaults).
const ALGORITHMS: &[(&str, &str, &str, DefaultsFn)] = &[
    (
        "pf-ts",
        "Lazzaro, Buffelli, Shiu & Vakili (2026), PF-TS, Algorithm 1 (double Thompson sampling from preferences)",
        "duels (x, x′), one per step: the maximisers of two joint posterior samples of the utility",
        defaults::<bohf_pfts::PfTsConfig>,
    ),
    (
        "mr-lpf",
        "Kayal et al. (2025), MR-LPF, Algorithm 1 (multi-round learning from preferences with elimination)",
        "duels, in rounds of N_r = ⌈√(N_{r−1}T)⌉ max-variance pairs of the surviving set M_r",
        defaults::<bohf_mrlpf::MrLpfConfig>,
    ),
    (
        "maxminlcb",
        "Pásztor, Krause et al. (2024), MaxMinLCB (as used by the MR-LPF and PF-TS experiments)",
        "duels, one per step: the max–min of the lower confidence bound of P(x ≻ x′)",
        defaults::<bohf_baselines::MaxMinLcbConfig>,
    ),
    (
        "gp-ucb",
        "Srinivas et al. (2010), GP-UCB with scalar feedback (baseline)",
        "scalar evaluations f(x) + noise, one per step: argmax of m + βσ",
        defaults::<bohf_baselines::GpUcbConfig>,
    ),
    (
        "gp-ts",
        "Chowdhury & Gopalan (2017), GP-TS with scalar feedback (baseline of PF-TS)",
        "scalar evaluations, one per step: the maximiser of a joint posterior sample",
        defaults::<bohf_baselines::GpTsConfig>,
    ),
    ("random", "baseline", "uniformly random duels", defaults::<bohf_baselines::RandomDuelsConfig>),
    (
        "pop-bo",
        "Xu et al. (2024), POP-BO, Algorithm 1 (principled optimistic preferential BO, likelihood-ratio confidence sets)",
        "duels (x_t, x_{t−1}), one per step: the new point against the previous one, x_t maximising the optimistic advantage",
        defaults::<bohf_popbo::PopBoConfig>,
    ),
];

/// (scope, dotted key, meaning): scope `*` applies to every algorithm without its own entry.
const PARAMS: &[(&str, &str, &str)] = &[
    (
        "*",
        "inference.kappa",
        "κ in the posterior noise ρ = λκ of the dueling posterior (MR-LPF eq. (10), PF-TS eq. (9)); 1 is the authors' code, the theory uses κ = sup 1/μ′ over the utility range",
    ),
    (
        "*",
        "inference.kernel.kind",
        "base kernel k: `se`, `matern12`, `matern32`, `matern52` or `linear` (optional keys: `lengthscales` for ARD, `variance`, default 1)",
    ),
    ("*", "inference.kernel.lengthscale", "isotropic lengthscale ℓ of k (the papers' 0.1)"),
    (
        "*",
        "inference.mle.lambda",
        "λ > 0, weight of the regulariser of the kernel logistic MLE (MR-LPF eq. (9), PF-TS eq. (8))",
    ),
    ("*", "inference.mle.link", "link μ of the preference model: `logistic` (BTL, the papers) or `probit`"),
    ("*", "inference.mle.max_iterations", "at most this many Newton steps of the MLE"),
    (
        "*",
        "inference.mle.regulariser",
        "`theta_norm`: ‖θ‖² (MR-LPF eq. (9), PF-TS eq. (8), the authors' experiments); `rkhs_norm`: θᵀK^Dθ = ‖h‖² (eq. (6)/(7), the proofs)",
    ),
    ("*", "inference.mle.scale_by_n", "divide the data term by the number of duels N (the authors' early code)"),
    ("*", "inference.mle.tolerance", "Newton stops when the gradient norm is at most this"),
    (
        "*",
        "exploration.rule",
        "exploration scale v_t of the samples: `pfts-experiment` v_t² = √(t+1+log(2/δ)) (PF-TS App. F.1, literal), `pfts-square-root` v_t = √(t+1+log(2/δ)), `theory` v_t = β_t(δ) (PF-TS eq. (12); for GP-TS Chowdhury & Gopalan) with key `norm_bound` = B",
    ),
    ("*", "exploration.delta", "δ ∈ (0, 1) in the schedule's log(2/δ) (or the failure probability of `theory`)"),
    ("*", "kernel.kind", "kernel k of the scalar GP: `se`, `matern12`, `matern32`, `matern52` or `linear`"),
    ("*", "kernel.lengthscale", "isotropic lengthscale ℓ (the papers' 0.1)"),
    (
        "*",
        "noise",
        "observation-noise variance of the scalar GP, also its kernel-ridge regulariser (PF-TS's oracle f(x) + N(0, 1))",
    ),
    (
        "mr-lpf",
        "beta.rule",
        "elimination width β_(r) of eq. (12): `constant` (key `value`; the experiments use 1, 0.1 on Yelp) or `theory`, eq. (14) β_(r) = L(B + √((κ_r/λ) log(2R|X|/δ))) with keys `norm_bound` = B and `delta`",
    ),
    ("mr-lpf", "beta.value", "β of the `constant` rule"),
    (
        "mr-lpf",
        "noise",
        "noise ρ_r of the round's posterior: `constant` (λκ every round, the authors' code) or `theory` (λκ in round 1, 6λ after)",
    ),
    (
        "mr-lpf",
        "initial_sigma",
        "σ before a round's first duel: `prior` (k_D(z, z), the paper) or `zero` (the authors' early code: the first duel is a self-pair)",
    ),
    ("maxminlcb", "beta", "β ≥ 0, width of the confidence bounds on P(x ≻ x′) (1 in the MR-LPF/PF-TS experiments)"),
    (
        "maxminlcb",
        "plausible_set",
        "candidate set M_t of the game: `all_candidates` (recomputed from X, the MR-LPF authors' script), `nested` (as in MR-LPF) or `off` (all of X)",
    ),
    ("maxminlcb", "exclude_diagonal", "exclude self-duels (x, x) from the game"),
    (
        "maxminlcb",
        "random_ties",
        "break near-ties at random within `tie_tolerance` (Pásztor et al.) instead of taking the lowest index",
    ),
    ("maxminlcb", "tie_tolerance", "tolerance of `random_ties` (Pásztor et al.'s `argmax_tol`)"),
    ("gp-ucb", "beta", "β ≥ 0, width of m + βσ"),
    ("pop-bo", "inference.kappa", "not used by POP-BO (its MLE is the norm-constrained one of `confidence`)"),
    ("pop-bo", "inference.mle.lambda", "not used by POP-BO"),
    ("pop-bo", "inference.mle.link", "not used by POP-BO (the logistic likelihood of the paper)"),
    ("pop-bo", "inference.mle.max_iterations", "not used by POP-BO"),
    ("pop-bo", "inference.mle.regulariser", "not used by POP-BO"),
    ("pop-bo", "inference.mle.scale_by_n", "not used by POP-BO"),
    ("pop-bo", "inference.mle.tolerance", "not used by POP-BO"),
    (
        "pop-bo",
        "beta.rule",
        "width β_t of the likelihood-ratio confidence set: `sqrt-t` β₀√t (App. P, the default); alternatives `constant` (key `value`), `sqrt-t-plus-one` β₀√(t+1) (the authors' code), `popbo-theorem31` (β₁(ε, δ, t) of Theorem 3.1, keys `epsilon`, `delta`, `log_covering`)",
    ),
    ("pop-bo", "beta.scale", "β₀ of the `sqrt-t` and `sqrt-t-plus-one` rules (default 1)"),
    (
        "pop-bo",
        "confidence.norm_bound",
        "B, the RKHS-norm bound ‖f‖_k ≤ B of the confidence set (POP-BO Assumption 2.2; App. P uses 6)",
    ),
    (
        "pop-bo",
        "confidence.nugget",
        "ε_K ≥ 0 added to the Gram diagonal before factorising (POP-BO Remark 4.2; the authors' code 1e-6); optional `latent_box` bounds every latent value (the code uses 3)",
    ),
    ("pop-bo", "confidence.tolerance", "clarabel's gap and feasibility tolerances for the confidence-set programs"),
    ("pop-bo", "confidence.mle_tolerance", "the same for the norm-constrained MLE"),
    ("pop-bo", "confidence.max_iterations", "clarabel's iteration limit"),
    (
        "pop-bo",
        "confidence.acceptable_tolerance",
        "an `AlmostSolved` clarabel solution is accepted when its gap and residuals are within this; otherwise an error",
    ),
    ("pop-bo", "confidence.accept_almost_solved", "accept every `AlmostSolved` whatever `acceptable_tolerance` says"),
    (
        "pop-bo",
        "initial.kind",
        "x₀: `random` (uniform among the candidates, the experiments) or `candidate` with key `index`",
    ),
    (
        "pop-bo",
        "report.kind",
        "the estimate of the maximiser: `max_mle_sampled` (argmax of the MLE over sampled points, the experiments), `max_mle_grid` (over all candidates), `theoretical_t_star` (eq. (19), key `lambda`)",
    ),
];

fn flatten(prefix: &str, table: &toml::Table, out: &mut Vec<(String, String)>) {
    for (k, v) in table {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            toml::Value::Table(t) => flatten(&key, t, out),
            other => out.push((key, other.to_string())),
        }
    }
}

fn algorithms_page() -> Result<String, String> {
    let registry = bohf_experiments::Registry::builtin();
    let mut s = String::from(
        "# Algorithm reference\n\n<!-- Generated by `cargo xtask docs` from the experiment registry and the config types; do not edit. -->\n\n\
         Every algorithm a spec (`[[algorithms]] name = …`) can name, with its parameters (the `params` table; \
         missing keys take the defaults below, unknown keys are errors). Defaults are the papers' experimental settings.\n\n",
    );
    let mut used = BTreeSet::new();
    let known: BTreeSet<&str> = ALGORITHMS.iter().map(|a| a.0).collect();
    let missing: Vec<&str> = registry.names().into_iter().filter(|n| !known.contains(n)).collect();
    if !missing.is_empty() {
        return Err(format!(
            "registered algorithms without a description in xtask/src/docs.rs ALGORITHMS: {missing:?}"
        ));
    }
    for name in registry.names() {
        let (_, paper, queries, defaults) = ALGORITHMS.iter().find(|a| a.0 == name).expect("checked above");
        let entry = registry.get(name).expect("listed by the registry");
        let table = defaults()?;
        entry.check(&table, "params").map_err(|e| format!("{name}: the registry rejects the defaults: {e}"))?;
        let mut keys = Vec::new();
        flatten("", &table, &mut keys);
        s.push_str(&format!("## `{name}`\n\n{}.\n\n* Paper: {paper}.\n* Queries: {queries}.\n\n", entry.description()));
        if keys.is_empty() {
            s.push_str("No parameters.\n\n");
            continue;
        }
        s.push_str("| parameter | default | meaning |\n|---|---|---|\n");
        let undocumented: Vec<String> = keys
            .iter()
            .filter(|(key, _)| !PARAMS.iter().any(|p| (p.0 == name || p.0 == "*") && p.1 == key))
            .map(|(key, value)| format!("{key} (default {value})"))
            .collect();
        if !undocumented.is_empty() {
            return Err(format!(
                "{name}: parameters without a description in xtask/src/docs.rs PARAMS: {undocumented:?}"
            ));
        }
        for (key, value) in keys {
            let doc = PARAMS
                .iter()
                .find(|p| p.0 == name && p.1 == key)
                .or_else(|| PARAMS.iter().find(|p| p.0 == "*" && p.1 == key))
                .expect("checked above");
            used.insert((doc.0, doc.1));
            s.push_str(&format!("| `{key}` | `{value}` | {} |\n", doc.2.replace('|', "\\|")));
        }
        s.push('\n');
    }
    let stale: Vec<String> =
        PARAMS.iter().filter(|p| !used.contains(&(p.0, p.1))).map(|p| format!("{}:{}", p.0, p.1)).collect();
    if !stale.is_empty() {
        return Err(format!("descriptions in xtask/src/docs.rs PARAMS of keys no config has: {stale:?}"));
    }
    Ok(s)
}

fn verification_page(root: &Path) -> Result<String, String> {
    let path = root.join("docs/generated/verification.json");
    let mut s = String::from(
        "# Verification report\n\n<!-- Generated by `cargo xtask docs` from docs/generated/verification.json; do not edit. -->\n\n",
    );
    let Ok(text) = std::fs::read_to_string(&path) else {
        s.push_str(
            "Not run yet: `cargo xtask verify --json docs/generated/verification.json`, then `cargo xtask docs`.\n",
        );
        return Ok(s);
    };
    let report: VerifyReport = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let count = |st: Status| report.rows.iter().filter(|r| r.status == st).count();
    s.push_str(&format!(
        "`cargo xtask verify{}` on {}, commit `{}`: {} rows, {} pass, {} fail, {} known findings (failing as documented), {} reported; {:.1} s.\n\n\
         Refresh with `cargo xtask verify --json docs/generated/verification.json && cargo xtask docs`. \
         Each check's criterion is documented in `xtask/src/checks/`. Rows marked `info` are values reported \
         without a guarantee to hold them against (tables, practical settings). Rows marked `FAIL (known finding)` \
         fail their pre-registered criterion and are documented findings about the papers (`KNOWN_FINDINGS` in \
         `xtask/src/report.rs`); they do not fail the command.\n\n",
        if report.quick { " --quick" } else { "" },
        report.date,
        report.commit,
        report.rows.len(),
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Finding),
        count(Status::Info),
        report.seconds
    ));
    s.push_str(&markdown(&report.rows));
    s.push_str("\n## Pending\n\nComponents being written; their checks join the catalogue when they land.\n\n");
    for (c, what) in &report.pending {
        s.push_str(&format!("* {c}: {what}\n"));
    }
    Ok(s)
}

fn reproduction_page(root: &Path) -> Result<String, String> {
    let dir = root.join("docs/reproduction");
    let mut s = String::from(
        "# Reproduction reports: index\n\n<!-- Generated by `cargo xtask docs` from docs/reproduction/; do not edit. -->\n\n\
         The reports are written by `cargo run --release --example reproduce`; the verdicts are in \
         [their own index](../reproduction/README.md).\n\n",
    );
    let mut pages = BTreeMap::new();
    let mut sensitivity = Vec::new();
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.extension().is_some_and(|x| x == "md") {
            let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let title = text.lines().find_map(|l| l.strip_prefix("# ")).unwrap_or(&name).to_string();
            pages.insert(name, title);
        } else if p.is_dir() && name == "sensitivity" {
            for f in std::fs::read_dir(&p).map_err(|e| format!("{}: {e}", p.display()))?.flatten() {
                sensitivity.push(f.file_name().to_string_lossy().to_string());
            }
        }
    }
    s.push_str("| page | title |\n|---|---|\n");
    for (name, title) in &pages {
        s.push_str(&format!("| [{name}](../reproduction/{name}) | {} |\n", title.replace('|', "\\|")));
    }
    if !sensitivity.is_empty() {
        sensitivity.sort();
        s.push_str("\n## Sensitivity runs\n\n");
        for f in sensitivity {
            s.push_str(&format!("* [`{f}`](../reproduction/sensitivity/{f})\n"));
        }
    }
    Ok(s)
}

fn pages(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let out = root.join("docs/generated");
    Ok(vec![
        (out.join("algorithms.md"), algorithms_page()?),
        (out.join("verification.md"), verification_page(root)?),
        (out.join("reproduction.md"), reproduction_page(root)?),
    ])
}

pub fn run(args: &[String]) -> ExitCode {
    let check = match args {
        [] => false,
        [a] if a == "--check" => true,
        _ => return crate::usage(),
    };
    let root = crate::root();
    let pages = match pages(&root) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("xtask docs: {e}");
            return ExitCode::from(1);
        }
    };
    if check {
        let stale: Vec<String> = pages
            .iter()
            .filter(|(p, text)| std::fs::read_to_string(p).ok().as_deref() != Some(text.as_str()))
            .map(|(p, _)| p.strip_prefix(&root).unwrap_or(p).display().to_string())
            .collect();
        if stale.is_empty() {
            println!("xtask docs --check: docs/generated is up to date");
            return ExitCode::SUCCESS;
        }
        eprintln!("xtask docs --check: stale generated pages (run `cargo xtask docs`): {}", stale.join(", "));
        return ExitCode::from(1);
    }
    for (path, text) in pages {
        if let Some(dir) = path.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            eprintln!("xtask docs: cannot create {}: {e}", dir.display());
            return ExitCode::from(1);
        }
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("xtask docs: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        println!("wrote {}", path.strip_prefix(&root).unwrap_or(&path).display());
    }
    ExitCode::SUCCESS
}
