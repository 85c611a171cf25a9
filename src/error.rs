//! Domain errors, each naming what the user must fix (file, line, key, value).

use std::path::PathBuf;
use thiserror::Error;

/// A malformed or impossible experiment spec.
#[derive(Debug, Error)]
pub enum SpecError {
    #[error("cannot read spec {path}")]
    Read { path: PathBuf, source: std::io::Error },
    /// Syntax or type error; toml's message carries line, column and key.
    #[error("malformed spec {path}: {message}")]
    Parse { path: PathBuf, message: String },
    /// A value that parses but cannot be run.
    #[error("{path}:{line}: `{key}`: {message}")]
    Invalid { path: PathBuf, line: usize, key: String, message: String },
    #[error("{path}:{line}:{column}: not UTF-8 text; save the spec as UTF-8")]
    NotUtf8 { path: PathBuf, line: usize, column: usize },
    #[error("{path}: no profile `{profile}` (profiles: {known})")]
    UnknownProfile { path: PathBuf, profile: String, known: String },
    #[error("--root {path}: not a folder")]
    Root { path: PathBuf },
    /// A name that would become a path: only letters, digits, `-` and `_`.
    #[error("{what} name `{name}`: use 1–64 letters, digits, `-` or `_` (it names files under --out)")]
    Name { what: String, name: String },
}

/// Problems with raw record files.
#[derive(Debug, Error)]
pub enum RecordError {
    #[error("cannot read records {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("cannot write records {path}: {message}")]
    Write { path: PathBuf, message: String },
    #[error(
        "records {path} were written from a different spec (hash {found}, now {expected}); \
         run without --resume to start afresh (the old records are archived, not deleted)"
    )]
    SpecChanged { path: PathBuf, found: String, expected: String },
    #[error("another run (pid {holder}) is writing records to {path}'s folder; wait for it, or use another --out")]
    Locked { path: PathBuf, holder: String },
}

/// GPU layer failures.
#[derive(Debug, Error)]
pub enum GpuError {
    #[error("no CUDA driver: {0}")]
    Unavailable(String),
    #[error("CUDA device {ordinal}: {message}")]
    Device { ordinal: usize, message: String },
    #[error("NVRTC failed to compile kernels/{file} with options {options:?}:\n{log}")]
    Compile { file: String, options: Vec<String>, log: String },
    #[error("kernel {kernel}: {message}")]
    Launch { kernel: String, message: String },
    #[error("out of device memory: {what} needs {needed_mib} MiB, the device has {free_mib} MiB free")]
    OutOfMemory { what: String, needed_mib: u64, free_mib: u64 },
    /// The host read device state that a launch still owes work to (the island GA's
    /// parents with a generation's replacement pending): a misuse of the GPU layer.
    #[error("{what} read while generation {generation}'s replacement is pending (settle first)")]
    Pending { what: String, generation: u32 },
}
