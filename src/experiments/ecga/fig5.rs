//! Figure 5 — the speedups of FastCount and gECGA over the baseline (Sections
//! 5.3 and 5.5): model building and whole run per scorer at each ℓ, the
//! paper's points on the chart, and the whole runs of Section 5.3.

use super::EcgaPaper;
use super::analysis::Analysis;
use super::{CPU_MT, GECGA_DEVICE, SCORERS};
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::report::chart::{self, LineChart, PaperPoints};
use crate::stats::Summary;
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

impl EcgaPaper {
    /// Figure 5's speedups as the paper states them (Sections 5.3 and 5.5), for the chart.
    pub(super) fn fig5_overlay(&self) -> PaperPoints {
        let p = &self.spec.fig5_paper;
        let mut o = PaperPoints::new(chart::card(&self.spec.paper.hardware.gpu));
        for (name, v) in [("spg(m)", p.spg_m), ("spg(w)", p.spg_w), ("spcg(m)", p.spcg)] {
            o.push(name, (p.ell as f64, v));
        }
        o
    }
}

/// "mean ± sd" of a scorer's times (ms), the mean alone for one run.
pub(super) fn fmt_ms(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| if s.n > 1 { format!("{:.1} ± {:.1}", s.mean, s.sd) } else { format!("{:.1}", s.mean) })
}

pub(super) fn fig5(m: &MachineRecords, a: &Analysis, paper: &PaperPoints, dir: &Path) -> Result<String> {
    if a.fig5.is_empty() {
        return Ok(String::new());
    }
    // The scorers with a record at some ℓ (the kept trees only where a profile ran them).
    let shown: Vec<&str> = SCORERS.into_iter().filter(|s| a.fig5.values().any(|(_, m)| m.contains_key(*s))).collect();
    let mut header = vec!["ℓ".to_owned(), "N".to_owned()];
    for s in &shown {
        header.push(format!("{s}: model / whole (ms)"));
    }
    header.extend([
        "identical runs".into(),
        "spc m / w".into(),
        "spg m / w".into(),
        "spcg m / w".into(),
        "whole run on the device over baseline / fastcount-mt".into(),
    ]);
    let mut t = Table::new(&header);
    let mut series: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for (&ell, (n, scorers)) in &a.fig5 {
        let mut cells = vec![ell.to_string(), n.to_string()];
        let (mut identical, mut runs) = (0, 0);
        for &s in &shown {
            cells.push(match scorers.get(s) {
                Some(t) if t.runs > 0 => {
                    if s != GECGA_DEVICE {
                        identical += t.identical;
                        runs += t.runs;
                    }
                    format!("{} / {}", fmt_ms(Summary::of(&t.model)), fmt_ms(Summary::of(&t.total)))
                }
                Some(t) => format!("not run here ({})", t.not_run.as_deref().unwrap_or("—")),
                None => "—".into(),
            });
        }
        let sp = a.speedups(ell);
        cells.push(format!("{identical}/{runs}"));
        cells.push(format!("{} / {}", fmt::times(sp.spc_m, 1), fmt::times(sp.spc_w, 1)));
        cells.push(format!("{} / {}", fmt::times(sp.spg_m, 1), fmt::times(sp.spg_w, 1)));
        cells.push(format!("{} / {}", fmt::times(sp.spcg_m, 1), fmt::times(sp.spcg_w, 1)));
        let whole = |s: &str| a.mean(ell, s, false);
        let device = whole(GECGA_DEVICE);
        let over = |s: &str| fmt::times(whole(s).zip(device).map(|(o, d)| o / d), 1);
        cells.push(format!("{} / {}", over(super::BASELINE), over(CPU_MT)));
        t.row(cells);
        for (name, v) in [("spc(m)", sp.spc_m), ("spc(w)", sp.spc_w), ("spg(m)", sp.spg_m), ("spg(w)", sp.spg_w), ("spcg(m)", sp.spcg_m)] {
            if let Some(v) = v {
                series.entry(name).or_default().push((ell as f64, v));
            }
        }
    }
    let mut md = t.render() + "\n";
    if !series.is_empty() {
        let chart = LineChart {
            paper: paper.clone(),
            ..LineChart::new("Figure 5: speedups over the baseline", ("problem size ℓ", "speedup"), series, m.label())
        };
        md += &(chart::figure(dir, &m.hw_id, "fig5", "Figure 5", &chart)? + "\n");
    }
    Ok(md)
}

