//! The paper's claims as a table of checks (Sections 4.1–4.4, Conclusion).
//!
//! Every check judges the paper's own sweep (Table 1's sizes, or each figure's,
//! see `[sweep]` in the spec) on end-to-end times, copies included, as the paper
//! measures. A check measures, size by size, and hands the decision to
//! [`judge`]'s rules: strategies compare by Welch's 95% interval over their
//! tries ([`judge::order`]; a tie is undecided, with the tries it would need),
//! and the sizes combine by the rule the paper's wording implies, named in each
//! check's doc comment. What the records hold beyond the sweep (the fill grid,
//! the kernel alone) goes to the outcome's `beyond`, never into the verdict.

use super::analysis::{Analysis, Figure, Metric, Standing};
use super::crossing::{self, Crossing};
use super::points::{Points, elements, list, size, stopped, undecidable};
use super::spec::{Class, Func, GPU_CLASSES, PAPER_CLASSES, Size};
use crate::check;
use crate::claims::judge::{self, Band, Comparison, Finding};
use crate::claims::{Check, Ctx, Estimate, NoParams, Outcome, Params};
use crate::fmt::fmt_ratio;
use crate::library::nonseparable::Function;
use crate::svm;
use serde::Deserialize;

/// Layout's claims judge its grid by hand: no headline series (each table or
/// figure's number is the quantity its claim judges, where it judges one).
impl crate::claims::generic::Series for Analysis {
    const NAMES: &'static [&'static str] = &[];
}

pub const CHECKS: &[Check<Analysis>] = &[
    check!("fastest_at", fastest_at),
    check!("crossover", crossover),
    check!("s3_limit", super::s3_limit::s3_limit),
    check!("winning_classes", winning_classes),
    check!("support_vectors", support_vectors),
    check!("sequential_region_shrinks", sequential_region_shrinks),
    check!("s3_middle_band", s3_middle_band),
    check!("coalesced_beats_strided", coalesced_beats_strided),
    check!("s4_near_best_gpu", s4_near_best_gpu),
    check!("registers_more_robust", super::likeness::registers_more_robust),
    check!("behaves_like", super::likeness::behaves_like),
];

/// `strategy` faster than each of the paper's other four at one size (Welch,
/// end to end); a strategy that cannot run there is left out, as the paper's NAN.
fn fastest_here(a: &Analysis, f: Function, s: Size, strategy: &str, metric: Metric) -> Option<(Finding, usize)> {
    let mine = a.times(f, s, strategy, metric)?;
    let others: Vec<Vec<f64>> = PAPER_CLASSES.iter().filter(|c| **c != strategy).filter_map(|c| a.times(f, s, c, metric)).collect();
    let n = others.iter().map(Vec::len).chain([mine.len()]).min().unwrap_or(0);
    let each: Vec<Finding> = others.iter().map(|o| judge::order(&mine, o, Comparison::Less)).collect();
    Some((judge::all_of(&each), n))
}

/// `strategy` is the fastest of the paper's five at Table 1's sizes within
/// `elements` coordinates (Section 4.1). At each size it must be faster than
/// each other strategy ([`judge::all_of`]); over the sizes the claim holds
/// when it is at some and no size shows another strategy faster
/// ([`judge::any_none_against`]): the paper's own Table 1 ties S4 with S1 and
/// S2 at 4000×4000 and still calls S4 the fastest for large sizes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastestAt {
    pub function: Func,
    pub strategy: Class,
    /// The paper's range of population × dimension.
    pub elements: Band,
}

impl Params for FastestAt {}

fn fastest_points(a: &Analysis, f: Function, sizes: &[Size], strategy: &str, metric: Metric) -> Points {
    let mut p = Points::default();
    for &s in sizes {
        if let Some((finding, n)) = fastest_here(a, f, s, strategy, metric) {
            p.push(size(s), finding, n);
        }
    }
    p
}

