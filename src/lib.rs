//! evorepro — reproduces the tables and figures of papers on GPU-accelerated
//! evolutionary computation.
//!
//! - [`library`]: the CPU reference algorithms (seeded, clear).
//! - [`gpu`]: CUDA implementations of the hot spots (`kernels/*.cu`, NVRTC).
//! - [`experiments`]: one module per paper, the registry and the runner.
//! - [`claims`]: the verdict model every paper's checks share.
//! - [`records`], [`stats`], [`svm`], [`report`]: raw records → analysis → Markdown and charts.

// A claim's check returns its `claims::Outcome` early as the `Err` of a
// `Result` (too few runs, nothing stored, …): once per claim per report, so
// its size costs nothing, and boxing it would clutter every check.
#![allow(clippy::result_large_err)]

/// `eprintln!` that ignores a closed stream: a long run whose reader has gone
/// (`reproduce … 2>&1 | head -1`) keeps going and releases its lock at the end.
#[macro_export]
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// `println!` that ignores a closed stream (see [`say!`]).
#[macro_export]
macro_rules! say_out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

pub mod claims;
pub mod cli;
pub mod error;
pub mod experiments;
pub mod fmt;
pub mod gpu;
pub mod hardware;
pub mod library;
pub mod records;
pub mod report;
pub mod spec;
pub mod stats;
pub mod svm;
