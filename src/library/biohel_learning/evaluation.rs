//! Evaluation bookkeeping: every load and evaluation of the learning system goes through here, counted and timed
//! (the evaluation time of P Tables 2–4).

use crate::library::biohel::{Counts, Rule, RuleEvaluator};
use crate::library::dataset::Dataset;
use anyhow::{Result, ensure};
use std::ops::Range;
use std::time::{Duration, Instant};

/// What the evaluator did: instance sets loaded ([`RuleEvaluator::load`], once per
/// GA and once per rule check — a GPU evaluator uploads the instances there, as the
/// paper does once per GA, Section 3.3), `evaluate` calls, rules and rule ×
/// instance matches (each rule against each instance of the window), and the wall
/// time spent inside `load` and `evaluate` — the evaluation time of the paper's
/// Tables 2–4.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EvaluationStats {
    pub loads: u64,
    pub calls: u64,
    pub rules: u64,
    pub matches: u64,
    pub time: Duration,
}

pub(super) fn load(evaluator: &mut dyn RuleEvaluator, data: &Dataset, stats: &mut EvaluationStats) -> Result<()> {
    let start = Instant::now();
    evaluator.load(data)?;
    stats.time += start.elapsed();
    stats.loads += 1;
    Ok(())
}

pub(super) fn evaluate(
    evaluator: &mut dyn RuleEvaluator,
    data: &Dataset,
    window: Range<usize>,
    rules: &[Rule],
    out: &mut Vec<Counts>,
    stats: &mut EvaluationStats,
) -> Result<()> {
    let start = Instant::now();
    let len = window.len() as u64;
    evaluator.evaluate(data, window, rules, out)?;
    stats.time += start.elapsed();
    stats.calls += 1;
    stats.rules += rules.len() as u64;
    stats.matches += rules.len() as u64 * len;
    ensure!(out.len() == rules.len(), "evaluator {} returned {} counts for {} rules", evaluator.name(), out.len(), rules.len());
    Ok(())
}
