//! The plots of a COBOL panel ([`crate::cobol`]): one curve per algorithm against f-evaluations,
//! mean with ±1 s.e. bands, as PNG or SVG (by the file extension), drawn atomically.

use bohf_experiments::error::{ExperimentError, Result};
use bohf_experiments::plot::glyphs::PlacedText;
use bohf_experiments::plot::{COLOURS, SIZE, ensure_font};
use bohf_experiments::summary::MeanSe;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One curve: the algorithm's label, its runs, and mean ± s.e. at k = 1, 2, … f-evaluations.
pub(crate) type LabelledCurve = (String, usize, Vec<MeanSe>);

/// Draws `curves` into `path` (`.png` or `.svg`), titled `title`, with y-axis `axis`; written to a
/// temporary sibling first, then renamed.
pub(crate) fn plot_curves(title: &str, axis: &str, curves: &[LabelledCurve], path: &Path) -> Result<()> {
    let fail = |reason: String| ExperimentError::Plot { path: path.to_path_buf(), reason };
    ensure_font().map_err(fail)?;
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    // The image encoder picks the format by the extension: the temporary name keeps it.
    let tmp = path.with_file_name(format!(
        ".{}.tmp-{}.{}",
        path.file_stem().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
        std::process::id(),
        ext.as_deref().unwrap_or("")
    ));
    let drawn = match ext.as_deref() {
        Some("png") => {
            let root = PlacedText(BitMapBackend::new(&tmp, SIZE)).into_drawing_area();
            draw(&root, title, axis, curves).and_then(|()| root.present().map_err(|e| e.to_string()))
        }
        Some("svg") => {
            let root = SVGBackend::new(&tmp, SIZE).into_drawing_area();
            draw(&root, title, axis, curves).and_then(|()| root.present().map_err(|e| e.to_string()))
        }
        _ => Err("the file name must end in .png or .svg".into()),
    };
    if let Err(e) = drawn {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| fail(format!("cannot rename the drawn plot into place: {e}")))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    axis: &str,
    curves: &[LabelledCurve],
) -> std::result::Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let finite = |m: &MeanSe| m.mean.is_finite() && m.se.is_finite();
    let kmax = curves.iter().map(|(_, _, c)| c.len()).max().unwrap_or(0).max(2) as f64;
    let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
    for m in curves.iter().flat_map(|(_, _, c)| c.iter()).filter(|m| finite(m)) {
        y0 = y0.min(m.mean - m.se);
        y1 = y1.max(m.mean + m.se);
    }
    if !(y0.is_finite() && y1.is_finite()) {
        (y0, y1) = (0.0, 1.0);
    }
    if y1 - y0 < 1e-12 {
        (y0, y1) = (y0 - 0.5, y1 + 0.5);
    }
    let pad = 0.05 * (y1 - y0);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(1.0..kmax, (y0 - pad)..(y1 + pad))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("f-evaluations k")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc(axis)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    for (i, (label, runs, c)) in curves.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let pts = |sign: f64| -> Vec<(f64, f64)> {
            c.iter()
                .enumerate()
                .filter(|(_, m)| finite(m))
                .map(|(k, m)| ((k + 1) as f64, m.mean + sign * m.se))
                .collect()
        };
        let mut band = pts(1.0);
        band.extend(pts(-1.0).into_iter().rev());
        if band.len() > 2 {
            chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.2).filled()))).map_err(e)?;
        }
        chart
            .draw_series(LineSeries::new(pts(0.0), colour.stroke_width(2)))
            .map_err(e)?
            .label(format!("{label} ({runs} runs)"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(("sans-serif", 16))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    Ok(())
}
