//! The BioHEL paper: Franco, Krasnogor & Bacardit, "Speeding Up the Evaluation of
//! Evolutionary Learning Systems using GPGPUs" (GECCO 2010) — its evaluation stage.
//!
//! Case `eval/<set>/w<windows>/s<seed>`: the training set of fold 0 (ten-fold
//! stratified cross-validation, missing values imputed as BioHEL does), laid out in
//! ILAS strata (Section 2.2) so a window is a contiguous range (Section 3.3); one
//! simulated GA evaluates fresh random rules on window t mod w at iteration t, with
//! the serial evaluator (the paper's baseline) and the multi-threaded one (an extra
//! column); both must give equal counts. The CUDA evaluator (Section 3) is not
//! written yet and is recorded as not run.

use super::{Case, Experiment, Paper, RunEnv};
use crate::error::SpecError;
use crate::library::biohel::{Counts, ParallelEvaluator, RuleEvaluator, SerialEvaluator, ilas_strata, random_rule, window_range};
use crate::library::dataset::{self, Dataset};
use crate::records::Record;
use crate::report::{ClaimResult, MachineRecords, Table, claims_table};
use crate::spec::{ClaimSpec, PaperMeta, SpecFile, Verdict};
use crate::stats::Summary;
use anyhow::{Context, Result};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Deserialize;
use std::collections::BTreeMap;
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    sets: Vec<Spanned<String>>,
    windows: Vec<Spanned<usize>>,
    iterations: Spanned<usize>,
    seeds: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table2Row {
    set: String,
    serial: [f64; 2],
    cuda: [f64; 2],
}

const SETS: [&str; 8] = ["sat", "wav", "pen", "adu", "par", "kdd", "far", "c-4"];
const CHECKS: [&str; 2] = ["needs_cuda", "windows_cut_serial_time"];
const SERIAL: &str = "serial";
const PARALLEL: &str = "cpu-mt";
const CUDA: &str = "cuda";
/// Why the CUDA column is empty on every machine.
const CUDA_MISSING: &str = "the CUDA evaluator is not written yet";

impl Experiment for Biohel {
    fn id(&self) -> &'static str {
        "biohel"
    }
    fn title(&self) -> &'static str {
        "Speeding up the evaluation of evolutionary learning systems (BioHEL, ILAS; Tables 2–3, evaluation stage)"
    }
    fn embedded_spec(&self) -> &'static str {
        include_str!("../../experiments/biohel.toml")
    }
    fn load(&self, file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
        let spec: BiohelSpec = file.parse()?;
        validate(file, &spec)?;
        Ok(Box::new(BiohelPaper { spec, file: file.clone() }))
    }
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
        for set in &p.sets {
            if !SETS.contains(&set.get_ref().as_str()) {
                return Err(file.invalid(
                    set,
                    &format!("profiles.{name}.sets"),
                    format!("unknown set `{}` (known: {})", set.get_ref(), SETS.join(", ")),
                ));
            }
        }
        for w in &p.windows {
            if !(1..=1000).contains(w.get_ref()) {
                return Err(file.invalid(w, &format!("profiles.{name}.windows"), format!("{} windows: must be in 1..=1000", w.get_ref())));
            }
        }
        if *p.iterations.get_ref() == 0 {
            return Err(file.invalid(&p.iterations, &format!("profiles.{name}.iterations"), "must be at least 1"));
        }
    }
    file.check_claims(&spec.claims, &CHECKS)
}

struct BiohelPaper {
    spec: BiohelSpec,
    file: SpecFile,
}

