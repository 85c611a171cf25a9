//! The island paper's claims (Section VI): one check per claim, its parameters
//! typed and validated when the spec loads, each judged on the paper's own
//! range and settings; what the records hold beyond them goes to the report's
//! *Beyond the paper* section.
//!
//! Every check measures and hands the decision to [`judge`]'s rules: times are
//! means over runs with their 95% intervals (a ratio of two methods' times by
//! [`Estimate::ratio_of_means`]), fitness comparisons are Welch's interval
//! ([`judge::order`]: a tie is inconclusive, with the runs it would need), and
//! several points combine by [`judge::all_of`] (each claim says why).

use super::analysis::{Analysis, Run};
use super::{CPU_1T, CPU_MT, CUDA, CUDA_RING, CUDA_SPLIT, cpu_threads};
use crate::check;
use crate::claims::hardware::Factor;
use crate::claims::judge;
use crate::claims::{Band, Budget, Check, Comparison, Ctx, Direction, Estimate, Finding, Model, Outcome, Params, Point};
use crate::fmt::{fmt_mean, fmt_num, fmt_ratio, fmt_sig};
use crate::hardware::Quantity;
use crate::records::MachineRecords;
use crate::spec::Pair;
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
    check!("gpus_over_cpu", gpus_over_cpu),
    check!("sustained_rate", sustained_rate),
];

/// Section VI: "All results shown here represent averaged values after 100k generations over 30 independent runs."
const PAPER_GENERATIONS: f64 = 100_000.0;

/// The GTX 580's compute capability: 2.0 (Fermi GF110; CUDA C Programming Guide 4.0, Appendix F).
const PAPER_GPU_CC: f64 = 2.0;

/// Section VI: "Assuming 50% of individuals are created every generation, and a warp processes a single
/// individual": a generation's warps are half the individuals on the GPU.
const WARPS_PER_INDIVIDUAL: f64 = 0.5;

type Invalid = Result<(), (String, String)>;

fn ratio_band(band: &Band) -> Invalid {
    band.check_ratio("band")
}

fn at_least(key: &str, value: usize, min: usize, why: &str) -> Invalid {
    if value < min { Err((key.into(), format!("{why}: at least {min}, not {value}"))) } else { Ok(()) }
}

fn positive(key: &str, value: f64) -> Invalid {
    if value > 0.0 && value.is_finite() { Ok(()) } else { Err((key.into(), format!("must be positive, not {value}"))) }
}

fn inside(b: &Band, x: usize) -> bool {
    b.contains(x as f64)
}

/// "1 island", "14 islands".
fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// A share as a percentage with its interval: "2.56% [2.1%, 3.0%] (n = 3)".
fn pct(share: &Estimate) -> String {
    if share.is_exact() || !share.low.is_finite() || !share.high.is_finite() {
        return format!("{}% (n = {}{})", fmt_sig(100.0 * share.value), share.n, if share.n < 2 { ", no interval" } else { "" });
    }
    format!("{}% [{}%, {}%] (n = {})", fmt_sig(100.0 * share.value), fmt_sig(100.0 * share.low), fmt_sig(100.0 * share.high), share.n)
}

/// A word for a comparison's finding in evidence lines: "better", "worse", "tie (n ≈ 31 a side would decide)".
fn order_word(f: &Finding) -> String {
    match f {
        Finding::Holds => "better".into(),
        Finding::Fails(_) => "worse".into(),
        Finding::Undecided { n_needed: Some(k), why } => format!("undecided: {why}; n ≈ {k} a side"),
        Finding::Undecided { n_needed: None, why } => format!("undecided: {why}"),
    }
}

/// The grid's budget against the paper's 100k generations (the fewest generations of the runs compared).
fn grid_budget<'r>(runs: impl Iterator<Item = &'r Run>) -> Option<Budget> {
    runs.map(|r| r.generations).min().map(|g| Budget::new(f64::from(g), PAPER_GENERATIONS, "generations"))
}

