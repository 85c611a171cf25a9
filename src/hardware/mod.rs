//! Hardware fingerprint (sysinfo for the host, CUDA device properties for the
//! GPU) written into every record, and the CPU memory-bandwidth ceiling.

mod quantity;

pub use quantity::Quantity;

use crate::gpu::GpuInfo;
use crate::records::{FingerprintRow, Record, col};
use crate::stats::median;
use rayon::prelude::*;
use std::time::Instant;
use sysinfo::System;

/// What a record was measured on.
#[derive(Clone, Debug)]
pub struct Fingerprint {
    /// Stable identifier: GPU (or "cpu-only"), CPU model with its generation
    /// ([`cpu_signature`]) and thread count, slugged.
    pub hw_id: String,
    pub cpu_model: String,
    /// The CPU's family and model numbers, where the OS tells them.
    pub cpu_signature: Option<String>,
    pub cpu_physical_cores: usize,
    pub cpu_threads: usize,
    pub mem_gib: f64,
    pub os: String,
    pub gpu: Option<GpuInfo>,
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

impl Fingerprint {
    /// This machine, with the GPU that the run uses (if any).
    pub fn this_machine(gpu: Option<&GpuInfo>) -> Fingerprint {
        let sys = System::new_all().ok();
        let cpu_model = sys
            .as_ref()
            .and_then(|s| s.cpus().first().map(|c| c.brand().trim().to_owned()))
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| "unknown CPU".into());
        let cpu_threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let cpu_physical_cores = System::physical_core_count().unwrap_or(cpu_threads);
        let mem_gib = sys.as_ref().map_or(0.0, |s| s.total_memory() as f64 / (1u64 << 30) as f64);
        let os = System::long_os_version().unwrap_or_else(|_| std::env::consts::OS.into());
        let gpu_part = gpu.map_or("cpu-only".to_owned(), |g| slug(&g.name));
        let cpu_signature = cpuid_signature().or_else(|| std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| cpu_signature(&t)));
        let hw_id = hw_id(&gpu_part, &cpu_model, cpu_signature.as_deref(), cpu_threads);
        Fingerprint { hw_id, cpu_model, cpu_signature, cpu_physical_cores, cpu_threads, mem_gib, os, gpu: gpu.cloned() }
    }

    /// The fingerprint columns of every record: its id, then [`FingerprintRow`].
    pub fn record(&self) -> Record {
        let g = self.gpu.as_ref();
        let int = |v: i32| Some(i64::from(v));
        Record::new().with(col::HW_ID, self.hw_id.as_str()).with_row(&FingerprintRow {
            cpu_model: self.cpu_model.clone(),
            cpu_signature: self.cpu_signature.clone(),
            cpu_physical_cores: self.cpu_physical_cores,
            cpu_threads: self.cpu_threads,
            mem_gib: (self.mem_gib * 10.0).round() / 10.0,
            os: self.os.clone(),
            gpu_name: g.map(|g| g.name.clone()),
            gpu_cc: g.map(|g| format!("{}.{}", g.compute_capability.0, g.compute_capability.1)),
            gpu_sms: g.and_then(|g| int(g.sms)),
            gpu_sm_clock_mhz: g.and_then(|g| int(g.sm_clock_mhz)),
            gpu_mem_gib: g.map(|g| (g.mem_bytes as f64 / (1u64 << 30) as f64 * 10.0).round() / 10.0),
            gpu_mem_clock_mhz: g.and_then(|g| int(g.mem_clock_mhz)),
            gpu_mem_bus_bits: g.and_then(|g| int(g.mem_bus_bits)),
            gpu_max_threads_per_block: g.and_then(|g| int(g.max_threads_per_block)),
            gpu_max_smem_per_block_kib: g.and_then(|g| int(g.max_smem_per_block / 1024)),
            cuda_driver: g.map(|g| g.driver_string()),
        })
    }
}

/// A machine's id. The CPU's brand string alone does not tell generations
/// apart (virtual machines report "AMD EPYC" for every EPYC), so its family and
/// model numbers join it: two generations never share an id, so one never
/// archives the other's records. Records from before the signature keep their
/// ids (e.g. `cpu-only__amd-epyc__2t`) and are a machine of their own.
/// Record column: the 1-minute load average when the row's case started.
pub const LOAD_AVG_1M: &str = "load_avg_1m";
/// Record column: the CPU's clock (mean over its logical CPUs, as the OS reports it) when the row's case started.
pub const CPU_FREQ_MHZ: &str = "cpu_freq_mhz";

