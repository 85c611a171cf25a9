//! ECGA itself (Sections 3 and 5.2): the run loop of tournament selection, model
//! building, building-block-wise sampling and full replacement under either
//! [`Randomness`], and the model quality of Section 5.5.

use super::population::random_rows;
use super::{ModelTrace, Mpm, PairScorer, Population, Randomness, Search, XLogX, counter};
use crate::library::trap::Trap;
use anyhow::{Result, ensure};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::time::{Duration, Instant};

/// Parameters of one ECGA run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcgaConfig {
    /// Population size N.
    pub n: usize,
    /// Tournament size s (selection pressure; 8 in Section 5.2).
    pub tournament: usize,
    /// MAX_L, the largest group (10 in Section 5.2).
    pub max_l: usize,
    /// Guard on the number of generations; the paper runs until convergence.
    pub max_generations: usize,
    pub search: Search,
    /// Where the run's random numbers come from.
    pub randomness: Randomness,
}

impl EcgaConfig {
    /// The settings of Section 5.2 for a problem of `ell` loci: s = 8, MAX_L = 10,
    /// a guard of 4·ℓ generations, and [`Randomness::Paper`].
    pub fn paper(ell: usize, n: usize, search: Search) -> Self {
        EcgaConfig { n, tournament: 8, max_l: 10, max_generations: 4 * ell, search, randomness: Randomness::Paper }
    }
}

/// One generation's model and selection statistics (Figure 6).
#[derive(Clone, Debug, PartialEq)]
pub struct GenerationStats {
    /// Fraction of the trap's subproblems found exactly as an MPM group (Section 5.5).
    pub model_quality: f64,
    /// Ratio of ones in the selected population (Figure 6(b)).
    pub ones_ratio: f64,
    pub pairs_scored: u64,
    pub model_steps: usize,
    pub groups: usize,
    pub ccc: f64,
}

/// The outcome of one ECGA run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Generations run (selection, model building and sampling each).
    pub generations: usize,
    /// Fitness of the best individual of the final population (the first on ties).
    pub best_fitness: u32,
    /// Subproblems that best individual solves.
    pub best_solved: usize,
    /// Subproblems the consensus of the final population solves (per-locus majority,
    /// a tie going to 0).
    pub consensus_solved: usize,
    /// Whether every locus had converged (the paper's stopping rule) rather than the
    /// generation guard stopping the run.
    pub converged: bool,
    /// Time in model building: packing the selected population by locus, loading
    /// the scorer and the MPM search.
    pub model_building: Duration,
    pub total: Duration,
    pub history: Vec<GenerationStats>,
}

/// The population ECGA's first model is built from (steps 1–2 of [`run`] with
/// the same seed): N random individuals after tournament selection of size `s`.
pub fn first_selection(trap: &Trap, n: usize, s: usize, seed: u64) -> Result<Population> {
    ensure!(s >= 1 && s <= n, "tournament size {s} needs 1 ≤ s ≤ N = {n}");
    let ell = trap.ell();
    let mut rng = StdRng::seed_from_u64(seed);
    let rows = random_rows(n * ell, &mut rng);
    let fitness = evaluate(trap, &rows);
    Population::from_rows(n, ell, tournament_selection(&rows, &fitness, ell, s, &mut rng))
}

/// Runs ECGA on `trap` (Section 5.2 settings in `cfg`) with all randomness from
/// `seed`:
///
/// 1. a uniformly random initial population;
/// 2. tournament selection without replacement of size s: s rounds, each shuffling
///    the population and taking the fittest of each run of s consecutive
///    individuals (the first of them on ties), until N are selected — with
///    `s | N` exactly s rounds of N/s winners; otherwise the last `N mod s` of each
///    shuffle sit the round out and a further round fills the remainder;
/// 3. the MPM of the selected population by `cfg.search`;
/// 4. N offspring by building-block-wise shuffling: for each MPM group in order,
///    a fresh permutation of the selected individuals, child `j` taking that
///    group's alleles from selected individual `perm[j]` — sampling each group's
///    schemata from its marginal frequencies without replacement, the sampling of
///    the C++ ECGA v1.1 of Lobo et al.;
/// 5. full replacement, until every locus has converged or `cfg.max_generations`.
///
/// With [`Randomness::Counter`] the same steps draw their numbers from
/// [`counter`] instead: the initial population from [`counter::initial_word`];
/// selection round r of generation g (0-based) shuffles by
/// [`counter::permutation`] of [`counter::STREAM_SELECTION`] with round r; MPM
/// group k of generation g by the permutation of [`counter::STREAM_SAMPLING`]
/// with round k.
pub fn run(trap: &Trap, cfg: &EcgaConfig, seed: u64, scorer: &mut dyn PairScorer) -> Result<RunResult> {
    run_observed(trap, cfg, seed, scorer, &mut |_, _| {})
}

