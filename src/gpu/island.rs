//! The island GA of Jaros 2012 on one GPU (Section V), every phase a kernel of `kernels/island.cu`, checked against
//! the CPU reference [`crate::library::island`]. [`GpuIslands`] evolves exactly as [`Islands`] does, bit for bit:
//! the kernels draw the same Philox numbers at the same counters and follow the same tie, migration-order and padding
//! rules (the reference's module documentation is the specification).
//!
//! # Kernels (Section V)
//! Each phase is its own launch (the paper's global synchronisation between phases), and all islands of the GPU go
//! into the same launches: warp `k` of the grid takes work item `k`, island-major. Blocks are 256 threads, eight
//! warps, as the paper's 32 × 8 blocks (Section V.B).
//! - `island_initialise`: one warp per individual (`I·N` warps), the initial genes.
//! - `island_genetic_manipulation` (V.B): one warp per offspring pair (`I·M/2`): binary tournaments drawn by every
//!   lane alike, uniform crossover (eq. 1) and bit-flip mutation (eq. 2), lane `l` building words `l, l + 32, …` of
//!   both children.
//! - `island_evaluate` (V.C): one warp per chromosome (`I·M` offspring; `I·N` parents at the start), 1,024 items per
//!   round, 64-bit sums reduced by shuffles, the penalty applied by lane 0.
//!
//! These two are the paper's mapping ([`Design::Paper`]); [`Design::Split`] gives one pair as many warps as its
//! chromosome has 32-word chunks (each lane one word) and one chromosome up to eight warps (`island_evaluate_split`,
//! their sums added in shared memory), so that a small island still fills the GPU. Both draw the same numbers: the populations are
//! identical.
//! - `island_replace` (V.D): one warp per parent slot (`I·N`).
//! - `island_select_emigrants` (V.E.1): one warp per emigrant (`I·m`), emigrant 0 the island's best.
//! - `island_merge_immigrants` (V.E.3): one block per receiving island (`I`), taking its immigrants in the
//!   reference's order — the deterministic equivalent of the paper's per-individual locks — [`MERGE_CHUNK`] at a
//!   time: the block draws the chunk's tournaments, one thread decides them in order on the fitness values, and the
//!   warps copy the genomes that stay (a chunk's later immigrant may displace an earlier one from its slot).
//!
//! With every island on one GPU the ring of Section V.E is a device buffer: emigrants are not staged through the
//! host. Statistics (V.F) are computed on the host from the downloaded fitness values and the best chromosome, with
//! the reference's formulas in the reference's order, so they agree exactly.
//!
//! # Timing
//! CUDA events before genetic manipulation and after each phase of every generation give the phase times; they are
//! read every [`CLOCK_WINDOW`] generations, so the host keeps launching ahead of the GPU in between. Statistics are
//! timed on the host, after waiting for the generations already launched.

use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use cudarc::driver::{CudaEvent, CudaFunction, CudaSlice, CudaView, LaunchConfig, PushKernelArg, sys::CUevent_flags};

use super::{Gpu, KernelSource, launch_err};
use crate::error::GpuError;
use crate::library::island::{
    Config, Feasibility, Island, Islands, Layout, Parameters, PhaseTimes, Repair, RunResult, Statistics, Threads, TracePoint, Variant,
};
use crate::library::knapsack::{Evaluator, Fitness, Instance, PisingerKind, WORD_BITS, pisinger, pisinger_with_ratio};

/// `kernels/island.cu`.
pub const ISLAND_CU: KernelSource = KernelSource { file: "island.cu", code: include_str!("../../kernels/island.cu") };

/// Warps per block (the paper's blocks of 32 × 8 threads, Section V.B).
pub const WARPS_PER_BLOCK: u32 = 8;
/// Threads per warp.
const WARP: u32 = 32;
/// Philox calls per chromosome word and offspring pair for the mutation masks (`MUTATION_CALLS` there).
pub const MUTATION_CALLS: u32 = 16;
/// How genetic manipulation and evaluation map work to warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// A warp per offspring pair and per chromosome (Section V.B–C).
    Paper,
    /// Warps per pair and per chromosome as its 32-word chunks (up to 8 per chromosome).
    Split,
    /// Split, with each pair's children evaluated by the block that builds them (`island_manipulate_evaluate`, up to
    /// [`FUSED_WARPS`] warps per pair): no evaluation launch. Beyond the paper (issue #25). A variant that repairs the
    /// offspring repairs them between the two phases, so it runs as [`Design::Split`].
    Fused,
}

impl Design {
    /// Warps per offspring pair of genetic manipulation and per chromosome of evaluation (a divisor of
    /// [`EVALUATE_WARPS`]) for chromosomes of `words` words.
    fn warps(self, words: u32) -> (u32, u32) {
        match self {
            Design::Paper => (1, 1),
            Design::Split | Design::Fused => {
                let chunks = (words / WARP).max(1);
                let per_chromosome = (1..=EVALUATE_WARPS.min(chunks)).rev().find(|&w| EVALUATE_WARPS.is_multiple_of(w)).unwrap_or(1);
                (if self == Design::Fused { chunks.min(FUSED_WARPS) } else { chunks }, per_chromosome)
            }
        }
    }
}

/// Most warps of a block of `island_manipulate_evaluate` (`FUSED_WARPS` there): one block per offspring pair.
pub const FUSED_WARPS: u32 = 32;
/// Warps of a block of `island_evaluate_split` (`EVALUATE_WARPS` there).
pub const EVALUATE_WARPS: u32 = 8;
/// Immigrants decided per round of `island_merge_immigrants`, one per thread of its block (`MERGE_CHUNK` there).
pub const MERGE_CHUNK: u32 = 256;
/// Generations whose phase events are recorded before their times are read (reading waits for the GPU).
pub const CLOCK_WINDOW: usize = 64;

/// One warp per work item: `warps` warps in blocks of [`WARPS_PER_BLOCK`] warps.
pub fn warp_launch(warps: u64) -> Result<LaunchConfig> {
    let blocks = warps.div_ceil(u64::from(WARPS_PER_BLOCK));
    ensure!((1..=i32::MAX as u64).contains(&blocks), "{warps} warps do not fit one launch grid");
    Ok(LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (WARPS_PER_BLOCK * WARP, 1, 1), shared_mem_bytes: 0 })
}

/// Offspring per generation `M = 2·⌈⌊N/2⌋/2⌉` of an island of `island_size` (as [`Parameters`]).
fn offspring_size(island_size: usize) -> usize {
    2 * (island_size / 2).div_ceil(2)
}

/// Device bytes of a run: per island the parents, the offspring and the emigrant buffer (packed genomes of the
/// padded length and 64-bit fitness values), plus the price and weight tables padded to the chromosome length.
pub fn device_bytes(items: usize, island_size: usize, islands: usize, emigrants: usize) -> u128 {
    let words = Layout::new(items).words as u128;
    let individuals = islands as u128 * (island_size + offspring_size(island_size) + emigrants) as u128;
    individuals * (4 * words + 8) + 2 * 4 * words * WORD_BITS as u128
}

/// Device-memory bytes one generation of `islands` islands of `island_size` on `items` items moves at least: the
/// lower bound that a measured bandwidth turns into a time. With `L` the padded chromosome length and `L'` the words
/// that hold items (both in 4-byte words), `M` offspring in `M/2` pairs, it counts per island
/// - genetic manipulation: per pair, the two parents' item words read (`2·L'·4`), both children written (`2·L·4`)
///   and the four tournament fitness values read (`4·8`);
/// - evaluation: per offspring, its chromosome read (`L·4`) and its fitness written (8);
/// - replacement: per parent slot, its fitness and its offspring's read (`2·8`);
///
/// and the price and weight tables once for all islands (`2·4` per item: they stay in the L2 cache). Not counted:
/// genomes that replacement copies (data-dependent, at most `N·L·8` per island), migration (every
/// `migration_interval` generations), statistics, and random numbers (computed, not loaded).
pub fn bytes_per_generation(items: usize, island_size: usize, islands: usize) -> u64 {
    let layout = Layout::new(items);
    let (words, item_words) = (layout.words as u64, layout.item_words as u64);
    let (n, m) = (island_size as u64, offspring_size(island_size) as u64);
    let manipulation = m / 2 * (2 * item_words * 4 + 2 * words * 4 + 4 * 8);
    let evaluation = m * (words * 4 + 8);
    let replacement = n * 2 * 8;
    islands as u64 * (manipulation + evaluation + replacement) + 2 * 4 * items as u64
}

