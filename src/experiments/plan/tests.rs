//! Tests of the dry run's plan: case time estimates and their basis, the
//! hand-out and makespan, foresight of the claims a profile can decide, the
//! spread of repeated timings and the batch log's lines.

use super::*;
use crate::records::col;
use crate::records::{Record, Value};

/// Rows of a timed case, for tests.
fn timed(hw: &str, case: &str, run_id: i64, secs: f64) -> Record {
    Record::new()
        .with(col::HW_ID, hw)
        .with(col::RECORD_KIND, "measurement")
        .with(col::PROFILE, "quick")
        .with(col::CASE_ID, case)
        .with(col::RUN_ID, run_id)
        .with(CASE_SECONDS, secs)
}

fn case(id: &str, weight: u64) -> Case {
    Case { id: id.into(), params: Record::new(), weight }
}

impl Case {
    fn with_param(mut self, key: &str, value: bool) -> Case {
        self.params = self.params.with(key, value);
        self
    }
}

fn claim(extra: &str) -> crate::spec::ClaimSpec {
    toml::from_str(&format!("id = \"c\"\nsource = \"s\"\ntext = \"t\"\ncheck = \"c\"\n{extra}")).unwrap()
}

/// Each reason a profile cannot decide a claim on a machine, from the claim's needs and the profile's cases.
#[test]
fn foresight_says_why_a_profile_cannot_decide_a_claim() {
    let run = |figure: &str, ell: i64, r: i64, generations: i64| Case {
        id: format!("{figure}/l{ell}/r{r}"),
        params: Record::new()
            .with(col::FIGURE, figure)
            .with("ell", ell)
            .with("run", r)
            .with("generations", generations)
            .with("seed", 7 * r + ell),
        weight: 1,
    };
    let mut cases: Vec<Case> = (0..3).flat_map(|r| [run("table1", 30, r, 200), run("table1", 60, r, 200)]).collect();
    cases.push(run("speed", 190, 0, 200));
    let none = GpusHere { count: 0, absent: "libcuda not found".into() };
    let one = GpusHere { count: 1, absent: String::new() };
    let blocked = |extra: &str, smoke: bool, here: &GpusHere| foresee(&claim(extra), &cases, smoke, here).blocked.map(|b| b.label());
    assert_eq!(blocked("", false, &none), None);
    assert_eq!(blocked("needs = { gpus = 1 }", false, &none).as_deref(), Some("needs a GPU (none here: libcuda not found)"));
    assert_eq!(blocked("needs = { gpus = 1 }", false, &one), None);
    assert_eq!(blocked("needs = { gpus = 2 }", false, &one).as_deref(), Some("needs 2 GPUs (1 here)"));
    // Each filter must match a case: a value, a range, names.
    assert_eq!(blocked("needs = { cases = [{ figure = \"table1\", ell = [1, 50] }] }", false, &none), None);
    assert_eq!(
        blocked("needs = { cases = [{ figure = \"table1\" }, { figure = [\"fig5\", \"fig7\"], ell = [100, 500] }] }", false, &none)
            .as_deref(),
        Some("the profile plans none of its cases (ell in [100, 500], figure one of fig5, fig7)")
    );
    // A smoke profile decides no paper claim; the harness's own checks it does.
    assert_eq!(blocked("", true, &none).as_deref(), Some("smoke profile: it decides no paper claim"));
    assert_eq!(blocked("provenance = \"harness\"", true, &none), None);
    // Runs per point (the cases that differ only in `run` and `seed`) against the claim's min_n: the speed case's one run is not read.
    let runs = "needs = { cases = [{ figure = \"table1\" }], runs = \"run\" }\nparams = { min_n = ";
    assert_eq!(blocked(&format!("{runs}3 }}"), false, &none), None);
    assert_eq!(
        blocked(&format!("{runs}4 }}"), false, &none).as_deref(),
        Some("too few runs for its n (3 per point, it needs 4): inconclusive at best")
    );
    assert_eq!(
        blocked("needs = { runs = \"run\" }\nparams = { min_n = 2 }", false, &none).map(|_| ()),
        Some(()),
        "the speed case has one run"
    );
    // Below the paper's budget: gated unless the claim tolerates it, then decided and labelled.
    let budget = "needs = { budget = { of = [\"generations\", \"ell\"], paper = 20000 } }";
    assert_eq!(blocked(budget, false, &none).as_deref(), Some("reduced budget (6000 of the paper's 20000 generations × ell)"));
    let judged = claim(&format!("{budget}\nreduced_budget = \"judge\""));
    let f = foresee(&judged, &cases, false, &none);
    assert_eq!((f.blocked, f.reduced.map(|b| b.used)), (None, Some(6000.0)));
    // In the judge's order: the GPU before the smoke profile.
    assert_eq!(blocked("needs = { gpus = 1 }", true, &none).as_deref(), Some("needs a GPU (none here: libcuda not found)"));
    let claims = [claim(""), claim("needs = { gpus = 1 }"), claim("needs = { gpus = 3 }"), claim("provenance = \"harness\"")];
    let all: Vec<Foresight> = claims.iter().map(|c| foresee(c, &cases, true, &none)).collect();
    assert_eq!(foresight_line(&all), "decides 1 of 4 claims here; 1 smoke profile, 2 need a GPU");
    let table = foresight_table(&all);
    assert!(table.starts_with("decides 1 of 4 claims here;") && table.contains("| `c` | harness | decides |"), "{table}");
}

