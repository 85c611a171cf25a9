//! The islands of a run in a unidirectional ring, with the run loop and its trace (Sections V–VI).

use std::time::{Duration, Instant};

use anyhow::Result;
use rayon::prelude::*;

use super::{Config, Feasibility, Island, Layout, Migrants, Parameters, PhaseTimes, Statistics, Threads};
use crate::library::knapsack::{Evaluator, Fitness, Instance};

/// One record of the best-fitness trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TracePoint {
    /// Generations completed (0: the initial population).
    pub generation: u32,
    /// Global best fitness.
    pub best: Fitness,
    /// Global mean fitness.
    pub mean: f64,
    /// Feasible individuals over all islands.
    pub feasible: usize,
}

/// Outcome of [`run`].
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Statistics of the final populations.
    pub statistics: Statistics,
    /// Time per phase over all generations (building the initial population excluded; `statistics` includes the
    /// generation-0 record).
    pub times: PhaseTimes,
    /// Best and mean fitness at generation 0, every `statistics_interval` generations and at the end.
    pub trace: Vec<TracePoint>,
    /// Feasible individuals of the final populations.
    pub feasibility: Feasibility,
}

impl RunResult {
    /// The first trace point (generation 0, every `statistics_interval` generations, the end) at which some
    /// individual was feasible: the first feasible solution appeared at or before it, after the previous point.
    pub fn first_feasible(&self) -> Option<u32> {
        self.trace.iter().find(|t| t.feasible > 0).map(|t| t.generation)
    }
}

/// All islands of a run, connected in a unidirectional ring.
#[derive(Clone, Debug)]
pub struct Islands {
    config: Config,
    islands: Vec<Island>,
}

impl Islands {
    /// The initial islands of `config` on `evaluator`'s instance.
    pub fn new(evaluator: &Evaluator<'_>, config: &Config) -> Result<Islands> {
        let parameters = Parameters::new(evaluator.instance(), config)?;
        let build = |i: usize| Island::new(evaluator, parameters, i as u32, config.threads);
        let islands = match config.threads {
            Threads::Single => (0..config.islands).map(build).collect(),
            Threads::Rayon => (0..config.islands).into_par_iter().map(build).collect(),
        };
        Ok(Islands { config: *config, islands })
    }

    /// The islands, in ring order.
    pub fn islands(&self) -> &[Island] {
        &self.islands
    }

    /// The run's configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Applies `phase` to every island (in parallel under [`Threads::Rayon`]) and adds its wall time to `time`.
    fn phase(&mut self, time: &mut Duration, phase: impl Fn(&mut Island) + Send + Sync) {
        let start = Instant::now();
        match self.config.threads {
            Threads::Single => self.islands.iter_mut().for_each(phase),
            Threads::Rayon => self.islands.par_iter_mut().for_each(phase),
        }
        *time += start.elapsed();
    }

    /// Generation `generation` on every island, then migration when due; phase times are added to `times`.
    pub fn generation(&mut self, evaluator: &Evaluator<'_>, generation: u32, times: &mut PhaseTimes) {
        let threads = self.config.threads;
        self.phase(&mut times.genetic_manipulation, |island| island.genetic_manipulation(generation, threads));
        self.phase(&mut times.evaluation, |island| island.evaluate(evaluator, threads));
        self.phase(&mut times.replacement, |island| island.replace(generation, threads));
        if self.config.migrates_after(generation) {
            let start = Instant::now();
            self.migrate(generation);
            times.migration += start.elapsed();
        }
    }

    /// Ring migration after generation `generation`: every island selects its emigrants, then island `i` merges
    /// those of island `i − 1 (mod I)`.
    pub fn migrate(&mut self, generation: u32) {
        let (count, islands) = (self.config.emigrants(), self.islands.len());
        let emigrants: Vec<Migrants> = match self.config.threads {
            Threads::Single => self.islands.iter().map(|island| island.select_emigrants(generation, count)).collect(),
            Threads::Rayon => self.islands.par_iter().map(|island| island.select_emigrants(generation, count)).collect(),
        };
        let merge = |(i, island): (usize, &mut Island)| island.merge_immigrants(generation, &emigrants[(i + islands - 1) % islands]);
        match self.config.threads {
            Threads::Single => self.islands.iter_mut().enumerate().for_each(merge),
            Threads::Rayon => self.islands.par_iter_mut().enumerate().for_each(merge),
        }
    }

    /// Feasible parents of every island.
    pub fn feasibility(&self, evaluator: &Evaluator<'_>) -> Feasibility {
        let words = Layout::new(evaluator.instance().item_count()).words;
        Feasibility::of(evaluator, words, self.islands.iter().map(Island::population))
    }

    /// Per-island and global statistics, with the best solution (Section V.F).
    pub fn statistics(&self, evaluator: &Evaluator<'_>) -> Statistics {
        let parts: Vec<&[Fitness]> = self.islands.iter().map(|island| island.fitness()).collect();
        let best = |i: usize, k: usize| Ok::<_, std::convert::Infallible>(self.islands[i].chromosome(k).to_vec());
        match Statistics::of(evaluator, &parts, best) {
            Ok(s) => s,
            Err(never) => match never {},
        }
    }
}

/// Evolves `config.islands` islands on `instance` (Sections V–VI) and reports statistics, phase times and a trace.
pub fn run(instance: &Instance, config: &Config) -> Result<RunResult> {
    let evaluator = Evaluator::new(instance);
    let mut islands = Islands::new(&evaluator, config)?;
    let mut times = PhaseTimes::default();
    let mut trace = Vec::new();
    let mut feasibility = Feasibility::default();
    let mut record = |islands: &Islands, generation: u32, times: &mut PhaseTimes| {
        let start = Instant::now();
        let statistics = islands.statistics(&evaluator);
        times.statistics += start.elapsed();
        feasibility = islands.feasibility(&evaluator);
        trace.push(TracePoint { generation, best: statistics.best, mean: statistics.mean, feasible: feasibility.individuals() });
        statistics
    };
    let mut statistics = record(&islands, 0, &mut times);
    for generation in 0..config.generations {
        islands.generation(&evaluator, generation, &mut times);
        let done = generation + 1;
        if done == config.generations || (config.statistics_interval > 0 && done.is_multiple_of(config.statistics_interval)) {
            statistics = record(&islands, done, &mut times);
        }
    }
    Ok(RunResult { statistics, times, trace, feasibility })
}
