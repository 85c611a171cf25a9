//! Beyond the paper: gBOA's network construction against the CPU constructions
//! (the speed goals) and `gboa-device`, every phase on the device,
//! against the paper's methods and each phase's ceiling.

use super::analysis::{Analysis, RunTimes};
use super::cases::{GBOA, GBOA_DEVICE, GBOA_PAPER, PBOA, PBOA_MT, SBOA};
use crate::experiments::{Part, SPEED_PROFILE};
use crate::fmt;
use crate::records::MachineRecords;
use crate::records::col;
use crate::report::{Table, run_ratios};
/// Picks one phase's time from a run.
type Pick = fn(&RunTimes) -> f64;

/// The speed goals are benchmarks of the `speed` profile: its runs
/// where this machine has device runs in it, else the latest profile's.
pub(super) fn speed_device_run(m: &MachineRecords, latest: &Analysis) -> Part {
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
pub(super) fn construction_speed(m: &MachineRecords, a: &Analysis) -> Part {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::gboa::analysis::Point;

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
