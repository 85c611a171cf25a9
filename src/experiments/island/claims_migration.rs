//! The migration claim of Figure 6: migration's share of the time is almost
//! negligible at 2048 per island, on the ring over several GPUs.

use super::analysis::{Analysis, Run};
use super::claims_common::{Invalid, at_least, pct};
use super::{CPU_MT, CUDA};
use crate::claims::judge;
use crate::claims::{Ctx, Estimate, Finding, Outcome, Params};
use crate::fmt::fmt_num;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Figure 6: migration's share of the time is almost negligible at 2048 per island.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MigrationNegligible {
    max_share: f64,
    /// The island size of Figure 6.
    size: usize,
    min_n: usize,
}

impl Params for MigrationNegligible {
    fn validate(&self) -> Invalid {
        if !(self.max_share > 0.0 && self.max_share < 1.0) {
            return Err(("max_share".into(), format!("a share must be in (0, 1), not {}", self.max_share)));
        }
        at_least("min_n", self.min_n, 2, "an interval needs the spread of repeated runs")
    }
}

/// Migration shares of one island count: one per run, and the ring's split.
#[derive(Default)]
struct Shares {
    values: Vec<f64>,
    split: String,
}

/// The runs of more than one island of `size`, by island count.
fn shares_of<'a>(runs: impl Iterator<Item = &'a Run>, size: usize) -> BTreeMap<usize, Shares> {
    let mut by: BTreeMap<usize, Shares> = BTreeMap::new();
    for r in runs.filter(|r| r.size == size && r.islands > 1) {
        let e = by.entry(r.islands).or_default();
        e.values.push(r.migration_share());
        e.split = r.split.iter().map(usize::to_string).collect::<Vec<_>>().join("+");
    }
    by
}

/// Each island count's mean share with its interval.
fn list_shares(by: &BTreeMap<usize, Shares>) -> Vec<(String, Estimate)> {
    by.iter()
        .filter_map(|(i, s)| {
            let label = if s.split.is_empty() { format!("{i} islands") } else { format!("{i} islands ({})", s.split) };
            Some((label, Estimate::mean_of(&s.values)?))
        })
        .collect()
}

fn show_shares(shares: &[(String, Estimate)]) -> String {
    shares.iter().map(|(l, e)| format!("{l}: {}", pct(e))).collect::<Vec<_>>().join(", ")
}

/// The mean share at `size` per island, with its interval, at every island count
/// above one on the ring over several GPUs (the paper's setting: islands on
/// separate GPUs), each at most `max_share` ([`judge::at_most`]); Figure 6 shows
/// it almost negligible at every count, so every count must hold
/// ([`judge::all_of`]). One GPU holding every island, or the CPU's threads, go
/// beyond the paper.
pub(super) fn migration_negligible(p: &MigrationNegligible, a: &Analysis, _: &Ctx) -> Outcome {
    let (setting, shares, beyond) = if a.rings().any(|r| r.size == p.size) {
        let one = list_shares(&shares_of(a.ring.iter().filter(|r| r.method == CUDA), p.size));
        let beyond = if one.is_empty() { String::new() } else { format!("all islands on one GPU (same cases): {}", show_shares(&one)) };
        ("the ring over several GPUs (NCCL)", list_shares(&shares_of(a.rings(), p.size)), beyond)
    } else if a.grid_method() == Some(CUDA) {
        // One GPU holding every island is not the paper's setting (one GPU per island, MPI between them).
        let one = list_shares(&shares_of(a.grid.values().flatten(), p.size));
        let beyond =
            if one.is_empty() { String::new() } else { format!("all islands on one GPU, {} per island: {}", p.size, show_shares(&one)) };
        return Outcome::not_run("no runs with the islands on separate GPUs (the ring over several GPUs, profile gpu-multi)")
            .with_beyond(beyond);
    } else {
        let cpu: Vec<f64> = a.grid.values().flatten().filter(|r| r.method == CPU_MT && r.islands > 1).map(Run::migration_share).collect();
        let range = cpu.iter().copied().min_by(f64::total_cmp).zip(cpu.iter().copied().max_by(f64::total_cmp));
        let beyond = range.map_or(String::new(), |(lo, hi)| {
            format!("all islands on the CPU's threads (sizes of the grid): {:.2}%–{:.2}%", 100.0 * lo, 100.0 * hi)
        });
        return Outcome::not_run(a.gpu_reason("no GPU runs in these records")).with_beyond(beyond);
    };
    if shares.is_empty() {
        return Outcome::not_run(format!("no runs of more than one island of {}", p.size)).with_beyond(beyond);
    }
    let n = shares.iter().map(|s| s.1.n).min().unwrap_or(0);
    let findings: Vec<Finding> = shares.iter().map(|(_, e)| judge::at_most(e, p.max_share)).collect();
    let evidence = format!(
        "{setting}, {} per island, migration's share of the run: {} (at most {}% each)",
        p.size,
        show_shares(&shares),
        fmt_num(100.0 * p.max_share)
    );
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond);
    }
    Outcome::decided(judge::all_of(&findings), n, evidence).with_beyond(beyond)
}
