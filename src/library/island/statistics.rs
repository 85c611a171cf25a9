//! Fitness statistics per island and over all islands (Section V.F), phase times and feasibility counts.

use std::time::Duration;

use rayon::prelude::*;

use crate::library::knapsack::{Evaluation, Evaluator, Fitness};

/// Fitness statistics of one island (Section V.F).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IslandStatistics {
    /// Highest fitness.
    pub best: Fitness,
    /// Lowest index holding the highest fitness.
    pub best_index: usize,
    /// Lowest fitness.
    pub worst: Fitness,
    /// Mean fitness.
    pub mean: f64,
    /// Population standard deviation of the fitness.
    pub std_dev: f64,
}

/// Global statistics over all islands (Section V.F).
#[derive(Clone, Debug, PartialEq)]
pub struct Statistics {
    /// Per-island statistics.
    pub islands: Vec<IslandStatistics>,
    /// Highest fitness of all.
    pub best: Fitness,
    /// Lowest island index holding it.
    pub best_island: usize,
    /// Lowest fitness of all.
    pub worst: Fitness,
    /// Mean over all individuals.
    pub mean: f64,
    /// Standard deviation over all individuals.
    pub std_dev: f64,
    /// Price, weight, fitness and feasibility of the best individual.
    pub best_solution: Evaluation,
    /// The best individual, packed.
    pub best_chromosome: Vec<u32>,
}

/// Wall time spent in each phase, summed over generations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Selection, crossover and mutation.
    pub genetic_manipulation: Duration,
    /// Offspring fitness.
    pub evaluation: Duration,
    /// Parent replacement.
    pub replacement: Duration,
    /// Emigrant selection and immigrant merging.
    pub migration: Duration,
    /// Statistics collection.
    pub statistics: Duration,
    /// GPU runs: the generation loop's wall time (each span ended by a synchronisation) less the phases above, timed
    /// by CUDA events — the device waiting for the host's launches, and the gaps around the events — so that the
    /// total is the loop's wall time. Zero on the CPU, whose phases are timed back to back on the host.
    pub outside_phases: Duration,
}

impl PhaseTimes {
    /// Sum of all phases and of the time outside them: the run's time.
    pub fn total(&self) -> Duration {
        self.genetic_manipulation + self.evaluation + self.replacement + self.migration + self.statistics + self.outside_phases
    }
}

/// Feasible individuals (weight within the capacity) of every island at one moment. Computed by the run loops
/// outside the timed statistics (it evaluates every parent again), so the phase times do not include it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Feasibility {
    /// Feasible parents of each island, in ring order.
    pub per_island: Vec<usize>,
    /// Individuals per island.
    pub island_size: usize,
}

impl Feasibility {
    /// Counts the feasible chromosomes of each island's packed parents (`island_size × words` each).
    pub fn of<'a>(evaluator: &Evaluator<'_>, words: usize, populations: impl IntoIterator<Item = &'a [u32]>) -> Feasibility {
        let mut island_size = 0;
        let per_island = populations
            .into_iter()
            .map(|population| {
                island_size = population.len() / words;
                population.par_chunks(words).filter(|c| evaluator.evaluate(c).feasible).count()
            })
            .collect();
        Feasibility { per_island, island_size }
    }

    /// Feasible individuals over all islands.
    pub fn individuals(&self) -> usize {
        self.per_island.iter().sum()
    }

    /// Fraction of all individuals that are feasible.
    pub fn individual_fraction(&self) -> f64 {
        self.individuals() as f64 / (self.per_island.len() * self.island_size).max(1) as f64
    }

    /// Fraction of islands holding at least one feasible individual.
    pub fn island_fraction(&self) -> f64 {
        self.per_island.iter().filter(|&&k| k > 0).count() as f64 / self.per_island.len().max(1) as f64
    }
}

impl IslandStatistics {
    /// Best (lowest index of the highest fitness), worst, mean and standard deviation of one island's fitness.
    pub fn of(fitness: &[Fitness]) -> IslandStatistics {
        let best = fitness.iter().copied().max().unwrap_or(0);
        let best_index = fitness.iter().position(|&f| f == best).unwrap_or(0);
        let (mean, std_dev) = mean_and_std(&[fitness]);
        IslandStatistics { best, best_index, worst: fitness.iter().copied().min().unwrap_or(0), mean, std_dev }
    }
}

impl Statistics {
    /// The global statistics (Section V.F) of islands with fitness `parts` (one slice per island, in ring order);
    /// `chromosome(island, individual)` fetches the best individual's genes. Every backend builds its statistics
    /// here, so they are bit-identical for identical populations.
    pub fn of<E>(
        evaluator: &Evaluator<'_>,
        parts: &[&[Fitness]],
        chromosome: impl FnOnce(usize, usize) -> Result<Vec<u32>, E>,
    ) -> Result<Statistics, E> {
        let islands: Vec<IslandStatistics> = parts.iter().map(|p| IslandStatistics::of(p)).collect();
        let best = islands.iter().map(|s| s.best).max().unwrap_or(0);
        let best_island = islands.iter().position(|s| s.best == best).unwrap_or(0);
        let (mean, std_dev) = mean_and_std(parts);
        let best_chromosome = chromosome(best_island, islands[best_island].best_index)?;
        Ok(Statistics {
            worst: islands.iter().map(|s| s.worst).min().unwrap_or(0),
            best_solution: evaluator.evaluate(&best_chromosome),
            islands,
            best,
            best_island,
            mean,
            std_dev,
            best_chromosome,
        })
    }
}

/// Mean and population standard deviation of the concatenated fitness slices (two passes, in order).
fn mean_and_std(parts: &[&[Fitness]]) -> (f64, f64) {
    let count: usize = parts.iter().map(|p| p.len()).sum();
    let sum: u128 = parts.iter().flat_map(|p| p.iter()).map(|&f| u128::from(f)).sum();
    let mean = sum as f64 / count as f64;
    let squares: f64 = parts.iter().flat_map(|p| p.iter()).map(|&f| (f as f64 - mean).powi(2)).sum();
    (mean, (squares / count as f64).sqrt())
}
