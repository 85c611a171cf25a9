//! The island-based steady-state GA of Jaros 2012 (Sections IV–V) on the 0/1 knapsack, as a CPU reference that a
//! CUDA port can match bit for bit.
//!
//! # Population layout (Section IV.A)
//! Chromosome-major and bit-packed: item `i` of individual `k` is bit `i % 32` of word `k·L + i / 32`, where the
//! chromosome length `L` (in words) is the item count padded to a multiple of 1024 bits (32 words, one word per
//! thread of a warp). Padding bits are always zero, so they never change the fitness.
//!
//! # One generation (Section V)
//! 1. *Genetic manipulation* (V.B): `M = 2·⌈⌊N/2⌋/2⌉` offspring (half the island), built in pairs. Pair `p`
//!    picks two parents by binary tournament, crosses them over uniformly with probability `crossover_p` by a
//!    random 32-bit mask per word (eq. 1), else copies them, then flips each gene with probability `mutation_p`:
//!    bit `b` of a word's flip mask is set when its random number `r_b < T`, `T = round(p·2³²)` (eq. 2).
//! 2. *Evaluation* (V.C) of the offspring: penalised price, see [`crate::library::knapsack`].
//! 3. *Replacement* (V.D): parent slot `i` is compared with a random offspring and overwritten when the offspring
//!    is strictly fitter. Each slot is written only by itself (no races) and the best parent can only be replaced by
//!    a fitter individual (elitism).
//! 4. *Migration* (V.E), after every `migration_interval`-th generation when there are several islands: along a
//!    unidirectional ring, island `i` sends `m = ⌈migration_fraction·N⌉` emigrants to island `(i + 1) mod I`; the
//!    first is the island's best, the others are chosen by binary tournament. All islands select before any merges.
//!    The receiver merges immigrant `j = 0, 1, …, m − 1` *in this order*: each picks a resident by an inverse binary
//!    tournament (the worse of two random residents, judged on the fitness as it stands after immigrants `0..j`)
//!    and replaces it when strictly fitter. The paper's text says "a randomly selected" resident and Section III says
//!    tournaments "incorporate immigrants"; the author's code uses this inverse tournament. The sequential order
//!    replaces the paper's per-individual locks with a deterministic rule; a resident is only ever replaced by a
//!    fitter immigrant, so the receiving island's best is never lost.
//! 5. *Statistics* (V.F) every `statistics_interval` generations: per island and global best, worst, mean, standard
//!    deviation and best island, plus the best solution's price, weight and feasibility.
//!
//! Ties: a binary tournament between candidates `a` (first draw) and `b` (second draw) returns `a` only when
//! `f(a) > f(b)` (the inverse tournament: only when `f(a) < f(b)`), so ties go to `b`, as in the author's code. The
//! best individual is the lowest index of maximal fitness; the best island likewise.
//!
//! # Random numbers (Section V.A)
//! Every random number is one output word of Philox4x32-10 ([`crate::library::philox`]) at a counter that names
//! what it is for; nothing carries state between draws, so the single-threaded, multi-threaded and CUDA versions
//! draw identical numbers in any order. For seed `s` (64 bits) and island `i`:
//!
//! ```text
//! key     = [s mod 2³², i]
//! counter = [c0, (tag << 28) | index, c2, ⌊s / 2³²⌋]        index < 2²⁸
//!
//! purpose          tag  c0    index        c2           output words used
//! initial genes     0   0     individual   word w       out[0] = word w of the chromosome (density 1/2)
//! selection         1   gen   pair p       0            tournament 1: out[0], out[1]; tournament 2: out[2], out[3]
//!                                          1            out[0] < T_crossover ⇒ cross over
//! crossover mask    2   gen   pair p       word w       out[0] = mask of word w (eq. 1)
//! mutation          3   gen   pair p       16·w + k     r[4k + j] = out[j], k = 0..16: bit b of word w of
//!                                                       child 1 flips if r[b] < T_mutation, of child 2 if r[32 + b]
//! replacement       4   gen   parent slot  0            out[0] picks the offspring
//! emigration        5   gen   emigrant e   0            e ≥ 1: tournament out[0], out[1] (key of the sender)
//! immigration       6   gen   immigrant j  0            inverse tournament out[0], out[1] (key of the receiver)
//! ```
//!
//! `gen` counts from 0; migration after generation `gen` uses that `gen`. A random number `r` picks index
//! `⌊r·n / 2³²⌋` of `n` (CUDA: `__umulhi(r, n)`). Probability thresholds are `T = round(p·2³²)` as 64-bit integers,
//! and `r < T` is compared in 64 bits so that `p = 1` always fires. Words past the items are all-zero and draw
//! nothing on the CPU (their random numbers would be masked away); the last item word is masked after mutation.
//!
//! # Initial population
//! Uniformly random bits (density 1/2), the author's choice too. The paper's 10,000-item instance has capacity
//! `⌊Σw/2⌋`, so half-density solutions sit at the capacity: of 2,048 (seed 1) 49% are feasible (mean fitness
//! 2.71 M), the rest exceed it by 23,000 on average and keep a lower but mostly positive fitness (mean 1.61 M; 3%
//! clamp to 0), which gives selection a gradient towards feasibility. On `jaros_knap_40` (capacity 2/3 of Σw) 97%
//! are feasible. A sparser start would only skip the first generations of that climb.

