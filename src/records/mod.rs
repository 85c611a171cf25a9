//! Raw records: one row per case × repetition, every parameter, seed, backend,
//! timing, hardware fingerprint, git commit and spec hash. Stored with polars as
//! Parquet (the source of truth, alone at the top of its folder, which pyarrow
//! and polars read as one data set) and CSV (for people and spreadsheets, in
//! `_csv/`), append-only, each file replaced atomically after every finished
//! case so that killing a run loses only the case in flight. The folder's
//! layout: `records/files.rs`.

mod files;
pub mod machine;
mod row;
mod store;
#[cfg(test)]
mod tests;
mod upgrade;

pub use files::*;
pub use machine::{HW_ID_RECORDED, MachineRecords, aliases, apply_aliases, by_machine};
pub use row::{Cell, FingerprintRow, Row, col, column};
pub use store::{RecordStore, TAIL_SHARE};
pub use upgrade::{Upgrade, rename_machine, upgrade, upgrade_folder};

use std::fmt;

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

/// The column that holds when a row was recorded: UTC, RFC 3339 to the second.
pub const UTC: &str = "utc";

/// Now, UTC, as the [`UTC`] column holds it (`2026-11-26T03:42:07Z`).
pub fn utc_now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
