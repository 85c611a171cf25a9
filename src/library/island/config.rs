//! Run parameters (Section VI), the chromosome layout (Section IV.A) and the GA settings every island shares.

use anyhow::{Result, ensure};

use super::{MUTATION_CALLS, TAG_SHIFT, Variant, probability_threshold};
use crate::library::knapsack::{Instance, WORD_BITS};

/// Words per chromosome chunk handled by one warp (1024 genes).
pub const CHUNK_WORDS: usize = 32;

/// Whether loops run on the calling thread or on rayon's pool. Both give bit-identical results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// Plain loops.
    Single,
    /// Rayon over islands, offspring pairs, offspring and parent slots.
    Rayon,
}

/// Run parameters (Section VI).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Number of islands `I`.
    pub islands: usize,
    /// Individuals per island `N`.
    pub island_size: usize,
    /// Generations to evolve.
    pub generations: u32,
    /// Generations between migrations (0: never).
    pub migration_interval: u32,
    /// Fraction of the island that emigrates (at least one individual, the best).
    pub migration_fraction: f64,
    /// Probability that a pair is crossed over.
    pub crossover_p: f64,
    /// Probability that a gene is flipped.
    pub mutation_p: f64,
    /// Run seed.
    pub seed: u64,
    /// Threading of the CPU loops.
    pub threads: Threads,
    /// Generations between statistics records in the trace (0: only the initial and final records).
    pub statistics_interval: u32,
    /// The paper's GA or a labelled variant.
    pub variant: Variant,
}

impl Config {
    /// The paper's parameters (Section VI): crossover 0.7, mutation 0.001, 10% migrating every 100 generations;
    /// single-threaded, statistics every 100 generations.
    pub fn paper(islands: usize, island_size: usize, generations: u32, seed: u64) -> Config {
        Config {
            islands,
            island_size,
            generations,
            migration_interval: 100,
            migration_fraction: 0.1,
            crossover_p: 0.7,
            mutation_p: 0.001,
            seed,
            threads: Threads::Single,
            statistics_interval: 100,
            variant: Variant::Paper,
        }
    }

    /// Emigrants per migration: `⌈fraction·N⌉` (with a 10⁻⁹ allowance for rounding, so 0.1·30 gives 3), at least 1
    /// and at most `N`.
    pub fn emigrants(&self) -> usize {
        ((self.migration_fraction * self.island_size as f64 - 1e-9).ceil().max(1.0) as usize).min(self.island_size)
    }

    /// Whether migration follows generation `generation`.
    pub fn migrates_after(&self, generation: u32) -> bool {
        self.islands > 1 && self.migration_interval > 0 && (generation + 1).is_multiple_of(self.migration_interval)
    }

    /// Checks the parameters against the counter layout and the instance.
    pub fn validate(&self, instance: &Instance) -> Result<()> {
        ensure!(self.islands >= 1 && self.islands <= u32::MAX as usize, "islands = {} must be in 1..=2^32-1", self.islands);
        ensure!(
            self.island_size >= 2 && self.island_size < 1 << TAG_SHIFT,
            "island_size = {} must be in 2..2^28 (random-number counter layout)",
            self.island_size
        );
        for (name, p) in
            [("migration_fraction", self.migration_fraction), ("crossover_p", self.crossover_p), ("mutation_p", self.mutation_p)]
        {
            ensure!((0.0..=1.0).contains(&p), "{name} = {p} must be a probability in [0, 1]");
        }
        ensure!(instance.item_count() > 0, "instance {} has no items", instance.name);
        let words = Layout::new(instance.item_count()).words as u64;
        ensure!(
            words * u64::from(MUTATION_CALLS) <= 1 << 32,
            "instance {} has {} items; the counter layout holds at most 2^28 words (2^33 items)",
            instance.name,
            instance.item_count()
        );
        Ok(())
    }
}

/// Chromosome geometry: padded length and the words that hold items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Items (genes) per chromosome.
    pub items: usize,
    /// Words per chromosome, a multiple of [`CHUNK_WORDS`].
    pub words: usize,
    /// Words that hold at least one item: `⌈items / 32⌉`; the rest are zero.
    pub item_words: usize,
}

impl Layout {
    /// The layout for `items` genes.
    pub fn new(items: usize) -> Layout {
        let item_words = items.div_ceil(WORD_BITS);
        Layout { items, words: item_words.div_ceil(CHUNK_WORDS).max(1) * CHUNK_WORDS, item_words }
    }

    /// Mask of the item bits of word `word` (zero for padding).
    pub fn word_mask(&self, word: usize) -> u32 {
        let first = word * WORD_BITS;
        match self.items.saturating_sub(first) {
            0 => 0,
            left if left >= WORD_BITS => u32::MAX,
            left => (1 << left) - 1,
        }
    }
}

/// The GA settings every island shares.
#[derive(Clone, Copy, Debug)]
pub struct Parameters {
    /// Chromosome geometry.
    pub layout: Layout,
    /// Individuals per island `N`.
    pub island_size: usize,
    /// Offspring per generation `M` (even, about `N/2`).
    pub offspring_size: usize,
    /// `round(crossover_p·2³²)`.
    pub crossover_threshold: u64,
    /// `round(mutation_p·2³²)`.
    pub mutation_threshold: u64,
    /// Run seed.
    pub seed: u64,
    /// The paper's GA or a variant.
    pub variant: Variant,
}

impl Parameters {
    /// Settings of `config` on `instance` (validated).
    pub fn new(instance: &Instance, config: &Config) -> Result<Parameters> {
        config.validate(instance)?;
        Ok(Parameters {
            layout: Layout::new(instance.item_count()),
            island_size: config.island_size,
            offspring_size: 2 * (config.island_size / 2).div_ceil(2),
            crossover_threshold: probability_threshold(config.crossover_p),
            mutation_threshold: probability_threshold(config.mutation_p),
            seed: config.seed,
            variant: config.variant,
        })
    }
}
