//! The committed record files are in today's layout (#22): every column name
//! says its unit where it has one, no column is empty in every row, and each
//! run's file has its CSV copies (measurements, and ceilings beside them).
//! Each records folder reads as one data set (#41): its Parquet files alone at
//! its top (side files under `_csv/`, `_sha256/`, `_archive/`, … which pyarrow
//! and polars skip), read together as one frame with the union of their columns.
//! A fresh run's files are checked the same way where the CLI tests run the
//! quick profiles (`common::reproduce_quick_cpu`).

mod common;

use std::path::Path;

#[test]
fn committed_record_files_name_their_units_and_have_no_empty_column() {
    // The H100 layout records' CSV copy is not committed (too large); the others are.
    let problems: Vec<String> = common::record_layout_problems(&Path::new(common::ROOT).join("reports"), true)
        .into_iter()
        .filter(|p| !(p.contains("layout/records/nvidia-") && p.ends_with("no CSV copy")))
        .collect();
    assert!(problems.is_empty(), "{} problems (`evorepro records upgrade` rewrites old files):\n{}", problems.len(), problems.join("\n"));
}

/// The one type two files' types of a column read as (polars' supertype, for the types records hold).
fn supertype(a: &polars::prelude::DataType, b: &polars::prelude::DataType) -> polars::prelude::DataType {
    use polars::prelude::DataType;
    match (a, b) {
        _ if a == b => a.clone(),
        (DataType::Null, t) | (t, DataType::Null) => t.clone(),
        _ if a.is_primitive_numeric() && b.is_primitive_numeric() => DataType::Float64,
        _ => DataType::String,
    }
}

/// The folder's Parquet files read with polars alone (no evorepro reader: no
/// checksum, no tail, no renamed column) as one frame: each file's columns
/// under their union, a column missing from a file null there, one type per
/// column (the supertype of the files' types), as `pl.concat(…,
/// how="diagonal_relaxed")` and pyarrow's unified schema read it.
fn folder_as_one_frame(dir: &Path) -> polars::prelude::DataFrame {
    use polars::prelude::*;
    let frames: Vec<DataFrame> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .map(|p| ParquetReader::new(std::fs::File::open(&p).unwrap()).finish().unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    let mut union: Vec<(PlSmallStr, DataType)> = Vec::new();
    for c in frames.iter().flat_map(|f| f.columns()) {
        match union.iter_mut().find(|(n, _)| n == c.name()) {
            Some((_, t)) => *t = supertype(t, c.dtype()),
            None => union.push((c.name().clone(), c.dtype().clone())),
        }
    }
    let mut all: Option<DataFrame> = None;
    for f in &frames {
        let columns: Vec<Column> = union
            .iter()
            .map(|(name, dtype)| match f.column(name.as_str()) {
                Ok(c) => c.cast(dtype).unwrap(),
                Err(_) => Column::full_null(name.clone(), f.height(), dtype),
            })
            .collect();
        let part = DataFrame::new(f.height(), columns).unwrap();
        match all.as_mut() {
            Some(a) => {
                a.vstack_mut(&part).unwrap();
            }
            None => all = Some(part),
        }
    }
    all.unwrap_or_default()
}

#[test]
fn each_committed_records_folder_reads_as_one_data_set() {
    let reports = Path::new(common::ROOT).join("reports");
    let folders = evorepro::records::record_folders(&reports);
    assert!(folders.len() >= 6, "{folders:?}");
    let problems: Vec<String> =
        common::record_layout_problems(&reports, false).into_iter().filter(|p| p.contains("top of a records folder")).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    for dir in folders {
        let frame = folder_as_one_frame(&dir);
        let files = evorepro::records::record_files(&dir);
        let mut names = std::collections::BTreeSet::new();
        let mut rows = 0;
        for f in &files {
            let one = evorepro::records::read_parquet(f).unwrap();
            rows += one.len();
            names.extend(one.iter().flat_map(|r| r.cells().map(|(k, _)| k.to_owned())));
        }
        assert_eq!(frame.height(), rows, "{}: every row of every file, once", dir.display());
        let columns: std::collections::BTreeSet<String> = frame.get_column_names().iter().map(|n| n.to_string()).collect();
        assert_eq!(columns, names, "{}: the union of the files' columns", dir.display());
        println!("{}: {} files, {rows} rows, {} columns", dir.strip_prefix(&reports).unwrap().display(), files.len(), columns.len());
    }
}