/// Section 5.3 at the ℓ where a whole baseline run outlasts a command (the
/// `whole` cases): each run's times, the paper's speedups from them beside the
/// paper's values, and what sharing the host's cores cost a build.
pub(super) fn whole_runs(a: &Analysis) -> String {
    let mut md = String::new();
    let p = &a.published.fig5;
    for (&(ell, at_once), (n, runs)) in &a.whole {
        let secs =
            |t: Option<(f64, f64)>| t.map_or("not every generation built".into(), |(m, w)| format!("{:.0} / {:.0}", m / 1e3, w / 1e3));
        let ms = |v: &[f64]| Summary::of(v).map_or("—".into(), |s| format!("{:.0}", s.mean));
        let mut t = Table::new(&[
            "run",
            "generations",
            "builds at once",
            "baseline: Σ model / whole (s)",
            "fastcount: Σ model / whole (s)",
            "gecga: model / whole (ms)",
            "gecga, GM: whole (ms)",
            "gecga-device: whole (ms)",
            "builds with the run's model",
        ]);
        for (r, run) in runs {
            t.row(vec![
                r.to_string(),
                run.generations.map_or("—".into(), |g| g.to_string()),
                run.concurrent.to_string(),
                secs(run.whole(super::BASELINE)),
                secs(run.whole(super::FASTCOUNT)),
                run.gecga_mean().map_or("—".into(), |(m, w)| format!("{m:.0} / {w:.0}")),
                ms(&run.gecga_gm),
                ms(&run.device),
                format!("{} of {}", run.identical.0, run.identical.1),
            ]);
        }
        let sp = super::analysis::whole_speedups(runs);
        let mut s = Table::new(&["speedup", "here", "paper (C2050)", "here / paper"]);
        let paper_at = |v: f64| if ell == p.ell { Some(v) } else { None };
        for (name, here, paper) in [
            ("spg(m): baseline / gECGA, model building", sp.spg_m, paper_at(p.spg_m)),
            ("spg(w): baseline / gECGA, whole run", sp.spg_w, paper_at(p.spg_w)),
            ("spc(m): baseline / FastCount, model building", sp.spc_m, None),
            ("spcg(m): FastCount / gECGA, model building (the paper's spcg)", sp.spcg_m, paper_at(p.spcg)),
            ("spcg(w): FastCount / gECGA, whole run", sp.spcg_w, None),
            ("spgm(w): baseline (greedy) / gECGA with GM, whole run", sp.spgm_w, paper_at(p.spgm_w)),
            ("baseline / gecga-device, whole run (beyond the paper; goal ≥ 2000×)", sp.device_w, None),
        ] {
            let r = here.zip(paper).map_or("—".into(), |(h, q)| format!("{:.2}", h / q));
            s.row(vec![name.into(), fmt::times(here, 1), paper.map_or("—".into(), |q| format!("{q:.2}×")), r]);
        }
        let cost = |scorer: &str| {
            a.concurrency_cost(ell, at_once, scorer).map_or(format!("{scorer}: no lone build to compare"), |(lone, shared)| {
                format!(
                    "{scorer} {:.1} s alone, {:.1} s among the others ({:+.1}%{})",
                    lone / 1e3,
                    shared / 1e3,
                    100.0 * (shared / lone - 1.0),
                    if shared / lone - 1.0 > 0.05 { ", over the 5% the method allows" } else { "" }
                )
            })
        };
        let _ = write!(
            md,
            "\n**Whole runs at ℓ = {ell}, N = {n}, as Section 5.3 times them, {at_once} builds at once** (`whole` cases). A whole baseline run at this ℓ \
             outlasts a GPU-machine command, so a greedy gECGA run with counter-based random numbers keeps each generation's \
             selected population, and the single-threaded baseline and FastCount build each generation's model, one build \
             per timing, several at once on the host's cores, each build checked against the run's model. A scorer's whole \
             run is the sum of its builds plus the run's time outside model building (selection, sampling, evaluation: the \
             same code whichever scorer counts, taken from gECGA's runs). The `build` case's first selection is built \
             among the others and alone: {}; {}. Speedups are ratios of mean times over the n = {} run(s) whose every \
             generation the baseline built.\n\n{}\n{}\n",
            cost(super::BASELINE),
            cost(super::FASTCOUNT),
            sp.n,
            t.render(),
            s.render()
        );
    }
    md
}
