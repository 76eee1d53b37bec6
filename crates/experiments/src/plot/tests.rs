use super::*;
use crate::MeanSe;
use crate::summary::{AlgorithmSummary, AtHorizon, Curve};

pub(crate) fn summary(curves: &[Vec<f64>], runs: usize) -> Summary {
    let spec = crate::ExperimentSpec::from_toml_str(
        "name = \"x\"\nhorizon = 1\nruns = 1\n[problem]\nkind = \"rkhs\"\n[[algorithms]]\nname = \"random\"\n",
    )
    .unwrap();
    let z = MeanSe { mean: 0.0, se: 0.0 };
    let algorithms = curves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let curve = Curve { mean: m.clone(), se: vec![0.0; m.len()] };
            AlgorithmSummary {
                label: format!("alg{i}"),
                name: "random".into(),
                runs,
                instantaneous: curve.clone(),
                cumulative: curve.clone(),
                utility_gap: Some(crate::summary::GapSummary {
                    instantaneous: curve.clone(),
                    cumulative: curve.clone(),
                    simple: curve.clone(),
                    instantaneous_at_horizon: z,
                    cumulative_at_horizon: z,
                    simple_at_horizon: z,
                }),
                simple: curve,
                at_horizon: AtHorizon { instantaneous: z, cumulative: z, simple: z, wall_seconds: z },
                feedback: None,
            }
        })
        .collect();
    Summary {
        title: "t".into(),
        standard_error: String::new(),
        spec,
        algorithms,
        failures: Vec::new(),
        steps_csv: None,
    }
}

#[test]
fn one_step_is_centred_with_one_whole_tick_and_markers() {
    let l = layout(&summary(&[vec![0.3]], 2), Metric::Cumulative).unwrap();
    assert_eq!(l.x_range, (0.5, 1.5));
    assert_eq!(l.x_ticks, vec![1.0]);
    assert!(l.markers);
    assert!(l.y_range.0 <= 0.0 && l.y_range.1 > 0.3, "{:?}", l.y_range);
}

#[test]
fn ticks_are_whole_steps() {
    assert_eq!(integer_ticks(1.0, 2.0), vec![1.0, 2.0]);
    assert_eq!(integer_ticks(1.0, 5.0), vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(integer_ticks(1.0, 300.0), vec![50.0, 100.0, 150.0, 200.0, 250.0, 300.0]);
    for hi in [2.0, 3.0, 7.0, 40.0, 99.0, 1234.0] {
        let t = integer_ticks(1.0, hi);
        assert!(!t.is_empty() && t.len() <= 11, "{hi}: {t:?}");
        assert!(t.iter().all(|x| x.fract() == 0.0 && *x >= 1.0 && *x <= hi), "{hi}: {t:?}");
    }
    let l = layout(&summary(&[vec![0.1, 0.2]], 1), Metric::Instantaneous).unwrap();
    assert_eq!((l.x_range, l.x_ticks), ((1.0, 2.0), vec![1.0, 2.0]));
    // Issue 33, item 12: ranges far beyond the step's precision (a `[budget]` of 1e100 per
    // evaluation) give a few ticks, not an endless loop; non-finite ranges give none.
    for (lo, hi) in [(1e100, 1e100), (1e100, 1e100 + 1e85), (1.0, 1e100), (0.5, 1e300), (1e300, f64::MAX)] {
        let t = integer_ticks(lo, hi);
        assert!(!t.is_empty() && t.len() <= 11, "({lo}, {hi}): {t:?}");
        assert!(t.iter().all(|x| *x >= lo && *x <= hi + 1e-9), "({lo}, {hi}): {t:?}");
    }
    for (lo, hi) in [(1.0, f64::INFINITY), (f64::NAN, 3.0), (5.0, 2.0)] {
        assert_eq!(integer_ticks(lo, hi), Vec::<f64>::new());
    }
}

#[test]
fn nothing_to_plot_is_an_error() {
    let e = layout(&summary(&[], 0), Metric::Cumulative).unwrap_err();
    assert!(e.contains("nothing to plot"), "{e}");
    let e = layout(&summary(&[vec![]], 0), Metric::Cumulative).unwrap_err();
    assert!(e.contains("nothing to plot"), "{e}");
    let e = layout(&summary(&[vec![f64::NAN, f64::NAN]], 1), Metric::Cumulative).unwrap_err();
    assert!(e.contains("no finite value"), "{e}");
    // And the drawing refuses it too.
    let dir = std::env::temp_dir().join(format!("bohf-plot-empty-{}.svg", std::process::id()));
    assert!(plot(&summary(&[], 0), Metric::Cumulative, &dir).is_err());
}

#[test]
fn the_legend_avoids_the_curves() {
    let t = 100;
    // Rising curves (cumulative regret): the upper right is covered, the upper left is free.
    let rising: Vec<Vec<f64>> = (1..=3).map(|k| (0..t).map(|i| k as f64 * i as f64).collect()).collect();
    assert_eq!(layout(&summary(&rising, 5), Metric::Cumulative).unwrap().legend, Corner::UpperLeft);
    // Falling curves starting high (instantaneous regret): the upper left is covered.
    let falling: Vec<Vec<f64>> =
        (1..=3).map(|k| (0..t).map(|i| k as f64 * 10.0 / (1.0 + i as f64)).collect()).collect();
    let l = layout(&summary(&falling, 5), Metric::Instantaneous).unwrap();
    assert_eq!(l.legend, Corner::UpperRight);
    // One curve along the top, a second that drops to the bottom halfway: only the lower left
    // is free.
    let high: Vec<f64> = (0..t).map(|_| 10.0).collect();
    let drops: Vec<f64> = (0..t).map(|i| if i < 50 { 10.0 } else { 0.2 }).collect();
    let l = layout(&summary(&[high, drops], 5), Metric::Simple).unwrap();
    assert_eq!(l.legend, Corner::LowerLeft, "{l:?}");
}

#[test]
fn axis_labels_are_plain_text_the_font_has_and_svgs_carry_them_whole() {
    let mut labels: Vec<&str> = Metric::ALL.iter().map(|m| m.axis_label()).collect();
    for f in FeedbackPlot::ALL {
        let (x, y) = f.axis_labels();
        labels.extend([x, y]);
    }
    for l in &labels {
        assert!(!l.contains(['_', '^', '{', '}']), "markup a plot prints literally: {l:?}");
        assert_eq!(glyphs::missing_glyphs(l), Vec::<char>::new(), "no glyph in Noto Sans: {l:?}");
    }
    assert_eq!(Metric::Instantaneous.axis_label(), "instantaneous regret r(t)");
    // The SVG writes each axis label as one text element with exactly that text.
    let s = summary(&[vec![0.5, 0.4, 0.3]], 2);
    for m in Metric::ALL {
        let path = std::env::temp_dir().join(format!("bohf-plot-labels-{}-{}.svg", m.as_str(), std::process::id()));
        plot(&s, m, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).ok();
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| t.split_once('>')?.1.split_once("</text>").map(|p| p.0.trim()))
            .collect();
        assert!(texts.contains(&m.axis_label()), "{m:?}: {texts:?}");
        assert!(texts.contains(&"t"), "{m:?}: {texts:?}");
    }
    // A summary of runs recorded before the utility gaps: a clear error for a gap metric.
    let mut old = s.clone();
    old.algorithms.iter_mut().for_each(|a| a.utility_gap = None);
    let e = layout(&old, Metric::SimpleGap).unwrap_err();
    assert!(e.contains("no `simple-gap`") && e.contains("before the utility gaps"), "{e}");
    assert!(layout(&old, Metric::Simple).is_ok());
}
