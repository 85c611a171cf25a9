//! Generic checks: the shapes of claim that recur across papers, declared in a
//! spec by name and parameters, on any analysis that names its samples
//! ([`Series`]). A paper adds [`checks`] to its table and writes by hand only
//! the checks no shape here fits.
//!
//! - `faster`: series `a` takes less time than series `b` (Welch's 95% interval
//!   of the difference of means, [`judge::order`]; a tie is inconclusive).
//! - `ratio_to_paper`: mean(`a`) / mean(`b`) against the paper's `paper` value,
//!   within `band` of it ([`judge::ratio`]: outside falls short or exceeds,
//!   across an edge is inconclusive with the runs needed).
//! - `identical`: every run of a series identical to its reference (an exact
//!   count, [`judge::at_least`]: one run that differs decides against).
//! - `order_at_sizes`: series `a` larger (or faster) than `b` at each size of
//!   the paper's range, by Welch ([`judge::order`]), the sizes combined by the
//!   rule the paper's wording implies ([`across_sizes`]).
//! - `threshold`: at each point of the paper's setting ([`Series::points`]) a
//!   measured estimate at most, at least or within the paper's threshold, by
//!   its 95% interval ([`judge::band`]: across it is inconclusive with the runs
//!   needed), at every point ([`judge::all_of`]) or at over half of them (`rule =
//!   "most"`, [`judge::most_of`]).
//! - `order_at_points`: at each labelled point of the paper's setting
//!   ([`Series::pairs`]: a step between island counts, a pair of settings) one
//!   sample `want` than the other by Welch, the points combined by the rule the
//!   paper's wording implies ([`across_sizes`]); a point the records lack keeps
//!   the claim open unless one present decides against it.
//! - `up_to`: "up to X×", the largest estimate over the points of the paper's
//!   setting against the paper's largest over the same points, within `band`
//!   of it ([`judge::ratio`]); outside, the claim's hardware model explains it
//!   only if it predicts every point.
//! - `exponent`: each of some series, by size, grows as a power of the size
//!   with an exponent in its band (a log–log fit's 95% interval,
//!   [`judge::band`]; n counts sizes), every fit holding ([`judge::all_of`]).

use super::judge::{self, Band, Comparison, Finding};
pub use super::series::{AtSize, BySize, Pairs, Paper, Points, Series, measures};
pub use exponent::{Center, ExponentParams, Fit};

#[path = "generic_exponent.rs"]
mod exponent;
use super::{Check, Ctx, Estimate, Headline, Model, Outcome, Params, Point};
use crate::fmt::{fmt_mean, fmt_num};
use crate::spec::HeadlineSpec;
use serde::Deserialize;

/// The generic checks, for a paper whose analysis is `A`.
pub fn checks<A: Series>() -> [Check<A>; 8] {
    [
        crate::check!("exponent", exponent::exponent::<A>),
        crate::check!("order_at_points", order_at_points::<A>),
        crate::check!("threshold", threshold::<A>),
        crate::check!("up_to", up_to::<A>),
        crate::check!("faster", faster::<A>),
        crate::check!("ratio_to_paper", ratio_to_paper::<A>),
        crate::check!("identical", identical::<A>),
        crate::check!("order_at_sizes", order_at_sizes::<A>),
    ]
}

/// A claim's headline number on one machine ([`crate::spec::HeadlineSpec`]):
/// mean(`a`) at the size `at` (or over every run), or mean(`a`) / mean(`b`),
/// each with its 95% interval, over the paper's value; None where the records
/// hold no run of it.
pub fn headline<A: Series>(h: &HeadlineSpec, analysis: &A) -> Option<Headline> {
    let runs = |name: &str| -> Option<Vec<f64>> {
        let xs = match h.at {
            Some(at) => analysis.by_size(name)?.at.get(&at)?.clone(),
            None => analysis.series(name)?,
        };
        (!xs.is_empty()).then_some(xs)
    };
    let a = runs(&h.a)?;
    let measured = match &h.b {
        Some(b) => Estimate::ratio_of_means(&a, &runs(b)?)?,
        None => Estimate::mean_of(&a)?,
    };
    Some(Headline { what: h.what.clone(), measured, paper: h.paper, ratio: measured.scale(1.0 / h.paper) })
}

