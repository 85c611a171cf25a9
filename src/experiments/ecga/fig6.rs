//! Figure 6 — model-building quality and the ratio of ones on the (10,5)-trap,
//! per generation, greedy and GM search at each population.

use super::analysis::Analysis;
use super::analysis::PerGeneration;
use crate::library::ecga::Search;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart};
use crate::stats::Summary;
use anyhow::Result;
use std::fmt::Write;
use std::path::Path;

pub(super) fn fig6(a: &Analysis, paper_min_n: usize) -> String {
    let mut md = String::new();
    let pops: std::collections::BTreeSet<usize> = a.fig6.keys().map(|k| k.1).collect();
    for n in pops {
        let mut t = Table::new(&["generation", "greedy quality", "GM quality", "greedy ones ratio", "GM ones ratio"]);
        let get = |s: Search| a.fig6.get(&(s.name().to_owned(), n));
        let (g, gm) = (get(Search::Greedy), get(Search::GreedyMating));
        let last = g.into_iter().chain(gm).filter_map(|m| m.keys().last().copied()).max().unwrap_or(0);
        for generation in 1..=last {
            let cell = |m: Option<&PerGeneration>, quality: bool| {
                m.and_then(|m| m.get(&generation))
                    .and_then(|(q, o)| Summary::of(if quality { q } else { o }))
                    .map_or("—".into(), |s| format!("{:.2} ({})", s.mean, s.n))
            };
            t.row(vec![generation.to_string(), cell(g, true), cell(gm, true), cell(g, false), cell(gm, false)]);
        }
        let at = if n >= paper_min_n { " (the paper's conditions)" } else { "" };
        let _ = writeln!(md, "N = {n}{at}:\n\n{}", t.render());
    }
    md
}

/// Figure 6 as curves: the ratio of ones after selection per generation, one
/// curve per search and population (the mean over the runs still going).
/// The populations at the paper's conditions (N ≥ `paper_min_n`) are marked *.
pub(super) fn fig6_chart(m: &MachineRecords, a: &Analysis, paper_min_n: usize, dir: &Path) -> Result<String> {
    let series: Vec<(String, Vec<(f64, f64)>)> = a
        .fig6
        .iter()
        .map(|((search, n), per)| {
            let pts = per.iter().filter_map(|(&g, (_, ones))| Some((g as f64, Summary::of(ones)?.mean))).collect();
            (format!("{search}, N = {n}{}", if *n >= paper_min_n { "*" } else { "" }), pts)
        })
        .filter(|s: &(String, Vec<(f64, f64)>)| !s.1.is_empty())
        .collect();
    if series.is_empty() {
        return Ok(String::new());
    }
    let title = "Figure 6: ratio of ones after selection, (10,5)-trap (* the paper's conditions)";
    let chart = LineChart::new(title, ("generation", "ratio of ones"), series, m.label());
    Ok(format!("\n{}\n", chart::figure(dir, &m.hw_id, "fig6", "Figure 6", &chart)?))
}