/// [`run`], showing `observe` each generation's selected population and the
/// model built from it (what the device run is compared with).
pub fn run_observed(
    trap: &Trap,
    cfg: &EcgaConfig,
    seed: u64,
    scorer: &mut dyn PairScorer,
    observe: &mut dyn FnMut(&Population, &ModelTrace),
) -> Result<RunResult> {
    let start = Instant::now();
    let (n, ell) = (cfg.n, trap.ell());
    ensure!(cfg.tournament >= 1 && cfg.tournament <= n, "tournament size {} needs 1 ≤ s ≤ N = {n}", cfg.tournament);
    ensure!(n > 0 && ell > 0, "empty problem or population");
    ensure!(
        cfg.randomness == Randomness::Paper || (n < 1 << 32 && ell < 1 << 32 && cfg.max_generations < 1 << 32),
        "counter-based randomness takes N, ℓ and the generation guard below 2^32 (N = {n}, ℓ = {ell})"
    );
    let xlogx = XLogX::new(n);
    let mut draws = match cfg.randomness {
        Randomness::Paper => Draws::Paper(Box::new(StdRng::seed_from_u64(seed))),
        Randomness::Counter => Draws::Counter(seed),
    };
    let mut rows = draws.initial(n, ell);
    let mut fitness = evaluate(trap, &rows);
    let mut history = Vec::new();
    let mut model_building = Duration::ZERO;
    let converged = loop {
        if rows.chunks_exact(ell).all(|row| row == &rows[..ell]) {
            break true;
        }
        if history.len() == cfg.max_generations {
            break false;
        }
        let generation = history.len() as u32;
        let selected_rows = draws.select(generation, &rows, &fitness, ell, cfg.tournament);
        let building = Instant::now();
        let selected = Population::from_rows(n, ell, selected_rows)?;
        let trace = cfg.search.build(&selected, scorer, cfg.max_l, &xlogx)?;
        model_building += building.elapsed();
        let ones = selected.rows.iter().map(|&a| a as usize).sum::<usize>();
        history.push(GenerationStats {
            model_quality: model_quality(trap, &trace.mpm),
            ones_ratio: ones as f64 / (n * ell) as f64,
            pairs_scored: trace.pairs_scored,
            model_steps: trace.steps,
            groups: trace.mpm.groups.len(),
            ccc: trace.ccc,
        });
        observe(&selected, &trace);
        rows = draws.sample(generation, &selected, &trace.mpm);
        fitness = evaluate(trap, &rows);
    };
    let best = (0..n).fold(0, |best, i| if fitness[i] > fitness[best] { i } else { best });
    let best_row = &rows[best * ell..][..ell];
    let mut ones = vec![0usize; ell];
    for row in rows.chunks_exact(ell) {
        ones.iter_mut().zip(row).for_each(|(c, &a)| *c += usize::from(a));
    }
    let consensus: Vec<u8> = ones.iter().map(|&c| u8::from(2 * c > n)).collect();
    Ok(RunResult {
        generations: history.len(),
        best_fitness: fitness[best],
        best_solved: trap.solved(best_row),
        consensus_solved: trap.solved(&consensus),
        converged,
        model_building,
        total: start.elapsed(),
        history,
    })
}

/// The random steps of [`run`] under either [`Randomness`].
pub(super) enum Draws {
    Paper(Box<StdRng>),
    /// The seed.
    Counter(u64),
}

impl Draws {
    /// Step 1: N·ℓ random alleles, row-major.
    pub(super) fn initial(&mut self, n: usize, ell: usize) -> Vec<u8> {
        match self {
            Draws::Paper(rng) => random_rows(n * ell, rng),
            Draws::Counter(seed) => {
                let words: Vec<u64> = (0..ell)
                    .flat_map(|l| (0..n.div_ceil(64)).map(move |w| (l, w)))
                    .map(|(l, w)| counter::initial_word(*seed, l, w))
                    .collect();
                let wpl = n.div_ceil(64);
                (0..n).flat_map(|i| (0..ell).map(move |l| (i, l))).map(|(i, l)| (words[l * wpl + i / 64] >> (i % 64)) as u8 & 1).collect()
            }
        }
    }

