//! Typed rows: a table's or figure's columns declared once, as the fields of a
//! struct ([`record_row!`]), which the method that writes them, the index that
//! reads them and the test fixtures share. A column's name is its field's name.

use super::{Record, Value};

/// The columns every paper's method rows carry, named once for the harness.
pub mod col {
    /// Which table or figure a case belongs to.
    pub const FIGURE: &str = "figure";
    /// The method (column of the paper's table) a row measured.
    pub const METHOD: &str = "method";
    /// `ok`, or `not_run` with its `reason`.
    pub const STATUS: &str = "status";
    pub const REASON: &str = "reason";
    /// The profile whose run wrote the row.
    pub const PROFILE: &str = "profile";
    /// `measurement`, `ceiling` or `hw_ceiling`.
    pub const RECORD_KIND: &str = "record_kind";
    /// The paper, its case, and the run (start time, µs since the epoch) that wrote the row.
    pub const PAPER: &str = "paper";
    pub const CASE_ID: &str = "case_id";
    pub const RUN_ID: &str = "run_id";
    /// The code and spec the run used: the commit (`-dirty` if uncommitted) and the spec's hash.
    pub const GIT_COMMIT: &str = "git_commit";
    pub const SPEC_HASH: &str = "spec_hash";
    /// `cuda` where the run had a GPU, else `cpu`.
    pub const BACKEND: &str = "backend";
    /// The machine ([`crate::hardware::Fingerprint::hw_id`]); its other fingerprint columns are
    /// [`FingerprintRow`]'s.
    pub const HW_ID: &str = "hw_id";
    /// A ceiling row's name (`gpu_d2d_copy`, …).
    pub const CEILING: &str = "ceiling";
    /// An archived row: the commit whose run measured its case again.
    pub const SUPERSEDED_BY: &str = "superseded_by";
}

crate::record_row! {
    /// The fingerprint columns of every record after its `hw_id`: the host
    /// (sysinfo) and the GPU the run used (CUDA device properties; null without one).
    pub struct FingerprintRow {
        cpu_model: String,
        cpu_signature: Option<String>,
        cpu_physical_cores: usize,
        cpu_threads: usize,
        mem_gib: f64,
        os: String,
        gpu_name: Option<String>,
        gpu_cc: Option<String>,
        gpu_sms: Option<i64>,
        gpu_sm_clock_mhz: Option<i64>,
        gpu_mem_gib: Option<f64>,
        gpu_mem_clock_mhz: Option<i64>,
        gpu_mem_bus_bits: Option<i64>,
        gpu_max_threads_per_block: Option<i64>,
        gpu_max_smem_per_block_kib: Option<i64>,
        cuda_driver: Option<String>,
    }
}

/// A value a typed row can hold, converted to and from a record's cell.
pub trait Cell: Sized {
    fn to_value(&self) -> Value;
    /// None where the cell is absent or of another type.
    fn from_value(v: &Value) -> Option<Self>;
}

macro_rules! integer_cell {
    ($($t:ty),*) => {$(
        impl Cell for $t {
            fn to_value(&self) -> Value {
                Value::Int(*self as i64)
            }
            fn from_value(v: &Value) -> Option<Self> {
                match *v {
                    Value::Int(i) => Some(i as $t),
                    Value::Float(f) if f.fract() == 0.0 => Some(f as $t),
                    _ => None,
                }
            }
        }
    )*};
}
integer_cell!(i64, u64, usize, u32);

impl Cell for f64 {
    fn to_value(&self) -> Value {
        Value::Float(*self)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match *v {
            Value::Float(f) => Some(f),
            Value::Int(i) => Some(i as f64),
            _ => None,
        }
    }
}

impl Cell for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_value(v: &Value) -> Option<Self> {
        if let Value::Bool(b) = *v { Some(b) } else { None }
    }
}

impl Cell for String {
    fn to_value(&self) -> Value {
        Value::Str(self.clone())
    }
    fn from_value(v: &Value) -> Option<Self> {
        if let Value::Str(s) = v { Some(s.clone()) } else { None }
    }
}

/// An optional column: absent (or null) reads as None; written as null.
impl<T: Cell> Cell for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, Cell::to_value)
    }
    fn from_value(v: &Value) -> Option<Self> {
        if *v == Value::Null { Some(None) } else { T::from_value(v).map(Some) }
    }
}

/// A typed row: its columns, appended to a record and read back from one.
pub trait Row: Sized {
    const COLUMNS: &'static [&'static str];
    /// `r` with this row's cells appended, in the order of [`Row::COLUMNS`].
    fn write(&self, r: Record) -> Record;
    /// The row held by `r`; the error names the first column absent or of another type.
    fn read(r: &Record) -> Result<Self, String>;
}

