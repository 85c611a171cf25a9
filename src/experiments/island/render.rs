//! The island paper's report: how it was measured, one section per figure
//! (Figures 4–7, Tables I–II, the ring over several GPUs, memory traffic, the
//! Philox ceiling and the sustained rate of counted operations), each with one
//! part per machine, and the side-by-side page.

use super::analysis::{Analysis, Run};
use super::claims::{Step, rate_share};
use super::spec::IslandSpec;
use super::{CPU_1T, CPU_MT, CUDA, CUDA_FUSED, CUDA_RING, CUDA_SPLIT};
use crate::experiments::Section;
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::chart::{self, LineChart, PaperPoints};
use crate::report::{PaperValue, Table};
use crate::stats::Summary;
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// "How this was measured", naming the instance as `instance` (its path from the root) and its optimum as `optimum`
/// (certified, or stated and not certified: `IslandPaper::optimum_note`).
pub(super) fn method(spec: &IslandSpec, instance: &str, optimum: &str) -> String {
    let s = &spec.settings;
    format!(
        "The paper's GA (Section V) on its 10,000-item instance (`{}`, {}): steady state, binary tournament \
         selection, uniform crossover by 32-bit masks (p = {}), bit-flip mutation by masks ({} per gene), half the island \
         replaced by tournament against random offspring, unidirectional ring migration every {} generations of {:.0}% of \
         the island including its best. Every random number is Philox 4×32-10 keyed by seed and island and counted by \
         generation, purpose, individual and word, so one CPU thread, all CPU threads and the GPU evolve bit-identical \
         populations (checked in every `speed` case). Grid runs (Figures 4–6) use the GPU where there is one, all islands \
         of one GPU batched in the same launches (the paper: one GTX 580 per island, MPI between them), else all CPU cores; \
         the profile sets the generations (the paper: 100k) and runs (the paper: 30). Gap = (optimum − best) / optimum; the \
         spec's optimum is checked before any run against the instance's certificate (`library::knapsack::certify`: \
         Dantzig's linear-relaxation bound above it, a greedy feasible solution below it, the exact optimum where a \
         dynamic program fits). Feasibility (the share of individuals within the capacity, of islands holding one, and \
         the first generation with one) is counted at every trace point outside the timed phases. \
         The same ring also runs with one island per MPI process (`evorepro-island-mpi`, `--features mpi`, checked \
         bit-identical to the in-process ring) and split over several GPUs with NCCL between them (the section \
         *Several GPUs*, profile `gpu-multi`).\n",
        instance,
        optimum,
        s.crossover.get_ref(),
        s.mutation.get_ref(),
        s.migration_interval.get_ref(),
        100.0 * s.migration_fraction.get_ref(),
    )
}

/// Tables I and II's speedups as `paper_values.csv` lists them.
pub(super) fn paper_values(spec: &IslandSpec) -> Vec<PaperValue> {
    spec.table1
        .values()
        .map(|(config, size, v)| PaperValue::new("Table I", config, "island size", size, v, "×"))
        .chain(spec.table2.values().map(|(config, size, v)| PaperValue::new("Table II", config, "island size", size, v, "×")))
        .collect()
}

/// Every section, from each machine's analysis (by hw_id).
pub(super) fn sections(
    spec: &IslandSpec,
    machines: &[MachineRecords],
    analyses: &BTreeMap<String, Analysis>,
    items: Option<usize>,
    optimum: &str,
    dir: &Path,
) -> Result<Vec<Section>> {
    let of = |m: &MachineRecords| &analyses[&m.hw_id];
    let mut sections = vec![
        Section::per_machine("Figure 4 — best fitness after the run", "", machines, |m| fig4(m, of(m), optimum, dir))?,
        Section::per_machine("Figure 5 — total time, and Figure 6 — migration overhead", "", machines, |m| {
            Ok(fig5(m, of(m), dir)? + &fig6(m, of(m), dir)?)
        })?,
        Section::per_machine("Several GPUs — the ring over NCCL (Section IV)", RING_INTRO, machines, |m| Ok(ring_section(of(m))))?,
        Section::per_machine("Performance — memory traffic against the measured ceiling", "", machines, |m| {
            Ok(performance(m, of(m), items))
        })?,
        Section::per_machine("Sustained rate — counted operations against the int32 ceiling (Section VI)", RATE_INTRO, machines, |m| {
            Ok(sustained_rate(m, of(m)))
        })?,
        Section::per_machine("Figure 7 — speedups of one island over one CPU thread", "", machines, |m| {
            Ok(fig7(spec, m, of(m), items) + &fig7_chart(spec, m, of(m), dir)?)
        })?,
        Section::per_machine("Tables I and II — speedups over one CPU thread and over all cores", TABLES_INTRO, machines, |m| {
            tables(spec, m, of(m), dir)
        })?,
    ];
    if analyses.values().any(|a| !a.families.is_empty()) {
        sections.push(Section::per_machine("Beyond the paper — Pisinger's instance families", FAMILIES_INTRO, machines, |m| {
            families(m, of(m), dir)
        })?);
    }
    Ok(sections)
}

const FAMILIES_INTRO: &str = "Not part of any verdict. The paper's GA (as published: random initial population, overweight \
    solutions penalised by the largest price/weight ratio × the excess) and two labelled variants on Pisinger's families \
    (Pisinger 2005, \"Where are the hard knapsack problems?\", Section 2; generated from the spec's seed, capacity = ratio × \
    total weight, at least the largest weight): `repair` drops packed items by increasing price/weight until feasible, in \
    every initial individual and offspring (Michalewicz 1996, Section 4.5); `feasible-init` repairs the initial population \
    only. The gap is (reference − best feasible price) / reference, against the exact optimum where a dynamic program fits \
    the budget (dense over capacities, or bit-parallel for subset sum) or a greedy solution meets Dantzig's bound, else \
    against Dantzig's linear-relaxation bound (the gap to the optimum is then at most this); the column says which. A run \
    whose best is infeasible has no gap: it counts in the feasible-runs column.";

