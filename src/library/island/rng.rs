//! Counter-based random numbers (Section V.A) and the tournaments they drive (Sections V.B and V.E).

use crate::library::{
    knapsack::{Fitness, WORD_BITS},
    philox::{philox4x32_10, philox4x32_10_lanes},
};

/// Position of the purpose tag in counter word 1.
pub const TAG_SHIFT: u32 = 28;
/// Mutation draws per chromosome word (16 Philox calls × 4 words = 32 numbers for each of two children).
pub const MUTATION_CALLS: u32 = 16;

/// What a random number is for: the tag in counter word 1 (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Genes of the initial population.
    Initial = 0,
    /// Parent tournaments and the crossover decision.
    Selection = 1,
    /// Uniform crossover masks.
    CrossoverMask = 2,
    /// Bit-flip mutation.
    Mutation = 3,
    /// Offspring picked by a parent slot.
    Replacement = 4,
    /// Emigrant tournaments.
    Emigration = 5,
    /// Resident picked by an immigrant.
    Immigration = 6,
}

/// The random numbers of one island: Philox4x32-10 under the key `[seed mod 2³², island]`.
#[derive(Clone, Copy, Debug)]
pub struct CounterRng {
    key: [u32; 2],
    seed_high: u32,
}

impl CounterRng {
    /// The generator of `island` for run `seed`.
    pub fn new(seed: u64, island: u32) -> CounterRng {
        CounterRng { key: [seed as u32, island], seed_high: (seed >> 32) as u32 }
    }

    /// The Philox counter of a draw (module documentation).
    pub fn counter(&self, generation: u32, purpose: Purpose, index: u32, c2: u32) -> [u32; 4] {
        debug_assert!(index < 1 << TAG_SHIFT);
        [generation, (purpose as u32) << TAG_SHIFT | index, c2, self.seed_high]
    }

    /// Four random words for (generation, purpose, index, c2).
    pub fn draw(&self, generation: u32, purpose: Purpose, index: u32, c2: u32) -> [u32; 4] {
        philox4x32_10(self.counter(generation, purpose, index, c2), self.key)
    }

    /// Uniform-crossover masks of words `first..first + B` of `pair` (eq. 1): word `w`'s mask is `out[0]` of its own
    /// call, batched `B` calls at a time.
    #[inline(always)]
    pub fn crossover_masks<const B: usize>(&self, generation: u32, pair: u32, first: u32) -> [u32; B] {
        let [c0, c1, _, c3] = self.counter(generation, Purpose::CrossoverMask, pair, 0);
        let c2: [u32; B] = std::array::from_fn(|k| first + k as u32);
        philox4x32_10_lanes::<B>([[c0; B], [c1; B], c2, [c3; B]], self.key)[0]
    }

    /// Bit-flip masks of chromosome word `word` of both children of `pair` (eq. 2): bit `b` of mask `c` is set when
    /// random number `32·c + b` of the word is below `threshold`.
    #[inline(always)]
    pub fn mutation_masks(&self, generation: u32, pair: u32, word: u32, threshold: u64) -> [u32; 2] {
        const K: usize = MUTATION_CALLS as usize;
        let [c0, c1, _, c3] = self.counter(generation, Purpose::Mutation, pair, 0);
        let c2: [u32; K] = std::array::from_fn(|k| MUTATION_CALLS * word + k as u32);
        let out = philox4x32_10_lanes::<K>([[c0; K], [c1; K], c2, [c3; K]], self.key);
        // r < T in 64 bits, as a 32-bit compare: T > u32::MAX fires always.
        let (always, limit) = (threshold > u64::from(u32::MAX), threshold as u32);
        let mut masks = [0u32; 2];
        for (j, lane) in out.iter().enumerate() {
            for (k, &r) in lane.iter().enumerate() {
                let number = 4 * k + j;
                masks[number / WORD_BITS] |= u32::from(always || r < limit) << (number % WORD_BITS);
            }
        }
        masks
    }
}

/// `T = round(p·2³²)`: a 32-bit random number `r` fires with probability `p` when `r < T` (compared in 64 bits).
pub fn probability_threshold(p: f64) -> u64 {
    (p * 4_294_967_296.0).round() as u64
}

/// Index `⌊r·n / 2³²⌋ < n` picked by the random number `r` (CUDA `__umulhi(r, n)`).
pub fn random_index(r: u32, n: usize) -> usize {
    ((u64::from(r) * n as u64) >> 32) as usize
}

/// Binary tournament: the fitter of the candidates picked by `r0` and `r1`; ties go to the second.
pub fn tournament(fitness: &[Fitness], r0: u32, r1: u32) -> usize {
    let (a, b) = (random_index(r0, fitness.len()), random_index(r1, fitness.len()));
    if fitness[a] > fitness[b] { a } else { b }
}

/// Inverse binary tournament: the less fit of the candidates picked by `r0` and `r1`; ties go to the second.
pub fn inverse_tournament(fitness: &[Fitness], r0: u32, r1: u32) -> usize {
    let (a, b) = (random_index(r0, fitness.len()), random_index(r1, fitness.len()));
    if fitness[a] < fitness[b] { a } else { b }
}
