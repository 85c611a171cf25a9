//! The report's sections: Table 1, Figures 1–6 on the paper's sweep and on
//! every size measured, the kernels against the measured ceilings, and the
//! side-by-side of every machine with the paper's hardware.

use super::LayoutPaper;
use super::analysis::{Analysis, Cell, Figure, Metric, paper_standing};
use super::spec::{ALL_CLASSES, PAPER_CLASSES, Size};
use crate::claims::Claims;
use crate::experiments::{Analyses, Render, Section};
use crate::library::nonseparable::{self as ns, Function};
use crate::records::MachineRecords;
use crate::report::chart::{self, LineChart, PaperPoints, RegionChart};
use crate::report::{PaperValue, Table};
use crate::stats;
use crate::svm;
use anyhow::Result;
use std::fmt::Write;
use std::path::Path;

fn fmt_size((p, d): Size) -> String {
    format!("{p}×{d}")
}

fn fmt_support<'a>(items: impl Iterator<Item = (&'a String, Vec<Size>)>) -> String {
    let parts: Vec<String> = items.map(|(c, v)| format!("{c}: {}", v.into_iter().map(fmt_size).collect::<Vec<_>>().join(", "))).collect();
    if parts.is_empty() { "—".into() } else { parts.join("; ") }
}

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
        let min_n = self.spec.settings.min_n.get_ref();
        Ok(vec![
            Section::per_machine(
                "Table 1 — Rosenbrock",
                format!(
                    "Mean ± sd over the tries ({unit}), best block size as `bN`; the paper's values in parentheses. The winner is \
                     the fastest of the paper's five columns when the 95% interval of its difference to each other excludes \
                     zero (Welch, n ≥ {min_n} tries); otherwise the strategies not separated from the fastest are a tie. The \
                     paper's winner is found by the same rule from its mean ± sd over its {} tries.",
                    *self.spec.settings.paper_tries.get_ref()
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
                    self.spec.settings.svm_cost.get_ref()
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
                |m| Ok(performance(m, &[of(m), &Analysis::of_profile(m, &self.spec, "speed")])),
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
            self.spec.settings.block_sizes.get_ref().iter().map(|b| *b.get_ref()).collect::<Vec<_>>(),
            ns::ACCUMULATION_RTOL,
            ns::ULP_ALLOWANCE,
        ))
    }

    fn paper_values(&self) -> (&'static str, Vec<PaperValue>) {
        ("experiments/layout.toml [[table1]]", self.stated_values())
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        self.compare_md(machines)
    }
}

impl LayoutPaper {
    /// Table 1's C2075 times, mean and sd over the paper's tries.
    fn stated_values(&self) -> Vec<PaperValue> {
        let unit = &self.spec.settings.table1_unit;
        let mut values = Vec::new();
        for r in &self.spec.table1 {
            for c in PAPER_CLASSES {
                if let Some([mean, sd]) = r.paper(c) {
                    values.push(PaperValue::new("Table 1", c, "population×dimension", fmt_size(r.size()), mean, unit).with_sd(sd));
                }
            }
        }
        values
    }

