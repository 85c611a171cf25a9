//! Figure 6's claims: greedy search's model quality and convergence against
//! GM search's.

use super::{Runs, gm_name};
use crate::claims::generic::{AtSize, across_sizes};
use crate::claims::judge::{self, Comparison};
use crate::claims::{Ctx, Outcome};
use crate::experiments::ecga::analysis::{Analysis, Fig6Run};
use crate::library::ecga::Search;
use std::collections::BTreeMap;

/// Figure 6 samples, one per population size with both searches: `value` of
/// each greedy run against each GM run (given the last generation of the
/// longest run of either search at that size); those at the paper's
/// conditions (N ≥ its `fig6_min_n`), then the smaller N.
fn fig6_samples(a: &Analysis, value: impl Fn(&Fig6Run, usize) -> Option<f64>) -> (Vec<AtSize>, Vec<AtSize>) {
    let runs = |s: &str, n: usize| a.fig6_runs.get(&(s.to_owned(), n));
    let sample = |n: usize| {
        let (greedy, gm) = (runs(Search::Greedy.name(), n)?, runs(gm_name(), n)?);
        let horizon = greedy.values().chain(gm.values()).map(Fig6Run::last_generation).max().unwrap_or(0);
        let of = |r: &BTreeMap<String, Fig6Run>| r.values().filter_map(|run| value(run, horizon)).collect::<Vec<f64>>();
        Some(AtSize { label: format!("N = {n}"), a: of(greedy), b: of(gm) })
    };
    let (inside, outside): (Vec<usize>, Vec<usize>) =
        a.fig6_runs.keys().filter(|k| k.0 == Search::Greedy.name()).map(|k| k.1).partition(|&n| n >= a.published.fig6_min_n);
    (inside.into_iter().filter_map(sample).collect(), outside.into_iter().filter_map(sample).collect())
}

/// A Figure 6 comparison of greedy's runs against GM's at each population of
/// the paper's conditions, combined by [`judge::any_none_against`]: the figure
/// shows several populations, and at the large ones both searches find every
/// block and converge alike, so a tie there neither supports nor contradicts
/// the paper; the smaller N go beyond.
fn fig6_judge(a: &Analysis, (inside, outside): (Vec<AtSize>, Vec<AtSize>), min_n: usize, words: [&str; 2], what: &str) -> Outcome {
    let names = ("greedy", "GM");
    let min = a.published.fig6_min_n;
    let compare = |s: &[AtSize]| across_sizes(s, Comparison::Greater, min_n, judge::any_none_against, names, words);
    let beyond = if outside.is_empty() {
        String::new()
    } else {
        format!("below the paper's conditions (N < {min}): {what}, {}", compare(&outside).evidence)
    };
    if inside.is_empty() {
        let at = if outside.is_empty() { "any N".to_owned() } else { format!("N ≥ {min} (Table 5's ℓ = 50 population)") };
        return Outcome::not_run(format!("no Figure 6 runs of both searches at {at} in these records")).with_beyond(beyond);
    }
    let o = compare(&inside);
    Outcome { evidence: format!("{what} at the paper's conditions (N ≥ {min}), {}", o.evidence), ..o }.with_beyond(beyond)
}

/// Figure 6(a), Section 5.5: greedy search builds better models than GM search
/// except in the last generation — each run's quality averaged over its
/// generations but its last, greedy's runs against GM's ([`fig6_judge`]).
pub(super) fn greedy_quality_higher(p: &Runs, a: &Analysis, _: &Ctx) -> Outcome {
    let samples = fig6_samples(a, |r, _| r.overall_quality());
    fig6_judge(a, samples, p.min_n, ["greedy higher", "greedy lower"], "model quality over a run but its last generation")
}

/// Figure 6(b), Section 5.5: ECGA with greedy search converges earlier — its
/// ratio-of-ones curve lies above GM's. Each run's curve summed into one
/// number, its mean ratio of ones after selection over the generations up to
/// the longest run's last at that size ([`Fig6Run::mean_ones_over`]: every run
/// counts, including those that never come near 1), greedy's runs against
/// GM's ([`fig6_judge`]).
pub(super) fn greedy_converges_earlier(p: &Runs, a: &Analysis, _: &Ctx) -> Outcome {
    let samples = fig6_samples(a, |r, horizon| r.mean_ones_over(horizon));
    let what = "mean ratio of ones after selection over generations 1 to the longest run's last (a run that ended keeps its last value)";
    fig6_judge(a, samples, p.min_n, ["greedy higher", "greedy lower"], what)
}
