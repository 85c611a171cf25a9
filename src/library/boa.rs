//! The Bayesian optimization algorithm (BOA) of Munawar, Wahib, Munetomo & Akama,
//! "Theoretical and Empirical Analysis of a GPU based Parallel Bayesian
//! Optimization Algorithm" (2009): the CPU reference that gBOA is checked against.
//!
//! - [`LnFactorial`] and [`family_score`]: the K2 metric (the Bayesian–Dirichlet
//!   metric with uniform priors, Section III) of one node and its parents, in log
//!   space and in one fixed order of floating-point operations.
//! - [`FamilyScorer`]: the hot spot a GPU replaces (Section IV-A, the BD kernel):
//!   K2 of a batch of candidate families — [`CpuFamilyScorer`] (one thread) and
//!   [`ParallelFamilyScorer`] (rayon, the multi-threaded pBOA column).
//! - [`build_sboa`]: greedy edge additions over the whole network with an
//!   acyclicity check (Pelikan's simple BOA, the paper's sBOA, Section III).
//! - [`build_pboa`]: Ocenasek's permutation scheme (Section III-A, Fig. 4) that gBOA
//!   parallelizes: every node chooses its parents among the nodes before it in a
//!   permutation, independently of the other nodes.
//! - [`conditional_probabilities`] and [`sample`]: ancestral sampling (Section III).
//! - [`run`]: BOA with the settings of Section V; [`Randomness`] chooses the paper
//!   configuration's `StdRng` or [`CounterRng`] (Philox keyed by seed, generation,
//!   stream, individual and locus), with [`conditional_counts`], [`sampled_one`] and
//!   [`sample_counter`] deciding in integers, so that a run with every phase on the
//!   GPU makes the same run bit for bit (issue #23).

use crate::library::ecga::{DeviceStats, Popcount, Population, PrefixFastCount, SchemaCounter};
use crate::library::philox::philox4x32_10;
use crate::library::trap::Trap;
use anyhow::{Result, bail, ensure};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// K2 metric (Section III)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Family scoring (the hot spot of Section IV-A)
// ---------------------------------------------------------------------------

/// A node and its parent set; the loci counted are `[node, parents…]` in this order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    pub node: usize,
    pub parents: Vec<usize>,
}

impl Family {
    /// The last parent: the one a candidate family adds to the node's parent set.
    fn added(&self) -> usize {
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

// ---------------------------------------------------------------------------
// Network construction (Section III)
// ---------------------------------------------------------------------------

/// A Bayesian network over the ℓ loci.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// `parents[i]`: the parents of node `i` in the order they were added (the order
    /// their loci are counted in).
    pub parents: Vec<Vec<usize>>,
    /// K2 of the network: the node scores summed from `0.0` in node order.
    pub score: f64,
    /// Families scored, the empty ones included.
    pub families_scored: u64,
    /// Greedy steps: edges added ([`build_sboa`]) or rounds of batched scoring
    /// ([`build_pboa`]).
    pub steps: usize,
}

impl Network {
    /// Number of edges.
    pub fn edges(&self) -> usize {
        self.parents.iter().map(Vec::len).sum()
    }

    /// The nodes in a topological order (parents before children): Kahn's
    /// algorithm with a FIFO queue seeded with the parentless nodes in increasing
    /// order, children released in increasing order.
    pub fn topological_order(&self) -> Vec<usize> {
        let ell = self.parents.len();
        let mut children = vec![Vec::new(); ell];
        for (i, parents) in self.parents.iter().enumerate() {
            for &p in parents {
                children[p].push(i);
            }
        }
        let mut waiting: Vec<usize> = self.parents.iter().map(Vec::len).collect();
        let mut queue: VecDeque<usize> = (0..ell).filter(|&i| waiting[i] == 0).collect();
        let mut order = Vec::with_capacity(ell);
        while let Some(i) = queue.pop_front() {
            order.push(i);
            for &c in &children[i] {
                waiting[c] -= 1;
                if waiting[c] == 0 {
                    queue.push_back(c);
                }
            }
        }
        debug_assert_eq!(order.len(), ell, "the network has a cycle");
        order
    }
}

/// A uniformly random permutation of `0..n` from `rng`, read as `perm[i]` = the
/// position of node `i` (the paper's `perm`, Section III-A).
pub fn random_permutation(n: usize, rng: &mut StdRng) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    perm.shuffle(rng);
    perm
}

/// State shared by both constructions: the parents and K2 score of every node, and
/// the batch of families handed to the scorer.
struct Greedy<'s> {
    scorer: &'s mut dyn FamilyScorer,
    parents: Vec<Vec<usize>>,
    node_score: Vec<f64>,
    families: Vec<Family>,
    scores: Vec<f64>,
    families_scored: u64,
}

impl<'s> Greedy<'s> {
    /// Loads the scorer and scores the empty network (one call).
    fn start(pop: &Population, scorer: &'s mut dyn FamilyScorer, table: &LnFactorial) -> Result<Self> {
        scorer.load(pop, table)?;
        let families = (0..pop.ell()).map(|node| Family { node, parents: Vec::new() }).collect();
        let mut greedy = Greedy {
            scorer,
            parents: vec![Vec::new(); pop.ell()],
            node_score: Vec::new(),
            families,
            scores: Vec::new(),
            families_scored: 0,
        };
        greedy.score()?;
        greedy.node_score = std::mem::take(&mut greedy.scores);
        Ok(greedy)
    }

