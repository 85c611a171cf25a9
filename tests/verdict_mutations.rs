//! The verdicts against a sceptic who alters the committed records: each
//! mutation below is applied to a copy of every paper's records, the claims are
//! judged again, and every verdict must move only the way the mutation allows.
//!
//! - **alias**: a machine's later record files written under the old id
//!   format (no CPU signature) are the same machine: every verdict stays as it was.
//! - **stand-ins altered** (their times ×5): stand-in data never decide a
//!   paper claim, so no paper claim's verdict kind changes.
//! - **one method 10% faster, 10% slower**: a verdict moves monotonically along
//!   falls short → inconclusive → reproduced → inconclusive → exceeds (never
//!   both ways, never jumping from one side of the band to the other and back).
//! - **n cut to 2**: less data never reverses a decision (reproduced ↔ not
//!   reproduced) — it may only leave it undecided.
//! - **two methods' labels swapped**: a claim that one is faster than the other
//!   and was reproduced is reproduced no longer.
//! - **a later run of ceilings alone** (every ceiling row copied into a run
//!   after all others, device rates at 3×, a core's clock at ½): a verdict rests
//!   on the ceilings its own runs measured, so no verdict and no measured value moves.

use evorepro::claims::{ClaimResult, Direction, Verdict, VerdictKind};
use evorepro::experiments::plan::CASE_SECONDS;
use evorepro::experiments::{self, Experiment, SpecChoice, biohel, ecga, gboa, island, layout};
use evorepro::records::FingerprintRow;
use evorepro::records::col;
use evorepro::records::{self, Record};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What a paper's records call their methods, times and repeats.
struct Columns {
    paper: &'static str,
    method: &'static str,
    /// The method whose times are scaled.
    scaled: &'static str,
    /// Two methods whose labels are swapped, and the claims of one being faster than the other.
    swapped: (&'static str, &'static str),
    faster: &'static [&'static str],
    /// The column that numbers a point's repeated runs.
    repeat: &'static str,
    /// Rows of stand-in data: (column, values).
    stand_ins: Option<(&'static str, &'static [&'static str])>,
}

const PAPERS: &[Columns] = &[
    Columns {
        paper: "layout",
        method: layout::rows::Try::strategy,
        scaled: "S4",
        swapped: ("S4", "S1"),
        faster: &["coalesced-wins"],
        repeat: layout::rows::Try::r#try,
        stand_ins: None,
    },
    Columns {
        paper: "ecga",
        method: ecga::rows::Scored::scorer,
        scaled: "gecga",
        swapped: ("gecga", "baseline"),
        faster: &["spg_grows"],
        repeat: ecga::rows::Fig5Case::run,
        stand_ins: None,
    },
    Columns {
        paper: "gboa",
        method: col::METHOD,
        scaled: "gboa",
        swapped: ("gboa", "sboa"),
        faster: &["speedup_over_sboa"],
        repeat: gboa::rows::RunRow::repeat,
        stand_ins: None,
    },
    Columns {
        paper: "biohel",
        method: col::METHOD,
        scaled: "cuda-paper",
        swapped: ("cuda-paper", "serial"),
        faster: &["cuda_speedup"],
        repeat: biohel::rows::SetCase::seed,
        stand_ins: Some((biohel::rows::SetCase::set, &["ss", "sa"])),
    },
    Columns {
        paper: "island",
        method: col::METHOD,
        scaled: "cuda",
        swapped: ("cuda", "cpu-1t"),
        faster: &["gpu_speedup"],
        repeat: island::rows::IslandsCase::run,
        stand_ins: None,
    },
];

/// The papers under test: all, or those named in `MUTATE_PAPERS` (comma-separated) to debug one.
fn papers() -> impl Iterator<Item = &'static Columns> {
    let only = std::env::var("MUTATE_PAPERS").ok();
    PAPERS.iter().filter(move |p| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == p.paper)))
}

fn experiment(id: &str) -> &'static Experiment {
    experiments::find(id).expect("a registered paper")
}

/// A copy of the paper's committed records and the hardware records, each row passed through `edit` (None drops it).
fn mutated(paper: &str, edit: &dyn Fn(Record) -> Option<Record>) -> tempfile::TempDir {
    mutated_files(paper, &|rows: Vec<Record>| rows.into_iter().filter_map(edit).collect())
}

/// The same, each file's rows passed through `edit` at once.
fn mutated_files(paper: &str, edit: &dyn Fn(Vec<Record>) -> Vec<Record>) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for folder in [paper, "hardware"] {
        let from = Path::new(ROOT).join("reports").join(folder).join("records");
        let to = tmp.path().join(folder).join("records");
        std::fs::create_dir_all(&to).unwrap();
        for f in records::record_files(&from) {
            let rows = edit(records::read_parquet(&f).unwrap());
            if !rows.is_empty() {
                records::write_parquet(&to.join(f.file_stem().unwrap()), &rows).unwrap();
            }
        }
    }
    tmp
}

