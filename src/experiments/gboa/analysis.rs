//! One machine's gBOA records, indexed by Table I point and complexity axis.

use super::cases::{GBOA, GBOA_PAPER};
use super::rows::{COMPLEXITY, ComplexityCase, RunRow, TABLE1, Table1Case};
use crate::claims::Estimate;
use crate::claims::judge::Band;
use crate::fmt::fmt_num;
use crate::records::FingerprintRow;
use crate::records::MachineRecords;
use crate::records::{Record, col};
use crate::stats::{self, Summary};
use std::collections::BTreeMap;

/// A Table I point: problem size and run length (profiles may differ in the latter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Point {
    pub ell: usize,
    pub generations: usize,
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} gen.)", self.ell, self.generations)
    }
}

/// The range the claims judge and the report splits Table I by (the spec's
/// `settings.judged_ells` and `settings.judged_generations`): sizes ℓ chosen
/// here, at the paper's run length (Section V). The default judges nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judged {
    pub ells: Band,
    pub generations: usize,
}

impl Default for Judged {
    fn default() -> Judged {
        Judged { ells: Band { low: 0.0, high: 0.0 }, generations: 0 }
    }
}

/// What the paper states (the spec's `[stated]`, Section V.B): gBOA's largest
/// speedups over sBOA and pBOA, and network construction's least share of
/// gBOA's run after parallelization, smaller problems and the largest.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stated {
    pub over_sboa: f64,
    pub over_pboa: f64,
    pub share: f64,
    pub share_largest: f64,
}

impl Judged {
    pub fn contains(&self, at: &Point) -> bool {
        self.ells.contains(at.ell as f64) && at.generations == self.generations
    }

    /// "trap-5, ℓ ≤ 190, 200 generations".
    pub fn describe(&self) -> String {
        let (lo, hi) = (fmt_num(self.ells.low), fmt_num(self.ells.high));
        let ells = if self.ells.low <= 1.0 { format!("trap-5, ℓ ≤ {hi}") } else { format!("trap-5, ℓ = {lo}–{hi}") };
        format!("{ells}, {} generations", self.generations)
    }
}

/// One run's phase times (ms) and quality.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunTimes {
    /// The run's index in its case (the same seed for every method).
    pub run: usize,
    pub selection: f64,
    pub construction: f64,
    pub sampling: f64,
    /// Offspring evaluation; 0 in rows recorded before it was timed apart, whose
    /// replacement time includes it.
    pub evaluation: f64,
    pub replacement: f64,
    pub total: f64,
    pub solved: f64,
    /// N and the selected S of the run (`gboa-device` rows; NaN otherwise).
    pub n: f64,
    pub selected: f64,
    /// gBOA only (NaN otherwise): kernel time, the device calls' wall time (packing
    /// excluded) and alleles read by the network kernel (`gboa-device`: alleles only).
    pub kernel: f64,
    pub device_calls: f64,
    pub alleles: f64,
    /// `gboa-device` only (NaN otherwise, and in its rows recorded before they
    /// were timed): the statistics kernel's device time and the host's setup.
    pub statistics: f64,
    pub setup: f64,
}

/// One machine's records, indexed for the report.
#[derive(Clone, Default)]
pub struct Analysis {
    /// (ℓ, generations) → method → runs.
    pub table1: BTreeMap<Point, BTreeMap<String, Vec<RunTimes>>>,
    /// (axis, value) → method → first-generation construction times (ms).
    pub complexity: BTreeMap<(String, usize), BTreeMap<String, Vec<f64>>>,
    /// The same for the device's network kernel alone (CUDA events; gBOA's methods).
    pub complexity_kernel: BTreeMap<(String, usize), BTreeMap<String, Vec<f64>>>,
    /// (axis, value) → (ℓ, population) of each complexity point.
    pub complexity_fixed: BTreeMap<(String, usize), (usize, usize)>,
    /// The GPU's multiprocessors (the m of gBOA's formula, Section V.A), from the records.
    pub gpu_sms: Option<usize>,
    /// Most parents per node and the selected share (the spec's settings: the k and,
    /// times the population, the N of Section V.A's formulas).
    pub max_parents: usize,
    pub selection: f64,
    /// Why methods were not run (method → reason).
    pub not_run: BTreeMap<String, String>,
    /// gBOA runs (both network kernels) identical to CPU pBOA, of all gBOA runs.
    pub identical: (usize, usize),
    /// The range the claims judge (the spec's).
    pub judged: Judged,
    /// What the paper states (the spec's `[stated]`).
    pub stated: Stated,
    /// The profile that timed each Table I point (its runs' ceilings apply).
    pub profiles: BTreeMap<Point, String>,
}

