//! Ancestral sampling (Section III): from the maximum-likelihood conditional
//! probabilities with a `StdRng`, or deciding in integers from the conditional
//! counts with [`CounterRng`] numbers (issue #23).

use super::{CounterRng, Network, Stream};
use crate::library::ecga::{Popcount, Population, PrefixFastCount, SchemaCounter};
use anyhow::{Result, ensure};
use rand::RngExt;
use rand::rngs::StdRng;

/// The conditional probabilities of the network from the selected population:
/// `p_one[i][π] = N_{π,1} / N_π`, the maximum-likelihood estimate of
/// `p(X_i = 1 | Π_i = π)` (bit `b` of `π` is the allele of `parents[i][b]`). A
/// configuration absent from the selected population (`N_π = 0`) gets 0.5; ancestral
/// sampling can reach it only through a parent configuration that was itself sampled
/// at 0.5 somewhere upstream.
pub fn conditional_probabilities(net: &Network, selected: &Population) -> Result<Vec<Vec<f64>>> {
    Ok(conditional_counts(net, selected)?
        .into_iter()
        .map(|table| {
            table
                .into_iter()
                .map(|(ones, total)| match total {
                    0 => 0.5,
                    total => f64::from(ones) / f64::from(total),
                })
                .collect()
        })
        .collect())
}

/// `count` new individuals (row-major) by ancestral sampling (Section III): each in
/// turn, the nodes in [`Network::topological_order`], node `i` set to 1 when a fresh
/// `rng.random::<f64>()` is below `p_one[i][π]` for its parents' sampled alleles `π`.
pub fn sample(net: &Network, p_one: &[Vec<f64>], count: usize, rng: &mut StdRng) -> Vec<u8> {
    let ell = net.parents.len();
    let order = net.topological_order();
    let mut rows = vec![0u8; count * ell];
    for child in rows.chunks_exact_mut(ell) {
        for &i in &order {
            let pi = net.parents[i].iter().enumerate().fold(0, |pi, (b, &p)| pi | usize::from(child[p]) << b);
            child[i] = u8::from(rng.random::<f64>() < p_one[i][pi]);
        }
    }
    rows
}

/// Whether a sampled allele is 1, in integers only (the device decides the same):
/// `r · total < ones · 2³²`, i.e. `r / 2³² < ones / total` exactly. A parent
/// configuration absent from the selected population (`total = 0`) samples 1 with
/// probability 1/2 (as `ones = 1, total = 2`), the paper configuration's 0.5.
pub fn sampled_one(r: u32, ones: u32, total: u32) -> bool {
    let (ones, total) = if total == 0 { (1, 2) } else { (ones, total) };
    u64::from(r) * u64::from(total) < u64::from(ones) << 32
}

/// The network's conditional tables as counts from the selected population:
/// `tables[i][π] = (N_{π,1}, N_π)` (bit `b` of `π` is the allele of
/// `parents[i][b]`), what [`sample_counter`] decides from.
pub fn conditional_counts(net: &Network, selected: &Population) -> Result<Vec<Vec<(u32, u32)>>> {
    ensure!(net.parents.len() == selected.ell(), "network of {} nodes for {} loci", net.parents.len(), selected.ell());
    let counter = PrefixFastCount { popcount: Popcount::Hardware };
    let (mut loci, mut counts) = (Vec::new(), Vec::new());
    Ok(net
        .parents
        .iter()
        .enumerate()
        .map(|(i, parents)| {
            loci.clear();
            loci.push(i);
            loci.extend_from_slice(parents);
            counts.resize(1 << loci.len(), 0);
            counter.count(selected, &loci, &mut counts);
            counts.chunks_exact(2).map(|n| (n[1], n[0] + n[1])).collect()
        })
        .collect())
}

/// `count` offspring (row-major) by ancestral sampling with counter-based numbers:
/// offspring `c`, node `i` (in [`Network::topological_order`]) is 1 when
/// [`sampled_one`] holds for `r = rng.draw(generation, Sampling, c, i)` and the
/// counts of its parents' sampled configuration. Every number is fixed by its
/// counter, so any topological order (the device walks pBOA's permutation order)
/// samples the same offspring.
pub fn sample_counter(net: &Network, tables: &[Vec<(u32, u32)>], count: usize, rng: &CounterRng, generation: u32) -> Vec<u8> {
    let ell = net.parents.len();
    let order = net.topological_order();
    let mut rows = vec![0u8; count * ell];
    for (c, child) in rows.chunks_exact_mut(ell).enumerate() {
        for &i in &order {
            let pi = net.parents[i].iter().enumerate().fold(0, |pi, (b, &p)| pi | usize::from(child[p]) << b);
            let (ones, total) = tables[i][pi];
            child[i] = u8::from(sampled_one(rng.draw(generation, Stream::Sampling, c as u32, i as u32), ones, total));
        }
    }
    rows
}
