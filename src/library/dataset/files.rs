//! Reading data files: plain or gzip, regular files only, of bounded size, and their SHA-256 checks.

use super::DatasetError;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

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
pub(super) fn read_content(path: &Path) -> Result<Vec<u8>, DatasetError> {
    read_data_file(path, None, SizeLimit::UNKNOWN)
}

pub(super) fn read_text(path: &Path) -> Result<String, DatasetError> {
    text_of(path, read_content(path)?)
}

/// `bytes` of `path` as text; not UTF-8 is an error naming the line and column.
pub(super) fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String, DatasetError> {
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

pub(super) fn check_sha256(path: &Path, content: &[u8], expected_hex: &str) -> Result<(), DatasetError> {
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
