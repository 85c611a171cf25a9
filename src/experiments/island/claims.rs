//! The island paper's claims (Section VI): one check per claim, its parameters
//! typed and validated when the spec loads, each judged on the paper's own
//! range and settings; what the records hold beyond them goes to the report's
//! *Beyond the paper* section.

use super::analysis::{Analysis, Run};
use super::{CPU_1T, CPU_MT, CUDA, CUDA_RING, CUDA_SPLIT};
use crate::check;
use crate::claims::judge::{self, fmt_mean, fmt_num, fmt_ratio, fmt_sig};
use crate::claims::{Band, Check, Comparison, Ctx, Estimate, Model, Outcome, Params, Verdict};
use serde::Deserialize;
use std::collections::BTreeMap;

pub(super) const CHECKS: &[Check<Analysis>] = &[
    check!("more_islands_better", more_islands_better),
    check!("islands_add_no_time", islands_add_no_time),
    check!("saturation_knee", saturation_knee),
    check!("migration_negligible", migration_negligible),
    check!("threads_scale", threads_scale),
    check!("gpu_speedup", gpu_speedup),
    check!("island_steps_significant", island_steps_significant),
    check!("gpu_over_all_cores", gpu_over_all_cores),
    check!("sustained_rate", sustained_rate),
];

type Invalid = Result<(), (String, String)>;

/// (island size, value) pairs.
type BySize = Vec<(usize, f64)>;

fn ratio_band(band: &Band) -> Invalid {
    band.check_ratio("band")
}

fn at_least(key: &str, value: usize, min: usize, why: &str) -> Invalid {
    if value < min { Err((key.into(), format!("{why}: at least {min}, not {value}"))) } else { Ok(()) }
}

fn inside(b: &Band, x: usize) -> bool {
    b.contains(x as f64)
}

/// "1 island", "14 islands".
fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

fn pct(share: f64) -> String {
    format!("{:.2}%", 100.0 * share)
}

/// Figure 4: more islands and larger islands give better fitness.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoreIslandsBetter {
    /// The paper's island counts and island sizes.
    islands: Band,
    sizes: Band,
    min_n: usize,
}

impl Params for MoreIslandsBetter {
    fn validate(&self) -> Invalid {
        at_least("min_n", self.min_n, 2, "a comparison needs the spread of repeated runs")
    }
}

/// The fewest and most islands, and the smallest and largest islands, of the
/// paper's range in the grid: each larger one against the smaller by the Welch
/// interval of the best fitness; every pair must be better (a tie is not).
fn more_islands_better(p: &MoreIslandsBetter, a: &Analysis, _: &Ctx) -> Outcome {
    if a.grid.is_empty() {
        return Outcome::not_run("no grid runs in these records");
    }
    let islands: Vec<usize> = a.grid_islands().into_iter().filter(|&i| inside(&p.islands, i)).collect();
    let sizes: Vec<usize> = a.grid_sizes().into_iter().filter(|&n| inside(&p.sizes, n)).collect();
    let outside: Vec<String> = a
        .grid
        .keys()
        .filter(|&&(i, n)| !inside(&p.islands, i) || !inside(&p.sizes, n))
        .map(|&(i, n)| format!("{i} × {n}: best {}", fmt_mean(&a.grid_values(i, n, |r| r.best))))
        .collect();
    let beyond = if outside.is_empty() {
        String::new()
    } else {
        format!("outside the paper's {} islands of {}: {}", p.islands, p.sizes, outside.join(", "))
    };
    let (Some(&i0), Some(&i1), Some(&n0), Some(&n1)) = (islands.first(), islands.last(), sizes.first(), sizes.last()) else {
        return Outcome::not_run("no grid runs in the paper's range").with_beyond(beyond);
    };
    if i0 == i1 || n0 == n1 {
        return Outcome::not_run("needs two island counts and two island sizes in the paper's range").with_beyond(beyond);
    }
    let best = |i, n| a.grid_values(i, n, |r| r.best);
    let mut pairs: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    pairs.extend(sizes.iter().map(|&n| (format!("{i0} → {i1} islands of {n}"), best(i0, n), best(i1, n))));
    pairs.extend(islands.iter().map(|&i| (format!("{} of {n0} → {n1}", plural(i, "island")), best(i, n0), best(i, n1))));
    let n = pairs.iter().flat_map(|(_, x, y)| [x.len(), y.len()]).min().unwrap_or(0);
    let mut all_better = true;
    let lines: Vec<String> = pairs
        .iter()
        .map(|(what, lo, hi)| {
            let c = judge::compare(hi, lo);
            all_better &= c == Some(Comparison::Greater);
            let word = match c {
                Some(Comparison::Greater) => "better",
                Some(Comparison::Tie) => "tie",
                Some(Comparison::Less) => "worse",
                None => "spread unknown",
            };
            format!("{what}: {} → {} ({word})", fmt_mean(lo), fmt_mean(hi))
        })
        .collect();
    let evidence = format!("best fitness, mean ± 95% CI; Welch 95% interval of the difference: {}", lines.join("; "));
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond);
    }
    Outcome::new(Verdict::of(all_better), evidence).with_beyond(beyond)
}