impl Analysis {
    /// Each point (Table I's ℓ and generations, a complexity sweep's value) from
    /// the profile that measured it last, at its commit: one code version per mean.
    pub fn of(m: &MachineRecords) -> Analysis {
        // A Table I point is (ℓ, generations); a complexity point is its axis' value.
        let point = |r: &Record| match (r.row::<Table1Case>(), r.row::<ComplexityCase>()) {
            (Ok(t), _) => Some((TABLE1, String::new(), t.ell, t.generations)),
            (_, Ok(c)) => Some((COMPLEXITY, c.axis.clone(), if c.axis == "n" { c.n } else { c.ell }, 0)),
            _ => None,
        };
        let mut a =
            Analysis { gpu_sms: m.rows.iter().find_map(|r| r.int(FingerprintRow::gpu_sms)).map(|v| v as usize), ..Analysis::default() };
        let ran = Record::is_ok;
        // Identity is evidence whichever profile ran it: every gBOA run counts.
        for r in m.measurements().filter(|r| [GBOA, GBOA_PAPER].contains(&r.str(col::METHOD)) && ran(r)) {
            a.identical.0 += usize::from(r.row::<RunRow>().is_ok_and(|run| run.identical == Some(true)));
            a.identical.1 += 1;
        }
        for r in m.latest_measurements(point) {
            let method = r.str(col::METHOD).to_owned();
            if !ran(r) {
                a.not_run.insert(method, r.str(col::REASON).to_owned());
                continue;
            }
            let Ok(run) = r.row::<RunRow>() else { continue };
            let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
            if let Ok(case) = r.row::<Table1Case>() {
                let at = Point { ell: case.ell, generations: case.generations };
                a.profiles.insert(at, r.str(col::PROFILE).to_owned());
                a.table1.entry(at).or_default().entry(method).or_default().push(RunTimes {
                    run: case.run,
                    selection: run.selection_ms,
                    construction: run.construction_ms,
                    sampling: run.sampling_ms,
                    evaluation: run.evaluation_ms.unwrap_or(0.0),
                    n: case.n as f64,
                    selected: run.selected.map_or(f64::NAN, |v| v as f64),
                    replacement: run.replacement_ms,
                    total: run.total_ms,
                    solved: run.solved_fraction,
                    kernel: nan(run.kernel_ms),
                    device_calls: nan(run.device_calls_ms),
                    alleles: nan(run.alleles_counted),
                    statistics: nan(run.statistics_ms),
                    setup: nan(run.setup_ms),
                });
            } else if let Ok(ComplexityCase { axis, ell, n, .. }) = r.row::<ComplexityCase>() {
                let value = if axis == "ell" { ell } else { n };
                a.complexity_fixed.insert((axis.clone(), value), (ell, n));
                if let Some(kernel) = run.kernel_ms {
                    a.complexity_kernel.entry((axis.clone(), value)).or_default().entry(method.clone()).or_default().push(kernel);
                }
                a.complexity.entry((axis, value)).or_default().entry(method).or_default().push(run.construction_ms);
            }
        }
        a
    }

    /// One value of every run of `method` at `at` (empty when none).
    pub fn runs(&self, at: Point, method: &str, pick: impl Fn(&RunTimes) -> f64) -> Vec<f64> {
        self.table1.get(&at).and_then(|m| m.get(method)).map_or_else(Vec::new, |runs| runs.iter().map(pick).collect())
    }

    pub fn summary(&self, at: Point, method: &str, pick: impl Fn(&RunTimes) -> f64) -> Option<Summary> {
        Summary::of(&self.runs(at, method, pick))
    }

    pub fn mean(&self, at: Point, method: &str, pick: impl Fn(&RunTimes) -> f64) -> Option<f64> {
        self.summary(at, method, pick).map(|s| s.mean)
    }

    /// One value of each run of `x` and of `y` with the same seed (the same run
    /// index), in run order.
    pub fn paired(&self, at: Point, x: &str, y: &str, pick: impl Fn(&RunTimes) -> f64) -> Vec<(f64, f64)> {
        let runs = |m: &str| self.table1.get(&at).and_then(|t| t.get(m)).map_or(&[][..], |r| r.as_slice());
        runs(x).iter().filter_map(|o| runs(y).iter().find(|u| u.run == o.run).map(|u| (pick(o), pick(u)))).collect()
    }

