//! Record files: Parquet with a checksum and an appended tail, CSV copies, atomic writes, upgrades of older files, archives.
//!
//! A records folder holds its Parquet files alone at its top level, so that
//! pyarrow (`pyarrow.dataset.dataset(folder)`) and polars read it as one data
//! set; every other file lies under a name they skip (pyarrow's
//! `ignore_prefixes` default is `['.', '_']`):
//!
//! ```text
//! records/<hw_id>__<profile>.parquet        the records (the source of truth)
//! records/_sha256/<file>.sha256             each Parquet file's checksum
//! records/_csv/<stem>.csv, <stem>.ceilings.csv   CSV copies (measurements; ceilings)
//! records/_tail/<file>                      a running store's appended cases (Parquet)
//! records/_archive/                         superseded files, in the same layout
//! records/_shards/<profile>__shard-K-of-N/  one records folder per shard
//! records/.lock, .tmp*                      the writer's lock; an atomic write's temporary file
//! ```
//!
//! Folders written by an older evorepro kept every side file beside its
//! Parquet file (`<file>.sha256`, `<file>.tail`, `<stem>.csv`, `archive/`,
//! `shards/`): they are read as they are, and moved to this layout
//! ([`migrate_layout`]) by the next run that writes to the folder (every
//! writer takes its [`WriterLock`]) or by `evorepro records upgrade`.

use super::{CPU_CLOCK_GHZ, GB_PER_S, GOP_PER_S, Record, UTC, Value};
use crate::error::RecordError;
use crate::records::col;
use polars::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Builds a DataFrame with the union of the records' columns (first-seen order),
/// leaving out a column no record gives a value (every cell null).
/// A column holding integers and floats becomes Float64.
pub fn to_frame(records: &[Record]) -> PolarsResult<DataFrame> {
    let mut names: Vec<&str> = Vec::new();
    let mut seen = HashSet::new();
    for r in records {
        for (k, _) in r.cells() {
            if seen.insert(k) {
                names.push(k);
            }
        }
    }
    let mut columns = Vec::with_capacity(names.len());
    for name in names {
        let cells: Vec<&Value> = records.iter().map(|r| r.get(name)).collect();
        if cells.iter().all(|v| matches!(v, Value::Null)) {
            continue;
        }
        let kinds = |pred: fn(&Value) -> bool| cells.iter().any(|v| pred(v));
        let series = if kinds(|v| matches!(v, Value::Str(_))) {
            let v: Vec<Option<String>> = cells.iter().map(|c| (!matches!(c, Value::Null)).then(|| c.to_string())).collect();
            Series::new(name.into(), v)
        } else if kinds(|v| matches!(v, Value::Float(_))) {
            let v: Vec<Option<f64>> = cells
                .iter()
                .map(|c| match c {
                    Value::Float(x) => Some(*x),
                    Value::Int(x) => Some(*x as f64),
                    _ => None,
                })
                .collect();
            Series::new(name.into(), v)
        } else if kinds(|v| matches!(v, Value::Int(_))) {
            let v: Vec<Option<i64>> = cells.iter().map(|c| if let Value::Int(x) = c { Some(*x) } else { None }).collect();
            Series::new(name.into(), v)
        } else {
            let v: Vec<Option<bool>> = cells.iter().map(|c| if let Value::Bool(x) = c { Some(*x) } else { None }).collect();
            Series::new(name.into(), v)
        };
        columns.push(series.into_column());
    }
    DataFrame::new_infer_height(columns)
}

