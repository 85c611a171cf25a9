//! The four GPU evaluation strategies of the layout paper (Section 3.2), driving
//! `kernels/layout.cu`, timed as the paper times them: host→device copy, kernel
//! and device→host copy (CUDA events for each part, a host clock for the whole).
//! The CPU reference they are checked against is `library::nonseparable`.

use super::{Gpu, KernelSource, LAYOUT_CU, launch_err};
use crate::error::GpuError;
use crate::library::nonseparable::Function;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, LaunchConfig, PinnedHostSlice, PushKernelArg};
use std::fmt;
use std::time::Instant;

/// A GPU strategy of Section 3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// One individual per thread, registers, individual-major (strided) reads.
    S1,
    /// As S1 with the stencil in shared memory.
    S2,
    /// One individual per block, shared memory, coalesced, atomicAdd reduction.
    S3,
    /// One individual per thread, registers, dimension-major (coalesced) reads.
    S4,
    /// Not in the paper: S4 with the population cut into warp-wide strips and
    /// the terms into chunks, one wave of blocks filling the GPU whatever the
    /// population; chunk sums added in a fixed order in the same kernel.
    S4Split,
}

impl Strategy {
    pub const ALL: [Strategy; 5] = [Strategy::S1, Strategy::S2, Strategy::S3, Strategy::S4, Strategy::S4Split];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::S1 => "S1",
            Strategy::S2 => "S2",
            Strategy::S3 => "S3",
            Strategy::S4 => "S4",
            Strategy::S4Split => "S4-split",
        }
    }

    pub fn from_name(s: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|x| x.name() == s)
    }

    /// S4 and S4-split read the transposed population.
    pub fn dimension_major(self) -> bool {
        matches!(self, Strategy::S4 | Strategy::S4Split)
    }

    /// S3 has one thread per coordinate and S4-split its own fixed block: the
    /// others are timed at each block size of the spec (Section 4.1).
    pub fn searches_block_size(self) -> bool {
        !matches!(self, Strategy::S3 | Strategy::S4Split)
    }

    fn kernel(self, f: Function) -> String {
        format!("{}_{}", self.name().to_lowercase().replace('-', "_"), f.name())
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Times of one evaluation, milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timing {
    pub h2d_ms: f64,
    pub kernel_ms: f64,
    pub d2h_ms: f64,
    /// First event to last (device timeline).
    pub events_ms: f64,
    /// Host clock from before the copy is issued until the result is on the host.
    pub wall_ms: f64,
}

/// The launch of one strategy at one size (configuration and threads per
/// block), or why it cannot run there (the paper's NAN).
pub type Launch = Result<(LaunchConfig, u32), String>;

/// The [`Launch`] of strategy `s` at `block` threads per block (ignored by S3
/// and S4-split, which size their own blocks).
pub fn launch_config(gpu: &Gpu, f: Function, s: Strategy, pop: usize, dim: usize, block: u32) -> Result<Launch, GpuError> {
    let max_threads = gpu.info.max_threads_per_block as usize;
    let max_smem = gpu.info.max_smem_per_block as usize;
    let one_d = |threads: u32, grid: u32, smem: usize| LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    let grid = (pop as u32).div_ceil(block.max(1));
    Ok(match s {
        Strategy::S4Split => {
            let plan = split_plan(gpu, f, pop, dim)?;
            let grid_dim = (plan.strips as u32, plan.groups as u32, 1);
            Ok((LaunchConfig { grid_dim, block_dim: (SPLIT_THREADS, 1, 1), shared_mem_bytes: 0 }, SPLIT_THREADS))
        }
        Strategy::S1 | Strategy::S4 => Ok((one_d(block, grid, 0), block)),
        Strategy::S2 => {
            let smem = block as usize * f.window() * 4;
            if smem > max_smem {
                Err(format!("stencil needs {smem} B of shared memory per block, the device allows {max_smem} B"))
            } else {
                Ok((one_d(block, grid, smem), block))
            }
        }
        Strategy::S3 => {
            let smem = (dim + 1) * 4;
            if dim > max_threads {
                Err(format!("dimension {dim} exceeds the device's {max_threads} threads per block"))
            } else if smem > max_smem {
                Err(format!("individual needs {smem} B of shared memory, the device allows {max_smem} B"))
            } else {
                Ok((one_d(dim as u32, pop as u32, smem), dim as u32))
            }
        }
    })
}

/// Warps of an S4-split block (`SPLIT_WARPS` in `kernels/layout.cu`).
const SPLIT_WARPS: usize = 8;
const SPLIT_THREADS: u32 = SPLIT_WARPS as u32 * 32;
/// Fewest terms one S4-split warp sums.
const SPLIT_MIN_TERMS: usize = 8;

/// How S4-split cuts one evaluation (see `kernels/layout.cu`).
#[derive(Clone, Copy, Debug)]
struct SplitPlan {
    /// Individuals per thread: 4 (float4 loads) when the population is a
    /// multiple of 4, else 1.
    lanes: usize,
    /// Warp-wide strips of 32 · lanes individuals (grid x).
    strips: usize,
    /// Blocks per strip (grid y), each summing `SPLIT_WARPS` chunks of terms.
    groups: usize,
    /// Terms per chunk.
    chunk_len: usize,
}

/// One wave of resident blocks (the occupancy the driver reports for this
/// kernel) spread over the strips, with at least `SPLIT_MIN_TERMS` terms per warp.
fn split_plan(gpu: &Gpu, f: Function, pop: usize, dim: usize) -> Result<SplitPlan, GpuError> {
    let lanes = split_lanes(pop);
    let func = gpu.function(&LAYOUT_CU, &split_kernel(f, lanes))?;
    let per_sm = func.occupancy_max_active_blocks_per_multiprocessor(SPLIT_THREADS, 0, None).map_err(launch_err("S4-split occupancy"))?;
    let strips = pop.div_ceil(32 * lanes).max(1);
    let wave = gpu.info.sms as usize * per_sm.max(1) as usize;
    // Whole blocks per strip within the wave (rounding up would start a second,
    // nearly empty wave).
    let groups = (wave / strips).min(split_terms(f, dim) / (SPLIT_WARPS * SPLIT_MIN_TERMS)).max(1);
    Ok(split_shape(f, pop, dim, groups))
}

/// The plan with `groups` blocks per strip: what [`split_plan`] chose, read
/// back from a launch configuration when the kernel is queued.
fn split_shape(f: Function, pop: usize, dim: usize, groups: usize) -> SplitPlan {
    let lanes = split_lanes(pop);
    let chunk_len = split_terms(f, dim).div_ceil(groups * SPLIT_WARPS);
    SplitPlan { lanes, strips: pop.div_ceil(32 * lanes).max(1), groups, chunk_len }
}

fn split_lanes(pop: usize) -> usize {
    if pop.is_multiple_of(4) { 4 } else { 1 }
}

fn split_terms(f: Function, dim: usize) -> usize {
    (dim + 1).saturating_sub(f.window())
}

fn split_kernel(f: Function, lanes: usize) -> String {
    if lanes == 4 { format!("s4_split4_{}", f.name()) } else { format!("s4_split_{}", f.name()) }
}

/// Device and pinned host buffers for one population, both layouts.
pub struct LayoutBuffers {
    pop: usize,
    dim: usize,
    host_individual_major: PinnedHostSlice<f32>,
    host_dimension_major: PinnedHostSlice<f32>,
    host_out: PinnedHostSlice<f32>,
    dev_in: CudaSlice<f32>,
    dev_out: CudaSlice<f32>,
    /// Block sums of S4-split (groups · pop) and one ticket per strip, grown
    /// on first use; the kernel leaves the tickets at zero.
    dev_partial: CudaSlice<f32>,
    dev_tickets: CudaSlice<u32>,
    events: [CudaEvent; 4],
}

impl LayoutBuffers {
    /// Copies both layouts into pinned host memory (not timed: the layout is a
    /// design decision of the EA, Section 3.2.4) and allocates device buffers.
    pub fn new(gpu: &Gpu, x: &[f32], xt: &[f32], pop: usize, dim: usize) -> Result<LayoutBuffers, GpuError> {
        let n = pop * dim;
        assert_eq!(x.len(), n);
        assert_eq!(xt.len(), n);
        gpu.ensure_fits(&format!("population {pop}×{dim}"), (n + pop) * 4)?;
        let e = launch_err("layout buffers");
        // SAFETY: each pinned buffer is fully written below before any read.
        let (mut a, mut b, out) = unsafe {
            (
                gpu.ctx.alloc_pinned::<f32>(n).map_err(&e)?,
                gpu.ctx.alloc_pinned::<f32>(n).map_err(&e)?,
                gpu.ctx.alloc_pinned::<f32>(pop).map_err(&e)?,
            )
        };
        a.as_mut_slice().map_err(&e)?.copy_from_slice(x);
        b.as_mut_slice().map_err(&e)?.copy_from_slice(xt);
        let dev_in = gpu.stream.alloc_zeros::<f32>(n).map_err(&e)?;
        let dev_out = gpu.stream.alloc_zeros::<f32>(pop).map_err(&e)?;
        let dev_partial = gpu.stream.alloc_zeros::<f32>(1).map_err(&e)?;
        let dev_tickets = gpu.stream.alloc_zeros::<u32>(1).map_err(&e)?;
        let ev = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(&e);
        let events = [ev()?, ev()?, ev()?, ev()?];
        Ok(LayoutBuffers {
            pop,
            dim,
            host_individual_major: a,
            host_dimension_major: b,
            host_out: out,
            dev_in,
            dev_out,
            dev_partial,
            dev_tickets,
            events,
        })
    }

    /// Runs one strategy once: copy in, kernel, copy out. With `poison`, the
    /// output is first filled with NaN so that an unwritten element fails the check.
    pub fn run(&mut self, gpu: &Gpu, f: Function, s: Strategy, cfg: LaunchConfig, poison: bool) -> Result<Timing, GpuError> {
        let e = launch_err("layout evaluation");
        let stream = &gpu.stream;
        if poison {
            stream.memcpy_htod(&vec![f32::NAN; self.pop], &mut self.dev_out).map_err(&e)?;
            stream.synchronize().map_err(&e)?;
        }
        let host_in = if s.dimension_major() { &self.host_dimension_major } else { &self.host_individual_major };
        let t0 = Instant::now();
        self.events[0].record(stream).map_err(&e)?;
        stream.memcpy_htod(host_in, &mut self.dev_in).map_err(&e)?;
        self.events[1].record(stream).map_err(&e)?;
        self.launch(gpu, f, s, cfg)?;
        self.events[2].record(stream).map_err(&e)?;
        stream.memcpy_dtoh(&self.dev_out, &mut self.host_out).map_err(&e)?;
        self.events[3].record(stream).map_err(&e)?;
        self.events[3].synchronize().map_err(&e)?;
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        let ms = |a: usize, b: usize| self.events[a].elapsed_ms(&self.events[b]).map(f64::from).map_err(&e);
        Ok(Timing { h2d_ms: ms(0, 1)?, kernel_ms: ms(1, 2)?, d2h_ms: ms(2, 3)?, events_ms: ms(0, 3)?, wall_ms })
    }

    /// The kernel alone on the input of the last [`LayoutBuffers::run`] of the
    /// same layout: one warm-up launch, then `reps` back to back between two
    /// events (how the device-copy ceiling is timed); milliseconds per launch.
    pub fn time_kernel(&mut self, gpu: &Gpu, f: Function, s: Strategy, cfg: LaunchConfig, reps: usize) -> Result<f64, GpuError> {
        let e = launch_err("layout kernel loop");
        self.launch(gpu, f, s, cfg)?;
        self.events[1].record(&gpu.stream).map_err(&e)?;
        for _ in 0..reps {
            self.launch(gpu, f, s, cfg)?;
        }
        self.events[2].record(&gpu.stream).map_err(&e)?;
        self.events[2].synchronize().map_err(&e)?;
        Ok(f64::from(self.events[1].elapsed_ms(&self.events[2]).map_err(&e)?) / reps.max(1) as f64)
    }

    /// Queues the strategy's kernel on the stream: dev_in → dev_out.
    fn launch(&mut self, gpu: &Gpu, f: Function, s: Strategy, cfg: LaunchConfig) -> Result<(), GpuError> {
        let plan = (s == Strategy::S4Split).then(|| split_shape(f, self.pop, self.dim, cfg.grid_dim.1 as usize));
        let name = plan.map_or_else(|| s.kernel(f), |p| split_kernel(f, p.lanes));
        let func = gpu.function(&LAYOUT_CU as &KernelSource, &name)?;
        let e = launch_err(&name);
        let stream = &gpu.stream;
        let (pop, dim) = (self.pop as i32, self.dim as i32);
        if let Some(plan) = plan {
            let (groups, strips) = (plan.groups, plan.strips);
            assert_eq!(strips, cfg.grid_dim.0 as usize, "S4-split launch from split_plan");
            if self.dev_partial.len() < groups * self.pop {
                self.dev_partial = stream.alloc_zeros::<f32>(groups * self.pop).map_err(&e)?;
            }
            if self.dev_tickets.len() < strips {
                self.dev_tickets = stream.alloc_zeros::<u32>(strips).map_err(&e)?;
            }
            let chunk_len = plan.chunk_len as i32;
            let mut launch = stream.launch_builder(&func);
            launch.arg(&self.dev_in).arg(&mut self.dev_out).arg(&mut self.dev_partial).arg(&mut self.dev_tickets);
            launch.arg(&pop).arg(&dim).arg(&chunk_len);
            // SAFETY: thread (strip, lane) reads lanes consecutive individuals
            // < pop of dev_in (pop·dim floats, 16-byte aligned rows when lanes = 4)
            // and writes them in dev_out (pop); block (strip, g) writes
            // dev_partial[g·pop + ind] (groups·pop allocated above) and the ticket
            // of its strip (strips allocated above).
            unsafe { launch.launch(cfg) }.map_err(&e)?;
        } else {
            let mut launch = stream.launch_builder(&func);
            launch.arg(&self.dev_in).arg(&mut self.dev_out).arg(&pop).arg(&dim);
            // SAFETY: the kernel reads pop·dim floats of dev_in and writes pop floats
            // of dev_out, both allocated with those lengths; cfg's shared memory is
            // what the kernel indexes (checked in launch_config).
            unsafe { launch.launch(cfg) }.map_err(&e)?;
        }
        Ok(())
    }

    /// The fitness values of the last [`LayoutBuffers::run`].
    pub fn output(&self) -> Result<Vec<f32>, GpuError> {
        Ok(self.host_out.as_slice().map_err(launch_err("layout output"))?.to_vec())
    }
}

/// One configuration checked by [`self_check`].
#[derive(Clone, Debug)]
pub struct CheckLine {
    pub function: Function,
    pub strategy: Strategy,
    pub pop: usize,
    pub dim: usize,
    pub block: u32,
    /// None when the configuration cannot run (with the reason).
    pub outcome: Result<crate::library::nonseparable::Check, String>,
    /// All but S3 sum in a fixed order: a second run must give the same bits.
    pub repeatable: bool,
}

impl CheckLine {
    pub fn passed(&self) -> bool {
        self.outcome.as_ref().map_or(true, |c| c.passed()) && self.repeatable
    }
}

/// Checks every strategy and block size against the f64 CPU reference on fresh
/// random inputs (`seed`), with the output poisoned before each run. Sizes cover
/// partial blocks, dimensions below a window, S3 at and beyond its limit, and
/// S4-split with one and several blocks per strip, with float4 lanes and without.
pub fn self_check(gpu: &Gpu, seed: u64, sizes: &[(usize, usize)], blocks: &[u32]) -> Result<Vec<CheckLine>, GpuError> {
    use crate::library::nonseparable as ns;
    let mut lines = Vec::new();
    for (k, &(pop, dim)) in sizes.iter().enumerate() {
        let x = ns::random_population(pop, dim, seed.wrapping_add(k as u64));
        let xt = ns::transpose(&x, pop, dim);
        let mut bufs = LayoutBuffers::new(gpu, &x, &xt, pop, dim)?;
        for f in Function::ALL {
            let refs = ns::references(f, &x, dim);
            for s in Strategy::ALL {
                let bs: &[u32] = if s.searches_block_size() { blocks } else { &[0] };
                for &b in bs {
                    let (outcome, block, repeatable) = match launch_config(gpu, f, s, pop, dim, b)? {
                        Err(why) => (Err(why), b, true),
                        Ok((cfg, block)) => {
                            bufs.run(gpu, f, s, cfg, true)?;
                            let first = bufs.output()?;
                            bufs.run(gpu, f, s, cfg, true)?;
                            let second = bufs.output()?;
                            let same = s == Strategy::S3 || first.iter().zip(&second).all(|(a, b)| a.to_bits() == b.to_bits());
                            (Ok(ns::check(&first, &refs)), block, same)
                        }
                    };
                    lines.push(CheckLine { function: f, strategy: s, pop, dim, block, outcome, repeatable });
                }
            }
        }
    }
    Ok(lines)
}

/// Sizes for [`self_check`]: `small` for compute-sanitizer, else larger too.
pub fn self_check_sizes(small: bool) -> Vec<(usize, usize)> {
    let mut v = vec![(1, 4), (7, 10), (12, 5), (33, 17), (100, 100), (36, 700), (129, 1024), (3, 1025)];
    if !small {
        v.extend([(1000, 1000), (4097, 333), (257, 8000), (2048, 4000)]);
    }
    v
}
