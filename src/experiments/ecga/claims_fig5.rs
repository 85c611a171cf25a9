//! Figure 5's claims: the speedups of gECGA and of FastCount over the baseline
//! (spg, spc: the generic `threshold`); gECGA identical to ECGA is the generic `identical`.

use super::{PaperSpeedup, SizesRuns};
use crate::claims::generic::{Points, fewest};
use crate::claims::judge::{self, Comparison, Finding};
use crate::claims::{Band, Ctx, Estimate, Outcome, Point};
use crate::experiments::ecga::analysis::{Analysis, Phase, RunTimes, WholeRuns, whole_pairs};
use crate::experiments::ecga::{BASELINE, FASTCOUNT, GECGA};
use crate::fmt::{fmt_mean, fmt_sig};
use crate::stats::Summary;
use std::collections::BTreeSet;

/// Why gECGA and the baseline have no paired runs at `ell`, from the records.
fn why_no_pairs(a: &Analysis, ell: Option<usize>, other: &str) -> String {
    let reason = |s: &str| ell.and_then(|l| a.not_run_reason(l, s)).map(|r| format!("{s}: {r}"));
    reason(GECGA)
        .or_else(|| a.gecga_absent.as_ref().map(|r| format!("{GECGA}: {r}")))
        .or_else(|| reason(other))
        .unwrap_or_else(|| format!("no Figure 5 runs of both {other} and {GECGA} in these records"))
}

/// Figure 5: spg grows with ℓ — the per-run speedups at the largest ℓ above
/// those at the smallest, and no fall between consecutive ℓ (each by Welch):
/// [`judge::all_of`] of the rise overall and of [`judge::any_none_against`]
/// over the steps and that rise (a tie between neighbours neither supports
/// nor contradicts growth; a fall contradicts it).
pub(super) fn spg_grows(p: &SizesRuns, a: &Analysis, _: &Ctx) -> Outcome {
    let spg = |ell: usize| a.paired_speedups(ell, BASELINE, GECGA, Phase::Model);
    let measured: Vec<(usize, Vec<f64>)> = a.fig5.keys().map(|&l| (l, spg(l))).filter(|(_, s)| !s.is_empty()).collect();
    let (inside, outside): (Vec<_>, Vec<_>) = measured.into_iter().partition(|(l, _)| p.range.contains(*l as f64));
    let show = |v: &[(usize, Vec<f64>)]| v.iter().map(|(l, s)| format!("ℓ = {l}: {}", fmt_mean(s))).collect::<Vec<_>>().join(", ");
    let beyond = if outside.is_empty() { String::new() } else { format!("spg(m) per run: {}", show(&outside)) };
    if inside.len() < 2 {
        let why = match inside.first() {
            Some((l, _)) => format!("spg(m) at one ℓ only (ℓ = {l}); growth needs two"),
            None => why_no_pairs(a, a.fig5.keys().next().copied(), BASELINE),
        };
        return Outcome::not_run(why).with_beyond(beyond);
    }
    let judged: Vec<&(usize, Vec<f64>)> = inside.iter().filter(|(_, s)| s.len() >= p.min_n).collect();
    let evidence = format!("spg(m) per run: {}", show(&inside));
    if judged.len() < 2 {
        let n = inside.iter().map(|(_, s)| s.len()).filter(|&n| n < p.min_n).max().unwrap_or(0);
        return Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond);
    }
    let word = |f: &Finding| match f {
        Finding::Holds => "rise",
        Finding::Fails(_) => "fall",
        Finding::Undecided { .. } => "tie",
    };
    let steps: Vec<(String, Finding)> = judged
        .windows(2)
        .map(|w| {
            let f = judge::order(&w[1].1, &w[0].1, Comparison::Greater);
            (format!("{}→{}: {}", w[0].0, w[1].0, word(&f)), f)
        })
        .collect();
    let (first, last) = (judged[0], judged[judged.len() - 1]);
    let overall = judge::order(&last.1, &first.1, Comparison::Greater);
    let no_fall: Vec<Finding> = steps.iter().map(|s| s.1.clone()).chain([overall.clone()]).collect();
    let evidence = format!(
        "{evidence}; steps {}; ℓ = {}→{}: {}",
        steps.iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join(", "),
        first.0,
        last.0,
        word(&overall)
    );
    let finding = judge::all_of(&[overall, judge::any_none_against(&no_fall)]);
    Outcome::decided(finding, fewest(judged.iter().map(|(_, s)| s.len()), p.min_n), evidence).with_beyond(beyond)
}

