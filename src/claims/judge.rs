//! The rules every paper's checks share: the only place where a tie, a
//! spread, an edge or a direction is decided.
//!
//! - **Bands** ([`band`], [`at_most`], [`at_least`]): an estimate's 95%
//!   interval wholly inside the band holds; wholly outside fails, falling short
//!   or exceeding; across an edge is undecided, with the runs the observed
//!   spread would need to clear it ([`Estimate::n_to_clear`]).
//! - **Comparisons** ([`order`]): two samples differ only when Welch's 95%
//!   interval of the difference of their means excludes zero; a tie is
//!   undecided, with the runs a difference that size would need. Values without
//!   spread ([`order_exact`]) differ by plain order; equal ones are undecided
//!   for good.
//! - **Several points** ([`all_of`], [`any_none_against`], [`most_of`]): how the
//!   findings at several sizes, sets or functions combine.
//! - **Quantitative claims** ([`ratio`], several at once: [`all_of_outcomes`];
//!   a comparison decided against: [`explained`]): the measured estimate over the paper's
//!   value judged by [`band`]; outside it, "differs on this hardware" only when
//!   the claim's hardware [`Model`] predicts every matched point inside the band
//!   (each point's interval over its prediction, by [`band`]); a point across
//!   an edge of that band, with none missed, leaves the claim inconclusive.
//! - **Minimum runs** ([`enough`]): below the spec's `min_n` a claim is
//!   inconclusive, needing `min_n`.
//!
//! A [`Finding`] becomes a verdict by [`Finding::verdict`]: holds → reproduced,
//! fails → not reproduced (with its direction), undecided → inconclusive.

use super::estimate::{Estimate, MAX_N_NEEDED};
use super::hardware::Predicted;
use super::{Ctx, Direction, Explanation, Model, Outcome, Point, Quantified, Verdict};
use crate::fmt::{fmt_num, fmt_ratio, fmt_ratio_interval, fmt_sig};
use crate::spec::Pair;
use crate::stats::{self, Summary, t975};
use serde::Deserialize;

/// What the data say of one claim (or one point of it).
#[derive(Clone, Debug, PartialEq)]
pub enum Finding {
    Holds,
    /// Decided against, falling short or exceeding where that applies.
    Fails(Option<Direction>),
    /// The data cannot decide: the runs the observed spread would need (None:
    /// none would), and why.
    Undecided {
        n_needed: Option<usize>,
        why: String,
    },
}

impl Finding {
    pub fn undecided(n_needed: Option<usize>, why: impl Into<String>) -> Finding {
        Finding::Undecided { n_needed, why: why.into() }
    }

    /// The verdict over `n` runs.
    pub fn verdict(self, n: usize) -> Verdict {
        match self {
            Finding::Holds => Verdict::Reproduced,
            Finding::Fails(d) => Verdict::NotReproduced(d),
            Finding::Undecided { n_needed, why } => Verdict::Inconclusive { n, n_needed, why },
        }
    }

    /// A word for evidence lines: "holds", "falls short", "exceeds", "fails", "undecided".
    pub fn word(&self) -> &'static str {
        match self {
            Finding::Holds => "holds",
            Finding::Fails(Some(Direction::FallsShort)) => "falls short",
            Finding::Fails(Some(Direction::Exceeds)) => "exceeds",
            Finding::Fails(None) => "fails",
            Finding::Undecided { .. } => "undecided",
        }
    }

    pub fn holds(&self) -> bool {
        matches!(self, Finding::Holds)
    }

    pub fn fails(&self) -> bool {
        matches!(self, Finding::Fails(_))
    }
}

/// The larger of two "runs needed" (None, "no number decides", wins).
fn most_needed(a: Option<Option<usize>>, b: Option<usize>) -> Option<Option<usize>> {
    Some(match a {
        None => b,
        Some(a) => a.zip(b).map(|(x, y)| x.max(y)),
    })
}

/// Every point must hold: one that fails decides against; otherwise any
/// undecided point leaves the claim undecided (needing the most runs any of them needs).
pub fn all_of(points: &[Finding]) -> Finding {
    if let Some(Finding::Fails(d)) = points.iter().find(|f| f.fails()) {
        let dirs: Vec<Option<Direction>> = points.iter().filter_map(|f| if let Finding::Fails(d) = f { Some(*d) } else { None }).collect();
        return Finding::Fails(if dirs.iter().all(|x| x == d) { *d } else { None });
    }
    undecided_among(points, "some points cannot be decided").unwrap_or(Finding::Holds)
}

