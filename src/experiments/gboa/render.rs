//! The gBOA report's sections (Table I, Figure 7, construction speed,
//! complexity) and the hardware comparison, from each machine's analysis.

use super::GboaPaper;
use super::analysis::{Analysis, Judged, Point, RunTimes, Stated};
use super::cases::{GBOA, GBOA_DEVICE, GBOA_PAPER, METHODS, PBOA, PBOA_MT, SBOA};
use crate::claims::Claims;
use crate::experiments::{Analyses, Part, Render, SPEED_PROFILE, Section};
use crate::fmt;
use crate::records::MachineRecords;
use crate::records::col;
use crate::report::chart::{self, LineChart};
use crate::report::{PaperValue, Table, run_ratios};
use crate::stats;
use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

impl Render for GboaPaper {
    type Analysis = Analysis;

    fn claims(&self) -> &Claims<Analysis> {
        &self.claims
    }

    fn analysis(&self, machine: &MachineRecords) -> Result<Analysis> {
        Ok(self.of(machine))
    }

    fn sections(&self, machines: &[MachineRecords], analyses: &Analyses<Analysis>, dir: &Path) -> Result<Vec<Section>> {
        let of = |m: &MachineRecords| analyses.of(m);
        let range = self.judged();
        let stated = self.stated();
        let implied = stated.over_sboa / stated.over_pboa;
        Ok(vec![
            Section::per_machine(
                "Table I — total time of sBOA, pBOA and gBOA",
                format!(
                    "Table I's numbers and problem sizes are not in the text we have (its body is lost); its stated speedups of \
                     gBOA (Tesla C1060) over sBOA and pBOA (one core of a Core i7 920) are checked under Claims on the range \
                     chosen here: {}. Mean ± sd of the whole run; *solved* = mean fraction of the trap subproblems the best \
                     individual solves. Speedups of gBOA over each CPU construction side by side: the whole run (what the \
                     claims judge) and network construction only. `gboa-paper` is gBOA with the network kernel as the paper \
                     describes it (480 threads a block, pattern counts in shared memory), beside this harness's design \
                     (`gboa`). The paper's two speedups imply sBOA/pBOA = {implied:.1}× ({}× / {}×, the spec's `[stated]`), \
                     set against the measured ratio in the *sBOA / pBOA* column.",
                    range.describe(),
                    fmt::fmt_num(stated.over_sboa),
                    fmt::fmt_num(stated.over_pboa),
                ),
                machines,
                |m| table1(m, of(m), dir, &range, implied, true),
            )?,
            Section::per_machine(
                "Beyond the paper — Table I at larger ℓ or shorter runs",
                format!(
                    "Table I's points outside the range judged ({}): ℓ = 255–1020 (the `beyond` profile) and runs shorter \
                     than the paper's 200 generations (the `quick` profile). Not part of any verdict; the claims list their \
                     values under \"Beyond the paper\".",
                    range.describe()
                ),
                machines,
                |m| table1(m, of(m), dir, &range, implied, false),
            )?,
            Section::per_machine(
                "Figure 7 — time profile (share of each phase)",
                "Share of the whole run's time per phase (mean times). The paper's Figure 7 splits gBOA into GPU (construction) \
                 and CPU (the rest): construction more than 80% of the run, 70% for smaller problems (Section V.B; the dashed \
                 lines, read from the `construction_dominates` claim); the CPU constructions are shown for the same split.",
                machines,
                |m| Ok(fig7(of(m)) + &self.fig7_chart(m, of(m), dir)?),
            )?,
            Section::per_machine(
                "Speed — network construction against the goals",
                "Network construction per run (mean over runs, all generations; the population's packing by locus included). \
                 *Device calls*: wall time of gBOA's calls (upload, launch, kernel, the results' copies); *kernel*: CUDA-event \
                 time of the network kernel; the rest of gBOA's construction is the host's packing of the selected population. \
                 *Design*: the paper's kernel (`gboa-paper`: 480 threads a block split the population and count the patterns \
                 in shared memory, Section IV-A) against this harness's (`gboa`: bit-packed by locus, popcounts) on the same \
                 GPU — the part of a gap to the paper that is design; what remains of gboa-paper's speedup against the \
                 paper's is the hardware (and the CPU baselines').",
                machines,
                |m| Ok(construction_speed(m, of(m))),
            )?,
            Section::per_machine(
                "Beyond the paper — BOA on the device, end to end",
                "`gboa-device` (not a paper method): selection, network construction, sampling, evaluation and replacement all \
                 on the GPU with the population resident there (the \"future research\" of Section V.B), counter-based \
                 randomness (Philox keyed by seed, generation, stream, individual and locus), bit-identical to the CPU \
                 reference's counter-based run (checked by `evorepro selfcheck --paper gboa`). It draws other random numbers \
                 than the paper's configuration, so its runs are not pBOA's; the claims judge `gboa`. Phase times are CUDA \
                 events; each phase's rate is set against the ceiling that bounds it, measured in the same run: the device \
                 copy bandwidth (bytes read plus written, the least each phase must move) or, for network construction, the \
                 int32 instruction rate (alleles read per second, as for `gboa` above).",
                machines,
                |m| Ok(speed_device_run(m, of(m))),
            )?,
            Section::per_machine(
                "Complexity — Section V.A",
                "Network construction of the first generation (one network on the selected half of a random population).",
                machines,
                |m| complexity(m, of(m), dir),
            )?,
        ])
    }