/// Figure 5: islands add almost no time, each island on its own GPU.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IslandsAddNoTime {
    /// Band on the time per generation of G GPUs × k islands over k islands on one GPU (the paper: 1).
    band: Band,
    sizes: Band,
}

impl Params for IslandsAddNoTime {
    fn validate(&self) -> Invalid {
        ratio_band(&self.band)
    }
}

/// The ring over G GPUs with k islands on each against one GPU holding k
/// islands alone (the same islands per GPU): the worst ratio of their times per
/// generation must lie in the band. All islands sharing one GPU is another
/// setting: it goes beyond the paper.
fn islands_add_no_time(p: &IslandsAddNoTime, a: &Analysis, ctx: &Ctx) -> Outcome {
    let one = a.one_gpu();
    let beyond = shared_device_scaling(a, &one);
    let pairs: Vec<(&Run, usize, f64)> = a
        .rings()
        .filter(|r| inside(&p.sizes, r.size))
        .filter_map(|r| {
            let k = r.islands_per_gpu()?;
            Some((r, k, r.ms_per_generation() / one.get(&(k, r.size))?))
        })
        .collect();
    let Some(worst) = pairs.iter().map(|x| x.2).max_by(f64::total_cmp) else {
        let why = if a.rings().next().is_some() {
            "no ring's islands per GPU also ran alone on one GPU".to_owned()
        } else {
            a.reason(CUDA_RING)
                .or(a.reason(CUDA))
                .unwrap_or(
                    "no runs with the islands on separate GPUs: the ring over several GPUs (profile gpu-multi) did not run on this machine",
                )
                .to_owned()
        };
        return Outcome::not_run(why).with_beyond(beyond);
    };
    let what = "time per generation of G GPUs × k islands over one GPU with k islands (worst pair)";
    let mut o = judge::ratio(what, Estimate::exact(worst), 1.0, &p.band, None, &[], ctx);
    let each: Vec<String> =
        pairs.iter().map(|(r, k, x)| format!("{} GPUs × {k} of {}: {}", r.gpus.unwrap_or(r.split.len()), r.size, fmt_ratio(*x))).collect();
    let mut ks: Vec<usize> = pairs.iter().map(|x| x.1).collect();
    ks.dedup();
    let ks: Vec<String> = ks.iter().map(usize::to_string).collect();
    o.evidence += &format!("; {} (n = 1 run each; {} islands per GPU, the paper: 1)", each.join(", "), ks.join(", "));
    o.with_beyond(beyond)
}