/// `faster`: the series compared and the runs each needs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FasterParams {
    /// The series claimed faster (lower times).
    pub a: String,
    pub b: String,
    #[serde(default = "two")]
    pub min_n: usize,
}

/// `ratio_to_paper`: measured mean(a) / mean(b) against the paper's value.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatioParams {
    pub a: String,
    pub b: String,
    /// The paper's value of the ratio.
    pub paper: f64,
    /// Measured / paper that reproduces it.
    pub band: Band,
    #[serde(default = "two")]
    pub min_n: usize,
}

fn two() -> usize {
    2
}

impl Params for FasterParams {
    fn series(&self) -> Vec<(&'static str, &str)> {
        vec![("a", &self.a), ("b", &self.b)]
    }

    fn validate(&self) -> Result<(), (String, String)> {
        min_n_of(self.min_n)
    }
}

impl Params for RatioParams {
    fn series(&self) -> Vec<(&'static str, &str)> {
        vec![("a", &self.a), ("b", &self.b)]
    }

    fn validate(&self) -> Result<(), (String, String)> {
        if !(self.paper > 0.0 && self.paper.is_finite()) {
            return Err(("paper".into(), format!("the paper's ratio must be positive and finite, not {}", self.paper)));
        }
        self.band.check_ratio("band")?;
        min_n_of(self.min_n)
    }
}

fn min_n_of(n: usize) -> Result<(), (String, String)> {
    if n >= 2 { Ok(()) } else { Err(("min_n".into(), format!("a spread needs at least 2 runs, not {n}"))) }
}

/// The two series' samples, or the outcome that says why they cannot be judged.
fn samples<A: Series>(analysis: &A, a: &str, b: &str, min_n: usize) -> Result<(Vec<f64>, Vec<f64>), Outcome> {
    let (Some(x), Some(y)) = (analysis.series(a), analysis.series(b)) else {
        return Err(Outcome::not_run(format!("no records of `{a}` and `{b}` on this machine")));
    };
    let n = x.len().min(y.len());
    judge::enough(n, min_n, &format!("`{a}` against `{b}`"))?;
    Ok((x, y))
}

fn faster<A: Series>(p: &FasterParams, analysis: &A, _ctx: &Ctx) -> Outcome {
    let (x, y) = match samples(analysis, &p.a, &p.b, p.min_n) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let finding = judge::order(&x, &y, Comparison::Less);
    let evidence =
        format!("`{}` {} against `{}` {} (n = {} and {}): {}", p.a, mean_text(&x), p.b, mean_text(&y), x.len(), y.len(), finding.word());
    Outcome::decided(finding, x.len().min(y.len()), evidence)
}

fn ratio_to_paper<A: Series>(p: &RatioParams, analysis: &A, ctx: &Ctx) -> Outcome {
    let (x, y) = match samples(analysis, &p.a, &p.b, p.min_n) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let Some(measured) = Estimate::ratio_of_means(&x, &y) else {
        return Outcome::not_run(format!("`{}` / `{}`: no ratio of means", p.a, p.b));
    };
    judge::ratio(&format!("`{}` / `{}`", p.a, p.b), measured, p.paper, &p.band, None, &[], ctx)
}

fn mean_text(xs: &[f64]) -> String {
    crate::fmt::fmt_num(xs.iter().sum::<f64>() / xs.len() as f64)
}

/// `identical`: the series holds 1 for each run identical to its reference
/// (models, offspring, result…), 0 for each that differs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdenticalParams {
    pub series: String,
    /// What the runs are and what each must equal: "k of n {of} identical to {to}".
    pub of: String,
    pub to: String,
    /// The paper's range of sizes (the series read by size; the others go beyond the paper); every run where absent.
    #[serde(default)]
    pub sizes: Option<Band>,
    #[serde(default = "one")]
    pub min_n: usize,
}

fn one() -> usize {
    1
}

impl Params for IdenticalParams {
    fn series(&self) -> Vec<(&'static str, &str)> {
        vec![("series", &self.series)]
    }

