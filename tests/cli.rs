//! Drives the built `evorepro` binary: errors that name what to fix and write
//! nothing, and one end-to-end quick run on the CPU (report, re-render,
//! `--resume`, archiving).

use evorepro::hardware::LOAD_AVG_1M;
use evorepro::records::col;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs the binary from the crate root (where `experiments/*.toml` live).
fn evorepro<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evorepro")).args(args).current_dir(ROOT).output().expect("the evorepro binary starts")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every path below `dir` (files and folders), sorted; empty if `dir` is absent.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out.sort();
    out
}

fn assert_failed(o: &Output, what: &str) {
    assert!(!o.status.success(), "{what}: expected a non-zero exit\nstdout:\n{}\nstderr:\n{}", stdout(o), stderr(o));
}

fn assert_ok(o: &Output, what: &str) {
    assert!(o.status.success(), "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}", o.status.code(), stdout(o), stderr(o));
}

/// 1-based line of the first occurrence of `needle` in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).unwrap_or_else(|| panic!("`{needle}` not in the edited spec"));
    text[..at].matches('\n').count() + 1
}

/// `text` with the first occurrence of `from` after the line `after` replaced by `to`.
fn replace_after(text: &str, after: &str, from: &str, to: &str) -> String {
    let start = text.find(after).unwrap_or_else(|| panic!("`{after}` not in experiments/layout.toml"));
    let at = start + text[start..].find(from).unwrap_or_else(|| panic!("`{from}` not after `{after}` in experiments/layout.toml"));
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

fn spec_path() -> PathBuf {
    Path::new(ROOT).join("experiments/layout.toml")
}

#[test]
fn unknown_paper_lists_the_known_ones_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let o = evorepro(&["reproduce".as_ref(), "nosuch".as_ref(), "--out".as_ref(), tmp.path().as_os_str()]);
    assert_failed(&o, "reproduce nosuch");
    let err = stderr(&o);
    assert!(err.contains("nosuch"), "stderr does not name the paper:\n{err}");
    for e in evorepro::experiments::registry() {
        assert!(err.contains(e.id), "stderr does not list the known paper `{}`:\n{err}", e.id);
    }
    assert_eq!(tree(tmp.path()), Vec::<PathBuf>::new(), "files were created");
}

#[test]
fn malformed_specs_name_file_line_and_key() {
    let original = std::fs::read_to_string(spec_path()).unwrap();
    struct Case {
        what: &'static str,
        /// The edited spec.
        text: String,
        /// The text the edit inserted (its line is the one to report).
        inserted: &'static str,
        /// true: a toml parse error ("line N, column M"); false: a validation error ("path:N:").
        parse_error: bool,
        /// Keys and values stderr must name.
        names: &'static [&'static str],
    }
    let cases = [
        Case {
            what: "syntax error",
            text: replace_after(&original, "[settings]", "block_search_tries = 3", "block_search_tries = = 3"),
            inserted: "block_search_tries = = 3",
            parse_error: true,
            names: &["block_search_tries"],
        },
        Case {
            what: "unknown key",
            text: replace_after(&original, "[settings]", "svm_cost = 100.0\n", "svm_cost = 100.0\nbogus_key = 1\n"),
            inserted: "bogus_key = 1",
            parse_error: true,
            names: &["bogus_key"],
        },
        Case {
            what: "negative SVM cost",
            text: replace_after(&original, "[settings]", "svm_cost = 100.0", "svm_cost = -1.0"),
            inserted: "svm_cost = -1.0",
            parse_error: false,
            names: &["settings.svm_cost", "-1"],
        },
        Case {
            what: "no block size",
            text: replace_after(&original, "[settings]", "block_sizes = [32, 64, 128, 256, 512, 1024]", "block_sizes = []"),
            inserted: "block_sizes = []",
            parse_error: false,
            names: &["settings.block_sizes"],
        },
        Case {
            what: "empty population",
            text: replace_after(&original, "[profiles.quick]", "[100, 100]", "[0, 100]"),
            inserted: "[0, 100]",
            parse_error: false,
            names: &["profiles.quick.sizes", "0×100"],
        },
        Case {
            what: "too many coordinates",
            text: replace_after(&original, "[profiles.quick]", "[100, 100]", "[100000, 100000]"),
            inserted: "[100000, 100000]",
            parse_error: false,
            names: &["profiles.quick.sizes", "100000×100000"],
        },
        Case {
            what: "unknown function",
            text: replace_after(&original, "[profiles.quick]", "\"rana\"]", "\"rana\", \"nosuchfn\"]"),
            inserted: "\"nosuchfn\"",
            parse_error: false,
            names: &["profiles.quick.functions", "nosuchfn"],
        },
        Case {
            what: "unknown GPU strategy",
            text: replace_after(&original, "[profiles.speed]", "\"S4-split\"]", "\"S4-split\", \"S9\"]"),
            inserted: "\"S9\"",
            parse_error: false,
            names: &["profiles.speed.gpu_strategies", "S9"],
        },
    ];
    for c in cases {
        let tmp = tempfile::tempdir().unwrap();
        let spec = tmp.path().join("layout.toml");
        let out = tmp.path().join("out");
        std::fs::write(&spec, &c.text).unwrap();
        let line = line_of(&c.text, c.inserted);
        let o = evorepro(&[
            "reproduce".as_ref(),
            "layout".as_ref(),
            "--spec".as_ref(),
            spec.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--backend".as_ref(),
            "cpu".as_ref(),
        ]);
        assert_failed(&o, c.what);
        let err = stderr(&o);
        let path = spec.display().to_string();
        assert!(err.contains(&path), "{}: stderr does not name {path}:\n{err}", c.what);
        let at = if c.parse_error { format!("line {line},") } else { format!("{path}:{line}:") };
        assert!(err.contains(&at), "{}: stderr lacks `{at}`:\n{err}", c.what);
        for n in c.names {
            assert!(err.contains(n), "{}: stderr does not name `{n}`:\n{err}", c.what);
        }
        assert!(!out.exists(), "{}: {} was created: {:?}", c.what, out.display(), tree(&out));
    }
}

