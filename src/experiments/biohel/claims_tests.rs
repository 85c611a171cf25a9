//! Every check of the shipped spec driven to each verdict it can give, on
//! synthetic records.

use super::*;
use crate::claims::testing::{self, every_claim_reaches};
use crate::claims::{Claims, NotRun, Verdict, VerdictKind};
use crate::experiments::Experiment;
use crate::experiments::biohel::spec::{BiohelSpec, PaperTables};
use crate::experiments::biohel::{BIOHEL, EVAL_FIGURE, LEARN_FIGURE};
use crate::records::Record;
use crate::report::MachineRecords;
use crate::spec::{PaperHardware, SpecFile};
use std::path::Path;
use std::sync::Arc;

/// The shipped spec's claims bound to [`CHECKS`], its Tables 3–4 and its hardware.
struct Shipped {
    claims: Claims<Analysis>,
    tables: Arc<PaperTables>,
    hardware: PaperHardware,
}

fn shipped() -> Shipped {
    let file = SpecFile::from_text(Path::new("experiments/biohel.toml"), BIOHEL.embedded_spec().into());
    let spec: BiohelSpec = file.parse().unwrap();
    let claims = Claims::bind(&file, &spec.claims, &spec.paper.hardware, CHECKS).unwrap();
    let rules_per_iteration = *spec.settings.rules_per_iteration.get_ref();
    let tables = Arc::new(PaperTables { table3: spec.table3, table4: spec.table4, rules_per_iteration });
    Shipped { claims, tables, hardware: spec.paper.hardware }
}

/// The paper's GA budget is BioHEL's default: population 500, 50 iterations, no
/// rule limit; rows of any other population carry 20 iterations (a reduced budget).
const PAPER_POPULATION: u64 = 500;

/// One measurement row (one run of one evaluator; seed = the run's index).
#[allow(clippy::too_many_arguments)]
fn row(
    figure: &str,
    profile: &str,
    population: u64,
    set: &str,
    instances: u64,
    windows: usize,
    seed: usize,
    method: &str,
    secs: f64,
) -> Record {
    let column = if figure == LEARN_FIGURE { "learn_s" } else { "eval_s" };
    Record::new()
        .with("record_kind", "measurement")
        .with("figure", figure)
        .with("profile", profile)
        .with("run_id", 1u64)
        .with("seed", seed as u64)
        .with("set", set)
        .with("windows", windows)
        .with("population", population)
        .with("iterations", if population == PAPER_POPULATION { 50u64 } else { 20 })
        .with("method", method)
        .with("status", "ok")
        .with(column, secs)
        .with("instances", instances)
}

/// Synthetic records of one machine.
#[derive(Default)]
struct Rows(Vec<Record>);

impl Rows {
    /// Evaluation runs of `set` at `windows`: (serial s, cuda-paper s) per run.
    fn eval(self, set: &str, instances: u64, windows: usize, runs: &[(f64, f64)]) -> Rows {
        self.pairs(EVAL_FIGURE, 0, set, instances, windows, runs)
    }

    /// Learning runs with a population of `population`: (serial s, cuda-paper s) per run.
    fn learn(self, population: u64, set: &str, instances: u64, windows: usize, runs: &[(f64, f64)]) -> Rows {
        self.pairs(LEARN_FIGURE, population, set, instances, windows, runs)
    }

    fn pairs(mut self, figure: &str, population: u64, set: &str, instances: u64, windows: usize, runs: &[(f64, f64)]) -> Rows {
        for (seed, &(serial, cuda)) in runs.iter().enumerate() {
            self.0.push(row(figure, "gpu", population, set, instances, windows, seed, SERIAL, serial));
            self.0.push(row(figure, "gpu", population, set, instances, windows, seed, CUDA, cuda));
        }
        self
    }

    /// Runs of one method alone (seeds 0, 1, …), of the evaluation stage in `profile`.
    fn only(mut self, profile: &str, set: &str, instances: u64, windows: usize, method: &str, secs: &[f64]) -> Rows {
        for (seed, &s) in secs.iter().enumerate() {
            self.0.push(row(EVAL_FIGURE, profile, 0, set, instances, windows, seed, method, s));
        }
        self
    }