/// At least one point holds and none fails (a claim "A is larger than B" over
/// sizes where ties neither support nor contradict it): one that fails decides
/// against; with none holding, undecided.
pub fn any_none_against(points: &[Finding]) -> Finding {
    if points.iter().any(Finding::fails) {
        return all_of(points);
    }
    if points.iter().any(Finding::holds) {
        return Finding::Holds;
    }
    undecided_among(points, "no point decides").unwrap_or_else(|| Finding::undecided(None, "no points"))
}

/// More than half the points hold. Fails when even every undecided point
/// holding would not make a majority; undecided between.
pub fn most_of(points: &[Finding]) -> Finding {
    let holds = points.iter().filter(|f| f.holds()).count();
    let open = points.iter().filter(|f| matches!(f, Finding::Undecided { .. })).count();
    if 2 * holds > points.len() {
        Finding::Holds
    } else if 2 * (holds + open) <= points.len() {
        Finding::Fails(None)
    } else {
        undecided_among(points, "the undecided points hold the majority").expect("some open")
    }
}

fn undecided_among(points: &[Finding], why: &str) -> Option<Finding> {
    let mut needed = None;
    let mut reasons: Vec<&str> = Vec::new();
    for f in points {
        if let Finding::Undecided { n_needed, why } = f {
            needed = most_needed(needed, *n_needed);
            if !reasons.contains(&why.as_str()) {
                reasons.push(why);
            }
        }
    }
    let needed = needed?;
    let why = if reasons.len() == 1 { reasons[0].to_owned() } else { why.to_owned() };
    Some(Finding::Undecided { n_needed: needed, why })
}

/// An estimate against a band: its interval inside holds, wholly below falls
/// short, wholly above exceeds, across an edge is undecided.
pub fn band(est: &Estimate, band: &Band) -> Finding {
    if !est.value.is_finite() {
        return Finding::undecided(None, "no finite value");
    }
    if est.low >= band.low && est.high <= band.high {
        return Finding::Holds;
    }
    if est.high < band.low {
        return Finding::Fails(Some(Direction::FallsShort));
    }
    if est.low > band.high {
        return Finding::Fails(Some(Direction::Exceeds));
    }
    straddles(est, &[band.low, band.high].into_iter().filter(|e| (est.low..=est.high).contains(e)).collect::<Vec<_>>())
}

/// The interval holds an edge: undecided, with the runs that would clear every edge it holds.
fn straddles(est: &Estimate, edges: &[f64]) -> Finding {
    if est.is_exact() {
        // An exact value on an edge: inside the closed band, decided above.
        return Finding::undecided(None, "the value lies on the band's edge");
    }
    if !est.low.is_finite() || !est.high.is_finite() {
        return Finding::undecided(None, "one run: its spread is unknown");
    }
    let mut need = Some(0);
    for &e in edges {
        need = need.zip(est.n_to_clear(e)).map(|(a, b)| a.max(b));
    }
    let shown: Vec<String> = edges.iter().map(|e| fmt_sig(*e)).collect();
    Finding::undecided(need, format!("the interval {est} spans the edge {}", shown.join(" and ")))
}

/// At most `limit` (a bound the paper states): above it exceeds.
pub fn at_most(est: &Estimate, limit: f64) -> Finding {
    band(est, &Band { low: f64::NEG_INFINITY, high: limit })
}

/// At least `limit`: below it falls short.
pub fn at_least(est: &Estimate, limit: f64) -> Finding {
    band(est, &Band { low: limit, high: f64::INFINITY })
}

/// How two samples compare, by the 95% interval of their difference of means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    Less,
    Tie,
    Greater,
}

impl Comparison {
    pub fn opposite(self) -> Comparison {
        match self {
            Comparison::Less => Comparison::Greater,
            Comparison::Tie => Comparison::Tie,
            Comparison::Greater => Comparison::Less,
        }
    }
}

/// `a` against `b`, where the claim wants `want` (Less or Greater): holds when
/// Welch's 95% interval of mean(a) − mean(b) shows it, fails (falls short)
/// when it shows the opposite, undecided on a tie (with the runs per sample a
/// difference of the observed size and spread would need) or with fewer than
/// two runs in either sample.
pub fn order(a: &[f64], b: &[f64], want: Comparison) -> Finding {
    debug_assert!(want != Comparison::Tie, "a claim of order wants Less or Greater");
    let (Some(sa), Some(sb)) = (Summary::of(a), Summary::of(b)) else { return Finding::undecided(None, "a sample is empty") };
    match compare(a, b) {
        None => Finding::undecided(Some(2), "fewer than two runs in a sample: no spread"),
        Some(c) if c == want => Finding::Holds,
        Some(Comparison::Tie) => Finding::undecided(welch_n_needed(&sa, &sb), "a tie by Welch's 95% interval"),
        Some(_) => Finding::Fails(Some(Direction::FallsShort)),
    }
}

