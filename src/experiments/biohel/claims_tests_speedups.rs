//! The speedup claims against the paper's numbers (Tables 3–4): where the
//! hardware explains a far larger speedup, the ILAS speedup, the learning
//! speedups at the paper's budget and the learning stage set against the
//! evaluation's.

use super::test_support::{Ga, PAPER, Rows, ilas, shipped, tight};
use super::*;
use crate::claims::{Direction, NotRun, Verdict, VerdictKind};
use crate::records::col;

#[test]
fn a_far_larger_speedup_differs_only_where_the_hardware_predicts_every_matched_point() {
    let s = shipped();
    // kdd at 1 window: 358× against the paper's 17.9× there, 20.0×.
    let rows = || Rows::default().eval("kdd", 444_618, 1, &tight(358.0, 3));
    // (2040 / 102 GB/s) / (3.0 / 3.0 GHz) predicts 20× the paper's.
    let o = s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 2040.0), ("cpu_clock", 3.0)]));
    assert_eq!(o.verdict.kind(), VerdictKind::Differs, "{}", o.evidence);
    assert_eq!(o.verdict.direction(), Some(Direction::Exceeds));
    assert!(o.verdict.label().contains("predicts 20.0×") && o.verdict.label().contains("Tesla C1060"), "{}", o.verdict.label());
    // A faster core here predicts less: 5 GHz predicts 12×, and 20.0× [19.5, 20.5] lies within 2× of it…
    let o = s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 2040.0), ("cpu_clock", 5.0)]));
    assert_eq!(o.verdict.kind(), VerdictKind::Differs, "{}", o.evidence);
    // … 6 GHz predicts 10×: the measured interval over it, [1.95, 2.05], crosses the band's edge at 2.
    // Whether the hardware explains it is undecided (never "differs"); centred on the edge, no n clears it.
    let o = s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 2040.0), ("cpu_clock", 6.0)]));
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
    assert_eq!(o.verdict.direction(), None);
    assert!(o.verdict.label().contains("exceeds the paper; whether the hardware model explains it is undecided"), "{}", o.verdict.label());
    // … a card of the paper's bandwidth predicts 1×: not explained, and the direction is said.
    let o = s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 102.0), ("cpu_clock", 3.0)]));
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
    assert!(o.evidence.contains("misses 1 of 1 points"), "{}", o.evidence);
    // Without one core's clock in the records (runs before it was measured): no prediction.
    let o = s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 2040.0)]));
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("one core's clock not measured by the run judged"), "{}", o.evidence);
}

/// Defect: `cuda_speedup`'s "differs on this hardware" set this machine's
/// largest point against the paper's largest at another set, and the model
/// against that one ratio. Now the measured value meets the paper's largest
/// over the same points, and the model must predict each matched point (same
/// set, same windows) inside the band.
#[test]
fn cuda_speedup_is_explained_point_by_point_at_matched_points() {
    let s = shipped();
    let ceilings = [("gpu_d2d", 2040.0), ("cpu_clock", 3.0)];
    // kdd: 600× at 1 window (the paper 17.9×: 33.5×), 30× at 10 windows (the paper 28.2×: 1.06×).
    // The largest, 600×, over Table 3's largest of the same points, 28.2×, is 21.3×, near the
    // model's 20×; the old rule called that "differs". The 10-window point is 19× off the model.
    let m = Rows::default().eval("kdd", 444_618, 1, &tight(600.0, 3)).eval("kdd", 444_618, 10, &tight(30.0, 3)).machine_with(&ceilings);
    let o = s.judge("cuda_speedup", &m);
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)), "{}", o.evidence);
    assert!(o.evidence.contains("against the paper's 28.2"), "{}", o.evidence);
    assert!(
        o.evidence.contains("misses 1 of 2 points") && o.evidence.contains("kdd, 10 windows: predicted 20.0×, measured 1.06×"),
        "{}",
        o.evidence
    );
    // Both points where the model puts them: differs, each point's prediction shown.
    let m = Rows::default().eval("kdd", 444_618, 1, &tight(358.0, 3)).eval("kdd", 444_618, 10, &tight(564.0, 3)).machine_with(&ceilings);
    let o = s.judge("cuda_speedup", &m);
    assert_eq!(o.verdict.kind(), VerdictKind::Differs, "{}", o.evidence);
    assert!(o.verdict.label().contains("predict each of 2 points"), "{}", o.verdict.label());
}