    fn method(&self) -> Result<String> {
        let s = &self.spec.settings;
        Ok(format!(
            "Concatenated trap-{} (Section V), population {}, truncation selection of the best {:.0}%, at most {} parents per node, \
             the K2 (Bayesian–Dirichlet) metric in log space, offspring replacing the worst part of the population; the profile \
             sets the generations (the paper: 200) and runs (the paper: 20). Every construction runs the same seed. `sboa` checks \
             acyclicity (Pelikan's simple BOA); `pboa` draws a random permutation each generation and lets node i take parents \
             only from earlier positions (Ocenasek, Section III); `pboa-mt` is pboa with the candidate families scored on all \
             cores (the paper's pBOA ran on one core of a Core i7 920); `gboa` is pboa with the whole network built on the GPU \
             in one launch, one thread block per node as the paper decomposes it (Section IV-A), the rest on the CPU as in the \
             paper, and must reproduce pboa's run exactly (the *identical* column). Phase times are host wall-clock; network \
             construction includes packing the selected population by locus. Beside them, not a paper method, \
             `gboa-device` runs every phase on the GPU with counter-based randomness (Philox), the same settings and \
             seed, bit-identical to the CPU reference run with that randomness.",
            s.k_trap.get_ref(),
            s.population.get_ref(),
            100.0 * s.selection.get_ref(),
            s.max_parents.get_ref(),
        ))
    }

    fn paper_values(&self) -> (&'static str, Vec<PaperValue>) {
        ("experiments/gboa.toml [stated]", self.stated_values())
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        let mut t =
            Table::new(&["machine", "ℓ", "sBOA (ms)", "pBOA (ms)", "pBOA all cores (ms)", "gBOA (ms)", "sBOA / gBOA", "pBOA / gBOA"]);
        for m in machines {
            let a = self.of(m);
            for &at in a.table1.keys() {
                let total = |method: &str| a.mean(at, method, |r| r.total);
                t.row(vec![
                    format!("`{}`", m.hw_id),
                    at.to_string(),
                    fmt::opt(total(SBOA), 1),
                    fmt::opt(total(PBOA), 1),
                    fmt::opt(total(PBOA_MT), 1),
                    fmt::opt(total(GBOA), 1),
                    fmt::quotient(total(SBOA), total(GBOA), 2),
                    fmt::quotient(total(PBOA), total(GBOA), 2),
                ]);
            }
        }
        let stated = self.stated();
        format!(
            "Whole-run time per Table I point (mean). The paper states gBOA on a Tesla C1060 up to {}× faster than sBOA and \
             {}× faster than pBOA on one core of a Core i7 920 (Section V.B).\n\n{}",
            fmt::fmt_num(stated.over_sboa),
            fmt::fmt_num(stated.over_pboa),
            t.render()
        )
    }
}

