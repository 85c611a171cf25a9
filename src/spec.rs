//! Experiment specs: `experiments/<paper>.toml`, parsed into each paper's own
//! typed spec with errors that name the file, line and key.

use crate::claims::hardware::{Datasheet, Quantity};
use crate::error::SpecError;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most repetitions (runs, seeds, bisections) of one configuration a spec
/// may ask for: each is a case of its own, and a profile's cases are all listed
/// before any work (the papers ran at most 30).
pub const MAX_REPEATS: usize = 1000;

/// A spec file's text, where it came from, and its hash (recorded in every row).
#[derive(Clone, Debug)]
pub struct SpecFile {
    pub path: PathBuf,
    pub text: String,
    /// First 16 hex digits of the SHA-256 of the text.
    pub hash: String,
}

impl SpecFile {
    pub fn read(path: &Path) -> Result<SpecFile, SpecError> {
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Read { path: path.to_owned(), source })?;
        Ok(SpecFile::from_text(path, text))
    }

    pub fn from_text(path: &Path, text: String) -> SpecFile {
        let digest = Sha256::digest(text.as_bytes());
        let hash = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        SpecFile { path: path.to_owned(), text, hash }
    }

    /// Deserializes the whole file into `T`; errors carry line, column and key.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, SpecError> {
        toml::from_str(&self.text).map_err(|e| SpecError::Parse { path: self.path.clone(), message: e.to_string() })
    }

    /// 1-based line of a byte offset (from a `toml::Spanned` value).
    pub fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())].matches('\n').count() + 1
    }

    /// Profile `name` of `profiles` (a spec's `[profiles.*]` tables), or an error
    /// listing the known ones.
    pub fn profile<'p, P>(&self, profiles: &'p std::collections::BTreeMap<String, P>, name: &str) -> Result<&'p P, SpecError> {
        profiles.get(name).ok_or_else(|| SpecError::UnknownProfile {
            path: self.path.clone(),
            profile: name.into(),
            known: profiles.keys().cloned().collect::<Vec<_>>().join(", "),
        })
    }

    /// Refuses a repetition count above [`MAX_REPEATS`].
    pub fn check_repeats(&self, n: &toml::Spanned<usize>, key: &str) -> Result<(), SpecError> {
        if *n.get_ref() > MAX_REPEATS {
            return Err(self.invalid(n, key, format!("{} repetitions: at most {MAX_REPEATS} (each is a case of its own)", n.get_ref())));
        }
        Ok(())
    }

    /// An [`SpecError::Invalid`] at the span of a value.
    pub fn invalid<T>(&self, at: &toml::Spanned<T>, key: &str, message: impl Into<String>) -> SpecError {
        SpecError::Invalid { path: self.path.clone(), line: self.line_of(at.span().start), key: key.to_owned(), message: message.into() }
    }
}

/// The `[paper]` table every spec starts with.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperMeta {
    pub id: String,
    pub title: String,
    pub citation: String,
    /// The hardware the paper measured on.
    pub hardware: PaperHardware,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperHardware {
    pub gpu: String,
    pub cpu: String,
    pub cuda: String,
    /// Memory bandwidth of the paper's GPU, GB/s (datasheet).
    pub gpu_bandwidth_gbs: f64,
    /// Datasheet quantities of the paper's machine that claims' hardware models
    /// set against this machine's measurements, each with its source.
    #[serde(default)]
    pub datasheet: BTreeMap<Quantity, Datasheet>,
}

/// A claim of the paper, checked by the experiment's code named in `check`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSpec {
    pub id: String,
    /// Where the paper says it (section, table, figure).
    pub source: String,
    /// The claim in the paper's words.
    pub text: String,
    /// Which checker evaluates it.
    pub check: toml::Spanned<String>,
    /// The check's parameters (an inline table), typed by the check.
    #[serde(default)]
    pub params: Option<toml::Spanned<toml::Value>>,
}

#[cfg(test)]
impl ClaimSpec {
    /// A claim with this id and no parameters.
    pub fn for_tests(id: &str) -> ClaimSpec {
        let text = format!("id = \"{id}\"\nsource = \"s\"\ntext = \"t\"\ncheck = \"c\"\n");
        toml::from_str(&text).expect("test claim")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct T {
        a: u32,
        b: toml::Spanned<String>,
    }

    #[test]
    fn parse_errors_name_file_line_and_key() {
        let f = SpecFile::from_text(Path::new("x.toml"), "a = 1\nb = \"ok\"\nc = 3\n".into());
        let e = f.parse::<T>().unwrap_err().to_string();
        assert!(e.contains("x.toml") && e.contains("line 3") && e.contains("`c`"), "{e}");
        let f = SpecFile::from_text(Path::new("y.toml"), "a = \"one\"\nb = \"ok\"\n".into());
        let e = f.parse::<T>().unwrap_err().to_string();
        assert!(e.contains("y.toml") && e.contains("line 1"), "{e}");
    }

    #[test]
    fn invalid_values_report_their_line() {
        let f = SpecFile::from_text(Path::new("z.toml"), "a = 1\n\nb = \"bad\"\n".into());
        let t: T = f.parse().unwrap();
        let e = f.invalid(&t.b, "b", "not allowed").to_string();
        assert_eq!(e, "z.toml:3: `b`: not allowed");
    }

    #[test]
    fn hash_depends_on_text() {
        let a = SpecFile::from_text(Path::new("a"), "x = 1".into());
        let b = SpecFile::from_text(Path::new("a"), "x = 2".into());
        assert_eq!(a.hash.len(), 16);
        assert_ne!(a.hash, b.hash);
    }
}
