//! Tests of records: encoding, files, the store, upgrades.

use super::files::{csv_bytes, read_main_and_tail, sha256_hex, write_parquet_frame};
use super::*;
use crate::records::col;
use polars::prelude::*;
use std::path::{Path, PathBuf};

fn sample() -> Vec<Record> {
    vec![
        Record::new()
            .with(col::CASE_ID, "a")
            .with("n", 1)
            .with("t", 0.5)
            .with("ok", true)
            .with(col::RECORD_KIND, "measurement")
            .with(col::SPEC_HASH, "h"),
        Record::new()
            .with(col::CASE_ID, "b")
            .with("n", 2)
            .with("t", 2)
            .with("note", "x")
            .with(col::RECORD_KIND, "measurement")
            .with(col::SPEC_HASH, "h"),
    ]
}

#[test]
fn a_records_folder_that_is_a_file_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let records = tmp.path().join("island").join("records");
    std::fs::create_dir_all(records.parent().unwrap()).unwrap();
    std::fs::write(&records, "not a folder").unwrap();
    let e = WriterLock::take(&records.join("shards")).err().expect("a lock under a file").to_string();
    assert!(e.contains(&format!("{} is a file, not a folder", records.display())) && !e.contains("File exists"), "{e}");
}

#[test]
fn encoded_rows_decode_to_the_same_rows() {
    let mut rows = sample();
    rows[0].set("nan", f64::NAN);
    rows[1].set("empty", Value::Null);
    rows[1].set("neg", -7_i64);
    let bytes = encode_rows(&rows);
    let back = decode_rows(&bytes).unwrap();
    assert_eq!(back.len(), 2);
    assert!(back[0].float("nan").unwrap().is_nan());
    assert_eq!(back[1], rows[1]);
    assert_eq!(back[0].cells().map(|(k, _)| k).collect::<Vec<_>>(), rows[0].cells().map(|(k, _)| k).collect::<Vec<_>>());
    assert!(decode_rows(&bytes[..bytes.len() - 1]).is_none(), "cut short");
    assert!(decode_rows(&[bytes.as_slice(), &[0]].concat()).is_none(), "trailing bytes");
}

#[test]
fn frame_round_trip_keeps_types_and_nulls() {
    let df = to_frame(&sample()).unwrap();
    assert_eq!(df.height(), 2);
    let back = from_frame(&df).unwrap();
    assert_eq!(back[0].int("n"), Some(1));
    assert_eq!(back[1].float("t"), Some(2.0));
    assert_eq!(back[0].get("note"), &Value::Null);
    assert_eq!(back[1].str("note"), "x");
    assert_eq!(back[0].get("ok"), &Value::Bool(true));
}

#[test]
fn store_appends_resumes_and_archives() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = RecordStore::open(dir.path(), "hw-quick", &["h"], false).unwrap();
    let rows = sample();
    s.append(Some("a"), vec![rows[0].clone()]).unwrap();
    assert!(dir.path().join("hw-quick.parquet").exists());
    assert!(!csv_path(&dir.path().join("hw-quick")).exists(), "the CSV copy waits for finish()");
    s.finish().unwrap();
    assert!(csv_path(&dir.path().join("hw-quick")).exists());
    drop(s);
    let s2 = RecordStore::open(dir.path(), "hw-quick", &["h"], true).unwrap();
    assert!(s2.is_done("a") && !s2.is_done("b"));
    assert_eq!(s2.rows().len(), 1);
    drop(s2);
    // Another spec refuses to resume, and leaves the file alone.
    let e = RecordStore::open(dir.path(), "hw-quick", &["other"], true).err().unwrap();
    assert!(e.to_string().contains("different spec"), "{e}");
    // The same spec under a newer hash definition resumes rows carrying its earlier hash.
    let again = RecordStore::open(dir.path(), "hw-quick", &["content", "h"], true).unwrap();
    assert!(again.is_done("a"));
    drop(again);
    assert_eq!(read_parquet(&dir.path().join("hw-quick.parquet")).unwrap().len(), 1);
    // A fresh run archives the old files instead of overwriting them, once its first case is stored.
    let mut s3 = RecordStore::open(dir.path(), "hw-quick", &["h"], false).unwrap();
    assert_eq!(s3.rows().len(), 0);
    s3.append(None, vec![rows[1].clone()]).unwrap();
    assert_eq!(read_parquet(&dir.path().join("hw-quick.parquet")).unwrap().len(), 1, "ceilings alone change nothing");
    s3.append(Some("b"), vec![rows[0].clone()]).unwrap();
    assert_eq!(read_parquet(&dir.path().join("hw-quick.parquet")).unwrap().len(), 2);
    let archived = record_files(&dir.path().join(ARCHIVE_DIR));
    assert_eq!(archived.len(), 1);
    assert_eq!(read_parquet(&archived[0]).unwrap().len(), 1);
}

