//! The speed claims: Figure 7's thread and GPU speedups over one CPU thread,
//! Tables I and II's GPUs over one core or all cores, and Section VI's sustained
//! rate against the int32 ceiling; the GPU matched points carry their occupancy
//! (Section VI's warp per individual created) against the paper's GTX 580.

use super::analysis::{Analysis, Run};
use super::claims_common::{Invalid, at_least, each_in_band, inside, pct, plural, positive, ratio_band};
use super::{CPU_1T, CPU_MT, CUDA, CUDA_SPLIT, cpu_threads};
use crate::claims::hardware::Factor;
use crate::claims::judge;
use crate::claims::{Band, Ctx, Estimate, Model, Outcome, Params, Point};
use crate::fmt::{fmt_mean, fmt_num, fmt_ratio, fmt_sig};
use crate::hardware::Quantity;
use crate::records::FingerprintRow;
use crate::records::MachineRecords;
use crate::spec::Pair;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The GTX 580's compute capability: 2.0 (Fermi GF110; CUDA C Programming Guide 4.0, Appendix F).
const PAPER_GPU_CC: f64 = 2.0;

/// Section VI: "Assuming 50% of individuals are created every generation, and a warp processes a single
/// individual": a generation's warps are half the individuals on the GPU.
const WARPS_PER_INDIVIDUAL: f64 = 0.5;

/// Resident warps an SM of compute capability `cc` holds at most (CUDA C Programming Guide, "Technical
/// specifications per compute capability"): 48 on 2.x (the GTX 580), 64 on 3.x, 5.x, 6.x, 7.0, 8.0, 9.0 and 10.0
/// (H100, H200, B200), 32 on 7.5, 48 on 8.6–8.9 and 12.0; None for a capability not listed.
pub(super) fn max_warps_per_sm(cc: f64) -> Option<f64> {
    Some(match (cc * 10.0).round() as u32 {
        20 | 21 => 48.0,
        30..=37 | 50..=53 | 60..=62 | 70 | 72 | 80 | 90 | 100 => 64.0,
        75 => 32.0,
        86..=89 | 120 => 48.0,
        _ => return None,
    })
}

/// Occupancy: a generation's warps on one GPU (`individuals` × [`WARPS_PER_INDIVIDUAL`]) per SM, at most the SM's
/// maximum, over that maximum.
pub(super) fn occupancy(individuals: f64, sms: f64, max_warps: f64) -> f64 {
    (WARPS_PER_INDIVIDUAL * individuals / sms).min(max_warps) / max_warps
}

/// The occupancy factor of a point: `here_islands` islands of `size` on one GPU here against one island of `size` on
/// the paper's GTX 580 (one island per GPU). None where this machine's SM count or compute capability is unknown.
fn occupancy_factor(here_islands: usize, size: usize, ctx: &Ctx) -> Option<Factor> {
    let sms = Quantity::GpuSms.here(ctx.machine)?;
    let max = max_warps_per_sm(gpu_cc(ctx.machine)?)?;
    let paper_sms = ctx.paper.datasheet.get(&Quantity::GpuSms)?.value;
    let paper_max = max_warps_per_sm(PAPER_GPU_CC)?;
    let (here_n, paper_n) = ((here_islands * size) as f64, size as f64);
    let per_sm = |n: f64, sms: f64| fmt_sig(WARPS_PER_INDIVIDUAL * n / sms);
    let source = format!(
        "a warp per individual created, half of each island (Section VI): {} warps per SM of {} here (at most {}), {} per SM \
         of the GTX 580's {} (at most {}, compute capability 2.0)",
        per_sm(here_n, sms),
        fmt_num(sms),
        fmt_num(max),
        per_sm(paper_n, paper_sms),
        fmt_num(paper_sms),
        fmt_num(paper_max)
    );
    Some(Factor::of_point(Quantity::Occupancy, occupancy(here_n, sms, max), occupancy(paper_n, paper_sms, paper_max), source))
}

