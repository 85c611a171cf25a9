//! Figures 1–6: the fastest strategy by population and dimension, on the
//! paper's sweep and on every size measured, with the linear-SVM regions.

use super::LayoutPaper;
use super::analysis::{Analysis, Figure};
use super::spec::{Size, fmt_size};
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, PaperPoints, RegionChart};
use crate::svm;
use anyhow::Result;
use std::fmt::Write;
use std::path::Path;

impl LayoutPaper {
    /// The figures of one machine: on the paper's sweep, or on every size measured (`grid`).
    pub(super) fn figures(&self, m: &MachineRecords, a: &Analysis, grid: bool, dir: &Path) -> Result<String> {
        if !a.gpu_ran {
            return Ok(if grid { String::new() } else { format!("Not run here ({}): the figures need the GPU strategies.", a.gpu_absent) });
        }
        let mut md = String::new();
        let mut t = Table::new(&[
            "figure",
            "function",
            "paper classes",
            "measured classes",
            "paper support vectors",
            "measured support vectors",
            "misclassified",
            "sizes with a winner",
            "left out (not measured, tie, too few tries)",
            "SVM on the paper's own classed sizes: support vectors",
        ]);
        for fig in if grid { &a.grid } else { &a.figures } {
            if fig.points.is_empty() && fig.undecided.is_empty() {
                continue;
            }
            let f = fig.function;
            if fig.fit.is_ok() {
                let stem = format!("{}__{}{}", m.hw_id, f.name(), if grid { "__grid" } else { "" });
                region_figure(&dir.join("figures").join(&stem), fig, m, &self.spec.paper.hardware.gpu).map_err(anyhow::Error::msg)?;
                let _ = writeln!(md, "![{} — {}](figures/{stem}.png)\n", fig.name, f.name());
            }
            let support = fig.support();
            t.row(vec![
                fig.name.clone(),
                f.name().into(),
                fig.paper_classes.join(" → "),
                fig.classes().join(" → "),
                fmt_support(fig.paper_classes.iter().map(|c| (c, fig.paper_support.get(c).cloned().unwrap_or_default()))),
                fmt_support(fig.classes().iter().filter_map(|c| support.get_key_value(c)).map(|(c, v)| (c, v.iter().copied().collect()))),
                match &fig.fit {
                    Ok(b) => b.iter().map(|b| b.misclassified.to_string()).collect::<Vec<_>>().join(", "),
                    Err(why) => why.clone(),
                },
                format!("{} of {}", fig.points.len(), fig.sizes.len()),
                left_out(fig),
                paper_fit_cell(fig),
            ]);
        }
        md += &t.render();
        Ok(md)
    }
}

fn fmt_support<'a>(items: impl Iterator<Item = (&'a String, Vec<Size>)>) -> String {
    let parts: Vec<String> = items.map(|(c, v)| format!("{c}: {}", v.into_iter().map(fmt_size).collect::<Vec<_>>().join(", "))).collect();
    if parts.is_empty() { "—".into() } else { parts.join("; ") }
}

/// The support vectors of the SVMs fitted to the paper's own classed sizes, and from what.
fn paper_fit_cell(fig: &Figure) -> String {
    let p = &fig.paper_fit;
    match &p.fit {
        Ok(_) => {
            let support = p.support();
            let classes = svm::class_order(&p.points);
            format!(
                "{} (fitted to {}, {} sizes)",
                fmt_support(classes.iter().filter_map(|c| support.get_key_value(c)).map(|(c, v)| (c, v.iter().copied().collect()))),
                p.source,
                p.points.len()
            )
        }
        Err(why) => format!("{why} ({})", p.source),
    }
}

/// "2 ties (1000×1000, 2000×500)" and sizes with too few tries or not run.
fn left_out(fig: &Figure) -> String {
    if fig.undecided.is_empty() && fig.missing.is_empty() {
        return "none".into();
    }
    let ties = fig.ties();
    let mut parts = Vec::new();
    if !fig.missing.is_empty() {
        parts.push(format!(
            "{} not measured ({})",
            fig.missing.len(),
            fig.missing.iter().map(|s| fmt_size(*s)).collect::<Vec<_>>().join(", ")
        ));
    }
    if !ties.is_empty() {
        parts.push(format!("{} tied ({})", ties.len(), ties.iter().map(|s| fmt_size(*s)).collect::<Vec<_>>().join(", ")));
    }
    let other = fig.undecided.len() - ties.len();
    if other > 0 {
        parts.push(format!(
            "{other} undecided ({})",
            fig.undecided.iter().find(|(_, s)| !matches!(s, super::analysis::Standing::Tie(..))).map_or(String::new(), |(_, s)| s.label())
        ));
    }
    parts.join("; ")
}

fn region_figure(stem: &Path, fig: &Figure, m: &MachineRecords, paper_card: &str) -> Result<(), String> {
    let bounds = fig.fit.as_ref().map_err(Clone::clone)?;
    let order = fig.classes();
    let classes: Vec<(String, Vec<(f64, f64)>)> =
        order.iter().map(|c| (c.clone(), fig.points.iter().filter(|p| &p.class == c).map(|p| (p.pop, p.dim)).collect())).collect();
    let mut lines: Vec<(String, [f64; 3])> =
        bounds.iter().map(|b| (format!("SVM {} | {}", b.lower, b.upper), [b.w[0], b.w[1], b.rho])).collect();
    // The paper's boundaries: the SVMs fitted to its own classed sizes.
    let card = chart::card(paper_card);
    for b in fig.paper_fit.fit.iter().flatten() {
        lines.push((format!("{card} SVM {} | {} ({})", b.lower, b.upper, fig.paper_fit.source), [b.w[0], b.w[1], b.rho]));
    }
    let rings = bounds.iter().flat_map(|b| b.support_lower.iter().chain(&b.support_upper).copied()).collect();
    // The caption's support vectors, in the colour of their class.
    let mut paper = PaperPoints::new(card);
    for (class, sizes) in &fig.paper_support {
        for &(p, d) in sizes {
            paper.push(class, (p as f64, d as f64));
        }
    }
    let span = |v: Vec<f64>| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        (lo / 1.6, hi * 1.6)
    };
    chart::write_regions(
        stem,
        &RegionChart {
            title: &format!("{} ({})", fig.name, fig.function.name()),
            machine: m.label(),
            x_label: "population",
            y_label: "dimension",
            x_range: span(fig.points.iter().map(|p| p.pop).chain(paper.series.iter().flat_map(|s| s.1.iter().map(|q| q.0))).collect()),
            y_range: span(fig.points.iter().map(|p| p.dim).chain(paper.series.iter().flat_map(|s| s.1.iter().map(|q| q.1))).collect()),
            classes,
            lines,
            rings,
            paper,
            linear: fig.fit.iter().flatten().any(|b| b.features == svm::Features::Linear),
        },
    )
}
