//! The limits S3 runs into (Section 3.2.3, the NAN entries of Table 1): one
//! thread per coordinate, and in this harness's kernel (dimension + 1) floats of shared
//! memory per block. A device with T threads and M bytes of shared memory per
//! block runs S3 up to dimension min(T, M/4 − 1).
//!
//! The paper's card's limits come from the spec; this machine's from what its
//! records hold, in this order: the fingerprint's columns (newer records
//! only), the device limit quoted in the "cannot run" reasons, and the least
//! that CUDA guarantees for the recorded compute capability.

use crate::records::FingerprintRow;
use crate::records::MachineRecords;

/// One limit of a device and where its value comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Limit {
    pub value: usize,
    pub source: String,
    /// Only a lower bound (the least the compute capability guarantees).
    pub at_least: bool,
}

/// The limit that sets S3's largest dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    Threads,
    SharedMemory,
}

impl std::fmt::Display for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Binding::Threads => "threads per block",
            Binding::SharedMemory => "shared memory per block",
        })
    }
}

/// Threads and shared memory a block may have.
#[derive(Clone, Debug, PartialEq)]
pub struct S3Limits {
    pub threads: Limit,
    pub shared_bytes: Limit,
}

/// Shared memory S3 needs at dimension `dim` (bytes).
pub fn shared_need(dim: usize) -> usize {
    (dim + 1) * 4
}

impl S3Limits {
    /// Whether S3 fits a block at dimension `dim`.
    pub fn runs_at(&self, dim: usize) -> bool {
        dim <= self.threads.value && shared_need(dim) <= self.shared_bytes.value
    }

    /// The largest dimension S3 can run at, and the limit that sets it.
    pub fn largest(&self) -> (usize, Binding) {
        let by_shared = self.shared_bytes.value / 4 - 1;
        if self.threads.value <= by_shared { (self.threads.value, Binding::Threads) } else { (by_shared, Binding::SharedMemory) }
    }

    /// Whether [`S3Limits::largest`] is exact (its binding limit is not a lower bound).
    pub fn exact(&self) -> bool {
        match self.largest().1 {
            Binding::Threads => !self.threads.at_least,
            Binding::SharedMemory => !self.shared_bytes.at_least,
        }
    }

    /// The first of `dims` S3 cannot run at.
    pub fn first_blocked(&self, dims: &[usize]) -> Option<usize> {
        dims.iter().copied().filter(|&d| !self.runs_at(d)).min()
    }

    /// "1024 threads per block (source), 49152 B of shared memory per block (source)".
    pub fn describe(&self) -> String {
        let at_least = |l: &Limit| if l.at_least { "at least " } else { "" };
        format!(
            "{}{} threads per block ({}), {}{} B of shared memory per block ({})",
            at_least(&self.threads),
            self.threads.value,
            self.threads.source,
            at_least(&self.shared_bytes),
            self.shared_bytes.value,
            self.shared_bytes.source
        )
    }
}

/// The number in `reason` between `before` and `after` ("the device's 1024 threads per block").
fn quoted(reason: &str, before: &str, after: &str) -> Option<usize> {
    let rest = &reason[reason.find(before)? + before.len()..];
    rest[..rest.find(after)?].trim().parse().ok()
}

/// The least CUDA guarantees per block for compute capability `major.x`:
/// 512 threads and 16 KB below 2.0, 1024 threads and 48 KB from 2.0 on (CUDA C
/// Programming Guide, technical specifications per compute capability).
fn by_compute_capability(cc: &str) -> Option<(Limit, Limit)> {
    let major: u32 = cc.split('.').next()?.parse().ok()?;
    let source = format!("the least CUDA gives compute capability {cc}");
    let (threads, shared) = if major >= 2 { (1024, 48 << 10) } else { (512, 16 << 10) };
    Some((
        Limit { value: threads, source: source.clone(), at_least: false },
        Limit { value: shared, source: format!("{source}; the records hold no shared-memory limit"), at_least: true },
    ))
}