/// This machine's GPU compute capability, from its records.
fn gpu_cc(m: &MachineRecords) -> Option<f64> {
    m.rows
        .iter()
        .find_map(|r| r.float(FingerprintRow::gpu_cc).or_else(|| r.str(FingerprintRow::gpu_cc).parse().ok()))
        .filter(|cc| *cc > 0.0)
}

/// A matched point with its occupancy factor where it can be computed (without it a model naming occupancy
/// predicts nothing at that point, and says so).
fn point(label: String, measured: Estimate, factor: Option<Factor>) -> Point {
    let p = Point::new(label, measured);
    match factor {
        Some(f) => p.with(f),
        None => p,
    }
}

/// Figure 7: CPU threads give speedups close to their number.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ThreadsScale {
    /// The paper's (threads, speedup over one thread): its parallel efficiency is their ratio.
    speedups: Vec<Pair<f64>>,
    /// The island sizes the paper measured.
    sizes: Band,
    band: Band,
}

impl Params for ThreadsScale {
    fn validate(&self) -> Invalid {
        if self.speedups.is_empty() {
            return Err(("speedups".into(), "at least one [threads, speedup]".into()));
        }
        if let Some(s) = self.speedups.iter().find(|s| !(s[0] >= 2.0 && s[0].fract() == 0.0 && s[1] > 0.0)) {
            return Err(("speedups".into(), format!("[{}, {}] is not [threads ≥ 2, positive speedup]", s[0], s[1])));
        }
        ratio_band(&self.band)
    }
}

/// Parallel efficiency on each of the paper's thread counts (one thread's mean
/// time per generation over k threads', with its interval, over k) at every
/// island size of the paper's range, against the paper's efficiency on that
/// count. Figure 7 shows both counts close to their number at every size, so
/// every point must hold ([`judge::all_of`]). A count this machine did not run
/// (fewer physical cores) makes the claim not run here, with the reason, unless
/// a measured point already decides against it; all threads (another count) go
/// beyond the paper.
pub(super) fn threads_scale(p: &ThreadsScale, a: &Analysis, _: &Ctx) -> Outcome {
    let efficiency = |method: &str, k: f64, n: usize| {
        Some(Estimate::ratio_of_means(&a.speed_times(n, CPU_1T), &a.speed_times(n, method))?.scale(1.0 / k))
    };
    let sizes: Vec<usize> = a.speed_sizes().into_iter().filter(|&n| inside(&p.sizes, n)).collect();
    let all = a.threads.map(|t| {
        let each: Vec<String> =
            a.speed_sizes().into_iter().filter_map(|n| Some(format!("{n}: {}", efficiency(CPU_MT, t as f64, n)?))).collect();
        format!("efficiency on all {t} threads: {}", each.join(", "))
    });
    let (mut findings, mut lines, mut missing, mut n) = (Vec::new(), Vec::new(), Vec::new(), usize::MAX);
    for s in &p.speedups {
        let (k, paper) = (s[0] as usize, s[1] / s[0]);
        let method = cpu_threads(k);
        let points: Vec<(String, Estimate)> =
            sizes.iter().filter_map(|&size| Some((format!("{k} threads, {size}"), efficiency(&method, k as f64, size)?))).collect();
        if points.is_empty() {
            let why = a.reason(&method).map_or_else(|| format!("{k} threads: no speed runs in these records"), str::to_owned);
            missing.push(why);
            continue;
        }
        n = n.min(points.iter().map(|x| x.1.n).min().unwrap_or(0));
        let (f, l) = each_in_band(&points, paper, &p.band);
        findings.extend(f);
        lines.push(format!("{} (the paper's {})", l.join(", "), fmt_sig(paper)));
    }
    let evidence =
        format!("parallel efficiency (speedup over one thread / threads), band {}× of the paper's: {}", p.band, lines.join("; "));
    let finding = judge::all_of(&findings);
    if !missing.is_empty() && !finding.fails() {
        let beyond: Vec<String> = [(!lines.is_empty()).then_some(evidence), all].into_iter().flatten().collect();
        return Outcome::not_run(missing.join("; ")).with_beyond(beyond.join("; "));
    }
    Outcome::decided(finding, n, evidence).with_beyond(all.unwrap_or_default())
}

