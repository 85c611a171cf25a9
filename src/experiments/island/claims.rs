//! The island paper's claims (Section VI): one check per claim, its parameters
//! typed and validated when the spec loads, each judged on the paper's own
//! range and settings; what the records hold beyond them goes to the report's
//! *Beyond the paper* section.
//!
//! Every check measures and hands the decision to
//! [`judge`](crate::claims::judge)'s rules: times are means over runs with
//! their 95% intervals (a ratio of two methods' times by
//! [`Estimate::ratio_of_means`](crate::claims::Estimate::ratio_of_means)),
//! fitness comparisons are Welch's interval
//! ([`judge::order`](crate::claims::judge::order): a tie is inconclusive, with
//! the runs it would need), and several points combine by
//! [`judge::all_of`](crate::claims::judge::all_of) (each claim says why).
//!
//! The checks lie by what they judge: fitness (Figure 4) in `claims_fitness`,
//! time (Figure 5) in `claims_time`, migration (Figure 6) in
//! `claims_migration` (the series the generic `threshold` judges), speed (Figure 7, Tables I and II, Section VI's sustained
//! rate) in `claims_speed`; what they share in `claims_common`. [`checks`] binds
//! each check's name in the spec to its function, with the generic shapes.

use super::analysis::Analysis;
use super::claims_speed::{gpu_speedup, gpus_over_cpu, sustained_rate, threads_scale};
use super::claims_time::saturation_knee;
use crate::check;
use crate::claims::Check;

/// The paper's own checks, beside the generic shapes every paper has.
pub(super) const CHECKS: &[Check<Analysis>] = &[
    check!("saturation_knee", saturation_knee),
    check!("threads_scale", threads_scale),
    check!("gpu_speedup", gpu_speedup),
    check!("gpus_over_cpu", gpus_over_cpu),
    check!("sustained_rate", sustained_rate),
];

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
