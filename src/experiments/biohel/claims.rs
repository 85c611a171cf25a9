//! The paper's claims (Sections 5.1–5.2; Tables 2–4, Figures 4–5) as a table of
//! checks, each with typed parameters from `experiments/biohel.toml`. Every check
//! judges `cuda-paper` (the paper's kernels) against `serial` on the paper's sets
//! at the window counts of its Tables 3–4; the warp-vote design, the `speed`
//! profile and other window counts are reported beyond the paper.

use super::analysis::{Analysis, Budget, Learning, Stage, StratumPoint, compare_variances, peak};
use super::spec::{PaperSpeedups, SETS, set_label};
use super::{BALLOT, CUDA, SERIAL};
use crate::check;
use crate::claims::judge::{self, Band, fmt_mean, fmt_num, fmt_sig};
use crate::claims::{Check, Comparison, Ctx, Estimate, Model, Outcome, Params, Verdict};
use serde::Deserialize;

/// The table of checks the spec's claims name.
pub const CHECKS: &[Check<Analysis>] = &[
    check!("speedup_max", speedup_max),
    check!("cuda_variance_smaller", cuda_variance_smaller),
    check!("windows_cut_serial_time", windows_cut_serial_time),
    check!("learning_vs_evaluation", learning_vs_evaluation),
    check!("speedup_peak_band", speedup_peak_band),
    check!("speedup_peak_set", speedup_peak_set),
    check!("small_sets_gain_little", small_sets_gain_little),
];

/// Which of the paper's two stages a claim is about (Section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageName {
    /// The evaluation alone, one simulated GA (Tables 2–3, Figure 4).
    Evaluation,
    /// The whole learning system (Table 2's integration columns, Table 4, Figure 5).
    Learning,
}

/// A stage's runs on one machine, the paper's table for it, and (learning) the GA budget.
struct Judged<'a> {
    stage: &'a Stage,
    table: &'a PaperSpeedups,
    /// "Table 3" or "Table 4".
    name: &'static str,
    budget: String,
}

/// The learning claims hold at the paper's GA budget (BioHEL's default, Section
/// 4): learning runs at a reduced budget are shown beyond the paper, not judged.
fn at_paper_budget(a: &Analysis, o: Outcome) -> Outcome {
    match a.main_learning() {
        Some((budget, _)) if !budget.is_paper() && !matches!(o.verdict, Verdict::NotRun(_)) => {
            let beyond = [Some(o.evidence.clone()), o.beyond.clone()].into_iter().flatten().collect::<Vec<_>>().join("; ");
            Outcome::not_run(format!("no learning runs at the paper's budget: {}", budget.describe().replace("**", ""))).with_beyond(beyond)
        }
        _ => o,
    }
}

fn judged(a: &Analysis, stage: StageName) -> Result<Judged<'_>, Outcome> {
    match stage {
        StageName::Evaluation => Ok(Judged { stage: &a.eval, table: &a.paper.table3, name: "Table 3", budget: String::new() }),
        StageName::Learning => match a.main_learning() {
            Some((b, l)) => {
                Ok(Judged { stage: &l.total, table: &a.paper.table4, name: "Table 4", budget: format!("; budget: {}", b.describe()) })
            }
            None => Err(Outcome::not_run("no learning runs in this machine's records")),
        },
    }
}

/// Why a stage has nothing of `cuda-paper` to judge: the records' reason, else none ran in range.
fn no_cuda(stage: &Stage) -> String {
    if stage.sets().is_empty() { "no runs of this stage in this machine's records".into() } else { stage.reason(CUDA) }
}

fn has_cuda(stage: &Stage) -> bool {
    stage.sets().into_iter().any(|set| stage.windows(set).into_iter().any(|w| !stage.secs(set, w, CUDA).is_empty()))
}

fn at(set: &str, windows: usize) -> String {
    format!("{}, {windows} window{}", set_label(set), if windows == 1 { "" } else { "s" })
}

