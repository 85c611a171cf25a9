//! Tests of the generic checks (`generic.rs`).

use super::*;
use crate::claims::{Verdict, VerdictKind};
use crate::records::MachineRecords;
use crate::spec::PaperHardware;
use std::collections::BTreeMap;

struct Runs(BTreeMap<&'static str, Vec<f64>>);
impl Series for Runs {
    const NAMES: &'static [&'static str] = &["a", "b"];
    fn series(&self, name: &str) -> Option<Vec<f64>> {
        self.0.get(name).cloned()
    }
}

fn judged<P>(f: fn(&P, &Runs, &Ctx) -> Outcome, p: &P, a: Vec<f64>, b: Vec<f64>) -> Outcome {
    on(f, p, &Runs(BTreeMap::from([("a", a), ("b", b)])))
}

fn on<P, A>(f: fn(&P, &A, &Ctx) -> Outcome, p: &P, analysis: &A) -> Outcome {
    let machine = MachineRecords { hw_id: "m".into(), rows: vec![] };
    let paper: PaperHardware = toml::from_str("gpu = \"g\"\ncpu = \"c\"\ncuda = \"1\"\ngpu_bandwidth_gbs = 100.0").unwrap();
    f(p, analysis, &Ctx { machine: &machine, paper: &paper })
}

/// Series by ℓ: `a` and `b` at each size, with a reason where a series is absent.
struct Sized(BTreeMap<&'static str, BTreeMap<usize, Vec<f64>>>);
impl Series for Sized {
    const NAMES: &'static [&'static str] = &["a", "b"];
    fn by_size(&self, name: &str) -> Option<BySize> {
        Some(BySize { symbol: "ℓ", at: self.0.get(name).cloned().unwrap_or_default() })
    }
    fn absent(&self, name: &str) -> Option<String> {
        (!self.0.contains_key(name)).then(|| format!("{name}: libcuda not found"))
    }
    fn measured_as(&self, _: &str) -> Option<String> {
        Some("bisections".into())
    }
    fn beyond(&self, name: &str) -> Vec<String> {
        vec![format!("one model build of {name}")]
    }
}

fn sized(a: &[(usize, Vec<f64>)], b: &[(usize, Vec<f64>)]) -> Sized {
    Sized(BTreeMap::from([("a", a.iter().cloned().collect()), ("b", b.iter().cloned().collect())]))
}

const RANGE: Band = Band { low: 50.0, high: 350.0 };

fn identical_at(min_n: usize) -> IdenticalParams {
    IdenticalParams { series: "a".into(), of: "runs".into(), to: "the CPU's".into(), sizes: Some(RANGE), min_n }
}

#[test]
fn identical_is_an_exact_count_of_the_papers_sizes() {
    let p = identical_at(3);
    let all = sized(&[(50, vec![1.0, 1.0]), (100, vec![1.0, 1.0]), (500, vec![1.0, 0.0])], &[]);
    let o = on(identical, &p, &all);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert_eq!(o.evidence, "4 of 4 runs at ℓ = 50–350 identical to the CPU's");
    assert_eq!(o.beyond.as_deref(), Some("1 of 2 runs identical outside ℓ = 50–350; one model build of a"));
    let one_differs = on(identical, &p, &sized(&[(50, vec![1.0, 1.0]), (100, vec![1.0, 0.0])], &[]));
    assert_eq!(one_differs.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::FallsShort)));
    let few = on(identical, &p, &sized(&[(50, vec![1.0, 1.0])], &[]));
    assert_eq!(few.verdict, crate::claims::testing::too_few(2, 3));
    assert!(few.evidence.starts_with("2 of 2 runs"), "{}", few.evidence);
    let absent = on(identical, &identical_at(1), &Sized(BTreeMap::new()));
    assert_eq!(absent.verdict.label(), "not run here (a: libcuda not found)");
    // Every run where the claim names no sizes.
    let p = IdenticalParams { sizes: None, ..identical_at(1) };
    let o = judged(identical, &p, vec![1.0, 1.0, 0.0], vec![]);
    assert_eq!(o.verdict.kind(), crate::claims::VerdictKind::NotReproduced, "{}", o.evidence);
    assert_eq!(o.evidence, "2 of 3 runs identical to the CPU's");
}

