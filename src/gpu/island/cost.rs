//! What a generation costs on the device: the memory it needs, the bytes it moves, the Philox calls and integer
//! operations it performs (Section VI), and the Philox rate those are compared with.

use anyhow::Result;
use cudarc::driver::{LaunchConfig, PushKernelArg};

use super::{ISLAND_CU, MUTATION_CALLS, WARP, WARPS_PER_BLOCK};
use crate::gpu::{Gpu, launch_err};
use crate::library::island::Layout;
use crate::library::knapsack::WORD_BITS;

/// Offspring per generation `M = 2·⌈⌊N/2⌋/2⌉` of an island of `island_size` (as [`Parameters`]).
///
/// [`Parameters`]: crate::library::island::Parameters
pub(super) fn offspring_size(island_size: usize) -> usize {
    2 * (island_size / 2).div_ceil(2)
}

/// Device bytes of a run: per island the parents, the offspring twice (the fused design's two sets) and the
/// emigrant buffer (packed genomes of the padded length and 64-bit fitness values) and a second set of parent
/// fitness values, plus the price and weight tables padded to the chromosome length.
pub fn device_bytes(items: usize, island_size: usize, islands: usize, emigrants: usize) -> u128 {
    let words = Layout::new(items).words as u128;
    let individuals = islands as u128 * (island_size + 2 * offspring_size(island_size) + emigrants) as u128;
    individuals * (4 * words + 8) + islands as u128 * island_size as u128 * 8 + 2 * 4 * words * WORD_BITS as u128
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
    let seconds = crate::gpu::ceilings::median_seconds(gpu, repeats, &mut || {
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