/// How the time per generation grows with the islands when they all share one
/// device (one GPU, else the CPU's threads): the setting the paper did not use.
fn shared_device_scaling(a: &Analysis, one_gpu: &BTreeMap<(usize, usize), f64>) -> String {
    let (times, device) = if one_gpu.is_empty() {
        let cpu: BTreeMap<(usize, usize), f64> = a.grid.keys().filter_map(|&(i, n)| Some(((i, n), a.grid_per_generation(i, n)?))).collect();
        (cpu, format!("the CPU's {} threads", a.grid.values().flatten().find_map(|r| r.threads).map_or("—".into(), |t| t.to_string())))
    } else {
        (one_gpu.clone(), "one GPU".to_owned())
    };
    let mut sizes: Vec<usize> = times.keys().map(|k| k.1).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let parts: Vec<String> = sizes
        .iter()
        .filter_map(|&n| {
            let of_size: Vec<(usize, f64)> = times.iter().filter(|(k, _)| k.1 == n).map(|(k, &ms)| (k.0, ms)).collect();
            let (&(i0, t0), &(i1, t1)) = (of_size.first()?, of_size.last()?);
            (i0 != i1).then(|| format!("{i1} vs {i0} islands of {n}: {}", fmt_ratio(t1 / t0)))
        })
        .collect();
    if parts.is_empty() { String::new() } else { format!("all islands on {device}, time per generation: {}", parts.join(", ")) }
}

/// Figure 5: time stays flat until the GPU is saturated; the knee scales with the SM count.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SaturationKnee {
    /// The paper's knee in individuals on one GPU, and how it scales to this GPU.
    paper: f64,
    scales_with: Model,
    /// Times per generation within `flat` × the fastest count as flat.
    flat: f64,
    band: Band,
    sizes: Band,
    islands: Band,
}

impl Params for SaturationKnee {
    fn validate(&self) -> Invalid {
        if self.paper <= 0.0 {
            return Err(("paper".into(), format!("a knee must be positive, not {}", self.paper)));
        }
        if self.flat <= 1.0 {
            return Err(("flat".into(), format!("must be above 1, not {}", self.flat)));
        }
        ratio_band(&self.band)
    }
}

/// The knee lies between the largest population on one GPU whose time is still
/// flat and the smallest whose time is not; judged only when that bracket lies
/// wholly inside the band around the scaled prediction, or wholly outside it.
fn saturation_knee(p: &SaturationKnee, a: &Analysis, ctx: &Ctx) -> Outcome {
    let points: Vec<(usize, f64)> = a
        .one_gpu()
        .into_iter()
        .filter(|&((i, n), _)| inside(&p.islands, i) && inside(&p.sizes, n))
        .map(|((i, n), ms)| (i * n, ms))
        .collect();
    let Some(floor) = points.iter().map(|x| x.1).min_by(f64::total_cmp) else {
        return Outcome::not_run(a.gpu_reason("no runs on a GPU in these records"));
    };
    let (scale, factors) = match p.scales_with.predict_machine(ctx.machine, ctx.paper) {
        Ok(x) => x,
        Err(why) => return Outcome::not_run(why),
    };
    let predicted = p.paper * scale;
    let rise = points.iter().filter(|x| x.1 > p.flat * floor).map(|x| x.0).min();
    let flat = points.iter().filter(|x| x.1 <= p.flat * floor && rise.is_none_or(|r| x.0 < r)).map(|x| x.0).max();
    let (low, high) = (p.band.low * predicted, p.band.high * predicted);
    let rule: Vec<String> = factors
        .iter()
        .map(|f| {
            let power = if f.exponent == 1.0 { String::new() } else { format!(" to the power {}", fmt_num(f.exponent)) };
            format!("({} {} here / {}: {}){power}", f.quantity.label(), fmt_num(f.here), fmt_num(f.paper), f.source)
        })
        .collect();
    let evidence = format!(
        "time per generation within {}× of its fastest ({} ms) up to {} individuals on the GPU, above from {}; predicted knee {} = the paper's {} × {}",
        fmt_num(p.flat),
        fmt_sig(floor),
        flat.map_or("none measured".into(), |x| x.to_string()),
        rise.map_or("none measured".into(), |x| x.to_string()),
        fmt_num(predicted.round()),
        fmt_num(p.paper),
        rule.join(" × ")
    );
    let (lo, hi) = (flat.map_or(0.0, |x| x as f64), rise.map_or(f64::INFINITY, |x| x as f64));
    let decided = (lo >= low && hi <= high) || hi < low || lo > high;
    if !decided {
        let why = format!(
            "the sizes measured place the knee between {} and {} individuals, across an edge of the band {}–{}",
            fmt_num(lo),
            fmt_num(hi),
            fmt_num(low.round()),
            fmt_num(high.round())
        );
        return Outcome::new(Verdict::NotRun(crate::claims::NotRun::Here(why)), evidence);
    }
    // The bracket's geometric mean; one end where the other is open.
    let knee = if lo > 0.0 && hi.is_finite() {
        (lo * hi).sqrt().round()
    } else if hi.is_finite() {
        hi
    } else {
        lo
    };
    let mut o = judge::ratio(
        "knee, individuals on the GPU (geometric mean of the bracket)",
        Estimate::exact(knee),
        predicted,
        &p.band,
        None,
        &[],
        ctx,
    );
    o.evidence = format!("{}; {evidence}", o.evidence);
    o
}

