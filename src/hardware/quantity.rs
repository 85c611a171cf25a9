//! The hardware quantities a claim's model may name: each known on a machine
//! from its records and, for the paper's machine, from the spec's datasheet.

use crate::records::FingerprintRow;
use crate::records::MachineRecords;
use serde::Deserialize;
use std::collections::BTreeSet;

/// A hardware quantity known both here (measured or recorded) and for the paper's machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// Device memory bandwidth, GB/s: here the device-to-device copy (read + write) measured in the run.
    GpuBandwidth,
    /// 32-bit integer instructions per second, 10⁹/s: here the measured ceiling.
    GpuInt32,
    /// Streaming multiprocessors.
    GpuSms,
    /// Host→device bandwidth, GB/s: here the pinned copy measured in the run.
    HostLink,
    /// One core's clock, GHz: here a chain of dependent integer adds (one per cycle), turbo included.
    CpuClock,
    /// Physical CPU cores of the machine (all sockets): here the fingerprint's count.
    CpuCores,
    /// Device memory, GiB.
    GpuMemory,
    /// Threads a block may have.
    GpuThreadsPerBlock,
    /// A point's whole-run gain by Amdahl's law, 1 / ((1 − p) + p / s), from the
    /// share p of the sped-up phase at that point (supplied by the check).
    Amdahl,
    /// A point's occupancy: resident warps per SM over the card's maximum (supplied by the check).
    Occupancy,
}

impl Quantity {
    pub fn label(self) -> &'static str {
        match self {
            Quantity::GpuBandwidth => "GPU memory bandwidth",
            Quantity::GpuInt32 => "GPU int32 rate",
            Quantity::GpuSms => "GPU SMs",
            Quantity::HostLink => "host→device bandwidth",
            Quantity::CpuClock => "one core's clock",
            Quantity::CpuCores => "CPU cores",
            Quantity::GpuMemory => "GPU memory",
            Quantity::GpuThreadsPerBlock => "threads per block",
            Quantity::Amdahl => "whole-run gain by Amdahl's law",
            Quantity::Occupancy => "occupancy (warps per SM over the maximum)",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Quantity::GpuBandwidth | Quantity::HostLink => "GB/s",
            Quantity::GpuInt32 => "G/s",
            Quantity::CpuClock => "GHz",
            Quantity::GpuMemory => "GiB",
            Quantity::GpuSms | Quantity::GpuThreadsPerBlock | Quantity::CpuCores | Quantity::Amdahl | Quantity::Occupancy => "",
        }
    }

    /// A quantity of a point (supplied by the check), not of the machine.
    pub fn of_point(self) -> bool {
        matches!(self, Quantity::Amdahl | Quantity::Occupancy)
    }

    /// The ceiling a run measures for the quantity (`records::col::CEILING`), None for
    /// a quantity of the fingerprint or of a point.
    pub fn ceiling(self) -> Option<&'static str> {
        match self {
            Quantity::GpuBandwidth => Some("gpu_d2d"),
            Quantity::GpuInt32 => Some("gpu_int32"),
            Quantity::HostLink => Some("gpu_h2d_pinned"),
            Quantity::CpuClock => Some("cpu_clock"),
            _ => None,
        }
    }

    /// The value on a machine, from its records: the latest ceiling measured in
    /// any of its runs (else by `evorepro hw --record` on the same machine), or
    /// its fingerprint. For the machine as a whole (a comparison of machines); a
    /// claim's model takes a ceiling from the runs it judges ([`Self::in_runs`]).
    pub fn here(self, m: &MachineRecords) -> Option<f64> {
        match self.ceiling() {
            Some(name) => m.ceiling_or_hw(name).filter(|v| v.is_finite() && *v > 0.0),
            None => self.of_fingerprint(m),
        }
    }

    /// The value the runs `runs` measured (the runs whose records a claim's point
    /// rests on): a ceiling's mean over those runs, with how many measured it;
    /// a quantity of the fingerprint is the machine's (counted 0 runs). None
    /// where none of the runs measured the ceiling.
    pub fn in_runs(self, m: &MachineRecords, runs: &BTreeSet<i64>) -> Option<(f64, usize)> {
        match self.ceiling() {
            Some(name) => m.ceiling_of_runs(name, runs).filter(|(v, _)| v.is_finite() && *v > 0.0),
            None => self.of_fingerprint(m).map(|v| (v, 0)),
        }
    }

    fn of_fingerprint(self, m: &MachineRecords) -> Option<f64> {
        let first = |k: &str| m.rows.iter().find_map(|r| r.float(k).or_else(|| r.int(k).map(|v| v as f64)));
        match self {
            Quantity::GpuSms => first(FingerprintRow::gpu_sms),
            Quantity::CpuCores => first(FingerprintRow::cpu_physical_cores),
            Quantity::GpuMemory => first(FingerprintRow::gpu_mem_gib),
            Quantity::GpuThreadsPerBlock => first(FingerprintRow::gpu_max_threads_per_block),
            _ => None,
        }
        .filter(|v| v.is_finite() && *v > 0.0)
    }
}
