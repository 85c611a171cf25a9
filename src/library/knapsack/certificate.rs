//! What is known of an instance's optimum: Dantzig's bound, a greedy solution, and the exact optimum by dynamic
//! programming where it fits the budget.

use std::{fmt, ops::Add};

use super::Instance;

/// [`optimum_dp`] gives up above this many table cells (capacity + 1) × items.
pub const MAX_DP_CELLS: u64 = 2_000_000_000;

/// Optimum of `jaros_knap_10000.txt`, the paper's 10,000-item instance. Its prices are `weight + 50`, so a solution
/// `S` is worth `W(S) + 50·|S| ≤ capacity + 50·k`, where `k` (7,092) is the most items that fit (the `k` lightest);
/// a `k`-item subset weighing exactly the capacity (2,484,605) attains the bound. The test
/// `jaros_10000_optimum_is_attained` rebuilds such a subset; a full dynamic program (2.5·10¹⁰ cells, beyond
/// [`MAX_DP_CELLS`]) agrees.
pub const JAROS_KNAP_10000_OPTIMUM: u64 = 2_839_205;

/// Exact optimum by dynamic programming over capacities (one row, updated in place), or `None` when
/// (capacity + 1) × items exceeds [`MAX_DP_CELLS`]. Uses `u32` cells when the total price fits, else `u64`.
pub fn optimum_dp(instance: &Instance) -> Option<u64> {
    let cells = instance.capacity.checked_add(1)?.checked_mul(instance.item_count() as u64)?;
    if cells > MAX_DP_CELLS {
        return None;
    }
    let capacity = usize::try_from(instance.capacity).ok()?;
    // Weightless items are always packed; items heavier than the knapsack never are.
    let free: u64 = instance.prices.iter().zip(&instance.weights).filter(|(_, w)| **w == 0).map(|(&p, _)| u64::from(p)).sum();
    let items: Vec<(u32, usize)> =
        instance.prices.iter().zip(&instance.weights).map(|(&p, &w)| (p, w as usize)).filter(|&(_, w)| w > 0 && w <= capacity).collect();
    let best = if instance.total_price() <= u64::from(u32::MAX) {
        u64::from(dp_row::<u32>(&items, capacity))
    } else {
        dp_row::<u64>(&items, capacity)
    };
    Some(free + best)
}

/// `best[c]` = the highest price of a subset weighing at most `c`; returns `best[capacity]`. Each item updates the
/// row from the top down in blocks of `LANES` cells, which read only cells below the block (weight ≥ `LANES`) and
/// therefore vectorise; lighter items take the scalar loop.
fn dp_row<T: Copy + Ord + Default + Add<Output = T> + From<u32>>(items: &[(u32, usize)], capacity: usize) -> T {
    const LANES: usize = 16;
    let mut best = vec![T::default(); capacity + 1];
    for &(price, weight) in items {
        let price = T::from(price);
        let mut top = capacity + 1;
        if weight >= LANES {
            while top >= weight + LANES {
                let low = top - LANES;
                let mut source = [T::default(); LANES];
                source.copy_from_slice(&best[low - weight..top - weight]);
                for (cell, &s) in best[low..top].iter_mut().zip(&source) {
                    *cell = (*cell).max(s + price);
                }
                top = low;
            }
        }
        for c in (weight..top).rev() {
            best[c] = best[c].max(best[c - weight] + price);
        }
    }
    best[capacity]
}

/// Dantzig's bound: the optimum of the linear relaxation, rounded down. Items by decreasing price/weight (those that
/// fit alone) fill the knapsack; the first item that does not fit contributes the fraction that does. Never below the optimum.
pub fn upper_bound_lp(instance: &Instance) -> u64 {
    let (p, w) = (&instance.prices, &instance.weights);
    // Weightless items are always packed (and would make the ratio order partial).
    let mut bound: u64 = (0..instance.item_count()).filter(|&i| w[i] == 0).map(|i| u64::from(p[i])).sum();
    let mut room = instance.capacity;
    for i in by_ratio(instance) {
        let (price, weight) = (u64::from(p[i]), u64::from(w[i]));
        if weight <= room {
            room -= weight;
            bound += price;
        } else {
            bound += (u128::from(price) * u128::from(room) / u128::from(weight)) as u64;
            break;
        }
    }
    bound
}

/// How [`certify`] found an exact optimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
    /// [`optimum_dp`]: a dense dynamic program over capacities, (capacity + 1) × items cells.
    DenseDp,
    /// [`subset_sum_bitset`]: every price equals its weight, so the optimum is the heaviest reachable weight within
    /// the capacity; a bit-parallel program over capacities, (capacity + 1) / 64 words × items.
    SubsetSumBitset,
    /// The greedy solution is worth Dantzig's bound, so nothing is worth more.
    GreedyMeetsBound,
}

impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Exact::DenseDp => "dense dynamic program over capacities",
            Exact::SubsetSumBitset => "bit-parallel subset-sum program",
            Exact::GreedyMeetsBound => "a greedy solution meets Dantzig's bound",
        })
    }
}

/// What is known of an instance's optimum: Dantzig's bound above it, a greedy feasible solution below it, and the
/// optimum itself where an exact program fits [`MAX_DP_CELLS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// [`upper_bound_lp`]: no solution is worth more.
    pub bound: u64,
    /// [`greedy`]: a feasible solution worth this much exists.
    pub feasible: u64,
    /// The exact optimum and how it was found, or why it was not computed.
    pub optimum: Result<(u64, Exact), String>,
}

