//! A run on the device (Sections V–VI): the islands of one GPU or of a ring of GPUs behind one trait, and the run loop
//! that records the reference's statistics and trace.

use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Design, GpuIslands, IslandState};
use crate::gpu::Gpu;
use crate::library::island::{Config, Feasibility, Layout, PhaseTimes, RunResult, Statistics, TracePoint};
use crate::library::knapsack::{Evaluator, Instance};

/// The islands of a run on the device: all on one GPU ([`GpuIslands`]) or split over several
/// ([`super::island_ring::Ring`]); both evolve exactly as the reference [`Islands`].
///
/// [`super::island_ring::Ring`]: crate::gpu::island_ring::Ring
/// [`Islands`]: crate::library::island::Islands
pub trait DeviceIslands {
    /// Generation `generation` on every island, then migration when due (launched without waiting).
    fn generation(&mut self, generation: u32) -> Result<()>;
    /// Every island's arrays, in ring order (waits for the GPUs).
    fn download(&self) -> Result<Vec<IslandState>>;
    /// The reference's statistics of the current parents (waits for the GPUs).
    fn statistics(&self, evaluator: &Evaluator<'_>) -> Result<Statistics>;
    /// Applies a replacement left pending (the fused design leaves each generation's to the next) and waits for
    /// everything launched so far: what a read of the parents needs.
    fn settle(&mut self) -> Result<()>;
    /// Time per phase summed over the generations so far (waits for them); `statistics` is zero.
    fn phase_times(&mut self) -> Result<PhaseTimes>;
}

impl DeviceIslands for GpuIslands<'_> {
    fn generation(&mut self, generation: u32) -> Result<()> {
        GpuIslands::generation(self, generation)
    }
    fn download(&self) -> Result<Vec<IslandState>> {
        GpuIslands::download(self)
    }
    fn statistics(&self, evaluator: &Evaluator<'_>) -> Result<Statistics> {
        GpuIslands::statistics(self, evaluator)
    }
    fn settle(&mut self) -> Result<()> {
        GpuIslands::settle(self)?;
        GpuIslands::synchronize(self)
    }
    fn phase_times(&mut self) -> Result<PhaseTimes> {
        GpuIslands::phase_times(self)
    }
}

/// Evolves `config.islands` islands on `instance` on the GPU, as [`crate::library::island::run`] does on the CPU:
/// the same statistics, trace and (GPU-measured) phase times, with kernels of `design`; `config.threads` is ignored.
pub fn run(gpu: &Gpu, instance: &Instance, config: &Config, design: Design) -> Result<RunResult> {
    let evaluator = Evaluator::new(instance);
    run_on(&mut GpuIslands::new(gpu, &evaluator, config, design)?, &evaluator, config)
}

/// [`run`] on islands already built on the device(s).
pub(in crate::gpu) fn run_on(islands: &mut dyn DeviceIslands, evaluator: &Evaluator<'_>, config: &Config) -> Result<RunResult> {
    let mut trace = Vec::new();
    let mut statistics_time = Duration::ZERO;
    let mut feasibility = Feasibility::default();
    // Each record reads islands settled by its caller: the generations launched so far (and a pending replacement)
    // are not the statistics' time.
    let mut record = |islands: &mut dyn DeviceIslands, generation: u32| -> Result<Statistics> {
        let start = Instant::now();
        let statistics = islands.statistics(evaluator)?;
        statistics_time += start.elapsed();
        // Every parent evaluated again on the host, outside the statistics' time.
        let states = islands.download()?;
        feasibility =
            Feasibility::of(evaluator, Layout::new(evaluator.instance().item_count()).words, states.iter().map(|s| &s.population[..]));
        trace.push(TracePoint { generation, best: statistics.best, mean: statistics.mean, feasible: feasibility.individuals() });
        Ok(statistics)
    };
    islands.settle()?;
    let mut statistics = record(islands, 0)?;
    // The loop's wall time, each span from the last record to the settled generations before the next: the events
    // time the phases on the device, and the device may wait for the host between them (issue #39: at 1024 per island
    // the fused design's loop took 17–24 µs a generation against 14.3 µs of phases).
    let mut wall = Duration::ZERO;
    let mut since = Instant::now();
    for generation in 0..config.generations {
        islands.generation(generation)?;
        let done = generation + 1;
        if done == config.generations || (config.statistics_interval > 0 && done.is_multiple_of(config.statistics_interval)) {
            islands.settle()?;
            wall += since.elapsed();
            statistics = record(islands, done)?;
            since = Instant::now();
        }
    }
    let phases = islands.phase_times()?;
    let times = PhaseTimes { statistics: statistics_time, outside_phases: wall.saturating_sub(phases.total()), ..phases };
    Ok(RunResult { statistics, times, trace, feasibility })
}
