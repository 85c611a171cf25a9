//! The counter-based draws of [`Randomness::Counter`], the specification the
//! device run (`kernels/ecga_run.cu`) follows bit for bit. Every draw is
//! Philox4x32-10 at counter (generation, stream, individual, round) under the
//! key (seed low word, seed high word).

#[cfg(doc)]
use super::Randomness;

use crate::library::philox::philox4x32_10;

/// Counter word 1: what a draw is for.
pub const STREAM_INIT: u32 = 0;
pub const STREAM_SELECTION: u32 = 1;
pub const STREAM_SAMPLING: u32 = 2;

/// Philox4x32-10 at (generation, stream, individual, round) under `seed`.
pub fn draw(seed: u64, generation: u32, stream: u32, individual: u32, round: u32) -> [u32; 4] {
    philox4x32_10([generation, stream, individual, round], [seed as u32, (seed >> 32) as u32])
}

/// Word `w` of locus `l` of the initial population, packed by locus
/// (individual 64·w + b at bit b): words 0 and 1 of the draw at
/// (0, [`STREAM_INIT`], l, w), low then high half. Bits past N are dropped.
pub fn initial_word(seed: u64, l: usize, w: usize) -> u64 {
    let r = draw(seed, 0, STREAM_INIT, l as u32, w as u32);
    u64::from(r[1]) << 32 | u64::from(r[0])
}

/// The sort key of individual `i` in permutation `round` of `stream` in
/// `generation`: word 0 of its draw above, the index below (so no two keys
/// are equal and ties go to the lower index).
pub fn key(seed: u64, generation: u32, stream: u32, i: usize, round: u32) -> u64 {
    u64::from(draw(seed, generation, stream, i as u32, round)[0]) << 32 | i as u64
}

/// A permutation of `0..n`: the indices sorted by [`key`].
pub fn permutation(n: usize, seed: u64, generation: u32, stream: u32, round: u32) -> Vec<u32> {
    let mut keys: Vec<u64> = (0..n).map(|i| key(seed, generation, stream, i, round)).collect();
    keys.sort_unstable();
    keys.into_iter().map(|k| k as u32).collect()
}

/// Permutations per generation of tournament selection without
/// replacement: each gives ⌊N/s⌋ winners, until N are chosen.
pub fn selection_rounds(n: usize, s: usize) -> usize {
    n.div_ceil(n / s)
}
