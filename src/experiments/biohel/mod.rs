//! The BioHEL paper: Franco, Krasnogor & Bacardit, "Speeding Up the Evaluation of
//! Evolutionary Learning Systems using GPGPUs" (GECCO 2010) — both stages of its
//! Section 4: the evaluation alone (Tables 2–3, Figure 4) and the whole learning
//! system (Table 2's integration columns, Table 4, Figure 5).
//!
//! Every case works on fold 0 of a ten-fold stratified cross-validation
//! ([`BiohelPaper::split`]: training set = folds 1..9, test set = fold 0, missing
//! values imputed from the training set's statistics as BioHEL does).
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

mod scale;

pub mod selfcheck;

use super::{Case, Experiment, Paper, RunEnv};
use crate::claims::ClaimResult;
use crate::error::SpecError;
use crate::gpu::biohel::{Design, GpuEvaluator};
use crate::library::biohel::{Counts, ParallelEvaluator, Rule, RuleEvaluator, SerialEvaluator, ilas_strata, random_rule, window_range};
use crate::library::biohel_learning::{LearnedModel, LearningConfig, learn};
use crate::library::dataset::{self, Dataset};
use crate::records::Record;
use crate::report::chart;
use crate::report::{MachineRecords, Table, claims_table};
use crate::spec::{ClaimSpec, LegacyVerdict as Verdict, PaperMeta, SpecFile, legacy_outcome};
use crate::stats::Summary;
use anyhow::{Context, Result, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use toml::Spanned;

pub struct Biohel;
pub static BIOHEL: Biohel = Biohel;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BiohelSpec {
    paper: PaperMeta,
    settings: Settings,
    profiles: BTreeMap<String, Profile>,
    table2: Vec<Table2Row>,
    table3: PaperSpeedups,
    table4: PaperSpeedups,
    claims: Vec<ClaimSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    seed: u64,
    data_dir: PathBuf,
    rules_per_iteration: Spanned<usize>,
    expressed_probability: Spanned<f64>,
    folds: Spanned<usize>,
}

/// The evaluation-stage sweep of a profile (none when `sets` is empty), its
/// learning-stage sweep and its sweep over the scalable synthetic family.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    #[serde(default)]
    sets: Vec<Spanned<String>>,
    #[serde(default)]
    windows: Vec<Spanned<usize>>,
    iterations: Option<Spanned<usize>>,
    #[serde(default)]
    seeds: usize,
    learn: Option<LearnProfile>,
    scale: Option<scale::ScaleProfile>,
}

/// The learning-stage sweep (Section 4, second stage; Table 4): BioHEL on each
/// set at each window count, `seeds` runs, with a GA budget. The paper's budget is
/// BioHEL's default (`LearningConfig::default()`: population 500, 50 iterations,
/// no rule limit); anything smaller is reported as a reduced budget.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LearnProfile {
    sets: Vec<Spanned<String>>,
    windows: Vec<Spanned<usize>>,
    seeds: usize,
    population: Spanned<usize>,
    iterations: Spanned<usize>,
    max_rules: Option<Spanned<usize>>,
}

/// Table 2 (seconds, mean ± sd, 1 window): the evaluation alone and the whole
/// learning system ("integration"), serial on a Xeon E5472 and CUDA on a Tesla
/// C1060.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table2Row {
    set: String,
    evaluation_serial: [f64; 2],
    evaluation_cuda: [f64; 2],
    integration_serial: [f64; 2],
    integration_cuda: [f64; 2],
}

/// A speedup table of the paper (Table 3 for the evaluation, Table 4 for the whole
/// system; CUDA on a Tesla C1060 over serial on a Xeon E5472): per set, the net
/// speedup (same window count) and the total speedup (against serial with 1
/// window) at each window count.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PaperSpeedups {
    windows: Spanned<Vec<usize>>,
    sets: Vec<SpeedupRow>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeedupRow {
    set: String,
    net: Vec<f64>,
    total: Vec<f64>,
}

impl PaperSpeedups {
    /// (net, total) of `set` at `windows`, when the paper has that column.
    fn at(&self, set: &str, windows: usize) -> Option<(f64, f64)> {
        let i = self.windows.get_ref().iter().position(|&w| w == windows)?;
        let row = self.sets.iter().find(|r| r.set == set)?;
        Some((*row.net.get(i)?, *row.total.get(i)?))
    }
}

const SETS: [&str; 11] = ["sat", "wav", "pen", "cn", "ss", "adu", "par", "kdd", "far", "c-4", "sa"];
const CHECKS: [&str; 6] =
    ["cuda_speedup", "cuda_variance_smaller", "windows_cut_serial_time", "learning_speedup", "learning_vs_evaluation", "speedup_peak_band"];
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
/// The profile whose evaluation runs measure the speed goal (Section "Speed" of
/// the report) and stay out of Tables 2–3 and Figures 4–5, which other profiles'
/// runs of the same cases fill.
const SPEED_PROFILE: &str = "speed";
/// The goal for evaluation on the largest sets: CUDA ≥ 300× serial.
const SPEED_GOAL: f64 = 300.0;

impl Experiment for Biohel {
    fn id(&self) -> &'static str {
        "biohel"
    }
    fn title(&self) -> &'static str {
        "Speeding up the evaluation of evolutionary learning systems (BioHEL, ILAS; Tables 2–4, Figures 4–5)"
    }
    fn embedded_spec(&self) -> &'static str {
        include_str!("../../../experiments/biohel.toml")
    }
    fn selfcheck(&self, gpu: &crate::gpu::Gpu, small: bool, seed: u64) -> Result<usize> {
        selfcheck::selfcheck(gpu, small, seed)
    }
    fn load(&self, file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
        let spec: BiohelSpec = file.parse()?;
        validate(file, &spec)?;
        Ok(Box::new(BiohelPaper { spec, file: file.clone() }))
    }
}

fn validate_sets(file: &SpecFile, sets: &[Spanned<String>], key: &str) -> Result<(), SpecError> {
    for set in sets {
        if !SETS.contains(&set.get_ref().as_str()) {
            return Err(file.invalid(set, key, format!("unknown set `{}` (known: {})", set.get_ref(), SETS.join(", "))));
        }
    }
    Ok(())
}

fn validate_windows(file: &SpecFile, windows: &[Spanned<usize>], key: &str) -> Result<(), SpecError> {
    for w in windows {
        if !(1..=1000).contains(w.get_ref()) {
            return Err(file.invalid(w, key, format!("{} windows: must be in 1..=1000", w.get_ref())));
        }
    }
    Ok(())
}

fn validate(file: &SpecFile, spec: &BiohelSpec) -> Result<(), SpecError> {
    let s = &spec.settings;
    if *s.rules_per_iteration.get_ref() == 0 {
        return Err(file.invalid(&s.rules_per_iteration, "settings.rules_per_iteration", "must be at least 1"));
    }
    if !(0.0..=1.0).contains(s.expressed_probability.get_ref()) {
        return Err(file.invalid(&s.expressed_probability, "settings.expressed_probability", "must be in [0, 1]"));
    }
    if *s.folds.get_ref() < 2 {
        return Err(file.invalid(&s.folds, "settings.folds", "must be at least 2"));
    }
    for (name, p) in &spec.profiles {
        validate_sets(file, &p.sets, &format!("profiles.{name}.sets"))?;
        validate_windows(file, &p.windows, &format!("profiles.{name}.windows"))?;
        match &p.iterations {
            Some(i) if *i.get_ref() == 0 => return Err(file.invalid(i, &format!("profiles.{name}.iterations"), "must be at least 1")),
            None if !p.sets.is_empty() => {
                return Err(file.invalid(&p.sets[0], &format!("profiles.{name}.iterations"), "missing: the evaluation sweep needs it"));
            }
            _ => {}
        }
        if let Some(sc) = &p.scale {
            sc.validate(file, &format!("profiles.{name}.scale"))?;
        }
        if let Some(l) = &p.learn {
            validate_sets(file, &l.sets, &format!("profiles.{name}.learn.sets"))?;
            validate_windows(file, &l.windows, &format!("profiles.{name}.learn.windows"))?;
            for (key, v) in [("population", Some(&l.population)), ("iterations", Some(&l.iterations)), ("max_rules", l.max_rules.as_ref())]
            {
                if let Some(v) = v.filter(|v| *v.get_ref() == 0) {
                    return Err(file.invalid(v, &format!("profiles.{name}.learn.{key}"), "must be at least 1"));
                }
            }
        }
    }
    for (key, t) in [("table3", &spec.table3), ("table4", &spec.table4)] {
        let n = t.windows.get_ref().len();
        if let Some(row) = t.sets.iter().find(|r| r.net.len() != n || r.total.len() != n) {
            return Err(file.invalid(
                &t.windows,
                &format!("{key}.sets"),
                format!("set `{}` has {} net and {} total values for {n} window counts", row.set, row.net.len(), row.total.len()),
            ));
        }
    }
    for c in spec.claims.iter().filter(|c| c.check.get_ref() == "speedup_peak_band") {
        let stage = c.param("stage").and_then(|v| v.as_str());
        let float = |k: &str| c.param(k).and_then(|v| v.as_float());
        let band_ok = matches!((float("low"), float("high")), (Some(lo), Some(hi)) if 0.0 < lo && lo < hi);
        let steady_ok = float("steady").is_some_and(|s| 0.0 < s && s <= 1.0);
        if !matches!(stage, Some("evaluation" | "learning")) || !band_ok || !steady_ok {
            return Err(file.invalid(
                &c.check,
                &format!("claims.{}.params", c.id),
                "speedup_peak_band needs stage = \"evaluation\" or \"learning\", 0 < low < high and 0 < steady ≤ 1",
            ));
        }
    }
    file.check_claims(&spec.claims, &CHECKS)
}

