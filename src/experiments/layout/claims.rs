//! The paper's claims as a table of checks (Sections 4.1–4.4, Conclusion).
//!
//! Every check judges the paper's own sweep (Table 1's sizes, or each figure's,
//! see `[sweep]` in the spec) on end-to-end times, copies included, as the paper
//! measures. Strategies compare by the 95% interval of their tries
//! ([`Analysis::standing`]): ties decide nothing and are counted in the
//! evidence. What the records hold beyond the sweep (the fill grid, the kernel
//! alone) goes to the outcome's `beyond`, never into the verdict.

use super::analysis::{Analysis, Figure, Metric, Standing};
use super::spec::{Class, Func, GPU_CLASSES, Size};
use crate::check;
use crate::claims::judge::{self, Band, Comparison, fmt_num, fmt_ratio};
use crate::claims::{Check, Ctx, Estimate, NoParams, Outcome, Params, Verdict};
use crate::library::nonseparable::Function;
use serde::Deserialize;

pub const CHECKS: &[Check<Analysis>] = &[
    check!("fastest_at", fastest_at),
    check!("crossover", crossover),
    check!("s3_limit", super::limits::s3_limit),
    check!("winning_classes", winning_classes),
    check!("support_vectors", support_vectors),
    check!("sequential_region_shrinks", sequential_region_shrinks),
    check!("s3_middle_band", s3_middle_band),
    check!("coalesced_beats_strided", coalesced_beats_strided),
    check!("s4_near_best_gpu", s4_near_best_gpu),
    check!("registers_more_robust", super::likeness::registers_more_robust),
    check!("behaves_like", super::likeness::behaves_like),
];

pub(super) fn size(s: Size) -> String {
    format!("{}×{}", s.0, s.1)
}

fn elements(s: Size) -> f64 {
    (s.0 * s.1) as f64
}

/// Up to six sizes, then how many more.
pub(super) fn list(v: &[String]) -> String {
    match v.len() {
        0 => "none".into(),
        n if n <= 6 => v.join(", "),
        n => format!("{}, … ({} more)", v[..6].join(", "), n - 6),
    }
}

/// What stops a check from deciding: no GPU here, a strategy not run, or too few tries.
fn stopped<'a>(a: &Analysis, standings: impl IntoIterator<Item = &'a (Size, Standing)>) -> Option<Outcome> {
    if !a.gpu_ran {
        return Some(Outcome::not_run(a.gpu_absent.clone()));
    }
    standings.into_iter().find_map(|(s, st)| match st {
        Standing::NotRun(why) => Some(Outcome::not_run(why.clone())),
        Standing::TooFew { n, needs } => Some(Outcome::too_few(*n, *needs, format!("{}: {n} tries per strategy", size(*s)))),
        _ => None,
    })
}

/// As [`stopped`], and also when no size of `standings` has records.
pub(super) fn undecidable(a: &Analysis, standings: &[(Size, Standing)]) -> Option<Outcome> {
    stopped(a, standings)
        .or_else(|| standings.iter().all(|(_, st)| *st == Standing::Missing).then(|| Outcome::not_run("no records at the paper's sizes")))
}

/// Who stands first, size by size, against one strategy.
struct Tally {
    won: Vec<Size>,
    tied: Vec<String>,
    lost: Vec<String>,
    n: Option<usize>,
}

impl Tally {
    fn of(standings: &[(Size, Standing)], strategy: &str) -> Tally {
        let mut t = Tally { won: vec![], tied: vec![], lost: vec![], n: None };
        for (s, st) in standings {
            let first = st.first();
            if let Standing::Won(_, n) | Standing::Tie(_, n) = st {
                t.n = Some(t.n.map_or(*n, |m| m.min(*n)));
            }
            match st {
                Standing::Won(c, _) if *c == strategy => t.won.push(*s),
                Standing::Tie(v, _) if v.contains(&strategy) => t.tied.push(format!("{} ({})", size(*s), v.join(", "))),
                Standing::Won(..) | Standing::Tie(..) => t.lost.push(format!("{}: {}", size(*s), first.join(", "))),
                _ => {}
            }
        }
        t
    }