/// The runs per sample at which Welch's interval, with the observed spreads,
/// would exclude zero for the observed difference; None for no difference.
fn welch_n_needed(a: &Summary, b: &Summary) -> Option<usize> {
    let d = (a.mean - b.mean).abs();
    let v = a.sd * a.sd + b.sd * b.sd;
    if d == 0.0 || v == 0.0 {
        return None;
    }
    let mut n = a.n.min(b.n).max(2);
    while n <= MAX_N_NEEDED {
        // Equal n each: Welch's df is at least n − 1; use it (conservative).
        if t975(n as f64 - 1.0) * (v / n as f64).sqrt() < d {
            return Some(n);
        }
        let guess = ((1.96f64.powi(2) * v) / (d * d)).ceil() as usize;
        n = if guess > n + 8 { guess.min(MAX_N_NEEDED + 1) } else { n + 1 };
    }
    None
}

/// Values without run-to-run spread (counts, deterministic sizes) against the
/// order the claim wants: equal values are undecided for good.
pub fn order_exact(a: f64, b: f64, want: Comparison) -> Finding {
    match compare_exact(a, b) {
        Comparison::Tie => Finding::undecided(None, "equal values: no number of runs separates them"),
        c if c == want => Finding::Holds,
        _ => Finding::Fails(Some(Direction::FallsShort)),
    }
}

/// A closed interval `[low, high]`, read from a two-element array: a claim's band
/// on measured / paper, or the paper's range of sizes a claim applies to.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(try_from = "Pair<f64>")]
pub struct Band {
    pub low: f64,
    pub high: f64,
}

/// Through [`Pair`], not a `[f64; 2]`: toml reads a longer array into a pair by
/// dropping the rest, and a band of three values is a mistake to name.
impl TryFrom<Pair<f64>> for Band {
    type Error = String;
    fn try_from(Pair([low, high]): Pair<f64>) -> Result<Band, String> {
        if low.is_finite() && (high.is_finite() || high == f64::INFINITY) && low <= high {
            Ok(Band { low, high })
        } else {
            Err(format!("[{low}, {high}] is not an interval (low ≤ high, low finite, high finite or `inf`: no upper edge)"))
        }
    }
}

impl Band {
    pub fn contains(&self, x: f64) -> bool {
        (self.low..=self.high).contains(&x)
    }

    /// A band of ratios must be positive to be read as "× the paper".
    pub fn check_ratio(&self, key: &str) -> Result<(), (String, String)> {
        if self.low > 0.0 {
            Ok(())
        } else {
            Err((key.into(), format!("a band of ratios must be above 0, not [{}, {}]", self.low, self.high)))
        }
    }
}

impl std::fmt::Display for Band {
    /// "50–350"; a band without an upper edge (`inf` in a spec) "2376–∞".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let high = if self.high == f64::INFINITY { "∞".to_owned() } else { fmt_num(self.high) };
        write!(f, "{}–{high}", fmt_num(self.low))
    }
}

/// `Err(inconclusive, needing min_n)` when `n < min_n`.
pub fn enough(n: usize, min_n: usize, what: &str) -> Result<(), Outcome> {
    if n < min_n { Err(Outcome::too_few(n, min_n, format!("{what}: n = {n}"))) } else { Ok(()) }
}

/// Judges a measured estimate against the paper's value (quantitative claims):
/// measured / paper by [`band`].
///
/// `what` names the quantity in the evidence. Outside the band, `model` (the
/// claim's, if any) may explain the ratio by this machine's hardware: it must
/// predict every one of `points` (the matched points the measurement rests on:
/// same set, windows or size as the paper's; none given: the measured ratio
/// itself) inside the band, each with its own factors.
pub fn ratio(what: &str, measured: Estimate, paper: f64, band_: &Band, model: Option<&Model>, points: &[Point], ctx: &Ctx) -> Outcome {
    if !(paper > 0.0 && paper.is_finite() && measured.value.is_finite()) {
        let evidence = format!("{what}: measured {measured} against the paper's {}: no ratio", fmt_num(paper));
        return Outcome::new(Verdict::Inconclusive { n: measured.n, n_needed: None, why: "no ratio to the paper".into() }, evidence);
    }
    let r = measured.scale(1.0 / paper);
    let mut evidence = format!(
        "{what}: measured {measured} against the paper's {} — {} the paper's (band {band_}×)",
        fmt_num(paper),
        fmt_ratio_interval(r.value, r.low, r.high)
    );
    let finding = match band(&r, band_) {
        Finding::Fails(d) => {
            let direction = d.unwrap_or(Direction::FallsShort);
            evidence += &format!("; {}", direction.label());
            Finding::Fails(Some(direction))
        }
        f => f,
    };
    let mut o = Outcome::new(finding.verdict(measured.n), evidence).with_ratio(r.value);
    o.quantity = Some(Quantified { measured, paper, band: *band_, ratio: r });
    o.n = Some(measured.n);
    let single = [Point::new("the measured ratio", r)];
    explained(o, model, band_, if points.is_empty() { &single } else { points }, ctx)
}

