//! BioHEL's rule evaluation, the hot spot of Franco, Krasnogor & Bacardit,
//! "Speeding Up the Evaluation of Evolutionary Learning Systems using GPGPUs"
//! (GECCO 2010), and its ILAS windows. The learning system itself (one GA per rule,
//! MDL fitness) builds on this module.
//!
//! - [`Rule`] / [`Condition`]: BioHEL's rules over mixed attributes (Sections 2.2,
//!   3.4): an interval for a continuous attribute, a set of allowed values for a
//!   nominal one; only expressed attributes are checked.
//! - [`Counts`]: the three counts of Section 3 per rule.
//! - [`RuleEvaluator`]: counts for every rule over one window of instances (what
//!   kernels 1 and 2 of Section 3.2 compute); [`SerialEvaluator`] is the paper's
//!   serial baseline, [`ParallelEvaluator`] the multi-threaded CPU a user would pick
//!   today. A GPU evaluator implements the same trait and must give equal counts.
//! - [`ilas_strata`] / [`window_range`]: ILAS windowing (Section 2.2), strata laid
//!   out contiguously so a window is addressed by offset (Section 3.3).
//! - [`random_rule`]: BioHEL-like random initialisation, for the sweeps.

use crate::library::dataset::{Attribute, Dataset, MAX_NOMINAL_VALUES, stratified_folds};
use anyhow::{Result, bail, ensure};
use rand::RngExt;
use rand::rngs::StdRng;
use rayon::prelude::*;
use std::ops::Range;

/// One condition of a rule on one expressed attribute.
///
/// A missing value (`NaN`) matches no condition: `NaN` compares false with both
/// bounds, and a nominal `NaN` is rejected explicitly. BioHEL itself never matches
/// a missing value: it replaces missing values by the attribute's mean or most
/// frequent value before learning (`instance::updateMissing` in BioHEL's source),
/// which [`Dataset::impute_missing`] reproduces; the rule here only decides what a
/// `NaN` left in the data does, identically on every backend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Condition {
    /// Continuous attribute: matches `low ≤ value ≤ high` (bounds included, as
    /// BioHEL's hyper-rectangle list).
    Interval { attribute: u32, low: f32, high: f32 },
    /// Nominal attribute: matches when bit `value` of `mask` is set (values
    /// ≥ 128, impossible in a loaded [`Dataset`], never match).
    Values { attribute: u32, mask: u128 },
}

impl Condition {
    pub fn attribute(&self) -> usize {
        match *self {
            Condition::Interval { attribute, .. } | Condition::Values { attribute, .. } => attribute as usize,
        }
    }

    #[inline]
    pub fn matches(&self, row: &[f32]) -> bool {
        match *self {
            Condition::Interval { attribute, low, high } => {
                let v = row[attribute as usize];
                v >= low && v <= high
            }
            Condition::Values { attribute, mask } => {
                let v = row[attribute as usize];
                !v.is_nan() && mask.checked_shr(v as u32).is_some_and(|m| m & 1 == 1)
            }
        }
    }
}

/// A BioHEL rule: if every condition holds, predict `class`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub class: u16,
    pub conditions: Vec<Condition>,
}

impl Rule {
    #[inline]
    pub fn matches(&self, row: &[f32]) -> bool {
        self.conditions.iter().all(|c| c.matches(row))
    }
}

/// The three counts of Section 3 for one rule over a window: instances matching
/// the condition, instances of the rule's class, and instances matching both (the
/// inputs of accuracy and coverage in BioHEL's fitness).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub matched: u32,
    pub correct: u32,
    pub matched_and_correct: u32,
}

/// Evaluates a population of rules over a window of instances (Section 3.2).
pub trait RuleEvaluator {
    fn name(&self) -> String;

    /// Makes `data` the instance set of the calls that follow: the paper copies the
    /// instances to the device once per GA and addresses windows by offset
    /// (Section 3.3). CPU evaluators need nothing; a GPU evaluator uploads here and
    /// refuses to evaluate another set. Call again whenever the set changes.
    fn load(&mut self, data: &Dataset) -> Result<()> {
        let _ = data;
        Ok(())
    }

    /// Replaces `out` by the [`Counts`] of every rule over the instances `window`
    /// (indices into `data`, e.g. a [`window_range`] of data laid out in
    /// [`ilas_strata`] order). Errors when the window or a rule does not fit `data`.
    fn evaluate(&mut self, data: &Dataset, window: Range<usize>, rules: &[Rule], out: &mut Vec<Counts>) -> Result<()>;

    /// Seconds of device kernels in the calls so far (CUDA events), for an
    /// evaluator that runs on a device; `None` for the CPU ones.
    fn device_seconds(&self) -> Option<f64> {
        None
    }
}

