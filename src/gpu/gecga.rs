//! gECGA (Shao & Yu, GECCO 2013, Section 4.2): the entropy term of every
//! candidate merge computed on the GPU, one thread block per pair
//! (`kernels/ecga.cu`: FastCount for merged groups of up to 6 loci, a histogram
//! of the individuals' schemata beyond). It implements the library's [`PairScorer`], so the greedy
//! and GM searches of `library::ecga` run on it (by default wholly on the device:
//! [`GpuScorer::search`]); given the same
//! population they build the same MPM merge by merge, because the kernel returns
//! the same `s = Σ xlogx[count]` (integer counts, the same table, the same order
//! of additions) as the CPU scorers.

use super::{Gpu, KernelSource, ensure_len, launch_err};
use crate::library::ecga::{DeviceStats, ModelTrace, PairScorer, Population, Search, XLogX};
use anyhow::{Result, ensure};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, LaunchConfig, PushKernelArg};

/// `kernels/ecga.cu`.
pub const ECGA_CU: KernelSource = KernelSource { file: "ecga.cu", code: include_str!("../../kernels/ecga.cu") };

/// Largest merged group the kernel takes (its `ECGA_MAX_L`: 2^12 shared counters).
pub const KERNEL_MAX_L: usize = 12;
/// Largest merged group the kernel counts with FastCount (`count_small`,
/// `count_split`); larger groups go to its histogram.
pub const FASTCOUNT_MAX_L: usize = 6;
/// Threads per block, the kernel's `ECGA_THREADS` (the paper used 256).
const THREADS: u32 = 256;
const KERNEL: &str = "ecga_pair_entropy";
/// Warps per block of `ecga_search_step` (its `STEP_THREADS / 32`): one per slot's row.
const STEP_WARPS: usize = 8;
/// Blocks that count one merged group of `SPLIT_L` (7) loci or more in a
/// greedy step's rescore (`split_entropy`, v8): the histogram path's pair
/// bounded v7's launch alone. At N = 60,775 (950 words) four parts leave about
/// one word per thread.
const RESCORE_PARTS: usize = 4;

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
    /// Whether `Search::build` runs the whole search on the device
    /// ([`GpuScorer::search`]); off, the host searches and calls `score`.
    device_search: bool,
    search_state: Option<SearchState>,
}

/// The device search's buffers for one ℓ (`kernels/ecga.cu`, `Search`).
struct SearchState {
    ell: usize,
    max_l: usize,
    ints: CudaSlice<i32>,
    dbls: CudaSlice<f64>,
    ctrl: CudaSlice<u64>,
    /// `split`: a ticket per slot, then each slot's `RESCORE_PARTS` part counts of 2^max_l.
    split: CudaSlice<u32>,
}

/// Layout of `kernels/ecga.cu`'s search buffers for ℓ slots: ints are
/// slot_loci [ℓ·KERNEL_MAX_L], then slot_size, dirty, dirty_list, row_b,
/// merge_a, merge_b [ℓ each]; doubles are cost, row_d, merge_delta [ℓ each],
/// then pair_s and delta [ℓ(ℓ−1)/2 each].
mod layout {
    use super::KERNEL_MAX_L;
    pub fn ints(ell: usize) -> usize {
        ell * (KERNEL_MAX_L + 6)
    }
    pub fn dbls(ell: usize) -> usize {
        3 * ell + ell * ell.saturating_sub(1)
    }
    /// `split`'s u32 entries: ℓ tickets, then ℓ·parts·2^MAX_L part counts.
    pub fn split(ell: usize, max_l: usize) -> usize {
        ell + ((ell * super::RESCORE_PARTS) << max_l)
    }
    /// The ℓ-long int arrays after slot_loci, in order (3, row_b, is the
    /// device's alone).
    pub const SLOT_SIZE: usize = 0;
    pub const DIRTY: usize = 1;
    pub const DIRTY_LIST: usize = 2;
    pub const MERGE_A: usize = 4;
    pub const MERGE_B: usize = 5;
    /// Offset in ints of the ℓ-long array `array` (`SLOT_SIZE` …).
    pub fn int_array(ell: usize, array: usize) -> usize {
        ell * (KERNEL_MAX_L + array)
    }
    /// Offset of merge_delta in doubles.
    pub fn merge_delta(ell: usize) -> usize {
        2 * ell
    }
    /// ctrl words (`CTRL_WORDS` and `CTRL_*` in the kernel).
    pub const CTRL: usize = 7;
    pub const DONE: usize = 0;
    pub const MERGES: usize = 1;
    pub const STEPS: usize = 2;
    pub const PAIRS: usize = 3;
    pub const LOCI: usize = 4;
    pub const DIRTY_COUNT: usize = 5;
}

