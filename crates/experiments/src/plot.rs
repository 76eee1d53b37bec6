//! Regret curves with ±1 standard-error bands, one curve per algorithm, titled with the problem,
//! as PNG or SVG (chosen by the file extension); and any [`Panel`] of curves against an x axis,
//! e.g. the feedback metrics of specs with labels or a `[budget]` ([`FeedbackPlot`]).
//!
//! Text needs a font. So that PNGs are drawn without any system package (no fontconfig, no
//! installed fonts), plotters is built with its pure-Rust `ab_glyph` text renderer and bohf embeds
//! Noto Sans Regular from the `ttf-noto-sans` crate (≈200 kB, Apache-2.0 font, no dependencies),
//! registered once as the `sans-serif` family. plotters' renderer misplaces glyphs (it drops their
//! bearings and sub-pixel offsets), so PNG text is drawn by [`glyphs::PlacedText`]. SVG output
//! writes text as `<text>` elements; the same font only measures it for the layout.

use crate::error::{ExperimentError, Result};
use crate::summary::Summary;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::OnceLock;

pub mod glyphs;
pub mod grid;

pub use grid::plot_small_multiples;

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
    /// g_t, the utility gap of the query at t ([`crate::metrics`]).
    #[serde(rename = "instantaneous-gap")]
    InstantaneousGap,
    /// G(t) = Σ_{s ≤ t} g_s.
    #[serde(rename = "cumulative-gap")]
    CumulativeGap,
    /// u(x*) − u(x̂_t), the utility gap of the recommendation after t.
    #[serde(rename = "simple-gap")]
    SimpleGap,
}

impl Metric {
    /// All metrics.
    pub const ALL: [Metric; 6] = [
        Metric::Instantaneous,
        Metric::Cumulative,
        Metric::Simple,
        Metric::InstantaneousGap,
        Metric::CumulativeGap,
        Metric::SimpleGap,
    ];

    /// The name (`instantaneous`, `cumulative`, `simple`, `instantaneous-gap`, `cumulative-gap`,
    /// `simple-gap`).
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Instantaneous => "instantaneous",
            Metric::Cumulative => "cumulative",
            Metric::Simple => "simple",
            Metric::InstantaneousGap => "instantaneous-gap",
            Metric::CumulativeGap => "cumulative-gap",
            Metric::SimpleGap => "simple-gap",
        }
    }

    /// The y-axis label: plain text in the embedded font (no `_` or `^` markup, which a plot would
    /// print literally).
    pub fn axis_label(self) -> &'static str {
        match self {
            Metric::Instantaneous => "instantaneous regret r(t)",
            Metric::Cumulative => "cumulative regret R(t)",
            Metric::Simple => "simple regret of the recommendation",
            Metric::InstantaneousGap => "utility gap of the query",
            Metric::CumulativeGap => "cumulative utility gap",
            Metric::SimpleGap => "utility gap of the recommendation",
        }
    }
}

impl std::str::FromStr for Metric {
    type Err = ExperimentError;
    fn from_str(s: &str) -> Result<Self> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s).ok_or_else(|| {
            let valid: Vec<&str> = Metric::ALL.iter().map(|m| m.as_str()).collect();
            ExperimentError::spec("metric", format!("unknown metric `{s}`; valid: {}", valid.join(", ")))
        })
    }
}

/// Registers the embedded font as `sans-serif` (once per process).
pub fn ensure_font() -> std::result::Result<(), String> {
    static FONT: OnceLock<bool> = OnceLock::new();
    let ok = *FONT.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, ttf_noto_sans::REGULAR).is_ok()
    });
    if ok { Ok(()) } else { Err("the embedded Noto Sans font could not be parsed".into()) }
}

/// Ten distinguishable colours (matplotlib's `tab10`).
pub const COLOURS: [RGBColor; 10] = [
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
    let l = layout(summary, metric).map_err(|reason| ExperimentError::Plot { path: path.to_path_buf(), reason })?;
    render(&Panel::regret(summary, metric), &l, path)
}

