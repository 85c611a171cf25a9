//! Emigrant selection and immigrant merging of the ring migration (Section V.E).

use super::{Island, Purpose, inverse_tournament, tournament};
use crate::library::knapsack::Fitness;

/// Individuals travelling between islands: packed chromosomes and their fitness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migrants {
    /// `fitness.len()` chromosomes of the island's layout, one after another.
    pub genomes: Vec<u32>,
    /// Their fitness values.
    pub fitness: Vec<Fitness>,
}

impl Island {
    /// `count` emigrants: the best first, then binary-tournament winners (Section V.E.1).
    pub fn select_emigrants(&self, generation: u32, count: usize) -> Migrants {
        let words = self.parameters.layout.words;
        let mut migrants = Migrants { genomes: Vec::with_capacity(count * words), fitness: Vec::with_capacity(count) };
        for e in 0..count {
            let chosen = if e == 0 {
                self.best_index()
            } else {
                let r = self.rng.draw(generation, Purpose::Emigration, e as u32, 0);
                tournament(&self.fitness, r[0], r[1])
            };
            migrants.genomes.extend_from_slice(self.chromosome(chosen));
            migrants.fitness.push(self.fitness[chosen]);
        }
        migrants
    }

    /// Merges immigrants in order: each replaces the loser of an inverse tournament if strictly fitter
    /// (Section V.E.3).
    pub fn merge_immigrants(&mut self, generation: u32, immigrants: &Migrants) {
        let words = self.parameters.layout.words;
        for (j, (genome, &fitness)) in immigrants.genomes.chunks_exact(words).zip(&immigrants.fitness).enumerate() {
            let r = self.rng.draw(generation, Purpose::Immigration, j as u32, 0);
            let resident = inverse_tournament(&self.fitness, r[0], r[1]);
            if fitness > self.fitness[resident] {
                self.population[resident * words..][..words].copy_from_slice(genome);
                self.fitness[resident] = fitness;
            }
        }
    }
}
