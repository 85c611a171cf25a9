//! BioHEL's MDL fitness (MC; SRC `timerMDL`): the exceptions length with the coverage breakpoint, the attribute
//! domains and the theory length.

use crate::library::biohel::{Condition, Counts, Rule};
use crate::library::dataset::{Attribute, Dataset, MAX_NOMINAL_VALUES};

/// The coverage term of BioHEL's exceptions length (MC; SRC
/// `timerMDL::mdlFitness`), for a rule's `recall` and its class's breakpoint `cb`
/// (see [`class_breakpoints`]), with coverage ratio `cr` (0.9):
///
/// - cb ≥ 1: the recall itself;
/// - recall < cb: cr · recall / cb (steep: most of the reward is reached at cb);
/// - recall ≥ cb: cr + (1 − cr) · (min(recall, 2·cb) − cb) / (1 − cb) — the source
///   caps the recall at twice the breakpoint, so covering more than 2·cb earns
///   nothing more and accuracy decides.
pub fn coverage_term(recall: f64, cb: f64, cr: f64) -> f64 {
    if cb >= 1.0 {
        recall
    } else if recall < cb {
        cr * recall / cb
    } else {
        cr + (1.0 - cr) * (recall.min(2.0 * cb) - cb) / (1.0 - cb)
    }
}

/// The per-class breakpoints on the recall: cb_c = min(1, cb · N / N_c), N the
/// training set size and N_c the instances of class c in it (SRC `timerMDL`'s
/// constructor: the breakpoint is a share of the whole training set, turned into a
/// share of the class). They stay fixed for the whole run: BioHEL's update after
/// each removal is commented out in its source. A class absent from the training
/// set gets 1.
pub fn class_breakpoints(class_counts: &[usize], coverage_breakpoint: f64) -> Vec<f64> {
    let n: usize = class_counts.iter().sum();
    class_counts.iter().map(|&nc| if nc == 0 { 1.0 } else { (coverage_breakpoint * n as f64 / nc as f64).min(1.0) }).collect()
}

/// BioHEL's exceptions length EL = (1 − accuracy) + (1 − coverage term) (MC;
/// SRC `timerMDL::mdlFitness`), from the three counts over the window:
/// accuracy = matched_and_correct / matched (0 when nothing matches), recall =
/// matched_and_correct / correct (`correct` is the number of instances of the
/// rule's class in the window, SRC `getRecall`), coverage term =
/// [`coverage_term`]`(recall, class_breakpoint, coverage_ratio)`. A window with
/// fewer than 2 instances of the rule's class gives the worst value, 2.
pub fn exceptions_length(counts: Counts, class_breakpoint: f64, coverage_ratio: f64) -> f64 {
    if counts.correct < 2 {
        return 2.0;
    }
    let accuracy = if counts.matched == 0 { 0.0 } else { f64::from(counts.matched_and_correct) / f64::from(counts.matched) };
    let recall = f64::from(counts.matched_and_correct) / f64::from(counts.correct);
    (1.0 - accuracy) + (1.0 - coverage_term(recall, class_breakpoint, coverage_ratio))
}

/// BioHEL's fitness, minimised: TL · W + EL (MC; SRC
/// `timerMDL::mdlFitness`), with `weight` W = 0 until the MDL weight is activated
/// (see [`LearningConfig::mdl_iteration`]).
///
/// [`LearningConfig::mdl_iteration`]: super::LearningConfig::mdl_iteration
pub fn mdl_fitness(counts: Counts, theory_length: f64, weight: f64, class_breakpoint: f64, coverage_ratio: f64) -> f64 {
    theory_length * weight + exceptions_length(counts, class_breakpoint, coverage_ratio)
}

/// The range of one attribute over the training set, for the theory length and
/// the operators (SRC `attributesInfo`: min and max of each real attribute over
/// the training file; the number of values of a nominal one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Domain {
    Continuous { min: f32, max: f32 },
    Nominal { values: usize },
}

impl Domain {
    fn size(&self) -> f32 {
        match *self {
            Domain::Continuous { min, max } => max - min,
            Domain::Nominal { values } => values as f32,
        }
    }
}

/// The [`Domain`] of every attribute of `data` (missing values ignored; an
/// attribute missing everywhere gets [0, 0]).
pub fn attribute_domains(data: &Dataset) -> Vec<Domain> {
    let a = data.attribute_count();
    data.attributes
        .iter()
        .enumerate()
        .map(|(att, attribute)| match attribute {
            Attribute::Continuous { .. } => {
                let (min, max) = data
                    .values
                    .iter()
                    .skip(att)
                    .step_by(a.max(1))
                    .filter(|v| !v.is_nan())
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
                if min > max { Domain::Continuous { min: 0.0, max: 0.0 } } else { Domain::Continuous { min, max } }
            }
            Attribute::Nominal { values, .. } => Domain::Nominal { values: values.len().min(MAX_NOMINAL_VALUES) },
        })
        .collect()
}

/// BioHEL's theory length (MC; SRC
/// `classifier_hyperrect_list::computeTheoryLength`): the mean over all attributes
/// of how specific the rule is on it — 1 − (high − low) / (max − min) for an
/// interval (nothing for a domain of size 0), the share of disallowed values for a
/// nominal condition, 0 for an attribute the rule does not express.
pub fn theory_length(rule: &Rule, domains: &[Domain]) -> f64 {
    if domains.is_empty() {
        return 0.0;
    }
    let sum: f64 = rule
        .conditions
        .iter()
        .map(|c| match (*c, domains[c.attribute()]) {
            (Condition::Interval { low, high, .. }, d @ Domain::Continuous { .. }) if d.size() > 0.0 => {
                1.0 - f64::from(high - low) / f64::from(d.size())
            }
            (Condition::Values { mask, .. }, Domain::Nominal { values }) if values > 0 => {
                let allowed = (mask & low_bits(values)).count_ones() as usize;
                (values - allowed) as f64 / values as f64
            }
            _ => 0.0,
        })
        .sum();
    sum / domains.len() as f64
}

/// The bits 0..n of a nominal mask.
pub(super) fn low_bits(n: usize) -> u128 {
    if n >= 128 { u128::MAX } else { (1u128 << n) - 1 }
}

/// A rule's fitness components over the window it was last evaluated on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RuleScore {
    pub counts: Counts,
    pub theory_length: f64,
    pub exceptions_length: f64,
    pub fitness: f64,
}