/// The inverse of [`to_frame`]: every row holds every column of the frame, in
/// the frame's order (a null cell as [`Value::Null`]), so that [`to_frame`] of
/// the rows read back orders the columns as the file does.
pub fn from_frame(df: &DataFrame) -> PolarsResult<Vec<Record>> {
    let mut rows = vec![Record::new(); df.height()];
    for col in df.columns() {
        let name = col.name().as_str();
        for (i, row) in rows.iter_mut().enumerate() {
            let v = match col.get(i)? {
                AnyValue::Null => Value::Null,
                AnyValue::Int64(x) => Value::Int(x),
                AnyValue::Int32(x) => Value::Int(x as i64),
                AnyValue::UInt32(x) => Value::Int(x as i64),
                AnyValue::UInt64(x) => Value::Int(x as i64),
                AnyValue::Float64(x) => Value::Float(x),
                AnyValue::Float32(x) => Value::Float(x as f64),
                AnyValue::Boolean(x) => Value::Bool(x),
                AnyValue::String(s) => Value::Str(s.to_owned()),
                AnyValue::StringOwned(s) => Value::Str(s.to_string()),
                other => Value::Str(other.to_string()),
            };
            row.cells.push((name.to_owned(), v));
        }
    }
    Ok(rows)
}

/// Writes `bytes` to `path` atomically: a temporary file (`.tmp*`) in the same
/// folder, flushed to disk, then renamed over the target. On any error the
/// temporary file is removed and the error names `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(path, bytes).map_err(|e| std::io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))
}

/// [`write_atomic`] with the bare cause as its error (for callers that name the file themselves).
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // Dropping the temporary file on an early return (or a failed persist) deletes it.
    // Created as 0666 less the user's umask, as any other file (tempfile's default is 0600).
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Where CSV copies lie, under a records folder.
pub const CSV_DIR: &str = "_csv";
/// Where checksum files lie, under the folder of the files they check.
pub const SHA256_DIR: &str = "_sha256";
/// Where a running store's tails lie, under a records folder.
pub const TAIL_DIR: &str = "_tail";
/// Where superseded record files are kept, under a records folder.
pub const ARCHIVE_DIR: &str = "_archive";
/// Where the shards of a job array keep their records folders, under a records folder.
pub const SHARDS_DIR: &str = "_shards";

/// `dir/sub/name`, where `file` is `dir/name`.
fn beside(file: &Path, sub: &str, suffix: &str) -> PathBuf {
    let dir = file.parent().unwrap_or(Path::new(""));
    let mut name = file.file_name().unwrap_or_default().to_owned();
    name.push(suffix);
    dir.join(sub).join(name)
}

/// `<file>` with `suffix` appended to its name, in its folder.
fn suffixed(file: &Path, suffix: &str) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The checksum file of a records file `<dir>/<file>`: `<dir>/_sha256/<file>.sha256`,
/// holding the hex SHA-256 of the file's bytes as they were written.
pub fn checksum_path(parquet: &Path) -> PathBuf {
    beside(parquet, SHA256_DIR, ".sha256")
}

/// Where an older evorepro kept a file's checksum: `<file>.sha256`, beside it.
pub fn legacy_checksum_path(file: &Path) -> PathBuf {
    suffixed(file, ".sha256")
}

/// The checksum file that holds `file`'s hash: [`checksum_path`], else (a
/// folder not yet migrated) [`legacy_checksum_path`] where only that exists.
fn existing_checksum(file: &Path) -> PathBuf {
    let sum = checksum_path(file);
    let legacy = legacy_checksum_path(file);
    if !sum.exists() && legacy.exists() { legacy } else { sum }
}

pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn parquet_bytes(df: &mut DataFrame) -> PolarsResult<Vec<u8>> {
    let mut buf = Vec::new();
    ParquetWriter::new(&mut buf).with_compression(ParquetCompression::Zstd(None)).finish(df)?;
    Ok(buf)
}

pub(super) fn csv_bytes(df: &mut DataFrame) -> PolarsResult<Vec<u8>> {
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).include_header(true).finish(df)?;
    Ok(buf)
}

/// Columns renamed so that each name says its unit, `(old, new)`. Every record
/// file is read with the new names ([`read_parquet`]), so folders written before
/// the rename still render; `evorepro records upgrade` ([`upgrade`]) rewrites them.
pub const RENAMED_COLUMNS: [(&str, &str); 4] =
    [("gbs", GB_PER_S), ("gops", GOP_PER_S), ("ghz", CPU_CLOCK_GHZ), ("link_gbs", "link_gb_per_s")];