    fn table1(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
        let mut header = vec!["pop × dim".to_owned()];
        for c in ALL_CLASSES {
            header.push(if PAPER_CLASSES.contains(&c) { c.to_owned() } else { format!("{c} (extra)") });
        }
        header.extend(["winner (paper)".into(), "winner (here)".into(), "best: paper / here".into()]);
        let mut t = Table::new(&header);
        let f = Function::Rosenbrock;
        for r in &self.spec.table1 {
            let s = r.size();
            let mut cells = vec![fmt_size(s)];
            for c in ALL_CLASSES {
                let paper = match r.paper(c) {
                    Some(p) => format!(" (paper {:.3} ± {:.3})", p[0], p[1]),
                    None if PAPER_CLASSES.contains(&c) => " (paper NAN)".into(),
                    None => String::new(),
                };
                cells.push(match a.get(f, s, c) {
                    Some(Cell::Ok(t)) => {
                        let block = t.block.map_or(String::new(), |b| format!(", b{b}"));
                        format!("{:.4} ± {:.4}{block}{paper}", t.summary.mean, t.summary.sd)
                    }
                    Some(Cell::CannotRun(why)) => format!("cannot run: {why}{paper}"),
                    Some(Cell::NotRun(_)) => format!("not run here{paper}"),
                    None => format!("—{paper}"),
                });
            }
            let paper_best = PAPER_CLASSES.iter().filter_map(|c| r.paper(c).map(|p| (*c, p[0]))).min_by(|x, y| x.1.total_cmp(&y.1));
            let here = a.winner(f, s);
            cells.push(paper_standing(r, *self.spec.settings.paper_tries.get_ref()).label());
            cells.push(here.label());
            let fastest = PAPER_CLASSES.iter().filter_map(|c| a.time(f, s, c)).min_by(|x, y| x.total_cmp(y));
            cells.push(match (paper_best, fastest, here.first().is_empty()) {
                (Some(p), Some(h), false) => format!("{:.1}×", p.1 / h),
                _ => "—".into(),
            });
            t.row(cells);
        }
        let mut md = format!("{} tries per strategy.\n\n", a.tries().map_or("No".into(), |n| n.to_string()));
        md += &t.render();
        md += &self.transposition(a);
        let series: Vec<(String, Vec<(f64, f64)>)> = ALL_CLASSES
            .iter()
            .map(|c| {
                let pts =
                    self.spec.table1.iter().filter_map(|r| a.time(f, r.size(), c).map(|t| ((r.size[0] * r.size[1]) as f64, t))).collect();
                (c.to_string(), pts)
            })
            .filter(|s: &(String, Vec<(f64, f64)>)| !s.1.is_empty())
            .collect();
        if !series.is_empty() {
            let name = format!("{}__table1", m.hw_id);
            let mut paper = PaperPoints::new(chart::card(&self.spec.paper.hardware.gpu));
            for r in &self.spec.table1 {
                for c in PAPER_CLASSES {
                    if let Some([mean, _]) = r.paper(c) {
                        paper.push(c, ((r.size[0] * r.size[1]) as f64, mean));
                    }
                }
            }
            let y_label = format!("time ({})", self.spec.settings.table1_unit);
            let c = LineChart {
                title: "Table 1: Rosenbrock, end to end",
                x_label: "population × dimension",
                y_label: &y_label,
                series,
                machine: m.label(),
                paper,
                ..LineChart::default()
            };
            chart::write_lines(&dir.join("figures").join(&name), &c).map_err(anyhow::Error::msg)?;
            md += &format!("\n![Table 1 sizes, time per strategy](figures/{name}.png)\n");
        }
        Ok(md)
    }

    /// S4 with and without its host-side transposition at Table 1's sizes (Section 3.2.4).
    fn transposition(&self, a: &Analysis) -> String {
        let f = Function::Rosenbrock;
        let mut t = Table::new(&[
            "pop × dim",
            "S4 as timed above (copy in, kernel, copy out)",
            "host-side transposition (GB/s read)",
            "S4 + transposition",
            "winner (here), S4 paying its transposition",
        ]);
        let mut old = false;
        for s in self.spec.table1_sizes() {
            let Some(s4) = a.timed(f, s, "S4") else { continue };
            let Some(with) = s4.with_transposition() else { continue };
            let ms = |xs: &[f64]| stats::Summary::of(xs).map_or("—".into(), |x| format!("{:.4} ± {:.4}", x.mean, x.sd));
            let threads = match s4.transpose_threads {
                Some(1) => " (1 thread)".to_owned(),
                Some(k) => format!(" ({k} threads)"),
                None => {
                    old = true;
                    " (1 thread, older records)".to_owned()
                }
            };
            // Bytes of the population read per millisecond: 10⁶ B/ms = 1 GB/s.
            let rate = stats::Summary::of(&s4.transposes)
                .map_or(String::new(), |x| format!(", {:.2} GB/s", (s.0 * s.1 * 4) as f64 / x.mean / 1e6));
            t.row(vec![
                fmt_size(s),
                ms(&s4.walls),
                ms(&s4.transposes) + &rate + &threads,
                ms(&with),
                a.standing(f, s, &PAPER_CLASSES, Metric::Transposed).label(),
            ]);
        }
        if t.is_empty() {
            return String::new();
        }
        let older = if old {
            " Older records (1 thread) transposed into the pinned buffer S4 copies from, right before each try: that left \
             S4's copy-in slower than S1's (up to 2× at 10⁵–3·10⁵ coordinates on the H100 host, records of f1195d5); newer \
             ones transpose in parallel into a buffer of their own, so S4's copy reads a buffer written once, as S1's does."
        } else {
            ""
        };
        format!(
            "\nS4 reads the population dimension-major, so the host transposes it before the copy (Section 3.2.4). The paper \
             does not say whether its times include that step; the times above (and every claim) leave it out, as the layout \
             is the EA's design choice. Both versions ({}):{older}\n\n{}",
            self.spec.settings.table1_unit,
            t.render()
        )
    }