/// Figure 5, Section 5.3 (`spc`, judged by the generic `threshold`): FastCount
/// on one CPU thread speeds the baseline up only a little — spc(m) and spc(w),
/// the means of the per-run speedups, at each ℓ of `range`; spc(m) at the other
/// ℓ goes beyond the paper.
pub(super) fn spc(a: &Analysis, range: &Band) -> Points {
    let spc = |ell: usize, phase| a.paired_speedups(ell, BASELINE, FASTCOUNT, phase);
    let mut points = Points {
        setting: "spc(m) and spc(w), FastCount's per-run speedups over the baseline".into(),
        absent: Some(why_no_pairs_cpu(a)),
        ..Points::default()
    };
    let mut beyond = Vec::new();
    for &ell in a.fig5.keys() {
        let m = spc(ell, Phase::Model);
        if m.is_empty() {
            continue;
        }
        if !range.contains(ell as f64) {
            beyond.push(format!("spc(m) at ℓ = {ell}: {}", fmt_mean(&m)));
            continue;
        }
        for (label, runs) in [("spc(m)", m), ("spc(w)", spc(ell, Phase::Whole))] {
            points.at.extend(Estimate::mean_of(&runs).map(|e| (format!("{label} at ℓ = {ell}"), e)));
        }
    }
    Points { beyond: beyond.join("; "), ..points }
}

/// Why the baseline and FastCount have no paired runs, from the records.
fn why_no_pairs_cpu(a: &Analysis) -> String {
    a.fig5
        .iter()
        .find_map(|(l, (_, s))| s.get(BASELINE).and_then(|t| t.not_run.as_ref()).map(|r| format!("baseline at ℓ = {l}: {r}")))
        .unwrap_or_else(|| "no Figure 5 runs of the baseline and FastCount in these records".into())
}

/// Figure 5, Section 5.3: spg(m) and spg(w) at the paper's ℓ against its 482×
/// and 359×: ratios of the mean times over runs that timed both scorers, with
/// their 95% intervals ([`Estimate::ratio_of_means`]), each by
/// [`judge::ratio`] and the two by [`judge::all_of_outcomes`].
pub(super) fn spg_at_500(p: &PaperSpeedup, a: &Analysis, ctx: &Ctx) -> Outcome {
    let f = &a.published.fig5;
    let ell = f.ell;
    let beyond = a
        .build
        .get(&ell)
        .and_then(|(_, s)| Some((Summary::of(&s.get(BASELINE)?.model)?.mean, Summary::of(&s.get(GECGA)?.model)?.mean)))
        .map_or(String::new(), |(b, g)| {
            format!(
                "one model build of the first selection at ℓ = {ell} (not a whole run's model building): baseline / gECGA = {}× — {} the paper's spg(m)",
                fmt_sig(b / g),
                crate::fmt::fmt_ratio(b / g / f.spg_m)
            )
        });
    let pairs = |phase| a.paired_speedups(ell, BASELINE, GECGA, phase);
    if pairs(Phase::Model).is_empty() {
        let sets: Vec<(usize, &WholeRuns)> = a.whole_sets(ell).collect();
        return if sets.is_empty() {
            Outcome::not_run(why_no_pairs(a, Some(ell), BASELINE))
        } else {
            spg_of_whole_runs(p, a, &sets, ell, ctx)
        }
        .with_beyond(beyond);
    }
    let (base, gpu) = (a.times(ell, BASELINE).expect("paired"), a.times(ell, GECGA).expect("paired"));
    let paired: Vec<(&RunTimes, &RunTimes)> = base.by_case.iter().filter_map(|(case, b)| Some((b, gpu.by_case.get(case)?))).collect();
    if let Err(o) = judge::enough(paired.len(), p.min_n, &format!("runs of the baseline and gECGA at ℓ = {ell}")) {
        return o.with_beyond(beyond);
    }
    let (bm, gm): (Vec<f64>, Vec<f64>) = paired.iter().map(|(b, g)| (b.0, g.0)).unzip();
    let (bw, gw): (Vec<f64>, Vec<f64>) = paired.iter().filter_map(|(b, g)| Some((b.1?, g.1?))).unzip();
    let (Some(m), Some(w)) = (Estimate::ratio_of_means(&bm, &gm), Estimate::ratio_of_means(&bw, &gw)) else {
        return Outcome::not_run(format!("no positive model-building and whole-run times of both scorers at ℓ = {ell}"))
            .with_beyond(beyond);
    };
    let runs = base.run_ids.union(&gpu.run_ids).copied().collect();
    judge_spg(p, a, (m, w), ell, &format!("n = {}", paired.len()), &runs, ctx).with_beyond(beyond)
}

/// spg(m) and spg(w) against the paper's, each by [`judge::ratio`] (a hardware
/// model reading the ceilings of `runs`, the runs timed), the claim by [`judge::all_of_outcomes`].
fn judge_spg(
    p: &PaperSpeedup,
    a: &Analysis,
    (m, w): (Estimate, Estimate),
    ell: usize,
    note: &str,
    runs: &BTreeSet<i64>,
    ctx: &Ctx,
) -> Outcome {
    let f = &a.published.fig5;
    let spg = |what: &str, e: Estimate, paper: f64| {
        let point = [Point::new(format!("{what} at ℓ = {ell}"), e.scale(1.0 / paper)).in_runs(runs.iter().copied())];
        judge::ratio(&format!("{what} at ℓ = {ell}"), e, paper, &p.band, p.model.as_ref(), &point, ctx)
    };
    let (m, w) = (spg("spg(m)", m, f.spg_m), spg("spg(w)", w, f.spg_w));
    let evidence = format!("{}; {} ({note})", m.evidence, w.evidence);
    Outcome { evidence, ..judge::all_of_outcomes(vec![m, w]) }
}