impl GboaPaper {
    /// One machine's analysis with the spec's settings.
    fn of(&self, m: &MachineRecords) -> Analysis {
        let st = &self.spec.settings;
        Analysis::of(m).with_settings(*st.max_parents.get_ref(), *st.selection.get_ref(), self.judged(), self.stated())
    }

    /// The range the claims judge, from the spec's settings.
    fn judged(&self) -> Judged {
        let st = &self.spec.settings;
        Judged { ells: *st.judged_ells.get_ref(), generations: *st.judged_generations.get_ref() }
    }

    /// What the paper states, from the spec's `[stated]`.
    fn stated(&self) -> Stated {
        let t = &self.spec.stated;
        Stated {
            over_sboa: *t.speedup_over_sboa.get_ref(),
            over_pboa: *t.speedup_over_pboa.get_ref(),
            share: *t.construction_share.get_ref(),
            share_largest: *t.construction_share_largest.get_ref(),
        }
    }

    /// What the text states (Table I's numbers and sizes did not survive in it): the
    /// speedups and the construction shares of the spec's `[stated]`, and the sBOA / pBOA
    /// ratio the two speedups imply.
    fn stated_values(&self) -> Vec<PaperValue> {
        let t = self.stated();
        let share = |which: &str, v: f64| {
            let what = format!("network construction share of gBOA's run, {which} problems, more than");
            PaperValue::new("Figure 7, Section V.B", &what, "", "", 100.0 * v, "%")
        };
        vec![
            PaperValue::new("Section V.B, Table I", "gBOA over sboa, up to", "", "", t.over_sboa, "×"),
            PaperValue::new("Section V.B, Table I", "gBOA over pboa, up to", "", "", t.over_pboa, "×"),
            share("smaller", t.share),
            share("larger", t.share_largest),
            PaperValue::new(
                "Section V.B, Table I (implied)",
                "sBOA over pBOA, the two speedups' quotient",
                "",
                "",
                t.over_sboa / t.over_pboa,
                "×",
            ),
        ]
    }

    /// Figure 7 as curves: network construction's share of the whole run against
    /// ℓ, per method and generation count, with the shares the paper states (80%,
    /// 70% for smaller problems: the spec's `[stated]`) as dashed lines.
    fn fig7_chart(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
        let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for &at in a.table1.keys() {
            for method in METHODS {
                let share = a.mean(at, method, |r| r.construction).zip(a.mean(at, method, |r| r.total)).map(|(c, t)| 100.0 * c / t);
                if let Some(v) = share.filter(|v| *v > 0.0) {
                    series.entry(format!("{method}, {} gen.", at.generations)).or_default().push((at.ell as f64, v));
                }
            }
        }
        if series.is_empty() {
            return Ok(String::new());
        }
        let stated = self.stated();
        let hlines = [(stated.share_largest, "larger problems"), (stated.share, "smaller problems")]
            .into_iter()
            .map(|(share, which)| {
                let s = 100.0 * share;
                (format!("paper: construction > {s:.0}% of gBOA's run, {which} (Figure 7)"), s)
            })
            .collect();
        let title = "Figure 7: network construction's share of the run";
        let chart =
            LineChart { hlines, ..LineChart::new(title, ("problem size ℓ", "network construction (% of the run)"), series, m.label()) };
        Ok(format!("\n{}\n", chart::figure(dir, &m.hw_id, "fig7", "Figure 7", &chart)?))
    }
}

