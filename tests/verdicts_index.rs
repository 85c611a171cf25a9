//! The committed results at a glance agree with each other: `reports/verdicts.json`
//! holds every paper's `reports/<paper>/verdicts.json`, `reports/INDEX.md` has a
//! row per paper × machine with the same counts, and every REPORT.md opens with
//! the same counts in its verdict summary.

use evorepro::claims::VerdictKind;
use evorepro::report::index::{PaperVerdicts, index_markdown};
use std::path::Path;

const REPORTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/reports");

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn index_json_and_reports_agree() {
    let root = Path::new(REPORTS);
    let all: serde_json::Value = serde_json::from_str(&read(&root.join("verdicts.json"))).expect("reports/verdicts.json");
    let papers: Vec<PaperVerdicts> = serde_json::from_value(all["papers"].clone()).expect("papers");
    let ids: Vec<&str> = evorepro::experiments::registry().iter().map(|e| e.id()).collect();
    assert_eq!(papers.iter().map(|p| p.paper.as_str()).collect::<Vec<_>>(), ids, "every paper, in registry order");
    assert_eq!(read(&root.join("INDEX.md")), index_markdown(&papers), "INDEX.md is the index of verdicts.json");
    for p in &papers {
        let own: PaperVerdicts = serde_json::from_str(&read(&root.join(&p.paper).join("verdicts.json"))).expect("paper verdicts");
        assert_eq!(&own, p, "{}/verdicts.json differs from reports/verdicts.json", p.paper);
        let report = read(&root.join(&p.report));
        let summary = report.split("## Verdicts").nth(1).and_then(|s| s.split("\n## ").next()).expect("a verdict summary");
        for m in &p.machines {
            let row = summary.lines().find(|l| l.starts_with(&format!("| `{}` ", m.hw_id))).unwrap_or_else(|| {
                panic!("{}: no summary row for {}", p.report, m.hw_id);
            });
            for (kind, n) in m.counts.paper.iter().chain(&m.counts.harness).filter(|(_, n)| **n > 0) {
                let kind: VerdictKind = serde_json::from_value(serde_json::Value::String(kind.clone())).expect("a verdict kind");
                let label = kind.label();
                assert!(row.contains(&format!("{n} {label}")), "{}: {} row lacks `{n} {label}`: {row}", p.report, m.hw_id);
            }
            let claims = p.claims.iter().filter(|c| c.machine == m.hw_id).count();
            let counted = m.counts.paper.values().chain(m.counts.harness.values()).sum::<usize>();
            assert_eq!(claims, counted, "{}: counts of {} add up to its claims", p.paper, m.hw_id);
        }
    }
}
