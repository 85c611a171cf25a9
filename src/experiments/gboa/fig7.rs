//! Figure 7 — each phase's share of the run, per method, and network
//! construction's share as curves beside the shares the paper states.

use super::GboaPaper;
use super::analysis::{Analysis, RunTimes};
use super::cases::METHODS;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart};
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;
impl GboaPaper {
    /// Figure 7 as curves: network construction's share of the whole run against
    /// ℓ, per method and generation count, with the shares the paper states (80%,
    /// 70% for smaller problems: the spec's `[stated]`) as dashed lines.
    pub(super) fn fig7_chart(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
        let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for &at in a.table1.keys() {
            for method in METHODS {
                let share = a.mean(at, method, |r| r.construction).zip(a.mean(at, method, |r| r.total)).map(|(c, t)| 100.0 * c / t);
                if let Some(v) = share.filter(|v| *v > 0.0) {
                    series.entry(format!("{method}, {} gen.", at.generations)).or_default().push((at.ell as f64, v));
                }
            }
        }
        if series.is_empty() {
            return Ok(String::new());
        }
        let stated = self.stated();
        let hlines = [(stated.share_largest, "larger problems"), (stated.share, "smaller problems")]
            .into_iter()
            .map(|(share, which)| {
                let s = 100.0 * share;
                (format!("paper: construction > {s:.0}% of gBOA's run, {which} (Figure 7)"), s)
            })
            .collect();
        let title = "Figure 7: network construction's share of the run";
        let chart =
            LineChart { hlines, ..LineChart::new(title, ("problem size ℓ", "network construction (% of the run)"), series, m.label()) };
        Ok(format!("\n{}\n", chart::figure(dir, &m.hw_id, "fig7", "Figure 7", &chart)?))
    }
}

pub(super) fn fig7(a: &Analysis) -> String {
    let mut t = Table::new(&["ℓ", "method", "network construction", "selection", "sampling", "evaluation", "replacement"]);
    for &at in a.table1.keys() {
        for method in METHODS {
            let Some(total) = a.mean(at, method, |r| r.total) else { continue };
            let share =
                |pick: fn(&RunTimes) -> f64| a.mean(at, method, pick).map_or("—".into(), |v| format!("{:.0}%", 100.0 * v / total));
            t.row(vec![
                at.to_string(),
                method.into(),
                share(|r| r.construction),
                share(|r| r.selection),
                share(|r| r.sampling),
                share(|r| r.evaluation),
                share(|r| r.replacement),
            ]);
        }
    }
    if t.is_empty() {
        "No Table I runs in this machine's profiles.".into()
    } else {
        t.render() + "\nRows recorded before evaluation was timed apart show 0% evaluation: their replacement includes it.\n"
    }
}
