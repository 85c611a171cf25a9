//! Population sizing by bisection (Section 5.2, after Sastry 2002): the minimum
//! population sizes behind Table 5.

use super::{EcgaConfig, PairScorer, run};
use crate::library::trap::Trap;
use anyhow::{Result, ensure};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

/// When a population size counts as sufficient, and how finely to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BisectionCriteria {
    /// First population size tried.
    pub n0: usize,
    /// Stop when (hi − lo) / lo ≤ precision.
    pub precision: f64,
    /// Runs per population size.
    pub runs_per_trial: usize,
    /// Successful runs needed for the size to succeed; a run succeeds when the best
    /// individual of its final population solves at least m − 1 subproblems.
    pub required_successes: usize,
    /// Give up (error) when doubling passes this.
    pub max_n: usize,
}

impl Default for BisectionCriteria {
    /// n0 = 16, precision 0.1, one successful run of one per size, up to 2^22.
    fn default() -> Self {
        BisectionCriteria { n0: 16, precision: 0.1, runs_per_trial: 1, required_successes: 1, max_n: 1 << 22 }
    }
}

/// One population size tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trial {
    pub n: usize,
    /// Runs made (a trial stops as soon as its outcome is decided).
    pub runs: usize,
    pub successes: usize,
    pub success: bool,
}

/// The outcome of one bisection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BisectionResult {
    pub seed: u64,
    /// The smallest successful population size found.
    pub n: usize,
    /// Every trial, in the order made.
    pub trials: Vec<Trial>,
}

/// Bisection for the minimum population size (Sastry 2002, as cited in Section 5.2),
/// each run on the host with `scorer` ([`bisection_with`] with [`run`]).
pub fn bisection(
    trap: &Trap,
    base: &EcgaConfig,
    seed: u64,
    criteria: &BisectionCriteria,
    scorer: &mut dyn PairScorer,
) -> Result<BisectionResult> {
    bisection_with(trap, base, seed, criteria, &mut |cfg, run_seed| Ok(run(trap, cfg, run_seed, scorer)?.best_solved))
}

/// Bisection for the minimum population size (Sastry 2002, as cited in Section 5.2),
/// `run_one(config, run seed)` making one run and returning the subproblems its
/// best individual solves (on the host or wholly on the device).
///
/// Tries `n0`; doubles until a size succeeds, or, when `n0` already succeeds,
/// halves until one fails (not below the tournament size). Then bisects between the
/// largest failure `lo` and smallest success `hi` until (hi − lo)/lo ≤ precision and
/// returns `hi`. `base.n` is ignored; run seeds are drawn in order from `seed`.
pub fn bisection_with(
    trap: &Trap,
    base: &EcgaConfig,
    seed: u64,
    criteria: &BisectionCriteria,
    run_one: &mut dyn FnMut(&EcgaConfig, u64) -> Result<usize>,
) -> Result<BisectionResult> {
    ensure!(
        criteria.required_successes >= 1 && criteria.required_successes <= criteria.runs_per_trial,
        "need 1 ≤ required_successes ≤ runs_per_trial"
    );
    ensure!(criteria.n0 >= base.tournament && criteria.precision > 0.0, "need n0 ≥ tournament size and precision > 0");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut trials = Vec::new();
    let mut trial = |n: usize| -> Result<bool> {
        let cfg = EcgaConfig { n, ..*base };
        let (mut runs, mut successes) = (0, 0);
        while successes < criteria.required_successes && runs - successes <= criteria.runs_per_trial - criteria.required_successes {
            runs += 1;
            if run_one(&cfg, rng.random())? + 1 >= trap.m {
                successes += 1;
            }
        }
        let success = successes >= criteria.required_successes;
        trials.push(Trial { n, runs, successes, success });
        Ok(success)
    };
    let (mut lo, mut hi) = (criteria.n0, criteria.n0);
    if trial(criteria.n0)? {
        loop {
            lo = hi / 2;
            if lo < base.tournament {
                return Ok(BisectionResult { seed, n: hi, trials });
            }
            if !trial(lo)? {
                break;
            }
            hi = lo;
        }
    } else {
        loop {
            hi = lo * 2;
            ensure!(hi <= criteria.max_n, "no success up to max_n = {}", criteria.max_n);
            if trial(hi)? {
                break;
            }
            lo = hi;
        }
    }
    while (hi - lo) as f64 / lo as f64 > criteria.precision && hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if trial(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(BisectionResult { seed, n: hi, trials })
}

/// `count` independent bisections in parallel (rayon), the i-th with the i-th seed
/// drawn from `seed` and its own scorer from `make_scorer`.
pub fn bisections<S: PairScorer>(
    trap: &Trap,
    base: &EcgaConfig,
    criteria: &BisectionCriteria,
    count: usize,
    seed: u64,
    make_scorer: impl Fn() -> S + Sync,
) -> Result<Vec<BisectionResult>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let seeds: Vec<u64> = (0..count).map(|_| rng.random()).collect();
    seeds.into_par_iter().map(|seed| bisection(trap, base, seed, criteria, &mut make_scorer())).collect()
}
