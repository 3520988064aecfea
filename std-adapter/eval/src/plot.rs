//! Figures as PNG and SVG with `plotters`: curves with a mean ± standard-error band and an
//! optional diamond marker, laid out as a grid of panels like the papers' figures.
//!
//! PNG text is drawn with DejaVu Sans embedded in the binary (`data/fonts/`, registered with
//! plotters' `ab_glyph` renderer), so figures render identically on a machine without
//! fontconfig or any installed font. SVG text is left to the viewer's `sans-serif`.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

/// DejaVu Sans 2.37 (Bitstream Vera licence; see `data/fonts/README.md`).
static FONT: &[u8] = include_bytes!("../../data/fonts/DejaVuSans.ttf");

/// Font family the figures ask for (registered once, on first use).
const FAMILY: &str = "sans-serif";

/// Colours of the curves, by position in a panel: the same algorithm keeps its colour in every
/// panel as long as the caller lists curves in the same order.
const PALETTE: [RGBColor; 10] = [
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

/// One curve: a mean over seeds at each `x`, its standard error, and optionally the `x` where
/// a diamond goes (e.g. the budget after which the algorithm only plays the optimal set).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Legend label.
    pub label: String,
    /// Abscissae (increasing).
    pub x: Vec<f64>,
    /// Mean at each abscissa.
    pub mean: Vec<f64>,
    /// Standard error of the mean at each abscissa (0 with one seed).
    pub stderr: Vec<f64>,
    /// Where to put the diamond (on the curve), if anywhere.
    pub marker: Option<f64>,
    /// An explicit band (lower, upper) at each abscissa, e.g. quartiles around a median, drawn
    /// instead of `mean ± stderr`.
    pub band: Option<(Vec<f64>, Vec<f64>)>,
}

/// One panel of a figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Caption above the panel.
    pub title: String,
    /// Curves, in legend order.
    pub curves: Vec<Curve>,
}

/// A grid of panels with one shared legend.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Title above the grid.
    pub title: String,
    /// Panels per column of the grid.
    pub rows: usize,
    /// Panels per row of the grid.
    pub cols: usize,
    /// Panels, row by row (fewer than `rows × cols` leaves blanks).
    pub panels: Vec<Panel>,
    /// Label of every panel's x axis.
    pub x_label: String,
    /// Label of every panel's y axis.
    pub y_label: String,
    /// Width of one panel in pixels.
    pub panel_width: u32,
    /// Height of one panel in pixels.
    pub panel_height: u32,
}

/// Why a figure could not be drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum PlotError {
    /// The grid has no room for the panels, or is empty.
    Layout(String),
    /// A curve's vectors differ in length, or hold a non-finite value.
    BadCurve(String),
    /// The drawing backend failed (e.g. the file could not be written).
    Backend(String),
}

impl std::fmt::Display for PlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlotError::Layout(s) => write!(f, "figure layout: {s}"),
            PlotError::BadCurve(s) => write!(f, "curve: {s}"),
            PlotError::Backend(s) => write!(f, "drawing: {s}"),
        }
    }
}

impl std::error::Error for PlotError {}

fn backend<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError::Backend(e.to_string())
}

/// Registers the embedded font once; later calls return the first outcome.
fn register_font() -> Result<(), PlotError> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| "the embedded font does not parse".to_string())
    })
    .clone()
    .map_err(PlotError::Backend)
}

/// Heights of the title strip and of the legend strip, in pixels.
const TITLE_HEIGHT: u32 = 36;
const LEGEND_ROW: u32 = 22;

impl Figure {
    fn legend_rows(&self) -> u32 {
        let n = self.legend().len() as u32;
        n.div_ceil(self.legend_per_row()).max(1)
    }

    fn legend_per_row(&self) -> u32 {
        ((self.cols as u32 * self.panel_width) / 170).max(1)
    }

