//! Model building (Algorithm 1, Section 4.3): the marginal product model, greedy
//! search with the ΔCCC cache of Lobo et al. and greedy mating (GM) search, over
//! any [`PairScorer`].

use super::{PairScorer, Population, XLogX, group_cost};
use anyhow::{Result, ensure};

/// A marginal product model: a partition of the loci into groups (Section 3.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mpm {
    pub groups: Vec<Vec<usize>>,
}

/// The outcome of one model build.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelTrace {
    pub mpm: Mpm,
    /// Each merge in order: the two groups as they were, and its ΔCCC.
    pub merges: Vec<(Vec<usize>, Vec<usize>, f64)>,
    /// CCC of the final model, equation (1).
    pub ccc: f64,
    /// Candidate merges scored (the CCC evaluations the paper counts).
    pub pairs_scored: u64,
    /// Model-searching steps (Section 4.2.3): one per merge for greedy search, one
    /// per round of simultaneous merges for GM search.
    pub steps: usize,
}

/// Which model search ECGA runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// Algorithm 1 with the pair cache: [`greedy_search`].
    Greedy,
    /// Section 4.3: [`greedy_mating_search`].
    GreedyMating,
}

impl Search {
    pub fn name(self) -> &'static str {
        match self {
            Search::Greedy => "greedy",
            Search::GreedyMating => "gm",
        }
    }

    /// The MPM of `pop`: on the scorer's device when it searches there
    /// ([`PairScorer::device_search`]), else on the host.
    pub fn build(self, pop: &Population, scorer: &mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> Result<ModelTrace> {
        if let Some(trace) = scorer.device_search(self, pop, max_l, xlogx) {
            return trace;
        }
        match self {
            Search::Greedy => greedy_search(pop, scorer, max_l, xlogx),
            Search::GreedyMating => greedy_mating_search(pop, scorer, max_l, xlogx),
        }
    }
}

