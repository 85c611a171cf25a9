//! The island-GA paper: Jaros, "Multi-GPU Island-Based Genetic Algorithm for
//! Solving the Knapsack Problem" (IEEE CEC 2012). The cases are in [`cases`]
//! (the grid of Figures 4–6, the ring over several GPUs of Section IV, the
//! speed runs of Figure 7 and Table I), the claims in [`claims`].

mod analysis;
mod cases;
mod claims;
mod claims_common;
mod claims_fitness;
mod claims_migration;
mod claims_speed;
mod claims_time;
mod families;
mod fig4;
mod fig5_6;
mod fig7;
mod performance;
mod render;
mod render_common;
mod ring;
pub mod rows;
pub mod selfcheck;
mod spec;
mod sustained_rate;
mod tables;

use super::{Experiment, Paper};
use crate::claims::Claims;
use crate::error::SpecError;
use crate::spec::{DataPath, SpecFile};
use analysis::Analysis;
use anyhow::Result;
use spec::IslandSpec;
use std::collections::BTreeMap;

/// The methods a row names: one CPU thread, all CPU threads, the GPU with the
/// paper's kernels, the GPU with split kernels and with manipulation and
/// evaluation fused (speed cases only), and the ring
/// split over every GPU of the machine with NCCL between them (ring cases).
const CPU_1T: &str = "cpu-1t";
const CPU_MT: &str = "cpu-mt";
const CUDA: &str = "cuda";
const CUDA_SPLIT: &str = "cuda-split";
const CUDA_FUSED: &str = "cuda-fused";
const CUDA_RING: &str = "cuda-nccl";

/// The method of a speed row on `k` CPU threads (Figure 7's 6 and 12), besides one thread and all threads.
fn cpu_threads(k: usize) -> String {
    format!("cpu-{k}t")
}

pub static ISLAND: Experiment = Experiment {
    id: "island",
    title: "Island-based GA for the 0/1 knapsack on CPU threads and a GPU (Figures 4–7, Table I)",
    embedded_spec: include_str!("../../../experiments/island.toml"),
    load,
    kernels: &[&crate::gpu::island::ISLAND_CU],
    selfcheck: selfcheck::selfcheck,
};

fn load(file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
    let (spec, claims): (IslandSpec, _) = super::load_spec(file, ISLAND.id, claims::CHECKS)?;
    let instance = file.data_path(&spec.settings.instance, "settings.instance")?;
    Ok(Box::new(IslandPaper { spec, file: file.clone(), instance, certificates: Default::default(), claims }))
}

struct IslandPaper {
    spec: IslandSpec,
    file: SpecFile,
    claims: Claims<Analysis>,
    /// `settings.instance`, resolved.
    instance: DataPath,
    /// Certificates of the generated instances (`families` cases), by instance name: each is computed once.
    certificates: std::sync::Mutex<BTreeMap<String, crate::library::knapsack::Certificate>>,
}
