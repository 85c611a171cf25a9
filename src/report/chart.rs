//! Charts with plotters, written as PNG and SVG side by side. Text uses the
//! DejaVu Sans font shipped in `assets/fonts/` (registered once), so no
//! system font library is needed.

use crate::records::write_atomic;
use image::codecs::png::PngEncoder;
use image::{ColorType, ImageEncoder};
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

static FONT: Once = Once::new();

/// Registers the embedded font (once); every figure calls it before drawing text.
pub fn register_font() {
    FONT.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
        // The font is embedded and valid; failure would be a build defect.
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .unwrap_or_else(|_| panic!("embedded DejaVu Sans did not load"));
    });
}

/// A colour per series index, never the same twice in one chart: Tableau's ten,
/// then their ten lighter tints, then hues a golden angle apart (issue #41: a
/// ninth series took the first one's blue).
pub fn palette(i: usize) -> RGBColor {
    const C: [RGBColor; 20] = [
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
        RGBColor(174, 199, 232),
        RGBColor(255, 187, 120),
        RGBColor(152, 223, 138),
        RGBColor(255, 152, 150),
        RGBColor(197, 176, 213),
        RGBColor(196, 156, 148),
        RGBColor(247, 182, 210),
        RGBColor(199, 199, 199),
        RGBColor(219, 219, 141),
        RGBColor(158, 218, 229),
    ];
    match C.get(i) {
        Some(&c) => c,
        None => {
            let (r, g, b) = HSLColor(((i - C.len()) as f64 * 0.381_966) % 1.0, 0.65, 0.45).rgb();
            RGBColor(r, g, b)
        }
    }
}

/// The colours of decision boundaries and of a paper's series without a measured
/// counterpart: darker than [`palette`]'s, so a boundary never takes the colour of
/// a class it separates. Index 0 is black (the legend's mark of the paper's points
/// drawn in measured colours); the others are distinct for up to ten series.
fn boundary_color(i: usize) -> RGBColor {
    const C: [RGBColor; 11] = [
        RGBColor(0, 0, 0),
        RGBColor(120, 0, 120),
        RGBColor(0, 100, 100),
        RGBColor(150, 80, 0),
        RGBColor(90, 90, 90),
        RGBColor(160, 0, 30),
        RGBColor(0, 40, 140),
        RGBColor(110, 110, 0),
        RGBColor(0, 110, 40),
        RGBColor(190, 60, 130),
        RGBColor(100, 60, 30),
    ];
    // Past the first round, skip black: it means "paper, measured colours".
    C[if i < C.len() { i } else { 1 + (i - 1) % (C.len() - 1) }]
}

/// The short name of a paper's card, for legends: "Tesla C2075" from the spec's
/// "Tesla C2075 (Fermi, 14 SMs, …)".
pub fn card(gpu: &str) -> &str {
    gpu.split(" (").next().unwrap_or(gpu).trim()
}

/// The paper's own values on a chart: hollow diamonds ([`diamond`]) in the colour of the
/// measured series of the same name (a series of their own otherwise), under one
/// legend entry "paper (<card>)".
#[derive(Clone, Debug, Default)]
pub struct PaperPoints {
    /// The paper's machine, short ([`card`]).
    pub card: String,
    /// (series name, points).
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

impl PaperPoints {
    pub fn new(card: &str) -> PaperPoints {
        PaperPoints { card: card.to_owned(), series: Vec::new() }
    }

    /// Adds a point to the series `name`.
    pub fn push(&mut self, name: &str, point: (f64, f64)) {
        match self.series.iter_mut().find(|s| s.0 == name) {
            Some(s) => s.1.push(point),
            None => self.series.push((name.to_owned(), vec![point])),
        }
    }