/// The sizes the kernels take, as their 32-bit arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dims {
    islands: u32,
    island_size: u32,
    offspring_size: u32,
    pairs: u32,
    emigrants: u32,
    words: u32,
    item_words: u32,
    /// Item bits of the last item word.
    last_mask: u32,
}

impl Dims {
    fn new(config: &Config, parameters: &Parameters) -> Result<Dims> {
        let narrow = |what: &str, value: usize| u32::try_from(value).with_context(|| format!("{what} = {value} exceeds 32 bits"));
        let layout = parameters.layout;
        Ok(Dims {
            islands: narrow("islands", config.islands)?,
            island_size: narrow("island_size", config.island_size)?,
            offspring_size: narrow("offspring", parameters.offspring_size)?,
            pairs: narrow("offspring pairs", parameters.offspring_size / 2)?,
            emigrants: narrow("emigrants", config.emigrants())?,
            words: narrow("chromosome words", layout.words)?,
            item_words: narrow("item words", layout.item_words)?,
            last_mask: layout.word_mask(layout.item_words - 1),
        })
    }

    /// `per_island` work items on every island.
    fn all(&self, per_island: u32) -> u64 {
        u64::from(self.islands) * u64::from(per_island)
    }
}

/// The kernels, compiled when [`GpuIslands`] is built.
struct Kernels {
    initialise: CudaFunction,
    genetic_manipulation: CudaFunction,
    manipulate_evaluate: CudaFunction,
    evaluate: CudaFunction,
    evaluate_split: CudaFunction,
    replace: CudaFunction,
    repair: CudaFunction,
    select_emigrants: CudaFunction,
    merge_immigrants: CudaFunction,
}

impl Kernels {
    fn load(gpu: &Gpu) -> Result<Kernels, GpuError> {
        let function = |name: &str| gpu.function(&ISLAND_CU, name);
        Ok(Kernels {
            initialise: function("island_initialise")?,
            genetic_manipulation: function("island_genetic_manipulation")?,
            manipulate_evaluate: function("island_manipulate_evaluate")?,
            evaluate: function("island_evaluate")?,
            evaluate_split: function("island_evaluate_split")?,
            replace: function("island_replace")?,
            repair: function("island_repair")?,
            select_emigrants: function("island_select_emigrants")?,
            merge_immigrants: function("island_merge_immigrants")?,
        })
    }
}

/// Phase times from CUDA events: per generation, one before genetic manipulation and one after each phase (after
/// migration only when it migrated; none after evaluation where manipulation evaluates, whose evaluation time is then
/// part of manipulation's); read and summed every [`CLOCK_WINDOW`] generations.
struct PhaseClock {
    events: Vec<[CudaEvent; 5]>,
    /// Genetic manipulation evaluates the offspring ([`Design::Fused`]): no event after evaluation.
    fused: bool,
    migrated: [bool; CLOCK_WINDOW],
    /// Generations recorded and not yet read.
    pending: usize,
    times: PhaseTimes,
}

impl PhaseClock {
    fn new(gpu: &Gpu, fused: bool) -> Result<PhaseClock, GpuError> {
        let e = launch_err("island phase events");
        let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(&e);
        let events = (0..CLOCK_WINDOW).map(|_| Ok([event()?, event()?, event()?, event()?, event()?])).collect::<Result<_, GpuError>>()?;
        Ok(PhaseClock { events, fused, migrated: [false; CLOCK_WINDOW], pending: 0, times: PhaseTimes::default() })
    }

    /// Adds the phase times of the pending generations (waits for them).
    fn collect(&mut self) -> Result<(), GpuError> {
        let e = launch_err("island phase events");
        let span = |from: &CudaEvent, to: &CudaEvent| {
            from.elapsed_ms(to).map(|ms| Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3)).map_err(&e)
        };
        for (events, &migrated) in self.events.iter().zip(&self.migrated).take(self.pending) {
            self.times.genetic_manipulation += span(&events[0], &events[1])?;
            let evaluated = if self.fused { &events[1] } else { &events[2] };
            self.times.evaluation += span(&events[1], evaluated)?;
            self.times.replacement += span(evaluated, &events[3])?;
            if migrated {
                self.times.migration += span(&events[3], &events[4])?;
            }
        }
        self.pending = 0;
        Ok(())
    }
}

/// Which chromosomes [`GpuIslands::evaluate`] scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pool {
    Parents,
    Offspring,
}

/// One island's arrays copied to the host, laid out as the reference's [`crate::library::island::Island`] holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IslandState {
    /// Parents, packed chromosome-major (`island_size × words`).
    pub population: Vec<u32>,
    /// Parent fitness values.
    pub fitness: Vec<Fitness>,
    /// Offspring of the last genetic manipulation (`offspring_size × words`; zero before the first).
    pub offspring: Vec<u32>,
    /// Their fitness values (zero before the first evaluation).
    pub offspring_fitness: Vec<Fitness>,
}

/// All islands of a run on one GPU: parents, offspring and emigrants of every island in device buffers, island after
/// island (Section IV.A).
pub struct GpuIslands<'g> {
    gpu: &'g Gpu,
    /// This GPU's islands (`islands` is their count here).
    config: Config,
    /// The whole ring's configuration: when it migrates (a part of one island still migrates with the ring).
    ring: Config,
    parameters: Parameters,
    dims: Dims,
    seed_low: u32,
    seed_high: u32,
    /// The ring's index of this GPU's first island (its Philox key; 0 where one GPU holds the ring).
    island_base: u32,
    /// Warps per offspring pair and per evaluated chromosome ([`Design::warps`]).
    pair_warps: u32,
    chromosome_warps: u32,
    /// Genetic manipulation evaluates the offspring ([`Design::Fused`] without offspring repair).
    fused: bool,
    capacity: u64,
    ratio: u64,
    kernels: Kernels,
    /// Item prices and weights, zero-padded to `words · 32` entries.
    prices: CudaSlice<u32>,
    weights: CudaSlice<u32>,
    /// Price and weight of each item interleaved (`island_manipulate_evaluate`'s one load per item), padded alike.
    items: CudaSlice<u32>,
    /// The variants' repair order (`Repair::order`, then one padding entry so that it is never empty) and its length.
    repair_order: CudaSlice<u32>,
    repair_items: u32,
    population: CudaSlice<u32>,
    fitness: CudaSlice<Fitness>,
    offspring: CudaSlice<u32>,
    offspring_fitness: CudaSlice<Fitness>,
    /// Emigrants of every island, island after island (`emigrants` each).
    emigrant_genomes: CudaSlice<u32>,
    emigrant_fitness: CudaSlice<Fitness>,
    clock: PhaseClock,
}