impl BiohelPaper {
    /// The training set of fold 0 in ILAS order for `windows` strata.
    fn training_set(&self, set: &str, windows: usize, seed: u64) -> Result<Dataset> {
        let dir = &self.spec.settings.data_dir;
        let data = if set == "par" {
            dataset::parmx()
        } else {
            dataset::load_named(dir, set).with_context(|| format!("data set `{set}` under {}", dir.display()))?
        };
        let folds = dataset::stratified_folds(&data.labels, *self.spec.settings.folds.get_ref(), self.spec.settings.seed);
        let train: Vec<usize> = folds[1..].concat();
        let mut train = data.subset(&train);
        let all: Vec<usize> = (0..train.instances()).collect();
        train.impute_missing(&all);
        let order = ilas_strata(&train.labels, windows, seed);
        Ok(train.subset(&order))
    }
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
        let mut cases = Vec::new();
        for set in &p.sets {
            for w in p.windows.iter().map(|w| *w.get_ref()) {
                for s in 0..p.seeds {
                    let set = set.get_ref().as_str();
                    cases.push(Case {
                        id: format!("eval/{set}/w{w}/s{s}"),
                        params: Record::new()
                            .with("figure", "table3")
                            .with("set", set)
                            .with("windows", w)
                            .with("iterations", *p.iterations.get_ref())
                            .with("seed", self.spec.settings.seed ^ ((s as u64) << 16) ^ w as u64),
                        weight: 10,
                    });
                }
            }
        }
        Ok(cases)
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
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
        let mut totals: Vec<(&str, f64, Vec<Vec<Counts>>)> = Vec::new();
        for (name, mut evaluator) in
            [(SERIAL, Box::new(SerialEvaluator) as Box<dyn RuleEvaluator>), (PARALLEL, Box::new(ParallelEvaluator))]
        {
            let mut counts = Vec::with_capacity(iterations);
            let t0 = Instant::now();
            for (t, batch) in rules.iter().enumerate() {
                let mut out = Vec::new();
                evaluator.evaluate(&data, window_range(data.instances(), windows, t % windows), batch, &mut out)?;
                counts.push(out);
            }
            totals.push((name, t0.elapsed().as_secs_f64(), counts));
        }
        anyhow::ensure!(totals[0].2 == totals[1].2, "{PARALLEL} counts differ from the serial evaluator's in case {}", case.id);
        let mut rows: Vec<Record> = totals
            .iter()
            .map(|(name, secs, _)| {
                Record::new()
                    .with("method", *name)
                    .with("status", "ok")
                    .with("eval_s", *secs)
                    .with("instances", data.instances())
                    .with("attributes", data.attribute_count())
                    .with("threads", if *name == PARALLEL { rayon::current_num_threads() } else { 1 })
            })
            .collect();
        let reason = if env.gpu.is_some() { CUDA_MISSING } else { env.gpu_absent.as_str() };
        rows.push(Record::new().with("method", CUDA).with("status", "not_run").with("reason", reason));
        Ok(rows)
    }

    fn render(&self, machines: &[MachineRecords], _dir: &Path) -> Result<String> {
        let s = &self.spec.settings;
        let mut md = String::from("## How this was measured\n\n");
        let _ = writeln!(
            md,
            "The evaluation stage of Section 4 on the training set of one fold of a {}-fold stratified cross-validation \
             (missing values imputed with the training mean or mode, as BioHEL does), in ILAS order so that window i is a \
             contiguous range (Section 3.3). One simulated GA: each iteration t evaluates {} fresh random rules (BioHEL-like \
             initialisation, each attribute expressed with probability {}) on window t mod w; times are the sum over the \
             iterations, host wall-clock. `serial` is the paper's baseline, `cpu-mt` the same counts on all cores (an extra \
             column); both must give equal counts. The workload is this harness's: compare the paper's seconds with ours as \
             orders of magnitude, not ratios. CUDA: {CUDA_MISSING}.\n",
            s.folds.get_ref(),
            s.rules_per_iteration.get_ref(),
            s.expressed_probability.get_ref()
        );
        let analyses: Vec<(&MachineRecords, Analysis)> = machines.iter().map(|m| (m, Analysis::of(m))).collect();
        md += "## Table 2 — evaluation time with 1 window\n\n";
        for (m, a) in &analyses {
            md += &self.table2(m, a);
        }
        md += "## Table 3 — evaluation speedups with ILAS windows\n\n";
        for (m, a) in &analyses {
            md += &table3(m, a);
        }
        md += "## Claims\n\n";
        let mut claims = Vec::new();
        for (m, a) in &analyses {
            for c in &self.spec.claims {
                claims.push(ClaimResult::of(c, &m.hw_id, check_claim(c, a)));
            }
        }
        md += &claims_table(&claims);
        Ok(md)
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        let mut t = Table::new(&["machine", "set", "serial, 1 window (s)", "cpu-mt, 1 window (s)", "paper: serial / CUDA (s)"]);
        for m in machines {
            let a = Analysis::of(m);
            for set in SETS {
                let (Some(serial), Some(mt)) = (a.mean(set, 1, SERIAL), a.mean(set, 1, PARALLEL)) else { continue };
                let paper =
                    self.spec.table2.iter().find(|r| r.set == set).map_or("—".into(), |r| format!("{} / {}", r.serial[0], r.cuda[0]));
                t.row(vec![format!("`{}`", m.hw_id), set.into(), format!("{serial:.3}"), format!("{mt:.3}"), paper]);
            }
        }
        t.render()
    }
}

/// (set, windows, method) → evaluation times (s), and the reasons for empty columns.
#[derive(Default)]
struct Analysis {
    times: BTreeMap<(String, usize, String), Vec<f64>>,
    instances: BTreeMap<String, i64>,
    not_run: BTreeMap<String, String>,
}