struct BiohelPaper {
    spec: BiohelSpec,
    file: SpecFile,
}

/// Table 1's grouping of the sets, Figures 4–5's colours: all attributes
/// continuous, all discrete (nominal), or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum AttributeType {
    Continuous,
    Mixed,
    Discrete,
}

impl AttributeType {
    fn of(data: &Dataset) -> AttributeType {
        match data.nominal_count() {
            0 => AttributeType::Continuous,
            n if n == data.attribute_count() => AttributeType::Discrete,
            _ => AttributeType::Mixed,
        }
    }

    fn label(self) -> &'static str {
        match self {
            AttributeType::Continuous => "continuous",
            AttributeType::Mixed => "mixed",
            AttributeType::Discrete => "discrete",
        }
    }

    fn parse(s: &str) -> Option<AttributeType> {
        [AttributeType::Continuous, AttributeType::Mixed, AttributeType::Discrete].into_iter().find(|t| t.label() == s)
    }

    /// The paper's colours: "Black = Continuous, Red = Mixed, Blue = Discrete".
    fn color(self) -> RGBColor {
        match self {
            AttributeType::Continuous => RGBColor(0, 0, 0),
            AttributeType::Mixed => RGBColor(214, 39, 40),
            AttributeType::Discrete => RGBColor(31, 119, 180),
        }
    }
}

/// The evaluators of a case in run order (serial first: the reference every other
/// one must equal), and a "not run here" row for each CUDA design when there is
/// no GPU.
type Evaluators<'g> = Vec<(&'static str, Box<dyn RuleEvaluator + 'g>)>;

fn evaluators(env: &RunEnv) -> Result<(Evaluators<'_>, Vec<Record>)> {
    let mut evaluators: Evaluators = vec![(SERIAL, Box::new(SerialEvaluator)), (PARALLEL, Box::new(ParallelEvaluator))];
    let mut not_run = Vec::new();
    match &env.gpu {
        Some(gpu) => {
            evaluators.push((CUDA, Box::new(GpuEvaluator::new(gpu, Design::Paper)?)));
            evaluators.push((BALLOT, Box::new(GpuEvaluator::new(gpu, Design::Ballot)?)));
        }
        None => {
            for method in [CUDA, BALLOT] {
                not_run.push(Record::new().with("method", method).with("status", "not_run").with("reason", env.gpu_absent.as_str()));
            }
        }
    }
    Ok((evaluators, not_run))
}

fn threads(method: &str) -> usize {
    if method == PARALLEL { rayon::current_num_threads() } else { 1 }
}

impl BiohelPaper {
    /// The whole set of Table 1 by its short name: a vendored public file, ParMX
    /// (generated), or the synthetic stand-in of CN, SS or SA.
    fn data_set(&self, set: &str) -> Result<Dataset> {
        let standin = |kind: dataset::StandIn| dataset::synthetic_standin(kind, kind.paper_shape().instances, self.spec.settings.seed);
        let dir = &self.spec.settings.data_dir;
        Ok(match set {
            "par" => dataset::parmx(),
            "cn" => standin(dataset::StandIn::Cn),
            "ss" => standin(dataset::StandIn::Ss),
            "sa" => standin(dataset::StandIn::Sa),
            _ => dataset::load_named(dir, set).with_context(|| format!("data set `{set}` under {}", dir.display()))?,
        })
    }

    /// Fold 0 of the stratified cross-validation (Section 4): the training set
    /// (the other folds) and the test set (fold 0), every missing value replaced
    /// by the training set's mean or mode (`Dataset::impute_missing`), as BioHEL
    /// does before learning and before classifying a test file.
    fn split(&self, set: &str) -> Result<(Dataset, Dataset)> {
        let mut data = self.data_set(set)?;
        let folds = dataset::stratified_folds(&data.labels, *self.spec.settings.folds.get_ref(), self.spec.settings.seed);
        let train: Vec<usize> = folds[1..].concat();
        data.impute_missing(&train);
        Ok((data.subset(&train), data.subset(&folds[0])))
    }

    /// The training set of fold 0 in ILAS order for `windows` strata.
    fn training_set(&self, set: &str, windows: usize, seed: u64) -> Result<Dataset> {
        let (train, _) = self.split(set)?;
        let order = ilas_strata(&train.labels, windows, seed);
        Ok(train.subset(&order))
    }

    /// First stage: one simulated GA per evaluator (Tables 2–3).
    fn run_evaluation(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let p = &case.params;
        let set = p.str("set");
        let windows = p.int("windows").expect("windows") as usize;
        let iterations = p.int("iterations").expect("iterations") as usize;
        let seed = p.int("seed").expect("seed") as u64;
        let data = self.training_set(set, windows, seed)?;
        // Every iteration's rules, drawn before any timing.
        let mut rng = StdRng::seed_from_u64(seed);
        let rules: Vec<Vec<_>> = (0..iterations)
            .map(|_| {
                (0..*self.spec.settings.rules_per_iteration.get_ref())
                    .map(|_| random_rule(&data, &mut rng, *self.spec.settings.expressed_probability.get_ref()))
                    .collect()
            })
            .collect();
        let pairs: usize =
            rules.iter().enumerate().map(|(t, b)| b.len() * window_range(data.instances(), windows, t % windows).len()).sum();
        let mut rows = simulated_ga(&case.id, env, &data, &rules, |t| window_range(data.instances(), windows, t % windows))?;
        for row in rows.iter_mut().filter(|r| r.str("status") == "ok") {
            row.set("pairs", pairs);
            row.set("instances", data.instances());
            row.set("attributes", data.attribute_count());
            row.set("attribute_type", AttributeType::of(&data).label());
        }
        Ok(rows)
    }

    /// Second stage: BioHEL learns fold 0's training set with each evaluator
    /// (Table 2's integration columns, Table 4); every evaluator must learn the
    /// serial evaluator's rule list.
    fn run_learning(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let p = &case.params;
        let set = p.str("set");
        let base = LearningConfig::for_set(set).with_context(|| format!("Table 1 gives no coverage breakpoint for `{set}`"))?;
        let cfg = LearningConfig {
            windows: p.int("windows").expect("windows") as usize,
            population: p.int("population").expect("population") as usize,
            iterations: p.int("iterations").expect("iterations") as usize,
            max_rules: p.int("max_rules").map(|m| m as usize),
            seed: p.int("seed").expect("seed") as u64,
            ..base
        };
        let (train, test) = self.split(set)?;
        let (evaluators, mut rows) = evaluators(env)?;
        let mut reference: Option<LearnedModel> = None;
        let mut timed = Vec::new();
        for (name, mut evaluator) in evaluators {
            let model = learn(&train, &cfg, evaluator.as_mut()).with_context(|| format!("learning with {name}"))?;
            let stats = model.stats;
            match &reference {
                None => reference = Some(model),
                Some(want) => {
                    if let Some(diff) = rule_list_difference(want, &model) {
                        bail!("{name} learned a different rule list from the serial evaluator's in case {} ({diff})", case.id);
                    }
                }
            }
            timed.push(
                Record::new()
                    .with("method", name)
                    .with("status", "ok")
                    .with("learn_s", stats.total_time.as_secs_f64())
                    .with("eval_s", stats.evaluation.time.as_secs_f64())
                    .with("loads", stats.evaluation.loads)
                    .with("calls", stats.evaluation.calls)
                    .with("rules_evaluated", stats.evaluation.rules)
                    .with("matches", stats.evaluation.matches)
                    .with("gas", stats.gas)
                    .with("rejected_rules", stats.rejected_rules)
                    .with("threads", threads(name)),
            );
        }
        // Equal rule lists classify alike: the accuracies are the reference's.
        let model = reference.expect("the serial evaluator runs first");
        let (train_accuracy, test_accuracy) = (model.accuracy(&train), model.accuracy(&test));
        for row in &mut timed {
            row.set("rules", model.rules.len());
            row.set("train_accuracy", train_accuracy);
            row.set("test_accuracy", test_accuracy);
            row.set("instances", train.instances());
            row.set("test_instances", test.instances());
            row.set("attributes", train.attribute_count());
            row.set("attribute_type", AttributeType::of(&train).label());
        }
        rows.extend(timed);
        Ok(rows)
    }
}