type Verdicts = BTreeMap<(String, String), ClaimResult>;

fn judged(paper: &str, out: &Path) -> Verdicts {
    let spec = SpecChoice { file: None, root: PathBuf::from(ROOT), allow_outside: false };
    experiments::judge(experiment(paper), out, &spec)
        .unwrap_or_else(|e| panic!("{paper}: {e:#}"))
        .into_iter()
        .map(|c| ((c.id.clone(), c.machine.clone()), c))
        .collect()
}

/// The verdicts on an unaltered copy, judged once per paper for every test.
fn baseline(paper: &str) -> Verdicts {
    static CACHE: std::sync::Mutex<BTreeMap<String, Verdicts>> = std::sync::Mutex::new(BTreeMap::new());
    if let Some(v) = CACHE.lock().unwrap().get(paper) {
        return v.clone();
    }
    let v = judged(paper, mutated(paper, &Some).path());
    CACHE.lock().unwrap().insert(paper.to_owned(), v.clone());
    v
}

/// Where a verdict lies on the line falls short → inconclusive → reproduced → inconclusive → exceeds.
fn position(c: &ClaimResult) -> Option<i32> {
    let o = &c.outcome;
    Some(match &o.verdict {
        Verdict::NotRun(_) | Verdict::Incomplete { .. } => return None,
        Verdict::Reproduced => 2,
        Verdict::Inconclusive { .. } => match &o.quantity {
            Some(q) if q.ratio.value > (q.band.low * q.band.high).sqrt() => 3,
            _ => 1,
        },
        v => match v.direction() {
            Some(Direction::Exceeds) => 4,
            _ => 0,
        },
    })
}

fn label(v: &Verdicts, key: &(String, String)) -> String {
    v.get(key).map_or("(absent)".into(), |c| c.outcome.label())
}

#[test]
fn a_machine_under_its_old_id_is_the_same_machine() {
    for p in papers() {
        let base = baseline(p.paper);
        // A signed machine's later files written as before the signature joined
        // its id (every row, ceilings included); its first file keeps the new id.
        let seen = std::cell::RefCell::new(std::collections::BTreeSet::new());
        let aliased = mutated_files(p.paper, &|rows: Vec<Record>| {
            let ids: std::collections::BTreeSet<String> =
                rows.iter().filter(|r| !r.str(FingerprintRow::cpu_signature).is_empty()).map(|r| r.str(col::HW_ID).to_owned()).collect();
            let rename: std::collections::BTreeSet<String> = ids.iter().filter(|id| seen.borrow().contains(*id)).cloned().collect();
            seen.borrow_mut().extend(ids);
            rows.into_iter()
                .map(|mut r| {
                    if rename.contains(r.str(col::HW_ID)) {
                        let slug = r.str(FingerprintRow::cpu_signature).replace(' ', "-");
                        let old = r.str(col::HW_ID).replace(&format!("-{slug}"), "");
                        r.set(col::HW_ID, old);
                        r.set(FingerprintRow::cpu_signature, evorepro::records::Value::Null);
                    }
                    r
                })
                .collect()
        });
        let after = judged(p.paper, aliased.path());
        assert_eq!(base.len(), after.len(), "{}: claims × machines", p.paper);
        for (key, c) in &base {
            assert_eq!(label(&after, key), c.outcome.label(), "{} {key:?}", p.paper);
        }
    }
}

#[test]
fn stand_ins_never_decide_a_paper_claim() {
    for p in papers() {
        let Some((column, sets)) = p.stand_ins else { continue };
        let base = baseline(p.paper);
        // Every time of the stand-in rows five times longer (dropping them would
        // leave their sweeps incomplete, which changes verdicts for another reason).
        let altered = mutated(p.paper, &|mut r: Record| {
            if sets.contains(&r.str(column)) {
                let times: Vec<(String, f64)> = r
                    .cells()
                    .filter(|(name, _)| name.ends_with("_ms") || name.ends_with("_s"))
                    .filter_map(|(name, _)| Some((name.to_owned(), r.float(name)?)))
                    .collect();
                for (name, t) in times {
                    r.set(&name, t * 5.0);
                }
            }
            Some(r)
        });
        let after = judged(p.paper, altered.path());
        for (key, c) in base.iter().filter(|(_, c)| c.is_paper()) {
            let now = after.get(key).map(|c| c.outcome.verdict.kind());
            assert_eq!(now, Some(c.outcome.verdict.kind()), "{} {key:?}: {} → {}", p.paper, c.outcome.label(), label(&after, key));
        }
    }
}

