//! The extended compact genetic algorithm (ECGA) of Shao & Yu, "Speeding Up Model
//! Building for ECGA on CUDA Platform" (GECCO 2013): the CPU reference that the
//! gECGA kernels are checked against.
//!
//! - [`Population`]: the selected population, row-major bytes (what the baseline of
//!   Lobo et al. scans) and bit-packed by locus (Section 4.1, what FastCount reads).
//! - [`SchemaCounter`]: counting the schemata of a group of loci — [`BaselineCounter`],
//!   [`FastCount`] (Section 4.1, AND/NOT of locus words + unity table) and
//!   [`PrefixFastCount`] (FastCount sharing AND prefixes between schemata);
//!   [`FastCountKept`] with [`GroupLeaves`]: a group's FastCount tree kept for counting
//!   its merges (beyond the paper).
//! - [`XLogX`] and [`group_cost`]: the combined complexity criterion, equation (1)
//!   of Section 3.1, in one fixed order of floating-point operations.
//! - [`PairScorer`]: the hot spot a GPU replaces (Section 4.2): the entropy term of
//!   every candidate merge.
//! - [`greedy_search`] (Algorithm 1 with the pair cache of Lobo et al.) and
//!   [`greedy_mating_search`] (Section 4.3, GM search), generic over the scorer.
//! - [`run`]: ECGA with the settings of Section 5.2; [`bisection`]: the population
//!   sizing behind Table 5.

mod ccc;
pub mod counter;
mod counting;
mod ga;
mod population;
mod scoring;
mod search;
mod sizing;
#[cfg(test)]
mod tests;

pub use ccc::{XLogX, group_cost};
pub use counting::{BaselineCounter, FastCount, FastCountKept, GroupLeaves, Popcount, PrefixFastCount, SchemaCounter};
pub use ga::{EcgaConfig, GenerationStats, RunResult, first_selection, model_quality, population_hash, run, run_observed};
pub use population::{LocusPacked, Population};
pub use scoring::{CpuScorer, DeviceStats, PairScorer, ParallelCpuScorer};
pub use search::{ModelTrace, Mpm, Search, greedy_mating_search, greedy_search};
pub use sizing::{BisectionCriteria, BisectionResult, Trial, bisection, bisection_with, bisections};

/// The random numbers of an ECGA run: [`Randomness::Counter`] draws one per (generation, stream, individual, round)
/// ([`counter`]), so the whole run on the device (`gpu::ecga_run`) evolves the same populations bit for bit.
pub use super::philox::Randomness;
