//! Figure 7 — greedy against GM search, each at its own population: whole
//! runs per ℓ, with the chart.

use super::GECGA;
use super::analysis::Analysis;
use super::fig5::fmt_ms;
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart};
use crate::stats::Summary;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

pub(super) fn fig7(a: &Analysis) -> String {
    let mut t = Table::new(&[
        "ℓ",
        "greedy N",
        "GM N",
        "scorer",
        "greedy whole run (ms)",
        "GM whole run (ms)",
        "GM / greedy time",
        "spg (w)",
        "spgm (w)",
    ]);
    for (&ell, f) in &a.fig7 {
        let (n_gm, scorer, gm) = (f.n, &f.scorer, &f.total);
        let greedy = a.times(ell, scorer).and_then(|t| Summary::of(&t.total));
        let gm_s = Summary::of(gm);
        let base = a.mean(ell, super::BASELINE, false);
        t.row(vec![
            ell.to_string(),
            a.fig5.get(&ell).map_or("—".into(), |f| f.0.to_string()),
            n_gm.to_string(),
            scorer.clone(),
            fmt_ms(greedy),
            fmt_ms(gm_s),
            match (greedy, gm_s) {
                (Some(g), Some(m)) => format!("{:.2}", m.mean / g.mean),
                _ => "—".into(),
            },
            fmt::times(if scorer == GECGA { a.speedups(ell).spg_w } else { None }, 1),
            fmt::times(if scorer == GECGA { base.zip(gm_s).map(|(b, m)| b / m.mean) } else { None }, 1),
        ]);
    }
    if t.is_empty() { String::new() } else { t.render() }
}

/// Figure 7 as curves: greedy search's model building and whole run at every ℓ
/// of Figure 5, and GM's whole run where it ran (each with the scorer of its row).
pub(super) fn fig7_chart(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for (&ell, f) in &a.fig7 {
        let (scorer, gm) = (&f.scorer, &f.total);
        if let Some(t) = a.times(ell, scorer) {
            for (what, v) in [("model building", &t.model), ("whole run", &t.total)] {
                if let Some(s) = Summary::of(v) {
                    series.entry(format!("greedy, {what} ({scorer})")).or_default().push((ell as f64, s.mean));
                }
            }
        }
        if let Some(s) = Summary::of(gm) {
            series.entry(format!("GM, whole run ({scorer})")).or_default().push((ell as f64, s.mean));
        }
    }
    if series.is_empty() {
        return Ok(String::new());
    }
    let chart =
        LineChart::new("Figure 7: greedy and GM search, each at its own population", ("problem size ℓ", "time (ms)"), series, m.label());
    Ok(format!("\n{}\n", chart::figure(dir, &m.hw_id, "fig7", "Figure 7", &chart)?))
}
