//! Helpers shared by the tests that drive the built binary.
// Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use evorepro::records::col;
use std::process::{Command, Output};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs the binary from the crate root (where `experiments/*.toml` live).
pub fn evorepro<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evorepro")).args(args).current_dir(ROOT).output().expect("the evorepro binary starts")
}

/// Exit status and both streams, for assertion messages.
pub fn describe(o: &Output) -> String {
    format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", o.status.code(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// What is wrong with the record files under a reports root (#22): a column
/// under a name from before units were named, or empty in every row, in a
/// Parquet file or its CSV copies; a run's file without its CSV copy (where
/// `with_csv`: the large layout copies are not committed); anything at the top
/// of a records folder but its Parquet files and names starting with `_` or
/// `.` (#41: pyarrow and polars read the folder as one data set, skipping those).
pub fn record_layout_problems(out: &std::path::Path, with_csv: bool) -> Vec<String> {
    use evorepro::records::{RENAMED_COLUMNS, ceilings_csv_path, csv_path, record_files, record_folders};
    use polars::prelude::*;
    fn check(file: &std::path::Path, df: &DataFrame) -> Vec<String> {
        let mut problems = Vec::new();
        for c in df.columns() {
            if RENAMED_COLUMNS.iter().any(|(old, _)| c.name() == old) {
                problems.push(format!("{}: column `{}` (an old name)", file.display(), c.name()));
            }
            if c.null_count() == df.height() {
                problems.push(format!("{}: column `{}` is empty in all {} rows", file.display(), c.name(), df.height()));
            }
        }
        problems
    }
    let mut problems = Vec::new();
    let mut files = 0;
    for dir in record_folders(out) {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let parquet = name.ends_with(".parquet") && e.path().is_file();
            if !(parquet || name.starts_with('_') || name.starts_with('.')) {
                problems.push(format!("{}: not a Parquet file, at the top of a records folder read as one data set", e.path().display()));
            }
        }
        for parquet in record_files(&dir) {
            files += 1;
            let df = ParquetReader::new(std::fs::File::open(&parquet).unwrap()).finish().unwrap();
            problems.extend(check(&parquet, &df));
            let stem = parquet.with_extension("");
            if with_csv && !csv_path(&stem).exists() {
                problems.push(format!("{}: no CSV copy", parquet.display()));
            }
            for csv in [csv_path(&stem), ceilings_csv_path(&stem)].into_iter().filter(|c| c.exists()) {
                let df = CsvReadOptions::default()
                    .with_has_header(true)
                    .try_into_reader_with_file_path(Some(csv.clone()))
                    .unwrap()
                    .finish()
                    .unwrap();
                problems.extend(check(&csv, &df));
            }
        }
    }
    assert!(files > 0, "no record files under {}", out.display());
    problems
}

/// Runs `reproduce <paper> --profile quick --backend cpu --out <out>` and asserts success.
pub fn reproduce_quick_cpu(paper: &str, out: &std::path::Path) {
    let o = evorepro(&[
        "reproduce".as_ref(),
        paper.as_ref(),
        "--profile".as_ref(),
        "quick".as_ref(),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "reproduce {paper}: {}", describe(&o));
    // stderr is not a terminal here: progress comes as lines, the last one for the last case.
    let err = String::from_utf8_lossy(&o.stderr);
    let last = err.lines().rfind(|l| l.starts_with(&format!("{paper}: ")) && l.contains(" cases, "));
    assert!(last.is_some_and(|l| l.contains("about 0 s left")), "no progress line for the last case: {}", describe(&o));
    let problems = record_layout_problems(out, true);
    assert!(problems.is_empty(), "reproduce {paper}'s records:\n{}", problems.join("\n"));
}

/// Writes `spec` (a paper's shipped spec with `from` replaced by `to` once) to a
/// temporary file, runs `reproduce` with it, and asserts that it fails naming
/// the file and the edited line, every one of `names`, and writes nothing.
pub fn assert_spec_edit_rejected(paper: &str, from: &str, to: &str, names: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(std::path::Path::new(ROOT).join(format!("experiments/{paper}.toml"))).unwrap();
    let edited = original.replacen(from, to, 1);
    assert_ne!(edited, original, "experiments/{paper}.toml no longer has `{from}`");
    let line = edited[..edited.find(to).unwrap()].matches('\n').count() + 1;
    let spec = tmp.path().join("bad.toml");
    std::fs::write(&spec, &edited).unwrap();
    let out = tmp.path().join("out");
    let o = evorepro(&["reproduce".as_ref(), paper.as_ref(), "--spec".as_ref(), spec.as_os_str(), "--out".as_ref(), out.as_os_str()]);
    assert!(!o.status.success(), "`{to}` was accepted: {}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for needle in [format!("bad.toml:{line}")].into_iter().chain(names.iter().map(|s| s.to_string())) {
        assert!(err.contains(&needle), "stderr does not name `{needle}`:\n{err}");
    }
    assert!(!out.exists(), "files were written for a rejected spec");
}

/// Measurement rows per case stored in `out/<paper>/records/`.
pub fn stored_cases(out: &std::path::Path, paper: &str) -> std::collections::BTreeMap<String, usize> {
    let mut n = std::collections::BTreeMap::new();
    for f in evorepro::records::record_files(&out.join(paper).join("records")) {
        for r in evorepro::records::read_parquet(&f).unwrap() {
            if r.str(col::RECORD_KIND) == "measurement" {
                *n.entry(r.str(col::CASE_ID).to_owned()).or_insert(0) += 1;
            }
        }
    }
    n
}

/// `dir/REPORT.md` followed by the machine pages it links (`dir/machines/*.md`):
/// everything a reader reaches from the report.
pub fn report_with_pages(dir: &std::path::Path) -> String {
    let mut text = std::fs::read_to_string(dir.join("REPORT.md")).expect("REPORT.md written");
    let mut pages: Vec<_> = std::fs::read_dir(dir.join("machines")).expect("machine pages written").flatten().map(|e| e.path()).collect();
    pages.sort();
    for page in pages.iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        text += &std::fs::read_to_string(page).unwrap();
    }
    text
}

/// `out/<paper>/REPORT.md` with every number masked (times, rates and ratios
/// differ from run to run) and `out` written as `OUT`.
pub fn masked_report(out: &std::path::Path, paper: &str) -> String {
    let text = std::fs::read_to_string(out.join(paper).join("REPORT.md")).unwrap();
    // The busy-machine, spread-repeats and above-ceiling notes (and the ⚠ marks) record the load a run met, a
    // condition of the run and not a result: two runs of the same cases differ in them whenever other work came
    // and went between them.
    let notes = ["**Busy machine:**", "**Spread repeats:**", "**Above a ceiling:**"];
    let mut text: String = text
        .lines()
        .filter(|l| !notes.iter().any(|n| l.starts_with(n)))
        .map(|l| format!("{}\n", l.replace(&format!(" {}", evorepro::fmt::ABOVE_CEILING), "")))
        .collect();
    while text.contains("\n\n\n") {
        text = text.replace("\n\n\n", "\n\n");
    }
    let mut masked = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars() {
        let digit = c.is_ascii_digit() || (in_number && c == '.');
        if digit && !in_number {
            masked.push('#');
        } else if !digit {
            masked.push(c);
        }
        in_number = digit;
    }
    masked.replace(out.to_str().unwrap(), "OUT")
}