/// This machine's limits from its records and the reasons of its "cannot run" rows.
pub fn here<'a>(m: &MachineRecords, reasons: impl Iterator<Item = &'a str> + Clone) -> Result<S3Limits, String> {
    let column = |k: &str| m.rows.iter().find_map(|r| r.int(k)).filter(|v| *v > 0).map(|v| v as usize);
    let cc = m.rows.iter().map(|r| r.str(FingerprintRow::gpu_cc)).find(|c| !c.is_empty());
    let fallback = cc.and_then(by_compute_capability);
    let threads = column(FingerprintRow::gpu_max_threads_per_block)
        .map(|v| Limit { value: v, source: "recorded with the run".into(), at_least: false })
        .or_else(|| {
            reasons.clone().find_map(|r| quoted(r, "the device's ", " threads per block")).map(|v| Limit {
                value: v,
                source: "quoted by the records' cannot-run reasons".into(),
                at_least: false,
            })
        })
        .or_else(|| fallback.clone().map(|f| f.0));
    let shared = column(FingerprintRow::gpu_max_smem_per_block_kib)
        .map(|v| Limit { value: v << 10, source: "recorded with the run (opt-in maximum)".into(), at_least: false })
        .or_else(|| {
            reasons.clone().find_map(|r| quoted(r, "the device allows ", " B")).map(|v| Limit {
                value: v,
                source: "quoted by the records' cannot-run reasons".into(),
                at_least: false,
            })
        })
        .or_else(|| fallback.map(|f| f.1));
    match (threads, shared) {
        (Some(threads), Some(shared_bytes)) => Ok(S3Limits { threads, shared_bytes }),
        _ => Err("the records hold no threads or shared memory per block, nor a compute capability".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Record;

    fn machine(rows: Vec<Record>) -> MachineRecords {
        MachineRecords { hw_id: "m".into(), rows }
    }

    #[test]
    fn limits_come_from_columns_then_reasons_then_the_compute_capability() {
        let cc = Record::new().with(FingerprintRow::gpu_cc, "9.0");
        // The reasons `gpu::layout::launch_config` gives.
        let reasons = ["dimension 2000 exceeds the device's 1024 threads per block"];
        let l = here(&machine(vec![cc.clone()]), reasons.into_iter()).unwrap();
        assert_eq!(l.threads.value, 1024);
        assert!(l.threads.source.contains("cannot-run reasons"));
        assert_eq!((l.shared_bytes.value, l.shared_bytes.at_least), (49152, true));
        assert_eq!(l.largest(), (1024, Binding::Threads));
        assert!(l.exact(), "threads bind, and they are quoted exactly");

        let s2 = ["stencil needs 9000 B of shared memory per block, the device allows 8192 B"];
        let l = here(&machine(vec![cc.clone()]), s2.into_iter()).unwrap();
        assert_eq!((l.shared_bytes.value, l.shared_bytes.at_least), (8192, false));
        assert_eq!(l.largest(), (1024, Binding::Threads));

        let newer =
            cc.clone().with(FingerprintRow::gpu_max_threads_per_block, 512_i64).with(FingerprintRow::gpu_max_smem_per_block_kib, 1_i64);
        let l = here(&machine(vec![newer]), reasons.into_iter()).unwrap();
        assert_eq!((l.threads.value, l.shared_bytes.value), (512, 1024));
        assert_eq!(l.largest(), (255, Binding::SharedMemory));
        assert_eq!(l.first_blocked(&[100, 200, 500, 1000]), Some(500));

        let old = here(&machine(vec![Record::new().with(FingerprintRow::gpu_cc, "1.3")]), std::iter::empty()).unwrap();
        assert_eq!(old.largest(), (512, Binding::Threads));
        assert!(old.exact(), "every compute capability below 2.0 has 512 threads per block");
        assert!(old.shared_bytes.at_least, "a compute capability gives only the least shared memory");
        assert!(here(&machine(vec![]), std::iter::empty()).is_err());
    }

    #[test]
    fn fermi_runs_s3_up_to_dimension_1024() {
        let fermi = S3Limits {
            threads: Limit { value: 1024, source: "sheet".into(), at_least: false },
            shared_bytes: Limit { value: 48 << 10, source: "sheet".into(), at_least: false },
        };
        assert!(fermi.runs_at(1000) && fermi.runs_at(1024) && !fermi.runs_at(1025));
        assert_eq!(shared_need(1000), 4004);
        assert_eq!(fermi.first_blocked(&[100, 200, 500, 1000, 1500, 2000]), Some(1500));
        assert!(fermi.describe().starts_with("1024 threads per block (sheet), 49152 B"));
    }
}
