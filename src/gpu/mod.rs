//! The GPU layer: a CUDA context on one device (cudarc, driver loaded at run
//! time), kernels from `kernels/*.cu` compiled once per context by NVRTC for the
//! device's own architecture, and the device's properties for fingerprints.
//!
//! Nothing here runs unless [`probe`] found the driver and a device: a binary
//! without CUDA starts, and the CPU parts run.

pub mod biohel;
pub mod boa;
pub mod ceilings;
pub mod ecga_run;
pub mod gecga;
pub mod island;
pub mod island_ring;
pub mod layout;

use crate::error::GpuError;
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream};
use cudarc::nvrtc::{CompileError, CompileOptions};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// A kernel source file, embedded in the binary.
#[derive(Clone, Copy, Debug)]
pub struct KernelSource {
    /// File name under `kernels/`.
    pub file: &'static str,
    pub code: &'static str,
}

/// `kernels/layout.cu`: strategies S1–S4 of the layout paper.
pub const LAYOUT_CU: KernelSource = KernelSource { file: "layout.cu", code: include_str!("../../kernels/layout.cu") };

/// Whether the CUDA driver and NVRTC libraries can be loaded and a device
/// exists; `Err` carries the one-line reason shown as "not run here".
pub fn probe() -> Result<usize, GpuError> {
    // SAFETY: only tries to dlopen the libraries; calls nothing in them.
    let (driver, nvrtc) = unsafe { (cudarc::driver::sys::is_culib_present(), cudarc::nvrtc::sys::is_culib_present()) };
    if !driver {
        return Err(GpuError::Unavailable("libcuda not found".into()));
    }
    if !nvrtc {
        return Err(GpuError::Unavailable("libnvrtc not found".into()));
    }
    cudarc::driver::result::init().map_err(|e| GpuError::Unavailable(format!("cuInit failed: {e}")))?;
    let n = cudarc::driver::result::device::get_count().map_err(|e| GpuError::Unavailable(format!("cuDeviceGetCount failed: {e}")))?;
    if n <= 0 {
        return Err(GpuError::Unavailable("no CUDA device".into()));
    }
    Ok(n as usize)
}

/// Properties of the device, for fingerprints and launch limits.
#[derive(Clone, Debug)]
pub struct GpuInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub sms: i32,
    pub sm_clock_mhz: i32,
    pub mem_clock_mhz: i32,
    pub mem_bus_bits: i32,
    pub mem_bytes: usize,
    pub l2_bytes: i32,
    pub max_threads_per_block: i32,
    /// Shared memory a block can have after opting in.
    pub max_smem_per_block: i32,
    pub driver_version: i32,
}

impl GpuInfo {
    /// Datasheet-style peak DRAM bandwidth from clock and bus width (GB/s).
    pub fn theoretical_bandwidth_gbs(&self) -> f64 {
        // DDR: two transfers per memory clock.
        2.0 * self.mem_clock_mhz as f64 * 1e6 * (self.mem_bus_bits as f64 / 8.0) / 1e9
    }

    pub fn driver_string(&self) -> String {
        format!("{}.{}", self.driver_version / 1000, (self.driver_version % 1000) / 10)
    }
}

/// An open device: context, one stream, and the compiled-module cache.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: GpuInfo,
    modules: RefCell<HashMap<&'static str, Arc<CudaModule>>>,
}

