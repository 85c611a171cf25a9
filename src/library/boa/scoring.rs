//! Family scoring, the hot spot a GPU replaces (Section IV-A, the BD kernel): K2 of
//! a batch of candidate families on one CPU thread or on all of them.

#[cfg(doc)]
use super::build_pboa;
use super::{LnFactorial, Network, family_score};
use crate::library::ecga::{DeviceStats, Population, SchemaCounter};
use anyhow::{Result, bail, ensure};
use rayon::prelude::*;

/// A node and its parent set; the loci counted are `[node, parents…]` in this order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    pub node: usize,
    pub parents: Vec<usize>,
}

impl Family {
    /// The last parent: the one a candidate family adds to the node's parent set.
    pub(super) fn added(&self) -> usize {
        self.parents[self.parents.len() - 1]
    }
}

/// Computes the K2 metric of candidate families: the part of network construction a
/// GPU replaces (gBOA's BD kernel, Section IV-A).
pub trait FamilyScorer {
    fn name(&self) -> String;

    /// Takes the selected population (and the table for its size) for the scoring
    /// calls that follow.
    fn load(&mut self, pop: &Population, table: &LnFactorial) -> Result<()>;

    /// `out[i]` = [`family_score`] of `families[i]`. `out` is overwritten.
    fn score(&mut self, families: &[Family], out: &mut Vec<f64>) -> Result<()>;

    /// The whole [`build_pboa`] network in one call, for a scorer that builds it
    /// itself (gBOA on the device, one block per node as Section IV-A); it must equal
    /// [`build_pboa`]'s batched result. `None` (the default): [`build_pboa`] scores
    /// batches of families through [`FamilyScorer::score`].
    fn pboa_network(&mut self, pop: &Population, table: &LnFactorial, k: usize, perm: &[usize]) -> Option<Result<Network>> {
        let _ = (pop, table, k, perm);
        None
    }

    /// What the scorer's device did since it was made (None for scorers without a
    /// device): kernel time, the device calls' wall time and the alleles read.
    fn device_stats(&self) -> Option<DeviceStats> {
        None
    }
}

/// What a CPU scorer keeps between `load` and `score`.
#[derive(Clone, Debug)]
struct Loaded {
    pop: Population,
    table: LnFactorial,
}

impl Loaded {
    fn new(pop: &Population, table: &LnFactorial) -> Result<Self> {
        ensure!(table.n() == pop.n(), "ln-factorial table built for n = {} but the population has n = {}", table.n(), pop.n());
        Ok(Loaded { pop: pop.clone(), table: table.clone() })
    }

    fn check(&self, families: &[Family]) -> Result<()> {
        let ell = self.pop.ell();
        for f in families {
            ensure!(
                f.node < ell && f.parents.iter().all(|&p| p < ell && p != f.node),
                "family {f:?} is not a node with distinct parents among {ell} loci"
            );
        }
        Ok(())
    }

    /// K2 of `family`, using the caller's buffers.
    fn score<C: SchemaCounter>(&self, counter: &C, family: &Family, loci: &mut Vec<usize>, counts: &mut Vec<u32>) -> f64 {
        loci.clear();
        loci.push(family.node);
        loci.extend_from_slice(&family.parents);
        counts.resize(1 << loci.len(), 0);
        counter.count(&self.pop, loci, counts);
        family_score(counts, &self.table)
    }
}

fn loaded(state: &Option<Loaded>) -> Result<&Loaded> {
    match state {
        Some(loaded) => Ok(loaded),
        None => bail!("scorer used before load()"),
    }
}

/// Single-threaded CPU scoring with any [`SchemaCounter`]: the serial sBOA and pBOA
/// columns of Table I.
#[derive(Clone, Debug)]
pub struct CpuFamilyScorer<C: SchemaCounter> {
    pub counter: C,
    state: Option<Loaded>,
    loci: Vec<usize>,
    counts: Vec<u32>,
}

impl<C: SchemaCounter> CpuFamilyScorer<C> {
    pub fn new(counter: C) -> Self {
        CpuFamilyScorer { counter, state: None, loci: Vec::new(), counts: Vec::new() }
    }
}

impl<C: SchemaCounter> FamilyScorer for CpuFamilyScorer<C> {
    fn name(&self) -> String {
        format!("cpu-{}", self.counter.name())
    }

    fn load(&mut self, pop: &Population, table: &LnFactorial) -> Result<()> {
        self.state = Some(Loaded::new(pop, table)?);
        Ok(())
    }

    fn score(&mut self, families: &[Family], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        state.check(families)?;
        out.clear();
        for family in families {
            out.push(state.score(&self.counter, family, &mut self.loci, &mut self.counts));
        }
        Ok(())
    }
}

/// Multi-threaded CPU scoring: rayon over the families of a batch (Ocenasek's
/// one-node-per-processor pBOA on a multicore, the paper's Section III-A).
#[derive(Clone, Debug)]
pub struct ParallelFamilyScorer<C: SchemaCounter> {
    pub counter: C,
    state: Option<Loaded>,
}

impl<C: SchemaCounter> ParallelFamilyScorer<C> {
    pub fn new(counter: C) -> Self {
        ParallelFamilyScorer { counter, state: None }
    }
}

impl<C: SchemaCounter> FamilyScorer for ParallelFamilyScorer<C> {
    fn name(&self) -> String {
        format!("cpu-mt-{}", self.counter.name())
    }

    fn load(&mut self, pop: &Population, table: &LnFactorial) -> Result<()> {
        self.state = Some(Loaded::new(pop, table)?);
        Ok(())
    }

    fn score(&mut self, families: &[Family], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        state.check(families)?;
        let counter = &self.counter;
        families
            .par_iter()
            .map_init(|| (Vec::new(), Vec::new()), |(loci, counts), family| state.score(counter, family, loci, counts))
            .collect_into_vec(out);
        Ok(())
    }
}
