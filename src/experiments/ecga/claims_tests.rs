//! The checks of `claims.rs` on small synthetic record sets: every claim of the
//! shipped spec driven to "not reproduced", "reproduced", "inconclusive" and
//! "not run here" (and those with a hardware model to "differs on this
//! hardware"), and one test per defect the move onto `judge`'s rules fixed.

use super::*;
use crate::claims::testing::{self, every_claim_reaches};
use crate::claims::{Claims, Ctx, NotRun, Outcome, Verdict, VerdictKind};
use crate::experiments::ecga::analysis::tests::{fig5, fig5_not_run, published, stored};
use crate::experiments::ecga::rows::{
    BUILD, Bisection, BuildCase, BuildRow, COUNT, CountRow, FIG6, FIG7, Generation, RunCase, RunRow, SCALE, ScaleRow, Scored, TABLE5,
    Table5Case, WHOLE, WholeBuild, WholeCase, ran,
};
use crate::experiments::ecga::spec::EcgaSpec;
use crate::experiments::ecga::{BASELINE, CPU_MT, FASTCOUNT, GECGA, GECGA_DEVICE};
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use crate::spec::{PaperHardware, SpecFile};
use std::path::Path;

const SPEC: &str = include_str!("../../../experiments/ecga.toml");

/// The shipped spec's claims bound to [`checks`], and the paper's hardware.
fn shipped() -> (Claims<Analysis>, PaperHardware) {
    let file = SpecFile::from_text(Path::new("experiments/ecga.toml"), SPEC.into());
    let spec: EcgaSpec = file.parse().unwrap();
    (Claims::bind(&file, &spec.claims, &spec.paper.hardware, CHECKS).unwrap(), spec.paper.hardware)
}

type Case<'a> = (&'a str, Analysis, MachineRecords);

fn case(id: &str, rows: Vec<Record>) -> Case<'_> {
    let m = MachineRecords { hw_id: "test".into(), rows };
    (id, Analysis::of(&m, &published()), m)
}

/// `n` values around `mean`, ±1%.
fn around(mean: f64, n: usize) -> Vec<f64> {
    around_by(mean, n, 0.01)
}

/// `n` values around `mean`, ± `fraction` of it.
fn around_by(mean: f64, n: usize, fraction: f64) -> Vec<f64> {
    (0..n).map(|i| mean * (1.0 + fraction * ((i % 3) as f64 - 1.0))).collect()
}

/// A row of `figure` by `scorer` that ran, stored by the `test` profile's run 1.
fn row(figure: &str, scorer: &str) -> Record {
    stored(ran(scorer), figure, "test", 1)
}

/// A Table 5 bisection of `search` at ℓ under `rule` (runs per trial, required
/// successes, randomness; None: the columns older records lack).
fn bisection(search: &str, ell: usize, n_min: f64, rule: Option<(usize, usize, &str)>) -> Record {
    let case = Table5Case {
        search: search.into(),
        ell,
        runs_per_trial: rule.map(|r| r.0),
        required_successes: rule.map(|r| r.1),
        randomness: rule.map(|r| r.2.into()),
        ..Table5Case::default()
    };
    row(TABLE5, GECGA_DEVICE).with_row(&case).with_row(&Bisection { n_min: n_min.round() as usize, ..Bisection::default() })
}

/// A `build` case's model build at ℓ = 500 by `scorer` in `ms`.
fn lone(scorer: &str, ms: f64) -> Record {
    let build = BuildRow { model_ms: ms, identical: true, ..BuildRow::default() };
    row(BUILD, scorer).with_row(&BuildCase { ell: 500, ..BuildCase::default() }).with_row(&build)
}

/// `n` bisections per search at each ℓ, around `greedy(ℓ)` and `gm(ℓ)`.
fn table5(ells: &[usize], n: usize, greedy: impl Fn(f64) -> f64, gm: impl Fn(f64) -> f64) -> Vec<Record> {
    let mut rows = Vec::new();
    for &ell in ells {
        for (search, mean) in [("greedy", greedy(ell as f64)), ("gm", gm(ell as f64))] {
            rows.extend(around(mean, n).into_iter().map(|v| bisection(search, ell, v, None)));
        }
    }
    rows
}

/// `n` Figure 5 runs at ℓ: the baseline's and gECGA's model building (the whole
/// run 10% longer) and FastCount at half the baseline's time.
fn runs(ell: usize, n: usize, baseline: f64, gecga: f64) -> Vec<Record> {
    let mut rows = Vec::new();
    for (r, (b, g)) in around(baseline, n).into_iter().zip(around(gecga, n).into_iter().rev()).enumerate() {
        rows.push(fig5("test", 1, ell, r, BASELINE, b, b * 1.1));
        rows.push(fig5("test", 1, ell, r, FASTCOUNT, b / 2.0, b * 0.6));
        rows.push(fig5("test", 1, ell, r, GECGA, g, g * 1.1));
    }
    rows
}

/// `runs` Figure 6 runs of `search` at N: `len` or `len + 1` generations, the
/// quality about `quality` in each but the last (0 there), the ratio of ones
/// rising evenly from 0.5 to 1 over the run.
fn fig6(search: &str, n: usize, runs: usize, len: usize, quality: f64) -> Vec<Record> {
    fig6_to(search, n, runs, len, quality, 1.0)
}

/// [`fig6`] with the ratio of ones rising to `top` (a run converging short of 1).
fn fig6_to(search: &str, n: usize, runs: usize, len: usize, quality: f64, top: f64) -> Vec<Record> {
    let mut rows = Vec::new();
    for r in 0..runs {
        let gens = len + r % 2;
        for g in 1..=gens {
            let q = if g == gens { 0.0 } else { quality + 0.01 * (r % 3) as f64 };
            let ones = 0.5 + (top - 0.5) * (g - 1) as f64 / (gens - 1) as f64;
            let case = RunCase { search: search.into(), ell: 50, n, run: r, ..RunCase::default() };
            let generation = Generation { generation: g, generations: gens, model_quality: q, ones_ratio: ones, ..Generation::default() };
            rows.push(row(FIG6, GECGA).with(col::CASE_ID, format!("fig6/{search}/n{n}/r{r}")).with_row(&case).with_row(&generation));
        }
    }
    rows
}