    fn validate(&self) -> Result<(), (String, String)> {
        if self.min_n == 0 { Err(("min_n".into(), "a count needs at least 1 run".into())) } else { Ok(()) }
    }
}

/// Runs identical and runs in all.
fn count(runs: &[f64]) -> (usize, usize) {
    (runs.iter().filter(|v| **v == 1.0).count(), runs.len())
}

/// Every run identical: an exact count, the identical runs at least all of
/// them ([`judge::at_least`]), so one run that differs decides against.
fn identical<A: Series>(p: &IdenticalParams, a: &A, _: &Ctx) -> Outcome {
    let (runs, at, mut beyond) = match &p.sizes {
        None => (a.series(&p.series).unwrap_or_default(), String::new(), Vec::new()),
        Some(range) => {
            let by = a.by_size(&p.series).unwrap_or_default();
            let [inside, outside] = by.split(range);
            let at = format!(" at {} = {range}", by.symbol);
            let beyond = match count(&outside) {
                (_, 0) => Vec::new(),
                (same, runs) => vec![format!("{same} of {runs} {} identical outside {} = {range}", p.of, by.symbol)],
            };
            (inside, at, beyond)
        }
    };
    beyond.extend(a.beyond(&p.series));
    let beyond = beyond.join("; ");
    let (same, n) = count(&runs);
    if n == 0 {
        let why = a.absent(&p.series).unwrap_or_else(|| format!("no {}{at} in these records", p.of));
        return Outcome::not_run(why).with_beyond(beyond);
    }
    let evidence = format!("{same} of {n} {}{at} identical to {}", p.of, p.to);
    if let Err(o) = judge::enough(n, p.min_n, &p.of) {
        return Outcome { evidence, ..o }.with_beyond(beyond);
    }
    Outcome::decided(judge::at_least(&Estimate::exact(same as f64), n as f64), n, evidence).with_beyond(beyond)
}

/// What a claim of order wants of `a` against `b`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Want {
    /// Larger values (populations, fitness…).
    Larger,
    /// Lower times.
    Faster,
}

impl Want {
    fn comparison(self) -> Comparison {
        match self {
            Want::Larger => Comparison::Greater,
            Want::Faster => Comparison::Less,
        }
    }

    /// The words for the order wanted and its opposite.
    fn words(self) -> [&'static str; 2] {
        match self {
            Want::Larger => ["larger", "smaller"],
            Want::Faster => ["faster", "slower"],
        }
    }
}

/// How a claim's sizes (points) combine.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizesRule {
    /// At every size ([`judge::all_of`]).
    #[default]
    Every,
    /// At some size and against it at none: ties neither support nor contradict ([`judge::any_none_against`]).
    SomeNoneAgainst,
    /// At more than half of them ("for most of the problems", [`judge::most_of`]).
    Most,
}

impl SizesRule {
    fn rule(self) -> Rule {
        match self {
            SizesRule::Every => judge::all_of,
            SizesRule::SomeNoneAgainst => judge::any_none_against,
            SizesRule::Most => judge::most_of,
        }
    }

    /// How the evidence says it: "each", "at some, against at none", "most".
    fn words(self) -> &'static str {
        match self {
            SizesRule::Every => "each",
            SizesRule::SomeNoneAgainst => "at some, against at none",
            SizesRule::Most => "at over half the points",
        }
    }
}

/// `order_at_sizes`: series `a` `want` than `b` at each size of `sizes`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderParams {
    pub a: String,
    pub b: String,
    /// How the evidence names `a` and `b`: ["GM", "greedy"].
    pub names: [String; 2],
    /// What the samples are, where none are found: "Table 5 bisections of both searches".
    pub of: String,
    pub want: Want,
    /// The paper's range of sizes; the others go beyond the paper. Absent: every size the
    /// series holds is the paper's (the analysis keeps the others apart, [`Series::beyond`]).
    #[serde(default)]
    pub sizes: Option<Band>,
    pub rule: SizesRule,
    /// Runs each size needs.
    pub min_n: usize,
}

impl Params for OrderParams {
    fn series(&self) -> Vec<(&'static str, &str)> {
        vec![("a", &self.a), ("b", &self.b)]
    }

    fn validate(&self) -> Result<(), (String, String)> {
        min_n_of(self.min_n)
    }
}