    /// Scores `families` into `scores` in one call (none when the batch is empty).
    fn score(&mut self) -> Result<()> {
        self.scores.clear();
        if self.families.is_empty() {
            return Ok(());
        }
        self.scorer.score(&self.families, &mut self.scores)?;
        ensure!(
            self.scores.len() == self.families.len(),
            "scorer {} returned {} scores for {} families",
            self.scorer.name(),
            self.scores.len(),
            self.families.len()
        );
        self.families_scored += self.families.len() as u64;
        Ok(())
    }

    /// Pushes the family `node ← parents[node] + [j]` for every `j` in increasing
    /// order that is not `node`, not yet a parent, and `allowed`.
    fn push_candidates(&mut self, node: usize, allowed: impl Fn(usize) -> bool) {
        let current = &self.parents[node];
        for j in (0..self.parents.len()).filter(|&j| j != node && !current.contains(&j) && allowed(j)) {
            let mut parents = Vec::with_capacity(current.len() + 1);
            parents.extend_from_slice(current);
            parents.push(j);
            self.families.push(Family { node, parents });
        }
    }

    fn add_edge(&mut self, j: usize, i: usize, score: f64) {
        self.parents[i].push(j);
        self.node_score[i] = score;
    }

    fn finish(self, steps: usize) -> Network {
        let score = self.node_score.iter().fold(0.0, |sum, &s| sum + s);
        Network { parents: self.parents, score, families_scored: self.families_scored, steps }
    }
}

/// Which nodes each node reaches along directed edges, one bit row per node.
struct Reachability {
    ell: usize,
    words: usize,
    bits: Vec<u64>,
}

impl Reachability {
    fn new(ell: usize) -> Self {
        let words = ell.div_ceil(64);
        Reachability { ell, words, bits: vec![0; ell * words] }
    }

    /// Whether a directed path `from → … → to` exists.
    fn reaches(&self, from: usize, to: usize) -> bool {
        self.bits[from * self.words + to / 64] >> (to % 64) & 1 == 1
    }

    /// Records the edge `j → i`: `j` and every node reaching `j` now reach `i` and
    /// everything `i` reaches.
    fn add_edge(&mut self, j: usize, i: usize) {
        let mut gained = self.bits[i * self.words..][..self.words].to_vec();
        gained[i / 64] |= 1 << (i % 64);
        for a in 0..self.ell {
            if a == j || self.reaches(a, j) {
                for (w, g) in self.bits[a * self.words..][..self.words].iter_mut().zip(&gained) {
                    *w |= g;
                }
            }
        }
    }
}

/// Pelikan's simple BOA (the paper's sBOA, Section III): greedy single-edge
/// additions over the whole network, at most `k` parents per node.
///
/// Starts from the empty network and keeps, for every node `i`, the K2 score of
/// adding each allowed parent `j` (`j ≠ i`, not yet a parent, `|Π_i| < k`, and `j → i`
/// closes no cycle, i.e. `i` does not reach `j`), all scored in one call. Each step
/// adds the edge of largest gain `K2(i, Π_i ∪ {j}) − K2(i, Π_i)` over the whole
/// network while that gain is `> 0`, then rescores node `i`'s candidates in one call;
/// candidates of other nodes that would now close a cycle are skipped.
///
/// Scoring calls: one for the empty network, one for all ℓ(ℓ − 1) single-parent
/// families, then one per edge added.
///
/// Tie rule: a gain is the single f64 subtraction of the two K2 scores; among
/// exactly equal gains the smallest `(i, j)` in lexicographic order wins.
pub fn build_sboa(pop: &Population, scorer: &mut dyn FamilyScorer, k: usize, table: &LnFactorial) -> Result<Network> {
    let ell = pop.ell();
    let mut greedy = Greedy::start(pop, scorer, table)?;
    let mut reach = Reachability::new(ell);
    // candidate[i·ℓ + j]: K2 of node i with parents Π_i + [j]; −∞ when j is no candidate.
    let mut candidate = vec![f64::NEG_INFINITY; ell * ell];
    let mut rescore: Vec<usize> = (0..ell).collect();
    let mut steps = 0;
    loop {
        greedy.families.clear();
        for &i in &rescore {
            candidate[i * ell..][..ell].fill(f64::NEG_INFINITY);
            if greedy.parents[i].len() < k {
                greedy.push_candidates(i, |j| !reach.reaches(i, j));
            }
        }
        greedy.score()?;
        for (family, &s) in greedy.families.iter().zip(&greedy.scores) {
            candidate[family.node * ell + family.added()] = s;
        }
        let mut best = None;
        let mut best_gain = 0.0;
        for i in 0..ell {
            for j in 0..ell {
                let gain = candidate[i * ell + j] - greedy.node_score[i];
                if gain > best_gain && !reach.reaches(i, j) {
                    (best, best_gain) = (Some((i, j)), gain);
                }
            }
        }
        let Some((i, j)) = best else { break };
        greedy.add_edge(j, i, candidate[i * ell + j]);
        reach.add_edge(j, i);
        rescore.clear();
        rescore.push(i);
        steps += 1;
    }
    Ok(greedy.finish(steps))
}

