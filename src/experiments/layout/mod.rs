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

use super::{Case, Experiment, Footprint, Paper, PaperReport, RunEnv};
use crate::claims::{ClaimResult, Claims};
use crate::error::SpecError;
use crate::records::MachineRecords;
use crate::records::Record;
use crate::spec::{SpecFile, SpecOutline};
use analysis::Analysis;
use anyhow::Result;
use rows::{Measured, TIMED, Try};
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

impl Paper for LayoutPaper {
    fn outline(&self) -> &dyn SpecOutline {
        &self.spec
    }

    fn timing(&self) -> crate::experiments::plan::Timing {
        crate::experiments::plan::Timing { method: Try::strategy, columns: &[Measured::wall_ms], only: Some((Try::phase, TIMED)) }
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        self.cases_of(profile)
    }

    fn footprint(&self, case: &Case) -> Footprint {
        LayoutPaper::footprint(case)
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        self.run(case, env)
    }

    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<PaperReport> {
        self.build_report(machines, dir)
    }

    fn paper_values(&self) -> (&'static str, Vec<crate::report::PaperValue>) {
        ("experiments/layout.toml [[table1]]", self.stated_values())
    }

    fn judge(&self, machines: &[MachineRecords]) -> Result<Vec<ClaimResult>> {
        self.claims.judge_machines(machines, &self.spec.paper.hardware, |m| Ok(Analysis::of(m, &self.spec)))
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        self.compare_md(machines)
    }

    fn not_run_column(&self) -> &'static str {
        rows::Try::strategy
    }
}