    /// Whole-run ratios `over` / `under` of the runs both methods ran with the
    /// same seed (the same run index), in run order.
    pub fn paired_ratios(&self, at: Point, over: &str, under: &str) -> Vec<f64> {
        self.paired(at, over, under, |r| r.total).into_iter().map(|(o, u)| o / u).filter(|r| r.is_finite()).collect()
    }

    /// The spec's settings the formulas of Section V.A need, the range the claims
    /// judge, and what the paper states.
    pub fn with_settings(mut self, max_parents: usize, selection: f64, judged: Judged, stated: Stated) -> Self {
        (self.max_parents, self.selection, self.judged, self.stated) = (max_parents, selection, judged, stated);
        self
    }

    /// Fitted exponent of construction time against the axis, per method, with
    /// its 95% interval over the points fitted (its `n`).
    pub fn exponent(&self, axis: &str, method: &str) -> Option<Estimate> {
        fit(&self.complexity, axis, method)
    }

    /// Fitted exponent of the network kernel's time against the axis (gBOA's methods).
    pub fn kernel_exponent(&self, axis: &str, method: &str) -> Option<Estimate> {
        fit(&self.complexity_kernel, axis, method)
    }

    /// Fitted exponent of the kernel's time over gBOA's formula ([`Self::gboa_formula`])
    /// against the axis: how much faster than its bound the kernel grows (the
    /// difference of the two exponents, with an interval the formula's own
    /// curvature over these sizes does not widen).
    pub fn kernel_over_formula(&self, axis: &str, method: &str, sms: usize, threads: usize) -> Option<Estimate> {
        let points: Vec<(f64, f64)> = self
            .gboa_formula(axis, method, sms, threads)
            .into_iter()
            .filter_map(|(v, cost)| Some((v as f64, stats::median(self.complexity_kernel.get(&(axis.to_owned(), v))?.get(method)?) / cost)))
            .collect();
        Estimate::power_law(&points)
    }

    /// gBOA's formula of Section V.A, `⌈n/m⌉(k·2^k·n·⌈N/t⌉ + ⌈k/t⌉·n²)`, with unit
    /// constants, at each complexity point of `axis` where `method` has kernel times:
    /// n = ℓ, N = the selected parents (population × selection), m = `sms`, t = `threads`.
    pub fn gboa_formula(&self, axis: &str, method: &str, sms: usize, threads: usize) -> Vec<(usize, f64)> {
        let (k, m, t) = (self.max_parents, sms.max(1), threads.max(1));
        self.complexity_kernel
            .iter()
            .filter(|((ax, _), times)| ax == axis && times.contains_key(method))
            .filter_map(|((_, v), _)| {
                let (ell, pop) = self.complexity_point(axis, *v)?;
                let selected = (pop as f64 * self.selection).round() as usize;
                let (n, k2k) = (ell as f64, (k << k) as f64);
                let cost = ell.div_ceil(m) as f64 * (k2k * n * selected.div_ceil(t) as f64 + k.div_ceil(t) as f64 * n * n);
                Some((*v, cost))
            })
            .collect()
    }

    /// (ℓ, population) of a complexity point, as its records state them.
    pub fn complexity_point(&self, axis: &str, value: usize) -> Option<(usize, usize)> {
        self.complexity_fixed.get(&(axis.to_owned(), value)).copied()
    }

    /// Why `method` has no runs on this machine.
    pub fn reason(&self, method: &str) -> String {
        self.not_run.get(method).cloned().unwrap_or_else(|| "not in this machine's profiles".into())
    }
}

/// Least-squares exponent of the median time against an axis's values, in log–log.
fn fit(times: &BTreeMap<(String, usize), BTreeMap<String, Vec<f64>>>, axis: &str, method: &str) -> Option<Estimate> {
    let points: Vec<(f64, f64)> =
        times.iter().filter(|((ax, _), _)| ax == axis).filter_map(|((_, v), m)| Some((*v as f64, stats::median(m.get(method)?)))).collect();
    Estimate::power_law(&points)
}

/// Least-squares exponent of `(value, cost)` points in log–log (a formula's: its value alone).
pub fn exponent_of(points: &[(usize, f64)]) -> Option<f64> {
    Estimate::power_law(&points.iter().map(|&(v, c)| (v as f64, c)).collect::<Vec<_>>()).map(|e| e.value)
}