/// `n` whole runs of GM search (Figure 7) and of greedy (Figure 5) with gECGA
/// at ℓ: greedy's model building half its run, GM's a quarter of greedy's run.
fn fig7(ell: usize, n: usize, gm_ms: f64, greedy_ms: f64) -> Vec<Record> {
    fig7_by(ell, n, gm_ms, greedy_ms, 0.01)
}

/// [`fig7`] with the runs' times ± `fraction` of their mean.
fn fig7_by(ell: usize, n: usize, gm_ms: f64, greedy_ms: f64, fraction: f64) -> Vec<Record> {
    let mut rows: Vec<Record> = around_by(gm_ms, n, fraction)
        .into_iter()
        .enumerate()
        .map(|(r, t)| {
            let gm =
                row(FIG7, GECGA).with(col::CASE_ID, format!("fig7/l{ell}/r{r}")).with_row(&RunCase { ell, run: r, ..RunCase::default() });
            gm.with_row(&RunRow { total_ms: t, model_ms: greedy_ms / 4.0, ..RunRow::default() })
        })
        .collect();
    rows.extend(around_by(greedy_ms, n, fraction).into_iter().enumerate().map(|(r, t)| fig5("test", 1, ell, r, GECGA, t / 2.0, t)));
    rows
}

fn scale_build(search: &str, quality: f64) -> Record {
    let case = BuildCase { search: search.into(), ell: 9800, n: 1_912_315, ..BuildCase::default() };
    row(SCALE, GECGA).with_row(&case).with_row(&ScaleRow {
        model_ms: 40_000.0,
        merges: 7840,
        model_quality: quality,
        ..ScaleRow::default()
    })
}

fn with_ceilings(mut rows: Vec<Record>, ceilings: &[(&str, f64)]) -> Vec<Record> {
    rows.extend(testing::machine(ceilings).rows);
    rows
}

#[test]
fn every_claim_of_the_shipped_spec_can_be_not_reproduced() {
    let (claims, hw) = shipped();
    let identical_but_one: Vec<Record> =
        (0..10).map(|r| fig5("test", 1, 100, r, GECGA, 1.0, 2.0).with(RunRow::identical, r != 3)).collect();
    let cases = vec![
        // GM's populations 20% smaller than greedy's at every ℓ.
        case("gm_population_not_smaller", table5(&[50, 100, 150], 10, |l| 10.0 * l.powf(1.4), |l| 8.0 * l.powf(1.4))),
        // Populations growing as ℓ².
        case("population_growth", table5(&[50, 100, 150], 10, |l| l * l, |l| 1.1 * l * l)),
        case("gecga_identical", identical_but_one),
        // spg(m) falls from 100× to 50×.
        case("spg_grows", [runs(50, 5, 100.0, 1.0), runs(100, 5, 100.0, 2.0)].concat()),
        // FastCount 20× the baseline.
        case(
            "spc_small",
            (0..2)
                .flat_map(|r| [fig5("t", 1, 50, r, BASELINE, 100.0 + r as f64, 110.0), fig5("t", 1, 50, r, FASTCOUNT, 5.0, 5.5)])
                .collect(),
        ),
        // A tenth of the paper's spg, and no ceilings for the model to predict from.
        case("spg_at_500", runs(500, 3, 48_228.0, 1000.0)),
        case("greedy_quality_higher", [fig6("greedy", 2400, 5, 9, 0.2), fig6("gm", 2400, 5, 9, 0.6)].concat()),
        case("greedy_converges_earlier", [fig6("greedy", 2400, 5, 12, 0.5), fig6("gm", 2400, 5, 9, 0.5)].concat()),
        // The GM build misses a tenth of the planted blocks.
        case("scale", vec![scale_build("greedy", 1.0), scale_build("gm", 0.9)]),
        // GM twice as slow: Amdahl's law (greedy's model building half its run, GM's twice as fast) predicts
        // 0.84× the paper's gain of GM over greedy, measured 0.36×.
        case("gm_faster", fig7(100, 5, 200.0, 100.0)),
    ];
    every_claim_reaches(&claims, VerdictKind::NotReproduced, &cases, &hw);
}

#[test]
fn every_claim_of_the_shipped_spec_can_be_reproduced() {
    let (claims, hw) = shipped();
    let cases = vec![
        case("gm_population_not_smaller", table5(&[50, 100, 150], 10, |l| 10.0 * l.powf(1.4), |l| 12.0 * l.powf(1.4))),
        case("population_growth", table5(&[50, 100, 150], 10, |l| 10.0 * l.powf(1.4), |l| 11.0 * l.powf(1.4))),
        case("gecga_identical", (0..10).map(|r| fig5("test", 1, 100, r, GECGA, 1.0, 2.0)).collect()),
        case("spg_grows", [runs(50, 5, 100.0, 2.0), runs(100, 5, 1000.0, 4.0), runs(150, 5, 3000.0, 6.0)].concat()),
        case("spc_small", runs(50, 2, 100.0, 1.0)),
        case("spg_at_500", runs(500, 3, 482_280.0, 1000.0)),
        case("greedy_quality_higher", [fig6("greedy", 2400, 5, 9, 0.6), fig6("gm", 2400, 5, 9, 0.2)].concat()),
        case("greedy_converges_earlier", [fig6("greedy", 2400, 5, 8, 0.5), fig6("gm", 2400, 5, 11, 0.5)].concat()),
        case("scale", vec![scale_build("greedy", 1.0), scale_build("gm", 1.0)]),
        case("gm_faster", fig7(100, 5, 60.0, 100.0)),
    ];
    every_claim_reaches(&claims, VerdictKind::Reproduced, &cases, &hw);
}

#[test]
fn too_few_runs_decide_nothing() {
    let (claims, hw) = shipped();
    let cases = vec![
        case("gm_population_not_smaller", table5(&[50, 100, 150], 2, |l| 10.0 * l, |l| 20.0 * l)),
        case("population_growth", table5(&[50, 100, 150], 2, |l| l * l, |l| l * l)),
        case("gecga_identical", (0..3).map(|r| fig5("test", 1, 100, r, GECGA, 1.0, 2.0)).collect()),
        case("spg_grows", [runs(50, 2, 100.0, 1.0), runs(100, 2, 100.0, 2.0)].concat()),
        case("spc_small", runs(50, 1, 100.0, 1.0)),
        case("spg_at_500", runs(500, 1, 48_228.0, 1000.0)),
        case("greedy_quality_higher", [fig6("greedy", 2400, 2, 9, 0.2), fig6("gm", 2400, 2, 9, 0.6)].concat()),
        case("greedy_converges_earlier", [fig6("greedy", 2400, 2, 12, 0.5), fig6("gm", 2400, 2, 9, 0.5)].concat()),
        case("gm_faster", fig7(100, 2, 200.0, 100.0)),
    ];
    for (id, a, m) in &cases {
        let o = claims.judge_one(id, a, &Ctx { machine: m, paper: &hw }).unwrap();
        assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{id}: {} — {}", o.verdict.label(), o.evidence);
    }
    let o = claims.judge_one("gm_population_not_smaller", &cases[0].1, &Ctx { machine: &cases[0].2, paper: &hw }).unwrap();
    assert_eq!(o.verdict, crate::claims::testing::too_few(2, 10));
}

