//! `evorepro compare` on the committed reference records: predictions computed
//! from the recorded ceilings and times, several record folders at once, and the
//! cross-paper summary.

mod common;

use evorepro::experiments::island::rows::{IslandsCase, RunRow};
use evorepro::records::col;
use evorepro::records::{GOP_PER_S, Record, read_parquet};
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "_archive") {
                copy_dir(&p, &to.join(e.file_name()));
            }
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn rows(dir: &Path) -> Vec<Record> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .flat_map(|p| read_parquet(&p).unwrap())
        .collect()
}

/// The measured int32 ceiling of a machine's runs (latest by run).
fn int32(rows: &[Record], hw: &str) -> f64 {
    rows.iter()
        .filter(|r| r.str(col::HW_ID) == hw && r.str(col::RECORD_KIND) == "ceiling" && r.str(col::CEILING) == "gpu_int32")
        .max_by_key(|r| r.int(col::RUN_ID).unwrap_or(0))
        .and_then(|r| r.float(GOP_PER_S))
        .expect("the run measured its int32 ceiling")
}

fn ring_ms(rows: &[Record], hw: &str) -> f64 {
    rows.iter()
        .find(|r| {
            r.str(col::HW_ID) == hw
                && r.str(col::FIGURE) == "ring"
                && r.int(IslandsCase::islands) == Some(14)
                && r.int(IslandsCase::island_size) == Some(2048)
                && r.str(col::METHOD) == "cuda"
                && r.int(RunRow::gpus) == Some(1)
        })
        .and_then(|r| r.float(RunRow::total_ms))
        .expect("a one-GPU ring run")
}

#[test]
fn predictions_follow_the_recorded_ceilings_and_several_folders_compare_at_once() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    copy_dir(&repo.join("reports/island"), &a.join("island"));
    copy_dir(&repo.join("reports/hardware"), &a.join("hardware"));
    copy_dir(&repo.join("reports/island"), &b.join("island"));

    let o = common::evorepro(&["compare", "island", "--out", a.to_str().unwrap(), "--with", b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", common::describe(&o));
    let md = std::fs::read_to_string(a.join("island/COMPARE.md")).unwrap();
    // The terminal gets the headline workload and the file's path, not the whole comparison.
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(shown.lines().count() < 20 && shown.starts_with("## island") && shown.contains("ring-one-gpu"), "{shown}");
    assert!(shown.contains(&a.join("island/COMPARE.md").display().to_string()), "{shown}");

    // The H200's time predicted from the H100's by the ratio of their measured int32 ceilings.
    let recorded = rows(&repo.join("reports/island/records"));
    let (h100, h200) = ("nvidia-h100-80gb-hbm3__intel-r-xeon-r-processor__32t", "nvidia-h200__intel-r-xeon-r-processor__32t");
    let predicted = ring_ms(&recorded, h100) * int32(&recorded, h100) / int32(&recorded, h200);
    let section = &md[md.find("### ring-one-gpu").expect("the workload's section")..];
    // Machines are named as people name them; the two ran different commits, so they are not set against each other.
    let row = section.lines().find(|l| l.starts_with("| H200 · 32-thread Intel Xeon |")).expect("an H200 row");
    let shown = format!("{:.2} s", predicted / 1000.0);
    assert!(row.contains(&shown), "prediction {shown} not in: {row}");
    assert!(row.contains("within 2×") || row.contains("misses by") || row.contains("not compared: the code differs"), "{row}");
    let tested = section.lines().find(|l| l.starts_with("| H100 80GB HBM3 · 32-thread Intel Xeon → H200 · 32-thread Intel Xeon |"));
    assert!(tested.is_some_and(|l| l.contains(&shown)), "the prediction tested against the H200's time: {section}");
    assert!(md.contains("generations-ring-one-gpu.svg") && a.join("island/figures/generations-ring-one-gpu.png").exists());

    // Both folders' machines, the second folder's named by its folder.
    assert!(md.contains(&format!("`{h200} @ {}`", b.display())), "{md}");
    assert!(md.contains(&format!("| H200 · 32-thread Intel Xeon @ {} |", b.display())), "named with its folder: {md}");
    let summary = std::fs::read_to_string(a.join("COMPARE.md")).unwrap();
    assert!(summary.contains("## [island](island/COMPARE.md)") && summary.contains("B200 (not run here)"), "{summary}");

    // A folder without the paper's records is refused by name.
    let o = common::evorepro(&["compare", "island", "--out", a.to_str().unwrap(), "--with", tmp.path().join("none").to_str().unwrap()]);
    assert!(!o.status.success() && common::describe(&o).contains("no records of island"), "{}", common::describe(&o));
}
