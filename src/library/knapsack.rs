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

use std::{fmt, ops::Add, path::Path};

use crate::library::dataset::{SizeLimit, read_data_file};
use anyhow::{Context, Result, bail, ensure};

/// Fitness of a solution: the penalised total price (see the module documentation).
pub type Fitness = u64;

/// Bits (items) per packed chromosome word.
pub const WORD_BITS: usize = 32;

/// [`optimum_dp`] gives up above this many table cells (capacity + 1) × items.
pub const MAX_DP_CELLS: u64 = 2_000_000_000;

/// The most items of an instance file.
pub const MAX_INSTANCE_ITEMS: usize = 1_000_000;
/// The most bytes of an instance file: its count, two lines of [`MAX_INSTANCE_ITEMS`] numbers of up to 10
/// digits (u32) and a separator each, and the capacity (20 digits), with room for blank lines and CRs.
pub const MAX_INSTANCE_BYTES: u64 = 2 * 12 * MAX_INSTANCE_ITEMS as u64 + 4096;

/// Optimum of `jaros_knap_10000.txt`, the paper's 10,000-item instance. Its prices are `weight + 50`, so a solution
/// `S` is worth `W(S) + 50·|S| ≤ capacity + 50·k`, where `k` (7,092) is the most items that fit (the `k` lightest);
/// a `k`-item subset weighing exactly the capacity (2,484,605) attains the bound. The test
/// `jaros_10000_optimum_is_attained` rebuilds such a subset; a full dynamic program (2.5·10¹⁰ cells, beyond
/// [`MAX_DP_CELLS`]) agrees.
pub const JAROS_KNAP_10000_OPTIMUM: u64 = 2_839_205;

/// A 0/1 knapsack instance: item `i` has price `prices[i]` and weight `weights[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// File stem or generator name.
    pub name: String,
    /// Item prices.
    pub prices: Vec<u32>,
    /// Item weights.
    pub weights: Vec<u32>,
    /// Knapsack capacity.
    pub capacity: u64,
}

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

/// Instance types of Pisinger's generator (the numbering of his `genhard`; definitions in Pisinger 2005, "Where are
/// the hard knapsack problems?", Computers & Operations Research 32(9), Section 2). `w = randm(R) + 1` unless said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PisingerKind {
    /// `p = randm(R) + 1`.
    Uncorrelated = 1,
    /// `p = randm(2·R/10 + 1) + w − R/10`, at least 1.
    WeaklyCorrelated = 2,
    /// `p = w + R/10`.
    StronglyCorrelated = 3,
    /// `p = randm(R) + 1`, `w = p + R/10` (the price is drawn, the weight follows).
    InverseStronglyCorrelated = 4,
    /// `p = w`.
    SubsetSum = 6,
}

impl PisingerKind {
    /// Every kind, in Pisinger's numbering.
    pub const ALL: [PisingerKind; 5] = [
        PisingerKind::Uncorrelated,
        PisingerKind::WeaklyCorrelated,
        PisingerKind::StronglyCorrelated,
        PisingerKind::InverseStronglyCorrelated,
        PisingerKind::SubsetSum,
    ];

    /// The kind's name in specs and reports.
    pub fn name(self) -> &'static str {
        match self {
            PisingerKind::Uncorrelated => "uncorrelated",
            PisingerKind::WeaklyCorrelated => "weakly-correlated",
            PisingerKind::StronglyCorrelated => "strongly-correlated",
            PisingerKind::InverseStronglyCorrelated => "inverse-strongly-correlated",
            PisingerKind::SubsetSum => "subset-sum",
        }
    }

    /// The kind of a name.
    pub fn parse(name: &str) -> Option<PisingerKind> {
        PisingerKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A file position for error messages: `path:line`.
struct At<'a>(&'a Path, usize);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.0.display(), self.1)
    }
}

