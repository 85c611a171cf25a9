//! gBOA (Munawar et al. 2009, Section IV) on the GPU, two ways:
//!
//! - the whole pBOA network in one launch (`kernels/boa.cu`, the paper's
//!   decomposition of Section IV-A: one thread block per node finds its candidate
//!   parents, counts their configurations, reduces the gains to the best edge and
//!   repeats until no gain or k parents; groups of 8 lanes score one candidate
//!   family each, see [`Shape`]) — what [`build_pboa`] uses, through
//!   [`FamilyScorer::pboa_network`];
//! - batches of candidate families scored with gECGA's schema kernel
//!   (`kernels/ecga.cu`, one block per family), which sums a table over the
//!   schemata of a group of loci: once over `[node, parents…]` with ln c! and once
//!   over `[parents…]` with ln (c + 1)! — [`FamilyScorer::score`], used by
//!   [`self_check`] to compare single scores.
//!
//! [`crate::library::boa::family_score`] computes K2 as exactly those two sums in
//! the same order, so given the same population and permutation gBOA chooses the
//! same parents as CPU pBOA, bit for bit.

use super::ecga::GpuScorer;
use super::{Gpu, KernelSource, ensure_len, launch_err};
use crate::library::boa::{Family, FamilyScorer, LnFactorial, Network, build_pboa};
use crate::library::ecga::{DeviceStats, PairScorer, Population};
use anyhow::{Result, ensure};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, LaunchConfig, PushKernelArg};
use std::time::Instant;

/// `kernels/boa.cu`.
pub const BOA_CU: KernelSource = KernelSource { file: "boa.cu", code: include_str!("../../kernels/boa.cu") };
/// Most parents per node of the network kernel (its `BOA_MAX_K`).
const MAX_K: usize = 4;
/// Ints per node of the network kernel's output (its `BOA_OUT`).
const OUT: usize = MAX_K + 6;
/// Most warps per block of the network kernel (its `BOA_MAX_WARPS`).
const MAX_WARPS: u32 = 32;
/// Lanes per candidate family of the network kernel's entry points
/// (`boa_pboa_network_g8`, `boa_pboa_network_g32`).
pub const GROUPS: [u32; 2] = [8, 32];
/// The block shape the network kernel runs with: warps per block and lanes per
/// candidate family (see `docs/gpu-notes.md` for the measurement that chose it).
pub const SHAPE: Shape = Shape { warps: 16, group: 8 };
/// Most nodes of the network kernel: its candidate list is `ell` ints of dynamic
/// shared memory (at most 48 KiB without opting in).
const MAX_ELL: usize = 48 * 1024 / 4;

/// A block shape of the network kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Warps per block (1 ..= 32), one block per node.
    pub warps: u32,
    /// Lanes counting one candidate family (one of [`GROUPS`]).
    pub group: u32,
}

/// The network kernel's entry point for `group` lanes per candidate family.
fn network_kernel(group: u32) -> &'static str {
    if group == 8 { "boa_pboa_network_g8" } else { "boa_pboa_network_g32" }
}

/// Device buffers of the network kernel, kept between generations.
#[derive(Default)]
struct NetworkBuffers {
    words: Option<CudaSlice<u64>>,
    table: Option<CudaSlice<f64>>,
    /// n the uploaded table was built for.
    table_n: Option<usize>,
    perm: Option<CudaSlice<i32>>,
    /// The kernel's output rows, `OUT` ints per node.
    out: Option<CudaSlice<i32>>,
}

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
    gpu: &'g Gpu,
    network: NetworkBuffers,
    /// Block shape of the network kernel.
    shape: Shape,
    /// Events around each network launch, and the times and work summed so far.
    events: [CudaEvent; 2],
    stats: DeviceStats,
}

impl<'g> GpuFamilyScorer<'g> {
    pub fn new(gpu: &'g Gpu) -> Result<Self> {
        for group in GROUPS {
            gpu.function(&BOA_CU, network_kernel(group))?;
        }
        let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(launch_err("gBOA events"));
        Ok(GpuFamilyScorer {
            shape: SHAPE,
            events: [event()?, event()?],
            stats: DeviceStats::default(),
            joint: GpuScorer::new(gpu)?,
            parents: GpuScorer::new(gpu)?,
            empty_parents: f64::NAN,
            joint_groups: Vec::new(),
            parent_groups: Vec::new(),
            joint_out: Vec::new(),
            parent_out: Vec::new(),
            gpu,
            network: NetworkBuffers::default(),
        })
    }

    /// The same scorer with another block shape of the network kernel.
    pub fn with_shape(mut self, shape: Shape) -> Result<Self> {
        ensure!(
            (1..=MAX_WARPS).contains(&shape.warps) && GROUPS.contains(&shape.group),
            "gBOA network kernel: {shape:?} (warps 1 ..= {MAX_WARPS}, lanes per family one of {GROUPS:?})"
        );
        self.shape = shape;
        Ok(self)
    }