#[test]
fn a_long_sweep_stores_its_cases_in_a_tail_that_reads_with_its_file_and_survives_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let case = |i: i64| {
        vec![Record::new().with(col::RECORD_KIND, "measurement").with(col::CASE_ID, format!("c{i}")).with("i", i).with(col::SPEC_HASH, "h")]
    };
    let parquet = dir.path().join("m.parquet");
    let tail = tail_path(&parquet);
    let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    for i in 0..20 {
        s.append(Some(&format!("c{i}")), case(i)).unwrap();
        let (main, t) = read_main_and_tail(&parquet).unwrap();
        assert_eq!(main.len() + t.len(), i as usize + 1, "every finished case is on disk");
        assert!(t.len() * TAIL_SHARE <= main.len(), "the tail stays within 1/{TAIL_SHARE} of the file: {} of {}", t.len(), main.len());
    }
    assert!(tail.exists() && checksum_path(&tail).exists(), "20 cases leave some in the tail");
    drop(s); // killed: no finish()
    // Resumed, every case is there, and a new case keeps the tail's.
    let mut s = RecordStore::open(dir.path(), "m", &["h"], true).unwrap();
    assert_eq!(s.finished_cases(), 20);
    s.append(Some("c20"), case(20)).unwrap();
    assert_eq!(read_parquet(&parquet).unwrap().len(), 21);
    s.finish().unwrap();
    assert!(!tail.exists() && !checksum_path(&tail).exists(), "finish() folds the tail into the file");
    let all: Vec<i64> = read_parquet(&parquet).unwrap().iter().map(|r| r.int("i").unwrap()).collect();
    assert_eq!(all, (0..21).collect::<Vec<_>>());
    drop(s);
    // A tail whose cases the file already holds (a kill between the file's
    // rewrite and the tail's removal) is stale and not read twice.
    let mut df = to_frame(&case(20)).unwrap();
    write_frame_file(&tail, &mut df).unwrap();
    assert_eq!(read_parquet(&parquet).unwrap().len(), 21);
    // A live tail is archived with its file and read with it there.
    let mut df = to_frame(&case(21)).unwrap();
    write_frame_file(&tail, &mut df).unwrap();
    assert_eq!(read_parquet(&parquet).unwrap().len(), 22);
    archive(&dir.path().join("m")).unwrap();
    let archived = record_files(&dir.path().join(ARCHIVE_DIR));
    assert_eq!(archived.len(), 1);
    assert_eq!(read_parquet(&archived[0]).unwrap().len(), 22);
    assert!(!tail.exists());
}

#[test]
fn upgrading_a_file_with_a_live_tail_keeps_the_tails_rows() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("m");
    write_records(&stem, &legacy_rows()).unwrap();
    let extra = vec![Record::new().with(col::RECORD_KIND, "measurement").with(col::CASE_ID, "z").with("gbs", 3.0)];
    let tail = tail_path(&stem.with_extension("parquet"));
    write_frame_file(&tail, &mut to_frame(&extra).unwrap()).unwrap();
    let before = read_parquet(&stem.with_extension("parquet")).unwrap().len();
    upgrade(&stem.with_extension("parquet")).unwrap();
    assert!(!tail.exists());
    assert_eq!(read_parquet(&stem.with_extension("parquet")).unwrap().len(), before);
}

#[test]
fn a_run_that_stores_no_case_leaves_the_earlier_records_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    s.append(Some("a"), sample()).unwrap();
    s.finish().unwrap();
    drop(s);
    let mut failed = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    failed.append(None, vec![sample()[0].clone()]).unwrap();
    failed.finish().unwrap();
    drop(failed);
    assert_eq!(read_parquet(&dir.path().join("m.parquet")).unwrap().len(), 2);
    assert_eq!(std::fs::read_to_string(csv_path(&dir.path().join("m"))).unwrap().lines().count(), 3);
    assert!(!dir.path().join(ARCHIVE_DIR).exists());
}

#[test]
fn a_killed_writers_temporary_files_are_removed_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".tmpAbC123"), "half a parquet").unwrap();
    let _s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    assert!(!dir.path().join(".tmpAbC123").exists());
}

/// The only byte offset of the little-endian f64 `v` in `bytes` (a small page
/// is kept uncompressed by zstd; a value neither the least nor the greatest of
/// its column is in no page statistics, only in the data page).
fn offset_of(bytes: &[u8], v: f64) -> usize {
    let at: Vec<usize> = bytes.windows(8).enumerate().filter(|(_, w)| *w == v.to_le_bytes()).map(|(i, _)| i).collect();
    assert_eq!(at.len(), 1, "{v} is stored once");
    at[0]
}

