//! The whole ECGA run on the GPU (issue #23, beyond Shao & Yu's gECGA, which
//! stops at the model, Section 4.2): the initial population, tournament
//! selection without replacement, the MPM search ([`GpuScorer::search_loaded`]),
//! building-block-wise shuffle sampling, trap evaluation, full replacement and
//! the convergence test run in `kernels/ecga_run.cu` with the population resident
//! on the device; each generation only its statistics come back (the model's
//! merges, the selected population's ones, the convergence flag).
//!
//! Random numbers are [`Randomness::Counter`]'s (Philox4x32-10 by generation,
//! stream, individual and round), so a device run and
//! `library::ecga::run` with that option evolve the same populations and build
//! the same models bit for bit; [`self_check`] compares them.

use super::gecga::{GpuScorer, KERNEL_MAX_L, search_bytes};
use super::{Gpu, KernelSource, launch_err};
use crate::library::ecga::{self, EcgaConfig, GenerationStats, ModelTrace, PairScorer, Randomness, RunResult, XLogX, counter};
use crate::library::trap::Trap;
use anyhow::{Result, bail, ensure};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, LaunchConfig, PushKernelArg};
use std::time::{Duration, Instant};

/// `kernels/ecga_run.cu`.
pub const ECGA_RUN_CU: KernelSource = KernelSource { file: "ecga_run.cu", code: include_str!("../../kernels/ecga_run.cu") };

/// Threads of `ecga_run_bucket_scan` and warps a block of `ecga_run_bucket_rank` (the kernel's).
const SCAN_THREADS: u32 = 256;
const RANK_WARPS: usize = 8;
/// Keys a bucket of a permutation's sort holds on the mean (sort v3).
const BUCKET_KEYS: usize = 64;
/// Permutations keyed and sorted together: the key buffer holds this many rows.
pub const PERM_BATCH: usize = 64;
/// Threads per block of the element-wise kernels.
const THREADS: u32 = 256;
/// Largest ℓ: the gather kernels put loci on the grid's y dimension.
const MAX_ELL: usize = 65_535;

/// Row length of a permutation's keys: the power of two ≥ max(n, 2).
fn padded(n: usize) -> usize {
    n.max(2).next_power_of_two()
}

/// Bits of a key that name its bucket in a row of `p` (a power of two ≥ 2)
/// keys: 2^bits buckets of [`BUCKET_KEYS`] keys on the mean, one at least.
/// The rank sort of a bucket costs its size squared, so the buckets are small;
/// v1 and v2 sorted whole rows (bitonic, 21 and 6 passes over a row of 2^16).
fn bucket_bits(p: usize) -> u32 {
    (p / BUCKET_KEYS).max(1).ilog2()
}

/// Device bytes of a whole run of N = `n`, ℓ = `ell`: the population and the
/// selected population packed by locus, fitness and winners, one batch of
/// permutation keys, their scratch and their buckets' counts, starts and
/// cursors, the MPM's loci and groups, the x·log2(x) table and the model
/// search's cache for MAX_L = `max_l` ([`search_bytes`]).
pub fn run_bytes(n: usize, ell: usize, max_l: usize) -> usize {
    let words = ell * n.div_ceil(64);
    let p = padded(n);
    2 * 8 * words
        + 2 * 4 * n
        + 2 * 8 * PERM_BATCH * p
        + 3 * 4 * (PERM_BATCH << bucket_bits(p))
        + 2 * 4 * ell
        + 8 * (n + 1)
        + search_bytes(ell, max_l)
        + 64
}

/// Fails, naming N, ℓ and both sizes, unless a whole run fits in `free` device bytes.
pub fn check_fits(n: usize, ell: usize, max_l: usize, free: usize) -> Result<()> {
    let need = run_bytes(n, ell, max_l);
    ensure!(
        need <= free,
        "ECGA on the device: a run of N = {n}, ℓ = {ell} needs {need} bytes ({:.1} MiB) of device memory, the device has {free} bytes ({:.1} MiB) free",
        need as f64 / 1048576.0,
        free as f64 / 1048576.0
    );
    Ok(())
}