fn order_at_sizes<A: Series>(p: &OrderParams, a: &A, _: &Ctx) -> Outcome {
    let (x, y) = (a.by_size(&p.a).unwrap_or_default(), a.by_size(&p.b).unwrap_or_default());
    let [mine, other] = [&p.names[0], &p.names[1]].map(String::as_str);
    let words = p.want.words().map(|w| format!("{mine} {w}"));
    let compare = |sizes: &[usize]| {
        let points: Vec<AtSize> =
            sizes.iter().map(|s| AtSize { label: format!("{} = {s}", x.symbol), a: x.at[s].clone(), b: y.at[s].clone() }).collect();
        across_sizes(&points, p.want.comparison(), p.min_n, p.rule.rule(), (mine, other), [&words[0], &words[1]], "sizes")
    };
    let (inside, outside): (Vec<usize>, Vec<usize>) =
        x.at.keys().filter(|s| y.at.contains_key(s)).partition(|s| p.sizes.is_none_or(|r| r.contains(**s as f64)));
    let mut beyond: Vec<String> = match (&p.sizes, outside.is_empty()) {
        (Some(range), false) => vec![format!("outside {} = {range}: {}", x.symbol, compare(&outside).evidence)],
        _ => Vec::new(),
    };
    beyond.extend(a.beyond(&p.a));
    let beyond = beyond.join("; ");
    if inside.is_empty() {
        let why = a.absent(&p.a).or_else(|| a.absent(&p.b));
        let at = p.sizes.map_or(String::new(), |r| format!(" at {} = {r}", x.symbol));
        let why = why.unwrap_or_else(|| format!("no {}{at} in these records", p.of));
        return Outcome::not_run(why).with_beyond(beyond);
    }
    let o = compare(&inside);
    let evidence = match a.measured_as(&p.a) {
        Some(how) => format!("{how}: {}", o.evidence),
        None => o.evidence.clone(),
    };
    Outcome { evidence, ..o }.with_beyond(beyond)
}

/// `order_at_points`: at every point of `series` ([`Series::pairs`]) its A `want` than its B.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairsParams {
    pub series: String,
    /// How the evidence names A and B: ["more", "fewer"].
    pub names: [String; 2],
    pub want: Want,
    /// The words for A as the claim wants it and the opposite ("better", "worse"); absent: "{A} larger", "{A} smaller".
    #[serde(default)]
    pub words: Option<[String; 2]>,
    pub rule: SizesRule,
    /// Runs each side of a point needs.
    pub min_n: usize,
}

impl Params for PairsParams {
    fn series(&self) -> Vec<(&'static str, &str)> {
        vec![("series", &self.series)]
    }

    fn validate(&self) -> Result<(), (String, String)> {
        min_n_of(self.min_n)
    }
}

/// Every point by Welch ([`across_sizes`]), combined by `rule`. Points of the
/// setting the records lack leave the claim not run here (with what was judged
/// beyond the paper) unless a point present already decides against it.
fn order_at_points<A: Series>(p: &PairsParams, a: &A, _: &Ctx) -> Outcome {
    let pairs = a.pairs(&p.series);
    let missing = pairs.missing.join(", ");
    if pairs.at.is_empty() {
        let why = pairs.absent.clone().unwrap_or_else(|| format!("no {} in these records", p.series));
        let why = if missing.is_empty() { why } else { format!("{why} ({missing})") };
        return at_budget(Outcome::not_run(why).with_beyond(pairs.beyond.clone()), &pairs.budget);
    }
    let words = p.words.clone().unwrap_or_else(|| p.want.words().map(|w| format!("{} {w}", p.names[0])));
    let o =
        across_sizes(&pairs.at, p.want.comparison(), p.min_n, p.rule.rule(), (&p.names[0], &p.names[1]), [&words[0], &words[1]], "points");
    let o = Outcome { evidence: format!("{}: {}", pairs.setting, o.evidence), ..o };
    if !missing.is_empty() && !matches!(o.verdict, super::Verdict::NotReproduced(_)) {
        return set_aside(format!("points not in these records: {missing}"), &o.evidence, &pairs.beyond);
    }
    let o = at_budget(o.with_beyond(pairs.beyond.clone()), &pairs.budget);
    match &pairs.stand_in {
        Some(what) => o.with_stand_in(what.clone()),
        None => o,
    }
}