impl<'g> GpuIslands<'g> {
    /// The initial islands of `config` on `evaluator`'s instance, built and evaluated on the GPU (`config.threads` is
    /// ignored), with kernels of `design`. Compiles the kernels first, so that no timed generation pays for NVRTC.
    pub fn new(gpu: &'g Gpu, evaluator: &Evaluator<'_>, config: &Config, design: Design) -> Result<GpuIslands<'g>> {
        GpuIslands::part(gpu, evaluator, config, design, 0, config.islands)
    }

    /// Islands `first..first + count` of the ring of `ring` on this GPU (a part of a [`super::island_ring::Ring`]):
    /// its buffers hold them alone, their random numbers are keyed by their places in the ring.
    pub(super) fn part(
        gpu: &'g Gpu,
        evaluator: &Evaluator<'_>,
        ring: &Config,
        design: Design,
        first: usize,
        count: usize,
    ) -> Result<GpuIslands<'g>> {
        ensure!(count > 0 && first + count <= ring.islands, "islands {first}..{} of a ring of {}", first + count, ring.islands);
        let config = &Config { islands: count, ..*ring };
        let instance = evaluator.instance();
        let parameters = Parameters::new(instance, config)?;
        let dims = Dims::new(config, &parameters)?;
        let (pair_warps, chromosome_warps) = design.warps(dims.words);
        let fused = design == Design::Fused && !parameters.variant.repairs_offspring();
        let kernels = Kernels::load(gpu)?;
        let bytes = device_bytes(instance.item_count(), config.island_size, config.islands, config.emigrants());
        gpu.ensure_fits(
            &format!("{} islands of {} individuals on {} items", config.islands, config.island_size, instance.item_count()),
            usize::try_from(bytes).unwrap_or(usize::MAX),
        )?;
        let e = launch_err("island buffers");
        let stream = &gpu.stream;
        let words = parameters.layout.words;
        // `per_item` values an item (one, or two interleaved), zero-padded to the chromosome's `words · 32` items.
        let table = |values: &[u32], per_item: usize| {
            let mut padded = values.to_vec();
            padded.resize(words * WORD_BITS * per_item, 0);
            stream.clone_htod(&padded).map_err(&e)
        };
        let (parents, offspring, emigrants) =
            (config.islands * config.island_size, config.islands * parameters.offspring_size, config.islands * config.emigrants());
        let mut order = Repair::new(instance).order().to_vec();
        let repair_items = u32::try_from(order.len()).context("more than 2^32 items to repair")?;
        order.push(0);
        let mut islands = GpuIslands {
            gpu,
            config: *config,
            ring: *ring,
            parameters,
            dims,
            seed_low: config.seed as u32,
            seed_high: (config.seed >> 32) as u32,
            island_base: u32::try_from(first).context("island index exceeds 32 bits")?,
            pair_warps,
            chromosome_warps,
            fused,
            capacity: instance.capacity,
            ratio: evaluator.ratio(),
            kernels,
            prices: table(&instance.prices, 1)?,
            weights: table(&instance.weights, 1)?,
            items: table(&instance.prices.iter().zip(&instance.weights).flat_map(|(&p, &w)| [p, w]).collect::<Vec<_>>(), 2)?,
            repair_order: stream.clone_htod(&order).map_err(&e)?,
            repair_items,
            population: stream.alloc_zeros(parents * words).map_err(&e)?,
            fitness: stream.alloc_zeros(parents).map_err(&e)?,
            offspring: stream.alloc_zeros(offspring * words).map_err(&e)?,
            offspring_fitness: stream.alloc_zeros(offspring).map_err(&e)?,
            emigrant_genomes: stream.alloc_zeros(emigrants * words).map_err(&e)?,
            emigrant_fitness: stream.alloc_zeros(emigrants).map_err(&e)?,
            clock: PhaseClock::new(gpu, fused)?,
        };
        islands.initialise()?;
        islands.evaluate(Pool::Parents)?;
        Ok(islands)
    }

    /// Generation `generation` on every island (genetic manipulation, evaluation, replacement), then migration when
    /// due, as [`Islands::generation`]; launched without waiting. Generations must come in order from 0.
    pub fn generation(&mut self, generation: u32) -> Result<()> {
        self.start_generation(generation)?;
        self.finish_generation(generation, None)
    }

    /// Generation `generation` up to migration's exchange: genetic manipulation, evaluation, replacement, and the
    /// emigrants' selection when migration is due (returned). [`GpuIslands::finish_generation`] completes it.
    pub(super) fn start_generation(&mut self, generation: u32) -> Result<bool> {
        if self.clock.pending == CLOCK_WINDOW {
            self.clock.collect()?;
        }
        self.mark(0)?;
        self.genetic_manipulation(generation)?;
        self.mark(1)?;
        if !self.fused {
            self.evaluate(Pool::Offspring)?;
            self.mark(2)?;
        }
        self.replace(generation)?;
        self.mark(3)?;
        let migrates = self.ring.migrates_after(generation);
        if migrates {
            self.select_emigrants(generation)?;
        }
        self.clock.migrated[self.clock.pending] = migrates;
        Ok(migrates)
    }

    /// Completes the generation started last: when it migrates, the first island merges the emigrants in `incoming`
    /// (from the previous GPU of the ring) or, with `None`, those of this GPU's last island, and every other island
    /// those of the island before it.
    pub(super) fn finish_generation(&mut self, generation: u32, incoming: Option<&Emigrants>) -> Result<()> {
        if self.clock.migrated[self.clock.pending] {
            self.merge_immigrants(generation, incoming)?;
            self.mark(4)?;
        }
        self.clock.pending += 1;
        Ok(())
    }

    /// Records phase point `point` of the generation being launched.
    fn mark(&self, point: usize) -> Result<()> {
        self.clock.events[self.clock.pending][point].record(&self.gpu.stream).map_err(launch_err("island phase events"))?;
        Ok(())
    }

    /// Individuals per island.
    pub(super) fn island_size(&self) -> usize {
        self.config.island_size
    }

    /// Room on this GPU for one island's emigrants, to receive the previous GPU's.
    pub(super) fn emigrants_buffer(&self) -> Result<Emigrants> {
        let e = launch_err("island ring buffers");
        let (m, words) = (self.config.emigrants(), self.parameters.layout.words);
        let stream = &self.gpu.stream;
        Ok(Emigrants { genomes: stream.alloc_zeros(m * words).map_err(&e)?, fitness: stream.alloc_zeros(m).map_err(&e)? })
    }

    /// The emigrants of this GPU's last island (after a generation that migrated): what the next GPU of the ring
    /// merges into its first island.
    pub(super) fn last_emigrants(&self) -> (CudaView<'_, u32>, CudaView<'_, Fitness>) {
        let (m, words) = (self.config.emigrants(), self.parameters.layout.words);
        let last = self.config.islands - 1;
        (self.emigrant_genomes.slice(last * m * words..(last + 1) * m * words), self.emigrant_fitness.slice(last * m..(last + 1) * m))
    }

    /// Time per phase summed over the generations so far (waits for them); `statistics` is zero.
    pub fn phase_times(&mut self) -> Result<PhaseTimes> {
        self.clock.collect()?;
        Ok(self.clock.times)
    }

    /// Every island's parents and offspring with their fitness values (waits for the GPU).
    pub fn download(&self) -> Result<Vec<IslandState>> {
        let e = launch_err("island download");
        let stream = &self.gpu.stream;
        let population = stream.clone_dtoh(&self.population).map_err(&e)?;
        let fitness = stream.clone_dtoh(&self.fitness).map_err(&e)?;
        let offspring = stream.clone_dtoh(&self.offspring).map_err(&e)?;
        let offspring_fitness = stream.clone_dtoh(&self.offspring_fitness).map_err(&e)?;
        stream.synchronize().map_err(&e)?;
        let (words, n, m) = (self.parameters.layout.words, self.config.island_size, self.parameters.offspring_size);
        Ok((0..self.config.islands)
            .map(|i| IslandState {
                population: population[i * n * words..][..n * words].to_vec(),
                fitness: fitness[i * n..][..n].to_vec(),
                offspring: offspring[i * m * words..][..m * words].to_vec(),
                offspring_fitness: offspring_fitness[i * m..][..m].to_vec(),
            })
            .collect())
    }

    /// Per-island and global statistics with the best solution (Section V.F), equal to [`Islands::statistics`] of
    /// the same populations: the fitness values and the best chromosome are downloaded (waits for the GPU).
    pub fn statistics(&self, evaluator: &Evaluator<'_>) -> Result<Statistics> {
        let fitness = self.fitness()?;
        let parts: Vec<&[Fitness]> = fitness.chunks(self.config.island_size).collect();
        Ok(Statistics::of(evaluator, &parts, |island, index| self.chromosome(island, index))?)
    }

    /// Every parent's fitness, island after island (waits for the GPU).
    pub(super) fn fitness(&self) -> Result<Vec<Fitness>, GpuError> {
        let e = launch_err("island statistics");
        let fitness = self.gpu.stream.clone_dtoh(&self.fitness).map_err(&e)?;
        self.gpu.stream.synchronize().map_err(&e)?;
        Ok(fitness)
    }

    /// Parent `index` of this GPU's island `island` (waits for the GPU).
    pub(super) fn chromosome(&self, island: usize, index: usize) -> Result<Vec<u32>, GpuError> {
        let e = launch_err("island statistics");
        let (words, individual) = (self.parameters.layout.words, island * self.config.island_size + index);
        let mut chromosome = vec![0u32; words];
        let stream = &self.gpu.stream;
        stream.memcpy_dtoh(&self.population.slice(individual * words..(individual + 1) * words), &mut chromosome).map_err(&e)?;
        stream.synchronize().map_err(&e)?;
        Ok(chromosome)
    }

    /// Waits for everything launched so far.
    pub(super) fn synchronize(&self) -> Result<()> {
        self.gpu.stream.synchronize().map_err(launch_err("island synchronise"))?;
        Ok(())
    }

    /// The initial population (module documentation of [`crate::library::island`]).
    fn initialise(&mut self) -> Result<()> {
        let d = self.dims;
        let mut l = self.gpu.stream.launch_builder(&self.kernels.initialise);
        l.arg(&mut self.population).arg(&d.islands).arg(&d.island_size).arg(&d.words).arg(&d.item_words).arg(&d.last_mask);
        l.arg(&self.seed_low).arg(&self.seed_high).arg(&self.island_base);
        // SAFETY: warp k < I·N writes words k·L..(k + 1)·L of `population`, allocated with I·N·L words.
        unsafe { l.launch(warp_launch(d.all(d.island_size))?) }.map_err(launch_err("island_initialise"))?;
        Ok(())
    }

    /// Selection, crossover and mutation of every island into its offspring (Section V.B); evaluated as well where
    /// the design is fused.
    fn genetic_manipulation(&mut self, generation: u32) -> Result<()> {
        let d = self.dims;
        let (crossover, mutation) = (self.parameters.crossover_threshold, self.parameters.mutation_threshold);
        if self.fused {
            let mut l = self.gpu.stream.launch_builder(&self.kernels.manipulate_evaluate);
            l.arg(&self.population).arg(&self.fitness).arg(&mut self.offspring).arg(&mut self.offspring_fitness);
            l.arg(&d.pairs).arg(&d.island_size).arg(&d.words).arg(&d.item_words).arg(&d.last_mask);
            l.arg(&crossover).arg(&mutation).arg(&self.seed_low).arg(&self.seed_high).arg(&generation).arg(&self.island_base);
            l.arg(&self.items).arg(&self.capacity).arg(&self.ratio);
            // SAFETY: block b = s·M/2 + p < I·M/2 (one per pair) reads fitness s·N + i and parent words (s·N + i)·L + w
            // for tournament winners i < N and w < L, and item pairs 32·w + b < 32·L of `items` (2·32·L entries);
            // it writes offspring words (2b)·L + w and (2b + 1)·L + w, w < L, each by one lane, and offspring fitness
            // 2b and 2b + 1 (I·M entries) by thread 0; its shared sums hold FUSED_WARPS ≥ pair_warps slots per array.
            let blocks = u32::try_from(d.all(d.pairs)).context("too many offspring pairs for one launch")?;
            let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (self.pair_warps * WARP, 1, 1), shared_mem_bytes: 0 };
            unsafe { l.launch(config) }.map_err(launch_err("island_manipulate_evaluate"))?;
            return Ok(());
        }
        let mut l = self.gpu.stream.launch_builder(&self.kernels.genetic_manipulation);
        l.arg(&self.population).arg(&self.fitness).arg(&mut self.offspring);
        l.arg(&d.islands).arg(&d.island_size).arg(&d.pairs).arg(&d.words).arg(&d.item_words).arg(&d.last_mask);
        l.arg(&crossover).arg(&mutation).arg(&self.seed_low).arg(&self.seed_high).arg(&generation).arg(&self.pair_warps);
        l.arg(&self.island_base);
        // SAFETY: warp (s, p, g), s < I, p < M/2, g < groups, reads fitness s·N + i and parent words (s·N + i)·L + w
        // for tournament winners i < N (indices are __umulhi(r, N) < N) and w < L, and writes offspring words
        // (s·M + 2p)·L + w and (s·M + 2p + 1)·L + w < I·M·L for its own words w ≡ 32g + lane (mod 32·groups); the
        // buffers have I·N·L, I·N and I·M·L elements.
        let warps = d.all(d.pairs) * u64::from(self.pair_warps);
        unsafe { l.launch(warp_launch(warps)?) }.map_err(launch_err("island_genetic_manipulation"))?;
        Ok(())
    }

    /// Fitness of the parents (after initialisation) or of the offspring (Section V.C), repaired first where the
    /// variant repairs that pool.
    fn evaluate(&mut self, pool: Pool) -> Result<()> {
        let variant = self.parameters.variant;
        if (pool == Pool::Parents && variant.repairs_initial()) || (pool == Pool::Offspring && variant.repairs_offspring()) {
            self.repair(pool)?;
        }
        let d = self.dims;
        let (genomes, fitness, count) = match pool {
            Pool::Parents => (&self.population, &mut self.fitness, d.all(d.island_size)),
            Pool::Offspring => (&self.offspring, &mut self.offspring_fitness, d.all(d.offspring_size)),
        };
        if self.chromosome_warps == 1 {
            let mut l = self.gpu.stream.launch_builder(&self.kernels.evaluate);
            l.arg(genomes).arg(fitness).arg(&count).arg(&d.words).arg(&self.prices).arg(&self.weights);
            l.arg(&self.capacity).arg(&self.ratio);
            // SAFETY: warp k < count reads words k·L..(k + 1)·L of `genomes` (count·L words) and price and weight
            // entries 32·w + b < 32·L (the padded tables) and writes fitness[k] (count entries).
            unsafe { l.launch(warp_launch(count)?) }.map_err(launch_err("island_evaluate"))?;
            return Ok(());
        }
        let mut l = self.gpu.stream.launch_builder(&self.kernels.evaluate_split);
        l.arg(genomes).arg(fitness).arg(&count).arg(&d.words).arg(&self.prices).arg(&self.weights);
        l.arg(&self.capacity).arg(&self.ratio).arg(&self.chromosome_warps);
        // SAFETY: the warps of chromosome k < count (split divides EVALUATE_WARPS, so they share a block) read words
        // k·L..(k + 1)·L of `genomes` (count·L words) and price and weight entries 32·w + b < 32·L (the padded
        // tables), their partial sums go to their own shared slots, and the first writes fitness[k] (count entries).
        let per_block = u64::from(EVALUATE_WARPS / self.chromosome_warps);
        let blocks = u32::try_from(count.div_ceil(per_block)).context("too many chromosomes for one evaluation launch")?;
        let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (EVALUATE_WARPS * WARP, 1, 1), shared_mem_bytes: 0 };
        unsafe { l.launch(config) }.map_err(launch_err("island_evaluate_split"))?;
        Ok(())
    }

    /// Greedy repair of every chromosome of `pool` (`library::island::Repair`), in place.
    fn repair(&mut self, pool: Pool) -> Result<()> {
        let d = self.dims;
        let (genomes, count) = match pool {
            Pool::Parents => (&mut self.population, d.all(d.island_size)),
            Pool::Offspring => (&mut self.offspring, d.all(d.offspring_size)),
        };
        let mut l = self.gpu.stream.launch_builder(&self.kernels.repair);
        l.arg(genomes).arg(&count).arg(&d.words).arg(&self.prices).arg(&self.weights);
        l.arg(&self.repair_order).arg(&self.repair_items).arg(&self.capacity);
        // SAFETY: warp k < count reads and clears bits of words k·L..(k + 1)·L of `genomes` (count·L words) only, reads
        // price and weight entries < 32·L (the padded tables; repaired items are < items) and order entries
        // < repair_items (the order buffer has repair_items + 1 entries).
        unsafe { l.launch(warp_launch(count)?) }.map_err(launch_err("island_repair"))?;
        Ok(())
    }

    /// Every parent slot against a random offspring (Section V.D).
    fn replace(&mut self, generation: u32) -> Result<()> {
        let d = self.dims;
        let mut l = self.gpu.stream.launch_builder(&self.kernels.replace);
        l.arg(&mut self.population).arg(&mut self.fitness).arg(&self.offspring).arg(&self.offspring_fitness);
        l.arg(&d.islands).arg(&d.island_size).arg(&d.offspring_size).arg(&d.words);
        l.arg(&self.seed_low).arg(&self.seed_high).arg(&generation).arg(&self.island_base);
        // SAFETY: warp k = s·N + i < I·N reads offspring s·M + o, o = __umulhi(r, M) < M (its fitness and L words, of
        // I·M and I·M·L), and reads and writes only slot k: fitness[k] and words k·L..(k + 1)·L (I·N and I·N·L).
        unsafe { l.launch(warp_launch(d.all(d.island_size))?) }.map_err(launch_err("island_replace"))?;
        Ok(())
    }

    /// Emigrant selection after `generation` (Section V.E.1), every island of this GPU.
    fn select_emigrants(&mut self, generation: u32) -> Result<()> {
        let d = self.dims;
        let mut l = self.gpu.stream.launch_builder(&self.kernels.select_emigrants);
        l.arg(&self.population).arg(&self.fitness).arg(&mut self.emigrant_genomes).arg(&mut self.emigrant_fitness);
        l.arg(&d.islands).arg(&d.island_size).arg(&d.emigrants).arg(&d.words);
        l.arg(&self.seed_low).arg(&self.seed_high).arg(&generation).arg(&self.island_base);
        // SAFETY: warp k = s·m + e < I·m reads fitness and words of individual s·N + i, i < N (the best, or a
        // tournament winner __umulhi(r, N) < N), and writes emigrant k: its fitness (I·m) and L words (I·m·L).
        unsafe { l.launch(warp_launch(d.all(d.emigrants))?) }.map_err(launch_err("island_select_emigrants"))?;
        Ok(())
    }

    /// Immigrant merge after `generation` (Section V.E.3): island s of this GPU takes the emigrants of island s − 1,
    /// island 0 those in `incoming` or, with `None`, this GPU's last island's (the unidirectional ring).
    fn merge_immigrants(&mut self, generation: u32, incoming: Option<&Emigrants>) -> Result<()> {
        let d = self.dims;
        let (m, words) = (self.config.emigrants(), self.parameters.layout.words);
        let last = self.config.islands - 1;
        let (sent, sent_fitness) = match incoming {
            Some(e) => (e.genomes.slice(..), e.fitness.slice(..)),
            None => (self.emigrant_genomes.slice(last * m * words..), self.emigrant_fitness.slice(last * m..)),
        };
        let mut l = self.gpu.stream.launch_builder(&self.kernels.merge_immigrants);
        l.arg(&mut self.population).arg(&mut self.fitness).arg(&self.emigrant_genomes).arg(&self.emigrant_fitness);
        l.arg(&sent).arg(&sent_fitness);
        l.arg(&d.islands).arg(&d.island_size).arg(&d.emigrants).arg(&d.words);
        l.arg(&self.seed_low).arg(&self.seed_high).arg(&generation).arg(&self.island_base);
        // SAFETY: block s < I reads emigrants (s − 1)·m + j, j < m, of this GPU (I·m fitness values, I·m·L words), or
        // for s = 0 the m fitness values and m·L words of `sent` (this GPU's last island's, or an [`Emigrants`] of m
        // and m·L), and reads and writes only island s's fitness s·N + i and words (s·N + i)·L + w, i = __umulhi(r,
        // N) < N, w < L; its shared arrays hold MERGE_CHUNK entries, one per thread.
        let merge = LaunchConfig { grid_dim: (d.islands, 1, 1), block_dim: (MERGE_CHUNK, 1, 1), shared_mem_bytes: 0 };
        unsafe { l.launch(merge) }.map_err(launch_err("island_merge_immigrants"))?;
        Ok(())
    }
}