fn fastest_at(p: &FastestAt, a: &Analysis, _: &Ctx) -> Outcome {
    let (f, strategy) = (p.function.0, p.strategy.0);
    let within = |s: &Size| p.elements.contains(elements(*s));
    let sizes: Vec<Size> = a.table1.iter().copied().filter(within).collect();
    let standings: Vec<(Size, Standing)> = sizes.iter().map(|&s| (s, a.winner(f, s))).collect();
    if let Some(o) = undecidable(a, &standings) {
        return o;
    }
    let points = fastest_points(a, f, &sizes, strategy, Metric::Wall);
    let evidence = format!(
        "{}, Table 1's sizes of {} coordinates, {strategy} faster than each other strategy: {}",
        f.name(),
        p.elements,
        points.describe()
    );
    let mut beyond = Vec::new();
    let others: Vec<Size> = a.sizes(f).into_iter().filter(|s| within(s) && !a.table1.contains(s)).collect();
    if !others.is_empty() {
        let o = fastest_points(a, f, &others, strategy, Metric::Wall);
        beyond.push(format!("the other {} sizes measured in that range: {}", others.len(), o.describe()));
    }
    if GPU_CLASSES.contains(&strategy) {
        let kernel: Vec<String> = sizes
            .iter()
            .filter_map(|&s| {
                let st = a.standing(f, s, &GPU_CLASSES, Metric::Kernel);
                (st != Standing::Missing).then(|| format!("{}: {}", size(s), st.label()))
            })
            .collect();
        beyond.push(format!("kernel alone, fastest of S1–S4 at Table 1's sizes: {}", list(&kernel)));
    }
    Outcome::decided(judge::any_none_against(&points.findings()), points.n.unwrap_or(0), evidence).with_beyond(beyond.join("; "))
}

/// Where the GPU overtakes sequential evaluation (Section 4.1): the crossover
/// of Table 1's sizes ([`Crossing`]: interpolated on the log scale, with the
/// tries' spread) against the paper's, within `band`, by [`judge::ratio`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crossover {
    pub function: Func,
    /// The paper's crossover, coordinates.
    pub paper_elements: f64,
    pub band: Band,
}

impl Params for Crossover {
    fn validate(&self) -> Result<(), (String, String)> {
        if self.paper_elements <= 0.0 {
            return Err(("paper_elements".into(), format!("must be positive, not {}", self.paper_elements)));
        }
        self.band.check_ratio("band")
    }
}

fn crossover(p: &Crossover, a: &Analysis, ctx: &Ctx) -> Outcome {
    let f = p.function.0;
    let standings: Vec<(Size, Standing)> = a.table1.iter().map(|&s| (s, a.winner(f, s))).collect();
    if let Some(o) = undecidable(a, &standings) {
        return o;
    }
    let all = Crossing::of(a, f, &a.sizes(f));
    let beyond = format!("on all {} sizes measured: crossover {}", a.sizes(f).len(), all.describe());
    let here = Crossing::of(a, f, &a.table1);
    let evidence = format!("{}, Table 1's sizes: sequential / fastest GPU strategy reaches 1 {}", f.name(), here.describe());
    let Some(estimate) = here.estimate() else {
        let why = Finding::undecided(None, "the tries disagree on where the crossover lies");
        return Outcome::decided(why, here.n(), evidence).with_beyond(beyond);
    };
    let mut o = judge::ratio("crossover (coordinates)", estimate, p.paper_elements, &p.band, None, &[], ctx);
    o.evidence = format!("{evidence}; {}", o.evidence);
    o.with_beyond(beyond)
}

/// Figures 1–6 need every figure decided: no GPU, a strategy not run or too few tries stop them.
fn figures_undecidable(a: &Analysis, functions: &[Function]) -> Option<Outcome> {
    let figures: Vec<&Figure> = a.figures.iter().filter(|f| functions.contains(&f.function)).collect();
    if let Some(o) = stopped(a, figures.iter().flat_map(|f| &f.undecided)) {
        return Some(o);
    }
    let absent: Vec<&str> = figures.iter().filter(|f| f.points.is_empty() && f.undecided.is_empty()).map(|f| f.function.name()).collect();
    (!absent.is_empty()).then(|| Outcome::not_run(format!("no records of {} at the paper's sizes", absent.join(", "))))
}

/// Every function with a figure.
fn all(a: &Analysis) -> Vec<Function> {
    a.figures.iter().map(|f| f.function).collect()
}

fn arrow(v: &[String]) -> String {
    if v.is_empty() { "no winner".into() } else { v.join(" → ") }
}

