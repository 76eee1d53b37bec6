//! The `--quick` path of `examples/reproduce.rs` on two panels (one of each paper, neither needing a
//! data file) into a temporary folder, plus the comparison rule and the horizon-file round trip the
//! index is built from.

#[allow(dead_code)]
#[path = "../examples/reproduce.rs"]
mod reproduce;

use bohf::experiments::MeanSe;
use bohf::experiments::summary::AtHorizon;
use reproduce::{Options, Order, PanelResult, compare};
use std::path::PathBuf;

/// A fresh folder under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("bohf-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn quick_reproduction_writes_reports_and_index() {
    let dir = TempDir::new("reproduce-quick");
    let args = ["--quick", "--out", dir.0.to_str().unwrap(), "mrlpf-fig1a-rkhs-se", "pfts-fig4-rkhs"];
    let opts = Options::parse(args.iter().map(|s| s.to_string())).unwrap();
    assert!(opts.quick);
    let done = reproduce::run(&opts).unwrap();
    assert_eq!(done.len(), 2);

    for r in &done {
        assert!(r.quick);
        assert_eq!(r.horizon, reproduce::QUICK_HORIZON);
        for a in &r.algorithms {
            assert_eq!(a.runs, reproduce::QUICK_RUNS);
            // r_t ∈ [0, ½], so R(T) ≤ T/2; a run takes positive time.
            assert!((0.0..=0.5).contains(&a.at.instantaneous.mean), "{a:?}");
            assert!(a.at.cumulative.mean >= 0.0 && a.at.cumulative.mean <= 0.5 * r.horizon as f64);
            assert!(a.at.wall_seconds.mean > 0.0);
        }
        // The horizon file parses back to exactly what was written (shortest round-trip floats).
        let text = std::fs::read_to_string(dir.0.join(format!("{}.horizon.csv", r.name))).unwrap();
        assert_eq!(&PanelResult::from_csv(&text).unwrap(), r);
        // Report and plots.
        let md = std::fs::read_to_string(dir.0.join(format!("{}.md", r.name))).unwrap();
        assert!(md.contains("Quick smoke test"));
        assert!(md.contains("| algorithm | runs |"));
        for ext in ["png", "svg"] {
            for m in ["instantaneous", "cumulative"] {
                let bytes = std::fs::read(dir.0.join(format!("{}-{m}.{ext}", r.name))).unwrap();
                if ext == "png" {
                    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
                } else {
                    assert!(String::from_utf8_lossy(&bytes).contains("<svg"));
                }
                assert!(md.contains(&format!("{}-{m}.", r.name)));
            }
        }
    }
    let mr = &done[0];
    assert_eq!(mr.algorithms.iter().map(|a| a.label.as_str()).collect::<Vec<_>>(), ["MR-LPF", "MaxMinLCB"]);
    let pf = &done[1];
    assert_eq!(
        pf.algorithms.iter().map(|a| a.label.as_str()).collect::<Vec<_>>(),
        ["PF-TS", "MR-LPF", "MaxMinLCB", "GP-TS (scalar)", "POP-BO"]
    );

    let index = std::fs::read_to_string(dir.0.join("README.md")).unwrap();
    assert!(index.contains("smoke tests"));
    assert!(index.contains("MR-LPF < MaxMinLCB"));
    assert!(index.contains("PF-TS ≈ MaxMinLCB"));
    assert!(index.contains("GP-TS (scalar) lowest"));
    // "PF-TS < POP-BO" is a Fig. 2 claim only: not judged on the RKHS panel.
    assert!(!index.contains("- **PF-TS < POP-BO"));
    // The panels not run are listed as such.
    assert!(index.contains("Not run yet:") && index.contains("pfts-fig2-catalyst"));
}

#[test]
fn unknown_panel_and_option_are_errors() {
    let e = Options::parse(["--bogus".to_string()]).unwrap_err().to_string();
    assert!(e.contains("--bogus"), "{e}");
    let dir = TempDir::new("reproduce-unknown");
    let mut opts = Options::parse(["--quick".to_string()]).unwrap();
    opts.out_dir = dir.0.clone();
    opts.names = vec!["no-such-panel".into()];
    let e = reproduce::run(&opts).unwrap_err().to_string();
    assert!(e.contains("no-such-panel") && e.contains("mrlpf-fig1a-rkhs-se"), "{e}");
}

#[test]
fn comparison_rule_by_hand() {
    let m = |mean, se| MeanSe { mean, se };
    // d = 1 − 2 = −1, s.e.(d) = √(0.3² + 0.4²) = 0.5: exactly −2 s.e., not beyond it.
    let (d, se, o) = compare(m(1.0, 0.3), m(2.0, 0.4));
    assert!((d + 1.0).abs() < 1e-15 && (se - 0.5).abs() < 1e-15);
    assert_eq!(o, Order::Indistinguishable);
    assert_eq!(compare(m(1.0, 0.3), m(2.01, 0.4)).2, Order::Lower);
    assert_eq!(compare(m(2.01, 0.3), m(1.0, 0.4)).2, Order::Higher);
    // Zero standard errors: any difference beyond rounding counts; equality and a difference of
    // rounding size (|d| ≤ 1e-12·(1 + |a| + |b|)) do not.
    assert_eq!(compare(m(0.0, 0.0), m(1e-9, 0.0)).2, Order::Lower);
    assert_eq!(compare(m(0.3, 0.0), m(0.3 + 1e-13, 0.0)).2, Order::Indistinguishable);
    assert_eq!(compare(m(0.5, 0.0), m(0.5, 0.0)).2, Order::Indistinguishable);
}