/// Draws `panel` into `path` (`.png` or `.svg`); an error if it has nothing to plot.
pub fn plot_panel(panel: &Panel, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let l = panel_layout(panel).map_err(|reason| ExperimentError::Plot { path: path.to_path_buf(), reason })?;
    render(panel, &l, path)
}

fn render(panel: &Panel, layout: &Layout, path: &Path) -> Result<()> {
    let fail = |reason: String| ExperimentError::Plot { path: path.to_path_buf(), reason };
    ensure_font().map_err(fail)?;
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => {
            let root = glyphs::PlacedText(BitMapBackend::new(path, SIZE)).into_drawing_area();
            draw(&root, panel, layout).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        Some("svg") => {
            let root = SVGBackend::new(path, SIZE).into_drawing_area();
            draw(&root, panel, layout).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        _ => Err(fail("the file name must end in .png or .svg".into())),
    }
}

/// One curve of a [`Panel`]: mean ± 1 s.e. at each x.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend text.
    pub label: String,
    /// The x values, increasing.
    pub x: Vec<f64>,
    /// The mean at each x.
    pub mean: Vec<f64>,
    /// The standard error at each x.
    pub se: Vec<f64>,
}

/// A plot: a title, axis labels and curves with ±1 s.e. bands.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// The title (the problem).
    pub title: String,
    /// The x-axis label.
    pub x_label: String,
    /// The y-axis label.
    pub y_label: String,
    /// The curves (empty ones are skipped).
    pub series: Vec<Series>,
}

/// The extra plots of specs with labels or a `[budget]` ([`crate::summary::FeedbackSummary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedbackPlot {
    /// Simple regret SR_k against f-evaluations k.
    SimpleByEvaluations,
    /// Σ_{j ≤ k} SR_j against f-evaluations.
    CumulativeSimpleByEvaluations,
    /// Expert queries Q^g against steps.
    ExpertQueriesBySteps,
    /// Expert queries Q^g against f-evaluations.
    ExpertQueriesByEvaluations,
    /// Simple regret of the recommendation against the spent budget.
    SimpleByBudget,
}

impl FeedbackPlot {
    /// The x- and y-axis labels: plain text in the embedded font (no `_` or `^` markup, which a
    /// plot would print literally).
    pub fn axis_labels(self) -> (&'static str, &'static str) {
        match self {
            FeedbackPlot::SimpleByEvaluations => ("f-evaluations k", "simple regret SR(k) = u* − best value"),
            FeedbackPlot::CumulativeSimpleByEvaluations => ("f-evaluations k", "Σ SR(j) over j ≤ k"),
            FeedbackPlot::ExpertQueriesBySteps => ("t", "expert queries Qᵍ"),
            FeedbackPlot::ExpertQueriesByEvaluations => ("f-evaluations k", "expert queries Qᵍ"),
            FeedbackPlot::SimpleByBudget => ("spent budget", "simple regret of the recommendation"),
        }
    }

    /// All of them.
    pub const ALL: [FeedbackPlot; 5] = [
        FeedbackPlot::SimpleByEvaluations,
        FeedbackPlot::CumulativeSimpleByEvaluations,
        FeedbackPlot::ExpertQueriesBySteps,
        FeedbackPlot::ExpertQueriesByEvaluations,
        FeedbackPlot::SimpleByBudget,
    ];

    /// The file stem `bohf run` writes it to.
    pub fn file_stem(self) -> &'static str {
        match self {
            FeedbackPlot::SimpleByEvaluations => "feedback_simple_by_evaluations",
            FeedbackPlot::CumulativeSimpleByEvaluations => "feedback_cumulative_simple_by_evaluations",
            FeedbackPlot::ExpertQueriesBySteps => "feedback_expert_queries_by_steps",
            FeedbackPlot::ExpertQueriesByEvaluations => "feedback_expert_queries_by_evaluations",
            FeedbackPlot::SimpleByBudget => "feedback_simple_by_budget",
        }
    }
}

/// x = 1, 2, …, n.
fn steps_axis(n: usize) -> Vec<f64> {
    (1..=n).map(|t| t as f64).collect()
}

