//! The self-check: the device islands against the CPU reference [`crate::library::island`], generation by
//! generation and bit for bit, on configurations that cover the reference's corner cases.

use std::fmt;
use std::path::Path;

use anyhow::{Context, Result};

use super::{Design, DeviceIslands, GpuIslands, IslandState, run_on};
use crate::gpu::Gpu;
use crate::library::island::{Config, Island, Islands, PhaseTimes, Statistics, Threads, Variant};
use crate::library::knapsack::{Evaluator, Instance, PisingerKind, pisinger, pisinger_with_ratio};

/// Where the GPU first disagreed with the CPU reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Generations completed (0: the initial population).
    pub generation: u32,
    pub island: usize,
    /// The first array of the phase order that differs: `offspring` (genetic manipulation), `offspring fitness`
    /// (evaluation), `population` or `fitness` (replacement, migration).
    pub array: &'static str,
    /// The first differing individual of that array.
    pub individual: usize,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "after generation {}: island {} {} individual {}", self.generation, self.island, self.array, self.individual)
    }
}

/// One configuration checked by [`self_check`].
#[derive(Clone, Debug)]
pub struct CheckLine {
    pub design: Design,
    pub instance: String,
    pub items: usize,
    pub islands: usize,
    pub island_size: usize,
    /// Generations run; the states were compared after each and for the initial population.
    pub generations: u32,
    /// Migrations among them.
    pub migrations: u32,
    /// The first disagreement of parents, offspring or fitness values, if any.
    pub first_difference: Option<Difference>,
    /// Whether the final statistics agree (integers exactly, mean and deviation within 10⁻⁹ relative).
    pub statistics_agree: bool,
    /// Whether [`run`] gives the reference's trace and final statistics.
    ///
    /// [`run`]: super::run
    pub run_agrees: bool,
}

impl CheckLine {
    pub fn passed(&self) -> bool {
        self.first_difference.is_none() && self.statistics_agree && self.run_agrees
    }
}