#[test]
fn a_flipped_byte_in_a_data_page_is_caught_by_the_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("m");
    let rows: Vec<Record> = [1.0, 1.234_567_89, 2.0].map(|ms| Record::new().with(col::CASE_ID, "a").with("wall_ms", ms)).into();
    write_records(&stem, &rows).unwrap();
    let parquet = stem.with_extension("parquet");
    assert!(checksum_path(&parquet).exists());
    assert_eq!(read_parquet(&parquet).unwrap(), rows);
    let mut bytes = std::fs::read(&parquet).unwrap();
    // The exponent byte of wall_ms: 1.23 becomes about 1.7e130 (the case).
    let at = offset_of(&bytes, 1.234_567_89) + 7;
    bytes[at] ^= 0x5b;
    std::fs::write(&parquet, &bytes).unwrap();
    let e = read_parquet(&parquet).unwrap_err().to_string();
    assert!(e.contains(&*parquet.to_string_lossy()) && e.contains("changed after they were written"), "{e}");
    // Without the checksum the file is refused, not read: the flip would
    // otherwise pass silently.
    std::fs::remove_file(checksum_path(&parquet)).unwrap();
    let e = read_parquet(&parquet).unwrap_err().to_string();
    assert!(e.contains("no checksum file"), "{e}");
}

/// Rows as an older evorepro wrote them: a ceiling under each old name, and
/// measurements with nulls, NaN and every type around them.
fn legacy_rows() -> Vec<Record> {
    let ceiling =
        |name: &str, column: &str, v: f64| Record::new().with(col::RECORD_KIND, "ceiling").with(col::CEILING, name).with(column, v);
    vec![
        ceiling("gpu_d2d", "gbs", 2915.25),
        ceiling("gpu_int32", "gops", 28_000.5),
        ceiling("cpu_clock", "ghz", 2.1),
        Record::new().with(col::RECORD_KIND, "measurement").with(col::CASE_ID, "a").with("n", 3).with("t", f64::NAN).with("ok", true),
        Record::new().with(col::RECORD_KIND, "measurement").with(col::CASE_ID, "b").with("link_gbs", 351.75).with("t", 0.1),
    ]
}

fn raw_frame(parquet: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(parquet).unwrap()).finish().unwrap()
}

#[test]
fn old_column_names_are_read_as_the_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("old");
    write_records(&stem, &legacy_rows()).unwrap();
    let rows = read_parquet(&stem.with_extension("parquet")).unwrap();
    let values: Vec<Option<f64>> = rows[..3].iter().map(ceiling_value).collect();
    assert_eq!(values, vec![Some(2915.25), Some(28_000.5), Some(2.1)]);
    assert_eq!(
        (rows[0].float(GB_PER_S), rows[1].float(GOP_PER_S), rows[2].float(CPU_CLOCK_GHZ)),
        (Some(2915.25), Some(28_000.5), Some(2.1))
    );
    assert_eq!(rows[4].float("link_gb_per_s"), Some(351.75));
    assert!(rows.iter().all(|r| r.cells().all(|(k, _)| !RENAMED_COLUMNS.iter().any(|(old, _)| *old == k))), "no old name is left");
    assert!(rows[3].float("t").unwrap().is_nan() && rows[3].int("n") == Some(3));
}

#[test]
fn a_machine_renamed_keeps_its_recorded_id_and_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let rows = |hw: &str| {
        (0..3).map(|i| Record::new().with(col::HW_ID, hw).with(col::RECORD_KIND, "measurement").with("i", i)).collect::<Vec<_>>()
    };
    write_records(&dir.path().join("old__speed"), &rows("old")).unwrap();
    let to = rename_machine(&dir.path().join("old__speed.parquet"), "old", "new").unwrap();
    assert_eq!(to, dir.path().join("new__speed.parquet"));
    assert!(!dir.path().join("old__speed.parquet").exists() && !csv_path(&dir.path().join("old__speed")).exists());
    let back = read_parquet(&to).unwrap();
    assert_eq!(back.len(), 3);
    assert!(back.iter().all(|r| r.str(col::HW_ID) == "new" && r.str("hw_id_recorded") == "old"));
    // Where the new name is taken, the file keeps its own (both are read).
    write_records(&dir.path().join("old__cpu"), &rows("old")).unwrap();
    write_records(&dir.path().join("new__cpu"), &rows("new")).unwrap();
    assert_eq!(rename_machine(&dir.path().join("old__cpu.parquet"), "old", "new").unwrap(), dir.path().join("old__cpu.parquet"));
    assert!(read_parquet(&dir.path().join("old__cpu.parquet")).unwrap().iter().all(|r| r.str(col::HW_ID) == "new"));
}

