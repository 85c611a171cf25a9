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
mod figures;
pub mod likeness;
pub mod limits;
mod performance;
mod points;
pub mod render;
pub mod rows;
mod s3_limit;
pub mod selfcheck;
pub mod spec;
mod table1;
#[cfg(test)]
mod testing;

use super::{Experiment, Paper};
use crate::claims::Claims;
use crate::error::SpecError;
use crate::spec::SpecFile;
use analysis::Analysis;
use anyhow::Result;
use spec::{LayoutSpec, Profile};

pub static LAYOUT: Experiment = Experiment {
    id: "layout",
    title: "Effect of data layout in the evaluation time of non-separable functions on GPU (S1–S4, Table 1, Figures 1–6)",
    embedded_spec: include_str!("../../../experiments/layout.toml"),
    load,
    kernels: &[&crate::gpu::LAYOUT_CU],
    selfcheck: selfcheck::selfcheck,
};

fn load(file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
    let (spec, claims): (LayoutSpec, _) = super::load_spec(file, LAYOUT.id, claims::CHECKS)?;
    Ok(Box::new(LayoutPaper { spec, file: file.clone(), claims }))
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