/// Device time of each phase of a run (CUDA events), ms, summed over generations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Initial population and its evaluation.
    pub init_ms: f64,
    pub convergence_ms: f64,
    /// Keys, sorts, tournaments and the gather of the selected population, and its ones.
    pub selection_ms: f64,
    /// The MPM search on the device (host round trips of the search included).
    pub model_ms: f64,
    /// Keys and sorts of the groups' permutations and the offspring's gather.
    pub sampling_ms: f64,
    pub evaluation_ms: f64,
}

/// A whole run on the device.
#[derive(Clone, Debug)]
pub struct DeviceRun {
    /// As `library::ecga::run` reports it (`model_building` is the model phase).
    pub result: RunResult,
    pub phases: PhaseTimes,
    /// Host wall-clock time from the call to the first launch: the checks, the
    /// kernels' lookups, the allocations and the x·log2(x) table's upload.
    pub setup_ms: f64,
    /// Alleles the model search's kernels read (Σ loci × N over scored groups).
    pub alleles: f64,
}

/// The kernels and buffers of runs of one (N, ℓ).
struct Buffers {
    pop: CudaSlice<u64>,
    fitness: CudaSlice<u32>,
    winners: CudaSlice<u32>,
    /// PERM_BATCH rows of P keys: sorted (`keys`) and by bucket (`scratch`).
    keys: CudaSlice<u64>,
    scratch: CudaSlice<u64>,
    /// PERM_BATCH rows of 2^bits buckets: sizes, first places, fill cursors.
    counts: CudaSlice<u32>,
    starts: CudaSlice<u32>,
    cursors: CudaSlice<u32>,
    loci: CudaSlice<i32>,
    pos_group: CudaSlice<i32>,
    flag: CudaSlice<u32>,
    ones: CudaSlice<u64>,
}

/// What [`run`] shows each generation: the selected population's words
/// (packed by locus) and the model built from them.
pub type Observer<'o> = &'o mut dyn FnMut(&[u64], &ModelTrace);