/// "(Figure 1, 12 sizes, 2 tied)".
fn sweep_note(fig: &Figure) -> String {
    let ties = fig.ties().len();
    let tied = if ties == 0 { String::new() } else { format!(", {ties} tied") };
    let missing = if fig.missing.is_empty() { String::new() } else { format!(", {} not measured", fig.missing.len()) };
    format!("({}, {} sizes{missing}{tied})", fig.name, fig.sizes.len())
}

/// The most tie resolutions [`over_ties`] enumerates.
const MAX_RESOLUTIONS: usize = 1 << 16;

/// Whether `holds` holds of a figure's winning classes in order of problem size
/// whichever way its ties go: each tied size may be won by any strategy tied
/// for first there. Holds for every resolution → holds; for none → fails;
/// otherwise undecided, with the tries the ties need.
pub(super) fn over_ties(fig: &Figure, holds: impl Fn(&[String]) -> bool) -> Finding {
    let ties: Vec<(Size, &[&'static str], Option<usize>)> = fig
        .undecided
        .iter()
        .filter_map(|(s, st)| if let Standing::Tie(v, _, need) = st { Some((*s, &v[..], *need)) } else { None })
        .collect();
    let needed = || ties.iter().map(|t| t.2).try_fold(0, |m, n| n.map(|n| m.max(n)));
    let why = || format!("ties at {} decide it", list(&ties.iter().map(|t| size(t.0)).collect::<Vec<_>>()));
    let total = ties.iter().try_fold(1usize, |m, t| m.checked_mul(t.1.len())).filter(|m| *m <= MAX_RESOLUTIONS);
    let Some(total) = total else { return Finding::undecided(needed(), why()) };
    let (mut yes, mut no) = (false, false);
    for k in 0..total {
        let mut points = fig.points.clone();
        let mut rest = k;
        for (s, v, _) in &ties {
            points.push(svm::Point { pop: s.0 as f64, dim: s.1 as f64, class: v[rest % v.len()].into() });
            rest /= v.len();
        }
        if holds(&svm::class_order(&points)) {
            yes = true
        } else {
            no = true
        }
        if yes && no {
            return Finding::undecided(needed(), why());
        }
    }
    if yes { Finding::Holds } else { Finding::Fails(None) }
}

/// The figure's winning classes in order of problem size are the paper's, whichever way its ties go.
fn classes_hold(fig: &Figure) -> Finding {
    over_ties(fig, |order| order == fig.paper_classes.as_slice())
}

/// The winning classes of each figure, in order of problem size, are the
/// paper's (Figures 1–6, Conclusion): every figure must show them
/// ([`judge::all_of`]).
fn winning_classes(_: &NoParams, a: &Analysis, _: &Ctx) -> Outcome {
    if let Some(o) = figures_undecidable(a, &all(a)) {
        return o;
    }
    let mut findings = Vec::new();
    let mut ev = Vec::new();
    for fig in &a.figures {
        let finding = classes_hold(fig);
        ev.push(format!(
            "{} {}: {} (paper: {}) — {}",
            fig.function.name(),
            sweep_note(fig),
            arrow(&fig.classes()),
            arrow(&fig.paper_classes),
            finding.word()
        ));
        findings.push(finding);
    }
    let beyond: Vec<String> = a.grid.iter().map(|g| format!("{} {}: {}", g.function.name(), sweep_note(g), arrow(&g.classes()))).collect();
    Outcome::decided(judge::all_of(&findings), a.tries().unwrap_or(0), ev.join("; "))
        .with_beyond(format!("on every size measured — {}", beyond.join("; ")))
}

/// Each caption's support vectors are support vectors of the same class here
/// (captions of Figures 1–6), every figure ([`judge::all_of`]). Only where a
/// figure's winning classes are the paper's: elsewhere the margins lie between
/// other classes and that figure is left undecided (the `classes` claim says
/// how its classes differ); with no such figure the claim is not run here.
fn support_vectors(_: &NoParams, a: &Analysis, _: &Ctx) -> Outcome {
    if let Some(o) = figures_undecidable(a, &all(a)) {
        return o;
    }
    let mut findings = Vec::new();
    let mut ev = Vec::new();
    for fig in &a.figures {
        if !classes_hold(fig).holds() {
            findings.push(Finding::undecided(None, "the figure's winning classes are not the paper's"));
            ev.push(format!(
                "{}: classes {} (paper: {}), not compared",
                fig.function.name(),
                arrow(&fig.classes()),
                arrow(&fig.paper_classes)
            ));
            continue;
        }
        let here = fig.support();
        let named: Vec<(&String, Size)> = fig.paper_support.iter().flat_map(|(c, v)| v.iter().map(move |s| (c, *s))).collect();
        let found: Vec<String> =
            named.iter().filter(|(c, s)| here.get(*c).is_some_and(|h| h.contains(s))).map(|(c, s)| format!("{c} {}", size(*s))).collect();
        let total: usize = here.values().map(|v| v.len()).sum();
        findings.push(judge::at_least(&Estimate::exact(found.len() as f64), named.len() as f64));
        ev.push(format!(
            "{}: {} of the caption's {} found ({}) among {total} support vectors here",
            fig.function.name(),
            found.len(),
            named.len(),
            list(&found)
        ));
    }
    if findings.iter().all(|f| matches!(f, Finding::Undecided { .. })) {
        return Outcome::not_run("no figure's winning classes are the paper's (claim `classes`): support vectors compare only within them");
    }
    Outcome::decided(judge::all_of(&findings), a.tries().unwrap_or(0), ev.join("; "))
}

/// Pairs (lighter, heavier) of functions (Sections 4.2–4.3).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shrinks {
    pub pairs: Vec<[Func; 2]>,
}

impl Params for Shrinks {
    fn validate(&self) -> Result<(), (String, String)> {
        match self.pairs.iter().find(|p| p[0] == p[1]) {
            _ if self.pairs.is_empty() => Err(("pairs".into(), "names no pair".into())),
            Some(p) => Err(("pairs".into(), format!("{} is paired with itself", p[0].0.name()))),
            None => Ok(()),
        }
    }
}

/// The crossover of `f` over its figure's sizes, or every size measured (`grid`).
fn crossing_of(a: &Analysis, f: Function, grid: bool) -> Crossing {
    let fig = if grid { a.grid_of(f) } else { a.figure_of(f) };
    Crossing::of(a, f, fig.map_or(&[][..], |x| &x.sizes))
}

/// The heavier function of each pair overtakes sequential evaluation at fewer
/// coordinates (Sections 4.2–4.3: "the suitable problem sizes for sequential
/// evaluation shrink"): its crossover ([`Crossing`], over its figure's sizes)
/// is smaller by Welch's interval over the tries, for every pair
/// ([`judge::all_of`]).
fn sequential_region_shrinks(p: &Shrinks, a: &Analysis, _: &Ctx) -> Outcome {
    let functions: Vec<Function> = p.pairs.iter().flatten().map(|f| f.0).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    for f in &functions {
        let standings: Vec<(Size, Standing)> = a.figure_of(*f).map_or(vec![], |x| x.sizes.iter().map(|&s| (s, a.winner(*f, s))).collect());
        if let Some(o) = undecidable(a, &standings) {
            return o;
        }
    }
    let crossovers = |grid: bool| -> Vec<(Function, Crossing)> { functions.iter().map(|f| (*f, crossing_of(a, *f, grid))).collect() };
    let line = |c: &[(Function, Crossing)]| c.iter().map(|(f, x)| format!("{} {}", f.name(), x.describe())).collect::<Vec<_>>().join("; ");
    let of = |c: &'_ [(Function, Crossing)], f: Function| c.iter().find(|(g, _)| *g == f).map(|(_, x)| x.clone()).expect("listed");
    let here = crossovers(false);
    let mut points = Points::default();
    for [Func(light), Func(heavy)] in &p.pairs {
        let (l, h) = (of(&here, *light), of(&here, *heavy));
        points.push(format!("{} → {}", light.name(), heavy.name()), crossing::earlier(&h, &l), l.n().min(h.n()));
    }
    let evidence = format!(
        "crossover (sequential / fastest GPU strategy = 1) on each figure's sizes: {}; the heavier's smaller: {}",
        line(&here),
        points.describe()
    );
    Outcome::decided(judge::all_of(&points.findings()), points.n.unwrap_or(0), evidence)
        .with_beyond(format!("on every size measured: {}", line(&crossovers(true))))
}

/// The functions a check covers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Functions {
    pub functions: Vec<Func>,
}