fn with_budget(o: Outcome, budget: Option<Budget>) -> Outcome {
    match budget {
        Some(b) => o.with_budget(b),
        None => o,
    }
}

/// Resident warps an SM of compute capability `cc` holds at most (CUDA C Programming Guide, "Technical
/// specifications per compute capability"): 48 on 2.x (the GTX 580), 64 on 3.x, 5.x, 6.x, 7.0, 8.0, 9.0 and 10.0
/// (H100, H200, B200), 32 on 7.5, 48 on 8.6–8.9 and 12.0; None for a capability not listed.
fn max_warps_per_sm(cc: f64) -> Option<f64> {
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
fn occupancy(individuals: f64, sms: f64, max_warps: f64) -> f64 {
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
    m.rows.iter().find_map(|r| r.float("gpu_cc").or_else(|| r.str("gpu_cc").parse().ok())).filter(|cc| *cc > 0.0)
}

/// A matched point with its occupancy factor where it can be computed (without it a model naming occupancy
/// predicts nothing at that point, and says so).
fn point(label: String, measured: f64, factor: Option<Factor>) -> Point {
    let p = Point::new(label, measured);
    match factor {
        Some(f) => p.with(f),
        None => p,
    }
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
/// paper's range in the grid: each larger one against the smaller by Welch's
/// interval of the best fitness ([`judge::order`]). The paper's curves rise at
/// every size and island count, so every pair must hold ([`judge::all_of`]): one
/// worse decides against, a tie leaves the claim inconclusive with the runs it
/// would need. The budget (generations) goes to the framework's rule.
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
    let findings: Vec<Finding> = pairs.iter().map(|(_, lo, hi)| judge::order(hi, lo, Comparison::Greater)).collect();
    let lines: Vec<String> = pairs
        .iter()
        .zip(&findings)
        .map(|((what, lo, hi), f)| format!("{what}: {} → {} ({})", fmt_mean(lo), fmt_mean(hi), order_word(f)))
        .collect();
    let evidence = format!("best fitness, mean ± 95% CI; Welch 95% interval of the difference: {}", lines.join("; "));
    let compared = islands.iter().flat_map(|&i| sizes.iter().map(move |&n| (i, n))).filter_map(|k| a.grid.get(&k)).flatten();
    let budget = grid_budget(compared);
    if n < p.min_n {
        return with_budget(Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond), budget);
    }
    with_budget(Outcome::decided(judge::all_of(&findings), n, evidence).with_beyond(beyond), budget)
}

/// A band on measured / paper for several labelled estimates: each one's finding and "label: estimate" line.
fn each_in_band(points: &[(String, Estimate)], paper: f64, band: &Band) -> (Vec<Finding>, Vec<String>) {
    points
        .iter()
        .map(|(label, e)| {
            let f = judge::band(&e.scale(1.0 / paper), band);
            let line = format!("{label}: {e} ({})", f.word());
            (f, line)
        })
        .unzip()
}

/// Figure 5: islands add almost no time, each island on its own GPU.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IslandsAddNoTime {
    /// Band on the time per generation of G GPUs × k islands over k islands on one GPU (the paper: 1).
    band: Band,
    sizes: Band,
    min_n: usize,
}

impl Params for IslandsAddNoTime {
    fn validate(&self) -> Invalid {
        at_least("min_n", self.min_n, 2, "a ratio of times needs the spread of repeated runs")?;
        ratio_band(&self.band)
    }
}

