//! The time claims of Figure 5: islands add almost no time, each island on its
//! own GPU, and time stays flat until the GPU is saturated (the knee, scaled to
//! this GPU).

use super::analysis::{Analysis, Run};
use super::claims_common::{Invalid, inside, ratio_band};
use super::{CUDA, CUDA_RING};
use crate::claims::generic::Points;
use crate::claims::judge;
use crate::claims::{Band, Ctx, Direction, Estimate, Finding, Model, Outcome, Params};
use crate::fmt::{fmt_num, fmt_ratio};
use serde::Deserialize;
use std::collections::BTreeMap;

/// `ring_over_one_gpu` (Figure 5: islands add almost no time, each island on
/// its own GPU), judged by the generic `threshold`: the ring over G GPUs with k
/// islands on each against one GPU holding k islands alone (the same islands
/// per GPU), islands of `sizes`: each pair's ratio of mean times per generation,
/// with its interval (the paper's curves coincide: 1). All islands sharing one
/// GPU is another setting: it goes beyond the paper.
pub(super) fn ring_over_one_gpu(a: &Analysis, sizes: &Band) -> Points {
    let one = a.one_gpu();
    let mut rings: BTreeMap<(usize, usize), Vec<&Run>> = BTreeMap::new();
    for r in a.rings().filter(|r| inside(sizes, r.size)) {
        rings.entry((r.islands, r.size)).or_default().push(r);
    }
    let mut ks = Vec::new();
    let at: Vec<(String, Estimate)> = rings
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
    let why = if a.rings().next().is_some() {
        "no ring's islands per GPU also ran alone on one GPU"
    } else {
        a.reason(CUDA_RING).or(a.reason(CUDA)).unwrap_or(
            "no runs with the islands on separate GPUs: the ring over several GPUs (profile gpu-multi) did not run on this machine",
        )
    };
    ks.sort_unstable();
    ks.dedup();
    let ks: Vec<String> = ks.iter().map(usize::to_string).collect();
    Points {
        setting: format!(
            "time per generation of G GPUs × k islands over one GPU with k islands ({} islands per GPU, the paper: 1)",
            ks.join(", ")
        ),
        ratio: at.iter().map(|x| x.1.value).max_by(|x, y| (x - 1.0).abs().total_cmp(&(y - 1.0).abs())),
        at,
        absent: Some(why.to_owned()),
        beyond: shared_device_scaling(a, &one),
        ..Points::default()
    }
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
pub(super) struct SaturationKnee {
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
pub(super) fn saturation_knee(p: &SaturationKnee, a: &Analysis, ctx: &Ctx) -> Outcome {
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
