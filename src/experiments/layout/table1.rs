//! Table 1 (Section 4: the C2075's times of S1–S4 at the paper's sizes) beside
//! each machine's, and the S4 transposition's own time.

use super::LayoutPaper;
use super::analysis::{Analysis, Cell, Metric, paper_standing};
use super::spec::{ALL_CLASSES, PAPER_CLASSES, fmt_size};
use crate::library::nonseparable::Function;
use crate::records::MachineRecords;
use crate::report::chart::{self, LineChart, PaperPoints};
use crate::report::{PaperValue, Table};
use crate::stats;
use anyhow::Result;
use std::path::Path;

impl LayoutPaper {
    /// Table 1's C2075 times, mean and sd over the paper's tries.
    pub(super) fn stated_values(&self) -> Vec<PaperValue> {
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

    pub(super) fn table1(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
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
            cells.push(paper_standing(r, *self.spec.settings.paper_tries).label());
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
    pub(super) fn transposition(&self, a: &Analysis) -> String {
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
}