/// One simulated GA per evaluator, serial first: the instances loaded once (the
/// paper's copy to the device, part of the evaluation time), then `rules[t]`
/// evaluated on `window(t)`; every evaluator must give the serial counts. Rows:
/// method, status, `eval_s` (load included), `load_s`, threads; "not run here"
/// rows for the CUDA designs without a GPU.
fn simulated_ga(
    case_id: &str,
    env: &RunEnv,
    data: &Dataset,
    rules: &[Vec<Rule>],
    window: impl Fn(usize) -> std::ops::Range<usize>,
) -> Result<Vec<Record>> {
    let (evaluators, mut rows) = evaluators(env)?;
    let mut serial: Option<Vec<Vec<Counts>>> = None;
    for (name, mut evaluator) in evaluators {
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
        let mut row = Record::new()
            .with("method", name)
            .with("status", "ok")
            .with("eval_s", eval_s)
            .with("load_s", load_s)
            .with("threads", threads(name));
        if let (Some(before), Some(after)) = (device_before, evaluator.device_seconds()) {
            row.set("kernel_s", after - before);
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Where two learned models differ, if they do.
fn rule_list_difference(want: &LearnedModel, got: &LearnedModel) -> Option<String> {
    if want.default_class != got.default_class {
        return Some(format!("default class {} instead of {}", got.default_class, want.default_class));
    }
    if let Some(i) = want.rules.iter().zip(&got.rules).position(|(a, b)| a != b) {
        return Some(format!("rule {i} of {} differs", want.rules.len()));
    }
    (want.rules.len() != got.rules.len()).then(|| format!("{} rules instead of {}", got.rules.len(), want.rules.len()))
}

impl Paper for BiohelPaper {
    fn meta(&self) -> &PaperMeta {
        &self.spec.paper
    }

    fn profiles(&self) -> Vec<String> {
        self.spec.profiles.keys().cloned().collect()
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.file.profile(&self.spec.profiles, profile)?;
        let seed = |s: usize, w: usize| self.spec.settings.seed ^ ((s as u64) << 16) ^ w as u64;
        let mut cases = Vec::new();
        for set in &p.sets {
            for w in p.windows.iter().map(|w| *w.get_ref()) {
                for s in 0..p.seeds {
                    let set = set.get_ref().as_str();
                    cases.push(Case {
                        id: format!("eval/{set}/w{w}/s{s}"),
                        params: Record::new()
                            .with("figure", EVAL_FIGURE)
                            .with("set", set)
                            .with("windows", w)
                            .with("iterations", p.iterations.as_ref().map_or(0, |i| *i.get_ref()))
                            .with("seed", seed(s, w)),
                        weight: 10,
                    });
                }
            }
        }
        if let Some(l) = &p.learn {
            let (population, iterations) = (*l.population.get_ref(), *l.iterations.get_ref());
            for set in &l.sets {
                for w in l.windows.iter().map(|w| *w.get_ref()) {
                    for s in 0..l.seeds {
                        let set = set.get_ref().as_str();
                        cases.push(Case {
                            id: format!("learn/{set}/w{w}/s{s}"),
                            params: Record::new()
                                .with("figure", LEARN_FIGURE)
                                .with("set", set)
                                .with("windows", w)
                                .with("population", population)
                                .with("iterations", iterations)
                                .with("max_rules", l.max_rules.as_ref().map(|m| *m.get_ref()))
                                .with("seed", seed(s, w)),
                            // Rules evaluated per GA in whole-set passes: the
                            // iterations on strata, the last one on all instances.
                            weight: (population * (iterations / w + 1) / 50).max(1) as u64,
                        });
                    }
                }
            }
        }
        if let Some(sc) = &p.scale {
            cases.extend(sc.cases(self.spec.settings.seed));
        }
        Ok(cases)
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let s = &self.spec.settings;
        match case.params.str("figure") {
            EVAL_FIGURE => self.run_evaluation(case, env),
            LEARN_FIGURE => self.run_learning(case, env),
            scale::SCALE_FIGURE => scale::run(case, env, *s.rules_per_iteration.get_ref(), *s.expressed_probability.get_ref()),
            other => bail!("case {}: unknown stage `{other}`", case.id),
        }
    }

    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<super::PaperReport> {
        Ok(super::PaperReport::legacy(self.render_legacy(machines, dir)?))
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        let mut t = Table::new(&[
            "machine",
            "set",
            "evaluation: serial, 1 window (s)",
            "evaluation: cpu-mt, 1 window (s)",
            "evaluation: cuda-paper / cuda-ballot, 1 window (s)",
            "paper evaluation: serial / CUDA (s)",
            "learning: serial / cuda-paper, 1 window (s)",
            "paper learning: serial / CUDA (s)",
        ]);
        for m in machines {
            let a = Analysis::of(m);
            let learning = a.main_learning().map(|(_, l)| &l.total);
            for set in SETS {
                let mean = |stage: Option<&Stage>, method| stage.and_then(|st| st.mean(set, 1, method));
                let eval = |method| mean(Some(&a.eval), method);
                if eval(SERIAL).is_none() && mean(learning, SERIAL).is_none() {
                    continue;
                }
                let paper = self.spec.table2.iter().find(|r| r.set == set);
                t.row(vec![
                    format!("`{}`", m.hw_id),
                    set.into(),
                    fmt_secs(eval(SERIAL)),
                    fmt_secs(eval(PARALLEL)),
                    format!("{} / {}", fmt_secs(eval(CUDA)), fmt_secs(eval(BALLOT))),
                    paper.map_or("—".into(), |r| format!("{:.1} / {:.1}", r.evaluation_serial[0], r.evaluation_cuda[0])),
                    format!("{} / {}", fmt_secs(mean(learning, SERIAL)), fmt_secs(mean(learning, CUDA))),
                    paper.map_or("—".into(), |r| format!("{:.1} / {:.1}", r.integration_serial[0], r.integration_cuda[0])),
                ]);
            }
        }
        t.render()
    }
}

/// A Table 2 value as printed: mean ± sd, one decimal.
fn fmt_paper([mean, sd]: [f64; 2]) -> String {
    format!("{mean:.1} ± {sd:.1}")
}

fn fmt_secs(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.3}"))
}

/// One stage's times (s) per (set, windows, method), and why a method did not
/// run on the machine.
#[derive(Default)]
struct Stage {
    times: BTreeMap<(String, usize, String), Vec<f64>>,
    not_run: BTreeMap<String, String>,
}

impl Stage {
    /// Adds `column` of an `ok` row, or the reason of a `not_run` row.
    fn add(&mut self, r: &Record, column: &str) {
        let method = r.str("method").to_owned();
        if r.str("status") != "ok" {
            self.not_run.insert(method, r.str("reason").to_owned());
            return;
        }
        let key = (r.str("set").to_owned(), r.int("windows").unwrap_or(0) as usize, method);
        self.times.entry(key).or_default().extend(r.float(column));
    }

    fn summary(&self, set: &str, windows: usize, method: &str) -> Option<Summary> {
        Summary::of(self.times.get(&(set.to_owned(), windows, method.to_owned()))?)
    }

    /// Mean ± sd of `method`, or why it did not run on this machine.
    fn cell(&self, set: &str, windows: usize, method: &str) -> String {
        match (self.summary(set, windows, method), self.not_run.get(method)) {
            (Some(s), _) => fmt_s(Some(s)),
            (None, Some(why)) => format!("not run here ({why})"),
            (None, None) => "—".into(),
        }
    }

    fn mean(&self, set: &str, windows: usize, method: &str) -> Option<f64> {
        self.summary(set, windows, method).map(|s| s.mean)
    }

    /// serial / `method` at the same window count (the paper's net speedup).
    fn speedup(&self, set: &str, windows: usize, method: &str) -> Option<f64> {
        Some(self.mean(set, windows, SERIAL)? / self.mean(set, windows, method)?)
    }

    fn sets(&self) -> Vec<&'static str> {
        SETS.iter().copied().filter(|s| self.times.keys().any(|k| k.0 == *s)).collect()
    }

    fn windows(&self, set: &str) -> Vec<usize> {
        let mut w: Vec<usize> = self.times.keys().filter(|k| k.0 == set).map(|k| k.1).collect();
        w.dedup();
        w
    }

    /// Why `method` has no times here.
    fn reason(&self, method: &str) -> String {
        self.not_run.get(method).cloned().unwrap_or_else(|| format!("no {method} runs in this machine's records"))
    }

    /// Per set, the net speedup of `method` at each window count with both
    /// columns, against T/x (Figures 4–5).
    fn speedups_per_stratum(&self, instances: &BTreeMap<String, i64>, method: &str) -> Vec<Curve> {
        self.sets()
            .into_iter()
            .filter_map(|set| {
                let t = *instances.get(set)? as f64;
                let points: Vec<StratumPoint> = self
                    .windows(set)
                    .into_iter()
                    .filter_map(|windows| {
                        Some(StratumPoint { per_stratum: t / windows as f64, speedup: self.speedup(set, windows, method)?, windows })
                    })
                    .collect();
                (!points.is_empty()).then_some(Curve { set, points })
            })
            .collect()
    }
}

/// One point of Figures 4–5: the speedup with `windows` strata of T/x =
/// `per_stratum` training instances each.
#[derive(Clone, Copy, Debug, PartialEq)]
struct StratumPoint {
    per_stratum: f64,
    speedup: f64,
    windows: usize,
}

/// The speedups of one set against T/x, and the point where it is highest.
struct Curve {
    set: &'static str,
    points: Vec<StratumPoint>,
}

impl Curve {
    fn peak(&self) -> Option<StratumPoint> {
        peak(self.points.iter())
    }
}

fn peak<'p>(points: impl Iterator<Item = &'p StratumPoint>) -> Option<StratumPoint> {
    points.max_by(|a, b| a.speedup.total_cmp(&b.speedup)).copied()
}

fn fmt_s(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| format!("{:.3} ± {:.3}", s.mean, s.sd))
}

/// The GA budget of learning cases: population, iterations, rule limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Budget {
    population: i64,
    iterations: i64,
    max_rules: Option<i64>,
}

impl Budget {
    fn of(r: &Record) -> Budget {
        Budget { population: r.int("population").unwrap_or(0), iterations: r.int("iterations").unwrap_or(0), max_rules: r.int("max_rules") }
    }

    /// BioHEL's default budget, the paper's.
    fn is_paper(&self) -> bool {
        let d = LearningConfig::default();
        self.population == d.population as i64 && self.iterations == d.iterations as i64 && self.max_rules.is_none()
    }

    fn describe(&self) -> String {
        let limit = self.max_rules.map_or("no rule limit".into(), |m| format!("at most {m} rules"));
        let kind = if self.is_paper() {
            "the paper's budget".to_owned()
        } else {
            let d = LearningConfig::default();
            format!("**reduced budget** (the paper's: population {}, {} iterations, no rule limit)", d.population, d.iterations)
        };
        format!("population {}, {} GA iterations, {limit}: {kind}", self.population, self.iterations)
    }