/// The knapsack instance of a self-check case.
#[derive(Clone, Copy, Debug)]
pub(super) enum CheckInstance {
    /// A file under `<datasets>/knapsack/`.
    File(&'static str),
    /// A file with its capacity set to 0: every solution is penalised to fitness 0, so every comparison is a tie.
    NoCapacity(&'static str),
    /// Pisinger's strongly correlated instance of this many items, capacity about half the total weight.
    Pisinger(usize),
    /// Pisinger's uncorrelated instance of this many items with capacity 2% of the total weight: random solutions
    /// are far too heavy, so the variants' repair drops many items.
    Tight(usize),
    /// Pisinger's strongly correlated instance of this many items with weights up to 2²⁸: the prices and weights sum
    /// past 2³², so the fused kernel sums in 64 bits (the other instances take its 32-bit path).
    Wide(usize),
}

impl CheckInstance {
    pub(super) fn load(self, datasets: &Path) -> Result<Instance> {
        let file = |name: &str| {
            let path = datasets.join("knapsack").join(name);
            Instance::load(&path, datasets.parent()).with_context(|| format!("island self check instance {}", path.display()))
        };
        Ok(match self {
            CheckInstance::File(name) => file(name)?,
            CheckInstance::NoCapacity(name) => {
                let instance = file(name)?;
                Instance { name: format!("{}-capacity-0", instance.name), capacity: 0, ..instance }
            }
            CheckInstance::Pisinger(items) => pisinger(PisingerKind::StronglyCorrelated, items, 1000, 50, 100),
            CheckInstance::Tight(items) => pisinger_with_ratio(PisingerKind::Uncorrelated, items, 1000, 0.02, 7),
            CheckInstance::Wide(items) => pisinger(PisingerKind::StronglyCorrelated, items, 1 << 28, 50, 100),
        })
    }
}

/// One configuration of [`self_check`].
#[derive(Clone, Copy, Debug)]
pub(in crate::gpu) struct CheckCase {
    pub(super) instance: CheckInstance,
    pub(in crate::gpu) islands: usize,
    island_size: usize,
    generations: u32,
    migration_interval: u32,
    pub(super) crossover_p: f64,
    pub(super) mutation_p: f64,
    /// The paper's GA or a variant (repair on the GPU: `island_repair`).
    pub(super) variant: Variant,
}

/// Generations between the trace records of the [`run`] check.
///
/// [`run`]: super::run
const CHECK_TRACE_INTERVAL: u32 = 4;

/// The configurations of [`self_check`]; `small` ones (a few seconds under compute-sanitizer) come first. They cover
/// one and several islands, odd island sizes (`M > N/2`), probabilities 0 and 1 (thresholds 0 and 2³²), all-tie
/// fitness, an item count that is not a multiple of 32 over several 1,024-item chunks, and migration of more
/// immigrants than one [`MERGE_CHUNK`].
///
/// [`MERGE_CHUNK`]: super::MERGE_CHUNK
pub(in crate::gpu) fn check_cases(small: bool) -> Vec<CheckCase> {
    use CheckInstance::{File, NoCapacity, Pisinger, Tight, Wide};
    let case = |instance, islands, island_size, generations, migration_interval, crossover_p, mutation_p| CheckCase {
        instance,
        islands,
        island_size,
        generations,
        migration_interval,
        crossover_p,
        mutation_p,
        variant: Variant::Paper,
    };
    let (small_set, large) = ("jaros_knap_40.txt", "jaros_knap_10000.txt");
    let mut cases = vec![
        case(File(small_set), 1, 64, 6, 5, 0.7, 0.01),
        case(File(small_set), 3, 30, 8, 3, 1.0, 0.02),
        case(NoCapacity(small_set), 2, 16, 4, 2, 0.7, 0.05),
        case(File(small_set), 2, 16, 4, 2, 0.0, 1.0),
        case(File(small_set), 2, 16, 4, 2, 1.0, 0.0),
        case(Pisinger(2085), 3, 66, 6, 5, 0.7, 0.002),
        case(Wide(2085), 2, 64, 6, 5, 0.7, 0.002),
        case(File(large), 2, 64, 6, 5, 0.7, 0.001),
        case(File(small_set), 3, 3000, 4, 2, 0.7, 0.01),
        CheckCase { variant: Variant::Repair, ..case(Tight(2085), 2, 64, 6, 3, 0.7, 0.002) },
        CheckCase { variant: Variant::FeasibleInit, ..case(Tight(2085), 2, 64, 6, 3, 0.7, 0.002) },
    ];
    if !small {
        cases.extend([
            case(File(large), 3, 1024, 12, 5, 0.7, 0.001),
            case(File(large), 1, 2048, 12, 5, 0.7, 0.001),
            case(Pisinger(2085), 4, 256, 20, 5, 0.7, 0.005),
            case(File(small_set), 4, 1024, 30, 5, 0.7, 0.01),
        ]);
    }
    cases
}

/// The configuration of `case` for run `seed`.
pub(super) fn check_config(case: &CheckCase, seed: u64) -> Config {
    Config {
        islands: case.islands,
        island_size: case.island_size,
        generations: case.generations,
        migration_interval: case.migration_interval,
        migration_fraction: 0.1,
        crossover_p: case.crossover_p,
        mutation_p: case.mutation_p,
        seed,
        threads: Threads::Rayon,
        statistics_interval: CHECK_TRACE_INTERVAL,
        variant: case.variant,
    }
}

/// Index of the first `per`-element chunk where `a` and `b` differ.
fn first_unequal<T: PartialEq>(a: &[T], b: &[T], per: usize) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()) / per);
    }
    a.chunks(per).zip(b.chunks(per)).position(|(x, y)| x != y)
}

/// The first individual of one array where a reference island and the GPU's copy differ (`words` per chromosome).
type FirstUnequal = fn(&Island, &IslandState, usize) -> Option<usize>;

/// The first difference between the reference and the GPU's islands, in phase order (offspring, their fitness,
/// parents, their fitness), then by island.
pub(super) fn compare(cpu: &Islands, gpu: &[IslandState], generation: u32) -> Option<Difference> {
    if cpu.islands().len() != gpu.len() {
        return Some(Difference { generation, island: cpu.islands().len().min(gpu.len()), array: "islands", individual: 0 });
    }
    let words = cpu.islands().first().map_or(1, |island| island.parameters().layout.words);
    let arrays: [(&'static str, FirstUnequal); 4] = [
        ("offspring", |c, g, words| first_unequal(c.offspring(), &g.offspring, words)),
        ("offspring fitness", |c, g, _| first_unequal(c.offspring_fitness(), &g.offspring_fitness, 1)),
        ("population", |c, g, words| first_unequal(c.population(), &g.population, words)),
        ("fitness", |c, g, _| first_unequal(c.fitness(), &g.fitness, 1)),
    ];
    arrays.iter().find_map(|&(array, differs)| {
        cpu.islands()
            .iter()
            .zip(gpu)
            .enumerate()
            .find_map(|(island, (c, g))| differs(c, g, words).map(|individual| Difference { generation, island, array, individual }))
    })
}

/// Integer fields equal, mean and standard deviations within 10⁻⁹ relative.
pub(super) fn same_statistics(a: &Statistics, b: &Statistics) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs());
    let islands_agree = a.islands.len() == b.islands.len()
        && a.islands.iter().zip(&b.islands).all(|(x, y)| {
            (x.best, x.best_index, x.worst) == (y.best, y.best_index, y.worst) && close(x.mean, y.mean) && close(x.std_dev, y.std_dev)
        });
    islands_agree
        && (a.best, a.best_island, a.worst) == (b.best, b.best_island, b.worst)
        && close(a.mean, b.mean)
        && close(a.std_dev, b.std_dev)
        && a.best_solution == b.best_solution
        && a.best_chromosome == b.best_chromosome
}

