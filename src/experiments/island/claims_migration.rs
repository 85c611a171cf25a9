//! The migration claim of Figure 6 (migration's share of the time is almost
//! negligible at 2048 per island, on the ring over several GPUs) and the series
//! the generic `threshold` judges for the island paper.

use super::analysis::{Analysis, Run};
use super::claims_common::pct;
use super::claims_time::ring_over_one_gpu;
use super::{CPU_MT, CUDA};
use crate::claims::generic::{Pairs, Points, Series};
use crate::claims::{Band, Estimate};
use crate::fmt::fmt_num;
use std::collections::BTreeMap;

/// Migration shares of one island count: one per run, and the ring's split.
#[derive(Default)]
struct Shares {
    values: Vec<f64>,
    split: String,
}

/// The runs of more than one island of a size in `sizes`, by island count.
fn shares_of<'a>(runs: impl Iterator<Item = &'a Run>, sizes: &Band) -> BTreeMap<usize, Shares> {
    let mut by: BTreeMap<usize, Shares> = BTreeMap::new();
    for r in runs.filter(|r| sizes.contains(r.size as f64) && r.islands > 1) {
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

/// The series the generic `threshold` judges: `migration_share` and
/// `ring_over_one_gpu` ([`ring_over_one_gpu`], Figure 5); the pairs
/// `order_at_points` judges: Figure 4's `more_and_larger_islands` and
/// `island_steps` (`claims_fitness`).
impl Series for Analysis {
    const NAMES: &'static [&'static str] = &["more_and_larger_islands", "island_steps", "migration_share", "ring_over_one_gpu"];

    fn pairs(&self, name: &str) -> Pairs {
        match name {
            "more_and_larger_islands" => super::claims_fitness::more_and_larger_islands(self),
            "island_steps" => super::claims_fitness::island_steps(self),
            _ => Pairs::default(),
        }
    }

    fn points(&self, name: &str, sizes: Option<&Band>) -> Points {
        let Some(sizes) = sizes else { return Points::default() };
        match name {
            "migration_share" => migration_shares(self, sizes),
            "ring_over_one_gpu" => ring_over_one_gpu(self, sizes),
            _ => Points::default(),
        }
    }
}

/// `migration_share` (Figure 6): migration's share of the run in percent at
/// every island count above one, islands of `sizes`, on the ring over several
/// GPUs (the paper's setting: islands on separate GPUs). One GPU holding every
/// island, or the CPU's threads, go beyond the paper.
fn migration_shares(a: &Analysis, sizes: &Band) -> Points {
    let size = if sizes.low == sizes.high { fmt_num(sizes.low) } else { sizes.to_string() };
    let one_gpu = |runs: Vec<&Run>, how: &str| {
        let one = list_shares(&shares_of(runs.into_iter(), sizes));
        if one.is_empty() { String::new() } else { format!("all islands on one GPU{how}: {}", show_shares(&one)) }
    };
    if a.rings().any(|r| sizes.contains(r.size as f64)) {
        let at = list_shares(&shares_of(a.rings(), sizes)).into_iter().map(|(l, e)| (l, e.scale(100.0))).collect();
        return Points {
            setting: format!("the ring over several GPUs (NCCL), {size} per island, migration's share of the run (%)"),
            at,
            absent: Some(format!("no runs of more than one island of {size}")),
            beyond: one_gpu(a.ring.iter().filter(|r| r.method == CUDA).collect(), " (same cases)"),
            ..Points::default()
        };
    }
    if a.grid_method() == Some(CUDA) {
        // One GPU holding every island is not the paper's setting (one GPU per island, MPI between them).
        let why = "no runs with the islands on separate GPUs (the ring over several GPUs, profile gpu-multi)";
        let beyond = one_gpu(a.grid.values().flatten().collect(), &format!(", {size} per island"));
        return Points { absent: Some(why.into()), beyond, ..Points::default() };
    }
    let cpu: Vec<f64> = a.grid.values().flatten().filter(|r| r.method == CPU_MT && r.islands > 1).map(Run::migration_share).collect();
    let range = cpu.iter().copied().min_by(f64::total_cmp).zip(cpu.iter().copied().max_by(f64::total_cmp));
    let beyond = range.map_or(String::new(), |(lo, hi)| {
        format!("all islands on the CPU's threads (sizes of the grid): {:.2}%–{:.2}%", 100.0 * lo, 100.0 * hi)
    });
    Points { absent: Some(a.gpu_reason("no GPU runs in these records")), beyond, ..Points::default() }
}
