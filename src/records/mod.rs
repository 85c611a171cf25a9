//! Raw records: one row per case × repetition, every parameter, seed, backend,
//! timing, hardware fingerprint, git commit and spec hash. Stored with polars as
//! Parquet (the source of truth) and CSV (for people and spreadsheets),
//! append-only, each file replaced atomically after every finished case so that
//! killing a run loses only the case in flight.

pub mod machine;

pub use machine::{HW_ID_RECORDED, MachineRecords, aliases, apply_aliases, by_machine};

use crate::error::RecordError;
use polars::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One cell of a record.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Null,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Str(v) => f.write_str(v),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Null => Ok(()),
        }
    }
}

macro_rules! value_from {
    ($t:ty, $v:ident => $e:expr) => {
        impl From<$t> for Value {
            fn from($v: $t) -> Value {
                $e
            }
        }
    };
}
value_from!(i64, v => Value::Int(v));
value_from!(i32, v => Value::Int(v as i64));
value_from!(u32, v => Value::Int(v as i64));
value_from!(usize, v => Value::Int(v as i64));
value_from!(u64, v => Value::Int(v as i64));
value_from!(f64, v => Value::Float(v));
value_from!(f32, v => Value::Float(v as f64));
value_from!(bool, v => Value::Bool(v));
value_from!(String, v => Value::Str(v));
value_from!(&str, v => Value::Str(v.to_owned()));
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// One row: named cells in insertion order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record {
    cells: Vec<(String, Value)>,
}

impl Record {
    pub fn new() -> Record {
        Record::default()
    }

    /// Sets a cell (replacing an earlier one of the same name); chainable.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Record {
        self.set(key, value);
        self
    }

    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        let value = value.into();
        match self.cells.iter_mut().find(|(k, _)| k == key) {
            Some(cell) => cell.1 = value,
            None => self.cells.push((key.to_owned(), value)),
        }
    }

    /// Appends every cell of `other` (overriding ours of the same name).
    pub fn extend(&mut self, other: &Record) {
        for (k, v) in &other.cells {
            self.set(k, v.clone());
        }
    }

    pub fn get(&self, key: &str) -> &Value {
        self.cells.iter().find(|(k, _)| k == key).map_or(&Value::Null, |(_, v)| v)
    }

    pub fn str(&self, key: &str) -> &str {
        match self.get(key) {
            Value::Str(s) => s,
            _ => "",
        }
    }

    pub fn int(&self, key: &str) -> Option<i64> {
        match *self.get(key) {
            Value::Int(v) => Some(v),
            Value::Float(v) if v.fract() == 0.0 => Some(v as i64),
            _ => None,
        }
    }

    pub fn float(&self, key: &str) -> Option<f64> {
        match *self.get(key) {
            Value::Float(v) => Some(v),
            Value::Int(v) => Some(v as f64),
            _ => None,
        }
    }

    pub fn cells(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.cells.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Rows as bytes that [`decode_rows`] turns back into exactly the same rows
/// (cell order, types, NaN and all): how a worker rank sends its rows to the writer.
pub fn encode_rows(rows: &[Record]) -> Vec<u8> {
    fn text(b: &mut Vec<u8>, s: &str) {
        b.extend((s.len() as u64).to_le_bytes());
        b.extend(s.as_bytes());
    }
    let mut b = Vec::new();
    b.extend((rows.len() as u64).to_le_bytes());
    for r in rows {
        b.extend((r.cells.len() as u64).to_le_bytes());
        for (k, v) in &r.cells {
            text(&mut b, k);
            match v {
                Value::Int(x) => {
                    b.push(0);
                    b.extend(x.to_le_bytes());
                }
                Value::Float(x) => {
                    b.push(1);
                    b.extend(x.to_bits().to_le_bytes());
                }
                Value::Str(x) => {
                    b.push(2);
                    text(&mut b, x);
                }
                Value::Bool(x) => b.extend([3, u8::from(*x)]),
                Value::Null => b.push(4),
            }
        }
    }
    b
}

/// The rows [`encode_rows`] wrote; None for bytes it did not write (cut short, or not rows).
pub fn decode_rows(bytes: &[u8]) -> Option<Vec<Record>> {
    struct Reader<'a>(&'a [u8]);
    impl Reader<'_> {
        fn take(&mut self, n: usize) -> Option<&[u8]> {
            let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
            self.0 = rest;
            Some(head)
        }
        fn u64(&mut self) -> Option<u64> {
            Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
        }
        fn text(&mut self) -> Option<String> {
            let n = usize::try_from(self.u64()?).ok()?;
            String::from_utf8(self.take(n)?.to_vec()).ok()
        }
    }
    let mut r = Reader(bytes);
    let n = r.u64()?;
    let mut rows = Vec::new();
    for _ in 0..n {
        let cells = r.u64()?;
        let mut row = Record::new();
        for _ in 0..cells {
            let key = r.text()?;
            let value = match r.take(1)?[0] {
                0 => Value::Int(r.u64()? as i64),
                1 => Value::Float(f64::from_bits(r.u64()?)),
                2 => Value::Str(r.text()?),
                3 => Value::Bool(r.take(1)?[0] != 0),
                4 => Value::Null,
                _ => return None,
            };
            row.cells.push((key, value));
        }
        rows.push(row);
    }
    r.0.is_empty().then_some(rows)
}

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

