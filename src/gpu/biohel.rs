//! BioHEL's rule evaluation on the GPU (Franco, Krasnogor & Bacardit, GECCO 2010,
//! Section 3), checked against the CPU reference in `library::biohel`.
//!
//! [`GpuEvaluator`] implements the library's [`RuleEvaluator`], so every
//! experiment and the learning system run unchanged on it. Two designs
//! (`kernels/biohel.cu`):
//! - [`Design::Paper`]: the paper's kernel 1 (one thread per rule × instance,
//!   blocks of 512 instances and one rule, three counts reduced at once in shared
//!   memory) and kernel 2 (the per-block partials reduced per rule and metric);
//! - [`Design::Ballot`]: warps count 32 instances per vote instruction for a tile
//!   of rules, one atomic per block, rule and metric.
//!
//! The instances are uploaded once per [`RuleEvaluator::load`] (the paper: once per
//! GA) attribute-major, and windows are addressed by offset (Section 3.3). When
//! they do not fit the memory budget, [`MemoryPlan`] (Section 3.1) splits rules and
//! instances into passes, re-uploading instance chunks per call as the paper does.

use super::{Gpu, KernelSource, ensure_len, launch_err};
use crate::library::biohel::{Condition, Counts, Rule, RuleEvaluator, check_input};
use crate::library::dataset::Dataset;
use anyhow::{Result, bail, ensure};
use cudarc::driver::sys::{CU_MEMHOSTALLOC_WRITECOMBINED, CUevent_flags};
use cudarc::driver::{CudaEvent, CudaSlice, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use std::ops::Range;

/// `kernels/biohel.cu`.
pub const BIOHEL_CU: KernelSource = KernelSource { file: "biohel.cu", code: include_str!("../../kernels/biohel.cu") };

/// Words per encoded condition (the kernel's `COND_WORDS`).
const COND_WORDS: usize = 6;
/// Instances per block of the paper's kernel 1 (Section 3.1: 512 threads).
pub const PAPER_BLOCK: usize = 512;
/// Threads of the paper's kernel 2.
const REDUCE_BLOCK: u32 = 256;
/// Rules per block of the ballot kernel (the kernel's `TILE_RULES`).
const TILE_RULES: usize = 32;
/// Most warps per block of the ballot kernel, and instances per block (one pass of
/// its 8 warps × 32 lanes × 4 instances at span 4).
const BALLOT_WARPS: usize = 8;
const BALLOT_CHUNK: usize = 1024;
/// Rules and packed rule words the buffers are first made for.
const INITIAL_RULES: usize = 4096;
const INITIAL_RULE_WORDS: usize = 1 << 20;
/// Warps per SM the ballot launch aims at (see [`BallotShape`]).
const BALLOT_WARPS_PER_SM: usize = 32;
/// Instances per lane of the ballot kernel (the kernel's `BALLOT_SPAN`; spans 1
/// and 2 measured no faster, GPU notes).
const BALLOT_SPAN: usize = 4;
/// Most blocks in a launch's second grid dimension (CUDA's limit).
const GRID_Y_MAX: usize = 65_535;
/// Values per staged chunk of the instance upload (64 MB; the kernel's
/// `TRANSPOSE_TILE` and `TRANSPOSE_ROWS` shape its blocks).
const STAGE_FLOATS: usize = 1 << 24;
const TRANSPOSE_TILE: usize = 32;
const TRANSPOSE_ROWS: u32 = 8;
/// Bytes of kernel 1's output per (rule, block): three u32 (the paper's A).
const OUTPUT_BYTES: usize = 12;

/// Which kernels evaluate the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// The paper's two kernels (Section 3.2).
    Paper,
    /// Warp votes over a tile of rules, one kernel.
    Ballot,
}

impl Design {
    pub fn label(self) -> &'static str {
        match self {
            Design::Paper => "cuda-paper",
            Design::Ballot => "cuda-ballot",
        }
    }
}

/// How many rules (x) and instances (y) one pass holds on the device (Section 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    pub rules_per_pass: usize,
    pub instances_per_pass: usize,
}

