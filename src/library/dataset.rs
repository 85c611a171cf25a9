//! Classification data sets of Franco, Krasnogor & Bacardit, "Speeding Up the
//! Evaluation of Evolutionary Learning Systems using GPGPUs" (GECCO 2010), Section 4
//! and Table 1: loaders for the vendored public sets, generators for the synthetic
//! ones, and ten-fold stratified cross-validation.
//!
//! - [`Dataset`]: instances × attributes, row-major `f32` (a nominal value is its
//!   index, a missing value is `NaN`), labels as class indices.
//! - Loaders, plain or gzip (detected by the magic bytes): [`load_uci_csv`] with a
//!   per-set [`CsvSpec`], [`load_keel`] (KEEL `.dat`), [`load_arff`] (users' own
//!   sets). A malformed line is an error naming file, line, column and the text
//!   ([`DatasetError::Parse`]), never skipped.
//! - [`load_named`]: the paper's short names (adu, kdd, wav, c-4, sat, pen, far,
//!   par), each file verified against [`CHECKSUMS`] before it is parsed.
//! - Generators: [`parmx`], [`waveform`], [`synthetic_standin`] (CN, SS, SA are
//!   not public: labelled stand-ins of Table 1's shapes), [`scalable`].
//! - [`stratified_folds`]: the ten-fold stratified cross-validation of Section 4.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// BioHEL holds a nominal condition as a bit mask of allowed values
/// (`biohel::Condition::Values`, 128 bits: FARS has attributes with 85 values,
/// kddcup's `service` 66), so a nominal attribute may have at most this many values.
pub const MAX_NOMINAL_VALUES: usize = 128;

/// Uncompressed SHA-256 and size in bytes of every vendored file (from `datasets/biohel/SOURCES.md`).
/// SOURCES.md lists kddcup's hash for the compressed file
/// (`8045aca0…9561`); it was checked to match, and the hash of its decompressed
/// content is listed here so that every entry is over the same (uncompressed) bytes.
pub const CHECKSUMS: [(&str, &str, u64); 8] = [
    ("adult.data", "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d", 3_974_305),
    ("adult.test", "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05", 2_003_153),
    ("connect-4.data", "c060eb3bebf4a10ce4d1caf8e9bf4770664b671952c5f0b58627a774613f885b", 5_968_100),
    ("fars.dat", "1baefc8a12f131b05896e119e7c5e5def08f3ebcd33e00c7e25589514c92a051", 59_137_849),
    ("penbased.dat", "89641315452220aac9bcdc5a99476323fdb6fcb69ac45973fa6cc3e13e4ab663", 715_495),
    ("satimage.dat", "8e7d5263e37bb14dbe49e1a7da24e38fbd0a91b3e9817d59af36852455202110", 994_235),
    ("waveform-5000.csv", "29d4b3e0a1846e4b84d0defe69d09567b1094c2adb896e0972603e1d08ea61da", 1_078_143),
    ("kddcup.data_10_percent", "f8c8267ebcd9c0ed1fd7d6277fe5bfff8732e9b7db8e61b873542b2a534b6f9a", 74_889_749),
];

/// Problems reading a data set; each names the file and, for content, the 1-based
/// line and column and the offending text.
#[derive(Debug, Error)]
pub enum DatasetError {
    #[error("cannot read {path}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a regular file but {kind}; a data set must be a plain file")]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{path} resolves to {resolved}, outside the repository root {root}; --allow-outside permits it")]
    Outside { path: PathBuf, resolved: PathBuf, root: PathBuf },
    #[error("{path}: more than {limit} bytes {what} (expected at most that)")]
    TooLarge { path: PathBuf, limit: u64, what: &'static str },
    #[error("{path}: corrupt gzip stream")]
    Gzip { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}:{column}: {message}: `{text}`")]
    Parse { path: PathBuf, line: usize, column: usize, text: String, message: String },
    #[error("{path}: SHA-256 of the uncompressed content is {found}, expected {expected}")]
    Checksum { path: PathBuf, expected: String, found: String },
    #[error("{path}: attribute `{attribute}` has {count} values, at most {MAX_NOMINAL_VALUES} are supported")]
    TooManyValues { path: PathBuf, attribute: String, count: usize },
    #[error("CSV spec `{name}`: {message}")]
    Spec { name: String, message: String },
    #[error("unknown data set `{0}` (known: adu, kdd, wav, c-4, sat, pen, far, par)")]
    UnknownSet(String),
}

/// One input attribute: continuous (real or integer) or nominal with named values.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    Continuous { name: String },
    Nominal { name: String, values: Vec<String> },
}

impl Attribute {
    pub fn name(&self) -> &str {
        match self {
            Attribute::Continuous { name } | Attribute::Nominal { name, .. } => name,
        }
    }

    pub fn is_nominal(&self) -> bool {
        matches!(self, Attribute::Nominal { .. })
    }
}

/// A classification data set. `values` is row-major (instance `i`, attribute `a` at
/// `i * attribute_count() + a`); a nominal value is stored as its index, a missing
/// value as `NaN`. `synthetic` marks generated sets (ParMX, stand-ins, sweeps).
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    pub name: String,
    pub attributes: Vec<Attribute>,
    pub classes: Vec<String>,
    pub values: Vec<f32>,
    pub labels: Vec<u16>,
    pub synthetic: bool,
}

impl Dataset {
    pub fn instances(&self) -> usize {
        self.labels.len()
    }

    pub fn attribute_count(&self) -> usize {
        self.attributes.len()
    }

    pub fn nominal_count(&self) -> usize {
        self.attributes.iter().filter(|a| a.is_nominal()).count()
    }