/// One island's emigrants in device memory: what a GPU of the ring receives from the previous one.
pub struct Emigrants {
    pub(super) genomes: CudaSlice<u32>,
    pub(super) fitness: CudaSlice<Fitness>,
}

/// Philox4x32-10 calls per second of `island_philox_rate` on every SM (median of `repeats`): the integer ceiling
/// that genetic manipulation is compared with, since its mutation masks take 16 calls per chromosome word and pair.
pub fn philox_rate(gpu: &Gpu, repeats: usize) -> Result<f64> {
    const CALLS: u32 = 256;
    let kernel = gpu.function(&ISLAND_CU, "island_philox_rate")?;
    let block = WARPS_PER_BLOCK * WARP;
    let threads = u32::try_from(gpu.info.sms).unwrap_or(1).max(1) * 2048 * 4;
    let e = launch_err("island_philox_rate");
    let mut out = gpu.stream.alloc_zeros::<u32>(threads as usize).map_err(&e)?;
    let config = LaunchConfig { grid_dim: (threads / block, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
    let seconds = super::ceilings::median_seconds(gpu, repeats, &mut || {
        let mut l = gpu.stream.launch_builder(&kernel);
        l.arg(&mut out).arg(&CALLS).arg(&1u32).arg(&0u32);
        // SAFETY: thread t < grid · block = `threads` writes out[t] alone.
        unsafe { l.launch(config) }.map(drop).map_err(&e)
    })?;
    Ok(f64::from(threads) * f64::from(CALLS) / seconds)
}

/// Philox calls that genetic manipulation makes per generation, at least: per offspring pair one for the tournaments,
/// one for the crossover decision and 16 per item word for the mutation masks (the crossover masks, one per word
/// of the pairs that cross, are not counted).
pub fn manipulation_philox_calls(items: usize, island_size: usize, islands: usize) -> u64 {
    let item_words = items.div_ceil(WORD_BITS) as u64;
    let pairs = (islands * offspring_size(island_size) / 2) as u64;
    pairs * (2 + u64::from(MUTATION_CALLS) * item_words)
}

/// 32-bit integer operations of one Philox4x32-10 call (`philox4x32_10` in `kernels/island.cu`): per round two 32×32-bit
/// multiplies, each counted as its low and its high word (4), and two three-way XORs (4). The key schedule's additions
/// are the same for every call of an island (the compiler keeps them out of the loops) and are not counted.
pub const PHILOX_OPERATIONS: u64 = 80;

/// The 32-bit integer operations one generation's genetic manipulation and evaluation perform, counted from the
/// kernels' work as the paper counted its operations per run (Section VI: PAPI counters, "405 GFLOPS"): per offspring
/// pair of each island,
/// - Philox calls ([`PHILOX_OPERATIONS`] each): 2 for the tournaments and the crossover decision, `crossover_p` × the
///   item words for the crossover masks (expected: only pairs that cross draw them) and [`MUTATION_CALLS`] per item
///   word for the mutation masks;
/// - per mutation number a 64-bit threshold compare, a shift and an OR into the flip mask (3 × 64 per item word);
/// - per item word and child, uniform crossover and mutation: NOT, two ANDs, OR, the padding AND and the flip XOR (6);
///
/// and per offspring, evaluation: per item a bit test and the price and weight additions (3). Not counted: addressing,
/// loop control, reductions, replacement, migration and statistics (the count is a lower bound of the instructions).
pub fn operations_per_generation(items: usize, island_size: usize, islands: usize, crossover_p: f64) -> f64 {
    let item_words = items.div_ceil(WORD_BITS) as f64;
    let offspring = (islands * offspring_size(island_size)) as f64;
    let calls = 2.0 + crossover_p * item_words + f64::from(MUTATION_CALLS) * item_words;
    let per_pair = PHILOX_OPERATIONS as f64 * calls + 3.0 * 64.0 * item_words + 2.0 * 6.0 * item_words;
    offspring / 2.0 * per_pair + offspring * 3.0 * items as f64
}

/// The islands of a run on the device: all on one GPU ([`GpuIslands`]) or split over several
/// ([`super::island_ring::Ring`]); both evolve exactly as the reference [`Islands`].
pub trait DeviceIslands {
    /// Generation `generation` on every island, then migration when due (launched without waiting).
    fn generation(&mut self, generation: u32) -> Result<()>;
    /// Every island's arrays, in ring order (waits for the GPUs).
    fn download(&self) -> Result<Vec<IslandState>>;
    /// The reference's statistics of the current parents (waits for the GPUs).
    fn statistics(&self, evaluator: &Evaluator<'_>) -> Result<Statistics>;
    /// Waits for everything launched so far.
    fn synchronize(&self) -> Result<()>;
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
    fn synchronize(&self) -> Result<()> {
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
pub(super) fn run_on(islands: &mut dyn DeviceIslands, evaluator: &Evaluator<'_>, config: &Config) -> Result<RunResult> {
    let mut trace = Vec::new();
    let mut statistics_time = Duration::ZERO;
    let mut feasibility = Feasibility::default();
    let mut record = |islands: &dyn DeviceIslands, generation: u32| -> Result<Statistics> {
        // The generations launched so far are not the statistics' time.
        islands.synchronize()?;
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
    let mut statistics = record(islands, 0)?;
    for generation in 0..config.generations {
        islands.generation(generation)?;
        let done = generation + 1;
        if done == config.generations || (config.statistics_interval > 0 && done.is_multiple_of(config.statistics_interval)) {
            statistics = record(islands, done)?;
        }
    }
    let times = PhaseTimes { statistics: statistics_time, ..islands.phase_times()? };
    Ok(RunResult { statistics, times, trace, feasibility })
}

/// Where the GPU first disagreed with the CPU reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Generations completed (0: the initial population).
    pub generation: u32,
    pub island: usize,
    /// The first array of the phase order that differs: `offspring` (genetic manipulation), `offspring fitness`
    /// (evaluation), `population` or `fitness` (replacement, migration).
    pub array: &'static str,
    /// The first differing individual of that array.
    pub individual: usize,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "after generation {}: island {} {} individual {}", self.generation, self.island, self.array, self.individual)
    }
}

/// One configuration checked by [`self_check`].
#[derive(Clone, Debug)]
pub struct CheckLine {
    pub design: Design,
    pub instance: String,
    pub items: usize,
    pub islands: usize,
    pub island_size: usize,
    /// Generations run; the states were compared after each and for the initial population.
    pub generations: u32,
    /// Migrations among them.
    pub migrations: u32,
    /// The first disagreement of parents, offspring or fitness values, if any.
    pub first_difference: Option<Difference>,
    /// Whether the final statistics agree (integers exactly, mean and deviation within 10⁻⁹ relative).
    pub statistics_agree: bool,
    /// Whether [`run`] gives the reference's trace and final statistics.
    pub run_agrees: bool,
}

impl CheckLine {
    pub fn passed(&self) -> bool {
        self.first_difference.is_none() && self.statistics_agree && self.run_agrees
    }
}

/// The knapsack instance of a self-check case.
#[derive(Clone, Copy, Debug)]
enum CheckInstance {
    /// A file under `<datasets>/knapsack/`.
    File(&'static str),
    /// A file with its capacity set to 0: every solution is penalised to fitness 0, so every comparison is a tie.
    NoCapacity(&'static str),
    /// Pisinger's strongly correlated instance of this many items, capacity about half the total weight.
    Pisinger(usize),
    /// Pisinger's uncorrelated instance of this many items with capacity 2% of the total weight: random solutions
    /// are far too heavy, so the variants' repair drops many items.
    Tight(usize),
}

impl CheckInstance {
    fn load(self, datasets: &Path) -> Result<Instance> {
        let file = |name: &str| {
            let path = datasets.join("knapsack").join(name);
            Instance::load(&path, datasets.parent()).with_context(|| format!("island self check instance {}", path.display()))
        };
        Ok(match self {
            CheckInstance::File(name) => file(name)?,
            CheckInstance::NoCapacity(name) => {
                let instance = file(name)?;
                Instance { name: format!("{}-capacity-0", instance.name), capacity: 0, ..instance }
            }
            CheckInstance::Pisinger(items) => pisinger(PisingerKind::StronglyCorrelated, items, 1000, 50, 100),
            CheckInstance::Tight(items) => pisinger_with_ratio(PisingerKind::Uncorrelated, items, 1000, 0.02, 7),
        })
    }
}

/// One configuration of [`self_check`].
#[derive(Clone, Copy, Debug)]
pub(super) struct CheckCase {
    instance: CheckInstance,
    pub(super) islands: usize,
    island_size: usize,
    generations: u32,
    migration_interval: u32,
    crossover_p: f64,
    mutation_p: f64,
    /// The paper's GA or a variant (repair on the GPU: `island_repair`).
    variant: Variant,
}

/// Generations between the trace records of the [`run`] check.
const CHECK_TRACE_INTERVAL: u32 = 4;

/// The configurations of [`self_check`]; `small` ones (a few seconds under compute-sanitizer) come first. They cover
/// one and several islands, odd island sizes (`M > N/2`), probabilities 0 and 1 (thresholds 0 and 2³²), all-tie
/// fitness, an item count that is not a multiple of 32 over several 1,024-item chunks, and migration of more
/// immigrants than one [`MERGE_CHUNK`].
pub(super) fn check_cases(small: bool) -> Vec<CheckCase> {
    use CheckInstance::{File, NoCapacity, Pisinger, Tight};
    let case = |instance, islands, island_size, generations, migration_interval, crossover_p, mutation_p| CheckCase {
        instance,
        islands,
        island_size,
        generations,
        migration_interval,
        crossover_p,
        mutation_p,
        variant: Variant::Paper,
    };
    let (small_set, large) = ("jaros_knap_40.txt", "jaros_knap_10000.txt");
    let mut cases = vec![
        case(File(small_set), 1, 64, 6, 5, 0.7, 0.01),
        case(File(small_set), 3, 30, 8, 3, 1.0, 0.02),
        case(NoCapacity(small_set), 2, 16, 4, 2, 0.7, 0.05),
        case(File(small_set), 2, 16, 4, 2, 0.0, 1.0),
        case(Pisinger(2085), 3, 66, 6, 5, 0.7, 0.002),
        case(File(large), 2, 64, 6, 5, 0.7, 0.001),
        case(File(small_set), 3, 3000, 4, 2, 0.7, 0.01),
        CheckCase { variant: Variant::Repair, ..case(Tight(2085), 2, 64, 6, 3, 0.7, 0.002) },
        CheckCase { variant: Variant::FeasibleInit, ..case(Tight(2085), 2, 64, 6, 3, 0.7, 0.002) },
    ];
    if !small {
        cases.extend([
            case(File(large), 3, 1024, 12, 5, 0.7, 0.001),
            case(File(large), 1, 2048, 12, 5, 0.7, 0.001),
            case(Pisinger(2085), 4, 256, 20, 5, 0.7, 0.005),
            case(File(small_set), 4, 1024, 30, 5, 0.7, 0.01),
        ]);
    }
    cases
}

/// The configuration of `case` for run `seed`.
fn check_config(case: &CheckCase, seed: u64) -> Config {
    Config {
        islands: case.islands,
        island_size: case.island_size,
        generations: case.generations,
        migration_interval: case.migration_interval,
        migration_fraction: 0.1,
        crossover_p: case.crossover_p,
        mutation_p: case.mutation_p,
        seed,
        threads: Threads::Rayon,
        statistics_interval: CHECK_TRACE_INTERVAL,
        variant: case.variant,
    }
}

/// Index of the first `per`-element chunk where `a` and `b` differ.
fn first_unequal<T: PartialEq>(a: &[T], b: &[T], per: usize) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()) / per);
    }
    a.chunks(per).zip(b.chunks(per)).position(|(x, y)| x != y)
}

/// The first individual of one array where a reference island and the GPU's copy differ (`words` per chromosome).
type FirstUnequal = fn(&Island, &IslandState, usize) -> Option<usize>;

/// The first difference between the reference and the GPU's islands, in phase order (offspring, their fitness,
/// parents, their fitness), then by island.
fn compare(cpu: &Islands, gpu: &[IslandState], generation: u32) -> Option<Difference> {
    if cpu.islands().len() != gpu.len() {
        return Some(Difference { generation, island: cpu.islands().len().min(gpu.len()), array: "islands", individual: 0 });
    }
    let words = cpu.islands().first().map_or(1, |island| island.parameters().layout.words);
    let arrays: [(&'static str, FirstUnequal); 4] = [
        ("offspring", |c, g, words| first_unequal(c.offspring(), &g.offspring, words)),
        ("offspring fitness", |c, g, _| first_unequal(c.offspring_fitness(), &g.offspring_fitness, 1)),
        ("population", |c, g, words| first_unequal(c.population(), &g.population, words)),
        ("fitness", |c, g, _| first_unequal(c.fitness(), &g.fitness, 1)),
    ];
    arrays.iter().find_map(|&(array, differs)| {
        cpu.islands()
            .iter()
            .zip(gpu)
            .enumerate()
            .find_map(|(island, (c, g))| differs(c, g, words).map(|individual| Difference { generation, island, array, individual }))
    })
}

/// Integer fields equal, mean and standard deviations within 10⁻⁹ relative.
fn same_statistics(a: &Statistics, b: &Statistics) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs());
    let islands_agree = a.islands.len() == b.islands.len()
        && a.islands.iter().zip(&b.islands).all(|(x, y)| {
            (x.best, x.best_index, x.worst) == (y.best, y.best_index, y.worst) && close(x.mean, y.mean) && close(x.std_dev, y.std_dev)
        });
    islands_agree
        && (a.best, a.best_island, a.worst) == (b.best, b.best_island, b.worst)
        && close(a.mean, b.mean)
        && close(a.std_dev, b.std_dev)
        && a.best_solution == b.best_solution
        && a.best_chromosome == b.best_chromosome
}