/// As the paper prints its speedups: one decimal.
fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Which speedup of Tables 3–4 (Section 5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Serial over CUDA at the same window count (each table's first row, "net").
    SameWindow,
    /// Serial with 1 window over CUDA with w windows (the second row, "total").
    Total,
}

impl Measure {
    fn label(self) -> &'static str {
        match self {
            Measure::SameWindow => "same-window",
            Measure::Total => "total (serial with 1 window over CUDA with w)",
        }
    }

    fn here(self, stage: &Stage, set: &str, windows: usize, method: &str) -> Option<f64> {
        match self {
            Measure::SameWindow => stage.speedup(set, windows, method),
            Measure::Total => stage.total_speedup(set, windows, method),
        }
    }

    fn paper(self, table: &PaperSpeedups, set: &str, windows: usize) -> Option<f64> {
        table.at(set, windows).map(|(net, total)| if self == Measure::SameWindow { net } else { total })
    }

    /// One value per run of `method` (the same-window speedup per case; the total against serial's 1-window mean).
    fn runs(self, stage: &Stage, set: &str, windows: usize, method: &str) -> Vec<f64> {
        match self {
            Measure::SameWindow => stage.run_speedups(set, windows, method),
            Measure::Total => stage.run_total_speedups(set, windows, method),
        }
    }
}

/// `speedup_max`: the largest speedup of a stage against the paper's largest
/// over the same sets and window counts, by the band rule.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeedupParams {
    stage: StageName,
    measure: Measure,
    /// Measured / paper that counts as reproduced.
    band: Band,
    /// What bounds the speedup, to explain a ratio outside the band.
    pub model: Option<Model>,
}

impl Params for SpeedupParams {
    fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    fn validate(&self) -> Result<(), (String, String)> {
        self.band.check_ratio("band")
    }
}

/// The largest `measure` of `method` over the stage's points that `keep` admits: (value, set, windows).
fn largest(stage: &Stage, measure: Measure, method: &str, keep: impl Fn(&str, usize) -> bool) -> Option<(f64, &'static str, usize)> {
    stage
        .sets()
        .into_iter()
        .flat_map(|set| stage.windows(set).into_iter().map(move |w| (set, w)))
        .filter(|&(set, w)| keep(set, w))
        .filter_map(|(set, w)| Some((round1(measure.here(stage, set, w, method)?), set, w)))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

fn speedup_max(p: &SpeedupParams, a: &Analysis, ctx: &Ctx) -> Outcome {
    let o = speedup_max_any_budget(p, a, ctx);
    if matches!(p.stage, StageName::Learning) { at_paper_budget(a, o) } else { o }
}

fn speedup_max_any_budget(p: &SpeedupParams, a: &Analysis, ctx: &Ctx) -> Outcome {
    let j = match judged(a, p.stage) {
        Ok(j) => j,
        Err(o) => return o,
    };
    let in_range = |set: &str, w: usize| j.table.at(set, w).is_some();
    let mut beyond = Vec::new();
    if let Some((x, set, w)) = largest(j.stage, p.measure, BALLOT, in_range) {
        beyond.push(format!("cuda-ballot (not the paper's design): up to {x:.1}× ({})", at(set, w)));
    }
    if let Some((x, set, w)) = largest(j.stage, p.measure, CUDA, |s, w| !in_range(s, w)) {
        beyond.push(format!("cuda-paper at window counts {} lacks: up to {x:.1}× ({})", j.name, at(set, w)));
    }
    if p.stage == StageName::Evaluation {
        for method in [CUDA, BALLOT] {
            if let Some((x, set, w)) = largest(&a.speed, p.measure, method, |_, _| true) {
                beyond.push(format!("`speed` profile, {method}: up to {x:.1}× ({})", at(set, w)));
            }
        }
    }
    let beyond = beyond.join("; ");
    let points: Vec<(&str, usize)> = j
        .stage
        .sets()
        .into_iter()
        .flat_map(|set| j.stage.windows(set).into_iter().map(move |w| (set, w)))
        .filter(|&(set, w)| in_range(set, w) && p.measure.here(j.stage, set, w, CUDA).is_some())
        .collect();
    let (Some((here, set, w)), Some((paper, paper_set, paper_w))) = (
        largest(j.stage, p.measure, CUDA, |s, w| points.contains(&(s, w))),
        points.iter().filter_map(|&(s, w)| Some((p.measure.paper(j.table, s, w)?, s, w))).max_by(|a, b| a.0.total_cmp(&b.0)),
    ) else {
        return Outcome::not_run(no_cuda(j.stage)).with_beyond(beyond);
    };
    let what = format!(
        "largest {} speedup of cuda-paper over serial ({}) against {}'s largest ({}) over the {} sets × window counts measured in both",
        p.measure.label(),
        at(set, w),
        j.name,
        at(paper_set, paper_w),
        points.len()
    );
    let mut o = judge::ratio(&what, Estimate::exact(here), paper, &p.band, p.model.as_ref(), &[], ctx);
    o.evidence += &j.budget;
    o.with_beyond(beyond)
}

/// Claims decided by the spread of repeated runs: the fewest runs that decide.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinRuns {
    min_n: usize,
}