#[test]
fn upgrade_renames_the_columns_and_keeps_everything_else() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("old");
    write_records(&stem, &legacy_rows()).unwrap();
    let parquet = stem.with_extension("parquet");
    let before = raw_frame(&parquet);
    assert_eq!(upgrade(&parquet).unwrap().renamed, vec!["gbs", "gops", "ghz", "link_gbs"]);
    let after = raw_frame(&parquet);
    // Names: each old one replaced in place, the rest as they were.
    let renamed = |name: &str| RENAMED_COLUMNS.iter().find(|(old, _)| *old == name).map_or(name, |(_, new)| *new).to_owned();
    let names = |df: &DataFrame| df.get_column_names().iter().map(|n| n.to_string()).collect::<Vec<_>>();
    assert_eq!(names(&after), names(&before).iter().map(|n| renamed(n)).collect::<Vec<_>>());
    // Types, and every value as CSV prints it (floats to the last digit, NaN, nulls).
    assert_eq!(before.dtypes(), after.dtypes());
    let body = |mut df: DataFrame| String::from_utf8(csv_bytes(&mut df).unwrap()).unwrap().split_once('\n').unwrap().1.to_owned();
    assert_eq!(body(before), body(after));
    // The checksum was rewritten (the file reads), and so were the CSV copies.
    assert_eq!(read_parquet(&parquet).unwrap().len(), 5);
    let header = |path: PathBuf| std::fs::read_to_string(path).unwrap().lines().next().unwrap().to_owned();
    assert!(header(csv_path(&stem)).split(',').any(|c| c == "link_gb_per_s"));
    assert!(header(ceilings_csv_path(&stem)).contains("gb_per_s,gop_per_s,cpu_clock_ghz"));
    // A second upgrade finds nothing to do and leaves the bytes alone.
    let bytes = std::fs::read(&parquet).unwrap();
    assert_eq!(upgrade(&parquet).unwrap(), Upgrade::default());
    assert_eq!(std::fs::read(&parquet).unwrap(), bytes);
}

#[test]
fn upgrade_refuses_a_changed_file_and_one_with_both_names() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("both");
    write_records(&stem, &[Record::new().with("gbs", 1.0).with(GB_PER_S, 2.0)]).unwrap();
    let parquet = stem.with_extension("parquet");
    let e = read_parquet(&parquet).unwrap_err().to_string();
    assert!(e.contains("both.parquet") && e.contains("`gbs`") && e.contains("`gb_per_s`"), "{e}");
    assert!(upgrade(&parquet).is_err());
    let stem = dir.path().join("changed");
    write_records(&stem, &legacy_rows()).unwrap();
    let parquet = stem.with_extension("parquet");
    std::fs::write(checksum_path(&parquet), format!("{}\n", "0".repeat(64))).unwrap();
    let before = std::fs::read(&parquet).unwrap();
    assert!(upgrade(&parquet).unwrap_err().to_string().contains("changed after they were written"));
    assert_eq!(std::fs::read(&parquet).unwrap(), before, "left as it was");
}

/// `(header, rows)` of a CSV file.
fn csv_table(path: &Path) -> (Vec<String>, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    (lines.next().unwrap().split(',').map(str::to_owned).collect(), lines.count())
}

#[test]
fn no_written_column_is_empty_and_ceilings_have_their_own_csv() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("m");
    let mut rows = legacy_rows();
    for r in &mut rows {
        r.set("gap", Value::Null);
    }
    write_records(&stem, &rows).unwrap();
    let df = raw_frame(&stem.with_extension("parquet"));
    assert!(df.column("gap").is_err(), "a column of nulls only was written");
    assert!(df.columns().iter().all(|c| c.null_count() < df.height()));
    // The measurements' copy has no ceiling column, the ceilings' copy no case column.
    let (measured, n) = csv_table(&csv_path(&stem));
    assert_eq!(n, 2);
    assert_eq!(measured, ["record_kind", "case_id", "n", "t", "ok", "link_gbs"]);
    let (ceilings, n) = csv_table(&ceilings_csv_path(&stem));
    assert_eq!(n, 3);
    assert_eq!(ceilings, ["record_kind", "ceiling", "gbs", "gops", "ghz"]);
    // Records without ceilings (a hardware record's are `hw_ceiling`) keep one copy; a stale ceilings copy goes.
    write_records(&stem, &rows[3..]).unwrap();
    assert!(!ceilings_csv_path(&stem).exists());
    // An older file's column of nulls is left out by upgrade, and nothing else.
    let mut old = to_frame(&rows).unwrap();
    old.with_column(Series::new("gap".into(), vec![None::<f64>; rows.len()]).into()).unwrap();
    write_parquet_frame(&stem.with_extension("parquet"), &mut old).unwrap();
    let u = upgrade(&stem.with_extension("parquet")).unwrap();
    assert_eq!((u.dropped, u.csv), (vec!["gap".to_owned()], true));
    let names = |df: &DataFrame| df.get_column_names().iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let after = raw_frame(&stem.with_extension("parquet"));
    assert_eq!(
        names(&after),
        names(&old)
            .into_iter()
            .filter(|n| n != "gap")
            .map(|n| RENAMED_COLUMNS.iter().find(|(o, _)| *o == n).map_or(n.clone(), |(_, new)| new.to_string()))
            .collect::<Vec<_>>()
    );
    assert!(ceilings_csv_path(&stem).exists());
}

