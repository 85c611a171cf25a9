//! gBOA (Munawar et al. 2009, Section IV): the K2 scores of candidate families
//! computed on the GPU, batched over every node of a pBOA round (the paper's one
//! thread block per node, here one block per candidate family).
//!
//! It reuses gECGA's schema kernel (`kernels/ecga.cu`), which sums a table over
//! the schemata of a group of loci: once over `[node, parents…]` with ln c! and
//! once over `[parents…]` with ln (c + 1)!. [`crate::library::boa::family_score`]
//! computes K2 as exactly that difference, so given the same population and
//! permutation gBOA chooses the same parents as CPU pBOA, bit for bit.

use super::Gpu;
use super::ecga::GpuScorer;
use crate::library::boa::{Family, FamilyScorer, LnFactorial};
use crate::library::ecga::{PairScorer, Population};
use anyhow::{Result, ensure};

/// Two table sums on the device: the joint counts and the parent counts.
pub struct GpuFamilyScorer<'g> {
    joint: GpuScorer<'g>,
    parents: GpuScorer<'g>,
    /// ln (N + 1)!: the parent sum of a family without parents (one configuration).
    empty_parents: f64,
    joint_groups: Vec<Vec<usize>>,
    parent_groups: Vec<Vec<usize>>,
    joint_out: Vec<f64>,
    parent_out: Vec<f64>,
}

impl<'g> GpuFamilyScorer<'g> {
    pub fn new(gpu: &'g Gpu) -> Result<Self> {
        Ok(GpuFamilyScorer {
            joint: GpuScorer::new(gpu)?,
            parents: GpuScorer::new(gpu)?,
            empty_parents: f64::NAN,
            joint_groups: Vec::new(),
            parent_groups: Vec::new(),
            joint_out: Vec::new(),
            parent_out: Vec::new(),
        })
    }
}

impl FamilyScorer for GpuFamilyScorer<'_> {
    fn name(&self) -> String {
        format!("gboa ({})", self.joint.device_name())
    }

    fn load(&mut self, pop: &Population, table: &LnFactorial) -> Result<()> {
        let n = pop.n();
        ensure!(table.n() == n, "ln-factorial table built for n = {} but the population has n = {n}", table.n());
        let t = table.table();
        self.joint.load_population(pop)?;
        self.joint.load_table(&t[..=n])?;
        self.parents.load_population(pop)?;
        self.parents.load_table(&t[1..=n + 1])?;
        self.empty_parents = t[n + 1];
        Ok(())
    }

    fn score(&mut self, families: &[Family], out: &mut Vec<f64>) -> Result<()> {
        self.joint_groups.clear();
        self.parent_groups.clear();
        for f in families {
            self.joint_groups.push(std::iter::once(f.node).chain(f.parents.iter().copied()).collect());
            if !f.parents.is_empty() {
                self.parent_groups.push(f.parents.clone());
            }
        }
        self.joint.score_groups(&self.joint_groups, &mut self.joint_out)?;
        self.parents.score_groups(&self.parent_groups, &mut self.parent_out)?;
        let mut parent_sums = self.parent_out.iter();
        out.clear();
        for (f, joint) in families.iter().zip(&self.joint_out) {
            let parents =
                if f.parents.is_empty() { self.empty_parents } else { *parent_sums.next().expect("one sum per family with parents") };
            out.push(joint - parents);
        }
        Ok(())
    }
}

/// One population checked by [`self_check`].
#[derive(Clone, Debug)]
pub struct CheckLine {
    pub n: usize,
    pub ell: usize,
    /// Families scored, and those whose GPU score differs (bitwise) from the CPU's.
    pub families: usize,
    pub differing: usize,
    /// Whether pBOA built the identical network with both scorers.
    pub identical_network: bool,
    pub edges: usize,
}

/// Checks gBOA against the CPU on fresh random inputs: random families of every
/// size up to `k` + 1 loci must score bit-identically, and pBOA on a population
/// with planted trap-5 linkage must build the identical network.
pub fn self_check(gpu: &Gpu, seed: u64, sizes: &[(usize, usize)], k: usize) -> Result<Vec<CheckLine>> {
    use crate::library::boa::{CpuFamilyScorer, build_pboa, random_permutation};
    use crate::library::ecga::{Popcount, PrefixFastCount};
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut lines = Vec::new();
    for (i, &(n, ell)) in sizes.iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(i as u64));
        let table = LnFactorial::new(n);
        let mut cpu = CpuFamilyScorer::new(PrefixFastCount { popcount: Popcount::Hardware });
        let mut dev = GpuFamilyScorer::new(gpu)?;
        // Random families on a uniformly random population.
        let pop = Population::random(n, ell, rng.random())?;
        let families: Vec<Family> = (0..64)
            .map(|_| {
                let loci = super::ecga::random_group(ell, rng.random_range(1..=k.min(ell - 1) + 1), &mut rng);
                Family { node: loci[0], parents: loci[1..].to_vec() }
            })
            .collect();
        let (mut want, mut got) = (Vec::new(), Vec::new());
        cpu.load(&pop, &table)?;
        dev.load(&pop, &table)?;
        cpu.score(&families, &mut want)?;
        dev.score(&families, &mut got)?;
        let differing = want.iter().zip(&got).filter(|(a, b)| a.to_bits() != b.to_bits()).count() + want.len().abs_diff(got.len());
        // Whole pBOA networks on planted linkage.
        let planted = super::ecga::planted_population(n, ell, &mut rng)?;
        let perm = random_permutation(ell, &mut rng);
        let a = build_pboa(&planted, &mut cpu, k, &table, &perm)?;
        let b = build_pboa(&planted, &mut dev, k, &table, &perm)?;
        let identical_network = a.parents == b.parents && a.score.to_bits() == b.score.to_bits();
        lines.push(CheckLine { n, ell, families: families.len(), differing, identical_network, edges: a.edges() });
    }
    Ok(lines)
}

/// Sizes for [`self_check`]: `small` for compute-sanitizer.
pub fn self_check_sizes(small: bool) -> Vec<(usize, usize)> {
    let mut v = vec![(1, 5), (63, 10), (65, 20), (2400, 30)];
    if !small {
        v.extend([(2400, 90), (4097, 60), (9600, 120)]);
    }
    v
}
