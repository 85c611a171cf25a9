//! Table 5 — the population each search needs, bisected (Section 5.2): one
//! machine's bisections per ℓ beside the paper's, under the per-trial rule with
//! the most bisections, with the chart.

use super::EcgaPaper;
use super::analysis::{Analysis, Table5Rule};
use super::rows::Scored;
use super::spec::power_fit;
use crate::claims::judge::{self, Comparison};
use crate::library::ecga::Search;
use crate::records::MachineRecords;
use crate::records::col;
use crate::report::Table;
use crate::report::chart::{self, LineChart};
use crate::stats::Summary;
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

impl EcgaPaper {
    pub(super) fn table5(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
        if a.table5.is_empty() {
            return Ok(String::new());
        }
        let mut t = Table::new(&[
            "ℓ",
            "greedy: paper",
            "greedy: here (mean ± 95% CI, n)",
            "ratio",
            "GM: paper",
            "GM: here (mean ± 95% CI, n)",
            "ratio",
            "GM vs greedy (Welch)",
        ]);
        let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let ells: std::collections::BTreeSet<usize> = a.table5.keys().map(|k| k.1).collect();
        for &ell in &ells {
            let paper = self.spec.table5.iter().find(|r| r.ell == ell);
            let mut cells = vec![ell.to_string()];
            for (search, pv) in [(Search::Greedy, paper.map(|r| r.greedy)), (Search::GreedyMating, paper.map(|r| r.gm))] {
                let s = a.table5.get(&(search.name().to_owned(), ell)).and_then(|v| Summary::of(v));
                cells.push(pv.map_or("—".into(), |v| v.to_string()));
                cells.push(s.map_or("—".into(), |s| {
                    if s.n > 1 { format!("{:.0} ± {:.0} ({})", s.mean, s.ci95(), s.n) } else { format!("{:.0} (1)", s.mean) }
                }));
                cells.push(match (s, pv) {
                    (Some(s), Some(p)) => format!("{:.2}", s.mean / p as f64),
                    _ => "—".into(),
                });
                if let Some(s) = s {
                    series.entry(format!("{} (here)", search.name())).or_default().push((ell as f64, s.mean));
                }
            }
            let runs = |search: Search| a.table5.get(&(search.name().to_owned(), ell)).map_or(&[][..], |v| v.as_slice());
            cells.push(match judge::compare(runs(Search::GreedyMating), runs(Search::Greedy)) {
                Some(Comparison::Greater) => "GM larger".into(),
                Some(Comparison::Less) => "GM smaller".into(),
                Some(Comparison::Tie) => "tie".into(),
                None => "—".into(),
            });
            t.row(cells);
        }
        let mut md = String::new();
        if let Some(rule) = &a.table5_rule {
            let scorers: std::collections::BTreeSet<&str> = m
                .measurements()
                .filter(|r| r.str(col::STATUS) == "ok" && Table5Rule::of_row(r).as_ref() == Some(rule))
                .map(|r| r.str(Scored::scorer))
                .filter(|s| !s.is_empty())
                .collect();
            let _ = writeln!(
                md,
                "Per-trial rule: {} (runs by {}).\n",
                rule.describe(),
                scorers.into_iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
            );
        }
        md += &t.render();
        if !a.table5_left_out.is_empty() {
            let left: Vec<String> = a.table5_left_out.iter().map(|(r, n)| format!("{n} bisections with {}", r.describe())).collect();
            let _ = writeln!(md, "\nLeft out of this table (another rule): {}.", left.join("; "));
        }
        for search in [Search::Greedy, Search::GreedyMating] {
            let paper: Vec<(f64, f64)> =
                self.spec.table5.iter().map(|r| (r.ell as f64, if search == Search::Greedy { r.greedy } else { r.gm } as f64)).collect();
            series.insert(format!("{} (paper)", search.name()), paper);
        }
        let fits: Vec<String> =
            series.iter().filter_map(|(name, pts)| power_fit(pts).map(|(a, b)| format!("{name}: n ≈ {a:.1}·ℓ^{b:.2}"))).collect();
        let _ = writeln!(md, "\nPower-law fits (least squares in log–log): {}.\n", fits.join("; "));
        let chart =
            LineChart::new("Table 5: population size to solve m − 1 subproblems", ("problem size ℓ", "population size"), series, m.label());
        Ok(md + &chart::figure(dir, &m.hw_id, "table5", "Table 5", &chart)? + "\n")
    }
}
