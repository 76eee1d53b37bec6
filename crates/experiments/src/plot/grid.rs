//! Small multiples: one small chart per algorithm, for comparing many algorithms (the leaderboard's
//! nine) where one chart of overlapping bands is unreadable.
//!
//! Every cell has the same axes (the ranges of [`super::layout`] over all algorithms), so heights
//! compare across cells; a cell draws its algorithm's mean ± 1 s.e. in its colour over the other
//! algorithms' means as thin grey lines, and is titled with the algorithm (no legend over the
//! curves). The cells are ordered by the final mean of the metric, lowest (best) first.

use super::{COLOURS, Metric, TickedAxis, layout};
use crate::error::{ExperimentError, Result};
use crate::summary::Summary;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Width of the image in pixels; the height grows with the rows.
const WIDTH: u32 = 1200;
/// Height of one row of cells, pixels.
const ROW: u32 = 300;
/// Height of the title strip, pixels.
const TITLE: u32 = 50;

/// (rows, columns) for `n` cells: ⌈√n⌉ columns, as many rows as needed (9 → 3 × 3).
pub fn grid_shape(n: usize) -> (usize, usize) {
    let mut cols = 1;
    while cols * cols < n {
        cols += 1;
    }
    (n.div_ceil(cols).max(1), cols)
}

/// The algorithms' indices in cell order: by the final mean of `metric`, lowest first (those
/// without a finite final value last), ties in spec order.
pub fn cell_order(summary: &Summary, metric: Metric) -> Vec<usize> {
    let last = |i: usize| {
        summary.algorithms[i]
            .curve(metric)
            .and_then(|c| c.mean.last().copied())
            .filter(|v| v.is_finite())
            .unwrap_or(f64::INFINITY)
    };
    let mut order: Vec<usize> = (0..summary.algorithms.len()).collect();
    order.sort_by(|&a, &b| last(a).total_cmp(&last(b)));
    order
}

/// Draws `metric` of every algorithm of `summary` as small multiples into `path` (`.png` or
/// `.svg`); an error if there is nothing to plot (as [`super::plot`]).
pub fn plot_small_multiples(summary: &Summary, metric: Metric, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let fail = |reason: String| ExperimentError::Plot { path: path.to_path_buf(), reason };
    let l = layout(summary, metric).map_err(fail)?;
    super::ensure_font().map_err(fail)?;
    let (rows, _) = grid_shape(summary.algorithms.len());
    let size = (WIDTH, TITLE + ROW * rows as u32);
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => {
            let root = super::glyphs::PlacedText(BitMapBackend::new(path, size)).into_drawing_area();
            draw(&root, summary, metric, &l).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        Some("svg") => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw(&root, summary, metric, &l).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        _ => Err(fail("the file name must end in .png or .svg".into())),
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &Summary,
    metric: Metric,
    l: &super::Layout,
) -> std::result::Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let title = format!("{}: {}", summary.title, metric.axis_label());
    let root = root.titled(&title, ("sans-serif", 22)).map_err(e)?;
    let (rows, cols) = grid_shape(summary.algorithms.len());
    let cells = root.split_evenly((rows, cols));
    let means: Vec<Vec<(f64, f64)>> = summary
        .algorithms
        .iter()
        .map(|a| {
            a.curve(metric)
                .map(|c| (1..).zip(&c.mean).filter(|(_, m)| m.is_finite()).map(|(t, m)| (f64::from(t), *m)).collect())
                .unwrap_or_default()
        })
        .collect();
    for (k, (&i, cell)) in cell_order(summary, metric).iter().zip(&cells).enumerate() {
        let a = &summary.algorithms[i];
        let colour = COLOURS[i % COLOURS.len()];
        let (x0, x1) = l.x_range;
        let (y0, y1) = l.y_range;
        let mut chart = ChartBuilder::on(cell)
            .caption(format!("{}. {} ({} runs)", k + 1, a.label, a.runs), ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(24)
            .y_label_area_size(56)
            .build_cartesian_2d(TickedAxis { inner: (x0..x1).into(), ticks: l.x_ticks.clone() }, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_label_formatter(&|x| format!("{x:.0}"))
            .x_labels(5)
            .y_labels(5)
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        for (j, m) in means.iter().enumerate() {
            if j != i && !m.is_empty() {
                chart.draw_series(LineSeries::new(m.clone(), RGBColor(190, 190, 190).stroke_width(1))).map_err(e)?;
            }
        }
        let Some(c) = a.curve(metric) else { continue };
        let finite: Vec<(f64, f64, f64)> = (1..)
            .zip(c.mean.iter().zip(&c.se))
            .map(|(t, (m, s))| (f64::from(t), *m, *s))
            .filter(|(_, m, s)| m.is_finite() && s.is_finite())
            .collect();
        let pts = |sign: f64| -> Vec<(f64, f64)> { finite.iter().map(|(x, m, s)| (*x, m + sign * s)).collect() };
        let mut band = pts(1.0);
        band.extend(pts(-1.0).into_iter().rev());
        chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.25).filled()))).map_err(e)?;
        chart.draw_series(LineSeries::new(pts(0.0), colour.stroke_width(2))).map_err(e)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_shapes() {
        assert_eq!(grid_shape(9), (3, 3));
        assert_eq!(grid_shape(8), (3, 3));
        assert_eq!(grid_shape(4), (2, 2));
        assert_eq!(grid_shape(5), (2, 3));
        assert_eq!(grid_shape(1), (1, 1));
        assert_eq!(grid_shape(0), (1, 1));
    }

    #[test]
    fn nine_algorithms_in_a_three_by_three_grid_best_first() {
        // Nine flat curves at 9, 8, …, 1: the cells run from the lowest final value.
        let curves: Vec<Vec<f64>> = (0..9).map(|i| vec![9.0 - i as f64; 5]).collect();
        let s = crate::plot::tests::summary(&curves, 3);
        assert_eq!(cell_order(&s, Metric::SimpleGap), vec![8, 7, 6, 5, 4, 3, 2, 1, 0]);
        for ext in ["svg", "png"] {
            let path = std::env::temp_dir().join(format!("bohf-grid-{}.{ext}", std::process::id()));
            plot_small_multiples(&s, Metric::SimpleGap, &path).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            std::fs::remove_file(&path).ok();
            assert!(bytes.len() > 1000, "{ext}");
            if ext == "svg" {
                let svg = String::from_utf8(bytes).unwrap();
                // Each cell is titled with its rank and algorithm; no legend.
                assert!(svg.contains("1. alg8 (3 runs)") && svg.contains("9. alg0 (3 runs)"), "{svg}");
            }
        }
        let mut old = s.clone();
        old.algorithms.iter_mut().for_each(|a| a.utility_gap = None);
        assert!(plot_small_multiples(&old, Metric::SimpleGap, std::env::temp_dir().join("x.svg")).is_err());
    }
}