    /// The figures of one machine: on the paper's sweep, or on every size measured (`grid`).
    fn figures(&self, m: &MachineRecords, a: &Analysis, grid: bool, dir: &Path) -> Result<String> {
        if !a.gpu_ran {
            return Ok(if grid { String::new() } else { format!("Not run here ({}): the figures need the GPU strategies.", a.gpu_absent) });
        }
        let mut md = String::new();
        let mut t = Table::new(&[
            "figure",
            "function",
            "paper classes",
            "measured classes",
            "paper support vectors",
            "measured support vectors",
            "misclassified",
            "sizes with a winner",
            "left out (not measured, tie, too few tries)",
            "SVM on the paper's own classed sizes: support vectors",
        ]);
        for fig in if grid { &a.grid } else { &a.figures } {
            if fig.points.is_empty() && fig.undecided.is_empty() {
                continue;
            }
            let f = fig.function;
            if fig.fit.is_ok() {
                let stem = format!("{}__{}{}", m.hw_id, f.name(), if grid { "__grid" } else { "" });
                region_figure(&dir.join("figures").join(&stem), fig, m, &self.spec.paper.hardware.gpu).map_err(anyhow::Error::msg)?;
                let _ = writeln!(md, "![{} — {}](figures/{stem}.png)\n", fig.name, f.name());
            }
            let support = fig.support();
            t.row(vec![
                fig.name.clone(),
                f.name().into(),
                fig.paper_classes.join(" → "),
                fig.classes().join(" → "),
                fmt_support(fig.paper_classes.iter().map(|c| (c, fig.paper_support.get(c).cloned().unwrap_or_default()))),
                fmt_support(fig.classes().iter().filter_map(|c| support.get_key_value(c)).map(|(c, v)| (c, v.iter().copied().collect()))),
                match &fig.fit {
                    Ok(b) => b.iter().map(|b| b.misclassified.to_string()).collect::<Vec<_>>().join(", "),
                    Err(why) => why.clone(),
                },
                format!("{} of {}", fig.points.len(), fig.sizes.len()),
                left_out(fig),
                paper_fit_cell(fig),
            ]);
        }
        md += &t.render();
        Ok(md)
    }