/// Greedy model search, Algorithm 1, with the ΔCCC cache of Lobo et al.
///
/// Starts from ℓ singletons, scores every pair whose merged size is at most
/// `max_l` (MAX_L), then repeatedly merges the pair of smallest ΔCCC = cost(a ∪ b)
/// − cost(a) − cost(b) while it is negative, rescoring only the pairs that touch
/// the merged group.
///
/// Tie rule: among exactly equal ΔCCC (f64 `==`) the lexicographically smallest
/// `(a, b)`, `a < b`, in the current group order wins. The merged group takes a's
/// place with loci a's then b's; b is removed and the other groups keep their order.
pub fn greedy_search(pop: &Population, scorer: &mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> Result<ModelTrace> {
    let mut search = ModelSearch::start(pop, scorer, max_l, xlogx)?;
    let mut rows = RowBest::of(&search);
    while let Some((a, b)) = rows.best_pair(&search) {
        #[cfg(debug_assertions)]
        assert_eq!(Some((a, b)), search.best_pair_by_scan());
        search.merge(a, b);
        search.rescore_touching(&[a])?;
        rows.after_merge(&search, a, b);
        search.steps += 1;
    }
    Ok(search.finish())
}

/// Greedy mating (GM) search, Section 4.3.
///
/// Each step every group records its best partner: the smallest negative ΔCCC
/// among its pairs, ties going to the lexicographically smallest pair as in
/// [`greedy_search`]. Every mutually best pair merges in that step (so at most half
/// the groups merge), then only pairs touching a merged group are rescored; the
/// search stops when no pair has ΔCCC < 0. Within a step the merges are applied
/// (and recorded) in increasing order of their first group; each merged group takes
/// its first group's place (loci first group's then second's), the second groups
/// are removed and every other group keeps its order — the same result as applying
/// the step's merges one by one with [`greedy_search`]'s rule.
pub fn greedy_mating_search(pop: &Population, scorer: &mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> Result<ModelTrace> {
    let mut search = ModelSearch::start(pop, scorer, max_l, xlogx)?;
    loop {
        let mates = search.mutual_best_pairs();
        if mates.is_empty() {
            break;
        }
        for &(a, b) in &mates {
            search.merge(a, b);
        }
        let merged: Vec<usize> = mates.iter().map(|&(a, _)| a).collect();
        search.rescore_touching(&merged)?;
        search.steps += 1;
    }
    Ok(search.finish())
}

/// State shared by both searches. Groups live in slots `0..ℓ` (slot `l` starts as
/// `{l}`); a merged group keeps its first group's slot and the second slot is
/// emptied, so the current group order is the order of the live slots and pairs are
/// passed to the scorer as slot indices (`a < b`).
pub(super) struct ModelSearch<'s> {
    n: usize,
    max_l: usize,
    scorer: &'s mut dyn PairScorer,
    groups: Vec<Vec<usize>>,
    live: Vec<usize>,
    cost: Vec<f64>,
    /// `s` and ΔCCC of pair `(a, b)`, `a < b`, at [`pair_index`]; ΔCCC is +∞ for
    /// pairs larger than `max_l`.
    pair_s: Vec<f64>,
    delta: Vec<f64>,
    merges: Vec<(Vec<usize>, Vec<usize>, f64)>,
    pairs_scored: u64,
    pub(super) steps: usize,
    batch: Vec<(usize, usize)>,
    scores: Vec<f64>,
}

fn pair_index(a: usize, b: usize) -> usize {
    debug_assert!(a < b);
    b * (b - 1) / 2 + a
}

impl<'s> ModelSearch<'s> {
    pub(super) fn start(pop: &Population, scorer: &'s mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> Result<Self> {
        let (n, ell) = (pop.n, pop.ell);
        scorer.load(pop, xlogx)?;
        let groups: Vec<Vec<usize>> = (0..ell).map(|l| vec![l]).collect();
        let mut scores = Vec::new();
        scorer.score_groups(&groups, &mut scores)?;
        ensure!(scores.len() == ell, "scorer {} returned {} group scores for {ell} groups", scorer.name(), scores.len());
        let cost = scores.iter().map(|&s| group_cost(n, s, 1)).collect();
        let pairs = ell * ell.saturating_sub(1) / 2;
        let mut search = ModelSearch {
            n,
            max_l,
            scorer,
            groups,
            live: (0..ell).collect(),
            cost,
            pair_s: vec![f64::NAN; pairs],
            delta: vec![f64::INFINITY; pairs],
            merges: Vec::new(),
            pairs_scored: 0,
            steps: 0,
            batch: Vec::new(),
            scores,
        };
        search.rescore((0..ell).flat_map(|a| (a + 1..ell).map(move |b| (a, b))))?;
        Ok(search)
    }

    /// Scores `pairs` (each `a < b`) in one batch and caches their ΔCCC.
    fn rescore(&mut self, pairs: impl Iterator<Item = (usize, usize)>) -> Result<()> {
        self.batch.clear();
        for (a, b) in pairs {
            if self.groups[a].len() + self.groups[b].len() <= self.max_l {
                self.batch.push((a, b));
            } else {
                self.delta[pair_index(a, b)] = f64::INFINITY;
            }
        }
        if self.batch.is_empty() {
            return Ok(());
        }
        self.scorer.score(&self.groups, &self.batch, &mut self.scores)?;
        ensure!(
            self.scores.len() == self.batch.len(),
            "scorer {} returned {} scores for {} pairs",
            self.scorer.name(),
            self.scores.len(),
            self.batch.len()
        );
        for (&(a, b), &s) in self.batch.iter().zip(&self.scores) {
            let at = pair_index(a, b);
            self.pair_s[at] = s;
            self.delta[at] = group_cost(self.n, s, self.groups[a].len() + self.groups[b].len()) - self.cost[a] - self.cost[b];
        }
        self.pairs_scored += self.batch.len() as u64;
        Ok(())
    }

    /// Rescores every live pair touching a group in `merged` (ascending), once each.
    pub(super) fn rescore_touching(&mut self, merged: &[usize]) -> Result<()> {
        let live = std::mem::take(&mut self.live);
        let pairs = merged.iter().flat_map(|&m| {
            live.iter().filter(move |&&x| x != m && !(x < m && merged.binary_search(&x).is_ok())).map(move |&x| (m.min(x), m.max(x)))
        });
        let result = self.rescore(pairs);
        self.live = live;
        result
    }

    /// The live pairs `(a, b)`, `a < b`, in lexicographic order, with their ΔCCC.
    fn live_pairs(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.live.iter().enumerate().flat_map(move |(i, &a)| self.live[i + 1..].iter().map(move |&b| (a, b, self.delta[pair_index(a, b)])))
    }

    /// The pair of smallest negative ΔCCC; exact ties to the lexicographically
    /// first (what [`RowBest`] keeps without the scan; checked in debug builds).
    #[cfg(any(test, debug_assertions))]
    pub(super) fn best_pair_by_scan(&self) -> Option<(usize, usize)> {
        let mut best = None;
        let mut best_delta = 0.0;
        for (a, b, delta) in self.live_pairs() {
            if delta < best_delta {
                (best, best_delta) = (Some((a, b)), delta);
            }
        }
        best
    }

    /// Pairs that are each other's best partner (Section 4.3), by increasing `a`.
    fn mutual_best_pairs(&self) -> Vec<(usize, usize)> {
        // Pairs arrive in lexicographic order, so for a fixed group its pairs arrive
        // in lexicographic order too and a strict `<` keeps the first of equal ΔCCC.
        let mut partner: Vec<Option<(f64, usize)>> = vec![None; self.groups.len()];
        let mut offer = |g: usize, mate: usize, delta: f64| {
            if partner[g].is_none_or(|(best, _)| delta < best) {
                partner[g] = Some((delta, mate));
            }
        };
        for (a, b, delta) in self.live_pairs() {
            if delta < 0.0 {
                offer(a, b, delta);
                offer(b, a, delta);
            }
        }
        self.live
            .iter()
            .filter_map(|&a| match partner[a] {
                Some((_, b)) if b > a && partner[b].is_some_and(|(_, m)| m == a) => Some((a, b)),
                _ => None,
            })
            .collect()
    }

    pub(super) fn merge(&mut self, a: usize, b: usize) {
        let at = pair_index(a, b);
        let second = std::mem::take(&mut self.groups[b]);
        self.merges.push((self.groups[a].clone(), second.clone(), self.delta[at]));
        self.groups[a].extend(second);
        self.cost[a] = group_cost(self.n, self.pair_s[at], self.groups[a].len());
        self.live.retain(|&g| g != b);
    }

    pub(super) fn finish(self) -> ModelTrace {
        let ccc = self.live.iter().fold(0.0, |sum, &g| sum + self.cost[g]);
        let groups = self.live.iter().map(|&g| self.groups[g].clone()).collect();
        ModelTrace { mpm: Mpm { groups }, merges: self.merges, ccc, pairs_scored: self.pairs_scored, steps: self.steps }
    }
}

impl ModelTrace {
    /// The trace of a search done elsewhere (on a device) in [`ModelSearch`]'s
    /// slot terms: `merges[i] = (a, b, ΔCCC)` merged slot `b` into slot `a < b`,
    /// and `cost[g]` is the final cost of slot `g`'s group. Replays the merges
    /// on ℓ singleton slots, so the groups, their order and the CCC sum are the
    /// host search's; fails on a merge of an empty slot or one over `max_l`.
    pub fn from_slot_merges(
        ell: usize,
        max_l: usize,
        merges: &[(usize, usize, f64)],
        cost: &[f64],
        pairs_scored: u64,
        steps: usize,
    ) -> Result<ModelTrace> {
        ensure!(cost.len() == ell, "{} slot costs for ℓ = {ell}", cost.len());
        let mut groups: Vec<Vec<usize>> = (0..ell).map(|l| vec![l]).collect();
        let mut recorded = Vec::with_capacity(merges.len());
        for (i, &(a, b, delta)) in merges.iter().enumerate() {
            ensure!(a < b && b < ell, "merge {i}: slots ({a}, {b}) out of order or range for ℓ = {ell}");
            let size = groups[a].len() + groups[b].len();
            ensure!(!groups[a].is_empty() && !groups[b].is_empty() && size <= max_l, "merge {i}: slots ({a}, {b}) empty or over MAX_L");
            let second = std::mem::take(&mut groups[b]);
            recorded.push((groups[a].clone(), second.clone(), delta));
            groups[a].extend(second);
        }
        let live: Vec<usize> = (0..ell).filter(|&g| !groups[g].is_empty()).collect();
        let ccc = live.iter().fold(0.0, |sum, &g| sum + cost[g]);
        let groups = live.iter().map(|&g| std::mem::take(&mut groups[g])).collect();
        Ok(ModelTrace { mpm: Mpm { groups }, merges: recorded, ccc, pairs_scored, steps })
    }
}

/// The best partner of each group among the later live groups — `(ΔCCC, b)`,
/// ties to the smallest `b` — so that greedy search finds the best pair in
/// O(groups) per merge instead of scanning every pair (Lobo et al.'s cache keeps
/// the ΔCCC values; this keeps their row minima). Same pair, same tie rule.
struct RowBest {
    best: Vec<(f64, usize)>,
}

impl RowBest {
    const NONE: (f64, usize) = (f64::INFINITY, usize::MAX);

    fn of(search: &ModelSearch) -> RowBest {
        let mut rows = RowBest { best: vec![Self::NONE; search.groups.len()] };
        for i in 0..search.live.len() {
            rows.recompute(search, i);
        }
        rows
    }

    /// Row of the `i`-th live group, from the cached ΔCCC values.
    fn recompute(&mut self, search: &ModelSearch, i: usize) {
        let a = search.live[i];
        let mut best = Self::NONE;
        for &b in &search.live[i + 1..] {
            let d = search.delta[pair_index(a, b)];
            if d < best.0 {
                best = (d, b);
            }
        }
        self.best[a] = best;
    }

    /// The first live group in order holding the smallest negative row minimum.
    fn best_pair(&self, search: &ModelSearch) -> Option<(usize, usize)> {
        let mut best: Option<(f64, usize, usize)> = None;
        for &a in &search.live {
            let (d, b) = self.best[a];
            if d < best.map_or(0.0, |x| x.0) {
                best = Some((d, a, b));
            }
        }
        best.map(|(_, a, b)| (a, b))
    }

    /// After `b` merged into `a` and every pair touching `a` was rescored: row `a`
    /// is recomputed; an earlier row is recomputed when its partner was `a` or
    /// `b`, else it only compares its new pair with `a`.
    fn after_merge(&mut self, search: &ModelSearch, a: usize, b: usize) {
        self.best[b] = Self::NONE;
        for i in 0..search.live.len() {
            let x = search.live[i];
            if x > b || (x > a && self.best[x].1 != b) {
                continue;
            }
            if x == a || self.best[x].1 == a || self.best[x].1 == b {
                self.recompute(search, i);
            } else if x < a {
                let d = search.delta[pair_index(x, a)];
                if d < self.best[x].0 || (d == self.best[x].0 && a < self.best[x].1) {
                    self.best[x] = (d, a);
                }
            }
        }
    }
}
