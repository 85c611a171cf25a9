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
    /// Not in the paper: S4 with the terms split into chunks across a second
    /// grid dimension, so small populations still fill the GPU; chunk sums
    /// reduced in a fixed order by a second kernel.
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

/// The launch of one strategy at one size, or why it cannot run.
pub fn launch_config(gpu: &Gpu, f: Function, s: Strategy, pop: usize, dim: usize, block: u32) -> Result<(LaunchConfig, u32), String> {
    let max_threads = gpu.info.max_threads_per_block as usize;
    let max_smem = gpu.info.max_smem_per_block as usize;
    let blocks = |b: u32| (pop as u32).div_ceil(b);
    match s {
        Strategy::S4Split => {
            let chunks = split_chunks(gpu, pop, dim);
            Ok((LaunchConfig { grid_dim: (blocks(block), chunks as u32, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }, block))
        }
        Strategy::S1 | Strategy::S4 => {
            Ok((LaunchConfig { grid_dim: (blocks(block), 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }, block))
        }
        Strategy::S2 => {
            let smem = block as usize * f.window() * 4;
            if smem > max_smem {
                return Err(format!("stencil needs {smem} B of shared memory per block, the device allows {max_smem} B"));
            }
            Ok((LaunchConfig { grid_dim: (blocks(block), 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: smem as u32 }, block))
        }
        Strategy::S3 => {
            if dim > max_threads {
                return Err(format!("dimension {dim} exceeds the device's {max_threads} threads per block"));
            }
            let smem = (dim + 1) * 4;
            if smem > max_smem {
                return Err(format!("individual needs {smem} B of shared memory, the device allows {max_smem} B"));
            }
            Ok((LaunchConfig { grid_dim: (pop as u32, 1, 1), block_dim: (dim as u32, 1, 1), shared_mem_bytes: smem as u32 }, dim as u32))
        }
    }
}

/// Threads S4-split aims to keep in flight per SM (a full Hopper SM holds 2048).
const SPLIT_THREADS_PER_SM: usize = 4 * 2048;
/// Fewest terms one S4-split thread sums.
const SPLIT_MIN_TERMS: usize = 8;

/// Chunks of S4-split: enough threads to fill the device, at least
/// `SPLIT_MIN_TERMS` terms each.
fn split_chunks(gpu: &Gpu, pop: usize, dim: usize) -> usize {
    let terms = dim.saturating_sub(3).max(1);
    let want = (gpu.info.sms as usize * SPLIT_THREADS_PER_SM).div_ceil(pop);
    want.min(terms / SPLIT_MIN_TERMS).max(1)
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
    /// Chunk sums of S4-split.
    dev_partial: CudaSlice<f32>,
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
        let dev_partial = gpu.stream.alloc_zeros::<f32>(split_chunks(gpu, pop, dim) * pop).map_err(&e)?;
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
            events,
        })
    }

    /// Runs one strategy once: copy in, kernel, copy out. With `poison`, the
    /// output is first filled with NaN so that an unwritten element fails the check.
    pub fn run(&mut self, gpu: &Gpu, f: Function, s: Strategy, cfg: LaunchConfig, poison: bool) -> Result<Timing, GpuError> {
        let name = s.kernel(f);
        let func = gpu.function(&LAYOUT_CU as &KernelSource, &name)?;
        let e = launch_err(&name);
        let stream = &gpu.stream;
        if poison {
            stream.memcpy_htod(&vec![f32::NAN; self.pop], &mut self.dev_out).map_err(&e)?;
            stream.synchronize().map_err(&e)?;
        }
        let (pop, dim) = (self.pop as i32, self.dim as i32);
        let host_in = if s.dimension_major() { &self.host_dimension_major } else { &self.host_individual_major };
        let t0 = Instant::now();
        self.events[0].record(stream).map_err(&e)?;
        stream.memcpy_htod(host_in, &mut self.dev_in).map_err(&e)?;
        self.events[1].record(stream).map_err(&e)?;
        if s == Strategy::S4Split {
            let chunks = cfg.grid_dim.1 as i32;
            let terms = (dim - f.window() as i32 + 1).max(0);
            let chunk_len = (terms + chunks - 1) / chunks;
            let reduce = gpu.function(&LAYOUT_CU, "s4_split_reduce")?;
            let mut launch = stream.launch_builder(&func);
            launch.arg(&self.dev_in).arg(&mut self.dev_partial).arg(&pop).arg(&dim).arg(&chunk_len);
            // SAFETY: reads pop·dim floats of dev_in; writes chunks·pop floats of
            // dev_partial, allocated with split_chunks(pop, dim)·pop = chunks·pop.
            unsafe { launch.launch(cfg) }.map_err(&e)?;
            let mut launch = stream.launch_builder(&reduce);
            launch.arg(&self.dev_partial).arg(&mut self.dev_out).arg(&pop).arg(&chunks);
            // SAFETY: reads chunks·pop floats of dev_partial, writes pop of dev_out.
            unsafe {
                launch.launch(LaunchConfig { grid_dim: ((pop as u32).div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 })
            }
            .map_err(&e)?;
        } else {
            let mut launch = stream.launch_builder(&func);
            launch.arg(&self.dev_in).arg(&mut self.dev_out).arg(&pop).arg(&dim);
            // SAFETY: the kernel reads pop·dim floats of dev_in and writes pop floats
            // of dev_out, both allocated with those lengths; cfg's shared memory is
            // what the kernel indexes (checked in launch_config).
            unsafe { launch.launch(cfg) }.map_err(&e)?;
        }
        self.events[2].record(stream).map_err(&e)?;
        stream.memcpy_dtoh(&self.dev_out, &mut self.host_out).map_err(&e)?;
        self.events[3].record(stream).map_err(&e)?;
        self.events[3].synchronize().map_err(&e)?;
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        let ms = |a: usize, b: usize| self.events[a].elapsed_ms(&self.events[b]).map(f64::from).map_err(&e);
        Ok(Timing { h2d_ms: ms(0, 1)?, kernel_ms: ms(1, 2)?, d2h_ms: ms(2, 3)?, events_ms: ms(0, 3)?, wall_ms })
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
/// partial blocks, dimensions below a window, and S3 at and beyond its limit.
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
                let bs: &[u32] = if s == Strategy::S3 { &[0] } else { blocks };
                for &b in bs {
                    let (outcome, block, repeatable) = match launch_config(gpu, f, s, pop, dim, b) {
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
    let mut v = vec![(1, 4), (7, 10), (33, 17), (100, 100), (129, 1024), (3, 1025)];
    if !small {
        v.extend([(1000, 1000), (4097, 333), (257, 8000)]);
    }
    v
}