/// Figure 7: one GPU's peak speedup over one CPU thread on one island.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GpuSpeedup {
    /// The peak the text states (Figure 7); the matched points are Table I's "1 GPU" row (the spec's `[table1]`).
    paper: f64,
    sizes: Band,
    band: Band,
    #[serde(default)]
    model: Option<Model>,
}

impl Params for GpuSpeedup {
    fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    fn validate(&self) -> Invalid {
        positive("paper", self.paper)?;
        ratio_band(&self.band)
    }
}

/// One island's speedup at every size of the paper's range: one thread's mean
/// time per generation over the GPU's (the paper's kernels), with its interval;
/// the peak (largest mean) is judged against the paper's peak. The matched points
/// for a hardware explanation are the sizes of Table I, each measured speedup
/// over the paper's at that size, with that size's occupancy. The split kernels
/// go beyond the paper.
pub(super) fn gpu_speedup(p: &GpuSpeedup, a: &Analysis, ctx: &Ctx) -> Outcome {
    let speedups = |method: &str| -> Vec<(usize, Estimate)> {
        a.speed_sizes()
            .into_iter()
            .filter_map(|n| Some((n, Estimate::ratio_of_means(&a.speed_times(n, CPU_1T), &a.speed_times(n, method))?)))
            .collect()
    };
    let peak = |xs: &[(usize, Estimate)]| xs.iter().copied().max_by(|x, y| x.1.value.total_cmp(&y.1.value));
    let (ours, others): (Vec<_>, Vec<_>) = speedups(CUDA).into_iter().partition(|(n, _)| inside(&p.sizes, *n));
    let mut beyond = Vec::new();
    if let Some((n, s)) = peak(&speedups(CUDA_SPLIT)) {
        beyond.push(format!("split kernels (not the paper's): peak {s} at {n} per island"));
    }
    if let Some((n, s)) = peak(&others) {
        beyond.push(format!("outside the paper's sizes: {s} at {n} per island"));
    }
    let Some((n, s)) = peak(&ours) else {
        let otherwise =
            if a.speed.is_empty() { "no speed runs in these records" } else { "no GPU speed runs in the paper's range of sizes" };
        return Outcome::not_run(a.gpu_reason(otherwise)).with_beyond(beyond.join("; "));
    };
    let table1 = |n: usize| a.stated.as_ref().and_then(|t| t.table1.at(ONE_GPU, n));
    let points: Vec<Point> = ours
        .iter()
        .filter_map(|(n, s)| {
            let p = point(format!("{n} per island"), s.scale(1.0 / table1(*n)?), occupancy_factor(1, *n, ctx));
            Some(p.in_runs(a.speed_run_ids(*n, &[CPU_1T, CUDA])))
        })
        .collect();
    let mut o = judge::ratio(&format!("peak speedup (at {n} per island)"), s, p.paper, &p.band, p.model.as_ref(), &points, ctx);
    let each: Vec<String> = ours
        .iter()
        .map(|(n, s)| format!("{n}: {s}{}", table1(*n).map_or(String::new(), |t| format!(" (Table I: {})", fmt_ratio(t)))))
        .collect();
    o.evidence += &format!("; {}", each.join(", "));
    o.with_beyond(beyond.join("; "))
}

/// Table I's row of one GPU.
const ONE_GPU: &str = "1 GPU";

/// Which CPU side a GPU ratio of Tables I and II is taken over.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
enum Cpu {
    /// Table I: one core (the single-thread implementation).
    #[serde(rename = "one core")]
    OneCore,
    /// Table II: every core (the paper: the 24 cores of both servers).
    #[serde(rename = "all cores")]
    AllCores,
}

