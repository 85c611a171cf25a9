//! gBOA (Munawar et al. 2009, Section IV) on the GPU, two ways:
//!
//! - the whole pBOA network in one launch (`kernels/boa.cu`, the paper's
//!   decomposition of Section IV-A: one thread block per node finds its candidate
//!   parents, counts their configurations, reduces the gains to the best edge and
//!   repeats until no gain or k parents) — what [`build_pboa`] uses, through
//!   [`FamilyScorer::pboa_network`], in one of two [`Design`]s: this harness's
//!   (`gboa`: the population bit-packed by locus, groups of 8 lanes score one
//!   candidate family each by popcounts, see [`Shape`]) or the paper's
//!   (`gboa-paper`: 480 threads a block split the population, a byte per allele,
//!   and count the patterns in shared memory, Section IV-A and V);
//! - batches of candidate families scored with gECGA's schema kernel
//!   (`kernels/ecga.cu`, one block per family), which sums a table over the
//!   schemata of a group of loci: once over `[node, parents…]` with ln c! and once
//!   over `[parents…]` with ln (c + 1)! — [`FamilyScorer::score`], used by
//!   [`self_check`] to compare single scores.
//!
//! [`crate::library::boa::family_score`] computes K2 as exactly those two sums in
//! the same order, so given the same population and permutation gBOA chooses the
//! same parents as CPU pBOA, bit for bit.

mod check;
mod device_run;
mod network;
#[cfg(test)]
mod tests;

pub use check::{
    CheckLine, RunCheckLine, run_check, run_check_sizes, self_check, self_check_sizes, shape_choices, time_designs, time_device_run,
};
pub use device_run::{DeviceRun, check_device_run_fits, device_run_bytes, run_on_device};
pub use network::{Design, GpuFamilyScorer, Shape, locus_major};

use super::KernelSource;
#[cfg(doc)]
use crate::library::boa::{FamilyScorer, build_pboa};

/// `kernels/boa.cu`.
pub const BOA_CU: KernelSource = KernelSource { file: "boa.cu", code: include_str!("../../../kernels/boa.cu") };
/// Most parents per node of the network kernel (its `BOA_MAX_K`).
const MAX_K: usize = 4;
/// Ints per node of the network kernel's output (its `BOA_OUT`).
const OUT: usize = MAX_K + 6;
/// Most warps per block of the network kernel (its `BOA_MAX_WARPS`).
const MAX_WARPS: u32 = 32;
/// Lanes per candidate family of the network kernel's entry points
/// (`boa_pboa_network_g8`, `boa_pboa_network_g32`).
pub const GROUPS: [u32; 2] = [8, 32];
/// The block shape the network kernel runs with: warps per block and lanes per
/// candidate family (see `docs/gpu-notes.md` for the measurement that chose it).
pub const SHAPE: Shape = Shape { warps: 16, group: 8 };
/// Most nodes of the network kernel: its candidate list is `ell` ints of dynamic
/// shared memory (at most 48 KiB without opting in).
const MAX_ELL: usize = 48 * 1024 / 4;
/// Threads per block of the paper's network kernel (its `BOA_PAPER_THREADS`;
/// Section V: "Number of threads/block is kept constant at 480").
pub const PAPER_THREADS: u32 = 480;
/// Most nodes of the paper's network kernel: its List_DS (`ell` ints of dynamic
/// shared memory) beside 26 KiB of static shared memory (Count_DS, Gain_DS) within
/// 48 KiB.
const PAPER_MAX_ELL: usize = 4096;
// The kernel's ballots take whole warps.
const _: () = assert!(PAPER_THREADS.is_multiple_of(32));