impl Instance {
    /// Loads the format of the author's loader: line 1 the item count `n`; a line of `n` prices; a line of `n`
    /// weights; the capacity on the last non-empty line. Blank lines are skipped; anything else is an error naming
    /// the file, the line and what was expected.
    /// The file is read as [`read_data_file`] reads it: a regular file (under `root` when given) of at most
    /// [`MAX_INSTANCE_BYTES`].
    pub fn load(path: impl AsRef<Path>, root: Option<&Path>) -> Result<Instance> {
        let path = path.as_ref();
        let limit = SizeLimit { raw: MAX_INSTANCE_BYTES, content: Some(MAX_INSTANCE_BYTES) };
        let bytes = read_data_file(path, root, limit).with_context(|| format!("reading knapsack instance {}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| anyhow::anyhow!("{}: not UTF-8 text after byte {}", path.display(), e.utf8_error().valid_up_to()))?;
        let name = path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned());
        Instance::parse(name, path, &text)
    }

    /// Parses the text of an instance file; `path` only labels error messages.
    pub fn parse(name: String, path: &Path, text: &str) -> Result<Instance> {
        let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line.trim())).filter(|(_, line)| !line.is_empty());
        let Some((count_line, count_text)) = lines.next() else {
            bail!("{}: empty file, expected the item count on line 1", path.display());
        };
        let n: usize = single_integer(At(path, count_line), count_text, "the item count")?;
        ensure!(n > 0, "{}: the item count is 0, expected at least one item", At(path, count_line));
        ensure!(n <= MAX_INSTANCE_ITEMS, "{}: {n} items, at most {MAX_INSTANCE_ITEMS} are accepted", At(path, count_line));

        let (prices_line, prices_text) = lines
            .next()
            .with_context(|| format!("{}: missing the prices line, expected {n} prices after line {count_line}", path.display()))?;
        let prices = integer_row(At(path, prices_line), prices_text, n, "prices")?;
        let (weights_line, weights_text) = lines
            .next()
            .with_context(|| format!("{}: missing the weights line, expected {n} weights after line {prices_line}", path.display()))?;
        let weights = integer_row(At(path, weights_line), weights_text, n, "weights")?;
        let (capacity_line, capacity_text) = lines
            .next()
            .with_context(|| format!("{}: missing the capacity, expected it on a line after line {weights_line}", path.display()))?;
        let capacity: u64 = single_integer(At(path, capacity_line), capacity_text, "the capacity")?;
        if let Some((extra_line, extra)) = lines.next() {
            bail!("{}: unexpected content {extra:?} after the capacity on line {capacity_line}", At(path, extra_line));
        }
        Ok(Instance { name, prices, weights, capacity })
    }

    /// Number of items.
    pub fn item_count(&self) -> usize {
        self.prices.len()
    }

    /// Sum of all prices.
    pub fn total_price(&self) -> u64 {
        self.prices.iter().map(|&p| u64::from(p)).sum()
    }

    /// Sum of all weights.
    pub fn total_weight(&self) -> u64 {
        self.weights.iter().map(|&w| u64::from(w)).sum()
    }

    /// The penalty ratio `max(1, max ⌊p_i / w_i⌋)` over items with nonzero weight (module documentation).
    pub fn penalty_ratio(&self) -> u64 {
        self.prices.iter().zip(&self.weights).filter(|(_, w)| **w > 0).map(|(&p, &w)| u64::from(p / w)).max().unwrap_or(0).max(1)
    }

    /// The penalised fitness of a solution with total `price` and `weight`, given the penalty `ratio`.
    pub fn fitness(&self, price: u64, weight: u64, ratio: u64) -> Fitness {
        match weight.checked_sub(self.capacity) {
            None | Some(0) => price,
            Some(excess) => price.saturating_sub(ratio.saturating_mul(excess)),
        }
    }

    /// Price, weight and fitness of a set of item indices (each at most once).
    pub fn evaluate_items(&self, items: &[usize]) -> Evaluation {
        let price = items.iter().map(|&i| u64::from(self.prices[i])).sum();
        let weight = items.iter().map(|&i| u64::from(self.weights[i])).sum();
        Evaluation { price, weight, fitness: self.fitness(price, weight, self.penalty_ratio()), feasible: weight <= self.capacity }
    }
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

/// Parses a line that must hold exactly one non-negative integer.
fn single_integer<T: std::str::FromStr>(at: At<'_>, text: &str, what: &str) -> Result<T> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    ensure!(tokens.len() == 1, "{at}: expected {what} alone on the line, found {} tokens: {text:?}", tokens.len());
    tokens[0].parse().map_err(|_| anyhow::anyhow!("{at}: {what} {:?} is not a non-negative integer in range", tokens[0]))
}

