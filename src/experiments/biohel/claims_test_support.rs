//! The fixtures the tests of `claims.rs` share: the shipped spec's claims
//! bound to [`checks`], and synthetic records of one machine.

use super::CHECKS;
use crate::claims::testing;
use crate::claims::{Claims, Ctx, Outcome};
use crate::experiments::biohel::analysis::Analysis;
use crate::experiments::biohel::rows::{Evaluator, LearnGa, LearnRun, SetCase, TrainingSet};
use crate::experiments::biohel::spec::{BiohelSpec, PaperTables};
use crate::experiments::biohel::{BIOHEL, CUDA, EVAL_FIGURE, LEARN_FIGURE, SERIAL};
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use crate::spec::{PaperHardware, SpecFile};
use std::path::Path;
use std::sync::Arc;

/// The shipped spec's claims bound to [`checks`], its Tables 3–4 and its hardware.
pub(super) struct Shipped {
    pub(super) claims: Claims<Analysis>,
    pub(super) tables: Arc<PaperTables>,
    pub(super) hardware: PaperHardware,
}

/// The claims resting on stand-ins whatever the records: the framework sets them aside.
const ON_STAND_INS: [&str; 2] = ["cuda_speedup_peak_set", "cuda_speedup_ilas_peak_set"];

pub(super) fn shipped() -> Shipped {
    shipped_from(BIOHEL.embedded_spec)
}

fn shipped_from(text: &str) -> Shipped {
    let file = SpecFile::from_text(Path::new("experiments/biohel.toml"), text.into());
    let spec: BiohelSpec = file.parse().unwrap();
    let claims = Claims::bind(&file, &spec.claims, &spec.paper.hardware, CHECKS).unwrap();
    let tables = Arc::new(PaperTables::of(&spec));
    Shipped { claims, tables, hardware: spec.paper.hardware }
}

/// The shipped spec with the claims resting on stand-ins made the harness's own
/// (so the framework judges them): what their checks decide.
pub(super) fn shipped_without_the_stand_in_rule() -> Shipped {
    let text = BIOHEL.embedded_spec;
    let blocks: Vec<String> = text
        .split("[[claims]]")
        .map(|b| {
            if ON_STAND_INS.iter().any(|id| b.contains(&format!("id = \"{id}\"\n"))) {
                let b = b.replacen("provenance = \"paper\"", "provenance = \"harness\"", 1);
                b.lines().filter(|l| !l.starts_with("quote = ")).map(|l| format!("{l}\n")).collect()
            } else {
                b.to_owned()
            }
        })
        .collect();
    shipped_from(&blocks.join("[[claims]]"))
}

/// A GA budget: population, GA iterations, rule limit (evaluation rows: population 0).
#[derive(Clone, Copy)]
pub(super) struct Ga(pub(super) u64, pub(super) u64, pub(super) Option<u64>);
/// BioHEL's default (the paper's): population 500, 50 iterations, no rule limit.
pub(super) const PAPER: Ga = Ga(500, 50, None);
/// The `learning-500` profile's: the paper's population, 20 iterations, at most 2 rules.
pub(super) const LEARNING_500: Ga = Ga(500, 20, Some(2));
/// The evaluation stage at the paper's "one GA run of 50 iterations", and at the `gpu` profile's 5.
pub(super) const EVAL: Ga = Ga(0, 50, None);
pub(super) const EVAL_GPU: Ga = Ga(0, 5, None);

/// One measurement row (one run of one evaluator; seed = the run's index).
#[allow(clippy::too_many_arguments)]
pub(super) fn row(
    figure: &str,
    profile: &str,
    ga: Ga,
    set: &str,
    instances: u64,
    windows: usize,
    seed: usize,
    method: &str,
    secs: f64,
) -> Record {
    let case = SetCase { set: set.into(), windows, iterations: ga.1 as usize, seed: seed as u64 };
    let r = Record::new()
        .with(col::RECORD_KIND, "measurement")
        .with(col::FIGURE, figure)
        .with(col::PROFILE, profile)
        .with(col::RUN_ID, 1u64)
        .with_row(&case)
        .with(col::METHOD, method)
        .with(col::STATUS, "ok")
        .with_row(&TrainingSet { instances: instances as usize, ..Default::default() });
    if figure == LEARN_FIGURE {
        r.with_row(&LearnGa { population: ga.0 as usize, max_rules: ga.2.map(|m| m as usize) })
            .with_row(&LearnRun { learn_s: secs, ..Default::default() })
    } else {
        r.with_row(&Evaluator { eval_s: secs, threads: 1 })
    }
}

/// Synthetic records of one machine.
#[derive(Default)]
pub(super) struct Rows(pub(super) Vec<Record>);