/// Gives the columns of [`RENAMED_COLUMNS`] their new names; returns the old
/// names found. A frame holding both a column's old and new name is refused.
fn rename_legacy_columns(df: &mut DataFrame) -> Result<Vec<&'static str>, String> {
    let mut renamed = Vec::new();
    for (old, new) in RENAMED_COLUMNS {
        if df.column(old).is_err() {
            continue;
        }
        if df.column(new).is_ok() {
            return Err(format!("holds both the column `{old}` and its new name `{new}`"));
        }
        df.rename(old, new.into()).map_err(|e| e.to_string())?;
        renamed.push(old);
    }
    Ok(renamed)
}

/// Reads one Parquet record file with its tail ([`tail_path`]: the cases a
/// running store added since it last rewrote the file), checking the bytes of
/// each against its checksum file when it has one (records written before
/// checksums were kept have none).
pub fn read_parquet(path: &Path) -> Result<Vec<Record>, RecordError> {
    let (mut rows, tail) = read_main_and_tail(path)?;
    rows.extend(tail);
    Ok(rows)
}

/// The rows of a record file and those of its live tail apart. A tail whose
/// first case the file already holds is stale (the file was rewritten with
/// every row, and a kill came before the tail's removal) and reads as empty.
pub(super) fn read_main_and_tail(path: &Path) -> Result<(Vec<Record>, Vec<Record>), RecordError> {
    let main = parse_parquet(path, &read_verified(path)?)?;
    let Some(tail_file) = live_tail(path) else {
        return Ok((main, Vec::new()));
    };
    let tail = parse_parquet(&tail_file, &read_verified(&tail_file)?)?;
    let case = |r: &Record| (r.str(col::RECORD_KIND) == "measurement").then(|| r.str(col::CASE_ID).to_owned());
    let stale = tail.iter().find_map(case).is_some_and(|first| main.iter().filter_map(case).any(|id| id == first));
    Ok((main, if stale { Vec::new() } else { tail }))
}

/// Where a [`RecordStore`] keeps the cases finished since it last rewrote
/// `<dir>/<file>`: `<dir>/_tail/<file>`, a Parquet file with its own checksum
/// file, so that storing a case costs the size of the tail, not of the whole sweep so far.
pub fn tail_path(parquet: &Path) -> PathBuf {
    beside(parquet, TAIL_DIR, "")
}

/// Where an older evorepro kept the tail: `<file>.tail`, beside the file.
fn legacy_tail_path(parquet: &Path) -> PathBuf {
    suffixed(parquet, ".tail")
}

/// The tail of `parquet` on disk, if any: [`tail_path`], else the one an older evorepro left beside the file.
pub(super) fn live_tail(parquet: &Path) -> Option<PathBuf> {
    [tail_path(parquet), legacy_tail_path(parquet)].into_iter().find(|t| t.exists())
}

fn read_err(path: &Path, e: &dyn fmt::Display) -> RecordError {
    RecordError::Read { path: path.to_owned(), message: e.to_string() }
}

/// The bytes of `path`, refused when they differ from those its checksum file
/// describes, or when it has none (a file without one is certified only by
/// `evorepro records upgrade`, [`certify`]). The checksum file may list two
/// hashes while a rewrite is under way (the new bytes, then the old): either reads.
pub(super) fn read_verified(path: &Path) -> Result<Vec<u8>, RecordError> {
    let bytes = std::fs::read(path).map_err(|e| read_err(path, &e))?;
    let sum = existing_checksum(path);
    let listed = match std::fs::read_to_string(&sum) {
        Ok(text) => text.split_whitespace().map(str::to_owned).collect::<Vec<_>>(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let message = format!(
                "no checksum file ({}): its bytes cannot be told from a corrupted copy; `evorepro records upgrade` certifies a \
                 file that parses and whose rows pass the records' schema and range checks",
                sum.display()
            );
            return Err(RecordError::Read { path: path.to_owned(), message });
        }
        Err(e) => return Err(read_err(&sum, &e)),
    };
    let expected = listed.first().cloned().unwrap_or_default();
    let found = sha256_hex(&bytes);
    if !listed.iter().any(|h| found.eq_ignore_ascii_case(h)) {
        let prefix = |h: &str| h.chars().take(16).collect::<String>();
        let message = format!(
            "its bytes changed after they were written: SHA-256 {}…, {} expects {}… (corrupted, or replaced without its checksum file)",
            prefix(&found),
            sum.display(),
            prefix(&expected)
        );
        return Err(RecordError::Read { path: path.to_owned(), message });
    }
    Ok(bytes)
}