    fn points(&self) -> impl Iterator<Item = &(f64, f64)> {
        self.series.iter().flat_map(|s| s.1.iter())
    }
}

/// The outline of a paper's marker, a hollow diamond of half-width `size` pixels
/// (unlike the filled circles of measured points), drawn as
/// `EmptyElement::at(p) + PathElement::new(diamond(size), style)`.
pub fn diamond(size: i32) -> Vec<(i32, i32)> {
    vec![(0, -size), (size, 0), (0, size), (-size, 0), (0, -size)]
}

/// How a legend entry marks its series.
#[derive(Clone, Copy, Debug)]
pub enum Mark {
    /// A solid line.
    Line(RGBColor, u32),
    /// A dashed grey line (reference values).
    Dashed(RGBColor),
    /// A filled circle of this radius.
    Dot(RGBColor, i32),
    /// A black ring (support vectors).
    Ring,
    /// A hollow diamond ([`diamond`]: the paper's values).
    Diamond(RGBColor),
}

/// A chart's legend, drawn under the plot (never over its points): entries in
/// as many columns as the figure's width takes, a box around them.
#[derive(Default)]
pub struct Legend {
    entries: Vec<(String, Mark)>,
}

/// Height of one legend row, and the legend's padding, in pixels.
const LEGEND_ROW: u32 = 18;
const LEGEND_PAD: u32 = 6;

impl Legend {
    pub fn push(&mut self, label: impl Into<String>, mark: Mark) {
        self.entries.push((label.into(), mark));
    }

    /// (columns, column width, rows) in an area `width` pixels wide.
    fn layout(&self, width: u32) -> (usize, u32, usize) {
        register_font();
        let font = ("sans-serif", 13).into_font();
        let widest = self.entries.iter().map(|(l, _)| font.box_size(l).map_or(0, |b| b.0)).max().unwrap_or(0);
        let column = widest + 24 + 18;
        let fit = ((width.saturating_sub(2 * LEGEND_PAD) / column.max(1)) as usize).clamp(1, self.entries.len().max(1));
        let rows = self.entries.len().div_ceil(fit);
        // As few columns as those rows need, so that the box is no wider than its entries.
        (self.entries.len().div_ceil(rows.max(1)).max(1), column, rows)
    }

    /// Splits `area` into the plot's area and, under it, the legend's (nothing
    /// for a legend without entries).
    pub fn split<DB: DrawingBackend>(&self, area: &Area<DB>) -> (Area<DB>, Option<Area<DB>>) {
        if self.entries.is_empty() {
            return (area.clone(), None);
        }
        let (w, h) = area.dim_in_pixel();
        let (_, _, rows) = self.layout(w);
        let height = rows as u32 * LEGEND_ROW + 2 * LEGEND_PAD + 8;
        let (plot, legend) = area.split_vertically(h.saturating_sub(height));
        (plot, Some(legend))
    }

    /// Draws the legend, centred in `area` (from [`Legend::split`]).
    pub fn draw<DB: DrawingBackend>(&self, area: &Area<DB>) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let (w, _) = area.dim_in_pixel();
        let (columns, column, rows) = self.layout(w);
        let width = columns as u32 * column + 2 * LEGEND_PAD;
        let height = rows as u32 * LEGEND_ROW + 2 * LEGEND_PAD;
        let x0 = (w.saturating_sub(width) / 2) as i32;
        let y0 = 4;
        let corner = [(x0, y0), (x0 + width as i32, y0 + height as i32)];
        area.draw(&Rectangle::new(corner, WHITE.filled())).map_err(e)?;
        area.draw(&Rectangle::new(corner, BLACK)).map_err(e)?;
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let font = TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        for (i, (label, mark)) in self.entries.iter().enumerate() {
            let (row, col) = (i % rows, i / rows);
            let x = x0 + LEGEND_PAD as i32 + (col as u32 * column) as i32;
            let y = y0 + LEGEND_PAD as i32 + (row as u32 * LEGEND_ROW + LEGEND_ROW / 2) as i32;
            match *mark {
                Mark::Line(c, width) => area.draw(&PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(width))),
                Mark::Dashed(c) => area
                    .draw(&PathElement::new(vec![(x, y), (x + 6, y)], c.stroke_width(2)))
                    .and_then(|_| area.draw(&PathElement::new(vec![(x + 10, y), (x + 16, y)], c.stroke_width(2)))),
                Mark::Dot(c, r) => area.draw(&Circle::new((x + 8, y), r, c.filled())),
                Mark::Ring => area.draw(&Circle::new((x + 8, y), 7, BLACK.stroke_width(2))),
                Mark::Diamond(c) => area.draw(&(EmptyElement::at((x + 8, y)) + PathElement::new(diamond(6), c.stroke_width(2)))),
            }
            .map_err(e)?;
            area.draw(&Text::new(label.clone(), (x + 24, y), font.clone())).map_err(e)?;
        }
        Ok(())
    }
}