/// The ring over G GPUs with k islands on each against one GPU holding k
/// islands alone (the same islands per GPU): each pair's ratio of mean times
/// per generation, with its interval, must lie in the band; the paper's curves
/// coincide at every island count, so every pair must hold ([`judge::all_of`]).
/// All islands sharing one GPU is another setting: it goes beyond the paper.
fn islands_add_no_time(p: &IslandsAddNoTime, a: &Analysis, _: &Ctx) -> Outcome {
    let one = a.one_gpu();
    let beyond = shared_device_scaling(a, &one);
    let mut rings: BTreeMap<(usize, usize), Vec<&Run>> = BTreeMap::new();
    for r in a.rings().filter(|r| inside(&p.sizes, r.size)) {
        rings.entry((r.islands, r.size)).or_default().push(r);
    }
    let mut ks = Vec::new();
    let pairs: Vec<(String, Estimate)> = rings
        .values()
        .filter_map(|runs| {
            let first = runs[0];
            let k = first.islands_per_gpu()?;
            let times: Vec<f64> = runs.iter().map(|r| r.ms_per_generation()).collect();
            let ratio = Estimate::ratio_of_means(&times, one.get(&(k, first.size))?)?;
            ks.push(k);
            Some((format!("{} GPUs × {k} of {}", first.gpus.unwrap_or(first.split.len()), first.size), ratio))
        })
        .collect();
    if pairs.is_empty() {
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
    }
    ks.sort_unstable();
    ks.dedup();
    let ks: Vec<String> = ks.iter().map(usize::to_string).collect();
    let (findings, lines) = each_in_band(&pairs, 1.0, &p.band);
    let n = pairs.iter().map(|x| x.1.n).min().unwrap_or(0);
    let worst = pairs.iter().map(|x| x.1.value).max_by(|x, y| (x - 1.0).abs().total_cmp(&(y - 1.0).abs())).unwrap_or(f64::NAN);
    let evidence = format!(
        "time per generation of G GPUs × k islands over one GPU with k islands, band {}× (the paper: 1): {} ({} islands per GPU, the paper: 1)",
        p.band,
        lines.join(", "),
        ks.join(", ")
    );
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond);
    }
    Outcome::decided(judge::all_of(&findings), n, evidence).with_ratio(worst).with_beyond(beyond)
}