/// The frame of a Parquet record file, with the columns' current names ([`RENAMED_COLUMNS`]) and the old names it held.
pub(super) fn parse_frame(path: &Path, bytes: &[u8]) -> Result<(DataFrame, Vec<&'static str>), RecordError> {
    let mut df = ParquetReader::new(std::io::Cursor::new(bytes)).finish().map_err(|e| read_err(path, &e))?;
    let renamed = rename_legacy_columns(&mut df).map_err(|e| read_err(path, &e))?;
    Ok((df, renamed))
}

fn parse_parquet(path: &Path, bytes: &[u8]) -> Result<Vec<Record>, RecordError> {
    let (df, _) = parse_frame(path, bytes)?;
    from_frame(&df).map_err(|e| read_err(path, &e))
}

/// Gives a records file written before checksums were kept its checksum file,
/// once its content reads as records; returns whether one was written.
pub fn certify(path: &Path) -> Result<bool, RecordError> {
    if existing_checksum(path).exists() {
        return Ok(false);
    }
    let sum = checksum_path(path);
    let bytes = std::fs::read(path).map_err(|e| read_err(path, &e))?;
    let rows = parse_parquet(path, &bytes)?;
    check_rows(path, &rows)?;
    replace(&sum, format!("{}\n", sha256_hex(&bytes)).as_bytes()).map_err(|e| write_err(&sum, &e))?;
    Ok(true)
}

/// The columns every record row carries, and the kinds a row may be.
const REQUIRED: [&str; 5] = [col::HW_ID, col::RECORD_KIND, col::RUN_ID, col::GIT_COMMIT, col::PROFILE];
const KINDS: [&str; 3] = ["measurement", "ceiling", "hw_ceiling"];

/// The records' schema and range checks: every row with the columns every row
/// carries and a known kind; no time, rate or bandwidth negative or not finite.
fn check_rows(path: &Path, rows: &[Record]) -> Result<(), RecordError> {
    let bad =
        |i: usize, what: String| RecordError::Read { path: path.to_owned(), message: format!("row {}: {what}; not certified", i + 1) };
    if rows.is_empty() {
        return Err(bad(0, "no rows".into()));
    }
    for (i, r) in rows.iter().enumerate() {
        if let Some(c) = REQUIRED.iter().find(|c| matches!(r.get(c), Value::Null)) {
            return Err(bad(i, format!("no `{c}`")));
        }
        if !KINDS.contains(&r.str(col::RECORD_KIND)) {
            return Err(bad(i, format!("record kind `{}` is none of {}", r.str(col::RECORD_KIND), KINDS.join(", "))));
        }
        for (k, v) in r.cells() {
            let measured = ["_ms", "_s", "_per_s", "_ghz"].iter().any(|u| k.ends_with(u));
            if let (true, Value::Float(x)) = (measured, v)
                && !(x.is_finite() && *x >= 0.0)
            {
                return Err(bad(i, format!("`{k}` = {x}")));
            }
        }
    }
    Ok(())
}

pub(super) fn write_err(p: &Path, e: &dyn fmt::Display) -> RecordError {
    RecordError::Write { path: p.to_owned(), message: e.to_string() }
}