impl Functions {
    fn functions(&self) -> Vec<Function> {
        self.functions.iter().map(|f| f.0).collect()
    }
}

impl Params for Functions {
    fn validate(&self) -> Result<(), (String, String)> {
        if self.functions.is_empty() { Err(("functions".into(), "names no function".into())) } else { Ok(()) }
    }
}

/// S3's class lies in the middle in order of problem size (Figures 3, 5, 6):
/// after sequential's and before the class of the largest sizes (which class
/// that is, S4 in the paper, is the `winning_classes` check's), whichever way
/// the figure's ties go ([`over_ties`]), for every function ([`judge::all_of`]).
fn s3_middle_band(p: &Functions, a: &Analysis, _: &Ctx) -> Outcome {
    if let Some(o) = figures_undecidable(a, &p.functions()) {
        return o;
    }
    let band = |order: &[String]| {
        let pos = |c: &str| order.iter().position(|x| x == c);
        matches!((pos("sequential"), pos("S3")), (Some(x), Some(y)) if x < y && y + 1 < order.len())
    };
    let (mut findings, mut ev, mut beyond) = (Vec::new(), Vec::new(), Vec::new());
    for fig in p.functions().into_iter().filter_map(|f| a.figure_of(f)) {
        let finding = over_ties(fig, band);
        let s3 = fig.points.iter().filter(|x| x.class == "S3").count();
        ev.push(format!(
            "{} {}: S3 fastest at {s3} sizes; {} — {}",
            fig.function.name(),
            sweep_note(fig),
            arrow(&fig.classes()),
            finding.word()
        ));
        findings.push(finding);
        if let Some(g) = a.grid_of(fig.function) {
            beyond.push(format!("{}: {}", g.function.name(), arrow(&g.classes())));
        }
    }
    Outcome::decided(judge::all_of(&findings), a.tries().unwrap_or(0), ev.join("; "))
        .with_beyond(format!("on every size measured — {}", beyond.join("; ")))
}

