//! Charts with plotters, written as PNG and SVG side by side. Text uses the
//! DejaVu Sans font shipped in `assets/fonts/` (registered once), so no
//! system font library is needed.

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

/// A colour per series index.
pub fn palette(i: usize) -> RGBColor {
    const C: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    C[i % C.len()]
}

/// A log–log scatter of labelled points, with straight lines in log space and
/// ringed highlighted points (the SVM figures of the layout paper).
pub struct RegionChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    /// (class name, points) per class; colour by position.
    pub classes: Vec<(String, Vec<(f64, f64)>)>,
    /// Lines a·log10 x + b·log10 y = c, with a label.
    pub lines: Vec<(String, [f64; 3])>,
    /// Points to ring (support vectors).
    pub rings: Vec<(f64, f64)>,
}

/// A log–log line chart, one series per name.
pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.filter(|v| *v > 0.0).fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if lo.is_finite() { (lo / 1.5, hi * 1.5) } else { (0.1, 10.0) }
}

type Chart<'b, DB> =
    ChartContext<'b, DB, Cartesian2d<plotters::coord::combinators::LogCoord<f64>, plotters::coord::combinators::LogCoord<f64>>>;

fn frame<'b, DB: DrawingBackend>(
    root: &'b DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    xl: &str,
    yl: &str,
    x: (f64, f64),
    y: (f64, f64),
) -> Result<Chart<'b, DB>, String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())
        .map_err(|e| e.to_string())?;
    chart.configure_mesh().x_desc(xl).y_desc(yl).label_style(("sans-serif", 13)).draw().map_err(|e| e.to_string())?;
    Ok(chart)
}

fn draw_regions<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, c: &RegionChart) -> Result<(), String> {
    let mut chart = frame(&root, c.title, c.x_label, c.y_label, c.x_range, c.y_range)?;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    for (k, (label, [a, b, rhs])) in c.lines.iter().enumerate() {
        // Sample the line across the x range in log space.
        let (lx0, lx1) = (c.x_range.0.log10(), c.x_range.1.log10());
        let pts: Vec<(f64, f64)> = (0..=200)
            .map(|i| lx0 + (lx1 - lx0) * i as f64 / 200.0)
            .filter(|_| b.abs() > 1e-12)
            .map(|lx| (10f64.powf(lx), 10f64.powf((rhs - a * lx) / b)))
            .filter(|&(_, y)| y >= c.y_range.0 && y <= c.y_range.1)
            .collect();
        let style = ShapeStyle::from(&BLACK.mix(0.8)).stroke_width(2);
        let dashed = k % 2 == 1;
        let series = chart.draw_series(LineSeries::new(pts, style)).map_err(e)?;
        series
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], if dashed { BLACK.mix(0.5) } else { BLACK.mix(0.8) }));
    }
    for (i, (name, pts)) in c.classes.iter().enumerate() {
        let color = palette(i);
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 5, color.filled())))
            .map_err(e)?
            .label(name.clone())
            .legend(move |(x, y)| Circle::new((x + 8, y), 5, color.filled()));
    }
    chart.draw_series(c.rings.iter().map(|&p| Circle::new(p, 9, BLACK.stroke_width(2)))).map_err(e)?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

fn draw_lines<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, c: &LineChart) -> Result<(), String> {
    let x = span(c.series.iter().flat_map(|s| s.1.iter().map(|p| p.0)));
    let y = span(c.series.iter().flat_map(|s| s.1.iter().map(|p| p.1)));
    let mut chart = frame(&root, c.title, c.x_label, c.y_label, x, y)?;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    for (i, (name, pts)) in c.series.iter().enumerate() {
        let color = palette(i);
        let mut pts = pts.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(e)?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(e)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

/// Figure size in pixels.
pub const SIZE: (u32, u32) = (900, 640);

/// Draws to `<stem>.tmp.<ext>` and renames over `<stem>.<ext>`, so a reader
/// never sees half a figure.
pub fn atomically(stem: &Path, ext: &str, draw: impl FnOnce(&Path) -> Result<(), String>) -> Result<(), String> {
    let target = stem.with_extension(ext);
    let tmp = stem.with_extension(format!("tmp.{ext}"));
    draw(&tmp)?;
    std::fs::rename(&tmp, &target).map_err(|e| format!("{}: {e}", target.display()))
}

/// Writes `<stem>.png` and `<stem>.svg`.
pub fn write_regions(stem: &Path, c: &RegionChart) -> Result<(), String> {
    register_font();
    atomically(stem, "png", |p| draw_regions(BitMapBackend::new(p, SIZE).into_drawing_area(), c))?;
    atomically(stem, "svg", |p| draw_regions(SVGBackend::new(p, SIZE).into_drawing_area(), c))
}

/// Writes `<stem>.png` and `<stem>.svg`.
pub fn write_lines(stem: &Path, c: &LineChart) -> Result<(), String> {
    register_font();
    atomically(stem, "png", |p| draw_lines(BitMapBackend::new(p, SIZE).into_drawing_area(), c))?;
    atomically(stem, "svg", |p| draw_lines(SVGBackend::new(p, SIZE).into_drawing_area(), c))
}