fn check_min_n(min_n: usize) -> Result<(), (String, String)> {
    if min_n < 2 { Err(("min_n".into(), format!("a spread needs at least 2 runs, not {min_n}"))) } else { Ok(()) }
}

impl Params for MinRuns {
    fn validate(&self) -> Result<(), (String, String)> {
        check_min_n(self.min_n)
    }
}

/// Table 2: at 1 window the variance of the CUDA evaluation time is smaller than
/// the serial one in every set, by the two-sided F test at 95%.
fn cuda_variance_smaller(p: &MinRuns, a: &Analysis, _: &Ctx) -> Outcome {
    let sets: Vec<(&str, Vec<f64>, Vec<f64>)> = a
        .eval
        .sets()
        .into_iter()
        .filter(|set| a.paper.table3.at(set, 1).is_some())
        .map(|set| (set, a.eval.secs(set, 1, CUDA), a.eval.secs(set, 1, SERIAL)))
        .filter(|(_, c, s)| !c.is_empty() && !s.is_empty())
        .collect();
    if sets.is_empty() {
        return Outcome::not_run(no_cuda(&a.eval));
    }
    let n = sets.iter().map(|(_, c, s)| c.len().min(s.len())).min().unwrap_or(0);
    let sd = |xs: &[f64]| crate::stats::Summary::of(xs).map_or(0.0, |s| s.sd);
    let mut counts = [0usize; 3];
    let lines: Vec<String> = sets
        .iter()
        .map(|(set, c, s)| {
            let found = match compare_variances(c, s) {
                Some((k, ratio)) => {
                    let (i, word) = match k {
                        Comparison::Less => (0, "smaller"),
                        Comparison::Tie => (1, "tie"),
                        Comparison::Greater => (2, "larger"),
                    };
                    counts[i] += 1;
                    format!("{word} (variance ratio {ratio:.2e})")
                }
                None => {
                    counts[1] += 1;
                    "tie (no spread in either)".into()
                }
            };
            format!("{}: sd {} s against {} s (n = {}, {}), {found}", set_label(set), fmt_sig(sd(c)), fmt_sig(sd(s)), c.len(), s.len())
        })
        .collect();
    let evidence = format!(
        "cuda-paper against serial at 1 window (Table 2), two-sided F test of the variances at 95%: {} of {} sets smaller, {} tie, {} larger — {}",
        counts[0],
        sets.len(),
        counts[1],
        counts[2],
        lines.join("; ")
    );
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence);
    }
    Outcome::new(Verdict::of(counts[0] == sets.len()), evidence)
}

/// A band alone: measured / expected that counts as reproduced.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandParams {
    band: Band,
}

impl Params for BandParams {
    fn validate(&self) -> Result<(), (String, String)> {
        self.band.check_ratio("band")
    }
}

