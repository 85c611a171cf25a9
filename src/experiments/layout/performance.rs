//! The kernels against the ceilings measured in the same run (beyond the paper).

use super::analysis::Analysis;
use super::spec::{Size, fmt_size};
use crate::library::nonseparable::Function;
use crate::records::MachineRecords;
use crate::report::Table;
use std::fmt::Write;

/// Kernel, end-to-end and sequential CPU rates against the ceilings measured in
/// the same run, for each profile with sizes of ≥ 16 M coordinates.
pub(super) fn performance(m: &MachineRecords, analyses: &[&Analysis]) -> String {
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
