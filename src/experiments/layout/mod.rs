//! The layout paper: Cárdenas-Montes & Vega-Rodríguez, "Effect of Data Layout
//! in the Evaluation Time of Non-Separable Functions on GPU".
//!
//! Cases are (function, population, dimension). Each case times the paper's
//! sequential CPU evaluation (Section 3.3), a multi-threaded CPU evaluation (an
//! extra column), and the GPU strategies S1–S4 (Section 3.2: copy in, kernel,
//! copy out) at their best block size, after checking every evaluator against
//! the f64 reference on the case's fresh random inputs. The report rebuilds
//! Table 1, the LinearSVM decision regions of Figures 1–6 and the claims.

pub mod analysis;
pub mod cases;
pub mod claims;
pub mod crossing;
pub mod likeness;
pub mod limits;
mod points;
pub mod render;
pub mod rows;
mod s3_limit;
pub mod selfcheck;
pub mod spec;
#[cfg(test)]
mod testing;

use super::{Experiment, Paper};
use crate::claims::Claims;
use crate::error::SpecError;
use crate::spec::SpecFile;
use analysis::Analysis;
use anyhow::Result;
use spec::{LayoutSpec, Profile};
use std::path::Path;

pub struct Layout;
pub static LAYOUT: Layout = Layout;

impl Experiment for Layout {
    fn id(&self) -> &'static str {
        "layout"
    }
    fn title(&self) -> &'static str {
        "Effect of data layout in the evaluation time of non-separable functions on GPU (S1–S4, Table 1, Figures 1–6)"
    }
    fn embedded_spec(&self) -> &'static str {
        include_str!("../../../experiments/layout.toml")
    }
    fn kernels(&self) -> &'static [&'static crate::gpu::KernelSource] {
        &[&crate::gpu::LAYOUT_CU]
    }
    fn selfcheck(&self, gpu: &crate::gpu::Gpu, small: bool, seed: u64, _datasets: &Path) -> Result<usize> {
        selfcheck::selfcheck(gpu, small, seed)
    }
    fn load(&self, file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
        let (spec, claims): (LayoutSpec, _) = super::load_spec(file, self.id(), claims::CHECKS)?;
        Ok(Box::new(LayoutPaper { spec, file: file.clone(), claims }))
    }
}

/// The loaded spec and its claims bound to their checks.
pub struct LayoutPaper {
    spec: LayoutSpec,
    file: SpecFile,
    claims: Claims<Analysis>,
}

impl LayoutPaper {
    fn profile(&self, name: &str) -> Result<&Profile, SpecError> {
        self.file.profile(&self.spec.profiles, name)
    }
}