/// How the time per generation grows with the islands when they all share one
/// device (one GPU, else the CPU's threads): the setting the paper did not use.
fn shared_device_scaling(a: &Analysis, one_gpu: &BTreeMap<(usize, usize), Vec<f64>>) -> String {
    let mean = |xs: &[f64]| crate::stats::Summary::of(xs).map(|s| s.mean);
    let (times, device): (BTreeMap<(usize, usize), f64>, String) = if one_gpu.is_empty() {
        let cpu = a.grid.keys().filter_map(|&(i, n)| Some(((i, n), a.grid_per_generation(i, n)?))).collect();
        (cpu, format!("the CPU's {} threads", a.grid.values().flatten().find_map(|r| r.threads).map_or("—".into(), |t| t.to_string())))
    } else {
        (one_gpu.iter().filter_map(|(k, v)| Some((*k, mean(v)?))).collect(), "one GPU".to_owned())
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

/// Figure 5: time stays flat until the GPU is saturated; the harness scales the knee with the SM count.
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

/// A quantity the measurements place only within `[low, high]` (a knee between two grid points), against a band:
/// both ends inside hold; the high end below the band falls short and the low end above it exceeds (each by
/// [`judge::band`]); otherwise the bracket spans an edge and is undecided, needing `n_needed` runs where more runs
/// could narrow it.
fn bracket(low: f64, high: f64, band: &Band, n_needed: Option<usize>, why: String) -> Finding {
    match (judge::band(&Estimate::exact(low), band), judge::band(&Estimate::exact(high), band)) {
        (Finding::Holds, Finding::Holds) => Finding::Holds,
        (_, f @ Finding::Fails(Some(Direction::FallsShort))) => f,
        (f @ Finding::Fails(Some(Direction::Exceeds)), _) => f,
        _ => Finding::undecided(n_needed, why),
    }
}

/// Each population on one GPU (islands × size of the paper's range) is flat
/// when its mean time per generation over the fastest population's, with its
/// interval, is at most `flat` ([`judge::at_most`]), risen when above it, open
/// when the interval spans it. The knee lies between the largest flat population
/// below the smallest risen one and that risen one; the bracket is judged
/// against the band around the scaled prediction ([`bracket`]).
fn saturation_knee(p: &SaturationKnee, a: &Analysis, ctx: &Ctx) -> Outcome {
    let points: Vec<(usize, Vec<f64>)> = a
        .one_gpu()
        .into_iter()
        .filter(|&((i, n), _)| inside(&p.islands, i) && inside(&p.sizes, n))
        .map(|((i, n), ms)| (i * n, ms))
        .collect();
    let mean = |xs: &[f64]| crate::stats::Summary::of(xs).map_or(f64::INFINITY, |s| s.mean);
    let Some(fastest) = points.iter().min_by(|x, y| mean(&x.1).total_cmp(&mean(&y.1))).map(|x| x.1.clone()) else {
        return Outcome::not_run(a.gpu_reason("no runs on a GPU in these records"));
    };
    let (scale, factors) = match p.scales_with.predict_machine(ctx.machine, ctx.paper) {
        Ok(x) => x,
        Err(why) => return Outcome::not_run(why),
    };
    let predicted = p.paper * scale;
    let judged: Vec<(usize, Estimate, Finding)> = points
        .iter()
        .filter_map(|(pop, ms)| {
            let r = Estimate::ratio_of_means(ms, &fastest)?;
            Some((*pop, r, judge::at_most(&r, p.flat)))
        })
        .collect();
    let rise = judged.iter().filter(|x| x.2.fails()).map(|x| x.0).min();
    let flat = judged.iter().filter(|x| x.2.holds() && rise.is_none_or(|r| x.0 < r)).map(|x| x.0).max();
    let (lo, hi) = (flat.map_or(0.0, |x| x as f64), rise.map_or(f64::INFINITY, |x| x as f64));
    let open: Vec<&(usize, Estimate, Finding)> =
        judged.iter().filter(|x| matches!(x.2, Finding::Undecided { .. }) && (x.0 as f64) > lo && (x.0 as f64) < hi).collect();
    let n_needed = open
        .iter()
        .filter_map(|x| if let Finding::Undecided { n_needed, .. } = &x.2 { Some(*n_needed) } else { None })
        .try_fold(0, |acc: usize, n| n.map(|n| acc.max(n)));
    let n = points.iter().map(|x| x.1.len()).min().unwrap_or(0);
    let rule: Vec<String> = factors
        .iter()
        .map(|f| {
            let power = if f.exponent == 1.0 { String::new() } else { format!(" to the power {}", fmt_num(f.exponent)) };
            format!("({} {} here / {}: {}){power}", f.quantity.label(), fmt_num(f.here), fmt_num(f.paper), f.source)
        })
        .collect();
    let shown = |f: fn(&Finding) -> bool| -> String {
        let v: Vec<String> = judged.iter().filter(|x| f(&x.2)).map(|x| format!("{} ({})", x.0, x.1)).collect();
        if v.is_empty() { "none".into() } else { v.join(", ") }
    };
    let evidence = format!(
        "time per generation over the fastest population's, at most {}× is flat: flat {}; risen {}; open {}; the knee lies \
         between {} and {} individuals on the GPU; predicted knee {} = the paper's {} × {}, band {}× ({}–{})",
        fmt_num(p.flat),
        shown(Finding::holds),
        shown(Finding::fails),
        shown(|f| matches!(f, Finding::Undecided { .. })),
        fmt_num(lo),
        fmt_num(hi),
        fmt_num(predicted.round()),
        fmt_num(p.paper),
        rule.join(" × "),
        p.band,
        fmt_num((p.band.low * predicted).round()),
        fmt_num((p.band.high * predicted).round())
    );
    let why = if open.is_empty() {
        format!("the sizes measured place the knee between {} and {} individuals, across an edge of the band", fmt_num(lo), fmt_num(hi))
    } else {
        format!(
            "the knee lies between {} and {} individuals, across an edge of the band, with populations whose flatness is open",
            fmt_num(lo),
            fmt_num(hi)
        )
    };
    let finding = bracket(lo / predicted, hi / predicted, &p.band, n_needed.filter(|_| !open.is_empty()), why);
    // The bracket's geometric mean; one end where the other is open.
    let knee = if lo > 0.0 && hi.is_finite() {
        (lo * hi).sqrt()
    } else if hi.is_finite() {
        hi
    } else {
        lo
    };
    Outcome::decided(finding, n, evidence).with_ratio(knee / predicted)
}

/// Figure 6: migration's share of the time is almost negligible at 2048 per island.
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
        at_least("min_n", self.min_n, 2, "an interval needs the spread of repeated runs")
    }
}

