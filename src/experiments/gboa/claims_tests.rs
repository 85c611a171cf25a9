//! The gBOA claims driven to each verdict on synthetic analyses, and one
//! regression test per defect the verdict migration fixed.

use super::*;
use crate::claims::testing::{self, every_claim_reaches};
use crate::claims::{Claims, Direction, NotRun, Verdict, VerdictKind};
use crate::records::MachineRecords;
use crate::spec::{PaperHardware, Provenance, SpecFile};

fn shipped() -> Claims<Analysis> {
    let file = SpecFile::from_text(std::path::Path::new("experiments/gboa.toml"), include_str!("../../../experiments/gboa.toml").into());
    let spec: super::super::spec::GboaSpec = file.parse().unwrap();
    Claims::bind(&file, &spec.claims, &spec.paper.hardware, CHECKS).unwrap()
}

fn run(total: f64, construction: f64, solved: f64) -> RunTimes {
    RunTimes { total, construction, solved, ..RunTimes::default() }
}

const JITTER: [f64; 5] = [0.98, 1.0, 1.02, 0.99, 1.01];

/// Five runs of each method at each ℓ (200 generations): sBOA and pBOA totals
/// scaled by `s` and `q`, gBOA's by `g` with construction `share`; solved fractions.
/// The complexity sweep: sBOA and pBOA ∝ ℓ² and N, gBOA's kernel as its formula says
/// on a GPU of 132 multiprocessors.
fn analysis(ells: &[usize], s: f64, q: f64, g: f64, share: f64, solved: (f64, f64)) -> Analysis {
    let judged = Judged { ells: Band { low: 1.0, high: 190.0 }, generations: 200 };
    // What Section V.B states (the shipped spec's `[stated]`).
    let stated = Stated { over_sboa: 13.0, over_pboa: 2.6, share: 0.7, share_largest: 0.8 };
    let mut a = Analysis { gpu_sms: Some(132), ..Analysis::default() }.with_settings(3, 0.5, judged, stated);
    for &ell in ells {
        let at = Point { ell, generations: 200 };
        let m = a.table1.entry(at).or_default();
        let t = ell as f64;
        let runs = |scale: f64, built: &dyn Fn(f64) -> f64, solved: f64| -> Vec<RunTimes> {
            JITTER.iter().enumerate().map(|(i, j)| RunTimes { run: i, ..run(scale * t * j, built(*j), solved * j) }).collect()
        };
        m.insert(SBOA.into(), runs(s, &|_| 0.5 * s * t, solved.0));
        m.insert(PBOA.into(), runs(q, &|_| 0.5 * q * t, solved.1));
        m.insert(GBOA.into(), runs(g, &|j| share * g * t * j, solved.1));
    }
    a.identical = (5 * ells.len(), 5 * ells.len());
    for (axis, values, exp) in [("ell", [30, 60, 120, 240], 2.0), ("n", [1200, 2400, 4800, 9600], 1.0)] {
        for v in values {
            let t = (v as f64).powf(exp);
            for method in [SBOA, PBOA] {
                a.complexity.entry((axis.into(), v)).or_default().insert(method.into(), vec![t, t, t]);
            }
            a.complexity_fixed.insert((axis.into(), v), if axis == "ell" { (v, 4800) } else { (120, v) });
            a.complexity_kernel.entry((axis.into(), v)).or_default().insert(GBOA.into(), vec![1.0]);
        }
    }
    set_kernel(&mut a, |cost| cost * 1e-6);
    a
}

/// gBOA's kernel times as a function of its formula's cost at each complexity point.
fn set_kernel(a: &mut Analysis, time: impl Fn(f64) -> f64) {
    for axis in ["ell", "n"] {
        for (v, cost) in a.gboa_formula(axis, GBOA, 132, 480) {
            a.complexity_kernel.get_mut(&(axis.into(), v)).unwrap().insert(GBOA.into(), vec![time(cost); 3]);
        }
    }
}