    /// The attribute values of instance `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        let a = self.attribute_count();
        &self.values[i * a..(i + 1) * a]
    }

    /// The instances `indices`, in that order (a cross-validation fold, or the
    /// ILAS strata order of `biohel::ilas_strata`).
    pub fn subset(&self, indices: &[usize]) -> Dataset {
        Dataset {
            name: self.name.clone(),
            attributes: self.attributes.clone(),
            classes: self.classes.clone(),
            values: indices.iter().flat_map(|&i| self.row(i).iter().copied()).collect(),
            labels: indices.iter().map(|&i| self.labels[i]).collect(),
            synthetic: self.synthetic,
        }
    }

    /// Instances per class.
    pub fn class_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.classes.len()];
        for &l in &self.labels {
            counts[usize::from(l)] += 1;
        }
        counts
    }

    /// Replaces every missing value by the mean (continuous) or the most frequent
    /// value (nominal) of the attribute over the instances `from` (the training
    /// set), as BioHEL does before learning (`instance::updateMissing` in its
    /// source): BioHEL's rules never see a missing value. An attribute missing in
    /// all of `from` gets 0.
    pub fn impute_missing(&mut self, from: &[usize]) {
        let a = self.attribute_count();
        for (att, attribute) in self.attributes.iter().enumerate() {
            let present = from.iter().map(|&i| self.values[i * a + att]).filter(|v| !v.is_nan());
            let fill = match attribute {
                Attribute::Continuous { .. } => {
                    let (sum, n) = present.fold((0.0f64, 0usize), |(s, n), v| (s + f64::from(v), n + 1));
                    if n == 0 { 0.0 } else { (sum / n as f64) as f32 }
                }
                Attribute::Nominal { values, .. } => {
                    let mut counts = vec![0usize; values.len()];
                    present.for_each(|v| counts[v as usize] += 1);
                    // The first of the most frequent values (max_by_key keeps the last).
                    let best = counts.iter().enumerate().rev().max_by_key(|&(_, c)| c).map_or(0, |(v, _)| v);
                    best as f32
                }
            };
            for v in self.values.iter_mut().skip(att).step_by(a) {
                if v.is_nan() {
                    *v = fill;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Reading files
// ---------------------------------------------------------------------------

/// The most bytes a data file of no listed size may hold on disk.
pub const MAX_DATA_BYTES: u64 = 1 << 30;
/// The most a gzip file of no listed size may inflate, per compressed byte (the
/// vendored sets: 43 at most, FARS).
pub const MAX_GZIP_RATIO: u64 = 200;

/// How much a data file may hold: on disk, and once decompressed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizeLimit {
    pub raw: u64,
    /// None: [`MAX_GZIP_RATIO`] times the bytes on disk.
    pub content: Option<u64>,
}

impl SizeLimit {
    /// A file of unknown size: [`MAX_DATA_BYTES`] on disk, [`MAX_GZIP_RATIO`] to one inflated.
    pub const UNKNOWN: SizeLimit = SizeLimit { raw: MAX_DATA_BYTES, content: None };

    /// A file of `bytes` bytes uncompressed (gzip of text never grows it by more than a few bytes a block).
    pub fn expected(bytes: u64) -> SizeLimit {
        SizeLimit { raw: bytes + bytes / 16 + 4096, content: Some(bytes) }
    }
}

/// What a file that is not a regular one is, for errors.
fn file_kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() { "a folder" } else { "not a plain file" }
}

/// The bytes of a data file, decompressed when they start with the gzip magic
/// bytes. The file must be a regular file (links resolved; under `root` when
/// given), its type checked before it is opened (a named pipe would block, a
/// device never end), and hold at most `limit` bytes on disk and decompressed.
pub fn read_data_file(path: &Path, root: Option<&Path>, limit: SizeLimit) -> Result<Vec<u8>, DatasetError> {
    let io = |source| DatasetError::Io { path: path.to_path_buf(), source };
    let resolved = std::fs::canonicalize(path).map_err(io)?;
    if let Some(root) = root {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if !resolved.starts_with(&root) {
            return Err(DatasetError::Outside { path: path.to_path_buf(), resolved, root });
        }
    }
    let meta = std::fs::metadata(&resolved).map_err(io)?;
    if !meta.is_file() {
        return Err(DatasetError::NotAFile { path: path.to_path_buf(), kind: file_kind(meta.file_type()) });
    }
    let too_large = |limit: u64, what| DatasetError::TooLarge { path: path.to_path_buf(), limit, what };
    if meta.len() > limit.raw {
        return Err(too_large(limit.raw, "on disk"));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let mut raw = Vec::new();
    options.open(&resolved).map_err(io)?.take(limit.raw + 1).read_to_end(&mut raw).map_err(io)?;
    if raw.len() as u64 > limit.raw {
        return Err(too_large(limit.raw, "on disk"));
    }
    let content = limit.content.unwrap_or((raw.len() as u64).saturating_mul(MAX_GZIP_RATIO).max(1 << 20));
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return if raw.len() as u64 > content { Err(too_large(content, "of content")) } else { Ok(raw) };
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(raw.as_slice())
        .take(content + 1)
        .read_to_end(&mut out)
        .map_err(|source| DatasetError::Gzip { path: path.to_path_buf(), source })?;
    if out.len() as u64 > content {
        return Err(too_large(content, "decompressed"));
    }
    Ok(out)
}

/// The content of `path` ([`read_data_file`] with no listed size, anywhere).
fn read_content(path: &Path) -> Result<Vec<u8>, DatasetError> {
    read_data_file(path, None, SizeLimit::UNKNOWN)
}

fn read_text(path: &Path) -> Result<String, DatasetError> {
    text_of(path, read_content(path)?)
}

/// `bytes` of `path` as text; not UTF-8 is an error naming the line and column.
fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String, DatasetError> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let line_start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        DatasetError::Parse {
            path: path.to_path_buf(),
            line: bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1,
            column: at - line_start + 1,
            text: String::from_utf8_lossy(&bytes[at..(at + 8).min(bytes.len())]).into_owned(),
            message: "not UTF-8".into(),
        }
    })
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn check_sha256(path: &Path, content: &[u8], expected_hex: &str) -> Result<(), DatasetError> {
    let found = sha256_hex(content);
    if found.eq_ignore_ascii_case(expected_hex) {
        Ok(())
    } else {
        Err(DatasetError::Checksum { path: path.to_path_buf(), expected: expected_hex.to_string(), found })
    }
}

/// Checks the SHA-256 of the uncompressed content of `path` (plain or gzip).
pub fn verify_sha256(path: &Path, expected_hex: &str) -> Result<(), DatasetError> {
    check_sha256(path, &read_content(path)?, expected_hex)
}

// ---------------------------------------------------------------------------
// Columns and rows, shared by the three formats
// ---------------------------------------------------------------------------

/// The type of one column of a UCI CSV file ([`CsvSpec`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnKind {
    Continuous,
    /// Nominal with a declared list of values: any other value is an error.
    Nominal(Vec<String>),
    /// Nominal with values taken from the file, in order of first appearance.
    NominalFromData,
}

/// A column while rows are parsed: nominal values are looked up in `index`.
struct Column {
    name: String,
    nominal: Option<NominalColumn>,
}

struct NominalColumn {
    values: Vec<String>,
    index: HashMap<String, u16>,
    open: bool,
}

impl Column {
    fn new(name: &str, kind: &ColumnKind) -> Column {
        let nominal = |values: &[String], open| NominalColumn {
            values: values.to_vec(),
            index: values.iter().enumerate().map(|(i, v)| (v.clone(), i as u16)).collect(),
            open,
        };
        Column {
            name: name.to_string(),
            nominal: match kind {
                ColumnKind::Continuous => None,
                ColumnKind::Nominal(values) => Some(nominal(values, false)),
                ColumnKind::NominalFromData => Some(nominal(&[], true)),
            },
        }
    }

    /// The value of `token` (trimmed, not missing): a number or a value index.
    fn value(&mut self, token: &str) -> Result<f32, String> {
        match &mut self.nominal {
            None => token.parse::<f32>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("attribute `{}`: not a number", self.name)),
            Some(n) => match n.index.get(token) {
                Some(&i) => Ok(f32::from(i)),
                None if n.open && n.values.len() < usize::from(u16::MAX) => {
                    n.index.insert(token.to_string(), n.values.len() as u16);
                    n.values.push(token.to_string());
                    Ok((n.values.len() - 1) as f32)
                }
                None => Err(format!("attribute `{}`: value not among the declared {{{}}}", self.name, n.values.join(", "))),
            },
        }
    }
}

/// Rows being collected: `columns` in file order, one of them the class.
struct Table {
    path: PathBuf,
    columns: Vec<Column>,
    class_column: usize,
    strip_class_period: bool,
    values: Vec<f32>,
    labels: Vec<u16>,
}

impl Table {
    fn error(&self, line: usize, column: usize, text: &str, message: String) -> DatasetError {
        DatasetError::Parse { path: self.path.clone(), line, column, text: text.to_string(), message }
    }