    /// "Not run here" rows of cuda-paper in `figure`.
    fn not_run(mut self, figure: &str, population: u64, reason: &str) -> Rows {
        self.0.push(row(figure, "gpu", population, "sat", 5790, 1, 0, CUDA, 0.0).with("status", "not_run").with("reason", reason));
        self
    }

    /// The machine, with these ceilings (as `testing::machine`).
    fn machine_with(self, ceilings: &[(&str, f64)]) -> MachineRecords {
        let mut m = testing::machine(ceilings);
        m.rows.extend(self.0);
        m
    }

    fn machine(self) -> MachineRecords {
        self.machine_with(&[])
    }
}

impl Shipped {
    fn case<'a>(&self, id: &'a str, m: MachineRecords) -> (&'a str, Analysis, MachineRecords) {
        (id, Analysis::of(&m, &self.tables), m)
    }

    fn judge(&self, id: &str, m: &MachineRecords) -> Outcome {
        let ctx = Ctx { machine: m, paper: &self.hardware };
        self.claims.judge_one(id, &Analysis::of(m, &self.tables), &ctx).unwrap_or_else(|| panic!("no claim `{id}`"))
    }
}

/// A set of 400,000 training instances whose speedup is ~100× at 1 window and
/// `in_band`× at 10 windows (40,000 per stratum), `n` runs each.
fn peaking(rows: Rows, learning: bool, in_band: f64, n: usize) -> Rows {
    let runs = |speedup: f64| -> Vec<(f64, f64)> { (0..n).map(|i| (speedup * (1.0 + 0.01 * i as f64), 1.0)).collect() };
    if learning {
        rows.learn(PAPER_POPULATION, "kdd", 400_000, 1, &runs(100.0)).learn(PAPER_POPULATION, "kdd", 400_000, 10, &runs(in_band))
    } else {
        rows.eval("kdd", 400_000, 1, &runs(100.0)).eval("kdd", 400_000, 10, &runs(in_band))
    }
}

#[test]
fn every_claim_can_be_not_reproduced() {
    let s = shipped();
    let spread = [(2.0, 1.0), (2.02, 1.0), (1.98, 1.0)];
    let cases = [
        // 1000× against the paper's 52.4× (ss, 1 window), and no ceilings here to predict it.
        s.case("cuda_speedup", Rows::default().eval("ss", 75_000, 1, &[(100.0, 0.1), (100.0, 0.1)]).machine()),
        // 10× against Table 3's 435.2× (ss, 50 windows).
        s.case("cuda_speedup_ilas", Rows::default().eval("ss", 75_000, 1, &[(10.0, 1.0)]).eval("ss", 75_000, 50, &[(0.2, 1.0)]).machine()),
        // The CUDA times spread far more than the serial ones.
        s.case("cuda_variance_smaller", Rows::default().eval("sat", 5790, 1, &[(1.0, 1.0), (1.0001, 2.0)]).machine()),
        // Four windows save nothing.
        s.case(
            "windows_cut_serial_time",
            Rows::default()
                .eval("sat", 5790, 1, &[(10.0, 1.0)])
                .eval("sat", 5790, 2, &[(5.0, 1.0)])
                .eval("sat", 5790, 4, &[(10.0, 1.0)])
                .machine(),
        ),
        s.case("learning_speedup", Rows::default().learn(PAPER_POPULATION, "ss", 75_000, 1, &[(100.0, 10.0)]).machine()),
        s.case(
            "learning_speedup_ilas",
            Rows::default()
                .learn(PAPER_POPULATION, "ss", 75_000, 1, &[(100.0, 10.0)])
                .learn(PAPER_POPULATION, "ss", 75_000, 50, &[(5.0, 10.0)])
                .machine(),
        ),
        // The whole system 15× the evaluation's speedup, not less than 2×.
        s.case(
            "learning_vs_evaluation",
            Rows::default()
                .eval("sat", 5790, 1, &spread)
                .learn(PAPER_POPULATION, "sat", 5790, 1, &spread.map(|(a, b)| (15.0 * a, b)))
                .machine(),
        ),
        // kdd 100× is the largest; ss's 50× is below it.
        s.case(
            "cuda_speedup_peak_set",
            Rows::default()
                .eval("kdd", 400_000, 1, &[(100.0, 1.0), (101.0, 1.0)])
                .eval("ss", 75_000, 1, &[(50.0, 1.0), (50.5, 1.0)])
                .machine(),
        ),
        s.case(
            "cuda_speedup_ilas_peak_set",
            Rows::default()
                .eval("kdd", 400_000, 1, &[(100.0, 1.0), (101.0, 1.0)])
                .eval("sa", 490_000, 1, &[(10.0, 1.0), (10.1, 1.0)])
                .machine(),
        ),
        // sat gains as much as adu, not less than half of it.
        s.case(
            "small_sets_gain_little",
            Rows::default()
                .eval("sat", 5790, 1, &[(100.0, 1.0), (101.0, 1.0)])
                .eval("adu", 44_000, 1, &[(100.0, 1.0), (101.0, 1.0)])
                .machine(),
        ),
        // 10× in the band against 100× at 400,000 per stratum.
        s.case("fig4_peak", peaking(Rows::default(), false, 10.0, 3).machine()),
        s.case("fig5_peak", peaking(Rows::default(), true, 10.0, 3).machine()),
    ];
    every_claim_reaches(&s.claims, VerdictKind::NotReproduced, &cases, &s.hardware);
}