/// `o` with the budget its samples were measured at, where known.
fn at_budget(o: Outcome, budget: &Option<super::Budget>) -> Outcome {
    match budget {
        Some(b) => o.with_budget(b.clone()),
        None => o,
    }
}

/// Not run here for `why`: what was judged goes beyond the paper, with what lies outside the setting.
fn set_aside(why: String, judged: &str, outside: &str) -> Outcome {
    let beyond: Vec<&str> = [judged, outside].into_iter().filter(|b| !b.is_empty()).collect();
    Outcome::not_run(why).with_beyond(beyond.join("; "))
}

/// `threshold`: the points of `series` in the paper's `sizes`, each at most
/// `at_most`, at least `at_least` or within `within` (one of them).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThresholdParams {
    pub series: String,
    #[serde(default)]
    pub at_most: Option<f64>,
    #[serde(default)]
    pub at_least: Option<f64>,
    #[serde(default)]
    pub within: Option<Band>,
    #[serde(default)]
    pub sizes: Option<Band>,
    /// How the points combine: every one by default.
    #[serde(default)]
    pub rule: SizesRule,
    /// Runs every point needs.
    pub min_n: usize,
}

impl ThresholdParams {
    /// The threshold as a band, and its words: "at most 10".
    fn bound(&self) -> (Band, String) {
        match (self.at_most, self.at_least, self.within) {
            (Some(x), ..) => (Band { low: f64::NEG_INFINITY, high: x }, format!("at most {}", fmt_num(x))),
            (_, Some(x), _) => (Band { low: x, high: f64::INFINITY }, format!("at least {}", fmt_num(x))),
            (.., b) => {
                let b = b.expect("validated: one threshold");
                (b, format!("within {b}"))
            }
        }
    }
}

impl Params for ThresholdParams {
    fn series(&self) -> Vec<(&'static str, &str)> {
        vec![("series", &self.series)]
    }

    fn validate(&self) -> Result<(), (String, String)> {
        match (self.at_most, self.at_least, self.within) {
            (Some(x), None, None) | (None, Some(x), None) if x.is_finite() => min_n_of(self.min_n),
            (None, None, Some(_)) => min_n_of(self.min_n),
            _ => Err(("at_most".into(), "name one finite threshold: at_most, at_least or within".into())),
        }
    }
}

/// Every point's interval on the threshold's side ([`judge::band`]), the points
/// combined by `rule` ([`judge::all_of`] unless the spec says otherwise); the
/// claim needs `min_n` runs at every point (fewer anywhere is inconclusive).
/// Points the analysis sets aside are judged the same and shown beyond the paper.
fn threshold<A: Series>(p: &ThresholdParams, a: &A, _: &Ctx) -> Outcome {
    on_points(&a.points(&p.series, p.sizes.as_ref()), &p.series, |points, n| {
        let (band, words) = p.bound();
        let findings: Vec<Finding> = points.at.iter().map(|(_, e)| judge::band(e, &band)).collect();
        let evidence = format!("{} ({words} {}): {}", points.setting, p.rule.words(), each_point(&points.at, &findings));
        let finding = p.rule.rule()(&findings);
        match points.ratio {
            _ if n < p.min_n => Outcome::too_few(n, p.min_n, evidence),
            Some(r) => Outcome::decided(finding, n, evidence).with_ratio(r),
            None => Outcome::decided(finding, n, evidence),
        }
    })
}

/// What every check on [`Points`] shares: none → not run (the analysis's
/// reason); set aside → not run, the judged evidence shown beyond the paper;
/// else `judge(points, fewest runs of a point)`; the budget and what lies beyond
/// the setting added either way.
fn on_points(points: &Points, series: &str, judge: impl FnOnce(&Points, usize) -> Outcome) -> Outcome {
    if points.at.is_empty() {
        let why = points.absent.clone().unwrap_or_else(|| format!("no {series} in these records"));
        return at_budget(Outcome::not_run(why).with_beyond(points.beyond.clone()), &points.budget);
    }
    let n = points.at.iter().map(|x| x.1.n).min().unwrap_or(0);
    let o = judge(points, n);
    if let Some(why) = &points.set_aside {
        return set_aside(why.clone(), &o.evidence, &points.beyond);
    }
    at_budget(o.with_beyond(points.beyond.clone()), &points.budget)
}

