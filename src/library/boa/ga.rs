//! BOA itself (Sections III and V): the run loop of truncation selection, network
//! construction, ancestral sampling and replacement of the worst, under either
//! [`Randomness`].

#[cfg(doc)]
use super::Network;
use super::{
    CounterRng, FamilyScorer, LnFactorial, Randomness, build_pboa, build_sboa, conditional_counts, conditional_probabilities,
    random_permutation, sample, sample_counter,
};
use crate::library::ecga::Population;
use crate::library::trap::Trap;
use anyhow::{Result, ensure};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::cmp::Reverse;
use std::time::{Duration, Instant};

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