#[test]
fn ten_percent_either_way_moves_a_verdict_one_way_only() {
    for p in papers() {
        let base = baseline(p.paper);
        let scaled = |k: f64| {
            let dir = mutated(p.paper, &|mut r: Record| {
                if r.str(p.method) == p.scaled {
                    let times: Vec<(String, f64)> = r
                        .cells()
                        .filter(|(name, _)| (name.ends_with("_ms") || name.ends_with("_s")) && *name != CASE_SECONDS)
                        .filter_map(|(name, _)| Some((name.to_owned(), r.float(name)?)))
                        .collect();
                    for (name, t) in times {
                        r.set(&name, t * k);
                    }
                }
                Some(r)
            });
            judged(p.paper, dir.path())
        };
        let (faster, slower) = (scaled(0.9), scaled(1.1));
        for (key, c) in &base {
            let (Some(a), Some(b), Some(m)) = (faster.get(key).and_then(position), slower.get(key).and_then(position), position(c)) else {
                continue;
            };
            let monotone = (a <= m && m <= b) || (a >= m && m >= b);
            assert!(
                monotone,
                "{} {key:?}: {} at 0.9×, {} as recorded, {} at 1.1× of {}'s times",
                p.paper,
                label(&faster, key),
                c.outcome.label(),
                label(&slower, key),
                p.scaled
            );
        }
    }
}

#[test]
fn fewer_runs_never_reverse_a_decision() {
    for p in papers() {
        let base = baseline(p.paper);
        // The two lowest repeats of each case and method (runs numbered, or seeded).
        let cut = mutated_files(p.paper, &|rows: Vec<Record>| {
            let mut lowest: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
            for r in rows.iter().filter(|r| r.str(col::RECORD_KIND) == "measurement") {
                if let Some(i) = r.int(p.repeat) {
                    lowest.entry((r.str(col::CASE_ID).to_owned(), r.str(p.method).to_owned())).or_default().push(i);
                }
            }
            for v in lowest.values_mut() {
                v.sort_unstable();
                v.dedup();
                v.truncate(2);
            }
            rows.into_iter()
                .filter(|r| {
                    r.str(col::RECORD_KIND) != "measurement"
                        || r.int(p.repeat)
                            .is_none_or(|i| lowest[&(r.str(col::CASE_ID).to_owned(), r.str(p.method).to_owned())].contains(&i))
                })
                .collect()
        });
        let after = judged(p.paper, cut.path());
        for (key, c) in &base {
            let (was, now) = (c.outcome.verdict.kind(), after.get(key).map(|c| c.outcome.verdict.kind()));
            let reversed = matches!(
                (was, now),
                (VerdictKind::Reproduced, Some(VerdictKind::NotReproduced)) | (VerdictKind::NotReproduced, Some(VerdictKind::Reproduced))
            );
            assert!(!reversed, "{} {key:?}: {} with every run, {} with two", p.paper, c.outcome.label(), label(&after, key));
        }
    }
}

#[test]
fn swapping_two_methods_undoes_a_claim_that_one_is_faster() {
    for p in papers() {
        let base = baseline(p.paper);
        let (x, y) = p.swapped;
        let swapped = mutated(p.paper, &|mut r: Record| {
            let m = r.str(p.method).to_owned();
            if m == x {
                r.set(p.method, y);
            } else if m == y {
                r.set(p.method, x);
            }
            Some(r)
        });
        let after = judged(p.paper, swapped.path());
        for (key, _) in base.iter().filter(|(k, c)| p.faster.contains(&k.0.as_str()) && c.outcome.verdict == Verdict::Reproduced) {
            let now = after.get(key).map(|c| c.outcome.verdict.kind());
            assert_ne!(now, Some(VerdictKind::Reproduced), "{} {key:?}: still reproduced with {x} and {y} swapped", p.paper);
        }
    }
}

#[test]
fn another_runs_ceilings_never_move_a_verdict() {
    for p in papers() {
        let base = baseline(p.paper);
        let dir = mutated_files(p.paper, &|rows: Vec<Record>| {
            let later = rows.iter().filter_map(|r| r.int(col::RUN_ID)).max().unwrap_or(0) + 1;
            let copies: Vec<Record> = rows
                .iter()
                .filter(|r| r.str(col::RECORD_KIND) == "ceiling")
                .map(|r| {
                    let mut c = r.clone();
                    c.set(col::RUN_ID, later as u64);
                    // Device rates up, the core's clock down: a model's ratio of the two cannot cancel them.
                    for (unit, k) in [(records::GB_PER_S, 3.0), (records::GOP_PER_S, 3.0), (records::CPU_CLOCK_GHZ, 0.5)] {
                        if let Some(v) = r.float(unit) {
                            c.set(unit, k * v);
                        }
                    }
                    c
                })
                .collect();
            rows.into_iter().chain(copies).collect()
        });
        let after = judged(p.paper, dir.path());
        for (key, c) in &base {
            let a = &after[key];
            let value = |c: &ClaimResult| c.outcome.quantity.as_ref().map(|q| q.measured.value);
            assert!(
                a.outcome.verdict == c.outcome.verdict && value(a) == value(c) && a.outcome.evidence == c.outcome.evidence,
                "{} {key:?}: {} as recorded, {} with a later run of other ceilings; evidence as recorded: {}; with them: {}",
                p.paper,
                c.outcome.label(),
                a.outcome.label(),
                c.outcome.evidence,
                a.outcome.evidence
            );
        }
    }
}