/// Checks that `window` lies in `data` and that every rule's conditions name
/// existing attributes of the right kind and its class exists, so that every
/// backend sees the same valid input.
pub fn check_input(data: &Dataset, window: &Range<usize>, rules: &[Rule]) -> Result<()> {
    ensure!(
        window.start <= window.end && window.end <= data.instances(),
        "window {window:?} outside the {} instances of {}",
        data.instances(),
        data.name
    );
    ensure!(data.instances() <= u32::MAX as usize, "{}: more than 2^32 − 1 instances", data.name);
    for (r, rule) in rules.iter().enumerate() {
        ensure!(usize::from(rule.class) < data.classes.len(), "rule {r}: class {} of {}", rule.class, data.classes.len());
        for c in &rule.conditions {
            match (c, data.attributes.get(c.attribute())) {
                (Condition::Interval { .. }, Some(Attribute::Continuous { .. })) => {}
                (Condition::Values { .. }, Some(Attribute::Nominal { values, .. })) if values.len() <= MAX_NOMINAL_VALUES => {}
                (_, Some(a)) => bail!("rule {r}: {c:?} does not fit attribute `{}`", a.name()),
                (_, None) => bail!("rule {r}: attribute {} of {}", c.attribute(), data.attribute_count()),
            }
        }
    }
    Ok(())
}

/// The counts of one rule, instance by instance (the serial match loop).
fn count_rule(data: &Dataset, window: Range<usize>, rule: &Rule) -> Counts {
    let mut counts = Counts::default();
    for i in window {
        let matched = rule.matches(data.row(i));
        let correct = data.labels[i] == rule.class;
        counts.matched += u32::from(matched);
        counts.correct += u32::from(correct);
        counts.matched_and_correct += u32::from(matched && correct);
    }
    counts
}

/// The paper's serial baseline: each rule against each instance of the window, one
/// thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct SerialEvaluator;

impl RuleEvaluator for SerialEvaluator {
    fn name(&self) -> String {
        "cpu-serial".into()
    }

    fn evaluate(&mut self, data: &Dataset, window: Range<usize>, rules: &[Rule], out: &mut Vec<Counts>) -> Result<()> {
        check_input(data, &window, rules)?;
        out.clear();
        out.extend(rules.iter().map(|rule| count_rule(data, window.clone(), rule)));
        Ok(())
    }
}

/// The multi-threaded CPU column: rules spread over rayon's threads, each counted
/// as [`SerialEvaluator`] does.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParallelEvaluator;

impl RuleEvaluator for ParallelEvaluator {
    fn name(&self) -> String {
        format!("cpu-parallel ({} threads)", rayon::current_num_threads())
    }

    fn evaluate(&mut self, data: &Dataset, window: Range<usize>, rules: &[Rule], out: &mut Vec<Counts>) -> Result<()> {
        check_input(data, &window, rules)?;
        rules.par_iter().map(|rule| count_rule(data, window.clone(), rule)).collect_into_vec(out);
        Ok(())
    }
}

/// The condition tests a serial evaluation makes over `window`: per rule and
/// instance, the conditions checked up to and including the first that fails
/// (all of them when the rule matches). The useful work of every evaluator, for
/// comparison rates; counted on all threads.
pub fn condition_tests(data: &Dataset, window: Range<usize>, rules: &[Rule]) -> u64 {
    let per_instance =
        |rule: &Rule, row: &[f32]| rule.conditions.iter().position(|c| !c.matches(row)).map_or(rule.conditions.len(), |p| p + 1);
    rules.par_iter().map(|rule| window.clone().map(|i| per_instance(rule, data.row(i)) as u64).sum::<u64>()).sum()
}

/// ILAS, incremental learning with alternating strata (Bacardit 2004, the paper's
/// ref. [2]; Section 2.2): the training set is split into `windows`
/// non-overlapping strata, each with the class distribution of the whole set, and
/// GA iteration t uses stratum t mod `windows` (round robin).
///
/// Returns a permutation of the instance indices in which stratum i occupies
/// [`window_range`]`(n, windows, i)`, so a window is addressed by its offset as in
/// Section 3.3. BioHEL (`windowingILAS::reorderInstances` in its source) sends the
/// instances of each class to strata by sampling strata without replacement; here
/// the strata are the folds of [`stratified_folds`] (each class shuffled with
/// `seed` and dealt round robin), which gives every class ⌊n_c / windows⌋ or
/// ⌈n_c / windows⌉ instances per stratum as BioHEL does, and in addition strata
/// whose sizes differ by at most one, as the equal windows of Figure 4 (T/x) assume.
pub fn ilas_strata(labels: &[u16], windows: usize, seed: u64) -> Vec<usize> {
    stratified_folds(labels, windows, seed).concat()
}

