//! The paper's GA and the labelled variants beyond it, with the greedy repair the variants use (Michalewicz 1996,
//! Section 4.5).

use crate::library::knapsack::{Evaluator, Instance, WORD_BITS};

/// The GA as published, or a variant that users of knapsack GAs expect (beyond the paper; labelled in every report).
/// Both variants use the repair of [`Repair`] (Michalewicz, *Genetic Algorithms + Data Structures = Evolution
/// Programs*, 3rd ed. 1996, Section 4.5: greedy repair by price/weight); repaired individuals replace the originals
/// (Lamarckian), and their fitness is their price.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// Jaros 2012 unchanged: random initial population, overweight solutions penalised (Section V.C).
    #[default]
    Paper,
    /// Every initial individual and every offspring repaired before evaluation: all individuals are feasible.
    Repair,
    /// The initial individuals repaired, offspring penalised as in the paper.
    FeasibleInit,
}

impl Variant {
    /// Every variant, the paper's first.
    pub const ALL: [Variant; 3] = [Variant::Paper, Variant::Repair, Variant::FeasibleInit];

    /// The label of records and reports.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Paper => "paper",
            Variant::Repair => "repair",
            Variant::FeasibleInit => "feasible-init",
        }
    }

    /// The variant of a label.
    pub fn parse(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Whether the initial population is repaired.
    pub fn repairs_initial(self) -> bool {
        self != Variant::Paper
    }

    /// Whether every offspring is repaired.
    pub fn repairs_offspring(self) -> bool {
        self == Variant::Repair
    }
}

/// Greedy repair (Michalewicz 1996, Section 4.5): while a solution is overweight, drop its packed item of the lowest
/// price/weight (ties: the lowest index first); weightless items are never dropped. Deterministic, so every backend
/// repairs alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repair {
    /// Items of positive weight by increasing price/weight, ties by index.
    order: Vec<u32>,
}

impl Repair {
    /// The drop order of `instance`.
    pub fn new(instance: &Instance) -> Repair {
        let (p, w) = (&instance.prices, &instance.weights);
        let mut order: Vec<u32> = (0..instance.item_count() as u32).filter(|&i| w[i as usize] > 0).collect();
        // p_a/w_a < p_b/w_b ⇔ p_a·w_b < p_b·w_a; the sort is stable, so ties keep the index order.
        order.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            (u64::from(p[a]) * u64::from(w[b])).cmp(&(u64::from(p[b]) * u64::from(w[a])))
        });
        Repair { order }
    }

    /// The items in drop order.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Drops items of `chromosome` until it is feasible; returns how many it dropped.
    pub fn repair(&self, evaluator: &Evaluator<'_>, chromosome: &mut [u32]) -> usize {
        let instance = evaluator.instance();
        let mut weight = evaluator.evaluate(chromosome).weight;
        let mut dropped = 0;
        for &i in &self.order {
            if weight <= instance.capacity {
                break;
            }
            let (word, bit) = (i as usize / WORD_BITS, 1u32 << (i as usize % WORD_BITS));
            if chromosome[word] & bit != 0 {
                chromosome[word] &= !bit;
                weight -= u64::from(instance.weights[i as usize]);
                dropped += 1;
            }
        }
        dropped
    }
}
