//! The section *Beyond the paper — Pisinger's instance families*: the paper's GA
//! and its labelled variants on generated instances (the `families` cases), not
//! part of any verdict.

use super::analysis::{Analysis, Run};
use super::render_common::{Series, first_feasible, no_feasible_line, write_chart};
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::LineChart;
use crate::stats::Summary;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

pub(super) const FAMILIES_INTRO: &str = "Not part of any verdict. The paper's GA (as published: random initial population, overweight \
    solutions penalised by the largest price/weight ratio × the excess) and two labelled variants on Pisinger's families \
    (Pisinger 2005, \"Where are the hard knapsack problems?\", Section 2; generated from the spec's seed, capacity = ratio × \
    total weight, at least the largest weight): `repair` drops packed items by increasing price/weight until feasible, in \
    every initial individual and offspring (Michalewicz 1996, Section 4.5); `feasible-init` repairs the initial population \
    only. The gap is (reference − best feasible price) / reference, against the exact optimum where a dynamic program fits \
    the budget (dense over capacities, or bit-parallel for subset sum) or a greedy solution meets Dantzig's bound, else \
    against Dantzig's linear-relaxation bound (the gap to the optimum is then at most this); the column says which. A run \
    whose best is infeasible has no gap: it counts in the feasible-runs column.";

/// The `families` runs: a row per instance and variant, the reasons where no run was feasible, and a chart of the
/// gap against the capacity ratio per variant and item count.
pub(super) fn families(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    if a.families.is_empty() {
        return Ok(String::new());
    }
    type Key = (String, usize, u64, String);
    let mut points: BTreeMap<Key, Vec<&Run>> = BTreeMap::new();
    for r in &a.families {
        let f = r.family.as_ref().expect("a families run has its family");
        points.entry((f.kind.clone(), f.items, f.ratio.to_bits(), f.variant.clone())).or_default().push(r);
    }
    let mut t = Table::new(&[
        "family",
        "items",
        "capacity ratio",
        "variant (method)",
        "gap to",
        "gap (%)",
        "feasible best",
        "feasible individuals",
        "first feasible (gen.)",
        "time (s)",
    ]);
    let mut lines = String::new();
    let mut charts: BTreeMap<(String, usize), Series> = BTreeMap::new();
    for ((kind, items, ratio, variant), runs) in &points {
        let (f, ratio) = (runs[0].family.as_ref().expect("family"), f64::from_bits(*ratio));
        let gaps: Vec<f64> = runs.iter().filter_map(|r| r.gap).collect();
        let gap = Summary::of(&gaps);
        let feasible = runs.iter().filter(|r| r.best_feasible).count();
        let individuals = Summary::of(&runs.iter().filter_map(|r| r.feasibility.map(|f| f.0)).collect::<Vec<_>>());
        let time = Summary::of(&runs.iter().map(|r| r.total_ms / 1e3).collect::<Vec<_>>());
        let owned: Vec<Run> = runs.iter().map(|r| (*r).clone()).collect();
        t.row(vec![
            kind.clone(),
            items.to_string(),
            format!("{ratio}"),
            format!("{variant} ({})", runs[0].method),
            format!("{} {:.0} ({})", f.reference_kind, f.reference, f.exact),
            gap.map_or_else(|| "— (no feasible best)".into(), |g| format!("{:.3} ± {:.3}", 100.0 * g.mean, 100.0 * g.ci95())),
            format!("{feasible} of {}", runs.len()),
            individuals.map_or("—".into(), |s| format!("{:.1}%", 100.0 * s.mean)),
            first_feasible(&owned),
            time.map_or("—".into(), |s| format!("{:.2}", s.mean)),
        ]);
        if feasible == 0 {
            let reason = match no_feasible_line(runs) {
                none if !none.is_empty() => none.trim_start_matches('\n').to_owned(),
                _ => "feasible individuals appeared, but the best by penalised fitness is overweight: the penalty (ratio × \
                      excess) leaves it fitter than every feasible one.\n"
                    .to_owned(),
            };
            lines += &format!("- {kind}, {items} items, ratio {ratio}, `{variant}` (penalty ratio {:.0}): {reason}", f.penalty_ratio);
        }
        // A gap of 0 (the optimum reached) has no place on a log scale.
        if let Some(g) = gap.filter(|g| g.mean > 0.0) {
            charts.entry((variant.clone(), *items)).or_default().push((kind.clone(), vec![(ratio, 100.0 * g.mean)]));
        }
    }
    let mut md = t.render();
    if !lines.is_empty() {
        md += &format!("\nRows where no run ended with a feasible best solution:\n\n{lines}");
    }
    for ((variant, items), rows) in charts {
        // One series per family, its points in ratio order.
        let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for (kind, p) in rows {
            series.entry(kind).or_default().extend(p);
        }
        let title = format!("Gap against capacity ratio: {variant}, {items} items (log–log; gaps of 0, the optimum, left out)");
        let chart = LineChart::new(&title, ("capacity / total weight", "gap (%)"), series, m.label());
        md += &write_chart(dir, m, &format!("families_{variant}_n{items}"), &chart)?;
    }
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::super::analysis::fixtures::*;
    use super::*;

    #[test]
    fn the_families_section_gives_gaps_to_their_reference_and_the_reason_for_none() {
        let m = machine(
            vec![
                family("uncorrelated", 1000, 0.01, "paper", None, 0.0),
                family("uncorrelated", 1000, 0.01, "repair", Some(0.02), 49_000.0),
                family("uncorrelated", 1000, 0.5, "repair", Some(0.001), 49_950.0),
            ],
            None,
            &[],
        );
        let a = Analysis::of(&m).unwrap();
        assert_eq!(a.families.len(), 3);
        let dir = tempfile::tempdir().unwrap();
        let text = families(&m, &a, dir.path()).unwrap();
        assert!(
            text.contains("| uncorrelated | 1000 | 0.01 | paper (cpu-mt) | optimum 50000 (dense dynamic program over capacities) | — (no feasible best) | 0 of 1 | 0.0% | none in 1 of 1 |"),
            "{text}"
        );
        assert!(text.contains("| uncorrelated | 1000 | 0.5 | repair (cpu-mt) | optimum 50000 (dense dynamic program over capacities) | 0.100 ± 0.000 | 1 of 1 | 50.0% | 6–10 |"), "{text}");
        assert!(
            text.contains("- uncorrelated, 1000 items, ratio 0.01, `paper` (penalty ratio 7): **1 of 1 runs found no feasible solution.**"),
            "{text}"
        );
        assert!(text.contains("no selection pressure"), "{text}");
        assert!(dir.path().join("figures/test__families_repair_n1000.png").exists(), "{text}");
        assert!(!dir.path().join("figures/test__families_paper_n1000.png").exists(), "no gap, no chart");
    }
}