    /// Parses one comma-separated data row (`line_no` 1-based) and appends it.
    fn push_row(&mut self, line_no: usize, line: &str) -> Result<(), DatasetError> {
        let expected = self.columns.len();
        let mut offset = 0;
        let mut fields = 0;
        for (c, field) in line.split(',').enumerate() {
            let column = offset + field.len() - field.trim_start().len() + 1;
            offset += field.len() + 1;
            fields += 1;
            if c >= expected {
                return Err(self.error(line_no, column, line, format!("{} fields, expected {expected}", line.split(',').count())));
            }
            let token = unquote(field.trim());
            if c == self.class_column {
                let token = if self.strip_class_period { token.strip_suffix('.').unwrap_or(token) } else { token };
                if token == "?" {
                    return Err(self.error(line_no, column, token, "the class is missing".into()));
                }
                let label = self.columns[c].value(token).map_err(|m| self.error(line_no, column, token, m))?;
                self.labels.push(label as u16);
            } else if token == "?" {
                self.values.push(f32::NAN);
            } else {
                let v = self.columns[c].value(token).map_err(|m| self.error(line_no, column, token, m))?;
                self.values.push(v);
            }
        }
        if fields < expected {
            return Err(self.error(line_no, line.len() + 1, line, format!("{fields} fields, expected {expected}")));
        }
        Ok(())
    }

    fn into_dataset(self, name: String) -> Result<Dataset, DatasetError> {
        let mut attributes = Vec::with_capacity(self.columns.len() - 1);
        let mut classes = Vec::new();
        for (c, column) in self.columns.into_iter().enumerate() {
            match column.nominal {
                Some(n) if c == self.class_column => classes = n.values,
                Some(n) if n.values.len() > MAX_NOMINAL_VALUES => {
                    return Err(DatasetError::TooManyValues { path: self.path, attribute: column.name, count: n.values.len() });
                }
                Some(n) => attributes.push(Attribute::Nominal { name: column.name, values: n.values }),
                None => attributes.push(Attribute::Continuous { name: column.name }),
            }
        }
        Ok(Dataset { name, attributes, classes, values: self.values, labels: self.labels, synthetic: false })
    }
}

fn unquote(s: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

// ---------------------------------------------------------------------------
// UCI CSV
// ---------------------------------------------------------------------------

/// The description of a UCI CSV set: column names and kinds (class included), the
/// class column, and whether the first non-blank line is a header of names.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvSpec {
    pub name: String,
    pub columns: Vec<(String, ColumnKind)>,
    pub class_column: usize,
    pub header: bool,
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

impl CsvSpec {
    /// `prefix1 … prefixN` continuous, then a class column with `classes`.
    fn continuous(name: &str, prefix: &str, n: usize, classes: &[&str], header: bool) -> CsvSpec {
        let mut columns: Vec<_> = (1..=n).map(|i| (format!("{prefix}{i}"), ColumnKind::Continuous)).collect();
        columns.push(("class".into(), ColumnKind::Nominal(names(classes))));
        CsvSpec { name: name.into(), columns, class_column: n, header }
    }

    /// UCI Adult (adult.names): 6 continuous, 8 nominal, class last.
    pub fn adult() -> CsvSpec {
        use ColumnKind::{Continuous as C, NominalFromData as N};
        let kinds = [C, N, C, N, C, N, N, N, N, N, C, C, C, N];
        let cols = [
            "age",
            "workclass",
            "fnlwgt",
            "education",
            "education-num",
            "marital-status",
            "occupation",
            "relationship",
            "race",
            "sex",
            "capital-gain",
            "capital-loss",
            "hours-per-week",
            "native-country",
        ];
        let mut columns: Vec<_> = cols.iter().zip(kinds).map(|(n, k)| (n.to_string(), k)).collect();
        columns.push(("income".into(), ColumnKind::Nominal(names(&["<=50K", ">50K"]))));
        CsvSpec { name: "adu".into(), columns, class_column: 14, header: false }
    }

    /// KDD Cup 1999, 10% training file: 41 attributes, 23 classes (in order of first
    /// appearance). The paper's Table 1 counts 15 nominal attributes; kddcup.names
    /// declares 7 symbolic ones (protocol_type, service, flag, land, logged_in,
    /// is_host_login, is_guest_login). The other 8 are the integer columns with at
    /// most 7 distinct values in this file (wrong_fragment 3, urgent 4,
    /// num_failed_logins 6, root_shell 2, su_attempted 3, num_shells 3,
    /// num_access_files 7, num_outbound_cmds 1); the next smallest column has 18
    /// values. That gives 15 nominal and 26 continuous, as in Table 1.
    pub fn kddcup() -> CsvSpec {
        let cols = [
            "duration",
            "protocol_type",
            "service",
            "flag",
            "src_bytes",
            "dst_bytes",
            "land",
            "wrong_fragment",
            "urgent",
            "hot",
            "num_failed_logins",
            "logged_in",
            "num_compromised",
            "root_shell",
            "su_attempted",
            "num_root",
            "num_file_creations",
            "num_shells",
            "num_access_files",
            "num_outbound_cmds",
            "is_host_login",
            "is_guest_login",
            "count",
            "srv_count",
            "serror_rate",
            "srv_serror_rate",
            "rerror_rate",
            "srv_rerror_rate",
            "same_srv_rate",
            "diff_srv_rate",
            "srv_diff_host_rate",
            "dst_host_count",
            "dst_host_srv_count",
            "dst_host_same_srv_rate",
            "dst_host_diff_srv_rate",
            "dst_host_same_src_port_rate",
            "dst_host_srv_diff_host_rate",
            "dst_host_serror_rate",
            "dst_host_srv_serror_rate",
            "dst_host_rerror_rate",
            "dst_host_srv_rerror_rate",
        ];
        const NOMINAL: [usize; 15] = [1, 2, 3, 6, 7, 8, 10, 11, 13, 14, 17, 18, 19, 20, 21];
        let mut columns: Vec<_> = cols
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), if NOMINAL.contains(&i) { ColumnKind::NominalFromData } else { ColumnKind::Continuous }))
            .collect();
        columns.push(("attack".into(), ColumnKind::NominalFromData));
        CsvSpec { name: "kdd".into(), columns, class_column: 41, header: false }
    }

    /// UCI Connect-4: 42 board cells a1…g6, each x, o or b; class win, loss, draw.
    pub fn connect4() -> CsvSpec {
        let cell = ColumnKind::Nominal(names(&["x", "o", "b"]));
        let mut columns: Vec<_> =
            "abcdefg".chars().flat_map(|c| (1..=6).map(move |r| format!("{c}{r}"))).map(|n| (n, cell.clone())).collect();
        columns.push(("class".into(), ColumnKind::Nominal(names(&["win", "loss", "draw"]))));
        CsvSpec { name: "c-4".into(), columns, class_column: 42, header: false }
    }

    /// waveform-5000.csv (OpenML 60): a header line `x1,…,x40,class`, 40 continuous.
    pub fn waveform() -> CsvSpec {
        CsvSpec::continuous("wav", "x", 40, &["0", "1", "2"], true)
    }

    /// satimage.dat as vendored: 36 continuous, class last (1–5, 7), no header.
    pub fn satimage() -> CsvSpec {
        CsvSpec::continuous("sat", "a", 36, &["1", "2", "3", "4", "5", "7"], false)
    }

    /// penbased.dat as vendored: 16 continuous, class last (digits 0–9), no header.
    pub fn penbased() -> CsvSpec {
        CsvSpec::continuous("pen", "a", 16, &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"], false)
    }
}

