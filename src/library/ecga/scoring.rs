//! Pair scoring, the hot spot a GPU replaces (Section 4.2): the entropy term of
//! every candidate merge, on one CPU thread or on all of them.

#[cfg(doc)]
use super::{BaselineCounter, FastCount, greedy_mating_search, greedy_search};
use super::{GroupLeaves, ModelTrace, Population, SchemaCounter, Search, XLogX};
use anyhow::{Result, bail, ensure};
use rayon::prelude::*;

/// Computes entropy terms `s` (see [`XLogX`]) of candidate groups: the part of model
/// building a GPU replaces (gECGA, Section 4.2).
/// Work and time of a device scorer, summed over its calls.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeviceStats {
    /// Kernel time (CUDA events), ms.
    pub kernel_ms: f64,
    /// Host wall time of the calls that launched kernels (staging, copies,
    /// launches and the kernels), ms.
    pub calls_ms: f64,
    /// Alleles the kernels read: Σ over scored groups of (loci × N).
    pub alleles: f64,
}

pub trait PairScorer {
    fn name(&self) -> String;

    /// Takes the selected population (and the table for its size) for the scoring
    /// calls that follow.
    fn load(&mut self, pop: &Population, xlogx: &XLogX) -> Result<()>;

    /// `out[i]` = `s` of `groups[a] ∪ groups[b]` for `pairs[i] = (a, b)`, loci in the
    /// order `groups[a]` then `groups[b]`. `out` is overwritten.
    fn score(&mut self, groups: &[Vec<usize>], pairs: &[(usize, usize)], out: &mut Vec<f64>) -> Result<()>;

    /// `out[g]` = `s` of `groups[g]`. `out` is overwritten.
    fn score_groups(&mut self, groups: &[Vec<usize>], out: &mut Vec<f64>) -> Result<()>;

    /// What the scorer's device did since it was made (None for scorers
    /// without a device), so a report can split model building into kernel
    /// time, the rest of the device calls, and the host.
    fn device_stats(&self) -> Option<DeviceStats> {
        None
    }

    /// The whole model search on the scorer's device, for scorers that have
    /// one (gECGA: cache, choice of merges and merges on the GPU); `None` means
    /// the host runs [`greedy_search`] or [`greedy_mating_search`] with
    /// [`PairScorer::score`]. It must give the host search's trace exactly.
    fn device_search(&mut self, _search: Search, _pop: &Population, _max_l: usize, _xlogx: &XLogX) -> Option<Result<ModelTrace>> {
        None
    }
}

/// What a CPU scorer keeps between `load` and `score`.
#[derive(Clone, Debug)]
struct Loaded {
    pop: Population,
    xlogx: XLogX,
}

impl Loaded {
    fn new(pop: &Population, xlogx: &XLogX) -> Result<Self> {
        ensure!(xlogx.n() == pop.n, "x·log2(x) table built for n = {} but the population has n = {}", xlogx.n(), pop.n);
        Ok(Loaded { pop: pop.clone(), xlogx: xlogx.clone() })
    }

    /// `s` of the concatenation of `parts`, using the caller's buffers.
    fn entropy_term<C: SchemaCounter>(&self, counter: &C, parts: &[&[usize]], loci: &mut Vec<usize>, counts: &mut Vec<u32>) -> f64 {
        loci.clear();
        parts.iter().for_each(|part| loci.extend_from_slice(part));
        counts.resize(1 << loci.len(), 0);
        counter.count(&self.pop, loci, counts);
        self.xlogx.entropy_term(counts)
    }
}

fn loaded(state: &Option<Loaded>) -> Result<&Loaded> {
    match state {
        Some(loaded) => Ok(loaded),
        None => bail!("scorer used before load()"),
    }
}

/// Single-threaded CPU scoring with any [`SchemaCounter`]: the paper's baseline
/// (with [`BaselineCounter`]) and FastCount CPU (with [`FastCount`]) columns.
///
/// With [`FastCountKept`](super::FastCountKept) the scorer keeps each group's tree ([`GroupLeaves`]) by the
/// group's slot in `groups` until the slot holds other loci or another population
/// is loaded, and counts every merge from the two trees
/// ([`FastCount::count_merge`]).
#[derive(Clone, Debug)]
pub struct CpuScorer<C: SchemaCounter> {
    pub counter: C,
    state: Option<Loaded>,
    loci: Vec<usize>,
    counts: Vec<u32>,
    trees: Vec<Option<GroupLeaves>>,
}