    /// Orders budgets by work: evaluations per GA, then the rule limit (none = most).
    fn work(&self) -> (i64, i64) {
        (self.population * self.iterations, self.max_rules.unwrap_or(i64::MAX))
    }
}

/// What the learning runs of one set and window count produced (serial rows: the
/// other evaluators learned the same rule lists or the case failed).
#[derive(Default)]
struct Models {
    rules: Vec<f64>,
    train: Vec<f64>,
    test: Vec<f64>,
    methods: BTreeSet<String>,
}

/// The learning runs of one budget.
#[derive(Default)]
struct Learning {
    /// Whole learning time (`learn_s`), and the evaluation time inside it (`eval_s`).
    total: Stage,
    evaluation: Stage,
    models: BTreeMap<(String, usize), Models>,
}

impl Learning {
    /// Share of the serial learning time spent evaluating.
    fn evaluation_share(&self, set: &str, windows: usize) -> Option<f64> {
        Some(self.evaluation.mean(set, windows, SERIAL)? / self.total.mean(set, windows, SERIAL)?)
    }
}

/// Everything one machine's records say.
#[derive(Default)]
struct Analysis {
    /// Evaluation-stage times (`eval_s` of the `eval/…` cases).
    eval: Stage,
    /// The `speed` profile's evaluation times, and their upload part (`load_s`).
    speed: Stage,
    speed_load: Stage,
    learning: BTreeMap<Budget, Learning>,
    /// Training-set size per set (both stages use fold 0's training set).
    instances: BTreeMap<String, i64>,
}

impl Analysis {
    fn of(m: &MachineRecords) -> Analysis {
        let mut a = Analysis::default();
        for r in m.measurements().filter(|r| r.str("figure") != scale::SCALE_FIGURE) {
            if let Some(n) = r.int("instances") {
                a.instances.insert(r.str("set").to_owned(), n);
            }
            if r.str("profile") == SPEED_PROFILE {
                a.speed.add(r, "eval_s");
                a.speed_load.add(r, "load_s");
                continue;
            }
            if r.str("figure") != LEARN_FIGURE {
                a.eval.add(r, "eval_s");
                continue;
            }
            let l = a.learning.entry(Budget::of(r)).or_default();
            l.total.add(r, "learn_s");
            l.evaluation.add(r, "eval_s");
            if r.str("status") == "ok" {
                let models = l.models.entry((r.str("set").to_owned(), r.int("windows").unwrap_or(0) as usize)).or_default();
                models.methods.insert(r.str("method").to_owned());
                if r.str("method") == SERIAL {
                    models.rules.extend(r.float("rules"));
                    models.train.extend(r.float("train_accuracy"));
                    models.test.extend(r.float("test_accuracy"));
                }
            }
        }
        a
    }

    /// The learning runs the claims use: the budget with the most work.
    fn main_learning(&self) -> Option<(&Budget, &Learning)> {
        self.learning.iter().max_by_key(|(b, _)| b.work())
    }
}

/// The `speed` profile's evaluations on the largest sets against the goal (CUDA
/// ≥ 300× serial at 1 window, the one upload per GA included), with the upload's
/// share, so a result never hides where its time goes.
fn speed_section(analyses: &[(&MachineRecords, Analysis)]) -> String {
    let mut md = format!(
        "## Speed — evaluation on the largest sets against the goal\n\n\
         The `{SPEED_PROFILE}` profile: the evaluation stage at 1 window on the largest sets, timed as Table 2 (the one \
         upload of the instances per GA included); goal: CUDA ≥ {SPEED_GOAL:.0}× serial (the paper: 52.4× on a C1060). \
         *upload* = the CUDA time spent loading the instances (copy of the rows + transposition on the device).\n\n"
    );
    let mut any = false;
    for (m, a) in analyses {
        let sets = a.speed.sets();
        if sets.is_empty() {
            continue;
        }
        any = true;
        md += &machine_heading(m);
        // The code versions behind this section and behind Tables 2–4 of the same machine.
        let commits = |speed: bool| {
            let mut c: Vec<&str> =
                m.measurements().filter(|r| (r.str("profile") == SPEED_PROFILE) == speed).map(|r| r.str("git_commit")).collect();
            c.sort_unstable();
            c.dedup();
            c.join(", ")
        };
        let _ = writeln!(md, "Measured at commit {}; this machine's Tables 2–4 and Figures 4–5 at {}.\n", commits(true), commits(false));
        let mut t = Table::new(&[
            "set",
            "training instances",
            "serial (s)",
            "cpu-mt (s)",
            "cuda-paper (s)",
            "cuda-ballot (s)",
            "cuda-ballot upload (s)",
            "serial / cuda-paper",
            "serial / cuda-ballot",
            "goal ≥ 300×",
        ]);
        for set in sets {
            let (paper, ballot) = (a.speed.speedup(set, 1, CUDA), a.speed.speedup(set, 1, BALLOT));
            let best = paper.into_iter().chain(ballot).reduce(f64::max);
            t.row(vec![
                set.into(),
                a.instances.get(set).map_or("—".into(), |n| n.to_string()),
                fmt_s(a.speed.summary(set, 1, SERIAL)),
                fmt_s(a.speed.summary(set, 1, PARALLEL)),
                a.speed.cell(set, 1, CUDA),
                a.speed.cell(set, 1, BALLOT),
                fmt_s(a.speed_load.summary(set, 1, BALLOT)),
                fmt_x(paper),
                fmt_x(ballot),
                match best {
                    Some(x) if x >= SPEED_GOAL => "met".into(),
                    Some(_) => "not met".into(),
                    None => format!("not run here ({})", a.speed.reason(BALLOT)),
                },
            ]);
        }
        md += &t.render();
        md += "\n";
    }
    if !any {
        md += "No `speed` runs in the records.\n\n";
    }
    md
}

fn machine_heading(m: &MachineRecords) -> String {
    format!("### `{}` ({})\n\n", m.hw_id, m.label())
}

fn fmt_x(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.1}×"))
}

fn fmt_pct(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| format!("{:.1} ± {:.1} %", 100.0 * s.mean, 100.0 * s.sd))
}

impl BiohelPaper {
    /// The attribute type of every set in the records: from the rows'
    /// `attribute_type`, else (rows written before that column) from the data set.
    fn attribute_types(&self, machines: &[MachineRecords]) -> Result<BTreeMap<String, AttributeType>> {
        let mut types = BTreeMap::new();
        let mut untyped = BTreeSet::new();
        for r in machines.iter().flat_map(|m| m.measurements()) {
            match AttributeType::parse(r.str("attribute_type")) {
                Some(t) => {
                    types.insert(r.str("set").to_owned(), t);
                }
                None if !r.str("set").is_empty() => {
                    untyped.insert(r.str("set").to_owned());
                }
                None => {}
            }
        }
        for set in untyped {
            if let std::collections::btree_map::Entry::Vacant(e) = types.entry(set) {
                let t = AttributeType::of(&self.data_set(e.key())?);
                e.insert(t);
            }
        }
        Ok(types)
    }

    fn table2(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = machine_heading(m);
        let sets = a.eval.sets();
        if sets.is_empty() {
            return md + "No evaluation runs in this machine's records.\n\n";
        }
        let mut t = Table::new(&[
            "set",
            "training instances",
            "serial: paper (s)",
            "serial: here (s)",
            "cpu-mt: here (s)",
            "CUDA: paper (s)",
            "cuda-paper: here (s)",
            "cuda-ballot: here (s)",
        ]);
        for set in sets {
            let paper = self.spec.table2.iter().find(|r| r.set == set);
            t.row(vec![
                set.into(),
                a.instances.get(set).map_or("—".into(), |n| n.to_string()),
                paper.map_or("—".into(), |r| fmt_paper(r.evaluation_serial)),
                fmt_s(a.eval.summary(set, 1, SERIAL)),
                fmt_s(a.eval.summary(set, 1, PARALLEL)),
                paper.map_or("—".into(), |r| fmt_paper(r.evaluation_cuda)),
                a.eval.cell(set, 1, CUDA),
                a.eval.cell(set, 1, BALLOT),
            ]);
        }
        md += &t.render();
        md + "\n"
    }

    fn table2_integration(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = machine_heading(m);
        if a.learning.is_empty() {
            return md + "No learning runs in this machine's records.\n\n";
        }
        for (budget, l) in &a.learning {
            let _ = writeln!(md, "Budget: {}.\n", budget.describe());
            let mut t = Table::new(&[
                "set",
                "training instances",
                "serial: paper (s)",
                "serial: here (s)",
                "cpu-mt: here (s)",
                "CUDA: paper (s)",
                "cuda-paper: here (s)",
                "cuda-ballot: here (s)",
                "evaluation share of serial",
                "rules learned",
            ]);
            for set in l.total.sets().into_iter().filter(|s| l.total.windows(s).contains(&1)) {
                let paper = self.spec.table2.iter().find(|r| r.set == set);
                let rules = l.models.get(&(set.to_owned(), 1)).and_then(|m| Summary::of(&m.rules));
                t.row(vec![
                    set.into(),
                    a.instances.get(set).map_or("—".into(), |n| n.to_string()),
                    paper.map_or("—".into(), |r| fmt_paper(r.integration_serial)),
                    fmt_s(l.total.summary(set, 1, SERIAL)),
                    fmt_s(l.total.summary(set, 1, PARALLEL)),
                    paper.map_or("—".into(), |r| fmt_paper(r.integration_cuda)),
                    l.total.cell(set, 1, CUDA),
                    l.total.cell(set, 1, BALLOT),
                    l.evaluation_share(set, 1).map_or("—".into(), |s| format!("{:.0} %", 100.0 * s)),
                    rules.map_or("—".into(), |s| format!("{:.1}", s.mean)),
                ]);
            }
            md += &t.render();
            md += "\n";
        }
        md
    }

