//! Figure 4's section: the best fitness after the run on the grid of island
//! counts and sizes, the steps between island counts Section VI calls
//! significant, and the grid's feasibility.

use super::analysis::{Analysis, Run};
use super::claims_fitness::Step;
use super::render_common::{NO_GRID, first_feasible, grid_table, no_feasible_line, write_chart};
use crate::experiments::Part;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::LineChart;
use crate::stats::Summary;
use anyhow::Result;
use std::fmt::Write;
use std::path::Path;

pub(super) fn fig4(m: &MachineRecords, a: &Analysis, optimum: &str, dir: &Path) -> Result<Part> {
    if a.grid.is_empty() {
        return Ok(Part::NotRun(NO_GRID.into()));
    }
    let (t, series) = grid_table(
        a,
        |size| format!("{size} per island"),
        |islands, size| {
            let runs = a.grid.get(&(islands, size))?;
            let b = Summary::of(&a.grid_values(islands, size, |r| r.best))?;
            let g = Summary::of(&runs.iter().filter_map(|r| r.gap).collect::<Vec<_>>())?;
            let infeasible = runs.iter().filter(|r| !r.best_feasible).count();
            let note = if infeasible > 0 { format!("; best infeasible in {infeasible} of {}", runs.len()) } else { String::new() };
            Some((format!("{:.0} ± {:.0} (gap {:.3}%, n = {}{note})", b.mean, b.ci95(), 100.0 * g.mean, b.n), 100.0 * g.mean))
        },
    );
    let mut md = format!("Best fitness, mean ± 95% CI over runs, and the gap to the {optimum} ({}).\n\n", a.grid_method().unwrap_or("—"));
    md += &t.render();
    let full = |value: fn(&Run) -> Option<f64>| Summary::of(&a.full.iter().filter_map(value).collect::<Vec<_>>());
    if let (Some(first), Some(best), Some(gap), Some(time)) =
        (a.full.first(), full(|r| Some(r.best)), full(|r| r.gap), full(|r| Some(r.total_ms)))
    {
        let _ = writeln!(
            md,
            "\nAt the paper's full length: {} islands × {} for {} generations ({}): best {:.0} ± {:.0} (95% CI, n = {}), gap {:.4}%, \
             {:.1} s per run.",
            first.islands,
            first.size,
            first.generations,
            first.method,
            best.mean,
            best.ci95(),
            best.n,
            100.0 * gap.mean,
            time.mean / 1e3
        );
    }
    md += &fig4_steps(a);
    md += &grid_feasibility(a);
    let chart = LineChart::new("Figure 4: gap to the optimum after the run", ("island size", "gap (%)"), series, m.label());
    Ok(Part::Shown(md + &write_chart(dir, m, "fig4", &chart)?))
}

/// Figure 4's steps between island counts the paper names (the spec's `[figure4] steps`) at every size of the grid:
/// the difference of the best fitness with its Welch 95% interval and n, and whether it is a gain.
fn fig4_steps(a: &Analysis) -> String {
    let Some(f) = a.figure4() else { return String::new() };
    let sizes = a.grid_sizes();
    let mut t = Table::new(&["step", "island size", "Δ best fitness ± 95% (Welch)", "n (fewer / more)", "verdict"]);
    let mut any = false;
    for &(fewer, more) in &f.steps {
        for &size in &sizes {
            let Some(step) = Step::of(a, fewer, more, size) else { continue };
            any = true;
            t.row(vec![
                format!("{fewer} → {more}"),
                size.to_string(),
                step.welch().map_or("—".into(), |(d, h)| format!("{d:+.0} ± {h:.0}")),
                format!("{} / {}", step.n().0, step.n().1),
                step.word(),
            ]);
        }
    }
    if !any {
        return String::new();
    }
    format!(
        "\nThe steps the paper calls significant (Section VI: 1 → 7 and 7 → 14 \"considerable\", 6 → 7 and 12 → 14 \
         \"statistically significant\"): more − fewer islands, a gain only where the interval excludes 0.\n\n{}",
        t.render()
    )
}

