//! The report's sections in order (Table 1 in `table1`, Figures 1–6 on the
//! paper's sweep and on every size measured in `figures`, the kernels against
//! the measured ceilings in `performance`), and the side-by-side of every
//! machine with the paper's hardware.

use super::LayoutPaper;
use super::analysis::{Analysis, Cell};
use super::spec::{PAPER_CLASSES, fmt_size};
use crate::claims::Claims;
use crate::experiments::{Analyses, Render, Section};
use crate::library::nonseparable::{self as ns, Function};
use crate::records::MachineRecords;
use crate::report::{PaperValue, Table};
use crate::spec::values;
use anyhow::Result;
use std::path::Path;

impl Render for LayoutPaper {
    type Analysis = Analysis;

    fn claims(&self) -> &Claims<Analysis> {
        &self.claims
    }

    fn analysis(&self, machine: &MachineRecords) -> Result<Analysis> {
        Ok(Analysis::of(machine, &self.spec))
    }

    fn sections(&self, machines: &[MachineRecords], analyses: &Analyses<Analysis>, dir: &Path) -> Result<Vec<Section>> {
        let of = |m: &MachineRecords| analyses.of(m);
        let unit = &self.spec.settings.table1_unit;
        let min_n = &*self.spec.settings.min_n;
        Ok(vec![
            Section::per_machine(
                "Table 1 — Rosenbrock",
                format!(
                    "Mean ± sd over the tries ({unit}), best block size as `bN`; the paper's values in parentheses. The winner is \
                     the fastest of the paper's five columns when the 95% interval of its difference to each other excludes \
                     zero (Welch, n ≥ {min_n} tries); otherwise the strategies not separated from the fastest are a tie. The \
                     paper's winner is found by the same rule from its mean ± sd over its {} tries.",
                    *self.spec.settings.paper_tries
                ),
                machines,
                |m| self.table1(m, of(m), dir),
            )?,
            Section::per_machine(
                "Figures 1–6 — LinearSVM decision regions of the winning strategy",
                format!(
                    "On the paper's sweep: Table 1's sizes for Figure 1 (Section 4.1), Table 1's and the sizes the captions and \
                     Sections 4.2–4.4 name for Figures 2–6. A size's class is its winner as in Table 1 (end to end, n ≥ {min_n}); \
                     sizes where the fastest strategies tie have no class and are left out of the fit (counted in the table). \
                     Classes are ordered by problem size and each consecutive pair gets its own linear SVM (footnote 7 of the \
                     paper) on {}, cost C = {}. Rings mark support vectors here, hollow diamonds those of the paper's \
                     captions; the paper's boundaries are the same SVMs fitted to the paper's own classed sizes (Table 1's \
                     winners by the rule above for Figure 1, the captions' support vectors for Figures 2–6).",
                    self.spec.settings.svm_features.name(),
                    self.spec.settings.svm_cost
                ),
                machines,
                |m| self.figures(m, of(m), false, dir),
            )?,
            Section::per_machine(
                "Figures 1–6 on every size measured (beyond the paper)",
                "The same fits over every size of the records, the paper profile's log-spaced fill included: sizes the paper \
                 did not measure, so no verdict rests on them.",
                machines,
                |m| self.figures(m, of(m), true, dir),
            )?,
            Section::per_machine(
                "Performance against measured ceilings (beyond the paper)",
                "Kernel, end-to-end and sequential CPU rates against the ceilings measured in the same run, for each profile \
                 with sizes of ≥ 16 M coordinates: Rosenbrock from the paper or quick profile, every light function from the \
                 `speed` profile. Not a claim of the paper.",
                machines,
                |m| Ok(super::performance::performance(m, &[of(m), &Analysis::of_profile(m, &self.spec, "speed")])),
            )?,
        ])
    }