/// Loads UCI CSV files with the same columns, concatenated in order (adult.data then
/// adult.test). Fields are comma separated and trimmed; `?` is missing; a trailing
/// period on a class label is dropped (adult.test writes `<=50K.`); blank lines and
/// lines starting with `|` (adult.test's first line) are skipped.
pub fn load_uci_csv(paths: &[PathBuf], spec: &CsvSpec) -> Result<Dataset, DatasetError> {
    let texts = paths.iter().map(|p| Ok((p.clone(), read_text(p)?))).collect::<Result<Vec<_>, DatasetError>>()?;
    parse_uci_csv(&texts, spec)
}

/// [`load_uci_csv`] of texts already read, each with its path (for errors).
fn parse_uci_csv(texts: &[(PathBuf, String)], spec: &CsvSpec) -> Result<Dataset, DatasetError> {
    match spec.columns.get(spec.class_column) {
        Some((_, ColumnKind::Nominal(_) | ColumnKind::NominalFromData)) => {}
        _ => {
            let message = format!("class column {} is not a nominal column of the {}", spec.class_column, spec.columns.len());
            return Err(DatasetError::Spec { name: spec.name.clone(), message });
        }
    }
    let mut table = Table {
        path: PathBuf::new(),
        columns: spec.columns.iter().map(|(n, k)| Column::new(n, k)).collect(),
        class_column: spec.class_column,
        strip_class_period: true,
        values: Vec::new(),
        labels: Vec::new(),
    };
    for (path, text) in texts {
        table.path = path.clone();
        parse_csv_text(&mut table, text, spec.header)?;
    }
    table.into_dataset(spec.name.clone())
}

fn parse_csv_text(table: &mut Table, text: &str, header: bool) -> Result<(), DatasetError> {
    let mut header_pending = header;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('|') {
            continue;
        }
        if header_pending {
            header_pending = false;
            let found = trimmed.split(',').count();
            if found != table.columns.len() {
                return Err(table.error(i + 1, 1, line, format!("header has {found} names, expected {}", table.columns.len())));
            }
            continue;
        }
        table.push_row(i + 1, line)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// KEEL and ARFF
// ---------------------------------------------------------------------------

/// Splits an `@attribute` declaration into its name and the rest (the type).
fn attribute_declaration(rest: &str) -> Option<(String, &str)> {
    let rest = rest.trim_start();
    if let Some(q) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let end = rest[1..].find(q)? + 1;
        Some((rest[1..end].to_string(), rest[end + 1..].trim()))
    } else {
        let end = rest.find(|c: char| c.is_whitespace() || c == '{')?;
        Some((rest[..end].to_string(), rest[end..].trim()))
    }
}

/// The kind of a KEEL or ARFF attribute type: `{v1, v2}`, or a numeric keyword
/// (`real`, `integer`, `numeric`) optionally followed by a KEEL range `[a, b]`.
fn attribute_kind(ty: &str) -> Option<ColumnKind> {
    if let Some(inner) = ty.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return Some(ColumnKind::Nominal(inner.split(',').map(|v| unquote(v.trim()).to_string()).collect()));
    }
    let keyword = ty.split(|c: char| c.is_whitespace() || c == '[').next()?.to_ascii_lowercase();
    matches!(keyword.as_str(), "real" | "integer" | "numeric").then_some(ColumnKind::Continuous)
}

/// Which header dialect is being read: KEEL allows `@inputs`/`@outputs`, ARFF `%`
/// comments.
#[derive(Clone, Copy, PartialEq)]
enum Dialect {
    Keel,
    Arff,
}

fn load_header_format(path: &Path, dialect: Dialect) -> Result<Dataset, DatasetError> {
    parse_header_format(path, &read_text(path)?, dialect)
}