#[test]
fn archiving_moves_the_ceilings_copy_too() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    s.append(None, legacy_rows()[..1].to_vec()).unwrap();
    s.append(Some("a"), vec![sample()[0].clone()]).unwrap();
    s.finish().unwrap();
    drop(s);
    assert!(ceilings_csv_path(&dir.path().join("m")).exists());
    let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    s.append(Some("b"), vec![sample()[1].clone()]).unwrap();
    s.finish().unwrap();
    assert!(!ceilings_csv_path(&dir.path().join("m")).exists(), "this run measured no ceiling");
    let archived = record_files(&dir.path().join(ARCHIVE_DIR));
    assert!(ceilings_csv_path(&archived[0].with_extension("")).exists());
}

#[test]
fn record_folders_are_every_papers_and_shards() {
    let dir = tempfile::tempdir().unwrap();
    for d in ["ecga/records/_shards/quick__shard-1-of-2", "hardware/records", "layout/figures", "ecga/records/_archive"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    let found: Vec<PathBuf> = record_folders(dir.path()).iter().map(|p| p.strip_prefix(dir.path()).unwrap().to_owned()).collect();
    let expected: Vec<PathBuf> =
        ["ecga/records", "ecga/records/_shards/quick__shard-1-of-2", "hardware/records"].iter().map(PathBuf::from).collect();
    assert_eq!(found, expected);
    write_records(&dir.path().join("ecga/records/m"), &legacy_rows()).unwrap();
    write_records(&dir.path().join("ecga/records/_archive/m"), &legacy_rows()).unwrap();
    let upgraded = upgrade_folder(&dir.path().join("ecga/records")).unwrap();
    assert_eq!(upgraded.len(), 1);
    let archived = raw_frame(&dir.path().join("ecga/records/_archive/m.parquet"));
    assert!(archived.column("gbs").is_ok(), "archives are kept as they were taken");
    assert!(WriterLock::take(&dir.path().join("ecga/records")).is_ok(), "the lock goes with the upgrade");
}

/// What a reader of the folder as a data set would trip on: any entry at its
/// top but Parquet files and names starting with `_` or `.` (which pyarrow
/// and polars skip).
fn strays(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !(n.starts_with('_') || n.starts_with('.') || n.ends_with(".parquet") && dir.join(n).is_file()))
        .collect();
    found.sort();
    found
}

/// Moves the files of a folder in today's layout where an older evorepro kept
/// them (each side file beside its Parquet file, `archive/`, `shards/`).
fn to_older_layout(dir: &Path) {
    let mv = |from: PathBuf, to: PathBuf| std::fs::rename(from, to).unwrap();
    let files = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.is_file()).collect()
    };
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    for f in files(&dir.join(SHA256_DIR)).into_iter().chain(files(&dir.join(CSV_DIR))) {
        mv(f.clone(), dir.join(name(&f)));
    }
    for f in files(&dir.join(TAIL_DIR).join(SHA256_DIR)) {
        mv(f.clone(), dir.join(name(&f).replace(".parquet.sha256", ".parquet.tail.sha256")));
    }
    for f in files(&dir.join(TAIL_DIR)) {
        mv(f.clone(), dir.join(format!("{}.tail", name(&f))));
    }
    for d in [CSV_DIR, SHA256_DIR, TAIL_DIR].map(|d| dir.join(d)) {
        let _ = std::fs::remove_dir_all(d);
    }
    if dir.join(ARCHIVE_DIR).exists() {
        to_older_layout(&dir.join(ARCHIVE_DIR));
        mv(dir.join(ARCHIVE_DIR), dir.join("archive"));
    }
    if dir.join(SHARDS_DIR).exists() {
        for shard in std::fs::read_dir(dir.join(SHARDS_DIR)).unwrap().flatten() {
            to_older_layout(&shard.path());
        }
        mv(dir.join(SHARDS_DIR), dir.join(LEGACY_SHARDS_DIR));
    }
}

