//! The BioHEL paper through the built binary: the quick profile (evaluation stage
//! and whole learning system) end to end on the CPU, and unknown data sets
//! rejected with file, line and key.

use evorepro::experiments::biohel::rows::{ConditionTests, Evaluator, LearnRun, Model, ScaleCase, SetCase, SimulatedGa, TrainingSet};
use evorepro::records::col;

mod common;

#[test]
fn biohel_quick_profile_on_cpu_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    common::reproduce_quick_cpu("biohel", tmp.path());
    let dir = tmp.path().join("biohel");
    let report = common::report_with_pages(&dir);
    for s in [
        "## Table 2",
        "## Table 2 — integration",
        "## Table 3",
        "## Table 4",
        "## Accuracy of the learned models",
        "## Claims",
        "not run here (--backend cpu)",
        "**reduced budget**",
        "Figure 5 (learning stage): not run here (--backend cpu)",
        "## Beyond the paper — where the GPU is worth it",
        "`cuda-paper`: not run here (--backend cpu)",
        "## Not run here",
        "## Not run here — the points of Tables 3–4 this machine lacks",
        "| test accuracy against chance |",
    ] {
        assert!(report.contains(s), "REPORT.md and its machine pages lack `{s}`");
    }
    // Every claim of the spec is judged, the CUDA ones not run here for the records' reason.
    let claims = &report[report.find("## Claims").expect("a claims table")..];
    for id in [
        "cuda_speedup",
        "cuda_speedup_ilas",
        "cuda_variance_smaller",
        "learning_speedup",
        "learning_vs_evaluation",
        "fig4_peak",
        "fig5_peak",
        "cuda_speedup_peak_set",
        "cuda_speedup_ilas_peak_set",
        "small_sets_gain_little",
    ] {
        assert!(claims.contains(&format!("| `{id}` | ")), "no row for `{id}`");
        // Not run here: one line per machine and reason, listing the claims.
        let listed = |l: &&str| l.starts_with("- ") && l.contains("**not run here (--backend cpu)**") && l.contains(&format!("`{id}`"));
        assert!(claims.lines().any(|l| listed(&l)), "{id} not listed as not run");
    }
    assert!(claims.contains("| `windows_cut_serial_time` | "));
    let verdicts = std::fs::read_to_string(dir.join("verdicts.json")).expect("verdicts.json written");
    assert!(verdicts.contains("windows_cut_serial_time"), "{verdicts}");
    let parquet =
        std::fs::read_dir(dir.join("records")).unwrap().flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|e| e == "parquet"));
    let rows = evorepro::records::read_parquet(&parquet.expect("a Parquet record file")).unwrap();
    let timed: Vec<_> = rows.iter().filter(|r| r.is_ok() && r.str(col::CASE_ID).starts_with("eval/")).collect();
    assert_eq!(timed.len(), 2 * 4 * 4, "serial and cpu-mt for 4 sets × 4 window counts");
    // The training set of fold 0 of ten is 90% of each set (adult: data + test).
    for (set, whole) in [("sat", 6435), ("wav", 5000), ("pen", 10992), ("adu", 48842)] {
        let n = timed.iter().find(|r| r.str(SetCase::set) == set).and_then(|r| r.int(TrainingSet::instances)).unwrap();
        assert!((n as f64 - 0.9 * whole as f64).abs() <= 10.0, "{set}: {n} training instances of {whole}");
    }
    // Learning: serial and cpu-mt learned the same rules with the same work, and
    // the rules classify the unseen fold clearly better than the majority class
    // does (with this reduced budget, 1 window and seed 0, pen stops after 9 rules).
    let learned: Vec<_> = rows.iter().filter(|r| r.is_ok() && r.str(col::CASE_ID).starts_with("learn/")).collect();
    assert_eq!(learned.len(), 2 * 3 * 2, "serial and cpu-mt for 3 sets × 2 window counts");
    for pair in learned.chunks(2) {
        let (serial, mt) = (pair[0], pair[1]);
        assert_eq!((serial.str(col::METHOD), mt.str(col::METHOD)), ("serial", "cpu-mt"));
        let case = serial.str(col::CASE_ID);
        let (model, run): (Model, LearnRun) = (serial.row().unwrap(), serial.row().unwrap());
        let (mt_model, mt_run): (Model, LearnRun) = (mt.row().unwrap(), mt.row().unwrap());
        assert_eq!(model.rules, mt_model.rules, "{case}: {}", Model::rules);
        assert_eq!(run.calls, mt_run.calls, "{case}: {}", LearnRun::calls);
        assert_eq!(run.matches, mt_run.matches, "{case}: {}", LearnRun::matches);
        assert_eq!(model.test_instances, mt_model.test_instances, "{case}: {}", Model::test_instances);
        let (evaluator, set): (Evaluator, SetCase) = (serial.row().unwrap(), serial.row().unwrap());
        assert!(model.rules >= 1 && evaluator.eval_s <= run.learn_s);
        let majority = [("sat", 0.24), ("wav", 0.34), ("pen", 0.104)].iter().find(|m| m.0 == set.set).unwrap().1;
        let recorded = model.majority_accuracy.unwrap();
        assert!((recorded - majority).abs() < 0.015, "{case}: majority-class rate {recorded}, about {majority}");
        let test = model.test_accuracy;
        assert!(test > majority + 0.15, "{case}: test accuracy {test}, majority class {majority}");
    }
    let not_run = rows.iter().filter(|r| r.str(col::STATUS) == "not_run" && r.str(col::CASE_ID).starts_with("learn/")).count();
    assert_eq!(not_run, 2 * 3 * 2, "cuda-paper and cuda-ballot recorded as not run");
    // Beyond the paper: serial and cpu-mt over 5 × 3 sizes of the synthetic family,
    // with the same condition tests counted for both (at most one per attribute
    // and rule × instance pair).
    let scale: Vec<_> = rows.iter().filter(|r| r.is_ok() && r.str(col::CASE_ID).starts_with("scale/")).collect();
    assert_eq!(scale.len(), 2 * 5 * 3, "serial and cpu-mt for 5 instance counts × 3 attribute counts");
    for pair in scale.chunks(2) {
        let (counted, other): (ConditionTests, ConditionTests) = (pair[0].row().unwrap(), pair[1].row().unwrap());
        assert_eq!(counted, other);
        let (ga, case): (SimulatedGa, ScaleCase) = (pair[0].row().unwrap(), pair[0].row().unwrap());
        let (tests, pairs, attributes) = (counted.condition_tests, ga.pairs as u64, case.attributes as u64);
        assert!(0 < tests && tests <= pairs * attributes, "{}: {tests} tests, {pairs} pairs", pair[0].str(col::CASE_ID));
    }
}

#[test]
fn biohel_spec_with_too_few_scale_attributes_names_file_line_and_key() {
    common::assert_spec_edit_rejected(
        "biohel",
        "attributes = [4, 16, 64]",
        "attributes = [1, 16]",
        &["profiles.quick.scale.attributes", "1"],
    );
}

#[test]
fn biohel_spec_with_unknown_set_names_file_line_and_key() {
    common::assert_spec_edit_rejected(
        "biohel",
        "sets = [\"sat\", \"wav\", \"pen\", \"adu\"]",
        "sets = [\"sat\", \"nope\"]",
        &["profiles.quick.sets", "nope"],
    );
}

#[test]
fn biohel_spec_with_unknown_learning_set_names_file_line_and_key() {
    common::assert_spec_edit_rejected(
        "biohel",
        "sets = [\"sat\", \"wav\", \"pen\"]",
        "sets = [\"sat\", \"nope\"]",
        &["profiles.quick.learn.sets", "nope"],
    );
}