impl MemoryPlan {
    /// The paper's plan for a budget of `md` bytes, `mi` bytes per instance, `mc`
    /// per rule: everything when MD ≥ x·MC + y·MI + x·⌈y/512⌉·A (eq. 1) holds for
    /// all rules and instances; else all rules and as many instances as fit; else
    /// half the memory for each (eq. 2), x from the quadratic (eq. 4)
    /// MD = x(2MC + A) + x²·A·MC / (512·MI), and y = x·MC / MI.
    pub fn new(md: usize, mi: usize, mc: usize, rules: usize, instances: usize) -> Result<MemoryPlan> {
        let a = OUTPUT_BYTES;
        let need = |x: usize, y: usize| x * mc + y * mi + x * y.div_ceil(PAPER_BLOCK) * a;
        let (rules, instances) = (rules.max(1), instances.max(1));
        if need(rules, instances) <= md {
            return Ok(MemoryPlan { rules_per_pass: rules, instances_per_pass: instances });
        }
        // All rules, y instances: y·MI + R·(y/512 + 1)·A ≤ MD − R·MC (eq. 3's worst case).
        let room = md as f64 - (rules * (mc + a)) as f64;
        let y = (room / (mi as f64 + (rules * a) as f64 / PAPER_BLOCK as f64)).floor();
        if y >= PAPER_BLOCK as f64 {
            let y = (y as usize).min(instances);
            return Ok(MemoryPlan { rules_per_pass: rules, instances_per_pass: y });
        }
        let (qa, qb, qc) = ((a * mc) as f64 / (PAPER_BLOCK * mi) as f64, (2 * mc + a) as f64, -(md as f64));
        let x = ((-qb + (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa)).floor();
        let y = (x * mc as f64 / mi as f64).floor();
        if x < 1.0 || y < 1.0 || need(1, 1) > md {
            bail!("out of device memory: one rule ({mc} B) and one instance ({mi} B) do not fit a budget of {md} B");
        }
        Ok(MemoryPlan { rules_per_pass: (x as usize).min(rules), instances_per_pass: (y as usize).min(instances) })
    }

    pub fn passes(&self, rules: usize, instances: usize) -> usize {
        rules.div_ceil(self.rules_per_pass).max(1) * instances.div_ceil(self.instances_per_pass).max(1)
    }
}

/// The ballot kernel's launch for `rules` rules over `window` instances: a block
/// per (tile of 32 rules, chunk of instances, share of the tile's rule slices).
/// A chunk holds groups of 32 · [`BALLOT_SPAN`] instances, one warp each; a tile
/// splits into `slices` rule slices (rules q, q + slices, …). Chunks are halved
/// (down to one group) and then slices doubled (up to one rule per warp) until
/// the grid holds [`BALLOT_WARPS_PER_SM`] warps per SM; a block's warps take its
/// (group, slice) pairs, at most [`BALLOT_WARPS`] at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BallotShape {
    tiles: usize,
    chunk: usize,
    chunks: usize,
    /// Rule slices of a tile, and blocks that share them (the grid's third dimension).
    slices: usize,
    slice_blocks: usize,
    warps: usize,
}

impl BallotShape {
    fn new(rules: usize, window: usize, sms: usize) -> BallotShape {
        let group = 32 * BALLOT_SPAN;
        let target = sms * BALLOT_WARPS_PER_SM;
        let tiles = rules.div_ceil(TILE_RULES);
        let mut chunk = BALLOT_CHUNK.max(window.div_ceil(GRID_Y_MAX));
        while chunk > group && tiles * window.div_ceil(chunk) * BALLOT_WARPS < target {
            chunk /= 2;
        }
        let chunks = window.div_ceil(chunk);
        let groups = chunk.min(window).div_ceil(group);
        // Slices per block: as many as fill its warps (a power of two).
        let fit = BALLOT_WARPS / groups.min(BALLOT_WARPS);
        let per_block = 1 << fit.ilog2();
        let warps = (groups * per_block).min(BALLOT_WARPS);
        let mut slice_blocks = 1;
        while per_block * slice_blocks * 2 <= TILE_RULES && tiles * chunks * slice_blocks * warps < target {
            slice_blocks *= 2;
        }
        BallotShape { tiles, chunk, chunks, slices: per_block * slice_blocks, slice_blocks, warps }
    }
}

/// Words of [`pack`]'s output for `rules`: a class and a start per rule, the end
/// start, and the rules' conditions.
fn pack_len(rule_start: &[i32], rules: Range<usize>) -> usize {
    let conditions = (rule_start[rules.end] - rule_start[rules.start]) as usize;
    2 * rules.len() + 1 + conditions * COND_WORDS
}