impl Gpu {
    /// Opens device `ordinal` (after [`probe`] succeeded).
    pub fn open(ordinal: usize) -> Result<Gpu, GpuError> {
        let count = probe()?;
        let dev_err = |e: &dyn std::fmt::Display| GpuError::Device { ordinal, message: e.to_string() };
        if ordinal >= count {
            return Err(dev_err(&format!("no such device ({count} present)")));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| dev_err(&e))?;
        // One stream only: cudarc's cross-stream event tracking would add an
        // event record to every copy and launch we time.
        // SAFETY: everything in this program runs on `stream`.
        unsafe { ctx.disable_event_tracking() };
        let attr = |a: Attr| ctx.attribute(a).map_err(|e| dev_err(&e));
        let mut driver_version = 0;
        // SAFETY: writes one int.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver_version) };
        let info = GpuInfo {
            ordinal,
            name: ctx.name().map_err(|e| dev_err(&e))?,
            compute_capability: ctx.compute_capability().map_err(|e| dev_err(&e))?,
            sms: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            sm_clock_mhz: attr(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)? / 1000,
            mem_clock_mhz: attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)? / 1000,
            mem_bus_bits: attr(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
            mem_bytes: ctx.total_mem().map_err(|e| dev_err(&e))?,
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_smem_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            driver_version,
        };
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream, info, modules: RefCell::new(HashMap::new()) })
    }

    /// This device with a stream of its own instead of the context's NULL stream, for work that spans several
    /// GPUs from one thread (NCCL): the NULL stream stands for the current context's, which NCCL's calls change,
    /// while an owned stream names its GPU.
    pub fn with_own_stream(mut self) -> Result<Gpu, GpuError> {
        self.stream = self.ctx.new_stream().map_err(|e| GpuError::Device { ordinal: self.info.ordinal, message: e.to_string() })?;
        Ok(self)
    }

    /// NVRTC options: the device's own architecture, precise division and sqrt.
    pub fn compile_options(&self) -> Vec<String> {
        let (major, minor) = self.info.compute_capability;
        vec![format!("--gpu-architecture=sm_{major}{minor}"), "--std=c++17".into()]
    }

    /// A kernel from `src`, compiling the file on first use in this context.
    pub fn function(&self, src: &KernelSource, name: &str) -> Result<CudaFunction, GpuError> {
        let module = self.module(src)?;
        module.load_function(name).map_err(|e| GpuError::Launch { kernel: name.into(), message: e.to_string() })
    }

    /// Compiles and loads `src` now (once per file): a later [`Gpu::function`]
    /// finds it loaded.
    pub fn load(&self, src: &KernelSource) -> Result<(), GpuError> {
        self.module(src).map(|_| ())
    }

    fn module(&self, src: &KernelSource) -> Result<Arc<CudaModule>, GpuError> {
        if let Some(m) = self.modules.borrow().get(src.file) {
            return Ok(m.clone());
        }
        let options = self.compile_options();
        let opts = CompileOptions { options: options.clone(), name: Some(src.file.into()), ..Default::default() };
        let ptx = cudarc::nvrtc::compile_ptx_with_opts(src.code, opts).map_err(|e| match e {
            CompileError::CompileError { log, .. } => {
                GpuError::Compile { file: src.file.into(), options: options.clone(), log: log.to_string_lossy().into_owned() }
            }
            other => GpuError::Compile { file: src.file.into(), options: options.clone(), log: other.to_string() },
        })?;
        let module = self.ctx.load_module(ptx).map_err(|e| GpuError::Device { ordinal: self.info.ordinal, message: e.to_string() })?;
        self.modules.borrow_mut().insert(src.file, module.clone());
        Ok(module)
    }

    /// Fails with [`GpuError::OutOfMemory`] unless `bytes` fit in free device memory.
    pub fn ensure_fits(&self, what: &str, bytes: usize) -> Result<(), GpuError> {
        let (free, _) = self.ctx.mem_get_info().map_err(|e| GpuError::Device { ordinal: self.info.ordinal, message: e.to_string() })?;
        if bytes > free {
            return Err(GpuError::OutOfMemory { what: what.into(), needed_mib: (bytes >> 20) as u64, free_mib: (free >> 20) as u64 });
        }
        Ok(())
    }
}

/// Maps any displayable CUDA error to a launch error of `kernel`.
pub fn launch_err(kernel: &str) -> impl Fn(cudarc::driver::DriverError) -> GpuError + '_ {
    move |e| GpuError::Launch { kernel: kernel.to_owned(), message: e.to_string() }
}

/// `buf` with room for `len` elements, reallocated (to twice `len`) only when too small.
pub(crate) fn ensure_len<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    gpu: &Gpu,
    buf: &mut Option<CudaSlice<T>>,
    len: usize,
) -> Result<(), cudarc::driver::DriverError> {
    if buf.as_ref().is_none_or(|b| b.len() < len) {
        *buf = Some(gpu.stream.alloc_zeros::<T>(2 * len)?);
    }
    Ok(())
}