    fn table3(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = machine_heading(m);
        let sets = a.eval.sets();
        if sets.is_empty() {
            return md + "No evaluation runs in this machine's records.\n\n";
        }
        md += "Per set and window count, mean evaluation time (s); *net* = serial / CUDA at the same window count (the \
               paper's first row), *total* = serial with 1 window / CUDA with w windows (its second row), each beside the \
               paper's value (Tesla C1060 against one Xeon E5472 core); *serial 1 / w* = what windowing alone saves.\n\n";
        let mut t = Table::new(&[
            "set",
            "windows",
            "serial (s)",
            "cpu-mt (s)",
            "cuda-paper (s)",
            "cuda-ballot (s)",
            "net: paper / cuda-paper / cuda-ballot",
            "total: paper / cuda-paper / cuda-ballot",
            "serial / cpu-mt",
            "serial 1 / w",
        ]);
        let x = |num: Option<f64>, den: Option<f64>| fmt_x(num.zip(den).map(|(n, d)| n / d));
        for set in sets {
            let base = a.eval.mean(set, 1, SERIAL);
            for w in a.eval.windows(set) {
                let serial = a.eval.mean(set, w, SERIAL);
                let paper = self.spec.table3.at(set, w);
                t.row(vec![
                    set.into(),
                    w.to_string(),
                    fmt_s(a.eval.summary(set, w, SERIAL)),
                    fmt_s(a.eval.summary(set, w, PARALLEL)),
                    a.eval.cell(set, w, CUDA),
                    a.eval.cell(set, w, BALLOT),
                    format!(
                        "{} / {} / {}",
                        fmt_x(paper.map(|p| p.0)),
                        x(serial, a.eval.mean(set, w, CUDA)),
                        x(serial, a.eval.mean(set, w, BALLOT))
                    ),
                    format!(
                        "{} / {} / {}",
                        fmt_x(paper.map(|p| p.1)),
                        x(base, a.eval.mean(set, w, CUDA)),
                        x(base, a.eval.mean(set, w, BALLOT))
                    ),
                    x(serial, a.eval.mean(set, w, PARALLEL)),
                    x(base, serial),
                ]);
            }
        }
        md += &t.render();
        md + "\n"
    }

    fn table4(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = machine_heading(m);
        if a.learning.is_empty() {
            return md + "No learning runs in this machine's records.\n\n";
        }
        md += "Per set and window count, mean whole learning time (s); *same window* = serial / CUDA at the same window \
               count (the paper's first row), *vs serial 1 window* = serial with 1 window / CUDA with w windows (its \
               second row), each beside the paper's value (Tesla C1060 against one Xeon E5472 core).\n\n";
        let x = |num: Option<f64>, den: Option<f64>| fmt_x(num.zip(den).map(|(n, d)| n / d));
        for (budget, l) in &a.learning {
            let _ = writeln!(md, "Budget: {}.\n", budget.describe());
            let mut t = Table::new(&[
                "set",
                "windows",
                "T/x",
                "serial (s)",
                "cpu-mt (s)",
                "cuda-paper (s)",
                "cuda-ballot (s)",
                "same window: paper / cuda-paper / cuda-ballot",
                "vs serial 1 window: paper / cuda-paper / cuda-ballot",
                "serial / cpu-mt",
                "evaluation share of serial",
                "rules learned",
            ]);
            let st = &l.total;
            for set in st.sets() {
                let base = st.mean(set, 1, SERIAL);
                for w in st.windows(set) {
                    let serial = st.mean(set, w, SERIAL);
                    let paper = self.spec.table4.at(set, w);
                    let rules = l.models.get(&(set.to_owned(), w)).and_then(|m| Summary::of(&m.rules));
                    t.row(vec![
                        set.into(),
                        w.to_string(),
                        a.instances.get(set).map_or("—".into(), |n| format!("{:.0}", *n as f64 / w as f64)),
                        fmt_s(st.summary(set, w, SERIAL)),
                        fmt_s(st.summary(set, w, PARALLEL)),
                        st.cell(set, w, CUDA),
                        st.cell(set, w, BALLOT),
                        format!(
                            "{} / {} / {}",
                            fmt_x(paper.map(|p| p.0)),
                            x(serial, st.mean(set, w, CUDA)),
                            x(serial, st.mean(set, w, BALLOT))
                        ),
                        format!(
                            "{} / {} / {}",
                            fmt_x(paper.map(|p| p.1)),
                            x(base, st.mean(set, w, CUDA)),
                            x(base, st.mean(set, w, BALLOT))
                        ),
                        x(serial, st.mean(set, w, PARALLEL)),
                        l.evaluation_share(set, w).map_or("—".into(), |s| format!("{:.0} %", 100.0 * s)),
                        rules.map_or("—".into(), |s| format!("{:.1}", s.mean)),
                    ]);
                }
            }
            md += &t.render();
            md += "\n";
        }
        md
    }

    /// Section 5.2: with 1 window, the whole system's speedup against the
    /// evaluation's alone, the paper's (Tables 3–4) beside each machine's.
    fn learning_vs_evaluation(&self, analyses: &[(&MachineRecords, Analysis)]) -> String {
        let mut md = String::from(
            "With 1 window, the whole system's speedup against the evaluation's alone, as *evaluation / learning / \
             ratio* (Section 5.2: larger, since the instances are copied once per GA and rule check rather than once per \
             simulated GA, \"but less than twice\"): the paper's from Tables 3 and 4, each machine's of `cuda-paper` from \
             its two stages.\n\n",
        );
        let machines: Vec<&(&MachineRecords, Analysis)> = analyses.iter().filter(|(_, a)| a.main_learning().is_some()).collect();
        let mut header = vec!["set".to_owned(), "paper".to_owned()];
        header.extend(machines.iter().map(|(m, _)| format!("`{}`", m.hw_id)));
        let mut t = Table::new(&header);
        let fmt = |p: Option<(f64, f64)>| p.map_or("—".into(), |(e, l)| format!("{e:.1}× / {l:.1}× / {:.2}", l / e));
        for set in SETS {
            let paper = self.spec.table3.at(set, 1).zip(self.spec.table4.at(set, 1)).map(|(e, l)| (e.0, l.0));
            let mut row = vec![set.to_owned(), fmt(paper)];
            for (_, a) in &machines {
                let learning = a.main_learning().and_then(|(_, l)| l.total.speedup(set, 1, CUDA));
                row.push(fmt(a.eval.speedup(set, 1, CUDA).zip(learning)));
            }
            t.row(row);
        }
        md += &t.render();
        md + "\n"
    }

    /// Figures 4 (evaluation stage) and 5 (learning stage) of one machine.
    fn figures(&self, m: &MachineRecords, a: &Analysis, types: &BTreeMap<String, AttributeType>, dir: &Path) -> Result<String> {
        let mut md = machine_heading(m);
        // The learning stage's figure is drawn from the budget the claims use.
        let learning = a.main_learning().map(|(b, l)| (&l.total, format!(" Budget: {}.", b.describe())));
        let stages = [("Figure 4", "evaluation", "fig4", Some((&a.eval, String::new()))), ("Figure 5", "learning", "fig5", learning)];
        for (figure, stage_name, file, stage) in stages {
            let Some((stage, budget)) = stage else {
                let _ = writeln!(md, "{figure} ({stage_name} stage): no {stage_name} runs in this machine's records.\n");
                continue;
            };
            let curves = stage.speedups_per_stratum(&a.instances, CUDA);
            let series: Vec<(&Curve, AttributeType)> = curves.iter().filter_map(|c| Some((c, *types.get(c.set)?))).collect();
            if series.is_empty() {
                let _ = writeln!(md, "{figure} ({stage_name} stage): not run here ({}).\n", stage.reason(CUDA));
                continue;
            }
            let band = self.peak_band(stage_name);
            let stem = dir.join("figures").join(format!("{}__{file}", m.hw_id));
            let title = format!("{figure}: {stage_name} speedup against training-set size per stratum");
            write_speedup_figure(&stem, &title, &series, band).with_context(|| format!("figure {}", stem.display()))?;
            let _ = writeln!(md, "![{figure}](figures/{}__{file}.png)\n", m.hw_id);
            let peaks: Vec<String> = curves
                .iter()
                .filter_map(|c| {
                    let p = c.peak()?;
                    Some(format!("{} {:.1}× at {:.0} (x = {})", c.set, p.speedup, p.per_stratum, p.windows))
                })
                .collect();
            let _ = writeln!(md, "{figure} peaks (speedup at T/x): {}.{budget}\n", peaks.join("; "));
        }
        Ok(md)
    }

    /// The band of the `speedup_peak_band` claim of `stage`, to shade.
    fn peak_band(&self, stage: &str) -> Option<(f64, f64)> {
        let c = self
            .spec
            .claims
            .iter()
            .find(|c| c.check.get_ref() == "speedup_peak_band" && c.param("stage").and_then(|v| v.as_str()) == Some(stage))?;
        Some((c.param("low")?.as_float()?, c.param("high")?.as_float()?))
    }
}