/// Tables I and II: the GPUs against one CPU core or all of them, evolving the same islands.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GpusOverCpu {
    /// The paper's configuration: `islands` GPUs, one island each, of `size`; its value is Table I's (one core) or
    /// Table II's (all cores) row of `islands` GPUs at `size` (the spec's `[table1]`, `[table2]`).
    islands: usize,
    size: usize,
    cpu: Cpu,
    band: Band,
    #[serde(default)]
    model: Option<Model>,
}

impl Params for GpusOverCpu {
    fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    fn validate(&self) -> Invalid {
        at_least("islands", self.islands, 1, "islands")?;
        ratio_band(&self.band)
    }
}

/// The CPU's mean time per generation (one thread, or all threads) over the
/// GPU's, from the same table cases, with its interval, where the GPUs held one
/// island each (the paper's setting); islands sharing fewer GPUs go beyond the
/// paper. The matched point carries its occupancy (islands per GPU here against
/// one island per GTX 580).
pub(super) fn gpus_over_cpu(p: &GpusOverCpu, a: &Analysis, ctx: &Ctx) -> Outcome {
    let (method, table) = match p.cpu {
        Cpu::OneCore => (CPU_1T, "Table I"),
        Cpu::AllCores => (CPU_MT, "Table II"),
    };
    let config = plural(p.islands, "GPU");
    let paper = a.stated.as_ref().and_then(|t| if p.cpu == Cpu::OneCore { &t.table1 } else { &t.table2 }.at(&config, p.size));
    let Some(paper) = paper else { return Outcome::not_run(format!("{table} gives no value for {config} at {} per island", p.size)) };
    let (cpu, gpu) = (a.table_run(p.islands, p.size, method), a.table_run(p.islands, p.size, CUDA));
    let Some((cpu, gpu)) = cpu.zip(gpu) else {
        let why = match cpu {
            Some(_) => a.gpu_reason("no GPU run of this table case"),
            None => format!("no table run of {} × {} (profile tables)", plural(p.islands, "island"), p.size),
        };
        return Outcome::not_run(why);
    };
    let (cpu_ms, gpu_ms) = (a.table_times(p.islands, p.size, method), a.table_times(p.islands, p.size, CUDA));
    let Some(speedup) = Estimate::ratio_of_means(&cpu_ms, &gpu_ms) else { return Outcome::not_run("no positive times in the table runs") };
    let over = match p.cpu {
        Cpu::OneCore => "one CPU thread".to_owned(),
        Cpu::AllCores => format!("all {} CPU threads", cpu.threads.map_or("—".into(), |t| t.to_string())),
    };
    let gpus = gpu.gpus.unwrap_or(1);
    let what = format!(
        "{} on {} over {over}, {} per island, {} generations (ms per generation: {} / {})",
        plural(p.islands, "island"),
        plural(gpus, "GPU"),
        p.size,
        gpu.generations,
        fmt_mean(&cpu_ms),
        fmt_mean(&gpu_ms)
    );
    if gpus < p.islands {
        return Outcome::not_run(format!(
            "the paper's {} GPUs held one island each; here the {} islands shared {}",
            p.islands,
            p.islands,
            plural(gpus, "GPU")
        ))
        .with_beyond(format!("{what}: {speedup}"));
    }
    let label = format!("{} × {} on {}", p.islands, p.size, plural(gpus, "GPU"));
    let points = [point(label, speedup.scale(1.0 / paper), occupancy_factor(p.islands.div_ceil(gpus), p.size, ctx))
        .in_runs(a.table_run_ids(p.islands, p.size, &[method, CUDA]))];
    judge::ratio(&format!("speedup of {what}"), speedup, paper, &p.band, p.model.as_ref(), &points, ctx)
}

/// Section VI: the peak rate of counted operations one GPU reached, against the measured peak.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SustainedRate {
    /// The paper's rate over SHOC's peak (405 GFLOPS a GPU; 5.67 TFLOPS of the cluster: 26%).
    paper_share: f64,
    sizes: Band,
    band: Band,
}