#[test]
fn records_with_nothing_to_judge_are_not_run_here_with_the_records_reason() {
    let (claims, hw) = shipped();
    let ids = claims.ids();
    let empty: Vec<Case> = ids.iter().map(|id| case(id, vec![])).collect();
    every_claim_reaches(&claims, VerdictKind::NotRun, &empty, &hw);
    // A machine without a GPU: its Figure 5 rows say why gECGA did not run.
    let mut rows = runs(50, 5, 100.0, 1.0);
    rows.retain(|r| r.str(Scored::scorer) != GECGA);
    rows.push(fig5_not_run(50, GECGA, "libcuda not found"));
    for id in ["gecga_identical", "spg_grows", "spg_at_500", "gm_faster"] {
        let (_, a, m) = case(id, rows.clone());
        let o = claims.judge_one(id, &a, &Ctx { machine: &m, paper: &hw }).unwrap();
        assert_eq!(o.verdict.kind(), VerdictKind::NotRun, "{id}");
        assert!(o.verdict.label().contains("libcuda not found"), "{id}: {}", o.verdict.label());
    }
    // The baseline not run at the paper's ℓ: its reason.
    let mut rows = runs(500, 3, 1.0, 1.0);
    rows.retain(|r| r.str(Scored::scorer) != BASELINE);
    rows.push(
        fig5("test", 1, 500, 0, BASELINE, 0.0, 0.0).with(col::STATUS, "not_run").with(col::REASON, "ℓ beyond the profile's cpu_1t_max_ell"),
    );
    let (_, a, m) = case("spg_at_500", rows);
    let o = claims.judge_one("spg_at_500", &a, &Ctx { machine: &m, paper: &hw }).unwrap();
    assert_eq!(o.verdict, Verdict::NotRun(NotRun::Here("baseline: ℓ beyond the profile's cpu_1t_max_ell".into())));
}

#[test]
fn the_speedup_at_500_differs_only_where_the_hardware_predicts_it() {
    let (claims, hw) = shipped();
    // 10× the C2050's int32 rate (515.2 G/s) and the W3530's clock: the model predicts 10× the paper's speedups.
    let ceilings = [("gpu_int32", 5152.0), ("cpu_clock", 3.06)];
    let judge = |baseline: f64| {
        let (_, a, m) = case("spg_at_500", with_ceilings(runs(500, 3, baseline, 1000.0), &ceilings));
        claims.judge_one("spg_at_500", &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    let o = judge(4_822_800.0);
    assert_eq!(o.verdict.kind(), VerdictKind::Differs, "{}", o.evidence);
    assert!(o.verdict.label().contains("predicts 10.0× the paper's result"), "{}", o.verdict.label());
    assert!((o.ratio.unwrap() - 10.0).abs() < 0.01);
    // 100× the paper's: the model misses by 10×.
    let o = judge(48_228_000.0);
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("by up to 10.0×"), "{}", o.evidence);
    // Older records without one core's clock: no prediction, not reproduced.
    let (_, a, m) = case("spg_at_500", with_ceilings(runs(500, 3, 4_822_800.0, 1000.0), &ceilings[..1]));
    let o = claims.judge_one("spg_at_500", &a, &Ctx { machine: &m, paper: &hw }).unwrap();
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("one core's clock not measured"), "{}", o.evidence);
}

#[test]
fn the_scale_claim_rests_on_table_4_against_the_usable_memory() {
    let (claims, mut hw) = shipped();
    let (_, a, m) = case("scale", vec![scale_build("greedy", 1.0), scale_build("gm", 1.0)]);
    let o = claims.judge_one("scale", &a, &Ctx { machine: &m, paper: &hw }).unwrap();
    assert_eq!(o.verdict, Verdict::Reproduced);
    assert!(o.evidence.contains("2.727 GB needed of the 2.818 GB usable") && o.evidence.contains("96.8%"), "{}", o.evidence);
    // Read as 2.687·10⁹ bytes, the paper's own Table 4 does not fit its point.
    hw.datasheet.get_mut(&crate::hardware::Quantity::GpuMemory).unwrap().value = 2.687e9 / (1u64 << 30) as f64;
    let o = claims.judge_one("scale", &a, &Ctx { machine: &m, paper: &hw }).unwrap();
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::Exceeds)));
    assert!(o.evidence.contains("does not fit"), "{}", o.evidence);
    // Only one search built the model: not run (the claim names both).
    let (_, a, m) = case("scale", vec![scale_build("greedy", 1.0)]);
    let (_, hw) = shipped();
    let o = claims.judge_one("scale", &a, &Ctx { machine: &m, paper: &hw }).unwrap();
    assert!(o.verdict.label().contains("no model build with gm search"), "{}", o.verdict.label());
}