/// The grid's feasibility at the end of each run (rows that record it): feasible individuals and islands holding
/// one, the first trace generation with a feasible individual, and a line for the runs that found none.
fn grid_feasibility(a: &Analysis) -> String {
    if !a.grid.values().flatten().any(|r| r.feasibility.is_some()) {
        return String::new();
    }
    let (t, _) = grid_table(
        a,
        |size| format!("{size}: individuals / islands / first feasible"),
        |islands, size| {
            let runs = a.grid.get(&(islands, size))?;
            let individuals = Summary::of(&runs.iter().filter_map(|r| r.feasibility.map(|f| f.0)).collect::<Vec<_>>())?;
            let islands_with = Summary::of(&runs.iter().filter_map(|r| r.feasibility.map(|f| f.1)).collect::<Vec<_>>())?;
            Some((format!("{:.1}% / {:.0}% / {}", 100.0 * individuals.mean, 100.0 * islands_with.mean, first_feasible(runs)), 0.0))
        },
    );
    let runs: Vec<&Run> = a.grid.values().flatten().collect();
    format!(
        "\nFeasibility at the end of the run (mean over runs): the share of individuals within the capacity, of islands \
         holding one, and the generation by which the first feasible individual appeared (the trace's resolution).\n\n{}{}",
        t.render(),
        no_feasible_line(&runs)
    )
}

#[cfg(test)]
mod tests {
    use super::super::CUDA;
    use super::super::analysis::fixtures::*;
    use super::super::rows::{IslandsCase, RunRow};
    use super::*;

    #[test]
    fn grid_runs_without_a_feasible_solution_say_why() {
        let feasible = grid(CUDA, 1, 128, 2_800_000.0, 0.1).change(|run: &mut RunRow| {
            (run.feasible_individuals, run.feasible_islands) = (Some(0.25), Some(1.0));
            (run.first_feasible, run.first_feasible_after) = (Some(0), None);
        });
        let starved = grid(CUDA, 1, 128, 0.0, 0.1).change(|run: &mut RunRow| {
            (run.feasible, run.gap) = (false, None);
            (run.feasible_individuals, run.feasible_islands) = (Some(0.0), Some(0.0));
            run.first_feasible = None;
        });
        let a = Analysis::of(&machine(vec![feasible, starved], None, &[])).unwrap();
        let text = grid_feasibility(&a);
        assert!(text.contains("| 1 | 12.5% / 50% / none in 1 of 2 |"), "{text}");
        assert!(text.contains("**1 of 2 runs found no feasible solution.**") && text.contains("no selection pressure"), "{text}");
        // The best is not a silent 100% gap: the cell names the infeasible run and the gap is the feasible run's.
        let dir = tempfile::tempdir().unwrap();
        let Part::Shown(fig) = fig4(&machine(vec![], None, &[]), &a, "optimum 1", dir.path()).unwrap() else { panic!("no Figure 4") };
        assert!(fig.contains("(gap 1.000%, n = 2; best infeasible in 1 of 2)"), "{fig}");
    }

    #[test]
    fn figure_four_lists_each_step_with_its_welch_interval() {
        let mut rows = Vec::new();
        for (islands, base) in [(6, 2_700_000.0), (7, 2_701_000.0)] {
            for r in 0..3 {
                rows.push(grid(CUDA, islands, 128, base + r as f64, 0.06).change(|c: &mut IslandsCase| c.run = Some(r)));
            }
        }
        let a = analysed(&machine(rows, None, &[]));
        let text = fig4_steps(&a);
        assert!(text.contains("| 6 → 7 | 128 | +1000 ± 2 | 3 / 3 | better |"), "{text}");
        assert!(!text.contains("| 12 → 14 |"), "{text}");
    }
}