mod config;
mod migration;
mod ring;
mod rng;
mod statistics;
#[cfg(test)]
mod tests;
mod variant;

pub use config::{CHUNK_WORDS, Config, Layout, Parameters, Threads};
pub use migration::Migrants;
pub use ring::{Islands, RunResult, TracePoint, run};
pub use rng::{CounterRng, MUTATION_CALLS, Purpose, TAG_SHIFT, inverse_tournament, probability_threshold, random_index, tournament};
pub use statistics::{Feasibility, IslandStatistics, PhaseTimes, Statistics};
pub use variant::{Repair, Variant};

use rayon::prelude::*;

use crate::library::knapsack::{Evaluator, Fitness};

/// One island: parent population, offspring population and their fitness (Section IV.A).
#[derive(Clone, Debug)]
pub struct Island {
    index: u32,
    rng: CounterRng,
    parameters: Parameters,
    population: Vec<u32>,
    fitness: Vec<Fitness>,
    offspring: Vec<u32>,
    offspring_fitness: Vec<Fitness>,
    /// The drop order of the variants that repair.
    repair: Option<std::sync::Arc<Repair>>,
}

/// Everything one offspring pair needs (shared, read-only).
struct Breeding<'a> {
    rng: CounterRng,
    parameters: &'a Parameters,
    parents: &'a [u32],
    fitness: &'a [Fitness],
    generation: u32,
    /// Whether this CPU has AVX2 (the Philox lanes then run eight wide).
    avx2: bool,
}

/// Crossover masks computed per batch of words (one Philox call per word, as in the counter table, batched so the
/// calls vectorise).
const MASK_BATCH: usize = 16;

impl Breeding<'_> {
    fn new<'a>(rng: CounterRng, parameters: &'a Parameters, parents: &'a [u32], fitness: &'a [Fitness], generation: u32) -> Breeding<'a> {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        Breeding { rng, parameters, parents, fitness, generation, avx2 }
    }

    /// Builds the two children of `pair` into `children` (2·L words), with AVX2 where the CPU has it.
    fn pair(&self, pair: usize, children: &mut [u32]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: this CPU has AVX2 (detected when `self` was built).
            return unsafe { avx2::pair(self, pair, children) };
        }
        self.pair_body(pair, children);
    }

    /// Tournaments, uniform crossover (eq. 1) and bit-flip mutation (eq. 2), word by word as a warp would.
    #[inline(always)]
    fn pair_body(&self, pair: usize, children: &mut [u32]) {
        let (rng, generation, pair) = (self.rng, self.generation, pair as u32);
        let layout = self.parameters.layout;
        let words = layout.words;
        let select = rng.draw(generation, Purpose::Selection, pair, 0);
        let (first, second) = (tournament(self.fitness, select[0], select[1]), tournament(self.fitness, select[2], select[3]));
        let crossover = u64::from(rng.draw(generation, Purpose::Selection, pair, 1)[0]) < self.parameters.crossover_threshold;
        let (parent1, parent2) = (&self.parents[first * words..][..words], &self.parents[second * words..][..words]);
        let (child1, child2) = children.split_at_mut(words);
        for batch in (0..layout.item_words).step_by(MASK_BATCH) {
            let masks = if crossover { rng.crossover_masks::<MASK_BATCH>(generation, pair, batch as u32) } else { [0; MASK_BATCH] };
            for (w, &mask) in (batch..layout.item_words.min(batch + MASK_BATCH)).zip(&masks) {
                let (a, b) = (parent1[w], parent2[w]);
                let [flip1, flip2] = rng.mutation_masks(generation, pair, w as u32, self.parameters.mutation_threshold);
                let valid = layout.word_mask(w);
                child1[w] = ((!mask & a) | (mask & b)) ^ (flip1 & valid);
                child2[w] = ((mask & a) | (!mask & b)) ^ (flip2 & valid);
            }
        }
        child1[layout.item_words..].fill(0);
        child2[layout.item_words..].fill(0);
    }
}