#[test]
fn ties_are_reported_with_n_and_decide_nothing() {
    let (claims, hw) = shipped();
    let judge = |id: &str, rows: Vec<Record>| {
        let (_, a, m) = case("x", rows);
        claims.judge_one(id, &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    // Equal populations at every ℓ: no size shows GM's larger, none smaller — inconclusive for good (was not reproduced).
    let o = judge("gm_population_not_smaller", table5(&[50, 100], 10, |l| 10.0 * l, |l| 10.0 * l));
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.verdict.label());
    assert_eq!(o.verdict.n_needed(), None, "equal means: no number of bisections separates them");
    assert!(o.evidence.contains("GM larger at 0 of 2 sizes, tie at 2") && o.evidence.contains("(95% CI, n = 10)"), "{}", o.evidence);
    // One rise and one tie between consecutive ℓ, a rise overall: growth.
    let rows = [runs(50, 5, 100.0, 2.0), runs(100, 5, 1000.0, 4.0), runs(150, 5, 1000.0, 4.0)].concat();
    let o = judge("spg_grows", rows);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("50→100: rise, 100→150: tie") && o.evidence.contains("ℓ = 50→150: rise"), "{}", o.evidence);
    // No rise overall beyond the runs' spread: inconclusive with the runs it needs (was not reproduced).
    let wide = |ell: usize, spg: [f64; 5]| -> Vec<Record> {
        spg.iter()
            .enumerate()
            .flat_map(|(r, s)| [fig5("t", 1, ell, r, BASELINE, 100.0 * s, 110.0 * s), fig5("t", 1, ell, r, GECGA, 100.0, 110.0)])
            .collect()
    };
    let o = judge("spg_grows", [wide(50, [90.0, 110.0, 100.0, 80.0, 120.0]), wide(100, [95.0, 115.0, 105.0, 85.0, 125.0])].concat());
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
    assert!(o.verdict.n_needed().is_some_and(|n| n > 5), "{}", o.verdict.label());
    // One fall between neighbours contradicts growth, whatever the overall rise.
    let rows = [runs(50, 5, 100.0, 2.0), runs(100, 5, 1000.0, 2.0), runs(150, 5, 1000.0, 4.0)].concat();
    assert_eq!(judge("spg_grows", rows).verdict.kind(), VerdictKind::NotReproduced);
}

#[test]
fn what_lies_beyond_the_papers_range_is_kept_apart() {
    let (claims, hw) = shipped();
    let judge = |id: &str, rows: Vec<Record>| {
        let (_, a, m) = case("x", rows);
        claims.judge_one(id, &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    // Figure 7 beyond ℓ = 350, and a CPU scorer instead of gECGA: beyond, not judged.
    let mut rows = fig7(400, 5, 60.0, 100.0);
    rows.extend(fig7(100, 5, 60.0, 100.0).into_iter().map(|r| r.with(Scored::scorer, CPU_MT)));
    rows.extend([scale_build("greedy", 1.0), scale_build("gm", 1.0).with(ScaleRow::model_ms, 20_000.0)]);
    let o = judge("gm_faster", rows);
    assert_eq!(o.verdict.kind(), VerdictKind::NotRun, "{}", o.evidence);
    let beyond = o.beyond.unwrap();
    assert!(beyond.contains("gecga at ℓ = 400") && beyond.contains("fastcount-mt at ℓ = 100"), "{beyond}");
    assert!(beyond.contains("GM 20.0 s vs greedy 40.0 s"), "{beyond}");
    // One model build at ℓ = 500 is not a whole run: beyond, with its ratio to the paper.
    let o = judge("spg_at_500", vec![lone(BASELINE, 166_739.0), lone(GECGA, 18.8)]);
    assert_eq!(o.verdict.kind(), VerdictKind::NotRun);
    assert!(o.beyond.unwrap().contains("8869× — 18.4× the paper's spg(m)"));
    // Table 5 and Figure 5 past the paper's ℓ: listed apart, the verdict rests on the paper's range.
    let mut rows = table5(&[50, 100, 150], 10, |l| 10.0 * l.powf(1.4), |l| 11.0 * l.powf(1.4));
    rows.extend(table5(&[400], 10, |l| l * l, |l| l * l));
    let o = judge("population_growth", rows);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    let beyond = o.beyond.unwrap();
    assert!(beyond.contains("table5_greedy outside ℓ = 50–350: 400: 159840 ±"), "{beyond}");
    let o = judge("spc_small", [runs(50, 2, 100.0, 1.0), runs(600, 2, 100.0, 1.0)].concat());
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.beyond.unwrap().contains("spc(m) at ℓ = 600: 2.00"));
    let count = row(COUNT, GECGA).with_row(&CountRow { identical: true, ..CountRow::default() });
    let o = judge("gecga_identical", vec![lone(BASELINE, 1.0), lone(GECGA, 1.0), count]);
    let beyond = o.beyond.unwrap();
    assert!(beyond.contains("same MPM as the baseline's in 1 of 1") && beyond.contains("1 of 1 group sizes"), "{beyond}");
}

#[test]
fn parameters_are_checked_when_the_spec_is_loaded() {
    let bind = |from: &str, to: &str| {
        let text = SPEC.replacen(from, to, 1);
        assert_ne!(text, SPEC, "the spec no longer has `{from}`");
        let file = SpecFile::from_text(Path::new("ecga.toml"), text);
        let spec: EcgaSpec = file.parse().unwrap();
        Claims::bind(&file, &spec.claims, &spec.paper.hardware, CHECKS).err().map(|e| e.to_string()).unwrap_or_default()
    };
    let e = bind("searches = [\"greedy\", \"gm\"]", "searches = [\"greedy\", \"bfs\"]");
    assert!(e.contains("claims.scale.params.searches") && e.contains("unknown search `bfs`"), "{e}");
    let e = bind("rule = \"some_none_against\", min_n = 5 }", "rule = \"some_none_against\", min_n = 1 }");
    assert!(e.contains("claims.greedy_quality_higher.params.min_n"), "{e}");
    let e = bind("band = [0.5, 2.0]", "band = [0.0, 2.0]");
    assert!(e.contains("claims.spg_at_500.params.band"), "{e}");
    let e = bind("rule = \"some_none_against\", min_n = 10 }", "rule = \"some_none_against\" }");
    assert!(e.contains("claims.gm_population_not_smaller.params") && e.contains("missing field `min_n`"), "{e}");
    let e = bind("want = \"larger\"", "want = \"bigger\"");
    assert!(e.contains("claims.gm_population_not_smaller.params") && e.contains("unknown variant `bigger`"), "{e}");
    let e = bind("model = { gpu_int32 = 1.0", "model = { gpu_int64 = 1.0");
    assert!(e.contains("claims.spg_at_500.params") && e.contains("gpu_int64"), "{e}");
}

#[test]
fn the_hardware_model_names_only_quantities_the_datasheet_gives() {
    let file = SpecFile::from_text(Path::new("ecga.toml"), SPEC.into());
    let spec: EcgaSpec = file.parse().unwrap();
    for c in spec.claims.iter().filter(|c| *c.check == "spg_at_500") {
        let p: PaperSpeedup = c.params.clone().unwrap().into_inner().try_into().unwrap();
        for q in p.model.expect("spg_at_500 has a model").quantities() {
            assert!(spec.paper.hardware.datasheet.contains_key(&q), "{q:?} missing from the datasheet");
        }
    }
}

/// `runs` whole runs at ℓ = 500 timed by saved generations, 16 builds at once:
/// `gens` generations, each built by the baseline in `build_ms` (FastCount a
/// third of it), gECGA's run of 1 s (0.5 s model building), and the `build`
/// case's selection built alone in `lone_ms` and among the others in `shared_ms`.
fn whole(runs: usize, gens: usize, build_ms: f64, lone_ms: f64, shared_ms: f64) -> Vec<Record> {
    let mut rows = vec![lone(BASELINE, lone_ms)];
    rows.extend(whole_set(16, runs, gens, build_ms, shared_ms));
    rows
}

/// The `whole` cases' rows of one set of runs, `at_once` builds at once (without the lone build).
fn whole_set(at_once: usize, runs: usize, gens: usize, build_ms: f64, shared_ms: f64) -> Vec<Record> {
    let w = |r: usize, scorer: &str| {
        let case = WholeCase { search: "greedy".into(), ell: 500, n: 60_775, run: r, threads: at_once, ..WholeCase::default() };
        row(WHOLE, scorer).with_row(&case)
    };
    let mut rows = Vec::new();
    for r in 0..runs {
        rows.push(w(r, GECGA).with_row(&RunRow { generations: gens, model_ms: 500.0, total_ms: 1000.0, ..RunRow::default() }));
        rows.push(w(r, GECGA).with(WholeCase::search, "gm").with_row(&RunRow { total_ms: 900.0, ..RunRow::default() }));
        rows.push(w(r, GECGA_DEVICE).with_row(&RunRow { total_ms: 100.0, ..RunRow::default() }));
        let calibration = WholeBuild { calibration: true, concurrent: at_once, model_ms: shared_ms, ..WholeBuild::default() };
        rows.push(w(r, BASELINE).with_row(&calibration));
        for g in 1..=gens {
            for (scorer, ms) in [(BASELINE, build_ms), (FASTCOUNT, build_ms / 3.0)] {
                let build = WholeBuild { generation: Some(g), model_ms: ms, identical: Some(true), ..WholeBuild::default() };
                rows.push(w(r, scorer).with_row(&build));
            }
        }
    }
    rows
}

/// `spg_at_500` judged by the shipped claims on `rows`.
fn judge_spg_at_500(rows: Vec<Record>) -> Outcome {
    let (claims, hw) = shipped();
    let (_, a, m) = case("spg_at_500", rows);
    claims.judge_one("spg_at_500", &a, &Ctx { machine: &m, paper: &hw }).unwrap()
}

#[test]
fn spg_at_500_from_whole_runs_by_saved_generations_reaches_every_verdict() {
    let judge = judge_spg_at_500;
    // spg(m) = 20 × 12,057 ms / 500 ms = 482.28; spg(w) = (241,140 + 500) / 1000 = 241.6: inside [0.5, 2] of 359×.
    let o = judge(whole(3, 20, 12_057.0, 1000.0, 1020.0));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("builds at once): n = 3, a baseline build +2.0%") && o.evidence.contains("±2.0%"), "{}", o.evidence);
    // Ten times faster builds: spg 48×, outside the band, and no ceilings for the hardware model to predict from.
    let o = judge(whole(3, 20, 1_205.7, 1000.0, 1020.0));
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::FallsShort)), "{}", o.evidence);
    // One run: too few.
    assert_eq!(judge(whole(1, 20, 12_057.0, 1000.0, 1020.0)).verdict, testing::too_few(1, 2));
    // A generation missing from every run: no run is whole, too few.
    let rows: Vec<Record> =
        whole(3, 20, 12_057.0, 1000.0, 1020.0).into_iter().filter(|r| r.int(WholeBuild::generation) != Some(7)).collect();
    assert_eq!(judge(rows).verdict.kind(), VerdictKind::Inconclusive);
}