fn repeat(ell: i64, r: i64) -> Case {
    let params = Record::new().with(col::FIGURE, "table1").with("ell", ell).with("run", r).with("seed", 11 * r + ell);
    Case { id: format!("table1/l{ell}/r{r}"), params, weight: 1 }
}

const TOTAL: Timing = Timing { method: "method", columns: &["total_ms"], only: None };

fn timed_row(method: &str, ms: f64) -> Record {
    Record::new().with(col::METHOD, method).with("total_ms", ms)
}

/// Repeats of a point (cases that differ only in run and seed) whose timings of one method spread past the
/// factor are flagged with it; steady methods, a lone timing and sub-millisecond timings are not.
#[test]
fn repeated_timings_that_spread_are_flagged_with_their_factor() {
    let mut rep = Repeats::default();
    for (r, (slow, fast, tiny)) in [(100.0, 50.0, 0.01), (120.0, 52.0, 0.05), (170.0, 55.0, 0.02)].into_iter().enumerate() {
        let not_run = Record::new().with(col::METHOD, "gboa").with(col::STATUS, "not_run");
        let rows = [timed_row("sboa", slow), timed_row("pboa", fast), timed_row("pboa-mt", tiny), not_run];
        rep.add(&repeat(30, r as i64), &rows, &TOTAL);
    }
    rep.add(&repeat(60, 0), &[timed_row("sboa", 10.0)], &TOTAL);
    let spread = rep.spread();
    assert_eq!(spread.len(), 1, "{spread:?}");
    let s = &spread[0];
    assert_eq!((s.case.as_str(), s.cases, s.method.as_str(), s.timings), ("table1/l30/r0", 3, "sboa", 3));
    assert!((s.factor - 1.7).abs() < 1e-12, "{}", s.factor);
    let w = rep.warning().unwrap();
    let named = "case table1/l30/r0 (and 2 repeats of it), sboa `total_ms`: 3 timings, the slowest 1.70× the fastest";
    assert!(w.contains(named) && w.contains(&format!("more than {SPREAD_FACTOR}×")) && !w.contains("more case"), "{w}");
    // At the factor exactly, nothing; rows of one case repeat too, and seconds count as milliseconds.
    let mut at = Repeats::default();
    at.add(&repeat(30, 0), &[timed_row("sboa", 100.0), timed_row("sboa", 100.0 * SPREAD_FACTOR)], &TOTAL);
    assert_eq!(at.warning(), None);
    let mut secs = Repeats::default();
    let eval = |s: f64, phase: &str| Record::new().with("strategy", "serial").with("eval_s", s).with("phase", phase);
    let timing = Timing { method: "strategy", columns: &["total_ms", "eval_s"], only: Some(("phase", "timed")) };
    secs.add(&repeat(30, 0), &[eval(0.002, "timed"), eval(0.005, "timed"), eval(0.5, "search")], &timing);
    assert_eq!(secs.spread().first().map(|x| (x.column.as_str(), x.timings, x.factor)), Some(("eval_s", 2, 2.5)));
    // A sub-millisecond timing is left out alone; the others of its case still spread.
    let mut mixed = Repeats::default();
    mixed.add(&repeat(30, 0), &[timed_row("sboa", 0.5), timed_row("sboa", 2.0), timed_row("sboa", 5.0)], &TOTAL);
    assert_eq!(mixed.spread().first().map(|x| (x.timings, x.factor)), Some((2, 2.5)));
}

