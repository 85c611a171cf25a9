//! Iterative rule learning (P Section 2.2; MC; SRC `main.cpp`): one rule at a time, each checked by BioHEL's
//! majority test, the instances it covers removed; the learned decision list.

use super::evaluation::{evaluate, load};
use super::{EvaluationStats, GaContext, GaOutcome, LearningConfig, run_ga};
use crate::library::biohel::{Rule, RuleEvaluator};
use crate::library::dataset::Dataset;
use anyhow::{Result, ensure};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::time::{Duration, Instant};

/// Time and work of one [`learn`] run (the paper's Tables 2 and 4 compare the
/// evaluation time with the whole learning time).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LearningStats {
    /// Wall time of the whole [`learn`] call.
    pub total_time: Duration,
    /// Everything spent in [`RuleEvaluator::load`] and [`RuleEvaluator::evaluate`],
    /// GAs and rule checks.
    pub evaluation: EvaluationStats,
    /// GAs run.
    pub gas: usize,
    /// Best rules of a round rejected by the majority check.
    pub rejected_rules: usize,
}

impl LearningStats {
    /// Share of the total time spent inside the evaluator.
    pub fn evaluation_share(&self) -> f64 {
        let total = self.total_time.as_secs_f64();
        if total > 0.0 { self.evaluation.time.as_secs_f64() / total } else { 0.0 }
    }
}

/// A learned rule set: an ordered decision list with a default rule.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnedModel {
    pub rules: Vec<Rule>,
    pub default_class: u16,
    pub stats: LearningStats,
}

impl LearnedModel {
    /// The class of the first rule matching `row`, else the default class
    /// (`classifier_aggregated::classify`).
    pub fn predict(&self, row: &[f32]) -> u16 {
        self.rules.iter().find(|r| r.matches(row)).map_or(self.default_class, |r| r.class)
    }

    /// Share of `data`'s instances predicted correctly (0 for an empty set).
    pub fn accuracy(&self, data: &Dataset) -> f64 {
        if data.instances() == 0 {
            return 0.0;
        }
        let correct = (0..data.instances()).filter(|&i| self.predict(data.row(i)) == data.labels[i]).count();
        correct as f64 / data.instances() as f64
    }
}

/// BioHEL's acceptance test of a learned rule (`isMajority` in SRC `main.cpp`),
/// over all the remaining instances: the rule's recall must be at least a third of
/// its class's breakpoint, and among the instances it matches its class must be
/// the unique most frequent one. The per-class counts of matched instances come
/// from one [`RuleEvaluator::evaluate`] call on copies of the rule, one per class
/// (matched_and_correct of the copy for class c = matched instances of class c).
fn is_majority(
    data: &Dataset,
    rule: &Rule,
    context: &GaContext,
    evaluator: &mut dyn RuleEvaluator,
    stats: &mut EvaluationStats,
) -> Result<bool> {
    let copies: Vec<Rule> = (0..context.classes() as u16).map(|class| Rule { class, conditions: rule.conditions.clone() }).collect();
    let mut counts = Vec::with_capacity(copies.len());
    load(evaluator, data, stats)?;
    evaluate(evaluator, data, 0..data.instances(), &copies, &mut counts, stats)?;
    let cl = usize::from(rule.class);
    let recall = f64::from(counts[cl].matched_and_correct) / f64::from(counts[cl].correct);
    // BioHEL: `if(ratio < coverageBreaks[cl]/3) return 0;` — a NaN ratio (no
    // instance of the class left) passes this test, as in the source.
    if recall < context.class_breakpoints[cl] / 3.0 {
        return Ok(false);
    }
    let per_class: Vec<u32> = counts.iter().map(|c| c.matched_and_correct).collect();
    let max = per_class.iter().copied().max().unwrap_or(0);
    let argmax = per_class.iter().position(|&c| c == max).unwrap_or(0);
    let unique = per_class.iter().filter(|&&c| c == max).count() == 1;
    Ok(max > 0 && unique && argmax == cl)
}

/// The instances of `data` the rule does not match: BioHEL removes every instance
/// the new rule matches, whatever its class (`instanceSet::removeInstancesAndRestart`:
/// `if(cla->doMatch(set[index]))` removes; P Section 2.2: "all the examples
/// covered by the rule are removed"). Matching here is bookkeeping, not fitness
/// evaluation, and is not counted in [`EvaluationStats`].
pub(super) fn remove_covered(data: &Dataset, rule: &Rule) -> Dataset {
    let keep: Vec<usize> = (0..data.instances()).filter(|&i| !rule.matches(data.row(i))).collect();
    data.subset(&keep)
}

/// Learns a BioHEL rule set from `train` (P Section 2.2; MC; SRC `main.cpp`):
///
/// ```text
/// failures = 0
/// loop
///     stop if no instance is left, or max_rules rules were learned
///     best = the lowest-EL result of `repetitions` runs of `run_ga` over the
///            remaining instances
///     if best passes BioHEL's majority check (see below)
///         append it; remove every remaining instance it matches; failures = 0
///     else
///         failures += 1; stop at `failures_to_stop` (3) consecutive failures
/// default rule: the training set's majority class (fixed from the start)
/// ```
///
/// The majority check (`isMajority`): the rule's recall on the remaining instances
/// is at least a third of its class's breakpoint, and its class is the unique most
/// frequent class among the remaining instances it matches.
///
/// Default class: BioHEL's `default class major` policy — the most frequent class
/// of `train` (first on ties) is the default rule's class from the start and the GA
/// never learns rules for it. When no instance of another class remains, learning
/// stops (our shortcut: BioHEL would run `failures_to_stop` further rounds whose
/// rules it always rejects, since such a rule matches no instance of its class).
///
/// BioHEL replaces missing values before learning (`Dataset::impute_missing`);
/// `train` is used as given (a `NaN` matches no condition).
pub fn learn(train: &Dataset, cfg: &LearningConfig, evaluator: &mut dyn RuleEvaluator) -> Result<LearnedModel> {
    let start = Instant::now();
    cfg.validate()?;
    ensure!(train.instances() > 0, "{}: empty training set", train.name);
    ensure!(!train.classes.is_empty() && train.classes.len() <= usize::from(u16::MAX), "{}: {} classes", train.name, train.classes.len());
    let context = GaContext::new(train, cfg);
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let mut stats = LearningStats::default();
    let mut remaining = train.clone();
    let mut rules = Vec::new();
    let mut failures = 0;
    loop {
        if remaining.instances() == 0 || cfg.max_rules.is_some_and(|m| rules.len() >= m) {
            break;
        }
        if remaining.labels.iter().all(|&l| l == context.default_class) {
            break;
        }
        let mut best: Option<GaOutcome> = None;
        for _ in 0..cfg.repetitions {
            let outcome = run_ga(&remaining, &context, cfg, &mut rng, evaluator, &mut stats.evaluation)?;
            stats.gas += 1;
            if best.as_ref().is_none_or(|b| outcome.score.exceptions_length < b.score.exceptions_length) {
                best = Some(outcome);
            }
        }
        let best = best.expect("at least one repetition");
        if is_majority(&remaining, &best.rule, &context, evaluator, &mut stats.evaluation)? {
            remaining = remove_covered(&remaining, &best.rule);
            rules.push(best.rule);
            failures = 0;
        } else {
            stats.rejected_rules += 1;
            failures += 1;
            if failures >= cfg.failures_to_stop {
                break;
            }
        }
    }
    stats.total_time = start.elapsed();
    Ok(LearnedModel { rules, default_class: context.default_class, stats })
}