/// Writes rules `rules` of the encoded arrays into `out` as the kernels read one
/// pass: `rule_class` (one word per rule), `rule_start` rebased to the pass's first
/// condition (one more word), then the conditions.
fn pack(rule_class: &[i32], rule_start: &[i32], conds: &[u32], rules: Range<usize>, out: &mut [u32]) {
    let count = rules.len();
    let (c0, c1) = (rule_start[rules.start], rule_start[rules.end]);
    let (class, rest) = out.split_at_mut(count);
    let (start, cond) = rest.split_at_mut(count + 1);
    for (o, &c) in class.iter_mut().zip(&rule_class[rules.clone()]) {
        *o = c as u32;
    }
    for (o, &s) in start.iter_mut().zip(&rule_start[rules.start..=rules.end]) {
        *o = (s - c0) as u32;
    }
    cond.copy_from_slice(&conds[c0 as usize * COND_WORDS..c1 as usize * COND_WORDS]);
}

/// Makes `buf` a pinned host buffer of at least `len` words (grown to a power of
/// two); `write_only` buffers are write-combined (fast to fill and to send, slow to
/// read on the host).
fn grow_pinned(gpu: &Gpu, buf: &mut Option<PinnedHostSlice<u32>>, len: usize, write_only: bool) -> Result<(), DriverError> {
    if buf.as_ref().is_none_or(|b| b.len() < len) {
        let len = len.max(1).next_power_of_two();
        let flags = if write_only { CU_MEMHOSTALLOC_WRITECOMBINED } else { 0 };
        // SAFETY: every word is written (pack, or the copy back) before it is read.
        *buf = Some(unsafe { gpu.ctx.alloc_pinned_with_flags::<u32>(len, flags) }?);
    }
    Ok(())
}

/// Bytes of one instance on the device: its attribute values and label.
pub fn instance_bytes(data: &Dataset) -> usize {
    data.attribute_count() * 4 + 2
}

/// Bytes of one rule with `conditions` conditions: class, start and conditions.
pub fn rule_bytes(conditions: usize) -> usize {
    8 + conditions * COND_WORDS * 4
}

/// Which instance set is on the device: its identity (addresses and sizes, as the
/// caller must [`RuleEvaluator::load`] again after changing it) and its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loaded {
    values: *const f32,
    labels: *const u16,
    instances: usize,
    attributes: usize,
}

/// Counters of what the evaluator moved and launched, for the reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct Transfers {
    /// Instance uploads (whole sets at load, or chunks per pass) and their bytes.
    pub instance_uploads: usize,
    pub instance_bytes: usize,
    pub passes: usize,
    /// Seconds between CUDA events around the match kernels of every pass (the
    /// ballot design's zeroing of the counts included).
    pub kernel_s: f64,
}

/// The GPU [`RuleEvaluator`].
pub struct GpuEvaluator<'g> {
    gpu: &'g Gpu,
    design: Design,
    /// Memory budget in bytes (default: 90% of the device memory free at creation).
    budget: usize,
    loaded: Option<Loaded>,
    /// The instances [`resident`] on the device, attribute-major, or the chunk of
    /// the current pass.
    resident: Option<Range<usize>>,
    values: Option<CudaSlice<f32>>,
    labels: Option<CudaSlice<u16>>,
    /// Row-major chunks of instances on their way to `values`.
    stage: Option<CudaSlice<f32>>,
    rule_class: Vec<i32>,
    rule_start: Vec<i32>,
    conds: Vec<u32>,
    /// One pass's rules as the kernels read them, [`pack`]ed: classes, condition
    /// starts, conditions; written into pinned `staging` and copied in one transfer.
    staging: Option<PinnedHostSlice<u32>>,
    d_rules: Option<CudaSlice<u32>>,
    d_partial: Option<CudaSlice<u32>>,
    d_counts: Option<CudaSlice<u32>>,
    /// The counts copied back (pinned, so the copy is one DMA).
    host_counts: Option<PinnedHostSlice<u32>>,
    /// Recorded before and after the match kernels of a pass.
    events: [CudaEvent; 2],
    pub transfers: Transfers,
}

