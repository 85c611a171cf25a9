//! gECGA (Shao & Yu, GECCO 2013, Section 4.2): the entropy term of every
//! candidate merge computed on the GPU, one thread block per pair
//! (`kernels/ecga.cu`: FastCount for merged groups of up to 5 loci, a histogram
//! of the individuals' schemata beyond). It implements the library's [`PairScorer`], so the greedy
//! and GM searches of `library::ecga` run unchanged on it; given the same
//! population they build the same MPM merge by merge, because the kernel returns
//! the same `s = Σ xlogx[count]` (integer counts, the same table, the same order
//! of additions) as the CPU scorers.

use super::{Gpu, KernelSource, ensure_len, launch_err};
use crate::library::ecga::{DeviceStats, PairScorer, Population, XLogX};
use anyhow::{Result, ensure};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, LaunchConfig, PushKernelArg};

/// `kernels/ecga.cu`.
pub const ECGA_CU: KernelSource = KernelSource { file: "ecga.cu", code: include_str!("../../kernels/ecga.cu") };

/// Largest merged group the kernel takes (its `ECGA_MAX_L`: 2^12 shared counters).
pub const KERNEL_MAX_L: usize = 12;
/// Threads per block, the kernel's `ECGA_THREADS` (the paper used 256).
const THREADS: u32 = 256;
const KERNEL: &str = "ecga_pair_entropy";

/// The population and table on the device, and staging for the pairs of one call.
pub struct GpuScorer<'g> {
    gpu: &'g Gpu,
    n: usize,
    wpl: usize,
    words: Option<CudaSlice<u64>>,
    xlogx: Option<CudaSlice<f64>>,
    /// n the uploaded table was built for (rebuilt only when n changes).
    xlogx_n: usize,
    loci: Vec<i32>,
    len: Vec<i32>,
    /// Device copies of `loci` followed by `len` (one upload per call) and of
    /// the results, grown as needed and kept between calls: a greedy search
    /// makes one call per merge, so allocating per call would cost more than the
    /// counting.
    d_loci: Option<CudaSlice<i32>>,
    d_s: Option<CudaSlice<f64>>,
    /// Events around each kernel, and the times and work summed so far.
    events: [CudaEvent; 2],
    stats: DeviceStats,
}

impl<'g> GpuScorer<'g> {
    /// Compiles the kernel now (once per context), so no timed model building
    /// pays for NVRTC.
    pub fn new(gpu: &'g Gpu) -> Result<Self> {
        gpu.function(&ECGA_CU, KERNEL)?;
        let ev = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(launch_err("gECGA events"));
        Ok(GpuScorer {
            events: [ev()?, ev()?],
            stats: DeviceStats::default(),
            gpu,
            n: 0,
            wpl: 0,
            words: None,
            xlogx: None,
            xlogx_n: usize::MAX,
            loci: Vec::new(),
            len: Vec::new(),
            d_loci: None,
            d_s: None,
        })
    }

