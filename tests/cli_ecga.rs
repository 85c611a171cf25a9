//! The ECGA paper through the built binary: the quick profile end to end on the
//! CPU, and a spec with an impossible value rejected with file, line and key.

use evorepro::experiments::ecga::rows::{Bisection, RunRow, Scored, Table5Case};
use evorepro::records::col;

mod common;

#[test]
fn ecga_quick_profile_on_cpu_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    common::reproduce_quick_cpu("ecga", tmp.path());
    let dir = tmp.path().join("ecga");
    let report = common::report_with_pages(&dir);
    for s in [
        "## Table 5",
        "## Figure 5",
        "## Figure 6",
        "## Figure 7",
        "## Scalability",
        "## Claims",
        "not run here (--backend cpu)",
        "## Not run here\n\n| machine | scorer | reason |",
    ] {
        assert!(report.contains(s), "REPORT.md and its machine pages lack `{s}`");
    }
    // Every claim judged once on this machine, none by a fixed sentence: gECGA's claims say why they did not run.
    let verdicts = std::fs::read_to_string(dir.join("verdicts.json")).expect("verdicts.json written");
    assert_eq!(verdicts.matches("\"gecga_identical\"").count(), 1, "{verdicts}");
    assert!(report.contains("**not run here (gecga: --backend cpu)**"), "gECGA's claims name the records' reason");
    let records: Vec<_> = std::fs::read_dir(dir.join("records")).unwrap().flatten().map(|e| e.path()).collect();
    let parquet = records.iter().find(|p| p.extension().is_some_and(|e| e == "parquet")).expect("a Parquet record file");
    let copy = evorepro::records::csv_path(&parquet.with_extension(""));
    assert!(copy.is_file(), "no CSV copy {}: {records:?}", copy.display());
    let rows = evorepro::records::read_parquet(parquet).unwrap();
    // Every CPU scorer of every Figure 5 run reproduced the first scorer's run exactly.
    let fig5: Vec<_> = rows.iter().filter(|r| r.str(col::FIGURE) == "fig5" && r.is_ok()).collect();
    assert!(fig5.len() >= 6, "too few Figure 5 rows: {}", fig5.len());
    for r in &fig5 {
        let run: RunRow = r.row().unwrap();
        assert_eq!(run.identical, Some(true), "scorer {} diverged in {}", r.str(Scored::scorer), r.str(col::CASE_ID));
    }
    // Bisections found populations within a factor of 3 of the paper's Table 5.
    for r in rows.iter().filter(|r| r.str(col::FIGURE) == "table5") {
        let (case, bisection): (Table5Case, Bisection) = (r.row().unwrap(), r.row().unwrap());
        let (ell, n) = (case.ell, bisection.n_min);
        let paper = if ell == 50 { 2376 } else { 6670 };
        assert!(n * 3 > paper && n < paper * 3, "ℓ = {ell}: bisection gave {n}, paper {paper}");
    }
    for ext in ["png", "svg"] {
        let figures: Vec<_> =
            std::fs::read_dir(dir.join("figures")).unwrap().flatten().filter(|e| e.path().extension().is_some_and(|x| x == ext)).collect();
        assert!(figures.len() >= 2, "expected Table 5 and Figure 5 charts as {ext}");
    }
}

#[test]
fn ecga_spec_with_impossible_trap_order_names_file_line_and_key() {
    common::assert_spec_edit_rejected("ecga", "k = 5\n", "k = 7\n", &["settings.k", "7"]);
}

#[test]
fn ecga_spec_with_an_impossible_build_size_names_file_line_and_key() {
    common::assert_spec_edit_rejected("ecga", "build_ells = [500]\n", "build_ells = [503]\n", &["profiles.speed.build_ells", "503"]);
}