/// Migration shares of one island count: one per run, and the ring's split.
#[derive(Default)]
struct Shares {
    values: Vec<f64>,
    split: String,
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

/// Each island count's mean share with its interval.
fn list_shares(by: &BTreeMap<usize, Shares>) -> Vec<(String, Estimate)> {
    by.iter()
        .filter_map(|(i, s)| {
            let label = if s.split.is_empty() { format!("{i} islands") } else { format!("{i} islands ({})", s.split) };
            Some((label, Estimate::mean_of(&s.values)?))
        })
        .collect()
}

fn show_shares(shares: &[(String, Estimate)]) -> String {
    shares.iter().map(|(l, e)| format!("{l}: {}", pct(e))).collect::<Vec<_>>().join(", ")
}

/// The mean share at `size` per island, with its interval, at every island count
/// above one on the ring over several GPUs (the paper's setting: islands on
/// separate GPUs), each at most `max_share` ([`judge::at_most`]); Figure 6 shows
/// it almost negligible at every count, so every count must hold
/// ([`judge::all_of`]). One GPU holding every island, or the CPU's threads, go
/// beyond the paper.
fn migration_negligible(p: &MigrationNegligible, a: &Analysis, _: &Ctx) -> Outcome {
    let (setting, shares, beyond) = if a.rings().any(|r| r.size == p.size) {
        let one = list_shares(&shares_of(a.ring.iter().filter(|r| r.method == CUDA), p.size));
        let beyond = if one.is_empty() { String::new() } else { format!("all islands on one GPU (same cases): {}", show_shares(&one)) };
        ("the ring over several GPUs (NCCL)", list_shares(&shares_of(a.rings(), p.size)), beyond)
    } else if a.grid_method() == Some(CUDA) {
        // One GPU holding every island is not the paper's setting (one GPU per island, MPI between them).
        let one = list_shares(&shares_of(a.grid.values().flatten(), p.size));
        let beyond =
            if one.is_empty() { String::new() } else { format!("all islands on one GPU, {} per island: {}", p.size, show_shares(&one)) };
        return Outcome::not_run("no runs with the islands on separate GPUs (the ring over several GPUs, profile gpu-multi)")
            .with_beyond(beyond);
    } else {
        let cpu: Vec<f64> = a.grid.values().flatten().filter(|r| r.method == CPU_MT && r.islands > 1).map(Run::migration_share).collect();
        let range = cpu.iter().copied().min_by(f64::total_cmp).zip(cpu.iter().copied().max_by(f64::total_cmp));
        let beyond = range.map_or(String::new(), |(lo, hi)| {
            format!("all islands on the CPU's threads (sizes of the grid): {:.2}%–{:.2}%", 100.0 * lo, 100.0 * hi)
        });
        return Outcome::not_run(a.gpu_reason("no GPU runs in these records")).with_beyond(beyond);
    };
    if shares.is_empty() {
        return Outcome::not_run(format!("no runs of more than one island of {}", p.size)).with_beyond(beyond);
    }
    let n = shares.iter().map(|s| s.1.n).min().unwrap_or(0);
    let findings: Vec<Finding> = shares.iter().map(|(_, e)| judge::at_most(e, p.max_share)).collect();
    let evidence = format!(
        "{setting}, {} per island, migration's share of the run: {} (at most {}% each)",
        p.size,
        show_shares(&shares),
        fmt_num(100.0 * p.max_share)
    );
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond);
    }
    Outcome::decided(judge::all_of(&findings), n, evidence).with_beyond(beyond)
}