/// A result decided against the paper (falling short or exceeding; no way
/// given: falling short) differs on this hardware only where `model` predicts
/// every one of `points` ([`Model::predict`]) and each point's measured
/// interval over its prediction lies inside `band` ([`band`], combined by
/// [`all_of`]). A point whose interval crosses an edge, with none missed, makes
/// it inconclusive, with the runs needed; a point missed, or a model that
/// cannot predict (a factor not measured by the runs judged), leaves it decided
/// against the paper, and the evidence says why. Any other verdict, or no model,
/// is left as it is.
pub fn explained(o: Outcome, model: Option<&Model>, band_: &Band, points: &[Point], ctx: &Ctx) -> Outcome {
    let (Verdict::NotReproduced(d), Some(model)) = (&o.verdict, model) else { return o };
    let direction = d.unwrap_or(Direction::FallsShort);
    let prediction = model.predict(points, direction, ctx.machine, ctx.paper);
    explained_by(o, prediction, band_)
}

/// [`explained`] for predictions a check computes itself (a model that is not
/// a product of powers, such as the limits of a card): `prediction` holds every
/// point's prediction, or why there is none. The framework decides as for any
/// model.
pub fn explained_by(o: Outcome, prediction: Result<Explanation, String>, band_: &Band) -> Outcome {
    if !matches!(o.verdict, Verdict::NotReproduced(_)) {
        return o;
    }
    let e = match prediction {
        Ok(e) => e,
        Err(why) => return Outcome { evidence: format!("{}; {why}", o.evidence), ..o },
    };
    let direction = e.direction;
    let findings: Vec<Finding> = e.points.iter().map(|p| p.over_prediction().map_or(Finding::Fails(None), |r| band(&r, band_))).collect();
    let named = |keep: fn(&Finding) -> bool| -> Vec<&Predicted> {
        e.points.iter().zip(&findings).filter(|(_, f)| keep(f)).map(|(p, _)| p).collect()
    };
    match all_of(&findings) {
        Finding::Holds => Outcome { verdict: Verdict::Differs(e), ..o },
        Finding::Fails(_) => {
            let missed = named(Finding::fails);
            let worst =
                missed.iter().map(|p| (p.measured.value / p.predicted.value).max(p.predicted.value / p.measured.value)).fold(1.0, f64::max);
            let why = format!(
                "the hardware model ({e}) misses {} of {} points outside the band {band_}× (by up to {})",
                missed.len(),
                e.points.len(),
                fmt_ratio(worst)
            );
            Outcome { evidence: format!("{}; {why}", o.evidence), ..o }
        }
        Finding::Undecided { n_needed, .. } => {
            let open: Vec<String> = named(|f| matches!(f, Finding::Undecided { .. })).iter().map(|p| p.label.clone()).collect();
            let why = format!(
                "whether the hardware model explains it is undecided: at {} the measured interval over its prediction \
                 crosses an edge of the band {band_}×",
                open.join(", ")
            );
            let verdict = Verdict::Inconclusive { n: o.n.unwrap_or(0), n_needed, why: format!("{}; {why}", direction.label()) };
            Outcome { evidence: format!("{}; {why} ({e})", o.evidence), verdict, ..o }
        }
    }
}