/// Figure 6: migration's share of the time is negligible at 2048 per island.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MigrationNegligible {
    max_share: f64,
    /// The island size of Figure 6.
    size: usize,
    min_n: usize,
}

impl Params for MigrationNegligible {
    fn validate(&self) -> Invalid {
        if !(self.max_share > 0.0 && self.max_share < 1.0) {
            return Err(("max_share".into(), format!("a share must be in (0, 1), not {}", self.max_share)));
        }
        at_least("min_n", self.min_n, 1, "runs")
    }
}

/// Migration shares of one island count: one per run, and the ring's split.
#[derive(Default)]
struct Shares {
    values: Vec<f64>,
    split: String,
}

impl Shares {
    fn mean(&self) -> f64 {
        self.values.iter().sum::<f64>() / self.values.len() as f64
    }
}

/// The runs of more than one island of `size`, by island count.
fn shares_of<'a>(runs: impl Iterator<Item = &'a Run>, size: usize) -> BTreeMap<usize, Shares> {
    let mut by: BTreeMap<usize, Shares> = BTreeMap::new();
    for r in runs.filter(|r| r.size == size && r.islands > 1) {
        let e = by.entry(r.islands).or_default();
        e.values.push(r.migration_share());
        e.split = r.split.iter().map(usize::to_string).collect::<Vec<_>>().join("+");
    }
    by
}

fn list_shares(by: &BTreeMap<usize, Shares>) -> String {
    let each: Vec<String> = by
        .iter()
        .map(|(i, s)| {
            if s.split.is_empty() {
                format!("{i} islands: {}", pct(s.mean()))
            } else {
                format!("{i} islands ({}): {}", s.split, pct(s.mean()))
            }
        })
        .collect();
    each.join(", ")
}