fn accuracy_table(m: &MachineRecords, a: &Analysis) -> String {
    let mut md = machine_heading(m);
    if a.learning.is_empty() {
        return md + "No learning runs in this machine's records.\n\n";
    }
    for (budget, l) in &a.learning {
        let _ = writeln!(md, "Budget: {}.\n", budget.describe());
        let mut t = Table::new(&["set", "windows", "runs", "rules learned", "training accuracy", "test accuracy", "same rule list from"]);
        let mut runs: Vec<(&(String, usize), &Models)> = l.models.iter().collect();
        runs.sort_by_key(|((set, w), _)| (SETS.iter().position(|s| s == set), *w));
        for ((set, w), models) in runs {
            t.row(vec![
                set.clone(),
                w.to_string(),
                models.train.len().to_string(),
                Summary::of(&models.rules).map_or("—".into(), |s| format!("{:.1} ± {:.1}", s.mean, s.sd)),
                fmt_pct(Summary::of(&models.train)),
                fmt_pct(Summary::of(&models.test)),
                METHODS.iter().filter(|m| models.methods.contains(**m)).copied().collect::<Vec<_>>().join(", "),
            ]);
        }
        md += &t.render();
        md += "\n";
    }
    md
}

/// Figures 4–5 as the paper draws them: speedup against T/x on a log axis, one
/// line per set coloured by its attribute type (`report::chart::LineChart` colours
/// by series index, so this figure draws itself), the claimed peak band shaded.
/// Writes `<stem>.png` and `<stem>.svg`, each through a temporary file (`chart::atomically`).
fn write_speedup_figure(stem: &Path, title: &str, series: &[(&Curve, AttributeType)], band: Option<(f64, f64)>) -> Result<()> {
    chart::register_font();
    chart::atomically(stem, "png", |p| draw_speedups(BitMapBackend::new(p, chart::SIZE).into_drawing_area(), title, series, band))
        .map_err(anyhow::Error::msg)?;
    chart::atomically(stem, "svg", |p| draw_speedups(SVGBackend::new(p, chart::SIZE).into_drawing_area(), title, series, band))
        .map_err(anyhow::Error::msg)
}

fn draw_speedups<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    series: &[(&Curve, AttributeType)],
    band: Option<(f64, f64)>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let pts = || series.iter().flat_map(|(c, _)| c.points.iter());
    let (x_lo, x_hi) = pts().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| (lo.min(p.per_stratum), hi.max(p.per_stratum)));
    let (x0, x1) = (x_lo / 2.0, x_hi * 2.0);
    let y1 = pts().fold(1.0f64, |m, p| m.max(p.speedup)) * 1.15;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0..x1).log_scale(), 0.0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("training instances per stratum, T/x")
        .y_desc("speedup, serial / cuda-paper (same windows)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    if let Some((lo, hi)) = band.filter(|&(lo, hi)| hi > x0 && lo < x1) {
        let shade = RGBColor(120, 120, 120).mix(0.15);
        chart
            .draw_series(std::iter::once(Rectangle::new([(lo.max(x0), 0.0), (hi.min(x1), y1)], shade.filled())))
            .map_err(e)?
            .label(format!("claimed peak band {lo:.0}–{hi:.0}"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], shade.filled()));
    }
    chart.draw_series(LineSeries::new(vec![(x0, 1.0), (x1, 1.0)], BLACK.mix(0.3))).map_err(e)?;
    let mut per_type: BTreeMap<AttributeType, usize> = BTreeMap::new();
    for (curve, kind) in series {
        let color = kind.color();
        let mut line: Vec<(f64, f64)> = curve.points.iter().map(|p| (p.per_stratum, p.speedup)).collect();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart.draw_series(LineSeries::new(line.clone(), color.stroke_width(2))).map_err(e)?;
        // Sets of one type share a colour and differ by marker (legend: the marker).
        let k = per_type.entry(*kind).or_default();
        let label = format!("{} ({})", curve.set, kind.label());
        match *k % 5 {
            0 => {
                chart
                    .draw_series(line.iter().map(|&p| Circle::new(p, 4, color.filled())))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
            }
            1 => {
                chart
                    .draw_series(line.iter().map(|&p| TriangleMarker::new(p, 5, color.filled())))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| TriangleMarker::new((x + 8, y), 5, color.filled()));
            }
            2 => {
                chart
                    .draw_series(line.iter().map(|&p| Cross::new(p, 4, color.stroke_width(2))))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| Cross::new((x + 8, y), 4, color.stroke_width(2)));
            }
            3 => {
                let square = |at| EmptyElement::at(at) + Rectangle::new([(-4, -4), (4, 4)], color.filled());
                chart
                    .draw_series(line.iter().map(|&p| square(p)))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| EmptyElement::at((x + 8, y)) + Rectangle::new([(-4, -4), (4, 4)], color.filled()));
            }
            _ => {
                chart
                    .draw_series(line.iter().map(|&p| Circle::new(p, 4, color.stroke_width(2))))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.stroke_width(2)));
            }
        }
        *k += 1;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

/// A largest speedup and where it was measured.
type Best = Option<(f64, String)>;

/// The largest speedups of `method` over serial in `stage`: at 1 window, at the
/// same window count (net), and against serial with 1 window (total).
fn best_speedups(stage: &Stage, method: &str) -> (Best, Best, Best) {
    let (mut one, mut net, mut total): (Best, Best, Best) = (None, None, None);
    let keep = |best: &mut Best, s: f64, at: String| {
        if best.as_ref().is_none_or(|b| s > b.0) {
            *best = Some((s, at));
        }
    };
    for set in stage.sets() {
        let base = stage.mean(set, 1, SERIAL);
        for w in stage.windows(set) {
            let Some(cuda) = stage.mean(set, w, method) else { continue };
            if let Some(s) = stage.speedup(set, w, method) {
                keep(&mut net, s, format!("{set}, {w} windows"));
                if w == 1 {
                    keep(&mut one, s, set.to_owned());
                }
            }
            if let Some(base) = base {
                keep(&mut total, base / cuda, format!("{set}, {w} windows"));
            }
        }
    }
    (one, net, total)
}