#[test]
fn every_claim_can_be_reproduced() {
    let s = shipped();
    let kind = |id: &str, m: MachineRecords| {
        let o = s.judge(id, &m);
        assert_eq!(o.verdict, Verdict::Reproduced, "{id}: {}", o.evidence);
        o
    };
    let o = kind("cuda_speedup", Rows::default().eval("ss", 75_000, 1, &[(60.0, 1.0)]).machine());
    assert!(o.evidence.contains("measured 60.0 against the paper's 52.4") && o.ratio.is_some(), "{}", o.evidence);
    kind("cuda_speedup_ilas", Rows::default().eval("ss", 75_000, 1, &[(100.0, 1.0)]).eval("ss", 75_000, 50, &[(2.0, 0.25)]).machine());
    let o = kind("cuda_variance_smaller", Rows::default().eval("sat", 5790, 1, &[(1.0, 1.0), (2.0, 1.0001)]).machine());
    assert!(o.evidence.contains("1 of 1 sets smaller") && o.evidence.contains("n = 2, 2"), "{}", o.evidence);
    let cut = Rows::default().eval("sat", 5790, 1, &[(10.0, 1.0)]).eval("sat", 5790, 4, &[(2.6, 1.0)]).eval("sat", 5790, 10, &[(1.1, 1.0)]);
    let o = kind("windows_cut_serial_time", cut.machine());
    assert!(o.evidence.contains("2 of 2 points (sets × window counts) within the band, from 0.909 w to 0.962 w"), "{}", o.evidence);
    kind("learning_speedup", Rows::default().learn(PAPER_POPULATION, "ss", 75_000, 1, &[(100.0, 100.0 / 58.0)]).machine());
    kind(
        "learning_speedup_ilas",
        Rows::default()
            .learn(PAPER_POPULATION, "ss", 75_000, 1, &[(100.0, 1.0)])
            .learn(PAPER_POPULATION, "ss", 75_000, 50, &[(5.0, 0.15)])
            .machine(),
    );
    let e = [(2.0, 1.0), (2.02, 1.0), (1.98, 1.0)];
    let o = kind(
        "learning_vs_evaluation",
        Rows::default().eval("sat", 5790, 1, &e).learn(PAPER_POPULATION, "sat", 5790, 1, &e.map(|(a, b)| (1.5 * a, b))).machine(),
    );
    assert!(o.evidence.contains("1 of 1 sets inside") && o.evidence.contains("= 1.50, inside"), "{}", o.evidence);
    kind("fig4_peak", peaking(Rows::default(), false, 200.0, 2).machine());
    kind("fig5_peak", peaking(Rows::default(), true, 200.0, 2).machine());
    let o = kind(
        "cuda_speedup_peak_set",
        Rows::default().eval("kdd", 400_000, 1, &[(50.0, 1.0), (50.5, 1.0)]).eval("ss", 75_000, 1, &[(100.0, 1.0), (101.0, 1.0)]).machine(),
    );
    assert!(o.evidence.contains("ss (stand-in), 1 window at 100.5× (n = 2)") && o.evidence.contains("the same set"), "{}", o.evidence);
    assert!(o.evidence.contains("Table 3's largest: ss (stand-in), 2 windows at 52.5×"), "{}", o.evidence);
    kind(
        "cuda_speedup_ilas_peak_set",
        Rows::default().eval("kdd", 400_000, 1, &[(10.0, 1.0)]).eval("sa", 490_000, 1, &[(100.0, 1.0)]).machine(),
    );
    let o = kind(
        "small_sets_gain_little",
        Rows::default()
            .eval("sat", 5790, 1, &[(2.0, 1.0), (2.02, 1.0)])
            .eval("sat", 5790, 4, &[(0.8, 1.0), (0.81, 1.0)])
            .eval("adu", 44_000, 1, &[(14.0, 1.0), (14.2, 1.0)])
            .eval("kdd", 400_000, 1, &[(18.0, 1.0), (18.1, 1.0)])
            .machine(),
    );
    assert!(o.evidence.contains("(adu, 1 window: 14.1×, n = 2;") && o.evidence.contains("1 of 1 gain little"), "{}", o.evidence);
    assert!(o.evidence.contains("sat: at most 2.0× (1 window, n = 2), gains little, loses at 4 windows"), "{}", o.evidence);
    assert!(o.evidence.ends_with("the paper: 2.2× (pen, 1 window) against 14.2× (adu, 1 window), 0.15"), "{}", o.evidence);
}