/// The share at `size` per island for every island count above one, on the ring
/// over several GPUs (the paper's setting: islands on separate GPUs); one GPU
/// holding every island, or the CPU's threads, go beyond the paper.
fn migration_negligible(p: &MigrationNegligible, a: &Analysis, _: &Ctx) -> Outcome {
    let (setting, shares, beyond) = if a.rings().any(|r| r.size == p.size) {
        let one = shares_of(a.ring.iter().filter(|r| r.method == CUDA), p.size);
        let beyond = if one.is_empty() { String::new() } else { format!("all islands on one GPU (same cases): {}", list_shares(&one)) };
        ("the ring over several GPUs (NCCL)", shares_of(a.rings(), p.size), beyond)
    } else if a.grid_method() == Some(CUDA) {
        // One GPU holding every island is not the paper's setting (one GPU per island, MPI between them).
        let one = shares_of(a.grid.values().flatten(), p.size);
        let beyond =
            if one.is_empty() { String::new() } else { format!("all islands on one GPU, {} per island: {}", p.size, list_shares(&one)) };
        return Outcome::not_run("no runs with the islands on separate GPUs (the ring over several GPUs, profile gpu-multi)")
            .with_beyond(beyond);
    } else {
        let cpu: Vec<f64> = a.grid.values().flatten().filter(|r| r.method == CPU_MT && r.islands > 1).map(Run::migration_share).collect();
        let range = cpu.iter().copied().min_by(f64::total_cmp).zip(cpu.iter().copied().max_by(f64::total_cmp));
        let beyond = range
            .map_or(String::new(), |(lo, hi)| format!("all islands on the CPU's threads (sizes of the grid): {}–{}", pct(lo), pct(hi)));
        return Outcome::not_run(a.gpu_reason("no GPU runs in these records")).with_beyond(beyond);
    };
    if shares.is_empty() {
        return Outcome::not_run(format!("no runs of more than one island of {}", p.size)).with_beyond(beyond);
    }
    let n = shares.values().map(|s| s.values.len()).min().unwrap_or(0);
    let worst = shares.values().map(Shares::mean).fold(0.0, f64::max);
    let evidence = format!(
        "{setting}, {} per island: {} (n = {n} each; want ≤ {}, worst {})",
        p.size,
        list_shares(&shares),
        pct(p.max_share),
        pct(worst)
    );
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond);
    }
    Outcome::new(Verdict::of(worst <= p.max_share), evidence).with_beyond(beyond)
}

/// Figure 7: CPU threads give speedups close to their number.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThreadsScale {
    /// The paper's speedup on its thread count (its efficiency is their ratio).
    paper_speedup: f64,
    paper_threads: usize,
    /// The thread counts and island sizes the paper measured.
    threads: Band,
    sizes: Band,
    band: Band,
}

impl Params for ThreadsScale {
    fn validate(&self) -> Invalid {
        at_least("paper_threads", self.paper_threads, 2, "threads")?;
        ratio_band(&self.band)
    }
}

/// Parallel efficiency (speedup over one thread / threads) at every island size
/// of the paper's range; the lowest is judged against the paper's.
fn threads_scale(p: &ThreadsScale, a: &Analysis, ctx: &Ctx) -> Outcome {
    let Some(threads) = a.threads else {
        return Outcome::not_run("no all-threads speed runs in these records");
    };
    let efficiency = |n: usize| Some((n, a.per_generation(n, CPU_1T)? / a.per_generation(n, CPU_MT)? / threads as f64));
    let all: BySize = a.speed_sizes().into_iter().filter_map(efficiency).collect();
    let list = |xs: &[&(usize, f64)]| -> String {
        xs.iter().map(|(n, e)| format!("{n}: {} ({:.2}× on {threads})", fmt_sig(*e), e * threads as f64)).collect::<Vec<_>>().join(", ")
    };
    if !inside(&p.threads, threads) {
        let beyond = format!("efficiency on {threads} threads: {}", list(&all.iter().collect::<Vec<_>>()));
        return Outcome::not_run(format!("all threads here are {threads}, outside the paper's {} threads", p.threads)).with_beyond(beyond);
    }
    let (ours, others): (Vec<_>, Vec<_>) = all.iter().partition(|(n, _)| inside(&p.sizes, *n));
    let beyond = if others.is_empty() { String::new() } else { format!("efficiency beyond the paper's sizes: {}", list(&others)) };
    let Some(worst) = ours.iter().map(|x| x.1).min_by(f64::total_cmp) else {
        return Outcome::not_run("no speed runs in the paper's range of sizes").with_beyond(beyond);
    };
    let paper = p.paper_speedup / p.paper_threads as f64;
    let mut o = judge::ratio("parallel efficiency, lowest over sizes", Estimate::exact(worst), paper, &p.band, None, &[], ctx);
    o.evidence += &format!("; {}", list(&ours));
    o.with_beyond(beyond)
}

/// Figure 7: one GPU's peak speedup over one CPU thread on one island.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GpuSpeedup {
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
        if self.paper <= 0.0 {
            return Err(("paper".into(), format!("a speedup must be positive, not {}", self.paper)));
        }
        ratio_band(&self.band)
    }
}