/// At one size, the faster (by mean) of S3 and S4 against each of S1 and S2
/// that ran there, by Welch ([`judge::all_of`] of the two).
fn coalesced_here(a: &Analysis, f: Function, s: Size, metric: Metric) -> Option<(Finding, usize)> {
    let coalesced = ["S3", "S4"]
        .iter()
        .filter_map(|c| a.times(f, s, c, metric))
        .min_by(|x, y| (x.iter().sum::<f64>() / x.len() as f64).total_cmp(&(y.iter().sum::<f64>() / y.len() as f64)))?;
    let strided: Vec<Vec<f64>> = ["S1", "S2"].iter().filter_map(|c| a.times(f, s, c, metric)).collect();
    if strided.is_empty() {
        return None;
    }
    let n = strided.iter().map(Vec::len).chain([coalesced.len()]).min().unwrap_or(0);
    Some((judge::all_of(&strided.iter().map(|x| judge::order(&coalesced, x, Comparison::Less)).collect::<Vec<_>>()), n))
}

fn coalescing(a: &Analysis, functions: &[Func], grid: bool, metric: Metric) -> Points {
    let mut points = Points::default();
    for Func(f) in functions {
        let fig = if grid { a.grid_of(*f) } else { a.figure_of(*f) };
        for &s in fig.map_or(&[][..], |x| &x.sizes) {
            if let Some((finding, n)) = coalesced_here(a, *f, s, metric) {
                points.push(format!("{} {}", f.name(), size(s)), finding, n);
            }
        }
    }
    points
}

