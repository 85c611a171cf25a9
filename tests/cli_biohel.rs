//! The BioHEL paper's evaluation stage through the built binary: the quick profile
//! end to end on the CPU, and an unknown data set rejected with file, line and key.

mod common;

#[test]
fn biohel_quick_profile_on_cpu_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    common::reproduce_quick_cpu("biohel", tmp.path());
    let dir = tmp.path().join("biohel");
    let report = std::fs::read_to_string(dir.join("REPORT.md")).expect("REPORT.md written");
    for s in ["## Table 2", "## Table 3", "## Claims", "not run here (--backend cpu)"] {
        assert!(report.contains(s), "REPORT.md lacks `{s}`");
    }
    let parquet =
        std::fs::read_dir(dir.join("records")).unwrap().flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|e| e == "parquet"));
    let rows = evorepro::records::read_parquet(&parquet.expect("a Parquet record file")).unwrap();
    let timed: Vec<_> = rows.iter().filter(|r| r.str("status") == "ok").collect();
    assert_eq!(timed.len(), 2 * 4 * 4, "serial and cpu-mt for 4 sets × 4 window counts");
    // The training set of fold 0 of ten is 90% of each set (adult: data + test).
    for (set, whole) in [("sat", 6435), ("wav", 5000), ("pen", 10992), ("adu", 48842)] {
        let n = timed.iter().find(|r| r.str("set") == set).and_then(|r| r.int("instances")).unwrap();
        assert!((n as f64 - 0.9 * whole as f64).abs() <= 10.0, "{set}: {n} training instances of {whole}");
    }
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