/// A KEEL or ARFF file's `text` (read from `path`, which errors name).
fn parse_header_format(path: &Path, text: &str, dialect: Dialect) -> Result<Dataset, DatasetError> {
    let err = |line: usize, text: &str, message: &str| DatasetError::Parse {
        path: path.to_path_buf(),
        line,
        column: 1,
        text: text.to_string(),
        message: message.to_string(),
    };
    let mut relation = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut declared: Vec<(String, ColumnKind)> = Vec::new();
    let mut inputs: Option<(usize, Vec<String>)> = None;
    let mut output: Option<(usize, String)> = None;
    let mut lines = text.lines().enumerate();
    let data_start = loop {
        let Some((i, line)) = lines.next() else { return Err(err(text.lines().count() + 1, "", "no @data section")) };
        let t = line.trim();
        if t.is_empty() || (dialect == Dialect::Arff && t.starts_with('%')) {
            continue;
        }
        let (keyword, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        match (keyword.to_ascii_lowercase().as_str(), dialect) {
            ("@relation", _) => relation = unquote(rest.trim()).to_string(),
            ("@attribute", _) => {
                let (name, ty) = attribute_declaration(rest).ok_or_else(|| err(i + 1, line, "malformed @attribute"))?;
                let kind = attribute_kind(ty).ok_or_else(|| err(i + 1, line, "unsupported attribute type"))?;
                declared.push((name, kind));
            }
            ("@inputs", Dialect::Keel) => inputs = Some((i + 1, rest.split(',').map(|s| s.trim().to_string()).collect())),
            ("@outputs" | "@output", Dialect::Keel) => output = Some((i + 1, rest.trim().to_string())),
            ("@data", _) => break i + 1,
            _ => return Err(err(i + 1, line, "unexpected header line")),
        }
    };
    if declared.len() < 2 {
        return Err(err(data_start, "@data", "need at least one input attribute and a class"));
    }
    let class_column = match &output {
        Some((line, name)) => {
            declared.iter().position(|(n, _)| n == name).ok_or_else(|| err(*line, name, "@outputs names no attribute"))?
        }
        None => declared.len() - 1,
    };
    if let Some((line, list)) = &inputs {
        let rest: Vec<&String> = declared.iter().enumerate().filter(|&(c, _)| c != class_column).map(|(_, (n, _))| n).collect();
        if list.len() != rest.len() || list.iter().zip(&rest).any(|(a, b)| a != *b) {
            return Err(err(*line, &list.join(", "), "@inputs must list every attribute but the output, in order"));
        }
    }
    if !matches!(declared[class_column].1, ColumnKind::Nominal(_)) {
        return Err(err(data_start, &declared[class_column].0, "the class attribute must be nominal"));
    }
    let mut table = Table {
        path: path.to_path_buf(),
        columns: declared.iter().map(|(n, k)| Column::new(n, k)).collect(),
        class_column,
        strip_class_period: false,
        values: Vec::new(),
        labels: Vec::new(),
    };
    for (i, line) in lines {
        let t = line.trim();
        if t.is_empty() || (dialect == Dialect::Arff && t.starts_with('%')) {
            continue;
        }
        if dialect == Dialect::Arff && t.starts_with('{') {
            return Err(table.error(i + 1, 1, line, "sparse ARFF rows are not supported".into()));
        }
        table.push_row(i + 1, line)?;
    }
    table.into_dataset(relation)
}

/// Loads a KEEL `.dat` file: `@relation`, `@attribute name real [a, b]` /
/// `integer [a, b]` / `{v1, v2, …}`, optional `@inputs` / `@outputs` (the class is
/// the output, else the last attribute), `@data`, then comma-separated rows with
/// `?` for missing values.
pub fn load_keel(path: &Path) -> Result<Dataset, DatasetError> {
    load_header_format(path, Dialect::Keel)
}

/// Loads an ARFF file (Weka): `@relation`, `@attribute name numeric|real|integer|{…}`,
/// `@data`, `%` comments, `?` missing; the class is the last attribute, nominal.
pub fn load_arff(path: &Path) -> Result<Dataset, DatasetError> {
    load_header_format(path, Dialect::Arff)
}

// ---------------------------------------------------------------------------
// The paper's sets by name
// ---------------------------------------------------------------------------

/// The expected uncompressed SHA-256 and size of a vendored file, by file name.
fn checksum_of(file: &str) -> Option<(&'static str, u64)> {
    CHECKSUMS.iter().find(|(f, ..)| *f == file).map(|&(_, h, n)| (h, n))
}

/// The text of `dir/file.gz` if present, else of `dir/file`, read as
/// [`read_data_file`] reads (under `root` when given, at most its listed size)
/// and verified against [`CHECKSUMS`]; with the path read.
fn verified_text(dir: &Path, file: &str, root: Option<&Path>) -> Result<(PathBuf, String), DatasetError> {
    let gz = dir.join(format!("{file}.gz"));
    let path = if gz.exists() { gz } else { dir.join(file) };
    let listed = checksum_of(file);
    let content = read_data_file(&path, root, listed.map_or(SizeLimit::UNKNOWN, |(_, n)| SizeLimit::expected(n)))?;
    if let Some((expected, _)) = listed {
        check_sha256(&path, &content, expected)?;
    }
    Ok((path.clone(), text_of(&path, content)?))
}

/// The shape of a set [`load_named`] loads or [`parmx`] generates, by its short
/// name: (instances, attributes, nominal attributes, classes) of the vendored files.
pub fn named_shape(name: &str) -> Option<Shape> {
    let (instances, attributes, nominal, classes) = match name {
        "adu" => (48_842, 14, 8, 2),
        "wav" => (5_000, 40, 0, 3),
        "c-4" => (67_557, 42, 42, 3),
        "sat" => (6_435, 36, 0, 6),
        "pen" => (10_992, 16, 0, 10),
        "far" => (100_968, 29, 24, 8),
        "kdd" => (494_021, 41, 15, 23),
        "par" => (1 << (PARMX_BLOCK * PARMX_BLOCKS), PARMX_BLOCK * PARMX_BLOCKS, PARMX_BLOCK * PARMX_BLOCKS, 2),
        _ => return None,
    };
    Some(Shape { instances, continuous: attributes - nominal, nominal, classes })
}

/// Loads one of the paper's sets by its short name (Table 1) from `dir` (the
/// vendored `datasets/biohel`), each file read once ([`verified_text`]: a
/// regular file under `root` when given, at most its listed size, its checksum verified) and parsed:
/// - `adu`: adult.data followed by adult.test (48,842 instances). The paper runs
///   ten-fold cross-validation over the set (|T| = 43,960 ≈ 0.9 × 48,842), so both
///   published files are used together.
/// - `kdd`, `wav`, `c-4`, `sat`, `pen` (UCI CSV), `far` (KEEL), `par` ([`parmx`]).
pub fn load_named(dir: &Path, name: &str, root: Option<&Path>) -> Result<Dataset, DatasetError> {
    let csv = |files: &[&str], spec: CsvSpec| -> Result<Dataset, DatasetError> {
        let texts = files.iter().map(|f| verified_text(dir, f, root)).collect::<Result<Vec<_>, _>>()?;
        parse_uci_csv(&texts, &spec)
    };
    match name {
        "adu" => csv(&["adult.data", "adult.test"], CsvSpec::adult()),
        "kdd" => csv(&["kddcup.data_10_percent"], CsvSpec::kddcup()),
        "wav" => csv(&["waveform-5000.csv"], CsvSpec::waveform()),
        "c-4" => csv(&["connect-4.data"], CsvSpec::connect4()),
        "sat" => csv(&["satimage.dat"], CsvSpec::satimage()),
        "pen" => csv(&["penbased.dat"], CsvSpec::penbased()),
        "far" => {
            let (path, text) = verified_text(dir, "fars.dat", root)?;
            let mut d = parse_header_format(&path, &text, Dialect::Keel)?;
            d.name = "far".into();
            Ok(d)
        }
        "par" => Ok(parmx()),
        other => Err(DatasetError::UnknownSet(other.to_string())),
    }
}

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/// Bits per parity block and parity blocks of [`parmx`].
const PARMX_BLOCK: usize = 3;
const PARMX_BLOCKS: usize = 6;

/// ParMX, the hierarchical parity-multiplexer of Butz (2006, the paper's ref. [8]),
/// Table 1's "Par": 18 binary attributes in 6 blocks of 3; the parity of each block
/// gives one bit of a 6-bit multiplexer (the first two parity bits, most significant
/// first, address one of the other four, whose value is the class). All 2^18 =
/// 262,144 inputs are enumerated (instance `k` has attribute `j` = bit `17 − j` of
/// `k`), so the classes are exactly balanced. Ten-fold cross-validation gives
/// training sets of 262,144 − 26,215 = 235,929 (four folds) or 235,930 (six
/// folds); 0.9 × 262,144 = 235,929.6, and the paper's |T| is 235,929.
pub fn parmx() -> Dataset {
    let bits = PARMX_BLOCK * PARMX_BLOCKS;
    let n = 1usize << bits;
    let mut values = Vec::with_capacity(n * bits);
    let mut labels = Vec::with_capacity(n);
    for k in 0..n {
        let row: Vec<u8> = (0..bits).map(|j| ((k >> (bits - 1 - j)) & 1) as u8).collect();
        let parity: Vec<usize> = row.chunks(PARMX_BLOCK).map(|b| usize::from(b.iter().fold(0, |p, x| p ^ x))).collect();
        let address = parity[0] * 2 + parity[1];
        labels.push(parity[2 + address] as u16);
        values.extend(row.iter().map(|&b| f32::from(b)));
    }
    Dataset {
        name: "ParMX (synthetic 3-parity 6-multiplexer)".into(),
        attributes: (0..bits).map(|j| Attribute::Nominal { name: format!("b{j}"), values: names(&["0", "1"]) }).collect(),
        classes: names(&["0", "1"]),
        values,
        labels,
        synthetic: true,
    }
}

/// A standard normal draw (Box–Muller).
fn standard_normal(rng: &mut StdRng) -> f64 {
    let u1 = 1.0 - rng.random::<f64>(); // (0, 1]
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Breiman et al.'s waveform with 40 attributes (CART, 1984, pp. 49–55, as
/// `shared/data/SOURCES.md` states it): base waves h1, h2, h3 over i = 1..21
/// (triangles of height 6 centred at 7, 15, 11); a class uniform in {0, 1, 2} and
/// u ~ U(0, 1) mix two of them (0: h1, h2; 1: h1, h3; 2: h2, h3); N(0, 1) noise is
/// added to each of the 21 attributes and 19 pure N(0, 1) attributes follow.
pub fn waveform(n: usize, seed: u64) -> Dataset {
    let h = |centre: f64, i: usize| (6.0 - (i as f64 - centre).abs()).max(0.0);
    let waves = [[7.0, 15.0], [7.0, 11.0], [15.0, 11.0]];
    let mut rng = StdRng::seed_from_u64(seed);
    let mut values = Vec::with_capacity(n * 40);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let class = rng.random_range(0..3usize);
        let u = rng.random::<f64>();
        let [a, b] = waves[class];
        for i in 1..=21 {
            values.push((u * h(a, i) + (1.0 - u) * h(b, i) + standard_normal(&mut rng)) as f32);
        }
        for _ in 0..19 {
            values.push(standard_normal(&mut rng) as f32);
        }
        labels.push(class as u16);
    }
    Dataset {
        name: format!("waveform-40 (synthetic, Breiman et al., seed {seed})"),
        attributes: (1..=40).map(|i| Attribute::Continuous { name: format!("x{i}") }).collect(),
        classes: names(&["0", "1", "2"]),
        values,
        labels,
        synthetic: true,
    }
}

/// Values of each nominal attribute of [`scalable`] and [`synthetic_standin`].
const SYNTHETIC_NOMINAL_VALUES: usize = 4;

/// A synthetic set for the sweeps: `instances` × `attributes` (a share
/// `nominal_fraction` of them nominal with 4 values, spread evenly; the rest
/// continuous, uniform on [0, 1)) × `classes`. The class depends on two attributes
/// drawn from the seed: class = (bucket(a) + bucket(b)) mod classes, where a
/// continuous value x falls in bucket ⌊x · classes⌋ and nominal value v in
/// ⌊v · classes / 4⌋, so a set of interval / value-set rules describes it exactly.
pub fn scalable(instances: usize, attributes: usize, classes: usize, nominal_fraction: f64, seed: u64) -> Dataset {
    let nominal = ((attributes as f64 * nominal_fraction.clamp(0.0, 1.0)).round() as usize).min(attributes);
    let name = format!("scalable {instances}×{attributes}×{classes} ({nominal} nominal, synthetic, seed {seed})");
    planted(name, instances, attributes, nominal, classes, seed)
}

fn planted(name: String, instances: usize, attributes: usize, nominal: usize, classes: usize, seed: u64) -> Dataset {
    assert!(attributes >= 1 && classes >= 1, "a synthetic set needs an attribute and a class");
    let is_nominal: Vec<bool> = (0..attributes).map(|i| (i + 1) * nominal / attributes > i * nominal / attributes).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..attributes).collect();
    order.shuffle(&mut rng);
    let relevant = &order[..attributes.min(2)];
    let bucket = |att: usize, v: f32| {
        if is_nominal[att] {
            v as usize * classes / SYNTHETIC_NOMINAL_VALUES
        } else {
            ((v as f64 * classes as f64) as usize).min(classes - 1)
        }
    };
    let mut values = Vec::with_capacity(instances * attributes);
    let mut labels = Vec::with_capacity(instances);
    for _ in 0..instances {
        let start = values.len();
        for &nom in &is_nominal {
            values.push(if nom { rng.random_range(0..SYNTHETIC_NOMINAL_VALUES) as f32 } else { rng.random::<f32>() });
        }
        let row = &values[start..];
        labels.push((relevant.iter().map(|&a| bucket(a, row[a])).sum::<usize>() % classes) as u16);
    }
    let value_names: Vec<String> = (0..SYNTHETIC_NOMINAL_VALUES).map(|v| format!("v{v}")).collect();
    Dataset {
        name,
        attributes: is_nominal
            .iter()
            .enumerate()
            .map(|(i, &nom)| {
                let name = format!("a{i}");
                if nom { Attribute::Nominal { name, values: value_names.clone() } } else { Attribute::Continuous { name } }
            })
            .collect(),
        classes: (0..classes).map(|c| c.to_string()).collect(),
        values,
        labels,
        synthetic: true,
    }
}

