//! The section *Performance* (beyond the paper): the GPU grid's memory traffic
//! against the device-copy ceiling, and its genetic manipulation against the
//! Philox ceiling measured in the same run.

use super::CUDA;
use super::analysis::Analysis;
use crate::experiments::Part;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::stats::Summary;

/// The GPU grid's bytes per generation (`gpu::island::bytes_per_generation`, a
/// lower bound) over its time per generation, against the device-copy ceiling
/// measured in the same run.
pub(super) fn performance(m: &MachineRecords, a: &Analysis, items: Option<usize>) -> Part {
    let (Some(items), Some(CUDA)) = (items, a.grid_method()) else {
        return a.reason(CUDA).map_or_else(|| Part::NotRun("no GPU grid runs recorded".into()), |why| Part::NotRun(why.to_owned()));
    };
    let ceiling = m.ceiling("gpu_d2d");
    let mut t = Table::new(&["islands × size", "MB per generation", "µs per generation", "GB/s", "of the device-copy ceiling"]);
    for &(islands, size) in a.grid.keys() {
        let Some(ms) = a.grid_per_generation(islands, size) else { continue };
        let bytes = crate::gpu::island::bytes_per_generation(items, size, islands) as f64;
        let gbs = bytes / (ms * 1e-3) / 1e9;
        t.row(vec![
            format!("{islands} × {size}"),
            format!("{:.2}", bytes / 1e6),
            format!("{:.1}", ms * 1e3),
            format!("{gbs:.0}"),
            ceiling.map_or("—".into(), |c| crate::fmt::share(gbs, c, 1)),
        ]);
    }
    let md = "Bytes counted: parents read and children written by genetic manipulation, offspring read by evaluation, fitness \
              reads and writes (not the genomes replacement copies, migration or statistics); time per generation includes \
              migration every 100 generations.\n\n"
        .to_owned();
    (md + &t.render() + "\n" + &manipulation_against_philox(a, items)).into()
}

/// Genetic manipulation's Philox calls per second (`gpu::island::manipulation_philox_calls`, a lower bound) against
/// the Philox rate measured by `island_philox_rate` in the same run (the speed cases): the integer ceiling that
/// bounds this phase, which draws 16 Philox calls per chromosome word and pair for its mutation masks.
fn manipulation_against_philox(a: &Analysis, items: usize) -> String {
    let Some(ceiling) = Summary::of(&a.philox).map(|s| s.median) else {
        return "No Philox ceiling in this machine's records (measured by the speed cases of the GPU profiles).\n".into();
    };
    let mut t = Table::new(&[
        "islands × size",
        "Philox calls per generation",
        "manipulation µs per generation",
        "G calls/s",
        "of the Philox ceiling",
    ]);
    for &(islands, size) in a.grid.keys() {
        let per = a.grid_values(islands, size, |r| r.manipulation_ms / f64::from(r.generations));
        let Some(ms) = Summary::of(&per).map(|s| s.mean) else { continue };
        let calls = crate::gpu::island::manipulation_philox_calls(items, size, islands) as f64;
        let rate = calls / (ms * 1e-3);
        t.row(vec![
            format!("{islands} × {size}"),
            format!("{:.2} M", calls / 1e6),
            format!("{:.1}", ms * 1e3),
            format!("{:.1}", rate / 1e9),
            crate::fmt::share(rate, ceiling, 1),
        ]);
    }
    format!(
        "\nGenetic manipulation is bound by integer work, not memory: its mutation masks take {} Philox4×32-10 calls per \
         chromosome word and offspring pair (one number per gene, as the paper's per-gene mutation). Measured Philox \
         ceiling (`island_philox_rate`, every SM busy, median of {} measurements): {:.1} G calls/s. Calls counted: \
         tournaments, crossover decision and mutation masks (not the crossover masks).\n\n{}",
        crate::gpu::island::MUTATION_CALLS,
        a.philox.len(),
        ceiling / 1e9,
        t.render()
    )
}