/// Writes `records` as `<stem>.parquet` with its checksum file, each
/// atomically and in the order of [`write_frame_file`]: a kill at any point
/// leaves a file its checksum file accepts.
pub fn write_parquet(stem: &Path, records: &[Record]) -> Result<(), RecordError> {
    let parquet = stem.with_extension("parquet");
    let mut df = to_frame(records).map_err(|e| write_err(&parquet, &e))?;
    write_parquet_frame(&parquet, &mut df)
}

/// [`write_parquet`] of a frame as it stands (its columns' order and types
/// kept). The file then holds every row, so its tail, if any, is removed (a kill
/// before that leaves a stale tail, which [`read_parquet`] ignores).
pub(super) fn write_parquet_frame(parquet: &Path, df: &mut DataFrame) -> Result<(), RecordError> {
    write_frame_file(parquet, df)?;
    for tail in [tail_path(parquet), legacy_tail_path(parquet)] {
        remove_if_present(&checksum_path(&tail))?;
        remove_if_present(&legacy_checksum_path(&tail))?;
        remove_if_present(&tail)?;
    }
    Ok(())
}

/// Removes `path`; a file already gone is no error.
pub(super) fn remove_if_present(path: &Path) -> Result<(), RecordError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(write_err(path, &e)),
        _ => Ok(()),
    }
}

/// One Parquet file and its checksum file, each atomically: the checksum file
/// first lists the new bytes' hash and the old's, then the file is replaced,
/// then the checksum file lists the new hash alone, so a kill at any point
/// leaves a file its checksum file accepts.
/// A checksum file an older evorepro left beside the file is replaced by today's.
pub(super) fn write_frame_file(path: &Path, df: &mut DataFrame) -> Result<(), RecordError> {
    let sum = checksum_path(path);
    let bytes = parquet_bytes(df).map_err(|e| write_err(path, &e))?;
    let new = sha256_hex(&bytes);
    let old = std::fs::read_to_string(existing_checksum(path)).ok().and_then(|t| t.split_whitespace().next().map(str::to_owned));
    let both = old.filter(|o| path.exists() && *o != new);
    let listed = match &both {
        Some(old) => format!("{new}\n{old}\n"),
        None => format!("{new}\n"),
    };
    replace(&sum, listed.as_bytes()).map_err(|e| write_err(&sum, &e))?;
    replace(path, &bytes).map_err(|e| write_err(path, &e))?;
    if both.is_some() {
        replace(&sum, format!("{new}\n").as_bytes()).map_err(|e| write_err(&sum, &e))?;
    }
    remove_if_present(&legacy_checksum_path(path))
}

/// The CSV copy of the measurements of `<dir>/<stem>.parquet`: `<dir>/_csv/<stem>.csv`.
pub fn csv_path(stem: &Path) -> PathBuf {
    beside(stem, CSV_DIR, ".csv")
}

/// The CSV copy of a run's ceilings beside [`csv_path`]: `<dir>/_csv/<stem>.ceilings.csv`.
pub fn ceilings_csv_path(stem: &Path) -> PathBuf {
    beside(stem, CSV_DIR, ".ceilings.csv")
}

/// Every file that goes with `<stem>.parquet`, as [`archive`] and
/// [`rename_machine`] move or remove them: its checksum, its tail and the
/// tail's checksum, its two CSV copies.
pub(super) fn companions(parquet: &Path) -> [PathBuf; 5] {
    let stem = parquet.with_extension("");
    let tail = tail_path(parquet);
    [checksum_path(parquet), checksum_path(&tail), tail, csv_path(&stem), ceilings_csv_path(&stem)]
}

/// [`companions`] where an older evorepro kept them: beside the file.
pub(super) fn legacy_companions(parquet: &Path) -> [PathBuf; 5] {
    let stem = parquet.with_extension("");
    let tail = legacy_tail_path(parquet);
    [legacy_checksum_path(parquet), legacy_checksum_path(&tail), tail, suffixed(&stem, ".csv"), suffixed(&stem, ".ceilings.csv")]
}