#[test]
fn a_far_larger_speedup_differs_only_where_the_hardware_predicts_it() {
    let s = shipped();
    let rows = || Rows::default().eval("ss", 75_000, 1, &[(100.0, 0.1)]);
    // (2040 / 102 GB/s) / (3.0 / 3.0 GHz) predicts 20× the paper's; 1000 / 52.4 = 19.1×.
    let o = s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 2040.0), ("cpu_clock", 3.0)]));
    assert_eq!(o.verdict.kind(), VerdictKind::Differs, "{}", o.evidence);
    assert!(o.verdict.label().contains("predicts 20.0×") && o.verdict.label().contains("Tesla C1060"), "{}", o.verdict.label());
    // A slower core here predicts more; 6 GHz halves the prediction to 10×, still within 2×…
    assert_eq!(
        s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 2040.0), ("cpu_clock", 6.0)])).verdict.kind(),
        VerdictKind::Differs
    );
    // … a card of the paper's bandwidth predicts 1×: not explained.
    let o = s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 102.0), ("cpu_clock", 3.0)]));
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("misses 1 of 1 points"), "{}", o.evidence);
    // Without one core's clock in the records (runs before it was measured): no prediction.
    let o = s.judge("cuda_speedup", &rows().machine_with(&[("gpu_d2d", 2040.0)]));
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("one core's clock not measured on this machine"), "{}", o.evidence);
}