    fn compare_md(&self, machines: &[MachineRecords]) -> String {
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

/// The support vectors of the SVMs fitted to the paper's own classed sizes, and from what.
fn paper_fit_cell(fig: &Figure) -> String {
    let p = &fig.paper_fit;
    match &p.fit {
        Ok(_) => {
            let support = p.support();
            let classes = svm::class_order(&p.points);
            format!(
                "{} (fitted to {}, {} sizes)",
                fmt_support(classes.iter().filter_map(|c| support.get_key_value(c)).map(|(c, v)| (c, v.iter().copied().collect()))),
                p.source,
                p.points.len()
            )
        }
        Err(why) => format!("{why} ({})", p.source),
    }
}

/// "2 ties (1000×1000, 2000×500)" and sizes with too few tries or not run.
fn left_out(fig: &Figure) -> String {
    if fig.undecided.is_empty() && fig.missing.is_empty() {
        return "none".into();
    }
    let ties = fig.ties();
    let mut parts = Vec::new();
    if !fig.missing.is_empty() {
        parts.push(format!(
            "{} not measured ({})",
            fig.missing.len(),
            fig.missing.iter().map(|s| fmt_size(*s)).collect::<Vec<_>>().join(", ")
        ));
    }
    if !ties.is_empty() {
        parts.push(format!("{} tied ({})", ties.len(), ties.iter().map(|s| fmt_size(*s)).collect::<Vec<_>>().join(", ")));
    }
    let other = fig.undecided.len() - ties.len();
    if other > 0 {
        parts.push(format!(
            "{other} undecided ({})",
            fig.undecided.iter().find(|(_, s)| !matches!(s, super::analysis::Standing::Tie(..))).map_or(String::new(), |(_, s)| s.label())
        ));
    }
    parts.join("; ")
}

fn region_figure(stem: &Path, fig: &Figure, m: &MachineRecords, paper_card: &str) -> Result<(), String> {
    let bounds = fig.fit.as_ref().map_err(Clone::clone)?;
    let order = fig.classes();
    let classes: Vec<(String, Vec<(f64, f64)>)> =
        order.iter().map(|c| (c.clone(), fig.points.iter().filter(|p| &p.class == c).map(|p| (p.pop, p.dim)).collect())).collect();
    let mut lines: Vec<(String, [f64; 3])> =
        bounds.iter().map(|b| (format!("SVM {} | {}", b.lower, b.upper), [b.w[0], b.w[1], b.rho])).collect();
    // The paper's boundaries: the SVMs fitted to its own classed sizes.
    let card = chart::card(paper_card);
    for b in fig.paper_fit.fit.iter().flatten() {
        lines.push((format!("{card} SVM {} | {} ({})", b.lower, b.upper, fig.paper_fit.source), [b.w[0], b.w[1], b.rho]));
    }
    let rings = bounds.iter().flat_map(|b| b.support_lower.iter().chain(&b.support_upper).copied()).collect();
    // The caption's support vectors, in the colour of their class.
    let mut paper = PaperPoints::new(card);
    for (class, sizes) in &fig.paper_support {
        for &(p, d) in sizes {
            paper.push(class, (p as f64, d as f64));
        }
    }
    let span = |v: Vec<f64>| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        (lo / 1.6, hi * 1.6)
    };
    chart::write_regions(
        stem,
        &RegionChart {
            title: &format!("{} ({})", fig.name, fig.function.name()),
            machine: m.label(),
            x_label: "population",
            y_label: "dimension",
            x_range: span(fig.points.iter().map(|p| p.pop).chain(paper.series.iter().flat_map(|s| s.1.iter().map(|q| q.0))).collect()),
            y_range: span(fig.points.iter().map(|p| p.dim).chain(paper.series.iter().flat_map(|s| s.1.iter().map(|q| q.1))).collect()),
            classes,
            lines,
            rings,
            paper,
            linear: fig.fit.iter().flatten().any(|b| b.features == svm::Features::Linear),
        },
    )
}

/// Kernel, end-to-end and sequential CPU rates against the ceilings measured in
/// the same run, for each profile with sizes of ≥ 16 M coordinates.
fn performance(m: &MachineRecords, analyses: &[&Analysis]) -> String {
    let mut md = String::new();
    let mut ceilings = String::new();
    let pct = |x: f64, c: Option<f64>| c.map_or("–".to_owned(), |c| crate::fmt::share(x, c, 0));
    let mut gpu = Table::new(&[
        "profile",
        "function",
        "size",
        "strategy",
        "kernel in sequence: bytes read + written / kernel time",
        "of device copy",
        "kernel alone, back to back",
        "of device copy (alone)",
        "end to end: input bytes / (copy-in + kernel + copy-out)",
        "of pinned host→device",
    ]);
    let mut cpu = Table::new(&["profile", "function", "size", "sequential: input bytes / time", "of 1-thread read"]);
    for a in analyses {
        if a.is_empty() {
            continue;
        }
        let ceiling = |name: &str| m.ceiling_of_profile(name, &a.profile);
        let (d2d, h2d, cpu1) = (ceiling("gpu_d2d"), ceiling("gpu_h2d_pinned"), ceiling("cpu_read_1t"));
        let _ = writeln!(
            ceilings,
            "- {} profile: device copy {}, pinned host→device {}, one CPU thread reading {}.",
            a.profile,
            d2d.map_or("not measured".into(), |c| format!("{c:.0} GB/s")),
            h2d.map_or("not measured".into(), |c| format!("{c:.1} GB/s")),
            cpu1.map_or("not measured".into(), |c| format!("{c:.1} GB/s")),
        );
        let functions: &[Function] =
            if a.profile == "speed" { &[Function::Rosenbrock, Function::F2Light, Function::F4Light] } else { &[Function::Rosenbrock] };
        for &f in functions {
            let sizes: Vec<Size> = a.sizes(f).into_iter().filter(|(p, d)| p * d >= 16_000_000).collect();
            for &(p, d) in &sizes {
                for strategy in ["S4", "S4-split"] {
                    let Some(s) = a.timed(f, (p, d), strategy) else { continue };
                    let rate = |ms: f64| ((p * d + p) * 4) as f64 / (ms * 1e-3) / 1e9;
                    let kernel = s.kernel_median().map(rate);
                    let alone = s.kernel_loop.map(rate);
                    let e2e = s.events_median.map(|e| (p * d * 4) as f64 / (e * 1e-3) / 1e9);
                    gpu.row(vec![
                        a.profile.clone(),
                        f.name().into(),
                        fmt_size((p, d)),
                        strategy.into(),
                        kernel.map_or("–".into(), |g| format!("{g:.0} GB/s")),
                        kernel.map_or("–".into(), |g| pct(g, d2d)),
                        alone.map_or("–".into(), |g| format!("{g:.0} GB/s")),
                        alone.map_or("–".into(), |g| pct(g, d2d)),
                        e2e.map_or("–".into(), |g| format!("{g:.1} GB/s")),
                        e2e.map_or("–".into(), |g| pct(g, h2d)),
                    ]);
                }
            }
            if let Some(&(p, d)) = sizes.iter().max_by_key(|(p, d)| p * d)
                && let Some(s) = a.timed(f, (p, d), "sequential")
            {
                let bw = (p * d * 4) as f64 / (s.summary.median * 1e-3) / 1e9;
                cpu.row(vec![a.profile.clone(), f.name().into(), fmt_size((p, d)), format!("{bw:.1} GB/s"), pct(bw, cpu1)]);
            }
        }
    }
    if gpu.is_empty() && cpu.is_empty() {
        return "No size large enough (≥ 16 M coordinates) in these records.".into();
    }
    md += "Ceilings measured by the same profile's runs (each row is compared with its own profile's):\n\n";
    md += &ceilings;
    md += "\n";
    if !gpu.is_empty() {
        md += "Goals: S4 Rosenbrock kernel at 8000×2000 and larger ≥ 80% of the device copy; end to end ≥ 70% of pinned host→device. \
               The kernel is timed twice: inside the paper's copy-in, kernel, copy-out sequence (CUDA events around it), and alone, \
               launched 20 times back to back after the copy, as the device-copy ceiling is timed.\n\n";
        md += &gpu.render();
        md += "\n";
    }
    if !cpu.is_empty() {
        md += "Goal: the light functions' sequential evaluation within 1.5× of the one-thread read bandwidth (≥ 67%), at the largest size.\n\n";
        md += &cpu.render();
    }
    md
}