fn order(rule: SizesRule) -> OrderParams {
    OrderParams {
        a: "a".into(),
        b: "b".into(),
        names: ["GM".into(), "greedy".into()],
        of: "bisections of both".into(),
        want: Want::Larger,
        sizes: Some(RANGE),
        rule,
        min_n: 3,
    }
}

#[test]
fn order_at_sizes_combines_the_sizes_by_the_claims_rule() {
    let (big, small, wide) = (vec![10.0, 10.1, 9.9], vec![5.0, 5.1, 4.9], vec![9.0, 11.0, 10.5]);
    // Larger at 50, a tie at 100: holds for "some, none against", undecided for "every".
    let runs = sized(
        &[(50, big.clone()), (100, big.clone()), (400, small.clone())],
        &[(50, small.clone()), (100, wide.clone()), (400, big.clone())],
    );
    let o = on(order_at_sizes, &order(SizesRule::SomeNoneAgainst), &runs);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.starts_with("bisections: GM larger at 1 of 2 sizes, tie at 1, GM smaller at 0: ℓ = 50: GM 10"), "{}", o.evidence);
    assert!(o.beyond.as_deref().unwrap().starts_with("outside ℓ = 50–350: GM larger at 0 of 1 sizes, tie at 0, GM smaller at 1: ℓ = 400"));
    let o = on(order_at_sizes, &order(SizesRule::Every), &runs);
    assert_eq!(o.verdict.kind(), crate::claims::VerdictKind::Inconclusive, "{}", o.verdict.label());
    // Smaller at one size decides against either way.
    let against = sized(&[(50, big.clone()), (100, small.clone())], &[(50, small.clone()), (100, big.clone())]);
    assert_eq!(on(order_at_sizes, &order(SizesRule::SomeNoneAgainst), &against).verdict.kind(), crate::claims::VerdictKind::NotReproduced);
    // Faster wants the lower values.
    let faster = OrderParams { want: Want::Faster, ..order(SizesRule::Every) };
    let o = on(order_at_sizes, &faster, &sized(&[(50, small.clone())], &[(50, big.clone())]));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("GM faster at 1 of 1"), "{}", o.evidence);
    // Too few runs at a size: undecided there, needing min_n.
    let o = on(order_at_sizes, &order(SizesRule::Every), &sized(&[(50, vec![10.0, 10.1])], &[(50, small.clone())]));
    assert_eq!(o.verdict.n_needed(), Some(3), "{}", o.verdict.label());
    assert!(o.evidence.contains("too few runs at 1"), "{}", o.evidence);
    // Nothing in the paper's range: not run, the records' reason first.
    let none = sized(&[(400, big.clone())], &[(400, small)]);
    assert_eq!(
        on(order_at_sizes, &order(SizesRule::Every), &none).verdict.label(),
        "not run here (no bisections of both at ℓ = 50–350 in these records)"
    );
    let absent = Sized(BTreeMap::from([("a", BTreeMap::from([(50, big)]))]));
    assert_eq!(on(order_at_sizes, &order(SizesRule::Every), &absent).verdict.label(), "not run here (b: libcuda not found)");
}

/// Points `a` at ℓ = 50 and 100, with a reason where a series has none.
struct Pointed(Vec<(String, Estimate)>);
impl Series for Pointed {
    const NAMES: &'static [&'static str] = &["a", "b"];
    fn points(&self, name: &str, sizes: Option<&Band>) -> Points {
        let at = if name == "a" { self.0.clone() } else { Vec::new() };
        let setting = format!("spc at ℓ = {}", sizes.unwrap());
        Points { setting, at, absent: Some(format!("{name}: libcuda not found")), beyond: "ℓ = 600".into(), ..Points::default() }
    }
}