/// The offspring loop compiled for AVX2, chosen at run time (the crate targets baseline x86-64).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    #[target_feature(enable = "avx2")]
    pub(super) fn pair(breeding: &super::Breeding<'_>, pair: usize, children: &mut [u32]) {
        breeding.pair_body(pair, children);
    }
}

impl Island {
    /// Island `index` with its random initial population (density 1/2), evaluated.
    pub fn new(evaluator: &Evaluator<'_>, parameters: Parameters, index: u32, threads: Threads) -> Island {
        let rng = CounterRng::new(parameters.seed, index);
        let layout = parameters.layout;
        let mut population = vec![0u32; parameters.island_size * layout.words];
        let initialise = |(individual, chromosome): (usize, &mut [u32])| {
            for (w, gene) in chromosome[..layout.item_words].iter_mut().enumerate() {
                *gene = rng.draw(0, Purpose::Initial, individual as u32, w as u32)[0] & layout.word_mask(w);
            }
        };
        match threads {
            Threads::Single => population.chunks_mut(layout.words).enumerate().for_each(initialise),
            Threads::Rayon => population.par_chunks_mut(layout.words).enumerate().for_each(initialise),
        }
        let repair = parameters.variant.repairs_initial().then(|| std::sync::Arc::new(Repair::new(evaluator.instance())));
        if let Some(repair) = &repair {
            repair_all(evaluator, repair, layout.words, &mut population, threads);
        }
        let mut island = Island {
            index,
            rng,
            parameters,
            fitness: vec![0; parameters.island_size],
            population,
            offspring: vec![0; parameters.offspring_size * layout.words],
            offspring_fitness: vec![0; parameters.offspring_size],
            repair,
        };
        evaluate_all(evaluator, layout.words, &island.population, &mut island.fitness, threads);
        island
    }

    /// The island's index in the ring (its Philox key word 1).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The shared GA settings.
    pub fn parameters(&self) -> &Parameters {
        &self.parameters
    }

    /// Parent population, packed chromosome-major (`island_size × words`).
    pub fn population(&self) -> &[u32] {
        &self.population
    }

    /// Parent fitness values.
    pub fn fitness(&self) -> &[Fitness] {
        &self.fitness
    }

    /// Offspring population of the last genetic manipulation (`offspring_size × words`).
    pub fn offspring(&self) -> &[u32] {
        &self.offspring
    }

    /// Offspring fitness values of the last evaluation.
    pub fn offspring_fitness(&self) -> &[Fitness] {
        &self.offspring_fitness
    }

    /// Parent `individual`'s packed chromosome.
    pub fn chromosome(&self, individual: usize) -> &[u32] {
        let words = self.parameters.layout.words;
        &self.population[individual * words..][..words]
    }

    /// Selection, crossover and mutation: fills the offspring population (Section V.B).
    pub fn genetic_manipulation(&mut self, generation: u32, threads: Threads) {
        let breeding = Breeding::new(self.rng, &self.parameters, &self.population, &self.fitness, generation);
        let pair_words = 2 * self.parameters.layout.words;
        match threads {
            Threads::Single => self.offspring.chunks_mut(pair_words).enumerate().for_each(|(p, c)| breeding.pair(p, c)),
            Threads::Rayon => self.offspring.par_chunks_mut(pair_words).enumerate().for_each(|(p, c)| breeding.pair(p, c)),
        }
    }