#[test]
fn unknown_profile_lists_the_known_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let o = evorepro(&[
        "reproduce".as_ref(),
        "layout".as_ref(),
        "--profile".as_ref(),
        "nosuchprofile".as_ref(),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--out".as_ref(),
        tmp.path().as_os_str(),
    ]);
    assert_failed(&o, "unknown profile");
    let err = stderr(&o);
    assert!(err.contains("nosuchprofile"), "{err}");
    let exp = evorepro::experiments::find("layout").unwrap();
    let choice = evorepro::experiments::SpecChoice { file: Some(spec_path()), root: ROOT.into(), allow_outside: false };
    let paper = evorepro::experiments::load_paper(exp, &choice).unwrap();
    let known = paper.profiles();
    assert!(!known.is_empty());
    for p in known {
        assert!(err.contains(&p), "stderr does not list the profile `{p}`:\n{err}");
    }
    assert_eq!(tree(tmp.path()), Vec::<PathBuf>::new(), "files were created");
}

/// Measurement rows of one record file.
fn measurements(parquet: &Path) -> usize {
    evorepro::records::read_parquet(parquet).unwrap().iter().filter(|r| r.str(col::RECORD_KIND) == "measurement").count()
}

/// Files directly in `dir` with extension `ext`.
fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn quick_profile_on_cpu_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path();
    let reproduce = |resume: bool| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "reproduce".as_ref(),
            "layout".as_ref(),
            "--profile".as_ref(),
            "quick".as_ref(),
            "--backend".as_ref(),
            "cpu".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ];
        if resume {
            args.push("--resume".as_ref());
        }
        let t0 = Instant::now();
        let o = evorepro(&args);
        (o, t0.elapsed())
    };

    // 1. A fresh run.
    let (o, first) = reproduce(false);
    assert_ok(&o, "reproduce layout --profile quick --backend cpu");
    eprintln!("quick profile on the CPU: {first:.1?}");
    let dir = out.join("layout");
    let report_path = dir.join("REPORT.md");
    let report = std::fs::read_to_string(&report_path).expect("REPORT.md written");
    for s in ["## Table 1", "not run here", "## Claims"] {
        assert!(report.contains(s), "REPORT.md lacks `{s}`");
    }
    let records = dir.join("records");
    let parquets = files_with(&records, "parquet");
    let csvs = files_with(&records.join(evorepro::records::CSV_DIR), "csv");
    assert_eq!(parquets.len(), 1, "{parquets:?}");
    // The measurements' CSV copy and the ceilings' beside it, under `_csv/`;
    // nothing but the Parquet file at the folder's top but `_`/`.` names (one data set).
    assert_eq!(csvs.len(), 2, "{csvs:?}");
    let top: Vec<PathBuf> = std::fs::read_dir(&records)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with(['_', '.']))
        .map(|e| e.path())
        .collect();
    assert_eq!(top, parquets, "{:?}", tree(&records));
    for f in parquets.iter().chain(&csvs) {
        let stem = f.file_stem().unwrap().to_str().unwrap().trim_end_matches(".ceilings");
        assert!(stem.ends_with("__quick"), "{}", f.display());
    }
    let stem = parquets[0].file_stem().unwrap().to_str().unwrap().to_owned();
    let hw_id = stem.trim_end_matches("__quick").to_owned();
    for ext in ["png", "svg"] {
        let chart = dir.join("figures").join(format!("{hw_id}__table1.{ext}"));
        assert!(chart.is_file(), "{} missing; figures: {:?}", chart.display(), tree(&dir.join("figures")));
        assert!(std::fs::metadata(&chart).unwrap().len() > 0, "{} is empty", chart.display());
    }
    let rows = measurements(&parquets[0]);
    assert!(rows > 0, "no measurement rows");

    // 2. Re-rendering from the same records gives the same report.
    let o = evorepro(&["report".as_ref(), "layout".as_ref(), "--out".as_ref(), out.as_os_str()]);
    assert_ok(&o, "report layout");
    let again = std::fs::read_to_string(&report_path).unwrap();
    assert!(again == report, "`report layout` rendered a different REPORT.md from the same records");

    // 3. --resume finds every case stored and runs none.
    let (o, resumed) = reproduce(true);
    assert_ok(&o, "reproduce --resume");
    eprintln!("--resume: {resumed:.1?}");
    assert!(resumed < Duration::from_secs(15) && resumed < first, "--resume took {resumed:?} (fresh run {first:?}); it should run no case");
    assert_eq!(files_with(&records, "parquet"), parquets);
    assert_eq!(measurements(&parquets[0]), rows, "--resume changed the measurement rows");

    // 4. Without --resume the earlier files are archived, not deleted. With --quiet
    // no progress line comes; the run still ends with its verdicts and the paths.
    let o = evorepro(&[
        "reproduce".as_ref(),
        "layout".as_ref(),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--quiet".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_ok(&o, "reproduce --quiet (second fresh run)");
    assert!(!stderr(&o).lines().any(|l| l.contains(" cases, ")), "--quiet printed progress:\n{}", stderr(&o));
    for needle in ["layout on this machine (", "paper claims: 0 of ", " not run here (--backend cpu)", "REPORT.md", "verdicts.json"] {
        assert!(stdout(&o).contains(needle), "the summary lacks `{needle}`:\n{}", stdout(&o));
    }
    let archive = records.join("_archive");
    let old_parquet = files_with(&archive, "parquet");
    let old_csv = files_with(&archive.join("_csv"), "csv");
    assert_eq!(old_parquet.len(), 1, "archive: {:?}", tree(&archive));
    assert_eq!(old_csv.len(), 2, "archive: {:?}", tree(&archive));
    for f in old_parquet.iter().chain(&old_csv) {
        let name = f.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(&stem), "archived file {name} is not named after {stem}");
    }
    assert!(evorepro::records::checksum_path(&old_parquet[0]).is_file(), "the checksum was not archived with its file");
    assert_eq!(measurements(&old_parquet[0]), rows, "the archived records lost rows");
    assert_eq!(files_with(&records, "parquet"), parquets, "the fresh run wrote no new record file");
    assert_eq!(measurements(&parquets[0]), rows);
}