/// Parses a line that must hold exactly `n` unsigned 32-bit integers.
fn integer_row(at: At<'_>, text: &str, n: usize, what: &str) -> Result<Vec<u32>> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    ensure!(tokens.len() == n, "{at}: expected {n} {what} (the item count), found {}", tokens.len());
    tokens
        .iter()
        .enumerate()
        .map(|(i, token)| {
            token.parse().map_err(|_| anyhow::anyhow!("{at}: {what} #{} {token:?} is not an integer in 0..=4294967295", i + 1))
        })
        .collect()
}

/// Pisinger's instance generator ("Where are the hard knapsack problems?", C&OR 2005) as given in the data
/// provenance notes: item weights `randm(R) + 1`, prices by `kind`, capacity `⌊v·Σw / (S + 1)⌋` but at least the
/// largest weight. `v` is the instance number and also seeds the generator. Named `knapPI_{kind}_{n}_{R}_{v}`.
pub fn pisinger(kind: PisingerKind, n: usize, r: u32, v: u32, s: u32) -> Instance {
    let (prices, weights) = pisinger_items(kind, n, r, &mut PisingerRng::new(v));
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let largest = weights.iter().copied().max().map_or(0, u64::from);
    let capacity = (u64::from(v) * total / (u64::from(s) + 1)).max(largest);
    Instance { name: format!("knapPI_{}_{n}_{r}_{v}", kind as u32), prices, weights, capacity }
}

/// An instance of Pisinger's families (Pisinger 2005, Section 2) whose capacity is a fraction of the total weight:
/// items as in [`pisinger`] from the generator seeded with `seed`, capacity `⌊ratio·Σw⌋` but at least the largest
/// weight (so every item fits alone, as in Pisinger's instances). Named `knapPI_{kind}_{n}_{R}_c{ratio}_s{seed}`.
pub fn pisinger_with_ratio(kind: PisingerKind, n: usize, r: u32, ratio: f64, seed: u32) -> Instance {
    let (prices, weights) = pisinger_items(kind, n, r, &mut PisingerRng::new(seed));
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let largest = weights.iter().copied().max().map_or(0, u64::from);
    let capacity = ((ratio * total as f64).floor() as u64).max(largest);
    Instance { name: format!("knapPI_{}_{n}_{r}_c{ratio}_s{seed}", kind as u32), prices, weights, capacity }
}

/// Prices and weights of `n` items of `kind` with coefficients up to `r` (Pisinger 2005, Section 2): two draws an
/// item but one for the strongly correlated and subset-sum kinds.
fn pisinger_items(kind: PisingerKind, n: usize, r: u32, rng: &mut PisingerRng) -> (Vec<u32>, Vec<u32>) {
    let r1 = r / 10;
    let (mut prices, mut weights) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let first = rng.randm(r) + 1;
        let (p, w) = match kind {
            PisingerKind::Uncorrelated => (rng.randm(r) + 1, first),
            PisingerKind::WeaklyCorrelated => ((i64::from(rng.randm(2 * r1 + 1)) + i64::from(first) - i64::from(r1)).max(1) as u32, first),
            PisingerKind::StronglyCorrelated => (first + r1, first),
            PisingerKind::InverseStronglyCorrelated => (first, first + r1),
            PisingerKind::SubsetSum => (first, first),
        };
        prices.push(p);
        weights.push(w);
    }
    (prices, weights)
}

/// The 32-bit linear congruential generator of Pisinger's generator (an `erand48`-style pair of halves).
struct PisingerRng {
    h: u32,
    l: u32,
}

impl PisingerRng {
    fn new(v: u32) -> PisingerRng {
        PisingerRng { h: v, l: 0x330E }
    }

    fn draw(&mut self) -> u32 {
        self.h = self.h.wrapping_mul(0xDEEC_E66D).wrapping_add(self.l.wrapping_mul(0x5DEEC));
        self.l = self.l.wrapping_mul(0xE66D).wrapping_add(0xB);
        self.h = self.h.wrapping_add(self.l >> 16);
        self.l &= 0xFFFF;
        self.h >> 1
    }

    fn randm(&mut self, x: u32) -> u32 {
        self.draw() % x
    }
}

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

