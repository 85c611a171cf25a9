//! The island GA of Jaros (Sections V–VI) with one island per MPI process: every
//! rank evolves its island with the CPU reference (`library::island`), and the
//! unidirectional ring migration (Section V.E) sends each island's emigrants to the
//! next rank over MPI, as the paper's multi-GPU version does between GPUs.
//!
//! ```sh
//! cargo build --release --features mpi --bin evorepro-island-mpi
//! mpirun -np 4 target/release/evorepro-island-mpi --generations 1000 --check
//! ```
//!
//! Rank 0 gathers the islands and prints the global statistics; `--check` also runs
//! the same islands in one process (`Islands`) and fails unless every island's
//! population and fitness are bit-identical to the MPI ring's (the random numbers
//! are Philox counters keyed by island, so the ranks draw exactly what the
//! in-process islands draw).

use anyhow::{Context, Result, bail, ensure};
use clap::Parser;
use evorepro::library::island::{Config, Island, Islands, Migrants, Parameters, PhaseTimes, Statistics, Threads};
use evorepro::library::knapsack::{Evaluator, Fitness, Instance};
use mpi::point_to_point::{Destination, Source};
use mpi::request::scope;
use mpi::traits::{Communicator, Equivalence};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "Jaros's island GA with one island per MPI rank and ring migration over MPI")]
struct Args {
    /// Knapsack instance (Jaros's format).
    #[arg(long, default_value = "datasets/knapsack/jaros_knap_10000.txt")]
    instance: PathBuf,
    /// Individuals per island.
    #[arg(long, default_value_t = 256)]
    island_size: usize,
    /// Generations to evolve.
    #[arg(long, default_value_t = 500)]
    generations: u32,
    /// Generations between migrations (the paper: 100).
    #[arg(long, default_value_t = 100)]
    migration_interval: u32,
    #[arg(long, default_value_t = 20120601)]
    seed: u64,
    /// Also run the islands in one process and require identical populations.
    #[arg(long)]
    check: bool,
}

/// Sends `out` to `next` and receives as many elements from `prev` into `inbox`,
/// without deadlock however many ranks the ring has.
fn exchange<T: Equivalence>(next: &impl Destination, prev: &impl Source, out: &[T], inbox: &mut [T]) {
    scope(|scope| {
        let sent = next.immediate_send(scope, out);
        prev.receive_into(inbox);
        sent.wait();
    });
}

fn main() -> Result<()> {
    let args = Args::parse();
    let universe = mpi::initialize().context("MPI could not be initialised (run under mpirun)")?;
    let world = universe.world();
    let (rank, ranks) = (world.rank() as usize, world.size() as usize);
    // The path is named on the command line (by `reproduce island`, from a spec already
    // checked against its confinement): a regular file of bounded size, anywhere.
    let instance = Instance::load(&args.instance, None).with_context(|| format!("knapsack instance {}", args.instance.display()))?;
    let config = Config {
        migration_interval: args.migration_interval,
        threads: Threads::Single,
        ..Config::paper(ranks, args.island_size, args.generations, args.seed)
    };
    config.validate(&instance)?;
    let evaluator = Evaluator::new(&instance);
    let mut island = Island::new(&evaluator, Parameters::new(&instance, &config)?, rank as u32, Threads::Single);
    let next = world.process_at_rank(((rank + 1) % ranks) as i32);
    let prev = world.process_at_rank(((rank + ranks - 1) % ranks) as i32);
    let start = Instant::now();
    let mut migration = Duration::ZERO;
    for generation in 0..config.generations {
        island.generation(&evaluator, generation, Threads::Single);
        if config.migrates_after(generation) {
            let t = Instant::now();
            let out = island.select_emigrants(generation, config.emigrants());
            let mut inbox = Migrants { genomes: vec![0; out.genomes.len()], fitness: vec![0; out.fitness.len()] };
            exchange(&next, &prev, &out.genomes, &mut inbox.genomes);
            exchange(&next, &prev, &out.fitness, &mut inbox.fitness);
            island.merge_immigrants(generation, &inbox);
            migration += t.elapsed();
        }
    }
    let elapsed = start.elapsed();
    let root = world.process_at_rank(0);
    if rank != 0 {
        root.send(island.population());
        root.send(island.fitness());
        return Ok(());
    }
    let mut populations = vec![island.population().to_vec()];
    let mut fitness = vec![island.fitness().to_vec()];
    for r in 1..ranks {
        let from = world.process_at_rank(r as i32);
        populations.push(from.receive_vec::<u32>().0);
        fitness.push(from.receive_vec::<Fitness>().0);
    }
    let parts: Vec<&[Fitness]> = fitness.iter().map(Vec::as_slice).collect();
    let words = island.chromosome(0).len();
    let best = |i: usize, k: usize| Ok::<_, std::convert::Infallible>(populations[i][k * words..(k + 1) * words].to_vec());
    let Ok(statistics) = Statistics::of(&evaluator, &parts, best);
    println!(
        "{ranks} islands × {} individuals, {} generations, migration every {}: best {} (island {}), mean {:.1}, \
         feasible {}; rank 0: {:.3} s, of which migration {:.3} s",
        config.island_size,
        config.generations,
        config.migration_interval,
        statistics.best,
        statistics.best_island,
        statistics.mean,
        statistics.best_solution.feasible,
        elapsed.as_secs_f64(),
        migration.as_secs_f64()
    );
    if args.check {
        let mut islands = Islands::new(&evaluator, &config)?;
        let mut times = PhaseTimes::default();
        for generation in 0..config.generations {
            islands.generation(&evaluator, generation, &mut times);
        }
        ensure!(islands.islands().len() == ranks, "{} in-process islands for {ranks} ranks", islands.islands().len());
        for (i, local) in islands.islands().iter().enumerate() {
            if local.population() != populations[i].as_slice() || local.fitness() != fitness[i].as_slice() {
                bail!("island {i}: the MPI ring's population differs from the in-process ring's");
            }
        }
        println!("check: all {ranks} islands bit-identical to the in-process ring");
    }
    Ok(())
}