#[test]
fn cuda_backend_without_cuda_fails_and_writes_nothing() {
    if let Ok(n) = evorepro::gpu::probe() {
        println!("skipping: CUDA is present here ({n} device(s))");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = evorepro(&[
        "reproduce".as_ref(),
        "layout".as_ref(),
        "--backend".as_ref(),
        "cuda".as_ref(),
        "--out".as_ref(),
        tmp.path().as_os_str(),
    ]);
    assert_failed(&o, "--backend cuda");
    let err = stderr(&o);
    assert!(err.contains("CUDA") || err.contains("libcuda"), "{err}");
    assert_eq!(tree(tmp.path()), Vec::<PathBuf>::new(), "files were created");
}

#[test]
fn list_and_hw_succeed() {
    let tmp = tempfile::tempdir().unwrap();
    let o = evorepro(&["list".as_ref(), "--out".as_ref(), tmp.path().as_os_str()]);
    assert_ok(&o, "list");
    let text = stdout(&o);
    for e in evorepro::experiments::registry() {
        assert!(text.contains(e.id), "list does not show `{}`:\n{text}", e.id);
    }
    // Every profile with its cases and time (unknown: an empty records folder).
    let line = text.lines().find(|l| l.trim_start().starts_with("profile quick")).expect("a line for the quick profile");
    assert!(line.contains(" cases, unknown") && line.contains("smoke profile: decides no paper claim"), "{line}");
    // Each profile's one-line description under it.
    let next = text.lines().skip_while(|l| !l.trim_start().starts_with("profile quick")).nth(1).unwrap();
    assert!(next.trim_start().starts_with("Smoke test:"), "{next}");
    // Then which of the paper's claims it can decide here: layout's all need a GPU.
    let claims = text.lines().skip_while(|l| !l.trim_start().starts_with("profile quick")).nth(2).unwrap().trim_start();
    if evorepro::gpu::probe().is_err() {
        assert_eq!(claims, "decides 0 of 12 claims here; 12 need a GPU");
    } else {
        assert_eq!(claims, "decides 0 of 12 claims here; 12 smoke profile");
    }

    let o = evorepro(&["hw"]);
    assert_ok(&o, "hw");
    let text = stdout(&o);
    for k in [col::HW_ID, "cpu_read_1t"] {
        assert!(text.contains(k), "hw does not print {k}:\n{text}");
    }
    // Without a GPU: one line says why, and no empty GPU field follows.
    if evorepro::gpu::probe().is_err() {
        assert!(text.lines().any(|l| l.starts_with("no CUDA device: ")), "{text}");
        assert!(!text.lines().any(|l| l.starts_with("gpu_") || l.starts_with("cuda_")), "{text}");
    }
}

/// `--dry-run` says claim by claim which of the paper's claims the profile can
/// decide on this machine, and why not (`--backend cpu`: as without a GPU).
#[test]
fn the_dry_run_says_which_claims_the_profile_can_decide_here() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().expect("a UTF-8 temporary folder");
    let o = evorepro(&["reproduce", "gboa", "--profile", "cpu", "--backend", "cpu", "--dry-run", "--out", out]);
    assert_ok(&o, "reproduce gboa --profile cpu --dry-run");
    let text = stdout(&o);
    let claims = text.split("## The claims this run can decide here\n\n").nth(1).unwrap_or_else(|| panic!("no claims section:\n{text}"));
    assert!(claims.starts_with("decides 3 of 8 claims here; 5 need a GPU."), "{claims}");
    for row in [
        "| `pboa_faster_than_sboa` | paper | decides |",
        "| `quality_kept` | harness | decides |",
        "| `speedup_over_sboa` | paper | cannot decide: needs a GPU (none here: --backend cpu) |",
    ] {
        assert!(claims.contains(row), "no `{row}` in:\n{claims}");
    }
    let o = evorepro(&["reproduce", "gboa", "--profile", "quick", "--backend", "cpu", "--dry-run", "--out", out]);
    assert_ok(&o, "reproduce gboa --dry-run");
    let text = stdout(&o);
    assert!(text.contains("| `pboa_faster_than_sboa` | paper | cannot decide: the profile plans none of its cases (ell in [1, 190], figure = table1, generations = 200) |"), "{text}");
    assert!(text.contains("| `quality_kept` | harness | cannot decide: the profile plans none of its cases"), "{text}");
    assert_eq!(tree(tmp.path()), Vec::<PathBuf>::new(), "the dry run wrote something");
}