/// The defect: builds run several at once cost more than the method's 5%, and
/// the claim was left "not run here" though the runs were there. Now the
/// measured cost widens both speedups as a systematic and the band decides.
#[test]
fn spg_at_500_is_judged_with_the_cost_of_sharing_the_cores_as_a_systematic() {
    let judge = judge_spg_at_500;
    // +10%: spg(m) 1.00× ± 10% and spg(w) 0.67× ± 10% of the paper's, both inside [0.5, 2]: reproduced (was not run).
    let o = judge(whole(3, 20, 12_057.0, 1000.0, 1100.0));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("+10.0%") && o.evidence.contains("taken as a systematic of ±10.0% on each speedup"), "{}", o.evidence);
    let q = o.quantity.as_ref().unwrap();
    assert!((q.ratio.high / q.ratio.value - 1.1).abs() < 1e-9 && (q.ratio.low / q.ratio.value - 0.9).abs() < 1e-9, "{:?}", q.ratio);
    // +35%: spg(w)'s interval, 0.67× ± 35% of the paper's, spans the band's lower edge: inconclusive, not "not reproduced".
    let o = judge(whole(3, 20, 12_057.0, 1000.0, 1350.0));
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.verdict.label());
    assert!(o.verdict.label().contains("spans the edge 0.500"), "{}", o.verdict.label());
    assert!(o.evidence.contains("spg(w) at ℓ = 500: measured"), "{}", o.evidence);
    // The lone builds' own spread is shown beside the cost measured against one of them.
    let mut rows = whole(3, 20, 12_057.0, 1000.0, 1100.0);
    rows.push(lone(BASELINE, 1300.0).with(col::PROFILE, "whole2"));
    let o = judge(rows);
    assert!(
        o.evidence.contains("the lone build itself took 1000–1300 ms over 2 builds here (the slowest +30.0% over the fastest)"),
        "{}",
        o.evidence
    );
}