impl<'g> GpuEvaluator<'g> {
    /// Compiles the kernels now, so no timed evaluation pays for NVRTC.
    pub fn new(gpu: &'g Gpu, design: Design) -> Result<Self> {
        for k in ["biohel_transpose", "biohel_match_paper", "biohel_reduce_paper", "biohel_match_ballot"] {
            gpu.function(&BIOHEL_CU, k)?;
        }
        let (free, _) = gpu.ctx.mem_get_info().map_err(launch_err("cuMemGetInfo"))?;
        let e = launch_err("BioHEL evaluator buffers");
        let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(&e);
        // Rule and count buffers for a typical population (500 rules of 30
        // conditions take 90k words) now, so that no timed call pays for them.
        let (mut staging, mut host_counts, mut d_rules, mut d_counts) = (None, None, None, None);
        grow_pinned(gpu, &mut staging, INITIAL_RULE_WORDS, true).map_err(&e)?;
        grow_pinned(gpu, &mut host_counts, 3 * INITIAL_RULES, false).map_err(&e)?;
        ensure_len(gpu, &mut d_rules, INITIAL_RULE_WORDS).map_err(&e)?;
        ensure_len(gpu, &mut d_counts, 3 * INITIAL_RULES).map_err(&e)?;
        Ok(GpuEvaluator {
            gpu,
            design,
            budget: free / 10 * 9,
            loaded: None,
            resident: None,
            values: None,
            labels: None,
            stage: None,
            rule_class: Vec::new(),
            rule_start: Vec::new(),
            conds: Vec::new(),
            staging,
            d_rules,
            d_partial: None,
            d_counts,
            host_counts,
            events: [event()?, event()?],
            transfers: Transfers::default(),
        })
    }