/// Runs the reference [`Islands`] and [`GpuIslands`] of each [`Design`] side by side from the same seed on each
/// configuration of [`check_cases`] and compares parents, offspring and all fitness values bit for bit for the initial population and
/// after every generation, then the final statistics, then [`run`]'s trace and statistics against the reference's.
pub fn self_check(gpu: &Gpu, seed: u64, small: bool, datasets: &Path) -> Result<Vec<CheckLine>> {
    let build = |evaluator: &Evaluator<'_>, config: &Config, design| -> Result<Box<dyn DeviceIslands + '_>> {
        Ok(Box::new(GpuIslands::new(gpu, evaluator, config, design)?))
    };
    check_against_reference(check_cases(small), seed, datasets, &build)
}

/// The islands a check builds on the device(s) for a configuration and design.
pub(super) type BuildIslands<'g> = dyn Fn(&Evaluator<'_>, &Config, Design) -> Result<Box<dyn DeviceIslands + 'g>> + 'g;

/// [`self_check`] for the device islands that `build` makes, on `cases`.
pub(super) fn check_against_reference(
    cases: Vec<CheckCase>,
    seed: u64,
    datasets: &Path,
    build: &BuildIslands<'_>,
) -> Result<Vec<CheckLine>> {
    let mut lines = Vec::new();
    let cases = cases.into_iter().enumerate();
    for ((k, case), design) in cases.flat_map(|c| [(c, Design::Paper), (c, Design::Split), (c, Design::Fused)]) {
        let instance = case.instance.load(datasets)?;
        let evaluator = Evaluator::new(&instance);
        let config = check_config(&case, seed.wrapping_add(k as u64));
        let mut cpu = Islands::new(&evaluator, &config)?;
        let mut device = build(&evaluator, &config, design)?;
        let mut first_difference = compare(&cpu, &device.download()?, 0);
        let mut trace = vec![cpu.statistics(&evaluator)];
        for generation in 0..config.generations {
            cpu.generation(&evaluator, generation, &mut PhaseTimes::default());
            device.generation(generation)?;
            if first_difference.is_none() {
                first_difference = compare(&cpu, &device.download()?, generation + 1);
            }
            let done = generation + 1;
            if done == config.generations || done.is_multiple_of(CHECK_TRACE_INTERVAL) {
                trace.push(cpu.statistics(&evaluator));
            }
        }
        let reference = cpu.statistics(&evaluator);
        let statistics_agree = same_statistics(&reference, &device.statistics(&evaluator)?);
        let result = run_on(build(&evaluator, &config, design)?.as_mut(), &evaluator, &config)?;
        let trace_agrees = result.trace.len() == trace.len()
            && result.trace.iter().zip(&trace).enumerate().all(|(i, (point, want))| {
                let generation = (i as u32 * CHECK_TRACE_INTERVAL).min(config.generations);
                point.generation == generation && point.best == want.best && (point.mean - want.mean).abs() <= 1e-9 * want.mean.abs()
            });
        lines.push(CheckLine {
            design,
            instance: match config.variant {
                Variant::Paper => instance.name.clone(),
                variant => format!("{} ({})", instance.name, variant.name()),
            },
            items: instance.item_count(),
            islands: config.islands,
            island_size: config.island_size,
            generations: config.generations,
            migrations: (0..config.generations).filter(|&g| config.migrates_after(g)).count() as u32,
            first_difference,
            statistics_agree,
            run_agrees: trace_agrees && same_statistics(&reference, &result.statistics),
        });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::knapsack::paper_instance;

    #[test]
    fn warps_fill_blocks_of_eight() {
        let blocks = |warps| warp_launch(warps).unwrap().grid_dim;
        assert_eq!((blocks(1), blocks(8), blocks(9), blocks(3 * 1024)), ((1, 1, 1), (1, 1, 1), (2, 1, 1), (384, 1, 1)));
        assert_eq!(warp_launch(1).unwrap().block_dim, (256, 1, 1));
        assert!(warp_launch(0).is_err());
        assert!(warp_launch(8 * (1 << 31)).is_err());
    }

    #[test]
    fn offspring_size_matches_the_reference() {
        let instance = paper_instance("jaros_knap_40.txt");
        for n in [2, 3, 4, 30, 64, 65, 66, 2048] {
            let parameters = Parameters::new(&instance, &Config::paper(1, n, 1, 0)).unwrap();
            assert_eq!(offspring_size(n), parameters.offspring_size, "N = {n}");
        }
    }

    #[test]
    fn dims_of_the_papers_instances() {
        for (file, item_words, last_mask) in [("jaros_knap_40.txt", 2, 0xFF), ("jaros_knap_10000.txt", 313, 0xFFFF)] {
            let instance = paper_instance(file);
            let config = Config::paper(3, 66, 1, 0);
            let dims = Dims::new(&config, &Parameters::new(&instance, &config).unwrap()).unwrap();
            assert_eq!(
                (dims.item_words, dims.last_mask, dims.offspring_size, dims.pairs, dims.emigrants),
                (item_words, last_mask, 34, 17, 7)
            );
            assert_eq!((dims.all(dims.island_size), dims.words % 32), (198, 0));
        }
    }

    #[test]
    fn device_bytes_of_the_papers_largest_island() {
        // 10,000 items: 320 words per chromosome; 2,048 parents, 1,024 offspring, 205 emigrants.
        let per_individual = 320 * 4 + 8;
        assert_eq!(device_bytes(10_000, 2048, 1, 205), ((2048 + 1024 + 205) * per_individual + 2 * 4 * 320 * 32) as u128);
        assert_eq!(device_bytes(10_000, 2048, 14, 205), 14 * (2048 + 1024 + 205) * per_individual as u128 + 81_920);
    }

    #[test]
    fn bytes_per_generation_counts_the_unconditional_traffic() {
        // N = 2,048: 512 pairs read 2·313 item words and write 2·320 words each; 1,024 offspring of 320 words are read
        // and their fitness written; 2,048 slots read two fitness values; the tables are 8 bytes per item.
        let one = 512 * (2 * 313 * 4 + 2 * 320 * 4 + 32) + 1024 * (320 * 4 + 8) + 2048 * 16;
        assert_eq!(bytes_per_generation(10_000, 2048, 1), one + 80_000);
        assert_eq!(bytes_per_generation(10_000, 2048, 14), 14 * one + 80_000);
        assert_eq!(bytes_per_generation(40, 64, 1), 16 * (2 * 2 * 4 + 2 * 32 * 4 + 32) + 32 * (32 * 4 + 8) + 64 * 16 + 320);
    }

    #[test]
    fn split_design_gives_each_lane_one_word_and_evaluation_a_divisor_of_the_block() {
        assert_eq!(Design::Paper.warps(320), (1, 1));
        // 10,000 items: 320 words, 10 chunks; 40 items: 32 words, one chunk.
        assert_eq!(Design::Split.warps(320), (10, 8));
        assert_eq!(Design::Split.warps(32), (1, 1));
        assert_eq!(Design::Split.warps(96), (3, 2));
        for words in (32..=2048).step_by(32) {
            assert_eq!(EVALUATE_WARPS % Design::Split.warps(words).1, 0);
        }
        assert!(ISLAND_CU.code.contains(&format!("#define EVALUATE_WARPS {EVALUATE_WARPS}u")));
        // Fused: a block per pair, its chunks capped at FUSED_WARPS warps (the rest taken in turn).
        assert_eq!(Design::Fused.warps(320), (10, 8));
        assert_eq!(Design::Fused.warps(32 * 40), (FUSED_WARPS, 8));
        assert!(ISLAND_CU.code.contains(&format!("#define FUSED_WARPS {FUSED_WARPS}u")));
    }

    #[test]
    fn manipulation_philox_calls_of_the_papers_instance() {
        // N = 2,048: 512 pairs, each 2 calls plus 16 for each of 313 item words.
        assert_eq!(manipulation_philox_calls(10_000, 2048, 1), 512 * (2 + 16 * 313));
        assert_eq!(manipulation_philox_calls(10_000, 2048, 14), 14 * 512 * (2 + 16 * 313));
        assert_eq!(manipulation_philox_calls(40, 7, 1), 2 * (2 + 16 * 2));
    }

    #[test]
    fn operations_per_generation_of_the_papers_instance() {
        // N = 2,048, p = 0.7: 512 pairs of 80 × (2 + 0.7 × 313 + 16 × 313) Philox operations, 3 × 64 + 12 per item word;
        // 1,024 offspring of 3 per item.
        let per_pair = 80.0 * (2.0 + 0.7 * 313.0 + 16.0 * 313.0) + (192.0 + 12.0) * 313.0;
        let one = 512.0 * per_pair + 1024.0 * 3.0 * 10_000.0;
        assert!((operations_per_generation(10_000, 2048, 1, 0.7) - one).abs() < 1e-6 * one);
        assert!((operations_per_generation(10_000, 2048, 14, 0.7) - 14.0 * one).abs() < 1e-6 * one);
        // The Philox part is the count of `manipulation_philox_calls` plus the crossover masks.
        let philox = manipulation_philox_calls(10_000, 2048, 1) as f64 + 512.0 * 0.7 * 313.0;
        assert!((operations_per_generation(10_000, 2048, 1, 0.7) - 80.0 * philox - 512.0 * 204.0 * 313.0 - 3.072e7).abs() < 1e-3);
    }

    #[test]
    fn every_kernel_is_in_the_source() {
        for name in [
            "island_initialise",
            "island_genetic_manipulation",
            "island_manipulate_evaluate",
            "island_evaluate",
            "island_evaluate_split",
            "island_replace",
            "island_select_emigrants",
            "island_merge_immigrants",
            "island_philox_rate",
        ] {
            assert!(ISLAND_CU.code.contains(&format!("extern \"C\" __global__ void {name}(")), "{name}");
        }
        assert!(ISLAND_CU.code.contains(&format!("#define MERGE_CHUNK {MERGE_CHUNK}u")));
        assert!(ISLAND_CU.code.contains(&format!("#define MUTATION_CALLS {MUTATION_CALLS}u")));
    }

    #[test]
    fn statistics_comparison_tolerates_only_rounding() {
        let instance = paper_instance("jaros_knap_10000.txt");
        let evaluator = Evaluator::new(&instance);
        let config = Config { migration_interval: 3, ..Config::paper(3, 40, 7, 11) };
        let mut islands = Islands::new(&evaluator, &config).unwrap();
        for generation in 0..config.generations {
            islands.generation(&evaluator, generation, &mut PhaseTimes::default());
        }
        let reference = islands.statistics(&evaluator);
        assert!(same_statistics(&reference.clone(), &reference));
        let worse = Statistics { mean: reference.mean * (1.0 + 1e-6), ..reference.clone() };
        assert!(!same_statistics(&worse, &reference));
        let other_best = Statistics { best_island: (reference.best_island + 1) % 3, ..reference.clone() };
        assert!(!same_statistics(&other_best, &reference));
    }

    #[test]
    fn check_cases_cover_padding_ties_and_migration() {
        let cases = check_cases(false);
        assert_eq!(check_cases(true).len(), 9);
        // Both variants, on an instance where repair drops items.
        assert!(cases.iter().any(|c| c.variant == Variant::Repair) && cases.iter().any(|c| c.variant == Variant::FeasibleInit));
        // More immigrants than one round of the merge kernel decides.
        assert!(cases.iter().any(|c| check_config(c, 1).emigrants() > MERGE_CHUNK as usize));
        assert!(cases.iter().any(|c| matches!(c.instance, CheckInstance::Pisinger(n) if n % 32 != 0 && n > 2048)));
        assert!(cases.iter().any(|c| matches!(c.instance, CheckInstance::NoCapacity(_))));
        assert!(cases.iter().any(|c| c.mutation_p == 1.0 && c.crossover_p == 0.0));
        for case in &cases {
            let config = check_config(case, 1);
            let instance = match case.instance {
                CheckInstance::Pisinger(items) => pisinger(PisingerKind::StronglyCorrelated, items, 1000, 50, 100),
                CheckInstance::Tight(items) => pisinger_with_ratio(PisingerKind::Uncorrelated, items, 1000, 0.02, 7),
                CheckInstance::File(name) | CheckInstance::NoCapacity(name) => paper_instance(name),
            };
            config.validate(&instance).unwrap();
            let migrations = (0..config.generations).filter(|&g| config.migrates_after(g)).count();
            assert_eq!(migrations > 0, case.islands > 1, "{case:?}");
        }
    }

    #[test]
    fn differences_are_found_in_phase_order() {
        let instance = paper_instance("jaros_knap_40.txt");
        let evaluator = Evaluator::new(&instance);
        let config = Config::paper(2, 8, 1, 3);
        let mut islands = Islands::new(&evaluator, &config).unwrap();
        islands.generation(&evaluator, 0, &mut PhaseTimes::default());
        let state = |i: &Island| IslandState {
            population: i.population().to_vec(),
            fitness: i.fitness().to_vec(),
            offspring: i.offspring().to_vec(),
            offspring_fitness: i.offspring_fitness().to_vec(),
        };
        let mut states: Vec<IslandState> = islands.islands().iter().map(state).collect();
        assert_eq!(compare(&islands, &states, 1), None);
        states[1].fitness[5] ^= 1;
        states[1].population[3 * 32 + 1] ^= 4;
        assert_eq!(compare(&islands, &states, 1), Some(Difference { generation: 1, island: 1, array: "population", individual: 3 }));
        states[1].offspring[2 * 32] ^= 1;
        let found = compare(&islands, &states, 1).unwrap();
        assert_eq!((found.array, found.individual), ("offspring", 2));
        assert_eq!(found.to_string(), "after generation 1: island 1 offspring individual 2");
    }
}