    fn method(&self) -> Result<String> {
        Ok(format!(
            "Times are end-to-end per population evaluation, in {}: for S1–S4 host→device copy, kernel and device→host copy \
             (host clock around the whole; CUDA events split it into copy-in / kernel / copy-out), from pinned host memory, \
             S4's host-side transposition timed apart, into a buffer of its own (both versions under Table 1); for the CPU columns the evaluation alone, \
             each try the best of as many executions as the GPU strategies try block sizes at that size (Section 4.1: \
             \"the equal number of executions … retaining the best one\"). Inputs are uniform in (0, 1), identical for every function and strategy \
             of one size. Each GPU strategy is first run on every block size in `{:?}` (up to the population) and checked \
             against the f64 CPU reference on those inputs (|f32 − ref| ≤ {:.0e}·Σ|term| + {}·(effect of one f32 ulp per \
             input)), then the fastest block size is timed for the profile's tries: cells show mean ± sd over those tries. \
             `sequential` is the paper's single-thread CPU evaluation; `cpu_mt` (all cores, rayon) and `S4-split` are extra \
             columns the paper lacks and take no part in the winner, the figures or the claims. Claims are judged on the \
             paper's sweep (Table 1's sizes and the sizes its figures name) and on end-to-end times only; the paper \
             profile's other sizes and the kernel-only times are reported beyond the paper.",
            self.spec.settings.table1_unit,
            values(&self.spec.settings.block_sizes).collect::<Vec<_>>(),
            ns::ACCUMULATION_RTOL,
            ns::ULP_ALLOWANCE,
        ))
    }

    fn paper_values(&self) -> (&'static str, Vec<PaperValue>) {
        ("experiments/layout.toml [[table1]]", self.stated_values())
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        let analyses: Vec<(&MachineRecords, Analysis)> = machines.iter().map(|m| (m, Analysis::of(m, &self.spec))).collect();
        let mut md =
            String::from("## Rosenbrock, Table 1 sizes: best time per strategy (ms), and the paper's C2075 time over each machine's\n\n");
        let mut header = vec!["size".to_owned(), "strategy".to_owned(), "paper (C2075 + E5520)".to_owned()];
        header.extend(analyses.iter().map(|(m, _)| format!("`{}`", m.hw_id)));
        let mut t = Table::new(&header);
        for r in &self.spec.table1 {
            for class in PAPER_CLASSES {
                let paper = r.paper(class);
                let mut cells = vec![fmt_size(r.size()), class.into(), paper.map_or("NAN".into(), |p| format!("{:.3}", p[0]))];
                for (_, a) in &analyses {
                    cells.push(match a.get(Function::Rosenbrock, r.size(), class) {
                        Some(Cell::Ok(s)) => match paper {
                            Some(p) => format!("{:.4} ({:.1}× faster)", s.summary.mean, p[0] / s.summary.mean),
                            None => format!("{:.4} (paper: NAN)", s.summary.mean),
                        },
                        Some(Cell::CannotRun(_)) => "cannot run".into(),
                        Some(Cell::NotRun(_)) => "not run here".into(),
                        None => "—".into(),
                    });
                }
                t.row(cells);
            }
        }
        md += &t.render();
        md += "\n## Device bandwidth: datasheet of the paper's GPU vs measured here\n\n";
        let mut t = Table::new(&["machine", "GPU memory bandwidth (GB/s)", "× paper's"]);
        let paper_bw = self.spec.paper.hardware.gpu_bandwidth_gbs;
        t.row(vec!["paper (datasheet)".into(), format!("{paper_bw:.0}"), "1.0".into()]);
        for (m, _) in &analyses {
            match m.ceiling("gpu_d2d") {
                Some(bw) => t.row(vec![format!("`{}` (measured copy)", m.hw_id), format!("{bw:.0}"), format!("{:.1}", bw / paper_bw)]),
                None => t.row(vec![format!("`{}`", m.hw_id), "not run here".into(), "—".into()]),
            }
        }
        md += &t.render();
        md
    }
}
