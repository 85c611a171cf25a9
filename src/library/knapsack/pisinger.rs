//! Pisinger's instance generator (Pisinger 2005, "Where are the hard knapsack problems?", Section 2).

use super::Instance;

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
