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

mod csv;
mod files;
mod folds;
mod generators;
mod keel_arff;
mod named;
mod table;
#[cfg(test)]
mod tests;

pub use csv::{CsvSpec, load_uci_csv};
pub use files::{MAX_DATA_BYTES, MAX_GZIP_RATIO, SizeLimit, read_data_file, verify_sha256};
pub use folds::stratified_folds;
pub use generators::{Shape, StandIn, parmx, scalable, synthetic_standin, waveform};
pub use keel_arff::{load_arff, load_keel};
pub use named::{CHECKSUMS, load_named, named_shape};
pub use table::ColumnKind;

use std::path::PathBuf;
use thiserror::Error;

/// BioHEL holds a nominal condition as a bit mask of allowed values
/// (`biohel::Condition::Values`, 128 bits: FARS has attributes with 85 values,
/// kddcup's `service` 66), so a nominal attribute may have at most this many values.
pub const MAX_NOMINAL_VALUES: usize = 128;

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
