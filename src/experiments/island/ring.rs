//! The section *Several GPUs* (Section IV): the ring on one GPU beside the ring
//! split over every GPU of the machine with NCCL between them.

use super::CUDA_RING;
use super::analysis::{Analysis, Run};
use crate::experiments::Part;
use crate::fmt;
use crate::report::Table;
use crate::stats::Summary;
use std::collections::BTreeMap;

pub(super) const RING_INTRO: &str = "The paper's multi-GPU version: each GPU evolves its part of the ring (its islands batched in the same \
    launches) and at migration sends its last island's emigrants to the next GPU (here over NCCL, one process; the paper used \
    MPI between GTX 580s). Times are per generation, each phase timed with CUDA events on every GPU and the slowest GPU's time \
    taken; the ring's migration includes the exchange. Both runs start from the same seed and must end with the same \
    statistics (a case fails otherwise). Island-generations per second: islands × generations over the run's time.";

/// The `ring` cases of one machine: the ring on one GPU beside the ring split over its GPUs.
pub(super) fn ring_section(a: &Analysis) -> Part {
    let mut rings: BTreeMap<(usize, usize), Vec<&Run>> = BTreeMap::new();
    for r in a.rings() {
        rings.entry((r.islands, r.size)).or_default().push(r);
    }
    if rings.is_empty() {
        return match a.reason(CUDA_RING) {
            Some(why) => Part::NotRun(why.to_owned()),
            None => Part::NotRun("no ring runs recorded (profile `gpu-multi`)".into()),
        };
    }
    let mut t = Table::new(&[
        "islands",
        "island size",
        "generations",
        "GPUs (islands each)",
        "one GPU (ms/gen.)",
        "ring (ms/gen.)",
        "one GPU / ring",
        "one GPU (island-gen./s)",
        "ring (island-gen./s)",
        "ring: migration share",
        "same statistics",
        "runs (one GPU / ring)",
    ]);
    // Means over the runs of each case.
    let mean = |runs: &[&Run], f: fn(&Run) -> f64| Summary::of(&runs.iter().map(|r| f(r)).collect::<Vec<_>>()).map(|s| s.mean);
    for (&(islands, size), runs) in &rings {
        let r = runs[0];
        let one = a.ring_on_one_gpu(islands, size);
        let (one_ms, ring_ms) = (mean(&one, Run::ms_per_generation), mean(runs, Run::ms_per_generation));
        let split: Vec<String> = r.split.iter().map(usize::to_string).collect();
        t.row(vec![
            islands.to_string(),
            size.to_string(),
            r.generations.to_string(),
            format!("{} ({})", r.gpus.unwrap_or(r.split.len()), split.join("+")),
            fmt::opt(one_ms, 4),
            fmt::opt(ring_ms, 4),
            one_ms.zip(ring_ms).map_or("—".into(), |(o, r)| format!("{:.2}×", o / r)),
            fmt::opt(mean(&one, Run::island_generations_per_s), 0),
            fmt::opt(mean(runs, Run::island_generations_per_s), 0),
            mean(runs, Run::migration_share).map_or("—".into(), |s| format!("{:.2}%", 100.0 * s)),
            (if runs.iter().all(|r| r.identical) { "yes" } else { "—" }).into(),
            format!("{} / {}", one.len(), runs.len()),
        ]);
    }
    let mut md = t.render();
    let nccl: Vec<&(String, String, f64)> = rings.values().flatten().filter_map(|r| r.nccl.as_ref()).collect();
    if !nccl.is_empty() {
        let gbs: Vec<f64> = nccl.iter().map(|n| n.2).collect();
        let mut versions: Vec<String> = nccl.iter().map(|(v, nvls, _)| format!("NCCL {v} (NCCL_NVLS_ENABLE={nvls})")).collect();
        versions.sort();
        versions.dedup();
        md += &format!(
            "\nThe link each GPU sends its emigrants over, measured in every case as NCCL moves 64 MiB from each GPU to the next \
             while receiving from the previous (median of 10): {:.0}–{:.0} GB/s per direction; {}.\n",
            gbs.iter().copied().fold(f64::INFINITY, f64::min),
            gbs.iter().copied().fold(0.0, f64::max),
            versions.join(", ")
        );
    } else {
        md += "\nThese records predate the ring rows' NCCL version, multicast setting and link measurement (columns `nccl_version`, `nccl_nvls_enable`, `link_gbs`).\n";
    }
    Part::Shown(md)
}

#[cfg(test)]
mod tests {
    use super::super::analysis::fixtures::*;
    use super::*;

    #[test]
    fn the_ring_section_sets_several_gpus_beside_one() {
        let m = machine(vec![ring(14, 2048, 0.3, 0.01, ""), ring(14, 2048, 0.15, 0.04, "7+7")], None, &[]);
        let Part::Shown(text) = ring_section(&Analysis::of(&m).unwrap()) else { panic!("no ring part") };
        // 0.3 ms against 0.15 ms per generation: 2×; 14 islands in 0.3 and 0.15 ms; migration 4% on the ring.
        assert!(text.contains("| 14 | 2048 | 1000 | 2 (7+7) | 0.3000 | 0.1500 | 2.00× | 46667 | 93333 | 4.00% | yes | 1 / 1 |"), "{text}");
    }

    #[test]
    fn a_ring_not_run_says_why() {
        let m = machine(vec![not_run("ring", CUDA_RING, "1 GPU on this machine")], None, &[]);
        assert_eq!(ring_section(&Analysis::of(&m).unwrap()), Part::NotRun("1 GPU on this machine".into()));
        let empty = machine(vec![], None, &[]);
        assert!(matches!(ring_section(&Analysis::of(&empty).unwrap()), Part::NotRun(why) if why.contains("no ring runs")));
    }
}
