//! Physical ceilings of the device, measured in the same run as the kernels
//! they are compared with: device-to-device copy bandwidth and pinned
//! host↔device bandwidth (bytes read + written over time, median of repeats).

use super::{Gpu, launch_err};
use crate::error::GpuError;
use crate::stats::median;
use cudarc::driver::sys::CUevent_flags;

/// Measured GPU ceilings, GB/s (10⁹ bytes per second).
#[derive(Clone, Copy, Debug)]
pub struct GpuCeilings {
    /// cuMemcpyDtoD, counting bytes read plus bytes written.
    pub d2d_gbs: f64,
    /// Pinned host → device.
    pub h2d_pinned_gbs: f64,
    /// Device → pinned host.
    pub d2h_pinned_gbs: f64,
}

/// Measures with buffers of `bytes` (the larger the closer to the ceiling; 512 MiB is plenty).
pub fn measure(gpu: &Gpu, bytes: usize, repeats: usize) -> Result<GpuCeilings, GpuError> {
    let e = launch_err("ceilings");
    let n = bytes / 4;
    gpu.ensure_fits("bandwidth probe", 2 * bytes)?;
    let s = &gpu.stream;
    let a = s.alloc_zeros::<f32>(n).map_err(&e)?;
    let mut b = s.alloc_zeros::<f32>(n).map_err(&e)?;
    // SAFETY: filled before use.
    let mut host = unsafe { gpu.ctx.alloc_pinned::<f32>(n) }.map_err(&e)?;
    host.as_mut_slice().map_err(&e)?.iter_mut().enumerate().for_each(|(i, v)| *v = i as f32);
    let d2d = median_seconds(gpu, repeats, &mut || s.memcpy_dtod(&a, &mut b).map_err(&e))?;
    let h2d = median_seconds(gpu, repeats, &mut || s.memcpy_htod(&host, &mut b).map_err(&e))?;
    let d2h = median_seconds(gpu, repeats, &mut || s.memcpy_dtoh(&a, &mut host).map_err(&e))?;
    let gb = bytes as f64 / 1e9;
    Ok(GpuCeilings { d2d_gbs: 2.0 * gb / d2d, h2d_pinned_gbs: gb / h2d, d2h_pinned_gbs: gb / d2h })
}

/// Seconds that `op` takes on the GPU's stream, by CUDA events: the median of `repeats` after one warm-up.
pub fn median_seconds(gpu: &Gpu, repeats: usize, op: &mut dyn FnMut() -> Result<(), GpuError>) -> Result<f64, GpuError> {
    let e = launch_err("ceiling events");
    let start = gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(&e)?;
    let stop = gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(&e)?;
    op()?;
    let mut t = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        start.record(&gpu.stream).map_err(&e)?;
        op()?;
        stop.record(&gpu.stream).map_err(&e)?;
        stop.synchronize().map_err(&e)?;
        t.push(f64::from(start.elapsed_ms(&stop).map_err(&e)?) / 1e3);
    }
    Ok(median(&t))
}