    /// [`build_pboa`]'s network from one launch of the network kernel.
    fn network(&mut self, pop: &Population, table: &LnFactorial, k: usize, perm: &[usize]) -> Result<Network> {
        let (n, ell) = (pop.n(), pop.ell());
        ensure!(table.n() == n, "ln-factorial table built for n = {} but the population has n = {n}", table.n());
        ensure!(perm.len() == ell, "perm has {} entries for {ell} nodes", perm.len());
        ensure!(ell <= MAX_ELL, "gBOA network kernel: ℓ = {ell} nodes, at most {MAX_ELL} (its candidate list in shared memory)");
        let e = launch_err("boa_pboa_network");
        let t0 = Instant::now();
        let packed = pop.packed();
        let (gpu, b) = (self.gpu, &mut self.network);
        if b.words.as_ref().is_none_or(|w| w.len() < packed.words.len()) {
            // Asked only when the buffers grow: cuMemGetInfo is a driver round trip.
            gpu.ensure_fits("population bit-packed by locus", packed.words.len() * 8)?;
        }
        let stream = &gpu.stream;
        ensure_len(gpu, &mut b.words, packed.words.len()).map_err(&e)?;
        ensure_len(gpu, &mut b.perm, ell).map_err(&e)?;
        ensure_len(gpu, &mut b.out, ell * OUT).map_err(&e)?;
        if b.table_n != Some(n) {
            b.table = Some(stream.clone_htod(&table.table()[..n + 2]).map_err(&e)?);
            b.table_n = Some(n);
        }
        let (Some(words), Some(t), Some(d_perm), Some(out)) = (&mut b.words, &b.table, &mut b.perm, &mut b.out) else {
            unreachable!("allocated above")
        };
        stream.memcpy_htod(&packed.words, &mut words.slice_mut(0..packed.words.len())).map_err(&e)?;
        let perm32: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
        stream.memcpy_htod(&perm32, &mut d_perm.slice_mut(0..ell)).map_err(&e)?;
        let func = gpu.function(&BOA_CU, network_kernel(self.shape.group))?;
        let (ell32, n32, wpl, k32) = (ell as i32, n as i32, packed.words_per_locus as i32, k as i32);
        let mut launch = stream.launch_builder(&func);
        launch.arg(&*words).arg(t).arg(&*d_perm).arg(&ell32).arg(&n32).arg(&wpl).arg(&k32).arg(&mut *out);
        let cfg = LaunchConfig { grid_dim: (ell as u32, 1, 1), block_dim: (self.shape.warps * 32, 1, 1), shared_mem_bytes: ell as u32 * 4 };
        self.events[0].record(stream).map_err(&e)?;
        // SAFETY: block i < ell reads loci < ell (node i, perm-allowed j < ell and its
        // parents), so words[locus·wpl + w] for w < wpl stays inside ell·wpl words;
        // counts ≤ n, so t[c] and t[c_0 + c_1 + 1] index the n + 2 entries of t;
        // perm has ell entries; block i writes out[i·OUT..][..OUT] only; k ≤ MAX_K
        // (checked by the caller); 32 ≤ blockDim ≤ 32·MAX_WARPS, a multiple of 32
        // (`with_shape`); the candidate list s_list[0..m), m < ell, lies in the
        // ell·4 bytes of dynamic shared memory.
        unsafe { launch.launch(cfg) }.map_err(&e)?;
        self.events[1].record(stream).map_err(&e)?;
        let rows = stream.clone_dtoh(&out.slice(0..ell * OUT)).map_err(&e)?;
        self.stats.kernel_ms += f64::from(self.events[0].elapsed_ms(&self.events[1]).map_err(&e)?);
        self.stats.calls_ms += t0.elapsed().as_secs_f64() * 1e3;
        // Row of node i: parents, then [parents, rounds, scored, loci read], then the score's bits.
        let rows: Vec<&[i32]> = rows.chunks_exact(OUT).collect();
        let count = |row: &[i32], c: usize| row[MAX_K + c];
        self.stats.alleles += rows.iter().map(|r| f64::from(count(r, 3))).sum::<f64>() * n as f64;
        let score_of = |row: &[i32]| f64::from_bits(u64::from(row[MAX_K + 4] as u32) | (u64::from(row[MAX_K + 5] as u32) << 32));
        Ok(Network {
            parents: rows.iter().map(|r| r[..count(r, 0) as usize].iter().map(|&j| j as usize).collect()).collect(),
            score: rows.iter().fold(0.0, |sum, r| sum + score_of(r)),
            families_scored: ell as u64 + rows.iter().map(|r| count(r, 2) as u64).sum::<u64>(),
            steps: rows.iter().map(|r| count(r, 1) as usize).max().unwrap_or(0),
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

    fn pboa_network(&mut self, pop: &Population, table: &LnFactorial, k: usize, perm: &[usize]) -> Option<Result<Network>> {
        (k <= MAX_K).then(|| self.network(pop, table, k, perm))
    }

    fn device_stats(&self) -> Option<DeviceStats> {
        Some(self.stats)
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
    /// Whether the network kernel built the network CPU pBOA builds (parents,
    /// score bits, families scored and rounds), on planted linkage and on the
    /// uniformly random population (many near-equal gains: the tie rule).
    pub identical_network: bool,
    pub edges: usize,
}

/// Checks gBOA against the CPU on fresh random inputs: random families of every
/// size up to `k` + 1 loci must score bit-identically, and pBOA on a population
/// with planted trap-5 linkage must build the identical network.
pub fn self_check(gpu: &Gpu, seed: u64, sizes: &[(usize, usize)], k: usize) -> Result<Vec<CheckLine>> {
    use crate::library::boa::{CpuFamilyScorer, random_permutation};
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
        let planted = Population::planted(n, ell, 5, rng.random())?;
        let perm = random_permutation(ell, &mut rng);
        let same = |a: &Network, b: &Network| {
            a.parents == b.parents && a.score.to_bits() == b.score.to_bits() && a.families_scored == b.families_scored && a.steps == b.steps
        };
        let a = build_pboa(&planted, &mut cpu, k, &table, &perm)?;
        let random_perm = random_permutation(ell, &mut rng);
        let c = build_pboa(&pop, &mut cpu, k, &table, &random_perm)?;
        // Every block shape splits the candidates differently among the groups:
        // each must reduce to the same edges (the tie rule across groups).
        let mut identical = true;
        for shape in shape_choices() {
            let mut dev = GpuFamilyScorer::new(gpu)?.with_shape(shape)?;
            let b = build_pboa(&planted, &mut dev, k, &table, &perm)?;
            let d = build_pboa(&pop, &mut dev, k, &table, &random_perm)?;
            identical &= same(&a, &b) && same(&c, &d);
        }
        lines.push(CheckLine { n, ell, families: families.len(), differing, identical_network: identical, edges: a.edges() });
    }
    Ok(lines)
}

/// Block shapes the self-check builds every network with, and [`time_shapes`] times.
pub fn shape_choices() -> Vec<Shape> {
    GROUPS.into_iter().flat_map(|group| [8, 16, 32].map(|warps| Shape { warps, group })).collect()
}

/// Mean wall time (ms) of one pBOA network on the device per block shape of
/// [`shape_choices`], with the device's share: `repeats` networks of a random
/// population of `n` × `ell` with planted trap-5 linkage, after one untimed warm-up each.
pub fn time_shapes(gpu: &Gpu, seed: u64, n: usize, ell: usize, k: usize, repeats: usize) -> Result<Vec<(Shape, f64, DeviceStats)>> {
    use crate::library::boa::random_permutation;
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let table = LnFactorial::new(n);
    let pop = Population::planted(n, ell, 5, rng.random())?;
    let perm = random_permutation(ell, &mut rng);
    let mut out = Vec::new();
    for shape in shape_choices() {
        let mut dev = GpuFamilyScorer::new(gpu)?.with_shape(shape)?;
        build_pboa(&pop, &mut dev, k, &table, &perm)?;
        let before = dev.stats;
        let t0 = Instant::now();
        for _ in 0..repeats {
            build_pboa(&pop, &mut dev, k, &table, &perm)?;
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3 / repeats as f64;
        let per = |x: f64, y: f64| (x - y) / repeats as f64;
        let stats = DeviceStats {
            kernel_ms: per(dev.stats.kernel_ms, before.kernel_ms),
            calls_ms: per(dev.stats.calls_ms, before.calls_ms),
            alleles: per(dev.stats.alleles, before.alleles),
        };
        out.push((shape, ms, stats));
    }
    Ok(out)
}

/// Sizes for [`self_check`]: `small` for compute-sanitizer.
pub fn self_check_sizes(small: bool) -> Vec<(usize, usize)> {
    let mut v = vec![(1, 5), (63, 10), (65, 20), (2400, 30)];
    if !small {
        v.extend([(2400, 90), (4097, 60), (9600, 120)]);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_kernel() {
        assert!(BOA_CU.code.contains(&format!("#define BOA_MAX_K {MAX_K}\n")));
        assert!(BOA_CU.code.contains(&format!("#define BOA_MAX_WARPS {MAX_WARPS}\n")));
        assert!(BOA_CU.code.contains("#define BOA_OUT (BOA_MAX_K + 6)\n") && OUT == MAX_K + 6);
        assert!(BOA_CU.code.contains(&format!("#define BOA_MIN_GROUP {}\n", GROUPS[0])));
        for shape in shape_choices().into_iter().chain([SHAPE]) {
            assert!((1..=MAX_WARPS).contains(&shape.warps) && GROUPS.contains(&shape.group), "{shape:?}");
            assert!(BOA_CU.code.contains(&format!("BOA_NETWORK({})", shape.group)));
        }
    }
}