/// The report's note names the machine, the profile and commit, and the widest cases, from the stored rows.
#[test]
fn the_spread_note_names_machine_profile_and_cases() {
    let stored = |hw: &str, commit: &str, r: i64, ms: f64| {
        timed_row("sboa", ms)
            .with(col::HW_ID, hw)
            .with(col::RECORD_KIND, "measurement")
            .with(col::PROFILE, "cpu")
            .with(col::GIT_COMMIT, commit)
            .with(col::CASE_ID, format!("table1/l30/r{r}"))
    };
    let rows = vec![stored("m", "abc", 0, 100.0), stored("m", "abc", 1, 240.0), stored("n", "abc", 0, 100.0), stored("n", "abc", 1, 110.0)];
    let machines = crate::records::by_machine(rows, None);
    let planned = |p: &str| (p == "cpu").then(|| vec![repeat(30, 0), repeat(30, 1)]);
    let note = spread_note(&machines, planned, &TOTAL).unwrap();
    assert!(note.starts_with("**Spread repeats:** `m`, profile `cpu` at `abc`: 1 case whose"), "{note}");
    assert!(note.contains("the slowest 2.40× the fastest") && !note.contains("`n`"), "{note}");
    assert_eq!(spread_note(&machines, |_| None, &TOTAL), None);
}

#[test]
fn batch_lines_say_cases_done_elapsed_and_left() {
    let log = BatchLog::new(true, 4, 100);
    assert_eq!(log.line("island", "grid/a", 1, 25, 30.0), "island: 1/4 cases, grid/a done; 30 s elapsed, about 2 min left");
    assert_eq!(log.line("island", "grid/d", 4, 100, 7200.0), "island: 4/4 cases, grid/d done; 2.0 h elapsed, about 0 s left");
}

#[test]
fn estimates_prefer_the_basis_then_its_figure_rate_then_another_machine() {
    let rows = vec![
        timed("here", "grid/a", 1, 10.0),
        timed("here", "grid/a", 2, 12.0),
        timed("there", "grid/a", 1, 99.0),
        timed("there", "grid/b", 1, 30.0),
        timed("there", "speed/c", 1, 5.0),
    ];
    let machines = crate::records::by_machine(rows, Some("here"));
    let cases = [case("grid/a", 4), case("grid/b", 2), case("speed/c", 8), case("ring/d", 1)];
    let t = CaseTimes::new(&machines, "here", &cases, &[], &figure);
    // The latest run of the basis, not another machine's.
    assert_eq!(t.estimate(&cases[0]), Estimate::Measured(12.0));
    // 12 s for weight 4 here: 3 s per unit of grid weight, × 2 (before `there`'s 30 s).
    assert_eq!(t.estimate(&cases[1]), Estimate::Model(6.0));
    // No speed case here: weights of another figure say nothing of it, so
    // the same case on another machine, named.
    assert_eq!(t.estimate(&cases[2]), Estimate::Elsewhere { seconds: 5.0, hw_id: "there".into() });
    // Far past the heaviest timed grid case (weight 4): no model estimate.
    assert_eq!(t.estimate(&case("grid/x", 4 * EXTRAPOLATION)), Estimate::Model(3.0 * (4 * EXTRAPOLATION) as f64));
    assert_eq!(t.estimate(&case("grid/x", 4 * EXTRAPOLATION + 1)), Estimate::Unknown);
    let there = CaseTimes::new(&machines, "there", &cases, &[], &figure);
    assert_eq!(there.estimate(&cases[2]), Estimate::Measured(5.0));
    let none = CaseTimes::new(&[], "here", &cases, &[], &figure);
    assert_eq!(none.estimate(&cases[2]), Estimate::Unknown);
    // A basis without rates: another machine's run of the same case, named.
    let lone = CaseTimes::new(&machines, "elsewhere", &cases, &[], &figure);
    assert_eq!(lone.estimate(&cases[1]), Estimate::Elsewhere { seconds: 30.0, hw_id: "there".into() });
}