/// The protein-structure sets of Table 1, which are not public.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StandIn {
    Cn,
    Ss,
    Sa,
}

/// The shape of a set: instances of the whole set and attribute counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub instances: usize,
    pub continuous: usize,
    pub nominal: usize,
    pub classes: usize,
}

impl StandIn {
    pub const ALL: [StandIn; 3] = [StandIn::Cn, StandIn::Ss, StandIn::Sa];

    pub fn label(self) -> &'static str {
        match self {
            StandIn::Cn => "CN",
            StandIn::Ss => "SS",
            StandIn::Sa => "SA",
        }
    }

    /// Table 1's shape; the whole set is |T| / 0.9 rounded (|T| is a ten-fold
    /// training set): CN 234,638 → 260,709 × 180 continuous, 2 classes; SS 75,583 →
    /// 83,981 × 300 continuous, 3 classes; SA 493,788 → 548,653 × (244 continuous +
    /// 26 nominal), 2 classes.
    pub fn paper_shape(self) -> Shape {
        match self {
            StandIn::Cn => Shape { instances: 260_709, continuous: 180, nominal: 0, classes: 2 },
            StandIn::Ss => Shape { instances: 83_981, continuous: 300, nominal: 0, classes: 3 },
            StandIn::Sa => Shape { instances: 548_653, continuous: 244, nominal: 26, classes: 2 },
        }
    }
}

/// A clearly labelled synthetic stand-in for CN, SS or SA with the attributes and
/// classes of Table 1 and `instances` instances (the paper's:
/// `set.paper_shape().instances`), generated as [`scalable`] does. Its name says
/// "synthetic stand-in"; its timings are not the real set's accuracy.
pub fn synthetic_standin(set: StandIn, instances: usize, seed: u64) -> Dataset {
    let s = set.paper_shape();
    let name = format!("{} (synthetic stand-in, seed {seed})", set.label());
    planted(name, instances, s.continuous + s.nominal, s.nominal, s.classes, seed)
}

// ---------------------------------------------------------------------------
// Cross-validation
// ---------------------------------------------------------------------------

