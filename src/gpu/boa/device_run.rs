//! BOA on the device, end to end (issue #23; Section V.B's "future research"):
//! every phase of a run in `kernels/boa.cu`, with its memory pre-check.

#[cfg(doc)]
use super::GpuFamilyScorer;
use super::network::{network_kernel, network_of_rows};
use super::{BOA_CU, MAX_ELL, MAX_K, OUT, SHAPE};
use crate::gpu::{Gpu, launch_err};
use crate::library::boa::{
    BoaConfig, BoaResult, Construction, GenerationStats, GenerationTrace, LnFactorial, PhaseTimes, Randomness, population_hash,
};
use crate::library::trap::Trap;
use anyhow::{Context, Result, ensure};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, LaunchConfig, PushKernelArg};
use std::time::{Duration, Instant};

/// Entries per node of the device's conditional counts (its `BOA_TABLE`).
pub(super) const TABLE: usize = 2 << MAX_K;
/// Entries of one generation's statistics (its `BOA_STATS`).
pub(super) const STATS: usize = 6;
/// Threads per block of the element-wise kernels of a device run.
const BLOCK: u32 = 256;

/// Device bytes of a whole BOA run with the population resident on the device:
/// population and offspring (a byte per allele), fitness, ranking, the selected
/// half packed by locus, the ln-factorial table, the permutation, sampling's
/// schedule (nodes and level starts), the network rows, the conditional counts
/// and the statistics of every generation.
pub fn device_run_bytes(n: usize, ell: usize, selected: usize, generations: usize) -> u128 {
    let (n, ell, s, g) = (n as u128, ell as u128, selected as u128, generations as u128);
    let offspring = n - s.min(n);
    [
        (n + offspring).saturating_mul(ell),
        4 * (2 * n + offspring),
        (8 * ell).saturating_mul(s.div_ceil(64)),
        8 * (s + 2),
        4 * ell * (3 + OUT as u128 + TABLE as u128) + 8,
        8 * STATS as u128 * (g + 1),
    ]
    .into_iter()
    .fold(0, u128::saturating_add)
}

/// The memory pre-check of a device run: an error naming N, ℓ, the bytes needed and
/// the bytes free, before anything is allocated.
pub fn check_device_run_fits(n: usize, ell: usize, selected: usize, generations: usize, free: usize) -> Result<()> {
    let needed = device_run_bytes(n, ell, selected, generations);
    ensure!(
        needed <= free as u128,
        "BOA on the device: N = {n}, ℓ = {ell} needs {needed} bytes ({} MiB) of device memory, but {free} bytes ({} MiB) are free",
        needed >> 20,
        free >> 20
    );
    Ok(())
}

/// The device buffers of a whole run (names as in `kernels/boa.cu`).
struct RunBuffers {
    rows: CudaSlice<u8>,
    fitness: CudaSlice<u32>,
    ranking: CudaSlice<u32>,
    words: CudaSlice<u64>,
    table: CudaSlice<f64>,
    perm: CudaSlice<i32>,
    /// Sampling's schedule (`boa_levels`): the nodes by level, and the level starts.
    schedule: CudaSlice<i32>,
    starts: CudaSlice<i32>,
    network: CudaSlice<i32>,
    counts: CudaSlice<u32>,
    offspring: CudaSlice<u8>,
    offspring_fitness: CudaSlice<u32>,
    stats: CudaSlice<u64>,
}