/// The inverse of [`to_frame`].
pub fn from_frame(df: &DataFrame) -> PolarsResult<Vec<Record>> {
    let mut rows = vec![Record::new(); df.height()];
    for col in df.columns() {
        let name = col.name().as_str();
        for (i, row) in rows.iter_mut().enumerate() {
            let v = match col.get(i)? {
                AnyValue::Null => continue,
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

/// The checksum file kept beside a records file: `<file>.sha256`, holding the
/// hex SHA-256 of the file's bytes as they were written.
pub fn checksum_path(parquet: &Path) -> PathBuf {
    let mut name = parquet.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn parquet_bytes(df: &mut DataFrame) -> PolarsResult<Vec<u8>> {
    let mut buf = Vec::new();
    ParquetWriter::new(&mut buf).with_compression(ParquetCompression::Zstd(None)).finish(df)?;
    Ok(buf)
}

fn csv_bytes(df: &mut DataFrame) -> PolarsResult<Vec<u8>> {
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).include_header(true).finish(df)?;
    Ok(buf)
}

/// The column of a ceiling row (`record_kind` `ceiling`, `hw_ceiling`) holding
/// a bandwidth, in GB/s (10⁹ bytes per second).
pub const GB_PER_S: &str = "gb_per_s";
/// The column of the `gpu_int32` ceiling: 10⁹ int32 instructions per second.
pub const GOP_PER_S: &str = "gop_per_s";
/// The column of the `cpu_clock` ceiling: one core's clock in GHz, measured by dependent adds.
pub const CPU_CLOCK_GHZ: &str = "cpu_clock_ghz";

/// A ceiling row's value columns, each with its unit as reports and `evorepro hw` print it.
pub const CEILING_VALUES: [(&str, &str); 3] =
    [(GB_PER_S, "GB/s"), (GOP_PER_S, "10⁹ int32 instructions/s"), (CPU_CLOCK_GHZ, "GHz (one core, dependent adds)")];

/// A ceiling row's value, whichever of [`CEILING_VALUES`] holds it.
pub fn ceiling_value(r: &Record) -> Option<f64> {
    CEILING_VALUES.iter().find_map(|(column, _)| r.float(column))
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
fn read_main_and_tail(path: &Path) -> Result<(Vec<Record>, Vec<Record>), RecordError> {
    let main = parse_parquet(path, &read_verified(path)?)?;
    let tail_file = tail_path(path);
    if !tail_file.exists() {
        return Ok((main, Vec::new()));
    }
    let tail = parse_parquet(&tail_file, &read_verified(&tail_file)?)?;
    let case = |r: &Record| (r.str("record_kind") == "measurement").then(|| r.str("case_id").to_owned());
    let stale = tail.iter().find_map(case).is_some_and(|first| main.iter().filter_map(case).any(|id| id == first));
    Ok((main, if stale { Vec::new() } else { tail }))
}

/// Where a [`RecordStore`] keeps the cases finished since it last rewrote
/// `parquet`: `<file>.tail`, a Parquet file with its own checksum file, so that
/// storing a case costs the size of the tail, not of the whole sweep so far.
pub fn tail_path(parquet: &Path) -> PathBuf {
    let mut name = parquet.as_os_str().to_owned();
    name.push(".tail");
    PathBuf::from(name)
}

fn read_err(path: &Path, e: &dyn fmt::Display) -> RecordError {
    RecordError::Read { path: path.to_owned(), message: e.to_string() }
}

/// The bytes of `path`, refused when they differ from those its checksum file
/// describes, or when it has none (a file without one is certified only by
/// `evorepro records upgrade`, [`certify`]). The checksum file may list two
/// hashes while a rewrite is under way (the new bytes, then the old): either reads.
fn read_verified(path: &Path) -> Result<Vec<u8>, RecordError> {
    let bytes = std::fs::read(path).map_err(|e| read_err(path, &e))?;
    let sum = checksum_path(path);
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
fn parse_frame(path: &Path, bytes: &[u8]) -> Result<(DataFrame, Vec<&'static str>), RecordError> {
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
    let sum = checksum_path(path);
    if sum.exists() {
        return Ok(false);
    }
    let bytes = std::fs::read(path).map_err(|e| read_err(path, &e))?;
    let rows = parse_parquet(path, &bytes)?;
    check_rows(path, &rows)?;
    replace(&sum, format!("{}\n", sha256_hex(&bytes)).as_bytes()).map_err(|e| write_err(&sum, &e))?;
    Ok(true)
}

/// The columns every record row carries, and the kinds a row may be.
const REQUIRED: [&str; 5] = ["hw_id", "record_kind", "run_id", "git_commit", "profile"];
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
        if !KINDS.contains(&r.str("record_kind")) {
            return Err(bad(i, format!("record kind `{}` is none of {}", r.str("record_kind"), KINDS.join(", "))));
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

fn write_err(p: &Path, e: &dyn fmt::Display) -> RecordError {
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
fn write_parquet_frame(parquet: &Path, df: &mut DataFrame) -> Result<(), RecordError> {
    write_frame_file(parquet, df)?;
    let tail = tail_path(parquet);
    remove_if_present(&checksum_path(&tail))?;
    remove_if_present(&tail)
}

/// Removes `path`; a file already gone is no error.
fn remove_if_present(path: &Path) -> Result<(), RecordError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(write_err(path, &e)),
        _ => Ok(()),
    }
}

/// One Parquet file and its checksum file, each atomically: the checksum file
/// first lists the new bytes' hash and the old's, then the file is replaced,
/// then the checksum file lists the new hash alone, so a kill at any point
/// leaves a file its checksum file accepts.
fn write_frame_file(path: &Path, df: &mut DataFrame) -> Result<(), RecordError> {
    let sum = checksum_path(path);
    let bytes = parquet_bytes(df).map_err(|e| write_err(path, &e))?;
    let new = sha256_hex(&bytes);
    let old = std::fs::read_to_string(&sum).ok().and_then(|t| t.split_whitespace().next().map(str::to_owned));
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
    Ok(())
}

/// The CSV copy of a run's ceilings beside `<stem>.csv`: `<stem>.ceilings.csv`.
pub fn ceilings_csv_path(stem: &Path) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".ceilings.csv");
    PathBuf::from(name)
}

/// Writes the human-readable copies of `records`, each atomically:
/// `<stem>.csv` with every row but the ceilings the run measured (record kind
/// `ceiling`), and `<stem>.ceilings.csv` with those; each copy without the
/// columns that are empty in it, so a spreadsheet of measurements has no
/// ceiling columns and the ceilings no case columns. Returns whether a file changed.
pub fn write_csv(stem: &Path, records: &[Record]) -> Result<bool, RecordError> {
    let csv = stem.with_extension("csv");
    let df = to_frame(records).map_err(|e| write_err(&csv, &e))?;
    write_csv_frames(stem, &df)
}

fn write_csv_frames(stem: &Path, df: &DataFrame) -> Result<bool, RecordError> {
    let csv = stem.with_extension("csv");
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
    let mut changed = false;
    for (path, bytes) in [(&csv, split(&csv, false)?), (&ceilings_csv, split(&ceilings_csv, true)?)] {
        match bytes {
            Some(b) if std::fs::read(path).ok().as_deref() != Some(b.as_slice()) => {
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

/// What [`upgrade`] changed in one record file.
#[derive(Debug, Default, PartialEq)]
pub struct Upgrade {
    /// Old column names given their new ones ([`RENAMED_COLUMNS`]).
    pub renamed: Vec<&'static str>,
    /// Columns without a single value, left out.
    pub dropped: Vec<String>,
    /// Whether a CSV copy was rewritten (or, a stale `.ceilings.csv`, removed).
    pub csv: bool,
}

impl Upgrade {
    pub fn changed(&self) -> bool {
        !self.renamed.is_empty() || !self.dropped.is_empty() || self.csv
    }
}

impl fmt::Display for Upgrade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self.renamed.iter().map(|old| format!("`{old}` renamed")).collect();
        parts.extend(self.dropped.iter().map(|c| format!("empty `{c}` left out")));
        if self.csv {
            parts.push("CSV copies rewritten".into());
        }
        f.write_str(&parts.join(", "))
    }
}

/// Brings one Parquet record file (checked against its checksum first) to
/// today's layout: the current column names ([`RENAMED_COLUMNS`]), no column
/// without a value, and CSV copies as [`write_csv`] writes them. The Parquet
/// file and its checksum are rewritten only when a column changed, every other
/// column (order, type, values) as it was; each file atomically.
pub fn upgrade(parquet: &Path) -> Result<Upgrade, RecordError> {
    certify(parquet)?;
    if tail_path(parquet).exists() {
        certify(&tail_path(parquet))?;
        // A killed run's tail: folded into the file first, so no row is lost.
        write_parquet(&parquet.with_extension(""), &read_parquet(parquet)?)?;
    }
    let bytes = read_verified(parquet)?;
    let (mut df, renamed) = parse_frame(parquet, &bytes)?;
    let dropped: Vec<String> = df.columns().iter().filter(|c| c.null_count() == df.height()).map(|c| c.name().to_string()).collect();
    if df.height() > 0 {
        for c in &dropped {
            df.drop_in_place(c).map_err(|e| write_err(parquet, &e))?;
        }
    }
    let dropped = if df.height() > 0 { dropped } else { Vec::new() };
    if !renamed.is_empty() || !dropped.is_empty() {
        write_parquet_frame(parquet, &mut df)?;
    }
    let csv = write_csv_frames(&parquet.with_extension(""), &df)?;
    Ok(Upgrade { renamed, dropped, csv })
}

/// Rewrites one record file's machine id to `new_id` (the id recorded kept in
/// `hw_id_recorded`, every other column as it was) and names the file after it
/// (`<new_id>__<profile>`); where a file of that name exists, the file keeps
/// its name (both are read; the later run supersedes). Returns the file's path now.
pub fn rename_machine(parquet: &Path, old_id: &str, new_id: &str) -> Result<PathBuf, RecordError> {
    if tail_path(parquet).exists() {
        write_parquet(&parquet.with_extension(""), &read_parquet(parquet)?)?;
    }
    let bytes = read_verified(parquet)?;
    let (mut df, _) = parse_frame(parquet, &bytes)?;
    let n = df.height();
    let err = |e: PolarsError| write_err(parquet, &e);
    df.with_column(Column::new("hw_id_recorded".into(), vec![old_id; n])).map_err(err)?;
    df.with_column(Column::new("hw_id".into(), vec![new_id; n])).map_err(err)?;
    let name = parquet.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let target = match name.strip_prefix(&format!("{old_id}__")) {
        Some(rest) if !parquet.with_file_name(format!("{new_id}__{rest}")).exists() => parquet.with_file_name(format!("{new_id}__{rest}")),
        _ => parquet.to_owned(),
    };
    write_parquet_frame(&target, &mut df)?;
    write_csv_frames(&target.with_extension(""), &df)?;
    if target != parquet {
        for ext in ["parquet", "parquet.sha256", "csv", "ceilings.csv"] {
            remove_if_present(&parquet.with_extension(ext))?;
        }
    }
    Ok(target)
}

/// [`upgrade`]s every record file directly in `dir` (not its `archive/`, kept
/// as it was taken), holding the folder's writer lock; returns each file
/// changed with what changed.
pub fn upgrade_folder(dir: &Path) -> Result<Vec<(PathBuf, Upgrade)>, RecordError> {
    let _lock = WriterLock::take(dir)?;
    let mut upgraded = Vec::new();
    for f in record_files(dir) {
        let u = upgrade(&f)?;
        if u.changed() {
            upgraded.push((f, u));
        }
    }
    Ok(upgraded)
}

/// Every records folder under a reports root: `out/<paper or hardware>/records/`
/// and each shard's folder under its `shards/`, sorted.
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
            folders.extend(subfolders(&records.join("shards")));
        }
    }
    folders
}

/// Writes `records` as `<stem>.parquet` and `<stem>.csv`, each atomically.
pub fn write_records(stem: &Path, records: &[Record]) -> Result<(), RecordError> {
    write_parquet(stem, records)?;
    write_csv(stem, records).map(|_| ())
}

/// A [`RecordStore`]'s tail holds at most this share (1/8) of its file's rows.
pub const TAIL_SHARE: usize = 8;

/// The append-only record file of one paper on one machine and profile.
///
/// Nothing on disk changes until the first case finishes: a fresh run (no
/// `resume`) archives the earlier file and writes its own only then, so a run
/// that fails before any case (a missing data set, a bad instance) leaves the
/// earlier records where they were. One writer per records folder: the store
/// holds `<dir>/.lock` (the writer's pid) while it is open.
pub struct RecordStore {
    stem: PathBuf,
    rows: Vec<Record>,
    /// How many of `rows` the Parquet file itself holds; the rest are in its tail.
    main_rows: usize,
    done: HashSet<String>,
    /// An earlier file waits to be archived before this run's first write.
    archive_first: bool,
    /// Whether this run has written its file yet.
    written: bool,
    _lock: WriterLock,
}

impl RecordStore {
    /// Opens `<dir>/<name>.parquet`. With `resume`, keeps its rows and the set of
    /// finished cases, refusing records of another spec: rows whose `spec_hash`
    /// is none of `spec_hashes` (the spec's hash, then those it had under earlier
    /// definitions); without, an existing file is moved to `<dir>/archive/` when
    /// the first case is stored, so nothing is lost. Fails while another run
    /// writes to `dir`.
    pub fn open(dir: &Path, name: &str, spec_hashes: &[&str], resume: bool) -> Result<RecordStore, RecordError> {
        let lock = WriterLock::take(dir)?;
        remove_orphan_temporaries(dir);
        let stem = dir.join(name);
        let parquet = stem.with_extension("parquet");
        let mut rows = Vec::new();
        let mut main_rows = 0;
        let exists = parquet.exists();
        if exists && resume {
            let (main, tail) = read_main_and_tail(&parquet)?;
            main_rows = main.len();
            rows = main;
            rows.extend(tail);
            if let Some(found) = rows.iter().map(|r| r.str("spec_hash")).find(|h| !spec_hashes.contains(h)) {
                let expected = spec_hashes.first().copied().unwrap_or_default().to_owned();
                return Err(RecordError::SpecChanged { path: parquet, found: found.to_owned(), expected });
            }
        }
        let done = rows.iter().filter(|r| r.str("record_kind") == "measurement").map(|r| r.str("case_id").to_owned()).collect();
        Ok(RecordStore { stem, rows, main_rows, done, archive_first: exists && !resume, written: exists && resume, _lock: lock })
    }

    pub fn is_done(&self, case_id: &str) -> bool {
        self.done.contains(case_id)
    }

    /// The Parquet file this store writes.
    pub fn file(&self) -> PathBuf {
        self.stem.with_extension("parquet")
    }

    pub fn finished_cases(&self) -> usize {
        self.done.len()
    }

    /// Adds rows: those of a finished case (`case_id`) are written at once,
    /// atomically, to the file's tail ([`tail_path`]) while the tail holds at
    /// most 1/[`TAIL_SHARE`] of the file's rows, else into the Parquet file
    /// itself, rewritten with every row (which empties the tail). Rewriting the
    /// whole file after every case made long sweeps quadratic in their output
    /// (the layout paper profile: about a second a case by its 600th); the CSV
    /// copy follows in [`RecordStore::finish`]. Rows of no case (the run's
    /// ceilings) wait for the first case.
    pub fn append(&mut self, case_id: Option<&str>, rows: Vec<Record>) -> Result<(), RecordError> {
        self.rows.extend(rows);
        let Some(id) = case_id else { return Ok(()) };
        if self.archive_first {
            archive(&self.stem).map_err(|e| RecordError::Write { path: self.stem.with_extension("parquet"), message: e.to_string() })?;
            self.archive_first = false;
        }
        let tail = &self.rows[self.main_rows..];
        if self.main_rows == 0 || tail.len() * TAIL_SHARE > self.main_rows {
            write_parquet(&self.stem, &self.rows)?;
            self.main_rows = self.rows.len();
        } else {
            let path = tail_path(&self.stem.with_extension("parquet"));
            let mut df = to_frame(tail).map_err(|e| write_err(&path, &e))?;
            write_frame_file(&path, &mut df)?;
        }
        self.written = true;
        self.done.insert(id.to_owned());
        Ok(())
    }

    pub fn rows(&self) -> &[Record] {
        &self.rows
    }

    /// Writes the CSV copy of everything stored (nothing when no case was).
    pub fn finish(&self) -> Result<(), RecordError> {
        if !self.written {
            return Ok(());
        }
        write_parquet(&self.stem, &self.rows)?;
        write_csv(&self.stem, &self.rows).map(|_| ())
    }
}

/// Removes the temporary files (`.tmp*`) a killed run left in `dir`: with the
/// writer's lock held, no other run is writing one.
fn remove_orphan_temporaries(dir: &Path) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with(".tmp") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// `<dir>/.lock`, locked ([`std::fs::File::try_lock`]) while a run writes
/// records to `dir`, with the run's pid in it. The system releases the lock when
/// the run ends, however it ends; the file stays.
pub struct WriterLock {
    _file: std::fs::File,
}

impl WriterLock {
    /// Locks `<dir>/.lock`, refusing while another run holds it.
    pub fn take(dir: &Path) -> Result<WriterLock, RecordError> {
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

/// The column that holds when a row was recorded: UTC, RFC 3339 to the second.
pub const UTC: &str = "utc";

/// Now, UTC, as the [`UTC`] column holds it (`2026-11-26T03:42:07Z`).
pub fn utc_now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The files of one record file that [`archive`] moves together.
const ARCHIVED: [&str; 6] = ["parquet", "parquet.sha256", "parquet.tail", "parquet.tail.sha256", "csv", "ceilings.csv"];

/// Moves `<stem>.parquet`, its checksum file and its CSV copies to `archive/`,
/// each named by when the archived records were taken: the latest [`UTC`] of
/// its rows (`20261126T034207Z`), else — records from before the column — the
/// file's modification time; the next free second when an archive of that
/// second exists, so none is overwritten.
pub fn archive(stem: &Path) -> std::io::Result<()> {
    use chrono::{DateTime, Utc};
    let dir = stem.parent().unwrap_or(Path::new(".")).join("archive");
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
    while ARCHIVED.iter().any(|ext| dir.join(format!("{name}.{}.{ext}", stamp(&when))).exists()) {
        when += chrono::Duration::seconds(1);
    }
    for ext in ARCHIVED {
        let from = stem.with_extension(ext);
        if from.exists() {
            std::fs::rename(&from, dir.join(format!("{name}.{}.{ext}", stamp(&when))))?;
        }
    }
    Ok(())
}

/// Every record file (`*.parquet`, not their `*.parquet.sha256` checksums)
/// directly in `dir`, sorted by name.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Record> {
        vec![
            Record::new()
                .with("case_id", "a")
                .with("n", 1)
                .with("t", 0.5)
                .with("ok", true)
                .with("record_kind", "measurement")
                .with("spec_hash", "h"),
            Record::new()
                .with("case_id", "b")
                .with("n", 2)
                .with("t", 2)
                .with("note", "x")
                .with("record_kind", "measurement")
                .with("spec_hash", "h"),
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
        assert!(!dir.path().join("hw-quick.csv").exists(), "the CSV copy waits for finish()");
        s.finish().unwrap();
        assert!(dir.path().join("hw-quick.csv").exists());
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
        let archived = record_files(&dir.path().join("archive"));
        assert_eq!(archived.len(), 1);
        assert_eq!(read_parquet(&archived[0]).unwrap().len(), 1);
    }

    #[test]
    fn a_long_sweep_stores_its_cases_in_a_tail_that_reads_with_its_file_and_survives_a_kill() {
        let dir = tempfile::tempdir().unwrap();
        let case = |i: i64| {
            vec![Record::new().with("record_kind", "measurement").with("case_id", format!("c{i}")).with("i", i).with("spec_hash", "h")]
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
        let archived = record_files(&dir.path().join("archive"));
        assert_eq!(archived.len(), 1);
        assert_eq!(read_parquet(&archived[0]).unwrap().len(), 22);
        assert!(!tail.exists());
    }

    #[test]
    fn upgrading_a_file_with_a_live_tail_keeps_the_tails_rows() {
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("m");
        write_records(&stem, &legacy_rows()).unwrap();
        let extra = vec![Record::new().with("record_kind", "measurement").with("case_id", "z").with("gbs", 3.0)];
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
        assert_eq!(std::fs::read_to_string(dir.path().join("m.csv")).unwrap().lines().count(), 3);
        assert!(!dir.path().join("archive").exists());
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
        let rows: Vec<Record> = [1.0, 1.234_567_89, 2.0].map(|ms| Record::new().with("case_id", "a").with("wall_ms", ms)).into();
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
        let ceiling = |name: &str, column: &str, v: f64| Record::new().with("record_kind", "ceiling").with("ceiling", name).with(column, v);
        vec![
            ceiling("gpu_d2d", "gbs", 2915.25),
            ceiling("gpu_int32", "gops", 28_000.5),
            ceiling("cpu_clock", "ghz", 2.1),
            Record::new().with("record_kind", "measurement").with("case_id", "a").with("n", 3).with("t", f64::NAN).with("ok", true),
            Record::new().with("record_kind", "measurement").with("case_id", "b").with("link_gbs", 351.75).with("t", 0.1),
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
        let rows =
            |hw: &str| (0..3).map(|i| Record::new().with("hw_id", hw).with("record_kind", "measurement").with("i", i)).collect::<Vec<_>>();
        write_records(&dir.path().join("old__speed"), &rows("old")).unwrap();
        let to = rename_machine(&dir.path().join("old__speed.parquet"), "old", "new").unwrap();
        assert_eq!(to, dir.path().join("new__speed.parquet"));
        assert!(!dir.path().join("old__speed.parquet").exists() && !dir.path().join("old__speed.csv").exists());
        let back = read_parquet(&to).unwrap();
        assert_eq!(back.len(), 3);
        assert!(back.iter().all(|r| r.str("hw_id") == "new" && r.str("hw_id_recorded") == "old"));
        // Where the new name is taken, the file keeps its own (both are read).
        write_records(&dir.path().join("old__cpu"), &rows("old")).unwrap();
        write_records(&dir.path().join("new__cpu"), &rows("new")).unwrap();
        assert_eq!(rename_machine(&dir.path().join("old__cpu.parquet"), "old", "new").unwrap(), dir.path().join("old__cpu.parquet"));
        assert!(read_parquet(&dir.path().join("old__cpu.parquet")).unwrap().iter().all(|r| r.str("hw_id") == "new"));
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
        assert!(header(stem.with_extension("csv")).split(',').any(|c| c == "link_gb_per_s"));
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
        let (measured, n) = csv_table(&stem.with_extension("csv"));
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
        assert!(dir.path().join("m.ceilings.csv").exists());
        let mut s = RecordStore::open(dir.path(), "m", &["h"], false).unwrap();
        s.append(Some("b"), vec![sample()[1].clone()]).unwrap();
        s.finish().unwrap();
        assert!(!dir.path().join("m.ceilings.csv").exists(), "this run measured no ceiling");
        let archived = record_files(&dir.path().join("archive"));
        assert!(PathBuf::from(archived[0].to_string_lossy().replace(".parquet", ".ceilings.csv")).exists());
    }

    #[test]
    fn record_folders_are_every_papers_and_shards() {
        let dir = tempfile::tempdir().unwrap();
        for d in ["ecga/records/shards/quick__shard-1-of-2", "hardware/records", "layout/figures", "ecga/records/archive"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let found: Vec<PathBuf> = record_folders(dir.path()).iter().map(|p| p.strip_prefix(dir.path()).unwrap().to_owned()).collect();
        let expected: Vec<PathBuf> =
            ["ecga/records", "ecga/records/shards/quick__shard-1-of-2", "hardware/records"].iter().map(PathBuf::from).collect();
        assert_eq!(found, expected);
        write_records(&dir.path().join("ecga/records/m"), &legacy_rows()).unwrap();
        write_records(&dir.path().join("ecga/records/archive/m"), &legacy_rows()).unwrap();
        let upgraded = upgrade_folder(&dir.path().join("ecga/records")).unwrap();
        assert_eq!(upgraded.len(), 1);
        let archived = raw_frame(&dir.path().join("ecga/records/archive/m.parquet"));
        assert!(archived.column("gbs").is_ok(), "archives are kept as they were taken");
        assert!(WriterLock::take(&dir.path().join("ecga/records")).is_ok(), "the lock goes with the upgrade");
    }

    #[test]
    fn records_without_a_checksum_are_refused_until_certified() {
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("legacy");
        let rows = |t: f64| -> Vec<Record> {
            (0..2)
                .map(|i| {
                    Record::new()
                        .with("hw_id", "m")
                        .with("record_kind", "measurement")
                        .with("run_id", 1)
                        .with("git_commit", "abc")
                        .with("profile", "quick")
                        .with("case_id", format!("c{i}"))
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
        no_kind[1].set("record_kind", "whatever");
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
        let mut kept: Vec<usize> = record_files(&dir.path().join("archive")).iter().map(|f| read_parquet(f).unwrap().len()).collect();
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
            record_files(&dir.path().join("archive")).iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
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
        let archived = record_files(&dir.path().join("archive"));
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
}
