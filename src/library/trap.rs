//! Concatenated trap-k, the test problem of Shao & Yu (GECCO 2013), Section 5.2,
//! equation (2): `m` subproblems of `k` bits each, tightly linked (block `i` is loci
//! `i·k .. i·k + k`), each scored `k` when all `u = k` bits are one and `k − 1 − u`
//! otherwise. An "(m, k)-trap" in the paper's words.

use std::ops::Range;

/// The (m, k)-trap of Section 5.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trap {
    /// Order of a subproblem (5 in the paper).
    pub k: usize,
    /// Number of subproblems.
    pub m: usize,
}

impl Trap {
    /// Problem size ℓ = m·k.
    pub fn ell(&self) -> usize {
        self.m * self.k
    }

    /// The subproblem (building block) that `locus` belongs to.
    pub fn block_of(&self, locus: usize) -> usize {
        locus / self.k
    }

    /// The loci of subproblem `block`.
    pub fn block(&self, block: usize) -> Range<usize> {
        block * self.k..(block + 1) * self.k
    }

    /// Equation (2) for one subproblem with `u` ones.
    pub fn subfunction(&self, u: usize) -> u32 {
        let f = if u == self.k { self.k } else { self.k - 1 - u };
        f as u32
    }

    /// Fitness of a string of ℓ alleles (0/1): the sum of the m subfunctions.
    pub fn fitness(&self, bits: &[u8]) -> u32 {
        debug_assert_eq!(bits.len(), self.ell());
        bits.chunks_exact(self.k).map(|b| self.subfunction(ones(b))).sum()
    }

    /// Number of subproblems solved (all ones, the global optimum of each trap).
    pub fn solved(&self, bits: &[u8]) -> usize {
        debug_assert_eq!(bits.len(), self.ell());
        bits.chunks_exact(self.k).filter(|b| ones(b) == self.k).count()
    }
}

fn ones(block: &[u8]) -> usize {
    block.iter().map(|&a| a as usize).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trap5_values_follow_equation_2() {
        let trap = Trap { k: 5, m: 1 };
        let expected = [4, 3, 2, 1, 0, 5];
        for (u, &f) in expected.iter().enumerate() {
            let bits: Vec<u8> = (0..5).map(|i| u8::from(i < u)).collect();
            assert_eq!(trap.fitness(&bits), f, "u = {u}");
            assert_eq!(trap.subfunction(u), f);
        }
    }

    #[test]
    fn blocks_are_tightly_linked_and_summed() {
        let trap = Trap { k: 4, m: 3 };
        assert_eq!(trap.ell(), 12);
        assert_eq!(trap.block_of(7), 1);
        assert_eq!(trap.block(2), 8..12);
        // Block 0 all ones (4), block 1 one ones (3 − 1 = 2), block 2 all zeros (3).
        let bits = [1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0];
        assert_eq!(trap.fitness(&bits), 4 + 2 + 3);
        assert_eq!(trap.solved(&bits), 1);
        assert_eq!(trap.solved(&[1; 12]), 3);
        assert_eq!(trap.fitness(&[1; 12]), 12);
    }
}
