//! The section *Sustained rate* (Section VI): each GPU run's counted
//! operations per second against the int32 ceiling its profile measured.

use super::CUDA;
use super::analysis::Analysis;
use super::claims_speed::rate_share;
use crate::records::MachineRecords;
use crate::report::Table;

pub(super) const RATE_INTRO: &str = "The paper counted its operations with PAPI and reported 405 GFLOPS per GPU, 26% of the peak the SHOC \
    benchmark measured. Here each GPU row records the 32-bit integer operations of a generation, counted from the kernels' \
    work (`gpu::island::operations_per_generation`: the Philox rounds of every random number, the mutation masks' compares, \
    crossover and mutation per word, and evaluation's bit tests and additions; a lower bound of the instructions), divided \
    by the measured time per generation (all phases) and set against the int32 instruction rate measured in the same run. \
    The paper's setting is one island per GPU; islands sharing one GPU go beyond it.";

/// Counted operations per second of every GPU run that records them, against its profile's int32 ceiling.
pub(super) fn sustained_rate(m: &MachineRecords, a: &Analysis) -> String {
    let mut t = Table::new(&[
        "case",
        "islands × size",
        "G operations per generation",
        "µs per generation",
        "G operations/s",
        "of the int32 ceiling",
    ]);
    let runs = a
        .table_runs()
        .map(|r| ("table", r))
        .chain(a.speed_runs().map(|r| ("speed", r)))
        .chain(a.grid.values().flatten().map(|r| ("grid", r)));
    let mut rows: Vec<(String, usize, usize, Vec<String>)> = Vec::new();
    for (figure, r) in runs.filter(|(_, r)| r.method == CUDA) {
        let Some(ops) = r.operations_per_generation else { continue };
        let share = rate_share(r, m);
        rows.push((
            figure.to_owned(),
            r.islands,
            r.size,
            vec![
                figure.to_owned(),
                format!("{} × {}", r.islands, r.size),
                format!("{:.3}", ops / 1e9),
                format!("{:.1}", r.ms_per_generation() * 1e3),
                r.operations_per_s().map_or("—".into(), |x| format!("{:.0}", x / 1e9)),
                share.map_or("no int32 ceiling recorded".into(), |(_, s)| crate::fmt::share(s, 1.0, 1)),
            ],
        ));
    }
    if rows.is_empty() {
        return a.reason(CUDA).map_or_else(
            || "No GPU runs recording their counted operations in this machine's records (column `operations_per_generation`).\n".into(),
            |why| format!("not run here ({why})\n"),
        );
    }
    rows.sort_by(|x, y| (&x.0, x.1, x.2).cmp(&(&y.0, y.1, y.2)));
    for (_, _, _, cells) in rows {
        t.row(cells);
    }
    t.render()
}