/// Runs ECGA on `trap` wholly on `gpu`: `cfg.randomness` must be
/// [`Randomness::Counter`]. `observe` sees each generation's selected
/// population (its words, downloaded only when it is given) and model.
pub fn run(gpu: &Gpu, trap: &Trap, cfg: &EcgaConfig, seed: u64, mut observe: Option<Observer>) -> Result<DeviceRun> {
    let start = Instant::now();
    let (n, ell) = (cfg.n, trap.ell());
    ensure!(
        cfg.randomness == Randomness::Counter,
        "the device run draws counter-based random numbers; the config asks for {}",
        cfg.randomness.name()
    );
    ensure!(
        n > 0 && ell > 0 && cfg.tournament >= 1 && cfg.tournament <= n,
        "ECGA on the device: need N > 0, ℓ > 0 and 1 ≤ s ≤ N (N = {n}, ℓ = {ell}, s = {})",
        cfg.tournament
    );
    ensure!(n < 1 << 31 && ell <= MAX_ELL, "ECGA on the device takes N < 2^31 and ℓ ≤ {MAX_ELL} (N = {n}, ℓ = {ell})");
    ensure!(cfg.max_generations < 1 << 32, "generation guard {} past the counter's 32 bits", cfg.max_generations);
    ensure!(cfg.max_l <= KERNEL_MAX_L, "the device search takes MAX_L ≤ {KERNEL_MAX_L}, got {}", cfg.max_l);
    let (free, _) = gpu.ctx.mem_get_info().map_err(launch_err("ECGA device memory"))?;
    check_fits(n, ell, cfg.max_l, free)?;

    let e = launch_err("ecga_run");
    let stream = &gpu.stream;
    let func = |name: &str| gpu.function(&ECGA_RUN_CU, name);
    let (init, fitness_k, count_k, scan_k, scatter_k, rank_k, winners_k, gather, ones_k, converged_k) = (
        func("ecga_run_init")?,
        func("ecga_run_fitness")?,
        func("ecga_run_bucket_count")?,
        func("ecga_run_bucket_scan")?,
        func("ecga_run_bucket_scatter")?,
        func("ecga_run_bucket_rank")?,
        func("ecga_run_winners")?,
        func("ecga_run_gather")?,
        func("ecga_run_ones")?,
        func("ecga_run_converged")?,
    );
    let xlogx = XLogX::new(n);
    let mut scorer = GpuScorer::new(gpu)?;
    scorer.prepare_resident(n, ell, &xlogx)?;
    let wpl = n.div_ceil(64);
    let p = padded(n);
    let bits = bucket_bits(p);
    let mut b = Buffers {
        pop: stream.alloc_zeros(ell * wpl).map_err(&e)?,
        fitness: stream.alloc_zeros(n).map_err(&e)?,
        winners: stream.alloc_zeros(n).map_err(&e)?,
        keys: stream.alloc_zeros(PERM_BATCH * p).map_err(&e)?,
        scratch: stream.alloc_zeros(PERM_BATCH * p).map_err(&e)?,
        counts: stream.alloc_zeros(PERM_BATCH << bits).map_err(&e)?,
        starts: stream.alloc_zeros(PERM_BATCH << bits).map_err(&e)?,
        cursors: stream.alloc_zeros(PERM_BATCH << bits).map_err(&e)?,
        loci: stream.alloc_zeros(ell).map_err(&e)?,
        pos_group: stream.alloc_zeros(ell).map_err(&e)?,
        flag: stream.alloc_zeros(1).map_err(&e)?,
        ones: stream.alloc_zeros(1).map_err(&e)?,
    };
    let (ni, elli, wpli, pi, si) = (n as i32, ell as i32, wpl as i32, p as i32, cfg.tournament as i32);
    let (seed_lo, seed_hi) = (seed as u32, (seed >> 32) as u32);
    let (k, m) = (trap.k as i32, trap.m as i32);
    let grid = |items: usize| LaunchConfig {
        grid_dim: (items.div_ceil(THREADS as usize) as u32, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let grid2 = |items: usize, y: usize| LaunchConfig { grid_dim: (items.div_ceil(THREADS as usize) as u32, y as u32, 1), ..grid(items) };
    let ev = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(launch_err("ecga_run events"));
    let events: Vec<CudaEvent> = (0..6).map(|_| ev()).collect::<Result<_, _>>()?;
    let mut phases = PhaseTimes::default();

    // SAFETY (every launch below): the buffers were allocated above for this
    // (N, ℓ): pop and the scorer's words ℓ·wpl words, fitness and winners N,
    // keys and scratch PERM_BATCH rows of P, counts, starts and cursors
    // PERM_BATCH rows of 2^bits, loci and pos_group ℓ; each kernel bounds its
    // threads by the sizes it is passed (kernels/ecga_run.cu), and every index
    // it reads from a buffer (winners, sorted keys, loci, groups) is one the
    // earlier kernels wrote below those sizes.
    macro_rules! launch {
        ($f:expr, $cfg:expr, $($arg:expr),*) => {{
            let mut l = stream.launch_builder(&$f);
            $( l.arg($arg); )*
            unsafe { l.launch($cfg) }.map_err(&e)?;
        }};
    }
    // Rows 0 .. rows of b.keys: permutations round0 .. round0 + rows of
    // `stream_id` in `generation`, sorted by buckets (kernels/ecga_run.cu).
    let bits_i = bits as i32;
    let permutations = |b: &mut Buffers, rows: usize, generation: u32, stream_id: u32, round0: u32| -> Result<()> {
        stream.memset_zeros(&mut b.counts).map_err(&e)?;
        let keys_grid = grid2(n, rows);
        launch!(count_k, keys_grid, &mut b.counts, &ni, &bits_i, &generation, &stream_id, &round0, &seed_lo, &seed_hi);
        let scan = LaunchConfig { grid_dim: (rows as u32, 1, 1), block_dim: (SCAN_THREADS, 1, 1), shared_mem_bytes: 0 };
        launch!(scan_k, scan, &b.counts, &mut b.starts, &mut b.cursors, &bits_i);
        launch!(
            scatter_k,
            keys_grid,
            &mut b.scratch,
            &mut b.cursors,
            &ni,
            &pi,
            &bits_i,
            &generation,
            &stream_id,
            &round0,
            &seed_lo,
            &seed_hi
        );
        let rank = LaunchConfig {
            grid_dim: ((1usize << bits).div_ceil(RANK_WARPS) as u32, rows as u32, 1),
            block_dim: (32 * RANK_WARPS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        launch!(rank_k, rank, &b.scratch, &b.starts, &b.counts, &mut b.keys, &pi, &bits_i);
        Ok(())
    };

    let setup_ms = start.elapsed().as_secs_f64() * 1e3;
    events[0].record(stream).map_err(&e)?;
    launch!(init, grid(ell * wpl), &mut b.pop, &ni, &elli, &wpli, &seed_lo, &seed_hi);
    launch!(fitness_k, grid(n), &b.pop, &mut b.fitness, &ni, &wpli, &k, &m);
    events[1].record(stream).map_err(&e)?;
    stream.synchronize().map_err(&e)?;
    phases.init_ms = f64::from(events[0].elapsed_ms(&events[1]).map_err(&e)?);

    let q = n / cfg.tournament;
    let rounds = counter::selection_rounds(n, cfg.tournament);
    let mut history = Vec::new();
    let mut model_building = Duration::ZERO;
    let converged = loop {
        events[0].record(stream).map_err(&e)?;
        stream.memset_zeros(&mut b.flag).map_err(&e)?;
        launch!(converged_k, grid(ell * wpl), &b.pop, &ni, &elli, &wpli, &mut b.flag);
        let mut differs = [0u32];
        stream.memcpy_dtoh(&b.flag, &mut differs).map_err(&e)?;
        events[1].record(stream).map_err(&e)?;
        if differs[0] == 0 {
            break true;
        }
        if history.len() == cfg.max_generations {
            break false;
        }
        let generation = history.len() as u32;

        // Selection: the permutations in batches, each batch's tournaments, then
        // the selected population gathered into the scorer's buffer.
        for r0 in (0..rounds).step_by(PERM_BATCH) {
            let r1 = (r0 + PERM_BATCH).min(rounds);
            let (r0i, r1i, qi, r0u) = (r0 as i32, r1 as i32, q as i32, r0 as u32);
            permutations(&mut b, r1 - r0, generation, counter::STREAM_SELECTION, r0u)?;
            let chosen = (r1 * q).min(n) - r0 * q;
            launch!(winners_k, grid(chosen), &b.keys, &b.fitness, &mut b.winners, &ni, &pi, &si, &qi, &r0i, &r1i);
        }
        let (zero, one) = (0i32, 1i32);
        {
            let selected = scorer.resident_words()?;
            launch!(
                gather,
                grid2(64 * wpl, ell),
                &b.pop,
                &mut *selected,
                &b.winners,
                &b.keys,
                &b.loci,
                &b.pos_group,
                &zero,
                &zero,
                &zero,
                &ni,
                &wpli,
                &pi
            );
            stream.memset_zeros(&mut b.ones).map_err(&e)?;
            let count = ell * wpl;
            let blocks = count.div_ceil(THREADS as usize).min(1024);
            launch!(ones_k, LaunchConfig { grid_dim: (blocks as u32, 1, 1), ..grid(1) }, &*selected, &count, &mut b.ones);
        }
        events[2].record(stream).map_err(&e)?;

        let building = Instant::now();
        let trace = scorer.search_loaded(cfg.search, ell, cfg.max_l)?;
        model_building += building.elapsed();
        events[3].record(stream).map_err(&e)?;
        let mut ones = [0u64];
        stream.memcpy_dtoh(&b.ones, &mut ones).map_err(&e)?;
        if let Some(observe) = observe.as_deref_mut() {
            let mut words = vec![0u64; ell * wpl];
            stream.memcpy_dtoh(&*scorer.resident_words()?, &mut words).map_err(&e)?;
            observe(&words, &trace);
        }
        history.push(GenerationStats {
            model_quality: ecga::model_quality(trap, &trace.mpm),
            ones_ratio: ones[0] as f64 / (n * ell) as f64,
            pairs_scored: trace.pairs_scored,
            model_steps: trace.steps,
            groups: trace.mpm.groups.len(),
            ccc: trace.ccc,
        });

        // Sampling: the MPM's loci group by group; each batch of groups keys
        // and sorts its permutations, then gathers the offspring's loci.
        let loci: Vec<i32> = trace.mpm.groups.iter().flatten().map(|&l| l as i32).collect();
        let pos_group: Vec<i32> =
            trace.mpm.groups.iter().enumerate().flat_map(|(g, group)| std::iter::repeat_n(g as i32, group.len())).collect();
        ensure!(loci.len() == ell, "the model's groups hold {} loci, ℓ = {ell}", loci.len());
        stream.memcpy_htod(&loci, &mut b.loci).map_err(&e)?;
        stream.memcpy_htod(&pos_group, &mut b.pos_group).map_err(&e)?;
        let starts: Vec<usize> = trace.mpm.groups.iter().scan(0, |at, g| Some(std::mem::replace(at, *at + g.len()))).collect();
        let groups = trace.mpm.groups.len();
        for g0 in (0..groups).step_by(PERM_BATCH) {
            let g1 = (g0 + PERM_BATCH).min(groups);
            let (p0, p1) = (starts[g0], if g1 == groups { ell } else { starts[g1] });
            let (g0u, g0i, p0i) = (g0 as u32, g0 as i32, p0 as i32);
            permutations(&mut b, g1 - g0, generation, counter::STREAM_SAMPLING, g0u)?;
            let selected = scorer.resident_words()?;
            launch!(
                gather,
                grid2(64 * wpl, p1 - p0),
                &*selected,
                &mut b.pop,
                &b.winners,
                &b.keys,
                &b.loci,
                &b.pos_group,
                &one,
                &p0i,
                &g0i,
                &ni,
                &wpli,
                &pi
            );
        }
        events[4].record(stream).map_err(&e)?;
        launch!(fitness_k, grid(n), &b.pop, &mut b.fitness, &ni, &wpli, &k, &m);
        events[5].record(stream).map_err(&e)?;
        stream.synchronize().map_err(&e)?;
        let ms = |a: usize, z: usize| -> Result<f64> { Ok(f64::from(events[a].elapsed_ms(&events[z]).map_err(&e)?)) };
        phases.convergence_ms += ms(0, 1)?;
        phases.selection_ms += ms(1, 2)?;
        phases.model_ms += ms(2, 3)?;
        phases.sampling_ms += ms(3, 4)?;
        phases.evaluation_ms += ms(4, 5)?;
    };
    phases.convergence_ms += f64::from(events[0].elapsed_ms(&events[1]).map_err(&e)?);

    // The final population and its fitness come back once.
    let mut words = vec![0u64; ell * wpl];
    let mut fitness = vec![0u32; n];
    stream.memcpy_dtoh(&b.pop, &mut words).map_err(&e)?;
    stream.memcpy_dtoh(&b.fitness, &mut fitness).map_err(&e)?;
    let allele = |i: usize, l: usize| (words[l * wpl + i / 64] >> (i % 64)) as u8 & 1;
    let best = (0..n).fold(0, |best, i| if fitness[i] > fitness[best] { i } else { best });
    let best_row: Vec<u8> = (0..ell).map(|l| allele(best, l)).collect();
    // Each locus's ones by popcount of its words (padding bits are zero).
    let consensus: Vec<u8> =
        words.chunks_exact(wpl).map(|locus| u8::from(2 * locus.iter().map(|w| w.count_ones() as usize).sum::<usize>() > n)).collect();
    if fitness[best] != trap.fitness(&best_row) {
        bail!("device fitness {} of individual {best} differs from its trap value {}", fitness[best], trap.fitness(&best_row));
    }
    let result = RunResult {
        generations: history.len(),
        best_fitness: fitness[best],
        best_solved: trap.solved(&best_row),
        consensus_solved: trap.solved(&consensus),
        converged,
        model_building,
        total: start.elapsed(),
        history,
    };
    let alleles = scorer.device_stats().map_or(0.0, |s| s.alleles);
    Ok(DeviceRun { result, phases, setup_ms, alleles })
}

/// One run compared by [`self_check`].
#[derive(Clone, Debug)]
pub struct CheckLine {
    pub n: usize,
    pub ell: usize,
    pub search: &'static str,
    pub seed: u64,
    pub generations: usize,
    /// First generation whose selected population (hash of its words) or model
    /// differed from the CPU run's, if any.
    pub first_difference: Option<usize>,
    /// Whether the results (generations, best, consensus, convergence and the
    /// statistics of every generation) were equal.
    pub result_identical: bool,
}

/// Whole runs on the device against `library::ecga::run` with
/// [`Randomness::Counter`] on the CPU: for each (m, N) a trap-5 of m blocks,
/// both searches, fresh seeds; the selected population and the model of every
/// generation and the result must be identical.
pub fn self_check(gpu: &Gpu, seed: u64, sizes: &[(usize, usize)]) -> Result<Vec<CheckLine>> {
    use crate::library::ecga::{ParallelCpuScorer, Popcount, PrefixFastCount, Search, population_hash};
    let mut lines = Vec::new();
    for (c, &(m, n)) in sizes.iter().enumerate() {
        let trap = Trap { k: 5, m };
        for (s, search) in [Search::Greedy, Search::GreedyMating].into_iter().enumerate() {
            let run_seed = seed.wrapping_add((2 * c + s) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let cfg = EcgaConfig { randomness: Randomness::Counter, ..EcgaConfig::paper(trap.ell(), n, search) };
            let mut cpu_gens: Vec<(u64, ModelTrace)> = Vec::new();
            let mut scorer = ParallelCpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware });
            let cpu = ecga::run_observed(&trap, &cfg, run_seed, &mut scorer, &mut |pop, t| {
                cpu_gens.push((population_hash(&pop.packed().words), t.clone()))
            })?;
            let mut dev_gens: Vec<(u64, ModelTrace)> = Vec::new();
            let dev =
                run(gpu, &trap, &cfg, run_seed, Some(&mut |w: &[u64], t: &ModelTrace| dev_gens.push((population_hash(w), t.clone()))))?;
            let first_difference = (0..cpu_gens.len().max(dev_gens.len())).find(|&g| cpu_gens.get(g) != dev_gens.get(g));
            let strip = |mut r: RunResult| {
                r.model_building = Duration::ZERO;
                r.total = Duration::ZERO;
                r
            };
            lines.push(CheckLine {
                n,
                ell: trap.ell(),
                search: search.name(),
                seed: run_seed,
                generations: cpu.generations,
                first_difference,
                result_identical: strip(cpu) == strip(dev.result),
            });
        }
    }
    Ok(lines)
}

/// Sizes (m trap-5 blocks, N) for [`self_check`]: `small` for compute-sanitizer.
/// N not a multiple of 64 or of s = 8; rows of one bucket (N = 50) and of 2^6
/// and 2^9 (P = 4,096 and 32,768); more than one batch of sampling
/// permutations (m = 80: ≥ 80 groups early on).
pub fn self_check_sizes(small: bool) -> Vec<(usize, usize)> {
    let mut v = vec![(2, 50), (4, 300), (6, 3001), (2, 20_001)];
    if !small {
        v.extend([(10, 2100), (16, 4500), (80, 3000)]);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `kernels/ecga_run.cu` defines `name` as `value`.
    fn defines(name: &str, value: &str) -> bool {
        ECGA_RUN_CU.code.lines().any(|l| {
            let mut w = l.split_whitespace();
            w.next() == Some("#define") && w.next() == Some(name) && w.next() == Some(value)
        })
    }

    #[test]
    fn constants_match_the_kernel_and_the_library() {
        assert!(defines("SCAN_THREADS", &SCAN_THREADS.to_string()));
        assert!(defines("RANK_WARPS", &RANK_WARPS.to_string()));
        for (name, value) in [
            ("STREAM_INIT", counter::STREAM_INIT),
            ("STREAM_SELECTION", counter::STREAM_SELECTION),
            ("STREAM_SAMPLING", counter::STREAM_SAMPLING),
        ] {
            assert!(defines(name, &format!("{value}u")), "kernels/ecga_run.cu lacks `#define {name} {value}u`");
        }
    }

    /// The kernels' bucket sort of one row on the host: count, scan, scatter
    /// (in reverse, as any order within a bucket must do), rank.
    fn bucket_sort(keys: &[u64], p: usize) -> Vec<u64> {
        let bits = bucket_bits(p);
        let bucket = |k: u64| if bits == 0 { 0 } else { (k >> (64 - bits)) as usize };
        let mut counts = vec![0usize; 1 << bits];
        keys.iter().for_each(|&k| counts[bucket(k)] += 1);
        let starts: Vec<usize> = counts.iter().scan(0, |at, c| Some(std::mem::replace(at, *at + c))).collect();
        let mut cursors = starts.clone();
        let mut scratch = vec![u64::MAX; p];
        for &k in keys.iter().rev() {
            scratch[cursors[bucket(k)]] = k;
            cursors[bucket(k)] += 1;
        }
        let mut out = vec![u64::MAX; keys.len()];
        for (b, (&start, &size)) in starts.iter().zip(&counts).enumerate() {
            let run = &scratch[start..start + size];
            for &k in run {
                assert_eq!(bucket(k), b);
                out[start + run.iter().filter(|&&o| o < k).count()] = k;
            }
        }
        out
    }

    #[test]
    fn bucket_sort_gives_counter_permutations() {
        for n in [1, 2, 3, 63, 100, 2049, 20_001, 60_775] {
            let p = padded(n);
            let keys: Vec<u64> = (0..n).map(|i| counter::key(4, 3, counter::STREAM_SAMPLING, i, 2)).collect();
            let perm: Vec<u32> = bucket_sort(&keys, p).iter().map(|&k| k as u32).collect();
            assert_eq!(perm, counter::permutation(n, 4, 3, counter::STREAM_SAMPLING, 2), "n = {n}");
        }
        // 64 keys a bucket on the mean: 2^10 buckets for N = 60,775, one for N ≤ 127.
        assert_eq!(bucket_bits(1 << 16), 10);
        assert_eq!(bucket_bits(128), 1);
        assert_eq!(bucket_bits(64), 0);
        assert_eq!(bucket_bits(2), 0);
    }

    #[test]
    fn memory_check_names_n_ell_and_both_sizes() {
        let (n, ell) = (60_775, 500);
        let need = run_bytes(n, ell, 10);
        // Two populations of ℓ·⌈N/64⌉ words, the keys of 64 permutations of 2^16 and their scratch, 3 words for
        // each of their 2^10 buckets, and the search's cache.
        let perms = 2 * 8 * 64 * 65_536 + 3 * 4 * 64 * 1024;
        assert_eq!(need, 2 * 8 * 500 * 950 + 8 * 60_775 + perms + 8 * 500 + 8 * 60_776 + search_bytes(500, 10) + 64);
        assert!(check_fits(n, ell, 10, need).is_ok());
        let err = check_fits(n, ell, 10, need - 1).unwrap_err().to_string();
        for part in ["N = 60775", "ℓ = 500", &format!("needs {need} bytes"), &format!("has {} bytes", need - 1)] {
            assert!(err.contains(part), "{err:?} lacks {part:?}");
        }
        assert_eq!(padded(1), 2);
        assert_eq!(padded(60_775), 1 << 16);
    }
}