/// A log–log scatter of labelled points, with straight lines in log space and
/// ringed highlighted points (the SVM figures of the layout paper).
#[derive(Default)]
pub struct RegionChart<'a> {
    pub title: &'a str,
    /// The machine the points were measured on, named under the title.
    pub machine: String,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    /// (class name, points) per class; colour by position.
    pub classes: Vec<(String, Vec<(f64, f64)>)>,
    /// Lines a·log10 x + b·log10 y = c, with a label (a·x + b·y = c when `linear`).
    pub lines: Vec<(String, [f64; 3])>,
    pub linear: bool,
    /// Points to ring (support vectors).
    pub rings: Vec<(f64, f64)>,
    /// The paper's own points (its support vectors), as hollow diamonds in the
    /// colour of the class of the same name.
    pub paper: PaperPoints,
}

/// A log–log line chart, one series per name.
#[derive(Default)]
pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// The machine the series were measured on, named under the title.
    pub machine: String,
    /// The paper's values, where it has them.
    pub paper: PaperPoints,
    /// Horizontal reference lines (label, y), dashed grey.
    pub hlines: Vec<(String, f64)>,
}

/// The axis range of the positive `values`, padded by a share of their own spread, (hi/lo)^0.08 each side between
/// ×1.02 and ×1.5: ×1.2 over one decade, ×1.5 from about 160×, 2% over a few percent (a fixed ×1.5 squeezed a
/// 3.3–3.5% range into a sliver).
pub fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.filter(|v| *v > 0.0).fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return (0.1, 10.0);
    }
    let pad = (hi / lo).powf(0.08).clamp(1.02, 1.5);
    (lo / pad, hi * pad)
}

/// A tick label: three significant digits without trailing zeros ("600", not
/// "600.0"; "0.0123"), powers of ten from 10⁵ up and below 10⁻³ ("2.5e5").
pub fn tick(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() {
        return format!("{v}");
    }
    if !(1e-3..1e5).contains(&a) {
        let s = format!("{v:.1e}");
        return s.replace(".0e", "e");
    }
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s }
}

/// The labelled (bold) and grid-only (light) ticks of a log axis over `lo..hi`.
/// A decade or more: 1, 2 and 5 times each power of ten (only the powers past
/// six decades), grid lines at every integer multiple. Less than a decade
/// (plotters' own log axis labels nothing there): evenly spaced round values,
/// 1, 2, 2.5 or 5 times a power of ten apart, about five of them.
fn log_ticks(lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>) {
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    if hi / lo >= 10.0 {
        let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let multiples: &[f64] = if last - first > 6 { &[1.0] } else { &[1.0, 2.0, 5.0] };
        let per_decade =
            |ks: &[f64]| -> Vec<f64> { (first..=last).flat_map(|e| ks.iter().map(move |k| k * 10f64.powi(e))).filter(inside).collect() };
        (per_decade(multiples), per_decade(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]))
    } else {
        let raw = (hi - lo) / 5.0;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|k| k * magnitude).find(|s| *s >= raw).unwrap_or(10.0 * magnitude);
        let ticks = |step: f64| -> Vec<f64> {
            ((lo / step).ceil() as i64..=(hi / step).floor() as i64).map(|i| i as f64 * step).filter(inside).collect()
        };
        (ticks(step), ticks(step / 5.0))
    }
}

pub type LogAxis = plotters::coord::combinators::WithKeyPoints<plotters::coord::combinators::LogCoord<f64>>;
type Chart<'b, DB> = ChartContext<'b, DB, Cartesian2d<LogAxis, LogAxis>>;

/// A log axis over `lo..hi` with the ticks of [`log_ticks`].
pub fn log_axis(lo: f64, hi: f64) -> LogAxis {
    let (bold, light) = log_ticks(lo, hi);
    (lo..hi).log_scale().with_key_points(bold).with_light_points(light)
}

