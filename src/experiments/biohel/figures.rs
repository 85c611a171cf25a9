//! Figures 4 (evaluation stage) and 5 (whole learning system) of Sections 5.1–5.2:
//! the speedup of `cuda-paper` against the training instances per stratum T/x,
//! drawn as the paper draws them (log axis, colour by attribute type).

use super::analysis::{Analysis, AttributeType, Curve};
use super::claims::StageName;
use super::spec::set_label;
use super::{BiohelPaper, CUDA};
use crate::claims::Band;
use crate::experiments::Part;
use crate::records::MachineRecords;
use crate::report::chart;
use anyhow::{Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// The paper's colours: "Black = Continuous, Red = Mixed, Blue = Discrete".
fn color(t: AttributeType) -> RGBColor {
    match t {
        AttributeType::Continuous => RGBColor(0, 0, 0),
        AttributeType::Mixed => RGBColor(214, 39, 40),
        AttributeType::Discrete => RGBColor(31, 119, 180),
    }
}

impl BiohelPaper {
    /// Figures 4 and 5 of one machine, written under `dir/figures/`.
    pub(super) fn figures(&self, m: &MachineRecords, a: &Analysis, types: &BTreeMap<String, AttributeType>, dir: &Path) -> Result<Part> {
        let mut md = String::new();
        // The stages not run here, each with its reason: both, and the machine is one line after the others.
        let mut not_run = Vec::new();
        // The learning stage's figure is drawn from the budget the claims use.
        let learning = a.main_learning().map(|(b, l)| (&l.total, format!(" Budget: {}.", b.describe())));
        let stages = [
            ("Figure 4", StageName::Evaluation, "evaluation", "fig4", Some((&a.eval, String::new()))),
            ("Figure 5", StageName::Learning, "learning", "fig5", learning),
        ];
        let stage_count = stages.len();
        for (figure, stage_name, label, file, stage) in stages {
            let Some((stage, budget)) = stage else {
                let why = format!("{figure} ({label} stage): no {label} runs in this machine's records");
                let _ = writeln!(md, "{why}.\n");
                not_run.push(why);
                continue;
            };
            let curves = stage.speedups_per_stratum(&a.instances, CUDA, |_| true);
            let series: Vec<(&Curve, AttributeType)> = curves.iter().filter_map(|c| Some((c, *types.get(c.set)?))).collect();
            if series.is_empty() {
                let why = format!("{figure} ({label} stage): not run here ({})", stage.reason(CUDA));
                let _ = writeln!(md, "{why}.\n");
                not_run.push(why);
                continue;
            }
            let stem = dir.join("figures").join(format!("{}__{file}", m.hw_id));
            let title = format!("{figure}: {label} speedup against training-set size per stratum");
            // The paper's net speedups (Table 3 for the evaluation, Table 4 for the
            // learning system) at this machine's T/x of the same set and windows.
            let table = if stage_name == StageName::Evaluation { &self.spec.table3 } else { &self.spec.table4 };
            let paper: Vec<(AttributeType, Vec<(f64, f64)>)> = series
                .iter()
                .filter_map(|(c, kind)| {
                    let t = *a.instances.get(c.set)? as f64;
                    let pts = table.windows.iter().filter_map(|&w| Some((t / w as f64, table.at(c.set, w)?.0))).collect();
                    Some((*kind, pts))
                })
                .collect();
            let figure_data = Speedups {
                title: &title,
                machine: m.label(),
                series: &series,
                paper: &paper,
                card: chart::card(&self.spec.paper.hardware.gpu),
                band: Some(stage_name.peak(&self.tables)),
            };
            write_speedup_figure(&stem, &figure_data).with_context(|| format!("figure {}", stem.display()))?;
            let _ = writeln!(md, "![{figure}](figures/{}__{file}.png)\n", m.hw_id);
            let peaks: Vec<String> = curves
                .iter()
                .filter_map(|c| {
                    let p = c.peak()?;
                    Some(format!("{} {:.1}× at {:.0} (x = {})", set_label(c.set), p.speedup, p.per_stratum, p.windows))
                })
                .collect();
            let _ = writeln!(md, "{figure} peaks (speedup at T/x): {}.{budget}\n", peaks.join("; "));
        }
        Ok(if not_run.len() == stage_count { Part::NotRun(not_run.join("; ")) } else { Part::Shown(md) })
    }
}

/// What Figures 4–5 draw: the measured curves, the paper's points in the colour
/// of their set's attribute type, and the claimed peak band.
struct Speedups<'a> {
    title: &'a str,
    machine: String,
    series: &'a [(&'a Curve, AttributeType)],
    paper: &'a [(AttributeType, Vec<(f64, f64)>)],
    card: &'a str,
    band: Option<Band>,
}