/// Paper-like: sBOA 13×, pBOA 2.6× gBOA at ℓ = 190; construction 85% of gBOA; same quality.
fn paper_like() -> Analysis {
    analysis(&[60, 120, 190], 13.0, 2.6, 1.0, 0.85, (0.8, 0.8))
}

/// Replaces the runs of `method` at ℓ (200 generations) by these totals, construction `share` of each.
fn set_runs(a: &mut Analysis, ell: usize, method: &str, totals: &[f64], share: f64) {
    let runs = totals.iter().enumerate().map(|(i, t)| RunTimes { run: i, ..run(*t, share * t, 0.8) }).collect();
    a.table1.get_mut(&Point { ell, generations: 200 }).unwrap().insert(method.into(), runs);
}

fn ctx_parts() -> (MachineRecords, PaperHardware) {
    (testing::machine(&[]), testing::paper_hardware())
}

fn judge_one(id: &str, a: &Analysis) -> Outcome {
    let (m, hw) = ctx_parts();
    shipped().judge_one(id, a, &Ctx { machine: &m, paper: &hw }).unwrap()
}

#[test]
fn the_paper_like_records_reproduce_every_claim() {
    let (m, claims) = (testing::machine(&[]), shipped());
    let cases: Vec<_> = claims.ids().into_iter().map(|id| (id, paper_like(), m.clone())).collect();
    every_claim_reaches(&claims, VerdictKind::Reproduced, &cases, &testing::paper_hardware());
}

#[test]
fn every_claim_can_be_not_reproduced() {
    let m = testing::machine(&[]);
    let mut different = paper_like();
    different.identical = (14, 15);
    let slow_pboa = analysis(&[60, 120, 190], 1.0, 2.6, 1.0, 0.75, (0.8, 0.8));
    // sBOA alone grows as ℓ^1 (pBOA still as ℓ²): the serial formula fails for sBOA.
    let mut wrong_growth = paper_like();
    for ((axis, _), m) in wrong_growth.complexity.iter_mut() {
        if axis == "ell" {
            m.get_mut(SBOA).unwrap().iter_mut().for_each(|t| *t = t.sqrt());
        }
    }
    // gBOA's kernel growing as the cube of its formula: far above the bound on both axes.
    let mut steep_kernel = paper_like();
    set_kernel(&mut steep_kernel, |cost| cost.powi(3) * 1e-18);
    let cases = vec![
        // The H100's 5.9× at ℓ = 190 against the paper's 13× is below the band, interval and all.
        ("speedup_over_sboa", analysis(&[190], 5.9, 2.9, 1.0, 0.05, (0.57, 0.39)), m.clone()),
        // 60× the paper's speedup over pBOA is not "up to 2.6×" either.
        ("speedup_over_pboa", analysis(&[190], 13.0 * 60.0, 2.6 * 60.0, 1.0, 0.75, (0.8, 0.8)), m.clone()),
        // 5% of the run, and single-threaded pBOA only 50% construction: Amdahl's law with the
        // paper's 95% predicts 50% here, ten times the measured share.
        ("construction_dominates", analysis(&[60, 190], 13.0, 2.6, 1.0, 0.05, (0.8, 0.8)), m.clone()),
        ("gboa_identical", different, m.clone()),
        ("pboa_faster_than_sboa", slow_pboa, m.clone()),
        ("complexity", wrong_growth, m.clone()),
        ("complexity_gboa", steep_kernel, m.clone()),
        ("quality_kept", analysis(&[190], 13.0, 2.6, 1.0, 0.75, (0.57, 0.39)), m.clone()),
    ];
    every_claim_reaches(&shipped(), VerdictKind::NotReproduced, &cases, &testing::paper_hardware());
    for (id, a, _) in &cases {
        let o = judge_one(id, a);
        let want = match *id {
            "speedup_over_pboa" | "complexity_gboa" => Direction::Exceeds,
            _ => Direction::FallsShort,
        };
        assert_eq!(o.verdict.direction(), Some(want), "{id}: {}", o.verdict.label());
    }
}