/// The instances of window `i` of `windows` over `n` instances in [`ilas_strata`]
/// order: the first n mod `windows` windows hold ⌊n / windows⌋ + 1 instances, the
/// others ⌊n / windows⌋.
pub fn window_range(n: usize, windows: usize, i: usize) -> Range<usize> {
    let (base, extra) = (n / windows, n % windows);
    let start = i * base + i.min(extra);
    start..start + base + usize::from(i < extra)
}

/// A random rule as BioHEL initialises one (its `initializeChromosome`, smart
/// initialisation): take a random instance and its class; express each attribute
/// with probability `expressed_probability`; a continuous attribute gets the
/// interval spanning the instance's value and that of a second random instance
/// (BioHEL draws a random width around the value from the attribute's domain); a
/// nominal attribute allows the instance's value and each other value with
/// probability 1/2. Attributes missing in the chosen instance are not expressed.
/// The rule always matches the instance it was drawn from.
pub fn random_rule(data: &Dataset, rng: &mut StdRng, expressed_probability: f64) -> Rule {
    assert!(data.instances() > 0, "random_rule needs at least one instance");
    let i = rng.random_range(0..data.instances());
    let row = data.row(i);
    let mut conditions = Vec::new();
    for (a, attribute) in data.attributes.iter().enumerate() {
        if rng.random::<f64>() >= expressed_probability || row[a].is_nan() {
            continue;
        }
        let att = a as u32;
        conditions.push(match attribute {
            Attribute::Continuous { .. } => {
                let other = data.row(rng.random_range(0..data.instances()))[a];
                let other = if other.is_nan() { row[a] } else { other };
                Condition::Interval { attribute: att, low: row[a].min(other), high: row[a].max(other) }
            }
            Attribute::Nominal { values, .. } => {
                let n = values.len().min(MAX_NOMINAL_VALUES);
                let random: u128 = (0..n).filter(|_| rng.random::<bool>()).fold(0, |m, v| m | 1 << v);
                Condition::Values { attribute: att, mask: random | 1u128.checked_shl(row[a] as u32).unwrap_or(0) }
            }
        });
    }
    Rule { class: data.labels[i], conditions }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::dataset::{load_named, parmx, scalable, waveform};
    use rand::SeedableRng;
    use std::path::Path;

    /// Four instances: x (continuous), colour {red, green, blue}; classes a, b.
    fn tiny() -> Dataset {
        Dataset {
            name: "tiny".into(),
            attributes: vec![
                Attribute::Continuous { name: "x".into() },
                Attribute::Nominal { name: "colour".into(), values: vec!["red".into(), "green".into(), "blue".into()] },
            ],
            classes: vec!["a".into(), "b".into()],
            values: vec![0.5, 0.0, 1.0, 1.0, 2.0, 2.0, f32::NAN, 0.0, 1.0, f32::NAN],
            labels: vec![0, 1, 0, 1, 1],
            synthetic: true,
        }
    }

    #[test]
    fn hand_checked_counts_on_a_tiny_set() {
        let data = tiny();
        let rules = vec![
            // x in [0.5, 1.0]: rows 0, 1, 4 (row 3 is NaN); class a: rows 0, 2.
            Rule { class: 0, conditions: vec![Condition::Interval { attribute: 0, low: 0.5, high: 1.0 }] },
            // colour red or blue: rows 0, 2, 3 (row 4 is NaN); class b: rows 1, 3, 4.
            Rule { class: 1, conditions: vec![Condition::Values { attribute: 1, mask: 0b101 }] },
            // both: row 0 only.
            Rule {
                class: 1,
                conditions: vec![
                    Condition::Interval { attribute: 0, low: 0.5, high: 1.0 },
                    Condition::Values { attribute: 1, mask: 0b101 },
                ],
            },
            // no condition: matches everything.
            Rule { class: 0, conditions: vec![] },
        ];
        let expected = vec![
            Counts { matched: 3, correct: 2, matched_and_correct: 1 },
            Counts { matched: 3, correct: 3, matched_and_correct: 1 },
            Counts { matched: 1, correct: 3, matched_and_correct: 0 },
            Counts { matched: 5, correct: 2, matched_and_correct: 2 },
        ];
        let mut out = Vec::new();
        for evaluator in [&mut SerialEvaluator as &mut dyn RuleEvaluator, &mut ParallelEvaluator] {
            evaluator.evaluate(&data, 0..5, &rules, &mut out).expect("valid");
            assert_eq!(out, expected, "{}", evaluator.name());
        }
        // A window of rows 1..3.
        SerialEvaluator.evaluate(&data, 1..3, &rules[..1], &mut out).expect("valid");
        assert_eq!(out, vec![Counts { matched: 1, correct: 1, matched_and_correct: 0 }]);
        // Tests up to the first failing condition: 5 + 5 + (2 + 2 + 1 + 1 + 2) + 0.
        assert_eq!(condition_tests(&data, 0..5, &rules), 18);
        assert_eq!(condition_tests(&data, 1..3, &rules[2..3]), 3);
    }

    #[test]
    fn invalid_windows_and_rules_are_errors() {
        let data = tiny();
        let mut out = Vec::new();
        let ok = Rule { class: 0, conditions: vec![] };
        assert!(SerialEvaluator.evaluate(&data, 0..6, std::slice::from_ref(&ok), &mut out).is_err());
        let wrong_kind = Rule { class: 0, conditions: vec![Condition::Values { attribute: 0, mask: 1 }] };
        assert!(ParallelEvaluator.evaluate(&data, 0..5, &[wrong_kind], &mut out).is_err());
        let no_attribute = Rule { class: 0, conditions: vec![Condition::Interval { attribute: 9, low: 0.0, high: 1.0 }] };
        assert!(SerialEvaluator.evaluate(&data, 0..5, &[no_attribute], &mut out).is_err());
        assert!(SerialEvaluator.evaluate(&data, 0..5, &[Rule { class: 2, conditions: vec![] }], &mut out).is_err());
    }

    #[test]
    fn serial_and_parallel_counts_are_equal_on_random_rules() {
        let mut mixed = scalable(20_000, 30, 3, 0.4, 11);
        let mut rng = StdRng::seed_from_u64(5);
        for _ in 0..2_000 {
            let at = rng.random_range(0..mixed.values.len());
            mixed.values[at] = f32::NAN;
        }
        let sat = load_named(&Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/biohel"), "sat", None).expect("sat loads");
        for data in [mixed, waveform(5_000, 2), parmx(), sat] {
            let rules: Vec<Rule> = (0..64).map(|r| random_rule(&data, &mut rng, [0.1, 0.3, 0.8][r % 3])).collect();
            let order = ilas_strata(&data.labels, 7, 3);
            let data = data.subset(&order);
            let n = data.instances();
            let (mut serial, mut parallel) = (Vec::new(), Vec::new());
            for window in [0..n, window_range(n, 7, 0), window_range(n, 7, 6), window_range(n, 2, 1)] {
                SerialEvaluator.evaluate(&data, window.clone(), &rules, &mut serial).expect("valid");
                ParallelEvaluator.evaluate(&data, window.clone(), &rules, &mut parallel).expect("valid");
                assert_eq!(serial, parallel, "{} {window:?}", data.name);
                assert!(serial.iter().any(|c| c.matched > 0 && c.matched < window.len() as u32), "{}: rules discriminate", data.name);
            }
        }
    }

    #[test]
    fn random_rules_match_their_instance_and_follow_the_expression_probability() {
        let data = scalable(500, 12, 2, 0.5, 1);
        let mut rng = StdRng::seed_from_u64(8);
        let all = random_rule(&data, &mut rng, 1.0);
        assert_eq!(all.conditions.len(), 12);
        let mut out = Vec::new();
        SerialEvaluator.evaluate(&data, 0..500, &[all], &mut out).expect("valid");
        assert!(out[0].matched >= 1 && out[0].matched_and_correct >= 1);
        let none = random_rule(&data, &mut rng, 0.0);
        assert!(none.conditions.is_empty());
        SerialEvaluator.evaluate(&data, 0..500, &[none], &mut out).expect("valid");
        assert_eq!(out[0].matched, 500);
    }

    #[test]
    fn ilas_windows_are_stratified_and_cover_every_instance_once() {
        let labels: Vec<u16> = (0..10_007).map(|i| [0, 0, 0, 1, 1, 2, 3][i % 7]).collect();
        for windows in [1, 2, 4, 15, 50] {
            let order = ilas_strata(&labels, windows, 17);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..labels.len()).collect::<Vec<_>>());
            let ranges: Vec<_> = (0..windows).map(|w| window_range(labels.len(), windows, w)).collect();
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges[windows - 1].end, labels.len());
            assert!(ranges.windows(2).all(|p| p[0].end == p[1].start));
            for r in ranges {
                assert!(r.len() == labels.len() / windows || r.len() == labels.len() / windows + 1);
                for c in 0..4u16 {
                    let total = labels.iter().filter(|&&l| l == c).count();
                    let here = order[r.clone()].iter().filter(|&&i| labels[i] == c).count();
                    assert!(here == total / windows || here == total.div_ceil(windows), "{windows} windows, class {c}: {here}");
                }
            }
        }
    }
}