/// The `families` runs: a row per instance and variant, the reasons where no run was feasible, and a chart of the
/// gap against the capacity ratio per variant and item count.
fn families(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    if a.families.is_empty() {
        return Ok(String::new());
    }
    type Key = (String, usize, u64, String);
    let mut points: BTreeMap<Key, Vec<&Run>> = BTreeMap::new();
    for r in &a.families {
        let f = r.family.as_ref().expect("a families run has its family");
        points.entry((f.kind.clone(), f.items, f.ratio.to_bits(), f.variant.clone())).or_default().push(r);
    }
    let mut t = Table::new(&[
        "family",
        "items",
        "capacity ratio",
        "variant (method)",
        "gap to",
        "gap (%)",
        "feasible best",
        "feasible individuals",
        "first feasible (gen.)",
        "time (s)",
    ]);
    let mut lines = String::new();
    let mut charts: BTreeMap<(String, usize), Series> = BTreeMap::new();
    for ((kind, items, ratio, variant), runs) in &points {
        let (f, ratio) = (runs[0].family.as_ref().expect("family"), f64::from_bits(*ratio));
        let gaps: Vec<f64> = runs.iter().filter_map(|r| r.gap).collect();
        let gap = Summary::of(&gaps);
        let feasible = runs.iter().filter(|r| r.best_feasible).count();
        let individuals = Summary::of(&runs.iter().filter_map(|r| r.feasibility.map(|f| f.0)).collect::<Vec<_>>());
        let time = Summary::of(&runs.iter().map(|r| r.total_ms / 1e3).collect::<Vec<_>>());
        let owned: Vec<Run> = runs.iter().map(|r| (*r).clone()).collect();
        t.row(vec![
            kind.clone(),
            items.to_string(),
            format!("{ratio}"),
            format!("{variant} ({})", runs[0].method),
            format!("{} {:.0} ({})", f.reference_kind, f.reference, f.exact),
            gap.map_or_else(|| "— (no feasible best)".into(), |g| format!("{:.3} ± {:.3}", 100.0 * g.mean, 100.0 * g.ci95())),
            format!("{feasible} of {}", runs.len()),
            individuals.map_or("—".into(), |s| format!("{:.1}%", 100.0 * s.mean)),
            first_feasible(&owned),
            time.map_or("—".into(), |s| format!("{:.2}", s.mean)),
        ]);
        if feasible == 0 {
            let reason = match no_feasible_line(runs) {
                none if !none.is_empty() => none.trim_start_matches('\n').to_owned(),
                _ => "feasible individuals appeared, but the best by penalised fitness is overweight: the penalty (ratio × \
                      excess) leaves it fitter than every feasible one.\n"
                    .to_owned(),
            };
            lines += &format!("- {kind}, {items} items, ratio {ratio}, `{variant}` (penalty ratio {:.0}): {reason}", f.penalty_ratio);
        }
        // A gap of 0 (the optimum reached) has no place on a log scale.
        if let Some(g) = gap.filter(|g| g.mean > 0.0) {
            charts.entry((variant.clone(), *items)).or_default().push((kind.clone(), vec![(ratio, 100.0 * g.mean)]));
        }
    }
    let mut md = t.render();
    if !lines.is_empty() {
        md += &format!("\nRows where no run ended with a feasible best solution:\n\n{lines}");
    }
    for ((variant, items), rows) in charts {
        // One series per family, its points in ratio order.
        let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for (kind, p) in rows {
            series.entry(kind).or_default().extend(p);
        }
        let title = format!("Gap against capacity ratio: {variant}, {items} items (log–log; gaps of 0, the optimum, left out)");
        let chart = LineChart {
            title: &title,
            x_label: "capacity / total weight",
            y_label: "gap (%)",
            series: series.into_iter().collect(),
            machine: m.label(),
            ..LineChart::default()
        };
        md += &write_chart(dir, m, &format!("families_{variant}_n{items}"), &chart)?;
    }
    Ok(md)
}

/// A GPU column's cell: the value, else why the GPU did not run.
fn gpu_cell(a: &Analysis, method: &str, v: Option<f64>) -> String {
    match (v, a.reason(method)) {
        (Some(v), _) => format!("{v:.3}"),
        (None, Some(why)) => format!("not run here ({why})"),
        (None, None) => "—".into(),
    }
}

/// Chart series: (name, points).
type Series = Vec<(String, Vec<(f64, f64)>)>;

