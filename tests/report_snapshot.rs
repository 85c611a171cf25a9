//! Snapshot of the layout report rendered from a small synthetic record set of
//! a fake machine with a GPU. `UPDATE_SNAPSHOTS=1 cargo test --test
//! report_snapshot` rewrites `tests/snapshots/layout_report.md`; review the
//! diff before committing it.

use evorepro::experiments::layout::rows::{Measured, SEARCH, SizeCase, TIMED, Try};
use evorepro::records::FingerprintRow;
use evorepro::records::col;
use evorepro::records::{GB_PER_S, Record, write_records};
use std::path::Path;

const SNAPSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/layout_report.md");
const HW_ID: &str = "test-gpu__test-cpu__4t";
/// As many tries as the spec's `min_n`, so that the claims decide.
const TRIES: usize = 10;

/// The fixture's sweep: profile `quick` of the spec [`spec`] writes.
const FUNCTIONS: [&str; 2] = ["rosenbrock", "f2_heavy"];
const SIZES: [(usize, usize); 9] =
    [(10, 10), (20, 20), (40, 40), (100, 100), (200, 200), (400, 400), (1000, 1000), (2000, 2000), (4000, 4000)];

/// The shipped layout spec with its profile `quick` planning exactly the
/// fixture's cases (the shipped one renamed `quick-shipped`; `speed` as shipped),
/// written into `dir`.
fn spec(dir: &Path) -> evorepro::experiments::SpecChoice {
    let shipped = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/experiments/layout.toml")).unwrap();
    let sizes: Vec<String> = SIZES.iter().map(|(p, d)| format!("[{p}, {d}]")).collect();
    let profile = format!("\n[profiles.quick]\ntries = {TRIES}\nfunctions = {FUNCTIONS:?}\nsizes = [{}]\n", sizes.join(", "));
    let path = dir.join("layout.toml");
    std::fs::write(&path, shipped.replacen("\n[profiles.quick]", &format!("{profile}\n[profiles.quick-shipped]"), 1)).unwrap();
    evorepro::experiments::SpecChoice { file: Some(path), root: env!("CARGO_MANIFEST_DIR").into(), allow_outside: false }
}

/// The columns every row of the fake machine carries (as the runner writes them).
fn common() -> Record {
    Record::new()
        .with(col::PAPER, "layout")
        .with(col::PROFILE, "quick")
        .with(col::RUN_ID, 1_700_000_000_u64)
        .with(col::GIT_COMMIT, "test")
        .with(col::SPEC_HASH, "test")
        .with(col::BACKEND, "cuda")
        .with(col::HW_ID, HW_ID)
        .with(FingerprintRow::cpu_model, "Test CPU")
        .with(FingerprintRow::cpu_physical_cores, 2_usize)
        .with(FingerprintRow::cpu_threads, 4_usize)
        .with(FingerprintRow::mem_gib, 64.0)
        .with(FingerprintRow::os, "Test OS")
        .with(FingerprintRow::gpu_name, "Test GPU")
        .with(FingerprintRow::gpu_cc, "9.0")
        .with(FingerprintRow::gpu_sms, 100_i64)
        .with(FingerprintRow::gpu_mem_gib, 80.0)
        .with(FingerprintRow::cuda_driver, "13.0")
}

/// Times (ms) per strategy at n = pop·dim coordinates; None = cannot run.
/// Rosenbrock: sequential below ~10⁵ coordinates, S4 above.
/// f2_heavy: sequential below ~5·10³, S3 up to its dimension limit, S4 above.
fn model(function: &str, pop: usize, dim: usize, strategy: &str) -> Option<f64> {
    let n = (pop * dim) as f64;
    let heavy = function == "f2_heavy";
    let seq = if heavy { 2e-5 * n } else { 2.5e-6 * n };
    let s4 = if heavy { 0.2 + 1.5e-6 * n } else { 0.15 + 1e-6 * n };
    let s3 = if heavy { 0.1 + 2e-6 * n } else { 0.12 + 3e-6 * n };
    Some(match strategy {
        "sequential" => seq,
        "cpu_mt" => seq / 3.5 + 0.01,
        "S1" => 1.6 * s4,
        "S2" => 1.7 * s4,
        "S3" if dim > 1024 => return None,
        "S3" => s3,
        "S4" => s4,
        other => panic!("no model for {other}"),
    })
}