    /// Step 2 for generation `generation` (0-based).
    pub(super) fn select(&mut self, generation: u32, rows: &[u8], fitness: &[u32], ell: usize, s: usize) -> Vec<u8> {
        match self {
            Draws::Paper(rng) => tournament_selection(rows, fitness, ell, s, rng),
            Draws::Counter(seed) => {
                let n = fitness.len();
                let q = n / s;
                let rounds: Vec<Vec<u32>> = (0..counter::selection_rounds(n, s))
                    .map(|r| counter::permutation(n, *seed, generation, counter::STREAM_SELECTION, r as u32))
                    .collect();
                let mut selected = Vec::with_capacity(n * ell);
                for j in 0..n {
                    let tournament = &rounds[j / q][(j % q) * s..][..s];
                    let winner =
                        tournament[1..].iter().fold(tournament[0], |w, &c| if fitness[c as usize] > fitness[w as usize] { c } else { w });
                    selected.extend_from_slice(&rows[winner as usize * ell..][..ell]);
                }
                selected
            }
        }
    }

    /// Step 4 for generation `generation`.
    fn sample(&mut self, generation: u32, selected: &Population, mpm: &Mpm) -> Vec<u8> {
        match self {
            Draws::Paper(rng) => sample_mpm(selected, mpm, |order| order.shuffle(rng)),
            Draws::Counter(seed) => {
                let mut k = 0u32;
                sample_mpm(selected, mpm, |order| {
                    let perm = counter::permutation(order.len(), *seed, generation, counter::STREAM_SAMPLING, k);
                    order.iter_mut().zip(perm).for_each(|(o, p)| *o = p as usize);
                    k += 1;
                })
            }
        }
    }
}

/// FNV-1a over the words of a population packed by locus: what the device
/// run's check compares generation by generation.
pub fn population_hash(words: &[u64]) -> u64 {
    words.iter().flat_map(|w| w.to_le_bytes()).fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn evaluate(trap: &Trap, rows: &[u8]) -> Vec<u32> {
    rows.chunks_exact(trap.ell()).map(|row| trap.fitness(row)).collect()
}

/// Step 2 of [`run`].
pub(super) fn tournament_selection(rows: &[u8], fitness: &[u32], ell: usize, s: usize, rng: &mut StdRng) -> Vec<u8> {
    let n = fitness.len();
    let mut order: Vec<usize> = (0..n).collect();
    let mut selected = Vec::with_capacity(n * ell);
    while selected.len() < n * ell {
        order.shuffle(rng);
        for tournament in order.chunks_exact(s) {
            let winner = tournament[1..].iter().fold(tournament[0], |w, &c| if fitness[c] > fitness[w] { c } else { w });
            selected.extend_from_slice(&rows[winner * ell..][..ell]);
            if selected.len() == n * ell {
                break;
            }
        }
    }
    selected
}

/// Step 4 of [`run`]: `shuffle` orders the parents of each group in turn (it
/// is handed the previous group's order).
pub(super) fn sample_mpm(selected: &Population, mpm: &Mpm, mut shuffle: impl FnMut(&mut [usize])) -> Vec<u8> {
    let ell = selected.ell;
    let mut offspring = vec![0u8; selected.n * ell];
    let mut order: Vec<usize> = (0..selected.n).collect();
    for group in &mpm.groups {
        shuffle(&mut order);
        for (child, &parent) in offspring.chunks_exact_mut(ell).zip(&order) {
            let parent = selected.row(parent);
            for &l in group {
                child[l] = parent[l];
            }
        }
    }
    offspring
}

/// Section 5.5: the fraction of subproblems that appear exactly as an MPM group.
pub fn model_quality(trap: &Trap, mpm: &Mpm) -> f64 {
    let exact = mpm.groups.iter().filter(|g| g.len() == trap.k && g.iter().all(|&l| trap.block_of(l) == trap.block_of(g[0]))).count();
    exact as f64 / trap.m as f64
}
