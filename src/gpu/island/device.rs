//! The islands of one GPU (Sections IV.A and V): their device buffers and one launch per phase of a generation.

use anyhow::{Context, Result, ensure};
use cudarc::driver::{CudaFunction, CudaSlice, CudaView, LaunchConfig, PushKernelArg};

use super::clock::PhaseClock;
use super::{CLOCK_WINDOW, Design, EVALUATE_WARPS, ISLAND_CU, MERGE_CHUNK, WARP, device_bytes, warp_launch};
use crate::error::GpuError;
use crate::gpu::{Gpu, launch_err};
use crate::library::island::{Config, CounterRng, Parameters, PhaseTimes, Repair, Statistics, replace_slot};
use crate::library::knapsack::{Evaluator, Fitness, WORD_BITS};

/// The sizes the kernels take, as their 32-bit arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Dims {
    pub(super) islands: u32,
    pub(super) island_size: u32,
    pub(super) offspring_size: u32,
    pub(super) pairs: u32,
    pub(super) emigrants: u32,
    pub(super) words: u32,
    pub(super) item_words: u32,
    /// Item bits of the last item word.
    pub(super) last_mask: u32,
}

impl Dims {
    pub(super) fn new(config: &Config, parameters: &Parameters) -> Result<Dims> {
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
    pub(super) fn all(&self, per_island: u32) -> u64 {
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
    /// 1 where every price and every weight of the instance sum below 2³²: `island_manipulate_evaluate` then sums a
    /// chunk's items in 32 bits (issue #39), else 0 (64 bits throughout).
    narrow: u32,
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
    /// The fused design's other buffers of parent fitness and offspring: a generation reads the last one's offspring
    /// and fitness and writes these (`island_manipulate_evaluate`), then they are swapped.
    spare_fitness: CudaSlice<Fitness>,
    spare_offspring: CudaSlice<u32>,
    spare_offspring_fitness: CudaSlice<Fitness>,
    /// The generation whose replacement is left pending (the fused design): the next generation's launch, or
    /// [`GpuIslands::settle`], applies it.
    pending: Option<u32>,
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
    ///
    /// [`super::island_ring::Ring`]: crate::gpu::island_ring::Ring
    pub(in crate::gpu) fn part(
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
            narrow: u32::from([&instance.prices, &instance.weights].iter().all(|v| v.iter().map(|&x| u64::from(x)).sum::<u64>() < 1 << 32)),
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
            spare_fitness: stream.alloc_zeros(parents).map_err(&e)?,
            spare_offspring: stream.alloc_zeros(offspring * words).map_err(&e)?,
            spare_offspring_fitness: stream.alloc_zeros(offspring).map_err(&e)?,
            pending: None,
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
    ///
    /// [`Islands::generation`]: crate::library::island::Islands::generation
    pub fn generation(&mut self, generation: u32) -> Result<()> {
        self.start_generation(generation)?;
        self.finish_generation(generation, None)
    }

    /// Generation `generation` up to migration's exchange: genetic manipulation, evaluation, replacement (left
    /// pending by the fused design, but before a migration), and the emigrants' selection when migration is due
    /// (returned). [`GpuIslands::finish_generation`] completes it.
    pub(in crate::gpu) fn start_generation(&mut self, generation: u32) -> Result<bool> {
        if self.clock.pending == CLOCK_WINDOW {
            self.clock.collect()?;
        }
        self.mark(0)?;
        self.genetic_manipulation(generation)?;
        self.mark(1)?;
        if !self.fused {
            self.evaluate(Pool::Offspring)?;
            self.mark(2)?;
            self.replace(generation)?;
        }
        let migrates = self.ring.migrates_after(generation);
        if migrates {
            self.settle()?;
        }
        self.mark(3)?;
        if migrates {
            self.select_emigrants(generation)?;
        }
        self.clock.migrated[self.clock.pending] = migrates;
        Ok(migrates)
    }

    /// Completes the generation started last: when it migrates, the first island merges the emigrants in `incoming`
    /// (from the previous GPU of the ring) or, with `None`, those of this GPU's last island, and every other island
    /// those of the island before it.
    pub(in crate::gpu) fn finish_generation(&mut self, generation: u32, incoming: Option<&Emigrants>) -> Result<()> {
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
    pub(in crate::gpu) fn island_size(&self) -> usize {
        self.config.island_size
    }

    /// Room on this GPU for one island's emigrants, to receive the previous GPU's.
    pub(in crate::gpu) fn emigrants_buffer(&self) -> Result<Emigrants> {
        let e = launch_err("island ring buffers");
        let (m, words) = (self.config.emigrants(), self.parameters.layout.words);
        let stream = &self.gpu.stream;
        Ok(Emigrants { genomes: stream.alloc_zeros(m * words).map_err(&e)?, fitness: stream.alloc_zeros(m).map_err(&e)? })
    }

    /// The emigrants of this GPU's last island (after a generation that migrated): what the next GPU of the ring
    /// merges into its first island.
    pub(in crate::gpu) fn last_emigrants(&self) -> (CudaView<'_, u32>, CudaView<'_, Fitness>) {
        let (m, words) = (self.config.emigrants(), self.parameters.layout.words);
        let last = self.config.islands - 1;
        (self.emigrant_genomes.slice(last * m * words..(last + 1) * m * words), self.emigrant_fitness.slice(last * m..(last + 1) * m))
    }

    /// Time per phase summed over the generations so far (waits for them); `statistics` is zero.
    pub fn phase_times(&mut self) -> Result<PhaseTimes> {
        self.clock.collect()?;
        Ok(self.clock.times)
    }

    /// Every island's parents and offspring with their fitness values (waits for the GPU); a replacement left
    /// pending is applied to the copies as the reference applies it (`library::island::replace_slot`), so that the
    /// device's own state is what a check compares, settled or not.
    pub fn download(&self) -> Result<Vec<IslandState>> {
        let e = launch_err("island download");
        let stream = &self.gpu.stream;
        let population = stream.clone_dtoh(&self.population).map_err(&e)?;
        let fitness = stream.clone_dtoh(&self.fitness).map_err(&e)?;
        let offspring = stream.clone_dtoh(&self.offspring).map_err(&e)?;
        let offspring_fitness = stream.clone_dtoh(&self.offspring_fitness).map_err(&e)?;
        stream.synchronize().map_err(&e)?;
        let (words, n, m) = (self.parameters.layout.words, self.config.island_size, self.parameters.offspring_size);
        let mut states: Vec<IslandState> = (0..self.config.islands)
            .map(|i| IslandState {
                population: population[i * n * words..][..n * words].to_vec(),
                fitness: fitness[i * n..][..n].to_vec(),
                offspring: offspring[i * m * words..][..m * words].to_vec(),
                offspring_fitness: offspring_fitness[i * m..][..m].to_vec(),
            })
            .collect();
        if let Some(generation) = self.pending {
            for (i, state) in states.iter_mut().enumerate() {
                let rng = CounterRng::new(self.parameters.seed, self.island_base + i as u32);
                for (slot, (chromosome, fitness)) in state.population.chunks_mut(words).zip(&mut state.fitness).enumerate() {
                    replace_slot(rng, generation, slot, chromosome, fitness, &state.offspring, &state.offspring_fitness);
                }
            }
        }
        Ok(states)
    }

    /// Per-island and global statistics with the best solution (Section V.F), equal to [`Islands::statistics`] of
    /// the same populations: the fitness values and the best chromosome are downloaded (waits for the GPU).
    ///
    /// [`Islands::statistics`]: crate::library::island::Islands::statistics
    pub fn statistics(&self, evaluator: &Evaluator<'_>) -> Result<Statistics> {
        let fitness = self.fitness()?;
        let parts: Vec<&[Fitness]> = fitness.chunks(self.config.island_size).collect();
        Ok(Statistics::of(evaluator, &parts, |island, index| self.chromosome(island, index))?)
    }

    /// Every parent's fitness, island after island (waits for the GPU; settled first, [`GpuIslands::settle`]).
    pub(in crate::gpu) fn fitness(&self) -> Result<Vec<Fitness>, GpuError> {
        let e = launch_err("island statistics");
        self.ensure_settled()?;
        let fitness = self.gpu.stream.clone_dtoh(&self.fitness).map_err(&e)?;
        self.gpu.stream.synchronize().map_err(&e)?;
        Ok(fitness)
    }

    /// Parent `index` of this GPU's island `island` (waits for the GPU; settled first, [`GpuIslands::settle`]).
    pub(in crate::gpu) fn chromosome(&self, island: usize, index: usize) -> Result<Vec<u32>, GpuError> {
        let e = launch_err("island statistics");
        self.ensure_settled()?;
        let (words, individual) = (self.parameters.layout.words, island * self.config.island_size + index);
        let mut chromosome = vec![0u32; words];
        let stream = &self.gpu.stream;
        stream.memcpy_dtoh(&self.population.slice(individual * words..(individual + 1) * words), &mut chromosome).map_err(&e)?;
        stream.synchronize().map_err(&e)?;
        Ok(chromosome)
    }

    /// Applies a replacement left pending (the fused design's, [`Design::Fused`]): `island_replace` of that
    /// generation, as the other designs launch it every generation. Launched without waiting.
    pub(in crate::gpu) fn settle(&mut self) -> Result<()> {
        if let Some(generation) = self.pending.take() {
            self.replace(generation)?;
        }
        Ok(())
    }

    /// A read of the parents needs them settled.
    fn ensure_settled(&self) -> Result<(), GpuError> {
        match self.pending {
            None => Ok(()),
            Some(generation) => Err(GpuError::Pending { what: "the island parents".into(), generation }),
        }
    }

    /// Waits for everything launched so far.
    pub(in crate::gpu) fn synchronize(&self) -> Result<()> {
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

    /// Selection, crossover and mutation of every island into its offspring (Section V.B); where the design is
    /// fused, evaluated as well, the last generation's pending replacement settled and this one's left pending.
    fn genetic_manipulation(&mut self, generation: u32) -> Result<()> {
        let d = self.dims;
        let (crossover, mutation) = (self.parameters.crossover_threshold, self.parameters.mutation_threshold);
        if self.fused {
            let pending = u32::from(self.pending.is_some());
            let mut l = self.gpu.stream.launch_builder(&self.kernels.manipulate_evaluate);
            l.arg(&mut self.population).arg(&self.fitness).arg(&mut self.spare_fitness);
            l.arg(&self.offspring).arg(&self.offspring_fitness).arg(&pending);
            l.arg(&mut self.spare_offspring).arg(&mut self.spare_offspring_fitness);
            l.arg(&d.pairs).arg(&d.island_size).arg(&d.offspring_size).arg(&d.words).arg(&d.item_words).arg(&d.last_mask);
            l.arg(&crossover).arg(&mutation).arg(&self.seed_low).arg(&self.seed_high).arg(&generation).arg(&self.island_base);
            l.arg(&self.items).arg(&self.capacity).arg(&self.ratio).arg(&self.narrow);
            // SAFETY: block b = s·M/2 + p < I·M/2 (one per pair) reads fitness s·N + i, the last generation's offspring
            // fitness s·M + o (o = __umulhi(r, M) < M) and the words (s·N + i)·L + w of parents or (s·M + o)·L + w of
            // those offspring, for tournament winners and its own slots i < N and w < L, and item pairs 32·w + b < 32·L
            // of `items` (2·32·L entries); it writes settled fitness s·N + i and the words of replaced parents (s·N +
            // i)·L + w for its own slots i ≡ p (mod M/2) only (no block reads a replaced slot's words from `population`),
            // new offspring words (2b)·L + w and (2b + 1)·L + w, w < L, each by one lane, and new offspring fitness 2b
            // and 2b + 1 (I·M entries) by thread 0; the spare buffers have the sizes of those they stand for; its
            // shared sums hold FUSED_WARPS ≥ pair_warps slots per array.
            let blocks = u32::try_from(d.all(d.pairs)).context("too many offspring pairs for one launch")?;
            let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (self.pair_warps * WARP, 1, 1), shared_mem_bytes: 0 };
            unsafe { l.launch(config) }.map_err(launch_err("island_manipulate_evaluate"))?;
            std::mem::swap(&mut self.fitness, &mut self.spare_fitness);
            std::mem::swap(&mut self.offspring, &mut self.spare_offspring);
            std::mem::swap(&mut self.offspring_fitness, &mut self.spare_offspring_fitness);
            self.pending = Some(generation);
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
    pub(in crate::gpu) genomes: CudaSlice<u32>,
    pub(in crate::gpu) fitness: CudaSlice<Fitness>,
}
