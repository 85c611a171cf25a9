//! The K2 metric (the Bayesian–Dirichlet metric with uniform priors, Section III)
//! of one node and its parents, in log space and in one fixed order of
//! floating-point operations.

#[cfg(doc)]
use crate::library::ecga::SchemaCounter;

/// The table `t[c] = ln(c!)` for `c = 0..=n + 1`, for a selected population of `n`.
///
/// Built once as the running sum `t[0] = 0`, `t[c] = t[c − 1] + ln c` for increasing
/// `c` (`f64::ln`). A device scorer uploads this table instead of recomputing it, so
/// both sides read the same values.
#[derive(Clone, Debug, PartialEq)]
pub struct LnFactorial {
    table: Vec<f64>,
}

impl LnFactorial {
    pub fn new(n: usize) -> Self {
        let mut table = Vec::with_capacity(n + 2);
        table.push(0.0);
        for c in 1..=n + 1 {
            table.push(table[c - 1] + (c as f64).ln());
        }
        LnFactorial { table }
    }

    /// The population size the table was built for.
    pub fn n(&self) -> usize {
        self.table.len() - 2
    }

    /// `t[0..=n + 1]`, e.g. for uploading to a device.
    pub fn table(&self) -> &[f64] {
        &self.table
    }
}

/// The K2 metric of one family in log space (Cooper & Herskovits, uniform priors):
///
/// `K2(i, Π) = Σ_π [ln Γ(2) − ln Γ(N_π + 2) + ln Γ(N_{π,0} + 1) + ln Γ(N_{π,1} + 1)]
///           = Σ_π [ln 1! − ln (N_π + 1)! + ln N_{π,0}! + ln N_{π,1}!]`.
///
/// `counts` has `2^(|Π| + 1)` entries as [`SchemaCounter::count`] fills them for
/// the loci `[i, Π…]`: bit 0 of an index is node `i`'s allele and bits `1..` the
/// parents' alleles, so configuration `π` holds `N_{π,0} = counts[2π]` and
/// `N_{π,1} = counts[2π + 1]`.
///
/// Fixed order of operations, two table sums and one subtraction (ln 1! = 0):
/// `joint = Σ_v t[counts[v]]` over every index `v = 0, 1, 2, …` and
/// `parents = Σ_π t[N_π + 1]` over `π = 0, 1, 2, …`, each summed from `0.0`, and
/// `K2 = joint − parents`. These are the sums the GPU's schema kernel computes
/// (`kernels/ecga.cu`: `Σ table[count]` over a group's schemata in index order,
/// once over `[i, Π…]` with `t` and once over `Π` with `t[c + 1]`), so a device
/// scorer returns the same bits. Every score in this module goes through here.
pub fn family_score(counts: &[u32], table: &LnFactorial) -> f64 {
    let t = &table.table;
    let joint = counts.iter().fold(0.0, |s, &c| s + t[c as usize]);
    let parents = counts.chunks_exact(2).fold(0.0, |s, n| s + t[(n[0] + n[1]) as usize + 1]);
    joint - parents
}