    fn describe(&self, strategy: &str) -> String {
        let won: Vec<String> = self.won.iter().map(|s| size(*s)).collect();
        format!(
            "{strategy} fastest at {}; tied for first at {}; another strategy faster at {}{}",
            list(&won),
            list(&self.tied),
            list(&self.lost),
            self.n.map_or(String::new(), |n| format!(" (n ≥ {n} tries each)"))
        )
    }
}

/// `strategy` is the fastest of the paper's five at Table 1's sizes within
/// `elements` coordinates (Section 4.1): it wins at least one of them and no
/// strategy is faster at any (ties are counted, not held against it).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastestAt {
    pub function: Func,
    pub strategy: Class,
    /// The paper's range of population × dimension.
    pub elements: Band,
}

impl Params for FastestAt {}

fn fastest_at(p: &FastestAt, a: &Analysis, _: &Ctx) -> Outcome {
    let (f, strategy) = (p.function.0, p.strategy.0);
    let within = |s: &Size| p.elements.contains(elements(*s));
    let standings: Vec<(Size, Standing)> = a.table1.iter().copied().filter(within).map(|s| (s, a.winner(f, s))).collect();
    if let Some(o) = undecidable(a, &standings) {
        return o;
    }
    let t = Tally::of(&standings, strategy);
    let evidence = format!("{}, Table 1's sizes of {} coordinates: {}", f.name(), p.elements, t.describe(strategy));
    let mut beyond = Vec::new();
    let others: Vec<(Size, Standing)> =
        a.sizes(f).into_iter().filter(|s| within(s) && !a.table1.contains(s)).map(|s| (s, a.winner(f, s))).collect();
    if !others.is_empty() {
        beyond.push(format!(
            "the other {} sizes measured in that range: {}",
            others.len(),
            Tally::of(&others, strategy).describe(strategy)
        ));
    }
    if GPU_CLASSES.contains(&strategy) {
        let kernel: Vec<(Size, Standing)> = standings.iter().map(|(s, _)| (*s, a.standing(f, *s, &GPU_CLASSES, Metric::Kernel))).collect();
        beyond.push(format!("kernel alone against S1–S4 at Table 1's sizes: {}", Tally::of(&kernel, strategy).describe(strategy)));
    }
    Outcome::new(Verdict::of(!t.won.is_empty() && t.lost.is_empty()), evidence).with_beyond(beyond.join("; "))
}

/// Where the GPU overtakes sequential evaluation (Section 4.1): the geometric
/// mean of the largest Table 1 size sequential wins and the smallest a GPU
/// strategy wins, against the paper's, within `band`.
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