#[test]
fn spg_at_500_judges_the_set_of_whole_runs_with_the_most_runs() {
    let judge = judge_spg_at_500;
    // One run with 16 builds at once (+35%) and three with 8 (+2%): judged on the 8, the other named.
    let mut rows = whole(1, 20, 12_057.0, 1000.0, 1350.0);
    rows.extend(whole_set(8, 3, 20, 12_057.0, 1020.0));
    let o = judge(rows);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("(8 single-threaded builds at once): n = 3, a baseline build +2.0%"), "{}", o.evidence);
    assert!(o.evidence.contains("not used: whole runs at ℓ = 500") && o.evidence.contains("+35.0%"), "{}", o.evidence);
    // As many runs in both sets: the one that lost less to sharing the cores.
    let mut rows = whole(3, 20, 12_057.0, 1000.0, 1350.0);
    rows.extend(whole_set(8, 3, 20, 12_057.0, 1100.0));
    let o = judge(rows);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("(8 single-threaded builds at once): n = 3, a baseline build +10.0%"), "{}", o.evidence);
    // Each set against the lone build of its own profile's run: the 8-builds
    // set's 1,100 ms is +10% over the `speed` run's 1,000 ms lone build but +0%
    // over its own `whole` run's 1,100 ms.
    let of = |profile: &str, rows: Vec<Record>| rows.into_iter().map(|r| r.with(col::PROFILE, profile)).collect::<Vec<Record>>();
    let mut rows = of("speed", whole(1, 20, 12_057.0, 1000.0, 1350.0));
    rows.extend(of("whole", whole(3, 20, 12_057.0, 1100.0, 1100.0).into_iter().map(|r| r.with(WholeCase::threads, 8usize)).collect()));
    let o = judge(rows);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("(8 single-threaded builds at once): n = 3, a baseline build +0.0%"), "{}", o.evidence);
}

#[test]
fn whole_run_speedups_divide_the_sums_of_the_builds() {
    let (_, a, _) = case("spg_at_500", whole(3, 20, 12_057.0, 1000.0, 1020.0));
    let sp = crate::experiments::ecga::analysis::whole_speedups(&a.whole[&(500, 16)].1);
    assert_eq!(sp.n, 3);
    let close = |x: Option<f64>, y: f64| (x.unwrap() - y).abs() < 1e-9 * y;
    assert!(close(sp.spg_m, 20.0 * 12_057.0 / 500.0));
    assert!(close(sp.spg_w, (20.0 * 12_057.0 + 500.0) / 1000.0));
    assert!(close(sp.spc_m, 3.0));
    assert!(close(sp.spcg_m, 20.0 * 4_019.0 / 500.0));
    assert!(close(sp.spgm_w, (20.0 * 12_057.0 + 500.0) / 900.0));
    assert!(close(sp.device_w, (20.0 * 12_057.0 + 500.0) / 100.0));
    assert_eq!(a.concurrency_cost(500, 16, BASELINE), Some((1000.0, 1020.0)));
}

/// `n` Table 5 bisections of one search at ℓ under the majority-of-5 rule with
/// counter randomness: `values` cycled.
fn table5_rule(search: &str, ell: usize, n: usize, values: &[f64]) -> Vec<Record> {
    (0..n).map(|i| bisection(search, ell, values[i % values.len()], Some((5, 3, "counter")))).collect()
}