/// Loads one of the paper's instance files vendored under `datasets/knapsack/`, for tests.
#[cfg(test)]
pub(crate) fn paper_instance(file: &str) -> Instance {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/knapsack").join(file);
    Instance::load(&path, None).unwrap_or_else(|e| panic!("{e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn temp_file(name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("evorepro-knapsack-{}-{name}.txt", std::process::id()));
        std::fs::write(&path, text).expect("write temp file");
        path
    }

    fn load_error(name: &str, text: &str) -> String {
        let path = temp_file(name, text);
        let error = Instance::load(&path, None).expect_err("malformed file must be rejected");
        std::fs::remove_file(&path).ok();
        format!("{error:#}")
    }

    /// A small deterministic pseudo-random instance (splitmix64).
    fn random_instance(n: usize, seed: u64) -> Instance {
        let mut state = seed;
        let mut next = |m: u64| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) % m) as u32
        };
        let prices: Vec<u32> = (0..n).map(|_| next(100)).collect();
        let weights: Vec<u32> = (0..n).map(|_| next(60)).collect();
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let capacity = u64::from(next(total + 1));
        Instance { name: format!("random-{n}-{seed}"), prices, weights, capacity }
    }

    fn brute_force(instance: &Instance) -> u64 {
        let n = instance.item_count();
        (0u32..1 << n)
            .filter_map(|set| {
                let items: Vec<usize> = (0..n).filter(|i| set >> i & 1 == 1).collect();
                let e = instance.evaluate_items(&items);
                e.feasible.then_some(e.price)
            })
            .max()
            .unwrap_or(0)
    }

    fn pack(n: usize, items: &[usize]) -> Vec<u32> {
        let mut chromosome = vec![0u32; n.div_ceil(WORD_BITS)];
        for &i in items {
            chromosome[i / WORD_BITS] |= 1 << (i % WORD_BITS);
        }
        chromosome
    }

    #[test]
    fn loads_the_papers_instances() {
        let small = paper_instance("jaros_knap_40.txt");
        assert_eq!((small.name.as_str(), small.item_count(), small.capacity), ("jaros_knap_40", 40, 600));
        assert_eq!((small.prices[0], small.prices[39], small.weights[0], small.weights[39]), (223, 72, 14, 17));
        assert_eq!((small.total_price(), small.total_weight(), small.penalty_ratio()), (4250, 900, 214));

        let large = paper_instance("jaros_knap_10000.txt");
        assert_eq!((large.item_count(), large.capacity), (10_000, 2_484_605));
        assert_eq!((large.total_price(), large.total_weight(), large.penalty_ratio()), (5_469_211, 4_969_211, 51));
        assert!(large.prices.iter().zip(&large.weights).all(|(&p, &w)| p == w + 50), "strongly correlated: p = w + 50");
    }

    #[test]
    fn rejects_malformed_files() {
        let cases = [
            ("empty", "\n\n", "empty file"),
            ("count", "3 4\n1 2 3\n1 2 3\n5\n", ":1: expected the item count alone"),
            ("zero", "0\n\n5\n", "item count is 0"),
            ("short-prices", "3\n\n1 2\n1 2 3\n5\n", ":3: expected 3 prices (the item count), found 2"),
            ("long-weights", "3\n1 2 3\n\n1 2 3 4\n5\n", ":4: expected 3 weights (the item count), found 4"),
            ("token", "3\n1 x2 3\n1 2 3\n5\n", ":2: prices #2 \"x2\" is not an integer"),
            ("negative", "3\n1 2 3\n1 -2 3\n5\n", ":3: weights #2 \"-2\" is not an integer"),
            ("no-capacity", "3\n1 2 3\n1 2 3\n\n", "missing the capacity"),
            ("no-weights", "3\n1 2 3\n", "missing the weights line"),
            ("bad-capacity", "3\n1 2 3\n1 2 3\n5.5\n", ":4: the capacity \"5.5\" is not a non-negative integer"),
            ("extra", "3\n1 2 3\n1 2 3\n5\n\n7\n", ":6: unexpected content \"7\""),
        ];
        for (name, text, expected) in cases {
            let message = load_error(name, text);
            assert!(message.contains(expected), "{name}: {message:?} lacks {expected:?}");
            assert!(message.contains(&format!("evorepro-knapsack-{}-{name}", std::process::id())), "{name}: no file name in {message:?}");
        }
        let missing = format!("{:#}", Instance::load("/nonexistent/knap.txt", None).unwrap_err());
        assert!(missing.contains("/nonexistent/knap.txt"), "{missing}");
    }

    #[test]
    fn fitness_of_packed_chromosomes() {
        let instance = paper_instance("jaros_knap_40.txt");
        let evaluator = Evaluator::new(&instance);
        let zero = evaluator.evaluate(&[0; 32]);
        assert_eq!(zero, Evaluation { price: 0, weight: 0, fitness: 0, feasible: true });
        // Items 0, 1 and 33 (second word): prices 223 + 230 + 130, weights 14 + 38 + 26.
        let chosen = evaluator.evaluate(&pack(40, &[0, 1, 33]));
        assert_eq!(chosen, Evaluation { price: 583, weight: 78, fitness: 583, feasible: true });
        assert_eq!(chosen, instance.evaluate_items(&[0, 1, 33]));
        // Everything: weight 900 > 600, 4250 − 214·300 < 0 saturates to 0.
        let all = evaluator.evaluate(&pack(40, &(0..40).collect::<Vec<_>>()));
        assert_eq!(all, Evaluation { price: 4250, weight: 900, fitness: 0, feasible: false });
        // A mild overweight is penalised by ratio × excess.
        let tiny = Instance { name: "tiny".into(), prices: vec![10, 7, 3], weights: vec![4, 3, 2], capacity: 6 };
        assert_eq!(tiny.penalty_ratio(), 2);
        let over = Evaluator::new(&tiny).evaluate(&[0b111]);
        assert_eq!(over, Evaluation { price: 20, weight: 9, fitness: 20 - 2 * 3, feasible: false });
        assert_eq!(Evaluator::new(&tiny).evaluate(&[0b011]).fitness, 17 - 2);
        assert_eq!(Evaluator::new(&tiny).evaluate(&[0b101]).fitness, 13);
    }

    #[test]
    fn pisinger_check_values() {
        let instance = pisinger(PisingerKind::Uncorrelated, 10_000, 1000, 1, 100);
        assert_eq!(instance.name, "knapPI_1_10000_1000_1");
        assert_eq!(instance.capacity, 49_877);
        let start = std::time::Instant::now();
        assert_eq!(optimum_dp(&instance), Some(563_647));
        let elapsed = start.elapsed();
        assert!(upper_bound_lp(&instance) >= 563_647);
        assert!(cfg!(debug_assertions) || elapsed.as_secs_f64() < 2.0, "DP took {elapsed:?}");
    }

    #[test]
    fn pisinger_kinds_follow_their_definitions() {
        for kind in [PisingerKind::WeaklyCorrelated, PisingerKind::StronglyCorrelated, PisingerKind::SubsetSum] {
            let instance = pisinger(kind, 200, 1000, 3, 100);
            for (&p, &w) in instance.prices.iter().zip(&instance.weights) {
                assert!((1..=1000).contains(&w));
                match kind {
                    PisingerKind::WeaklyCorrelated => assert!(p >= 1 && p.abs_diff(w) <= 100, "{p} {w}"),
                    PisingerKind::StronglyCorrelated => assert_eq!(p, w + 100),
                    _ => assert_eq!(p, w),
                }
            }
            assert_eq!(instance.capacity, 3 * instance.total_weight() / 101);
        }
    }

    #[test]
    fn dp_matches_brute_force_and_lp_bounds_it() {
        for seed in 0..40 {
            let instance = random_instance(1 + seed as usize % 16, seed);
            let optimum = optimum_dp(&instance).unwrap();
            assert_eq!(optimum, brute_force(&instance), "{}", instance.name);
            assert!(upper_bound_lp(&instance) >= optimum, "{}", instance.name);
        }
        // Heavier weights exercise the vectorised blocks of the DP.
        for seed in 0..20 {
            let mut instance = random_instance(14, 100 + seed);
            instance.weights.iter_mut().for_each(|w| *w = *w * 7 + 16);
            instance.capacity *= 7;
            assert_eq!(optimum_dp(&instance).unwrap(), brute_force(&instance), "{}", instance.name);
        }
        let jaros40 = paper_instance("jaros_knap_40.txt");
        assert!(upper_bound_lp(&jaros40) >= optimum_dp(&jaros40).unwrap());
    }

    /// Small instances of any shape: weights and prices up to 80 (zeros included), capacity up to the total weight
    /// and beyond; every fourth a subset-sum instance.
    fn small_instance() -> impl proptest::strategy::Strategy<Value = Instance> {
        use proptest::prelude::*;
        (prop::collection::vec((0u32..80, 0u32..80), 1..14), 0u64..1200, any::<bool>()).prop_map(|(items, capacity, subset)| {
            let weights: Vec<u32> = items.iter().map(|i| i.1).collect();
            let prices = if subset { weights.clone() } else { items.iter().map(|i| i.0).collect() };
            Instance { name: "proptest".into(), prices, weights, capacity }
        })
    }

    proptest::proptest! {
        #[test]
        fn certificates_bracket_the_brute_force_optimum(instance in small_instance()) {
            let optimum = brute_force(&instance);
            let c = certify(&instance);
            proptest::prop_assert!(c.feasible <= optimum && optimum <= c.bound, "{c:?} against {optimum}");
            proptest::prop_assert_eq!(c.optimum.clone().map(|o| o.0), Ok(optimum));
            proptest::prop_assert_eq!(c.reference(), (optimum, "optimum"));
            let greedy = instance.evaluate_items(&greedy(&instance));
            proptest::prop_assert!(greedy.feasible && greedy.price == c.feasible);
            proptest::prop_assert_eq!(optimum_dp(&instance), Some(optimum));
            if instance.prices == instance.weights {
                proptest::prop_assert_eq!(subset_sum_bitset(&instance), Some(optimum));
            }
            proptest::prop_assert!(c.check(optimum).is_ok());
            proptest::prop_assert!(c.check(optimum + 1).is_err());
        }
    }

    #[test]
    fn the_bitset_crosses_word_boundaries() {
        // Weights around the 64-bit words, every capacity up to past the total: 191 is not reachable (130 is the best),
        // 192 = 63 + 64 + 65 is.
        let weights = vec![63, 64, 65, 130, 1];
        for capacity in 0..=340 {
            let instance = Instance { name: "words".into(), prices: weights.clone(), weights: weights.clone(), capacity };
            assert_eq!(subset_sum_bitset(&instance), Some(brute_force(&instance)), "capacity {capacity}");
        }
        let at = |capacity| subset_sum_bitset(&Instance { name: "w".into(), prices: weights.clone(), weights: weights.clone(), capacity });
        assert_eq!((at(190), at(192), at(62)), (Some(131), Some(192), Some(1)));
        // Not subset sum: no answer.
        assert_eq!(subset_sum_bitset(&Instance { name: "p".into(), prices: vec![2], weights: vec![1], capacity: 1 }), None);
    }

    #[test]
    fn the_papers_instances_are_certified() {
        let small = certify(&paper_instance("jaros_knap_40.txt"));
        assert_eq!(small.optimum, Ok((4068, Exact::DenseDp)));
        assert!(small.check(4068).is_ok());
        assert!(small.check(4069).unwrap_err().contains("the exact optimum is 4068"));
        let large = certify(&paper_instance("jaros_knap_10000.txt"));
        let why = large.optimum.clone().unwrap_err();
        assert!(why.starts_with("bound only") && why.contains("2.5e10 cells"), "{why}");
        assert!(large.feasible <= JAROS_KNAP_10000_OPTIMUM && JAROS_KNAP_10000_OPTIMUM <= large.bound, "{large:?}");
        assert!(large.check(JAROS_KNAP_10000_OPTIMUM).is_ok());
        assert!(large.check(large.bound + 1).unwrap_err().contains("exceeds Dantzig's linear-relaxation bound"));
        assert!(large.check(large.feasible - 1).unwrap_err().contains("a feasible solution worth"));
        assert_eq!(large.reference(), (large.bound, "bound"));
    }

    #[test]
    fn empty_knapsacks_are_certified_as_zero() {
        // Zero capacity, and a capacity below every weight: the optimum is 0 and any positive claim is refused.
        for capacity in [0, 3] {
            let instance = Instance { name: "none fits".into(), prices: vec![5, 6], weights: vec![4, 9], capacity };
            let c = certify(&instance);
            assert_eq!((c.bound, c.feasible, c.optimum.clone()), (0, 0, Ok((0, Exact::GreedyMeetsBound))));
            assert!(c.check(1).unwrap_err().contains("no item of positive price fits the capacity"));
            assert!(c.check(0).is_ok());
        }
    }

    #[test]
    fn every_family_follows_its_definition_and_capacity_ratio() {
        for kind in [
            PisingerKind::Uncorrelated,
            PisingerKind::WeaklyCorrelated,
            PisingerKind::StronglyCorrelated,
            PisingerKind::InverseStronglyCorrelated,
            PisingerKind::SubsetSum,
        ] {
            let instance = pisinger_with_ratio(kind, 500, 1000, 0.05, 7);
            assert_eq!(instance, pisinger_with_ratio(kind, 500, 1000, 0.05, 7), "deterministic from the seed");
            assert_ne!(instance.weights, pisinger_with_ratio(kind, 500, 1000, 0.05, 8).weights);
            assert_eq!(instance.capacity, (0.05 * instance.total_weight() as f64).floor() as u64);
            for (&p, &w) in instance.prices.iter().zip(&instance.weights) {
                let ok = match kind {
                    PisingerKind::Uncorrelated => (1..=1000).contains(&p) && (1..=1000).contains(&w),
                    PisingerKind::WeaklyCorrelated => (1..=1000).contains(&w) && p >= 1 && p.abs_diff(w) <= 100,
                    PisingerKind::StronglyCorrelated => (1..=1000).contains(&w) && p == w + 100,
                    PisingerKind::InverseStronglyCorrelated => (1..=1000).contains(&p) && w == p + 100,
                    PisingerKind::SubsetSum => (1..=1000).contains(&w) && p == w,
                };
                assert!(ok, "{kind:?}: p {p}, w {w}");
            }
            let c = certify(&instance);
            let (optimum, _) = c.optimum.clone().unwrap();
            assert!(c.feasible <= optimum && optimum <= c.bound, "{kind:?} {c:?}");
        }
        // A ratio so small that no item fits is raised to the largest weight.
        let tiny = pisinger_with_ratio(PisingerKind::Uncorrelated, 50, 1000, 1e-6, 1);
        assert_eq!(tiny.capacity, u64::from(*tiny.weights.iter().max().unwrap()));
    }

    #[test]
    fn dp_refuses_huge_tables() {
        let large = paper_instance("jaros_knap_10000.txt");
        assert_eq!(optimum_dp(&large), None);
    }

    fn weight_of(instance: &Instance, items: impl Iterator<Item = usize>) -> u64 {
        items.map(|i| u64::from(instance.weights[i])).sum()
    }

    #[test]
    fn jaros_10000_optimum_is_attained() {
        let instance = paper_instance("jaros_knap_10000.txt");
        // The k lightest items are the most that fit.
        let mut order: Vec<usize> = (0..instance.item_count()).collect();
        order.sort_by_key(|&i| instance.weights[i]);
        let mut weight = 0u64;
        let k = order.iter().take_while(|&&i| {
            weight += u64::from(instance.weights[i]);
            weight <= instance.capacity
        });
        let k = k.count();
        let bound = instance.capacity + 50 * k as u64;
        assert_eq!(bound, JAROS_KNAP_10000_OPTIMUM);
        // Raise the weight of the k lightest to exactly the capacity by swapping a packed item for a heavier unused
        // one, the largest raise that still fits first. Items are kept in buckets by weight (0..1000).
        let mut packed: Vec<Vec<usize>> = vec![Vec::new(); 1000];
        let mut unused: Vec<Vec<usize>> = vec![Vec::new(); 1000];
        for (rank, &i) in order.iter().enumerate() {
            let buckets = if rank < k { &mut packed } else { &mut unused };
            buckets[instance.weights[i] as usize].push(i);
        }
        let mut room = instance.capacity - weight_of(&instance, order[..k].iter().copied());
        while room > 0 {
            let (light, raise) = (1..=room.min(999) as usize)
                .rev()
                .find_map(|raise| (0..1000 - raise).find(|&w| !packed[w].is_empty() && !unused[w + raise].is_empty()).map(|w| (w, raise)))
                .expect("a swap that adds weight exists");
            let (out, into) = (packed[light].pop().unwrap(), unused[light + raise].pop().unwrap());
            packed[light + raise].push(into);
            unused[light].push(out);
            room -= raise as u64;
        }
        let chosen: Vec<usize> = packed.concat();
        assert_eq!(chosen.len(), k);
        let e = instance.evaluate_items(&chosen);
        assert_eq!((e.price, e.weight, e.feasible), (JAROS_KNAP_10000_OPTIMUM, instance.capacity, true));
        assert!(upper_bound_lp(&instance) >= JAROS_KNAP_10000_OPTIMUM);
    }
}