#[test]
fn repeated_runs_decide_or_the_verdict_says_too_few() {
    let s = shipped();
    let too_few = |id: &str, m: MachineRecords, n: usize| {
        let o = s.judge(id, &m);
        assert_eq!(o.verdict, crate::claims::testing::too_few(n, 2), "{id}: {}", o.evidence);
        assert!(!o.evidence.is_empty(), "{id}: the evidence still shows what one run found");
    };
    too_few("cuda_variance_smaller", Rows::default().eval("sat", 5790, 1, &[(1.0, 1.0)]).machine(), 1);
    let e = [(2.0, 1.0), (2.02, 1.0)];
    too_few(
        "learning_vs_evaluation",
        Rows::default().eval("sat", 5790, 1, &e).learn(PAPER_POPULATION, "sat", 5790, 1, &[(30.0, 1.0)]).machine(),
        1,
    );
    too_few("fig4_peak", peaking(Rows::default(), false, 10.0, 1).machine(), 1);
    too_few(
        "cuda_speedup_peak_set",
        Rows::default().eval("kdd", 400_000, 1, &[(100.0, 1.0)]).eval("ss", 75_000, 1, &[(50.0, 1.0)]).machine(),
        1,
    );
    too_few(
        "small_sets_gain_little",
        Rows::default().eval("sat", 5790, 1, &[(2.0, 1.0)]).eval("adu", 44_000, 1, &[(14.0, 1.0)]).machine(),
        1,
    );
    too_few("fig5_peak", peaking(Rows::default(), true, 10.0, 1).machine(), 1);
    // A tie with a larger set decides nothing: the paper's set is not shown to peak.
    let o = s.judge(
        "cuda_speedup_ilas_peak_set",
        &Rows::default()
            .eval("kdd", 400_000, 1, &[(100.0, 1.0), (101.0, 1.0)])
            .eval("sa", 490_000, 1, &[(100.0, 0.8), (100.0, 1.6)])
            .machine(),
    );
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced, "{}", o.evidence);
    assert!(o.evidence.contains("a tie (Welch 95% on the runs): the runs do not show where it peaks"), "{}", o.evidence);
    // Inside the runs' spread the comparisons tie and decide nothing.
    let wide = [(2.0, 1.0), (4.0, 1.0)];
    let o = s.judge(
        "learning_vs_evaluation",
        &Rows::default().eval("sat", 5790, 1, &wide).learn(PAPER_POPULATION, "sat", 5790, 1, &wide.map(|(a, b)| (1.5 * a, b))).machine(),
    );
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(
        o.evidence.contains("0 of 1 sets inside") && o.evidence.contains("tie with a bound") && o.evidence.contains("n = 2"),
        "{}",
        o.evidence
    );
    let o = s.judge("cuda_variance_smaller", &Rows::default().eval("sat", 5790, 1, &[(1.0, 1.0), (2.0, 1.5)]).machine());
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("0 of 1 sets smaller, 1 tie"), "{}", o.evidence);
    let noisy =
        Rows::default().eval("kdd", 400_000, 1, &[(100.0, 1.0), (300.0, 1.0)]).eval("kdd", 400_000, 10, &[(60.0, 1.0), (150.0, 1.0)]);
    let o = s.judge("fig4_peak", &noisy.machine());
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("0 of 1 sets") && o.evidence.contains("1 tie"), "{}", o.evidence);
}

#[test]
fn nothing_to_judge_is_not_run_with_the_records_reason() {
    let s = shipped();
    let cpu = Rows::default()
        .eval("sat", 5790, 1, &[])
        .only("gpu", "sat", 5790, 1, SERIAL, &[1.0, 1.1])
        .not_run(EVAL_FIGURE, 0, "--backend cpu")
        .0
        .into_iter()
        .chain(Rows::default().not_run(LEARN_FIGURE, PAPER_POPULATION, "--backend cpu").0)
        .chain([row(LEARN_FIGURE, "gpu", PAPER_POPULATION, "sat", 5790, 1, 0, SERIAL, 3.0)])
        .collect::<Vec<_>>();
    let m = Rows(cpu).machine();
    for id in [
        "cuda_speedup",
        "cuda_speedup_ilas",
        "cuda_variance_smaller",
        "learning_speedup",
        "learning_speedup_ilas",
        "learning_vs_evaluation",
        "fig4_peak",
        "fig5_peak",
        "cuda_speedup_peak_set",
        "cuda_speedup_ilas_peak_set",
        "small_sets_gain_little",
    ] {
        assert_eq!(s.judge(id, &m).verdict, Verdict::NotRun(NotRun::Here("--backend cpu".into())), "{id}");
    }
    // The small sets need a large set to be set against, and the paper's set its own runs.
    let small_only = Rows::default().eval("sat", 5790, 1, &[(2.0, 1.0), (2.0, 1.0)]).machine();
    let o = s.judge("small_sets_gain_little", &small_only);
    assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("above 40000 training instances")), "{:?}", o.verdict);
    let o = s.judge("cuda_speedup_peak_set", &small_only);
    assert!(
        matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("no cuda-paper runs of ss (stand-in)")),
        "{:?}",
        o.verdict
    );
    assert_eq!(s.judge("windows_cut_serial_time", &m).verdict.kind(), VerdictKind::NotRun);
    let none = Rows::default().eval("sat", 5790, 1, &[(1.0, 0.5)]).machine();
    for id in ["learning_speedup", "learning_speedup_ilas", "learning_vs_evaluation", "fig5_peak"] {
        assert_eq!(s.judge(id, &none).verdict, Verdict::NotRun(NotRun::Here("no learning runs in this machine's records".into())), "{id}");
    }
    // A set that never reaches beyond the band says nothing about where it peaks.
    let o = s.judge("fig4_peak", &Rows::default().eval("sat", 5790, 1, &[(3.0, 1.0), (3.0, 1.0)]).machine());
    assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("25000–100000")), "{:?}", o.verdict);
}