/// Figures 4–5 as the paper draws them: speedup against T/x on a log axis, one
/// line per set coloured by its attribute type (`report::chart::LineChart` colours
/// by series index, so this figure draws itself), the claimed peak band shaded,
/// the paper's values as hollow diamonds ([`chart::diamond`]).
/// Writes `<stem>.png` and `<stem>.svg` ([`chart::write_figure`]).
fn write_speedup_figure(stem: &Path, f: &Speedups) -> Result<()> {
    chart::write_figure(stem, |a| draw_speedups(a, f), |a| draw_speedups(a, f)).map_err(anyhow::Error::msg)
}
fn draw_speedups<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, f: &Speedups) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (series, band) = (f.series, f.band);
    let area = chart::titled(&root, f.title, &f.machine)?;
    let pts = || {
        series
            .iter()
            .flat_map(|(c, _)| c.points.iter().map(|p| (p.per_stratum, p.speedup)))
            .chain(f.paper.iter().flat_map(|p| p.1.iter().copied()))
    };
    let (x_lo, x_hi) = pts().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    let (x0, x1) = (x_lo / 2.0, x_hi * 2.0);
    // A log axis: the measured speedups reach the hundreds, the paper's lie under 25 (a linear axis put them on the floor).
    let (y0, y1) = chart::span(pts().map(|p| p.1).chain([1.0]));
    let mut chart = ChartBuilder::on(&area)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0..x1).log_scale(), chart::log_axis(y0, y1))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("training instances per stratum, T/x")
        .y_desc("speedup, serial / cuda-paper (same windows)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| chart::tick(*y))
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    if let Some((lo, hi)) = band.map(|b| (b.low, b.high)).filter(|&(lo, hi)| hi > x0 && lo < x1) {
        let shade = RGBColor(120, 120, 120).mix(0.15);
        chart
            .draw_series(std::iter::once(Rectangle::new([(lo.max(x0), y0), (hi.min(x1), y1)], shade.filled())))
            .map_err(e)?
            .label(format!("claimed peak band {lo:.0}–{hi:.0}"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], shade.filled()));
    }
    chart.draw_series(LineSeries::new(vec![(x0, 1.0), (x1, 1.0)], BLACK.mix(0.3))).map_err(e)?;
    let mut per_type: BTreeMap<AttributeType, usize> = BTreeMap::new();
    for (curve, kind) in series {
        let color = color(*kind);
        let mut line: Vec<(f64, f64)> = curve.points.iter().map(|p| (p.per_stratum, p.speedup)).collect();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart.draw_series(LineSeries::new(line.clone(), color.stroke_width(2))).map_err(e)?;
        // Sets of one type share a colour and differ by marker (legend: the marker).
        let k = per_type.entry(*kind).or_default();
        let label = format!("{} ({})", set_label(curve.set), kind.label());
        match *k % 5 {
            0 => {
                chart
                    .draw_series(line.iter().map(|&p| Circle::new(p, 4, color.filled())))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
            }
            1 => {
                chart
                    .draw_series(line.iter().map(|&p| TriangleMarker::new(p, 5, color.filled())))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| TriangleMarker::new((x + 8, y), 5, color.filled()));
            }
            2 => {
                chart
                    .draw_series(line.iter().map(|&p| Cross::new(p, 4, color.stroke_width(2))))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| Cross::new((x + 8, y), 4, color.stroke_width(2)));
            }
            3 => {
                let square = |at| EmptyElement::at(at) + Rectangle::new([(-4, -4), (4, 4)], color.filled());
                chart
                    .draw_series(line.iter().map(|&p| square(p)))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| EmptyElement::at((x + 8, y)) + Rectangle::new([(-4, -4), (4, 4)], color.filled()));
            }
            _ => {
                chart
                    .draw_series(line.iter().map(|&p| Circle::new(p, 4, color.stroke_width(2))))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.stroke_width(2)));
            }
        }
        *k += 1;
    }
    for (i, (kind, pts)) in f.paper.iter().enumerate() {
        let color = color(*kind);
        let drawn = chart
            .draw_series(pts.iter().map(|&p| EmptyElement::at(p) + PathElement::new(chart::diamond(6), color.stroke_width(2))))
            .map_err(e)?;
        if i == 0 {
            drawn
                .label(format!("paper ({}), at this machine's T/x", f.card))
                .legend(|(x, y)| EmptyElement::at((x + 8, y)) + PathElement::new(chart::diamond(6), BLACK.stroke_width(2)));
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .position(legend_corner(pts(), (x0, x1), (y0, y1), series.len() + 2))
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

/// The corner of a log–log plot over `x`×`y` where a legend of `rows` lines (about 36% of the width, 16 px a
/// row of ~500) covers the fewest of the `points`; the upper left on a tie.
fn legend_corner(points: impl Iterator<Item = (f64, f64)>, x: (f64, f64), y: (f64, f64), rows: usize) -> SeriesLabelPosition {
    let frac = |v: f64, (lo, hi): (f64, f64)| (v.ln() - lo.ln()) / (hi.ln() - lo.ln());
    let (w, h) = (0.36, ((rows * 16 + 20) as f64 / 500.0).min(1.0));
    let points: Vec<(f64, f64)> = points.map(|(px, py)| (frac(px, x), frac(py, y))).collect();
    let corners = [
        (SeriesLabelPosition::UpperLeft, false, true),
        (SeriesLabelPosition::LowerRight, true, false),
        (SeriesLabelPosition::UpperRight, true, true),
        (SeriesLabelPosition::LowerLeft, false, false),
    ];
    let covered = |right: bool, top: bool| {
        points.iter().filter(|&&(fx, fy)| (if right { fx > 1.0 - w } else { fx < w }) && (if top { fy > 1.0 - h } else { fy < h })).count()
    };
    corners.into_iter().min_by_key(|&(_, right, top)| covered(right, top)).map_or(SeriesLabelPosition::UpperLeft, |c| c.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_goes_to_the_corner_with_the_fewest_points() {
        let (x, y) = ((1.0, 1e4), (1.0, 1e3));
        let upper_left = [(2.0, 800.0), (3.0, 700.0), (5e3, 2.0)];
        // Two points under the upper left, one under the lower right: the upper right is free.
        assert!(matches!(legend_corner(upper_left.into_iter(), x, y, 5), SeriesLabelPosition::UpperRight));
        assert!(matches!(legend_corner([(5e3, 500.0)].into_iter(), x, y, 5), SeriesLabelPosition::UpperLeft));
    }
}