/// Ten-fold (`k`-fold) stratified cross-validation (Section 4): the instances of
/// each class are shuffled with `seed`, the classes laid end to end, and position
/// p dealt to fold p mod k. Every index is in exactly one fold; fold sizes differ by
/// at most one and every class is split ⌊n_c / k⌋ or ⌈n_c / k⌉ per fold. Fold f
/// holds ⌊n / k⌋ + [f < n mod k] instances; indices are sorted within a fold.
pub fn stratified_folds(labels: &[u16], k: usize, seed: u64) -> Vec<Vec<usize>> {
    assert!(k >= 1, "at least one fold");
    let classes = labels.iter().map(|&l| usize::from(l) + 1).max().unwrap_or(0);
    let mut by_class = vec![Vec::new(); classes];
    for (i, &l) in labels.iter().enumerate() {
        by_class[usize::from(l)].push(i);
    }
    let mut rng = StdRng::seed_from_u64(seed);
    for class in &mut by_class {
        class.shuffle(&mut rng);
    }
    let mut folds = vec![Vec::with_capacity(labels.len() / k + 1); k];
    for (p, i) in by_class.into_iter().flatten().enumerate() {
        folds[p % k].push(i);
    }
    folds.iter_mut().for_each(|f| f.sort_unstable());
    folds
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn vendored() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/biohel")
    }

    fn temp_file(name: &str, content: &[u8], gzip: bool) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("evorepro-dataset-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        let bytes = if gzip {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(content).expect("gzip");
            enc.finish().expect("gzip")
        } else {
            content.to_vec()
        };
        std::fs::write(&path, bytes).expect("write temp file");
        path
    }

    fn tiny_spec() -> CsvSpec {
        CsvSpec {
            name: "tiny".into(),
            columns: vec![
                ("x".into(), ColumnKind::Continuous),
                ("colour".into(), ColumnKind::NominalFromData),
                ("shape".into(), ColumnKind::Nominal(names(&["round", "square"]))),
                ("class".into(), ColumnKind::Nominal(names(&["no", "yes"]))),
            ],
            class_column: 3,
            header: false,
        }
    }

    #[test]
    fn uci_csv_reads_plain_and_gzip_with_missing_values_and_class_periods() {
        let text = b"|comment line\n1.5, red, round, yes\n\n?, blue, square, no.\n-2, red, ?, yes.\n";
        for gzip in [false, true] {
            let path = temp_file(if gzip { "tiny.csv.gz" } else { "tiny.csv" }, text, gzip);
            let d = load_uci_csv(&[path], &tiny_spec()).expect("loads");
            assert_eq!((d.instances(), d.attribute_count(), d.classes.len()), (3, 3, 2));
            assert_eq!(d.labels, vec![1, 0, 1]);
            assert_eq!(d.row(0), &[1.5, 0.0, 0.0]);
            assert!(d.row(1)[0].is_nan() && d.row(1)[1] == 1.0 && d.row(1)[2] == 1.0);
            assert!(d.row(2)[2].is_nan());
            assert_eq!(d.attributes[1], Attribute::Nominal { name: "colour".into(), values: names(&["red", "blue"]) });
        }
    }

    #[test]
    fn keel_reads_header_ranges_outputs_and_missing_values() {
        let text = "@relation toy\n@attribute Age real [0.0, 99.0]\n@attribute Kind {a,b,c}\n@attribute N integer [1,5]\n\
                    @attribute Class {neg,pos}\n@inputs Age, Kind, N\n@outputs Class\n@data\n34, b, 3, pos\n?, c, 1, neg\n";
        let d = load_keel(&temp_file("toy.dat.gz", text.as_bytes(), true)).expect("loads");
        assert_eq!(d.name, "toy");
        assert_eq!((d.instances(), d.attribute_count(), d.nominal_count()), (2, 3, 1));
        assert_eq!(d.classes, names(&["neg", "pos"]));
        assert_eq!(d.labels, vec![1, 0]);
        assert_eq!(d.row(0), &[34.0, 1.0, 3.0]);
        assert!(d.row(1)[0].is_nan());
    }

    #[test]
    fn arff_reads_comments_quoted_names_and_missing_values() {
        let text = "% a comment\n@RELATION weather\n@attribute 'out look' {sunny, rainy}\n@attribute temp numeric\n\
                    @attribute play {yes, no}\n@data\n% another\nsunny, 20.5, yes\nrainy, ?, no\n";
        let d = load_arff(&temp_file("w.arff", text.as_bytes(), false)).expect("loads");
        assert_eq!(d.attributes[0].name(), "out look");
        assert_eq!((d.instances(), d.attribute_count()), (2, 2));
        assert_eq!(d.labels, vec![0, 1]);
        assert!(d.row(1)[1].is_nan());
    }

    fn parse_error(e: DatasetError) -> (String, usize, usize, String) {
        match e {
            DatasetError::Parse { path, line, column, text, .. } => {
                (path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(), line, column, text)
            }
            other => panic!("expected a parse error, got {other}"),
        }
    }

    #[test]
    fn malformed_input_is_an_error_with_file_line_and_column() {
        let bad_number = temp_file("bad-number.csv", b"1, red, round, yes\n2.5x, red, round, no\n", false);
        let e = load_uci_csv(&[bad_number], &tiny_spec()).expect_err("bad number");
        assert!(e.to_string().contains("bad-number.csv:2:1:"), "{e}");
        assert_eq!(parse_error(e), ("bad-number.csv".into(), 2, 1, "2.5x".into()));

        let short = temp_file("short.csv", b"1, red, round, yes\n\n3, red, round\n", false);
        let (_, line, column, _) = parse_error(load_uci_csv(&[short], &tiny_spec()).expect_err("too few"));
        assert_eq!((line, column), (3, 14));
        let long = temp_file("long.csv", b"1, red, round, yes, 7\n", false);
        let (_, line, column, _) = parse_error(load_uci_csv(&[long], &tiny_spec()).expect_err("too many"));
        assert_eq!((line, column), (1, 21));

        let unknown = temp_file("unknown.dat", b"@relation u\n@attribute K {a,b}\n@attribute C {x,y}\n@data\na, x\nb,  z\n", false);
        let e = load_keel(&unknown).expect_err("unknown value");
        assert_eq!(parse_error(e), ("unknown.dat".into(), 6, 5, "z".into()));

        let mut spec = tiny_spec();
        spec.class_column = 0;
        assert!(matches!(load_uci_csv(&[], &spec), Err(DatasetError::Spec { .. })));

        let arff = temp_file("bad.arff", b"@relation r\n@attribute a date\n@attribute c {x}\n@data\n", false);
        let (_, line, ..) = parse_error(load_arff(&arff).expect_err("unsupported type"));
        assert_eq!(line, 2);
    }

    #[test]
    fn vendored_checksums_verify_and_a_corrupted_copy_fails() {
        for (file, hash, bytes) in CHECKSUMS {
            verify_sha256(&vendored().join(format!("{file}.gz")), hash).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(read_content(&vendored().join(format!("{file}.gz"))).unwrap().len() as u64, bytes, "{file}");
        }
        let content = read_content(&vendored().join("satimage.dat.gz")).expect("read");
        let mut corrupted = content.clone();
        corrupted[100] ^= 1;
        let path = temp_file("satimage.dat", &corrupted, false);
        let e = verify_sha256(&path, checksum_of("satimage.dat").expect("listed").0).expect_err("corrupted");
        assert!(matches!(e, DatasetError::Checksum { .. }) && e.to_string().contains("satimage.dat"), "{e}");
        // load_named refuses a corrupted file.
        let dir = path.parent().expect("dir");
        assert!(matches!(load_named(dir, "sat", None), Err(DatasetError::Checksum { .. })));
    }

    #[test]
    fn data_files_are_regular_files_under_the_root_of_bounded_size() {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        let (root, outside) = (top.join("root"), top.join("outside"));
        std::fs::create_dir_all(root.join("data")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let read = |name: &str, limit| read_data_file(&root.join("data").join(name), Some(&root), limit);
        // A named pipe is refused by its type, before it is opened (opening it would block).
        let fifo = root.join("data/fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read("fifo", SizeLimit::UNKNOWN).unwrap_err().to_string();
        assert!(e.contains("fifo") && e.contains("a named pipe"), "{e}");
        // A link to a device, or out of the root, is followed and refused.
        std::os::unix::fs::symlink("/dev/zero", root.join("data/zero")).unwrap();
        let e = read_data_file(&root.join("data/zero"), None, SizeLimit::UNKNOWN).unwrap_err().to_string();
        assert!(e.contains("data/zero") && e.contains("a device"), "{e}");
        std::fs::write(outside.join("o.dat"), "o").unwrap();
        std::os::unix::fs::symlink(outside.join("o.dat"), root.join("data/link.dat")).unwrap();
        let e = read("link.dat", SizeLimit::UNKNOWN).unwrap_err().to_string();
        assert!(e.contains("link.dat") && e.contains("outside the repository root"), "{e}");
        // A gzip bomb: 64 MiB of zeros in about 64 KiB stop at the limit, the file named.
        let zeros = vec![0u8; 64 << 20];
        let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(root.join("data/bomb.gz")).unwrap(), flate2::Compression::best());
        enc.write_all(&zeros).unwrap();
        enc.finish().unwrap();
        for limit in [SizeLimit::UNKNOWN, SizeLimit::expected(1_000_000)] {
            let e = read("bomb.gz", limit).unwrap_err().to_string();
            assert!(e.contains("bomb.gz") && e.contains("bytes decompressed"), "{e}");
        }
        // Larger on disk than expected; a truncated gzip stream says so once.
        std::fs::write(root.join("data/big.dat"), vec![b'1'; 10_000]).unwrap();
        let e = read("big.dat", SizeLimit::expected(100)).unwrap_err().to_string();
        assert!(e.contains("big.dat") && e.contains("bytes on disk"), "{e}");
        let whole = std::fs::read(temp_file("whole.dat", "1,2,3,a\n".repeat(1000).as_bytes(), true)).unwrap();
        std::fs::write(root.join("data/cut.gz"), &whole[..whole.len() / 2]).unwrap();
        let e = format!("{:#}", anyhow::Error::from(read("cut.gz", SizeLimit::UNKNOWN).unwrap_err()));
        assert!(e.contains("cut.gz: corrupt gzip stream: ") && e.matches("deflate").count() <= 1, "{e}");
        assert_eq!(read_data_file(&outside.join("o.dat"), None, SizeLimit::UNKNOWN).unwrap(), b"o");
    }

    #[test]
    fn named_sets_have_the_shapes_of_sources() {
        for name in ["adu", "wav", "c-4", "sat", "pen", "far", "kdd"] {
            let s = named_shape(name).unwrap();
            let (n, a, nominal, classes) = (s.instances, s.continuous + s.nominal, s.nominal, s.classes);
            let start = std::time::Instant::now();
            let d = load_named(&vendored(), name, None).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("{name}: loaded in {:.2?}", start.elapsed());
            assert_eq!((d.instances(), d.attribute_count(), d.nominal_count(), d.classes.len()), (n, a, nominal, classes), "{name}");
            assert_eq!(d.values.len(), n * a);
            assert!(!d.synthetic);
            assert!(d.class_counts().iter().all(|&c| c > 0), "{name}: every class occurs");
        }
        assert!(matches!(load_named(&vendored(), "xyz", None), Err(DatasetError::UnknownSet(_))));
        let (p, s) = (parmx(), named_shape("par").unwrap());
        assert_eq!((p.instances(), p.attribute_count(), p.nominal_count(), p.classes.len()), (s.instances, 18, s.nominal, s.classes));
    }

    #[test]
    fn parmx_enumerates_all_inputs_balanced_with_the_papers_training_size() {
        let d = parmx();
        assert_eq!((d.instances(), d.attribute_count(), d.nominal_count()), (262_144, 18, 18));
        assert_eq!(d.class_counts(), vec![131_072, 131_072]);
        let k = 0b000_111_000_000_000_000usize; // parities 0,1,0,0,0,0 → address 1 → block 3: 0
        assert_eq!(d.labels[k], 0);
        let k = 0b000_111_000_111_000_000usize; // parities 0,1,0,1,0,0 → address 1 → block 3: 1
        assert_eq!(d.labels[k], 1);
        let k = 0b111_000_000_000_001_000usize; // parities 1,0,0,0,1,0 → address 2 → block 4: 1
        assert_eq!(d.labels[k], 1);
        let folds = stratified_folds(&d.labels, 10, 1);
        let training: Vec<usize> = folds.iter().map(|f| d.instances() - f.len()).collect();
        assert!(training.contains(&235_929) && training.iter().all(|&t| t == 235_929 || t == 235_930));
    }

    #[test]
    fn waveform_has_forty_attributes_and_balanced_classes() {
        let d = waveform(6_000, 3);
        assert_eq!((d.instances(), d.attribute_count(), d.classes.len()), (6_000, 40, 3));
        assert!(d.class_counts().iter().all(|&c| (1_850..=2_150).contains(&c)), "{:?}", d.class_counts());
        // x7 (the peak of h1) has mean 3, 3 + 1 and 1 in classes 0, 1, 2 (h3(7) = 2): 8/3 overall.
        let mean = |att: usize| (0..d.instances()).map(|i| f64::from(d.row(i)[att])).sum::<f64>() / d.instances() as f64;
        assert!((mean(6) - 8.0 / 3.0).abs() < 0.15, "{}", mean(6));
        assert!(mean(30).abs() < 0.1);
        assert_eq!(waveform(10, 3), waveform(10, 3));
    }

    #[test]
    fn standins_and_scalable_sets_have_the_requested_shapes() {
        for set in StandIn::ALL {
            let d = synthetic_standin(set, 500, 7);
            let s = set.paper_shape();
            assert_eq!((d.attribute_count(), d.nominal_count(), d.classes.len()), (s.continuous + s.nominal, s.nominal, s.classes));
            assert!(d.synthetic && d.name.contains("synthetic stand-in"));
        }
        let d = scalable(2_000, 10, 3, 0.3, 5);
        assert_eq!((d.instances(), d.attribute_count(), d.nominal_count(), d.classes.len()), (2_000, 10, 3, 3));
        assert!(d.class_counts().iter().all(|&c| c > 400), "{:?}", d.class_counts());
        assert_eq!(d, scalable(2_000, 10, 3, 0.3, 5));
    }

    #[test]
    fn stratified_folds_partition_and_stratify() {
        let labels: Vec<u16> = (0..1_003).map(|i| if i % 7 == 0 { 2 } else { (i % 2) as u16 }).collect();
        let folds = stratified_folds(&labels, 10, 42);
        let mut all: Vec<usize> = folds.concat();
        all.sort_unstable();
        assert_eq!(all, (0..labels.len()).collect::<Vec<_>>());
        for c in 0..3 {
            let total = labels.iter().filter(|&&l| l == c).count();
            for f in &folds {
                let in_fold = f.iter().filter(|&&i| labels[i] == c).count();
                assert!(in_fold == total / 10 || in_fold == total.div_ceil(10), "class {c}: {in_fold} of {total}");
            }
        }
        assert!(folds.iter().all(|f| f.len() == 100 || f.len() == 101));
        assert_eq!(folds, stratified_folds(&labels, 10, 42));
        assert_ne!(folds, stratified_folds(&labels, 10, 43));
    }

    #[test]
    fn impute_missing_uses_mean_and_mode_of_the_given_instances() {
        let path = temp_file("imp.csv", b"1, red, round, yes\n3, red, square, no\n?, ?, ?, yes\n100, blue, round, no\n", false);
        let mut d = load_uci_csv(&[path], &tiny_spec()).expect("loads");
        d.impute_missing(&[0, 1, 2]);
        assert_eq!(d.row(2), &[2.0, 0.0, 0.0]);
        assert_eq!(d.row(3), &[100.0, 1.0, 0.0]);
    }
}