#[test]
fn a_folder_written_by_an_older_evorepro_reads_and_moves_to_todays_layout_at_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("island").join("records");
    // Today's layout, every kind of file: a file with a live tail and ceilings, an archive, two shards.
    let case = |i: i64| Record::new().with(col::RECORD_KIND, "measurement").with(col::CASE_ID, format!("c{i}")).with(col::SPEC_HASH, "h");
    let mut s = RecordStore::open(&records, "m", &["h"], false).unwrap();
    s.append(Some("c0"), vec![case(0)]).unwrap();
    s.finish().unwrap();
    drop(s);
    let mut s = RecordStore::open(&records, "m", &["h"], false).unwrap();
    s.append(None, vec![legacy_rows()[0].clone().with(col::SPEC_HASH, "h")]).unwrap();
    for i in 1..=10 {
        s.append(Some(&format!("c{i}")), vec![case(i)]).unwrap();
    }
    drop(s); // killed: the tail stays (its copies written as `report` writes missing ones)
    write_csv(&records.join("m"), &read_parquet(&records.join("m.parquet")).unwrap()).unwrap();
    for k in 1..=2 {
        write_records(&records.join(format!("_shards/quick__shard-{k}-of-2/m")), &[case(20 + k)]).unwrap();
    }
    let parquet = records.join("m.parquet");
    let tail = tail_path(&parquet);
    assert!(tail.exists() && ceilings_csv_path(&records.join("m")).exists());
    assert_eq!(strays(&records), Vec::<String>::new(), "today's layout: Parquet alone at the top");
    let sums: Vec<String> = [checksum_path(&parquet), checksum_path(&tail)].iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    let (main, live) = read_main_and_tail(&parquet).unwrap();

    to_older_layout(&records);
    assert_eq!(
        strays(&records),
        ["archive", "m.ceilings.csv", "m.csv", "m.parquet.sha256", "m.parquet.tail", "m.parquet.tail.sha256", "shards"],
        "the older layout, as the test means it"
    );
    // Read as it is: the file with its tail, the archive, the shards (found under `shards/`).
    assert_eq!(read_main_and_tail(&parquet).unwrap(), (main.clone(), live.clone()));
    assert_eq!(read_parquet(&record_files(&records.join("archive"))[0]).unwrap().len(), 1);
    let shards: Vec<PathBuf> = record_folders(dir.path()).into_iter().filter(|f| f != &records).collect();
    assert_eq!(shards.len(), 2);
    assert!(shards.iter().all(|d| d.starts_with(records.join(LEGACY_SHARDS_DIR)) && read_parquet(&d.join("m.parquet")).is_ok()));

    // A shard a run is writing to stays where it is; the next writer moves everything else, bytes unchanged.
    let running = WriterLock::take(&shards[1]).unwrap();
    let s = RecordStore::open(&records, "m", &["h"], true).unwrap();
    assert_eq!(s.rows().len(), main.len() + live.len(), "resumed with the tail's cases");
    drop(s);
    assert_eq!(strays(&records), ["shards"], "only the running shard is left in the older layout");
    assert!(tail.exists() && csv_path(&records.join("m")).exists());
    let after: Vec<String> = [checksum_path(&parquet), checksum_path(&tail)].iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    assert_eq!(after, sums, "files moved, not rewritten");
    assert_eq!(read_main_and_tail(&parquet).unwrap(), (main, live));
    let archived = record_files(&records.join(ARCHIVE_DIR));
    assert_eq!(archived.len(), 1);
    assert!(legacy_checksum_path(&archived[0]).exists(), "archives are kept as they were taken");
    assert_eq!(read_parquet(&archived[0]).unwrap().len(), 1);
    let moved = records.join(SHARDS_DIR).join("quick__shard-1-of-2");
    assert_eq!(strays(&moved), Vec::<String>::new());
    assert_eq!(read_parquet(&moved.join("m.parquet")).unwrap(), vec![case(21)]);
    // Once the shard's run ends, `records upgrade` moves it too; nothing is left to move after.
    drop(running);
    assert_eq!(migrate_layout(&records).unwrap(), 1);
    assert_eq!(strays(&records), Vec::<String>::new());
    assert!(!records.join(LEGACY_SHARDS_DIR).exists());
    assert_eq!(migrate_layout(&records).unwrap(), 0);
    assert_eq!(read_parquet(&records.join(SHARDS_DIR).join("quick__shard-2-of-2/m.parquet")).unwrap(), vec![case(22)]);
}

#[test]
fn archiving_prefers_todays_checksum_to_a_stale_one_beside_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("m");
    write_records(&stem, &sample()).unwrap();
    let parquet = stem.with_extension("parquet");
    std::fs::write(legacy_checksum_path(&parquet), format!("{}\n", "0".repeat(64))).unwrap();
    archive(&stem).unwrap();
    let archived = record_files(&dir.path().join(ARCHIVE_DIR));
    assert_eq!(read_parquet(&archived[0]).unwrap().len(), 2, "the archived file reads against today's checksum");
    assert!(!legacy_checksum_path(&parquet).exists() && !legacy_checksum_path(&archived[0]).exists());
}

#[test]
fn an_older_folder_is_upgraded_archived_and_renamed_from_where_its_files_lie() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("old__speed");
    let rows = |hw: &str| {
        (0..3).map(|i| Record::new().with(col::HW_ID, hw).with(col::RECORD_KIND, "measurement").with("gbs", i as f64)).collect::<Vec<_>>()
    };
    write_records(&stem, &rows("old")).unwrap();
    to_older_layout(dir.path());
    let parquet = stem.with_extension("parquet");
    // upgrade of one file (no lock, no migration): the file and its copies in today's places.
    assert_eq!(upgrade(&parquet).unwrap().renamed, vec!["gbs"]);
    assert!(checksum_path(&parquet).exists() && csv_path(&stem).exists());
    assert_eq!(strays(dir.path()), Vec::<String>::new(), "the older checksum and copies went with the rewrite");
    // archive and rename_machine take the older files along.
    to_older_layout(dir.path());
    archive(&stem).unwrap();
    let archived = record_files(&dir.path().join(ARCHIVE_DIR));
    assert!(checksum_path(&archived[0]).exists() && csv_path(&archived[0].with_extension("")).exists());
    assert_eq!(strays(dir.path()), Vec::<String>::new());
    write_records(&stem, &rows("old")).unwrap();
    to_older_layout(dir.path());
    let to = rename_machine(&parquet, "old", "new").unwrap();
    assert_eq!(to, dir.path().join("new__speed.parquet"));
    assert_eq!(strays(dir.path()), ["archive"], "the archive moves with the folder's migration, not a file's rename");
    assert_eq!(read_parquet(&to).unwrap().len(), 3);
}