/// Section 2.2: with w windows each GA iteration sees 1/w of the training set, so
/// the serial evaluation time with w windows is about 1/w of the time with 1; the
/// point farthest from w, by the band rule (every point inside the band or not).
fn windows_cut_serial_time(p: &BandParams, a: &Analysis, ctx: &Ctx) -> Outcome {
    let (mut points, mut beyond) = (Vec::new(), Vec::new());
    for set in a.eval.sets() {
        let Some(base) = a.eval.mean(set, 1, SERIAL) else { continue };
        for w in a.eval.windows(set).into_iter().filter(|&w| w > 1) {
            let Some(t) = a.eval.mean(set, w, SERIAL) else { continue };
            let point = (set, w, base / t);
            if a.paper.table3.has_windows(w) { points.push(point) } else { beyond.push(point) }
        }
    }
    let list = |ps: &[&(&str, usize, f64)]| -> String {
        ps.iter()
            .map(|(set, w, s)| format!("{} w={w}: {s:.1}× ({} w)", set_label(set), fmt_sig(s / *w as f64)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let beyond = if beyond.is_empty() {
        String::new()
    } else {
        format!("serial saving at window counts Table 3 lacks: {}", list(&beyond.iter().collect::<Vec<_>>()))
    };
    let share = |(_, w, s): &(&str, usize, f64)| s / *w as f64;
    let Some(&(set, w, saving)) = points.iter().max_by(|x, y| share(x).ln().abs().total_cmp(&share(y).ln().abs())) else {
        return Outcome::not_run("no serial runs at 1 window and at more of Table 3's window counts").with_beyond(beyond);
    };
    let outside: Vec<&(&str, usize, f64)> = points.iter().filter(|x| !p.band.contains(share(x))).collect();
    let (least, most) = points.iter().map(share).fold((f64::INFINITY, 0.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let runs = |w: usize| a.eval.secs(set, w, SERIAL).len();
    let what = format!(
        "serial time with 1 window over with w windows where it is farthest from w ({}; n = {} and {} runs), against w",
        at(set, w),
        runs(1),
        runs(w)
    );
    let mut o = judge::ratio(&what, Estimate::exact(round1(saving)), w as f64, &p.band, None, &[], ctx);
    o.evidence += &format!(
        "; {} of {} points (sets × window counts) within the band, from {} w to {} w{}",
        points.len() - outside.len(),
        points.len(),
        fmt_sig(least),
        fmt_sig(most),
        if outside.is_empty() { String::new() } else { format!("; outside it: {}", list(&outside)) }
    );
    o.with_beyond(beyond)
}

/// A band decided by repeated runs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandRuns {
    band: Band,
    min_n: usize,
}

impl Params for BandRuns {
    fn validate(&self) -> Result<(), (String, String)> {
        self.band.check_ratio("band")?;
        check_min_n(self.min_n)
    }
}

/// Section 5.2: at 1 window the whole system's speedup is larger than the
/// evaluation's alone but less than twice it, in every set; each bound by
/// Welch's 95% interval on the runs' speedups (a tie decides nothing). Judged on
/// the learning runs on equal terms with the evaluation stage
/// (`Analysis::like_for_like_learning`: as many rules per evaluator call in
/// both); runs of another population are shown beyond the paper.
fn learning_vs_evaluation(p: &BandRuns, a: &Analysis, ctx: &Ctx) -> Outcome {
    if let Some((budget, l)) = a.like_for_like_learning() {
        return learning_against_evaluation(p, a, budget, l, ctx);
    }
    let Some((budget, l)) = a.main_learning() else { return Outcome::not_run("no learning runs in this machine's records") };
    let o = learning_against_evaluation(p, a, budget, l, ctx);
    if matches!(o.verdict, Verdict::NotRun(_)) {
        return o;
    }
    let why = format!(
        "no learning runs with population {}, the evaluation stage's rules per GA iteration (learning here: {})",
        a.paper.rules_per_iteration,
        budget.describe().replace("**", "")
    );
    Outcome::not_run(why).with_beyond([Some(o.evidence), o.beyond].into_iter().flatten().collect::<Vec<_>>().join("; "))
}

fn learning_against_evaluation(p: &BandRuns, a: &Analysis, budget: &Budget, l: &Learning, _: &Ctx) -> Outcome {
    let sets: Vec<(&str, Vec<f64>, Vec<f64>)> = SETS
        .iter()
        .filter(|set| a.paper.table3.at(set, 1).is_some() && a.paper.table4.at(set, 1).is_some())
        .map(|&set| (set, a.eval.run_speedups(set, 1, CUDA), l.total.run_speedups(set, 1, CUDA)))
        .filter(|(_, e, l)| !e.is_empty() && !l.is_empty())
        .collect();
    if sets.is_empty() {
        let stage = if has_cuda(&a.eval) { &l.total } else { &a.eval };
        return Outcome::not_run(no_cuda(stage));
    }
    let n = sets.iter().map(|(_, e, l)| e.len().min(l.len())).min().unwrap_or(0);
    let scaled = |xs: &[f64], k: f64| xs.iter().map(|x| x * k).collect::<Vec<_>>();
    let mut inside = 0;
    let lines: Vec<String> = sets
        .iter()
        .map(|(set, e, lr)| {
            let ratio = mean(lr) / mean(e);
            let found = match (judge::compare(lr, &scaled(e, p.band.low)), judge::compare(lr, &scaled(e, p.band.high))) {
                (Some(Comparison::Greater), Some(Comparison::Less)) => {
                    inside += 1;
                    "inside".to_owned()
                }
                (Some(Comparison::Less), _) => format!("below {}×", fmt_num(p.band.low)),
                (_, Some(Comparison::Greater)) => format!("above {}×", fmt_num(p.band.high)),
                (None, _) | (_, None) => "no interval".to_owned(),
                _ => "tie with a bound".to_owned(),
            };
            format!("{}: learning {} / evaluation {} = {}, {found}", set_label(set), fmt_mean(lr), fmt_mean(e), fmt_sig(ratio))
        })
        .collect();
    let lengths = a.eval_iterations.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    let evidence = format!(
        "cuda-paper at 1 window, the whole system's speedup over the evaluation's (wanted inside {}×, Welch 95% on the runs): {inside} of {} sets inside — {}; learning budget: {}; evaluation: simulated GAs of {lengths} iterations × {} rules",
        p.band,
        sets.len(),
        lines.join("; "),
        budget.describe(),
        a.paper.rules_per_iteration
    );
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence);
    }
    Outcome::new(Verdict::of(inside == sets.len()), evidence)
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// `speedup_peak_band`: Figures 4–5, the speedup against the training instances
/// per stratum (T/x) peaks inside a band for most sets.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeakParams {
    pub stage: StageName,
    /// The band of T/x where the paper sees the maximum.
    pub per_stratum: Band,
    /// A set peaks inside when its best speedup in the band is at least this share of its best anywhere.
    steady: f64,
    min_n: usize,
}

impl Params for PeakParams {
    fn validate(&self) -> Result<(), (String, String)> {
        if self.per_stratum.low <= 0.0 {
            return Err(("per_stratum".into(), format!("instances per stratum must be above 0, not {}", self.per_stratum.low)));
        }
        if !(self.steady > 0.0 && self.steady <= 1.0) {
            return Err(("steady".into(), format!("a share of the best speedup must be in (0, 1], not {}", self.steady)));
        }
        check_min_n(self.min_n)
    }
}

/// A set shows where its speedup peaks only if it was measured in the band and
/// beyond it ("then it gets steady or decreases"): its best speedup in the band
/// against `steady` × its best anywhere, by Welch's 95% interval on the runs.
fn speedup_peak_band(p: &PeakParams, a: &Analysis, ctx: &Ctx) -> Outcome {
    let o = speedup_peak_band_any_budget(p, a, ctx);
    if matches!(p.stage, StageName::Learning) { at_paper_budget(a, o) } else { o }
}

fn speedup_peak_band_any_budget(p: &PeakParams, a: &Analysis, _: &Ctx) -> Outcome {
    let j = match judged(a, p.stage) {
        Ok(j) => j,
        Err(o) => return o,
    };
    let (lo, hi) = (p.per_stratum.low, p.per_stratum.high);
    let show = |x: &StratumPoint| format!("{:.1}× at {:.0} (x = {})", x.speedup, x.per_stratum, x.windows);
    let outside: Vec<String> = j
        .stage
        .speedups_per_stratum(&a.instances, CUDA, |w| !j.table.has_windows(w))
        .iter()
        .filter_map(|c| Some(format!("{} peaks {}", set_label(c.set), show(c.peak()?))))
        .collect();
    let beyond = if outside.is_empty() { String::new() } else { format!("at window counts {} lacks: {}", j.name, outside.join("; ")) };
    let curves = j.stage.speedups_per_stratum(&a.instances, CUDA, |w| j.table.has_windows(w));
    if curves.is_empty() {
        return Outcome::not_run(no_cuda(j.stage)).with_beyond(beyond);
    }
    let eligible: Vec<(&str, &StratumPoint, &StratumPoint)> = curves
        .iter()
        .filter(|c| c.points.iter().any(|x| x.per_stratum > hi))
        .filter_map(|c| Some((c.set, c.peak()?, peak(c.points.iter().filter(|x| p.per_stratum.contains(x.per_stratum)))?)))
        .collect();
    if eligible.is_empty() {
        let why =
            format!("no set measured both at {}–{} and above {} training instances per stratum", fmt_num(lo), fmt_num(hi), fmt_num(hi));
        return Outcome::not_run(why).with_beyond(beyond);
    }
    let n = eligible.iter().map(|(_, best, inside)| best.runs.len().min(inside.runs.len())).min().unwrap_or(0);
    let (mut peaks_inside, mut ties) = (0, 0);
    let lines: Vec<String> = eligible
        .iter()
        .map(|(set, best, inside)| {
            let steady: Vec<f64> = best.runs.iter().map(|x| x * p.steady).collect();
            let found = match (best.windows == inside.windows, judge::compare(&inside.runs, &steady)) {
                (true, _) | (false, Some(Comparison::Greater)) => {
                    peaks_inside += 1;
                    "peaks in the band"
                }
                (false, Some(Comparison::Tie)) => {
                    ties += 1;
                    "tie"
                }
                (false, Some(Comparison::Less)) => "peaks outside",
                (false, None) => "no interval",
            };
            format!(
                "{}: best {}, in the band {} (n = {}, {}), {found}",
                set_label(set),
                show(best),
                show(inside),
                best.runs.len(),
                inside.runs.len()
            )
        })
        .collect();
    let evidence = format!(
        "{peaks_inside} of {} sets measured in and above {}–{} training instances per stratum peak in it (their best there not below {} × their best, Welch 95% on the runs; {ties} tie; {}, cuda-paper): {}{}",
        eligible.len(),
        fmt_num(lo),
        fmt_num(hi),
        fmt_num(p.steady),
        j.name,
        lines.join("; "),
        j.budget
    );
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond);
    }
    Outcome::new(Verdict::of(2 * peaks_inside > eligible.len()), evidence).with_beyond(beyond)
}