/// Runs the reference [`Islands`] and [`GpuIslands`] of each [`Design`] side by side from the same seed on each
/// configuration of [`check_cases`] and compares parents, offspring and all fitness values bit for bit for the initial population and
/// after every generation, then the final statistics, then [`run`]'s trace and statistics against the reference's.
///
/// [`run`]: super::run
pub fn self_check(gpu: &Gpu, seed: u64, small: bool, datasets: &Path) -> Result<Vec<CheckLine>> {
    let build = |evaluator: &Evaluator<'_>, config: &Config, design| -> Result<Box<dyn DeviceIslands + '_>> {
        Ok(Box::new(GpuIslands::new(gpu, evaluator, config, design)?))
    };
    check_against_reference(check_cases(small), seed, datasets, &build)
}

/// The islands a check builds on the device(s) for a configuration and design.
pub(in crate::gpu) type BuildIslands<'g> = dyn Fn(&Evaluator<'_>, &Config, Design) -> Result<Box<dyn DeviceIslands + 'g>> + 'g;

/// [`self_check`] for the device islands that `build` makes, on `cases`.
pub(in crate::gpu) fn check_against_reference(
    cases: Vec<CheckCase>,
    seed: u64,
    datasets: &Path,
    build: &BuildIslands<'_>,
) -> Result<Vec<CheckLine>> {
    let mut lines = Vec::new();
    let cases = cases.into_iter().enumerate();
    for ((k, case), design) in cases.flat_map(|c| [(c, Design::Paper), (c, Design::Split), (c, Design::Fused)]) {
        let instance = case.instance.load(datasets)?;
        let evaluator = Evaluator::new(&instance);
        let config = check_config(&case, seed.wrapping_add(k as u64));
        let mut cpu = Islands::new(&evaluator, &config)?;
        let mut device = build(&evaluator, &config, design)?;
        let mut first_difference = compare(&cpu, &device.download()?, 0);
        let mut trace = vec![cpu.statistics(&evaluator)];
        for generation in 0..config.generations {
            cpu.generation(&evaluator, generation, &mut PhaseTimes::default());
            device.generation(generation)?;
            if first_difference.is_none() {
                first_difference = compare(&cpu, &device.download()?, generation + 1);
            }
            let done = generation + 1;
            if done == config.generations || done.is_multiple_of(CHECK_TRACE_INTERVAL) {
                trace.push(cpu.statistics(&evaluator));
            }
        }
        let reference = cpu.statistics(&evaluator);
        device.settle()?;
        let statistics_agree = same_statistics(&reference, &device.statistics(&evaluator)?);
        let result = run_on(build(&evaluator, &config, design)?.as_mut(), &evaluator, &config)?;
        let trace_agrees = result.trace.len() == trace.len()
            && result.trace.iter().zip(&trace).enumerate().all(|(i, (point, want))| {
                let generation = (i as u32 * CHECK_TRACE_INTERVAL).min(config.generations);
                point.generation == generation && point.best == want.best && (point.mean - want.mean).abs() <= 1e-9 * want.mean.abs()
            });
        lines.push(CheckLine {
            design,
            instance: match config.variant {
                Variant::Paper => instance.name.clone(),
                variant => format!("{} ({})", instance.name, variant.name()),
            },
            items: instance.item_count(),
            islands: config.islands,
            island_size: config.island_size,
            generations: config.generations,
            migrations: (0..config.generations).filter(|&g| config.migrates_after(g)).count() as u32,
            first_difference,
            statistics_agree,
            run_agrees: trace_agrees && same_statistics(&reference, &result.statistics),
        });
    }
    Ok(lines)
}