/// The crossover estimate over some sizes and how it was found, or why there is none.
fn crossing(standings: &[(Size, Standing)]) -> Result<(f64, String), String> {
    let side = |won: bool| -> Vec<Size> {
        standings.iter().filter(|(_, st)| st.group_wins(&["sequential"]) == Some(won)).map(|(s, _)| *s).collect()
    };
    let (seq, gpu) = (side(true), side(false));
    let ties: Vec<String> = standings
        .iter()
        .filter(|(_, st)| !st.first().is_empty() && st.group_wins(&["sequential"]).is_none())
        .map(|(s, _)| size(*s))
        .collect();
    // The first in Table 1's order among sizes of as many coordinates.
    let by_elements = |v: &[Size], max: bool| {
        v.iter().copied().reduce(|x, y| if (max && elements(y) > elements(x)) || (!max && elements(y) < elements(x)) { y } else { x })
    };
    let ties_note = if ties.is_empty() { String::new() } else { format!("; sequential and a GPU strategy tie at {}", list(&ties)) };
    match (by_elements(&seq, true), by_elements(&gpu, false)) {
        (Some(s), Some(g)) => {
            let mut text = format!(
                "sequential fastest up to {} ({} coordinates), a GPU strategy from {} ({})",
                size(s),
                fmt_num(elements(s)),
                size(g),
                fmt_num(elements(g))
            );
            let above: Vec<String> = seq.iter().filter(|x| elements(**x) > elements(g)).map(|x| size(*x)).collect();
            if !above.is_empty() {
                text += &format!("; sequential still fastest above that at {}", list(&above));
            }
            Ok(((elements(s) * elements(g)).sqrt(), text + &ties_note))
        }
        (None, Some(g)) => {
            Err(format!("a GPU strategy is fastest at every size with a winner, from {}: the crossover lies below{ties_note}", size(g)))
        }
        (Some(s), None) => {
            Err(format!("sequential is fastest at every size with a winner, up to {}: the crossover lies above{ties_note}", size(s)))
        }
        (None, None) => Err(format!("no size has a winner{ties_note}")),
    }
}

