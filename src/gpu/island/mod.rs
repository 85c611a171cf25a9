//! The island GA of Jaros 2012 on one GPU (Section V), every phase a kernel of `kernels/island.cu`, checked against
//! the CPU reference [`crate::library::island`]. [`GpuIslands`] evolves exactly as [`Islands`] does, bit for bit:
//! the kernels draw the same Philox numbers at the same counters and follow the same tie, migration-order and padding
//! rules (the reference's module documentation is the specification).
//!
//! # Kernels (Section V)
//! Each phase is its own launch (the paper's global synchronisation between phases), and all islands of the GPU go
//! into the same launches: warp `k` of the grid takes work item `k`, island-major. Blocks are 256 threads, eight
//! warps, as the paper's 32 × 8 blocks (Section V.B).
//! - `island_initialise`: one warp per individual (`I·N` warps), the initial genes.
//! - `island_genetic_manipulation` (V.B): one warp per offspring pair (`I·M/2`): binary tournaments drawn by every
//!   lane alike, uniform crossover (eq. 1) and bit-flip mutation (eq. 2), lane `l` building words `l, l + 32, …` of
//!   both children.
//! - `island_evaluate` (V.C): one warp per chromosome (`I·M` offspring; `I·N` parents at the start), 1,024 items per
//!   round, 64-bit sums reduced by shuffles, the penalty applied by lane 0.
//!
//! These two are the paper's mapping ([`Design::Paper`]); [`Design::Split`] gives one pair as many warps as its
//! chromosome has 32-word chunks (each lane one word) and one chromosome up to eight warps (`island_evaluate_split`,
//! their sums added in shared memory), so that a small island still fills the GPU. Both draw the same numbers: the populations are
//! identical.
//! - `island_replace` (V.D): one warp per parent slot (`I·N`).
//! - `island_select_emigrants` (V.E.1): one warp per emigrant (`I·m`), emigrant 0 the island's best.
//! - `island_merge_immigrants` (V.E.3): one block per receiving island (`I`), taking its immigrants in the
//!   reference's order — the deterministic equivalent of the paper's per-individual locks — [`MERGE_CHUNK`] at a
//!   time: the block draws the chunk's tournaments, one thread decides them in order on the fitness values, and the
//!   warps copy the genomes that stay (a chunk's later immigrant may displace an earlier one from its slot).
//!
//! With every island on one GPU the ring of Section V.E is a device buffer: emigrants are not staged through the
//! host. Statistics (V.F) are computed on the host from the downloaded fitness values and the best chromosome, with
//! the reference's formulas in the reference's order, so they agree exactly.
//!
//! # Timing
//! CUDA events before genetic manipulation and after each phase of every generation give the phase times; they are
//! read every [`CLOCK_WINDOW`] generations, so the host keeps launching ahead of the GPU in between. Statistics are
//! timed on the host, after waiting for the generations already launched.
//!
//! [`Islands`]: crate::library::island::Islands

mod clock;
mod cost;
mod device;
mod run;
mod selfcheck;
#[cfg(test)]
mod tests;

pub use clock::CLOCK_WINDOW;
pub use cost::{PHILOX_OPERATIONS, bytes_per_generation, device_bytes, manipulation_philox_calls, operations_per_generation, philox_rate};
pub use device::{Emigrants, GpuIslands, IslandState};
pub(super) use run::run_on;
pub use run::{DeviceIslands, run};
pub(super) use selfcheck::{BuildIslands, check_against_reference, check_cases};
pub use selfcheck::{CheckLine, Difference, self_check};

use anyhow::{Result, ensure};
use cudarc::driver::LaunchConfig;

use super::KernelSource;

/// `kernels/island.cu`.
pub const ISLAND_CU: KernelSource = KernelSource { file: "island.cu", code: include_str!("../../../kernels/island.cu") };

/// Warps per block (the paper's blocks of 32 × 8 threads, Section V.B).
pub const WARPS_PER_BLOCK: u32 = 8;
/// Threads per warp.
const WARP: u32 = 32;
/// Philox calls per chromosome word and offspring pair for the mutation masks (`MUTATION_CALLS` there).
pub const MUTATION_CALLS: u32 = 16;
/// How genetic manipulation and evaluation map work to warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// A warp per offspring pair and per chromosome (Section V.B–C).
    Paper,
    /// Warps per pair and per chromosome as its 32-word chunks (up to 8 per chromosome).
    Split,
    /// Split, with each pair's children evaluated by the block that builds them (`island_manipulate_evaluate`, up to
    /// [`FUSED_WARPS`] warps per pair): no evaluation launch. Beyond the paper (issue #25). Each generation's
    /// replacement is left pending and settled by the next generation's launch (issue #39): no replacement launch
    /// but before a migration or a read of the parents. A variant that repairs the offspring repairs them between the
    /// two phases, so it runs as [`Design::Split`].
    Fused,
}

impl Design {
    /// Warps per offspring pair of genetic manipulation and per chromosome of evaluation (a divisor of
    /// [`EVALUATE_WARPS`]) for chromosomes of `words` words.
    fn warps(self, words: u32) -> (u32, u32) {
        match self {
            Design::Paper => (1, 1),
            Design::Split | Design::Fused => {
                let chunks = (words / WARP).max(1);
                let per_chromosome = (1..=EVALUATE_WARPS.min(chunks)).rev().find(|&w| EVALUATE_WARPS.is_multiple_of(w)).unwrap_or(1);
                (if self == Design::Fused { chunks.min(FUSED_WARPS) } else { chunks }, per_chromosome)
            }
        }
    }
}

/// Most warps of a block of `island_manipulate_evaluate` (`FUSED_WARPS` there): one block per offspring pair.
pub const FUSED_WARPS: u32 = 32;
/// Warps of a block of `island_evaluate_split` (`EVALUATE_WARPS` there).
pub const EVALUATE_WARPS: u32 = 8;
/// Immigrants decided per round of `island_merge_immigrants`, one per thread of its block (`MERGE_CHUNK` there).
pub const MERGE_CHUNK: u32 = 256;

/// One warp per work item: `warps` warps in blocks of [`WARPS_PER_BLOCK`] warps.
pub fn warp_launch(warps: u64) -> Result<LaunchConfig> {
    let blocks = warps.div_ceil(u64::from(WARPS_PER_BLOCK));
    ensure!((1..=i32::MAX as u64).contains(&blocks), "{warps} warps do not fit one launch grid");
    Ok(LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (WARPS_PER_BLOCK * WARP, 1, 1), shared_mem_bytes: 0 })
}
