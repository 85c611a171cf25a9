//! Physical ceilings of the device, measured in the same run as the kernels
//! they are compared with: device-to-device copy bandwidth and pinned
//! host↔device bandwidth (bytes read + written over time), and the 32-bit
//! integer instruction rate (`kernels/ceilings.cu`); medians of repeats.

use super::{Gpu, KernelSource, launch_err};
use crate::error::GpuError;
use crate::stats::median;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{LaunchConfig, PushKernelArg};

/// `kernels/ceilings.cu`.
pub const CEILINGS_CU: KernelSource = KernelSource { file: "ceilings.cu", code: include_str!("../../kernels/ceilings.cu") };

/// Independent chains per thread of `int32_rate` (the kernel's `INT_CHAINS`).
const INT_CHAINS: u32 = 8;

/// Measured GPU ceilings, GB/s (10⁹ bytes per second).
#[derive(Clone, Copy, Debug)]
pub struct GpuCeilings {
    /// cuMemcpyDtoD, counting bytes read plus bytes written.
    pub d2d_gbs: f64,
    /// Pinned host → device.
    pub h2d_pinned_gbs: f64,
    /// Device → pinned host.
    pub d2h_pinned_gbs: f64,
    /// 32-bit integer instructions (LOP3, IADD3) per second, 10⁹.
    pub int32_gops: f64,
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
    Ok(GpuCeilings {
        d2d_gbs: 2.0 * gb / d2d,
        h2d_pinned_gbs: gb / h2d,
        d2h_pinned_gbs: gb / d2h,
        int32_gops: int32_rate(gpu, repeats)? / 1e9,
    })
}

/// 32-bit integer instructions per second: `int32_rate` on 8 blocks of 256
/// threads per SM (full occupancy), 2 instructions per chain and step.
fn int32_rate(gpu: &Gpu, repeats: usize) -> Result<f64, GpuError> {
    const STEPS: u32 = 4096;
    const BLOCK: u32 = 256;
    let e = launch_err("int32_rate");
    let kernel = gpu.function(&CEILINGS_CU, "int32_rate")?;
    let threads = u32::try_from(gpu.info.sms).unwrap_or(1).max(1) * 8 * BLOCK;
    let mut out = gpu.stream.alloc_zeros::<u32>(threads as usize).map_err(&e)?;
    let config = LaunchConfig { grid_dim: (threads / BLOCK, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
    let seconds = median_seconds(gpu, repeats, &mut || {
        let mut l = gpu.stream.launch_builder(&kernel);
        l.arg(&mut out).arg(&STEPS).arg(&0x9e37_79b9u32).arg(&0x7f4a_7c15u32);
        // SAFETY: thread t < grid · block = `threads` writes out[t] alone.
        unsafe { l.launch(config) }.map(drop).map_err(&e)
    })?;
    Ok(f64::from(threads) * f64::from(2 * INT_CHAINS * STEPS) / seconds)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_chains_match_the_kernel() {
        assert!(CEILINGS_CU.code.contains(&format!("#define INT_CHAINS {INT_CHAINS}\n")));
    }
}