/// Section 5.3's spg at `ell` from whole runs timed by saved generations (the
/// `whole` cases), one set per number of builds at once. Sharing the host's
/// cores slowed a baseline build (against a lone build of the same selection
/// in the set's own profile) by more than the method's 5% in every set
/// measured, so that cost is taken as a systematic of ± its size on both
/// speedups ([`Estimate::with_systematic`]) and the set with the most runs is
/// judged (on a tie, the least cost); the others are named with their cost.
fn spg_of_whole_runs(p: &PaperSpeedup, a: &Analysis, sets: &[(usize, &WholeRuns)], ell: usize, ctx: &Ctx) -> Outcome {
    let what = |at_once: usize| format!("whole runs at ℓ = {ell} timed by saved generations ({at_once} single-threaded builds at once)");
    let cost_of = |at_once: usize, runs: &WholeRuns, (lone, shared): (f64, f64)| {
        let cost = shared / lone - 1.0;
        let text = format!(
            "{}: n = {}, a baseline build {:+.1}% sharing the cores ({} ms against {} ms alone)",
            what(at_once),
            whole_pairs(runs).len(),
            100.0 * cost,
            fmt_sig(shared),
            fmt_sig(lone)
        );
        (cost, text)
    };
    let mut candidates = Vec::new();
    let mut left = Vec::new();
    for &(at_once, runs) in sets {
        match a.concurrency_cost(ell, at_once, BASELINE) {
            Some(times) => candidates.push((at_once, runs, cost_of(at_once, runs, times))),
            None => {
                left.push(format!("{}: no lone baseline build at ℓ = {ell} (the `build` case) to measure its cost against", what(at_once)))
            }
        }
    }
    let rank = |c: &(usize, &WholeRuns, (f64, String))| (whole_pairs(c.1).len(), -c.2.0.abs());
    let Some(best) = (0..candidates.len()).max_by(|&i, &j| rank(&candidates[i]).partial_cmp(&rank(&candidates[j])).expect("finite costs"))
    else {
        return Outcome::not_run(left.join("; "));
    };
    let (at_once, runs, (cost, used)) = candidates.remove(best);
    left.extend(candidates.into_iter().map(|c| c.2.1));
    let pairs = whole_pairs(runs);
    if let Err(o) = judge::enough(pairs.len(), p.min_n, &what(at_once)) {
        return o;
    }
    type Pair = ((f64, f64), (f64, f64));
    let column = |f: fn(&Pair) -> f64| pairs.iter().map(f).collect::<Vec<f64>>();
    let m = Estimate::ratio_of_means(&column(|p| p.0.0), &column(|p| p.1.0));
    let w = Estimate::ratio_of_means(&column(|p| p.0.1), &column(|p| p.1.1));
    let (Some(m), Some(w)) = (m, w) else {
        return Outcome::not_run(format!("{}: no positive times of the baseline and gECGA", what(at_once)));
    };
    let mut note = format!("{used}, taken as a systematic of ±{:.1}% on each speedup", 100.0 * cost.abs());
    if let Some(spread) = lone_spread(a, ell) {
        note += &format!("; {spread}");
    }
    if !left.is_empty() {
        note += &format!("; not used: {}", left.join("; "));
    }
    let ids = runs.values().flat_map(|r| r.run_ids.iter().copied()).collect();
    judge_spg(p, a, (m.with_systematic(cost.abs()), w.with_systematic(cost.abs())), ell, &note, &ids, ctx)
}

/// The lone baseline builds of the `build` case's selection at `ell` in every
/// profile here: how far apart they lie (the cost of sharing is measured
/// against one of them, and they differ by more than the method's 5%).
fn lone_spread(a: &Analysis, ell: usize) -> Option<String> {
    let lone: Vec<f64> = a.lone.iter().filter(|((_, l), _)| *l == ell).filter_map(|(_, s)| s.get(BASELINE)).flatten().copied().collect();
    let (lo, hi) = (lone.iter().copied().fold(f64::INFINITY, f64::min), lone.iter().copied().fold(0.0, f64::max));
    (lone.len() > 1).then(|| {
        format!(
            "the lone build itself took {}–{} ms over {} builds here (the slowest {:+.1}% over the fastest)",
            fmt_sig(lo),
            fmt_sig(hi),
            lone.len(),
            100.0 * (hi / lo - 1.0)
        )
    })
}