    /// Plans with a budget of `bytes` instead of the free device memory (to test
    /// the split passes of Section 3.1 on any device).
    pub fn with_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        self
    }

    /// The plan for `rules` rules of at most `conditions` conditions over `window`
    /// instances of `data`.
    pub fn plan(&self, data: &Dataset, rules: usize, conditions: usize, window: usize) -> Result<MemoryPlan> {
        MemoryPlan::new(self.budget, instance_bytes(data), rule_bytes(conditions), rules, window)
    }

    /// Uploads instances `range` of `data`, unless already there: the rows as the
    /// data set stores them, in staged chunks of at most [`STAGE_FLOATS`] values,
    /// each transposed on the device into the attribute-major `values`.
    fn upload_instances(&mut self, data: &Dataset, range: Range<usize>) -> Result<()> {
        if self.resident.as_ref() == Some(&range) {
            return Ok(());
        }
        let e = launch_err("BioHEL instance upload");
        let (n, attrs) = (range.len(), data.attribute_count());
        let stage_rows = (STAGE_FLOATS / attrs.max(1)).clamp(1, n.max(1));
        self.gpu.ensure_fits("BioHEL instances and their staging buffer", n * instance_bytes(data) + stage_rows * attrs * 4)?;
        let gpu = self.gpu;
        ensure_len(gpu, &mut self.values, (n * attrs).max(1)).map_err(&e)?;
        ensure_len(gpu, &mut self.labels, n.max(1)).map_err(&e)?;
        ensure_len(gpu, &mut self.stage, (stage_rows * attrs).max(1)).map_err(&e)?;
        let (Some(values), Some(labels), Some(stage)) = (&mut self.values, &mut self.labels, &mut self.stage) else { unreachable!() };
        let stream = &gpu.stream;
        let transpose = gpu.function(&BIOHEL_CU, "biohel_transpose")?;
        let (n_i, attrs_i) = (n as i32, attrs as i32);
        for r0 in (0..n).step_by(stage_rows) {
            let rows = stage_rows.min(n - r0);
            let first = range.start + r0;
            stream.memcpy_htod(&data.values[first * attrs..(first + rows) * attrs], &mut stage.slice_mut(0..rows * attrs)).map_err(&e)?;
            if attrs == 0 {
                continue;
            }
            let (rows_i, r0_i) = (rows as i32, r0 as i32);
            let mut l = stream.launch_builder(&transpose);
            l.arg(&*stage).arg(&rows_i).arg(&attrs_i).arg(&mut *values).arg(&n_i).arg(&r0_i);
            let tile = TRANSPOSE_TILE as u32;
            let cfg = LaunchConfig {
                grid_dim: (rows.div_ceil(TRANSPOSE_TILE) as u32, attrs.div_ceil(TRANSPOSE_TILE) as u32, 1),
                block_dim: (tile, TRANSPOSE_ROWS, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: block (x, y) reads stage[k·attrs + a] for k < rows, a < attrs
            // (rows·attrs ≤ the stage's length) and writes values[a·n + r0 + k] with
            // r0 + k < n, a < attrs (n·attrs ≤ the values' length).
            unsafe { l.launch(cfg) }.map_err(&e)?;
        }
        stream.memcpy_htod(&data.labels[range.clone()], &mut labels.slice_mut(0..n)).map_err(&e)?;
        self.transfers.instance_uploads += 1;
        self.transfers.instance_bytes += n * instance_bytes(data);
        self.resident = Some(range);
        Ok(())
    }

    /// Encodes `rules` into the flat arrays the kernels read.
    fn encode(&mut self, rules: &[Rule]) {
        self.rule_class.clear();
        self.rule_start.clear();
        self.conds.clear();
        for rule in rules {
            self.rule_class.push(i32::from(rule.class));
            self.rule_start.push((self.conds.len() / COND_WORDS) as i32);
            for c in &rule.conditions {
                match *c {
                    Condition::Interval { attribute, low, high } => {
                        self.conds.extend([attribute, 0, low.to_bits(), high.to_bits(), 0, 0]);
                    }
                    Condition::Values { attribute, mask } => {
                        let w = |k: u32| (mask >> (32 * k)) as u32;
                        self.conds.extend([attribute, 1, w(0), w(1), w(2), w(3)]);
                    }
                }
            }
        }
        self.rule_start.push((self.conds.len() / COND_WORDS) as i32);
    }

    /// Counts of rules `rules` (indices into the encoded arrays) over instances
    /// `offset..offset + window` of the resident chunk, added into `out`.
    fn launch(&mut self, rules: Range<usize>, offset: usize, window: usize, out: &mut [Counts]) -> Result<()> {
        let count = rules.len();
        if count == 0 || window == 0 {
            return Ok(());
        }
        let e = launch_err("biohel");
        let gpu = self.gpu;
        let stream = &gpu.stream;
        // This pass's rules, packed into the pinned staging buffer and copied in one
        // transfer (no host synchronisation: the copy back below waits for it).
        let words = pack_len(&self.rule_start, rules.clone());
        grow_pinned(gpu, &mut self.staging, words, true).map_err(&e)?;
        grow_pinned(gpu, &mut self.host_counts, 3 * count, false).map_err(&e)?;
        ensure_len(gpu, &mut self.d_rules, words).map_err(&e)?;
        ensure_len(gpu, &mut self.d_counts, 3 * count).map_err(&e)?;
        let (Some(staging), Some(host_counts), Some(d_rules), Some(d_counts)) =
            (&mut self.staging, &mut self.host_counts, &mut self.d_rules, &mut self.d_counts)
        else {
            unreachable!()
        };
        let packed = &mut staging.as_mut_slice().map_err(&e)?[..words];
        pack(&self.rule_class, &self.rule_start, &self.conds, rules.clone(), packed);
        // A plain slice of pinned memory: an asynchronous DMA, which the stream
        // orders before the kernels.
        stream.memcpy_htod(&*packed, &mut d_rules.slice_mut(0..words)).map_err(&e)?;
        let d_class = d_rules.slice(0..count);
        let d_start = d_rules.slice(count..2 * count + 1);
        let d_conds = d_rules.slice(2 * count + 1..words);
        let (Some(values), Some(labels), Some(resident)) = (&self.values, &self.labels, &self.resident) else {
            bail!("BioHEL GPU evaluator used before its instances were uploaded")
        };
        let n = resident.len() as i32;
        let (offset, window_i, rules_i) = (offset as i32, window as i32, count as i32);
        self.events[0].record(stream).map_err(&e)?;
        match self.design {
            Design::Paper => {
                let blocks = window.div_ceil(PAPER_BLOCK);
                ensure_len(gpu, &mut self.d_partial, 3 * count * blocks).map_err(&e)?;
                let Some(partial) = &mut self.d_partial else { unreachable!() };
                let k1 = gpu.function(&BIOHEL_CU, "biohel_match_paper")?;
                let mut l = stream.launch_builder(&k1);
                l.arg(values).arg(labels).arg(&n).arg(&offset).arg(&window_i).arg(&d_class).arg(&d_start).arg(&d_conds);
                l.arg(&rules_i).arg(&mut *partial);
                let cfg = LaunchConfig {
                    grid_dim: (blocks as u32, count as u32, 1),
                    block_dim: (PAPER_BLOCK as u32, 1, 1),
                    shared_mem_bytes: 3 * PAPER_BLOCK as u32 * 4,
                };
                // SAFETY: thread (b, r) reads instance offset + b·512 + t < offset +
                // window ≤ n of the resident chunk (values a·n + i for attributes a
                // of the checked rules), rule r < count of d_class/d_start and its
                // conditions below starts[count] = c1 − c0; it writes
                // partial[(m·count + r)·blocks + b] < 3·count·blocks.
                unsafe { l.launch(cfg) }.map_err(&e)?;
                let k2 = gpu.function(&BIOHEL_CU, "biohel_reduce_paper")?;
                let blocks_i = blocks as i32;
                let mut l = stream.launch_builder(&k2);
                l.arg(&*partial).arg(&blocks_i).arg(&rules_i).arg(&mut *d_counts);
                let cfg =
                    LaunchConfig { grid_dim: (count as u32, 3, 1), block_dim: (REDUCE_BLOCK, 1, 1), shared_mem_bytes: REDUCE_BLOCK * 4 };
                // SAFETY: block (r, m) reads row (m·count + r) of `blocks` partials
                // written above and writes counts[r·3 + m] < 3·count.
                unsafe { l.launch(cfg) }.map_err(&e)?;
            }
            Design::Ballot => {
                stream.memset_zeros(&mut d_counts.slice_mut(0..3 * count)).map_err(&e)?;
                let k = gpu.function(&BIOHEL_CU, "biohel_match_ballot")?;
                let shape = BallotShape::new(count, window, gpu.info.sms.max(1) as usize);
                let (chunk_i, slices_i) = (shape.chunk as i32, shape.slices as i32);
                let mut l = stream.launch_builder(&k);
                l.arg(values).arg(labels).arg(&n).arg(&offset).arg(&window_i).arg(&d_class).arg(&d_start).arg(&d_conds);
                l.arg(&rules_i).arg(&chunk_i).arg(&slices_i).arg(&mut *d_counts);
                let cfg = LaunchConfig {
                    grid_dim: (shape.tiles as u32, shape.chunks as u32, shape.slice_blocks as u32),
                    block_dim: (32 * shape.warps as u32, 1, 1),
                    shared_mem_bytes: 0,
                };
                // SAFETY: block (t, c) reads instances offset + k, k < window, of the
                // resident chunk and rules t·32 + j < count; it adds into counts
                // [(t·32 + j)·3 + m] < 3·count.
                unsafe { l.launch(cfg) }.map_err(&e)?;
            }
        }
        self.events[1].record(stream).map_err(&e)?;
        let counts = &mut host_counts.as_mut_slice().map_err(&e)?[..3 * count];
        stream.memcpy_dtoh(&d_counts.slice(0..3 * count), &mut *counts).map_err(&e)?;
        stream.synchronize().map_err(&e)?;
        self.transfers.kernel_s += f64::from(self.events[0].elapsed_ms(&self.events[1]).map_err(&e)?) / 1e3;
        for (o, c) in out.iter_mut().zip(counts.chunks_exact(3)) {
            o.matched += c[0];
            o.correct += c[1];
            o.matched_and_correct += c[2];
        }
        self.transfers.passes += 1;
        Ok(())
    }

    fn identity(data: &Dataset) -> Loaded {
        Loaded {
            values: data.values.as_ptr(),
            labels: data.labels.as_ptr(),
            instances: data.instances(),
            attributes: data.attribute_count(),
        }
    }
}

impl RuleEvaluator for GpuEvaluator<'_> {
    fn name(&self) -> String {
        format!("{} ({})", self.design.label(), self.gpu.info.name)
    }

    /// Uploads the whole set when it fits the budget (with no rules yet, the plan
    /// keeps half the budget for them); otherwise each call uploads chunks.
    fn load(&mut self, data: &Dataset) -> Result<()> {
        self.loaded = Some(Self::identity(data));
        self.resident = None;
        if data.instances() * instance_bytes(data) <= self.budget / 2 {
            self.upload_instances(data, 0..data.instances())?;
        }
        Ok(())
    }

    fn evaluate(&mut self, data: &Dataset, window: Range<usize>, rules: &[Rule], out: &mut Vec<Counts>) -> Result<()> {
        check_input(data, &window, rules)?;
        ensure!(
            self.loaded == Some(Self::identity(data)),
            "BioHEL GPU evaluator: `{}` was not loaded (call RuleEvaluator::load when the instance set changes)",
            data.name
        );
        out.clear();
        out.resize(rules.len(), Counts::default());
        if rules.is_empty() || window.is_empty() {
            return Ok(());
        }
        let conditions = rules.iter().map(|r| r.conditions.len()).max().unwrap_or(0);
        let plan = self.plan(data, rules.len(), conditions, window.len())?;
        self.encode(rules);
        let whole = 0..data.instances();
        let resident_whole = self.resident.as_ref() == Some(&whole);
        let mut start = window.start;
        while start < window.end {
            let end = (start + plan.instances_per_pass).min(window.end);
            let offset = if resident_whole {
                start
            } else {
                self.upload_instances(data, start..end)?;
                0
            };
            let mut r = 0;
            while r < rules.len() {
                let r_end = (r + plan.rules_per_pass).min(rules.len());
                self.launch(r..r_end, offset, end - start, &mut out[r..r_end])?;
                r = r_end;
            }
            start = end;
        }
        Ok(())
    }

    fn device_seconds(&self) -> Option<f64> {
        Some(self.transfers.kernel_s)
    }
}

