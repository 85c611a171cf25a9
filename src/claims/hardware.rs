//! Explanations by hardware: a quantity measured on this machine set against
//! the paper's hardware (datasheet values with their source, in the spec's
//! `[paper.hardware.datasheet]`), combined by a claim's [`Model`] into a
//! predicted ratio of this machine's result to the paper's.
//!
//! A model is the claim's statement of what bounds the workload, written in the
//! spec before the comparison (e.g. `model = { gpu_bandwidth = 1.0 }`: a speedup
//! that scales with device bandwidth; `{ gpu_int32 = 1.0, cpu_clock = -1.0 }`: a
//! GPU/CPU ratio that scales with the GPU's integer rate over one core's clock).
//! It explains a result only when its prediction lies within [`WITHIN`] of the
//! measured ratio; every factor must be measured here and known for the paper.

use crate::report::MachineRecords;
use crate::spec::PaperHardware;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A prediction explains a measured ratio when they agree within this factor.
pub const WITHIN: f64 = 2.0;

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
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Quantity::GpuBandwidth | Quantity::HostLink => "GB/s",
            Quantity::GpuInt32 => "G/s",
            Quantity::CpuClock => "GHz",
            Quantity::GpuMemory => "GiB",
            Quantity::GpuSms | Quantity::GpuThreadsPerBlock | Quantity::CpuCores => "",
        }
    }

    /// The value on a machine, from its records: ceilings measured in its runs
    /// (else by `evorepro hw --record` on the same machine), or its fingerprint.
    pub fn here(self, m: &MachineRecords) -> Option<f64> {
        let first = |k: &str| m.rows.iter().find_map(|r| r.float(k).or_else(|| r.int(k).map(|v| v as f64)));
        match self {
            Quantity::GpuBandwidth => m.ceiling_or_hw("gpu_d2d"),
            Quantity::GpuInt32 => m.ceiling_or_hw("gpu_int32"),
            Quantity::HostLink => m.ceiling_or_hw("gpu_h2d_pinned"),
            Quantity::CpuClock => m.ceiling_or_hw("cpu_clock"),
            Quantity::GpuSms => first("gpu_sms"),
            Quantity::CpuCores => first("cpu_physical_cores"),
            Quantity::GpuMemory => first("gpu_mem_gib"),
            Quantity::GpuThreadsPerBlock => first("gpu_max_threads_per_block"),
        }
        .filter(|v| v.is_finite() && *v > 0.0)
    }
}

/// A datasheet value of the paper's hardware, with where it comes from.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Datasheet {
    pub value: f64,
    pub source: String,
}

/// How a claim's result scales with the hardware: quantity → exponent.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct Model(pub BTreeMap<Quantity, f64>);

/// One factor of a prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct Factor {
    pub quantity: Quantity,
    pub here: f64,
    pub paper: f64,
    pub exponent: f64,
    pub source: String,
}

/// A computed explanation: the hardware predicts `predicted` × the paper's
/// result; `measured` × is what was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    pub factors: Vec<Factor>,
    pub predicted: f64,
    pub measured: f64,
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let factors: Vec<String> = self
            .factors
            .iter()
            .map(|x| {
                let unit = if x.quantity.unit().is_empty() { String::new() } else { format!(" {}", x.quantity.unit()) };
                let power = if x.exponent == 1.0 { String::new() } else { format!(" (power {})", super::judge::fmt_num(x.exponent)) };
                format!(
                    "{} {}{unit} here against {}{unit} ({}){power}",
                    x.quantity.label(),
                    super::judge::fmt_sig(x.here),
                    super::judge::fmt_sig(x.paper),
                    x.source
                )
            })
            .collect();
        write!(
            f,
            "{} predicts {} the paper's result; measured {}",
            factors.join(", "),
            super::judge::fmt_ratio(self.predicted),
            super::judge::fmt_ratio(self.measured)
        )
    }
}

impl Model {
    /// Quantities the model names that the paper's spec must give.
    pub fn quantities(&self) -> impl Iterator<Item = Quantity> + '_ {
        self.0.keys().copied()
    }

    /// The predicted ratio (this machine's result over the paper's) and its factors,
    /// or what is missing.
    pub fn predict(&self, m: &MachineRecords, paper: &PaperHardware) -> Result<(f64, Vec<Factor>), String> {
        let mut factors = Vec::new();
        for (&q, &exponent) in &self.0 {
            let here = q.here(m).ok_or_else(|| format!("no hardware prediction: {} not measured on this machine", q.label()))?;
            let sheet =
                paper.datasheet.get(&q).ok_or_else(|| format!("no hardware prediction: the spec gives no {} for the paper", q.label()))?;
            factors.push(Factor { quantity: q, here, paper: sheet.value, exponent, source: sheet.source.clone() });
        }
        let predicted = factors.iter().map(|f| (f.here / f.paper).powf(f.exponent)).product();
        Ok((predicted, factors))
    }

    /// An explanation of a measured ratio, or why there is none.
    pub fn explain(&self, measured: f64, m: &MachineRecords, paper: &PaperHardware) -> Result<Explanation, String> {
        let (predicted, factors) = self.predict(m, paper)?;
        let e = Explanation { factors, predicted, measured };
        let off = measured / predicted;
        if (1.0 / WITHIN..=WITHIN).contains(&off) {
            Ok(e)
        } else {
            Err(format!("the hardware model ({e}) misses by {} (more than {WITHIN}×)", super::judge::fmt_ratio(off.max(1.0 / off))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;

    #[test]
    fn predictions_multiply_the_ratios_of_every_factor() {
        let m = testing::machine(&[("gpu_d2d", 3000.0), ("cpu_clock", 3.0)]);
        let hw = testing::paper_hardware();
        let model = testing::model(&[("gpu_bandwidth", 1.0), ("cpu_clock", -1.0)]);
        let (p, f) = model.predict(&m, &hw).unwrap();
        // (3000 / 100) / (3.0 / 2.0) = 20
        assert!((p - 20.0).abs() < 1e-9 && f.len() == 2, "{p}");
        let e = model.explain(25.0, &m, &hw).unwrap();
        assert!(e.to_string().contains("predicts 20.0× the paper's result; measured 25.0×"), "{e}");
        let why = model.explain(100.0, &m, &hw).unwrap_err();
        assert!(why.contains("misses by 5.00×"), "{why}");
        let missing = testing::model(&[("gpu_int32", 1.0)]).explain(1.0, &m, &hw).unwrap_err();
        assert!(missing.contains("GPU int32 rate not measured on this machine"), "{missing}");
        let unknown = testing::model(&[("gpu_sms", 1.0)]).explain(1.0, &testing::machine(&[]), &hw).unwrap_err();
        assert!(unknown.contains("not measured"), "{unknown}");
    }
}
