//! The penalised fitness of bit-packed solutions (Section V.C), summed in 32 lanes as the paper's warp does.

use std::ops::Add;

use super::{Fitness, Instance, WORD_BITS};

/// Price, weight and fitness of one solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// Total price of the packed items.
    pub price: u64,
    /// Total weight of the packed items.
    pub weight: u64,
    /// Penalised price (equals `price` when feasible).
    pub fitness: Fitness,
    /// Whether `weight ≤ capacity`.
    pub feasible: bool,
}

/// Evaluates bit-packed chromosomes of one instance (Section V.C); holds the penalty ratio.
#[derive(Clone, Copy, Debug)]
pub struct Evaluator<'a> {
    instance: &'a Instance,
    ratio: u64,
    /// Whether prices and weights each sum below 2³² (32-bit partial sums suffice).
    narrow: bool,
}

impl<'a> Evaluator<'a> {
    /// Precomputes the penalty ratio of `instance`.
    pub fn new(instance: &'a Instance) -> Evaluator<'a> {
        let narrow = instance.total_price() <= u64::from(u32::MAX) && instance.total_weight() <= u64::from(u32::MAX);
        Evaluator { instance, ratio: instance.penalty_ratio(), narrow }
    }

    /// The instance evaluated.
    pub fn instance(&self) -> &'a Instance {
        self.instance
    }

    /// The penalty ratio in use.
    pub fn ratio(&self) -> u64 {
        self.ratio
    }

    /// Evaluates a bit-packed chromosome: bit `i % 32` of word `i / 32` says whether item `i` is packed. Words past
    /// the items (padding) are ignored and must be zero, as must the unused high bits of the last item word.
    ///
    /// Like the paper's warp (Section V.C), 32 lanes keep partial sums, lane `b` adding the price and weight of bit
    /// `b` of every word; the lanes are reduced at the end. The lanes are `u32` when all prices and all weights sum
    /// below 2³² (no lane can overflow), else `u64`.
    pub fn evaluate(&self, chromosome: &[u32]) -> Evaluation {
        let instance = self.instance;
        let (prices, price_tail) = instance.prices.as_chunks::<WORD_BITS>();
        let (weights, weight_tail) = instance.weights.as_chunks::<WORD_BITS>();
        let full = prices.len();
        let (mut price, mut weight) = if self.narrow {
            lane_sums::<u32>(&chromosome[..full], prices, weights)
        } else {
            lane_sums::<u64>(&chromosome[..full], prices, weights)
        };
        if !price_tail.is_empty() {
            let word = chromosome[full];
            debug_assert_eq!(word >> price_tail.len(), 0, "padding bits set in the last item word");
            for (b, (&p, &w)) in price_tail.iter().zip(weight_tail).enumerate() {
                if word >> b & 1 == 1 {
                    price += u64::from(p);
                    weight += u64::from(w);
                }
            }
        }
        Evaluation { price, weight, fitness: instance.fitness(price, weight, self.ratio), feasible: weight <= instance.capacity }
    }
}

/// Total price and weight of the bits of `words` over 32 partial-sum lanes (branch-free, vectorisable).
#[inline]
fn lane_sums<T: Copy + Default + Add<Output = T> + From<u32> + Into<u64>>(
    words: &[u32],
    prices: &[[u32; WORD_BITS]],
    weights: &[[u32; WORD_BITS]],
) -> (u64, u64) {
    let bit: [u32; WORD_BITS] = std::array::from_fn(|b| 1 << b);
    let (mut price, mut weight) = ([T::default(); WORD_BITS], [T::default(); WORD_BITS]);
    for ((&word, p), w) in words.iter().zip(prices).zip(weights) {
        for b in 0..WORD_BITS {
            let mask = if word & bit[b] != 0 { u32::MAX } else { 0 };
            price[b] = price[b] + T::from(p[b] & mask);
            weight[b] = weight[b] + T::from(w[b] & mask);
        }
    }
    (price.into_iter().map(Into::into).sum(), weight.into_iter().map(Into::into).sum())
}