#[test]
fn claims_follow_the_rule() {
    let row = |label: &str, cum: MeanSe| reproduce::AlgorithmRow {
        label: label.into(),
        runs: 30,
        at: AtHorizon { instantaneous: cum, cumulative: cum, simple: cum, wall_seconds: MeanSe { mean: 0.1, se: 0.0 } },
    };
    let m = |mean, se| MeanSe { mean, se };
    let panel = PanelResult {
        name: "pfts-test".into(),
        title: "test".into(),
        horizon: 100,
        quick: false,
        elapsed_s: 1.0,
        algorithms: vec![
            row("PF-TS", m(10.0, 1.0)),
            row("MR-LPF", m(14.0, 1.0)), // d = −4, s.e. √2: beyond 2 s.e. ⇒ PF-TS < MR-LPF holds
            row("MaxMinLCB", m(12.0, 1.0)), // |d| = 2 ≤ 2√2 ⇒ ≈ holds
            row("GP-TS (scalar)", m(9.0, 0.5)), // 1 below PF-TS with s.e. 1.118 ⇒ not lowest
        ],
    };
    // The claims come from the spec's `[reproduces]` section, not from the panel's name.
    let rep = |paper: &str, claims: &[&str]| reproduce::Reproduces {
        paper: paper.into(),
        figure: "Figure 0".into(),
        claims: claims.iter().map(|c| c.to_string()).collect(),
    };
    let pfts = rep("pfts", &["PF-TS < MR-LPF", "PF-TS ≈ MaxMinLCB", "GP-TS (scalar) lowest"]);
    assert!(reproduce::claims_of(&panel, None).is_empty());
    let claims = reproduce::claims_of(&panel, Some(&pfts));
    let holds: Vec<(String, bool)> = claims.iter().map(|c| (c.statement.clone(), c.holds)).collect();
    assert_eq!(
        holds,
        [
            ("PF-TS < MR-LPF".to_string(), true),
            ("PF-TS ≈ MaxMinLCB".to_string(), true),
            ("GP-TS (scalar) lowest".to_string(), false)
        ]
    );
    assert!(claims[2].verdict.contains("PF-TS") && !claims[2].verdict.contains("MR-LPF"));
    // An MR-LPF panel is judged on r_T: MR-LPF 0.01 ± 0.001 vs MaxMinLCB 0.02 ± 0.001 holds.
    let mr = PanelResult {
        name: "mrlpf-test".into(),
        algorithms: vec![row("MR-LPF", m(0.01, 0.001)), row("MaxMinLCB", m(0.02, 0.001))],
        ..panel
    };
    let c = reproduce::claims_of(&mr, Some(&rep("mrlpf", &["MR-LPF < MaxMinLCB"])));
    assert_eq!(c.len(), 1);
    assert!(c[0].holds && c[0].statement == "MR-LPF < MaxMinLCB");
    // The same values judged as a PF-TS claim use R(T) instead: here equal to r_T by construction,
    // so the claim still holds; a claim naming an algorithm without a row is skipped.
    let c = reproduce::claims_of(&mr, Some(&rep("pfts", &["MR-LPF < MaxMinLCB", "PF-TS lowest"])));
    assert_eq!(c.len(), 1);
}

#[test]
fn a_failing_panel_is_reported_and_the_others_still_run() {
    let specs = TempDir::new("reproduce-specs");
    let out = TempDir::new("reproduce-out");
    let root = reproduce::workspace_root().join("specs");
    let catalyst = std::fs::read_to_string(root.join("pfts-fig2-catalyst.toml")).unwrap();
    let broken = catalyst.replace("../../shared/data/ocx24/", "no/such/folder/");
    assert_ne!(broken, catalyst);
    std::fs::write(specs.0.join("pfts-fig2-catalyst.toml"), broken).unwrap();
    std::fs::copy(root.join("pfts-fig4-rkhs.toml"), specs.0.join("pfts-fig4-rkhs.toml")).unwrap();
    let mut opts = Options::parse(["--quick".to_string()]).unwrap();
    opts.specs_dir = specs.0.clone();
    opts.out_dir = out.0.clone();
    let e = reproduce::run(&opts).unwrap_err().to_string();
    assert!(e.contains("1 panel(s) failed") && e.contains("pfts-fig2-catalyst"), "{e}");
    assert!(out.0.join("pfts-fig4-rkhs.md").exists());
    let index = std::fs::read_to_string(out.0.join("README.md")).unwrap();
    assert!(index.contains("Not run yet: pfts-fig2-catalyst"), "{index}");
}