    /// Total size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (
            self.cols as u32 * self.panel_width,
            TITLE_HEIGHT
                + self.rows as u32 * self.panel_height
                + LEGEND_ROW * self.legend_rows()
                + 8,
        )
    }

    /// Labels of every curve in first-seen order (the shared legend).
    fn legend(&self) -> Vec<String> {
        let mut labels: Vec<String> = Vec::new();
        for p in &self.panels {
            for c in &p.curves {
                if !labels.contains(&c.label) {
                    labels.push(c.label.clone());
                }
            }
        }
        labels
    }

    fn check(&self) -> Result<(), PlotError> {
        if self.rows == 0 || self.cols == 0 || self.panel_width < 80 || self.panel_height < 80 {
            return Err(PlotError::Layout(format!(
                "{} × {} panels of {} × {} px",
                self.rows, self.cols, self.panel_width, self.panel_height
            )));
        }
        if self.panels.len() > self.rows * self.cols {
            return Err(PlotError::Layout(format!(
                "{} panels do not fit {} × {}",
                self.panels.len(),
                self.rows,
                self.cols
            )));
        }
        for p in &self.panels {
            for c in &p.curves {
                if c.x.len() != c.mean.len() || c.x.len() != c.stderr.len() {
                    return Err(PlotError::BadCurve(format!(
                        "{} / {}: {} x, {} means, {} standard errors",
                        p.title,
                        c.label,
                        c.x.len(),
                        c.mean.len(),
                        c.stderr.len()
                    )));
                }
                let all = c.x.iter().chain(&c.mean).chain(&c.stderr);
                if all.clone().any(|v| !v.is_finite()) || c.marker.is_some_and(|m| !m.is_finite()) {
                    return Err(PlotError::BadCurve(format!(
                        "{} / {}: a value is not finite",
                        p.title, c.label
                    )));
                }
            }
        }
        Ok(())
    }

    /// Writes the figure as a PNG file, whole or not at all (written beside `path` and renamed).
    pub fn write_png(&self, path: &Path) -> Result<(), PlotError> {
        self.check()?;
        register_font()?;
        let mut drawn = Ok(());
        crate::files::write_atomic_with(path, |tmp| {
            let root = BitMapBackend::new(tmp, self.size()).into_drawing_area();
            drawn = self.draw(&root);
            drawn.clone().map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())
        })
        .map_err(|e| drawn.err().unwrap_or(PlotError::Backend(e)))
    }

    /// Writes the figure as an SVG file, whole or not at all (drawn in memory, then written
    /// beside `path` and renamed).
    pub fn write_svg(&self, path: &Path) -> Result<(), PlotError> {
        self.check()?;
        register_font()?;
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, self.size()).into_drawing_area();
            self.draw(&root)?;
            root.present().map_err(backend)?;
        }
        crate::files::write_atomic(path, &text).map_err(PlotError::Backend)
    }

    fn colour_of(&self, label: &str) -> RGBColor {
        let i = self.legend().iter().position(|l| l == label).unwrap_or(0);
        PALETTE[i % PALETTE.len()]
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        root.fill(&WHITE).map_err(backend)?;
        let (w, _) = self.size();
        let (title, rest) = root.split_vertically(TITLE_HEIGHT);
        title
            .draw(&Text::new(
                self.title.clone(),
                (10, 8),
                (FAMILY, 18).into_font().color(&BLACK),
            ))
            .map_err(backend)?;
        let (grid, legend) = rest.split_vertically(self.rows as u32 * self.panel_height);
        let cells = grid.split_evenly((self.rows, self.cols));
        for (area, panel) in cells.iter().zip(&self.panels) {
            self.draw_panel(area, panel)?;
        }
        // The shared legend: a short line in the curve's colour, then its label.
        let per_row = self.legend_per_row();
        let slot = w / per_row;
        for (i, label) in self.legend().iter().enumerate() {
            let (row, col) = (i as u32 / per_row, i as u32 % per_row);
            let (x, y) = ((col * slot + 10) as i32, (row * LEGEND_ROW + 12) as i32);
            let colour = self.colour_of(label);
            legend
                .draw(&PathElement::new(
                    vec![(x, y), (x + 24, y)],
                    colour.stroke_width(3),
                ))
                .map_err(backend)?;
            legend
                .draw(&Text::new(
                    label.clone(),
                    (x + 30, y - 7),
                    (FAMILY, 14).into_font().color(&BLACK),
                ))
                .map_err(backend)?;
        }
        Ok(())
    }

    fn draw_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        panel: &Panel,
    ) -> Result<(), PlotError> {
        let points = panel.curves.iter().flat_map(|c| {
            let tops: Vec<f64> = match &c.band {
                Some((_, upper)) => upper.clone(),
                None => c.mean.iter().zip(&c.stderr).map(|(m, s)| m + s).collect(),
            };
            c.x.iter().copied().zip(tops).collect::<Vec<_>>()
        });
        let (mut x_max, mut y_max) = (0.0f64, 0.0f64);
        for (x, y) in points {
            x_max = x_max.max(x);
            y_max = y_max.max(y);
        }
        // The axis starts at 0 unless a curve's centre line goes below it (best values of a
        // negated loss); then it spans the data, bands included, with a 5 % margin each side.
        // Bands or error bars alone dipping below 0 keep the 0-based axis: a regret is never
        // negative, and an interval that says it might be is the interval's, not the data's.
        let below = panel.curves.iter().any(|c| c.mean.iter().any(|m| *m < 0.0));
        let y_low = panel
            .curves
            .iter()
            .flat_map(|c| match &c.band {
                Some((lower, _)) => lower.clone(),
                None => c.mean.iter().zip(&c.stderr).map(|(m, s)| m - s).collect(),
            })
            .filter(|y| below && y.is_finite())
            .fold(0.0f64, f64::min);
        // An empty or flat panel still gets a readable axis.
        let x_max = if x_max > 0.0 { x_max } else { 1.0 };
        let (y_min, y_max) = if y_low < 0.0 {
            let high = panel
                .curves
                .iter()
                .flat_map(|c| match &c.band {
                    Some((_, upper)) => upper.clone(),
                    None => c.mean.iter().zip(&c.stderr).map(|(m, s)| m + s).collect(),
                })
                .filter(|y| y.is_finite())
                .fold(y_low, f64::max);
            let span = if high > y_low { high - y_low } else { 1.0 };
            (y_low - 0.05 * span, high + 0.05 * span)
        } else if y_max > 0.0 {
            (0.0, y_max * 1.05)
        } else {
            (0.0, 1.0)
        };
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title.clone(), (FAMILY, 14))
            .margin(6)
            .x_label_area_size(34)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..x_max, y_min..y_max)
            .map_err(backend)?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.clone())
            .y_desc(self.y_label.clone())
            .x_labels(6)
            .y_labels(6)
            .label_style((FAMILY, 11))
            .axis_desc_style((FAMILY, 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(backend)?;
        for c in &panel.curves {
            let colour = self.colour_of(&c.label);
            if c.x.is_empty() {
                continue;
            }
            // Step curves: a value holds until the next abscissa (simple regret and counts
            // change only when a round is played). The band is mean + s.e. forwards, then
            // mean − s.e. backwards, clipped at 0 on a 0-based axis (regret and counts are
            // never negative); a panel whose axis spans negative data is not clipped, or the
            // band would run from the curve up to 0.
            let floor = if y_min < 0.0 { f64::NEG_INFINITY } else { 0.0 };
            let (upper, lower): (Vec<f64>, Vec<f64>) = match &c.band {
                Some((lower, upper)) => {
                    (upper.clone(), lower.iter().map(|v| v.max(floor)).collect())
                }
                None => (
                    c.mean.iter().zip(&c.stderr).map(|(m, s)| m + s).collect(),
                    c.mean
                        .iter()
                        .zip(&c.stderr)
                        .map(|(m, s)| (m - s).max(floor))
                        .collect(),
                ),
            };
            let mut band = steps(&c.x, &upper);
            band.extend(steps(&c.x, &lower).into_iter().rev());
            chart
                .draw_series(std::iter::once(Polygon::new(
                    band,
                    colour.mix(0.18).filled(),
                )))
                .map_err(backend)?;
            chart
                .draw_series(LineSeries::new(
                    steps(&c.x, &c.mean),
                    colour.stroke_width(2),
                ))
                .map_err(backend)?;
            if let Some(m) = c.marker {
                let y = value_at(&c.x, &c.mean, m);
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((m, y))
                            + Polygon::new(vec![(0, -7), (7, 0), (0, 7), (-7, 0)], colour.filled())
                            + PathElement::new(
                                vec![(0, -7), (7, 0), (0, 7), (-7, 0), (0, -7)],
                                BLACK.stroke_width(1),
                            ),
                    ))
                    .map_err(backend)?;
            }
        }
        Ok(())
    }
}

/// The corners of the step curve through `(x, y)`: each value held until the next abscissa.
pub fn steps(x: &[f64], y: &[f64]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(2 * x.len());
    for i in 0..x.len().min(y.len()) {
        if i > 0 {
            out.push((x[i], y[i - 1]));
        }
        out.push((x[i], y[i]));
    }
    out
}

/// The value of the step curve `(x, y)` at `at`: the last `y` whose `x ≤ at` (the first `y`
/// before the curve starts).
pub fn value_at(x: &[f64], y: &[f64], at: f64) -> f64 {
    match x.iter().rposition(|&v| v <= at) {
        Some(i) => y[i],
        None => y.first().copied().unwrap_or(0.0),
    }
}