/// S3 and S4 outperform S1 and S2 at every size (Section 4.3, Conclusion:
/// "Regardless of the problem size, all cases"): at each size of each figure
/// the faster coalesced strategy beats each strided one, everywhere
/// ([`judge::all_of`]).
fn coalesced_beats_strided(p: &Functions, a: &Analysis, _: &Ctx) -> Outcome {
    if let Some(o) = figures_undecidable(a, &p.functions()) {
        return o;
    }
    let points = coalescing(a, &p.functions, false, Metric::Wall);
    if points.at.is_empty() {
        return Outcome::not_run("no GPU records at the paper's sizes");
    }
    let evidence = format!("end to end on the figures' sizes, S3/S4 faster than S1 and S2: {}", points.describe());
    let kernel = coalescing(a, &p.functions, false, Metric::Kernel);
    let grid = coalescing(a, &p.functions, true, Metric::Wall);
    let shares: Vec<f64> = p
        .functions
        .iter()
        .flat_map(|Func(f)| a.figure_of(*f).map_or(vec![], |x| x.sizes.clone()).into_iter().filter_map(|s| a.copy_share(*f, s)))
        .collect();
    let share = if shares.is_empty() {
        String::new()
    } else {
        format!("; copies are {:.0}% of S4's end-to-end time (median)", 100.0 * crate::stats::median(&shares))
    };
    let beyond =
        format!("kernel alone on the figures' sizes: {}; end to end on every size measured: {}{share}", kernel.describe(), grid.describe());
    Outcome::decided(judge::all_of(&points.findings()), points.n.unwrap_or(0), evidence).with_beyond(beyond)
}

/// S4 is at most `max_ratio` × the best GPU strategy at every size of every
/// figure (Conclusion: "we strongly recommended implementation of S4 for all
/// configurations"): S4's mean over the best one's, with its 95% interval,
/// by [`judge::at_most`], everywhere ([`judge::all_of`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NearBest {
    pub max_ratio: f64,
    pub functions: Vec<Func>,
}

impl Params for NearBest {
    fn validate(&self) -> Result<(), (String, String)> {
        if !(self.max_ratio >= 1.0 && self.max_ratio.is_finite()) {
            return Err(("max_ratio".into(), format!("must be at least 1, not {}", self.max_ratio)));
        }
        Functions { functions: self.functions.clone() }.validate()
    }
}

/// S4 over the best GPU strategy (by mean) at each size, with the finding against `max_ratio`.
fn s4_ratios(a: &Analysis, functions: &[Func], grid: bool, max_ratio: f64) -> (Points, Option<(f64, String)>) {
    let mut points = Points::default();
    let mut worst: Option<(f64, String)> = None;
    for Func(f) in functions {
        let fig = if grid { a.grid_of(*f) } else { a.figure_of(*f) };
        for &s in fig.map_or(&[][..], |x| &x.sizes) {
            let Some(s4) = a.timed(*f, s, "S4") else { continue };
            let best = GPU_CLASSES
                .iter()
                .filter_map(|c| a.timed(*f, s, c).map(|t| (*c, t)))
                .min_by(|x, y| x.1.summary.mean.total_cmp(&y.1.summary.mean));
            let Some(ratio) = best.and_then(|(_, t)| Estimate::ratio_of_means(&s4.walls, &t.walls)) else { continue };
            let at = format!("{} {} ({})", f.name(), size(s), best.map_or("", |b| b.0));
            if worst.as_ref().is_none_or(|w| ratio.value > w.0) {
                worst = Some((ratio.value, at.clone()));
            }
            points.push(format!("{at} {}", fmt_ratio(ratio.value)), judge::at_most(&ratio, max_ratio), ratio.n);
        }
    }
    (points, worst)
}

fn s4_near_best_gpu(p: &NearBest, a: &Analysis, _: &Ctx) -> Outcome {
    let functions: Vec<Function> = p.functions.iter().map(|f| f.0).collect();
    if let Some(o) = figures_undecidable(a, &functions) {
        return o;
    }
    let line = |(points, worst): (Points, Option<(f64, String)>)| {
        let worst = worst.map_or("—".into(), |w| format!("{} at {}", fmt_ratio(w.0), w.1));
        (format!("S4 / best GPU strategy at most {}: worst {worst}; {}", fmt_ratio(p.max_ratio), points.describe()), points)
    };
    let (evidence, points) = line(s4_ratios(a, &p.functions, false, p.max_ratio));
    if points.at.is_empty() {
        return Outcome::not_run("no records at the paper's sizes");
    }
    let beyond = format!("on every size measured: {}", line(s4_ratios(a, &p.functions, true, p.max_ratio)).0);
    Outcome::decided(judge::all_of(&points.findings()), points.n.unwrap_or(0), format!("end to end on the figures' sizes: {evidence}"))
        .with_beyond(beyond)
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