/// `up_to`: the largest point of `series` against the paper's largest ([`Paper`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpToParams {
    pub series: String,
    /// Measured / paper that reproduces it.
    pub band: Band,
    /// Runs every point needs.
    #[serde(default = "one")]
    pub min_n: usize,
    /// What bounds the value, to explain a ratio outside the band.
    #[serde(default)]
    pub model: Option<Model>,
}

impl Params for UpToParams {
    fn series(&self) -> Vec<(&'static str, &str)> {
        vec![("series", &self.series)]
    }

    fn validate(&self) -> Result<(), (String, String)> {
        self.band.check_ratio("band")?;
        if self.min_n == 0 { Err(("min_n".into(), "a point needs at least 1 run".into())) } else { Ok(()) }
    }

    fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }
}

/// "Up to": the largest estimate over the points against the paper's largest
/// over the same points (or the one value it gives), by [`judge::ratio`], so an
/// interval across a band edge is inconclusive. Outside the band the model
/// explains it only if it predicts every point (each point's estimate over the
/// paper's there; none without the paper's points). Every point is listed up to
/// [`POINTS_NAMED`] of them.
fn up_to<A: Series>(p: &UpToParams, a: &A, ctx: &Ctx) -> Outcome {
    on_points(&a.points(&p.series, None), &p.series, |points, n| {
        let largest = |xs: &mut dyn Iterator<Item = (usize, f64)>| xs.max_by(|x, y| x.1.total_cmp(&y.1)).map(|x| x.0);
        let here = largest(&mut points.at.iter().map(|x| x.1.value).enumerate()).expect("points");
        let (label, measured) = &points.at[here];
        let mut what = format!("{}: largest at {label}", points.setting);
        let (paper, each) = match &points.paper {
            Paper::Each(v) if v.len() == points.at.len() => {
                let top = largest(&mut v.iter().copied().enumerate()).expect("points");
                what += &format!(", against the paper's largest over the same {} points (at {})", v.len(), points.at[top].0);
                let runs = |l: &String| points.runs.get(l).into_iter().flatten().copied();
                let each: Vec<Point> =
                    points.at.iter().zip(v).map(|((l, e), p)| Point::new(l.clone(), e.scale(1.0 / p)).in_runs(runs(l))).collect();
                (v[top], each)
            }
            Paper::Largest(x) => (*x, Vec::new()),
            _ => return Outcome::not_run(format!("the paper gives no value for the points of {}", p.series)),
        };
        if n < p.min_n {
            return Outcome::too_few(n, p.min_n, format!("{what}: {measured}"));
        }
        let mut o = judge::ratio(&what, *measured, paper, &p.band, p.model.as_ref(), &each, ctx);
        if points.at.len() <= POINTS_NAMED && points.at.len() > 1 {
            let every: Vec<String> = points.at.iter().map(|(l, e)| format!("{l}: {e}")).collect();
            o.evidence += &format!("; every point: {}", every.join(", "));
        }
        o
    })
}

/// Up to this many points, the evidence of a `threshold` names each; past it,
/// those that hold are counted with their range, the others named (up to this
/// many of each kind, the rest counted with their range).
const POINTS_NAMED: usize = 12;

