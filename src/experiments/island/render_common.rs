//! What the island report's sections share: a GPU column's cell (Figure 7,
//! Tables I–II, the side-by-side page), the grid table and its chart series
//! (Figures 4–6), a chart written beside the report, and the feasibility of runs
//! (Figure 4 and the instance families).

use super::analysis::{Analysis, Run};
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart};
use anyhow::Result;
use std::path::Path;

/// Why a machine has no part in Figures 4–6.
pub(super) const NO_GRID: &str = "no grid runs recorded";

/// A GPU column's cell: the value, else why the GPU did not run.
pub(super) fn gpu_cell(a: &Analysis, method: &str, v: Option<f64>) -> String {
    match (v, a.reason(method)) {
        (Some(v), _) => format!("{v:.3}"),
        (None, Some(why)) => format!("not run here ({why})"),
        (None, None) => "—".into(),
    }
}

/// Chart series: (name, points).
pub(super) type Series = Vec<(String, Vec<(f64, f64)>)>;

/// A grid table (a row per island count, a column per island size, headed by
/// `column(size)`) and one chart series per island count: `cell(islands, size)`
/// gives the cell's text and the point's y value, or None for "—".
pub(super) fn grid_table(
    a: &Analysis,
    column: impl Fn(usize) -> String,
    cell: impl Fn(usize, usize) -> Option<(String, f64)>,
) -> (Table, Series) {
    let sizes = a.grid_sizes();
    let mut header = vec!["islands".to_owned()];
    header.extend(sizes.iter().map(|&s| column(s)));
    let mut t = Table::new(&header);
    let mut series = Vec::new();
    for islands in a.grid_islands() {
        let mut cells = vec![islands.to_string()];
        let mut points = Vec::new();
        for &size in &sizes {
            cells.push(match cell(islands, size) {
                Some((text, y)) => {
                    points.push((size as f64, y));
                    text
                }
                None => "—".into(),
            });
        }
        t.row(cells);
        series.push((format!("{islands} island{}", if islands == 1 { "" } else { "s" }), points));
    }
    (t, series)
}

pub(super) fn write_chart(dir: &Path, m: &MachineRecords, figure: &str, chart: &LineChart) -> Result<String> {
    Ok(format!("\n{}\n", chart::figure(dir, &m.hw_id, figure, chart.title, chart)?))
}

/// The generation by which each run first held a feasible individual: "0" at the start, "≤ g" (between the trace
/// points), "none" where a run found none; the latest over `runs`.
pub(super) fn first_feasible(runs: &[Run]) -> String {
    let none = runs.iter().filter(|r| r.feasibility.is_some() && r.first_feasible.is_none()).count();
    if none > 0 {
        return format!("none in {none} of {}", runs.len());
    }
    match runs.iter().filter_map(|r| r.first_feasible.map(|g| (g, r.first_feasible_after))).max() {
        Some((0, _)) => "0".into(),
        Some((g, Some(after))) => format!("{}–{g}", after + 1),
        Some((g, None)) => format!("≤ {g}"),
        None => "—".into(),
    }
}

/// A line for the runs that ended with no feasible individual, with the reason the penalty gives: every fitness 0
/// (no selection pressure), or overweight individuals penalised yet fitter than any feasible one found.
pub(super) fn no_feasible_line(runs: &[&Run]) -> String {
    let none: Vec<&&Run> = runs.iter().filter(|r| r.first_feasible.is_none() && r.feasibility.is_some()).collect();
    if none.is_empty() {
        return String::new();
    }
    let zero = none.iter().filter(|r| r.best == 0.0).count();
    let mut line = format!("\n**{} of {} runs found no feasible solution.**", none.len(), runs.len());
    if zero > 0 {
        line += &format!(
            " In {zero} of them every individual was penalised to fitness 0 (price − ratio × excess weight ≤ 0): all \
             tournaments tie and replacement needs a strictly fitter offspring, so there is no selection pressure towards \
             the capacity; the best reported is 0, not a solution."
        );
    }
    if zero < none.len() {
        line += &format!(
            " In {} of them overweight individuals kept a positive penalised fitness, and selection climbed that without \
             crossing into the feasible region.",
            none.len() - zero
        );
    }
    line + "\n"
}

#[cfg(test)]
mod tests {
    use super::super::analysis::fixtures::*;
    use super::super::{CPU_1T, CUDA, CUDA_SPLIT};
    use super::*;

    #[test]
    fn gpu_cells_give_the_reason_a_gpu_did_not_run() {
        let m = machine(vec![speed(CPU_1T, 128, 2.0, 1), not_run("speed", CUDA, "libcuda not found")], None, &[]);
        let a = Analysis::of(&m).unwrap();
        assert_eq!(gpu_cell(&a, CUDA, None), "not run here (libcuda not found)");
        assert_eq!(gpu_cell(&a, CUDA_SPLIT, None), "—");
        assert_eq!(gpu_cell(&a, CUDA, Some(0.0571)), "0.057");
    }
}