fn synthetic_records() -> Vec<Record> {
    let base = common();
    let mut rows = Vec::new();
    for (name, gbs) in [("gpu_d2d", 3000.0), ("gpu_h2d_pinned", 50.0), ("cpu_read_1t", 10.0)] {
        let mut r = base.clone();
        r.extend(&Record::new().with(col::RECORD_KIND, "ceiling").with(col::CEILING, name).with(GB_PER_S, gbs));
        rows.push(r);
    }
    for function in FUNCTIONS {
        for (pop, dim) in SIZES {
            let case = Record::new()
                .with(col::RECORD_KIND, "measurement")
                .with(col::CASE_ID, format!("{function}/{pop}x{dim}"))
                .with_row(&SizeCase { function: function.into(), pop, dim, seed: 1, tries: TRIES });
            for strategy in ["sequential", "cpu_mt", "S1", "S2", "S3", "S4"] {
                let gpu = strategy.starts_with('S');
                let block = match strategy {
                    "S3" => dim,
                    _ => 256,
                };
                let row = |phase: &str, t: usize| {
                    let mut r = base.clone();
                    r.extend(&case);
                    r.extend(
                        &Record::new().with_row(&Try { strategy: strategy.into(), phase: phase.into(), r#try: t }).with(col::STATUS, "ok"),
                    );
                    r
                };
                let Some(ms) = model(function, pop, dim, strategy) else {
                    rows.push(
                        row(TIMED, 0)
                            .with_row(&Measured { block_size: Some(0), ..Measured::default() })
                            .with(col::STATUS, "cannot_run")
                            .with(col::REASON, format!("dimension {dim} exceeds the device's 1024 threads per block")),
                    );
                    continue;
                };
                if gpu {
                    // A slow block-size search try, which the report must ignore.
                    rows.push(row(SEARCH, 0).with_row(&Measured {
                        block_size: Some(32),
                        wall_ms: Some(1000.0 * ms),
                        ..Measured::default()
                    }));
                }
                for t in 0..TRIES {
                    let wall = ms * (1.0 + 0.01 * ((t % 3) as f64 - 1.0));
                    let mut m = Measured { wall_ms: Some(wall), check_ratio: Some(0.01), ..Measured::default() };
                    if gpu {
                        m = Measured {
                            block_size: Some(block as u32),
                            kernel_ms: Some(0.3 * wall),
                            events_ms: Some(0.95 * wall),
                            h2d_ms: Some(0.5 * wall),
                            d2h_ms: Some(0.15 * wall),
                            ..m
                        };
                    } else if strategy == "cpu_mt" {
                        m.threads = Some(4);
                    }
                    rows.push(row(TIMED, t).with_row(&m));
                }
            }
        }
    }
    rows
}

fn first_difference(expected: &str, actual: &str) -> String {
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            return format!("line {}:\n  snapshot: {e}\n  rendered: {a}", i + 1);
        }
    }
    format!("one is a prefix of the other ({} vs {} lines)", expected.lines().count(), actual.lines().count())
}

#[test]
fn layout_report_matches_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let records = tmp.path().join("layout").join("records");
    write_records(&records.join("test"), &synthetic_records()).unwrap();
    let exp = evorepro::experiments::find("layout").unwrap();
    let path = evorepro::experiments::render(exp, tmp.path(), None, &spec(tmp.path())).unwrap().report;
    assert_eq!(path, tmp.path().join("layout").join("REPORT.md"));
    let actual = std::fs::read_to_string(&path).unwrap();
    assert!(!actual.contains(&*tmp.path().to_string_lossy()), "the report names the temporary folder");
    // The machine's page holds what the report leaves to it, its links one folder down.
    let page = std::fs::read_to_string(tmp.path().join("layout/machines").join(format!("{HW_ID}.md"))).unwrap();
    for held in ["## Claims not judged on this machine", "`heavier-shrinks-sequential`", "## Claims beyond the paper", "| `crossover` |"] {
        assert!(page.contains(held), "the machine page lacks {held:?}:\n{page}");
    }
    assert!(page.contains("](../figures/") && !page.contains("](figures/"), "charts one folder up:\n{page}");

    let snapshot = Path::new(SNAPSHOT);
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    if update || !snapshot.exists() {
        std::fs::create_dir_all(snapshot.parent().unwrap()).unwrap();
        std::fs::write(snapshot, &actual).unwrap();
        assert!(update, "{SNAPSHOT} did not exist and has been written: review it and commit it, then rerun");
        println!("updated {SNAPSHOT}");
        return;
    }
    let expected = std::fs::read_to_string(snapshot).unwrap();
    if expected != actual {
        let kept = std::env::temp_dir().join("layout_report.actual.md");
        std::fs::write(&kept, &actual).unwrap();
        panic!(
            "REPORT.md differs from {SNAPSHOT} at {}\n(the rendered report is at {}; if the change is intended, \
             rerun with UPDATE_SNAPSHOTS=1 and review the diff)",
            first_difference(&expected, &actual),
            kept.display()
        );
    }
}