fn crossover(p: &Crossover, a: &Analysis, ctx: &Ctx) -> Outcome {
    let f = p.function.0;
    let standings: Vec<(Size, Standing)> = a.table1.iter().map(|&s| (s, a.winner(f, s))).collect();
    if let Some(o) = undecidable(a, &standings) {
        return o;
    }
    let grid: Vec<(Size, Standing)> = a.sizes(f).into_iter().map(|s| (s, a.winner(f, s))).collect();
    let beyond = match crossing(&grid) {
        Ok((x, text)) => format!(
            "on all {} sizes measured: {text}; crossover ≈ {} coordinates, {} the paper's",
            grid.len(),
            fmt_num(x.round()),
            fmt_ratio(x / p.paper_elements)
        ),
        Err(why) => format!("on all {} sizes measured: {why}", grid.len()),
    };
    match crossing(&standings) {
        Ok((x, text)) => {
            let mut o = judge::ratio(
                "crossover (coordinates, geometric mean of the two)",
                Estimate::exact(x.round()),
                p.paper_elements,
                &p.band,
                None,
                &[],
                ctx,
            );
            o.evidence = format!("{}, Table 1's sizes: {text}; {}", f.name(), o.evidence);
            o.with_beyond(beyond)
        }
        Err(why) => Outcome::new(Verdict::NotReproduced(None), format!("{}, Table 1's sizes: {why}", f.name())).with_beyond(beyond),
    }
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

/// "(Figure 1, 12 sizes, 2 tied and left out)".
fn sweep_note(fig: &Figure) -> String {
    let ties = fig.ties().len();
    let tied = if ties == 0 { String::new() } else { format!(", {ties} tied and left out") };
    let missing = if fig.missing.is_empty() { String::new() } else { format!(", {} not measured", fig.missing.len()) };
    format!("({}, {} sizes{missing}{tied})", fig.name, fig.sizes.len())
}

/// The winning classes of each figure, in order of problem size, are the paper's (Figures 1–6).
fn winning_classes(_: &NoParams, a: &Analysis, _: &Ctx) -> Outcome {
    if let Some(o) = figures_undecidable(a, &all(a)) {
        return o;
    }
    let mut ok = true;
    let mut ev = Vec::new();
    for fig in &a.figures {
        let measured = fig.classes();
        ok &= measured == fig.paper_classes;
        ev.push(format!("{} {}: {} (paper: {})", fig.function.name(), sweep_note(fig), arrow(&measured), arrow(&fig.paper_classes)));
    }
    let beyond: Vec<String> = a.grid.iter().map(|g| format!("{} {}: {}", g.function.name(), sweep_note(g), arrow(&g.classes()))).collect();
    Outcome::new(Verdict::of(ok), ev.join("; ")).with_beyond(format!("on every size measured — {}", beyond.join("; ")))
}

/// Each caption's support vectors are support vectors of the same class here,
/// with the figure's classes (captions of Figures 1–6).
fn support_vectors(_: &NoParams, a: &Analysis, _: &Ctx) -> Outcome {
    if let Some(o) = figures_undecidable(a, &all(a)) {
        return o;
    }
    let mut ok = true;
    let mut ev = Vec::new();
    for fig in &a.figures {
        let here = fig.support();
        let named: Vec<(&String, Size)> = fig.paper_support.iter().flat_map(|(c, v)| v.iter().map(move |s| (c, *s))).collect();
        let found: Vec<String> =
            named.iter().filter(|(c, s)| here.get(*c).is_some_and(|h| h.contains(s))).map(|(c, s)| format!("{c} {}", size(*s))).collect();
        let classes = fig.classes() == fig.paper_classes;
        ok &= classes && found.len() == named.len();
        let total: usize = here.values().map(|v| v.len()).sum();
        ev.push(format!(
            "{}: {} of the caption's {} found ({}) among {total} support vectors here{}",
            fig.function.name(),
            found.len(),
            named.len(),
            list(&found),
            if classes { "" } else { ", classes differ" }
        ));
    }
    Outcome::new(Verdict::of(ok), ev.join("; "))
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

/// Sequential's region for a pair of functions, over the sizes both figures
/// cover where sequential against the GPU is decided for both.
struct Regions {
    light: Vec<Size>,
    heavy: Vec<Size>,
    /// Sizes decided for both.
    both: usize,
    standings: Vec<(Size, Standing)>,
}

impl Regions {
    fn of(a: &Analysis, light: Function, heavy: Function, grid: bool) -> Regions {
        let fig = |f| if grid { a.grid_of(f) } else { a.figure_of(f) };
        let sizes: Vec<Size> =
            fig(light).map_or(vec![], |l| l.sizes.iter().copied().filter(|s| fig(heavy).is_some_and(|h| h.sizes.contains(s))).collect());
        let mut r = Regions { light: vec![], heavy: vec![], both: 0, standings: vec![] };
        for s in sizes {
            let (wl, wh) = (a.winner(light, s), a.winner(heavy, s));
            if let (Some(l), Some(h)) = (wl.group_wins(&["sequential"]), wh.group_wins(&["sequential"])) {
                r.both += 1;
                if l {
                    r.light.push(s);
                }
                if h {
                    r.heavy.push(s);
                }
            }
            r.standings.extend([(s, wl), (s, wh)]);
        }
        r
    }

    /// "f2_light → f4_light: sequential fastest at 9 → 8 of 21 sizes (only f4_light: 40×40)".
    fn line(&self, light: Function, heavy: Function) -> String {
        let only = |a: &[Size], b: &[Size]| -> Vec<String> { a.iter().filter(|s| !b.contains(s)).map(|s| size(*s)).collect() };
        let (ol, oh) = (only(&self.light, &self.heavy), only(&self.heavy, &self.light));
        let mut notes = Vec::new();
        if !ol.is_empty() {
            notes.push(format!("only {}: {}", light.name(), list(&ol)));
        }
        if !oh.is_empty() {
            notes.push(format!("only {}: {}", heavy.name(), list(&oh)));
        }
        let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join("; ")) };
        format!(
            "{} → {}: sequential fastest at {} → {} of {} sizes{notes}",
            light.name(),
            heavy.name(),
            self.light.len(),
            self.heavy.len(),
            self.both
        )
    }
}