/// Table I's points inside (`inside`) or outside the range judged: each method's
/// total, the speedups of gBOA (both kernels) over the CPU constructions for the
/// whole run and for network construction only, and sBOA / pBOA against the ratio
/// the paper's two speedups imply.
fn table1(m: &MachineRecords, a: &Analysis, dir: &Path, range: &Judged, implied: f64, inside: bool) -> Result<Part> {
    let points: Vec<Point> = a.table1.keys().copied().filter(|at| range.contains(at) == inside).collect();
    if points.is_empty() {
        return Ok(Part::NotRun(
            if inside { "no Table I runs in the range judged" } else { "no Table I runs outside the range judged" }.into(),
        ));
    }
    let mut header = vec!["ℓ".to_owned()];
    header.extend(METHODS.iter().map(|method| format!("{method}: total (ms) / solved")));
    header.extend([
        format!("sBOA / pBOA (paper's implied {implied:.1}×)"),
        "pBOA / pBOA all cores".into(),
        "sBOA / gBOA: whole run, construction".into(),
        "pBOA / gBOA: whole run, construction".into(),
        "sBOA / gboa-paper: whole run, construction".into(),
        "pBOA / gboa-paper: whole run, construction".into(),
        "sBOA / gboa-device (goal ≥ 100×)".into(),
        "pBOA all cores / gboa-device (goal ≥ 10×)".into(),
    ]);
    let mut t = Table::new(&header);
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for &at in &points {
        let mut cells = vec![at.to_string()];
        for method in METHODS {
            cells.push(match (a.summary(at, method, |r| r.total), a.summary(at, method, |r| r.solved)) {
                (Some(t), Some(q)) => {
                    series.entry(format!("{method}, {} gen.", at.generations)).or_default().push((at.ell as f64, t.mean));
                    format!("{:.1} ± {:.1} (n = {}) / {:.0}%", t.mean, t.sd, t.n, 100.0 * q.mean)
                }
                _ => format!("not run here ({})", a.reason(method)),
            });
        }
        let total = |method: &str| a.mean(at, method, |r| r.total);
        let built = |method: &str| a.mean(at, method, |r| r.construction);
        let both =
            |base: &str, gpu: &str| format!("{}, {}", fmt::quotient(total(base), total(gpu), 2), fmt::quotient(built(base), built(gpu), 2));
        cells.push(fmt::quotient(total(SBOA), total(PBOA), 2));
        cells.push(fmt::quotient(total(PBOA), total(PBOA_MT), 2));
        cells.push(both(SBOA, GBOA));
        cells.push(both(PBOA, GBOA));
        cells.push(both(SBOA, GBOA_PAPER));
        cells.push(both(PBOA, GBOA_PAPER));
        cells.push(fmt::quotient(total(SBOA), total(GBOA_DEVICE), 2));
        cells.push(fmt::quotient(total(PBOA_MT), total(GBOA_DEVICE), 2));
        t.row(cells);
    }
    let name = if inside { "table1" } else { "table1_beyond" };
    let title = if inside { "Table I: total time per run" } else { "Table I beyond the paper: total time per run" };
    let chart = LineChart::new(title, ("problem size ℓ", "time (ms)"), series, m.label());
    Ok(format!("{}\n{}", t.render(), chart::figure(dir, &m.hw_id, name, "Table I", &chart)?).into())
}

fn fig7(a: &Analysis) -> String {
    let mut t = Table::new(&["ℓ", "method", "network construction", "selection", "sampling", "evaluation", "replacement"]);
    for &at in a.table1.keys() {
        for method in METHODS {
            let Some(total) = a.mean(at, method, |r| r.total) else { continue };
            let share =
                |pick: fn(&RunTimes) -> f64| a.mean(at, method, pick).map_or("—".into(), |v| format!("{:.0}%", 100.0 * v / total));
            t.row(vec![
                at.to_string(),
                method.into(),
                share(|r| r.construction),
                share(|r| r.selection),
                share(|r| r.sampling),
                share(|r| r.evaluation),
                share(|r| r.replacement),
            ]);
        }
    }
    if t.is_empty() {
        "No Table I runs in this machine's profiles.".into()
    } else {
        t.render() + "\nRows recorded before evaluation was timed apart show 0% evaluation: their replacement includes it.\n"
    }
}

/// Picks one phase's time from a run.
type Pick = fn(&RunTimes) -> f64;

/// The speed goals are benchmarks of the `speed` profile: its runs
/// where this machine has device runs in it, else the latest profile's.
fn speed_device_run(m: &MachineRecords, latest: &Analysis) -> Part {
    let keep = |r: &&crate::records::Record| r.str(col::RECORD_KIND) != "measurement" || r.str(col::PROFILE) == SPEED_PROFILE;
    let speed = MachineRecords { hw_id: m.hw_id.clone(), rows: m.rows.iter().filter(keep).cloned().collect() };
    let a = Analysis::of(&speed);
    let has_device = |a: &Analysis| a.table1.values().any(|methods| methods.contains_key(GBOA_DEVICE));
    if has_device(&a) {
        Part::Shown(format!("Whole runs of the `{SPEED_PROFILE}` profile:\n\n{}", device_run(&speed, &a)))
    } else if has_device(latest) {
        Part::Shown(device_run(m, latest))
    } else {
        Part::NotRun(format!("no gboa-device runs ({})", latest.reason(GBOA_DEVICE)))
    }
}