#[test]
fn an_unreadable_records_file_is_named_list_skips_it_and_reproduce_stops_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let records = tmp.path().join("gboa").join("records");
    std::fs::create_dir_all(&records).unwrap();
    let junk = records.join("junk.parquet");
    std::fs::write(&junk, "not a parquet file").unwrap();
    let o = evorepro(&["list".as_ref(), "--out".as_ref(), tmp.path().as_os_str()]);
    assert_ok(&o, "list with a junk records file");
    let out = stdout(&o);
    assert!(out.contains("unreadable") && out.contains("junk.parquet"), "list does not name the junk file:\n{out}");
    assert!(out.contains("layout") && out.contains("island"), "list stopped at the junk file:\n{out}");
    let started = Instant::now();
    let o =
        evorepro(&["reproduce".as_ref(), "gboa".as_ref(), "--backend".as_ref(), "cpu".as_ref(), "--out".as_ref(), tmp.path().as_os_str()]);
    assert_failed(&o, "reproduce beside a junk records file");
    assert!(stderr(&o).contains("junk.parquet"), "the error does not name the file:\n{}", stderr(&o));
    assert!(started.elapsed() < Duration::from_secs(20), "the sweep ran before the records were checked");
    assert_eq!(files_with(&records, "parquet"), vec![junk], "a new records file was written");
}