struct SetAside(Pointed);
impl Series for SetAside {
    const NAMES: &'static [&'static str] = &["a", "b"];
    fn points(&self, name: &str, sizes: Option<&Band>) -> Points {
        Points { set_aside: Some("another population".into()), ..self.0.points(name, sizes) }
    }
}

/// `series = "a", at_most = 10, sizes = RANGE, min_n = 2`.
fn at_most_10() -> ThresholdParams {
    ThresholdParams {
        series: "a".into(),
        at_most: Some(10.0),
        at_least: None,
        within: None,
        sizes: Some(RANGE),
        rule: SizesRule::Every,
        min_n: 2,
    }
}

#[test]
fn threshold_holds_at_every_point_by_its_interval() {
    let p = at_most_10();
    let est = |xs: &[f64]| Estimate::mean_of(xs).unwrap();
    let points = |b: &[f64]| Pointed(vec![("ℓ = 50".into(), est(&[2.4, 3.2])), ("ℓ = 100".into(), est(b))]);
    let o = on(threshold, &p, &points(&[2.0, 2.1]));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.starts_with("spc at ℓ = 50–350 (at most 10 each): ℓ = 50: 2.80 ["), "{}", o.evidence);
    assert_eq!(o.beyond.as_deref(), Some("ℓ = 600"));
    assert_eq!(on(threshold, &p, &points(&[20.0, 21.0])).verdict, Verdict::NotReproduced(Some(crate::claims::Direction::Exceeds)));
    // One point across the bound: inconclusive, with the runs that would clear it.
    assert!(on(threshold, &p, &points(&[4.0, 12.0])).verdict.n_needed().is_some());
    let least = ThresholdParams { at_most: None, at_least: Some(5.0), ..p };
    assert_eq!(on(threshold, &least, &points(&[2.0, 2.1])).verdict.direction(), Some(crate::claims::Direction::FallsShort));
    // "For most of the problems": two points of three hold; one holding of three fails.
    let most = ThresholdParams { rule: SizesRule::Most, series: "a".into(), ..least };
    let three = |c: &[f64]| Pointed(vec![("a".into(), est(&[6.0, 6.1])), ("b".into(), est(&[2.0, 2.1])), ("c".into(), est(c))]);
    let o = on(threshold, &most, &three(&[7.0, 7.1]));
    assert!(o.verdict == Verdict::Reproduced && o.evidence.contains("(at least 5 at over half the points)"), "{}", o.evidence);
    assert_eq!(on(threshold, &most, &three(&[1.0, 1.1])).verdict.kind(), VerdictKind::NotReproduced);
    assert!(on(threshold, &most, &three(&[4.0, 12.0])).verdict.n_needed().is_some());
    // Fewer runs than the claim needs at any point: inconclusive, needing min_n.
    assert_eq!(
        on(threshold, &ThresholdParams { min_n: 3, series: "a".into(), ..least }, &points(&[2.0, 2.1])).verdict,
        crate::claims::testing::too_few(2, 3)
    );
    let within = ThresholdParams { at_least: None, within: Some(Band { low: 1.0, high: 2.5 }), ..least };
    let o = on(threshold, &within, &points(&[2.0, 2.1]));
    assert!(matches!(o.verdict, Verdict::Inconclusive { .. }) && o.evidence.contains("(within 1–2.5 each)"), "{}", o.evidence);
    // Points measured outside the paper's setting: not run, judged beyond the paper.
    let o = on(threshold, &within, &SetAside(points(&[2.0, 2.1])));
    assert_eq!(o.verdict.label(), "not run here (another population)");
    assert!(o.beyond.as_deref().unwrap().starts_with("spc at ℓ = 50–350 (within 1–2.5 each): ℓ = 50: 2.80"), "{:?}", o.beyond);
    let none = ThresholdParams { series: "b".into(), at_most: Some(1.0), ..at_most_10() };
    assert_eq!(on(threshold, &none, &points(&[1.0])).verdict.label(), "not run here (b: libcuda not found)");
}