/// Writes the human-readable copies of `records`, each atomically:
/// `_csv/<stem>.csv` with every row but the ceilings the run measured (record kind
/// `ceiling`), and `_csv/<stem>.ceilings.csv` with those; each copy without the
/// columns that are empty in it, so a spreadsheet of measurements has no
/// ceiling columns and the ceilings no case columns. Returns whether a file changed.
pub fn write_csv(stem: &Path, records: &[Record]) -> Result<bool, RecordError> {
    let csv = csv_path(stem);
    let df = to_frame(records).map_err(|e| write_err(&csv, &e))?;
    write_csv_frames(stem, &df)
}

pub(super) fn write_csv_frames(stem: &Path, df: &DataFrame) -> Result<bool, RecordError> {
    let csv = csv_path(stem);
    let ceilings_csv = ceilings_csv_path(stem);
    let split = |path: &Path, ceiling: bool| -> Result<Option<Vec<u8>>, RecordError> {
        let err = |e: PolarsError| write_err(path, &e);
        let is_ceiling = |v: AnyValue| match v {
            AnyValue::String(k) => k == "ceiling",
            AnyValue::StringOwned(k) => k == "ceiling",
            _ => false,
        };
        let kinds: Vec<bool> = match df.column("record_kind") {
            Ok(c) => (0..df.height()).map(|i| Ok(is_ceiling(c.get(i)?) == ceiling)).collect::<PolarsResult<_>>().map_err(err)?,
            Err(_) => vec![!ceiling; df.height()],
        };
        if ceiling && !kinds.contains(&true) {
            return Ok(None);
        }
        let part = df.filter(&BooleanChunked::from_slice("rows".into(), &kinds)).map_err(err)?;
        let kept: Vec<PlSmallStr> = part.columns().iter().filter(|c| c.null_count() < part.height()).map(|c| c.name().clone()).collect();
        let mut part = if part.height() == 0 { part } else { part.select(kept).map_err(err)? };
        csv_bytes(&mut part).map(Some).map_err(err)
    };
    // Copies an older evorepro wrote beside the Parquet file are stale once these are written.
    let mut changed = false;
    for legacy in [suffixed(stem, ".csv"), suffixed(stem, ".ceilings.csv")] {
        if legacy.exists() {
            remove_if_present(&legacy)?;
            changed = true;
        }
    }
    for (path, bytes) in [(&csv, split(&csv, false)?), (&ceilings_csv, split(&ceilings_csv, true)?)] {
        match bytes {
            Some(b) if std::fs::read(path).ok().as_ref() != Some(&b) => {
                replace(path, &b).map_err(|e| write_err(path, &e))?;
                changed = true;
            }
            Some(_) => {}
            None => match std::fs::remove_file(path) {
                Ok(()) => changed = true,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(write_err(path, &e)),
            },
        }
    }
    Ok(changed)
}

/// Every records folder under a reports root: `out/<paper or hardware>/records/`
/// and each shard's folder under its `_shards/` (and `shards/`, an older layout's), sorted.
pub fn record_folders(out: &Path) -> Vec<PathBuf> {
    let subfolders = |dir: &Path| -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> =
            std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        dirs.sort();
        dirs
    };
    let mut folders = Vec::new();
    for paper in subfolders(out) {
        let records = paper.join("records");
        if records.is_dir() {
            folders.push(records.clone());
            folders.extend(subfolders(&records.join(SHARDS_DIR)));
            folders.extend(subfolders(&records.join(LEGACY_SHARDS_DIR)));
        }
    }
    folders
}

/// Writes `records` as `<stem>.parquet` and its CSV copies ([`write_csv`]), each atomically.
pub fn write_records(stem: &Path, records: &[Record]) -> Result<(), RecordError> {
    write_parquet(stem, records)?;
    write_csv(stem, records).map(|_| ())
}