#[test]
fn the_papers_groups_of_a_figure_are_estimated_apart() {
    // A paper whose single-threaded cases of a figure are their own group (ECGA's Figure 5 baselines).
    let group = |c: &Case| if c.params.get("single_thread") == &Value::Bool(true) { "fig5 (1t)".into() } else { figure(c) };
    let one = |id: &str, weight: u64| Case { id: id.into(), params: Record::new().with("single_thread", true), weight };
    let rows =
        vec![timed("here", "fig5/a", 1, 10.0).with("single_thread", false), timed("here", "fig5/b", 1, 500.0).with("single_thread", true)];
    let machines = crate::records::by_machine(rows, Some("here"));
    let timed_cases = [case("fig5/a", 10).with_param("single_thread", false), one("fig5/b", 10)];
    let t = CaseTimes::new(&machines, "here", &timed_cases, &[], &group);
    // 1 s per unit of weight for the multi-threaded runs, 50 s for the single-threaded ones.
    assert_eq!(t.estimate(&case("fig5/c", 20).with_param("single_thread", false)), Estimate::Model(20.0));
    assert_eq!(t.estimate(&one("fig5/d", 20)), Estimate::Model(1000.0));
    // By figure alone, one rate (the median of 1 and 50 s per unit) for both.
    let t = CaseTimes::new(&machines, "here", &timed_cases, &[], &figure);
    assert_eq!(t.estimate(&case("fig5/c", 20)), t.estimate(&one("fig5/d", 20)));
}

#[test]
fn a_case_of_another_profile_with_other_parameters_is_not_a_measurement() {
    let mut row = timed("here", "grid/a", 1, 10.0).with("generations", 100);
    let mut c = case("grid/a", 5);
    c.params = Record::new().with("generations", 500);
    let machines = crate::records::by_machine(vec![row.clone()], Some("here"));
    // The same id, 500 generations planned, 100 stored: not this case; the model scales by weight.
    let other = Case { params: Record::new().with("generations", 100), ..case("grid/a", 1) };
    let t = CaseTimes::new(&machines, "here", std::slice::from_ref(&c), std::slice::from_ref(&other), &figure);
    assert_eq!(t.estimate(&c), Estimate::Model(50.0));
    row.set("generations", 500.0);
    let machines = crate::records::by_machine(vec![row], Some("here"));
    let t = CaseTimes::new(&machines, "here", std::slice::from_ref(&c), &[], &figure);
    assert_eq!(t.estimate(&c), Estimate::Measured(10.0));
}