impl Params for SustainedRate {
    fn validate(&self) -> Invalid {
        if !(self.paper_share > 0.0 && self.paper_share <= 1.0) {
            return Err(("paper_share".into(), format!("a share must be in (0, 1], not {}", self.paper_share)));
        }
        ratio_band(&self.band)
    }
}

/// A GPU run's counted operations per second and their share of the int32 ceiling its harness run measured.
pub(super) fn rate_share(run: &Run, m: &MachineRecords) -> Option<(f64, f64)> {
    let rate = run.operations_per_s()?;
    let ceiling = m.ceiling_of_run("gpu_int32", run.run_id)? * 1e9;
    Some((rate, rate / ceiling))
}

/// The peak configuration of one island on one GPU (the island size of the
/// paper's range whose runs reach the largest mean share of the int32 ceiling;
/// table, speed and grid runs of the paper's kernels), judged by that mean with
/// its interval over every run of that size. Runs of several islands sharing the
/// GPU go beyond the paper.
pub(super) fn sustained_rate(p: &SustainedRate, a: &Analysis, ctx: &Ctx) -> Outcome {
    let gpu_runs = a.table_runs().chain(a.speed_runs()).chain(a.grid.values().flatten()).filter(|r| r.method == CUDA);
    let mut one: BTreeMap<usize, Vec<(f64, f64)>> = BTreeMap::new();
    let mut shared: BTreeMap<(usize, usize), Vec<(f64, f64)>> = BTreeMap::new();
    for r in gpu_runs {
        if let Some(x) = rate_share(r, ctx.machine) {
            if r.islands == 1 && inside(&p.sizes, r.size) {
                one.entry(r.size).or_default().push(x);
            } else {
                shared.entry((r.islands, r.size)).or_default().push(x);
            }
        }
    }
    let estimates = |xs: &[(f64, f64)]| {
        let (rates, shares): (Vec<f64>, Vec<f64>) = xs.iter().copied().unzip();
        Estimate::mean_of(&rates).zip(Estimate::mean_of(&shares))
    };
    let describe = |what: String, xs: &[(f64, f64)]| {
        estimates(xs).map(|(rate, share)| format!("{what}: {} G operations/s, {} of the int32 ceiling", rate.scale(1e-9), pct(&share)))
    };
    let beyond = shared
        .iter()
        .max_by(|x, y| estimates(x.1).map_or(0.0, |e| e.1.value).total_cmp(&estimates(y.1).map_or(0.0, |e| e.1.value)))
        .and_then(|((i, n), xs)| describe(format!("islands sharing one GPU, peak: {i} × {n}"), xs))
        .unwrap_or_default();
    let Some((size, runs)) =
        one.iter().max_by(|x, y| estimates(x.1).map_or(0.0, |e| e.1.value).total_cmp(&estimates(y.1).map_or(0.0, |e| e.1.value)))
    else {
        let why = if a.table_runs().chain(a.speed_runs()).any(|r| r.method == CUDA) {
            "no GPU run of one island records its counted operations with an int32 ceiling (rows before operations_per_generation)"
                .to_owned()
        } else {
            a.gpu_reason("no GPU runs of one island in these records")
        };
        return Outcome::not_run(why).with_beyond(beyond);
    };
    let Some((_, share)) = estimates(runs) else { return Outcome::not_run("no runs") };
    let fill = occupancy_factor(1, *size, ctx).map_or(String::new(), |f| format!("; occupancy of one island of {size}: {f}"));
    let mut o = judge::ratio(
        &format!("share of the int32 ceiling, one island of {size} on one GPU (the peak configuration), mean over its runs"),
        share,
        p.paper_share,
        &p.band,
        None,
        &[],
        ctx,
    );
    let each: Vec<String> = one.iter().filter_map(|(n, xs)| describe(format!("1 × {n}"), xs)).collect();
    o.evidence += &format!("; {}{fill}", each.join("; "));
    o.with_beyond(beyond)
}