/// Moves `<stem>.parquet` and the files that go with it (checksum, tail, CSV
/// copies) to `_archive/`, in the same layout there (`_archive/<name>.<when>.parquet`,
/// `_archive/_sha256/…`, `_archive/_csv/…`), each named by when the archived
/// records were taken: the latest [`UTC`] of its rows (`20261126T034207Z`),
/// else — records from before the column — the file's modification time; the
/// next free second when an archive of that second exists, so none is overwritten.
pub fn archive(stem: &Path) -> std::io::Result<()> {
    use chrono::{DateTime, Utc};
    let dir = stem.parent().unwrap_or(Path::new(".")).join(ARCHIVE_DIR);
    std::fs::create_dir_all(&dir)?;
    let name = stem.file_name().and_then(|n| n.to_str()).unwrap_or("records");
    let parquet = stem.with_extension("parquet");
    let recorded = read_parquet(&parquet)
        .ok()
        .and_then(|rows| rows.iter().filter_map(|r| DateTime::parse_from_rfc3339(r.str(UTC)).ok()).max())
        .map(|t| t.with_timezone(&Utc));
    let mut when = recorded
        .or_else(|| std::fs::metadata(&parquet).and_then(|m| m.modified()).ok().map(DateTime::<Utc>::from))
        .unwrap_or_else(Utc::now);
    let stamp = |t: &DateTime<Utc>| t.format("%Y%m%dT%H%M%SZ").to_string();
    let target = |t: &DateTime<Utc>| dir.join(format!("{name}.{}.parquet", stamp(t)));
    let taken = |to: &Path| std::iter::once(to.to_owned()).chain(companions(to)).any(|f| f.exists());
    while taken(&target(&when)) {
        when += chrono::Duration::seconds(1);
    }
    let to = target(&when);
    // An older layout's companions first, so that today's (written later, where both are left) win.
    let moves = std::iter::once((parquet.clone(), to.clone()))
        .chain(legacy_companions(&parquet).into_iter().zip(companions(&to)))
        .chain(companions(&parquet).into_iter().zip(companions(&to)));
    for (from, to) in moves {
        if from.exists() {
            std::fs::create_dir_all(to.parent().expect("a folder"))?;
            std::fs::rename(&from, &to)?;
        }
    }
    Ok(())
}

/// The shard folders' folder of an older layout (today's: [`SHARDS_DIR`]).
pub const LEGACY_SHARDS_DIR: &str = "shards";
/// The archive of an older layout (today's: [`ARCHIVE_DIR`]).
const LEGACY_ARCHIVE_DIR: &str = "archive";

/// Moves the files an older evorepro kept beside the Parquet files of `dir`
/// to today's layout (the module's documentation), each renamed, its bytes
/// as they were (so every checksum still holds): `<file>.sha256` to
/// `_sha256/`, `<file>.tail` (and its checksum) to `_tail/`, `*.csv` to
/// `_csv/`, `archive/` to `_archive/` (its files left as they were taken,
/// read as they are), and each shard folder of `shards/` to `_shards/`, its
/// own files moved alike — but not one a run is writing to (its lock is held).
/// Where today's file exists already (written later), the older one is removed.
/// Takes the folder's [`WriterLock`]; returns how many files and folders moved.
pub fn migrate_layout(dir: &Path) -> Result<usize, RecordError> {
    let lock = WriterLock::lock(dir)?;
    let moved = move_legacy_files(dir)?;
    drop(lock);
    Ok(moved)
}