/// Every point with its estimate and finding, or, past [`POINTS_NAMED`], "16 of
/// 55 points hold (0.7–1.9); not inside: …; undecided: …".
fn each_point(at: &[(String, Estimate)], findings: &[Finding]) -> String {
    let named = |keep: &dyn Fn(&Finding) -> bool| -> Vec<String> {
        at.iter().zip(findings).filter(|(_, f)| keep(f)).map(|((l, e), f)| format!("{l}: {e} — {}", f.word())).collect()
    };
    if at.len() <= POINTS_NAMED {
        return named(&|_| true).join("; ");
    }
    let values = |keep: &dyn Fn(&Finding) -> bool| -> Vec<f64> {
        at.iter().zip(findings).filter(|(_, f)| keep(f)).map(|((_, e), _)| e.value).collect()
    };
    let range = |xs: &[f64]| {
        let r = xs.iter().copied().reduce(f64::min).zip(xs.iter().copied().reduce(f64::max));
        r.map_or(String::new(), |(lo, hi)| format!(" ({}–{})", crate::fmt::fmt_sig(lo), crate::fmt::fmt_sig(hi)))
    };
    let held = values(&Finding::holds);
    let mut parts = vec![format!("{} of {} points hold{}", held.len(), at.len(), range(&held))];
    for (word, keep) in
        [("not inside", Finding::fails as fn(&Finding) -> bool), ("undecided", |f: &Finding| matches!(f, Finding::Undecided { .. }))]
    {
        let these = named(&keep);
        match these.len() {
            0 => {}
            k if k <= POINTS_NAMED => parts.push(format!("{word}: {}", these.join(", "))),
            k => parts.push(format!(
                "{word}: {k} points{}, the first {POINTS_NAMED}: {}, …",
                range(&values(&keep)),
                these[..POINTS_NAMED].join(", ")
            )),
        }
    }
    parts.join("; ")
}

/// How a claim's points combine: [`judge::all_of`] or [`judge::any_none_against`].
pub type Rule = fn(&[Finding]) -> Finding;

/// Fewer runs than the claim needs: undecided, needing `min_n`.
pub fn too_few(min_n: usize) -> Finding {
    Finding::undecided(Some(min_n), format!("fewer runs than the claim needs ({min_n})"))
}

/// The runs a verdict over points of `ns` runs rests on: the fewest of any
/// point with enough runs, else the most of any.
pub fn fewest(ns: impl Iterator<Item = usize> + Clone, min_n: usize) -> usize {
    ns.clone().filter(|&n| n >= min_n).min().or_else(|| ns.max()).unwrap_or(0)
}

/// A claim "A is `want` than B" over several sizes: at each size A's runs
/// against B's by Welch ([`judge::order`]; a size with fewer than `min_n` runs
/// is undecided, needing them), the sizes combined by `rule`. `words` name A
/// as the claim wants it and the opposite; `unit` what the points are ("sizes").
pub fn across_sizes(
    sizes: &[AtSize],
    want: Comparison,
    min_n: usize,
    rule: Rule,
    names: (&str, &str),
    words: [&str; 2],
    unit: &str,
) -> Outcome {
    let mut count = [0; 4];
    let mut findings = Vec::new();
    let mut parts = Vec::new();
    let word = |f: &Finding| match f {
        Finding::Holds => words[0],
        Finding::Undecided { .. } => "tie",
        Finding::Fails(_) => words[1],
    };
    for s in sizes {
        let order = judge::order(&s.a, &s.b, want);
        let (k, f, word) = match order {
            // What the runs show so far, where they have a spread, beside the runs the claim needs.
            _ if s.n() < min_n && s.n() >= 2 => (3, too_few(min_n), format!("too few runs (n = {}; so far {})", s.n(), word(&order))),
            _ if s.n() < min_n => (3, too_few(min_n), format!("too few runs (n = {})", s.n())),
            Finding::Holds => (0, order, words[0].to_owned()),
            Finding::Undecided { .. } => (1, order, "tie".to_owned()),
            Finding::Fails(_) => (2, order, words[1].to_owned()),
        };
        count[k] += 1;
        findings.push(f);
        parts.push(format!("{}: {} {} vs {} {} — {word}", s.label, names.0, fmt_mean(&s.a), names.1, fmt_mean(&s.b)));
    }
    let few = if count[3] > 0 { format!(", too few runs at {}", count[3]) } else { String::new() };
    let evidence = format!(
        "{} at {} of {} {unit}, tie at {}, {} at {}{few}: {}",
        words[0],
        count[0],
        sizes.len(),
        count[1],
        words[1],
        count[2],
        parts.join("; ")
    );
    Outcome::decided(rule(&findings), fewest(sizes.iter().map(AtSize::n), min_n), evidence)
}

#[cfg(test)]
#[path = "generic_tests.rs"]
mod tests;