impl Analysis {
    fn of(m: &MachineRecords) -> Analysis {
        let mut a = Analysis::default();
        for r in m.measurements() {
            let method = r.str("method").to_owned();
            if r.str("status") != "ok" {
                a.not_run.insert(method, r.str("reason").to_owned());
                continue;
            }
            let key = (r.str("set").to_owned(), r.int("windows").unwrap_or(0) as usize, method);
            a.times.entry(key).or_default().extend(r.float("eval_s"));
            if let Some(n) = r.int("instances") {
                a.instances.insert(r.str("set").to_owned(), n);
            }
        }
        a
    }

    fn summary(&self, set: &str, windows: usize, method: &str) -> Option<Summary> {
        Summary::of(self.times.get(&(set.to_owned(), windows, method.to_owned()))?)
    }

    fn mean(&self, set: &str, windows: usize, method: &str) -> Option<f64> {
        self.summary(set, windows, method).map(|s| s.mean)
    }

    fn sets(&self) -> Vec<&'static str> {
        SETS.iter().copied().filter(|s| self.times.keys().any(|k| k.0 == *s)).collect()
    }

    fn windows(&self, set: &str) -> Vec<usize> {
        let mut w: Vec<usize> = self.times.keys().filter(|k| k.0 == set).map(|k| k.1).collect();
        w.dedup();
        w
    }
}

fn fmt_s(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| format!("{:.3} ± {:.3}", s.mean, s.sd))
}

impl BiohelPaper {
    fn table2(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        let sets = a.sets();
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
            "CUDA: here",
        ]);
        for set in sets {
            let paper = self.spec.table2.iter().find(|r| r.set == set);
            t.row(vec![
                set.into(),
                a.instances.get(set).map_or("—".into(), |n| n.to_string()),
                paper.map_or("—".into(), |r| format!("{} ± {}", r.serial[0], r.serial[1])),
                fmt_s(a.summary(set, 1, SERIAL)),
                fmt_s(a.summary(set, 1, PARALLEL)),
                paper.map_or("—".into(), |r| format!("{} ± {}", r.cuda[0], r.cuda[1])),
                format!("not run here ({})", a.not_run.get(CUDA).map_or(CUDA_MISSING, String::as_str)),
            ]);
        }
        md += &t.render();
        md + "\n"
    }
}

fn table3(m: &MachineRecords, a: &Analysis) -> String {
    let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
    let sets = a.sets();
    if sets.is_empty() {
        return md + "No evaluation runs in this machine's records.\n\n";
    }
    md += "Per set and window count: serial and cpu-mt evaluation time (s); *net* = serial / cpu-mt at the same window count \
           (the paper's first row, with CUDA in place of cpu-mt); *total* = serial with 1 window / cpu-mt with w windows (its \
           second row); *serial 1 / w* = what windowing alone saves.\n\n";
    let mut t = Table::new(&["set", "windows", "serial (s)", "cpu-mt (s)", "net", "total", "serial 1 / w"]);
    for set in sets {
        let base = a.mean(set, 1, SERIAL);
        for w in a.windows(set) {
            let (serial, mt) = (a.mean(set, w, SERIAL), a.mean(set, w, PARALLEL));
            let x = |num: Option<f64>, den: Option<f64>| num.zip(den).map_or("—".into(), |(n, d)| format!("{:.2}×", n / d));
            t.row(vec![
                set.into(),
                w.to_string(),
                fmt_s(a.summary(set, w, SERIAL)),
                fmt_s(a.summary(set, w, PARALLEL)),
                x(serial, mt),
                x(base, mt),
                x(base, serial),
            ]);
        }
    }
    md += &t.render();
    md + "\n"
}

fn check_claim(c: &ClaimSpec, a: &Analysis) -> (Verdict, String) {
    match c.check.get_ref().as_str() {
        "needs_cuda" => (Verdict::NotRun(a.not_run.get(CUDA).cloned().unwrap_or_else(|| CUDA_MISSING.into())), String::new()),
        "windows_cut_serial_time" => {
            let min_ratio = c.params.get("min_ratio").and_then(|v| v.as_float()).unwrap_or(f64::NAN);
            let mut ev = Vec::new();
            let mut ok = true;
            for set in a.sets() {
                let Some(base) = a.mean(set, 1, SERIAL) else { continue };
                for w in a.windows(set).into_iter().filter(|&w| w > 1) {
                    let Some(t) = a.mean(set, w, SERIAL) else { continue };
                    let saving = base / t;
                    ok &= saving >= min_ratio * w as f64;
                    ev.push(format!("{set} w={w}: {saving:.1}×"));
                }
            }
            if ev.is_empty() {
                return (Verdict::NotRun("needs runs with 1 and more windows".into()), String::new());
            }
            (
                if ok { Verdict::Reproduced } else { Verdict::NotReproduced },
                format!("serial time with 1 window / with w (want ≥ {min_ratio}·w): {}", ev.join(", ")),
            )
        }
        other => (Verdict::NotRun(format!("no checker `{other}`")), String::new()),
    }
}