/// Device memory of the search for ℓ slots and merged groups of at most
/// `max_l` loci (bytes).
pub fn search_bytes(ell: usize, max_l: usize) -> usize {
    4 * layout::ints(ell) + 8 * layout::dbls(ell) + 8 * layout::CTRL + 4 * layout::split(ell, max_l)
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
            device_search: true,
            search_state: None,
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

    /// This scorer with the search on the host (one `score` call per step),
    /// as gECGA v4 and the paper ran it; `selfcheck` compares both.
    pub fn with_host_search(mut self) -> Self {
        self.device_search = false;
        self
    }

    /// The model search of `search` on the device: the ΔCCC cache, each step's
    /// choice of merges and the merges stay in device memory (`ecga_search_*`
    /// in `kernels/ecga.cu`), and the host only launches, reading the done flag
    /// once per batch of steps. Gives the host search's trace exactly.
    pub fn search(&mut self, search: Search, pop: &Population, max_l: usize, xlogx: &XLogX) -> Result<ModelTrace> {
        self.load(pop, xlogx)?;
        self.search_loaded(search, pop.ell(), max_l)
    }

    /// Room on the device for a population of `n` × `ell` packed by locus, and
    /// the table for `n`, which the whole run on the device (`gpu::ecga_run`)
    /// fills in place ([`GpuScorer::resident_words`]) before
    /// [`GpuScorer::search_loaded`]: the selected population never leaves the device.
    pub fn prepare_resident(&mut self, n: usize, ell: usize, xlogx: &XLogX) -> Result<()> {
        ensure!(xlogx.n() == n, "x·log2(x) table built for n = {} but the population has n = {n}", xlogx.n());
        let len = ell * n.div_ceil(64);
        if self.words.as_ref().is_none_or(|w| w.len() != len) {
            self.words = None;
            self.gpu.ensure_fits("population bit-packed by locus", len * 8)?;
            self.words = Some(self.gpu.stream.alloc_zeros(len).map_err(launch_err("gECGA upload"))?);
        }
        self.n = n;
        self.wpl = n.div_ceil(64);
        if self.xlogx_n != n {
            self.load_table(xlogx.table())?;
            self.xlogx_n = n;
        }
        Ok(())
    }

    /// The device population the next search reads (after
    /// [`GpuScorer::prepare_resident`] or a load).
    pub fn resident_words(&mut self) -> Result<&mut CudaSlice<u64>> {
        self.words.as_mut().ok_or_else(|| anyhow::anyhow!("gECGA scorer has no population on the device"))
    }

    /// [`GpuScorer::search`] on the population already on the device (ℓ = `ell`).
    pub fn search_loaded(&mut self, search: Search, ell: usize, max_l: usize) -> Result<ModelTrace> {
        let t0 = std::time::Instant::now();
        let e = launch_err("gECGA search");
        ensure!(max_l <= KERNEL_MAX_L, "gECGA kernel takes groups of at most {KERNEL_MAX_L} loci, MAX_L is {max_l}");
        ensure!(self.words.as_ref().is_some_and(|w| w.len() == ell * self.wpl), "gECGA search: no population of ℓ = {ell} on the device");
        if self.search_state.as_ref().is_none_or(|st| st.ell != ell || st.max_l != max_l) {
            self.search_state = None;
            self.gpu.ensure_fits("gECGA search state (the ΔCCC cache)", search_bytes(ell, max_l))?;
            let stream = &self.gpu.stream;
            self.search_state = Some(SearchState {
                ell,
                max_l,
                ints: stream.alloc_zeros(layout::ints(ell)).map_err(&e)?,
                dbls: stream.alloc_zeros(layout::dbls(ell)).map_err(&e)?,
                ctrl: stream.alloc_zeros(layout::CTRL).map_err(&e)?,
                split: stream.alloc_zeros(layout::split(ell, max_l)).map_err(&e)?,
            });
        }
        let (Some(words), Some(table), Some(st)) = (&self.words, &self.xlogx, &mut self.search_state) else { unreachable!() };
        let stream = &self.gpu.stream;
        // ℓ singleton slots, every slot dirty: the first rescore scores every pair.
        let mut ints = vec![0i32; layout::ints(ell)];
        for l in 0..ell {
            ints[l * KERNEL_MAX_L] = l as i32;
            ints[layout::int_array(ell, layout::SLOT_SIZE) + l] = 1;
            ints[layout::int_array(ell, layout::DIRTY) + l] = 1;
            ints[layout::int_array(ell, layout::DIRTY_LIST) + l] = l as i32;
        }
        stream.memcpy_htod(&ints, &mut st.ints).map_err(&e)?;
        let mut ctrl = [0u64; layout::CTRL];
        ctrl[layout::DIRTY_COUNT] = ell as u64;
        stream.memcpy_htod(&ctrl, &mut st.ctrl).map_err(&e)?;

        let n = self.n as f64;
        let (ni, wpl, ell_i, max_l_i) = (self.n as i32, self.wpl as i32, ell as i32, max_l as i32);
        let (nlog2n, log2n1) = (n * n.log2(), (n + 1.0).log2());
        let groups = self.gpu.function(&ECGA_CU, "ecga_search_groups")?;
        let rescore = self.gpu.function(&ECGA_CU, "ecga_search_rescore")?;
        let step = self.gpu.function(&ECGA_CU, "ecga_search_step")?;
        let block = |grid: (u32, u32, u32)| LaunchConfig { grid_dim: grid, block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let rows_grid = (ell.div_ceil(STEP_WARPS) as u32, 1, 1);
        // Rescore launches: one block per pair at the start (pairs of
        // singletons: none split); later one block row per live slot, GM's many
        // merges spread over 16 blocks a slot, greedy's one merge's large
        // pairs split over RESCORE_PARTS blocks (the kernel's gridDim.z).
        let rescore_grid = match search {
            Search::Greedy => (ell as u32, 1, RESCORE_PARTS as u32),
            Search::GreedyMating => (ell as u32, 16, 1),
        };
        let mode = |first: bool| -> i32 {
            match search {
                Search::GreedyMating => 2,
                Search::Greedy if first => 0,
                Search::Greedy => 1,
            }
        };
        macro_rules! launch {
            ($func:expr, $grid:expr, $mode:expr, $with_pop:expr) => {{
                let mut b = stream.launch_builder(&$func);
                let m: i32 = $mode;
                if $with_pop {
                    b.arg(words).arg(table).arg(&ni).arg(&wpl);
                } else {
                    b.arg(&m);
                }
                b.arg(&mut st.ints).arg(&mut st.dbls).arg(&mut st.ctrl).arg(&mut st.split);
                b.arg(&ell_i).arg(&max_l_i).arg(&nlog2n).arg(&log2n1);
                // SAFETY: the buffers have the layout of `layout` for ℓ = ell
                // slots (allocated above for this ℓ); every kernel indexes
                // slots < ell, pairs < ℓ(ℓ−1)/2, loci < ell (the population's
                // ell·wpl words), counts ≤ n (the n + 1 table entries) and
                // split parts < RESCORE_PARTS of 2^max_l counts per slot.
                unsafe { b.launch(block($grid)) }.map_err(&e)?;
            }};
        }
        let mut kernel_ms = 0.0;
        self.events[0].record(stream).map_err(&e)?;
        launch!(groups, (ell as u32, 1, 1), 0, true);
        launch!(rescore, (ell as u32, ell.clamp(1, 65_535) as u32, 1), 0, true);
        launch!(step, rows_grid, mode(true), false);
        // At most ℓ − 1 merges, one per greedy step and at least one per GM step.
        let batch = match search {
            Search::Greedy => 32,
            Search::GreedyMating => 4,
        };
        let mut launched = 1;
        let mut heartbeat = t0;
        loop {
            self.events[1].record(stream).map_err(&e)?;
            stream.memcpy_dtoh(&st.ctrl, &mut ctrl).map_err(&e)?;
            kernel_ms += f64::from(self.events[0].elapsed_ms(&self.events[1]).map_err(&e)?);
            if ctrl[layout::DONE] != 0 {
                break;
            }
            // Long builds (the ℓ = 9,800 scale case) say how far they are.
            if heartbeat.elapsed().as_secs() >= 30 {
                heartbeat = std::time::Instant::now();
                eprintln!("gECGA search, ℓ = {ell}: {} merges after {:.0} s", ctrl[layout::MERGES], t0.elapsed().as_secs_f64());
            }
            ensure!(launched < ell + 1, "gECGA search did not finish after {launched} steps for ℓ = {ell}");
            self.events[0].record(stream).map_err(&e)?;
            for _ in 0..batch {
                launch!(rescore, rescore_grid, 0, true);
                launch!(step, rows_grid, mode(false), false);
            }
            launched += batch;
        }
        let merges = ctrl[layout::MERGES] as usize;
        let mut got_ints = vec![0i32; layout::ints(ell)];
        let mut cost_and_deltas = vec![0f64; 3 * ell];
        stream.memcpy_dtoh(&st.ints, &mut got_ints).map_err(&e)?;
        stream.memcpy_dtoh(&st.dbls.slice(0..3 * ell), &mut cost_and_deltas).map_err(&e)?;
        let slot_merges: Vec<(usize, usize, f64)> = (0..merges)
            .map(|r| {
                let a = got_ints[layout::int_array(ell, layout::MERGE_A) + r] as usize;
                let b = got_ints[layout::int_array(ell, layout::MERGE_B) + r] as usize;
                (a, b, cost_and_deltas[layout::merge_delta(ell) + r])
            })
            .collect();
        let trace = ModelTrace::from_slot_merges(
            ell,
            max_l,
            &slot_merges,
            &cost_and_deltas[..ell],
            ctrl[layout::PAIRS],
            ctrl[layout::STEPS] as usize,
        )?;
        self.stats.kernel_ms += kernel_ms;
        self.stats.calls_ms += t0.elapsed().as_secs_f64() * 1e3;
        self.stats.alleles += ctrl[layout::LOCI] as f64 * self.n as f64;
        Ok(trace)
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

    fn device_search(&mut self, search: Search, pop: &Population, max_l: usize, xlogx: &XLogX) -> Option<Result<ModelTrace>> {
        self.device_search.then(|| self.search(search, pop, max_l, xlogx))
    }
}

/// One population checked by [`self_check`].
#[derive(Clone, Debug)]
pub struct CheckLine {
    pub n: usize,
    pub ell: usize,
    pub search: &'static str,
    /// "planted" (trap-5 linkage), "random" (uniform) or "few" (uniform, a few
    /// individuals: long merge sequences with many equal ΔCCC).
    pub population: &'static str,
    pub max_l: usize,
    /// Merges in the CPU trace, and whether the GPU traces were identical to
    /// it: the host search on gECGA's scores, and the search on the device.
    pub merges: usize,
    pub host_search_identical: bool,
    pub device_search_identical: bool,
    /// Pairs whose `s` differed from the CPU's (bitwise), out of `pairs`.
    pub pairs: usize,
    pub differing_pairs: usize,
}

/// Checks gECGA against the CPU reference on fresh random inputs: for each
/// (n, ℓ), every merged group of sizes 1..=KERNEL_MAX_L on a random population
/// must give bit-identical `s`, and the greedy and GM searches — on the host
/// with gECGA's scores, and wholly on the device — must give the CPU search's
/// trace bit for bit, on a population with planted trap linkage (MAX_L 10), on
/// the uniformly random one and on a random one of a few individuals (a random
/// MAX_L).
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
        let mut gpus = GpuScorer::new(gpu)?.with_host_search();
        let mut device = GpuScorer::new(gpu)?;
        let (mut want, mut got) = (Vec::new(), Vec::new());
        cpu.load(&pop, &xlogx)?;
        gpus.load(&pop, &xlogx)?;
        cpu.score_groups(&groups, &mut want)?;
        gpus.score_groups(&groups, &mut got)?;
        let differing_pairs = want.iter().zip(&got).filter(|(a, b)| a.to_bits() != b.to_bits()).count() + want.len().abs_diff(got.len());
        // Whole searches on a planted population (each trap-5 block all ones,
        // all zeros or random), so that linkage is there to find.
        let planted = Population::planted(n, ell, 5, rng.random())?;
        // The same searches on uniformly random populations (many near-equal
        // ΔCCC: the tie rules) with a random MAX_L.
        // A few individuals (6 to 34) give long merge sequences with exactly
        // equal ΔCCC values all along.
        let max_l = rng.random_range(2..=KERNEL_MAX_L);
        let few = Population::random(6 + 4 * k, ell, rng.random())?;
        for (population, pop, max_l) in [("planted", &planted, 10), ("random", &pop, max_l), ("few", &few, max_l)] {
            let xlogx = XLogX::new(pop.n());
            for search in [Search::Greedy, Search::GreedyMating] {
                let a = search.build(pop, &mut cpu, max_l, &xlogx)?;
                let b = search.build(pop, &mut gpus, max_l, &xlogx)?;
                let c = search.build(pop, &mut device, max_l, &xlogx)?;
                lines.push(CheckLine {
                    n: pop.n(),
                    ell,
                    search: search.name(),
                    population,
                    max_l,
                    merges: a.merges.len(),
                    host_search_identical: same_trace(&a, &b),
                    device_search_identical: same_trace(&a, &c),
                    pairs: groups.len(),
                    differing_pairs,
                });
            }
        }
    }
    Ok(lines)
}