fn grid(items: usize) -> LaunchConfig {
    LaunchConfig { grid_dim: ((items as u32).div_ceil(BLOCK).max(1), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// Shared memory a block of `boa_sample` may use (the default static limit).
const SAMPLE_SHARED_BYTES: usize = 48 * 1024;

/// `boa_levels`: one block; its shared memory holds ℓ + 1 counters and two
/// 16-bit levels per node, so a device run takes ℓ ≤ [`LEVELS_MAX_ELL`].
const LEVELS_THREADS: u32 = 256;
const LEVELS_MAX_ELL: usize = (SAMPLE_SHARED_BYTES - 4) / 8;

fn levels_shared_bytes(ell: usize) -> u32 {
    (4 * (ell + 1) + 4 * ell) as u32
}

/// `boa_sample`'s launch: a warp per offspring, up to four to a block as their children (`ell` bytes each) fit in
/// [`SAMPLE_SHARED_BYTES`] of shared memory.
pub(super) fn sample_launch(ell: usize, offspring: usize) -> Result<LaunchConfig> {
    ensure!(
        ell <= SAMPLE_SHARED_BYTES,
        "ℓ = {ell}: a child of {ell} bytes does not fit boa_sample's {SAMPLE_SHARED_BYTES} bytes of shared memory"
    );
    let warps = (SAMPLE_SHARED_BYTES / ell.max(1)).clamp(1, 4);
    let blocks = u32::try_from(offspring.div_ceil(warps)).context("too many offspring for one launch")?;
    Ok(LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (32 * warps as u32, 1, 1), shared_mem_bytes: (warps * ell) as u32 })
}

/// BOA with every phase on the device (`kernels/boa.cu`): truncation selection
/// (`boa_rank`, `boa_pack_selected`), pBOA's network (`boa_permutation` and the
/// network kernel of [`GpuFamilyScorer`]), the conditional counts and ancestral
/// sampling (`boa_conditional_counts`, `boa_sample`), evaluation (`boa_evaluate`) and
/// replacement of the worst (`boa_replace`); only each generation's statistics come
/// back (all at the end, or one generation at a time with `cfg.stop_on_convergence`
/// or a `trace`). Makes [`crate::library::boa::run_traced`]'s run with
/// [`Randomness::Counter`] and [`Construction::Permutation`] bit for bit; phase
/// times are the device's (events between the phases).
pub fn run_on_device(
    gpu: &Gpu,
    trap: &Trap,
    cfg: &BoaConfig,
    seed: u64,
    mut trace: Option<&mut Vec<GenerationTrace>>,
) -> Result<DeviceRun> {
    let start = Instant::now();
    let (n, ell, s) = (cfg.n, trap.ell(), cfg.selected());
    ensure!(
        cfg.rng == Randomness::Counter && cfg.construction == Construction::Permutation,
        "BOA on the device runs pBOA with counter-based randomness, not {} with {}",
        cfg.construction.name(),
        cfg.rng.name()
    );
    ensure!(ell > 0 && trap.k > 0, "empty problem");
    ensure!(s > 0 && s < n, "selection {} of N = {n} must select between 1 and N − 1 individuals", cfg.selection);
    ensure!(cfg.k <= MAX_K, "BOA on the device: k = {} parents, at most {MAX_K}", cfg.k);
    ensure!(ell <= MAX_ELL, "BOA on the device: ℓ = {ell} nodes, at most {MAX_ELL} (the network kernel's candidate list)");
    ensure!(ell <= LEVELS_MAX_ELL, "BOA on the device: ℓ = {ell} nodes, at most {LEVELS_MAX_ELL} (boa_levels' shared memory)");
    ensure!(
        n.checked_mul(ell).is_some_and(|a| a <= u32::MAX as usize) && cfg.max_generations < u32::MAX as usize,
        "BOA on the device: N·ℓ = {n}·{ell} alleles and {} generations must fit 32-bit counters",
        cfg.max_generations
    );
    let (free, _) = gpu.ctx.mem_get_info().map_err(launch_err("cuMemGetInfo"))?;
    check_device_run_fits(n, ell, s, cfg.max_generations, free)?;
    let e = launch_err("BOA device run");
    let stream = &gpu.stream;
    let wpl = s.div_ceil(64);
    let offspring_n = n - s;
    let per_child = sample_launch(ell, offspring_n)?;
    let generations = cfg.max_generations;
    let mut b = RunBuffers {
        rows: stream.alloc_zeros(n * ell).map_err(&e)?,
        fitness: stream.alloc_zeros(n).map_err(&e)?,
        ranking: stream.alloc_zeros(n).map_err(&e)?,
        words: stream.alloc_zeros(ell * wpl).map_err(&e)?,
        table: stream.clone_htod(LnFactorial::new(s).table()).map_err(&e)?,
        perm: stream.alloc_zeros(ell).map_err(&e)?,
        schedule: stream.alloc_zeros(ell).map_err(&e)?,
        starts: stream.alloc_zeros(ell + 2).map_err(&e)?,
        network: stream.alloc_zeros(ell * OUT).map_err(&e)?,
        counts: stream.alloc_zeros(ell * TABLE).map_err(&e)?,
        offspring: stream.alloc_zeros(offspring_n * ell).map_err(&e)?,
        offspring_fitness: stream.alloc_zeros(offspring_n).map_err(&e)?,
        stats: stream.alloc_zeros(STATS * (generations + 1)).map_err(&e)?,
    };
    let f = |name: &str| gpu.function(&BOA_CU, name);
    let (initial, evaluate, rank, pack, permutation) =
        (f("boa_initial")?, f("boa_evaluate")?, f("boa_rank")?, f("boa_pack_selected")?, f("boa_permutation")?);
    let (network, conditional, sample, replace, stats_kernel) =
        (f(network_kernel(SHAPE.group))?, f("boa_conditional_counts")?, f("boa_sample")?, f("boa_replace")?, f("boa_stats")?);
    let levels = f("boa_levels")?;
    let levels_cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (LEVELS_THREADS, 1, 1), shared_mem_bytes: levels_shared_bytes(ell) };
    let (n32, ell32, s32, wpl32, off32, k_trap) = (n as u32, ell as u32, s as u32, wpl as u32, offspring_n as u32, trap.k as u32);
    let (seed_low, seed_high) = (seed as u32, (seed >> 32) as u32);
    let (no_nodes, nodes) = (0u32, ell32);

    // SAFETY (every launch below): each kernel bounds its threads by the counts it is
    // passed, which are the lengths allocated above: rows n·ell, fitness and ranking
    // n (ranking holds a permutation of 0..n, so rows[ranking[·]·ell + l] stays in
    // rows), words ell·wpl, table s + 2 (counts ≤ s), perm and schedule ell, starts
    // ell + 2 (at most ell levels), network ell·OUT (parents < ell, k ≤ MAX_K), counts ell·TABLE (indices
    // < 2^(parents + 1) ≤ TABLE), offspring (n − s)·ell and n − s, stats
    // STATS·(generations + 1) of which launch g writes entries g·STATS..(g + 1)·STATS.
    let setup_ms = start.elapsed().as_secs_f64() * 1e3;
    unsafe { stream.launch_builder(&initial).arg(&mut b.rows).arg(&n32).arg(&ell32).arg(&seed_low).arg(&seed_high).launch(grid(n * ell)) }
        .map_err(&e)?;
    unsafe { stream.launch_builder(&evaluate).arg(&b.rows).arg(&n32).arg(&ell32).arg(&k_trap).arg(&mut b.fitness).launch(grid(n)) }
        .map_err(&e)?;
    {
        let mut st = b.stats.slice_mut(0..STATS);
        unsafe {
            stream
                .launch_builder(&stats_kernel)
                .arg(&b.rows)
                .arg(&b.fitness)
                .arg(&n32)
                .arg(&ell32)
                .arg(&b.network)
                .arg(&no_nodes)
                .arg(&mut st)
                .launch(grid(n * ell))
        }
        .map_err(&e)?;
    }
    let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(&e);
    let mut events: Vec<[CudaEvent; 7]> = Vec::new();
    let mut done = 0;
    while done < generations {
        if cfg.stop_on_convergence && stream.clone_dtoh(&b.stats.slice(done * STATS..(done + 1) * STATS)).map_err(&e)?[2] == 0 {
            break;
        }
        let g = done as u32;
        let ev = [event()?, event()?, event()?, event()?, event()?, event()?, event()?];
        ev[0].record(stream).map_err(&e)?;
        unsafe {
            // A warp per individual, eight to a block.
            let rank_cfg = LaunchConfig { grid_dim: (n32.div_ceil(8), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
            stream.launch_builder(&rank).arg(&b.fitness).arg(&n32).arg(&mut b.ranking).launch(rank_cfg).map_err(&e)?;
            stream
                .launch_builder(&pack)
                .arg(&b.rows)
                .arg(&b.ranking)
                .arg(&s32)
                .arg(&ell32)
                .arg(&wpl32)
                .arg(&mut b.words)
                .launch(grid(ell * wpl))
                .map_err(&e)?;
        }
        ev[1].record(stream).map_err(&e)?;
        let k32 = cfg.k as i32;
        let (ell_i, s_i, wpl_i) = (ell as i32, s as i32, wpl as i32);
        unsafe {
            stream
                .launch_builder(&permutation)
                .arg(&ell32)
                .arg(&g)
                .arg(&seed_low)
                .arg(&seed_high)
                .arg(&mut b.perm)
                .launch(grid(ell))
                .map_err(&e)?;
            let net_cfg = LaunchConfig { grid_dim: (ell32, 1, 1), block_dim: (SHAPE.warps * 32, 1, 1), shared_mem_bytes: ell32 * 4 };
            stream
                .launch_builder(&network)
                .arg(&b.words)
                .arg(&b.table)
                .arg(&b.perm)
                .arg(&ell_i)
                .arg(&s_i)
                .arg(&wpl_i)
                .arg(&k32)
                .arg(&mut b.network)
                .launch(net_cfg)
                .map_err(&e)?;
        }
        ev[2].record(stream).map_err(&e)?;
        unsafe {
            let warp_per_node = LaunchConfig { grid_dim: (ell32, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
            stream
                .launch_builder(&conditional)
                .arg(&b.words)
                .arg(&s32)
                .arg(&wpl32)
                .arg(&b.network)
                .arg(&mut b.counts)
                .launch(warp_per_node)
                .map_err(&e)?;
            stream
                .launch_builder(&levels)
                .arg(&b.network)
                .arg(&ell32)
                .arg(&mut b.schedule)
                .arg(&mut b.starts)
                .launch(levels_cfg)
                .map_err(&e)?;
            stream
                .launch_builder(&sample)
                .arg(&b.network)
                .arg(&b.counts)
                .arg(&b.schedule)
                .arg(&b.starts)
                .arg(&ell32)
                .arg(&off32)
                .arg(&g)
                .arg(&seed_low)
                .arg(&seed_high)
                .arg(&mut b.offspring)
                .launch(per_child)
                .map_err(&e)?;
        }
        ev[3].record(stream).map_err(&e)?;
        unsafe {
            stream
                .launch_builder(&evaluate)
                .arg(&b.offspring)
                .arg(&off32)
                .arg(&ell32)
                .arg(&k_trap)
                .arg(&mut b.offspring_fitness)
                .launch(grid(offspring_n))
                .map_err(&e)?;
        }
        ev[4].record(stream).map_err(&e)?;
        unsafe {
            stream
                .launch_builder(&replace)
                .arg(&b.offspring)
                .arg(&b.offspring_fitness)
                .arg(&b.ranking)
                .arg(&s32)
                .arg(&off32)
                .arg(&ell32)
                .arg(&mut b.rows)
                .arg(&mut b.fitness)
                .launch(grid(offspring_n * ell))
                .map_err(&e)?;
        }
        ev[5].record(stream).map_err(&e)?;
        done += 1;
        {
            let mut st = b.stats.slice_mut(done * STATS..(done + 1) * STATS);
            unsafe {
                stream
                    .launch_builder(&stats_kernel)
                    .arg(&b.rows)
                    .arg(&b.fitness)
                    .arg(&n32)
                    .arg(&ell32)
                    .arg(&b.network)
                    .arg(&nodes)
                    .arg(&mut st)
                    .launch(grid(n * ell))
            }
            .map_err(&e)?;
        }
        ev[6].record(stream).map_err(&e)?;
        events.push(ev);
        if let Some(trace) = trace.as_deref_mut() {
            let rows = stream.clone_dtoh(&b.network).map_err(&e)?;
            let net = network_of_rows(&rows.chunks_exact(OUT).collect::<Vec<_>>());
            let population = stream.clone_dtoh(&b.rows).map_err(&e)?;
            trace.push(GenerationTrace {
                parents: net.parents,
                score_bits: net.score.to_bits(),
                population_hash: population_hash(&population),
            });
        }
    }
    let stats = stream.clone_dtoh(&b.stats.slice(0..(done + 1) * STATS)).map_err(&e)?;
    let rows = stream.clone_dtoh(&b.rows).map_err(&e)?;
    let fitness = stream.clone_dtoh(&b.fitness).map_err(&e)?;
    let span =
        |from: &CudaEvent, to: &CudaEvent| from.elapsed_ms(to).map(|ms| Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3)).map_err(&e);
    let mut timings = PhaseTimes::default();
    let mut statistics = Duration::ZERO;
    for ev in &events {
        timings.selection += span(&ev[0], &ev[1])?;
        timings.construction += span(&ev[1], &ev[2])?;
        timings.sampling += span(&ev[2], &ev[3])?;
        timings.evaluation += span(&ev[3], &ev[4])?;
        timings.replacement += span(&ev[4], &ev[5])?;
        statistics += span(&ev[5], &ev[6])?;
    }
    let per_generation: Vec<&[u64]> = stats.chunks_exact(STATS).collect();
    let history: Vec<GenerationStats> = per_generation[1..]
        .iter()
        .map(|g| GenerationStats { best_fitness: g[0] as u32, mean_fitness: g[1] as f64 / n as f64, edges: g[3] as usize })
        .collect();
    let families_scored = per_generation[1..].iter().map(|g| ell as u64 + g[4]).sum();
    let best = (0..n).fold(0, |best, i| if fitness[i] > fitness[best] { i } else { best });
    let best_solved = trap.solved(&rows[best * ell..][..ell]);
    timings.total = start.elapsed();
    let result = BoaResult {
        generations: done,
        best_fitness: fitness[best],
        best_solved,
        solved_fraction: best_solved as f64 / trap.m as f64,
        converged: per_generation[done][2] == 0,
        timings,
        families_scored,
        history,
    };
    let alleles = per_generation[1..].iter().map(|g| g[5] as f64).sum::<f64>() * s as f64;
    Ok(DeviceRun { result, alleles, statistics_ms: statistics.as_secs_f64() * 1e3, setup_ms })
}

/// A run of [`run_on_device`]: the result (phase times from the device's events)
/// and the alleles the network kernel read (Σ family size × S over the scored
/// families, the first scores included), for its rate against the int32 ceiling.
pub struct DeviceRun {
    pub result: BoaResult,
    pub alleles: f64,
    /// Each generation's statistics (`boa_stats`, after replacement), device time in ms.
    pub statistics_ms: f64,
    /// Host wall-clock time from the call to the first launch: the checks, the
    /// kernels' lookups, the allocations and the ln-factorial table's upload.
    pub setup_ms: f64,
}