#[test]
fn a_closed_pipe_ends_list_quietly_and_errors_name_their_cause_once() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_evorepro"))
        .arg("list")
        .current_dir(ROOT)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_ne!(o.status.code(), Some(101), "list panicked on the closed pipe:\n{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let o = evorepro(&["reproduce", "gboa", "--spec", "/nonexistent/spec.toml"]);
    assert_failed(&o, "a missing spec file");
    let err = stderr(&o);
    assert!(err.contains("/nonexistent/spec.toml") && err.matches("No such file").count() == 1, "{err}");
}

/// A profile name becomes a file name: one that would lead outside `--out` (or
/// into a subfolder no report reads) is refused before anything is written.
#[test]
fn a_profile_name_that_is_a_path_is_refused_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for bad in ["../../../../tmp/x/pwned", "a/b", "", "quick\\x"] {
        let o = evorepro(&[
            "reproduce".as_ref(),
            "island".as_ref(),
            "--profile".as_ref(),
            bad.as_ref(),
            "--out".as_ref(),
            tmp.path().as_os_str(),
        ]);
        assert_failed(&o, &format!("--profile {bad:?}"));
        assert!(stderr(&o).contains("letters, digits, `-` or `_`"), "{}", stderr(&o));
        let o =
            evorepro(&["merge".as_ref(), "island".as_ref(), "--profile".as_ref(), bad.as_ref(), "--out".as_ref(), tmp.path().as_os_str()]);
        assert_failed(&o, &format!("merge --profile {bad:?}"));
    }
    assert!(tree(tmp.path()).is_empty(), "written: {:?}", tree(tmp.path()));
}

/// `reproduce … 2>&1 | head -1`: the reader goes away at the first line; the run
/// goes on to its end, stores its cases and releases its lock.
#[test]
fn a_run_outlives_a_closed_pipe_and_releases_its_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_evorepro"))
        .args(["reproduce", "gboa", "--profile", "quick", "--backend", "cpu", "--max-cases", "3", "--out"])
        .arg(tmp.path())
        .current_dir(ROOT)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert!(status.success(), "the run ended with {status:?} when its pipes closed");
    let records = tmp.path().join("gboa").join("records");
    let files: Vec<PathBuf> = tree(&records);
    assert!(files.iter().any(|p| p.extension().is_some_and(|e| e == "parquet")), "no records stored: {files:?}");
    assert!(evorepro::records::WriterLock::take(&records).is_ok(), "the run's lock was not released: {files:?}");
}

#[test]
fn reproduce_help_lists_every_paper_with_its_profiles_and_version_names_the_commit() {
    let o = evorepro(&["reproduce", "--help"]);
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    for needle in ["layout", "ecga", "gboa", "biohel", "island", "profiles: ", "quick", "paper"] {
        assert!(help.contains(needle), "`reproduce --help` lacks `{needle}`:\n{help}");
    }
    let v = evorepro(&["--version"]);
    assert!(String::from_utf8_lossy(&v.stdout).contains("(commit "), "{}", String::from_utf8_lossy(&v.stdout));
}