/// Past a dozen points the evidence counts those that hold and names the others.
#[test]
fn threshold_names_only_the_points_that_do_not_hold_past_a_dozen() {
    let p = at_most_10();
    let est = |xs: &[f64]| Estimate::mean_of(xs).unwrap();
    let mut at: Vec<(String, Estimate)> =
        (0..13).map(|i| (format!("p{i}"), est(&[2.0 + i as f64 / 10.0, 2.2 + i as f64 / 10.0]))).collect();
    at.push(("far".into(), est(&[20.0, 21.0])));
    at.push(("edge".into(), est(&[4.0, 12.0])));
    let o = on(threshold, &p, &Pointed(at));
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::Exceeds)), "{}", o.evidence);
    assert!(o.evidence.contains("(at most 10 each): 13 of 15 points hold (2.10–3.30); not inside: far: 20.5 ["), "{}", o.evidence);
    assert!(o.evidence.contains("— exceeds; undecided: edge: 8.00 [") && !o.evidence.contains("p3"), "{}", o.evidence);
    // Past a dozen undecided points, the first dozen are named and the rest counted with the range of all.
    let wide: Vec<(String, Estimate)> = (0..15).map(|i| (format!("u{i}"), est(&[4.0 + i as f64, 12.0 + i as f64]))).collect();
    let o = on(threshold, &p, &Pointed(wide));
    assert!(matches!(o.verdict, Verdict::Inconclusive { .. }), "{}", o.evidence);
    assert!(o.evidence.contains("0 of 15 points hold; undecided: 15 points (8.00–22.0), the first 12: u0: 8.00 ["), "{}", o.evidence);
    assert!(o.evidence.contains("u11: ") && !o.evidence.contains("u12:") && o.evidence.ends_with(", …"), "{}", o.evidence);
}

/// Pairs at labelled points, with the setting's points the records lack.
struct Paired(Vec<(f64, f64)>, Vec<String>);
impl Series for Paired {
    const NAMES: &'static [&'static str] = &["a", "b"];
    fn pairs(&self, _: &str) -> Pairs {
        let at = self.0.iter().enumerate().map(|(i, &(a, b))| AtSize {
            label: format!("p{i}"),
            a: vec![a, a + 1.0, a + 2.0],
            b: vec![b, b + 1.0, b + 2.0],
        });
        Pairs { setting: "best".into(), at: at.collect(), missing: self.1.clone(), absent: Some("no grid".into()), ..Pairs::default() }
    }
}

/// Every point by Welch; a point the records lack keeps the claim open unless one present decides against it.
#[test]
fn order_at_points_needs_every_point_of_the_setting_unless_one_decides_against() {
    let words = Some(["better".to_owned(), "worse".to_owned()]);
    let p = PairsParams {
        series: "s".into(),
        names: ["more".into(), "fewer".into()],
        want: Want::Larger,
        words,
        rule: SizesRule::Every,
        min_n: 3,
    };
    let o = on(order_at_points, &p, &Paired(vec![(20.0, 10.0), (30.0, 10.0)], vec![]));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.starts_with("best: better at 2 of 2 points, tie at 0, worse at 0: p0: more 21.0"), "{}", o.evidence);
    let lacking = on(order_at_points, &p, &Paired(vec![(20.0, 10.0)], vec!["6 → 7".into()]));
    assert_eq!(lacking.verdict.label(), "not run here (points not in these records: 6 → 7)");
    assert!(lacking.beyond.as_deref().is_some_and(|b| b.contains("better at 1 of 1 points")), "{:?}", lacking.beyond);
    let against = on(order_at_points, &p, &Paired(vec![(20.0, 10.0), (0.0, 10.0)], vec!["6 → 7".into()]));
    assert!(matches!(against.verdict, Verdict::NotReproduced(_)), "{}", against.evidence);
    assert_eq!(on(order_at_points, &p, &Paired(vec![], vec!["6 → 7".into()])).verdict.label(), "not run here (no grid (6 → 7))");
    // Pairs that rest on a stand-in carry it, for the framework to set the claim aside.
    let o = on(order_at_points, &p, &StandIn(Paired(vec![(20.0, 10.0)], vec![])));
    assert_eq!((o.verdict, o.stand_in.as_deref()), (Verdict::Reproduced, Some("synthetic sets")));
    let few = PairsParams { min_n: 5, ..p };
    assert!(matches!(
        on(order_at_points, &few, &Paired(vec![(20.0, 10.0)], vec![])).verdict,
        Verdict::Inconclusive { n_needed: Some(5), .. }
    ));
}

