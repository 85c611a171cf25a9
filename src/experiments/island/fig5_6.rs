//! Figures 5 and 6's section: the total time of a run and the time per
//! generation on the grid of island counts and sizes (Figure 5), and the
//! migration phase's share of it (Figure 6).

use super::analysis::{Analysis, Run};
use super::render_common::{NO_GRID, Series, grid_table, write_chart};
use crate::experiments::Part;
use crate::records::MachineRecords;
use crate::report::chart::LineChart;
use crate::stats::Summary;
use anyhow::Result;
use std::path::Path;

/// Figures 5 and 6 of one machine: nothing where it has no grid runs.
pub(super) fn fig5_6(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<Part> {
    if a.grid.is_empty() {
        return Ok(Part::NotRun(NO_GRID.into()));
    }
    Ok(Part::Shown(fig5(m, a, dir)? + &fig6(m, a, dir)?))
}

fn fig5(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    let (t, series) = grid_table(
        a,
        |size| format!("{size}: total (s) / per gen. (ms) / migration"),
        |islands, size| {
            let total = Summary::of(&a.grid_values(islands, size, |r| r.total_ms))?;
            let share = Summary::of(&a.grid_values(islands, size, Run::migration_share))?;
            let per = a.grid_per_generation(islands, size)?;
            Some((format!("{:.2} / {per:.3} / {:.2}%", total.mean / 1e3, 100.0 * share.mean), total.mean / 1e3))
        },
    );
    let mut md = format!(
        "Mean wall time of a run ({}), time per generation, and the migration phase's share of it (Figure 6).\n\n",
        a.grid_method().unwrap_or("—")
    );
    md += &t.render();
    let chart = LineChart::new("Figure 5: total time of a run", ("island size", "time (s)"), series, m.label());
    Ok(md + &write_chart(dir, m, "fig5", &chart)?)
}

/// Figure 6: the migration phase's share of a run against the island size, a
/// curve per island count (one island has no migration).
fn fig6(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    let (_, series) = grid_table(
        a,
        |size| size.to_string(),
        |islands, size| {
            let share = Summary::of(&a.grid_values(islands, size, Run::migration_share))?;
            (islands > 1 && share.mean > 0.0).then(|| (String::new(), 100.0 * share.mean))
        },
    );
    let series: Series = series.into_iter().filter(|s| !s.1.is_empty()).collect();
    if series.is_empty() {
        return Ok(String::new());
    }
    let chart = LineChart::new("Figure 6: migration overhead", ("island size", "migration (% of the run)"), series, m.label());
    write_chart(dir, m, "fig6", &chart)
}