impl<C: SchemaCounter> CpuScorer<C> {
    pub fn new(counter: C) -> Self {
        CpuScorer { counter, state: None, loci: Vec::new(), counts: Vec::new(), trees: Vec::new() }
    }
}

/// The kept tree of slot `g` (built, or rebuilt when the slot's loci changed);
/// the trees are of the loaded population (dropped at each load).
fn tree_of<'t>(trees: &'t mut Vec<Option<GroupLeaves>>, state: &Loaded, groups: &[Vec<usize>], g: usize) -> &'t GroupLeaves {
    if trees.len() <= g {
        trees.resize(groups.len().max(g + 1), None);
    }
    match &mut trees[g] {
        Some(tree) if tree.loci() == groups[g].as_slice() => {}
        Some(tree) => tree.rebuild(&state.pop.packed, &groups[g]),
        none => *none = Some(GroupLeaves::new(&state.pop.packed, &groups[g])),
    }
    trees[g].as_ref().expect("kept just above")
}

impl<C: SchemaCounter> PairScorer for CpuScorer<C> {
    fn name(&self) -> String {
        format!("cpu-{}", self.counter.name())
    }

    fn load(&mut self, pop: &Population, xlogx: &XLogX) -> Result<()> {
        self.state = Some(Loaded::new(pop, xlogx)?);
        self.trees.clear();
        Ok(())
    }

    fn score(&mut self, groups: &[Vec<usize>], pairs: &[(usize, usize)], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        out.clear();
        for &(a, b) in pairs {
            let s = match self.counter.kept_trees() {
                Some(fast) => {
                    ensure!(a != b, "pair ({a}, {a}) merges a group with itself");
                    tree_of(&mut self.trees, state, groups, a);
                    tree_of(&mut self.trees, state, groups, b);
                    let (Some(upper), Some(lower)) = (&self.trees[a], &self.trees[b]) else { unreachable!("both kept just above") };
                    self.counts.resize(1 << (groups[a].len() + groups[b].len()), 0);
                    fast.count_merge(upper, lower, &mut self.counts);
                    state.xlogx.entropy_term(&self.counts)
                }
                None => state.entropy_term(&self.counter, &[&groups[a], &groups[b]], &mut self.loci, &mut self.counts),
            };
            out.push(s);
        }
        Ok(())
    }

    fn score_groups(&mut self, groups: &[Vec<usize>], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        out.clear();
        for (g, group) in groups.iter().enumerate() {
            let s = match self.counter.kept_trees() {
                Some(fast) => {
                    let tree = tree_of(&mut self.trees, state, groups, g);
                    self.counts.resize(1 << group.len(), 0);
                    fast.count_leaves(tree, &mut self.counts);
                    state.xlogx.entropy_term(&self.counts)
                }
                None => state.entropy_term(&self.counter, &[group], &mut self.loci, &mut self.counts),
            };
            out.push(s);
        }
        Ok(())
    }
}

/// Multi-threaded CPU scoring: rayon over the candidate pairs. Not in the paper
/// (its CPU columns are single-threaded); an extra column.
#[derive(Clone, Debug)]
pub struct ParallelCpuScorer<C: SchemaCounter> {
    pub counter: C,
    state: Option<Loaded>,
}

impl<C: SchemaCounter> ParallelCpuScorer<C> {
    pub fn new(counter: C) -> Self {
        ParallelCpuScorer { counter, state: None }
    }
}

impl<C: SchemaCounter> PairScorer for ParallelCpuScorer<C> {
    fn name(&self) -> String {
        format!("cpu-mt-{}", self.counter.name())
    }

    fn load(&mut self, pop: &Population, xlogx: &XLogX) -> Result<()> {
        self.state = Some(Loaded::new(pop, xlogx)?);
        Ok(())
    }

    fn score(&mut self, groups: &[Vec<usize>], pairs: &[(usize, usize)], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        let counter = &self.counter;
        pairs
            .par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(loci, counts), &(a, b)| state.entropy_term(counter, &[&groups[a], &groups[b]], loci, counts),
            )
            .collect_into_vec(out);
        Ok(())
    }

    fn score_groups(&mut self, groups: &[Vec<usize>], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        let counter = &self.counter;
        groups
            .par_iter()
            .map_init(|| (Vec::new(), Vec::new()), |(loci, counts), group| state.entropy_term(counter, &[group], loci, counts))
            .collect_into_vec(out);
        Ok(())
    }
}