    /// Scores the merged groups staged in `loci`/`len`.
    fn launch(&mut self, out: &mut Vec<f64>) -> Result<()> {
        let t0 = std::time::Instant::now();
        let e = launch_err(KERNEL);
        let count = self.len.len();
        out.clear();
        if count == 0 {
            return Ok(());
        }
        let (Some(words), Some(xlogx)) = (&self.words, &self.xlogx) else { anyhow::bail!("gECGA scorer used before load()") };
        let stream = &self.gpu.stream;
        let loci_len = self.loci.len();
        self.loci.extend_from_slice(&self.len);
        ensure_len(self.gpu, &mut self.d_loci, self.loci.len()).map_err(&e)?;
        ensure_len(self.gpu, &mut self.d_s, count).map_err(&e)?;
        let (Some(d_loci), Some(d_s)) = (&mut self.d_loci, &mut self.d_s) else { unreachable!() };
        stream.memcpy_htod(&self.loci, &mut d_loci.slice_mut(0..self.loci.len())).map_err(&e)?;
        let (d_len, d_loci) = (d_loci.slice(loci_len..loci_len + count), d_loci.slice(0..loci_len));
        let func = self.gpu.function(&ECGA_CU, KERNEL)?;
        let (n, wpl) = (self.n as i32, self.wpl as i32);
        let mut launch = stream.launch_builder(&func);
        launch.arg(words).arg(&d_loci).arg(&d_len).arg(xlogx).arg(&mut *d_s).arg(&n).arg(&wpl);
        let cfg = LaunchConfig { grid_dim: (count as u32, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        self.events[0].record(stream).map_err(&e)?;
        // SAFETY: block p < count reads len[p] ≤ KERNEL_MAX_L loci of
        // loci[p·KERNEL_MAX_L..] (both copied above), each < ell, so
        // words[locus·wpl + w] for w < wpl stays inside ell·wpl words; counts ≤ n
        // index the n + 1 entries of xlogx; it writes s[p], p < count ≤ len(d_s).
        unsafe { launch.launch(cfg) }.map_err(&e)?;
        self.events[1].record(stream).map_err(&e)?;
        out.resize(count, 0.0);
        stream.memcpy_dtoh(&d_s.slice(0..count), out.as_mut_slice()).map_err(&e)?;
        self.stats.kernel_ms += f64::from(self.events[0].elapsed_ms(&self.events[1]).map_err(&e)?);
        self.stats.calls_ms += t0.elapsed().as_secs_f64() * 1e3;
        self.stats.alleles += self.len.iter().map(|&l| l as f64).sum::<f64>() * self.n as f64;
        Ok(())
    }

    /// Uploads the population, bit-packed by locus, for the calls that follow.
    pub fn load_population(&mut self, pop: &Population) -> Result<()> {
        let packed = pop.packed();
        let e = launch_err("gECGA upload");
        self.gpu.ensure_fits("population bit-packed by locus", packed.words.len() * 8)?;
        let stream = &self.gpu.stream;
        match &mut self.words {
            Some(w) if w.len() == packed.words.len() => stream.memcpy_htod(&packed.words, w).map_err(&e)?,
            _ => self.words = Some(stream.clone_htod(&packed.words).map_err(&e)?),
        }
        self.n = pop.n();
        self.wpl = packed.words_per_locus;
        Ok(())
    }

    /// Uploads the table the kernel sums, `table[count]` over a group's schemata
    /// (x·log2(x) for ECGA); it must have n + 1 entries for the loaded population.
    pub fn load_table(&mut self, table: &[f64]) -> Result<()> {
        ensure!(table.len() == self.n + 1, "the summed table has {} entries, the population needs n + 1 = {}", table.len(), self.n + 1);
        self.gpu.ensure_fits("summed table", table.len() * 8)?;
        self.xlogx = Some(self.gpu.stream.clone_htod(table).map_err(launch_err("gECGA upload"))?);
        self.xlogx_n = usize::MAX;
        Ok(())
    }

    pub fn device_name(&self) -> &str {
        &self.gpu.info.name
    }

    fn stage(&mut self, parts: &[&[usize]]) -> Result<()> {
        let start = self.loci.len();
        for part in parts {
            self.loci.extend(part.iter().map(|&l| l as i32));
        }
        let len = self.loci.len() - start;
        ensure!(len <= KERNEL_MAX_L, "gECGA kernel takes groups of at most {KERNEL_MAX_L} loci, got {len}");
        self.loci.resize(start + KERNEL_MAX_L, 0);
        self.len.push(len as i32);
        Ok(())
    }
}

impl PairScorer for GpuScorer<'_> {
    fn name(&self) -> String {
        format!("gecga ({})", self.gpu.info.name)
    }

    fn load(&mut self, pop: &Population, xlogx: &XLogX) -> Result<()> {
        ensure!(xlogx.n() == pop.n(), "x·log2(x) table built for n = {} but the population has n = {}", xlogx.n(), pop.n());
        self.load_population(pop)?;
        if self.xlogx_n != pop.n() {
            self.load_table(xlogx.table())?;
            self.xlogx_n = pop.n();
        }
        Ok(())
    }

    fn score(&mut self, groups: &[Vec<usize>], pairs: &[(usize, usize)], out: &mut Vec<f64>) -> Result<()> {
        self.loci.clear();
        self.len.clear();
        for &(a, b) in pairs {
            self.stage(&[&groups[a], &groups[b]])?;
        }
        self.launch(out)
    }

    fn score_groups(&mut self, groups: &[Vec<usize>], out: &mut Vec<f64>) -> Result<()> {
        self.loci.clear();
        self.len.clear();
        for g in groups {
            self.stage(&[g])?;
        }
        self.launch(out)
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
    pub search: &'static str,
    /// Merges in the CPU trace, and whether the GPU trace was identical.
    pub merges: usize,
    pub identical: bool,
    /// Pairs whose `s` differed from the CPU's (bitwise), out of `pairs`.
    pub pairs: usize,
    pub differing_pairs: usize,
}

/// Checks gECGA against the CPU reference on fresh random inputs: for each
/// (n, ℓ), every merged group of sizes 1..=KERNEL_MAX_L on a random population
/// must give bit-identical `s`, and the greedy and GM searches on a population
/// with planted trap linkage must give identical traces.
pub fn self_check(gpu: &Gpu, seed: u64, sizes: &[(usize, usize)]) -> Result<Vec<CheckLine>, anyhow::Error> {
    use crate::library::ecga::{CpuScorer, Popcount, PrefixFastCount, Search};
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut lines = Vec::new();
    for (k, &(n, ell)) in sizes.iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(k as u64));
        // Random groups of every size on a uniformly random population.
        let pop = Population::random(n, ell, rng.random())?;
        let xlogx = XLogX::new(n);
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for size in 1..=KERNEL_MAX_L.min(ell) {
            for _ in 0..4 {
                groups.push(random_group(ell, size, &mut rng));
            }
        }
        let mut cpu = CpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware });
        let mut gpus = GpuScorer::new(gpu)?;
        let (mut want, mut got) = (Vec::new(), Vec::new());
        cpu.load(&pop, &xlogx)?;
        gpus.load(&pop, &xlogx)?;
        cpu.score_groups(&groups, &mut want)?;
        gpus.score_groups(&groups, &mut got)?;
        let differing_pairs = want.iter().zip(&got).filter(|(a, b)| a.to_bits() != b.to_bits()).count() + want.len().abs_diff(got.len());
        // Whole searches on a population where each trap-5 block is a random
        // copy of one of a few block values, so that linkage is there to find.
        let planted = planted_population(n, ell, &mut rng)?;
        for search in [Search::Greedy, Search::GreedyMating] {
            let a = search.build(&planted, &mut cpu, 10, &xlogx)?;
            let b = search.build(&planted, &mut gpus, 10, &xlogx)?;
            let identical = a.merges.len() == b.merges.len()
                && a.merges.iter().zip(&b.merges).all(|(x, y)| x.0 == y.0 && x.1 == y.1 && x.2.to_bits() == y.2.to_bits())
                && a.mpm == b.mpm
                && a.ccc.to_bits() == b.ccc.to_bits();
            lines.push(CheckLine {
                n,
                ell,
                search: search.name(),
                merges: a.merges.len(),
                identical,
                pairs: groups.len(),
                differing_pairs,
            });
        }
    }
    Ok(lines)
}