/// What the machine was doing when a case started, recorded with its rows
/// ([`LOAD_AVG_1M`], [`CPU_FREQ_MHZ`]; older records lack both).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conditions {
    pub load_avg_1m: Option<f64>,
    pub cpu_freq_mhz: Option<f64>,
}

impl Conditions {
    pub fn now() -> Conditions {
        use sysinfo::{CpuRefreshKind, RefreshKind};
        let load_avg_1m = System::load_average().ok().map(|l| l.one).filter(|l| l.is_finite() && *l >= 0.0);
        let cpus = System::new_with_specifics(RefreshKind::nothing().with_cpu(CpuRefreshKind::nothing().with_frequency())).ok();
        let mhz: Vec<f64> = cpus.iter().flat_map(|s| s.cpus()).map(|c| c.frequency() as f64).filter(|f| *f > 0.0).collect();
        let cpu_freq_mhz = (!mhz.is_empty()).then(|| (mhz.iter().sum::<f64>() / mhz.len() as f64).round());
        Conditions { load_avg_1m, cpu_freq_mhz }
    }

    /// The warning hyperfine gives: more runnable work than `threads` when the case started.
    pub fn busy(&self, threads: usize) -> Option<String> {
        let load = self.load_avg_1m.filter(|l| *l > threads as f64)?;
        Some(format!("the 1-minute load average was {load:.2}, over this machine's {threads} threads: other work may slow its times"))
    }

    /// `row` with these conditions' columns.
    pub fn on(&self, row: Record) -> Record {
        row.with(LOAD_AVG_1M, self.load_avg_1m).with(CPU_FREQ_MHZ, self.cpu_freq_mhz)
    }
}

fn hw_id(gpu_part: &str, cpu_model: &str, signature: Option<&str>, threads: usize) -> String {
    let cpu = match signature {
        Some(sig) => slug(&format!("{cpu_model} {sig}")),
        None => slug(cpu_model),
    };
    format!("{gpu_part}__{cpu}__{threads}t")
}

/// "family 25 model 17" from the CPUID instruction (the display family and model, as
/// Linux shows them in `/proc/cpuinfo`), on any OS; None on other CPUs.
pub fn cpuid_signature() -> Option<String> {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        let f = raw_cpuid::CpuId::new().get_feature_info()?;
        Some(format!("family {} model {}", f.family_id(), f.model_id()))
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    None
}

/// "family 25 model 17" (x86: `cpu family`, `model`) or "implementer 0x41 part
/// 0xd40" (Arm) from the text of `/proc/cpuinfo`; None when it has neither.
pub fn cpu_signature(cpuinfo: &str) -> Option<String> {
    let field = |name: &str| {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_owned())
        })
    };
    match (field("cpu family"), field("model")) {
        (Some(f), Some(m)) => Some(format!("family {f} model {m}")),
        _ => Some(format!("implementer {} part {}", field("CPU implementer")?, field("CPU part")?)),
    }
}

/// Measured CPU memory read bandwidth, GB/s.
#[derive(Clone, Copy, Debug)]
pub struct CpuCeilings {
    /// One thread summing a buffer far larger than the last-level cache.
    pub read_1t_gbs: f64,
    /// All threads (rayon) doing the same.
    pub read_all_gbs: f64,
}

/// Streams `bytes` of f32 (8 independent partial sums so the adds do not limit).
pub fn measure_cpu(bytes: usize, repeats: usize) -> CpuCeilings {
    let v: Vec<f32> = (0..bytes / 4).map(|i| (i % 7) as f32).collect();
    let sum8 = |c: &[f32]| -> f32 {
        let mut acc = [0.0f32; 8];
        for ch in c.chunks_exact(8) {
            for (a, x) in acc.iter_mut().zip(ch) {
                *a += x;
            }
        }
        acc.iter().sum()
    };
    let time = |f: &dyn Fn() -> f32| {
        std::hint::black_box(f());
        let t: Vec<f64> = (0..repeats)
            .map(|_| {
                let t0 = Instant::now();
                std::hint::black_box(f());
                t0.elapsed().as_secs_f64()
            })
            .collect();
        bytes as f64 / median(&t) / 1e9
    };
    let read_1t_gbs = time(&|| sum8(&v));
    let read_all_gbs = time(&|| v.par_chunks(1 << 16).map(sum8).sum());
    CpuCeilings { read_1t_gbs, read_all_gbs }
}

