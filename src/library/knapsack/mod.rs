//! The 0/1 knapsack benchmark of Jaros 2012 (Sections IV.C and V.C): instances, the penalised fitness of a
//! bit-packed solution, exact and bounding solvers, and Pisinger's instance generator (Pisinger 2005).
//!
//! # Penalty (Section V.C)
//! The paper only says that the fitness (total price) "is penalized" when the capacity is exceeded, using "an item
//! with the maximum price/weight rate" (Section IV.C). The author's public GPU-GA-Knapsack code makes this precise,
//! and we follow it, in integers so CPU and GPU agree exactly:
//!
//! ```text
//! ratio   = max(1, max over items with w_i > 0 of ⌊p_i / w_i⌋)      (integer division, as in the author's loader)
//! fitness = price                                                 if weight ≤ capacity
//!         = max(0, price − ratio · (weight − capacity))           otherwise
//! ```
//!
//! The author's code computes `p_i / w_i` in integers, then the penalty in `float` and clamps at zero; we keep the
//! integer ratio and do the penalty in saturating `u64`. The `max(1, …)` differs from the author only when every item
//! has `p_i < w_i` (the author's ratio is then 0 and overweight solutions go unpenalised). For
//! `jaros_knap_10000` (prices = weights + 50) the ratio is 51; for `jaros_knap_40` it is 214.

mod certificate;
mod evaluation;
mod instance;
mod pisinger;
#[cfg(test)]
mod tests;

pub use certificate::{
    Certificate, Exact, JAROS_KNAP_10000_OPTIMUM, MAX_DP_CELLS, certify, greedy, optimum_dp, subset_sum_bitset, upper_bound_lp,
};
pub use evaluation::{Evaluation, Evaluator};
#[cfg(test)]
pub(crate) use instance::paper_instance;
pub use instance::{Instance, MAX_INSTANCE_BYTES, MAX_INSTANCE_ITEMS};
pub use pisinger::{PisingerKind, pisinger, pisinger_with_ratio};

/// Fitness of a solution: the penalised total price (see the module documentation).
pub type Fitness = u64;

/// Bits (items) per packed chromosome word.
pub const WORD_BITS: usize = 32;