/// `speedup_peak_set`: the set where the paper's largest speedup lies.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeakSetParams {
    stage: StageName,
    measure: Measure,
    /// The set the paper names.
    set: String,
    min_n: usize,
}

impl Params for PeakSetParams {
    fn validate(&self) -> Result<(), (String, String)> {
        if !SETS.contains(&self.set.as_str()) {
            return Err(("set".into(), format!("unknown set `{}` (known: {})", self.set, SETS.join(", "))));
        }
        check_min_n(self.min_n)
    }
}

/// Section 5.1: the largest speedup of a stage (of the means, as the paper's
/// tables) over the paper's sets and window counts lies in the set the paper
/// names; another set's larger point is set against the named set's best by
/// Welch's 95% interval on the runs (a tie decides nothing: not reproduced).
fn speedup_peak_set(p: &PeakSetParams, a: &Analysis, ctx: &Ctx) -> Outcome {
    let o = speedup_peak_set_any_budget(p, a, ctx);
    if matches!(p.stage, StageName::Learning) { at_paper_budget(a, o) } else { o }
}

fn speedup_peak_set_any_budget(p: &PeakSetParams, a: &Analysis, _: &Ctx) -> Outcome {
    let j = match judged(a, p.stage) {
        Ok(j) => j,
        Err(o) => return o,
    };
    let in_range = |set: &str, w: usize| j.table.at(set, w).is_some();
    let Some((best_x, best_set, best_w)) = largest(j.stage, p.measure, CUDA, in_range) else { return Outcome::not_run(no_cuda(j.stage)) };
    let Some((named_x, named_set, named_w)) = largest(j.stage, p.measure, CUDA, |s, w| s == p.set && in_range(s, w)) else {
        return Outcome::not_run(format!("no cuda-paper runs of {} at {}'s window counts", set_label(&p.set), j.name));
    };
    let paper = SETS
        .iter()
        .flat_map(|&s| j.table.windows.get_ref().iter().map(move |&w| (s, w)))
        .filter_map(|(s, w)| Some((p.measure.paper(j.table, s, w)?, s, w)))
        .max_by(|x, y| x.0.total_cmp(&y.0));
    let (best, named) = (p.measure.runs(j.stage, best_set, best_w, CUDA), p.measure.runs(j.stage, named_set, named_w, CUDA));
    let show = |set: &str, w: usize, x: f64, runs: &[f64]| format!("{} at {x:.1}× (n = {})", at(set, w), runs.len());
    let found = if best_set == named_set { None } else { judge::compare(&named, &best) };
    let paper = paper.map_or(String::new(), |(x, s, w)| format!("; {}'s largest: {} at {x:.1}×", j.name, at(s, w)));
    let evidence = format!(
        "largest {} speedup of cuda-paper over serial at {}'s sets and window counts: {}; {}'s best: {} — {}{paper}{}",
        p.measure.label(),
        j.name,
        show(best_set, best_w, best_x, &best),
        set_label(&p.set),
        show(named_set, named_w, named_x, &named),
        match (best_set == named_set, found) {
            (true, _) => "the same set".to_owned(),
            (false, Some(Comparison::Tie)) => "a tie (Welch 95% on the runs): the runs do not show where it peaks".to_owned(),
            (false, Some(_)) => "below it (Welch 95% on the runs)".to_owned(),
            (false, None) => "no interval".to_owned(),
        },
        j.budget
    );
    let n = best.len().min(named.len());
    if best_set != named_set && n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence);
    }
    Outcome::new(Verdict::of(best_set == named_set), evidence)
}

