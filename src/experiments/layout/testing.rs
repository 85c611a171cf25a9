//! Synthetic record sets for the tests: one machine's timed tries, as the
//! runner writes them (paper profile, end-to-end `wall_ms` per try).

use super::analysis::Analysis;
use super::spec::{Size, tests::shipped};
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
            .with("hw_id", "test")
            .with(col::RECORD_KIND, "measurement")
            .with(col::PROFILE, "paper")
            .with("run_id", 1_u64)
            .with("gpu_name", "Test GPU")
            .with("gpu_cc", "9.0");
        Fake { rows: vec![], tries: 20, base, absent: None }
    }

    /// A machine without a GPU: every GPU strategy is "not run" for `reason`.
    pub fn cpu_only(reason: &str) -> Fake {
        let mut f = Fake::new();
        f.base = f.base.with("gpu_name", "").with("gpu_cc", "");
        f.absent = Some(reason.into());
        f
    }

    pub fn with_tries(mut self, n: usize) -> Fake {
        self.tries = n;
        self
    }

    fn row(&self, function: &str, (pop, dim): Size, strategy: &str) -> Record {
        self.base.clone().with("function", function).with("pop", pop).with("dim", dim).with("strategy", strategy).with("phase", "timed")
    }

    /// Tries of each (strategy, mean ms) at one size, ±0.2% around the mean; a
    /// machine without a GPU records its GPU strategies as not run.
    pub fn size(mut self, function: &str, size: Size, means: &[(&str, f64)]) -> Fake {
        for &(strategy, mean) in means {
            if let Some(reason) = self.absent.as_deref().filter(|_| strategy.starts_with('S')) {
                self.rows.push(self.row(function, size, strategy).with(col::STATUS, "not_run").with(col::REASON, reason));
                continue;
            }
            for t in 0..self.tries {
                let wall = mean * (1.0 + 0.001 * ((t % 5) as f64 - 2.0));
                let r = self.row(function, size, strategy).with("try", t).with(col::STATUS, "ok").with("wall_ms", wall);
                self.rows.push(if strategy.starts_with('S') { r.with("kernel_ms", 0.5 * wall).with("events_ms", wall) } else { r });
            }
        }
        self
    }

    /// Kernel times of a GPU strategy at one size set to `ms` per try (±0.2%).
    pub fn kernel(self, function: &str, size: Size, strategy: &str, ms: f64) -> Fake {
        self.set(function, size, strategy, "kernel_ms", ms)
    }

    /// S4's host-side transposition before each try at one size, `ms` (±0.2%).
    pub fn transposition(self, function: &str, size: Size, ms: f64) -> Fake {
        self.set(function, size, "S4", "transpose_ms", ms)
    }

    /// The end-to-end time of each try of one strategy at one size, in order.
    pub fn walls(mut self, function: &str, size: Size, strategy: &str, walls: &[f64]) -> Fake {
        for r in self.rows_of(function, size, strategy) {
            let t = r.int("try").unwrap_or(0) as usize;
            r.set("wall_ms", walls[t]);
        }
        self
    }

    fn set(mut self, function: &str, size: Size, strategy: &str, column: &str, ms: f64) -> Fake {
        for r in self.rows_of(function, size, strategy) {
            let t = r.int("try").unwrap_or(0) as f64;
            r.set(column, ms * (1.0 + 0.001 * (t % 5.0 - 2.0)));
        }
        self
    }

    fn rows_of<'a>(&'a mut self, function: &'a str, (pop, dim): Size, strategy: &'a str) -> impl Iterator<Item = &'a mut Record> {
        self.rows.iter_mut().filter(move |r| {
            r.str("function") == function
                && r.int("pop") == Some(pop as i64)
                && r.int("dim") == Some(dim as i64)
                && r.str("strategy") == strategy
        })
    }

    pub fn cannot_run(mut self, function: &str, size: Size, strategy: &str, reason: &str) -> Fake {
        self.rows.push(self.row(function, size, strategy).with(col::STATUS, "cannot_run").with(col::REASON, reason));
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