/// A grid table (a row per island count, a column per island size, headed by
/// `column(size)`) and one chart series per island count: `cell(islands, size)`
/// gives the cell's text and the point's y value, or None for "—".
fn grid_table(a: &Analysis, column: impl Fn(usize) -> String, cell: impl Fn(usize, usize) -> Option<(String, f64)>) -> (Table, Series) {
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

fn write_chart(dir: &Path, m: &MachineRecords, figure: &str, chart: &LineChart) -> Result<String> {
    let stem = dir.join("figures").join(format!("{}__{figure}", m.hw_id));
    chart::write_lines(&stem, chart).map_err(anyhow::Error::msg)?;
    Ok(format!("\n![{}](figures/{}__{figure}.png)\n", chart.title, m.hw_id))
}

fn fig4(m: &MachineRecords, a: &Analysis, optimum: &str, dir: &Path) -> Result<String> {
    if a.grid.is_empty() {
        return Ok("No grid runs in this machine's records.\n".into());
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
    let chart = LineChart {
        title: "Figure 4: gap to the optimum after the run",
        x_label: "island size",
        y_label: "gap (%)",
        series,
        machine: m.label(),
        ..LineChart::default()
    };
    Ok(md + &write_chart(dir, m, "fig4", &chart)?)
}

/// Figure 4's steps between island counts the paper names (1 → 7 → 14, 6 → 7, 12 → 14) at every size of the grid:
/// the difference of the best fitness with its Welch 95% interval and n, and whether it is a gain.
fn fig4_steps(a: &Analysis) -> String {
    let sizes = a.grid_sizes();
    let mut t = Table::new(&["step", "island size", "Δ best fitness ± 95% (Welch)", "n (fewer / more)", "verdict"]);
    let mut any = false;
    for (fewer, more) in [(1, 7), (7, 14), (6, 7), (12, 14), (1, 14)] {
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

/// The generation by which each run first held a feasible individual: "0" at the start, "≤ g" (between the trace
/// points), "none" where a run found none; the latest over `runs`.
fn first_feasible(runs: &[Run]) -> String {
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
fn no_feasible_line(runs: &[&Run]) -> String {
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

fn fig5(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    if a.grid.is_empty() {
        return Ok("No grid runs in this machine's records.\n".into());
    }
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
    let chart = LineChart {
        title: "Figure 5: total time of a run",
        x_label: "island size",
        y_label: "time (s)",
        series,
        machine: m.label(),
        ..LineChart::default()
    };
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
    let chart = LineChart {
        title: "Figure 6: migration overhead",
        x_label: "island size",
        y_label: "migration (% of the run)",
        series,
        machine: m.label(),
        ..LineChart::default()
    };
    write_chart(dir, m, "fig6", &chart)
}

/// Figure 7 as a chart: one island's speedups over one CPU thread (all threads and the GPU's paper kernels), with
/// the paper's 12 CPUs and 1 GPU.
fn fig7_chart(spec: &IslandSpec, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for size in a.speed_sizes() {
        let one = a.per_generation(size, CPU_1T);
        for (name, method) in [("all threads", CPU_MT), ("1 GPU", CUDA)] {
            if let Some(v) = one.zip(a.per_generation(size, method)).map(|(c, t)| c / t) {
                series.entry(name.to_owned()).or_default().push((size as f64, v));
            }
        }
    }
    if series.is_empty() {
        return Ok(String::new());
    }
    let mut paper = PaperPoints::new(chart::card(&spec.paper.hardware.gpu));
    for (config, name) in [("12 CPUs", "all threads"), ("1 GPU", "1 GPU")] {
        for (_, size, v) in spec.table1.values().filter(|v| v.0 == config) {
            paper.push(name, (size as f64, v));
        }
    }
    let chart = LineChart {
        title: "Figure 7: one island, speedup over one CPU thread",
        x_label: "island size",
        y_label: "speedup",
        series: series.into_iter().collect(),
        machine: m.label(),
        paper,
        ..LineChart::default()
    };
    write_chart(dir, m, "fig7", &chart)
}

const TABLES_INTRO: &str = "Table I: one CPU thread's time per generation over all threads' and over one GPU's (the paper's \
    kernels); Table II: all threads' over the GPU's (the paper: the 24 cores of its two servers). All three times come from \
    the same run of each case (`table` cases, profile `tables`): the same islands for the same generations, with \
    bit-identical populations (the case fails otherwise; each island is its own random stream). The paper's I GPUs held one \
    island each; here all I islands share one GPU, so only its 1-GPU rows are the paper's setting.";

/// Tables I and II from the table runs, each cell measured here against the paper's, and a chart of each.
fn tables(spec: &IslandSpec, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    if a.table.is_empty() {
        return Ok("No table runs in this machine's records (profile `tables`).\n".into());
    }
    let (islands, sizes) = a.table_points();
    let threads = a.table_runs().filter(|r| r.method == CPU_MT).find_map(|r| r.threads).map_or("—".into(), |t| t.to_string());
    let per = |i: usize, n: usize, method: &str| a.table_per_generation(i, n, method);
    let paper = |t: &super::spec::SpeedupTable, config: &str, n: usize| t.at(config, n).map_or("—".into(), |v| format!("{v:.2}×"));
    let gpus = |i: usize| if i == 1 { "1 GPU".to_owned() } else { format!("{i} GPUs") };
    let header = |first: &str| {
        let mut h = vec![first.to_owned()];
        h.extend(sizes.iter().map(|n| format!("{n}: here / paper")));
        h
    };
    let mut times = Table::new(&{
        let mut h = vec!["islands".to_owned(), "generations".to_owned()];
        h.extend(sizes.iter().map(|n| format!("{n}: 1 thread / all threads / GPU (ms/gen.)")));
        h
    });
    let mut t1 = Table::new(&header("configuration (here; the paper's row)"));
    let mut t2 = Table::new(&header("islands on one GPU over all threads (the paper's row)"));
    let (mut s1, mut s2) = (BTreeMap::<String, Vec<(f64, f64)>>::new(), BTreeMap::<String, Vec<(f64, f64)>>::new());
    for &i in &islands {
        let name = format!("{} (here on 1 GPU)", plural_islands(i));
        let mut time_row = vec![i.to_string(), a.table_runs().find(|r| r.islands == i).map_or("—".into(), |r| r.generations.to_string())];
        let mut cpu_row = vec![format!("{}, all {threads} threads (24 CPUs)", plural_islands(i))];
        let mut gpu_row = vec![format!("{}, 1 GPU ({})", plural_islands(i), gpus(i))];
        let mut t2_row = vec![format!("{} ({})", plural_islands(i), gpus(i))];
        for &n in &sizes {
            let (one, all, gpu) = (per(i, n, CPU_1T), per(i, n, CPU_MT), per(i, n, CUDA));
            time_row.push(format!("{} / {} / {}", fmt::opt(one, 3), fmt::opt(all, 3), gpu_cell(a, CUDA, gpu)));
            cpu_row.push(format!("{} / {}", fmt::quotient(one, all, 1), paper(&spec.table1, "24 CPUs", n)));
            gpu_row.push(format!("{} / {}", fmt::quotient(one, gpu, 1), paper(&spec.table1, &gpus(i), n)));
            t2_row.push(format!("{} / {}", fmt::quotient(all, gpu, 1), paper(&spec.table2, &gpus(i), n)));
            if let Some((one, gpu)) = one.zip(gpu) {
                s1.entry(name.clone()).or_default().push((n as f64, one / gpu));
            }
            if let Some((all, gpu)) = all.zip(gpu) {
                s2.entry(name.clone()).or_default().push((n as f64, all / gpu));
            }
        }
        times.row(time_row);
        t1.row(cpu_row);
        t1.row(gpu_row);
        t2.row(t2_row);
    }
    let mut md = format!("Times per generation of each table case:\n\n{}", times.render());
    md += &format!("\nTable I — speedup over one CPU thread evolving the same islands:\n\n{}", t1.render());
    md += &format!("\nTable II — speedup of the GPU over all {threads} CPU threads evolving the same islands:\n\n{}", t2.render());
    let card = chart::card(&spec.paper.hardware.gpu).to_owned();
    for (figure, title, y_label, series, table) in [
        ("table1", "Table I: speedup over one CPU thread", "speedup", s1, &spec.table1),
        ("table2", "Table II: speedup over all CPU cores", "speedup over all cores", s2, &spec.table2),
    ] {
        if series.is_empty() {
            continue;
        }
        // The paper's "I GPUs" ran I islands, one per GPU: drawn in the colour of the I islands here.
        let mut paper = PaperPoints::new(&format!("{card}, one per island"));
        for (config, size, v) in table.values().filter(|v| v.0.ends_with("GPU") || v.0.ends_with("GPUs")) {
            let i: usize = config.split(' ').next().and_then(|i| i.parse().ok()).unwrap_or(0);
            let name = format!("{} (here on 1 GPU)", plural_islands(i));
            paper.push(if series.contains_key(&name) { &name } else { config }, (size as f64, v));
        }
        let chart = LineChart {
            title,
            x_label: "island size",
            y_label,
            series: series.into_iter().collect(),
            machine: m.label(),
            paper,
            hlines: if figure == "table2" { vec![("all CPU cores".into(), 1.0)] } else { vec![] },
        };
        md += &write_chart(dir, m, figure, &chart)?;
    }
    Ok(md)
}

/// "1 island", "14 islands".
fn plural_islands(i: usize) -> String {
    if i == 1 { "1 island".into() } else { format!("{i} islands") }
}

const RATE_INTRO: &str = "The paper counted its operations with PAPI and reported 405 GFLOPS per GPU, 26% of the peak the SHOC \
    benchmark measured. Here each GPU row records the 32-bit integer operations of a generation, counted from the kernels' \
    work (`gpu::island::operations_per_generation`: the Philox rounds of every random number, the mutation masks' compares, \
    crossover and mutation per word, and evaluation's bit tests and additions; a lower bound of the instructions), divided \
    by the measured time per generation (all phases) and set against the int32 instruction rate measured in the same run. \
    The paper's setting is one island per GPU; islands sharing one GPU go beyond it.";

/// Counted operations per second of every GPU run that records them, against its profile's int32 ceiling.
fn sustained_rate(m: &MachineRecords, a: &Analysis) -> String {
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

const RING_INTRO: &str = "The paper's multi-GPU version: each GPU evolves its part of the ring (its islands batched in the same \
    launches) and at migration sends its last island's emigrants to the next GPU (here over NCCL, one process; the paper used \
    MPI between GTX 580s). Times are per generation, each phase timed with CUDA events on every GPU and the slowest GPU's time \
    taken; the ring's migration includes the exchange. Both runs start from the same seed and must end with the same \
    statistics (a case fails otherwise). Island-generations per second: islands × generations over the run's time.";

/// The `ring` cases of one machine: the ring on one GPU beside the ring split over its GPUs.
fn ring_section(a: &Analysis) -> String {
    let mut rings: BTreeMap<(usize, usize), Vec<&Run>> = BTreeMap::new();
    for r in a.rings() {
        rings.entry((r.islands, r.size)).or_default().push(r);
    }
    if rings.is_empty() {
        return match a.reason(CUDA_RING) {
            Some(why) => format!("Not run here ({why}).\n"),
            None => "No ring runs in these records (profile `gpu-multi`).\n".into(),
        };
    }
    let mut t = Table::new(&[
        "islands",
        "island size",
        "generations",
        "GPUs (islands each)",
        "one GPU (ms/gen.)",
        "ring (ms/gen.)",
        "one GPU / ring",
        "one GPU (island-gen./s)",
        "ring (island-gen./s)",
        "ring: migration share",
        "same statistics",
        "runs (one GPU / ring)",
    ]);
    // Means over the runs of each case.
    let mean = |runs: &[&Run], f: fn(&Run) -> f64| Summary::of(&runs.iter().map(|r| f(r)).collect::<Vec<_>>()).map(|s| s.mean);
    for (&(islands, size), runs) in &rings {
        let r = runs[0];
        let one = a.ring_on_one_gpu(islands, size);
        let (one_ms, ring_ms) = (mean(&one, Run::ms_per_generation), mean(runs, Run::ms_per_generation));
        let split: Vec<String> = r.split.iter().map(usize::to_string).collect();
        t.row(vec![
            islands.to_string(),
            size.to_string(),
            r.generations.to_string(),
            format!("{} ({})", r.gpus.unwrap_or(r.split.len()), split.join("+")),
            fmt::opt(one_ms, 4),
            fmt::opt(ring_ms, 4),
            one_ms.zip(ring_ms).map_or("—".into(), |(o, r)| format!("{:.2}×", o / r)),
            fmt::opt(mean(&one, Run::island_generations_per_s), 0),
            fmt::opt(mean(runs, Run::island_generations_per_s), 0),
            mean(runs, Run::migration_share).map_or("—".into(), |s| format!("{:.2}%", 100.0 * s)),
            (if runs.iter().all(|r| r.identical) { "yes" } else { "—" }).into(),
            format!("{} / {}", one.len(), runs.len()),
        ]);
    }
    let mut md = t.render();
    let nccl: Vec<&(String, String, f64)> = rings.values().flatten().filter_map(|r| r.nccl.as_ref()).collect();
    if !nccl.is_empty() {
        let gbs: Vec<f64> = nccl.iter().map(|n| n.2).collect();
        let mut versions: Vec<String> = nccl.iter().map(|(v, nvls, _)| format!("NCCL {v} (NCCL_NVLS_ENABLE={nvls})")).collect();
        versions.sort();
        versions.dedup();
        md += &format!(
            "\nThe link each GPU sends its emigrants over, measured in every case as NCCL moves 64 MiB from each GPU to the next \
             while receiving from the previous (median of 10): {:.0}–{:.0} GB/s per direction; {}.\n",
            gbs.iter().copied().fold(f64::INFINITY, f64::min),
            gbs.iter().copied().fold(0.0, f64::max),
            versions.join(", ")
        );
    } else {
        md += "\nThese records predate the ring rows' NCCL version, multicast setting and link measurement (columns `nccl_version`, `nccl_nvls_enable`, `link_gbs`).\n";
    }
    md
}

/// The GPU grid's bytes per generation (`gpu::island::bytes_per_generation`, a
/// lower bound) over its time per generation, against the device-copy ceiling
/// measured in the same run.
fn performance(m: &MachineRecords, a: &Analysis, items: Option<usize>) -> String {
    let (Some(items), Some(CUDA)) = (items, a.grid_method()) else {
        return a
            .reason(CUDA)
            .map_or_else(|| "No GPU grid runs in this machine's records.\n".into(), |why| format!("not run here ({why})\n"));
    };
    let ceiling = m.ceiling("gpu_d2d");
    let mut t = Table::new(&["islands × size", "MB per generation", "µs per generation", "GB/s", "of the device-copy ceiling"]);
    for &(islands, size) in a.grid.keys() {
        let Some(ms) = a.grid_per_generation(islands, size) else { continue };
        let bytes = crate::gpu::island::bytes_per_generation(items, size, islands) as f64;
        let gbs = bytes / (ms * 1e-3) / 1e9;
        t.row(vec![
            format!("{islands} × {size}"),
            format!("{:.2}", bytes / 1e6),
            format!("{:.1}", ms * 1e3),
            format!("{gbs:.0}"),
            ceiling.map_or("—".into(), |c| crate::fmt::share(gbs, c, 1)),
        ]);
    }
    let md = "Bytes counted: parents read and children written by genetic manipulation, offspring read by evaluation, fitness \
              reads and writes (not the genomes replacement copies, migration or statistics); time per generation includes \
              migration every 100 generations.\n\n"
        .to_owned();
    md + &t.render() + "\n" + &manipulation_against_philox(a, items)
}

/// Generations per second of one island at the largest speed size, per GPU design, with the phase times of the
/// fastest and its genetic manipulation against the ceilings measured in the same run (beyond the paper: issue #25
/// asks for 25,000 per second at 2048 on 10,000 items on an H100).
fn generations_per_second(m: &MachineRecords, a: &Analysis, items: Option<usize>) -> String {
    let Some(&size) = a.speed_sizes().last() else { return String::new() };
    let designs: Vec<(&str, &Vec<Run>)> =
        [CUDA, CUDA_SPLIT, CUDA_FUSED].into_iter().filter_map(|m| a.speed.get(&(size, m.to_owned())).map(|r| (m, r))).collect();
    let mean = |runs: &[Run], f: &dyn Fn(&Run) -> Option<f64>| Summary::of(&runs.iter().filter_map(f).collect::<Vec<_>>()).map(|s| s.mean);
    let per_s = |runs: &[Run]| mean(runs, &|r| Some(f64::from(r.generations) / (r.total_ms * 1e-3))).unwrap_or(0.0);
    let Some(&(fastest, runs)) = designs.iter().max_by(|x, y| per_s(x.1).total_cmp(&per_s(y.1))) else { return String::new() };
    let each: Vec<String> = designs.iter().map(|(m, r)| format!("`{m}` {:.0}", per_s(r))).collect();
    let per = |f: &dyn Fn(&Run) -> Option<f64>| {
        mean(runs, &|r| f(r).map(|ms| ms / f64::from(r.generations))).map_or("—".into(), |ms| format!("{:.1}", ms * 1e3))
    };
    let n = designs.iter().map(|d| d.1.len()).min().unwrap_or(0);
    let of_runs = if n == 1 { "one run".to_owned() } else { format!("mean of {n} runs") };
    format!(
        "\nGenerations per second of one island of {size} ({of_runs} of {} generations each): {}. The fastest, `{fastest}`, \
         spends per generation {} µs in genetic manipulation, {} in evaluation, {} in replacement and {} in statistics \
         (CUDA events around each phase, the gaps between launches included).\n",
        runs[0].generations,
        each.join(", "),
        per(&|r| Some(r.manipulation_ms)),
        per(&|r| r.evaluation_ms),
        per(&|r| r.replacement_ms),
        per(&|r| r.statistics_ms),
    ) + &items.map_or(String::new(), |items| manipulation_bound(m, a, &runs[0], items))
}

/// The fastest design's genetic manipulation (with evaluation, where fused) against the Philox rate of the same run
/// and the int32 ceiling of its profile's runs: the integer work that bounds it.
fn manipulation_bound(m: &MachineRecords, a: &Analysis, run: &Run, items: usize) -> String {
    let calls = crate::gpu::island::manipulation_philox_calls(items, run.size, run.islands) as f64;
    let rate = calls / (run.manipulation_ms * 1e-3 / f64::from(run.generations));
    let philox = Summary::of(&a.philox).map_or("no Philox ceiling recorded".into(), |s| {
        format!(
            "{} of the Philox ceiling of {:.0} G calls/s (n = {})",
            crate::fmt::share(rate, s.median, 1),
            s.median / 1e9,
            a.philox.len()
        )
    });
    let int32 = m
        .ceiling_of_profile("gpu_int32", &run.profile)
        .map_or("no int32 ceiling recorded".into(), |g| format!("the int32 ceiling of this run's profile: {g:.0} G instructions/s"));
    format!(
        "Its genetic manipulation (evaluation included, where fused) draws {:.2} M Philox calls a generation: {:.0} G \
         calls/s, {philox}; {int32}.\n",
        calls / 1e6,
        rate / 1e9
    )
}

/// Genetic manipulation's Philox calls per second (`gpu::island::manipulation_philox_calls`, a lower bound) against
/// the Philox rate measured by `island_philox_rate` in the same run (the speed cases): the integer ceiling that
/// bounds this phase, which draws 16 Philox calls per chromosome word and pair for its mutation masks.
fn manipulation_against_philox(a: &Analysis, items: usize) -> String {
    let Some(ceiling) = Summary::of(&a.philox).map(|s| s.median) else {
        return "No Philox ceiling in this machine's records (measured by the speed cases of the GPU profiles).\n".into();
    };
    let mut t = Table::new(&[
        "islands × size",
        "Philox calls per generation",
        "manipulation µs per generation",
        "G calls/s",
        "of the Philox ceiling",
    ]);
    for &(islands, size) in a.grid.keys() {
        let per = a.grid_values(islands, size, |r| r.manipulation_ms / f64::from(r.generations));
        let Some(ms) = Summary::of(&per).map(|s| s.mean) else { continue };
        let calls = crate::gpu::island::manipulation_philox_calls(items, size, islands) as f64;
        let rate = calls / (ms * 1e-3);
        t.row(vec![
            format!("{islands} × {size}"),
            format!("{:.2} M", calls / 1e6),
            format!("{:.1}", ms * 1e3),
            format!("{:.1}", rate / 1e9),
            crate::fmt::share(rate, ceiling, 1),
        ]);
    }
    format!(
        "\nGenetic manipulation is bound by integer work, not memory: its mutation masks take {} Philox4×32-10 calls per \
         chromosome word and offspring pair (one number per gene, as the paper's per-gene mutation). Measured Philox \
         ceiling (`island_philox_rate`, every SM busy, median of {} measurements): {:.1} G calls/s. Calls counted: \
         tournaments, crossover decision and mutation masks (not the crossover masks).\n\n{}",
        crate::gpu::island::MUTATION_CALLS,
        a.philox.len(),
        ceiling / 1e9,
        t.render()
    )
}

fn fig7(spec: &IslandSpec, m: &MachineRecords, a: &Analysis, items: Option<usize>) -> String {
    if a.speed.is_empty() {
        return "No speed runs in this machine's records.\n".into();
    }
    let mut t = Table::new(&[
        "island size",
        "1 thread (ms/gen.)",
        "all threads (ms/gen.)",
        "GPU (ms/gen.)",
        "GPU, split kernels (ms/gen.)",
        "GPU, fused (ms/gen.)",
        "all threads / 1 thread",
        "paper: 12 CPUs",
        "GPU / 1 thread",
        "GPU, split / 1 thread",
        "GPU, fused / 1 thread",
        "paper: 1 GPU",
    ]);
    for size in a.speed_sizes() {
        let per = |method: &str| a.per_generation(size, method);
        let paper = |c: &str| spec.table1.at(c, size).map_or("—".into(), |v| format!("{v:.2}×"));
        t.row(vec![
            size.to_string(),
            fmt::opt(per(CPU_1T), 3),
            fmt::opt(per(CPU_MT), 3),
            gpu_cell(a, CUDA, per(CUDA)),
            gpu_cell(a, CUDA_SPLIT, per(CUDA_SPLIT)),
            gpu_cell(a, CUDA_FUSED, per(CUDA_FUSED)),
            fmt::quotient(per(CPU_1T), per(CPU_MT), 1),
            paper("12 CPUs"),
            fmt::quotient(per(CPU_1T), per(CUDA), 1),
            fmt::quotient(per(CPU_1T), per(CUDA_SPLIT), 1),
            fmt::quotient(per(CPU_1T), per(CUDA_FUSED), 1),
            paper("1 GPU"),
        ]);
    }
    let mut md = format!(
        "One island; all threads = {} threads of this machine. GPU: the paper's warp per offspring pair and per chromosome; \
         split kernels: a warp per 32 words of a pair and up to {} warps per chromosome; fused: the split design's \
         manipulation with each pair's block adding up its children's price and weight as it builds them (no evaluation \
         launch; beyond the paper). Same numbers, same population: checked in every speed case.\n\n",
        a.threads.map_or("—".into(), |t| t.to_string()),
        crate::gpu::island::EVALUATE_WARPS
    );
    md += &t.render();
    md += &thread_counts(spec, a);
    md += &generations_per_second(m, a, items);
    md
}

/// Figure 7's thread counts (the speed rows `cpu-<k>t`): one thread's mean time over k threads' at each size, beside
/// Table I's "k CPUs"; or why a count did not run.
fn thread_counts(spec: &IslandSpec, a: &Analysis) -> String {
    let mut counts: Vec<usize> = a
        .speed
        .keys()
        .map(|k| k.1.as_str())
        .chain(a.not_run.keys().map(String::as_str))
        .filter_map(|m| m.strip_prefix("cpu-")?.strip_suffix('t')?.parse().ok())
        .filter(|&k| k > 1)
        .collect();
    counts.sort_unstable();
    counts.dedup();
    let lines: Vec<String> = counts
        .iter()
        .map(|&k| {
            let method = super::cpu_threads(k);
            let each: Vec<String> = a
                .speed_sizes()
                .into_iter()
                .filter_map(|n| {
                    let one = Summary::of(&a.speed_times(n, CPU_1T))?;
                    let on_k = Summary::of(&a.speed_times(n, &method))?;
                    let paper = spec.table1.at(&format!("{k} CPUs"), n).map_or(String::new(), |v| format!(" (paper {v:.2}×)"));
                    Some(format!("{n}: {:.2}×{paper}", one.mean / on_k.mean))
                })
                .collect();
            match (each.is_empty(), a.reason(&method)) {
                (true, Some(why)) => format!("- {k} threads: not run here ({why})"),
                _ => format!("- {k} threads, speedup over one thread: {}", each.join(", ")),
            }
        })
        .collect();
    if lines.is_empty() {
        String::new()
    } else {
        format!("\nFigure 7's thread counts (mean times over the runs):\n\n{}\n", lines.join("\n"))
    }
}

/// Side by side: every machine's times per generation of one island and the paper's Table I.
pub(super) fn compare(spec: &IslandSpec, machines: &[MachineRecords]) -> Result<String> {
    let mut t = Table::new(&[
        "machine",
        "island size",
        "cpu-1t (ms/gen.)",
        "cpu-mt (ms/gen.)",
        "GPU (ms/gen.)",
        "GPU / 1 thread",
        "paper: 1 GPU / 1 thread",
    ]);
    for m in machines {
        let a = Analysis::of(m)?;
        for size in a.speed_sizes() {
            let per = |method: &str| a.per_generation(size, method);
            let paper = spec.table1.at("1 GPU", size).map_or("—".into(), |v| format!("{v:.1}×"));
            t.row(vec![
                format!("`{}`", m.hw_id),
                size.to_string(),
                fmt::opt(per(CPU_1T), 3),
                fmt::opt(per(CPU_MT), 3),
                gpu_cell(&a, CUDA, per(CUDA)),
                fmt::quotient(per(CPU_1T), per(CUDA), 1),
                paper,
            ]);
        }
    }
    Ok(t.render())
}

#[cfg(test)]
mod tests {
    use super::super::analysis::fixtures::*;
    use super::*;

    #[test]
    fn the_ring_section_sets_several_gpus_beside_one() {
        let m = machine(vec![ring(14, 2048, 0.3, 0.01, ""), ring(14, 2048, 0.15, 0.04, "7+7")], None, &[]);
        let text = ring_section(&Analysis::of(&m).unwrap());
        // 0.3 ms against 0.15 ms per generation: 2×; 14 islands in 0.3 and 0.15 ms; migration 4% on the ring.
        assert!(text.contains("| 14 | 2048 | 1000 | 2 (7+7) | 0.3000 | 0.1500 | 2.00× | 46667 | 93333 | 4.00% | yes | 1 / 1 |"), "{text}");
    }

    #[test]
    fn a_ring_not_run_says_why() {
        let m = machine(vec![not_run("ring", CUDA_RING, "1 GPU on this machine")], None, &[]);
        assert_eq!(ring_section(&Analysis::of(&m).unwrap()), "Not run here (1 GPU on this machine).\n");
        let empty = machine(vec![], None, &[]);
        assert!(ring_section(&Analysis::of(&empty).unwrap()).contains("No ring runs"));
    }

    #[test]
    fn grid_runs_without_a_feasible_solution_say_why() {
        let feasible = grid(CUDA, 1, 128, 2_800_000.0, 0.1)
            .with("feasible_individuals", 0.25)
            .with("feasible_islands", 1.0)
            .with("first_feasible", 0)
            .with("first_feasible_after", crate::records::Value::Null);
        let mut starved = grid(CUDA, 1, 128, 0.0, 0.1)
            .with("feasible", false)
            .with("feasible_individuals", 0.0)
            .with("feasible_islands", 0.0)
            .with("first_feasible", crate::records::Value::Null);
        starved.set("gap", crate::records::Value::Null);
        let a = Analysis::of(&machine(vec![feasible, starved], None, &[])).unwrap();
        let text = grid_feasibility(&a);
        assert!(text.contains("| 1 | 12.5% / 50% / none in 1 of 2 |"), "{text}");
        assert!(text.contains("**1 of 2 runs found no feasible solution.**") && text.contains("no selection pressure"), "{text}");
        // The best is not a silent 100% gap: the cell names the infeasible run and the gap is the feasible run's.
        let dir = tempfile::tempdir().unwrap();
        let fig = fig4(&machine(vec![], None, &[]), &a, "optimum 1", dir.path()).unwrap();
        assert!(fig.contains("(gap 1.000%, n = 2; best infeasible in 1 of 2)"), "{fig}");
    }

    #[test]
    fn the_families_section_gives_gaps_to_their_reference_and_the_reason_for_none() {
        let m = machine(
            vec![
                family("uncorrelated", 1000, 0.01, "paper", None, 0.0),
                family("uncorrelated", 1000, 0.01, "repair", Some(0.02), 49_000.0),
                family("uncorrelated", 1000, 0.5, "repair", Some(0.001), 49_950.0),
            ],
            None,
            &[],
        );
        let a = Analysis::of(&m).unwrap();
        assert_eq!(a.families.len(), 3);
        let dir = tempfile::tempdir().unwrap();
        let text = families(&m, &a, dir.path()).unwrap();
        assert!(
            text.contains("| uncorrelated | 1000 | 0.01 | paper (cpu-mt) | optimum 50000 (dense dynamic program over capacities) | — (no feasible best) | 0 of 1 | 0.0% | none in 1 of 1 |"),
            "{text}"
        );
        assert!(text.contains("| uncorrelated | 1000 | 0.5 | repair (cpu-mt) | optimum 50000 (dense dynamic program over capacities) | 0.100 ± 0.000 | 1 of 1 | 50.0% | 6–10 |"), "{text}");
        assert!(
            text.contains("- uncorrelated, 1000 items, ratio 0.01, `paper` (penalty ratio 7): **1 of 1 runs found no feasible solution.**"),
            "{text}"
        );
        assert!(text.contains("no selection pressure"), "{text}");
        assert!(dir.path().join("figures/test__families_repair_n1000.png").exists(), "{text}");
        assert!(!dir.path().join("figures/test__families_paper_n1000.png").exists(), "no gap, no chart");
    }

    #[test]
    fn generations_per_second_names_each_design_and_the_fastest_phases() {
        // Speed rows of 100 generations at 0.05, 0.04 and 0.03 ms each (manipulation half of it); the fused row has
        // evaluation and replacement columns, no statistics.
        let m = machine(
            vec![
                speed(CUDA, 2048, 0.05, 1),
                speed(CUDA_SPLIT, 2048, 0.04, 1),
                speed(CUDA_FUSED, 2048, 0.03, 1).with("evaluation_ms", 0.0).with("replacement_ms", 0.1),
                speed(CUDA_FUSED, 128, 0.01, 1),
            ],
            None,
            &[],
        );
        let a = Analysis::of(&m).unwrap();
        let text = generations_per_second(&m, &a, Some(10_000));
        let per_s = |ms: f64| format!("{:.0}", 1e3 / ms);
        assert!(text.contains("one island of 2048"), "{text}");
        assert!(text.contains(&format!("`cuda` {}, `cuda-split` {}, `cuda-fused` {}", per_s(0.05), per_s(0.04), per_s(0.03))), "{text}");
        assert!(text.contains("The fastest, `cuda-fused`"), "{text}");
        assert!(text.contains("15.0 µs in genetic manipulation, 0.0 in evaluation, 1.0 in replacement and — in statistics"), "{text}");
        // 512 pairs × (2 + 16 × 313) calls in 15 µs; no ceilings in these records.
        let rate = 512.0 * (2.0 + 16.0 * 313.0) / 15e-6 / 1e9;
        assert!(text.contains(&format!("2.57 M Philox calls a generation: {rate:.0} G calls/s, no Philox ceiling recorded")), "{text}");
        assert!(text.contains("no int32 ceiling recorded"), "{text}");
    }

    fn spec() -> IslandSpec {
        let file = crate::spec::SpecFile::from_text(Path::new("island.toml"), include_str!("../../../experiments/island.toml").into());
        file.parse().unwrap()
    }

    #[test]
    fn tables_one_and_two_come_from_the_same_table_runs() {
        // 1 island of 128: one thread 10 ms, all threads 1 ms, the GPU 2 ms; 14 islands of 128: 140, 10 and 0.5 ms.
        let rows = vec![
            table(CPU_1T, 1, 128, 10.0, 0.0),
            table(CPU_MT, 1, 128, 1.0, 0.0),
            table(CUDA, 1, 128, 2.0, 1e9),
            table(CPU_1T, 14, 128, 140.0, 0.0),
            table(CPU_MT, 14, 128, 10.0, 0.0),
            table(CUDA, 14, 128, 0.5, 1.4e10),
        ];
        let m = machine(rows, Some(132), &[("gpu_int32", 29_415.0)]);
        let a = Analysis::of(&m).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let text = tables(&spec(), &m, &a, dir.path()).unwrap();
        assert!(text.contains("| 1 | 100 | 10.000 / 1.000 / 2.000 |"), "{text}");
        assert!(text.contains("| 1 island, all 16 threads (24 CPUs) | 10.0× / 22.18× |"), "{text}");
        assert!(text.contains("| 1 island, 1 GPU (1 GPU) | 5.0× / 10.70× |"), "{text}");
        assert!(text.contains("| 14 islands, 1 GPU (14 GPUs) | 280.0× / 150.21× |"), "{text}");
        assert!(text.contains("| 1 island (1 GPU) | 0.5× / 0.48× |"), "{text}");
        assert!(text.contains("| 14 islands (14 GPUs) | 20.0× / 6.77× |"), "{text}");
        for figure in ["table1", "table2"] {
            assert!(dir.path().join(format!("figures/test__{figure}.png")).exists(), "{figure}");
        }
        // The sustained rate of the GPU rows: 10⁹ operations in 2 ms = 500 G/s, 1.7% of 29,415 G/s.
        let rate = sustained_rate(&m, &a);
        assert!(rate.contains("| table | 1 × 128 | 1.000 | 2000.0 | 500 | 1.7% |"), "{rate}");
        assert!(rate.contains("| table | 14 × 128 | 14.000 | 500.0 | 28000 | 95.2% |"), "{rate}");
        let none = machine(vec![], None, &[]);
        assert!(tables(&spec(), &none, &Analysis::of(&none).unwrap(), dir.path()).unwrap().contains("profile `tables`"));
    }

    #[test]
    fn figure_four_lists_each_step_with_its_welch_interval() {
        let mut rows = Vec::new();
        for (islands, base) in [(6, 2_700_000.0), (7, 2_701_000.0)] {
            for r in 0..3 {
                rows.push(grid(CUDA, islands, 128, base + r as f64, 0.06).with("run", r));
            }
        }
        let a = Analysis::of(&machine(rows, None, &[])).unwrap();
        let text = fig4_steps(&a);
        assert!(text.contains("| 6 → 7 | 128 | +1000 ± 2 | 3 / 3 | better |"), "{text}");
        assert!(!text.contains("| 12 → 14 |"), "{text}");
    }

    #[test]
    fn gpu_cells_give_the_reason_a_gpu_did_not_run() {
        let m = machine(vec![speed(CPU_1T, 128, 2.0, 1), not_run("speed", CUDA, "libcuda not found")], None, &[]);
        let a = Analysis::of(&m).unwrap();
        assert_eq!(gpu_cell(&a, CUDA, None), "not run here (libcuda not found)");
        assert_eq!(gpu_cell(&a, CUDA_SPLIT, None), "—");
        assert_eq!(gpu_cell(&a, CUDA, Some(0.0571)), "0.057");
    }
}
