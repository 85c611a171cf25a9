//! Figure 7's section: one island's times per generation and speedups over one
//! CPU thread (all threads, the paper's kernels, split and fused), the thread
//! counts beside Table I, and (beyond the paper) generations per second with the
//! fastest design's phases against the Philox and int32 ceilings.

use super::analysis::{Analysis, Run};
use super::render_common::{gpu_cell, write_chart};
use super::spec::IslandSpec;
use super::{CPU_1T, CPU_MT, CUDA, CUDA_FUSED, CUDA_SPLIT};
use crate::experiments::Part;
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart, PaperPoints};
use crate::stats::Summary;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

/// Figure 7 of one machine (its table and chart): nothing where it has no speed runs.
pub(super) fn fig7(spec: &IslandSpec, m: &MachineRecords, a: &Analysis, items: Option<usize>, dir: &Path) -> Result<Part> {
    if a.speed.is_empty() {
        return Ok(Part::NotRun("no speed runs recorded".into()));
    }
    Ok(Part::Shown(fig7_table(spec, m, a, items) + &fig7_chart(spec, m, a, dir)?))
}

fn fig7_table(spec: &IslandSpec, m: &MachineRecords, a: &Analysis, items: Option<usize>) -> String {
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
        paper,
        ..LineChart::new("Figure 7: one island, speedup over one CPU thread", ("island size", "speedup"), series, m.label())
    };
    write_chart(dir, m, "fig7", &chart)
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
         spends per generation {} µs in genetic manipulation, {} in evaluation, {} in replacement, {} in statistics \
         (CUDA events around each phase) and {} outside every phase (the loop's wall time less the phases: the device \
         waiting for the host's launches; — in runs recorded before it was measured, whose rates leave it out).\n",
        runs[0].generations,
        each.join(", "),
        per(&|r| Some(r.manipulation_ms)),
        per(&|r| r.evaluation_ms),
        per(&|r| r.replacement_ms),
        per(&|r| r.statistics_ms),
        per(&|r| r.outside_phases_ms),
    ) + &items.map_or(String::new(), |items| manipulation_bound(m, a, runs, items))
}

/// The fastest design's genetic manipulation (with evaluation, where fused) against the Philox rate of the same run
/// and the int32 ceiling its run measured: the integer work that bounds it.
fn manipulation_bound(m: &MachineRecords, a: &Analysis, runs: &[Run], items: usize) -> String {
    let run = &runs[0];
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
        .ceiling_of_run("gpu_int32", run.run_id)
        .map_or("no int32 ceiling recorded".into(), |g| format!("the int32 ceiling of its run: {g:.0} G instructions/s"));
    format!(
        "Its genetic manipulation (evaluation included, where fused) draws {:.2} M Philox calls a generation: {:.0} G \
         calls/s, {philox}; {int32}.\n{}",
        calls / 1e6,
        rate / 1e9,
        whole_generation_bound(a, runs, calls)
    )
}

/// The fastest design's whole generations (every phase, the gaps between launches included) against the generations
/// a second that its Philox calls alone would allow at the ceiling of the same run (issue #39's goal 1: half of it).
fn whole_generation_bound(a: &Analysis, runs: &[Run], calls: f64) -> String {
    let Some(ceiling) = Summary::of(&a.philox) else { return String::new() };
    let cap = ceiling.median / calls;
    let shares: Vec<f64> = runs.iter().map(|r| f64::from(r.generations) / (r.total_ms * 1e-3) / cap).collect();
    let Some(s) = Summary::of(&shares) else { return String::new() };
    let high = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "Whole generations against the same ceiling: its Philox calls alone allow {cap:.0} generations a second; the runs \
         reach {} of that ({}–{} over {}).\n",
        crate::fmt::share(s.mean, 1.0, 1),
        crate::fmt::share(s.min, 1.0, 1),
        crate::fmt::share(high, 1.0, 1),
        super::claims_common::plural(shares.len(), "run")
    )
}

#[cfg(test)]
mod tests {
    use super::super::analysis::fixtures::*;
    use super::super::rows::RunRow;
    use super::*;

    #[test]
    fn generations_per_second_names_each_design_and_the_fastest_phases() {
        // Speed rows of 100 generations at 0.05, 0.04 and 0.03 ms each (manipulation half of it); the fused row has
        // evaluation, replacement and outside-the-phases columns, no statistics.
        let m = machine(
            vec![
                speed(CUDA, 2048, 0.05, 1),
                speed(CUDA_SPLIT, 2048, 0.04, 1),
                speed(CUDA_FUSED, 2048, 0.03, 1).change(|run: &mut RunRow| {
                    (run.evaluation_ms, run.replacement_ms, run.outside_phases_ms) = (Some(0.0), Some(0.1), Some(0.2))
                }),
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
        assert!(text.contains("15.0 µs in genetic manipulation, 0.0 in evaluation, 1.0 in replacement, — in statistics"), "{text}");
        assert!(text.contains("and 2.0 outside every phase"), "{text}");
        // 512 pairs × (2 + 16 × 313) calls in 15 µs; no ceilings in these records.
        let rate = 512.0 * (2.0 + 16.0 * 313.0) / 15e-6 / 1e9;
        assert!(text.contains(&format!("2.57 M Philox calls a generation: {rate:.0} G calls/s, no Philox ceiling recorded")), "{text}");
        assert!(text.contains("no int32 ceiling recorded"), "{text}");
    }
}