    /// Fitness of every offspring (Section V.C), each repaired first under [`Variant::Repair`].
    pub fn evaluate(&mut self, evaluator: &Evaluator<'_>, threads: Threads) {
        if let (Some(repair), true) = (&self.repair, self.parameters.variant.repairs_offspring()) {
            repair_all(evaluator, repair, self.parameters.layout.words, &mut self.offspring, threads);
        }
        evaluate_all(evaluator, self.parameters.layout.words, &self.offspring, &mut self.offspring_fitness, threads);
    }

    /// Each parent slot against a random offspring; strictly fitter offspring replace (Section V.D).
    pub fn replace(&mut self, generation: u32, threads: Threads) {
        let (rng, words) = (self.rng, self.parameters.layout.words);
        let (offspring, offspring_fitness) = (&self.offspring, &self.offspring_fitness);
        let slot = |(i, (chromosome, fitness)): (usize, (&mut [u32], &mut Fitness))| {
            replace_slot(rng, generation, i, chromosome, fitness, offspring, offspring_fitness);
        };
        match threads {
            Threads::Single => self.population.chunks_mut(words).zip(self.fitness.iter_mut()).enumerate().for_each(slot),
            Threads::Rayon => self.population.par_chunks_mut(words).zip(self.fitness.par_iter_mut()).enumerate().for_each(slot),
        }
    }

    /// One generation without migration: genetic manipulation, evaluation, replacement.
    pub fn generation(&mut self, evaluator: &Evaluator<'_>, generation: u32, threads: Threads) {
        self.genetic_manipulation(generation, threads);
        self.evaluate(evaluator, threads);
        self.replace(generation, threads);
    }

    /// Lowest index of the highest fitness.
    pub fn best_index(&self) -> usize {
        let best = self.fitness.iter().copied().max().unwrap_or(0);
        self.fitness.iter().position(|&f| f == best).unwrap_or(0)
    }

    /// Best, worst, mean and standard deviation of the parent fitness (Section V.F).
    pub fn statistics(&self) -> IslandStatistics {
        IslandStatistics::of(&self.fitness)
    }
}

/// Fitness of each chromosome of `population` into `fitness`.
fn evaluate_all(evaluator: &Evaluator<'_>, words: usize, population: &[u32], fitness: &mut [Fitness], threads: Threads) {
    let one = |(chromosome, f): (&[u32], &mut Fitness)| *f = evaluator.evaluate(chromosome).fitness;
    match threads {
        Threads::Single => population.chunks(words).zip(fitness.iter_mut()).for_each(one),
        Threads::Rayon => population.par_chunks(words).zip(fitness.par_iter_mut()).for_each(one),
    }
}

/// Repairs each chromosome of `population` in place.
fn repair_all(evaluator: &Evaluator<'_>, repair: &Repair, words: usize, population: &mut [u32], threads: Threads) {
    let one = |chromosome: &mut [u32]| {
        repair.repair(evaluator, chromosome);
    };
    match threads {
        Threads::Single => population.chunks_mut(words).for_each(one),
        Threads::Rayon => population.par_chunks_mut(words).for_each(one),
    }
}

/// Parent slot `i` (its `chromosome` and `fitness`) against a random offspring of `generation` (`offspring` packed
/// chromosome-major, one fitness each); a strictly fitter offspring replaces it (Section V.D, [`Island::replace`]).
pub fn replace_slot(
    rng: CounterRng,
    generation: u32,
    i: usize,
    chromosome: &mut [u32],
    fitness: &mut Fitness,
    offspring: &[u32],
    offspring_fitness: &[Fitness],
) {
    let words = chromosome.len();
    let o = random_index(rng.draw(generation, Purpose::Replacement, i as u32, 0)[0], offspring_fitness.len());
    if offspring_fitness[o] > *fitness {
        chromosome.copy_from_slice(&offspring[o * words..][..words]);
        *fitness = offspring_fitness[o];
    }
}