/// `gboa-device`'s whole run against the paper's methods, and each of its phases
/// against the ceiling that bounds it.
fn device_run(m: &MachineRecords, a: &Analysis) -> String {
    let mut t = Table::new(&[
        "ℓ",
        "gboa-device (ms)",
        "sBOA / gboa-device (goal ≥ 100×)",
        "pBOA all cores / gboa-device (goal ≥ 10×)",
        "gboa (paper's split) / gboa-device",
        "solved",
    ]);
    let mut phases = Table::new(&["ℓ", "phase", "time (ms)", "share", "least work", "rate", "of the ceiling"]);
    for &at in a.table1.keys() {
        let mean = |method: &str, pick: fn(&RunTimes) -> f64| a.mean(at, method, pick).filter(|v| v.is_finite());
        let Some(total) = mean(GBOA_DEVICE, |r| r.total) else { continue };
        let total_of = |method: &str| mean(method, |r| r.total);
        t.row(vec![
            at.to_string(),
            format!("{total:.1}"),
            fmt::quotient(total_of(SBOA), Some(total), 2) + &run_ratios(&a.paired_ratios(at, SBOA, GBOA_DEVICE), Some(100.0)),
            fmt::quotient(total_of(PBOA_MT), Some(total), 2) + &run_ratios(&a.paired_ratios(at, PBOA_MT, GBOA_DEVICE), Some(10.0)),
            fmt::quotient(total_of(GBOA), Some(total), 2),
            mean(GBOA_DEVICE, |r| r.solved).map_or("—".into(), |q| format!("{:.0}%", 100.0 * q)),
        ]);
        let profile = a.profiles.get(&at);
        let ceiling = |name: &str| profile.and_then(|p| m.ceiling_of_profile(name, p));
        let (Some(n), Some(s)) = (mean(GBOA_DEVICE, |r| r.n), mean(GBOA_DEVICE, |r| r.selected)) else { continue };
        let (g, ell, off) = (at.generations as f64, at.ell as f64, n - s);
        // The least bytes each phase reads plus writes per generation (kernels/boa.cu).
        let bytes: [(&str, Pick, f64); 4] = [
            ("selection", |r| r.selection, 8.0 * n + s * ell + s * ell / 8.0),
            ("sampling", |r| r.sampling, off * ell),
            ("evaluation", |r| r.evaluation, off * ell + 4.0 * off),
            ("replacement", |r| r.replacement, 2.0 * (off * ell + 4.0 * off)),
        ];
        let share = |ms: f64| format!("{:.0}%", 100.0 * ms / total);
        for (phase, pick, per_generation) in bytes {
            let Some(ms) = mean(GBOA_DEVICE, pick) else { continue };
            let gbs = g * per_generation / (ms * 1e-3) / 1e9;
            phases.row(vec![
                at.to_string(),
                phase.into(),
                format!("{ms:.2}"),
                share(ms),
                format!("{:.2e} B", g * per_generation),
                format!("{gbs:.2} GB/s"),
                ceiling("gpu_d2d")
                    .map_or("— (no ceiling recorded)".into(), |c| format!("{} of {c:.0} GB/s device copy", crate::fmt::share(gbs, c, 2))),
            ]);
        }
        if let (Some(ms), Some(alleles)) = (mean(GBOA_DEVICE, |r| r.construction), mean(GBOA_DEVICE, |r| r.alleles)) {
            let rate = alleles / (ms * 1e-3);
            phases.row(vec![
                at.to_string(),
                "network construction".into(),
                format!("{ms:.2}"),
                share(ms),
                format!("{alleles:.2e} alleles"),
                format!("{rate:.2e} alleles/s"),
                ceiling("gpu_int32").map_or("— (no ceiling recorded)".into(), |c| {
                    format!("{} of {c:.0}·10⁹ int32/s", crate::fmt::share(rate, c * 1e9, 1))
                }),
            ]);
        }
        // The statistics after each generation (it reads every allele and fitness),
        // then the host's setup and the rest of the whole run outside the events.
        let Some(statistics) = mean(GBOA_DEVICE, |r| r.statistics) else { continue };
        let gbs = g * (n * ell + 4.0 * n) / (statistics * 1e-3) / 1e9;
        phases.row(vec![
            at.to_string(),
            "statistics".into(),
            format!("{statistics:.2}"),
            share(statistics),
            format!("{:.2e} B", g * (n * ell + 4.0 * n)),
            format!("{gbs:.2} GB/s"),
            ceiling("gpu_d2d")
                .map_or("— (no ceiling recorded)".into(), |c| format!("{} of {c:.0} GB/s device copy", crate::fmt::share(gbs, c, 2))),
        ]);
        let picks: [Pick; 5] = [|r| r.selection, |r| r.construction, |r| r.sampling, |r| r.evaluation, |r| r.replacement];
        let (Some(setup), Some(inside)) =
            (mean(GBOA_DEVICE, |r| r.setup), picks.iter().map(|&p| mean(GBOA_DEVICE, p)).sum::<Option<f64>>())
        else {
            continue;
        };
        for (what, ms) in [("host setup", setup), ("rest outside the events", total - inside - statistics - setup)] {
            phases.row(vec![at.to_string(), what.into(), format!("{ms:.2}"), share(ms), "—".into(), "—".into(), "—".into()]);
        }
    }
    if t.is_empty() {
        return format!("No gboa-device runs on this machine ({}).", a.reason(GBOA_DEVICE));
    }
    let mut md = t.render();
    if !phases.is_empty() {
        md += "\nPer phase, summed over the run's generations (mean over runs): the least work the phase does and its rate \
               against the ceiling measured in the same profile's runs. Phases far below the copy bandwidth move too few \
               bytes per launch to be bandwidth-bound: a generation's launches and their latency set their time. Where \
               the records have them: each generation's statistics (best, mean, convergence test), the host's setup \
               before the first launch, and the rest of the whole run (the host's teardown and the time between the \
               events).\n\n";
        md += &phases.render();
    }
    md
}