/// Fills the figure white and writes its title, and under it the machine (where
/// named); returns the area left for the chart.
pub fn titled<DB: DrawingBackend>(root: &Area<DB>, title: &str, machine: &str) -> Result<Area<DB>, String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let area = root.margin(8, 0, 0, 0).titled(title, ("sans-serif", 20)).map_err(e)?;
    if machine.is_empty() { Ok(area) } else { area.titled(machine, ("sans-serif", 14).into_font().color(&BLACK.mix(0.7))).map_err(e) }
}

fn frame<'b, DB: DrawingBackend>(area: &'b Area<DB>, xl: &str, yl: &str, x: (f64, f64), y: (f64, f64)) -> Result<Chart<'b, DB>, String> {
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(log_axis(x.0, x.1), log_axis(y.0, y.1))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(xl)
        .y_desc(yl)
        .label_style(("sans-serif", 13))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

fn draw_regions<DB: DrawingBackend>(root: Area<DB>, c: &RegionChart) -> Result<(), String> {
    let area = titled(&root, c.title, &c.machine)?;
    let mut legend = Legend::default();
    for (k, (label, _)) in c.lines.iter().enumerate() {
        legend.push(label.clone(), Mark::Line(boundary_color(k), 3));
    }
    for (i, (name, _)) in c.classes.iter().enumerate() {
        legend.push(name.clone(), Mark::Dot(palette(i), 5));
    }
    if !c.rings.is_empty() {
        legend.push("support vectors (ringed)", Mark::Ring);
    }
    if !c.paper.series.is_empty() {
        legend.push(format!("support vectors in the paper ({})", c.paper.card), Mark::Diamond(BLACK));
    }
    let (plot, below) = legend.split(&area);
    let mut chart = frame(&plot, c.x_label, c.y_label, c.x_range, c.y_range)?;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    for (k, (_, [a, b, rhs])) in c.lines.iter().enumerate() {
        // Sample the line across the x range in log space.
        let (lx0, lx1) = (c.x_range.0.log10(), c.x_range.1.log10());
        let pts: Vec<(f64, f64)> = (0..=200)
            .map(|i| lx0 + (lx1 - lx0) * i as f64 / 200.0)
            .filter(|_| b.abs() > 1e-12)
            .map(|lx| {
                let x = 10f64.powf(lx);
                if c.linear { (x, (rhs - a * x) / b) } else { (x, 10f64.powf((rhs - a * lx) / b)) }
            })
            .filter(|&(_, y)| y >= c.y_range.0 && y <= c.y_range.1)
            .collect();
        chart.draw_series(LineSeries::new(pts, boundary_color(k).stroke_width(3))).map_err(e)?;
    }
    for (i, (_, pts)) in c.classes.iter().enumerate() {
        let color = palette(i);
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 5, color.filled()))).map_err(e)?;
    }
    chart.draw_series(c.rings.iter().map(|&p| Circle::new(p, 9, BLACK.stroke_width(2)))).map_err(e)?;
    for (k, (name, pts)) in c.paper.series.iter().enumerate() {
        let color = c.classes.iter().position(|s| &s.0 == name).map_or_else(|| boundary_color(c.lines.len() + k + 1), palette);
        chart.draw_series(pts.iter().map(|&p| EmptyElement::at(p) + PathElement::new(diamond(9), color.stroke_width(2)))).map_err(e)?;
    }
    if let Some(below) = below {
        legend.draw(&below)?;
    }
    root.present().map_err(e)
}