/// The peak over the paper's island sizes of one thread's time per generation
/// over the GPU's with the paper's kernels; the split kernels go beyond.
fn gpu_speedup(p: &GpuSpeedup, a: &Analysis, ctx: &Ctx) -> Outcome {
    let speedups = |method: &str| -> BySize {
        a.speed_sizes().into_iter().filter_map(|n| Some((n, a.per_generation(n, CPU_1T)? / a.per_generation(n, method)?))).collect()
    };
    let peak = |xs: &[(usize, f64)]| xs.iter().copied().max_by(|x, y| x.1.total_cmp(&y.1));
    let (ours, others): (BySize, BySize) = speedups(CUDA).into_iter().partition(|(n, _)| inside(&p.sizes, *n));
    let mut beyond = Vec::new();
    if let Some((n, s)) = peak(&speedups(CUDA_SPLIT)) {
        beyond.push(format!("split kernels (not the paper's): peak {} at {n} per island", fmt_ratio(s)));
    }
    if let Some((n, s)) = peak(&others) {
        beyond.push(format!("outside the paper's sizes: {} at {n} per island", fmt_ratio(s)));
    }
    let Some((n, s)) = peak(&ours) else {
        let otherwise =
            if a.speed.is_empty() { "no speed runs in these records" } else { "no GPU speed runs in the paper's range of sizes" };
        return Outcome::not_run(a.gpu_reason(otherwise)).with_beyond(beyond.join("; "));
    };
    let mut o =
        judge::ratio(&format!("peak speedup (at {n} per island)"), Estimate::exact(s), p.paper, &p.band, p.model.as_ref(), &[], ctx);
    let each: Vec<String> = ours.iter().map(|(n, s)| format!("{n}: {}", fmt_ratio(*s))).collect();
    o.evidence += &format!("; {}", each.join(", "));
    o.with_beyond(beyond.join("; "))
}

/// Figure 4: the steps between island counts the paper calls significant.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IslandStepsSignificant {
    /// (fewer, more) island counts.
    steps: Vec<crate::spec::Pair<usize>>,
    sizes: Band,
    min_n: usize,
}

impl Params for IslandStepsSignificant {
    fn validate(&self) -> Invalid {
        if let Some(s) = self.steps.iter().find(|s| s.0[0] >= s.0[1]) {
            return Err(("steps".into(), format!("a step goes from fewer islands to more, not {} → {}", s.0[0], s.0[1])));
        }
        if self.steps.is_empty() {
            return Err(("steps".into(), "at least one step".into()));
        }
        at_least("min_n", self.min_n, 2, "a comparison needs the spread of repeated runs")
    }
}

/// One step of Figure 4 at one island size: the Welch 95% interval of more − fewer islands' best fitness, with n.
pub(super) struct Step {
    pub fewer: usize,
    pub more: usize,
    pub size: usize,
    pub n: (usize, usize),
    /// Difference of the means and the half-width of its 95% interval (None: fewer than two runs on a side).
    pub welch: Option<(f64, f64)>,
}

impl Step {
    pub fn of(a: &Analysis, fewer: usize, more: usize, size: usize) -> Option<Step> {
        let (lo, hi) = (a.grid_values(fewer, size, |r| r.best), a.grid_values(more, size, |r| r.best));
        if lo.is_empty() || hi.is_empty() {
            return None;
        }
        Some(Step { fewer, more, size, n: (lo.len(), hi.len()), welch: crate::stats::welch(&hi, &lo) })
    }