#[test]
fn the_basis_is_this_machine_the_named_one_or_the_one_with_most_times() {
    let rows = vec![
        timed("gpu-a", "grid/a", 1, 1.0),
        timed("gpu-a", "grid/b", 1, 1.0),
        timed("gpu-b", "grid/a", 1, 1.0),
        Record::new().with(col::HW_ID, "gpu-c").with(col::RECORD_KIND, "measurement").with(col::CASE_ID, "grid/a"),
    ];
    let machines = crate::records::by_machine(rows, Some("cpu"));
    let (b, said) = basis(&machines, "cpu", None).unwrap();
    assert_eq!(b, "gpu-a");
    assert!(said.unwrap().contains("No timed records of this machine"));
    assert_eq!(basis(&machines, "gpu-b", None).unwrap(), ("gpu-b".to_owned(), None));
    assert_eq!(basis(&machines, "cpu", Some("-b")).unwrap().0, "gpu-b");
    // Of the machines named, the one with the most times.
    assert_eq!(basis(&machines, "cpu", Some("gpu")).unwrap().0, "gpu-a");
    // Named, but without times: the nearest with records, said so.
    let (b, said) = basis(&machines, "cpu", Some("gpu-c")).unwrap();
    assert_eq!(b, "gpu-a");
    assert!(said.unwrap().contains("No timed records of `gpu-c`"));
    let e = basis(&machines, "cpu", Some("tpu")).unwrap_err();
    assert!(e.contains("names no machine") && e.contains("`gpu-a`"), "{e}");
}

/// A machine without records is estimated from the most similar one: the same GPU (or none) first, then the same CPU family.
#[test]
fn the_basis_of_a_new_machine_is_the_most_similar_with_records() {
    let (h100, epyc) = ("nvidia-h100__intel-xeon-family-6-model-207__16t", "cpu-only__amd-epyc-family-25-model-17__2t");
    let mut rows: Vec<Record> = (0..5).map(|i| timed(h100, &format!("grid/{i}"), 1, 1.0)).collect();
    rows.push(timed(epyc, "grid/a", 1, 9.0));
    let machines = crate::records::by_machine(rows, None);
    let (b, said) = basis(&machines, "cpu-only__amd-epyc-family-25-model-1__2t", None).unwrap();
    assert_eq!(b, epyc);
    assert!(said.unwrap().contains("most similar"));
    assert_eq!(basis(&machines, "nvidia-h200__intel-xeon-family-6-model-207__16t", None).unwrap().0, h100);
    // Another CPU-only machine of another family before any GPU host.
    assert_eq!(basis(&machines, "cpu-only__intel-xeon-family-6-model-85__4t", None).unwrap().0, epyc);
}

#[test]
fn makespan_deals_longest_first_to_the_least_loaded() {
    // 7, 5, 4, 3, 3 on 2, each to the least loaded: 7 | 5, then 4 → 9, 3 → 7 + 3 = 10, 3 → 9 + 3 = 12.
    assert_eq!(makespan(&[3.0, 7.0, 4.0, 5.0, 3.0], 2), 12.0);
    assert_eq!(makespan(&[3.0, 7.0, 4.0, 5.0, 3.0], 1), 22.0);
    assert_eq!(makespan(&[3.0, 7.0], 8), 7.0);
    assert_eq!(makespan(&[], 8), 0.0);
}

#[test]
fn the_hand_out_never_gives_a_gpu_case_to_a_rank_without_one() {
    use Resource::*;
    let resources = [Gpu, CpuThread, Gpu, CpuCores, CpuThread];
    // Longest last: case 2, then 3, 0, 4, 1.
    let mut queue = vec![1, 4, 0, 3, 2];
    // A CPU-only rank: the longest case that needs no GPU, never 2 or 0.
    assert_eq!(next_case(&mut queue, &resources, false), Some(3));
    // A GPU rank: the longest GPU case first, leaving the CPU cases to CPU ranks.
    assert_eq!(next_case(&mut queue, &resources, true), Some(2));
    assert_eq!(next_case(&mut queue, &resources, true), Some(0));
    // No GPU case left: a GPU rank takes CPU cases too.
    assert_eq!(next_case(&mut queue, &resources, true), Some(4));
    let mut gpu_only = vec![0, 2];
    assert_eq!(next_case(&mut gpu_only, &resources, false), None);
    assert_eq!(gpu_only, vec![0, 2]);
    assert_eq!(next_case(&mut queue, &resources, false), Some(1));
    assert_eq!(next_case(&mut queue, &resources, false), None);
}