/// gBOA's network construction (mean per run) against single-threaded sBOA and
/// pBOA on all cores, at each Table I size (the goals at ℓ = 190), and the paper's
/// kernel (`gboa-paper`) against this harness's on the same GPU.
fn construction_speed(m: &MachineRecords, a: &Analysis) -> Part {
    let mut t = Table::new(&[
        "ℓ",
        "sBOA (ms)",
        "pBOA (ms)",
        "pBOA all cores (ms)",
        "gBOA (ms)",
        "of which device calls (ms)",
        "of which kernel (ms)",
        "gBOA vs sBOA (goal ≥ 100×)",
        "gBOA vs pBOA all cores (goal ≥ 10×)",
        "gboa-paper (ms)",
        "of which kernel (ms)",
        "design: gboa-paper / gboa, construction",
        "design: gboa-paper / gboa, kernel",
    ]);
    let mut rates = Table::new(&["ℓ", "alleles read per run", "kernel time (ms)", "alleles per second", "÷ int32 instructions per second"]);
    for &at in a.table1.keys() {
        let ceiling = a.profiles.get(&at).and_then(|p| m.ceiling_of_profile("gpu_int32", p));
        let c = |method: &str| a.mean(at, method, |r| r.construction);
        let Some(g) = c(GBOA) else { continue };
        let ms = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.0}"));
        let times = |v: Option<f64>| v.map_or("—".into(), |v| format!("{:.1}×", v / g));
        let device = |pick: fn(&RunTimes) -> f64| a.mean(at, GBOA, pick).filter(|v| v.is_finite());
        let (calls, kernel) = (device(|r| r.device_calls), device(|r| r.kernel));
        let paper_kernel = a.mean(at, GBOA_PAPER, |r| r.kernel).filter(|v| v.is_finite());
        t.row(vec![
            at.to_string(),
            ms(c(SBOA)),
            ms(c(PBOA)),
            ms(c(PBOA_MT)),
            format!("{g:.0}"),
            fmt::opt(calls, 1),
            fmt::opt(kernel, 1),
            times(c(SBOA)),
            times(c(PBOA_MT)),
            fmt::opt(c(GBOA_PAPER), 1),
            fmt::opt(paper_kernel, 1),
            fmt::quotient(c(GBOA_PAPER), Some(g), 2),
            fmt::quotient(paper_kernel, kernel, 2),
        ]);
        if let (Some(alleles), Some(kernel)) = (device(|r| r.alleles), kernel) {
            let rate = alleles / (kernel * 1e-3);
            rates.row(vec![
                at.to_string(),
                format!("{alleles:.2e}"),
                format!("{kernel:.1}"),
                format!("{rate:.2e}"),
                ceiling.map_or("— (no ceiling recorded)".into(), |c| crate::fmt::share(rate, c * 1e9, 1)),
            ]);
        }
    }
    if t.is_empty() {
        return Part::NotRun(format!("no gBOA runs ({})", a.reason(GBOA)));
    }
    let mut md = t.render();
    if !rates.is_empty() {
        md += "\nThe network kernel's counting against the int32 instruction rate measured in the same run: alleles read \
               (Σ family size × N over the scored families) per second of kernel time. Each 64 alleles cost one AND (or \
               AND-NOT) per schema and a population count, so the ratio is a rate, not a utilisation.\n\n";
        md += &rates.render();
    }
    Part::Shown(md)
}

