//! Synthetic record sets for the tests: one machine's timed tries, as the
//! runner writes them (paper profile, end-to-end `wall_ms` per try).

use super::analysis::Analysis;
use super::rows::{Measured, SizeCase, TIMED, Try};
use super::spec::{Size, tests::shipped};
use crate::records::FingerprintRow;
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;

/// A machine's records, built size by size.
#[derive(Clone)]
pub struct Fake {
    rows: Vec<Record>,
    tries: usize,
    base: Record,
    /// Why the GPU strategies are not run (a machine without a GPU).
    absent: Option<String>,
}

impl Fake {
    /// A machine with a GPU of compute capability 9.0 and 20 tries per strategy.
    pub fn new() -> Fake {
        let base = Record::new()
            .with(col::HW_ID, "test")
            .with(col::RECORD_KIND, "measurement")
            .with(col::PROFILE, "paper")
            .with(col::RUN_ID, 1_u64)
            .with(FingerprintRow::gpu_name, "Test GPU")
            .with(FingerprintRow::gpu_cc, "9.0");
        Fake { rows: vec![], tries: 20, base, absent: None }
    }

    /// A machine without a GPU: every GPU strategy is "not run" for `reason`.
    pub fn cpu_only(reason: &str) -> Fake {
        let mut f = Fake::new();
        f.base = f.base.with(FingerprintRow::gpu_name, "").with(FingerprintRow::gpu_cc, "");
        f.absent = Some(reason.into());
        f
    }

    pub fn with_tries(mut self, n: usize) -> Fake {
        self.tries = n;
        self
    }

    fn row(&self, function: &str, (pop, dim): Size, strategy: &str, t: usize) -> Record {
        let case = SizeCase { function: function.into(), pop, dim, seed: 1, tries: self.tries };
        let tried = Try { strategy: strategy.into(), phase: TIMED.into(), r#try: t };
        self.base.clone().with_row(&case).with_row(&tried)
    }

    /// Tries of each (strategy, mean ms) at one size, ±0.2% around the mean; a
    /// machine without a GPU records its GPU strategies as not run.
    pub fn size(mut self, function: &str, size: Size, means: &[(&str, f64)]) -> Fake {
        for &(strategy, mean) in means {
            if let Some(reason) = self.absent.as_deref().filter(|_| strategy.starts_with('S')) {
                self.rows.push(self.row(function, size, strategy, 0).with(col::STATUS, "not_run").with(col::REASON, reason));
                continue;
            }
            for t in 0..self.tries {
                let wall = around(mean, t);
                let gpu = strategy.starts_with('S');
                let m = Measured {
                    wall_ms: Some(wall),
                    kernel_ms: gpu.then_some(0.5 * wall),
                    events_ms: gpu.then_some(wall),
                    ..Measured::default()
                };
                self.rows.push(self.row(function, size, strategy, t).with(col::STATUS, "ok").with_row(&m));
            }
        }
        self
    }

    /// Kernel times of a GPU strategy at one size set to `ms` per try (±0.2%).
    pub fn kernel(self, function: &str, size: Size, strategy: &str, ms: f64) -> Fake {
        self.update(function, size, strategy, |t, m| m.kernel_ms = Some(around(ms, t)))
    }

    /// S4's host-side transposition before each try at one size, `ms` (±0.2%).
    pub fn transposition(self, function: &str, size: Size, ms: f64) -> Fake {
        self.update(function, size, "S4", |t, m| m.transpose_ms = Some(around(ms, t)))
    }

    /// The end-to-end time of each try of one strategy at one size, in order.
    pub fn walls(self, function: &str, size: Size, strategy: &str, walls: &[f64]) -> Fake {
        self.update(function, size, strategy, |t, m| m.wall_ms = Some(walls[t]))
    }

    /// Changes what each try of one strategy at one size measured (`change(try, measured)`).
    fn update(mut self, function: &str, (pop, dim): Size, strategy: &str, change: impl Fn(usize, &mut Measured)) -> Fake {
        for r in &mut self.rows {
            let (Ok(case), Ok(t), Ok(mut m)) = (r.row::<SizeCase>(), r.row::<Try>(), r.row::<Measured>()) else { continue };
            if (case.function.as_str(), case.pop, case.dim, t.strategy.as_str()) == (function, pop, dim, strategy) {
                change(t.r#try, &mut m);
                *r = std::mem::take(r).with_row(&m);
            }
        }
        self
    }

    pub fn cannot_run(mut self, function: &str, size: Size, strategy: &str, reason: &str) -> Fake {
        self.rows.push(self.row(function, size, strategy, 0).with(col::STATUS, "cannot_run").with(col::REASON, reason));
        self
    }

    /// Adds a column to every row (e.g. the fingerprint's limits).
    pub fn with(mut self, key: &str, value: i64) -> Fake {
        self.base = self.base.with(key, value);
        for r in &mut self.rows {
            r.set(key, value);
        }
        self
    }

    pub fn machine(&self) -> MachineRecords {
        MachineRecords { hw_id: "test".into(), rows: self.rows.clone() }
    }

    /// The analysis of these records under the shipped spec.
    pub fn analysis(&self) -> Analysis {
        Analysis::of(&self.machine(), &shipped().1)
    }
}

/// `ms` ±0.2% by try, as tries spread.
fn around(ms: f64, t: usize) -> f64 {
    ms * (1.0 + 0.001 * ((t % 5) as f64 - 2.0))
}