#[test]
fn every_claim_can_be_not_run_here() {
    let m = testing::machine(&[]);
    let mut no_gpu = paper_like();
    for methods in no_gpu.table1.values_mut() {
        methods.remove(GBOA);
    }
    no_gpu.identical = (0, 0);
    no_gpu.not_run.insert(GBOA.into(), "--backend cpu".into());
    no_gpu.gpu_sms = None;
    // The quick profile alone: 40 generations, none of the paper's 200; no complexity sweep.
    let mut quick = paper_like();
    quick.table1 = quick.table1.into_iter().map(|(at, runs)| (Point { generations: 40, ..at }, runs)).collect();
    quick.complexity.clear();
    let mut cases: Vec<(&str, Analysis, MachineRecords)> = Vec::new();
    for id in ["speedup_over_sboa", "speedup_over_pboa", "construction_dominates", "gboa_identical", "complexity_gboa"] {
        let o = judge_one(id, &no_gpu);
        assert_eq!(o.verdict, Verdict::NotRun(NotRun::Here("--backend cpu".into())), "{id}");
        cases.push((id, no_gpu.clone(), m.clone()));
    }
    for id in ["pboa_faster_than_sboa", "complexity", "quality_kept"] {
        cases.push((id, quick.clone(), m.clone()));
    }
    every_claim_reaches(&shipped(), VerdictKind::NotRun, &cases, &testing::paper_hardware());
}

#[test]
fn every_claim_but_an_exact_count_can_be_inconclusive() {
    let mut few = paper_like();
    for methods in few.table1.values_mut() {
        methods.values_mut().for_each(|runs| runs.truncate(2));
    }
    for c in ["speedup_over_sboa", "speedup_over_pboa", "construction_dominates", "pboa_faster_than_sboa", "quality_kept"] {
        assert_eq!(judge_one(c, &few).verdict, testing::too_few(2, 5), "{c}");
    }
    let mut sparse = paper_like();
    sparse.complexity.retain(|(axis, v), _| axis == "n" || *v < 100);
    assert_eq!(judge_one("complexity", &sparse).verdict.kind(), VerdictKind::Inconclusive);
    let mut sparse_kernel = paper_like();
    sparse_kernel.complexity_kernel.retain(|(axis, v), _| axis == "n" || *v < 100);
    assert_eq!(judge_one("complexity_gboa", &sparse_kernel).verdict.kind(), VerdictKind::Inconclusive);
    // gboa_identical counts identical runs: exact, never inconclusive (see its own test).
}

#[test]
fn construction_share_needs_80_percent_at_the_largest_size_and_70_below() {
    // 75% everywhere: above the smaller problems' 70%, below the 80% at ℓ = 190.
    let o = judge_one("construction_dominates", &analysis(&[60, 190], 13.0, 2.6, 1.0, 0.75, (0.8, 0.8)));
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced, "{}", o.evidence);
    assert!(o.evidence.contains("≥ 70% at every ℓ and ≥ 80% at the largest"), "{}", o.evidence);
    let o = judge_one("construction_dominates", &paper_like());
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
}

