//! gBOA's network kernel (Section IV-A): the whole pBOA network in one launch, in
//! this harness's design or the paper's, and single families scored with gECGA's
//! schema kernel.

use super::{BOA_CU, GROUPS, MAX_ELL, MAX_K, MAX_WARPS, OUT, PAPER_MAX_ELL, PAPER_THREADS, SHAPE};
use crate::gpu::gecga::GpuScorer;
use crate::gpu::{Gpu, GpuError, ensure_len, launch_err};
#[cfg(doc)]
use crate::library::boa::build_pboa;
use crate::library::boa::{Family, FamilyScorer, LnFactorial, Network};
use crate::library::ecga::{DeviceStats, PairScorer, Population};
use anyhow::{Result, ensure};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use std::time::Instant;

/// How the network kernel is built (both give [`build_pboa`]'s network bit for bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// This harness's design (`gboa`): the population bit-packed by locus, groups of
    /// lanes counting a candidate family's schemata by popcounts, in this block shape.
    Packed(Shape),
    /// The paper's (`gboa-paper`, Section IV-A, V): [`PAPER_THREADS`] threads a block
    /// split the population (a byte per allele, locus-major) and count the parent
    /// configurations in shared memory with atomics.
    Paper,
}

impl std::fmt::Display for Design {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Design::Packed(s) => write!(f, "gboa warps={:2} lanes/family={:2}", s.warps, s.group),
            Design::Paper => write!(f, "gboa-paper threads={PAPER_THREADS}"),
        }
    }
}

/// A block shape of the network kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Warps per block (1 ..= 32), one block per node.
    pub warps: u32,
    /// Lanes counting one candidate family (one of [`GROUPS`]).
    pub group: u32,
}

/// The network kernel's entry point for `group` lanes per candidate family.
pub(super) fn network_kernel(group: u32) -> &'static str {
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
    /// The paper's design: the population a byte per allele, locus-major.
    alleles: Option<CudaSlice<u8>>,
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
    /// The network kernel's design (and block shape).
    design: Design,
    /// Events around each network launch, and the times and work summed so far.
    events: [CudaEvent; 2],
    pub(super) stats: DeviceStats,
}