#[test]
fn records_without_a_checksum_are_refused_until_certified() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("legacy");
    let rows = |t: f64| -> Vec<Record> {
        (0..2)
            .map(|i| {
                Record::new()
                    .with(col::HW_ID, "m")
                    .with(col::RECORD_KIND, "measurement")
                    .with(col::RUN_ID, 1)
                    .with(col::GIT_COMMIT, "abc")
                    .with(col::PROFILE, "quick")
                    .with(col::CASE_ID, format!("c{i}"))
                    .with("kernel_ms", t)
            })
            .collect()
    };
    write_records(&stem, &rows(1.5)).unwrap();
    let parquet = stem.with_extension("parquet");
    // A rewrite under way lists the new hash and the old: the old bytes still read.
    let old = std::fs::read(&parquet).unwrap();
    write_records(&stem, &rows(2.5)).unwrap();
    let new_sum = std::fs::read_to_string(checksum_path(&parquet)).unwrap();
    std::fs::write(checksum_path(&parquet), format!("{}{}\n", new_sum, sha256_hex(&old))).unwrap();
    std::fs::write(&parquet, &old).unwrap();
    assert_eq!(read_parquet(&parquet).unwrap()[0].float("kernel_ms"), Some(1.5));
    std::fs::remove_file(checksum_path(&parquet)).unwrap();
    let e = read_parquet(&parquet).unwrap_err().to_string();
    assert!(e.contains("no checksum file") && e.contains("records upgrade"), "{e}");
    assert!(certify(&parquet).unwrap());
    assert!(!certify(&parquet).unwrap(), "written once");
    assert_eq!(read_parquet(&parquet).unwrap().len(), 2);
    // Rows that fail the schema or range checks are not certified.
    let negative = dir.path().join("negative");
    write_records(&negative, &rows(-1.0)).unwrap();
    std::fs::remove_file(checksum_path(&negative.with_extension("parquet"))).unwrap();
    let e = certify(&negative.with_extension("parquet")).unwrap_err().to_string();
    assert!(e.contains("`kernel_ms` = -1") && e.contains("not certified"), "{e}");
    let mut no_kind = rows(1.0);
    no_kind[1].set(col::RECORD_KIND, "whatever");
    write_records(&dir.path().join("kind"), &no_kind).unwrap();
    std::fs::remove_file(checksum_path(&dir.path().join("kind.parquet"))).unwrap();
    assert!(certify(&dir.path().join("kind.parquet")).unwrap_err().to_string().contains("row 2: record kind `whatever`"));
    // A file that does not read gets no checksum.
    let junk = dir.path().join("junk.parquet");
    std::fs::write(&junk, "not a parquet file").unwrap();
    assert!(certify(&junk).unwrap_err().to_string().contains("junk.parquet"));
    assert!(!checksum_path(&junk).exists());
    // Checksums are not records.
    let files = record_files(dir.path());
    assert!(files.contains(&junk) && files.contains(&parquet) && files.iter().all(|p| p.extension().is_some_and(|e| e == "parquet")));
}

#[cfg(unix)]
#[test]
fn written_files_follow_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: umask only swaps the process's mask; it is restored at once.
    let mask = unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.md");
    write_atomic(&path, b"x").unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o666 & !(mask as u32), "umask {mask:o}");
}

#[test]
fn archives_made_within_one_second_keep_each_file() {
    let dir = tempfile::tempdir().unwrap();
    for (i, case) in ["a", "b", "c"].into_iter().enumerate() {
        let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
        s.append(Some(case), vec![sample()[0].clone(); i + 1]).unwrap();
    }
    let mut kept: Vec<usize> = record_files(&dir.path().join(ARCHIVE_DIR)).iter().map(|f| read_parquet(f).unwrap().len()).collect();
    kept.sort();
    assert_eq!(kept, vec![1, 2], "an archive of the same second replaced another");
}

#[test]
fn archives_are_named_by_when_their_records_were_taken() {
    let dir = tempfile::tempdir().unwrap();
    let taken = |t: &str| vec![sample()[0].clone().with(UTC, t)];
    let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    s.append(Some("a"), [taken("2025-01-02T03:04:05Z"), taken("2025-01-02T03:09:00Z")].concat()).unwrap();
    drop(s);
    let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    s.append(Some("b"), taken(&utc_now())).unwrap();
    let names: Vec<String> =
        record_files(&dir.path().join(ARCHIVE_DIR)).iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, vec!["m.20250102T030900Z.parquet"], "named by the latest row's time");
    assert!(chrono::DateTime::parse_from_rfc3339(&utc_now()).is_ok());
}

