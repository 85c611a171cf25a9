//! Network construction (Section III): Pelikan's simple BOA (sBOA, greedy edge
//! additions with an acyclicity check) and Ocenasek's permutation scheme (pBOA,
//! Section III-A, Fig. 4) that gBOA parallelizes.

use super::{Family, FamilyScorer, LnFactorial};
use crate::library::ecga::Population;
use anyhow::{Result, ensure};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::collections::VecDeque;

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