/// Bitwise equality of two traces: merges (ΔCCC bits), model, CCC bits,
/// pairs scored and steps.
fn same_trace(a: &ModelTrace, b: &ModelTrace) -> bool {
    a.merges.len() == b.merges.len()
        && a.merges.iter().zip(&b.merges).all(|(x, y)| x.0 == y.0 && x.1 == y.1 && x.2.to_bits() == y.2.to_bits())
        && a.mpm == b.mpm
        && a.ccc.to_bits() == b.ccc.to_bits()
        && a.pairs_scored == b.pairs_scored
        && a.steps == b.steps
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

/// Sizes for [`self_check`]: `small` for compute-sanitizer.
pub fn self_check_sizes(small: bool) -> Vec<(usize, usize)> {
    let mut v = vec![(1, 12), (63, 15), (64, 20), (65, 25), (1000, 30)];
    if !small {
        v.extend([(4097, 50), (10_000, 100), (2_500, 200)]);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fastcount_max_l_is_where_the_kernel_switches_to_its_histogram() {
        let code = ECGA_CU.code;
        let case = |l: usize, path: &str| format!("case {l}: {path}<{l}>");
        assert!(code.contains(&case(FASTCOUNT_MAX_L, "count_split")) || code.contains(&case(FASTCOUNT_MAX_L, "count_small")));
        assert!(code.contains(&case(FASTCOUNT_MAX_L + 1, "count_histogram")), "L = {} is not on the histogram", FASTCOUNT_MAX_L + 1);
    }

    /// Whether `kernels/ecga.cu` defines `name` as `value` (its `#define` line,
    /// trailing comment allowed).
    fn defines(name: &str, value: usize) -> bool {
        ECGA_CU.code.lines().any(|l| {
            let mut w = l.split_whitespace();
            w.next() == Some("#define") && w.next() == Some(name) && w.next() == Some(value.to_string().as_str())
        })
    }

    #[test]
    fn constants_match_the_kernel() {
        let ctrl = [
            ("CTRL_DONE", layout::DONE),
            ("CTRL_MERGES", layout::MERGES),
            ("CTRL_STEPS", layout::STEPS),
            ("CTRL_PAIRS", layout::PAIRS),
            ("CTRL_LOCI", layout::LOCI),
            ("CTRL_DIRTY", layout::DIRTY_COUNT),
            ("CTRL_WORDS", layout::CTRL),
        ];
        let sizes = [
            ("ECGA_MAX_L", KERNEL_MAX_L),
            ("ECGA_THREADS", THREADS as usize),
            ("STEP_THREADS", 32 * STEP_WARPS),
            ("SPLIT_L", FASTCOUNT_MAX_L + 1),
        ];
        for (name, value) in ctrl.into_iter().chain(sizes) {
            assert!(defines(name, value), "kernels/ecga.cu lacks `#define {name} {value}`");
        }
    }

    #[test]
    fn the_layout_fits_its_buffers() {
        for ell in [1, 2, 7, 500] {
            // The six ℓ-long int arrays end where ints ends; merge_delta is the third
            // ℓ-long double array, before the ℓ(ℓ−1)/2 pair_s and delta entries.
            assert_eq!(layout::int_array(ell, layout::MERGE_B) + ell, layout::ints(ell));
            assert_eq!(layout::merge_delta(ell) + ell + ell * (ell - 1), layout::dbls(ell));
        }
    }
}