/// Verdict labels of the claims on the fixture's machine, by claim id.
fn verdicts(rendered: &evorepro::experiments::Rendered) -> Vec<(String, String)> {
    rendered.claims.iter().filter(|c| c.machine == HW_ID).map(|c| (c.id.clone(), c.outcome.verdict.label())).collect()
}

#[test]
fn an_incomplete_sweep_leaves_undecided_the_claims_resting_on_it() {
    let render = |rows: Vec<Record>| {
        let tmp = tempfile::tempdir().unwrap();
        write_records(&tmp.path().join("layout").join("records").join("test"), &rows).unwrap();
        let exp = evorepro::experiments::find("layout").unwrap();
        let rendered = evorepro::experiments::render(exp, tmp.path(), None, &spec(tmp.path())).unwrap();
        let report = std::fs::read_to_string(&rendered.report).unwrap();
        (verdicts(&rendered), report)
    };
    let (whole, _) = render(synthetic_records());
    assert!(whole.iter().any(|(_, v)| v == "reproduced") && whole.iter().any(|(_, v)| v.starts_with("not reproduced")), "{whole:?}");

    // One case of the sweep missing: every claim decided on it is left undecided.
    let mut rows = synthetic_records();
    rows.retain(|r| r.str(col::CASE_ID) != "rosenbrock/4000x4000");
    let (partial, report) = render(rows);
    assert!(report.contains("| quick | test | 17 / 18 (**incomplete**) |"), "{report}");
    for ((id, before), (_, after)) in whole.iter().zip(&partial) {
        if before == "reproduced" || before.starts_with("not reproduced") {
            assert_eq!(after, "inconclusive (incomplete: sweep `quick` has 17 of 18 cases)", "{id}");
        } else {
            assert_eq!(after, before, "{id}");
        }
    }

    // An incomplete profile no claim rests on (one `speed` case beyond the
    // paper's sizes) changes no verdict.
    let mut rows = synthetic_records();
    let mut extra: Vec<Record> = rows.iter().filter(|r| r.str(col::CASE_ID) == "rosenbrock/4000x4000").cloned().collect();
    for r in &mut extra {
        r.set(col::PROFILE, "speed");
        r.set(col::CASE_ID, "rosenbrock/16000x16000");
        let case = SizeCase { pop: 16000, dim: 16000, ..r.row().unwrap() };
        *r = std::mem::take(r).with_row(&case);
    }
    rows.extend(extra);
    let (with_speed, report) = render(rows);
    assert!(report.contains("| speed | test | 1 / 21 (**incomplete**) |"), "{report}");
    assert_eq!(with_speed, whole);
}

#[test]
fn report_refuses_records_without_a_checksum_until_certified_and_changed_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let records = tmp.path().join("layout").join("records");
    write_records(&records.join("test"), &synthetic_records()).unwrap();
    let parquet = records.join("test.parquet");
    let sum = evorepro::records::checksum_path(&parquet);
    let written = std::fs::read_to_string(&sum).unwrap();
    // Records without a checksum (written before checksums were kept, or whose
    // checksum was lost) are refused, naming the file and the way out...
    std::fs::remove_file(&sum).unwrap();
    let exp = evorepro::experiments::find("layout").unwrap();
    let e = format!("{:#}", evorepro::experiments::render(exp, tmp.path(), None, &spec(tmp.path())).err().unwrap());
    assert!(e.contains("test.parquet") && e.contains("records upgrade"), "{e}");
    assert!(!sum.exists(), "report wrote a checksum over unchecked bytes");
    // ...which certifies them once their rows pass the schema and range checks.
    assert!(evorepro::records::certify(&parquet).unwrap());
    assert_eq!(std::fs::read_to_string(&sum).unwrap(), written);
    evorepro::experiments::render(exp, tmp.path(), None, &spec(tmp.path())).unwrap();
    // Bytes changed after the write: `report` refuses them, naming the file.
    let mut bytes = std::fs::read(&parquet).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&parquet, bytes).unwrap();
    let e = format!("{:#}", evorepro::experiments::render(exp, tmp.path(), None, &spec(tmp.path())).err().unwrap());
    assert!(e.contains("test.parquet") && e.contains("changed after they were written"), "{e}");
}
