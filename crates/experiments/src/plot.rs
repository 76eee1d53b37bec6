//! Regret curves with ±1 standard-error bands, one curve per algorithm, titled with the problem,
//! as PNG or SVG (chosen by the file extension).
//!
//! Text needs a font. So that PNGs are drawn without any system package (no fontconfig, no
//! installed fonts), plotters is built with its pure-Rust `ab_glyph` text renderer and bohf embeds
//! Noto Sans Regular from the `ttf-noto-sans` crate (≈200 kB, Apache-2.0 font, no dependencies),
//! registered once as the `sans-serif` family. SVG output writes text as `<text>` elements; the
//! same font only measures it for the layout.

use crate::error::{ExperimentError, Result};
use crate::summary::Summary;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::OnceLock;

/// Which regret to plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// r_t, the instantaneous regret of the query at t.
    Instantaneous,
    /// R(t) = Σ_{s ≤ t} r_s.
    Cumulative,
    /// P(x* ≻ x̂_t) − ½ of the recommendation after t.
    Simple,
}

impl Metric {
    /// All metrics.
    pub const ALL: [Metric; 3] = [Metric::Instantaneous, Metric::Cumulative, Metric::Simple];

    /// The lowercase name (`instantaneous`, `cumulative`, `simple`).
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Instantaneous => "instantaneous",
            Metric::Cumulative => "cumulative",
            Metric::Simple => "simple",
        }
    }

    /// The y-axis label.
    pub fn axis_label(self) -> &'static str {
        match self {
            Metric::Instantaneous => "instantaneous regret r_t",
            Metric::Cumulative => "cumulative regret R(t)",
            Metric::Simple => "simple regret of the recommendation",
        }
    }
}

impl std::str::FromStr for Metric {
    type Err = ExperimentError;
    fn from_str(s: &str) -> Result<Self> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s).ok_or_else(|| {
            ExperimentError::spec("metric", format!("unknown metric `{s}`; valid: instantaneous, cumulative, simple"))
        })
    }
}

/// Registers the embedded font as `sans-serif` (once per process).
fn ensure_font() -> std::result::Result<(), String> {
    static FONT: OnceLock<bool> = OnceLock::new();
    let ok = *FONT.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, ttf_noto_sans::REGULAR).is_ok()
    });
    if ok { Ok(()) } else { Err("the embedded Noto Sans font could not be parsed".into()) }
}

/// Ten distinguishable colours (matplotlib's `tab10`).
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Plot size in pixels.
pub const SIZE: (u32, u32) = (960, 600);

/// Draws `metric` of every algorithm of `summary` into `path` (`.png` or `.svg`).
pub fn plot(summary: &Summary, metric: Metric, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let fail = |reason: String| ExperimentError::Plot { path: path.to_path_buf(), reason };
    ensure_font().map_err(fail)?;
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => {
            let root = BitMapBackend::new(path, SIZE).into_drawing_area();
            draw(&root, summary, metric).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        Some("svg") => {
            let root = SVGBackend::new(path, SIZE).into_drawing_area();
            draw(&root, summary, metric).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        _ => Err(fail("the file name must end in .png or .svg".into())),
    }
}

/// The chart on any backend.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summary: &Summary,
    metric: Metric,
) -> std::result::Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let horizon = summary.algorithms.iter().map(|a| a.curve(metric).mean.len()).max().unwrap_or(0);
    let (mut lo, mut hi) = (0.0f64, f64::NEG_INFINITY);
    for a in &summary.algorithms {
        let c = a.curve(metric);
        for (m, s) in c.mean.iter().zip(&c.se) {
            if m.is_finite() && s.is_finite() {
                lo = lo.min(m - s);
                hi = hi.max(m + s);
            }
        }
    }
    if hi.is_nan() || hi <= lo {
        hi = lo + 1.0;
    }
    let pad = 0.05 * (hi - lo);
    let x_max = horizon.max(2) as f64;
    let mut chart = ChartBuilder::on(root)
        .caption(&summary.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(1.0..x_max, (lo - if lo < 0.0 { pad } else { 0.0 })..(hi + pad))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("t")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc(metric.axis_label())
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    for (i, a) in summary.algorithms.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let c = a.curve(metric);
        let pts = |sign: f64| -> Vec<(f64, f64)> {
            c.mean.iter().zip(&c.se).enumerate().map(|(t, (m, s))| ((t + 1) as f64, m + sign * s)).collect()
        };
        let mut band = pts(1.0);
        band.extend(pts(-1.0).into_iter().rev());
        chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.2).filled()))).map_err(e)?;
        chart
            .draw_series(LineSeries::new(pts(0.0), colour.stroke_width(2)))
            .map_err(e)?
            .label(format!("{} ({} runs)", a.label, a.runs))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3)));
    }
    let position =
        if metric == Metric::Cumulative { SeriesLabelPosition::UpperLeft } else { SeriesLabelPosition::UpperRight };
    chart
        .configure_series_labels()
        .position(position)
        .label_font(("sans-serif", 16))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    Ok(())
}