#[test]
fn what_lies_beyond_the_paper_never_decides_the_verdict() {
    let s = shipped();
    // cuda-paper at 3 windows (not a column of Table 3) is 10,000×; cuda-ballot
    // and the `speed` profile are faster still; the verdict rests on 60× at 1 window.
    let m = Rows::default()
        .eval("ss", 75_000, 1, &[(60.0, 1.0)])
        .eval("ss", 75_000, 3, &[(100.0, 0.01)])
        .only("gpu", "ss", 75_000, 1, BALLOT, &[0.05])
        .only("speed", "ss", 75_000, 1, SERIAL, &[300.0])
        .only("speed", "ss", 75_000, 1, BALLOT, &[0.1])
        .machine();
    let o = s.judge("cuda_speedup", &m);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    let beyond = o.beyond.unwrap();
    for part in [
        "cuda-ballot (not the paper's design): up to 1200.0× (ss (stand-in), 1 window)",
        "Table 3 lacks: up to 10000.0× (ss (stand-in), 3 windows)",
        "`speed` profile, cuda-ballot: up to 3000.0×",
    ] {
        assert!(beyond.contains(part), "`{part}` not in: {beyond}");
    }
    let cut = Rows::default().eval("sat", 5790, 1, &[(10.0, 1.0)]).eval("sat", 5790, 4, &[(2.5, 1.0)]).eval("sat", 5790, 3, &[(10.0, 1.0)]);
    let o = s.judge("windows_cut_serial_time", &cut.machine());
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.beyond.unwrap().contains("sat w=3: 1.0×"));
}

#[test]
fn the_points_outside_the_windows_band_are_named() {
    let s = shipped();
    let m = Rows::default().eval("sat", 5790, 1, &[(10.0, 1.0)]).eval("sat", 5790, 2, &[(5.0, 1.0)]).eval("sat", 5790, 4, &[(10.0, 1.0)]);
    let o = s.judge("windows_cut_serial_time", &m.machine());
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert_eq!(o.ratio, Some(0.25));
    assert!(o.evidence.contains("1 of 2 points") && o.evidence.ends_with("outside it: sat w=4: 1.0× (0.250 w)"), "{}", o.evidence);
}

#[test]
fn learning_claims_use_the_largest_budget() {
    let s = shipped();
    // The paper's budget reaches 60×; population 100's 10,000× is a smaller budget's and not used.
    let m = Rows::default()
        .learn(PAPER_POPULATION, "ss", 75_000, 1, &[(100.0, 100.0 / 60.0)])
        .learn(100, "ss", 75_000, 1, &[(100.0, 0.01)])
        .machine();
    let o = s.judge("learning_speedup", &m);
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("population 500") && o.evidence.contains("the paper's budget"), "{}", o.evidence);
}

#[test]
fn learning_at_a_reduced_budget_is_beyond_the_paper() {
    let s = shipped();
    let m = Rows::default().learn(100, "ss", 75_000, 1, &[(100.0, 100.0 / 60.0)]).machine();
    for claim in ["learning_speedup", "learning_speedup_ilas"] {
        let o = s.judge(claim, &m);
        assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("population 100")), "{claim}: {:?}", o.verdict);
        assert!(o.beyond.as_deref().is_some_and(|b| b.contains("reduced budget")), "{claim}: {:?}", o.beyond);
    }
}