struct StandIn(Paired);
impl Series for StandIn {
    const NAMES: &'static [&'static str] = &["a", "b"];
    fn pairs(&self, name: &str) -> Pairs {
        Pairs { stand_in: Some("synthetic sets".into()), ..self.0.pairs(name) }
    }
}

/// Points with the paper's values over them.
struct Topped(Vec<(String, Estimate)>, Paper);
impl Series for Topped {
    const NAMES: &'static [&'static str] = &["a", "b"];
    fn points(&self, name: &str, _: Option<&Band>) -> Points {
        let at = if name == "a" { self.0.clone() } else { Vec::new() };
        Points { setting: "speedup".into(), at, paper: self.1.clone(), absent: Some("none".into()), ..Points::default() }
    }
}

/// "Up to": the largest point against the paper's largest over the same points, by its interval.
#[test]
fn up_to_judges_the_largest_point_against_the_papers_largest() {
    let p = UpToParams { series: "a".into(), band: Band { low: 0.5, high: 2.0 }, min_n: 2, model: None };
    let est = |xs: &[f64]| Estimate::mean_of(xs).unwrap();
    let at = vec![("x".to_owned(), est(&[19.0, 21.0, 20.0])), ("y".to_owned(), est(&[29.0, 31.0, 30.0]))];
    let o = on(up_to, &p, &Topped(at.clone(), Paper::Each(vec![25.0, 28.0])));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.starts_with("speedup: largest at y, against the paper's largest over the same 2 points (at y)"), "{}", o.evidence);
    assert!(o.evidence.contains("; every point: x: 20.0 ["), "{}", o.evidence);
    assert!((o.ratio.unwrap() - 30.0 / 28.0).abs() < 1e-9);
    // The paper's largest, wherever it lies: 30 against 120 falls short, no model to explain it.
    let o = on(up_to, &p, &Topped(at.clone(), Paper::Each(vec![120.0, 28.0])));
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::FallsShort)), "{}", o.evidence);
    // Far above the paper's one value: exceeds.
    let o = on(up_to, &p, &Topped(at.clone(), Paper::Largest(10.0)));
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::Exceeds)), "{}", o.evidence);
    // An interval across a band edge (15 against 28 and 30: 0.5 inside it) is inconclusive.
    let wide = vec![("y".to_owned(), est(&[8.0, 22.0]))];
    assert!(matches!(on(up_to, &p, &Topped(wide, Paper::Largest(28.0))).verdict, Verdict::Inconclusive { .. }));
    // Too few runs at a point, or no paper value, or nothing measured: never a verdict against.
    let few = vec![("y".to_owned(), est(&[30.0]))];
    assert!(matches!(on(up_to, &p, &Topped(few, Paper::Largest(28.0))).verdict, Verdict::Inconclusive { n_needed: Some(2), .. }));
    assert_eq!(on(up_to, &p, &Topped(at.clone(), Paper::Unknown)).verdict.kind(), VerdictKind::NotRun);
    assert_eq!(on(up_to, &p, &Topped(Vec::new(), Paper::Largest(28.0))).verdict.label(), "not run here (none)");
}