/// A column's name from its field's (`r#try` names the column `try`).
pub const fn column(field: &'static str) -> &'static str {
    match field.as_bytes() {
        [b'r', b'#', rest @ ..] => match std::str::from_utf8(rest) {
            Ok(name) => name,
            Err(_) => panic!("a field name is UTF-8"),
        },
        _ => field,
    }
}

/// Declares a typed row ([`Row`]): a struct whose fields are its columns, all
/// public, each a [`Cell`] (`Option<_>` for a column older records lack), and
/// for each field an associated constant of the same name holding the column's
/// name (`Timing::wall_ms == "wall_ms"`), for code that names a column alone.
#[macro_export]
macro_rules! record_row {
    ($(#[$attr:meta])* $vis:vis struct $name:ident { $($(#[$fattr:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$attr])*
        #[derive(Clone, Debug, Default, PartialEq)]
        $vis struct $name {
            $($(#[$fattr])* pub $field: $ty),*
        }
        #[allow(non_upper_case_globals, dead_code)]
        impl $name {
            $(pub const $field: &'static str = $crate::records::column(stringify!($field));)*
        }
        impl $crate::records::Row for $name {
            const COLUMNS: &'static [&'static str] = &[$($crate::records::column(stringify!($field))),*];
            fn write(&self, r: $crate::records::Record) -> $crate::records::Record {
                r$(.with($name::$field, $crate::records::Cell::to_value(&self.$field)))*
            }
            fn read(r: &$crate::records::Record) -> Result<Self, String> {
                Ok($name {
                    $($field: {
                        let v = r.get($name::$field);
                        $crate::records::Cell::from_value(v)
                            .ok_or_else(|| format!("column `{}`: {v:?} is not a {}", $name::$field, stringify!($ty)))?
                    }),*
                })
            }
        }
    };
}

impl Record {
    /// The row saying that `name` (in `column`: a paper's method column) did not run here, with the one-line
    /// reason. Papers write it through `Plan::not_run_row`.
    pub fn not_run(column: &str, name: &str, reason: &str) -> Record {
        Record::new().with(column, name).with(col::STATUS, "not_run").with(col::REASON, reason)
    }

    /// A method's row that ran: its name and status `ok`, cells to follow.
    pub fn ran(method: &str) -> Record {
        Record::new().with(col::METHOD, method).with(col::STATUS, "ok")
    }

    /// Whether a method's row ran (status `ok`): not a "not run here" row.
    pub fn is_ok(&self) -> bool {
        self.str(col::STATUS) == "ok"
    }

    /// `row`'s cells appended.
    pub fn with_row(self, row: &impl Row) -> Record {
        row.write(self)
    }

    /// The typed row this record holds.
    pub fn row<R: Row>(&self) -> Result<R, String> {
        R::read(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::record_row! {
        /// A fixture row.
        struct Point {
            ell: usize,
            seed: u64,
            time_ms: f64,
            kernel_ms: Option<f64>,
            identical: bool,
            label: String,
            r#try: usize,
        }
    }

    #[test]
    fn a_row_reads_back_what_it_wrote_in_column_order() {
        let p = Point { ell: 40, seed: u64::MAX - 3, time_ms: 1.5, kernel_ms: None, identical: true, label: "x".into(), r#try: 2 };
        let r = Record::ran("gboa").with_row(&p);
        let names: Vec<&str> = r.cells().map(|(k, _)| k).collect();
        assert_eq!(names, ["method", "status", "ell", "seed", "time_ms", "kernel_ms", "identical", "label", "try"]);
        assert_eq!(r.row::<Point>(), Ok(p));
        assert_eq!(Point::COLUMNS.len(), 7);
        assert_eq!((Point::time_ms, Point::r#try), ("time_ms", "try"));
    }

    #[test]
    fn a_missing_or_mistyped_column_is_named() {
        let r = Record::new().with("ell", 40).with("seed", 1).with("time_ms", "fast");
        let e = r.row::<Point>().unwrap_err();
        assert!(e.starts_with("column `time_ms`"), "{e}");
        // An optional column may be absent; a required one may not.
        let r = Record::new().with("ell", 40).with("seed", 1).with("time_ms", 2).with("identical", false).with("label", "y").with("try", 0);
        assert_eq!(r.row::<Point>().map(|p| (p.kernel_ms, p.time_ms)), Ok((None, 2.0)));
        let e = Record::new().with("ell", 40).row::<Point>().unwrap_err();
        assert!(e.starts_with("column `seed`"), "{e}");
    }
}
