//! The gBOA paper: Munawar, Wahib, Munetomo & Akama, "Theoretical and Empirical
//! Analysis of a GPU based Parallel Bayesian Optimization Algorithm" (2009).
//!
//! `spec` reads `experiments/gboa.toml`; `cases` lists and runs Table I and the
//! complexity sweep (sBOA, pBOA, pBOA on all cores and gBOA from one seed);
//! `analysis` indexes a machine's records; `render` writes the report's
//! sections; `claims` checks the paper's claims; `selfcheck` tests the GPU
//! network kernel against the CPU.

mod analysis;
mod cases;
mod claims;
mod complexity;
mod fig7;
mod render;
pub mod rows;
pub mod selfcheck;
mod spec;
mod speed;
mod table1;

use super::{Experiment, Paper};
use crate::claims::Claims;
use crate::error::SpecError;
use crate::spec::SpecFile;
use analysis::Analysis;
use anyhow::Result;
use spec::GboaSpec;

pub static GBOA: Experiment = Experiment {
    id: "gboa",
    title: "GPU based parallel BOA (sBOA, pBOA, gBOA; Table I, Figure 7, complexity)",
    embedded_spec: include_str!("../../../experiments/gboa.toml"),
    load,
    kernels: &[&crate::gpu::boa::BOA_CU],
    selfcheck: selfcheck::selfcheck,
};

fn load(file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
    let (spec, claims): (GboaSpec, _) = super::load_spec(file, GBOA.id, claims::CHECKS)?;
    Ok(Box::new(GboaPaper { spec, file: file.clone(), claims }))
}

struct GboaPaper {
    spec: GboaSpec,
    file: SpecFile,
    claims: Claims<Analysis>,
}