fn check_claim(c: &ClaimSpec, a: &Analysis) -> (Verdict, String) {
    let param = |k: &str| c.param(k).and_then(|v| v.as_float()).unwrap_or(f64::NAN);
    let verdict = |ok: bool| if ok { Verdict::Reproduced } else { Verdict::NotReproduced };
    let no_learning = || (Verdict::NotRun("no learning runs in this machine's records".into()), String::new());
    match c.check.get_ref().as_str() {
        "cuda_speedup" => {
            let (paper_net, paper_total) = (param("net"), param("total"));
            let (_, Some((net, net_at)), Some((total, total_at))) = best_speedups(&a.eval, CUDA) else {
                return (Verdict::NotRun(a.eval.reason(CUDA)), String::new());
            };
            let ballot = match best_speedups(&a.eval, BALLOT) {
                (_, Some((n, na)), Some((t, ta))) => format!("; cuda-ballot: net {n:.1}× ({na}), total {t:.1}× ({ta})"),
                _ => String::new(),
            };
            (
                verdict(net >= paper_net && total >= paper_total),
                format!(
                    "cuda-paper: best net {net:.1}× ({net_at}), best total {total:.1}× ({total_at}) against the paper's {paper_net}× and \
                     {paper_total}×{ballot}"
                ),
            )
        }
        "cuda_variance_smaller" => {
            let mut ev = Vec::new();
            let mut ok = true;
            for set in a.eval.sets() {
                let (Some(serial), Some(cuda)) = (a.eval.summary(set, 1, SERIAL), a.eval.summary(set, 1, CUDA)) else { continue };
                if serial.n < 2 || cuda.n < 2 {
                    continue;
                }
                ok &= cuda.sd < serial.sd;
                ev.push(format!("{set}: sd {:.4} s (cuda-paper) vs {:.4} s (serial)", cuda.sd, serial.sd));
            }
            if ev.is_empty() {
                let why = a.eval.not_run.get(CUDA).cloned().unwrap_or_else(|| "needs at least 2 seeds per set with CUDA and serial".into());
                return (Verdict::NotRun(why), String::new());
            }
            (verdict(ok), ev.join(", "))
        }
        "windows_cut_serial_time" => {
            let min_ratio = param("min_ratio");
            let mut ev = Vec::new();
            let mut ok = true;
            for set in a.eval.sets() {
                let Some(base) = a.eval.mean(set, 1, SERIAL) else { continue };
                for w in a.eval.windows(set).into_iter().filter(|&w| w > 1) {
                    let Some(t) = a.eval.mean(set, w, SERIAL) else { continue };
                    let saving = base / t;
                    ok &= saving >= min_ratio * w as f64;
                    ev.push(format!("{set} w={w}: {saving:.1}×"));
                }
            }
            if ev.is_empty() {
                return (Verdict::NotRun("needs runs with 1 and more windows".into()), String::new());
            }
            (verdict(ok), format!("serial time with 1 window / with w (want ≥ {min_ratio}·w): {}", ev.join(", ")))
        }
        "learning_speedup" => {
            let Some((budget, l)) = a.main_learning() else { return no_learning() };
            let (paper_one, paper_total) = (param("cuda_only"), param("total"));
            let (Some((one, one_at)), _, Some((total, total_at))) = best_speedups(&l.total, CUDA) else {
                return (Verdict::NotRun(l.total.reason(CUDA)), String::new());
            };
            let ballot = match best_speedups(&l.total, BALLOT) {
                (Some((o, oa)), _, Some((t, ta))) => format!("; cuda-ballot: {o:.1}× ({oa}), {t:.1}× ({ta})"),
                _ => String::new(),
            };
            (
                verdict(one >= paper_one && total >= paper_total),
                format!(
                    "cuda-paper: best with 1 window {one:.1}× ({one_at}), best against serial with 1 window {total:.1}× ({total_at}) \
                     against the paper's {paper_one}× and {paper_total}×{ballot}; budget: {}",
                    budget.describe()
                ),
            )
        }
        "learning_vs_evaluation" => {
            let Some((_, l)) = a.main_learning() else { return no_learning() };
            let (lo, hi) = (param("min"), param("max"));
            let ratios: Vec<(&str, f64, f64)> =
                SETS.iter().filter_map(|&set| Some((set, a.eval.speedup(set, 1, CUDA)?, l.total.speedup(set, 1, CUDA)?))).collect();
            if ratios.is_empty() {
                let why = if l.total.not_run.contains_key(CUDA) { l.total.reason(CUDA) } else { a.eval.reason(CUDA) };
                return (Verdict::NotRun(why), String::new());
            }
            let ok = ratios.iter().all(|&(_, e, l)| lo < l / e && l / e < hi);
            let ev: Vec<String> =
                ratios.iter().map(|(set, e, l)| format!("{set}: learning {l:.1}× / evaluation {e:.1}× = {:.2}", l / e)).collect();
            (verdict(ok), format!("cuda-paper, 1 window (want a ratio in ({lo}, {hi})): {}", ev.join("; ")))
        }
        "speedup_peak_band" => {
            let (lo, hi, steady) = (param("low"), param("high"), param("steady"));
            let stage_name = c.param("stage").and_then(|v| v.as_str()).unwrap_or_default();
            let stage = if stage_name == "learning" {
                match a.main_learning() {
                    Some((_, l)) => &l.total,
                    None => return no_learning(),
                }
            } else {
                &a.eval
            };
            let series = stage.speedups_per_stratum(&a.instances, CUDA);
            if series.is_empty() {
                return (Verdict::NotRun(stage.reason(CUDA)), String::new());
            }
            // A set shows where its speedup peaks only if it was measured in the
            // band and beyond it ("and then it gets steady or decreases"): its
            // best inside the band against its best anywhere.
            let in_band = |p: &&StratumPoint| (lo..=hi).contains(&p.per_stratum);
            let eligible: Vec<(&str, StratumPoint, StratumPoint)> = series
                .iter()
                .filter(|c| c.points.iter().any(|p| p.per_stratum > hi))
                .filter_map(|c| Some((c.set, c.peak()?, peak(c.points.iter().filter(in_band))?)))
                .collect();
            if eligible.is_empty() {
                return (
                    Verdict::NotRun(format!("needs a set measured both at {lo:.0}–{hi:.0} and at more than {hi:.0} instances per stratum")),
                    String::new(),
                );
            }
            let peaks_inside = |best: &StratumPoint, inside: &StratumPoint| inside.speedup >= steady * best.speedup;
            let count = eligible.iter().filter(|(_, best, inside)| peaks_inside(best, inside)).count();
            let ev: Vec<String> = eligible
                .iter()
                .map(|(set, best, inside)| {
                    format!(
                        "{set}: best {:.1}× at {:.0} (x = {}), in the band {:.1}× at {:.0} (x = {}){}",
                        best.speedup,
                        best.per_stratum,
                        best.windows,
                        inside.speedup,
                        inside.per_stratum,
                        inside.windows,
                        if peaks_inside(best, inside) { " ✓" } else { "" }
                    )
                })
                .collect();
            (
                verdict(2 * count > eligible.len()),
                format!(
                    "{count} of {} sets measured in and beyond {lo:.0}–{hi:.0} instances per stratum peak in it (within {steady} of \
                     their best; {stage_name}, cuda-paper): {}",
                    eligible.len(),
                    ev.join("; ")
                ),
            )
        }
        other => (Verdict::NotRun(format!("no checker `{other}`")), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::biohel::{Condition, Rule};
    use crate::library::dataset::Attribute;

    fn spec_with(edit: Option<(&str, &str)>) -> Result<BiohelSpec, SpecError> {
        let mut text = BIOHEL.embedded_spec().to_owned();
        if let Some((from, to)) = edit {
            assert!(text.contains(from), "the spec no longer has `{from}`");
            text = text.replacen(from, to, 1);
        }
        let file = SpecFile::from_text(Path::new("biohel.toml"), text);
        let spec: BiohelSpec = file.parse()?;
        validate(&file, &spec)?;
        Ok(spec)
    }

    fn claim(id: &str) -> ClaimSpec {
        spec_with(None).unwrap().claims.into_iter().find(|c| c.id == id).unwrap()
    }

    /// Serial and cuda-paper rows of one set: (windows, serial s, cuda s) each.
    fn rows(figure: &str, set: &str, instances: i64, population: i64, times: &[(usize, f64, f64)]) -> Vec<Record> {
        let column = if figure == LEARN_FIGURE { "learn_s" } else { "eval_s" };
        let mut out = Vec::new();
        for &(w, serial, cuda) in times {
            for (method, secs) in [(SERIAL, serial), (CUDA, cuda)] {
                out.push(
                    Record::new()
                        .with("record_kind", "measurement")
                        .with("figure", figure)
                        .with("set", set)
                        .with("windows", w)
                        .with("population", population)
                        .with("iterations", 20)
                        .with("method", method)
                        .with("status", "ok")
                        .with(column, secs)
                        .with("instances", instances),
                );
            }
        }
        out
    }

    fn analysis(rows: Vec<Record>) -> Analysis {
        Analysis::of(&MachineRecords { hw_id: "test".into(), rows })
    }

    /// Whether a printed speedup (one decimal) can be the ratio of two printed
    /// times (one decimal each): a check of the transcription.
    fn ratio_of_printed(speedup: f64, serial: f64, cuda: f64) -> bool {
        let (lo, hi) = ((serial - 0.05) / (cuda + 0.05) - 0.05, (serial + 0.05) / (cuda - 0.05) + 0.05);
        lo - 1e-9 <= speedup && speedup <= hi + 1e-9
    }

    #[test]
    fn the_shipped_spec_loads_and_its_paper_tables_agree() {
        let spec = spec_with(None).unwrap();
        // Tables 3 and 4's 1-window columns are Table 2's ratios (Section 5).
        for r in &spec.table2 {
            let (net, total) = spec.table4.at(&r.set, 1).unwrap();
            assert_eq!(net, total, "{}", r.set);
            assert!(ratio_of_printed(net, r.integration_serial[0], r.integration_cuda[0]), "{}: Table 4 against Table 2", r.set);
            let (eval_net, _) = spec.table3.at(&r.set, 1).unwrap();
            assert!(ratio_of_printed(eval_net, r.evaluation_serial[0], r.evaluation_cuda[0]), "{}: Table 3 against Table 2", r.set);
        }
        assert!(!ratio_of_printed(3.7, 95.7, 20.0), "the check can fail");
        assert_eq!(spec.table2.len(), SETS.len());
        assert_eq!(spec.table4.at("ss", 50), Some((6.6, 765.3)));
    }

    #[test]
    fn malformed_learning_specs_are_rejected_with_their_key() {
        let err = |from, to| spec_with(Some((from, to))).unwrap_err().to_string();
        let e = err("{ set = \"sat\", net = [3.7, 1.6,", "{ set = \"sat\", net = [1.6,");
        assert!(e.contains("table4.sets") && e.contains("`sat` has 10 net"), "{e}");
        let e = err("stage = \"learning\"", "stage = \"learn\"");
        assert!(e.contains("claims.fig5_peak.params"), "{e}");
        let e = err("high = 100000.0, steady", "high = 2000.0, steady");
        assert!(e.contains("claims.fig4_peak.params"), "{e}");
        let e = err("steady = 0.9 }", "steady = 1.5 }");
        assert!(e.contains("claims.fig4_peak.params"), "{e}");
        let e = err("population = ", "population = 0 # ");
        assert!(e.contains("learn.population") && e.contains("at least 1"), "{e}");
    }

    #[test]
    fn peak_band_needs_most_eligible_sets_to_peak_inside() {
        let c = claim("fig4_peak");
        // kdd peaks at 40,000 per stratum (inside), par at 240,000 (outside, with
        // 10× against 25× at 60,000); sat never reaches the band and c-4 is not
        // measured beyond it: neither counts.
        let mut r = rows(EVAL_FIGURE, "kdd", 400_000, 0, &[(1, 10.0, 1.0), (4, 4.0, 0.2), (10, 3.0, 0.1), (40, 1.0, 0.2)]);
        r.extend(rows(EVAL_FIGURE, "par", 240_000, 0, &[(1, 25.0, 1.0), (4, 10.0, 1.0)]));
        r.extend(rows(EVAL_FIGURE, "sat", 6_000, 0, &[(1, 3.0, 1.0), (2, 1.0, 1.0)]));
        r.extend(rows(EVAL_FIGURE, "c-4", 60_000, 0, &[(1, 20.0, 1.0), (2, 10.0, 1.0)]));
        let (v, ev) = check_claim(&c, &analysis(r.clone()));
        assert_eq!(v, Verdict::NotReproduced, "{ev}");
        assert!(ev.starts_with("1 of 2 sets") && ev.contains("kdd: best 30.0× at 40000 (x = 10), in the band 30.0×"), "{ev}");
        assert!(!ev.contains("c-4") && !ev.contains("sat"), "{ev}");
        // cn is steady after the band (19× at 60,000, 20× at 240,000): two of three.
        r.extend(rows(EVAL_FIGURE, "cn", 240_000, 0, &[(1, 20.0, 1.0), (4, 19.0, 1.0)]));
        let (v, ev) = check_claim(&c, &analysis(r.clone()));
        assert_eq!(v, Verdict::Reproduced, "{ev}");
        assert!(ev.contains("cn: best 20.0× at 240000 (x = 1), in the band 19.0× at 60000 (x = 4) ✓"), "{ev}");
        // The learning stage's claim does not read evaluation rows.
        let (v, _) = check_claim(&claim("fig5_peak"), &analysis(r));
        assert_eq!(v, Verdict::NotRun("no learning runs in this machine's records".into()));
    }

    #[test]
    fn claims_are_not_run_without_cuda_rows() {
        let mut r = rows(LEARN_FIGURE, "sat", 6_000, 50, &[(1, 3.0, 1.0)]);
        r.retain(|r| r.str("method") == SERIAL);
        r.push(
            Record::new()
                .with("record_kind", "measurement")
                .with("figure", LEARN_FIGURE)
                .with("set", "sat")
                .with("windows", 1)
                .with("population", 50)
                .with("iterations", 20)
                .with("method", CUDA)
                .with("status", "not_run")
                .with("reason", "--backend cpu"),
        );
        let a = analysis(r);
        for id in ["learning_speedup", "learning_vs_evaluation", "fig5_peak"] {
            assert_eq!(check_claim(&claim(id), &a).0, Verdict::NotRun("--backend cpu".into()), "{id}");
        }
    }

    #[test]
    fn integrated_speedup_is_compared_with_the_evaluation_speedup_per_set() {
        let c = claim("learning_vs_evaluation");
        let eval = rows(EVAL_FIGURE, "sat", 6_000, 0, &[(1, 2.0, 1.0)]);
        let mut r = eval.clone();
        r.extend(rows(LEARN_FIGURE, "sat", 6_000, 50, &[(1, 30.0, 10.0)]));
        let (v, ev) = check_claim(&c, &analysis(r));
        assert_eq!(v, Verdict::Reproduced, "{ev}");
        assert!(ev.contains("sat: learning 3.0× / evaluation 2.0× = 1.50"), "{ev}");
        let mut r = eval;
        r.extend(rows(LEARN_FIGURE, "sat", 6_000, 50, &[(1, 30.0, 5.0)]));
        assert_eq!(check_claim(&c, &analysis(r)).0, Verdict::NotReproduced);
    }

    #[test]
    fn learning_speedup_uses_the_largest_budget() {
        let c = claim("learning_speedup");
        // The larger budget reaches 60× with 1 window and 100 / 0.1 = 1000×
        // against serial with 1 window at 50 windows; a smaller budget's larger
        // speedups are not used.
        let mut r = rows(LEARN_FIGURE, "ss", 75_000, 100, &[(1, 100.0, 100.0 / 60.0), (50, 5.0, 0.1)]);
        let (v, ev) = check_claim(&c, &analysis(r.clone()));
        assert_eq!(v, Verdict::Reproduced, "{ev}");
        assert!(ev.contains("60.0× (ss)") && ev.contains("1000.0× (ss, 50 windows)"), "{ev}");
        r = rows(LEARN_FIGURE, "ss", 75_000, 100, &[(1, 100.0, 10.0)]);
        r.extend(rows(LEARN_FIGURE, "ss", 75_000, 50, &[(1, 100.0, 0.01)]));
        let (v, ev) = check_claim(&c, &analysis(r));
        assert_eq!(v, Verdict::NotReproduced, "{ev}");
        assert!(ev.contains("10.0× (ss)") && ev.contains("population 100"), "{ev}");
    }

    #[test]
    fn rule_lists_must_be_identical() {
        let rule = |class, high| Rule { class, conditions: vec![Condition::Interval { attribute: 0, low: 0.0, high }] };
        let model = |rules| LearnedModel { rules, default_class: 0, stats: Default::default() };
        let want = model(vec![rule(1, 0.5), rule(2, 0.7)]);
        assert_eq!(rule_list_difference(&want, &model(vec![rule(1, 0.5), rule(2, 0.7)])), None);
        assert_eq!(rule_list_difference(&want, &model(vec![rule(1, 0.5), rule(2, 0.6)])).unwrap(), "rule 1 of 2 differs");
        assert_eq!(rule_list_difference(&want, &model(vec![rule(1, 0.5)])).unwrap(), "1 rules instead of 2");
        let other_default = LearnedModel { default_class: 1, ..model(vec![rule(1, 0.5), rule(2, 0.7)]) };
        assert!(rule_list_difference(&want, &other_default).unwrap().contains("default class"));
    }

    #[test]
    fn attribute_types_follow_the_nominal_attributes() {
        let set = |nominal: &[bool]| Dataset {
            name: "t".into(),
            attributes: nominal
                .iter()
                .map(|&n| {
                    if n {
                        Attribute::Nominal { name: "n".into(), values: vec!["a".into()] }
                    } else {
                        Attribute::Continuous { name: "c".into() }
                    }
                })
                .collect(),
            classes: vec!["x".into()],
            values: vec![],
            labels: vec![],
            synthetic: true,
        };
        assert_eq!(AttributeType::of(&set(&[false, false])), AttributeType::Continuous);
        assert_eq!(AttributeType::of(&set(&[true, false])), AttributeType::Mixed);
        assert_eq!(AttributeType::of(&set(&[true, true])), AttributeType::Discrete);
        for t in [AttributeType::Continuous, AttributeType::Mixed, AttributeType::Discrete] {
            assert_eq!(AttributeType::parse(t.label()), Some(t));
        }
    }
}

impl BiohelPaper {
    fn render_legacy(&self, machines: &[MachineRecords], dir: &Path) -> Result<String> {
        let s = &self.spec.settings;
        let mut md = String::from("## How this was measured\n\n");
        let _ = writeln!(
            md,
            "Both stages of Section 4 on fold 0 of a {}-fold stratified cross-validation: training set = the other folds, \
             test set = fold 0, missing values imputed with the training set's mean or mode, as BioHEL does. CN, SS and SA \
             are synthetic stand-ins with Table 1's shapes (the real sets are not public): the paper's values in their rows \
             are the real sets'. Every evaluator must give the serial counts exactly and learn the serial rule list exactly \
             (a case fails otherwise). `serial` is the paper's baseline, `cpu-mt` the same counts on all cores (an extra \
             column), `cuda-paper` the paper's kernels 1 and 2 (one thread per rule × instance, 512-instance blocks, three \
             counts reduced in shared memory), `cuda-ballot` warps counting 32 instances per vote \
             instruction, 128 instances per warp against tiles of 32 rules (its v3: the tiles of a chunk of instances run \
             together, and small windows are split into smaller chunks and rule slices so that every rule gets a warp; \
             every table here was measured with v3, whose one pinned upload of each pass's rules serves both CUDA columns: \
             `docs/gpu-notes.md`). Compare the paper's seconds with ours as orders of magnitude, its speedups with ours as \
             ratios.\n",
            s.folds.get_ref(),
        );
        let _ = writeln!(
            md,
            "*Evaluation stage* (Tables 2–3, Figure 4): the training set in ILAS order so that window i is a contiguous \
             range (Section 3.3). One simulated GA: each iteration t evaluates {} fresh random rules (BioHEL-like \
             initialisation, each attribute expressed with probability {}) on window t mod w; times are the sum over the \
             iterations, host wall-clock, including for CUDA the one upload of the instances per GA. The workload is this \
             harness's.\n",
            s.rules_per_iteration.get_ref(),
            s.expressed_probability.get_ref()
        );
        md += "*Learning stage* (Table 2's integration columns, Table 4, Figure 5): BioHEL as the paper runs it \
               (`library::biohel_learning`: iterative rule learning, the best of two GAs per rule, MDL fitness with Table \
               1's coverage breakpoint, ILAS with per-stratum elitism, the instances loaded once per GA and once per rule \
               check) with each evaluator from the same seed; *learning* = wall time of the whole run, *evaluation share* = \
               the part of it spent in the evaluator. The GA budget (population, iterations, rule limit) is stated per \
               table; a budget below BioHEL's default (population 500, 50 iterations, no rule limit) is a *reduced budget*: \
               its times are what was measured, not extrapolated.\n\n";
        let analyses: Vec<(&MachineRecords, Analysis)> = machines.iter().map(|m| (m, Analysis::of(m))).collect();
        let types = self.attribute_types(machines)?;
        md += "## Table 2 — evaluation time with 1 window\n\n";
        for (m, a) in &analyses {
            md += &self.table2(m, a);
        }
        md += "## Table 2 — integration: whole learning time with 1 window\n\n";
        for (m, a) in &analyses {
            md += &self.table2_integration(m, a);
        }
        md += "## Table 3 — evaluation speedups with ILAS windows\n\n";
        for (m, a) in &analyses {
            md += &self.table3(m, a);
        }
        md += "## Table 4 — speedups of the whole learning system with ILAS windows\n\n";
        for (m, a) in &analyses {
            md += &self.table4(m, a);
        }
        md += &self.learning_vs_evaluation(&analyses);
        md += "## Figures 4 and 5 — speedup against the training-set size per stratum\n\n";
        md += "The speedup of `cuda-paper` over `serial` at the same window count against T/x, the training instances per \
                stratum (x windows), on a log axis; one line per set, coloured as in the paper by attribute type (black \
                continuous, red mixed, blue discrete); shaded: the band of the peak claims below.\n\n";
        for (m, a) in &analyses {
            md += &self.figures(m, a, &types, dir)?;
        }
        md += "## Accuracy of the learned models\n\n";
        md += "Not reported by the paper (\"both implementations behave identical and obtain the same accuracy\", Section 5); \
                here to show that the learner learns. Accuracy of the rule list (first matching rule, else the default \
                class) on the training set and on the test fold, mean ± sd over seeds.\n\n";
        for (m, a) in &analyses {
            md += &accuracy_table(m, a);
        }
        md += &scale::section(machines, dir, *s.rules_per_iteration.get_ref())?;
        md += &speed_section(&analyses);
        md += "## Claims\n\n";
        let mut claims = Vec::new();
        for (m, a) in &analyses {
            for c in &self.spec.claims {
                claims.push(ClaimResult::of(c, &m.hw_id, legacy_outcome(check_claim(c, a))));
            }
        }
        md += &claims_table(&claims);
        Ok(md)
    }
}