impl Panel {
    /// The regret `metric` of every algorithm against steps t.
    pub fn regret(summary: &Summary, metric: Metric) -> Self {
        let series = summary
            .algorithms
            .iter()
            .filter_map(|a| {
                let c = a.curve(metric)?;
                Some(Series {
                    label: format!("{} ({} runs)", a.label, a.runs),
                    x: steps_axis(c.mean.len()),
                    mean: c.mean.clone(),
                    se: c.se.clone(),
                })
            })
            .collect();
        Panel { title: summary.title.clone(), x_label: "t".into(), y_label: metric.axis_label().into(), series }
    }

    /// A feedback plot of `summary`; `None` if no algorithm has that curve.
    pub fn feedback(summary: &Summary, which: FeedbackPlot) -> Option<Self> {
        let (x_label, y_label) = which.axis_labels();
        let series: Vec<Series> = summary
            .algorithms
            .iter()
            .filter_map(|a| {
                let f = a.feedback.as_ref()?;
                let (x, c) = match which {
                    FeedbackPlot::SimpleByEvaluations => (None, &f.simple_by_evaluations),
                    FeedbackPlot::CumulativeSimpleByEvaluations => (None, &f.cumulative_simple_by_evaluations),
                    FeedbackPlot::ExpertQueriesBySteps => (None, &f.expert_queries),
                    FeedbackPlot::ExpertQueriesByEvaluations => (None, &f.expert_queries_by_evaluations),
                    FeedbackPlot::SimpleByBudget => {
                        let b = f.simple_by_budget.as_ref()?;
                        (Some(b.spent.clone()), &b.curve)
                    }
                };
                (!c.is_empty()).then(|| Series {
                    label: format!("{} ({} runs)", a.label, a.runs),
                    x: x.unwrap_or_else(|| steps_axis(c.mean.len())),
                    mean: c.mean.clone(),
                    se: c.se.clone(),
                })
            })
            .collect();
        (!series.is_empty()).then(|| Panel {
            title: summary.title.clone(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series,
        })
    }
}

/// A corner of the plot area for the legend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    /// Top left.
    UpperLeft,
    /// Top right.
    UpperRight,
    /// Bottom left.
    LowerLeft,
    /// Bottom right.
    LowerRight,
}

impl Corner {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Corner::UpperLeft => SeriesLabelPosition::UpperLeft,
            Corner::UpperRight => SeriesLabelPosition::UpperRight,
            Corner::LowerLeft => SeriesLabelPosition::LowerLeft,
            Corner::LowerRight => SeriesLabelPosition::LowerRight,
        }
    }
}

/// What a plot shows, decided before drawing (see [`layout`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The x range (steps t).
    pub x_range: (f64, f64),
    /// The labelled x ticks: whole steps inside the range.
    pub x_ticks: Vec<f64>,
    /// The y range.
    pub y_range: (f64, f64),
    /// Whether each step is marked with a dot (few steps: a line alone would not show them).
    pub markers: bool,
    /// The legend's corner: the one whose legend box covers the fewest curve points.
    pub legend: Corner,
}

/// Tick values: whole numbers in `[lo, hi]` at a step of 1, 2 or 5 × 10^k, at most about ten
/// (none for a non-finite or empty range). The ticks are counted from the range and the step, not
/// found by adding the step until `hi`: where the step is below the precision of `lo` (a spent
/// budget of 1e100, issue 33) that sum never moves and the old loop allocated without bound; here
/// equal ticks collapse into one.
fn integer_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi < lo {
        return Vec::new();
    }
    let span = (hi - lo).max(1.0);
    let mut step = 1.0f64;
    // Ends: the span is finite, so some 10^k (or the overflow to infinity) exceeds span / 10.
    'outer: loop {
        for m in [1.0, 2.0, 5.0] {
            if span / (step * m) <= 10.0 {
                step *= m;
                break 'outer;
            }
        }
        step *= 10.0;
    }
    let first = (lo / step).ceil() * step;
    let count = ((hi + 1e-9 - first) / step).floor();
    let count = if count >= 0.0 { (count.min(20.0) as usize) + 1 } else { 0 };
    let mut ticks: Vec<f64> = Vec::with_capacity(count);
    for k in 0..count {
        let t = first + k as f64 * step;
        if t >= 1.0 && t <= hi + 1e-9 && ticks.last() != Some(&t) {
            ticks.push(t);
        }
    }
    // Step 1 always has a tick, and T too when it is not far from the last tick.
    if ticks.is_empty() && lo <= 1.0 && hi >= 1.0 {
        ticks.push(1.0);
    }
    ticks
}