/// Figure 7: CPU threads give speedups close to their number.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThreadsScale {
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
fn threads_scale(p: &ThreadsScale, a: &Analysis, _: &Ctx) -> Outcome {
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
struct GpuSpeedup {
    paper: f64,
    /// Table I's "1 GPU" row: [island size, speedup], the paper's value at each matched point.
    table1: Vec<Pair<f64>>,
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
        if let Some(s) = self.table1.iter().find(|s| !(s[0] >= 1.0 && s[0].fract() == 0.0 && s[1] > 0.0)) {
            return Err(("table1".into(), format!("[{}, {}] is not [island size, positive speedup]", s[0], s[1])));
        }
        ratio_band(&self.band)
    }
}

/// One island's speedup at every size of the paper's range: one thread's mean
/// time per generation over the GPU's (the paper's kernels), with its interval;
/// the peak (largest mean) is judged against the paper's peak. The matched points
/// for a hardware explanation are the sizes of Table I, each measured speedup
/// over the paper's at that size, with that size's occupancy. The split kernels
/// go beyond the paper.
fn gpu_speedup(p: &GpuSpeedup, a: &Analysis, ctx: &Ctx) -> Outcome {
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
    let table1: BTreeMap<usize, f64> = p.table1.iter().map(|s| (s[0] as usize, s[1])).collect();
    let points: Vec<Point> = ours
        .iter()
        .filter_map(|(n, s)| Some(point(format!("{n} per island"), s.value / table1.get(n)?, occupancy_factor(1, *n, ctx))))
        .collect();
    let mut o = judge::ratio(&format!("peak speedup (at {n} per island)"), s, p.paper, &p.band, p.model.as_ref(), &points, ctx);
    let each: Vec<String> = ours
        .iter()
        .map(|(n, s)| format!("{n}: {s}{}", table1.get(n).map_or(String::new(), |t| format!(" (Table I: {})", fmt_ratio(*t)))))
        .collect();
    o.evidence += &format!("; {}", each.join(", "));
    o.with_beyond(beyond.join("; "))
}

/// Figure 4: the steps between island counts the paper calls significant.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IslandStepsSignificant {
    /// (fewer, more) island counts.
    steps: Vec<Pair<usize>>,
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