fn draw_lines<DB: DrawingBackend>(root: Area<DB>, c: &LineChart) -> Result<(), String> {
    let measured = || c.series.iter().flat_map(|s| s.1.iter());
    let x = span(measured().chain(c.paper.points()).map(|p| p.0));
    let y = span(measured().chain(c.paper.points()).map(|p| p.1).chain(c.hlines.iter().map(|h| h.1)));
    let area = titled(&root, c.title, &c.machine)?;
    let grey = RGBColor(110, 110, 110);
    // The paper's points: the colour of the measured series of the same name, else
    // a darker colour of their own (named in the legend beside the card).
    let mut extra = 0;
    let paper: Vec<(RGBColor, bool)> = c
        .paper
        .series
        .iter()
        .map(|(name, _)| match c.series.iter().position(|s| &s.0 == name) {
            Some(i) => (palette(i), true),
            None => {
                extra += 1;
                (boundary_color(extra), false)
            }
        })
        .collect();
    let mut legend = Legend::default();
    for (label, _) in &c.hlines {
        legend.push(label.clone(), Mark::Dashed(grey));
    }
    for (i, (name, _)) in c.series.iter().enumerate() {
        legend.push(name.clone(), Mark::Line(palette(i), 2));
    }
    for ((name, _), &(color, measured)) in c.paper.series.iter().zip(&paper) {
        if !measured {
            legend.push(format!("{name} (paper)"), Mark::Diamond(color));
        }
    }
    // One entry, in black, for every paper point drawn in a measured series' colour.
    if paper.iter().any(|&(_, measured)| measured) {
        legend.push(format!("paper ({})", c.paper.card), Mark::Diamond(BLACK));
    }
    let (plot, below) = legend.split(&area);
    let mut chart = frame(&plot, c.x_label, c.y_label, x, y)?;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    for (_, v) in &c.hlines {
        let dashes = (0..40).map(|i| {
            let at = |k: f64| x.0 * (x.1 / x.0).powf(k / 40.0);
            PathElement::new(vec![(at(i as f64), *v), (at(i as f64 + 0.6), *v)], grey.stroke_width(2))
        });
        chart.draw_series(dashes).map_err(e)?;
    }
    for (i, (_, pts)) in c.series.iter().enumerate() {
        let color = palette(i);
        let mut pts = pts.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2))).map_err(e)?;
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(e)?;
    }
    for ((_, pts), &(color, _)) in c.paper.series.iter().zip(&paper) {
        chart.draw_series(pts.iter().map(|&p| EmptyElement::at(p) + PathElement::new(diamond(7), color.stroke_width(2)))).map_err(e)?;
    }
    if let Some(below) = below {
        legend.draw(&below)?;
    }
    root.present().map_err(e)
}

/// Figure size in pixels.
pub const SIZE: (u32, u32) = (900, 640);

/// A drawing area of one backend.
pub type Area<DB> = DrawingArea<DB, plotters::coord::Shift>;

/// Draws a figure twice, in memory, and writes it as `<stem>.png` and
/// `<stem>.svg`, each through [`write_atomic`]: a reader never sees half a
/// figure, a failed write leaves no temporary file, and every error names the
/// figure's file.
pub fn write_figure(
    stem: &Path,
    png: impl FnOnce(Area<BitMapBackend>) -> Result<(), String>,
    svg: impl FnOnce(Area<SVGBackend>) -> Result<(), String>,
) -> Result<(), String> {
    register_font();
    let png_path = stem.with_extension("png");
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    png(BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area()).map_err(|e| drawing_error(&png_path, &e))?;
    let mut bytes = Vec::new();
    PngEncoder::new(&mut bytes).write_image(&rgb, w, h, ColorType::Rgb8).map_err(|e| drawing_error(&png_path, &e))?;
    write_atomic(&png_path, &bytes).map_err(|e| e.to_string())?;

    let svg_path = stem.with_extension("svg");
    let mut text = String::new();
    svg(SVGBackend::with_string(&mut text, SIZE).into_drawing_area()).map_err(|e| drawing_error(&svg_path, &e))?;
    write_atomic(&svg_path, text.as_bytes()).map_err(|e| e.to_string())
}

fn drawing_error(path: &Path, e: &dyn std::fmt::Display) -> String {
    format!("cannot draw figure {}: {e}", path.display())
}

/// Writes `<stem>.png` and `<stem>.svg`.
pub fn write_regions(stem: &Path, c: &RegionChart) -> Result<(), String> {
    write_figure(stem, |a| draw_regions(a, c), |a| draw_regions(a, c))
}

/// Writes `<stem>.png` and `<stem>.svg`.
pub fn write_lines(stem: &Path, c: &LineChart) -> Result<(), String> {
    write_figure(stem, |a| draw_lines(a, c), |a| draw_lines(a, c))
}

impl<'a> LineChart<'a> {
    /// A chart of `series` measured on `machine`: no paper points, no reference lines.
    pub fn new<K: Into<String>>(
        title: &'a str,
        (x_label, y_label): (&'a str, &'a str),
        series: impl IntoIterator<Item = (K, Vec<(f64, f64)>)>,
        machine: String,
    ) -> Self {
        let series = series.into_iter().map(|(k, v)| (k.into(), v)).collect();
        LineChart { title, x_label, y_label, series, machine, ..LineChart::default() }
    }
}