    /// "better", "tie", "worse" or "spread unknown".
    pub fn word(&self) -> &'static str {
        match self.welch {
            Some((d, h)) if d - h > 0.0 => "better",
            Some((d, h)) if d + h < 0.0 => "worse",
            Some(_) => "tie",
            None => "spread unknown",
        }
    }

    /// "6 → 7 islands of 128: +1234 ± 567 (Welch 95%, n = 3 / 3, better)".
    pub fn describe(&self) -> String {
        let diff = self.welch.map_or("—".into(), |(d, h)| format!("{d:+.0} ± {h:.0}"));
        format!(
            "{} → {} islands of {}: {diff} (Welch 95%, n = {} / {}, {})",
            self.fewer,
            self.more,
            self.size,
            self.n.0,
            self.n.1,
            self.word()
        )
    }
}

/// Every step at every island size of the paper's range in the grid must be a gain by the Welch interval.
fn island_steps_significant(p: &IslandStepsSignificant, a: &Analysis, _: &Ctx) -> Outcome {
    if a.grid.is_empty() {
        return Outcome::not_run("no grid runs in these records");
    }
    let sizes: Vec<usize> = a.grid_sizes().into_iter().filter(|&n| inside(&p.sizes, n)).collect();
    let (mut steps, mut missing) = (Vec::new(), Vec::new());
    for s in &p.steps {
        let [fewer, more] = s.0;
        for &size in &sizes {
            match Step::of(a, fewer, more, size) {
                Some(step) => steps.push(step),
                None => missing.push(format!("{fewer} → {more} of {size}")),
            }
        }
    }
    if steps.is_empty() {
        return Outcome::not_run(format!("none of the steps in the grid's island counts ({})", missing.join(", ")));
    }
    let lines: Vec<String> = steps.iter().map(Step::describe).collect();
    let mut evidence = format!("best fitness, more − fewer islands: {}", lines.join("; "));
    if !missing.is_empty() {
        evidence += &format!("; not in the grid: {}", missing.join(", "));
    }
    let n = steps.iter().map(|s| s.n.0.min(s.n.1)).min().unwrap_or(0);
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence);
    }
    Outcome::new(Verdict::of(missing.is_empty() && steps.iter().all(|s| s.word() == "better")), evidence)
}

/// Table II: the GPUs against all CPU cores evolving the same islands.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GpuOverAllCores {
    /// The paper's configuration: `islands` GPUs, one island each, of `size`.
    islands: usize,
    size: usize,
    paper: f64,
    band: Band,
    #[serde(default)]
    model: Option<Model>,
}

impl Params for GpuOverAllCores {
    fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    fn validate(&self) -> Invalid {
        at_least("islands", self.islands, 1, "islands")?;
        if self.paper <= 0.0 {
            return Err(("paper".into(), format!("a speedup must be positive, not {}", self.paper)));
        }
        ratio_band(&self.band)
    }
}

/// All CPU threads' time per generation over the GPU's, from the same table run, where the GPUs held one island
/// each (the paper's setting); islands sharing fewer GPUs go beyond the paper.
fn gpu_over_all_cores(p: &GpuOverAllCores, a: &Analysis, ctx: &Ctx) -> Outcome {
    let (cpu, gpu) = (a.table_run(p.islands, p.size, CPU_MT), a.table_run(p.islands, p.size, CUDA));
    let Some((cpu, gpu)) = cpu.zip(gpu) else {
        let why = match cpu {
            Some(_) => a.gpu_reason("no GPU run of this table case"),
            None => format!("no table run of {} × {} (profile tables)", plural(p.islands, "island"), p.size),
        };
        return Outcome::not_run(why);
    };
    let speedup = cpu.ms_per_generation() / gpu.ms_per_generation();
    let threads = cpu.threads.map_or("—".into(), |t| t.to_string());
    let gpus = gpu.gpus.unwrap_or(1);
    let what = format!(
        "{} on {} over all {threads} CPU threads, {} per island, {} generations (ms per generation: {} / {})",
        plural(p.islands, "island"),
        plural(gpus, "GPU"),
        p.size,
        gpu.generations,
        fmt_sig(cpu.ms_per_generation()),
        fmt_sig(gpu.ms_per_generation())
    );
    if gpus < p.islands {
        let beyond = format!("{what}: {}", fmt_ratio(speedup));
        return Outcome::not_run(format!(
            "the paper's {} GPUs held one island each; here the {} islands shared {}",
            p.islands,
            p.islands,
            plural(gpus, "GPU")
        ))
        .with_beyond(beyond);
    }
    let mut o = judge::ratio(&format!("speedup of {what}"), Estimate::exact(speedup), p.paper, &p.band, p.model.as_ref(), &[], ctx);
    o.evidence += " (n = 1 run each)";
    o
}