/// One step of Figure 4 at one island size: the best fitness of fewer and of more islands.
pub(super) struct Step {
    pub fewer: usize,
    pub more: usize,
    pub size: usize,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl Step {
    pub fn of(a: &Analysis, fewer: usize, more: usize, size: usize) -> Option<Step> {
        let (lo, hi) = (a.grid_values(fewer, size, |r| r.best), a.grid_values(more, size, |r| r.best));
        if lo.is_empty() || hi.is_empty() {
            return None;
        }
        Some(Step { fewer, more, size, lo, hi })
    }

    /// Runs of fewer and of more islands.
    pub fn n(&self) -> (usize, usize) {
        (self.lo.len(), self.hi.len())
    }

    /// Difference of the means and the half-width of Welch's 95% interval (None: fewer than two runs on a side).
    pub fn welch(&self) -> Option<(f64, f64)> {
        crate::stats::welch(&self.hi, &self.lo)
    }

    /// More islands better than fewer, by Welch's interval ([`judge::order`]).
    pub fn finding(&self) -> Finding {
        judge::order(&self.hi, &self.lo, Comparison::Greater)
    }

    /// "better", "worse" or why undecided.
    pub fn word(&self) -> String {
        order_word(&self.finding())
    }

    /// "6 → 7 islands of 128: +1234 ± 567 (Welch 95%, n = 3 / 3, better)".
    pub fn describe(&self) -> String {
        let diff = self.welch().map_or("—".into(), |(d, h)| format!("{d:+.0} ± {h:.0}"));
        let (a, b) = self.n();
        format!("{} → {} islands of {}: {diff} (Welch 95%, n = {a} / {b}, {})", self.fewer, self.more, self.size, self.word())
    }
}

/// Every step at every island size of the paper's range in the grid must be a
/// gain by Welch's interval: the paper calls each significant, so every point
/// must hold ([`judge::all_of`]); a tie is inconclusive with the runs it would
/// need. Steps the grid lacks make the claim not run here unless a step present
/// already decides against it. The budget (generations) goes to the framework's rule.
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
    let evidence = format!("best fitness, more − fewer islands: {}", lines.join("; "));
    let budget =
        grid_budget(steps.iter().flat_map(|s| [a.grid.get(&(s.fewer, s.size)), a.grid.get(&(s.more, s.size))]).flatten().flatten());
    let n = steps.iter().map(|s| s.n().0.min(s.n().1)).min().unwrap_or(0);
    if n < p.min_n {
        return with_budget(Outcome::too_few(n, p.min_n, evidence), budget);
    }
    let finding = judge::all_of(&steps.iter().map(Step::finding).collect::<Vec<_>>());
    if !missing.is_empty() && !finding.fails() {
        return Outcome::not_run(format!("steps not in the grid: {}", missing.join(", "))).with_beyond(evidence);
    }
    with_budget(Outcome::decided(finding, n, evidence), budget)
}

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
struct GpusOverCpu {
    /// The paper's configuration: `islands` GPUs, one island each, of `size`.
    islands: usize,
    size: usize,
    cpu: Cpu,
    paper: f64,
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
        positive("paper", self.paper)?;
        ratio_band(&self.band)
    }
}

/// The CPU's mean time per generation (one thread, or all threads) over the
/// GPU's, from the same table cases, with its interval, where the GPUs held one
/// island each (the paper's setting); islands sharing fewer GPUs go beyond the
/// paper. The matched point carries its occupancy (islands per GPU here against
/// one island per GTX 580).
fn gpus_over_cpu(p: &GpusOverCpu, a: &Analysis, ctx: &Ctx) -> Outcome {
    let method = match p.cpu {
        Cpu::OneCore => CPU_1T,
        Cpu::AllCores => CPU_MT,
    };
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
    let points = [point(label, speedup.value / p.paper, occupancy_factor(p.islands.div_ceil(gpus), p.size, ctx))];
    judge::ratio(&format!("speedup of {what}"), speedup, p.paper, &p.band, p.model.as_ref(), &points, ctx)
}

/// Section VI: the peak rate of counted operations one GPU reached, against the measured peak.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SustainedRate {
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

/// A GPU run's counted operations per second and their share of the int32 ceiling its profile measured.
pub(super) fn rate_share(run: &Run, m: &MachineRecords) -> Option<(f64, f64)> {
    let rate = run.operations_per_s()?;
    let ceiling = m.ceiling_of_profile("gpu_int32", &run.profile)? * 1e9;
    Some((rate, rate / ceiling))
}

/// The peak configuration of one island on one GPU (the island size of the
/// paper's range whose runs reach the largest mean share of the int32 ceiling;
/// table, speed and grid runs of the paper's kernels), judged by that mean with
/// its interval over every run of that size. Runs of several islands sharing the
/// GPU go beyond the paper.
fn sustained_rate(p: &SustainedRate, a: &Analysis, ctx: &Ctx) -> Outcome {
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

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