/// Writes `chart` as `<dir>/figures/<hw_id>__<name>.png` and `.svg`; returns
/// the report's image line, `![alt](figures/<hw_id>__<name>.png)`.
pub fn figure(dir: &Path, hw_id: &str, name: &str, alt: &str, chart: &LineChart) -> anyhow::Result<String> {
    write_lines(&dir.join("figures").join(format!("{hw_id}__{name}")), chart).map_err(anyhow::Error::msg)?;
    Ok(format!("![{alt}](figures/{hw_id}__{name}.png)"))
}

/// The tick labels of a chart's SVG: x labels (centred under the axis) and y
/// labels (right-aligned beside it), each (x, y, text), and their font size.
#[allow(clippy::type_complexity)]
fn tick_labels(svg: &str) -> (Vec<(f64, f64, String)>, Vec<(f64, f64, String)>, f64) {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[at..].split('"').next()?.to_owned())
    };
    let (mut xs, mut ys, mut size) = (Vec::new(), Vec::new(), f64::MAX);
    for t in svg.split("<text").skip(1) {
        let Some((tag, rest)) = t.split_once('>') else { continue };
        let text = rest.split("</text>").next().unwrap_or("").trim().to_owned();
        let num = |n: &str| attr(tag, n).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
        let label = (num("x"), num("y"), text);
        match (attr(tag, "text-anchor").as_deref(), attr(tag, "dy").as_deref(), tag.contains("transform")) {
            (Some("end"), _, false) => {
                size = size.min(num("font-size"));
                ys.push(label);
            }
            (Some("middle"), Some("0.76em"), false) if label.1 > f64::from(SIZE.1) / 2.0 => xs.push(label),
            _ => {}
        }
    }
    (xs, ys, size)
}

/// What is wrong with the tick labels of a chart's SVG (as drawn here): an axis
/// with fewer than two labels, or two labels whose text extents (in the embedded
/// font) overlap. Empty when the labels read well.
pub fn tick_label_problems(svg: &str) -> Vec<String> {
    register_font();
    let (mut xs, ys, size) = tick_labels(svg);
    let mut problems = Vec::new();
    if xs.len() < 2 {
        problems.push(format!("{} x tick labels {:?}", xs.len(), xs.iter().map(|l| &l.2).collect::<Vec<_>>()));
    }
    if ys.len() < 2 {
        problems.push(format!("{} y tick labels {:?}", ys.len(), ys.iter().map(|l| &l.2).collect::<Vec<_>>()));
    }
    let font = ("sans-serif", if size.is_finite() { size } else { 13.0 }).into_font();
    let width = |t: &str| font.box_size(t).map_or(0.0, |b| b.0 as f64);
    xs.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in xs.windows(2) {
        // Centred labels overlap when their centres are closer than half of each width.
        let room = (width(&w[0].2) + width(&w[1].2)) / 2.0 + 2.0;
        if w[1].0 - w[0].0 < room {
            problems.push(format!("x labels `{}` and `{}` overlap", w[0].2, w[1].2));
        }
    }
    let mut ys: Vec<&(f64, f64, String)> = ys.iter().collect();
    ys.sort_by(|a, b| a.1.total_cmp(&b.1));
    for w in ys.windows(2) {
        if w[1].1 - w[0].1 < size {
            problems.push(format!("y labels `{}` and `{}` are {} px apart", w[0].2, w[1].2, w[1].1 - w[0].1));
        }
    }
    problems
}