#[test]
fn archiving_moves_the_checksum_with_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    s.append(Some("a"), sample()).unwrap();
    drop(s);
    let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
    s.append(Some("b"), vec![sample()[1].clone()]).unwrap();
    let archived = record_files(&dir.path().join(ARCHIVE_DIR));
    assert_eq!(archived.len(), 1);
    assert!(checksum_path(&archived[0]).exists(), "the checksum stayed behind");
    assert_eq!(read_parquet(&archived[0]).unwrap().len(), 2, "the archived file reads against its own checksum");
    assert_eq!(read_parquet(&dir.path().join("m.parquet")).unwrap().len(), 1);
}

#[test]
fn a_failed_write_names_the_file_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let leftovers = || -> Vec<String> {
        std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".tmp"))
            .collect()
    };
    // The parent is a file: nothing can be created under it.
    std::fs::write(dir.path().join("plain"), "x").unwrap();
    let under_file = dir.path().join("plain").join("REPORT.md");
    let e = write_atomic(&under_file, b"report").unwrap_err().to_string();
    assert!(e.contains(&*under_file.to_string_lossy()), "{e}");
    // The target is a folder: the temporary file is written, the rename fails.
    let folder = dir.path().join("REPORT.md");
    std::fs::create_dir_all(folder.join("inside")).unwrap();
    let e = write_atomic(&folder, b"report").unwrap_err().to_string();
    assert!(e.contains(&*folder.to_string_lossy()), "{e}");
    // The same for a records file.
    std::fs::create_dir_all(dir.path().join("m.parquet").join("inside")).unwrap();
    let e = write_records(&dir.path().join("m"), &sample()).unwrap_err().to_string();
    assert!(e.contains("m.parquet"), "{e}");
    assert!(leftovers().is_empty(), "{:?}", leftovers());
}

#[test]
fn one_writer_per_records_folder() {
    let dir = tempfile::tempdir().unwrap();
    let first = RecordStore::open(dir.path(), "a", &["h"], false).unwrap();
    let e = RecordStore::open(dir.path(), "b", &["h"], false).err().unwrap().to_string();
    assert!(e.contains(".lock") && e.contains(&std::process::id().to_string()), "{e}");
    drop(first);
    assert!(RecordStore::open(dir.path(), "b", &["h"], false).is_ok(), "the lock goes with its store");
    // A lock file left by a process that is gone holds no lock.
    std::fs::write(dir.path().join(".lock"), "4294967290").unwrap();
    assert!(RecordStore::open(dir.path(), "b", &["h"], false).is_ok());
    // A lock another process holds is refused, naming its pid; released when that process ends.
    // (`-o`: flock holds the lock itself, not the command it runs.)
    let mut child = std::process::Command::new("flock").args(["-x", "-o"]).arg(dir.path().join(".lock")).args(["sleep", "10"]).spawn();
    if let Ok(child) = child.as_mut() {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while WriterLock::take(dir.path()).is_ok() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(RecordStore::open(dir.path(), "b", &["h"], false).is_err(), "a lock held by another process was taken");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(RecordStore::open(dir.path(), "b", &["h"], false).is_ok(), "the lock of a killed process stayed");
    }
}

/// A copy written again from the Parquet file (`report` after records came back as Parquet only) is the copy the
/// run wrote, byte for byte: rows read back keep every column in the file's order, null cells too. Before, a row
/// read back dropped its null cells, so a column null in the first row came later in the copy (issue #43's mend).
#[test]
fn a_csv_copy_written_again_from_the_parquet_file_is_the_runs_copy() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("m");
    let row = |ms: Option<f64>, kernel: Option<f64>| {
        Record::new().with(col::CASE_ID, "c0").with(col::METHOD, "cuda").with("kernel_ms", kernel).with("total_ms", ms)
    };
    let rows = [row(Some(1.5), None), row(Some(2.5), Some(0.5)), row(None, Some(0.7))];
    write_records(&stem, &rows).unwrap();
    let written = std::fs::read(csv_path(&stem)).unwrap();
    let back = read_parquet(&stem.with_extension("parquet")).unwrap();
    assert_eq!(back[0].cells().map(|(k, _)| k).collect::<Vec<_>>(), ["case_id", "method", "kernel_ms", "total_ms"]);
    assert_eq!(back[0].get("kernel_ms"), &Value::Null);
    assert!(!write_csv(&stem, &back).unwrap(), "the copy from the Parquet file is no change");
    assert_eq!(std::fs::read(csv_path(&stem)).unwrap(), written, "the copy keeps its bytes");
    let mut moved = back.clone();
    moved[2].set("total_ms", 3.5);
    assert!(write_csv(&stem, &moved).unwrap(), "another cell is a change");
}