/// Quantities a claim states together, each judged by [`ratio`]: the claim by
/// [`all_of`] over their findings — one decided against decides it (differing
/// on this hardware only where every one decided against is explained by its
/// model), else one undecided leaves it inconclusive. The numbers shown are the
/// deciding quantity's.
pub fn all_of_outcomes(outcomes: Vec<Outcome>) -> Outcome {
    let finding = |o: &Outcome| match &o.verdict {
        Verdict::Reproduced => Finding::Holds,
        Verdict::NotReproduced(d) => Finding::Fails(*d),
        Verdict::Differs(e) => Finding::Fails(Some(e.direction)),
        Verdict::Inconclusive { n_needed, why, .. } => Finding::undecided(*n_needed, why.clone()),
        v => Finding::undecided(None, v.label()),
    };
    let findings: Vec<Finding> = outcomes.iter().map(finding).collect();
    let n = outcomes.iter().filter_map(|o| o.n).min().unwrap_or(0);
    let combined = all_of(&findings);
    let deciding =
        outcomes.iter().position(|o| finding(o).fails()).or_else(|| outcomes.iter().position(|o| !finding(o).holds())).unwrap_or(0);
    let differs = outcomes.iter().filter(|o| finding(o).fails()).all(|o| matches!(o.verdict, Verdict::Differs(_)));
    let o = outcomes.into_iter().nth(deciding).expect("one quantity or more");
    let verdict = if combined.fails() && differs { o.verdict.clone() } else { combined.verdict(n) };
    Outcome { verdict, n: Some(n), ..o }
}

/// `a` against `b`: Less / Greater when the 95% interval of mean(a) − mean(b)
/// excludes 0, else Tie; None when either sample has fewer than two values
/// (unless both are exact: n ≥ 1 each and no spread is possible, see
/// [`compare_exact`]).
pub fn compare(a: &[f64], b: &[f64]) -> Option<Comparison> {
    let (d, h) = stats::welch(a, b)?;
    Some(if d - h > 0.0 {
        Comparison::Greater
    } else if d + h < 0.0 {
        Comparison::Less
    } else {
        Comparison::Tie
    })
}

