//! The combined complexity criterion, equation (1) of Section 3.1, in one fixed
//! order of floating-point operations.

/// The table `t[c] = c·log2(c)` for `c = 0..=n` (`t[0] = 0`).
///
/// A group's entropy term is `s = Σ_v t[counts[v]]`, summed from `0.0` in schema
/// order `v = 0, 1, 2, …`; then `N·Entropy = N·log2 N − s` exactly as equation (1)
/// needs it. A GPU scorer that sums the same table in the same order returns the
/// same `s`, bit for bit.
#[derive(Clone, Debug, PartialEq)]
pub struct XLogX {
    table: Vec<f64>,
}

impl XLogX {
    pub fn new(n: usize) -> Self {
        let table = (0..=n)
            .map(|c| {
                let c = c as f64;
                if c == 0.0 { 0.0 } else { c * c.log2() }
            })
            .collect();
        XLogX { table }
    }

    /// The population size the table was built for.
    pub fn n(&self) -> usize {
        self.table.len() - 1
    }

    /// `t[0..=n]`, e.g. for uploading to a device.
    pub fn table(&self) -> &[f64] {
        &self.table
    }

    /// `s = Σ_v t[counts[v]]` in index order.
    pub fn entropy_term(&self, counts: &[u32]) -> f64 {
        counts.iter().fold(0.0, |s, &c| s + self.table[c as usize])
    }
}

/// A group's share of equation (1): compressed population complexity plus model
/// complexity, `(n·log2 n − s) + log2(n + 1)·(2^size − 1)`, in bits. Every CCC in
/// this module is a sum of these.
pub fn group_cost(n: usize, s: f64, size: usize) -> f64 {
    let n = n as f64;
    (n * n.log2() - s) + (n + 1.0).log2() * ((1u64 << size) - 1) as f64
}