#[test]
fn parameters_are_typed_and_checked_when_the_spec_loads() {
    let err = |from: &str, to: &str| {
        let text = BIOHEL.embedded_spec();
        assert!(text.contains(from), "the spec no longer has `{from}`");
        let file = SpecFile::in_repository("biohel.toml", text.replacen(from, to, 1));
        let line = file.text[..file.text.find(to).unwrap()].matches('\n').count() + 1;
        let e = BIOHEL.load(&file).err().expect("rejected").to_string();
        assert!(e.contains(&format!("biohel.toml:{line}")), "{e}");
        e
    };
    let e = err("stage = \"learning\", per_stratum", "stage = \"learn\", per_stratum");
    assert!(e.contains("claims.fig5_peak.params") && e.contains("unknown variant `learn`"), "{e}");
    let e = err("steady = 0.9, min_n = 2 }", "steady = 1.5, min_n = 2 }");
    assert!(e.contains("claims.fig4_peak.params.steady"), "{e}");
    let e = err("params = { min_n = 2 }", "params = { min_n = 1 }");
    assert!(e.contains("claims.cuda_variance_smaller.params.min_n") && e.contains("at least 2"), "{e}");
    let e = err("params = { band = [0.5, 2.0] }", "params = { }");
    assert!(e.contains("claims.windows_cut_serial_time.params") && e.contains("missing field `band`"), "{e}");
    let e = err("measure = \"same_window\", band = [0.5, 2.0], model", "measure = \"same_window\", band = [2.0, 0.5], model");
    assert!(e.contains("claims.cuda_speedup.params") && e.contains("not an interval"), "{e}");
    let e = err("measure = \"same_window\", set = \"ss\"", "measure = \"same_window\", set = \"sss\"");
    assert!(e.contains("claims.cuda_speedup_peak_set.params.set") && e.contains("unknown set `sss`"), "{e}");
    let e = err("large_above = 40000.0, little = 0.5", "large_above = 40000.0, little = 1.5");
    assert!(e.contains("claims.small_sets_gain_little.params.little"), "{e}");
    let e = err("sets = [\"sat\", \"wav\", \"pen\"], large_above", "sets = [\"sat\", \"wave\"], large_above");
    assert!(e.contains("claims.small_sets_gain_little.params.sets") && e.contains("`wave`"), "{e}");
    let e = err("model = { gpu_bandwidth = 1.0, cpu_clock = -1.0 } }", "model = { gpu_int32 = 1.0, cpu_clock = -1.0 } }");
    assert!(e.contains("claims.cuda_speedup.params.model") && e.contains("GPU int32 rate"), "{e}");
}

#[test]
fn learning_is_set_against_the_evaluation_only_at_the_evaluations_rules_per_iteration() {
    let s = shipped();
    let e = [(2.0, 1.0), (2.02, 1.0), (1.98, 1.0)];
    // Population 50 is 1.5× (inside), population 500 is 15× (above): the verdict is population 500's.
    let m = Rows::default()
        .eval("adu", 44_000, 1, &e)
        .learn(50, "adu", 44_000, 1, &e.map(|(a, b)| (1.5 * a, b)))
        .learn(PAPER_POPULATION, "adu", 44_000, 1, &e.map(|(a, b)| (15.0 * a, b)))
        .machine();
    let o = s.judge("learning_vs_evaluation", &m);
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced, "{}", o.evidence);
    assert!(o.evidence.contains("= 15.0, above 2×") && o.evidence.contains("learning budget: population 500"), "{}", o.evidence);
    assert!(o.evidence.ends_with("evaluation: simulated GAs of 20 iterations × 500 rules"), "{}", o.evidence);
    // Population 50 alone: not run on equal terms; what it shows goes beyond the paper.
    let m = Rows::default().eval("adu", 44_000, 1, &e).learn(50, "adu", 44_000, 1, &e.map(|(a, b)| (1.5 * a, b))).machine();
    let o = s.judge("learning_vs_evaluation", &m);
    assert!(
        matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("no learning runs with population 500") && why.contains("population 50,")),
        "{:?}",
        o.verdict
    );
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("1 of 1 sets inside")), "{:?}", o.beyond);
    // Table 4 and its claims keep the budget with the most points, not the larger population of one set.
    let m = Rows::default()
        .learn(50, "adu", 44_000, 1, &[(10.0, 1.0)])
        .learn(50, "adu", 44_000, 5, &[(10.0, 1.0)])
        .learn(PAPER_POPULATION + 1, "adu", 44_000, 1, &[(10.0, 1.0)])
        .machine();
    let a = Analysis::of(&m, &s.tables);
    assert_eq!(a.main_learning().unwrap().0.population, 50);
}
