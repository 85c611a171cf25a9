//! The BioHEL paper: Franco, Krasnogor & Bacardit, "Speeding Up the Evaluation of
//! Evolutionary Learning Systems using GPGPUs" (GECCO 2010) — both stages of its
//! Section 4: the evaluation alone (Tables 2–3, Figure 4) and the whole learning
//! system (Table 2's integration columns, Table 4, Figure 5).
//!
//! Every case works on fold 0 of a ten-fold stratified cross-validation
//! (training set = folds 1..9, test set = fold 0, missing values imputed from the
//! training set's statistics as BioHEL does).
//!
//! - `eval/<set>/w<windows>/s<seed>` (first stage): the training set laid out in
//!   ILAS strata (Section 2.2) so a window is a contiguous range (Section 3.3); one
//!   simulated GA evaluates fresh random rules on window t mod w at iteration t.
//! - `learn/<set>/w<windows>/s<seed>` (second stage): BioHEL learns a rule set
//!   (`library::biohel_learning::learn`: iterative rule learning, two GAs per rule,
//!   ILAS with `windows` strata) and the test fold is classified with it.
//!
//! Both run the serial evaluator (the paper's baseline), the multi-threaded one (an
//! extra column) and, where there is a GPU, the paper's two CUDA kernels and the
//! warp-vote design (`gpu::biohel`). Every evaluator must give the serial counts
//! exactly, and in the learning stage learn the serial rule list exactly ("both
//! implementations behave identical", Section 5); a case fails otherwise.
//! CN, SS and SA are not public: their synthetic stand-ins (`dataset::StandIn`)
//! have Table 1's shapes and are labelled as such.
//! - `scale/n<instances>/a<attributes>/s<seed>` (beyond the paper, [`scale`]): the
//!   fastest evaluator over the scalable synthetic family, its decision regions
//!   and the `auto` rule they give.
//!
//! Files: `spec.rs` (the typed spec), `cases.rs` (cases and running one),
//! `analysis.rs` (records → analysis), `render.rs` (the report: its method, the
//! order of its sections, the points not measured, the paper's values, compare),
//! one file per table or figure (`table2.rs`, `table3.rs`, `table4.rs` with Section
//! 5.2, `figures.rs` for Figures 4–5, `accuracy.rs`, `speed.rs` and `scale.rs`
//! beyond the paper), `claims.rs` (the checks), `methods.rs` (the evaluators and
//! the simulated GA), `selfcheck.rs`.

mod accuracy;
mod analysis;
mod cases;
mod claims;
mod figures;
mod methods;
mod render;
pub mod rows;
mod scale;
pub mod selfcheck;
mod spec;
mod speed;
mod table2;
mod table3;
mod table4;

use super::{Experiment, Paper, SPEED_PROFILE};
use crate::claims::Claims;
use crate::error::SpecError;
use crate::spec::{DataPath, SpecFile};
use analysis::Analysis;
use anyhow::Result;
use spec::{BiohelSpec, PaperTables};
use std::sync::Arc;

const SERIAL: &str = "serial";
const PARALLEL: &str = "cpu-mt";
/// The paper's CUDA design and the warp-vote design (`gpu::biohel::Design`).
const CUDA: &str = "cuda-paper";
const BALLOT: &str = "cuda-ballot";
/// Every evaluator, in run order.
const METHODS: [&str; 4] = [SERIAL, PARALLEL, CUDA, BALLOT];
/// The `figure` parameter of the two stages' cases.
const EVAL_FIGURE: &str = "table3";
const LEARN_FIGURE: &str = "table4";

pub static BIOHEL: Experiment = Experiment {
    id: "biohel",
    title: "Speeding up the evaluation of evolutionary learning systems (BioHEL, ILAS; Tables 2–4, Figures 4–5)",
    embedded_spec: include_str!("../../../experiments/biohel.toml"),
    load,
    kernels: &[&crate::gpu::biohel::BIOHEL_CU],
    selfcheck: selfcheck::selfcheck,
};

fn load(file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
    let (spec, claims): (BiohelSpec, _) = super::load_spec(file, BIOHEL.id, claims::CHECKS)?;
    let tables = Arc::new(PaperTables::of(&spec));
    let data_dir = file.data_path(&spec.settings.data_dir, "settings.data_dir")?;
    Ok(Box::new(BiohelPaper { spec, file: file.clone(), tables, data_dir, claims }))
}

struct BiohelPaper {
    spec: BiohelSpec,
    file: SpecFile,
    claims: Claims<Analysis>,
    tables: Arc<PaperTables>,
    /// `settings.data_dir`, resolved.
    data_dir: DataPath,
}