/// `small_sets_gain_little`: the sets the paper calls very small against those
/// above `large_above` training instances.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmallSetsParams {
    /// The small sets (Section 5.1: pen, sat, wav).
    sets: Vec<String>,
    /// Training instances above which a set is large ("more than 40000 instances").
    large_above: f64,
    /// A small set gains little when its largest net speedup is below this share
    /// of the least 1-window net speedup of the large sets.
    little: f64,
    min_n: usize,
}

impl Params for SmallSetsParams {
    fn validate(&self) -> Result<(), (String, String)> {
        if let Some(set) = self.sets.iter().find(|s| !SETS.contains(&s.as_str())) {
            return Err(("sets".into(), format!("unknown set `{set}` (known: {})", SETS.join(", "))));
        }
        if self.sets.is_empty() {
            return Err(("sets".into(), "at least one set".into()));
        }
        if self.large_above <= 0.0 {
            return Err(("large_above".into(), format!("training instances must be above 0, not {}", self.large_above)));
        }
        if !(self.little > 0.0 && self.little <= 1.0) {
            return Err(("little".into(), format!("a share of a speedup must be in (0, 1], not {}", self.little)));
        }
        check_min_n(self.min_n)
    }
}

/// Section 5.1: each small set's largest net speedup (cuda-paper, Table 3's window
/// counts) against `little` × the least 1-window net speedup among the sets above
/// `large_above` training instances, by Welch's 95% interval on the runs; the
/// window counts where a small set loses (net speedup below 1) are named.
fn small_sets_gain_little(p: &SmallSetsParams, a: &Analysis, _: &Ctx) -> Outcome {
    let stage = &a.eval;
    let in_range = |set: &str, w: usize| a.paper.table3.at(set, w).is_some();
    let large: Vec<&str> = stage
        .sets()
        .into_iter()
        .filter(|s| !p.sets.iter().any(|x| x == s) && a.instances.get(*s).is_some_and(|&n| n as f64 > p.large_above))
        .filter(|s| in_range(s, 1) && stage.speedup(s, 1, CUDA).is_some())
        .collect();
    let small: Vec<(&str, usize)> = p
        .sets
        .iter()
        .filter_map(|s| largest(stage, Measure::SameWindow, CUDA, |x, w| x == s && in_range(x, w)).map(|(_, set, w)| (set, w)))
        .collect();
    let Some(&least) =
        large.iter().min_by(|x, y| stage.speedup(x, 1, CUDA).unwrap_or(0.0).total_cmp(&stage.speedup(y, 1, CUDA).unwrap_or(0.0)))
    else {
        let why = format!("no cuda-paper runs at 1 window of a set above {} training instances", fmt_num(p.large_above));
        return Outcome::not_run(if has_cuda(stage) { why } else { no_cuda(stage) });
    };
    if small.is_empty() {
        return Outcome::not_run(format!("no cuda-paper runs of {} at Table 3's window counts", p.sets.join(", ")));
    }
    let bar: Vec<f64> = stage.run_speedups(least, 1, CUDA).iter().map(|x| x * p.little).collect();
    let mut little = 0;
    let lines: Vec<String> = small
        .iter()
        .map(|&(set, w)| {
            let runs = stage.run_speedups(set, w, CUDA);
            let found = match judge::compare(&runs, &bar) {
                Some(Comparison::Less) => {
                    little += 1;
                    "gains little"
                }
                Some(Comparison::Tie) => "tie",
                Some(Comparison::Greater) => "gains more",
                None => "no interval",
            };
            let loses: Vec<String> = stage
                .windows(set)
                .into_iter()
                .filter(|&x| in_range(set, x) && stage.speedup(set, x, CUDA).is_some_and(|s| s < 1.0))
                .map(|x| x.to_string())
                .collect();
            let loses = if loses.is_empty() { String::new() } else { format!(", loses at {} windows", loses.join(", ")) };
            let plural = if w == 1 { "" } else { "s" };
            let x = stage.speedup(set, w, CUDA).unwrap_or(f64::NAN);
            format!("{}: at most {x:.1}× ({w} window{plural}, n = {}), {found}{loses}", set_label(set), runs.len())
        })
        .collect();
    let paper_small = p
        .sets
        .iter()
        .flat_map(|s| a.paper.table3.windows.get_ref().iter().filter_map(move |&w| Some((a.paper.table3.at(s, w)?.0, s.as_str(), w))))
        .max_by(|x, y| x.0.total_cmp(&y.0));
    let paper_large = large.iter().filter_map(|s| Some((a.paper.table3.at(s, 1)?.0, *s))).min_by(|x, y| x.0.total_cmp(&y.0));
    let paper = match (paper_small, paper_large) {
        (Some((x, s, w)), Some((y, l))) => format!("; the paper: {x:.1}× ({}) against {y:.1}× ({}), {:.2}", at(s, w), at(l, 1), x / y),
        _ => String::new(),
    };
    let least_runs = stage.run_speedups(least, 1, CUDA);
    let evidence = format!(
        "each small set's largest net speedup of cuda-paper at Table 3's window counts against {} × the least 1-window net speedup above {} training instances ({}: {:.1}×, n = {}; Welch 95% on the runs): {little} of {} gain little — {}{paper}",
        fmt_num(p.little),
        fmt_num(p.large_above),
        at(least, 1),
        stage.speedup(least, 1, CUDA).unwrap_or(f64::NAN),
        least_runs.len(),
        small.len(),
        lines.join("; ")
    );
    let n = small.iter().map(|&(s, w)| stage.run_speedups(s, w, CUDA).len()).chain([least_runs.len()]).min().unwrap_or(0);
    if n < p.min_n {
        return Outcome::too_few(n, p.min_n, evidence);
    }
    Outcome::new(Verdict::of(little == small.len()), evidence)
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