/// `size` distinct loci of `ell`, uniformly at random (a partial Fisher–Yates shuffle).
pub(crate) fn random_group(ell: usize, size: usize, rng: &mut rand::rngs::StdRng) -> Vec<usize> {
    use rand::RngExt;
    let mut g: Vec<usize> = (0..ell).collect();
    for i in 0..size {
        let j = rng.random_range(i..ell);
        g.swap(i, j);
    }
    g.truncate(size);
    g
}

/// n individuals of ℓ loci where each block of 5 is all ones, all zeros, or
/// random with probabilities ½, ¼, ¼: linkage for the search to find, plus noise.
pub(crate) fn planted_population(n: usize, ell: usize, rng: &mut rand::rngs::StdRng) -> Result<Population> {
    use rand::RngExt;
    let mut rows = vec![0u8; n * ell];
    for row in rows.chunks_mut(ell) {
        for block in row.chunks_mut(5) {
            let r: f64 = rng.random();
            for bit in block.iter_mut() {
                *bit = if r < 0.5 {
                    1
                } else if r < 0.75 {
                    0
                } else {
                    rng.random_range(0..2u8)
                };
            }
        }
    }
    Population::from_rows(n, ell, rows)
}

/// Sizes for [`self_check`]: `small` for compute-sanitizer.
pub fn self_check_sizes(small: bool) -> Vec<(usize, usize)> {
    let mut v = vec![(1, 12), (63, 15), (64, 20), (65, 25), (1000, 30)];
    if !small {
        v.extend([(4097, 50), (10_000, 100), (2_500, 200)]);
    }
    v
}