#[test]
fn table_5_compares_gm_with_greedy_by_their_spread_under_one_rule() {
    let (claims, hw) = shipped();
    let judge = |rows: Vec<Record>| {
        let (_, a, m) = case("x", rows);
        claims.judge_one("gm_population_not_smaller", &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    // GM's mean 5% larger, but the bisections spread ±20%: a tie, which decides nothing.
    let wide = |mean: f64| [0.8, 1.2, 1.0, 0.9, 1.1].map(|f| mean * f);
    let rows = [table5_rule("greedy", 100, 10, &wide(6000.0)), table5_rule("gm", 100, 10, &wide(6300.0))].concat();
    let o = judge(rows.clone());
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
    assert!(o.verdict.n_needed().is_some_and(|n| n > 10), "{}", o.verdict.label());
    assert!(o.evidence.contains("GM larger at 0 of 1 sizes, tie at 1") && o.evidence.contains("n = 10"), "{}", o.evidence);
    assert!(
        o.evidence.starts_with("bisections with 5 runs per trial, a size succeeding when 3 or more of them do; counter"),
        "{}",
        o.evidence
    );
    // GM's 20% smaller with a narrow spread: not reproduced, the opposite seen.
    let narrow = |mean: f64| [0.99, 1.01, 1.0].map(|f| mean * f);
    let o = judge([table5_rule("greedy", 100, 10, &narrow(6000.0)), table5_rule("gm", 100, 10, &narrow(4800.0))].concat());
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced, "{}", o.evidence);
    assert!(o.evidence.contains("GM smaller at 1"), "{}", o.evidence);
    // Larger GM bisections under the old one-run rule are left out, not mixed in: still the tie above.
    let mut mixed = rows;
    mixed.extend(table5(&[100], 8, |_| 6000.0, |_| 9000.0));
    let o = judge(mixed);
    assert!(
        o.evidence.contains("tie at 1") && o.evidence.contains("left out: 16 under one run per trial; paper randomness"),
        "{}",
        o.evidence
    );
}

#[test]
fn figure_6_is_judged_at_the_papers_populations_on_the_ones_ratio_curves() {
    let (claims, hw) = shipped();
    let judge = |id: &str, rows: Vec<Record>| {
        let (_, a, m) = case("x", rows);
        claims.judge_one(id, &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    // Greedy's runs converge two generations earlier at N = 2400; at N = 600 (below Table 5's ℓ = 50 size) later.
    let rows = [fig6("greedy", 2400, 5, 8, 0.5), fig6("gm", 2400, 5, 10, 0.5), fig6("greedy", 600, 5, 12, 0.5), fig6("gm", 600, 5, 9, 0.5)]
        .concat();
    let o = judge("greedy_converges_earlier", rows.clone());
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("at the paper's conditions: greedy larger at 1 of 1 sizes"), "{}", o.evidence);
    assert!(o.beyond.as_deref().unwrap_or("").contains("N = 600: greedy"), "{:?}", o.beyond);
    // Only the small populations: not run at the paper's conditions, the runs beyond.
    let small: Vec<Record> = rows.iter().filter(|r| r.int(RunCase::n) == Some(600)).cloned().collect();
    for id in ["greedy_converges_earlier", "greedy_quality_higher"] {
        let o = judge(id, small.clone());
        assert_eq!(o.verdict.kind(), VerdictKind::NotRun, "{id}: {}", o.evidence);
        assert!(o.verdict.label().contains("N = 2376–∞") && o.beyond.is_some(), "{id}: {}", o.verdict.label());
    }
    // Equal curves: a tie, inconclusive for good (was not reproduced).
    let o = judge("greedy_converges_earlier", [fig6("greedy", 4800, 5, 9, 0.5), fig6("gm", 4800, 5, 9, 0.5)].concat());
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
    assert_eq!(o.verdict.n_needed(), None);
    assert!(o.evidence.contains("tie at 1"), "{}", o.evidence);
}

/// The defect: the first generation reaching a ratio of ones of 0.9 left out
/// every run that never reached it (16 of 30 greedy runs and 23 of 30 GM runs
/// at N = 2,400 in the committed records), and the rest were too few. Each
/// run's whole curve now counts.
#[test]
fn greedy_converges_earlier_counts_the_runs_that_never_reach_a_high_ratio_of_ones() {
    let (claims, hw) = shipped();
    let judge = |rows: Vec<Record>| {
        let (_, a, m) = case("x", rows);
        claims.judge_one("greedy_converges_earlier", &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    // Every run converges short of 0.9 (to 0.85), greedy's in 6 or 7 generations, GM's in 9 or 10.
    let o = judge([fig6_to("greedy", 2400, 5, 6, 0.5, 0.85), fig6_to("gm", 2400, 5, 9, 0.5, 0.85)].concat());
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("greedy larger at 1 of 1 sizes") && o.evidence.contains("n = 5"), "{}", o.evidence);
    // Half the runs of each search stop short of 0.9, the other half reach 1: all 30 + 30 runs compared.
    let second = |rows: Vec<Record>| -> Vec<Record> {
        rows.into_iter()
            .map(|r| {
                let id = format!("{}b", r.str(col::CASE_ID));
                r.with(col::CASE_ID, id)
            })
            .collect()
    };
    let rows = [
        fig6_to("greedy", 2400, 15, 7, 0.5, 0.8),
        second(fig6("greedy", 2400, 15, 7, 0.5)),
        fig6_to("gm", 2400, 15, 9, 0.5, 0.8),
        second(fig6("gm", 2400, 15, 9, 0.5)),
    ]
    .concat();
    let o = judge(rows);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("(95% CI, n = 30)"), "{}", o.evidence);
}

/// The defect: a tie at every population read "not reproduced" with 10 runs
/// and "reproduced" with 30. Now ties are inconclusive with the runs the
/// difference needs, and 30 runs decide it.
#[test]
fn greedy_quality_ties_are_inconclusive_with_the_runs_they_need() {
    let (claims, hw) = shipped();
    let judge = |runs: usize, sizes: &[usize]| {
        let quality = |n: usize| if n == 2400 { (0.605, 0.6) } else { (0.9, 0.9) };
        let rows: Vec<Record> =
            sizes.iter().flat_map(|&n| [fig6("greedy", n, runs, 9, quality(n).0), fig6("gm", n, runs, 9, quality(n).1)].concat()).collect();
        let (_, a, m) = case("x", rows);
        claims.judge_one("greedy_quality_higher", &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    let o = judge(10, &[2400]);
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
    let need = o.verdict.n_needed().expect("a difference of 0.005 over a spread of 0.009 needs more runs");
    assert!((11..=30).contains(&need), "{need}");
    assert!(o.evidence.contains("greedy larger at 0 of 1 sizes, tie at 1, greedy smaller at 0"), "{}", o.evidence);
    // 30 runs: higher at N = 2400, a tie at N = 4800 (both at the same quality) neither supports nor contradicts.
    let o = judge(30, &[2400, 4800]);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("greedy larger at 1 of 2 sizes, tie at 1"), "{}", o.evidence);
}

/// The defect: spc's bound was checked by hand against the upper end of its
/// interval, so an interval across the bound read "not reproduced". Now
/// `judge::at_most` decides: below holds, across is inconclusive.
#[test]
fn spc_small_is_judged_by_its_interval_against_the_bound() {
    let (claims, hw) = shipped();
    let judge = |spc: &[f64]| {
        let rows = spc
            .iter()
            .enumerate()
            .flat_map(|(r, s)| [fig5("t", 1, 50, r, BASELINE, 100.0, 110.0), fig5("t", 1, 50, r, FASTCOUNT, 100.0 / s, 110.0 / s)])
            .collect();
        let (_, a, m) = case("x", rows);
        claims.judge_one("spc_small", &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    // n = 2, spc 2.4 and 3.2: the interval [−2.3, 7.9] lies below 10.
    let o = judge(&[2.4, 3.2]);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    // n = 2, spc 4 and 12: the interval spans 10 — inconclusive with the runs it needs, not "not reproduced".
    let o = judge(&[4.0, 12.0]);
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.verdict.label());
    assert!(o.verdict.label().contains("spans the edge 10.0") && o.verdict.n_needed().is_some(), "{}", o.verdict.label());
    // Wholly above: exceeds.
    assert_eq!(judge(&[20.0, 21.0]).verdict, Verdict::NotReproduced(Some(crate::claims::Direction::Exceeds)));
}

/// The defect: the growth exponent was a bare number against the band. Now
/// it carries the fit's standard error, and an interval across an edge of the
/// band is inconclusive.
#[test]
fn population_growth_judges_the_fitted_exponent_with_its_interval() {
    let (claims, hw) = shipped();
    let judge = |rows: Vec<Record>| {
        let (_, a, m) = case("x", rows);
        claims.judge_one("population_growth", &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    // ℓ^1.62 off by ±5% from size to size: the fit gives b = 1.61 [1.52, 1.70] over 7 sizes, across 1.6.
    let wobble = |l: f64| if (l / 50.0) as usize % 2 == 1 { 0.05f64.exp() } else { (-0.05f64).exp() };
    let ells = [50, 100, 150, 200, 250, 300, 350];
    let o = judge(table5(&ells, 10, |l| 10.0 * l.powf(1.62) * wobble(l), |l| 11.0 * l.powf(1.62) * wobble(l)));
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
    assert!(o.verdict.label().contains("spans the edge 1.60") && o.verdict.label().contains("n counts sizes"), "{}", o.verdict.label());
    assert!(o.evidence.contains("table5_greedy ∝ ℓ^e, e = 1.61 [1.52, 1.70] (n = 7)"), "{}", o.evidence);
    // The same wobble around ℓ^1.3: inside the band.
    let o = judge(table5(&ells, 10, |l| 10.0 * l.powf(1.3) * wobble(l), |l| 11.0 * l.powf(1.3) * wobble(l)));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
}

/// Identity is an exact count: one differing run decides against, as falling short of every run identical.
#[test]
fn gecga_identity_is_an_exact_count() {
    let (claims, hw) = shipped();
    let (_, a, m) = case("x", (0..10).map(|r| fig5("test", 1, 100, r, GECGA, 1.0, 2.0).with(RunRow::identical, r != 3)).collect());
    let o = claims.judge_one("gecga_identical", &a, &Ctx { machine: &m, paper: &hw }).unwrap();
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::FallsShort)));
    assert!(o.evidence.starts_with("9 of 10 gECGA runs"), "{}", o.evidence);
}

/// The defect: GM slower than greedy on a fast GPU read "not reproduced",
/// though Amdahl's law explains it: model building is a small share of
/// gECGA's run there. It differs on this hardware where the law predicts
/// every ℓ, and stays not reproduced where it misses one.
#[test]
fn gm_faster_differs_on_this_hardware_where_amdahls_law_predicts_every_size() {
    let (claims, hw) = shipped();
    let judge = |rows: Vec<Record>| {
        let (_, a, m) = case("x", rows);
        claims.judge_one("gm_faster", &a, &Ctx { machine: &m, paper: &hw }).unwrap()
    };
    // GM 10% slower at ℓ = 100 and 150. Greedy's model building is half its run, GM's twice as fast: Amdahl's
    // law gains 1.33× here against 1.59× at the paper's share 0.744, so it predicts 0.84× the paper's gain of
    // GM over greedy (505.6 / 358.97 = 1.41); measured 0.65×, inside 0.5–2× of the prediction.
    let o = judge([fig7(100, 5, 110.0, 100.0), fig7(150, 5, 220.0, 200.0)].concat());
    assert_eq!(o.verdict.kind(), VerdictKind::Differs, "{} — {}", o.verdict.label(), o.evidence);
    assert_eq!(o.verdict.direction(), Some(crate::claims::Direction::FallsShort));
    let label = o.verdict.label();
    assert!(label.contains("predict each of 2 points: ℓ = 100: predicted 0.84× [0.83×, 0.84×], measured 0.65×"), "{label}");
    assert!(label.contains("whole-run gain by Amdahl's law 1.33 here against 1.59 (model building 50.0% of greedy's whole run here, 74.4% in the paper; GM's 2.00× as fast)"), "{label}");
    assert!(o.evidence.contains("GM's whole-run gain over greedy there 1.41× (505.6 / 358.97)"), "{}", o.evidence);
    // Labels swapped (GM's runs read as greedy's and back): GM faster at every ℓ, reproduced, and no model asked.
    let o = judge([fig7(100, 5, 100.0, 110.0), fig7(150, 5, 200.0, 220.0)].concat());
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(!o.evidence.contains("hardware model") && !o.evidence.contains("Amdahl"), "{}", o.evidence);
    // One ℓ where GM takes three times greedy's time: the law misses it, not reproduced.
    let o = judge([fig7(100, 5, 110.0, 100.0), fig7(150, 5, 600.0, 200.0)].concat());
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::FallsShort)), "{}", o.evidence);
    assert!(o.evidence.contains("misses 1 of 2 points"), "{}", o.evidence);
    // A tie at one ℓ and GM faster at the other: inconclusive (every ℓ must show it), not explained.
    let o = judge([fig7(100, 5, 60.0, 100.0), fig7(150, 5, 200.0, 200.0)].concat());
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{}", o.evidence);
    // GM three times slower, five runs ±1%: the law misses both points (measured 0.24× the paper's, predicted 0.84×).
    let o = judge([fig7(100, 5, 300.0, 100.0), fig7(150, 5, 600.0, 200.0)].concat());
    assert_eq!(o.verdict, Verdict::NotReproduced(Some(crate::claims::Direction::FallsShort)), "{}", o.evidence);
    assert!(o.evidence.contains("misses 2 of 2 points"), "{}", o.evidence);
    // The same cut to two runs of ±8%: GM is still slower at each ℓ, but the prediction from those runs and the
    // measurement are both too wide to place the point inside or outside the band: inconclusive, with the n needed.
    let o = judge([fig7_by(100, 2, 300.0, 100.0, 0.08), fig7_by(150, 2, 600.0, 200.0, 0.08)].concat());
    assert_eq!(o.verdict.kind(), VerdictKind::Inconclusive, "{} — {}", o.verdict.label(), o.evidence);
    assert!(o.verdict.n_needed().is_some_and(|n| n > 2), "{:?}: {}", o.verdict.n_needed(), o.evidence);
}