/// Ocenasek's parallel construction used by pBOA and gBOA (Section III-A, Fig. 4):
/// an edge `j → i` is allowed only if `perm[j] < perm[i]` (`perm[i]` is node `i`'s
/// position), so the network is acyclic by construction and every node chooses its
/// parents independently: while `|Π_i| < k` it adds the parent of largest gain
/// `K2(i, Π_i ∪ {j}) − K2(i, Π_i)` if that gain is `> 0`, and otherwise stops.
///
/// Batched across nodes: after one call for the empty network, round `r` scores the
/// candidates of every still-active node in one call, so at most `k + 1` calls —
/// unless the scorer builds the whole network itself ([`FamilyScorer::pboa_network`]).
///
/// Tie rule: a gain is the single f64 subtraction of the two K2 scores; among
/// exactly equal gains of one node the smallest `j` wins.
pub fn build_pboa(pop: &Population, scorer: &mut dyn FamilyScorer, k: usize, table: &LnFactorial, perm: &[usize]) -> Result<Network> {
    let ell = pop.ell();
    ensure!(perm.len() == ell, "perm has {} entries for {ell} nodes", perm.len());
    let mut seen = vec![false; ell];
    for &p in perm {
        ensure!(p < ell && !std::mem::replace(&mut seen[p], true), "perm is not a permutation of 0..{ell}");
    }
    if let Some(network) = scorer.pboa_network(pop, table, k, perm) {
        return network;
    }
    let mut greedy = Greedy::start(pop, scorer, table)?;
    let mut active = vec![k > 0; ell];
    let mut steps = 0;
    loop {
        greedy.families.clear();
        for i in (0..ell).filter(|&i| active[i]) {
            greedy.push_candidates(i, |j| perm[j] < perm[i]);
        }
        if greedy.families.is_empty() {
            break;
        }
        greedy.score()?;
        steps += 1;
        // Per node, the family of largest positive gain; candidates arrive in
        // increasing j, so the strict `>` keeps the smallest j of equal gains.
        let mut best: Vec<Option<(f64, usize, f64)>> = vec![None; ell];
        for (family, &s) in greedy.families.iter().zip(&greedy.scores) {
            let gain = s - greedy.node_score[family.node];
            if gain > 0.0 && best[family.node].is_none_or(|(g, _, _)| gain > g) {
                best[family.node] = Some((gain, family.added(), s));
            }
        }
        for (i, active) in active.iter_mut().enumerate().filter(|(_, active)| **active) {
            match best[i] {
                Some((_, j, s)) => {
                    greedy.add_edge(j, i, s);
                    *active = greedy.parents[i].len() < k;
                }
                None => *active = false,
            }
        }
    }
    Ok(greedy.finish(steps))
}

// ---------------------------------------------------------------------------
// Sampling (Section III)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// BOA (Sections III and V)
// ---------------------------------------------------------------------------

/// How the network is built each generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Construction {
    /// sBOA: [`build_sboa`].
    Simple,
    /// pBOA / gBOA: [`build_pboa`] with a fresh random permutation each generation
    /// ([`random_permutation`] or [`CounterRng::permutation`]).
    Permutation,
}

impl Construction {
    pub fn name(self) -> &'static str {
        match self {
            Construction::Simple => "sboa",
            Construction::Permutation => "pboa",
        }
    }
}

// ---------------------------------------------------------------------------
// Counter-based randomness (issue #23: BOA on the device, end to end)
// ---------------------------------------------------------------------------

/// Where a run's random numbers come from: [`Randomness::Counter`] draws one per (generation, stream, individual,
/// locus) ([`CounterRng`]), so a run with every phase on the GPU (`gpu::boa::run_on_device`) makes it bit for bit.
pub use super::philox::Randomness;

/// What a counter-based draw is for: counter word 1 of [`CounterRng::draw`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Stream {
    /// The initial population: one allele per (individual, locus), generation 0.
    Initial = 0,
    /// pBOA's permutation: one key per node (individual 0, locus = node).
    Permutation = 1,
    /// Ancestral sampling: one number per (offspring, locus).
    Sampling = 2,
}

/// Philox4x32-10 keyed by a run's seed (`kernels/boa_run.cu` draws the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterRng {
    key: [u32; 2],
}

impl CounterRng {
    /// Key words: the seed's low and high halves.
    pub fn new(seed: u64) -> Self {
        CounterRng { key: [seed as u32, (seed >> 32) as u32] }
    }

    /// Word 0 of Philox4x32-10 at counter (generation, stream, individual, locus).
    pub fn draw(&self, generation: u32, stream: Stream, individual: u32, locus: u32) -> u32 {
        philox4x32_10([generation, stream as u32, individual, locus], self.key)[0]
    }

    /// The allele of `individual` at `locus` in the initial population: the top bit.
    pub fn initial_allele(&self, individual: u32, locus: u32) -> u8 {
        (self.draw(0, Stream::Initial, individual, locus) >> 31) as u8
    }

    /// pBOA's permutation of generation `generation` over `ell` nodes (`perm[i]` =
    /// node `i`'s position): node `i` draws key `r_i`, and its position is the number
    /// of nodes `j` with `(r_j, j) < (r_i, i)` — a rank with no ties, so a device
    /// computing the same count gets the same permutation.
    pub fn permutation(&self, generation: u32, ell: usize) -> Vec<usize> {
        let keys: Vec<(u32, usize)> = (0..ell).map(|j| (self.draw(generation, Stream::Permutation, 0, j as u32), j)).collect();
        keys.iter().map(|ki| keys.iter().filter(|kj| *kj < ki).count()).collect()
    }
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

/// FNV-1a (64-bit) of a population's rows: what the device self-check compares per
/// generation.
pub fn population_hash(rows: &[u8]) -> u64 {
    rows.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The random numbers of one run, as [`BoaConfig::rng`] chooses.
enum Draws {
    Paper(Box<StdRng>),
    Counter(CounterRng),
}

/// Parameters of one BOA run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoaConfig {
    /// Population size N.
    pub n: usize,
    /// Largest parent set (3 in Section V).
    pub k: usize,
    /// Fraction of the population selected by truncation (0.5 in Section V).
    pub selection: f64,
    /// Generations run (200 in Section V).
    pub max_generations: usize,
    /// Stop early once every individual is the same string (not in the paper, which
    /// always runs `max_generations`).
    pub stop_on_convergence: bool,
    pub construction: Construction,
    /// Where the random numbers come from ([`Randomness::Paper`] in Section V's
    /// configuration).
    pub rng: Randomness,
}

impl BoaConfig {
    /// Section V: N = 4800, k = 3, the best 50% selected, 200 generations, no early
    /// stop.
    pub fn paper(construction: Construction) -> Self {
        BoaConfig { n: 4800, k: 3, selection: 0.5, max_generations: 200, stop_on_convergence: false, construction, rng: Randomness::Paper }
    }