/// Defect: a tie became "not reproduced" (learning_vs_evaluation at n = 2
/// could not be reproduced: every ratio at exactly 1.50, the middle of 1–2×,
/// still read "not reproduced").
#[test]
fn learning_vs_evaluation_is_reproduced_at_two_runs_in_the_middle_of_its_band() {
    let s = shipped();
    let at_1_5 =
        |e: [(f64, f64); 2]| Rows::default().eval("adu", 44_000, 1, &e).learn(PAPER, "adu", 44_000, 1, &e.map(|(a, b)| (1.5 * a, b)));
    // Each learning run 1.50× its evaluation run, two runs each of a 1% spread: reproduced.
    let o = s.judge("learning_vs_evaluation", &at_1_5([(2.0, 1.0), (2.02, 1.0)]).machine());
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert_eq!(o.n, Some(2));
    assert!(o.evidence.contains(": 1.50 [1.46, 1.55] (n = 2) — holds"), "{}", o.evidence);
    // The same at the spread of the committed H100 runs (adu's evaluation speedups 325× and 667×):
    // Welch's test against each bound tied and read "not reproduced"; the ratio's interval
    // spans the band's edges: inconclusive, with the runs that would decide.
    let o = s.judge("learning_vs_evaluation", &at_1_5([(325.0, 1.0), (667.0, 1.0)]).machine());
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
    assert!(o.verdict.n_needed().is_some_and(|k| k > 2), "{}", o.verdict.label());
}

/// Defect: "not reproduced" said neither way, and cuda_speedup_ilas took a
/// 1-window point (a "total" speedup at 1 window is not ILAS).
#[test]
fn the_ilas_speedup_says_which_way_and_needs_more_than_one_window() {
    let s = shipped();
    // 5000× at 1 window (serial / CUDA, both at 1) is the net speedup: not part of the ILAS claim.
    // At 2 windows: 10× against Table 3's kdd 34.9×, falling short.
    let m = ilas(Rows::default(), "kdd", 444_618, &[(5000.0, 1.0), (5050.0, 1.0), (4950.0, 1.0)], &[500.0, 505.0, 495.0]);
    let o = s.judge("cuda_speedup_ilas", &m.machine());
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::FallsShort)), "{}", o.evidence);
    assert!(o.verdict.label().ends_with("falls short of the paper"));
    assert!(o.evidence.contains("largest at kdd, 2 windows") && o.evidence.contains("the paper's 34.9"), "{}", o.evidence);
    // 20× Table 3's at 2 windows: exceeds.
    let m = ilas(Rows::default(), "kdd", 444_618, &tight(700.0, 3), &[1.0, 1.01, 0.99]);
    assert_eq!(s.judge("cuda_speedup_ilas", &m.machine()).verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
    // Only 1-window runs: nothing of ILAS to judge.
    let o = s.judge("cuda_speedup_ilas", &Rows::default().eval("kdd", 444_618, 1, &tight(500.0, 3)).machine());
    assert_eq!(o.verdict.kind(), VerdictKind::NotRun, "{}", o.evidence);
}