/// Defect: `construction_dominates` read "not reproduced" where Amdahl's law on a fast
/// GPU explains the share. Now it differs on this hardware where the paper's serial
/// share (95%) with this machine's speedups predicts every size's share, and falls
/// short where one size's measured share lies below its prediction.
#[test]
fn construction_share_differs_only_where_amdahl_predicts_every_size() {
    // gBOA: 5% construction. Single-threaded pBOA: 97% construction, the same rest as gBOA
    // (0.95 of gBOA's run): construction 614× faster on the GPU, the rest as fast.
    // Amdahl with the paper's 95% predicts 3.0%; measured 5% reaches it at both sizes.
    let q = 0.95 / 0.03;
    let mut a = analysis(&[60, 190], 13.0, q, 1.0, 0.05, (0.8, 0.8));
    for ell in [60, 190] {
        let totals: Vec<f64> = JITTER.iter().map(|j| q * ell as f64 * j).collect();
        set_runs(&mut a, ell, PBOA, &totals, 0.97);
    }
    let o = judge_one("construction_dominates", &a);
    let Verdict::Differs(e) = &o.verdict else { panic!("{} — {}", o.verdict.label(), o.evidence) };
    assert_eq!(e.direction, Direction::FallsShort);
    assert_eq!(e.points.len(), 2);
    assert!(e.points.iter().all(|p| (p.factors[0].here - 0.030).abs() < 0.001), "{e}");
    assert!(o.evidence.contains("single-threaded pBOA's construction share here (p_here): ℓ=60 (200 gen.): 97%"), "{}", o.evidence);
    assert!(o.verdict.label().contains("construction's share (not a gain) by Amdahl's law"), "{}", o.verdict.label());
    // At ℓ = 60 pBOA is only half construction: the prediction there (50%) is ten times
    // the measured share, so the hardware does not explain every size.
    set_runs(&mut a, 60, PBOA, &[q * 60.0; 5], 0.5);
    let o = judge_one("construction_dominates", &a);
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::FallsShort)), "{}", o.evidence);
    assert!(o.evidence.contains("misses 1 of 2 points"), "{}", o.evidence);
}

/// Defect: `speedup_over_sboa` was judged on the ratio of means alone and flipped
/// between two record sets of the same code (0.47× and 0.55× of the paper). The
/// H100's runs at ℓ = 190 (speed profile): 6.08× over sBOA, 0.47× the paper's, but
/// the interval spans the band's 0.5 edge: inconclusive, with the runs it needs.
#[test]
fn a_speedup_whose_interval_spans_a_band_edge_is_inconclusive() {
    let mut a = analysis(&[190], 6.0, 2.6, 1.0, 0.05, (0.8, 0.8));
    set_runs(&mut a, 190, SBOA, &[4793.0, 5720.0, 7835.0, 5840.0, 5683.0], 0.85);
    set_runs(&mut a, 190, GBOA, &[941.0, 1075.0, 1090.0, 1058.0, 753.0], 0.04);
    let o = judge_one("speedup_over_sboa", &a);
    assert!((o.ratio.unwrap() - 0.467).abs() < 0.005, "{:?}", o.ratio);
    let q = o.quantity.as_ref().unwrap();
    assert!(q.ratio.low < 0.5 && q.ratio.high > 0.5, "{:?}", q.ratio);
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.verdict.label());
    assert!(o.verdict.n_needed().is_some_and(|n| n > 5), "{}", o.verdict.label());
    assert!(o.verdict.label().contains("spans the edge 0.5"), "{}", o.verdict.label());
    // The same over pBOA: 1.33× with pBOA's runs spread as widely, 0.51× the paper's 2.6×.
    set_runs(&mut a, 190, PBOA, &[1000.0, 1200.0, 1700.0, 1350.0, 1300.0], 0.72);
    let o = judge_one("speedup_over_pboa", &a);
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{} — {}", o.verdict.label(), o.evidence);
    assert!(o.verdict.n_needed().is_some(), "{}", o.verdict.label());
}

