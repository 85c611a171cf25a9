//! The island paper's report: how it was measured, one section per figure
//! (Figures 4–7, Tables I–II, the ring over several GPUs, memory traffic, the
//! Philox ceiling and the sustained rate of counted operations), each with one
//! part per machine, and the side-by-side page.
//!
//! Each section's part lies in its own file, by the paper's figure or table:
//! `fig4`, `fig5_6`, `fig7`, `tables` (Tables I and II), `ring` (several GPUs),
//! `performance` (memory traffic and the Philox ceiling), `sustained_rate` and
//! `families` (beyond the paper); what several share in `render_common`. This
//! file assembles them in order, beside the method, the paper's values and the
//! side-by-side page.

use super::analysis::Analysis;
use super::families::{FAMILIES_INTRO, families};
use super::fig4::fig4;
use super::fig5_6::fig5_6;
use super::fig7::fig7;
use super::performance::performance;
use super::render_common::gpu_cell;
use super::ring::{RING_INTRO, ring_section};
use super::spec::IslandSpec;
use super::sustained_rate::{RATE_INTRO, sustained_rate};
use super::tables::{TABLES_INTRO, tables};
use super::{CPU_1T, CPU_MT, CUDA, IslandPaper};
use crate::claims::Claims;
use crate::experiments::{Analyses, Render, Section};
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::{PaperValue, Table};
use anyhow::Result;
use std::path::Path;

impl Render for IslandPaper {
    type Analysis = Analysis;

    fn claims(&self) -> &Claims<Analysis> {
        &self.claims
    }

    fn analysis(&self, machine: &MachineRecords) -> Result<Analysis> {
        Ok(Analysis { stated: Some(self.spec.stated()), ..Analysis::of(machine)? })
    }

    /// "How this was measured", naming the instance (its path from the root) and its optimum
    /// (certified, or stated and not certified: `IslandPaper::optimum_note`).
    fn method(&self) -> Result<String> {
        let s = &self.spec.settings;
        Ok(format!(
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
            self.instance.label,
            self.optimum_note()?,
            s.crossover,
            s.mutation,
            s.migration_interval,
            100.0 * *s.migration_fraction,
        ))
    }

    /// Tables I and II's speedups as `paper_values.csv` lists them.
    fn paper_values(&self) -> (&'static str, Vec<PaperValue>) {
        let (t1, t2) = (&self.spec.table1, &self.spec.table2);
        let values = t1
            .values()
            .map(|(config, size, v)| PaperValue::new("Table I", config, "island size", size, v, "×"))
            .chain(t2.values().map(|(config, size, v)| PaperValue::new("Table II", config, "island size", size, v, "×")))
            .collect();
        ("experiments/island.toml [table1], [table2]", values)
    }

    fn sections(&self, machines: &[MachineRecords], analyses: &Analyses<Analysis>, dir: &Path) -> Result<Vec<Section>> {
        sections(&self.spec, machines, analyses, self.item_count(), &self.optimum_note()?, dir)
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        compare(&self.spec, machines).unwrap_or_else(|e| format!("The records cannot be compared: {e:#}\n"))
    }
}

/// Every section, from each machine's analysis.
fn sections(
    spec: &IslandSpec,
    machines: &[MachineRecords],
    analyses: &Analyses<Analysis>,
    items: Option<usize>,
    optimum: &str,
    dir: &Path,
) -> Result<Vec<Section>> {
    let of = |m: &MachineRecords| analyses.of(m);
    let mut sections = vec![
        Section::per_machine("Figure 4 — best fitness after the run", "", machines, |m| fig4(m, of(m), optimum, dir))?,
        Section::per_machine("Figure 5 — total time, and Figure 6 — migration overhead", "", machines, |m| fig5_6(m, of(m), dir))?,
        Section::per_machine("Several GPUs — the ring over NCCL (Section IV)", RING_INTRO, machines, |m| Ok(ring_section(of(m))))?,
        Section::per_machine("Performance — memory traffic against the measured ceiling", "", machines, |m| {
            Ok(performance(m, of(m), items))
        })?,
        Section::per_machine("Sustained rate — counted operations against the int32 ceiling (Section VI)", RATE_INTRO, machines, |m| {
            Ok(sustained_rate(m, of(m)))
        })?,
        Section::per_machine("Figure 7 — speedups of one island over one CPU thread", "", machines, |m| {
            fig7(spec, m, of(m), items, dir)
        })?,
        Section::per_machine("Tables I and II — speedups over one CPU thread and over all cores", TABLES_INTRO, machines, |m| {
            tables(spec, m, of(m), dir)
        })?,
    ];
    if analyses.iter().any(|(_, a)| !a.families.is_empty()) {
        sections.push(Section::per_machine("Beyond the paper — Pisinger's instance families", FAMILIES_INTRO, machines, |m| {
            families(m, of(m), dir)
        })?);
    }
    Ok(sections)
}

/// Side by side: every machine's times per generation of one island and the paper's Table I.
fn compare(spec: &IslandSpec, machines: &[MachineRecords]) -> Result<String> {
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