impl Rows {
    /// Evaluation runs (the paper's 50-iteration GA) of `set` at `windows`: (serial s, cuda-paper s) per run.
    pub(super) fn eval(self, set: &str, instances: u64, windows: usize, runs: &[(f64, f64)]) -> Rows {
        self.pairs(EVAL_FIGURE, EVAL, set, instances, windows, runs)
    }

    /// Learning runs at the budget `ga`: (serial s, cuda-paper s) per run.
    pub(super) fn learn(self, ga: Ga, set: &str, instances: u64, windows: usize, runs: &[(f64, f64)]) -> Rows {
        self.pairs(LEARN_FIGURE, ga, set, instances, windows, runs)
    }

    pub(super) fn pairs(mut self, figure: &str, ga: Ga, set: &str, instances: u64, windows: usize, runs: &[(f64, f64)]) -> Rows {
        for (seed, &(serial, cuda)) in runs.iter().enumerate() {
            self.0.push(row(figure, "gpu", ga, set, instances, windows, seed, SERIAL, serial));
            self.0.push(row(figure, "gpu", ga, set, instances, windows, seed, CUDA, cuda));
        }
        self
    }

    /// Runs of one method alone (seeds 0, 1, …), of the evaluation stage in `profile`.
    pub(super) fn only(mut self, profile: &str, set: &str, instances: u64, windows: usize, method: &str, secs: &[f64]) -> Rows {
        for (seed, &s) in secs.iter().enumerate() {
            self.0.push(row(EVAL_FIGURE, profile, EVAL, set, instances, windows, seed, method, s));
        }
        self
    }

    /// "Not run here" rows of cuda-paper in `figure`.
    pub(super) fn not_run(mut self, figure: &str, ga: Ga, reason: &str) -> Rows {
        self.0.push(row(figure, "gpu", ga, "sat", 5790, 1, 0, CUDA, 0.0).with(col::STATUS, "not_run").with(col::REASON, reason));
        self
    }

    /// Every row's GA iterations set to `iterations` (a shorter simulated GA).
    pub(super) fn iterations(mut self, iterations: u64) -> Rows {
        for r in &mut self.0 {
            let case = SetCase { iterations: iterations as usize, ..r.row().unwrap() };
            *r = r.clone().with_row(&case);
        }
        self
    }

    /// The machine, with these ceilings (as `testing::machine`).
    pub(super) fn machine_with(self, ceilings: &[(&str, f64)]) -> MachineRecords {
        let mut m = testing::machine(ceilings);
        m.rows.extend(self.0);
        m
    }

    pub(super) fn machine(self) -> MachineRecords {
        self.machine_with(&[])
    }
}

impl Shipped {
    pub(super) fn case<'a>(&self, id: &'a str, m: MachineRecords) -> (&'a str, Analysis, MachineRecords) {
        (id, Analysis::of(&m, &self.tables), m)
    }

    pub(super) fn judge(&self, id: &str, m: &MachineRecords) -> Outcome {
        let ctx = Ctx { machine: m, paper: &self.hardware };
        self.claims.judge_one(id, &Analysis::of(m, &self.tables), &ctx).unwrap_or_else(|| panic!("no claim `{id}`"))
    }
}

/// Runs of speedup `x` with a 1% spread: (serial s, cuda-paper s = 1 s).
pub(super) fn tight(x: f64, n: usize) -> Vec<(f64, f64)> {
    (0..n).map(|i| (x * (1.0 + 0.01 * (i as f64 - (n as f64 - 1.0) / 2.0)), 1.0)).collect()
}

/// A set of 400,000 training instances whose speedup is ~100× at 1 window and
/// `in_band`× where its strata hold 40,000 (evaluation: 10 windows, inside
/// 25,000–50,000) or 80,000 instances (learning: 5 windows, inside 50,000–100,000), `n` runs each.
pub(super) fn peaking(rows: Rows, learning: bool, in_band: f64, n: usize) -> Rows {
    if learning {
        rows.learn(PAPER, "kdd", 400_000, 1, &tight(100.0, n)).learn(PAPER, "kdd", 400_000, 5, &tight(in_band, n))
    } else {
        rows.eval("kdd", 400_000, 1, &tight(100.0, n)).eval("kdd", 400_000, 10, &tight(in_band, n))
    }
}

/// Total speedups of one set: serial's 1-window runs (1 s of CUDA) and `total`× at 2 windows.
pub(super) fn ilas(rows: Rows, set: &str, instances: u64, serial: &[(f64, f64)], cuda_at_2: &[f64]) -> Rows {
    let at_2: Vec<(f64, f64)> = cuda_at_2.iter().map(|&c| (serial[0].0 / 2.0, c)).collect();
    rows.eval(set, instances, 1, serial).eval(set, instances, 2, &at_2)
}
