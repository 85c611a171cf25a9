//! The committed results at a glance agree with each other: `reports/verdicts.json`
//! holds every paper's `reports/<paper>/verdicts.json`, `reports/INDEX.md` has a
//! row per paper × machine with the same counts, and every REPORT.md opens with
//! the same counts in its verdict summary.

use evorepro::claims::VerdictKind;
use evorepro::experiments;
use evorepro::records::FingerprintRow;
use evorepro::records::col;
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
    let ids: Vec<&str> = evorepro::experiments::registry().iter().map(|e| e.id).collect();
    assert_eq!(papers.iter().map(|p| p.paper.as_str()).collect::<Vec<_>>(), ids, "every paper, in registry order");
    assert_eq!(read(&root.join("INDEX.md")), index_markdown(&papers, root), "INDEX.md is the index of verdicts.json");
    for p in &papers {
        let own: PaperVerdicts = serde_json::from_str(&read(&root.join(&p.paper).join("verdicts.json"))).expect("paper verdicts");
        // Equal to the last bit of every float: the index is written from parsed files, and
        // serde_json's `float_roundtrip` feature reads each float back exactly.
        assert_eq!(
            serde_json::to_value(&own).unwrap(),
            serde_json::to_value(p).unwrap(),
            "{}/verdicts.json differs from reports/verdicts.json",
            p.paper
        );
        let report = read(&root.join(&p.report));
        let summary = report.split("## Verdicts").nth(1).and_then(|s| s.split("\n## ").next()).expect("a verdict summary");
        for m in &p.machines {
            let row = summary.lines().find(|l| l.starts_with("| ") && l.contains(&format!("(`{}`)", m.hw_id))).unwrap_or_else(|| {
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

fn validator() -> jsonschema::Validator {
    let schema: serde_json::Value =
        serde_json::from_str(&read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/verdicts.schema.json"))).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("a valid JSON Schema")
}

fn assert_valid(v: &jsonschema::Validator, what: &str, json: &serde_json::Value) {
    let errors: Vec<String> = v.iter_errors(json).map(|e| format!("{} at {}", e, e.instance_path())).take(5).collect();
    assert!(errors.is_empty(), "{what} breaks docs/verdicts.schema.json: {}", errors.join("; "));
}

/// Every committed verdicts file follows the published schema.
#[test]
fn committed_verdicts_follow_the_schema() {
    let v = validator();
    let root = Path::new(REPORTS);
    let all: serde_json::Value = serde_json::from_str(&read(&root.join("verdicts.json"))).unwrap();
    assert_valid(&v, "reports/verdicts.json", &all);
    for e in evorepro::experiments::registry() {
        let path = root.join(e.id).join("verdicts.json");
        let one: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
        assert_valid(&v, &path.display().to_string(), &one);
    }
}

/// Verdicts of every kind, as the library writes them, follow the schema; a
/// record the schema forbids (a harness check with a quote, a direction on a
/// reproduced claim) is refused, so the schema can fail.
#[test]
fn every_kind_of_verdict_follows_the_schema_and_the_schema_can_fail() {
    use evorepro::claims::hardware::{Explanation, Factor, Predicted};
    use evorepro::claims::{Budget, ClaimResult, Direction, Estimate, Outcome, Verdict, judge};
    use evorepro::hardware::Quantity;
    use evorepro::records::MachineRecords;
    use evorepro::records::Record;
    let text = "id = \"c\"\nsource = \"s\"\ntext = \"t\"\nquote = \"q\"\ncheck = \"k\"\n";
    let paper: evorepro::spec::ClaimSpec = toml::from_str(text).unwrap();
    let harness: evorepro::spec::ClaimSpec = toml::from_str(&text.replace("quote = \"q\"\n", "provenance = \"harness\"\n")).unwrap();
    let explanation = Explanation {
        factors: vec![Factor::of_point(Quantity::GpuBandwidth, 3000.0, 100.0, "sheet")],
        points: vec![Predicted {
            label: "p".into(),
            measured: Estimate::mean_of(&[24.0, 25.0, 26.0]).unwrap(),
            predicted: Estimate::of_means(&[&[29.0, 30.0, 31.0]], |m| m[0]).unwrap(),
            factors: vec![],
        }],
        direction: Direction::Exceeds,
    };
    let band = judge::Band { low: 0.5, high: 2.0 };
    let outcomes = vec![
        Outcome::new(Verdict::Reproduced, "ok").with_ratio(1.1),
        Outcome::new(Verdict::NotReproduced(Some(Direction::FallsShort)), "short"),
        Outcome::new(Verdict::Differs(explanation), "differs"),
        Outcome::decided(judge::band(&Estimate::mean_of(&[0.45, 0.5, 0.55]).unwrap(), &band), 3, "edge"),
        Outcome::too_few(1, 3, "one"),
        Outcome::not_run("no GPU"),
        // An open band (at least 1×): its upper edge is null, and the file reads back.
        Outcome::decided(
            judge::band(&Estimate::mean_of(&[0.2, 0.21, 0.22]).unwrap(), &judge::Band { low: 1.0, high: f64::INFINITY }),
            3,
            "open",
        ),
        Outcome::new(Verdict::Reproduced, "small").with_budget(Budget::new(2000.0, 100000.0, "generations")),
    ];
    let machine = MachineRecords {
        hw_id: "m".into(),
        rows: vec![
            Record::new()
                .with(col::HW_ID, "m")
                .with(FingerprintRow::cpu_model, "CPU")
                .with(col::RECORD_KIND, "measurement")
                .with(col::GIT_COMMIT, "abc"),
        ],
    };
    let mut claims: Vec<ClaimResult> = outcomes.into_iter().map(|o| ClaimResult::of(&paper, "m", o)).collect();
    claims.push(ClaimResult::of(&harness, "m", Outcome::new(Verdict::Reproduced, "own check")));
    let pv = evorepro::report::index::PaperVerdicts::new("demo", "Demo", &[machine], &claims);
    let json = serde_json::to_value(&pv).unwrap();
    let v = validator();
    assert_valid(&v, "a paper's verdicts of every kind", &json);
    let back: evorepro::report::index::PaperVerdicts = serde_json::from_value(json.clone()).expect("verdicts.json reads back");
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
    let mut quoted_harness = json.clone();
    quoted_harness["claims"][8]["quote"] = serde_json::Value::String("q".into());
    assert!(!v.is_valid(&quoted_harness), "a harness check with a quote must break the schema");
    let mut directed = json.clone();
    directed["claims"][0]["direction"] = serde_json::Value::String("exceeds".into());
    assert!(!v.is_valid(&directed), "a reproduced claim with a direction must break the schema");
}

/// Every series a paper's analysis lists (`Series::NAMES`, what its spec may
/// name) is measured by some committed machine's records: a name listed but
/// answered by none of the analysis's methods would leave its claims "not run
/// here" on every machine.
#[test]
fn every_series_a_paper_lists_is_measured_on_some_machine() {
    let root = Path::new(REPORTS).parent().unwrap();
    let spec = experiments::SpecChoice { file: None, root: root.to_path_buf(), allow_outside: false };
    for exp in experiments::registry() {
        let unmeasured = experiments::unmeasured(exp, Path::new(REPORTS), &spec).unwrap();
        assert!(unmeasured.is_empty(), "{}: listed but measured by no committed machine: {unmeasured:?}", exp.id);
    }
}