/// Section VI: the sustained rate of counted operations against the measured peak.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SustainedRate {
    /// The paper's rate over SHOC's peak (405 GFLOPS: 26%).
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

/// A GPU run's counted operations per second and their share of the int32 ceiling its profile measured.
pub(super) fn rate_share(run: &Run, m: &crate::report::MachineRecords) -> Option<(f64, f64)> {
    let rate = run.operations_per_s()?;
    let ceiling = m.ceiling_of_profile("gpu_int32", &run.profile)? * 1e9;
    Some((rate, rate / ceiling))
}

/// A GPU run with its counted operations per second and their share of the int32 ceiling.
type Rated<'r> = (&'r Run, f64, f64);

/// The peak share over one island of the paper's sizes on one GPU (table runs, else the speed runs of the paper's
/// kernels); runs of several islands sharing the GPU go beyond the paper. The evidence names how full one island
/// leaves this GPU against the GTX 580: a warp per offspring pair, half the island bred each generation.
fn sustained_rate(p: &SustainedRate, a: &Analysis, ctx: &Ctx) -> Outcome {
    let gpu_runs = a.table.values().chain(a.speed.values()).chain(a.grid.values().flatten()).filter(|r| r.method == CUDA);
    let (mut one, mut shared): (Vec<Rated>, Vec<Rated>) = (Vec::new(), Vec::new());
    for r in gpu_runs {
        if let Some((rate, share)) = rate_share(r, ctx.machine) {
            if r.islands == 1 && inside(&p.sizes, r.size) { one.push((r, rate, share)) } else { shared.push((r, rate, share)) }
        }
    }
    fn best<'r>(xs: &[Rated<'r>]) -> Option<Rated<'r>> {
        xs.iter().copied().max_by(|x, y| x.2.total_cmp(&y.2))
    }
    let describe = |(r, rate, share): Rated| {
        format!("{} × {}: {} G operations/s, {} of the int32 ceiling", r.islands, r.size, fmt_sig(rate / 1e9), pct(share))
    };
    let beyond = best(&shared).map_or(String::new(), |x| format!("islands sharing one GPU, peak: {}", describe(x)));
    let Some(peak) = best(&one) else {
        let why = if a.table.values().chain(a.speed.values()).any(|r| r.method == CUDA) {
            "no GPU run of one island records its counted operations with an int32 ceiling (rows before operations_per_generation)"
                .to_owned()
        } else {
            a.gpu_reason("no GPU runs of one island in these records")
        };
        return Outcome::not_run(why).with_beyond(beyond);
    };
    let (run, _, share) = peak;
    let sms = crate::claims::hardware::Quantity::GpuSms.here(ctx.machine);
    let paper_sms = ctx.paper.datasheet.get(&crate::claims::hardware::Quantity::GpuSms).map(|d| d.value);
    let fill = sms.zip(paper_sms).map_or(String::new(), |(sms, paper)| {
        let warps = (run.size / 2).div_ceil(2) as f64;
        format!(
            "; one island of {} breeds {warps:.0} pairs, a warp each: {} warps per SM on this GPU's {sms:.0} SMs, {} on the paper's {paper:.0}",
            run.size,
            fmt_sig(warps / sms),
            fmt_sig(warps / paper)
        )
    });
    let mut o = judge::ratio(
        "share of the int32 ceiling, peak over one island on one GPU",
        Estimate::exact(share),
        p.paper_share,
        &p.band,
        None,
        &[],
        ctx,
    );
    o.evidence += &format!("; {} (n = 1 run){fill}", describe(peak));
    o.with_beyond(beyond)
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