/// One core's clock in GHz, measured as a chain of dependent 64-bit adds (one
/// per cycle on every x86-64 core): 64 adds per loop iteration, the loop's own
/// counting off the chain. Turbo is included; None off x86-64.
pub fn measure_cpu_clock(repeats: usize) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        const ITERS: u64 = 2_000_000;
        let chain = || {
            let (mut x, y, mut n) = (std::hint::black_box(1u64), std::hint::black_box(3u64), ITERS);
            let t0 = Instant::now();
            // SAFETY: register-only arithmetic on the operands named here; no
            // memory, stack or flags outside the asm block are touched.
            unsafe {
                std::arch::asm!(
                    "2:",
                    ".rept 64",
                    "add {x}, {y}",
                    ".endr",
                    "dec {n}",
                    "jnz 2b",
                    x = inout(reg) x,
                    y = in(reg) y,
                    n = inout(reg) n,
                    options(nomem, nostack),
                );
            }
            std::hint::black_box((x, n));
            (64 * ITERS) as f64 / t0.elapsed().as_secs_f64() / 1e9
        };
        chain();
        let runs: Vec<f64> = (0..repeats.max(1)).map(|_| chain()).collect();
        // The fastest run: interruptions only ever slow a run down.
        runs.into_iter().reduce(f64::max)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = repeats;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_clock_is_between_half_and_eight_gigahertz() {
        if let Some(ghz) = measure_cpu_clock(3) {
            assert!((0.5..8.0).contains(&ghz), "{ghz} GHz");
        }
    }

    #[test]
    fn slugs_are_stable_identifiers() {
        assert_eq!(slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
        assert_eq!(slug("Intel(R) Xeon(R) CPU @ 2.20GHz"), "intel-r-xeon-r-cpu-2-20ghz");
    }

    #[test]
    fn cpu_generations_get_their_own_ids() {
        let genoa = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n";
        let rome = genoa.replace("cpu family\t: 25", "cpu family\t: 23").replace("model\t\t: 17", "model\t\t: 49");
        let (a, b) = (cpu_signature(genoa).unwrap(), cpu_signature(&rome).unwrap());
        assert_eq!(a, "family 25 model 17");
        assert_eq!(hw_id("cpu-only", "AMD EPYC", Some(&a), 2), "cpu-only__amd-epyc-family-25-model-17__2t");
        assert_ne!(hw_id("cpu-only", "AMD EPYC", Some(&a), 2), hw_id("cpu-only", "AMD EPYC", Some(&b), 2));
        assert_eq!(hw_id("cpu-only", "AMD EPYC", None, 2), "cpu-only__amd-epyc__2t");
        let arm = "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd40\n";
        assert_eq!(cpu_signature(arm).unwrap(), "implementer 0x41 part 0xd40");
        assert_eq!(cpu_signature("processor : 0\n"), None);
    }

    /// The machine ids of committed records were made from `/proc/cpuinfo`: CPUID must name the CPU the same way.
    #[test]
    fn cpuid_names_the_cpu_as_proc_cpuinfo_does() {
        let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else { return };
        if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            assert_eq!(cpuid_signature(), cpu_signature(&text));
        } else {
            assert_eq!(cpuid_signature(), None);
        }
    }

    #[test]
    fn fingerprint_fills_every_host_column() {
        let f = Fingerprint::this_machine(None);
        assert!(f.hw_id.starts_with("cpu-only__"));
        let r = f.record();
        assert_eq!(r.str(col::HW_ID), f.hw_id);
        assert!(r.int(FingerprintRow::cpu_threads).unwrap() >= 1);
        assert_eq!(r.get(FingerprintRow::gpu_name), &crate::records::Value::Null);
    }

    /// Every case's rows carry the load and clock at its start; the warning comes only above the threads.
    #[test]
    fn conditions_are_read_and_warn_above_the_threads() {
        let now = Conditions::now();
        if cfg!(target_os = "linux") {
            assert!(now.load_avg_1m.is_some_and(|l| l >= 0.0), "{now:?}");
        }
        let row = now.on(Record::new());
        assert_eq!(row.float(LOAD_AVG_1M), now.load_avg_1m);
        assert_eq!(row.float(CPU_FREQ_MHZ), now.cpu_freq_mhz);
        let c = |load| Conditions { load_avg_1m: Some(load), cpu_freq_mhz: Some(2000.0) };
        assert_eq!(c(1.9).busy(2), None);
        assert!(c(3.5).busy(2).is_some_and(|w| w.contains("3.50") && w.contains("2 threads")));
        assert_eq!(Conditions { load_avg_1m: None, cpu_freq_mhz: None }.busy(1), None);
    }
}