/// The README's first command: a fresh run writes under `runs/` (ignored by git)
/// beside the current folder, and its summary says what this machine judged, then
/// how the committed reference runs stand.
#[test]
fn a_fresh_run_writes_under_runs_and_sets_this_machine_beside_the_references() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_evorepro"))
        .args(["--root", ROOT, "reproduce", "gboa", "--profile", "quick", "--backend", "cpu", "--max-cases", "1", "--quiet"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_ok(&o, "reproduce gboa without --out");
    assert!(tmp.path().join("runs/gboa/REPORT.md").is_file(), "written: {:?}", tree(tmp.path()));
    let text = stdout(&o);
    let this =
        text.lines().position(|l| l.starts_with("gboa on this machine (")).unwrap_or_else(|| panic!("no line for this machine:\n{text}"));
    let refs =
        text.lines().position(|l| l.starts_with("gboa reference runs committed in ")).unwrap_or_else(|| panic!("no references:\n{text}"));
    assert!(this < refs, "{text}");
    let committed =
        evorepro::report::index::PaperVerdicts::read(&Path::new(ROOT).join("reports"), "gboa").expect("committed gboa verdicts");
    for m in &committed.machines {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("  `{}` (", m.hw_id)))
            .unwrap_or_else(|| panic!("no line for {}:\n{text}", m.hw_id));
        assert!(line.contains(&committed.machine_line(&m.hw_id, false)), "{line}");
    }
    // Each row carries the load and clock at its case's start.
    let records = evorepro::experiments::records_dir(&tmp.path().join("runs"), "gboa");
    let file = evorepro::records::record_files(&records).into_iter().next().expect("a records file");
    let rows = evorepro::records::read_parquet(&file).unwrap();
    let measured: Vec<_> = rows.iter().filter(|r| r.str(col::RECORD_KIND) == "measurement").collect();
    assert!(!measured.is_empty() && measured.iter().all(|r| r.float(LOAD_AVG_1M).is_some()), "rows without {LOAD_AVG_1M}");
    // `runs/` in the repository is ignored: the first command leaves `git status` clean.
    let ignored = Command::new("git").args(["check-ignore", "-q", "runs/gboa/REPORT.md"]).current_dir(ROOT).status();
    // (Exit 128: not a git checkout, e.g. a source archive.)
    if let Ok(status) = ignored
        && status.code() != Some(128)
    {
        assert!(status.success(), "git does not ignore runs/");
    }
}

/// `selfcheck --paper` with a misspelt id names the paper before looking for a GPU;
/// `--backend`'s values each say what they do.
#[test]
fn selfcheck_names_an_unknown_paper_first_and_backends_have_help() {
    let o = evorepro(&["selfcheck", "--paper", "ecgaa"]);
    assert_failed(&o, "selfcheck --paper ecgaa");
    let err = stderr(&o);
    assert!(err.contains("unknown paper `ecgaa`") && !err.contains("libcuda"), "{err}");
    let help = stdout(&evorepro(&["reproduce", "--help"]));
    for needle in
        ["- cpu:", "The CPU parts only; the GPU parts are recorded as not run here", "- cuda:", "The GPU; refuses to start without one"]
    {
        assert!(help.contains(needle), "`reproduce --help` lacks `{needle}`:\n{help}");
    }
}

/// Paper ids are listed by `report --help` and `compare --help`, and a shell's completions offer them.
#[test]
fn paper_ids_are_listed_in_help_and_completions() {
    for command in ["report", "compare", "merge"] {
        let help = stdout(&evorepro(&[command, "--help"]));
        for e in evorepro::experiments::registry() {
            assert!(help.contains(e.id) && help.contains(e.title), "`{command} --help` lacks `{}`:\n{help}", e.id);
        }
    }
    let o = evorepro(&["completions", "bash"]);
    assert_ok(&o, "completions bash");
    let script = stdout(&o);
    assert!(script.contains("_evorepro") && script.contains("biohel") && script.contains("island"), "{script}");
}

/// `--version`'s commit is marked `-dirty` exactly when the sources differ from
/// it (build.rs), never for what a run rewrites (`reports/`, `runs/`) or docs.
#[test]
fn the_version_is_dirty_only_when_the_sources_differ() {
    let sources = ["src", "kernels", "experiments", "benches", "Cargo.toml", "Cargo.lock", "build.rs"];
    let status = Command::new("git").args(["status", "--porcelain", "--untracked-files=no", "--"]).args(sources).current_dir(ROOT).output();
    let Some(status) = status.ok().filter(|o| o.status.success()) else {
        println!("skipping: not a git checkout");
        return;
    };
    let version = stdout(&evorepro(&["--version"]));
    assert_eq!(version.contains("-dirty)"), !status.stdout.is_empty(), "{version}\n{}", String::from_utf8_lossy(&status.stdout));
}