/// The heavier function of each pair has fewer sizes won by sequential.
fn sequential_region_shrinks(p: &Shrinks, a: &Analysis, _: &Ctx) -> Outcome {
    let mut ok = true;
    let (mut ev, mut beyond) = (Vec::new(), Vec::new());
    for [Func(light), Func(heavy)] in &p.pairs {
        let r = Regions::of(a, *light, *heavy, false);
        if let Some(o) = undecidable(a, &r.standings) {
            return o;
        }
        ok &= r.heavy.len() < r.light.len();
        ev.push(r.line(*light, *heavy));
        let g = Regions::of(a, *light, *heavy, true);
        beyond.push(format!("{} → {}: {} → {} of {}", light.name(), heavy.name(), g.light.len(), g.heavy.len(), g.both));
    }
    let note = "sizes of both figures where sequential against the GPU is decided for both";
    Outcome::new(Verdict::of(ok), format!("{} ({note})", ev.join("; ")))
        .with_beyond(format!("on every size measured: {}", beyond.join("; ")))
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
/// that is, S4 in the paper, is the `winning_classes` check's).
fn s3_middle_band(p: &Functions, a: &Analysis, _: &Ctx) -> Outcome {
    if let Some(o) = figures_undecidable(a, &p.functions()) {
        return o;
    }
    let band = |order: &[String]| {
        let pos = |c: &str| order.iter().position(|x| x == c);
        matches!((pos("sequential"), pos("S3")), (Some(x), Some(y)) if x < y && y + 1 < order.len())
    };
    let mut ok = true;
    let (mut ev, mut beyond) = (Vec::new(), Vec::new());
    for Func(f) in &p.functions {
        let (Some(fig), Some(grid)) = (a.figure_of(*f), a.grid_of(*f)) else {
            return Outcome::new(Verdict::NotReproduced(None), format!("the spec has no figure of {}", f.name()));
        };
        let order = fig.classes();
        ok &= band(&order);
        let s3 = fig.points.iter().filter(|x| x.class == "S3").count();
        ev.push(format!("{} {}: S3 fastest at {s3} sizes; {}", f.name(), sweep_note(fig), arrow(&order)));
        beyond.push(format!("{}: {}", f.name(), arrow(&grid.classes())));
    }
    Outcome::new(Verdict::of(ok), ev.join("; ")).with_beyond(format!("on every size measured — {}", beyond.join("; ")))
}

/// Coalesced against strided at every size of the figures of `functions`: S3 or S4 first, S1 or S2 first, or a tie.
fn coalescing(a: &Analysis, functions: &[Func], grid: bool, metric: Metric) -> (Vec<(Size, Standing)>, [Vec<String>; 3]) {
    let mut standings = Vec::new();
    let mut sides: [Vec<String>; 3] = Default::default();
    for Func(f) in functions {
        let fig = if grid { a.grid_of(*f) } else { a.figure_of(*f) };
        for &s in fig.map_or(&[][..], |x| &x.sizes) {
            let st = a.standing(*f, s, &GPU_CLASSES, metric);
            let at = format!("{} {}: {}", f.name(), size(s), st.first().join(", "));
            match st.group_wins(&["S3", "S4"]) {
                Some(true) => sides[0].push(at),
                Some(false) => sides[2].push(at),
                None if !st.first().is_empty() => sides[1].push(at),
                None => {}
            }
            if st != Standing::Missing {
                standings.push((s, st));
            }
        }
    }
    (standings, sides)
}

fn sides_line(sides: &[Vec<String>; 3]) -> String {
    let total: usize = sides.iter().map(Vec::len).sum();
    format!(
        "S3/S4 faster at {} of {total} (function, size) pairs, tied with S1/S2 at {}, slower at {}",
        sides[0].len(),
        sides[1].len(),
        sides[2].len()
    )
}

/// S3 and S4 outperform S1 and S2 at every size (Section 4.3, Conclusion).
fn coalesced_beats_strided(p: &Functions, a: &Analysis, _: &Ctx) -> Outcome {
    let (standings, sides) = coalescing(a, &p.functions, false, Metric::Wall);
    if let Some(o) = undecidable(a, &standings) {
        return o;
    }
    let ok = sides[0].len() == standings.len() && !standings.is_empty();
    let examples = if sides[2].is_empty() { String::new() } else { format!(" (slower: {})", list(&sides[2])) };
    let ties = if sides[1].is_empty() { String::new() } else { format!(" (ties: {})", list(&sides[1])) };
    let evidence = format!("end to end on the figures' sizes: {}{examples}{ties}", sides_line(&sides));
    let kernel = coalescing(a, &p.functions, false, Metric::Kernel).1;
    let grid = coalescing(a, &p.functions, true, Metric::Wall).1;
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
    let beyond = format!(
        "kernel alone on the figures' sizes: {}; end to end on every size measured: {}{share}",
        sides_line(&kernel),
        sides_line(&grid)
    );
    Outcome::new(Verdict::of(ok), evidence).with_beyond(beyond)
}

/// S4 is never significantly slower than `max_ratio` × the best GPU strategy (Conclusion).
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

/// S4 against the best GPU strategy at each size: (where, S4 / best, significantly above `max_ratio`).
fn s4_ratios(a: &Analysis, functions: &[Func], grid: bool, max_ratio: f64) -> Result<Vec<(String, f64, bool)>, Outcome> {
    let mut out = Vec::new();
    for Func(f) in functions {
        let fig = if grid { a.grid_of(*f) } else { a.figure_of(*f) };
        for &s in fig.map_or(&[][..], |x| &x.sizes) {
            let Some(s4) = a.timed(*f, s, "S4") else { continue };
            let Some((best, t)) = GPU_CLASSES
                .iter()
                .filter_map(|c| a.timed(*f, s, c).map(|t| (*c, t)))
                .min_by(|x, y| x.1.summary.mean.total_cmp(&y.1.summary.mean))
            else {
                continue;
            };
            let n = s4.walls.len().min(t.walls.len());
            if n < a.min_n && !grid {
                return Err(Outcome::too_few(n, a.min_n, format!("{} {}: {n} tries", f.name(), size(s))));
            }
            let scaled: Vec<f64> = t.walls.iter().map(|x| x * max_ratio).collect();
            let above = best != "S4" && judge::compare(&s4.walls, &scaled) == Some(Comparison::Greater);
            out.push((format!("{} {} ({best})", f.name(), size(s)), s4.summary.mean / t.summary.mean, above));
        }
    }
    Ok(out)
}

fn worst_line(ratios: &[(String, f64, bool)], max_ratio: f64) -> String {
    let worst = ratios.iter().max_by(|x, y| x.1.total_cmp(&y.1));
    let above: Vec<String> = ratios.iter().filter(|r| r.2).map(|r| format!("{} {}", r.0, fmt_ratio(r.1))).collect();
    format!(
        "S4 / best GPU strategy over {} (function, size) pairs: worst {}; significantly above {} at {}: {}",
        ratios.len(),
        worst.map_or("—".into(), |w| format!("{} at {}", fmt_ratio(w.1), w.0)),
        fmt_ratio(max_ratio),
        above.len(),
        list(&above)
    )
}

fn s4_near_best_gpu(p: &NearBest, a: &Analysis, _: &Ctx) -> Outcome {
    if !a.gpu_ran {
        return Outcome::not_run(a.gpu_absent.clone());
    }
    let ratios = match s4_ratios(a, &p.functions, false, p.max_ratio) {
        Ok(r) => r,
        Err(o) => return o,
    };
    if ratios.is_empty() {
        return Outcome::not_run("no records at the paper's sizes");
    }
    let ok = ratios.iter().all(|r| !r.2);
    let beyond = s4_ratios(a, &p.functions, true, p.max_ratio)
        .map_or(String::new(), |g| format!("on every size measured: {}", worst_line(&g, p.max_ratio)));
    Outcome::new(Verdict::of(ok), format!("end to end on the figures' sizes: {}", worst_line(&ratios, p.max_ratio))).with_beyond(beyond)
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