/// The legend box as fractions of the plot area (width, height), from the labels' lengths.
fn legend_box(labels: &[String]) -> (f64, f64) {
    let chars = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64;
    // About 8.5 px per character at 16 px plus the sample line; 24 px per row; plot area ≈ 856 × 480.
    let width = (chars * 8.5 + 60.0) / 856.0;
    let height = (labels.len() as f64 * 24.0 + 12.0) / 480.0;
    (width.min(1.0), height.min(1.0))
}

/// Decides the ranges, ticks, markers and legend corner of a plot of `metric`. An error if there
/// is nothing to plot (no algorithm with a finished run, or no finite value).
pub fn layout(summary: &Summary, metric: Metric) -> std::result::Result<Layout, String> {
    if !summary.algorithms.is_empty() && summary.algorithms.iter().all(|a| a.curve(metric).is_none()) {
        return Err(format!(
            "nothing to plot: the summary has no `{}` (its runs were recorded before the utility gaps existed)",
            metric.as_str()
        ));
    }
    if summary.algorithms.iter().all(|a| a.curve(metric).is_none_or(|c| c.mean.is_empty())) {
        return Err(if summary.failures.is_empty() {
            "nothing to plot: no finished run".to_string()
        } else {
            format!(
                "nothing to plot: every run failed ({} failure(s), e.g. {})",
                summary.failures.len(),
                summary.failures[0]
            )
        });
    }
    panel_layout(&Panel::regret(summary, metric))
}

