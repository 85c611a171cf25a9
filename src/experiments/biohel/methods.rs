//! The methods every BioHEL case runs: the evaluators of Section 4 (serial,
//! parallel, the paper's CUDA design and the ballot design) and the simulated
//! GA that times them on the same rules.

use super::rows::{Evaluator, SimulatedGa};
use super::{BALLOT, CUDA, PARALLEL, SERIAL};
use crate::experiments::RunEnv;
use crate::gpu::biohel::{Design, GpuEvaluator};
use crate::library::biohel::{Counts, ParallelEvaluator, Rule, RuleEvaluator, SerialEvaluator};
use crate::library::dataset::Dataset;
use crate::records::Record;
use anyhow::Result;
use std::time::Instant;

type Evaluators<'g> = Vec<(&'static str, Box<dyn RuleEvaluator + 'g>)>;

/// The evaluators every case runs on the GPU, by method (recorded as not run here by the runner where there is none).
pub(super) const GPU_DESIGNS: [(&str, Design); 2] = [(CUDA, Design::Paper), (BALLOT, Design::Ballot)];

/// The evaluators of a case this machine runs, in run order (serial first: the
/// reference every other one must equal); the CUDA designs ([`GPU_DESIGNS`])
/// where there is a GPU.
pub(super) fn evaluators(env: &RunEnv) -> Result<Evaluators<'_>> {
    let mut evaluators: Evaluators = vec![(SERIAL, Box::new(SerialEvaluator)), (PARALLEL, Box::new(ParallelEvaluator))];
    if let Some(gpu) = &env.gpu {
        for (method, design) in GPU_DESIGNS {
            evaluators.push((method, Box::new(GpuEvaluator::new(gpu, design)?)));
        }
    }
    Ok(evaluators)
}

pub(super) fn threads(method: &str) -> usize {
    if method == PARALLEL { rayon::current_num_threads() } else { 1 }
}

/// One simulated GA per evaluator, serial first: the instances loaded once (the
/// paper's copy to the device, part of the evaluation time), then `rules[t]`
/// evaluated on `window(t)`; every evaluator must give the serial counts. Rows:
/// method, status, `eval_s` (load included), `load_s`, threads.
pub(super) fn simulated_ga(
    case_id: &str,
    env: &RunEnv,
    data: &Dataset,
    rules: &[Vec<Rule>],
    window: impl Fn(usize) -> std::ops::Range<usize>,
) -> Result<Vec<Record>> {
    let mut rows = Vec::new();
    let pairs = rules.iter().enumerate().map(|(t, batch)| batch.len() * window(t).len()).sum();
    let mut serial: Option<Vec<Vec<Counts>>> = None;
    for (name, mut evaluator) in evaluators(env)? {
        let mut counts = Vec::with_capacity(rules.len());
        let t0 = Instant::now();
        evaluator.load(data)?;
        let load_s = t0.elapsed().as_secs_f64();
        let device_before = evaluator.device_seconds();
        for (t, batch) in rules.iter().enumerate() {
            let mut out = Vec::new();
            evaluator.evaluate(data, window(t), batch, &mut out)?;
            counts.push(out);
        }
        let eval_s = t0.elapsed().as_secs_f64();
        match &serial {
            None => serial = Some(counts),
            Some(want) => anyhow::ensure!(*want == counts, "{name} counts differ from the serial evaluator's in case {case_id}"),
        }
        let kernel_s = device_before.zip(evaluator.device_seconds()).map(|(before, after)| after - before);
        rows.push(Record::ran(name).with_row(&Evaluator { eval_s, threads: threads(name) }).with_row(&SimulatedGa {
            load_s,
            pairs,
            kernel_s,
        }));
    }
    Ok(rows)
}