#[test]
fn faster_holds_fails_and_ties_by_welch() {
    let p = FasterParams { a: "a".into(), b: "b".into(), min_n: 3 };
    let holds = judged(faster, &p, vec![1.0, 1.1, 0.9], vec![2.0, 2.1, 1.9]);
    assert_eq!(holds.verdict, Verdict::Reproduced, "{}", holds.evidence);
    let fails = judged(faster, &p, vec![2.0, 2.1, 1.9], vec![1.0, 1.1, 0.9]);
    assert!(matches!(fails.verdict, Verdict::NotReproduced(_)), "{}", fails.evidence);
    let tie = judged(faster, &p, vec![1.0, 2.0, 1.5], vec![1.5, 1.0, 2.0]);
    assert!(matches!(tie.verdict, Verdict::Inconclusive { .. }), "{}", tie.evidence);
    let few = judged(faster, &p, vec![1.0, 1.1], vec![2.0, 2.1]);
    assert!(matches!(few.verdict, Verdict::Inconclusive { n_needed: Some(3), .. }), "{:?}", few.verdict);
}

/// A headline at one size: the ratio of the two series' means there, over the paper's; None where either lacks the size.
#[test]
fn a_headline_takes_its_size_and_its_ratio() {
    let sized =
        Sized([("a", [(100, vec![4.0, 4.2, 3.8]), (200, vec![9.0, 9.1])].into()), ("b", [(100, vec![4.0, 4.1, 3.9])].into())].into());
    let h = |b: Option<&str>, at: Option<usize>| HeadlineSpec { what: "w".into(), a: "a".into(), b: b.map(Into::into), at, paper: 2.0 };
    let got = headline(&h(Some("b"), Some(100)), &sized).expect("at ℓ = 100");
    assert!((got.measured.value - 1.0).abs() < 1e-12 && (got.ratio.value - 0.5).abs() < 1e-12, "{got:?}");
    let mean = headline(&h(None, Some(200)), &sized).expect("a alone");
    assert!((mean.measured.value - 9.05).abs() < 1e-12 && mean.measured.n == 2, "{mean:?}");
    assert_eq!(headline(&h(Some("b"), Some(300)), &sized), None);
    assert_eq!(headline(&h(None, None), &sized), None, "no series without a size");
}

#[test]
fn ratio_to_paper_reads_its_band_both_ways() {
    let p = RatioParams { a: "a".into(), b: "b".into(), paper: 2.0, band: Band { low: 0.8, high: 1.25 }, min_n: 3 };
    let inside = judged(ratio_to_paper, &p, vec![4.0, 4.1, 3.9], vec![2.0, 2.05, 1.95]);
    assert_eq!(inside.verdict, Verdict::Reproduced, "{}", inside.evidence);
    let above = judged(ratio_to_paper, &p, vec![8.0, 8.1, 7.9], vec![2.0, 2.05, 1.95]);
    assert_eq!(above.verdict.direction(), Some(crate::claims::Direction::Exceeds), "{}", above.evidence);
    let below = judged(ratio_to_paper, &p, vec![2.0, 2.1, 1.9], vec![2.0, 2.05, 1.95]);
    assert_eq!(below.verdict.direction(), Some(crate::claims::Direction::FallsShort), "{}", below.evidence);
    let none = judged(ratio_to_paper, &RatioParams { a: "c".into(), ..p }, vec![1.0], vec![1.0]);
    assert_eq!(none.verdict.kind(), crate::claims::VerdictKind::NotRun, "{}", none.evidence);
}

#[test]
fn parameters_are_checked() {
    let bad = RatioParams { a: "a".into(), b: "b".into(), paper: 0.0, band: Band { low: 0.8, high: 1.25 }, min_n: 2 };
    assert_eq!(bad.validate().unwrap_err().0, "paper");
    assert_eq!(FasterParams { a: "a".into(), b: "b".into(), min_n: 1 }.validate().unwrap_err().0, "min_n");
    assert_eq!(identical_at(0).validate().unwrap_err().0, "min_n");
    assert_eq!(OrderParams { min_n: 1, ..order(SizesRule::Every) }.validate().unwrap_err().0, "min_n");
    let both = ThresholdParams {
        series: "a".into(),
        at_most: Some(1.0),
        at_least: Some(0.5),
        within: None,
        sizes: Some(RANGE),
        rule: SizesRule::Every,
        min_n: 2,
    };
    assert_eq!(both.validate().unwrap_err().0, "at_most");
    assert_eq!(ThresholdParams { at_least: None, min_n: 1, ..both }.validate().unwrap_err().0, "min_n");
}