/// One data set checked by [`self_check`].
#[derive(Clone, Debug)]
pub struct CheckLine {
    pub dataset: String,
    pub design: Design,
    pub windows: usize,
    pub rules: usize,
    /// (rule, window) counts compared, and those differing from the CPU's.
    pub compared: usize,
    pub differing: usize,
    /// Passes per call under the forced small budget (0: the device's budget).
    pub budget_passes: usize,
}

/// Checks both designs against [`crate::library::biohel::SerialEvaluator`] on
/// fresh random rules: every window of `windows` ILAS strata, counts equal
/// exactly; then again under a budget so small that rules and instances are split
/// into several passes (Section 3.1).
pub fn self_check(gpu: &Gpu, seed: u64, sets: &[Dataset], windows: usize, rules: usize) -> Result<Vec<CheckLine>> {
    use crate::library::biohel::{SerialEvaluator, ilas_strata, random_rule, window_range};
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut lines = Vec::new();
    for (s, set) in sets.iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(s as u64));
        let data = set.subset(&ilas_strata(&set.labels, windows, rng.random()));
        let population: Vec<Rule> = (0..rules)
            .map(|_| {
                let expressed = rng.random_range(0.05..0.6);
                random_rule(&data, &mut rng, expressed)
            })
            .collect();
        let mut want = Vec::new();
        let mut got = Vec::new();
        for design in [Design::Paper, Design::Ballot] {
            // A budget holding about a quarter of the window and of the rules.
            let w = window_range(data.instances(), windows, 0).len();
            let conditions = population.iter().map(|r| r.conditions.len()).max().unwrap_or(0);
            let small = (w / 4).max(1) * instance_bytes(&data) + (rules / 4).max(1) * rule_bytes(conditions) * 2;
            for budget in [None, Some(small)] {
                let mut dev = GpuEvaluator::new(gpu, design)?;
                if let Some(b) = budget {
                    dev = dev.with_budget(b);
                }
                dev.load(&data)?;
                let (mut compared, mut differing) = (0, 0);
                for t in 0..windows {
                    let window = window_range(data.instances(), windows, t);
                    SerialEvaluator.evaluate(&data, window.clone(), &population, &mut want)?;
                    dev.evaluate(&data, window, &population, &mut got)?;
                    compared += want.len();
                    differing += want.iter().zip(&got).filter(|(a, b)| a != b).count() + want.len().abs_diff(got.len());
                }
                let budget_passes = match budget {
                    Some(_) => dev.plan(&data, rules, conditions, w)?.passes(rules, w),
                    None => 0,
                };
                lines.push(CheckLine { dataset: data.name.clone(), design, windows, rules, compared, differing, budget_passes });
            }
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_kernel() {
        for define in [format!("#define COND_WORDS {COND_WORDS}\n"), format!("#define TILE_RULES {TILE_RULES}\n")]
            .into_iter()
            .chain([format!("#define BALLOT_SPAN {BALLOT_SPAN}\n")])
            .chain([format!("#define TRANSPOSE_TILE {TRANSPOSE_TILE}\n"), format!("#define TRANSPOSE_ROWS {TRANSPOSE_ROWS}\n")])
        {
            assert!(BIOHEL_CU.code.contains(&define), "kernels/biohel.cu lacks `{}`", define.trim());
        }
    }

    #[test]
    fn ballot_shape_fills_the_device_with_smaller_chunks_then_rule_slices() {
        let warps = |b: &BallotShape| b.tiles * b.chunks * b.slice_blocks * b.warps;
        // A window of 100: one group per tile; every rule of the 16 tiles gets a warp.
        let small = BallotShape::new(500, 100, 132);
        assert_eq!(small, BallotShape { tiles: 16, chunk: 128, chunks: 1, slices: 32, slice_blocks: 4, warps: 8 });
        // 10⁴ instances: chunks of 256 (40 × 16 tiles × 8 warps ≥ 132 × 32), two
        // groups of 128 instances and four rule slices per block.
        let mid = BallotShape::new(500, 10_000, 132);
        assert_eq!(mid, BallotShape { tiles: 16, chunk: 256, chunks: 40, slices: 4, slice_blocks: 1, warps: 8 });
        assert!(warps(&mid) >= 132 * BALLOT_WARPS_PER_SM);
        // 10⁶ instances fill the device with whole chunks and no slices.
        let large = BallotShape::new(500, 1_000_000, 132);
        assert_eq!((large.chunk, large.chunks, large.slices, large.warps), (1024, 977, 1, 8));
        // Three groups in a short window: two slices per block (a power of two: six
        // warps), and two blocks per chunk and tile.
        let odd = BallotShape::new(128, 300, 1);
        assert_eq!((odd.chunks, odd.slices, odd.slice_blocks, odd.warps), (1, 4, 2, 6));
        // The second grid dimension stays within CUDA's limit, every instance in a chunk.
        let huge = BallotShape::new(32, 100_000_000, 132);
        assert!(huge.chunks <= GRID_Y_MAX && huge.chunks * huge.chunk >= 100_000_000);
        assert_eq!((huge.slices, huge.warps), (1, 8));
    }

    #[test]
    fn everything_fits_a_large_budget() {
        let p = MemoryPlan::new(1 << 30, 100, 1000, 500, 100_000).unwrap();
        assert_eq!(p, MemoryPlan { rules_per_pass: 500, instances_per_pass: 100_000 });
        assert_eq!(p.passes(500, 100_000), 1);
    }

    #[test]
    fn all_rules_and_part_of_the_instances_when_only_the_rules_fit() {
        // 500 rules × 1000 B = 0.5 MB; 1e6 instances × 100 B = 100 MB > 10 MB.
        let (md, mi, mc, x) = (10 << 20, 100, 1000, 500);
        let p = MemoryPlan::new(md, mi, mc, x, 1_000_000).unwrap();
        assert_eq!(p.rules_per_pass, x);
        let y = p.instances_per_pass;
        let need = |y: usize| x * mc + y * mi + x * y.div_ceil(PAPER_BLOCK) * OUTPUT_BYTES;
        assert!(need(y) <= md && need(y + PAPER_BLOCK) > md, "y = {y} is not the largest that fits");
    }

    #[test]
    fn the_quadratic_splits_both_when_neither_fits() {
        let (md, mi, mc) = (1 << 20, 100, 10_000);
        let p = MemoryPlan::new(md, mi, mc, 10_000, 1_000_000).unwrap();
        let (x, y) = (p.rules_per_pass, p.instances_per_pass);
        assert!(x < 10_000 && y < 1_000_000);
        // Half the memory each (eq. 2), within one rule's worth; eq. 1 holds.
        assert!((x * mc).abs_diff(y * mi) <= mc, "x·MC = {} vs y·MI = {}", x * mc, y * mi);
        assert!(x * mc + y * mi + x * y.div_ceil(PAPER_BLOCK) * OUTPUT_BYTES <= md);
        assert_eq!(p.passes(10_000, 1_000_000), 10_000usize.div_ceil(x) * 1_000_000usize.div_ceil(y));
    }

    #[test]
    fn an_impossible_budget_is_an_error_naming_the_sizes() {
        let err = MemoryPlan::new(100, 100, 1000, 10, 10).unwrap_err().to_string();
        assert!(err.contains("out of device memory") && err.contains("1000 B"), "{err}");
    }
}
