//! The section *Sustained rate* (Section VI): each GPU run's counted
//! operations per second against the int32 ceiling its run measured.

use super::CUDA;
use super::analysis::Analysis;
use super::claims_speed::rate_share;
use crate::experiments::Part;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::stats::median;
use std::collections::BTreeMap;

pub(super) const RATE_INTRO: &str = "The paper counted its operations with PAPI and reported 405 GFLOPS per GPU, 26% of the peak the SHOC \
    benchmark measured. Here each GPU row records the 32-bit integer operations of a generation, counted from the kernels' \
    work (`gpu::island::operations_per_generation`: the Philox rounds of every random number, the mutation masks' compares, \
    crossover and mutation per word, and evaluation's bit tests and additions; a lower bound of the instructions), divided \
    by the measured time per generation (all phases) and set against the int32 instruction rate measured in the same run. \
    The paper's setting is one island per GPU; islands sharing one GPU go beyond it.";

/// One GPU run: counted operations per generation, µs per generation, and
/// its operations/s with their share of the int32 ceiling ([`rate_share`]).
struct Point {
    ops: f64,
    us: f64,
    rate_share: Option<(f64, f64)>,
}

/// Counted operations per second of the GPU runs that record them, one row per
/// configuration (case, islands × size): its runs, and the median and range over
/// them of the time per generation and of the share of its run's int32 ceiling.
pub(super) fn sustained_rate(m: &MachineRecords, a: &Analysis) -> Part {
    let runs = a
        .table_runs()
        .map(|r| ("table", r))
        .chain(a.speed_runs().map(|r| ("speed", r)))
        .chain(a.grid.values().flatten().map(|r| ("grid", r)));
    let mut by_config: BTreeMap<(&str, usize, usize), Vec<Point>> = BTreeMap::new();
    for (figure, r) in runs.filter(|(_, r)| r.method == CUDA) {
        let Some(ops) = r.operations_per_generation else { continue };
        let point = Point { ops, us: r.ms_per_generation() * 1e3, rate_share: rate_share(r, m) };
        by_config.entry((figure, r.islands, r.size)).or_default().push(point);
    }
    if by_config.is_empty() {
        return Part::NotRun(
            a.reason(CUDA)
                .map_or_else(|| "no GPU run recorded its counted operations (column `operations_per_generation`)".into(), str::to_owned),
        );
    }
    let mut t = Table::new(&[
        "case",
        "islands × size",
        "runs",
        "G operations per generation",
        "µs per generation (median, range)",
        "G operations/s (median)",
        "of the int32 ceiling (median, range)",
    ]);
    for ((figure, islands, size), runs) in by_config {
        let us: Vec<f64> = runs.iter().map(|r| r.us).collect();
        let rates: Vec<f64> = runs.iter().filter_map(|r| r.rate_share.map(|(rate, _)| rate)).collect();
        let shares: Vec<f64> = runs.iter().filter_map(|r| r.rate_share.map(|(_, share)| share)).collect();
        let range = |xs: &[f64], cell: &dyn Fn(f64) -> String| match xs.len() {
            0 => None,
            1 => Some(cell(xs[0])),
            _ => {
                let (lo, hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)));
                Some(format!("{} ({}–{})", cell(median(xs)), cell(lo), cell(hi)))
            }
        };
        let share_cell = |s: f64| crate::fmt::share(s, 1.0, 1);
        t.row(vec![
            figure.to_owned(),
            format!("{islands} × {size}"),
            runs.len().to_string(),
            format!("{:.3}", runs[0].ops / 1e9),
            range(&us, &|x| format!("{x:.1}")).unwrap_or_default(),
            if rates.is_empty() { "—".into() } else { format!("{:.0}", median(&rates) / 1e9) },
            range(&shares, &share_cell).unwrap_or_else(|| "no int32 ceiling recorded".into()),
        ]);
    }
    t.render().into()
}
