//! The gBOA paper through the built binary: the quick profile end to end on the
//! CPU, and impossible spec values rejected with file, line and key.

use evorepro::experiments::gboa::rows::{RunRow, Table1Case};
use evorepro::records::col;

mod common;

#[test]
fn gboa_quick_profile_on_cpu_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    common::reproduce_quick_cpu("gboa", tmp.path());
    let dir = tmp.path().join("gboa");
    let report = common::report_with_pages(&dir);
    for s in [
        "## Table I",
        // The quick profile's 40 generations lie outside the range judged (200).
        ": no Table I runs in the range judged.",
        "## Beyond the paper — Table I at larger ℓ or shorter runs",
        "gboa-paper: total (ms) / solved",
        "## Figure 7",
        "## Beyond the paper — BOA on the device, end to end",
        ": no gboa-device runs (--backend cpu).",
        "## Complexity",
        "## Claims",
        "not run here (--backend cpu)",
    ] {
        assert!(report.contains(s), "REPORT.md and its machine pages lack `{s}`");
    }
    let parquet =
        std::fs::read_dir(dir.join("records")).unwrap().flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|e| e == "parquet"));
    let rows = evorepro::records::read_parquet(&parquet.expect("a Parquet record file")).unwrap();
    // Every Table I run of the three CPU constructions finished with a sane profile.
    let runs: Vec<_> = rows.iter().filter(|r| r.str(col::FIGURE) == "table1" && r.is_ok()).collect();
    assert!(runs.len() >= 3 * 7, "too few Table I runs: {}", runs.len());
    for r in &runs {
        let run: RunRow = r.row().unwrap();
        let phases: f64 =
            [run.selection_ms, run.construction_ms, run.sampling_ms, run.evaluation_ms.unwrap(), run.replacement_ms].iter().sum();
        let total = run.total_ms;
        assert!(phases <= total * 1.001 && phases > 0.5 * total, "{}: phases {phases} ms of {total} ms", r.str(col::CASE_ID));
        let solved = run.solved_fraction;
        assert!((0.0..=1.0).contains(&solved), "solved fraction {solved}");
    }
    // On the smallest problem every construction solves every subproblem.
    for r in runs.iter().filter(|r| r.int(Table1Case::ell) == Some(30)) {
        assert_eq!(r.float(RunRow::solved_fraction), Some(1.0), "{} at ℓ = 30", r.str(col::METHOD));
    }
}

#[test]
fn gboa_spec_with_impossible_values_names_file_line_and_key() {
    common::assert_spec_edit_rejected("gboa", "complexity_ell = 120", "complexity_ell = 121", &["profiles.quick.complexity_ell", "121"]);
    common::assert_spec_edit_rejected("gboa", "population = 4800", "population = 2", &["settings.population"]);
    // The range the claims judge is the spec's, once: a run length of 0 or a negative size names its key.
    common::assert_spec_edit_rejected("gboa", "judged_generations = 200", "judged_generations = 0", &["settings.judged_generations"]);
    common::assert_spec_edit_rejected("gboa", "judged_ells = [1, 190]", "judged_ells = [-5, 190]", &["settings.judged_ells"]);
    // What the paper states is the spec's `[stated]`, once: the claims and the report read it there.
    common::assert_spec_edit_rejected("gboa", "speedup_over_pboa = 2.6", "speedup_over_pboa = -2.6", &["stated.speedup_over_pboa"]);
    common::assert_spec_edit_rejected(
        "gboa",
        "construction_share_largest = 0.8",
        "construction_share_largest = 0.6",
        &["stated.construction_share_largest", "lies below"],
    );
}