#[test]
fn a_series_is_measured_only_where_some_method_gives_samples() {
    let runs = Runs(BTreeMap::from([("a", vec![1.0]), ("b", vec![])]));
    assert!(measures(&runs, "a"));
    assert!(!measures(&runs, "b"), "an empty series measures nothing");
    let sized = Sized(BTreeMap::from([("a", BTreeMap::from([(10, vec![2.0])])), ("b", BTreeMap::from([(10, vec![])]))]));
    assert!(measures(&sized, "a"));
    assert!(!measures(&sized, "b"), "sizes without runs measure nothing");
    assert!(!measures(&sized, "c"), "a reason it is absent is not a sample");
}

fn exponent_of(band: Band, min_n: usize, center: Center) -> ExponentParams {
    let fits = ["a", "b"].map(|s| Fit { series: s.into(), band }).into();
    ExponentParams { fits, of: "bisections".into(), sizes: Some(RANGE), min_n, min_sizes: 3, center }
}

#[test]
fn exponent_fits_each_series_and_counts_sizes() {
    let square = |ells: &[usize], runs: usize| -> Vec<(usize, Vec<f64>)> {
        ells.iter().map(|&l| (l, (0..runs).map(|r| (l * l) as f64 * (1.0 + 0.01 * r as f64)).collect())).collect()
    };
    let both = |a: &[(usize, Vec<f64>)]| sized(a, a);
    let ells = [50, 100, 200, 400];
    // ℓ² exactly at the paper's three sizes: exact exponents inside [1.5, 2.5], 400 beyond.
    let p = exponent_of(Band { low: 1.5, high: 2.5 }, 2, Center::Mean);
    let o = on(exponent::exponent, &p, &both(&square(&ells, 2)));
    assert_eq!((o.verdict.clone(), o.n), (Verdict::Reproduced, Some(3)), "{}", o.evidence);
    assert!(o.evidence.starts_with("bisections; fitted to the mean of each size's runs: a ∝ ℓ^e, e = 2.00"), "{}", o.evidence);
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("a outside ℓ = 50–350: 400: ")), "{:?}", o.beyond);
    // Outside the band: falls short, or exceeds.
    let o = on(exponent::exponent, &exponent_of(Band { low: 2.5, high: 3.0 }, 2, Center::Median), &both(&square(&ells, 2)));
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::FallsShort)), "{}", o.evidence);
    let o = on(exponent::exponent, &exponent_of(Band { low: 1.0, high: 1.5 }, 2, Center::Mean), &both(&square(&ells, 2)));
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::Exceeds)), "{}", o.evidence);
    // Too few runs at a size keeps it out of the fit: inconclusive for want of runs.
    let o = on(exponent::exponent, &p, &both(&[square(&[50, 100], 2), square(&[200], 1)].concat()));
    assert_eq!(o.verdict, crate::claims::testing::too_few(1, 2), "{}", o.evidence);
    // Too few sizes, each with its runs: inconclusive for want of sizes.
    let o = on(exponent::exponent, &p, &both(&square(&[50, 100], 2)));
    assert_eq!(o.verdict, crate::claims::testing::too_few(2, 3), "{}", o.evidence);
    // No size in the range: not run here, with the analysis's reason where it has one.
    assert_eq!(
        on(exponent::exponent, &p, &both(&square(&[400], 2))).verdict.label(),
        "not run here (no bisections at ℓ = 50–350 in these records)"
    );
    assert_eq!(on(exponent::exponent, &p, &Sized(BTreeMap::new())).verdict.label(), "not run here (a: libcuda not found)");
    // A fit of two sizes cannot fail: refused at load.
    assert_eq!(ExponentParams { min_sizes: 2, ..exponent_of(RANGE, 2, Center::Mean) }.validate().unwrap_err().0, "min_sizes");
    assert_eq!(ExponentParams { fits: Vec::new(), ..p }.validate().unwrap_err().0, "fits");
}