/// [`layout`] of any [`Panel`]: the x range spans the curves' x values (one x is centred in a
/// range of width 1), the y range the mean ± s.e. and 0.
pub fn panel_layout(panel: &Panel) -> std::result::Result<Layout, String> {
    let curves: Vec<&Series> = panel.series.iter().filter(|c| !c.mean.is_empty()).collect();
    if curves.is_empty() {
        return Err("nothing to plot: no curve".to_string());
    }
    let points = curves.iter().map(|c| c.mean.len()).max().unwrap_or(0);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut x_lo, mut x_hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for c in &curves {
        for ((m, s), x) in c.mean.iter().zip(&c.se).zip(&c.x) {
            x_lo = x_lo.min(*x);
            x_hi = x_hi.max(*x);
            if m.is_finite() && s.is_finite() {
                lo = lo.min(m - s);
                hi = hi.max(m + s);
            }
        }
    }
    if !(lo.is_finite() && hi.is_finite() && x_lo.is_finite() && x_hi.is_finite()) {
        return Err(format!("nothing to plot: no finite value of the {}", panel.y_label));
    }
    // Regrets are ≥ 0: the axis starts at 0 unless a value is below it.
    lo = lo.min(0.0);
    if hi - lo <= 1e-12 * hi.abs().max(1.0) {
        hi = lo + 1.0;
    }
    let pad = 0.05 * (hi - lo);
    let y_range = (if lo < 0.0 { lo - pad } else { lo }, hi + pad);
    // One x is a point: centre it in a range of width 1.
    let x_range = if x_hi - x_lo <= 0.0 { (x_lo - 0.5, x_lo + 0.5) } else { (x_lo, x_hi) };
    let x_ticks = integer_ticks(x_range.0, x_range.1);
    // The legend goes where its box covers the fewest points of the curves and bands (sampled
    // along each curve, so a line crossing the box counts too).
    let labels: Vec<String> = panel.series.iter().map(|c| c.label.clone()).collect();
    let (w, h) = legend_box(&labels);
    let to_unit =
        |t: f64, y: f64| ((t - x_range.0) / (x_range.1 - x_range.0), (y - y_range.0) / (y_range.1 - y_range.0));
    let mut samples = Vec::new();
    for c in &curves {
        let n = c.mean.len();
        // Linear interpolation at fractional index f ∈ [0, n − 1].
        let interpolate = |v: &dyn Fn(usize) -> f64, f: f64| {
            let i = (f.floor() as usize).min(n - 1);
            let j = (i + 1).min(n - 1);
            let a = f - i as f64;
            (1.0 - a) * v(i) + a * v(j)
        };
        for k in 0..=200 {
            let f = (n - 1) as f64 * k as f64 / 200.0;
            let t = interpolate(&|i| c.x[i], f);
            for sign in [-1.0, 0.0, 1.0] {
                let y = interpolate(&|i| c.mean[i] + sign * c.se[i], f);
                if y.is_finite() {
                    samples.push(to_unit(t, y));
                }
            }
        }
    }
    let covered = |corner: Corner| {
        let (x0, y0) = match corner {
            Corner::UpperLeft => (0.0, 1.0 - h),
            Corner::UpperRight => (1.0 - w, 1.0 - h),
            Corner::LowerLeft => (0.0, 0.0),
            Corner::LowerRight => (1.0 - w, 0.0),
        };
        samples.iter().filter(|(x, y)| *x >= x0 && *x <= x0 + w && *y >= y0 && *y <= y0 + h).count()
    };
    let preference = [Corner::UpperLeft, Corner::UpperRight, Corner::LowerRight, Corner::LowerLeft];
    let legend = preference.into_iter().min_by_key(|&c| covered(c)).unwrap_or(Corner::UpperLeft);
    Ok(Layout { x_range, x_ticks, y_range, markers: points <= 30, legend })
}

/// An f64 axis with given tick values (plotters' own choice for a short range includes fractional
/// steps such as 1.2).
struct TickedAxis {
    inner: plotters::coord::types::RangedCoordf64,
    ticks: Vec<f64>,
}

impl plotters::coord::ranged1d::Ranged for TickedAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// The chart on any backend.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panel: &Panel,
    layout: &Layout,
) -> std::result::Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (x0, x1) = layout.x_range;
    let (y0, y1) = layout.y_range;
    let mut chart = ChartBuilder::on(root)
        .caption(&panel.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(TickedAxis { inner: (x0..x1).into(), ticks: layout.x_ticks.clone() }, y0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(panel.x_label.as_str())
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc(panel.y_label.as_str())
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    for (i, c) in panel.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        // Points with a non-finite mean or s.e. (e.g. an evaluation count no run reached) are left out.
        let finite: Vec<(f64, f64, f64)> =
            c.x.iter()
                .zip(c.mean.iter().zip(&c.se))
                .map(|(x, (m, s))| (*x, *m, *s))
                .filter(|(_, m, s)| m.is_finite() && s.is_finite())
                .collect();
        let pts = |sign: f64| -> Vec<(f64, f64)> { finite.iter().map(|(x, m, s)| (*x, m + sign * s)).collect() };
        let mut band = pts(1.0);
        band.extend(pts(-1.0).into_iter().rev());
        chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.2).filled()))).map_err(e)?;
        if layout.markers {
            chart.draw_series(pts(0.0).into_iter().map(|p| Circle::new(p, 4, colour.filled()))).map_err(e)?;
            // The ±1 s.e. interval of each point as a whisker (a band of one point has no width).
            chart
                .draw_series(finite.iter().map(|(x, m, s)| PathElement::new(vec![(*x, m - s), (*x, m + s)], colour)))
                .map_err(e)?;
        }
        chart
            .draw_series(LineSeries::new(pts(0.0), colour.stroke_width(2)))
            .map_err(e)?
            .label(c.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .position(layout.legend.position())
        .label_font(("sans-serif", 16))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests;
