//! evorepro — reproduces the tables and figures of papers on GPU-accelerated
//! evolutionary computation.
//!
//! - [`library`]: the CPU reference algorithms (seeded, clear).
//! - [`gpu`]: CUDA implementations of the hot spots (`kernels/*.cu`, NVRTC).
//! - [`experiments`]: one module per paper, the registry and the runner.
//! - [`claims`]: the verdict model every paper's checks share.
//! - [`records`], [`stats`], [`svm`], [`report`]: raw records → analysis → Markdown and charts.

pub mod claims;
pub mod cli;
pub mod error;
pub mod experiments;
pub mod gpu;
pub mod hardware;
pub mod library;
pub mod records;
pub mod report;
pub mod spec;
pub mod stats;
pub mod svm;