    /// Number of selected individuals, `round(N · selection)`.
    pub fn selected(&self) -> usize {
        (self.n as f64 * self.selection).round() as usize
    }
}

/// One generation, measured after replacement.
#[derive(Clone, Debug, PartialEq)]
pub struct GenerationStats {
    pub best_fitness: u32,
    pub mean_fitness: f64,
    /// Edges of the network built this generation.
    pub edges: usize,
}

/// Wall-clock time per phase of a run, summed over generations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Ranking the population and copying out the selected rows.
    pub selection: Duration,
    /// Packing the selected population by locus, loading the scorer and building
    /// the network (the part gBOA moves to the GPU, Fig. 7).
    pub construction: Duration,
    /// Conditional probabilities (or counts) and ancestral sampling.
    pub sampling: Duration,
    /// Evaluating the offspring (trap-k).
    pub evaluation: Duration,
    /// Writing the offspring and their fitness over the worst individuals.
    pub replacement: Duration,
    /// The whole run, initialization included.
    pub total: Duration,
}

/// The outcome of one BOA run.
#[derive(Clone, Debug, PartialEq)]
pub struct BoaResult {
    pub generations: usize,
    /// Fitness of the best individual of the final population (the first on ties).
    pub best_fitness: u32,
    /// Subproblems that individual solves.
    pub best_solved: usize,
    /// `best_solved / m`.
    pub solved_fraction: f64,
    /// Whether every individual of the final population is the same string.
    pub converged: bool,
    pub timings: PhaseTimes,
    /// Families scored over all generations.
    pub families_scored: u64,
    pub history: Vec<GenerationStats>,
}

/// What [`run_traced`] keeps of one generation: the network built and the
/// population after replacement, for comparing whole runs across backends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerationTrace {
    pub parents: Vec<Vec<usize>>,
    /// Bits of [`Network::score`].
    pub score_bits: u64,
    /// [`population_hash`] of the rows after replacement.
    pub population_hash: u64,
}

/// Runs BOA on `trap` with the random numbers `cfg.rng` chooses: one `StdRng`
/// seeded with `seed` ([`Randomness::Paper`]), or [`CounterRng`] keyed by `seed`
/// ([`Randomness::Counter`]):
///
/// 1. N uniformly random individuals (alleles drawn row by row, or
///    [`CounterRng::initial_allele`]), evaluated;
/// 2. truncation selection: the population ranked by decreasing fitness, ties by
///    increasing index, and the first `S = round(N · selection)` selected;
/// 3. the network of the selected individuals by `cfg.construction` (pBOA draws its
///    permutation here: [`random_permutation`] or [`CounterRng::permutation`] of the
///    generation), at most `cfg.k` parents per node;
/// 4. `N − S` offspring by ancestral sampling ([`conditional_probabilities`] and
///    [`sample`], or [`conditional_counts`] and [`sample_counter`]), evaluated;
/// 5. replacement of the worst: offspring `c` overwrites the individual ranked
///    `S + c` in step 2, so the selected individuals survive and the offspring take
///    the places of the `N − S` worst (Pelikan's BOA: new solutions replace the worst
///    part of the population).
///
/// Steps 2–5 repeat for `cfg.max_generations` generations, or until the population
/// has converged to one string when `cfg.stop_on_convergence`.
pub fn run(trap: &Trap, cfg: &BoaConfig, seed: u64, scorer: &mut dyn FamilyScorer) -> Result<BoaResult> {
    run_traced(trap, cfg, seed, scorer, None)
}

