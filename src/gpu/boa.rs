//! gBOA (Munawar et al. 2009, Section IV) on the GPU, two ways:
//!
//! - the whole pBOA network in one launch (`kernels/boa.cu`, the paper's
//!   decomposition of Section IV-A: one thread block per node finds its candidate
//!   parents, counts their configurations, reduces the gains to the best edge and
//!   repeats until no gain or k parents) — what [`build_pboa`] uses, through
//!   [`FamilyScorer::pboa_network`], in one of two [`Design`]s: this harness's
//!   (`gboa`: the population bit-packed by locus, groups of 8 lanes score one
//!   candidate family each by popcounts, see [`Shape`]) or the paper's
//!   (`gboa-paper`: 480 threads a block split the population, a byte per allele,
//!   and count the patterns in shared memory, Section IV-A and V);
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
use super::{Gpu, GpuError, KernelSource, ensure_len, launch_err};
use crate::library::boa::{
    BoaConfig, BoaResult, Construction, Family, FamilyScorer, GenerationStats, GenerationTrace, LnFactorial, Network, PhaseTimes,
    Randomness, build_pboa, population_hash,
};
use crate::library::ecga::{DeviceStats, PairScorer, Population};
use crate::library::trap::Trap;
use anyhow::{Context, Result, ensure};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use std::time::{Duration, Instant};

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
/// Threads per block of the paper's network kernel (its `BOA_PAPER_THREADS`;
/// Section V: "Number of threads/block is kept constant at 480").
pub const PAPER_THREADS: u32 = 480;
/// Most nodes of the paper's network kernel: its List_DS (`ell` ints of dynamic
/// shared memory) beside 26 KiB of static shared memory (Count_DS, Gain_DS) within
/// 48 KiB.
const PAPER_MAX_ELL: usize = 4096;
// The kernel's ballots take whole warps.
const _: () = assert!(PAPER_THREADS.is_multiple_of(32));

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
    stats: DeviceStats,
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
fn network_of_rows(rows: &[&[i32]]) -> Network {
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

// ---------------------------------------------------------------------------
// BOA on the device, end to end (issue #23; Section V.B's "future research")
// ---------------------------------------------------------------------------

/// Entries per node of the device's conditional counts (its `BOA_TABLE`).
const TABLE: usize = 2 << MAX_K;
/// Entries of one generation's statistics (its `BOA_STATS`).
const STATS: usize = 6;
/// Threads per block of the element-wise kernels of a device run.
const BLOCK: u32 = 256;

/// Device bytes of a whole BOA run with the population resident on the device:
/// population and offspring (a byte per allele), fitness, ranking, the selected
/// half packed by locus, the ln-factorial table, the permutation, sampling's
/// schedule (nodes and level starts), the network rows, the conditional counts
/// and the statistics of every generation.
pub fn device_run_bytes(n: usize, ell: usize, selected: usize, generations: usize) -> u128 {
    let (n, ell, s, g) = (n as u128, ell as u128, selected as u128, generations as u128);
    let offspring = n - s.min(n);
    [
        (n + offspring).saturating_mul(ell),
        4 * (2 * n + offspring),
        (8 * ell).saturating_mul(s.div_ceil(64)),
        8 * (s + 2),
        4 * ell * (3 + OUT as u128 + TABLE as u128) + 8,
        8 * STATS as u128 * (g + 1),
    ]
    .into_iter()
    .fold(0, u128::saturating_add)
}

/// The memory pre-check of a device run: an error naming N, ℓ, the bytes needed and
/// the bytes free, before anything is allocated.
pub fn check_device_run_fits(n: usize, ell: usize, selected: usize, generations: usize, free: usize) -> Result<()> {
    let needed = device_run_bytes(n, ell, selected, generations);
    ensure!(
        needed <= free as u128,
        "BOA on the device: N = {n}, ℓ = {ell} needs {needed} bytes ({} MiB) of device memory, but {free} bytes ({} MiB) are free",
        needed >> 20,
        free >> 20
    );
    Ok(())
}

/// The device buffers of a whole run (names as in `kernels/boa.cu`).
struct RunBuffers {
    rows: CudaSlice<u8>,
    fitness: CudaSlice<u32>,
    ranking: CudaSlice<u32>,
    words: CudaSlice<u64>,
    table: CudaSlice<f64>,
    perm: CudaSlice<i32>,
    /// Sampling's schedule (`boa_levels`): the nodes by level, and the level starts.
    schedule: CudaSlice<i32>,
    starts: CudaSlice<i32>,
    network: CudaSlice<i32>,
    counts: CudaSlice<u32>,
    offspring: CudaSlice<u8>,
    offspring_fitness: CudaSlice<u32>,
    stats: CudaSlice<u64>,
}

fn grid(items: usize) -> LaunchConfig {
    LaunchConfig { grid_dim: ((items as u32).div_ceil(BLOCK).max(1), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// Shared memory a block of `boa_sample` may use (the default static limit).
const SAMPLE_SHARED_BYTES: usize = 48 * 1024;

/// `boa_levels`: one block; its shared memory holds ℓ + 1 counters and two
/// 16-bit levels per node, so a device run takes ℓ ≤ [`LEVELS_MAX_ELL`].
const LEVELS_THREADS: u32 = 256;
const LEVELS_MAX_ELL: usize = (SAMPLE_SHARED_BYTES - 4) / 8;

fn levels_shared_bytes(ell: usize) -> u32 {
    (4 * (ell + 1) + 4 * ell) as u32
}

/// `boa_sample`'s launch: a warp per offspring, up to four to a block as their children (`ell` bytes each) fit in
/// [`SAMPLE_SHARED_BYTES`] of shared memory.
fn sample_launch(ell: usize, offspring: usize) -> Result<LaunchConfig> {
    ensure!(
        ell <= SAMPLE_SHARED_BYTES,
        "ℓ = {ell}: a child of {ell} bytes does not fit boa_sample's {SAMPLE_SHARED_BYTES} bytes of shared memory"
    );
    let warps = (SAMPLE_SHARED_BYTES / ell.max(1)).clamp(1, 4);
    let blocks = u32::try_from(offspring.div_ceil(warps)).context("too many offspring for one launch")?;
    Ok(LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (32 * warps as u32, 1, 1), shared_mem_bytes: (warps * ell) as u32 })
}

/// BOA with every phase on the device (`kernels/boa.cu`): truncation selection
/// (`boa_rank`, `boa_pack_selected`), pBOA's network (`boa_permutation` and the
/// network kernel of [`GpuFamilyScorer`]), the conditional counts and ancestral
/// sampling (`boa_conditional_counts`, `boa_sample`), evaluation (`boa_evaluate`) and
/// replacement of the worst (`boa_replace`); only each generation's statistics come
/// back (all at the end, or one generation at a time with `cfg.stop_on_convergence`
/// or a `trace`). Makes [`crate::library::boa::run_traced`]'s run with
/// [`Randomness::Counter`] and [`Construction::Permutation`] bit for bit; phase
/// times are the device's (events between the phases).
pub fn run_on_device(
    gpu: &Gpu,
    trap: &Trap,
    cfg: &BoaConfig,
    seed: u64,
    mut trace: Option<&mut Vec<GenerationTrace>>,
) -> Result<DeviceRun> {
    let start = Instant::now();
    let (n, ell, s) = (cfg.n, trap.ell(), cfg.selected());
    ensure!(
        cfg.rng == Randomness::Counter && cfg.construction == Construction::Permutation,
        "BOA on the device runs pBOA with counter-based randomness, not {} with {}",
        cfg.construction.name(),
        cfg.rng.name()
    );
    ensure!(ell > 0 && trap.k > 0, "empty problem");
    ensure!(s > 0 && s < n, "selection {} of N = {n} must select between 1 and N − 1 individuals", cfg.selection);
    ensure!(cfg.k <= MAX_K, "BOA on the device: k = {} parents, at most {MAX_K}", cfg.k);
    ensure!(ell <= MAX_ELL, "BOA on the device: ℓ = {ell} nodes, at most {MAX_ELL} (the network kernel's candidate list)");
    ensure!(ell <= LEVELS_MAX_ELL, "BOA on the device: ℓ = {ell} nodes, at most {LEVELS_MAX_ELL} (boa_levels' shared memory)");
    ensure!(
        n.checked_mul(ell).is_some_and(|a| a <= u32::MAX as usize) && cfg.max_generations < u32::MAX as usize,
        "BOA on the device: N·ℓ = {n}·{ell} alleles and {} generations must fit 32-bit counters",
        cfg.max_generations
    );
    let (free, _) = gpu.ctx.mem_get_info().map_err(launch_err("cuMemGetInfo"))?;
    check_device_run_fits(n, ell, s, cfg.max_generations, free)?;
    let e = launch_err("BOA device run");
    let stream = &gpu.stream;
    let wpl = s.div_ceil(64);
    let offspring_n = n - s;
    let per_child = sample_launch(ell, offspring_n)?;
    let generations = cfg.max_generations;
    let mut b = RunBuffers {
        rows: stream.alloc_zeros(n * ell).map_err(&e)?,
        fitness: stream.alloc_zeros(n).map_err(&e)?,
        ranking: stream.alloc_zeros(n).map_err(&e)?,
        words: stream.alloc_zeros(ell * wpl).map_err(&e)?,
        table: stream.clone_htod(LnFactorial::new(s).table()).map_err(&e)?,
        perm: stream.alloc_zeros(ell).map_err(&e)?,
        schedule: stream.alloc_zeros(ell).map_err(&e)?,
        starts: stream.alloc_zeros(ell + 2).map_err(&e)?,
        network: stream.alloc_zeros(ell * OUT).map_err(&e)?,
        counts: stream.alloc_zeros(ell * TABLE).map_err(&e)?,
        offspring: stream.alloc_zeros(offspring_n * ell).map_err(&e)?,
        offspring_fitness: stream.alloc_zeros(offspring_n).map_err(&e)?,
        stats: stream.alloc_zeros(STATS * (generations + 1)).map_err(&e)?,
    };
    let f = |name: &str| gpu.function(&BOA_CU, name);
    let (initial, evaluate, rank, pack, permutation) =
        (f("boa_initial")?, f("boa_evaluate")?, f("boa_rank")?, f("boa_pack_selected")?, f("boa_permutation")?);
    let (network, conditional, sample, replace, stats_kernel) =
        (f(network_kernel(SHAPE.group))?, f("boa_conditional_counts")?, f("boa_sample")?, f("boa_replace")?, f("boa_stats")?);
    let levels = f("boa_levels")?;
    let levels_cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (LEVELS_THREADS, 1, 1), shared_mem_bytes: levels_shared_bytes(ell) };
    let (n32, ell32, s32, wpl32, off32, k_trap) = (n as u32, ell as u32, s as u32, wpl as u32, offspring_n as u32, trap.k as u32);
    let (seed_low, seed_high) = (seed as u32, (seed >> 32) as u32);
    let (no_nodes, nodes) = (0u32, ell32);

    // SAFETY (every launch below): each kernel bounds its threads by the counts it is
    // passed, which are the lengths allocated above: rows n·ell, fitness and ranking
    // n (ranking holds a permutation of 0..n, so rows[ranking[·]·ell + l] stays in
    // rows), words ell·wpl, table s + 2 (counts ≤ s), perm and schedule ell, starts
    // ell + 2 (at most ell levels), network ell·OUT (parents < ell, k ≤ MAX_K), counts ell·TABLE (indices
    // < 2^(parents + 1) ≤ TABLE), offspring (n − s)·ell and n − s, stats
    // STATS·(generations + 1) of which launch g writes entries g·STATS..(g + 1)·STATS.
    let setup_ms = start.elapsed().as_secs_f64() * 1e3;
    unsafe { stream.launch_builder(&initial).arg(&mut b.rows).arg(&n32).arg(&ell32).arg(&seed_low).arg(&seed_high).launch(grid(n * ell)) }
        .map_err(&e)?;
    unsafe { stream.launch_builder(&evaluate).arg(&b.rows).arg(&n32).arg(&ell32).arg(&k_trap).arg(&mut b.fitness).launch(grid(n)) }
        .map_err(&e)?;
    {
        let mut st = b.stats.slice_mut(0..STATS);
        unsafe {
            stream
                .launch_builder(&stats_kernel)
                .arg(&b.rows)
                .arg(&b.fitness)
                .arg(&n32)
                .arg(&ell32)
                .arg(&b.network)
                .arg(&no_nodes)
                .arg(&mut st)
                .launch(grid(n * ell))
        }
        .map_err(&e)?;
    }
    let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(&e);
    let mut events: Vec<[CudaEvent; 7]> = Vec::new();
    let mut done = 0;
    while done < generations {
        if cfg.stop_on_convergence && stream.clone_dtoh(&b.stats.slice(done * STATS..(done + 1) * STATS)).map_err(&e)?[2] == 0 {
            break;
        }
        let g = done as u32;
        let ev = [event()?, event()?, event()?, event()?, event()?, event()?, event()?];
        ev[0].record(stream).map_err(&e)?;
        unsafe {
            // A warp per individual, eight to a block.
            let rank_cfg = LaunchConfig { grid_dim: (n32.div_ceil(8), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
            stream.launch_builder(&rank).arg(&b.fitness).arg(&n32).arg(&mut b.ranking).launch(rank_cfg).map_err(&e)?;
            stream
                .launch_builder(&pack)
                .arg(&b.rows)
                .arg(&b.ranking)
                .arg(&s32)
                .arg(&ell32)
                .arg(&wpl32)
                .arg(&mut b.words)
                .launch(grid(ell * wpl))
                .map_err(&e)?;
        }
        ev[1].record(stream).map_err(&e)?;
        let k32 = cfg.k as i32;
        let (ell_i, s_i, wpl_i) = (ell as i32, s as i32, wpl as i32);
        unsafe {
            stream
                .launch_builder(&permutation)
                .arg(&ell32)
                .arg(&g)
                .arg(&seed_low)
                .arg(&seed_high)
                .arg(&mut b.perm)
                .launch(grid(ell))
                .map_err(&e)?;
            let net_cfg = LaunchConfig { grid_dim: (ell32, 1, 1), block_dim: (SHAPE.warps * 32, 1, 1), shared_mem_bytes: ell32 * 4 };
            stream
                .launch_builder(&network)
                .arg(&b.words)
                .arg(&b.table)
                .arg(&b.perm)
                .arg(&ell_i)
                .arg(&s_i)
                .arg(&wpl_i)
                .arg(&k32)
                .arg(&mut b.network)
                .launch(net_cfg)
                .map_err(&e)?;
        }
        ev[2].record(stream).map_err(&e)?;
        unsafe {
            let warp_per_node = LaunchConfig { grid_dim: (ell32, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
            stream
                .launch_builder(&conditional)
                .arg(&b.words)
                .arg(&s32)
                .arg(&wpl32)
                .arg(&b.network)
                .arg(&mut b.counts)
                .launch(warp_per_node)
                .map_err(&e)?;
            stream
                .launch_builder(&levels)
                .arg(&b.network)
                .arg(&ell32)
                .arg(&mut b.schedule)
                .arg(&mut b.starts)
                .launch(levels_cfg)
                .map_err(&e)?;
            stream
                .launch_builder(&sample)
                .arg(&b.network)
                .arg(&b.counts)
                .arg(&b.schedule)
                .arg(&b.starts)
                .arg(&ell32)
                .arg(&off32)
                .arg(&g)
                .arg(&seed_low)
                .arg(&seed_high)
                .arg(&mut b.offspring)
                .launch(per_child)
                .map_err(&e)?;
        }
        ev[3].record(stream).map_err(&e)?;
        unsafe {
            stream
                .launch_builder(&evaluate)
                .arg(&b.offspring)
                .arg(&off32)
                .arg(&ell32)
                .arg(&k_trap)
                .arg(&mut b.offspring_fitness)
                .launch(grid(offspring_n))
                .map_err(&e)?;
        }
        ev[4].record(stream).map_err(&e)?;
        unsafe {
            stream
                .launch_builder(&replace)
                .arg(&b.offspring)
                .arg(&b.offspring_fitness)
                .arg(&b.ranking)
                .arg(&s32)
                .arg(&off32)
                .arg(&ell32)
                .arg(&mut b.rows)
                .arg(&mut b.fitness)
                .launch(grid(offspring_n * ell))
                .map_err(&e)?;
        }
        ev[5].record(stream).map_err(&e)?;
        done += 1;
        {
            let mut st = b.stats.slice_mut(done * STATS..(done + 1) * STATS);
            unsafe {
                stream
                    .launch_builder(&stats_kernel)
                    .arg(&b.rows)
                    .arg(&b.fitness)
                    .arg(&n32)
                    .arg(&ell32)
                    .arg(&b.network)
                    .arg(&nodes)
                    .arg(&mut st)
                    .launch(grid(n * ell))
            }
            .map_err(&e)?;
        }
        ev[6].record(stream).map_err(&e)?;
        events.push(ev);
        if let Some(trace) = trace.as_deref_mut() {
            let rows = stream.clone_dtoh(&b.network).map_err(&e)?;
            let net = network_of_rows(&rows.chunks_exact(OUT).collect::<Vec<_>>());
            let population = stream.clone_dtoh(&b.rows).map_err(&e)?;
            trace.push(GenerationTrace {
                parents: net.parents,
                score_bits: net.score.to_bits(),
                population_hash: population_hash(&population),
            });
        }
    }
    let stats = stream.clone_dtoh(&b.stats.slice(0..(done + 1) * STATS)).map_err(&e)?;
    let rows = stream.clone_dtoh(&b.rows).map_err(&e)?;
    let fitness = stream.clone_dtoh(&b.fitness).map_err(&e)?;
    let span =
        |from: &CudaEvent, to: &CudaEvent| from.elapsed_ms(to).map(|ms| Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3)).map_err(&e);
    let mut timings = PhaseTimes::default();
    let mut statistics = Duration::ZERO;
    for ev in &events {
        timings.selection += span(&ev[0], &ev[1])?;
        timings.construction += span(&ev[1], &ev[2])?;
        timings.sampling += span(&ev[2], &ev[3])?;
        timings.evaluation += span(&ev[3], &ev[4])?;
        timings.replacement += span(&ev[4], &ev[5])?;
        statistics += span(&ev[5], &ev[6])?;
    }
    let per_generation: Vec<&[u64]> = stats.chunks_exact(STATS).collect();
    let history: Vec<GenerationStats> = per_generation[1..]
        .iter()
        .map(|g| GenerationStats { best_fitness: g[0] as u32, mean_fitness: g[1] as f64 / n as f64, edges: g[3] as usize })
        .collect();
    let families_scored = per_generation[1..].iter().map(|g| ell as u64 + g[4]).sum();
    let best = (0..n).fold(0, |best, i| if fitness[i] > fitness[best] { i } else { best });
    let best_solved = trap.solved(&rows[best * ell..][..ell]);
    timings.total = start.elapsed();
    let result = BoaResult {
        generations: done,
        best_fitness: fitness[best],
        best_solved,
        solved_fraction: best_solved as f64 / trap.m as f64,
        converged: per_generation[done][2] == 0,
        timings,
        families_scored,
        history,
    };
    let alleles = per_generation[1..].iter().map(|g| g[5] as f64).sum::<f64>() * s as f64;
    Ok(DeviceRun { result, alleles, statistics_ms: statistics.as_secs_f64() * 1e3, setup_ms })
}

/// A run of [`run_on_device`]: the result (phase times from the device's events)
/// and the alleles the network kernel read (Σ family size × S over the scored
/// families, the first scores included), for its rate against the int32 ceiling.
pub struct DeviceRun {
    pub result: BoaResult,
    pub alleles: f64,
    /// Each generation's statistics (`boa_stats`, after replacement), device time in ms.
    pub statistics_ms: f64,
    /// Host wall-clock time from the call to the first launch: the checks, the
    /// kernels' lookups, the allocations and the ln-factorial table's upload.
    pub setup_ms: f64,
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
    /// The same for the paper's network kernel (`gboa-paper`, [`Design::Paper`]).
    pub identical_paper: bool,
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
        let mut paper = GpuFamilyScorer::new(gpu)?.paper_design();
        let identical_paper = same(&a, &build_pboa(&planted, &mut paper, k, &table, &perm)?)
            && same(&c, &build_pboa(&pop, &mut paper, k, &table, &random_perm)?);
        lines.push(CheckLine {
            n,
            ell,
            families: families.len(),
            differing,
            identical_network: identical,
            identical_paper,
            edges: a.edges(),
        });
    }
    Ok(lines)
}

/// One whole run checked by [`run_check`].
#[derive(Clone, Debug)]
pub struct RunCheckLine {
    pub n: usize,
    pub ell: usize,
    pub generations: usize,
    pub stop_on_convergence: bool,
    /// The first generation whose network or population differs (None: none does).
    pub first_difference: Option<usize>,
    /// Whether the results (history, best, solved, converged, families scored) agree.
    pub same_result: bool,
    /// Most edges of a generation's network (a check that networks were built).
    pub edges: usize,
}

/// BOA on the device against the CPU reference run with counter-based randomness
/// (`library::boa::run_traced`, multi-threaded pBOA), from fresh seeds: every
/// generation's network (parents and score bits) and population hash, and the
/// result, must be identical. `(n, ℓ, generations, stop on convergence)` per line.
pub fn run_check(gpu: &Gpu, seed: u64, runs: &[(usize, usize, usize, bool)]) -> Result<Vec<RunCheckLine>> {
    use crate::library::boa::{ParallelFamilyScorer, run_traced};
    use crate::library::ecga::{Popcount, PrefixFastCount};
    let mut lines = Vec::new();
    for (i, &(n, ell, generations, stop)) in runs.iter().enumerate() {
        let run_seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i as u64);
        let trap = Trap { k: 5, m: ell / 5 };
        let cfg = BoaConfig {
            n,
            max_generations: generations,
            stop_on_convergence: stop,
            rng: Randomness::Counter,
            ..BoaConfig::paper(Construction::Permutation)
        };
        let (mut cpu_trace, mut dev_trace) = (Vec::new(), Vec::new());
        let cpu = run_traced(
            &trap,
            &cfg,
            run_seed,
            &mut ParallelFamilyScorer::new(PrefixFastCount { popcount: Popcount::Hardware }),
            Some(&mut cpu_trace),
        )?;
        let dev = run_on_device(gpu, &trap, &cfg, run_seed, Some(&mut dev_trace))?.result;
        let first_difference = (0..cpu_trace.len().max(dev_trace.len())).find(|&g| cpu_trace.get(g) != dev_trace.get(g));
        let same_result = (cpu.generations, cpu.best_fitness, cpu.best_solved, cpu.converged, cpu.families_scored, &cpu.history)
            == (dev.generations, dev.best_fitness, dev.best_solved, dev.converged, dev.families_scored, &dev.history);
        let edges = cpu.history.iter().map(|g| g.edges).max().unwrap_or(0);
        lines.push(RunCheckLine { n, ell, generations, stop_on_convergence: stop, first_difference, same_result, edges });
    }
    Ok(lines)
}

/// Runs for [`run_check`]: `small` for compute-sanitizer. Odd N and N − S not a
/// multiple of 64 on purpose (padding bits, partial blocks); one run stops on
/// convergence (the per-generation check on the device).
pub fn run_check_sizes(small: bool) -> Vec<(usize, usize, usize, bool)> {
    let mut v = vec![(64, 10, 4, false), (201, 30, 6, false), (130, 20, 60, true)];
    if !small {
        v.extend([(1000, 60, 20, false), (2047, 120, 12, false), (4800, 190, 8, false)]);
    }
    v
}

/// Wall time and the device's phase times of one whole BOA run on the device at
/// `n` × `ell` for `generations` generations (the paper's setting: 4800, 190, 200).
pub fn time_device_run(gpu: &Gpu, seed: u64, n: usize, ell: usize, generations: usize) -> Result<DeviceRun> {
    let cfg = BoaConfig { n, max_generations: generations, rng: Randomness::Counter, ..BoaConfig::paper(Construction::Permutation) };
    run_on_device(gpu, &Trap { k: 5, m: ell / 5 }, &cfg, seed, None)
}

/// Block shapes the self-check builds every network with, and [`time_designs`] times.
pub fn shape_choices() -> Vec<Shape> {
    GROUPS.into_iter().flat_map(|group| [8, 16, 32].map(|warps| Shape { warps, group })).collect()
}

/// Mean wall time (ms) of one pBOA network on the device per block shape of
/// [`shape_choices`] and for the paper's design, with the device's share: `repeats`
/// networks of a random population of `n` × `ell` with planted trap-5 linkage, after
/// one untimed warm-up each.
pub fn time_designs(gpu: &Gpu, seed: u64, n: usize, ell: usize, k: usize, repeats: usize) -> Result<Vec<(Design, f64, DeviceStats)>> {
    use crate::library::boa::random_permutation;
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let table = LnFactorial::new(n);
    let pop = Population::planted(n, ell, 5, rng.random())?;
    let perm = random_permutation(ell, &mut rng);
    let mut out = Vec::new();
    for design in shape_choices().into_iter().map(Design::Packed).chain([Design::Paper]) {
        let mut dev = match design {
            Design::Packed(shape) => GpuFamilyScorer::new(gpu)?.with_shape(shape)?,
            Design::Paper => GpuFamilyScorer::new(gpu)?.paper_design(),
        };
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
        out.push((design, ms, stats));
    }
    Ok(out)
}

/// Sizes for [`self_check`]: `small` for compute-sanitizer. ℓ = 300 and 700 give
/// the paper's kernel more probable parents than one pass of its Count_DS holds
/// (256 at three parents' families), so it counts them in several passes.
pub fn self_check_sizes(small: bool) -> Vec<(usize, usize)> {
    let mut v = vec![(1, 5), (63, 10), (65, 20), (2400, 30), (40, 300)];
    if !small {
        v.extend([(2400, 90), (4097, 60), (9600, 120), (481, 700)]);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_fits_four_children_a_block_in_shared_memory_and_refuses_a_child_that_does_not_fit() {
        // ℓ = 190, 2,400 offspring: four warps a block, 600 blocks, 760 bytes.
        let c = sample_launch(190, 2400).unwrap();
        assert_eq!((c.grid_dim.0, c.block_dim.0, c.shared_mem_bytes), (600, 128, 760));
        // ℓ = 20,000: two children fit 48 KiB; ℓ = 49,152: one.
        assert_eq!(sample_launch(20_000, 5).unwrap().block_dim.0, 64);
        assert_eq!(sample_launch(49_152, 5).unwrap().shared_mem_bytes, 49_152);
        let err = sample_launch(49_153, 5).unwrap_err().to_string();
        assert!(err.contains("ℓ = 49153") && err.contains("shared memory"), "{err}");
    }

    #[test]
    fn locus_major_puts_one_locus_of_consecutive_individuals_together() {
        // 3 individuals × 2 loci, rows 10, 01, 11.
        let pop = Population::from_rows(3, 2, vec![1, 0, 0, 1, 1, 1]).unwrap();
        assert_eq!(locus_major(&pop), vec![1, 0, 1, 0, 1, 1]);
    }

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
        assert!(BOA_CU.code.contains(&format!("#define BOA_STATS {STATS}\n")));
        assert!(BOA_CU.code.contains(&format!("#define BOA_PAPER_THREADS {PAPER_THREADS}\n")));
        assert!(BOA_CU.code.contains("boa_pboa_network_paper("));
        assert!(BOA_CU.code.contains("#define BOA_TABLE (2 << BOA_MAX_K)\n") && TABLE == 2 << MAX_K);
    }

    #[test]
    fn the_memory_precheck_names_n_ell_and_both_sizes() {
        // N = 4800, ℓ = 190, 2400 selected, 200 generations, term by term.
        let bytes = (4800 + 2400) * 190 + 4 * (2 * 4800 + 2400) + 8 * 190 * 38 + 8 * 2402 + (4 * 190 * (3 + 10 + 32) + 8) + 8 * 6 * 201;
        assert_eq!(device_run_bytes(4800, 190, 2400, 200), bytes);
        assert!(check_device_run_fits(4800, 190, 2400, 200, bytes as usize).is_ok());
        let err = check_device_run_fits(4800, 190, 2400, 200, bytes as usize - 1).unwrap_err().to_string();
        assert!(err.contains("N = 4800") && err.contains("ℓ = 190"), "{err}");
        assert!(err.contains(&format!("{bytes} bytes")) && err.contains(&format!("{} bytes", bytes - 1)), "{err}");
        // Sizes far past any device do not overflow the arithmetic.
        let huge = device_run_bytes(usize::MAX, usize::MAX, usize::MAX / 2, usize::MAX);
        assert!(huge > u64::MAX as u128);
        assert!(check_device_run_fits(usize::MAX, 4096, 1, 1, usize::MAX).is_err());
    }
}
