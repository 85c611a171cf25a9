//! The Bayesian optimization algorithm (BOA) of Munawar, Wahib, Munetomo & Akama,
//! "Theoretical and Empirical Analysis of a GPU based Parallel Bayesian
//! Optimization Algorithm" (2009): the CPU reference that gBOA is checked against.
//!
//! - [`LnFactorial`] and [`family_score`]: the K2 metric (the Bayesian–Dirichlet
//!   metric with uniform priors, Section III) of one node and its parents, in log
//!   space and in one fixed order of floating-point operations.
//! - [`FamilyScorer`]: the hot spot a GPU replaces (Section IV-A, the BD kernel):
//!   K2 of a batch of candidate families — [`CpuFamilyScorer`] (one thread) and
//!   [`ParallelFamilyScorer`] (rayon, the multi-threaded pBOA column).
//! - [`build_sboa`]: greedy edge additions over the whole network with an
//!   acyclicity check (Pelikan's simple BOA, the paper's sBOA, Section III).
//! - [`build_pboa`]: Ocenasek's permutation scheme (Section III-A, Fig. 4) that gBOA
//!   parallelizes: every node chooses its parents among the nodes before it in a
//!   permutation, independently of the other nodes.
//! - [`conditional_probabilities`] and [`sample`]: ancestral sampling (Section III).
//! - [`run`]: BOA with the settings of Section V; [`Randomness`] chooses the paper
//!   configuration's `StdRng` or [`CounterRng`] (Philox keyed by seed, generation,
//!   stream, individual and locus), with [`conditional_counts`], [`sampled_one`] and
//!   [`sample_counter`] deciding in integers, so that a run with every phase on the
//!   GPU makes the same run bit for bit (issue #23).

mod counter_rng;
mod ga;
mod k2;
mod network;
mod sampling;
mod scoring;
#[cfg(test)]
mod tests;

pub use counter_rng::{CounterRng, Stream};
pub use ga::{BoaConfig, BoaResult, Construction, GenerationStats, GenerationTrace, PhaseTimes, population_hash, run, run_traced};
pub use k2::{LnFactorial, family_score};
pub use network::{Network, build_pboa, build_sboa, random_permutation};
pub use sampling::{conditional_counts, conditional_probabilities, sample, sample_counter, sampled_one};
pub use scoring::{CpuFamilyScorer, Family, FamilyScorer, ParallelFamilyScorer};

/// Where a run's random numbers come from: [`Randomness::Counter`] draws one per (generation, stream, individual,
/// locus) ([`CounterRng`]), so a run with every phase on the GPU (`gpu::boa::run_on_device`) makes it bit for bit.
pub use super::philox::Randomness;