impl Certificate {
    /// The value gaps are taken against: the optimum where known, else the bound; with its name.
    pub fn reference(&self) -> (u64, &'static str) {
        match self.optimum {
            Ok((optimum, _)) => (optimum, "optimum"),
            Err(_) => (self.bound, "bound"),
        }
    }

    /// Checks a claimed optimum against what is known; the error says which fact it contradicts.
    pub fn check(&self, claimed: u64) -> Result<(), String> {
        match self.optimum {
            _ if self.bound == 0 && claimed > 0 => {
                Err("the optimum is 0: no item of positive price fits the capacity (Dantzig's bound is 0)".into())
            }
            Ok((optimum, how)) if optimum != claimed => Err(format!("the exact optimum is {optimum} ({how})")),
            _ if claimed > self.bound => Err(format!("it exceeds Dantzig's linear-relaxation bound {}", self.bound)),
            _ if claimed < self.feasible => Err(format!("a feasible solution worth {} exists (greedy by price/weight)", self.feasible)),
            _ => Ok(()),
        }
    }
}

/// Items of positive weight that fit the knapsack alone, by decreasing price/weight (ties by index): Dantzig's order.
/// An item heavier than the capacity is in no solution, so leaving it out keeps the bound valid and tightens it.
fn by_ratio(instance: &Instance) -> Vec<usize> {
    let (p, w) = (&instance.prices, &instance.weights);
    let mut order: Vec<usize> = (0..instance.item_count()).filter(|&i| w[i] > 0 && u64::from(w[i]) <= instance.capacity).collect();
    // p_a/w_a > p_b/w_b ⇔ p_a·w_b > p_b·w_a.
    order.sort_by(|&a, &b| (u64::from(p[b]) * u64::from(w[a])).cmp(&(u64::from(p[a]) * u64::from(w[b]))));
    order
}

/// A feasible solution: the weightless items, then every item in Dantzig's order that still fits (not only up to the
/// first that does not). Its price is a lower bound on the optimum.
pub fn greedy(instance: &Instance) -> Vec<usize> {
    let mut chosen: Vec<usize> = (0..instance.item_count()).filter(|&i| instance.weights[i] == 0).collect();
    let mut room = instance.capacity;
    for i in by_ratio(instance) {
        let weight = u64::from(instance.weights[i]);
        if weight <= room {
            room -= weight;
            chosen.push(i);
        }
    }
    chosen
}

/// Exact optimum of a subset-sum instance (every price equals its weight) by a bit-parallel program: bit `c` of the
/// set says some subset weighs exactly `c`; each item ORs the set shifted by its weight into itself. `None` when the
/// instance is not subset sum or (capacity + 1) / 64 × items exceeds [`MAX_DP_CELLS`].
pub fn subset_sum_bitset(instance: &Instance) -> Option<u64> {
    if instance.prices != instance.weights {
        return None;
    }
    let words = usize::try_from(instance.capacity / 64 + 1).ok()?;
    if (words as u64).checked_mul(instance.item_count() as u64)? > MAX_DP_CELLS {
        return None;
    }
    let capacity = instance.capacity as usize;
    let mut reachable = vec![0u64; words];
    reachable[0] = 1;
    for &w in instance.weights.iter().filter(|&&w| w > 0 && w as usize <= capacity) {
        let (shift, bits) = (w as usize / 64, w as usize % 64);
        // From the top down, so each word reads words not yet updated for this item.
        for i in (shift..words).rev() {
            let low = reachable[i - shift] << bits;
            let carry = if bits > 0 && i > shift { reachable[i - shift - 1] >> (64 - bits) } else { 0 };
            reachable[i] |= low | carry;
        }
    }
    let last = capacity % 64;
    reachable[words - 1] &= if last == 63 { u64::MAX } else { (1u64 << (last + 1)) - 1 };
    let (word, bits) = reachable.iter().enumerate().rev().find(|(_, b)| **b != 0)?;
    Some((word * 64) as u64 + u64::from(63 - bits.leading_zeros()))
}

/// Dantzig's bound, a greedy solution and, where it fits [`MAX_DP_CELLS`], the exact optimum: the bit-parallel
/// subset-sum program for subset-sum instances, else the dense dynamic program.
pub fn certify(instance: &Instance) -> Certificate {
    let bound = upper_bound_lp(instance);
    let feasible = instance.evaluate_items(&greedy(instance)).price;
    let optimum = if feasible == bound {
        // The greedy solution meets the bound: it is optimal, whatever the program's size.
        Ok((feasible, Exact::GreedyMeetsBound))
    } else if let Some(optimum) = subset_sum_bitset(instance) {
        Ok((optimum, Exact::SubsetSumBitset))
    } else {
        optimum_dp(instance).map(|o| (o, Exact::DenseDp)).ok_or_else(|| {
            format!(
                "bound only: the dynamic program needs (capacity {} + 1) × {} items = {:.1e} cells, above the budget of {:.0e}",
                instance.capacity,
                instance.item_count(),
                (instance.capacity as f64 + 1.0) * instance.item_count() as f64,
                MAX_DP_CELLS as f64
            )
        })
    };
    Certificate { bound, feasible, optimum }
}