/// [`run`], pushing every generation's [`GenerationTrace`] onto `trace` when given.
pub fn run_traced(
    trap: &Trap,
    cfg: &BoaConfig,
    seed: u64,
    scorer: &mut dyn FamilyScorer,
    mut trace: Option<&mut Vec<GenerationTrace>>,
) -> Result<BoaResult> {
    let start = Instant::now();
    let (n, ell, selected_n) = (cfg.n, trap.ell(), cfg.selected());
    ensure!(ell > 0, "empty problem");
    ensure!(selected_n > 0 && selected_n < n, "selection {} of N = {n} must select between 1 and N − 1 individuals", cfg.selection);
    ensure!(
        cfg.rng == Randomness::Paper || (n <= u32::MAX as usize && cfg.max_generations <= u32::MAX as usize),
        "counter-based randomness numbers individuals and generations in 32 bits: N = {n}, {} generations",
        cfg.max_generations
    );
    let table = LnFactorial::new(selected_n);
    let mut draws = match cfg.rng {
        Randomness::Paper => Draws::Paper(Box::new(StdRng::seed_from_u64(seed))),
        Randomness::Counter => Draws::Counter(CounterRng::new(seed)),
    };
    let mut rows: Vec<u8> = match &mut draws {
        Draws::Paper(rng) => (0..n * ell).map(|_| u8::from(rng.random::<bool>())).collect(),
        Draws::Counter(rng) => (0..n * ell).map(|a| rng.initial_allele((a / ell) as u32, (a % ell) as u32)).collect(),
    };
    let mut fitness: Vec<u32> = rows.chunks_exact(ell).map(|row| trap.fitness(row)).collect();
    let mut timings = PhaseTimes::default();
    let mut families_scored = 0;
    let mut history = Vec::new();
    let mut ranking: Vec<usize> = (0..n).collect();
    let converged = loop {
        let converged = rows.chunks_exact(ell).all(|row| row == &rows[..ell]);
        if (cfg.stop_on_convergence && converged) || history.len() == cfg.max_generations {
            break converged;
        }
        let generation = history.len() as u32;
        let phase = Instant::now();
        ranking.sort_unstable_by_key(|&i| (Reverse(fitness[i]), i));
        let selected_rows: Vec<u8> = ranking[..selected_n].iter().flat_map(|&i| &rows[i * ell..][..ell]).copied().collect();
        timings.selection += phase.elapsed();

        let phase = Instant::now();
        let selected = Population::from_rows(selected_n, ell, selected_rows)?;
        let network = match (cfg.construction, &mut draws) {
            (Construction::Simple, _) => build_sboa(&selected, scorer, cfg.k, &table)?,
            (Construction::Permutation, Draws::Paper(rng)) => build_pboa(&selected, scorer, cfg.k, &table, &random_permutation(ell, rng))?,
            (Construction::Permutation, Draws::Counter(rng)) => {
                build_pboa(&selected, scorer, cfg.k, &table, &rng.permutation(generation, ell))?
            }
        };
        families_scored += network.families_scored;
        timings.construction += phase.elapsed();

        let phase = Instant::now();
        let offspring = match &mut draws {
            Draws::Paper(rng) => sample(&network, &conditional_probabilities(&network, &selected)?, n - selected_n, rng),
            Draws::Counter(rng) => sample_counter(&network, &conditional_counts(&network, &selected)?, n - selected_n, rng, generation),
        };
        timings.sampling += phase.elapsed();

        let phase = Instant::now();
        let offspring_fitness: Vec<u32> = offspring.chunks_exact(ell).map(|child| trap.fitness(child)).collect();
        timings.evaluation += phase.elapsed();

        let phase = Instant::now();
        for ((child, &f), &slot) in offspring.chunks_exact(ell).zip(&offspring_fitness).zip(&ranking[selected_n..]) {
            rows[slot * ell..][..ell].copy_from_slice(child);
            fitness[slot] = f;
        }
        timings.replacement += phase.elapsed();

        if let Some(trace) = trace.as_deref_mut() {
            trace.push(GenerationTrace {
                parents: network.parents.clone(),
                score_bits: network.score.to_bits(),
                population_hash: population_hash(&rows),
            });
        }
        history.push(GenerationStats {
            best_fitness: fitness.iter().copied().max().unwrap_or(0),
            mean_fitness: fitness.iter().map(|&f| f64::from(f)).sum::<f64>() / n as f64,
            edges: network.edges(),
        });
    };
    let best = (0..n).fold(0, |best, i| if fitness[i] > fitness[best] { i } else { best });
    let best_solved = trap.solved(&rows[best * ell..][..ell]);
    timings.total = start.elapsed();
    Ok(BoaResult {
        generations: history.len(),
        best_fitness: fitness[best],
        best_solved,
        solved_fraction: best_solved as f64 / trap.m as f64,
        converged,
        timings,
        families_scored,
        history,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::ecga::BaselineCounter;

    const POPCNT: PrefixFastCount = PrefixFastCount { popcount: Popcount::Hardware };

    /// `copies · 2^m` individuals of `trap`'s loci: every combination of all-ones
    /// and all-zeros blocks, `copies` times. The blocks are the only dependencies
    /// and any two blocks are exactly independent in the counts.
    fn planted_blocks(trap: &Trap, copies: usize) -> Population {
        let n = copies << trap.m;
        let rows = (0..n).flat_map(|r| (0..trap.m).flat_map(move |b| std::iter::repeat_n((r >> b & 1) as u8, trap.k))).collect();
        Population::from_rows(n, trap.ell(), rows).unwrap()
    }

    /// Blocks of 5 whose last locus is the majority of the first three, flipped with
    /// probability 0.1: a node that gains from several parents.
    fn majority_blocks(m: usize, n: usize, seed: u64) -> Population {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut rows = Vec::with_capacity(n * m * 5);
        for _ in 0..n * m {
            let block: [bool; 4] = rng.random();
            let majority = u8::from(block[..3].iter().filter(|&&b| b).count() >= 2);
            rows.extend(block.map(u8::from));
            rows.push(majority ^ u8::from(rng.random::<f64>() < 0.1));
        }
        Population::from_rows(n, m * 5, rows).unwrap()
    }

    /// Checks what every network must satisfy and returns it.
    fn check_network<'a>(net: &'a Network, pop: &Population, k: usize) -> &'a Network {
        let table = LnFactorial::new(pop.n());
        let order = net.topological_order();
        let mut position = vec![usize::MAX; pop.ell()];
        for (at, &i) in order.iter().enumerate() {
            position[i] = at;
        }
        let mut rescored = 0.0;
        let mut empty = 0.0;
        for (i, parents) in net.parents.iter().enumerate() {
            assert!(parents.len() <= k, "node {i} has {} parents", parents.len());
            assert!(parents.iter().all(|&p| position[p] < position[i]), "cycle through node {i}");
            let mut counts = vec![0; 2 << parents.len()];
            POPCNT.count(pop, &[&[i][..], parents].concat(), &mut counts);
            rescored += family_score(&counts, &table);
            POPCNT.count(pop, &[i], &mut counts[..2]);
            empty += family_score(&counts[..2], &table);
        }
        assert_eq!(net.score.to_bits(), f64::to_bits(rescored), "score is the sum of the final families' K2");
        assert!(net.edges() == 0 || net.score > empty, "every edge added a positive gain");
        net
    }

    #[test]
    fn ln_factorial_table_holds_known_values() {
        let table = LnFactorial::new(5);
        assert_eq!(table.n(), 5);
        assert_eq!(table.table().len(), 7);
        assert_eq!(table.table()[..2], [0.0, 0.0]);
        for (c, factorial) in [(2, 2.0f64), (3, 6.0), (5, 120.0), (6, 720.0)] {
            assert!((table.table()[c] - factorial.ln()).abs() < 1e-12, "ln {c}!");
        }
        let big = LnFactorial::new(4800);
        // Stirling with the 1/(12c) term, accurate to ~1e-12 relative at c = 4801.
        let c = 4801.0f64;
        let stirling = c * c.ln() - c + 0.5 * (2.0 * std::f64::consts::PI * c).ln() + 1.0 / (12.0 * c);
        assert!((big.table()[4801] - stirling).abs() < 1e-8);
    }

    #[test]
    fn family_score_matches_a_hand_computed_k2() {
        // Rows (x0, x1): (0,0), (0,1), (1,1), (1,1).
        let pop = Population::from_rows(4, 2, vec![0, 0, 0, 1, 1, 1, 1, 1]).unwrap();
        let table = LnFactorial::new(4);
        let mut scorer = CpuFamilyScorer::new(BaselineCounter);
        scorer.load(&pop, &table).unwrap();
        let families = [Family { node: 0, parents: vec![] }, Family { node: 0, parents: vec![1] }, Family { node: 1, parents: vec![0] }];
        let mut out = vec![7.0; 9];
        scorer.score(&families, &mut out).unwrap();
        // No parents: N0 = N1 = 2, ln(2!·2!/5!) = ln(1/30).
        assert!((out[0] - (1.0f64 / 30.0).ln()).abs() < 1e-12);
        // x1 = 0: (N0, N1) = (1, 0) → −ln 2; x1 = 1: (1, 2) → ln(2/4!) = −ln 12.
        assert!((out[1] + 24f64.ln()).abs() < 1e-12);
        // x0 = 0: (1, 1) → −ln 3!; x0 = 1: (0, 2) → ln(2/3!) = −ln 3.
        assert!((out[2] + 18f64.ln()).abs() < 1e-12);
        assert_eq!(out.len(), 3);
        // The documented order of operations, which a device scorer must repeat.
        let table = LnFactorial::new(2400);
        let t = table.table();
        let counts: [usize; 8] = [538, 553, 359, 557, 249, 400, 305, 68];
        let (mut joint, mut parents) = (0.0, 0.0);
        for c in counts {
            joint += t[c];
        }
        for pi in 0..4 {
            parents += t[counts[2 * pi] + counts[2 * pi + 1] + 1];
        }
        assert_eq!(family_score(&counts.map(|c| c as u32), &table).to_bits(), f64::to_bits(joint - parents));
        // Before load and with a bad family the scorer refuses.
        assert!(CpuFamilyScorer::new(POPCNT).score(&families, &mut out).is_err());
        assert!(scorer.score(&[Family { node: 0, parents: vec![0] }], &mut out).is_err());
        assert!(scorer.load(&pop, &LnFactorial::new(5)).is_err());
    }

    #[test]
    fn scorers_are_bit_identical() {
        let pop = Population::random(777, 24, 5).unwrap();
        let table = LnFactorial::new(777);
        let mut rng = StdRng::seed_from_u64(9);
        let families: Vec<Family> = (0..500)
            .map(|f| {
                let mut loci: Vec<usize> = (0..24).collect();
                loci.shuffle(&mut rng);
                Family { node: loci[0], parents: loci[1..=f % 4].to_vec() }
            })
            .collect();
        let mut scorers: Vec<Box<dyn FamilyScorer>> = vec![
            Box::new(CpuFamilyScorer::new(BaselineCounter)),
            Box::new(CpuFamilyScorer::new(POPCNT)),
            Box::new(ParallelFamilyScorer::new(POPCNT)),
            Box::new(ParallelFamilyScorer::new(PrefixFastCount { popcount: Popcount::UnityTable16 })),
        ];
        let mut reference = Vec::new();
        for scorer in &mut scorers {
            scorer.load(&pop, &table).unwrap();
            let mut out = Vec::new();
            scorer.score(&families, &mut out).unwrap();
            let bits: Vec<u64> = out.iter().map(|s| s.to_bits()).collect();
            if reference.is_empty() {
                reference = bits;
            } else {
                assert_eq!(bits, reference, "{}", scorer.name());
            }
        }
    }

    #[test]
    fn both_constructions_find_the_planted_blocks() {
        let trap = Trap { k: 5, m: 8 };
        let pop = planted_blocks(&trap, 4);
        let table = LnFactorial::new(pop.n());
        let perm = random_permutation(trap.ell(), &mut StdRng::seed_from_u64(4));
        let mut scorer = CpuFamilyScorer::new(POPCNT);
        let sboa = build_sboa(&pop, &mut scorer, 3, &table).unwrap();
        let pboa = build_pboa(&pop, &mut scorer, 3, &table, &perm).unwrap();
        for net in [&sboa, &pboa] {
            check_network(net, &pop, 3);
            for (i, parents) in net.parents.iter().enumerate() {
                assert!(parents.iter().all(|&p| trap.block_of(p) == trap.block_of(i)), "node {i} parents {parents:?}");
            }
            // Identical loci: one parent explains a node fully; a second gains exactly 0.
            assert_eq!(net.edges(), 4 * trap.m);
        }
        assert!(pboa.parents.iter().enumerate().all(|(i, ps)| ps.iter().all(|&j| perm[j] < perm[i])));
        // pBOA: one call for the empty network and one per round; sBOA: one per edge.
        assert_eq!(pboa.steps, 2);
        assert_eq!(sboa.steps, 4 * trap.m);
        // Both reach the same per-block optimum, summed in different node orders.
        assert!((sboa.score - pboa.score).abs() < 1e-9 * sboa.score.abs());
        // All in-block candidates tie exactly, so the tie rules decide: sBOA's
        // smallest (i, j) chains each block 4 → 3 → 2 → 1 → 0; pBOA's smallest j
        // (identity permutation) hangs every locus on its block's first.
        let chain: Vec<Vec<usize>> = (0..trap.ell()).map(|i| if i % 5 < 4 { vec![i + 1] } else { vec![] }).collect();
        assert_eq!(sboa.parents, chain);
        let identity: Vec<usize> = (0..trap.ell()).collect();
        let star: Vec<Vec<usize>> = (0..trap.ell()).map(|i| if i % 5 > 0 { vec![i - i % 5] } else { vec![] }).collect();
        assert_eq!(build_pboa(&pop, &mut scorer, 3, &table, &identity).unwrap().parents, star);
    }

    #[test]
    fn parent_limit_and_acyclicity_hold_where_more_parents_would_gain() {
        let pop = majority_blocks(6, 2000, 2);
        let table = LnFactorial::new(pop.n());
        let mut scorer = ParallelFamilyScorer::new(POPCNT);
        let identity: Vec<usize> = (0..30).collect();
        for k in [0, 1, 2, 3] {
            let sboa = build_sboa(&pop, &mut scorer, k, &table).unwrap();
            let pboa = build_pboa(&pop, &mut scorer, k, &table, &identity).unwrap();
            let most = |net: &Network| net.parents.iter().map(Vec::len).max().unwrap();
            assert_eq!(most(check_network(&sboa, &pop, k)), k, "sBOA k = {k}");
            assert_eq!(most(check_network(&pboa, &pop, k)), k, "pBOA k = {k}");
            assert!(pboa.parents.iter().enumerate().all(|(i, ps)| ps.iter().all(|&j| j < i)));
            assert!(pboa.steps <= k, "pBOA scores in at most k rounds after the empty network");
        }
        assert!(build_pboa(&pop, &mut scorer, 3, &table, &[0; 30]).is_err());
        assert!(build_pboa(&pop, &mut scorer, 3, &table, &identity[1..]).is_err());
    }

    #[test]
    fn topological_order_puts_parents_first() {
        let net = Network { parents: vec![vec![2], vec![], vec![1, 3], vec![]], score: 0.0, families_scored: 0, steps: 0 };
        assert_eq!(net.topological_order(), [1, 3, 2, 0]);
        assert_eq!(net.edges(), 3);
    }

    #[test]
    fn sampling_follows_the_conditional_probabilities() {
        // x1 copies x0 in the selected rows; configuration x0 = 1 never occurs.
        let pop = Population::from_rows(4, 2, vec![0, 0, 0, 0, 0, 0, 0, 1]).unwrap();
        let net = Network { parents: vec![vec![], vec![0]], score: 0.0, families_scored: 0, steps: 0 };
        let p_one = conditional_probabilities(&net, &pop).unwrap();
        assert_eq!(p_one, [vec![0.0], vec![0.25, 0.5]]);
        // Planted blocks: every sampled block is again all ones or all zeros.
        let trap = Trap { k: 5, m: 6 };
        let pop = planted_blocks(&trap, 8);
        let net = build_sboa(&pop, &mut CpuFamilyScorer::new(POPCNT), 3, &LnFactorial::new(pop.n())).unwrap();
        let p_one = conditional_probabilities(&net, &pop).unwrap();
        let rows = sample(&net, &p_one, 300, &mut StdRng::seed_from_u64(1));
        let blocks: Vec<&[u8]> = rows.chunks_exact(trap.k).collect();
        assert!(blocks.iter().all(|b| b.iter().all(|&a| a == b[0])));
        let ones = blocks.iter().filter(|b| b[0] == 1).count();
        assert!((700..1100).contains(&ones), "{ones} of 1800 blocks are ones");
    }

    #[test]
    fn boa_solves_a_4x5_trap() {
        let trap = Trap { k: 5, m: 4 };
        for construction in [Construction::Simple, Construction::Permutation] {
            let cfg = BoaConfig { n: 1000, max_generations: 50, stop_on_convergence: true, ..BoaConfig::paper(construction) };
            let result = run(&trap, &cfg, 2024, &mut CpuFamilyScorer::new(POPCNT)).unwrap();
            assert!(result.best_solved + 1 >= trap.m, "{}: {result:?}", construction.name());
            assert_eq!(result.generations, result.history.len());
            assert!(result.generations <= 50 && result.families_scored > 0);
            assert!(result.history.windows(2).all(|w| w[1].best_fitness >= w[0].best_fitness), "the best survive replacement");
            assert_eq!(result.solved_fraction, result.best_solved as f64 / 4.0);
        }
    }

    #[test]
    fn runs_are_deterministic_and_independent_of_the_scorer() {
        let trap = Trap { k: 5, m: 3 };
        let cfg = BoaConfig { n: 400, max_generations: 8, ..BoaConfig::paper(Construction::Permutation) };
        let strip = |mut r: BoaResult| {
            r.timings = PhaseTimes::default();
            r
        };
        let a = strip(run(&trap, &cfg, 7, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
        let b = strip(run(&trap, &cfg, 7, &mut ParallelFamilyScorer::new(BaselineCounter)).unwrap());
        let c = strip(run(&trap, &cfg, 8, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
        assert_eq!(a, b);
        assert_ne!(a.history, c.history);
        assert_eq!(a.generations, 8);
        let bad = BoaConfig { selection: 1.0, ..cfg };
        assert!(run(&trap, &bad, 7, &mut CpuFamilyScorer::new(POPCNT)).is_err());
    }

    #[test]
    fn counter_draws_are_philox_at_the_documented_counter() {
        let rng = CounterRng::new(0x1234_5678_9abc_def0);
        assert_eq!(rng.draw(7, Stream::Sampling, 11, 13), philox4x32_10([7, 2, 11, 13], [0x9abc_def0, 0x1234_5678])[0]);
        assert_eq!(rng.initial_allele(3, 4), (philox4x32_10([0, 0, 3, 4], [0x9abc_def0, 0x1234_5678])[0] >> 31) as u8);
        for ell in [1, 2, 30, 191] {
            let perm = rng.permutation(5, ell);
            let mut sorted = perm.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..ell).collect::<Vec<_>>(), "ℓ = {ell}");
            if ell > 2 {
                assert_ne!(perm, rng.permutation(6, ell), "a fresh permutation each generation");
            }
        }
    }

    #[test]
    fn sampled_one_decides_in_integers() {
        for r in [0, 1, 1 << 31, u32::MAX] {
            assert!(!sampled_one(r, 0, 7), "p = 0 never samples 1");
            assert!(sampled_one(r, 7, 7), "p = 1 always samples 1");
        }
        // Unseen configuration: exactly half of all r.
        assert!(sampled_one((1 << 31) - 1, 0, 0) && !sampled_one(1 << 31, 0, 0));
        // p = 1/3: r / 2³² < 1/3 ⇔ 3r < 2³².
        let third = (1u64 << 32).div_ceil(3) as u32;
        assert!(sampled_one(third - 1, 1, 3) && !sampled_one(third, 1, 3));
    }

    #[test]
    fn counter_sampling_is_independent_of_the_topological_order() {
        let pop = majority_blocks(4, 600, 3);
        let table = LnFactorial::new(pop.n());
        let rng = CounterRng::new(99);
        let perm = rng.permutation(0, pop.ell());
        let net = build_pboa(&pop, &mut CpuFamilyScorer::new(POPCNT), 3, &table, &perm).unwrap();
        assert!(net.edges() > 0);
        let tables = conditional_counts(&net, &pop).unwrap();
        assert!(tables.iter().zip(&net.parents).all(|(t, p)| t.len() == 1 << p.len() && t.iter().map(|c| c.1).sum::<u32>() == 600));
        let rows = sample_counter(&net, &tables, 50, &rng, 4);
        // The device's order: nodes by their position in the permutation.
        let mut by_position = vec![0; pop.ell()];
        for (i, &p) in perm.iter().enumerate() {
            by_position[p] = i;
        }
        assert_ne!(by_position, net.topological_order());
        let mut again = vec![0u8; rows.len()];
        for (c, child) in again.chunks_exact_mut(pop.ell()).enumerate() {
            for &i in &by_position {
                let pi = net.parents[i].iter().enumerate().fold(0, |pi, (b, &p)| pi | usize::from(child[p]) << b);
                let (ones, total) = tables[i][pi];
                child[i] = u8::from(sampled_one(rng.draw(4, Stream::Sampling, c as u32, i as u32), ones, total));
            }
        }
        assert_eq!(rows, again);
        assert_ne!(rows, sample_counter(&net, &tables, 50, &rng, 5), "each generation draws afresh");
    }

    #[test]
    fn counter_runs_are_deterministic_solve_trap5_and_differ_from_the_paper_configuration() {
        let trap = Trap { k: 5, m: 4 };
        let strip = |mut r: BoaResult| {
            r.timings = PhaseTimes::default();
            r
        };
        let cfg = BoaConfig { n: 1000, max_generations: 30, rng: Randomness::Counter, ..BoaConfig::paper(Construction::Permutation) };
        let (mut ta, mut tb) = (Vec::new(), Vec::new());
        let a = strip(run_traced(&trap, &cfg, 2024, &mut CpuFamilyScorer::new(POPCNT), Some(&mut ta)).unwrap());
        let b = strip(run_traced(&trap, &cfg, 2024, &mut ParallelFamilyScorer::new(BaselineCounter), Some(&mut tb)).unwrap());
        assert_eq!(a, b);
        assert_eq!(ta, tb);
        assert_eq!(ta.len(), 30);
        assert!(a.best_solved == trap.m, "{a:?}");
        let paper = strip(run(&trap, &BoaConfig { rng: Randomness::Paper, ..cfg }, 2024, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
        assert_ne!(paper.history, a.history);
        let other = strip(run(&trap, &cfg, 2025, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
        assert_ne!(other.history, a.history);
        // sBOA takes its offspring from the counter too.
        let simple = BoaConfig { construction: Construction::Simple, max_generations: 3, ..cfg };
        let s1 = strip(run(&trap, &simple, 1, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
        assert_eq!(s1, strip(run(&trap, &simple, 1, &mut CpuFamilyScorer::new(POPCNT)).unwrap()));
    }
}