/// [`migrate_layout`] with the folder's lock held by the caller.
fn move_legacy_files(dir: &Path) -> Result<usize, RecordError> {
    let err = |p: &Path, e: std::io::Error| write_err(p, &e);
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    entries.sort();
    let mut moved = 0;
    for from in entries.iter().filter(|p| p.is_file()) {
        let name = from.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let parquet = |stem: &str| dir.join(format!("{stem}.parquet"));
        let to = if let Some(stem) = name.strip_suffix(".parquet.tail.sha256") {
            checksum_path(&tail_path(&parquet(stem)))
        } else if let Some(stem) = name.strip_suffix(".parquet.tail") {
            tail_path(&parquet(stem))
        } else if let Some(stem) = name.strip_suffix(".parquet.sha256") {
            checksum_path(&parquet(stem))
        } else if name.ends_with(".csv") {
            dir.join(CSV_DIR).join(name)
        } else {
            continue;
        };
        if to.exists() {
            remove_if_present(from)?;
        } else {
            std::fs::create_dir_all(to.parent().expect("a folder")).map_err(|e| err(dir, e))?;
            std::fs::rename(from, &to).map_err(|e| err(from, e))?;
        }
        moved += 1;
    }
    let archive = dir.join(LEGACY_ARCHIVE_DIR);
    if archive.is_dir() {
        moved += move_entries(&archive, &dir.join(ARCHIVE_DIR), |_| Ok(Some(())))?;
    }
    let shards = dir.join(LEGACY_SHARDS_DIR);
    if shards.is_dir() {
        moved += move_entries(&shards, &dir.join(SHARDS_DIR), |shard| {
            if !shard.is_dir() {
                return Ok(Some(None));
            }
            // A shard a run is writing to stays where that run writes it; the
            // others are locked (their own files moved) until they have moved.
            match WriterLock::take(shard) {
                Ok(lock) => Ok(Some(Some(lock))),
                Err(RecordError::Locked { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })?;
    }
    Ok(moved)
}

/// Moves each entry of `from` that `ready` accepts (returning a guard, held
/// while it moves) into `to` (a name `to` holds already stays where it is),
/// then removes `from` if it is left empty.
fn move_entries<G>(from: &Path, to: &Path, ready: impl Fn(&Path) -> Result<Option<G>, RecordError>) -> Result<usize, RecordError> {
    let err = |p: &Path, e: std::io::Error| write_err(p, &e);
    let mut moved = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(from).map_err(|e| err(from, e))?.flatten().map(|e| e.path()).collect();
    entries.sort();
    for entry in entries {
        let target = to.join(entry.file_name().expect("a name"));
        if target.exists() {
            continue;
        }
        let Some(guard) = ready(&entry)? else { continue };
        std::fs::create_dir_all(to).map_err(|e| err(to, e))?;
        std::fs::rename(&entry, &target).map_err(|e| err(&entry, e))?;
        drop(guard);
        moved += 1;
    }
    if std::fs::read_dir(from).map_err(|e| err(from, e))?.next().is_none() {
        std::fs::remove_dir(from).map_err(|e| err(from, e))?;
    }
    Ok(moved)
}

/// Every record file (`*.parquet`) directly in `dir`, sorted by name.
pub fn record_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    files
}

/// `<dir>/.lock`, locked ([`std::fs::File::try_lock`]) while a run writes
/// records to `dir`, with the run's pid in it. The system releases the lock when
/// the run ends, however it ends; the file stays.
pub struct WriterLock {
    _file: std::fs::File,
}

impl WriterLock {
    /// Locks `<dir>/.lock`, refusing while another run holds it, and moves the
    /// files of a folder an older evorepro wrote to today's layout
    /// ([`migrate_layout`]): every writer writes to a folder in today's layout.
    pub fn take(dir: &Path) -> Result<WriterLock, RecordError> {
        let lock = WriterLock::lock(dir)?;
        move_legacy_files(dir)?;
        Ok(lock)
    }

    /// Locks `<dir>/.lock`, refusing while another run holds it.
    fn lock(dir: &Path) -> Result<WriterLock, RecordError> {
        let path = dir.join(".lock");
        let err = |e: std::io::Error| RecordError::Write { path: path.clone(), message: e.to_string() };
        if let Some(file) = dir.ancestors().find(|a| a.exists() && !a.is_dir()) {
            let message = format!("{} is a file, not a folder: move it away, or use another --out", file.display());
            return Err(RecordError::Write { path: dir.to_owned(), message });
        }
        std::fs::create_dir_all(dir).map_err(err)?;
        let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(err)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let holder = std::fs::read_to_string(&path).unwrap_or_default();
                return Err(RecordError::Locked { path, holder: holder.trim().to_owned() });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(err(e)),
        }
        file.set_len(0).map_err(err)?;
        write!(file, "{}", std::process::id()).map_err(err)?;
        Ok(WriterLock { _file: file })
    }
}