/// The plotted points of a chart's SVG (as drawn here) that a legend covers:
/// circles and diamonds drawn before a legend box (a white box with a black
/// border, as [`Legend::draw`] and plotters' own series labels draw it) whose
/// marker reaches into that box. Empty when every point is clear of the legend.
pub fn legend_problems(svg: &str) -> Vec<String> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[at..].split('"').next()?.to_owned())
    };
    let num = |tag: &str, name: &str| attr(tag, name).and_then(|v| v.parse::<f64>().ok());
    // (centre x, centre y, radius) of every marker so far.
    let mut points: Vec<(f64, f64, f64)> = Vec::new();
    let mut last_white: Option<[f64; 4]> = None;
    let mut problems = Vec::new();
    for tag in svg.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        if tag.starts_with("circle") {
            if let (Some(x), Some(y), Some(r)) = (num(tag, "cx"), num(tag, "cy"), num(tag, "r")) {
                points.push((x, y, r));
            }
        } else if tag.starts_with("polyline") {
            let xy: Vec<(f64, f64)> = attr(tag, "points")
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.split_once(',').and_then(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?))))
                .collect();
            // A diamond: four corners and back to the first.
            if xy.len() == 5 && xy[0] == xy[4] {
                let (cx, cy) = ((xy[1].0 + xy[3].0) / 2.0, (xy[0].1 + xy[2].1) / 2.0);
                points.push((cx, cy, (xy[1].0 - cx).abs()));
            }
        } else if tag.starts_with("rect") {
            let geometry = ["x", "y", "width", "height"].map(|n| num(tag, n).unwrap_or(f64::NAN));
            let fill = attr(tag, "fill").unwrap_or_default();
            if fill.eq_ignore_ascii_case("#FFFFFF") {
                last_white = Some(geometry);
            } else if fill == "none" && attr(tag, "stroke").is_some_and(|s| s != "none") && last_white == Some(geometry) {
                let [x, y, w, h] = geometry;
                for &(px, py, r) in &points {
                    if px + r > x && px - r < x + w && py + r > y && py - r < y + h {
                        problems.push(format!("the point at ({px}, {py}) lies under the legend box at ({x}, {y}), {w}×{h}"));
                    }
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {

    #[test]
    fn paper_only_series_get_ten_distinct_colours_and_never_the_legends_black() {
        let colours: Vec<RGBColor> = (1..=10).map(boundary_color).collect();
        for (a, x) in colours.iter().enumerate() {
            assert_ne!(*x, RGBColor(0, 0, 0), "series {}", a + 1);
            assert!(colours[..a].iter().all(|y| y != x), "series {} repeats a colour", a + 1);
        }
        assert_ne!(boundary_color(11), RGBColor(0, 0, 0));
        assert_eq!(boundary_color(11), boundary_color(1));
    }
    use super::*;

    /// However many series a chart has (up to 64 here), no two share a colour, and none takes a boundary's.
    #[test]
    fn no_two_series_of_one_chart_share_a_colour() {
        let colours: Vec<(u8, u8, u8)> = (0..64).map(|i| palette(i).rgb()).collect();
        let distinct: std::collections::BTreeSet<_> = colours.iter().collect();
        assert_eq!(distinct.len(), colours.len(), "{colours:?}");
        for k in 0..11 {
            assert!(!distinct.contains(&boundary_color(k).rgb()), "boundary {k}");
        }
    }

    fn chart() -> LineChart<'static> {
        LineChart {
            title: "t",
            x_label: "x",
            y_label: "y",
            series: vec![("s".into(), vec![(1.0, 2.0), (10.0, 20.0)])],
            ..LineChart::default()
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn tick_labels_never_overlap_and_every_axis_keeps_two() {
        register_font();
        // Ranges the reports draw: within a decade (gBOA complexity 2,400–4,800; ECGA at
        // ℓ = 50), 600–900 (island sizes), several decades, and tiny and huge values.
        let ranges = [(2400.0, 4800.0), (45.0, 60.0), (600.0, 900.0), (1.0, 1e4), (1e-4, 1e2), (128.0, 65536.0), (3.0, 5.0)];
        for &(lo, hi) in &ranges {
            for &(ylo, yhi) in &ranges {
                let c = LineChart {
                    title: "t",
                    x_label: "x",
                    y_label: "y",
                    series: vec![("s".into(), vec![(lo, ylo), ((lo * hi).sqrt(), (ylo * yhi).sqrt()), (hi, yhi)])],
                    machine: "machine".into(),
                    ..LineChart::default()
                };
                let mut svg = String::new();
                draw_lines(SVGBackend::with_string(&mut svg, SIZE).into_drawing_area(), &c).unwrap();
                let problems = tick_label_problems(&svg);
                assert!(problems.is_empty(), "x {lo}–{hi}, y {ylo}–{yhi}: {problems:?}");
            }
        }
    }

    #[test]
    fn the_legend_sits_under_the_plot_clear_of_every_point() {
        register_font();
        // Island Table I's shape: points in every corner, a dozen legend entries.
        let mut c = LineChart { title: "t", x_label: "x", y_label: "y", machine: "m".into(), ..LineChart::default() };
        c.paper = PaperPoints::new("GeForce GTX 580");
        for i in 0..6 {
            let k = (i + 1) as f64;
            c.series.push((format!("{i} islands (here on 1 GPU)"), vec![(100.0, 2000.0 / k), (1000.0, 100.0 * k), (2000.0, 2000.0)]));
            c.paper.push(&format!("{i} islands (here on 1 GPU)"), (120.0, 1900.0 / k));
            c.paper.push(&format!("{} CPUs", 6 * (i + 1)), (110.0 + 10.0 * k, 1800.0));
        }
        let mut svg = String::new();
        draw_lines(SVGBackend::with_string(&mut svg, SIZE).into_drawing_area(), &c).unwrap();
        assert_eq!(legend_problems(&svg), Vec::<String>::new());
        assert!(svg.contains("paper (GeForce GTX 580)") && svg.contains("30 CPUs (paper)"), "every entry is drawn");
        assert!(tick_label_problems(&svg).is_empty());
        // The check finds a legend drawn over the points (plotters' own, in the plot's upper left).
        let mut over = String::new();
        {
            let root = SVGBackend::with_string(&mut over, SIZE).into_drawing_area();
            let mut chart = frame(&root, "x", "y", (1.0, 10.0), (1.0, 10.0)).unwrap();
            // One point under the legend's box (the upper left corner), one clear of it.
            chart
                .draw_series([(1.1, 9.2), (5.0, 5.0)].map(|p| Circle::new(p, 3, BLACK.filled())))
                .unwrap()
                .label("s")
                .legend(|(x, y)| Circle::new((x, y), 3, BLACK));
            chart
                .configure_series_labels()
                .background_style(WHITE)
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .unwrap();
        }
        let problems = legend_problems(&over);
        assert_eq!(problems.len(), 1, "{problems:?}");
    }

    #[test]
    fn ticks_are_short() {
        let cases = [
            (600.0, "600"),
            (700.0, "700"),
            (10000.0, "10000"),
            (1234.5678, "1235"),
            (0.25, "0.25"),
            (0.012345, "0.0123"),
            (1.0, "1"),
            (2.5e5, "2.5e5"),
            (1e6, "1e6"),
            (0.0002, "2e-4"),
            (0.0, "0"),
        ];
        for (v, want) in cases {
            assert_eq!(tick(v), want, "{v}");
        }
        assert_eq!(log_ticks(90.0, 2100.0).0, vec![100.0, 200.0, 500.0, 1000.0, 2000.0]);
        assert_eq!(log_ticks(1600.0, 7200.0).0, vec![2000.0, 4000.0, 6000.0]);
        assert_eq!(log_ticks(1e-4, 1e4).0, vec![1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4]);
    }

    #[test]
    fn a_figure_that_cannot_be_written_is_named_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        write_lines(&dir.path().join("ok"), &chart()).unwrap();
        assert_eq!(names(dir.path()), ["ok.png", "ok.svg"]);
        assert!(std::fs::read(dir.path().join("ok.png")).unwrap().starts_with(b"\x89PNG"));
        // The folder is a file.
        std::fs::write(dir.path().join("figures"), "x").unwrap();
        let e = write_lines(&dir.path().join("figures").join("f"), &chart()).unwrap_err();
        assert!(e.contains("cannot write") && e.contains(&*dir.path().join("figures").join("f.png").to_string_lossy()), "{e}");
        // The SVG's name is taken by a folder: the PNG is written, the SVG's rename fails.
        std::fs::create_dir_all(dir.path().join("g.svg").join("inside")).unwrap();
        let e = write_lines(&dir.path().join("g"), &chart()).unwrap_err();
        assert!(e.contains(&*dir.path().join("g.svg").to_string_lossy()), "{e}");
        assert_eq!(names(dir.path()), ["figures", "g.png", "g.svg", "ok.png", "ok.svg"], "a temporary file was left");
    }
}
