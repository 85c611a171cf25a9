//! Counter-based randomness (issue #23: BOA on the device, end to end): Philox
//! keyed by a run's seed, one number per (generation, stream, individual, locus).

use crate::library::philox::philox4x32_10;

/// What a counter-based draw is for: counter word 1 of [`CounterRng::draw`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Stream {
    /// The initial population: one allele per (individual, locus), generation 0.
    Initial = 0,
    /// pBOA's permutation: one key per node (individual 0, locus = node).
    Permutation = 1,
    /// Ancestral sampling: one number per (offspring, locus).
    Sampling = 2,
}

/// Philox4x32-10 keyed by a run's seed (`kernels/boa_run.cu` draws the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterRng {
    key: [u32; 2],
}

impl CounterRng {
    /// Key words: the seed's low and high halves.
    pub fn new(seed: u64) -> Self {
        CounterRng { key: [seed as u32, (seed >> 32) as u32] }
    }

    /// Word 0 of Philox4x32-10 at counter (generation, stream, individual, locus).
    pub fn draw(&self, generation: u32, stream: Stream, individual: u32, locus: u32) -> u32 {
        philox4x32_10([generation, stream as u32, individual, locus], self.key)[0]
    }

    /// The allele of `individual` at `locus` in the initial population: the top bit.
    pub fn initial_allele(&self, individual: u32, locus: u32) -> u8 {
        (self.draw(0, Stream::Initial, individual, locus) >> 31) as u8
    }

    /// pBOA's permutation of generation `generation` over `ell` nodes (`perm[i]` =
    /// node `i`'s position): node `i` draws key `r_i`, and its position is the number
    /// of nodes `j` with `(r_j, j) < (r_i, i)` — a rank with no ties, so a device
    /// computing the same count gets the same permutation.
    pub fn permutation(&self, generation: u32, ell: usize) -> Vec<usize> {
        let keys: Vec<(u32, usize)> = (0..ell).map(|j| (self.draw(generation, Stream::Permutation, 0, j as u32), j)).collect();
        keys.iter().map(|ki| keys.iter().filter(|kj| *kj < ki).count()).collect()
    }
}