/// Defect: "up to" was one size's ratio of means, without an interval, and the
/// ℓ ≤ 190 cap came unexplained. Now it is the largest per-size speedup over the
/// sizes judged (wherever it lies), with its interval; sizes outside the harness's
/// range (documented in the spec) go beyond the paper even at 200 generations.
#[test]
fn up_to_is_the_largest_speedup_over_the_sizes_judged_with_its_interval() {
    // The speedup over sBOA peaks at ℓ = 120 (14×), not at the largest size.
    let mut a = analysis(&[60, 120, 190], 13.0, 2.6, 1.0, 0.85, (0.8, 0.8));
    let totals = |x: f64| JITTER.iter().map(|j| x * 120.0 * j).collect::<Vec<f64>>();
    set_runs(&mut a, 120, SBOA, &totals(14.0), 0.5);
    let far = analysis(&[255], 100.0, 20.0, 1.0, 0.85, (0.5, 0.5)).table1.into_values().next().unwrap();
    a.table1.insert(Point { ell: 255, generations: 200 }, far);
    let o = judge_one("speedup_over_sboa", &a);
    assert!(
        o.evidence.starts_with("speedup of gBOA over sboa (whole run, mean times) over the sizes judged: largest at ℓ=120"),
        "{}",
        o.evidence
    );
    let q = o.quantity.as_ref().unwrap();
    assert!((q.measured.value - 14.0).abs() < 1e-9 && q.measured.low < 14.0 && q.measured.high > 14.0, "{:?}", q.measured);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("ℓ=255 (200 gen.): 100×")), "{:?}", o.beyond);
}

#[test]
fn only_the_papers_setting_decides_and_the_rest_is_beyond() {
    // ℓ = 1020 at 40 generations reaches 100×; the range judged (ℓ ≤ 190, 200 gen.) gives 5.9×.
    let mut a = analysis(&[190], 5.9, 2.9, 1.0, 0.05, (0.57, 0.39));
    let far = analysis(&[1020], 100.0, 20.0, 1.0, 0.05, (0.5, 0.5)).table1.into_values().next().unwrap();
    a.table1.insert(Point { ell: 1020, generations: 40 }, far);
    let o = judge_one("speedup_over_sboa", &a);
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::FallsShort)), "{}", o.evidence);
    assert!((o.ratio.unwrap() - 5.9 / 13.0).abs() < 0.02, "{:?}", o.ratio);
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("1020 (40 gen.)") && b.contains("100×")), "{:?}", o.beyond);
}

#[test]
fn speedup_evidence_shows_construction_only_beside_the_whole_run() {
    let o = judge_one("speedup_over_sboa", &paper_like());
    // Construction: sBOA's 0.5·13·ℓ against gBOA's 0.85·ℓ (5 runs' mean, jitter cancels), beyond the paper.
    let beyond = o.beyond.unwrap_or_default();
    assert!(beyond.contains("network construction only: ℓ=60 (200 gen.): 7.65× ["), "{beyond}");
}

/// Defect: a tie between sBOA and pBOA at every size read "not reproduced". Ties
/// neither support nor contradict the claim: inconclusive, with the runs needed.
#[test]
fn pboa_tied_with_sboa_at_every_size_is_inconclusive() {
    // sBOA 1% slower than pBOA, runs 2% apart and not in step: a tie at every ℓ.
    let mut a = analysis(&[60, 120, 190], 2.626, 2.6, 1.0, 0.75, (0.8, 0.8));
    for ell in [60, 120, 190] {
        let t = ell as f64;
        set_runs(&mut a, ell, SBOA, &[1.02, 0.98, 1.01, 0.99, 1.0].map(|j| 2.626 * t * j), 0.5);
    }
    let o = judge_one("pboa_faster_than_sboa", &a);
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.verdict.label());
    assert!(o.verdict.n_needed().is_some_and(|n| n > 5), "{}", o.verdict.label());
    assert!(o.evidence.contains("tie at 3") && o.evidence.contains("n = 5)"), "{}", o.evidence);
    // A tie at the small sizes beside a clear win at the largest: faster, none against.
    set_runs(&mut a, 190, SBOA, &JITTER.map(|j| 13.0 * 190.0 * j), 0.5);
    assert_eq!(judge_one("pboa_faster_than_sboa", &a).verdict, Verdict::Reproduced);
}

