//! The section *Beyond the paper — Pisinger's instance families*: the paper's GA
//! and its labelled variants on generated instances (the `families` cases), not
//! part of any verdict.

use super::analysis::{Analysis, Family, Run};
use super::render_common::{Series, first_feasible, no_feasible_line, write_chart};
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::LineChart;
use crate::stats::Summary;
use anyhow::Result;
use std::collections::{BTreeMap, BTreeSet};
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
        let f = family_of(r);
        points.entry((f.kind.clone(), f.items, f.ratio.to_bits(), f.variant.clone())).or_default().push(r);
    }
    // One row per instance (family, items, ratio), one column per variant.
    let variants: BTreeSet<(String, String)> = a.families.iter().map(|r| (family_of(r).variant.clone(), r.method.clone())).collect();
    let mut header = vec!["family".to_owned(), "items".into(), "capacity ratio".into(), "gap to".into()];
    header.extend(variants.iter().map(|(v, method)| format!("{v} ({method})")));
    let mut t = Table::new(&header);
    let mut rows: BTreeMap<(String, usize, u64), BTreeMap<String, String>> = BTreeMap::new();
    let mut references: BTreeMap<(String, usize, u64), String> = BTreeMap::new();
    // Why no run of a point ended with a feasible best: the points of each reason together.
    let mut reasons: BTreeMap<(String, u64, String), Vec<String>> = BTreeMap::new();
    let mut charts: BTreeMap<(String, usize), Series> = BTreeMap::new();
    for ((kind, items, ratio_bits, variant), runs) in &points {
        let (f, ratio) = (family_of(runs[0]), f64::from_bits(*ratio_bits));
        let gaps: Vec<f64> = runs.iter().filter_map(|r| r.gap).collect();
        let gap = Summary::of(&gaps);
        let feasible = runs.iter().filter(|r| r.best_feasible).count();
        let individuals = Summary::of(&runs.iter().filter_map(|r| r.feasibility.map(|f| f.0)).collect::<Vec<_>>());
        let time = Summary::of(&runs.iter().map(|r| r.total_ms / 1e3).collect::<Vec<_>>());
        let owned: Vec<Run> = runs.iter().map(|r| (*r).clone()).collect();
        let instance = (kind.clone(), *items, *ratio_bits);
        references.insert(instance.clone(), format!("{} {:.0} ({})", f.reference_kind, f.reference, f.exact));
        let cell = [
            gap.map_or_else(|| "— (no feasible best)".into(), |g| format!("{:.3} ± {:.3}", 100.0 * g.mean, 100.0 * g.ci95())),
            format!("{feasible} of {}", runs.len()),
            individuals.map_or("—".into(), |s| format!("{:.1}%", 100.0 * s.mean)),
            first_feasible(&owned),
            time.map_or("—".into(), |s| format!("{:.2} s", s.mean)),
        ];
        rows.entry(instance).or_default().insert(variant.clone(), cell.join(" · "));
        if feasible == 0 {
            let reason = match no_feasible_line(runs) {
                none if !none.is_empty() => none.trim().to_owned(),
                _ => "feasible individuals appeared, but the best by penalised fitness is overweight: the penalty (ratio × \
                      excess) leaves it fitter than every feasible one."
                    .to_owned(),
            };
            // Positive ratios: their bits sort as the numbers do.
            let key = (variant.clone(), f.penalty_ratio.to_bits(), reason);
            reasons.entry(key).or_default().push(format!("{kind} {items} × {ratio}"));
        }
        // A gap of 0 (the optimum reached) has no place on a log scale.
        if let Some(g) = gap.filter(|g| g.mean > 0.0) {
            charts.entry((variant.clone(), *items)).or_default().push((kind.clone(), vec![(ratio, 100.0 * g.mean)]));
        }
    }
    for ((kind, items, ratio_bits), cells) in &rows {
        let mut row = vec![kind.clone(), items.to_string(), format!("{}", f64::from_bits(*ratio_bits))];
        row.push(references[&(kind.clone(), *items, *ratio_bits)].clone());
        row.extend(variants.iter().map(|(v, _)| cells.get(v).cloned().unwrap_or_else(|| "—".into())));
        t.row(row);
    }
    let mut md = "Each variant's cell: gap (%, mean ± 95% interval over the runs with a feasible best) · runs with a feasible \
                  best · feasible individuals at the end · first generation with a feasible individual · time of a run.\n\n"
        .to_owned();
    md += &t.render();
    if !reasons.is_empty() {
        md += "\nWhere no run ended with a feasible best solution (family items × capacity ratio):\n\n";
        for ((variant, penalty, reason), at) in &reasons {
            md += &format!("- `{variant}` (penalty ratio {:.0}): {reason} At {}.\n", f64::from_bits(*penalty), at.join(", "));
        }
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

fn family_of(r: &Run) -> &Family {
    r.family.as_ref().expect("a families run has its family")
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
        assert!(text.contains("| family | items | capacity ratio | gap to | paper (cpu-mt) | repair (cpu-mt) |"), "{text}");
        assert!(
            text.contains("| uncorrelated | 1000 | 0.01 | optimum 50000 (dense dynamic program over capacities) | — (no feasible best) · 0 of 1 · 0.0% · none in 1 of 1 · "),
            "{text}"
        );
        assert!(text.contains("| uncorrelated | 1000 | 0.5 | optimum 50000 (dense dynamic program over capacities) | — | 0.100 ± 0.000 · 1 of 1 · 50.0% · 6–10 · "), "{text}");
        assert!(text.contains("- `paper` (penalty ratio 7): **1 of 1 runs found no feasible solution.**"), "{text}");
        assert!(text.contains("At uncorrelated 1000 × 0.01.\n"), "{text}");
        assert!(text.contains("no selection pressure"), "{text}");
        assert!(dir.path().join("figures/test__families_repair_n1000.png").exists(), "{text}");
        assert!(!dir.path().join("figures/test__families_paper_n1000.png").exists(), "no gap, no chart");
    }
}
