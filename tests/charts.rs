//! Every chart the reports draw reads well: each paper's report is rendered from
//! the committed records under `reports/` into a temporary folder, and every SVG
//! it writes (per-machine figures and the generations charts) must keep two tick
//! labels per axis with no two overlapping by their text extents, and no legend
//! over a plotted point (#22).

mod common;

use common::{ROOT, describe, evorepro};
use std::path::Path;

const PAPERS: [&str; 5] = ["layout", "ecga", "gboa", "biohel", "island"];

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() { copy_dir(&src, &dst) } else { std::fs::copy(&src, &dst).map(|_| ()).unwrap() }
    }
}

#[test]
fn every_chart_of_every_report_has_readable_tick_labels_and_legends_clear_of_the_points() {
    let out = tempfile::tempdir().unwrap();
    let committed = Path::new(ROOT).join("reports");
    copy_dir(&committed.join("hardware").join("records"), &out.path().join("hardware").join("records"));
    let mut problems = Vec::new();
    let mut charts = 0;
    for paper in PAPERS {
        copy_dir(&committed.join(paper).join("records"), &out.path().join(paper).join("records"));
        let o = evorepro(&["report".as_ref(), paper.as_ref(), "--out".as_ref(), out.path().as_os_str()]);
        assert!(o.status.success(), "report {paper}: {}", describe(&o));
        let figures = out.path().join(paper).join("figures");
        for e in std::fs::read_dir(&figures).unwrap().flatten().filter(|e| e.path().extension().is_some_and(|x| x == "svg")) {
            charts += 1;
            let svg = std::fs::read_to_string(e.path()).unwrap();
            let found = [evorepro::report::chart::tick_label_problems(&svg), evorepro::report::chart::legend_problems(&svg)].concat();
            problems.extend(found.into_iter().map(|p| format!("{}: {p}", e.path().display())));
        }
    }
    assert!(charts >= 30, "only {charts} charts rendered");
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}