/// Table 4's whole-system speedups have never run at the paper's budget: at
/// it (BioHEL's default, e.g. the `learning-paper` profile) they are judged.
#[test]
fn learning_speedups_are_judged_at_the_papers_budget() {
    let s = shipped();
    // adu at Table 4's window counts: 22× at 1 window (Table 4: 20.0×), 200× total at 25 windows (201.1×).
    let m = Rows::default()
        .learn(PAPER, "adu", 43_957, 1, &tight(22.0, 2))
        .learn(PAPER, "adu", 43_957, 5, &[(1.0, 0.5), (1.0, 0.5)])
        .learn(PAPER, "adu", 43_957, 25, &[(0.5, 0.11), (0.5, 0.1111)])
        .machine();
    let o = s.judge("learning_speedup", &m);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.budget.as_ref().is_some_and(|b| !b.is_reduced()) && o.label() == "reproduced", "{}", o.label());
    assert!(o.evidence.contains("largest at adu, 1 window,") && o.evidence.contains("the paper's 20"), "{}", o.evidence);
    let o = s.judge("learning_speedup_ilas", &m);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("largest at adu, 25 windows") && o.evidence.contains("the paper's 201.1"), "{}", o.evidence);
    // The paper's budget is preferred to a smaller one with more points.
    let m2 = Rows(m.rows.clone()).learn(Ga(100, 20, None), "adu", 43_957, 1, &tight(10_000.0, 2)).learn(
        Ga(100, 20, None),
        "adu",
        43_957,
        10,
        &tight(1.0, 2),
    );
    assert_eq!(s.judge("learning_speedup", &m2.machine()).verdict, Verdict::Reproduced);
}

#[test]
fn learning_is_set_against_the_evaluation_only_at_the_evaluations_rules_per_iteration() {
    let s = shipped();
    let e = tight(2.0, 3);
    // Population 50 is 1.5× (inside), population 500 is 15× (above): the verdict is population 500's.
    let m = Rows::default()
        .eval("adu", 44_000, 1, &e)
        .learn(Ga(50, 20, Some(2)), "adu", 44_000, 1, &tight(3.0, 3))
        .learn(PAPER, "adu", 44_000, 1, &tight(30.0, 3))
        .machine();
    let o = s.judge("learning_vs_evaluation", &m);
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)), "{}", o.evidence);
    assert!(o.evidence.ends_with("(n = 3) — exceeds"), "{}", o.evidence);
    assert!(o.evidence.contains("evaluation: simulated GAs of 50 iterations × 500 rules) (within 1–2 each)"), "{}", o.evidence);
    // Population 50 alone: not run on equal terms; what it shows goes beyond the paper.
    let m = Rows::default().eval("adu", 44_000, 1, &e).learn(Ga(50, 20, Some(2)), "adu", 44_000, 1, &tight(3.0, 3)).machine();
    let o = s.judge("learning_vs_evaluation", &m);
    assert!(
        matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("no learning runs with population 500") && why.contains("population 50,")),
        "{:?}",
        o.verdict
    );
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("(n = 3) — holds")), "{:?}", o.beyond);
    // Table 4 and its claims keep the budget with the most points, not the larger population of one set.
    let m = Rows::default()
        .learn(Ga(50, 20, None), "adu", 44_000, 1, &[(10.0, 1.0)])
        .learn(Ga(50, 20, None), "adu", 44_000, 5, &[(10.0, 1.0)])
        .learn(Ga(501, 20, None), "adu", 44_000, 1, &[(10.0, 1.0)])
        .machine();
    let a = Analysis::of(&m, &s.tables);
    assert_eq!(a.main_learning().unwrap().0.population, 50);
}

/// Two profiles measuring the same point (the `gpu` and `learning-500-eval`
/// evaluation runs at 1 window): only the later one's rows are used.
#[test]
fn a_point_measured_by_two_profiles_keeps_the_later_profiles_runs() {
    let s = shipped();
    let mut m = Rows::default().eval("adu", 44_000, 1, &tight(10.0, 2)).machine();
    let later = Rows::default()
        .eval("adu", 44_000, 1, &tight(30.0, 2))
        .0
        .into_iter()
        .map(|r| r.with(col::RUN_ID, 2u64).with(col::PROFILE, "learning-500-eval"));
    m.rows.extend(later);
    let a = Analysis::of(&m, &s.tables);
    assert_eq!(a.eval.secs("adu", 1, SERIAL).len(), 2);
    assert!((a.eval.speedup("adu", 1, CUDA).unwrap() - 30.0).abs() < 1e-9);
}