impl<'g> GpuFamilyScorer<'g> {
    pub fn new(gpu: &'g Gpu) -> Result<Self> {
        for group in GROUPS {
            gpu.function(&BOA_CU, network_kernel(group))?;
        }
        gpu.function(&BOA_CU, "boa_pboa_network_paper")?;
        let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(launch_err("gBOA events"));
        Ok(GpuFamilyScorer {
            design: Design::Packed(SHAPE),
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
        self.design = Design::Packed(shape);
        Ok(self)
    }

    /// The same scorer with the paper's network kernel (`gboa-paper`).
    pub fn paper_design(mut self) -> Self {
        self.design = Design::Paper;
        self
    }

    /// What both designs' launches share before the population's upload: the
    /// checks, the permutation, the ln-factorial table (uploaded when N changed)
    /// and room for the output rows.
    fn prepare_network(
        &mut self,
        n: usize,
        ell: usize,
        table: &LnFactorial,
        perm: &[usize],
        e: &impl Fn(DriverError) -> GpuError,
    ) -> Result<()> {
        ensure!(table.n() == n, "ln-factorial table built for n = {} but the population has n = {n}", table.n());
        ensure!(perm.len() == ell, "perm has {} entries for {ell} nodes", perm.len());
        let (gpu, b) = (self.gpu, &mut self.network);
        let stream = &gpu.stream;
        ensure_len(gpu, &mut b.perm, ell).map_err(e)?;
        ensure_len(gpu, &mut b.out, ell * OUT).map_err(e)?;
        if b.table_n != Some(n) {
            b.table = Some(stream.clone_htod(&table.table()[..n + 2]).map_err(e)?);
            b.table_n = Some(n);
        }
        let perm32: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
        let d_perm = b.perm.as_mut().expect("allocated above");
        stream.memcpy_htod(&perm32, &mut d_perm.slice_mut(0..ell)).map_err(e)?;
        Ok(())
    }

    /// What both designs' launches share after the launch: the rows back, the
    /// kernel's time (events) and the host time since `t0` and the alleles read
    /// in the stats, and the network the rows give.
    fn finish_network(&mut self, n: usize, ell: usize, t0: Instant, e: &impl Fn(DriverError) -> GpuError) -> Result<Network> {
        let stream = &self.gpu.stream;
        self.events[1].record(stream).map_err(e)?;
        let out = self.network.out.as_ref().expect("allocated by prepare_network");
        let rows = stream.clone_dtoh(&out.slice(0..ell * OUT)).map_err(e)?;
        self.stats.kernel_ms += f64::from(self.events[0].elapsed_ms(&self.events[1]).map_err(e)?);
        self.stats.calls_ms += t0.elapsed().as_secs_f64() * 1e3;
        let rows: Vec<&[i32]> = rows.chunks_exact(OUT).collect();
        self.stats.alleles += rows.iter().map(|r| f64::from(r[MAX_K + 3])).sum::<f64>() * n as f64;
        Ok(network_of_rows(&rows))
    }

    /// [`build_pboa`]'s network from one launch of the paper's network kernel: the
    /// population uploaded a byte per allele, locus-major ([`locus_major`]).
    fn paper_network(&mut self, pop: &Population, table: &LnFactorial, k: usize, perm: &[usize]) -> Result<Network> {
        let (n, ell) = (pop.n(), pop.ell());
        ensure!(ell <= PAPER_MAX_ELL, "gboa-paper network kernel: ℓ = {ell} nodes, at most {PAPER_MAX_ELL} (its List_DS in shared memory)");
        ensure!(
            n.checked_mul(ell).is_some_and(|a| a <= i32::MAX as usize),
            "gboa-paper network kernel: N·ℓ = {n}·{ell} alleles exceed 2^31"
        );
        let e = launch_err("boa_pboa_network_paper");
        let t0 = Instant::now();
        self.prepare_network(n, ell, table, perm, &e)?;
        let bytes = locus_major(pop);
        let (gpu, b) = (self.gpu, &mut self.network);
        if b.alleles.as_ref().is_none_or(|a| a.len() < bytes.len()) {
            gpu.ensure_fits("population, a byte per allele", bytes.len())?;
        }
        let stream = &gpu.stream;
        ensure_len(gpu, &mut b.alleles, bytes.len()).map_err(&e)?;
        let (Some(alleles), Some(t), Some(d_perm), Some(out)) = (&mut b.alleles, &b.table, &b.perm, &mut b.out) else {
            unreachable!("allocated above")
        };
        stream.memcpy_htod(&bytes, &mut alleles.slice_mut(0..bytes.len())).map_err(&e)?;
        let func = gpu.function(&BOA_CU, "boa_pboa_network_paper")?;
        let (ell32, n32, k32) = (ell as i32, n as i32, k as i32);
        let mut launch = stream.launch_builder(&func);
        launch.arg(&*alleles).arg(t).arg(d_perm).arg(&ell32).arg(&n32).arg(&k32).arg(&mut *out);
        let cfg = LaunchConfig { grid_dim: (ell as u32, 1, 1), block_dim: (PAPER_THREADS, 1, 1), shared_mem_bytes: ell as u32 * 4 };
        self.events[0].record(stream).map_err(&e)?;
        // SAFETY: block i < ell reads alleles[l·n + i'] for loci l < ell (node i, its
        // parents, perm-allowed j < ell) and individuals i' < n, inside the ell·n bytes
        // uploaded (N·ℓ < 2^31 checked above); every allele is masked to one bit, so a
        // configuration index stays below 2^(k + 1) ≤ 32 and a pass's counters below
        // BOA_PAPER_COUNTS; counts ≤ n, so t[c] and t[c_0 + c_1 + 1] index the n + 2
        // entries of t; perm has ell entries; block i writes out[i·OUT..][..OUT] only;
        // k ≤ MAX_K (checked by the caller); blockDim = BOA_PAPER_THREADS, whole warps;
        // List_DS s_list[0..m), m < ell, lies in the ell·4 bytes of dynamic shared memory.
        unsafe { launch.launch(cfg) }.map_err(&e)?;
        self.finish_network(n, ell, t0, &e)
    }

    /// [`build_pboa`]'s network from one launch of the network kernel.
    fn network(&mut self, pop: &Population, table: &LnFactorial, k: usize, perm: &[usize]) -> Result<Network> {
        let Design::Packed(shape) = self.design else { return self.paper_network(pop, table, k, perm) };
        let (n, ell) = (pop.n(), pop.ell());
        ensure!(ell <= MAX_ELL, "gBOA network kernel: ℓ = {ell} nodes, at most {MAX_ELL} (its candidate list in shared memory)");
        let e = launch_err("boa_pboa_network");
        let t0 = Instant::now();
        self.prepare_network(n, ell, table, perm, &e)?;
        let packed = pop.packed();
        let (gpu, b) = (self.gpu, &mut self.network);
        if b.words.as_ref().is_none_or(|w| w.len() < packed.words.len()) {
            // Asked only when the buffers grow: cuMemGetInfo is a driver round trip.
            gpu.ensure_fits("population bit-packed by locus", packed.words.len() * 8)?;
        }
        let stream = &gpu.stream;
        ensure_len(gpu, &mut b.words, packed.words.len()).map_err(&e)?;
        let (Some(words), Some(t), Some(d_perm), Some(out)) = (&mut b.words, &b.table, &b.perm, &mut b.out) else {
            unreachable!("allocated above")
        };
        stream.memcpy_htod(&packed.words, &mut words.slice_mut(0..packed.words.len())).map_err(&e)?;
        let func = gpu.function(&BOA_CU, network_kernel(shape.group))?;
        let (ell32, n32, wpl, k32) = (ell as i32, n as i32, packed.words_per_locus as i32, k as i32);
        let mut launch = stream.launch_builder(&func);
        launch.arg(&*words).arg(t).arg(d_perm).arg(&ell32).arg(&n32).arg(&wpl).arg(&k32).arg(&mut *out);
        let cfg = LaunchConfig { grid_dim: (ell as u32, 1, 1), block_dim: (shape.warps * 32, 1, 1), shared_mem_bytes: ell as u32 * 4 };
        self.events[0].record(stream).map_err(&e)?;
        // SAFETY: block i < ell reads loci < ell (node i, perm-allowed j < ell and its
        // parents), so words[locus·wpl + w] for w < wpl stays inside ell·wpl words;
        // counts ≤ n, so t[c] and t[c_0 + c_1 + 1] index the n + 2 entries of t;
        // perm has ell entries; block i writes out[i·OUT..][..OUT] only; k ≤ MAX_K
        // (checked by the caller); 32 ≤ blockDim ≤ 32·MAX_WARPS, a multiple of 32
        // (`with_shape`); the candidate list s_list[0..m), m < ell, lies in the
        // ell·4 bytes of dynamic shared memory.
        unsafe { launch.launch(cfg) }.map_err(&e)?;
        self.finish_network(n, ell, t0, &e)
    }
}

/// The population a byte per allele, locus-major: `out[l·n + i]` = allele of
/// individual `i` at locus `l` (the paper's kernel reads one locus of consecutive
/// individuals in consecutive threads).
pub fn locus_major(pop: &Population) -> Vec<u8> {
    let (n, ell) = (pop.n(), pop.ell());
    let mut out = vec![0u8; n * ell];
    for (i, row) in pop.rows().chunks_exact(ell.max(1)).enumerate() {
        for (l, &a) in row.iter().enumerate() {
            out[l * n + i] = a;
        }
    }
    out
}

/// The [`Network`] of the network kernel's output rows. Row of node i: parents,
/// then [parents, rounds, scored, loci read], then the score's bits.
pub(super) fn network_of_rows(rows: &[&[i32]]) -> Network {
    let count = |row: &[i32], c: usize| row[MAX_K + c];
    let score_of = |row: &[i32]| f64::from_bits(u64::from(row[MAX_K + 4] as u32) | (u64::from(row[MAX_K + 5] as u32) << 32));
    Network {
        parents: rows.iter().map(|r| r[..count(r, 0) as usize].iter().map(|&j| j as usize).collect()).collect(),
        score: rows.iter().fold(0.0, |sum, r| sum + score_of(r)),
        families_scored: rows.len() as u64 + rows.iter().map(|r| count(r, 2) as u64).sum::<u64>(),
        steps: rows.iter().map(|r| count(r, 1) as usize).max().unwrap_or(0),
    }
}

impl FamilyScorer for GpuFamilyScorer<'_> {
    fn name(&self) -> String {
        let design = if self.design == Design::Paper { "gboa-paper" } else { "gboa" };
        format!("{design} ({})", self.joint.device_name())
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