/// For values without run-to-run spread (counts, deterministic sizes): plain order.
pub fn compare_exact(a: f64, b: f64) -> Comparison {
    if a > b {
        Comparison::Greater
    } else if a < b {
        Comparison::Less
    } else {
        Comparison::Tie
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::claims::VerdictKind;

    /// A band may lack an upper edge (`inf`: "2376–∞"), never a lower one or its order.
    #[test]
    fn a_band_may_be_open_above_only() {
        let band = |low: f64, high: f64| Band::try_from(Pair([low, high]));
        let open = band(2376.0, f64::INFINITY).unwrap();
        assert!(open.contains(1e9) && !open.contains(2375.0));
        assert_eq!(open.to_string(), "2376–∞");
        assert_eq!(band(50.0, 350.0).unwrap().to_string(), "50–350");
        for (low, high) in [(f64::NEG_INFINITY, 1.0), (1.0, f64::NAN), (2.0, 1.0), (f64::INFINITY, f64::INFINITY)] {
            assert!(band(low, high).is_err(), "[{low}, {high}]");
        }
    }

    #[test]
    fn bands_parse_from_pairs_and_refuse_reversed_ones() {
        let b: Band = toml::Value::Array(vec![0.5.into(), 2.0.into()]).try_into().unwrap();
        assert_eq!(b, Band { low: 0.5, high: 2.0 });
        assert!(toml::Value::Array(vec![2.0.into(), 0.5.into()]).try_into::<Band>().is_err());
        // toml's text deserializer (claims' params) read [a, b, c] as [a, b]; a band needs exactly two values.
        let three = toml::de::ValueDeserializer::parse("[0.5, 2.0, 0]").unwrap();
        assert!(Band::deserialize(three).unwrap_err().message().contains("3 values"));
        assert!(b.contains(1.0) && !b.contains(2.5));
        assert!(Band { low: 0.0, high: 1.0 }.check_ratio("band").is_err());
        assert_eq!(b.to_string(), "0.5–2");
    }

    const BAND: Band = Band { low: 0.5, high: 2.0 };

    #[test]
    fn an_interval_inside_holds_outside_fails_with_its_direction_and_across_an_edge_is_undecided() {
        let inside = Estimate::mean_of(&[1.0, 1.1, 0.9]).unwrap();
        assert_eq!(band(&inside, &BAND), Finding::Holds);
        let below = Estimate::mean_of(&[0.2, 0.21, 0.19]).unwrap();
        assert_eq!(band(&below, &BAND), Finding::Fails(Some(Direction::FallsShort)));
        let above = Estimate::mean_of(&[9.0, 9.1, 8.9]).unwrap();
        assert_eq!(band(&above, &BAND), Finding::Fails(Some(Direction::Exceeds)));
        // Mean 0.47 (below the band) but the interval reaches 0.53: undecided, with the runs that would clear 0.5.
        let edge = Estimate::mean_of(&[0.41, 0.47, 0.53]).unwrap();
        let Finding::Undecided { n_needed: Some(n), why } = band(&edge, &BAND) else { panic!("{:?}", band(&edge, &BAND)) };
        assert!(n > 3 && why.contains("spans the edge 0.500"), "{n} {why}");
        // The middle of the band at n = 2 with a small spread is decided, not a failure.
        assert_eq!(band(&Estimate::mean_of(&[1.5, 1.5]).unwrap(), &Band { low: 1.0, high: 2.0 }), Finding::Holds);
        // One run: no spread, undecided (never not reproduced).
        assert!(matches!(band(&Estimate::mean_of(&[0.55]).unwrap(), &BAND), Finding::Undecided { n_needed: None, .. }));
        // Exact values are decided by where they lie.
        assert_eq!(band(&Estimate::exact(2.0), &BAND), Finding::Holds);
        assert_eq!(at_most(&Estimate::exact(2.4), 10.0), Finding::Holds);
        assert_eq!(at_most(&Estimate::exact(12.0), 10.0), Finding::Fails(Some(Direction::Exceeds)));
        assert_eq!(at_least(&Estimate::exact(0.6), 0.7), Finding::Fails(Some(Direction::FallsShort)));
        // spc_small at n = 2: 2.4–3.2 against a limit of 10 is decided when the interval stays below 10.
        assert_eq!(at_most(&Estimate::mean_of(&[2.4, 3.2]).unwrap(), 10.0), Finding::Holds);
    }

    #[test]
    fn orders_tie_as_undecided_with_the_runs_a_difference_needs() {
        assert_eq!(order(&[10.0, 10.1, 9.9], &[5.0, 5.1, 4.9], Comparison::Greater), Finding::Holds);
        assert_eq!(order(&[10.0, 10.1, 9.9], &[5.0, 5.1, 4.9], Comparison::Less), Finding::Fails(Some(Direction::FallsShort)));
        let Finding::Undecided { n_needed: Some(n), .. } = order(&[10.0, 11.0, 9.0], &[9.5, 10.5, 8.5], Comparison::Greater) else {
            panic!("a tie")
        };
        // Difference 0.5, sd 1 each: about 2·1.96²·1/0.25 ≈ 31 runs a sample.
        assert!((28..=40).contains(&n), "{n}");
        // The same means: no number of runs separates them.
        assert!(matches!(order(&[1.0, 2.0], &[2.0, 1.0], Comparison::Greater), Finding::Undecided { n_needed: None, .. }));
        assert!(matches!(order(&[1.0], &[2.0, 3.0], Comparison::Less), Finding::Undecided { .. }));
        assert!(matches!(order_exact(3.0, 3.0, Comparison::Greater), Finding::Undecided { n_needed: None, .. }));
        assert_eq!(order_exact(4.0, 3.0, Comparison::Greater), Finding::Holds);
        assert_eq!(order_exact(2.0, 3.0, Comparison::Greater), Finding::Fails(Some(Direction::FallsShort)));
        assert_eq!(compare(&[10.0], &[5.0, 5.1]), None);
        assert_eq!(enough(2, 10, "runs").unwrap_err().verdict.kind(), VerdictKind::Inconclusive);
        assert!(enough(10, 10, "runs").is_ok());
    }

    #[test]
    fn points_combine_by_the_claims_rule() {
        let tie = || Finding::undecided(Some(12), "a tie");
        let never = || Finding::undecided(None, "equal values");
        let short = Finding::Fails(Some(Direction::FallsShort));
        assert_eq!(all_of(&[Finding::Holds, Finding::Holds]), Finding::Holds);
        assert_eq!(all_of(&[Finding::Holds, tie()]), tie());
        assert_eq!(all_of(&[tie(), short.clone()]), short);
        assert_eq!(all_of(&[tie(), never()]), Finding::undecided(None, "some points cannot be decided"));
        // "GM larger at 5 of 7 ℓ, tied at 2": ties neither support nor contradict.
        assert_eq!(any_none_against(&[Finding::Holds, tie()]), Finding::Holds);
        assert_eq!(any_none_against(&[tie(), tie()]), tie());
        assert_eq!(any_none_against(&[Finding::Holds, short.clone()]), short);
        // Most of: 2 of 3 hold; 1 of 3 with 1 open cannot reach a majority? 1 + 1 of 3 can.
        assert_eq!(most_of(&[Finding::Holds, Finding::Holds, short.clone()]), Finding::Holds);
        assert!(matches!(most_of(&[Finding::Holds, tie(), short.clone()]), Finding::Undecided { .. }));
        assert_eq!(most_of(&[Finding::Holds, short.clone(), short.clone()]), Finding::Fails(None));
    }

    #[test]
    fn a_ratio_is_judged_by_its_interval_and_explained_point_by_point() {
        let (m, hw) = (testing::machine(&[("gpu_d2d", 3000.0)]), testing::paper_hardware());
        let ctx = Ctx { machine: &m, paper: &hw };
        let o = ratio("speedup", Estimate::mean_of(&[59.0, 60.0, 61.0]).unwrap(), 52.4, &BAND, None, &[], &ctx);
        assert_eq!(o.verdict, Verdict::Reproduced);
        let q = o.quantity.as_ref().unwrap();
        assert!((q.ratio.value - 60.0 / 52.4).abs() < 1e-12 && q.ratio.low < q.ratio.value && q.ratio.high > q.ratio.value);
        // 22× the paper is not "reproduced": it exceeds, and a model that predicts 30× explains it…
        let big = Estimate::mean_of(&[1150.0, 1161.0, 1172.0]).unwrap();
        let o = ratio("speedup", big, 52.4, &BAND, None, &[], &ctx);
        assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
        assert!(o.evidence.contains("22.2× [21.6×, 22.7×] the paper's") && o.evidence.contains("exceeds the paper"), "{}", o.evidence);
        let model = testing::model(&[("gpu_bandwidth", 1.0)]);
        let o = ratio("speedup", big, 52.4, &BAND, Some(&model), &[Point::new("the ratio", Estimate::exact(22.2)).in_runs([1])], &ctx);
        assert_eq!(o.verdict.kind(), VerdictKind::Differs);
        assert_eq!(o.verdict.direction(), Some(Direction::Exceeds));
        // … not by a ceiling no run of the result measured (no point names its runs) …
        let o = ratio("speedup", big, 52.4, &BAND, Some(&model), &[], &ctx);
        assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
        assert!(o.evidence.contains("the point names none"), "{}", o.evidence);
        // … and not when one matched point it uses lies outside the band of its prediction.
        let points = [Point::new("kdd", Estimate::exact(25.0)).in_runs([1]), Point::new("pen", Estimate::exact(2.0)).in_runs([1])];
        let o = ratio("speedup", big, 52.4, &BAND, Some(&model), &points, &ctx);
        assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
        assert!(o.evidence.contains("misses 1 of 2 points"), "{}", o.evidence);
        // Across an edge: inconclusive with n, never not reproduced.
        let o = ratio("speedup", Estimate::mean_of(&[22.0, 26.0, 30.0]).unwrap(), 52.4, &BAND, Some(&model), &[], &ctx);
        assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.verdict.label());
        assert!(o.verdict.n_needed().is_some());
        assert_eq!(ratio("x", Estimate::exact(1.0), 0.0, &BAND, None, &[], &ctx).verdict.kind(), VerdictKind::Inconclusive);
    }

    /// `explained` on a result 22× over the paper (exceeding), with a model predicting 30× at every point.
    fn explain_against(points: &[Point]) -> Outcome {
        let (m, hw) = (testing::machine(&[("gpu_d2d", 3000.0), ("cpu_clock", 2.0)]), testing::paper_hardware());
        let model = testing::model(&[("gpu_bandwidth", 1.0), ("cpu_clock", -1.0)]);
        let mut o = Outcome::new(Verdict::NotReproduced(Some(Direction::Exceeds)), "speedup: 22×");
        o.n = Some(3);
        explained(o, Some(&model), &BAND, points, &Ctx { machine: &m, paper: &hw })
    }

    #[test]
    fn a_model_explains_only_when_it_predicts_every_matched_point() {
        // 25× and 40× lie inside 0.5–2× of 30×, 8× does not.
        let good = [
            Point::new("kdd, 1 window", Estimate::exact(25.0)).in_runs([1]),
            Point::new("adu, 1 window", Estimate::exact(40.0)).in_runs([1]),
        ];
        assert_eq!(explain_against(&good).verdict.kind(), VerdictKind::Differs);
        let bad = [
            Point::new("kdd, 1 window", Estimate::exact(25.0)).in_runs([1]),
            Point::new("pen, 1 window", Estimate::exact(8.0)).in_runs([1]),
        ];
        let o = explain_against(&bad);
        assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
        let why = &o.evidence;
        assert!(why.contains("misses 1 of 2 points") && why.contains("pen, 1 window: predicted 30.0×, measured 8.00×"), "{why}");
        assert!(why.contains("by up to 3.75×"), "{why}");
        // A model that cannot predict (no run named for a measured ceiling) leaves the result decided against the paper.
        let o = explain_against(&[Point::new("x", Estimate::exact(30.0))]);
        assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
        assert!(o.evidence.contains("no hardware prediction"), "{}", o.evidence);
    }

    /// A point is predicted only when its whole interval over the prediction lies in the band: one whose interval
    /// crosses an edge leaves the explanation undecided, with the runs that would clear it; a point missed decides.
    #[test]
    fn a_point_whose_interval_crosses_the_bands_edge_leaves_the_model_undecided() {
        let point = |label: &str, runs: &[f64]| Point::new(label, Estimate::mean_of(runs).unwrap()).in_runs([1]);
        // 55× [52.5, 57.5] over 30× is 1.83 [1.75, 1.92]: inside 0.5–2, explained.
        let inside = point("a", &[54.0, 55.0, 56.0]);
        assert_eq!(explain_against(std::slice::from_ref(&inside)).verdict.kind(), VerdictKind::Differs);
        // 57× [47, 67] over it is 1.9 [1.57, 2.23]: the point estimate lies in the band, the interval does not decide.
        let across = point("b", &[53.0, 57.0, 61.0]);
        let o = explain_against(&[inside.clone(), across.clone()]);
        let Verdict::Inconclusive { n: 3, n_needed: Some(n), why } = &o.verdict else {
            panic!("undecided expected: {}", o.verdict.label())
        };
        assert!(*n > 3 && why.contains("at b the measured interval") && !why.contains("at a"), "{n}: {why}");
        assert!(why.starts_with(Direction::Exceeds.label()), "{why}");
        assert!(o.evidence.contains("b: predicted 30.0×, measured 57.0× ["), "{}", o.evidence);
        // Moved across the edge by its mean (63× [53, 73]: 2.1 [1.77, 2.43]) it is still undecided, not missed…
        assert_eq!(explain_against(&[point("c", &[59.0, 63.0, 67.0])]).verdict.kind(), VerdictKind::Inconclusive);
        // … and a point wholly outside decides against the model, whatever the others.
        let o = explain_against(&[across, point("d", &[79.0, 80.0, 81.0])]);
        assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
        assert!(o.evidence.contains("misses 1 of 2 points"), "{}", o.evidence);
        // One run has no interval: undecided with no n to state.
        let o = explain_against(&[Point::new("e", Estimate::mean_of(&[55.0]).unwrap()).in_runs([1])]);
        assert_eq!((o.verdict.kind(), o.verdict.n_needed()), (VerdictKind::Inconclusive, None));
        assert!(o.evidence.contains("measured 55.0× (no interval)"), "{}", o.evidence);
    }

    /// A prediction computed from runs carries their interval, and it joins the measured one: a point inside the band
    /// around an exact prediction can cross its edge around the same prediction with its interval.
    #[test]
    fn a_predictions_own_interval_joins_the_measured_one() {
        use crate::claims::hardware::Factor;
        use crate::hardware::Quantity;
        let (m, hw) = (testing::machine(&[("gpu_d2d", 3000.0)]), testing::paper_hardware());
        let ctx = Ctx { machine: &m, paper: &hw };
        let model = testing::model(&[("gpu_bandwidth", 1.0), ("amdahl", 1.0)]);
        let measured = Estimate::mean_of(&[27.5, 28.0, 28.5]).unwrap();
        let against = |gain: Factor| {
            let mut o = Outcome::new(Verdict::NotReproduced(Some(Direction::Exceeds)), "speedup: 28×");
            o.n = Some(3);
            explained(o, Some(&model), &BAND, &[Point::new("p", measured).in_runs([1]).with(gain)], &ctx)
        };
        // Bandwidth predicts 30×, Amdahl's gain here half the paper's: 15×; 28× [26.8, 29.2] is 1.87× [1.78, 1.95] of it.
        let exact = Factor::of_point(Quantity::Amdahl, 1.0, 2.0, "half the paper's gain");
        assert_eq!(against(exact.clone()).verdict.kind(), VerdictKind::Differs);
        // The same gain from three noisy runs, 0.5 [0.30, 0.82]: 1.87× [1.13, 3.08] of the prediction, across 2.
        let noisy = Estimate::of_means(&[&[0.4, 0.5, 0.6]], |m| m[0]).unwrap();
        let o = against(exact.with_interval(noisy));
        assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
        assert!(o.evidence.contains("p: predicted 15.0× [9.13×, 24.7×], measured 28.0× [26.8×, 29.2×]"), "{}", o.evidence);
    }
}
