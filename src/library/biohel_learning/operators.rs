//! The GA's operators on BioHEL's attribute-list rules (ALKR; SRC `classifier_hyperrect_list`): crossover,
//! mutation, generalize and specialize.

use super::fitness::low_bits;
use super::{CLASS_MUTATION_PROBABILITY, Domain, LearningConfig};
use crate::library::biohel::{Condition, Rule};
use rand::RngExt;
use rand::rngs::StdRng;

/// Operators on BioHEL's attribute-list rules; `conditions` are kept sorted by
/// attribute, as [`random_rule`] creates them.
///
/// [`random_rule`]: crate::library::biohel::random_rule
pub(super) struct Operators<'a> {
    pub(super) domains: &'a [Domain],
    /// Classes a rule may predict (all but the default class).
    pub(super) rule_classes: Vec<u16>,
    pub(super) cfg: &'a LearningConfig,
}

impl Operators<'_> {
    /// `classifier_hyperrect_list::crossover_1px`: a cut attribute drawn from the
    /// first parent's list; offspring 1 takes parent 1's conditions up to the cut
    /// and parent 2's from there, offspring 2 the converse; when both parents
    /// express the cut attribute its condition is itself crossed (intervals: swap,
    /// exchange one bound, or keep, one third each; nominal masks: one-point
    /// crossover of the value bits). The classes are inherited or swapped with
    /// probability 1/2 each.
    pub(super) fn crossover(&self, p1: &Rule, p2: &Rule, rng: &mut StdRng) -> (Rule, Rule) {
        let (a, b) = if p1.conditions.is_empty() { (p2, p1) } else { (p1, p2) };
        if a.conditions.is_empty() {
            return (Rule { class: p1.class, conditions: Vec::new() }, Rule { class: p2.class, conditions: Vec::new() });
        }
        let pos1 = rng.random_range(0..a.conditions.len());
        let cut = a.conditions[pos1].attribute();
        let pos2 = b.conditions.iter().position(|c| c.attribute() >= cut).unwrap_or(b.conditions.len());
        let same = b.conditions.get(pos2).is_some_and(|c| c.attribute() == cut);
        let mut out1: Vec<Condition> = a.conditions[..pos1].to_vec();
        let mut out2: Vec<Condition> = b.conditions[..pos2].to_vec();
        if same {
            let (c1, c2) = self.cross_condition(a.conditions[pos1], b.conditions[pos2], rng);
            out1.push(c1);
            out2.push(c2);
            out1.extend_from_slice(&b.conditions[pos2 + 1..]);
        } else {
            out1.push(a.conditions[pos1]);
            out1.extend_from_slice(&b.conditions[pos2..]);
        }
        out2.extend_from_slice(&a.conditions[pos1 + 1..]);
        let (c1, c2) = if rng.random::<f64>() < 0.5 { (a.class, b.class) } else { (b.class, a.class) };
        (Rule { class: c1, conditions: out1 }, Rule { class: c2, conditions: out2 })
    }

    fn cross_condition(&self, x: Condition, y: Condition, rng: &mut StdRng) -> (Condition, Condition) {
        match (x, y) {
            (Condition::Interval { attribute, low: l1, high: h1 }, Condition::Interval { low: l2, high: h2, .. }) => {
                let interval = |low: f32, high: f32| Condition::Interval { attribute, low: low.min(high), high: low.max(high) };
                match rng.random_range(0..3) {
                    0 => (y, x),
                    1 => (interval(l1, h2), interval(l2, h1)),
                    _ => (x, y),
                }
            }
            (Condition::Values { attribute, mask: m1 }, Condition::Values { mask: m2, .. }) => {
                let size = match self.domains[attribute as usize] {
                    Domain::Nominal { values } => values,
                    Domain::Continuous { .. } => 0,
                };
                let low = low_bits(rng.random_range(0..=size));
                (
                    Condition::Values { attribute, mask: (m1 & low) | (m2 & !low) },
                    Condition::Values { attribute, mask: (m2 & low) | (m1 & !low) },
                )
            }
            // Both conditions are on the same attribute, hence of the same kind.
            _ => (x, y),
        }
    }

    /// `classifier_hyperrect_list::mutation`: with probability 0.1 (when at least
    /// two classes may be predicted) a new class; otherwise one gene of a random
    /// expressed attribute — an interval bound moved up or down by U(0, ½ · domain
    /// size), clamped to the domain, the bounds swapped if they cross; or one value
    /// bit of a nominal mask flipped.
    pub(super) fn mutate(&self, rule: &mut Rule, rng: &mut StdRng) {
        if self.rule_classes.len() > 1 && rng.random::<f64>() < CLASS_MUTATION_PROBABILITY {
            let others: Vec<u16> = self.rule_classes.iter().copied().filter(|&c| c != rule.class).collect();
            rule.class = others[rng.random_range(0..others.len())];
            return;
        }
        if rule.conditions.is_empty() {
            return;
        }
        let i = rng.random_range(0..rule.conditions.len());
        let domain = self.domains[rule.conditions[i].attribute()];
        match (&mut rule.conditions[i], domain) {
            (Condition::Interval { low, high, .. }, Domain::Continuous { min, max }) => {
                let upper = rng.random_range(0..2) == 1;
                let offset = 0.5 * (max - min);
                let value = if upper { *high } else { *low };
                let moved =
                    if rng.random::<f64>() < 0.5 { value + rng.random::<f32>() * offset } else { value - rng.random::<f32>() * offset };
                let moved = moved.clamp(min, max);
                if upper {
                    *high = moved
                } else {
                    *low = moved
                }
                if *low > *high {
                    std::mem::swap(low, high);
                }
            }
            (Condition::Values { mask, .. }, Domain::Nominal { values }) if values > 0 => {
                *mask ^= 1u128 << rng.random_range(0..values);
            }
            _ => {}
        }
    }

    /// Special stage 0, generalize (ALKR; SRC `doSpecialStage(0)`): with its
    /// probability, drop a random expressed attribute.
    pub(super) fn generalize(&self, rule: &mut Rule, rng: &mut StdRng) {
        if !rule.conditions.is_empty() && rng.random::<f64>() < self.cfg.generalize_probability {
            let i = rng.random_range(0..rule.conditions.len());
            rule.conditions.remove(i);
        }
    }

    /// Special stage 1, specialize (ALKR; SRC `doSpecialStage(1)`): with its
    /// probability, express a random unexpressed attribute — an interval of width
    /// U(0.25, 0.75) · domain size placed uniformly in the domain, or a nominal
    /// mask allowing each value with probability `prob_one`.
    pub(super) fn specialize(&self, rule: &mut Rule, rng: &mut StdRng) {
        let attributes = self.domains.len();
        if rule.conditions.len() >= attributes || rng.random::<f64>() >= self.cfg.specialize_probability {
            return;
        }
        let attribute = loop {
            let a = rng.random_range(0..attributes);
            if !rule.conditions.iter().any(|c| c.attribute() == a) {
                break a;
            }
        };
        let att = attribute as u32;
        let condition = match self.domains[attribute] {
            Domain::Continuous { min, max } => {
                let size_d = max - min;
                let size = (rng.random::<f32>() * 0.5 + 0.25) * size_d;
                let low = rng.random::<f32>() * (size_d - size) + min;
                Condition::Interval { attribute: att, low, high: low + size }
            }
            Domain::Nominal { values } => {
                let mask = (0..values).filter(|_| rng.random::<f64>() < self.cfg.prob_one).fold(0u128, |m, v| m | 1 << v);
                Condition::Values { attribute: att, mask }
            }
        };
        let at = rule.conditions.iter().position(|c| c.attribute() > attribute).unwrap_or(rule.conditions.len());
        rule.conditions.insert(at, condition);
    }
}