/// The spec's `paper_share` is gECGA's model-building share Section 5.3's speedups give.
#[test]
fn the_papers_model_building_share_follows_from_its_speedups() {
    let file = SpecFile::from_text(Path::new("ecga.toml"), SPEC.into());
    let spec: EcgaSpec = file.parse().unwrap();
    let f = &spec.fig5_paper;
    let baseline_share = (1.0 - 1.0 / f.spg_w) / (1.0 - 1.0 / f.spg_m);
    let gecga_share = baseline_share * f.spg_w / f.spg_m;
    let c = spec.claims.iter().find(|c| c.id == "gm_faster").unwrap();
    let p: GmFaster = c.params.clone().unwrap().into_inner().try_into().unwrap();
    assert!((p.paper_share - gecga_share).abs() < 5e-4, "{} against {gecga_share}", p.paper_share);
    // The law gives the paper's whole-run speedup back from that share.
    assert!((1.0 / ((1.0 - baseline_share) + baseline_share / f.spg_m) - f.spg_w).abs() < 1e-6);
}

/// Every claim with a hardware model reaches "differs on this hardware".
#[test]
fn claims_with_a_hardware_model_can_differ_on_this_hardware() {
    let (claims, hw) = shipped();
    let ceilings = [("gpu_int32", 5152.0), ("cpu_clock", 3.06)];
    let differs = |id: &str, rows: Vec<Record>| {
        let (_, a, m) = case(id, rows);
        let o = claims.judge_one(id, &a, &Ctx { machine: &m, paper: &hw }).unwrap();
        assert_eq!(o.verdict.kind(), VerdictKind::Differs, "{id}: {} — {}", o.verdict.label(), o.evidence);
    };
    differs("spg_at_500", with_ceilings(runs(500, 3, 4_822_800.0, 1000.0), &ceilings));
    differs("gm_faster", fig7(100, 5, 110.0, 100.0));
}