/// Defect: the complexity fit was judged on its point value; an exponent 0.05 from
/// the edge with a standard error four times that is inconclusive, not "not reproduced".
#[test]
fn a_fitted_exponent_whose_interval_spans_an_edge_is_inconclusive() {
    let mut a = paper_like();
    // sBOA ∝ N^0.65 with ±20% scatter: the fit's interval spans the band's 0.7 edge.
    for (i, ((axis, v), m)) in a.complexity.iter_mut().enumerate() {
        if axis == "n" {
            let t = (*v as f64).powf(0.65) * [1.2, 0.8, 1.2, 0.8][i % 4];
            m.insert(SBOA.into(), vec![t; 3]);
        }
    }
    let e = a.exponent("n", SBOA).unwrap();
    assert!(e.value < 0.7 && e.low < 0.7 && e.high > 0.7, "{e}");
    let o = judge_one("complexity", &a);
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{} — {}", o.verdict.label(), o.evidence);
    assert!(o.verdict.label().contains("spans the edge 0.7"), "{}", o.verdict.label());
}

/// Defect: gBOA's O() was judged two-sided, so a kernel growing slower than its
/// formula (the H100's ℓ^0.86 against ℓ^2.22) read "not reproduced". An O() is an
/// upper bound: slower growth holds, faster than the bound plus tolerance exceeds.
#[test]
fn gboas_formula_is_an_upper_bound() {
    let mut flat = paper_like();
    set_kernel(&mut flat, |cost| cost.powf(0.4) * 1e-3);
    let o = judge_one("complexity_gboa", &flat);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    let mut steep = paper_like();
    set_kernel(&mut steep, |cost| cost.powi(3) * 1e-18);
    assert_eq!(judge_one("complexity_gboa", &steep).verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
}

/// `gboa_identical` is an exact count: every run identical holds, one fewer falls
/// short, with no interval and no runs that could change it.
#[test]
fn gboa_identical_is_an_exact_count() {
    let mut a = paper_like();
    a.identical = (15, 15);
    let o = judge_one("gboa_identical", &a);
    assert_eq!((o.verdict, o.n), (Verdict::Reproduced, Some(15)));
    a.identical = (14, 15);
    let o = judge_one("gboa_identical", &a);
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::FallsShort)), "{}", o.evidence);
    assert_eq!(o.verdict.n_needed(), None);
}

/// `quality_kept` is the harness's own check, judged by the interval of the change in
/// the solved fraction: wholly above −10 points holds, across it is inconclusive
/// (it read "not reproduced" before), wholly below falls short.
#[test]
fn quality_kept_is_the_harness_own_and_judged_by_its_interval() {
    let (m, hw) = ctx_parts();
    let results = shipped().judge(&paper_like(), &Ctx { machine: &m, paper: &hw });
    let r = results.iter().find(|r| r.id == "quality_kept").unwrap();
    assert_eq!((r.provenance, r.quote.as_deref()), (Provenance::Harness, None));
    assert_eq!(r.outcome.verdict, Verdict::Reproduced, "{}", r.outcome.evidence);
    // The H100's ℓ = 190: pBOA solves 18 points fewer, runs scattered: the interval spans −10.
    let mut a = paper_like();
    let sboa = [0.6, 0.5, 0.65, 0.55, 0.55];
    let pboa = [0.3, 0.45, 0.35, 0.5, 0.35];
    for (method, solved) in [(SBOA, sboa), (PBOA, pboa)] {
        let runs = a.table1.get_mut(&Point { ell: 190, generations: 200 }).unwrap().get_mut(method).unwrap();
        runs.iter_mut().zip(solved).for_each(|(r, s)| r.solved = s);
    }
    let o = judge_one("quality_kept", &a);
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{} — {}", o.verdict.label(), o.evidence);
    assert!(o.evidence.contains("ℓ=190 (200 gen.): sBOA 57%, pBOA 39%: -18.0 ["), "{}", o.evidence);
    // Every run 30 points fewer: wholly below −10, falls short.
    let runs = a.table1.get_mut(&Point { ell: 190, generations: 200 }).unwrap().get_mut(PBOA).unwrap();
    runs.iter_mut().zip(sboa).for_each(|(r, s)| r.solved = s - 0.3);
    let o = judge_one("quality_kept", &a);
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(Direction::FallsShort)), "{}", o.evidence);
}