/// Points (x, time) per method, for one chart.
type Series<'a> = BTreeMap<&'a str, Vec<(f64, f64)>>;

fn complexity(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<Part> {
    if a.complexity.is_empty() {
        return Ok(Part::NotRun("no complexity cases in this machine's profiles".into()));
    }
    let mut t =
        Table::new(&["axis", "value", "sBOA (ms)", "pBOA (ms)", "pBOA all cores (ms)", "gBOA kernel (ms)", "gboa-paper kernel (ms)"]);
    let mut charts: BTreeMap<String, Series> = BTreeMap::new();
    for ((axis, v), methods) in &a.complexity {
        let med = |method: &str| methods.get(method).map(|x| stats::median(x));
        let kernel = |method: &str| a.complexity_kernel.get(&(axis.clone(), *v)).and_then(|m| m.get(method)).map(|x| stats::median(x));
        t.row(vec![
            if axis == "ell" { "ℓ (N fixed)".into() } else { "N (ℓ fixed)".into() },
            v.to_string(),
            fmt::opt(med(SBOA), 1),
            fmt::opt(med(PBOA), 1),
            fmt::opt(med(PBOA_MT), 1),
            kernel(GBOA).map_or("—".into(), |v| format!("{v:.3}")),
            kernel(GBOA_PAPER).map_or("—".into(), |v| format!("{v:.3}")),
        ]);
        for (method, y) in [GBOA, GBOA_PAPER].map(|method| (method, kernel(method))) {
            if let Some(y) = y {
                charts.entry(axis.clone()).or_default().entry(method).or_default().push((*v as f64, y));
            }
        }
        for method in [SBOA, PBOA, PBOA_MT] {
            if let Some(y) = med(method) {
                charts.entry(axis.clone()).or_default().entry(method).or_default().push((*v as f64, y));
            }
        }
    }
    let mut md = t.render();
    let name = |axis: &str| if axis == "ell" { "ℓ" } else { "N" };
    let mut fits: Vec<String> = ["ell", "n"]
        .iter()
        .flat_map(|axis| [SBOA, PBOA].map(|method| (axis, method)))
        .filter_map(|(axis, method)| a.exponent(axis, method).map(|e| format!("{method} ∝ {}^{:.2} ({} points)", name(axis), e.value, e.n)))
        .collect();
    fits.extend(["ell", "n"].iter().flat_map(|axis| [GBOA, GBOA_PAPER].map(|method| (axis, method))).filter_map(|(axis, method)| {
        a.kernel_exponent(axis, method).map(|e| format!("{method} kernel ∝ {}^{:.2} ({} points)", name(axis), e.value, e.n))
    }));
    let _ = writeln!(
        md,
        "\nFitted exponents (least squares in log–log; sBOA and pBOA: the construction, gBOA: the network kernel's CUDA-event \
         time, set against its own formula of Section V.A under Claims): {}.\n",
        fits.join("; ")
    );
    for (axis, series) in charts {
        let (title, x_label) = if axis == "ell" {
            ("Network construction against ℓ", "problem size ℓ")
        } else {
            ("Network construction against N", "population N")
        };
        let chart = LineChart::new(title, (x_label, "time (ms; gBOA: kernel)"), series, m.label());
        let alt = format!("complexity against {axis}");
        let _ = writeln!(md, "{}\n", chart::figure(dir, &m.hw_id, &format!("complexity_{axis}"), &alt, &chart)?);
    }
    Ok(Part::Shown(md))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ℓ = 190, 200 generations: sBOA's runs 0–2 took 5,000, 4,500 and 5,200 ms, pBOA on
    /// all cores' 1,000 ms each, the device's 50 ms each; the device also ran a run 3 that
    /// no CPU method ran.
    fn device_table() -> String {
        let mut a = Analysis::default();
        let at = Point { ell: 190, generations: 200 };
        let run = |run: usize, total: f64| RunTimes { run, total, solved: 1.0, ..RunTimes::default() };
        let m = a.table1.entry(at).or_default();
        m.insert(SBOA.into(), vec![run(0, 5000.0), run(1, 4500.0), run(2, 5200.0)]);
        m.insert(PBOA_MT.into(), vec![run(0, 1000.0), run(1, 1000.0), run(2, 1000.0)]);
        m.insert(GBOA_DEVICE.into(), vec![run(2, 50.0), run(1, 50.0), run(0, 50.0), run(3, 50.0)]);
        device_run(&MachineRecords { hw_id: "m".into(), rows: vec![] }, &a)
    }

    #[test]
    fn the_device_table_shows_each_runs_ratio_against_its_goal() {
        let text = device_table();
        // Means 4,900 / 50; the runs pair by index: 100×, 90×, 104×; run 3 has no partner.
        assert!(text.contains("| 98.00× (runs 90.0–104.0×, n = 3; 2 of 3 at or above 100×) |"), "{text}");
        assert!(text.contains("| 20.00× (runs 20.0–20.0×, n = 3; 3 of 3 at or above 10×) |"), "{text}");
    }

    #[test]
    fn the_device_phases_show_the_statistics_the_setup_and_the_rest() {
        let mut a = Analysis::default();
        let at = Point { ell: 190, generations: 200 };
        let run = RunTimes {
            total: 50.0,
            n: 100.0,
            selected: 50.0,
            selection: 1.0,
            construction: 2.0,
            sampling: 3.0,
            evaluation: 4.0,
            replacement: 5.0,
            statistics: 6.0,
            setup: 7.0,
            ..RunTimes::default()
        };
        a.table1.entry(at).or_default().insert(GBOA_DEVICE.into(), vec![run, run]);
        let text = device_run(&MachineRecords { hw_id: "m".into(), rows: vec![] }, &a);
        // 200 generations of 100 × 190 alleles and 100 fitness values read.
        assert!(text.contains("| 190 (200 gen.) | statistics | 6.00 | 12% | 3.88e6 B |"), "{text}");
        assert!(text.contains("| 190 (200 gen.) | host setup | 7.00 | 14% |"), "{text}");
        // 50 ms less 15 ms of phases, 6 of statistics and 7 of setup.
        assert!(text.contains("| 190 (200 gen.) | rest outside the events | 22.00 | 44% |"), "{text}");
        // Rows recorded before the statistics were timed show neither.
        a.table1.get_mut(&at).unwrap().insert(GBOA_DEVICE.into(), vec![RunTimes { statistics: f64::NAN, setup: f64::NAN, ..run }]);
        let text = device_run(&MachineRecords { hw_id: "m".into(), rows: vec![] }, &a);
        assert!(!text.contains("statistics |") && !text.contains("host setup"), "{text}");
    }
}
